# SPDX-License-Identifier: BSD-2-Clause
"""Gate-level simulation of the PHY and the core (Yosys's synth_ecp5 netlist with its ECP5 cell
models, Icarus Verilog, the virtual drive through VPI) against their RTL: the same results, cycle
counts and line words (exit 1 otherwise).

    .venv/bin/python scripts/gatesim.py [--netlist dcu|sim] [--scenario NAME] [--keep DIR]

The command line of ecpsata/checks/gatesim.py (its docstring has the method and what it does not
cover yet)."""

import sys

from ecpsata.checks.gatesim import main

if __name__ == "__main__":
    sys.exit(main())
