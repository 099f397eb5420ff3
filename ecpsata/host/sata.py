# SPDX-License-Identifier: BSD-2-Clause
"""SATA operations from the host through the SoC's registers: link status, the drive's readiness
and signature, IDENTIFY, non-data commands (FLUSH CACHE EXT, SET FEATURES), and small sector
reads/writes through the sector buffer."""

import sys
import time

from ecpsata.core import common as sc
from ecpsata.phy.ctrl import STATES
from ecpsata.host.ata import (SECTOR, IdentifyChecksumError, IdentifyError, check_usable, parse_identify,
                       words_from_dwords)
from ecpsata.host.target import REQUEST_WORDS, TargetError

DMA_SECTORS = 16  # the sector buffer's size (ecpsata/soc/integration.py SECTOR_BUFFER_SECTORS)
# Words per bus access. A read goes as client records of at most 255 reads (the count is one byte),
# all of a buffer's sent together (Target.read_bursts); over Etherbone ecpsata/host/server.py
# splits them into records the SoC takes and keeps three in flight across them. A write goes to
# the SoC as one record: at most what the SoC's Etherbone takes in one (ecpsata/soc/builder.py
# ETHERBONE_BUFFER_WORDS; a longer one is lost whole).
READ_BURST_WORDS = REQUEST_WORDS
WRITE_BURST_WORDS = 128


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


ERRORS = "sata_errors_"


def _err(target, name):
    return target.reg(ERRORS + name).read()


def device_ready(target):
    """The drive is ready: a Register D2H FIS with BSY clear arrived since the link came up
    (ecpsata/frontend/errors.py). Commands sent before would be ignored by a busy drive, and its late
    signature taken for their status. True on a gateware that does not tell."""
    if not target.has(ERRORS + "dev_ready"):
        return True
    return bool(_err(target, "dev_ready"))


def drive_state(target):
    """{"ready", "never_ready", "busy_s", "signature", "kind", "tf_status", "serror",
    "serror_names"} of the gateware's error block, or None on a gateware without one."""
    if not target.has(ERRORS + "dev_signature"):
        return None
    clk = target.sys_clk_hz()
    sig = _err(target, "dev_signature")
    serror = _err(target, "serror")
    return {
        "ready":        bool(_err(target, "dev_ready")),
        "never_ready":  bool(_err(target, "dev_never_ready")),
        "busy_s":       _err(target, "dev_busy_time") / clk,
        "ready_timeout_s": _err(target, "ready_timeout") / clk,
        "signature":    sig,
        "kind":         sc.signature_kind(sig) if sig else "none yet",
        "tf_status":    _err(target, "dev_tf_status"),
        "serror":       serror,
        "serror_names": sc.serror_names(serror),
        "cmd_failures": _err(target, "cmd_failures"),
        "cmd_reason":   sc.CMD_REASONS.get(_err(target, "cmd_reason"), ("?", "unknown"))[1],
        "escapes":      _err(target, "escapes"),
        "fis_refused":  _err(target, "fis_refused"),
    }


def signature_text(sig):
    """'ATA (01h/01h/00h/00h)': the kind and the count / LBA low / mid / high bytes."""
    parts = "/".join(f"{sig >> (8 * i) & 0xFF:02X}h" for i in range(4))
    return f"{sc.signature_kind(sig)} ({parts})"


class LinkError(TargetError):
    """A link attempt or a command that failed at the drive's end (link down or dropped, the drive
    not ready, no completion, a device error); the CLI shows the link event log after it."""


class DriveNotReady(LinkError):
    pass


def set_ready_timeout(target, seconds):
    """The longest time the drive may stay busy after a reset (the gateware's ready_timeout)."""
    if not target.has(ERRORS + "ready_timeout"):
        raise TargetError("this gateware has no drive-ready limit (sata_errors_ready_timeout)")
    cycles = int(seconds * target.sys_clk_hz())
    if not 1 <= cycles < 2**32:
        raise TargetError(f"--ready-timeout {seconds:g} s does not fit the gateware's 32-bit cycle "
                          f"counter at {target.sys_clk_hz() / 1e6:g} MHz "
                          f"(at most {(2**32 - 1) / target.sys_clk_hz():.1f} s)")
    target.reg(ERRORS + "ready_timeout").write(cycles)


