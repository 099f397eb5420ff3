# SPDX-License-Identifier: BSD-2-Clause
"""Native Command Queuing in the simulated SoC: the queued engine (sata_qbench) from the host CLI
(`random --qd`) and from the firmware console (`qrandom`), against the virtual drive's NCQ; the
figures are the engine's cycle counters at the SoC's 75 MHz."""

import pytest
import json
import os
import re

from ecpsata.host.simboard import SimBoard
from tests.system.test_sim_system import free_port, sim_built  # noqa: F401

# The simulated SoC in Verilator (build/sim, build/ecpix5_sim): `pytest -m "not system"` leaves these out.
pytestmark = pytest.mark.system

SLC = "persona=slc,capacity=1GiB"


def cli(board, capsys, *argv):
    from ecpsata.host import cli as bench_cli
    rc = bench_cli.main(["--port", str(board.server_port), "--csr-csv",
                         os.path.join(board.build_dir, "csr.csv"), "--timeout", "300", *argv])
    out, err = capsys.readouterr()
    return rc, out, err


def test_queued_reads_scale_with_depth_and_an_ncq_error_is_recovered(sim_built, tmp_path, capsys):
    """4 KiB random reads on the slc drive (8 internal channels): QD 8 reaches 8 in flight and at
    least 3x the IOPS of QD 1 (48 reads: the queue fills and drains inside the run). Then a drive error under a full queue (error_lba): the run ends
    with the failing tag and LBA from log 10h and re-issues what the drive aborted; a verify and
    a queued run on the same board afterwards are clean."""
    out = tmp_path / "qd.json"
    with SimBoard(server_port=free_port(), vdrive=SLC + ",error_lba=5000") as board:
        board.wait_prompt()
        rc, _, err = cli(board, capsys, "random", "-n", "48", "--min", "8", "--max", "8",
                         "--qd", "1,8", "--range", "8192:8192", "--json", str(out))
        assert rc == 0, err
        row, = json.load(open(out))["rows"]
        assert (row["qd1_depth"], row["qd8_depth"]) == (1, 8)
        assert row["qd8_iops"] > 3 * row["qd1_iops"] > 0, row
        assert abs(row["qd1_iops"] - row["random_iops"]) < 0.05 * row["random_iops"]
        rc, _, err = cli(board, capsys, "random", "-n", "64", "--min", "8", "--max", "8", "--qd",
                         "32", "--queued-only", "--range", "4992:256", "--json", str(out))
        assert rc == 2, err          # a run that failed
        m = re.search(r"NCQ error on tag (\d+) at LBA 5000 \(device error\); (\d+) aborted", err)
        assert m, err
        doc = json.load(open(out))
        assert doc["error"]["ncq"]["lba"] == 5000 and doc["error"]["ncq"]["tag"] == int(m.group(1))
        assert int(m.group(2)) >= 1
        rc, _, err = cli(board, capsys, "verify", "--allow-write", "--range", "8192:512")
        assert rc == 0, err
        rc, _, err = cli(board, capsys, "random", "-n", "32", "--min", "8", "--max", "8", "--qd",
                         "32", "--queued-only", "--range", "8192:8192")
        assert rc == 0, err


def test_firmware_console_qrandom(sim_built, tmp_path):
    """`qrandom` from the console: a table per queue depth from the queued engine's counters;
    depths the drive does not take and a drive without NCQ are refused before anything is sent."""
    with SimBoard(server_port=free_port(), vdrive=SLC) as board:
        board.wait_prompt()
        text = board.console("qrandom n=24 qd=1,4", "ecpsata>", timeout=300)
        rows = re.findall(r"^\s+(\d+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+(\d+)\s*$", text, re.M)
        assert [(int(q), int(d)) for q, _, _, _, d in rows] == [(1, 1), (4, 4)], text
        iops = [int(r[1]) for r in rows]
        assert iops[1] > 2.5 * iops[0] > 0, text
        text = board.console("qrandom qd=1,64", "ecpsata>", timeout=60)
        assert "queue depth '64' is not 1..32" in text
        # a read/write mix writes: refused without a range, asks before it writes
        text = board.console("qrandom n=64 qd=4 mix=75", "ecpsata>", timeout=60)
        assert "range=" in text and "IOPS" not in text, text
        text = board.console("qrandom n=64 qd=4 mix=75 lba=8192 range=4096", "to go on", timeout=60)
        assert "overwrites 4096 sector(s) from LBA 8192" in text, text
        text = board.console("yes", "ecpsata>", timeout=300)
        assert "mix: 75 % reads" in text, text
        row = re.search(r"^\s+4\s+(\d+)\s+[\d.]+\s+[\d.]+\s+(\d+)\s+(\d+)\s+(\d+)\s+([\d.]+)\s*$",
                        text, re.M)
        assert row, text
        reads, writes, share = int(row[3]), int(row[4]), float(row[5])
        # the engine's counters: every command one or the other, about three reads in four
        # (64 draws: 75 % +- 4.5 binomial standard deviations)
        assert reads + writes == 64 and writes > 0 and 50 <= share <= 100, text
        assert abs(share - 100 * reads / 64) < 0.01, text
    with SimBoard(server_port=free_port(), vdrive="persona=ideal,capacity=1GiB") as board:
        board.wait_prompt()
        text = board.console("qrandom n=8", "ecpsata>", timeout=120)
        assert "does not advertise NCQ" in text and "nothing sent" in text
