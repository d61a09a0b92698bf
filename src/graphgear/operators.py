"""Operator return codes shared by functors on every backend (see backends/cpu/operators.py for the contracts)."""

ACTIVATE = 1  # pull functor: the vertex joins the next frontier
STOP = 2  # pull functor: stop scanning this vertex's in-edges (early exit)
