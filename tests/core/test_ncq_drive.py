# SPDX-License-Identifier: BSD-2-Clause
"""The queued command layer with what real drives do (Migen, the virtual drive's NCQ): the NCQ
error log read in several DRQ blocks, and DMA Setup auto-activate, off as drives ship and on once
the host enables it with SET FEATURES (10h, count 02h)."""

import pytest
from migen import *

from ecpsata.core.common import FIS_DMA_ACTIVATE, NCQ_REASON
from tests.support.core_harness import command
from tests.support.ncq_harness import IDEAL, Host, ncq_dut, pattern, run, to_bytes
from tests.support.phy_harness import now_ns

from ecpsata.sim import vdrive

# Word-level simulation against the virtual drive: `pytest -m "not system and not slow"` leaves these out.
pytestmark = pytest.mark.slow


def test_the_ncq_error_log_in_drq_blocks_back_to_back():
    """The drive sends log 10h as 4 PIO Setup + Data FIS pairs: each of 4 NCQ errors in a row is
    reported with its tag and LBA, and the queue goes on after each. (The layer took the first
    Data FIS's end as the log's end.)"""
    drive = vdrive.VirtualDrive(IDEAL + ",pio_blocks=4,error_lba=304")
    dut = ncq_dut()
    host = Host(dut)

    def main():
        for rep in range(4):
            for t, lba in enumerate((100, 200, 300)):
                yield from host.issue(0, lba, 8, t)
            yield from host.wait_idle()

    run(dut, drive, host, main)
    assert len(host.errors) == 4, host.errors
    assert all(e["reason"] == NCQ_REASON["DEVICE_ERROR"] and e["tag_valid"] == 1 and
               e["tag"] == 2 and e["lba"] == 304 for e in host.errors)
    assert drive.stats()["cmd_read_log"] == 4 and drive.stats()["pio_setups"] == 4 * 4


@pytest.mark.parametrize("auto", [0, 1])
def test_queued_writes_with_and_without_auto_activate(auto):
    """8 queued 1 KiB writes: as drives ship, each write's DMA Setup is followed by a DMA
    Activate; once SET FEATURES 10h/02h enabled auto-activate, the DMA Setup itself asks for the
    data (A bit) and no DMA Activate comes. The data is right either way; the time per write is
    printed (one FIS less with auto-activate)."""
    writes = 8                                  # tags 0-7, all outstanding at once
    drive = vdrive.VirtualDrive(IDEAL)
    dut = ncq_dut()
    host = Host(dut)
    res = {"activates": 0}

    def count_activates():
        rx, trx = dut.core.transport.rx.source, dut.core.transport.rx
        yield "passive"
        while True:
            yield
            if ((yield rx.valid) and (yield rx.ready) and not (yield trx.refuse) and
                    (yield rx.type) == FIS_DMA_ACTIVATE):
                res["activates"] += 1

    def main():
        if auto:
            r = yield from command(dut, dict(nodata=1, command=0xEF, features=0x10, count=2))
            assert r["failed"] == 0
        t0 = now_ns()
        for i in range(writes):
            yield from host.issue(1, 100 + 2 * i, 2, i, seed=3)
        yield from host.wait_idle()
        res["us"] = (now_ns() - t0) / 1e3

    run(dut, drive, host, main, extra=[count_activates()])
    assert host.errors == [] and host.completed() == 0xFF
    for i in range(writes):
        lba = 100 + 2 * i
        assert drive.read_sectors(lba, 2) == to_bytes(pattern(lba, 2, 3)), f"write {i}"
    assert res["activates"] == (0 if auto else writes)
    print(f"auto-activate {'on' if auto else 'off'}: {writes} queued 1 KiB writes in "
          f"{res['us']:.1f} us ({res['us'] / writes:.2f} us each), {res['activates']} DMA Activate "
          f"FISes")


def test_a_non_queued_write_still_waits_for_dma_activate_with_auto_activate_on():
    """Auto-activate concerns the DMA Setup FIS of queued commands only: a WRITE DMA EXT after
    enabling it still gets its DMA Activate and completes."""
    drive = vdrive.VirtualDrive(IDEAL)
    dut = ncq_dut()
    host = Host(dut)
    res = {}
    data = pattern(40, 4, 5)

    def main():
        yield from command(dut, dict(nodata=1, command=0xEF, features=0x10, count=2))
        res["w"] = yield from command(dut, dict(write=1, sector=40, count=4), data_in=data)

    run(dut, drive, host, main)
    assert res["w"]["failed"] == 0
    assert drive.read_sectors(40, 4) == to_bytes(data)


def test_a_queued_read_short_of_its_data_is_not_completed():
    """The drive's Data FIS for a queued read ends a dword early (CRC good), then Set Device Bits
    completes the tag: the completion is refused (the data is short of the DMA Setup's count),
    the drive repeats it past the limit and the queue ends with PROTOCOL (once; the caller then
    resets the core, as the queued engine does); the tag is never reported done, so a short read
    never counts as good."""
    drive = vdrive.VirtualDrive(IDEAL + ",short_fis=4")
    drive.write_sectors(200, to_bytes(pattern(200, 8, 7)))
    dut = ncq_dut()
    host = Host(dut)

    def main():
        yield from host.issue(0, 200, 8, 3)
        yield from host.wait_idle()

    run(dut, drive, host, main)
    assert drive.stats()["injected_short_fis"] == 1
    assert len(host.errors) == 1, host.errors
    assert host.errors[0]["reason"] == NCQ_REASON["PROTOCOL"]
    assert host.completed() == 0, "the short read was reported complete"
    assert host.read_data[3] == pattern(200, 8, 7)[:-1]
