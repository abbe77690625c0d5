"""The reproduction report, end to end on a tiny results folder: two experiments run with
tiny grids, then the HTML (self-contained) and Markdown pages with the summary per paper,
each target's figures or tables beside its checked claims, and the targets not run."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

from anonlab.config import register_resolvers
from anonlab.report.__main__ import main as report_cli
from anonlab.report.claims import STATUSES
from anonlab.report.site import NOTES, TARGETS, build_report, load_runs, run_command, targets_of
from anonlab.runner import build_experiment, run_experiment

ROOT = Path(__file__).resolve().parents[1]
TINY = {
    "census_ir": ["grid.k=[2,5,10,20]", "grid.epsilon=[10.0]", "grid.m=[1]", "reps=1"],
    "census_variance": ["grid.k=[2,25]", "grid.epsilon=[1.0]", "reps=1"],
}


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Path:
    """A results folder with census_ir and census_variance run on tiny grids."""
    register_resolvers()
    out = tmp_path_factory.mktemp("results")
    for name, overrides in TINY.items():
        with initialize_config_dir(config_dir=str(ROOT / "conf"), version_base="1.3"):
            cfg = compose(config_name="config", overrides=[
                f"+experiment={name}", *overrides, "n_jobs=1", f"results_dir={out}"])
        config = OmegaConf.to_container(cfg, resolve=True)
        experiment = build_experiment(config)
        run_experiment(experiment, experiment.config, progress=False)
    return out


@pytest.fixture(scope="module")
def report(results) -> tuple[Path, str, str]:
    path = build_report(results)
    return path, path.read_text(encoding="utf-8"), path.with_suffix(".md").read_text(
        encoding="utf-8")


def section(page: str, anchor: str) -> str:
    start = page.index(f'id="{anchor}"')
    end = page.find("<h2", start)
    return page[start:end if end > 0 else None]


def test_report_is_written_atomically_and_self_contained(results, report):
    path, page, _ = report
    assert path == results / "report" / "index.html"
    assert sorted(p.name for p in path.parent.iterdir()) == ["index.html", "index.md"]
    assert page.count("data:image/png;base64,") == 3  # census_ir's three figures
    assert not re.search(r"<(link|script)\b", page)
    assert not re.search(r'src="(?!data:)', page)  # every image embedded


def test_summary_counts_claims_per_paper(results, report):
    _, page, markdown = report
    runs = load_runs(results)
    checked = [r for run in runs.values() for r in run.results]
    assert {r.paper for r in checked} == {"DP-IR"} and len(checked) == 13 + 7
    assert {r.status for r in checked} <= set(STATUSES)
    counts = {s: sum(r.status == s for r in checked) for s in STATUSES}
    row = next(line for line in markdown.splitlines() if line.startswith("| DP-IR |"))
    assert row == (f"| DP-IR | 2/5 | 20 | {counts['reproduced']} | "
                   f"{counts['not reproduced']} | {counts['not checkable']} | 22 |")
    assert "| TCM | 0/6 | 0 | 0 | 0 | 0 | 25 |" in markdown
    for paper in ("DP-UNI", "iDP"):
        assert f"<td>{paper}</td>" in page


def test_target_shows_its_figures_beside_claims_with_our_numbers(report):
    _, page, markdown = report
    figure1 = section(page, "dp-ir-figure-1")
    assert figure1.count("<img") == 3 and "dp_ir_fig1_re_below_laplace" in figure1
    # the tiny grid has no ε = 0.1 or m = 8: those claims cannot be checked
    claim = figure1[figure1.index('id="claim-dp_ir_fig1_jsd_crossover_m8"'):]
    assert 'class="badge not-checkable"' in claim[:300]
    assert "ours: no points for ir_laplace where ε = 10, m = 8" in claim[:2000]
    assert re.search(r'class="badge reproduced">reproduced</span> <b>dp_ir_fig1_re_below_laplace',
                     figure1)
    table1 = section(page, "dp-ir-table-1")
    assert "<h4>table1</h4>" in table1 and "dp_ir_table1_cells_eps1" in table1
    assert "eps=1 IR paper" in table1  # the paper's values beside ours
    assert "![figure1_re](../census_ir/figures/figure1_re.png)" in markdown


def test_notes_links_are_relative_to_the_repository(results, report):
    _, page, markdown = report
    hrefs = set(re.findall(r'href="([^"#]*reproduction-notes\.md)#([a-z0-9-]+)"', page))
    assert hrefs
    anchors = set(re.findall(r'<a id="([a-z0-9-]+)"></a>', NOTES.read_text(encoding="utf-8")))
    for path, anchor in hrefs:
        assert not Path(path).is_absolute()
        assert (results / "report" / path).resolve() == NOTES.resolve()
        assert anchor in anchors
    assert "reproduction-notes.md#dp-ir-table-1" in markdown


def test_targets_not_run_give_the_command(results, report):
    _, page, markdown = report
    adult = section(page, "dp-ir-figure-2")
    assert "not run" in adult and f"python run.py +experiment=adult_ir results_dir={results}" \
        in adult
    assert "## TCM Table 2\n\n**not run**: `python run.py +experiment=tclose_sizes" in markdown
    assert run_command("adult_ir", ROOT / "results" / "quick", "quick") == \
        "python run.py +experiment=adult_ir profile=quick"
    assert run_command("adult_ir", ROOT / "results", "paper") == \
        "python run.py +experiment=adult_ir"


def test_claims_fall_back_to_the_config_and_bad_claims_do_not_stop_the_report(results,
                                                                              tmp_path):
    for name in TINY:
        target = tmp_path / name
        target.mkdir()
        for item in ("results.parquet", "run.json"):
            (target / item).write_bytes((results / name / item).read_bytes())
    run_json = tmp_path / "census_ir" / "run.json"
    info = json.loads(run_json.read_text())
    del info["config"]["claims"]  # a run from before claims were stored
    run_json.write_text(json.dumps(info))
    variance_json = tmp_path / "census_variance" / "run.json"
    info = json.loads(variance_json.read_text())
    info["config"]["claims"] = [{"id": "broken", "paper": "DP-IR", "kind": "ordering"},
                                *info["config"]["claims"]]
    variance_json.write_text(json.dumps(info))
    runs = load_runs(tmp_path)
    assert runs["census_ir"].claims_source.startswith("conf/experiment/census_ir.yaml")
    assert len(runs["census_ir"].results) == 13
    broken = runs["census_variance"].results[0]
    assert broken.status == "not checkable" and "invalid claim" in broken.ours
    assert "field 'section' is missing" in broken.ours
    page = build_report(tmp_path).read_text(encoding="utf-8")
    assert "no figure or table written" in section(page, "dp-ir-figure-1")


def test_cli_writes_the_report_and_prints_its_path(results, capsys, tmp_path):
    assert report_cli([str(results)]) == 0
    assert capsys.readouterr().out.strip() == str(results / "report" / "index.html")
    assert report_cli([str(tmp_path / "missing")]) == 2
    assert "error: no results folder" in capsys.readouterr().err


def test_every_experiment_maps_to_its_targets():
    assert len(TARGETS) == 16 and len({t.anchor for t in TARGETS}) == 16
    experiments = {p.stem for p in (ROOT / "conf" / "experiment").glob("*.yaml")
                   if yaml.safe_load(p.read_text(encoding="utf-8")).get("claims")}
    assert experiments == {t.experiment for t in TARGETS}
    for name in experiments:
        config = yaml.safe_load((ROOT / "conf" / "experiment" / f"{name}.yaml").read_text(
            encoding="utf-8"))
        names = {t.name for t in targets_of(name)}
        assert {t.paper for t in targets_of(name)} == {config["experiment"]["paper"]}
        for claim in config["claims"]:
            if len(names) > 1:
                assert claim.get("target") in names, claim["id"]


def test_all_runs_the_experiments_of_every_report_target(compose_config):
    from anonlab.report.site import TARGETS

    listed = compose_config("+experiment=all")["all_experiments"]
    assert len(listed) == len(set(listed))
    assert set(listed) == {target.experiment for target in TARGETS}
    assert len(TARGETS) == 16  # DP-IR 5, DP-UNI 1, TCM 6, iDP 4
