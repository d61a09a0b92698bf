"""graphgear bench --suite adaptive (bench/adaptive.py, issue 24 point 5): auto against every fixed strategy that
applies, one row per algorithm and graph shape; a strategy the algorithm refuses does not apply, one whose result is
not auto's is reported as failed and never counts as fast; the summary is the issue's target."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphgear.bench import adaptive
from graphgear.bench.adaptive import AdaptiveRow, adaptive_graphs, adaptive_suite, fixed_strategies, row_line, summary
from graphgear.cli import main
from graphgear.errors import GraphgearError

SMALL = [("power-law undirected", "kron:7"), ("road-like lattice", "grid:12:12:0.8")]


def test_eight_shapes_with_the_real_graphs(tmp_path):
    """Six generated shapes of about 2^scale vertices, and a road and a social graph where the folder has them."""
    assert [shape for shape, _ in adaptive_graphs(10, None)] == [
        "power-law undirected", "power-law directed", "uniform random", "road-like lattice",
        "lattice with missing edges", "random geometric"]
    assert dict(adaptive_graphs(10, None))["road-like lattice"] == "grid:32:32"
    for name in ("road/malta_osm.gr.gz", "social/wiki-Vote.txt"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text("")
    shapes = dict(adaptive_graphs(10, tmp_path))
    assert len(shapes) == 8 and shapes["real road graph"].endswith("malta_osm.gr.gz")


def test_fixed_strategies_are_sep_graphs_paths_and_the_gpus_techniques():
    cpu = fixed_strategies("cpu")
    assert sorted(s.path for s in cpu) == sorted(f"{s}-{d}-{r}" for s in ("sync", "async") for d in ("push", "pull")
                                                 for r in ("dd", "td"))
    cuda = fixed_strategies("cuda")
    assert cuda[:8] == cpu and len(set(cuda)) == len(cuda)
    assert {s.balance for s in cuda} == {"vertex_group", "twc", "warp_scan", "merge_path", "three_stage", "block_scan",
                                         "hierarchical"}
    assert adaptive.strategy_label(cuda[-2]) == "async-push-dd balance=hierarchical"
    assert adaptive.strategy_label(cuda[-1]) == "sync-push-dd frontier=two_phase"  # Busato's two-phase queue


def test_rows_time_auto_against_every_fixed_strategy():
    rows = adaptive_suite(SMALL, ("bfs", "sssp", "cc", "pagerank", "bc"), backend="cpu", repeat=1)
    assert [(r.algorithm, r.shape) for r in rows] == [(a, s) for s, _ in SMALL
                                                      for a in ("bfs", "sssp", "cc", "pagerank", "bc")]
    for r in rows:
        assert not r.failed, (r.algorithm, r.graph, r.failed)
        assert r.auto_ms > 0 and len(r.fixed_ms) + len(r.refused) == 8
        assert r.ratio == r.auto_ms / min(r.fixed_ms.values()) and r.best[1] == min(r.fixed_ms.values())
        # the final round re-timed auto and the first pass's fastest fixed strategies, keeping their first times
        finalists = [name for name in r.first_ms if name != "auto"]
        assert "auto" in r.first_ms and 1 <= len(finalists) <= adaptive.FINALISTS
        first = {name: r.first_ms.get(name, ms) for name, ms in r.fixed_ms.items() if name not in r.once}
        fastest = sorted(first, key=first.get)
        assert sorted(finalists) == sorted(name for name in fastest[:adaptive.FINALISTS]
                                           if first[name] <= adaptive.FINAL_WITHIN * first[fastest[0]])
    by_name = {(r.algorithm, r.graph): r for r in rows}
    assert by_name[("sssp", "kron:7:w")].num_edges > 0  # SSSP runs on the weighted shape
    # PageRank's sum cannot be re-read as async pull re-reads messages: those paths do not apply
    assert sorted(by_name[("pagerank", "kron:7")].refused) == ["async-pull-dd", "async-pull-td"]


def test_a_path_computing_something_else_fails_its_row(monkeypatch):
    """A fixed strategy whose result is not auto's is reported as failed, with its difference, and not timed."""
    from graphgear.bench import suites

    honest = suites.run_algorithm

    def lying(algorithm, graph, source, backend, strategy):
        result = honest(algorithm, graph, source, backend, strategy)
        if getattr(strategy, "path", "") == "sync-pull-td":
            result.distances[np.flatnonzero(result.distances > 0)[:1]] += 1
        return result

    monkeypatch.setattr(adaptive, "run_algorithm", lying)
    (row,) = adaptive_suite(SMALL[:1], ("bfs",), backend="cpu", repeat=1)
    assert list(row.failed) == ["sync-pull-td"] and "distances differ" in row.failed["sync-pull-td"]
    assert "sync-pull-td" not in row.fixed_ms and len(row.fixed_ms) == 7


