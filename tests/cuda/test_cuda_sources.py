"""Every built-in functor and vertex program compiles as CUDA: the modules the GPU backend would build at run time
are generated here (no GPU, no CuPy) and compiled with nvcc -arch=sm_90, one translation unit for all.

Skipped where nvcc is missing; CI has it, so a functor body that does not compile never lands. Each entry of
FUNCTORS is (functor, role, state dtypes, extra roles) exactly as the algorithm calls the backend.
"""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest

from graphgear.algorithms import _common, bfs
from graphgear.backends.cuda import runtime as rt
from graphgear.backends.cuda import brandes, sources
from graphgear.backends.cuda.sources import ADVANCE_KERNELS

I64, I32, F64, F32, U8, B = np.int64, np.int32, np.float64, np.float32, np.uint8, np.bool_

FUNCTORS = [
    (_common.PARENT, "pull", (F64, I64, I64, B), (("GGC", ("vertex_predicate", _common.PARENT_CANDIDATE)),)),
]
PROGRAMS = [bfs.BFS_PROGRAM]


def _module(entry) -> str:
    functor, role, dtypes, extra = entry
    return sources.functor_module(functor, role, tuple(rt.ctype(d) for d in dtypes), extra)


def _extend_registry() -> None:
    """Algorithms register their GPU functors in CUDA_FUNCTORS / CUDA_PROGRAMS (module attributes) as they gain them."""
    import importlib

    for name in ("sssp", "pagerank", "connected_components", "betweenness", "betweenness_weighted", "color_propagation",
                 "scc"):
        module = importlib.import_module(f"graphgear.algorithms.{name}")
        FUNCTORS.extend(getattr(module, "CUDA_FUNCTORS", ()))
        PROGRAMS.extend(getattr(module, "CUDA_PROGRAMS", ()))
    FUNCTORS.extend(importlib.import_module("graphgear.backends.cuda.operators").CUDA_FUNCTORS)  # the backend's own


