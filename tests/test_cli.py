"""The graphgear command: info, generate, convert, help and errors."""

from __future__ import annotations

import json
import subprocess
import sys

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
