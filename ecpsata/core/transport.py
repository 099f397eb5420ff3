# SPDX-License-Identifier: BSD-2-Clause
"""The SATA transport layer, host side, receive direction: every frame the link layer delivers is
judged (type, length, CRC, and whether the command layer can use it now) before the link answers
R_OK or R_ERR, and each device-to-host FIS type the host uses is decoded.

LiteSATA's transport RX (litesata/core/transport.py) knows four FIS types, drops any other frame
without a trace, counts a FIS's dwords by its type without looking at the frame's end, and leaves
the answer to the link layer, which sends R_OK on a good CRC alone. A well-formed frame it could
not use was acknowledged and lost, and a command could wait for a status that had been thrown
away. Here:

- a frame starts a FIS only on its first dword; a control FIS must end exactly at its type's
  length (Register D2H 5 dwords, PIO Setup 5, DMA Activate 1, DMA Setup 7, Set Device Bits 2)
  with a good CRC; a Data FIS must carry a payload;
- a control FIS that passes is presented on ``source`` (one beat); the command layer takes it
  (``source.ready``) or refuses it (``refuse`` with ``source.ready``: the FIS makes no sense in
  its state);
- a Data FIS is passed on only when the command layer has a data phase open (``accept_data``, at
  the FIS's first dword), else dropped whole; a frame dropped for its type or its place is judged
  at its end, once its CRC is known (a bit error in its header is not an unknown or misplaced FIS,
  and does not count as a refusal);
- the judgement goes to the link layer (``verdict_valid`` / ``verdict_good``, once per frame): a
  frame refused for any reason is answered R_ERR, so that the device sends it again (SATA 3.x
  10.4: a device retries a non-data FIS the host answered with R_ERR). A Data FIS is judged at
  its first dword (its CRC is the link layer's), so that R_OK does not wait for the frame to
  drain through the buffer. The two FISes a command waits on before it can go on are judged at
  their last dword, without waiting for the command layer to look at them: a Register D2H,
  which the command layers always take (as AHCI takes any into its task file), and a DMA
  Activate, which the command layer announces beforehand (``accept_activate``); every cycle
  there delays the link's R_OK and the drive's next frame.

Event pulses (for the error register, ecpsata/frontend/errors.py): ``ev_unknown`` (a frame of a type
SATA does not define for this direction: AHCI's DIAG.F), ``ev_bad_length`` (a control FIS whose
frame ended short or went on past its length), ``ev_unexpected`` (a FIS the command layer refused,
or a Data FIS with no data phase open: DIAG.T), ``ev_refused`` (any of these: R_ERR from the
transport's side, as opposed to a CRC error).

# Ref: Serial ATA Revision 3.x, 10.3 (FIS types and layouts), 10.4 (transport layer state
#      diagrams, the error and retry rules), 9.6.4 (the link waits for the transport's status)
"""

from migen import *
from migen.fhdl.structure import _Value

from litex.gen import LiteXModule
from litex.soc.interconnect import stream

from litesata.common import transport_rx_description

from ecpsata.pipe import ReadyPipe
from ecpsata.core.common import FIS_SDB, FIS_DATA, FIS_REG_D2H, FIS_DMA_SETUP, CTRL_FIS_DWORDS

CTRL_MAX_DWORDS = max(CTRL_FIS_DWORDS.values())
DROP_UNKNOWN, DROP_UNEXPECTED = 0, 1


def fis_rx_description(dw=32):
    """LiteSATA's ``transport_rx_description`` with the fields it does not decode: the PIO
    Setup's E_Status, the DMA Setup's auto-activate bit, buffer identifier (the NCQ tag) and
    transfer count and buffer offset, and the Set Device Bits FIS's SActive."""
    d = transport_rx_description(dw)
    return stream.EndpointDescription(d.payload_layout, d.param_layout + [
        ("e_status",    8),
        ("a",           1),
        ("tag",         5),
        ("dma_offset", 32),
        ("dma_count",  32),
        ("sactive",    32),
    ])


