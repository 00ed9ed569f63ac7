"""Dump every fitted array of every model path to one ``.npz``, and compare two dumps bit for bit.

The refactoring check of the structural issues: run ``python tools/fit_dump.py dump before.npz``
on the old tree and ``... dump after.npz`` on the new one, then
``python tools/fit_dump.py compare before.npz after.npz``: every array must be identical (NaN
equal to NaN, same dtype and shape). It covers every model of ``tests/_model_cases.py`` (``fit``,
``partial_fit``, ``transform``/``predict_proba``, ``score``), the spectral estimators, the spectral
starts, SQUAREM, online LDA, :class:`latentkit.StochasticVI`, private SVI (fixed noise
generator), the private VAE and ``sample``.
"""
import argparse
import os
import sys
import warnings

import numpy as np

# the tree in the working directory, not an installed latentkit
sys.path[:0] = [os.getcwd(), os.path.join(os.getcwd(), "tests")]


def _arrays(model):
    out = {}
    for k, v in sorted(vars(model).items()):
        if k.startswith("_") or not k.endswith("_") or "time" in k:
            continue
        if isinstance(v, (list, tuple)) and v and all(isinstance(x, (int, float, np.floating, np.integer)) for x in v):
            out[k] = np.asarray(v)
        elif isinstance(v, (np.ndarray, float, int, np.floating, np.integer)) and not isinstance(v, bool):
            out[k] = np.asarray(v)
    return out


def _outputs(model, X):
    out = {}
    for meth in ("transform", "predict_proba", "predict", "score_samples"):
        f = getattr(model, meth, None)
        if f is None:
            continue
        try:
            out["out." + meth] = np.asarray(f(X), dtype=float)
        except Exception as exc:  # a method a model does not support on this input
            out["out." + meth + ".error"] = np.array(type(exc).__name__)
    for meth in ("score", "elbo"):
        f = getattr(model, meth, None)
        if f is not None:
            try:
                out["out." + meth] = np.asarray(f(X), dtype=float)
            except Exception as exc:
                out["out." + meth + ".error"] = np.array(type(exc).__name__)
    return out


def _record(store, name, model, X=None):
    for k, v in _arrays(model).items():
        store[f"{name}/{k}"] = v
    if X is not None:
        for k, v in _outputs(model, X).items():
            store[f"{name}/{k}"] = v


