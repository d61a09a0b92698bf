"""CUDA C++ source generation (no CuPy needed): the extern "C" wrappers that instantiate the kernel templates of
kernels/*.cuh around a functor struct or a vertex program, one module per (functor, state signature).

Kept apart from the backend so the sources can be generated and compiled with nvcc on a machine without a GPU
(tests/cuda/test_cuda_sources.py), catching a functor body that does not compile before it reaches the device.
"""

from __future__ import annotations

import re
from typing import Any

from ...errors import BackendError, StrategyError
from . import runtime as rt

# near-far's split pulls: rows of this many in-arcs and more go in chunks of as many, a warp each (GG_HEAVY_CHUNK;
# docs/performance.md#near-far-sssp)
HEAVY_CHUNK = 128
# ... and the rows from this many in-arcs are chunked (below it a thread each): a warp walking a run of rows of 32-127
# in-arcs one after another left the others idle (GG_SPLIT_CHUNK_FROM)
SPLIT_CHUNK_FROM = 32

_struct_fields: dict[tuple[str, str], tuple[tuple[str, str], ...]] = {}  # struct_fields, read once each


def header_constant(header: str, name: str) -> int:
    """The integer a kernel header #defines as `name` (kernels/persistent.cuh GG_CONTROL_WORDS, ...): constants the
    host and the kernels must agree on are written once, in the header, and read from it here, as struct_fields
    reads the argument structs. A BackendError names the header and the constant where it is missing."""
    text = (rt.KERNEL_DIR / header).read_text()
    match = re.search(rf"^#define\s+{re.escape(name)}\s+(-?\d+)\s*(?://.*)?$", text, re.MULTILINE)
    if match is None:
        raise BackendError(f"kernels/{header} does not #define {name} as a whole number")
    return int(match.group(1))


MERGE_PATH_ROWS = header_constant("advance.cuh", "GG_MERGE_PATH_ROWS")  # rows a merge_path block stages
# MultiGraphS's segments (balance=segmented): targets a block accumulates in shared memory, frontier vertices it takes
SEGMENT = header_constant("program.cuh", "GG_SEGMENT")
SUB_SEGMENT = header_constant("program.cuh", "GG_SUB_SEGMENT")


