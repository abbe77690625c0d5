"""The catalog: papers, targets and experiments derived from the configs alone, in the
papers' order, consistent with the docs' tables; malformed declarations are refused naming the
file; ``+experiment=all`` takes its list from it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from anonlab import catalog
from anonlab.validation import ParameterError

pytestmark = pytest.mark.integration  # runs the engine, a process or real data

ROOT = Path(__file__).resolve().parents[1]
#: the pages that hold the papers' table and the experiments' table
PAPERS_PAGE = ROOT / "docs" / "index.md"
EXPERIMENTS_PAGE = ROOT / "docs" / "guide" / "reproducing.md"


def table_rows(page: Path, header: str) -> list[list[str]]:
    """The cells of the table of ``page`` whose header line starts with ``header``."""
    lines = page.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def test_papers_are_listed_on_the_docs_home_in_their_order():
    papers = [p for p in catalog.papers() if p.kind == "paper"]
    assert [p.kind for p in catalog.papers()][-1] == "beyond"  # the arena, after them
    rows = table_rows(PAPERS_PAGE, "| short name | paper |")
    assert [p.short for p in papers] == [row[0] for row in rows]
    for paper, row in zip(papers, rows, strict=True):
        assert paper.citation in row[1]
        assert paper.title in row[1] and str(paper.year) in row[1]


def test_every_experiment_config_is_a_paper_experiment_in_the_docs_or_a_custom_one():
    names = catalog.experiment_names()
    files = {p.stem for p in (ROOT / "conf" / "experiment").glob("*.yaml")}
    # all: every paper experiment; study, and any experiment of one's own: no paper's
    custom = catalog.custom_experiments()
    assert {"all", "study"} <= set(custom) and not set(custom) & set(names)
    assert set(names) == files - set(custom) and len(names) == len(set(names))
    rows = table_rows(EXPERIMENTS_PAGE, "| experiment | paper target |")
    assert [row[0].strip("`") for row in rows] and {row[0].strip("`") for row in rows} == set(names)
    entries = {entry.name: entry for entry in catalog.experiments()}  # the catalog, read once
    for row in rows:
        entry = entries[row[0].strip("`")]
        assert row[1].startswith(f"{entry.paper} "), row
        assert f"+experiment={entry.name}" in row[2]


def test_targets_are_ordered_by_paper_then_figures_before_tables():
    targets = catalog.targets()
    order = [p.short for p in catalog.papers()]
    assert [order.index(t.paper) for t in targets] == sorted(order.index(t.paper) for t in targets)
    assert {t.paper for t in targets} == set(order)
    for paper in order:
        ids = [t.id for t in targets if t.paper == paper]
        kinds = [i.split()[0] for i in ids]
        assert kinds == sorted(kinds, key=["Figure", "Table"].index), ids
        for kind in ("Figure", "Table"):
            numbers = [int(i.split()[1]) for i in ids if i.startswith(kind)]
            assert numbers == sorted(numbers)
    assert len({t.anchor for t in targets}) == len(targets)
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", t.anchor) for t in targets)
    first = targets[0]
    assert first.title_line == f"{first.paper} {first.id}"
    assert first.anchor == first.title_line.lower().replace(" ", "-")
    # the experiments follow their first target
    experiments = catalog.experiments()
    assert [e.name for e in experiments] == list(dict.fromkeys(t.experiment for t in targets))


def test_targets_pick_declared_outputs_and_claims_name_their_target():
    for entry in catalog.experiments():
        config = yaml.safe_load(entry.path.read_text(encoding="utf-8"))
        assert all(t.title and t.experiment == entry.name for t in entry.targets)
        ids = {t.id for t in entry.targets}
        papers = {p.short for p in catalog.papers() if p.kind == "paper"}
        for claim in entry.claims:
            # the arena judges the papers' privacy statements with its audit
            judged_elsewhere = claim["kind"] == "privacy" and claim["paper"] in papers
            assert claim["paper"] == entry.paper or judged_elsewhere, claim["id"]
            if len(ids) > 1:
                assert claim.get("target") in ids, claim["id"]
        if len(entry.targets) > 1:  # each target picks its own outputs
            picks = [(t.figures, t.tables) for t in entry.targets]
            assert len(set(picks)) == len(picks)
        assert config["experiment"]["paper"] == entry.paper


def test_all_takes_its_list_from_the_catalog(compose_config):
    config = compose_config("+experiment=all")
    assert config["all_experiments"] is True
    text = (ROOT / "conf" / "experiment" / "all.yaml").read_text(encoding="utf-8")
    assert not any(f"- {name}" in text for name in catalog.experiment_names())


def test_a_fixture_experiment_joins_the_catalog_with_its_readings(conf_copy):
    conf = conf_copy()
    entry = catalog.experiment("fixture_readings", conf)
    assert entry.name in catalog.experiment_names(conf)
    assert [t.title_line for t in entry.targets] == ["DP-IR Figure 99"]
    assert (
        catalog.experiment_names(conf).index("fixture_readings")
        == catalog.experiment_names(conf).index("census_variance") - 1
    )  # figures before tables
    assert entry.primary.name == "text" and entry.primary.set == {}
    assert [(r.name, dict(r.set)) for r in entry.alternatives] == [
        ("small_grid", {"reps": 1, "grid.k": [2, 3]})
    ]
    assert entry.reading(None) is entry.primary
    with pytest.raises(ParameterError, match=r"choose one of \['text', 'small_grid'\]"):
        entry.reading("other")
    assert catalog.experiment("adult_ir", conf).readings == ()


FIXTURE = (ROOT / "tests" / "fixtures" / "fixture_readings.yaml").read_text(encoding="utf-8")
TARGET = '    - id: Figure 99\n      title: "A fixture target"\n'


def variant(old: str, new: str, text: str = FIXTURE) -> str:
    assert old in text
    return text.replace(old, new)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            variant("paper: DP-IR", "paper: DP-XX"),
            r"experiment.paper 'DP-XX' is not a paper of papers.yaml",
        ),
        (variant(TARGET, '    - title: "no id"\n'), r"target #1: id .* must be a non-empty string"),
        (variant(TARGET, TARGET + TARGET), r"target 'DP-IR Figure 99' is already declared"),
        (
            variant(TARGET, '    - id: Figure 1\n      title: "taken"\n'),
            r"target 'DP-IR Figure 1' is already declared by .*census_ir.yaml",
        ),
        (variant("  targets:\n" + TARGET, "  targets: []\n"), r"experiment.targets must list"),
        (
            variant(TARGET, TARGET + "      figures: [figure9]\n"),
            r"figures \['figure9'\] are not among the experiment's figures",
        ),
        (
            variant("name: fixture_readings", "name: census_ir"),
            r"experiment 'census_ir' is already declared by .*",
        ),
        (
            variant("  targets:\n", "  target: Figure 1\n  targets:\n"),
            r"experiment has unknown key\(s\) \['target'\]",
        ),
        (variant("    primary: true\n", ""), r"exactly one reading must be primary: true, got 0"),
        (
            variant('    text: "one repetition', '    primary: true\n    text: "one repetition'),
            r"the primary reading sets nothing",
        ),
        (
            variant("- name: small_grid", "- name: text"),
            r"reading name\(s\) \['text'\] declared twice",
        ),
        (variant("- name: small_grid", "- name: Small-Grid"), r"name must be lower_snake_case"),
        (variant("set: {reps: 1, grid.k: [2, 3]}", "set: [reps]"), r"set must be a mapping"),
        (variant("set: {reps: 1, grid.k: [2, 3]}", "set: {1: 2}"), r"set keys must be dotted"),
        (variant('    text: "the grid as written"\n', ""), r"reading 'text': text must be"),
        (
            variant("    set: {}\n", "    set: {}\n    when: always\n"),
            r"unknown key\(s\) \['when'\]",
        ),
    ],
)
def test_malformed_declarations_are_refused_naming_the_file(conf_copy, text, message):
    conf = conf_copy(fixture_readings=text)
    with pytest.raises(ParameterError, match=message) as error:
        catalog.experiments(conf)
    assert "fixture_readings.yaml" in str(error.value) or "census_ir.yaml" in str(error.value)


def test_a_file_whose_name_differs_from_its_experiment_is_refused(conf_copy):
    conf = conf_copy(other=FIXTURE)  # fixture_readings.yaml and other.yaml, one name
    with pytest.raises(
        ParameterError,
        match=r"experiment 'fixture_readings' is already "
        r"declared by .*fixture_readings.yaml",
    ):
        catalog.experiments(conf)
    (conf / "experiment" / "fixture_readings.yaml").unlink()
    with pytest.raises(
        ParameterError,
        match=r"other.yaml: experiment.name 'fixture_readings' "
        r"must be the file's name 'other'",
    ):
        catalog.experiments(conf)


CUSTOM = (ROOT / "tests" / "fixtures" / "extension" / "extension_study.yaml").read_text(
    encoding="utf-8"
)


def test_an_experiment_without_a_paper_is_a_custom_one(conf_copy):
    conf = conf_copy(extension_study=CUSTOM)
    assert "extension_study" in catalog.custom_experiments(conf)
    assert "extension_study" not in catalog.experiment_names(conf)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("- just a list\n", r"an experiment must be a mapping"),
        (variant("name: extension_study", "name: other", CUSTOM), r"must be the file's name"),
        (
            variant("  targets:", "  figure: 1\n  targets:", CUSTOM),
            r"unknown key\(s\) \['figure'\]",
        ),
        (variant("experiment:\n", "experiment: study\nx:\n", CUSTOM), r"must be a mapping"),
        (variant("claims:\n", "claims: one\nx:\n", CUSTOM), r"claims must be a list"),
    ],
)
def test_a_malformed_custom_experiment_is_refused_naming_the_file(conf_copy, text, message):
    conf = conf_copy(extension_study=text)
    with pytest.raises(ParameterError, match=message) as error:
        catalog.custom_experiments(conf)
    assert "extension_study.yaml" in str(error.value)


def test_an_unknown_paper_list_entry_is_refused(conf_copy):
    conf = conf_copy()
    papers = conf / "papers.yaml"
    papers.write_text(
        papers.read_text(encoding="utf-8") + "- short: DP-IR\n  title: again\n", encoding="utf-8"
    )
    with pytest.raises(ParameterError, match=r"papers.yaml: paper\(s\) \['DP-IR'\] listed twice"):
        catalog.papers(conf)
