# SPDX-License-Identifier: BSD-2-Clause
"""ECPSATAPHY: the vendor-neutral SATA host PHY on top of the SerDes seam, for LiteSATA.

    serdes = SimSerDes(pads, clk)            # or the ECP5 DCU wrapper: same seam
    phy    = ECPSATAPHY(serdes, sys_clk_freq)
    core   = LiteSATACore(phy)

# Ref: SATA 3.x §8 (PHY layer), LiteSATA phy/__init__.py (interface expected by LiteSATACore)
"""

from types import SimpleNamespace

from migen import *

from litex.gen import *
from litex.soc.interconnect import stream
from litex.soc.interconnect.csr import CSRStorage, CSRStatus, CSRField

from litesata.common import phy_description

from ecpsata.phy.common import *
from ecpsata.phy.oob import OOBGenerator, OOBDetector
from ecpsata.phy.ctrl import ECPSATAPHYCtrl, STATES, FORCE_GEN_AUTO, FORCE_GEN_GEN1, FORCE_GEN_GEN2
from ecpsata.phy.datapath import ECPSATAPHYDatapathTX, ECPSATAPHYDatapathRX, tx_description
from ecpsata.phy.selftest import ECPSATAPHYSelfTest


class ECPSATAPHY(LiteXModule):
    """SATA host PHY: OOB, speed negotiation, 8b10b, alignment, CDC (SATA 3.x §8).

    ``sink`` / ``source``: ``phy_description(32)`` streams in ``sys`` (byte 0 = first symbol, the
    K28.x of a primitive), as ``litesata.core.LiteSATACore`` expects. ``sink`` is only accepted once
    the link is up (``ready``; what it holds when the link drops is dropped); ``source`` only carries dwords received while the link is up and is
    never back-pressured (``source.ready`` is ignored, like LiteSATA's own PHYs). ALIGNs received
    while the link is up are dropped before the clock crossing (a few may pass as the link comes
    up); on TX this PHY sends the ALIGN pairs itself and drops the link layer's.

    If the link is lost while a frame is being received, ``source`` closes it with an EOF: the link
    layer sees a CRC error and the command layer reports the command as failed once the device
    answers again.

    ``sys_clk_freq`` must be at least the dword rate: 75 MHz at Gen2 (the boards and the
    simulated SoC run exactly that), 37.5 MHz at Gen1. At 75 MHz the margin for a drive whose
    clock runs faster than ours (up to 350 ppm) is the ALIGNs dropped before the crossing: two
    dwords in every 256 at least. ``force_gen``: the line rate after reset (0: Gen2, falling back
    to Gen1; 1: Gen1 only; 2: Gen2 only; the ``control`` register's ``force_gen`` changes it at
    run time). ``with_litesata_csr``: also LiteSATA's PHY register ``enable`` (0 holds the link
    down, as ``control.enable``), which LiteX's BIOS (``sata_init``) and the Linux LiteSATA driver
    write. ``frame_check`` (default off): the receive clock checks each frame's CRC and length
    itself, and a good Data FIS's EOF gets R_OK in the word clock when the link layer has said it
    would answer so (``answer_eof``), 53 ns sooner at Gen2, and so does a good Register D2H's
    (its type checked here too) while the link layer receives (``answer_status``), a good DMA
    Setup's when the queued layer takes one of its tag and a good Set Device Bits' when it takes
    one of its SActive (``answer_setup``, ``setup_mask``, ``sdb_mask``); off, the PHY is smaller
    and every R_OK is the link layer's. The boards build without it: the Versa's
    router stalled on its seed 3 with it (doc/timing.md). ``ctrl_kwargs`` go to
    ``ECPSATAPHYCtrl`` (retry pacing, timeouts).

    What LiteX's ``SoC.add_sata(phy=...)`` reads of a PHY: ``gen`` (the highest line rate, here
    "gen2": the word clocks' 150 MHz) and ``crg.cd_sata_tx`` / ``crg.cd_sata_rx`` (the SerDes's
    word-clock domains, for its constraints).
    """
    def __init__(self, serdes, sys_clk_freq, with_csr=True, oob_method=OOB_METHOD_SERIALIZER,
                 tx_fifo_depth=16, rx_fifo_depth=16, force_gen=0, with_litesata_csr=False,
                 frame_check=False, **ctrl_kwargs):
        self.serdes = serdes
        self.gen    = "gen2"
        self.crg    = SimpleNamespace(cd_sata_tx=serdes.cd_sata_tx, cd_sata_rx=serdes.cd_sata_rx)
        self.sink   = stream.Endpoint(phy_description(32))
        self.source = stream.Endpoint(phy_description(32))
        self.ready  = Signal()
        # In (sys, from the link layer): an X_RDY from the drive is to be answered with R_RDY. The
        # transmit datapath then answers it in the word clock, ahead of the link layer's own R_RDY
        # (0, a link layer that does not drive it: never).
        self.answer_x_rdy = Signal()
        # In (sys, from the link layer): a frame waits to be sent, and X_RDY goes out as soon as
        # the drive is idle (SYNC), also answered in the word clock.
        self.want_send = Signal()
        # In (sys, from the link layer), with ``frame_check`` only: the frame being received gets
        # R_OK if its CRC is good. The receive clock checks the frame itself
        # (ecpsata/phy/rx_frame.py) and the transmit datapath answers a good EOF with R_OK in the
        # word clock.
        # And ``answer_status``: the link layer receives a frame; R_OK if it is a Register D2H
        # (its type, which the transport always takes) with a good CRC and a Register D2H's
        # length.
        # ``answer_setup``: the link layer receives a frame and the queued layer's masks hold
        # (``setup_mask``: the tags it takes a DMA Setup for; ``sdb_mask``: the tags a Set Device
        # Bits may complete); R_OK for a good DMA Setup whose tag (its second dword) is in the
        # first, or a good Set Device Bits whose SActive (its second dword) is in the second.
        if frame_check:
            self.answer_eof = Signal()
            self.answer_status = Signal()
            self.answer_setup = Signal()
            self.setup_mask = Signal(32)
            self.sdb_mask = Signal(32)

        # Controls (driven by the CSRs when with_csr, else by the user).
        self.enable      = Signal(reset=1)
        self.restart     = Signal()
        if force_gen not in (FORCE_GEN_AUTO, FORCE_GEN_GEN1, FORCE_GEN_GEN2):
            raise ValueError(f"ECPSATAPHY: force_gen must be 0 (Gen2, falling back to Gen1), 1 (Gen1) "
                             f"or 2 (Gen2), not {force_gen!r}")
        self._force_gen_reset = force_gen
        self._with_litesata_csr = with_litesata_csr
        self.force_gen   = Signal(2, reset=force_gen)
        self.tx_polarity = Signal()
        self.tx_polarity_auto = Signal(reset=1)
        self.rx_polarity = Signal()
        self.rx_polarity_auto = Signal(reset=1)
        self.pacing      = Signal(2)
        self.oob_ei_gaps = Signal()

        # # #

        self.oob_gen = oob_gen = OOBGenerator(serdes.gen, method=oob_method)
        self.oob_det = oob_det = OOBDetector(serdes.rx_los, sys_clk_freq)
        self.ctrl    = ctrl    = ECPSATAPHYCtrl(serdes, oob_det, sys_clk_freq, **ctrl_kwargs)
        self.tx      = tx      = ECPSATAPHYDatapathTX(tx_fifo_depth, early_eof=frame_check)
        self.rx      = rx      = ECPSATAPHYDatapathRX(rx_fifo_depth, frame_check=frame_check)
        self.selftest = selftest = ECPSATAPHYSelfTest(with_csr=with_csr)

        # The link layer's dwords through a registered buffer (valid and ready): ready then reaches
        # the link layer from a flip-flop, not through the controller state and the FIFO level,
        # and the path from the RX FIFO through both link state machines ends here (without it
        # sys misses 75 MHz on ECP5: 67 MHz).
        self.tx_buf = tx_buf = ResetInserter()(
            stream.Buffer(tx_description(frame_check), pipe_valid=True, pipe_ready=True))
        self.comb += [
            If(ctrl.ready, self.sink.connect(tx_buf.sink)),
            # The link layer's levels with its dwords, through the buffer and the FIFO with them.
            tx_buf.sink.answer_x_rdy.eq(self.answer_x_rdy),
            tx_buf.sink.want_send.eq(self.want_send),
            *([tx_buf.sink.answer_eof.eq(self.answer_eof),
               tx_buf.sink.answer_status.eq(self.answer_status),
               tx_buf.sink.answer_setup.eq(self.answer_setup)] if frame_check else []),
            tx_buf.reset.eq(~ctrl.ready),
        ]

        self.comb += [
            # Control.
            ctrl.enable.eq(self.enable),
            ctrl.restart.eq(self.restart),
            ctrl.force_gen.eq(self.force_gen),
            ctrl.tx_polarity.eq(self.tx_polarity),
            ctrl.tx_polarity_auto.eq(self.tx_polarity_auto),
            ctrl.rx_polarity_force.eq(self.rx_polarity),
            ctrl.rx_polarity_auto.eq(self.rx_polarity_auto),
            ctrl.pacing.eq(self.pacing),
            oob_gen.ei_gaps.eq(self.oob_ei_gaps),
            self.ready.eq(ctrl.ready),

            # OOB.
            oob_gen.req.eq(ctrl.oob_req),
            oob_gen.kind.eq(ctrl.oob_kind),
            ctrl.oob_done.eq(oob_gen.done),

            # TX.
            tx.mode.eq(ctrl.tx_mode),
            tx.flush.eq(ctrl.tx_flush),
            tx.oob_data.eq(oob_gen.tx_data),
            serdes.tx_data.eq(tx.tx_data),
            tx.oob_idle.eq(oob_gen.tx_idle),
            tx.hold.eq(rx.hold),
            tx.drive_x_rdy.eq(rx.x_rdy),
            tx.drive_done.eq(rx.done),
            tx.drive_idle.eq(rx.drive_idle),
            *([tx.frame_good.eq(rx.frame_good),
               tx.frame_good_status.eq(rx.frame_good_status),
               tx.frame_good_setup.eq(rx.frame_good_setup),
               tx.frame_good_sdb.eq(rx.frame_good_sdb),
               tx.frame_setup_ok.eq(rx.frame_setup_ok),
               tx.frame_sdb_ok.eq(rx.frame_sdb_ok),
               rx.setup_mask.eq(self.setup_mask),
               rx.sdb_mask.eq(self.sdb_mask)] if frame_check else []),
            serdes.tx_idle.eq(tx.tx_idle),
            If(ctrl.ready,
                self.tx_buf.source.connect(tx.sink)
            ).Elif(ctrl.selftest_active,
                selftest.source.connect(tx.sink)
            ),

            # Self-test.
            ctrl.selftest.eq(selftest.enable),
            selftest.active.eq(ctrl.selftest_active),
            selftest.rx_valid.eq(rx.source.valid),
            selftest.rx_data.eq(rx.source.data),
            selftest.rx_charisk.eq(rx.source.charisk),
            selftest.rx_code_errors.eq(rx.source.code_errors),
            selftest.rx_disp_errors.eq(rx.source.disp_errors),
            selftest.rx_align_seen.eq(rx.align_seen),

            # RX.
            rx.rx_data.eq(serdes.rx_data),
            # Flushed too while the SerDes's receiver is not ready: its word clock's domain is
            # then in reset, and with it the FIFO's write side but not its read side in sys,
            # which would go on reading entries the write side never wrote (garbage on silicon, X
            # in a four-state run). The ready flag reaches sys no later than the write pointer's
            # reset does (both through two flops, the flag changing first).
            rx.flush.eq(ctrl.rx_flush | ~ctrl.rx_ready),
            rx.drop_align.eq(ctrl.ready | ctrl.selftest_active),
            ctrl.rx_align_seen.eq(rx.align_seen),
            rx.source.ready.eq(1),
            ctrl.rx_valid.eq(rx.source.valid),
            ctrl.rx_data.eq(rx.source.data),
            ctrl.rx_charisk.eq(rx.source.charisk),
            ctrl.rx_code_errors.eq(rx.source.code_errors),
            ctrl.rx_disp_errors.eq(rx.source.disp_errors),
        ]

        # Link lost inside a received frame: close the frame with an EOF so that the link layer
        # checks the (partial) frame's CRC and reports an error upwards, instead of waiting
        # forever for the rest of a frame the device will never send.
        rx_in_frame = Signal()
        ready_d     = Signal()
        close_frame = Signal()
        is_prim = lambda name: ((self.source.charisk == 0b0001) &
                                (self.source.data == primitives[name]))
        self.comb += [
            close_frame.eq(ready_d & ~ctrl.ready & rx_in_frame),
            If(close_frame,
                self.source.valid.eq(1),
                self.source.data.eq(primitives["EOF"]),
                self.source.charisk.eq(0b0001),
            ).Else(
                self.source.valid.eq(rx.source.valid & ctrl.ready),
                self.source.data.eq(rx.source.data),
                self.source.charisk.eq(rx.source.charisk),
            )
        ]
        self.sync += [
            ready_d.eq(ctrl.ready),
            If(self.source.valid,
                If(is_prim("SOF"),
                    rx_in_frame.eq(1)
                ).Elif(is_prim("EOF") | is_prim("SYNC") | is_prim("WTRM"),
                    rx_in_frame.eq(0)
                )
            )
        ]
        if oob_method == OOB_METHOD_LDR:
            if not (hasattr(serdes, "ldr_enable") and hasattr(serdes, "ldr_burst")):
                raise ValueError("OOB method 'ldr' needs a SerDes with ldr_enable / ldr_burst")
            self.comb += [
                serdes.ldr_enable.eq(oob_gen.ldr_enable),
                serdes.ldr_burst.eq(oob_gen.ldr_burst),
            ]

        if with_csr:
            self.add_csr()

    def add_csr(self):
        self.add_settings_csr()
        self.add_status_csr()

    def add_settings_csr(self):
        """``control``: the settings the PHY takes at run time (without it they keep their
        defaults, the signals' reset values)."""
        self._control = CSRStorage(fields=[
            CSRField("enable", size=1, reset=1, description="Run the link (0 holds it down)."),
            CSRField("tx_polarity", size=1, description="Invert the transmitted data."),
            CSRField("force_gen", size=2, reset=self._force_gen_reset, values=[
                ("``0b00``", "Auto: Gen2, falling back to Gen1."),
                ("``0b01``", "Gen1 only."),
                ("``0b10``", "Gen2 only."),
            ]),
            CSRField("restart", size=1, pulse=True, description="Write 1: re-initialise the link."),
            CSRField("tx_polarity_auto", size=1, reset=1, values=[
                ("``0b0``", "TX polarity forced to ``tx_polarity``."),
                ("``0b1``", "Auto: ``tx_polarity`` first, the other one after a failed attempt."),
            ]),
            CSRField("rx_polarity", size=1, description="RX polarity when not learnt."),
            CSRField("rx_polarity_auto", size=1, reset=1, values=[
                ("``0b0``", "RX polarity forced to ``rx_polarity``."),
                ("``0b1``", "Auto: learnt from ALIGN and its inverted form."),
            ]),
            CSRField("pacing", size=2, description="COMRESET pacing: the retry interval times "
                     "1, 2, 4 or 8 (before the back-off)."),
            CSRField("oob_ei_gaps", size=1, description="COMRESET gaps with electrical idle "
                     "(serializer OOB; COMWAKE's gaps are too short for it)."),
        ])
        if self._with_litesata_csr:
            self._enable = CSRStorage(reset=1, description="LiteSATA's PHY enable (LiteX's BIOS "
                                      "and the Linux LiteSATA driver write it): 0 holds the link "
                                      "down, as ``control.enable``.")
        self.comb += [
            self.enable.eq(self._control.fields.enable & self._enable.storage
                           if self._with_litesata_csr else self._control.fields.enable),
            self.tx_polarity.eq(self._control.fields.tx_polarity),
            self.tx_polarity_auto.eq(self._control.fields.tx_polarity_auto),
            self.rx_polarity.eq(self._control.fields.rx_polarity),
            self.rx_polarity_auto.eq(self._control.fields.rx_polarity_auto),
            self.pacing.eq(self._control.fields.pacing),
            self.oob_ei_gaps.eq(self._control.fields.oob_ei_gaps),
            self.force_gen.eq(self._control.fields.force_gen),
            self.restart.eq(self._control.fields.restart),
        ]

    def add_status_csr(self):
        """``status`` and the link counters."""
        ctrl = self.ctrl
        self._status = CSRStatus(fields=[
            CSRField("ready", size=1, description="Link up (HP8_HR_Ready)."),
            CSRField("state", size=4, description="Controller state.",
                values=[(f"``{code}``", name) for code, name in enumerate(STATES)]),
            CSRField("gen", size=1, description="Line rate (negotiated when ready).", values=[
                ("``0b0``", "Gen1 (1.5 Gb/s)."),
                ("``0b1``", "Gen2 (3.0 Gb/s)."),
            ]),
            CSRField("rx_polarity", size=1, description="RX polarity in use (learnt from ALIGN, or forced)."),
            CSRField("tx_ready", size=1, description="SerDes TX ready."),
            CSRField("rx_ready", size=1, description="SerDes RX ready."),
            CSRField("rx_los", size=1, description="Loss of signal (debounced)."),
            CSRField("tx_polarity", size=1, description="TX polarity in use (found in auto mode)."),
        ])
        self._retries      = CSRStatus(32, description="Failed initialisation attempts (incl. speed fallbacks).")
        self._link_ups     = CSRStatus(32, description="Times the link came up.")
        self._link_downs   = CSRStatus(32, description="Times the link was lost.")
        self._code_errors  = CSRStatus(32, description="8b10b code errors while ready (symbols).")
        self._disp_errors  = CSRStatus(32, description="8b10b disparity errors while ready (symbols).")
        self._time_to_link = CSRStatus(32, description="sys cycles from the last reset/restart to ready.")

        self.comb += [
            self._status.fields.ready.eq(ctrl.ready),
            self._status.fields.state.eq(ctrl.state),
            self._status.fields.gen.eq(ctrl.gen),
            self._status.fields.rx_polarity.eq(ctrl.rx_polarity),
            self._status.fields.tx_ready.eq(ctrl.tx_ready),
            self._status.fields.rx_ready.eq(ctrl.rx_ready),
            self._status.fields.rx_los.eq(self.oob_det.los),
            self._status.fields.tx_polarity.eq(ctrl.tx_polarity_line),
            self._retries.status.eq(ctrl.retries),
            self._link_ups.status.eq(ctrl.link_ups),
            self._link_downs.status.eq(ctrl.link_downs),
            self._code_errors.status.eq(ctrl.code_errors),
            self._disp_errors.status.eq(ctrl.disp_errors),
            self._time_to_link.status.eq(ctrl.time_to_link),
        ]
