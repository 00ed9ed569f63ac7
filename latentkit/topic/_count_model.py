"""What the variational topic models of counts share: the mean ELBO as ``score``, the
perplexity from the E-step's bound, the generative ``sample`` given the documents' topic
weights, and the ``total_samples`` default of ``partial_fit``.

Used by :class:`latentkit.topic.LatentDirichletAllocation` and
:class:`latentkit.topic.HierarchicalDirichletProcess`; each gives ``_e_step`` (statistics with
``data_term``), ``_global_elbo_terms`` and ``_sample_doc_topic`` (its prior over the
document-topic weights).
"""

import numbers

import numpy as np
import scipy.sparse as sp

from .._utils.validation import check_scalar
from ..exceptions import InputError

__all__ = ["CountTopicModelMixin"]


class CountTopicModelMixin:
    """``score``, ``perplexity``, ``sample`` and the ``partial_fit`` default of the topic
    models of counts (mixed in before :class:`latentkit.base.LatentModel`)."""

    def _partial_step(self, X, step_size=None, total_samples=None, **kw):
        """The step of ``partial_fit`` (a natural-gradient step on the global factors:
        Hoffman, Blei & Bach 2010, Algorithm 2, for LDA; Wang, Paisley & Blei 2011,
        Algorithm 1, for the HDP: ``lambda <- (1 - rho) lambda + rho (eta + (N/|B|)
        sstats_B)``), with ``total_samples`` defaulting to the hyper-parameter (None: no
        scaling)."""
        if total_samples is None:
            total_samples = self.total_samples
        return super()._partial_step(X, step_size, total_samples, **kw)

    def score(self, X, y=None):
        """Mean ELBO per document (nats), the same as :meth:`elbo`.

        latentkit reports every bound per sample; scikit-learn's ``LatentDirichletAllocation.score``
        returns the total, which is ``score(X) * n_documents`` here.

        Parameters
        ----------
        X : array-like or scipy.sparse matrix of shape (n_documents, n_features)
        y : ignored

        Returns
        -------
        float
            Nats per document (includes the global KL terms divided by ``n_documents``).
        """
        return self.elbo(X)

    def perplexity(self, X, *, include_prior_kl=True):
        """Perplexity ``exp(-ELBO_total / n_tokens)`` of documents ``X``.

        By default ``ELBO_total = elbo(X) * n_documents`` includes the global terms (the
        topics' ``-KL(q(beta) || p(beta))``, and the HDP's corpus sticks and concentration
        priors), as scikit-learn's ``perplexity`` does (the two agree at the same LDA topics).
        Those terms do not shrink with fewer documents, so on a small held-out set they
        dominate; ``include_prior_kl=False`` gives the per-document bound of Hoffman, Blei &
        Bach (2010, section 4), ``exp(-sum_d ELBO_d / n_tokens)`` with only the local terms,
        which is the usual held-out measure.

        Parameters
        ----------
        X : array-like or scipy.sparse matrix of shape (n_documents, n_features)
        include_prior_kl : bool, default True
            Include the global terms in the bound.

        Returns
        -------
        float
            Perplexity per token (an upper bound on the exponentiated per-token cross-entropy).
            Lower is better.

        Raises
        ------
        NotFittedError
        ValueError
            When ``X`` contains no tokens.

        Notes
        -----
        Blei, Ng & Jordan (2003), eq. (21) with the ELBO in place of the log-likelihood;
        Hoffman, Blei & Bach (2010), section 4.
        """
        self._check_is_fitted()
        X = self._validate_data(X, reset=False)
        n_tok = float(X.data.sum())
        if n_tok <= 0:
            raise InputError("X contains no tokens; perplexity is undefined.")
        stats = self._e_step(X)
        total = stats.data_term + (self._global_elbo_terms() if include_prior_kl else 0.0)
        return float(np.exp(-total / n_tok))

    def sample(self, n_samples=1, random_state=None, doc_length=None):
        """Draw documents from the fitted generative model, the topics at their posterior mean.

        Each document's topic weights ``theta_d`` from the model's prior (LDA: ``theta_d ~
        Dir(alpha)``; HDP: document sticks ``pi'_t ~ Beta(1, alpha)`` with ``pi'_K = 1`` and
        atom topics ``c_t ~ Cat(topic_weights_)``), ``N_d ~ Poisson(doc_length)`` and the
        counts ``~ Multinomial(N_d, theta_d @ E_q[beta])`` with ``E_q[beta_k] = lambda_k /
        sum lambda_k`` (summing out the topic of each token).

        Parameters
        ----------
        n_samples : int, default 1
            Number of documents.
        random_state : None, int or numpy.random.Generator
            Default None: the model's own sampling generator, seeded from the ``random_state``
            hyper-parameter at fit and advanced by every call (repeated calls give fresh draws).
        doc_length : float, optional
            Mean document length; default ``mean_doc_length_`` of the training data (a model
            fitted privately stores none: give it).

        Returns
        -------
        X : scipy.sparse.csr_matrix of shape (n_samples, n_features)
            Counts (float64).
        doc_topic : ndarray of shape (n_samples, n_components)
            The drawn theta (rows sum to 1).

        Raises
        ------
        NotFittedError, ValueError

        Notes
        -----
        Blei, Ng & Jordan (2003), section 3 (LDA's generative process); Teh, Jordan, Beal &
        Blei (2006) and Wang, Paisley & Blei (2011), section 2 (the HDP's).
        """
        self._check_is_fitted()
        n_samples = check_scalar(n_samples, "n_samples", numbers.Integral, low=1)
        rng = self._sampling_rng(random_state)
        if doc_length is None and getattr(self, "mean_doc_length_", None) is None:
            raise InputError("doc_length must be given: this model stores no mean document "
                             "length of its training data (a private fit keeps none).")
        mean_len = self.mean_doc_length_ if doc_length is None else check_scalar(
            doc_length, "doc_length", numbers.Real, low=0.0)
        theta = self._sample_doc_topic(n_samples, rng)
        topics = self.components_ / self.components_.sum(axis=1, keepdims=True)
        lengths = rng.poisson(mean_len, size=n_samples)
        p = theta @ topics
        p /= p.sum(axis=1, keepdims=True)
        counts = rng.multinomial(lengths, p)
        return sp.csr_matrix(counts.astype(np.float64)), theta
