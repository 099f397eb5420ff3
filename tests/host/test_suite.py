# SPDX-License-Identifier: BSD-2-Clause
"""ecpsata/host/engine.py, ecpsata/host/experiments/ and ecpsata/host/report.py against the fake SoC (tests/support/fake_target.py).

The fake's engine model makes every figure predictable: a command of n sectors takes
first_data + 256 n cycles, the hardware loop waits 100 cycles between commands, the host loop
50,000, at 100 MHz. The tests assert those exact figures, the registers the driver wrote, and the
documented JSON keys (doc/bench-json.md).
"""

import json
import os
import re

import pytest

from ecpsata.engines import common as bc
from ecpsata.host import experiments, report, tables
from ecpsata.host.experiments.access import xorshift_lbas
from ecpsata.host.session import Session
from ecpsata.host.engine import EngineDriver, RunError, command_timeout_cycles
from ecpsata.host.target import Target, TargetError
from tests.support.fake_target import EngineModel, FakeSATATarget

F = 100_000_000
from ecpsata.paths import ROOT as REPO


def lat(sectors, m=EngineModel()):
    return m.first_data + sectors * m.cycles_per_sector


def mbps(nbytes, cycles):
    return nbytes / (cycles / F) / 1e6


@pytest.fixture
def fake(tmp_path, request):
    # the queued engine for the experiments that need it
    name = request.node.callspec.params.get("name") if hasattr(request.node, "callspec") else None
    t = FakeSATATarget(str(tmp_path), with_queued=name in ("steady", "wsat"))
    yield t
    t.close()


@pytest.fixture
def target(fake):
    with Target("127.0.0.1", fake.port, fake.csr_csv, timeout=2.0) as t:
        yield t


def session(target, **kwargs):
    return Session(target, timeout=2.0, **kwargs)


# engine driver -----------------------------------------------------------------------------------

def test_hardware_run_figures_come_from_the_counters(fake, target):
    e = EngineDriver(target, fake.sectors)
    r = e.run("read", lba=64, sectors=128, commands=3, seed=7)
    cycles = 3 * lat(128) + 2 * 100
    assert (r["cycles"], r["bytes"], r["completed"], r["errors"]) == (cycles, 3 * 128 * 512, 3, 0)
    assert r["mbps"] == pytest.approx(mbps(3 * 128 * 512, cycles), rel=1e-12)
    assert r["us"] == pytest.approx(cycles / 100, rel=1e-12)
    assert r["lat"] == {"min": lat(128), "max": lat(128), "sum": 3 * lat(128), "count": 3}
    assert r["gap"] == {"min": 1100, "max": 1100, "sum": 2200, "count": 2}
    assert r["last_lba"] == 64 + 2 * 128 and r["first_bad_lba"] is None
    run = fake.runs[-1]
    assert (run["lba_base"], run["lba_range"], run["sectors"], run["commands"], run["seed"]) == (64, 384, 128, 3, 7)
    assert run["capacity"] == fake.sectors and run["op"] == bc.OP_READ and not run["fw_loop"]
    assert run["timeout"] == command_timeout_cycles(128, F) == int(2 * F + 128 * 512 * F / 10e6)


def test_config_word_uses_csr_fields_json(tmp_path):
    """Move every config field up by 3 bits in csr_fields.json: the driver must follow."""
    fake = FakeSATATarget(str(tmp_path))
    try:
        fake.fields["sata_bench_config"] = {k: [o + 3, s] for k, (o, s) in fake.fields["sata_bench_config"].items()}
        with open(os.path.join(str(tmp_path), "csr_fields.json"), "w") as f:
            json.dump(fake.fields, f)
        with Target("127.0.0.1", fake.port, fake.csr_csv, timeout=2.0) as t:
            EngineDriver(t, fake.sectors).run("read", sectors=8, commands=4, lba_range=64, random=True,
                                             verify=True, hist_source="gap")
        run = fake.runs[-1]
        assert (run["op"], run["random"], run["verify"], run["fw_loop"], run["hist_source"]) == (0, 1, 1, 0, bc.HIST_GAP)
        assert run["stop_on_error"] == 1 and run["lba28"] == 0
        assert fake.get("sata_bench_config") & 0b111 == 0      # nothing left at the old offsets
    finally:
        fake.close()


