"""k-means++ seeding and weighted Lloyd iterations: the one implementation every model's
``init='kmeans++'`` uses (GaussianMixture and the variational mixtures, the HMM emissions, the
spectral starts and the sparse spectral GMM's clustering).

Source: Arthur & Vassilvitskii (2007), *k-means++: the advantages of careful seeding*; the
greedy variant with ``2 + log K`` local trials as in scikit-learn's ``_kmeans_plusplus``;
Lloyd (1982), *Least squares quantization in PCM*.
"""

import numpy as np

__all__ = ["kmeans_plusplus", "lloyd"]



def _sq_dist(X, C, x_sq):
    d = x_sq[:, None] - 2.0 * (X @ C.T) + np.einsum("ij,ij->i", C, C)[None, :]
    np.maximum(d, 0.0, out=d)
    return d


def _weighted_draw(rng, cum, size=None):
    """Inverse-CDF draw from cumulative weights: zero-weight rows are never chosen, and rows
    with weight 0 are invisible (same draw as with those rows removed)."""
    total = cum[-1]
    u = rng.random(size) * total
    idx = np.searchsorted(cum, u, side="right")
    return np.minimum(idx, cum.shape[0] - 1)


def kmeans_plusplus(X, n_clusters, rng, sample_weight=None, n_local_trials=None, n_lloyd=10):
    """Greedy k-means++ seeding followed by a few weighted Lloyd iterations.

    Parameters
    ----------
    X : ndarray of shape (n, D), float64
    n_clusters : int
        K <= number of rows with positive weight.
    rng : numpy.random.Generator
    sample_weight : ndarray of shape (n,), optional
        Non-negative weights (a row of weight w counts as w rows).
    n_local_trials : int, optional
        Candidates per step (greedy k-means++); default ``2 + int(log K)``. 1 is plain
        k-means++ (the HMM emissions' start).
    n_lloyd : int, default 10
        Maximum Lloyd iterations (stops earlier when the labels stop changing).

    Returns
    -------
    centers : ndarray of shape (K, D)
    labels : ndarray of shape (n,), int
        Nearest center of every row.

    Source: Arthur & Vassilvitskii (2007), *k-means++: the advantages of careful seeding*
    (greedy variant with ``2 + log K`` local trials as in scikit-learn's ``_kmeans_plusplus``);
    Lloyd (1982).
    """
    n, D = X.shape
    w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    if n_local_trials is None:
        n_local_trials = 2 + int(np.log(n_clusters))
    # distances through |x|^2 - 2 x.c + |c|^2 lose |x|^2 eps each: taken about the weighted
    # mean, not the origin (data 1e9 from the origin had rounding errors of ~200 in every
    # squared distance, and k-means++ seeded the clusters at random)
    origin = (w @ X) / w.sum() if w.sum() > 0 else np.zeros(D)
    X = X - origin
    x_sq = np.einsum("ij,ij->i", X, X)
    centers = np.empty((n_clusters, D))
    # plain k-means++ (one candidate per step) of unweighted rows draws the first seed as a
    # uniform integer and the next ones by inverse CDF (the HMM emissions' draws)
    plain = n_local_trials == 1 and sample_weight is None
    first = int(rng.integers(n)) if plain else int(_weighted_draw(rng, np.cumsum(w)))
    centers[0] = X[first]
    closest = _sq_dist(X, centers[:1], x_sq)[:, 0]
    for c in range(1, n_clusters):
        cum = np.cumsum(w * closest)
        if plain:
            cand = np.array([rng.integers(n) if not cum[-1] > 0 else
                             min(int(np.searchsorted(cum, rng.random() * cum[-1])), n - 1)])
        elif not cum[-1] > 0:  # all remaining mass on existing centers: take any weighted row
            cand = _weighted_draw(rng, np.cumsum(w), n_local_trials)
        else:
            cand = _weighted_draw(rng, cum, n_local_trials)
        d = _sq_dist(X, X[cand], x_sq)
        np.minimum(d, closest[:, None], out=d)
        pots = w @ d
        best = int(np.argmin(pots))
        closest = d[:, best].copy()
        centers[c] = X[cand[best]]
    centers, labels = lloyd(X, centers, w, n_lloyd, x_sq)
    return centers + origin, labels


def lloyd(X, centers, w, n_iter, x_sq=None):
    """Weighted Lloyd iterations from given centres.

    Parameters
    ----------
    X : ndarray of shape (n, D), float64
    centers : ndarray of shape (K, D)
        Updated in place (empty clusters keep their centre).
    w : ndarray of shape (n,)
        Non-negative sample weights.
    n_iter : int
        Maximum iterations; stops earlier when the labels stop changing.
    x_sq : ndarray of shape (n,), optional
        Squared row norms of X (computed when not given).

    Returns
    -------
    centers : ndarray of shape (K, D)
    labels : ndarray of shape (n,), int
        Nearest centre of every row.

    Source: Lloyd (1982), *Least squares quantization in PCM*.
    """
    n, K = X.shape[0], centers.shape[0]
    if x_sq is None:
        x_sq = np.einsum("ij,ij->i", X, X)
    labels = np.argmin(_sq_dist(X, centers, x_sq), axis=1)
    for _ in range(n_iter):
        onehot = np.zeros((n, K))
        onehot[np.arange(n), labels] = w
        mass = onehot.sum(axis=0)
        sums = onehot.T @ X
        keep = mass > 0
        centers[keep] = sums[keep] / mass[keep, None]  # empty clusters keep their center
        new = np.argmin(_sq_dist(X, centers, x_sq), axis=1)
        if np.array_equal(new, labels):
            break
        labels = new
    return centers, labels
