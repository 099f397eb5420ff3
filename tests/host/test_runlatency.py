# SPDX-License-Identifier: BSD-2-Clause
"""ecpsata/host/runlatency.py and measure.Tally: the latency statistics of `long`, `overhead` and
`latency` against the fake SoC (tests/support/fake_target.py), with gaps and command times the
tests choose, so that every histogram, percentile, mean and standard deviation below is worked
out by hand.

The fake at 100 MHz (1 cycle = 0.01 us): a command of n sectors takes 1,000 + 256 n cycles from
issue to status (plus any `extra`), its first data comes 1,000 cycles after its issue, so a gap
(status to the next first data) is the host loop's or sequencer's pause + 1,000 cycles.
"""

import contextlib
import json
import os
import re
import statistics
import struct

import pytest

from ecpsata.engines import common as bc
from ecpsata.host import experiments, latency, measure, plots, report, runlatency, tables
from ecpsata.host.session import Session
from ecpsata.host.target import Target
from ecpsata.paths import ROOT as REPO
from tests.support.fake_target import EngineModel, FakeSATATarget

F = 100_000_000
PCT_KEYS = ["p50_us", "p90_us", "p99_us", "p99_9_us", "p99_99_us"]


class ListModel(EngineModel):
    """The fake engine with the host loop's pauses (fw_gaps), the sequencer's (hw_gaps) and extra
    cycles per command (extra) taken from lists in the order the fake asks for them; the
    EngineModel defaults once a list runs out."""
    def __init__(self, fw_gaps=(), hw_gaps=(), extra=()):
        super().__init__()
        self._fw, self._hw, self._extra = iter(fw_gaps), iter(hw_gaps), iter(extra)

    fw_gap = property(lambda self: next(self._fw, 50_000), lambda self, v: None)
    hw_gap = property(lambda self: next(self._hw, 100), lambda self, v: None)

    def latency(self, sectors):
        return super().latency(sectors) + next(self._extra, 0)


@contextlib.contextmanager
def connected(tmp_path, model=None):
    os.makedirs(tmp_path, exist_ok=True)
    fake = FakeSATATarget(str(tmp_path), model=model)
    try:
        with Target("127.0.0.1", fake.port, fake.csr_csv, timeout=2.0) as t:
            yield fake, Session(t, timeout=2.0, allow_write=True, lba_range=(0, 1 << 16))
    finally:
        fake.close()


def pct(lat):
    return {latency.pname(p): p for p in lat["percentiles"]}


def buckets(entry):
    return [(b["bucket"], b["count"]) for b in entry["histogram"]]


def table_text(res):
    (caption, cols, rows), = runlatency.tables(res)
    return caption, tables.table(cols, rows)


# counter arithmetic -------------------------------------------------------------------------------

def test_tally_adds_counters_and_histograms_exactly():
    t = measure.Tally()
    h1, h2 = [0] * bc.HIST_BUCKETS, [0] * bc.HIST_BUCKETS
    h1[3], h2[3], h2[5] = 2, 1, 1
    t.add({"min": 9, "max": 12, "sum": 21, "count": 2}, h1)
    # a run without samples: its min register (0) is no minimum
    t.add({"min": 0, "max": 0, "sum": 0, "count": 0}, [0] * bc.HIST_BUCKETS)
    t.add({"min": 8, "max": 40, "sum": 48, "count": 2}, h2)
    assert t.stat == {"min": 8, "max": 40, "sum": 69, "count": 4}
    assert (t.hist[3], t.hist[5], sum(t.hist)) == (3, 1, 4)
    lat = t.latency(F, "x")
    assert (lat["samples"], lat["min_cycles"], lat["max_cycles"]) == (4, 8, 40)
    assert lat["mean_cycles"] == 69 / 4 and lat["stdev_cycles"] is None
    # p50: the 2nd sample, bucket 3 [8, 16); p90 needs 10 samples
    assert (pct(lat)["p50"]["at_least_cycles"], pct(lat)["p50"]["at_most_cycles"]) == (8, 15)
    assert measure.percentile_keys(lat) == {"p50_us": 0.15, "p90_us": None, "p99_us": None,
                                            "p99_9_us": None, "p99_99_us": None}


