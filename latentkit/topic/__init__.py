"""Topic models for documents x vocabulary count matrices.

:class:`LatentDirichletAllocation` (mean-field variational Bayes; Blei, Ng & Jordan 2003;
Hoffman, Blei & Bach 2010); :class:`HierarchicalDirichletProcess` (the HDP topic model,
Wang, Paisley & Blei 2011).
"""

from ._cvb0 import cvb0_topics
from ._lda import LatentDirichletAllocation, LDAStats, lda_e_step
from ._hdp import HierarchicalDirichletProcess
from ._hdp_start import hdp_subsample_start
from ._plsa import PLSA
from ._coherence import Coherence, coherence
from ._diversity import topic_diversity
from ._report import report_data, topic_report
from ._pyldavis import save_pyldavis_html
from ._spectral_start import spectral_init_lda, spectral_init_plsa
from ._seeding import SeedWordError
from ._dmm import DirichletMultinomialMixture
from ._btm import BitermTopicModel
from ._dtm import DynamicTopicModel
from ._dtm_data import slice_times
from ._labeled_lda import LabeledLDA
from ._dmr import DirichletMultinomialRegression

__all__ = [
    "LatentDirichletAllocation",
    "LDAStats",
    "HierarchicalDirichletProcess",
    "hdp_subsample_start",
    "lda_e_step",
    "cvb0_topics",
    "PLSA",
    "coherence",
    "Coherence",
    "topic_diversity",
    "topic_report",
    "save_pyldavis_html",
    "report_data",
    "spectral_init_lda",
    "spectral_init_plsa",
    "SeedWordError",
    "DirichletMultinomialMixture",
    "BitermTopicModel",
    "DynamicTopicModel",
    "slice_times",
    "LabeledLDA",
    "DirichletMultinomialRegression",
]
