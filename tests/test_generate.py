"""Tests of the synthetic graph generators (`graphgear.graph.generate`): spec parsing and errors, determinism, sizes,
and each generator against an independent reference (the Graph500 vectorised formula, networkx's grid, brute-force
pairwise distances)."""

from __future__ import annotations

import dataclasses

import networkx as nx
import numpy as np
import pytest

from graphgear.errors import GraphSpecError, HostMemoryError
from graphgear.graph import generate as gen
from graphgear.graph.generate import (
    GeneratorSpec,
    estimate_bytes,
    generate,
    is_spec,
    kronecker_edges,
    parse_spec,
    rgg_points,
    rgg_radius,
)
from graphgear.graph.graph import Graph
from graphgear.memory import LIMIT_ENV


def same_csr(a: Graph, b: Graph) -> bool:
    if a.num_vertices != b.num_vertices or a.directed != b.directed:
        return False
    if not (np.array_equal(a.offsets, b.offsets) and np.array_equal(a.indices, b.indices)):
        return False
    if (a.weights is None) != (b.weights is None):
        return False
    return a.weights is None or np.array_equal(a.weights, b.weights)


def edge_set(g: Graph) -> set[tuple[int, int]]:
    rows = np.repeat(np.arange(g.num_vertices), g.out_degree())
    pairs = zip(rows.tolist(), g.indices.tolist())
    return {(u, v) if g.directed or u < v else (v, u) for u, v in pairs}


SMALL = ["kron:8", "rmat:8:4", "er:500:6", "rgg:9", "grid:20:30:0.7", "kron:7:4:w", "rgg:8:w", "grid:5:5:w"]


# ---------------------------------------------------------------------------------------------------- determinism
@pytest.mark.parametrize("spec", SMALL)
def test_same_seed_same_csr(spec):
    a, b = generate(spec), generate(spec)
    assert same_csr(a, b)
    assert a.name == spec
    c = generate(spec + ":seed=0")  # the default seed is 0
    assert same_csr(a, c)


@pytest.mark.parametrize("spec", SMALL)
def test_other_seed_other_graph(spec):
    a, b = generate(spec + ":seed=1"), generate(spec + ":seed=2")
    assert not same_csr(a, b)


def test_option_order_does_not_matter():
    a = generate("kron:8:w:seed=3")
    b = generate("kron:8:seed=3:w")
    c = generate("kron:8:16:seed=3:w")
    assert same_csr(a, b) and same_csr(a, c)
    assert not same_csr(a, generate("kron:8:w"))


def test_weights_do_not_change_structure():
    for spec in ["kron:8", "rmat:8:4", "er:300:5", "rgg:8", "grid:10:10:0.6"]:
        plain, weighted = generate(spec + ":seed=4"), generate(spec + ":w:seed=4")
        assert plain.weights is None and weighted.weights is not None
        assert np.array_equal(plain.offsets, weighted.offsets) and np.array_equal(plain.indices, weighted.indices)


@pytest.mark.parametrize("spec", ["kron:9:w", "rmat:9:8:w", "er:1000:8:w", "rgg:10:w", "grid:30:30:w"])
def test_weights_are_integers_1_to_255(spec):
    g = generate(spec)
    w = g.weights
    assert w is not None and w.dtype == np.float32 and w.size == g.num_arcs
    assert w.min() >= 1 and w.max() <= 255
    assert np.array_equal(w, np.round(w))
    assert np.unique(w).size > 200  # spread over the range
    if not g.directed:  # both arcs of an edge carry one weight
        m = g.to_scipy()
        assert abs(m - m.T).max() == 0


