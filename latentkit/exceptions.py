"""The library's own error and warning classes (re-exported by :mod:`latentkit.base`)."""

import sys

__all__ = ["NotFittedError", "ConvergenceWarning", "ELBODecreaseWarning", "SpectralInitWarning"]


class _NotFittedBase(ValueError, AttributeError):
    """Stand-in base of :class:`NotFittedError` until scikit-learn's class is loaded."""


def _adopt_sklearn_not_fitted():
    """Make :class:`NotFittedError` a subclass of ``sklearn.exceptions.NotFittedError`` once
    scikit-learn's exceptions module is loaded.

    Importing scikit-learn takes seconds, so ``import latentkit`` never does it; but code that
    catches scikit-learn's class (pipelines, model selection, ``check_estimator``) has loaded
    it before our error is raised, and every raise goes through :meth:`NotFittedError.__new__`,
    which calls this first. Only latentkit's own class is changed (its base is replaced by
    scikit-learn's, itself a ValueError and AttributeError)."""
    sk = sys.modules.get("sklearn.exceptions")
    sk_cls = getattr(sk, "NotFittedError", None)
    if isinstance(sk_cls, type) and not issubclass(NotFittedError, sk_cls):
        try:
            NotFittedError.__bases__ = (sk_cls,)
        except TypeError:  # pragma: no cover - a scikit-learn class of another layout
            pass


class NotFittedError(_NotFittedBase):
    """Raised when a model is used before ``fit``.

    A ValueError and an AttributeError, and a subclass of
    ``sklearn.exceptions.NotFittedError`` whenever scikit-learn is loaded (so
    ``except sklearn.exceptions.NotFittedError`` catches it), without importing scikit-learn
    itself.
    """

    def __new__(cls, *args, **kwargs):
        _adopt_sklearn_not_fitted()
        return super().__new__(cls, *args, **kwargs)


_adopt_sklearn_not_fitted()  # scikit-learn imported before latentkit


class ConvergenceWarning(UserWarning):
    """``fit`` stopped at ``max_iter`` before the ELBO change fell below ``tol``."""


class ELBODecreaseWarning(RuntimeWarning):
    """An exact EM / coordinate-ascent bound decreased: this indicates a bug or a numerical
    breakdown, never a property of the data."""


class SpectralInitWarning(UserWarning):
    """The spectral start was not usable and a fallback start was used instead."""
