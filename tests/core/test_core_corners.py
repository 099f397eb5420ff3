# SPDX-License-Identifier: BSD-2-Clause
"""The protocol's corners that a drive produces and an ideal one does not, against the PHY, our
core and the error block in Migen, with the virtual drive's keys for each: a status in place of a
lost PIO Data FIS, interim BSY / DRQ statuses, a refused frame the drive does not send again,
power management requests, a drive with a small receive FIFO that HOLDs our data, a Data FIS over
2,048 dwords. Each must end in the named outcome, and the next command must work.

FIS numbers count the drive's FISes from 1 (1 is the signature): for a one-sector read 2 is the
Data FIS and 3 the status.
"""

import pytest
from migen import *

from ecpsata.core.command import REPEAT_TIME
from ecpsata.core.common import CMD_REASON, serror_names
from tests.support.core_harness import command, run
from tests.support.phy_link_harness import SYS_CLK_FREQ
from tests.core.test_core_drive import DRIVE, errors_dut, wait_dev_ready, wait_link, words
from tests.core.test_core_protocol import run_case

from ecpsata.sim import vdrive
from ecpsata.phy.ecp5.dcua_model import CONFIG as DCUA

# Word-level simulation against the virtual drive: `pytest -m "not system and not slow"` leaves these out.
pytestmark = pytest.mark.slow


def test_a_status_in_place_of_the_lost_pio_data_ends_identify_at_once():
    """The drive sends IDENTIFY's PIO Setup, then, as if its Data FIS had been destroyed on the
    line, its status 51h/84h: IDENTIFY fails at once with DEVICE; the next command works."""
    res, st = run_case("pio_lost_data=1", "identify")
    assert st["pio_lost_data"] == 1
    assert res["first"]["failed"] == 1 and res["first"]["t_ns"] < 20e3, res["first"]
    assert res["cmd_reason"] == CMD_REASON["DEVICE"]
    assert res["second"]["failed"] == 0 and res["second"]["data"] == words(20)


@pytest.mark.parametrize("status", [0x80, 0x58])
@pytest.mark.parametrize("error", [False, True])
def test_an_interim_status_before_the_data_is_not_the_end(status, error):
    """A Register D2H with BSY (or DRQ) before every command's data: the read goes on, and ends on
    its final status: good with its data, or failed with DEVICE when the sector is unreadable."""
    key = f"interim_status={status}" + (",error_lba=20,error_kind=unc" if error else "")
    res, st = run_case(key, "read")
    assert st["interim_status_sent"] >= 2
    if error:
        assert res["first"]["failed"] == 1 and res["cmd_reason"] == CMD_REASON["DEVICE"]
    else:
        assert res["first"]["failed"] == 0 and res["first"]["data"] == words(20)
        assert res["cmd_failures"] == 0
    assert "TrStaTrns" not in serror_names(res["serror"])


@pytest.mark.parametrize("key,op", [("long_fis=3", "read"), ("long_fis=2", "write")])
def test_a_refused_frame_the_drive_does_not_send_again_ends_the_command(key, op):
    """The drive's status (or a write's DMA Activate) with a good CRC and two dwords too many:
    refused, and the drive, which need not repeat it, goes on as if it had been taken. The command
    fails with PROTOCOL within REPEAT_TIME of the refusal, and the next command works."""
    res, st = run_case(key + ",no_resend=1", op)
    assert st["frames_not_resent"] >= 1
    assert res["first"]["failed"] == 1
    assert res["first"]["t_ns"] < REPEAT_TIME*1e9 + 20e3, res["first"]["t_ns"]
    assert res["cmd_reason"] == CMD_REASON["PROTOCOL"]
    assert res["second"]["failed"] == 0 and res["second"]["data"] == words(20)


def run_commands(key, cmds, idle_us=0, line_latency=(0, 0)):
    """The commands (`command()` dicts, with `data_in` for writes) one after the other on a fresh
    drive with `key`, `idle_us` of idle line before each, through a line with `line_latency`
    (word clocks each way, as in `run_link`); returns (results, drive statistics)."""
    drive = vdrive.VirtualDrive(DRIVE + f",{key}")
    drive.write_sectors(20, b"".join(w.to_bytes(4, "little") for w in words(20)))
    dut = errors_dut()
    results = []

    def proc():
        yield from wait_link(dut)
        yield from wait_dev_ready(dut, 100)
        for cmd in cmds:
            for _ in range(int(idle_us*SYS_CLK_FREQ/1e6)):
                yield
            cmd = dict(cmd)
            data = cmd.pop("data_in", None)
            results.append((yield from command(dut, cmd, data_in=data, timeout_us=400)))

    run(dut, drive, proc(), line_latency)
    return results, drive.stats()


def test_power_management_requests_are_denied_and_commands_go_on():
    """A drive that asks for Partial whenever it has been idle 2 us (DIPM-like): every request is
    answered PMNAK, none goes unanswered, our X_RDY never goes into one, and the commands work."""
    read = dict(read=1, sector=20, count=1)
    res, st = run_commands("pmreq=partial,pmreq_idle_us=2", [read, read, read], idle_us=10)
    assert [r["failed"] for r in res] == [0, 0, 0]
    assert all(r["data"] == words(20) for r in res)
    assert st["pmreq_sent"] >= 3
    assert st["pmnak_received"] == st["pmreq_sent"]
    assert st["pmreq_unanswered"] == 0 and st["pmreq_xrdy"] == 0


@pytest.mark.parametrize("line_latency", [(0, 0), (DCUA["tx_latency"], DCUA["rx_latency"])],
                         ids=["no-serdes-latency", "dcu-latency"])
def test_a_drive_with_a_20_dword_receive_budget_after_hold_is_never_overrun(line_latency):
    """The drive HOLDs our write data every 64 dwords, as a drive draining a small receive FIFO
    does, and counts what still arrives after its HOLD: at most 20 dwords each time (SATA 3.x:
    a receiver can still take 20 dwords after its HOLD). The writes complete and read back. Also
    through the ECP5 DCU's data path latency as our DCUA model has it, each way."""
    data = words(40, 8*128)
    write = dict(write=1, sector=40, count=8, data_in=data)
    read = dict(read=1, sector=40, count=8)
    res, st = run_commands("rx_fifo=20,rx_hold_every=64", [write, read],
                           line_latency=line_latency)
    assert [r["failed"] for r in res] == [0, 0]
    assert res[1]["data"] == data
    assert st["rx_hold_count"] >= 8
    print(f"HOLD latency: at most {st['rx_hold_dwords_max']} dwords after the drive's HOLD")
    assert st["rx_hold_over_budget"] == 0, st["rx_hold_dwords_max"]


def test_a_data_fis_over_2048_dwords_fails_the_read():
    """A drive that puts 2,100 dwords in a Data FIS (SATA allows 2,048): the frame is refused
    (R_ERR) and the read fails with DATA_CRC, never taken as good; the next read works."""
    res, st = run_commands("data_fis_dwords=2100", [dict(read=1, sector=20, count=20),
                                                     dict(read=1, sector=20, count=1)])
    assert res[0]["failed"] == 1
    assert res[1]["failed"] == 0 and res[1]["data"] == words(20)
