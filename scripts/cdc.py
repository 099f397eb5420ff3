# SPDX-License-Identifier: BSD-2-Clause
"""Clock-domain crossings and resets of a board's synthesised netlist: each crossing must end in a
synchroniser or be declared quasi-static, each reset be released on its flop's own clock (exit 1
otherwise).

    .venv/bin/python scripts/cdc.py BOARD [--netlist FILE] [--json OUT]

The command line of ecpsata/checks/cdc.py and ecpsata/checks/resets.py (`--help` for the method of
the first, the second's docstring for its own)."""

import sys

from ecpsata.checks.cdc import main

if __name__ == "__main__":
    sys.exit(main())
