"""Re-run the peer comparisons behind docs/guide/benchmarks.md's main rows and print one table.

Each row runs one benchmark script in a fresh process (``python benchmarks/bench_*.py ...``),
one after another, so no two compete for the 2 cores; the script records the load average just
before and just after each, the row's wall time, and pulls the measured ratio out of the
script's own output (the line each benchmark prints for it). The peers' versions come from the
installed distributions (``importlib.metadata``). At the end it prints one Markdown table:

    | row | command | measured | fraction of the bound | peer | load before / after | s |

under a header line with the CPU model, the OpenBLAS version and kernel, numba's threads and the
load (``benchmarks/_bounds.py``); the fraction of the bound is read from each benchmark's
"(fraction of the bound)" lines.

Rows (the settings of the full run are meant to take about 12-16 minutes together on 2 cores
with nothing else running: an estimate from the rows' documented timings, the full run was
never made on a quiet machine; ``--tiny`` runs each with toy settings, 554 s at load 13-18, to
check that the pipeline works, not to measure):

========  =====================================================================================
gmm       ``bench_gmm.py --iters 10``: per-iteration speed-up over scikit-learn
lda       ``bench_lda.py --iters 30 --gensim-passes 30 --skip-fresh``: time to equal held-out
          perplexity against scikit-learn batch, gensim batch and gensim online
hmm       ``bench_hmm.py``: hmmlearn time / ours per iteration (categorical scaling and log,
          Gaussian diag), our 2 threads and 1 thread
vgmm      ``bench_vgmm.py --threads 1 --skip-olive``: BayesianGaussianMixture time / ours
coherence ``bench_coherence.py --repeat 1``: gensim CoherenceModel time / ours per measure
spectral  ``bench_spectral.py 1``: TensorLy time / ours (tol=1e-6) for d = 50, 100, 200
vae       ``bench_vae.py --torch-threads 1 --epochs 20``: ours / PyTorch time per epoch
cold      ``bench_cold_start.py --only gmm,lda --mode cli``: cold / warm wall seconds
gmm46     issue 46's GMM row: ``bench_gmm.py --n 100000 --iters 20 --rounds 3``: per iteration,
          in total and in one-thread CPU time against scikit-learn (1 BLAS thread)
lda46     issue 46's LDA row: ``bench_lda_default_fit.py --rounds 2 --variants default cvb0``:
          the default fit's time to scikit-learn batch's 10-iteration held-out perplexity
svi46     issue 46's SVI row: ``bench_svi.py --dataset kos --epochs 5 --skip-gensim
          --skip-batch --rounds 3``: time to scikit-learn online's 5-pass perplexity
hmm46     issue 46's HMM row: ``bench_hmm.py --only categorical`` (10 x 50, 200 x 1000)
========  =====================================================================================

``--issue46`` picks the last four rows; ``--kernels default,Haswell`` runs every row once per
OpenBLAS kernel (``OPENBLAS_CORETYPE`` set in the row's process; ``default`` leaves it unset),
the kernel named in the row's label.

Run (from the repository root, on a quiet machine; the lead's item 5 of issue 28):

    python benchmarks/run_quiet_table.py                 # all rows, ~12-16 min on 2 cores
    python benchmarks/run_quiet_table.py --only gmm,hmm  # some rows
    python benchmarks/run_quiet_table.py --tiny          # toy settings: does it all run?
    python benchmarks/run_quiet_table.py --issue46 --kernels default,Haswell  # issue 46's table

A row whose script fails (or whose peer is not installed: PyTorch for ``vae``) is reported in
its cell, not fatal. The load average of a row that starts above ``--max-load`` (default 1.5) is
printed in bold: that row was measured on a busy machine.
"""

import argparse
import importlib.metadata
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
sys.path.insert(0, str(Path(__file__).resolve().parent))

import _bounds  # noqa: E402  (benchmarks/_bounds.py: the machine header and the bounds)

#: the line every headline benchmark prints with its fraction of the bound (_bounds.fraction_line)
BOUND_LINE = re.compile(r"^\s*(.+?) \(fraction of the bound[^)]*\): [\d.]+ M [\w -]+/s = "
                        r"([\d.]+)% of the bound", re.M)


