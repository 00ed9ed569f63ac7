"""Input validation shared by every model.

Errors name the argument, the expected form, what was found and, where there is one, the fix
(DESIGN.md section 6). The wording of a few messages follows scikit-learn's so that
``sklearn.utils.estimator_checks.check_estimator`` recognises them.
"""

import numbers

import numpy as np
import scipy.sparse as sp
from ..exceptions import InputError, InputTypeError

__all__ = [
    "check_array",
    "check_counts",
    "check_random_state",
    "check_scalar",
    "check_n_features",
    "check_sample_weight",
    "check_dense_width",
    "check_lengths",
    "check_simplex_rows",
]

#: A declared width above this, and 100 times larger than the number of columns (symbols,
#: words) actually used, is taken as a coding mistake (hashed or stray large ids) rather than
#: silently allocating dense arrays of that width.
MAX_SPARSE_WIDTH = 100_000


def privacy_noise_rng():
    """A generator for privacy noise (and secret subsampling), seeded from the operating
    system's entropy on every call, whatever an estimator's ``random_state`` is.

    ``numpy.random.SeedSequence()`` without a seed reads ``os.urandom``: the noise cannot be
    regenerated from a seed, and nothing that would regenerate it is kept or saved. Every
    private estimator draws its noise here (one place to audit); ``random_state`` drives only
    the non-private randomness (starts, restarts).

    Returns
    -------
    numpy.random.Generator
        A fresh PCG64 generator.

    Notes
    -----
    With a seeded generator the Gaussian noise of a release is a function of the stored seed,
    and subtracting it recovers the exact statistics (the guarantee of the Gaussian mechanism,
    Dwork & Roth 2014, Appendix A, assumes noise unknown to the reader).

    Examples
    --------
    >>> from latentkit.privacy import noise_generator
    >>> a, b = noise_generator(), noise_generator()  # fresh OS entropy each call
    >>> type(a).__name__, bool(a.normal() != b.normal())
    ('Generator', True)
    """
    return np.random.default_rng(np.random.SeedSequence())


def check_random_state(random_state):
    """Turn ``random_state`` into a :class:`numpy.random.Generator`.

    Parameters
    ----------
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState
        ``None`` draws fresh OS entropy; an int seeds a new PCG64 generator; a Generator is used
        as is (and advanced); a legacy RandomState seeds a new Generator from one draw of it.
        The global ``np.random`` state is never used.

    Returns
    -------
    numpy.random.Generator

    Raises
    ------
    TypeError
        If ``random_state`` is none of the above.
    ValueError
        If it is a negative int.

    Examples
    --------
    >>> from latentkit.utils import check_random_state
    >>> rng = check_random_state(0)
    >>> type(rng).__name__, check_random_state(rng) is rng
    ('Generator', True)
    """
    if random_state is None:
        return np.random.default_rng()
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(0, 2**31 - 1))
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if random_state < 0:
            raise InputError(f"random_state must be a non-negative int, got {random_state}.")
        return np.random.default_rng(int(random_state))
    raise InputTypeError(
        "random_state must be None, an int or a numpy.random.Generator, "
        f"got {type(random_state).__name__}."
    )


def check_scalar(value, name, kind=numbers.Real, *, low=None, high=None,
                 low_inclusive=True, high_inclusive=True):
    """Check that a hyper-parameter is a scalar of the right kind and range.

    Parameters
    ----------
    value : object
        The value to check.
    name : str
        The argument's name, used in the message.
    kind : type or tuple of types, default numbers.Real
        ``numbers.Integral`` or ``numbers.Real``; bools are rejected for both.
    low, high : float, optional
        Bounds.
    low_inclusive, high_inclusive : bool, default True
        Whether the bounds are allowed.

    Returns
    -------
    int or float
        The value, as a Python int (Integral) or float (Real).

    Raises
    ------
    TypeError
        Wrong type.
    ValueError
        Out of range, or not finite.

    Examples
    --------
    >>> import numbers
    >>> from latentkit.utils import check_scalar
    >>> check_scalar(0.5, "tol", low=0.0, low_inclusive=False)
    0.5
    >>> check_scalar(0, "n_components", numbers.Integral, low=1)
    Traceback (most recent call last):
        ...
    latentkit.exceptions.InputError: n_components must be >= 1, got 0.
    """
    if isinstance(value, bool) or not isinstance(value, kind):
        want = "an int" if kind is numbers.Integral else "a real number"
        raise InputTypeError(f"{name} must be {want}, got {value!r} of type {type(value).__name__}.")
    value = int(value) if kind is numbers.Integral else float(value)
    if not np.isfinite(value):
        raise InputError(f"{name} must be finite, got {value}.")
    if low is not None and (value < low or (value == low and not low_inclusive)):
        op = ">=" if low_inclusive else ">"
        raise InputError(f"{name} must be {op} {low}, got {value}.")
    if high is not None and (value > high or (value == high and not high_inclusive)):
        op = "<=" if high_inclusive else "<"
        raise InputError(f"{name} must be {op} {high}, got {value}.")
    return value


