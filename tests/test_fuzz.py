"""The file readers against docs/formats.md: the reference reader's own tests, then a mutation fuzz run.

The fuzz run (tests/fuzz) loads mutated files of every format with ``gg.load`` and with tests/reference_formats.py
and expects no failure: no disagreement, no exception outside GraphgearError, no crash, no hang. By default it runs
`DEFAULT_CASES` cases spread evenly over the formats; ``GRAPHGEAR_FUZZ_CASES=N`` (and ``GRAPHGEAR_FUZZ_WORKERS``,
``GRAPHGEAR_FUZZ_SEED``, ``GRAPHGEAR_FUZZ_TIMEOUT``) run a longer one. A failing case is rerun alone with
``python benchmarks/fuzz.py --case FORMAT:SEED``.
"""

from __future__ import annotations

import gzip
import io
import os
import random
import tempfile
import zipfile
from pathlib import Path

import numpy as np
import pytest
import reference_formats as ref
from conftest import REAL_GRAPHS, SHARED_GRAPHS
from fuzz import mutate, runner, seeds
from fuzz.cases import make_case
from fuzz.judge import FAILURES, compare, signature

DEFAULT_CASES = 4200  # 200 per format: about 30 s with 2 workers on 2 cores


def read(text: bytes | str, name: str = "g.txt") -> ref.ReferenceGraph:
    return ref.read(text.encode() if isinstance(text, str) else text, name)


def edges(g: ref.ReferenceGraph) -> list[tuple]:
    w = [None] * g.num_records if g.weights is None else g.weights.tolist()
    return list(zip(g.src.tolist(), g.dst.tolist(), w))


def refuses(text: bytes | str, name: str = "g.txt") -> str:
    with pytest.raises(ref.ReferenceFormatError) as info:
        read(text, name)
    return str(info.value)


# ----------------------------------------------------------------------------------------------------- numbers, text


@pytest.mark.parametrize("token", ["inf", "nan", "1_000", "0x1p3", "0t2.5", "1-73", ".", "1e", "e5", "--1", "\u0663",
                                   "1\x00", "1\x0c", "1.5.2", "+-1"])
def test_not_numbers(token):
    refuses(f"0 1 {token}\n")


@pytest.mark.parametrize("token, value", [("2.5", 2.5), (".5", 0.5), ("5.", 5.0), ("1e3", 1000.0), ("-2.5E-2", -0.025),
                                          ("+3", 3.0), ("007", 7.0), ("0e999", 0.0), ("1e-999", 0.0),
                                          ("16777217", 16777216.0), ("3.4028235e38", np.float32(3.4028235e38))])
def test_real_weights(token, value):
    assert read(f"0 1 {token}\n").weights.tolist() == [np.float32(value)]


def test_float32_overflow_and_its_boundary():
    assert "overflows float32" in refuses("0 1 1e39\n")
    assert "overflows float32" in refuses("0 1 -1e39\n")
    halfway = "340282356779733661637539395458142568448"  # float32's largest plus half an ulp: rounds to infinity
    with pytest.raises(ref.OverflowBoundaryError):
        read(f"0 1 {halfway}\n")
    assert ref.read(f"0 1 {halfway}\n".encode(), "g.txt", lenient=True).weights[0] == np.finfo(np.float32).max
    assert read("%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 2 340282356779733661637539395458142568447\n",
                "g.mtx").weights[0] == np.finfo(np.float32).max  # an INT is rounded once: just below the halfway


def test_loose_weights_outside_the_exact_range():
    # just above the float32 midpoint 1 + 2**-24 (a float64): correctly rounded it is that midpoint, which rounds to
    # 1.0 (even); one float64 ulp up it rounds to the next float32
    g = read("0 1 1.00000005960464477539062500000001\n1 2 0.5\n")
    assert g.weights.tolist() == [1.0, 0.5]
    assert g.weights_low.tolist() == [1.0, 0.5] and g.weights_high.tolist() == [np.float32(1 + 2**-23), 0.5]


def test_ids():
    assert read("0 999999999999999999\n").num_vertices == 10**18  # 18 digits: an ID
    assert "not an ID" in refuses("0 1000000000000000000\n")  # 19 digits
    assert "out of range" in refuses("0 -1\n")
    assert edges(read("-0 +1\n")) == [(0, 1, None)]
    assert "not an ID" in refuses("0 1.0\n")


