"""Tests of host-memory checks: `graphgear.memory` (sizes, the $GRAPHGEAR_MEMORY_LIMIT cap, `require`), the refusal of
generator specs and CSR builds that need more than is available (before anything large is allocated), and the
estimates (`estimate_bytes`, `csr_build_bytes`) against tracemalloc's measured peak (benchmarks/memory_peaks.py
measures larger sizes; docs/memory.md)."""

from __future__ import annotations

import time
import tracemalloc

import numpy as np
import pytest

import graphgear as gg
from graphgear import memory
from graphgear.errors import GraphError, GraphSpecError, HostMemoryError
from graphgear.graph import build
from graphgear.graph.build import _SLACK_BYTES, build_csr, csr_build_bytes
from graphgear.graph.generate import SpecMemoryError, estimate_bytes, generate

GIB = 1 << 30


# --------------------------------------------------------------------------------------------------- memory module
@pytest.mark.parametrize(
    "text, size",
    [("123", 123), ("0", 0), ("512M", 512 << 20), ("8G", 8 << 30), ("1.5GiB", 3 << 29), ("2k", 2048),
     (" 4 T ", 4 << 40), ("64MB", 64 << 20), ("1g", GIB)],
)
def test_parse_size(text, size):
    assert memory.parse_size(text) == size


@pytest.mark.parametrize("text", ["", "abc", "-1", "1X", "G", "1.2.3G", "1 G B"])
def test_parse_size_rejects(text):
    with pytest.raises(ValueError, match="not a size"):
        memory.parse_size(text)


def test_format_bytes():
    assert memory.format_bytes(0) == "0 bytes"
    assert memory.format_bytes(1023) == "1,023 bytes"
    assert memory.format_bytes(1024) == "1,024 bytes (1.0 KiB)"
    assert memory.format_bytes(3 << 20) == "3,145,728 bytes (3.0 MiB)"
    assert memory.format_bytes(19_327_352_832) == "19,327,352,832 bytes (18.0 GiB)"
    assert memory.format_bytes(2**41) == "2,199,023,255,552 bytes (2.0 TiB)"


def test_available_bytes_applies_the_cap(monkeypatch):
    monkeypatch.delenv(memory.LIMIT_ENV, raising=False)
    uncapped = memory.available_bytes()
    assert uncapped is None or uncapped > 0
    monkeypatch.setenv(memory.LIMIT_ENV, "1G")
    capped = memory.available_bytes()
    assert capped is not None and capped <= GIB
    if uncapped is not None and uncapped > 2 * GIB:  # the machine has more: the cap is what is available
        assert capped == GIB
    monkeypatch.setenv(memory.LIMIT_ENV, "4096")
    assert memory.available_bytes() == 4096


def test_available_bytes_bad_cap(monkeypatch):
    monkeypatch.setenv(memory.LIMIT_ENV, "lots")
    with pytest.raises(HostMemoryError, match="GRAPHGEAR_MEMORY_LIMIT.*'lots'"):
        memory.available_bytes()


def test_require(monkeypatch):
    monkeypatch.setenv(memory.LIMIT_ENV, "1G")
    memory.require(100, "a little")
    memory.require(GIB, "exactly the cap")
    with pytest.raises(HostMemoryError) as info:
        memory.require(2 * GIB, "the thing")
    message = str(info.value)
    assert "the thing needs an estimated 2,147,483,648 bytes (2.0 GiB)" in message
    assert "1,073,741,824 bytes (1.0 GiB)" in message
    assert isinstance(info.value, MemoryError) and isinstance(info.value, GraphError)
    with pytest.raises(HostMemoryError) as info:
        memory.require(2 * GIB, "vertex 2^40", path="g.el", line=3, text="0 1099511627776\n")
    assert (info.value.path, info.value.line) == ("g.el", 3)
    assert str(info.value).startswith("g.el, line 3: vertex 2^40 needs") and "'0 1099511627776'" in str(info.value)


# --------------------------------------------------------------------------------------------------- refusals
def _refused_quickly(fn, exc_type):
    """Run fn, which must raise exc_type within a second and without allocating more than 16 MiB."""
    tracemalloc.start()
    start = time.perf_counter()
    try:
        with pytest.raises(exc_type) as info:
            fn()
    finally:
        elapsed = time.perf_counter() - start
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert elapsed < 1.0, f"refused after {elapsed:.2f} s"
    assert peak < 16 << 20, f"allocated {peak:,} bytes before refusing"
    return info.value


def test_huge_spec_refused_at_once(monkeypatch):
    monkeypatch.setenv(memory.LIMIT_ENV, "1G")
    gg.load("grid:4:4")  # warm: the refusal below is timed alone
    error = _refused_quickly(lambda: gg.load("kron:26"), HostMemoryError)
    assert isinstance(error, SpecMemoryError) and isinstance(error, GraphSpecError)
    message = str(error)
    need = estimate_bytes("kron:26")
    assert "'kron:26'" in message and "67,108,864 vertices" in message and "1,073,741,824 edge records" in message
    assert f"{need:,} bytes" in message and "1,073,741,824 bytes (1.0 GiB)" in message
    assert need > 3 * 16 * GIB  # the records alone are 16 GiB; their CSR build needs several times that


