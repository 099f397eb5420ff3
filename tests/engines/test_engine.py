# SPDX-License-Identifier: BSD-2-Clause
"""ECPSATABenchEngine against a model of the LiteSATA user port (tests/support/sata_port_model.py).

Every test checks values: the LBAs and counts the model saw, bytes, and min/max/sum of the cycle
measurements against the edges at which the model moved each beat. Streams get random
backpressure (read dwords offered at random, write dwords taken at random). Waveforms on demand:
ECPSATA_VCD=1 (tests/support/waves.py).
"""


import random

import pytest
from migen import *
from litesata.frontend.arbitration import LiteSATAUserPort

from ecpsata.engines.common import *
from ecpsata.engines.engine import ECPSATABenchEngine
from ecpsata.frontend.crossbar import ECPSATAUserPort
from ecpsata.frontend.port import BufferedUserPort
from tests.support.waves import vcd_path
from tests.support.sata_port_model import SATAPortModel, run_sorted_simulation

CAPACITY = 1 << 20


class DUT(Module):
    def __init__(self, lba28_port=True, **kwargs):
        self.port = ECPSATAUserPort(32) if lba28_port else LiteSATAUserPort(32)
        self.submodules.engine = ECPSATABenchEngine(self.port, sys_clk_freq=100e6, **kwargs)


class BufferedDUT(Module):
    """As in the SoC: the engine behind a BufferedUserPort, write timing taken where the core
    takes the data (the model plays the core)."""
    def __init__(self):
        self.port = ECPSATAUserPort(32)
        self.submodules.buf = BufferedUserPort(self.port)
        self.submodules.engine = ECPSATABenchEngine(self.buf, sys_clk_freq=100e6,
                                             write_beat=self.buf.write_beat)


def config_value(engine, **fields):
    value = 0
    for f in engine.config.fields.fields:
        v = fields.pop(f.name, f.reset.value)
        value |= int(v) << f.offset
    assert not fields, fields
    return value


def configure(engine, op="read", random=0, verify=0, lba28=0, fw_loop=0, stop_on_error=1,
              hist_source="latency", lba_base=0, lba_range=64, sectors=1, commands=1, seed=1,
              capacity=CAPACITY, timeout=0):
    yield from engine.config.write(config_value(engine, op=OPS[op], random=random, verify=verify,
                                                lba28=lba28, fw_loop=fw_loop,
                                                stop_on_error=stop_on_error,
                                                hist_source=HIST_SOURCES[hist_source]))
    for name, v in (("lba_base", lba_base), ("lba_range", lba_range), ("sectors", sectors),
                    ("commands", commands), ("seed", seed), ("capacity", capacity),
                    ("timeout", timeout)):
        yield from getattr(engine, name).write(v)


def pulse(csr, field):
    yield from csr.write(1 << getattr(csr.fields, field).offset)


def wait_idle(engine, limit=20000, snapshots=None):
    """Wait for the end of a run (state done/error); optionally latch a snapshot every N cycles."""
    yield                    # let `start` reach the FSM
    yield
    for n in range(limit):
        state = yield engine.status.fields.state
        if state != STATE_BUSY and (yield engine.idle):
            return
        if snapshots is not None and n % snapshots[0] == 0:
            yield engine.snapshot.fields.latch.eq(1)
            yield
            yield engine.snapshot.fields.latch.eq(0)
            snapshots[1].append(((yield engine.snap_bytes.status),
                                 (yield engine.snap_completed.status)))
        yield
    raise AssertionError("run did not end")


def results(engine):
    r = {}
    for name in ("cycles", "bytes", "completed", "errors", "mismatch_dwords", "mismatch_sectors",
                 "first_bad_lba", "last_lba", "snap_cycles", "snap_bytes", "snap_completed",
                 "snap_errors", "snap_mismatches"):
        r[name] = yield getattr(engine, name).status
    for name in STAT_SOURCES:
        v = []
        for w in ("min", "max", "sum", "count"):
            yield engine.stat_select.storage.eq(stat_entry(name, w))
            yield
            v.append((yield engine.stat_data.status))
        r[name] = tuple(v)
    r["state"]  = yield engine.status.fields.state
    r["reason"] = yield engine.status.fields.reason
    r["phase"]  = yield engine.status.fields.phase
    r["hist"] = []
    for b in range(HIST_BUCKETS):
        yield engine.hist_select.storage.eq(b)
        yield
        r["hist"].append((yield engine.hist_data.status))
    return r


