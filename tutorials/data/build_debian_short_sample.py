"""Builds ``debian_short_sample.tsv.gz``, the short-text data of tutorial 02's last section.

Source: ``../shared/data/debian_short/debian_short.tsv.gz`` (59,961 distinct one-line Debian
package descriptions with their archive sections, from ``apt-cache dumpavail`` of a Debian
system; exact duplicate descriptions kept once). The descriptions are the packages' own
one-line ``Description`` fields, distributed with the Debian archive metadata.

Drawn: the 8 largest sections (libs, libdevel, python, doc, perl, utils, devel, haskell),
500 descriptions from each, uniformly without replacement (``numpy.random.default_rng(0)``,
sections in order of size, descending, ties by name), rows kept in package-name order.
Columns: package, section, description (tab-separated, a header line).

    python tutorials/data/build_debian_short_sample.py [path/to/debian_short.tsv.gz]
"""
import gzip
import os
import sys
from collections import Counter

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, os.pardir, os.pardir, os.pardir, "shared", "data", "debian_short",
                      "debian_short.tsv.gz")
N_SECTIONS, PER_SECTION = 8, 500


def main(source=SOURCE):
    with gzip.open(source, "rt", encoding="utf-8") as f:
        rows = [line.rstrip("\n").split("\t") for line in f][1:]
    sizes = Counter(r[1] for r in rows)
    sections = sorted(sizes, key=lambda s: (-sizes[s], s))[:N_SECTIONS]
    rng = np.random.default_rng(0)
    keep = []
    for s in sections:
        members = [r for r in rows if r[1] == s]
        keep += [members[i] for i in rng.choice(len(members), PER_SECTION, replace=False)]
    keep.sort(key=lambda r: r[0])
    out = os.path.join(HERE, "debian_short_sample.tsv.gz")
    with gzip.GzipFile(out, "wb", mtime=0) as raw:  # mtime 0: the same bytes on every run
        raw.write(("package\tsection\tdescription\n"
                   + "".join("\t".join(r) + "\n" for r in keep)).encode("utf-8"))
    print(len(keep), "descriptions of", ", ".join(sections), "->", out, os.path.getsize(out), "bytes")


if __name__ == "__main__":
    main(*sys.argv[1:])
