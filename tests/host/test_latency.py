# SPDX-License-Identifier: BSD-2-Clause
"""ecpsata/host/latency.py: percentiles from the engine's log2 histogram against hand-computed
answers, the too-few-samples rule, the standard deviation only from per-command samples."""

import math

import pytest

from ecpsata.engines import common as bc
from ecpsata.host import latency, tables

F = 100_000_000          # 100 MHz: 1 cycle = 0.01 us


def pct(lat):
    return {latency.pname(p): p for p in lat["percentiles"]}


def test_needs_samples_is_one_over_the_tail():
    assert [latency.needs_samples(p) for p in latency.PERCENTILES] == [2, 10, 100, 1000, 10000]


def test_bucket_bounds_follow_the_gateware_histogram():
    assert latency.bucket_bounds(0) == (0, 2)          # 0 and 1
    assert latency.bucket_bounds(6) == (64, 128)
    assert latency.bucket_bounds(bc.HIST_BUCKETS - 1) == (1 << 31, None)    # and everything above
    for v in (0, 1, 2, 3, 64, 127, 128, 5000, 1 << 40):
        lo, hi = latency.bucket_bounds(bc.hist_bucket(v))
        assert lo <= v and (hi is None or v < hi)


def test_percentiles_of_a_hand_computed_histogram():
    # 100 samples: 50 in [8, 16), 40 in [32, 64), 9 in [256, 512), 1 in [4096, 8192) cycles.
    # Nearest rank: p50 is the 50th sample (bucket 3), p90 the 90th (bucket 5), p99 the 99th
    # (bucket 8); p99.9 needs 1,000 samples.
    lat = latency.summarize({3: 50, 5: 40, 8: 9, 12: 1}, F, "x")
    p = pct(lat)
    assert (p["p50"]["bucket"], p["p50"]["at_least_cycles"], p["p50"]["at_most_cycles"]) == (3, 8, 15)
    assert (p["p90"]["bucket"], p["p90"]["at_least_cycles"], p["p90"]["at_most_cycles"]) == (5, 32, 63)
    assert (p["p99"]["bucket"], p["p99"]["at_most_cycles"]) == (8, 511)
    assert p["p99"]["at_most_us"] == pytest.approx(5.11)
    assert p["p99.9"]["bucket"] is None and p["p99.9"]["at_most_us"] is None
    assert p["p99.99"]["at_most_cycles"] is None
    assert lat["samples"] == 100 and lat["stdev_cycles"] is None and lat["mean_cycles"] is None


def test_the_run_min_and_max_narrow_the_bucket():
    lat = latency.summarize({3: 50, 5: 40, 8: 9, 12: 1}, F, "x", lo=9, hi=300, total=5000)
    p = pct(lat)
    assert (p["p50"]["at_least_cycles"], p["p50"]["at_most_cycles"]) == (9, 15)
    assert (p["p99"]["at_least_cycles"], p["p99"]["at_most_cycles"]) == (256, 300)
    assert lat["mean_cycles"] == 50 and lat["mean_us"] == pytest.approx(0.5)


def test_p99_99_with_ten_thousand_samples():
    # 9,990 samples in bucket 4, 9 in bucket 20, 1 in the last bucket: rank 9,999 is in bucket 20
    lat = latency.summarize({4: 9990, 20: 9, 31: 1}, F, "x", lo=20, hi=3_000_000_000)
    p = pct(lat)
    assert (p["p99.9"]["bucket"], p["p99.9"]["at_most_cycles"]) == (4, 31)
    assert (p["p99.99"]["bucket"], p["p99.99"]["at_least_cycles"],
            p["p99.99"]["at_most_cycles"]) == (20, 1 << 20, (1 << 21) - 1)
    # the last bucket has no top: the run's maximum bounds it
    last = pct(latency.summarize({31: 2}, F, "x", hi=3_000_000_000))["p50"]
    assert (last["at_least_cycles"], last["at_most_cycles"]) == (1 << 31, 3_000_000_000)


def test_too_few_samples_print_n_a():
    lat = latency.summarize({7: 9}, F, "x", lo=130, hi=140, total=9 * 135)
    rows = {r["statistic"]: r for r in latency.table_rows(lat)}
    assert rows["p50"]["value_cycles"] == 140
    assert latency.value_text(rows["p50"], 9) == "<= 1.400"
    for name in ("p90", "p99", "p99.9", "p99.99"):
        assert rows[name]["value_us"] is None
        assert latency.value_text(rows[name], 9) == "n/a (9 samples)"
    text = tables.table(tables.LATENCY_COLUMNS, tables.latency_rows(lat))
    assert "n/a (9 samples)" in text and "needs at least 10" in text
    assert latency.summarize({}, F, "x") is None


def test_stdev_only_from_the_per_command_samples():
    samples = [100, 102, 104, 106]
    lat = latency.summarize({6: 4}, F, "x", samples=samples)
    assert lat["stdev_cycles"] == pytest.approx(math.sqrt(20 / 3))
    assert (lat["min_cycles"], lat["max_cycles"], lat["mean_cycles"]) == (100, 106, 103)
    assert lat["stdev_us"] == pytest.approx(math.sqrt(20 / 3) / 100)
    # samples that are not the histogram's (another count) are not used
    assert latency.summarize({6: 5}, F, "x", samples=samples)["stdev_cycles"] is None
    stdev = next(r for r in latency.table_rows(latency.summarize({6: 4}, F, "x"))
                 if r["statistic"] == "stdev")
    assert stdev["value_us"] is None and "not derivable" in stdev["bound"]


def test_results_written_before_the_object_existed_get_it_from_histogram_and_rows():
    doc = {"experiment": "access",
           "summary": {"histogram": [{"bucket": 6, "count": 3}, {"bucket": 7, "count": 1}]},
           "rows": [{"first_data_cycles": c} for c in (70, 72, 74, 200)]}
    lat = latency.of_result(doc, F)
    assert (lat["samples"], lat["min_cycles"], lat["max_cycles"], lat["mean_cycles"]) == (4, 70, 200, 104)
    assert pct(lat)["p50"]["at_most_cycles"] == 127
    doc["summary"]["latency"] = {"stored": True}
    assert latency.of_result(doc, F) == {"stored": True}
    assert latency.of_result({"summary": {}}, F) is None
