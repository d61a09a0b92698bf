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