def test_random_run_covers_the_reference_lbas(fake, target):
    EngineDriver(target, fake.sectors).run("read", lba=1000, sectors=4, commands=5, lba_range=400,
                                          random=True, seed=3)
    assert fake.get("sata_bench_last_lba") == bc.random_lbas(3, 1000, 400, 4, 5)[-1]


def test_firmware_loop_accumulates_and_gaps_are_the_host_loop(fake, target):
    e = EngineDriver(target, fake.sectors)
    r = e.fw_loop("write", [10, 20, 30], sectors=10)
    assert r["cycles"] == 3 * lat(10) + 2 * 50_000
    assert r["gap"]["count"] == 2 and r["gap"]["min"] == 51_000
    assert [x["lba_base"] for x in fake.runs] == [10, 20, 30]
    assert all(x["fw_loop"] == 1 and x["op"] == bc.OP_WRITE for x in fake.runs)


def test_progress_is_fed_from_snapshots_with_growing_bytes(tmp_path):
    fake = FakeSATATarget(str(tmp_path), model=EngineModel(busy_reads=5))
    try:
        seen = []
        with Target("127.0.0.1", fake.port, fake.csr_csv, timeout=2.0) as t:
            EngineDriver(t, fake.sectors, on_progress=seen.append).run("read", sectors=256, commands=4)
        total = 4 * 256 * 512
        nbytes = [p["bytes"] for p in seen]
        assert len(seen) >= 5 and nbytes == sorted(nbytes) and nbytes[0] < nbytes[-1] == total
        assert all(p["total_bytes"] == total and p["label"] == "read" for p in seen)
        for p in seen:
            if p["cycles"]:
                assert p["mbps"] == pytest.approx(mbps(p["bytes"], p["cycles"]), rel=1e-12)
        assert seen[-1]["cycles"] == 4 * lat(256) + 300
    finally:
        fake.close()


def test_progress_rate_is_at_least_10_hz(tmp_path):
    fake = FakeSATATarget(str(tmp_path), model=EngineModel(busy_reads=8))
    try:
        import time
        stamps = []
        with Target("127.0.0.1", fake.port, fake.csr_csv, timeout=2.0) as t:
            EngineDriver(t, fake.sectors, on_progress=lambda p: stamps.append(time.monotonic())).run(
                "read", sectors=8, commands=2)
        gaps = [b - a for a, b in zip(stamps, stamps[1:])]
        assert len(stamps) >= 8 and max(gaps) < 0.1
    finally:
        fake.close()


def test_no_engine_is_a_readable_error(tmp_path):
    fake = FakeSATATarget(str(tmp_path), with_bench=False)
    try:
        with Target("127.0.0.1", fake.port, fake.csr_csv, timeout=2.0) as t:
            with pytest.raises(TargetError, match="this gateware has no benchmark engine"):
                EngineDriver(t, fake.sectors)
    finally:
        fake.close()


def test_refusal_device_error_and_link_drop_raise_readable_errors(fake, target):
    e = EngineDriver(target, capacity=100)     # the engine refuses runs beyond this
    with pytest.raises(RunError, match="refused the parameters"):
        e.run("read", lba=0, sectors=64, commands=2)
    e = EngineDriver(target, fake.sectors)
    fake.model.fail_command = fake.issued + 1
    with pytest.raises(RunError, match=r"command failed \(1 failed of 2 completed; the failing "
                       r"command started at LBA 8\): the drive reported status 0x51 error 0x40 "
                       r"\(UNC: uncorrectable data\) at LBA 11") as info:
        e.run("write", lba=0, sectors=8, commands=4)
    assert info.value.result["errors"] == 1
    assert info.value.details["device"]["lba"] == 11
    fake.model.drop_link = True
    with pytest.raises(RunError, match=r"SATA link dropped during the run \(link_downs 0 -> 1\)"):
        e.run("read", lba=0, sectors=8, commands=2)


def test_deadline_aborts_a_run_that_never_ends(fake, target):
    fake.model.hang = True
    e = EngineDriver(target, fake.sectors, time_scale=0, margin_s=0.3)
    with pytest.raises(RunError, match="did not finish within 0 s"):
        e.run("read", sectors=8, commands=2)
    abort = 1 << fake.fields["sata_bench_control"]["abort"][0]
    assert (fake.addr("sata_bench_control"), abort) in fake.comm.writes
    assert fake.field("sata_bench_status", "reason", fake._status_word) == bc.REASON_ABORTED


