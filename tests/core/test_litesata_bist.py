# SPDX-License-Identifier: BSD-2-Clause
"""LiteSATA's own BIST frontend (``litesata.frontend.bist.LiteSATABIST``, unmodified, with its
CSRs) on our PHY, core and crossbar, against the virtual drive, in Migen.

The assembly is the one doc/core.md gives a LiteX user: ``ECPSATAPHY`` -> ``ECPSATACore`` ->
``ECPSATACrossbar`` -> ``LiteSATABIST(crossbar, with_csr=True)``. A sys generator plays the
firmware: it writes the BIST's CSRs (start, sector, count, loops, random) and reads back done,
aborted, errors and cycles, and reads the IDENTIFY data dword by dword through the identify CSRs.

Checked: IDENTIFY reports the drive's capacity; the generator writes N sectors (the drive counts
the commands and bytes, and its media holds LiteSATA's pattern); the checker reads them back with
0 errors; and the checker reports errors on sectors that do not hold the pattern it expects
(another pattern, an offset LBA), so the test can fail.
"""

import struct

import pytest

from tests.support.core_harness import core_dut, wait_ready, run
from tests.support.phy_harness import now_ns

from ecpsata.sim import vdrive

# Word-level simulation against the virtual drive: `pytest -m "not system and not slow"` leaves these out.
pytestmark = pytest.mark.slow

CAPACITY = 4096
DRIVE = f"persona=ideal,capacity={CAPACITY},cominit_interval_us=0"
SECTORS = 4
LBA_RANDOM = 64          # written with the scrambler pattern (random=1)
LBA_COUNT = 200          # written with the counting pattern (random=0)
DWORDS = SECTORS * 128


def bist_dut():
    """PHY + core (behind a reset, as in the SoC) + our crossbar + LiteSATA's BIST with CSRs."""
    from litesata.frontend.bist import LiteSATABIST
    from ecpsata.frontend.crossbar import ECPSATACrossbar
    dut = core_dut()
    dut.xbar = ECPSATACrossbar(dut.core)
    dut.bist = LiteSATABIST(dut.xbar, with_csr=True)
    return dut


def wait_done(done_csr, what, timeout_us):
    """Waits for a BIST / identify ``done`` status to rise; fails with ``what`` on timeout."""
    yield
    yield
    t0 = now_ns()
    while not (yield done_csr.status):
        assert now_ns() - t0 < timeout_us * 1e3, f"{what}: not done in {timeout_us} us"
        yield


def identify(bist, timeout_us=100):
    """The firmware's IDENTIFY through LiteSATAIdentifyCSR: start, wait done, pop the dwords."""
    ident = bist.identify
    yield from ident._start.write(1)
    yield from wait_done(ident._done, "identify", timeout_us)
    data = []
    for _ in range(200):
        yield
        if not (yield ident._source_valid.status):
            break
        data.append((yield ident._source_data.status))
        yield from ident._source_ready.write(1)
    return data


def bist_run(unit, sector, count, random, timeout_us=200):
    """One run (loops=1) of a LiteSATABISTUnitCSR (generator or checker); returns its status."""
    yield from unit._sector.write(sector)
    yield from unit._count.write(count)
    yield from unit._loops.write(1)
    yield from unit._random.write(random)
    yield from unit._start.write(1)
    yield from wait_done(unit._done, f"bist sector {sector} random {random}", timeout_us)
    return dict(errors=(yield unit._errors.status), aborted=(yield unit._aborted.status),
                cycles=(yield unit._cycles.status))


def dwords(raw):
    return list(struct.unpack(f"<{len(raw) // 4}I", raw))


def test_litesata_bist_identify_write_and_check():
    drive = vdrive.VirtualDrive(DRIVE)
    dut = bist_dut()
    gen, chk = dut.bist.generator, dut.bist.checker
    res = {}

    def proc():
        yield from wait_ready(dut)
        res["identify"] = yield from identify(dut.bist)
        s0 = drive.stats()
        res["w_random"] = yield from bist_run(gen, LBA_RANDOM, SECTORS, random=1)
        res["w_count"] = yield from bist_run(gen, LBA_COUNT, SECTORS, random=0)
        s1 = drive.stats()
        res["written"] = {k: s1[k] - s0[k] for k in ("cmd_write_dma_ext", "bytes_written")}
        res["r_random"] = yield from bist_run(chk, LBA_RANDOM, SECTORS, random=1)
        res["r_count"] = yield from bist_run(chk, LBA_COUNT, SECTORS, random=0)
        s2 = drive.stats()
        res["read"] = {k: s2[k] - s1[k] for k in ("cmd_read_dma_ext", "bytes_read")}
        # Sectors that do not hold the pattern the checker expects.
        res["bad_pattern"] = yield from bist_run(chk, LBA_RANDOM, SECTORS, random=0)
        res["bad_lba"] = yield from bist_run(chk, LBA_COUNT + 1, SECTORS, random=0)
        res["unwritten"] = yield from bist_run(chk, 1000, SECTORS, random=1)
        # ... and the checker still passes afterwards.
        res["r_again"] = yield from bist_run(chk, LBA_RANDOM, SECTORS, random=1)

    run(dut, drive, proc())

    # IDENTIFY: 256 words, the capacity in words 60-61 (LBA28) and 100-103 (LBA48).
    ident = res["identify"]
    assert len(ident) == 128, f"identify gave {len(ident)} dwords"
    words = [w for d in ident for w in (d & 0xFFFF, d >> 16)]
    assert words[60] | words[61] << 16 == CAPACITY
    assert sum(words[100 + i] << (16 * i) for i in range(4)) == CAPACITY

    # Writes: two commands of SECTORS sectors, none aborted; the media holds LiteSATA's patterns
    # (the SATA scrambler sequence from its seed, and the dword index).
    for k in ("w_random", "w_count"):
        assert res[k]["aborted"] == 0, (k, res[k])
        assert res[k]["cycles"] >= DWORDS, (k, res[k])
    assert res["written"] == {"cmd_write_dma_ext": 2, "bytes_written": 2 * SECTORS * 512}
    scrambler = vdrive.library().vdrive_scrambler
    assert dwords(drive.read_sectors(LBA_RANDOM, SECTORS)) == [scrambler(i) for i in range(DWORDS)]
    assert dwords(drive.read_sectors(LBA_COUNT, SECTORS)) == list(range(DWORDS))

    # Reads: two commands, SECTORS sectors each, 0 errors.
    for k in ("r_random", "r_count", "r_again"):
        assert (res[k]["errors"], res[k]["aborted"]) == (0, 0), (k, res[k])
        assert res[k]["cycles"] >= DWORDS, (k, res[k])
    assert res["read"] == {"cmd_read_dma_ext": 2, "bytes_read": 2 * SECTORS * 512}

    # Sectors without the expected pattern: every data dword differs from what the checker
    # expects (LiteSATA counts no error on the status beat that ends a read), so errors ==
    # DWORDS, which also shows that the checker got exactly SECTORS sectors of data.
    for k in ("bad_pattern", "bad_lba", "unwritten"):
        assert res[k]["aborted"] == 0, (k, res[k])
        assert res[k]["errors"] > 0, (k, res[k])
    assert res["bad_pattern"]["errors"] == DWORDS
    assert res["bad_lba"]["errors"] == DWORDS          # sector 201 starts at 128, not 0
    assert res["unwritten"]["errors"] == DWORDS        # zeros against the scrambler sequence
    print("bist:", {k: v for k, v in res.items() if k != "identify"})
