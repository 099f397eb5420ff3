# SPDX-License-Identifier: BSD-2-Clause
"""Queued writes and sequential runs of `random`, the `quick` summary (ecpsata/host/experiments/quick.py) and
`--loops` (ecpsata/host/loops.py) against the fake SoC and its queued engine.

The fake drive (tests/support/fake_queued.py, fake_target.py) serves a command of s sectors in
S(s) = 1000 + 256 s cycles at 100 MHz: the queued engine 8 at once, the non-queued engine one at a
time with 100 cycles between commands and 40,000 cycles of FLUSH CACHE EXT at the end of a write
run. Every expected figure below is worked out from those rules by hand.
"""

import json
import math

import pytest

from ecpsata.engines import common as bc
from ecpsata.host import experiments, loops
from ecpsata.host.session import Session
from ecpsata.host.target import Target, TargetError
from tests.support.fake_queued import QueuedModel
from tests.support.fake_target import FakeSATATarget
from tests.host.test_queued import run_cli

F = 100_000_000


def S(sectors):
    return 1000 + 256 * sectors


@pytest.fixture
def qfake(tmp_path):
    t = FakeSATATarget(str(tmp_path), with_queued=True, queued_model=QueuedModel(parallel=8))
    yield t
    t.close()


def collapse(text):
    return [" ".join(line.split()) for line in text.splitlines()]


# queued writes: refused without the opt-in, nothing written ----------------------------------------

@pytest.mark.parametrize("argv", [
    ["--qd", "4", "--write"], ["--qd", "4", "--write-only"],
    ["--qd", "4", "--write", "--allow-write"], ["--qd", "4", "--write", "--range", "0:4096"],
], ids=["bare", "write-only", "no-range", "no-allow"])
def test_queued_writes_need_allow_write_and_range(qfake, capsys, argv):
    with pytest.raises(SystemExit) as e:
        run_cli(capsys, qfake, "random", "-n", "4", "--max", "8", *argv)
    assert e.value.code == 2
    assert "random writes to the drive: add --allow-write and --range" in capsys.readouterr().err
    assert qfake.comm.writes == [] and qfake.qbench.runs == []


def test_queued_writes_need_queue_depths(qfake, capsys):
    with pytest.raises(SystemExit):
        run_cli(capsys, qfake, "random", "--write", "--allow-write", "--range", "0:64")
    assert "--write and --write-only run queued writes: they need --qd" in capsys.readouterr().err
    assert qfake.comm.writes == []


def test_the_session_refuses_queued_writes_too(qfake):
    with Target("127.0.0.1", qfake.port, qfake.csr_csv, timeout=2.0) as t:
        s = Session(t, timeout=2.0)
        with pytest.raises(TargetError, match="writing destroys data"):
            experiments.run("random", s, n=4, max_sectors=8, qd=[4], write=True)
    assert not qfake.written("sata_qbench_") and not qfake.written("sata_bench_")
    assert qfake.qbench.runs == []


# queued write rows with latency statistics ---------------------------------------------------------

