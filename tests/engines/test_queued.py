# SPDX-License-Identifier: BSD-2-Clause
"""ecpsata/engines/queued.py: the queued benchmark engine on our core's NCQ layer (ECPSATACore with
ncq=True) through the PHY, against the virtual drive's NCQ (ecpsata/sim/vdrive/src/ncq.c), in Migen.

Runs are short (a few sectors per command) so that each test stays within seconds of simulated
time; every test asserts the engine's counters against what the drive did."""

import pytest
from migen import *

from ecpsata.engines import common as bc
from tests.support.ncq_harness import IDEAL, SYS_MHZ, ncq_dut, run_word_sim, to_bytes
from tests.support.core_harness import wait_ready
from tests.support.phy_link_harness import drive_process

from ecpsata.sim import vdrive

# Word-level simulation against the virtual drive: `pytest -m "not system and not slow"` leaves these out.
pytestmark = pytest.mark.slow

CAPACITY = 8192


def queued_dut():
    from ecpsata.engines.queued import ECPSATAQueuedBenchEngine
    dut = ncq_dut()
    dut.engine = ECPSATAQueuedBenchEngine(dut.core.ncq, SYS_MHZ*1e6)
    dut.comb += dut.core.reset.eq(dut.engine.core_reset)
    return dut


def config_value(engine, **fields):
    value = 0
    for f in engine.config.fields.fields:
        value |= int(fields.pop(f.name, f.reset.value)) << f.offset
    assert not fields, fields
    return value


def start_run(engine, op="read", random=0, stop_on_error=1, qd=1, lba_base=0, lba_range=64,
              sectors=1, commands=1, seed=1, capacity=CAPACITY, timeout=100*SYS_MHZ, mix=0):
    op = bc.QUEUED_OPS.get(op, op)          # a name, or a raw value to be refused
    yield from engine.config.write(config_value(engine, op=op, random=random,
                                                stop_on_error=stop_on_error))
    for name, v in (("qd", qd), ("lba_base", lba_base), ("lba_range", lba_range),
                    ("sectors", sectors), ("commands", commands), ("seed", seed),
                    ("capacity", capacity), ("timeout", timeout), ("mix", mix)):
        yield from getattr(engine, name).write(v)
    yield from engine.control.write(1 << engine.control.fields.start.offset)


def wait_end(engine, limit_us=3000):
    for _ in range(3):       # `start` reaches the FSM, which then shows busy
        yield
    for _ in range(limit_us*SYS_MHZ):
        st = yield engine.status.fields.state
        if st in (bc.STATE_DONE, bc.STATE_ERROR) and (yield engine.idle):
            return
        yield
    raise AssertionError("the queued engine did not end")


def results(engine):
    r = {}
    for name in ("cycles", "bytes", "completed", "errors", "last_lba", "lat_min", "lat_max",
                 "lat_sum", "lat_count", "depth_max", "ncq_errors", "ncq_reason", "ncq_lba",
                 "reissued", "completed_reads", "completed_writes"):
        r[name] = yield getattr(engine, name).status
    r["state"] = yield engine.status.fields.state
    r["reason"] = yield engine.status.fields.reason
    r["tag"] = yield engine.ncq_tag.fields.tag
    r["tag_valid"] = yield engine.ncq_tag.fields.valid
    r["hist"] = []
    for k in range(bc.HIST_BUCKETS):
        yield from engine.hist_select.write(k)
        r["hist"].append((yield engine.hist_data.status))
    return r


def simulate(drive, runs, dut=None):
    """Runs each (kwargs of start_run) in turn after link-up; returns their results."""
    dut = dut or queued_dut()
    out = []

    def drv():
        yield "passive"
        yield from drive_process(dut, drive)

    def top():
        yield from wait_ready(dut)
        for kwargs in runs:
            yield from start_run(dut.engine, **kwargs)
            yield from wait_end(dut.engine)
            out.append((yield from results(dut.engine)))
        for _ in range(3*SYS_MHZ):
            yield
    run_word_sim(dut, {"sys": [top()], "sata_tx": drv()}, dut.serdes.word_ce)
    return out


# slc with a short media time: queued reads overlap in its 8 channels within microseconds.
SLC = "persona=slc,ncq=1,capacity=8192,cominit_interval_us=0,first_data_us=3,cmd_us=0"


