"""Save and load fitted models as ``.npz`` files with JSON metadata — never pickle.

File layout (a NumPy ``.npz`` zip, written with ``numpy.savez_compressed`` and read with
``allow_pickle=False``):

- ``__metadata__``: UTF-8 JSON bytes (uint8 array) with ``sha256`` (over every stored array
  and the rest of the metadata as canonical JSON: format version 3; version 2 files, whose
  checksum covers the arrays only, still load), ``format`` (``'latentkit-model'``),
  ``format_version``, ``class`` and ``module``, ``latentkit_version``, ``params`` (the
  hyper-parameters; arrays are stored as separate members and referenced), ``attributes`` (the
  name, kind, dtype and shape of every fitted attribute stored) and ``skipped`` (attributes and
  parameters that could not be stored without pickle, e.g. ``monitor_`` or a ``callback``).
- ``attr/<name>``: one member per fitted attribute (arrays and scalars).
- ``param/<name>[/<key>]``: array-valued hyper-parameters (e.g. an ``init`` dict of arrays).
- ``state`` (in the metadata): JSON of the entries of the fitted state that are not plain public attributes
  (running statistics of ``partial_fit``, generator states, an HMM's emission component...),
  their arrays stored as ``state/<name>/...`` members.

What is stored is the model's fitted state, ``model._get_state()`` (by default its public
fitted attributes, ending in ``_``; each model adds what resuming needs, see
:meth:`latentkit.base.ParamsMixin._get_state`), and a loaded model is rebuilt by
``model._set_state(state)`` on a new instance with the saved hyper-parameters, so that
``save -> load -> partial_fit`` continues exactly where the original would. Nothing else
private is stored. Entries that cannot be stored without pickle (the ``monitor_``, objects)
are skipped and listed in the metadata. Files are written atomically: to a temporary file
``.NAME.<pid>.<hex>.tmp`` in the destination's folder, then moved over the destination with
:func:`os.replace`; a save first removes such files of the same target whose writer process
is dead (a save killed mid-write).
"""

import dataclasses
import errno
import importlib
import json
import numbers
import os
import sys
import hashlib
import secrets
import zipfile
import zlib

import numpy as np
from . import __version__
from ._engine.state_checks import check_state
from .base import LatentModel, NotFittedError, ParamsMixin, Stats
from .exceptions import ModelFileError, InputTypeError  # defined there; importable here as before

__all__ = ["save", "load", "read_metadata", "ModelFileError"]

FORMAT = "latentkit-model"
FORMAT_VERSION = 3  # 2: the fitted state (_get_state) replaces private attributes;
#                    3: the sha256 covers the metadata too
_READABLE_VERSIONS = (2, 3)  # version 2 files load (their checksum covers the arrays only)
_META_KEY = "__metadata__"


def _version():
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
    if isinstance(value, (set, frozenset)):  # e.g. an HMM's frozen={'startprob'}
        value = sorted(value, key=repr)
        return {"__seq__": "set",
                "items": [_encode_param(v, f"{key}/{i}", arrays, skipped, name)
                          for i, v in enumerate(value)]}
    if isinstance(value, (list, tuple)):
        return {"__seq__": type(value).__name__,
                "items": [_encode_param(v, f"{key}/{i}", arrays, skipped, name)
                          for i, v in enumerate(value)]}
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {"__dict__": {k: _encode_param(v, f"{key}/{k}", arrays, skipped, name)
                             for k, v in value.items()}}
    if isinstance(value, dict) and all(isinstance(k, numbers.Integral) and not isinstance(k, bool)
                                       for k in value):  # e.g. LDA's seed_topics {k: words}
        return {"__intdict__": [[int(k), _encode_param(v, f"{key}/{k}", arrays, skipped, name)]
                                for k, v in value.items()]}
    skipped.append(name)
    return {"__dropped__": type(value).__name__}


