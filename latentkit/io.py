"""Save and load fitted models as ``.npz`` files with JSON metadata — never pickle.

File layout (a NumPy ``.npz`` zip, written with ``numpy.savez_compressed`` and read with
``allow_pickle=False``):

- ``__metadata__``: UTF-8 JSON bytes (uint8 array) with ``format`` (``'latentkit-model'``),
  ``format_version``, ``class`` and ``module``, ``latentkit_version``, ``params`` (the
  hyper-parameters; arrays are stored as separate members and referenced), ``attributes`` (the
  name, kind, dtype and shape of every fitted attribute stored) and ``skipped`` (attributes and
  parameters that could not be stored without pickle, e.g. ``monitor_`` or a ``callback``).
- ``attr/<name>``: one member per fitted attribute (arrays and scalars).
- ``param/<name>[/<key>]``: array-valued hyper-parameters (e.g. an ``init`` dict of arrays).

What is stored is generic over any :class:`latentkit.base.LatentModel`: every instance attribute
that is not a hyper-parameter, ends in ``_`` (public fitted attributes such as ``means_``,
``lower_bounds_``) or starts with a single ``_`` (private caches derived from them), and is a
NumPy array of a non-object dtype, a number, a bool, a str or None. Anything else (the
``monitor_``, running statistics of ``partial_fit``, callables) is skipped and listed in the
metadata; after loading, a model may define ``_restore_fitted_state()`` to rebuild such state.
"""

import importlib
import json
import numbers
import os
import sys
import hashlib
import zipfile
import zlib

import numpy as np

__all__ = ["save", "load", "read_metadata", "ModelFileError"]

FORMAT = "latentkit-model"
FORMAT_VERSION = 1
_META_KEY = "__metadata__"


class ModelFileError(ValueError):
    """A model file is corrupt, not a latentkit model file, or from an incompatible version."""


def _version():
    from . import __version__

    return __version__


def _major(version):
    try:
        return int(str(version).split(".")[0])
    except ValueError:
        return None


# ----------------------------------------------------------------------------- encoding

def _is_scalar(v):
    return v is None or isinstance(v, (bool, str, numbers.Number, np.generic))


def _scalar_to_json(v):
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and not np.isfinite(v):
        return {"__float__": repr(v)}  # JSON has no inf/nan
    if isinstance(v, complex):
        return {"__complex__": [v.real, v.imag]}
    return v


def _json_to_scalar(v):
    if isinstance(v, dict) and "__float__" in v:
        return float(v["__float__"])
    if isinstance(v, dict) and "__complex__" in v:
        return complex(*v["__complex__"])
    return v


def _encode_param(value, key, arrays, skipped, name):
    """JSON form of a hyper-parameter; arrays go into ``arrays`` under ``key``."""
    if _is_scalar(value):
        return _scalar_to_json(value)
    if isinstance(value, np.ndarray):
        if value.dtype == object:
            skipped.append(name)
            return {"__dropped__": "object array"}
        arrays[key] = value
        return {"__array__": key}
    if isinstance(value, (list, tuple)):
        return {"__seq__": type(value).__name__,
                "items": [_encode_param(v, f"{key}/{i}", arrays, skipped, name)
                          for i, v in enumerate(value)]}
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {"__dict__": {k: _encode_param(v, f"{key}/{k}", arrays, skipped, name)
                             for k, v in value.items()}}
    skipped.append(name)
    return {"__dropped__": type(value).__name__}


def _decode_param(enc, npz):
    if isinstance(enc, dict):
        if "__array__" in enc:
            return np.array(npz[enc["__array__"]])
        if "__seq__" in enc:
            items = [_decode_param(v, npz) for v in enc["items"]]
            return tuple(items) if enc["__seq__"] == "tuple" else items
        if "__dict__" in enc:
            return {k: _decode_param(v, npz) for k, v in enc["__dict__"].items()}
        if "__dropped__" in enc:
            return None
        return _json_to_scalar(enc)
    return enc


# ----------------------------------------------------------------------------- save

