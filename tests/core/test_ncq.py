# SPDX-License-Identifier: BSD-2-Clause
"""ecpsata/core/ncq/: READ / WRITE FPDMA QUEUED through the PHY and our core (ECPSATACore with
ncq=True) against the virtual drive's NCQ (ecpsata/sim/vdrive/src/ncq.c), in Migen.

Random backpressure on the read data and gaps in the write data. Every test checks data against the
drive's image, and the tags' completions and errors against what the drive was made to do.
"""

import pytest
from migen import *

from ecpsata.core.common import NCQ_REASON
from ecpsata.core.ncq import fpdma_h2d_fields
from ecpsata.core.command import REPEAT_TIME
from tests.support.core_harness import command
from tests.support.ncq_harness import (IDEAL, SYS_MHZ, Host, check_reads, ncq_dut, pattern, run,
                               to_bytes)
from tests.support.phy_harness import now_ns
from tests.support.sata_port_model import run_sorted_simulation

from ecpsata.sim import vdrive

# Word-level simulation against the virtual drive: `pytest -m "not system and not slow"` leaves these out.
pytestmark = pytest.mark.slow

# ----------------------------------------------------------------------------------------------

class FisDUT(Module):
    """ECPSATANCQ on our transport layer facing a frame-level link model (tests/core/test_command_with_transport.py):
    FISes built here, not by the drive."""
    def __init__(self, early_setup=False):
        from ecpsata.core.transport import ECPSATATransport
        from ecpsata.core.ncq import ECPSATANCQ
        from tests.core.test_command_with_transport import LinkModel
        self.link = LinkModel()
        self.submodules.transport = ECPSATATransport(self.link)
        self.submodules.ncq = ECPSATANCQ(early_setup=early_setup)
        trx = self.transport.rx
        self.comb += [
            self.ncq.tx.connect(self.transport.sink),
            trx.source.connect(self.ncq.rx),
            trx.refuse.eq(self.ncq.rx_refuse),
            trx.accept_data.eq(self.ncq.rx_accept_data),
            trx.accept_activate.eq(self.ncq.rx_accept_activate),
            self.ncq.rx_ev_refused.eq(trx.ev_refused),
        ]
        # The link model takes every frame: R_OK the cycle after its last dword (R_ERR while a
        # test holds `refuse_tx`).
        self.refuse_tx = Signal()
        tx_end = self.link.sink.valid & self.link.sink.ready & self.link.sink.last
        self.sync += [self.ncq.tx_ok.eq(tx_end & ~self.refuse_tx),
                      self.ncq.tx_err.eq(tx_end & self.refuse_tx)]


def log_page(tag, status, error, lba, count, checksum_ok=True):
    """ACS-3 log 10h as 128 dwords: byte 0 tag, 2 status, 3 error, 4-6 / 8-10 LBA, 7 device,
    12-13 count, 511 checksum (the page sums to 0)."""
    b = bytearray(512)
    b[0], b[2], b[3], b[7] = tag, status, error, 0x40
    b[4:7] = (lba & 0xFFFFFF).to_bytes(3, "little")
    b[8:11] = (lba >> 24).to_bytes(3, "little")
    b[12:14] = count.to_bytes(2, "little")
    b[511] = (-sum(b) + (0 if checksum_ok else 1)) & 0xFF
    return [int.from_bytes(b[i:i + 4], "little") for i in range(0, 512, 4)]


def issue_at_the_fis_level(ncq, bench, **fields):
    """A queued command on ``FisDUT``: presented, its command FIS sent, and the drive's Register
    D2H with BSY clear that makes its tag outstanding."""
    for k, v in dict(fields, valid=1).items():
        yield getattr(ncq.sink, k).eq(v)
    yield
    while not (yield ncq.sink.ready):
        yield
    yield ncq.sink.valid.eq(0)
    yield from bench.wait_frames(1)
    yield from bench.send_frame([0x34 | (0x40 << 16), 0, 0, 0, 0])              # BSY clear
    for _ in range(10):
        yield


