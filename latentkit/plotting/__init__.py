"""Figures of fitted latentkit models (matplotlib; the ``plot`` extra).

Every function takes a fitted model (and the data where the figure needs it), draws on the
Axes it is given -- or on a new figure when ``ax`` is None -- and returns what it drew on. No
function calls ``plt.show()``, changes the backend or touches ``rcParams``: styling stays the
caller's. This module is imported only on demand (``import latentkit`` never imports
matplotlib).

* :func:`plot_elbo` -- the bound per iteration in the model's own unit (:func:`elbo_unit`:
  nats per document for topic models, per time step for HMMs, per sample otherwise), restarts
  overlaid, the held-out trace of a stochastic fit, or the log distance to the final value.
* :func:`plot_mixture` -- points coloured by responsibility with 1- and 2-sd covariance
  ellipses, on two features or the first two principal axes.
* :func:`plot_topics` -- the most probable words of every topic as horizontal bars.
* :func:`plot_hmm` -- a series with its Viterbi path as coloured bands and the posterior state
  probabilities below (and the emission matrix of a categorical HMM as a heat map).
* :func:`plot_latent`, :func:`plot_decoded_grid` -- a VAE's latent means and a grid of decodes.
* :func:`plot_recovery` -- a recovery rate or an error against a control parameter (spectral
  module: sampling rate of completion, privacy epsilon, sample size).
* :func:`plot_selection` -- the scores of :func:`latentkit.selection.select_n_components`
  against K, one labelled panel per score.

Legends sit outside the data (right of the axes), categorical axes are labelled by name.
"""

import numbers

import numpy as np

try:
    import matplotlib.pyplot as plt
    from matplotlib.patches import Ellipse
    from matplotlib.ticker import MaxNLocator
except ImportError as exc:  # pragma: no cover - exercised only without matplotlib
    raise ImportError('latentkit.plotting needs matplotlib: pip install "latentkit[plot]".') \
        from exc

from .._utils.words import top_word_ids
from ._scores import _check_fitted, _colors, _legend_outside, _new_ax, elbo_unit, plot_selection
from ._hmm import plot_hmm
from ._latent import mixture_projection, plot_decoded_grid, plot_latent
from ._over_time import plot_topic_prevalence, plot_word_trajectories
from ..exceptions import InputError

__all__ = ["ELBOTrace", "elbo_unit", "plot_elbo", "plot_mixture", "plot_topics", "plot_hmm",
           "plot_latent", "plot_decoded_grid", "plot_recovery", "plot_selection",
           "mixture_projection", "plot_topic_prevalence", "plot_word_trajectories"]

#: expected weight above which a component of a variational mixture is "effective" (the
#: threshold of ``n_effective_components_``)
EFFECTIVE_WEIGHT = 0.01


# ----------------------------------------------------------------------------- ELBO

class ELBOTrace:
    """A ``callback(model, n_iter, elbo)`` that records the ELBO trace of every restart.

    ``fit`` keeps only the best restart's ``lower_bounds_``; pass an ``ELBOTrace`` as the
    model's ``callback`` to keep all of them, then give it to ``plot_elbo(model,
    restarts=trace)``. A new trace starts whenever ``n_iter`` is 1 again.

    Parameters
    ----------
    callback : callable, optional
        Another callback to forward to (its return value is returned: True stops the fit).

    Attributes
    ----------
    traces : list of ndarray
        ELBO per iteration (nats per sample) of each restart, in the order they ran.

    Examples
    --------
    >>> import numpy as np, latentkit as lk
    >>> X = np.random.default_rng(0).normal(size=(60, 2))
    >>> trace = lk.plotting.ELBOTrace()
    >>> gmm = lk.GaussianMixture(2, n_init=3, random_state=0, callback=trace).fit(X)
    >>> len(trace.traces)  # one ELBO trace per restart
    3
    """

    def __init__(self, callback=None):
        self.callback = callback
        self._traces = []

    def __call__(self, model, n_iter, elbo):
        if n_iter == 1 or not self._traces:
            self._traces.append([])
        self._traces[-1].append(float(elbo))
        return bool(self.callback(model, n_iter, elbo)) if self.callback is not None else False

    @property
    def traces(self):
        return [np.asarray(t, dtype=np.float64) for t in self._traces]


