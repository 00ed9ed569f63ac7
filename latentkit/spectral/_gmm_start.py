"""A spectral start for the Gaussian mixtures that holds up on real data.

The method of moments for spherical mixtures (Hsu & Kakade 2013) is exact when every component
is ``N(mu_i, sigma_i^2 I)``. Real features are measured in different units, correlated inside
each class, and their class means are only affinely independent once centred, so the bare
estimate can be far off (a 0.09 / 0.91 split on the Swiss banknotes). The start built
here (:func:`spectral_labels`) makes the spherical model closer to true before the moments are
taken, refines the estimate, and :func:`spectral_init_gmm` / :func:`spectral_responsibilities`
check the result against the k-means++ start the model would otherwise use, then search for a
better optimum from it:

1. **Standardise** each feature (weighted mean 0, variance 1). One spherical variance cannot
   describe features in different units; unit variance per feature is the affine map that makes
   the noise closest to isotropic when nothing else is known. Every covariance type of the
   mixtures is equivariant under per-feature scaling, so nothing is lost: the labels found are
   used on the original X.
2. **Moments with a variance per component, about a shifted centre**:
   :class:`~latentkit.spectral.SpectralGMM` with ``covariance_type='spherical'`` (Hsu & Kakade
   2013, Theorem 1) and ``center=True`` (the means of standardised data sum to zero, so their
   second moment has rank k - 1 without the shift; see :class:`~latentkit.spectral.GMMMoments`).
3. **Refine** the spectral means by Lloyd iterations (Lloyd 1982) to convergence: the moments
   give the means to O(n^-1/2) under the model, but off-model the nearest-mean partition is a
   better starting point than the raw estimate, and Lloyd's fixed point is cheap to reach from
   there.
4. **Decorrelate within classes** and repeat 2-3: with the labels of step 3, the pooled
   within-class covariance ``S_w`` is estimated and the data mapped to ``S_w^{-1/2} x``. Under
   a mixture with a common (tied) covariance ``S_w`` this makes every component exactly
   spherical with unit variance (the Mahalanobis metric of Fisher's discriminant analysis),
   while whitening by the *total* covariance would also flatten the between-class directions
   (the moment method then sees ``M2 = 0``). Alternating a discriminant metric and
   clustering is the scheme of Ding & Li (2007), "Adaptive dimension reduction using
   discriminant analysis and K-means clustering", ICML. The eigenvalues of ``S_w`` are floored
   at ``1e-3`` of the largest so a class with fewer points than features cannot blow up a
   direction.
5. **Model check**: each spectral partition (after step 3 and after step 4) is turned into
   the model's starting parameters by one M-step and the one with the highest
   log-likelihood (nats per sample, of the requested covariance type) is compared with the
   k-means++ start. When k-means++ wins, a :class:`SpectralInitWarning` says so with both
   numbers, and the start is exactly the one ``init='kmeans++'`` gives with the same random
   state. For the Dirichlet-process mixture the spectral start has fewer clusters (k from
   the spectrum) than the model has columns, and a likelihood always prefers more
   clusters: there the model's own objective (the ELBO after one iteration) from the
   spectral start is compared with the one from the model's own k-means++ start over the
   whole truncation, which is also the fallback.
6. **Split and merge** (:func:`split_merge`): when the spectral start is kept, the model is
   fitted from it to its optimum, and candidate partitions of that optimum are fitted to
   their own optima (Ueda et al. 2000, SMEM): merge the pair of clusters with the most
   overlapping posteriors and split the cluster two Gaussians explain best (its
   principal-axis halves refined by 2-means), or, where the truncation of a
   Dirichlet-process mixture leaves columns empty, split a cluster into an empty column (a
   birth). A candidate is tried only when the one-M-step likelihood of its partition
   predicts a gain over the current partition (for a birth under an ELBO, a gain above one
   component's BIC complexity): no run is spent on a move that does not even raise the
   likelihood of the hard partition. The runs are SQUAREM-accelerated
   (:func:`latentkit._engine.acceleration.squarem_fit`, every E-step counted) and stopped at a
   loose tolerance; a trial that ends clearly above the current optimum is accepted, and
   the optimum reached is continued to the model's own tolerance. Every run continues from
   the fitted parameters of the run before it (never from its responsibilities, which
   would be one more EM iteration, uncounted), and the model adopts the parameters of the
   optimum reached, so its own fit continues that run and only confirms convergence
   (usually in one iteration: ``n_iter_`` and ``lower_bounds_`` are the fit's own, its
   first bound is the one the search's last run would report next, and its change is
   measured from the last bound that run reported); every iteration spent inside the start
   is reported (``spectral_report_['n_iter']``), so the cost is counted honestly. Every
   spectral variant above leads EM on the olive oils (3 regions) to the same optimum,
   -4.339 nats per sample (ARI 0.49); one merge-split move from it reaches -4.130 (ARI
   1.00), and -5.155 (ARI 1.00) for the variational mixture, whose ELBO dips below the
   first optimum's for several iterations on the way (a short partial run rejects it).
   The look-ahead fits use the model's own objective (maximum likelihood for
   GaussianMixture, the ELBO for the variational mixtures): one candidate per round, at
   most 2 moves.

:func:`n_components_from_spectrum` picks a number of components from the covariance spectrum of
the standardised data for the Dirichlet-process mixture.
"""

