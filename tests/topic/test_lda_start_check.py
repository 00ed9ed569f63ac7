"""LDA's default start is checked against a random start (issue 41, item 3, second branch).

``init='auto'`` runs the CVB0 start and a random start (from a generator of its own) for a
short batch VB run and keeps the better by the ELBO, with a ``StartCheckWarning`` giving both
bounds when the random start wins (:mod:`latentkit.topic._start_check`). The references are
the model's own fits from each start alone (``init='cvb0'``, ``init='random'``, the same
generator) and the planted corpora of ``benchmarks/bench_lda_default_start.py``."""

import re
import warnings

import numpy as np
import pytest

import latentkit.topic._lda as lda_module
from latentkit.datasets import make_lda_corpus
from latentkit.exceptions import StartCheckWarning
from latentkit.topic import LatentDirichletAllocation
from latentkit.topic._start_check import compare_starts, random_start_generator, random_topics

DOM5 = dict(doc_topic_prior=np.array([1.0, 0.5, 0.25, 0.12, 0.06]))
DOM8 = dict(n_docs=2000, vocab_size=400, doc_length=80, topic_word_prior=0.1,
            doc_topic_prior=np.array([1.2, 0.5, 0.3, 0.2, 0.12, 0.08, 0.06, 0.04]))


def _fit(X, K, seed, **params):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        m = LatentDirichletAllocation(K, random_state=seed, **params).fit(X)
    return m, [w for w in caught if w.category is StartCheckWarning]


def _numbers(message):
    return [float(x) for x in re.findall(r"-?\d+\.\d{4}", message)]


def _never_loses_silently(spec, seed):
    K = spec["doc_topic_prior"].size
    X, _ = make_lda_corpus(n_components=K, random_state=seed, **spec)
    default, warned = _fit(X, K, seed)  # the defaults: init='auto', fixed alpha 1/K
    random, _ = _fit(X, K, seed, init="random")
    if warned:  # both bounds, nats per document, as recorded
        r = default.start_report_
        assert r["chosen"] == "random"
        assert _numbers(str(warned[0].message))[:2] == [round(r["default"], 4),
                                                        round(r["random"], 4)]
    else:
        # the default fit ends at least as high as the random fit, to the fit's precision
        assert default.lower_bound_ >= random.lower_bound_ - default.tol_
    return default, warned


def test_default_start_that_loses_to_the_random_start_says_so():
    # dom8, seed 2: the CVB0 start ends at -395.50 nats per document, the random start at
    # -395.33 (main: no warning, the fit ends below the random fit by 2 tol_)
    default, warned = _never_loses_silently(DOM8, 2)
    assert warned and default.start_report_["chosen"] == "random"


@pytest.mark.parametrize("spec,seed", [(DOM5, 0), (DOM5, 1), (DOM5, 2), (DOM8, 0), (DOM8, 1)])
def test_default_start_never_loses_silently(spec, seed):
    _never_loses_silently(spec, seed)


def _bad_start(*args, **kwargs):
    """A worse default start: every topic the same (a saddle of the ELBO), slightly jittered."""
    X, K = args[0], args[1]
    V = X.shape[1]
    return 1.0 + 1e-3 * np.random.default_rng(0).random((K, V))


def test_a_worse_default_start_is_replaced_by_the_random_one(monkeypatch):
    X, _ = make_lda_corpus(n_components=4, n_docs=300, vocab_size=120, random_state=0)
    monkeypatch.setattr(lda_module, "cvb0_topics", _bad_start)
    unchecked, none = _fit(X, 4, 0, init="cvb0")
    checked, warned = _fit(X, 4, 0)
    assert not none and len(warned) == 1
    r = checked.start_report_
    assert r["chosen"] == "random" and r["random"] > r["default"] + checked.tol_
    assert _numbers(str(warned[0].message))[:2] == [round(r["default"], 4),
                                                    round(r["random"], 4)]
    assert checked.lower_bound_ > unchecked.lower_bound_ + checked.tol_
    # the random start is the one drawn from its own generator: the same as a fit from it
    rng = np.random.default_rng(0)  # check_random_state(0): the fit's generator
    start = random_topics(random_start_generator(rng), (4, X.shape[1]))
    report, _ = compare_starts(X, _bad_start(X, 4), start, 0.25, 0.25,
                                    checked.max_doc_update_iter, checked.mean_change_tol,
                                    checked.tol_)
    assert report == {k: v for k, v in r.items() if k != "check_iter"}


def test_when_the_default_start_wins_nothing_changes():
    X, _ = make_lda_corpus(doc_topic_prior=DOM5["doc_topic_prior"], random_state=0)
    unchecked, _ = _fit(X, 5, 0, init="cvb0")  # the same start, unchecked
    checked, warned = _fit(X, 5, 0)
    assert not warned and checked.start_report_["chosen"] == "default"
    assert not hasattr(unchecked, "start_report_")
    for name in ("components_", "doc_topic_prior_", "lower_bounds_", "exp_dirichlet_component_"):
        np.testing.assert_array_equal(getattr(checked, name), getattr(unchecked, name))
    assert checked.n_iter_ == unchecked.n_iter_
    # and the fit's generator is where the unchecked fit leaves it
    assert checked._rng.bit_generator.state == unchecked._rng.bit_generator.state


def test_random_start_generator_leaves_the_fit_generator_alone():
    rng = np.random.default_rng(3)
    state = rng.bit_generator.state
    a = random_start_generator(rng).random(3)
    assert rng.bit_generator.state == state
    np.testing.assert_array_equal(a, random_start_generator(rng).random(3))  # reproducible
    assert not np.array_equal(a, np.random.default_rng(3).random(3))  # a stream of its own