def test_deadline_scales_with_commands_and_time_scale(fake, target):
    e = EngineDriver(target, fake.sectors, time_scale=1000, margin_s=5)
    per = command_timeout_cycles(65536, F) / F
    assert e.deadline_s(4, 65536) == pytest.approx(4 * per * 1000 + 5)


def test_histogram_reads_every_bucket(fake, target):
    e = EngineDriver(target, fake.sectors)
    e.run("read", sectors=1, commands=6, hist_source="first_data")
    h = e.histogram()
    assert len(h) == 32 and h[bc.hist_bucket(1000)] == 6 and sum(h) == 6


# experiments ------------------------------------------------------------------------------------

def test_single_read_and_write(fake, target):
    s = session(target, allow_write=True, lba_range=(2048, 4096))
    res = experiments.run("single", s, sectors=512, write=True)
    assert [r["op"] for r in res["rows"]] == ["write", "read"]
    flush = fake.model.flush_cycles          # the write ends with FLUSH CACHE EXT, timed in it
    for r, extra in zip(res["rows"], (flush, 0)):
        assert (r["lba"], r["bytes"], r["cycles"]) == (2048, 512 * 512, lat(512) + extra)
        assert r["mbps"] == pytest.approx(mbps(512 * 512, lat(512) + extra), rel=1e-12)
    assert res["rows"][0]["flush_us"] == pytest.approx(flush / F * 1e6)
    assert res["rows"][0]["mbps_before_flush"] == pytest.approx(mbps(512 * 512, lat(512)))
    assert res["rows"][1]["flush_us"] is None
    assert [x["flush"] for x in fake.runs] == [1, 0]
    assert res["rows"][0]["first_data_us"] == pytest.approx(10.0)   # the fake: first_data cycles
    assert res["rows"][1]["first_data_us"] == pytest.approx(10.0)
    assert [x["op"] for x in fake.runs] == [bc.OP_WRITE, bc.OP_READ]


def test_lba28_is_automatic_without_48_bit_lba(tmp_path):
    fake = FakeSATATarget(str(tmp_path), sectors=1 << 20, lba48=False)
    try:
        with Target("127.0.0.1", fake.port, fake.csr_csv, timeout=2.0) as t:
            s = session(t)
            assert s.lba28 and s.max_command == 256
            res = experiments.run("single", s)
            assert res["rows"][0]["sectors"] == 256 and "no 48-bit LBA" in res["parameters"]["command_set"]
            with pytest.raises(TargetError, match=r"1..256 \(28-bit commands\)"):
                experiments.run("single", s, sectors=512)
        assert [r["lba28"] for r in fake.runs] == [1]
    finally:
        fake.close()


def test_hwloop_and_overhead(fake, target):
    s = session(target)
    res = experiments.run("hwloop", s, loops=4, sectors=64)
    host, hw = res["rows"]
    assert host["read_cycles"] == 4 * lat(64) + 3 * 50_000 and hw["read_cycles"] == 4 * lat(64) + 300
    assert hw["read_mbps"] == pytest.approx(mbps(4 * 64 * 512, hw["read_cycles"]), rel=1e-12)
    assert host["write_mbps"] is None
    res = experiments.run("overhead", s, loops=3, sectors=8)
    rows = {r["circuit"]: r for r in res["rows"]}
    assert rows["host loop"]["avg_us"] == pytest.approx(510.0) and rows["host loop"]["gaps"] == 2
    assert rows["state machine"]["min_us"] == pytest.approx(11.0)
    with pytest.raises(TargetError, match="loops >= 2"):
        experiments.run("overhead", s, loops=1)


@pytest.mark.parametrize("fn, kwargs, message", [
    ("single", {"sectors": 0}, r"single: sectors per command must be 1..65536"),
    ("long", {"loops": 2, "sectors": 0}, r"long: sectors per command must be 1..65536"),
    ("hwloop", {"loops": 2, "sectors": 0}, r"hwloop: sectors per command must be 1..65536"),
    ("lba28", {"count": 0}, r"lba28: empty or negative LBA range"),
    ("verify", {"count": 0, "check": True}, r"verify: empty or negative LBA range"),
])
def test_zero_sizes_are_refused_not_taken_as_the_default(fake, target, fn, kwargs, message):
    # single --sectors 0 used to run the largest command
    with pytest.raises(TargetError, match=message):
        experiments.run(fn, session(target), **kwargs)
    assert fake.runs == [] and fake.written("sata_bench_") == []


