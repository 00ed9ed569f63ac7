"""The hardware bounds of ``benchmarks/_bounds.py`` (issue 46, item 1) and the line every headline
benchmark prints with them: the helpers run, their kernel calls do the library's work (the same
sweeps as the public E-step), and a tiny ``bench_gmm.py`` run prints its fraction of the bound.
No timing is asserted (speed targets live in the benchmarks, never in timed tests)."""

import importlib.util
import os
import re
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), os.pardir, os.pardir))
BENCH = os.path.join(ROOT, "benchmarks")
FRACTION = re.compile(r": [\d.]+ M [\w -]+/s = [\d.]+% of the bound [\d.]+ M [\w -]+/s \(")


@pytest.fixture(scope="module")
def bounds():
    spec = importlib.util.spec_from_file_location("_bounds", os.path.join(BENCH, "_bounds.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def corpus():
    from latentkit.datasets import make_lda_corpus

    X, _ = make_lda_corpus(40, n_components=3, vocab_size=30, doc_length=25, random_state=1)
    return sp.csr_matrix(X)


def test_peaks_and_line(bounds):
    peak = bounds.core_peak(size=64)
    assert np.isfinite(peak) and peak > 0
    assert bounds.gemm_rate(50, 4, 8, threads=1, reps=1, min_time=0.0) > 0
    line = bounds.kernel_fraction("lda_vb", "VB", 0.5 * bounds.kernel_bound("lda_vb"), "updates")
    assert FRACTION.search(line), line
    assert "= 50.0% of the bound" in line  # half the bound is 50% (the bound's own peak)
    assert "CPU " in bounds.machine_info() and "load " in bounds.machine_info()


def test_lda_kernel_does_the_library_sweeps(bounds, corpus):
    """The timed kernel call runs the public E-step's sweeps (same topics, alpha, tolerance):
    the rate counts the work the library does."""
    from latentkit.topic import lda_e_step

    lam = np.random.default_rng(0).gamma(100.0, 0.01, (3, corpus.shape[1]))
    rate, sweeps = bounds.lda_vb_rate(corpus, lam, 0.3, reps=1)
    _, _, _, n_iter = lda_e_step(corpus, lam, 0.3)
    assert rate > 0
    assert sweeps == pytest.approx(n_iter.mean(), abs=0)


def test_other_kernels_run(bounds, corpus):
    assert bounds.cvb0_rate(corpus, 3, 0.3, 0.1, sweeps=1) > 0
    rng = np.random.default_rng(0)
    A = rng.dirichlet(np.ones(3), 3)
    assert bounds.hmm_rate(rng.random((60, 3)), np.ones(3) / 3, A, [20, 40], reps=1) > 0
    lam = rng.gamma(100.0, 0.01, (5, corpus.shape[1]))
    rate, sweeps = bounds.hdp_rate(corpus[:10], lam, np.log(np.full(5, 0.2)), 1.0, 3)
    assert rate > 0 and sweeps >= 1


@pytest.mark.slow  # quick tier: over 2 s on 2 quiet cores (tools/quick_tier.py)
def test_bench_gmm_prints_its_fraction():
    out = subprocess.run([sys.executable, os.path.join(BENCH, "bench_gmm.py"), "--n", "1500",
                          "--iters", "2"], capture_output=True, text=True, timeout=300,
                         cwd=ROOT, check=True).stdout
    line = [ln for ln in out.splitlines() if ln.startswith("GMM E-step (fraction of the bound)")]
    assert line and FRACTION.search(line[0]), out
    assert "CPU " in out and "load " in out


def test_quiet_table_reads_the_fraction_lines(bounds):
    """``run_quiet_table.py`` finds every benchmark's fraction line (the format of
    ``_bounds.fraction_line``) and puts it in its table's column."""
    spec = importlib.util.spec_from_file_location("run_quiet_table",
                                                  os.path.join(BENCH, "run_quiet_table.py"))
    mod = importlib.util.module_from_spec(spec)
    sys.path.insert(0, BENCH)
    spec.loader.exec_module(mod)
    out = "\n".join([
        "noise",
        bounds.fraction_line("GMM E-step (fraction of the bound)", 2e9, 8e9, "flop", "x"),
        "  " + bounds.fraction_line("HMM forward-backward (fraction of the bound)", 1e8, 4e8,
                                    "step-state-pair updates", "y")])
    assert mod.bound_fractions(out) == "GMM E-step: 25.0%; HMM forward-backward: 25.0%"
    table = mod.markdown([{"row": "gmm", "command": "c", "measured": "9x", "peer": "p",
                           "load": (1.0, 2.0), "seconds": 3.0, "output": out}], 1.5)
    assert "| GMM E-step: 25.0%; HMM forward-backward: 25.0% |" in table


def _quiet_table_module():
    spec = importlib.util.spec_from_file_location("run_quiet_table",
                                                  os.path.join(BENCH, "run_quiet_table.py"))
    mod = importlib.util.module_from_spec(spec)
    sys.path.insert(0, BENCH)
    spec.loader.exec_module(mod)
    return mod


def test_quiet_table_reads_issue_46_rows_and_sets_the_kernel():
    """The issue-46 rows' parsers read the lines their benchmarks print (copied from real runs
    of bench_gmm.py, bench_lda_default_fit.py, bench_svi.py, bench_hmm.py); a row's process
    gets ``OPENBLAS_CORETYPE`` only for a named kernel."""
    mod = _quiet_table_module()
    gmm = ("CPU time, one thread each (total / iterations): ours 22.5 ms, sklearn (1 BLAS "
           "thread) 176.8 ms: ratio 8.12x (median of 3 rounds)\nours, total / iterations (as "
           "for sklearn): 16.3 ms; speed-up against sklearn's faster configuration (1 BLAS "
           "thread): 10.82x (median of 3 rounds)\nspeed-up per iteration (sklearn / ours): "
           "12.26x (median of 3 rounds)\n")
    assert mod._ratio_gmm46(gmm) == ("12.26x per iteration, 10.82x in total; one-thread CPU "
                                     "8.12x")
    lda = ("round 0: ...\n  default   reaches it after   2.34 s (ratio  4.40x)\n"
           "median ratio to scikit-learn (its 10-iteration held-out perplexity):\n"
           "  default                     4.10x  (4.40, 3.81)\n"
           "  init='cvb0'                 6.96x  (6.74, 7.18)\n"
           "  default, one-thread CPU     2.82x  (2.63, 3.00)\n")
    assert mod._ratio_lda46(lda) == ("4.10x default, 6.96x init='cvb0', 2.82x default, "
                                     "one-thread CPU")
    svi = ("  scikit-learn online    final   2313.67: peer     3.53 s, latentkit SVI     0.30 s"
           "    11.78x faster\nCPU time, one thread each, alternated (best of 3), to "
           "scikit-learn online's final 2313.67: latentkit SVI 0.33 s (34 steps), scikit-learn"
           " 2.53 s (51 steps)     7.76x\n")
    assert mod._ratio_svi46(svi) == ("11.78x (0.30 s against 3.53 s to 2313.67); one-thread "
                                     "CPU 7.76x")
    for parse in (mod._ratio_gmm46, mod._ratio_lda46, mod._ratio_svi46):
        assert parse("a benchmark that failed") is None
    assert set(mod.ISSUE46) <= set(mod.ROWS)
    assert "OPENBLAS_CORETYPE" not in mod._row_env("default") or \
        mod._row_env("default")["OPENBLAS_CORETYPE"] == os.environ.get("OPENBLAS_CORETYPE")
    assert mod._row_env("Haswell")["OPENBLAS_CORETYPE"] == "Haswell"


def test_quiet_table_runs_a_row_under_a_named_kernel(monkeypatch):
    """``run_row`` under a named kernel: the row's process sees ``OPENBLAS_CORETYPE``, the
    label names the kernel, the ratio is parsed from the process's output (a stand-in row)."""
    mod = _quiet_table_module()
    code = ("import os; print('speed-up per iteration (sklearn / ours): 2.50x'); "
            "print('kernel', os.environ.get('OPENBLAS_CORETYPE'))")
    monkeypatch.setitem(mod.ROWS, "fake", (["-c", code], None, mod._ratio_gmm46, []))
    res = mod.run_row("fake", False, 60, "Haswell")
    assert res["row"] == "fake (Haswell)"
    assert res["measured"].startswith("2.50x per iteration")
    assert "kernel Haswell" in res["output"]