class FISView:
    """What a command layer sees of the transport RX: ``source``, and ``refuse`` /
    ``accept_data`` back; ``ev_refused`` (the transport refused a frame). The transport RX itself
    has these; the queued layer's share hands a view to the non-queued layer."""
    def __init__(self):
        self.source      = stream.Endpoint(fis_rx_description())
        self.refuse      = Signal()
        self.accept_data = Signal()
        self.accept_activate = Signal()
        self.ev_refused  = Signal()


class ECPSATATransportRX(LiteXModule):
    """Receive side of the transport layer on an ``ECPSATALink`` (see the module docstring).

    ``source`` (``fis_rx_description``): control FISes as one beat (``last`` set, fields decoded,
    ``data`` = the first dword); Data FISes as their payload dwords (``type`` DATA, ``last`` on
    the final one, ``error`` on it when the CRC failed or the device cut the frame short).
    """
    def __init__(self, link):
        self.source      = source = stream.Endpoint(fis_rx_description())
        self.refuse      = Signal()     # in, with source.ready: the FIS is refused
        self.accept_data = Signal()     # in: a Data FIS may start now
        self.accept_activate = Signal() # in: a DMA Activate arriving now would be taken
        self.ev_unknown    = Signal()
        self.ev_bad_length = Signal()
        self.ev_unexpected = Signal()
        self.ev_refused    = Signal()
        # For a link whose PHY answers a good EOF itself (its frame check), the queued layer's
        # masks (in): ``setup_mask``, the tags it takes a DMA Setup for now, and ``sdb_mask``,
        # those a Set Device Bits may complete now; ``queued``, it owns the received FISes and
        # binds itself to take such FISes when they are presented. This side holds them for
        # each frame (below), and the PHY answers by what it holds: a DMA Setup of a tag held is
        # not refused when it is presented, and a Set Device Bits whose SActive is among those
        # held is judged good at its last dword.
        early_setup = hasattr(link, "pre_setup")
        if early_setup:
            self.setup_mask   = Signal(32)
            self.sdb_mask     = Signal(32)
            self.queued       = Signal()
            bound = Signal()               # the DMA Setup being presented was accepted early
            held_setup, held_sdb = Signal(32), Signal(32)
            held = Signal()                # the masks held are this frame's

        # # #

        rx = link.source
        taken = rx.valid & rx.ready
        first = Signal(reset=1)            # the next dword from the link starts a frame
        self.sync += If(taken, first.eq(rx.last))

        kind     = rx.data[:8]
        dw       = Array(Signal(32, name=f"fis_dw{i}") for i in range(CTRL_MAX_DWORDS))
        n        = Signal(max=CTRL_MAX_DWORDS + 2)     # dwords of the frame so far (saturates)
        length   = Signal(max=CTRL_MAX_DWORDS + 1)     # the type's length
        fis_type = Signal(8)

        verdict, good = Signal(), Signal()
        judged = Signal()                  # the FIS being presented was judged already
        drop_why = Signal()                # why a frame is dropped (judged at its end)
        self.comb += [link.verdict_valid.eq(verdict), link.verdict_good.eq(good)]
        # The verdict; a frame refused for what it is (not for its CRC) is an ``ev_refused``.
        def judge(ok, counted=1):
            ok = ok if isinstance(ok, _Value) else Constant(ok, 1)
            return [verdict.eq(1), good.eq(ok), self.ev_refused.eq(~ok & counted)]

        known, length_now = Signal(), Signal(max=CTRL_MAX_DWORDS + 1)
        self.comb += Case(kind, {
            **{t: [known.eq(1), length_now.eq(l)] for t, l in CTRL_FIS_DWORDS.items()},
            "default": known.eq(0),
        })

        self.fsm = fsm = FSM(reset_state="HT_HostIdle")
        fsm.act("HT_HostIdle",
            rx.ready.eq(1),
            If(rx.valid & first,
                NextValue(fis_type, kind),
                NextValue(dw[0], rx.data),
                NextValue(n, 1),
                If(kind == FIS_DATA,
                    If(rx.last,                       # no payload
                        *judge(0), self.ev_bad_length.eq(1),
                    ).Elif(self.accept_data,
                        *judge(1),
                        NextState("DATA")
                    ).Else(
                        NextValue(drop_why, DROP_UNEXPECTED),
                        NextState("DROP")
                    )
                ).Elif(known,
                    NextValue(length, length_now),
                    If(~rx.last,
                        NextState("RECEIVE")
                    # A one-dword frame (the DMA Activate, the only type of that length) is judged
                    # at once: a write waits for it.
                    ).Elif(rx.error,
                        *judge(0, counted=0)
                    ).Elif(length_now != 1,
                        *judge(0), self.ev_bad_length.eq(1)
                    ).Elif(self.accept_activate,
                        *judge(1),
                        NextValue(judged, 1),
                        NextState("PRESENT")
                    ).Else(
                        *judge(0), self.ev_unexpected.eq(1)
                    )
                ).Elif(rx.last,
                    *judge(0, counted=~rx.error), self.ev_unknown.eq(~rx.error),
                ).Else(
                    NextValue(drop_why, DROP_UNKNOWN),
                    NextState("DROP")
                )
            )
        )
        # The last dword decides: a frame of the type's length with a good CRC is presented at
        # once (each cycle here delays the link's R_OK, and the drive's next frame).
        n_total = Signal(max=CTRL_MAX_DWORDS + 2)
        self.comb += n_total.eq(n + 1)
        # At the last dword: the FIS will be taken (an expression without such a link, so that
        # the netlist stays the one built before).
        now_taken = fis_type == FIS_REG_D2H
        if early_setup:
            now_taken = Signal()
            self.comb += now_taken.eq((fis_type == FIS_REG_D2H) |
                                      ((fis_type == FIS_SDB) & held &
                                       ((rx.data & ~held_sdb) == 0)))
        fsm.act("RECEIVE",
            rx.ready.eq(1),
            If(rx.valid,
                If(n < CTRL_MAX_DWORDS, NextValue(dw[n], rx.data)),
                If(n != CTRL_MAX_DWORDS + 1, NextValue(n, n + 1)),
                If(rx.last,
                    If(rx.error,
                        *judge(0, counted=0),
                        NextState("HT_HostIdle")
                    ).Elif(n_total != length,
                        *judge(0), self.ev_bad_length.eq(1),
                        NextState("HT_HostIdle")
                    ).Else(
                        # A Register D2H is always taken: judged now (and so is a Set Device Bits
                        # the command layer has bound itself to take).
                        If(now_taken, *judge(1)),
                        NextValue(judged, now_taken),
                        NextState("PRESENT")
                    )
                )
            )
        )
        fsm.act("PRESENT",
            source.valid.eq(1),
            source.last.eq(1),
            If(source.ready,
                If(~judged, *judge((~self.refuse | bound) if early_setup else ~self.refuse)),
                self.ev_unexpected.eq(self.refuse),
                NextState("HT_HostIdle")
            )
        )
        fsm.act("DATA",
            source.valid.eq(rx.valid),
            source.last.eq(rx.last),
            source.error.eq(rx.valid & rx.last & rx.error),
            source.data.eq(rx.data),
            rx.ready.eq(source.ready),
            If(taken & rx.last, NextState("HT_HostIdle"))
        )
        # A frame refused for its type or its place is judged at its end, once its CRC is known:
        # a bit error in a header is a CRC error, not a FIS of an unknown type or out of place
        # (AHCI 1.3.1: DIAG.F and DIAG.T are for frames that passed their CRC), and it does not
        # count toward the refusals that end a command.
        fsm.act("DROP",
            rx.ready.eq(1),
            If(rx.valid & rx.last,
                *judge(0, counted=~rx.error),
                self.ev_unknown.eq(~rx.error & (drop_why == DROP_UNKNOWN)),
                self.ev_unexpected.eq(~rx.error & (drop_why == DROP_UNEXPECTED)),
                NextState("HT_HostIdle")
            )
        )

        # For a link whose PHY answers a good EOF itself (its frame check): the masks are taken
        # while the link's receive side is idle and this side has nothing in hand for two
        # cycles (every FIS before presented, and the queued layer's registers updated by it),
        # and held while the link receives: ``pre_setup`` tells the link (and the PHY, through
        # it) that they are this frame's, and the PHY gets them. Until a frame held so is
        # presented the masks only grow (a tag leaves them only through a FIS, a report or
        # giving up, after which the caller resets the core), so a FIS the PHY answered by them
        # is taken then; a DMA Setup of a tag held is bound (``setup_frame`` from its second
        # dword to its last): a command layer that gave up since is reset by its caller, and the
        # FIS, answered R_OK, is dropped.
        if early_setup:
            quiet, quiet_before = Signal(), Signal()
            self.comb += quiet.eq(link.rx_idle & fsm.ongoing("HT_HostIdle") & ~rx.valid)
            self.sync += [
                quiet_before.eq(quiet),
                If(link.rx_idle,
                    held.eq(quiet & quiet_before & self.queued),
                    held_setup.eq(self.setup_mask),
                    held_sdb.eq(self.sdb_mask),
                ),
            ]
            self.comb += [
                link.pre_setup.eq(held),
                link.setup_mask.eq(held_setup),
                link.sdb_mask.eq(held_sdb),
            ]
            setup_frame = Signal()
            self.sync += [
                If(fsm.ongoing("RECEIVE"),
                    If(rx.valid & rx.last,
                        setup_frame.eq(0)
                    ).Elif(rx.valid & (n == 1) & (fis_type == FIS_DMA_SETUP),
                        setup_frame.eq(held & (held_setup >> rx.data[:5])[0])
                    )
                ).Else(
                    setup_frame.eq(0)
                ),
                If(setup_frame,
                    bound.eq(1)
                ).Elif(fsm.ongoing("HT_HostIdle"),
                    bound.eq(0)
                ),
            ]

        # Fields of the FIS being presented (SATA 3.x §10.3.5 - 10.3.11).
        d0, d1, d2, d3, d4, d5 = (dw[i] for i in range(6))
        self.comb += [
            source.type.eq(fis_type),
            source.pm_port.eq(d0[8:12]),
            source.d.eq(d0[13]),
            source.i.eq(d0[14]),
            source.a.eq(d0[15]),
            source.errors.eq(d0[24:32]),
            source.lba.eq(Cat(d1[:24], d2[:24])),
            source.device.eq(d1[24:32]),
            source.count.eq(d3[:16]),
            source.e_status.eq(d3[24:32]),
            source.transfer_count.eq(d4[:16]),
            source.tag.eq(d1[:5]),
            source.dma_offset.eq(d4),
            source.dma_count.eq(d5),
            source.sactive.eq(d1),
            If(fis_type == FIS_SDB,
                source.status.eq(d0[16:24] & 0x77),      # status bits 6:4 and 2:0 only
            ).Else(
                source.status.eq(d0[16:24]),
            ),
        ]
        if_data = fsm.ongoing("DATA")
        self.comb += If(~if_data, source.data.eq(d0))


