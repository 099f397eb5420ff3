# SPDX-License-Identifier: BSD-2-Clause
"""The SATA and ATA numbers the host core uses, and the core's own codes: one copy, imported by the
gateware, the host tools and the tests.

# Ref: Serial ATA Revision 3.x (FIS types 10.3, primitives 9.4), ACS-3 (commands, status and
#      error bits, IDENTIFY DEVICE data), Serial ATA AHCI 1.3.1 (PxSERR, 3.3.12)
"""

# FIS types (SATA 3.x §10.3) and the length of each device-to-host control FIS in dwords.
FIS_REG_H2D      = 0x27
FIS_REG_D2H      = 0x34
FIS_DMA_ACTIVATE = 0x39
FIS_DMA_SETUP    = 0x41
FIS_DATA         = 0x46
FIS_BIST         = 0x58
FIS_PIO_SETUP    = 0x5F
FIS_SDB          = 0xA1
CTRL_FIS_DWORDS = {
    FIS_REG_D2H:      5,
    FIS_PIO_SETUP:    5,
    FIS_DMA_ACTIVATE: 1,
    FIS_DMA_SETUP:    7,
    FIS_SDB:          2,
}
DATA_FIS_MAX_DWORDS = 2048          # payload of one Data FIS (8,192 bytes)

# ATA commands (ACS-3).
ATA_READ_DMA             = 0xC8
ATA_WRITE_DMA            = 0xCA
ATA_READ_DMA_EXT         = 0x25
ATA_WRITE_DMA_EXT        = 0x35
ATA_READ_FPDMA_QUEUED    = 0x60
ATA_WRITE_FPDMA_QUEUED   = 0x61
ATA_READ_LOG_EXT         = 0x2F
ATA_IDENTIFY             = 0xEC
ATA_FLUSH_CACHE          = 0xE7
ATA_FLUSH_CACHE_EXT      = 0xEA
ATA_SET_FEATURES         = 0xEF
ATA_DATA_SET_MANAGEMENT  = 0x06     # features bit 0: TRIM
ATA_READ_LOG_DMA_EXT     = 0x47
ATA_SMART                = 0xB0
ATA_SANITIZE             = 0xB4
SMART_READ_DATA          = 0xD0     # SMART's features
SMART_READ_THRESHOLDS    = 0xD1
SMART_RETURN_STATUS      = 0xDA
SMART_LBA                = 0xC24F00  # SMART's signature: LBA mid 4Fh, high C2h
LOG_DIRECTORY            = 0x00
LOG_DEVICE_STATISTICS    = 0x04
LOG_NCQ_COMMAND_ERROR    = 0x10
LOG_PHY_EVENT_COUNTERS   = 0x11

# SET FEATURES subcommands (features field) and the Serial ATA features (count field).
SF_WRITE_CACHE_ON     = 0x02
SF_WRITE_CACHE_OFF    = 0x82
SF_SATA_FEATURE_ON    = 0x10
SF_SATA_FEATURE_OFF   = 0x90
SATA_FEATURE_AUTO_ACTIVATE = 0x02       # DMA Setup FIS auto-activate
SATA_FEATURE_DIPM          = 0x03       # device-initiated power management

# Status and error registers (ACS-3 §6.2, 6.3).
STATUS_BSY  = 0x80
STATUS_DRDY = 0x40
STATUS_DF   = 0x20
STATUS_DRQ  = 0x08
STATUS_ERR  = 0x01
ERROR_ICRC  = 0x80
ERROR_UNC   = 0x40
ERROR_IDNF  = 0x10
ERROR_ABRT  = 0x04
ERROR_BITS = {ERROR_ICRC: "ICRC: interface CRC error", ERROR_UNC: "UNC: uncorrectable data",
              ERROR_IDNF: "IDNF: address not found", ERROR_ABRT: "ABRT: command aborted"}

