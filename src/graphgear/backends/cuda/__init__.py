"""The CUDA backend: CuPy owns memory and streams; kernels are CUDA C++ (kernels/*.cuh) compiled at run time by NVRTC
around generated functors (runtime.py). Importing this package needs CuPy."""

from .backend import CudaBackend, CudaGraph

__all__ = ["CudaBackend", "CudaGraph"]