def plot_elbo(model, ax=None, *, restarts=None, distance=False, label=None, color=None):
    """Plot a fitted model's ELBO per iteration, in the model's unit (:func:`elbo_unit`).

    Batch fits draw ``lower_bounds_`` against the iteration number 1, 2, ...; entry i is the
    bound at the parameters entering iteration i (DESIGN.md section 2). A stochastic fit with a
    held-out trace (``heldout_bounds_`` of :class:`latentkit.inference.StochasticVI` or of an
    online LDA) draws that trace against the minibatch step instead.

    Parameters
    ----------
    model : LatentModel or StochasticVI
        A fitted model.
    ax : matplotlib Axes, optional
        Where to draw; a new figure when None.
    restarts : ELBOTrace or sequence of array-like, optional
        Traces of the other initialisations (``ELBOTrace.traces``), drawn thin and grey under
        the model's trace.
    distance : bool, default False
        Plot ``lower_bound_ - ELBO_i`` on a log scale (linear convergence is a straight line);
        iterations where the distance is not positive are left out.
    label : str, optional
        Legend label of the model's trace (default: the class name).
    color : matplotlib colour, optional

    Returns
    -------
    matplotlib Axes
        The model's trace is ``ax.lines[-1]``.

    Raises
    ------
    ValueError
        ``model`` is not fitted (no ``lower_bounds_`` or held-out trace) or the trace is empty.

    Examples
    --------
    >>> import numpy as np, latentkit as lk
    >>> X = np.random.default_rng(0).normal(size=(40, 2))
    >>> lk.plotting.plot_elbo(lk.GaussianMixture(2, random_state=0).fit(X)).get_ylabel()
    'ELBO (nats per sample)'
    """
    ax = _new_ax(ax)
    heldout = np.asarray(getattr(model, "heldout_bounds_", ()), dtype=np.float64)
    if heldout.size:
        y = heldout
        x = np.asarray(getattr(model, "heldout_steps_", np.arange(1, y.size + 1)))
        xlabel, ylabel = "minibatch step", f"held-out ELBO ({elbo_unit(model)})"
    else:
        _check_fitted(model, "lower_bounds_")
        y = np.asarray(model.lower_bounds_, dtype=np.float64)
        x = np.arange(1, y.size + 1)
        xlabel, ylabel = "iteration", f"ELBO ({elbo_unit(model)})"
    if y.size == 0:
        raise InputError(f"{type(model).__name__} has an empty ELBO trace; nothing to plot.")
    traces = restarts.traces if isinstance(restarts, ELBOTrace) else list(restarts or [])
    final = float(y[-1])

    def _xy(x, y):
        if not distance:
            return x, y
        d = final - y
        keep = d > 0
        return x[keep], d[keep]

    for i, t in enumerate(traces):
        t = np.asarray(t, dtype=np.float64).ravel()
        ax.plot(*_xy(np.arange(1, t.size + 1), t), color="0.6", lw=0.8, alpha=0.8,
                label="other restarts" if i == 0 else None)
    ax.plot(*_xy(x, y), color=color, lw=1.8, marker="." if y.size <= 60 else None,
            label=label or type(model).__name__)
    if distance:
        ax.set_yscale("log")
        ylabel = f"distance to the final ELBO ({elbo_unit(model)})"
    ax.set(xlabel=xlabel, ylabel=ylabel)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    if traces or label is not None:
        _legend_outside(ax)
    return ax


# ----------------------------------------------------------------------------- mixtures

def _full_covariances(model, K, D):
    ct = getattr(model, "covariance_type", "full")
    cov = np.asarray(model.covariances_, dtype=np.float64)
    if ct == "full":
        return cov.reshape(K, D, D)
    if ct == "tied":
        return np.broadcast_to(cov.reshape(D, D), (K, D, D))
    if ct == "diag":
        return np.stack([np.diag(c) for c in cov.reshape(K, D)])
    if ct == "spherical":
        return cov.reshape(K)[:, None, None] * np.eye(D)[None]
    raise ValueError(f"unknown covariance_type {ct!r}.")


