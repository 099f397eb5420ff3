# SPDX-License-Identifier: BSD-2-Clause
"""`steady` (ecpsata/host/experiments/steady.py) against a fake flash drive (pts_fakes.py): the
fresh-out-of-box round measured before the preconditioning (after a purge, or on the drive as
found), its ratio to the steady figure, the purge's confirmation refused before anything is sent,
and a run that does not reach steady state saying so."""

import json

import pytest

from ecpsata.engines import common as bc
from ecpsata.host import purge
from ecpsata.host.cli import main
from tests.host.pts_fakes import FlashModel, FlashTarget, iops


@pytest.fixture(autouse=True)
def _no_poll_wait(monkeypatch):
    monkeypatch.setattr(purge, "POLL_S", 0)


def run(capsys, fake, *argv):
    rc = main(["--port", str(fake.port), "--csr-csv", fake.csr_csv, "steady", "--allow-write",
               "--range", "0:512", "--rounds", "5", "--commands", "64", *argv])
    out, err = capsys.readouterr()
    return rc, out, err


FAST, SLOW = iops(64, 8, 256), iops(64, 8, 2048)     # 262,467 and 46,019 IOPS


def test_fob_is_measured_on_the_drive_as_found_before_the_preconditioning(tmp_path, capsys):
    fake = FlashTarget(str(tmp_path))
    try:
        rc, out, err = run(capsys, fake, "--fob", "--json", str(tmp_path / "s.json"))
    finally:
        fake.close()
    assert rc == 0, err
    # the FOB round ran before the two preconditioning passes, round 1 after them
    assert fake.flash.log[:2] == [(256, 0), (2048, 2)]
    assert [(r["op"], r["sectors"], r["commands"], r["random"]) for r in fake.runs] == \
        [(bc.OP_WRITE, 256, 2, 0)] * 2
    doc = json.load(open(tmp_path / "s.json"))
    rows, su = doc["rows"], doc["summary"]
    assert [(r["round"], r["phase"]) for r in rows] == [(0, "FOB")] + [(n, "test")
                                                                       for n in range(1, 6)]
    assert rows[0]["iops"] == pytest.approx(FAST) and rows[0]["window"] == ""
    assert all(r["iops"] == pytest.approx(SLOW) and r["window"] == "steady" for r in rows[1:])
    assert su["fob_iops"] == pytest.approx(FAST) and su["steady_iops"] == pytest.approx(SLOW)
    assert su["fob_to_steady"] == pytest.approx(17384 / 3048)          # 5.70
    assert su["first_round_to_steady"] == pytest.approx(1.0)
    assert su["steady_reached"] and (su["window_first"], su["window_last"]) == (1, 5)
    assert su["purge"] is None and doc["parameters"]["fob"] and not doc["parameters"]["purge"]
    assert ("steady state reached (rounds 1-5): steady 46019 IOPS, fresh-out-of-box 262467 "
            "IOPS, FOB / steady 5.70:") in out
    assert "on the drive as found (not purged: fresh only if the drive was)" in out


def test_purge_makes_the_drive_fresh_and_is_done_before_the_fob_round(tmp_path, capsys):
    """The drive has been written (its queued runs slow from the start) until the purge."""
    fake = FlashTarget(str(tmp_path), model=FlashModel(used=True))
    try:
        rc, out, err = run(capsys, fake, "--purge", "FAKE0001", "--json", str(tmp_path / "s.json"))
    finally:
        fake.close()
    assert rc == 0, err
    # STATUS EXT, BLOCK ERASE EXT, three STATUS EXT until completed; then the FOB round (fresh)
    kinds = [e for e in fake.events if e[0] != "flush"]
    assert kinds[:6] == [("sanitize", 0), ("sanitize", 0x12), ("sanitize", 0), ("sanitize", 0),
                         ("sanitize", 0), ("queued", 256)]
    assert kinds[6:] == [("queued", 2048)] * 5
    su = json.load(open(tmp_path / "s.json"))["summary"]
    assert su["purge"] == "BLOCK ERASE EXT" and su["fob_iops"] == pytest.approx(FAST)
    assert su["fob_to_steady"] == pytest.approx(17384 / 3048)
    assert "purged before the test: BLOCK ERASE EXT" in out
    assert "] sanitize" in err


def test_a_wrong_serial_is_refused_before_anything_is_written(tmp_path, capsys):
    fake = FlashTarget(str(tmp_path))
    try:
        rc, out, err = run(capsys, fake, "--purge", "WRONG")
    finally:
        fake.close()
    assert rc == 2
    assert ("steady: --purge 'WRONG' is not this drive's serial number ('FAKE0001', model "
            "'FAKE SSD 1'): nothing sent") in err
    assert fake.runs == [] and fake.qbench.runs == [] and fake.events == []


def test_without_fob_the_ratio_is_round_1s(tmp_path, capsys):
    fake = FlashTarget(str(tmp_path))
    try:
        rc, out, err = run(capsys, fake, "--rounds", "6", "--json", str(tmp_path / "s.json"))
    finally:
        fake.close()
    assert rc == 0, err
    doc = json.load(open(tmp_path / "s.json"))
    su = doc["summary"]
    # round 1 gets the fresh speed (the model's first run); rounds 2-6 agree
    assert [r["phase"] for r in doc["rows"]] == ["test"] * 6
    assert su["fob_iops"] is None and su["fob_to_steady"] is None
    assert su["first_round_iops"] == pytest.approx(FAST)
    assert (su["window_first"], su["window_last"]) == (2, 6)
    assert su["first_round_to_steady"] == pytest.approx(17384 / 3048)
    assert "(no fresh-out-of-box round)" in out
    assert "no fresh-out-of-box round (--fob, or --purge SERIAL for a fresh drive)" in out


def test_not_reaching_steady_state_is_said_and_gives_no_figure(tmp_path, capsys):
    # every run 12 % slower than the one before: no five rounds agree
    speeds = [int(2048 * 1.12 ** k) for k in range(8)]
    fake = FlashTarget(str(tmp_path), model=FlashModel(speeds=speeds))
    try:
        rc, out, err = run(capsys, fake, "--fob", "--rounds", "6", "--json",
                           str(tmp_path / "s.json"))
    finally:
        fake.close()
    assert rc == 0, err
    su = json.load(open(tmp_path / "s.json"))["summary"]
    assert not su["steady_reached"] and su["rounds_run"] == 6
    assert su["steady_iops"] is None and su["fob_to_steady"] is None
    assert (su["window_first"], su["window_last"]) == (2, 6)
    assert su["fob_iops"] == pytest.approx(FAST)
    assert ("steady state NOT reached after 6 rounds: no steady figure, fresh-out-of-box "
            "262467 IOPS, round 1 46019 IOPS:") in out
    last = out.strip().splitlines()[-1]
    assert last.startswith("note: steady state NOT reached within the 6-round limit (last window "
                           "rounds 2-6:") and "NO steady-state figure" in last