def simulate(dut, model, body, name, others=()):
    """Runs `body()` against the port model; `others`: more generators beside them."""
    def model_gen():
        yield "passive"
        yield from model.generator()
    run_sorted_simulation(dut, [model_gen(), *others, body()], vcd_name=vcd_path(name))
    assert model.violations == [], model.violations


def run_engine(name, model_kwargs=None, snapshots_every=None, dut_kwargs=None, **cfg):
    dut = DUT(**(dut_kwargs or {}))
    model = SATAPortModel(dut.port, **(model_kwargs or {}))
    out, snaps = {}, []

    def body():
        yield from configure(dut.engine, **cfg)
        yield from pulse(dut.engine.control, "start")
        yield from wait_idle(dut.engine, snapshots=(snapshots_every, snaps) if snapshots_every else None)
        out.update((yield from results(dut.engine)))
    simulate(dut, model, body, name)
    out["snaps"] = snaps
    return out, model


def check_stats(r, model, entries=None):
    exp = model.stats(entries)
    assert r["lat"] == exp["lat"]
    assert r["first_data"] == exp["first_data"]
    assert r["gap"] == exp["gap"]
    return exp


# Hardware loop ------------------------------------------------------------------------------------

def test_sequential_read_lbas_counts_and_latencies():
    r, model = run_engine("seq_read", op="read", lba_base=100, lba_range=7, sectors=2, commands=5,
                          model_kwargs=dict(latency=15, accept_delay=3, status_latency=4,
                                            rate=0.7, fis_dwords=64, rng_seed=1))
    assert [e["lba"] for e in model.log] == [100, 102, 104, 100, 102]
    assert sequential_lbas(100, 7, 2, 5) == [100, 102, 104, 100, 102]
    assert all(e["read"] and not e["write"] and e["count"] == 2 for e in model.log)
    assert (r["state"], r["reason"]) == (STATE_DONE, REASON_OK)
    assert r["completed"] == 5 and r["errors"] == 0
    assert r["bytes"] == 5*2*512
    exp = check_stats(r, model)
    # Data arrives at a random rate, so latencies differ between commands; the model's own numbers
    # are the reference, and they are not trivial.
    assert exp["lat"][0] < exp["lat"][1]
    assert r["lat"][3] == 5 and r["gap"][3] == 4
    # Run time: first issue to last status.
    assert r["cycles"] == model.log[-1]["status"] - model.log[0]["issue"]
    assert sum(r["hist"]) == 5
    assert r["hist"] == [sum(1 for v in exp["lat_values"] if hist_bucket(v) == b)
                         for b in range(HIST_BUCKETS)]


def test_random_read_lbas_match_reference():
    base, rng_, sectors, n, seed = 1000, 41, 2, 10, 0x1234
    r, model = run_engine("rand_read", op="read", random=1, lba_base=base, lba_range=rng_,
                          sectors=sectors, commands=n, seed=seed,
                          model_kwargs=dict(latency=8, accept_delay=1, status_latency=2))
    lbas = [e["lba"] for e in model.log]
    assert lbas == random_lbas(seed, base, rng_, sectors, n)
    assert all(base <= l and l + sectors <= base + rng_ and (l - base) % sectors == 0 for l in lbas)
    assert len(set(lbas)) > 3                      # not stuck on one slot
    assert r["completed"] == n and r["bytes"] == n*sectors*512
    check_stats(r, model)


def test_sequential_write_data_is_the_pattern():
    seed = 0xCAFE
    r, model = run_engine("seq_write", op="write", lba_base=10, lba_range=100, sectors=3, commands=3,
                          seed=seed, hist_source="first_data",
                          model_kwargs=dict(latency=10, status_latency=5, ready_rate=0.6, rng_seed=3))
    assert [e["lba"] for e in model.log] == [10, 13, 16]
    assert all(e["write"] and e["count"] == 3 for e in model.log)
    for lba in range(10, 19):
        assert model.disk[lba] == pattern_sector(seed, lba)
    assert r["bytes"] == 9*512 and r["completed"] == 3
    exp = check_stats(r, model)
    assert r["hist"] == [sum(1 for v in exp["first_data_values"] if hist_bucket(v) == b)
                         for b in range(HIST_BUCKETS)]


