# SPDX-License-Identifier: BSD-2-Clause
"""The build's timing report parser: it decides whether a bitstream build fails."""

from ecpsata.soc.build import nextpnr_report

LOG = """
Info: Max frequency for clock '$glbnet$sys_clk': 80.00 MHz (PASS at 75.00 MHz)
Info: Max frequency for clock '$glbnet$eth_clocks_rx$TRELLIS_IO_IN': 95.82 MHz (FAIL at 125.00 MHz)
Info: Device utilisation:
Info: 	          TRELLIS_COMB:  9000/83640    10%
Info: 	            TRELLIS_FF:  5000/83640     5%
Info: 	                DP16KD:    40/  208    19%
Info: 	                  DCUA:     1/    2    50%
Info: Max frequency for clock '$glbnet$sys_clk': 81.50 MHz (PASS at 75.00 MHz)
"""


def test_last_report_wins_and_failures_are_seen():
    clocks, util = nextpnr_report(LOG)
    assert clocks["$glbnet$sys_clk"] == (81.5, "PASS", 75.0)
    assert clocks["$glbnet$eth_clocks_rx$TRELLIS_IO_IN"][1] == "FAIL"
    assert util == {"TRELLIS_COMB": (9000, 83640), "TRELLIS_FF": (5000, 83640),
                    "DP16KD": (40, 208), "DCUA": (1, 2)}
