"""What the ``latentkit`` command tells its user besides the results: warnings as one line each,
the initialisation that really ran, and library errors in the words of the command line.

* :class:`WarningLines` records every Python warning a command raises and prints each distinct
  one as ``warning: <message>`` on stderr (no category path, no source line), after the fit's
  progress bar is gone (the fit driver flushes them after the fit; the rest at the end).
* :func:`init_summary` states the start a fit used: ``auto -> cvb0``, ``spectral -> k-means++
  (fallback: <reason>)``, from the model and the spectral fallback's warning.
* :func:`in_cli_terms` rewrites a library message so that it names the command-line flag
  (``-k``, ``--max-iter``) instead of the estimator's parameter (``n_components``,
  ``max_iter``).
"""

import re
import sys
import warnings

from ..exceptions import SpectralInitWarning

__all__ = ["WarningLines", "flush_warnings", "init_summary", "in_cli_terms", "option_names"]

#: the WarningLines of the running command (None outside ``main``)
current = None

_FALLBACK = re.compile(r"init='spectral': (?P<reason>.*); falling back to (?:the |a )?"
                       r"(?P<start>.*?) start\.?$", re.S)


class WarningLines:
    """Record warnings during a command; print each distinct one as one line.

    Parameters
    ----------
    enabled : bool
        False (``--quiet``): warnings are dropped.
    stream : file-like, optional
        Where the lines go (default ``sys.stderr`` at flush time).
    names : dict, optional
        ``parameter -> flag`` of the command (:func:`option_names`): the lines name the flags.
    """

    def __init__(self, enabled=True, stream=None, names=None):
        self.enabled = enabled
        self.names = names or {}
        self.stream = stream
        self.records = []
        self._seen = set()

    def __enter__(self):
        global current
        self._cm = warnings.catch_warnings(record=True)
        self.records = self._cm.__enter__()
        warnings.simplefilter("always" if self.enabled else "ignore")
        self._previous, current = current, self
        return self

    def __exit__(self, *exc):
        global current
        self._cm.__exit__(*exc)
        current = self._previous
        self.flush()
        return False

    def take(self, category):
        """Remove and return the messages of ``category`` recorded so far (str list)."""
        taken = [str(r.message) for r in self.records if issubclass(r.category, category)]
        self.records[:] = [r for r in self.records if not issubclass(r.category, category)]
        return taken

    def flush(self):
        """Print the recorded warnings, one line each, repeats once with their count."""
        if not self.enabled:
            self.records[:] = []
            return
        counts = {}
        for r in self.records:
            text = in_cli_terms(" ".join(str(r.message).split()), self.names)
            counts[text] = counts.get(text, 0) + 1
        self.records[:] = []
        stream = self.stream or sys.stderr
        for text, n in counts.items():
            if text in self._seen:
                continue
            self._seen.add(text)
            stream.write(f"warning: {text}" + (f" ({n} times)" if n > 1 else "") + "\n")
        stream.flush()


def flush_warnings():
    """Print the warnings recorded so far by the running command (after a progress bar)."""
    if current is not None:
        current.flush()


def init_summary(model, stochastic=False):
    """The start a fitted model used, as the summary line states it (``stochastic``: it was
    fitted by :class:`latentkit.inference.StochasticVI`, whose ``init='auto'`` is random).

    Returns
    -------
    text : str
        ``'cvb0'``, ``'auto -> cvb0'``, ``'spectral -> k-means++ (fallback: <reason>)'``...
    resolved : str
        The start that ran (``'given'`` for a dict).
    fallback : str or None
        The reason of a spectral fallback.
    """
    init = getattr(model, "init", None)
    if not isinstance(init, str):
        return "given", "given", None
    resolved = init
    if init == "auto":  # LatentDirichletAllocation: class docs of init
        resolved = "random" if stochastic else "cvb0"
    fallback = None
    messages = current.take(SpectralInitWarning) if current is not None else []
    for text in messages:
        m = _FALLBACK.match(text)
        if m:
            resolved, fallback = m.group("start"), m.group("reason")
    report = getattr(model, "spectral_report_", None)
    if fallback is None and isinstance(report, dict) and report.get("chosen") == "kmeans++" \
            and init == "spectral":
        resolved, fallback = "k-means++", "the k-means++ start was better"
    text = init if resolved == init else f"{init} -> {resolved}"
    if fallback is not None:
        text += f" (fallback: {fallback})"
    return text, resolved, fallback


def option_names(parser):
    """``dest -> flag`` of a (sub)parser's options, e.g. ``n_components -> -k``."""
    out = {}
    for action in getattr(parser, "_actions", ()):  # argparse keeps no public list of its actions
        flags = [o for o in action.option_strings if o.startswith("-")]
        if not flags or action.dest in ("help",):
            continue
        short = [o for o in flags if not o.startswith("--")]
        out[action.dest] = short[0] if short else flags[0]
    return out


def in_cli_terms(message, names):
    """``message`` with each estimator parameter that is a flag of the command written as
    that flag (``n_components`` -> ``-k``); words without an underscore are left alone
    except ``tol`` and ``init``, so prose is not rewritten."""
    def flag(m):
        word = m.group(1)
        if m.group(2):  # "text_column=NAME" is the keyword's spelling: "--text-column NAME"
            return names.get(word, word) + (" " if word in names else "=")
        return names.get(word, word)

    keys = [k for k in names if "_" in k or k in ("tol", "init")]
    if not keys:
        return message
    pattern = r"(?<![\w\-'\"])(" + "|".join(sorted(map(re.escape, keys), key=len,
                                                     reverse=True)) + r")(?![\w'\"\[])(=?)"
    return re.sub(pattern, flag, message)