@pytest.mark.parametrize("checksum_ok", [True, False])
def test_fpdma_fis_and_log_10h_at_the_fis_level(checksum_ok):
    """WRITE FPDMA QUEUED with FUA, tag 31, 65,536 sectors, a 48-bit LBA goes out as SATA 3.x
    13.6.4 has it (tag in Count 7:3, sectors in Features, Device 0xC0). An SDB with ERR makes
    the layer send READ LOG EXT for log 10h, page 1; the page it is given is reported field by
    field, or as LOG_FAILED with every tag aborted when its checksum is wrong."""
    from tests.core.test_command_with_transport import Bench, h2d_expected
    lba = 0x123456789ABC
    assert fpdma_h2d_fields(1, lba, 65536, 31, fua=1) == (0x61, 0, lba, 0xC0, 31 << 3)
    dut = FisDUT()
    bench = Bench(dut, seed=3)
    ncq = dut.ncq
    reports = []

    @passive
    def monitor():
        while True:
            yield
            if (yield ncq.error):
                reports.append(dict(reason=(yield ncq.error_reason), tag=(yield ncq.error_tag),
                                    tag_valid=(yield ncq.error_tag_valid),
                                    lba=(yield ncq.error_lba), count=(yield ncq.error_count),
                                    status=(yield ncq.error_status),
                                    error=(yield ncq.error_error), aborted=(yield ncq.aborted)))

    def body():
        yield from issue_at_the_fis_level(ncq, bench, write=1, fua=1, tag=31, lba=lba, count=0)
        assert (yield ncq.outstanding) == 1 << 31
        yield from bench.send_frame([0xA1 | (1 << 14) | (0x41 << 16) | (0x04 << 24), 0])
        yield from bench.wait_frames(2)
        yield from bench.send_frame([0x5F | (1 << 13) | (1 << 14) | (0x58 << 16), 0x40000000, 0,
                                     0x50 << 24, 512])                          # PIO Setup
        yield from bench.send_frame([0x46] + log_page(31, 0x41, 0x04, 0xBA9876543210, 8,
                                                      checksum_ok))
        for _ in range(20):
            yield
        assert (yield ncq.outstanding) == 0 and not (yield ncq.busy)

    run_sorted_simulation(dut, [bench.link_capture(), monitor(), body()])
    assert bench.frames[0] == h2d_expected(0x61, lba, 0xC0, 31 << 3, features=0)
    assert bench.frames[1] == h2d_expected(0x2F, 0x10, 0x40, 1)
    assert len(bench.frames) == 2 and len(reports) == 1
    if checksum_ok:
        assert reports[0] == dict(reason=NCQ_REASON["DEVICE_ERROR"], tag=31, tag_valid=1,
                                  lba=0xBA9876543210, count=8, status=0x41, error=0x04, aborted=0)
    else:
        r = reports[0]
        assert (r["reason"], r["tag_valid"], r["aborted"]) == (NCQ_REASON["LOG_FAILED"], 0, 1 << 31)


def test_the_setup_mask_holds_the_tags_a_dma_setup_is_taken_for():
    """``rx_setup_mask`` (for a PHY that answers a DMA Setup's EOF itself, by its tag): the tags
    outstanding with no data phase open and no error pending, which nothing but giving up
    changes before a FIS is presented; and a DMA Setup of such a tag is then taken."""
    from tests.core.test_command_with_transport import Bench
    dut = FisDUT(early_setup=True)
    bench = Bench(dut, seed=3)
    ncq = dut.ncq
    seen = {}

    def body():
        yield ncq.rd_source.ready.eq(1)
        yield
        seen["idle"] = yield ncq.rx_setup_mask
        yield from issue_at_the_fis_level(ncq, bench, write=0, fua=0, tag=3, lba=40, count=1)
        seen["outstanding"] = yield ncq.rx_setup_mask
        yield from bench.send_frame([0x41 | (1 << 13), 3, 0, 0, 0, 512, 0])    # DMA Setup, read
        for _ in range(10):
            yield
        seen["taken"] = yield ncq.outstanding
        seen["phase open"] = yield ncq.rx_setup_mask
        yield from bench.send_frame([0x46] + list(range(128)))
        for _ in range(10):
            yield
        seen["data in"] = yield ncq.rx_setup_mask
        yield from bench.send_frame([0xA1 | (1 << 14) | (0x41 << 16) | (0x04 << 24), 0])
        for _ in range(10):
            yield
        seen["error pending"] = yield ncq.rx_setup_mask

    run_sorted_simulation(dut, [bench.link_capture(), body()])
    assert seen == {"idle": 0, "outstanding": 1 << 3, "taken": 1 << 3, "phase open": 0,
                    "data in": 1 << 3, "error pending": 0}


def test_the_sdb_mask_holds_the_tags_whose_data_moved():
    """``rx_sdb_mask`` (for the transport to judge a Set Device Bits at its SActive): no tag
    before the command, none while the read's data has not come, the tag once it has; and the
    Set Device Bits completing it is then taken, which empties the mask again."""
    from tests.core.test_command_with_transport import Bench
    dut = FisDUT(early_setup=True)
    bench = Bench(dut, seed=3)
    ncq = dut.ncq
    seen = {}

    def body():
        yield ncq.rd_source.ready.eq(1)
        yield
        seen["idle"] = yield ncq.rx_sdb_mask
        yield from issue_at_the_fis_level(ncq, bench, write=0, fua=0, tag=3, lba=40, count=1)
        seen["outstanding"] = yield ncq.rx_sdb_mask
        yield from bench.send_frame([0x41 | (1 << 13), 3, 0, 0, 0, 512, 0])    # DMA Setup, read
        for _ in range(10):
            yield
        seen["phase open"] = yield ncq.rx_sdb_mask
        yield from bench.send_frame([0x46] + list(range(128)))
        for _ in range(10):
            yield
        seen["data in"] = yield ncq.rx_sdb_mask
        yield from bench.send_frame([0xA1 | (1 << 14) | (0x40 << 16), 1 << 3])
        for _ in range(10):
            yield
        seen["completed"] = (yield ncq.rx_sdb_mask), (yield ncq.outstanding)

    run_sorted_simulation(dut, [bench.link_capture(), body()])
    assert seen == {"idle": 0, "outstanding": 0, "phase open": 0, "data in": 1 << 3,
                    "completed": (0, 0)}


