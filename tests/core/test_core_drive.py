# SPDX-License-Identifier: BSD-2-Clause
"""What real drives do that the virtual drive did not, against the PHY, our core and the error
block in Migen: a hard disk that spins up before it sends its signature, a non-ATA device, an
IDENTIFY in several DRQ blocks, a drive that abandons a frame (SYNC escape) or ends our write's
Data FIS early (DMAT), and a write cache that only FLUSH CACHE EXT empties. Each must end in a
named result within a bounded time, and the next command must work.

Times are scaled down (a spin-up of 100 us instead of seconds): Migen runs the drive and the core at
about a thousandth of real time, and the logic does not depend on the duration.
"""

import pytest
from migen import *

from ecpsata.core.common import CMD_REASON, SIGNATURE_ATA
from tests.support.core_harness import core_dut, command, run, SYS_CLK_FREQ
from tests.support.phy_harness import now_ns

from ecpsata.sim import vdrive

# Word-level simulation against the virtual drive: `pytest -m "not system and not slow"` leaves these out.
pytestmark = pytest.mark.slow

DRIVE = "persona=ideal,capacity=4096,cominit_interval_us=0"


def errors_dut(**kw):
    """The PHY, the core and the error block (ecpsata/frontend/errors.py) as in the SoC."""
    from ecpsata.frontend.errors import ECPSATAErrors
    dut = core_dut(**kw)
    dut.errors = ECPSATAErrors(dut.core, dut.phy, SYS_CLK_FREQ)
    return dut


def wait_link(dut, timeout_us=60):
    t0 = now_ns()
    while not (yield dut.phy.ready):
        assert now_ns() - t0 < timeout_us * 1e3, "no link"
        yield
    return now_ns()


def wait_dev_ready(dut, timeout_us):
    t0 = now_ns()
    while not (yield dut.errors.ready):
        assert now_ns() - t0 < timeout_us * 1e3, "the drive never became ready"
        assert not (yield dut.errors.dev_never_ready.status), "never ready"
        yield
    return now_ns()


def words(seed, n=128):
    return [(seed * 0x9E3779B1 + i * 0x01000193) & 0xFFFFFFFF for i in range(n)]


@pytest.mark.parametrize("busy_fis", [0, 1])
def test_a_spinning_up_drive_is_ready_only_when_its_signature_clears_bsy(busy_fis):
    """The drive links at once but sends its signature (BSY clear) 100 us later (with busy_fis a
    Register D2H with BSY set first, which some drives send): the error block says busy until
    then, counts the busy time and latches the ATA signature; IDENTIFY then works. Before, the
    host took any Register D2H, BSY set or not, or 10 ms of silence, for ready."""
    drive = vdrive.VirtualDrive(DRIVE + f",spinup_us=100,busy_fis={busy_fis}")
    dut = errors_dut()
    res = {}

    def proc():
        t_link = yield from wait_link(dut)
        for _ in range(2000):                       # 20 us: the BSY FIS (if any) has come
            yield
        res["ready_early"] = yield dut.errors.ready
        res["sig_early"] = yield dut.errors.dev_signature.status
        t_ready = yield from wait_dev_ready(dut, 1000)
        res["busy_us"] = (t_ready - t_link) / 1e3
        res["busy_cycles"] = yield dut.errors.dev_busy_time.status
        res["sig"] = yield dut.errors.dev_signature.status
        res["identify"] = yield from command(dut, dict(identify=1), timeout_us=200)

    run(dut, drive, proc())
    assert res["ready_early"] == 0
    assert res["sig_early"] == (SIGNATURE_ATA if busy_fis else 0)
    assert 90 < res["busy_us"] < 200, res["busy_us"]
    assert res["busy_cycles"] == pytest.approx(res["busy_us"] * 100, rel=0.02)
    assert res["sig"] == SIGNATURE_ATA
    assert res["identify"]["failed"] == 0 and len(res["identify"]["data"]) == 128
    assert drive.stats()["cmd_while_busy"] == 0
    print(f"spin-up: ready {res['busy_us']:.1f} us after link-up (drive's spin-up 100 us)")


