"""SATA operations from the host through the SoC's registers: link status, IDENTIFY, small sector
reads/writes through main RAM with the LiteSATA DMA frontends."""

import time

from gateware.phy.ctrl import STATES
from bench.ata import (SECTOR, IdentifyChecksumError, IdentifyError, check_usable, parse_identify,
                       words_from_dwords)
from bench.target import TargetError

DMA_SECTORS = 16  # the sector buffer's size (soc/builder.py SECTOR_BUFFER_SECTORS)
BURST_WORDS = 128  # words per bus access: an Etherbone record carries at most 255, the SoC takes
                  # soc/builder.py ETHERBONE_BUFFER_WORDS


def _field(target, reg, value, name):
    """Extract a CSR field by name using csr.json's field layout (offset, size)."""
    off, size = target.field(reg, name)
    return value >> off & ((1 << size) - 1)


def link_status(target):
    st = target.reg("sata_phy_status").read()
    f = lambda n: _field(target, "sata_phy_status", st, n)
    clk = target.sys_clk_hz()
    return {
        "ready":        bool(f("ready")),
        "state":        STATES[f("state")] if f("state") < len(STATES) else f"?{f('state')}",
        "gen":          f("gen") + 1,
        "rx_polarity":  f("rx_polarity"),
        "tx_ready":     f("tx_ready"),
        "rx_ready":     f("rx_ready"),
        "rx_los":       f("rx_los"),
        "retries":      target.reg("sata_phy_retries").read(),
        "link_ups":     target.reg("sata_phy_link_ups").read(),
        "link_downs":   target.reg("sata_phy_link_downs").read(),
        "code_errors":  target.reg("sata_phy_code_errors").read(),
        "disp_errors":  target.reg("sata_phy_disp_errors").read(),
        "time_to_link_cycles": target.reg("sata_phy_time_to_link").read(),
        "time_to_link_us": target.reg("sata_phy_time_to_link").read() / clk * 1e6,
    }


def device_ready(target):
    """The drive answered since the link came up (its signature FIS): commands sent before would
    take that FIS for their status. True on a gateware that does not tell."""
    if not target.has("sata_errors_dev_ready"):
        return True
    return bool(target.reg("sata_errors_dev_ready").read())


def wait_link(target, timeout):
    deadline = time.monotonic() + timeout
    while True:
        st = link_status(target)
        if st["ready"] and device_ready(target):
            return st
        if time.monotonic() > deadline:
            raise TargetError(f"SATA link down after {timeout:.0f} s (state {st['state']}, "
                              f"{st['retries']} retries): is a drive connected and powered?")
        time.sleep(0.05)


IDENTIFY_TRIES = 3


def identify(target, timeout, usable=True):
    """The drive's IDENTIFY DEVICE data, decoded; usable=True refuses a drive the bench cannot
    use (no LBA, logical sectors other than 512 bytes).

    IDENTIFY only reads, so it is sent again (up to IDENTIFY_TRIES in all) when its data cannot
    be trusted: its Data FIS arrived with a bad CRC (the link's count), or the checksum in word
    255 fails. A bit error on the line costs a retry, not a refused drive."""
    wait_link(target, timeout)
    crc_reg = "sata_errors_fis_crc_errors"
    failures = []
    for _ in range(IDENTIFY_TRIES):
        crc0 = target.reg(crc_reg).read() if target.has(crc_reg) else None
        try:
            dwords = _identify_dwords(target, timeout)
        except IdentifyTimeout as e:
            # A drive that lost a command (bit errors on the line) answers again after a
            # COMRESET, as a host's error handler does after a command timeout.
            failures.append(str(e))
            _reset_link(target, timeout)
            continue
        crc = ((target.reg(crc_reg).read() - crc0) & 0xFFFFFFFF) if crc0 is not None else 0
        if crc:
            failures.append(f"{crc} FIS with a bad CRC")
            continue
        try:
            ident = parse_identify(words_from_dwords(dwords))
            if usable:
                check_usable(ident)
        except IdentifyChecksumError as e:
            failures.append(str(e))
            continue
        except IdentifyError as e:
            raise TargetError(str(e)) from None
        return ident
    raise TargetError(f"IDENTIFY failed {IDENTIFY_TRIES} times ({'; '.join(failures)}): the "
                      "link has bit errors (cable, connector, or the PHY's settings)")


