# SPDX-License-Identifier: BSD-2-Clause
"""The core's user side: LiteSATA's crossbar and ports, with the command fields our command layer
takes beside LiteSATA's (``lba28``, ``nodata``, ...). LiteSATA's frontends (IDENTIFY, DMA, BIST,
striping, mirroring) work on its ports unchanged and leave the added fields at 0.

    xbar = ECPSATACrossbar(core)      # core: ECPSATACore
    port = xbar.get_port()

The arbitration between ports is LiteSATA's (``LiteSATACrossbar.do_finalize``); it relies on the
attribute names ``users``, ``master`` and ``dw``, which these subclasses keep.
"""
from migen import *

from litex.soc.interconnect import stream

from litesata.common import command_rx_description
from litesata.frontend.arbitration import LiteSATACrossbar, LiteSATAUserPort, LiteSATAMasterPort

from ecpsata.core.command import command_tx_description


class ECPSATAUserPort(LiteSATAUserPort):
    """A LiteSATA user port whose command sink carries our fields (``lba28``, ``nodata``, ...)."""
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
    """LiteSATACrossbar whose ports carry our command fields to an ECPSATACore. Stock frontends
    (IDENTIFY, DMA, BIST) work unchanged on its ports (they leave the added fields at 0). Ports of
    the controller's width only."""
    def __init__(self, controller):
        Module.__init__(self)
        self.dw     = len(controller.sink.data)
        self.users  = []
        self.master = ECPSATAMasterPort(self.dw)
        ours = {name for name, _ in command_tx_description(32).param_layout}
        have = {name for name, _ in controller.sink.description.param_layout}
        self.comb += [
            self.master.source.connect(controller.sink, omit=ours - have),
            controller.source.connect(self.master.sink),
        ]

    def get_port(self, dw=None):
        if dw not in (None, self.dw):
            raise NotImplementedError("ECPSATACrossbar: width conversion")
        port = ECPSATAUserPort(self.dw, self.dw)
        self.users.append(port)
        return port