def test_a_drive_that_never_clears_bsy_is_reported_never_ready():
    """No signature at all: not ready, ever; once the busy time reaches ready_timeout the block
    says never ready (the firmware and host name it)."""
    drive = vdrive.VirtualDrive(DRIVE + ",signature=0")
    dut = errors_dut()
    res = {}

    def proc():
        yield dut.errors.ready_timeout.storage.eq(10_000)        # 100 us
        yield from wait_link(dut)
        t0 = now_ns()
        while not (yield dut.errors.dev_never_ready.status):
            assert now_ns() - t0 < 200e3, "never_ready did not rise"
            assert not (yield dut.errors.ready)
            yield
        res["after_us"] = (now_ns() - t0) / 1e3

    run(dut, drive, proc())
    assert 90 < res["after_us"] < 110, res["after_us"]


def test_an_atapi_device_signature_and_its_aborted_identify():
    """An ATAPI device: its signature is latched as such, and IDENTIFY DEVICE, which it aborts,
    ends at once with the device's status and reason DEVICE (before: a timeout)."""
    drive = vdrive.VirtualDrive(DRIVE + ",atapi=1")
    dut = errors_dut()
    res = {}

    def proc():
        yield from wait_link(dut)
        yield from wait_dev_ready(dut, 100)
        res["sig"] = yield dut.errors.dev_signature.status
        res["identify"] = yield from command(dut, dict(identify=1), timeout_us=30)
        res["reason"] = yield dut.errors.cmd_reason.status
        res["status"] = yield dut.errors.dev_status.status
        res["error"] = yield dut.errors.dev_error.status

    run(dut, drive, proc())
    assert res["sig"] == 0xEB140101
    assert res["identify"]["failed"] == 1 and res["identify"]["t_ns"] < 10e3
    assert (res["reason"], res["status"], res["error"]) == (CMD_REASON["DEVICE"], 0x51, 0x04)


@pytest.mark.parametrize("blocks", [4, 128])
def test_identify_in_drq_blocks_back_to_back(blocks):
    """IDENTIFY in `blocks` PIO Setup + Data FIS pairs, back to back (10 times in 4 blocks, once
    in 128), with a read after each: every IDENTIFY gives the same 512 bytes and ends, and no stray FIS reaches the read.
    (LiteSATA's command layer took the first Data FIS's end as IDENTIFY's end.)"""
    n = 10 if blocks == 4 else 1
    drive = vdrive.VirtualDrive(DRIVE + f",pio_blocks={blocks}")
    drive.write_sectors(9, b"".join(w.to_bytes(4, "little") for w in words(9)))
    dut = errors_dut()
    res = {"ident": [], "reads": []}

    def proc():
        yield from wait_link(dut)
        yield from wait_dev_ready(dut, 100)
        for _ in range(n):
            res["ident"].append((yield from command(dut, dict(identify=1), timeout_us=1000)))
            res["reads"].append((yield from command(dut, dict(read=1, sector=9, count=1))))

    run(dut, drive, proc())
    first = res["ident"][0]["data"]
    assert len(first) == 128
    assert all(r["failed"] == 0 and r["data"] == first for r in res["ident"])
    assert all(r["failed"] == 0 and r["data"] == words(9) for r in res["reads"])
    assert drive.stats()["pio_setups"] == n * blocks


