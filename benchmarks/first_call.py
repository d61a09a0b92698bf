"""First-call time of every algorithm in a new process, and the wall time of `graphgear run` (issue 22, scope 5).

    python benchmarks/first_call.py [--cache-dir DIR] [--runs 2] [--json out.json]

numba compiles a kernel once per machine and loads it from its on-disk cache in every later process. This script
points numba at a fresh cache folder (or --cache-dir) and starts child processes one after the other: the first
compiles (the cold row), the later ones load (the warm rows). Each child imports graphgear, loads kron:16 and
kron:16:w (untimed), then times the first and the second call of each of the seven algorithms; first - second is
what the process paid to compile or load the kernels. Then `graphgear run bfs kron:10` runs with the warm cache, and
`python -X importtime -c "import graphgear"` lists the heaviest imports.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time

CHILD = textwrap.dedent(
    """
    import json, time
    start = time.perf_counter()
    import graphgear as gg
    imported = time.perf_counter() - start
    g, gw = gg.load("kron:16"), gg.load("kron:16:w")
    g.stats(), gw.stats()  # graph statistics are cached per graph: not the algorithms' first-call cost
    s = int(g.out_degree().argmax())
    calls = {
        "bfs": lambda: gg.bfs(g, s).distances,
        "sssp": lambda: gg.sssp(gw, s).distances,
        "pagerank": lambda: gg.pagerank(g).ranks,
        "connected_components": lambda: gg.connected_components(g).labels,
        "strongly_connected_components": lambda: gg.strongly_connected_components(g).labels,
        "betweenness_centrality": lambda: gg.betweenness_centrality(g, k=8, seed=0).centrality,
        "color_propagation": lambda: gg.color_propagation(g).colors,
    }
    times = {"import": imported}
    for name, call in calls.items():
        t = time.perf_counter(); call(); first = time.perf_counter() - t
        t = time.perf_counter(); call(); second = time.perf_counter() - t
        times[name] = (first, second)
    print("RESULT " + json.dumps(times))
    """
)


def run_child(env: dict[str, str]) -> dict:
    done = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, timeout=1800)
    if done.returncode:
        raise SystemExit(done.stderr[-4000:])
    line = next(x for x in done.stdout.splitlines() if x.startswith("RESULT "))
    return json.loads(line[len("RESULT "):])


def cli_wall(env: dict[str, str], repeat: int) -> list[float]:
    exe = shutil.which("graphgear", path=os.path.dirname(sys.executable))
    command = [exe] if exe else [sys.executable, "-m", "graphgear"]
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        done = subprocess.run(command + ["run", "bfs", "kron:10"], env=env, capture_output=True, text=True)
        times.append(time.perf_counter() - start)
        if done.returncode:
            raise SystemExit(done.stderr[-4000:])
    return times


def import_profile(env: dict[str, str], top: int) -> tuple[float, list[tuple[float, str]]]:
    """(seconds of `import graphgear`, the `top` heaviest imports by cumulative time) from -X importtime."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", "import graphgear"], env=env,
                          capture_output=True, text=True)
    rows = []
    for line in done.stderr.splitlines():
        parts = line.split("|")
        if not line.startswith("import time:") or len(parts) != 3 or not parts[1].strip().isdigit():
            continue
        rows.append((int(parts[1]) / 1e6, parts[2].rstrip()))
    total = next((c for c, name in rows if name.strip() == "graphgear"), float("nan"))
    depth = lambda name: len(name) - len(name.lstrip())  # noqa: E731 - nesting as -X importtime indents it
    heavy = sorted((c, name.strip()) for c, name in rows if depth(name) <= 3 and name.strip() != "graphgear")[::-1]
    return total, heavy[:top]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cache-dir", help="numba's cache folder (default: a fresh temporary one, so the first "
                        "child compiles everything)")
    parser.add_argument("--runs", type=int, default=2, help="warm child processes after the cold one")
    parser.add_argument("--cli-repeat", type=int, default=3)
    parser.add_argument("--json", help="write the numbers here too")
    args = parser.parse_args()

    cache = args.cache_dir or tempfile.mkdtemp(prefix="gg-first-call-")
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    rows = [("cold", run_child(env))] + [(f"warm {i + 1}", run_child(env)) for i in range(args.runs)]
    names = [k for k in rows[0][1] if k != "import"]
    print(f"numba cache: {cache}")
    print("first call / second call of each algorithm in a new process, seconds (kron:16; sssp on kron:16:w; "
          "betweenness k=8)")
    print(f"| algorithm | {' | '.join(label for label, _ in rows)} |")
    print("|---|" + "---|" * len(rows))
    print("| import graphgear | " + " | ".join(f"{r['import']:.3f}" for _, r in rows) + " |")
    for name in names:
        print(f"| {name} | " + " | ".join(f"{r[name][0]:.3f} / {r[name][1]:.3f}" for _, r in rows) + " |")
    warm_worst = max(max(r[name][0] for name in names) for _, r in rows[1:]) if len(rows) > 1 else float("nan")
    print(f"slowest first call in a warm process: {warm_worst:.3f} s")

    wall = cli_wall(env, args.cli_repeat)
    print(f"`graphgear run bfs kron:10` wall, warm cache: {', '.join(f'{t:.2f}' for t in wall)} s "
          f"(min {min(wall):.2f})")
    total, heavy = import_profile(env, 10)
    print(f"`import graphgear` (-X importtime): {total:.3f} s; heaviest direct imports (cumulative s):")
    for seconds, name in heavy:
        print(f"  {seconds:.3f}  {name}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump({"children": rows, "cli_wall": wall, "import": total}, out, indent=1)
    if not args.cache_dir:
        shutil.rmtree(cache, ignore_errors=True)


if __name__ == "__main__":
    main()
