"""Per-run ``options``: each ambiguous reading of a paper is one config override.

For each of the five switches (JSD bins, iDP budget, Δσ² sign, individual ranking's
remainder, the EMD ground distance): the default reproduces today's output, the
alternative differs where it should, and bad names and values are refused when the
experiment is built, naming their key. Then the plumbing: options reach the methods and
metrics, never the cell ids (common random numbers), and always the resume key.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import direct_emd
from scipy.optimize import linprog

from anonlab.datasets import build_dataset
from anonlab.mechanisms import centroid_local_sensitivity, cluster_based_local_sensitivity
from anonlab.methods import METHODS, make_method
from anonlab.metrics import METRICS, get_attribute_metric, get_metric
from anonlab.metrics.clusters import max_emd
from anonlab.microaggregation import REMAINDERS, cluster_sizes, individual_ranking, ranking_labels
from anonlab.runner import build_experiment, run_cells
from anonlab.runner.checkpoint import checkpoint_key
from anonlab.tcloseness import GROUNDS, OrderedEMD, proposition_2_bound
from anonlab.tcloseness.merge import tclose_merge
from anonlab.tcloseness.tfirst import tclose_tfirst
from anonlab.validation import ParameterError
from tests.properties import examples

pytestmark = pytest.mark.integration  # runs the engine, a process or real data

SETTINGS = settings(max_examples=examples(60))
TINY = ("+experiment=census_ir", "grid.k=[2,7]", "grid.epsilon=[10.0]", "grid.m=[1,13]", "reps=2")


@pytest.fixture
def tiny(compose_config):
    """:data:`TINY` composed (once per process: the fixture keeps compositions), the
    test's own copy to edit."""
    return compose_config(*TINY)


def numeric(values: dict[str, list[float]], domains=None):
    return build_dataset("t", pd.DataFrame(values), list(values), domains=domains)


