"""Loaders of the bundled tables of numbers (one row per sample): Old Faithful, iris, wine,
seeds, Swiss banknotes, olive oil, optdigits, and the high-dimensional gene-expression sets
(Golub, Khan, NCI60)."""

import numpy as np

from ._corpus import Bunch
from ._files import _codes, _descr, _read_csv
from ..exceptions import InputError

__all__ = ["load_old_faithful", "load_iris", "load_wine", "load_seeds", "load_swiss_banknote",
           "load_olive_oil", "load_optdigits", "load_golub", "load_khan", "load_nci60"]


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

    Examples
    --------
    >>> from latentkit.datasets import load_old_faithful
    >>> geyser = load_old_faithful()
    >>> geyser.data.shape, [str(f) for f in geyser.feature_names]
    ((272, 2), ['eruptions', 'waiting'])
    """
    if kind == "faithful":
        return _table("old_faithful/faithful.csv", title="Old Faithful (R datasets::faithful)",
                      text="272 eruptions: duration (min) and waiting time to the next (min).")
    if kind == "geyser":
        return _table("old_faithful/geyser_mass.csv", title="Old Faithful series (MASS::geyser)",
                      text="299 consecutive eruptions in time order: waiting (min), duration (min).")
    raise InputError(f"kind must be 'faithful' or 'geyser', got {kind!r}.")


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

    Examples
    --------
    >>> from latentkit.datasets import load_iris
    >>> iris = load_iris()
    >>> iris.data.shape, len(iris.target_names)
    ((150, 4), 3)
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

    Examples
    --------
    >>> from latentkit.datasets import load_wine
    >>> wine = load_wine()
    >>> wine.data.shape, len(wine.target_names)
    ((178, 13), 3)
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

    Examples
    --------
    >>> from latentkit.datasets import load_seeds
    >>> seeds = load_seeds()
    >>> seeds.data.shape, len(seeds.target_names)
    ((210, 7), 3)
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

    Examples
    --------
    >>> from latentkit.datasets import load_swiss_banknote
    >>> notes = load_swiss_banknote()
    >>> notes.data.shape, len(notes.target_names)
    ((200, 6), 2)
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

    Examples
    --------
    >>> from latentkit.datasets import load_olive_oil
    >>> oil = load_olive_oil()
    >>> oil.data.shape, len(oil.area_names)
    ((572, 8), 9)
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

    Examples
    --------
    >>> from latentkit.datasets import load_optdigits
    >>> digits = load_optdigits()
    >>> digits.data.shape, digits.images.shape[1:]
    ((5620, 64), (8, 8))
    """
    if subset not in ("all", "train", "test"):
        raise InputError(f"subset must be 'all', 'train' or 'test', got {subset!r}.")
    if scale not in ("counts", "unit", "binary"):
        raise InputError(f"scale must be 'counts', 'unit' or 'binary', got {scale!r}.")
    if isinstance(threshold, bool) or not isinstance(threshold, (int, np.integer)) \
            or not 1 <= threshold <= 16:
        raise InputError(f"threshold must be an int in 1..16, got {threshold!r}.")
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

    Examples
    --------
    >>> from latentkit.datasets import load_golub
    >>> golub = load_golub()
    >>> golub.data.shape
    (38, 3051)
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
        raise InputError(f"kind must be 'dudoit' or 'raw', got {kind!r}.")
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

    Examples
    --------
    >>> from latentkit.datasets import load_khan
    >>> khan = load_khan()
    >>> khan.data.shape
    (83, 2308)
    """
    if subset not in ("all", "train", "test"):
        raise InputError(f"subset must be 'all', 'train' or 'test', got {subset!r}.")
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

    Examples
    --------
    >>> from latentkit.datasets import load_nci60
    >>> nci = load_nci60()
    >>> nci.data.shape
    (64, 6830)
    """
    return _table("nci60/nci60_64x6830.csv.gz", "label", None, "NCI60 cell lines",
                  "64 cell lines x 6,830 genes.")