def check_clean(r, commands, sectors, writes=0):
    assert (r["state"], r["reason"]) == (bc.STATE_DONE, bc.REASON_OK), r
    assert (r["completed"], r["errors"], r["lat_count"]) == (commands, 0, commands)
    assert (r["completed_reads"], r["completed_writes"]) == (commands - writes, writes)
    assert r["bytes"] == commands*sectors*512
    assert 0 < r["lat_min"] <= r["lat_max"]
    assert r["lat_min"]*commands <= r["lat_sum"] <= r["lat_max"]*commands
    assert r["ncq_errors"] == r["reissued"] == 0
    # the histogram holds the same latencies: one count each, between min's and max's buckets
    used = [k for k, n in enumerate(r["hist"]) if n]
    assert sum(r["hist"]) == commands, r["hist"]
    assert (used[0], used[-1]) == (bc.hist_bucket(r["lat_min"]), bc.hist_bucket(r["lat_max"]))


def test_queued_random_reads_keep_the_queue_full_and_count_every_command():
    """8 single-sector random reads at QD 1 and then QD 4 on a fast slc drive: every command
    completes once, the last LBA is the non-queued engine's sequence's, the drive held 4 at once,
    and the queue shortens the run."""
    drive = vdrive.VirtualDrive(SLC)
    run = dict(random=1, lba_base=64, lba_range=1024, sectors=1, commands=8, seed=3)
    q1, q4 = simulate(drive, [dict(run, qd=1), dict(run, qd=4)])
    for r, qd in ((q1, 1), (q4, 4)):
        check_clean(r, 8, 1)
        assert r["depth_max"] == qd
        assert r["last_lba"] == bc.random_lbas(3, 64, 1024, 1, 8)[-1]
    st = drive.stats()
    assert st["cmd_fpdma_read"] == 16 and st["ncq_max_depth"] == 4
    assert q4["cycles"] < q1["cycles"] * 0.6, (q1["cycles"], q4["cycles"])


def test_queued_writes_carry_the_pattern_and_read_back():
    """Sequential queued writes of 2 sectors at QD 4 on the ideal drive put the engine's pattern
    (common.pattern_dword) in the image at every LBA; queued reads of the same range count the
    same bytes."""
    drive = vdrive.VirtualDrive(IDEAL)
    run = dict(lba_base=200, lba_range=16, sectors=2, commands=8, seed=0x5EED, qd=4)
    w, r = simulate(drive, [dict(run, op="write"), dict(run, op="read")])
    check_clean(w, 8, 2, writes=8)
    check_clean(r, 8, 2)
    assert w["last_lba"] == 214
    for lba in range(200, 216):
        want = b"".join(bc.pattern_dword(0x5EED, lba, i).to_bytes(4, "little")
                        for i in range(bc.SECTOR_DWORDS))
        assert drive.read_sectors(lba, 1) == want, f"LBA {lba}"
    st = drive.stats()
    assert (st["cmd_fpdma_write"], st["cmd_fpdma_read"]) == (8, 8)


@pytest.mark.parametrize("stop_on_error", [1, 0])
def test_an_ncq_error_is_reported_with_its_lba_and_the_aborted_commands_are_reissued(stop_on_error):
    """A read covering the drive's error_lba fails under a full queue: the run reports the
    failing tag and LBA (log 10h), re-issues what the drive aborted with it, counts one failed
    command and ends with reason device error; without stop_on_error every other command of the
    run completes. Nothing hangs, and a clean run follows on the same drive."""
    drive = vdrive.VirtualDrive(SLC + ",error_lba=5")
    run = dict(lba_base=0, lba_range=64, sectors=1, commands=12, qd=8, stop_on_error=stop_on_error)
    bad, after = simulate(drive, [run, dict(run, lba_base=32, lba_range=32, commands=8)])
    assert (bad["state"], bad["reason"]) == (bc.STATE_ERROR, bc.REASON_DEVICE_ERROR), bad
    assert (bad["ncq_errors"], bad["ncq_reason"], bad["ncq_lba"]) == (1, 1, 5)
    assert bad["tag_valid"] == 1 and bad["tag"] < 8
    assert bad["errors"] == 1 and bad["reissued"] >= 1
    # the failed read is among the reads, counted a cycle after `completed`
    assert (bad["completed_reads"], bad["completed_writes"]) == (bad["completed"], 0)
    if stop_on_error:
        assert 5 <= bad["last_lba"] < 5 + 8         # nothing new after the error
        assert bad["completed"] == bad["last_lba"] + 1
    else:
        assert (bad["completed"], bad["last_lba"]) == (12, 11)
    check_clean(after, 8, 1)


