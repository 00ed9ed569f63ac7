"""Hardware bounds of the benchmarks' main kernels, shared by every headline benchmark (issue 46).

Each benchmark prints, beside its peer ratio, the throughput of its main kernel as a fraction
of a bound derived here (the derivations are in ``docs/guide/benchmarks.md``, "Fraction of the
bound"):

* the **float64 FMA peak of one core**, measured on this machine as the best of a few
  ``numpy`` matrix products with OpenBLAS limited to one thread (:func:`core_peak`);
  the GMM E-step is compared with the **2-core GEMM rate at the benchmark's own shapes**
  (:func:`gemm_rate`);
* the **floating-point operations per unit of work** of each kernel's inner loop
  (:data:`FLOPS_PER_UPDATE`), counted from the kernel's source: a bound in units per second is
  ``core_peak() / FLOPS_PER_UPDATE[kernel]``. The inner loops read their operands from L1/L2
  (a word's K topic values, one HMM step's K x K transition matrix), so the FMA peak, not
  memory bandwidth, is the binding roof; each kernel's bytes per update are in the docs;
* the **kernel's measured throughput** on one thread, by calling the numba kernel of
  ``latentkit._kernels`` directly on the benchmark's data (:func:`lda_vb_rate`,
  :func:`cvb0_rate`, :func:`hmm_rate`, :func:`hdp_rate`).

Only numpy, threadpoolctl, numba and ``latentkit._kernels`` are used (the model classes above
the kernels are not needed), so the numbers do not move when the Python code above changes.
"""

import math
import os
import platform
import time

import numpy as np

#: Floating-point operations per unit of work of each kernel's inner loop (FMA = 2 flops).
#: ``lda_vb``: one (token, topic, sweep) of ``latentkit._kernels.topic._sweep_block`` (and
#: ``_sweep``, the asymmetric prior's): the phinorm dot product (1 FMA) and the gamma
#: accumulation (1 FMA). ``cvb0``: one (entry, topic, sweep) of
#: ``latentkit._kernels.cvb0._sweep_doc``: the document count (1 FMA), own count (1 mul),
#: two removals and two prior additions (4 add), two products (2 mul), the floor (1 compare),
#: the normaliser (1 add), the scaled value (1 mul), the count update (1 sub + 1 FMA): 15.
#: ``hmm``: one (time step, state pair) of the scaled forward-backward: forward product (1 FMA),
#: backward product (1 mul + 1 add) and the transition counts (1 FMA): 6.
#: ``hdp``: one (entry, atom, corpus topic, sweep) of ``latentkit._kernels.hdp.hdp_e_step``:
#: the zeta product ``E varphi^T`` (1 FMA) and the varphi product ``(n zeta)^T E`` (1 FMA): 4.
FLOPS_PER_UPDATE = {"lda_vb": 4.0, "cvb0": 15.0, "hmm": 6.0, "hdp": 4.0}

_PEAK = {}


