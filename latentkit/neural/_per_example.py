"""Per-example gradients of the MLP and of the VAE's objective, from our own backpropagation.

DP-SGD (Abadi et al. 2016, Algorithm 1) clips the gradient of every example separately, so it
needs ``g_i = d f_i / d theta`` for each row ``i`` of a minibatch, not only their sum. For an
affine layer ``A = H W + b`` the gradient of ``W`` is ``H^T dA``, a sum over the rows of ``H``;
the per-example gradient keeps the sum over the rows that belong to one example only:
``dW_i = sum_{r in rows(i)} H_r^T dA_r`` (Goodfellow 2015, *Efficient per-example gradient
computations*, section 2). The encoder sees one row per example; the decoder ``S`` rows (one per
Monte-Carlo draw of ``z``), stored example-major.

:func:`mlp_backward_per_example` is the per-example counterpart of :func:`._mlp.backward`;
:func:`per_example_norms` is what the private fit (:mod:`._private`) needs. The VAE's objective
itself (:class:`._gradients.VAEObjective` called with ``per_example=True``) chains the
two networks. Checked against central finite differences and against the summed gradient in
``tests/neural/test_per_example.py``.
"""

import numpy as np

from ._mlp import _activate_grad

__all__ = ["mlp_backward_per_example", "per_example_gradients", "per_example_norms"]

#: per-example gradient matrices are computed in chunks of about this many float64 entries
_CHUNK_ENTRIES = 1 << 22


def mlp_backward_per_example(layers, cache, dout, activation, n_examples,
                             need_input_grad=False):
    """Backpropagation of ``dout`` keeping the parameter gradient of every example apart.

    Parameters
    ----------
    layers : list of (ndarray, ndarray)
        ``(W, b)`` per layer, as used in :func:`._mlp.forward`.
    cache : list
        From :func:`._mlp.forward` on ``n_examples * r`` rows, stored example-major (the rows
        ``i * r .. (i + 1) * r - 1`` belong to example ``i``).
    dout : ndarray of shape (n_examples * r, n_out)
        Gradient of the objective with respect to the network output (not modified).
    activation : str
    n_examples : int
        Number of examples ``m``; every example owns ``r`` consecutive rows.
    need_input_grad : bool, default False
        Also return ``dL/dX`` (shape of the network input).

    Returns
    -------
    grads : ndarray of shape (n_examples, n_parameters)
        Row ``i``: the gradient of example ``i``'s part of the objective with respect to the
        network's flat parameter vector (layout of :func:`._mlp.unpack`). Summed over rows it
        equals :func:`._mlp.backward`.
    dX : ndarray or None
        ``dL/dX`` when ``need_input_grad``.

    References
    ----------
    Goodfellow, I. (2015). Efficient per-example gradient computations. arXiv:1510.01799.
    """
    m = int(n_examples)
    blocks = [None] * len(layers)
    dA = dout
    dX = None
    for i in range(len(layers) - 1, -1, -1):
        W, _ = layers[i]
        H_in = cache[i][0]
        r = H_in.shape[0] // m if m else 0
        Hg = H_in.reshape(m, r, H_in.shape[1])
        dAg = dA.reshape(m, r, dA.shape[1])
        gW = np.matmul(Hg.transpose(0, 2, 1), dAg)  # (m, n_in, n_out)
        blocks[i] = np.concatenate([gW.reshape(m, -1), dAg.sum(axis=1)], axis=1)
        if i == 0 and not need_input_grad:
            break
        dH = dA @ W.T
        if i > 0:
            _, A_prev, H_prev = cache[i - 1]
            dA = _activate_grad(dH, A_prev, H_prev, activation)
        else:
            dX = dH
    return np.concatenate(blocks, axis=1), dX


def _chunks(objective, theta, data, beta):
    """``(rows, G)`` per chunk of rows: the per-example gradients of those rows."""
    n = data.X.shape[0]
    step = max(1, _CHUNK_ENTRIES // max(1, theta.shape[0] * data.eps_z.shape[1]))
    for a in range(0, n, step):
        rows = slice(a, min(n, a + step))
        yield rows, objective(theta, data[rows], beta=beta, per_example=True)[3]


def per_example_gradients(objective, theta, data, beta=1.0):
    """Per-example gradients of a VAE's training objective, ``(n, n_params)``.

    Row ``i`` is the gradient of ``mean_s log p(x_i | z_is) - beta * KL(q(z | x_i) || p(z))``
    (the Monte-Carlo ELBO of row ``i`` with its own draws ``data.eps_z[i]``) with respect to the
    flat parameter vector; rows sum to the gradient of ``objective``. Computed in
    chunks of rows (about 32 MiB of per-example gradients at a time).

    Parameters
    ----------
    objective : VAEObjective
        The training objective of a VAE whose layout is set (fitted or initialised: the VAE
        holds it as ``_objective``); called with ``free_bits`` 0 (free bits couple the rows of
        a minibatch, so a row has no gradient of its own).
    theta : ndarray of shape (n_params,)
    data : _VAEData
        Rows ``X`` (n, D) with their noise ``eps_z`` (n, S, L) (and ``eps_w``).
    beta : float, default 1.0
        KL weight (KL warm-up).

    Returns
    -------
    ndarray of shape (n, n_params)
        Nats per unit of each parameter.
    """
    out = np.empty((data.X.shape[0], theta.shape[0]))
    for rows, G in _chunks(objective, theta, data, beta):
        out[rows] = G
    return out


def per_example_norms(objective, theta, data, beta=1.0):
    """L2 norms of the per-example gradients (see :func:`per_example_gradients`), shape (n,),
    without holding the ``(n, n_params)`` matrix beyond one chunk of rows."""
    out = np.empty(data.X.shape[0])
    for rows, G in _chunks(objective, theta, data, beta):
        out[rows] = np.sqrt(np.einsum("ij,ij->i", G, G))
    return out
