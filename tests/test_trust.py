"""Trust every input (issue 21): each failure a new user met with files, caches, weights and outputs, as a test.

The sections follow the issue's list: the Matrix Market crashes, the cache, edge lists, numbers, NaN weights, memory,
outputs, misuse, Matrix Market files without their banner. Argument errors of the algorithms are in
test_arguments.py, the output writer's own rules in test_output.py, generator specs in test_memory.py.
"""

from __future__ import annotations

import gzip
import os
import shutil
import subprocess
import sys
import textwrap
import time
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pytest

import graphgear as gg
from graphgear.errors import (CacheWarning, FileError, FormatWarning, GraphError, GraphFormatError, GraphgearError,
                              HostMemoryError)
from graphgear.graph import io as gio

REPO = Path(__file__).resolve().parents[1]


def write(path: Path, content: str | bytes) -> Path:
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    return path


def load_error(path: Path, **options) -> GraphFormatError:
    with pytest.raises(GraphFormatError) as info:
        gg.load(path, cache=False, **options)
    return info.value


def same_graph(a: gg.Graph, b: gg.Graph) -> bool:
    return (a.num_vertices == b.num_vertices and a.directed == b.directed and np.array_equal(a.offsets, b.offsets)
            and np.array_equal(a.indices, b.indices) and (a.weights is None) == (b.weights is None)
            and (a.weights is None or np.array_equal(a.weights, b.weights)))


# ------------------------------------------------------------------- 1. Matrix Market input that crashed SciPy's reader

MTX_CRASHERS = {
    # SciPy's fast_matrix_market took the interpreter down (SIGSEGV) on these
    "trailing_blank": (b"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 0.5 ", 1),
    "trailing_junk": (b"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 0.5 x", None),
    "nul_after_number": (b"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 0.5\x00\n", None),
    "nul_after_id": (b"%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1\x00 2\n", None),
}


@pytest.mark.parametrize("name", sorted(MTX_CRASHERS))
def test_matrix_market_input_that_crashed_the_interpreter(tmp_path, name):
    content, edges = MTX_CRASHERS[name]
    path = write(tmp_path / f"{name}.mtx", content)
    program = textwrap.dedent(f"""
        import graphgear as gg
        from graphgear.errors import GraphFormatError
        try:
            g = gg.load({str(path)!r}, cache=False)
            print("graph", g.num_edges)
        except GraphFormatError as exc:
            print("error", exc.line)
    """)
    run = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr  # not killed by a signal, no foreign exception
    assert run.stdout.split() == (["graph", str(edges)] if edges is not None else ["error", "3"])


# -------------------------------------------------------------------------------------------------------- 2. the cache


def cached_entries() -> list[Path]:
    return sorted(p for p in gio.cache_dir().glob("*.npz"))


def test_cache_not_fooled_by_a_rewrite_with_the_same_size_and_mtime(tmp_path):
    path = write(tmp_path / "g.el", "0 1\n1 2\n")
    assert gg.load(path, cache=True).num_edges == 2
    st = os.stat(path)
    write(path, "0 1\n2 3\n")  # same size
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))  # same mtime
    assert os.stat(path).st_size == st.st_size and os.stat(path).st_mtime_ns == st.st_mtime_ns
    with pytest.warns(CacheWarning, match="source changed"):
        g = gg.load(path, cache=True)
    assert g.num_vertices == 4 and g.indices.tolist() == [1, 3]


def two_cached_graphs(tmp_path: Path) -> tuple[Path, Path, Path, Path]:
    a = write(tmp_path / "a.el", "# Undirected graph\n0 1\n1 2\n2 0\n")
    b = write(tmp_path / "b.el", "0 1 2.5\n1 2 4\n")
    gg.load(a, cache=True)
    (entry_a,) = cached_entries()
    gg.load(b, cache=True)
    (entry_b,) = [p for p in cached_entries() if p != entry_a]
    return a, b, entry_a, entry_b


