"""The random generators a release draws from.

A seeded research run draws from numpy's default bit generator, PCG64, on streams derived
by ``SeedSequence`` (byte-identical results for a seed). PCG64 is not a cryptographic
generator: its state can be recovered from enough of its outputs, and the discrete
sampler releases exact integer noise on the records an adversary knows, which is the raw
material of such a recovery. A release one publishes therefore draws by default from
ChaCha20 (Bernstein 2008; the stream cipher of RFC 8439, 20 rounds) as ``randomgen``'s
``ChaCha`` bit generator behind numpy's ``Generator`` interface, keyed with 256 bits of
OS entropy (:func:`secrets.randbits`), as OpenDP draws its noise from a CSPRNG.
"""

from __future__ import annotations

import secrets

import numpy as np

from anonlab.validation import ParameterError, check_int

#: the generators a release may draw from: ``chacha20``, a cryptographic generator
#: (the library's default), and ``pcg64``, numpy's default (the research engine's)
GENERATORS = ("chacha20", "pcg64")
#: what a guarantee calls the bit generator of a ``numpy.random.Generator``
NAMES = {"ChaCha": "chacha20", "PCG64": "pcg64"}
#: ChaCha's rounds: the cipher's standard 20 (fewer weaken it)
ROUNDS = 20


def check_generator(name: object, parameter: str = "generator") -> str:
    """``name`` if it is one of :data:`GENERATORS`, else one :class:`ParameterError`."""
    if not isinstance(name, str) or name not in GENERATORS:
        raise ParameterError(f"{parameter} must be one of {list(GENERATORS)}, got {name!r}")
    return name


def make_generator(name: str, seed: int | None = None) -> np.random.Generator:
    """A ``numpy.random.Generator`` drawing from bit generator ``name``.

    Parameters
    ----------
    name : one of :data:`GENERATORS`.
    seed : ``None``: fresh OS entropy (``chacha20``: a 256-bit key from
        :func:`secrets.randbits`); an integer ≥ 0: the stream of ``SeedSequence(seed)``,
        reproducible by anyone who knows it.
    """
    name = check_generator(name)
    if seed is not None:
        seed = check_int(seed, "seed", 0)
    if name == "pcg64":
        return np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed)))
    from randomgen import ChaCha  # imported only by a release that draws from it

    if seed is None:
        return np.random.Generator(ChaCha(key=secrets.randbits(256), rounds=ROUNDS))
    return np.random.Generator(ChaCha(np.random.SeedSequence(seed), rounds=ROUNDS))


def generator_name(rng: np.random.Generator) -> str:
    """The name (:data:`NAMES`) of the bit generator ``rng`` draws from, or its class
    name for one this module does not make."""
    kind = type(rng.bit_generator).__name__
    return NAMES.get(kind, kind)


__all__ = ["GENERATORS", "check_generator", "generator_name", "make_generator"]
