"""Record src/graphgear/backends/cuda/warmup.json.gz and warmup-sm<arch>.zip: every compilation the built-in
algorithms make on the GPU, and the binary NVRTC made of each.

    python benchmarks/gpu_warmup_manifest.py [--out PATH]   (on a GPU machine; from the repo root with PYTHONPATH=src)

Runs each algorithm under its default strategy on the graphs whose shapes pick the different kernels (a power-law
graph and a high-diameter one, weighted and not, undirected and directed), in a child process with an empty CuPy
cache, recording each CuPy compilation (graphgear's modules and CuPy's own kernels) through warmup.record. The
manifest lists them in the order of first use, with the seconds each took, the CuPy version and, for the binaries
(the zip beside it), the GPU's compute capability and the hash of kernels/*.cuh: backends/cuda/warmup.py loads those
binaries on a GPU of that compute capability and replays the rest. Rerun it after changing a kernel, a functor or
CuPy (tests/cuda/test_cuda_warmup.py fails while kernels/*.cuh differ from the recording).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import zipfile
from pathlib import Path

CHILD = textwrap.dedent("""
    import json, sys
    from pathlib import Path
    import cupy
    import graphgear as gg
    from graphgear.backends import get_backend
    from graphgear.backends.cuda import warmup
    runs = []
    binaries = Path(sys.argv[1])
    def call(label, fn):
        with warmup.record(label, binaries) as entries:
            fn()
            cupy.cuda.runtime.deviceSynchronize()
        runs.extend(entries)
    call("backend", lambda: get_backend("cuda"))
    for spec in ("kron:16", "grid:256:256", "rmat:14:8"):
        g, gw = gg.load(spec), gg.load(spec + ":w")
        call("bfs", lambda: gg.bfs(g, 0, backend="cuda").distances)
        call("sssp", lambda: gg.sssp(gw, 0, backend="cuda").distances)
        call("pagerank", lambda: gg.pagerank(g, backend="cuda").ranks)
        call("cc", lambda: gg.connected_components(g, backend="cuda").labels)
        call("cc", lambda: gg.connected_components(g, method="label_propagation", backend="cuda").labels)
        call("scc", lambda: gg.strongly_connected_components(g, backend="cuda").labels)
        call("bc", lambda: gg.betweenness_centrality(g, k=4, seed=1, backend="cuda").centrality)
        call("color", lambda: gg.color_propagation(g, backend="cuda").colors)
    seen, entries = set(), []
    for e in runs:  # first use wins; a later graph's repeat of a kernel is not listed again
        key = (e["source"], tuple(e["options"]), json.dumps(e["kwargs"], sort_keys=True, default=str))
        if key not in seen:
            seen.add(key)
            entries.append(e)
    from cupy.cuda import function
    from graphgear.backends.cuda import runtime as rt
    for e in entries:  # each binary loads as it will when shipped
        if e.get("binary"):
            function.Module().load((binaries / e["binary"]).read_bytes())
    device = cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
    arch = str(cupy.cuda.Device().compute_capability)
    info = {"file": f"warmup-sm{arch}.zip", "arch": arch, "headers": rt.headers_hash()}
    print("JSON" + json.dumps({"cupy": cupy.__version__, "recorded_on": device, "binaries": info, "entries": entries},
                              default=str))
""")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=Path("src/graphgear/backends/cuda/warmup.json.gz"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as binaries:
        env = dict(os.environ, CUPY_CACHE_DIR=cache, GRAPHGEAR_CUDA_WARMUP="0")
        out = subprocess.run([sys.executable, "-c", CHILD, binaries], env=env, capture_output=True, text=True,
                             check=False)
        line = next((x for x in out.stdout.splitlines() if x.startswith("JSON")), None)
        if line is None:
            raise SystemExit(f"recording failed:\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}")
        manifest = json.loads(line[4:])
        entries = manifest["entries"]
        archive = args.out.with_name(manifest["binaries"]["file"])
        names = sorted({e["binary"] for e in entries if e.get("binary")})
        with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
            for name in names:  # fixed dates: the same binaries make the same archive
                z.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)),
                           (Path(binaries) / name).read_bytes(), zipfile.ZIP_DEFLATED, 9)
    missing = [e["label"] for e in entries if not e.get("binary")]
    print(f"{len(names)} binaries, {archive.stat().st_size:,} bytes -> {archive}; entries without one: {missing}")
    blobs: list[str] = []  # CuPy passes its headers' text (180 KB) with each of its kernels, for the cache key alone
    for e in entries:
        extra = e["kwargs"].get("extra_source")
        if isinstance(extra, str) and len(extra) > 1000:
            if extra not in blobs:
                blobs.append(extra)
            e["kwargs"]["extra_source"] = blobs.index(extra)
    manifest["blobs"] = blobs
    labels = list(dict.fromkeys(e["label"] for e in entries))
    # replayed in this order: the algorithms in the order a session usually meets them, longest compilation first
    entries.sort(key=lambda e: (labels.index(e["label"]), -e["seconds"]))
    import gzip

    args.out.write_bytes(gzip.compress((json.dumps(manifest, sort_keys=True) + "\n").encode(), 9, mtime=0))
    sizes = sorted(((len(e["source"]) + len(json.dumps(e["kwargs"])), e["label"], e["graphgear"]) for e in entries),
                   reverse=True)
    print(f"largest entries (characters, algorithm, graphgear module): {sizes[:6]}; all "
          f"{sum(s[0] for s in sizes):,} characters, {args.out.stat().st_size:,} bytes gzipped")
    total = sum(e["seconds"] for e in entries)
    print(f"{len(entries)} compilations ({sum(e['graphgear'] for e in entries)} graphgear modules), {total:.1f} s in "
          f"all when compiled one after another, CuPy {manifest['cupy']}, {manifest['recorded_on']} -> {args.out}")
    for label in labels:
        mine = [e for e in entries if e["label"] == label]
        print(f"  {label:9s} {len(mine):4d} compilations {sum(e['seconds'] for e in mine):7.2f} s")


if __name__ == "__main__":
    main()
