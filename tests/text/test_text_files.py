"""``read_texts`` on TAB-separated tables and gzip-compressed files (issue 43, "the CLI's
short-text path works on debian_short"): a ``.tsv`` reads like the same table as ``.csv``;
every ``.gz`` kind reads like its uncompressed file; corrupt, binary or non-UTF-8 content
inside a ``.gz`` is a TextInputError naming the path. Each fails on main ("unknown kind of
file '.gz'" / "'.tsv'")."""

import csv
import gzip
import json
import re

import pytest

from latentkit.text import TextInputError, read_texts

ROWS = [  # fields with commas, quotes and non-ASCII, as real package descriptions have
    {"package": "vim", "section": "editors", "description": "Vi IMproved, a text editor"},
    {"package": "jq", "section": "utils", "description": 'lightweight "sed" for JSON'},
    {"package": "tzdata", "section": "localization", "description": "time zone data (Zürich)"},
]


def _csv(path):
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(ROWS[0]))  # quotes the fields that need it
        w.writeheader()
        w.writerows(ROWS)
    return path


def _tsv(path, rows=ROWS):
    """TSV as apt, cut and IANA's text/tab-separated-values have it: no quoting."""
    lines = ["\t".join(rows[0])] + ["\t".join(r.values()) for r in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _plain_files(tmp_path):
    """One uncompressed file of each kind."""
    jsonl = tmp_path / "d.jsonl"
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    txt = tmp_path / "d.txt"
    txt.write_text("".join(r["description"] + "\n\n" for r in ROWS), encoding="utf-8")
    return {".txt": txt, ".csv": _csv(tmp_path / "d.csv"), ".tsv": _tsv(tmp_path / "d.tsv"),
            ".jsonl": jsonl}


def _gzip(path):
    out = path.with_name(path.name + ".gz")
    out.write_bytes(gzip.compress(path.read_bytes()))
    return out


def test_tsv_quotes_are_text(tmp_path):
    """debian_short line 189: a description that starts with a quote (a quoted CSV field that
    does not end at the TAB) is read as written, not as a CSV quote."""
    rows = [{"package": "aft", "section": "text",
             "description": '"free form" document preparation system'},
            {"package": "q", "section": "x", "description": 'say "hi'}]
    texts, _, meta = read_texts(_tsv(tmp_path / "q.tsv", rows), text_column="description")
    assert texts == [r["description"] for r in rows] and meta["package"] == ["aft", "q"]


def test_tsv_reads_as_the_same_table_in_csv(tmp_path):
    files = _plain_files(tmp_path)
    tsv = read_texts(files[".tsv"], text_column="description")
    assert tsv == read_texts(files[".csv"], text_column="description")
    texts, _, meta = tsv
    assert texts == [r["description"] for r in ROWS]
    assert meta == {"package": [r["package"] for r in ROWS],
                    "section": [r["section"] for r in ROWS]}


@pytest.mark.parametrize("kind", [".txt", ".csv", ".tsv", ".jsonl"])
def test_gzip_of_each_kind_reads_as_the_uncompressed_file(tmp_path, kind):
    plain = _plain_files(tmp_path)[kind]
    column = None if kind == ".txt" else "description"
    expected = read_texts(plain, text_column=column)
    assert expected[0] == [r["description"] for r in ROWS]
    assert read_texts(_gzip(plain), text_column=column) == expected
    upper = tmp_path / ("D" + kind.upper() + ".GZ")  # suffixes in any case
    upper.write_bytes(_gzip(plain).read_bytes())
    assert read_texts(upper, text_column=column) == expected


def test_corrupt_gzip_names_the_path(tmp_path):
    plain = _plain_files(tmp_path)[".tsv"]
    good = gzip.compress(plain.read_bytes())
    for name, data in [("cut.tsv.gz", good[: len(good) // 2]),  # truncated stream
                       ("plain.tsv.gz", plain.read_bytes())]:   # not gzip at all
        path = tmp_path / name
        path.write_bytes(data)
        with pytest.raises(TextInputError, match=re.escape(str(path)) + ".*not a valid gzip"):
            read_texts(path, text_column="description")


def test_binary_and_encoding_checks_apply_to_the_decompressed_bytes(tmp_path):
    latin = tmp_path / "latin.txt.gz"
    latin.write_bytes(gzip.compress("caf\u00e9 au lait\n".encode("latin-1")))
    with pytest.raises(TextInputError, match=r"latin\.txt\.gz: not UTF-8 text \(byte 0xe9 at "
                                             r"offset 3 of the decompressed data\)"):
        read_texts(latin)
    binary = tmp_path / "nul.csv.gz"
    binary.write_bytes(gzip.compress(b"text\nab\x00cd\n"))
    with pytest.raises(TextInputError, match=r"nul\.csv\.gz: looks like a binary file"):
        read_texts(binary)
    bom = tmp_path / "bom.tsv.gz"  # a byte-order mark is dropped after decompression
    bom.write_bytes(gzip.compress("\ufefftext\tid\nhello\t1\n".encode("utf-8")))
    assert read_texts(bom) == (["hello"], ["hello"], {"id": ["1"]})


def test_tsv_without_the_text_column_names_the_columns(tmp_path):
    path = _gzip(_plain_files(tmp_path)[".tsv"])
    with pytest.raises(TextInputError, match=r"d\.tsv\.gz: no column 'text' \(columns: "
                                             r"package, section, description\)"):
        read_texts(path)


@pytest.mark.parametrize("name, shown", [("x.pdf.gz", "'.pdf.gz'"), ("x.gz", "'.gz'"),
                                         ("x.docx", "'.docx'")])
def test_unknown_kind_lists_the_formats(tmp_path, name, shown):
    path = tmp_path / name
    path.write_bytes(gzip.compress(b"hello\n"))
    with pytest.raises(TextInputError, match=re.escape(f"unknown kind of file {shown}") +
                       ".*.tsv.*gzip"):
        read_texts(path)
