"""Build the taxonomies of the Adult attributes OCCUPATION and NATIVE-COUNTRY from WordNet 3.0.

DP-IR (§3.4, §4.1) models each categorical attribute of Adult by a taxonomy extracted from
WordNet. This module turns the reviewed label-to-concept table
``data_fetch/wordnet/adult_label_synsets.csv`` and the WordNet 3.0 noun database
(``index.noun`` and ``data.noun``, format of WordNet's ``wndb(5)``) into one JSON taxonomy per
attribute, so that the experiments never need WordNet itself::

    python -m anonlab.data_fetch.wordnet_taxonomy [--wordnet-dir /usr/share/wordnet]
                                          [--out-dir anonlab/semantics/taxonomies]

Rule making a tree out of WordNet
---------------------------------
WordNet noun synsets can have several hypernyms. Every synset here gets exactly one parent: its
**first** hypernym pointer (``@``) in file order or, for an instance synset without ``@``, its
first instance hypernym pointer (``@i``). Following parents from a label's synset always ends at
the unique beginner ``entity.n.01``, the root. The taxonomy of an attribute is the union of
these chains over the attribute's labels, i.e. the minimal tree covering all labels. The rule is
recorded in each JSON file under ``"rule"``.

Synsets are named as NLTK names them: the synset's first lemma in lower case, ``n``, and the
1-based position of the synset's offset in that lemma's ``index.noun`` entry
(``professional.n.01``). The table also records the ``data.noun`` offset of every synset, and the
build refuses a WordNet whose offsets do not give the recorded names.

Checks (each failure raises :class:`TaxonomyError`): every Adult label of the attribute (rows
of ``adult.data`` with a missing value dropped) is mapped exactly once; no two labels share a
synset, which would merge categories; no label's synset is an ancestor of another label's
synset, so that every label is a distinct node and no label generalises another.

Output format (keys sorted, ``indent=1``, deterministic)::

    {"attribute": "occupation", "source": "WordNet 3.0 (Debian wordnet-base 1:3.0-37)",
     "rule": "first hypernym pointer (@, else @i), up to entity.n.01", "root": "entity.n.01",
     "parent": {"<node>": "<parent node or null for the root>", ...},
     "labels": {"<adult label>": "<node>", ...},
     "gloss": {"<node>": "<short gloss>", ...}}
"""

from __future__ import annotations

import argparse
import csv
import json
import shutil
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anonlab.data_fetch as data_fetch

__all__ = [
    "ATTRIBUTES",
    "DEFAULT_OUT_DIR",
    "DEFAULT_WORDNET_DIR",
    "MAPPING_CSV",
    "ROOT",
    "RULE",
    "MappingRow",
    "NounDatabase",
    "Synset",
    "TaxonomyError",
    "adult_labels",
    "build_taxonomy",
    "debian_version",
    "main",
    "output_name",
    "read_mapping",
    "render",
    "write_taxonomies",
]

ROOT = "entity.n.01"
RULE = "first hypernym pointer (@, else @i), up to entity.n.01"
#: Adult attribute name -> 0-based field index in ``adult.data``.
ATTRIBUTES: dict[str, int] = {"occupation": 6, "native-country": 13}
MAPPING_CSV = Path(__file__).resolve().parent / "wordnet" / "adult_label_synsets.csv"
DEFAULT_WORDNET_DIR = Path("/usr/share/wordnet")
DEFAULT_OUT_DIR = Path(__file__).resolve().parents[1] / "anonlab" / "semantics" / "taxonomies"
MAPPING_COLUMNS = ("attribute", "label", "synset", "offset", "lemma_gloss", "note")
_HYPERNYM = "@"
_INSTANCE_HYPERNYM = "@i"


class TaxonomyError(ValueError):
    """The mapping table, the WordNet database or the resulting taxonomy is not valid."""