def test_text_rules():
    assert edges(read(b"\xef\xbb\xbf0 1\r\n1 2\r\n")) == [(0, 1, None), (1, 2, None)]
    assert "empty" in refuses(b" \t\r\n\n")
    assert "empty" in refuses(b"\xef\xbb\xbf")
    refuses(b"0 1\x00\n")
    refuses(b"0\x0c1\n")
    refuses(b"0 1\n1\xa02\n")
    assert read(b"# \x00\xff comment\n0 1\n").num_records == 1


def test_gzip():
    members = gzip.compress(b"0 1\n", mtime=0) + gzip.compress(b"1 2\n", mtime=0)
    assert edges(read(members)) == [(0, 1, None), (1, 2, None)]
    assert read(members + b"\x00" * 5).num_records == 2  # zero padding, as Python's gzip reads it
    assert "gzip" in refuses(members[:-3])
    assert "gzip" in refuses(members + b"junk")
    assert read(gzip.compress(b"\xef\xbb\xbf0 1\n"), "g.el").num_records == 1


# -------------------------------------------------------------------------------------------------------- edge lists


def test_edge_list_spec_examples():
    assert edges(read("0 1 # first edge\n")) == [(0, 1, None)]
    g = read("source,target,weight\n0,1,2.5\n1, 2 ,3\n", "g.csv")
    assert edges(g) == [(0, 1, 2.5), (1, 2, 3.0)] and g.directed
    assert read("FromNodeId ToNodeId\n0 1\n").num_records == 1
    assert "line 1" in refuses("0 1x\n")
    assert "line 1" in refuses("0 abc\n")
    for bad in ("0,,1\n", "0,1,\n", ",0,1\n", "0 1,2\n", "source,target\n0,1\n2 3\n"):
        refuses(bad, "g.csv")
    refuses("0 1\n1,2\n")  # a comma in a whitespace-separated file
    refuses("source,,target\n0,1,2\n", "g.csv")  # the field rules hold for the header row too


def test_edge_list_columns():
    refuses("0 1\n", "g.wel")
    assert read("0 1 2\n", "g.wel").weights.tolist() == [2.0]
    refuses("0 1\n1 2 3\n")
    refuses("0\n")
    refuses("0 1 2 3\n")
    refuses("a b c\n0 1\n")  # header of 3 fields over data lines of 2
    assert "no edges" in refuses("# only comments\n\n")
    assert "no edges" in refuses("source target\n")


def test_edge_list_direction():
    assert read("# Undirected graph: x\n0 1\n").directed is False
    assert read("# Directed graph\n0 1\n").directed is True
    assert read("0 1\n").directed is True
    assert read("0 1\n# undirected\n1 2\n").directed is True  # below the first data line
    assert read("# undirected\nsource target\n0 1\n").directed is False
    assert read("# directedness unknown\n# Undirected\n0 1\n").directed is False  # a whole word
    assert read("% UNDIRECTED network\n0 1\n").directed is False
    far = b"#" + b" " * (64 << 10) + b"undirected\n0 1\n"
    assert read(far).directed is False  # no byte bound: every comment line above the data counts


def test_edge_list_counts():
    assert read("# Nodes: 3 Edges: 2\n0 5\n5 9\n").num_vertices == 10  # SNAP: distinct ids, with gaps
    assert read("# Nodes: 20 Edges: 1\n0 5\n").num_vertices == 20  # isolated vertices kept
    assert "Nodes" in refuses("# Nodes: 4\n0 5\n5 9\n")
    assert "Edges" in refuses("# Edges: 3\n0 1\n")
    g = read("# Undirected graph\n# Nodes: 7 Edges: 0\n")
    assert (g.num_vertices, g.num_records, g.directed) == (7, 0, False)
    assert read("# Nodes: 5\nsource target\n").num_vertices == 5
    assert read("# Nodes: 2 Edges: 1\n# Nodes: 9\n0 1\n").num_vertices == 2  # the first occurrence counts
    assert read("# Nodes: 1.5\n# Nodes: 4\n0 1\n").num_vertices == 4  # "1.5" is no count statement
    assert read("# Nodes: -2\n0 1\n").num_vertices == 2  # a count is unsigned: "-2" is no count statement
    assert "Nodes" in refuses("# Nodes: 1234567890123456789\n0 1\n")  # more than 18 digits
    assert read("# SubNodes: 9\n0 1\n").num_vertices == 2


