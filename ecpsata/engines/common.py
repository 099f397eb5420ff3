# SPDX-License-Identifier: BSD-2-Clause
"""Benchmark engine constants, CSR field values and the reference models the gateware implements.

The host CLI, the firmware tests and the gateware tests import these instead of repeating numbers:
the data pattern (`pattern_dword`) and the random LBA sequence (`random_lbas`) are defined here in
Python and the gateware (pattern.py, engine.py) must produce exactly the same values.

Ref: doc/benchmarks.md (experiments), ACS-3 (READ/WRITE DMA (EXT) and their limits).
"""

SECTOR_BYTES  = 512
SECTOR_DWORDS = SECTOR_BYTES // 4
MAX_SECTORS   = 65536           # READ/WRITE DMA EXT, count field 0
MAX_SECTORS28 = 256             # READ/WRITE DMA, count field 0
LBA28_LIMIT   = 1 << 28         # 28-bit commands address LBAs below this
LBA_WIDTH     = 48
HIST_BUCKETS  = 32

# config.op -----------------------------------------------------------------------------------------
OP_READ         = 0
OP_WRITE        = 1
OP_WRITE_VERIFY = 2              # write the whole run, then read it back and check
OPS = {"read": OP_READ, "write": OP_WRITE, "write_verify": OP_WRITE_VERIFY}

# config.hist_source ---------------------------------------------------------------------------------
HIST_LATENCY    = 0              # issue to status
HIST_FIRST_DATA = 1              # issue to first data dword
HIST_GAP        = 2              # previous status to first data
HIST_SOURCES = {"latency": HIST_LATENCY, "first_data": HIST_FIRST_DATA, "gap": HIST_GAP}

# stat_select: the block engine's command statistics, one entry per source and field ----------------
STAT_SOURCES = ("lat", "first_data", "gap")       # in hist_source order
STAT_FIELDS  = ("count", "min", "max", "sum")     # count first: a stream's first sample sets min


def stat_entry(source, field):
    """stat_select value of a statistic: STAT_SOURCES name and STAT_FIELDS name."""
    return STAT_SOURCES.index(source)*len(STAT_FIELDS) + STAT_FIELDS.index(field)

# status.state -------------------------------------------------------------------------------------
STATE_IDLE  = 0
STATE_BUSY  = 1
STATE_DONE  = 2
STATE_ERROR = 3
STATES = {STATE_IDLE: "idle", STATE_BUSY: "busy", STATE_DONE: "done", STATE_ERROR: "error"}

# status.reason ------------------------------------------------------------------------------------
REASON_OK           = 0
REASON_DEVICE_ERROR = 1          # a command ended with `failed` (D2H ERR, CRC, short read)
REASON_MISMATCH     = 2          # read data differed from the pattern
REASON_TIMEOUT      = 3          # a command did not complete within `timeout` cycles
REASON_REFUSED      = 4          # bad parameters: nothing was issued
REASON_ABORTED      = 5          # control.abort: stopped after the command in flight
REASON_LINK_LOST    = 6          # the link was down at start, or dropped while a command ran
REASON_PROTOCOL     = 7          # queued engine: the drive broke the protocol (core reset)
REASONS = {REASON_OK: "ok", REASON_DEVICE_ERROR: "device error", REASON_MISMATCH: "data mismatch",
           REASON_TIMEOUT: "timeout", REASON_REFUSED: "refused", REASON_ABORTED: "aborted",
           REASON_LINK_LOST: "link lost", REASON_PROTOCOL: "protocol error"}

# Data pattern -------------------------------------------------------------------------------------
# dword i (0..127) of sector `lba` for run seed `seed`:
#   s0   = mix32(mix32(lba[31:0] ^ fold(lba[47:32])) ^ seed)
#   w_i  = s0 + (i + 1) * WEYL             (mod 2^32)
#   data = mix32(w_i)
# mix32 is a bijection made of two xorshift rounds, so the gateware advances w by one adder per
# dword and needs no multiplier. Any read with the same seed verifies any earlier write.

M32  = 0xFFFFFFFF
WEYL = 0x9E3779B9


def mix32(x):
    x &= M32
    x ^= (x << 13) & M32
    x ^= x >> 17
    x ^= (x << 5) & M32
    x ^= (x << 7) & M32
    x ^= x >> 25
    x ^= (x << 12) & M32
    return x


def lba_fold(lba):
    hi = (lba >> 32) & 0xFFFF
    return (lba & M32) ^ (hi << 16) ^ hi


def sector_seed(seed, lba):
    return mix32(mix32(lba_fold(lba)) ^ (seed & M32))