@dataclass(frozen=True)
class Synset:
    """One line of ``data.noun``.

    Attributes
    ----------
    offset : str
        Eight-digit byte offset of the line in ``data.noun`` (the synset's identifier).
    words : tuple of str
        The synset's lemmas, in file order.
    pointers : tuple of (str, str, str)
        ``(pointer_symbol, target_offset, target_pos)`` for every pointer, in file order.
    gloss : str
        The full gloss (definition and examples).
    """

    offset: str
    words: tuple[str, ...]
    pointers: tuple[tuple[str, str, str], ...]
    gloss: str

    @property
    def parent_offset(self) -> str | None:
        """Offset of the first ``@`` pointer, else of the first ``@i`` pointer, else ``None``."""
        for symbol in (_HYPERNYM, _INSTANCE_HYPERNYM):
            for pointer, target, pos in self.pointers:
                if pointer == symbol and pos == "n":
                    return target
        return None

    @property
    def short_gloss(self) -> str:
        """The definition's first clause: the gloss up to its first ``;`` or quoted example."""
        definition = self.gloss.split('"', 1)[0].split(";", 1)[0].strip()
        return definition or self.gloss


def _parse_data_line(line: str) -> Synset:
    """Parse one synset line of ``data.noun`` (``wndb(5)``)."""
    head, _, gloss = line.partition(" | ")
    fields = head.split()
    offset, w_cnt = fields[0], int(fields[3], 16)
    words = tuple(fields[4 + 2 * i] for i in range(w_cnt))
    at = 4 + 2 * w_cnt
    p_cnt = int(fields[at])
    pointers = tuple(
        (fields[at + 1 + 4 * i], fields[at + 2 + 4 * i], fields[at + 3 + 4 * i])
        for i in range(p_cnt)
    )
    return Synset(offset=offset, words=words, pointers=pointers, gloss=gloss.strip())


class NounDatabase:
    """The noun part of a WordNet database: ``index.noun`` and ``data.noun``.

    Parameters
    ----------
    directory : Path
        Folder holding ``index.noun`` and ``data.noun`` (``/usr/share/wordnet`` on Debian).

    Raises
    ------
    TaxonomyError
        If the files are missing, are not WordNet 3.0, or a synset's offset is not its byte
        position in ``data.noun``.
    """

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)
        data_path, index_path = self.directory / "data.noun", self.directory / "index.noun"
        for path in (data_path, index_path):
            if not path.is_file():
                raise TaxonomyError(f"WordNet file {str(path)!r} does not exist")
        self.synsets: dict[str, Synset] = {}
        header: list[str] = []
        position = 0
        with open(data_path, "rb") as handle:
            for raw in handle:
                line = raw.decode("ascii")
                if line.startswith("  "):
                    header.append(line)
                else:
                    synset = _parse_data_line(line)
                    if int(synset.offset) != position:
                        raise TaxonomyError(
                            f"{str(data_path)!r}: synset {synset.offset} is at byte {position}"
                        )
                    self.synsets[synset.offset] = synset
                position += len(raw)
        if not any("WordNet 3.0 Copyright" in line for line in header):
            raise TaxonomyError(f"{str(data_path)!r} is not the WordNet 3.0 noun database")
        self.index: dict[str, tuple[str, ...]] = {}
        with open(index_path, encoding="ascii") as handle:
            for line in handle:
                if line.startswith("  "):
                    continue
                fields = line.split()
                p_cnt = int(fields[3])
                self.index[fields[0]] = tuple(fields[6 + p_cnt :])

    def name(self, offset: str) -> str:
        """NLTK-style name ``lemma.n.NN`` of the synset at ``offset``."""
        lemma = self.synsets[offset].words[0].lower()
        return f"{lemma}.n.{self.index[lemma].index(offset) + 1:02d}"

    def offset(self, name: str) -> str:
        """Offset of the synset called ``name`` (``lemma.n.NN``)."""
        lemma, pos, number = name.rsplit(".", 2)
        senses = self.index.get(lemma, ())
        if pos != "n" or not number.isdigit() or not 1 <= int(number) <= len(senses):
            raise TaxonomyError(f"no noun synset {name!r} in {str(self.directory)!r}")
        return senses[int(number) - 1]

    def chain(self, offset: str) -> list[str]:
        """Offsets from ``offset`` up to the root, following :attr:`Synset.parent_offset`."""
        chain: list[str] = []
        current: str | None = offset
        while current is not None:
            if current in chain:
                raise TaxonomyError(f"hypernym cycle through {self.name(current)}")
            chain.append(current)
            current = self.synsets[current].parent_offset
        return chain


@dataclass(frozen=True)
class MappingRow:
    """One row of the mapping table: an Adult label and its WordNet synset."""

    attribute: str
    label: str
    synset: str
    offset: str
    lemma_gloss: str
    note: str