def test_konect():
    g = read("% sym unweighted\n% 2 3 3\n1 2\n2 3\n", "out.x.tsv")
    assert (g.num_vertices, g.directed, edges(g)) == (3, False, [(0, 1, None), (1, 2, None)])
    g = read("% asym positive\n1 2 5 1234567890\n2 1 7 1234567891\n", "out.x.tsv")
    assert (g.num_vertices, g.directed, g.weights.tolist()) == (2, True, [5.0, 7.0])
    assert read("% sym\n% 1 9 9\n1 2\n", "out.x.tsv").num_vertices == 9
    assert "bipartite" in refuses("% bip unweighted\n1 2\n", "out.x.tsv")
    refuses("% sym\n0 1\n", "out.x.tsv")  # 1-based
    refuses("% sym\n% 2 9 9\n1 2\n", "out.x.tsv")  # edge count
    refuses("% sym\n% 1 2 2\n1 3\n", "out.x.tsv")  # id above N
    refuses("% sym\n% 1 2 3\n1 2\n", "out.x.tsv")  # two vertex counts
    refuses("% sym\n1 2 3 x\n", "out.x.tsv")  # timestamp not a REAL
    assert read("% symmetric\n1 2\n", "g.txt").num_vertices == 3  # not KONECT's format line: 0-based


# ------------------------------------------------------------------------------------------------------------ DIMACS


def test_dimacs():
    g = read("c Undirected: both arcs\np sp 3 2\na 1 2 1.5\nc between\n\na 2 3 7\n", "g.gr")
    assert (g.num_vertices, g.directed, edges(g)) == (3, False, [(0, 1, 1.5), (1, 2, 7.0)])
    assert read("p sp 4 0\n", "g.gr").num_vertices == 4
    assert read("p sp 2 1\na 1 2 1\nc undirected\n", "g.gr").directed is True  # below the first arc
    for bad in ("a 1 2 1\np sp 2 1\n", "p sp 2 1\np sp 2 1\na 1 2 1\n", "p sp 2 1\na 1 3 1\n", "p sp 2 1\na 0 1 1\n",
                "p sp 2 2\na 1 2 1\n", "p sp 2 1\na 1 2\n", "p sp 2 1\na 1 2 1 1\n", "p sp 2 1\nx\na 1 2 1\n",
                "p max 2 1\na 1 2 1\n", "p sp 2\n", "c only\n", "p sp 2 1\na1 2 1\n", "p sp 2 1\na 1 2 inf\n"):
        refuses(bad, "g.gr")


# ------------------------------------------------------------------------------------------------------------- METIS


def test_metis():
    g = read("% path\n3 2\n2\n1 3\n2\n", "g.graph")
    assert (g.num_vertices, g.directed, g.weights) == (3, False, None)
    assert sorted(edges(g)) == [(0, 1, None), (1, 0, None), (1, 2, None), (2, 1, None)]
    assert read("3 1 1\n2 5\n1 5\n\n", "g.graph").weights.tolist() == [5.0, 5.0]  # blank: an isolated vertex
    assert read("2 1 11 2\n1 2 2 7\n3 4 1 7\n", "g.graph").num_records == 2  # ncon=2 vertex weights
    assert read("2 1 100\n9 2\n9 1\n\n  \n% end\n", "g.graph").num_records == 2  # sizes; trailing blanks
    assert read("0 0\n", "g.graph").num_vertices == 0
    for bad in ("3 2\n2\n1 3\n", "2 1\n2\n1\n1\n", "2 1\n1\n2\n", "2 1\n2\n\n", "2 1 1\n2 5\n1 4\n", "2 1 1\n2\n1 4\n",
                "2 1 010\n2\n1\n", "2 1 2\n2\n1\n", "2 1 1 0 0\n2 1\n1 1\n", "2 2\n2\n1\n", "2 1\n3\n1\n",
                "2 1\n2 % c\n1\n", "% only\n"):
        refuses(bad, "g.graph")


