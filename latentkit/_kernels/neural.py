"""numba kernels of the neural family (the VAE's optimiser).

Imports only numpy, math and numba (DESIGN.md section 4). Called by
:class:`latentkit.neural._optim.Adam`, which validates the arrays; the naive oracle is
:func:`latentkit.testing.oracle_adam_step`.
"""

import math

from ._jit import jit

__all__ = ["adam_step"]


@jit
def adam_step(params, grad, m, v, beta1, beta2, lr_over_bc1, inv_sqrt_bc2, epsilon):
    """One fused Adam ascent step, in place (Kingma & Ba 2015, Algorithm 1).

    For every coordinate: ``m <- b1 m + (1 - b1) g``, ``v <- b2 v + (1 - b2) g^2``,
    ``theta <- theta + (lr / bc1) * m / (sqrt(v) / sqrt(bc2) + eps)`` with the bias corrections
    ``bc1 = 1 - b1^t`` and ``bc2 = 1 - b2^t``: one pass over memory instead of the seven of the
    NumPy expression. Serial and elementwise, so the result does not depend on threads.

    Parameters
    ----------
    params, grad, m, v : 1-D contiguous float64 arrays of equal length
        ``params``, ``m`` and ``v`` are updated in place; ``grad`` is read.
    beta1, beta2, lr_over_bc1, inv_sqrt_bc2, epsilon : float
    """
    c1 = 1.0 - beta1
    c2 = 1.0 - beta2
    for i in range(params.shape[0]):
        g = grad[i]
        mi = beta1 * m[i] + c1 * g
        vi = beta2 * v[i] + c2 * g * g
        m[i] = mi
        v[i] = vi
        params[i] += lr_over_bc1 * mi / (math.sqrt(vi) * inv_sqrt_bc2 + epsilon)