def bound_fractions(out):
    """'label: X%' for every fraction-of-the-bound line of a benchmark's output."""
    return "; ".join(f"{label}: {pct}%" for label, pct in BOUND_LINE.findall(out)) or "-"


def _spectral_cmd(dims):
    return [PY, "-c", "import sys; sys.path.insert(0, 'benchmarks'); import bench_spectral as b; "
                      f"b.bench_tensorly(dims={tuple(dims)!r})"]


def _ratio_gmm(out):
    m = re.search(r"speed-up per iteration \(sklearn / ours\): ([\d.]+)x", out)
    return f"{m.group(1)}x per iteration" if m else None


def _ratio_lda(out):
    # the first block (per-document bound): "<peer> reaches it after ... ratio to latentkit Rx"
    block = out.split("scikit-learn's convention", 1)[0]
    found = re.findall(r"^\s+(sklearn batch|gensim batch|gensim online)\s+reaches it after\s+"
                       r"[\d.]+ s\s+ratio to latentkit\s+([\d.]+)x", block, re.M)
    return ", ".join(f"{r}x {name}" for name, r in found) or None


def _ratio_hmm(out):
    found = re.findall(r"ratio hmmlearn/latentkit:\s+([\d.]+)x \((\d+) threads\)(?:,\s+([\d.]+)x)?",
                       out)
    labels = ["categorical scaling", "categorical log", "Gaussian diag"]
    cells = [f"{a}x / {c or '?'}x ({n} / 1 threads) {lab}"
             for (a, n, c), lab in zip(found, labels + [""] * len(found))]
    return "; ".join(cells) or None


def _ratio_vgmm(out):
    tail = out.split("speed-up ratios", 1)
    if len(tail) < 2:
        return None
    found = re.findall(r"^\s+([\d.]+)\s+(.+)$", tail[1], re.M)
    return "; ".join(f"{r}x {name.strip()}" for r, name in found) or None


def _ratio_coherence(out):
    found = re.findall(r"^(\w+)\s+[\d.]+\s+[\d.]+\s+(\d+)x", out, re.M)
    return ", ".join(f"{r}x {m}" for m, r in found) or None


def _ratio_spectral(out):
    found = re.findall(r"^\s*(\d+)\s+\(\d+, \d+\)\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+([\d.]+)x", out, re.M)
    return ", ".join(f"{r}x d={d}" for d, r in found) or None


def _ratio_vae(out):
    if "PyTorch is not installed" in out:
        return "PyTorch not installed: no ratio"
    m = re.search(r"time per epoch ratio ours/pytorch = ([\d.]+)", out)
    return f"{m.group(1)} (ours / PyTorch time per epoch)" if m else None


def _ratio_cold(out):
    found = re.findall(r"^cli (\S+)\s+\S+\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)", out, re.M)
    return "; ".join(f"{fam} {c} / {w} s" for fam, c, w, _ in found) or None


def _ratio_gmm46(out):
    per = re.search(r"speed-up per iteration \(sklearn / ours\): ([\d.]+)x", out)
    tot = re.search(r"faster configuration \(1 BLAS thread\): ([\d.]+)x", out)
    cpu = re.search(r"^CPU time, one thread each.*ratio ([\d.]+)x", out, re.M)
    if not per:
        return None
    return (f"{per.group(1)}x per iteration, {tot.group(1) if tot else '?'}x in total; "
            f"one-thread CPU {cpu.group(1) if cpu else '?'}x")


def _ratio_lda46(out):
    tail = out.split("median ratio to scikit-learn", 1)
    if len(tail) < 2:
        return None
    found = re.findall(r"^\s+(default|init='cvb0'|default, one-thread CPU)\s+([\d.]+)x", tail[1],
                       re.M)
    return ", ".join(f"{r}x {name}" for name, r in found) or None


def _ratio_svi46(out):
    m = re.search(r"scikit-learn online\s+final\s+([\d.]+): peer\s+([\d.]+) s, latentkit SVI"
                  r"\s+([\d.]+) s\s+([\d.]+)x faster", out)
    cpu = re.search(r"^CPU time, one thread each.*?([\d.]+)x\s*$", out, re.M)
    if not m:
        return None
    return (f"{m.group(4)}x ({m.group(3)} s against {m.group(2)} s to {m.group(1)}); "
            f"one-thread CPU {cpu.group(1) if cpu else '?'}x")