@pytest.mark.parametrize("qd,sectors", [(1, 8), (4, 8), (32, 1)])
def test_queued_writes_then_reads_ideal(qd, sectors):
    """QD writes then QD reads on the ideal drive: the image holds what was written, every read
    tag returns its sectors, every tag is completed once, no error, the queue reached its depth."""
    drive = vdrive.VirtualDrive(IDEAL)
    dut = ncq_dut()
    host = Host(dut)
    lbas = [100 + 37*t for t in range(qd)]

    def main():
        for t in range(qd):
            yield from host.issue(1, lbas[t], sectors, t, seed=7)
        yield from host.wait_idle()
        writes_done = host.completed()
        host.done.clear()
        for t in range(qd):
            yield from host.issue(0, lbas[t], sectors, t)
        yield from host.wait_idle()
        host.writes_done = writes_done

    run(dut, drive, host, main)
    st = drive.stats()
    every = (1 << qd) - 1
    assert host.errors == []
    assert host.writes_done == every and host.completed() == every
    assert sorted(host.wr_reqs) == [(t, 0, sectors*128) for t in range(qd)]
    for t in range(qd):
        assert drive.read_sectors(lbas[t], sectors) == to_bytes(pattern(lbas[t], sectors, 7))
    check_reads(host, drive, range(qd))
    assert host.read_errors == 0
    assert st["cmd_fpdma_write"] == qd and st["cmd_fpdma_read"] == qd
    assert st["ncq_max_depth"] == qd or qd > 1 and st["ncq_max_depth"] > 1, st["ncq_max_depth"]


def queued_reads(drive_cfg, lbas, sectors, seed=1):
    """Prefills the drive, queues one read per LBA (tags 0..n-1) at once, waits for the queue to
    drain. Returns (host, drive, time from the first command to the last completion, ns)."""
    drive = vdrive.VirtualDrive(drive_cfg)
    for lba in lbas:
        drive.write_sectors(lba, to_bytes(pattern(lba, sectors, 7)))
    dut = ncq_dut()
    host = Host(dut, seed=seed)
    res = {}

    def main():
        t0 = now_ns()
        for t, lba in enumerate(lbas):
            yield from host.issue(0, lba, sectors, t)
        yield from host.wait_idle()
        res["t_ns"] = host.done[-1][0] - t0

    run(dut, drive, host, main)
    return host, drive, res["t_ns"]


# hdd7200 at its fastest spin (65,534 rpm: a turn is 915.6 us) without seeks, so that a test sees
# the order of service in tens of microseconds: the sector at LBA L passes under the head at
# L x 512 B / read_mbps modulo a turn (ecpsata/sim/vdrive/README.md, "Native Command Queuing").
HDD = "persona=hdd7200,capacity=8192,cominit_interval_us=0,rpm=65534,seek_us=0,track_seek_us=0,cmd_us=2"
HDD_TURN_US = 60e6/65534
HDD_SECTOR_US = 512/150


def hdd_lba_at(t_us):
    """The LBA (within the first turn) under the head at drive time ``t_us``."""
    return int((t_us % HDD_TURN_US)/HDD_SECTOR_US)


def test_hdd7200_serves_the_queue_out_of_order():
    """The rotating drive serves the read whose sector comes under the head first. Tag 0 goes at
    once (alone in the queue); tags 1-4 are queued against the rotation (tag 4's sector comes
    first): they complete as 4, 3, 2, 1, each with its data."""
    drive = vdrive.VirtualDrive(HDD)
    dut = ncq_dut()
    host = Host(dut)
    res = {}

    def main():
        t_us = drive.time_ps()/1e6
        lbas = [hdd_lba_at(t_us + 20)] + [hdd_lba_at(t_us + 80 - 10*k) for k in range(1, 5)]
        for lba in lbas:
            drive.write_sectors(lba, to_bytes(pattern(lba, 1, 7)))
        t0 = now_ns()
        for t, lba in enumerate(lbas):
            yield from host.issue(0, lba, 1, t)
        yield from host.wait_idle()
        res["t_ns"] = host.done[-1][0] - t0

    run(dut, drive, host, main)
    assert host.errors == [] and host.completed() == 0x1F
    check_reads(host, drive, range(5))
    assert host.read_order == [0, 4, 3, 2, 1], host.read_order
    assert res["t_ns"] < 150e3, res["t_ns"]
    print(f"hdd7200: issued 0..4, served {host.read_order} in {res['t_ns']/1e3:.1f} us")


def test_slc_serves_queued_reads_in_parallel():
    """slc has 8 media channels: four queued reads take about the media time of one (their
    first-data waits overlap), not four times it; the data of each tag is right."""
    cfg = "persona=slc,capacity=8192,cominit_interval_us=0,first_data_us=40"
    host, drive, t_ns = queued_reads(cfg, [200, 300, 400, 500], 8)
    assert host.errors == [] and host.completed() == 0xF
    check_reads(host, drive, range(4))
    # one read: cmd_us 5 + first data 40 + 4 KiB at 250 MB/s (16.4 us) = 61 us of media time
    assert 61e3 < t_ns < 2*61e3, t_ns
    print(f"slc: 4 queued 4 KiB reads in {t_ns/1e3:.1f} us (one read's media time 61 us)")


def test_one_set_device_bits_completes_several_tags():
    """Under load the drive reports several finished tags in one SDB: the layer completes all of
    them at once, each tag exactly once. (A 5 us media wait lets the queue fill, so that data
    phases are ready back to back: the drive then holds completions back.)"""
    host, drive, _ = queued_reads(IDEAL + ",first_data_us=5", [1000 + 8*t for t in range(8)], 1)
    masks = [m for _, m in host.done]
    assert host.errors == []
    assert sum(bin(m).count("1") for m in masks) == 8 and host.completed() == 0xFF
    assert max(bin(m).count("1") for m in masks) > 1, [hex(m) for m in masks]
    assert drive.stats()["ncq_sdb_multi"] >= 1
    check_reads(host, drive, range(8))