def test_write_verify_round_trip_clean_and_corrupted():
    seed = 77
    r, model = run_engine("wv_clean", op="write_verify", lba_base=0, lba_range=64, sectors=2,
                          commands=3, seed=seed, random=1,
                          model_kwargs=dict(latency=6, status_latency=2, rate=0.8, ready_rate=0.8))
    lbas = random_lbas(seed, 0, 64, 2, 3)
    assert [e["lba"] for e in model.log] == lbas + lbas
    assert [e["write"] for e in model.log] == [1]*3 + [0]*3
    assert (r["state"], r["reason"], r["phase"]) == (STATE_DONE, REASON_OK, 1)
    assert r["mismatch_dwords"] == 0 and r["mismatch_sectors"] == 0
    assert r["completed"] == 6 and r["bytes"] == 6*2*512

    # One corrupted dword in the second sector of the first command's read-back.
    bad_lba = lbas[1] + 1
    r, model = run_engine("wv_corrupt", op="write_verify", lba_base=0, lba_range=64, sectors=2,
                          commands=3, seed=seed, random=1,
                          model_kwargs=dict(latency=6, status_latency=2,
                                            corrupt={(bad_lba, 77): 0x100}))
    assert (r["state"], r["reason"]) == (STATE_ERROR, REASON_MISMATCH)
    assert r["mismatch_dwords"] == 1 and r["mismatch_sectors"] == 1
    assert r["first_bad_lba"] == bad_lba


def test_verify_read_counts_sectors_and_first_lba():
    seed = 5
    corrupt = {(22, 0): 1, (22, 127): 2, (24, 5): 4, (24, 6): 8, (24, 7): 16}
    r, model = run_engine("verify_read", op="read", verify=1, lba_base=20, lba_range=6, sectors=3,
                          commands=2, seed=seed,
                          model_kwargs=dict(default_seed=seed, corrupt=corrupt, rate=0.5))
    assert r["mismatch_dwords"] == 5 and r["mismatch_sectors"] == 2
    assert r["first_bad_lba"] == 22
    assert r["reason"] == REASON_MISMATCH
    # The same data with another seed: every dword differs.
    r, model = run_engine("verify_other_seed", op="read", verify=1, lba_base=20, lba_range=6,
                          sectors=1, commands=1, seed=seed + 1,
                          model_kwargs=dict(default_seed=seed))
    assert r["mismatch_dwords"] == 128 and r["mismatch_sectors"] == 1


