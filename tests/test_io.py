"""File formats: the real graphs load with their published counts, every format round-trips, bad files fail clearly."""

from __future__ import annotations

import gzip
import os
import time

import numpy as np
import pytest
from conftest import REAL_GRAPHS, real_graph
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import graphgear as gg
from graphgear.errors import GraphError, GraphFormatError, GraphSpecError
from graphgear.graph import io as gio

TEXT_FORMATS = [".mtx", ".mtx.gz", ".txt", ".el", ".wel", ".csv", ".tsv", ".txt.gz", ".gr", ".gr.gz", ".graph", ".npz"]


def assert_same_graph(a: gg.Graph, b: gg.Graph, weights: bool = True) -> None:
    assert a.num_vertices == b.num_vertices
    assert a.directed == b.directed
    np.testing.assert_array_equal(a.offsets, b.offsets)
    np.testing.assert_array_equal(a.indices, b.indices)
    if weights:
        assert (a.weights is None) == (b.weights is None)
        if a.weights is not None:
            np.testing.assert_array_equal(a.weights, b.weights)


# -------------------------------------------------------------------------------------------------------- real graphs


@pytest.mark.parametrize("name", sorted(REAL_GRAPHS))
def test_real_graph_counts(name):
    vertices, edges, directed, weighted, max_degree, wcc = REAL_GRAPHS[name]
    g = gg.load(real_graph(name))
    stats = g.stats()
    assert (stats["num_vertices"], stats["num_edges"], stats["directed"]) == (vertices, edges, directed)
    assert g.weighted == weighted
    assert stats["max_degree"] == max_degree
    assert stats["wcc"] == wcc


def test_real_graph_details():
    g = gg.load(real_graph("citation/cit-HepTh.txt.gz"))
    assert g.stats()["self_loops_dropped"] == 39
    malta = gg.load(real_graph("road/malta_osm.gr.gz"))
    assert malta.stats()["isolated"] == 40
    assert np.count_nonzero(malta.weights == 0) == 82  # arcs of length 0 are kept, not dropped
    wiki = gg.load(real_graph("social/wiki-Vote.txt"))
    assert wiki.stats()["isolated"] == 1_183


# --------------------------------------------------------------------------------------------------------- round trip


def random_graph(rng: np.random.Generator, directed: bool, weighted: str | None, n: int = 60, m: int = 300) -> gg.Graph:
    src, dst = rng.integers(0, n - 5, m), rng.integers(0, n - 5, m)  # the last 5 vertices stay isolated
    weights = None
    if weighted == "int":
        weights = rng.integers(1, 256, m)
    elif weighted == "float":
        weights = rng.random(m) * 10
    return gg.Graph.from_edges(src, dst, weights, num_vertices=n, directed=directed)


@pytest.mark.parametrize("suffix", TEXT_FORMATS)
@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("weighted", [None, "int", "float"])
def test_round_trip(tmp_path, suffix, directed, weighted):
    if suffix == ".graph" and (directed or weighted == "float"):
        pytest.skip("METIS holds undirected graphs with integer weights only (tested below)")
    if suffix == ".wel" and weighted is None:
        pytest.skip(".wel is the weighted edge list")
    g = random_graph(np.random.default_rng(7), directed, weighted)
    path = tmp_path / f"g{suffix}"
    gg.save(g, path)
    back = gg.load(path, cache=False)
    unweighted_gr = suffix in (".gr", ".gr.gz") and weighted is None
    assert_same_graph(g, back, weights=not unweighted_gr)
    if unweighted_gr:  # DIMACS .gr always carries weights: an unweighted graph is written with weight 1
        np.testing.assert_array_equal(back.weights, np.ones(back.num_arcs, np.float32))


@pytest.mark.parametrize("suffix", [".txt", ".mtx", ".gr"])
def test_round_trip_keeps_self_loops_when_asked(tmp_path, suffix):
    g = gg.Graph.from_edges([0, 1, 2, 2], [0, 1, 0, 3], [1.0, 2.0, 3.0, 4.0], directed=False, self_loops="keep")
    gg.save(g, tmp_path / f"g{suffix}")
    back = gg.load(tmp_path / f"g{suffix}", self_loops="keep", cache=False)
    assert_same_graph(g, back)
    assert gg.load(tmp_path / f"g{suffix}", cache=False).stats()["self_loops_dropped"] == 2


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    seed=st.integers(0, 2**32 - 1),
    directed=st.booleans(),
    n=st.integers(1, 40),
    m=st.integers(0, 120),
    suffix=st.sampled_from([".el", ".mtx", ".gr", ".npz", ".csv"]),
)
def test_round_trip_property(tmp_path, seed, directed, n, m, suffix):
    rng = np.random.default_rng(seed)
    g = gg.Graph.from_edges(rng.integers(0, n, m), rng.integers(0, n, m), rng.integers(1, 9, m), num_vertices=n, directed=directed)
    path = tmp_path / f"p{seed}{suffix}"
    gg.save(g, path)
    # an edge list without rows cannot say that its (absent) edges were weighted
    assert_same_graph(g, gg.load(path, cache=False), weights=g.num_arcs > 0 or suffix not in (".el", ".csv"))


