"""The ``latentkit coherence``, ``report``, ``select`` and ``datasets export`` commands.

Thin argument plumbing over :mod:`latentkit.topic` (coherence, report), :mod:`latentkit.selection`
and :func:`latentkit.datasets.export_gutenberg_texts`; registered by ``latentkit.cli``.
"""

import json
import os

import numpy as np

__all__ = ["add_commands", "run_datasets_export", "add_export_args"]


def _cli():
    from . import cli

    return cli


def _add_corpus_args(p, default_dataset=None, text_options=False):
    cli = _cli()
    src = p.add_argument_group("reference corpus (one of)")
    src.add_argument("--dataset", default=default_dataset, action=cli._StoreDataset,
                     help="bundled text corpus" + (f" (default {default_dataset})"
                                                   if default_dataset else ""))
    p.set_defaults(dataset_given=False)
    src.add_argument("--data", metavar="PATH", help="a UCI docword file (with --vocab)")
    src.add_argument("--vocab", metavar="PATH", help="vocabulary file for --data")
    if text_options:
        cli._add_text_args(p)
    else:
        src.add_argument("--text", metavar="PATH",
                         help="raw texts (folder, .txt, .csv, .jsonl), counted with the "
                              "vectorizer saved in the model (fit with --text)")
        src.add_argument("--text-column", metavar="NAME", default=None,
                         help="column / key of the text in .csv / .jsonl (default 'text')")


def _model_corpus(args, model):
    """The corpus named by --text / --dataset / --data for a saved topic model, or None."""
    cli = _cli()
    if args.text is not None:
        if args.data is not None or args.dataset_given:
            raise cli.CLIError("--text, --data and --dataset are alternatives; give one of them.")
        from .text import load_texts_for

        try:
            return load_texts_for(model, args.text, args.text_column)
        except ValueError as exc:
            if "no text settings" in str(exc):
                raise cli.CLIError(f"{args.path}: the model was not fitted on raw texts (fit it "
                                   "with --text), so --text cannot be counted with its "
                                   "vocabulary; use --dataset or --data.") from None
            raise
    if args.data is None and args.dataset is None:
        return None
    corpus = cli.load_input(args, "counts")
    width = model.components_.shape[1]
    if corpus.data.shape[1] != width:
        raise cli.CLIError(f"the corpus {corpus['name']!r} has {corpus.data.shape[1]} words but "
                           f"the model in {args.path} has {width}; pass the corpus it was "
                           "fitted on.")
    return corpus


def _load_topic_model(path):
    from .io import load

    model = load(path)
    if getattr(model, "components_", None) is None or np.ndim(model.components_) != 2:
        raise _cli().CLIError(f"{path} holds a {type(model).__name__}, not a topic model "
                              "(LatentDirichletAllocation or PLSA).")
    return model


# ----------------------------------------------------------------------------- coherence

def _cmd_coherence(args, out):
    from .topic import coherence

    model = _load_topic_model(args.path)
    corpus = _model_corpus(args, model)
    if corpus is None:
        raise _cli().CLIError("coherence needs a reference corpus: --text PATH, --dataset NAME "
                              "or --data PATH.")
    results = {m: coherence(model, corpus, m, top_n=args.top_n) for m in args.measure}
    topics = next(iter(results.values())).topics
    if args.json:
        out.write(json.dumps({
            "top_n": args.top_n, "topics": topics,
            "measures": {m: {"per_topic": [float(v) for v in r.per_topic], "mean": r.mean,
                             "window_size": r.window_size} for m, r in results.items()}}) + "\n")
        return 0
    head = "  ".join(f"{m:>8}" for m in args.measure)
    out.write(f"coherence of {len(topics)} topics (top {args.top_n} words) on "
              f"{corpus.get('name', 'the corpus')}\n")
    out.write(f"  topic  {head}  words\n")
    for k, words in enumerate(topics):
        vals = "  ".join(f"{results[m].per_topic[k]:>8.4f}" for m in args.measure)
        out.write(f"  {k:>5}  {vals}  {' '.join(map(str, words[:8]))}\n")
    out.write(f"   mean  {'  '.join(f'{results[m].mean:>8.4f}' for m in args.measure)}\n")
    return 0


