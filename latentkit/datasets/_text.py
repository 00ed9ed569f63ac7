"""Loaders of the bundled text corpora (documents x words counts): KOS and NIPS (UCI bag of
words) and the Project Gutenberg novels, with the character sequences of the same novels
(``load_gutenberg_characters``), which share their source files and book selection."""

import array
import collections
import itertools

import numpy as np
import scipy.sparse as sp

from ._corpus import _TOKEN_RE, Bunch, Corpus, english_stop_words, read_docword
from ._files import _bundled, _codes, _descr, _read_csv, bundled_data_dir
from ..exceptions import InputError

__all__ = ["load_kos", "load_nips", "load_gutenberg_novels", "load_gutenberg_characters",
           "CHARACTER_ALPHABET"]


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

    Examples
    --------
    >>> from latentkit.datasets import load_kos
    >>> kos = load_kos()
    >>> kos.data.shape, len(kos.vocabulary)
    ((3430, 6906), 6906)
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

    Examples
    --------
    >>> from latentkit.datasets import load_nips
    >>> nips = load_nips()
    >>> nips.data.shape
    (1500, 7605)
    """
    if subset not in ("all", "train", "test"):
        raise InputError(f"subset must be 'all', 'train' or 'test', got {subset!r}.")
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
        raise InputError(f"books must be a non-empty list of book ids from {ids}, got unknown "
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
        raise InputError(f"level must be 'chapter', 'paragraph' or 'book', got {level!r}.")
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

    Examples
    --------
    >>> from latentkit.datasets import load_gutenberg_novels
    >>> novels = load_gutenberg_novels()
    >>> novels.data.shape[0], len(novels.target_names) > 1
    (401, True)
    """
    if isinstance(min_df, bool) or not isinstance(min_df, (int, np.integer)) or min_df < 1:
        raise InputError(f"min_df must be an int >= 1, got {min_df!r}.")
    if isinstance(min_length, bool) or not isinstance(min_length, (int, np.integer)) \
            or min_length < 1:
        raise InputError(f"min_length must be an int >= 1, got {min_length!r}.")
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
        raise InputError(f"level must be 'chapter', 'paragraph' or 'book', got {level!r}.")
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

    Examples
    --------
    >>> from latentkit.datasets import CHARACTER_ALPHABET, load_gutenberg_characters
    >>> chars = load_gutenberg_characters(level="book", max_length=40)
    >>> chars.data.shape[1], int(chars.data.max()) < len(CHARACTER_ALPHABET)
    (1, True)
    >>> "".join(CHARACTER_ALPHABET[i] for i in chars.data[:12, 0])
    'the family o'
    """
    if max_length is not None and (isinstance(max_length, bool)
                                   or not isinstance(max_length, (int, np.integer))
                                   or max_length < 1):
        raise InputError(f"max_length must be None or an int >= 1, got {max_length!r}.")
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
