"""The package's layers and the backend contract, checked from the source (issue 23: imports point down only; no
algorithm, engine module or program runner asks a backend's name or probes its attributes).

Layers, lowest first; a module may import from its own layer or a lower one, never a higher one (imports inside
functions count too: a deferred import is still a dependency):

    base        errors, memory, progress, the numba cache
    model       graph (model, io, generate, layout), functor, operators, frontier, plot (draws what it is given)
    engine      strategy, controller (SEP-Graph's rules), trace
    backends    the CPU and CUDA backends and their contract (backends/base.py)
    runner      program (vertex programs and their runner), results
    algorithms  one module per algorithm
    distributed partitioned graphs and their algorithms over Dask workers
    surface     api, nx_backend, bench, cli, the package itself
"""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

import graphgear as gg
from conftest import BACKENDS

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "graphgear"
LAYERS = (
    ("errors", "memory", "progress", "_numba_cache"),
    ("graph", "functor", "operators", "frontier", "plot"),
    ("engine",),
    ("backends",),
    ("program", "results"),
    ("algorithms",),
    ("distributed",),
    ("api", "nx_backend", "bench", "cli", "__init__", "__main__"),
)


def _layer(parts: tuple[str, ...]) -> int:
    head = parts[0] if parts else "__init__"
    for i, names in enumerate(LAYERS):
        if head in names:
            return i
    raise AssertionError(f"graphgear.{'.'.join(parts)} is in no layer: add it to LAYERS")


def _modules() -> list[tuple[tuple[str, ...], Path]]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        found.append((parts, path))
    return found


def _imported(parts: tuple[str, ...], tree: ast.AST, is_package: bool) -> list[tuple[tuple[str, ...], int]]:
    """graphgear modules that `tree` imports, as parts relative to the package, with the line."""
    here = list(parts if is_package else parts[:-1])
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - (node.level - 1)] if node.level > 1 else here
                target = tuple(base) + tuple(node.module.split(".") if node.module else ())
            elif node.module and node.module.split(".")[0] == "graphgear":
                target = tuple(node.module.split(".")[1:])
            else:
                continue
            for alias in node.names:  # "from .. import x": x is a module, or a name of the package's __init__
                module = target + (alias.name,)
                is_module = (PACKAGE.joinpath(*module).with_suffix(".py").exists()
                             or PACKAGE.joinpath(*module).is_dir())
                out.append((module if is_module else (target or ("__init__",)), node.lineno))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "graphgear":
                    out.append((tuple(alias.name.split(".")[1:]), node.lineno))
    return out


def test_imports_point_down_only():
    wrong = []
    for parts, path in _modules():
        mine = _layer(parts)
        tree = ast.parse(path.read_text(), str(path))
        for target, line in _imported(parts, tree, path.name == "__init__.py"):
            if _layer(target) > mine:
                wrong.append(f"{path.relative_to(PACKAGE)}:{line} imports graphgear.{'.'.join(target)} "
                             f"({LAYERS[_layer(target)][0]} layer, above {LAYERS[mine][0]})")
    assert not wrong, "\n".join(wrong)


ASKERS = ("algorithms", "engine", "program")  # what must ask capabilities, never a backend's name or attributes


def _asks_by_name(node: ast.AST) -> bool:
    """`<x>.name == "cpu"/"cuda"` (or !=, in): a branch on a backend's name."""
    if not isinstance(node, ast.Compare):
        return False
    sides = [node.left, *node.comparators]
    named = any(isinstance(s, ast.Attribute) and s.attr == "name" for s in sides)
    literal = any(isinstance(s, ast.Constant) and s.value in ("cpu", "cuda") for s in sides)
    return named and literal


def _probes(node: ast.AST) -> bool:
    """getattr(be, ...) / hasattr(be, ...) on something called be or backend."""
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr")
            and node.args and isinstance(node.args[0], (ast.Name, ast.Attribute))
            and ast.unparse(node.args[0]).split(".")[-1] in ("be", "backend"))


