"""Every error and warning class of latentkit, in one public module (as
``sklearn.exceptions``).

The classes are also importable where they were first defined (``latentkit.io.ModelFileError``,
``latentkit.spectral.SpectralInitWarning``, ...); this module is their home and their
documentation.

Errors
------
:class:`InputError` (a ``ValueError``) is raised by every named check of the user's input: a
parameter, an array, a file or a dataset that is not what the library accepts. Its message
names the argument, what was expected and what was found. A wrong *type* raises
:class:`InputTypeError`, which is both an :class:`InputError` and a ``TypeError`` (so
``except TypeError`` keeps working, and ``except InputError`` catches every input error;
scikit-learn's ``InvalidParameterError`` is likewise a ``ValueError`` and a ``TypeError``).
The command line prints an :class:`InputError` as one line (exit status 2); any other
exception is a bug and prints its traceback.

The specialised input errors subclass :class:`InputError`: :class:`ModelFileError` (a model
file), :class:`DatasetIntegrityError` (a bundled data file), :class:`TextInputError` (raw text)
and :class:`StateCheckError` (a restored or hand-set fitted attribute). :class:`NotFittedError`
(a model used before ``fit``) and :class:`CLIError` (a bad command-line option) are not input
errors of this kind and keep their own bases.

Warnings
--------
:class:`ConvergenceWarning`, :class:`ELBODecreaseWarning`, :class:`CollapsedComponentWarning`,
:class:`SpectralInitWarning`, :class:`StartCheckWarning`, :class:`PrivacyNoiseWarning`, :class:`PrivacyRelationWarning`,
:class:`KWarning` (the command line's ``-k`` check) and :class:`PriorDivergenceWarning`.
"""

import sys

__all__ = [
    "InputError", "InputTypeError", "ModelFileError", "DatasetIntegrityError", "TextInputError",
    "StateCheckError", "SeedWordError", "NotFittedError", "CLIError",
    "ConvergenceWarning", "ELBODecreaseWarning", "CollapsedComponentWarning",
    "SpectralInitWarning", "StartCheckWarning", "PrivacyNoiseWarning", "PrivacyRelationWarning",
    "KWarning", "PriorDivergenceWarning",
]


# ------------------------------------------------------------------------------------ errors

class InputError(ValueError):
    """The user's input is not what latentkit accepts: a parameter, an array, a file or a
    dataset. The message names the argument, what was expected and what was found.

    Every named input check of the library raises it (or a subclass); catch it to tell a user
    mistake from a bug. A ``ValueError``, so code written against the plain class still works.

    Examples
    --------
    >>> import numpy as np
    >>> import latentkit as lk
    >>> from latentkit.exceptions import InputError
    >>> X = np.random.default_rng(0).normal(size=(50, 2))
    >>> try:
    ...     lk.GaussianMixture(n_components=0).fit(X)
    ... except InputError as exc:
    ...     print(exc)
    n_components must be >= 1, got 0.
    """


class InputTypeError(InputError, TypeError):
    """An argument of the wrong type (a string where a number is needed, a dict for an array).

    Both an :class:`InputError` (so ``except InputError`` catches every input error) and a
    ``TypeError`` (as Python and NumPy raise for a wrong type).

    Examples
    --------
    >>> import numpy as np
    >>> import latentkit as lk
    >>> from latentkit.exceptions import InputError, InputTypeError
    >>> X = np.random.default_rng(0).normal(size=(50, 2))
    >>> try:
    ...     lk.GaussianMixture(n_components="two").fit(X)
    ... except InputTypeError as exc:
    ...     print(isinstance(exc, InputError), isinstance(exc, TypeError), exc)
    True True n_components must be an int, got 'two' of type str.
    """


