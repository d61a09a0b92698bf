"""Benchmarks: suites of (algorithm, graph) cases, metrics as the papers define them, references, reports."""