def test_a_path_far_slower_than_auto_is_timed_by_one_warm_call():
    """Its first call may compile; the second, still SLOW_FACTOR times auto's time, is what the row keeps."""
    calls = []

    def slow():
        calls.append(1)
        return "result"

    probe = iter([(900.0, "r1"), (800.0, "r2")])
    got = adaptive._fixed_time(lambda call: (1.0, call()), lambda call: next(probe), slow, auto_ms=10.0)
    assert got == (800.0, "r2", True)
    probe = iter([(900.0, "r1"), (30.0, "r2")])  # the first call compiled: timed as auto is
    assert adaptive._fixed_time(lambda call: (25.0, call()), lambda call: next(probe), slow, auto_ms=10.0) == (
        25.0, "result", False)
    probe = iter([(40.0, "r1")])  # under the floor: timed as auto is
    assert adaptive._fixed_time(lambda call: (41.0, call()), lambda call: next(probe), slow, auto_ms=1.0)[2] is False


def test_a_slow_first_call_that_loaded_no_module_is_kept():
    """Where the backend counts its kernel modules (the GPU) and the first call loaded none, that call was warm: it is
    kept, and no second call is made; a first call that loaded one is called again."""
    modules = [3]
    calls = []
    for loads, expected in ((0, 1), (1, 2)):
        calls.clear()

        def probe(call, loads=loads):
            calls.append(1)
            modules[0] += loads
            return 900.0, "r"

        got = adaptive._fixed_time(lambda call: (1.0, call()), probe, lambda: "never", auto_ms=10.0,
                                   loaded=lambda: modules[0])
        assert got == (900.0, "r", True) and len(calls) == expected, loads


def test_the_final_round_times_auto_and_the_finalists_side_by_side_in_rotating_order():
    """Each round times every contender by its second of two calls in a row, the order rotating; each one's median
    replaces its first-pass time, which is kept; a fixed strategy outside the round keeps its time."""
    row = _row(10.0, a=5.0, b=6.0, c=50.0)
    order, scripted = [], {"auto": [99, 4.0, 99, 9.0, 99, 5.0], "a": [99, 5.5, 99, 5.0, 99, 7.0],
                           "b": [99, 6.0, 99, 1.0, 99, 6.5]}

    def probe(call):
        name = call()
        order.append(name)
        return scripted[name][len([n for n in order if n == name]) - 1], None

    adaptive._final_round(row, probe, {name: (lambda name=name: name) for name in ("auto", "a", "b")}, rounds=3)
    assert order[::2] == order[1::2] == ["auto", "a", "b", "a", "b", "auto", "b", "auto", "a"]
    assert row.auto_ms == 5.0 and row.fixed_ms == {"a": 5.5, "b": 6.0, "c": 50.0}
    assert row.first_ms == {"auto": 10.0, "a": 5.0, "b": 6.0} and row.ratio == 5.0 / 5.5
    assert row.first_ratio == 10.0 / 5.0  # the first pass's auto / best, shown beside the final one


