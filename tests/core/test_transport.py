# SPDX-License-Identifier: BSD-2-Clause
"""ecpsata/core/transport.py: the verdict on frames the transport drops for their type or their
place is given at the frame's end, once its CRC is known. A bit error in a header is a CRC error
(the drive sends the frame again), not a FIS of an unknown type or out of place: AHCI 1.3.1's
DIAG.F and DIAG.T are for frames that passed their CRC, and such a frame must not count toward
the refusals that end a command."""

import pytest
from migen import *

from tests.core.test_command_with_transport import DUT, d2h
from tests.core.test_transport_verdicts import ProtoBench, run, identify_words, ends


@pytest.mark.parametrize("frame", [
    [0xD5, 0x12345678, 0x9ABCDEF0],                     # a type SATA does not define
    [0xD5],                                             # the same, one dword
])
@pytest.mark.parametrize("crc_ok", [True, False])
def test_an_unknown_type_is_booked_only_when_its_crc_is_good(frame, crc_ok):
    """In a read: the frame is refused either way; booked as unknown, and counted as a refusal,
    only with a good CRC. With a bad CRC, even FIS_REFUSALS of them in a row do not end the
    command: the drive's next good frame goes on with it."""
    from ecpsata.core.command import FIS_REFUSALS
    dut = DUT()
    bench = ProtoBench(dut)
    words = identify_words(11)
    n = 1 if crc_ok else FIS_REFUSALS

    def body():
        yield from bench.command(read=1, lba=3, count=1)
        yield from bench.wait_frames(1)
        for _ in range(n):
            yield from bench.send_frame(frame, error=not crc_ok)
        yield from bench.send_frame([0x46] + words)
        yield from bench.send_frame(d2h())
        yield from bench.wait_end()
    run(dut, bench, body)
    assert bench.verdicts == [0]*n + [1, 1]
    assert bench.events["ev_unknown"] == int(crc_ok)
    assert bench.events["ev_refused"] == int(crc_ok)
    assert [b["failed"] for b in ends(bench)] == [0]


@pytest.mark.parametrize("crc_ok", [True, False])
def test_a_data_fis_outside_a_data_phase_is_booked_only_when_its_crc_is_good(crc_ok):
    """Outside a command: dropped either way, booked as unexpected only with a good CRC."""
    dut = DUT()
    bench = ProtoBench(dut)

    def body():
        for _ in range(10):
            yield
        yield from bench.send_frame([0x46] + list(range(8)), error=not crc_ok)
        for _ in range(20):
            yield
    run(dut, bench, body)
    assert bench.verdicts == [0]
    assert bench.events["ev_unexpected"] == int(crc_ok)
    assert bench.events["ev_refused"] == int(crc_ok)