import copy
import numbers
import warnings

import numpy as np
from scipy.special import logsumexp

from .._engine.acceleration import squarem_fit
from .._utils.kmeans import kmeans_plusplus, lloyd
from .._engine.start_phase import report_start
from .._utils.threads import caught_warnings
from .._utils.user_frame import user_stacklevel
from .._utils.validation import check_array, check_random_state, check_sample_weight, check_scalar
from ..exceptions import SpectralInitWarning  # defined there; importable here as before
from ..distributions._gaussian import (
    compute_precision_cholesky,
    log_gaussian_prob,
    params_from_resp,
)

__all__ = ["spectral_labels", "start_log_likelihood"]

#: Eigenvalues of the within-class covariance are floored at this fraction of the largest.
_WITHIN_FLOOR = 1e-3

#: Lloyd iterations of the refinement (stops earlier at a fixed point).
_N_LLOYD = 300

#: Split-and-merge search: candidates tried per round, accepted moves.
_SMEM_CANDIDATES = 1
_SMEM_ROUNDS = 2

#: The search's runs (SQUAREM) stop when a plain step changes the objective by less than this
#: (nats per sample); a trial is accepted when it ends ``_SEARCH_MARGIN`` times this above the
#: current optimum, and the optimum the search ends at is continued to the model's own tol.
_SEARCH_TOL = 1e-3
_SEARCH_MARGIN = 10.0

#: Lloyd iterations that refine the principal-axis halves of a split (2-means in the cluster).
_SPLIT_LLOYD = 300


def _standardise(X, w):
    """Weighted z-scores; a constant feature gets scale 1 (it stays constant, at 0)."""
    mean = (w @ X) / w.sum()
    sd = np.sqrt((w @ (X - mean) ** 2) / w.sum())
    sd[~(sd > 0)] = 1.0
    return (X - mean) / sd


def _spectral_pass(Z, k, w, rng, n_lloyd):
    """Per-component spherical moments on Z, then Lloyd from the spectral means: labels."""
    from ._estimators import SpectralGMM  # local: _gmm_start and _estimators use each other

    est = SpectralGMM(k, covariance_type="spherical", random_state=rng).fit(Z)
    means = est.means_
    if not np.all(np.isfinite(means)):
        raise ValueError("non-finite spectral means")
    return lloyd(Z, means.copy(), w, n_lloyd)[1]


def _within_whitening(Z, labels, k, w):
    """``S_w^{-1/2}`` of the pooled weighted within-class covariance, eigenvalues floored."""
    D = Z.shape[1]
    Sw = np.zeros((D, D))
    for j in range(k):
        sel = labels == j
        if not sel.any():
            continue
        wj = w[sel]
        diff = Z[sel] - (wj @ Z[sel]) / max(wj.sum(), 1e-300)
        Sw += (diff * wj[:, None]).T @ diff
    Sw /= w.sum()
    ev, V = np.linalg.eigh(0.5 * (Sw + Sw.T))
    top = ev[-1] if ev[-1] > 0 else 1.0
    return V / np.sqrt(np.maximum(ev, _WITHIN_FLOOR * top))


