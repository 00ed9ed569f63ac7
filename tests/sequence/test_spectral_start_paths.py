"""The HMMs' spectral starts moved from ``latentkit.spectral`` to ``latentkit.sequence``
(issue 25 item 1, the HMM part): the old public paths still give the same functions, with a
``DeprecationWarning`` naming the new path, and ``spectral/`` imports nothing from
``sequence/`` (module level or function local)."""

import ast
import pathlib
import warnings

import pytest

import latentkit.sequence as sequence
import latentkit.spectral as spectral

MOVED = ("spectral_init_hmm", "spectral_init_gaussian_hmm", "spectral_init_poisson_hmm")


@pytest.mark.parametrize("name", MOVED)
def test_old_spectral_path_warns_and_gives_the_sequence_function(name):
    with pytest.warns(DeprecationWarning, match=f"latentkit.sequence.{name}") as record:
        old = getattr(spectral, name)
    assert old is getattr(sequence, name)
    assert name in sequence.__all__ and name not in spectral.__all__
    assert {r.filename for r in record} == {__file__}  # points at the access


def test_old_import_statement_still_works():
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        from latentkit.spectral import spectral_init_hmm  # noqa: F401
    assert any(issubclass(r.category, DeprecationWarning) for r in record)


def test_unknown_spectral_attribute_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no_such_name"):
        spectral.no_such_name  # noqa: B018


def test_spectral_imports_nothing_from_sequence():
    root = pathlib.Path(spectral.__file__).parent
    for path in sorted(root.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                target = ("." * node.level) + (node.module or "")
                assert "sequence" not in target.split("."), f"{path.name}: {target}"
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    assert not alias.name.startswith("latentkit.sequence"), path.name