def test_a_gateware_without_histogram_gives_null_objects_and_no_table():
    t = measure.Tally()
    t.add({"min": 5, "max": 9, "sum": 14, "count": 2}, None)
    e = runlatency.entry(t, F, latency.GAP, op="read")
    assert e == {"op": "read", "latency": None, "histogram": None}
    assert measure.percentile_keys(e["latency"]) == dict.fromkeys(PCT_KEYS)
    assert runlatency.notes([e], runlatency.GAP_NOTE) == []
    res = {"experiment": "long", "summary": {"gap_latency": [e]}}
    assert runlatency.tables(res) == [] and plots.entries(res) == []


# long ---------------------------------------------------------------------------------------------

def test_long_adds_the_gaps_of_every_loop_count(tmp_path):
    # loop counts 1, 2, 4, 8, 11: 0 + 1 + 3 + 7 + 10 = 21 gaps: 12 of 4,000 cycles (bucket 11,
    # [2048, 4096)), 6 of 20,000 (bucket 14), 3 of 100,000 (bucket 16, [65536, 131072))
    gaps = [4000] * 12 + [20_000] * 6 + [100_000] * 3
    with connected(tmp_path, ListModel(fw_gaps=[g - 1000 for g in gaps])) as (fake, s):
        res = experiments.run("long", s, loops=11, sectors=8)
    # no run added, every run still on the gap histogram
    assert len(fake.runs) == 1 + 2 + 4 + 8 + 11
    assert {r["hist_source"] for r in fake.runs} == {bc.HIST_GAP}
    # the loops' times are the same gaps: 26 commands of 3,048 cycles and 21 pauses
    assert sum(r["read_cycles"] for r in res["rows"]) == 26 * 3048 + sum(gaps) - 21 * 1000
    (e,) = res["summary"]["gap_latency"]
    lat = e["latency"]
    assert (e["op"], lat["interval"]) == ("read", latency.GAP)
    assert (lat["samples"], lat["min_cycles"], lat["max_cycles"]) == (21, 4000, 100_000)
    assert lat["mean_cycles"] == pytest.approx(468_000 / 21) and lat["stdev_cycles"] is None
    assert buckets(e) == [(11, 12), (14, 6), (16, 3)]
    p = pct(lat)
    # nearest rank: p50 is the 11th gap (bucket 11), p90 the 19th (bucket 16, lowered to the max)
    bounds = {k: (p[k]["bucket"], p[k]["at_least_cycles"], p[k]["at_most_cycles"]) for k in p}
    assert bounds["p50"] == (11, 4000, 4095) and bounds["p90"] == (16, 65536, 100_000)
    assert p["p90"]["at_most_us"] == pytest.approx(1000.0)
    assert [p[k]["at_most_us"] for k in ("p99", "p99.9", "p99.99")] == [None] * 3
    assert res["notes"][-3:] == [latency.NOTE, runlatency.GAP_NOTE, runlatency.LONG_NOTE]
    caption, text = table_text(res)
    assert caption.startswith("latency, status of one command to first data of the next: ")
    assert "<= 40.95" in text and "<= 1000.00" in text and text.count("n/a (21 samples)") == 3
    assert "stdev" not in text          # no per-command samples: no column


def test_long_writes_first_and_a_single_command_has_no_gap(tmp_path):
    with connected(tmp_path) as (fake, s):
        res = experiments.run("long", s, loops=4, sectors=8, write=True)
        one = experiments.run("long", s, loops=1, sectors=8)
    entries = res["summary"]["gap_latency"]
    # 0 + 1 + 3 gaps per direction, each 50,000 + 1,000 cycles: p50 is the max, 510 us
    assert [(e["op"], e["latency"]["samples"]) for e in entries] == [("write", 4), ("read", 4)]
    assert all(buckets(e) == [(15, 4)] for e in entries)
    assert [pct(e["latency"])["p50"]["at_most_us"] for e in entries] == [510.0, 510.0]
    # a loop of one command: the histogram is read but holds no gap, so no statistics
    (e,) = one["summary"]["gap_latency"]
    assert (e["latency"], e["histogram"]) == (None, [])
    assert latency.NOTE not in one["notes"] and runlatency.tables(one) == []


