"""The LDA prior and seeding options of ``latentkit fit lda``: ``--alpha`` / ``--doc-topic-prior``
(a number, ``auto`` or ``asymmetric``), ``--eta`` / ``--topic-word-prior`` (a number or
``auto``), ``--seed-words FILE`` (one seeded topic per line) and ``--seed-confidence``
(:mod:`latentkit.topic._lda_priors`, :mod:`latentkit.topic._seeding`)."""

import argparse

import numpy as np

from ._common import CLIError

__all__ = ["add_prior_args", "check_private_priors", "prior_text", "prior_json", "seed_args",
           "check_seed_lines"]


def _prior_type(words):
    def parse(text):
        if text in words:
            return text
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"expected a number > 0 or {' or '.join(words)}, got {text!r}") from None
        if not value > 0:
            raise argparse.ArgumentTypeError(f"expected a number > 0, got {text!r}")
        return value
    return parse


def add_prior_args(p):
    """Add the prior and seeding options of ``fit lda``."""
    p.add_argument("--doc-topic-prior", "--alpha", dest="doc_topic_prior", default=None,
                   type=_prior_type(("auto", "asymmetric")), metavar="ALPHA",
                   help="alpha: a number (default 1/k), auto (learned by empirical Bayes, "
                        "asymmetric) or asymmetric (fixed, gensim's 1/(k + sqrt(K)))")
    p.add_argument("--topic-word-prior", "--eta", dest="topic_word_prior", default=None,
                   type=_prior_type(("auto",)), metavar="ETA",
                   help="eta: a number (default 1/k) or auto (learned, one value per word)")
    p.add_argument("--seed-words", metavar="FILE", default=None,
                   help="seeded topics: a text file with one topic per line (its seed words, "
                        "separated by spaces or commas); line i seeds topic i")
    p.add_argument("--seed-confidence", type=float, default=None, metavar="C",
                   help="--seed-words: extra prior mass of a seeded topic on each seed word, as "
                        "a share of the word's count (default 1)")


def check_private_priors(args):
    """Learned priors and seeds read the documents outside the privacy accounting."""
    for flag, value in (("--alpha", args.doc_topic_prior), ("--eta", args.topic_word_prior)):
        if isinstance(value, str):
            raise CLIError(f"{flag} {value} is not available with --private: a prior learned "
                           "from the documents would be an unaccounted release; give a number.")
    if args.seed_words is not None or args.seed_confidence is not None:
        raise CLIError("--seed-words is not available with --private (the seeded prior is "
                       "scaled by the documents' word counts).")


def seed_args(args):
    """``seed_topics`` / ``seed_confidence`` keyword arguments from the options (empty when
    ``--seed-words`` is not given)."""
    if args.seed_words is None:
        if args.seed_confidence is not None:
            raise CLIError("--seed-confidence applies to --seed-words only.")
        return {}
    from ..topic._seeding import read_seed_words  # lazy: loads latentkit.topic
    try:
        seeds = read_seed_words(args.seed_words)
    except UnicodeDecodeError as exc:  # a ValueError, but the user's file, not a bug
        raise CLIError(f"--seed-words {args.seed_words!r} is not UTF-8 text ({exc.reason} at "
                       f"byte {exc.start}).") from None
    except ValueError as exc:  # the file names no word
        raise CLIError(f"--seed-words: {exc}") from None
    kw = {"seed_topics": seeds}
    if args.seed_confidence is not None:
        kw["seed_confidence"] = args.seed_confidence
    return kw


def check_seed_lines(args, model):
    """CLIError when the ``--seed-words`` file has more lines (seeded topics) than the model
    has topics (``model.n_components``: ``-k`` or the library's default)."""
    seeds, k = model.seed_topics, model.n_components
    if seeds is not None and len(seeds) > k:
        raise CLIError(f"--seed-words {args.seed_words!r} seeds {len(seeds)} topics (one per "
                       f"line), more than the {k} topics of -k; give at most {k} lines or a "
                       "larger -k.")


def prior_text(value):
    """A prior for the fit's summary line: the number, or an array's shape and range."""
    a = np.asarray(value, dtype=np.float64)
    if a.ndim == 0:
        return f"{float(a):.4g}"
    if a.ndim == 1 and a.size <= 10:
        return "[" + " ".join(f"{v:.3g}" for v in a) + "]"
    return f"array {a.shape} in [{a.min():.3g}, {a.max():.3g}], mean {a.mean():.3g}"


def prior_json(value):
    """A prior for the JSON summary: a number, a list (K,), or the shape and range of a larger
    array (a (V,) or (K, V) prior)."""
    a = np.asarray(value, dtype=np.float64)
    if a.ndim == 0:
        return float(a)
    if a.ndim == 1 and a.size <= 1000:
        return a.tolist()
    return {"shape": list(a.shape), "min": float(a.min()), "max": float(a.max()),
            "mean": float(a.mean())}
