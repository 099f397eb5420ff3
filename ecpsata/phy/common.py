# SPDX-License-Identifier: BSD-2-Clause
"""Constants and small helpers of the vendor-neutral SATA PHY.

Everything that is a number from the standard lives here (OOB timing in Gen1 UI, detector windows,
primitives, 8b10b code tables) so that gateware, tests and host tools import one definition.

# Ref: SATA 3.x §8.4 (OOB signalling, PHY initialisation), §9.4.x (primitives)
# Ref: Serial ATA Revision 3.x; doc/ecp5-serdes.md
"""

from math import ceil

from ecpsata.phy.serdes import GEN1, GEN2, WORD_BITS, SYMBOL_BITS

# Frames -------------------------------------------------------------------------------------------

# The longest frame a drive may send: a Data FIS of 2,048 payload dwords (SATA 3.x §10.3.10,
# ecpsata/core/common.py's DATA_FIS_MAX_DWORDS), its header and its CRC. The link layer ends a
# longer one as bad, and so does the PHY's frame check (rx_frame.py).
FRAME_MAX_DWORDS = 2048 + 2
# A Register Device to Host FIS's frame: its 5 dwords (SATA 3.x §10.3.6, ecpsata/core/common.py's
# CTRL_FIS_DWORDS) and its CRC, and its FIS type (the first dword's low byte; ecpsata/core/
# common.py's FIS_REG_D2H). The frame check tells a good frame of this type and length apart (a
# PIO Setup has the same length): the transport takes any well-formed Register D2H, so its R_OK
# may come from the word clock too.
STATUS_FRAME_DWORDS = 5 + 1
STATUS_FIS_TYPE = 0x34
# A DMA Setup FIS's frame: its 7 dwords (SATA 3.x §10.3.8) and its CRC, and its type. The queued
# layer says for which tags it takes one (its second dword holds the tag), so its R_OK may come
# from the word clock too.
SETUP_FRAME_DWORDS = 7 + 1
SETUP_FIS_TYPE = 0x41
# A Set Device Bits FIS's frame: its 2 dwords (SATA 3.x §10.3.7) and its CRC, and its type. The
# queued layer says which tags one may complete (its second dword, SActive), so its R_OK may come
# from the word clock too.
SDB_FRAME_DWORDS = 2 + 1
SDB_FIS_TYPE = 0xA1

# OOB timing ---------------------------------------------------------------------------------------

# OOB is timed in Gen1 unit intervals whatever the line rate (666.67 ps nominal).
GEN1_UI_NS = 2/3

OOB_BURSTS          = 6    # bursts per COMRESET / COMWAKE sequence
OOB_BURST_UI        = 160  # 106.7 ns
OOB_COMRESET_GAP_UI = 480  # 320 ns (COMRESET / COMINIT)
OOB_COMWAKE_GAP_UI  = 160  # 106.7 ns

# Gen1 UI carried by one 20-bit word: Gen2 words last 6.667 ns (10 Gen1 UI), Gen1 words 13.333 ns.
UI_PER_WORD = {GEN2: 10, GEN1: 20}

# Word clock period in ns.
WORD_PERIOD_NS = {gen: ui*GEN1_UI_NS for gen, ui in UI_PER_WORD.items()}


def oob_words(ui, gen):
    """Number of words lasting ``ui`` Gen1 UI at line rate ``gen`` (exact for OOB lengths)."""
    assert ui % UI_PER_WORD[gen] == 0
    return ui//UI_PER_WORD[gen]


# Burst carriers, sent with electrical idle released. Gen2: alternating 0x0F0F0 / 0xF0F0F (runs of
# 4 line bits = 1.33 ns, the Gen1-rate D24.3-like carrier that linked on hardware). Gen1: the same
# 1.33 ns runs are 2 line bits, so 0x33333 / 0xCCCCC (alternating words so that every word differs
# from its neighbour; the word boundary then carries one 4-bit run, still a valid carrier).
OOB_BURST_WORDS = {
    GEN2: (0x0F0F0, 0xF0F0F),
    GEN1: (0x33333, 0xCCCCC),
}
# Gap: a constant word without transitions, read as idle by the far end's squelch.
OOB_GAP_WORD = 0x00000