def test_ncq_error_reports_the_failing_tag_and_lba_and_the_queue_recovers():
    """The drive fails tag 2 (error_lba inside its range): an SDB with ERR, then the layer reads
    log 10h and reports tag 2, its LBA, status and error; tag 3, queued behind it, is reported
    aborted. Re-issued and new commands (a write and its read-back) then complete."""
    drive = vdrive.VirtualDrive(IDEAL + ",error_lba=304")
    lbas = [100, 200, 300, 400]
    for lba in lbas + [500]:
        drive.write_sectors(lba, to_bytes(pattern(lba, 8, 7)))
    dut = ncq_dut()
    host = Host(dut)
    res = {}

    def main():
        for t, lba in enumerate(lbas):
            yield from host.issue(0, lba, 8, t)
        yield from host.wait_idle()
        res["first"] = host.completed()
        host.done.clear()
        yield from host.issue(0, 400, 8, 3)                 # the aborted tag, again
        yield from host.issue(1, 600, 8, 9, seed=7)
        yield from host.issue(0, 500, 8, 2)                 # the failed tag, another LBA
        yield from host.wait_idle()
        yield from host.issue(0, 600, 8, 9)
        yield from host.wait_idle()

    run(dut, drive, host, main)
    st = drive.stats()
    assert len(host.errors) == 1, host.errors
    e = host.errors[0]
    assert e["reason"] == NCQ_REASON["DEVICE_ERROR"]
    assert e["tag_valid"] == 1 and e["tag"] == 2 and e["lba"] == 304 and e["count"] == 8
    assert e["status"] == 0x41 and e["error"] == 0x04
    assert res["first"] == 0b0011 and e["aborted"] == 0b1000
    assert st["cmd_read_log"] == 1 and st["ncq_errors"] == 1
    assert host.completed() == (1 << 9) | 0b1100
    host.issued[9] = (0, 600, 8)
    check_reads(host, drive, [0, 1, 2, 3, 9])
    assert drive.read_sectors(600, 8) == to_bytes(pattern(600, 8, 7))


def test_non_queued_command_with_tags_outstanding_is_refused():
    """A READ DMA EXT presented while two queued reads are outstanding ends at once as failed and
    never reaches the drive (which would abort the queue); the queued reads complete, and the same
    non-queued read then works."""
    drive = vdrive.VirtualDrive("persona=slc,capacity=8192,cominit_interval_us=0,first_data_us=30")
    for lba in (8, 64, 72):
        drive.write_sectors(lba, to_bytes(pattern(lba, 8, 7)))
    dut = ncq_dut()
    host = Host(dut)
    res = {}

    def main():
        yield from host.issue(0, 64, 8, 0)
        yield from host.issue(0, 72, 8, 1)
        for _ in range(5*SYS_MHZ):                          # tag 1's command FIS is taken
            if (yield host.ncq.outstanding) == 0b11:
                break
            yield
        res["outstanding"] = yield host.ncq.outstanding
        res["refused"] = yield from command(dut, dict(read=1, sector=8, count=1), timeout_us=5)
        yield from host.wait_idle()
        res["after"] = yield from command(dut, dict(read=1, sector=8, count=1))

    run(dut, drive, host, main)
    st = drive.stats()
    assert res["outstanding"] == 0b11
    assert res["refused"]["failed"] == 1 and res["refused"]["data"] == []
    assert host.refused == 1
    assert host.errors == [] and host.completed() == 0b11
    check_reads(host, drive, [0, 1])
    assert res["after"]["failed"] == 0 and res["after"]["data"] == pattern(8, 1, 7)
    assert st["cmd_read_dma_ext"] == 1 and st["ncq_errors"] == 0 and st["ncq_aborted"] == 0


def two_reads_setup():
    """The SLC drive with 8 sectors written at LBAs 8 and 64 (a non-queued and a queued read of
    them), the core with its queued layer, and the host model; returns (drive, dut, host)."""
    drive = vdrive.VirtualDrive("persona=slc,capacity=8192,cominit_interval_us=0,first_data_us=20")
    for lba in (8, 64):
        drive.write_sectors(lba, to_bytes(pattern(lba, 8, 7)))
    dut = ncq_dut()
    return drive, dut, Host(dut)


@pytest.mark.parametrize("offset", [-1, 0, 1, 2])
def test_queued_and_non_queued_commands_presented_together(offset):
    """A queued read and a READ DMA EXT presented in the same cycle, or ``offset`` cycles apart
    (the queued one later when positive): the drive never has the non-queued command with a tag
    outstanding (it would abort the queue). Whichever is taken first, both reads end: the
    non-queued one with its data or refused, the queued one with its data."""
    drive, dut, host = two_reads_setup()
    res = {}

    def queued():
        yield "passive"
        while "go" not in res:
            yield
        for _ in range(max(offset, 0)):
            yield
        yield from host.issue(0, 64, 8, 0)
        res["taken"] = True

    def main():
        res["go"] = True
        for _ in range(max(-offset, 0)):
            yield
        res["nq"] = yield from command(dut, dict(read=1, sector=8, count=8))
        while "taken" not in res:
            yield
        yield from host.wait_idle()

    run(dut, drive, host, main, extra=[queued()])
    st = drive.stats()
    assert st["ncq_aborted"] == 0 and st["ncq_errors"] == 0 and host.errors == []
    assert host.completed() == 0b1
    check_reads(host, drive, [0])
    if host.refused:
        assert res["nq"]["failed"] == 1 and st["cmd_read_dma_ext"] == 0
    else:
        assert res["nq"]["failed"] == 0 and res["nq"]["data"] == pattern(8, 8, 7)
        assert st["cmd_read_dma_ext"] == 1


