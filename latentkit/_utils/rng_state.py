"""A :class:`numpy.random.Generator`'s state as plain data and back (the generators a fitted
model keeps, stored by :meth:`latentkit.base.LatentModel._get_state`)."""

import copy

import numpy as np
from ..exceptions import InputError

__all__ = ["_rng_to_state", "_rng_from_state"]


def _rng_to_state(rng):
    """The state of a :class:`numpy.random.Generator` as plain JSON-able data.

    Returns
    -------
    dict
        ``rng.bit_generator.state`` (its ``bit_generator`` key names the class).
    """
    return copy.deepcopy(rng.bit_generator.state)


#: bit generators a stored state may name (never an arbitrary attribute of numpy.random)
_BIT_GENERATORS = ("PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64")


def _rng_from_state(state):
    """A new :class:`numpy.random.Generator` in the state given by :func:`_rng_to_state`.

    Raises
    ------
    ValueError
        The state names an unknown bit generator or is malformed.
    """
    name = state.get("bit_generator") if isinstance(state, dict) else None
    if name not in _BIT_GENERATORS:
        raise InputError(f"unknown bit generator {name!r} in a stored generator state; "
                         f"expected one of {list(_BIT_GENERATORS)}.")
    bitgen = getattr(np.random, name)()
    try:
        bitgen.state = state
    except (TypeError, ValueError, KeyError) as exc:
        raise InputError(f"malformed {name} generator state: {exc}.") from None
    return np.random.Generator(bitgen)
