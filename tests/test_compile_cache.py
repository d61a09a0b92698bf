"""numba compiles each CPU kernel once per machine: a second process loads every kernel from the on-disk cache.

The CPU kernels are templates specialised per functor (backends/cpu/templates.py); a specialisation takes no function
argument, so numba's cache key is stable across processes. These tests run the seven algorithms in a child process
twice: the second child must compile nothing (numba's "numba:compile" event fires for every compilation, never for a
cache load) and its first calls must be quick. The cache is numba's own folder for this install (a fresh checkout
compiles in the first child). Time bounds are generous (a loaded 2-core machine) but far below a compilation.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
import types

import numba
import numpy as np
import pytest

from graphgear.backends.cpu import operators as ops
from graphgear.backends.cpu import templates
from graphgear.functor import cpu_functor

CHILD = textwrap.dedent(
    """
    import json, time
    import numba.core.event as event

    compiled = []

    class Compilations(event.Listener):
        def on_start(self, e):
            fn = e.data["dispatcher"].py_func
            compiled.append(f"{fn.__module__}.{fn.__qualname__}")

        def on_end(self, e):
            pass

    event.register("numba:compile", Compilations())
    import graphgear as gg

    g, gw = gg.load("kron:10"), gg.load("kron:10:w")
    s = int(g.out_degree().argmax())
    calls = {
        "bfs": lambda: gg.bfs(g, s, backend="cpu").distances,
        "sssp": lambda: gg.sssp(gw, s, backend="cpu").distances,
        "pagerank": lambda: gg.pagerank(g, backend="cpu").ranks,
        "connected_components": lambda: gg.connected_components(g, backend="cpu").labels,
        "strongly_connected_components": lambda: gg.strongly_connected_components(g, backend="cpu").labels,
        "betweenness_centrality": lambda: gg.betweenness_centrality(g, k=8, seed=0, backend="cpu").centrality,
        "color_propagation": lambda: gg.color_propagation(g, backend="cpu").colors,
        "bfs_high_diameter": lambda: gg.bfs(gg.load("grid:20:20"), 0, backend="cpu").distances,
        "scc_high_diameter": lambda: gg.strongly_connected_components(gg.load("grid:20:20"), backend="cpu").labels,
    }
    first = {}
    for name, call in calls.items():
        start = time.perf_counter()
        call()
        first[name] = time.perf_counter() - start
    print("RESULT " + json.dumps({"first": first, "compiled": compiled}))
    """
)
FIRST_CALL_BOUND = 1.5  # seconds; a warm first call takes 0.01-0.08 s here, a compiling one 0.7-7 s


def run_child() -> dict:
    done = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stderr[-3000:]
    line = next(x for x in done.stdout.splitlines() if x.startswith("RESULT "))
    return json.loads(line[len("RESULT "):])


@pytest.fixture(scope="module")
def second_child() -> dict:
    run_child()  # compiles what the cache lacks (everything, in a fresh checkout)
    return run_child()


def test_second_process_compiles_nothing(second_child):
    assert second_child["compiled"] == [], f"compiled again: {second_child['compiled']}"


def test_second_process_first_calls_are_quick(second_child):
    slow = {k: round(v, 3) for k, v in second_child["first"].items() if v > FIRST_CALL_BOUND}
    assert not slow, f"first calls slower than {FIRST_CALL_BOUND} s in a warm process: {slow}"


def test_cli_run_is_quick_with_a_warm_cache(second_child):
    """`graphgear run bfs kron:10` in a new process: import, generate, run, print."""
    command = [sys.executable, "-m", "graphgear", "run", "bfs", "kron:10", "--backend", "cpu"]
    subprocess.run(command, capture_output=True, timeout=600, check=True)  # warm whatever the CLI alone needs
    start = time.perf_counter()
    subprocess.run(command, capture_output=True, timeout=600, check=True)
    assert time.perf_counter() - start < 4.0  # about 0.9 s here; compiling BFS alone took 2.5-5.7 s


# ------------------------------------------------------------------------------------------------ the templates


@cpu_functor
def _mark(v, state):  # pragma: no cover - numba
    state[0][v] = 1


def test_a_specialisation_is_cached_under_its_functors_name():
    kernel = ops.for_each_queue[_mark]
    assert kernel is ops.for_each_queue[_mark]  # made once per process
    assert templates.is_cached(kernel)
    assert kernel.py_func.__qualname__.startswith("for_each_queue___mark_")
    out = np.zeros(5, dtype=np.int8)
    kernel(np.array([1, 3], dtype=np.int64), (out,))
    assert out.tolist() == [0, 1, 0, 1, 0]


def test_a_closure_functor_runs_uncached():
    """A functor whose closure cells the digest cannot see is specialised in this process only."""
    value = 7

    @cpu_functor
    def put(v, state):  # pragma: no cover - numba
        state[0][v] = value

    kernel = ops.for_each_queue[put]
    assert not templates.is_cached(kernel)
    out = np.zeros(3, dtype=np.int64)
    kernel(np.array([2], dtype=np.int64), (out,))
    assert out.tolist() == [0, 0, 7]


def test_the_digest_follows_the_functors_source_and_options(tmp_path, monkeypatch):
    """An edited functor, an edited helper it calls in another file, a changed constant it reads, or other numba
    options give another cache entry: numba itself checks only the template's file."""
    (tmp_path / "gg_helper_mod.py").write_text("import numba\n@numba.njit\ndef helper(x):\n    return x + 1\n")
    functor_source = ("import numba\nfrom gg_helper_mod import helper\nSTEP = 2\n"
                      "@numba.njit\ndef f(v, state):\n    state[0][v] = helper(STEP)\n")
    (tmp_path / "gg_functor_mod.py").write_text(functor_source)
    monkeypatch.syspath_prepend(str(tmp_path))

    def digest(**options) -> str:
        for name in ("gg_functor_mod", "gg_helper_mod"):
            sys.modules.pop(name, None)
        module = __import__("gg_functor_mod")
        templates._file_digest.cache_clear()
        return templates._digest(ops.for_each_queue.py_func, (module.f,), options or {"parallel": True})

    first = digest()
    assert first and digest() == first
    assert digest(parallel=False) != first
    (tmp_path / "gg_helper_mod.py").write_text("import numba\n@numba.njit\ndef helper(x):\n    return x + 2\n")
    second = digest()
    assert second != first
    (tmp_path / "gg_functor_mod.py").write_text(functor_source.replace("STEP = 2", "STEP = 3"))
    assert digest() not in (first, second)


def test_templates_check_their_slots():
    with pytest.raises(TypeError, match="never calls its slot"):
        templates.template("functor")(lambda queue, state: None)
    with pytest.raises(TypeError, match="takes 1 functors, got 2"):
        ops.for_each_queue[_mark, _mark]


def test_a_slotless_template_is_a_cached_kernel():
    @templates.template(nogil=True)
    def add_one(a):  # pragma: no cover - numba
        for i in range(a.shape[0]):
            a[i] += 1

    a = np.zeros(3)
    add_one(a)
    assert a.tolist() == [1.0, 1.0, 1.0] and isinstance(add_one[()], numba.core.registry.CPUDispatcher)
    assert isinstance(add_one, templates.KernelTemplate) and not isinstance(add_one, types.FunctionType)
