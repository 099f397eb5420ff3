"""What went wrong, as the drive and the link said it: device status and error registers with the
failing LBA, and link-level error counts.

Outside the core's reset (soc/builder.py resets the core on a link drop and on a command timeout),
so the figures survive the recovery they caused. Taps `ECPSATACore` (gateware/sata_cmd.py):

- `rx_fis`: every control FIS the command layer acts on (a Register D2H with the ERR bit is a
  device error: its status, error and LBA registers are latched; ATA8-ACS gives the LBA of the
  first failing sector there for READ/WRITE DMA errors);
- the pulses `fis_crc_error` (a received FIS failed its CRC: we answered R_ERR),
  `fis_rejected` (the drive answered R_ERR to a FIS of ours, or aborted it) and `cmd_retry`
  (a command FIS went out again).

CSRs (all read-only; counters since power-up, wrapping):

    ==================  ====  ========================================================
    dev_ready           1     the drive has answered since the link came up: its first
                              Register D2H (the signature after COMRESET) arrived, or
                              SIGNATURE_WAIT passed without one. Commands issued before
                              would take the signature for their own status.
    dev_errors          32    Register D2H FISes with ERR set
    dev_status          8     status register of the last one (ERR = bit 0)
    dev_error           8     error register: ICRC 0x80, UNC 0x40, IDNF 0x10, ABRT 0x04
    dev_lba             48    LBA registers of the last one
    fis_crc_errors      32    received FISes with a bad CRC
    fis_rejected        32    our FISes the drive refused (R_ERR) or aborted
    cmd_retries         32    command FISes sent again after a refusal
    ==================  ====  ========================================================

Ref: SATA 3.x (Register - Device to Host FIS), ATA8-ACS (normal and error outputs of READ/WRITE
DMA: status, error, LBA), ../shared/design/SATA.md.
"""

from migen import *

from litex.gen import LiteXModule
from litex.soc.interconnect.csr import CSRStatus

from litesata.common import fis_types

STATUS_ERR = 0x01
ERROR_ICRC = 0x80
ERROR_UNC  = 0x40
ERROR_IDNF = 0x10
ERROR_ABRT = 0x04


SIGNATURE_WAIT = 10e-3   # a drive that sends no signature is taken as ready after this


class SATAErrors(LiteXModule):
    def __init__(self, core, link_up, sys_clk_freq):
        self.ready          = Signal()    # out: dev_ready (the engine issues only when it is 1)
        self.dev_ready      = CSRStatus()
        self.dev_errors     = CSRStatus(32)
        self.dev_status     = CSRStatus(8)
        self.dev_error      = CSRStatus(8)
        self.dev_lba        = CSRStatus(48)
        self.fis_crc_errors = CSRStatus(32)
        self.fis_rejected   = CSRStatus(32)
        self.cmd_retries    = CSRStatus(32)

        # # #

        fis = core.rx_fis
        d2h     = Signal()
        d2h_err = Signal()
        self.comb += [
            d2h.eq(fis.valid & fis.ready & (fis.type == fis_types["REG_D2H"])),
            d2h_err.eq(d2h & fis.status[0]),
            self.dev_ready.status.eq(self.ready),
        ]
        wait = Signal(max=int(SIGNATURE_WAIT*sys_clk_freq) + 1)
        self.sync += [
            If(~link_up,
                self.ready.eq(0),
                wait.eq(int(SIGNATURE_WAIT*sys_clk_freq)),
            ).Elif(d2h | (wait == 1),
                self.ready.eq(1),
            ),
            If(link_up & (wait != 0), wait.eq(wait - 1)),
        ]
        self.sync += [
            If(d2h_err,
                self.dev_errors.status.eq(self.dev_errors.status + 1),
                self.dev_status.status.eq(fis.status),
                self.dev_error.status.eq(fis.errors),
                self.dev_lba.status.eq(fis.lba),
            ),
            If(core.fis_crc_error, self.fis_crc_errors.status.eq(self.fis_crc_errors.status + 1)),
            If(core.fis_rejected, self.fis_rejected.status.eq(self.fis_rejected.status + 1)),
            If(core.cmd_retry, self.cmd_retries.status.eq(self.cmd_retries.status + 1)),
        ]
