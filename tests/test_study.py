"""A study of one's own: figures derived from what runs, presets that bend to a user's data
with a note for what they leave out, bounds asked once and only by the methods that need
them, and the Python study equal to the command line's."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import anonlab
from anonlab import cli
from anonlab.config import OVERRIDES_KEY
from anonlab.runner import build_experiment
from anonlab.runner.fit import derived_figures, fit_tables
from anonlab.validation import ParameterError

pytestmark = pytest.mark.integration  # runs the engine, a process or real data


@pytest.fixture
def signed_csv(tmp_path: Path) -> Path:
    """A user's CSV with negative values and no class."""
    rng = np.random.default_rng(5)
    frame = pd.DataFrame(
        {
            "x": rng.normal(0.0, 5.0, 40).round(3),
            "y": rng.normal(-20.0, 3.0, 40).round(3),
            "z": rng.gamma(2.0, 3.0, 40).round(3),
        }
    )
    path = tmp_path / "signed.csv"
    frame.to_csv(path, index=False)
    return path


def built(compose_config, *overrides: str):
    config = compose_config(*overrides)
    return build_experiment({**config, OVERRIDES_KEY: list(overrides)})


def test_a_studys_figures_follow_its_grid():
    grid = {"k": [2, 5, 10], "epsilon": [0.1, 1.0], "m": [1]}
    (jsd,) = derived_figures(["jsd"], grid, ["ir", "ir_laplace"], None, ["csv"], "my.csv")
    assert (jsd.x, jsd.facet, jsd.row, jsd.series) == ("k", "epsilon", None, None)
    assert jsd.title.endswith("on my.csv")
    (named,) = derived_figures(["re"], grid, ["ir_laplace"], "epsilon", ["csv"], "my.csv")
    assert (named.x, named.facet) == ("epsilon", "k")
    with pytest.raises(ParameterError, match="figure_x='t' is not a grid axis"):
        derived_figures(["re"], grid, ["ir"], "t", ["csv"], "my.csv")


def test_a_preset_on_a_users_data_leaves_out_what_the_data_cannot_take(compose_config, signed_csv):
    experiment = built(
        compose_config,
        "+experiment=census_ir",
        "dataset=csv",
        f"dataset.path={signed_csv}",
        "dataset.numeric=[x,y,z]",
        "grid.m=[3]",
        "grid.k=[2,5]",
    )
    assert [c.method for c in experiment.cells][:1] == ["ir"]
    assert {c.method for c in experiment.cells} == {"ir"}  # negative values are fine
    left = [n for n in experiment.notes if "left out" in n]
    assert len(left) == 2 and all("public bounds" in n for n in left)
    assert all(f.title.endswith("(custom run of census_ir)") for f in experiment.figures)
    assert all(" on signed (custom run" in f.title for f in experiment.figures)  # its stem
    assert experiment.data_names == {"csv": "signed"}


def test_bounds_are_asked_once_for_every_column_with_a_line_to_paste(compose_config, signed_csv):
    base = [
        "+experiment=study",
        f"dataset.path={signed_csv}",
        "dataset.numeric=[x,y,z]",
        "methods=[ir,ir_laplace]",
        "metrics=[re]",
        "grid.k=[2,4]",
        "grid.epsilon=[1.0]",
    ]
    with pytest.raises(ParameterError) as error:
        built(compose_config, *base)
    message = str(error.value)
    assert "['ir_laplace']" in message and "x, y, z" in message
    pasted = message.splitlines()[-1].strip()
    assert pasted.startswith("'dataset.domains={x:[")
    experiment = built(compose_config, *base, pasted.strip("'"))
    assert {c.method for c in experiment.cells} == {"ir", "ir_laplace"}
    assert [f.name for f in experiment.figures] == ["re"]
    # no method that needs bounds: nothing is asked (and no ε, which neither takes)
    assert built(compose_config, *base[:3], "methods=[ir,mdav]", *base[4:6]).cells