def merge_path_chunk(edges: int, resident_threads: int, block: int = rt.BLOCK) -> int:
    """The edges a block of merge_path expands at a time on a level of `edges` edges, by Busato & Bombieri's rule:
    the edges spread over the device's resident threads in whole blocks (ceil(edges / threads) edges a thread, times
    the block), at most the rows kernel B stages in shared memory (GG_MERGE_PATH_ROWS, kernels/advance.cuh), since
    every row of a chunk but a degree-0 one holds one of its edges."""
    per_thread = max(1, -(-int(edges) // int(resident_threads)))
    return min(per_thread * block, MERGE_PATH_ROWS)


def struct_fields(header: str, struct: str) -> tuple[tuple[str, str], ...]:
    """The 8-byte words of a kernel's argument struct (kernels/persistent.cuh GGPersistentArgs, kernels/power.cuh
    GGPowerArgs), in order, each (name, kind): "p" a pointer, "f" a double, "i" an integer. Read from the header, one
    field a line and every field 8 bytes, so the host packs the kernel's one argument in the order the kernel reads
    it without a second list to keep in step. An array of pointers gives a word per element ("queue[0]", "queue[1]");
    a field whose type is another struct of the header is that struct's words, named through it ("st.barrier")."""
    fields = _struct_fields.get((header, struct))
    if fields is None:
        text = (rt.KERNEL_DIR / header).read_text()
        body = text[text.index(f"struct {struct} {{"):]
        body = body[body.index("{") + 1:body.index("\n};")]
        found: list[tuple[str, str]] = []
        for line in body.splitlines():
            declaration = line.split("//")[0].strip()
            if not declaration:
                continue
            match = re.fullmatch(r"(?:const\s+)?(\w+)\s*(\*?)\s*(\w+)(?:\[(\d+)\])?;", declaration)
            if match is None:
                raise BackendError(f"kernels/{header}: {struct} field {declaration!r} is not one 8-byte scalar or "
                                   "pointer")
            ctype, pointer, name, count = match.groups()
            if not pointer and f"struct {ctype} {{" in text and count is None:
                found += [(f"{name}.{inner}", kind) for inner, kind in struct_fields(header, ctype)]
            elif not pointer and ctype not in ("i64", "u64", "double"):
                raise BackendError(f"kernels/{header}: {struct} field {name} is a {ctype}, not 8 bytes")
            else:
                kind = "p" if pointer else "f" if ctype == "double" else "i"
                found += [(name, kind)] if count is None else [(f"{name}[{i}]", kind) for i in range(int(count))]
        fields = _struct_fields[(header, struct)] = tuple(found)
    return fields


ADVANCE_KERNELS = {
    ("vertex_group", 1): "adv_vg1",
    ("vertex_group", 4): "adv_vg4",
    ("vertex_group", 16): "adv_vg16",
    ("vertex_group", 32): "adv_vg32",
    ("twc", 32): "adv_twc",
    ("warp_scan", 32): "adv_warp_scan",
    ("merge_path", 32): "adv_merge_path",
    ("three_stage", 32): "adv_three_stage",
    ("block_scan", 32): "adv_block_scan",
    ("hierarchical", 32): "adv_hierarchical",
    ("segmented", 32): "adv_segmented",  # a vertex program's push only (program_module)
}

ADVANCE_ARGS = (
    "const i64* offsets, const int* indices, const float* weights, int weighted, const int* queue, int qsize, "
    "int* oq, u32* counter, u32* dedup_bits, unsigned char* mask, int mode, int supports, const i64* scan, i64 chunk, "
    "const unsigned char* active, int n, int* hubs, u32* hub_count, i64 huge, u64* edge_sum, i64* scan_out, "
    "i64 launch_degree"
)
ADVANCE_BODIES = {
    "adv_vg1": "gg_advance_vertex_group<1>(offsets, indices, weights, weighted, queue, qsize, f, out, supports);",
    "adv_vg4": "gg_advance_vertex_group<4>(offsets, indices, weights, weighted, queue, qsize, f, out, supports);",
    "adv_vg16": "gg_advance_vertex_group<16>(offsets, indices, weights, weighted, queue, qsize, f, out, supports);",
    "adv_vg32": "gg_advance_vertex_group<32>(offsets, indices, weights, weighted, queue, qsize, f, out, supports);",
    "adv_twc": "gg_advance_twc(offsets, indices, weights, weighted, queue, qsize, f, out, supports & 12);",
    "adv_warp_scan": "gg_advance_warp_scan(offsets, indices, weights, weighted, queue, qsize, f, out, supports);",
    "adv_merge_path": "gg_advance_merge_path(offsets, indices, weights, weighted, queue, qsize, scan, chunk, f, out);",
    "adv_three_stage": "gg_advance_three_stage(offsets, indices, weights, weighted, queue, qsize, f, out);",
    "adv_block_scan": "gg_advance_block_scan(offsets, indices, weights, weighted, queue, qsize, f, out, supports);",
    "adv_hierarchical": "gg_advance_hierarchical(offsets, indices, weights, weighted, queue, qsize, f, out, supports);",
    "adv_mask": "gg_advance_mask(offsets, indices, weights, weighted, active, n, f, out);",
    # the two-phase queue's contract: `queue` holds the recorded sources, `indices` / `weights` their targets and
    # weights, and their count is read on the device from the expand's counter, passed where the hub count goes (the
    # launch is sized by the bound on it, the frontier's out-edges: no host read between the two phases)
    "adv_edges": "gg_advance_edges(indices, weights, weighted, queue, (int)*(volatile const u32*)hub_count, f, out);",
}
PULL_ARGS = (
    "const i64* t_offsets, const int* t_indices, const float* t_weights, int weighted, const u32* bits, int all_active, "
    "int n, unsigned char* next"
)
PULL_GROUPS = (1, 4, 16, 32)
REDUCE_GROUPS = (1, 4, 8, 32)


def advance_wrappers(setup: str, extra: str, bodies: dict[str, str] | None = None) -> str:
    """Every advance load balancer as a kernel of one signature (and those of `bodies`, name -> body, a module's own),
    plus adv_hubs: the second launch of a sync advance with block gathering or supplementary queues, which expands the
    hub queue the first one filled (count read on the device: no host sync) with teams of blocks, and its vertices of
    degree `chunk` and more in the supplementary queues' bins (kernels/persistent.cuh gg_expand_hubs; chunk 0:
    none)."""
    out = []
    for name, body in {**ADVANCE_BODIES, **(bodies or {})}.items():
        out.append(
            f'extern "C" __global__ void __launch_bounds__(256) {name}({ADVANCE_ARGS}{extra}) {{\n'
            f"    {setup}\n    GGOut out{{oq, counter, dedup_bits, mask, mode, hubs, hub_count, huge, offsets, edge_sum, scan_out}};\n"
            f"    out.unique_in_warp = supports & GG_DEDUP_LOOKUP;\n    out.launch_degree = launch_degree;\n    {body}\n}}\n"
        )
    out.append(
        f'extern "C" __global__ void __launch_bounds__(256) adv_hubs({ADVANCE_ARGS}{extra}) {{\n'
        f"    {setup}\n    GGOut out{{oq, counter, dedup_bits, mask, mode, nullptr, nullptr, 0, offsets, edge_sum, scan_out}};\n"
        "    out.unique_in_warp = supports & GG_DEDUP_LOOKUP;\n"
        "    gg_expand_hubs(offsets, indices, weights, weighted, hubs, *(volatile const u32*)hub_count, chunk, f, out);\n}\n"
    )
    return "".join(out)


def pull_wrappers(setup: str, extra: str) -> str:
    """The pull kernels of a functor pair, one per group size (kernels/pull.cuh)."""
    return "".join(
        f'extern "C" __global__ void __launch_bounds__(256) pull_g{g}({PULL_ARGS}{extra}) {{\n'
        f"    {setup}\n    GGOut out{{nullptr, nullptr, nullptr, next, 2}};\n"
        f"    gg_pull_vertex_group<{g}>(t_offsets, t_indices, t_weights, weighted, bits, all_active, n, c, f, out);\n}}\n"
        for g in PULL_GROUPS
    )


UTILITY_SOURCE = """
#include "pull.cuh"
extern "C" __global__ void mask_to_bits(const unsigned char* mask, int n, u32* bits) { gg_mask_to_bits(mask, n, bits); }
extern "C" __global__ void mask_to_queue(const unsigned char* mask, int n, int* queue, u32* counter) {
    gg_mask_to_queue(mask, n, queue, counter);
}
extern "C" __global__ void queue_to_mask(const int* queue, int qsize, unsigned char* mask) { gg_queue_to_mask(queue, qsize, mask); }
extern "C" __global__ void set_bits(const int* queue, int qsize, u32* bits) { gg_set_bits(queue, (u32)qsize, bits); }
extern "C" __global__ void clear_bits(const int* queue, int qsize, u32* bits) { gg_clear_bits(queue, (u32)qsize, bits); }
// a vertex program's start where no persistent launch makes it (its prologue does there): a single-source start
// (s >= 0: values inf, buffers inf but the source's 0) and the messages filled with the monoid's identity (where
// `message` is given), in one launch
extern "C" __global__ void program_start(double* value, double* buffer, double* message, int n, i64 s,
                                         double message_fill) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        if (s >= 0) {
            value[i] = GG_INF;
            buffer[i] = i == s ? 0.0 : GG_INF;
        }
        if (message) message[i] = message_fill;
    }
}
// BFS hop counts from float64 values: -1 where unreachable (inf); h[i] from d[index[i]] where an index is given (the
// values of a renumbered traversal mapped back to the given ids in the same pass)
extern "C" __global__ void hop_counts(const double* d, const int* index, i64* h, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const double x = d[index ? index[i] : i];
        h[i] = x == GG_INF ? -1 : (i64)x;
    }
}
// a persistent advance's first worklist (int64 or int32 vertices, as int32) and its control words zeroed, in one launch
extern "C" __global__ void persistent_start(const void* vertices, int wide, int qsize, int* queue, i64* control,
                                           int control_words) {
    const int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < qsize; i += stride)
        queue[i] = wide ? (int)((const i64*)vertices)[i] : ((const int*)vertices)[i];
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < control_words; i += stride) control[i] = 0;
}
"""

INCLUDES = '#include "advance.cuh"\n#include "pull.cuh"\n#include "program.cuh"\n#include "persistent.cuh"\n'


def functor_module(functor: Any, role: str, types: tuple[str, ...], extra_roles: tuple = ()) -> str:
    """The module of one functor in a role (advance, pull, vertex, vertex_predicate, vertex_reduce, reduce) for state arrays of the
    given C++ types; `extra_roles` adds further structs on the same state (pull: the candidate predicate GGC)."""
    for f in (functor,) + tuple(other for _, (_, other) in extra_roles):
        if getattr(f, "cuda", None) is None:
            raise StrategyError(f"functor {getattr(f, 'name', f)!r} has no CUDA version; it runs on the CPU only")
    src = [INCLUDES, rt.functor_struct("GGF", role, functor.cuda, types, getattr(functor, "state", None))]
    for struct, (other_role, other) in extra_roles:
        src.append(rt.functor_struct(struct, other_role, other.cuda, types, getattr(other, "state", None)))
    setup_members = rt.state_init(types)
    params = rt.state_params(types)
    if role == "advance":
        src.append(advance_wrappers(f"GGF f{{{setup_members}}};", params))
    elif role == "pull":
        src.append(pull_wrappers(f"GGF f{{{setup_members}}}; GGC c{{{setup_members}}};", params))
    elif role in ("vertex", "vertex_predicate"):
        src.append(
            f'extern "C" __global__ void each(const int* vertices, int count, unsigned char* keep{params}) {{\n'
            f"    GGF f{{{setup_members}}};\n"
            "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x) {\n"
            "        const int v = vertices ? vertices[i] : i;\n"
            + ("        keep[i] = f(v) ? 1 : 0;\n" if role == "vertex_predicate" else "        f(v);\n")
            + "    }\n}\n"
        )
    elif role == "vertex_reduce":
        src.append(
            f'extern "C" __global__ void __launch_bounds__(256) each_reduce(const int* vertices, int count, int monoid, '
            f"double identity, double* out{params}) {{\n    GGF f{{{setup_members}}};\n"
            "    gg_vertex_reduce(vertices, count, f, monoid, identity, out);\n}\n"
        )
    elif role == "reduce":
        src.append(
            "".join(
                f'extern "C" __global__ void __launch_bounds__(256) reduce_g{g}(const i64* offsets, const int* indices, '
                f"const float* weights, int weighted, int n, const int* vertices, int monoid, double identity, i64 huge, "
                f"double* out{params}) {{\n"
                f"    GGF f{{{setup_members}}};\n"
                f"    gg_neighbor_reduce<{g}>(offsets, indices, weights, weighted, n, vertices, 0, f, monoid, identity, "
                f"huge, false, out);\n}}\n"
                for g in REDUCE_GROUPS)
            + f'extern "C" __global__ void __launch_bounds__(256) reduce_chunks(const int* indices, const float* weights, '
            f"int weighted, const int* rows, const i64* first, const i64* last, int chunks, const unsigned char* member, "
            f"int monoid, double identity, double* out{params}) {{\n    GGF f{{{setup_members}}};\n"
            "    gg_neighbor_reduce_chunks(indices, weights, weighted, rows, first, last, chunks, member, f, monoid, identity,"
            " out);\n}\n"
        )
    else:
        raise StrategyError(f"unknown functor role {role!r}")
    return "".join(src)


def program_struct(program: Any) -> str:
    """struct GGP: a vertex program's compute/edge/settled functors as one device struct (params: its parameters)."""
    for part in (program.compute, program.edge, program.settled):
        if getattr(part, "cuda", None) is None:
            raise StrategyError(f"vertex program {program.name!r}: {part.name} has no CUDA version")
    return (
        "struct GGP {\n    const double* params;\n"
        "    __device__ __forceinline__ void compute(double& value, double& buffer, i64 degree, double& message, "
        f"bool& send) const {{\n        message = value; send = false;\n        {{ {program.compute.cuda} }}\n    }}\n"
        f"    __device__ __forceinline__ double edge(double message, float weight) const {{ {program.edge.cuda} }}\n"
        f"    __device__ __forceinline__ bool settled(double value) const {{ {program.settled.cuda} }}\n}};\n"
    )


def program_module(program: Any) -> str:
    """The module of a vertex program: compute, push through every advance balancer, pull through every group."""
    src = [INCLUDES, program_struct(program)]
    src.append(
        'extern "C" __global__ void __launch_bounds__(256) compute(const int* vertices, int count, const i64* offsets, '
        "double* value, double* buffer, double* message, unsigned char* send, const double* params) {\n"
        "    gg_program_compute(vertices, count, offsets, value, buffer, message, send, GGP{params});\n}\n"
    )
    extra = ", const double* message, double* buffer, int monoid, const double* params, u32* visited"
    setup = "GGProgramPush<GGP> f{message, buffer, monoid, GGP{params}, visited};"
    # MultiGraphS whole (balance=segmented): a program's push only, its accumulate in shared memory; `chunk` carries
    # the number of targets of in-degree groups 1-4 and `scan` the segment table (kernels/program.cuh
    # gg_program_push_segmented)
    segmented = ("gg_program_push_segmented(offsets, indices, weights, weighted, queue, qsize, (int)chunk, "
                 "(const int*)scan, f, out);")
    src.append(advance_wrappers(setup, extra, {"adv_segmented": segmented}))
    src.append("".join(
        f'extern "C" __global__ void __launch_bounds__(256) pull_g{g}({PULL_ARGS}, const double* message, '
        "double* buffer, int monoid, int first_wins, const double* value, int skip_settled, const double* params) {\n"
        f"    gg_program_pull<{g}>(t_offsets, t_indices, t_weights, weighted, bits, all_active, n, value, buffer, "
        "message, monoid, first_wins, skip_settled, GGP{params}, GGOut{nullptr, nullptr, nullptr, next, 2});\n}\n"
        for g in PULL_GROUPS
    ))
    return "".join(src)


def nvcc_bundle(modules: list[str]) -> str:
    """Many module sources as one translation unit for an nvcc compile check: each in its own namespace, with its
    extern "C" wrappers made ordinary kernels so their names do not clash."""
    parts = [INCLUDES]
    for i, source in enumerate(modules):
        body = source.replace(INCLUDES, "").replace('extern "C" __global__', "__global__")
        parts.append(f"namespace gg_module_{i} {{\n{body}\n}}\n")
    return "".join(parts)


PERSISTENT_PULL_GROUPS = (1, 4, 16, 32)


def _expand_struct(balancer: str, scanned: bool = False) -> str:
    """struct GGExpand: one advance load balancer behind a common call, with the prepare hook and the team that shares
    its loops (the grid, or one block for block-local hops; kernels/advance.cuh). `scanned` (merge_path, in a vertex
    program's persistent kernel): the kernel's rounds append the senders with their degree prefix sum and search it
    (GGExpand::scanned, kernels/persistent.cuh); merge_path has no expansion without that sum, so its run() is never
    called (the host runs it in no fused round, block-local hop or near-far heavy row) and traps if it is."""
    merge_path = balancer == "adv_merge_path"
    if balancer not in ADVANCE_BODIES or balancer == "adv_mask" or merge_path != scanned:
        raise StrategyError(f"no persistent kernel for the {balancer} expansion")
    body = "__trap();" if merge_path else f"{ADVANCE_BODIES[balancer][:-2]}, prepare, team);"
    return (
        f"struct GGExpand {{\n    static constexpr bool scanned = {'true' if scanned else 'false'};\n"
        "    template <class F, class L, class T = GGGrid>\n"
        "    __device__ static void run(const i64* offsets, const int* indices, const float* weights, int weighted, "
        "const int* queue, int qsize, F f, GGOut out, int supports, L prepare, T team = T()) {\n"
        f"        {body}\n    }}\n}};\n"
    )


def persistent_advance_module(functor: Any, types: tuple[str, ...], balancer: str) -> str:
    """An advance functor's persistent form (kernels/persistent.cuh gg_advance_rounds) through one load balancer."""
    if getattr(functor, "cuda", None) is None:
        raise StrategyError(f"functor {getattr(functor, 'name', functor)!r} has no CUDA version; it runs on the CPU only")
    params = rt.state_params(types)
    kernel = (
        'extern "C" __global__ void __launch_bounds__(256, 2) advance_rounds(const i64* offsets, const int* indices, '
        "const float* weights, int weighted, int n, int supports, int qsize, int max_rounds, int* qa, int* qb, "
        "u32* counters, u32* claim_bits, u32* barrier, int* status, i64* log, int log_rows"
        f"{params}) {{\n"
        f"    GGF f{{{rt.state_init(types)}}};\n"
        "    GGPersistentState st{{qa, qb}, {nullptr, nullptr}, {nullptr, nullptr}, counters, nullptr, claim_bits, "
        "(n + 31) / 32 + 1, nullptr, barrier, status, log, log_rows, 0.0, {nullptr, nullptr}, nullptr, nullptr, nullptr, "
        "nullptr, nullptr};\n"
        "    gg_advance_rounds<GGF, GGExpand>(offsets, indices, weights, weighted, f, supports, qsize, max_rounds, st);\n}\n"
    )
    struct = rt.functor_struct("GGF", "advance", functor.cuda, types, getattr(functor, "state", None))
    return "".join([INCLUDES, struct, _expand_struct(balancer), kernel])


def persistent_module(program: Any, balancer: str, pull_group: int) -> str:
    """The persistent traversal kernel (kernels/persistent.cuh) of a vertex program, pushing through one advance load
    balancer (a key of ADVANCE_BODIES; merge_path over the senders' prefix sum its rounds write) and pulling with
    groups of `pull_group` lanes. One small module per combination, compiled when first used."""
    if pull_group not in PERSISTENT_PULL_GROUPS:
        raise StrategyError(f"persistent pull groups are {PERSISTENT_PULL_GROUPS}, got {pull_group}")
    expand = _expand_struct(balancer, scanned=balancer == "adv_merge_path")
    kernel = (
        'extern "C" __global__ void __launch_bounds__(256, 2) persistent('
        "const __grid_constant__ GGPersistentArgs a) {\n"
        "    if (!gg_persistent_prologue(a)) return;\n"
        "    if (a.fused) {\n"
        "        gg_fused_rounds<GGP, GGExpand>(a.offsets, a.indices, a.weights, (int)a.weighted, a.value, a.buffer, "
        "a.message, (int)a.monoid, (int)a.supports, (int)a.qsize, (int)a.max_rounds, a.threshold, (int)a.hops, a.st, "
        "GGP{a.params});\n"
        "        return;\n    }\n"
        "    GGRules rules{(int)a.mode, a.alpha, a.beta, a.unexplored};\n"
        f"    gg_program_persistent<{pull_group}, GGP, GGExpand>(a.offsets, a.indices, a.weights, (int)a.weighted, "
        "a.t_offsets, a.t_indices, a.t_weights, a.t_first, (int)a.n, (int)a.pulled, a.value, a.buffer, a.message, (int)a.monoid, "
        "(int)a.first_wins, (int)a.skip_settled, (int)a.supports, a.huge, (int)a.qsize, (int)a.max_rounds, "
        "a.threshold, rules, a.st, GGP{a.params}, (int)a.topology);\n}\n"
    )
    defines = f"#define GG_HEAVY_CHUNK {HEAVY_CHUNK}\n#define GG_SPLIT_CHUNK_FROM {SPLIT_CHUNK_FROM}\n"
    return "".join([defines, INCLUDES, program_struct(program), expand, kernel])