_extend_registry()


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not found")
def test_generated_modules_compile(tmp_path):
    modules = [_module(e) for e in FUNCTORS] + [sources.program_module(p) for p in PROGRAMS] + [sources.UTILITY_SOURCE,
                                                                                          brandes.SOURCE]
    modules += [sources.persistent_module(bfs.BFS_PROGRAM, balancer, group)
                for balancer in ADVANCE_KERNELS.values()
                if balancer != "adv_segmented"  # a program's sync push only (Strategy refuses it async)
                for group in sources.PERSISTENT_PULL_GROUPS[:1]]
    modules.append(_afforest_steps())
    modules.append(_trim_steps())
    for functor, role, dtypes, _ in FUNCTORS:  # the async (persistent) form of every advance functor
        if role == "advance":
            modules.append(sources.persistent_advance_module(functor, tuple(rt.ctype(d) for d in dtypes), "adv_twc"))
    path = tmp_path / "modules.cu"
    path.write_text(sources.nvcc_bundle(modules))
    result = subprocess.run(
        ["nvcc", "-arch=sm_90", "-std=c++17", "-c", "-o", str(tmp_path / "modules.o"), f"-I{rt.KERNEL_DIR}", str(path)],
        capture_output=True, text=True,
    )
    assert result.returncode == 0, result.stderr[-4000:]


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not found")
def test_device_launch_modules_compile(tmp_path):
    """Dynamic parallelism's modules (runtime.compile_module with device_launch): every advance functor's module and a
    vertex program's, with GG_DEVICE_LAUNCH defined, compile with -rdc=true (their kernels launch gg_launched_row)."""
    advance = [_module(e) for e in FUNCTORS if e[1] == "advance"]
    path = tmp_path / "launching.cu"
    path.write_text(rt.DEVICE_LAUNCH_LINE + sources.nvcc_bundle(advance + [sources.program_module(bfs.BFS_PROGRAM)]))
    result = subprocess.run(
        ["nvcc", "-arch=sm_90", "-std=c++17", "-rdc=true", "-ptx", "-o", str(tmp_path / "launching.ptx"),
         f"-I{rt.KERNEL_DIR}", str(path)], capture_output=True, text=True,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    ptx = (tmp_path / "launching.ptx").read_text()
    assert "gg_launched_row" in ptx and "LaunchDevice" in ptx  # the children, and their launch (CDP2)


def _afforest_steps() -> str:
    """The step driver's module as Afforest's topology-driven run builds it (backends/cuda/steps.py)."""
    from graphgear.algorithms import connected_components as cc
    from graphgear.backends.cuda.steps import step_module

    afforest = tuple(rt.ctype(d) for d in cc._AFFOREST_DTYPES)
    sample = tuple(rt.ctype(d) for d in (I64, I32, I32, I64))
    start = tuple(rt.ctype(d) for d in (I32, I64, I64))
    states = (afforest, afforest, afforest, sample, start)  # the rounds' states (their own params rows), the sampling's
    return step_module([(cc.START, 4), (cc.LINK_SAMPLED, 0), (cc.COMPRESS, 0), (cc.LINK_SAMPLED, 1),
                        (cc.COMPRESS, 1), (cc.SAMPLE_ROOTS, 3), (cc.SAMPLE_FREQUENT, 3), (cc.LINK_REMAINING, 2),
                        (cc.COMPRESS, 2)], states)


def test_step_module_separates_steps_by_grid_barriers():
    source = _afforest_steps()
    assert source.count("gg_grid_sync(bar, status)") == 8  # between the 9 steps, none after the last
    assert source.count("stamps[2 + slot]") == 9 and "stamps[1] = gg_globaltimer()" in source  # every step's end
    assert "stamps[0] = slot;" in source  # the count of steps run
    assert "for (int v = first; v < c6; v += stride) f(v);" in source  # SampleFrequentElement over its own count
    assert source.count("int* a0_4;") == 1 and "GGS2 f{a0_0, a0_1, a0_2, a0_3, a0_4, a0_5}" in source  # a state once
    assert "GGS0 f{a4_0, a4_1, a4_2}" in source
    # one struct argument, whose fields are those the host packs, in its order (CudaBackend.run_steps)
    assert "steps(const __grid_constant__ GGStepArgs A)" in source
    fields = [line.strip().rstrip(";") for line in source.split("struct GGStepArgs {\n")[1].split("};")[0].splitlines()]
    assert fields[:4] == ["u32* bar", "int* status", "u64* stamps", "long long c0"] and fields[-1] == "long long* a4_2"
    assert len(fields) == 3 + 9 + 3 * 6 + 4 + 3


def _trim_steps() -> str:
    """The step driver's module as SCC's trim builds it: one loop of two steps and its rule."""
    from graphgear.algorithms import scc
    from graphgear.backends.cuda.steps import step_module

    trim = tuple(rt.ctype(d) for d in (I64, I32, I64, I32, np.int8, I64, I64))
    return step_module([(((scc.TRIM_PASS, 0), (scc.TRIM_TALLY, 0)), (scc.TRIM_AGAIN_RULE, 0), scc.TRIM_ROUNDS)], (trim,))


def test_step_module_loops_until_its_rule_fails():
    from graphgear.algorithms.scc import TRIM_ROUNDS

    source = _trim_steps()
    loop = source[source.index("for (int round = 0;; ++round) {"):]
    # a barrier between the two steps, one after the round, one after the rule: the next round's writes wait for it
    assert loop.count("gg_grid_sync(bar, status)") == 3
    assert f"const bool again = round + 1 < {TRIM_ROUNDS} && GGP0{{a0_0, a0_1, a0_2, a0_3, a0_4, a0_5, a0_6}}(round);" in loop
    assert loop.index("const bool again") < loop.rindex("gg_grid_sync") < loop.index("if (!again) break;")
    assert "bool operator()(int v) const" in source[source.index("struct GGP0"):]  # the rule is a vertex predicate


def test_functor_state_names_must_match_the_state():
    from graphgear.errors import BackendError
    from graphgear.functor import Functor

    f = Functor("two", None, "return level[v] == depth[0];", state=("level", "depth"))
    assert "int* level;" in rt.functor_struct("GGF", "vertex_predicate", f.cuda, ("int", "int"), f.state)
    with pytest.raises(BackendError, match="names 2 state arrays"):
        rt.functor_struct("GGF", "vertex_predicate", f.cuda, ("int",), f.state)


def test_persistent_run_log_arithmetic():
    """Edges processed count push rounds' outDegree(S) and every arc for a pull round; durations come from the
    device clock stamps (ns) of consecutive rounds and the end stamp."""
    from graphgear.backends.cuda.backend import PersistentRun
    from graphgear.frontier import Frontier

    log = np.array([[1, 1, 10, 0, 1_000], [10, 10, 500, 1, 3_000], [200, 150, 20, 0, 3_500]], dtype=np.int64)
    run = PersistentRun(log, 3, Frontier.empty(5), _end=4_500)
    assert run.edges_processed(num_arcs=1_000) == 10 + 1_000 + 20
    np.testing.assert_allclose(run.seconds(), [2e-6, 0.5e-6, 1e-6])


def test_modules_name_the_headers_they_include(tmp_path, monkeypatch):
    """CuPy's disk cache keys a module by its source text, not by the headers it includes: every module's source
    starts with the hash of kernels/*.cuh, so an edited header (or a graphgear upgrade) compiles anew instead of
    loading a binary built from the old one."""
    import types

    compiled = []

    class FakeModule:
        def __init__(self, code, options, name_expressions):
            compiled.append(code)

        def compile(self):
            pass

    kernels = tmp_path / "kernels"
    shutil.copytree(rt.KERNEL_DIR, kernels)
    monkeypatch.setattr(rt, "KERNEL_DIR", kernels)
    monkeypatch.setattr(rt, "cupy", lambda: types.SimpleNamespace(RawModule=FakeModule))
    monkeypatch.setattr(rt, "_modules", {})
    monkeypatch.setattr(rt, "_headers_hash", None)
    before = rt.headers_hash()
    rt.compile_module('#include "power.cuh"\n')
    assert compiled[-1].startswith(f"// graphgear kernels/*.cuh {before}\n")
    assert compiled[-1].endswith('#include "power.cuh"\n')
    (kernels / "power.cuh").write_text((kernels / "power.cuh").read_text() + "\n// edited\n")
    monkeypatch.setattr(rt, "_headers_hash", None)
    monkeypatch.setattr(rt, "_modules", {})
    after = rt.headers_hash()
    assert after != before
    rt.compile_module('#include "power.cuh"\n')
    assert compiled[-1].startswith(f"// graphgear kernels/*.cuh {after}\n")


def test_a_kernel_table_compiles_its_own_source_for_device_launches(monkeypatch):
    """Dynamic parallelism's module is the table's own source (not its compiled text read back) with the
    device-launch define first, compiled with -rdc=true, once; the table built with device_launch is its own."""
    import types

    compiled = []

    class FakeModule:
        def __init__(self, code, options, name_expressions):
            compiled.append((code, options))

        def compile(self):
            pass

    monkeypatch.setattr(rt, "cupy", lambda: types.SimpleNamespace(RawModule=FakeModule))
    monkeypatch.setattr(rt, "_modules", {})
    source = '#include "power.cuh"\n'
    table = rt.KernelTable(source)
    launching = table.with_device_launch()
    assert table.with_device_launch() is launching and launching.with_device_launch() is launching
    assert launching.source == source and len(compiled) == 2
    (plain, plain_options), (code, options) = compiled
    assert plain.endswith("\n" + source) and "-rdc=true" not in plain_options
    assert code.endswith("\n" + rt.DEVICE_LAUNCH_LINE + source) and "-rdc=true" in options


@pytest.mark.parametrize("header, struct, kernel", [
    ("persistent.cuh", "GGPersistentArgs", lambda: sources.persistent_module(bfs.BFS_PROGRAM, "adv_twc", 1)),
    ("power.cuh", "GGPowerArgs", lambda: ""),
])
def test_kernel_structs_follow_the_headers(header, struct, kernel):
    """A kernel's one struct argument: the host reads its fields from the header (one 8-byte field a line, in order)
    and packs each by its kind; every field the kernel reads (a.<name>) is among them."""
    import re
    from types import SimpleNamespace

    from graphgear.backends.cuda.backend import KernelStruct

    layout = KernelStruct(header, struct)
    names = [name for name, _ in layout.fields]
    assert len(set(names)) == len(names) == len(layout.word) > 40
    text = (rt.KERNEL_DIR / header).read_text()
    used = set(re.findall(r"\ba\.(\w+)", kernel() + text[text.index(f"struct {struct} {{"):]))
    assert used and used <= {re.split(r"[.\[]", name)[0] for name in names}
    kinds = dict(layout.fields)
    pointer, real, integer = (next(name for name in names if kinds[name] == kind) for kind in "pfi")

    def device(ptr):
        return SimpleNamespace(data=SimpleNamespace(ptr=ptr))

    args = layout.pack({pointer: device(0x1000), real: 0.5, integer: -7})
    assert args.shape == (1,) and args.dtype.itemsize == 8 * len(names)
    words, reals = args.view(np.int64), args.view(np.float64)
    assert words[layout.word[pointer]] == 0x1000 and reals[layout.word[real]] == 0.5
    assert words[layout.word[integer]] == -7 and np.count_nonzero(words) == 3
    assert layout.pack({pointer: None, integer: np.uint64(5)}).view(np.int64)[layout.word[integer]] == 5


def test_struct_fields_nest_and_expand_arrays():
    """A struct field of another struct of the header is its words, named through it; an array of pointers a word
    per element; pack takes a dict and a sequence for them, and `into` keeps the fields it does not name."""
    from types import SimpleNamespace

    from graphgear.backends.cuda.backend import KernelStruct

    layout = KernelStruct("persistent.cuh", "GGPersistentArgs")
    names = [name for name, _ in layout.fields]
    assert names[-1] == "st.pulled_bits" and names.index("st.queue[1]") == names.index("st.queue[0]") + 1
    assert dict(layout.fields)["st.delta"] == "f" and "visited" not in names and "st.visited" in names
    queues = (SimpleNamespace(data=SimpleNamespace(ptr=0x10)), SimpleNamespace(data=SimpleNamespace(ptr=0x20)))
    template = layout.pack({"n": 9, "st": {"queue": queues, "delta": 2.5}})
    args = layout.pack({"st": {"visited": 0x30}, "qsize": 1}, into=template.copy())
    words, reals = args.view(np.int64), args.view(np.float64)
    assert [words[layout.word[f"st.queue[{i}]"]] for i in (0, 1)] == [0x10, 0x20]
    assert reals[layout.word["st.delta"]] == 2.5 and words[layout.word["n"]] == 9
    assert words[layout.word["st.visited"]] == 0x30 and words[layout.word["qsize"]] == 1
    assert np.count_nonzero(template.view(np.int64)) == 4  # the template is not changed by a launch's copy


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not found")
@pytest.mark.parametrize("header, struct", [("persistent.cuh", "GGPersistentArgs"), ("power.cuh", "GGPowerArgs")])
def test_kernel_struct_offsets_match_the_packing(tmp_path, header, struct):
    """The compiler puts every field where the host packs it: word i at byte 8i, and nothing after the last."""
    from graphgear.backends.cuda.backend import KernelStruct

    layout = KernelStruct(header, struct)
    checks = "".join(f'static_assert(__builtin_offsetof({struct}, {name}) == {8 * i}, "{name}");\n'
                     for i, (name, _) in enumerate(layout.fields))
    path = tmp_path / "offsets.cu"
    path.write_text(f'#define GG_BLOCK 1024\n#include "{header}"\n{checks}'
                    f'static_assert(sizeof({struct}) == {8 * len(layout.fields)}, "size");\n')
    result = subprocess.run(["nvcc", "-arch=sm_90", "-std=c++17", "-c", "-o", str(tmp_path / "offsets.o"),
                             f"-I{rt.KERNEL_DIR}", str(path)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]


def test_control_words_sit_where_the_kernel_expects_them():
    """The kernel's prologue clears the control words but the barrier's and the status's: the header's defines and
    the backend's word indices name the same words."""
    import re

    from graphgear.backends.cuda import backend

    header = (rt.KERNEL_DIR / "persistent.cuh").read_text()
    define = {name: int(value) for name, value in re.findall(r"#define (GG_\w+_WORDS?) (\d+)", header)}
    assert define == {"GG_CONTROL_WORDS": backend.CONTROL_WORDS, "GG_BARRIER_WORD": backend.BARRIER_WORD,
                      "GG_STATUS_WORD": backend.STATUS_WORD}


def test_kernel_c_counter_packs_as_the_header_says():
    """Kernel C's packed counter (common.cuh GG_SCAN_EDGE_BITS): the host unpacks what a warp's atomic adds, and uses
    it only where a level's queue and every arc fit the two fields."""
    from types import SimpleNamespace

    from graphgear.backends.cuda import structs

    bits = sources.header_constant("common.cuh", "GG_SCAN_EDGE_BITS")
    assert structs.SCAN_EDGE_BITS == bits
    packed = (3 << bits) + 40 + (5 << bits) + 2  # two warps' adds: 3 vertices of 40 edges, 5 of 2
    assert structs.unpack_scan_counter(packed) == (8, 42)
    assert structs.fits_scan_counter(SimpleNamespace(num_arcs=2**bits - 1), 2 ** (64 - bits) - 1)
    assert not structs.fits_scan_counter(SimpleNamespace(num_arcs=2**bits), 10)
    assert not structs.fits_scan_counter(SimpleNamespace(num_arcs=10), 2 ** (64 - bits))


def test_merge_path_chunk_by_busato_and_bombieris_rule():
    """merge_path's chunk: a level's edges over the resident threads, in whole blocks, at most the rows a block stages
    in shared memory (advance.cuh GG_MERGE_PATH_ROWS): a block of 256 takes 256 edges while the level has no more
    edges than threads, 512 up to twice as many, and never more than the rows staged."""
    rows = sources.header_constant("advance.cuh", "GG_MERGE_PATH_ROWS")
    assert sources.MERGE_PATH_ROWS == rows
    threads = 1000
    assert [sources.merge_path_chunk(e, threads, 256) for e in (0, 1, 1000, 1001, 2000, 3500)] == [256, 256, 256, 512,
                                                                                                   512, 1024]
    assert sources.merge_path_chunk(10**9, threads, 256) == rows
    assert sources.merge_path_chunk(10**9, 1, 32) == rows


class _HostLog:
    """A log as the device leaves it (BrandesRun reads it with .get())."""

    def __init__(self, words):
        self.words = np.asarray(words, dtype=np.int64)

    def get(self):
        return self.words.copy()


def _brandes_log(rows, abort=0, capacity=None):
    capacity = len(rows) if capacity is None else capacity
    words = [len(rows), abort, 0] + [x for row in rows[:capacity] for x in row]
    return _HostLog(words + [0] * (brandes.FIELDS * (capacity - min(capacity, len(rows)))))


def test_brandes_run_log():
    """BrandesRun turns the kernel's log into (phase, level, |level|, outDegree, seconds): each row's time is the
    span since the row before, a source's start row takes none; rows past the log's capacity are counted."""
    rows = [(2, 7, 0, 0, 1000), (0, 0, 1, 3, 3000), (0, 1, 3, 9, 6000), (1, 1, 3, 0, 10000),
            (2, 8, 0, 0, 20000), (0, 0, 1, 2, 21000)]
    run = brandes.BrandesRun(_brandes_log(rows))
    expected = [("start", 7, 0, 0, 0.0), ("forward", 0, 1, 3, 2e-6), ("forward", 1, 3, 9, 3e-6),
                ("backward", 1, 3, 0, 4e-6), ("start", 8, 0, 0, 0.0), ("forward", 0, 1, 2, 1e-6)]
    levels = run.levels()
    assert [row[:4] for row in levels] == [row[:4] for row in expected]
    assert [row[4] for row in levels] == pytest.approx([row[4] for row in expected])
    assert run.seconds() == pytest.approx(1e-5) and run.unlogged() == 0
    assert brandes.BrandesRun(_brandes_log(rows, capacity=4)).unlogged() == 2


def test_brandes_kernel_by_largest_degree():
    """Brandes' device loop expands a graph's levels one thread per vertex until a row reaches HIERARCHICAL_DEGREE
    arcs, then by Slota's hierarchical expansion (kernels/brandes.cuh)."""
    assert brandes.HIERARCHICAL_DEGREE == 256
    assert [brandes.kernel_name(d) for d in (0, 255, 256, 10**6)] == ["brandes", "brandes", "brandes_hierarchical",
                                                                       "brandes_hierarchical"]


def test_brandes_run_that_gave_up_raises():
    from graphgear.errors import BackendError

    run = brandes.BrandesRun(_brandes_log([(2, 0, 0, 0, 5)], abort=1))
    with pytest.raises(BackendError, match="grid barrier gave up"):
        run.check()


def test_header_constants_are_read_from_the_kernels():
    """The control-word layout the host reads back is the one persistent.cuh #defines (sources.header_constant),
    and a constant the header lacks is a BackendError naming both."""
    import re

    from graphgear.backends.cuda import persistent
    from graphgear.backends.cuda.runtime import KERNEL_DIR
    from graphgear.backends.cuda.sources import header_constant
    from graphgear.errors import BackendError

    text = (KERNEL_DIR / "persistent.cuh").read_text()
    for name, value in (("GG_CONTROL_WORDS", persistent.CONTROL_WORDS), ("GG_STATUS_WORD", persistent.STATUS_WORD),
                        ("GG_BARRIER_WORD", persistent.BARRIER_WORD), ("GG_LOG_FIELDS", persistent.LOG_FIELDS)):
        assert re.search(rf"#define {name} {value}\b", text), name
        assert header_constant("persistent.cuh", name) == value
    assert persistent.REPORT_WORDS.start == persistent.STATUS_WORD
    with pytest.raises(BackendError, match="persistent.cuh does not #define GG_NO_SUCH"):
        header_constant("persistent.cuh", "GG_NO_SUCH")


def test_program_push_strategy_keeps_the_named_dedup_of_idempotent_programs():
    """A min/max/or program's push runs the frontier and duplicate removal its strategy names; a sum program's queue
    frontier claims each vertex once (dedup=atomic), since computing it twice would add its buffer twice."""
    from graphgear.backends.cuda.programs import program_push_strategy
    from graphgear.backends.cuda.structs import MONOIDS
    from graphgear.engine.strategy import Strategy

    for dedup in ("none", "warp_hash", "block", "lookup"):
        named = Strategy(frontier="edge_queue", dedup=dedup)
        for monoid in ("min", "max", "or"):
            assert program_push_strategy(named, MONOIDS[monoid]) is named
        assert program_push_strategy(named, MONOIDS["sum"]).dedup == "atomic"
    dense = Strategy(frontier="bitmap")
    assert program_push_strategy(dense, MONOIDS["sum"]) is dense