def test_a_silent_drive_times_out_with_a_reason():
    """The drive stops answering after its first command: the second queued command's answer never
    comes, and the layer reports TIMEOUT_CMD with that tag aborted after the configured silence."""
    drive = vdrive.VirtualDrive(IDEAL + ",stop_after_cmds=1")
    dut = ncq_dut()
    host = Host(dut)
    res = {}

    def main():
        yield host.ncq.timeout.eq(20*SYS_MHZ)
        yield from host.issue(0, 8, 1, 0)
        yield from host.wait_idle()
        t0 = now_ns()
        yield from host.issue(0, 16, 1, 1)
        yield from host.wait_idle()
        res["t_ns"] = host.errors[0]["t_ns"] - t0 if host.errors else None
        res["outstanding"] = yield host.ncq.outstanding

    run(dut, drive, host, main)
    assert host.completed() == 0b1
    assert len(host.errors) == 1
    e = host.errors[0]
    assert e["reason"] == NCQ_REASON["TIMEOUT_CMD"] and e["aborted"] == 0b10
    assert 20e3 <= res["t_ns"] < 25e3, res["t_ns"]
    assert res["outstanding"] == 0


@pytest.mark.parametrize("wait", ["sdb", "data"])
def test_a_wait_longer_than_the_timeout(wait):
    """A 20 us limit: a read on a drive that takes 60 us to find its data ends as TIMEOUT_SDB;
    a write whose data the user never gives ends as TIMEOUT_DATA. The tag is reported aborted,
    nothing is left outstanding and the layer is idle."""
    drive = vdrive.VirtualDrive("persona=slc,capacity=8192,cominit_interval_us=0,first_data_us=60")
    dut = ncq_dut()
    host = Host(dut, answer_writes=False)
    res = {}

    def main():
        yield host.ncq.timeout.eq(20*SYS_MHZ)
        res["t0"] = now_ns()
        yield from host.issue(int(wait == "data"), 8, 1, 3)
        yield from host.wait_idle()
        res["outstanding"] = yield host.ncq.outstanding

    run(dut, drive, host, main)
    assert len(host.errors) == 1
    e = host.errors[0]
    reason = {"sdb": "TIMEOUT_SDB", "data": "TIMEOUT_DATA"}[wait]
    assert e["reason"] == NCQ_REASON[reason] and e["aborted"] == 1 << 3
    assert host.completed() == 0 and res["outstanding"] == 0
    if wait == "data":
        assert host.wr_reqs == []
    # 20 us after the last FIS (the drive's answer, or its DMA Setup), long before the data
    assert 20e3 < e["t_ns"] - res["t0"] < 40e3, e["t_ns"] - res["t0"]


def test_transfers_of_several_data_fis():
    """24-sector commands (12 KiB: two Data FISes each way, the second write FIS after a DMA
    Activate): the write requests cover each tag's transfer in order, the data is right."""
    drive = vdrive.VirtualDrive(IDEAL)
    dut = ncq_dut()
    host = Host(dut)
    lbas = [1000, 2000]

    def main():
        for t, lba in enumerate(lbas):
            yield from host.issue(1, lba, 24, t, seed=7)
        yield from host.wait_idle()
        for t, lba in enumerate(lbas):
            yield from host.issue(0, lba, 24, t)
        yield from host.wait_idle()

    run(dut, drive, host, main)
    assert host.errors == [] and host.completed() == 0b11
    assert host.wr_reqs == [(0, 0, 2048), (0, 2048, 1024), (1, 0, 2048), (1, 2048, 1024)]
    for lba in lbas:
        assert drive.read_sectors(lba, 24) == to_bytes(pattern(lba, 24, 7))
    check_reads(host, drive, [0, 1])


# A read's FISes from the drive: 1 signature, 2 Register D2H (BSY clear), 3 DMA Setup, 4 Data, 5 SDB.
@pytest.mark.parametrize("fis,name", [(3, "dma_setup"), (4, "data"), (5, "sdb")])
def test_a_fis_with_a_crc_error(fis, name):
    """The drive's FIS arrives with a bad CRC (the link answers R_ERR). A DMA Setup or an SDB is
    ignored and its repeat taken: the read completes with its data. A Data FIS's last dword
    carries ``error`` and the drive fails the command: the layer reports tag 0 with its LBA and
    ICRC|ABRT. The next read works in every case."""
    drive = vdrive.VirtualDrive(IDEAL + f",crc_error_fis={fis}")
    drive.write_sectors(40, to_bytes(pattern(40, 8, 7)))
    dut = ncq_dut()
    host = Host(dut)
    res = {}

    def main():
        yield from host.issue(0, 40, 8, 0)
        yield from host.wait_idle()
        res["first"] = dict(done=host.completed(), data=host.read_data.get(0))
        yield from host.issue(0, 40, 8, 1)
        yield from host.wait_idle()

    run(dut, drive, host, main)
    st = drive.stats()
    assert st["injected_crc"] == 1 and st["r_err_received"] == 1
    if name == "data":
        assert host.read_errors == 1 and res["first"]["done"] == 0
        assert len(host.errors) == 1
        e = host.errors[0]
        assert (e["reason"], e["tag_valid"], e["tag"], e["lba"], e["count"], e["status"],
                e["error"], e["aborted"]) == (NCQ_REASON["DEVICE_ERROR"], 1, 0, 40, 8, 0x41,
                                              0x84, 0)
        assert st["cmd_read_log"] == 1 and st["ncq_errors"] == 1
    else:
        assert host.read_errors == 0 and host.errors == [] and st["cmd_read_log"] == 0
        assert res["first"] == dict(done=0b1, data=pattern(40, 8, 7))
    assert host.completed() & 0b10 and host.read_data[1] == pattern(40, 8, 7)


