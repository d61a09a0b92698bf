"""The CUDA warm-up manifest (backends/cuda/warmup.py): what ships with the package, and its replay on a GPU."""

from __future__ import annotations

import gzip
import json

import pytest

from graphgear.backends.cuda import warmup


def manifest() -> dict:
    return json.loads(gzip.decompress(warmup.MANIFEST.read_bytes()))


def test_manifest_is_portable():
    """Recorded on a GPU machine by benchmarks/gpu_warmup_manifest.py: no path of that machine in it, graphgear's
    header hash left out (filled in when replayed), CuPy's shared header text stored once."""
    m = manifest()
    assert m["cupy"] and m["entries"]
    ours = [e for e in m["entries"] if e["graphgear"]]
    assert ours and len(ours) < len(m["entries"])
    for e in m["entries"]:
        assert not e["source"].startswith("// graphgear kernels/*.cuh")
        text = " ".join(e["options"]) + e["source"]
        assert "/root/" not in text and "/home/" not in text and "site-packages" not in text
        assert all(o.startswith("-I{") for o in e["options"] if o.startswith("-I")), e["options"]
        extra = e["kwargs"].get("extra_source")
        assert extra is None or isinstance(extra, int) and 0 <= extra < len(m["blobs"])
    assert any("{KERNEL_DIR}" in o for e in ours for o in e["options"])


def test_manifest_lists_every_algorithm():
    labels = {e["label"] for e in manifest()["entries"]}
    assert {"bfs", "sssp", "pagerank", "cc", "scc", "bc", "color"} <= labels


@pytest.mark.gpu
def test_replay_fills_in_this_install(monkeypatch):
    import cupy

    m = manifest()
    if m["cupy"] != cupy.__version__:
        pytest.skip(f"manifest recorded with CuPy {m['cupy']}, this is {cupy.__version__}")
    entry = next(e for e in m["entries"] if e["graphgear"])
    source, options, kwargs = warmup._materialise(entry, m["blobs"])
    from graphgear.backends.cuda import runtime as rt

    assert source.startswith(f"// graphgear kernels/*.cuh {rt.headers_hash()}\n")
    assert f"-I{rt.KERNEL_DIR}" in options


def test_binaries_are_those_of_these_kernels():
    """The shipped binaries were built from today's kernels/*.cuh, and the archive holds every binary an entry names,
    each intact (its CRC-32): a kernel edited without rerunning benchmarks/gpu_warmup_manifest.py fails here, on any
    machine, instead of slowing a GPU machine's first process back to a minute."""
    import zipfile

    from graphgear.backends.cuda import runtime as rt

    m = manifest()
    info = m["binaries"]
    assert info["headers"] == rt.headers_hash(), "kernels/*.cuh changed: rerun benchmarks/gpu_warmup_manifest.py"
    archive = warmup.MANIFEST.with_name(info["file"])
    with zipfile.ZipFile(archive) as z:
        assert z.testzip() is None
        held = set(z.namelist())
    named = [e["binary"] for e in m["entries"] if e.get("binary")]
    assert named and set(named) <= held
    assert len(named) == len(m["entries"]), [e["label"] for e in m["entries"] if not e.get("binary")]


def test_binaries_ship_with_the_package():
    from fnmatch import fnmatch
    from pathlib import Path

    tomllib = pytest.importorskip("tomllib")
    data = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())["tool"]["setuptools"]
    path = f"backends/cuda/{manifest()['binaries']['file']}"
    assert any(fnmatch(path, pattern) for pattern in data["package-data"]["graphgear"])


FIRST_PROCESS = """
import json, graphgear as gg, cupy
from graphgear.backends.cuda import warmup
g, gw = gg.load("kron:16"), gg.load("kron:16:w")
gg.bfs(g, 0, backend="cuda").distances
gg.sssp(gw, 0, backend="cuda").distances
gg.pagerank(g, backend="cuda").ranks
gg.connected_components(g, backend="cuda").labels
gg.strongly_connected_components(g, backend="cuda").labels
gg.betweenness_centrality(g, k=8, seed=1, backend="cuda").centrality
gg.color_propagation(g, backend="cuda").colors
cupy.cuda.runtime.deviceSynchronize()
print("STATS" + json.dumps(warmup.stats))
"""


@pytest.mark.gpu
def test_first_process_compiles_nothing(tmp_path):
    """A machine's first process (an empty CuPy cache) runs the seven algorithms on kron:16 from the shipped binaries
    alone: none refused by the driver, none compiled."""
    import os
    import subprocess
    import sys

    import cupy

    m = manifest()
    if m["cupy"] != cupy.__version__ or str(cupy.cuda.Device().compute_capability) != m["binaries"]["arch"]:
        pytest.skip(f"binaries for CuPy {m['cupy']} on sm_{m['binaries']['arch']}")
    env = dict(os.environ, CUPY_CACHE_DIR=str(tmp_path / "cupy"), GRAPHGEAR_CUDA_WARMUP_WORKERS="2")
    out = subprocess.run([sys.executable, "-c", FIRST_PROCESS], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    stats = json.loads(next(x for x in out.stdout.splitlines() if x.startswith("STATS"))[5:])
    assert stats["loaded"] > 50 and stats["refused"] == 0, stats
    assert stats["unlisted"] == 0 and stats["queued"] == 0, stats
    assert not (tmp_path / "cupy").exists() or not any(p.suffix == ".cubin" for p in (tmp_path / "cupy").iterdir())


@pytest.mark.gpu
def test_binary_the_driver_refuses_is_compiled_instead(monkeypatch, tmp_path):
    """A shipped binary the driver cannot load (damaged, or for a driver too old) is reported and compiled as without
    it: the kernel still runs."""
    import zipfile

    import cupy

    path = tmp_path / "bad.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("bad.bin", b"not a cubin")
    source = 'extern "C" __global__ void gg_refused_probe(int* x) { x[threadIdx.x] = 7; }'
    monkeypatch.setattr(warmup, "_archive", zipfile.ZipFile(path))
    monkeypatch.setitem(warmup._shipped, warmup._key(source, (), {}), "bad.bin")
    refused = warmup.stats["refused"]
    warmup.install()
    x = cupy.zeros(4, dtype=cupy.int32)
    warmup._compile(source, ()).get_function("gg_refused_probe")((1,), (4,), (x,))
    assert x.tolist() == [7, 7, 7, 7]
    assert warmup.stats["refused"] == refused + 1
