"""Pictures: Trace.plot, graphgear.plot, `graphgear run --plot` and `graphgear info --plot` (matplotlib, the [plot]
extra); written whole through write_atomically, valid PNG/SVG, and one error line when matplotlib is missing."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

matplotlib = pytest.importorskip("matplotlib")

from matplotlib.axes import Axes

import graphgear as gg
from graphgear import cli
from graphgear.cli import main
from graphgear.engine.trace import Trace
from graphgear.plot import MissingExtraError, plot_graph, plot_trace, save_figure

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def is_png(path) -> bool:
    data = path.read_bytes()
    return data.startswith(PNG_MAGIC) and data[12:16] == b"IHDR" and data.endswith(b"IEND\xaeB`\x82")


def is_svg(path) -> bool:
    root = ET.parse(path).getroot()  # raises on malformed XML
    return root.tag == "{http://www.w3.org/2000/svg}svg"


def switching_trace(rows: int = 7) -> Trace:
    """push, push, pull, pull, push, ... with a phase change half way: switches at 2, 4, 6."""
    t = Trace(algorithm="bfs", backend="cpu", controller="auto")
    for i in range(rows):
        pull = (i // 2) % 2 == 1
        t.add(strategy="s", path="sync-pull-dd" if pull else "sync-push-dd", frontier_vertices=10 * (i + 1),
              frontier_edges=0 if i == 0 else 100 * i, edges_processed=100 * i, seconds=0.001 * (i + 1),
              decision="pull" if pull else "push", reason=f"rule {i}: {'switch to pull' if pull else 'push'}",
              phase="forward" if i < rows // 2 else "backward")
    return t


def texts(figure) -> str:
    """Every text drawn on the figure (titles, labels, annotations, legends), joined."""
    from matplotlib.text import Text

    return "\n".join(t.get_text() for t in figure.findobj(Text))


# -------------------------------------------------------------------------------------------------- Trace.plot


def test_trace_plot_returns_the_frontier_axes_and_a_time_panel_below():
    t = switching_trace()
    ax = t.plot()
    assert isinstance(ax, Axes)
    siblings = [a for a in ax.get_shared_x_axes().get_siblings(ax) if a is not ax]
    assert len(siblings) == 1
    time_ax = siblings[0]
    assert ax.get_yscale() == "symlog" and time_ax.get_yscale() == "log"
    assert "frontier" in ax.get_ylabel() and time_ax.get_ylabel() == "time per iteration (ms)"
    assert time_ax.get_xlabel() == "iteration"
    assert "bfs" in ax.get_title() and "cpu" in ax.get_title()
    drawn = texts(ax.figure)
    for word in ("sync-push-dd", "sync-pull-dd", "frontier vertices", "frontier edges", "forward", "backward"):
        assert word in drawn
    for row in t.rows[2::2]:  # every switch is numbered and explained with its reason
        assert f"it {row.iteration}: " in drawn and row.reason in drawn
    assert sum(1 for x in ax.texts if x.get_text() in {"1", "2", "3"}) == 3
    bars = [bar for container in time_ax.containers for bar in container]
    assert sorted(round(bar.get_height(), 6) for bar in bars) == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]  # ms


def test_trace_plot_into_a_given_axes_and_title(tmp_path):
    from matplotlib.figure import Figure

    fig = Figure()
    given = fig.add_subplot()
    ax = switching_trace().plot(ax=given, title="bfs on my graph")
    assert ax is given and ax.get_title() == "bfs on my graph"
    assert len(fig.axes) == 2


def test_trace_plot_lists_at_most_eight_switches():
    t = Trace(algorithm="x", backend="cpu")
    for i in range(30):
        t.add(strategy="s", path=("sync-push-dd", "sync-pull-dd")[i % 2], frontier_vertices=i, frontier_edges=i,
              edges_processed=i, seconds=0.001, decision="d", reason=f"r{i}")
    drawn = texts(t.plot().figure)
    assert "switches of execution path (29)" in drawn and "21 more switches" in drawn
    assert "it 8: " in drawn and "it 9: " not in drawn


def test_trace_plot_of_an_empty_and_a_real_trace(tmp_path):
    ax = Trace(algorithm="x").plot()
    assert "no iterations" in texts(ax.figure)
    r = gg.strongly_connected_components(gg.load("rmat:8:8"), backend="cpu")
    ax = r.trace.plot()
    save_figure(ax.figure, tmp_path / "scc.png")
    assert is_png(tmp_path / "scc.png")
    assert r.trace.rows[0].path in texts(ax.figure)


@pytest.mark.parametrize("suffix, valid", [(".png", is_png), (".svg", is_svg)])
def test_save_figure_writes_valid_files_whole(tmp_path, suffix, valid):
    path = tmp_path / f"trace{suffix}"
    save_figure(switching_trace().plot().figure, path)
    assert valid(path)
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]  # no temporary left


def test_save_figure_refuses_other_names(tmp_path):
    fig = switching_trace().plot().figure
    with pytest.raises(gg.errors.FileError, match=r"\.png or \.svg, not \.jpg"):
        save_figure(fig, tmp_path / "trace.jpg")
    (tmp_path / "dir.png").mkdir()
    with pytest.raises(gg.errors.FileError, match="is a folder"):
        save_figure(fig, tmp_path / "dir.png")


def test_plot_graph_directed_and_undirected():
    fig = plot_graph(gg.load("rmat:8:8"))
    degree_ax, component_ax = fig.axes
    assert degree_ax.get_xscale() == degree_ax.get_yscale() == "log"
    assert component_ax.get_xscale() == component_ax.get_yscale() == "log"
    assert degree_ax.get_xlabel() == "degree" and component_ax.get_xlabel() == "component size (vertices)"
    drawn = texts(fig)
    for word in ("out-degree", "in-degree", "weakly connected", "strongly connected", "256 vertices"):
        assert word in drawn
    drawn = texts(plot_graph(gg.load("grid:8:8:0.5"), title="my grid"))
    assert "my grid" in drawn and "in-degree" not in drawn and "connected:" in drawn


# -------------------------------------------------------------------------------------------- missing matplotlib


def hide_matplotlib(monkeypatch):
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith(("matplotlib.", "mpl_toolkits"))]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib now raises ImportError


def test_missing_matplotlib_is_one_line_naming_the_extra(monkeypatch):
    hide_matplotlib(monkeypatch)
    with pytest.raises(MissingExtraError, match=r"needs matplotlib, which is not installed: pip install "
                                                r"graphgear\[plot\]$"):
        switching_trace().plot()
    with pytest.raises(ImportError):
        plot_trace(switching_trace())


@pytest.mark.parametrize("command", [["run", "bfs", "grid:3:3"], ["info", "grid:3:3"]])
def test_cli_without_matplotlib_fails_before_the_work(tmp_path, capsys, monkeypatch, command):
    hide_matplotlib(monkeypatch)
    monkeypatch.setattr(cli, "_load", lambda args, source: pytest.fail("loaded the graph before refusing"))
    assert main([*command, "--plot", str(tmp_path / "p.png")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("graphgear: error: ") and "pip install graphgear[plot]" in err
    assert not list(tmp_path.iterdir())


# ------------------------------------------------------------------------------------------------ the commands


@pytest.mark.parametrize("suffix, valid", [(".png", is_png), (".svg", is_svg)])
def test_run_plot_writes_the_picture(tmp_path, capsys, suffix, valid):
    path = tmp_path / f"bfs{suffix}"
    assert main(["run", "bfs", "grid:6:6", "--plot", str(path)]) == 0
    assert valid(path)
    assert f"trace plot written to {path}" in capsys.readouterr().out
    if suffix == ".svg":
        text = path.read_text()
        assert "bfs on grid:6:6 (36 vertices, 60 edges)" in text and "frontier size" in text


@pytest.mark.parametrize("suffix, valid", [(".png", is_png), (".svg", is_svg)])
def test_info_plot_writes_the_picture(tmp_path, capsys, suffix, valid):
    path = tmp_path / f"g{suffix}"
    assert main(["info", "rmat:7:4", "--plot", str(path), "--quiet"]) == 0
    assert valid(path)
    assert capsys.readouterr() == ("", "")
    if suffix == ".svg":
        assert "rmat:7:4: 128 vertices" in path.read_text()


@pytest.mark.parametrize("name, reason", [("p.jpg", ".png or .svg, not .jpg"), ("p", "name without an extension"),
                                          ("dir.png", "is a folder"), ("missing/p.png", "does not exist")])
def test_plot_names_refused_before_the_work(tmp_path, capsys, monkeypatch, name, reason):
    (tmp_path / "dir.png").mkdir()
    monkeypatch.setattr(cli, "_load", lambda args, source: pytest.fail("loaded the graph before refusing"))
    for command in (["run", "bfs", "grid:3:3"], ["info", "grid:3:3"]):
        assert main([*command, "--plot", str(tmp_path / name)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and reason in err


def test_run_plot_draws_on_agg_without_pyplot(tmp_path):
    """The command never imports pyplot (no display needed, no GUI backend chosen)."""
    code = ("import sys; from graphgear.cli import main; "
            f"assert main(['run', 'bfs', 'grid:3:3', '--quiet', '--plot', {str(tmp_path / 'p.png')!r}]) == 0; "
            "assert 'matplotlib.pyplot' not in sys.modules; print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                         check=False)
    assert out.returncode == 0 and out.stdout == "ok\n", out.stderr
    assert is_png(tmp_path / "p.png")
