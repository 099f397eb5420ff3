# SPDX-License-Identifier: BSD-2-Clause
"""The quasi-static clock-domain crossings: paths between domains with no synchroniser that are
safe because the source does not change while the destination samples it, each with the reason,
checked against the code that makes both ends. ``ecpsata/checks/cdc.py`` reads this list.

An entry names the source (a glob on its names in the synthesised netlist, without the bit index;
the SoC's prefix differs between boards, hence the leading ``*``), the destination's clock domain,
optionally the destination (a glob likewise), and the reason. A crossing that is not static is no
entry for this list: it gets a synchroniser.
"""

import fnmatch
from dataclasses import dataclass


@dataclass(frozen=True)
class Declared:
    source: str
    dest_domain: str
    reason: str
    dest: str = "*"

    def matches(self, source_names, dest_domain, dest_names):
        strip = lambda n: n.split("[")[0]
        return (dest_domain == self.dest_domain
                and any(fnmatch.fnmatchcase(strip(n), self.source) for n in source_names)
                and any(fnmatch.fnmatchcase(strip(n), self.dest) for n in dest_names))


DECLARED = (
    Declared(
        source="DCUA.D_SCIRDATA", dest_domain="sys", dest="*sci_master_dat_r",
        reason="the DCU's SCI read data: an asynchronous bus with no clock (Lattice TN1261, "
               "\"ECP5 and ECP5-5G SERDES/PCS Usage Guide\"). ECP5SCIMaster "
               "(ecpsata/phy/ecp5/sci.py) sets the address and selects a sys cycle before it "
               "raises SCIRD, holds SCIRD for strobe_cycles (3) sys cycles and samples at the "
               "strobe's end, one access at a time; the registers the core reads back (channel "
               "0x01 polarity, 0x18 CDR hold) change only through this master's own writes. A "
               "status register read through the raw port (the bring-up CSRs) can change while "
               "sampled: dat_r is copied a cycle later (ext_dat_r), so it passes two flops "
               "before anything uses it"),
    Declared(
        source="*ethphy_status", dest_domain="sys",
        reason="LiteEth's RGMII in-band status (liteeth/phy/ecp5rgmii.py, LiteEthPHYRGMIIRX: "
               "link, speed, duplex), latched in eth_rx between frames and read as a CSRStatus "
               "in sys. It is rewritten with the same value at every gap and changes only when "
               "the Ethernet link goes up or down or changes speed; only the CPU reads it (no "
               "gateware acts on it; neither the firmware nor the host tools read it), so a "
               "read at the moment of a change returns a stale or mixed word once"),
)
