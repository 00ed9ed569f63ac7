"""LDA time-to-quality curves: latentkit (batch VB, random and spectral starts; SVI) against
tomotopy (collapsed Gibbs sampling), gensim (LdaMulticore) and BigARTM (ARTM with the two
smoothing regularisers, its LDA), held-out perplexity (and
``c_npmi`` coherence when ``latentkit.topic.coherence`` exists) against wall time.

Protocol
--------
* Corpora: KOS, NIPS and the Gutenberg paragraphs (``latentkit.datasets``); empty documents
  dropped; a fixed random 10% of the documents held out (seed 0); ``--max-docs`` subsamples
  the documents first for a quick run.
* K = 20 (``-k``), alpha = eta = 1/K for every method; tomotopy's hyper-parameter optimisation
  is switched off (``optim_interval = 0``). Two workers/threads for everyone: numba's thread
  pool for latentkit, ``workers=2`` for tomotopy and gensim.
* latentkit curves: ``cvb0_topics`` (100 sweeps of zero-order collapsed VB, Asuncion et al.
  2009, from the document-seeded start, ``init='documents'``) followed by batch VB started at
  its topics (``tol=0``), i.e. the default ``LatentDirichletAllocation`` fit with a snapshot
  after CVB0 sweeps 1, 2, 3, ... as well; the same from CVB0's random start
  (``init='random'``); the Python defaults as a user runs them (``init='auto'``, i.e. CVB0
  then VB, default ``tol``; one snapshot per VB iteration only); batch VB from the spectral
  start and from the random start, both with ``warmup_doc_update_iter=4`` (cheap first
  iterations) and ``tol=0`` (run until the budget, as tomotopy runs its iterations); batch VB
  from the random start (scikit-learn's) with the default caps and ``tol``; online VB (SVI,
  batches of 256, ``partial_fit``). tomotopy: snapshots after 1, 2, 5, 10, 20, 30, 50, 75,
  100, ... Gibbs iterations; gensim: after every M-step (``chunksize=2000``,
  ``iterations=50``); BigARTM: after every collection pass (``num_processors=2``, 4 batches,
  in its own virtual environment: ``benchmarks/_bigartm_peer.py``, ``--bigartm-python``).
* Every method is timed from the start of its fit (latentkit: validation and initialisation,
  spectral included; tomotopy: its first ``train`` call, which draws the initial assignments;
  gensim: the ``LdaMulticore`` constructor, worker processes included). Converting the count
  matrix to a peer's own corpus format (tomotopy ``add_doc``, gensim's bag-of-words lists) is
  **not** timed: that favours the peers. Taking a snapshot (copying the topics) is excluded
  from every clock. numba kernels are compiled (or loaded from the cache) before timing, and
  one untimed CVB0 sweep on each corpus warms the process (:func:`warm_up_corpus`).
* One evaluator for all (:func:`heldout_perplexity`): latentkit's per-document held-out bound
  (Hoffman, Blei & Bach 2010, section 4; ``lda_e_step`` at the snapshot's topics, no global KL
  term) with each method's topic-word Dirichlet parameters plugged in: latentkit's and gensim's
  lambda, tomotopy's and BigARTM's topic-word counts plus eta.
* Dominance: for every snapshot ``(t_p, q_p)`` of a peer, the ratio ``t_ours / t_p`` where
  ``t_ours`` is the first time latentkit's curve is within 1% of ``q_p``
  (``perplexity <= 1.01 q_p``); a ratio <= 1 at every snapshot means latentkit's curve is no
  worse than the peer's at every wall time. ``inf``: latentkit never gets there within its
  budget.
* ``c_npmi`` (when ``latentkit.topic.coherence`` exists): mean over topics of the NPMI of
  their top 10 words, co-occurrence counted per training document (the window is the whole
  document: these corpora have no word order).
* Methods run interleaved in one process (ours, a peer, ours, a peer ...), so the load of a
  shared machine falls on all of them; the script prints ``uptime`` at the start and the end.

Output: a table per corpus on stdout, ``lda_curve.json`` (every snapshot: time, perplexity,
coherence) and ``lda_curve.png`` in ``--out`` (default: the current directory).

tomotopy and gensim come from the ``test`` extra (``pip install "latentkit[test]"``); a peer
that is not installed is skipped with a message.

Run (full, a few minutes on 2 cores; reduced in seconds):

    python benchmarks/bench_lda_curve.py
    python benchmarks/bench_lda_curve.py --corpora kos --max-docs 1000 --budget 3
"""