def tclose_data(n: int = 60, seed: int = 3, levels: int = 4):
    """Two quasi-identifiers and a confidential attribute with many ties."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "q1": rng.uniform(0, 10, n),
            "q2": rng.uniform(0, 10, n),
            "c": rng.integers(0, levels, size=n).astype(float),
        }
    )
    return build_dataset(
        "tied",
        frame,
        ["q1", "q2", "c"],
        roles={"q1": "quasi_identifier", "q2": "quasi_identifier", "c": "confidential"},
    )


def release_of(name, params, data, options=None, seed=0):
    return make_method(name, params, options).protect(data, np.random.default_rng(seed))


# --- every option: registry, defaults, validation ---------------------------------------


def test_every_option_lists_its_default_first_and_fields_default_to_it():
    for cls in METHODS.values():
        for option, choices in cls.option_choices.items():
            assert len(choices) >= 2 and cls.__dataclass_fields__[option].default == choices[0]
    for metric in METRICS.values():
        for choices in metric.option_choices.values():
            assert len(choices) >= 2
    assert "jsd_data_range" not in METRICS


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ("{jsd: {bins: x}}", "options.jsd.bins must be one of ['domain', 'data_range'], got 'x'"),
        ("{jsd: {bin: domain}}", "options.jsd.bin is not an option of 'jsd'"),
        ("{re: {bins: domain}}", "options.re.bins is not an option of 're'; it has no options"),
        ("{nope: {bins: domain}}", "options.nope: 'nope' is not a registered method or metric"),
        (
            "{ir_laplace: {remainder: end}}",
            "options.ir_laplace.remainder must be one of ['last', 'first', 'middle'], got 'end'",
        ),
        (
            "{dp_um: {budget: 1}}",
            "options.dp_um.budget must be one of ['split', 'per_attribute'], got 1",
        ),
        (
            "{variance_change: {absolute: 1}}",
            "options.variance_change.absolute must be one of [True, False], got 1",
        ),
        (
            "{max_emd: {ground: ranks}}",
            "options.max_emd.ground must be one of ['distinct', 'rank'], got 'ranks'",
        ),
        ("{jsd: data_range}", "options.jsd must be a mapping"),
    ],
)
def test_bad_options_are_refused_when_the_experiment_is_built(compose_config, options, message):
    with pytest.raises(ParameterError, match=message.replace("[", r"\[").replace("(", r"\(")):
        build_experiment(compose_config(*TINY, f"++options={options}"))


def test_options_on_the_command_line_compose(compose_config, tiny):
    config = compose_config(*TINY, "+options.jsd.bins=data_range")
    assert config["options"] == {"jsd": {"bins": "data_range"}}
    assert tiny["options"] == {}


# make_method without options is the default, for every method built from its own test
# parameters: tests/test_conformance.py (anonlab.conformance, check options_each_build)


# --- plumbing: cells, metrics, seeds, resume key -----------------------------------------


def test_options_reach_cells_and_metrics_but_not_the_cell_ids(compose_config, tiny):
    plain = build_experiment(tiny)
    chosen = build_experiment(
        compose_config(*TINY, "++options={jsd: {bins: data_range}, ir_laplace: {remainder: first}}")
    )
    assert [c.id for c in plain.cells] == [c.id for c in chosen.cells]
    assert {c.options for c in chosen.cells if c.method == "ir_laplace"} == {
        (("remainder", "first"),)
    }
    assert {c.options for c in chosen.cells if c.method != "ir_laplace"} == {()}
    assert chosen.metric_options == {"jsd": {"bins": "data_range"}}
    assert chosen.cells[-1].build().remainder == "first"


def test_a_readings_set_reaches_the_metric_and_is_checked(tiny):
    """A reading's ``set: {options.jsd.bins: data_range}`` (anonlab.catalog) is an
    option like any other: applied, validated, then passed to the metric."""
    config = tiny
    config["readings"] = [
        {"name": "text", "primary": True, "text": "bins over the domain"},
        {
            "name": "data_range_bins",
            "text": "bins over the data",
            "set": {"options.jsd.bins": "data_range"},
        },
    ]
    config["reading"] = "data_range_bins"
    assert build_experiment(config).metric_options == {"jsd": {"bins": "data_range"}}
    config["readings"][1]["set"] = {"options.jsd.bins": "x"}
    with pytest.raises(ParameterError, match="options.jsd.bins must be one of"):
        build_experiment(config)


def test_a_reading_uses_the_primary_runs_random_numbers(compose_config, tiny):
    """Same seeds and cells: RE is unchanged by a JSD option; JSD changes."""
    runs = []
    for config in (tiny, compose_config(*TINY, "+options.jsd.bins=data_range")):
        exp = build_experiment(config)
        runs.append(
            run_cells(
                exp.dataset,
                exp.cells,
                reps=exp.reps,
                master_seed=exp.seed,
                metrics=exp.metrics,
                n_jobs=1,
                progress=False,
                metric_options=exp.metric_options,
            )
        )
    plain, chosen = runs
    re = plain["metric"] == "re"
    pd.testing.assert_frame_equal(plain[re], chosen[re])
    assert (plain.loc[~re, "value"] != chosen.loc[~re, "value"]).any()
    assert plain["cell_id"].equals(chosen["cell_id"]) and plain["seed"].equals(chosen["seed"])


def test_options_enter_the_resume_key_and_empty_options_change_nothing():
    config = {"seed": 1, "metrics": ["jsd"], "dataset": {"name": "census"}}
    code = {"commit": "abc"}
    base = checkpoint_key(config, code)
    assert checkpoint_key({**config, "options": {}}, code) == base
    assert checkpoint_key({**config, "options": {"jsd": {"bins": "data_range"}}}, code) != base
    assert checkpoint_key({**config, "options": {"ir": {"remainder": "first"}}}, code) != base


# --- 1. JSD bins: domain (DP-IR §4.2) or the data's [min, max] -----------------------------


def test_jsd_default_bins_over_the_domain_and_data_range_differs():
    data = numeric({"x": [10.0, 15.0, 40.0]}, domains={"x": [0, 1000]})
    moved = pd.DataFrame({"x": [12.0, 13.0, 41.0]})
    jsd = get_metric("jsd")
    assert jsd.options == {}
    assert jsd(data.frame, moved, data) == get_metric("jsd", {"bins": "domain"})(
        data.frame, moved, data
    )
    assert get_metric("jsd", {"bins": "data_range"})(data.frame, moved, data) > jsd(
        data.frame, moved, data
    )
    assert get_attribute_metric("jsd", {"bins": "data_range"}).with_options(
        bins="domain"
    ).options == {"bins": "domain"}


# --- 2. iDP budget: ε/m per attribute (iDP §3.1) or ε per attribute ----------------------


@pytest.mark.parametrize("name", ["dp", "dp_um", "idp_ls", "idp_cbls"])
def test_budget_split_is_the_default_and_per_attribute_is_m_times_less_noise(name):
    rng = np.random.default_rng(1)
    data = numeric(
        {
            "a": rng.uniform(0, 10, 40).tolist(),
            "b": rng.uniform(0, 5, 40).tolist(),
            "c": rng.uniform(1, 3, 40).tolist(),
        }
    )
    params = {"k": 4, "epsilon": 0.5}
    plain = release_of(name, params, data)
    split = release_of(name, params, data, {"budget": "split"})
    per = release_of(name, params, data, {"budget": "per_attribute"})
    np.testing.assert_array_equal(plain.values, split.values)
    np.testing.assert_array_equal(plain.scale, split.scale)
    m = len(data.protected)
    # iDP §3.1: ε_a = ε/m (split) or ε (per_attribute), so the scale Δ/ε_a shrinks by m
    np.testing.assert_allclose(per.scale, plain.scale / m, rtol=1e-12)
    assert not np.array_equal(per.values, plain.values)
    one = data.protect_first(1)  # one attribute: the two readings coincide
    np.testing.assert_array_equal(
        release_of(name, params, one).values,
        release_of(name, params, one, {"budget": "per_attribute"}).values,
    )


# --- 3. Δσ²: mean of |change| or |mean signed change| -------------------------------------


def test_variance_change_absolute_default_and_signed_reading():
    data = numeric({"a": [1.0, 3.0], "b": [0.0, 2.0]})
    released = pd.DataFrame({"a": [0.0, 4.0], "b": [1.0, 1.0]})  # σ² of a up, of b down
    default = get_metric("variance_change")
    assert default.by_attribute(data.frame, released, data) == get_metric(
        "variance_change", {"absolute": True}
    ).by_attribute(data.frame, released, data)
    signed = get_metric("variance_change", {"absolute": False})
    assert signed.by_attribute(data.frame, released, data) == {
        "a": pytest.approx(3.0),
        "b": pytest.approx(-1.0),
    }


def test_table1_builder_takes_the_absolute_mean_over_repetitions():
    from anonlab.experiments import dp_ir

    rows = []
    for rep, (a1, a2) in enumerate([(0.5, -0.2), (-0.3, -0.4)]):
        for attribute, value in (("AFNLWGT", a1), ("AGI", a2)):
            rows.append(
                {
                    "method": "ir_laplace",
                    "k": 2,
                    "epsilon": 1.0,
                    "rep": rep,
                    "metric": "variance_change",
                    "attribute": attribute,
                    "value": value,
                }
            )
    table = pd.DataFrame(rows)
    ours = dp_ir.compare(table).dropna(subset=["ours"]).set_index("attribute")["ours"]
    assert ours.to_dict() == {"A1": pytest.approx(0.1), "A2": pytest.approx(0.3)}
    # default reading (non-negative values): exactly the plain mean, as before
    positive = table.assign(value=table["value"].abs())
    plain = positive.groupby("attribute")["value"].mean().rename({"AFNLWGT": "A1", "AGI": "A2"})
    again = dp_ir.compare(positive).dropna(subset=["ours"]).set_index("attribute")
    assert again["ours"].to_dict() == plain.to_dict()


# --- 4. individual ranking: which group takes the n mod k remainder ----------------------


@SETTINGS
@given(st.integers(1, 60), st.integers(1, 60))
def test_remainder_last_is_todays_partition_and_every_option_keeps_k_to_2k_minus_1(n, k):
    k = min(k, n)
    np.testing.assert_array_equal(ranking_labels(n, k), np.minimum(np.arange(n) // k, n // k - 1))
    for remainder in REMAINDERS:
        labels = ranking_labels(n, k, remainder)
        sizes = cluster_sizes(n, k, remainder)
        np.testing.assert_array_equal(np.bincount(labels), sizes)
        assert (np.diff(labels) >= 0).all() and sizes.sum() == n
        assert sizes.min() >= k and sizes.max() == k + n % k <= 2 * k - 1
        assert sorted(sizes) == sorted(cluster_sizes(n, k))  # only the position moves
    if n % k and n // k > 1:
        assert not np.array_equal(ranking_labels(n, k, "first"), ranking_labels(n, k))
        assert cluster_sizes(n, k, "first")[0] == k + n % k


@SETTINGS
@given(
    st.lists(st.integers(0, 20), min_size=2, max_size=14),
    st.integers(1, 5),
    st.sampled_from(REMAINDERS),
    st.data(),
)
def test_lemma_1_sensitivity_holds_under_every_remainder(values, k, remainder, draw):
    """DP-IR/DP-UNI Lemma 1 by brute force: changing one value by up to Δ moves the
    centroids by at most Δ/k in total, wherever the larger cluster lies."""
    x = np.array(values, dtype=float)
    k = min(k, len(x))
    i = draw.draw(st.integers(0, len(x) - 1))
    y = x.copy()
    y[i] = float(draw.draw(st.integers(0, 20)))
    before = individual_ranking(x, k, remainder=remainder).centroids[:, 0]
    after = individual_ranking(y, k, remainder=remainder).centroids[:, 0]
    assert np.abs(after - before).sum() <= abs(y[i] - x[i]) / k + 1e-9


@pytest.mark.parametrize("remainder", REMAINDERS)
@pytest.mark.parametrize("name", ["ir", "ir_laplace", "dp_um", "idp_ls", "idp_cbls"])
def test_remainder_option_and_each_clusters_sensitivity(name, remainder):
    """The option moves the big cluster; the noise scale each method uses is recomputed
    here from the release's own clusters: Δ/k for IR + Laplace (Lemma 1), and from each
    cluster's actual size and extremes for the iDP methods (iDP §3.1–3.2.2)."""
    rng = np.random.default_rng(5)
    n, k, epsilon = 23, 4, 2.0  # 23 = 5·4 + 3: one cluster of 7
    data = numeric(
        {
            "a": rng.uniform(0, 10, n).round(1).tolist(),
            "b": rng.integers(0, 6, n).astype(float).tolist(),
        },
        domains={"a": [0, 12], "b": [0, 8]},
    )
    params = {"k": k, "epsilon": epsilon}
    release = release_of(name, params, data, {"remainder": remainder})
    if remainder == "last":
        np.testing.assert_array_equal(release.values, release_of(name, params, data).values)
    else:
        other = release_of(name, params, data)
        assert not np.array_equal(release.cluster_labels, other.cluster_labels)
    m = len(data.protected)
    low = np.array([a.domain[0] for a in data.protected_attributes])
    high = np.array([a.domain[1] for a in data.protected_attributes])
    for j in range(m):
        labels = release.cluster_labels[:, j]
        sizes = np.bincount(labels)
        assert sizes.min() >= k and sizes.max() == k + n % k
        big = {"last": len(sizes) - 1, "first": 0, "middle": (len(sizes) - 1) // 2}[remainder]
        assert sizes[big] == k + n % k
        column = data.protected_values[:, j]
        members = [np.sort(column[labels == c]) for c in range(len(sizes))]
        assert all(a.max() <= b.min() for a, b in zip(members, members[1:], strict=False))
        if name == "ir_laplace":  # DP-IR Alg. 1: scale m·Δ(A)/(k·ε)
            assert release.scale[j] == pytest.approx(m * (high[j] - low[j]) / (k * epsilon))
            continue
        if name == "ir":
            continue
        if name == "dp_um":  # iDP §3.1: (max A − min A)/|C_j|
            sensitivity = (high[j] - low[j]) / sizes
        elif name == "idp_ls":  # iDP Prop. 2 with each cluster's own size
            sensitivity = centroid_local_sensitivity(
                np.array([[c[0]] for c in members]),
                np.array([[c[-1]] for c in members]),
                low[j],
                high[j],
                sizes,
            )[:, 0]
        else:  # iDP Prop. 3, Expr. (1)
            smallest = tuple(np.array([[c[r]] for c in members]) for r in range(3))
            largest = tuple(np.array([[c[-1 - r]] for c in members]) for r in range(3))
            sensitivity = cluster_based_local_sensitivity(smallest, largest, sizes)[:, 0]
        np.testing.assert_allclose(release.scale[:, j], sensitivity / (epsilon / m), rtol=1e-12)


def test_categorical_individual_ranking_takes_the_same_remainder():
    """DP-IR §3.4: categorical values are ranked by marginality; the option moves the
    big group there too, in marginality order."""
    from anonlab.methods.categorical import ranking_clusters
    from anonlab.semantics import Taxonomy, marginality_rank

    toy = Taxonomy(
        name="toy",
        root="root",
        parent={"root": None, "a": "root", "b": "root", "c": "a"},
        labels={"A": "a", "B": "b", "C": "c"},
    )
    codes = toy.encode(np.array(["A", "B", "C", "A", "B", "C", "C", "A", "B", "B", "A"]))
    order = np.argsort(marginality_rank(toy)[codes], kind="stable")
    np.testing.assert_array_equal(
        ranking_clusters(toy, codes, 3), ranking_clusters(toy, codes, 3, "last")
    )
    for remainder in REMAINDERS:
        labels = ranking_clusters(toy, codes, 3, remainder)
        np.testing.assert_array_equal(labels[order], ranking_labels(11, 3, remainder))


# --- 5. EMD ground distance: distinct values (TCM §2.2) or ranks (Props. 1–2) -----------


def transport_emd(
    cluster_positions: np.ndarray, cluster_mass: np.ndarray, whole_mass: np.ndarray
) -> float:
    """Brute-force EMD: the transport LP between a cluster's and the whole data set's
    distributions over bins 0..m−1 with ground distance |i − j|/(m − 1)."""
    m = len(whole_mass)
    p = np.zeros(m)
    np.add.at(p, cluster_positions, cluster_mass)
    cost = np.abs(np.subtract.outer(np.arange(m), np.arange(m))) / max(m - 1, 1)
    rows = np.kron(np.eye(m), np.ones(m))  # Σ_j f_ij = p_i
    cols = np.kron(np.ones(m), np.eye(m))  # Σ_i f_ij = q_j
    result = linprog(
        cost.ravel(),
        A_eq=np.vstack([rows, cols]),
        b_eq=np.concatenate([p, whole_mass]),
        bounds=(0, None),
        method="highs",
    )
    assert result.success
    return float(result.fun)


def brute_emd(values: np.ndarray, members: np.ndarray, ground: str) -> float:
    n = len(values)
    if ground == "distinct":  # bins: distinct values, each holding its records' mass
        distinct, bins = np.unique(values, return_inverse=True)
        whole = np.bincount(bins, minlength=len(distinct)) / n
        return transport_emd(bins[members], np.full(len(members), 1 / len(members)), whole)
    ranks = np.empty(n, dtype=np.int64)  # bins: records ranked by (value, index)
    ranks[np.argsort(values, kind="stable")] = np.arange(n)
    return transport_emd(ranks[members], np.full(len(members), 1 / len(members)), np.full(n, 1 / n))


@settings(max_examples=examples(40))
@given(st.lists(st.integers(0, 3), min_size=3, max_size=8), st.data())
def test_both_grounds_match_a_brute_force_transport_lp_on_tied_data(values, draw):
    values = np.array(values, dtype=float)
    n = len(values)
    members = np.array(draw.draw(st.permutations(range(n))))[: draw.draw(st.integers(1, n))]
    labels = np.ones(n, dtype=np.int64) if len(members) < n else np.zeros(n, dtype=np.int64)
    labels[members] = 0
    for ground in GROUNDS:
        emd = OrderedEMD(values, ground)
        want = brute_emd(values, members, ground)
        assert emd.of_records(members) == pytest.approx(want, abs=1e-9)
        assert emd.of_partition(labels)[0] == pytest.approx(want, abs=1e-9)
        assert emd.of_sorted_bins(np.sort(emd.bins[members])) == pytest.approx(want, abs=1e-9)
    assert OrderedEMD(values).of_records(members) == pytest.approx(
        direct_emd(values[members], values)
    )


def test_distinct_is_todays_emd_and_rank_differs_only_with_ties():
    values = np.array([1.0, 1.0, 1.0, 2.0, 5.0, 5.0])
    today = OrderedEMD(values)
    assert today.ground == "distinct"
    np.testing.assert_array_equal(today.bins, OrderedEMD(values, "distinct").bins)
    labels = np.array([0, 0, 1, 1, 2, 2])
    rank = OrderedEMD(values, "rank").of_partition(labels)
    assert not np.allclose(today.of_partition(labels), rank)
    untied = np.random.default_rng(0).permutation(6).astype(float)
    np.testing.assert_allclose(
        OrderedEMD(untied).of_partition(labels), OrderedEMD(untied, "rank").of_partition(labels)
    )


def test_rank_ground_gives_proposition_2_its_bound_on_tied_data():
    """Algorithm 3 with k' dividing n: one record per rank subset, so the rank EMD is at
    most (n − k')/(2(n − 1)k') (TCM Prop. 2), while the distinct-value EMD of the same
    clusters exceeds it when values tie."""
    data = tclose_data(n=60, levels=4)
    qi = data.frame[["q1", "q2"]].to_numpy()
    confidential = data.frame["c"].to_numpy()
    labels = tclose_tfirst(qi, confidential, 6, 0.08)  # k' = 6 divides 60
    bound = proposition_2_bound(60, 6)
    assert OrderedEMD(confidential, "rank").of_partition(labels).max() <= bound + 1e-12
    assert OrderedEMD(confidential).of_partition(labels).max() > bound


@pytest.mark.parametrize("name", ["tclose_merge", "tclose_kfirst", "tclose_tfirst_merged"])
def test_tcloseness_methods_and_max_emd_share_the_ground(name):
    data = tclose_data(n=80, levels=3)
    params = {"k": 3, "t": 0.15}
    plain = release_of(name, params, data)
    np.testing.assert_array_equal(
        plain.labels, release_of(name, params, data, {"ground": "distinct"}).labels
    )
    assert max_emd(data, plain) == get_metric("max_emd").of_release(data, plain)
    assert max_emd(data, plain) <= 0.15 + 1e-12
    rank = release_of(name, params, data, {"ground": "rank"})
    assert get_metric("max_emd", {"ground": "rank"}).of_release(data, rank) <= 0.15 + 1e-12
    assert not np.array_equal(plain.labels, rank.labels)


def test_rank_merging_matches_dense_counts():
    """The merging loop keeps sorted member ranks under the rank ground (n bins); it
    must give the partition that dense counts over the same n bins give."""
    data = tclose_data(n=90, seed=8, levels=5)
    qi = data.frame[["q1", "q2"]].to_numpy()
    confidential = data.frame["c"].to_numpy()
    ranks = np.empty(90)
    ranks[np.argsort(confidential, kind="stable")] = np.arange(90)
    for t in (0.05, 0.1, 0.2):
        np.testing.assert_array_equal(
            tclose_merge(qi, confidential, 2, t, "rank"), tclose_merge(qi, ranks, 2, t)
        )  # distinct ranks: dense


def test_a_run_with_mismatched_grounds_is_refused(compose_config):
    base = ("+experiment=tclose_sizes", "grid.k=[2]", "grid.t=[0.2]", "metrics=[max_emd]")
    with pytest.raises(
        ParameterError,
        match="options.tclose_merge.ground='rank' but options.max_emd.ground='distinct'",
    ):
        build_experiment(compose_config(*base, "+options.tclose_merge.ground=rank"))
    every = ",".join(
        f"{m}: {{ground: rank}}"
        for m in (
            "tclose_merge",
            "tclose_kfirst",
            "tclose_tfirst",
            "tclose_tfirst_merged",
            "max_emd",
        )
    )
    exp = build_experiment(compose_config(*base, f"++options={{{every}}}"))
    assert exp.metric_options == {"max_emd": {"ground": "rank"}}
    assert {c.options for c in exp.cells} == {(("ground", "rank"),)}