def check_array(X, name="X", *, accept_sparse=False, dtype=np.float64, ensure_2d=True,
                allow_nd=False, ensure_min_samples=1, ensure_min_features=1,
                ensure_finite=True, copy=False):
    """Validate an array-like and return a C-contiguous array of ``dtype``.

    The caller's array is never modified: a converted or contiguous copy is returned when the
    input is not already of the right type and layout, and ``copy=True`` forces a copy.

    Parameters
    ----------
    X : array-like or scipy.sparse matrix
        The input.
    name : str, default "X"
        The argument's name, used in messages.
    accept_sparse : bool, default False
        Whether a scipy.sparse matrix or array is accepted (converted to CSR, sorted indices).
    dtype : numpy dtype or None, default float64
        Target dtype; ``None`` keeps a numeric dtype as is.
    ensure_2d : bool, default True
        Require two dimensions (a 1-D input is rejected with a hint to reshape it).
    allow_nd : bool, default False
        Allow more than two dimensions.
    ensure_min_samples, ensure_min_features : int
        Minimum number of rows and columns.
    ensure_finite : bool, default True
        Reject NaN and infinity.
    copy : bool, default False
        Always return a copy.

    Returns
    -------
    numpy.ndarray or scipy.sparse.csr_matrix

    Raises
    ------
    TypeError
        Non-numeric data (strings, objects, complex), or sparse input where it is not accepted.
    ValueError
        Wrong number of dimensions, too few samples or features, NaN or infinity.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.utils import check_array
    >>> check_array([[1, 2], [3, 4]]).dtype
    dtype('float64')
    >>> check_array([[1.0, np.nan]])
    Traceback (most recent call last):
        ...
    latentkit.exceptions.InputError: Input X contains NaN; remove or impute those entries.
    """
    if sp.issparse(X):
        if not accept_sparse:
            raise InputTypeError(
                f"{name} is a sparse matrix, but a dense array is required; "
                f"use {name}.toarray() to densify it."
            )
        if X.dtype.kind == "c":  # the cast below would drop the imaginary parts silently
            raise InputError(f"{name} must be real, got complex data (Complex data not "
                             "supported).")
        X = sp.csr_matrix(X, dtype=dtype if dtype is not None else X.dtype, copy=copy)
        if not X.has_canonical_format:
            X = X.copy()  # never sort or merge the caller's arrays in place
            X.sum_duplicates()
        if ensure_finite and X.data.size and not np.all(np.isfinite(X.data)):
            raise InputError(f"Input {name} contains NaN or infinity.")
        _check_shape(X, name, ensure_min_samples, ensure_min_features)
        return X
    if isinstance(X, (str, bytes)):
        raise InputTypeError(f"{name} must be a numeric array, got a {type(X).__name__}.")
    try:
        arr = np.asarray(X)
    except Exception as exc:  # ragged lists etc.
        raise InputError(f"{name} could not be converted to an array: {exc}") from None
    if arr.dtype.kind in "OUSV":
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError) as exc:
            # a non-numeric object (dict, list...) is a TypeError, as documented above and as
            # numpy/scikit-learn raise it; an unparsable string stays a ValueError
            raise (InputTypeError if isinstance(exc, TypeError) else InputError)(
                f"{name} must contain numbers, got an array of dtype {arr.dtype} "
                f"that cannot be converted to float (dtype='numeric' expected): {exc}"
            ) from None
    if arr.dtype.kind == "c":
        raise InputError(f"{name} must be real, got complex data (Complex data not supported).")
    if arr.dtype.kind == "b" and dtype is not None:
        arr = arr.astype(dtype)
    if arr.ndim == 0:
        raise InputError(f"Expected 2D array for {name}, got a scalar: {X!r}.")
    if ensure_2d and arr.ndim == 1:
        raise InputError(
            f"Expected 2D array for {name}, got 1D array instead: shape {arr.shape}. "
            f"Reshape your data either using {name}.reshape(-1, 1) if your data has a single "
            f"feature or {name}.reshape(1, -1) if it contains a single sample."
        )
    if ensure_2d and arr.ndim > 2 and not allow_nd:
        raise InputError(f"Expected 2D array for {name}, got {arr.ndim}D array with shape {arr.shape}.")
    out = np.array(arr, dtype=dtype, order="C", copy=True) if copy else \
        np.ascontiguousarray(arr, dtype=dtype)
    if ensure_finite and out.dtype.kind == "f" and not np.all(np.isfinite(out)):
        what = "NaN" if np.isnan(out).any() else "infinity"
        raise InputError(f"Input {name} contains {what}; remove or impute those entries.")
    if out.ndim >= 2 or not ensure_2d:
        _check_shape(out, name, ensure_min_samples, ensure_min_features if out.ndim >= 2 else 0)
    return out