def wait_link(target, timeout, out=None, reset_again=True):
    """Wait for the link (within `timeout` host seconds), then for the drive to be ready, however
    long its spin-up takes: the gateware's own limit (ready_timeout, default 31 s of target time)
    ends the wait. The first time the limit passes, the host sends one more COMRESET and waits
    again (as libata's error handler retries a reset that timed out: the signature may have been
    lost on the line); the second time ends with DriveNotReady. While the drive is busy a line
    says so about once a second (on `out`, default stderr)."""
    out = out or sys.stderr
    deadline = time.monotonic() + timeout
    while True:
        st = link_status(target)
        if st["ready"]:
            break
        if time.monotonic() > deadline:
            raise LinkError(f"SATA link down after {timeout:.0f} s (state {st['state']}, "
                            f"{st['retries']} retries): is a drive connected and powered?")
        time.sleep(0.05)
    if not target.has(ERRORS + "dev_never_ready"):
        return st
    downs = st["link_downs"]
    shown = None
    while not device_ready(target):
        d = drive_state(target)
        if d["never_ready"]:
            if shown is not None and out.isatty():
                out.write("\n")
            if reset_again:
                out.write(f"drive not ready {d['busy_s']:.1f} s after reset: COMRESET again\n")
                out.flush()
                comreset(target)
                return wait_link(target, timeout, out, reset_again=False)
            raise DriveNotReady(
                f"the drive stayed busy (BSY) for {d['busy_s']:.1f} s after reset "
                f"(the limit, --ready-timeout, is {d['ready_timeout_s']:.1f} s): a hard disk that "
                f"does not spin up (no 12 V?), or a device that never ends its power-on "
                f"diagnostics")
        if target.reg("sata_phy_link_downs").read() != downs:
            raise LinkError("SATA link dropped while the drive was busy after reset")
        if shown is None or d["busy_s"] - shown >= 1.0 or (out.isatty() and d["busy_s"] != shown):
            text = f"drive busy after reset (spinning up?): {d['busy_s']:.1f} s"
            out.write(("\r" + text + "\x1b[K") if out.isatty() else text + "\n")
            out.flush()
            shown = d["busy_s"]
        time.sleep(0.05)
    if shown is not None:
        text = f"drive ready after {drive_state(target)['busy_s']:.1f} s busy"
        out.write(("\r" + text + "\x1b[K\n") if out.isatty() else text + "\n")
        out.flush()
    return link_status(target)


def check_ata(target):
    """Refuse, before IDENTIFY, a device whose signature is not an ATA device's."""
    d = drive_state(target)
    if d is None or d["signature"] in (0, sc.SIGNATURE_ATA):
        return
    raise TargetError(f"the device is {signature_text(d['signature'])}, not an ATA drive: "
                      f"only ATA drives are supported (nothing sent)")


IDENTIFY_TRIES = 3


def identify(target, timeout, usable=True):
    """The drive's IDENTIFY DEVICE data, decoded; usable=True refuses a drive the bench cannot
    use (no LBA, logical sectors other than 512 bytes). A device that is not an ATA drive (its
    signature) is refused before IDENTIFY; an IDENTIFY the drive aborts ends at once with its
    registers.

    IDENTIFY only reads, so it is sent again (up to IDENTIFY_TRIES in all) when its data cannot
    be trusted: its Data FIS arrived with a bad CRC (the link's count), or the checksum in word
    255 fails, or when the drive refused its command FIS every time. A bit error on the line
    costs a retry, not a refused drive."""
    wait_link(target, timeout)
    check_ata(target)
    crc_reg = "sata_errors_fis_crc_errors"
    failures = []
    for _ in range(IDENTIFY_TRIES):
        crc0 = target.reg(crc_reg).read() if target.has(crc_reg) else None
        try:
            dwords = _identify_dwords(target, timeout)
        except IdentifyDamaged as e:
            failures.append(str(e))
            continue
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
    raise LinkError(f"IDENTIFY failed {IDENTIFY_TRIES} times ({'; '.join(failures)}): the "
                    "link has bit errors (cable, connector, or the PHY's settings)")


def _failures(target):
    return _err(target, "cmd_failures") if target.has(ERRORS + "cmd_failures") else None


def device_error_text(target):
    """'status 0x51, error 0x04 (ABRT: command aborted)' from the last device error."""
    status, error = _err(target, "dev_status"), _err(target, "dev_error")
    bits = [text for bit, text in sc.ERROR_BITS.items() if error & bit]
    return f"status 0x{status:02x}, error 0x{error:02x}" + (f" ({', '.join(bits)})" if bits else "")