def spectral_labels(X, n_components, sample_weight=None, random_state=None, n_lloyd=_N_LLOYD,
                    decorrelate=True):
    """Partitions of X from the robust spectral start (steps 1-4 of the module notes).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    n_components : int
        k, ``1 <= k <= n_features`` and at most n_samples.
    sample_weight : array-like of shape (n_samples,), optional
        Non-negative weights for the standardisation, Lloyd and ``S_w`` (the moments
        themselves are unweighted).
    random_state : None, int or numpy.random.Generator
        Restarts of the tensor power method.
    n_lloyd : int, default 300
        Maximum Lloyd iterations per pass (0: nearest spectral mean).
    decorrelate : bool, default True
        Run the second pass in within-class whitened coordinates (step 4).

    Returns
    -------
    list of ndarray of int of shape (n_samples,)
        The partition after the first pass and, with ``decorrelate``, after the second (the
        second is left out when its moments are degenerate).

    Raises
    ------
    ValueError
        NaN or infinity, ``n_components`` above n_features or n_samples, degenerate moments
        (M2 of rank below k, non-finite estimate): the message says which.
    TypeError
        Non-integer ``n_components`` or ``n_lloyd``.

    Notes
    -----
    Sources: Hsu & Kakade (2013), Theorem 1; Lloyd (1982); Ding & Li (2007), section 3 (the
    alternation of a discriminant metric and clustering).
    """
    X = check_array(X, "X", ensure_min_samples=2)
    n, d = X.shape
    k = int(check_scalar(n_components, "n_components", numbers.Integral, low=1))
    n_lloyd = int(check_scalar(n_lloyd, "n_lloyd", numbers.Integral, low=0))
    if k > min(n, d):
        raise ValueError(f"n_components={k} exceeds n_features={d} or n_samples={n}: the "
                         "spherical-mixture moments need k <= n_features.")
    w = check_sample_weight(sample_weight, n)
    rng = check_random_state(random_state)
    Z = _standardise(X, w)
    first = _spectral_pass(Z, k, w, rng, n_lloyd)
    out = [first]
    if decorrelate and k > 1:
        try:
            Y = Z @ _within_whitening(Z, first, k, w)
            out.append(_spectral_pass(Y, k, w, rng, n_lloyd))
        except (ValueError, np.linalg.LinAlgError):
            pass  # the first pass stands
    return out


def one_hot(labels, n_columns):
    """Responsibilities of shape (n_samples, n_columns) with a 1 at each sample's label."""
    R = np.zeros((labels.shape[0], n_columns))
    R[np.arange(labels.shape[0]), labels] = 1.0
    return R


def params_from_labels(X, labels, n_components, covariance_type, reg_covar, w):
    """:func:`params_from_resp` of the one-hot ``labels`` (values in ``[0, n_components)``)."""
    return params_from_resp(X, one_hot(labels, n_components), covariance_type, reg_covar, w)


def start_log_likelihood(X, params, covariance_type, reg_covar, w):
    """Weighted mean log-likelihood (nats per sample) of starting parameters.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    params : dict
        ``'weights'``, ``'means'``, ``'covariances'`` as :func:`params_from_labels` returns.
    covariance_type : {'full', 'tied', 'diag', 'spherical'}
    reg_covar : float
        Floor of the repair of a singular covariance (as the model uses it).
    w : ndarray of shape (n_samples,)

    Returns
    -------
    float
        ``sum_i w_i log sum_k pi_k N(x_i | mu_k, Sigma_k) / sum_i w_i``.
    """
    with caught_warnings("ignore"):
        prec, _ = compute_precision_cholesky(params["covariances"], covariance_type,
                                             reg_covar=reg_covar)
    shift = (w @ X) / w.sum()
    with np.errstate(divide="ignore"):
        lp = log_gaussian_prob(X, params["means"], prec, covariance_type, shift=shift) \
            + np.log(params["weights"])
    return float(w @ logsumexp(lp, axis=1) / w.sum())


#: Fitted attributes that record a run rather than describe the parameters: not carried over
#: when a fit continues from another fit's parameters (:func:`adopt_parameters`).
_RUN_RECORD = frozenset({"lower_bound_", "lower_bounds_", "n_iter_", "converged_", "monitor_",
                         "n_steps_", "_rng", "_sample_rng", "_running_stats", "spectral_report_",
                         "spectral_n_components_", "_init_params", "squarem_"})


