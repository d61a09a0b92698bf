"""The graphgear command: info, generate, convert, run (-o, algorithm parameters, --quiet), help and errors."""

from __future__ import annotations

import csv
import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import real_graph

import graphgear as gg
from graphgear import cli
from graphgear.bench.suites import default_source
from graphgear.cli import main


def test_info_table(capsys):
    assert main(["info", "grid:4:5"]) == 0
    out = capsys.readouterr().out
    assert "num_vertices" in out and "20" in out and "pseudo_diameter" in out


def test_info_json_real_graph(capsys):
    """The file's ids with gaps are renumbered by default (load's renumber=None), kept with --no-renumber."""
    assert main(["info", "--json", str(real_graph("social/wiki-Vote.txt"))]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert (stats["num_vertices"], stats["num_edges"], stats["wcc"]) == (7_115, 103_689, 24)
    assert main(["info", "--json", "--no-renumber", str(real_graph("social/wiki-Vote.txt"))]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert (stats["num_vertices"], stats["num_edges"], stats["wcc"]) == (8_298, 103_689, 1_207)


def test_generate_and_convert(tmp_path, capsys):
    out = tmp_path / "g.mtx"
    assert main(["generate", "grid:10:10:0.5:w", "-o", str(out)]) == 0
    g = gg.load(out)
    assert g.weighted and g.num_vertices == 100
    converted = tmp_path / "g.gr.gz"
    assert main(["convert", str(out), str(converted)]) == 0
    back = gg.load(converted)
    assert (back.offsets == g.offsets).all() and (back.indices == g.indices).all() and (back.weights == g.weights).all()


def test_errors_exit_2_with_message(tmp_path, capsys):
    bad = tmp_path / "bad.el"
    bad.write_text("0 1\n2 x\n")
    assert main(["info", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "bad.el, line 2" in err and "'2 x'" in err
    assert main(["info", "kron:nope"]) == 2
    assert "kron:nope" in capsys.readouterr().err
    assert main(["generate", "notaspec", "-o", str(tmp_path / "x.el")]) == 2
    assert not (tmp_path / "x.el").exists()


def test_help_explains_specs_and_formats():
    result = subprocess.run([sys.executable, "-m", "graphgear", "--help"], capture_output=True, text=True, check=True)
    for word in ("kron:SCALE", "grid:ROWS:COLS", ".mtx", ".gr", "METIS", "info", "generate", "convert"):
        assert word in result.stdout
    with pytest.raises(SystemExit):
        main(["run"])  # not a command yet: argparse refuses it


def one_error_line(capsys) -> str:
    """The one line a failed command wrote to stderr (and no traceback)."""
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("graphgear: error: "), err
    assert "Traceback" not in err
    return lines[0]


def bad_outputs(tmp_path) -> dict:
    """Output names every command must refuse: a folder, a FIFO, a read-only file, a folder that does not exist."""
    folder = tmp_path / "folder.el"
    folder.mkdir()
    fifo = tmp_path / "fifo.el"
    os.mkfifo(fifo)
    read_only = tmp_path / "read-only.el"
    read_only.write_text("keep\n")
    read_only.chmod(0o444)
    return {"folder": (folder, "is a folder"), "fifo": (fifo, "FIFO"), "read-only": (read_only, "read-only"),
            "missing folder": (Path("/nonexistent/dir/out.el"), "does not exist")}


@pytest.mark.parametrize("case", ["folder", "fifo", "read-only", "missing folder"])
def test_convert_to_a_bad_output_is_one_error_line(tmp_path, capsys, case):
    path, reason = bad_outputs(tmp_path)[case]
    assert main(["convert", "grid:3:3", str(path)]) == 2
    line = one_error_line(capsys)
    assert str(path) in line and reason in line
    assert (tmp_path / "read-only.el").read_text() == "keep\n" and (tmp_path / "folder.el").is_dir()
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    assert not Path("/nonexistent/dir").exists()  # a missing folder is refused, never made


@pytest.mark.parametrize("case", ["folder", "fifo", "read-only", "missing folder"])
def test_generate_to_a_bad_output_is_one_error_line(tmp_path, capsys, case):
    path, reason = bad_outputs(tmp_path)[case]
    assert main(["generate", "grid:3:3", "-o", str(path)]) == 2
    assert reason in one_error_line(capsys)
    assert not Path("/nonexistent/dir").exists()


@pytest.mark.parametrize("case", ["folder", "fifo", "read-only", "missing folder"])
def test_run_trace_to_a_bad_output_is_one_error_line(tmp_path, capsys, case):
    path, reason = bad_outputs(tmp_path)[case]
    assert main(["run", "bfs", "grid:3:3", "--trace", str(path)]) == 2
    line = one_error_line(capsys)
    assert str(path) in line and reason in line
    assert (tmp_path / "read-only.el").read_text() == "keep\n"
    assert not Path("/nonexistent/dir").exists()


def test_run_trace_written(tmp_path, capsys):
    assert main(["run", "bfs", "grid:3:3", "--trace", str(tmp_path / "t.json")]) == 0
    trace = json.loads((tmp_path / "t.json").read_text())
    assert trace["algorithm"] == "bfs" and trace["iterations"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.json"]


def test_bench_json_written_and_refused(tmp_path, capsys, monkeypatch):
    from graphgear.bench import suites

    monkeypatch.setitem(suites.SUITES, "smoke", lambda folder: [])  # no cases: only the JSON writing is exercised
    assert main(["bench", "--json", str(tmp_path / "b.json")]) == 0
    assert json.loads((tmp_path / "b.json").read_text()) == []
    capsys.readouterr()
    (tmp_path / "dir.json").mkdir()
    assert main(["bench", "--json", str(tmp_path / "dir.json")]) == 2
    assert "is a folder" in one_error_line(capsys)


def test_bench_gpu_prints_each_ablation_table_and_fails_on_a_wrong_cell(tmp_path, capsys, monkeypatch):
    """`bench --suite gpu`'s ablation part, its suite faked (no GPU here): every table of gpu.ABLATION_TABLES printed
    with its title and the reach lines, each under its report key, a wrong cell marked and the exit status 1."""
    import sys
    import types

    import graphgear.backends as backends
    from graphgear.bench import gpu, suites

    props = {"name": b"Fake GPU"}
    fake_cupy = types.SimpleNamespace(cuda=types.SimpleNamespace(runtime=types.SimpleNamespace(
        getDeviceProperties=lambda index: props)))
    monkeypatch.setitem(sys.modules, "cupy", fake_cupy)
    monkeypatch.setattr(backends, "cuda_available", lambda: True)
    monkeypatch.setattr(gpu, "gpu_suite", lambda *a, **k: ([], 1e12))
    monkeypatch.setattr(suites, "find_real_graphs", lambda folder: None)  # the generated graph alone

    def table(key, wrong):
        def run(graphs, repeat, progress):
            return [{"graph": graph, "a": float(repeat), "wrong": {"a": "differs"} if wrong else {},
                     "reach": {"warp_gather": 2}} for graph in graphs]
        return gpu.AblationTable(key, run, key + " title, median of {n}", lambda: ["a"], lambda row, c: f"{row[c]:.1f}",
                                 note=gpu.reach_line)

    monkeypatch.setattr(gpu, "ABLATION_TABLES", {"one": table("first", False), "two": table("second", True)})
    out = tmp_path / "gpu.json"
    code = main(["--no-progress", "bench", "--suite", "gpu", "--algorithms", "bfs", "--gpu-graphs", "g",
                 "--json", str(out)])
    text = " ".join(capsys.readouterr().out.split())  # a table's title wraps at the table's width
    assert code == 1
    assert "first title, median of 5" in text and "second title, median of 5" in text
    assert "5.0 WRONG (differs)" in text
    assert "g: vertices at a support's threshold: warp_gather 2" in text
    assert "1 ablation cells whose result was not the CPU backend's" in text
    report = json.loads(out.read_text())
    assert [row["graph"] for row in report["first"]] == ["g"]
    assert report["first"][0]["wrong"] == {} and report["second"][0]["wrong"] == {"a": "differs"}


def test_os_and_memory_errors_are_one_line(tmp_path, capsys, monkeypatch):
    import graphgear.cli as cli

    def fail(error):
        def load(args, source):
            raise error
        return load

    monkeypatch.setattr(cli, "_load", fail(OSError(errno.EIO, "Input/output error", "g.el")))
    assert main(["info", "g.el"]) == 2
    assert one_error_line(capsys) == "graphgear: error: g.el: Input/output error"
    monkeypatch.setattr(cli, "_load", fail(OSError(errno.ENOSPC, "No space left on device")))
    assert main(["info", "g.el"]) == 2
    assert one_error_line(capsys) == "graphgear: error: No space left on device"
    monkeypatch.setattr(cli, "_load", fail(MemoryError()))
    assert main(["info", "g.el"]) == 2
    assert one_error_line(capsys) == "graphgear: error: out of memory"
    monkeypatch.setattr(cli, "_load", fail(gg.errors.GraphError("two\nlines")))
    assert main(["info", "g.el"]) == 2
    assert one_error_line(capsys) == "graphgear: error: two lines"
    monkeypatch.setattr(cli, "_load", fail(KeyboardInterrupt()))
    assert main(["info", "g.el"]) == 130


# ------------------------------------------------------------------------------------ run: -o, parameters, --quiet

SPEC = "rmat:7:4:w"  # directed, weighted, with vertices no source reaches
COLUMNS = {"bfs": ["distance", "predecessor"], "sssp": ["distance", "predecessor"], "pagerank": ["rank"],
           "cc": ["component"], "scc": ["component"], "bc": ["centrality"], "color": ["color"]}


def expected(algorithm: str, spec: str = SPEC, **kwargs) -> tuple[object, dict[str, np.ndarray]]:
    """The graph and the columns `run -o` must write, from the public functions called as the command calls them."""
    g = gg.load(spec)
    source = int(g.vertex_labels(default_source(g)))
    if algorithm == "bfs":
        r = gg.bfs(g, source, backend="cpu", **kwargs)
        arrays = {"distance": r.distances, "predecessor": r.predecessors}
    elif algorithm == "sssp":
        r = gg.sssp(g, source, backend="cpu", **kwargs)
        arrays = {"distance": r.distances, "predecessor": r.predecessors}
    elif algorithm == "pagerank":
        arrays = {"rank": gg.pagerank(g, backend="cpu", **kwargs).ranks}
    elif algorithm == "cc":
        arrays = {"component": gg.connected_components(g, backend="cpu").labels}
    elif algorithm == "scc":
        arrays = {"component": gg.strongly_connected_components(g, backend="cpu").labels}
    elif algorithm == "bc":
        kwargs = {"k": 8, "seed": 0, **kwargs}
        arrays = {"centrality": gg.betweenness_centrality(g, backend="cpu", **kwargs).centrality}
    else:
        arrays = {"color": gg.color_propagation(g, backend="cpu").colors}
    return g, {"vertex": g.vertex_labels(np.arange(g.num_vertices)), **arrays}


def read_back(path: Path) -> dict[str, np.ndarray]:
    """The columns of a results file, as arrays (CSV numbers parsed: ints where every field is a whole number)."""
    if path.suffix == ".npy":
        table = np.load(path)  # no allow_pickle: the file holds no objects
        return {name: table[name] for name in table.dtype.names}
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        return {name: column.to_numpy(zero_copy_only=False) for name, column in
                zip(pq.read_table(path).column_names, pq.read_table(path).columns)}
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    columns = {name: [row[i] for row in rows[1:]] for i, name in enumerate(rows[0])}
    return {name: np.array(values, dtype=np.int64 if all(v.lstrip("-").isdigit() for v in values) else np.float64)
            for name, values in columns.items()}


def assert_same_columns(written: dict[str, np.ndarray], want: dict[str, np.ndarray]) -> None:
    assert list(written) == list(want)
    for name, values in want.items():
        if values.dtype.kind == "f":
            np.testing.assert_allclose(written[name], values, rtol=1e-12, atol=0, err_msg=name)
        else:
            np.testing.assert_array_equal(written[name], values, err_msg=name)


@pytest.mark.parametrize("suffix", [".csv", ".parquet", ".npy"])
@pytest.mark.parametrize("algorithm", list(COLUMNS))
def test_run_output_each_algorithm_and_extension(tmp_path, capsys, algorithm, suffix):
    path = tmp_path / f"{algorithm}{suffix}"
    assert main(["run", algorithm, SPEC, "--backend", "cpu", "--no-warmup", "-o", str(path)]) == 0
    assert f"results written to {path}" in capsys.readouterr().out
    written = read_back(path)
    assert list(written) == ["vertex", *COLUMNS[algorithm]]
    assert_same_columns(written, expected(algorithm)[1])
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]  # whole, no temporary left


def test_run_output_columns_and_types(tmp_path):
    """The CSV's header and text as documented: unreachable -1 (bfs) / inf (sssp), no predecessor -1; .npy is one
    structured array with native dtypes."""
    assert main(["run", "sssp", SPEC, "--backend", "cpu", "--no-warmup", "-q", "-o", str(tmp_path / "s.csv")]) == 0
    lines = (tmp_path / "s.csv").read_text().splitlines()
    assert lines[0] == "vertex,distance,predecessor" and len(lines) == 1 + 128
    assert any(line.endswith(",inf,-1") for line in lines)
    assert main(["run", "bfs", SPEC, "--backend", "cpu", "--no-warmup", "-q", "-o", str(tmp_path / "b.npy")]) == 0
    table = np.load(tmp_path / "b.npy")
    assert table.dtype.names == ("vertex", "distance", "predecessor") and table.shape == (128,)
    assert table.dtype["vertex"] == np.int64 and table.dtype["distance"].kind == "i"
    assert (table["distance"] == -1).any() and ((table["distance"] == -1) <= (table["predecessor"] == -1)).all()


def test_run_output_uses_the_graph_labels(tmp_path):
    graph_file = tmp_path / "sparse.el"
    graph_file.write_text("10 20\n20 30\n30 10\n40 50\n")
    out = tmp_path / "bfs.csv"
    assert main(["run", "bfs", str(graph_file), "--renumber", "--source", "20", "--no-cache", "--backend", "cpu",
                 "--no-warmup", "-q", "-o", str(out)]) == 0
    rows = list(csv.DictReader(out.open()))
    assert [r["vertex"] for r in rows] == ["10", "20", "30", "40", "50"]
    by_vertex = {r["vertex"]: (r["distance"], r["predecessor"]) for r in rows}
    assert by_vertex == {"10": ("2", "30"), "20": ("0", "-1"), "30": ("1", "20"), "40": ("-1", "-1"),
                         "50": ("-1", "-1")}
    auto = tmp_path / "auto.csv"  # ids with gaps nothing declares are renumbered by default too, as gg.load does
    assert main(["run", "bfs", str(graph_file), "--source", "20", "--no-cache", "--backend", "cpu", "--no-warmup",
                 "-q", "-o", str(auto)]) == 0
    assert auto.read_text() == out.read_text()
    kept = tmp_path / "kept.csv"
    assert main(["run", "bfs", str(graph_file), "--no-renumber", "--source", "20", "--no-cache", "--backend", "cpu",
                 "--no-warmup", "-q", "-o", str(kept)]) == 0
    rows = list(csv.DictReader(kept.open()))
    assert [r["vertex"] for r in rows] == [str(i) for i in range(51)]
    assert (rows[10]["distance"], rows[10]["predecessor"]) == ("2", "30")
    colors = tmp_path / "color.csv"  # a colour is a vertex (the largest that reaches this one): its label too
    assert main(["run", "color", str(graph_file), "--no-cache", "--backend", "cpu", "--no-warmup", "-q", "-o",
                 str(colors)]) == 0
    assert {r["vertex"]: r["color"] for r in csv.DictReader(colors.open())} == {"10": "30", "20": "30", "30": "30",
                                                                              "40": "40", "50": "50"}


@pytest.mark.parametrize("suffix", [".csv", ".parquet", ".npy"])
def test_results_with_text_labels(tmp_path, suffix):
    """Text labels (a graph built in Python): labels as text, a missing predecessor empty / null / ''."""
    g = gg.Graph.from_edges(["a", "b", "c", "x"], ["b", "c", "a", "y"])
    r = gg.bfs(g, "b", backend="cpu")
    path = tmp_path / f"r{suffix}"
    cli._write_results(str(path), "bfs", r, g)
    labels = g.vertex_labels(np.arange(g.num_vertices)).tolist()
    want = {label: (int(d), None if p < 0 else labels[p]) for label, d, p in zip(labels, r.distances, r.predecessors)}
    if suffix == ".csv":
        rows = list(csv.DictReader(path.open(newline="")))
        got = {row["vertex"]: (int(row["distance"]), row["predecessor"] or None) for row in rows}
    elif suffix == ".npy":
        table = np.load(path)
        got = {str(v): (int(d), str(p) or None) for v, d, p in table.tolist()}
    else:
        import pyarrow.parquet as pq

        got = {row["vertex"]: (row["distance"], row["predecessor"]) for row in pq.read_table(path).to_pylist()}
    assert got == want and want["b"] == (0, None) and want["x"] == (-1, None)


def test_run_output_parameters(tmp_path):
    """Each algorithm parameter reaches the public function: the file equals the function's own result."""
    cases = [
        (["bfs", "--depth-limit", "1"], "bfs", {"depth_limit": 1}),
        (["sssp", "--cutoff", "300"], "sssp", {"cutoff": 300.0}),
        (["sssp", "--unweighted"], "sssp", {"weight": None}),
        (["sssp", "--weight", "weight"], "sssp", {"weight": "weight"}),
        (["pagerank", "--alpha", "0.7", "--tol", "1e-9", "--max-iter", "300"], "pagerank",
         {"alpha": 0.7, "tol": 1e-9, "max_iter": 300}),
        (["pagerank", "--unweighted"], "pagerank", {"weight": None}),
        (["bc", "--k", "5", "--seed", "3"], "bc", {"k": 5, "seed": 3}),
        (["bc", "--k", "all"], "bc", {"k": None}),
        (["bc", "--weight", "w", "--seed", "4"], "bc", {"weight": "w", "seed": 4}),
    ]
    for arguments, algorithm, kwargs in cases:
        out = tmp_path / "r.npy"
        assert main(["run", arguments[0], SPEC, *arguments[1:], "--backend", "cpu", "--no-warmup", "-q", "-o",
                     str(out)]) == 0, arguments
        assert_same_columns(read_back(out), expected(algorithm, **kwargs)[1])
    # and the options change the results: depth 1 reaches fewer vertices, a cutoff fewer, hops differ from weights
    limited = expected("bfs", depth_limit=1)[1]["distance"]
    assert limited.max() == 1 and (limited >= 0).sum() < (expected("bfs")[1]["distance"] >= 0).sum()
    cut = expected("sssp", cutoff=300.0)[1]["distance"]
    assert np.isfinite(cut).sum() < np.isfinite(expected("sssp")[1]["distance"]).sum()
    hops, levels = expected("sssp", weight=None)[1]["distance"], expected("bfs")[1]["distance"]
    np.testing.assert_array_equal(hops, np.where(levels >= 0, levels, np.inf))


def test_run_summary_names_the_parameters(capsys):
    assert main(["run", "pagerank", "grid:4:4", "--backend", "cpu", "--alpha", "0.5", "--max-iter", "200"]) == 0
    out = capsys.readouterr().out
    assert "alpha       0.5" in out and "max-iter    200" in out
    assert main(["run", "bc", "grid:4:4", "--backend", "cpu", "--k", "all"]) == 0
    assert "all 16 vertices (exact)" in capsys.readouterr().out
    assert main(["run", "bc", "grid:4:4", "--backend", "cpu", "--k", "3", "--seed", "9"]) == 0
    assert "3 sampled sources (seed 9)" in capsys.readouterr().out
    assert main(["run", "bc", "grid:4:4", "--backend", "cpu"]) == 0
    assert "8 sampled sources (seed 0)" in capsys.readouterr().out


def no_load(monkeypatch):
    """Make loading the graph fail the test: refusals must come before the work."""
    monkeypatch.setattr(cli, "_load", lambda args, source: pytest.fail("loaded the graph before refusing"))


MISPLACED = [
    ("bfs", ["--alpha", "0.5"], "--alpha applies to pagerank, not bfs"),
    ("sssp", ["--tol", "1e-3"], "--tol applies to pagerank, not sssp"),
    ("cc", ["--max-iter", "3"], "--max-iter applies to pagerank, not cc"),
    ("pagerank", ["--k", "3"], "--k applies to bc, not pagerank"),
    ("bfs", ["--seed", "1"], "--seed applies to bc, not bfs"),
    ("bfs", ["--weight", "w"], "--weight applies to sssp, pagerank and bc, not bfs"),
    ("scc", ["--unweighted"], "--unweighted applies to sssp, pagerank and bc, not scc"),
    ("sssp", ["--depth-limit", "2"], "--depth-limit applies to bfs, not sssp"),
    ("bfs", ["--cutoff", "2"], "--cutoff applies to sssp, not bfs"),
    ("color", ["--source", "2"], "--source applies to bfs, sssp and bc, not color"),
    ("bc", ["--source", "2", "--k", "3"], "--k samples BC's sources and --source gives one"),
    ("bc", ["--source", "2", "--seed", "3"], "--seed samples BC's sources and --source gives one"),
]


@pytest.mark.parametrize("algorithm, options, message", MISPLACED, ids=[" ".join(m[1]) + " " + m[0] for m in MISPLACED])
def test_run_refuses_options_of_other_algorithms(capsys, monkeypatch, algorithm, options, message):
    no_load(monkeypatch)
    assert main(["run", algorithm, "grid:3:3", *options]) == 2
    assert message in one_error_line(capsys)


BAD_VALUES = [
    (["pagerank", "--alpha", "0"], "argument --alpha: must be a damping factor in (0, 1], got '0'"),
    (["pagerank", "--alpha", "1.5"], "got '1.5'"),
    (["pagerank", "--alpha", "nan"], "got 'nan'"),
    (["pagerank", "--tol", "0"], "argument --tol: must be a positive, finite tolerance"),
    (["pagerank", "--tol", "inf"], "argument --tol"),
    (["pagerank", "--max-iter", "-1"], "argument --max-iter: must be a whole number >= 0, got '-1'"),
    (["pagerank", "--max-iter", "2.5"], "argument --max-iter"),
    (["bc", "--k", "0"], "argument --k: must be a number of sources >= 1 or 'all', got '0'"),
    (["bc", "--k", "some"], "argument --k"),
    (["bc", "--seed", "x"], "argument --seed: must be a whole number, got 'x'"),
    (["bfs", "--depth-limit", "-1"], "argument --depth-limit"),
    (["sssp", "--cutoff", "-0.5"], "argument --cutoff: must be a distance >= 0, got '-0.5'"),
    (["sssp", "--weight", " "], "argument --weight: must name the weights"),
    (["sssp", "--weight", "w", "--unweighted"], "argument --unweighted: not allowed with argument --weight"),
]


@pytest.mark.parametrize("options, message", BAD_VALUES, ids=[" ".join(b[0]) for b in BAD_VALUES])
def test_run_refuses_bad_values_in_one_line(capsys, monkeypatch, options, message):
    no_load(monkeypatch)
    with pytest.raises(SystemExit) as exit_:
        main(["run", options[0], "grid:3:3", *options[1:]])
    assert exit_.value.code == 2
    line = one_error_line(capsys)
    assert message in line and line.endswith("(see 'graphgear run --help')")


def test_run_refusal_from_the_algorithm_is_one_line(capsys):
    """A value the options accept but the run cannot honour (PageRank not converged in 1 iteration) is the
    algorithm's error, one line."""
    assert main(["run", "pagerank", "grid:5:5", "--backend", "cpu", "--max-iter", "1", "--tol", "1e-12"]) == 2
    assert "did not converge in 1 iterations" in one_error_line(capsys)


@pytest.mark.parametrize("name, reason", [("r.txt", "results are written as .csv, .parquet, .npy, not .txt"),
                                          ("r", "not a name without an extension"),
                                          ("folder.csv", "is a folder"), ("read-only.npy", "read-only"),
                                          ("missing/r.csv", "does not exist")])
def test_run_output_refused_before_the_work(tmp_path, capsys, monkeypatch, name, reason):
    (tmp_path / "folder.csv").mkdir()
    (tmp_path / "read-only.npy").write_text("keep\n")
    (tmp_path / "read-only.npy").chmod(0o444)
    no_load(monkeypatch)
    assert main(["run", "bfs", "grid:3:3", "-o", str(tmp_path / name)]) == 2
    assert reason in one_error_line(capsys)
    assert (tmp_path / "read-only.npy").read_text() == "keep\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder.csv", "read-only.npy"]


def test_run_output_and_trace_on_one_file_refused(tmp_path, capsys, monkeypatch):
    no_load(monkeypatch)
    same = str(tmp_path / "x.csv")
    assert main(["run", "bfs", "grid:3:3", "-o", same, "--trace", same]) == 2
    assert "--trace and -o name the same file" in one_error_line(capsys)


def test_run_parquet_without_pyarrow(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    no_load(monkeypatch)
    assert main(["run", "bfs", "grid:3:3", "-o", str(tmp_path / "r.parquet")]) == 2
    assert one_error_line(capsys) == ("graphgear: error: writing .parquet needs pyarrow, which is not installed: "
                                      "pip install graphgear[arrow]")
    assert not list(tmp_path.iterdir())


def test_run_output_whole_or_not_at_all(tmp_path, capsys, monkeypatch):
    """A writer that fails half way leaves the file that was there as it was, and no temporary."""
    out = tmp_path / "r.csv"
    out.write_text("old\n")

    def fail(f, columns):
        f.write(b"vertex,distance\n0,")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(cli, "_write_csv", fail)
    assert main(["run", "bfs", "grid:3:3", "--backend", "cpu", "--no-warmup", "-o", str(out)]) == 2
    assert "No space left on device" in one_error_line(capsys)
    assert out.read_text() == "old\n" and sorted(p.name for p in tmp_path.iterdir()) == ["r.csv"]


def test_run_quiet(tmp_path, capsys):
    out, trace = tmp_path / "r.csv", tmp_path / "t.json"
    assert main(["run", "bfs", "grid:4:4", "--backend", "cpu", "--quiet", "-o", str(out), "--trace", str(trace)]) == 0
    assert capsys.readouterr() == ("", "")
    assert_same_columns(read_back(out), expected("bfs", "grid:4:4")[1])
    assert json.loads(trace.read_text())["algorithm"] == "bfs"
    assert main(["run", "cc", "grid:4:4", "--backend", "cpu", "-q"]) == 0
    assert capsys.readouterr() == ("", "")
    assert main(["run", "bfs", "grid:4:4", "-q", "--source", "99"]) == 2  # errors still show
    assert "99" in one_error_line(capsys)


def test_run_quiet_silences_warnings(tmp_path, capsys):
    """--quiet prints only errors: graphgear's warnings (here a Matrix Market file without its banner) are not."""
    graph_file = tmp_path / "g.mtx"
    graph_file.write_text("3 3 2\n1 2\n2 3\n")
    import warnings

    with pytest.warns(gg.errors.FormatWarning):
        assert main(["run", "bfs", str(graph_file), "--no-cache", "--backend", "cpu"]) == 0
    capsys.readouterr()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert main(["run", "bfs", str(graph_file), "--no-cache", "--backend", "cpu", "-q"]) == 0
    assert capsys.readouterr() == ("", "")
    assert not [w for w in caught if issubclass(w.category, gg.errors.GraphgearWarning)]