# The device signature: sector count, LBA low, mid and high of the first Register D2H FIS after a
# reset (SATA 3.x §11.2, ACS-3 §9.1), packed as count | low << 8 | mid << 16 | high << 24.
SIGNATURES = {
    0x00000101: "ATA",
    0xEB140101: "ATAPI",
    0x96690101: "port multiplier",
    0xC33C0101: "enclosure bridge (SEMB)",
}
SIGNATURE_ATA = 0x00000101


def signature_kind(sig):
    """What a packed signature says the device is."""
    return SIGNATURES.get(sig & 0xFFFFFFFF, f"unknown (0x{sig & 0xFFFFFFFF:08x})")


# Why the last non-queued command failed (the core's `cmd_reason`; public API: the firmware and
# host tools print them by number).
CMD_REASONS = {
    0: ("OK",        "ok"),
    1: ("DEVICE",    "the drive reported an error"),
    2: ("DATA_CRC",  "a Data FIS failed (a bad CRC, lost dwords, or over 8,192 bytes)"),
    3: ("ESCAPE",    "the drive abandoned a frame (SYNC escape)"),
    4: ("DMAT",      "the drive ended the write's data early (DMAT) and failed the command"),
    5: ("PROTOCOL",  "the drive broke the protocol (a FIS refused repeatedly, or out of place)"),
    6: ("SHORT",     "the status came before all the data"),
    7: ("EXTRA",     "the drive sent more data than the command asked for"),
    8: ("HANDSHAKE", "the drive refused the command FIS every time (R_ERR)"),
    9: ("NO_STATUS", "the drive sent no status after a failed transfer"),
    10: ("TIMEOUT",  "the drive did not end the command within the core's command timeout"),
}
CMD_REASON = {name: code for code, (name, _) in CMD_REASONS.items()}
# After these the drive's state is unknown (it may still be resending a frame, or never have taken
# the command): the host tools and the firmware reset the link (COMRESET) before the next command,
# as Linux libata's error handler resets after a state machine violation or a frozen port.
CMD_RESET_REASONS = tuple(CMD_REASON[n] for n in ("PROTOCOL", "HANDSHAKE", "NO_STATUS", "TIMEOUT"))

# AHCI's PxSERR layout (AHCI 1.3.1 §3.3.12) with Linux libata's names for each bit.
SERROR_BITS = [
    # (bit, libata name, what sets it here)
    (0,  "RecovData",   "a frame failed and the command still completed (a retry recovered it)"),
    (1,  "RecovComm",   "the link dropped and came back"),
    (8,  "UnrecovData", "a command failed on a data integrity error (CRC, escape, short data)"),
    (9,  "Persist",     "the link was lost while a command was in flight"),
    (10, "Proto",       "the device broke a protocol rule (wrong length, out-of-place FIS, ...)"),
    (11, "HostInt",     "the host gave up on a command (timeout), or a frame overran its buffer"),
    (16, "PHYRdyChg",   "the link went up or down"),
    (17, "PHYInt",      "the PHY lost the receiver's lock or its alignment"),
    (18, "CommWake",    "COMWAKE detected"),
    (19, "10B8B",       "8b10b code error"),
    (20, "Dispar",      "8b10b disparity error"),
    (21, "BadCRC",      "a received frame failed its CRC"),
    (22, "Handshk",     "the device answered R_ERR to a frame of ours, or aborted it"),
    (23, "LinkSeq",     "a link sequence error: an escape, a lost EOF"),
    (24, "TrStaTrns",   "a FIS the transport layer could not take in its state"),
    (25, "UnrecFIS",    "a frame of an unknown FIS type"),
    (26, "DevExch",     "the device sent COMINIT: it was reset, replaced or power-cycled"),
]
SERROR = {name: 1 << bit for bit, name, _ in SERROR_BITS}


def serror_names(value):
    """The set bits of an SError value by libata's names, in bit order."""
    return [name for bit, name, _ in SERROR_BITS if value >> bit & 1]