# ----------------------------------------------------------------------------- report

def _cmd_report(args, out):
    model = _load_topic_model(args.path)
    corpus = _model_corpus(args, model)
    folder = os.path.dirname(os.path.abspath(args.out))
    if not os.path.isdir(folder):
        raise _cli().CLIError(f"--out {args.out!r}: the folder {folder!r} does not exist.")
    model.report(args.out, corpus, n_words=args.words,
                 coherence_measure=None if args.measure == "none" else args.measure,
                 top_n=args.top_n)
    out.write(f"wrote {args.out} ({model.components_.shape[0]} topics"
              + ("" if corpus is None else f", {corpus.data.shape[0]} documents") + ")\n")
    return 0


# ----------------------------------------------------------------------------- select

def _cmd_select(args, out):
    from .selection import parse_k_range, select_n_components

    cli = _cli()
    ks = parse_k_range(args.k)
    params = {}
    if args.max_iter is not None:
        params["max_iter"] = args.max_iter
    lengths = None
    if args.kind == "lda":
        X = cli._load_text_corpus(args) if args.text is not None else cli.load_input(args,
                                                                                   "counts")
        name = X["name"]
    elif args.kind in ("gmm", "vgmm"):
        bunch = cli.load_input(args, "matrix")
        X, name = bunch.data, bunch["name"]
        params["covariance_type"] = args.covariance_type or "full"
    else:
        bunch = cli.load_input(args, "sequence")
        X = np.asarray(bunch.data)
        X = X.reshape(-1, 1) if X.ndim == 1 else X
        lengths, name = bunch.get("lengths"), bunch["name"]
        emission = args.emission
        if emission is None:
            integer = X.dtype.kind in "iu" or bool(np.all(X == np.round(X)))
            emission = ("categorical" if bunch.get("alphabet") is not None else
                        "poisson" if integer else "gaussian")
        params["emission"] = emission
        if emission == "gaussian":
            X = X.astype(np.float64)
            params["covariance_type"] = args.covariance_type or "diag"
    sel = select_n_components(args.kind, X, ks, lengths=lengths, heldout=args.heldout,
                              random_state=args.seed, progress=not args.quiet,
                              model_params=params)
    if args.plot:
        sel.plot(args.plot)
    if args.json:
        obj = sel.to_dict()
        obj["data"] = name
        if args.plot:
            obj["plot"] = args.plot
        out.write(json.dumps(obj) + "\n")
        return 0
    out.write(f"select {args.kind} on {name}: K in {ks}, held-out fraction {args.heldout}, "
              f"seed {args.seed}\n")
    out.write(sel.to_text() + "\n")
    if args.plot:
        out.write(f"plot        {args.plot}\n")
    return 0


def _add_select_args(p, kind):
    cli = _cli()
    default = {"lda": "kos", "gmm": "old_faithful", "vgmm": "old_faithful",
               "hmm": "earthquakes"}[kind]
    src = p.add_argument_group("data (one of)")
    src.add_argument("--dataset", default=default, action=cli._StoreDataset,
                     help=f"bundled data set (default {default})")
    p.set_defaults(dataset_given=False, kind=kind)
    src.add_argument("--data", metavar="PATH",
                     help="a UCI docword file (lda) or a CSV of numbers")
    src.add_argument("--vocab", metavar="PATH", help="vocabulary file for --data docword")
    if kind == "lda":
        cli._add_text_args(p)
    else:
        p.set_defaults(text=None)
    p.add_argument("-k", required=True, metavar="START:STOP[:STEP]|K1,K2,...",
                   help="the numbers of components to try, e.g. 5:50:5 (inclusive)")
    p.add_argument("--heldout", type=float, default=0.1,
                   help="fraction of documents / samples / sequences held out (default 0.1)")
    p.add_argument("--seed", type=int, default=0, help="seed of the split and every fit")
    p.add_argument("--max-iter", type=int, default=None, help="maximum iterations per fit")
    if kind in ("gmm", "vgmm", "hmm"):
        p.add_argument("--covariance-type", default=None,
                       choices=["full", "tied", "diag", "spherical"])
    if kind == "hmm":
        p.add_argument("--emission", default=None, choices=["categorical", "poisson", "gaussian"])
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--plot", metavar="FILE.png", help="save the curves with the chosen K marked")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


