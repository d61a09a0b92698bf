"""File formats: the real graphs load with their published counts, every format round-trips, bad files fail clearly."""

from __future__ import annotations

import gzip
import os
import time
import warnings

import networkx as nx
import numpy as np
import pytest
from conftest import REAL_GRAPHS, real_graph
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import graphgear as gg
from graphgear.errors import CacheWarning, FormatWarning, GraphError, GraphFormatError, GraphSpecError
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
    # issue 22 changed the default: wiki-Vote's ids have gaps its header does not declare, so it is renumbered to the
    # 7,115 ids its edges name (no isolated vertex); renumber=False keeps the id range 0..8297 and its 1,183 unused ids
    wiki = gg.load(real_graph("social/wiki-Vote.txt"))
    assert wiki.stats()["isolated"] == 0
    whole_range = gg.load(real_graph("social/wiki-Vote.txt"), renumber=False)
    assert whole_range.num_vertices == 8_298 and whole_range.stats()["isolated"] == 1_183


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
    # issue 22 changed the default: no edge names id 2 and no header declares it, so the ids are renumbered
    assert g.num_vertices == 3 and g.weighted and g.vertex_ids.tolist() == [0, 1, 3]
    np.testing.assert_array_equal(g.weights, np.array([2.5, 4], np.float32))
    assert gg.load(path, renumber=False).num_vertices == 4
    snap = tmp_path / "s.txt"
    snap.write_text("# Undirected graph\n# Nodes: 10 Edges: 1\n0\t1\n")
    g = gg.load(snap)
    assert g.num_vertices == 10 and not g.directed and g.stats()["isolated"] == 8


# ------------------------------------------------------------------------------------- vertex ids: kept or renumbered
# docs/formats.md, "Vertex ids and renumbering" (issue 22): by default an edge list whose ids leave gaps nothing in the
# file declares is renumbered to the ids its edges name, kept as labels; formats whose header states the vertex count
# (Matrix Market, DIMACS, METIS, an edge list's Nodes: above every id, KONECT's counts line) keep their ids.

RENUMBERED = [
    # (name, content, vertex ids as written, edges in those ids)
    ("gaps.el", "10 30\n30 20\n", [10, 20, 30], [(10, 30), (30, 20)]),
    ("from_one.txt", "1 2\n2 3\n", [1, 2, 3], [(1, 2), (2, 3)]),  # no edge names 0
    ("snap.txt", "# Nodes: 3 Edges: 2\n5 7\n7 9\n", [5, 7, 9], [(5, 7), (7, 9)]),  # SNAP counts the ids used
    ("header.csv", "src,dst\n0,4\n4,2\n", [0, 2, 4], [(0, 4), (4, 2)]),
    ("out.konect", "% asym unweighted\n1 4\n4 6\n", [1, 4, 6], [(1, 4), (4, 6)]),  # KONECT: its 1-based ids
]
KEPT = [
    # (name, content, vertices, isolated): ids kept, every id of the declared range a vertex
    ("dense.el", "0 1\n1 2\n2 0\n", 3, 0),
    ("declared.txt", "# Nodes: 6 Edges: 2\n0 1\n1 4\n", 6, 3),
    ("just_declared.txt", "# Nodes: 5 Edges: 2\n0 1\n1 4\n", 5, 2),  # Nodes: largest id + 1 declares 2 and 3
    ("counted.konect", "% sym unweighted\n% 2 6 6\n1 2\n2 5\n", 6, 3),
    ("rows.mtx", "%%MatrixMarket matrix coordinate pattern general\n6 6 2\n1 2\n2 5\n", 6, 3),
    ("bare.mtx", "2 5\n5 3\n", 5, 2),  # without its banner: its ids are row numbers
    ("arcs.gr", "p sp 6 2\na 1 2 1\na 2 5 1\n", 6, 3),
    ("adjacency.graph", "6 2\n2\n1 5\n\n\n2\n\n", 6, 3),
]


def edges_as_written(g: gg.Graph) -> list[tuple]:
    rows = np.repeat(np.arange(g.num_vertices), g.out_degree())
    return sorted(zip(g.vertex_labels(rows).tolist(), g.vertex_labels(g.indices).tolist()))


@pytest.mark.parametrize("name,content,ids,edges", RENUMBERED, ids=[r[0] for r in RENUMBERED])
def test_ids_with_gaps_are_renumbered_by_default(tmp_path, name, content, ids, edges):
    path = tmp_path / name
    path.write_text(content)
    g = gg.load(path)
    assert g.num_vertices == len(ids) and g.vertex_ids.tolist() == ids and g.stats()["isolated"] == 0
    assert edges_as_written(g) == sorted(edges)
    assert gg.load(path, renumber=True).vertex_ids.tolist() == ids
    whole = gg.load(path, renumber=False)  # the id range as before (KONECT's 1-based ids from 0)
    assert whole.vertex_ids is None and whole.num_vertices == ids[-1] + (0 if "konect" in name else 1)


