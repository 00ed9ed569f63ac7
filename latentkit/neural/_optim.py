"""Adam, the stochastic-gradient optimiser of the VAE (one flat parameter vector).

Source: Kingma & Ba (2015), *Adam: A method for stochastic optimization*, ICLR, Algorithm 1.
"""

import numpy as np

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

    def __init__(self, n_params, beta1=0.9, beta2=0.999, epsilon=1e-8, dtype=np.float64):
        self.beta1 = float(beta1)
        self.beta2 = float(beta2)
        self.epsilon = float(epsilon)
        self.m = np.zeros(n_params, dtype=dtype)
        self.v = np.zeros(n_params, dtype=dtype)
        self._buf = np.empty(n_params, dtype=dtype)
        self.t = 0

    def step(self, params, grad, learning_rate):
        """One ascent step, in place.

        Parameters
        ----------
        params : ndarray of shape (n_params,)
            Updated in place.
        grad : ndarray of shape (n_params,)
            Gradient of the objective to **maximise** (not modified).
        learning_rate : float
            Step size ``alpha``.

        Returns
        -------
        params
        """
        self.t += 1
        b1, b2 = self.beta1, self.beta2
        m, v, buf = self.m, self.v, self._buf
        m *= b1
        m += (1.0 - b1) * grad
        v *= b2
        np.multiply(grad, grad, out=buf)
        buf *= 1.0 - b2
        v += buf
        bc1 = 1.0 - b1 ** self.t
        bc2 = 1.0 - b2 ** self.t
        # denominator sqrt(v / bc2) + eps, as torch.optim.Adam computes it
        np.sqrt(v, out=buf)
        buf /= np.sqrt(bc2)
        buf += self.epsilon
        np.divide(m, buf, out=buf)
        buf *= learning_rate / bc1
        params += buf
        return params

    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("_buf", None)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._buf = np.empty_like(self.m)