class ModelFileError(InputError):
    """A model file is corrupt, not a latentkit model file, or from an incompatible version
    (raised by :func:`latentkit.io.load` and :func:`latentkit.io.read_metadata`).

    Examples
    --------
    >>> import os, tempfile
    >>> import latentkit as lk
    >>> from latentkit.exceptions import ModelFileError
    >>> path = os.path.join(tempfile.mkdtemp(), "not_a_model.npz")
    >>> with open(path, "wb") as f:
    ...     _ = f.write(b"hello")
    >>> try:
    ...     lk.load(path)
    ... except ModelFileError:
    ...     print("refused")
    refused
    """


class DatasetIntegrityError(InputError):
    """A bundled data file is missing from the MANIFEST, or its sha256 does not match
    (raised by the loaders of :mod:`latentkit.datasets`).

    Examples
    --------
    >>> from latentkit.datasets import load_iris
    >>> from latentkit.exceptions import DatasetIntegrityError, InputError
    >>> try:
    ...     data = load_iris()  # checks the file's sha256 against the MANIFEST
    ... except DatasetIntegrityError as exc:  # an edited file or an incomplete installation
    ...     print(exc)
    >>> data.data.shape, issubclass(DatasetIntegrityError, InputError)
    ((150, 4), True)
    """


class TextInputError(InputError):
    """Unreadable or unusable text input (raised by :mod:`latentkit.text`; the message names
    the file and the fix).

    Examples
    --------
    >>> from latentkit.text import read_texts
    >>> from latentkit.exceptions import TextInputError
    >>> try:
    ...     read_texts("no_such_folder/")
    ... except TextInputError as exc:
    ...     print(type(exc).__name__)
    TextInputError
    """


class StateCheckError(InputError):
    """A restored or hand-set fitted attribute is missing or inconsistent.

    Parameters
    ----------
    attribute : str
        The attribute's name (kept as ``.attribute``).
    problem : str
        What is wrong with it.

    Examples
    --------
    >>> from latentkit.exceptions import InputError, StateCheckError
    >>> exc = StateCheckError("transmat_", "its rows must sum to 1, row 0 sums to 0.9")
    >>> exc.attribute, isinstance(exc, InputError)  # what latentkit.load raises for a bad state
    ('transmat_', True)
    >>> print(exc)
    attribute transmat_: its rows must sum to 1, row 0 sums to 0.9
    """

    def __init__(self, attribute, problem):
        self.attribute = attribute
        super().__init__(f"attribute {attribute}: {problem}")


class _NotFittedBase(ValueError, AttributeError):
    """Stand-in base of :class:`NotFittedError` until scikit-learn's class is loaded."""


def _adopt_sklearn_not_fitted():
    """Make :class:`NotFittedError` a subclass of ``sklearn.exceptions.NotFittedError`` once
    scikit-learn's exceptions module is loaded.

    Importing scikit-learn takes seconds, so ``import latentkit`` never does it; but code that
    catches scikit-learn's class (pipelines, model selection, ``check_estimator``) has loaded
    it before our error is raised, and every raise goes through :meth:`NotFittedError.__new__`,
    which calls this first. Only latentkit's own class is changed (its base is replaced by
    scikit-learn's, itself a ValueError and AttributeError)."""
    sk = sys.modules.get("sklearn.exceptions")
    sk_cls = getattr(sk, "NotFittedError", None)
    if isinstance(sk_cls, type) and not issubclass(NotFittedError, sk_cls):
        try:
            NotFittedError.__bases__ = (sk_cls,)
        except TypeError:  # pragma: no cover - a scikit-learn class of another layout
            pass


class NotFittedError(_NotFittedBase):
    """Raised when a model is used before ``fit``.

    A ValueError and an AttributeError, and a subclass of
    ``sklearn.exceptions.NotFittedError`` whenever scikit-learn is loaded (so
    ``except sklearn.exceptions.NotFittedError`` catches it), without importing scikit-learn
    itself.

    Examples
    --------
    >>> import numpy as np
    >>> import latentkit as lk
    >>> from latentkit.exceptions import NotFittedError
    >>> try:
    ...     lk.GaussianMixture(n_components=2).predict(np.zeros((3, 2)))
    ... except NotFittedError:
    ...     print("fit first")
    fit first
    """

    def __new__(cls, *args, **kwargs):
        _adopt_sklearn_not_fitted()
        return super().__new__(cls, *args, **kwargs)