def test_snapshot_does_not_disturb_a_run():
    kw = dict(op="read", lba_base=0, lba_range=32, sectors=1, commands=6,
              model_kwargs=dict(latency=20, status_latency=3, rate=0.6, rng_seed=9))
    a, model_a = run_engine("snap_off", **kw)
    b, model_b = run_engine("snap_on", snapshots_every=37, **kw)
    for k in ("cycles", "bytes", "completed", "lat", "first_data", "gap", "hist"):
        assert a[k] == b[k], k
    assert [e["status"] for e in model_a.log] == [e["status"] for e in model_b.log]
    snaps = b["snaps"]
    assert len(snaps) > 10
    assert snaps == sorted(snaps)                        # live values only grow
    assert 0 < snaps[len(snaps)//2][0] < b["bytes"]     # taken while in flight
    assert b["snap_bytes"] <= b["bytes"]


@pytest.mark.parametrize("fail_early", [(), (1,)])
def test_write_timing_behind_the_buffered_port_is_taken_at_the_core(fail_early):
    """Behind BufferedUserPort the buffer takes the first write dwords at once; first data and
    gap must be where the core (the model) takes them. The buffer adds one cycle on the way in
    (issue) and one on the way back (status): engine first data = model's + 1, gap = model's - 1,
    latency = model's + 2. Bytes are the dwords the core took (none of a write failed before its
    data, whose packet the core drains)."""
    dut = BufferedDUT()
    model = SATAPortModel(dut.port, latency=40, fail_early=set(fail_early))
    out = {}

    def body():
        yield from configure(dut.engine, op="write", lba_range=64, sectors=2, commands=4,
                             stop_on_error=0)
        yield from pulse(dut.engine.control, "start")
        yield from wait_idle(dut.engine)
        out.update((yield from results(dut.engine)))
    simulate(dut, model, body, "write_timing_buffered")
    exp = model.stats()
    shift = lambda t, d: (t[0] + d, t[1] + d, t[2] + d*t[3], t[3])
    assert out["first_data"] == shift(exp["first_data"], 1), (out["first_data"], exp["first_data"])
    assert out["gap"] == shift(exp["gap"], -1), (out["gap"], exp["gap"])
    assert out["lat"] == shift(exp["lat"], 2)
    assert out["first_data"][0] > 40
    ok = 4 - len(fail_early)
    assert out["bytes"] == ok * 2 * 512 and out["completed"] == 4


def test_device_failure_counts_and_stops():
    r, model = run_engine("fail_stop", op="read", lba_range=16, sectors=1, commands=5,
                          model_kwargs=dict(fail={2}))
    assert len(model.log) == 3
    assert (r["state"], r["reason"]) == (STATE_ERROR, REASON_DEVICE_ERROR)
    assert r["errors"] == 1 and r["completed"] == 3
    r, model = run_engine("fail_continue", op="read", lba_range=16, sectors=1, commands=5,
                          stop_on_error=0, model_kwargs=dict(fail={1, 3}))
    assert len(model.log) == 5 and r["errors"] == 2 and r["completed"] == 5
    assert r["reason"] == REASON_DEVICE_ERROR
    check_stats(r, model)


def test_write_failed_before_data_ends_cleanly():
    """A write answered with an error before any data (D2H ERR instead of DMA Activate): the engine
    finishes its packet into the draining command layer, counts no data, and the next command
    runs normally."""
    r, model = run_engine("fail_early", op="write", lba_range=16, sectors=2, commands=3,
                          stop_on_error=0, model_kwargs=dict(fail_early={1}, latency=9))
    assert len(model.log) == 3 and [e["lba"] for e in model.log] == [0, 2, 4]
    assert r["errors"] == 1 and r["completed"] == 3
    assert r["bytes"] == 2*2*512
    assert 2 not in model.disk and 4 in model.disk
    check_stats(r, model)


def test_timeout_aborts_the_run():
    r, model = run_engine("timeout", op="read", lba_range=16, sectors=1, commands=4, timeout=300,
                          model_kwargs=dict(hang={1}))
    assert len(model.log) == 2
    assert (r["state"], r["reason"]) == (STATE_ERROR, REASON_TIMEOUT)
    assert r["completed"] == 1
    r, model = run_engine("timeout_write", op="write", lba_range=16, sectors=1, commands=2,
                          timeout=200, model_kwargs=dict(hang={0}))
    assert (r["state"], r["reason"]) == (STATE_ERROR, REASON_TIMEOUT)
    assert r["completed"] == 0 and r["bytes"] == 0


def test_link_drop_ends_the_command_at_once_and_the_next_run_works():
    """The link drops (PHY ready low for a few cycles) while command 1 is in flight and never
    answered (the SoC resets the core while the link is down): the run ends within a few cycles
    with reason link lost, not at the timeout; a start while the link is down is refused without
    issuing anything; the next start after the link is back runs normally."""
    dut = DUT()
    eng = dut.engine
    model = SATAPortModel(dut.port, hang={1})
    out = {}

    def body():
        yield from configure(eng, op="read", lba_range=16, sectors=1, commands=4, timeout=100000)
        yield from pulse(eng.control, "start")
        while len(model.log) < 2:          # command 1 issued
            yield
        for _ in range(20):
            yield
        yield eng.link_up.eq(0)
        t0 = model.cycle
        for _ in range(5):
            yield
        out["first"] = ((yield eng.status.fields.state), (yield eng.status.fields.reason),
                        (yield eng.completed.status), (yield eng.idle))
        out["ended_in"] = model.cycle - t0
        # A start while the link is down: refused, nothing issued.
        yield from configure(eng, op="read", lba_base=32, lba_range=8, sectors=1, commands=2)
        yield from pulse(eng.control, "start")
        yield from wait_idle(eng)
        out["down"] = ((yield eng.status.fields.state), (yield eng.status.fields.reason),
                       len(model.log))
        yield eng.link_up.eq(1)
        yield from pulse(eng.control, "start")
        yield from wait_idle(eng)
        out["after"] = ((yield eng.status.fields.state), (yield eng.status.fields.reason),
                        (yield eng.completed.status), [e["lba"] for e in model.log[2:]])
    simulate(dut, model, body, "link_drop")
    assert out["first"] == (STATE_ERROR, REASON_LINK_LOST, 1, 1), out
    assert out["ended_in"] <= 5
    assert out["down"] == (STATE_ERROR, REASON_LINK_LOST, 2), out
    assert out["after"] == (STATE_DONE, REASON_OK, 2, [32, 33]), out


@pytest.mark.parametrize("cfg", [
    dict(sectors=0),
    dict(sectors=65537),
    dict(lba_base=CAPACITY - 8, lba_range=9),               # beyond capacity
    dict(capacity=0),
    dict(lba_range=2, sectors=4),                           # range smaller than a command
    dict(commands=0),
    dict(lba28=1, sectors=257, lba_range=1024),             # 28-bit count limit
    dict(lba28=1, capacity=1 << 30, lba_base=(1 << 28) - 4, lba_range=8),   # beyond 2^28
    dict(fw_loop=1, op="write_verify"),
    dict(fw_loop=1, lba_base=CAPACITY - 1, sectors=2),      # firmware loop: base + sectors
])
def test_refused_inputs_issue_nothing(cfg):
    base = dict(op="read", lba_range=64, sectors=1, commands=2)
    base.update(cfg)
    r, model = run_engine("refused", **base)
    assert model.log == []
    assert (r["state"], r["reason"]) == (STATE_ERROR, REASON_REFUSED)
    assert r["completed"] == 0


def test_lba28_refused_on_a_stock_port():
    r, model = run_engine("lba28_stock", op="read", lba28=1, dut_kwargs=dict(lba28_port=False))
    assert model.log == [] and r["reason"] == REASON_REFUSED


def test_lba28_flag_and_limits_reach_the_port():
    """The last sectors below 2^28 are allowed (the 256-sector count is checked at the FIS level in
    test_command_with_transport.py, a 128 KiB read being too long for this simulator)."""
    r, model = run_engine("lba28_ok", op="read", lba28=1, capacity=1 << 30,
                          lba_base=(1 << 28) - 6, lba_range=6, sectors=3, commands=2,
                          model_kwargs=dict(latency=4, status_latency=1))
    assert [(e["lba"], e["count"], e["lba28"]) for e in model.log] == \
        [((1 << 28) - 6, 3, 1), ((1 << 28) - 3, 3, 1)]
    assert r["reason"] == REASON_OK and r["bytes"] == 6*512


# Firmware loop ------------------------------------------------------------------------------------

def test_firmware_loop_one_command_per_start_accumulates():
    dut = DUT()
    model = SATAPortModel(dut.port, latency=10, status_latency=2, rate=0.9, rng_seed=4)
    out, gaps = {}, []
    cpu_delay = [40, 90, 15]

    def body():
        e = dut.engine
        yield from configure(e, op="read", fw_loop=1, sectors=2, commands=99, hist_source="gap")
        yield from pulse(e.control, "clear")
        for i, lba in enumerate((500, 502, 900)):
            yield from e.lba_base.write(lba)
            yield from pulse(e.control, "start")
            yield from wait_idle(e)
            assert (yield e.status.fields.state) == STATE_DONE
            assert (yield e.completed.status) == i + 1
            for _ in range(cpu_delay[i]):            # the CPU's own overhead between commands
                yield
        out.update((yield from results(e)))
    simulate(dut, model, body, "fw_loop")
    assert [(e["lba"], e["count"]) for e in model.log] == [(500, 2), (502, 2), (900, 2)]
    assert out["completed"] == 3 and out["bytes"] == 3*2*512
    exp = check_stats(out, model)
    # The gap spans the CPU's work: status -> CPU notices, writes lba and start -> first data.
    assert all(g > d for g, d in zip(exp["gap_values"], cpu_delay))
    assert out["cycles"] == model.log[-1]["status"] - model.log[0]["issue"]
    assert out["hist"] == [sum(1 for v in exp["gap_values"] if hist_bucket(v) == b)
                           for b in range(HIST_BUCKETS)]


def test_firmware_loop_reason_is_per_command():
    """Counters accumulate over the loop, the status reason describes the last command only."""
    dut = DUT()
    seed = 11
    model = SATAPortModel(dut.port, latency=5, status_latency=1, default_seed=seed,
                          corrupt={(40, 3): 1})
    reasons = []

    def body():
        e = dut.engine
        yield from configure(e, op="read", verify=1, fw_loop=1, sectors=1, seed=seed)
        yield from pulse(e.control, "clear")
        for lba in (40, 41, 40):
            yield from e.lba_base.write(lba)
            yield from pulse(e.control, "start")
            yield from wait_idle(e)
            reasons.append(((yield e.status.fields.reason), (yield e.mismatch_dwords.status)))
    simulate(dut, model, body, "fw_reason")
    assert reasons == [(REASON_MISMATCH, 1), (REASON_OK, 1), (REASON_MISMATCH, 2)]


def test_abort_stops_after_the_command_in_flight():
    dut = DUT()
    model = SATAPortModel(dut.port, latency=30, status_latency=2)
    out = {}

    def body():
        e = dut.engine
        yield from configure(e, op="read", lba_range=64, sectors=1, commands=50)
        yield from pulse(e.control, "start")
        while len(model.log) < 3:                   # the third command is in flight
            yield
        yield from pulse(e.control, "abort")
        yield from wait_idle(e)
        out.update((yield from results(e)))
    simulate(dut, model, body, "abort")
    assert (out["state"], out["reason"]) == (STATE_DONE, REASON_ABORTED)
    assert out["completed"] == 3 and len(model.log) == 3


def test_sixty_five_thousand_sector_count_encoding():
    """65,536 sectors travel as count 0; the write packet is 65,536*128 dwords long (checked up to
    the abort: the full 32 MiB transfer is for the Verilator simulation)."""
    dut = DUT()
    model = SATAPortModel(dut.port, hang={0})
    out = {}

    def body():
        e = dut.engine
        yield from configure(e, op="write", sectors=65536, lba_range=65536, capacity=1 << 17,
                             timeout=400)
        yield from pulse(e.control, "start")
        while not (yield dut.port.sink.valid):       # wait for the command (after the clears)
            yield
        out["count"] = yield dut.port.sink.count
        out["last"] = yield dut.port.sink.last
        out["last_beat"] = yield e.last_beat
        yield from wait_idle(e)
        out["reason"] = yield e.status.fields.reason
    simulate(dut, model, body, "count65536")
    assert model.log[0]["count"] == 65536 and out["count"] == 0 and out["last"] == 0
    assert out["last_beat"] == 65536*128 - 1            # `last` on dword 8,388,607 (24-bit counter)
    assert out["reason"] == REASON_TIMEOUT


# Parts --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("random_,base,rng_,sectors,n,seed", [
    (0, 5, 10, 3, 8, 0),                                   # wraps before crossing base + range
    (0, (1 << 47), 65536*3, 65536, 5, 0),
    (1, 0, 1000, 1, 40, 1),
    (1, 1 << 40, (1 << 45) + 123, 7, 10, 0xDEAD),           # slots > 2^32: 48-bit division
    (1, 100, 5, 5, 3, 9),                                  # one slot
    (1, 0, 130, 65536 // 1024, 20, 0xFFFFFFFF),
])
def test_lba_sequencer_matches_reference(random_, base, rng_, sectors, n, seed):
    from ecpsata.engines.sequencer import LBASequencer
    dut = LBASequencer()
    got = []

    def body():
        for s, v in ((dut.base, base), (dut.range, rng_), (dut.sectors, sectors),
                     (dut.random, random_), (dut.seed, seed)):
            yield s.eq(v)
        yield dut.start.eq(1)
        yield
        yield dut.start.eq(0)
        while len(got) < n:
            yield
            if (yield dut.ready):
                got.append((yield dut.lba))
                yield dut.next.eq(1)
                yield
                yield dut.next.eq(0)
    run_sorted_simulation(dut, [body()])
    ref = random_lbas if random_ else (lambda s, *a: sequential_lbas(*a))
    assert got == ref(seed, base, rng_, sectors, n)


