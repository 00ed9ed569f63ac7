"""``latentkit sample MODEL.npz -n N --out FILE``: synthetic rows drawn from a saved model's
generative process (its ``sample`` method).

For a privately fitted model (``fit ... --private``) the draws are a post-processing of the
released parameters: they read nothing but the saved file, so they are covered by the epsilon
of the fit that produced it and spend no new budget (issue 40 item 7). The draws' randomness
is ``--seed`` (public) or fresh entropy.
"""

import numpy as np
import scipy.sparse as sp

from ..io import load
from ._common import CLIError

__all__ = ["add_parser"]


def add_parser(sub):
    """Add ``sample`` to the ``latentkit`` subparsers.

    Examples
    --------
    >>> import argparse
    >>> from latentkit.cli import cmd_sample
    >>> parser = argparse.ArgumentParser(prog="latentkit")
    >>> cmd_sample.add_parser(parser.add_subparsers(dest="command"))
    >>> args = parser.parse_args(["sample", "model.npz", "-n", "5", "--out", "draws.csv"])
    >>> args.command, args.n_samples
    ('sample', 5)
    """
    p = sub.add_parser("sample", help="draw synthetic rows from a saved model (a private "
                                      "model's draws inherit its epsilon: no new budget)")
    p.add_argument("path", help="model file (.npz) saved with --out / latentkit.io.save")
    p.add_argument("-n", "--n-samples", type=int, required=True, metavar="N",
                   help="number of rows to draw")
    p.add_argument("--out", required=True, metavar="FILE",
                   help="where to write the rows: .csv (comma-separated numbers) or .npz")
    p.add_argument("--seed", type=int, default=None,
                   help="seed of the draws (default: fresh entropy)")
    p.add_argument("--doc-length", type=float, default=None, metavar="L",
                   help="topic models: mean document length (required for a private fit, "
                        "which stores none)")
    p.set_defaults(handler=_cmd_sample)


def draw(model, n_samples, seed=None, doc_length=None):
    """``model.sample(n_samples, random_state=rng)`` as a dense or sparse array of rows.

    ``rng`` is ``numpy.random.default_rng(seed)`` (fresh entropy when ``seed`` is None), so
    the draws read only the model's parameters and the seed.

    Returns
    -------
    ndarray or scipy.sparse.csr_matrix of shape (n_samples, n_features)
    """
    if n_samples < 1:
        raise CLIError(f"-n must be at least 1, got {n_samples}.")
    if not hasattr(model, "sample"):
        raise CLIError(f"a {type(model).__name__} has no generative process to sample from.")
    rng = np.random.default_rng(seed)
    kw = {} if doc_length is None else {"doc_length": doc_length}
    try:
        out = model.sample(n_samples, random_state=rng, **kw)
    except TypeError:
        raise CLIError(f"--doc-length applies to topic models only, not to a "
                       f"{type(model).__name__}.") from None
    except ValueError as e:
        raise CLIError(str(e).replace("doc_length", "--doc-length")) from None
    return out[0] if isinstance(out, tuple) else out


def _cmd_sample(args, out):
    model = load(args.path)
    rows = draw(model, args.n_samples, args.seed, args.doc_length)
    if args.out.endswith(".npz"):
        if sp.issparse(rows):
            sp.save_npz(args.out, sp.csr_matrix(rows))
        else:
            np.savez(args.out, X=np.asarray(rows))
    elif args.out.endswith(".csv"):
        dense = rows.toarray() if sp.issparse(rows) else np.asarray(rows)
        np.savetxt(args.out, dense, delimiter=",", fmt="%.17g")
    else:
        raise CLIError(f"--out must end in .csv or .npz, got {args.out!r}.")
    eps = getattr(model, "privacy_report_", None)
    note = ""
    if isinstance(eps, dict) and "epsilon" in eps:
        note = (f" (post-processing of a private fit: covered by its epsilon "
                f"{eps['epsilon']:g}, no new budget)")
    out.write(f"{args.n_samples} rows of {type(model).__name__} -> {args.out}{note}\n")
    return 0
