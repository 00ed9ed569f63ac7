"""The built documentation site: one API page per public name, every guide and tutorial page,
the command-line reference generated from the parser, and the site in a real headless Chromium
(the index renders, the search finds ``GaussianHMM``, a tutorial page shows its figures).

The site is the one the test command builds (``python -m sphinx -W -b html docs
docs/_build/html``) when it is newer than every source it is built from; otherwise it is built
here into a temporary folder (about a minute). Without Sphinx (the ``docs`` extra) these tests
are skipped, unless LATENTKIT_REQUIRE_BROWSER=1 (set by .ci/run).
"""

import argparse
import functools
import http.server
import importlib.util
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from latentkit.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
BUILT = DOCS / "_build" / "html"
GENERATED = {"_build", "api", "tutorials", "jupyter_execute"}  # written by the build


def _sources():
    for p in DOCS.rglob("*"):
        rel = p.relative_to(DOCS).parts
        if p.is_file() and rel[0] not in GENERATED:
            yield p
    yield from (ROOT / "latentkit").rglob("*.py")
    yield from (ROOT / "tutorials").glob("*.ipynb")
    yield from (ROOT / "tutorials" / "gallery").glob("*.png")


def _up_to_date(site):
    index = site / "index.html"
    return index.is_file() and index.stat().st_mtime >= max(
        p.stat().st_mtime for p in _sources())


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    if importlib.util.find_spec("sphinx") is None:
        if os.environ.get("LATENTKIT_REQUIRE_BROWSER", "0") not in ("", "0"):
            pytest.fail("LATENTKIT_REQUIRE_BROWSER is set but Sphinx is not installed "
                        "(pip install '.[docs]').")
        pytest.skip("Sphinx is not installed (pip install '.[docs]')")
    if _up_to_date(BUILT):
        return BUILT
    out = tmp_path_factory.mktemp("docs_html")
    run = subprocess.run([sys.executable, "-m", "sphinx", "-W", "-q", "-b", "html", str(DOCS),
                          str(out)], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, f"the docs build failed:\n{run.stderr[-4000:]}"
    return out


def _api_module():
    spec = importlib.util.spec_from_file_location("latentkit_api",
                                                  DOCS / "_ext" / "latentkit_api.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.slow
def test_every_public_name_has_one_page(site):
    api = _api_module()
    expected = api.expected_pages()
    pages = {p.stem for p in (site / "api" / "generated").glob("*.html")}
    assert expected <= pages, f"no page for {sorted(expected - pages)}"
    # and nothing else: one page per name, none for a name that left __all__
    assert pages == expected, f"pages for no public name: {sorted(pages - expected)}"
    # the names come from __all__ of every public module (the models are there)
    for name in ("latentkit.sequence.GaussianHMM", "latentkit.mixture.GaussianMixture",
                 "latentkit.topic.LatentDirichletAllocation", "latentkit.spectral.SpectralLDA"):
        assert name in pages
    table, missing = api.api_table()
    assert not missing
    assert set(table) == set(api.public_modules())


@pytest.mark.slow
def test_model_pages_link_their_statistics_and_spectral_start(site):
    page = (site / "api" / "generated" / "latentkit.mixture.GaussianMixture.html").read_text()
    assert "latentkit.distributions.GaussianStats.html" in page
    assert "latentkit.spectral.SpectralGMM.html" in page
    page = (site / "api" / "generated" / "latentkit.sequence.GaussianHMM.html").read_text()
    assert "latentkit.spectral.SpectralHMM.html" in page


@pytest.mark.slow
def test_guide_and_tutorial_pages_are_built(site):
    for md in sorted((DOCS / "guide").glob("*.md")):
        assert (site / "guide" / f"{md.stem}.html").is_file(), md.name
    assert (site / "design.html").is_file()
    for nb in sorted((ROOT / "tutorials").glob("[0-9]*.ipynb")):
        html = (site / "tutorials" / f"{nb.stem}.html").read_text()
        assert len(re.findall(r"<img [^>]*src=", html)) >= 2, nb.name


def _parser_words(parser):
    """Every long option and sub-command name of the parser, recursively."""
    words = set()
    for action in parser._actions:
        if not isinstance(action, argparse._HelpAction):  # -h/--help: not listed
            words.update(s for s in action.option_strings if s.startswith("--"))
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                words.add(name)
                words |= _parser_words(sub)
    return words


@pytest.mark.slow
def test_cli_page_has_every_command_and_option(site):
    text = (site / "guide" / "cli.html").read_text()
    missing = sorted(w for w in _parser_words(build_parser()) if w not in text)
    assert not missing, f"the CLI page lacks {missing}"


@pytest.fixture(scope="module")
def served(site):
    """The site over HTTP on localhost (the search page loads its index by script)."""
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site))
    handler.log_message = lambda *a, **k: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.slow
