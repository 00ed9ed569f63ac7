"""Bundled real data sets (checksummed, never downloaded) and synthetic generators with planted truth.

``load_*`` functions read the files listed in the top-level ``datasets/MANIFEST`` (installed with
the package as ``latentkit/datasets/data/``) and check their sha256; ``make_*`` functions draw data
from a known model; ``read_docword`` / ``read_numeric_csv`` parse user files with errors that give
the line number. Provenance, licenses and citations: ``datasets/README.md``.
"""

from ._corpus import (Bunch, Corpus, english_stop_words, read_docword, read_numeric_csv,
                      read_vocab, tokenize)
from ._files import DatasetIntegrityError, bundled_data_dir, manifest
from ._registry import list_datasets, load_dataset
from ._sequences import load_earthquakes, load_lambda_phage
from ._tables import (load_golub, load_iris, load_khan, load_nci60, load_old_faithful,
                      load_olive_oil, load_optdigits, load_seeds, load_swiss_banknote, load_wine)
from ._text import (CHARACTER_ALPHABET, load_gutenberg_characters, load_gutenberg_novels,
                    load_kos, load_nips)
from ._export import export_gutenberg_texts
from ._synthetic import make_gmm, make_lda_corpus

__all__ = [
    "Bunch",
    "CHARACTER_ALPHABET",
    "Corpus",
    "DatasetIntegrityError",
    "bundled_data_dir",
    "english_stop_words",
    "export_gutenberg_texts",
    "list_datasets",
    "load_dataset",
    "load_earthquakes",
    "load_golub",
    "load_gutenberg_characters",
    "load_gutenberg_novels",
    "load_iris",
    "load_khan",
    "load_kos",
    "load_lambda_phage",
    "load_nci60",
    "load_nips",
    "load_old_faithful",
    "load_olive_oil",
    "load_optdigits",
    "load_seeds",
    "load_swiss_banknote",
    "load_wine",
    "make_gmm",
    "make_lda_corpus",
    "manifest",
    "read_docword",
    "read_numeric_csv",
    "read_vocab",
    "tokenize",
]
