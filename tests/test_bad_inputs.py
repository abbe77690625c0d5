"""Every bad input is one ``error:`` line, exit status 2, no traceback and nothing written.

Each case runs the command line in-process (:func:`anonlab.cli.run`, what ``python
run.py`` calls) from a scratch folder, and checks that neither the results folder nor any
other file appeared. ``test_error_through_run_py`` checks one case per category through a
real ``python run.py`` process. The categories: config (what Hydra composes), parameters
(grid values and run settings), results (the results folder), runner, csv (reading a
user's file), columns (a user's columns and domains), metrics (what a metric needs of the
data and the method), methods.
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from anonlab import cli

pytestmark = pytest.mark.integration  # runs the engine, a process or real data

ROOT = Path(__file__).resolve().parents[1]
BASE = [
    "+experiment=census_ir",
    "grid.k=[2]",
    "grid.epsilon=[1.0]",
    "grid.m=[1]",
    "reps=1",
    "n_jobs=1",
    "results_dir={out}",
]
CSV = [
    "+experiment=census_ir",
    "dataset=csv",
    "grid.k=[2]",
    "grid.epsilon=[1.0]",
    "grid.m=[1]",
    "reps=1",
    "n_jobs=1",
    "results_dir={out}",
]
MINE = [*CSV, "dataset.path={dir}/mine.csv"]
IDP = [
    "+experiment=census_idp_sse",
    "grid.k=[3]",
    "grid.epsilon=[1.0]",
    "grid.alpha=[1.5]",
    "reps=1",
    "n_jobs=1",
    "results_dir={out}",
]
TCM = ["+experiment=tclose_sse_kt", "grid.k=[2]", "grid.t=[0.2]", "n_jobs=1", "results_dir={out}"]


def without(argv: list[str], *axes: str) -> list[str]:
    """``argv`` without its ``grid.<axis>=…`` overrides for ``axes``: a grid axis the user
    gives must be one a chosen method takes."""
    return [a for a in argv if a.split("=", 1)[0] not in {f"grid.{axis}" for axis in axes}]


# (category, id, command line, what the error line must say)
CASES = [
    # --- config: what Hydra composes -----------------------------------------------------
    ("config", "unknown_experiment", ["+experiment=nope", "results_dir={out}"], "experiment/nope"),
    ("config", "unknown_dataset", [*BASE, "dataset=nope"], "dataset/nope"),
    ("config", "unknown_runner", [*BASE, "runner=nope"], "runner/nope"),
    ("config", "unknown_key", [*BASE, "nope=1"], "nope"),
    (
        "config",
        "unknown_experiment_key",
        [*BASE, "+experiment.title=x"],
        "experiment has unknown key(s) ['title']",
    ),
    ("config", "bad_override_syntax", [*BASE, "grid.k=[2,"], "override 'grid.k=[2,'"),
    ("config", "bad_range", [*BASE[:1], "grid.k=${range:a,5}", *BASE[2:]], "grid.k"),
    ("config", "missing_config_path", ["--config-path={dir}/none", *BASE], "config.yaml"),
    ("config", "unknown_profile", [*BASE, "profile=nope"], "profile='nope'"),
    ("config", "unknown_reading", [*BASE, "reading=nope"], "nope"),
    (
        "config",
        "reading_on_all",
        ["+experiment=all", "reading=text", "results_dir={out}"],
        "reading=",
    ),
    ("config", "plot_only_without_results", [*BASE, "plot_only=true"], "plot_only"),
    # --- parameters: grid values and run settings ----------------------------------------
    ("parameters", "epsilon_zero", [*BASE, "grid.epsilon=[0]"], "grid.epsilon"),
    ("parameters", "epsilon_negative", [*BASE, "grid.epsilon=[1.0,-1]"], "got -1"),
    ("parameters", "epsilon_nan", [*BASE, "grid.epsilon=[nan]"], "grid.epsilon"),
    ("parameters", "epsilon_text", [*BASE, "grid.epsilon=[abc]"], "'abc'"),
    ("parameters", "k_zero", [*BASE, "grid.k=[0]"], "grid.k"),
    ("parameters", "k_above_n", [*BASE, "grid.k=[5000]"], "grid.k must be in 1..1080"),
    ("parameters", "k_fraction", [*BASE, "grid.k=[2.5]"], "grid.k"),
    ("parameters", "k_empty", [*BASE, "grid.k=[]"], "grid.k is empty"),
    ("parameters", "m_zero", [*BASE, "grid.m=[0]"], "grid.m"),
    ("parameters", "m_above_attributes", [*BASE, "grid.m=[14]"], "grid.m must be in 1..13"),
    ("parameters", "t_zero", [*TCM, "grid.t=[0]"], "grid.t"),
    ("parameters", "t_above_one", [*TCM, "grid.t=[1.5]"], "grid.t"),
    ("parameters", "alpha_below_one", [*IDP, "grid.alpha=[0.5]"], "grid.alpha=0.5"),
    ("parameters", "dataset_alpha_zero", [*BASE, "dataset.alpha=0"], "alpha"),
    ("parameters", "reps_zero", [*BASE, "reps=0"], "reps"),
    ("parameters", "reps_text", [*BASE, "reps=many"], "reps"),
    ("parameters", "seed_negative", [*BASE, "seed=-1"], "seed"),
    ("parameters", "seed_too_large", [*BASE, f"seed={2**64}"], "seed"),
    ("parameters", "n_jobs_zero", [*BASE, "n_jobs=0"], "n_jobs"),
    ("parameters", "unknown_method", [*BASE, "methods=[nope]"], "unknown method 'nope'"),
    ("parameters", "no_method", [*BASE, "methods=[]"], "methods is empty"),
    ("parameters", "unknown_metric", [*BASE, "metrics=[nope]"], "unknown metric 'nope'"),
    (
        "parameters",
        "no_metric",
        [*BASE, "metrics=[]", "metrics_by_attribute=[]"],
        "metrics is empty",
    ),
    (
        "parameters",
        "release_metric_by_attribute",
        [*BASE, "metrics_by_attribute=[runtime]"],
        "runtime",
    ),
    ("parameters", "figures_not_a_list", [*BASE, "figures=5"], "figures"),
    ("parameters", "plot_only_not_a_bool", [*BASE, "plot_only=maybe"], "plot_only"),
    ("results", "results_dir_empty", [*BASE, "results_dir=''"], "results_dir"),
    ("parameters", "options_unknown_name", [*BASE, "+options.nope.x=1"], "options.nope"),
    ("parameters", "options_unknown_option", [*BASE, "+options.jsd.nope=1"], "options.jsd.nope"),
    ("parameters", "options_bad_value", [*BASE, "+options.jsd.bins=nope"], "options.jsd.bins"),
    ("parameters", "options_ground_mismatch", [*TCM, "+options.max_emd.ground=rank"], "ground"),
    (
        "parameters",
        "form_unknown",
        [*BASE, "+options.ir_laplace.form=shuffled"],
        "options.ir_laplace.form",
    ),
    (
        "parameters",
        "form_not_covered",
        [
            *(a.replace("grid.m=[1]", "grid.m=[8]") for a in BASE),
            "+options.ir_laplace.form=shuffled_rows",
        ],
        "form='shuffled_rows' of method 'ir_laplace' needs one protected attribute",
    ),
    (
        "parameters",
        "form_variant_unknown",
        [*BASE, "methods=[ir_laplace/bogus]"],
        "'bogus' is not a release form",
    ),
    (
        "parameters",
        "form_metric_pairs_records",
        [*BASE, "methods=[ir_laplace/shuffled_columns]", "metrics=[re]", "figures=[]"],
        "keeps no record's place",
    ),
    (
        "parameters",
        "sampler_unknown",
        [*BASE, "+options.laplace.sampler=exact"],
        "options.laplace.sampler",
    ),
    # --- results: the results folder ------------------------------------------------------
    ("results", "results_dir_is_file", [*BASE, "results_dir={dir}/afile"], "is a file"),
    (
        "results",
        "results_dir_under_file",
        [*BASE, "results_dir={dir}/afile/out"],
        "lies under the file",
    ),
    (
        "results",
        "results_dir_read_only_fs",
        [*BASE, "results_dir=/sys/anonlab-out"],
        "not writable",
    ),
    (
        "results",
        "results_dir_not_creatable",
        [*BASE, "results_dir=/proc/anonlab-out"],
        "not writable",
    ),
    # --- runner ---------------------------------------------------------------------------
    (
        "runner",
        "dask_unreachable",
        [*BASE, "runner=dask", "runner.address=tcp://127.0.0.1:9"],
        "cannot reach a Dask scheduler",
    ),
    (
        "runner",
        "dask_bad_address",
        [*BASE, "runner=dask", "runner.address=nowhere"],
        "runner.address='nowhere'",
    ),
    # --- csv: reading a user's file -------------------------------------------------------
    ("csv", "no_path", [*CSV, "dataset.numeric=[a]"], "dataset.path"),
    (
        "csv",
        "missing_file",
        [*CSV, "dataset.path={dir}/none.csv", "dataset.numeric=[a]"],
        "no such file",
    ),
    (
        "csv",
        "directory",
        [*CSV, "dataset.path={dir}/folder", "dataset.numeric=[a]"],
        "is a directory",
    ),
    (
        "csv",
        "empty_file",
        [*CSV, "dataset.path={dir}/empty.csv", "dataset.numeric=[a]"],
        "is empty",
    ),
    (
        "csv",
        "header_only",
        [*CSV, "dataset.path={dir}/header.csv", "dataset.numeric=[a]"],
        "no records",
    ),
    (
        "csv",
        "not_utf8",
        [*CSV, "dataset.path={dir}/latin.csv", "dataset.numeric=[a]"],
        "dataset.encoding",
    ),
    (
        "csv",
        "unknown_encoding",
        [*MINE, "dataset.numeric=[income]", "dataset.encoding=nope"],
        "dataset.encoding='nope'",
    ),
    ("csv", "ragged_rows", [*CSV, "dataset.path={dir}/ragged.csv", "dataset.numeric=[a]"], "row 3"),
    (
        "csv",
        "other_delimiter",
        [*CSV, "dataset.path={dir}/semi.csv", "dataset.numeric=[a]"],
        "dataset.sep=';'",
    ),
    ("csv", "bad_sep", [*MINE, "dataset.numeric=[income]", "dataset.sep=ab"], "dataset.sep"),
    (
        "csv",
        "duplicate_header",
        [*CSV, "dataset.path={dir}/dup.csv", "dataset.numeric=[a]"],
        "repeats the column name",
    ),
    # --- columns: a user's columns and domains --------------------------------------------
    ("columns", "no_columns", [*MINE], "dataset.attributes is empty"),
    ("columns", "unknown_column", [*MINE, "dataset.numeric=[nope]"], "'nope'"),
    ("columns", "text_as_numeric", [*MINE, "dataset.numeric=[city]"], "'city'"),
    (
        "columns",
        "missing_value",
        [*CSV, "dataset.path={dir}/holes.csv", "dataset.numeric=[a]"],
        "missing",
    ),
    ("columns", "repeated_column", [*MINE, "dataset.numeric=[age,age]"], "repeats"),
    (
        "columns",
        "domain_not_pair",
        [*MINE, "dataset.numeric=[age]", "dataset.domains={age: [0]}"],
        "dataset.domains.age",
    ),
    (
        "columns",
        "domain_reversed",
        [*MINE, "dataset.numeric=[age]", "dataset.domains={age: [100, 0]}"],
        "high must exceed",
    ),
    (
        "columns",
        "domain_misses_data",
        [*MINE, "dataset.numeric=[age]", "dataset.domains={age: [0, 50]}"],
        "does not contain",
    ),
    (
        "columns",
        "domain_unknown_column",
        [*MINE, "dataset.numeric=[age]", "dataset.domains={nope: [0, 1]}"],
        "'nope'",
    ),
    (
        "columns",
        "role_unknown",
        [*MINE, "dataset.numeric=[age]", "dataset.roles={age: boss}"],
        "boss",
    ),
    (
        "columns",
        "discrete_unknown_column",
        [*MINE, "dataset.numeric=[age]", "dataset.discrete=[nope]"],
        "'nope'",
    ),
    (
        "columns",
        "categorical_unknown_column",
        [*MINE, "dataset.numeric=[age]", "+dataset.categorical=[nope]"],
        "'nope'",
    ),
    (
        "columns",
        "unknown_dataset_key",
        [*MINE, "dataset.numeric=[age]", "+dataset.nmeric=[a]"],
        "dataset.nmeric",
    ),
    ("columns", "numeric_not_a_list", [*MINE, "dataset.numeric=5"], "dataset.numeric"),
    (
        "columns",
        "domains_not_a_mapping",
        [*MINE, "dataset.numeric=[age]", "dataset.domains=5"],
        "dataset.domains",
    ),
    (
        "columns",
        "domain_not_numbers",
        [*MINE, "dataset.numeric=[age]", "dataset.domains={age: [a, b]}"],
        "dataset.domains.age",
    ),
    (
        "columns",
        "domain_a_number",
        [*MINE, "dataset.numeric=[age]", "dataset.domains={age: 5}"],
        "dataset.domains.age",
    ),
    (
        "columns",
        "alpha_not_a_number",
        [*MINE, "dataset.numeric=[age]", "dataset.alpha=abc"],
        "dataset.alpha",
    ),
    (
        "columns",
        "target_not_a_mapping",
        [*MINE, "dataset.numeric=[age]", "+dataset.target=abc"],
        "dataset.target",
    ),
    # --- metrics: what a metric needs of the data and the method --------------------------
    (
        "metrics",
        "variance_of_constant_column",
        [*MINE, "dataset.numeric=[const]", "metrics=[variance_change]", "figures=[]"],
        "'const'",
    ),
    (
        "metrics",
        "idp_sse_of_constant_column",
        [*MINE, "dataset.numeric=[age,const]", "grid.m=[2]", "metrics=[sse_idp]", "figures=[]"],
        "'const'",
    ),
    (
        "metrics",
        "f_measure_without_target",
        [*BASE, "metrics=[f_measure]", "figures=[]"],
        "dataset.target",
    ),
    (
        "metrics",
        "f_measure_single_class",
        [
            *MINE,
            "dataset.numeric=[age]",
            "metrics=[f_measure]",
            "figures=[]",
            "+dataset.target={column: one, threshold: 5, labels: [low, high]}",
        ],
        "one class",
    ),
    (
        "metrics",
        "f_measure_target_released",
        [
            *MINE,
            "dataset.numeric=[age,cls]",
            "grid.m=[2]",
            "metrics=[f_measure]",
            "figures=[]",
            "+dataset.target={column: cls, threshold: 0.5, labels: [no, yes]}",
        ],
        "also a protected attribute",
    ),
    (
        "metrics",
        "cluster_size_of_laplace",
        [*without(BASE, "k"), "methods=[laplace]", "metrics=[cluster_min]", "figures=[]"],
        "does not cluster",
    ),
    (
        "metrics",
        "max_emd_of_individual_ranking",
        [*without(TCM, "t"), "methods=[ir]"],
        "one cluster per record",
    ),
    (
        "metrics",
        "sse_tcm_without_quasi_identifiers",
        [*without(BASE, "epsilon"), "methods=[mdav]", "metrics=[sse_tcm]", "figures=[]"],
        "quasi_identifier",
    ),
    # --- methods --------------------------------------------------------------------------
    (
        "methods",
        "tcloseness_without_confidential",
        [
            *without(BASE, "epsilon"),
            "methods=[tclose_merge]",
            "grid.t=[0.2]",
            "metrics=[cluster_min]",
            "figures=[]",
        ],
        "confidential",
    ),
    (
        "methods",
        "tcloseness_on_users_data_without_roles",
        [
            "+experiment=tclose_sse",
            "dataset=csv",
            "dataset.path={dir}/mine.csv",
            "dataset.numeric=[income,age]",
            "grid.t=[0.2]",
            "n_jobs=1",
            "results_dir={out}",
        ],
        "confidential",
    ),
    (
        "methods",
        "idp_on_text_column",
        [
            *without(MINE, "k"),
            "dataset.numeric=[age]",
            "methods=[dp]",
            "+dataset.categorical=[city]",
            "grid.m=[2]",
        ],
        "'city'",
    ),
    (
        "methods",
        "mdav_on_text_column",
        [
            *without(MINE, "epsilon"),
            "dataset.numeric=[age]",
            "methods=[mdav]",
            "+dataset.categorical=[city]",
            "grid.m=[2]",
        ],
        "'city'",
    ),
    (
        "columns",
        "value_outside_hierarchy",
        [
            *MINE,
            "dataset.numeric=[age]",
            "+dataset.categorical=[city]",
            "+dataset.hierarchies={city: {dir}/hier.csv}",
        ],
        "'Oslo'",
    ),
    (
        "columns",
        "hierarchy_cycle",
        [
            *MINE,
            "dataset.numeric=[age]",
            "+dataset.categorical=[city]",
            "+dataset.hierarchies={city: {dir}/cycle.csv}",
        ],
        "cycle",
    ),
    (
        "columns",
        "hierarchy_missing",
        [
            *MINE,
            "dataset.numeric=[age]",
            "+dataset.categorical=[city]",
            "+dataset.hierarchies={city: {dir}/none.csv}",
        ],
        "none.csv",
    ),
    (
        "methods",
        "variance_of_text_column",
        [
            *MINE,
            "dataset.numeric=[age]",
            "+dataset.categorical=[city]",
            "grid.m=[2]",
            "metrics=[variance_change]",
            "figures=[]",
        ],
        "categorical",
    ),
]


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> Path:
    """A scratch folder holding a good CSV and every kind of bad one."""
    folder = tmp_path_factory.mktemp("inputs")
    rng = np.random.default_rng(0)
    n = 60
    pd.DataFrame(
        {
            "x.val": rng.normal(0, 50, n).round(2),
            "income": rng.integers(1000, 90000, n),
            "age": rng.integers(18, 90, n),
            "const": 5,
            "city": rng.choice(["Rome", "Oslo"], n),
            "cls": rng.integers(0, 2, n),
            "one": 1,
        }
    ).to_csv(folder / "mine.csv", index=False)
    (folder / "empty.csv").write_text("")
    (folder / "header.csv").write_text("a,b\n")
    (folder / "latin.csv").write_bytes("a,b\n1,caf\xe9\n".encode("latin-1"))
    (folder / "ragged.csv").write_text("a,b\n1,2\n3,4,5\n")
    (folder / "semi.csv").write_text("a;b\n1;2\n")
    (folder / "dup.csv").write_text("a,a\n1,2\n")
    (folder / "holes.csv").write_text("a,b\n1,2\n,3\n")
    (folder / "hier.csv").write_text("value,parent\nRome,Italy\nItaly,\n")
    (folder / "cycle.csv").write_text("value,parent\nRome,Italy\nOslo,Italy\nItaly,Rome\n")
    (folder / "afile").write_text("not a folder\n")
    (folder / "folder").mkdir()
    return folder


def expand(argv: list[str], out: Path, inputs: Path) -> list[str]:
    return [a.replace("{out}", str(out)).replace("{dir}", str(inputs)) for a in argv]


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    return {str(p): (p.stat().st_size, p.stat().st_mtime_ns) for p in folder.rglob("*")}


@pytest.mark.parametrize(
    ("category", "argv", "expected"), [pytest.param(c, a, e, id=f"{c}-{i}") for c, i, a, e in CASES]
)
def test_bad_input_is_one_error_line_and_writes_nothing(
    category, argv, expected, inputs, tmp_path, monkeypatch, capsys
):
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "out"
    before = snapshot(inputs)
    status = cli.run(expand(argv, out, inputs))
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert status == 2, captured.err
    assert len(lines) == 1 and lines[0].startswith("error: "), captured.err
    assert "Traceback" not in captured.err and captured.out == ""
    assert expected in lines[0]
    assert list(tmp_path.iterdir()) == [] and snapshot(inputs) == before


# vendored data that is not what sources.toml records: (id, how the copy is spoiled, error)
DATA_CASES = [
    ("checksum_mismatch", lambda path: path.write_text("AFNLWGT\n1\n"), "checksum mismatch"),
    ("missing_file", lambda path: path.unlink(), "is missing"),
]


@pytest.mark.parametrize(
    ("spoil", "expected"), [pytest.param(s, e, id=f"data-{i}") for i, s, e in DATA_CASES]
)
def test_spoiled_vendored_data_is_one_error_line(spoil, expected, tmp_path, monkeypatch, capsys):
    import shutil

    from anonlab import data_fetch

    raw = tmp_path / "raw"
    shutil.copytree(
        data_fetch.raw_dir(),
        raw,
        ignore=lambda d, names: [n for n in names if n != "CASCrefmicrodata.csv"],
    )
    spoil(raw / "CASCrefmicrodata.csv")
    monkeypatch.setattr(data_fetch, "raw_dir", lambda: raw)
    data_fetch._verified.cache_clear()
    try:
        status = cli.run(expand(BASE, tmp_path / "out", tmp_path))
    finally:
        data_fetch._verified.cache_clear()
    captured = capsys.readouterr()
    assert status == 2 and captured.err.count("\n") == 1 and expected in captured.err
    assert captured.err.startswith("error: ") and not (tmp_path / "out").exists()


def test_cases_cover_every_category():
    counts = Counter(category for category, *_ in CASES) + Counter(data=len(DATA_CASES))
    assert sum(counts.values()) >= 60 and len({i for _, i, *_ in CASES}) == len(CASES)
    assert set(counts) == {
        "config",
        "parameters",
        "results",
        "runner",
        "csv",
        "columns",
        "metrics",
        "methods",
        "data",
    }


def test_error_through_run_py(inputs, tmp_path):
    """The real command line (a Hydra composition error): exit status 2, one line on
    stderr, nothing written."""
    [argv] = [a for _, i, a, _ in CASES if i == "unknown_dataset"]
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, str(ROOT / "run.py"), *expand(argv, out, inputs)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1
    assert done.stderr.startswith("error: ") and not out.exists()