def save(model, path):
    """Save a fitted model to ``path`` (an ``.npz`` file; no pickle).

    Parameters
    ----------
    model : latentkit.base.LatentModel
        A fitted model (any latentkit model; see the module docstring for what is stored).
    path : str or path-like
        Destination, written as given (no suffix is added; ``.npz`` is conventional).

    Returns
    -------
    pathlib.Path-like str
        ``path``.

    Raises
    ------
    TypeError
        ``model`` is not a latentkit model.
    latentkit.base.NotFittedError
        ``model`` is not fitted.

    Notes
    -----
    Hyper-parameters that cannot be stored without pickle (a ``callback`` function, a
    ``numpy.random.Generator`` as ``random_state``) are saved as None and listed in the
    metadata's ``skipped``. Source: DESIGN.md section 6 (files and safety).
    """
    from .base import LatentModel, NotFittedError, ParamsMixin

    if not isinstance(model, ParamsMixin):
        raise TypeError(f"model must be a latentkit model (a LatentModel), got "
                        f"{type(model).__name__}.")
    checker = getattr(model, "_check_is_fitted", None)
    if checker is not None:
        checker()
    params = model.get_params(deep=False)
    arrays, skipped, attributes = {}, [], {}
    enc_params = {name: _encode_param(v, f"param/{name}", arrays, skipped, name)
                  for name, v in params.items()}
    for name, value in vars(model).items():
        if name in params or name.startswith("__"):
            continue
        if not (name.endswith("_") or name.startswith("_")):
            continue
        if isinstance(value, np.ndarray) and value.dtype != object:
            arrays[f"attr/{name}"] = value
            attributes[name] = {"kind": "array", "dtype": value.dtype.str,
                                "shape": list(value.shape)}
        elif _is_scalar(value):
            attributes[name] = {"kind": "scalar", "type": type(value).__name__,
                                "value": _scalar_to_json(value)}
        elif isinstance(value, LatentModel):
            raise TypeError(
                f"{type(model).__name__}.{name} is a fitted {type(value).__name__}, which "
                f"cannot be stored inside another model's file; save it on its own: "
                f"latentkit.save(obj.{name}, path).")
        else:
            skipped.append(name)
    if not any(a for a in attributes if not a.startswith("_")):
        raise NotFittedError(f"This {type(model).__name__} instance has no fitted attributes to "
                             "save; call 'fit' first.")
    meta = {
        "sha256": _digest(arrays),
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "class": type(model).__qualname__,
        "module": type(model).__module__,
        "latentkit_version": _version(),
        "numpy_version": np.__version__,
        "params": enc_params,
        "attributes": attributes,
        "skipped": sorted(set(skipped)),
    }
    arrays[_META_KEY] = np.frombuffer(json.dumps(meta).encode("utf-8"), dtype=np.uint8)
    with open(os.fspath(path), "wb") as fh:
        np.savez_compressed(fh, **arrays)
    return path


# ----------------------------------------------------------------------------- load

# what numpy/zipfile raise on a damaged archive or member (zlib on a bad deflate stream,
# NotImplementedError on a mangled zip version field)
_READ_ERRORS = (zipfile.BadZipFile, zlib.error, NotImplementedError, ValueError, OSError, EOFError)


def _digest(arrays):
    """sha256 over every stored array (name, dtype, shape, bytes), in name order."""
    h = hashlib.sha256()
    for name in sorted(arrays):
        a = np.ascontiguousarray(arrays[name])
        h.update(f"{name}|{a.dtype.str}|{a.shape}|".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def _open(path):
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"model file not found: {path!r}.")
    try:
        npz = np.load(path, allow_pickle=False)
    except _READ_ERRORS as exc:
        raise ModelFileError(f"{path!r} is not a latentkit model file or is corrupt (not a "
                             f"readable .npz archive: {exc}).") from None
    if not isinstance(npz, np.lib.npyio.NpzFile):
        raise ModelFileError(f"{path!r} is a single .npy array, not a latentkit model file.")
    return npz


