"""Trace: to_pandas (a row per iteration, a column per field) and the table that fits an 80-column terminal."""

from __future__ import annotations

import sys
from dataclasses import fields
from io import StringIO

import pytest
from rich.console import Console

import graphgear as gg
from graphgear.engine.trace import Trace, TraceRow, milliseconds
from graphgear.plot import MissingExtraError

COLUMNS = [f.name for f in fields(TraceRow)]
LONG_REASON = ("forward BFS from pivot 123,456,789: outDegree(A) 17,179,869,184 > E'/alpha 1,234,567,890: switch to "
               "pull, and a few more words so that the reason is longer than any terminal line")


def rendered(trace: Trace, width: int = 80, max_rows: int = 60) -> list[str]:
    """The lines rich prints for `trace.table()` on a console `width` columns wide."""
    buffer = StringIO()
    Console(file=buffer, width=width, force_terminal=False, color_system=None).print(trace.table(max_rows))
    return buffer.getvalue().splitlines()


def made_trace(rows: int = 6, big: bool = False, phases: bool = False) -> Trace:
    """A trace whose rows switch path every other iteration; `big`: counts in the billions and long reasons."""
    t = Trace(algorithm="strongly_connected_components", backend="cuda", controller="auto")
    for i in range(rows):
        path = "async-push-dd" if i % 2 == 0 else "sync-pull-td"
        scale = 10**9 if big else 1
        t.add(strategy="default", path=path, frontier_vertices=(i + 1) * 3 * scale,
              frontier_edges=(i + 1) * 17 * scale, edges_processed=(i + 1) * 170 * scale,
              seconds=1234.5 if big and i == 0 else 0.000125 * (i + 1), decision="push" if i % 2 == 0 else "pull",
              reason=LONG_REASON if big else f"reason {i}", phase=("trim" if i < 2 else "fw-bw") if phases else "")
    return t


# ------------------------------------------------------------------------------------------------------ to_pandas


def test_to_pandas_a_row_per_iteration_and_a_column_per_field():
    t = made_trace(rows=5, phases=True)
    frame = t.to_pandas()
    assert list(frame.columns) == COLUMNS
    assert len(frame) == 5 and frame["iteration"].tolist() == [0, 1, 2, 3, 4]
    assert frame.to_dict("records") == t.to_dicts()
    assert frame["frontier_vertices"].dtype.kind == "i" and frame["seconds"].dtype.kind == "f"
    assert frame.attrs == {"algorithm": "strongly_connected_components", "backend": "cuda", "controller": "auto"}


def test_to_pandas_of_a_run_and_of_an_empty_trace():
    r = gg.strongly_connected_components(gg.load("rmat:8:8"), backend="cpu")
    frame = r.trace.to_pandas()
    assert len(frame) == len(r.trace) > 1
    assert frame["path"].tolist() == [row.path for row in r.trace]
    assert frame["seconds"].sum() == pytest.approx(r.trace.seconds)
    empty = Trace(algorithm="x").to_pandas()
    assert list(empty.columns) == COLUMNS and len(empty) == 0


def test_to_pandas_without_pandas_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas now raises ImportError
    with pytest.raises(MissingExtraError, match=r"pip install graphgear\[pandas\]") as info:
        made_trace().to_pandas()
    assert isinstance(info.value, ImportError) and isinstance(info.value, gg.errors.GraphgearError)
    assert "\n" not in str(info.value)


# ---------------------------------------------------------------------------------------------------- the table


@pytest.mark.parametrize("big", [False, True])
@pytest.mark.parametrize("phases", [False, True])
def test_table_fits_80_columns_with_every_key_field(big, phases):
    t = made_trace(big=big, phases=phases)
    lines = rendered(t)
    assert all(len(line) <= 80 for line in lines), "\n".join(line for line in lines if len(line) > 80)
    text = "\n".join(lines)
    assert "strongly_connected_components on cuda (auto)" in text
    header = next(line for line in lines if line.lstrip().startswith("it "))
    for name in ("it", "path", "frontier V", "frontier E", "edges", "ms"):
        assert name in header
    assert ("phase" in header) == phases
    assert "decision: reason" in text
    for row in t:
        line = next(x for x in lines if x.split()[:2] == [str(row.iteration), row.path])
        if phases:
            assert row.phase in line.split()
        if not big or not phases:  # counts shown whole where they fit: 75 columns for billions without a phase
            assert f"{row.frontier_vertices:,}" in line and f"{row.edges_processed:,}" in line
        assert milliseconds(row.seconds) in line
    if big and phases:  # billions in the compact form: 3.00G vertices, 17.0G frontier edges, 170G edges
        first = next(x for x in lines if x.split()[:1] == ["0"]).split()
        assert first[3:6] == ["3.00G", "17.0G", "170G"]


def test_table_wraps_the_reason_whole_under_its_row():
    t = made_trace(rows=3, big=True)
    lines = rendered(t)
    for row in t:
        start = next(i for i, x in enumerate(lines) if x.split()[:2] == [str(row.iteration), row.path])
        below = []
        for line in lines[start + 1:]:
            if not line.startswith("    ") or line.split()[:1] == [str(row.iteration + 1)]:
                break
            below.append(line.strip())
        assert len(below) >= 2  # the long reason wrapped onto its own lines, not folded inside a cell
        assert " ".join(below) == f"{row.decision}: {row.reason}"


def test_table_omits_the_decision_when_it_is_the_path():
    t = Trace(algorithm="pagerank-power", backend="cpu", controller="auto")
    t.add(strategy="s", path="sync-pull-td", frontier_vertices=10, frontier_edges=20, edges_processed=20,
          seconds=0.001, decision="sync-pull-td", reason="power iteration")
    lines = rendered(t)
    assert lines[-1].strip() == "power iteration"


@pytest.mark.parametrize("width", [40, 50, 60, 100])
def test_table_fits_narrower_and_wider_consoles(width):
    lines = rendered(made_trace(big=True, phases=True), width=width)
    assert all(len(line) <= width for line in lines)
    assert any("async-push-dd" in line for line in lines)
    if width >= 100:
        assert "edges" in next(line for line in lines if line.startswith("it "))


def test_table_of_many_rows_shows_first_and_last():
    lines = rendered(made_trace(rows=100, big=True), max_rows=10)
    text = "\n".join(lines)
    assert all(len(line) <= 80 for line in lines)
    assert "... 90 more iterations ..." in text
    numbers = [x.split()[0] for x in lines if x[:3].strip().isdigit()]
    assert numbers == ["0", "1", "2", "3", "4", "95", "96", "97", "98", "99"]


def test_table_of_real_runs_fits_80_columns():
    g = gg.load("rmat:8:8")
    for result in (gg.bfs(g, 0, backend="cpu"), gg.strongly_connected_components(g, backend="cpu")):
        lines = rendered(result.trace)
        assert all(len(line) <= 80 for line in lines)
        text = " ".join(" ".join(lines).split())
        for row in result.trace:
            assert " ".join(row.reason.split()) in text  # wrapped, never cut


def test_empty_trace_and_str():
    assert rendered(Trace(algorithm="x", backend="cpu")) == ["x on cpu: 0 iterations, 0.000 ms"]
    text = str(made_trace())
    assert "decision" in text and "reason" in text and "async-push-dd" in text