def _identify_dwords(target, timeout):
    downs = target.reg("sata_phy_link_downs").read()
    target.reg("sata_identify_start").write(1)
    dwords = []
    deadline = time.monotonic() + timeout
    valid, data, ready = (target.reg(f"sata_identify_source_{n}") for n in ("valid", "data", "ready"))
    while len(dwords) < 128:
        if valid.read():
            dwords.append(data.read())
            ready.write(1)
            continue
        if target.reg("sata_phy_link_downs").read() != downs:
            raise TargetError("SATA link dropped during IDENTIFY")
        if time.monotonic() > deadline:
            raise IdentifyTimeout(f"IDENTIFY: the drive did not answer within {timeout:.0f} s")
    return dwords


class IdentifyTimeout(TargetError):
    pass


def _reset_link(target, timeout):
    """COMRESET (the PHY's restart), then wait for the link."""
    ctrl = target.reg("sata_phy_control")
    off, _ = target.field("sata_phy_control", "restart")
    ctrl.write(ctrl.read() | 1 << off)
    wait_link(target, timeout)


def check_range(ident, lba, count):
    if count <= 0:
        raise TargetError("the sector count must be at least 1")
    if lba < 0 or lba + count > ident["sectors"]:
        raise TargetError(f"LBA range {lba}..{lba + count - 1} is outside the drive "
                          f"(0..{ident['sectors'] - 1}): nothing sent")


class SectorIO:
    """Small reads/writes through the SoC's sector buffer (gateware/sata_buffer.py): one READ or
    WRITE DMA EXT of up to DMA_SECTORS sectors per request."""
    def __init__(self, target, timeout):
        self.t = target
        self.timeout = timeout
        self.base, size = target.mem_region("sata_buffer")
        if size < DMA_SECTORS * SECTOR:
            raise TargetError("the sector buffer is smaller than expected")

    def _run(self, lba, count, write):
        t = self.t
        downs = t.reg("sata_phy_link_downs").read()
        t.reg("sata_buffer_lba").write(lba)
        t.reg("sata_buffer_count").write(count)
        start = 1 << t.field("sata_buffer_control", "start")[0]
        wr = int(write) << t.field("sata_buffer_control", "write")[0]
        t.reg("sata_buffer_control").write(start | wr)
        deadline = time.monotonic() + self.timeout
        what = f"{'write' if write else 'read'} of LBA {lba}..{lba + count - 1}"
        while True:
            st = t.reg("sata_buffer_status").read()
            if _field(t, "sata_buffer_status", st, "done"):
                break
            if t.reg("sata_phy_link_downs").read() != downs:
                raise TargetError(f"SATA link dropped during the {what}")
            if time.monotonic() > deadline:
                raise TargetError(f"{what}: no completion within {self.timeout:.0f} s")
        if t.reg("sata_phy_link_downs").read() != downs:
            raise TargetError(f"SATA link dropped during the {what}")
        for flag, text in (("timeout", "the drive did not finish it in time"),
                           ("refused", "refused by the gateware (bad count)"),
                           ("failed", "the drive reported an error")):
            if _field(t, "sata_buffer_status", st, flag):
                raise TargetError(f"{what}: {text}")

    def read(self, lba, count):
        out = bytearray()
        while count:
            n = min(count, DMA_SECTORS)
            self._run(lba, n, write=False)
            words = []
            for off in range(0, n * SECTOR // 4, BURST_WORDS):
                words += self.t.bus.read(self.base + 4 * off, min(BURST_WORDS, n * SECTOR // 4 - off))
            out += b"".join(w.to_bytes(4, "little") for w in words)
            lba, count = lba + n, count - n
        return bytes(out)

    def write(self, lba, data):
        assert len(data) % SECTOR == 0
        for off in range(0, len(data), DMA_SECTORS * SECTOR):
            chunk = data[off:off + DMA_SECTORS * SECTOR]
            words = [int.from_bytes(chunk[i:i + 4], "little") for i in range(0, len(chunk), 4)]
            for i in range(0, len(words), BURST_WORDS):
                self.t.bus.write(self.base + 4 * i, words[i:i + BURST_WORDS])
            self._run(lba + off // SECTOR, len(chunk) // SECTOR, write=True)
