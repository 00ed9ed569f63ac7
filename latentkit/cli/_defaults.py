"""One set of defaults: the ``--init`` choices of each ``latentkit fit`` model, with the
library's own default stated in ``--help``.

A CLI option that maps to a model parameter has ``default=None`` and is passed to the model only
when given (``_common._given``), so its default is the class's; its help states that default,
read here from the class signature (without importing the numba model code at start-up: the
values are written out and checked against the classes by ``tests/cli/test_cli_defaults.py``).
"""

__all__ = ["INIT_CHOICES", "INIT_DEFAULTS", "init_help"]

#: ``fit <model>`` -> the ``init`` strings its estimator takes.
INIT_CHOICES = {
    "lda": ("auto", "cvb0", "random", "spectral"),
    "hdp": ("random", "cvb0"),
    "plsa": ("random", "spectral", "documents"),
    "gmm": ("kmeans++", "random", "spectral"),
    "vgmm": ("kmeans++", "random", "spectral"),
    "dpmm": ("kmeans++", "random", "spectral"),
    "hmm": ("random", "kmeans++", "spectral"),
    "hsmm": ("random", "kmeans++"),
    "arhmm": ("kmeans++", "random"),
    "iohmm": ("kmeans++", "random"),
    "dmm": ("spectral", "collapsed", "seeded", "random"),
    "btm": ("seeded", "random", "spectral"),
    "dtm": ("lda", "spectral", "random"),
    "llda": ("random",),
    "dmr": ("random",),
}

#: ``fit <model>`` -> the estimator's default ``init`` (the class's; the HMM's depends on the
#: emission: the Gaussian and GMM HMMs start from k-means++, the categorical and Poisson HMMs
#: at random).
INIT_DEFAULTS = {
    "lda": "auto", "hdp": "random", "plsa": "random", "gmm": "kmeans++", "vgmm": "kmeans++", "dpmm": "kmeans++",
    "hmm": "kmeans++ for gaussian and gmm emissions, random for categorical and poisson",
    "hsmm": "random", "arhmm": "kmeans++", "iohmm": "kmeans++",
    "dmm": "spectral", "btm": "seeded",
    "dtm": "lda",
    "llda": "random",
    "dmr": "random",
}

_INIT_NOTES = {
    "lda": "auto: CVB0 sweeps (cvb0) for batch VB, random for --method svi; spectral: "
           "method-of-moments start (latentkit.spectral)",
    "plsa": "spectral: method-of-moments start (latentkit.spectral); documents: topics seeded "
            "with K documents (with --doc-iter 5 --doc-start uniform, BigARTM's scheme)",
    "hdp": "cvb0: LDA's CVB0 topics (keeps most of the -k topics; see "
           "HierarchicalDirichletProcess)",
    "hmm": "spectral: method-of-moments start for categorical, poisson and diag/spherical "
           "gaussian emissions",
    "hsmm": "kmeans++: Gaussian means / Poisson rates at k-means++ seeds; durations near "
            "geometric",
    "arhmm": "one M-step from k-means++ (hard) or random (Dirichlet) responsibilities",
    "iohmm": "Gaussian means at k-means++ seeds or random rows; transition coefficients 0",
    "dmm": "spectral: single-topic method of moments (falls back to seeded); collapsed: 20 "
           "CVB0 sweeps of GSDMM's collapsed conditional; seeded: documents on the nearest of "
           "K k-means++ seed documents; random: documents on random topics",
    "btm": "seeded: each biterm on its document's topic among K k-means++ seed documents; "
           "random: biterms on random topics; spectral: the DMM's single-topic method of "
           "moments (falls back to seeded)",
    "dtm": "lda: LDA on all the documents, its topics at every slice (as Blei & Lafferty)",
    "llda": "random: Gamma(100, 1/100) topic weights (LDA's)",
    "dmr": "random: Gamma(100, 1/100) topic weights (LDA's), alpha = 1/K for every document",
}


def init_help(model):
    """The ``--init`` help of ``fit <model>``: choices, the library's default, notes."""
    note = _INIT_NOTES.get(model, "spectral: method-of-moments start with a split-and-merge "
                                  "search (latentkit.spectral)")
    return (f"initialisation: {', '.join(INIT_CHOICES[model])} (default "
            f"{INIT_DEFAULTS[model]}, the library's); {note}")