def test_long_loop_counts_and_average(fake, target):
    res = experiments.run("long", session(target), loops=5, sectors=16)
    assert [r["loop_count"] for r in res["rows"]] == [1, 2, 4, 5]
    expect = [mbps(n * 16 * 512, n * lat(16) + (n - 1) * 50_000) for n in (1, 2, 4, 5)]
    assert [r["read_mbps"] for r in res["rows"]] == pytest.approx(expect, rel=1e-12)
    assert res["summary"]["average_read_mbps"] == pytest.approx(sum(expect) / 4, rel=1e-12)


def test_latency_drops_min_and_max(fake, target):
    res = experiments.run("latency", session(target), min_kib=16, max_kib=64, runs=4)
    assert [r["kib"] for r in res["rows"]] == [16, 32, 64]
    r = res["rows"][1]
    assert r["avg_cycles"] == lat(64) and r["first_cycles"] == lat(64)
    assert r["mbps"] == pytest.approx(mbps(32 * 1024, lat(64)), rel=1e-12)
    assert len(fake.runs) == 12


def test_random_iops(fake, target):
    res = experiments.run("random", session(target, lba_range=(0, 4096)), n=10, max_sectors=4)
    assert [r["sectors"] for r in res["rows"]] == [1, 2, 4]
    r = res["rows"][2]
    cycles = 10 * lat(4) + 9 * 100
    assert r["random_cycles"] == cycles and r["random_iops"] == pytest.approx(10 * F / cycles, rel=1e-12)
    assert [x["random"] for x in fake.runs] == [1, 0] * 3
    assert all(x["lba_range"] == 4096 for x in fake.runs)


def test_access_percentiles_and_histogram(fake, target):
    res = experiments.run("access", session(target), n=7, seed=5)
    assert [r["lba"] for r in res["rows"]] == xorshift_lbas(5, 0, fake.sectors, 7)
    assert [x["lba_base"] for x in fake.runs] == [r["lba"] for r in res["rows"]]
    assert all(r["first_data_cycles"] == 1000 for r in res["rows"])
    assert res["summary"]["median_us"] == pytest.approx(10.0)
    assert res["summary"]["histogram"] == [{"bucket": 9, "from_cycles": 512, "below_cycles": 1024,
                                            "from_us": 5.12, "below_us": 10.24, "count": 7}]
    lat = res["summary"]["latency"]     # 7 samples of 1,000 cycles at 100 MHz
    assert (lat["samples"], lat["min_cycles"], lat["max_cycles"], lat["mean_cycles"]) == (7, 1000, 1000, 1000)
    assert lat["stdev_cycles"] == 0 and lat["mean_us"] == pytest.approx(10.0)
    p50, p90 = lat["percentiles"][:2]
    assert (p50["bucket"], p50["at_least_cycles"], p50["at_most_cycles"]) == (9, 1000, 1000)
    assert p90["needs_samples"] == 10 and p90["at_most_us"] is None     # 7 samples are too few
    assert any("upper bound" in n for n in res["notes"])


def test_cpu_path_timed_by_uptime(fake, target):
    res = experiments.run("cpu", session(target), count=32)
    bridge, e16, big = res["rows"]
    assert bridge["cycles"] == 2 * fake.model.buffer_cycles
    assert bridge["mbps"] == pytest.approx(mbps(32 * 512, 2 * 400_000), rel=1e-12)
    assert e16["cycles"] == 2 * lat(16) + 100 and big["cycles"] == lat(32)
    assert big["ratio"] == pytest.approx(big["mbps"] / bridge["mbps"])


def test_verify_counts_mismatches(fake, target):
    fake.model.bad_lbas = {150, 170}
    s = session(target, allow_write=True, lba_range=(100, 300))
    res = experiments.run("verify", s)
    r = res["rows"][0]
    assert (r["bad_sectors"], r["bad_dwords"], r["first_bad_lba"], r["result"]) == (2, 6, 150, "FAIL")
    assert fake.runs[-1]["op"] == bc.OP_WRITE_VERIFY and fake.runs[-1]["verify"] == 1
    assert not res["summary"]["passed"]


