"""Execute every tutorial notebook end to end on the bundled data (a notebook that raises fails
the test), check what each one teaches against its published or closed-form number, and fail
when a stored notebook is stale: its ``CHECK ...`` lines must equal the re-executed ones
(rebuild with ``python tutorials/build.py``)."""

import importlib.util
import pathlib
import re

import pytest

nbformat = pytest.importorskip("nbformat")
pytest.importorskip("nbclient")
pytest.importorskip("matplotlib")

ROOT = pathlib.Path(__file__).parents[2]
_spec = importlib.util.spec_from_file_location("tutorials_build", ROOT / "tutorials" / "build.py")
build = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(build)
TUTORIALS = build.notebooks()

# what each notebook must print (besides its CHECK lines), by file-name prefix
EXPECTED = {
    "01": ["CHECK Old Faithful K=2 log-likelihood = -1130.26", "ELBO never decreases: True",
           "CHECK BIC of K=2 = -2 log L + 11 log 272 = 2322.19"],
    "02": ["rows sum to one: True", "same topics P(w|z): True", "ELBO never decreases: True",
           "CHECK HDP ELBO never decreases = True"],
    "03": ["CHECK earthquakes 2-state -log L = 341.8787",
           "CHECK earthquakes 3-state -log L = 328.5275",
           "CHECK lambda phage G+C content = 49.86 %",
           "CHECK letters more probable in the vowel state = a e i o u _"],
}


@pytest.mark.parametrize("page", ["README.md", "docs/tutorials.md"])
def test_there_are_nine_tutorials_with_a_gallery(page):
    assert len(TUTORIALS) == 9
    text = (ROOT / page).read_text()
    pictures = re.findall(r"\(tutorials/gallery/([\w.-]+\.png)\)", text)
    assert 5 <= len(pictures) <= 7
    for name in pictures:
        assert (build.GALLERY / name).is_file(), name
    linked = set(re.findall(r"\(tutorials/(\d\d_\w+\.ipynb)\)", text))
    assert linked == {p.name for p in TUTORIALS}, "the page links every notebook"


@pytest.mark.parametrize("path", TUTORIALS, ids=lambda p: p.stem)
def test_stored_notebook_has_figures_and_its_gallery_files(path):
    nb = nbformat.read(path, as_version=4)
    sources = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    assert len(re.findall(r"plotting\.plot_\w+\(", sources)) >= 2
    assert len(build.images(nb)) >= 2, "stored without its figures: run tutorials/build.py"
    for cell, png in build.images(nb):
        name = cell.metadata.get("gallery")
        if name:  # the README's picture is the stored notebook's figure
            assert (build.GALLERY / name).read_bytes() == png, f"gallery/{name} is stale"


@pytest.mark.slow
@pytest.mark.kernel_sensitive
@pytest.mark.parametrize("path", TUTORIALS, ids=lambda p: p.stem)
def test_tutorial_runs_and_checks_its_number(path):
    stored = build.check_lines(nbformat.read(path, as_version=4))
    assert stored, f"{path.name} states no CHECK number"
    nb = build.execute(path, fast=True)
    text = build.text_output(nb)
    assert build.check_lines(nb) == stored, (
        f"{path.name}: the stored outputs are stale; run python tutorials/build.py")
    for expected in EXPECTED.get(path.name[:2], []):
        assert expected in text
    assert len(build.images(nb)) >= 2
