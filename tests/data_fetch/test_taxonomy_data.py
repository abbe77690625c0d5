"""Offline checks of the committed WordNet taxonomies of Adult's occupation and native-country.

WordNet is not needed, except by the regeneration test, which is skipped without it.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest

from anonlab import data_fetch
from anonlab.data_fetch import wordnet_taxonomy

REPO = Path(__file__).resolve().parents[2]
TAXONOMIES = REPO / "anonlab" / "semantics" / "taxonomies"
MAPPING = REPO / "data_fetch" / "wordnet" / "adult_label_synsets.csv"
WORDNET_DIR = Path("/usr/share/wordnet")
FILES = {"occupation": "adult_occupation.json", "native-country": "adult_native_country.json"}
FIELDS = {"occupation": 6, "native-country": 13}
SIZES = {"occupation": 14, "native-country": 41}


def _load(attribute: str) -> dict[str, Any]:
    return json.loads((TAXONOMIES / FILES[attribute]).read_text(encoding="utf-8"))


def _adult_labels(attribute: str) -> set[str]:
    """Labels of ``attribute`` in ``adult.data``, rows with a missing value dropped."""
    labels = set()
    with open(data_fetch.raw_path("adult.data"), encoding="utf-8") as handle:
        for line in handle:
            fields = [field.strip() for field in line.split(",")]
            if len(fields) == 15 and "?" not in fields:
                labels.add(fields[FIELDS[attribute]])
    return labels


def _chain(parent: dict[str, str | None], node: str) -> list[str]:
    """``node`` and its ancestors up to the root; fails on a cycle or an unknown parent."""
    chain = [node]
    while parent[chain[-1]] is not None:
        following = parent[chain[-1]]
        assert following in parent, f"{chain[-1]} has unknown parent {following}"
        assert following not in chain, f"cycle through {following}"
        chain.append(following)
    return chain


def _mapping_rows() -> list[dict[str, str]]:
    with open(MAPPING, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


per_attribute = pytest.mark.parametrize("attribute", sorted(FILES))


@per_attribute
def test_json_loads_with_the_documented_keys(attribute: str) -> None:
    data = _load(attribute)
    assert set(data) == {"attribute", "source", "rule", "root", "parent", "labels", "gloss"}
    assert data["attribute"] == attribute
    assert data["root"] == "entity.n.01"
    assert data["rule"] == wordnet_taxonomy.RULE
    assert data["source"].startswith("WordNet 3.0")
    assert set(data["gloss"]) == set(data["parent"])
    assert all(isinstance(text, str) and text for text in data["gloss"].values())


@per_attribute
def test_parent_is_a_tree_rooted_at_root(attribute: str) -> None:
    data = _load(attribute)
    parent = data["parent"]
    assert [node for node, up in parent.items() if up is None] == [data["root"]]
    for node in parent:
        assert _chain(parent, node)[-1] == data["root"]


@per_attribute
def test_tree_is_the_union_of_the_label_chains(attribute: str) -> None:
    data = _load(attribute)
    covered = {node for node in data["labels"].values() for node in _chain(data["parent"], node)}
    assert covered == set(data["parent"])


@per_attribute
def test_every_adult_label_is_mapped(attribute: str) -> None:
    labels = _adult_labels(attribute)
    assert len(labels) == SIZES[attribute]
    assert set(_load(attribute)["labels"]) == labels


@per_attribute
def test_labels_are_distinct_nodes_none_above_another(attribute: str) -> None:
    data = _load(attribute)
    nodes = list(data["labels"].values())
    assert len(set(nodes)) == len(nodes)
    for node in nodes:
        assert not set(_chain(data["parent"], node)[1:]) & set(nodes), node


@per_attribute
def test_mapping_csv_agrees_with_json(attribute: str) -> None:
    rows = [row for row in _mapping_rows() if row["attribute"] == attribute]
    assert {row["label"]: row["synset"] for row in rows} == _load(attribute)["labels"]
    assert len(rows) == SIZES[attribute]
    for row in rows:
        assert len(row["offset"]) == 8 and row["offset"].isdigit(), row
        assert row["lemma_gloss"] and row["note"], row


@pytest.mark.skipif(not (WORDNET_DIR / "data.noun").is_file(), reason="WordNet 3.0 not installed")
def test_regeneration_is_byte_identical(tmp_path: Path) -> None:
    if wordnet_taxonomy.debian_version() is None:
        pytest.skip("Debian package version of wordnet-base unknown")
    status = wordnet_taxonomy.main(["--wordnet-dir", str(WORDNET_DIR), "--out-dir", str(tmp_path)])
    assert status == 0
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted(FILES.values())
    for name in FILES.values():
        assert (tmp_path / name).read_bytes() == (TAXONOMIES / name).read_bytes(), name


# A six-synset WordNet in the wndb(5) format exercises the build rules and their errors.
_TINY = [  # (lemma, pointers as (symbol, lemma), gloss)
    ("entity", [], "that which exists"),
    ("person", [("@", "entity")], "a human being"),
    ("worker", [("@", "person")], "a person who works"),
    ("farmer", [("@", "person"), ("@", "worker")], "a person who operates a farm"),
    ("clerk", [("@", "worker")], "an employee who performs clerical work; keeps records"),
    ("paris", [("@i", "person")], 'an instance; "a quoted example"'),
]


def _tiny_wordnet(folder: Path) -> dict[str, str]:
    """Write ``index.noun`` and ``data.noun`` of :data:`_TINY`; offsets by lemma."""
    header = "  1 WordNet 3.0 Copyright 2006 by Princeton University.\n"
    offsets, position = {}, len(header)
    for lemma, pointers, gloss in _TINY:  # every line has a fixed length given its content
        offsets[lemma] = f"{position:08d}"
        position += len(_tiny_line("00000000", lemma, pointers, gloss, {}, True))
    lines = [
        _tiny_line(offsets[lemma], lemma, pointers, gloss, offsets, False)
        for lemma, pointers, gloss in _TINY
    ]
    (folder / "data.noun").write_text(header + "".join(lines), encoding="ascii")
    index = [f"{lemma} n 1 0 1 0 {offsets[lemma]}  \n" for lemma, _, _ in sorted(_TINY)]
    (folder / "index.noun").write_text("  1 header\n" + "".join(index), encoding="ascii")
    return offsets


def _tiny_line(
    offset: str,
    lemma: str,
    pointers: list[tuple[str, str]],
    gloss: str,
    offsets: dict[str, str],
    dummy: bool,
) -> str:
    targets = ["00000000" if dummy else offsets[target] for _, target in pointers]
    ptrs = "".join(
        f" {symbol} {target} n 0000" for (symbol, _), target in zip(pointers, targets, strict=True)
    )
    return f"{offset} 03 n 01 {lemma} 0 {len(pointers):03d}{ptrs} | {gloss}  \n"


def _rows(offsets: dict[str, str], **mapping: str) -> list[wordnet_taxonomy.MappingRow]:
    return [
        wordnet_taxonomy.MappingRow("occupation", label, f"{lemma}.n.01", offsets[lemma], "", "")
        for label, lemma in mapping.items()
    ]


def test_tiny_wordnet_follows_the_first_hypernym(tmp_path: Path) -> None:
    offsets = _tiny_wordnet(tmp_path)
    db = wordnet_taxonomy.NounDatabase(tmp_path)
    taxonomy = wordnet_taxonomy.build_taxonomy(
        "occupation", _rows(offsets, A="farmer", B="clerk", C="paris"), db, "test"
    )
    assert taxonomy["parent"] == {
        "entity.n.01": None,
        "person.n.01": "entity.n.01",
        "worker.n.01": "person.n.01",
        "farmer.n.01": "person.n.01",
        "clerk.n.01": "worker.n.01",
        "paris.n.01": "person.n.01",
    }
    assert taxonomy["labels"] == {"A": "farmer.n.01", "B": "clerk.n.01", "C": "paris.n.01"}
    assert taxonomy["gloss"]["clerk.n.01"] == "an employee who performs clerical work"
    assert taxonomy["gloss"]["paris.n.01"] == "an instance"


@pytest.mark.parametrize(
    ("mapping", "message"),
    [
        ({"A": "clerk", "B": "clerk"}, "both map to"),
        ({"A": "worker", "B": "clerk"}, "is an ancestor of"),
    ],
)
def test_tiny_wordnet_rejects_merged_or_nested_labels(
    tmp_path: Path, mapping: dict[str, str], message: str
) -> None:
    offsets = _tiny_wordnet(tmp_path)
    db = wordnet_taxonomy.NounDatabase(tmp_path)
    with pytest.raises(wordnet_taxonomy.TaxonomyError, match=message):
        wordnet_taxonomy.build_taxonomy("occupation", _rows(offsets, **mapping), db, "test")


def test_tiny_wordnet_rejects_a_wrong_offset_or_missing_label(tmp_path: Path) -> None:
    offsets = _tiny_wordnet(tmp_path)
    db = wordnet_taxonomy.NounDatabase(tmp_path)
    wrong = _rows({**offsets, "clerk": offsets["farmer"]}, A="clerk")
    with pytest.raises(wordnet_taxonomy.TaxonomyError, match="the table says"):
        wordnet_taxonomy.build_taxonomy("occupation", wrong, db, "test")
    with pytest.raises(wordnet_taxonomy.TaxonomyError, match="missing from the mapping"):
        wordnet_taxonomy.build_taxonomy(
            "occupation", _rows(offsets, A="clerk"), db, "test", expected_labels={"A", "B"}
        )