def _ellipse(mean, cov, n_std, **kw):
    vals, vecs = np.linalg.eigh(cov)
    vals = np.clip(vals, 0.0, None)
    angle = np.degrees(np.arctan2(vecs[1, 1], vecs[0, 1]))
    return Ellipse(mean, 2 * n_std * np.sqrt(vals[1]), 2 * n_std * np.sqrt(vals[0]),
                   angle=angle, **kw)


def plot_mixture(model, X, ax=None, *, features=None, n_std=(1.0, 2.0), point_size=8,
                 feature_names=None):
    """Scatter X coloured by responsibility, with each component's covariance ellipses.

    A point's colour mixes the component colours with its responsibilities
    ``p(z = k | x)`` (Bishop 2006, fig. 9.5). Each component gets an ellipse at every entry of
    ``n_std`` standard deviations of its Gaussian projected on the view (``P^T Sigma_k P``).
    For the variational mixtures (models with ``n_effective_components_``) only components
    with expected weight above 0.01 are drawn, their ellipses faded in proportion to the
    expected weight. The legend, under the axes, lists the weights.

    Parameters
    ----------
    model : GaussianMixture, VariationalGaussianMixture or DirichletProcessMixture
        Fitted, with Gaussian components (``means_``, ``covariances_``, ``weights_``).
    X : array-like of shape (n_samples, n_features)
    ax : matplotlib Axes, optional
    features : pair of int, optional
        Columns to show; default the first two principal axes of X (both columns when X has
        two). See :func:`mixture_projection`.
    n_std : sequence of float, default (1, 2)
        Ellipse radii in standard deviations.
    point_size : float, default 8
    feature_names : sequence of str, optional
        Axis labels when ``features`` picks columns.

    Returns
    -------
    matplotlib Axes
        ``len(n_std)`` :class:`matplotlib.patches.Ellipse` patches per drawn component.

    Raises
    ------
    ValueError
        An unfitted model, a model without Gaussian components, or X of the wrong width.

    Examples
    --------
    >>> import numpy as np, latentkit as lk
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(-3, 1, (50, 2)), rng.normal(3, 1, (50, 2))]
    >>> ax = lk.plotting.plot_mixture(lk.GaussianMixture(2, random_state=0).fit(X), X)
    >>> len(ax.patches)  # a 1-sd and a 2-sd ellipse per component
    4
    """
    _check_fitted(model, "means_", "covariances_", "weights_")
    X = np.asarray(X, dtype=np.float64)
    means = np.asarray(model.means_, dtype=np.float64)
    K, D = means.shape
    if X.ndim != 2 or X.shape[1] != D:
        raise InputError(f"X must have shape (n_samples, {D}) like the model, got {X.shape}.")
    ax = _new_ax(ax, (5.5, 5.0))
    center, P = mixture_projection(X, features)
    covs = _full_covariances(model, K, D)
    weights = np.asarray(model.weights_, dtype=np.float64)
    variational = hasattr(model, "n_effective_components_")
    shown = np.flatnonzero(weights > EFFECTIVE_WEIGHT) if variational else np.arange(K)
    colors = np.tile([0.6, 0.6, 0.6, 1.0], (K, 1))  # components not drawn: grey
    colors[shown] = _colors(max(shown.size, 1))[:shown.size]
    R = model.predict_proba(X)
    point_colors = np.clip(R @ colors[:, :3], 0.0, 1.0)
    Y = (X - center) @ P
    ax.scatter(Y[:, 0], Y[:, 1], c=point_colors, s=point_size, lw=0, alpha=0.8)
    wmax = weights[shown].max() if shown.size else 1.0
    for k in shown:
        m = (means[k] - center) @ P
        S = P.T @ covs[k] @ P
        fade = 0.25 + 0.75 * weights[k] / wmax if variational else 1.0
        for j, s in enumerate(n_std):
            ax.add_patch(_ellipse(m, S, float(s), fill=False, ec=colors[k], alpha=fade,
                                  lw=2.0 if j == 0 else 1.2, ls="-" if j == 0 else "--",
                                  label=f"{k}: weight {weights[k]:.3f}" if j == 0 else None))
        ax.plot(*m, marker="x", color=colors[k], alpha=fade, ms=7)
    if features is None and D > 2:
        xlabel, ylabel = "principal axis 1", "principal axis 2"
    else:
        f = np.argmax(P, axis=0)
        names = feature_names if feature_names is not None else [f"feature {i}" for i in range(D)]
        xlabel, ylabel = names[f[0]], names[f[1]]
    ax.set(xlabel=xlabel, ylabel=ylabel)
    title = f"{type(model).__name__}: {shown.size} of {K} components"
    ax.set_title(title + (" (weight > 0.01)" if variational else ""))
    _legend_outside(ax, below=True, fontsize="small", ncol=min(max(shown.size, 1), 2))
    return ax