def _identify_dwords(target, timeout):
    """IDENTIFY's 128 dwords. An IDENTIFY that ends early (the frontend done with fewer dwords) or
    ends failed (the core's failure count moved) is an IdentifyAborted when the drive refused it
    (its registers say why), else an IdentifyDamaged (a bad CRC, an escape, or the drive's ICRC:
    worth a retry)."""
    downs = target.reg("sata_phy_link_downs").read()
    failures0 = _failures(target)
    target.reg("sata_identify_start").write(1)
    dwords = []
    deadline = time.monotonic() + timeout
    valid, data, ready, done = (target.reg(f"sata_identify_{n}")
                                for n in ("source_valid", "source_data", "source_ready", "done"))
    while len(dwords) < 128:
        if valid.read():
            dwords.append(data.read())
            ready.write(1)
            continue
        if failures0 is not None and done.read() and _failures(target) != failures0:
            break
        if target.reg("sata_phy_link_downs").read() != downs:
            raise LinkError("SATA link dropped during IDENTIFY")
        if time.monotonic() > deadline:
            raise IdentifyTimeout(f"IDENTIFY: the drive did not answer within {timeout:.0f} s")
    if failures0 is not None and _failures(target) != failures0:
        reason = _err(target, "cmd_reason")
        if reason == sc.CMD_REASON["DEVICE"] and _err(target, "dev_error") & sc.ERROR_ICRC:
            # ICRC: the drive ended it for a transfer damaged on the line (its Data FIS lost to a
            # bit error): worth a retry, not a drive that refuses IDENTIFY.
            raise IdentifyDamaged(f"IDENTIFY failed on the line: {device_error_text(target)}")
        if reason == sc.CMD_REASON["DEVICE"]:
            raise IdentifyAborted(f"IDENTIFY aborted by the drive: {device_error_text(target)}: "
                                  f"it does not take IDENTIFY DEVICE (an ATAPI device, or a "
                                  f"drive that refuses it)")
        text = f"IDENTIFY failed: {sc.CMD_REASONS[reason][1]}"
        # The data damaged on its way, or the command FIS refused every time (the drive never
        # took it: nothing happened): worth a retry, as for any command (atacmd.py).
        if reason in (sc.CMD_REASON["DATA_CRC"], sc.CMD_REASON["ESCAPE"],
                      sc.CMD_REASON["HANDSHAKE"]):
            raise IdentifyDamaged(text)
        serror = sc.serror_names(_err(target, "serror"))
        raise LinkError(text + (f" (SError {{ {' '.join(serror)} }})" if serror else ""))
    return dwords


class IdentifyAborted(LinkError):
    pass


class IdentifyDamaged(LinkError):
    pass


class IdentifyTimeout(LinkError):
    pass


def comreset(target):
    """COMRESET: the PHY's restart. The link's ready flag drops within two sys cycles of the
    write, before any later register access through a bridge can see it; the restart is not a
    link loss (link_downs does not count it), link_ups counts it when the link is back."""
    ctrl = target.reg("sata_phy_control")
    off, _ = target.field("sata_phy_control", "restart")
    ctrl.write(ctrl.read() | 1 << off)


def _reset_link(target, timeout):
    """COMRESET, then wait for the link and the drive."""
    comreset(target)
    wait_link(target, timeout)


def check_range(ident, lba, count):
    if count <= 0:
        raise TargetError("the sector count must be at least 1")
    if lba < 0 or lba + count > ident["sectors"]:
        raise TargetError(f"LBA range {lba}..{lba + count - 1} is outside the drive "
                          f"(0..{ident['sectors'] - 1}): nothing sent")


def wait_buffer(target, downs, timeout, what):
    """Wait for the sector buffer's command to end; its status register. A link drop (the count
    of link downs moved from ``downs``) or no end within ``timeout`` seconds raises LinkError."""
    t = target
    deadline = time.monotonic() + timeout
    while True:
        st = t.reg("sata_buffer_status").read()
        if _field(t, "sata_buffer_status", st, "done"):
            break
        if t.reg("sata_phy_link_downs").read() != downs:
            raise LinkError(f"SATA link dropped during the {what}")
        if time.monotonic() > deadline:
            raise LinkError(f"{what}: no completion within {timeout:g} s")
    if t.reg("sata_phy_link_downs").read() != downs:
        raise LinkError(f"SATA link dropped during the {what}")
    return st


def read_buffer(target, base, nbytes):
    """``nbytes`` of the sector buffer's memory at ``base``, in bursts."""
    total = nbytes // 4
    bursts = target.read_bursts([(base + 4 * off, min(READ_BURST_WORDS, total - off))
                                 for off in range(0, total, READ_BURST_WORDS)])
    return b"".join(w.to_bytes(4, "little") for burst in bursts for w in burst)


def write_buffer(target, base, data):
    """``data`` (a multiple of 4 bytes) into the sector buffer's memory at ``base``."""
    words = [int.from_bytes(data[i:i + 4], "little") for i in range(0, len(data), 4)]
    for i in range(0, len(words), WRITE_BURST_WORDS):
        target.bus.write(base + 4 * i, words[i:i + WRITE_BURST_WORDS])


