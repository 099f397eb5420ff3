"""Command-layer additions to LiteSATA: 28-bit READ/WRITE DMA, 65,536-sector commands, and a write
path that survives a device error.

LiteSATA's command TX (litesata/core/command.py) always sends READ/WRITE DMA EXT (0x25/0x35) with
device 0xE0 and the user port's 16-bit `count`. This module replaces that TX:

- A `lba28` bit on the user port (an extra field of `command_tx_description`, carried by
  `ECPSATACrossbar`), or the `lba28_all` input for every command, selects READ DMA 0xC8 /
  WRITE DMA 0xCA: LBA bits 23:0 in LBA low/mid/high, bits 27:24 in the Device register low nibble
  with the LBA bit (0x40), count in the 8-bit Sector Count (ATA8-ACS 7.21 / 7.61).
- The port's `count` means sectors, 0 = 65,536 (the EXT count field encoding). With `lba28` the
  caller must keep count in 1..256 and LBA + count <= 2^28 (256 goes out as count 0); the benchmark
  engine refuses anything else before it reaches the port.
- Read data counting is LiteSATA's RX (unchanged): `count*128 - 1` computed into 23 bits, so count 0
  expects 8,388,608 dwords (32 MiB = 4,096 Data FIS of 8 KiB) and the RX dword counter (23 bits)
  does not overflow. Writes are not counted in the command layer (the packet's `last` ends them).
- A write that ends before its data is sent (Register D2H with ERR instead of DMA Activate, or any
  end of command from the RX) drains the rest of the packet from the port instead of taking one beat
  (LiteSATA) and reading the remaining data beats as new commands.

Ref: SATA 3.x 10.3.4 (Register H2D FIS), ATA8-ACS (READ DMA, WRITE DMA, READ/WRITE DMA EXT).
"""

from types import SimpleNamespace

from migen import *

from litex.gen import LiteXModule
from litex.soc.interconnect import stream

from litesata.common import (command_rx_description, fis_max_dwords, fis_types, regs,
                             transport_rx_description,
                             command_tx_description as litesata_command_tx_description)
from gateware.sata_link import ECPSATALink
from litesata.core.transport import LiteSATATransport
from litesata.core.command import LiteSATACommandRX, tx_to_rx, rx_to_tx
from litesata.frontend.arbitration import (LiteSATACrossbar, LiteSATAUserPort, LiteSATAMasterPort,
                                           LiteSATAArbiter)

ATA_READ_DMA       = 0xC8
ATA_WRITE_DMA      = 0xCA
ATA_READ_DMA_EXT   = regs["READ_DMA_EXT"]       # 0x25
ATA_WRITE_DMA_EXT  = regs["WRITE_DMA_EXT"]      # 0x35
ATA_IDENTIFY       = regs["IDENTIFY_DEVICE"]    # 0xEC
DEVICE_LBA         = 0x40                       # Device register: LBA addressing
DEVICE_EXT         = 0xE0                       # what LiteSATA sends for EXT commands (obsolete bits 7, 5 set)
CMD_RETRIES        = 3                          # command FIS retransmissions after R_ERR


def command_tx_description(dw):
    """LiteSATA's user-port command layout plus `lba28`."""
    d = litesata_command_tx_description(dw)
    return stream.EndpointDescription(d.payload_layout, d.param_layout + [("lba28", 1)])


def reg_h2d_fields(command, lba, count, lba28):
    """Reference (Python) values of the Register H2D fields the TX sends for a read/write:
    (command, lba field (48), device, count field (16))."""
    if lba28:
        assert 1 <= count <= 256 and lba + count <= 1 << 28
        op = {"read": ATA_READ_DMA, "write": ATA_WRITE_DMA}[command]
        return op, lba & 0xFFFFFF, DEVICE_LBA | ((lba >> 24) & 0xF), count & 0xFF
    assert 1 <= count <= 65536
    op = {"read": ATA_READ_DMA_EXT, "write": ATA_WRITE_DMA_EXT}[command]
    return op, lba, DEVICE_EXT, count & 0xFFFF


