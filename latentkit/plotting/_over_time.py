"""Figures of topics over time (:class:`latentkit.topic.DynamicTopicModel`): each topic's share
of the documents by slice, and a word's probability within a topic over the slices."""

import numpy as np
import matplotlib.pyplot as plt

from ._scores import _legend_outside
from ..exceptions import InputError

__all__ = ["plot_topic_prevalence", "plot_word_trajectories"]


def _slice_positions(labels):
    """x positions and tick labels of the slices: the labels themselves when numeric."""
    labels = np.asarray(labels)
    if labels.dtype.kind in "iuf":
        return labels.astype(float), None
    return np.arange(labels.shape[0], dtype=float), [str(v) for v in labels]


def plot_topic_prevalence(prevalence, time_slices, ax=None, *, topic_labels=None,
                          stacked=True):
    """Each topic's share of the documents at every time slice.

    Parameters
    ----------
    prevalence : array-like of shape (n_slices, n_components)
        Shares per slice (rows sum to 1), e.g.
        :meth:`latentkit.topic.DynamicTopicModel.topic_prevalence`.
    time_slices : array-like of shape (n_slices,)
        The slice labels (``time_slices_``); numbers are placed on a numeric axis.
    ax : matplotlib Axes, optional
        Where to draw; a new figure when None.
    topic_labels : sequence of str, optional
        Legend entries (default ``topic 0``, ``topic 1``, ...; e.g. each topic's top words).
    stacked : bool, default True
        Stacked areas (shares add up to 1); False: one line per topic.

    Returns
    -------
    matplotlib Axes

    Raises
    ------
    InputError
        Shapes that do not match.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from latentkit.plotting import plot_topic_prevalence
    >>> ax = plot_topic_prevalence([[0.7, 0.3], [0.4, 0.6]], [2001, 2002])
    >>> ax.get_ylabel()
    'share of the documents'
    """
    prev = np.asarray(prevalence, dtype=np.float64)
    labels = np.asarray(time_slices)
    if prev.ndim != 2 or labels.ndim != 1 or prev.shape[0] != labels.shape[0]:
        raise InputError(f"prevalence must have shape (n_slices, n_components) with one row "
                         f"per time slice ({labels.shape}), got {prev.shape}.")
    K = prev.shape[1]
    names = topic_labels if topic_labels is not None else [f"topic {k}" for k in range(K)]
    if ax is None:
        _, ax = plt.subplots(figsize=(8.0, 4.0))
    x, ticks = _slice_positions(labels)
    colors = plt.get_cmap("tab20" if K > 10 else "tab10")(np.arange(K) % 20)
    if stacked:
        ax.stackplot(x, np.nan_to_num(prev).T, labels=names, colors=colors, alpha=0.9)
        ax.set_ylim(0.0, 1.0)
    else:
        for k in range(K):
            ax.plot(x, prev[:, k], label=names[k], color=colors[k], marker="o", ms=3)
    if ticks is not None:
        ax.set_xticks(x, ticks, rotation=45, ha="right")
    ax.set_xlabel("time slice")
    ax.set_ylabel("share of the documents")
    ax.set_title("topic prevalence over time")
    _legend_outside(ax)
    return ax


def plot_word_trajectories(model, words, topic, ax=None, *, vocabulary=None):
    """The probability of words within one topic at every slice of a fitted
    :class:`latentkit.topic.DynamicTopicModel`.

    Parameters
    ----------
    model : DynamicTopicModel
        Fitted.
    words : sequence of str or int
        Words (with ``vocabulary`` or the model's ``feature_names_in_``) or column indices.
    topic : int
        The topic.
    ax : matplotlib Axes, optional
    vocabulary : sequence of str, optional

    Returns
    -------
    matplotlib Axes

    Raises
    ------
    InputError
        An unknown word or topic.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from latentkit.topic import DynamicTopicModel
    >>> from latentkit.plotting import plot_word_trajectories
    >>> X = np.random.default_rng(0).poisson(1.0, size=(20, 6))
    >>> m = DynamicTopicModel(2, init="random", max_iter=2, random_state=0).fit(
    ...     X, times=np.repeat([1, 2], 10))
    >>> plot_word_trajectories(m, [0, 3], topic=1).get_ylabel()
    'probability in topic 1'
    """
    probs = model.topic_word_distributions()
    K = probs.shape[1]
    if not 0 <= int(topic) < K:
        raise InputError(f"topic must be in 0..{K - 1}, got {topic!r}.")
    vocab = vocabulary if vocabulary is not None else getattr(model, "feature_names_in_", None)
    index = {str(w): i for i, w in enumerate(vocab)} if vocab is not None else {}
    cols = []
    for w in words:
        if isinstance(w, (int, np.integer)):
            if not 0 <= int(w) < probs.shape[2]:
                raise InputError(f"word index {w} is outside the vocabulary "
                                 f"(0..{probs.shape[2] - 1}).")
            cols.append((str(vocab[w]) if vocab is not None else str(w), int(w)))
        elif str(w) in index:
            cols.append((str(w), index[str(w)]))
        else:
            raise InputError(f"word {w!r} is not in the vocabulary.")
    if ax is None:
        _, ax = plt.subplots(figsize=(8.0, 4.0))
    x, ticks = _slice_positions(model.time_slices_)
    for name, c in cols:
        ax.plot(x, probs[:, int(topic), c], marker="o", ms=3, label=name)
    if ticks is not None:
        ax.set_xticks(x, ticks, rotation=45, ha="right")
    ax.set_xlabel("time slice")
    ax.set_ylabel(f"probability in topic {int(topic)}")
    ax.set_title("word trajectories")
    _legend_outside(ax)
    return ax
