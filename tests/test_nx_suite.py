"""NetworkX's own tests of the algorithm families graphgear answers, run against the graphgear backend (issue 22):
NETWORKX_TEST_BACKEND=graphgear makes every networkx call in them go through the backend, converting the test graphs,
and NETWORKX_FALLBACK_TO_NX=True lets the calls the backend declines run in NetworkX."""

from __future__ import annotations

import importlib.metadata
import os
import re
import subprocess
import sys

import pytest

pytest.importorskip("networkx")
if "graphgear" not in {e.name for e in importlib.metadata.entry_points(group="networkx.backends")}:
    pytest.skip("graphgear is not installed (pip install .): NetworkX sees no graphgear backend", allow_module_level=True)

FAMILIES = ["networkx.algorithms.traversal", "networkx.algorithms.shortest_paths", "networkx.algorithms.link_analysis",
            "networkx.algorithms.centrality", "networkx.algorithms.components"]


@pytest.mark.slow
def test_networkx_suite_passes_on_the_graphgear_backend(tmp_path):
    env = dict(os.environ, NETWORKX_TEST_BACKEND="graphgear", NETWORKX_FALLBACK_TO_NX="True",
               GRAPHGEAR_NX_DEVICE=os.environ.get("GRAPHGEAR_NX_DEVICE", "cpu"))
    run = subprocess.run([sys.executable, "-m", "pytest", "--pyargs", *FAMILIES, "-q", "-p", "no:cacheprovider",
                          "-o", "addopts="], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=1800)
    summary = run.stdout.strip().splitlines()[-1] if run.stdout.strip() else run.stderr[-2000:]
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    passed = int(re.search(r"(\d+) passed", summary).group(1))
    assert passed > 500 and "skipped" not in summary and "xfail" not in summary and "failed" not in summary, summary