def test_cache_entry_swapped_for_another_graphs_entry(tmp_path):
    a, _, entry_a, entry_b = two_cached_graphs(tmp_path)
    expected = gg.load(a, cache=False)
    shutil.copyfile(entry_b, entry_a)
    with pytest.warns(CacheWarning):
        g = gg.load(a, cache=True)
    assert same_graph(g, expected)
    with warnings.catch_warnings():  # rewritten: the next load verifies
        warnings.simplefilter("error")
        assert same_graph(gg.load(a, cache=True), expected)


def flip_bit(path: Path, offset: int, bit: int = 0) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= 1 << bit
    path.write_bytes(bytes(data))


def test_cache_entry_with_a_bit_flipped_in_its_zip_directory(tmp_path):
    a, _, entry_a, _ = two_cached_graphs(tmp_path)
    expected = gg.load(a, cache=False)
    original = entry_a.read_bytes()
    record = original.find(b"PK\x01\x02")  # the first central directory record (a member's data, not the manifest)
    while original[record + 46 : record + 46 + len(b"indices")] != b"indices":
        record = original.find(b"PK\x01\x02", record + 4)
    for offset in (16, 46, 52):  # its CRC-32, its name, its name's extension: each must be noticed
        flip_bit(entry_a, record + offset, 2)
        with pytest.warns(CacheWarning):
            assert same_graph(gg.load(a, cache=True), expected)
        with warnings.catch_warnings():  # rewritten: it verifies again
            warnings.simplefilter("error")
            assert same_graph(gg.load(a, cache=True), expected)
        entry_a.write_bytes(original)
    for offset in range(len(original)):  # every byte of the directory and its end record: never another graph
        if offset < record:
            continue
        flip_bit(entry_a, offset, offset % 8)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", CacheWarning)  # some fields are not read (versions, a stored size)
            assert same_graph(gg.load(a, cache=True), expected), offset
        entry_a.write_bytes(original)


