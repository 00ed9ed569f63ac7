"""Optional distributed drivers (``pip install latentkit[dask]``): ``latentkit.parallel.dask``."""

__all__ = []  # the drivers live in the submodules (imported on demand: dask is optional)