def read_mapping(path: Path = MAPPING_CSV) -> list[MappingRow]:
    """Rows of the label-to-synset table.

    Parameters
    ----------
    path : Path
        The CSV file (columns ``attribute,label,synset,offset,lemma_gloss,note``).

    Returns
    -------
    list of MappingRow
        The rows in file order, all fields as strings.

    Raises
    ------
    TaxonomyError
        If the header is wrong, an attribute is unknown or a label is listed twice.
    """
    with open(path, encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        if tuple(reader.fieldnames or ()) != MAPPING_COLUMNS:
            raise TaxonomyError(
                f"{str(path)!r}: columns {reader.fieldnames}, expected {list(MAPPING_COLUMNS)}"
            )
        rows = [MappingRow(**row) for row in reader]
    seen: set[tuple[str, str]] = set()
    for row in rows:
        if row.attribute not in ATTRIBUTES:
            raise TaxonomyError(f"{str(path)!r}: unknown attribute {row.attribute!r}")
        if (row.attribute, row.label) in seen:
            raise TaxonomyError(
                f"{str(path)!r}: {row.attribute} label {row.label!r} is mapped twice"
            )
        seen.add((row.attribute, row.label))
    return rows


def adult_labels(attribute: str, path: Path | None = None) -> set[str]:
    """Distinct values of ``attribute`` in ``adult.data``, rows with a missing value dropped.

    Parameters
    ----------
    attribute : str
        ``"occupation"`` or ``"native-country"``.
    path : Path, optional
        The Adult file; by default the checksum-verified vendored ``adult.data``.

    Returns
    -------
    set of str
        The labels, stripped of spaces (``Prof-specialty``).
    """
    column = ATTRIBUTES[attribute]
    path = data_fetch.raw_path("adult.data") if path is None else path
    labels: set[str] = set()
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            fields = [field.strip() for field in line.split(",")]
            if len(fields) < 15 or "?" in fields:
                continue
            labels.add(fields[column])
    return labels


def build_taxonomy(
    attribute: str,
    rows: Iterable[MappingRow],
    db: NounDatabase,
    source: str,
    expected_labels: Iterable[str] | None = None,
) -> dict[str, Any]:
    """The taxonomy of one attribute, as the JSON-ready dict described in the module docstring.

    Parameters
    ----------
    attribute : str
        ``"occupation"`` or ``"native-country"``.
    rows : iterable of MappingRow
        The mapping table (rows of other attributes are ignored).
    db : NounDatabase
        WordNet 3.0 nouns.
    source : str
        Value of the ``"source"`` field.
    expected_labels : iterable of str, optional
        If given, the attribute's labels must be exactly these.

    Returns
    -------
    dict
        Keys ``attribute, source, rule, root, parent, labels, gloss``.

    Raises
    ------
    TaxonomyError
        If an offset does not match its synset name, labels are missing or extra, two labels
        share a synset, a label's synset is an ancestor of another's, or a chain does not end
        at the root.
    """
    mine = [row for row in rows if row.attribute == attribute]
    if expected_labels is not None:
        expected, listed = set(expected_labels), {row.label for row in mine}
        if expected != listed:
            raise TaxonomyError(
                f"{attribute}: labels missing from the mapping {sorted(expected - listed)}, "
                f"mapped but absent from Adult {sorted(listed - expected)}"
            )
    labels: dict[str, str] = {}
    offsets: dict[str, list[str]] = {}
    chains: dict[str, list[str]] = {}
    owner: dict[str, str] = {}
    for row in mine:
        offset = db.offset(row.synset)
        if offset != row.offset:
            raise TaxonomyError(
                f"{attribute} label {row.label!r}: {row.synset} has offset "
                f"{offset} in {str(db.directory)!r}, the table says {row.offset}"
            )
        if row.synset in owner:
            raise TaxonomyError(
                f"{attribute}: labels {owner[row.synset]!r} and {row.label!r} "
                f"both map to {row.synset}"
            )
        owner[row.synset] = row.label
        labels[row.label] = row.synset
        offsets[row.label] = db.chain(offset)
        chains[row.label] = [db.name(node) for node in offsets[row.label]]
        if chains[row.label][-1] != ROOT:
            raise TaxonomyError(
                f"{attribute} label {row.label!r}: the chain of {row.synset} "
                f"ends at {chains[row.label][-1]}, not {ROOT}"
            )
    for label, chain in chains.items():
        for ancestor in chain[1:]:
            if ancestor in owner:
                raise TaxonomyError(
                    f"{attribute}: {ancestor} (label {owner[ancestor]!r}) is "
                    f"an ancestor of {labels[label]} (label {label!r})"
                )
    parent: dict[str, str | None] = {}
    gloss: dict[str, str] = {}
    for label, names in chains.items():
        for i, node in enumerate(names):
            parent[node] = names[i + 1] if i + 1 < len(names) else None
            gloss[node] = db.synsets[offsets[label][i]].short_gloss
    return {
        "attribute": attribute,
        "source": source,
        "rule": RULE,
        "root": ROOT,
        "parent": parent,
        "labels": labels,
        "gloss": gloss,
    }


def render(taxonomy: Mapping[str, Any]) -> str:
    """JSON text of a taxonomy: sorted keys, ``indent=1``, final newline."""
    return json.dumps(taxonomy, sort_keys=True, indent=1) + "\n"


def output_name(attribute: str) -> str:
    """File name of an attribute's taxonomy (``adult_native_country.json``)."""
    return f"adult_{attribute.replace('-', '_')}.json"


def debian_version(package: str = "wordnet-base") -> str | None:
    """Installed version of a Debian package, or ``None`` if ``dpkg-query`` cannot tell."""
    dpkg = shutil.which("dpkg-query")
    if dpkg is None:
        return None
    done = subprocess.run(
        [dpkg, "-W", "-f=${Version}", package], capture_output=True, text=True, check=False
    )
    version = done.stdout.strip()
    return version if done.returncode == 0 and version else None


def write_taxonomies(
    wordnet_dir: Path = DEFAULT_WORDNET_DIR,
    out_dir: Path = DEFAULT_OUT_DIR,
    mapping: Path = MAPPING_CSV,
    source: str | None = None,
) -> list[Path]:
    """Build and write the taxonomy of every attribute in :data:`ATTRIBUTES`.

    Parameters
    ----------
    wordnet_dir : Path
        Folder of the WordNet 3.0 database files.
    out_dir : Path
        Folder for the JSON files (created if needed).
    mapping : Path
        The label-to-synset table.
    source : str, optional
        Value of ``"source"``; by default ``WordNet 3.0 (Debian wordnet-base <version>)``
        with the version reported by ``dpkg-query``.

    Returns
    -------
    list of Path
        The files written.

    Raises
    ------
    TaxonomyError
        If any check fails (nothing is written then), or ``source`` is not given and the
        Debian package version cannot be found.
    """
    if source is None:
        version = debian_version()
        if version is None:
            raise TaxonomyError(
                "cannot find the version of the Debian package wordnet-base; pass --source"
            )
        source = f"WordNet 3.0 (Debian wordnet-base {version})"
    db = NounDatabase(wordnet_dir)
    rows = read_mapping(mapping)
    texts = {
        output_name(attribute): render(
            build_taxonomy(attribute, rows, db, source, adult_labels(attribute))
        )
        for attribute in ATTRIBUTES
    }
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in texts.items():
        path = out_dir / name
        path.write_text(text, encoding="utf-8", newline="\n")
        written.append(path)
    return written


def main(argv: Sequence[str] | None = None) -> int:
    """Command line; exit status 0 on success, 1 if a check fails."""
    parser = argparse.ArgumentParser(
        prog="python -m anonlab.data_fetch.wordnet_taxonomy",
        description="Write the WordNet 3.0 taxonomies of Adult's occupation and native-country.",
    )
    parser.add_argument(
        "--wordnet-dir",
        type=Path,
        default=DEFAULT_WORDNET_DIR,
        metavar="DIR",
        help="folder holding index.noun and data.noun (default: %(default)s)",
    )
    parser.add_argument(
        "--out-dir",
        type=Path,
        default=DEFAULT_OUT_DIR,
        metavar="DIR",
        help="folder for the JSON files (default: anonlab/semantics/taxonomies)",
    )
    parser.add_argument(
        "--mapping",
        type=Path,
        default=MAPPING_CSV,
        metavar="CSV",
        help="label-to-synset table (default: data_fetch/wordnet/adult_label_synsets.csv)",
    )
    parser.add_argument(
        "--source",
        default=None,
        metavar="TEXT",
        help="value of the 'source' field (default: from dpkg-query)",
    )
    args = parser.parse_args(argv)
    try:
        paths = write_taxonomies(args.wordnet_dir, args.out_dir, args.mapping, args.source)
    except TaxonomyError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    for path in paths:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
