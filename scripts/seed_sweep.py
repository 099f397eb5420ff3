# SPDX-License-Identifier: BSD-2-Clause
"""Timing margin over placements: place and route one board with several nextpnr seeds.

The command line of ecpsata/checks/seed_sweep.py (`--help` for its options)."""

import sys

from ecpsata.checks.seed_sweep import main

if __name__ == "__main__":
    sys.exit(main())
