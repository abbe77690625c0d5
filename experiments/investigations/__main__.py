"""``python -m anonlab.experiments.investigations <claim_id> […]``: run investigations and print
their evidence; without an argument, list them."""

from __future__ import annotations

import sys

from anonlab.experiments.investigations import registry


def main(argv: list[str]) -> int:
    found = registry()
    if not argv:
        print("\n".join(sorted(found)))
        return 0
    unknown = [a for a in argv if a not in found]
    if unknown:
        print(
            f"error: no investigation of claim {unknown[0]!r}; claims with one: "
            f"{', '.join(sorted(found))}",
            file=sys.stderr,
        )
        return 2
    for claim_id in argv:
        print(f"# {claim_id}\n")
        print(found[claim_id]())
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
