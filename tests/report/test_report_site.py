"""The reproduction report, end to end on a tiny results folder. A new figure with two
claims and two readings is one new experiment YAML in a copy of conf/ and nothing else: it
appears in the report with its claims judged under both readings, the contradiction under
the text's reading put down to the reading that reproduces it; a custom run is listed with
its overrides and not judged; the folder is self-contained and can be moved. A confirmatory
run's verdicts sit beside the exploratory ones, a claim re-encoded after it ran is flagged,
and the verdicts that changed since the last report are listed with the reason."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest

from anonlab.config import compose_config
from anonlab.report.__main__ import main as report_cli
from anonlab.report.claims import CONTRADICTED, REPRODUCED
from anonlab.report.render import freeze_line, summary_rows
from anonlab.report.site import build_report
from anonlab.report.view import build_view, judge_claims, run_command
from anonlab.runner import build_experiment, run_experiment

pytestmark = pytest.mark.integration  # runs the engine, a process or real data

ROOT = Path(__file__).resolve().parents[2]
NEW_FIGURE = """# @package _global_
defaults:
  - override /dataset: census
experiment:
  name: fixture_figure
  paper: DP-IR
  targets:
    - {id: Figure 98, title: "A new figure"}
methods: [laplace, ir]
grid: {k: [50], epsilon: [1.0], m: [1]}
reps: 3
metrics: [re]
figures:
  - {name: fig98_re, metric: re, x: k, facet: m, series: epsilon, title: "fixture"}
readings:
  - {name: text, primary: true, text: "k = 50 as printed"}
  - {name: small_k, text: "k = 2", set: {grid.k: [2]}}
claims:
  - {id: fixture_ir_below_laplace, paper: DP-IR, section: "§0", quote: "IR below Laplace",
     kind: ordering, metric: re, lower: ir, higher: laplace}
  - {id: fixture_ir_small, paper: DP-IR, section: "§0", quote: "IR's RE below 0.01",
     kind: bound, metric: re, method: ir, op: "<", value: 0.01, notes: "#report"}
profiles:
  quick: {}
