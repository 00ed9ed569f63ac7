"""Ctrl-C during ``latentkit fit ... --out`` (issue 26, item 8): the model of the last
completed iteration is saved, marked not converged, and the command says so; interrupted
before any iteration completed, it says that nothing was saved. Tested by sending SIGINT to a
real CLI subprocess."""

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

import latentkit
from latentkit import cli

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
@pytest.mark.skipif(os.name != "posix", reason="SIGINT to a subprocess")
def test_sigint_saves_the_last_completed_iteration(tmp_path):
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(size=(3000, 4)), rng.normal(size=(3000, 4)) + 2.0])
    np.savetxt(tmp_path / "x.csv", X, delimiter=",")
    out = tmp_path / "m.npz"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT),
                                                       os.environ.get("PYTHONPATH", "")]))
    # the progress bar shows from the first iteration on (delay 0); far too many
    # iterations to finish before the interrupt
    code = ("import latentkit.cli._common as c, sys; c.Progress.__init__.__defaults__ = "
            "(True, 'fit', 0.0); from latentkit.cli import main; sys.exit(main())")
    proc = subprocess.Popen(
        [sys.executable, "-c", code, "fit", "gmm", "--data", str(tmp_path / "x.csv"), "-k", "8",
         "--max-iter", "100000", "--tol", "0", "--out", str(out)],
        env=env, stderr=subprocess.PIPE, stdout=subprocess.PIPE)
    seen = bytearray()
    iterating = threading.Event()

    def read():
        while True:
            b = proc.stderr.read(1)
            if not b:
                return
            seen.extend(b)
            if b"ELBO" in seen:
                iterating.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert iterating.wait(240), bytes(seen).decode(errors="replace")[-2000:]
        proc.send_signal(signal.SIGINT)
        assert proc.wait(120) == 130
    finally:
        if proc.poll() is None:
            proc.kill()
    reader.join(30)
    err = bytes(seen).decode(errors="replace")
    assert "saved the model of iteration" in err and "latentkit: interrupted" in err, err
    model = latentkit.load(out)
    n = int(err.split("saved the model of iteration ")[1].split()[0])
    assert model.n_iter_ == n >= 1 and model.converged_ is False
    assert len(model.lower_bounds_) == n
    assert np.isfinite(model.score(X))


def test_interrupt_before_any_iteration_says_nothing_was_saved(tmp_path, monkeypatch, capsys):
    def interrupted(args, progress):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli.FIT_COMMANDS["gmm"], "run", interrupted)
    out = tmp_path / "m.npz"
    assert cli.main(["fit", "gmm", "--out", str(out)]) == 130
    err = capsys.readouterr().err
    assert "nothing was saved" in err and "latentkit: interrupted" in err
    assert not out.exists()
