"""The reference verifiers (graphgear.algorithms.verify) and `graphgear run --verify`.

Each verifier must accept graphgear's CPU result and reject a copy with one value changed, naming that vertex: a
verifier that cannot fail proves nothing. The verifiers must stay independent of the kernels (imports checked)."""

from __future__ import annotations

import ast
import inspect

import numpy as np
import pytest

import graphgear as gg
from graphgear import errors
from graphgear.algorithms import verify
from graphgear.cli import main
from graphgear.errors import GraphgearError, VerificationError

UNDIRECTED = ("kron:8", "grid:16:16:0.8", "er:300:4")
DIRECTED = ("rmat:8:8", "rmat:8:4:seed=5")
WEIGHTED = ("rmat:8:8:w", "kron:7:w", "grid:12:12:0.7:w")
ALL = UNDIRECTED + DIRECTED


def source_of(g: gg.Graph) -> int:
    return int(np.argmax(g.out_degree()))


def rejects(check, values: np.ndarray, v: int, value) -> VerificationError:
    """`check` refuses a copy of `values` with values[v] = value, naming v, the value found and how many disagree."""
    bad = np.array(values, copy=True)
    bad[v] = value
    with pytest.raises(VerificationError) as info:
        check(bad)
    error = info.value
    assert error.vertex == v and error.count >= 1, str(error)
    assert f"vertex {v}:" in str(error) and "vertices disagree" in str(error)
    return error


# ------------------------------------------------------------------------------------------------------ the error
def test_verification_error_in_the_hierarchy():
    assert issubclass(VerificationError, GraphgearError)
    assert "VerificationError" in errors.__all__ and verify.VerificationError is VerificationError
    assert "VerificationError" in errors.__doc__


def test_verifiers_share_no_code_with_the_kernels():
    """verify.py imports graphgear's errors only (and the Graph for type hints): nothing of backends, kernels,
    operators or the algorithm modules, so a bug there cannot hide in the reference too."""
    tree = ast.parse(inspect.getsource(verify))
    relative = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level}
    assert relative == {"errors", "graph.graph"}
    absolute = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                for alias in node.names}
    absolute |= {node.module.split(".")[0] for node in ast.walk(tree)
                 if isinstance(node, ast.ImportFrom) and not node.level}
    assert "graphgear" not in absolute


def test_wrong_length_is_refused():
    g = gg.load("grid:4:4")
    with pytest.raises(VerificationError, match="values for 16 vertices"):
        verify.verify_color_propagation(g, np.arange(15))


# ------------------------------------------------------------------------------------------------------------ BFS
@pytest.mark.parametrize("spec", ALL)
def test_bfs(spec):
    g = gg.load(spec)
    s = source_of(g)
    r = gg.bfs(g, s, backend="cpu")
    verify.verify_bfs(g, s, r.distances, predecessors=r.predecessors)
    v = int(np.flatnonzero(r.distances > 0)[-1])
    error = rejects(lambda d: verify.verify_bfs(g, s, d), r.distances, v, r.distances[v] + 1)
    assert f"distance {r.distances[v] + 1}, expected {r.distances[v]}" in str(error)
    unreached = np.flatnonzero(r.distances < 0)
    if unreached.size:
        rejects(lambda d: verify.verify_bfs(g, s, d), r.distances, int(unreached[0]), 1)
    # GAP's edge checks: a predecessor must have an arc to the vertex and lie one level up
    far = int(np.flatnonzero(r.distances >= 2)[0])
    error = rejects(lambda p: verify.verify_bfs(g, s, r.distances, predecessors=p), r.predecessors, far, s)
    assert "predecessor" in str(error)
    rejects(lambda p: verify.verify_bfs(g, s, r.distances, predecessors=p), r.predecessors, s, far)


@pytest.mark.parametrize("spec", ("kron:8", "rmat:8:8"))
def test_bfs_depth_limit(spec):
    g = gg.load(spec)
    s = source_of(g)
    r = gg.bfs(g, s, depth_limit=1, backend="cpu")
    verify.verify_bfs(g, s, r.distances, depth_limit=1, predecessors=r.predecessors)
    full = gg.bfs(g, s, backend="cpu")
    with pytest.raises(VerificationError, match="distance .*, expected -1"):
        verify.verify_bfs(g, s, full.distances, depth_limit=1)