import argparse
import json
import os
import subprocess
import sys
import time
import warnings

import numpy as np

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))
sys.path.insert(0, ROOT)  # run from a checkout
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # _bigartm_peer

CORPORA = ("kos", "nips", "gutenberg")
TOMOTOPY_ITERS = (1, 2, 5, 10, 20, 30, 50, 75, 100, 150, 200, 300, 400, 600, 800, 1000, 1500,
                  2000)


# ------------------------------------------------------------------------------ data and evaluator

def load_corpus(name, max_docs=None, seed=0):
    """Train/held-out CSR matrices (90/10 split of the non-empty documents) of a bundled corpus.

    Parameters
    ----------
    name : {'kos', 'nips', 'gutenberg'}
    max_docs : int, optional
        Keep a random subset of this many documents first (a quick run).
    seed : int

    Returns
    -------
    train, test : scipy.sparse.csr_matrix of shape (n_train, V), (n_test, V)
        float64 counts; no empty rows.
    """
    from latentkit import datasets

    if name == "kos":
        X = datasets.load_kos().data
    elif name == "nips":
        X = datasets.load_nips().data
    elif name == "gutenberg":
        X = datasets.load_gutenberg_novels(level="paragraph").data
    else:
        raise ValueError(f"corpus must be one of {CORPORA}, got {name!r}.")
    return split_documents(X, max_docs=max_docs, seed=seed)


def split_documents(X, max_docs=None, seed=0, test_fraction=0.1):
    """Drop empty rows, optionally subsample, and split the documents 90/10 at random."""
    import scipy.sparse as sp

    X = sp.csr_matrix(X, dtype=np.float64)
    X = X[np.flatnonzero(np.asarray(X.sum(axis=1)).ravel() > 0)]
    rng = np.random.default_rng(seed)
    if max_docs is not None and max_docs < X.shape[0]:
        X = X[np.sort(rng.choice(X.shape[0], max_docs, replace=False))]
    order = rng.permutation(X.shape[0])
    n_test = max(1, int(round(test_fraction * X.shape[0])))
    return X[np.sort(order[n_test:])], X[np.sort(order[:n_test])]


def heldout_perplexity(components, X_test, doc_topic_prior):
    """The one evaluator: per-document held-out bound of LDA at fixed topics.

    ``exp(-sum_d ELBO_d / n_tokens)`` with ``ELBO_d`` the local bound of document d (gamma
    and phi optimised by :func:`latentkit.topic.lda_e_step`, topics ``q(beta_k) =
    Dir(components_k)``), without the global ``-KL(q(beta) || p(beta))`` term; equal to
    ``LatentDirichletAllocation.perplexity(X_test, include_prior_kl=False)`` at the same
    ``components_``.

    Parameters
    ----------
    components : array-like of shape (n_components, n_features)
        Topic-word Dirichlet parameters (> 0; zeros are raised to 1e-300).
    X_test : scipy.sparse matrix of shape (n_documents, n_features)
        Held-out counts.
    doc_topic_prior : float
        alpha.

    Returns
    -------
    float
        Perplexity per token (lower is better).

    Notes
    -----
    Hoffman, Blei & Bach (2010), section 4; Blei, Ng & Jordan (2003), eq. (21).
    """
    from latentkit.topic import lda_e_step

    lam = np.maximum(np.asarray(components, dtype=np.float64), 1e-300)
    _, _, doc_elbo, _ = lda_e_step(X_test, lam, doc_topic_prior)
    return float(np.exp(-doc_elbo.sum() / X_test.sum()))