def pattern_dword(seed, lba, i):
    return mix32(sector_seed(seed, lba) + (i + 1) * WEYL)


def pattern_sector(seed, lba):
    s0 = sector_seed(seed, lba)
    return [mix32(s0 + (i + 1) * WEYL) for i in range(SECTOR_DWORDS)]


# LBA sequences ------------------------------------------------------------------------------------
# Random mode: slots = range // sectors; mask = 2^ceil(log2(slots)) - 1; a xorshift64 generator
# seeded from the run seed, warmed up by RANDOM_WARMUP steps (the gateware steps it while it divides
# range by sectors, so small seeds do not give correlated first draws), is stepped until (state & mask) < slots (rejection, at most 2 tries on
# average); LBA = base + slot * sectors. Sequential mode: base, base + sectors, ... wrapping to base
# when the next command would cross base + range.

M64 = (1 << 64) - 1


def xorshift64(x):
    x ^= (x << 13) & M64
    x ^= x >> 7
    x ^= (x << 17) & M64
    return x


def xorshift64_init(seed):
    return (((seed ^ WEYL) & M32) << 32) | (seed & M32)     # never 0


RANDOM_WARMUP = 48


def random_slot_mask(slots):
    return (1 << (slots - 1).bit_length()) - 1


def random_lbas(seed, base, lba_range, sectors, n):
    slots = lba_range // sectors
    mask  = random_slot_mask(slots)
    x     = xorshift64_init(seed)
    for _ in range(RANDOM_WARMUP):
        x = xorshift64(x)
    out   = []
    for _ in range(n):
        while True:
            x = xorshift64(x)
            r = x & mask
            if r < slots:
                break
        out.append(base + r * sectors)
    return out


def sequential_lbas(base, lba_range, sectors, n):
    out, lba = [], base
    for _ in range(n):
        out.append(lba)
        lba += sectors
        if lba + sectors > base + lba_range:
            lba = base
    return out


def count_field(sectors):
    """The 16-bit `count` of the LiteSATA user port (and of the EXT FIS): 65,536 is 0."""
    assert 1 <= sectors <= MAX_SECTORS
    return sectors & 0xFFFF


def hist_bucket(value):
    """Log2 bucket of a cycle count: bucket 0 holds 0 and 1, bucket k holds [2^k, 2^(k+1)),
    the last bucket everything above."""
    return min(max(value.bit_length() - 1, 0), HIST_BUCKETS - 1)


# Queued engine (ecpsata/engines/queued.py, CSRs `sata_qbench_*`) ------------------------------------
# READ/WRITE FPDMA QUEUED with up to QD_MAX commands in flight. Its status.reason uses REASONS;
# `ncq_reason` says what the queued command layer (ecpsata/core/ncq/) reported.

QD_MAX = 32
OP_MIX = 2                       # queued engine's config.op: each command a read or a write
QUEUED_OPS = {"read": OP_READ, "write": OP_WRITE, "mix": OP_MIX}

# Mix runs (config.op = OP_MIX): `mix` is the write share in writes per MIX_ONE commands (0 = all
# reads, MIX_ONE = all writes, more is refused). Command k of a run is a write when the top byte of
# the k-th step of a xorshift64 generator (the LBA sequence's step, seeded apart from it by
# MIX_SALT) is below `mix`: the same seed gives the same reads and writes, each command drawn
# independently of its LBA. The host and the console take fio's rwmixread (percent reads).
MIX_ONE  = 256
MIX_SALT = 0x6A09E667F3BCC908
# (xorshift64_init(seed) ^ MIX_SALT is never 0: that needs seed == salt[31:0] and
# seed ^ WEYL == salt[63:32] at once)
assert MIX_SALT >> 32 != (MIX_SALT & M32) ^ WEYL


def mix_value(read_percent):
    """The `mix` register (writes per MIX_ONE, rounded to nearest) for fio's rwmixread."""
    assert 0 <= read_percent <= 100
    return ((100 - read_percent) * MIX_ONE + 50) // 100


def mix_init(seed):
    return xorshift64_init(seed) ^ MIX_SALT


def mix_ops(seed, mix, n):
    """[True where command k of a mix run is a write] for k < n."""
    x, out = mix_init(seed), []
    for _ in range(n):
        x = xorshift64(x)
        out.append((x >> 56) < mix)
    return out
from ecpsata.core.common import NCQ_REASONS as _NCQ_REASONS  # noqa: E402
NCQ_REASONS = {code: text for code, (_, text) in _NCQ_REASONS.items()}