# ----------------------------------------------------------------------------- topics

def _topic_word_probabilities(model):
    _check_fitted(model, "components_")
    comp = np.asarray(model.components_, dtype=np.float64)
    if comp.ndim != 2:
        raise InputError(f"components_ must be 2-D (n_topics, n_words), got {comp.shape}.")
    comp = np.clip(comp, 0.0, None)
    sums = comp.sum(axis=1, keepdims=True)
    return np.divide(comp, sums, out=np.zeros_like(comp), where=sums > 0)


def plot_topics(model, vocabulary, n_words=10, *, topics=None, axes=None, ncols=4,
                color="tab:blue"):
    """Horizontal bars of each topic's ``n_words`` most probable words, one panel per topic.

    The bar lengths are the word probabilities ``p(w | z)``: the normalised rows of
    ``components_`` (LDA's expected topics ``E_q[beta_k] = lambda_k / sum lambda_k``; PLSA's
    ``P(w|z)`` and SpectralLDA's topics as they are).

    Parameters
    ----------
    model : LatentDirichletAllocation, PLSA or SpectralLDA
        Fitted, with ``components_`` of shape (n_topics, n_words).
    vocabulary : sequence of str of length n_words
    n_words : int, default 10
    topics : sequence of int, optional
        Topics to show (default all).
    axes : sequence of matplotlib Axes, optional
        One per shown topic; default a new grid with ``ncols`` columns.
    ncols : int, default 4
    color : matplotlib colour

    Returns
    -------
    ndarray of matplotlib Axes
        One per shown topic; panel i holds one bar per word, the most probable at the top.

    Raises
    ------
    ValueError
        An unfitted model, a vocabulary of the wrong length, ``n_words`` < 1, a topic index out
        of range, or fewer axes than topics.

    Examples
    --------
    >>> import numpy as np, latentkit as lk
    >>> X = np.random.default_rng(0).poisson(1.0, size=(40, 12))
    >>> lda = lk.LatentDirichletAllocation(3, random_state=0).fit(X)
    >>> axes = lk.plotting.plot_topics(lda, [f"w{i}" for i in range(12)], n_words=5)
    >>> len(axes[0].patches)  # five bars in the first topic's panel
    5
    """
    prob = _topic_word_probabilities(model)
    K, V = prob.shape
    vocabulary = [str(v) for v in vocabulary]
    if len(vocabulary) != V:
        raise InputError(f"vocabulary must have n_words={V} entries, got {len(vocabulary)}.")
    if not isinstance(n_words, numbers.Integral) or n_words < 1:
        raise InputError(f"n_words must be a positive integer, got {n_words!r}.")
    topics = list(range(K)) if topics is None else [int(t) for t in topics]
    if any(not 0 <= t < K for t in topics):
        raise InputError(f"topics must be indices in [0, {K}), got {topics}.")
    n_words = min(int(n_words), V)
    own = axes is None
    if own:
        ncols = max(1, min(int(ncols), len(topics)))
        nrows = -(-len(topics) // ncols)
        fig, axes = plt.subplots(nrows, ncols, figsize=(2.6 * ncols, 0.22 * n_words * nrows + 0.6 * nrows),
                                 squeeze=False)
        for a in axes.ravel()[len(topics):]:
            a.set_visible(False)
    axes = np.asarray(axes, dtype=object).ravel()
    if axes.size < len(topics):
        raise InputError(f"axes must hold at least {len(topics)} Axes, got {axes.size}.")
    for a, t in zip(axes, topics):
        order = top_word_ids(prob[t:t + 1], n_words)[0]  # words of probability zero left out
        a.barh(np.arange(order.size)[::-1], prob[t, order], color=color)
        a.set_yticks(np.arange(order.size)[::-1], [vocabulary[j] for j in order],
                     fontsize="small")
        a.set_title(f"topic {t}", fontsize="medium")
        a.tick_params(axis="x", labelsize="x-small")
        a.xaxis.set_major_locator(MaxNLocator(nbins=3))  # no overlapping probability labels
        a.set_xlabel("p(word | topic)", fontsize="x-small")
    if own:
        axes[0].figure.tight_layout()
    return axes[:len(topics)]


# ----------------------------------------------------------------------------- HMMs

# ----------------------------------------------------------------------------- VAE

# ----------------------------------------------------------------------------- spectral

def plot_recovery(x, values, ax=None, *, label=None, xlabel="control parameter",
                  ylabel="recovery", logx=False, logy=False, band=True, color=None, marker="o"):
    """A recovery rate or an error against a control parameter, mean and spread over trials.

    For the spectral module: tensor completion's success rate against the sampling rate
    (Jain & Oh 2014), the error of the private tensor power method against epsilon (Wang &
    Anandkumar 2016), the moment estimate's error against the sample size.

    Parameters
    ----------
    x : array-like of shape (n_points,)
        Control parameter values.
    values : array-like of shape (n_points,) or (n_points, n_trials)
        One value per point, or one per trial (NaN trials are ignored); the line is the mean
        over trials and, with ``band``, a shaded band spans the min to max. Whole-number x
        (K, steps) get whole-number ticks.
    ax : matplotlib Axes, optional
    label, xlabel, ylabel : str
    logx, logy : bool, default False
    band : bool, default True
    color : matplotlib colour
    marker : str, default 'o'

    Returns
    -------
    matplotlib Axes
        ``ax.lines[-1]`` holds (x, mean over trials).

    Raises
    ------
    ValueError
        ``values`` whose first dimension is not ``len(x)``.

    Examples
    --------
    >>> import numpy as np, latentkit as lk
    >>> rate = np.array([0.1, 0.2, 0.4])
    >>> recovered = np.array([[0.2, 0.3], [0.6, 0.7], [1.0, 1.0]])  # 2 trials per rate
    >>> ax = lk.plotting.plot_recovery(rate, recovered, xlabel="sampling rate")
    >>> np.round(ax.lines[0].get_ydata(), 2)  # the mean over trials
    array([0.25, 0.65, 1.  ])
    """
    x = np.asarray(x, dtype=np.float64).ravel()
    v = np.asarray(values, dtype=np.float64)
    if v.ndim == 1:
        v = v[:, None]
    if v.ndim != 2 or v.shape[0] != x.size:
        raise InputError(f"values must have shape ({x.size},) or ({x.size}, n_trials), got "
                         f"{np.shape(values)}.")
    ax = _new_ax(ax)
    mean = np.nanmean(v, axis=1)
    line, = ax.plot(x, mean, marker=marker, color=color, label=label)
    if band and v.shape[1] > 1:
        ax.fill_between(x, np.nanmin(v, axis=1), np.nanmax(v, axis=1), color=line.get_color(),
                        alpha=0.2, lw=0)
    if logx:
        ax.set_xscale("log")
    elif np.all(x == np.round(x)):  # counts (K, steps): no fractional ticks
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    if logy:
        ax.set_yscale("log")
    ax.set(xlabel=xlabel, ylabel=ylabel)
    if label is not None:
        _legend_outside(ax)
    return ax
