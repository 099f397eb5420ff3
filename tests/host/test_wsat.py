# SPDX-License-Identifier: BSD-2-Clause
"""`wsat` (ecpsata/host/experiments/wsat.py) against a fake flash drive (pts_fakes.py): intervals
of 4 KiB random writes at QD 32 until the multiple of the range asked, IOPS against bytes written,
no FLUSH between intervals and one after the last, the purge first when asked; `--until`'s
parsing."""

import argparse
import json

import pytest

from ecpsata.engines import common as bc
from ecpsata.host import argtypes, purge
from ecpsata.host.cli import main
from tests.host.pts_fakes import FlashModel, FlashTarget, iops


def run(capsys, fake, *argv):
    rc = main(["--port", str(fake.port), "--csr-csv", fake.csr_csv, "wsat", "--allow-write",
               "--range", "0:512", *argv])
    out, err = capsys.readouterr()
    return rc, out, err


def test_intervals_until_the_multiple_iops_against_bytes_written(tmp_path, capsys):
    """64 pages in the range, 1.5x: 96 writes in intervals of 10 (the last one 6); the drive fast
    for its first two intervals, then 2048, 3072, then 4096 cycles per sector."""
    fake = FlashTarget(str(tmp_path), model=FlashModel(fresh_runs=2, speeds=(2048, 3072, 4096)))
    try:
        rc, out, err = run(capsys, fake, "--until", "1.5x", "--commands", "10", "--json",
                           str(tmp_path / "w.json"), "--plot", str(tmp_path / "w.png"))
    finally:
        fake.close()
    assert rc == 0, err
    runs = fake.qbench.runs
    assert [r["commands"] for r in runs] == [10] * 9 + [6]
    assert all((r["qd"], r["sectors"], r["lba_base"], r["lba_range"], r["random"], r["op"]) ==
               (32, 8, 0, 512, 1, bc.QUEUED_OPS["write"]) for r in runs)
    assert [r["seed"] for r in runs] == list(range(2, 12))          # a new sequence each
    # no FLUSH CACHE EXT between the intervals, one after the last
    assert [e[0] for e in fake.events] == ["queued"] * 10 + ["flush"]
    doc = json.load(open(tmp_path / "w.json"))
    rows, su = doc["rows"], doc["summary"]
    speeds = [256, 256, 2048, 3072] + [4096] * 6
    assert [r["interval"] for r in rows] == list(range(1, 11))
    assert [r["range_multiple"] for r in rows] == pytest.approx(
        [10 * k / 64 for k in range(1, 10)] + [1.5])
    assert rows[-1]["written_bytes"] == 96 * 4096 and rows[-1]["written_mib"] == 0.375
    expect = [iops(10, 8, c) for c in speeds[:9]] + [iops(6, 8, 4096)]
    assert [r["iops"] for r in rows] == pytest.approx(expect)
    assert su["intervals"] == 10 and su["range_multiple"] == 1.5
    assert su["first_iops"] == pytest.approx(expect[0])
    assert su["last_iops"] == pytest.approx(expect[-1])
    assert su["min_iops"] == pytest.approx(min(expect))
    assert su["first_to_last"] == pytest.approx(expect[0] / expect[-1])
    # the last five: four of 10 writes (two batches of the drive's 8) and one of 6 (one batch),
    # 20 % more IOPS: range 19.2 % of the average, but a slope excursion of 15.4 %
    assert su["settled"] is False and su["purge"] is None
    assert doc["parameters"]["until"] == 1.5 and doc["parameters"]["commands"] == 10
    assert ("1.50x the range written in 10 intervals: first 164042 IOPS, last 17768 IOPS (first "
            "/ last 9.23), lowest 14807, NOT settled over the last five:") in out
    assert "slope excursion 15.4 % (limit 10 %)" in out
    assert "not purged (--purge SERIAL)" in out
    assert (tmp_path / "w.png").read_bytes()[:4] == b"\x89PNG"


def test_default_interval_is_an_eighth_of_the_range_and_settles(tmp_path, capsys):
    fake = FlashTarget(str(tmp_path), model=FlashModel(used=True))
    try:
        rc, out, err = run(capsys, fake, "--until", "1", "--no-flush", "--json",
                           str(tmp_path / "w.json"))
    finally:
        fake.close()
    assert rc == 0, err
    assert [r["commands"] for r in fake.qbench.runs] == [8] * 8
    assert ("flush",) not in fake.events
    su = json.load(open(tmp_path / "w.json"))["summary"]
    assert su["settled"] is True and su["first_to_last"] == pytest.approx(1.0)
    assert "intervals 4-8 hold the PTS steady-state rule" in out


def test_purge_comes_first(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(purge, "POLL_S", 0)
    fake = FlashTarget(str(tmp_path), model=FlashModel(used=True))
    try:
        rc, out, err = run(capsys, fake, "--until", "0.25", "--purge", "FAKE0001", "--json",
                           str(tmp_path / "w.json"))
    finally:
        fake.close()
    assert rc == 0, err
    assert [e for e in fake.events if e[0] != "flush"] == [
        ("sanitize", 0), ("sanitize", 0x12), ("sanitize", 0), ("sanitize", 0), ("sanitize", 0),
        ("queued", 256), ("queued", 2048)]
    su = json.load(open(tmp_path / "w.json"))["summary"]
    assert su["purge"] == "BLOCK ERASE EXT" and su["settled"] is None
    assert su["first_to_last"] == pytest.approx(17384 / 3048)


@pytest.mark.parametrize("text,value", [("2x", 2.0), ("0.5X", 0.5), ("4", 4.0)])
def test_until_takes_a_multiple(text, value):
    assert argtypes.multiple(1000)(text) == value


@pytest.mark.parametrize("text", ["0x", "-1x", "x", "2xx", "inf", "1001"])
def test_until_refuses_what_is_not_a_multiple(text):
    with pytest.raises(argparse.ArgumentTypeError, match="must be a multiple above 0"):
        argtypes.multiple(1000)(text)
