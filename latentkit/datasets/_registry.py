"""The registry of the bundled data sets: name, loader, ``kind`` (what the data are to a model),
description, shape and license; ``list_datasets`` and ``load_dataset`` read it."""

from ._sequences import load_earthquakes, load_lambda_phage
from ._tables import (load_golub, load_iris, load_khan, load_nci60, load_old_faithful,
                      load_olive_oil, load_optdigits, load_seeds, load_swiss_banknote, load_wine)
from ._text import load_gutenberg_characters, load_gutenberg_novels, load_kos, load_nips
from ..exceptions import InputError

__all__ = ["list_datasets", "load_dataset"]


# name -> (loader, kind, description, shape, license); ``kind`` is what the data are to a model:
# "counts" (a Corpus: documents x words), "matrix" (a table of numbers, one row per sample) or
# "sequence" (a Bunch with ``lengths``). Shapes are checked against the loaders in the tests.
_REGISTRY = {
    "kos": (load_kos, "counts", "text", "3430 x 6906", "CC BY 4.0"),
    "nips": (load_nips, "counts", "text", "1500 x 7605", "CC BY 4.0"),
    "gutenberg_novels": (load_gutenberg_novels, "counts", "text, labelled",
                         "401 chapters (17080 paragraphs)", "public domain"),
    "gutenberg_characters": (load_gutenberg_characters, "sequence", "27 symbols",
                             "401 sequences", "public domain"),
    "earthquakes": (load_earthquakes, "sequence", "integer counts", "107 x 1",
                    "public domain (USGS)"),
    "lambda_phage": (load_lambda_phage, "sequence", "4 symbols", "48502 x 1",
                     "no restrictions (NCBI)"),
    "old_faithful": (load_old_faithful, "matrix", "real", "272 x 2",
                     "GPL (R); factual measurements"),
    "geyser": (lambda: load_old_faithful("geyser"), "matrix", "real, time series", "299 x 2",
               "GPL (MASS); factual measurements"),
    "iris": (load_iris, "matrix", "real, labelled", "150 x 4", "CC BY 4.0"),
    "wine": (load_wine, "matrix", "real, labelled", "178 x 13", "CC BY 4.0"),
    "seeds": (load_seeds, "matrix", "real, labelled", "210 x 7", "CC BY 4.0"),
    "swiss_banknote": (load_swiss_banknote, "matrix", "real, labelled", "200 x 6",
                       "GPL >= 2; factual measurements"),
    "olive_oil": (load_olive_oil, "matrix", "real, labelled (nested)", "572 x 8", "Artistic-2.0"),
    "optdigits": (load_optdigits, "matrix", "pixel counts 0-16, labelled", "5620 x 64", "CC BY 4.0"),
    "golub": (load_golub, "matrix", "high-dimensional, labelled", "38 x 3051", "LGPL (multtest)"),
    "khan": (load_khan, "matrix", "high-dimensional, labelled", "83 x 2308", "BSD-3 (ISLP)"),
    "nci60": (load_nci60, "matrix", "high-dimensional, labelled", "64 x 6830", "BSD-3 (ISLP)"),
}


def list_datasets():
    """The bundled data sets, without loading them.

    Returns
    -------
    list of dict
        One per data set: ``name``; ``kind``, what the data are to a model: ``'counts'`` (a
        :class:`Corpus`, documents x words), ``'matrix'`` (a table of numbers, one row per
        sample) or ``'sequence'`` (a :class:`Bunch` with ``lengths``); ``description`` (in
        words, e.g. 'real, labelled'); ``shape`` (a string); ``license``; and ``loader`` (the
        function; ``load_dataset(name)`` calls it with default arguments).

    Examples
    --------
    >>> from latentkit.datasets import list_datasets
    >>> [d["name"] for d in list_datasets()][:3]
    ['kos', 'nips', 'gutenberg_novels']
    """
    return [{"name": n, "kind": k, "description": d, "shape": s, "license": lic, "loader": f}
            for n, (f, k, d, s, lic) in _REGISTRY.items()]


def load_dataset(name):
    """Load a bundled data set by its name in :func:`list_datasets`, with default arguments.

    Raises
    ------
    ValueError
        Unknown name (the message lists the known ones).

    Examples
    --------
    >>> from latentkit.datasets import load_dataset
    >>> load_dataset("iris").data.shape
    (150, 4)
    """
    if name not in _REGISTRY:
        raise InputError(f"unknown dataset {name!r}; bundled data sets are: "
                         + ", ".join(_REGISTRY) + ".")
    return _REGISTRY[name][0]()

