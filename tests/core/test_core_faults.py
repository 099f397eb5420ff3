# SPDX-License-Identifier: BSD-2-Clause
"""Faults a drive produces every day, against the PHY and our core in Migen: each ends
in an error or a retry the host acts on, and the next command works."""

import pytest

from tests.support.core_harness import (SYS_CLK_FREQ, command, core_dut, engine_dut, engine_run,
                                       reset_core, run, wait_ready)

from ecpsata.core.common import CMD_REASON
from ecpsata.sim import vdrive

# Word-level simulation against the virtual drive: `pytest -m "not system and not slow"` leaves these out.
pytestmark = pytest.mark.slow

DRIVE = "persona=ideal,capacity=4096,cominit_interval_us=0"


def test_core_reset_while_the_drive_idles_with_cont():
    """The drive compresses its idle SYNCs with CONT + scrambled junk. A core reset (the engine's
    command timeout) in the middle of that must not make the junk look like data: the next
    command goes out and completes."""
    drive = vdrive.VirtualDrive(DRIVE + ",cont=1")
    dut = core_dut()
    res = {}

    def proc():
        yield from wait_ready(dut)
        res["first"] = yield from command(dut, dict(read=1, sector=8, count=1), timeout_us=60)
        for _ in range(200):        # idle: SYNC SYNC CONT junk...
            yield
        yield from reset_core(dut)
        for _ in range(200):
            yield
        res["second"] = yield from command(dut, dict(read=1, sector=8, count=1), timeout_us=60)

    run(dut, drive, proc())
    st = drive.stats()
    assert res["first"]["failed"] == 0 and len(res["first"]["data"]) == 128
    assert res["second"]["failed"] == 0 and len(res["second"]["data"]) == 128
    assert st["cmd_read_dma_ext"] == 2
    print(f"a read after a core reset under CONT: {res['second']['t_ns']/1e3:.2f} us")


def sector_words(seed, n=128):
    return [(seed*0x9E3779B1 + i*0x01000193) & 0xFFFFFFFF for i in range(n)]


def test_dma_activate_with_a_crc_error_is_resent_and_the_write_completes():
    """The drive's DMA Activate arrives with a bad CRC: the host answers R_ERR and ignores it,
    the drive sends it again, and the write goes on from the second one."""
    drive = vdrive.VirtualDrive(DRIVE + ",crc_error_fis=2")    # FIS 1 is the signature
    dut = core_dut()
    data = sector_words(3)
    res = {}

    def proc():
        yield from wait_ready(dut)
        res["write"] = yield from command(dut, dict(write=1, sector=16, count=1), data_in=data)
        res["read"] = yield from command(dut, dict(read=1, sector=16, count=1))

    run(dut, drive, proc())
    st = drive.stats()
    assert st["injected_crc"] == 1 and st["r_err_received"] >= 1, st
    assert res["write"]["failed"] == 0
    assert res["read"]["failed"] == 0 and res["read"]["data"] == data
    print(f"write with a re-sent DMA Activate: {res['write']['t_ns']/1e3:.2f} us")


@pytest.mark.parametrize("op", ["read", "write"])
def test_command_fis_answered_with_r_err_is_sent_again(op):
    """The drive answers R_ERR to the command's Register H2D FIS (and drops it): the host sends
    the FIS again and the command completes."""
    drive = vdrive.VirtualDrive(DRIVE + ",rerr_fis=1")
    dut = core_dut()
    data = sector_words(5)
    res = {}

    def proc():
        yield from wait_ready(dut)
        if op == "write":
            res["cmd"] = yield from command(dut, dict(write=1, sector=24, count=1), data_in=data)
            res["check"] = yield from command(dut, dict(read=1, sector=24, count=1))
        else:
            res["cmd"] = yield from command(dut, dict(read=1, sector=24, count=1))

    if op == "read":
        drive.write_sectors(24, b"".join(w.to_bytes(4, "little") for w in data))
    run(dut, drive, proc())
    st = drive.stats()
    assert st["injected_rerr"] == 1, st
    assert res["cmd"]["failed"] == 0
    got = res["check"]["data"] if op == "write" else res["cmd"]["data"]
    assert got == data


@pytest.mark.parametrize("gap", [0, 3000])
def test_status_fis_with_a_crc_error_is_ignored_until_the_drive_sends_it_again(gap):
    """The Register D2H that ends a read arrives with a bad CRC: the host answers R_ERR and does
    not act on it; the drive sends it again and the read ends on that one. The next read, issued
    at once, is not ended by the repeated status."""
    drive = vdrive.VirtualDrive(DRIVE + ",crc_error_fis=3")   # signature, Data, Register D2H
    dut = core_dut()
    data = sector_words(7)
    drive.write_sectors(40, b"".join(w.to_bytes(4, "little") for w in data))
    res = {}

    def proc():
        yield from wait_ready(dut)
        res["first"] = yield from command(dut, dict(read=1, sector=40, count=1))
        for _ in range(gap):
            yield
        res["second"] = yield from command(dut, dict(read=1, sector=40, count=1))

    run(dut, drive, proc())
    st = drive.stats()
    assert st["injected_crc"] == 1 and st["r_err_received"] == 1, st
    for name in ("first", "second"):
        assert res[name]["failed"] == 0, name
        assert res[name]["data"] == data, name