def test_check_bound_is_the_fit_bound():
    # the check's ELBO at a start is the model's own first bound there (fixed priors)
    X, _ = make_lda_corpus(n_components=3, n_docs=200, vocab_size=80, random_state=1)
    lam = random_topics(np.random.default_rng(1), (3, 80))
    m = LatentDirichletAllocation(3, init={"components": lam}, max_iter=2, tol=0.0,
                                  random_state=0).fit(X)
    report, _ = compare_starts(X, lam, lam, 1 / 3, 1 / 3, m.max_doc_update_iter,
                               m.mean_change_tol, 0.0, max_iter=1)
    # 1e-9 relative: the same kernel on the same arrays, sums in another order at most
    np.testing.assert_allclose(report["default"], m.lower_bounds_[0], rtol=1e-9)


def test_seeded_topics_keep_their_start():
    # seed_topics choose the CVB0 seeds (the topics' identities): no random start replaces
    # them (on test_lda_seeding.py's corpus the check kept the random start, ahead by 0.13)
    X, _ = make_lda_corpus(n_components=4, n_docs=300, vocab_size=120, random_state=0)
    seeded, warned = _fit(X, 4, 0, seed_topics={1: [20, 5]}, seed_confidence=0.5)
    same, _ = _fit(X, 4, 0, init="cvb0", seed_topics={1: [20, 5]}, seed_confidence=0.5)
    assert not warned and not hasattr(seeded, "start_report_")
    np.testing.assert_array_equal(seeded.components_, same.components_)


def _replays(monkeypatch):
    """The :class:`ReplayedStart` objects of the fits that follow (issue 46: the fit takes
    the check's E-steps instead of recomputing them)."""
    import latentkit.topic._lda_guard as guard
    made, orig = [], guard.ReplayedStart.__init__

    def init(self, *a, **kw):
        orig(self, *a, **kw)
        made.append(self)

    monkeypatch.setattr(guard.ReplayedStart, "__init__", init)
    return made


@pytest.mark.parametrize("bad", [False, True])
def test_fit_replays_the_checks_e_steps_bit_for_bit(monkeypatch, bad):
    # the default run's every E-step (the default start wins) or the random run's last (it
    # wins) is the fit's own: taken, not recomputed, and the fit is the one that recomputes
    # them (ReplayedStart.step switched off), bit for bit; main has no replay (ImportError)
    import latentkit.topic._lda_guard as guard
    X, _ = make_lda_corpus(n_components=4, n_docs=300, vocab_size=120, random_state=0)
    if bad:
        monkeypatch.setattr(lda_module, "cvb0_topics", _bad_start)
    made = _replays(monkeypatch)
    replayed, _ = _fit(X, 4, 0)
    r = replayed.start_report_
    assert r["chosen"] == ("random" if bad else "default") and len(made) == 1
    assert made[0].n_replayed == (1 if bad else min(r["n_iter_default"], replayed.n_iter_))
    assert made[0].n_replayed >= 1 and not made[0].steps  # used, then dropped
    monkeypatch.setattr(guard.ReplayedStart, "step", lambda self, step, *a: step)
    recomputed, _ = _fit(X, 4, 0)
    for name in ("components_", "doc_topic_prior_", "lower_bounds_"):
        np.testing.assert_array_equal(getattr(replayed, name), getattr(recomputed, name))
    assert replayed.start_report_ == recomputed.start_report_
    assert "_start_replay" not in vars(replayed)  # nothing held after the fit


def test_replay_stops_where_the_fit_leaves_the_checks_path(monkeypatch):
    # a learned alpha moves after the first M-step (the check holds it fixed): one E-step
    # replayed, then nothing; the warm-up caps differ from the check's sweeps: no replay
    X, _ = make_lda_corpus(n_components=3, n_docs=200, vocab_size=80, random_state=1)
    made = _replays(monkeypatch)
    _fit(X, 3, 0, doc_topic_prior="auto")
    assert made[-1].n_replayed == 1 and not made[-1].steps
    n = len(made)
    _fit(X, 3, 0, warmup_doc_update_iter=2)
    assert len(made) == n


def test_replay_keeps_the_first_steps_within_its_memory_budget(monkeypatch):
    # REPLAY_BYTES bounds what the check keeps: with room for one E-step (of the two the
    # default run has here) the fit replays one and recomputes the rest, with the same
    # numbers as without the replay
    import latentkit.topic._lda_guard as guard
    import latentkit.topic._start_check as check
    X, _ = make_lda_corpus(n_components=3, n_docs=200, vocab_size=80, random_state=1)
    one = 3 * 80 * 8 + 2 * 200 * 3 * 8 + X.nnz * 8 + 200 * 8  # lam, gamma, exp_theta, ...
    monkeypatch.setattr(check, "REPLAY_BYTES", one * 3 // 2)
    made = _replays(monkeypatch)
    replayed, _ = _fit(X, 3, 0)
    assert replayed.start_report_["n_iter_default"] >= 2 and made[-1].n_replayed == 1
    monkeypatch.setattr(guard.ReplayedStart, "step", lambda self, step, *a: step)
    recomputed, _ = _fit(X, 3, 0)
    np.testing.assert_array_equal(replayed.lower_bounds_, recomputed.lower_bounds_)
    np.testing.assert_array_equal(replayed.components_, recomputed.components_)