class ECPSATACommandTX(LiteXModule):
    """Command TX: the user port's commands and write data to the transport layer."""
    def __init__(self, transport):
        self.sink     = sink    = stream.Endpoint(command_tx_description(32))
        self.to_rx    = to_rx   = stream.Endpoint(tx_to_rx)
        self.from_rx  = from_rx = stream.Endpoint(rx_to_tx)
        self.cmd_end  = Signal()     # the RX ends a command (status presented to the user)
        self.tx_ok    = Signal()     # link: the frame we sent was taken (R_OK)
        self.tx_err   = Signal()     # link: the frame we sent was refused (R_ERR) or aborted
        self.cmd_retry = Signal()    # out: pulse, a command FIS goes out again
        self.lba28_all = Signal()    # every read/write as a 28-bit command

        # # #

        is_write    = Signal()
        is_read     = Signal()
        is_lba28    = Signal()
        dwords      = Signal(max=fis_max_dwords)
        lba28       = Signal()
        self.comb += lba28.eq(sink.lba28 | self.lba28_all)

        self.fsm = fsm = FSM(reset_state="IDLE")
        fsm.act("IDLE",
            If(sink.valid,
                NextValue(is_write, sink.write),
                NextValue(is_read, sink.read),
                NextValue(is_lba28, lba28 & (sink.write | sink.read)),
                NextState("SEND_CMD")
            ).Else(
                sink.ready.eq(1)      # as LiteSATA: idle beats are dropped
            )
        )
        # The command FIS stays on the port (not acknowledged) until the drive has taken it: on
        # R_ERR (or a frame the drive aborted) it goes out again, up to CMD_RETRIES times (SATA
        # 3.x 10.4: a non-data FIS the device rejected may be retransmitted by the host). After
        # that the command is left to the caller's timeout.
        retries = Signal(max=CMD_RETRIES + 1)
        fsm.act("SEND_CMD",
            transport.sink.valid.eq(sink.valid),
            transport.sink.last.eq(1),
            transport.sink.c.eq(1),
            If(transport.sink.valid & transport.sink.ready,
                NextState("WAIT_CMD_ACK")
            )
        )
        # The command is done with (taken, or out of retries): a write waits for the drive's
        # DMA Activate, a read's beat is acknowledged.
        cmd_done = [
            NextValue(retries, 0),
            If(is_write,
                NextState("WAIT_DMA_ACTIVATE")
            ).Else(
                sink.ready.eq(1),
                NextState("IDLE")
            )
        ]
        fsm.act("WAIT_CMD_ACK",
            If(self.tx_ok,
                *cmd_done
            ).Elif(self.tx_err,
                self.cmd_retry.eq(1),
                If(retries == CMD_RETRIES,
                    *cmd_done
                ).Else(
                    NextValue(retries, retries + 1),
                    NextState("SEND_CMD")
                )
            )
        )
        fsm.act("WAIT_DMA_ACTIVATE",
            NextValue(dwords, 0),
            If(from_rx.dma_activate,
                NextState("SEND_DATA")
            ).Elif(from_rx.d2h_error | self.cmd_end,
                NextState("DRAIN")
            )
        )
        fsm.act("SEND_DATA",
            transport.sink.valid.eq(sink.valid),
            transport.sink.last.eq((dwords == (fis_max_dwords - 1)) | sink.last),
            sink.ready.eq(transport.sink.ready),
            If(sink.valid & sink.ready,
                NextValue(dwords, dwords + 1),
                If(sink.last,
                    NextState("IDLE")
                ).Elif(dwords == (fis_max_dwords - 1),
                    NextState("WAIT_DMA_ACTIVATE")
                )
            )
        )
        fsm.act("DRAIN",
            sink.ready.eq(1),
            If(sink.valid & sink.last,
                NextState("IDLE")
            )
        )

        # Register H2D FIS fields (transport.py encodes them; lba is 48 bits over LBA low..high exp).
        command = Signal(8)
        self.comb += [
            transport.sink.pm_port.eq(0),
            transport.sink.features.eq(0),
            transport.sink.icc.eq(0),
            transport.sink.control.eq(0),
            transport.sink.data.eq(sink.data),
            If(is_lba28,
                transport.sink.lba.eq(sink.sector[:24]),
                transport.sink.device.eq(DEVICE_LBA | sink.sector[24:28]),
                transport.sink.count.eq(sink.count[:8]),
                command.eq(Mux(is_write, ATA_WRITE_DMA, ATA_READ_DMA)),
            ).Else(
                transport.sink.lba.eq(sink.sector),
                transport.sink.device.eq(DEVICE_EXT),
                transport.sink.count.eq(sink.count),
                If(is_write,
                    command.eq(ATA_WRITE_DMA_EXT)
                ).Elif(is_read,
                    command.eq(ATA_READ_DMA_EXT)
                ).Else(
                    command.eq(ATA_IDENTIFY)
                )
            ),
            If(fsm.ongoing("SEND_DATA"),
                transport.sink.type.eq(fis_types["DATA"]),
            ).Else(
                transport.sink.type.eq(fis_types["REG_H2D"]),
                transport.sink.command.eq(command),
            ),
            If(sink.valid & ~fsm.ongoing("DRAIN"),
                to_rx.write.eq(sink.write),
                to_rx.read.eq(sink.read),
                to_rx.identify.eq(sink.identify),
                to_rx.count.eq(sink.count),
            )
        ]


