"""Naive NumPy oracle of the neural kernels (:mod:`latentkit._kernels.neural`): Adam written
as the textbook Algorithm 1 of Kingma & Ba (2015), compared to the fused kernel to 1e-10 in
``tests/neural/test_mlp_gradients.py``."""

import numpy as np

__all__ = ["oracle_adam_step"]


def oracle_adam_step(params, grad, m, v, t, learning_rate, beta1=0.9, beta2=0.999,
                     epsilon=1e-8):
    """Step ``t`` (1-based) of Adam, ascending: returns new ``(params, m, v)`` (inputs untouched).

    Parameters
    ----------
    params, grad, m, v : ndarray of shape (n,)
    t : int
        The step number after this update.
    learning_rate, beta1, beta2, epsilon : float

    Returns
    -------
    params, m, v : ndarray of shape (n,)

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.testing import oracle_adam_step
    >>> p = np.zeros(2); g = np.array([1.0, -1.0])
    >>> params, m, v = oracle_adam_step(p, g, np.zeros(2), np.zeros(2), t=1, learning_rate=0.1)
    >>> np.round(params, 6)  # the first step moves each coordinate by about learning_rate
    array([ 0.1, -0.1])
    """
    m = beta1 * np.asarray(m) + (1.0 - beta1) * np.asarray(grad)
    v = beta2 * np.asarray(v) + (1.0 - beta2) * np.asarray(grad) ** 2
    m_hat = m / (1.0 - beta1 ** t)
    v_hat = v / (1.0 - beta2 ** t)
    return np.asarray(params) + learning_rate * m_hat / (np.sqrt(v_hat) + epsilon), m, v