def tomotopy_components(model, n_features, eta):
    """Topic-word counts of a trained ``tomotopy.LDAModel`` plus eta, as a (K, V) array over
    the columns of the count matrix its documents were made from (words named ``str(column)``);
    words it never saw get eta alone. (tomotopy's ``get_topic_word_dist(k, normalize=False)``
    already includes eta.)"""
    cols = np.array([int(w) for w in model.used_vocabs], dtype=np.int64)
    lam = np.full((model.k, n_features), float(eta))
    for k in range(model.k):
        lam[k, cols] = np.asarray(model.get_topic_word_dist(k, normalize=False),
                                  dtype=np.float64)
    return lam


def _coherence_function():
    """``latentkit.topic.coherence`` when it exists (another branch adds it), else None."""
    try:
        from latentkit.topic import coherence
    except ImportError:
        return None
    return coherence


def npmi(coherence, components, X_ref, top_n=10):
    """Mean ``c_npmi`` coherence of the top ``top_n`` words of each topic on ``X_ref``.

    The corpora are bags of words (no word order), so the window is the whole document
    (``window_size`` = the longest document): NPMI of document co-occurrence."""
    ids = [list(map(int, row)) for row in np.argsort(-components, axis=1)[:, :top_n]]
    win = max(1, int(np.asarray(X_ref.sum(axis=1)).max()))
    try:
        return float(coherence(ids, X_ref, measure="c_npmi", top_n=top_n,
                               window_size=win).mean)
    except ValueError:  # a topic word absent from the reference corpus
        return None


# ------------------------------------------------------------------------------ runs

class Recorder:
    """Timestamps (excluding its own copying) and topic snapshots."""

    def __init__(self, budget):
        self.budget = budget
        self.times, self.snaps = [], []
        self.t0 = self.paused = 0.0

    def start(self):
        self.t0 = time.perf_counter()
        self.paused = 0.0

    def elapsed(self):
        return time.perf_counter() - self.t0 - self.paused

    def record(self, lam):
        t = time.perf_counter()
        self.times.append(t - self.t0 - self.paused)
        self.snaps.append(np.array(lam, dtype=np.float64, copy=True))
        self.paused += time.perf_counter() - t
        return self.times[-1] >= self.budget   # True: stop


def run_latentkit_batch(train, K, init, budget, max_iter, seed, **params):
    """Batch VB from ``init`` (a string of ``LatentDirichletAllocation``), one snapshot per
    iteration (after the start's own cost, e.g. the CVB0 sweeps of ``'auto'``). The
    spectral topics are a snapshot of their own (computed as ``fit(init='spectral')`` does,
    then handed over as ``init={'components': ...}``, the clock covering both); a random start
    is not (its topics are noise)."""
    from latentkit.topic import spectral_init_lda
    from latentkit.topic import LatentDirichletAllocation

    rec = Recorder(budget)
    rec.start()
    if init == "spectral":
        init = {"components": spectral_init_lda(train, K, 1.0 / K, 1.0 / K,
                                                random_state=seed)["components"]}
        rec.record(init["components"])
    m = LatentDirichletAllocation(K, init=init, max_iter=max_iter,
                                  random_state=seed,
                                  callback=lambda model, it, elbo: rec.record(model.components_),
                                  **params)
    with warnings.catch_warnings():   # stopping at the budget is the point, not a failure
        from latentkit.base import ConvergenceWarning
        warnings.simplefilter("ignore", ConvergenceWarning)
        m.fit(train)
    return rec


CVB0_SNAPSHOTS = (1, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 40, 50, 60, 70, 80, 90, 100)


def run_latentkit_cvb0(train, K, budget, max_iter, seed, n_sweeps=100, init="sequential"):
    """``cvb0_topics`` (``n_sweeps`` CVB0 passes; snapshots after the sweeps in
    ``CVB0_SNAPSHOTS``), then batch VB started at its topics (``tol=0``), one snapshot per
    iteration, until the budget."""
    from latentkit.base import ConvergenceWarning
    from latentkit.topic import LatentDirichletAllocation, cvb0_topics

    rec = Recorder(budget)
    rec.start()
    lam = cvb0_topics(train, K, 1.0 / K, 1.0 / K, n_sweeps=n_sweeps, random_state=seed,
                      init=init, callback=lambda s, c: (s in CVB0_SNAPSHOTS or s == n_sweeps)
                      and rec.record(c))
    if rec.elapsed() >= budget:
        return rec
    m = LatentDirichletAllocation(K, init={"components": lam}, max_iter=max_iter, tol=0,
                                  callback=lambda model, it, elbo: rec.record(model.components_))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        m.fit(train)
    return rec


