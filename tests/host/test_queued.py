# SPDX-License-Identifier: BSD-2-Clause
"""ecpsata/host/queued.py and `random --qd` against the fake queued engine (tests/support/fake_queued.py).

The fake drive serves up to 8 queued commands at once, each for 1000 + 256 * sectors cycles at
100 MHz, so with p = min(qd, 8) a run of n commands takes ceil(n / p) service times; the tests
derive every figure from that rule, independently of the model's event loop, and assert the
registers the host wrote and that refusals write nothing.
"""

import csv
import json
import math

import pytest

from ecpsata.engines import common as bc
from ecpsata.host import argtypes, cli, experiments
from ecpsata.host.experiments.random import qd_plot_row
from ecpsata.host.session import Session
from ecpsata.host.queued import QueuedEngineDriver
from ecpsata.host.target import Target, TargetError
from ecpsata.host.engine import RunError
from tests.support import fake_target
from tests.support.fake_queued import QueuedEngineFake, QueuedModel
from tests.support.fake_target import FakeSATATarget

F = 100_000_000
PARALLEL = 8
N = 40


def service(sectors):
    return 1000 + 256 * sectors


def expected(sectors, qd, n=N, parallel=PARALLEL):
    """IOPS, MB/s, average latency (us) and depth of n commands at queue depth qd. Commands
    complete in FIFO waves of p = min(qd, parallel); command k is issued at 0 when k < qd, else
    when command k - qd completes."""
    p = min(qd, parallel)
    done = [(k // p + 1) * service(sectors) for k in range(n)]
    issue = [0 if k < qd else done[k - qd] for k in range(n)]
    cycles = max(done)
    return {"iops": n * F / cycles, "mbps": n * sectors * 512 / (cycles / F) / 1e6,
            "lat_us": sum(d - i for d, i in zip(done, issue)) / n / 100, "depth": min(qd, n),
            "cycles": cycles}


@pytest.fixture
def qfake(tmp_path):
    t = FakeSATATarget(str(tmp_path), with_queued=True, queued_model=QueuedModel(parallel=PARALLEL))
    yield t
    t.close()


def run_cli(capsys, fake, *argv):
    rc = cli.main(["--port", str(fake.port), "--csr-csv", fake.csr_csv, *argv])
    out, err = capsys.readouterr()
    return rc, out, err


# random --qd end to end ---------------------------------------------------------------------------

def test_random_qd_figures_equal_the_model_in_table_json_csv_and_plot(qfake, capsys, tmp_path):
    files = {k: str(tmp_path / f"r.{k}") for k in ("json", "csv", "png")}
    rc, out, err = run_cli(capsys, qfake, "random", "-n", str(N), "--max", "16", "--qd", "32,1,4",
                           "--qd-seq", "--json", files["json"], "--csv", files["csv"],
                           "--plot", files["png"])
    assert rc == 0, err
    doc = json.load(open(files["json"]))
    p = doc["parameters"]
    assert p["queue_depths"] == [1, 4, 32] and p["queue_depth"] == 1 and p["queued_sequential"]
    assert doc["drive"]["ncq"] is True and doc["drive"]["queue_depth"] == 32
    rows = doc["rows"]
    with open(files["csv"]) as f:
        csv_rows = list(csv.DictReader(f))
    assert [r["sectors"] for r in rows] == [1, 2, 4, 8, 16] == [int(r["sectors"]) for r in csv_rows]
    for row, crow in zip(rows, csv_rows):
        for qd in (1, 4, 32):
            want = expected(row["sectors"], qd)
            for prefix in (f"qd{qd}_", f"qd{qd}_seq_"):
                for k, v in want.items():
                    assert row[prefix + k] == pytest.approx(v, rel=1e-12), (prefix, k)
                    assert float(crow[prefix + k]) == pytest.approx(v, rel=1e-12)
            line = (f"{row['sectors']} {qd} {want['iops']:.0f} {want['mbps']:.2f} "
                    f"{want['lat_us']:.2f} {want['depth']} {want['iops']:.0f} {want['mbps']:.2f}")
            assert line in [" ".join(x.split()) for x in out.splitlines()], line
    # QD 1 through the queued engine and the non-queued columns stay side by side.
    assert rows[3]["random_iops"] > 0 and "random_cycles" in rows[3]
    assert open(files["png"], "rb").read(8) == b"\x89PNG\r\n\x1a\n"
    # What the host asked for, in order: per size, per depth, random then sequential.
    runs = qfake.qbench.runs
    assert [(r["sectors"], r["qd"], r["random"]) for r in runs] == [
        (s, qd, rnd) for s in (1, 2, 4, 8, 16) for qd in (1, 4, 32) for rnd in (1, 0)]
    span = qfake.sectors
    for r in runs:
        assert (r["op"], r["commands"], r["lba_base"], r["seed"], r["stop_on_error"]) == \
            (bc.OP_READ, N, 0, 1, 1)
        assert r["lba_range"] == span // r["sectors"] * r["sectors"] and r["capacity"] == span


def test_queued_only_from_min_size_runs_no_dma_and_plots(qfake, capsys, tmp_path):
    """--queued-only --min 8: sizes 8 and 16 only, no READ DMA EXT run, figures as the model's."""
    files = {k: str(tmp_path / f"q.{k}") for k in ("json", "png")}
    bench_runs = []
    qfake.comm.write_hooks[qfake.addr("sata_bench_control")] = bench_runs.append
    rc, out, err = run_cli(capsys, qfake, "random", "-n", str(N), "--min", "8", "--max", "16",
                           "--qd", "1,8", "--queued-only", "--json", files["json"],
                           "--plot", files["png"])
    assert rc == 0, err
    doc = json.load(open(files["json"]))
    assert doc["parameters"]["queued_only"] is True and doc["parameters"]["min_sectors"] == 8
    assert [r["sectors"] for r in doc["rows"]] == [8, 16]
    for row in doc["rows"]:
        assert "random_iops" not in row
        assert row["qd8_iops"] == pytest.approx(expected(row["sectors"], 8)["iops"], rel=1e-12)
    assert bench_runs == []
    assert [(r["sectors"], r["qd"]) for r in qfake.qbench.runs] == [(8, 1), (8, 8), (16, 1), (16, 8)]
    assert open(files["png"], "rb").read(8) == b"\x89PNG\r\n\x1a\n"


def test_without_qd_the_random_experiment_is_unchanged(qfake, tmp_path, capsys):
    (tmp_path / "plain").mkdir()
    plain = FakeSATATarget(str(tmp_path / "plain"))
    try:
        outs = []
        for fake in (qfake, plain):
            path = str(tmp_path / f"{len(outs)}.json")
            rc, out, err = run_cli(capsys, fake, "random", "-n", "3", "--max", "4", "--json", path)
            assert rc == 0, err
            outs.append((out, json.load(open(path))))
        assert outs[0][0] == outs[1][0] and "queued" not in outs[0][0]
        a, b = outs[0][1], outs[1][1]
        assert a["rows"] == b["rows"] and a["parameters"] == b["parameters"]
        assert set(a["parameters"]) == {"lba", "range", "n", "max_sectors", "seed", "queue_depth",
                                        "lba28", "command_set", "flush", "write_cache"}
        assert set(a["rows"][0]) == {"sectors", "bytes_per_request", "random_iops", "random_mbps",
                                     "random_cycles", "seq_iops", "seq_mbps", "seq_cycles"}
        assert qfake.qbench.runs == [] and not qfake.written("sata_qbench_")
    finally:
        plain.close()


# refusals: readable, before anything is sent -------------------------------------------------------

@pytest.mark.parametrize("kwargs,argv,message", [
    (dict(ncq=False), ["--qd", "1,4"],
     "the drive does not advertise NCQ (IDENTIFY word 76 bit 8)"),
    (dict(queue_depth=8), ["--qd", "1,16"],
     "queue depth 16 is above the 8 commands the drive advertises (IDENTIFY word 75)"),
    (dict(with_queued=False), ["--qd", "4"], "this gateware has no queued engine (no "
                                             "sata_qbench_control in"),
    (dict(), ["--qd", "4", "--lba28"], "queued commands address 48-bit LBAs"),
], ids=["no-ncq", "too-deep", "no-engine", "lba28"])
def test_queued_runs_are_refused_before_anything_is_sent(tmp_path, capsys, kwargs, argv, message):
    fake = FakeSATATarget(str(tmp_path), **dict(dict(with_queued=True), **kwargs))
    try:
        json_path = tmp_path / "r.json"
        rc, out, err = run_cli(capsys, fake, "random", "-n", "4", "--max", "2", *argv,
                               "--json", str(json_path))
        assert rc == 2 and message in err, err
        assert "Traceback" not in err and not json_path.exists()
        assert fake.runs == [] and not fake.written("sata_bench_")
        assert not fake.written("sata_qbench_")
        if hasattr(fake, "qbench"):
            assert fake.qbench.runs == []
    finally:
        fake.close()


@pytest.mark.parametrize("value", ["0", "33", "a,b", "1,,2", "", "4;8", "-1"])
def test_bad_qd_lists_are_refused_while_parsing(qfake, capsys, value):
    with pytest.raises(SystemExit) as e:
        run_cli(capsys, qfake, "random", "--qd", value)
    err = capsys.readouterr().err
    assert e.value.code == 2
    assert f"argument --qd: must be a comma list of queue depths 1..{bc.QD_MAX}" in err
    assert qfake.comm.writes == []


@pytest.mark.parametrize("flag", ["--qd-seq", "--queued-only"])
def test_queued_flags_need_qd(qfake, capsys, flag):
    with pytest.raises(SystemExit):
        run_cli(capsys, qfake, "random", flag)
    assert "--qd-seq and --queued-only need --qd LIST" in capsys.readouterr().err
    assert qfake.comm.writes == []


def test_qd_list_is_sorted_and_each_depth_once():
    assert argtypes.queue_depths("32,1,4,4, 2") == [1, 2, 4, 32]
    assert argtypes.queue_depths("0x10") == [16]


# NCQ errors ---------------------------------------------------------------------------------------

def test_an_ncq_error_names_the_tag_the_lba_and_the_reissued_commands(qfake, capsys, tmp_path):
    qfake.qbench.model.fail_command = 13
    path = tmp_path / "err.json"
    rc, out, err = run_cli(capsys, qfake, "random", "-n", str(N), "--max", "1", "--qd", "32",
                           "--json", str(path))
    lba = bc.random_lbas(1, 0, qfake.sectors, 1, N)[13]
    # Commands 0..31 went out at once with tags 0..31; 13 ends in the second wave of 8, while
    # 16..31 and the 8 issued after the first wave are still in flight: 3 of them aborted.
    assert rc == 2
    assert (f"the drive reported an NCQ error on tag 13 at LBA {lba} (device error); "
            f"3 aborted commands were re-issued") in err, err
    doc = json.load(open(path))
    assert doc["error"]["ncq"] == {"errors": 1, "reason": "device error", "tag": 13, "lba": lba}
    assert doc["error"]["reason"] == "device error"


@pytest.fixture
def qtarget(qfake):
    with Target("127.0.0.1", qfake.port, qfake.csr_csv, timeout=2.0) as t:
        yield t


def test_stop_on_error_off_runs_to_the_end_and_counts_the_failure(qfake, qtarget):
    qfake.qbench.model.fail_command = 5
    qfake.qbench.model.fail_reason = 5
    r = QueuedEngineDriver(qtarget, qfake.sectors).run("read", sectors=4, commands=N, qd=4,
                                                 lba_range=4 * N, stop_on_error=False)
    assert (r["completed"], r["errors"], r["bytes"]) == (N, 1, (N - 1) * 4 * 512)
    assert r["ncq"] == {"errors": 1, "reason": "completion timeout", "tag": 1, "lba": 20}
    assert qfake.qbench.runs[-1]["stop_on_error"] == 0


def test_a_timeout_resets_the_link(qfake, qtarget):
    qfake.qbench.model.timeout = True
    with pytest.raises(RunError) as e:
        QueuedEngineDriver(qtarget, qfake.sectors).run("read", sectors=8, commands=4, qd=2)
    assert "did not complete within its timeout" in str(e.value) and "COMRESET" in str(e.value)
    off = qfake.fields["sata_phy_control"]["restart"][0]
    assert any(v >> off & 1 for _, v in qfake.written("sata_phy_control"))


def test_a_link_drop_is_reported(qfake, qtarget):
    qfake.qbench.model.drop_link = True
    with pytest.raises(RunError, match="SATA link dropped during the run"):
        QueuedEngineDriver(qtarget, qfake.sectors).run("read", sectors=8, commands=4, qd=2)


# the driver ---------------------------------------------------------------------------------------

def test_the_driver_writes_what_it_is_asked(qfake, qtarget):
    r = QueuedEngineDriver(qtarget, qfake.sectors).run("write", lba=100, sectors=8, commands=10, qd=5,
                                                 lba_range=800, random=True, seed=9)
    run = qfake.qbench.runs[-1]
    assert (run["op"], run["random"], run["qd"], run["lba_base"], run["lba_range"], run["sectors"],
            run["commands"], run["seed"]) == (bc.OP_WRITE, 1, 5, 100, 800, 8, 10, 9)
    assert r["last_lba"] == bc.random_lbas(9, 100, 800, 8, 10)[-1]
    want = expected(8, 5, n=10)
    assert (r["cycles"], r["depth_max"], r["completed"], r["errors"]) == (want["cycles"], 5, 10, 0)
    assert r["lat"] == {"min": service(8), "max": service(8), "sum": 10 * service(8), "count": 10}
    assert r["ncq"] == {"errors": 0, "reason": "none", "tag": None, "lba": None}
    assert "mismatch_sectors" not in r and "gap" not in r   # the queued engine has none


@pytest.mark.parametrize("kwargs,message", [
    (dict(verify=True), "has no verify mode"), (dict(op="write_verify"), "not write_verify"),
    (dict(qd=0), "queue depth 0: must be 1..32"), (dict(qd=33), "queue depth 33"),
    (dict(hist_source="gap"), "has no hist_source mode"),
])
def test_the_driver_refuses_what_the_engine_cannot_do(qfake, qtarget, kwargs, message):
    with pytest.raises(TargetError, match=message):
        QueuedEngineDriver(qtarget, qfake.sectors).run(**dict(dict(op="read", qd=4), **kwargs))
    assert not qfake.written("sata_qbench_") and qfake.qbench.runs == []


def test_parameters_the_gateware_refuses_are_reported(qfake, qtarget):
    with pytest.raises(RunError, match="the queued engine refused the parameters"):
        QueuedEngineDriver(qtarget, qfake.sectors).run("read", sectors=8, commands=4, qd=4, lba_range=4)


def test_config_fields_come_from_csr_fields_json(tmp_path):
    fake = FakeSATATarget(str(tmp_path), with_queued=True)
    try:
        reg = "sata_qbench_config"
        fake.fields[reg] = {k: [o + 2, s] for k, (o, s) in fake.fields[reg].items()}
        with open(tmp_path / "csr_fields.json", "w") as f:
            json.dump(fake.fields, f)
        with Target("127.0.0.1", fake.port, fake.csr_csv, timeout=2.0) as t:
            QueuedEngineDriver(t, fake.sectors).run("write", sectors=1, commands=2, qd=2, random=True,
                                              stop_on_error=False)
        run = fake.qbench.runs[-1]
        assert (run["op"], run["random"], run["stop_on_error"]) == (bc.OP_WRITE, 1, 0)
        assert fake.get(reg) & 0b11 == 0
    finally:
        fake.close()


def test_progress_while_a_queued_run_is_in_flight(tmp_path):
    fake = FakeSATATarget(str(tmp_path), with_queued=True, queued_model=QueuedModel(busy_reads=5))
    try:
        seen = []
        with Target("127.0.0.1", fake.port, fake.csr_csv, timeout=2.0) as t:
            QueuedEngineDriver(t, fake.sectors, on_progress=seen.append).run(
                "read", sectors=16, commands=N, qd=8, label="qd8")
        nbytes = [p["bytes"] for p in seen]
        assert len(seen) >= 5 and nbytes == sorted(nbytes) and nbytes[0] < nbytes[-1] == N * 16 * 512
        assert all(p["mismatches"] == 0 and p["label"] == "qd8" for p in seen)
        assert seen[-1]["cycles"] == math.ceil(N / 8) * service(16)
    finally:
        fake.close()


# report -------------------------------------------------------------------------------------------

def test_the_qd_plot_takes_4_kib_or_the_nearest_size():
    rows = lambda *sizes: [{"sectors": s} for s in sizes]
    assert qd_plot_row(rows(1, 2, 4, 8, 16))["sectors"] == 8
    assert qd_plot_row(rows(1, 2, 4))["sectors"] == 4
    assert qd_plot_row(rows(16, 32))["sectors"] == 16


def test_suite_random_without_qd_never_opens_the_queued_engine(qfake, qtarget):
    s = Session(qtarget, timeout=2.0)
    experiments.run("random", s, n=2, max_sectors=2)
    assert s.qengine is None and qfake.qbench.runs == []


# read/write mix (--mix) ---------------------------------------------------------------------------

class MixFake(QueuedEngineFake):
    """The fake queued engine with the gateware's mix: op mix takes each command's op from
    common.mix_ops(seed, mix), completed_reads / completed_writes split `completed` by op (op
    read and write count too) and a mix above 256 writes per 256 is refused. Timing is the
    model's, the same for reads and writes."""
    def _clear(self):
        super()._clear()
        self.set("completed_reads", 0)
        self.set("completed_writes", 0)

    def _refused(self, cfg, p):
        return super()._refused(cfg, p) or (cfg["op"] == bc.OP_MIX and self.get("mix") > bc.MIX_ONE)

    def _start(self):
        super()._start()
        self.runs[-1]["mix"] = self.get("mix")

    def _run(self, cfg, p):
        reason = super()._run(cfg, p)
        done = self.get("completed")
        writes = (sum(bc.mix_ops(p["seed"], self.get("mix"), done)) if cfg["op"] == bc.OP_MIX
                  else done * (cfg["op"] == bc.OP_WRITE))
        self.set("completed_reads", done - writes)
        self.set("completed_writes", writes)
        return reason


@pytest.fixture
def mfake(tmp_path):
    t = FakeSATATarget(str(tmp_path), with_queued=True, queued_model=QueuedModel(parallel=PARALLEL))
    t.qbench = MixFake(t, t.qbench.model)
    yield t
    t.close()


MIX_RANGE = ["--allow-write", "--range", "0:4096"]


def test_random_mix_rows_counts_and_latency_in_json_and_csv(mfake, capsys, tmp_path):
    """--mix 70 at QD 1 and 8 beside the queued reads: each mix run asks the engine for 77
    writes in 256 (op mix, the same range and seed as the reads), the row carries the model's
    IOPS, MB/s and latency under qd<N>_mix_* and the split the counters report (reads, writes,
    read_percent), the latency summary has a mix entry per run, and the reads are unchanged."""
    files = {k: str(tmp_path / f"m.{k}") for k in ("json", "csv")}
    rc, out, err = run_cli(capsys, mfake, "random", "-n", str(N), "--max", "2", "--qd", "1,8",
                           "--queued-only", "--mix", "70", *MIX_RANGE, "--json", files["json"],
                           "--csv", files["csv"])
    assert rc == 0, err
    doc = json.load(open(files["json"]))
    p = doc["parameters"]
    assert (p["mix_read_percent"], p["mix_writes_per_256"], p["queued_ops"]) == (70, 77, ["read"])
    writes = sum(bc.mix_ops(1, 77, N))
    assert 0 < writes < N
    with open(files["csv"]) as f:
        crow = list(csv.DictReader(f))
    for row, c in zip(doc["rows"], crow):
        for qd in (1, 8):
            want = expected(row["sectors"], qd)
            for prefix in (f"qd{qd}_", f"qd{qd}_mix_"):
                for k, v in want.items():
                    assert row[prefix + k] == pytest.approx(v, rel=1e-12), (prefix, k)
            m = f"qd{qd}_mix_"
            assert (row[m + "reads"], row[m + "writes"]) == (N - writes, writes)
            assert row[m + "read_percent"] == pytest.approx(100 * (N - writes) / N)
            assert int(c[m + "writes"]) == writes
            assert float(c[m + "iops"]) == pytest.approx(want["iops"])
            assert row[m + "p50_us"] is not None
    entries = doc["summary"]["queued_latency"]
    mixes = [e for e in entries if e["op"] == "mix"]
    assert [(e["sectors"], e["queue_depth"]) for e in mixes] == [(1, 1), (1, 8), (2, 1), (2, 8)]
    assert all(e["mix_read_percent"] == 70 and e["latency"]["samples"] == N for e in mixes)
    assert any("qd<N>_mix_*" in n and "77/256" in n for n in doc["notes"])
    runs = mfake.qbench.runs
    assert [(r["sectors"], r["qd"], r["op"]) for r in runs] == [
        (s, qd, op) for s in (1, 2) for qd in (1, 8) for op in (bc.OP_READ, bc.OP_MIX)]
    assert all(r["mix"] == 77 for r in runs if r["op"] == bc.OP_MIX)
    assert "mix" in out            # the latency table names the mix runs


@pytest.mark.parametrize("argv", [["--mix", "70"], ["--mix", "100", "--allow-write"],
                                  ["--mix", "0", "--range", "0:4096"]],
                         ids=["neither", "no-range", "no-allow-write"])
def test_a_mix_needs_allow_write_and_range(mfake, capsys, argv):
    """Even --mix 100 (no write drawn): a mix is a write run, refused before connecting."""
    with pytest.raises(SystemExit) as e:
        run_cli(capsys, mfake, "random", "-n", "4", "--max", "2", "--qd", "4", *argv)
    assert e.value.code == 2
    assert ("random writes to the drive: add --allow-write and --range LBA:COUNT"
            in capsys.readouterr().err)
    assert mfake.qbench.runs == [] and mfake.runs == [] and mfake.comm.writes == []


def test_a_mix_needs_qd_and_a_percentage(mfake, capsys):
    for bad, message in (("101", "must be 0..100"), ("-1", "must be 0..100"), ("x", "")):
        with pytest.raises(SystemExit) as e:
            run_cli(capsys, mfake, "random", "--qd", "4", "--mix", bad, *MIX_RANGE)
        assert e.value.code == 2
        assert f"argument --mix: {message}" in capsys.readouterr().err
    assert mfake.comm.writes == []
    with pytest.raises(SystemExit) as e:      # refused before connecting
        run_cli(capsys, mfake, "random", "-n", "4", "--max", "2", "--mix", "50", *MIX_RANGE)
    assert e.value.code == 2
    assert "--mix runs queued reads and writes: it needs --qd LIST" in capsys.readouterr().err
    assert mfake.runs == [] and mfake.qbench.runs == [] and not mfake.written("sata_qbench_")


@pytest.fixture
def mtarget(mfake):
    with Target("127.0.0.1", mfake.port, mfake.csr_csv, timeout=2.0) as t:
        yield t


@pytest.mark.parametrize("op,percent,mix", [("mix", 30, 179), ("mix", 100, 0), ("mix", 0, 256),
                                            ("read", None, None), ("write", None, None)])
def test_the_driver_runs_a_mix_and_splits_completed(mfake, mtarget, op, percent, mix):
    kwargs = {"read_percent": percent} if op == "mix" else {}
    r = QueuedEngineDriver(mtarget, mfake.sectors).run(op, lba=100, sectors=8, commands=N, qd=8,
                                                 lba_range=8 * N, seed=9, **kwargs)
    run = mfake.qbench.runs[-1]
    assert run["op"] == bc.QUEUED_OPS[op] and run["seed"] == 9
    writes = sum(bc.mix_ops(9, mix, N)) if op == "mix" else N * (op == "write")
    if op == "mix":
        assert run["mix"] == mix and writes == {0: 0, 256: N}.get(mix, writes)
        assert percent != 30 or 0 < writes < N
    assert (r["reads"], r["writes"], r["completed"]) == (N - writes, writes, N)


@pytest.mark.parametrize("kwargs,message", [
    (dict(op="mix"), "read/write mix \\(op mix\\) and its read percentage go together"),
    (dict(op="read", read_percent=50), "go together"),
    (dict(op="mix", read_percent=101), "mix: 101 % reads: must be 0..100"),
    (dict(op="rw"), "runs read, write, mix, not rw"),
])
def test_the_driver_refuses_a_bad_mix_before_writing(mfake, mtarget, kwargs, message):
    with pytest.raises(TargetError, match=message):
        QueuedEngineDriver(mtarget, mfake.sectors).run(**dict(dict(qd=4), **kwargs))
    assert not mfake.written("sata_qbench_") and mfake.qbench.runs == []


def test_gateware_without_the_mix(tmp_path, monkeypatch, capsys):
    """A queued engine built before the mix: read and write runs as before (no reads / writes
    keys), a mix refused by name before anything is written."""
    old = [c for c in fake_target.qbench_csrs()
           if c[0] not in ("mix", "completed_reads", "completed_writes")]
    monkeypatch.setattr(fake_target, "qbench_csrs", lambda: old)
    fake = FakeSATATarget(str(tmp_path), with_queued=True)
    try:
        with Target("127.0.0.1", fake.port, fake.csr_csv, timeout=2.0) as t:
            r = QueuedEngineDriver(t, fake.sectors).run("write", sectors=1, commands=2, qd=2)
            assert r["completed"] == 2 and "reads" not in r and "writes" not in r
            with pytest.raises(TargetError, match="queued engine has no read/write mix \\(no "
                                                  "sata_qbench_mix in"):
                QueuedEngineDriver(t, fake.sectors).run("mix", read_percent=50, commands=2, qd=2)
        assert len(fake.qbench.runs) == 1
        rc, out, err = run_cli(capsys, fake, "random", "-n", "4", "--max", "1", "--qd", "2",
                               "--queued-only", "--mix", "50", *MIX_RANGE)
        assert rc == 2 and "has no read/write mix" in err and len(fake.qbench.runs) == 1
    finally:
        fake.close()
