# SPDX-License-Identifier: BSD-2-Clause
"""The repository's sources carry their license line, speak of public sources only, and reach the
package by import (no search-path changes)."""

import os
import re
import subprocess

import pytest

from ecpsata.paths import ROOT

SOURCE_EXTS = (".py", ".c", ".h", ".S", ".ld", ".sh", ".toml", ".ini", ".txt", "Makefile", "run")


def tracked():
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True)
    if out.returncode != 0:
        pytest.fail("git ls-files failed (the tests run from a git clone): " + out.stderr)
    return [f for f in out.stdout.split("\n") if f]


def test_every_source_file_has_an_spdx_line():
    sources = [f for f in tracked() if f.endswith(SOURCE_EXTS)]
    assert len(sources) > 100
    missing = []
    for f in sources:
        with open(os.path.join(ROOT, f), errors="replace") as fh:
            head = fh.read(400)
        if "SPDX-License-Identifier: BSD-2-Clause" not in head:
            missing.append(f)
    assert not missing, f"no SPDX line near the top of: {missing}"


def test_the_license_is_bsd_2_clause():
    with open(os.path.join(ROOT, "LICENSE")) as f:
        text = f.read()
    assert "Redistribution and use in source and binary forms" in text
    assert "Redistributions in binary form must reproduce" in text
    assert "endorse or promote" not in text          # the third clause of BSD-3-Clause


# Outside folders, the project's seed documents by number and tracker numbers mean nothing to a
# reader of a clone.
# (The pattern is spelled in pieces so that a plain grep for these words finds nothing here either.)
FORBIDDEN = re.compile("|".join(["shared" + "/", "seed" + " 00", "issue" + " [0-9]",
                                 r"sys\.path\." + "(insert|append)"]), re.I)


def test_no_references_outside_the_repository_and_no_search_path_changes():
    hits = []
    for f in tracked():
        if f.endswith((".png", ".jpg")):
            continue
        with open(os.path.join(ROOT, f), errors="replace") as fh:
            for n, line in enumerate(fh, 1):
                if FORBIDDEN.search(line):
                    hits.append(f"{f}:{n}: {line.strip()}")
    assert not hits, "\n".join(hits)
