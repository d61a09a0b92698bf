"""The engine: Strategy (one execution path), controllers (which path each iteration) and the trace."""