@pytest.mark.parametrize("name,content,vertices,isolated", KEPT, ids=[k[0] for k in KEPT])
def test_declared_vertex_counts_keep_their_ids(tmp_path, name, content, vertices, isolated):
    path = tmp_path / name
    path.write_text(content)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FormatWarning)  # the banner-less .mtx says how it was read
        g = gg.load(path)
        assert g.vertex_ids is None and g.num_vertices == vertices and g.stats()["isolated"] == isolated
        assert_same_graph(g, gg.load(path, renumber=False))
        every = gg.load(path, renumber=True)  # the ids the edges name, as written (1-based in mtx, gr, METIS, KONECT)
    named = sorted({v for e in edges_as_written(g) for v in e})
    base = 0 if name.endswith((".el", ".txt")) else 1
    assert every.num_vertices == len(named) and every.vertex_ids.tolist() == [v + base for v in named]
    assert edges_as_written(every) == sorted((u + base, v + base) for u, v in edges_as_written(g))


def test_renumbered_file_reports_results_in_its_ids(tmp_path):
    path = tmp_path / "votes.txt"
    path.write_text("# Directed graph\n30 1412\n30 3352\n1412 3352\n7 30\n")
    g = gg.load(path)
    assert g.vertex_ids.tolist() == [7, 30, 1412, 3352]
    r = gg.bfs(g, 30, backend="cpu")
    assert r.to_dict() == {30: 0, 1412: 1, 3352: 1}
    frame = r.to_pandas()
    assert frame["vertex"].tolist() == [7, 30, 1412, 3352]
    assert frame["predecessors"].tolist()[2:] == [30, 30]
    assert gg.pagerank(g, backend="cpu").to_dict().keys() == {7, 30, 1412, 3352}
    und = gg.load(path, directed=False)  # the direction override keeps the labels
    assert und.vertex_ids.tolist() == [7, 30, 1412, 3352] and not und.directed
    gg.save(g, tmp_path / "votes.npz")  # the binary format keeps them too
    assert gg.load(tmp_path / "votes.npz").vertex_ids.tolist() == [7, 30, 1412, 3352]


def test_renumbering_is_part_of_the_cache_key(tmp_path):
    """An entry written under another renumber setting (the old default, False) is never the answer to this one."""
    path = tmp_path / "gaps.el"
    path.write_text("10 30\n30 20\n")
    old = gg.load(path, cache=True, renumber=False)
    assert old.num_vertices == 31
    with warnings.catch_warnings():
        warnings.simplefilter("error", CacheWarning)  # a different key, not an entry that fails to verify
        new = gg.load(path, cache=True)
    assert new.num_vertices == 3 and new.vertex_ids.tolist() == [10, 20, 30]
    assert len(list(gio.cache_dir().glob("gaps.el.*.npz"))) == 2
    again = gg.load(path, cache=True)  # from its own entry, labels included
    assert again.vertex_ids.tolist() == [10, 20, 30] and again.num_vertices == 3
    assert gg.load(path, cache=True, renumber=False).num_vertices == 31


@pytest.mark.parametrize("bad", ["yes", 1, [True]])
def test_renumber_must_be_a_flag_or_none(tmp_path, bad):
    path = tmp_path / "e.el"
    path.write_text("0 1\n")
    with pytest.raises(GraphError, match="renumber must be True, False or None"):
        gg.load(path, renumber=bad)


def test_wiki_vote_is_its_distinct_ids():
    """wiki-Vote (SNAP: ids 3..8297, 7,115 used) against NetworkX on the file's distinct ids, read independently."""
    path = real_graph("social/wiki-Vote.txt")
    pairs = np.loadtxt(path, comments="#", dtype=np.int64)
    ids = np.unique(pairs)
    G = nx.DiGraph()
    G.add_edges_from(pairs.tolist())
    G.remove_edges_from(list(nx.selfloop_edges(G)))
    g = gg.load(path)
    assert (g.num_vertices, g.num_edges) == (len(ids), G.number_of_edges()) == (7_115, 103_689)
    np.testing.assert_array_equal(g.vertex_ids, ids)
    assert edges_as_written(g) == sorted(G.edges())
    scc = gg.strongly_connected_components(g, backend="cpu")
    assert scc.num_components == nx.number_strongly_connected_components(G) == 5_816
    wcc = gg.connected_components(g, backend="cpu")
    assert wcc.num_components == nx.number_weakly_connected_components(G) == 24
    # the same components, reported in the file's ids
    labels = scc.to_dict()
    for component in nx.strongly_connected_components(G):
        assert len({labels[v] for v in component}) == 1
    whole = gg.load(path, renumber=False)  # the id range 0..8297, as before issue 22
    assert whole.num_vertices == 8_298
    assert gg.strongly_connected_components(whole, backend="cpu").num_components == 6_999


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
