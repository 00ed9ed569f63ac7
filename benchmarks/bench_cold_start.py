"""Cold start: first-run time of every family's CLI job and Python first fit, with numba's
compile time per kernel.

For each job, two new processes share one fresh temporary ``NUMBA_CACHE_DIR``:

* **cold**: the cache directory is empty, so every kernel the job uses is compiled (numba
  writes it to the cache: kernels use ``cache=True``);
* **warm**: the same cache directory, so the kernels are loaded from disk.

The parent times each process (interpreter start-up and ``import`` included). The child
installs a listener for numba's ``"numba:compile"`` events (:mod:`numba.core.event`), so it
records every dispatcher compiled (with nesting: a kernel that calls another jitted function
compiles the callee inside its own event) and writes JSON to a temporary file: the import time,
the job time, and per dispatcher the number of compilations, the inclusive and the self time
(inclusive minus the callees compiled inside it) and the dispatchers whose compilation
triggered it (``compiled_inside``: who pulls in numba's string formatting, say). The compile total is the sum of the outermost
events (no double counting). Each time is recorded twice: wall seconds and the compiling
thread's CPU seconds (``time.thread_time``; numba compiles in the calling thread). On a machine
shared with other work the CPU seconds move far less with the load than the wall seconds, so
they are the number to compare before and after a change (``cpu`` columns). A warm run with zero compile events shows that ``NUMBA_CACHE_DIR``
is honoured for the package's kernels (so the cold run is really cold).

Jobs (``--only`` selects by family, ``--mode`` by kind):

========  ==============================================================================
family    CLI job (``python -m latentkit fit ...``) / Python first call
========  ==============================================================================
lda       ``lda --dataset kos -k 20`` (the README's main job, default settings) /
          ``LatentDirichletAllocation(n_components=20).fit(kos)``
plsa      ``plsa --dataset kos -k 20 --max-iter 20`` / ``PLSA(20, max_iter=20).fit(kos)``
gmm       ``gmm --dataset old_faithful -k 2`` / ``GaussianMixture(2).fit(old_faithful)``
vgmm      ``vgmm --dataset wine -k 5`` / ``VariationalGaussianMixture(5).fit(wine)``
dpmm      ``dpmm --dataset old_faithful -k 10`` / ``DirichletProcessMixture(10).fit(...)``
hmm-cat   ``hmm --dataset lambda_phage -k 4 --max-iter 20`` / ``CategoricalHMM(4, 20)``
hmm-small (Python only) ``CategoricalHMM(3, n_features=8, max_iter=5, tol=0)`` on 8 random
          sequences of 200 symbols (a fit too small for the lockstep kernel: it must not
          compile it)
hmm-pois  ``hmm --dataset earthquakes -k 3`` / ``PoissonHMM(3).fit(earthquakes)``
hmm-gauss ``hmm --dataset geyser -k 3 --emission gaussian`` / ``GaussianHMM(3).fit(geyser)``
hsmm      ``hsmm --dataset geyser -k 2 --emission gaussian`` /
          ``HiddenSemiMarkovModel(2, Gaussian("diag")).fit(geyser)``
arhmm     ``arhmm --dataset earthquakes -k 2`` / ``AutoregressiveHMM(2, n_lags=1).fit(...)``
iohmm     ``iohmm --dataset geyser -k 2 --inputs waiting`` / ``InputOutputHMM(2).fit(duration,
          inputs=standardised waiting)``
hdp       ``hdp --dataset kos -k 50`` (the README's job) /
          ``HierarchicalDirichletProcess(n_components=50).fit(kos)``
vae       ``vae --dataset optdigits --epochs 3`` / ``VAE(max_iter=3).fit(optdigits)`` (binary)
========  ==============================================================================

Small settings (stated above): PLSA 20 iterations, the categorical HMM on the 48,502-symbol
lambda phage genome 20 iterations, the VAE 3 epochs; the rest run their defaults.

Run (from the repository root):

    python benchmarks/bench_cold_start.py --only gmm,lda --json cold.json
    python benchmarks/bench_cold_start.py --mode cli          # every family, CLI jobs only

Options: --only, --mode {cli,python,both}, --top (kernels listed per job), --json, --timeout,
--cold-only (skip the warm process: per-kernel compile times only).
Timings on a loaded machine are inflated; the compile share (compile seconds / cold seconds)
moves less with load than the seconds do. The script prints ``os.getloadavg()`` with the table.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# family -> (CLI argv after `fit`, Python first-call code: builds `model` and `fit_args`)
JOBS = {
    "lda": (["lda", "--dataset", "kos", "-k", "20"],
            "from latentkit import LatentDirichletAllocation as M\n"
            "fit_args = (ds.load_kos().data,)\n"
            "model = M(n_components=20, random_state=0)"),
    "plsa": (["plsa", "--dataset", "kos", "-k", "20", "--max-iter", "20"],
             "from latentkit import PLSA as M\n"
             "fit_args = (ds.load_kos().data,)\n"
             "model = M(n_components=20, max_iter=20, random_state=0)"),
    "gmm": (["gmm", "--dataset", "old_faithful", "-k", "2"],
            "from latentkit import GaussianMixture as M\n"
            "fit_args = (ds.load_old_faithful().data,)\n"
            "model = M(n_components=2, random_state=0)"),
    "vgmm": (["vgmm", "--dataset", "wine", "-k", "5"],
             "from latentkit import VariationalGaussianMixture as M\n"
             "fit_args = (ds.load_wine().data,)\n"
             "model = M(n_components=5, random_state=0)"),
    "dpmm": (["dpmm", "--dataset", "old_faithful", "-k", "10"],
             "from latentkit import DirichletProcessMixture as M\n"
             "fit_args = (ds.load_old_faithful().data,)\n"
             "model = M(n_components=10, random_state=0)"),
    "hmm-cat": (["hmm", "--dataset", "lambda_phage", "-k", "4", "--max-iter", "20"],
                "from latentkit import CategoricalHMM as M\n"
                "b = ds.load_lambda_phage()\n"
                "fit_args = (b.data, b.lengths)\n"
                "model = M(n_components=4, max_iter=20, random_state=0)"),
    "hmm-small": (None,
                  "import numpy as np\n"
                  "from latentkit import CategoricalHMM as M\n"
                  "X = np.random.default_rng(0).integers(0, 8, size=(8 * 200, 1))\n"
                  "fit_args = (X, [200] * 8)\n"
                  "model = M(n_components=3, n_features=8, max_iter=5, tol=0, "
                  "random_state=0)"),
    "hmm-pois": (["hmm", "--dataset", "earthquakes", "-k", "3"],
                 "from latentkit import PoissonHMM as M\n"
                 "fit_args = (ds.load_earthquakes().data,)\n"
                 "model = M(n_components=3, random_state=0)"),
    "hmm-gauss": (["hmm", "--dataset", "geyser", "-k", "3", "--emission", "gaussian"],
                  "from latentkit import GaussianHMM as M\n"
                  "fit_args = (ds.load_dataset('geyser').data,)\n"
                  "model = M(n_components=3, random_state=0)"),
    "hsmm": (["hsmm", "--dataset", "geyser", "-k", "2", "--emission", "gaussian"],
             "from latentkit import HiddenSemiMarkovModel as M\n"
             "from latentkit.distributions import Gaussian\n"
             "fit_args = (ds.load_dataset('geyser').data,)\n"
             "model = M(2, Gaussian('diag'), random_state=0)"),
    "arhmm": (["arhmm", "--dataset", "earthquakes", "-k", "2"],
              "from latentkit import AutoregressiveHMM as M\n"
              "fit_args = (ds.load_earthquakes().data.astype(float),)\n"
              "model = M(2, n_lags=1, random_state=0)"),
    "iohmm": (["iohmm", "--dataset", "geyser", "-k", "2", "--inputs", "waiting"],
              "from latentkit import InputOutputHMM as M\n"
              "g = ds.load_dataset('geyser').data\n"
              "fit_args = (g[:, 1:],)\n"
              "fit_kwargs = {'inputs': (g[:, :1] - g[:, :1].mean()) / g[:, :1].std()}\n"
              "model = M(2, random_state=0)"),
    "hdp": (["hdp", "--dataset", "kos", "-k", "50"],
            "from latentkit import HierarchicalDirichletProcess as M\n"
            "fit_args = (ds.load_kos().data,)\n"
            "model = M(n_components=50, random_state=0)"),
    "vae": (["vae", "--dataset", "optdigits", "--epochs", "3"],
            "from latentkit import VAE as M\n"
            "fit_args = (ds.load_optdigits('train', scale='binary').data,)\n"
            "model = M(max_iter=3, random_state=0)"),
}


# ----------------------------------------------------------------------------- child process

def _dispatcher_name(dispatcher):
    func = getattr(dispatcher, "py_func", None)
    if func is None:
        return type(dispatcher).__name__
    return f"{getattr(func, '__module__', '?')}.{getattr(func, '__qualname__', func.__name__)}"


def _child(family, mode, out_path):
    """Run one job in this (new) process and write its timings and compile events to JSON."""
    t_start = time.perf_counter()
    from numba.core import event

    class CompileListener(event.Listener):
        """Per-dispatcher inclusive and self compile time, from nested compile events."""

        def __init__(self):
            # [name, wall t0, cpu t0, wall and cpu seconds of callees compiled inside]
            self.stack = []
            self.kernels = {}    # name -> {"n": compilations, "inclusive": s, "self": s, ...}
            self.total = 0.0     # sum of the outermost events (wall s)
            self.total_cpu = 0.0  # the same in the compiling thread's CPU s
            self.n_events = 0

        def on_start(self, ev):
            self.stack.append([_dispatcher_name(ev.data["dispatcher"]), time.perf_counter(),
                               time.thread_time(), 0.0, 0.0])

        def on_end(self, ev):
            name, t0, c0, inner, inner_cpu = self.stack.pop()
            dur = time.perf_counter() - t0
            cpu = time.thread_time() - c0
            rec = self.kernels.setdefault(name, {"n": 0, "inclusive": 0.0, "self": 0.0,
                                                 "inclusive_cpu": 0.0, "self_cpu": 0.0,
                                                 "compiled_inside": []})
            rec["n"] += 1
            rec["inclusive"] += dur
            rec["self"] += dur - inner
            rec["inclusive_cpu"] += cpu
            rec["self_cpu"] += cpu - inner_cpu
            self.n_events += 1
            if self.stack:
                self.stack[-1][3] += dur
                self.stack[-1][4] += cpu
                if self.stack[-1][0] not in rec["compiled_inside"]:
                    rec["compiled_inside"].append(self.stack[-1][0])
            else:
                self.total += dur
                self.total_cpu += cpu

    import warnings
    warnings.simplefilter("ignore")  # the short settings do not converge; not the point here
    listener = CompileListener()
    event.register("numba:compile", listener)
    sys.path.insert(0, str(ROOT))
    argv, code = JOBS[family]
    if mode == "cli":
        import contextlib
        import io
        from latentkit.cli import main
        t_import = time.perf_counter() - t_start
        t0 = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()):
            rc = main(["fit", *argv, "--quiet"])
        t_job = time.perf_counter() - t0
        if rc not in (0, None):
            raise SystemExit(f"CLI job {argv} exited with {rc}")
    else:
        import latentkit.datasets as ds
        namespace = {"ds": ds}
        exec(code, namespace)  # imports the model's module, loads the data
        t_import = time.perf_counter() - t_start
        t0 = time.perf_counter()
        namespace["model"].fit(*namespace["fit_args"], **namespace.get("fit_kwargs", {}))
        t_job = time.perf_counter() - t0
    event.unregister("numba:compile", listener)
    Path(out_path).write_text(json.dumps({
        "import_s": t_import, "job_s": t_job, "compile_s": listener.total,
        "compile_cpu_s": listener.total_cpu,
        "n_compile_events": listener.n_events, "kernels": listener.kernels}))


# ----------------------------------------------------------------------------- parent

def _run_child(family, mode, cache_dir, timeout):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache_dir), PYTHONPATH=str(ROOT))
    fd, out = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    try:
        t0 = time.perf_counter()
        subprocess.run([sys.executable, str(Path(__file__).resolve()), "--_child", family,
                        "--_mode", mode, "--_out", out], cwd=str(ROOT), env=env, check=True,
                       timeout=timeout, stdout=subprocess.DEVNULL)
        wall = time.perf_counter() - t0
        res = json.loads(Path(out).read_text())
    finally:
        os.unlink(out)
    res["wall_s"] = wall
    return res


def measure(family, mode, timeout, cold_only=False):
    """Cold then warm run of one job, in two new processes sharing a fresh cache directory
    (``cold_only``: the cold process only; ``warm`` is then None)."""
    cache_dir = Path(tempfile.mkdtemp(prefix="lk_numba_cache_"))
    try:
        load = os.getloadavg()[0]
        cold = _run_child(family, mode, cache_dir, timeout)
        warm = None if cold_only else _run_child(family, mode, cache_dir, timeout)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
        print(f"FAILED: {mode} {family}: {exc}", file=sys.stderr, flush=True)
        return None
    finally:
        shutil.rmtree(cache_dir, ignore_errors=True)
    return {"family": family, "mode": mode, "cold": cold, "warm": warm,
            "loadavg_1min": [load, os.getloadavg()[0]]}


def short_name(name):
    """``latentkit...._kernel`` -> ``_kernel``; numba's own overloads -> ``numba:ol_min``."""
    if name.startswith("latentkit."):
        return name.rsplit(".", 1)[-1]
    return "numba:" + name.split(".<locals>")[0].rsplit(".", 1)[-1]


