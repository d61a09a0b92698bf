"""The README's examples run as written from a fresh clone: every ```python block (in order, one namespace) and every
line of a ```console block, in an empty folder."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def blocks(kind: str) -> list[str]:
    return re.findall(rf"```{kind}\n(.*?)```", README.read_text(), flags=re.S)


def test_readme_has_examples():
    assert len(blocks("python")) >= 2 and blocks("console")


def test_python_examples_run(tmp_path, monkeypatch):
    pytest.importorskip("networkx")
    pytest.importorskip("pandas")
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    for code in blocks("python"):
        exec(compile(code, str(README), "exec"), namespace)  # noqa: S102 - the README's own examples


def test_console_examples_run(tmp_path, monkeypatch, capsys):
    from graphgear.cli import main

    monkeypatch.chdir(tmp_path)
    for block in blocks("console"):
        for line in block.strip().splitlines():
            words = shlex.split(line)
            assert words[0] == "graphgear", line
            assert main(words[1:]) == 0, (line, capsys.readouterr().err)
    assert (tmp_path / "distances.csv").exists() and (tmp_path / "kron12.graph").exists()