class ECPSATATransport(LiteXModule):
    """Transport layer: LiteSATA's transport TX (it encodes the Register H2D and Data FISes we
    send) behind a register stage, and ``ECPSATATransportRX``.

    LiteSATA's transport TX decides its ``ready`` from its sink's ``valid`` and FIS type, so
    without the register the paths ran from the user ports and the command layer through it into
    whatever shares its sink (the queued layer's write counts: sys' longest path on ECP5). The
    stage costs one cycle per FIS sent. A ready register in front of it (``ReadyPipe``, no added
    latency) gives the sink a ``ready`` that is a flip-flop's output: with the stage alone, its
    ``ready`` still ran from its own ``valid`` through LiteSATA's FSM into the queue share's
    arbitration and the queued layer's write pipe (the Versa's longest sys path)."""
    def __init__(self, link):
        from litesata.core.transport import LiteSATATransportTX
        self.tx = LiteSATATransportTX(link)
        self.rx = ECPSATATransportRX(link)
        self.tx_ready = ReadyPipe(self.tx.sink.description)
        self.tx_stage = stream.PipeValid(self.tx.sink.description)
        self.comb += [
            self.tx_ready.source.connect(self.tx_stage.sink),
            self.tx_stage.source.connect(self.tx.sink),
        ]
        self.sink, self.source = self.tx_ready.sink, self.rx.source