def _fmt_kernels(kernels, top):
    items = sorted(kernels.items(), key=lambda kv: -kv[1]["self_cpu"])[:top]
    return ", ".join(f"{short_name(name)} {rec['self_cpu']:.1f}"
                     + (f" (x{rec['n']})" if rec["n"] > 1 else "") for name, rec in items)


def print_table(results, top):
    """One row per job; the kernels by compile CPU seconds (self: callees excluded)."""
    print(f"load average (1, 5, 15 min): {os.getloadavg()}")
    head = (f"{'job':<17} {'load':>9} {'cold s':>7} {'warm s':>7} {'cold/warm':>9} "
            f"{'compile s':>9} {'cpu s':>6} {'share':>6} {'kernels':>7} {'warm ev':>7} "
            f"{'import s c/w':>13}  top kernels (self compile cpu s)")
    print(head)
    print("-" * len(head))
    for r in results:
        c, w = r["cold"], r["warm"]
        load = "{:.1f}-{:.1f}".format(*r["loadavg_1min"])
        warm_s = f"{w['wall_s']:7.1f}" if w else f"{'-':>7}"
        ratio = f"{c['wall_s'] / w['wall_s']:9.1f}" if w else f"{'-':>9}"
        warm_ev = f"{w['n_compile_events']:7d}" if w else f"{'-':>7}"
        warm_imp = f"{w['import_s']:<6.1f}" if w else f"{'-':<6}"
        print(f"{r['mode'] + ' ' + r['family']:<17} {load:>9} {c['wall_s']:7.1f} {warm_s} "
              f"{ratio} {c['compile_s']:9.1f} {c['compile_cpu_s']:6.1f} "
              f"{c['compile_s'] / c['wall_s']:6.0%} {len(c['kernels']):7d} "
              f"{warm_ev} {c['import_s']:6.1f}/{warm_imp}  "
              f"{_fmt_kernels(c['kernels'], top)}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default=",".join(JOBS),
                    help=f"comma-separated families (default all: {','.join(JOBS)})")
    ap.add_argument("--mode", choices=["cli", "python", "both"], default="both",
                    help="the CLI job, the Python first call, or both (default)")
    ap.add_argument("--top", type=int, default=4, help="kernels listed per job (by self time)")
    ap.add_argument("--json", default=None, metavar="PATH", help="write every measurement here")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds per child process")
    ap.add_argument("--cold-only", action="store_true",
                    help="skip the warm process (compile times only)")
    ap.add_argument("--_child", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--_mode", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--_out", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args._child:
        _child(args._child, args._mode, args._out)
        return
    families = [f.strip() for f in args.only.split(",") if f.strip()]
    unknown = [f for f in families if f not in JOBS]
    if unknown:
        ap.error(f"--only: unknown families {unknown}; expected some of {list(JOBS)}")
    modes = ["cli", "python"] if args.mode == "both" else [args.mode]
    results = []
    for family in families:
        for mode in modes:
            if mode == "cli" and JOBS[family][0] is None:
                continue  # a Python-only job
            res = measure(family, mode, args.timeout, args.cold_only)
            if res is None:
                continue
            results.append(res)
            warm = res["warm"]["wall_s"] if res["warm"] else float("nan")
            print(f"done: {mode} {family} (cold {res['cold']['wall_s']:.1f} s, "
                  f"warm {warm:.1f} s)", file=sys.stderr, flush=True)
    print_table(results, args.top)
    if args.json:
        Path(args.json).write_text(json.dumps({"loadavg": os.getloadavg(), "results": results},
                                              indent=1))


if __name__ == "__main__":
    main()
