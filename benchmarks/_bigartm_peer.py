"""BigARTM (Vorontsov et al. 2015) as a peer of the topic-model benchmarks, run in its own
virtual environment.

BigARTM 0.9.2 pins ``protobuf==3.20.3``, ``numpy<2`` and ``pandas<2.3``, which conflict with
latentkit's environment, so it cannot be imported next to latentkit. It runs in a child
process of the interpreter of its own virtual environment (this file, executed as a script
there), made once with

    python -m venv ~/artm-venv
    ~/artm-venv/bin/pip install bigartm==0.9.2 six "protobuf==3.20.3" "numpy<2" "pandas<2.3"

and named by ``--bigartm-python ~/artm-venv/bin/python`` (or ``LATENTKIT_BIGARTM_PYTHON``).

Protocol (the parent side, :func:`run_bigartm`):

* the training counts go to the child as a Vowpal Wabbit text file (``doc word:count ...``,
  words named by their column), which BigARTM cuts into batches of ``ceil(D / 4)`` documents:
  4 batches, 2 per thread of ``num_processors=2`` (BigARTM is parallel over batches). Writing
  the file and building the batches are **not** timed (as tomotopy's ``add_doc``);
* ``artm.ARTM(num_topics=K, num_processors=2, seed=...)``; for LDA with
  ``SmoothSparsePhiRegularizer(tau=eta)`` and ``SmoothSparseThetaRegularizer(tau=alpha)``
  (BigARTM's LDA: ``phi_wt`` proportional to ``n_wt + eta``, a MAP fit), for PLSA without
  regularisers (BigARTM's PLSA, Hofmann 1999); ``num_document_passes`` at its default (10);
* one ``fit_offline(num_collection_passes=1)`` per snapshot; the clock runs over the fits only
  (reading the topic-word matrix for a snapshot is excluded); stops after the pass that
  crosses the time budget or after ``max_passes``;
* a snapshot is the topic-word counts ``n_wt`` (LDA: the evaluator gets ``n_wt + eta``, the
  Dirichlet parameters of ``phi``, as tomotopy's counts + eta) or ``p(w | t)`` (PLSA), as a
  (K, V) array over the count matrix's columns (words the batches never saw: 0 counts).

BigARTM writes log files (``bigartm.*``) into its working directory: the child runs in a
temporary folder, removed afterwards.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

ENV_VAR = "LATENTKIT_BIGARTM_PYTHON"


def bigartm_python(path=None):
    """The BigARTM interpreter: ``path``, else ``$LATENTKIT_BIGARTM_PYTHON``, else None."""
    path = path or os.environ.get(ENV_VAR)
    return path or None


def bigartm_version(python):
    """``artm.version()`` in that interpreter, or None (with the reason printed) when it fails."""
    try:
        out = subprocess.run([python, "-c", "import artm; print(artm.version())"],
                             capture_output=True, text=True, timeout=120,
                             cwd=tempfile.gettempdir())
    except (OSError, subprocess.TimeoutExpired) as exc:
        print(f"  BigARTM: {python} does not run ({exc}); skipped.")
        return None
    if out.returncode != 0:
        print(f"  BigARTM: `import artm` fails in {python}: "
              f"{out.stderr.strip().splitlines()[-1:]}; skipped.")
        return None
    return out.stdout.strip()


def _write_vw(X, path):
    indptr, indices, data = X.indptr, X.indices, X.data
    with open(path, "w") as f:
        for d in range(X.shape[0]):
            s, e = indptr[d], indptr[d + 1]
            f.write(f"d{d} " + " ".join(f"{w}:{int(round(c))}"
                                        for w, c in zip(indices[s:e], data[s:e])) + "\n")


def run_bigartm(python, train, K, budget, seed=0, model="lda", alpha=None, eta=None,
                max_passes=200, workers=2, batches_per_worker=2):
    """Fit BigARTM on ``train`` in its own interpreter; return its snapshots.

    Parameters
    ----------
    python : str
        The interpreter of BigARTM's virtual environment.
    train : scipy.sparse.csr_matrix of shape (n_documents, n_features)
        Integer counts (no empty documents).
    K : int
        Topics.
    budget : float
        Seconds of fitting after which no further pass starts.
    seed : int
    model : {'lda', 'plsa'}
        With the two smoothing regularisers (``tau = eta``, ``tau = alpha``) or without any.
    alpha, eta : float
        Priors of the LDA fit (default 1 / K).
    max_passes : int
        Collection passes at most.
    workers, batches_per_worker : int
        ``num_processors`` and batches per processor.

    Returns
    -------
    times : list of float
        Seconds of fitting at each snapshot.
    snaps : list of ndarray of shape (K, n_features)
        LDA: ``n_wt + eta``; PLSA: ``p(w | t)`` (rows sum to 1).
    """
    alpha = 1.0 / K if alpha is None else alpha
    eta = 1.0 / K if eta is None else eta
    work = tempfile.mkdtemp(prefix="lk_bigartm_")
    try:
        _write_vw(train, os.path.join(work, "train.vw"))
        n_batches = workers * batches_per_worker
        spec = {"K": int(K), "budget": float(budget), "seed": int(seed), "model": model,
                "alpha": float(alpha), "eta": float(eta), "max_passes": int(max_passes),
                "workers": int(workers),
                "batch_size": int(-(-train.shape[0] // n_batches)),
                "n_features": int(train.shape[1])}
        with open(os.path.join(work, "spec.json"), "w") as f:
            json.dump(spec, f)
        subprocess.run([python, os.path.abspath(__file__), work], cwd=work, check=True,
                       stdout=subprocess.DEVNULL)
        out = np.load(os.path.join(work, "snaps.npz"))
        return [float(t) for t in out["times"]], list(out["snaps"])
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _child(work):
    """In BigARTM's interpreter: batches, fits, snapshots to ``work/snaps.npz``."""
    import artm  # noqa: F401 (BigARTM's environment only)

    spec = json.load(open(os.path.join(work, "spec.json")))
    bv = artm.BatchVectorizer(data_path=os.path.join(work, "train.vw"),
                              data_format="vowpal_wabbit",
                              target_folder=os.path.join(work, "batches"),
                              batch_size=spec["batch_size"])
    regs = []
    if spec["model"] == "lda":
        regs = [artm.SmoothSparsePhiRegularizer(name="phi", tau=spec["eta"]),
                artm.SmoothSparseThetaRegularizer(name="theta", tau=spec["alpha"])]
    V, K = spec["n_features"], spec["K"]
    times, snaps = [], []
    t0 = time.perf_counter()
    paused = 0.0
    model = artm.ARTM(num_topics=K, num_processors=spec["workers"], dictionary=bv.dictionary,
                      seed=spec["seed"], regularizers=regs)
    for _ in range(spec["max_passes"]):
        model.fit_offline(bv, num_collection_passes=1)
        t = time.perf_counter()
        times.append(t - t0 - paused)
        if spec["model"] == "lda":
            tab = model.get_phi(model_name=model.model_nwt)
            lam = np.full((K, V), spec["eta"])
            lam[:, tab.index.astype(np.int64)] += tab.values.T
        else:
            tab = model.get_phi()
            lam = np.zeros((K, V))
            lam[:, tab.index.astype(np.int64)] = tab.values.T
        snaps.append(lam)
        paused += time.perf_counter() - t
        if times[-1] >= spec["budget"]:
            break
    np.savez(os.path.join(work, "snaps.npz"), times=np.array(times), snaps=np.array(snaps))


if __name__ == "__main__":
    _child(sys.argv[1])