# ----------------------------------------------------------------------------------------------------- Matrix Market


def test_matrix_market():
    g = read("%%MatrixMarket matrix coordinate integer symmetric\n% c\n\n3 3 2\n2 1 4\n2 3 -5\n", "g.mtx")
    assert (g.num_vertices, g.directed, edges(g)) == (3, False, [(1, 0, 4.0), (1, 2, -5.0)])
    g = read("%%matrixmarket MATRIX Coordinate Pattern General\n2 2 1\n1 2\n", "g.mtx")
    assert (g.directed, g.weights) == (True, None)
    assert read("%%MatrixMarket matrix coordinate double general\n2 2 1\n1 2 .5\n", "g.mtx").weights.tolist() == [0.5]
    assert read("%%MatrixMarket matrix coordinate real general\n5 5 0\n", "g.mtx").num_vertices == 5
    banner = "%%MatrixMarket matrix coordinate {} {}\n"
    for bad in (banner.format("real", "skew-symmetric") + "2 2 0\n", banner.format("complex", "general") + "2 2 0\n",
                banner.format("real", "hermitian") + "2 2 0\n", "%%MatrixMarket matrix array real general\n2 2\n",
                banner.format("real", "general") + "2 3 0\n", banner.format("real", "general") + "2 2 2\n1 2 1\n",
                banner.format("real", "general") + "2 2 1\n1 2 1\n2 1 1\n", banner.format("integer", "general") +
                "2 2 1\n1 2 1.5\n", banner.format("pattern", "general") + "2 2 1\n1 2 1\n",
                banner.format("real", "general") + "2 2 1\n0 1 1\n", banner.format("real", "general") + "2 2 1\n3 1 1\n",
                "%%MatrixMarket matrix coordinate real\n2 2 0\n", banner.format("real", "general")):
        refuses(bad, "g.mtx")


def test_matrix_market_without_banner():
    g = read("% no banner\n3 3 2\n1 2\n3 2\n", "g.mtx")
    assert (g.num_vertices, g.directed, edges(g)) == (3, True, [(0, 1, None), (2, 1, None)])
    g = read("1 2 0.5\n4 1 2\n", "g.mtx")  # no size line: largest id vertices
    assert (g.num_vertices, g.weights.tolist()) == (4, [0.5, 2.0])
    assert read("7 7 0\n", "g.mtx").num_vertices == 7
    refuses("1 2 3\n2 3 4\n3 1 5\n1 3 2\n", "g.mtx")  # "1 2 3" is a size line (3 lines follow): not square
    refuses("3 3 1\n1 4\n", "g.mtx")  # above the size line's rows
    refuses("1 2\n1 2 3\n", "g.mtx")  # entries alike
    refuses("0 1\n", "g.mtx")
    refuses("% only comments\n", "g.mtx")


# ---------------------------------------------------------------------------------------------------------------- npz


def npz_file(arrays: dict, **replace) -> bytes:
    arrays = {**arrays, **replace}
    return seeds.zip_members({f"{k}.npy": seeds.npy_bytes(v) for k, v in arrays.items() if v is not None})


@pytest.fixture
def graph_arrays() -> dict:
    """An undirected weighted triangle with a pendant vertex, as graphgear stores it."""
    return {"format": np.array("graphgear-csr"), "version": np.array(1), "offsets": np.array([0, 2, 4, 7, 8]),
            "indices": np.array([1, 2, 0, 2, 0, 1, 3, 2], dtype=np.int32), "directed": np.array(False),
            "counts": np.array([0, 0]), "name": np.array("t"),
            "weights": np.array([1, 2, 1, 3, 2, 3, 4, 4], dtype=np.float32)}


