"""The analysis of ``benchmarks/bench_k_scaling.py`` (issue 46, item 3) on hand-made curves:
time to each peer's final perplexity (within 1%), the best peer's final as the plot's target,
and the CSV/plot writing. No method is run and no timing is asserted."""

import importlib.util
import os

import numpy as np
import pytest

BENCH = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir, "benchmarks")


@pytest.fixture(scope="module")
def ks():
    import sys

    sys.path.insert(0, BENCH)
    spec = importlib.util.spec_from_file_location("bench_k_scaling",
                                                  os.path.join(BENCH, "bench_k_scaling.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def curves():
    return {"latentkit batch": (np.array([0.5, 1.0, 2.0]), np.array([1500.0, 1200.0, 1100.0])),
            "latentkit SVI": (np.array([0.1, 0.2]), np.array([1400.0, 1300.0])),
            "tomotopy": (np.array([1.0, 3.0, 4.0]), np.array([1300.0, 1190.0, 1180.0])),
            "scikit-learn batch": (np.array([2.0, 5.0]), np.array([1600.0, 1250.0]))}


def test_rows_time_to_each_peer_final(ks):
    rows = {r["method"]: r for r in ks.rows_of(100, 20, curves())}
    tomo, sk = rows["tomotopy"], rows["scikit-learn batch"]
    assert tomo["final_perplexity"] == 1180.0
    assert tomo["time_to_final"] == 3.0            # 1190 is within 1% of 1180
    assert tomo["latentkit batch to it"] == 2.0    # 1100 <= 1.01 * 1180, first at 2.0 s
    assert tomo["latentkit SVI to it"] == np.inf   # 1300 never within 1%
    assert sk["latentkit batch to it"] == 1.0 and sk["latentkit SVI to it"] == np.inf
    # the plot's target: the best (lowest) peer final, 1180
    assert all(r["best_peer_final"] == 1180.0 for r in rows.values())
    assert rows["latentkit batch"]["time_to_best_peer_final"] == 2.0


def test_plot_and_table(ks, tmp_path, capsys):
    rows = []
    for n, k in ((100, 20), (100, 50), (50, 20)):
        rows += ks.rows_of(n, k, curves())
    assert ks.plot(rows, tmp_path / "k.png", 20)
    assert (tmp_path / "k.png").stat().st_size > 1000
    assert not ks.plot(rows, tmp_path / "k2.png", 20, reference="no such peer")
    ks.print_table(rows)
    out = capsys.readouterr().out
    assert "| 100 | 50 | tomotopy | 1180.0 | 3.00 | 2.00, 1.5x | not reached |" in out


def test_sparse_summary_times_to_tomotopy_final_wall_and_cpu(ks, capsys):
    """The dense-vs-truncated table: each LDA method's time (wall and CPU) to tomotopy's final
    (1180, within 1%) and the ratio tomotopy's / ours."""
    c = curves()
    c["latentkit sparse SVI"] = (np.array([0.1, 0.4]), np.array([1300.0, 1150.0]))
    cpu = {"latentkit batch": np.array([0.2, 0.5, 1.0]),
           "latentkit sparse SVI": np.array([0.05, 0.2]),
           "tomotopy": np.array([2.0, 6.0, 8.0])}
    rows = {r["method"]: r for r in ks.sparse_summary(100, 500, c, cpu)}
    assert set(rows) == {"latentkit batch", "latentkit SVI", "latentkit sparse SVI",
                         "tomotopy"}
    assert rows["tomotopy"]["wall"] == 3.0 and rows["tomotopy"]["cpu"] == 6.0
    assert rows["latentkit batch"]["wall"] == 2.0 and rows["latentkit batch"]["cpu"] == 1.0
    assert rows["latentkit batch"]["wall_ratio"] == 1.5 and rows["latentkit batch"]["cpu_ratio"] == 6.0
    assert rows["latentkit sparse SVI"]["wall"] == 0.4 and rows["latentkit sparse SVI"]["cpu"] == 0.2
    assert rows["latentkit SVI"]["wall"] == np.inf and np.isnan(rows["latentkit SVI"]["cpu"])
    ks.print_sparse(list(rows.values()), 16)
    out = capsys.readouterr().out
    assert "| 100 | 500 | latentkit sparse SVI | 1150.0 | 1150.0 | 0.40 (7.50x) | 0.20 (30.00x) |" in out
    assert ks.sparse_summary(100, 500, {"latentkit batch": c["latentkit batch"]}, {}) == []
