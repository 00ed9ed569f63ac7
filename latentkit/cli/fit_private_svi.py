"""``latentkit fit lda --method svi --private``: differentially private stochastic variational
inference for LDA (:class:`latentkit.inference.PrivateStochasticVI`), with the neighbouring
relation, the epsilon spent under both RDP conversions and the noise multiplier in the report."""

import math
import re
import warnings

import numpy as np

from .._utils.words import top_words
from ..exceptions import PrivacyNoiseWarning
from ._common import CLIError, FitResult, _finite
from ._private_text import private_counts

__all__ = ["run_private_svi_lda"]

#: Default clip norm of a document's expected topic-word counts (a document's norm is at most
#: its length): about the median of KOS's news-blog posts at a random start
#: (benchmarks/bench_private_svi.py); give --clip for longer documents.
DEFAULT_CLIP = 10.0


#: PrivateStochasticVI's argument names and the flags that set them.
_FLAGS = {"epsilon": "--epsilon", "delta": "--delta", "clip": "--clip",
          "batch_size": "--batch-size", "n_epochs": "--max-iter",
          "learning_offset": "--learning-offset", "learning_decay": "--learning-decay"}


def _flag_names(message):
    """A library error naming an argument, reworded with the flag that sets it."""
    name = re.match(r"(\w+)", message)
    if name and name.group(1) in _FLAGS and message[name.end():name.end() + 1] in (" ", "="):
        return _FLAGS[name.group(1)] + message[name.end():]
    return message


def run_private_svi_lda(args, progress):
    """``fit lda --method svi --private``: :class:`~latentkit.inference.PrivateStochasticVI`.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "docword.txt")
    >>> rows = ["6", "4", "12", "1 1 3", "1 2 2", "2 1 4", "2 2 1", "3 2 3", "3 1 1",
    ...         "4 3 3", "4 4 2", "5 3 4", "5 4 1", "6 4 3", "6 3 1"]  # D, W, NNZ; doc word count
    >>> with open(path, "w") as f:
    ...     print(*rows, sep=os.linesep, file=f)
    >>> from latentkit.cli import Progress, build_parser
    >>> from latentkit.cli.fit_private_svi import run_private_svi_lda
    >>> args = build_parser().parse_args(["fit", "lda", "--data", path, "-k", "2", "--method",
    ...                                   "svi", "--private", "--epsilon", "1",
    ...                                   "--delta", "1e-5", "--max-iter", "2"])
    >>> result = run_private_svi_lda(args, Progress(None, enabled=False))
    >>> result.n_samples, type(result.model).__name__
    (6, 'LatentDirichletAllocation')
    >>> print(result.lines[1])
    privacy     neighbouring relation: one document (row) added or removed; the whole fit spends
    epsilon = 1 (improved RDP conversion; classic RDP: 1.251) at delta = 1e-05
    """
    from ..inference import PrivateStochasticVI  # lazy: numba, ~2 s start-up
    from ..topic import LatentDirichletAllocation

    if args.init not in (None, "random"):
        raise CLIError(f"--method svi --private starts at random (without reading the "
                       f"documents), got --init {args.init}.")
    if args.holdout is not None:
        raise CLIError("--holdout is not available with --private: its ELBO trace would be an "
                       "unaccounted release of the documents.")
    corpus = private_counts(args)  # --text: over a public vocabulary
    X, vocab = corpus.data, corpus.vocabulary
    n_docs, n_words = X.shape
    k = 10 if args.n_components is None else args.n_components
    clip = DEFAULT_CLIP if args.clip is None else args.clip
    batch = args.batch_size if args.batch_size is not None else min(128, max(1, n_docs // 10))
    kw = {n: getattr(args, n) for n in ("learning_offset", "learning_decay")
          if getattr(args, n) is not None}
    model = LatentDirichletAllocation(
        n_components=k, **{n: getattr(args, n) for n in ("doc_topic_prior", "topic_word_prior")
                           if getattr(args, n) is not None})
    fit = PrivateStochasticVI(model, epsilon=args.epsilon, delta=args.delta, clip=clip,
                              batch_size=batch,
                              n_epochs=args.max_iter if args.max_iter is not None else 10,
                              random_state=args.seed, **kw)
    with progress, warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyNoiseWarning)  # printed below instead
        try:
            fit.fit(X)
        except ValueError as e:
            raise CLIError(_flag_names(str(e))) from None
    lda = fit.model_
    lda.feature_names_in_ = np.asarray(vocab, dtype=str)
    top = top_words(lda.components_, list(vocab), args.top)
    private = math.isfinite(args.epsilon)
    eps_rdp, eps_imp = fit.epsilon_["rdp"], fit.epsilon_["rdp_improved"]
    lines = [
        f"data        {corpus['name']}: {n_docs} documents x {n_words} words "
        f"(the number of documents is not protected)",
        f"privacy     neighbouring relation: {fit.neighbouring_relation_}; the whole fit spends "
        f"epsilon = {eps_imp:.4g} (improved RDP conversion; classic RDP: {eps_rdp:.4g}) at "
        f"delta = {args.delta:g}",
        f"noise       noise multiplier {fit.noise_multiplier_:.4g} (sigma = "
        f"{fit.sigma_:.4g} on each of the {k} x {n_words} released counts per step), "
        f"clip {clip:g} (Frobenius norm of a document's expected topic-word counts)",
        f"method      private stochastic VI (Park et al. 2020): {fit.n_steps_} steps on Poisson "
        f"minibatches, sampling rate q = {fit.q_:.4g} (expected {batch} documents), "
        f"kappa={fit.learning_decay}, tau={fit.learning_offset}",
    ]
    if private:
        lines.insert(3, f"  check     noise norm {fit.noise_norm_:.4g} per step, estimated signal "
                        f"norm {fit.signal_norm_:.4g} (from the releases)"
                        + (f"; {int(np.sum(fit.noise_dominated_rows_))} of {k} topics "
                           f"noise-dominated" if fit.noise_dominated_rows_ is not None else "")
                        + ("; THE TOPICS BELOW ARE MOSTLY NOISE" if fit.noise_dominated_
                           else ""))
    if not private:
        lines[1] = ("privacy     none: --epsilon inf runs today's non-private stochastic VI "
                    "(the same fit)")
    lines.append(f"top {args.top} words per topic:")
    width = len(str(k - 1))
    lines += [f"  topic {i:>{width}}: " + " ".join(w) for i, w in enumerate(top)]
    summary = {"n_features": n_words, "topics": top, "method": "svi", "private": True,
               "privacy": {"neighbouring": fit.neighbouring_relation_,
                           "epsilon_rdp": _finite(eps_rdp),
                           "epsilon_rdp_improved": _finite(eps_imp), "delta": args.delta,
                           "noise_multiplier": fit.noise_multiplier_, "sigma": fit.sigma_,
                           "clip": clip, "sampling_rate": fit.q_,
                           "n_steps": int(fit.n_steps_),
                           "noise_norm": fit.noise_norm_, "signal_norm": fit.signal_norm_,
                           "noise_dominated": bool(fit.noise_dominated_)}}
    return FitResult(lda, summary, lines, n_docs, plot_data={"vocabulary": list(vocab)})