def clear_counters(dut):
    yield dut.clear.eq(1)
    yield
    yield dut.clear.eq(0)
    while (yield dut.busy):
        yield


def test_histogram_buckets_back_to_back_and_clear():
    from ecpsata.engines.counters import Log2Histogram
    dut = Log2Histogram()
    values = [0, 1, 2, 3, 4, 7, 8, 1000, 1023, 1024, 2**31, 2**32, 2**63, 5, 5, 5]
    out = {}

    def read_all():
        r = []
        for b in range(HIST_BUCKETS):
            yield dut.select.eq(b)
            yield
            r.append((yield dut.data))
        return r

    def body():
        yield from clear_counters(dut)
        for v in values:                       # one sample per cycle
            yield dut.value.eq(v)
            yield dut.we.eq(1)
            yield
        yield dut.we.eq(0)
        for _ in range(4):
            yield
        out["hist"] = yield from read_all()
        yield dut.clear.eq(1)
        yield
        yield dut.clear.eq(0)
        for _ in range(HIST_BUCKETS + 2):
            yield
        out["cleared"] = yield from read_all()
    run_sorted_simulation(dut, [body()])
    exp = [0]*HIST_BUCKETS
    for v in values:
        exp[hist_bucket(v)] += 1
    assert exp[0] == 2 and exp[2] == 5 and exp[31] == 3
    assert out["hist"] == exp
    assert out["cleared"] == [0]*HIST_BUCKETS