def _check_shape(X, name, ensure_min_samples, ensure_min_features):
    n = X.shape[0]
    if n < ensure_min_samples:
        raise InputError(
            f"Found array with {n} sample(s) (shape={X.shape}) while a minimum of "
            f"{ensure_min_samples} is required: {name} needs more rows."
        )
    if X.ndim >= 2 and X.shape[1] < ensure_min_features:
        raise InputError(
            f"Found array with {X.shape[1]} feature(s) (shape={X.shape}) while a minimum of "
            f"{ensure_min_features} is required: {name} needs more columns."
        )


def check_counts(X, name="X", *, dtype=np.float64, ensure_min_samples=1):
    """Validate a documents x vocabulary count matrix and return it as CSR.

    Parameters
    ----------
    X : array-like or scipy.sparse matrix of shape (n_documents, n_words)
        Non-negative counts, integer or float. Dense input is converted to CSR (the caller's
        array is not modified); duplicate sparse entries are summed.
    name : str, default "X"
    dtype : numpy dtype, default float64
    ensure_min_samples : int, default 1

    Returns
    -------
    scipy.sparse.csr_matrix of shape (n_documents, n_words)
        Sorted indices, no duplicates, no explicit negative entries.

    Raises
    ------
    ValueError
        NaN, infinity, negative counts, wrong dimensions.
    TypeError
        Non-numeric data.
    """
    if sp.issparse(X):
        X = check_array(X, name, accept_sparse=True, dtype=dtype,
                        ensure_min_samples=ensure_min_samples)
    else:
        X = sp.csr_matrix(check_array(X, name, dtype=dtype,
                                      ensure_min_samples=ensure_min_samples))
    if X.data.size and X.data.min() < 0:
        rows, cols, vals = sp.find(X)
        i = int(np.argmax(vals < 0))
        raise InputError(
            f"{name} must contain non-negative counts, found {vals[i]} "
            f"at (document {rows[i]}, word {cols[i]})."
        )
    if X.data.size and (X.data == 0).any():
        X = X.copy()  # the caller's matrix keeps its explicit zeros
        X.eliminate_zeros()
    return X


def check_n_features(n_features, expected, name="X", owner="the model"):
    """Raise when ``n_features`` differs from the number seen in ``fit``.

    Raises
    ------
    ValueError
        ``"X has 3 features, but GaussianMixture is expecting 4 features as input."``
    """
    if n_features != expected:
        raise InputError(
            f"{name} has {n_features} features, but {owner} is expecting {expected} "
            f"features as input."
        )


