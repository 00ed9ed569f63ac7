"""Loaders for the bundled real data sets.

The files live in the top-level ``datasets/`` folder of the source tree and are installed inside
the package as ``latentkit/datasets/data/`` (see ``pyproject.toml``). Every loader reads only files
listed in ``datasets/MANIFEST`` and checks their sha256 (once per process and file); nothing is
ever downloaded. Provenance, license and citation of every file: ``datasets/README.md``.
"""

import array
import collections
import csv
import itertools
import hashlib
import threading
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ._corpus import (_TOKEN_RE, Bunch, Corpus, _open_text, english_stop_words, read_docword,
                      split_lines)

__all__ = [
    "DatasetIntegrityError",
    "bundled_data_dir",
    "manifest",
    "list_datasets",
    "load_kos",
    "load_nips",
    "load_gutenberg_novels",
    "load_gutenberg_characters",
    "load_old_faithful",
    "load_iris",
    "load_earthquakes",
    "load_lambda_phage",
    "load_wine",
    "load_seeds",
    "load_swiss_banknote",
    "load_olive_oil",
    "load_optdigits",
    "load_golub",
    "load_khan",
    "load_nci60",
]


class DatasetIntegrityError(ValueError):
    """A bundled data file is missing from the MANIFEST, or its sha256 does not match."""


# ----------------------------------------------------------------------------- files

def _candidate_dirs():
    here = Path(__file__).resolve().parent
    # installed wheel: latentkit/datasets/data/ (a symlink to ../../datasets in the source tree)
    yield here / "data"
    # source checkout / editable install without the symlink (e.g. checked out on Windows)
    yield here.parent.parent / "datasets"


_DATA_DIR = None  # resolved lazily; tests may point it elsewhere


def bundled_data_dir():
    """The folder holding the bundled data files and their ``MANIFEST``.

    Returns
    -------
    pathlib.Path

    Raises
    ------
    FileNotFoundError
        If no folder with a MANIFEST is found (a broken installation).
    """
    global _DATA_DIR
    if _DATA_DIR is not None:
        return Path(_DATA_DIR)
    for d in _candidate_dirs():
        if (d / "MANIFEST").is_file():
            _DATA_DIR = d
            return d
    raise FileNotFoundError(
        "latentkit's bundled data were not found (looked for MANIFEST in "
        + ", ".join(str(d) for d in _candidate_dirs())
        + "). Reinstall latentkit with `pip install latentkit` or `pip install .` from a source tree.")


_MANIFEST_CACHE = {}
_VERIFIED = set()
_LOCK = threading.Lock()