def test_read_after_a_data_fis_crc_error_is_clean():
    """A read whose first Data FIS fails its CRC ends with a device error (the drive reports
    ICRC); the next read, through the crossbar, registered port and engine as in the SoC, must
    not fail for it (the link buffer's stale error bit between dwords failed it)."""
    from ecpsata.engines.common import REASON_OK, REASON_DEVICE_ERROR
    drive = vdrive.VirtualDrive(DRIVE + ",crc_error_fis=2,cont=1")
    dut = engine_dut()
    res = []

    def proc():
        yield from wait_ready(dut)
        for lba, n in ((0, 64), (512, 16)):
            res.append((yield from engine_run(dut, "read", lba, n)))
            for _ in range(2000):
                yield

    run(dut, drive, proc())
    assert res[0][:2] == (REASON_DEVICE_ERROR, 1)
    assert res[1] == (REASON_OK, 0, 16*512)


def two_reads_through_a_damaging_line(damage, drive_cfg=DRIVE, gap=500):
    """Two 1-sector reads of LBA 8 (SECTOR_8 there) while ``damage(word)`` may replace each word
    the drive sends before it reaches our receiver, as a bit error on the line would. Returns
    both results and the drive."""
    from tests.support.phy_harness import run_word_sim
    from ecpsata.sim.vdrive import VirtualDrive
    drive = vdrive.VirtualDrive(drive_cfg)
    drive.write_sectors(8, bytes(range(256))*2)
    dut = core_dut()
    res = {}

    def drv():
        yield "passive"
        pads = dut.pads
        while True:
            rx, los = drive.step((yield pads.tx), VirtualDrive.gen_from_signal((yield pads.gen)))
            yield pads.rx.eq(damage(rx))
            yield pads.rx_los.eq(los)
            yield

    def proc():
        yield from wait_ready(dut)
        for name in ("first", "second"):
            res[name] = yield from command(dut, dict(read=1, sector=8, count=1), timeout_us=100)
            for _ in range(gap):
                yield

    run_word_sim(dut, {"sys": proc(), "sata_tx": drv()}, dut.serdes.word_ce)
    return res, drive


def prim_words(name, half):
    """The line words (both running disparities) of primitive ``name``'s first or second half."""
    from ecpsata.phy.common import primitives, encode_dword
    return {encode_dword(primitives[name], 1, rd)[0][half] for rd in (0, 1)}


def unknown_primitive_word():
    """The first word of a dword that decodes as a primitive we do not know (K28.3 in byte 0)."""
    from ecpsata.phy.common import encode_dword, K28_3
    return encode_dword(K28_3 | 0x12345600, 1, 0)[0][0]


SECTOR_8 = [int.from_bytes((bytes(range(256))*2)[4*i:4*i + 4], "little") for i in range(128)]


def run_with_lost_primitive(name, nth):
    """Two reads; the drive's ``nth`` ``name`` primitive (SOF or EOF) reaches us with its second
    word destroyed (code errors), as a bit error on the line would. Returns both results."""
    hi_words = prim_words(name, 1)
    seen = [0]

    def damage(rx):
        if rx in hi_words:
            seen[0] += 1
            if seen[0] == nth:
                return 0
        return rx

    return two_reads_through_a_damaging_line(damage)[0]


@pytest.mark.parametrize("name", ["SOF", "EOF"])
def test_a_lost_sof_or_eof_fails_the_read_instead_of_hanging(name):
    """A bit error destroys the SOF (we wait for it after R_RDY) or the EOF (we wait for it in
    the frame) of the first read's Data FIS: the read fails at once (the drive gets SYNC or R_ERR
    and reports ICRC), and the next read works."""
    res = run_with_lost_primitive(name, 2)      # the first is the signature FIS's
    assert res["first"]["failed"] == 1
    assert res["second"]["failed"] == 0 and len(res["second"]["data"]) == 128


def run_with_idle_cont_damage(damage):
    """Two reads while a bit error damages every CONT sequence the idle drive sends (SYNC SYNC
    CONT junk): ``damage`` "cont" destroys the CONT (its second word), "junk" turns the first
    junk dword after it into an unknown primitive. Either way the PHY cannot expand the rest of
    the junk, which reaches the link as data dwords. Returns both results and the count of
    damaged CONTs."""
    sync_hi, cont_hi = prim_words("SYNC", 1), prim_words("CONT", 1)
    fake_lo = unknown_primitive_word()
    state = {"fake_next": False, "damaged": 0}
    sent = [0, 0]   # the drive's last two words, as sent

    def line(rx):
        was = rx
        if state["fake_next"]:
            rx = fake_lo
            state["fake_next"] = False
        elif rx in cont_hi and sent[0] in sync_hi:
            state["damaged"] += 1
            if damage == "cont":
                rx = 0
            else:
                state["fake_next"] = True
        sent[:] = [sent[1], was]
        return rx

    res, _ = two_reads_through_a_damaging_line(line, DRIVE + ",cont=1", gap=1000)
    res["damaged"] = state["damaged"]
    return res