# ---------------------------------------------------------------------------------------------------- Kronecker
def reference_kronecker(scale: int, edge_factor: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The Graph500 reference's vectorised formula (kronecker_generator.m) in float64, from the same random stream:
    label permutation first, then one 64-bit draw per edge and level whose low/high 32-bit halves are the two
    uniforms."""
    a, b, c = 0.57, 0.19, 0.19
    ab, c_norm, a_norm = a + b, c / (1 - (a + b)), a / (a + b)
    n, m = 1 << scale, edge_factor << scale
    rng = np.random.default_rng(seed)
    perm = rng.permutation(n)
    raw = rng.bit_generator.random_raw(m * scale).reshape(m, scale)
    u1 = (raw & np.uint64(0xFFFFFFFF)).astype(np.float64) / 2.0**32
    u2 = (raw >> np.uint64(32)).astype(np.float64) / 2.0**32
    ij = np.zeros((2, m), dtype=np.int64)
    for level in range(scale):
        ii_bit = u1[:, level] > ab
        jj_bit = u2[:, level] > (c_norm * ii_bit + a_norm * np.logical_not(ii_bit))
        ij += (np.int64(1) << level) * np.stack([ii_bit, jj_bit]).astype(np.int64)
    return perm[ij[0]], perm[ij[1]]


@pytest.mark.parametrize("scale,edge_factor,seed", [(5, 16, 0), (10, 3, 7), (16, 2, 1)])  # (16, 2): several chunks
def test_kronecker_matches_graph500_formula(scale, edge_factor, seed):
    src, dst, w = kronecker_edges(scale, edge_factor, seed, permute_edges=False)
    ref_src, ref_dst = reference_kronecker(scale, edge_factor, seed)
    assert w is None
    assert np.array_equal(src, ref_src) and np.array_equal(dst, ref_dst)


def test_kronecker_initiator_frequencies():
    # top-level quadrant frequencies of the unpermuted bits are A, B, C, D
    scale, m = 4, 200_000
    rng = np.random.default_rng(3)
    rng.permutation(1 << scale)
    raw = rng.bit_generator.random_raw(m * scale).reshape(m, scale)
    perm_identity = np.arange(1 << scale, dtype=np.int64)
    src, dst = np.empty(m, np.int64), np.empty(m, np.int64)
    t = gen._threshold
    gen._kronecker_chunk(raw.ravel(), scale, t(0.76), t(0.75), t(0.19 / 0.24), perm_identity, src, dst, 0, m)
    top_i, top_j = src >> (scale - 1), dst >> (scale - 1)
    freq = np.bincount(top_i * 2 + top_j, minlength=4) / m
    assert np.allclose(freq, [0.57, 0.19, 0.19, 0.05], atol=0.005)


def test_kronecker_edge_permutation_does_not_change_graph():
    for weighted in (False, True):
        src, dst, w = kronecker_edges(9, 8, 5, weighted=weighted, permute_edges=True)
        g = Graph.from_edges(src, dst, w, num_vertices=1 << 9, directed=False)
        assert same_csr(g, generate("kron:9:8:seed=5" + (":w" if weighted else "")))
        plain, _, _ = kronecker_edges(9, 8, 5, weighted=weighted, permute_edges=False)
        assert not np.array_equal(src, plain)  # it did permute


def test_kron10_sizes():
    g = generate("kron:10")
    records = 16 * 1024
    assert g.num_vertices == 1024 and not g.directed
    assert g.num_edges <= records - g.counts.self_loops_dropped - g.counts.duplicates_dropped
    assert 0.55 * records < g.num_edges < records
    deg = g.out_degree()
    assert deg.sum() == g.num_arcs == 2 * g.num_edges
    assert 15 < deg.mean() < 32
    assert 5 * deg.mean() < deg.max() < 1024  # heavy tail
    assert (deg == 0).sum() > 50  # Kronecker graphs have many isolated vertices


def test_rmat_directed():
    g = generate("rmat:10:8")
    assert g.directed and g.num_vertices == 1024
    assert 0.6 * 8192 < g.num_edges <= 8192 - g.counts.self_loops_dropped
    out_deg, in_deg = g.out_degree(), g.in_degree()
    assert out_deg.sum() == in_deg.sum() == g.num_edges
    assert out_deg.max() > 5 * out_deg.mean()
    # same records as kron, but kept directed: its symmetrisation is the kron graph
    k = generate("kron:10:8")
    assert edge_set(k) == {(min(u, v), max(u, v)) for u, v in edge_set(g)}


# ---------------------------------------------------------------------------------------------------- Erdos-Renyi
def test_er_edge_count():
    g = generate("er:10000:4")
    m = 20000
    assert g.num_vertices == 10000 and not g.directed
    assert m - 30 <= g.num_edges <= m - g.counts.self_loops_dropped
    assert 3.9 < 2 * g.num_edges / g.num_vertices <= 4.0
    deg = g.out_degree()
    assert deg.max() < 20  # Poisson(4) tail


def test_er_rounding_and_empty():
    assert generate("er:7:0").num_edges == 0 and generate("er:7:0").num_vertices == 7
    assert generate("er:1:3").num_vertices == 1
    src_count = round(101 * 2.5 / 2)
    assert gen._vertices_records(parse_spec("er:101:2.5")) == (101, src_count)


# ---------------------------------------------------------------------------------------------------- grid
def test_grid_is_the_lattice():
    g = generate("grid:4:5")
    assert g.num_vertices == 20 and g.num_edges == 4 * 4 + 3 * 5 == 31 and not g.directed
    ref = nx.grid_2d_graph(4, 5)
    expected = {tuple(sorted((r1 * 5 + c1, r2 * 5 + c2))) for (r1, c1), (r2, c2) in ref.edges()}
    assert edge_set(g) == expected


@pytest.mark.parametrize("rows,cols", [(1, 1), (1, 6), (6, 1), (2, 2), (7, 3)])
def test_grid_shapes(rows, cols):
    g = generate(f"grid:{rows}:{cols}")
    ref = nx.convert_node_labels_to_integers(nx.grid_2d_graph(rows, cols), ordering="sorted")
    assert g.num_vertices == rows * cols
    assert edge_set(g) == {tuple(sorted(e)) for e in ref.edges()}


def test_grid_keep_fraction():
    full = generate("grid:100:100")
    half = generate("grid:100:100:0.5")
    total = 100 * 99 * 2
    assert full.num_edges == total
    assert abs(half.num_edges - total / 2) < 5 * np.sqrt(total * 0.25)
    assert edge_set(half) <= edge_set(full)
    assert half.num_vertices == 10000  # isolated vertices stay
    assert generate("grid:10:10:1").num_edges == generate("grid:10:10").num_edges


# ---------------------------------------------------------------------------------------------------- rgg
def brute_force_rgg(points: np.ndarray, radius: float) -> set[tuple[int, int]]:
    diff = points[:, None, :] - points[None, :, :]
    d2 = diff[..., 0] * diff[..., 0] + diff[..., 1] * diff[..., 1]
    u, v = np.nonzero(np.triu(d2 < radius * radius, k=1))
    return set(zip(u.tolist(), v.tolist()))


@pytest.mark.parametrize("scale,seed", [(10, 0), (10, 9), (1, 0), (3, 1), (6, 2)])
def test_rgg_matches_brute_force(scale, seed):
    g = generate(f"rgg:{scale}:seed={seed}")
    n = 1 << scale
    points = rgg_points(scale, seed)
    assert points.shape == (n, 2) and g.num_vertices == n and not g.directed
    expected = brute_force_rgg(points, rgg_radius(n))
    assert edge_set(g) == expected
    if scale == 10:
        avg = 2 * g.num_edges / n
        assert 0.8 * 0.95 * np.log(n) < avg < 0.95 * np.log(n)  # pi * 0.55^2 * ln n, less the border


@pytest.mark.parametrize("radius", [0.01, 0.05, 0.3, 0.49, 0.5, 0.7, 1.5])
def test_rgg_bucketing_any_radius(radius):
    points = np.random.default_rng(11).random((400, 2))
    u, v = gen._rgg_pairs(points, radius)
    found = [(min(a, b), max(a, b)) for a, b in zip(u.tolist(), v.tolist())]
    assert len(found) == len(set(found))  # each pair once
    assert set(found) == brute_force_rgg(points, radius)


def test_rgg_radius():
    n = 1 << 16
    assert rgg_radius(n) == pytest.approx(0.55 * np.sqrt(np.log(n) / n))


# ---------------------------------------------------------------------------------------------------- parsing
MALFORMED = [
    ("kron", None),
    ("kron:", "''"),
    ("kron:abc", "'abc'"),
    ("kron:0", "'0'"),
    ("kron:41", "'41'"),
    ("kron:16:0", "'0'"),
    ("kron:16:x", "'x'"),
    ("kron:16:1.5", "'1.5'"),
    ("kron:16:seed=abc", "'seed=abc'"),
    ("kron:16:seed=-1", "'seed=-1'"),
    ("kron:16:16:16", None),
    ("kron:16:w:w", None),
    ("kron:16:w:16", None),
    ("kron:16:seed=1:seed=2", None),
    ("kron:16:W", "'W'"),
    ("rmat:10", None),
    ("grid:4", None),
    ("grid:4:4:1.5", "'1.5'"),
    ("grid:4:4:0", "'0'"),
    ("grid:0:4", "'0'"),
    ("grid:4:4:nan", "'nan'"),
    ("er:10", None),
    ("er:0:3", "'0'"),
    ("er:10:-1", "'-1'"),
    ("er:10:inf", "'inf'"),
    ("rgg:", "''"),
    ("rgg:1e3", "'1e3'"),
    ("foo:3", "'foo'"),
    ("", "''"),
    ("kron :16", "'kron '"),
    ("kron:16:", "''"),
]


@pytest.mark.parametrize("spec,token", MALFORMED)
def test_malformed_specs(spec, token):
    with pytest.raises(GraphSpecError) as info:
        generate(spec)
    message = str(info.value)
    assert repr(spec) in message
    assert "Valid forms" in message and "kron:SCALE[:EF]" in message and "grid:ROWS:COLS[:KEEP]" in message
    if token is not None:
        assert token in message
    with pytest.raises(GraphSpecError):
        parse_spec(spec)


def test_parse_spec():
    assert parse_spec("kron:16") == GeneratorSpec("kron", (16, 16), False, 0)
    assert parse_spec("kron:12:8:w:seed=5") == GeneratorSpec("kron", (12, 8), True, 5)
    assert parse_spec("rmat:12:4:seed=9") == GeneratorSpec("rmat", (12, 4), False, 9)
    assert parse_spec("er:1000:2.5") == GeneratorSpec("er", (1000, 2.5), False, 0)
    assert parse_spec("rgg:16:w") == GeneratorSpec("rgg", (16,), True, 0)
    assert parse_spec("grid:3:4") == GeneratorSpec("grid", (3, 4, 1.0), False, 0)
    assert parse_spec("grid:3:4:.25") == GeneratorSpec("grid", (3, 4, 0.25), False, 0)
    spec = parse_spec("grid:3:4:0.8:seed=2:w")
    assert parse_spec(str(spec)) == spec
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.seed = 3  # type: ignore[misc]


def test_is_spec():
    assert is_spec("kron:16")
    assert is_spec("rgg:10:w") and is_spec("grid:4:4") and is_spec("er:10:2") and is_spec("rmat:4:4")
    assert is_spec("kron:abc")  # looks like one; generate then explains what is wrong
    assert not is_spec("kron.txt")
    assert not is_spec("/tmp/rgg.mtx")
    assert not is_spec("kron")
    assert not is_spec("graphs/kron:16")
    assert not is_spec("C:\\graphs\\kron.mtx")
    assert not is_spec("")
    assert not is_spec(None)  # type: ignore[arg-type]


@pytest.mark.parametrize("spec", ["kron:40", "kron:30", "rmat:35:16", "grid:1000000:1000000", "er:100000000000:10"])
def test_too_large_is_refused(spec, monkeypatch):
    monkeypatch.setenv(LIMIT_ENV, "64G")  # the machine's memory, capped: refused on any machine
    assert estimate_bytes(spec) > 64 * 2**30
    with pytest.raises(GraphSpecError) as info:
        generate(spec)
    assert isinstance(info.value, HostMemoryError)
    assert repr(spec) in str(info.value) and "bytes" in str(info.value) and "GiB" in str(info.value)


def test_estimate_bytes_small():
    # the edge records alone (16 bytes each) are a lower bound; the build's keys and outputs come on top
    assert estimate_bytes("kron:20") > 16 * 2**20 * 16 + 8 * 2**20
    assert estimate_bytes("kron:20:w") > estimate_bytes("kron:20")
    assert estimate_bytes("kron:21") > 2 * estimate_bytes("kron:20") - 2**25  # linear in the size
    assert estimate_bytes("kron:20") < 2 * 2**30


def test_public_functions_match_specs():
    assert same_csr(gen.kronecker(8, 4, weighted=True, seed=2), generate("kron:8:4:w:seed=2"))
    assert same_csr(gen.rmat(8, 4), generate("rmat:8:4"))
    assert same_csr(gen.erdos_renyi(100, 3), generate("er:100:3"))
    assert same_csr(gen.random_geometric(8, seed=1), generate("rgg:8:seed=1"))
    assert same_csr(gen.grid(5, 6, 0.5), generate("grid:5:6:0.5"))
    assert gen.kronecker(8).name == "kron:8:16"
    with pytest.raises(GraphSpecError):
        gen.kronecker(0)
    with pytest.raises(GraphSpecError):
        gen.grid(3, 3, 2.0)


def test_progress_enabled_small(monkeypatch):
    from graphgear import progress

    monkeypatch.setattr(progress, "DELAY_S", 0.0)  # show the bar at once
    g = generate("kron:10:w", progress=True)
    assert g.num_vertices == 1024
    assert generate("rgg:8", progress=True).num_vertices == 256


def test_orient_makes_a_directed_graph_of_the_edges():
    """graph.generate.orient: every edge u < v as u -> v, and v -> u as well with probability `both` (seeded);
    refuses a directed graph and a probability outside [0, 1]."""
    from graphgear.errors import GraphError
    from graphgear.graph.generate import orient

    g = gen.generate("grid:12:15")
    one_way, both_ways = orient(g, 0.0), orient(g, 1.0)
    assert one_way.directed and one_way.num_arcs == g.num_edges and both_ways.num_arcs == 2 * g.num_edges
    assert all(u < v for u, v in one_way.to_networkx().edges)
    assert nx.number_strongly_connected_components(one_way.to_networkx()) == g.num_vertices  # a DAG
    half = orient(g)
    assert g.num_edges < half.num_arcs < 2 * g.num_edges and half.indices.tolist() == orient(g).indices.tolist()
    with pytest.raises(GraphError, match="undirected"):
        orient(one_way)
    with pytest.raises(GraphError, match="probability"):
        orient(g, 1.5)


def test_weighted_spec_adds_w_to_a_generator_spec_only():
    """The benchmarks' SSSP input: a generator spec gets its ``w`` option, once; a weighted spec and a path stay."""
    from graphgear.graph.generate import weighted_spec

    assert weighted_spec("kron:21") == "kron:21:w"
    assert weighted_spec("grid:2048:2048") == "grid:2048:2048:w"
    assert weighted_spec("kron:21:w") == "kron:21:w"
    assert weighted_spec("rmat:10:8:w:seed=3") == "rmat:10:8:w:seed=3"
    assert weighted_spec(".data/graphs/social/wiki-Vote.txt") == ".data/graphs/social/wiki-Vote.txt"
    assert weighted_spec("kron.txt") == "kron.txt"
    assert gen.generate(weighted_spec("kron:6")).weighted and gen.generate(weighted_spec("rmat:6:4:seed=3")).weighted