def test_a_paper_experiment_with_other_metrics_leaves_out_their_figures(compose_config):
    experiment = built(compose_config, "+experiment=census_ir", "metrics=[re]", "grid.k=[2]")
    assert [f.name for f in experiment.figures] == ["figure1_re"]
    assert "figure 'figure1_jsd' left out: metric 'jsd' is not computed in this run" in (
        experiment.notes
    )
    with pytest.raises(ParameterError, match="plots metric 'jsd'"):  # a figure one names
        built(
            compose_config,
            "+experiment=census_ir",
            "metrics=[re]",
            "figures=[{name: f, metric: jsd, x: k}]",
        )


def test_a_named_metric_that_cannot_be_computed_names_the_real_cause(compose_config, signed_csv):
    with pytest.raises(ParameterError, match="method 'laplace' does not cluster"):
        built(
            compose_config,
            "+experiment=census_ir",
            "metrics=[cluster_min]",
            "grid.k=[2]",
            "grid.m=[1]",
        )


def test_the_python_study_equals_the_command_lines(tmp_path, signed_csv, capsys):
    grid = {"k": [2, 4], "epsilon": [1.0]}
    frame = pd.read_csv(signed_csv)
    domains = {"x": [-20, 20], "y": [-40, 0], "z": [0, 40]}
    ours = anonlab.study(
        frame, ["ir", "ir_laplace"], grid, ["re"], domains=domains, reps=2, n_jobs=1
    )
    status = cli.run(
        [
            "+experiment=study",
            f"dataset.path={signed_csv}",
            "dataset.numeric=[x,y,z]",
            "methods=[ir,ir_laplace]",
            "metrics=[re]",
            "grid.k=[2,4]",
            "grid.epsilon=[1.0]",
            "reps=2",
            "n_jobs=1",
            "figures=[]",
            "'dataset.domains={x:[-20,20],y:[-40,0],z:[0,40]}'".strip("'"),
            f"results_dir={tmp_path / 'cli'}",
        ]
    )
    assert status == 0, capsys.readouterr().err
    (stored,) = (tmp_path / "cli").glob("*/results.parquet")
    theirs = pd.read_parquet(stored)
    pd.testing.assert_frame_equal(ours, theirs)
    assert len(ours) == 6 and set(ours["method"]) == {"ir", "ir_laplace"}


@pytest.mark.parametrize(
    "frame, kwargs, message",
    [
        (pd.DataFrame({"a": []}), {}, "has no rows"),
        (pd.DataFrame([[1, 2]], columns=["a", "a"]), {}, "two columns named 'a'"),
        (pd.DataFrame({"a": [1.0, 2.0]}), {"columns": 5}, "columns must be a column name"),
        (pd.DataFrame({"a": ["1", " 2"]}), {"columns": ["a"]}, "numbers stored as text"),
        (pd.DataFrame({"a": [1.0, 2.0]}), {"seed": 2**64}, "seed"),
    ],
)
def test_the_python_study_refuses_bad_input_in_its_own_words(frame, kwargs, message):
    with pytest.raises(ParameterError, match=message):
        anonlab.study(frame, ["ir"], {"k": [2]}, ["re"], **kwargs)


def test_evaluate_refuses_a_release_with_missing_values():
    original = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0]})
    released = original.assign(a=[1.0, np.nan, 3.0, 4.0])
    with pytest.raises(ParameterError, match="released column 'a' holds nan at row 1"):
        anonlab.evaluate(original, released, ["re"], record_aligned=True)


def test_a_presets_grid_bends_to_a_users_data(compose_config, signed_csv):
    experiment = built(
        compose_config, "+experiment=census_ir", "dataset=csv", f"dataset.path={signed_csv}",
        "dataset.numeric=[x,y,z]", "dataset.domains=data",
    )  # fmt: skip
    assert "grid.m: [8, 13] left out, the data has 3 attributes; runs m=[1]" in experiment.notes
    assert max(c.param_dict.get("k") or 0 for c in experiment.cells) == 40  # n = 40 records
    assert {c.method for c in experiment.cells} == {"laplace", "ir", "ir_laplace"}