def test_site_in_a_real_browser(served, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    wait = WebDriverWait(browser, 30)
    browser.get(f"{served}/index.html")
    assert "latentkit" in browser.title
    links = [a.get_attribute("href") or "" for a in browser.find_elements(By.CSS_SELECTOR, "a")]
    assert any(h.endswith("guide/hmm.html") for h in links)
    assert any(h.endswith("api/index.html") for h in links)
    assert browser.execute_script(
        "return document.querySelector('.bd-article, article').innerText.length") > 200

    browser.get(f"{served}/search.html?q=GaussianHMM")
    target = "api/generated/latentkit.sequence.GaussianHMM.html"
    wait.until(lambda d: any(target in (a.get_attribute("href") or "") for a in
                             d.find_elements(By.CSS_SELECTOR, "#search-results a")))
    browser.find_element(By.CSS_SELECTOR, f"#search-results a[href*='{target}']").click()
    wait.until(lambda d: d.current_url.split("#")[0].endswith(target))
    assert "GaussianHMM" in browser.find_element(By.CSS_SELECTOR, "h1").text

    browser.get(f"{served}/tutorials/03_hmm_earthquakes.html")
    wait.until(lambda d: d.execute_script(
        "return Array.from(document.images).filter(i => i.complete).length") ==
        d.execute_script("return document.images.length"))
    sizes = browser.execute_script(
        "return Array.from(document.querySelectorAll('.cell_output img, .output img'))"
        ".map(i => [i.naturalWidth, i.naturalHeight])")
    assert len(sizes) >= 2 and all(w > 100 and h > 100 for w, h in sizes), sizes


# ----------------------------------------------------- issue 47: offline site, every method listed

@pytest.mark.slow
def test_no_page_loads_a_remote_script_or_stylesheet(site):
    """The site needs no network: MathJax is bundled (sphinx-mathjax-offline), and no page
    links a script or stylesheet by an http(s) URL (24 pages loaded MathJax from a CDN)."""
    remote = re.compile(r"<(?:script[^>]*\bsrc|link[^>]*\bhref)\s*=\s*[\"'](?:https?:)?//",
                        re.I)
    offenders = sorted(str(p.relative_to(site)) for p in site.rglob("*.html")
                       if remote.search(p.read_text(encoding="utf-8", errors="replace")))
    assert not offenders, f"pages that load a remote script or stylesheet: {offenders[:10]}"
    assert (site / "_static" / "mathjax" / "tex-chtml.js").is_file()


def _public_methods(cls):
    """Public methods and properties a user calls on ``cls``, inherited ones included, that
    latentkit defines (not those of object, Exception, dict...)."""
    import inspect
    names = []
    for name in dir(cls):
        if name.startswith("_"):
            continue
        for klass in cls.__mro__:
            if name in vars(klass):
                owner = klass
                break
        if not owner.__module__.startswith("latentkit"):
            continue
        attr = vars(owner)[name]
        if inspect.isfunction(attr) or isinstance(attr, (classmethod, staticmethod)):
            names.append(name)
    return names


@pytest.mark.slow
def test_every_public_method_is_on_its_class_page(site):
    """scikit-learn's class pages list every method, inherited ones included (the HMMs'
    ``decode`` and ``sample``, LDA's ``top_words``, ``report``, ``to_pyldavis`` were missing)."""
    import importlib
    import inspect
    api = _api_module()
    table, _ = api.api_table()
    missing = {}
    n_checked = 0
    for modname, rows in table.items():
        for name, owner in rows:
            if owner != modname:
                continue
            obj = getattr(importlib.import_module(modname), name)
            if not inspect.isclass(obj):
                continue
            page = (site / "api" / "generated" / f"{owner}.{name}.html").read_text(
                encoding="utf-8")
            for meth in _public_methods(obj):
                n_checked += 1
                if f'id="{owner}.{name}.{meth}"' not in page:
                    missing.setdefault(f"{owner}.{name}", []).append(meth)
    assert n_checked > 300
    assert not missing, f"methods without an entry on their class page: {missing}"
    page = (site / "api" / "generated" /
            "latentkit.topic.LatentDirichletAllocation.html").read_text(encoding="utf-8")
    assert "Methods" in page and "top_words" in page and "to_pyldavis" in page


@pytest.mark.slow
def test_equations_are_typeset_offline(served, browser):
    """A notebook page's ELBO equation is typeset by the bundled MathJax (the test machine has
    no internet: a CDN MathJax would leave the raw TeX)."""
    from selenium.webdriver.support.ui import WebDriverWait
    browser.get(f"{served}/tutorials/01_em_elbo_old_faithful.html")
    WebDriverWait(browser, 30).until(lambda d: d.execute_script(
        "return document.querySelectorAll('mjx-container').length") > 0)
    raw = browser.execute_script(
        "return document.querySelector('.bd-article, article').innerText")
    assert "\\text{ELBO}" not in raw and "\\mathbb" not in raw


@pytest.mark.slow
def test_class_pages_link_the_tutorials_that_use_them(site):
    """A gallery from the class page: "Examples using this class" lists the rendered
    tutorial notebooks whose code uses the name."""
    page = (site / "api" / "generated" /
            "latentkit.mixture.GaussianMixture.html").read_text(encoding="utf-8")
    assert "Examples using this class" in page
    assert "../../tutorials/01_em_elbo_old_faithful.html" in page
    page = (site / "api" / "generated" /
            "latentkit.topic.LatentDirichletAllocation.html").read_text(encoding="utf-8")
    assert "../../tutorials/02_topics_kos.html" in page


def test_method_summaries_do_not_cut_a_literal():
    """The class pages' Methods tables show each method's first sentence (autosummary cuts at
    the first '. '): a literal holding '. ' left an unclosed ``, a -W build error that only
    the full build showed (DirichletMultinomialMixture.score_samples)."""
    import importlib
    import inspect
    api = _api_module()
    table, _ = api.api_table()
    cut = []
    for modname, rows in table.items():
        for name, owner in rows:
            obj = getattr(importlib.import_module(modname), name)
            if owner != modname or not inspect.isclass(obj):
                continue
            for meth in dir(obj):
                attr = getattr(obj, meth, None)
                if meth.startswith("_") or not callable(attr) or inspect.isclass(attr):
                    continue
                para = (inspect.getdoc(attr) or "").split("\n\n")[0].replace("\n", " ")
                match = re.search(r"^(.*?\.)(\s|$)", para)
                first = match.group(1) if match else para
                if first.count("``") % 2:
                    cut.append(f"{modname}.{name}.{meth}")
    assert not cut, f"first sentences that cut a ``literal``: {cut}"
