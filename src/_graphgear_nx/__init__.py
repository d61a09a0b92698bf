"""What NetworkX reads about the graphgear backend when it is imported (entry point ``networkx.backend_info``).

Kept apart from the graphgear package so that ``import networkx`` does not import graphgear (numba, its kernels): it
only says which functions the backend implements and how it differs. graphgear.nx_backend holds the backend itself.
"""

from __future__ import annotations

from typing import Any


def get_info() -> dict[str, Any]:
    """The backend's description for NetworkX (filled in by graphgear.nx_backend's function list)."""
    return {
        "backend_name": "graphgear",
        "project": "graphgear",
        "package": "graphgear",
        "url": "https://github.com/graphgear/graphgear",
        "short_summary": "GPU (CUDA) and CPU graph analytics that pick the execution path every iteration.",
        "functions": {},
        "default_config": {},
    }