def ecpsata_transport(link):
    """LiteSATA's transport layer, with its RX waiting for a control FIS's last dword.

    LiteSATA's transport RX counts a control FIS's dwords only when they are valid, but ends the
    FIS once the count is reached whether or not the last dword is there. With a gap before the
    last dword (the link delivers dwords at the line rate, slower than sys) the FIS is presented
    before its last dword, which is then left to start a FIS of its own. Hold the state until the
    last dword is valid."""
    transport = LiteSATATransport(link)
    transport.rx.fsm.act("RECEIVE_CTRL_CMD",
        If(~link.source.valid,
            NextState("RECEIVE_CTRL_CMD")
        )
    )
    return transport


class ECPSATACommand(LiteXModule):
    """Command layer: ECPSATACommandTX with LiteSATA's command RX, which sees ``rx_source`` (the
    transport's received FISes, or a filtered copy of them)."""
    def __init__(self, transport, rx_source=None):
        self.tx = tx = ECPSATACommandTX(transport)
        rx_view = SimpleNamespace(source=transport.source if rx_source is None else rx_source)
        self.rx = rx = LiteSATACommandRX(rx_view)
        self.comb += [
            rx.to_tx.connect(tx.from_rx),
            tx.to_rx.connect(rx.from_tx),
            tx.cmd_end.eq(rx.source.valid & rx.source.ready & rx.source.end),
        ]
        self.sink, self.source = tx.sink, rx.source
        self.lba28_all = tx.lba28_all


