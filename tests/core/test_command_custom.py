# SPDX-License-Identifier: BSD-2-Clause
"""Any ATA command through the user port (``custom``, ecpsata/core/command.py): the command's code,
features, LBA and count go out as given, and its data moves by the protocol the port's flag names
(ACS-3 gives each command's): PIO data-in of several blocks (SMART READ DATA, READ LOG EXT), DMA
data-in (READ LOG DMA EXT), DMA data-out (DATA SET MANAGEMENT). Frames built here from SATA 3.x
§10.3 against the frame-level link model of tests/core/test_command_with_transport.py."""

import random

import pytest

from ecpsata.core.common import CMD_REASON
from tests.core.test_command_with_transport import DUT, d2h, h2d_expected, run_sorted_simulation
from tests.core.test_transport_verdicts import ProtoBench, run, pio_setup, ends

SMART_LBA = 0xC24F00          # SMART's signature in LBA mid/high (ACS-3 SMART)
DMA_ACTIVATE = [0x39]


def words(n, seed=3):
    rng = random.Random(seed)
    return [rng.getrandbits(32) for _ in range(n)]


@pytest.mark.parametrize("blocks,per_setup", [(1, 1), (2, 1), (3, 3)])
def test_pio_data_in_of_several_blocks(blocks, per_setup):
    """READ LOG EXT (2Fh) of ``blocks`` pages, the drive sending ``per_setup`` blocks per PIO Setup:
    the command goes out with the caller's fields, the port gets every dword, `end` on the last
    one only, and the command is good."""
    dut = DUT()
    bench = ProtoBench(dut, seed=blocks)
    data = words(128 * blocks)
    n = 128 * per_setup

    def body():
        yield from bench.command(identify=1, custom=1, command=0x2F, lba=0x04, count=blocks)
        yield from bench.wait_frames(1)
        for i in range(blocks // per_setup):
            last = i == blocks // per_setup - 1
            yield from bench.send_frame(pio_setup(4 * n, 0x50 if last else 0x58))
            yield from bench.send_frame([0x46] + data[i * n:(i + 1) * n])
        yield from bench.wait_end()
        for _ in range(20):
            yield
    run(dut, bench, body)
    assert bench.frames == [h2d_expected(0x2F, 0x04, 0x40, blocks)]
    got = [b["data"] for b in bench.port_beats]
    assert got == data
    assert [i for i, b in enumerate(bench.port_beats) if b["end"]] == [len(data) - 1]
    assert [b["failed"] for b in ends(bench)] == [0]
    assert bench.reasons == [CMD_REASON["OK"]]


def test_smart_read_data_sends_its_features_and_signature():
    """SMART READ DATA (B0h, features D0h, LBA mid/high 4Fh/C2h): one block by PIO."""
    dut = DUT()
    bench = ProtoBench(dut)
    data = words(128, seed=9)

    def body():
        yield from bench.command(identify=1, custom=1, command=0xB0, features=0xD0,
                                 lba=SMART_LBA, count=1)
        yield from bench.wait_frames(1)
        yield from bench.send_frame(pio_setup(512))
        yield from bench.send_frame([0x46] + data)
        yield from bench.wait_end()
    run(dut, bench, body)
    assert bench.frames == [h2d_expected(0xB0, SMART_LBA, 0x40, 1, features=0xD0)]
    assert [b["data"] for b in bench.port_beats] == data
    assert [b["failed"] for b in ends(bench)] == [0]


def test_identify_without_custom_is_one_block_whatever_the_count():
    """LiteSATA's IDENTIFY frontend leaves the port's count as it is: IDENTIFY DEVICE is one block
    (128 dwords) whatever it holds, and ends there."""
    dut = DUT()
    bench = ProtoBench(dut)
    data = words(128, seed=4)

    def body():
        yield from bench.command(identify=1, count=5, command=0x2F, features=0x33)
        yield from bench.wait_frames(1)
        yield from bench.send_frame(pio_setup(512))
        yield from bench.send_frame([0x46] + data)
        yield from bench.wait_end()
    run(dut, bench, body)
    assert bench.frames[0][0] & 0xFFFFFF == 0x27 | (1 << 15) | (0xEC << 16)
    assert [b["data"] for b in bench.port_beats] == data
    assert [b["failed"] for b in ends(bench)] == [0]


def test_a_pio_data_in_short_of_its_blocks_fails():
    """Two pages asked, the drive ends after one with a good status: SHORT, not good."""
    dut = DUT()
    bench = ProtoBench(dut)

    def body():
        yield from bench.command(identify=1, custom=1, command=0x2F, lba=0x11, count=2)
        yield from bench.wait_frames(1)
        yield from bench.send_frame(pio_setup(512, 0x58))
        yield from bench.send_frame([0x46] + words(128))
        yield from bench.send_frame(d2h(0x50))
        yield from bench.wait_end()
    run(dut, bench, body)
    assert [b["failed"] for b in ends(bench)] == [1]
    assert bench.reasons == [CMD_REASON["SHORT"]]


def test_dma_data_in_with_a_command_of_the_callers():
    """READ LOG DMA EXT (47h) of two pages: DMA data-in, the command's own code."""
    dut = DUT()
    bench = ProtoBench(dut)
    data = words(256, seed=5)

    def body():
        yield from bench.command(read=1, custom=1, command=0x47, lba=0x0104, count=2)
        yield from bench.wait_frames(1)
        yield from bench.send_frame([0x46] + data)
        yield from bench.send_frame(d2h())
        yield from bench.wait_end()
    run(dut, bench, body)
    assert bench.frames == [h2d_expected(0x47, 0x0104, 0x40, 2)]
    assert [b["data"] for b in bench.port_beats if not b["end"]] == data
    assert [(b["failed"], b["read"]) for b in ends(bench)] == [(0, 1)]


def test_dma_data_out_with_a_command_of_the_callers():
    """DATA SET MANAGEMENT (06h, features 01h: TRIM) of one block of range entries: DMA Activate,
    the block as one Data FIS, the status."""
    dut = DUT()
    bench = ProtoBench(dut)
    data = words(128, seed=6)

    def port():
        yield from bench.command(write=1, custom=1, command=0x06, features=0x01, count=1,
                                 data=data)

    def drive():
        yield from bench.wait_frames(1)
        yield from bench.send_frame(DMA_ACTIVATE)
        yield from bench.wait_frames(2)
        yield from bench.send_frame(d2h())
        yield from bench.wait_end()
    run_sorted_simulation(dut, [bench.link_capture(), bench.port_collect(), bench.monitor(),
                                port(), drive()])
    assert bench.frames[0] == h2d_expected(0x06, 0, 0x40, 1, features=0x01)
    assert bench.frames[1] == [0x46] + data
    assert [(b["failed"], b["write"]) for b in ends(bench)] == [(0, 1)]

