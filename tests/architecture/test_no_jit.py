"""The kernel oracles hold with the JIT disabled (``LATENTKIT_DISABLE_JIT=1``): the kernels
then run as plain Python, which is what a user debugging a kernel (or a platform without
numba's compiler) gets. A small subset, one per kernel family, in a subprocess so that this
process keeps its compiled kernels."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: one oracle comparison per kernel family (small problems: plain Python is slow)
SUBSET = [
    "tests/sequence/test_hmm_kernels.py::test_forward_only_matches_oracle",
    "tests/distributions/test_gaussian_block.py::test_kernels_match_oracle_directly",
    "tests/topic/test_plsa.py::test_e_step_kernel_matches_dense_oracle",
    "tests/spectral/test_kernels_spectral.py::test_rows_kernel_with_corrections_vs_oracle",
    "tests/sequence/test_hsmm.py::test_kernels_equal_their_numpy_oracles[True]",
    "tests/sequence/test_iohmm.py::test_kernels_equal_oracles[0]",
]

#: run in the subprocess first: the switch took effect (a kernel is a plain function)
_PROBE = ("import sys, pytest; from latentkit._kernels import _jit, hmm; "
          "assert _jit.JIT_DISABLED; "
          "assert not hasattr(hmm.forward_scaled, 'py_func'), 'kernel is still compiled'; "
          "sys.exit(pytest.main(sys.argv[1:]))")


def _env():
    env = dict(os.environ, LATENTKIT_DISABLE_JIT="1")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


def test_kernel_oracles_hold_without_jit():
    proc = subprocess.run([sys.executable, "-c", _PROBE, "-q", "-p", "no:cacheprovider",
                           *SUBSET], cwd=ROOT, env=_env(), capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert f"{len(SUBSET)} passed" in proc.stdout, proc.stdout[-2000:]