def test_pagerank_paths_agree_within_the_stopping_rule():
    """Two PageRank iterates that each met networkx's rule (L1 change < N tol) may differ by up to 2 alpha / (1 -
    alpha) N tol; more than that is a different answer."""
    class Ranks:
        def __init__(self, ranks):
            self.ranks = np.asarray(ranks)

    n = 1000
    auto = Ranks(np.full(n, 1 / n))
    bound = 2 * 0.85 / 0.15 * n * 1e-6
    near, far = auto.ranks.copy(), auto.ranks.copy()
    near[:2] += [bound / 4, -bound / 4]
    far[:2] += [bound, -bound]
    assert adaptive._agrees("pagerank", Ranks(near), auto)[0]
    assert not adaptive._agrees("pagerank", Ranks(far), auto)[0]


def _row(auto, **fixed):
    return AdaptiveRow("bfs", "shape", "g", 1, 1, auto, fixed_ms=fixed)


def test_summary_is_the_issues_target():
    rows = [_row(1.0, a=1.0, b=4.0), _row(2.0, a=1.0, b=8.0), _row(1.0, a=4.0, b=1.05), _row(3.0)]
    s = summary(rows)
    assert s["rows"] == 3  # the row where nothing fixed ran is left out
    assert s["within"] == pytest.approx(2 / 3) and s["worst"] == 2.0
    assert s["single"] == "a"  # geometric means: a (1*1*4)^(1/3) = 1.59, b (4*8*1.05)^(1/3) = 3.23
    assert s["gain"] == pytest.approx(4 ** (1 / 3) / 2 ** (1 / 3))
    assert not s["met"]
    met = summary([_row(1.0, a=2.0, b=1.0), _row(1.0, a=1.0, b=2.0)])
    assert met["within"] == 1.0 and met["gain"] == pytest.approx(math.sqrt(2)) and not met["met"]  # 1.41 < 1.5
    assert summary([_row(1.0, a=2.0, b=1.0), _row(1.0, a=1.0, b=4.0), _row(1.0, a=1.0, b=4.0, c=9.0)])["single"] == "a"
    assert summary([_row(1.0)]) == {"rows": 0}


