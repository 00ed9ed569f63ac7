"""scikit-learn's estimator checks run the way latentkit's tests use them."""

import warnings

__all__ = ["check_sklearn_estimator"]

#: Formerly the expected failure of ``check_estimators_unfitted`` (scikit-learn wants its own
#: NotFittedError). :class:`latentkit.base.NotFittedError` is now a subclass of scikit-learn's
#: whenever scikit-learn is loaded, so no check is expected to fail for it; the empty dict is
#: kept so that ``{**NOT_FITTED_XFAIL, ...}`` in existing callers still works.
NOT_FITTED_XFAIL = {}


def check_sklearn_estimator(estimator, expected_failed_checks=None, min_passed=40):
    """Run ``sklearn.utils.estimator_checks.check_estimator`` and assert that nothing fails.

    Parameters
    ----------
    estimator : estimator instance
        Cloned by each check; give the hyper-parameters the checks' small data needs.
    expected_failed_checks : dict of str to str, optional
        ``{check_name: reason}`` of the checks allowed to fail (scikit-learn's argument of the
        same name).
    min_passed : int, default 40
        Minimum number of checks that must pass (guards against a run that skips them all).

    Returns
    -------
    list of dict
        scikit-learn's per-check results (``check_name``, ``status``, ``exception``, ...).

    Raises
    ------
    AssertionError
        A check failed that is not expected to, a check outside ``expected_failed_checks``
        was reported as an expected failure, or fewer than ``min_passed`` checks passed.

    Notes
    -----
    Warnings raised inside the checks (convergence on their tiny data sets) are silenced.
    Source: scikit-learn >= 1.6, ``check_estimator(..., expected_failed_checks=...,
    on_fail=None)``.

    Examples
    --------
    >>> from latentkit import GaussianMixture
    >>> from latentkit.testing import check_sklearn_estimator
    >>> allowed = {"check_sample_weight_equivalence_on_dense_data":
    ...            "EM from a random start is not invariant to repeating rows"}
    >>> results = check_sklearn_estimator(GaussianMixture(n_components=2, random_state=0), allowed)
    >>> len(results) >= 40
    True
    """
    from sklearn.utils.estimator_checks import check_estimator

    expected = dict(expected_failed_checks or {})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = check_estimator(estimator, expected_failed_checks=expected, on_fail=None)
    failed = [(r["check_name"], repr(r["exception"])) for r in results
              if r["status"] == "failed"]
    assert not failed, failed
    xfailed = {r["check_name"] for r in results if r["status"] == "xfail"}
    assert xfailed <= set(expected), xfailed - set(expected)
    n_passed = sum(r["status"] == "passed" for r in results)
    assert n_passed >= min_passed, f"only {n_passed} checks passed (expected >= {min_passed})"
    return results