def adopt_parameters(model, fitted):
    """Give ``model`` the parameters ``fitted`` (same class, hyper-parameters and data) ended
    with: every fitted attribute (and the private state: a Gaussian's moment shift, the
    variational factors) except the records of the run (``lower_bounds_``, ``n_iter_``...),
    deep-copied. A fit whose first iteration starts there continues ``fitted``'s run exactly:
    its first ELBO is the one at ``fitted``'s final parameters, and its convergence test
    measures that ELBO's change from the last one ``fitted`` reported (``_start_bound``, taken
    by :class:`~latentkit.base.LatentModel.fit` for its monitor's ``previous``), so an
    optimum is confirmed in one iteration instead of two."""
    for key, value in fitted._fit_state().items():
        if key not in _RUN_RECORD:
            setattr(model, key, value)
    model._start_bound = float(fitted.lower_bound_)


class ModelLookahead:
    """The look-ahead of the split-and-merge search for a mixture model: its own fit.

    Parameters
    ----------
    model : GaussianMixture, VariationalGaussianMixture or DirichletProcessMixture
        Cloned for every run (the user's estimator is not touched).
    X : ndarray of shape (n_samples, n_features)
    w : ndarray of shape (n_samples,)

    Attributes
    ----------
    penalised : bool
        Whether the model's objective is an ELBO (the variational mixtures), which charges
        every extra component its parameters' complexity; False for maximum likelihood.
    accelerate : bool
        Runs to convergence by SQUAREM (default True) or by the model's plain ``fit``.
    optimum : fitted model or None
        Set by :func:`split_merge`: the fit at the optimum its search reached, which the
        model adopts (:func:`adopt_parameters`) so its own fit continues that run instead of
        restarting from responsibilities (which would be one more, uncounted, EM iteration).

    Notes
    -----
    ``lookahead(start, max_iter=None, tol=None) -> (objective, n_iter, fitted)``: a clone
    fitted from ``start``. With ``max_iter``: the model's own ``fit`` for ``max_iter``
    iterations at ``tol``. Without: a run to convergence by SQUAREM
    (:func:`~latentkit._engine.acceleration.squarem_fit`, each E-step one iteration; plain ``fit``
    when ``accelerate`` is False) at ``tol``, never below the model's own (None: the
    model's own); ``start``
    is responsibilities (n_samples, n_columns) -- a GaussianMixture starts from one M-step of
    them, the variational mixtures from them, as from a one-hot k-means++ start -- or a fitted
    clone, whose run is continued from its final parameters. Returns the final objective
    (log-likelihood or ELBO, nats per sample), the iterations of this call and the fitted
    clone. Convergence warnings are silenced: a look-ahead, not the user's fit.
    """

    def __init__(self, model, X, w):
        from ..mixture import GaussianMixture  # local: the mixtures import this module lazily

        self.model, self.X, self.w = model, X, w
        self._gmm = isinstance(model, GaussianMixture)
        self.penalised = not self._gmm
        self.optimum, self.accelerate, self.n_runs = None, True, 0

    def __call__(self, start, max_iter=None, tol=None):
        from ..base import clone

        m = clone(self.model)
        m.set_params(callback=None, verbose=False, n_init=1)
        if isinstance(start, np.ndarray):
            m.set_params(init=params_from_resp(self.X, start, m.covariance_type, m.reg_covar,
                                               self.w) if self._gmm
                         else {"responsibilities": start})
        else:  # continue start's run: its parameters replace the initialisation
            m.set_params(init="kmeans++")

            def continue_run(data, rng):
                adopt_parameters(m, start)

            m._init_params = continue_run
        if max_iter is not None:
            m.set_params(max_iter=max_iter, tol=tol)
        elif tol is not None:
            m.set_params(tol=max(tol, m.tol if m.tol is not None else 0.0))
        with caught_warnings("ignore"):
            if max_iter is None and self.accelerate:  # a run to the optimum: SQUAREM
                squarem_fit(m, self.X, sample_weight=self.w)
            else:
                m.fit(self.X, sample_weight=self.w)
        report_start(self.model, "spectral search runs", self.n_runs + 1)  # start hook
        self.n_runs += 1
        return float(m.lower_bound_), int(m.n_iter_), m


def model_lookahead(model, X, w):
    """:class:`ModelLookahead` of ``model`` on ``X`` with sample weights ``w``."""
    return ModelLookahead(model, X, w)