"""


@pytest.fixture(scope="module")
def conf(tmp_path_factory) -> Path:
    """A copy of conf/ with one new experiment YAML (and nothing else) added."""
    conf = tmp_path_factory.mktemp("conf") / "conf"
    shutil.copytree(ROOT / "conf", conf)
    (conf / "experiment" / "fixture_figure.yaml").write_text(NEW_FIGURE, encoding="utf-8")
    return conf


@pytest.fixture(scope="module")
def results(conf, tmp_path_factory) -> Path:
    """The new figure under both readings, and a custom run of it."""
    out = tmp_path_factory.mktemp("results")
    for extra in ([], ["reading=small_k"], ["grid.k=[5]"]):
        config = compose_config(
            "+experiment=fixture_figure", f"results_dir={out}", "n_jobs=1", *extra, conf_dir=conf
        )
        experiment = build_experiment(config)
        run_experiment(experiment, experiment.config, progress=False)
    return out


@pytest.fixture(scope="module")
def report(results, conf) -> tuple[Path, str, str]:
    path = build_report(results, conf)
    return (
        path,
        path.read_text(encoding="utf-8"),
        (path.parent / "index.md").read_text(encoding="utf-8"),
    )


@pytest.fixture(scope="module")
def view(results, conf, report):
    """The report's view of :func:`results` (after :func:`report` wrote its verdicts),
    built once for the tests that read it and change nothing."""
    return build_view(results, conf)


def section(page: str, anchor: str) -> str:
    start = page.index(f'id="{anchor}"')
    end = page.find("<h2", start)
    return page[start : end if end > 0 else None]


def test_a_new_yaml_is_a_new_target_with_its_claims_under_each_reading(results, report, view):
    assert {"fixture_figure", "fixture_figure@small_k"} <= {p.name for p in results.iterdir()}
    target = next(t for t in view.targets if t.target.title_line == "DP-IR Figure 98")
    assert target.run is not None and target.run.folder == "fixture_figure"
    claims = {c.result.id: c for c in target.claims}
    assert set(claims) == {"fixture_ir_below_laplace", "fixture_ir_small"}
    assert claims["fixture_ir_below_laplace"].result.status == REPRODUCED
    small = claims["fixture_ir_small"]
    assert [v.result.status for v in small.readings] == [CONTRADICTED, REPRODUCED]
    assert small.cause == "reading" and "small_k" in small.cause_text
    assert target.best_reading == "small_k"
    _, page, markdown = report
    figure = section(page, "dp-ir-figure-98")
    assert figure.count("<img") == 1 and "fixture_ir_small" in figure
    assert "a reading of the paper" in figure and "small_k" in figure
    assert "DP-IR Figure 98: `fixture_ir_small` — a reading of the paper" in markdown


def test_summary_counts_verdicts_and_causes_per_paper(report):
    _, _, markdown = report
    header = next(line for line in markdown.splitlines() if line.startswith("| paper |"))
    row = next(line for line in markdown.splitlines() if line.startswith("| DP-IR |"))
    cells = dict(zip(header.strip("|").split(" | "), row.strip("|").split(" | "), strict=True))
    cells = {k.strip(): v.strip() for k, v in cells.items()}
    assert cells["claims judged"] == "2" and cells["reproduced"] == "1"
    assert cells["contradicted"] == "1" and cells["contradicted: a reading of the paper"] == "1"
    assert cells["targets run"].startswith("1/")


def test_custom_runs_are_listed_with_their_overrides_and_not_judged(results, report, view):
    _, page, markdown = report
    custom = [p for p in results.iterdir() if p.name.startswith("fixture_figure~")]
    assert len(custom) == 1
    assert "Custom configurations" in page and "grid.k=[5]" in page
    assert f"| {custom[0].name} | fixture_figure |" in markdown
    assert [r.folder for r in view.custom] == [custom[0].name]


def test_the_report_folder_is_self_contained_and_can_be_moved(results, report, tmp_path):
    path, page, markdown = report
    assert sorted(p.name for p in path.parent.iterdir()) == [
        "figures",
        "index.html",
        "index.md",
        "notes.html",
        "notes.md",
        "verdicts.csv",
    ]
    assert not re.search(r"<(link|script)\b", page)
    assert not re.search(r'<img[^>]+src="(?!data:)', page)  # every image embedded
    assert 'href="notes.html#report"' in page and "(notes.md#report)" in markdown
    assert 'id="report"' in (path.parent / "notes.html").read_text(encoding="utf-8")
    moved = tmp_path / "shared"
    shutil.copytree(path.parent, moved)
    for link in re.findall(r"!\[[^]]*\]\(([^)]+)\)", markdown):
        assert (moved / link).is_file()


def test_targets_not_run_give_the_command(results, report):
    _, page, markdown = report
    adult = section(page, "dp-ir-figure-2")
    assert "not run" in adult and f"anonlab run +experiment=adult_ir results_dir={results}" in adult
    assert (
        run_command("adult_ir", ROOT / "results" / "quick", "quick")
        == "anonlab run +experiment=adult_ir profile=quick"
    )
    assert (
        run_command("adult_ir", Path("results"), "paper", "text")
        == "anonlab run +experiment=adult_ir reading=text"
    )


def test_a_bad_claim_does_not_stop_the_others(results):
    table = pd.read_parquet(results / "fixture_figure" / "results.parquet")
    good = {
        "id": "ok",
        "paper": "DP-IR",
        "section": "§0",
        "quote": "q",
        "kind": "ordering",
        "metric": "re",
        "lower": "ir",
        "higher": "laplace",
    }
    own = {k: v for k, v in good.items() if k not in ("paper", "section")} | {"id": "own"}
    broken, ok, mine = judge_claims(
        [{"id": "broken", "paper": "DP-IR", "kind": "ordering"}, good, own], table
    )
    assert broken.status == "not checkable" and "field 'section' is missing" in broken.ours
    assert ok.status == REPRODUCED
    # a claim of one's own cites no paper and no section, and is judged all the same
    assert mine.status == REPRODUCED and not mine.paper and mine.section is None


def test_cli_writes_the_report_and_prints_its_path(results, capsys, tmp_path):
    assert report_cli([str(results)]) == 0
    assert capsys.readouterr().out.strip() == str(results / "report" / "index.html")
    assert report_cli([str(tmp_path / "missing")]) == 2
    assert "error: no results folder" in capsys.readouterr().err


def _confirm(results: Path, tmp_path: Path, quote: str | None = None) -> Path:
    """A copy of ``results`` whose primary run is also stored as the confirmatory run, its
    first claim's quote changed to ``quote`` (as if re-encoded after it ran)."""
    copy = tmp_path / "results"
    shutil.copytree(results, copy, ignore=shutil.ignore_patterns("report"))
    target = copy / "confirmatory" / "fixture_figure"
    shutil.copytree(copy / "fixture_figure", target)
    info = json.loads((target / "run.json").read_text(encoding="utf-8"))
    info["config"]["stage"] = "confirmatory"
    if quote is not None:
        info["config"]["claims"][0]["quote"] = quote
    (target / "run.json").write_text(json.dumps(info), encoding="utf-8")
    return copy


