"""Utilities every layer above the kernels may use: validation, deprecation, thread
limits, warning attribution, k-means++, data summaries, chunking, file formats, generator state.
They know no model."""
