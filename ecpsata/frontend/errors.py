# SPDX-License-Identifier: BSD-2-Clause
"""The drive's state and what went wrong: readiness after a reset, the device signature, device
status and error registers with the failing LBA, the reason of the last failed command,
link-level error counts, and an SError register with AHCI's layout.

Outside the core's reset (the SoC resets the core on a link drop and after a command timeout), so
the figures survive the recovery they caused.

**Readiness.** After every COMRESET (power-up, our resets, a link drop) a drive links within
milliseconds but sends its first Register D2H FIS (the signature) only when its power-on
diagnostics and, for a hard disk, its spin-up have ended: seconds, up to about 30 s. An AHCI host
preloads BSY at reset and issues nothing until a Register D2H clears it; so does this block:
``dev_ready`` rises on the first Register D2H with BSY clear (one with BSY set before it keeps it
low) and falls only with the link. There is no timed fallback (a command sent to a busy drive is ignored, and the late
signature would be taken for its status). ``dev_busy_time`` counts the cycles the drive has been
busy since the link came up, ``dev_never_ready`` rises when that reaches ``ready_timeout``
(default 31 s, longer than the spin-up hard disk specifications allow).

**Signature** (``dev_signature``): sector count, LBA low, mid and high of the Register D2H FISes
before ready, packed as count | low << 8 | mid << 16 | high << 24 (ATA 0x00000101, ATAPI
0xEB140101, port multiplier 0x96690101, enclosure bridge 0xC33C0101; ecpsata/core/common.py).

**SError** (``serror``, AHCI 1.3.1 §3.3.12 layout; a bit stays set until written with 1): each
bit is set by the event ``SERROR_BITS`` (ecpsata/core/common.py) names.

CSRs (read-only unless marked; counters since power-up, wrapping):

    ==================  ====  ========================================================
    dev_ready           1     the drive is ready (see above)
    dev_never_ready     1     busy for ready_timeout since the link came up
    dev_busy_time       32    sys cycles busy since the link came up (held once ready)
    ready_timeout       32    rw: the longest busy time accepted, sys cycles
    dev_signature       32    the device signature (0 before the first Register D2H)
    dev_tf_status       8     status of the last Register D2H (BSY 0x80, DRDY 0x40, ERR 1)
    dev_tf_error        8     its error register
    dev_tf_lba          48    its LBA registers (SMART RETURN STATUS: mid/high 4Fh/C2h
                              or F4h/2Ch; SANITIZE STATUS EXT: the progress)
    dev_tf_count        16    its count registers (SANITIZE STATUS EXT: the state bits)
    dev_errors          32    Register D2H FISes with ERR set
    dev_status          8     status register of the last one
    dev_error           8     error register: ICRC 0x80, UNC 0x40, IDNF 0x10, ABRT 0x04
    dev_lba             48    LBA registers of the last one
    cmd_failures        32    non-queued commands that ended failed
    cmd_reason          4     why the last of them failed (CMD_REASONS)
    fis_crc_errors      32    received frames with a bad CRC (answered R_ERR)
    fis_refused         32    received frames refused for their type, length or place
    fis_rejected        32    our frames the drive refused (R_ERR) or aborted
    cmd_retries         32    command FISes sent again after a refusal
    escapes             32    frames the drive abandoned (SYNC escape)
    serror              32    rw1c: AHCI SError bits
    ==================  ====  ========================================================

Ref: Serial ATA Revision 3.x (Register - Device to Host FIS, 11.2 power-on and reset); ACS-3
(status, error, signatures); Serial ATA AHCI 1.3.1 (PxTFD, PxSIG, PxSERR).
"""

from migen import *

from litex.gen import LiteXModule
from litex.soc.interconnect.csr import CSR, CSRStatus, CSRStorage

from ecpsata.core.common import SERROR, STATUS_BSY, STATUS_ERR, CMD_REASON

READY_TIMEOUT = 31.0     # seconds a drive may stay busy after a reset


