"""``latentkit fit lda --init spectral --private``: the differentially private spectral LDA
(:class:`latentkit.spectral.PrivateSpectralLDA`), with the privacy spent and the noise check in
the report."""

import warnings

import numpy as np

from .._utils.words import top_words
from ._common import CLIError, FitResult, _finite, _given
from ._private_text import private_counts

__all__ = ["run_private_spectral_lda"]


def run_private_spectral_lda(args, progress):
    """``fit lda --init spectral --private``: :class:`~latentkit.spectral.PrivateSpectralLDA`.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "docword.txt")
    >>> rows = ["6", "4", "12", "1 1 3", "1 2 2", "2 1 4", "2 2 1", "3 2 3", "3 1 1",
    ...         "4 3 3", "4 4 2", "5 3 4", "5 4 1", "6 4 3", "6 3 1"]  # D, W, NNZ; doc word count
    >>> with open(path, "w") as f:
    ...     print(*rows, sep=os.linesep, file=f)
    >>> from latentkit.cli import Progress, build_parser
    >>> from latentkit.cli.fit_private import run_private_spectral_lda
    >>> args = build_parser().parse_args(["fit", "lda", "--data", path, "-k", "2", "--init",
    ...                                   "spectral", "--private", "--epsilon", "1",
    ...                                   "--delta", "1e-5"])
    >>> result = run_private_spectral_lda(args, Progress(None, enabled=False))
    >>> result.n_samples, type(result.model).__name__
    (6, 'PrivateSpectralLDA')
    >>> print(result.lines[1])
    privacy     neighbouring relation: one document (neighbouring corpora differ in one document's
    content); whole pipeline spends epsilon = 1 at delta = 1e-05 (422 Gaussian releases, analytic
    accounting)
    """
    from ..spectral import PrivacyNoiseWarning, PrivateSpectralLDA  # lazy: numba, ~2 s start-up

    if args.init not in (None, "spectral"):
        raise CLIError(f"--private needs --init spectral (or --method svi), got --init "
                       f"{args.init}.")
    corpus = private_counts(args)  # --text: over a public vocabulary
    X, vocab = corpus.data, corpus.vocabulary
    # PrivateSpectralLDA has no default n_components: LatentDirichletAllocation's (10) is used
    k = 10 if args.n_components is None else args.n_components
    model = PrivateSpectralLDA(k, args.epsilon, args.delta, neighbouring=args.neighbouring,
                               n_words=args.n_words, accountant=args.accountant,
                               random_state=args.seed,
                               **_given(doc_topic_prior=args.doc_topic_prior))
    with progress, warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyNoiseWarning)  # printed below instead
        model.fit(X)
    model.feature_names_in_ = np.asarray(vocab, dtype=str)
    rep = model.privacy_report_
    top = top_words(model.components_, list(vocab), args.top)
    n_docs, n_words = X.shape
    doc = args.neighbouring == "document"
    relation = ("one document (neighbouring corpora differ in one document's content)" if doc
                else "one symmetric unit entry of the whitened moment tensor (Wang & "
                     "Anandkumar 2016); protects NO document")
    noisy = int(model.noise_dominated_.sum())
    lines = [
        f"data        {corpus['name']}: {n_docs} documents x {n_words} words",
        f"privacy     neighbouring relation: {relation}; whole pipeline spends "
        f"epsilon = {rep['epsilon']:.4g} at delta = {args.delta:g} "
        f"({rep['n_releases']} Gaussian releases, {args.accountant} accounting)",
        f"model       private spectral LDA (k={k}, "
        f"alpha_0={float(np.sum(model.doc_topic_prior_)):.4g}, "
        f"L={model.n_init}, R={model.max_iter}"
        + (f", {model.selected_words_.size} words chosen by private frequency)" if doc else ")"),
        f"  bounds    same releases: Renyi-DP epsilon = {rep['epsilon_rdp']:.4g}, exact "
        f"(analytic) = {rep['epsilon_analytic']:.4g}, paper's advanced rule = "
        f"{rep['epsilon_advanced']:.4g}",
    ]
    if not doc:
        lines.append("  note      the whitening and moments come from the raw corpus without "
                     "noise: use --neighbouring document to protect documents")
    lines.append(
        f"noise       {noisy} of {k} topics noise-dominated (noise >= |eigenvalue|/sqrt(k), "
        f"Wang & Anandkumar 2016 Thm 2.2)"
        + (f"; second moment noise-dominated (k-th eigenvalue {model.m2_eigenvalues_[-1]:.3g} "
           f"<= noise norm {model.m2_noise_norm_:.3g})" if model.m2_noise_dominated_ else "")
        + ("; THE TOPICS BELOW ARE MOSTLY NOISE" if noisy or model.m2_noise_dominated_ else ""))
    lines.append(f"top {args.top} words per topic (words of probability zero are not listed):")
    lines += [f"  topic {i}: " + (" ".join(w) if w else "(no word with positive probability)")
              for i, w in enumerate(top)]
    summary = {"n_features": n_words, "topics": top,
               "privacy": {k_: _finite(v) if isinstance(v, float) else v
                           for k_, v in rep.items()},
               "accountant": args.accountant, "neighbouring": args.neighbouring,
               "noise_dominated": [bool(b) for b in model.noise_dominated_],
               "m2_noise_dominated": bool(model.m2_noise_dominated_)}
    return FitResult(model, summary, lines, n_docs, plot_data={"vocabulary": list(vocab)})

