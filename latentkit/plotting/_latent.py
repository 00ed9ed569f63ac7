"""The figures of a fitted VAE (:func:`plot_latent`, :func:`plot_decoded_grid`): its latent
means and a grid of decodes, and the projection both they and :func:`plot_mixture` use for
more than two dimensions (matplotlib; the ``plot`` extra)."""

import numbers

import numpy as np

from ._scores import _check_fitted, _colors, _legend_outside, _new_ax
from ..exceptions import InputError

__all__ = ["plot_latent", "plot_decoded_grid", "mixture_projection"]


def mixture_projection(X, features=None):
    """The 2-D view used by :func:`plot_mixture`: ``Y = (X - center) @ P``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    features : pair of int, optional
        Two columns to show; default both columns when ``n_features == 2``, else the first two
        principal axes of X (right singular vectors of the centred data).

    Returns
    -------
    center : ndarray of shape (n_features,)
    P : ndarray of shape (n_features, 2)
        Orthonormal columns (a coordinate pair or the principal axes).

    Raises
    ------
    ValueError
        X with fewer than two features, or ``features`` not two distinct valid column indices.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.plotting import mixture_projection
    >>> X = np.random.default_rng(0).normal(size=(100, 3)) * [5.0, 1.0, 0.1]
    >>> center, P = mixture_projection(X)
    >>> P.shape, np.round(np.abs(P[:, 0]), 1)  # the first axis is the widest feature
    ((3, 2), array([1., 0., 0.]))
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] < 2:
        raise InputError(f"X must be a 2-D array with at least 2 features, got shape {X.shape}.")
    D = X.shape[1]
    if features is None and D == 2:
        features = (0, 1)
    if features is not None:
        f = [int(i) for i in features]
        if len(f) != 2 or f[0] == f[1] or not all(0 <= i < D for i in f):
            raise InputError(f"features must be two distinct column indices in [0, {D}), got "
                             f"{features!r}.")
        P = np.zeros((D, 2))
        P[f[0], 0] = P[f[1], 1] = 1.0
        return np.zeros(D), P
    center = X.mean(axis=0)
    _, _, Vt = np.linalg.svd(X - center, full_matrices=False)
    return center, Vt[:2].T.copy()


def plot_latent(vae, X, y=None, ax=None, *, point_size=4, labels=None):
    """Scatter of a VAE's latent means ``E_q[z | x]`` (the encoder's mu), coloured by class.

    Parameters
    ----------
    vae : VAE
        Fitted. With ``latent_dim > 2`` the first two principal axes of the means are shown.
    X : array-like of shape (n_samples, n_features)
    y : array-like of int of shape (n_samples,), optional
        Class labels (colours and legend).
    ax : matplotlib Axes, optional
    point_size : float, default 4
    labels : sequence of str, optional
        Names of the classes 0, 1, ... for the legend.

    Returns
    -------
    matplotlib Axes
        ``ax.collections[i]`` holds class i's points (one collection when y is None).

    Raises
    ------
    ValueError
        An unfitted VAE, or y of the wrong length.

    Examples
    --------
    >>> import numpy as np, latentkit as lk
    >>> X = (np.random.default_rng(0).random((40, 6)) < 0.5).astype(float)
    >>> vae = lk.VAE(2, hidden_layer_sizes=(8,), max_iter=2, random_state=0).fit(X)
    >>> ax = lk.plotting.plot_latent(vae, X, y=np.r_[np.zeros(20), np.ones(20)])
    >>> len(ax.collections)  # one scatter per class
    2
    """
    _check_fitted(vae, "latent_dim", "n_iter_", what="vae")
    Z = np.asarray(vae.transform(X), dtype=np.float64)
    if Z.shape[1] == 1:
        Z = np.column_stack([Z[:, 0], np.zeros(len(Z))])
    elif Z.shape[1] > 2:
        c, P = mixture_projection(Z)
        Z = (Z - c) @ P
    ax = _new_ax(ax, (5.5, 5.0))
    if y is None:
        ax.scatter(Z[:, 0], Z[:, 1], s=point_size, lw=0, color="tab:blue")
    else:
        y = np.asarray(y)
        if y.shape != (Z.shape[0],):
            raise InputError(f"y must have shape ({Z.shape[0]},), got {y.shape}.")
        classes = np.unique(y)
        colors = _colors(len(classes))
        for i, c in enumerate(classes):
            m = y == c
            name = labels[int(c)] if labels is not None else str(c)
            ax.scatter(Z[m, 0], Z[m, 1], s=point_size, lw=0, color=colors[i], label=name)
        _legend_outside(ax, fontsize="small", markerscale=3)
    ax.set(xlabel="z1", ylabel="z2", title="VAE latent means E[z | x]")
    return ax


def plot_decoded_grid(vae, ax=None, *, n=15, image_shape=None, quantiles=(0.05, 0.95),
                      cmap="gray_r"):
    """Decoded means ``E[x | z]`` over an ``n x n`` grid of a 2-D latent plane.

    The grid points are prior quantiles ``Phi^-1(q)`` for ``q`` evenly spaced in
    ``quantiles`` on each axis (Kingma & Welling 2014, fig. 4), z2 increasing upwards.

    Parameters
    ----------
    vae : VAE
        Fitted, with ``latent_dim == 2``.
    ax : matplotlib Axes, optional
    n : int, default 15
        Decodes per side.
    image_shape : (height, width), optional
        Shape of one decode; default square (n_features must be a perfect square).
    quantiles : (low, high), default (0.05, 0.95)
    cmap : matplotlib colormap, default 'gray_r'

    Returns
    -------
    matplotlib Axes
        ``ax.images[0]`` is the (n * height, n * width) mosaic.

    Raises
    ------
    ValueError
        ``latent_dim != 2``, non-square features without ``image_shape``, a bad ``n`` or bad
        quantiles.

    Examples
    --------
    >>> import numpy as np, latentkit as lk
    >>> X = (np.random.default_rng(0).random((40, 6)) < 0.5).astype(float)
    >>> vae = lk.VAE(2, hidden_layer_sizes=(8,), max_iter=2, random_state=0).fit(X)
    >>> ax = lk.plotting.plot_decoded_grid(vae, n=3, image_shape=(2, 3))
    >>> ax.images[0].get_array().shape  # a 3 x 3 mosaic of 2 x 3 decodes
    (6, 9)
    """
    from scipy.stats import norm

    _check_fitted(vae, "latent_dim", "n_iter_", what="vae")
    if int(vae.latent_dim) != 2:
        raise InputError(f"plot_decoded_grid needs a VAE with latent_dim=2, got "
                         f"latent_dim={vae.latent_dim}.")
    if not isinstance(n, numbers.Integral) or n < 1:
        raise InputError(f"n must be a positive integer, got {n!r}.")
    lo, hi = quantiles
    if not 0 < lo < hi < 1:
        raise InputError(f"quantiles must satisfy 0 < low < high < 1, got {quantiles!r}.")
    g = norm.ppf(np.linspace(lo, hi, n))
    Z = np.array([[z1, z2] for z2 in g[::-1] for z1 in g])
    dec = np.asarray(vae.decode(Z), dtype=np.float64)
    D = dec.shape[1]
    if image_shape is None:
        side = int(round(np.sqrt(D)))
        if side * side != D:
            raise InputError(f"n_features={D} is not a square; give image_shape=(height, width).")
        image_shape = (side, side)
    h, w = (int(s) for s in image_shape)
    if h * w != D:
        raise InputError(f"image_shape {image_shape!r} does not hold n_features={D}.")
    mosaic = dec.reshape(n, n, h, w).transpose(0, 2, 1, 3).reshape(n * h, n * w)
    ax = _new_ax(ax, (5.0, 5.0))
    ax.imshow(mosaic, cmap=cmap, interpolation="nearest")
    ax.set_axis_off()
    ax.set_title("decoded means over the latent plane", fontsize="medium")
    return ax
