"""The convergence monitor of every fit loop (re-exported by :mod:`latentkit.base`)."""

import warnings

import numpy as np

from ..exceptions import ELBODecreaseWarning, InputError
from .._utils.user_frame import user_stacklevel

__all__ = ["ConvergenceMonitor"]


class ConvergenceMonitor:
    """Records the ELBO per iteration and decides convergence.

    Parameters
    ----------
    tol : float
        Threshold on the change of the ELBO (nats per sample). ``tol=0`` never converges, so a
        fit runs exactly ``max_iter`` iterations.
    max_iter : int
        Maximum number of iterations.
    rule : {'exact', 'noisy'}, default 'exact'
        ``'exact'``: converged when ``|ELBO_t - ELBO_{t-1}| < tol``; a decrease of more than
        ``1e-9`` relative warns with :class:`ELBODecreaseWarning` (exact EM / VB bounds never
        decrease). ``'noisy'`` (SVI, VAE): converged when the means of the last two windows of
        ``window`` values differ by less than ``tol``; decreases are expected and not reported.
    window : int, default 10
        Window length of the noisy rule.
    verbose : bool, default False
        Print one line per iteration.
    previous : float, optional
        The ELBO reported last by the run this fit continues (a start that is itself a fit,
        e.g. the optimum of the mixtures' spectral start, whose parameters the fit adopts):
        with the exact rule the first value's change is measured from it, so a start that is
        already converged is confirmed in one iteration. It is not part of :attr:`history`.
    decrease_note : str, optional
        Why the model's bound can decrease, said by the :class:`ELBODecreaseWarning` instead of
        "an exact EM/VB bound must not decrease" (a GaussianMixture's regularised M-step).

    Attributes
    ----------
    history : list of float
        Every reported value, in order.
    converged : bool

    Examples
    --------
    >>> from latentkit import ConvergenceMonitor
    >>> monitor = ConvergenceMonitor(tol=1e-3, max_iter=100)
    >>> [monitor.report(elbo) for elbo in (-5.0, -4.0, -3.9995)]  # stops once the ELBO moves < tol
    [False, False, True]
    >>> monitor.iter, monitor.converged
    (3, True)
    """

    def __init__(self, tol, max_iter, rule="exact", window=10, verbose=False, previous=None,
                 decrease_note=None):
        if rule not in ("exact", "noisy"):
            raise InputError(f"rule must be 'exact' or 'noisy', got {rule!r}.")
        self.tol = tol
        self.max_iter = max_iter
        self.rule = rule
        self.window = window
        self.verbose = verbose
        self.previous = previous
        self.decrease_note = decrease_note
        self.history = []
        self.converged = False

    @property
    def iter(self):
        """Number of values reported so far."""
        return len(self.history)

    def report(self, value):
        """Record one ELBO value and update :attr:`converged`.

        Parameters
        ----------
        value : float
            ELBO in nats per sample.

        Returns
        -------
        bool
            Whether the fit has converged.
        """
        value = float(value)
        h = self.history
        h.append(value)
        if self.verbose:
            print(f"iteration {len(h):5d}  elbo {value: .10g}")
        if not np.isfinite(value):
            raise FloatingPointError(
                f"The ELBO became {value} at iteration {len(h)}; the parameters degenerated. "
                "For mixtures and HMMs check for constant or duplicated features and increase "
                "reg_covar or the priors; for gradient-trained models (VAE) lower learning_rate."
            )
        if self.rule == "exact":
            before = h[-2] if len(h) >= 2 else self.previous
            if before is not None:
                delta = h[-1] - before
                if delta < -1e-9 * max(1.0, abs(before)):
                    warnings.warn(
                        f"The ELBO decreased by {-delta:.3g} nats per sample at iteration "
                        f"{len(h)} ({before:.12g} -> {h[-1]:.12g}); "
                        + (self.decrease_note or "an exact EM/VB bound must not decrease."),
                        ELBODecreaseWarning, stacklevel=user_stacklevel())
                self.converged = abs(delta) < self.tol
        else:
            w = self.window
            if len(h) >= 2 * w:
                self.converged = abs(np.mean(h[-w:]) - np.mean(h[-2 * w:-w])) < self.tol
        return self.converged