def run_latentkit_svi(train, K, budget, max_iter, seed, batch_size=256, every=None):
    """Online VB (Hoffman et al. 2010, Algorithm 2) through ``partial_fit`` over shuffled
    minibatches, exactly the steps of ``StochasticVI(LatentDirichletAllocation(K))``, with a snapshot every
    ``every`` steps (default: ten per epoch)."""
    from latentkit.topic import LatentDirichletAllocation

    N = train.shape[0]
    bs = min(batch_size, N)
    n_batches = int(np.ceil(N / bs))
    every = every or max(1, n_batches // 10)
    rec = Recorder(budget)
    m = LatentDirichletAllocation(K, total_samples=N, random_state=seed)
    rng = np.random.default_rng(seed)
    rec.start()
    t = 0
    for _ in range(max_iter):
        perm = rng.permutation(N)
        for b in range(n_batches):
            m.partial_fit(train[np.sort(perm[b * bs:(b + 1) * bs])])
            t += 1
            if t % every == 0 and rec.record(m.components_):
                return rec
    return rec


def run_tomotopy(train, K, budget, seed, workers=2):
    import tomotopy as tp

    m = tp.LDAModel(k=K, alpha=1.0 / K, eta=1.0 / K, seed=seed)
    m.optim_interval = 0   # keep alpha = eta = 1/K fixed
    warnings.filterwarnings("ignore", "The training result may differ", RuntimeWarning)
    indptr, indices, data = train.indptr, train.indices, train.data.astype(np.int64)
    for d in range(train.shape[0]):
        words = []
        for w, c in zip(indices[indptr[d]:indptr[d + 1]], data[indptr[d]:indptr[d + 1]]):
            words.extend([str(w)] * int(c))
        m.add_doc(words)
    rec = Recorder(budget)
    done = 0
    rec.start()
    for target in TOMOTOPY_ITERS:
        m.train(target - done, workers=workers)
        done = target
        t = time.perf_counter()
        lam = tomotopy_components(m, train.shape[1], 1.0 / K)
        rec.paused += time.perf_counter() - t
        if rec.record(lam):
            break
    return rec


def run_gensim(train, K, budget, seed, workers=2, chunksize=2000, passes=100):
    import logging

    from gensim.matutils import Sparse2Corpus
    from gensim.models import LdaModel, LdaMulticore

    logging.getLogger("gensim").setLevel(logging.ERROR)
    corpus = list(Sparse2Corpus(train, documents_columns=False))
    id2word = {i: str(i) for i in range(train.shape[1])}
    rec = Recorder(budget)
    orig = LdaModel.do_mstep

    class Stop(Exception):
        pass

    def do_mstep(self, rho, other, extra_pass=False):
        out = orig(self, rho, other, extra_pass)
        if rec.record(self.state.get_lambda()):
            raise Stop
        return out

    LdaModel.do_mstep = do_mstep
    try:
        rec.start()
        LdaMulticore(corpus=corpus, id2word=id2word, num_topics=K, alpha=np.full(K, 1.0 / K),
                     eta=1.0 / K, workers=workers, passes=passes,
                     chunksize=min(chunksize, train.shape[0]), iterations=50,
                     gamma_threshold=1e-3, eval_every=None, random_state=seed,
                     dtype=np.float64)
    except Stop:
        pass
    finally:
        LdaModel.do_mstep = orig
    return rec


def throughput(train, K, seed=0, repeats=5):
    """Tokens per second on one core: a CVB0 sweep, a VB E-step (per coordinate-ascent sweep
    of a document, at topics after 20 CVB0 sweeps) and a tomotopy Gibbs iteration (1 worker).

    Returns
    -------
    dict
        ``{'cvb0': ..., 'vb_e_step': ..., 'tomotopy': ...}`` in tokens per second (token
        updates, counts included), tomotopy only when installed.
    """
    import numba

    from latentkit.topic import cvb0_topics, lda_e_step

    n_tok = float(train.sum())
    before = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        t = time.perf_counter()
        lam = cvb0_topics(train, K, n_sweeps=20, random_state=seed)
        out = {"cvb0": 20 * n_tok / (time.perf_counter() - t)}
        lengths = np.asarray(train.sum(axis=1)).ravel()
        t = time.perf_counter()
        _, _, _, n_iter = lda_e_step(train, lam, 1.0 / K)
        out["vb_e_step"] = float(lengths @ n_iter) / (time.perf_counter() - t)
    finally:
        numba.set_num_threads(before)
    if _available("tomotopy"):
        import tomotopy as tp

        m = tp.LDAModel(k=K, alpha=1.0 / K, eta=1.0 / K, seed=seed)
        m.optim_interval = 0
        for d in range(train.shape[0]):
            row = train[d]
            m.add_doc([str(w) for w, c in zip(row.indices, row.data) for _ in range(int(c))])
        m.train(1, workers=1)
        t = time.perf_counter()
        m.train(repeats, workers=1)
        out["tomotopy"] = repeats * n_tok / (time.perf_counter() - t)
    return out


def _available(module):
    try:
        __import__(module)
    except ImportError:
        print(f"  {module} is not installed (it comes with the test extra: "
              f"pip install 'latentkit[test]'); skipped.")
        return False
    return True


# ------------------------------------------------------------------------------ analysis

def first_time_within(times, perp, target, rel=0.01):
    """First time at which ``perp <= (1 + rel) * target`` (inf if never)."""
    hit = np.flatnonzero(np.asarray(perp) <= (1.0 + rel) * target)
    return float(np.asarray(times)[hit[0]]) if hit.size else np.inf


def dominance(ours, peer, rel=0.01):
    """For each peer snapshot (t_p, q_p): (t_p, q_p, t_ours, t_ours / t_p)."""
    rows = []
    for t_p, q_p in zip(peer["times"], peer["perplexity"]):
        t_o = first_time_within(ours["times"], ours["perplexity"], q_p, rel)
        rows.append((t_p, q_p, t_o, t_o / t_p if t_p > 0 else np.inf))
    return rows


def _uptime():
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    except OSError:  # pragma: no cover
        return "uptime unavailable"


def warm_up(K):
    """Compile (or load from numba's cache) every latentkit kernel the runs use."""
    import scipy.sparse as sp

    from latentkit.topic import LatentDirichletAllocation, cvb0_topics

    rng = np.random.default_rng(0)
    X = sp.csr_matrix(rng.poisson(1.0, size=(60, 40)).astype(float))
    with warnings.catch_warnings():   # compiling only: unconverged / degenerate is fine
        warnings.simplefilter("ignore")
        for init in ("random", "spectral"):
            LatentDirichletAllocation(3, init=init, max_iter=2, random_state=0).fit(X)
    LatentDirichletAllocation(K, total_samples=60, random_state=0).partial_fit(X[:20])
    for init in ("sequential", "documents", "random"):
        cvb0_topics(X, 3, n_sweeps=2, random_state=0, init=init)
    # start numba's thread pool (a one-off cost of the process, ~60 ms; the small corpus above
    # runs its sweeps on one thread) with a parallel kernel
    from latentkit._kernels import cvb0

    cvb0.rows_by_word(np.zeros(4, dtype=np.int64), np.ones((1, 2)), np.empty((4, 2)))
    # (no untimed tomotopy call here: its worker threads keep two cores busy for ~0.1 s after
    # train() returns, which slowed the first latentkit run after it from 0.03 to 0.11 s)


def warm_up_corpus(train, K):
    """One untimed CVB0 sweep on the corpus. The first large allocation of a process (the
    responsibilities, nnz x K doubles) sometimes costs 40-80 ms more than the later ones
    (measured on KOS: first snapshot at 0.07-0.10 s instead of 0.025 s in 2 of 4 fresh
    processes); the latentkit methods run first, so without this the process's first-touch
    cost fell on them and never on the peers, which run in an already warm process."""
    from latentkit.topic import cvb0_topics

    cvb0_topics(train, K, n_sweeps=1, random_state=0)


def add_corpus_arguments(ap):
    """--corpora, --max-docs and -k (shared with bench_plsa_curve.py)."""
    ap.add_argument("--corpora", default=",".join(CORPORA),
                    help="comma-separated subset of kos,nips,gutenberg")
    ap.add_argument("--max-docs", type=int, default=None, help="subsample documents first")
    ap.add_argument("-k", type=int, default=20, help="topics (default 20)")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_corpus_arguments(ap)
    ap.add_argument("--budget", type=float, default=None,
                    help="seconds per method and corpus (default: 15 for KOS, 45 for NIPS, "
                         "30 for Gutenberg)")
    ap.add_argument("--max-iter", type=int, default=200,
                    help="batch iterations / SVI epochs cap (default 200)")
    ap.add_argument("--methods",
                    default="cvb0,cvb0r,defaults,spectral,random,random0,svi,tomotopy,gensim,"
                            "bigartm",
                    help="comma-separated subset of cvb0 (latentkit.topic.cvb0_topics, 100 "
                         "sweeps from seed documents, then batch VB from its topics), cvb0r "
                         "(the same from CVB0's random start), defaults (the Python defaults: "
                         "init='auto', i.e. CVB0 then VB), spectral (spectral start, "
                         "warmup_doc_update_iter=4, tol=0), random (random start, "
                         "warmup_doc_update_iter=4, tol=0), random0 (init='random', default caps "
                         "and tol), "
                         "spectral0 "
                         "(spectral start, default E-step caps), svi (online VB), tomotopy, "
                         "gensim, bigartm (with --bigartm-python) (default: all but spectral0)")
    ap.add_argument("--out", default=".", help="folder for lda_curve.json and lda_curve.png")
    ap.add_argument("--no-coherence", action="store_true", help="skip c_npmi")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--bigartm-python", default=None, metavar="PYTHON",
                    help="interpreter of BigARTM's own virtual environment (default "
                         "$LATENTKIT_BIGARTM_PYTHON; none: BigARTM is skipped); see "
                         "benchmarks/_bigartm_peer.py")
    ap.add_argument("--throughput", action="store_true",
                    help="print tokens per second on one core (CVB0 sweep, VB E-step, "
                         "tomotopy iteration) per corpus, then stop")
    args = ap.parse_args(argv)
    import numba

    numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
    K = args.k
    alpha = 1.0 / K
    methods = args.methods.split(",")
    default_budget = {"kos": 15.0, "nips": 45.0, "gutenberg": 30.0}
    coh = None if args.no_coherence else _coherence_function()
    print(f"uptime at start: {_uptime()}")
    why = "--no-coherence" if args.no_coherence else "latentkit.topic.coherence missing"
    print(f"K={K}, alpha=eta=1/K, numba threads {numba.get_num_threads()}, peers 2 workers; "
          f"c_npmi coherence: {'yes' if coh else f'no ({why})'}")
    warm_up(K)
    from _bigartm_peer import bigartm_python, bigartm_version, run_bigartm

    artm_py = bigartm_python(args.bigartm_python) if "bigartm" in methods else None
    have = {"tomotopy": "tomotopy" in methods and _available("tomotopy"),
            "gensim": "gensim" in methods and _available("gensim"),
            "bigartm": artm_py is not None and bigartm_version(artm_py) is not None}
    if "bigartm" in methods and artm_py is None:
        print("  BigARTM: no --bigartm-python (or $LATENTKIT_BIGARTM_PYTHON); skipped.")
    runners = {
        "latentkit CVB0 + VB": lambda tr, b: run_latentkit_cvb0(tr, K, b, args.max_iter,
                                                                args.seed),
        "latentkit CVB0 random start + VB": lambda tr, b: run_latentkit_cvb0(
            tr, K, b, args.max_iter, args.seed, init="random"),
        "latentkit defaults": lambda tr, b: run_latentkit_batch(tr, K, "auto", b,
                                                                args.max_iter, args.seed),
        "latentkit VB spectral": lambda tr, b: run_latentkit_batch(
            tr, K, "spectral", b, args.max_iter, args.seed, warmup_doc_update_iter=4, tol=0),
        "tomotopy": lambda tr, b: run_tomotopy(tr, K, b, args.seed),
        "latentkit VB random": lambda tr, b: run_latentkit_batch(
            tr, K, "random", b, args.max_iter, args.seed, warmup_doc_update_iter=4, tol=0),
        "gensim LdaMulticore": lambda tr, b: run_gensim(tr, K, b, args.seed),
        "BigARTM": lambda tr, b: _recorded(*run_bigartm(artm_py, tr, K, b, args.seed)),
        "latentkit VB random, default tol": lambda tr, b: run_latentkit_batch(
            tr, K, "random", b, args.max_iter, args.seed),
        "latentkit SVI": lambda tr, b: run_latentkit_svi(tr, K, b, args.max_iter, args.seed),
        "latentkit VB spectral, no warm-up": lambda tr, b: run_latentkit_batch(
            tr, K, "spectral", b, args.max_iter, args.seed),
    }
    wanted = {"latentkit CVB0 + VB": "cvb0" in methods,
              "latentkit CVB0 random start + VB": "cvb0r" in methods,
              "latentkit defaults": "defaults" in methods,
              "latentkit VB spectral": "spectral" in methods,
              "latentkit VB spectral, no warm-up": "spectral0" in methods,
              "latentkit VB random": "random" in methods,
              "latentkit VB random, default tol": "random0" in methods,
              "latentkit SVI": "svi" in methods,
              "tomotopy": have["tomotopy"], "gensim LdaMulticore": have["gensim"],
              "BigARTM": have["bigartm"]}
    if args.throughput:
        for name in args.corpora.split(","):
            rates = throughput(load_corpus(name, args.max_docs, args.seed)[0], K, args.seed)
            print(f"{name}: tokens/s on one core: " + ", ".join(
                f"{k} {v / 1e6:.1f} M" for k, v in rates.items()))
        return None
    results = {"k": K, "alpha": alpha, "eta": alpha, "uptime_start": _uptime(), "corpora": {}}
    for name in args.corpora.split(","):
        train, test = load_corpus(name, args.max_docs, args.seed)
        budget = args.budget if args.budget is not None else default_budget[name]
        print(f"\n== {name}: train {train.shape[0]} docs, held out {test.shape[0]} docs, "
              f"V={train.shape[1]}, {int(train.sum())} training tokens; budget {budget:g} s")
        curves = {}
        warm_up_corpus(train, K)
        for label, run in runners.items():
            if not wanted[label]:
                continue
            rec = run(train, budget)
            perp = [heldout_perplexity(lam, test, alpha) for lam in rec.snaps]
            cur = {"times": [float(t) for t in rec.times], "perplexity": perp}
            if coh is not None:
                cur["c_npmi"] = [npmi(coh, lam, train) for lam in rec.snaps]
            curves[label] = cur
            step = max(1, len(perp) // 15)
            pts = ", ".join(f"{t:.2f}s:{p:.0f}"
                            for t, p in list(zip(cur["times"], perp))[::step])
            print(f"  {label:22s} best {min(perp):8.1f}  [{pts}]", flush=True)
        results["corpora"][name] = {"n_train": int(train.shape[0]),
                                    "n_test": int(test.shape[0]),
                                    "n_features": int(train.shape[1]), "curves": curves}
        report_dominance(name, curves, results["corpora"][name])
    print(dominance_markdown(results))
    results["uptime_end"] = _uptime()
    print(f"\nuptime at end: {results['uptime_end']}")
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "lda_curve.json"), "w") as f:
        json.dump(results, f, indent=1, default=lambda v: None if not np.isfinite(v) else v)
    plot(results, os.path.join(args.out, "lda_curve.png"))
    print(f"wrote {os.path.join(args.out, 'lda_curve.json')} and lda_curve.png")
    return results