def test_the_arena_on_a_users_data_leaves_out_its_attack_on_census(compose_config, signed_csv):
    experiment = built(
        compose_config,
        "+experiment=arena",
        "dataset=csv",
        f"dataset.path={signed_csv}",
        "dataset.numeric=[x,y,z]",
        "dataset.domains=data",
    )
    names = [name for name, _ in experiment.tables]
    assert "attack" not in names and "audited_epsilon" in names
    assert any("table 'attack' left out" in n and "'census'" in n for n in experiment.notes)
    # the attacks rerun ir_laplace (k = 25) on the 20 training records: left out, one note
    (short,) = [n for n in experiment.notes if "training records" in n]
    assert "left out for method 'ir_laplace'" in short and "the 20 training records" in short
    attack = {"name": "attack", "about": "census"}
    assert fit_tables([attack], ["census"]) == ([attack], [])  # kept on its own data
    assert fit_tables([attack], None) == ([attack], [])  # the experiment's own data


@pytest.fixture
def drawn(monkeypatch):
    """The figures a run draws in this process, as matplotlib made them."""
    import anonlab.plotting.curves as curves

    figures, draw = [], curves.plot_curves

    def spy(table, spec):
        figures.append(draw(table, spec))
        return figures[-1]

    monkeypatch.setattr(curves, "plot_curves", spy)
    return figures


def _texts(figures) -> list[str]:
    return [f.get_suptitle() for f in figures] + [a.get_title() for f in figures for a in f.axes]


def test_a_named_study_names_its_folder_and_figures(tmp_path, signed_csv, drawn):
    frame = pd.read_csv(signed_csv)
    kwargs = {"reps": 1, "n_jobs": 1, "seed": 3, "folder": tmp_path}
    fair = anonlab.study(frame, ["ir"], {"k": [2, 4]}, ["re"], name="fair", figures=True, **kwargs)
    other = anonlab.study(frame, ["ir"], {"k": [2, 4]}, ["re"], name="other", **kwargs)
    folders = sorted(p.name for p in (tmp_path / "results").iterdir())
    assert [f.split("-")[0] for f in folders] == ["study~fair", "study~other"]
    assert all(len(f.split("-")[-1]) == 8 for f in folders)  # and the overrides' hash
    (title,) = [f.get_suptitle() for f in drawn]
    assert title.endswith(" on fair") and not any("csv" in t for t in _texts(drawn))
    # only names change: the same rows, the data recorded by its copy's path
    pd.testing.assert_frame_equal(fair, other)
    info = json.loads((tmp_path / "results" / folders[0] / "run.json").read_text())
    assert info["datasets"][0]["name"] == "csv" and info["datasets"][0]["shown"] == "fair"
    path = Path(info["config"]["dataset"]["path"])
    assert path.name == "fair.csv" and path.parent.name.startswith("data-")
    assert pd.read_csv(path).equals(frame)


def test_a_csv_is_named_by_its_stem_in_facets_titles_and_folder(tmp_path, signed_csv, drawn):
    path = tmp_path / "x" / "patients.csv"
    path.parent.mkdir()
    path.write_bytes(signed_csv.read_bytes())
    status = cli.run(
        [
            "+experiment=study",
            f"dataset.path={path}",
            "dataset.numeric=[x,y,z]",
            "methods=[ir]",
            "metrics=[re]",
            "grid.k=[2,4]",
            "reps=1",
            "n_jobs=1",
            "figures=[{name: by_data, metric: re, x: k, facet: dataset, series: null}]",
            f"results_dir={tmp_path / 'out'}",
        ]
    )
    assert status == 0
    (folder,) = (tmp_path / "out").iterdir()
    assert folder.name.startswith("study~patients-")
    texts = _texts(drawn)
    assert "dataset = patients" in texts and "csv" not in " ".join(texts)
    assert drawn[0].get_suptitle().startswith("Relative error") and " on patients " in texts[0]
    assert set(pd.read_parquet(folder / "results.parquet")["dataset"]) == {"csv"}