def _encode_state(value, key, arrays):
    """JSON form of one fitted-state entry (arrays into ``arrays``), or None when some part of
    it cannot be stored without pickle (the whole entry is then skipped)."""
    dropped = []
    if isinstance(value, Stats):
        enc = {"__stats__": type(value).__qualname__, "module": type(value).__module__,
               "fields": {f.name: _encode_param(getattr(value, f.name), f"{key}/{f.name}",
                                                arrays, dropped, key)
                          for f in dataclasses.fields(value)}}
    else:
        enc = _encode_param(value, key, arrays, dropped, key)
    if dropped:
        for k in [k for k in arrays if k == key or k.startswith(key + "/")]:
            del arrays[k]
        return None
    return enc


def _decode_state(enc, npz, path):
    """Inverse of :func:`_encode_state` (a Stats class is resolved like a model class: only
    from latentkit or from a module the user has imported)."""

    if isinstance(enc, dict) and "__stats__" in enc:
        cls = _resolve_class({"class": enc["__stats__"], "module": enc["module"]}, None, path)
        if not issubclass(cls, Stats):
            raise ModelFileError(f"{os.fspath(path)!r}: {enc['__stats__']} is not a statistics "
                                 "class; the file is corrupt.")
        renamed = getattr(cls, "_renamed_fields", {})  # old field names of older files
        return cls(**{renamed.get(k, k): _decode_param(v, npz) for k, v in enc["fields"].items()})
    return _decode_param(enc, npz)


