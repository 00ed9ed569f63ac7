"""The one sequence splitter (issue 12 item 3): its rule against brute force, and the three
places that cut sequences (HMM ``_split_data``, the Dask blocks, SVI minibatches) use it."""

import numpy as np
import pytest

from latentkit._utils.chunking import split_sequences
from latentkit.inference import IterableSource, StochasticVI
from latentkit.parallel.dask import _sequence_chunks
from latentkit.sequence import CategoricalHMM
from latentkit.sequence._hmm import SequenceData


def _brute_force(offsets, targets):
    """Each target to the nearest interior boundary (ties to the earlier), by enumeration."""
    n_seq = len(offsets) - 1
    cuts = set()
    for t in targets:
        best = None
        for s in range(1, n_seq):
            if best is None or abs(offsets[s] - t) < abs(offsets[best] - t):
                best = s
        if best is not None:
            cuts.add(best)
    return [0, *sorted(cuts), n_seq]


@pytest.mark.parametrize("seed", range(40))
def test_rule_equals_brute_force(seed):
    rng = np.random.default_rng(seed)
    lengths = rng.integers(1, 12, size=rng.integers(1, 9))
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    n = int(offsets[-1])
    targets = rng.integers(-2, n + 3, size=rng.integers(0, 6)).astype(float)
    if seed % 3 == 0:
        targets += 0.5
    bounds = split_sequences(offsets, targets)
    assert bounds.tolist() == _brute_force(offsets.tolist(), targets.tolist())
    # whole sequences, no empty chunk, at most one chunk per target plus one
    assert np.all(np.diff(bounds) > 0) and len(bounds) - 1 <= len(targets) + 1


def test_two_sequences_always_split_and_one_never():
    assert split_sequences([0, 1, 100], [90]).tolist() == [0, 1, 2]
    assert split_sequences([0, 99, 100], [1]).tolist() == [0, 1, 2]
    assert split_sequences([0, 100], [50]).tolist() == [0, 1]
    assert split_sequences([0, 4, 8], []).tolist() == [0, 2]


def _lengths():
    return np.array([5, 30, 2, 2, 17, 40, 1, 9, 25, 3])


def test_hmm_split_data_uses_the_rule():
    lengths = _lengths()
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    data = SequenceData(np.zeros((offsets[-1], 1)), offsets)
    for n_chunks in (1, 2, 3, 4, 7, 50):
        bounds = split_sequences(offsets, np.linspace(0, offsets[-1], n_chunks + 1)[1:-1])
        parts = CategoricalHMM(2)._split_data(data, n_chunks)
        assert [p.n_sequences for p in parts] == np.diff(bounds).tolist()
        assert sum(p.n_samples for p in parts) == offsets[-1]


def test_dask_blocks_use_the_rule():
    lengths = _lengths()
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    row_chunks = (40, 40, 40, 14)
    sizes, per_block = _sequence_chunks(lengths, row_chunks)
    bounds = split_sequences(offsets, np.cumsum(row_chunks)[:-1])
    assert list(sizes) == np.diff(offsets[bounds]).tolist()
    assert [b.tolist() for b in per_block] == [lengths[a:b].tolist()
                                               for a, b in zip(bounds[:-1], bounds[1:])]


def test_svi_minibatches_of_sequences_use_the_rule():
    lengths = _lengths()
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    X = np.arange(offsets[-1])[:, None] % 3
    svi = StochasticVI(CategoricalHMM(2), batch_size=30)
    got = list(svi._minibatches(None, IterableSource([(X, {"lengths": lengths})],
                                                     n_samples=len(X)), None))
    bounds = split_sequences(offsets, np.arange(30, len(X), 30))
    assert len(got) == len(bounds) - 1
    for (batch, kw), a, b in zip(got, bounds[:-1], bounds[1:]):
        np.testing.assert_array_equal(batch, X[offsets[a]:offsets[b]])
        assert kw["lengths"].tolist() == lengths[a:b].tolist()