def test_cli_prints_the_table_and_the_target(tmp_path, capsys):
    out = tmp_path / "adaptive.json"
    assert main(["bench", "--suite", "adaptive", "--backend", "cpu", "--scale", "6", "--algorithms", "bfs,cc",
                 "--repeat", "1", "--graphs", str(tmp_path), "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "auto / best" in text and "first pass" in text and "side by side" in text and "target" in text
    report = json.loads(out.read_text())
    assert report["backend"] == "cpu" and report["scale"] == 6 and len(report["rows"]) == 12
    assert {"within", "worst", "single", "gain", "met"} <= set(report["summary"])


def test_cli_refuses_an_algorithm_the_suite_does_not_time(capsys):
    assert main(["bench", "--suite", "adaptive", "--backend", "cpu", "--algorithms", "bfs,scc"]) == 2
    err = capsys.readouterr().err
    assert "scc" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_cli_runs_the_named_shapes_and_logs_each_row(tmp_path, capsys):
    """--shapes runs a part of the suite (the GPU's lattices take a device session of their own); each finished row
    is logged as it ends, so a suite stopped part-way has shown what it measured."""
    out = tmp_path / "adaptive.json"
    assert main(["bench", "--suite", "adaptive", "--backend", "cpu", "--scale", "6", "--algorithms", "bfs",
                 "--repeat", "1", "--graphs", str(tmp_path), "--shapes", "random geometric, road-like lattice",
                 "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert [r["shape"] for r in report["rows"]] == ["road-like lattice", "random geometric"]
    text = capsys.readouterr().out
    assert "bfs on road-like lattice (grid:8:8): auto" in text and "auto / best" in text


def test_cli_refuses_an_unknown_shape(capsys):
    assert main(["bench", "--suite", "adaptive", "--backend", "cpu", "--shapes", "road-like lattice,moebius"]) == 2
    err = capsys.readouterr().err
    assert "'moebius'" in err and "random geometric" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_row_line_says_auto_the_best_and_the_ratio():
    row = AdaptiveRow("bfs", "power-law undirected", "kron:6", 64, 100, 2.0, {"a": 1.0, "b": 4.0}, failed={"c": "x"})
    assert row_line(row) == ("bfs on power-law undirected (kron:6): auto 2.000 ms, best fixed a 1.000 ms, auto / best "
                             "2.00, 1 failed")
    assert row_line(AdaptiveRow("cc", "s", "g", 1, 1, 1.0)).endswith("no fixed strategy ran")


@pytest.mark.gpu
def test_every_fixed_strategy_runs_on_the_gpu_and_agrees():
    pytest.importorskip("cupy")
    from graphgear.backends import cuda_available

    if not cuda_available():
        pytest.skip("needs CuPy and an NVIDIA GPU")
    rows = adaptive_suite(SMALL, ("bfs", "sssp", "cc", "pagerank", "bc"), backend="cuda", repeat=1)
    for r in rows:
        assert not r.failed, (r.algorithm, r.graph, r.failed)
        assert len(r.fixed_ms) + len(r.refused) == len(fixed_strategies("cuda"))


# ------------------------------------------------------------------------------------------------ parts and merging
def _part(tmp_path, name, shapes, algorithms="bfs"):
    out = tmp_path / name
    assert main(["bench", "--suite", "adaptive", "--backend", "cpu", "--scale", "6", "--algorithms", algorithms,
                 "--repeat", "1", "--graphs", str(tmp_path), "--shapes", shapes, "--json", str(out)]) == 0
    return out


def test_a_run_stopped_part_way_keeps_the_rows_it_finished(tmp_path, monkeypatch, capsys):
    """The report is written again as each row ends (complete: false), so a time limit or ^C keeps every finished
    row with each fixed strategy's time; the run's end writes it complete."""
    real = adaptive.run_algorithm

    def stop_at_cc(algorithm, *args, **kwargs):
        if algorithm == "cc":
            raise KeyboardInterrupt
        return real(algorithm, *args, **kwargs)

    monkeypatch.setattr(adaptive, "run_algorithm", stop_at_cc)
    out = tmp_path / "adaptive.json"
    assert main(["bench", "--suite", "adaptive", "--backend", "cpu", "--scale", "6", "--algorithms", "bfs,cc",
                 "--repeat", "1", "--graphs", str(tmp_path), "--json", str(out)]) != 0
    report = json.loads(out.read_text())
    assert report["complete"] is False and [r["algorithm"] for r in report["rows"]] == ["bfs"]
    assert len(report["rows"][0]["fixed_ms"]) > 5 and report["summary"]["rows"] == 1
    monkeypatch.setattr(adaptive, "run_algorithm", real)
    assert json.loads(_part(tmp_path, "whole.json", "road-like lattice").read_text())["complete"] is True


def test_merge_takes_the_target_over_every_part(tmp_path, capsys):
    a = _part(tmp_path, "a.json", "power-law undirected,road-like lattice")
    b = _part(tmp_path, "b.json", "random geometric", "bfs,cc")
    capsys.readouterr()
    merged = tmp_path / "merged.json"
    assert main(["bench", "--suite", "adaptive", "--merge", str(a), str(b), "--json", str(merged)]) == 0
    text = capsys.readouterr().out
    assert "2 reports merged" in text and "target" in text
    report = json.loads(merged.read_text())
    parts = [json.loads(path.read_text()) for path in (a, b)]
    assert report["rows"] == parts[0]["rows"] + parts[1]["rows"] and report["parts"] == [str(a), str(b)]
    rows = adaptive.merge_reports([a, b])[1]
    assert report["summary"] == json.loads(json.dumps(summary(rows))) and report["summary"]["rows"] == 4
    # a part stopped early, and parts of different settings, are merged with a note
    stopped = json.loads(b.read_text())
    stopped.update(complete=False, repeat=3)
    (tmp_path / "stopped.json").write_text(json.dumps(stopped))
    _, rows, notes = adaptive.merge_reports([a, tmp_path / "stopped.json"])
    assert len(rows) == 4 and any("stopped early (2 rows" in n for n in notes) and any("repeat" in n for n in notes)


def _bad(tmp_path, text):
    path = tmp_path / "bad.json"
    path.write_text(text)
    return path


@pytest.mark.parametrize("edit, message", [
    (lambda r: "{", "bad.json: not JSON (line 1"),
    (lambda r: "[]", "bad.json: not a report"),
    (lambda r: json.dumps({**r, "backend": "cuda"}), "bad.json: a report of backend 'cuda'"),
    (lambda r: json.dumps({**r, "rows": [1]}), "bad.json: row 1 is int"),
    (lambda r: json.dumps({**r, "rows": [{k: v for k, v in r["rows"][0].items() if k != "auto_ms"}]}),
     "bad.json: row 1 has no 'auto_ms'"),
    (lambda r: json.dumps({**r, "rows": [{**r["rows"][0], "fixed_ms": {"sync-push-dd": -1.0}}]}),
     "the time of sync-push-dd is -1.0"),
    (lambda r: json.dumps({**r, "rows": [{**r["rows"][0], "num_vertices": "many"}]}), "row 1: num_vertices is 'many'"),
    (lambda r: json.dumps({**r, "rows": [{**r["rows"][0], "first_ms": {"auto": 0}}]}),
     "the time of auto (first pass) is 0"),
    (lambda r: json.dumps({**r, "rows": [{**r["rows"][0], "first_ms": [1.0]}]}), "row 1: first_ms is [1.0]"),
])
def test_merge_refuses_a_bad_report_naming_file_row_and_value(tmp_path, capsys, edit, message):
    good = _part(tmp_path, "good.json", "road-like lattice")
    bad = _bad(tmp_path, edit(json.loads(good.read_text())))
    capsys.readouterr()
    assert main(["bench", "--suite", "adaptive", "--merge", str(good), str(bad)]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_merge_refuses_a_row_twice_a_missing_file_and_run_options(tmp_path, capsys):
    good = _part(tmp_path, "good.json", "road-like lattice")
    capsys.readouterr()
    for argv, message in ((["--merge", str(good), str(good)], "is also in"),
                          (["--merge", str(tmp_path / "none.json")], "none.json: cannot read it"),
                          (["--merge", str(good), "--shapes", "random geometric"], "--merge reads reports and runs "
                                                                                    "nothing; --shapes"),
                          (["--suite", "smoke", "--merge", str(good)], "not --suite smoke's")):
        suite = [] if "--suite" in argv else ["--suite", "adaptive"]
        assert main(["bench", *suite, *argv]) == 2
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1, err


@settings(max_examples=200, deadline=None)
@given(value=st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
                          lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner,
                                                                                       max_size=6),
                          max_leaves=20),
       row=st.fixed_dictionaries({}, optional={name: st.none() | st.integers() | st.floats() | st.text(max_size=6)
                                               | st.dictionaries(st.text(max_size=6), st.floats(), max_size=3)
                                               | st.lists(st.text(max_size=6), max_size=2)
                                               for name in ("algorithm", "shape", "graph", "num_vertices", "num_edges",
                                                            "auto_ms", "fixed_ms", "refused", "failed", "once")}))
def test_merge_fuzz_any_json_is_merged_or_refused_with_graphgear_error(tmp_path_factory, value, row):
    """Any JSON document, and any report whose row has any subset of the fields of any type: merged, or refused with
    GraphgearError, never another exception."""
    folder = tmp_path_factory.mktemp("fuzz")
    for doc in (value, {"backend": "cpu", "rows": [row]}):
        path = folder / "r.json"
        path.write_text(json.dumps(doc))
        try:
            backend, rows, _ = adaptive.merge_reports([path])
        except GraphgearError:
            continue
        assert backend == "cpu" and all(r.auto_ms > 0 for r in rows)
        summary(rows)