def _read_meta(npz, path):
    try:
        raw = npz[_META_KEY]
    except KeyError:
        raise ModelFileError(f"{os.fspath(path)!r} is a .npz file without latentkit metadata; "
                             "it was not written by latentkit.io.save.") from None
    except _READ_ERRORS as exc:
        raise ModelFileError(f"{os.fspath(path)!r} is corrupt: {exc}.") from None
    try:
        meta = json.loads(bytes(raw.astype(np.uint8)).decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise ModelFileError(f"{os.fspath(path)!r}: the metadata are not valid JSON ({exc}); the "
                             "file is corrupt.") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ModelFileError(f"{os.fspath(path)!r} is not a latentkit model file "
                             f"(format {meta.get('format') if isinstance(meta, dict) else None!r}).")
    for key in ("class", "module", "latentkit_version", "params", "attributes"):
        if key not in meta:
            raise ModelFileError(f"{os.fspath(path)!r}: metadata lack {key!r}; the file is corrupt.")
    return meta


def read_metadata(path):
    """The JSON metadata of a saved model, without building the model.

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    dict
        Keys ``format``, ``format_version``, ``class``, ``module``, ``latentkit_version``,
        ``params``, ``attributes``, ``skipped`` (see the module docstring).

    Raises
    ------
    ModelFileError
        Not a latentkit model file, or corrupt.
    FileNotFoundError
    """
    with _open(path) as npz:
        return _read_meta(npz, path)


def _resolve_class(meta, model_class, path):
    name, module = meta["class"], meta["module"]
    if model_class is not None:
        if model_class.__qualname__ != name:
            raise ModelFileError(f"{os.fspath(path)!r} holds a {name}, not a "
                                 f"{model_class.__qualname__}.")
        return model_class
    if module == "latentkit" or module.startswith("latentkit."):
        try:
            mod = importlib.import_module(module)
        except ImportError as exc:
            raise ModelFileError(f"{os.fspath(path)!r} holds a {module}.{name}, which this "
                                 f"latentkit version cannot import ({exc}).") from None
    elif module in sys.modules:
        mod = sys.modules[module]
    else:
        raise ModelFileError(
            f"{os.fspath(path)!r} holds a {module}.{name}, which is not part of latentkit; "
            f"import it and pass it as load(path, model_class={name}). Modules outside latentkit "
            "are never imported from a file.")
    cls = mod
    for part in name.split("."):
        cls = getattr(cls, part, None)
    if not isinstance(cls, type):
        raise ModelFileError(f"{os.fspath(path)!r} holds a {module}.{name}, which does not exist "
                             "in this version.")
    return cls


def load(path, model_class=None):
    """Load a model saved by :func:`save`.

    Parameters
    ----------
    path : str or path-like
    model_class : type, optional
        The class to rebuild, required only for classes defined outside latentkit whose
        module is not imported (modules outside latentkit are never imported from a file).

    Returns
    -------
    LatentModel
        A fitted model of the saved class with the saved hyper-parameters and fitted
        attributes. Hyper-parameters that were not storable (a callback) are None.

    Raises
    ------
    ModelFileError
        The file is corrupt, is not a latentkit model file, has another format version, was
        written by another major version of latentkit, or holds an unknown class.
    FileNotFoundError

    Notes
    -----
    Source: DESIGN.md section 6 (npz with ``allow_pickle=False`` plus JSON metadata).
    """
    with _open(path) as npz:
        meta = _read_meta(npz, path)
        if meta.get("format_version") != FORMAT_VERSION:
            raise ModelFileError(f"{os.fspath(path)!r} uses model file format version "
                                 f"{meta.get('format_version')!r}; this latentkit reads version "
                                 f"{FORMAT_VERSION}.")
        saved, current = meta["latentkit_version"], _version()
        if _major(saved) != _major(current):
            raise ModelFileError(f"{os.fspath(path)!r} was written by latentkit {saved}; this is "
                                 f"latentkit {current} (another major version). Refit the model "
                                 "or load it with the version that wrote it.")
        cls = _resolve_class(meta, model_class, path)
        try:
            if "sha256" in meta:
                stored = {k: npz[k] for k in npz.files if k != _META_KEY}
                if _digest(stored) != meta["sha256"]:
                    raise ModelFileError(f"{os.fspath(path)!r} is corrupt: the stored arrays do "
                                         "not match the checksum written with them.")
            params = {k: _decode_param(v, npz) for k, v in meta["params"].items()}
            attrs = {}
            for name, info in meta["attributes"].items():
                if info["kind"] == "array":
                    arr = np.array(npz[f"attr/{name}"])
                    if list(arr.shape) != info["shape"]:
                        raise ModelFileError(f"{os.fspath(path)!r}: attribute {name} has shape "
                                             f"{arr.shape}, metadata say {tuple(info['shape'])}; "
                                             "the file is corrupt.")
                    attrs[name] = arr
                else:
                    value = _json_to_scalar(info["value"])
                    t = info.get("type")
                    if t in ("int", "int64", "int32") and value is not None:
                        value = int(value)
                    elif t in ("float", "float64", "float32") and value is not None:
                        value = float(value)
                    elif t in ("bool", "bool_") and value is not None:
                        value = bool(value)
                    attrs[name] = value
        except ModelFileError:
            raise
        except (KeyError, TypeError) + _READ_ERRORS as exc:
            raise ModelFileError(f"{os.fspath(path)!r} is corrupt: {type(exc).__name__}: "
                                 f"{exc}.") from None
    valid = set(cls._get_param_names()) if hasattr(cls, "_get_param_names") else set(params)
    unknown = sorted(set(params) - valid)
    if unknown:
        raise ModelFileError(f"{os.fspath(path)!r}: {cls.__qualname__} in this version has no "
                             f"hyper-parameter(s) {unknown}.")
    model = cls(**params)
    for name, value in attrs.items():
        setattr(model, name, value)
    restore = getattr(model, "_restore_fitted_state", None)
    if callable(restore):
        restore()
    return model
