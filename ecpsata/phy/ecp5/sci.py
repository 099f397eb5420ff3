# SPDX-License-Identifier: BSD-2-Clause
"""SCI (SerDes Client Interface) access to the ECP5 DCU configuration registers.

The DCU exposes its channel and dual ("aux") configuration registers on an asynchronous 8-bit bus:
``D_SCIADDR[5:0]``, ``D_SCIWDATA[7:0]``, ``D_SCIRDATA[7:0]``, a read strobe ``D_SCIRD``, an active-low
write strobe ``D_SCIWSTN``, and selects ``CHx_SCIEN``/``CHx_SCISEL`` (channel registers) and
``D_SCIENAUX``/``D_SCISELAUX`` (dual registers). One SCI bus per DCU: only one owner per dual.

# Ref: Lattice TN1261 (ECP5 and ECP5-5G SERDES/PCS Usage Guide), "SCI" and register map appendix.

Channel registers used here (facts in doc/ecp5-serdes.md):
  0x01 bit 0: RX polarity invert, bit 1: TX polarity invert.
  0x18 bit 6: hold the receive CDR.
"""

from migen import *
from migen.genlib.cdc import MultiReg

from litex.gen import *

SCI_CH_POLARITY      = 0x01
SCI_CH_POLARITY_RX   = 0
SCI_CH_POLARITY_TX   = 1
SCI_CH_CDR           = 0x18
SCI_CH_CDR_HOLD      = 6


class ECP5SCIMaster(LiteXModule):
    """One SCI access at a time, sys domain.

    Set ``adr``, ``dat_w``, ``aux`` (1 = dual register, 0 = channel register) and ``we``, then pulse
    ``start`` while ``busy`` is low; ``done`` pulses when the access is finished and ``dat_r`` then
    holds read data. The bus has no clock: every DCU-side signal is registered (glitch-free), and
    address, data and selects are held one cycle before and after a strobe of ``strobe_cycles``.

    ``dcua_params(channel)`` returns the DCU-side signals as DCUA ports.
    """
    def __init__(self, strobe_cycles=3):
        self.start = Signal()
        self.we    = Signal()
        self.aux   = Signal()
        self.adr   = Signal(6)
        self.dat_w = Signal(8)
        self.dat_r = Signal(8)
        self.done  = Signal()
        self.busy  = Signal()

        # DCU side.
        self.sci_addr  = Signal(6)
        self.sci_wdata = Signal(8)
        self.sci_rdata = Signal(8)
        self.sci_rd    = Signal()
        self.sci_wstn  = Signal(reset=1)
        self.sci_ch    = Signal()
        self.sci_aux   = Signal()

        # # #

        we    = Signal()
        count = Signal(max=strobe_cycles + 1)

        self.fsm = fsm = FSM(reset_state="IDLE")
        fsm.act("IDLE",
            If(self.start,
                NextValue(we, self.we),
                NextValue(self.sci_addr, self.adr),
                NextValue(self.sci_wdata, self.dat_w),
                NextValue(self.sci_ch, ~self.aux),
                NextValue(self.sci_aux, self.aux),
                NextState("SETUP"),
            )
        )
        fsm.act("SETUP",
            self.busy.eq(1),
            NextValue(count, 0),
            NextValue(self.sci_wstn, ~we),
            NextValue(self.sci_rd, ~we),
            NextState("STROBE"),
        )
        fsm.act("STROBE",
            self.busy.eq(1),
            NextValue(count, count + 1),
            If(count == strobe_cycles - 1,
                NextValue(self.sci_wstn, 1),
                NextValue(self.sci_rd, 0),
                If(~we, NextValue(self.dat_r, self.sci_rdata)),
                NextState("HOLD"),
            )
        )
        fsm.act("HOLD",
            self.busy.eq(1),
            NextValue(self.sci_ch, 0),
            NextValue(self.sci_aux, 0),
            NextState("IDLE"),
        )
        self.comb += self.done.eq(fsm.ongoing("HOLD"))

    def dcua_params(self, channel):
        return {
            **{"i_D_SCIWDATA%d" % n: self.sci_wdata[n] for n in range(8)},
            **{"i_D_SCIADDR%d"  % n: self.sci_addr[n]  for n in range(6)},
            **{"o_D_SCIRDATA%d" % n: self.sci_rdata[n] for n in range(8)},
            "i_D_SCIENAUX"            : self.sci_aux,
            "i_D_SCISELAUX"           : self.sci_aux,
            "i_CH%d_SCIEN"  % channel : self.sci_ch,
            "i_CH%d_SCISEL" % channel : self.sci_ch,
            "i_D_SCIRD"               : self.sci_rd,
            "i_D_SCIWSTN"             : self.sci_wstn,
        }