def test_npz(graph_arrays):
    g = read(npz_file(graph_arrays), "g.npz")
    assert (g.num_vertices, g.directed, g.num_records) == (4, False, 8)
    assert ref.expected_graph(g).indices.tolist() == [1, 2, 0, 2, 0, 1, 3, 2]
    assert read(npz_file(graph_arrays, weights=None, extra=np.arange(2)), "g.npz").weights is None
    big = {k: v.astype(v.dtype.newbyteorder(">")) for k, v in graph_arrays.items() if v.dtype.kind in "if"}
    assert read(npz_file(graph_arrays, **big), "g.npz").num_records == 8
    assert read(npz_file(graph_arrays, vertex_ids=np.array(["a", "b", "c", "d"])), "g.npz").num_vertices == 4
    loop = {"offsets": np.array([0, 3, 5, 8, 9]), "indices": np.array([0, 1, 2, 0, 2, 0, 1, 3, 2]),
            "weights": np.array([9, 1, 2, 1, 3, 2, 3, 4, 4], dtype=np.float32)}
    assert read(npz_file(graph_arrays, **loop), "g.npz").num_records == 9  # a self-loop kept: stored as it is


@pytest.mark.parametrize("key, value", [
    ("offsets", np.array([0, 2, 4, 7, 8], dtype=np.float64)), ("indices", np.array([1, 2, 0, 2, 0, 1, 3, 2.0])),
    ("directed", np.array(1)), ("version", np.array(2)), ("format", np.array("graphgear-csc")),
    ("counts", np.array([0, 0, 0])), ("offsets", np.array([1, 2, 4, 7, 8])), ("offsets", np.array([0, 4, 2, 7, 8])),
    ("offsets", np.array([0, 2, 4, 7, 9])), ("indices", np.array([1, 2, 0, 2, 0, 1, 3, 4], dtype=np.int32)),
    ("indices", np.array([2, 1, 0, 2, 0, 1, 3, 2], dtype=np.int32)),  # row 0 unsorted
    ("weights", np.array([1, 2, 1, 3, 2, 3, 4, np.nan], dtype=np.float32)),
    ("weights", np.array([1, 2, 1, 3, 2, 3, 4, 5], dtype=np.float32)),  # asymmetric
    ("weights", np.array([1, 2, 1, 3, 2, 3, 4, 4], dtype=np.int64)), ("name", None),
    ("weights", np.array([1, 2, 1, 3, 2, 3, 4, 1e39], dtype=np.float64)), ("counts", np.array([0, -1])),
    ("offsets", np.array([0, 2, 4, 7, 2**63], dtype=np.uint64)), ("vertex_ids", np.array([1.0, 2, np.nan, 3])),
    ("vertex_ids", np.array([1, 2, 2, 3])), ("vertex_ids", np.array([1, 2, 3])),
    ("vertex_ids", np.array(["a", None, "c", "d"], dtype=object)), ("offsets", np.array([[0, 2, 4, 7, 8]])),
])
def test_npz_refused(graph_arrays, key, value):
    refuses(npz_file(graph_arrays, **{key: value}), "g.npz")


@pytest.mark.parametrize("key, value", [
    ("offsets", np.array([0, 2, 4, 7, 8], dtype=np.int32)), ("offsets", np.array([0, 2, 4, 7, 8], dtype=np.uint16)),
    ("indices", np.array([1, 2, 0, 2, 0, 1, 3, 2], dtype=np.int16)),
    ("weights", np.array([1, 2, 1, 3, 2, 3, 4, 4], dtype=np.float64)),
    ("weights", np.array([1, 2, 1, 3, 2, 3, 4, 4], dtype=np.float16)),
])
def test_npz_other_numeric_dtypes_read(graph_arrays, key, value):
    """Any integer dtype for offsets and indices, any float dtype for weights (converted, checked finite)."""
    plain = read(npz_file(graph_arrays), "g.npz")
    other = read(npz_file(graph_arrays, **{key: value}), "g.npz")
    assert np.array_equal(plain.src, other.src) and np.array_equal(plain.dst, other.dst)
    assert np.array_equal(plain.weights, other.weights)


def test_npz_containers(graph_arrays):
    data = npz_file(graph_arrays)
    assert "zip" in refuses(data[:-30], "g.npz")
    members = {f"{k}.npy": seeds.npy_bytes(v) for k, v in graph_arrays.items()}
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<i8", "fortran_order": False, "shape": (2**40,)})
    members["offsets.npy"] = header.getvalue() + graph_arrays["offsets"].tobytes()
    assert "member size" in refuses(seeds.zip_members(members), "g.npz")
    members = {f"{k}.npy": seeds.npy_bytes(v, (3, 0)) for k, v in graph_arrays.items()}
    assert read(seeds.zip_members(members, zipfile.ZIP_DEFLATED), "g.npz").num_records == 8


