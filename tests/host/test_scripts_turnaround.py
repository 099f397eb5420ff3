# SPDX-License-Identifier: BSD-2-Clause
"""scripts/turnaround.py runs and reports every gap and every host answer of a read's or a
write's handshakes."""

import re
import subprocess
import sys

from ecpsata.paths import ROOT as REPO
from tests.support.phy_harness import TIME_UNIT_NS, WORD_PERIOD


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
    # The answers the link layer gives in sys, split into the receive path, the link layer and
    # the transmit path: the paths take time, and the parts add up to the whole. SOF goes out in
    # the cycle the link layer sees R_RDY: no time of its own.
    split = {k: tuple(map(float, v)) for k, *v in re.findall(
        r"^  (\S+ -> \S+)\s+receive\s+([\d.]+) ns, link layer\s+([\d.]+) ns, "
        r"transmit\s+([\d.]+) ns", p.stdout, re.M)}
    assert set(split) == {"EOF -> R_OK", "R_RDY -> SOF"}, p.stdout
    for key, (receive, decide, transmit) in split.items():
        assert receive > 0 and transmit > 0, (key, split[key])
        assert (decide == 0) == (key == "R_RDY -> SOF"), (key, split[key])
    for key, parts in split.items():
        assert abs(sum(parts) - float(answers[key])) < 0.2, (key, parts, answers[key])


def test_turnaround_reports_a_write_s_handshakes():
    """--write: the gap from a write's status to the next write's first data (the core taking its
    first dword, after the drive's DMA Activate) and the same five answers; on the line each
    17-sector write is our command FIS and two Data FISes (2,048 and 128 dwords), each read's our
    command FIS alone."""
    p = subprocess.run([sys.executable, "-m", "scripts.turnaround", "--commands", "2", "--write",
                        "--sectors", "17"], cwd=REPO, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    gaps = re.findall(r"gap (\d): status to first data\s+([\d.]+) ns", p.stdout)
    assert [g for g, _ in gaps] == ["1"] and float(gaps[0][1]) > 0
    answers = dict(re.findall(r"^  (\S+ -> \S+)\s+([\d.]+) ns avg", p.stdout, re.M))
    assert set(answers) == {"EOF -> R_OK", "SYNC -> X_RDY", "R_RDY -> SOF", "R_OK -> SYNC",
                            "X_RDY -> R_RDY"}
    assert all(float(t) >= 13.3 for t in answers.values())
    from scripts.turnaround import simulate
    for write, frames in ((True, 2 * 3), (False, 2)):
        events, host, _, _, _, _ = simulate(2, write=write, sectors=17)
        assert [name for _, name in host].count("SOF") == frames, write
        assert [w for _, w, _ in events] == ["first data", "status"] * 2


def test_turnaround_refuses_a_range_beyond_the_drive():
    p = subprocess.run([sys.executable, "-m", "scripts.turnaround", "--commands", "20",
                        "--sectors", "256"], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and "within the virtual drive's 4096 sectors" in p.stderr


def test_turnaround_needs_two_commands():
    p = subprocess.run([sys.executable, "-m", "scripts.turnaround", "--commands", "1"], cwd=REPO,
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and "--commands must be at least 2" in p.stderr


def answers_of(args):
    p = subprocess.run([sys.executable, "-m", "scripts.turnaround", "--commands", "2", *args],
                       cwd=REPO, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    return p.stdout, {k: float(v) for k, v in
                      re.findall(r"^  (\S+ -> \S+)\s+([\d.]+) ns avg", p.stdout, re.M)}


def test_turnaround_with_the_dcu_latency_adds_it_to_every_answer():
    """--dcu-latency puts the DCUA model's data path latency between the SerDes buses and the pins:
    every answer then takes both latencies longer, give or take one word: the host's answer
    leaves at one of its own dword boundaries, and the two latencies add an odd number of words,
    which moves the drive's dwords by half a dword against ours."""
    from ecpsata.phy.ecp5.dcua_model import CONFIG as DCUA
    _, plain = answers_of([])
    out, late = answers_of(["--dcu-latency"])
    assert "pins, through the DCU's latency" in out
    word_ns = WORD_PERIOD * TIME_UNIT_NS        # the harness's Gen2 word clock
    added = (DCUA["tx_latency"] + DCUA["rx_latency"]) * word_ns
    assert (DCUA["tx_latency"] + DCUA["rx_latency"]) % 2 == 1
    for key in ("X_RDY -> R_RDY", "SYNC -> X_RDY", "R_OK -> SYNC", "EOF -> R_OK", "R_RDY -> SOF"):
        assert abs(late[key] - plain[key] - added) <= word_ns + 0.2, (key, plain[key], late[key])


def r_ok_after_eof(args):
    out, _ = answers_of(args)
    return {k: float(v) for k, v in
            re.findall(r"^  (Data FIS|control FIS)\s+([\d.]+) ns avg", out, re.M)}


def test_a_data_fis_s_and_a_status_s_r_ok_are_the_word_clock_s():
    """With the PHY's frame check (--frame-check) a good Data FIS's EOF and a good status's (the
    Register D2H, the only control FIS of these reads) get R_OK in the word clock: at least two
    dwords (the crossing into sys and back) before the link layer would answer; without it (the
    boards' builds) both are the link layer's and equal. The status's comes no sooner than the
    Data FIS's (its level follows its first dword through sys, and it is short)."""
    word_ns = WORD_PERIOD * TIME_UNIT_NS
    early = r_ok_after_eof(["--frame-check"])
    assert set(early) == {"Data FIS", "control FIS"}
    late = r_ok_after_eof([])
    assert abs(late["Data FIS"] - late["control FIS"]) < 0.2, late
    for kind in early:
        assert late[kind] >= early[kind] + 4 * word_ns, (kind, early, late)
    assert early["Data FIS"] <= early["control FIS"], early


def test_the_host_line_never_repeats_r_ok_after_its_sync():
    """Every R_OK the host sends is followed by SYNC (or X_RDY, a frame of ours) and never comes
    back after it: the link layer's own R_OK after the word clock's is taken, not sent."""
    from scripts.turnaround import simulate
    _, host, _, _, _, _ = simulate(3, sectors=17, frame_check=True)
    names = [n for _, n in host]
    for i, n in enumerate(names[:-1]):
        if n == "SYNC":
            assert names[i + 1] != "R_OK", names[max(0, i - 4):i + 4]
