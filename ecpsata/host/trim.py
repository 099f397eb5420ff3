# SPDX-License-Identifier: BSD-2-Clause
"""`ecpsata trim --allow-write --range LBA:COUNT`: DATA SET MANAGEMENT with the TRIM bit (06h,
features 01h) over the range, through the core's generic command path (ecpsata/host/atacmd.py):
each 512-byte block holds 64 range entries (LBA in bits 47:0, sector count in 63:48, at most
65,535), each command as many blocks as the drive takes (IDENTIFY word 105, at most the sector
buffer's 16). Refused before anything is sent on a drive without TRIM (word 169 bit 0), a range
outside the drive, or without --allow-write and --range. Afterwards the drive's promise for reads
of the range (word 69 bits 14 and 5: deterministic, zeros) is printed beside it.

Ref: ATA/ATAPI Command Set - 3 (ACS-3), DATA SET MANAGEMENT; IDENTIFY DEVICE words 69, 105, 169.
"""

import time

from ecpsata.core.common import ATA_DATA_SET_MANAGEMENT
from ecpsata.host.atacmd import BLOCK, ata_command
from ecpsata.host.sata import DMA_SECTORS, check_range
from ecpsata.host.target import TargetError

ENTRY_SECTORS = 0xFFFF           # the most sectors one range entry covers
ENTRIES_PER_BLOCK = BLOCK // 8
DSM_TRIM = 0x01                  # features bit 0


def range_entries(lba, count):
    """[(lba, sectors)] covering the range, each at most ENTRY_SECTORS."""
    out = []
    while count:
        n = min(count, ENTRY_SECTORS)
        out.append((lba, n))
        lba, count = lba + n, count - n
    return out


def dsm_blocks(entries, blocks):
    """The entries packed into ``blocks`` 512-byte blocks (unused entries zero)."""
    data = bytearray(blocks * BLOCK)
    for i, (lba, n) in enumerate(entries):
        data[8 * i:8 * i + 8] = (lba | n << 48).to_bytes(8, "little")
    return bytes(data)


def max_blocks(ident):
    """Blocks of range entries per command: IDENTIFY word 105 (0: not reported, one block), at
    most the sector buffer's size."""
    return max(1, min(DMA_SECTORS, ident.get("dsm_max_blocks") or 1))


def read_after_trim(ident):
    if not ident.get("trim_deterministic"):
        return "not deterministic (IDENTIFY word 69 bit 14 clear): reads may return old data"
    if ident.get("trim_zeros"):
        return "zeros (IDENTIFY word 69 bits 14 and 5)"
    return "deterministic, not necessarily zeros (IDENTIFY word 69 bit 14)"


def trim(target, ident, lba, count, timeout=5.0):
    """TRIM the range; returns the figures of the run."""
    if not ident.get("trim"):
        raise TargetError("the drive does not support TRIM (IDENTIFY word 169 bit 0 clear): "
                          "nothing sent")
    check_range(ident, lba, count)
    entries = range_entries(lba, count)
    per = max_blocks(ident) * ENTRIES_PER_BLOCK
    commands = 0
    t0 = time.monotonic()
    for first in range(0, len(entries), per):
        chunk = entries[first:first + per]
        blocks = -(-len(chunk) // ENTRIES_PER_BLOCK)
        ata_command(target, ATA_DATA_SET_MANAGEMENT, DSM_TRIM, count=blocks, protocol="dma-out",
                    data=dsm_blocks(chunk, blocks), timeout=timeout,
                    what=f"DATA SET MANAGEMENT (TRIM) of LBA {chunk[0][0]}..."
                         f"{chunk[-1][0] + chunk[-1][1] - 1}")
        commands += 1
    return {"lba": lba, "count": count, "entries": len(entries), "commands": commands,
            "host_seconds": round(time.monotonic() - t0, 3), "reads_after": read_after_trim(ident)}


def cmd_trim(target, args):
    from ecpsata.host import report, sata
    sata.wait_link(target, args.timeout)
    ident = sata.prepare_drive(target, args.timeout, auto_activate=args.auto_activate)
    lba, count = args.range
    res = trim(target, ident, lba, count, args.timeout)
    print(f"trimmed LBA {lba}..{lba + count - 1} ({count} sectors): {res['entries']} range "
          f"entries in {res['commands']} DATA SET MANAGEMENT command(s)")
    print(f"reads of the range now return: {res['reads_after']}")
    if args.json:
        report.write_json(args.json, {"trim": res})
        print(f"wrote {args.json}")
    return 0


def add_parser(sub):
    from ecpsata.host.argtypes import parse_range
    s = sub.add_parser("trim", help="TRIM a range (DATA SET MANAGEMENT): its data is gone "
                                    "(needs --allow-write --range)")
    s.add_argument("--range", type=parse_range, metavar="LBA:COUNT", required=True,
                   help="the sectors to TRIM")
    s.add_argument("--allow-write", action="store_true",
                   help="confirm: the range's data is discarded")
    s.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    s.set_defaults(func=cmd_trim, writes_always=True)
    return s

