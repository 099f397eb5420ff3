# SPDX-License-Identifier: BSD-2-Clause
"""Any ATA command the drive offers, from the host, through the SoC's sector buffer
(ecpsata/frontend/buffer.py): its code, features, LBA and count as given, its data by the protocol
ACS-3 gives it (non-data, PIO data-in, DMA data-in, DMA data-out), at most the buffer's 16 blocks
of 512 bytes; the drive's ending Register D2H (status, error, LBA, count) read back from the error
block's task-file registers (ecpsata/frontend/errors.py).

Every refusal is made before anything is sent: an unknown protocol, a count the buffer cannot
hold, data of the wrong size, a gateware without the path. A command whose FIS the drive refused
every time (HANDSHAKE: bit errors on the line, the drive never took it, so nothing happened) goes
out again, ``HANDSHAKE_RETRIES`` times at most, as a host retries a command that failed on the bus.

Ref: ATA/ATAPI Command Set - 3 (ACS-3), the commands and their protocols; Serial ATA Revision 3.x
(Register - Device to Host FIS).
"""

from ecpsata.core.common import CMD_REASON
from ecpsata.host.ata import SECTOR
from ecpsata.host.sata import (DMA_SECTORS, LinkError, _field, device_error_text, read_buffer,
                               wait_buffer, write_buffer)
from ecpsata.host.target import TargetError

BLOCK = SECTOR          # a command's data blocks: 512 bytes (ACS-3)
PROTOCOLS = ("nodata", "pio-in", "dma-in", "dma-out")
STATUS_ERR = 0x01
HANDSHAKE_RETRIES = 2
ERROR_ABRT = 0x04


class CommandAborted(LinkError):
    """The drive ended the command with ERR and ABRT: it does not offer it (or not so)."""


def check_request(protocol, count, data):
    """The refusals a command gets before it is sent (``count``: 512-byte blocks)."""
    if protocol not in PROTOCOLS:
        raise TargetError(f"unknown protocol {protocol!r}: one of {', '.join(PROTOCOLS)}")
    if protocol == "nodata":
        if data:
            raise TargetError("a non-data command carries no data")
        return
    if not 1 <= count <= DMA_SECTORS:
        raise TargetError(f"{count} blocks: the sector buffer holds 1 to {DMA_SECTORS} blocks of "
                          f"{BLOCK} bytes per command: nothing sent")
    if protocol == "dma-out" and (data is None or len(data) != count * BLOCK):
        got = "no data" if data is None else f"{len(data)} bytes"
        raise TargetError(f"a data-out command of {count} blocks needs {count * BLOCK} bytes, "
                          f"{got} given: nothing sent")
    if protocol != "dma-out" and data:
        raise TargetError("a data-in command takes no data")


def task_file(target):
    """The drive's last Register D2H: status, error, LBA (48 bits), count (16 bits)."""
    t = target
    return {
        "status": t.reg("sata_errors_dev_tf_status").read(),
        "error":  t.reg("sata_errors_dev_tf_error").read(),
        "lba":    t.reg("sata_errors_dev_tf_lba").read(),
        "count":  t.reg("sata_errors_dev_tf_count").read(),
    }


def ata_command(target, command, features=0, lba=0, count=0, protocol="nodata", data=None,
                timeout=5.0, what=None):
    """Send one command; a command the drive never took goes out again (HANDSHAKE_RETRIES).
    Returns ``(data, task_file)``: the data read (bytes, empty for non-data
    and data-out commands) and the drive's ending Register D2H. Raises TargetError before sending
    for a request the path cannot carry, CommandAborted when the drive aborted it, LinkError when
    it failed otherwise (with the drive's registers) or did not end in time."""
    for attempt in range(HANDSHAKE_RETRIES + 1):
        try:
            return _command(target, command, features, lba, count, protocol, data, timeout, what)
        except _NeverTaken as e:
            if attempt == HANDSHAKE_RETRIES:
                raise LinkError(f"{e} ({attempt + 1} times)") from None


class _NeverTaken(LinkError):
    """The drive refused the command FIS every time: it never took the command."""


def _command(target, command, features, lba, count, protocol, data, timeout, what):
    t = target
    what = what or f"command {command:02X}h"
    if not t.has("sata_buffer_command"):
        raise TargetError("this gateware has no sector buffer with non-data commands: rebuild it")
    check_request(protocol, count, data)
    if protocol != "nodata" and not _has_custom_path(t):
        raise TargetError(f"{what}: this gateware's sector buffer sends only READ/WRITE DMA EXT "
                          f"and non-data commands (no 'custom' path): rebuild it")
    base = None
    if protocol != "nodata":
        base, _size = t.mem_region("sata_buffer")
    if protocol == "dma-out":
        write_buffer(t, base, data)
    downs = t.reg("sata_phy_link_downs").read()
    t.reg("sata_buffer_command").write(command)
    t.reg("sata_buffer_features").write(features)
    t.reg("sata_buffer_lba").write(lba)
    t.reg("sata_buffer_count").write(count)
    bit = lambda name: 1 << t.field("sata_buffer_control", name)[0]
    ctrl = bit("start") | {
        "nodata": bit("nodata"),
        "pio-in": bit("custom") | bit("pio"),
        "dma-in": bit("custom"),
        "dma-out": bit("custom") | bit("write"),
    }[protocol]
    t.reg("sata_buffer_control").write(ctrl)
    st = wait_buffer(t, downs, timeout, what)
    if _field(t, "sata_buffer_status", st, "timeout"):
        raise LinkError(f"{what}: the drive did not finish it in time (the core was reset)")
    if _field(t, "sata_buffer_status", st, "refused"):
        raise TargetError(f"{what}: refused by the gateware (count {count}): nothing sent")
    tf = task_file(t)
    if _field(t, "sata_buffer_status", st, "failed"):
        if tf["status"] & STATUS_ERR and tf["error"] & ERROR_ABRT:
            raise CommandAborted(f"{what}: aborted by the drive (status {tf['status']:02X}h, "
                                 f"error {tf['error']:02X}h): the drive does not offer it")
        if t.has("sata_errors_cmd_reason") and \
                t.reg("sata_errors_cmd_reason").read() == CMD_REASON["HANDSHAKE"]:
            raise _NeverTaken(f"{what}: the drive refused the command FIS every time (R_ERR)")
        raise LinkError(f"{what} failed: {device_error_text(t)}")
    data_in = protocol in ("pio-in", "dma-in")
    return (read_buffer(t, base, count * BLOCK) if data_in else b""), tf


def _has_custom_path(target):
    """The sector buffer sends commands of the caller's (its control register's custom field)."""
    try:
        target.field("sata_buffer_control", "custom")
        return True
    except TargetError:
        return False