def _decode_param(enc, npz):
    if isinstance(enc, dict):
        if "__array__" in enc:
            return np.array(npz[enc["__array__"]])
        if "__seq__" in enc:
            items = [_decode_param(v, npz) for v in enc["items"]]
            if enc["__seq__"] == "set":
                return set(items)
            return tuple(items) if enc["__seq__"] == "tuple" else items
        if "__dict__" in enc:
            return {k: _decode_param(v, npz) for k, v in enc["__dict__"].items()}
        if "__intdict__" in enc:
            return {int(k): _decode_param(v, npz) for k, v in enc["__intdict__"]}
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
    OSError
        The file cannot be written; an existing file at ``path`` is left untouched and no
        partial file remains (the archive is written to a temporary file in the same folder
        and moved over ``path`` with :func:`os.replace`).

    Notes
    -----
    Hyper-parameters that cannot be stored without pickle (a ``callback`` function, a
    ``numpy.random.Generator`` as ``random_state``) are saved as None and listed in the
    metadata's ``skipped``. Source: DESIGN.md section 6 (files and safety).

    Examples
    --------
    >>> import os, tempfile
    >>> import latentkit as lk
    >>> from latentkit.datasets import load_old_faithful
    >>> X = load_old_faithful().data
    >>> gmm = lk.GaussianMixture(n_components=2, random_state=0).fit(X)
    >>> path = os.path.join(tempfile.mkdtemp(), "geyser.npz")
    >>> _ = lk.save(gmm, path)          # returns the path written
    >>> bool((lk.load(path).means_ == gmm.means_).all())
    True
    """
    if not isinstance(model, ParamsMixin):
        raise InputTypeError(f"model must be a latentkit model (a LatentModel), got "
                        f"{type(model).__name__}.")
    checker = getattr(model, "_check_is_fitted", None)
    if checker is not None:
        checker()
    params = model.get_params(deep=False)
    arrays, skipped, attributes, extra = {}, [], {}, {}
    enc_params = {name: _encode_param(v, f"param/{name}", arrays, skipped, name)
                  for name, v in params.items()}
    for name, value in model._get_state().items():
        if isinstance(value, LatentModel):
            raise InputTypeError(
                f"{type(model).__name__}.{name} is a fitted {type(value).__name__}, which "
                f"cannot be stored inside another model's file; save it on its own: "
                f"latentkit.save(obj.{name}, path).")
        if name.endswith("_") and isinstance(value, np.ndarray) and value.dtype != object:
            arrays[f"attr/{name}"] = value
            attributes[name] = {"kind": "array", "dtype": value.dtype.str,
                                "shape": list(value.shape)}
        elif name.endswith("_") and _is_scalar(value):
            attributes[name] = {"kind": "scalar", "type": type(value).__name__,
                                "value": _scalar_to_json(value)}
        else:
            enc = _encode_state(value, f"state/{name}", arrays)
            if enc is None:
                skipped.append(name)
            else:
                extra[name] = enc
    if not attributes:
        raise NotFittedError(f"This {type(model).__name__} instance has no fitted attributes to "
                             "save; call 'fit' first.")
    meta = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "class": type(model).__qualname__,
        "module": type(model).__module__,
        "latentkit_version": _version(),
        "numpy_version": np.__version__,
        "params": enc_params,
        "attributes": attributes,
        "state": extra,
        "skipped": sorted(set(skipped)),
    }
    meta = json.loads(json.dumps(meta))  # the form load reads back (tuples as lists)
    meta["sha256"] = _digest(arrays, meta)
    arrays[_META_KEY] = np.frombuffer(json.dumps(meta).encode("utf-8"), dtype=np.uint8)
    _write_atomically(os.fspath(path), arrays)
    return path


def _writer_is_dead(pid):
    """True when no process ``pid`` exists here (POSIX; False where that cannot be told)."""
    if os.name != "posix" or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # e.g. PermissionError: it exists, under another user
        return False
    return False


def _remove_stale_temporaries(folder, base):
    """Remove the temporary files ``.BASE.<pid>.<hex>.tmp`` that an earlier save of the same
    target left when its process died mid-save (killed, power cut): those whose writer
    process no longer exists. Files of live writers (another process or thread saving the same
    target now) and of other targets are left alone; failures to list or remove are ignored
    (the save itself goes on)."""
    prefix = f".{base}."
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        if not (name.startswith(prefix) and name.endswith(".tmp")):
            continue
        parts = name[len(prefix):-len(".tmp")].split(".")
        if len(parts) != 2 or not parts[0].isdigit() or len(parts[1]) != 8 \
                or any(c not in "0123456789abcdef" for c in parts[1]):
            continue
        if _writer_is_dead(int(parts[0])):
            try:
                os.remove(os.path.join(folder, name))
            except OSError:
                pass


def _write_atomically(path, arrays):
    """Write the archive to a new file in the destination's folder, then move it over
    ``path`` with :func:`os.replace` (atomic on POSIX and Windows): a failure at any point
    leaves an existing file at ``path`` untouched and removes the partial temporary file.
    A ``path`` that is a folder, or in a folder that does not exist, is refused first, naming
    ``path`` (not the temporary file). Temporary files of the same target left by writers
    that died mid-save are removed first (:func:`_remove_stale_temporaries`)."""
    folder, base = os.path.split(os.path.abspath(path))
    if os.path.isdir(path):
        raise IsADirectoryError(errno.EISDIR, "path is a folder; give a file name such as "
                                "model.npz", path)
    if not os.path.isdir(folder):
        raise FileNotFoundError(errno.ENOENT, "the folder to save into does not exist", folder)
    _remove_stale_temporaries(folder, base)
    tmp = os.path.join(folder, f".{base}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    # os.open with mode 0o666 applies the user's umask, as a plain open() would
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    try:
        with os.fdopen(fd, "wb") as fh:
            np.savez_compressed(fh, **arrays)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.remove(tmp)
        except OSError:
            pass
        raise


# ----------------------------------------------------------------------------- load

# what numpy/zipfile raise on a damaged archive or member (zlib on a bad deflate stream,
# NotImplementedError on a mangled zip version field)
_READ_ERRORS = (zipfile.BadZipFile, zlib.error, NotImplementedError, ValueError, OSError, EOFError)


def _digest(arrays, meta=None):
    """sha256 over every stored array (name, dtype, shape, bytes), in name order, then (format
    version 3) over the metadata less its ``sha256`` entry, as canonical JSON (sorted keys)."""
    h = hashlib.sha256()
    for name in sorted(arrays):
        a = np.ascontiguousarray(arrays[name])
        h.update(f"{name}|{a.dtype.str}|{a.shape}|".encode())
        h.update(a.tobytes())
    if meta is not None:
        h.update(b"__metadata__|")
        h.update(json.dumps({k: v for k, v in meta.items() if k != "sha256"}, sort_keys=True,
                            separators=(",", ":")).encode("utf-8"))
    return h.hexdigest()


def _open(path):
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"model file not found: {path!r}.")
    with open(path, "rb") as fh:  # np.load reads anything else as a pickle, and its
        magic = fh.read(6)         # refusal would advise allow_pickle
    if magic[:4] != b"PK\x03\x04" and magic != b"\x93NUMPY":
        raise ModelFileError(f"{path!r} is not a latentkit model file: not a .npz archive "
                             "(latentkit.io.save and --out write .npz archives).")
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
    for key, kind in (("class", str), ("module", str), ("latentkit_version", str),
                      ("params", dict), ("attributes", dict), ("state", dict),
                      ("skipped", list)):
        if key not in meta and key in ("state", "skipped"):
            continue
        if key not in meta:
            raise ModelFileError(f"{os.fspath(path)!r}: metadata lack {key!r}; the file is corrupt.")
        if not isinstance(meta[key], kind):
            raise ModelFileError(f"{os.fspath(path)!r}: the metadata's {key!r} is a "
                                 f"{type(meta[key]).__name__}, not a {kind.__name__}; the file "
                                 "is corrupt.")
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

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> import latentkit as lk
    >>> from latentkit.io import read_metadata
    >>> path = os.path.join(tempfile.mkdtemp(), "m.npz")
    >>> X = np.random.default_rng(0).normal(size=(100, 2))
    >>> _ = lk.save(lk.GaussianMixture(n_components=2, random_state=0).fit(X), path)
    >>> meta = read_metadata(path)
    >>> meta["class"], meta["params"]["n_components"]
    ('GaussianMixture', 2)
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
        except (ImportError, ValueError) as exc:
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


_CHECK_ERRORS = (KeyError, TypeError, ValueError, AttributeError, IndexError, ArithmeticError)


def _check_loaded(model, path):
    """Run the model family's state checks (``model._check_state()``); a failure is a
    ModelFileError naming the attribute."""
    try:
        check_state(model)
    except _CHECK_ERRORS as exc:
        raise ModelFileError(f"{os.fspath(path)!r}: the stored {type(model).__qualname__} is "
                             f"invalid: {exc}; the file is corrupt.") from None


def _name_the_bad_attribute(cls, params, attrs, path):
    """When ``_set_state`` failed: run the family's checks on the raw attributes, so that the
    error names the attribute at fault where they can tell it (raises ModelFileError then;
    returns otherwise)."""
    try:
        probe = cls(**params)
        for name, value in attrs.items():
            if name.endswith("_"):
                setattr(probe, name, value)
    except _CHECK_ERRORS:
        return
    _check_loaded(probe, path)


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
        A fitted model of the saved class with the saved hyper-parameters and fitted state
        (``model._set_state``): ``partial_fit`` continues exactly where the saved model
        would have. Hyper-parameters that were not storable (a callback) are None.

    Raises
    ------
    ModelFileError
        The file is corrupt, is not a latentkit model file, has another format version, was
        written by another major version of latentkit, holds an unknown class, or holds a
        fitted state the class cannot restore or that fails the checks of the model's family
        (``model._check_state()``: attributes present, shapes consistent with the
        hyper-parameters and each other, probability rows, positive-definite covariances;
        the message names the attribute). No other error comes from the file's content.
    FileNotFoundError

    Notes
    -----
    Source: DESIGN.md section 6 (npz with ``allow_pickle=False`` plus JSON metadata).

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> import latentkit as lk
    >>> X = np.random.default_rng(0).normal(size=(100, 2))
    >>> path = os.path.join(tempfile.mkdtemp(), "m.npz")
    >>> _ = lk.save(lk.GaussianMixture(n_components=2, random_state=0).fit(X), path)
    >>> model = lk.load(path)
    >>> type(model).__name__, model.means_.shape
    ('GaussianMixture', (2, 2))
    """
    with _open(path) as npz:
        meta = _read_meta(npz, path)
        version = meta.get("format_version")
        if isinstance(version, bool) or version not in _READABLE_VERSIONS:
            raise ModelFileError(f"{os.fspath(path)!r} uses model file format version "
                                 f"{version!r}; this latentkit reads versions "
                                 f"{', '.join(map(str, _READABLE_VERSIONS))}.")
        if version >= 3 and not isinstance(meta.get("sha256"), str):
            raise ModelFileError(f"{os.fspath(path)!r} is corrupt: the metadata lack the "
                                 "checksum ('sha256').")
        if "sha256" in meta:  # before anything else in the metadata is believed
            try:
                stored = {k: npz[k] for k in npz.files if k != _META_KEY}
            except _READ_ERRORS as exc:
                raise ModelFileError(f"{os.fspath(path)!r} is corrupt: {type(exc).__name__}: "
                                     f"{exc}.") from None
            if _digest(stored, meta if version >= 3 else None) != meta["sha256"]:
                raise ModelFileError(f"{os.fspath(path)!r} is corrupt: the stored arrays and "
                                     "metadata do not match the checksum written with them.")
        saved, current = meta["latentkit_version"], _version()
        if _major(saved) != _major(current):
            raise ModelFileError(f"{os.fspath(path)!r} was written by latentkit {saved}; this is "
                                 f"latentkit {current} (another major version). Refit the model "
                                 "or load it with the version that wrote it.")
        cls = _resolve_class(meta, model_class, path)
        if not issubclass(cls, ParamsMixin):
            raise ModelFileError(f"{os.fspath(path)!r} names {cls.__qualname__}, which is not a "
                                 "latentkit model; the file is corrupt.")
        try:
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
            extra = meta.get("state", {})
            if not isinstance(extra, dict):
                raise ModelFileError(f"{os.fspath(path)!r}: the metadata's 'state' is not a "
                                     "mapping; the file is corrupt.")
            for name, enc in extra.items():
                attrs[name] = _decode_state(enc, npz, path)
        except ModelFileError:
            raise
        except (KeyError, TypeError, AttributeError) + _READ_ERRORS as exc:
            raise ModelFileError(f"{os.fspath(path)!r} is corrupt: {type(exc).__name__}: "
                                 f"{exc}.") from None
    upgrade = getattr(cls, "_upgrade_params", None)  # hyper-parameters renamed since the file
    if upgrade is not None:
        try:
            params = upgrade(params)
        except (TypeError, ValueError) as exc:
            raise ModelFileError(f"{os.fspath(path)!r}: the stored hyper-parameters of "
                                 f"{cls.__qualname__} are invalid ({exc}); the file is "
                                 "corrupt.") from None
    valid = set(cls._get_param_names()) if hasattr(cls, "_get_param_names") else set(params)
    unknown = sorted(set(params) - valid)
    if unknown:
        raise ModelFileError(f"{os.fspath(path)!r}: {cls.__qualname__} in this version has no "
                             f"hyper-parameter(s) {unknown}.")
    try:
        model = cls(**params)
        model._set_state(attrs)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        _name_the_bad_attribute(cls, params, attrs, path)
        raise ModelFileError(f"{os.fspath(path)!r}: the stored {cls.__qualname__} could not be "
                             f"rebuilt ({type(exc).__name__}: {exc}); the file is corrupt or "
                             "was written by an incompatible version.") from None
    _check_loaded(model, path)
    return model
