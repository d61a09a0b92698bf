"""Graph model, construction, file formats, generators and statistics."""

from .graph import Graph

__all__ = ["Graph"]