def test_queued_command_waits_for_a_non_queued_command_in_flight():
    """A queued read presented while a READ DMA EXT is in flight is not taken until that command
    has ended (the drive would abort it otherwise); both complete with their data."""
    drive, dut, host = two_reads_setup()
    res = {}

    def queued():
        yield "passive"
        while "t_start" not in res:
            yield
        for _ in range(2*SYS_MHZ):
            yield
        res["t_queued"] = now_ns()
        yield from host.issue(0, 64, 8, 0)
        res["t_taken"] = now_ns()

    def main():
        res["t_start"] = now_ns()
        res["nq"] = yield from command(dut, dict(read=1, sector=8, count=8))
        res["t_end"] = now_ns()
        yield from host.wait_idle()
        while "t_taken" not in res:
            yield
        yield from host.wait_idle()

    run(dut, drive, host, main, extra=[queued()])
    st = drive.stats()
    assert res["nq"]["failed"] == 0 and res["nq"]["data"] == pattern(8, 8, 7)
    assert res["t_queued"] < res["t_end"] - 10e3 and res["t_taken"] >= res["t_end"] - 100, res
    assert host.refused == 0 and host.errors == [] and host.completed() == 0b1
    check_reads(host, drive, [0])
    assert st["cmd_read_dma_ext"] == 1 and st["cmd_fpdma_read"] == 1 and st["ncq_aborted"] == 0


def test_a_queued_command_the_drive_refuses():
    """Tag 7 on a drive that queues 4 (ncq_depth=4): the drive answers with ERR and drops the queue.
    The layer reads log 10h (NQ set: no queued command failed) and reports CMD_REFUSED with every
    outstanding tag aborted; a read on tag 0 then works."""
    drive = vdrive.VirtualDrive("persona=slc,capacity=8192,cominit_interval_us=0,first_data_us=30,"
                                "ncq_depth=4")
    for lba in (64, 72):
        drive.write_sectors(lba, to_bytes(pattern(lba, 8, 7)))
    dut = ncq_dut()
    host = Host(dut)

    def main():
        yield from host.issue(0, 64, 8, 0)
        yield from host.issue(0, 72, 8, 1)
        yield from host.issue(0, 80, 8, 7)
        yield from host.wait_idle()
        yield from host.issue(0, 64, 8, 0)
        yield from host.wait_idle()

    run(dut, drive, host, main)
    st = drive.stats()
    assert len(host.errors) == 1
    e = host.errors[0]
    assert e["reason"] == NCQ_REASON["CMD_REFUSED"] and e["tag_valid"] == 0
    assert e["aborted"] == (1 << 7) | 0b11
    assert st["ncq_aborted"] == 2 and st["cmd_read_log"] == 1
    assert host.completed() == 0b1 and host.read_data[0] == pattern(64, 8, 7)


def test_ncq_error_on_a_queued_write():
    """error_lba inside the second of two queued writes: the first is written and completed, the
    second is reported with its tag and LBA and its data never requested; a write after it works."""
    drive = vdrive.VirtualDrive(IDEAL + ",error_lba=210")
    dut = ncq_dut()
    host = Host(dut)

    def main():
        yield from host.issue(1, 100, 8, 0, seed=7)
        yield from host.issue(1, 208, 8, 1, seed=7)
        yield from host.wait_idle()
        yield from host.issue(1, 300, 8, 1, seed=7)
        yield from host.wait_idle()

    run(dut, drive, host, main)
    assert len(host.errors) == 1
    e = host.errors[0]
    assert (e["reason"], e["tag_valid"], e["tag"], e["lba"], e["count"], e["aborted"]) == \
        (NCQ_REASON["DEVICE_ERROR"], 1, 1, 210, 8, 0)
    assert [m for _, m in host.done] == [0b01, 0b10]
    assert host.wr_reqs == [(0, 0, 1024), (1, 0, 1024)]
    for lba in (100, 300):
        assert drive.read_sectors(lba, 8) == to_bytes(pattern(lba, 8, 7))


# FIS-level tests of the per-tag rules: the drive's FISes built here ----------------------------

D2H_GOOD = [0x34 | (0x40 << 16), 0, 0, 0, 0]                   # BSY clear: the command is queued


def dma_setup(tag, count, read, auto=0, offset=0):
    """DMA Setup FIS (SATA 3.x §10.3.8): D (to the host) bit 13, A bit 15, DMA Buffer Identifier
    low (the tag) dword 1, DMA Buffer Offset dword 4, DMA Transfer Count dword 5."""
    return [0x41 | (read << 13) | (auto << 15), tag, 0, 0, offset, count, 0]


def sdb(sactive, err=False):
    """Set Device Bits FIS, I set: status 40h (DRDY) or 41h with ABRT, SActive in dword 1."""
    return [0xA1 | (1 << 14) | ((0x41 if err else 0x40) << 16) | ((0x04 if err else 0) << 24),
            sactive]