# ------------------------------------------------------------------------------------------- the reference at scale


@pytest.mark.parametrize("name", ["road/malta_osm.gr.gz", "social/facebook_combined.txt.gz", "mesh/delaunay_n15.graph"])
def test_reference_reads_real_graphs(name):
    path = SHARED_GRAPHS / name
    if not path.exists():
        pytest.skip(f"{path} is not here")
    vertices, edge_count, directed, weighted, *_ = REAL_GRAPHS[name]
    g = ref.expected_graph(ref.read_file(str(path)))
    assert (g.num_vertices, g.num_edges, g.directed, g.weights is not None) == (vertices, edge_count, directed, weighted)


# ---------------------------------------------------------------------------------------------------- the fuzzer


def test_cases_are_reproducible():
    with tempfile.TemporaryDirectory() as scratch:
        for fmt in seeds.FORMATS:
            a, b = make_case(fmt, 7, Path(scratch)), make_case(fmt, 7, Path(scratch))
            assert (a.name, a.data, a.chunk_bytes, a.notes) == (b.name, b.data, b.chunk_bytes, b.notes)


@pytest.mark.parametrize("fmt", [f for f in seeds.FILE_NAMES])
def test_seeds_are_valid(fmt):
    """Unmutated seeds (gg.save's and handmade) are graphs the reference reads (METIS's and the banner-less Matrix
    Market's random graphs may hit a rule: most, not all)."""
    accepted = 0
    with tempfile.TemporaryDirectory() as scratch:
        for seed in range(40):
            data, name, _ = seeds.seed_file(fmt, random.Random(f"valid:{fmt}:{seed}"), Path(scratch))
            try:
                ref.read(data, name)
                accepted += 1
            except ref.ReferenceFormatError:
                pass
    assert accepted >= 36


def test_chunk_cuts():
    assert mutate.chunk_cuts(100, 16) == sorted({16, 32, 48, 64, 80, 96} | {100 * k // 7 for k in range(1, 7)})
    assert mutate.chunk_cuts(10, 16) == []


def test_judge_compares_exactly(graph_arrays):
    import graphgear as gg

    r = read("0 1 2.5\n1 0 2.5\n0 1 1.5\n")
    g = gg.Graph.from_edges([0, 1], [1, 0], [1.5, 2.5], num_vertices=2)
    assert compare(r, g) is None
    assert "weights" in compare(r, gg.Graph.from_edges([0, 1], [1, 0], [1.5, 2.0], num_vertices=2))
    assert "num_vertices" in compare(r, gg.Graph.from_edges([0, 1], [1, 0], [1.5, 2.5], num_vertices=3))
    assert signature("disagree", "line 12: 'x' 3 vs 4") == "disagree: line N: '…' N vs N"


def test_runner_survives_crashes_and_hangs():
    results = runner.run_cases(["selftest:crash", "el:0", "selftest:hang", "el:1"], workers=1, timeout=5)
    outcomes = [r.outcome for r in results]
    assert outcomes[0] == "crash" and "SIGSEGV" in results[0].reason
    assert outcomes[2] == "hang"
    assert outcomes[1] not in ("crash", "hang") and outcomes[3] not in ("crash", "hang")


def test_fuzz_run():
    cases = int(os.environ.get("GRAPHGEAR_FUZZ_CASES", str(DEFAULT_CASES)))
    workers = int(os.environ.get("GRAPHGEAR_FUZZ_WORKERS", "2"))
    first = int(os.environ.get("GRAPHGEAR_FUZZ_SEED", "0"))
    timeout = float(os.environ.get("GRAPHGEAR_FUZZ_TIMEOUT", str(runner.CASE_TIMEOUT)))
    results = runner.run_cases(runner.case_ids(cases, start=first), workers=workers, timeout=timeout)
    assert len(results) == cases
    bad = [r for r in results if r.outcome in FAILURES]
    assert not bad, "\n" + runner.failure_report(results)