def machine_info():
    """One line: the CPU model, the OpenBLAS version and kernel (``OPENBLAS_CORETYPE`` if set),
    numba's thread count and the load average."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    blas = "BLAS unknown"
    try:
        from threadpoolctl import threadpool_info

        found = sorted({f"{i.get('internal_api')} {i.get('version')} kernel "
                        f"{i.get('architecture')}" for i in threadpool_info()
                        if i.get("user_api") == "blas"})
        blas = ", ".join(found) or blas
    except Exception:  # threadpoolctl missing: the header says so
        pass
    core = os.environ.get("OPENBLAS_CORETYPE")
    if core:
        blas += f" (OPENBLAS_CORETYPE={core})"
    try:
        import numba

        threads = numba.get_num_threads()
    except Exception:
        threads = "?"
    load = " ".join(f"{v:.2f}" for v in os.getloadavg())
    return f"CPU {cpu}; {blas}; numba threads {threads}; load {load}"


def _best_time(fn, reps, min_time, warmup=None):
    """Best of ``reps`` timings of ``fn``, each repeated until it lasts ``min_time`` seconds,
    after one untimed call of ``warmup`` (default ``fn``: compiles, fills the caches)."""
    (warmup or fn)()
    best = math.inf
    for _ in range(reps):
        n = 0
        t0 = time.perf_counter()
        while True:
            fn()
            n += 1
            dt = time.perf_counter() - t0
            if dt >= min_time:
                break
        best = min(best, dt / n)
    return best


def gemm_rate(m, k, n, threads=1, reps=10, min_time=0.03):
    """float64 flop/s of ``numpy.matmul`` of an (m, k) by a (k, n) matrix with OpenBLAS limited
    to ``threads`` threads, best of ``reps`` (2 m k n flops per product; on a loaded machine
    the best of many short runs is the one least disturbed by other processes)."""
    from threadpoolctl import threadpool_limits

    rng = np.random.default_rng(0)
    a = rng.standard_normal((m, k))
    b = rng.standard_normal((k, n))
    out = np.empty((m, n))
    with threadpool_limits(limits=threads, user_api="blas"):
        t = _best_time(lambda: np.matmul(a, b, out=out), reps, min_time)
    return 2.0 * m * k * n / t


def core_peak(size=768):
    """The float64 FMA peak of one core, flop/s: :func:`gemm_rate` of a square product on one
    thread (cached per process; ``size`` 768 keeps it near a second on a loaded machine)."""
    if size not in _PEAK:
        _PEAK[size] = gemm_rate(size, size, size, threads=1)
    return _PEAK[size]


def kernel_bound(kernel):
    """Units per second one core could do at its FMA peak: ``core_peak() / flops per unit``."""
    return core_peak() / FLOPS_PER_UPDATE[kernel]


def fraction_line(label, rate, bound, unit, how):
    """The line every benchmark prints: ``rate`` against ``bound`` (both per second)."""
    return (f"{label}: {rate / 1e6:.1f} M {unit}/s = {100.0 * rate / bound:.1f}% of the bound "
            f"{bound / 1e6:.0f} M {unit}/s ({how})")


def kernel_fraction(kernel, label, rate, unit):
    """:func:`fraction_line` against :func:`kernel_bound` of ``kernel``."""
    peak = core_peak()
    how = (f"1-core float64 peak {peak / 1e9:.1f} GFLOP/s / "
           f"{FLOPS_PER_UPDATE[kernel]:g} flops per update")
    return fraction_line(label, rate, peak / FLOPS_PER_UPDATE[kernel], unit, how)


# --------------------------------------------------------------------------------------------
# the kernels' throughput on one thread, from latentkit._kernels directly
# --------------------------------------------------------------------------------------------

def _csr(X):
    import scipy.sparse as sp

    X = sp.csr_matrix(X, dtype=np.float64)
    return (X.indptr.astype(np.int64), X.indices.astype(np.int64),
            np.ascontiguousarray(X.data, dtype=np.float64))


def _serial(fn):
    """Run ``fn`` with numba limited to one thread (restored afterwards)."""
    import numba

    old = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        return fn()
    finally:
        numba.set_num_threads(old)


def lda_vb_rate(X, components, alpha, max_iter=100, tol=1e-3, reps=3):
    """(token, topic, sweep) updates per second of the LDA VB E-step kernel
    (``latentkit._kernels.topic.lda_e_step``) over all documents of ``X`` at the topics
    ``q(beta) = Dir(components)``, one thread, best of ``reps``. Returns (rate, sweeps per
    document on average)."""
    from scipy.special import psi

    from latentkit._kernels import topic as kt

    indptr, indices, data = _csr(X)
    lam = np.asarray(components, dtype=np.float64)
    K, D = lam.shape[0], indptr.shape[0] - 1
    elog = (psi(lam) - psi(lam.sum(axis=1, keepdims=True))).T
    shift = elog.max(axis=1)
    bt = np.ascontiguousarray(np.exp(elog - shift[:, None]))
    gamma, theta = np.empty((D, K)), np.empty((D, K))
    ratio, elbo = np.empty(data.shape[0]), np.empty(D)
    n_iter = np.empty(D, dtype=np.int64)

    def run(d1=D):
        kt.lda_e_step(0, d1, indptr, indices, data, bt, shift, float(alpha), gamma, False,
                      int(max_iter), float(tol), theta, ratio, elbo, n_iter)

    t = _serial(lambda: _best_time(run, reps, 0.0, lambda: run(min(D, 2))))
    nnz_d = np.diff(indptr)
    updates = float(np.sum(n_iter * nnz_d)) * K
    return updates / t, float(n_iter.mean())


def cvb0_rate(X, n_components, alpha, eta, sweeps=2, seed=0):
    """(entry, topic, sweep) updates per second of the CVB0 sweep kernel
    (``latentkit._kernels.cvb0.cvb0_sweep``) over all documents of ``X`` from random
    responsibilities, one thread, best of ``sweeps`` sweeps."""
    from latentkit._kernels import cvb0 as kc

    indptr, indices, data = _csr(X)
    K, D, V = int(n_components), indptr.shape[0] - 1, X.shape[1]
    phi = np.random.default_rng(seed).dirichlet(np.ones(K), size=data.shape[0])
    nwk = np.zeros((V, K))
    kc.cvb0_topic_word(indices, data, phi, nwk)
    nk = nwk.sum(axis=0)
    ndk = np.empty((D, K))
    counts = np.empty((V, K))  # the block's topic-word counts (one block: all documents)

    def run():
        kc.cvb0_sweep(0, D, indptr, indices, data, phi, nwk, nk, float(alpha), float(eta), V,
                      ndk, counts)

    t = _serial(lambda: _best_time(run, sweeps, 0.0))
    return data.shape[0] * K / t


def hmm_rate(frame, startprob, transmat, lengths, reps=3):
    """(time step, state pair) updates per second of the scaled forward-backward kernel
    (``latentkit._kernels.hmm.forward_backward_scaled_serial``) on the emission likelihoods
    ``frame`` (n_samples, K), one thread, best of ``reps``."""
    from latentkit._kernels import hmm as kh

    frame = np.ascontiguousarray(frame, dtype=np.float64)
    n, K = frame.shape
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    S = offsets.shape[0] - 1
    log_offset = np.zeros(n)
    gamma, log_scale = np.empty((n, K)), np.empty(n)
    xi, ll = np.empty((S, K, K)), np.empty(S)
    A = np.ascontiguousarray(transmat, dtype=np.float64)
    pi = np.ascontiguousarray(startprob, dtype=np.float64)

    def run():
        kh.forward_backward_scaled_serial(frame, log_offset, pi, A, offsets, gamma, log_scale,
                                          xi, ll)

    t = _serial(lambda: _best_time(run, reps, 0.0))
    return n * K * K / t


def hdp_rate(X, components, elog_beta, alpha, n_atoms, max_iter=100, tol=1e-3, reps=1):
    """(entry, atom, corpus topic, sweep) updates per second of the HDP document E-step kernel
    (``latentkit._kernels.hdp.hdp_e_step``) at the topics ``q(phi) = Dir(components)`` (T, V)
    and corpus weights ``elog_beta`` (T,), ``n_atoms`` document atoms, cold start, one thread.
    Returns (rate, sweeps per document on average)."""
    from scipy.special import psi

    from latentkit._kernels import hdp as kh

    indptr, indices, data = _csr(X)
    lam = np.asarray(components, dtype=np.float64)
    T, D, K = lam.shape[0], indptr.shape[0] - 1, int(n_atoms)
    elog_t = np.ascontiguousarray((psi(lam) - psi(lam.sum(axis=1, keepdims=True))).T)
    eb = np.ascontiguousarray(elog_beta, dtype=np.float64)
    varphi, sticks = np.empty((D, K, T)), np.empty((D, 2, K))
    zeta, elbo = np.empty((data.shape[0], K)), np.empty(D)
    n_iter = np.empty(D, dtype=np.int64)

    def run(d1=D):
        kh.hdp_e_step(0, d1, indptr, indices, data, elog_t, eb, float(alpha), varphi, sticks,
                      False, int(max_iter), float(tol), zeta, elbo, n_iter)

    t = _serial(lambda: _best_time(run, reps, 0.0, lambda: run(min(D, 2))))
    updates = float(np.sum(n_iter * np.diff(indptr))) * K * T
    return updates / t, float(n_iter.mean())