@pytest.mark.parametrize("field, value", [("qd", 0), ("qd", 33), ("sectors", 0),
                                          ("capacity", 63), ("commands", 0)])
def test_refused_parameters_issue_nothing(field, value):
    drive = vdrive.VirtualDrive(IDEAL)
    r, = simulate(drive, [{"lba_range": 64, field: value}])
    assert (r["state"], r["reason"]) == (bc.STATE_ERROR, bc.REASON_REFUSED)
    assert r["completed"] == 0 and drive.stats()["cmd_fpdma_read"] == 0


@pytest.mark.parametrize("resume", [0, 1])
def test_dmat_in_a_queued_write(resume):
    """The drive ends the first queued write's Data FIS early with DMAT: the layer ends the FIS and
    drops the rest of that request; then the drive either fails the tag (an NCQ error, the run
    ends with device error and a clean run follows) or asks for the rest with a DMA Activate,
    which the engine sends from the dword where the FIS stopped: the image holds the pattern."""
    drive = vdrive.VirtualDrive(IDEAL + f",dmat_fis=1,dmat_resume={resume}")
    run = dict(op="write", lba_base=300, lba_range=16, sectors=2, commands=8, seed=0x5EED, qd=4)
    w, after = simulate(drive, [run, dict(run, lba_base=400)])
    assert drive.stats()["dmat_sent"] == 1
    if resume:
        check_clean(w, 8, 2, writes=8)
        for lba in range(300, 316):
            want = b"".join(bc.pattern_dword(0x5EED, lba, i).to_bytes(4, "little")
                            for i in range(bc.SECTOR_DWORDS))
            assert drive.read_sectors(lba, 1) == want, f"LBA {lba}"
    else:
        assert (w["state"], w["reason"]) == (bc.STATE_ERROR, bc.REASON_DEVICE_ERROR), w
        assert w["ncq_errors"] == 1
        assert (w["completed_reads"], w["completed_writes"]) == (0, w["completed"]) and w["errors"]
    check_clean(after, 8, 2, writes=8)


# Read/write mix (op mix) --------------------------------------------------------------------------

def fill(drive, lba, count):
    """A marker the pattern never gives in every sector: whatever the run writes shows."""
    drive.write_sectors(lba, b"\xA5" * (count * bc.SECTOR_BYTES))


def written(drive, seed, lba, count):
    """Per sector from lba: True where it holds the pattern, False where it holds fill()'s marker
    (anything else fails)."""
    out = []
    for k in range(count):
        got = drive.read_sectors(lba + k, 1)
        want = b"".join(bc.pattern_dword(seed, lba + k, i).to_bytes(4, "little")
                        for i in range(bc.SECTOR_DWORDS))
        assert got in (want, b"\xA5" * bc.SECTOR_BYTES), f"LBA {lba + k}"
        out.append(got == want)
    return out


def test_the_mix_sequence_reaches_the_asked_share():
    """The reference sequence (common.mix_ops) over 20,000 commands: each seed's write share
    lies within 4.5 binomial standard deviations of mix / 256 (a fair generator misses that
    about once in 150,000 cases; a bias of one step in 256 would miss it from about 0.3 %
    off), 0 gives only reads and 256 only writes."""
    n = 20_000
    for seed in (1, 2, 0x5EED):
        for mix in (1, bc.mix_value(70), 128, bc.mix_value(30), 255):
            p = mix / bc.MIX_ONE
            writes = sum(bc.mix_ops(seed, mix, n))
            assert abs(writes - n * p) <= 4.5 * (n * p * (1 - p)) ** 0.5, (seed, mix, writes)
        assert not any(bc.mix_ops(seed, 0, 1000)) and all(bc.mix_ops(seed, bc.MIX_ONE, 1000))
    assert bc.mix_ops(1, 128, 64) != bc.mix_ops(2, 128, 64)
    assert [bc.mix_value(p) for p in (100, 70, 50, 30, 0)] == [0, 77, 128, 179, 256]


MIX_N = 16