def manifest():
    """The bundled files: one dict per line of ``datasets/MANIFEST``.

    Returns
    -------
    dict
        ``{relative path: {'file', 'sha256', 'bytes', 'license', 'source', 'citation'}}``.

    Raises
    ------
    DatasetIntegrityError
        If the MANIFEST is malformed.
    """
    root = bundled_data_dir()
    key = str(root)
    if key in _MANIFEST_CACHE:
        return _MANIFEST_CACHE[key]
    entries = {}
    fields = None
    with open(root / "MANIFEST", encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.split("\t")
            if fields is None:
                fields = parts
                continue
            if len(parts) != len(fields):
                raise DatasetIntegrityError(f"{root / 'MANIFEST'}, line {lineno}: expected "
                                            f"{len(fields)} tab-separated fields, found {len(parts)}.")
            entry = dict(zip(fields, parts))
            entry["bytes"] = int(entry["bytes"])
            entries[entry["file"]] = entry
    _MANIFEST_CACHE[key] = entries
    return entries


def _bundled(relpath):
    """Absolute path of a bundled file after checking it is listed and its sha256 matches."""
    entries = manifest()
    if relpath not in entries:
        raise DatasetIntegrityError(f"{relpath!r} is not listed in the bundled data MANIFEST; "
                                    "loaders read only listed files.")
    path = bundled_data_dir() / relpath
    key = str(path)
    if key in _VERIFIED:
        return path
    if not path.is_file():
        raise DatasetIntegrityError(f"bundled data file {path} is missing; the installation is "
                                    "incomplete. Reinstall latentkit.")
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    expected = entries[relpath]["sha256"]
    if h.hexdigest() != expected:
        raise DatasetIntegrityError(
            f"bundled data file {path} is corrupt: its sha256 is {h.hexdigest()}, the MANIFEST "
            f"expects {expected}. Reinstall latentkit (the file must not be edited).")
    with _LOCK:
        _VERIFIED.add(key)
    return path


def _descr(title, relpaths, text=""):
    entries = manifest()
    lic, cites, srcs = [], [], []
    for rp in relpaths:
        e = entries[rp]
        for lst, k in ((lic, "license"), (cites, "citation"), (srcs, "source")):
            if e[k] not in lst:
                lst.append(e[k])
    out = [title, "=" * len(title), ""]
    if text:
        out += [text.strip(), ""]
    out += ["Files: " + ", ".join(relpaths), "License: " + "; ".join(lic),
            "Source: " + "; ".join(srcs), "Citation: " + " ".join(cites),
            "Provenance details: datasets/README.md in the latentkit source tree."]
    return "\n".join(out)


def _read_csv(relpath, delimiter=","):
    """Header and rows (lists of str) of a bundled CSV/TSV, no quote processing."""
    path = _bundled(relpath)
    with _open_text(path) as fh:
        reader = csv.reader(fh, delimiter=delimiter, quoting=csv.QUOTE_NONE)
        header = next(reader)
        rows = [r for r in reader if r]
    return header, rows


def _codes(values, order=None):
    """Integer codes of string labels; ``order`` fixes the names (else first appearance)."""
    if order is None:
        order = list(dict.fromkeys(values))
    index = {v: i for i, v in enumerate(order)}
    return np.array([index[v] for v in values], dtype=np.int64), np.array(order, dtype=str)


def _table(relpath, label_col=None, order=None, title="", text="", int_labels=False):
    header, rows = _read_csv(relpath)
    if label_col is None:
        data = np.array(rows, dtype=np.float64)
        names = header
        target = target_names = None
    else:
        j = header.index(label_col)
        labels = [r[j] for r in rows]
        data = np.array([r[:j] + r[j + 1:] for r in rows], dtype=np.float64)
        names = header[:j] + header[j + 1:]
        if int_labels:
            target = np.array(labels, dtype=np.int64) - 1
            target_names = np.array(order, dtype=str)
        else:
            target, target_names = _codes(labels, order)
    return Bunch(data=data, target=target, target_names=target_names,
                 feature_names=np.array(names, dtype=str),
                 DESCR=_descr(title, [relpath], text))


# ----------------------------------------------------------------------------- text corpora

_DOCWORD_CACHE = {}


def _cached_docword(docword, vocab):
    """A bundled UCI corpus, parsed once per process; every call returns fresh copies."""
    key = (str(bundled_data_dir()), docword)
    if key not in _DOCWORD_CACHE:
        _DOCWORD_CACHE[key] = read_docword(_bundled(docword), _bundled(vocab))
    c = _DOCWORD_CACHE[key]
    return Corpus(data=c.data.copy(), vocabulary=c.vocabulary.copy(),
                  feature_names=c.vocabulary.copy(), target=None, target_names=None, titles=None,
                  DESCR=c.DESCR)

def load_kos():
    """Daily Kos blog entries (2004 US election season), bag of words (UCI).

    Returns
    -------
    Corpus
        ``data`` CSR (3430, 6906) float64 counts, 467,714 tokens; ``vocabulary`` (6906,),
        alphabetical. No document labels (``target`` is None).

    Raises
    ------
    DatasetIntegrityError
        If a bundled file is missing or corrupt.

    Notes
    -----
    Source: Newman, D. (2008), Bag of Words, UCI ML Repository (id 164). CC BY 4.0.
    The most frequent words are bush 6781, kerry 4679, november 3781, poll 2640.
    """
    files = ["kos/docword.kos.txt.gz", "kos/vocab.kos.txt"]
    c = _cached_docword(*files)
    c["DESCR"] = _descr("Daily Kos blog entries (UCI Bag of Words)", files,
                        "3,430 blog entries from dailykos.com, 6,906 words (stop words removed, "
                        "words occurring more than 10 times kept), 467,714 tokens.")
    return c


def load_nips(subset="all"):
    """NIPS papers 1987-1999, bag of words (UCI), vocabulary filtered to words with count > 20.

    Parameters
    ----------
    subset : {'all', 'train', 'test'}, default 'all'
        Documents 1-1350 are the source's random 90 % train split, 1351-1500 the test split.

    Returns
    -------
    Corpus
        ``data`` CSR (1500, 7605) float64 counts (1,870,706 tokens) for 'all'; (1350, 7605) or
        (150, 7605) for a subset; ``vocabulary`` (7605,); ``subset`` per document ('train'/'test').

    Raises
    ------
    ValueError
        Unknown ``subset``.
    DatasetIntegrityError
        If a bundled file is missing or corrupt.

    Notes
    -----
    Source: Newman, D. (2008), Bag of Words, UCI ML Repository (id 164), filtered copy of
    giuseppedib/LDA. CC BY 4.0. Not the complete UCI file (W = 12,419 there).
    """
    if subset not in ("all", "train", "test"):
        raise ValueError(f"subset must be 'all', 'train' or 'test', got {subset!r}.")
    files = ["nips/docword.nips.txt.gz", "nips/vocab.nips.txt"]
    c = _cached_docword(*files)
    split = np.array(["train"] * 1350 + ["test"] * (c.n_docs - 1350), dtype=str)
    if subset != "all":
        keep = split == subset
        c["data"] = c["data"][keep]
        split = split[keep]
    c["subset"] = split
    c["DESCR"] = _descr("NIPS papers 0-12 (UCI Bag of Words, filtered)", files,
                        "1,500 full papers, 7,605 words with total count > 20 (96.8 % of tokens). "
                        "Rows 1-1350 train, 1351-1500 test (as made by the source).")
    return c


_BOOKS_FILE = "gutenberg_novels/books.tsv"
_PARAS_FILE = "gutenberg_novels/paragraphs.tsv.gz"
_PARAGRAPHS = None


def _gutenberg_rows():
    """(books table, paragraph rows) of the novels, parsed once per process (read-only tuples)."""
    global _PARAGRAPHS
    if _PARAGRAPHS is None:
        bh, brows = _read_csv(_BOOKS_FILE, delimiter="\t")
        books = [dict(zip(bh, r)) for r in brows]
        _, prows = _read_csv(_PARAS_FILE, delimiter="\t")
        paras = tuple((r[0], int(r[1]), int(r[2]), r[3]) for r in prows)
        _PARAGRAPHS = (books, paras)
    return _PARAGRAPHS


def _select_books(books, table):
    ids = [b["book"] for b in table]
    if books is None:
        return ids
    if isinstance(books, str):
        books = [books]
    books = list(books)
    unknown = [b for b in books if b not in ids]
    if unknown or not books:
        raise ValueError(f"books must be a non-empty list of book ids from {ids}, got unknown "
                         f"{unknown if unknown else books!r}.")
    return [b for b in ids if b in books]  # reading (file) order


def _gutenberg_documents(level, books):
    table, paras = _gutenberg_rows()
    chosen = _select_books(books, table)
    title_of = {b["book"]: b["title"] for b in table}
    keep = set(chosen)
    docs, labels, titles, meta = [], [], [], []
    if level == "paragraph":
        for book, ch, p, text in paras:
            if book in keep:
                docs.append(text)
                labels.append(book)
                titles.append(f"{title_of[book]}, chapter {ch}, paragraph {p}")
                meta.append((ch, p))
    elif level == "chapter":
        current, buf = None, []
        for book, ch, p, text in paras:
            if book not in keep:
                continue
            if (book, ch) != current:
                if current is not None:
                    docs.append(" ".join(buf))
                current, buf = (book, ch), []
                labels.append(book)
                titles.append(f"{title_of[book]}, chapter {ch}")
                meta.append((ch, 0))
            buf.append(text)
        if current is not None:
            docs.append(" ".join(buf))
    elif level == "book":
        for b in chosen:
            docs.append(" ".join(t for bk, _, _, t in paras if bk == b))
            labels.append(b)
            titles.append(title_of[b])
            meta.append((0, 0))
    else:
        raise ValueError(f"level must be 'chapter', 'paragraph' or 'book', got {level!r}.")
    return docs, labels, titles, meta, chosen, table


def load_gutenberg_novels(level="chapter", books=None, stop_words="english", min_df=2,
                          min_length=2):
    """Nine public-domain novels as a bag-of-words corpus, documents labelled by book.

    Tokenising (documented, deterministic): lowercase; tokens are maximal runs of the letters
    a-z (digits, punctuation, apostrophes and other symbols separate tokens); tokens shorter than
    ``min_length`` letters and words of the stop list are dropped; the vocabulary is every
    remaining word that occurs in at least ``min_df`` of the selected documents, sorted
    alphabetically. Documents left empty stay as empty rows.

    Parameters
    ----------
    level : {'chapter', 'paragraph', 'book'}, default 'chapter'
        One document per chapter (401 for all books), per paragraph (17,080) or per book (9).
    books : str or list of str, optional
        Book ids to keep (see ``books_table``), e.g. the "great library heist" of Silge &
        Robinson (2017, ch. 6.4): ``['great_expectations', 'pride_and_prejudice',
        'war_of_the_worlds', 'twenty_thousand_leagues']`` (193 chapters). Default: all nine.
    stop_words : 'english', collection of str or None, default 'english'
        'english' is the 318-word list shipped with latentkit (``english_stop_words()``; the
        Glasgow IR list as in scikit-learn).
    min_df : int, default 2
        Minimum document frequency of a vocabulary word (>= 1).
    min_length : int, default 2
        Minimum token length in letters.

    Returns
    -------
    Corpus
        ``data`` CSR (n_docs, n_words) float64 counts; ``vocabulary``; ``target`` (n_docs,) the
        book code of each document, into ``target_names`` (book ids, file order);
        ``titles`` e.g. "Emma, chapter 3"; ``chapter`` and ``paragraph`` numbers (1-based;
        0 where not applicable); ``books_table`` (list of dicts: book, title, author, year,
        gutenberg_id, ...).

    Raises
    ------
    ValueError
        Unknown ``level`` or book id, ``min_df`` < 1.
    DatasetIntegrityError
        If a bundled file is missing or corrupt.

    Notes
    -----
    Source: Project Gutenberg texts via janeaustenr and tidytext (public domain). The
    chapter-level, 4-book setting reproduces Silge & Robinson (2017), *Text Mining with R*, 6.4.
    """
    if isinstance(min_df, bool) or not isinstance(min_df, (int, np.integer)) or min_df < 1:
        raise ValueError(f"min_df must be an int >= 1, got {min_df!r}.")
    if isinstance(min_length, bool) or not isinstance(min_length, (int, np.integer)) \
            or min_length < 1:
        raise ValueError(f"min_length must be an int >= 1, got {min_length!r}.")
    table, paras = _gutenberg_rows()
    chosen = _select_books(books, table)
    doc_of_para, labels, titles, meta = _gutenberg_layout(level, chosen, table, paras)
    ids, offsets, words = _paragraph_token_ids()
    # each paragraph's tokens go to its document (joining paragraphs with a space never merges
    # or splits tokens, so tokenising paragraphs once serves every level)
    token_doc = np.repeat(doc_of_para, np.diff(offsets))
    if stop_words == "english":
        stop = english_stop_words()
    else:
        stop = frozenset(stop_words) if stop_words is not None else frozenset()
    allowed = np.array([len(w) >= min_length and w not in stop for w in words], dtype=bool)
    keep = (token_doc >= 0) & allowed[ids] if ids.size else np.zeros(0, dtype=bool)
    n_docs, n_all = len(labels), len(words)
    X_all = sp.csr_matrix((np.ones(int(keep.sum())), (token_doc[keep], ids[keep])),
                          shape=(n_docs, n_all), dtype=np.float64)
    X_all.sum_duplicates()
    df = np.bincount(X_all.indices, minlength=n_all)
    kept = np.flatnonzero(df >= min_df)
    order = kept[np.argsort(words[kept], kind="stable")]  # alphabetical vocabulary
    vocabulary = words[order]
    X = X_all[:, order].tocsr()
    X.sort_indices()
    target, target_names = _codes(labels, chosen)
    meta = np.array(meta, dtype=np.int64).reshape(-1, 2)
    return Corpus(
        data=X, vocabulary=vocabulary, feature_names=vocabulary, target=target,
        target_names=target_names, titles=np.array(titles, dtype=str),
        chapter=meta[:, 0], paragraph=meta[:, 1],
        books_table=[dict(b) for b in table if b["book"] in set(chosen)],
        DESCR=_descr("Nine public-domain novels (Project Gutenberg)", [_BOOKS_FILE, _PARAS_FILE],
                     f"level={level!r}, {n_docs} documents, {vocabulary.size} words "
                     f"(lowercase alphabetic tokens of >= {min_length} letters, stop list "
                     f"{'English (318 words)' if stop_words == 'english' else 'custom/none'}, "
                     f"min_df={min_df})."))


_TOKEN_CACHE = {}


def _paragraph_token_ids():
    """Token ids of every paragraph (concatenated), paragraph offsets, and the id -> word array.

    Tokens are the maximal runs of a-z after lowercasing, unfiltered (stop words and short
    tokens are removed per call, at the word level). Computed once per process."""
    if "ids" not in _TOKEN_CACHE:
        _, paras = _gutenberg_rows()
        index = collections.defaultdict(itertools.count().__next__)
        lookup = index.__getitem__
        ids, offsets = array.array("q"), [0]
        findall = _TOKEN_RE.findall
        for _, _, _, text in paras:
            ids.extend(map(lookup, findall(text.lower())))
            offsets.append(len(ids))
        words = np.array(list(index), dtype=str) if index else np.zeros(0, dtype=str)
        _TOKEN_CACHE["ids"] = (np.frombuffer(ids, dtype=np.int64).copy(),
                               np.array(offsets, dtype=np.int64), words)
    return _TOKEN_CACHE["ids"]


def _gutenberg_layout(level, chosen, table, paras):
    """Document index of every paragraph (-1 if its book is not chosen), and per-document
    labels, titles and (chapter, paragraph) numbers."""
    title_of = {b["book"]: b["title"] for b in table}
    keep = set(chosen)
    doc_of_para = np.full(len(paras), -1, dtype=np.int64)
    labels, titles, meta, index = [], [], [], {}
    if level not in ("chapter", "paragraph", "book"):
        raise ValueError(f"level must be 'chapter', 'paragraph' or 'book', got {level!r}.")
    if level == "book":
        for b in chosen:
            index[b] = len(labels)
            labels.append(b)
            titles.append(title_of[b])
            meta.append((0, 0))
    for i, (book, ch, p, _) in enumerate(paras):
        if book not in keep:
            continue
        key = {"paragraph": (book, ch, p), "chapter": (book, ch), "book": book}[level]
        if key not in index:
            index[key] = len(labels)
            labels.append(book)
            if level == "paragraph":
                titles.append(f"{title_of[book]}, chapter {ch}, paragraph {p}")
                meta.append((ch, p))
            else:
                titles.append(f"{title_of[book]}, chapter {ch}")
                meta.append((ch, 0))
        doc_of_para[i] = index[key]
    return doc_of_para, labels, titles, meta


CHARACTER_ALPHABET = "abcdefghijklmnopqrstuvwxyz "


def load_gutenberg_characters(level="chapter", books=None, max_length=None):
    """The novels as character sequences over 27 symbols: 'a'-'z' (0-25) and space (26).

    The text is lowercased; every maximal run of characters that are not letters a-z
    (whitespace, punctuation, digits, '£') becomes one space; leading and trailing spaces of a
    sequence are removed. This is the alphabet of the classic 2-state vowel/consonant HMM
    experiment (Cave & Neuwirth 1980).

    Parameters
    ----------
    level : {'chapter', 'paragraph', 'book'}, default 'chapter'
        One sequence per chapter, paragraph or book.
    books : str or list of str, optional
        Book ids to keep (as in :func:`load_gutenberg_novels`). Default: all nine.
    max_length : int, optional
        Keep only the first ``max_length`` symbols in total (the last sequence is cut; later
        ones dropped), for small experiments.

    Returns
    -------
    Bunch
        ``data`` ndarray (n_symbols, 1) int64 in 0..26, all sequences concatenated (the
        hmmlearn layout); ``lengths`` (n_sequences,) int64 summing to n_symbols; ``sequences``
        list of 1-D int64 arrays (views of ``data``); ``alphabet`` the 27-character string
        (symbol i is ``alphabet[i]``); ``target`` book code per sequence into
        ``target_names``; ``titles``.

    Raises
    ------
    ValueError
        Unknown ``level`` or book, bad ``max_length``.
    DatasetIntegrityError
        If a bundled file is missing or corrupt.

    Notes
    -----
    Source: Cave, R. L. & Neuwirth, L. P. (1980), "Hidden Markov models for English", in
    *Hidden Markov Models for Speech*, IDA-CRD, 16-56 (the 27-symbol alphabet).
    """
    if max_length is not None and (isinstance(max_length, bool)
                                   or not isinstance(max_length, (int, np.integer))
                                   or max_length < 1):
        raise ValueError(f"max_length must be None or an int >= 1, got {max_length!r}.")
    docs, labels, titles, _, chosen, _ = _gutenberg_documents(level, books)
    # lowercase, map to bytes; non a-z -> space; collapse runs of spaces
    table = np.full(256, 26, dtype=np.int64)
    table[np.frombuffer(b"abcdefghijklmnopqrstuvwxyz", dtype=np.uint8)] = np.arange(26)
    seqs, keep_labels, keep_titles, total = [], [], [], 0
    for doc, lab, tit in zip(docs, labels, titles):
        raw = np.frombuffer(doc.lower().encode("latin-1", errors="replace"), dtype=np.uint8)
        sym = table[raw]
        space = sym == 26
        keep = ~(space & np.concatenate(([True], space[:-1])))  # drop repeated spaces
        sym = sym[keep]
        if sym.size and sym[-1] == 26:
            sym = sym[:-1]
        if sym.size == 0:
            continue
        if max_length is not None and total + sym.size > max_length:
            sym = sym[: max_length - total]
        seqs.append(sym)
        keep_labels.append(lab)
        keep_titles.append(tit)
        total += sym.size
        if max_length is not None and total >= max_length:
            break
    data = np.concatenate(seqs).reshape(-1, 1) if seqs else np.zeros((0, 1), dtype=np.int64)
    lengths = np.array([s.size for s in seqs], dtype=np.int64)
    offsets = np.concatenate(([0], np.cumsum(lengths)))
    sequences = [data[offsets[i]:offsets[i + 1], 0] for i in range(len(seqs))]
    target, target_names = _codes(keep_labels, [b for b in chosen])
    return Bunch(data=data, lengths=lengths, sequences=sequences, alphabet=CHARACTER_ALPHABET,
                 target=target, target_names=target_names,
                 titles=np.array(keep_titles, dtype=str),
                 feature_names=np.array(["symbol"], dtype=str),
                 DESCR=_descr("Nine public-domain novels as 27-symbol character sequences",
                              [_BOOKS_FILE, _PARAS_FILE],
                              f"level={level!r}, {len(seqs)} sequences, {total} symbols; "
                              "symbol i is alphabet[i] with alphabet 'a'..'z' + ' '."))


# ----------------------------------------------------------------------------- sequences

def load_earthquakes():
    """Yearly counts of major (magnitude >= 7) earthquakes worldwide, 1900-2006.

    Returns
    -------
    Bunch
        ``data`` ndarray (107, 1) int64 counts (sum 2,072), one time series in year order
        (the layout of a PoissonHMM's input); ``years`` (107,) int64; ``target`` None.

    Raises
    ------
    DatasetIntegrityError
        If the bundled file is missing or corrupt.

    Notes
    -----
    Source: USGS, as tabulated in Zucchini & MacDonald (2009), *Hidden Markov Models for Time
    Series*, Chapman & Hall/CRC. Public domain. Their maximum-likelihood tables are in
    datasets/README.md.
    """
    rel = "earthquakes/earthquakes_m7_1900_2006.csv"
    header, rows = _read_csv(rel)
    arr = np.array(rows, dtype=np.int64)
    return Bunch(data=arr[:, 1:2].copy(), years=arr[:, 0].copy(), target=None,
                 feature_names=np.array(["count"], dtype=str),
                 DESCR=_descr("Major earthquakes per year, 1900-2006", [rel],
                              "107 yearly counts of magnitude >= 7 earthquakes (sum 2,072)."))


def load_lambda_phage():
    """The complete genome of bacteriophage lambda (NC_001416.1) as symbols 0..3.

    Returns
    -------
    Bunch
        ``data`` ndarray (48502, 1) int64, symbol i is ``alphabet[i]`` with ``alphabet = 'ACGT'``
        (A 12,334, C 11,362, G 12,820, T 11,986); ``sequence`` the genome as a str;
        ``header`` the FASTA header; ``lengths`` array([48502]).

    Raises
    ------
    DatasetIntegrityError
        If the bundled file is missing or corrupt, or contains a symbol other than ACGT.

    Notes
    -----
    Source: NCBI RefSeq NC_001416.1; Sanger, F. et al. (1982), J. Mol. Biol. 162:729-773.
    """
    rel = "lambda_phage/lambda_phage_NC_001416.1.fa.gz"
    with _open_text(_bundled(rel)) as fh:
        lines = split_lines(fh.read())
    header = lines[0][1:].strip()
    seq = "".join(ln.strip() for ln in lines[1:] if ln.strip()).upper()
    table = np.full(256, -1, dtype=np.int64)
    for i, ch in enumerate("ACGT"):
        table[ord(ch)] = i
    sym = table[np.frombuffer(seq.encode("ascii"), dtype=np.uint8)]
    if np.any(sym < 0):
        raise DatasetIntegrityError(f"{rel}: unexpected symbol outside ACGT.")
    return Bunch(data=sym.reshape(-1, 1), sequence=seq, header=header, alphabet="ACGT",
                 lengths=np.array([sym.size], dtype=np.int64), target=None,
                 feature_names=np.array(["base"], dtype=str),
                 DESCR=_descr("Bacteriophage lambda genome (NC_001416.1)", [rel],
                              "48,502 bp; symbols 0..3 = A, C, G, T."))


# ----------------------------------------------------------------------------- real-valued tables

def load_old_faithful(kind="faithful"):
    """Old Faithful geyser eruptions.

    Parameters
    ----------
    kind : {'faithful', 'geyser'}, default 'faithful'
        'faithful': R's ``faithful``, 272 eruptions, columns ``eruptions`` (duration, minutes)
        and ``waiting`` (minutes to the next eruption); the data of Bishop's PRML ch. 9.
        'geyser': ``MASS::geyser``, 299 consecutive eruptions in time order (August 1985),
        columns ``waiting`` (minutes since the previous eruption) and ``duration`` (minutes;
        some night-time values are coded as exactly 2, 3 or 4).

    Returns
    -------
    Bunch
        ``data`` ndarray (272, 2) or (299, 2) float64 in raw units; ``feature_names``;
        ``target`` None.

    Raises
    ------
    ValueError
        Unknown ``kind``.
    DatasetIntegrityError
        If the bundled file is missing or corrupt.

    Notes
    -----
    Source: Azzalini & Bowman (1990), Applied Statistics 39:357-365; Haerdle (1991). The
    maximum-likelihood 2-component full-covariance GMM of 'faithful' has log-likelihood
    -1130.264 (datasets/README.md).
    """
    if kind == "faithful":
        return _table("old_faithful/faithful.csv", title="Old Faithful (R datasets::faithful)",
                      text="272 eruptions: duration (min) and waiting time to the next (min).")
    if kind == "geyser":
        return _table("old_faithful/geyser_mass.csv", title="Old Faithful series (MASS::geyser)",
                      text="299 consecutive eruptions in time order: waiting (min), duration (min).")
    raise ValueError(f"kind must be 'faithful' or 'geyser', got {kind!r}.")


def load_iris():
    """Fisher's iris: 150 flowers, 4 measurements (cm), 3 species.

    Returns
    -------
    Bunch
        ``data`` (150, 4) float64; ``target`` (150,) int64 codes into ``target_names``
        ['setosa', 'versicolor', 'virginica'] (50 each); ``feature_names``.

    Raises
    ------
    DatasetIntegrityError

    Notes
    -----
    Source: Fisher, R. A. (1936), Annals of Eugenics 7:179-188; UCI id 53 (CC BY 4.0).
    """
    return _table("iris/iris.csv", "species", ["setosa", "versicolor", "virginica"],
                  "Fisher's iris", "150 flowers, 4 measurements in cm, 3 species (50 each).")


def load_wine():
    """UCI wine: 178 wines, 13 chemical measurements, 3 cultivars.

    Returns
    -------
    Bunch
        ``data`` (178, 13) float64 (features differ in scale by orders of magnitude:
        standardise for GMMs); ``target`` (178,) int64 = cultivar - 1 (59, 71, 48 rows);
        ``target_names`` ['1', '2', '3'].

    Raises
    ------
    DatasetIntegrityError

    Notes
    -----
    Source: Forina, M. et al., PARVUS; UCI id 109 (CC BY 4.0).
    """
    return _table("wine/wine.csv", "cultivar", ["1", "2", "3"], "UCI wine",
                  "178 wines, 13 measurements, 3 cultivars.", int_labels=True)


def load_seeds():
    """UCI wheat seeds: 210 kernels, 7 geometric measurements, 3 varieties.

    Returns
    -------
    Bunch
        ``data`` (210, 7) float64; ``target`` (210,) int64 = variety - 1 into ``target_names``
        ['Kama', 'Rosa', 'Canadian'] (70 each).

    Raises
    ------
    DatasetIntegrityError

    Notes
    -----
    Source: Charytanowicz, M. et al. (2010), Information Technologies in Biomedicine,
    Springer; UCI id 236 (CC BY 4.0).
    """
    return _table("seeds/seeds.csv", "variety", ["Kama", "Rosa", "Canadian"], "UCI wheat seeds",
                  "210 kernels, 7 measurements, 3 varieties (70 each).", int_labels=True)


def load_swiss_banknote():
    """Swiss banknotes: 200 notes, 6 measurements (mm), genuine or counterfeit.

    Returns
    -------
    Bunch
        ``data`` (200, 6) float64 (Length, Left, Right, Bottom, Top, Diagonal);
        ``target`` (200,) int64 into ``target_names`` ['genuine', 'counterfeit'] (100 each).

    Raises
    ------
    DatasetIntegrityError

    Notes
    -----
    Source: Flury, B. & Riedwyl, H. (1988), *Multivariate Statistics: A Practical Approach*,
    Chapman & Hall; via mclust (GPL >= 2), factual measurements.
    """
    return _table("swiss_banknote/banknote.csv", "Status", ["genuine", "counterfeit"],
                  "Swiss banknotes", "200 notes, 6 measurements in mm, 100 genuine, 100 counterfeit.")


_OLIVE_REGIONS = ["Northern Italy", "Sardinia", "Southern Italy"]


def load_olive_oil():
    """Fatty-acid composition of 572 Italian olive oils with nested region / area labels.

    Returns
    -------
    Bunch
        ``data`` (572, 8) float64, percent of total fatty acids (rows sum to about 100);
        ``target`` (572,) int64 region codes into ``target_names``
        ['Northern Italy', 'Sardinia', 'Southern Italy'] (151, 98, 323);
        ``area`` (572,) int64 codes into ``area_names`` (9 areas, sorted by region then name);
        ``area_region`` (9,) int64 the region code of each area (the nesting).

    Raises
    ------
    DatasetIntegrityError

    Notes
    -----
    Source: Forina, M., Armanino, C., Lanteri, S. & Tiscornia, E. (1983), in *Food Research and
    Data Analysis*, 189-214; via dslabs (Artistic-2.0).
    """
    rel = "olive_oil/olive.csv"
    header, rows = _read_csv(rel)
    regions = [r[0] for r in rows]
    areas = [r[1] for r in rows]
    target, target_names = _codes(regions, _OLIVE_REGIONS)
    region_of = {}
    for rg, ar in zip(regions, areas):
        region_of.setdefault(ar, rg)
    area_order = sorted(region_of, key=lambda a: (_OLIVE_REGIONS.index(region_of[a]), a))
    area, area_names = _codes(areas, area_order)
    area_region = np.array([_OLIVE_REGIONS.index(region_of[a]) for a in area_order], np.int64)
    return Bunch(data=np.array([r[2:] for r in rows], dtype=np.float64), target=target,
                 target_names=target_names, area=area, area_names=area_names,
                 area_region=area_region, feature_names=np.array(header[2:], dtype=str),
                 DESCR=_descr("Italian olive oils", [rel],
                              "572 oils, 8 fatty acids (%), 3 regions containing 9 areas."))


def load_optdigits(subset="all", scale="counts", threshold=8):
    """UCI optical handwritten digits: 8x8 images of pixel-block counts 0..16.

    Parameters
    ----------
    subset : {'all', 'train', 'test'}, default 'all'
        'train' is the UCI ``optdigits.tra`` file (3,823 images), 'test' is ``optdigits.tes``
        (1,797, identical to scikit-learn's ``load_digits``); 'all' stacks train then test.
    scale : {'counts', 'unit', 'binary'}, default 'counts'
        'counts': the raw integers 0..16 (as float64; a Binomial(16) observation per pixel);
        'unit': divided by 16, in [0, 1]; 'binary': 1.0 where count >= ``threshold``, else 0.0
        (for a Bernoulli likelihood).
    threshold : int, default 8
        Used by ``scale='binary'`` only (8 = half of the maximum count).

    Returns
    -------
    Bunch
        ``data`` (n, 64) float64, pixel (r, c) in column 8 r + c; ``target`` (n,) int64 digits
        0..9; ``subset`` (n,) 'train'/'test' per row; ``images`` (n, 8, 8) view of ``data``;
        ``target_names`` '0'..'9'.

    Raises
    ------
    ValueError
        Unknown ``subset`` or ``scale``, ``threshold`` outside 1..16.
    DatasetIntegrityError

    Notes
    -----
    Source: Alpaydin, E. & Kaynak, C. (1998), Optical Recognition of Handwritten Digits, UCI
    id 80 (CC BY 4.0).
    """
    if subset not in ("all", "train", "test"):
        raise ValueError(f"subset must be 'all', 'train' or 'test', got {subset!r}.")
    if scale not in ("counts", "unit", "binary"):
        raise ValueError(f"scale must be 'counts', 'unit' or 'binary', got {scale!r}.")
    if isinstance(threshold, bool) or not isinstance(threshold, (int, np.integer)) \
            or not 1 <= threshold <= 16:
        raise ValueError(f"threshold must be an int in 1..16, got {threshold!r}.")
    parts = ["train", "test"] if subset == "all" else [subset]
    datas, targets, subsets, files = [], [], [], []
    for part in parts:
        rel = f"optdigits/optdigits_{part}.csv.gz"
        files.append(rel)
        header, rows = _read_csv(rel)
        arr = np.array(rows, dtype=np.float64)
        datas.append(arr[:, :64])
        targets.append(arr[:, 64].astype(np.int64))
        subsets += [part] * arr.shape[0]
    data = np.vstack(datas)
    if scale == "unit":
        data = data / 16.0
    elif scale == "binary":
        data = (data >= threshold).astype(np.float64)
    return Bunch(data=data, target=np.concatenate(targets), subset=np.array(subsets, dtype=str),
                 images=data.reshape(-1, 8, 8), target_names=np.array([str(i) for i in range(10)]),
                 feature_names=np.array([f"p{i}" for i in range(64)], dtype=str),
                 DESCR=_descr("UCI optical handwritten digits", files,
                              f"subset={subset!r}, scale={scale!r}: {data.shape[0]} images of 8x8 "
                              "pixel-block counts 0..16."))


# ----------------------------------------------------------------------------- high-dimensional

def load_golub(kind="dudoit"):
    """Golub et al. (1999) leukemia microarrays, ALL vs AML.

    Parameters
    ----------
    kind : {'dudoit', 'raw'}, default 'dudoit'
        'dudoit': the standard preprocessed training set, 38 x 3,051 (``multtest::golub``:
        clipped to [100, 16000], genes with max/min > 5 and max - min > 500, log10, each sample
        standardised; Dudoit, Fridlyand & Speed 2002). 'raw': the 72 x 7,129 rescaled Hu6800
        intensities (integers, negatives present), patients 1-38 'train', 39-72 'test'.

    Returns
    -------
    Bunch
        ``data`` (38, 3051) or (72, 7129) float64; ``target`` int64, 0 = ALL, 1 = AML
        (``target_names``); ``feature_names`` probe ids; ``sample`` patient numbers;
        ``subset`` 'train'/'test' per row; ``gene_descriptions`` (n_features,) (raw only).

    Raises
    ------
    ValueError
        Unknown ``kind``.
    DatasetIntegrityError

    Notes
    -----
    Source: Golub, T. R. et al. (1999), Science 286:531-537; Dudoit, S., Fridlyand, J. & Speed,
    T. P. (2002), JASA 97:77-87.
    """
    if kind == "dudoit":
        rel = "golub_leukemia/golub_dudoit_38x3051.csv.gz"
        header, rows = _read_csv(rel)
        data = np.array([r[2:] for r in rows], dtype=np.float64)
        subset = np.array(["train"] * len(rows), dtype=str)
        names, files, extra = header[2:], [rel], {}
        text = "38 training samples x 3,051 genes, preprocessed as Dudoit et al. (2002)."
    elif kind == "raw":
        rel = "golub_leukemia/golub_72x7129.csv.gz"
        grel = "golub_leukemia/golub_genes.tsv.gz"
        header, rows = _read_csv(rel)
        data = np.array([r[3:] for r in rows], dtype=np.float64)
        subset = np.array([r[2] for r in rows], dtype=str)
        names, files = header[3:], [rel, grel]
        _, grows = _read_csv(grel, delimiter="\t")
        extra = {"gene_descriptions": np.array([g[1] for g in grows], dtype=str)}
        text = "72 samples x 7,129 probes, raw rescaled Hu6800 intensities (1-38 train, 39-72 test)."
    else:
        raise ValueError(f"kind must be 'dudoit' or 'raw', got {kind!r}.")
    target, target_names = _codes([r[1] for r in rows], ["ALL", "AML"])
    return Bunch(data=data, target=target, target_names=target_names,
                 feature_names=np.array(names, dtype=str),
                 sample=np.array([int(r[0]) for r in rows], dtype=np.int64), subset=subset,
                 DESCR=_descr("Golub et al. (1999) leukemia (ALL/AML)", files, text), **extra)


def load_khan(subset="all"):
    """Khan et al. (2001) small round blue cell tumours: 83 samples x 2,308 genes, 4 classes.

    Parameters
    ----------
    subset : {'all', 'train', 'test'}, default 'all'
        63 training and 20 test samples ('all' keeps file order: train then test).

    Returns
    -------
    Bunch
        ``data`` (83, 2308) float64 for 'all'; ``target`` int64 = class - 1 into
        ``target_names`` ['BL', 'EWS', 'NB', 'RMS'] (Burkitt lymphoma, Ewing's sarcoma,
        neuroblastoma, rhabdomyosarcoma; the mapping is inferred from the class sizes);
        ``subset`` per row.

    Raises
    ------
    ValueError
        Unknown ``subset``.
    DatasetIntegrityError

    Notes
    -----
    Source: Khan, J. et al. (2001), Nature Medicine 7:673-679; ISLR ``Khan`` via ISLP (BSD-3).
    """
    if subset not in ("all", "train", "test"):
        raise ValueError(f"subset must be 'all', 'train' or 'test', got {subset!r}.")
    rel = "khan_srbct/khan_83x2308.csv.gz"
    header, rows = _read_csv(rel)
    if subset != "all":
        rows = [r for r in rows if r[0] == subset]
    return Bunch(data=np.array([r[2:] for r in rows], dtype=np.float64),
                 target=np.array([int(r[1]) - 1 for r in rows], dtype=np.int64),
                 target_names=np.array(["BL", "EWS", "NB", "RMS"], dtype=str),
                 subset=np.array([r[0] for r in rows], dtype=str),
                 feature_names=np.array(header[2:], dtype=str),
                 DESCR=_descr("Khan et al. (2001) SRBCT", [rel],
                              "83 samples x 2,308 genes, 4 tumour classes."))


def load_nci60():
    """NCI60 cancer cell lines: 64 x 6,830 cDNA microarray log-ratios, 14 labels.

    Returns
    -------
    Bunch
        ``data`` (64, 6830) float64; ``target`` (64,) int64 into ``target_names`` (cancer
        types in order of first appearance).

    Raises
    ------
    DatasetIntegrityError

    Notes
    -----
    Source: Ross, D. T. et al. (2000), Nature Genetics 24:227-235; ISLR ``NCI60`` via ISLP.
    """
    return _table("nci60/nci60_64x6830.csv.gz", "label", None, "NCI60 cell lines",
                  "64 cell lines x 6,830 genes.")


# ----------------------------------------------------------------------------- registry

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
    """
    return [{"name": n, "kind": k, "description": d, "shape": s, "license": lic, "loader": f}
            for n, (f, k, d, s, lic) in _REGISTRY.items()]


def load_dataset(name):
    """Load a bundled data set by its name in :func:`list_datasets`, with default arguments.

    Raises
    ------
    ValueError
        Unknown name (the message lists the known ones).
    """
    if name not in _REGISTRY:
        raise ValueError(f"unknown dataset {name!r}; bundled data sets are: "
                         + ", ".join(_REGISTRY) + ".")
    return _REGISTRY[name][0]()


__all__ += ["load_dataset", "CHARACTER_ALPHABET"]
