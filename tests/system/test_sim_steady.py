# SPDX-License-Identifier: BSD-2-Clause
"""`wsat` and `steady` (SNIA PTS) on the simulated SoC, scaled down to a 2 MiB drive and short
rounds: on the flash persona, write saturation falls from the fresh speed, a purge makes the drive
fresh again, and the fresh-out-of-box figure is several times the steady one; on `ideal` (no flash
behind it) steady state holds from the first window."""

import json

import pytest

from ecpsata.host.simboard import SimBoard
from tests.system.test_sim_field import run
from tests.system.test_sim_system import free_port, sim_built  # noqa: F401

pytestmark = pytest.mark.system

RANGE = ["--allow-write", "--range", "0:4096"]        # the whole 2 MiB drive


def test_flash_saturates_and_a_purge_makes_it_fresh_again(sim_built, tmp_path, capsys):
    w, s = tmp_path / "wsat.json", tmp_path / "steady.json"
    with SimBoard(server_port=free_port(),
                  vdrive="persona=flash,capacity=2MiB,serial=PTS0001") as board:
        rc, out, err = run(board, capsys, "wsat", *RANGE, "--until", "3x", "--commands", "128",
                           "--json", str(w))
        assert rc == 0, out + err
        rc, out, err = run(board, capsys, "steady", *RANGE, "--rounds", "8", "--commands", "256",
                           "--purge", "PTS0001", "--json", str(s))
        assert rc == 0, out + err
    doc = json.load(open(w))
    ws, iops = doc["summary"], [r["iops"] for r in doc["rows"]]
    assert ws["intervals"] == 12 and ws["range_multiple"] == 3.0
    # fresh while erased blocks last (11 blocks of 256 KiB, 1.375x the range, and the first
    # victims nearly empty), then falling as the collector copies ever more valid pages
    assert max(iops[:4]) == pytest.approx(min(iops[:4]), rel=0.001)
    assert all(b < a for a, b in zip(iops[7:], iops[8:])), iops
    assert ws["first_to_last"] > 2, ws
    st = json.load(open(s))["summary"]
    assert st["purge"] == "BLOCK ERASE EXT" and st["steady_reached"], st
    # after the purge the drive is as fresh as it came: the same speed as WSAT's first interval
    assert st["fob_iops"] == pytest.approx(ws["first_iops"], rel=0.01)
    assert st["fob_to_steady"] > 3, st
    assert "purged before the test: BLOCK ERASE EXT" in out
    assert f"FOB / steady {st['fob_to_steady']:.2f}" in out


def test_a_drive_without_flash_is_steady_from_the_first_window(sim_built, tmp_path, capsys):
    s = tmp_path / "steady.json"
    with SimBoard(server_port=free_port(), vdrive="persona=ideal,ncq=1,capacity=2MiB") as board:
        rc, out, err = run(board, capsys, "steady", *RANGE, "--rounds", "5", "--commands", "128",
                           "--fob", "--json", str(s))
    assert rc == 0, out + err
    st = json.load(open(s))["summary"]
    assert st["steady_reached"] and (st["window_first"], st["window_last"]) == (1, 5)
    assert st["range_percent"] < 1 and st["fob_to_steady"] == pytest.approx(1.0, abs=0.01)
