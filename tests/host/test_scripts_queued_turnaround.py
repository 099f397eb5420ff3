# SPDX-License-Identifier: BSD-2-Clause
"""scripts/queued_turnaround.py runs queued reads with the queue kept full and reports the time per
command and every kind of answer the host gave on the line."""

import re
import subprocess
import sys

from ecpsata.paths import ROOT as REPO

GEN2_DWORD_NS = 40 / 3.0    # 40 bits at 3.0 Gb/s


def run(*args, timeout=600):
    return subprocess.run([sys.executable, "-m", "scripts.queued_turnaround", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=timeout)


def test_queued_turnaround_reports_the_command_time_and_the_answers():
    p = run("--reads", "8", "--qd", "2")
    assert p.returncode == 0, p.stderr
    per_command = float(re.search(r"QD 2, .*: ([\d.]+) ns per command over (\d+) completions",
                                  p.stdout).group(1))
    # A 4 KiB read cannot take less of the line than its 1,024 data dwords.
    assert per_command > 1024 * GEN2_DWORD_NS, p.stdout
    rows = {k: (float(n), float(avg), float(share)) for k, n, avg, share in re.findall(
        r"^  (\S+ -> \S+)\s+([\d.]+) per command,\s+([\d.]+) ns avg,\s+([\d.]+) ns per command",
        p.stdout, re.M)}
    # Every handshake of a queued read: the command FIS we send (SOF after the drive's R_RDY,
    # X_RDY to the idle drive, SYNC after its R_OK) and the drive's FISes we take in.
    assert {"X_RDY -> R_RDY", "EOF -> R_OK", "R_RDY -> SOF", "SYNC -> X_RDY",
            "R_OK -> SYNC", "SYNC -> SYNC"} <= set(rows), p.stdout
    # A queued read takes at least three FISes from the drive (DMA Setup, Data and a share of a
    # Set Device Bits; the Register D2H that answers the command too): each one R_RDY and R_OK.
    assert rows["X_RDY -> R_RDY"][0] >= 2.5 and rows["EOF -> R_OK"][0] >= 2.5, p.stdout
    # An answer cannot leave before its cause arrived and the line carried a dword of it.
    assert all(avg >= GEN2_DWORD_NS for _, avg, _ in rows.values()), p.stdout
    total = float(re.search(r"in all\s+([\d.]+) ns", p.stdout).group(1))
    assert abs(total - sum(share for *_, share in rows.values())) < 1.0, p.stdout
    assert total < per_command - 1024 * GEN2_DWORD_NS, p.stdout


def test_queued_turnaround_refuses_a_depth_outside_ncq_and_too_few_reads():
    p = run("--qd", "33", timeout=60)
    assert p.returncode == 2 and "--qd must be 1 to 32" in p.stderr
    p = run("--qd", "8", "--reads", "16", timeout=60)
    assert p.returncode == 2 and "--reads must be at least 4 x --qd (32)" in p.stderr


KINDS = ("a Data FIS", "a Register D2H", "a DMA Setup", "a Set Device Bits")


def test_queued_turnaround_with_the_frame_check_answers_a_data_fis_sooner():
    """--frame-check: the PHY answers each good Data FIS's, status's, DMA Setup's and Set Device
    Bits' EOF in the word clock, so R_OK after EOF takes less on average: each kind at least two
    dwords sooner. R_OK after EOF is split by the kind of frame, one line each."""
    avg, kinds = {}, {}
    for args in ((), ("--frame-check",)):
        p = run("--reads", "8", "--qd", "2", *args)
        assert p.returncode == 0, p.stderr
        row = re.search(r"^  EOF -> R_OK\s+([\d.]+) per command,\s+([\d.]+) ns avg",
                        p.stdout, re.M)
        avg[args] = float(row.group(2))
        kinds[args] = {k: (float(n), float(a)) for k, n, a in re.findall(
            r"^    after (a [A-Za-z0-9 ]+?)\s+([\d.]+) per command,\s+([\d.]+) ns avg",
            p.stdout, re.M)}
        assert set(kinds[args]) == set(KINDS), p.stdout
        assert abs(sum(n for n, _ in kinds[args].values()) - float(row.group(1))) < 0.02, p.stdout
        # A queued read: one DMA Setup, one Data FIS and one status, a share of an SDB.
        assert [kinds[args][k][0] for k in KINDS[:3]] == [1.0, 1.0, 1.0], p.stdout
    assert avg[("--frame-check",)] < avg[()] - 3, avg
    for kind in KINDS:
        assert kinds[("--frame-check",)][kind][1] < kinds[()][kind][1] - 2*GEN2_DWORD_NS, \
            (kind, kinds)


def test_with_the_frame_check_our_commands_still_keep_the_queue_full():
    """Answered in the word clock, the drive's frames follow each other sooner: our command FIS
    must still get the line after them (our X_RDY on the drive's SYNC after the word clock's
    R_OK), or the drive takes it back each time, reports its tags one by one and the queue does
    not fill. At QD 8, sys at 75 MHz: half a Set Device Bits per command (two tags each), as
    without the check."""
    p = run("--frame-check", "--qd", "8", "--reads", "32", "--sys-mhz", "75")
    assert p.returncode == 0, p.stderr
    sdb = float(re.search(r"^    after a Set Device Bits\s+([\d.]+) per command", p.stdout,
                          re.M).group(1))
    assert sdb <= 0.6, p.stdout


def test_queued_turnaround_runs_sys_at_the_boards_clock():
    """--sys-mhz 75: the core at the boards' sys clock, which reports itself; SOF after R_RDY,
    which goes through sys, then comes later than at 100 MHz."""
    p = run("--reads", "8", "--qd", "2", "--sys-mhz", "75")
    assert p.returncode == 0, p.stderr
    assert re.search(r"ns per command over \d+ completions \([\d,]+ commands/s at sys 75 MHz\)",
                     p.stdout), p.stdout
    sof = float(re.search(r"^  R_RDY -> SOF\s+[\d.]+ per command,\s+([\d.]+) ns avg", p.stdout,
                          re.M).group(1))
    p100 = run("--reads", "8", "--qd", "2")
    sof100 = float(re.search(r"^  R_RDY -> SOF\s+[\d.]+ per command,\s+([\d.]+) ns avg",
                             p100.stdout, re.M).group(1))
    assert sof > sof100, (sof, sof100)