def test_a_mix_run_issues_the_seeds_reads_and_writes():
    """70 % reads (77 writes in 256), sequential single sectors at QD 8 on the ideal drive: the
    k-th command is a write exactly where common.mix_ops says (its sector holds the pattern,
    the others still hold the marker), the counters split `completed` the same way, bytes count
    both. Another seed gives another sequence, and the first seed again the same one (the
    generator starts afresh with each run)."""
    drive = vdrive.VirtualDrive(IDEAL)
    mix = bc.mix_value(70)
    runs = [(1024, 7, MIX_N), (2048, 8, 16), (3072, 7, MIX_N)]
    for base, _, n in runs:
        fill(drive, base, n)
    out = simulate(drive, [dict(op="mix", mix=mix, lba_base=base, lba_range=n, sectors=1,
                                commands=n, qd=8, seed=seed) for base, seed, n in runs])
    seen = [written(drive, seed, base, n) for base, seed, n in runs]
    for r, ops, (_, seed, n) in zip(out, seen, runs):
        assert ops == bc.mix_ops(seed, mix, n)
        check_clean(r, n, 1, writes=sum(ops))
    assert seen[0] == seen[2] and seen[0][:16] != seen[1]
    # the share of this short run: within 4 standard deviations of 77 / 256 (the long-run share
    # is test_the_mix_sequence_reaches_the_asked_share's)
    p = mix / bc.MIX_ONE
    assert abs(sum(seen[0]) - MIX_N * p) <= 4 * (MIX_N * p * (1 - p)) ** 0.5
    assert 0 < sum(seen[0]) < MIX_N and 0 < sum(seen[1]) < 16
    st = drive.stats()
    assert st["cmd_fpdma_write"] == sum(map(sum, seen))
    assert st["cmd_fpdma_read"] == 2 * MIX_N + 16 - st["cmd_fpdma_write"]


def test_mix_0_reads_only_and_256_writes_only_and_a_bad_mix_is_refused():
    """mix 0 is all reads, 256 all writes; 257 and 511 (and op 3) are refused without a command
    (the counters keep the previous run's), and the `mix` register means nothing to a read run
    (511 there runs as before)."""
    drive = vdrive.VirtualDrive(IDEAL)
    fill(drive, 0, 16)
    run = dict(op="mix", lba_range=8, sectors=1, commands=8, qd=4, seed=3)
    reads, writes, bad1, bad2, bad_op, plain = simulate(drive, [
        dict(run, mix=0), dict(run, mix=bc.MIX_ONE, lba_base=8), dict(run, mix=bc.MIX_ONE + 1),
        dict(run, mix=511), dict(run, op=3), dict(run, op="read", mix=511)])
    check_clean(reads, 8, 1, writes=0)
    check_clean(writes, 8, 1, writes=8)
    check_clean(plain, 8, 1, writes=0)
    assert written(drive, 3, 0, 16) == [False] * 8 + [True] * 8
    counts = ("completed", "completed_reads", "completed_writes", "bytes", "last_lba")
    for r in (bad1, bad2, bad_op):
        assert (r["state"], r["reason"]) == (bc.STATE_ERROR, bc.REASON_REFUSED)
        assert [r[k] for k in counts] == [writes[k] for k in counts]
    st = drive.stats()
    assert (st["cmd_fpdma_read"], st["cmd_fpdma_write"]) == (16, 8)


def test_a_reissued_mix_command_keeps_its_op():
    """A half-and-half mix on the slc drive with error_lba under a full queue, without
    stop_on_error: the commands the drive aborted are sent again as what they were (each write
    sector but the failing one holds the pattern, each read sector the marker), the failed
    command counts under its op, and the drive saw every command once plus the re-issues."""
    drive = vdrive.VirtualDrive(SLC + ",error_lba=5")
    fill(drive, 0, 16)
    r, = simulate(drive, [dict(op="mix", mix=128, lba_base=0, lba_range=64, sectors=1,
                               commands=16, qd=8, seed=5, stop_on_error=0)])
    ops = bc.mix_ops(5, 128, 16)
    assert 4 <= sum(ops) <= 12
    assert (r["state"], r["reason"]) == (bc.STATE_ERROR, bc.REASON_DEVICE_ERROR), r
    assert (r["completed"], r["errors"], r["ncq_lba"]) == (16, 1, 5) and r["reissued"] >= 1
    assert (r["completed_reads"], r["completed_writes"]) == (16 - sum(ops), sum(ops))
    seen = written(drive, 5, 0, 16)
    assert seen[:5] + seen[6:] == ops[:5] + ops[6:] and not seen[5]
    st = drive.stats()
    assert st["cmd_fpdma_read"] + st["cmd_fpdma_write"] == 16 + r["reissued"]
