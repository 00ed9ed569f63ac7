"""Mutation check: do the tests catch plausible bugs in the core?

A fixed list of hand-made mutants (each one small, plausible bug in the library: a constant
halved, a term dropped, an index transposed, a check removed). For each mutant the script

1. copies the package (``latentkit/``), the tests (``tests/``) and ``pyproject.toml`` into a
   fresh temporary folder (compiled files and numba caches left out),
2. applies the mutant to the copy (an exact text replacement that must match once; a mutant
   whose text is no longer in the source is reported ``stale``, never silently skipped),
3. runs the mutant's own test files there, ``python -m pytest -q -x -p no:cacheprovider``, with a
   fresh, empty ``NUMBA_CACHE_DIR`` (no kernel compiled from other source is reused),

and prints ``killed`` (the tests failed; with the first failing test) or ``survived`` (they
passed), then the kill ratio.
Before the mutants, the same test files run once on an unmutated copy (the baseline): a
failure there makes every kill meaningless, so the script stops.

Run it on demand from the repository root (it is not part of the test suite; about 15 minutes
on 2 cores, most of it numba compiling kernels into the fresh caches)::

    python tools/mutation_check.py            # every mutant
    python tools/mutation_check.py --list     # the mutants and their test files
    python tools/mutation_check.py --only hmm_transposed_transition io_digest_without_bytes

Exit status: 0 when the baseline passes (whatever the ratio), 1 when it fails, 2 for a stale
mutant. The ratio and the command are in docs/guide/testing.md.

Source of the method: DeMillo, Lipton & Sayward (1978), "Hints on test data selection", IEEE
Computer 11(4); the list follows the review of issue 33.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COPIED = ("latentkit", "tests", "pyproject.toml")


@dataclass(frozen=True)
class Mutant:
    """One plausible bug: replace ``old`` (must occur exactly once in ``path``) by ``new``."""

    name: str
    path: str
    old: str
    new: str
    tests: tuple
    what: str


MUTANTS = (
    # the properties of issue 33 (each has a test written for it)
    Mutant("private_lda_power_sensitivity_halved", "latentkit/spectral/_private_lda.py",
           "return 2.0 * omega * np.max(np.abs(W @ Ub), axis=0) ** 2 / n_hat",
           "return 1.0 * omega * np.max(np.abs(W @ Ub), axis=0) ** 2 / n_hat",
           ("tests/spectral/test_private_sensitivity_search.py",
            "tests/spectral/test_private_lda.py", "tests/spectral/test_privacy.py"),
           "the stage-3 power-step sensitivity of PrivateSpectralLDA halved"),
    Mutant("private_lda_eval_sensitivity_halved", "latentkit/spectral/_private_lda.py",
           "return 2.0 * np.max(np.abs(W @ Ub), axis=0) ** 3 / n_hat",
           "return 1.0 * np.max(np.abs(W @ Ub), axis=0) ** 3 / n_hat",
           ("tests/spectral/test_private_sensitivity_search.py",
            "tests/spectral/test_private_lda.py", "tests/spectral/test_privacy.py"),
           "the stage-3 eigenvalue sensitivity of PrivateSpectralLDA halved"),
    Mutant("private_lda_stage1_sensitivity_one", "latentkit/spectral/_private_lda.py",
           "acc.record(_SQRT2, sig1)", "acc.record(1.0, sig1)",
           ("tests/spectral/test_private_sensitivity_search.py",
            "tests/spectral/test_private_lda.py", "tests/spectral/test_private_lda_empirical.py"),
           "stage 1 recorded with sensitivity 1 instead of sqrt 2"),
    Mutant("private_gmm_power_sensitivity_halved", "latentkit/spectral/_private_gmm.py",
           "return 2.0 * w2 * R ** 3 * np.linalg.norm(W @ Ub, axis=0) ** 2 / n",
           "return w2 * R ** 3 * np.linalg.norm(W @ Ub, axis=0) ** 2 / n",
           ("tests/spectral/test_private_sensitivity_search.py",
            "tests/spectral/test_private_gmm.py"),
           "the stage-3 power-step sensitivity of PrivateSpectralGMM halved"),
    Mutant("private_gmm_stage1_sensitivity_halved", "latentkit/spectral/_private_gmm.py",
           "acc.record(2.0 * R, sig1)", "acc.record(R, sig1)",
           ("tests/spectral/test_private_sensitivity_search.py",
            "tests/spectral/test_private_gmm.py"),
           "PrivateSpectralGMM stage 1 recorded with sensitivity R instead of 2R"),
    Mutant("tensor_entry_constant_halved", "latentkit/spectral/_private_power.py",
           "DEFAULT_SENSITIVITY_CONSTANT = 6.0", "DEFAULT_SENSITIVITY_CONSTANT = 3.0",
           ("tests/spectral/test_private_sensitivity_search.py",
            "tests/spectral/test_private_power.py"),
           "the tensor-entry sensitivity constant of WA16 Thm 4.1 halved (6 -> 3)"),
    Mutant("private_noise_from_seed", "latentkit/spectral/_private_power.py",
           "return np.random.default_rng(np.random.SeedSequence())",
           "return np.random.default_rng(0)",
           ("tests/spectral/test_private_seeds.py", "tests/spectral/test_private_power.py"),
           "privacy noise reproducible (a fixed seed instead of OS entropy)"),
    # issue 40 item 8: every clip of the stochastic private fits, doubled, and the secrets
    Mutant("private_svi_mixture_clip_doubled", "latentkit/mixture/_private_svi.py",
           "t *= np.minimum(1.0, clip / np.where(norms > 0, norms, 1.0))[:, None]",
           "t *= np.minimum(1.0, 2.0 * clip / np.where(norms > 0, norms, 1.0))[:, None]",
           ("tests/privacy/test_private_svi_leaks.py",),
           "the private mixtures' statistics clip doubled (binds only below its default)"),
    Mutant("private_svi_mixture_radius_doubled", "latentkit/mixture/_private_svi.py",
           "U * (radius / np.where(nu > 0, nu, 1.0))[:, None]",
           "U * (2.0 * radius / np.where(nu > 0, nu, 1.0))[:, None]",
           ("tests/privacy/test_private_svi_leaks.py",),
           "the private mixtures' row radius doubled"),
    Mutant("private_svi_lda_clip_doubled", "latentkit/topic/_private_svi.py",
           "np.minimum(1.0, clip / norms) if math.isfinite(clip)",
           "np.minimum(1.0, 2.0 * clip / norms) if math.isfinite(clip)",
           ("tests/privacy/test_private_svi_leaks.py",),
           "private SVI LDA's document clip doubled"),
    Mutant("dp_sgd_clip_doubled", "latentkit/neural/_private.py",
           "weights = np.minimum(1.0, clip_norm / norms)",
           "weights = np.minimum(1.0, 2.0 * clip_norm / norms)",
           ("tests/neural/test_private_vae_leaks.py",),
           "the DP-SGD per-example clip doubled"),
    Mutant("dp_sgd_nan_norm_passes", "latentkit/neural/_private.py",
           "if not finite.all():", "if False:",
           ("tests/neural/test_private_vae_leaks.py",),
           "a non-finite per-example gradient passes the clip (weight NaN instead of 0)"),
    Mutant("dp_sgd_samples_from_seed", "latentkit/neural/_private.py",
           "X, rng = data.X, self._noise_rng", "X, rng = data.X, self._rng",
           ("tests/neural/test_private_vae_leaks.py",),
           "DP-SGD's Poisson samples drawn from random_state (replayable from the seed)"),
    Mutant("private_lda_no_length_bound", "latentkit/spectral/_private_lda.py",
           "(np.isfinite(ell) & (ell <= MAX_DOCUMENT_LENGTH))", "(ell == ell)",
           ("tests/spectral/test_private_edges.py", "tests/spectral/test_private_lda.py"),
           "documents of unbounded (or infinite) length accepted"),
    Mutant("accounting_advanced_out_of_range", "latentkit/spectral/_accounting.py",
           "        if any(e >= 1.0 for e, _ in eps_i):\n            return math.inf\n"
           "        if method == \"advanced\":",
           "        if method == \"advanced\":",
           ("tests/spectral/test_private_edges.py", "tests/spectral/test_privacy.py",
            "tests/spectral/test_privacy_analytic.py"),
           "advanced composition applied outside the classical mechanism's range"),
    Mutant("accounting_analytic_mu", "latentkit/spectral/_accounting.py",
           "return analytic_gaussian_epsilon(math.sqrt(2.0 * rho), delta)",
           "return analytic_gaussian_epsilon(math.sqrt(rho), delta)",
           ("tests/spectral/test_privacy_analytic.py", "tests/spectral/test_private_edges.py"),
           "the exact accountant's total mu under-counted by sqrt 2"),
    Mutant("missing_full_drops_conditional_covariance",
           "latentkit/distributions/_missing_conditional.py",
           "                                    + rw.sum(axis=0)[:, None, None] * cond_cov)",
           "                                    )",
           ("tests/distributions/test_missing_stats_oracle.py",
            "tests/mixture/test_missing.py"),
           "NumPy missing-data second moment without the conditional covariance (full, tied)"),
    Mutant("missing_diag_drops_conditional_variance",
           "latentkit/distributions/_missing_conditional.py",
           "extra = mass * (means_c ** 2 + 1.0 / prec)", "extra = mass * means_c ** 2",
           ("tests/distributions/test_missing_stats_oracle.py",
            "tests/mixture/test_missing.py"),
           "NumPy missing-data second moment without the conditional variance (diag, "
           "spherical)"),
    Mutant("relevance_lambda_swapped", "latentkit/topic/_report.py",
           "return lam * logp + (1.0 - lam) * loglift",
           "return (1.0 - lam) * logp + lam * loglift",
           ("tests/topic/test_report_relevance.py", "tests/topic/test_report.py"),
           "relevance: lambda applied to the lift instead of log p(w|t)"),
    Mutant("relevance_page_lambda_swapped", "latentkit/topic/_report.py",
           "return lam * t.logp[i] + (1 - lam) * t.loglift[i];",
           "return (1 - lam) * t.logp[i] + lam * t.loglift[i];",
           ("tests/topic/test_report_relevance.py", "tests/topic/test_report.py"),
           "the page's relevance: lambda on the wrong term"),
    Mutant("io_digest_without_bytes", "latentkit/io.py",
           "        h.update(a.tobytes())\n", "",
           ("tests/io/test_io_tamper.py", "tests/io/test_io.py"),
           "the model file's checksum no longer covers the arrays' bytes"),
    # the rest of the core: no test was written for these mutants (a blind sample of the
    # existing tests' strength)
    Mutant("gaussian_log_normaliser_one_dim", "latentkit/distributions/_gaussian.py",
           "out += log_det - 0.5 * D * _LOG_2PI", "out += log_det - 0.5 * _LOG_2PI",
           ("tests/distributions/test_gaussian_block.py", "tests/mixture/test_gaussian_mixture.py"),
           "Gaussian log density with the 2 pi normaliser of one dimension"),
    Mutant("simplex_projection_threshold", "latentkit/spectral/_moments.py",
           "theta = css[np.arange(n), rho] / (rho + 1)",
           "theta = css[np.arange(n), rho] / (rho + 2)",
           ("tests/spectral/test_estimators.py",),
           "simplex projection threshold off by one"),
    Mutant("digamma_without_series", "latentkit/_kernels/topic.py",
           "return r + math.log(x) - 0.5 / x + t", "return r + math.log(x) - 0.5 / x",
           ("tests/topic/test_lda.py", "tests/mixture/test_dirichlet_process.py"),
           "digamma without its asymptotic series (error ~ 1/(12 x^2))"),
    Mutant("viterbi_transposed_transition", "latentkit/_kernels/hmm.py",
           "v = delta[i] + log_transmat_t[j, i]", "v = delta[i] + log_transmat_t[i, j]",
           ("tests/sequence/test_hmm_kernels.py", "tests/sequence/test_hmm.py"),
           "Viterbi with the transition matrix transposed"),
    Mutant("whitening_inverse_eigenvalue", "latentkit/spectral/_whitening.py",
           "return cls(W=U / root, B=U * root,", "return cls(W=U / s, B=U * root,",
           ("tests/spectral/test_estimators.py",),
           "whitening matrix scaled by 1/s instead of 1/sqrt(s)"),
    Mutant("kmeans_distance_cross_term", "latentkit/_utils/kmeans.py",
           "d = x_sq[:, None] - 2.0 * (X @ C.T)", "d = x_sq[:, None] - (X @ C.T)",
           ("tests/mixture/test_gaussian_mixture.py", "tests/spectral/test_gmm_start.py"),
           "k-means squared distances without the factor 2 of the cross term"),
    Mutant("gaussian_full_without_reg_covar", "latentkit/distributions/_gaussian.py",
           "        cov[:, np.arange(D), np.arange(D)] += reg_covar\n",
           "        cov[:, np.arange(D), np.arange(D)] += 0.0\n",
           ("tests/mixture/test_gaussian_mixture.py",),
           "full covariances estimated without reg_covar on the diagonal"),
    Mutant("dirichlet_kl_without_normaliser", "latentkit/distributions/_dirichlet.py",
           "e_log = psi(q) - psi(q0)[..., None]", "e_log = psi(q)",
           ("tests/topic/test_lda.py", "tests/sequence/test_variational_hmm.py"),
           "Dirichlet KL with E[log theta] missing its - psi(q0)"),
    Mutant("hmm_transposed_transition", "latentkit/_kernels/hmm.py",
           "acc += prev[i] * transmat_t[j, i]", "acc += prev[i] * transmat_t[i, j]",
           ("tests/sequence/test_hmm_kernels.py",),
           "HMM forward step with the transition matrix transposed"),
)


def _copy_tree(dest):
    for name in COPIED:
        src = os.path.join(ROOT, name)
        if os.path.isdir(src):
            shutil.copytree(src, os.path.join(dest, name),
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.nbi",
                                                          "*.nbc", ".pytest_cache"))
        else:
            shutil.copy2(src, os.path.join(dest, name))


def _apply(dest, mutant):
    """Apply ``mutant`` to the copy in ``dest``; False when its text is not found once."""
    path = os.path.join(dest, mutant.path)
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    if text.count(mutant.old) != 1:
        return False
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text.replace(mutant.old, mutant.new))
    return True


def _run_tests(dest, tests, timeout):
    """Run the test files in the copy with a fresh numba cache; True when they all pass."""
    with tempfile.TemporaryDirectory(prefix="numba-cache-") as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONDONTWRITEBYTECODE="1")
        env.pop("PYTHONPATH", None)
        cmd = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *tests]
        try:
            proc = subprocess.run(cmd, cwd=dest, env=env, capture_output=True, text=True,
                                  timeout=timeout)
        except subprocess.TimeoutExpired:
            return False, "timeout"
    lines = proc.stdout.strip().splitlines() or [""]
    failed = [ln.split(" - ")[0][len("FAILED "):] for ln in lines if ln.startswith("FAILED ")]
    return proc.returncode == 0, lines[-1] + (f"  [{failed[0]}]" if failed else "")


def _check_mutants(mutants):
    for m in mutants:
        missing = [t for t in m.tests if not os.path.exists(os.path.join(ROOT, t))]
        if missing or not os.path.exists(os.path.join(ROOT, m.path)):
            raise SystemExit(f"mutant {m.name}: missing file(s) {missing or [m.path]}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="+", metavar="NAME", help="run only these mutants")
    parser.add_argument("--list", action="store_true", help="list the mutants and exit")
    parser.add_argument("--no-baseline", action="store_true",
                        help="skip the run of the test files on the unmutated copy")
    parser.add_argument("--timeout", type=float, default=900.0,
                        help="seconds per test run (a run past it counts as killed)")
    args = parser.parse_args(argv)
    mutants = MUTANTS
    if args.only:
        unknown = sorted(set(args.only) - {m.name for m in MUTANTS})
        if unknown:
            parser.error(f"unknown mutant(s) {unknown}; see --list")
        mutants = tuple(m for m in MUTANTS if m.name in args.only)
    _check_mutants(mutants)
    if args.list:
        for m in mutants:
            print(f"{m.name}: {m.what}\n    {m.path}\n    tests: {' '.join(m.tests)}")
        return 0
    if not args.no_baseline:
        tests = sorted({t for m in mutants for t in m.tests})
        with tempfile.TemporaryDirectory(prefix="mutation-base-") as dest:
            _copy_tree(dest)
            t0 = time.perf_counter()
            ok, tail = _run_tests(dest, tests, args.timeout * 2)
        print(f"baseline ({len(tests)} test files, {time.perf_counter() - t0:.0f} s): "
              f"{'passed' if ok else 'FAILED'}  {tail}", flush=True)
        if not ok:
            return 1
    killed, stale = 0, []
    for m in mutants:
        with tempfile.TemporaryDirectory(prefix="mutation-") as dest:
            _copy_tree(dest)
            if not _apply(dest, m):
                stale.append(m.name)
                print(f"{m.name:45s} STALE (its text is not in {m.path} exactly once)",
                      flush=True)
                continue
            t0 = time.perf_counter()
            ok, tail = _run_tests(dest, m.tests, args.timeout)
        killed += not ok
        print(f"{m.name:45s} {'survived' if ok else 'killed':9s} "
              f"{time.perf_counter() - t0:5.0f} s  {tail}", flush=True)
    n = len(mutants) - len(stale)
    print(f"kill ratio: {killed}/{n} = {killed / n if n else float('nan'):.2f}"
          + (f" ({len(stale)} stale: {', '.join(stale)})" if stale else ""))
    return 2 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