def test_confirmatory_verdicts_sit_beside_the_exploratory_and_changes_are_flagged(
    results, conf, tmp_path
):
    copy = _confirm(results, tmp_path, quote="an older encoding")
    view = build_view(copy, conf)
    target = next(t for t in view.targets if t.target.title_line == "DP-IR Figure 98")
    claims = {c.result.id: c for c in target.claims}
    changed, same = claims["fixture_ir_below_laplace"], claims["fixture_ir_small"]
    assert changed.confirmatory.status == changed.result.status == REPRODUCED
    assert changed.changed and not same.changed
    assert same.confirmatory.status == CONTRADICTED and same.cause == "reading"
    summary = next(s for s in view.papers if s.paper.short == "DP-IR")
    assert summary.confirmatory.counts[REPRODUCED] == 1
    rows = summary_rows(view)
    assert {r["seed"] for r in rows} == {"exploratory", f"confirmatory ({view.confirmatory_seed})"}
    page = build_report(copy, conf).read_text(encoding="utf-8")
    assert "encoding changed after the confirmatory results existed" in page
    assert "fixture_ir_below_laplace" in freeze_line(view)


def test_each_claim_shows_its_slice_and_look(view):
    target = next(t for t in view.targets if t.target.title_line == "DP-IR Figure 98")
    below = next(c for c in target.claims if c.result.id == "fixture_ir_below_laplace")
    assert below.result.slice == "re: ir; laplace"
    assert below.result.look == 1 and below.result.look_reps == 3


def test_verdicts_that_changed_since_the_last_report_are_listed_with_why(results, conf, tmp_path):
    copy = _confirm(results, tmp_path)
    build_report(copy, conf)
    stored = copy / "report" / "verdicts.csv"
    rows = pd.read_csv(stored, dtype=str)
    first = rows.index[(rows["id"] == "fixture_ir_small") & (rows["stage"] == "exploratory")]
    rows.loc[first, "status"] = "within noise"
    second = rows.index[rows["id"] == "fixture_ir_below_laplace"]
    rows.loc[second, ["status", "digest"]] = ["contradicted", "0123456789ab"]
    rows.to_csv(stored, index=False)
    changes = {(c.id, c.stage): c for c in build_view(copy, conf).changes}
    small = changes[("fixture_ir_small", "exploratory")]
    assert (small.before, small.after) == ("within noise", CONTRADICTED)
    assert "new run, or the checker" in small.reason
    assert ("fixture_ir_small", "confirmatory") not in changes
    assert changes[("fixture_ir_below_laplace", "exploratory")].reason == (
        "the claim's encoding changed"
    )
