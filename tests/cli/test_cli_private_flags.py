"""Privacy flags of the command line: --epsilon/--delta without --private are errors (not a
silently non-private fit), and the private SVI's errors name the flags, not the arguments."""

import io as _io

import pytest

from latentkit import cli
from test_cli_private import _write


def run(argv):
    out = _io.StringIO()
    status = cli.main(argv, out=out)
    return status, out.getvalue()


@pytest.mark.parametrize("method", ["batch", "svi"])
@pytest.mark.parametrize("flag", ["--epsilon", "--delta"])
def test_lda_privacy_flag_without_private_is_an_error(tmp_path, capsys, method, flag):
    base = [a for a in _write(tmp_path) if a not in ("--private", "--init", "spectral")]
    i = base.index("--n-words")
    del base[i:i + 2]
    status, out = run(base + ["--method", method, flag, "0.5", "--max-iter", "1"])
    assert status == 2 and out == ""
    assert f"{flag} applies to --private only" in capsys.readouterr().err


@pytest.mark.parametrize("flag", ["--epsilon", "--delta"])
def test_vae_privacy_flag_without_private_is_an_error(tmp_path, capsys, flag):
    (tmp_path / "x.csv").write_text("\n".join(f"{i % 3},{i % 5},{i % 7}" for i in range(30)))
    status, out = run(["fit", "vae", "--data", str(tmp_path / "x.csv"), "--quiet", flag, "0.5",
                       "--max-iter", "1"])
    assert status == 2 and out == ""
    assert f"{flag} applies to --private only" in capsys.readouterr().err


@pytest.mark.parametrize("extra, expected", [
    (["--clip", "-3"], "--clip must be > 0"),
    (["--epsilon", "-1"], "--epsilon must be > 0"),
    (["--delta", "0"], "--delta must be > 0"),
    (["--batch-size", "5000"], "--batch-size=5000 must be smaller than the number of rows"),
])
def test_private_svi_errors_name_the_flags(tmp_path, capsys, extra, expected):
    base = [a for a in _write(tmp_path) if a not in ("--init", "spectral")]
    i = base.index("--n-words")
    del base[i:i + 2]
    status, _ = run(base + ["--method", "svi", "--max-iter", "1"] + extra)
    assert status == 2
    assert expected in capsys.readouterr().err
