# SPDX-License-Identifier: BSD-2-Clause
"""Device-side fuzzing of the host core: the virtual drive's fuzzer (`fuzz=P`: with probability P
per frame it sends, an intact frame that is wrong: too long, too short, of an unknown type, a stray
status, a changed field, a duplicate, a dropped frame) against the simulated SoC (the whole host
core, its engines, the host tools), each case a fresh board and drive with its own seed.

The command line of ecpsata/checks/fuzz.py (`--help` for its options)."""

import sys

from ecpsata.checks.fuzz import main

if __name__ == "__main__":
    sys.exit(main())