def test_lba28_experiment_uses_256_sector_commands(fake, target):
    res = experiments.run("lba28", session(target), count=600)
    r = res["rows"][0]
    assert (r["sectors"], r["commands"]) == (600, 3)
    assert [(x["sectors"], x["commands"], x["lba28"]) for x in fake.runs] == [(256, 2, 1), (88, 1, 1)]
    assert r["cycles"] == 2 * lat(256) + 100 + lat(88)


def test_spans_are_checked_before_any_engine_write(fake, target):
    s = session(target, allow_write=True, lba_range=(fake.sectors - 100, 50))
    with pytest.raises(TargetError, match="needs LBAs .* outside --range"):
        experiments.run("single", s, sectors=100, write=True)
    s = session(target)
    with pytest.raises(TargetError, match="outside the drive"):
        s.check_span("x", fake.sectors - 10, 11)
    with pytest.raises(TargetError, match="--allow-write"):
        experiments.run("single", s, write=True)
    assert fake.written("sata_bench_") == [] and fake.written("sata_buffer_") == []


# report ------------------------------------------------------------------------------------------

def documented_keys():
    """Keys listed in doc/bench-json.md: {section: [keys]} and per experiment params/summary/rows."""
    text = open(os.path.join(REPO, "doc", "bench-json.md")).read()
    sections, exp = {}, {}
    for block in re.split(r"^(?=##+ )", text, flags=re.M):
        head = block.splitlines()[0] if block.startswith("#") else ""
        keys = re.findall(r"^\| `(\w+)` \|", block, flags=re.M)
        m = re.match(r"### `(\w+)`", head)
        if m:
            line = lambda name: re.findall(r"`(\w+)`", (re.search(rf"^{name}:(.*?)(?:\n\S+:|\n\n|\Z)", block,
                                                                   flags=re.M | re.S) or [None, ""])[1])
            exp[m.group(1)] = {"rows": keys, "parameters": line("Parameters"),
                               "summary": [k for k in line("Summary") if k not in
                                           ("bucket", "from_cycles", "below_cycles", "from_us", "below_us", "count")]}
        elif head.startswith("## "):
            sections[head[3:].strip().strip("`")] = keys
    return sections, exp


def test_doc_lists_every_experiment():
    sections, exp = documented_keys()
    assert set(exp) == set(experiments.NAMES)
    assert sections["Top level"][:3] == ["tool", "version", "experiment"]


@pytest.mark.parametrize("name,kwargs", [
    ("single", {}), ("long", dict(loops=3, sectors=8)), ("hwloop", dict(loops=2, sectors=8)),
    ("overhead", dict(loops=2, sectors=8)), ("lba28", dict(count=300)),
    ("latency", dict(max_kib=32, runs=3)), ("cpu", dict(count=16)), ("access", dict(n=3)),
    ("random", dict(n=3, max_sectors=2)), ("quick", dict(loops=2, n=4, seq_n=2, seq_sectors=16)),
    ("verify", dict(count=64)), ("steady", dict(rounds=5, commands=8, fob=True)),
    ("wsat", dict(until=1.0)),
])
def test_json_has_the_documented_keys(fake, target, tmp_path, name, kwargs):
    s = session(target, allow_write=True, lba_range=(0, 1024), drive_state=True)
    res = experiments.run(name, s, **kwargs)
    path = str(tmp_path / "out" / f"{name}.json")
    report.write_json(path, report.document(res, s))
    doc = json.load(open(path))
    sections, exp = documented_keys()
    assert list(doc) == sections["Top level"]
    for part in ("target", "drive", "link", "drive_state"):
        assert list(doc[part]) == sections[part], part
    for when in ("before", "after"):
        assert list(doc["drive_state"][when]) == sections["Drive state"], when
    assert doc["tool"] == "ecpsata-bench" and doc["version"] == 3 and doc["experiment"] == name
    assert doc["target"]["sys_clk_hz"] == F and doc["target"]["git_rev"] == "1234abcd"
    assert doc["drive"]["sectors"] == fake.sectors and doc["link"]["gen"] == 2
    assert list(doc["parameters"]) == exp[name]["parameters"]
    assert list(doc["summary"]) == exp[name]["summary"]
    assert doc["rows"] and all(list(r) == exp[name]["rows"] for r in doc["rows"])
    # the table names every row (or the summary, for access)
    table = report.render(res)
    assert table.startswith(f"{name}: ") and len(table.splitlines()) >= 4