def bic_complexity(n_features, covariance_type, total_weight):
    """Schwarz's (1978) penalty of one more Gaussian component, nats: ``p/2 ln n`` with p its
    free parameters (weight, mean, covariance of the type; a tied covariance is shared) and n
    the total sample weight. The variational bound approaches the likelihood minus this
    penalty per parameter as n grows (Attias 1999, section 4; Corduneanu & Bishop 2001), so
    a split into an empty column predicts an ELBO gain only when its likelihood gain exceeds
    it."""
    d = n_features
    cov = {"full": d * (d + 1) / 2, "diag": d, "spherical": 1, "tied": 0}[covariance_type]
    return 0.5 * (1 + d + cov) * np.log(max(total_weight, 1.0))


def choose_start(X, n_components, covariance_type, reg_covar, w, rng, n_lloyd_kmeans,
                 what="k-means++", lookahead=None, n_columns=None, check="likelihood"):
    """Spectral candidates against the k-means++ start, by the start's log-likelihood or the
    model's objective.

    The spectral partitions (:func:`spectral_labels`) are ranked by the log-likelihood of
    their one-M-step parameters. ``check='likelihood'``: the best is compared with the
    k-means++ candidate with ``n_components`` clusters, drawn from a copy of ``rng``, the
    same way. ``check='objective'``: the model's objective (``lookahead``, one iteration)
    from the best spectral partition is compared with the one from the model's own
    ``init='kmeans++'`` start (``n_columns`` clusters); one iteration each, counted in
    ``report['n_iter']``. When k-means++ wins, the start is the model's own ``init='kmeans++'``
    start for the same random state: k-means++ with ``n_columns`` clusters (the whole
    truncation of a Dirichlet-process mixture) and ``n_lloyd_kmeans`` Lloyd iterations, with
    a :class:`SpectralInitWarning` giving both numbers. When the spectral start is kept,
    :func:`split_merge` fits the model from it (``lookahead``; default maximum-likelihood EM
    of ``covariance_type``, and no search without a ``lookahead`` when ``n_columns`` exceeds
    ``n_components``) and searches for a better optimum; the start is then the
    responsibilities of the optimum reached, so the model's own fit from it only confirms
    convergence, and the iterations spent are in ``report['n_iter']``.

    Returns
    -------
    resp : ndarray of shape (n_samples, n_columns)
        Starting responsibilities (one-hot, or those of the optimum the search reached).
    report : dict
        ``'chosen'`` ('spectral' or 'kmeans++'), ``'spectral'`` and ``'kmeans'`` (the
        compared numbers, nats per sample: start log-likelihoods, or with
        ``check='objective'`` the objectives after one iteration; None where not computed,
        e.g. degenerate moments), ``'n_iter'`` (iterations of the model's updates run inside
        the start, the check's included), ``'moves'`` (accepted split-and-merge moves),
        ``'objective'`` (the model's objective at the optimum the search reached, or None).

    Warns
    -----
    SpectralInitWarning
        When the moments are degenerate or the k-means++ start wins the check.
    """
    cols = n_components if n_columns is None else n_columns
    model_rng = copy.deepcopy(rng)  # the state init='kmeans++' would start from
    km_labels = {}

    def kmeans(n_clusters):  # with n_clusters = cols: exactly the model's init='kmeans++' start
        if n_clusters not in km_labels:
            km_labels[n_clusters] = kmeans_plusplus(X, n_clusters, copy.deepcopy(model_rng),
                                                    sample_weight=w, n_lloyd=n_lloyd_kmeans)[1]
        return km_labels[n_clusters]

    report = {"chosen": "kmeans++", "spectral": None, "kmeans": None, "n_iter": 0, "moves": 0,
              "objective": None}
    if check == "likelihood":
        km = params_from_labels(X, kmeans(n_components), n_components, covariance_type,
                                reg_covar, w)
        report["kmeans"] = start_log_likelihood(X, km, covariance_type, reg_covar, w)

    def fallback(reason):
        warnings.warn(f"init='spectral': {reason}; falling back to the {what} start.",
                      SpectralInitWarning, stacklevel=user_stacklevel())
        return one_hot(kmeans(cols), cols), report

    try:
        cands = spectral_labels(X, n_components, w, rng)
    except (ValueError, np.linalg.LinAlgError) as exc:
        return fallback(f"the moments are degenerate ({exc})")
    best = None
    for lab in cands:
        p = params_from_labels(X, lab, n_components, covariance_type, reg_covar, w)
        ll = start_log_likelihood(X, p, covariance_type, reg_covar, w)
        if best is None or ll > best[0]:
            best = (ll, lab)
    report["spectral"], lab_sp = best
    if lookahead is None and cols > n_components:
        # no model to judge births into the empty columns (a likelihood accepts every one)
        report["chosen"] = "spectral"
        return one_hot(lab_sp, cols), report
    if lookahead is None:
        from ..mixture import GaussianMixture

        lookahead = model_lookahead(GaussianMixture(cols, covariance_type=covariance_type,
                                                    reg_covar=reg_covar), X, w)
    start = one_hot(lab_sp, cols)
    if check == "objective":
        # the model's own objective after one iteration from each start (nats per sample)
        obj_sp, it_sp, start = lookahead(start, 1, 0.0)  # the search continues this run
        obj_km, it_km, _ = lookahead(one_hot(kmeans(cols), cols), 1, 0.0)
        report.update(spectral=obj_sp, kmeans=obj_km, n_iter=it_sp + it_km)
        if obj_sp < obj_km:
            return fallback(
                f"the model's objective after one iteration from the spectral start "
                f"({obj_sp:.4f} nats per sample, {n_components} clusters) is below the one "
                f"from the {what} start ({obj_km:.4f}); the spherical moment model fits this "
                "data poorly")
    elif report["spectral"] < report["kmeans"]:
        return fallback(
            f"the spectral start's log-likelihood ({report['spectral']:.4f} nats per sample, "
            f"{n_components} clusters) is below the k-means++ start's ({report['kmeans']:.4f}); "
            "the spherical moment model fits this data poorly")
    report["chosen"] = "spectral"
    n_checked = report["n_iter"]
    complexity = (bic_complexity(X.shape[1], covariance_type, w.sum())
                  if getattr(lookahead, "penalised", False) else 0.0)
    resp, info = split_merge(X, start, lookahead, covariance_type, reg_covar, w,
                             complexity=complexity)
    info["n_iter"] += n_checked
    report.update(info)
    return resp, report


