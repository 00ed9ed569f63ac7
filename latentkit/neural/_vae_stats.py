"""The VAE's minibatch statistics (:class:`VAEStats`): additive over rows."""

import numpy as np

from ..base import Stats, stats_dataclass

__all__ = ["VAEStats"]


@stats_dataclass
class VAEStats(Stats):
    """Minibatch statistics of the VAE: additive over rows.

    Attributes
    ----------
    n : float
        Number of samples summarised.
    data_term : float
        Sum over samples of the Monte-Carlo per-sample ELBO (nats), at ``beta = 1`` and without
        free bits, i.e. always the true bound.
    grad : ndarray of shape (n_params,)
        Gradient of the sum of the (possibly KL-annealed / free-bits) training objective with
        respect to the flat parameter vector ``params_`` (global KL term excluded).

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.neural import VAEStats
    >>> a = VAEStats(n=2.0, data_term=-3.0, grad=np.array([1.0, 0.0]))
    >>> b = VAEStats(n=1.0, data_term=-1.0, grad=np.array([0.0, 2.0]))
    >>> s = a + b  # minibatch sums add
    >>> s.n, s.data_term, s.grad
    (3.0, -4.0, array([1., 2.]))
    """

    n: float
    data_term: float
    grad: np.ndarray