class SectorIO:
    """Small reads/writes through the SoC's sector buffer (ecpsata/frontend/buffer.py): one READ or
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
        what = f"{'write' if write else 'read'} of LBA {lba}..{lba + count - 1}"
        st = wait_buffer(t, downs, self.timeout, what)
        for flag, text in (("timeout", "the drive did not finish it in time"),
                           ("refused", "refused by the gateware (bad count)"),
                           ("failed", "the drive reported an error")):
            if _field(t, "sata_buffer_status", st, flag):
                raise LinkError(f"{what}: {text}")

    def read(self, lba, count):
        out = bytearray()
        while count:
            n = min(count, DMA_SECTORS)
            self._run(lba, n, write=False)
            out += read_buffer(self.t, self.base, n * SECTOR)
            lba, count = lba + n, count - n
        return bytes(out)

    def write(self, lba, data):
        assert len(data) % SECTOR == 0
        for off in range(0, len(data), DMA_SECTORS * SECTOR):
            chunk = data[off:off + DMA_SECTORS * SECTOR]
            write_buffer(self.t, self.base, chunk)
            self._run(lba + off // SECTOR, len(chunk) // SECTOR, write=True)


# Non-data commands --------------------------------------------------------------------------------

def nodata(target, command, features=0, count=0, lba=0, timeout=5.0, what=None):
    """One non-data command through the sector buffer (e.g. FLUSH CACHE EXT, SET FEATURES);
    raises TargetError with the drive's registers when it fails. Returns the host seconds it
    took (a one-off figure, not a benchmark)."""
    if not target.has("sata_buffer_command"):
        raise TargetError("this gateware's sector buffer sends no non-data commands")
    what = what or f"command 0x{command:02x}"
    t = target
    downs = t.reg("sata_phy_link_downs").read()
    t.reg("sata_buffer_command").write(command)
    t.reg("sata_buffer_features").write(features)
    t.reg("sata_buffer_count").write(count)
    t.reg("sata_buffer_lba").write(lba)
    ctrl = (1 << t.field("sata_buffer_control", "start")[0]) | \
           (1 << t.field("sata_buffer_control", "nodata")[0])
    t0 = time.monotonic()
    t.reg("sata_buffer_control").write(ctrl)
    st = wait_buffer(t, downs, timeout, what)
    took = time.monotonic() - t0
    if _field(t, "sata_buffer_status", st, "timeout"):
        raise LinkError(f"{what}: the drive did not finish it in time (the core was reset)")
    if _field(t, "sata_buffer_status", st, "failed"):
        raise LinkError(f"{what} failed: {device_error_text(t)}")
    return took


def set_write_cache(target, on, timeout=5.0):
    nodata(target, sc.ATA_SET_FEATURES, sc.SF_WRITE_CACHE_ON if on else sc.SF_WRITE_CACHE_OFF,
           timeout=timeout, what=f"SET FEATURES (write cache {'on' if on else 'off'})")


def set_auto_activate(target, on, timeout=5.0):
    nodata(target, sc.ATA_SET_FEATURES, sc.SF_SATA_FEATURE_ON if on else sc.SF_SATA_FEATURE_OFF,
           count=sc.SATA_FEATURE_AUTO_ACTIVATE, timeout=timeout,
           what=f"SET FEATURES (DMA Setup auto-activate {'on' if on else 'off'})")


def enable_auto_activate(target, ident, timeout, notes):
    """Enable DMA Setup auto-activate when the drive supports it and has it off (IDENTIFY words
    78 / 79 bit 2; it saves one FIS per queued write); returns IDENTIFY read again, and says what
    was done in `notes`. A drive that refuses it is used as it is."""
    if not ident["auto_activate"] or ident["auto_activate_enabled"]:
        return ident
    try:
        set_auto_activate(target, True, timeout)
    except TargetError as e:
        notes.append(f"could not enable DMA Setup auto-activate: {e}")
        return ident
    notes.append("enabled DMA Setup auto-activate (SET FEATURES 10h, count 02h)")
    return identify(target, timeout, usable=False)


def prepare_drive(target, timeout, auto_activate=True, usable=True):
    """Link, readiness, signature and IDENTIFY, then (auto_activate) DMA Setup auto-activate
    enabled where the drive has it. Returns the IDENTIFY dict, with "notes" of what was done."""
    ident = identify(target, timeout, usable=usable)
    notes = []
    if auto_activate:
        ident = enable_auto_activate(target, ident, timeout, notes)
        if usable:
            check_usable(ident)
    ident["notes"] = notes
    return ident
