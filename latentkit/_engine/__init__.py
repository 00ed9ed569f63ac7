"""The engine's pieces: hyper-parameters, sufficient statistics, convergence, the
step-size schedule, SQUAREM, the start sample and phase, the restored-state checks and the
private SVI driver. :mod:`latentkit.base` and :mod:`latentkit.inference` are built from them."""
