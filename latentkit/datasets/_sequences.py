"""Loaders of the bundled sequence data (a Bunch with ``lengths``): yearly earthquake counts and
the bacteriophage lambda genome."""

import numpy as np

from ._corpus import Bunch, _open_text, split_lines
from ._files import DatasetIntegrityError, _bundled, _descr, _read_csv

__all__ = ["load_earthquakes", "load_lambda_phage"]


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

    Examples
    --------
    >>> from latentkit.datasets import load_earthquakes
    >>> quakes = load_earthquakes()
    >>> quakes.data.shape, int(quakes.years[0])
    ((107, 1), 1900)
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

    Examples
    --------
    >>> from latentkit.datasets import load_lambda_phage
    >>> phage = load_lambda_phage()
    >>> phage.data.shape, list(phage.alphabet)
    ((48502, 1), ['A', 'C', 'G', 'T'])
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
