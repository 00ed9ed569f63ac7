"""The progress bar of ``latentkit fit`` and ``select``: the start as its own phase, then the
iterations, with no time estimate made from a first iteration that compiled kernels.

Kernels are compiled by numba the first time a model runs (then loaded from its cache): that
first iteration can take 30 s where the next take 0.1 s, and an estimate made from it
(``1/100 [00:32<53:08]``) looks hung. :class:`Progress` listens to numba's compile events
(``numba.core.event``, kind ``'numba:compile'``): while one runs, the bar says ``compiling
kernels (first run only)`` and shows no estimate, and the rate is measured afresh after it.
"""

import sys
import time

from tqdm import tqdm  # not tqdm.auto: the CLI draws on a terminal, and tqdm.auto imports asyncio (50 ms)

__all__ = ["Progress", "COMPILING"]

COMPILING = "compiling kernels (first run only)"
_PLAIN = "{desc}: {n_fmt}/{total_fmt} [{elapsed}{postfix}]"


class Progress:
    """A tqdm progress bar on stderr driven by the model's ``callback(model, n_iter, elbo)``.

    Use as ``with progress: model.fit(X)`` with ``callback=progress.callback``. Disabled by
    --quiet; the bar appears only for fits longer than about half a second (at once while
    kernels compile). ``progress.callback.on_start(model, phase, step, total)`` is the
    models' start hook (:mod:`latentkit._engine.start_phase`): the start (LDA's CVB0 sweeps, the
    mixtures' spectral-start search runs) gets its own bar, ``fit lda: start, cvb0 sweeps``,
    before the iterations' bar.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit import GaussianMixture
    >>> from latentkit.cli import Progress
    >>> progress = Progress(total=100, enabled=False)  # enabled=True draws a bar on stderr
    >>> X = np.array([[0.0], [0.1], [5.0], [5.1]])
    >>> model = GaussianMixture(n_components=2, random_state=0, callback=progress.callback)
    >>> with progress:
    ...     _ = model.fit(X)
    >>> progress.model is model
    True
    """

    def __init__(self, total, enabled=True, desc="fit", delay=0.5):
        self.total = total
        self.delay = delay
        self.enabled = enabled
        self.desc = desc
        self._bar = None
        self.n_iter = 0
        self.model = None       # the model the callback last saw (what Ctrl-C can save)
        self._phase = None      # the start phase shown, or None for the iterations
        self._step = 0
        self._compiled = False  # a compilation ran since the bar's rate was last reset
        self._compiling = 0
        self._listener = None
        self.callback = _Callback(self)

    # ---- bars ------------------------------------------------------------------------------
    def _open(self, total, desc, initial=0):
        if self._bar is not None:
            self._bar.close()
        self._bar = tqdm(total=total, desc=desc, unit="it", file=sys.stderr, delay=self.delay,
                         leave=False, dynamic_ncols=True, initial=initial)

    def __enter__(self):
        if self.enabled:
            self._open(self.total, self.desc)
            self._listen()
        return self

    def __exit__(self, *exc):
        self._unlisten()
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        return False

    def _listen(self):
        try:
            from numba.core import event
        except ImportError:  # pragma: no cover - numba is a dependency
            return
        progress = self

        class _Compiling(event.Listener):
            def on_start(self, ev):
                progress._compile_started()

            def on_end(self, ev):
                progress._compiling = max(0, progress._compiling - 1)

        self._listener = _Compiling()
        event.register("numba:compile", self._listener)

    def _unlisten(self):
        if self._listener is not None:
            from numba.core import event

            event.unregister("numba:compile", self._listener)
            self._listener = None

    def _compile_started(self):
        self._compiling += 1
        self._compiled = True
        bar = self._bar
        if bar is not None and bar.bar_format != _PLAIN:
            bar.bar_format = _PLAIN  # no estimate while compiling
            bar.set_postfix_str(COMPILING, refresh=False)
            bar.last_print_t = time.time()  # shown now, so cleared on close
            bar.refresh()

    def _advance(self, dn, postfix=None):
        bar = self._bar
        if bar is None:
            return
        if self._compiled and self._compiling == 0:
            # the step that compiled is counted but does not enter the rate: a fresh bar
            self._compiled = False
            self._open(bar.total, bar.desc, initial=bar.n + max(dn, 0))
            bar, dn = self._bar, 0
        if dn:
            bar.update(dn)
        if postfix is not None:
            bar.set_postfix_str(postfix, refresh=False)

    # ---- model hooks -----------------------------------------------------------------------
    def on_start(self, model, phase, step, total):
        """The start hook: ``step`` of ``total`` (None: unknown) of ``phase``."""
        if self._bar is not None and phase != self._phase:
            self._phase, self._step = phase, 0
            self._open(total, f"{self.desc}: start, {phase}")
        self._advance(step - self._step)
        self._step = step
        return False

    def on_iteration(self, model, n_iter, elbo):
        """``callback(model, n_iter, elbo)``: advances the bar, never stops the fit."""
        if self._phase is not None and self._bar is not None:
            self._phase = None
            self._open(self.total, self.desc)
            self.n_iter = 0
        dn = n_iter - self.n_iter if n_iter > self.n_iter else n_iter  # a new initialisation
        self._advance(dn, f"ELBO {elbo:.6g}")
        self.n_iter = n_iter
        self.model = model  # what an interrupted fit leaves (see cli._cmd_fit)
        return False


class _Callback:
    """``progress.callback``: the model's ``callback(model, n_iter, elbo)`` with the start hook
    ``on_start`` (an attribute, so models that know no start hook call it as before)."""

    def __init__(self, progress):
        self._progress = progress
        self.on_start = progress.on_start

    def __call__(self, model, n_iter, elbo):
        return self._progress.on_iteration(model, n_iter, elbo)

    def __deepcopy__(self, memo):
        """Shared, not copied, by ``clone``: it reports to the one bar on the screen."""
        return self