#: name -> (full command, tiny command, ratio parser, peer distributions)
ROWS = {
    "gmm": (["benchmarks/bench_gmm.py", "--iters", "10"],
            ["benchmarks/bench_gmm.py", "--n", "5000", "--iters", "3"],
            _ratio_gmm, ["scikit-learn"]),
    "lda": (["benchmarks/bench_lda.py", "--iters", "30", "--gensim-passes", "30", "--skip-fresh"],
            ["benchmarks/bench_lda.py", "--iters", "3", "--gensim-passes", "2", "-k", "5",
             "--skip-fresh"],
            _ratio_lda, ["scikit-learn", "gensim"]),
    "hmm": (["benchmarks/bench_hmm.py"],
            ["benchmarks/bench_hmm.py", "--n-iter", "2", "--repeats", "1"],
            _ratio_hmm, ["hmmlearn"]),
    "vgmm": (["benchmarks/bench_vgmm.py", "--threads", "1", "--skip-olive"],
             ["benchmarks/bench_vgmm.py", "--threads", "1", "--skip-olive", "--quick", "--iters",
              "2", "--repeats", "1"],
             _ratio_vgmm, ["scikit-learn"]),
    "coherence": (["benchmarks/bench_coherence.py", "--repeat", "1"],
                  ["benchmarks/bench_coherence.py", "--repeat", "1", "--k", "5"],
                  _ratio_coherence, ["gensim"]),
    "spectral": (["benchmarks/bench_spectral.py", "1"], None, _ratio_spectral, ["tensorly"]),
    "vae": (["benchmarks/bench_vae.py", "--torch-threads", "1", "--epochs", "20"],
            ["benchmarks/bench_vae.py", "--torch-threads", "1", "--epochs", "1"],
            _ratio_vae, ["torch"]),
    "cold": (["benchmarks/bench_cold_start.py", "--only", "gmm,lda", "--mode", "cli"],
             ["benchmarks/bench_cold_start.py", "--only", "gmm", "--mode", "cli"],
             _ratio_cold, ["numba"]),
    "gmm46": (["benchmarks/bench_gmm.py", "--n", "100000", "--iters", "20", "--rounds", "3"],
              ["benchmarks/bench_gmm.py", "--n", "5000", "--iters", "3", "--rounds", "1"],
              _ratio_gmm46, ["scikit-learn"]),
    "lda46": (["benchmarks/bench_lda_default_fit.py", "--rounds", "2", "--variants", "default",
               "cvb0"],
              ["benchmarks/bench_lda_default_fit.py", "--rounds", "1", "-k", "5",
               "--variants", "default", "--no-one-thread"],
              _ratio_lda46, ["scikit-learn"]),
    "svi46": (["benchmarks/bench_svi.py", "--dataset", "kos", "--epochs", "5", "--skip-gensim",
               "--skip-batch", "--rounds", "3"],
              ["benchmarks/bench_svi.py", "--dataset", "kos", "--epochs", "1", "--skip-gensim",
               "--skip-batch", "--rounds", "1"],
              _ratio_svi46, ["scikit-learn"]),
    "hmm46": (["benchmarks/bench_hmm.py", "--only", "categorical"],
              ["benchmarks/bench_hmm.py", "--only", "categorical", "--n-iter", "2", "--repeats",
               "1"],
              _ratio_hmm, ["hmmlearn"]),
}

#: the rows of issue 46's table (``--issue46``)
ISSUE46 = ("gmm46", "lda46", "svi46", "hmm46")


def _command(name, tiny):
    full, small, _, _ = ROWS[name]
    if name == "spectral":
        return _spectral_cmd((50,) if tiny else (50, 100, 200))
    return [PY] + (small if tiny else full)


def _shown(cmd):
    """The command as a user types it (``python ...``)."""
    parts = ["python" if c == PY else c for c in cmd]
    return " ".join(f'"{p}"' if " " in p else p for p in parts)


def _versions(dists):
    out = []
    for d in dists:
        try:
            out.append(f"{d} {importlib.metadata.version(d)}")
        except importlib.metadata.PackageNotFoundError:
            out.append(f"{d} (not installed)")
    return ", ".join(out)