def test_algorithms_ask_capabilities_not_names():
    wrong = []
    for parts, path in _modules():
        if parts[0] not in ASKERS:
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if _asks_by_name(node) or _probes(node):
                wrong.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: {ast.unparse(node)}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("snippet,caught", [
    ("if be.name == 'cuda': pass", True),
    ("x = getattr(be, 'fused_power', False)", True),
    ("x = be.capabilities.fused_power", False),
    ("trace = Trace(backend=be.name)", False),
])
def test_the_check_can_fail(snippet, caught):
    """The name/probe check sees what it is for (a test that cannot fail proves nothing)."""
    tree = ast.parse(snippet)
    assert any(_asks_by_name(n) or _probes(n) for n in ast.walk(tree)) == caught


def test_every_backend_declares_capabilities():
    from graphgear.backends import Backend, Capabilities, get_backend, is_backend

    be = get_backend("cpu")
    assert isinstance(be, Backend) and is_backend(be)
    assert isinstance(be.capabilities, Capabilities)
    assert be.capabilities.async_order == "fifo" and not be.capabilities.device_traversal
    assert not is_backend(object()) and not is_backend("cpu")


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_step_plan_runs_as_run_steps_with_its_per_run_arrays_replaced(backend):
    """step_plan(steps, per_run).run(*arrays) computes what run_steps computes on the steps with those arrays in
    place (a state shared by two steps stays one state), keeps no per-run array of the planning, and refuses a wrong
    count of arrays."""
    import gc
    import weakref

    from graphgear.algorithms import connected_components as cc
    from graphgear.backends import get_backend

    be = get_backend(backend)
    n = 40
    initial = np.zeros(cc.PARAMS + 1, dtype=np.int64)
    initial[0], initial[cc.PARAMS] = 7, n
    initial = be.asarray(initial)

    def arrays():
        return be.xp.full(n, -1, dtype=np.int32), be.xp.zeros(cc.PARAMS, dtype=np.int64)

    comp, final = arrays()
    state = (comp, final, initial)
    steps = [(cc.START, state, n), (cc.START, state, n)]
    plan = be.step_plan(steps, per_run=(comp, final))
    planned = weakref.ref(comp) if backend == "cpu" else None  # a NumPy array can be watched; a CuPy one cannot
    del comp, final, state, steps
    gc.collect()
    assert planned is None or planned() is None
    for _ in range(2):
        comp, final = arrays()
        plan.run(comp, final).check()
        np.testing.assert_array_equal(be.to_host(comp), np.arange(n))
        np.testing.assert_array_equal(be.to_host(final), be.to_host(initial)[:cc.PARAMS])
    with pytest.raises(TypeError, match="2 per-run arrays"):
        plan.run(comp)


def test_a_step_plan_replaces_per_run_arrays_inside_a_repeat_and_its_rule():
    """The generic plan (the CPU's) puts a run's arrays into a Repeat's body and its rule's state too: the body
    writes this run's comp and row, and the rule reads them (vertex 0 is the row's giant root, so the loop stops
    after one of its 2 rounds; the planning's arrays would have run both)."""
    from graphgear.algorithms import connected_components as cc
    from graphgear.backends import get_backend
    from graphgear.backends.base import Repeat

    be = get_backend("cpu")
    n = 12
    g = gg.load("grid:3:4")
    initial = np.zeros(cc.PARAMS + 1, dtype=np.int64)
    initial[2], initial[cc.PARAMS] = cc.ROOT_BITS, n  # the giant root's key names vertex 0

    def arrays():
        return np.full(n, -1, dtype=np.int32), np.full(cc.PARAMS, -5, dtype=np.int64)

    comp, final = arrays()
    rule_state = (g.offsets, g.indices, g.offsets, g.indices, comp, final)
    start = (cc.START, (comp, final, initial), max(n, cc.PARAMS))
    plan = be.step_plan([Repeat((start,), cc.OUTSIDE_GIANT, rule_state, 2)], per_run=(comp, final))
    comp, final = arrays()
    run = plan.run(comp, final)
    assert len(run.seconds()) == 1  # the rule read this run's comp and row: vertex 0 is in the giant component
    np.testing.assert_array_equal(comp, np.arange(n))
    np.testing.assert_array_equal(final, initial[:cc.PARAMS])