# ----------------------------------------------------------------------------------------------------------- SSSP
@pytest.mark.parametrize("spec", WEIGHTED)
def test_sssp(spec):
    g = gg.load(spec)
    s = source_of(g)
    r = gg.sssp(g, s, backend="cpu")
    verify.verify_sssp(g, s, r.distances)
    reached = np.flatnonzero(np.isfinite(r.distances) & (r.distances > 0))
    v = int(reached[len(reached) // 2])
    rejects(lambda d: verify.verify_sssp(g, s, d), r.distances, v, r.distances[v] + 1)
    rejects(lambda d: verify.verify_sssp(g, s, d), r.distances, v, np.inf)
    hops = gg.sssp(g, s, weight=None, backend="cpu")
    verify.verify_sssp(g, s, hops.distances, weighted=False)
    with pytest.raises(VerificationError):
        verify.verify_sssp(g, s, hops.distances)  # hop counts are not the weighted distances
    cutoff = float(np.median(r.distances[reached]))
    cut = gg.sssp(g, s, cutoff=cutoff, backend="cpu")
    verify.verify_sssp(g, s, cut.distances, cutoff=cutoff)
    beyond = int(np.flatnonzero(np.isinf(cut.distances) & np.isfinite(r.distances))[0])
    rejects(lambda d: verify.verify_sssp(g, s, d, cutoff=cutoff), cut.distances, beyond, r.distances[beyond])


# ------------------------------------------------------------------------------------------------------- PageRank
@pytest.mark.parametrize("spec", ALL + WEIGHTED[:1])
@pytest.mark.parametrize("method", ("power", "delta"))
def test_pagerank(spec, method):
    g = gg.load(spec)
    r = gg.pagerank(g, method=method, backend="cpu")
    verify.verify_pagerank(g, r.ranks)
    v = int(np.argmax(r.ranks))
    error = rejects(lambda x: verify.verify_pagerank(g, x), r.ranks, v, r.ranks[v] + 0.01)
    assert "rank" in str(error)
    alpha = 0.5
    r = gg.pagerank(g, alpha=alpha, weight=None, tol=1e-9, method=method, backend="cpu")
    verify.verify_pagerank(g, r.ranks, alpha=alpha, tol=1e-9, weighted=False)
    rejects(lambda x: verify.verify_pagerank(g, x, alpha=alpha, tol=1e-9, weighted=False), r.ranks, 7,
            r.ranks[7] * 1.01)


def test_pagerank_personalization():
    g = gg.load("rmat:8:8")
    p = np.zeros(g.num_vertices)
    p[:10] = 1.0
    r = gg.pagerank(g, personalization=p, backend="cpu")
    verify.verify_pagerank(g, r.ranks, personalization=p)
    with pytest.raises(VerificationError):
        verify.verify_pagerank(g, r.ranks)


# ----------------------------------------------------------------------------------------------------- components
def corrupt_partition(labels: np.ndarray) -> int:
    """A vertex that is not the smallest of its component (the largest of the largest component)."""
    largest = int(np.argmax(np.bincount(labels)))
    return int(np.flatnonzero(labels == largest)[-1])


@pytest.mark.parametrize("spec", ALL)
@pytest.mark.parametrize("method", ("label_propagation", "afforest"))
def test_connected_components(spec, method):
    g = gg.load(spec)
    labels = gg.connected_components(g, method=method, backend="cpu").labels
    verify.verify_connected_components(g, labels)
    verify.verify_connected_components(g, labels * 7 + 3)  # any numbering of the same partition
    v = corrupt_partition(labels)
    error = rejects(lambda x: verify.verify_connected_components(g, x), labels, v, labels.max() + 1)
    assert "smallest vertex of its component" in str(error)
    if labels.max() > 0:  # v joins another component
        other = int(np.flatnonzero(labels != labels[v])[0])
        rejects(lambda x: verify.verify_connected_components(g, x), labels, v, labels[other])


@pytest.mark.parametrize("spec", DIRECTED + ("kron:8",))
def test_scc(spec):
    g = gg.load(spec)
    labels = gg.strongly_connected_components(g, backend="cpu").labels
    verify.verify_scc(g, labels)
    v = corrupt_partition(labels)
    rejects(lambda x: verify.verify_scc(g, x), labels, v, labels.max() + 1)
    if g.directed:  # the weak components are not the strong ones
        with pytest.raises(VerificationError):
            verify.verify_scc(g, gg.connected_components(g, backend="cpu").labels)


# ---------------------------------------------------------------------------------------------------- betweenness
@pytest.mark.parametrize("spec", ALL)
def test_betweenness(spec):
    g = gg.load(spec)
    n = g.num_vertices
    r = gg.betweenness_centrality(g, backend="cpu")
    verify.verify_betweenness(g, r.centrality)
    v = int(np.argmax(r.centrality))
    error = rejects(lambda x: verify.verify_betweenness(g, x), r.centrality, v, r.centrality[v] * (1 + 1e-6))
    assert "centrality" in str(error)
    zero = np.flatnonzero(r.centrality == 0)
    if zero.size:
        rejects(lambda x: verify.verify_betweenness(g, x), r.centrality, int(zero[0]), 1e-6)
    for options in ({"normalized": False}, {"endpoints": True}, {"normalized": False, "endpoints": True}):
        x = gg.betweenness_centrality(g, k=6, seed=4, backend="cpu", **options).centrality
        verify.verify_betweenness(g, x, k=6, seed=4, **options)
        with pytest.raises(VerificationError):
            verify.verify_betweenness(g, x, k=6, seed=5, **options)  # another sample
    s = source_of(g)
    x = gg.betweenness_centrality(g, sources=[s], normalized=False, backend="cpu").centrality
    verify.verify_betweenness(g, x, [s], normalized=False)
    one = gg.betweenness_centrality(g, k=1, seed=2, backend="cpu").centrality  # NaN at the sampled vertex, as networkx
    verify.verify_betweenness(g, one, k=1, seed=2)
    assert n > 1


@pytest.mark.parametrize("spec", WEIGHTED)
def test_betweenness_weighted(spec):
    g = gg.load(spec)
    r = gg.betweenness_centrality(g, weight="weight", backend="cpu")
    verify.verify_betweenness(g, r.centrality, weighted=True)
    v = int(np.argmax(r.centrality))
    rejects(lambda x: verify.verify_betweenness(g, x, weighted=True), r.centrality, v, r.centrality[v] * 0.999)
    hops = gg.betweenness_centrality(g, backend="cpu").centrality
    with pytest.raises(VerificationError):
        verify.verify_betweenness(g, hops, weighted=True)


def test_multigraph_with_self_loops():
    """Parallel arcs count once in BC (the lightest in SSSP) and add up in PageRank; self-loops change nothing."""
    rng = np.random.default_rng(1)
    src, dst = rng.integers(0, 50, 300), rng.integers(0, 50, 300)
    w = rng.integers(1, 5, 300).astype(float)
    for directed in (True, False):
        g = gg.Graph.from_edges(src, dst, w, directed=directed, self_loops="keep", duplicates="keep")
        assert g.num_self_loops > 0
        verify.verify_sssp(g, 3, gg.sssp(g, 3, backend="cpu").distances)
        verify.verify_pagerank(g, gg.pagerank(g, backend="cpu").ranks)
        verify.verify_betweenness(g, gg.betweenness_centrality(g, backend="cpu").centrality)
        verify.verify_betweenness(g, gg.betweenness_centrality(g, weight="weight", backend="cpu").centrality,
                                  weighted=True)
        verify.verify_color_propagation(g, gg.color_propagation(g, backend="cpu").colors)


# ---------------------------------------------------------------------------------------------- color propagation
@pytest.mark.parametrize("spec", ALL)
def test_color_propagation(spec):
    g = gg.load(spec)
    colors = gg.color_propagation(g, backend="cpu").colors
    verify.verify_color_propagation(g, colors)
    v = int(np.flatnonzero(colors != np.arange(g.num_vertices))[0])
    error = rejects(lambda c: verify.verify_color_propagation(g, c), colors, v, v)
    assert f"color {v}, expected {colors[v]}" in str(error)


def test_message_names_the_label():
    g = gg.Graph.from_edges(["a", "b", "c"], ["b", "c", "d"])
    distances = gg.bfs(g, "a", backend="cpu").distances.copy()
    distances[2] = 7
    with pytest.raises(VerificationError, match=r"bfs: vertex 2 \('c'\): distance 7, expected 2 \(1 of 4 vertices"):
        verify.verify_bfs(g, 0, distances)


# ------------------------------------------------------------------------------------------------ graphgear --verify
@pytest.mark.parametrize("algorithm, options", [
    ("bfs", ()), ("bfs", ("--depth-limit", "2")), ("sssp", ()), ("sssp", ("--unweighted",)),
    ("sssp", ("--cutoff", "300")), ("pagerank", ()), ("pagerank", ("--alpha", "0.6", "--tol", "1e-8")),
    ("cc", ()), ("scc", ()), ("bc", ()), ("bc", ("--k", "all")), ("bc", ("--source", "3")),
    ("bc", ("--weight", "w", "--k", "5", "--seed", "2")), ("color", ()),
])
def test_cli_verify_ok(capsys, algorithm, options):
    assert main(["run", algorithm, "rmat:7:8:w", "--backend", "cpu", "--no-warmup", "--verify", *options]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out[-1].startswith("verified against ") and out[-1].endswith(": ok")


def test_cli_verify_quiet_prints_nothing(capsys):
    assert main(["run", "cc", "kron:7", "--backend", "cpu", "--no-warmup", "--verify", "-q"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""


@pytest.mark.parametrize("quiet", ((), ("-q",)))
def test_cli_verify_wrong_result_exits_1(capsys, monkeypatch, quiet):
    """A wrong result: one line on stderr naming the vertex, no traceback, exit 1 (not 2: not the user's mistake)."""
    import graphgear.api

    right = graphgear.api.bfs

    def wrong(*args, **kwargs):
        result = right(*args, **kwargs)
        result.distances[np.flatnonzero(result.distances > 0)[0]] += 1
        return result

    monkeypatch.setattr(graphgear.api, "bfs", wrong)
    assert main(["run", "bfs", "kron:7", "--backend", "cpu", "--no-warmup", "--verify", *quiet]) == 1
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 1 and "Traceback" not in captured.err, captured.err
    assert lines[0].startswith("graphgear: error: wrong result, not verified against a serial BFS")
    assert "vertex" in lines[0] and "expected" in lines[0] and "1 of 128 vertices disagree" in lines[0]
    assert "verified against" not in captured.out


def test_cli_verify_help():
    from graphgear.cli import build_parser

    text = " ".join(build_parser()._subparsers._group_actions[0].choices["run"].format_help().split())
    assert "--verify" in text and "exits 1" in text and "exit 2" in text
