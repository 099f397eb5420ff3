# SPDX-License-Identifier: BSD-2-Clause
"""What the experiments of SNIA's Solid State Storage Performance Test Specification (PTS) share
(`steady`, `wsat`): the purge before a test, with the drive's serial number typed as its own
confirmation (it erases the whole drive, not only --range), and the span of 4 KiB pages their
random writes cover.

Ref: SNIA Solid State Storage (SSS) Performance Test Specification (PTS), version 2.0.x: Purge,
Write Saturation test.
"""

import sys

from ecpsata.host import purge as purging
from ecpsata.host.target import TargetError

PAGE_SECTORS = 8        # 4 KiB: the random workload's command and the flash page


def add_purge_argument(p):
    p.add_argument("--purge", metavar="SERIAL",
                   help="purge the whole drive first (SANITIZE, or a TRIM of everything on a "
                        "drive without it), the drive's serial number (as `identify` shows it) "
                        "typed as confirmation: every sector of the drive is lost, not only "
                        "--range's")


def check_serial(s, serial, what):
    """Refuse, before anything is written, a --purge whose serial is not the drive's."""
    if serial is not None and serial != s.ident["serial"]:
        raise TargetError(f"{what}: --purge {serial!r} is not this drive's serial number "
                          f"({s.ident['serial']!r}, model {s.ident['model']!r}): nothing sent")


def purge_first(s, serial, what, stream=None):
    """Purge the whole drive when `serial` (checked by check_serial) is given; purge.purge's
    result, or None. Progress and link events go to `stream` (stderr)."""
    if serial is None:
        return None
    check_serial(s, serial, what)
    stream = stream or sys.stderr
    res = purging.purge(s.target, s.ident, s.timeout, purging.shower(stream),
                        reconnect_s=max(purging.RECONNECT_S, s.timeout))
    stream.write("\n")
    stream.flush()
    return res


def purge_note(res):
    """The result's note on the purge before the test."""
    return f"purged before the test: {purging.describe(res)}"


def page_span(s, what):
    """(first LBA, sectors) of --range in whole 4 KiB pages; refused when under one page."""
    lba = s.base()
    span = s.range_count(s.capacity - lba) // PAGE_SECTORS * PAGE_SECTORS
    if span < PAGE_SECTORS:
        raise TargetError(f"{what}: the range must hold at least one 4 KiB page "
                          f"({PAGE_SECTORS} sectors)")
    return lba, span