PEERS = ("tomotopy", "gensim LdaMulticore", "BigARTM")


def _recorded(times, snaps):
    """A :class:`Recorder` holding a peer's snapshots taken in another process."""
    rec = Recorder(None)
    rec.times, rec.snaps = times, snaps
    return rec


def report_dominance(name, curves, store):
    """Print and store, for each latentkit curve and each peer, the time ratio latentkit / peer
    to reach each of the peer's snapshot qualities (within 1%)."""
    store["dominance"] = {}
    for ours in [c for c in curves if c.startswith("latentkit")]:
        for peer in [p for p in PEERS if p in curves]:
            rows = dominance(curves[ours], curves[peer])
            store["dominance"][f"{ours} / {peer}"] = [list(map(float, r)) for r in rows]
            worst = max(r[3] for r in rows)
            print(f"  {ours} vs {peer}: worst time ratio {worst:.2f} "
                  f"({'dominates' if worst <= 1.0 else 'does not dominate'})")
            step = max(1, len(rows) // 15)
            print("    (peer perplexity @ peer time: time ratio) " + ", ".join(
                f"{q:.0f}@{tp:.2f}s:{ratio:.2f}" for tp, q, _, ratio in rows[::step]))


def dominance_markdown(results):
    """Markdown tables: for each peer, one row per peer snapshot (time, perplexity) and one
    column per latentkit curve with the time ratio latentkit / peer to get within 1% of it."""
    out = []
    for peer in PEERS:
        ours = sorted({k.split(" / ")[0] for r in results["corpora"].values()
                       for k in r.get("dominance", {}) if k.endswith(" / " + peer)})
        if not ours:
            continue
        out.append(f"\nTime ratio latentkit / {peer} to reach each {peer} snapshot's held-out "
                   "perplexity (within 1%; inf: not reached in the budget)\n")
        out.append("| corpus | " + peer + " time (s) | perplexity | " + " | ".join(ours) + " |")
        out.append("|---|---|---|" + "---|" * len(ours))
        for name, r in results["corpora"].items():
            tables = [r.get("dominance", {}).get(f"{o} / {peer}") for o in ours]
            first = next((t for t in tables if t), None)
            if first is None:
                continue
            for i, (t_p, q_p, _, _) in enumerate(first):
                cells = ["" if t is None else f"{t[i][3]:.2f}" for t in tables]
                out.append(f"| {name} | {t_p:.2f} | {q_p:.0f} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def plot(results, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover
        print("matplotlib is missing: no PNG.")
        return
    names = list(results["corpora"])
    has_coh = any("c_npmi" in c for r in results["corpora"].values()
                  for c in r["curves"].values())
    rows = 2 if has_coh else 1
    fig, axes = plt.subplots(rows, len(names), figsize=(5 * len(names), 4 * rows),
                             squeeze=False)
    for j, name in enumerate(names):
        for label, cur in results["corpora"][name]["curves"].items():
            style = "-" if label.startswith("latentkit") else "--"
            axes[0, j].plot(cur["times"], cur["perplexity"], style, marker=".", label=label)
            if has_coh and "c_npmi" in cur:
                c = [np.nan if v is None else v for v in cur["c_npmi"]]
                axes[1, j].plot(cur["times"], c, style, marker=".", label=label)
        ax = axes[0, j]
        ax.set_xscale("log")
        best = min(min(c["perplexity"]) for c in results["corpora"][name]["curves"].values())
        ax.set_ylim(best * 0.98, best * 1.6)
        ax.set_title(f"{name}: held-out perplexity (K={results['k']})")
        ax.set_xlabel("wall time (s)")
        ax.legend(fontsize=7)
        if has_coh:
            axes[1, j].set_xscale("log")
            axes[1, j].set_title(f"{name}: c_npmi coherence")
            axes[1, j].set_xlabel("wall time (s)")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


if __name__ == "__main__":
    main()