class ECPSATAErrors(LiteXModule):
    """See the module docstring. ``core``: an ECPSATACore; ``phy``: its ECPSATAPHY; ``host_reset``:
    pulses when the host gave up on a command and reset the core."""
    def __init__(self, core, phy, sys_clk_freq, host_reset=0):
        self.ready          = Signal()    # out: the engines issue only when it is 1
        self.dev_ready      = CSRStatus()
        self.dev_never_ready = CSRStatus()
        self.dev_busy_time  = CSRStatus(32)
        self.ready_timeout  = CSRStorage(32, reset=min(2**32 - 1, int(READY_TIMEOUT * sys_clk_freq)))
        self.dev_signature  = CSRStatus(32)
        self.dev_tf_status  = CSRStatus(8)
        self.dev_tf_error   = CSRStatus(8)
        self.dev_tf_lba     = CSRStatus(48)
        self.dev_tf_count   = CSRStatus(16)
        self.dev_errors     = CSRStatus(32)
        self.dev_status     = CSRStatus(8)
        self.dev_error      = CSRStatus(8)
        self.dev_lba        = CSRStatus(48)
        self.cmd_failures   = CSRStatus(32)
        self.cmd_reason     = CSRStatus(4)
        self.fis_crc_errors = CSRStatus(32)
        self.fis_refused    = CSRStatus(32)
        self.fis_rejected   = CSRStatus(32)
        self.cmd_retries    = CSRStatus(32)
        self.escapes        = CSRStatus(32)
        self.serror         = CSR(32)

        # # #

        link_up = phy.ready
        d2h = core.d2h
        bsy = d2h.status & STATUS_BSY != 0
        busy_time = self.dev_busy_time.status
        self.sync += [
            If(~link_up,
                self.ready.eq(0),
                busy_time.eq(0),
                self.dev_signature.status.eq(0),
            ).Else(
                # Until the drive is ready, each Register D2H says whether it still is busy; once
                # it is, only a reset (the link going down) makes it busy again: a Register D2H
                # with BSY set outside a command afterwards is an anomaly (the error block counts
                # it), not a drive that will say when it is ready again.
                If(d2h.valid & ~self.ready,
                    self.ready.eq(~bsy),
                    self.dev_signature.status.eq(Cat(d2h.count[:8], d2h.lba[:24])),
                ),
                If(~self.ready & (busy_time != 2**32 - 1), busy_time.eq(busy_time + 1)),
            ),
            self.dev_never_ready.status.eq(link_up & ~self.ready &
                                           (busy_time >= self.ready_timeout.storage)),
        ]
        self.comb += self.dev_ready.status.eq(self.ready)

        # Device status and errors; counters.
        d2h_err = d2h.valid & (d2h.status & STATUS_ERR != 0)
        count = lambda csr, event: If(event, csr.status.eq(csr.status + 1))
        self.sync += [
            If(d2h.valid,
                self.dev_tf_status.status.eq(d2h.status),
                self.dev_tf_error.status.eq(d2h.errors),
                self.dev_tf_lba.status.eq(d2h.lba),
                self.dev_tf_count.status.eq(d2h.count),
            ),
            If(d2h_err,
                self.dev_errors.status.eq(self.dev_errors.status + 1),
                self.dev_status.status.eq(d2h.status),
                self.dev_error.status.eq(d2h.errors),
                self.dev_lba.status.eq(d2h.lba),
            ),
            If(core.cmd_failed,
                self.cmd_failures.status.eq(self.cmd_failures.status + 1),
                self.cmd_reason.status.eq(core.cmd_reason),
            ),
            count(self.fis_crc_errors, core.fis_crc_error),
            count(self.fis_refused, core.fis_unknown | core.fis_bad_length | core.fis_unexpected),
            count(self.fis_rejected, core.fis_rejected),
            count(self.cmd_retries, core.cmd_retry),
            count(self.escapes, core.rx_escape),
        ]

        # SError: the events, then set / write-1-to-clear.
        ctrl, det = phy.ctrl, phy.oob_det
        ready_d  = Signal()
        lost_once = Signal()          # the link has dropped since power-up
        in_flight = Signal()          # a command was in flight (before the core's reset)
        self.sync += [
            ready_d.eq(link_up),
            If(ready_d & ~link_up, lost_once.eq(1)),
            in_flight.eq(~core.command.rx.idle | (core.ncq.busy if hasattr(core, "ncq") else 0)),
        ]
        r = core.cmd_reason
        data_reason = (r == CMD_REASON["DATA_CRC"]) | (r == CMD_REASON["ESCAPE"]) | \
                      (r == CMD_REASON["NO_STATUS"])
        proto_reason = (r == CMD_REASON["PROTOCOL"]) | (r == CMD_REASON["SHORT"]) | \
                       (r == CMD_REASON["EXTRA"]) | (r == CMD_REASON["HANDSHAKE"])
        rx_errs = ctrl.rx_valid & link_up
        events = {
            "RecovData":   core.cmd_recovered,
            "RecovComm":   ~ready_d & link_up & lost_once,
            "UnrecovData": core.cmd_failed & data_reason,
            "Persist":     ready_d & ~link_up & in_flight,
            "Proto":       (core.cmd_failed & proto_reason) | core.fis_bad_length | core.data_extra,
            "HostInt":     host_reset | core.rx_overrun |
                           (core.cmd_failed & (r == CMD_REASON["TIMEOUT"])),
            "PHYRdyChg":   ready_d != link_up,
            "PHYInt":      ready_d & ~link_up & ~det.cominit_active,
            "CommWake":    det.comwake,
            "10B8B":       rx_errs & (ctrl.rx_code_errors != 0),
            "Dispar":      rx_errs & (ctrl.rx_disp_errors != 0),
            "BadCRC":      core.fis_crc_error,
            "Handshk":     core.fis_rejected,
            "LinkSeq":     core.rx_escape | core.rx_bad_seq,
            "TrStaTrns":   core.fis_unexpected | core.fis_bad_length | core.data_extra |
                           (core.fis_stray & self.ready),
            "UnrecFIS":    core.fis_unknown,
            "DevExch":     det.cominit,
        }
        assert set(events) == set(SERROR), "every SError bit has its event"
        serror = Signal(32)
        bits = [Constant(0, 1)] * 32
        for name, mask in SERROR.items():
            bits[mask.bit_length() - 1] = events[name]
        self.comb += self.serror.w.eq(serror)
        self.sync += serror.eq((serror & ~Mux(self.serror.re, self.serror.r, 0)) | Cat(*bits))
