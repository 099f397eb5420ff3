# SPDX-License-Identifier: BSD-2-Clause
"""Load a built bitstream into a board's FPGA (SRAM, not flash): `python -m ecpsata.soc.load BOARD`.

--programmer openfpgaloader (default) or openocd (uses the board's OpenOCD configuration from
litex-boards and the .svf written by the build).
"""

import argparse
import glob
import os
import shutil
import subprocess
import sys

from ecpsata.soc import boards
from ecpsata.soc.builder import REPO


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("board", choices=boards.names("loadable"))
    p.add_argument("--programmer", choices=["openfpgaloader", "openocd"], default="openfpgaloader")
    args = p.parse_args(argv)
    gateware = os.path.join(REPO, "build", args.board, "gateware")
    ext = ".bit" if args.programmer == "openfpgaloader" else ".svf"
    found = sorted(glob.glob(os.path.join(gateware, "*" + ext)))
    if not found:
        sys.exit(f"error: no {ext} in {gateware}: run make build BOARD={args.board} first")
    if args.programmer == "openfpgaloader":
        if shutil.which("openFPGALoader") is None:
            sys.exit("error: openFPGALoader not found (make setup installs it)")
        cmd = ["openFPGALoader", *boards.board(args.board).programmer, found[0]]
        print(" ".join(cmd), flush=True)
        return subprocess.call(cmd)
    platform = boards.target(args.board).make_platform()
    platform.create_programmer().load_bitstream(found[0])
    return 0


if __name__ == "__main__":
    sys.exit(main())