# overhead -----------------------------------------------------------------------------------------

def test_overhead_percentiles_per_circuit(tmp_path):
    # 12 commands, 11 gaps per loop. Host loop: 11 of 51,000 cycles. Hardware loop: 9 of 1,100
    # cycles (bucket 10, [1024, 2048)) and 2 of 9,000 (bucket 13, [8192, 16384)).
    with connected(tmp_path, ListModel(hw_gaps=[100] * 5 + [8000] * 2 + [100] * 4)) as (fake, s):
        res = experiments.run("overhead", s, loops=12, sectors=8)
    assert len(fake.runs) == 12 + 1 and {r["hist_source"] for r in fake.runs} == {bc.HIST_GAP}
    host, hw = res["rows"]
    assert (host["circuit"], hw["circuit"]) == ("host loop", "state machine")
    assert hw["avg_cycles"] == pytest.approx((9 * 1100 + 2 * 9000) / 11)    # as before
    # host loop: every gap the same, p50 and p90 are it; p99 needs 100 gaps
    assert host["p50_us"] == host["p90_us"] == 510.0 and host["p99_us"] is None
    # hardware loop: p50 (6th gap) is bucket 10's top, p90 (10th) bucket 13 lowered to the max
    assert (hw["p50_us"], hw["p90_us"]) == (pytest.approx(20.47), pytest.approx(90.0))
    assert [hw[k] for k in PCT_KEYS[2:]] == [None] * 3
    entries = res["summary"]["gap_latency"]
    assert [(e["circuit"], e["op"], e["latency"]["samples"]) for e in entries] == [
        ("host loop", "read", 11), ("state machine", "read", 11)]
    assert buckets(entries[0]) == [(15, 11)] and buckets(entries[1]) == [(10, 9), (13, 2)]
    lat = entries[1]["latency"]
    assert (lat["min_cycles"], lat["max_cycles"], lat["stdev_cycles"]) == (1100, 9000, None)
    assert pct(lat)["p90"]["at_least_cycles"] == 8192
    assert res["notes"] == [latency.NOTE, runlatency.GAP_NOTE]
    _, text = table_text(res)
    assert text.count("n/a (11 samples)") == 6 and "<= 20.47" in text and "<= 90.00" in text


# latency ------------------------------------------------------------------------------------------

def test_latency_per_size_with_the_standard_deviation_of_its_runs(tmp_path):
    # 16 KiB reads take 1,000 + 32 x 256 = 9,192 cycles, plus: 5 x 0 (bucket 13, [8192, 16384)),
    # 4 x 8,000 (bucket 14), 1 x 40,000 (bucket 15)
    extra = [8000, 0, 0, 40_000, 8000, 0, 8000, 0, 0, 8000]
    samples = [9192 + x for x in extra]
    with connected(tmp_path, ListModel(extra=extra)) as (fake, s):
        res = experiments.run("latency", s, min_kib=16, max_kib=16, runs=10)
    assert len(fake.runs) == 10 and {r["hist_source"] for r in fake.runs} == {bc.HIST_LATENCY}
    (row,) = res["rows"]
    # the existing figures: first run, and the mean without the fastest and the slowest
    assert row["first_cycles"] == 17_192 and row["avg_cycles"] == (163_920 - 9192 - 49_192) / 8
    assert row["stdev_us"] == pytest.approx(statistics.stdev(samples) / 100)
    assert (row["p50_us"], row["p90_us"]) == (pytest.approx(163.83), pytest.approx(327.67))
    assert [row[k] for k in PCT_KEYS[2:]] == [None] * 3
    (e,) = res["summary"]["read_latency"]
    lat = e["latency"]
    assert (e["kib"], lat["interval"]) == (16, measure.DMA)
    assert (lat["samples"], lat["min_cycles"], lat["max_cycles"]) == (10, 9192, 49_192)
    assert lat["mean_cycles"] == 16_392
    assert lat["stdev_cycles"] == pytest.approx(statistics.stdev(samples))
    assert buckets(e) == [(13, 5), (14, 4), (15, 1)]
    p = pct(lat)
    assert (p["p50"]["at_least_cycles"], p["p90"]["at_least_cycles"]) == (9192, 16384)
    assert res["notes"] == [latency.NOTE, runlatency.READ_NOTE]
    _, text = table_text(res)
    assert "stdev us" in text.splitlines()[0] and text.count("n/a (10 samples)") == 3
    assert f"{statistics.stdev(samples) / 100:.2f}" in text