# OOB build-time methods.
OOB_METHOD_SERIALIZER = "serializer"  # default: bursts and gaps made through the serializer
OOB_METHOD_EI         = "ei"          # bursts through the serializer, gaps with tx_idle
OOB_METHOD_LDR        = "ldr"         # low-data-rate path of the SerDes (implemented by the wrapper)
OOB_METHODS = (OOB_METHOD_SERIALIZER, OOB_METHOD_EI, OOB_METHOD_LDR)

# OOB kinds requested from the generator.
OOB_COMRESET = 0
OOB_COMWAKE  = 1

# Detector windows (gap lengths, ns): the receiver must respond inside, not outside.
COMWAKE_GAP_MIN_NS = 35
COMWAKE_GAP_MAX_NS = 175
COMINIT_GAP_MIN_NS = 175
COMINIT_GAP_MAX_NS = 525
# Points where a detector must not respond (interoperability), used with the nominal windows to
# place the detector's cycle thresholds: a gap of T ns spans floor(T/q) or floor(T/q) + 1 samples of
# period q, so a window [lo, hi) in samples is lo = floor(no_short/q) + 2, hi = floor(no_long/q).
COMWAKE_NO_SHORT_NS = 30
COMWAKE_NO_LONG_NS  = 177.3
COMINIT_NO_SHORT_NS = 172.7
COMINIT_NO_LONG_NS  = 527
# Bursts: OOB signals are told apart by their gaps (SATA 3.x §8.4.1), not by burst length, and
# devices' bursts as a squelch sees them vary (nominal 106.7 ns; longer with a slow squelch release
# or bursts made of ALIGNs). The detector accepts any burst from OOB_BURST_MIN_NS up to where
# activity stops being OOB:
# - minimum 40 ns: well under the 103.5 ns shortest legal burst, leaving room for the receiver's
#   loss-of-signal response and the debounce eating into a burst's ends, yet above the debounce
#   (2 sys cycles, 20-27 ns), so chatter and noise spikes that pass it do not count as bursts;
# - activity as long as the longest gap the detector accepts (COMINIT_NO_LONG_NS) is a signal
#   (ALIGN, data) and ends a sequence, as idle that long does: bursts up to about 5x nominal count.
#   A longer limit would only delay the end of COMWAKE (ALIGN follows at once), hence HP6.
OOB_BURST_MIN_NS = 40
OOB_SIGNAL_NS    = COMINIT_NO_LONG_NS
# Consecutive in-window gaps that make a detection.
OOB_MIN_GAPS = 4

# Speed negotiation / retry timing (seconds).
COMRESET_RETRY_INTERVAL = 10e-3    # drives answer within 10 ms; never retry faster
ALIGN_TIMEOUT           = 873.8e-6  # host waits this long after COMWAKE for the first ALIGN