def test_cache_entry_with_a_bit_flipped_anywhere(tmp_path):
    a, _, entry_a, _ = two_cached_graphs(tmp_path)
    expected = gg.load(a, cache=False)
    size = entry_a.stat().st_size
    rng = np.random.default_rng(0)
    for offset in rng.choice(size, 40, replace=False).tolist():
        gg.load(a, cache=True)  # a verified entry
        original = entry_a.read_bytes()
        flip_bit(entry_a, offset, int(rng.integers(8)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", CacheWarning)  # some flips (zip padding, a comment) change nothing read
            g = gg.load(a, cache=True)
        assert same_graph(g, expected), offset
        entry_a.write_bytes(original)


def replace_member(entry: Path, name: str, array: np.ndarray) -> None:
    """Rewrite one member of a cache entry (keeping its manifest): what a tool or a stray script might do."""
    with zipfile.ZipFile(entry) as zf:
        members = {i.filename: zf.read(i.filename) for i in zf.infolist()}
    import io

    out = io.BytesIO()
    np.lib.format.write_array(out, array, allow_pickle=False)
    members[f"{name}.npy"] = out.getvalue()
    with zipfile.ZipFile(entry, "w") as zf:
        for member, data in members.items():
            zf.writestr(member, data)


def test_cache_entry_with_its_directed_flag_flipped(tmp_path):
    a, _, entry_a, _ = two_cached_graphs(tmp_path)
    expected = gg.load(a, cache=False)
    assert not expected.directed
    replace_member(entry_a, "directed", np.array(True))
    with pytest.warns(CacheWarning, match="directed"):
        g = gg.load(a, cache=True)
    assert same_graph(g, expected)


def test_cache_entry_with_nan_weights(tmp_path):
    _, b, _, entry_b = two_cached_graphs(tmp_path)
    expected = gg.load(b, cache=False)
    replace_member(entry_b, "weights", np.full(expected.num_arcs, np.nan, np.float32))
    with pytest.warns(CacheWarning, match="weights"):
        g = gg.load(b, cache=True)
    assert same_graph(g, expected) and np.isfinite(g.weights).all()


@pytest.mark.parametrize("keep", [0, 10, 100, 0.5, 0.9])
def test_truncated_cache_entry_is_parsed_again(tmp_path, keep):
    a, _, entry_a, _ = two_cached_graphs(tmp_path)
    expected = gg.load(a, cache=False)
    data = entry_a.read_bytes()
    entry_a.write_bytes(data[: keep if isinstance(keep, int) else int(len(data) * keep)])
    with pytest.warns(CacheWarning):
        assert same_graph(gg.load(a, cache=True), expected)


def test_damaged_cache_entry_is_parsed_again(tmp_path):
    a, _, entry_a, _ = two_cached_graphs(tmp_path)
    expected = gg.load(a, cache=False)
    data = bytearray(entry_a.read_bytes())
    data[len(data) // 3 : len(data) // 3 + 64] = np.random.default_rng(1).bytes(64)
    entry_a.write_bytes(bytes(data))
    with pytest.warns(CacheWarning):
        assert same_graph(gg.load(a, cache=True), expected)


def test_unwritable_cache_folder_warns_and_loads(tmp_path, monkeypatch):
    blocker = write(tmp_path / "not_a_folder", "x")
    monkeypatch.setenv("GRAPHGEAR_CACHE_DIR", str(blocker / "cache"))  # its parent is a file: nothing can be made
    path = write(tmp_path / "g.el", "0 1\n1 2\n")
    with pytest.warns(CacheWarning, match="could not write"):
        g = gg.load(path, cache=True)
    assert g.num_edges == 2


def test_full_disk_while_writing_the_cache_warns_and_loads(tmp_path, monkeypatch):
    import errno

    from graphgear.graph.io import npz

    def full(graph, f, manifest=None):
        f.write(b"PK")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(npz, "write_npz", full)
    path = write(tmp_path / "g.el", "0 1\n1 2\n")
    with pytest.warns(CacheWarning, match="No space left"):
        assert gg.load(path, cache=True).num_edges == 2
    assert not list(gio.cache_dir().iterdir()) or not [p for p in gio.cache_dir().iterdir() if p.suffix == ".tmp"]


def test_cache_files_respect_the_umask(tmp_path):
    old = os.umask(0o022)
    try:
        gg.load(write(tmp_path / "g.el", "0 1\n"), cache=True)
    finally:
        os.umask(old)
    (entry,) = cached_entries()
    assert entry.stat().st_mode & 0o777 == 0o644


def test_stale_cache_temporaries_are_cleaned(tmp_path):
    import socket

    folder = gio.cache_dir()
    folder.mkdir(parents=True, exist_ok=True)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    stale = folder / f".x.npz.graphgear-{socket.gethostname()}-{dead.stdout.strip()}-abc123.tmp"
    old = folder / ".y.npz.graphgear-otherhost-1-def456.tmp"
    for p in (stale, old):
        p.write_bytes(b"x" * 1000)
    os.utime(old, (time.time() - 3 * 86400,) * 2)
    gg.load(write(tmp_path / "g.el", "0 1\n"), cache=True)
    assert not stale.exists() and not old.exists()


def test_import_without_a_writable_numba_cache(tmp_path):
    """numba's cache falls back to a temporary folder (graphgear._numba_cache; more in test_numba_cache.py)."""
    home = tmp_path / "home"
    home.mkdir()
    package = Path(gg.__file__).parent
    program = textwrap.dedent(f"""
        import tempfile
        real = tempfile.TemporaryFile
        def refuse(*args, dir=None, **kwargs):
            if dir is not None and (str(dir).startswith({str(package)!r}) or str(dir).startswith({str(home)!r})):
                raise PermissionError(13, "Permission denied", dir)
            return real(*args, dir=dir, **kwargs)
        tempfile.TemporaryFile = refuse
        import graphgear as gg
        print(gg.bfs(gg.load("grid:4:4"), 0).distances.max())
    """)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_CACHE", "XDG_CACHE"))}
    env["HOME"] = str(home)
    run = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, env=env, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip() == "6"


# --------------------------------------------------------------------------------------------------------- 3. edge lists


def test_edge_list_with_a_byte_order_mark(tmp_path):
    g = gg.load(write(tmp_path / "bom.el", b"\xef\xbb\xbf0 1\n1 2\n"), cache=False)
    assert g.num_edges == 2 and g.indices.tolist() == [1, 2]
    g = gg.load(write(tmp_path / "bom.csv", b"\xef\xbb\xbfsource,target\n0,1\n"), cache=False)
    assert g.num_edges == 1


def test_first_line_with_an_inline_comment_is_data(tmp_path):
    g = gg.load(write(tmp_path / "c.el", "0 1 # the first edge\n1 2 % another\n# a comment line\n2 3#tight\n"),
                cache=False)
    assert g.num_edges == 3 and g.indices.tolist() == [1, 2, 3]


@pytest.mark.parametrize("first", ["0 1x", "0 abc", "0x 1", "1 2 3x"])
def test_first_line_with_a_bad_field_is_an_error_not_a_header(tmp_path, first):
    err = load_error(write(tmp_path / "bad.el", f"{first}\n1 2\n2 3\n"))
    assert err.line == 1 and err.text == first


def test_header_row_only_when_no_field_is_a_number(tmp_path):
    g = gg.load(write(tmp_path / "h.csv", "source,target,weight\n0,1,2.5\n"), cache=False)
    assert g.weights.tolist() == [2.5]
    err = load_error(write(tmp_path / "h2.csv", "source,target\n0,1,2\n"))
    assert err.line == 1 and "header row names 2 columns" in str(err)


@pytest.mark.parametrize("line", ["0,,1", "0,1,", ",0,1", "0, ,1", "0,1,,"])
def test_empty_csv_field_is_an_error(tmp_path, line):
    err = load_error(write(tmp_path / "e.csv", f"0,1\n{line}\n"))
    assert err.line == 2 and err.text == line
    err = load_error(write(tmp_path / "e1.csv", f"{line}\n0,1\n"))
    assert err.line == 1


def test_two_values_in_one_csv_field_is_an_error(tmp_path):
    err = load_error(write(tmp_path / "t.csv", "0,1\n0 1,2\n"))
    assert err.line == 2 and "two values" in str(err)


def test_node_count_that_disagrees_with_the_body(tmp_path):
    err = load_error(write(tmp_path / "n.el", "# Nodes: 2\n0 1\n1 5\n"))
    assert err.line == 1 and "2 nodes" in str(err) and "3 distinct" in str(err)
    # graphgear's own files: isolated vertices up to the count; SNAP's: the count of distinct ids (gaps allowed)
    assert gg.load(write(tmp_path / "iso.el", "# Nodes: 10\n0 1\n"), cache=False).num_vertices == 10
    gaps = write(tmp_path / "gaps.el", "# Nodes: 3\n0 1\n1 7\n")
    assert gg.load(gaps, cache=False, renumber=False).num_vertices == 8
    # issue 22 changed the default: SNAP's count declares no vertex, so the gaps are renumbered away (the ids kept)
    assert gg.load(gaps, cache=False).vertex_ids.tolist() == [0, 1, 7]


def test_edge_count_that_disagrees_with_the_body(tmp_path):
    err = load_error(write(tmp_path / "m.el", "# Nodes: 3 Edges: 3\n0 1\n1 2\n"))
    assert err.line == 1 and "3 edges" in str(err) and "2 edge lines" in str(err)


def test_konect_files_are_one_based_and_checked(tmp_path):
    g = gg.load(write(tmp_path / "out.k", "% sym unweighted\n% 2 3 3\n1 2\n2 3\n"), cache=False)
    assert (g.num_vertices, g.num_edges, g.directed) == (3, 2, False)
    g = gg.load(write(tmp_path / "out.t", "% asym positive\n1 2 5 1234567\n2 1 7 1234568\n"), cache=False)
    assert g.directed and g.weights.tolist() == [5.0, 7.0]
    assert "bipartite" in str(load_error(write(tmp_path / "out.b", "% bip unweighted\n1 1\n")))
    assert "3 edges" in str(load_error(write(tmp_path / "out.c", "% sym unweighted\n% 3 3 3\n1 2\n")))


# ----------------------------------------------------------------------------------------------------------- 4. numbers

NUMBERS = [
    ("int_field.mtx", "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 2 1.5\n", 3),
    ("t.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 0t2.5\n", 3),
    ("dash.mtx", "%%MatrixMarket matrix coordinate real general\n100 100 1\n5 1-73\n", 3),  # was 5 -> 1, weight -73
    ("dash3.mtx", "%%MatrixMarket matrix coordinate pattern general\n100 100 1\n1 2 1-73\n", 3),
    ("dash2.mtx", "%%MatrixMarket matrix coordinate pattern general\n100 100 1\n1-73\n", 3),
    ("t.el", "0 1 0t2.5\n", 1),
    ("dash.el", "0 1\n1-73\n", 2),
    ("dash.gr", "p sp 80 1\na 1-73 1\n", 2),
    ("hex.el", "0 1 0x10\n", 1),
    ("inf.el", "0 1 inf\n", 1),
    ("nan.el", "0 1 nan\n", 1),
    ("under.el", "0 1 1_000\n", 1),
    ("dots.el", "0 1 1.2.3\n", 1),
    ("exp.el", "0 1 1e\n", 1),
]


@pytest.mark.parametrize("name,content,line", NUMBERS, ids=[n[0] for n in NUMBERS])
def test_numbers_are_read_strictly(tmp_path, name, content, line):
    err = load_error(write(tmp_path / name, content))
    assert err.line == line and err.text == content.splitlines()[line - 1]


def test_metis_adjacency_must_be_symmetric(tmp_path):
    err = load_error(write(tmp_path / "a.graph", "3 1\n2\n3\n\n"))  # 1 lists 2, 2 lists 3
    assert "symmetric" in str(err) and err.line in (2, 3)
    err = load_error(write(tmp_path / "w.graph", "2 1 1\n2 5\n1 6\n"))  # weights differ
    assert "symmetric" in str(err) and "weight" in str(err)


def test_metis_self_loops_are_refused(tmp_path):
    err = load_error(write(tmp_path / "l.graph", "2 2\n1 2\n1 2\n"))
    assert "lists itself" in str(err) and err.line == 2


@pytest.mark.parametrize("suffix,content,line", [
    (".el", "0 1 1\n1 2 1e39\n", 2),
    (".gr", "p sp 3 2\na 1 2 1\na 2 3 -4e38\n", 3),
    (".mtx", "%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 2 999999999999999999999999999999999999999\n", 3),
    (".mtx", "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 2 3.5e38\n", 3),
])
def test_weights_that_overflow_float32_name_file_and_line(tmp_path, suffix, content, line):
    err = load_error(write(tmp_path / f"big{suffix}", content))
    assert err.line == line and "float32" in str(err) and f"big{suffix}" in str(err)


def test_valid_extreme_numbers(tmp_path):
    g = gg.load(write(tmp_path / "x.el", "0 1 0e999\n1 2 1e-999\n2 3 -0.0\n3 4 3.4028234e38\n4 5 .5\n5 6 7.\n"),
                cache=False)
    assert g.weights.tolist() == [0.0, 0.0, 0.0, float(np.float32(3.4028234e38)), 0.5, 7.0]


# ---------------------------------------------------------------------------------------------- 5. NaN and inf weights


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_npz_with_non_finite_weights_is_refused(tmp_path, bad):
    g = gg.Graph.from_edges([0, 1], [1, 2], [1.0, 2.0])
    path = tmp_path / "g.npz"
    gg.save(g, path)
    with np.load(path) as data:
        arrays = {k: data[k] for k in data.files}
    arrays["weights"] = np.array([1.0, bad], np.float32)
    np.savez(path, **arrays)
    with pytest.raises(GraphFormatError, match=r"weights\[1\]"):
        gg.load(path)


def test_npz_is_validated(tmp_path):
    g = gg.Graph.from_edges([0, 1, 2], [1, 2, 0], [1.0, 2.0, 3.0], directed=False)
    path = tmp_path / "g.npz"
    gg.save(g, path)
    with np.load(path) as data:
        good = {k: data[k] for k in data.files}
    cases = {
        "asymmetric": dict(weights=np.array([1, 3, 1, 2, 2, 9], np.float32)),
        "unsorted": dict(indices=np.array([2, 1, 0, 2, 0, 1], np.int32)),
        "range": dict(indices=np.array([1, 2, 0, 2, 0, 7], np.int32)),
        "offsets": dict(offsets=np.array([0, 2, 1, 6], np.int64)),
        "dtype": dict(offsets=np.array([0.0, 2, 4, 6])),
        "shape": dict(weights=np.ones((2, 3), np.float32)),
        "labels": dict(vertex_ids=np.array(["a", "a", "b"])),
    }
    for name, change in cases.items():
        np.savez(path, **{**good, **change})
        with pytest.raises(GraphFormatError):
            gg.load(path)
    np.savez(path, **good)
    assert same_graph(gg.load(path), g)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf, 1e39])
def test_graph_constructor_refuses_non_finite_weights(bad):
    """More in test_constructors.py; SSSP then never sees a NaN (it reported reachable vertices as unreachable)."""
    with pytest.raises(GraphError, match=r"weights\[1\]"):
        gg.Graph(np.array([0, 1, 2, 2]), np.array([1, 2]), np.array([1.0, bad]))
    with pytest.raises(GraphError, match=r"weights\[1\]"):
        gg.Graph.from_edges([0, 1], [1, 2], [1.0, bad])


# ----------------------------------------------------------------------------------------------------------- 6. memory


def test_sixteen_byte_file_naming_vertex_2_to_the_40(tmp_path):
    path = write(tmp_path / "v.el", "0 1099511627776\n")
    assert path.stat().st_size == 16
    start = time.perf_counter()
    with pytest.raises(HostMemoryError) as info:
        gg.load(path, cache=False)
    assert time.perf_counter() - start < 5
    err = info.value
    assert err.line == 1 and "bytes" in str(err) and "v.el" in str(err)


@pytest.mark.parametrize("name,content", [
    ("h.gr", "p sp 2147483648 1\na 1 2 1\n"),
    ("h.mtx", "%%MatrixMarket matrix coordinate pattern general\n2147483648 2147483648 1\n1 2\n"),
    ("h.graph", "2147483648 1\n2\n1\n"),
    ("h.el", "# Nodes: 2147483648\n0 1\n"),
])
def test_header_claiming_two_to_the_31_vertices(tmp_path, monkeypatch, name, content):
    monkeypatch.setenv("GRAPHGEAR_MEMORY_LIMIT", "4G")
    with pytest.raises(HostMemoryError) as info:
        gg.load(write(tmp_path / name, content), cache=False)
    assert "2,147,483,648" in str(info.value) and name in str(info.value)


def test_npz_header_claiming_two_to_the_40_elements(tmp_path):
    import io

    g = gg.Graph.from_edges([0, 1], [1, 2])
    path = tmp_path / "g.npz"
    gg.save(g, path)
    with zipfile.ZipFile(path) as zf:
        members = {i.filename: zf.read(i.filename) for i in zf.infolist()}
    header = np.lib.format.header_data_from_array_1_0(g.indices)
    header["shape"] = (2**40,)
    claim = io.BytesIO()
    np.lib.format.write_array_header_1_0(claim, header)
    members["indices.npy"] = claim.getvalue() + g.indices.tobytes()  # a header claiming 2^40 ids, 2 ids of data
    with zipfile.ZipFile(path, "w") as zf:
        for member, data in members.items():
            zf.writestr(member, data)
    with pytest.raises(GraphFormatError, match="1099511627776"):
        gg.load(path)


def test_gzip_bomb_is_refused_under_the_bound(tmp_path, monkeypatch):
    import tracemalloc

    monkeypatch.setenv("GRAPHGEAR_MEMORY_LIMIT", "64M")
    line = b"0 1\n" * 1024
    z = gzip.compress(line * 256, 9)  # 1 MiB of text
    path = tmp_path / "bomb.el.gz"
    with gzip.open(path, "wb", 9) as f:
        for _ in range(1024):  # 1 GiB of text, a few MB compressed
            f.write(line * 256)
    assert path.stat().st_size < 8 << 20 and len(z) < 8 << 10
    tracemalloc.start()
    try:
        with pytest.raises(HostMemoryError) as info:
            gg.load(path, cache=False)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "bomb.el.gz" in str(info.value) and "decompressed" in str(info.value)
    assert peak < 200 << 20


def test_generator_spec_checked_against_this_machines_memory(monkeypatch):
    """kron:26 ran to 18 GiB before failing (a fixed 64 GiB limit); more cases in test_memory.py."""
    monkeypatch.setenv("GRAPHGEAR_MEMORY_LIMIT", "4G")
    start = time.perf_counter()
    with pytest.raises(HostMemoryError, match="kron:26"):
        gg.load("kron:26")
    assert time.perf_counter() - start < 5


@pytest.mark.parametrize("kind", ["fifo", "device", "folder"])
def test_special_files_are_refused_without_blocking(tmp_path, kind):
    if kind == "fifo":
        path = tmp_path / "pipe.el"
        os.mkfifo(path)
    elif kind == "device":
        path = Path("/dev/zero")
    else:
        path = tmp_path / "folder.el"
        path.mkdir()
    program = textwrap.dedent(f"""
        import graphgear as gg
        from graphgear.errors import FileError
        for fmt in (None, "edgelist", "npz", "mtx"):
            try:
                gg.load({str(path)!r}, format=fmt)
            except FileError as exc:
                print("refused", "regular file" in str(exc) or "graph file" in str(exc))
    """)
    run = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["refused", "True"] * 4


def test_sssp_delta_that_cannot_advance_the_bucket_bound():
    """delta=1e-15 never returned; more in test_sssp.py."""
    g = gg.load("grid:30:30:w")
    start = time.perf_counter()
    with pytest.raises(GraphError, match="delta=1e-15"):
        gg.sssp(g, 0, delta=1e-15, backend="cpu")
    assert time.perf_counter() - start < 5


# ----------------------------------------------------------------------------------------------------------- 7. output


def test_save_refuses_what_it_must_not_replace(tmp_path):
    g = gg.Graph.from_edges([0], [1])
    read_only = write(tmp_path / "ro.el", "keep me\n")
    read_only.chmod(0o444)
    fifo = tmp_path / "fifo.el"
    os.mkfifo(fifo)
    for target in (read_only, fifo, Path("/dev/null"), tmp_path):
        with pytest.raises(FileError):
            gg.save(g, target if target != tmp_path else tmp_path / "")
    assert read_only.read_text() == "keep me\n"
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_save_respects_the_umask_and_follows_symlinks(tmp_path):
    g = gg.Graph.from_edges([0], [1])
    old = os.umask(0o027)
    try:
        gg.save(g, tmp_path / "new.el")
    finally:
        os.umask(old)
    assert (tmp_path / "new.el").stat().st_mode & 0o777 == 0o640
    target = write(tmp_path / "real.el", "old\n")
    (tmp_path / "link.el").symlink_to(target)
    gg.save(g, tmp_path / "link.el")
    assert (tmp_path / "link.el").is_symlink() and gg.load(target).num_edges == 1


def test_killed_save_leaves_no_temporary(tmp_path):
    program = textwrap.dedent(f"""
        import graphgear as gg, numpy as np, os, signal, threading
        from graphgear.graph.io import output
        real = output.write_atomically
        def slow(path, write, **kw):
            def writer(f):
                write(f)
                f.flush()
                print("writing", flush=True)
                threading.Event().wait(60)
            return real(path, writer, **kw)
        gg.graph.io.write_atomically = slow
        g = gg.Graph.from_edges(np.arange(100000), np.arange(1, 100001))
        gg.save(g, {str(tmp_path / 'big.el')!r})
    """)
    proc = subprocess.Popen([sys.executable, "-c", program], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "writing"
    assert [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    proc.terminate()
    assert proc.wait(timeout=60) == -15
    assert list(tmp_path.iterdir()) == []


def test_cli_write_error_is_one_line(tmp_path, capsys):
    from graphgear.cli import main

    assert main(["convert", "grid:3:3", str(tmp_path / "missing" / "g.el")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("graphgear: error:") and "Traceback" not in err


# ------------------------------------------------------------------------------------------------------------ 8. misuse


def test_misused_arguments_are_graphgear_errors():
    """backend=None and a list as the source raised bare Python errors; every argument in test_arguments.py."""
    from graphgear.errors import BackendError

    g = gg.load("grid:3:3")
    with pytest.raises(BackendError, match="None"):
        gg.bfs(g, 0, backend=None)
    with pytest.raises(GraphError, match=r"\[0, 1\]"):
        gg.bfs(g, [0, 1])


@pytest.mark.parametrize("value", [123, None, 1.5, ["a.el"], b"\x00"])
def test_load_of_something_that_is_not_a_path(value):
    with pytest.raises(GraphError, match="file path or a generator spec"):
        gg.load(value)


def test_unreadable_file_is_a_file_error(tmp_path, monkeypatch):
    path = write(tmp_path / "secret.el", "0 1\n")
    path.chmod(0)
    if os.geteuid() == 0:  # root reads anything: make the open fail as it would for a user
        from graphgear.graph.io import source

        real_open = os.open

        def refuse(p, *args, **kwargs):
            if str(p) == str(path):
                raise PermissionError(13, "Permission denied", str(p))
            return real_open(p, *args, **kwargs)

        monkeypatch.setattr(source.os, "open", refuse)
    with pytest.raises(FileError, match="permission denied") as info:
        gg.load(path, cache=False)
    assert "secret.el" in str(info.value) and isinstance(info.value, OSError)


# --------------------------------------------------------------------------------- 9. Matrix Market without its banner


def test_mtx_without_banner_with_a_size_line(tmp_path):
    path = write(tmp_path / "nr.mtx", "% from NetworkRepository\n4 4 3\n1 2\n2 3\n3 4\n")
    with pytest.warns(FormatWarning, match="size line on line 2"):
        g = gg.load(path, cache=False)
    assert (g.num_vertices, g.num_edges, g.directed, g.weighted) == (4, 3, True, False)
    assert g.indices.tolist() == [1, 2, 3]


def test_mtx_without_banner_or_size_line(tmp_path):
    path = write(tmp_path / "nr.mtx", "1 2 0.5\n2 3 1.5\n3 5 2\n")
    with pytest.warns(FormatWarning, match="no size line"):
        g = gg.load(path, cache=False)
    assert (g.num_vertices, g.num_edges) == (5, 3) and g.weights.tolist() == [0.5, 1.5, 2.0]
    with pytest.warns(FormatWarning):
        assert not gg.load(path, cache=False, directed=False).directed


def test_mtx_banner_makes_any_file_matrix_market(tmp_path):
    path = write(tmp_path / "m.txt", "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n3 2\n")
    g = gg.load(path, cache=False)
    assert (g.num_vertices, g.num_edges, g.directed) == (3, 2, False)


def test_every_error_is_a_graphgear_error(tmp_path):
    """A handful of hostile files of every format: graphgear errors only (the fuzz tests do this at scale)."""
    for name, content in [("a.mtx", b"%%MatrixMarket\n"), ("b.gr", b"p sp\n"), ("c.graph", b"\xff\xfe\n"),
                          ("d.npz", b"PK\x03\x04" + b"\x00" * 40), ("e.el.gz", b"\x1f\x8b\x08" + b"\x00" * 20),
                          ("f.el", b"\x00\x00\n")]:
        with pytest.raises(GraphgearError):
            gg.load(write(tmp_path / name, content), cache=False)
