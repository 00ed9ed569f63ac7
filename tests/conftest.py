"""Fixtures shared by several test folders.

``browser``: a headless Chromium driven by selenium (Debian's chromium + chromium-driver), for the
topic report's test and the documentation site's test. Without a browser those tests are
skipped, unless LATENTKIT_REQUIRE_BROWSER=1 (set by .ci/run), which turns the skip into a
failure.
"""

import os
import shutil

import pytest


def _driver():
    """A headless Chromium driven by selenium, or a reason why there is none."""
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        return None, "selenium is not installed (pip install selenium)"
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver_bin = shutil.which("chromedriver")
    if not chromium or not driver_bin:
        return None, ("no chromium / chromedriver on PATH (apt-get install chromium "
                      "chromium-driver)")
    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1100,800"):
        opts.add_argument(arg)
    return webdriver.Chrome(service=Service(driver_bin), options=opts), None


@pytest.fixture
def browser():
    driver, why = _driver()
    if driver is None:
        if os.environ.get("LATENTKIT_REQUIRE_BROWSER", "0") not in ("", "0"):
            pytest.fail(f"LATENTKIT_REQUIRE_BROWSER is set but {why}.")
        pytest.skip(why)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(autouse=True, scope="session")
def _blas_on_one_thread():
    """BLAS on one thread for the test process (measured, issue isuite: scikit-learn's
    BayesianGaussianMixture on Old Faithful, 5 fits, 36 CPU s with OpenBLAS's threads on a
    loaded 2-core machine, 1.7 s on one). The tests use small matrices, on which threaded BLAS
    only synchronises; latentkit's own fits already run BLAS on one thread inside
    (``latentkit._utils.threads``), so this changes the tests' own NumPy/SciPy oracles and
    the peer libraries only. Tests of the thread counts set their own limits inside (3 in
    ``architecture/test_process_state.py``, 2 in ``parallel/test_blas_scope.py``); subprocesses
    keep their defaults. ``LATENTKIT_TEST_BLAS_THREADS=default`` leaves BLAS as it is (to measure the
    difference)."""
    if os.environ.get("LATENTKIT_TEST_BLAS_THREADS") == "default":
        yield
        return
    import scipy.linalg  # noqa: F401  (loads SciPy's BLAS, so that the limit covers it)
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        yield