def gap_window(no_short_ns, no_long_ns, clk_freq):
    """Detector window [lo, hi) in samples at ``clk_freq`` (see COMWAKE_NO_SHORT_NS)."""
    q = 1e9/clk_freq
    return int(no_short_ns//q) + 2, int(no_long_ns//q)


def cycles(t, clk_freq):
    """Clock cycles covering ``t`` seconds (at least 1)."""
    return max(1, ceil(t*clk_freq - 1e-9))


# Primitives (dword, first byte is the K28.x symbol) -----------------------------------------------

primitives = {
    "ALIGN":   0x7B4A4ABC,
    "ALIGN_N": 0x7BB5B5BC,  # ALIGN received with inverted polarity
    "CONT":    0x9999AA7C,
    "SYNC":    0xB5B5957C,
    "R_RDY":   0x4A4A957C,
    "R_OK":    0x3535B57C,
    "R_ERR":   0x5656B57C,
    "R_IP":    0x5555B57C,
    "X_RDY":   0x5757B57C,
    "WTRM":    0x5858B57C,
    "SOF":     0x3737B57C,
    "EOF":     0xD5D5B57C,
    "HOLD":    0xD5D5AA7C,
    "HOLDA":   0x9595AA7C,
}

K28_3 = 0x7C
K28_5 = 0xBC
D10_2 = 0x4A
D10_2_DWORD = 0x4A4A4A4A

# K28.5 as sent (bit 0 first): negative running disparity, positive running disparity.
K28_5_RDN = 0x17C
K28_5_RDP = 0x283
COMMAS = (K28_5_RDN, K28_5_RDP)

# 8b10b reference model (IEEE 802.3 clause 36 tables) ----------------------------------------------
# Codes are written "abcdei" / "fghj" with 'a' transmitted first; the seam puts the first
# transmitted bit in bit 0, so the helpers below return integers with a at bit 0.

_5B6B = [  # (RD-, RD+)
    ("100111", "011000"), ("011101", "100010"), ("101101", "010010"), ("110001", "110001"),
    ("110101", "001010"), ("101001", "101001"), ("011001", "011001"), ("111000", "000111"),
    ("111001", "000110"), ("100101", "100101"), ("010101", "010101"), ("110100", "110100"),
    ("001101", "001101"), ("101100", "101100"), ("011100", "011100"), ("010111", "101000"),
    ("011011", "100100"), ("100011", "100011"), ("010011", "010011"), ("110010", "110010"),
    ("001011", "001011"), ("101010", "101010"), ("011010", "011010"), ("111010", "000101"),
    ("110011", "001100"), ("100110", "100110"), ("010110", "010110"), ("110110", "001001"),
    ("001110", "001110"), ("101110", "010001"), ("011110", "100001"), ("101011", "010100"),
]
_K28_6B = ("001111", "110000")
_3B4B_D = [("1011", "0100"), ("1001", "1001"), ("0101", "0101"), ("1100", "0011"),
           ("1101", "0010"), ("1010", "1010"), ("0110", "0110"), ("1110", "0001")]
_3B4B_A7 = ("0111", "1000")
_3B4B_K = [("1011", "0100"), ("0110", "1001"), ("1010", "0101"), ("1100", "0011"),
           ("1101", "0010"), ("0101", "1010"), ("1001", "0110"), ("0111", "1000")]
K_CODES = [0x1C | (y << 5) for y in range(8)] + [0xF7, 0xFB, 0xFD, 0xFE]  # K28.y, K23/27/29/30.7


def _disp(bits):
    return bits.count("1") - bits.count("0")


def encode_symbol(byte, k, rd):
    """8b10b-encode ``byte`` (``k`` = control) with running disparity ``rd`` (0 = RD-, 1 = RD+).
    Returns (10-bit code with 'a' at bit 0, new rd)."""
    x, y = byte & 0x1F, byte >> 5
    if k:
        if byte not in K_CODES:
            raise ValueError(f"not a K code: {byte:#x}")
        six = _K28_6B[rd] if x == 28 else _5B6B[x][rd]
    else:
        six = _5B6B[x][rd]
    if _disp(six) != 0:
        rd ^= 1
    if k:
        four = _3B4B_K[y][rd]
    elif y == 7 and ((rd == 0 and x in (17, 18, 20)) or (rd == 1 and x in (11, 13, 14))):
        four = _3B4B_A7[rd]
    else:
        four = _3B4B_D[y][rd]
    if _disp(four) != 0:
        rd ^= 1
    code = six + four
    return sum(1 << i for i, c in enumerate(code) if c == "1"), rd


def _build_decode_table():
    table = {}
    for rd in (0, 1):
        for k in (0, 1):
            for byte in (K_CODES if k else range(256)):
                code, _ = encode_symbol(byte, k, rd)
                entry = table.setdefault(code, [byte, k, 0, 0])
                assert (entry[0], entry[1]) == (byte, k)
                entry[2 + rd] = 1
    return table

DECODE_TABLE = _build_decode_table()  # code -> [byte, k, valid_in_rd-, valid_in_rd+]


def decode_symbol(code, rd):
    """Reference decoder: returns (byte, k, code_error, disparity_error, new rd)."""
    ones = bin(code).count("1")
    entry = DECODE_TABLE.get(code)
    if entry is None:
        byte, k, code_err, disp_err = 0, 0, 1, 0
    else:
        byte, k = entry[0], entry[1]
        code_err, disp_err = 0, int(not entry[2 + rd])
    if ones > 5:
        rd = 1
    elif ones < 5:
        rd = 0
    elif entry is not None and entry[2] != entry[3]:
        rd = 0 if entry[2] else 1
    return byte, k, code_err, disp_err, rd


# ROM layout used by the gateware decoder (one 1024-entry ROM addressed by the received code).
DEC_ROM_WIDTH = 20  # data 8, k 1, valid_n 1, valid_p 1, ones class 2 (0 neutral, 1 RD-, 2 RD+), only_p 1,
                    # is D10.2, is D27.3, is K28.5 (ALIGN's symbols), is K28.3, is D10.5, is D25.4
                    # (CONT's symbols): flagged for the RX datapath, which then needs no comparison
DEC_ROM_D10_2 = 14
DEC_ROM_D27_3 = 15
DEC_ROM_K28_5 = 16
DEC_ROM_K28_3 = 17
DEC_ROM_D10_5 = 18
DEC_ROM_D25_4 = 19
DEC_ROM_D21_6 = 20  # is D21.6 (the second half of EOF): a 21st bit, in the frame check's ROM only
EOF_HI_BYTE = primitives["EOF"] >> 24     # D21.6, EOF's third and fourth bytes alike
assert (primitives["EOF"] >> 16) & 0xFF == EOF_HI_BYTE


def decode_rom(eof_hi=False):
    """The decoder's ROM: ``DEC_ROM_WIDTH`` bits per code, and with ``eof_hi`` the 21st
    (``DEC_ROM_D21_6``)."""
    rom = []
    for code in range(1 << SYMBOL_BITS):
        ones = bin(code).count("1")
        cls = 2 if ones > 5 else 1 if ones < 5 else 0
        entry = DECODE_TABLE.get(code)
        if entry is None:
            rom.append(cls << 11)
        else:
            byte, k, vn, vp = entry
            only_p = int(vp and not vn)
            d10_2 = int(not k and byte == 0x4A)
            d27_3 = int(not k and byte == 0x7B)
            k28_5 = int(k and byte == K28_5)
            k28_3 = int(k and byte == K28_3)
            d10_5 = int(not k and byte == 0xAA)
            d25_4 = int(not k and byte == 0x99)
            d21_6 = int(eof_hi and not k and byte == EOF_HI_BYTE)
            rom.append(byte | (k << 8) | (vn << 9) | (vp << 10) | (cls << 11) | (only_p << 13) |
                       (d10_2 << DEC_ROM_D10_2) | (d27_3 << DEC_ROM_D27_3) | (k28_5 << DEC_ROM_K28_5) |
                       (k28_3 << DEC_ROM_K28_3) | (d10_5 << DEC_ROM_D10_5) | (d25_4 << DEC_ROM_D25_4) |
                       (d21_6 << DEC_ROM_D21_6))
    return rom


def encode_dword(dword, charisk, rd):
    """Encode a dword (byte 0 first) into two 20-bit words. Returns ([word0, word1], rd)."""
    words = []
    for w in range(2):
        word = 0
        for s in range(2):
            i = 2*w + s
            code, rd = encode_symbol((dword >> 8*i) & 0xFF, (charisk >> i) & 1, rd)
            word |= code << (SYMBOL_BITS*s)
        words.append(word)
    return words, rd


def popcount(bits):
    """An adder tree over the bits of a signal (gateware; the self-test and the queued engine)."""
    terms = [bits[i] for i in range(len(bits))]
    while len(terms) > 1:
        terms = [terms[i] + terms[i + 1] if i + 1 < len(terms) else terms[i]
                 for i in range(0, len(terms), 2)]
    return terms[0]