def test_latency_runs_below_ten_give_p50_only(tmp_path):
    with connected(tmp_path) as (_, s):
        res = experiments.run("latency", s, min_kib=16, max_kib=32, runs=5)
    for row, kib in zip(res["rows"], (16, 32)):
        t = (1000 + kib * 2 * 256) / 100
        assert row["p50_us"] == pytest.approx(t) and row["p90_us"] is None
        assert row["stdev_us"] == 0
    _, text = table_text(res)
    assert text.count("n/a (5 samples)") == 8


# JSON, CSV, plots ---------------------------------------------------------------------------------

def documented_latency_keys():
    text = open(os.path.join(REPO, "doc", "bench-json.md")).read()
    start = text.index("## Latency statistics")
    section = text[start:text.index("\n## ", start)]
    top, pct_part = section.split("| percentile key |")
    keys = lambda part: re.findall(r"^\| `(\w+)` \|", part, flags=re.M)
    return keys(top), keys(pct_part)


@pytest.mark.parametrize("name, kwargs, key, labels, csv_tail", [
    ("long", dict(loops=4, sectors=8, write=True), "gap_latency", ["op"], "read_mbps"),
    ("overhead", dict(loops=3, sectors=8, write=True), "gap_latency", ["circuit", "op"],
     ",".join(PCT_KEYS)),
    ("latency", dict(max_kib=32, runs=3), "read_latency", ["kib"],
     "stdev_us," + ",".join(PCT_KEYS)),
])
def test_latency_entries_in_json_and_csv(tmp_path, name, kwargs, key, labels, csv_tail):
    with connected(tmp_path / "soc") as (_, s):
        res = experiments.run(name, s, **kwargs)
        report.write_json(str(tmp_path / "r.json"), report.document(res, s))
    report.write_csv(str(tmp_path / "r.csv"), res)
    top, pct_keys = documented_latency_keys()
    entries = json.load(open(tmp_path / "r.json"))["summary"][key]
    assert entries and all(list(e) == labels + ["latency", "histogram"] for e in entries)
    for e in entries:
        assert list(e["latency"]) == top
        assert [list(p) for p in e["latency"]["percentiles"]] == [pct_keys] * 5
        assert list(e["histogram"][0]) == ["bucket", "from_cycles", "below_cycles", "from_us",
                                           "below_us", "count"]
    lines = (tmp_path / "r.csv").read_text().splitlines()
    assert lines[0].endswith(csv_tail)
    assert not (tmp_path / "r-latency.csv").exists()     # that file is for one latency object
    if name == "overhead":
        # host loop write: 2 gaps of 51,000 cycles: p50 = 510 us, p90 and above empty
        assert lines[1].startswith("host loop,write,2,") and lines[1].endswith(",510.0,,,,")


def png_width(path):
    return struct.unpack(">I", path.read_bytes()[16:20])[0]


def test_plots_draw_the_histograms(tmp_path):
    with connected(tmp_path / "soc") as (_, s):
        done = {"long": experiments.run("long", s, loops=4, sectors=8),
                "long1": experiments.run("long", s, loops=1, sectors=8),
                "overhead": experiments.run("overhead", s, loops=3, sectors=8, write=True),
                "latency": experiments.run("latency", s, max_kib=32, runs=3)}
    assert report.can_plot("overhead")
    for name, res in done.items():
        report.write_plot(str(tmp_path / f"{name}.png"), res)
    # the histogram beside the sweep: two panels, as wide as the queued random plot
    wide, narrow = (round(w * plots.DPI) for w in (plots.FIGSIZE_WIDE[0], plots.FIGSIZE[0]))
    assert [png_width(tmp_path / f"{n}.png") for n in done] == [wide, narrow, narrow, wide]
    assert [len(plots.entries(r)) for r in done.values()] == [1, 0, 4, 2]
