"""Worker processes and threads after a fit in the parent (issue 26, item 2): with GNU OpenMP
as numba's threading layer, a child forked after a parallel kernel ran in the parent was
terminated at its first parallel kernel and the pool hung. latentkit makes numba's TBB layer
loadable (``latentkit._kernels._layer``), which is fork-safe and thread-safe. Each start
method runs in a subprocess with a timeout, so a hang fails fast, and every worker's fit must
equal the parent's to the bit."""

import importlib.metadata
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).with_name("_fork_workloads.py")
ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(
    os.environ.get("LATENTKIT_DISABLE_JIT", "0") not in ("", "0"),
    reason="needs the compiled kernels")


def _tbb_installed():
    try:
        importlib.metadata.distribution("tbb")
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


def _env(**changes):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT),
                                                       os.environ.get("PYTHONPATH", "")]))
    for key in ("NUMBA_THREADING_LAYER", "NUMBA_THREADING_LAYER_PRIORITY"):
        env.pop(key, None)
    env.update(changes)
    return env


def _run(args, timeout=400, **env_changes):
    try:
        res = subprocess.run([sys.executable, *args], env=_env(**env_changes),
                             capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{args}: hung")
    assert res.returncode == 0, f"{args}: exit {res.returncode}\n{res.stderr[-3000:]}"
    return json.loads(res.stdout.splitlines()[-1])


@pytest.mark.slow
def test_workers_after_a_fit_in_the_parent():
    # one subprocess for every start method (the imports and the parent's fit are paid once)
    starts = ["spawn", "loky", "threads"]
    if _tbb_installed():  # GNU OpenMP, numba's choice without TBB, is not fork-safe
        starts += ["fork", "multiprocessing"]
    out = _run([str(SCRIPT), ",".join(starts)])
    for how in starts:
        assert out[how] == [True, True], (how, out)
    if _tbb_installed():
        assert out["layer"] == "tbb" and out["setup"] in ("loaded", "importable"), out


def test_an_explicit_user_choice_of_layer_is_kept():
    out = _run(["-c", _CHOICE], NUMBA_THREADING_LAYER="workqueue")
    assert out == {"setup": "user choice", "layer": "workqueue"}


_CHOICE = """
import json, numba, numpy as np
import latentkit._kernels._jit as jit
from latentkit.mixture import GaussianMixture
GaussianMixture(2, random_state=0).fit(np.random.default_rng(0).normal(size=(500, 2)))
print(json.dumps({"setup": jit.THREADING_LAYER_SETUP, "layer": numba.threading_layer()}))
"""