# ----------------------------------------------------------------------------- datasets export

def add_export_args(p):
    """Options of ``latentkit datasets export``."""
    p.add_argument("name", nargs="?", default=None,
                   help="with 'export': the data set to write as raw text (gutenberg_novels)")
    p.add_argument("--out", metavar="PATH", help="export: the .jsonl file or the folder to write")
    p.add_argument("--format", choices=["jsonl", "folder"], default=None,
                   help="export: JSON lines or a folder of .txt files (default: from --out, "
                        "jsonl when it ends in .jsonl)")
    p.add_argument("--level", choices=["paragraph", "chapter", "book"], default="paragraph",
                   help="export: one document per paragraph (default), chapter or book")
    p.add_argument("--books", nargs="+", metavar="ID", default=None,
                   help="export: book ids (default all)")


def run_datasets_export(args, out):
    """``latentkit datasets export gutenberg_novels --out PATH``."""
    from .datasets import export_gutenberg_texts

    cli = _cli()
    if args.name != "gutenberg_novels":
        raise cli.CLIError(f"datasets export writes gutenberg_novels as raw text; got "
                           f"{args.name!r}.")
    if not args.out:
        raise cli.CLIError("datasets export needs --out PATH (a .jsonl file or a new folder).")
    fmt = args.format or ("jsonl" if str(args.out).endswith((".jsonl", ".ndjson")) else "folder")
    n = export_gutenberg_texts(args.out, format=fmt, level=args.level, books=args.books)
    out.write(f"wrote {n} {args.level}s of gutenberg_novels to {args.out} ({fmt})\n")
    return 0


# ----------------------------------------------------------------------------- registration

def add_commands(sub):
    """Add coherence, report and select to the ``latentkit`` subparsers; return their
    handlers by command name."""
    p = sub.add_parser("coherence", help="coherence of a saved topic model's topics "
                       "(c_v, c_npmi, u_mass; as gensim's CoherenceModel)")
    p.add_argument("path", help="model file (.npz) of a LatentDirichletAllocation or PLSA")
    _add_corpus_args(p)
    p.add_argument("--measure", nargs="+", default=["c_v", "c_npmi", "u_mass"],
                   choices=["c_v", "c_npmi", "c_uci", "u_mass"])
    p.add_argument("--top-n", type=int, default=10, help="words per topic (default 10)")
    p.add_argument("--json", action="store_true", help="print one JSON object")

    p = sub.add_parser("report", help="an interactive standalone HTML report of a saved topic "
                       "model (topic map, relevance bars, word search)")
    p.add_argument("path", help="model file (.npz) of a LatentDirichletAllocation or PLSA")
    p.add_argument("--out", required=True, metavar="REPORT.html", help="the HTML file to write")
    _add_corpus_args(p)
    p.add_argument("--words", type=int, default=30, help="bars per topic (default 30)")
    p.add_argument("--measure", default="c_v", choices=["c_v", "c_npmi", "c_uci", "u_mass",
                                                        "none"],
                   help="coherence shown per topic (default c_v; needs a corpus)")
    p.add_argument("--top-n", type=int, default=10, help="words per topic for coherence")

    p = sub.add_parser("select", help="choose the number of components: fit each K and "
                       "compare held-out fit, coherence / BIC")
    kinds = p.add_subparsers(dest="kind_name", metavar="MODEL")
    kinds.required = True
    helps = {"lda": "LDA: held-out perplexity, c_npmi, u_mass per K",
             "gmm": "Gaussian mixture: BIC, AIC, held-out log-likelihood per K",
             "vgmm": "variational Gaussian mixture: BIC, AIC, held-out log-likelihood per K",
             "hmm": "hidden Markov model: BIC, AIC, held-out log-likelihood per K"}
    for kind, text in helps.items():
        _add_select_args(kinds.add_parser(kind, help=text, description=text), kind)
    return {"coherence": _cmd_coherence, "report": _cmd_report, "select": _cmd_select}