def check_sample_weight(sample_weight, n_samples, name="sample_weight"):
    """Validate per-sample weights.

    Parameters
    ----------
    sample_weight : None or array-like of shape (n_samples,)
        Non-negative finite weights; ``None`` means all ones.
    n_samples : int

    Returns
    -------
    numpy.ndarray of shape (n_samples,), float64
        A new array (never the caller's).

    Raises
    ------
    ValueError
        Wrong shape, negative, NaN or all-zero weights.
    """
    if sample_weight is None:
        return np.ones(n_samples)
    w = np.array(sample_weight, dtype=np.float64, copy=True)
    if w.ndim != 1 or w.shape[0] != n_samples:
        raise InputError(
            f"{name} must have shape ({n_samples},) to match X, got shape {w.shape}."
        )
    if not np.all(np.isfinite(w)) or (w < 0).any():
        raise InputError(f"{name} must be finite and non-negative.")
    if w.sum() <= 0:
        raise InputError(f"{name} must have a positive sum, got all zeros.")
    return w


def check_dense_width(width, n_used, n_rows, *, name="X", unit="columns", owner="the model",
                      what="parameter matrix", alternative=None):
    """Refuse a declared width that is a coding mistake before a dense array of it is allocated.

    Models with a dense (n_rows, width) parameter matrix (the topics of
    LatentDirichletAllocation and PLSA, the categories of a categorical
    DirichletProcessMixture, the emission matrix of CategoricalHMM) call this with the number
    of columns the data actually use. A width above :data:`MAX_SPARSE_WIDTH` that is also more
    than 100 times the number used (hashed word ids, a stray large symbol) is refused.

    Parameters
    ----------
    width : int
        The declared width (columns of X, largest symbol + 1).
    n_used : int
        Distinct columns (symbols) with data.
    n_rows : int
        Rows of the dense matrix (components, states).
    name, unit, owner, what : str
        Words of the message.
    alternative : str, optional
        Another fix, appended to the message.

    Raises
    ------
    ValueError
        Naming the width, the memory the dense array would need, and the fix (re-code the
        columns to those used).
    """
    width, n_used = int(width), int(n_used)
    if width > MAX_SPARSE_WIDTH and width > 100 * max(n_used, 1):
        gib = float(n_rows) * width * 8 / 2**30
        raise InputError(
            f"{name} declares {width} {unit} but uses only {n_used}: {owner} would allocate a "
            f"dense {n_rows} x {width} {what} ({gib:.3g} GiB of float64). "
            f"Re-code the {unit} to 0..{max(n_used, 1) - 1} (the {n_used} used): "
            + (f"np.unique({name}, return_inverse=True)" if unit == "symbols" else
               f"cols = np.unique({name}.indices); {name} = {name}[:, cols] (keep cols to map "
               "back)")
            + (f"; {alternative}." if alternative else "."))