def _split_gain(X, sel, covariance_type, reg_covar, w):
    """Split of the cluster ``sel`` (indices) in two along its first principal axis
    (Boley 1998), the halves refined by weighted 2-means (Lloyd 1982, at most
    ``_SPLIT_LLOYD`` iterations, uncounted like the Lloyd steps of both starts): (gain,
    indices of the second part). The gain is the increase of the
    cluster's log-likelihood (nats, summed over its samples) from one Gaussian to the
    two-component mixture of the halves, each fitted by one M-step; ``(-inf, None)`` when a
    half has fewer than 2 samples or the cluster no weight."""
    Xs, ws = X[sel], w[sel]
    if not ws.sum() > 0:  # only zero-weight samples: nothing to split
        return -np.inf, None
    C = Xs - (ws @ Xs) / ws.sum()
    axis = np.linalg.eigh((C * ws[:, None]).T @ C)[1][:, -1]
    neg = C @ axis < 0
    if min(neg.sum(), (~neg).sum()) < 2:
        return -np.inf, None
    if ws[neg].sum() > 0 and ws[~neg].sum() > 0:  # 2-means from the two halves
        centres = np.array([(ws[~neg] @ C[~neg]) / ws[~neg].sum(),
                            (ws[neg] @ C[neg]) / ws[neg].sum()])
        neg = lloyd(C, centres, ws, _SPLIT_LLOYD)[1] == 1
        if min(neg.sum(), (~neg).sum()) < 2:
            return -np.inf, None
    ll = [start_log_likelihood(Xs, params_from_labels(Xs, lab, k, covariance_type,
                                                      reg_covar, ws),
                               covariance_type, reg_covar, ws)
          for k, lab in ((1, np.zeros(sel.size, dtype=int)), (2, neg.astype(int)))]
    return float(ws.sum() * (ll[1] - ll[0])), sel[neg]


def _predicted_gain(X, labels, new, covariance_type, reg_covar, w):
    """Log-likelihood gain (nats, summed over samples) of the partition ``new`` over
    ``labels``, each turned into parameters by one M-step, on the samples and clusters the
    move changes (the others are untouched by it). No iteration of the model: one likelihood
    evaluation of those clusters per partition."""
    changed = np.union1d(labels[new != labels], new[new != labels])
    sel = np.flatnonzero(np.isin(labels, changed))
    Xs, ws = X[sel], w[sel]
    if not ws.sum() > 0:
        return 0.0
    ll = []
    for lab in (labels[sel], new[sel]):
        used, inv = np.unique(lab, return_inverse=True)
        p = params_from_labels(Xs, inv, used.size, covariance_type, reg_covar, ws)
        ll.append(start_log_likelihood(Xs, p, covariance_type, reg_covar, ws))
    return float(ws.sum() * (ll[1] - ll[0]))