def test_queued_write_rows_have_latency_statistics(qfake, capsys, tmp_path):
    path = tmp_path / "r.json"
    rc, out, err = run_cli(capsys, qfake, "random", "-n", "40", "--min", "8", "--max", "8",
                           "--qd", "1,4,32", "--write", "--allow-write", "--range", "0:4096",
                           "--json", str(path))
    assert rc == 0, err
    doc = json.loads(path.read_text())
    row = doc["rows"][0]
    s8 = S(8)                                   # 3048 cycles: log2 bucket 11
    assert doc["parameters"]["queued_ops"] == ["read", "write"]
    # QD 4 <= 8 served at once: 10 waves of 4, every command S(8).
    assert row["qd4_write_iops"] == pytest.approx(40 * F / (10 * s8), rel=1e-12)
    assert row["qd4_write_lat_us"] == row["qd4_write_lat_min_us"] == row["qd4_write_lat_max_us"] \
        == pytest.approx(s8 / 100)
    assert row["qd4_write_p50_us"] == row["qd4_write_p90_us"] == pytest.approx(s8 / 100)
    assert row["qd4_write_p99_us"] is None            # 40 samples: p99 needs 100
    # QD 32: tags 0..31 at once, 8 served per wave of S; the 8 issued after the first wave end
    # with the fourth: latencies 8 x S, 8 x 2S, 8 x 3S, 16 x 4S. p50 is the 20th: 3S, in bucket
    # 13 (8192..16383), whose top is lowered to the maximum 4S.
    assert row["qd32_write_lat_min_us"] == pytest.approx(s8 / 100)
    assert row["qd32_write_lat_max_us"] == pytest.approx(4 * s8 / 100)
    assert row["qd32_write_lat_us"] == pytest.approx((8 + 16 + 24 + 64) * s8 / 40 / 100)
    assert row["qd32_write_p50_us"] == row["qd32_write_p90_us"] == pytest.approx(4 * s8 / 100)
    assert row["qd32_write_depth"] == 32
    lat = [e for e in doc["summary"]["queued_latency"] if e["op"] == "write"]
    assert [(e["queue_depth"], e["latency"]["samples"]) for e in lat] == [(1, 40), (4, 40), (32, 40)]
    p50 = lat[2]["latency"]["percentiles"][0]
    assert (p50["bucket"], p50["at_least_cycles"], p50["at_most_cycles"]) == (13, 8192, 4 * s8)
    writes = [r for r in qfake.qbench.runs if r["op"] == bc.OP_WRITE]
    assert [r["qd"] for r in writes] == [1, 4, 32]
    assert all(r["lba_base"] + r["lba_range"] <= 4096 for r in qfake.qbench.runs)
    # an untimed FLUSH CACHE EXT after each queued write run
    assert [c for c, _, _ in qfake.nodata_log].count(0xEA) == 3
    text = collapse(out)
    assert "queued random writes (WRITE FPDMA QUEUED), per request size and queue depth:" in text
    assert "write random 8 32 40 30.48 85.34 121.92 <= 121.92 <= 121.92 n/a (40 samples) " \
           "n/a (40 samples) n/a (40 samples)" in text


def test_queued_sequential_reads_and_writes_of_one_size(qfake, capsys, tmp_path):
    """1 MiB commands at queue depth 8, read and written, sequential LBAs."""
    path = tmp_path / "s.json"
    rc, out, err = run_cli(capsys, qfake, "random", "-n", "16", "--min", "2048", "--max", "2048",
                           "--qd", "8", "--qd-seq", "--queued-only", "--write", "--allow-write",
                           "--range", "1000:65536", "--json", str(path))
    assert rc == 0, err
    row = json.loads(path.read_text())["rows"][0]
    cycles = 2 * S(2048)                         # 16 commands, 8 at once: two waves
    for prefix in ("qd8_seq_", "qd8_write_seq_", "qd8_", "qd8_write_"):
        assert row[prefix + "cycles"] == cycles
        assert row[prefix + "mbps"] == pytest.approx(16 * 2048 * 512 / (cycles / F) / 1e6)
        assert row[prefix + "depth"] == 8
    assert [(r["op"], r["random"]) for r in qfake.qbench.runs] == [
        (bc.OP_READ, 1), (bc.OP_READ, 0), (bc.OP_WRITE, 1), (bc.OP_WRITE, 0)]
    seq_write = qfake.qbench.runs[3]
    assert (seq_write["lba_base"], seq_write["sectors"], seq_write["qd"]) == (1000, 2048, 8)
    assert qfake.runs == []                      # --queued-only: no READ DMA EXT


# quick ------------------------------------------------------------------------------------------

QUICK = ["quick", "--loops", "2", "-n", "64", "--seq-n", "16"]


def dma_mbps(sectors, n, flush=0):
    cycles = n * S(sectors) + (n - 1) * 100 + flush
    return n * sectors * 512 / (cycles / F) / 1e6


