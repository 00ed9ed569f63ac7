"""Private SVI pieces for the Gaussian mixtures (see :mod:`latentkit._engine.private_svi`):
VariationalGaussianMixture (natural-gradient step) and GaussianMixture (stepwise EM), returned
by their ``_private_svi_pieces`` hook.

**Per-row statistics.** Every row is first centred on a public ``center`` ``c`` and clipped to a
public radius ``R``: ``y_i = (x_i - c) min(1, R / ||x_i - c||)``. With the responsibilities
``r_i`` (a probability vector over the K components, from the local E-step at the current global
factors) the row's statistics, normalised by ``R``, are

``t_i = (r_i, r_i (x) y_i / R, r_i (x) M(y_i) / R^2)``

with ``M(y) = y y^T`` ('full'), ``y * y`` ('diag'), ``||y||^2`` ('spherical'), and for 'tied' the
single block ``y y^T / R^2``. Each second-moment block has norm at most ``||y||^2 <= R^2``, so
``||t_i||^2 <= sum_k r_ik^2 (1 + ||y||^2/R^2 + ||y||^4/R^4) <= 3`` ('tied': ``||r||^2 (1 +
||y||^2/R^2) + ||y||^4/R^4 <= 3``). Adding or removing one row changes ``sum_i t_i`` by at most
``sqrt(3)`` in L2: the sensitivity is ``C = sqrt(3)`` (the default ``clip``; a smaller ``clip``
clips ``t_i`` further). Gaussian noise ``N(0, (noise_multiplier C)^2)`` is added to every entry
of the normalised sum, which is then scaled back (``R``, ``R^2``) and projected onto valid
statistics (post-processing): ``nk >= 0``, and every scatter about the mean
``sxx_k - sx_k sx_k^T / nk_k`` made positive semi-definite by clipping its eigenvalues at 0.

**Public start and priors.** The priors default to public values instead of scikit-learn's
data-derived ones: ``mean_prior = center``, ``covariance_prior = (R^2 / D) I`` (its diagonal or
mean for 'diag' / 'spherical'), ``mean_precision_prior = 1``, ``degrees_of_freedom_prior = D``;
the start is one pseudo-row per component at a random point of the ball of radius ``R / 2``
with covariance ``(R^2 / D) I`` (from ``random_state``, without the data).

Source: Park, Foulds, Chaudhuri & Welling (2020), Algorithm 1 and their Gaussian-mixture
example (rows of bounded norm, perturbed expected sufficient statistics).
"""

import math
import numbers

import numpy as np

from .._utils.validation import check_array, check_scalar
from ..distributions import _missing
from ..distributions._gaussian import GaussianStats
from ._gaussian_component import _given_covariance_prior
from ..exceptions import InputError

__all__ = ["GMMPrivatePieces", "VGMMPrivatePieces", "clip_rows"]


def clip_rows(Y, radius):
    """Every row of ``Y`` (n, D) scaled to L2 norm at most ``radius``, without overflow: the
    norm is taken of the row divided by its largest absolute entry, so that a row at 1e300
    is clipped exactly (instead of its norm overflowing to inf and the row collapsing to 0,
    with a warning that would depend on that row)."""
    with np.errstate(all="ignore"):
        scale = np.max(np.abs(Y), axis=1) if Y.shape[1] else np.zeros(Y.shape[0])
        safe = np.where(scale > 0, scale, 1.0)
        U = Y / safe[:, None]
        nu = np.linalg.norm(U, axis=1)  # in [1, sqrt(D)] for a non-zero row
        over = scale * nu > radius
        out = np.where(over[:, None], U * (radius / np.where(nu > 0, nu, 1.0))[:, None], Y)
    return out