class ECP5SCIControl(LiteXModule):
    """Keeps the channel's polarity and CDR-hold register bits equal to the requested levels.

    ``rx_polarity``, ``tx_polarity``, ``rx_cdr_hold`` are asynchronous levels (synchronised here).
    No access starts while ``tx_idle`` (the channel's electrical idle request, asynchronous) is on:
    rewriting a channel register then made a drive abandon its ALIGN stream (LiteICLink's ECP5
    SerDes, 2026); the access waits for the line to carry words again.
    ``rx_invert``/``tx_invert`` are the build-time polarities (``CHx_INVERT_RX/TX``); the value
    written is build-time XOR requested. A bit is rewritten (read-modify-write, other bits kept) when
    its request changes and whenever ``refresh`` pulses (after DCU resets). ``ext_*`` is a port for
    raw register access (debug CSRs, CDR tuning on hardware); it is served between updates.
    """
    def __init__(self, master, rx_invert=0, tx_invert=0):
        self.rx_polarity = Signal()
        self.tx_polarity = Signal()
        self.rx_cdr_hold = Signal()
        self.refresh     = Signal()
        self.tx_idle     = Signal()

        self.ext_start = Signal()
        self.ext_we    = Signal()
        self.ext_aux   = Signal()
        self.ext_adr   = Signal(6)
        self.ext_dat_w = Signal(8)
        self.ext_dat_r = Signal(8)
        self.ext_done  = Signal()
        self.ext_busy  = Signal()

        # # #

        rx_pol  = Signal()
        tx_pol  = Signal()
        hold    = Signal()
        idle    = Signal()
        self.specials += [
            MultiReg(self.rx_polarity, rx_pol),
            MultiReg(self.tx_polarity, tx_pol),
            MultiReg(self.rx_cdr_hold, hold),
            MultiReg(self.tx_idle, idle),
        ]
        want_pol  = Signal(2)
        want_hold = Signal()
        self.comb += [
            want_pol[SCI_CH_POLARITY_RX].eq(rx_pol ^ rx_invert),
            want_pol[SCI_CH_POLARITY_TX].eq(tx_pol ^ tx_invert),
            want_hold.eq(hold),
        ]

        # Last written values; "dirty" until first written after reset or refresh.
        done_pol  = Signal(2)
        done_hold = Signal()
        dirty     = Signal(reset=1)
        ext_req   = Signal()
        data      = Signal(8)
        self.comb += self.ext_busy.eq(ext_req)
        self.fsm = fsm = FSM(reset_state="IDLE")

        self.sync += [
            If(self.ext_start, ext_req.eq(1)).Elif(self.ext_done, ext_req.eq(0)),
            If(self.refresh, dirty.eq(1)).Elif(self.fsm.ongoing("IDLE") & ~idle, dirty.eq(0)),
        ]

        fsm.act("IDLE",
            If(idle,
                # electrical idle: no access starts
            ).Elif(dirty | (want_pol != done_pol),
                NextValue(done_pol, want_pol),
                NextState("POLARITY-READ"),
            ).Elif(want_hold != done_hold,
                NextState("CDR-READ"),
            ).Elif(ext_req,
                NextState("EXT"),
            )
        )

        def rmw(name, adr, update, next_state, latch=[]):
            fsm.act(name + "-READ",
                master.start.eq(~master.busy & ~master.done),
                master.we.eq(0),
                master.adr.eq(adr),
                If(master.done,
                    NextValue(data, master.dat_r),
                    *latch,
                    NextState(name + "-WRITE"),
                )
            )
            fsm.act(name + "-WRITE",
                master.start.eq(~master.busy & ~master.done),
                master.we.eq(1),
                master.adr.eq(adr),
                master.dat_w.eq(update(data)),
                If(master.done, NextState(next_state))
            )

        rmw("POLARITY", SCI_CH_POLARITY,
            lambda d: Cat(done_pol, d[2:8]), "CDR-READ")
        rmw("CDR", SCI_CH_CDR,
            lambda d: Cat(d[:SCI_CH_CDR_HOLD], done_hold, d[SCI_CH_CDR_HOLD+1:8]), "IDLE",
            latch=[NextValue(done_hold, want_hold)])
        fsm.act("EXT",
            master.start.eq(~master.busy & ~master.done),
            master.we.eq(self.ext_we),
            master.aux.eq(self.ext_aux),
            master.adr.eq(self.ext_adr),
            master.dat_w.eq(self.ext_dat_w),
            If(master.done,
                NextValue(self.ext_dat_r, master.dat_r),
                NextState("IDLE"),
            )
        )
        self.comb += self.ext_done.eq(fsm.ongoing("EXT") & master.done)
