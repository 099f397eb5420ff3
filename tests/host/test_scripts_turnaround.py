# SPDX-License-Identifier: BSD-2-Clause
"""scripts/turnaround.py runs and reports every gap and every host answer of a read's handshakes."""

import re
import subprocess
import sys

from ecpsata.paths import ROOT as REPO


def test_turnaround_reports_gaps_and_answers():
    p = subprocess.run([sys.executable, "-m", "scripts.turnaround", "--commands", "3"], cwd=REPO,
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    gaps = re.findall(r"gap (\d): status to first data\s+([\d.]+) ns", p.stdout)
    assert [g for g, _ in gaps] == ["1", "2"] and all(float(t) > 0 for _, t in gaps)
    answers = dict(re.findall(r"^  (\S+ -> \S+)\s+([\d.]+) ns avg", p.stdout, re.M))
    assert set(answers) == {"EOF -> R_OK", "SYNC -> X_RDY", "R_RDY -> SOF", "R_OK -> SYNC",
                            "X_RDY -> R_RDY"}
    # An answer cannot leave before its cause arrived and the line carried a dword of it.
    assert all(float(t) >= 13.3 for t in answers.values())


def test_turnaround_needs_two_commands():
    p = subprocess.run([sys.executable, "-m", "scripts.turnaround", "--commands", "1"], cwd=REPO,
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and "--commands must be at least 2" in p.stderr
