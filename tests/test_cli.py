"""The graphgear command: info, generate, convert, help and errors."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import real_graph

import graphgear as gg
from graphgear.cli import main


def test_info_table(capsys):
    assert main(["info", "grid:4:5"]) == 0
    out = capsys.readouterr().out
    assert "num_vertices" in out and "20" in out and "pseudo_diameter" in out


def test_info_json_real_graph(capsys):
    assert main(["info", "--json", str(real_graph("social/wiki-Vote.txt"))]) == 0
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