def check_lengths(lengths, n_samples, min_length=1):
    """Validate ``lengths`` and return sequence offsets.

    Parameters
    ----------
    lengths : None or array-like of int of shape (n_sequences,)
        Length of each sequence stacked in ``X`` (hmmlearn's convention). None: one sequence.
        A bare number is refused (``lengths=[n]`` is one sequence of ``n`` steps).
    n_samples : int
        Number of rows of ``X``.
    min_length : int, default=1
        The shortest sequence allowed (0: empty sequences are allowed, as the spectral HMM
        moments take them).

    Returns
    -------
    offsets : ndarray of shape (n_sequences + 1,) of int64
        Sequence ``s`` is rows ``offsets[s]:offsets[s + 1]``.

    Raises
    ------
    ValueError
        Non-integer, negative, zero or longer-than-X lengths (naming the sequence), or lengths
        whose sum is not ``n_samples``.
    TypeError
        Non-numeric lengths, or a bare number instead of a sequence.

    Examples
    --------
    >>> from latentkit.sequence import check_lengths
    >>> check_lengths([3, 2], n_samples=5)  # sequence s is rows offsets[s]:offsets[s + 1]
    array([0, 3, 5])
    >>> check_lengths(None, n_samples=4)
    array([0, 4])
    """
    if lengths is None:
        return np.array([0, n_samples], dtype=np.int64)
    arr = np.asarray(lengths)
    if arr.ndim == 0 and hasattr(lengths, "__iter__") and not isinstance(lengths, str):
        # a generator, an iterator, a set, a dict: np.asarray made a 0-d object array of it
        raise InputTypeError(f"lengths must be a list or array of ints (one length per stacked "
                             f"sequence, in order), got a {type(lengths).__name__}.")
    if arr.ndim == 0:
        raise InputTypeError(f"lengths must be a sequence of ints (one length per stacked "
                             f"sequence), got the single value {arr.item()!r}; for one sequence "
                             f"give lengths=[{n_samples}] or leave lengths=None.")
    if arr.ndim != 1:
        raise InputError(f"lengths must be a 1-D array of sequence lengths, got shape {arr.shape}.")
    if arr.size == 0:
        raise InputError("lengths is empty; give at least one sequence length.")
    if arr.dtype.kind not in "iuf" or arr.dtype.kind == "b":
        raise InputTypeError(f"lengths must contain integers, got dtype {arr.dtype}.")
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)):
            raise InputError(f"lengths must contain integers, got {arr.tolist()!r}.")
    bad = np.flatnonzero(arr < min_length)
    if bad.size:
        s = int(bad[0])
        raise InputError(f"lengths[{s}] = {arr[s].item():.0f}: every sequence must have at "
                         + ("least one time step (zero-length and negative lengths are not "
                            "allowed)." if min_length == 1 else
                            f"least {min_length} time steps."))
    long = np.flatnonzero(arr > n_samples)  # before the cast and the sum, which could wrap
    if long.size:
        s = int(long[0])
        raise InputError(f"lengths[{s}] = {arr[s].item()} is longer than X, which has {n_samples} "
                         "rows; the lengths of the stacked sequences must add up to the number "
                         "of rows of X.")
    arr = arr.astype(np.int64)
    total = int(arr.sum())
    if total != n_samples:
        raise InputError(f"lengths sum to {total}, but X has {n_samples} rows; the lengths of "
                         "the stacked sequences must add up to the number of rows of X.")
    return np.concatenate([[0], np.cumsum(arr)]).astype(np.int64)


def check_simplex_rows(value, name, shape, *, normalize=False):
    """Validate probabilities whose last axis lies on the simplex (HMM ``startprob``,
    ``transmat`` and ``emissionprob``, PLSA's ``init`` arrays).

    Parameters
    ----------
    value : array-like
    name : str
        The argument's name for the messages, e.g. ``"init['transmat']"``.
    shape : tuple of int
        The required shape; the last axis is the one that sums to 1.
    normalize : bool, default False
        Divide by the sums (exactly 1 afterwards; they are within the tolerance already).

    Returns
    -------
    ndarray of float64, of shape ``shape``
        A copy: the caller's array is never modified. Rows given in float32 or float16 are
        always divided by their sums.

    Raises
    ------
    ValueError
        The wrong shape, a negative or non-finite entry, or a sum farther from 1 than 1e-8
        (float64 values) or ``4 n eps`` of the given float type (n terms a row, ``eps`` its
        machine epsilon: exact probabilities rounded to float32 sum within ``n eps / 2`` of
        1, and hmmlearn accepts them); the message gives the sum farthest from 1.
    """
    src = np.asarray(value)
    arr = np.array(value, dtype=np.float64, copy=True)
    if arr.shape != shape:
        raise InputError(f"{name} must have shape {shape}, got {arr.shape}.")
    if not np.all(np.isfinite(arr)) or np.any(arr < 0):
        raise InputError(f"{name} must be finite and non-negative.")
    low = src.dtype.kind == "f" and src.dtype.itemsize < 8   # float32, float16
    tol = max(1e-8, 4 * (shape[-1] if shape else 1) * float(np.finfo(src.dtype).eps)) \
        if low else 1e-8
    s = arr.sum(axis=-1)
    dev = np.abs(s - 1.0)
    if np.any(dev > tol):
        at = np.unravel_index(int(np.argmax(dev)), dev.shape) if dev.ndim else ()
        where = f" (row {at[0] if len(at) == 1 else at})" if at else ""
        raise InputError(
            f"{name} must sum to 1 along its last axis (rows summing to 1, probabilities), "
            f"got a sum of {float(np.ravel(s)[np.argmax(dev)])!r}{where}, {float(dev.max()):.3g} "
            f"from 1, beyond the tolerance {tol:.3g} for {src.dtype} values.")
    return arr / s[..., None] if (normalize or low) else arr