_adopt_sklearn_not_fitted()  # scikit-learn imported before latentkit


class ConvergenceWarning(UserWarning):
    """``fit`` stopped at ``max_iter`` before the ELBO change fell below ``tol``.

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> import latentkit as lk
    >>> from latentkit.exceptions import ConvergenceWarning
    >>> X = np.random.default_rng(0).normal(size=(50, 2))
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = lk.GaussianMixture(n_components=2, max_iter=1, random_state=0).fit(X)
    >>> [w.category.__name__ for w in caught]
    ['ConvergenceWarning']
    """


class PriorDivergenceWarning(ConvergenceWarning):
    """A learned Dirichlet prior (``doc_topic_prior='auto'``) diverges: its empirical-Bayes
    maximum does not exist on the data (near-duplicate documents or documents too short to tell
    their topic proportions apart: alpha grows without bound; one topic per document: alpha
    shrinks to 0). The prior is held where the divergence was detected
    (:func:`latentkit.topic._lda_priors.prior_divergence`). A :class:`ConvergenceWarning`.

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from latentkit.topic import LatentDirichletAllocation
    >>> X = np.zeros((60, 8))
    >>> X[np.arange(60), np.random.default_rng(0).integers(0, 8, 60)] = 1  # one-word documents
    >>> lda = LatentDirichletAllocation(2, doc_topic_prior="auto", max_iter=100, init="cvb0",
    ...                                 random_state=0)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = lda.fit(X)
    >>> [w.category.__name__ for w in caught]
    ['PriorDivergenceWarning']
    """


class ELBODecreaseWarning(RuntimeWarning):
    """An exact EM / coordinate-ascent bound decreased: this indicates a bug or a numerical
    breakdown, never a property of the data.

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> import latentkit as lk
    >>> from latentkit.exceptions import ELBODecreaseWarning
    >>> X = np.random.default_rng(0).normal(size=(50, 2))
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("error", ELBODecreaseWarning)  # a decrease would raise here
    ...     model = lk.GaussianMixture(n_components=2, random_state=0).fit(X)
    >>> bool(np.all(np.diff(model.lower_bounds_) >= -1e-9 * np.abs(model.lower_bounds_[1:])))
    True
    """


class SeedWordError(InputError):
    """A seed word of ``seed_topics`` that is not in the model's vocabulary (or an index out
    of range). An :class:`InputError`; ``words`` lists the offending entries and ``topic``
    the topic that named them.

    Examples
    --------
    >>> import numpy as np
    >>> from latentkit.topic import LatentDirichletAllocation
    >>> from latentkit.exceptions import SeedWordError
    >>> X = np.array([[2, 1, 0], [0, 1, 3]])
    >>> lda = LatentDirichletAllocation(2, seed_topics={0: [7]}, random_state=0)
    >>> try:
    ...     lda.fit(X)
    ... except SeedWordError as exc:
    ...     print(exc.topic, exc.words)
    0 [7]
    """

    def __init__(self, message, topic=None, words=()):
        super().__init__(message)
        self.topic = topic
        self.words = list(words)


class CLIError(Exception):
    """A bad command-line option or combination of options: the ``latentkit`` command prints
    it as one line and exits with status 2.

    Examples
    --------
    >>> from latentkit.cli import build_parser, load_input
    >>> from latentkit.exceptions import CLIError
    >>> args = build_parser().parse_args(["fit", "gmm", "--dataset", "kos"])
    >>> try:
    ...     load_input(args, "matrix")  # kos is a text corpus, gmm needs a table
    ... except CLIError as exc:
    ...     print(exc)
    dataset 'kos' is not a table of numbers; use one of old_faithful, geyser, iris, wine, seeds,
    swiss_banknote, olive_oil, optdigits, golub, khan, nci60.
    """


