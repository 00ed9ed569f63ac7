"""Adam, the stochastic-gradient optimiser of the VAE (one flat parameter vector).

Source: Kingma & Ba (2015), *Adam: A method for stochastic optimization*, ICLR, Algorithm 1.
"""

import numpy as np

from .._kernels.neural import adam_step

__all__ = ["Adam"]


class Adam:
    """Adam on a flat parameter vector, **ascending** the objective (the ELBO is maximised).

    Parameters
    ----------
    n_params : int
        Length of the parameter vector.
    beta1, beta2 : float, default 0.9, 0.999
        Decay rates of the first and second moment estimates.
    epsilon : float, default 1e-8
        Added to the square root of the bias-corrected second moment.

    Attributes
    ----------
    m, v : ndarray of shape (n_params,)
        First and second moment estimates.
    t : int
        Steps taken.

    Notes
    -----
    The update is Algorithm 1 of Kingma & Ba (2015) with the sign of the gradient flipped
    (ascent): ``theta <- theta + lr * m_hat / (sqrt(v_hat) + epsilon)``, which is exactly what
    ``torch.optim.Adam`` does on the negated objective.
    """

    def __init__(self, n_params, beta1=0.9, beta2=0.999, epsilon=1e-8):
        self.beta1 = float(beta1)
        self.beta2 = float(beta2)
        self.epsilon = float(epsilon)
        self.m = np.zeros(n_params)
        self.v = np.zeros(n_params)
        self.t = 0

    def get_state(self):
        """The moments, the step count and the constants, as a dict :meth:`from_state` reads
        (stored with a fitted model so that ``partial_fit`` continues exactly)."""
        return {"m": self.m, "v": self.v, "t": int(self.t), "beta1": self.beta1,
                "beta2": self.beta2, "epsilon": self.epsilon}

    @classmethod
    def from_state(cls, state):
        """A new optimiser in the state returned by :meth:`get_state` (arrays copied)."""
        opt = cls(len(state["m"]), state["beta1"], state["beta2"], state["epsilon"])
        opt.m = np.array(state["m"], dtype=np.float64)
        opt.v = np.array(state["v"], dtype=np.float64)
        opt.t = int(state["t"])
        return opt

    def step(self, params, grad, learning_rate):
        """One ascent step, in place (the fused kernel
        :func:`latentkit._kernels.neural.adam_step`).

        Parameters
        ----------
        params : ndarray of shape (n_params,), float64, contiguous
            Updated in place.
        grad : ndarray of shape (n_params,)
            Gradient of the objective to **maximise** (not modified).
        learning_rate : float
            Step size ``alpha``.

        Returns
        -------
        params

        Raises
        ------
        ValueError
            ``params`` or ``grad`` of the wrong shape, dtype or layout.
        """
        n = self.m.shape[0]
        if not (isinstance(params, np.ndarray) and params.shape == (n,)
                and params.dtype == np.float64 and params.flags.c_contiguous
                and params.flags.writeable):
            raise ValueError(f"params must be a writeable contiguous float64 array of shape "
                             f"({n},), got {getattr(params, 'dtype', type(params))} "
                             f"{getattr(params, 'shape', '')}.")
        grad = np.ascontiguousarray(grad, dtype=np.float64)
        if grad.shape != (n,):
            raise ValueError(f"grad must have shape ({n},), got {grad.shape}.")
        self.t += 1
        bc1 = 1.0 - self.beta1 ** self.t
        bc2 = 1.0 - self.beta2 ** self.t
        adam_step(params, grad, self.m, self.v, self.beta1, self.beta2,
                  float(learning_rate) / bc1, 1.0 / np.sqrt(bc2), self.epsilon)
        return params