def test_min_max_sum():
    from ecpsata.engines.counters import MinMaxSum
    dut = MinMaxSum()
    values = [17, 3, 2**40, 99, 3]
    out = {}

    def body():
        for v in values:
            yield dut.value.eq(v)
            yield dut.we.eq(1)
            yield
        yield dut.we.eq(0)
        yield
        out["r"] = ((yield dut.min), (yield dut.max), (yield dut.sum), (yield dut.count))
        yield dut.clear.eq(1)
        yield
        yield dut.clear.eq(0)
        yield
        out["c"] = ((yield dut.min), (yield dut.max), (yield dut.sum), (yield dut.count))
    run_sorted_simulation(dut, [body()])
    assert out["r"] == (3, 2**40, sum(values), 5)
    assert out["c"] == (2**64 - 1, 0, 0, 0)


def test_min_max_sum_bank_streams_at_their_closest_and_together():
    """Three streams with samples on the same cycle, every 18 cycles (six cycles a sample: the
    closest that keeps up), values across the 64 bits; then a clear (min reads 0 again)."""
    from ecpsata.engines.counters import MinMaxSumBank
    dut = MinMaxSumBank(3)
    rng = random.Random(5)
    samples = [[rng.choice([0, 1, 2**40, 2**64 - 1, rng.getrandbits(64)]) for _ in range(9)]
               for _ in range(3)]
    out = {}

    def read_all():
        r = {}
        for name in STAT_SOURCES:
            for f in STAT_FIELDS:
                yield dut.select.eq(stat_entry(name, f))
                yield
                r[name, f] = yield dut.data
        return r

    def body():
        yield from clear_counters(dut)
        for k in range(9):
            for s in range(3):
                if k < len(samples[s]):
                    yield dut.values[s].eq(samples[s][k])
                    yield dut.wes[s].eq(1)
            yield
            for s in range(3):
                yield dut.wes[s].eq(0)
            for _ in range(17):
                yield
        out["settle"] = 0
        while not (yield dut.settled):
            out["settle"] += 1
            yield
        out["r"] = yield from read_all()
        yield from clear_counters(dut)
        out["c"] = yield from read_all()
    run_sorted_simulation(dut, [body()])
    for s, name in enumerate(STAT_SOURCES):
        v = samples[s]
        exp = {"count": len(v), "min": min(v, default=0), "max": max(v, default=0),
               "sum": sum(v) % 2**64}
        assert {f: out["r"][name, f] for f in STAT_FIELDS} == exp, name
        assert all(out["c"][name, f] == 0 for f in STAT_FIELDS)
    assert 0 < out["settle"] <= 6 * 3           # the last samples are written within 18 cycles