def test_quick_reads_only_without_the_write_opt_in(qfake, capsys, tmp_path):
    path = tmp_path / "q.json"
    rc, out, err = run_cli(capsys, qfake, *QUICK, "--json", str(path))
    assert rc == 0, err
    doc = json.loads(path.read_text())
    rows = doc["rows"]
    assert [(r["test"], r["op"]) for r in rows] == [("SEQ1M Q8T1", "read"), ("SEQ1M Q1T1", "read"),
                                                   ("RND4K Q32T1", "read"), ("RND4K Q1T1", "read")]
    assert "writes not allowed" in doc["summary"]["write_skipped"]
    assert doc["summary"]["fallback"] == [] and doc["parameters"]["write"] is False
    seq8, seq1, rnd32, rnd1 = rows
    assert (seq8["engine"], seq8["qd_run"], seq8["command"]) == ("queued", 8, "READ FPDMA QUEUED")
    assert seq8["mbps"] == pytest.approx(16 * 2048 * 512 / (2 * S(2048) / F) / 1e6)
    assert seq1["mbps"] == seq1["mbps_min"] == seq1["mbps_max"] == pytest.approx(dma_mbps(2048, 16))
    assert seq1["mbps_stdev"] == 0 and seq1["samples"] == 32 and seq1["loops"] == 2
    assert (rnd32["depth"], rnd32["iops"]) == (32, pytest.approx(64 * F / (8 * S(8))))
    assert rnd1["lat_us"] == pytest.approx(S(8) / 100) and rnd1["command"] == "READ DMA EXT"
    assert all(r["flush_us"] is None for r in rows)
    text = collapse(out)
    assert f"SEQ1M Q1T1 read {seq1['mbps']:.2f} {seq1['mbps']:.2f} {seq1['mbps']:.2f} " \
           f"{seq1['iops']:.0f} {S(2048) / 100:.2f} non-queued QD1" in text
    assert "note: write rows skipped: writes not allowed: give --allow-write and --range " \
           "LBA:COUNT naming the sectors the write tests may overwrite" in text
    assert all(r["op"] == bc.OP_READ for r in qfake.runs + qfake.qbench.runs)
    assert [r["qd"] for r in qfake.qbench.runs] == [8, 8, 32, 32]


def test_quick_writes_inside_the_range(qfake, capsys, tmp_path):
    path = tmp_path / "q.json"
    rc, out, err = run_cli(capsys, qfake, *QUICK, "--allow-write", "--range", "5000:70000",
                           "--json", str(path))
    assert rc == 0, err
    doc = json.loads(path.read_text())
    writes = [r for r in doc["rows"] if r["op"] == "write"]
    assert [r["test"] for r in writes] == ["SEQ1M Q8T1", "SEQ1M Q1T1", "RND4K Q32T1", "RND4K Q1T1"]
    assert doc["summary"]["write_skipped"] is None and doc["parameters"]["range"] == 70000
    # non-queued writes end with the flush, inside their time; queued ones do not
    assert writes[1]["flush_us"] == 400 and writes[0]["flush_us"] is None
    assert writes[3]["mbps"] == pytest.approx(dma_mbps(8, 64, flush=40_000))
    assert writes[2]["command"] == "WRITE FPDMA QUEUED"
    for r in qfake.runs + qfake.qbench.runs:
        assert 5000 <= r["lba_base"] and r["lba_base"] + r["lba_range"] <= 75000


def test_quick_allow_write_without_range_is_refused(qfake, capsys):
    with pytest.raises(SystemExit):
        run_cli(capsys, qfake, "quick", "--allow-write")
    assert "quick --allow-write needs --range" in capsys.readouterr().err
    assert qfake.comm.writes == []


@pytest.mark.parametrize("kwargs,why", [
    (dict(with_queued=False), "the gateware has no queued engine (sata_qbench_*)"),
    (dict(with_queued=True, ncq=False), "the drive does not advertise NCQ"),
], ids=["no-engine", "no-ncq"])
def test_quick_falls_back_to_queue_depth_1(tmp_path, capsys, kwargs, why):
    fake = FakeSATATarget(str(tmp_path), **kwargs)
    try:
        path = tmp_path / "q.json"
        rc, out, err = run_cli(capsys, fake, *QUICK, "--json", str(path))
        assert rc == 0, err
        doc = json.loads(path.read_text())
        rows = {r["test"]: r for r in doc["rows"]}
        assert doc["summary"]["fallback"] == ["SEQ1M Q8T1", "RND4K Q32T1"]
        for name in ("SEQ1M Q8T1", "RND4K Q32T1"):
            r = rows[name]
            assert (r["engine"], r["qd_run"], r["queue_depth"] > 1) == ("non-queued", 1, True)
            assert why in r["fallback"]
        assert rows["SEQ1M Q8T1"]["mbps"] == pytest.approx(dma_mbps(2048, 16))
        assert rows["SEQ1M Q1T1"]["fallback"] is None
        text = collapse(out)
        assert any(line.startswith("RND4K Q32T1 read") and line.endswith("non-queued QD1 (fallback)")
                   for line in text)
        assert any("SEQ1M Q8T1, RND4K Q32T1: run on the non-queued engine at queue depth 1" in line
                   for line in text)
        assert not getattr(fake, "qbench", None) or fake.qbench.runs == []
    finally:
        fake.close()


