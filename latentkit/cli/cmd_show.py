"""``latentkit show MODEL.npz [--json]``: the class, parameters and fitted attributes of a model
saved with ``--out`` / :func:`latentkit.io.save` (and its top words when it is a topic model)."""

import json

import numpy as np

from .._utils.words import top_words
from ..io import load, read_metadata
from ._common import _finite, _tolist

__all__ = ["add_parser"]


def add_parser(sub):
    """Add ``show`` to the ``latentkit`` subparsers.

    Examples
    --------
    >>> import argparse
    >>> from latentkit.cli import cmd_show
    >>> parser = argparse.ArgumentParser(prog="latentkit")
    >>> cmd_show.add_parser(parser.add_subparsers(dest="command"))
    >>> args = parser.parse_args(["show", "model.npz"])
    >>> args.command
    'show'
    """
    p = sub.add_parser("show", help="summarise a model saved with --out / latentkit.io.save")
    p.add_argument("path", help="model file (.npz)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=_cmd_show)


def _cmd_show(args, out):
    meta = read_metadata(args.path)
    model = load(args.path)
    attrs = {k: getattr(model, k) for k in meta["attributes"] if not k.startswith("_")}
    if args.json:
        def enc(v):
            if isinstance(v, np.ndarray):
                return v.tolist() if v.dtype.kind in "US" else _tolist(v) if v.size <= 10000 \
                    else {"shape": list(v.shape), "dtype": v.dtype.str}
            return _finite(v) if isinstance(v, float) else v
        out.write(json.dumps({"class": meta["class"], "latentkit_version": meta["latentkit_version"],
                              "params": {k: v for k, v in model.get_params(deep=False).items()
                                         if isinstance(v, (int, float, str, bool, type(None)))},
                              "attributes": {k: enc(v) for k, v in attrs.items()}}) + "\n")
        return 0
    out.write(f"{meta['class']} saved by latentkit {meta['latentkit_version']} ({args.path})\n")
    out.write(f"  {model!r}\n")
    if "lower_bound_" in attrs:
        out.write(f"  lower_bound_ = {attrs['lower_bound_']:.6f} nats per "
                  f"{getattr(model, '_sample_unit', 'sample')} after "
                  f"{attrs.get('n_iter_')} iterations (converged: {attrs.get('converged_')})\n")
    out.write("fitted attributes:\n")
    np_opts = dict(precision=5, suppress_small=True, max_line_width=100)
    for k, v in sorted(attrs.items()):
        if k in ("lower_bound_", "n_iter_", "converged_"):
            continue
        if isinstance(v, np.ndarray):
            head = f"  {k}: {v.dtype} array of shape {v.shape}"
            if v.size <= 40 and v.dtype.kind in "fiubUS":
                body = np.array2string(v, **np_opts).replace("\n", "\n      ")
                out.write(f"{head}\n      {body}\n")
            else:
                out.write(head + "\n")
        else:
            out.write(f"  {k}: {v!r}\n")
    comps, names = attrs.get("components_"), attrs.get("feature_names_in_")
    if comps is not None and names is not None and comps.ndim == 2 and comps.shape[1] == len(names):
        out.write("top words per topic:\n")
        for i, words in enumerate(top_words(comps, [str(w) for w in names], 10)):
            out.write(f"  topic {i}: " + " ".join(words) + "\n")
    if meta.get("skipped"):
        out.write(f"not stored: {', '.join(meta['skipped'])}\n")
    return 0

