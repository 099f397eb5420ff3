# SPDX-License-Identifier: BSD-2-Clause
"""A drive that sends intact frames that are still wrong, against the PHY, our core and the error
block in Migen (the virtual drive's long_fis, short_fis, unknown_fis, stray_fis, extra_data and
fault_repeat keys): the host refuses what it cannot use (R_ERR, so that the drive sends it again)
or fails the command with a named reason; no command waits for a status that was thrown away, and
the SError bit that recorded the event is set.

FIS numbers count the drive's FISes from 1 (1 is the signature): for a one-sector read 2 is the
Data FIS and 3 the status, for a write 2 is the DMA Activate, for IDENTIFY 2 the PIO Setup.
"""

import pytest
from migen import *

from ecpsata.core.common import CMD_REASON, SERROR, serror_names
from tests.support.core_harness import command, run
from tests.core.test_core_drive import DRIVE, errors_dut, wait_dev_ready, wait_link, words

from ecpsata.sim import vdrive

# Word-level simulation against the virtual drive: `pytest -m "not system and not slow"` leaves these out.
pytestmark = pytest.mark.slow


STRAY_GAP_CYCLES = 300      # 3 us of sys at 100 MHz


def run_case(key, op, repeat=0):
    """One command of `op` with the fault `key`, then a clean read: (first, second, state)."""
    drive = vdrive.VirtualDrive(DRIVE + f",{key},fault_repeat={repeat}")
    drive.write_sectors(20, b"".join(w.to_bytes(4, "little") for w in words(20)))
    dut = errors_dut()
    res = {}

    def proc():
        yield from wait_link(dut)
        yield from wait_dev_ready(dut, 100)
        if op == "read":
            cmd = dict(read=1, sector=20, count=1)
            res["first"] = yield from command(dut, cmd, timeout_us=200)
        elif op == "write":
            res["first"] = yield from command(dut, dict(write=1, sector=30, count=1),
                                              data_in=words(30), timeout_us=200)
        else:
            res["first"] = yield from command(dut, dict(identify=1), timeout_us=200)
        if key.startswith("stray_fis"):
            # A status with no command: the line idle long enough for the drive to send it before
            # the next command (issued at once, the command wins the line and takes the stray
            # status as its own, short of its data: no host can tell the two apart).
            for _ in range(STRAY_GAP_CYCLES):
                yield
        res["second"] = yield from command(dut, dict(read=1, sector=20, count=1), timeout_us=2000)
        # after the clean read: a stray status comes after its command, and the reason of a
        # failed first command is still the last one (the second completed)
        for name in ("cmd_reason", "fis_refused", "cmd_failures"):
            res[name] = yield getattr(dut.errors, name).status
        res["serror"] = yield dut.errors.serror.w

    run(dut, drive, proc())
    return res, drive.stats()


@pytest.mark.parametrize("key,op,refused,bits", [
    ("long_fis=3",    "read",     1, {"TrStaTrns", "Proto"}),     # its status 2 dwords longer
    ("short_fis=3",   "read",     1, {"TrStaTrns", "Proto"}),     # its status 1 dword shorter
    ("long_fis=2",    "write",    1, {"TrStaTrns", "Proto"}),     # DMA Activate 3 dwords long
    ("long_fis=2",    "identify", 1, {"TrStaTrns", "Proto"}),     # the PIO Setup
    ("unknown_fis=2", "read",     1, {"UnrecFIS"}),               # a type SATA does not define
    ("unknown_fis=2", "identify", 1, {"UnrecFIS"}),
    ("stray_fis=3",   "read",     0, {"TrStaTrns"}),              # a status with no command
])
def test_a_bad_frame_is_refused_or_dropped_and_the_command_completes(key, op, refused, bits):
    res, st = run_case(key, op)
    assert res["first"]["failed"] == 0, (key, op)
    assert res["second"]["failed"] == 0 and res["second"]["data"] == words(20)
    assert res["fis_refused"] == refused
    assert bits <= set(serror_names(res["serror"])), serror_names(res["serror"])
    assert res["cmd_failures"] == 0


@pytest.mark.parametrize("key,op,reason", [
    ("long_fis=2",   "read", "EXTRA"),     # the Data FIS 2 dwords longer: more data than asked
    ("extra_data=1", "read", "EXTRA"),
    ("short_fis=2",  "read", "SHORT"),     # the Data FIS a dword short, then a good status
])
def test_wrong_data_fails_the_read_with_its_reason(key, op, reason):
    """Data that does not match the command cannot be refused (its frame was taken as it came):
    the read fails with a named reason once the drive's status has come; the next read works."""
    res, _ = run_case(key, op)
    assert res["first"]["failed"] == 1
    assert res["cmd_reason"] == CMD_REASON[reason]
    assert res["second"]["failed"] == 0 and res["second"]["data"] == words(20)


@pytest.mark.parametrize("key,op", [("long_fis=3", "read"), ("short_fis=3", "read"),
                                    ("long_fis=2", "write"), ("long_fis=2", "identify")])
def test_a_bad_frame_repeated_past_the_limit_fails_the_command_at_once(key, op):
    """The drive sends the bad frame again every time it is refused (fault_repeat): after
    FIS_REFUSALS refusals in a row the command fails with reason PROTOCOL, within microseconds
    (the core alone ends it: no engine, no firmware, no timeout), and once the drive gives up the
    next command works."""
    res, st = run_case(key, op, repeat=12)
    assert res["first"]["failed"] == 1 and res["first"]["t_ns"] < 20e3, res["first"]["t_ns"]
    assert res["cmd_reason"] == CMD_REASON["PROTOCOL"]
    assert "Proto" in serror_names(res["serror"])
    assert res["second"]["failed"] == 0 and res["second"]["data"] == words(20)
    assert st["fault_repeats"] >= 4