@pytest.mark.parametrize("damage", ["cont", "junk"])
def test_a_damaged_cont_while_the_drive_idles_does_not_stop_the_next_command(damage):
    """The idle drive sends SYNC SYNC CONT and junk until we send X_RDY. A bit error in the CONT
    (or one that turns a junk dword into a primitive) leaves the rest of the junk unexpanded, so
    the link never again sees a SYNC: it must still start our next command FIS (LiteSATA's link
    waited for a SYNC in the current dword, and every command after that was never taken)."""
    res = run_with_idle_cont_damage(damage)
    assert res["damaged"] >= 2
    for name in ("first", "second"):
        assert res[name]["failed"] == 0, name
        assert res[name]["data"] == SECTOR_8, name


def test_a_status_fis_shortened_by_a_bit_error_is_dropped_and_its_repeat_ends_the_read():
    """A bit error turns a dword inside the read's Register D2H into a primitive, which the link
    drops: the frame is one dword short and fails its CRC (R_ERR). The transport must drop that
    frame whole and take the drive's repeat as the status (it counted into the repeat and threw
    both away, and the read never ended)."""
    sof_hi, fake_lo = prim_words("SOF", 1), unknown_primitive_word()
    state = {"sofs": 0, "words": None}

    def damage(rx):
        if state["words"] is not None:
            state["words"] += 1
            if state["words"] == 5:               # dword 2 of the FIS, its first word
                state["words"] = None
                return fake_lo
        if rx in sof_hi:
            state["sofs"] += 1
            if state["sofs"] == 3:                # signature, Data FIS, then the status
                state["words"] = 0
        return rx

    res, drive = two_reads_through_a_damaging_line(damage)
    st = drive.stats()
    assert st["r_err_received"] == 1, st
    for name in ("first", "second"):
        assert res[name]["failed"] == 0, name
        assert res[name]["data"] == SECTOR_8, name


def test_a_command_fis_the_drive_never_saw_is_sent_again():
    """A bit error destroys the SOF of our command FIS (``lose_sof``): the drive never receives
    the frame and answers its end with SYNC. That is a failed transmission like an R_ERR: the core
    sends the command FIS again and the read completes."""
    drive = vdrive.VirtualDrive(DRIVE + ",lose_sof=1")
    dut = core_dut()
    data = sector_words(9)
    drive.write_sectors(32, b"".join(w.to_bytes(4, "little") for w in data))
    res = {}

    def proc():
        yield from wait_ready(dut)
        res["read"] = yield from command(dut, dict(read=1, sector=32, count=1))

    run(dut, drive, proc())
    st = drive.stats()
    assert (st["injected_lost_sof"], st["cmd_read_dma_ext"], st["crc_errors_rx"]) == (1, 1, 0), st
    assert res["read"]["failed"] == 0 and res["read"]["data"] == data


def test_a_data_fis_the_drive_never_saw_ends_the_write_named_and_bounded():
    """A bit error destroys the SOF of the write's Data FIS: the drive never receives it and,
    having asked for the data, waits with no status to send (a real drive does the same). Our
    link saw the frame fail (SYNC for R_OK), so the write fails once the drive stays silent for
    the core's settle time (NO_STATUS), not at the command timeout, and nothing is written."""
    drive = vdrive.VirtualDrive(DRIVE + ",lose_sof=2")      # the command FIS, then the Data FIS
    dut = core_dut()
    limit_us = 500                                          # the settle time is 50 us here
    res = {}

    def proc():
        yield from wait_ready(dut)
        yield dut.core.cmd_timeout.eq(int(limit_us*1e-6*SYS_CLK_FREQ))
        res["write"] = yield from command(dut, dict(write=1, sector=48, count=1),
                                          data_in=sector_words(11), timeout_us=2*limit_us)
        res["reason"] = yield dut.core.cmd_reason

    run(dut, drive, proc())
    st = drive.stats()
    assert (st["injected_lost_sof"], st["cmd_write_dma_ext"], st["bytes_written"]) == (1, 1, 0), st
    assert res["write"]["failed"] == 1
    assert res["reason"] == CMD_REASON["NO_STATUS"], res["reason"]
    assert res["write"]["t_ns"] < 100e3, res["write"]["t_ns"]
    assert drive.read_sectors(48, 1) == bytes(512)
    print(f"a write whose Data FIS the drive never saw: ended after "
          f"{res['write']['t_ns']/1e3:.1f} us")