def _split_merge_candidates(X, resp, covariance_type, reg_covar, w, max_candidates,
                            merges=False, complexity=0.0):
    """Candidate partitions of the split-and-merge search, best first (Ueda et al. 2000).

    Clusters are the MAP labels of ``resp``. Each cluster's split is ranked by
    :func:`_split_gain` (the split criterion: how much better two Gaussians explain its
    samples than one; Ueda et al. rank by a local Kullback-Leibler divergence, which this
    likelihood ratio estimates). With an empty column (a Dirichlet-process truncation), the
    candidates are births: the best splits into the first empty column. Otherwise a pair
    ``(i, j)`` is merged, in the order of the merge criterion ``J_merge = P_i . P_j``
    (posterior columns that explain the same samples), and the best split among the other
    clusters takes the freed label ``j``. With ``merges`` (models whose objective can prefer
    fewer clusters: the variational mixtures), the best pair merged alone (label ``j`` left
    empty) is one more candidate, after ``max_candidates`` of the others.

    A candidate is kept only when its predicted gain (:func:`_predicted_gain`, the one-M-step
    log-likelihood of the partition against the current one) exceeds ``complexity`` times the
    number of clusters it adds (a birth +1, a merge alone -1, a merge-split 0): a move that
    does not even raise the likelihood of the hard partition, or not by a new component's
    complexity (:func:`bic_complexity`, for an ELBO), is not worth a trial run. Measured on
    the bundled sets: every accepted move had a predicted gain above its threshold (olive
    oils +38 nats), every trial that failed on the GaussianMixture below it (-32 to -134).
    """
    labels = resp.argmax(1)
    counts = np.bincount(labels, minlength=resp.shape[1])
    present, empty = np.flatnonzero(counts), np.flatnonzero(counts == 0)
    splits = []
    for l in present:
        gain, neg = _split_gain(X, np.flatnonzero(labels == l), covariance_type, reg_covar, w)
        if neg is not None:
            splits.append((gain, l, neg))
    splits.sort(key=lambda s: -s[0])
    out = []
    G = resp.T @ resp
    pairs = sorted(((G[i, j], i, j) for a, i in enumerate(present) for j in present[a + 1:]),
                   reverse=True)
    if empty.size:
        for _, _, neg in splits[:max_candidates]:
            new = labels.copy()
            new[neg] = empty[0]
            out.append((new, 1))
    else:
        for _, i, j in pairs:
            split = next((s for s in splits if s[1] not in (i, j)), None)
            if split is None:
                continue
            new = labels.copy()
            new[labels == j] = i
            new[split[2]] = j
            out.append((new, 0))
            if len(out) == max_candidates:
                break
    if merges and pairs:
        _, i, j = pairs[0]
        out.append((np.where(labels == j, i, labels), -1))
    return [new for new, added in out
            if _predicted_gain(X, labels, new, covariance_type, reg_covar, w)
            > complexity * added]


