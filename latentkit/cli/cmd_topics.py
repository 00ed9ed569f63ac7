"""``latentkit coherence`` and ``latentkit report``: a saved topic model's coherence (as gensim's
CoherenceModel) and its standalone HTML report, with the reference corpus given by ``--text``,
``--dataset`` or ``--data``. Thin plumbing over :mod:`latentkit.topic`."""

import argparse
import json

import numpy as np

from ..io import load
from ..text import load_texts_for
from ._common import CLIError, _StoreDataset, check_before_work, load_input
from ._report_meta import add_report_meta_args, report_meta

__all__ = ["add_parsers"]


def add_parsers(sub):
    """Add ``coherence`` and ``report`` to the ``latentkit`` subparsers.

    Examples
    --------
    >>> import argparse
    >>> from latentkit.cli import cmd_topics
    >>> parser = argparse.ArgumentParser(prog="latentkit")
    >>> cmd_topics.add_parsers(parser.add_subparsers(dest="command"))
    >>> parser.parse_args(["coherence", "lda.npz"]).command
    'coherence'
    >>> parser.parse_args(["report", "lda.npz", "--out", "report.html"]).command
    'report'
    """
    p = sub.add_parser("coherence", help="coherence of a saved topic model's topics "
                       "(c_v, c_npmi, u_mass; as gensim's CoherenceModel)")
    p.add_argument("path", help="model file (.npz) of a LatentDirichletAllocation or PLSA")
    _add_corpus_args(p)
    p.add_argument("--measure", nargs="+", default=["c_v", "c_npmi", "u_mass"],
                   choices=["c_v", "c_npmi", "c_uci", "u_mass"], metavar="MEASURE",
                   help="one or more of c_v, c_npmi, c_uci, u_mass (default: c_v c_npmi u_mass; "
                        "c_v and c_npmi in [-1, 1], u_mass and c_uci log ratios, higher is "
                        "more coherent)")
    p.add_argument("--top-n", type=int, default=10, help="words per topic (default 10)")
    p.add_argument("--removed-words", choices=["keep", "drop"], default="keep",
                   help="--text, sliding windows: keep the positions of stop words and pruned "
                        "words (default, the library's; equals gensim's CoherenceModel on the "
                        "unfiltered tokenised texts) or drop them (equals CoherenceModel on the "
                        "filtered token lists)")
    p.add_argument("--diversity-top-n", type=int, default=25,
                   help="words per topic for topic diversity (default 25, as Dieng et al. 2020)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=_cmd_coherence)

    p = sub.add_parser("report", help="an interactive standalone HTML report of a saved topic "
                       "model (topic map, relevance bars, word search)")
    p.add_argument("path", help="model file (.npz) of a topic model (LDA, PLSA, fit dtm, fit "
                   "llda, fit dmr, ...)")
    p.add_argument("--out", required=True, metavar="REPORT.html", help="the HTML file to write")
    _add_corpus_args(p)
    p.add_argument("--words", type=int, default=30, help="bars per topic (default 30)")
    p.add_argument("--measure", default="c_v", choices=["c_v", "c_npmi", "c_uci", "u_mass",
                                                        "none"],
                   help="coherence shown per topic (default c_v; needs a corpus)")
    p.add_argument("--top-n", type=int, default=10, help="words per topic for coherence")
    p.add_argument("--n-docs", type=_positive_int, default=10, metavar="N",
                   help="typical documents listed per topic, duplicates shown once (default 10)")
    p.add_argument("--title-column", metavar="NAME", default=None,
                   help="column / key of a .csv / .tsv / .jsonl --text file that names the "
                        "documents (default: a 'title' column, else each document's first line)")
    add_report_meta_args(p)
    p.set_defaults(handler=_cmd_report)


def _positive_int(value):
    try:
        n = int(value)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {value!r}")
    return n


def _add_corpus_args(p):
    src = p.add_argument_group("reference corpus (one of)")
    src.add_argument("--dataset", default=None, action=_StoreDataset, help="bundled text corpus")
    p.set_defaults(dataset_given=False)
    src.add_argument("--data", metavar="PATH", help="a UCI docword file (with --vocab)")
    src.add_argument("--vocab", metavar="PATH", help="vocabulary file for --data")
    src.add_argument("--text", metavar="PATH",
                     help="raw texts (folder, .txt, .csv, .tsv, .jsonl, each may be .gz), "
                          "counted with the vectorizer saved in the model (fit with --text)")
    src.add_argument("--text-column", metavar="NAME", default=None,
                     help="column / key of the text in .csv / .tsv / .jsonl (default 'text')")


def _model_corpus(args, model):
    """The corpus named by --text / --dataset / --data for a saved topic model, or None."""
    if args.text is not None:
        if args.data is not None or args.dataset_given:
            raise CLIError("--text, --data and --dataset are alternatives; give one of them.")
        try:
            return load_texts_for(model, args.text, args.text_column)
        except ValueError as exc:
            if "no text settings" in str(exc):
                raise CLIError(f"{args.path}: the model was not fitted on raw texts (fit it "
                                   "with --text), so --text cannot be counted with its "
                                   "vocabulary; use --dataset or --data.") from None
            raise
    if args.data is None and args.dataset is None:
        return None
    corpus = load_input(args, "counts")
    width = (model.components_.shape[1] if getattr(model, "components_", None) is not None
             else model.n_features_in_)
    if corpus.data.shape[1] != width:
        raise CLIError(f"the corpus {corpus['name']!r} has {corpus.data.shape[1]} words but "
                           f"the model in {args.path} has {width}; pass the corpus it was "
                           "fitted on.")
    return corpus


def _load_topic_model(path, sliced=False):
    model = load(path)
    if sliced and getattr(model, "time_slices_", None) is not None:  # a DTM (report only)
        return model
    if getattr(model, "components_", None) is None or np.ndim(model.components_) != 2:
        raise CLIError(f"{path} holds a {type(model).__name__}, not a topic model "
                              "(LatentDirichletAllocation or PLSA).")
    return model


# ----------------------------------------------------------------------------- coherence

def _cmd_coherence(args, out):
    from ..topic import coherence, topic_diversity  # lazy: numba, ~2 s start-up

    check_before_work(args, ())
    model = _load_topic_model(args.path)
    corpus = _model_corpus(args, model)
    if corpus is None:
        raise CLIError("coherence needs a reference corpus: --text PATH, --dataset NAME "
                              "or --data PATH.")
    results = {m: coherence(model, corpus, m, top_n=args.top_n,
                            removed_words=args.removed_words) for m in args.measure}
    topics = next(iter(results.values())).topics
    try:
        diversity = topic_diversity(model, args.diversity_top_n)
    except ValueError as exc:
        raise CLIError(f"--diversity-top-n: {exc}") from None
    if args.json:
        out.write(json.dumps({
            "top_n": args.top_n, "topics": topics,
            "removed_words": args.removed_words,
            "diversity": {"top_n": args.diversity_top_n, "value": diversity},
            "measures": {m: {"per_topic": [float(v) for v in r.per_topic], "mean": r.mean,
                             "window_size": r.window_size, "token_streams": r.token_streams}
                         for m, r in results.items()}}) + "\n")
        return 0
    head = "  ".join(f"{m:>8}" for m in args.measure)
    shown = min(args.top_n, 8)
    words_note = (f"top {args.top_n} words" if shown >= args.top_n
                  else f"top {args.top_n} words, the first {shown} shown")
    out.write(f"coherence of {len(topics)} topics ({words_note}) on "
              f"{corpus.get('name', 'the corpus')}\n")
    streams = sorted({f"{m}: {r.token_streams}" + (f", windows of {r.window_size}"
                                                   if r.window_size else "")
                      for m, r in results.items()})
    out.write(f"counted on {'; '.join(streams)}\n")
    out.write(f"  topic  {head}  words\n")
    for k, words in enumerate(topics):
        vals = "  ".join(f"{results[m].per_topic[k]:>8.4f}" for m in args.measure)
        out.write(f"  {k:>5}  {vals}  {' '.join(map(str, words[:shown]))}\n")
    out.write(f"   mean  {'  '.join(f'{results[m].mean:>8.4f}' for m in args.measure)}\n")
    out.write(f"topic diversity (unique share of the top {args.diversity_top_n} words): "
              f"{diversity:.4f}\n")
    return 0


# ----------------------------------------------------------------------------- report

def _cmd_report(args, out):
    check_before_work(args, ("out",))
    from ..topic import topic_report  # lazy: numba, ~2 s start-up

    model = _load_topic_model(args.path, sliced=True)
    corpus, meta_kw = report_meta(args, model, _model_corpus(args, model))
    if args.title_column is not None:
        columns = corpus.get("metadata") if corpus is not None else None
        if not columns:
            raise CLIError("--title-column needs --text with a .csv, .tsv or .jsonl file (a table "
                           "with named columns).")
        if args.title_column not in columns:
            raise CLIError(f"--title-column {args.title_column!r}: no such column in "
                           f"{args.text} (columns: {', '.join(map(str, columns))}).")
    topic_report(model, corpus, args.out, n_words=args.words,
                 coherence_measure=None if args.measure == "none" else args.measure,
                 top_n=args.top_n, n_docs=args.n_docs, title_column=args.title_column,
                 **meta_kw)
    views = [v for k, v in (("times", "over time"), ("labels", "by label")) if k in meta_kw]
    n_topics = (model.components_.shape[0] if getattr(model, "components_", None) is not None
                else model.topic_means_.shape[1])
    out.write(f"wrote {args.out} ({n_topics} topics"
              + ("" if corpus is None else f", {corpus.data.shape[0]} documents")
              + "".join(f"; {v}" for v in views) + ")\n")
    return 0