def dump(path):
    import latentkit as lk
    from _model_cases import CASES, SPECTRAL_CASES
    store = {}
    warnings.simplefilter("ignore")
    for name, (factory, data, *_) in CASES.items():
        X = data(120, 0)
        m = factory().fit(X)
        _record(store, name, m, X)
        try:
            s = m.sample(7) if name != "VAE" else m.sample(7, random_state=0)
            store[f"{name}/sample"] = np.asarray(s[0] if isinstance(s, tuple) else s, dtype=float)
        except Exception as exc:
            store[f"{name}/sample.error"] = np.array(type(exc).__name__)
        if hasattr(m, "partial_fit"):
            p = factory()
            try:
                for s in range(3):
                    p.partial_fit(data(40, s + 1))
                _record(store, name + "+partial", p)
            except Exception as exc:
                store[f"{name}+partial/error"] = np.array(type(exc).__name__)
    for name, (factory, data) in SPECTRAL_CASES.items():
        if name.startswith("Private"):  # noise from OS entropy by design: not reproducible
            continue
        X = data(300, 0)
        m = factory().fit(X)
        _record(store, name, m)
    gx = CASES["GaussianMixture"][1](200, 3)
    cx = CASES["LatentDirichletAllocation"][1](150, 3)
    sx = CASES["CategoricalHMM"][1](200, 3)
    px = CASES["PoissonHMM"][1](200, 3)
    runs = {
        "GMM-spectral": lambda: lk.GaussianMixture(3, init="spectral", random_state=1).fit(gx),
        "VGMM-spectral": lambda: lk.VariationalGaussianMixture(3, init="spectral", random_state=1).fit(gx),
        "DPMM-spectral": lambda: lk.DirichletProcessMixture(4, init="spectral", random_state=1).fit(gx),
        "LDA-default": lambda: lk.LatentDirichletAllocation(3, random_state=1).fit(cx),
        "LDA-spectral": lambda: lk.LatentDirichletAllocation(3, init="spectral", random_state=1).fit(cx),
        # online LDA, once LatentDirichletAllocation(3, learning_method="online", batch_size=32, max_iter=4, random_state=1)
        "LDA-online": lambda: lk.StochasticVI(lk.LatentDirichletAllocation(3), batch_size=32, n_epochs=4, random_state=1).fit(cx),
        "PLSA-spectral": lambda: lk.PLSA(3, init="spectral", random_state=1).fit(cx),
        "CatHMM-spectral": lambda: lk.CategoricalHMM(2, n_features=4, init="spectral", random_state=1).fit(sx),
        "PoisHMM-spectral": lambda: lk.PoissonHMM(2, init="spectral", random_state=1).fit(px),
        "SVI-LDA": lambda: lk.StochasticVI(lk.LatentDirichletAllocation(3, random_state=1), batch_size=32, n_epochs=3, random_state=2).fit(cx),
        "SVI-GMM": lambda: lk.StochasticVI(lk.VariationalGaussianMixture(3, random_state=1), batch_size=40, n_epochs=3, random_state=2).fit(gx),
        "SVI-HMM": lambda: lk.StochasticVI(lk.CategoricalHMM(2, n_features=4, random_state=1), batch_size=2, n_epochs=2, random_state=2).fit(sx, lengths=[50] * 4),
    }
    try:
        from latentkit._engine.acceleration import squarem_fit
    except ImportError:  # the layout before issue 25
        from latentkit._acceleration import squarem_fit
    runs["SQUAREM-GMM"] = lambda: squarem_fit(lk.GaussianMixture(3, random_state=1, tol=1e-8), gx)
    runs["SQUAREM-LDA"] = lambda: squarem_fit(lk.LatentDirichletAllocation(3, random_state=1, init="random"), cx)
    for name, run in runs.items():
        try:
            m = run()
            if hasattr(m, "model_"):  # a driver: its own record, then its fitted model's
                _record(store, name + "/driver", m)
                m = m.model_
            _record(store, name, m, gx if "GMM" in name and "HMM" not in name else None)
        except Exception as exc:
            store[f"{name}/error"] = np.array(f"{type(exc).__name__}: {exc}"[:200])
    np.savez(path, **store)
    print(f"{len(store)} arrays from {len({k.split('/')[0] for k in store})} runs -> {path}")


def compare(a, b):
    A, B = np.load(a), np.load(b)
    ka, kb = set(A.files), set(B.files)
    bad = 0
    for k in sorted(ka - kb):
        print("only in", a, k); bad += 1
    for k in sorted(kb - ka):
        print("only in", b, k); bad += 1
    for k in sorted(ka & kb):
        x, y = A[k], B[k]
        if x.shape != y.shape or x.dtype != y.dtype or not np.array_equal(x, y, equal_nan=x.dtype.kind == "f"):
            diff = ""
            if x.shape == y.shape and x.dtype.kind == "f" and y.dtype.kind == "f":
                diff = f" max |diff| {np.nanmax(np.abs(x - y)) if x.size else 0:.3g}"
            print("differs", k, x.dtype, x.shape, y.dtype, y.shape, diff); bad += 1
    print(f"{len(ka & kb)} arrays compared, {bad} differences")
    return 1 if bad else 0


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("dump"); d.add_argument("out")
    c = sub.add_parser("compare"); c.add_argument("a"); c.add_argument("b")
    args = p.parse_args()
    sys.exit(dump(args.out) if args.cmd == "dump" else compare(args.a, args.b))
