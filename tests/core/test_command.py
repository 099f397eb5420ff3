# SPDX-License-Identifier: BSD-2-Clause
"""ecpsata/core/command.py at the FIS level: how a non-queued command ends whatever the drive does,
against frames built here: a status in a PIO data phase, interim statuses (BSY, DRQ), a refused
frame the drive never sends again, a drive that never answers (the core's command timeout)."""

import pytest
from migen import *

from ecpsata.core.common import CMD_REASON
from tests.core.test_command_with_transport import DUT, d2h
from tests.core.test_transport_verdicts import ProtoBench, run, pio_setup, identify_words, ends

SYS = 100e6                     # the DUT's sys clock (tests/core/test_command_with_transport.py)


def next_read(bench, words, lba, frames):
    """The next command, a one-sector read the drive answers (``frames``: ours so far)."""
    for _ in range(20):
        yield
    yield from bench.command(read=1, lba=lba, count=1)
    yield from bench.wait_frames(frames + 1)
    yield from bench.send_frame([0x46] + words)
    yield from bench.send_frame(d2h())
    for _ in range(300):
        yield


def reasons_by_name(bench):
    names = {v: k for k, v in CMD_REASON.items()}
    return [names[r] for r in bench.reasons]


@pytest.mark.parametrize("status,error,reason", [(0x51, 0x84, "DEVICE"), (0x50, 0, "SHORT")])
def test_a_status_in_place_of_the_pio_data_ends_the_identify(status, error, reason):
    """The drive sends PIO Setup, a bit error destroys its Data FIS's SOF (the host never sees the
    frame), and the drive ends the command with its status (51h/84h: ICRC, ABRT). The transport
    took that Register D2H (R_OK): the command must end with it, at once, and the next command
    works. Before, the PIO data phase refused it after its R_OK and the IDENTIFY waited for ever."""
    dut = DUT()
    bench = ProtoBench(dut)
    words = identify_words(7)

    def body():
        yield from bench.command(identify=1)
        yield from bench.wait_frames(1)
        yield from bench.send_frame(pio_setup(512))
        yield from bench.send_frame(d2h(status, error))
        yield from bench.wait_end(limit=200)
        yield from next_read(bench, words, 5, 1)
    run(dut, bench, body)
    assert [(b["failed"], b["read"]) for b in ends(bench)] == [(1, 0), (0, 1)]
    assert reasons_by_name(bench) == [reason, "OK"]
    assert all(bench.verdicts)


@pytest.mark.parametrize("where", ["before", "after"])
@pytest.mark.parametrize("interim", [0x80, 0xD0, 0x58])
def test_an_interim_status_does_not_end_the_read(interim, where):
    """A Register D2H with BSY (or DRQ without ERR) is not the command's end (AHCI 1.3.1 completes a
    command only when BSY, DRQ and ERR are clear): the read goes on to its final status, here a
    device error, and must be reported failed. Before, the interim status ended it as good and
    the final status with ERR was counted as a stray."""
    dut = DUT()
    bench = ProtoBench(dut)
    words = identify_words(8)

    def body():
        yield from bench.command(read=1, lba=6, count=1)
        yield from bench.wait_frames(1)
        if where == "before":
            yield from bench.send_frame(d2h(interim))
        yield from bench.send_frame([0x46] + words)
        if where == "after":
            yield from bench.send_frame(d2h(interim))
        yield from bench.send_frame(d2h(0x51, 0x04))
        yield from bench.wait_end(limit=200)
        for _ in range(50):
            yield
    run(dut, bench, body)
    assert [b["failed"] for b in ends(bench)] == [1]
    assert reasons_by_name(bench) == ["DEVICE"]
    assert [b["data"] for b in bench.port_beats if not b["end"]] == words
    assert bench.stray == 0 and all(bench.verdicts)


def test_an_interim_status_does_not_end_a_non_data_command():
    dut = DUT()
    bench = ProtoBench(dut)

    def body():
        sink = dut.port.sink
        yield sink.nodata.eq(1)
        yield sink.command.eq(0xEA)                     # FLUSH CACHE EXT
        yield from bench.command()
        yield sink.nodata.eq(0)
        yield from bench.wait_frames(1)
        yield from bench.send_frame(d2h(0x80))
        for _ in range(100):
            yield
        assert not ends(bench), "the BSY status ended the command"
        yield from bench.send_frame(d2h(0x50))
        yield from bench.wait_end(limit=200)
    run(dut, bench, body)
    assert [b["failed"] for b in ends(bench)] == [0]


def test_a_refused_status_that_is_never_sent_again_ends_the_command():
    """The drive's final Register D2H is 7 dwords long (a good CRC): refused (R_ERR), but the
    drive, which need not repeat a FIS, never sends it again. Within REPEAT_TIME the command ends
    with PROTOCOL; before, it stayed open (no timer ran: the settle bound starts only after a
    failure)."""
    from ecpsata.core.command import REPEAT_TIME
    dut = DUT()
    bench = ProtoBench(dut)
    words = identify_words(9)
    repeat_cycles = int(REPEAT_TIME*SYS)
    t = {}

    def body():
        yield from bench.command(read=1, lba=7, count=1)
        yield from bench.wait_frames(1)
        yield from bench.send_frame([0x46] + words)
        yield from bench.send_frame(d2h() + [0, 0])
        t0 = len(bench.verdicts)
        assert t0 == 2
        for cycle in range(3*repeat_cycles):
            if ends(bench):
                t["cycles"] = cycle
                break
            yield
        for _ in range(20):
            yield
    run(dut, bench, body)
    assert [b["failed"] for b in ends(bench)] == [1]
    assert reasons_by_name(bench) == ["PROTOCOL"]
    assert repeat_cycles <= t["cycles"] <= repeat_cycles + 20


@pytest.mark.parametrize("op", ["read", "identify", "write"])
def test_the_core_ends_a_command_the_drive_never_answers(op):
    """The drive takes the command FIS and then says nothing: the command timeout (a register in
    the core, set short here) ends it with TIMEOUT, and the port takes the next command (which a
    drive that answers completes). Before, nothing in the core bounded the wait."""
    dut = DUT()
    bench = ProtoBench(dut)
    words = identify_words(10)
    timeout = 3000
    t = {}

    def body():
        yield dut.command.timeout.eq(timeout)
        yield
        if op == "write":
            yield from bench.command(write=1, lba=8, count=1, data=words)
        else:
            yield from bench.command(**{op: 1}, lba=8, count=1)
        for cycle in range(2*timeout):
            if ends(bench):
                t["cycles"] = cycle
                break
            yield
        yield from next_read(bench, words, 9, 1)
    run(dut, bench, body)
    assert reasons_by_name(bench) == ["TIMEOUT", "OK"]
    assert [b["failed"] for b in ends(bench)] == [1, 0]
    assert t["cycles"] <= timeout + 10


def test_a_command_timeout_of_zero_is_the_longest_not_off_and_not_at_once():
    from ecpsata.core.command import TIMEOUT_MAX
    dut = DUT()
    assert dut.command.timeout.reset.value == int(30.0*SYS)
    bench = ProtoBench(dut)

    def body():
        yield dut.command.timeout.eq(0)
        yield
        yield from bench.command(read=1, lba=8, count=1)
        for _ in range(500):
            yield
        assert not ends(bench)
        assert (yield dut.command.rx.limit) == TIMEOUT_MAX
    run(dut, bench, body)