def test_metis_weighted_round_trip(tmp_path):
    g = random_graph(np.random.default_rng(3), False, "int")
    gg.save(g, tmp_path / "w.graph")
    assert_same_graph(g, gg.load(tmp_path / "w.graph"))


def test_metis_refuses_what_it_cannot_hold(tmp_path):
    with pytest.raises(GraphError, match="undirected graphs only"):
        gg.save(random_graph(np.random.default_rng(1), True, None), tmp_path / "d.graph")
    with pytest.raises(GraphError, match="integer"):
        gg.save(random_graph(np.random.default_rng(1), False, "float"), tmp_path / "f.graph")
    assert not list(tmp_path.iterdir())  # nothing half-written


def test_format_detected_from_content(tmp_path):
    g = random_graph(np.random.default_rng(5), True, "int")
    for suffix, fmt in [(".mtx", "mtx"), (".gr", "dimacs"), (".el", "edgelist"), (".npz", "npz")]:
        gg.save(g, tmp_path / f"g{suffix}")
        plain = tmp_path / f"noext_{fmt}"
        os.rename(tmp_path / f"g{suffix}", plain)
        assert gio.detect_format(plain) == fmt
        assert_same_graph(g, gg.load(plain, cache=False))


def test_direction_override(tmp_path):
    path = tmp_path / "d.el"
    path.write_text("0 1\n1 2\n2 1\n")
    assert gg.load(path).directed
    und = gg.load(path, directed=False)
    assert not und.directed and und.num_edges == 2
    assert gg.load(real_graph("social/facebook_combined.txt.gz"), directed=True).num_edges == 2 * 88_234


def test_csv_with_header_and_snap_nodes_header(tmp_path):
    path = tmp_path / "e.csv"
    path.write_text("source,target,weight\n0,1,2.5\n1,3,4\n")
    g = gg.load(path)
    assert g.num_vertices == 4 and g.weighted
    np.testing.assert_array_equal(g.weights, np.array([2.5, 4], np.float32))
    snap = tmp_path / "s.txt"
    snap.write_text("# Undirected graph\n# Nodes: 10 Edges: 1\n0\t1\n")
    g = gg.load(snap)
    assert g.num_vertices == 10 and not g.directed and g.stats()["isolated"] == 8


# ------------------------------------------------------------------------------------------------------ binary cache


def test_cache_is_used_and_invalidated(tmp_path, monkeypatch):
    path = tmp_path / "c.el"
    path.write_text("0 1\n1 2\n")
    first = gg.load(path, cache=True)
    cached = list(gio.cache_dir().glob("c.el.*.npz"))
    assert len(cached) == 1
    assert_same_graph(first, gg.load(path, cache=True))
    time.sleep(0.01)
    path.write_text("0 1\n1 2\n2 3\n")  # a changed file is parsed again
    assert gg.load(path, cache=True).num_edges == 3


def test_bad_file_leaves_no_cache(tmp_path):
    path = tmp_path / "bad.el"
    path.write_text("0 1\n1 x\n")
    with pytest.raises(GraphFormatError):
        gg.load(path, cache=True)
    assert not list(gio.cache_dir().glob("bad.el.*"))


# ----------------------------------------------------------------------------------------------------------- errors