@pytest.mark.parametrize("spec", ["kron:22:w", "rmat:24:4", "er:100000000:8", "rgg:25", "grid:20000:20000:0.5:w"])
def test_each_kind_refused_under_a_cap(monkeypatch, spec):
    monkeypatch.setenv(memory.LIMIT_ENV, "1G")
    assert estimate_bytes(spec) > GIB
    error = _refused_quickly(lambda: generate(spec), SpecMemoryError)
    assert repr(spec) in str(error) and f"{estimate_bytes(spec):,} bytes" in str(error)


def test_huge_vertex_id_refused_at_once(monkeypatch):
    monkeypatch.setenv(memory.LIMIT_ENV, "1G")
    gg.Graph.from_edges([0, 1], [1, 2])  # warm
    error = _refused_quickly(lambda: gg.Graph.from_edges([0], [2**40]), HostMemoryError)
    message = str(error)
    assert "the CSR of 1,099,511,627,777 vertices and 1 edge records" in message
    assert f"{csr_build_bytes(2**40 + 1, 1, True, False):,} bytes" in message and "(1.0 GiB)" in message
    error = _refused_quickly(lambda: gg.Graph.from_edges([0], [1], num_vertices=2**33, directed=False), HostMemoryError)
    assert "8,589,934,592 vertices" in str(error)


def test_huge_vertex_id_refused_without_a_cap(monkeypatch):
    monkeypatch.delenv(memory.LIMIT_ENV, raising=False)
    if memory.available_bytes() is None:
        pytest.skip("this platform does not say how much memory is available")
    _refused_quickly(lambda: gg.Graph.from_edges([0], [2**46]), HostMemoryError)  # 2^46 vertices: 1 PiB of offsets


@pytest.mark.parametrize("spec", ["kron:10", "rmat:10:8:w", "er:2000:6", "rgg:10:w", "grid:40:40:0.8"])
def test_small_specs_still_work_under_a_cap(monkeypatch, spec):
    monkeypatch.setenv(memory.LIMIT_ENV, "1G")
    g = gg.load(spec)
    assert g.num_vertices > 0 and g.num_arcs > 0
    assert gg.bfs(g, 0).distances[0] == 0


def test_small_graph_built_under_a_cap(monkeypatch):
    monkeypatch.setenv(memory.LIMIT_ENV, "64M")
    g = gg.Graph.from_edges([0, 1, 2], [1, 2, 0], [1.0, 2.0, 3.0], directed=False)
    assert g.num_edges == 3


# --------------------------------------------------------------------------------------------------- the estimates
def _traced_peak(fn):
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        result = fn()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return result, peak


@pytest.mark.parametrize(
    "spec", ["kron:13", "kron:13:w", "rmat:13:8:w", "er:50000:8", "er:50000:8:w", "rgg:14", "rgg:14:w",
             "grid:200:200", "grid:200:200:w", "grid:200:200:0.6"],
)
def test_estimate_covers_measured_peak(spec):
    generate(spec)  # numba's compilation or cache load is not measured
    g, peak = _traced_peak(lambda: generate(spec))
    estimate = estimate_bytes(spec)
    assert g.num_vertices > 0
    assert estimate >= peak, f"{spec}: estimate {estimate:,} below the measured peak {peak:,}"
    assert estimate - _SLACK_BYTES <= 1.5 * peak, f"{spec}: estimate {estimate:,} far above the peak {peak:,}"


@pytest.mark.parametrize("wide", [False, True])
@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("weighted", [False, True])
def test_csr_build_bytes_covers_measured_peak(monkeypatch, wide, directed, weighted):
    if wide:
        monkeypatch.setattr(build, "_PACKED_LIMIT", 0)  # the wide path (and its formula) at a small n
    n, m = 1 << 14, 1 << 18
    rng = np.random.default_rng(3)
    src, dst = rng.integers(0, n, m, dtype=np.int64), rng.integers(0, n, m, dtype=np.int64)
    src[:100] = dst[:100]  # self-loops: the build copies the records without them
    w = rng.random(m, dtype=np.float32) if weighted else None
    build_csr(src[:1000], dst[:1000], None if w is None else w[:1000], n, directed)  # warm
    _, peak = _traced_peak(lambda: build_csr(src, dst, w, n, directed))
    estimate = csr_build_bytes(n, m, directed, weighted)
    assert estimate >= peak, f"estimate {estimate:,} below the measured peak {peak:,}"
    assert estimate - _SLACK_BYTES <= 1.2 * peak, f"estimate {estimate:,} far above the peak {peak:,}"


def test_csr_build_bytes_shape():
    small = csr_build_bytes(1000, 10_000, True, False)
    assert csr_build_bytes(1000, 10_000, False, False) > small  # two arcs per record
    assert csr_build_bytes(1000, 10_000, True, True) > small
    assert csr_build_bytes(1000, 10_000, True, False, self_loops=False) < small  # no loop-free copy
    assert csr_build_bytes(2**40, 1, True, False) > 16 * 2**40  # offsets and their counts: 16 bytes per vertex
    assert csr_build_bytes(0, 0, True, False) == _SLACK_BYTES + 32