class VGMMPrivatePieces:
    """VariationalGaussianMixture: the module notes' per-row statistics, public start and
    natural-gradient step on the noisy statistics."""

    unit = "row"

    def __init__(self, model, owner, *, adopt_start, log_resp=None):
        """``model`` is read through its public attributes and hooks; ``adopt_start(priors,
        center)`` (the model's own method) assigns the public priors (a dict by name, None
        for GaussianMixture) and the centre of the statistics; ``log_resp(X)`` (VGMM) gives
        the log-responsibilities of validated rows at the current factors."""
        self.adopt_start = adopt_start
        self.log_resp = log_resp
        if owner.radius is None:
            raise InputError("radius must be given for a private Gaussian mixture: the public "
                             "L2 radius (about center) to which every row is clipped.")
        self.model = model
        self.radius = check_scalar(owner.radius, "radius", numbers.Real, low=0.0,
                                   low_inclusive=False)
        self.center = owner.center
        if getattr(model, "missing", "error") != "error":
            raise InputError("a private Gaussian mixture needs missing='error'.")

    missing_clip = None  # the default clip always applies

    def default_clip(self):
        return math.sqrt(3.0)

    def check_X(self, X):
        X = check_array(X, "X")
        D = X.shape[1]
        c = np.zeros(D) if self.center is None else np.asarray(self.center, dtype=float)
        if c.shape != (D,) or not np.all(np.isfinite(c)):
            raise InputError(f"center must be a finite array of shape ({D},), got shape "
                             f"{c.shape}.")
        self.c = c
        return c + clip_rows(X - c, self.radius)  # the clipped rows

    # ---- start -----------------------------------------------------------------------------
    def _public_prior(self, m, D, K):
        """The priors: the given ones, checked, and the public defaults (module notes)."""
        R, ct = self.radius, m.covariance_type
        cov = {"full": np.eye(D) * R * R / D, "tied": np.eye(D) * R * R / D,
               "diag": np.full(D, R * R / D), "spherical": R * R / D}[ct]
        given = {"mean_precision_prior": m.mean_precision_prior, "mean_prior": m.mean_prior,
                 "degrees_of_freedom_prior": m.degrees_of_freedom_prior,
                 "covariance_prior": m.covariance_prior}
        public = {"mean_precision_prior": 1.0, "mean_prior": self.c.copy(),
                  "degrees_of_freedom_prior": float(D), "covariance_prior": cov}
        # the component resolves the given values (checked); the others are the public ones
        resolved = {}
        for name, value in given.items():
            if value is None:
                resolved[name] = public[name]
            elif name == "mean_prior":
                resolved[name] = np.array(value, dtype=float)
                if resolved[name].shape != (D,):
                    raise InputError(f"mean_prior must have shape ({D},), got "
                                     f"{resolved[name].shape}.")
            elif name == "covariance_prior":
                resolved[name] = _given_covariance_prior(value, ct, D)
            else:
                resolved[name] = float(value)
        return resolved

    def start(self, n_features, rng):
        """The public start: checked hyper-parameters, then the model's own M-step on the
        start's pseudo-rows (:meth:`_start_stats`), without the data."""
        m = self.model
        m._check_common_params()
        m._validate_params()
        D, K = int(n_features), int(m.n_components)
        m.n_features_in_ = D
        m._rng = rng
        m._running_stats = None
        m.n_steps_ = 0
        self._prepare(m, D, K)
        m._m_step(self._start_stats(D, K, rng))

    def _prepare(self, m, D, K):
        """The public priors and an empty factor about the centre (VGMM)."""
        self.adopt_start(self._public_prior(m, D, K), self.c)

    def _start_stats(self, D, K, rng):
        """One pseudo-row per component at a random point of the ball of radius R/2 about c,
        with covariance (R^2 / D) I: statistics about c (module notes)."""
        R, ct = self.radius, self.model.covariance_type
        u = rng.normal(size=(K, D))
        u *= (0.5 * R * rng.random(K) ** (1.0 / D) / np.linalg.norm(u, axis=1))[:, None]
        v = R * R / D
        sxx = {"full": np.einsum("ki,kj->kij", u, u) + v * np.eye(D)[None],
               "tied": u.T @ u + K * v * np.eye(D),
               "diag": u * u + v, "spherical": np.sum(u * u, axis=1) + D * v}[ct]
        return GaussianStats(n=float(K), data_term=0.0, nk=np.ones(K), sx=u, sxx=sxx)

    # ---- statistics and step --------------------------------------------------------------
    def shape(self):
        K, D, ct = int(self.model.n_components), self.model.n_features_in_, \
            self.model.covariance_type
        size = K + K * D + {"full": K * D * D, "tied": D * D, "diag": K * D,
                            "spherical": K}[ct]
        return (size,)

    def _flat(self, r, Xc):
        """Per-row normalised statistics ``t_i`` (n, size) of the clipped rows (module notes)."""
        m = self.model
        R, ct = self.radius, m.covariance_type
        Yn = (Xc - self.c) / R
        n, K = r.shape
        parts = [r, (r[:, :, None] * Yn[:, None, :]).reshape(n, -1)]
        if ct == "full":
            parts.append((r[:, :, None, None] * (Yn[:, :, None] * Yn[:, None, :])[:, None])
                         .reshape(n, -1))
        elif ct == "tied":
            parts.append((Yn[:, :, None] * Yn[:, None, :]).reshape(n, -1))
        elif ct == "diag":
            parts.append((r[:, :, None] * (Yn * Yn)[:, None, :]).reshape(n, -1))
        else:
            parts.append(r * np.sum(Yn * Yn, axis=1)[:, None])
        return np.concatenate(parts, axis=1)

    def _log_resp(self, Xc):
        return self.log_resp(Xc)

    def clipped_sum(self, Y, clip):
        log_resp = self._log_resp(Y)
        r = np.exp(log_resp - np.max(log_resp, axis=1, keepdims=True))
        r /= r.sum(axis=1, keepdims=True)
        t = self._flat(r, Y)
        norms = np.linalg.norm(t, axis=1)
        with np.errstate(divide="ignore"):
            t *= np.minimum(1.0, clip / np.where(norms > 0, norms, 1.0))[:, None]
        return t.sum(axis=0), norms

    def _unflatten(self, v):
        """Normalised flat statistics -> (nk, sx, sxx) in data units, projected onto valid
        statistics (module notes)."""
        m = self.model
        K, D, ct, R = int(m.n_components), m.n_features_in_, m.covariance_type, self.radius
        nk = np.maximum(v[:K], 0.0)
        sx = v[K:K + K * D].reshape(K, D) * R
        rest = v[K + K * D:] * R * R
        safe = np.where(nk > 0, nk, 1.0)[:, None]
        mean_part = np.where(nk[:, None] > 0, sx, 0.0)
        sx = mean_part
        if ct in ("full", "tied"):
            outer = np.einsum("ki,kj->kij", sx, sx) / safe[:, :, None]
            S = rest.reshape((K, D, D) if ct == "full" else (D, D))
            S = 0.5 * (S + np.swapaxes(S, -1, -2))
            centred = S - (outer if ct == "full" else outer.sum(axis=0))
            w, V = np.linalg.eigh(centred)
            centred = (V * np.maximum(w, 0.0)[..., None, :]) @ np.swapaxes(V, -1, -2)
            sxx = centred + (outer if ct == "full" else outer.sum(axis=0))
        elif ct == "diag":
            sq = sx * sx / safe
            sxx = np.maximum(rest.reshape(K, D) - sq, 0.0) + sq
        else:
            sq = np.sum(sx * sx, axis=1) / safe[:, 0]
            sxx = np.maximum(rest - sq, 0.0) + sq
        return nk, sx, sxx

    def step(self, noisy_sum, rho, scale):
        m = self.model
        nk, sx, sxx = self._unflatten(noisy_sum)
        m._m_step(GaussianStats(n=float(nk.sum()), data_term=0.0, nk=nk, sx=sx, sxx=sxx),
                  step_size=rho, scale=scale)
        m.n_steps_ += 1


class GMMPrivatePieces(VGMMPrivatePieces):
    """GaussianMixture: the same per-row statistics, start and noise; the step is the model's
    stepwise-EM update of its running statistics. It has no prior: the public start's
    pseudo-rows are its first running statistics."""

    def _prepare(self, m, D, K):
        """No prior: only the centre about which the statistics are taken."""
        self.adopt_start(None, self.c)

    def _log_resp(self, Xc):
        """At the current parameters, about the centre (the model's fixed point since
        :meth:`_prepare`)."""
        m = self.model
        with np.errstate(divide="ignore"):
            log_w = np.log(m.weights_)
        _, log_resp = _missing.policy_e_step("error", Xc, log_w, m.means_,
                                             m.precisions_cholesky_, m.covariance_type,
                                             shift=self.c, return_log_resp=True)
        return log_resp
