"""The command line's help and messages in the user's words (issue 47, item 5): every option of
every subcommand has help text that states its default, units follow the model, and the
messages the issue quoted now read as written here (each test failed on main)."""

import argparse
import json

import numpy as np
import pytest

from latentkit.cli import build_parser, main

_FLAGS = (argparse._HelpAction, argparse._VersionAction, argparse._StoreTrueAction,
          argparse._StoreFalseAction, argparse._CountAction, argparse._StoreConstAction)


def _commands(parser, path):
    yield path, parser
    for action in parser._actions:  # argparse keeps no public list of its subparsers
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                yield from _commands(child, path + [name])


def _options():
    for path, parser in _commands(build_parser(), ["latentkit"]):
        for action in parser._actions:
            if action.option_strings and not isinstance(action, argparse._SubParsersAction):
                yield " ".join(path), parser, action


def test_every_option_has_help_and_states_its_default():
    no_help, no_default = [], []
    for command, _, action in _options():
        flag = "/".join(action.option_strings)
        if action.help == argparse.SUPPRESS:  # hidden from --help (a deprecated no-op)
            continue
        if not action.help:
            no_help.append(f"{command} {flag}")
        elif not isinstance(action, _FLAGS) and "default" not in action.help.lower():
            no_default.append(f"{command} {flag}")
    assert not no_help, f"options without help: {no_help}"
    assert not no_default, f"options whose help states no default: {no_default}"


def test_every_help_page_prints(capsys):
    for path, parser in _commands(build_parser(), ["latentkit"]):
        text = parser.format_help()  # a '%' in a help string would raise here
        assert "usage:" in text, path


@pytest.mark.parametrize("model, unit", [("lda", "nats per document"),
                                         ("hdp", "nats per document"),
                                         ("plsa", "nats per document"),
                                         ("hmm", "nats per time step"),
                                         ("gmm", "nats per sample"),
                                         ("vae", "nats per sample")])
def test_tol_states_the_model_s_unit(model, unit):
    for command, _, action in _options():
        if command == f"latentkit fit {model}" and "--tol" in action.option_strings:
            assert unit in action.help
            return
    pytest.fail(f"fit {model} has no --tol")


def test_hdp_k_is_described_as_the_truncation():
    for command, _, action in _options():
        if command == "latentkit fit hdp" and "-k" in action.option_strings:
            assert action.help.startswith("truncation")
            assert "number of components" not in action.help


def test_coherence_measure_has_help():
    for command, _, action in _options():
        if command == "latentkit coherence" and "--measure" in action.option_strings:
            assert "c_npmi" in action.help and "default" in action.help


def test_missing_text_column_names_the_flag_once(tmp_path, capsys):
    f = tmp_path / "docs.csv"
    f.write_text("id,body\n1,the cat sat on the mat\n2,a dog in the fog\n", encoding="utf-8")
    assert main(["fit", "lda", "--text", str(f), "-k", "2"]) != 0
    err = capsys.readouterr().err
    assert "--text-column NAME" in err
    assert err.count("--text-column") == 1  # was "--text-column / --text-column="
    assert "text_column=" not in err and "--text-column=" not in err


@pytest.mark.slow
def test_coherence_header_says_how_many_words_it_shows(tmp_path, capsys):
    out = tmp_path / "m.npz"
    assert main(["fit", "lda", "--dataset", "kos", "-k", "3", "--max-iter", "2", "--quiet",
                 "--out", str(out)]) == 0
    capsys.readouterr()
    assert main(["coherence", str(out), "--dataset", "kos", "--measure", "u_mass",
                 "--top-n", "10"]) == 0
    text = capsys.readouterr().out
    assert "top 10 words, the first 8 shown" in text
    row = next(line for line in text.splitlines() if line.strip().startswith("0 "))
    assert len(row.split()) == 2 + 8  # topic, u_mass, 8 words
    assert main(["coherence", str(out), "--dataset", "kos", "--measure", "u_mass",
                 "--top-n", "5"]) == 0
    text = capsys.readouterr().out
    assert "(top 5 words)" in text


def test_top_words_uses_the_attached_vocabulary():
    from latentkit.text import attach, load_texts
    from latentkit.topic import LatentDirichletAllocation
    corpus = load_texts(["ship sail wave ship", "cow field barn cow", "sail wave ship sea",
                         "barn field cow hay"] * 3)
    lda = LatentDirichletAllocation(n_components=2, max_iter=5, random_state=0)
    lda.fit(corpus.data)
    assert all(isinstance(w, int) for w in lda.top_words(n=3)[0])  # no vocabulary: columns
    attach(lda, corpus.vectorizer)
    words = lda.top_words(n=3)
    assert all(isinstance(w, str) for topic in words for w in topic)
    assert set(words[0]) <= set(corpus.vocabulary)
    assert words == lda.top_words(corpus.vocabulary, n=3)