def test_csv_and_plot(fake, target, tmp_path):
    res = experiments.run("random", session(target), n=3, max_sectors=4)
    report.write_csv(str(tmp_path / "r.csv"), res)
    lines = open(tmp_path / "r.csv").read().splitlines()
    assert lines[0] == "sectors,bytes_per_request,random_iops,random_mbps,random_cycles,seq_iops,seq_mbps,seq_cycles"
    assert len(lines) == 4 and lines[1].startswith("1,512,")
    for name, r in (("random", res), ("latency", experiments.run("latency", session(target), max_kib=32, runs=3)),
                    ("access", experiments.run("access", session(target), n=5)),
                    ("long", experiments.run("long", session(target), loops=2, sectors=8)),
                    ("hwloop", experiments.run("hwloop", session(target), loops=2, sectors=8))):
        png = tmp_path / f"{name}.png"
        report.write_plot(str(png), r)
        data = png.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000


def test_latency_object_has_the_documented_keys(fake, target, tmp_path):
    from tests.host.test_runlatency import documented_latency_keys
    top, pct = documented_latency_keys()
    res = experiments.run("access", session(target), n=3)
    report.write_json(str(tmp_path / "a.json"), report.document(res, session(target)))
    lat = json.load(open(tmp_path / "a.json"))["summary"]["latency"]
    assert list(lat) == top
    assert [list(p) for p in lat["percentiles"]] == [pct] * 5
    assert [p["percentile"] for p in lat["percentiles"]] == [50, 90, 99, 99.9, 99.99]


def test_access_csv_writes_the_latency_statistics_beside(fake, target, tmp_path):
    res = experiments.run("access", session(target), n=12)
    report.write_csv(str(tmp_path / "a.csv"), res)
    lines = (tmp_path / "a-latency.csv").read_text().splitlines()
    assert lines[0] == "statistic,samples,value_cycles,value_us,at_least_cycles,at_least_us,bound"
    stats = {line.split(",")[0]: line.split(",") for line in lines[1:]}
    assert list(stats) == ["min", "mean", "stdev", "max", "p50", "p90", "p99", "p99.9", "p99.99"]
    assert stats["p90"][1:6] == ["12", "1000", "10.0", "1000", "10.0"]
    assert stats["p99"][2:6] == ["", "", "", ""] and "needs at least 100" in stats["p99"][6]
    hist = (tmp_path / "a-histogram.csv").read_text().splitlines()
    assert hist == ["bucket,from_cycles,below_cycles,from_us,below_us,count",
                    "9,512,1024,5.12,10.24,12"]


def test_table_prints_dashes_for_unmeasured_values():
    text = tables.table([("a", "a", "{}"), ("MB/s", "m", "{:.2f}")], [{"a": "x", "m": None}, {"a": "y", "m": 1.5}])
    assert text.splitlines() == ["a  MB/s", "x     -", "y  1.50"]


def test_make_bench_reads_the_drives_state_and_the_fault_checks_do_not():
    """`make bench`'s suite carries --drive-state (its report shows the drive's temperature and
    sectors written before and after); the fault matrix and the fuzzer make their own Session
    without it, so the FIS numbering their faults count on stays as it was."""
    import inspect
    from ecpsata.checks import fault_matrix, fuzz
    text = open(os.path.join(REPO, "Makefile")).read()
    suite_args = re.search(r"^SUITE_ARGS\s*\?=(.*)$", text, flags=re.M).group(1).split()
    assert "--drive-state" in suite_args
    bench_rule = text[text.index("\nbench:"):]
    assert "suite $(SUITE_ARGS)" in bench_rule
    assert inspect.signature(Session).parameters["drive_state"].default is False
    for module in (fault_matrix, fuzz):
        source = inspect.getsource(module)
        sessions = re.findall(r"Session\(([^)]*)\)", source)
        assert sessions and all("drive_state" not in args for args in sessions), module
        assert "SUITE_ARGS" not in source and "--drive-state" not in source
