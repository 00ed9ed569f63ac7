"""Interrupted saves (issue 26, item 5): a save killed mid-write (SIGKILL) leaves its
temporary file ``.NAME.<pid>.<hex>.tmp`` beside the target; the next save of the same target
removes it, and leaves alone the temporary files of live writers and of other targets."""

import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from latentkit import io
from latentkit.mixture import GaussianMixture

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(os.name != "posix", reason="writer liveness is POSIX-only")

# saves a model, but stops for good (waiting to be killed) after the first bytes of the archive
_WRITER = """
import sys, time
import numpy as np
import latentkit.io as io
from latentkit.mixture import GaussianMixture

def stuck(fh, **arrays):
    fh.write(b"PK partial archive")
    fh.flush()
    print("writing", flush=True)
    time.sleep(600)

np.savez_compressed = stuck
g = GaussianMixture(2, random_state=0).fit(np.random.default_rng(0).normal(size=(50, 2)))
io.save(g, sys.argv[1])
"""


def _temporaries(folder, target):
    return sorted(p.name for p in folder.iterdir()
                  if p.name.startswith(f".{target}.") and p.name.endswith(".tmp"))


@pytest.fixture
def model():
    return GaussianMixture(2, random_state=0).fit(np.random.default_rng(1).normal(size=(50, 2)))


def test_a_writer_killed_mid_save_leaves_a_temporary_the_next_save_removes(tmp_path, model):
    target = tmp_path / "model.npz"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT),
                                                       os.environ.get("PYTHONPATH", "")]))
    writer = subprocess.Popen([sys.executable, "-c", _WRITER, str(target)], env=env,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert writer.stdout.readline().strip() == "writing"
        left = _temporaries(tmp_path, "model.npz")
        assert left == [left[0]] and f".model.npz.{writer.pid}." in left[0]
    finally:
        writer.send_signal(signal.SIGKILL)
        writer.wait(60)
        writer.stdout.close()
    assert _temporaries(tmp_path, "model.npz") == left  # the killed writer's file stays...
    io.save(model, target)
    assert _temporaries(tmp_path, "model.npz") == []  # ... until the next save
    np.testing.assert_array_equal(io.load(target).means_, model.means_)


def test_only_dead_writers_files_of_the_same_target_are_removed(tmp_path, model):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait(60)
    alive = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        names = {
            "dead": f".m.npz.{dead.pid}.0123abcd.tmp",
            "alive": f".m.npz.{alive.pid}.0123abcd.tmp",
            "mine": f".m.npz.{os.getpid()}.89abcdef.tmp",   # another thread saving now
            "other target": f".other.npz.{dead.pid}.0123abcd.tmp",
            "not ours": f".m.npz.{dead.pid}.notahexx.tmp",
        }
        for name in names.values():
            (tmp_path / name).write_bytes(b"partial")
        io.save(model, tmp_path / "m.npz")
        left = {p.name for p in tmp_path.iterdir()}
        assert names["dead"] not in left
        assert {names[k] for k in ("alive", "mine", "other target", "not ours")} <= left
    finally:
        alive.kill()
        alive.wait(60)
