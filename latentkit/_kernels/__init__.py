"""All numba code of latentkit, by family (DESIGN.md section 4).

Modules here import only numpy, math and numba, compile lazily through :func:`._jit.jit`
(``cache=True``), and are called by the validating wrappers of the model modules, never by
users directly.
"""