def test_quick_runs_at_the_drive_s_queue_depth(tmp_path, capsys):
    fake = FakeSATATarget(str(tmp_path), with_queued=True, queue_depth=16)
    try:
        path = tmp_path / "q.json"
        rc, out, err = run_cli(capsys, fake, *QUICK, "--json", str(path))
        assert rc == 0, err
        r = json.loads(path.read_text())["rows"][2]
        assert (r["test"], r["qd_run"], r["engine"]) == ("RND4K Q32T1", 16, "queued")
        assert "Q32 tests ran at queue depth 16" in out
    finally:
        fake.close()


# loops -------------------------------------------------------------------------------------------

def test_spread_of_hand_picked_figures():
    st = loops.stats([100.0, 110.0, 120.0])
    assert st == {"mean": 110.0, "stdev": 10.0, "min": 100.0, "max": 120.0}
    row = loops.merge([{"op": "read", "mbps": 100.0, "cycles": 10, "depth": 3},
                       {"op": "read", "mbps": 130.0, "cycles": 20, "depth": 5}])
    assert list(row) == ["op", "mbps", "mbps_stdev", "mbps_min", "mbps_max", "cycles", "depth"]
    assert row["mbps"] == 115.0 and row["mbps_stdev"] == pytest.approx(math.sqrt(450))
    assert (row["mbps_min"], row["mbps_max"], row["cycles"], row["depth"]) == (100.0, 130.0, 15, 5)
    assert loops.stats([5.0])["stdev"] is None


def slower_each_run(fake, step=1000):
    """The fake drive's first data comes `step` cycles later after every start."""
    start = fake._start

    def bumped():
        start()
        fake.model.first_data += step
    fake._start = bumped


def test_single_loops_against_hand_computed_figures(qfake, capsys, tmp_path):
    slower_each_run(qfake)
    path = tmp_path / "s.json"
    rc, out, err = run_cli(capsys, qfake, "single", "--sectors", "100", "--loops", "3",
                           "--json", str(path))
    assert rc == 0, err
    doc = json.loads(path.read_text())
    row = doc["rows"][0]
    cycles = [26_600, 27_600, 28_600]             # 1000 + 1000 k + 256 * 100
    rates = [51_200 / (c / F) / 1e6 for c in cycles]
    mean = sum(rates) / 3
    sd = math.sqrt(sum((x - mean) ** 2 for x in rates) / 2)
    assert row["mbps"] == pytest.approx(mean, rel=1e-12)
    assert row["mbps_stdev"] == pytest.approx(sd, rel=1e-9)
    assert (row["mbps_min"], row["mbps_max"]) == (pytest.approx(rates[2]), pytest.approx(rates[0]))
    assert row["cycles"] == pytest.approx(27_600)
    assert doc["parameters"]["loops"] == 3 and any("--loops" in n for n in doc["notes"])
    assert len(qfake.runs) == 3


def test_random_queued_loops_and_access_loops(qfake, tmp_path):
    with Target("127.0.0.1", qfake.port, qfake.csr_csv, timeout=2.0) as t:
        s = Session(t, timeout=2.0)
        start = qfake.qbench._start

        def slower():                             # every queued run's commands take 256 more
            start()
            qfake.qbench.model.first_data += 256
        qfake.qbench._start = slower
        res = experiments.run("random", s, n=8, min_sectors=8, max_sectors=8, qd=[8], queued_only=True,
                           loops=2)
        row = res["rows"][0]
        iops = [8 * F / (S(8) + 256 * k) for k in (0, 1)]
        assert row["qd8_iops"] == pytest.approx(sum(iops) / 2)
        assert row["qd8_iops_stdev"] == pytest.approx(abs(iops[0] - iops[1]) / math.sqrt(2))
        assert (row["qd8_iops_min"], row["qd8_iops_max"]) == (pytest.approx(iops[1]),
                                                            pytest.approx(iops[0]))
        # latency over both loops: 8 commands of S(8), 8 of S(8) + 256
        assert row["qd8_lat_us"] == pytest.approx((S(8) + 128) / 100)
        assert res["summary"]["queued_latency"][0]["latency"]["samples"] == 16
        acc = experiments.run("access", s, n=5, loops=2)
    assert [r["sample"] for r in acc["rows"]] == list(range(10))
    assert acc["rows"][5]["lba"] == acc["rows"][0]["lba"]
    sp = acc["summary"]["spread"]["avg_us"]
    assert sp == {"mean": 10.0, "stdev": 0.0, "min": 10.0, "max": 10.0}
    assert acc["summary"]["latency"]["samples"] == 10