def _row_env(kernel):
    """The row's environment: this one with PYTHONPATH at the checkout and, unless ``kernel``
    is 'default', ``OPENBLAS_CORETYPE=kernel``."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    if kernel != "default":
        env["OPENBLAS_CORETYPE"] = kernel
    return env


def run_row(name, tiny, timeout, kernel="default"):
    """Run one row's benchmark in a new process (under OpenBLAS ``kernel``: 'default' leaves
    ``OPENBLAS_CORETYPE`` as it is); returns the table cells and its output."""
    cmd = _command(name, tiny)
    load0 = os.getloadavg()[0]
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(cmd, cwd=str(ROOT), capture_output=True, text=True,
                              timeout=timeout, env=_row_env(kernel))
        out, rc = proc.stdout, proc.returncode
        err = proc.stderr
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout or ""
        out = out.decode(errors="replace") if isinstance(out, bytes) else out
        rc, err = f"timeout after {timeout:.0f} s", ""
    seconds = time.perf_counter() - t0
    load1 = os.getloadavg()[0]
    measured = ROWS[name][2](out)
    if rc != 0:
        last = (err.strip().splitlines() or ["?"])[-1][:120]
        measured = f"FAILED (exit {rc}: {last})" + (f"; {measured}" if measured else "")
    elif measured is None:
        measured = "no ratio found in the output"
    label = name if kernel == "default" else f"{name} ({kernel})"
    return {"row": label, "command": _shown(cmd), "measured": measured,
            "peer": _versions(ROWS[name][3]), "load": (load0, load1), "seconds": seconds,
            "output": out}


def markdown(results, max_load):
    lines = ["| row | command | measured | fraction of the bound | peer | load before / after "
             "| s |", "|---|---|---|---|---|---|---|"]
    for r in results:
        load = "{:.1f} / {:.1f}".format(*r["load"])
        if r["load"][0] > max_load:
            load = f"**{load}**"
        lines.append(f"| {r['row']} | `{r['command']}` | {r['measured']} | "
                     f"{bound_fractions(r['output'])} | {r['peer']} | {load} | "
                     f"{r['seconds']:.0f} |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default=",".join(ROWS),
                    help=f"comma-separated rows (default all: {','.join(ROWS)})")
    ap.add_argument("--tiny", action="store_true",
                    help="toy settings (checks that every row runs; the ratios mean nothing)")
    ap.add_argument("--timeout", type=float, default=900, help="seconds per row")
    ap.add_argument("--max-load", type=float, default=1.5,
                    help="a row starting above this 1-minute load average is marked in bold")
    ap.add_argument("--issue46", action="store_true",
                    help=f"issue 46's four rows ({','.join(ISSUE46)}) instead of --only")
    ap.add_argument("--kernels", default="default",
                    help="comma-separated OpenBLAS kernels to run every row under (OPENBLAS_"
                         "CORETYPE; 'default' leaves it unset), e.g. default,Haswell")
    ap.add_argument("--log", default=None, metavar="PATH",
                    help="also write every row's full output here")
    args = ap.parse_args()
    names = list(ISSUE46) if args.issue46 else [n.strip() for n in args.only.split(",")
                                                 if n.strip()]
    kernels = [k.strip() for k in args.kernels.split(",") if k.strip()] or ["default"]
    unknown = [n for n in names if n not in ROWS]
    if unknown:
        ap.error(f"--only: unknown rows {unknown}; expected some of {list(ROWS)}")
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load {os.getloadavg()}",
          file=sys.stderr, flush=True)
    results = []
    t0 = time.perf_counter()
    for name in names:
        for kernel in kernels:
            res = run_row(name, args.tiny, args.timeout, kernel)
            results.append(res)
            print(f"done: {res['row']} in {res['seconds']:.0f} s: {res['measured']}",
                  file=sys.stderr, flush=True)
    if args.log:
        Path(args.log).write_text("\n\n".join(f"===== {r['row']}: {r['command']}\n{r['output']}"
                                              for r in results))
    print(_bounds.machine_info().replace("; load", "; load at the end"))
    print(markdown(results, args.max_load))
    print(f"\n{'tiny settings (not a measurement); ' if args.tiny else ''}"
          f"total {time.perf_counter() - t0:.0f} s, load at the end {os.getloadavg()}")


if __name__ == "__main__":
    main()