# ---------------------------------------------------------------------------------- warnings

class CollapsedComponentWarning(RuntimeWarning):
    """A Gaussian component's covariance was singular (it collapsed onto fewer points than
    dimensions, or lost all its weight) and is held positive definite only by ``reg_covar``
    or by an extra re-regularisation.

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from latentkit.sequence import GaussianHMM
    >>> from latentkit.exceptions import CollapsedComponentWarning
    >>> X = np.r_[np.zeros((20, 2)), np.random.default_rng(0).normal(5, 1, (20, 2))]
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = GaussianHMM(n_components=2, covariance_type="full", random_state=0).fit(X)
    >>> sorted({w.category.__name__ for w in caught})
    ['CollapsedComponentWarning']
    """


class SpectralInitWarning(UserWarning):
    """The spectral start was not usable and a fallback start was used instead.

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from latentkit.sequence import GaussianHMM
    >>> from latentkit.exceptions import SpectralInitWarning
    >>> X = np.zeros((30, 2))  # constant data: the moments are degenerate
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = GaussianHMM(n_components=2, init="spectral", random_state=0).fit(X)
    >>> any(w.category is SpectralInitWarning for w in caught)
    True
    """


class StartCheckWarning(UserWarning):
    """A model's default start lost to a random start in the start check, and the fit
    continues from the random start (LDA's ``init='auto'``: both ELBOs in nats per
    document; :mod:`latentkit.topic._start_check`).

    Examples
    --------
    >>> import warnings
    >>> from latentkit.exceptions import StartCheckWarning
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warnings.warn("the random start won", StartCheckWarning)
    >>> caught[0].category.__name__
    'StartCheckWarning'
    """


class PrivacyNoiseWarning(UserWarning):
    """The privacy noise dominates part of a private estimate (see ``noise_dominated_``).

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from latentkit.spectral import PrivateSpectralLDA
    >>> from latentkit.exceptions import PrivacyNoiseWarning
    >>> X = np.random.default_rng(0).poisson(2.0, size=(40, 6))
    >>> lda = PrivateSpectralLDA(n_components=4, epsilon=0.1, delta=1e-5, random_state=0)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = lda.fit(X)  # 40 documents cannot hide one at epsilon = 0.1
    >>> any(w.category is PrivacyNoiseWarning for w in caught)
    True
    """


class PrivacyRelationWarning(UserWarning):
    """The fit's epsilon is for a neighbouring relation that protects no document
    (``PrivateSpectralLDA(neighbouring='tensor_entry')``).

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from latentkit.spectral import PrivateSpectralLDA
    >>> from latentkit.exceptions import PrivacyRelationWarning
    >>> X = np.random.default_rng(0).poisson(2.0, size=(40, 6))
    >>> lda = PrivateSpectralLDA(n_components=2, epsilon=1.0, delta=1e-5,
    ...                          neighbouring="tensor_entry",
    ...                          random_state=0)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = lda.fit(X)
    >>> any(w.category is PrivacyRelationWarning for w in caught)
    True
    """


class KWarning(UserWarning):
    """The command line's ``-k`` is above the number of documents / samples of the data.

    Examples
    --------
    >>> import os, tempfile, warnings
    >>> from latentkit.cli import Progress, build_parser
    >>> from latentkit.cli.fit_topic import run_lda
    >>> from latentkit.exceptions import KWarning
    >>> path = os.path.join(tempfile.mkdtemp(), "docword.txt")
    >>> with open(path, "w") as f:  # 2 documents, 4 words
    ...     print("2", "4", "4", "1 1 3", "1 2 2", "2 3 4", "2 4 1", sep=os.linesep, file=f)
    >>> args = build_parser().parse_args(["fit", "lda", "--data", path, "-k", "3"])
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = run_lda(args, Progress(None, enabled=False))
    >>> [str(w.message)[:46] for w in caught if w.category is KWarning]
    ['-k 3 is more than the 2 documents of the data;']
    """
