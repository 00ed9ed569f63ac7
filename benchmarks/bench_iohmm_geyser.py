"""Old Faithful (``load_old_faithful('geyser')``, 299 consecutive eruptions): the eruption
durations by a two-state GaussianHMM against an InputOutputHMM whose transitions are driven by
the standardised waiting time of each eruption (maximum likelihood, ``coefs_prior=0``); best of
10 starts each, log-likelihood and BIC (``bic``; free parameters: HMM 7 = 1 start + 2
transitions + 2 means + 2 variances; IO-HMM 9 = 1 + 2 x 2 transition intercepts and
coefficients + 4).

Run: ``python benchmarks/bench_iohmm_geyser.py``.
"""

import warnings

import numpy as np

import latentkit as lk


def main():
    warnings.simplefilter("ignore", lk.ConvergenceWarning)
    X = lk.datasets.load_old_faithful("geyser").data  # columns: waiting, duration
    w, d = X[:, :1], X[:, 1:]
    u = (w - w.mean()) / w.std()
    n = len(d)
    hmm = max((lk.GaussianHMM(2, random_state=s).fit(d) for s in range(10)),
              key=lambda m: m.score(d))
    io = max((lk.InputOutputHMM(2, coefs_prior=0.0, random_state=s).fit(d, inputs=u)
              for s in range(10)), key=lambda m: m.score(d, inputs=u))
    for name, ll, bic in (("GaussianHMM", hmm.score(d) * n, hmm.bic(d)),
                          ("InputOutputHMM", io.score(d, inputs=u) * n, io.bic(d, inputs=u))):
        print(f"{name:15s} log-likelihood {ll:9.2f}  BIC {bic:7.1f}")
    print("IO-HMM means", np.round(io.means_.ravel(), 3))
    print("transition intercepts\n", np.round(io.transition_intercepts_, 3))
    print("transition coefs (per standard deviation of waiting)\n",
          np.round(io.transition_coefs_[..., 0], 3))


if __name__ == "__main__":
    main()