# Why the queued command layer reported an error (its `error_reason`; public API as above).
NCQ_REASONS = {
    0: ("NONE",         "none"),
    1: ("DEVICE_ERROR", "device error"),       # SDB with ERR; log 10h names the failing tag and LBA
    2: ("CMD_REFUSED",  "command refused"),    # Register D2H with ERR to a queued command
    3: ("LOG_FAILED",   "log 10h failed"),     # READ LOG EXT aborted, or its page failed its checks
    4: ("TIMEOUT_CMD",  "command timeout"),    # command FIS not taken, or no answer to it
    5: ("TIMEOUT_SDB",  "completion timeout"), # tags outstanding and the drive silent
    6: ("TIMEOUT_DATA", "data timeout"),       # a data phase stalled
    7: ("TIMEOUT_LOG",  "log 10h timeout"),    # READ LOG EXT 10h not answered
    8: ("PROTOCOL",     "protocol error"),     # FISes refused repeatedly, or data beyond a transfer
    9: ("DATA_CRC",     "data CRC error"),     # a tag's Data FIS failed and the drive completed it
}
NCQ_REASON = {name: code for code, (name, _) in NCQ_REASONS.items()}
# After these the drive's state is unknown: the core and the link are reset (COMRESET clears the
# drive's queue). A log 10h that failed leaves the queue's state unknown too (Linux libata resets
# the link when READ LOG EXT fails in its NCQ error handling).
NCQ_RESET_REASONS = tuple(NCQ_REASON[n] for n in
                          ("TIMEOUT_CMD", "TIMEOUT_SDB", "TIMEOUT_DATA", "TIMEOUT_LOG", "PROTOCOL",
                           "LOG_FAILED"))
NCQ_TIMEOUT_REASONS = tuple(NCQ_REASON[n] for n in
                            ("TIMEOUT_CMD", "TIMEOUT_SDB", "TIMEOUT_DATA", "TIMEOUT_LOG"))

# Link event log (ecpsata/frontend/events.py; the ``code`` of an entry, public API as above).
# ``arg`` says more: PHY_STATE the state entered (ecpsata/phy/ctrl.py STATES) in bits 0-3 and the
# line rate tried in bit 4 (1 = Gen2); the edges 1 = rose, 0 = fell; DEVICE_ERROR the ATA error
# register; CMD_FAILED the command reason (CMD_REASONS).
LINK_EVENTS = {
    0:  ("PHY_STATE",    "PHY state"),                   # HP1 COMRESET sent, HP4 COMWAKE sent, ...
    1:  ("COMINIT",      "COMINIT detected"),
    2:  ("COMWAKE",      "COMWAKE detected"),
    3:  ("TX_READY",     "SerDes TX ready (PLL lock)"),
    4:  ("RX_READY",     "SerDes RX ready (CDR lock)"),
    5:  ("RX_POLARITY",  "RX polarity"),
    6:  ("LINK",         "link"),
    7:  ("DRIVE_READY",  "drive ready"),
    8:  ("CRC_ERROR",    "frame received with a bad CRC (R_ERR sent)"),
    9:  ("R_ERR",        "the drive refused our frame (R_ERR)"),
    10: ("ESCAPE",       "the drive abandoned a frame (SYNC escape)"),
    11: ("DEVICE_ERROR", "Register D2H with ERR"),
    12: ("CMD_FAILED",   "command failed"),
    13: ("CMD_RETRY",    "command FIS sent again"),
    14: ("HOST_RESET",   "core reset by the host (command timeout)"),
    15: ("LINE",         "receive line"),                # signal (RLOS low) / quiet for LINE_QUIET
}
LINE_QUIET = 2e-6  # the receive line counts as quiet after RLOS held this long (OOB gaps are < 0.6 us)
LINK_EVENT = {name: code for code, (name, _) in LINK_EVENTS.items()}
# The edge events: arg 1 = rose, 0 = fell.
LINK_EVENT_EDGES = ("TX_READY", "RX_READY", "RX_POLARITY", "LINK", "DRIVE_READY", "LINE")
