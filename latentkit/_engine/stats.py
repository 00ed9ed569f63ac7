"""Sufficient statistics, the currency between E and M step: :class:`Stats` and
:func:`stats_dataclass` (re-exported by :mod:`latentkit.base`)."""

import dataclasses
import numbers

import numpy as np

__all__ = ["Stats", "stats_dataclass"]


class Stats:
    """Base class of the sufficient-statistics dataclasses (the currency between E and M step).

    Subclass it with ``@stats_dataclass`` (a frozen dataclass); every field is a float or a
    NumPy array, and two fields are required:

    ``n`` : float
        the number of samples (or total sample weight) the statistics summarise; the ELBO is
        reported per unit of ``n``.
    ``data_term`` : float
        the additive data part of the ELBO, in nats (summed, not averaged).

    Statistics form a commutative monoid under ``+`` with ``stats * 0`` as zero, and scale by a
    scalar (``c * stats``), which is all that chunked, stochastic and distributed drivers use.

    ``count_fields`` (a class attribute) names the fields that hold expected counts, which
    are never negative: SQUAREM (``latentkit._engine.acceleration``) rejects extrapolated
    statistics with a negative count. By default the conventional ``nk`` (the expected
    count of each component or state); a statistics class with other count fields sets it.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.base import Stats, stats_dataclass
    >>> @stats_dataclass
    ... class CountStats(Stats):
    ...     n: float
    ...     data_term: float
    ...     counts: np.ndarray
    >>> a = CountStats(n=2.0, data_term=-1.0, counts=np.array([1.0, 1.0]))
    >>> b = CountStats(n=1.0, data_term=-0.5, counts=np.array([0.0, 1.0]))
    >>> (a + b).counts, (0.5 * a).n  # the statistics of two chunks add; they scale
    (array([1., 2.]), 1.0)
    """

    count_fields = ("nk",)

    def _map(self, fn, *others):
        vals = {}
        for f in dataclasses.fields(self):
            vals[f.name] = fn(getattr(self, f.name), *(getattr(o, f.name) for o in others))
        return type(self)(**vals)

    def __add__(self, other):
        if isinstance(other, numbers.Number) and other == 0:  # sum(list_of_stats) works
            return self
        if type(other) is not type(self):
            return NotImplemented
        return self._map(lambda a, b: a + b, other)

    __radd__ = __add__

    def __mul__(self, c):
        if not isinstance(c, numbers.Real):
            return NotImplemented
        return self._map(lambda a: a * c)

    __rmul__ = __mul__

    def __eq__(self, other):
        if isinstance(other, numbers.Number):
            return False
        if type(other) is not type(self):
            return NotImplemented
        return all(np.array_equal(getattr(self, f.name), getattr(other, f.name))
                   for f in dataclasses.fields(self))

    __hash__ = None

    def zero(self):
        """The zero of this statistics type, with the same shapes."""
        return self * 0.0

    def allclose(self, other, rtol=1e-10, atol=1e-12):
        """Field-wise :func:`numpy.allclose`."""
        return all(np.allclose(getattr(self, f.name), getattr(other, f.name), rtol=rtol, atol=atol)
                   for f in dataclasses.fields(self))


def stats_dataclass(cls):
    """Decorate a :class:`Stats` subclass: ``dataclasses.dataclass(frozen=True, eq=False)``
    (equality is :class:`Stats`' array-aware one).

    Examples
    --------
    >>> import dataclasses
    >>> import numpy as np
    >>> from latentkit.base import Stats, stats_dataclass
    >>> @stats_dataclass
    ... class CountStats(Stats):
    ...     n: float
    ...     data_term: float
    ...     counts: np.ndarray
    >>> s = CountStats(n=1.0, data_term=0.0, counts=np.zeros(2))
    >>> dataclasses.is_dataclass(s), s == CountStats(1.0, 0.0, np.zeros(2))
    (True, True)
    """
    return dataclasses.dataclass(frozen=True, eq=False)(cls)
