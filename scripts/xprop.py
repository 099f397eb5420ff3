# SPDX-License-Identifier: BSD-2-Clause
"""Four-state run of the PHY and the core from power-up (Icarus Verilog, the virtual drive through
VPI): no X in a control register or an output after the resets are released, and the same words
on the line as a run with the initial values (exit 1 otherwise).

    .venv/bin/python scripts/xprop.py [--keep DIR]

The command line of ecpsata/checks/xprop.py (its docstring has the method)."""

import sys

from ecpsata.checks.xprop import main

if __name__ == "__main__":
    sys.exit(main())
