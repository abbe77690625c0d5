"""An experiment of one's own (``experiment.paper: null``) kept in a folder of one's own,
as docs/guide/contributing.md says: ``anonlab list --config-dir DIR`` lists it beside the
papers' experiments, ``anonlab run --config-dir DIR +experiment=NAME`` records it as one's
own (``provenance: own``), and the report shows its figure beside its judged claims."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from anonlab.cli import main
from anonlab.provenance import CUSTOM, OWN, PAPER, provenance

pytestmark = pytest.mark.integration  # runs the engine and the command line

MINE = """# @package _global_
# Laplace against IR-Laplace on Census: RE against ε (an experiment of one's own).
defaults:
  - override /dataset: census
experiment:
  name: mine
  paper: null
  targets:
    - {id: Figure 1, title: "RE against ε, of my own"}
methods: [laplace, ir_laplace]
grid: {k: [5], epsilon: [1.0, 10.0], m: [1]}
reps: 2
metrics: [re]
figures:
  - {name: mine_re, metric: re, x: epsilon, series: null}
claims:
  - {id: mine_re_falls, quote: "RE falls as ε grows", kind: monotone,
     metric: re, method: laplace, x: epsilon, direction: decreasing}
"""


@pytest.fixture
def mine(tmp_path: Path) -> Path:
    """A folder of one's own holding one experiment, ``experiment/mine.yaml``."""
    folder = tmp_path / "mine"
    (folder / "experiment").mkdir(parents=True)
    (folder / "experiment" / "mine.yaml").write_text(MINE, encoding="utf-8")
    return folder


def test_the_provenance_of_an_experiment_of_ones_own():
    assert provenance(["+experiment=mine", "reps=5"], paper=False) == OWN
    assert provenance(["+experiment=mine", "grid.k=[2]"], paper=False) == CUSTOM
    assert provenance(["+experiment=census_ir", "reps=5"]) == PAPER  # the papers' as before


def test_list_takes_a_folder_of_ones_own(mine, capsys):
    assert main(["list", "--config-dir", str(mine)]) == 0
    rows = {
        line.split()[0]: line for line in capsys.readouterr().out.splitlines() if line[:2] == "  "
    }
    assert rows["mine"].split(None, 1)[1] == f"own ({mine}) Figure 1: RE against ε, of my own"
    assert "census_ir" in rows  # beside the papers'
    assert main(["list"]) == 0 and "mine" not in capsys.readouterr().out
    # a bad folder, or a name a paper experiment has, is one error line
    assert main(["list", "--config-dir", str(mine / "nope")]) == 2
    assert "is not a folder" in capsys.readouterr().err
    (mine / "experiment" / "census_ir.yaml").write_text(
        MINE.replace("name: mine", "name: census_ir"), encoding="utf-8"
    )
    assert main(["list", "--config-dir", str(mine)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("error: ") and "'census_ir' is a paper experiment's name" in err[-1]


def test_its_run_is_its_own_and_the_report_shows_its_figure(mine, tmp_path, capsys):
    results = tmp_path / "results"
    argv = ["run", "--config-dir", str(mine), "+experiment=mine", f"results_dir={results}"]
    assert main([*argv, "n_jobs=1"]) == 0
    run = json.loads((results / "mine" / "run.json").read_text(encoding="utf-8"))
    assert run["provenance"] == OWN and run["config"]["experiment"]["paper"] is None
    assert (results / "mine" / "figures" / "mine_re.png").is_file()
    # the same experiment with another grid is a custom run, in a folder of its own
    assert main([*argv, "n_jobs=1", "grid.epsilon=[1.0,5.0]"]) == 0
    (custom,) = [p for p in results.iterdir() if p.name.startswith("mine~")]
    assert json.loads((custom / "run.json").read_text(encoding="utf-8"))["provenance"] == CUSTOM
    capsys.readouterr()
    assert main(["report", str(results)]) == 0
    report = results / "report"
    markdown = (report / "index.md").read_text(encoding="utf-8")
    own = markdown[markdown.index("## mine\n") :]
    assert "![mine_re](figures/mine__mine_re.png)" in own
    assert (report / "figures" / "mine__mine_re.png").is_file()
    assert "**reproduced** `mine_re_falls`" in own
    # what each method's releases guarantee, as beside a paper's figure
    assert "What each method's releases guarantee:" in own and "| laplace | ε-DP |" in own
    assert f"| {custom.name} | mine |" in markdown  # listed, not shown
    html = (report / "index.html").read_text(encoding="utf-8")
    section = html[html.index("<h2>mine</h2>") :]
    section = section[: section.find("<h2", 1)]
    assert section.count('<img alt="mine_re"') == 1 and "mine_re_falls" in section
    assert "<h3>What each method's releases guarantee</h3>" in section
    # its verdict is kept with the papers' for the next report to compare with
    verdicts = (report / "verdicts.csv").read_text(encoding="utf-8")
    assert "mine/mine_re_falls,exploratory,reproduced," in verdicts
