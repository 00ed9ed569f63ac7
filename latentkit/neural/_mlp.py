"""A small multilayer perceptron in NumPy: forward pass, backpropagation, flat parameter layout.

Written for clarity and checked against central finite differences in the test suite
(``tests/neural/test_mlp_gradients.py``). Layers are affine maps ``A = H W + b`` followed by an
elementwise activation on every hidden layer; the output layer is linear. All parameters of a
network live in **one flat float64 vector**; the weight matrices are views into it, so the
optimiser (:mod:`latentkit.neural._optim`) updates a single array and the gradient is a single
array of the same layout.

Source: Rumelhart, Hinton & Williams (1986), *Learning representations by back-propagating
errors*; the notation follows Goodfellow, Bengio & Courville (2016), *Deep Learning*, Alg. 6.4.
"""

import numpy as np

__all__ = ["ACTIVATIONS", "layer_shapes", "n_parameters", "unpack", "init_weights",
           "forward", "backward"]

#: Hidden-layer activations understood by :func:`forward` / :func:`backward`.
ACTIVATIONS = ("relu", "tanh", "softplus", "identity")


def layer_shapes(sizes):
    """Shapes of the (W, b) pairs of an MLP with layer widths ``sizes``.

    Parameters
    ----------
    sizes : sequence of int
        ``(n_in, h_1, ..., h_k, n_out)``.

    Returns
    -------
    list of ((int, int), (int,))
        ``W`` has shape ``(sizes[i], sizes[i + 1])`` and ``b`` shape ``(sizes[i + 1],)``.
    """
    return [((a, b), (b,)) for a, b in zip(sizes[:-1], sizes[1:])]


def n_parameters(sizes):
    """Number of scalars in an MLP with layer widths ``sizes`` (weights and biases)."""
    return sum(a * b + b for a, b in zip(sizes[:-1], sizes[1:]))


def unpack(flat, sizes):
    """Views ``[(W_0, b_0), ...]`` into the flat parameter vector ``flat``.

    Parameters
    ----------
    flat : ndarray of shape (n_parameters(sizes),)
        Contiguous parameter vector (not copied: the returned arrays are views).
    sizes : sequence of int

    Returns
    -------
    list of (ndarray, ndarray)
    """
    out, k = [], 0
    for (wshape, bshape) in layer_shapes(sizes):
        nw = wshape[0] * wshape[1]
        W = flat[k:k + nw].reshape(wshape)
        k += nw
        b = flat[k:k + bshape[0]]
        k += bshape[0]
        out.append((W, b))
    if k != flat.shape[0]:
        raise ValueError(f"flat has {flat.shape[0]} entries, the layout needs {k}.")
    return out


def init_weights(sizes, rng, dtype=np.float64):
    """Glorot-uniform weights and zero biases, as a flat vector.

    Source: Glorot & Bengio (2010), *Understanding the difficulty of training deep feedforward
    neural networks*, eq. 16: ``W ~ U(-a, a)``, ``a = sqrt(6 / (fan_in + fan_out))``.

    Parameters
    ----------
    sizes : sequence of int
    rng : numpy.random.Generator
    dtype : numpy dtype, default float64

    Returns
    -------
    ndarray of shape (n_parameters(sizes),)
    """
    flat = np.zeros(n_parameters(sizes), dtype=dtype)
    for W, _ in unpack(flat, sizes):
        a = np.sqrt(6.0 / (W.shape[0] + W.shape[1]))
        W[...] = rng.uniform(-a, a, size=W.shape)
    return flat


def _activate(A, activation):
    if activation == "relu":
        return np.maximum(A, 0.0)
    if activation == "tanh":
        return np.tanh(A)
    if activation == "softplus":
        # log(1 + exp(a)) = max(a, 0) + log1p(exp(-|a|)), never overflows
        return np.maximum(A, 0.0) + np.log1p(np.exp(-np.abs(A)))
    if activation == "identity":
        return A
    raise ValueError(f"activation must be one of {ACTIVATIONS}, got {activation!r}.")


def _activate_grad(dH, A, H, activation):
    """``dL/dA`` from ``dL/dH`` for ``H = act(A)`` (overwrites ``dH`` where possible)."""
    if activation == "relu":
        dH *= A > 0.0
        return dH
    if activation == "tanh":
        dH *= 1.0 - H * H
        return dH
    if activation == "softplus":
        # d softplus / da = sigmoid(a) = 1 - exp(-softplus(a))
        dH *= -np.expm1(-H)
        return dH
    if activation == "identity":
        return dH
    raise ValueError(f"activation must be one of {ACTIVATIONS}, got {activation!r}.")


def forward(layers, X, activation):
    """Forward pass.

    Parameters
    ----------
    layers : list of (ndarray, ndarray)
        ``(W, b)`` per layer (see :func:`unpack`).
    X : ndarray of shape (n, n_in)
    activation : {'relu', 'tanh', 'softplus', 'identity'}
        Applied after every layer but the last.

    Returns
    -------
    out : ndarray of shape (n, n_out)
        Output of the final (linear) layer.
    cache : list
        ``[(H_in, A, H_out), ...]`` per hidden layer plus the last layer's input, for
        :func:`backward`.
    """
    cache = []
    H = X
    last = len(layers) - 1
    for i, (W, b) in enumerate(layers):
        A = H @ W
        A += b
        if i < last:
            Hn = _activate(A, activation)
            cache.append((H, A, Hn))
            H = Hn
        else:
            cache.append((H, None, None))
            H = A
    return H, cache


def backward(layers, grads, cache, dout, activation, need_input_grad=False):
    """Backpropagation of ``dout = dL/d(out)`` through the network.

    Parameters
    ----------
    layers : list of (ndarray, ndarray)
        The parameters used in :func:`forward`.
    grads : list of (ndarray, ndarray)
        Output: views into the flat gradient vector with the same layout; **overwritten** with
        ``dL/dW`` and ``dL/db``.
    cache : list
        From :func:`forward`.
    dout : ndarray of shape (n, n_out)
        Gradient of the scalar objective with respect to the network output (not modified).
    activation : str
    need_input_grad : bool, default False
        Also return ``dL/dX``.

    Returns
    -------
    ndarray of shape (n, n_in) or None
        ``dL/dX`` when ``need_input_grad``.
    """
    dA = dout
    for i in range(len(layers) - 1, -1, -1):
        W, _ = layers[i]
        gW, gb = grads[i]
        H_in, _, _ = cache[i]
        np.matmul(H_in.T, dA, out=gW)
        np.sum(dA, axis=0, out=gb)
        if i == 0 and not need_input_grad:
            return None
        dH = dA @ W.T
        if i > 0:
            _, A_prev, H_prev = cache[i - 1]
            dA = _activate_grad(dH, A_prev, H_prev, activation)
        else:
            return dH
    return None