BAD_FILES = [
    # (file name, content, line expected in the message or None, words expected in the message)
    ("empty.el", "", None, "empty file"),
    ("blank.el", "  \n\n", None, "empty file"),
    ("comments.el", "# nothing here\n% nor here\n", None, "no edges"),
    ("word.el", "0 1\n1 two\n", 2, "not a number"),
    ("columns.el", "0 1\n1 2\n3\n", 3, "expected 2 columns"),
    ("wide.el", "0 1 2 3\n", 1, "expected 2 or 3 columns"),
    ("extra.el", "0 1\n1 2 5\n", 2, "expected 2 columns"),
    ("negative.el", "0 1\n-1 2\n", 2, "out of range"),
    ("huge.el", "0 1\n1 12345678901234567890\n", 2, "too large"),
    ("fraction.el", "0 1\n1.5 2\n", 2, "not a number"),
    ("weight.wel", "0 1 1.0\n1 2 abc\n", 2, "not a number"),
    ("noweight.wel", "0 1\n", 1, "weight column"),
    ("nop.gr", "c hello\na 1 2 3\n", 2, "problem line"),
    ("count.gr", "p sp 3 3\na 1 2 1\na 2 3 1\n", 1, "says 3 arcs but the file holds 2"),
    ("kind.gr", "p sp 3 1\nx 1 2 1\n", 2, "unexpected line"),
    ("zero.gr", "p sp 3 1\na 0 2 1\n", 2, "out of range"),
    ("big.gr", "p sp 3 2\na 1 2 1\na 1 4 1\n", 3, "out of range"),
    ("noweight.gr", "p sp 3 1\na 1 2\n", 2, "expected 3 columns"),
    ("header.graph", "3 x\n2\n1\n\n", 1, "header"),
    ("lines.graph", "3 1\n2\n1\n", 1, "3 vertices but the body has 2"),
    ("more.graph", "2 1\n2\n1\n1\n", 4, "has more"),
    ("entries.graph", "3 2\n2\n1\n\n", 1, "says 2 edges"),
    ("range.graph", "3 1\n2\n5\n\n", 3, "out of range"),
    ("fmt.graph", "2 1 1\n2\n1 1\n", 2, "without its edge weight"),
    ("header.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n2 x\n", 4, "not a number"),
    ("index.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n2 9\n", 4, "out of range"),
    ("short.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 3\n1 2\n2 3\n", 2, "says 3 entries"),
    ("long.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 2\n2 3\n", 4, "more entries"),
    ("square.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 4 1\n1 2\n", 2, "square"),
    ("dense.mtx", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", 1, "array"),
    ("banner.mtx", "hello\n1 2\n", 1, "banner"),
]


@pytest.mark.parametrize("name,content,line,words", BAD_FILES, ids=[b[0] for b in BAD_FILES])
def test_bad_file_raises_format_error(tmp_path, name, content, line, words):
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(GraphFormatError) as info:
        gg.load(path, cache=True)
    err = info.value
    assert name in str(err)
    assert err.line == line, str(err)
    if line is not None:
        assert f"line {line}" in str(err)
        assert err.text == content.splitlines()[line - 1]
    assert words.lower() in str(err).lower()
    assert not list(gio.cache_dir().glob(f"{name}.*"))


def test_truncated_gzip(tmp_path):
    data = gzip.compress(b"".join(f"{i} {i + 1}\n".encode() for i in range(10_000)))
    path = tmp_path / "cut.txt.gz"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(GraphFormatError, match="truncated gzip"):
        gg.load(path)


def test_not_a_graph_npz(tmp_path):
    np.savez(tmp_path / "x.npz", a=np.arange(3))
    with pytest.raises(GraphFormatError, match="not a graphgear"):
        gg.load(tmp_path / "x.npz")
    (tmp_path / "y.npz").write_bytes(b"PK garbage")
    with pytest.raises(GraphFormatError, match="y.npz"):
        gg.load(tmp_path / "y.npz")


def test_cache_version_mismatch(tmp_path, monkeypatch):
    g = random_graph(np.random.default_rng(2), True, None)
    gg.save(g, tmp_path / "g.npz")
    monkeypatch.setattr(gio.npz, "VERSION", gio.npz.VERSION + 1)
    with pytest.raises(GraphFormatError, match="version"):
        gg.load(tmp_path / "g.npz")


def test_missing_file_and_bad_spec(tmp_path):
    with pytest.raises(GraphError, match="no such file"):
        gg.load(tmp_path / "missing.el")
    with pytest.raises(GraphSpecError, match="kron:abc"):
        gg.load("kron:abc")
    with pytest.raises(GraphError, match="cannot tell the format"):
        gg.save(random_graph(np.random.default_rng(0), True, None), tmp_path / "g.unknown")


def test_spec_loads_like_a_file():
    g = gg.load("grid:3:4")
    assert (g.num_vertices, g.num_edges, g.directed) == (12, 17, False)
    assert gg.load("grid:3:4", directed=True).num_edges == 34