def split_merge(X, start, lookahead, covariance_type="full", reg_covar=1e-6, w=None,
                merges=False, max_candidates=None, search_tol=None, max_rounds=None,
                complexity=0.0):
    """Escape the local optimum a start leads to by split-and-merge moves (SMEM).

    The model is fitted from ``start`` (``lookahead``, SQUAREM-accelerated) until a plain
    step changes its objective by less than ``search_tol``. From the MAP partition of that
    optimum, candidate partitions (:func:`_split_merge_candidates`, best first: merge two
    clusters and split a third, or, with an empty column, split one into it; with ``merges``
    also the best merge alone; only those whose one-M-step likelihood predicts a gain above
    ``complexity`` per added cluster) are each fitted the same way to their own optimum; the
    first that ends more than ``_SEARCH_MARGIN * search_tol`` above the current optimum is
    accepted and the search repeats from it (at most ``max_rounds`` accepted moves). A round
    in which no candidate gains ends the search, and the optimum reached is continued to the
    model's own ``tol``. The fit there is left in ``lookahead.optimum``, for the model to
    continue its run.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    start : ndarray of shape (n_samples, n_columns) or fitted model
        Starting responsibilities (rows summing to 1), n_columns those of the model, or a fit
        (returned by ``lookahead``) whose run is continued.
    lookahead : callable
        ``lookahead(start, max_iter=None, tol=None) -> (objective, n_iter, fitted)``
        (:class:`ModelLookahead`): the model fitted from responsibilities or continued from
        a fit, objective in nats per sample. Its attribute ``optimum`` is set.
    covariance_type, reg_covar : the model's, for the split criterion
    w : ndarray of shape (n_samples,), optional
    merges : bool, default False
        Also try merging the best pair alone (for objectives that can prefer fewer clusters).
    max_candidates, max_rounds : int, optional
        Candidates tried per round and accepted moves (default the module's
        ``_SMEM_CANDIDATES``, ``_SMEM_ROUNDS``).
    search_tol : float, optional
        Convergence threshold of the search's runs, nats per sample (default
        ``_SEARCH_TOL``, 1e-3; never below the model's ``tol``). Stopped there, a run is below
        its limit by about ``delta * rho / (1 - rho)`` for a last change ``delta < tol`` and
        a linear rate ``rho``: under ``_SEARCH_MARGIN * search_tol`` while ``rho <= 0.9``,
        so a trial that ends above the current optimum by that margin has the higher limit.
    complexity : float, default 0
        Nats a move must be predicted to gain per cluster it adds (:func:`bic_complexity`
        for an ELBO; 0 for a likelihood).

    Returns
    -------
    resp : ndarray of shape (n_samples, n_columns)
        The responsibilities of the optimum reached, or ``start`` itself when no search was
        run (fewer than 3 clusters, no empty column and no ``merges``).
    info : dict
        ``'moves'`` (accepted moves), ``'n_iter'`` (iterations the search spent, the fits
        to convergence included; the E-step at each optimum that proposes the candidates
        updates no parameter and is not an iteration), ``'objective'`` (of the optimum
        reached, nats per sample; None when no search was run).

    Notes
    -----
    Source: Ueda, Nakano, Ghahramani & Hinton (2000), "SMEM algorithm for mixture models",
    Neural Computation 12(9), section 3 (merge and split criteria, candidates tried in order,
    partial then full EM, acceptance by the objective). Here a trial updates all components
    (K is small) and runs to its own optimum, made cheap by SQUAREM
    (:func:`latentkit._engine.acceleration.squarem_fit`; a 2-iteration partial run rejected the
    olive-oil move that leads the variational mixture to the true regions, whose ELBO first
    dips below the optimum's); a split is a hard partition (the principal-axis halves
    refined by 2-means, Lloyd 1982) instead of a random perturbation of the mean, and the
    split criterion is a likelihood ratio. Trying a candidate only when the likelihood of
    its hard partition predicts a gain is ours.
    """
    w = np.ones(X.shape[0]) if w is None else w
    max_candidates = _SMEM_CANDIDATES if max_candidates is None else max_candidates
    search_tol = _SEARCH_TOL if search_tol is None else float(search_tol)
    max_rounds = _SMEM_ROUNDS if max_rounds is None else max_rounds
    info = {"moves": 0, "n_iter": 0, "objective": None}
    if isinstance(start, np.ndarray):
        n_columns = start.shape[1]
        n_present = np.unique(start.argmax(1)).size
        if n_present < 3 and n_present == n_columns and not merges:
            return start, info
    best_obj, it, fitted = lookahead(start, None, search_tol)
    info["n_iter"] += it
    resp = fitted.predict_proba(X)  # the proposals' E-step: no parameter update
    n_columns = resp.shape[1]
    while info["moves"] < max_rounds:
        moved = False
        for cand in _split_merge_candidates(X, resp, covariance_type, reg_covar, w,
                                            max_candidates, merges, complexity):
            obj, it, trial = lookahead(one_hot(cand, n_columns), None, search_tol)
            info["n_iter"] += it
            if obj > best_obj + _SEARCH_MARGIN * search_tol:
                best_obj, fitted = obj, trial
                info["moves"] += 1
                resp = fitted.predict_proba(X)
                moved = True
                break
        if not moved:
            break
    best_obj, it, fitted = lookahead(fitted)  # on to the model's own tol
    info["n_iter"] += it
    resp = fitted.predict_proba(X)
    info["objective"] = float(best_obj)
    lookahead.optimum = fitted  # read by the model (ModelLookahead.optimum)
    return resp, info
