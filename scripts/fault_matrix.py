# SPDX-License-Identifier: BSD-2-Clause
"""Fault matrix: every fault key of the virtual drive against every operation it applies to, on the
simulated board, each on a fresh board and drive.

The command line of ecpsata/checks/fault_matrix.py (`--help` for its options)."""

import sys

from ecpsata.checks.fault_matrix import main

if __name__ == "__main__":
    sys.exit(main())
