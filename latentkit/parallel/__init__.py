"""Optional distributed drivers (``pip install latentkit[dask]``)."""
