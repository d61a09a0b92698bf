"""What the host and the kernels agree on, used by several parts of the CUDA backend: the one struct argument a kernel
takes (KernelStruct, its layout read from the kernel's header), the bits and codes the kernels read (supports, dedup,
monoids) and the error of a grid barrier that gave up waiting."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import BackendError
from . import sources

SUPPORT_BITS = {"warp_gather": sources.header_constant("common.cuh", "GG_WARP_GATHER"),
                "block_gather": sources.header_constant("common.cuh", "GG_BLOCK_GATHER")}
# duplicate removal: after frontier load (warp, block) or during lookup (kernels/common.cuh GG_DEDUP_*)
DEDUP_BITS = {name: sources.header_constant("common.cuh", f"GG_DEDUP_{macro}")
              for name, macro in (("warp_hash", "WARP"), ("block", "BLOCK"), ("lookup", "LOOKUP"))}
MONOIDS = {"min": 0, "max": 1, "sum": 2, "or": 3}
IDENTITY = {0: np.inf, 1: -np.inf, 2: 0.0, 3: 0.0}
# kernel C's packed counter (kernels/common.cuh gg_emit_scanned): the queue's length above this bit, its out-edges below
SCAN_EDGE_BITS = sources.header_constant("common.cuh", "GG_SCAN_EDGE_BITS")


def fits_scan_counter(G: Any, capacity: int) -> bool:
    """Whether kernel C's packed counter holds a level of this graph: a queue of up to `capacity` entries in the high
    64 - SCAN_EDGE_BITS bits, and up to every arc in the low ones (otherwise merge_path scans the queue after it)."""
    return capacity < (1 << (64 - SCAN_EDGE_BITS)) and int(G.num_arcs) < (1 << SCAN_EDGE_BITS)


def unpack_scan_counter(packed: int) -> tuple[int, int]:
    """(the queue's length, its out-edges) from kernel C's packed counter."""
    return packed >> SCAN_EDGE_BITS, packed & ((1 << SCAN_EDGE_BITS) - 1)


class KernelStruct:
    """A kernel's one struct argument (kernels/*.cuh; sources.struct_fields): CuPy passes a one-element NumPy array by
    value, as a struct: far less host time per launch than 64 separate arguments (benchmarks/launch_arguments.py,
    docs/performance.md#launch-arguments-as-one-struct)."""

    def __init__(self, header: str, struct: str) -> None:
        self.fields = sources.struct_fields(header, struct)
        self.word = {name: i for i, (name, _) in enumerate(self.fields)}  # each field's 8-byte word
        self.real = {i for i, (_, kind) in enumerate(self.fields) if kind == "f"}  # the doubles' words
        self.pointer = {i for i, (_, kind) in enumerate(self.fields) if kind == "p"}
        self.dtype = np.dtype((np.void, 8 * len(self.fields)))

    def pack(self, values: dict[str, Any], into: np.ndarray | None = None) -> np.ndarray:
        """The struct with the named fields set and the rest 0 (null, off), or `into` (a plan's template, copied per
        launch) with its other fields as they were. A value is a device array (its address), an integer pointer,
        None (null) or a number; a sequence for an array field (its elements), a dict for a struct field (its
        fields, by name), or a field named as in `fields` ("st.visited"). Per launch, so kept lean (docs/performance.md#figures-from-the-cuda-backends-comments: a fraction of a microsecond a
        field): a BFS's kernel waits for it."""
        args = np.zeros(1, dtype=self.dtype) if into is None else into
        words, reals = args.view(np.int64), None
        word, real, pointer = self.word, self.real, self.pointer
        for name, value in values.items():
            i = word.get(name)
            if i is None:  # a struct field, an array field or a name the struct lacks
                self.pack(self._flat(name, value), into=args)
            elif i in real:
                if reals is None:
                    reals = args.view(np.float64)
                reals[i] = value
            elif i in pointer and type(value) is not int:  # a device array, None or a NumPy integer address
                words[i] = 0 if value is None else value if isinstance(value, np.integer) else value.data.ptr
            else:
                words[i] = value
        return args

    def _flat(self, name: str, value: Any) -> dict[str, Any]:
        """A struct field's or an array field's value as its words' names and values."""
        if isinstance(value, dict):
            return {f"{name}.{inner}": item for inner, item in value.items()}
        if isinstance(value, (tuple, list)) and f"{name}[0]" in self.word:
            return {f"{name}[{k}]": item for k, item in enumerate(value)}
        raise KeyError(f"{name} is not a field of the kernel's struct")


def _barrier_timed_out(launch: str) -> BackendError:
    """The error of a persistent launch whose grid barrier gave up waiting (GG_BARRIER_TIMEOUT_NS, kernels/
    persistent.cuh): its blocks were not all resident at once."""
    return BackendError(f"{launch}'s grid barrier timed out: its blocks were not all resident")
