"""Old Faithful's sojourns: GaussianHMM against HiddenSemiMarkovModel on the bundled geyser
series (``load_old_faithful('geyser')``, 299 consecutive eruptions), docs/guide/hmm.md
"Explicit durations".

Each eruption ``t`` is the pair (its duration, the waiting time to eruption ``t + 1``): 298
rows. Two states (short and long eruptions), full covariances. 77 night-time durations are
coded as exactly 2, 3 or 4 minutes (the data set's documentation): they are not measurements,
so they are missing values (``missing='marginalize'``); without that, the best fits put a state
on the spike of 53 values equal to 4 (unbounded density). Every model takes the best of 20
starts. The empirical sojourns are the runs of consecutive eruptions on one side of 3 minutes
(coded values included: 2 is short, 3 and 4 long).

Run: ``python benchmarks/bench_hsmm_geyser.py`` (about a minute on a quiet machine).
"""

import warnings

import numpy as np

import latentkit as lk


def runs(labels):
    """Lengths of the runs of each label, as {label: array}."""
    out = {0: [], 1: []}
    start = 0
    for t in range(1, len(labels) + 1):
        if t == len(labels) or labels[t] != labels[start]:
            out[int(labels[start])].append(t - start)
            start = t
    return {k: np.array(v) for k, v in out.items()}


def sojourn(pmf, n=6):
    return " ".join(f"{v:.3f}" for v in pmf[:n])


def main():
    warnings.simplefilter("ignore", lk.ConvergenceWarning)
    G = lk.datasets.load_old_faithful("geyser").data  # waiting (to t), duration, minutes
    X = np.column_stack([G[:-1, 1], G[1:, 0]])  # duration_t, waiting_{t+1}
    labels = (X[:, 0] < 3).astype(int)           # 1: short eruption
    X[np.isin(X[:, 0], (2.0, 3.0, 4.0)), 0] = np.nan
    D = 10
    emp = runs(labels)
    emp_long = np.bincount(emp[0], minlength=D + 1)[1:] / len(emp[0])
    emp_short = np.bincount(emp[1], minlength=D + 1)[1:] / len(emp[1])
    print(f"{len(X)} eruptions, {int(np.isnan(X[:, 0]).sum())} coded durations missing; "
          f"runs: {len(emp[1])} short, {len(emp[0])} long")
    print("| model | log-likelihood | BIC | short sojourn p(1), p(2) | long sojourn p(1..6) |")
    print("|---|---|---|---|---|")
    print(f"| empirical runs | | | {sojourn(emp_short, 2)} | {sojourn(emp_long)} |")
    hmm = lk.GaussianHMM(2, "full", missing="marginalize", n_init=20, random_state=0).fit(X)
    short = int(np.argmin(hmm.means_[:, 1]))
    a = np.diag(hmm.transmat_)
    geo = (1 - a)[:, None] * a[:, None] ** np.arange(D)[None, :]  # the HMM's sojourns
    print(f"| GaussianHMM | {hmm.score(X) * len(X):.2f} | {hmm.bic(X):.1f} | "
          f"{sojourn(geo[short], 2)} | {sojourn(geo[1 - short])} |")
    for kind in ("nonparametric", "poisson", "negative_binomial"):
        m = lk.HiddenSemiMarkovModel(
            2, lk.distributions.Gaussian("full", missing="marginalize"), duration=kind,
            max_duration=D, init="kmeans++", n_init=20, random_state=0).fit(X)
        short = int(np.argmin(m.means_[:, 1]))
        agree = ((m.predict(X) == short) == labels).mean()
        print(f"| HSMM {kind} | {m.score(X) * len(X):.2f} | {m.bic(X):.1f} | "
              f"{sojourn(m.durationprob_[short], 2)} | {sojourn(m.durationprob_[1 - short])} |"
              f"  (Viterbi = empirical labels on {agree:.1%})")


if __name__ == "__main__":
    main()