class ECPSATACore(LiteXModule):
    """LiteSATACore (link, transport, command) with the ECPSATACommand layer.

    A received control FIS (Register D2H, DMA Activate, PIO Setup) whose CRC failed is dropped
    before the command layer: the link answered R_ERR, so the drive sends it again (SATA 3.x
    10.4), and acting on both would end a command twice (the second Register D2H would end the
    next command) or act on corrupted fields. Data FISes keep LiteSATA's handling (their error
    fails the command).

    Pulses for the error counters: ``fis_crc_error`` (a received FIS had a bad CRC),
    ``fis_rejected`` (the drive answered R_ERR to a FIS of ours, or aborted it), ``cmd_retry``
    (a command FIS went out again).

    With ``ncq``, the queued command layer (gateware/sata_ncq.py) sits beside the command layer:
    ``self.ncq`` is its interface, and a non-queued command presented while it has tags
    outstanding is refused (``self.ncq_share.refused``) instead of sent.
    """
    def __init__(self, phy, ncq=False):
        self.link      = ECPSATALink(phy)
        self.transport = ecpsata_transport(self.link)
        self.fis_crc_error = Signal()
        self.fis_rejected  = Signal()
        self.cmd_retry     = Signal()

        # # #

        link, trx = self.link, self.transport.rx
        # LiteSATA's transport RX counts a FIS's dwords by its type and does not look at the
        # frame's end: a frame a bit error shortened (a dword taken for a primitive and dropped by
        # the link) made it take the first dword of the next frame, the drive's repeat of the
        # FIS, as its last, and the command waited for a status it had thrown away. Keep it on
        # frame boundaries: a FIS starts only on a frame's first dword (the rest of a frame it
        # did not take is dropped), a control FIS whose frame ends early is dropped, and one
        # whose frame goes on past its length is dropped as bad (the drive repeats both: the
        # link answered R_ERR, or the CRC failed).
        first = Signal(reset=1)           # the next dword from the link starts a frame
        taken = link.source.valid & link.source.ready
        frame_end = taken & link.source.last
        self.sync += If(taken, first.eq(link.source.last))
        trx.fsm.act("IDLE",
            If(link.source.valid & ~first,
                link.source.ready.eq(1),
                NextState("IDLE")
            )
        )
        # Ahead of LiteSATA's statements, so that its move to PRESENT_CTRL_CMD (the FIS's length
        # reached) wins when the frame ends there.
        trx.fsm.actions["RECEIVE_CTRL_CMD"].insert(0,
            If(frame_end,
                NextState("IDLE")
            )
        )
        bad_ctrl = Signal()
        ctrl_done = (trx.fsm.ongoing("RECEIVE_CTRL_CMD") &
                     trx.fsm.before_entering("PRESENT_CTRL_CMD"))
        self.sync += [
            If(ctrl_done,
                bad_ctrl.eq(link.source.error | ~link.source.last)
            ).Elif(trx.fsm.ongoing("IDLE"),
                bad_ctrl.eq(0)
            )
        ]
        self.rx_fis = rx_fis = stream.Endpoint(transport_rx_description(32))
        src = self.transport.source
        self.comb += [
            src.connect(rx_fis),
            # LiteSATA's command RX latches `error` in every cycle of a Data FIS, valid or not;
            # between dwords the link buffer's output holds whatever its memory has there, which
            # can be the failed CRC of a frame 256 dwords back: the next read failed for it.
            rx_fis.error.eq(src.valid & src.error),
            If(trx.fsm.ongoing("PRESENT_CTRL_CMD") & bad_ctrl,
                rx_fis.valid.eq(0),
                src.ready.eq(1),
            ),
            self.fis_crc_error.eq(frame_end & link.source.error),
        ]
        if ncq:
            from gateware.sata_ncq import ECPSATAQueueShare
            self.ncq_share = share = ECPSATAQueueShare(link, self.transport, rx_fis,
                                                      command_tx_description(32))
            self.ncq = share.ncq
            self.comb += [self.ncq.tx_ok.eq(link.tx_ok), self.ncq.tx_err.eq(link.tx_err)]
            self.command = ECPSATACommand(SimpleNamespace(sink=share.cmd_tx), share.cmd_rx)
        else:
            self.command = ECPSATACommand(self.transport, rx_fis)
        self.comb += [
            self.command.tx.tx_ok.eq(link.tx_ok),
            self.command.tx.tx_err.eq(link.tx_err),
            self.fis_rejected.eq(link.tx_err),
            self.cmd_retry.eq(self.command.tx.cmd_retry),
        ]
        self.sink, self.source = self.command.sink, self.command.source
        if ncq:
            self.sink, self.source = share.attach(self.command)


class ECPSATAUserPort(LiteSATAUserPort):
    """A LiteSATA user port whose command sink carries `lba28`."""
    def __init__(self, dw, controller_dw=None):
        self.controller_dw = dw if controller_dw is None else controller_dw
        self.dw     = dw
        self.sink   = stream.Endpoint(command_tx_description(dw))
        self.source = stream.Endpoint(command_rx_description(dw))


class ECPSATAMasterPort(LiteSATAMasterPort):
    def __init__(self, dw):
        self.dw     = dw
        self.source = stream.Endpoint(command_tx_description(dw))
        self.sink   = stream.Endpoint(command_rx_description(dw))


class ECPSATACrossbar(LiteSATACrossbar):
    """LiteSATACrossbar whose ports carry `lba28` to an ECPSATACore. Stock frontends (IDENTIFY,
    DMA, BIST) work unchanged on its ports (they leave lba28 at 0). Ports of the controller's width
    only."""
    def __init__(self, controller):
        Module.__init__(self)
        self.dw     = len(controller.sink.data)
        self.users  = []
        self.master = ECPSATAMasterPort(self.dw)
        omit = set() if hasattr(controller.sink, "lba28") else {"lba28"}
        self.comb += [
            self.master.source.connect(controller.sink, omit=omit),
            controller.source.connect(self.master.sink),
        ]

    def get_port(self, dw=None):
        if dw not in (None, self.dw):
            raise NotImplementedError("ECPSATACrossbar: width conversion")
        port = ECPSATAUserPort(self.dw, self.dw)
        self.users.append(port)
        return port