class FisQueue:
    """The queued layer's user side for FisDUT tests: commands, read data taken at once, write
    requests answered (with ``write_dwords``), and every ``done``, error report and transport
    verdict recorded."""
    def __init__(self, dut, seed=3):
        from tests.core.test_command_with_transport import Bench
        self.dut, self.ncq = dut, dut.ncq
        self.bench = Bench(dut, seed=seed)
        self.done, self.reports, self.verdicts, self.reads, self.wr_reqs = [], [], [], [], []

    @passive
    def monitor(self):
        ncq, link = self.ncq, self.dut.link
        yield ncq.rd_source.ready.eq(1)
        while True:
            yield
            if (yield link.verdict_valid):
                self.verdicts.append((yield link.verdict_good))
            if (yield ncq.done):
                self.done.append((yield ncq.done))
            rd = ncq.rd_source
            if (yield rd.valid) and (yield rd.ready):
                self.reads.append(((yield rd.tag), (yield rd.error), (yield rd.last)))
            if (yield ncq.error):
                self.reports.append(dict(reason=(yield ncq.error_reason),
                                         tag=(yield ncq.error_tag),
                                         tag_valid=(yield ncq.error_tag_valid),
                                         aborted=(yield ncq.aborted)))

    @passive
    def writer(self):
        ncq = self.ncq
        yield ncq.wr_req.ready.eq(1)
        while True:
            yield
            if not ((yield ncq.wr_req.valid) and (yield ncq.wr_req.ready)):
                continue
            n = yield ncq.wr_req.dwords
            self.wr_reqs.append(((yield ncq.wr_req.tag), (yield ncq.wr_req.offset), n))
            yield ncq.wr_req.ready.eq(0)
            for i in range(n):
                yield ncq.wr_sink.data.eq(i)
                yield ncq.wr_sink.last.eq(int(i == n - 1))
                yield ncq.wr_sink.valid.eq(1)
                yield
                while not (yield ncq.wr_sink.ready):
                    yield
            yield ncq.wr_sink.valid.eq(0)
            yield ncq.wr_req.ready.eq(1)

    def issue(self, write, tag, count, lba=0x1000):
        """One queued command: its Register H2D goes out and the drive answers BSY clear."""
        ncq, frames = self.ncq, len(self.bench.frames)
        for k, v in dict(write=write, fua=0, tag=tag, lba=lba, count=count & 0xFFFF,
                         valid=1).items():
            yield getattr(ncq.sink, k).eq(v)
        yield
        while not (yield ncq.sink.ready):
            yield
        yield ncq.sink.valid.eq(0)
        yield from self.bench.wait_frames(frames + 1)
        yield from self.send(D2H_GOOD)

    def send(self, frame, error=False):
        """A frame from the drive; ``error`` on its last dword (bad CRC, or the drive abandoned
        it) as the link layer marks it."""
        yield from self.bench.send_frame(frame, error=error)
        for _ in range(8):                  # the drive's next frame: a few dword times later
            yield

    def data(self, dwords, error=False):
        yield from self.send([0x46] + list(range(dwords)), error)

    def wait(self, cycles=50):
        for _ in range(cycles):
            yield

    def run(self, body):
        run_sorted_simulation(self.dut, [self.bench.link_capture(), self.monitor(),
                                         self.writer(), body()])


def report(reason, tag=0, tag_valid=0, aborted=0):
    return dict(reason=NCQ_REASON[reason], tag=tag, tag_valid=tag_valid, aborted=aborted)


@pytest.mark.parametrize("how", ["crc", "abandoned"])
def test_a_read_whose_data_fis_failed_is_not_done_when_the_drive_completes_it(how):
    """Tags 0 and 1 are queued reads of a sector. Tag 0's Data FIS ends with ``error`` (its CRC
    failed, or the drive abandoned it after 64 dwords) and the drive then completes tag 0 with a
    good Set Device Bits FIS anyway: tag 0 is never in ``done``; it is reported as DATA_CRC with
    its tag, nothing aborted, and tag 1 stays outstanding and then completes normally."""
    dut = FisDUT()
    q = FisQueue(dut)
    res = {}

    def body():
        yield from q.issue(0, 0, 1)
        yield from q.issue(0, 1, 1)
        res["queued"] = yield dut.ncq.outstanding
        yield from q.send(dma_setup(0, 512, read=1))
        yield from q.data(128 if how == "crc" else 64, error=True)
        yield from q.send(sdb(1 << 0))
        yield from q.wait()
        res["after"] = yield dut.ncq.outstanding
        yield from q.send(dma_setup(1, 512, read=1))
        yield from q.data(128)
        yield from q.send(sdb(1 << 1))
        yield from q.wait()
        res["end"] = ((yield dut.ncq.outstanding), (yield dut.ncq.busy))

    q.run(body)
    assert res["queued"] == 0b11
    assert q.done == [0b10], f"done {q.done}"
    assert q.reports == [report("DATA_CRC", tag=0, tag_valid=1)], q.reports
    assert res["after"] == 0b10 and res["end"] == (0, 0)
    n0 = 128 if how == "crc" else 64
    assert q.reads == [(0, 0, 0)]*(n0 - 1) + [(0, 1, int(n0 == 128))] + \
        [(1, 0, 0)]*127 + [(1, 0, 1)]
    assert all(q.verdicts), q.verdicts