def test_a_data_fis_the_drive_abandons_fails_the_read_with_reason_escape():
    """The drive aborts its read Data FIS with SYNC (an internal error), then fails the command:
    the read ends failed, reason ESCAPE, within microseconds; the next read is clean. (Before, the
    link stayed in its receive state sending R_IP until a timeout reset the core.)"""
    drive = vdrive.VirtualDrive(DRIVE + ",escape_fis=2")         # 1: signature, 2: the Data FIS
    drive.write_sectors(12, b"".join(w.to_bytes(4, "little") for w in words(12)))
    dut = errors_dut()
    res = {}

    def proc():
        yield from wait_link(dut)
        yield from wait_dev_ready(dut, 100)
        res["bad"] = yield from command(dut, dict(read=1, sector=12, count=1), timeout_us=100)
        res["reason"] = yield dut.errors.cmd_reason.status
        res["escapes"] = yield dut.errors.escapes.status
        res["good"] = yield from command(dut, dict(read=1, sector=12, count=1))

    run(dut, drive, proc())
    assert res["bad"]["failed"] == 1 and res["bad"]["t_ns"] < 20e3
    assert (res["reason"], res["escapes"]) == (CMD_REASON["ESCAPE"], 1)
    assert res["good"]["failed"] == 0 and res["good"]["data"] == words(12)
    assert drive.stats()["injected_escapes"] == 1


@pytest.mark.parametrize("resume", [0, 1])
def test_dmat_ends_our_data_fis_early(resume):
    """The drive sends DMAT 16 dwords into our write's Data FIS: we end the frame within a few
    dwords (CRC, EOF). Then either the drive fails the write (reason DMAT, named) or, with
    dmat_resume, asks for the rest with a DMA Activate and the write completes with the right
    data. The next write works either way."""
    drive = vdrive.VirtualDrive(DRIVE + f",dmat_fis=1,dmat_resume={resume}")
    dut = errors_dut()
    data = words(20, 4 * 128)
    res = {}

    def proc():
        yield from wait_link(dut)
        yield from wait_dev_ready(dut, 100)
        res["w"] = yield from command(dut, dict(write=1, sector=40, count=4), data_in=data,
                                      timeout_us=100)
        res["reason"] = yield dut.errors.cmd_reason.status
        res["w2"] = yield from command(dut, dict(write=1, sector=80, count=4), data_in=data)
        res["r2"] = yield from command(dut, dict(read=1, sector=80, count=4))

    run(dut, drive, proc())
    st = drive.stats()
    # what was already on its way: the PHY's 16-dword transmit FIFO and the link's pipeline
    assert st["dmat_sent"] == 1 and st["dmat_dwords_after"] <= 20, st["dmat_dwords_after"]
    if resume:
        assert res["w"]["failed"] == 0
        assert drive.read_sectors(40, 4) == b"".join(w.to_bytes(4, "little") for w in data)
    else:
        assert res["w"]["failed"] == 1 and res["reason"] == CMD_REASON["DMAT"]
    assert res["w2"]["failed"] == 0 and res["r2"]["data"] == data


def test_flush_cache_ext_from_the_core_waits_for_the_cache():
    """A write the drive's cache holds completes at line rate; FLUSH CACHE EXT (a non-data
    command on the core's port) then takes what the cache still held at the medium's rate: the
    two together give the medium's write rate."""
    drive = vdrive.VirtualDrive(DRIVE + ",write_mbps=100,write_cache_kb=1024")
    dut = errors_dut()
    data = words(30, 16 * 128)                 # 8 KiB: one Data FIS
    res = {}

    def proc():
        yield from wait_link(dut)
        yield from wait_dev_ready(dut, 100)
        res["w"] = yield from command(dut, dict(write=1, sector=0, count=16), data_in=data,
                                      timeout_us=400)
        res["f"] = yield from command(dut, dict(nodata=1, command=0xEA), timeout_us=1000)

    run(dut, drive, proc())
    assert res["w"]["failed"] == 0 and res["f"]["failed"] == 0
    assert drive.stats()["cmd_flush"] == 1
    w_us, f_us = res["w"]["t_ns"] / 1e3, res["f"]["t_ns"] / 1e3
    # The medium starts on the data once the 8 KiB Data FIS is in (about 28 us at the line
    # rate), then takes 8,192 bytes at 100 MB/s: 81.9 us. The write alone is line rate.
    assert 81.9 + 25 < w_us + f_us < 81.9 + 35, (w_us, f_us)
    assert w_us < 40 and f_us > 70, (w_us, f_us)
    print(f"write {w_us:.1f} us into the cache, FLUSH CACHE EXT {f_us:.1f} us")
