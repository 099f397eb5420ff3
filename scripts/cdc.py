# SPDX-License-Identifier: BSD-2-Clause
"""Clock-domain crossings of a board's synthesised netlist: each must end in a synchroniser or be
declared quasi-static (exit 1 otherwise).

    .venv/bin/python scripts/cdc.py BOARD [--netlist FILE] [--json OUT]

The command line of ecpsata/checks/cdc.py (`--help` for the method)."""

import sys

from ecpsata.checks.cdc import main

if __name__ == "__main__":
    sys.exit(main())
