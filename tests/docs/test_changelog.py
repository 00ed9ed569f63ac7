"""CHANGELOG.md lists every deprecated name the code still accepts, states the deprecation
policy, and is part of the documentation site (issue 47, item 6).

The deprecated names are read from the code, not from a list kept here: every call of the
tools of :mod:`latentkit._utils.deprecation` (``renamed_attribute``, ``renamed_kwargs``,
``renamed_parameter``, ``moved_names``, ``replaced_names``, ``moved_kwargs``, ``deprecated_option`` for a
command-line option) and of the HMM statistics' decorator
``_old_stats_names`` names an old spelling as a string literal or keyword; the flattened
component keywords of the DirichletProcessMixture are ``LEGACY_DEFAULTS``, the Poisson HMM's
old Gamma-prior keywords ``OLD_GAMMA_PRIOR``. A
``DeprecationWarning`` raised anywhere else would escape this check, so that is a failure too.
"""
import ast
from pathlib import Path

from latentkit._utils.deprecation import REMOVED_IN
from latentkit.mixture._component_params import LEGACY_DEFAULTS
from latentkit.sequence._emissions import OLD_GAMMA_PRIOR

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "latentkit"
TOOLS = {"renamed_attribute", "renamed_kwargs", "renamed_parameter", "moved_names",
         "replaced_names",
         "moved_kwargs", "_old_stats_names", "deprecated_option", "moved_parameters"}


def _func_name(call):
    f = call.func
    return f.id if isinstance(f, ast.Name) else getattr(f, "attr", None)


def deprecated_names():
    """``{old name: 'file:line'}`` for every deprecation the code raises."""
    found = {name: "mixture/_component_params.py LEGACY_DEFAULTS" for name in LEGACY_DEFAULTS}
    found.update({name: "sequence/_emissions.py OLD_GAMMA_PRIOR" for name in OLD_GAMMA_PRIOR})
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "deprecation.py":
            continue
        rel = path.relative_to(PACKAGE).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        tuples = {t.id: node.value for node in tree.body if isinstance(node, ast.Assign)
                  for t in node.targets if isinstance(t, ast.Name)}  # module-level names
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or _func_name(node) not in TOOLS:
                continue
            where = f"{rel}:{node.lineno}"
            name = _func_name(node)
            if name in ("renamed_kwargs", "_old_stats_names"):
                olds = [kw.arg for kw in node.keywords if kw.arg]
            elif name == "renamed_attribute":
                olds = [node.args[0].value] if node.args and isinstance(
                    node.args[0], ast.Constant) else []
            elif name == "deprecated_option":  # a command-line option
                olds = [node.args[0].value]
            elif name == "renamed_parameter":
                olds = [node.args[1].value]
            elif name == "moved_parameters" and path.name != "deprecation.py":
                # moved_parameters(owner, names, new) called directly: the names given are a
                # subset of a module-level tuple of keywords (LDA's _DRIVER_KEYWORDS)
                olds = _names_of(node, tuples)
            elif name == "moved_names":
                moved = next(kw.value for kw in node.keywords if kw.arg == "moved")
                olds = [k.value for k in moved.keys]
            elif name == "replaced_names":  # the table is the second argument
                olds = [k.value for k in node.args[1].keys]
            else:  # moved_kwargs: the table of old keywords (LEGACY_DEFAULTS, above)
                olds = []
            for old in olds:
                found.setdefault(old, where)
    return found


def _names_of(call, tuples):
    """The keywords a direct ``moved_parameters`` call may name: those of the module-level
    tuple its ``names`` argument is built from (``[n for n in TUPLE if ...]``)."""
    for sub in ast.walk(call.args[1] if len(call.args) > 1 else call):
        if isinstance(sub, ast.Name) and isinstance(tuples.get(sub.id), ast.Tuple):
            return [e.value for e in tuples[sub.id].elts if isinstance(e, ast.Constant)]
    return []  # names from elsewhere (the DirichletProcessMixture's: LEGACY_DEFAULTS)


def _deprecated_section():
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    start = text.index("### Deprecated")
    end = text.index("\n## ", start)
    return text[start:end]


def test_the_scan_finds_the_known_deprecations():
    # the scan itself can fail: these are raised today (tests/architecture/test_names.py checks
    # them)
    names = deprecated_names()
    for old in ("covars_", "n_restarts", "max_epochs", "truncation", "component_type",
                "spectral_init_lda", "obs2", "post_mix", "lambdas_prior", "lambdas_weight",
                "learning_method", "GaussianComponent", "GaussianEmission", "PoissonComponent",
                "PoissonEmission", "BernoulliComponent"):
        assert old in names, old


def test_every_deprecated_name_is_in_the_changelog():
    section = _deprecated_section()
    missing = {old: where for old, where in deprecated_names().items()
               if f"`{old}`" not in section and f"`{old}=`" not in section
               and f".{old}`" not in section}
    assert not missing, ("deprecated names the code accepts but CHANGELOG.md's Deprecated "
                         f"section does not list (name: where): {missing}")


def test_no_deprecation_warning_outside_the_deprecation_tools():
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "deprecation.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and _func_name(node) == "warn" and any(
                    isinstance(a, ast.Name) and a.id in ("DeprecationWarning",
                                                         "FutureWarning")
                    for a in list(node.args) + [kw.value for kw in node.keywords]):
                offenders.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert not offenders, ("a DeprecationWarning raised outside latentkit/_utils/deprecation.py "
                           f"escapes the changelog check: {offenders}")


def test_the_policy_and_the_removal_release_are_stated():
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert "two minor releases" in text
    assert f"removed in {REMOVED_IN}" in text
    assert "## [Unreleased]" in text and "## [0.1.0]" in text
    for heading in ("### Added", "### Changed", "### Deprecated", "### Model files"):
        assert heading in text, heading


def test_the_changelog_is_in_the_docs():
    page = (ROOT / "docs" / "changelog.md").read_text(encoding="utf-8")
    assert "../CHANGELOG.md" in page
    assert "\nchangelog\n" in (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
