"""One module per algorithm: a loop of operator calls and its functors, no kernels, no backend branches."""