def test_a_write_whose_data_fis_was_refused_is_not_done_when_the_drive_completes_it():
    """A queued write of a sector on tag 2: the drive refuses our Data FIS (R_ERR) and then
    completes tag 2 with a good Set Device Bits FIS anyway: tag 2 is not in ``done``; it is
    reported as DATA_CRC with its tag and nothing aborted."""
    dut = FisDUT()
    q = FisQueue(dut)
    res = {}

    def body():
        yield from q.issue(1, 2, 1)
        yield from q.send(dma_setup(2, 512, read=0))
        yield dut.refuse_tx.eq(1)
        yield from q.send([0x39])                                   # DMA Activate
        yield from q.bench.wait_frames(2)
        yield dut.refuse_tx.eq(0)
        yield from q.send(sdb(1 << 2))
        yield from q.wait()
        res["end"] = ((yield dut.ncq.outstanding), (yield dut.ncq.busy))

    q.run(body)
    assert q.wr_reqs == [(2, 0, 128)] and len(q.bench.frames[1]) == 129
    assert q.done == [], f"done {q.done}"
    assert q.reports == [report("DATA_CRC", tag=2, tag_valid=1)], q.reports
    assert res["end"] == (0, 0)


@pytest.mark.parametrize("case", ["offset", "count_short", "count_long", "second_setup"])
def test_a_dma_setup_that_breaks_the_protocol_ends_the_queue(case):
    """A queued read of 16 sectors (8,192 bytes) on tag 5, and tag 6 queued beside it. A DMA
    Setup with a non-zero DMA Buffer Offset (never enabled: SET FEATURES 10h/01h), a DMA Transfer
    Count other than the command's bytes (6,144: the fuzzer's short read; or 8,704), or a second
    DMA Setup for the tag once its data is in: PROTOCOL, every outstanding tag aborted, and tag 5
    is never in ``done`` even though the drive goes on with data and a good Set Device Bits."""
    dut = FisDUT()
    q = FisQueue(dut)
    res = {}
    setup = dict(offset=dict(count=8192, offset=512), count_short=dict(count=6144),
                 count_long=dict(count=8704), second_setup=dict(count=8192))[case]

    def body():
        yield from q.issue(0, 5, 16)
        yield from q.issue(0, 6, 1)
        if case == "second_setup":
            yield from q.send(dma_setup(5, 8192, read=1))
            yield from q.data(2048)
        yield from q.send(dma_setup(5, read=1, **setup))
        yield from q.data(setup["count"] // 4)
        yield from q.send(sdb(1 << 5))
        yield from q.wait()
        res["end"] = ((yield dut.ncq.outstanding), (yield dut.ncq.busy))

    q.run(body)
    assert q.done == [], f"done {q.done}"
    assert q.reports == [report("PROTOCOL", aborted=(1 << 5) | (1 << 6))], q.reports
    assert res["end"] == (0, 0)


def test_a_dma_setup_of_65536_sectors_is_taken():
    """Count 0 in the command is 65,536 sectors: a DMA Setup for 32 MiB opens the read phase and
    nothing is reported."""
    dut = FisDUT()
    q = FisQueue(dut)
    res = {}

    def body():
        yield from q.issue(0, 9, 65536)
        yield from q.send(dma_setup(9, 65536*512, read=1))
        yield from q.data(2048)
        yield from q.wait()
        res["state"] = ((yield dut.ncq.outstanding), (yield dut.ncq.rx_accept_data))

    q.run(body)
    assert q.reports == [] and res["state"] == (1 << 9, 1)
    assert len(q.reads) == 2048 and all(v for v in q.verdicts)


@pytest.mark.parametrize("write", [0, 1])
def test_a_completion_with_no_data_is_refused(write):
    """A queued command of a sector on tag 4 that the drive completes with a good Set Device
    Bits FIS before any data moved (no DMA Setup at all): the SDB is refused (R_ERR) each time
    the drive sends it, and after FIS_REFUSALS the queue ends with PROTOCOL: the tag is never in
    ``done``."""
    from ecpsata.core.ncq import FIS_REFUSALS
    dut = FisDUT()
    q = FisQueue(dut)

    def body():
        yield from q.issue(write, 4, 1)
        for _ in range(FIS_REFUSALS):
            yield from q.send(sdb(1 << 4))
        yield from q.wait()

    q.run(body)
    assert q.done == [], f"done {q.done}"
    assert q.verdicts[-FIS_REFUSALS:] == [0]*FIS_REFUSALS, q.verdicts
    assert q.reports == [report("PROTOCOL", aborted=1 << 4)], q.reports


def test_a_refused_completion_the_drive_does_not_send_again_ends_the_queue():
    """The drive completes tag 4 with a Set Device Bits FIS that we must refuse (no data moved),
    and does not send it again (a transmitter need not retry): within REPEAT_TIME of the refusal
    the queue ends with PROTOCOL, not at the queue's timeout."""
    dut = FisDUT()
    q = FisQueue(dut)
    repeat_cycles = int(REPEAT_TIME*75e6)

    def body():
        yield from q.issue(0, 4, 1)
        yield from q.send(sdb(1 << 4))
        for _ in range(repeat_cycles - 50):
            yield
        assert q.reports == [], "ended before REPEAT_TIME"
        yield from q.wait(100)

    q.run(body)
    assert q.done == []
    assert q.reports == [report("PROTOCOL", aborted=1 << 4)], q.reports
