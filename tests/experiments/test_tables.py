"""DP-IR Table 1 laid out from the stored results, with the paper's values beside ours."""

from __future__ import annotations

import pandas as pd
import pytest

from anonlab.experiments import dp_ir
from anonlab.plotting.tables import to_markdown
from anonlab.runner import build_experiment, run_experiment

pytestmark = pytest.mark.integration  # runs the engine, a process or real data


def test_paper_values_cover_the_96_cells():
    paper = dp_ir.paper_values()
    assert len(paper) == 8 * 4 * 3 * 2
    cell = paper[(paper.attribute == "A3") & (paper.k == 100) & (paper.epsilon == 10.0)]
    assert cell.set_index("method")["paper"].to_dict() == {"IR": 0.1, "MV": 6.84}


def test_census_variance_writes_table1_beside_the_paper(tmp_path, compose_config):
    cfg = compose_config(
        "+experiment=census_variance",
        "grid.k=[2,100]",
        "grid.epsilon=[10.0]",
        "reps=1",
        "n_jobs=1",
        f"results_dir={tmp_path}",
    )
    experiment = build_experiment(cfg)
    run_experiment(experiment, cfg, progress=False)
    folder = experiment.out_dir / "tables"
    table = pd.read_csv(folder / "table1.csv")
    assert len(table) == 32 and list(table.columns[:2]) == ["attribute", "k"]
    assert table["eps=10 IR paper"].notna().all()
    ours = table.set_index(["attribute", "k"])["eps=10 MV ours"]
    assert ours.loc[("A1", 2)] > 0 and pd.isna(ours.loc[("A1", 25)])  # k=25 not run
    assert (folder / "table1.md").read_text().startswith("| attribute | k |")
    summary = dp_ir.summary(pd.read_parquet(experiment.results_path))
    assert summary["cells"] == 96 and summary["paper_ir_below_mv"] == 83


def test_markdown_rounds_and_blanks_missing():
    frame = pd.DataFrame({"a": ["x"], "b": [1.23456], "c": [float("nan")]})
    assert to_markdown(frame) == "| a | b | c |\n|---|---|---|\n| x | 1.23 |  |\n"
