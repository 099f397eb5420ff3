# SPDX-License-Identifier: BSD-2-Clause
"""A word-level SATA host in pure Python, the test peer of the virtual drive.

It shares no code or tables with the C library (its 8b10b tables are written out from the standard,
both disparity columns), so the two implementations check each other. It does what a host PHY,
link and command layer do, one SerDes word at a time:

    host = Host(VirtualDrive("persona=ideal"), gen=2)
    host.link_up()                       # COMRESET, COMINIT, COMWAKE, ALIGN exchange, SYNC
    ident = host.identify()              # 256 words
    host.write(lba, data)                # WRITE DMA EXT (or WRITE DMA with ext=False)
    data = host.read(lba, count)         # READ DMA EXT

Commands return a ``Result`` with status, error and data. Timeouts raise ``HostTimeout``.
"""

from collections import namedtuple

# --- 8b10b (IBM), codes as "abcdei" / "fghj" strings, a first on the line --------------------

_6B = [  # (RD-, RD+) for EDCBA = 0..31
    ("100111", "011000"), ("011101", "100010"), ("101101", "010010"), ("110001", "110001"),
    ("110101", "001010"), ("101001", "101001"), ("011001", "011001"), ("111000", "000111"),
    ("111001", "000110"), ("100101", "100101"), ("010101", "010101"), ("110100", "110100"),
    ("001101", "001101"), ("101100", "101100"), ("011100", "011100"), ("010111", "101000"),
    ("011011", "100100"), ("100011", "100011"), ("010011", "010011"), ("110010", "110010"),
    ("001011", "001011"), ("101010", "101010"), ("011010", "011010"), ("111010", "000101"),
    ("110011", "001100"), ("100110", "100110"), ("010110", "010110"), ("110110", "001001"),
    ("001110", "001110"), ("101110", "010001"), ("011110", "100001"), ("101011", "010100"),
]
_6B_K28 = ("001111", "110000")
_4B_D = [("1011", "0100"), ("1001", "1001"), ("0101", "0101"), ("1100", "0011"),
         ("1101", "0010"), ("1010", "1010"), ("0110", "0110"), ("1110", "0001")]
_4B_A7 = ("0111", "1000")
_4B_K = [("1011", "0100"), ("0110", "1001"), ("1010", "0101"), ("1100", "0011"),
         ("1101", "0010"), ("0101", "1010"), ("1001", "0110"), ("0111", "1000")]
K_CODES = (0x1C, 0x3C, 0x5C, 0x7C, 0x9C, 0xBC, 0xDC, 0xFC, 0xF7, 0xFB, 0xFD, 0xFE)


def _disp(s):
    return 2 * s.count("1") - len(s)


def _encode_ref(byte, k, rd):
    """Encode one symbol from running disparity rd (-1/+1). Returns (code_string, rd_out)."""
    x, y = byte & 31, byte >> 5
    six = (_6B_K28 if (k and x == 28) else _6B[x])[rd > 0]
    if _disp(six):
        rd = -rd
    if k and x == 28:
        four = _4B_K[y][rd > 0]
    elif y == 7 and (k or (rd < 0 and x in (17, 18, 20)) or (rd > 0 and x in (11, 13, 14))):
        four = _4B_A7[rd > 0]
    else:
        four = _4B_D[y][rd > 0]
    if _disp(four):
        rd = -rd
    return six + four, rd


def _as_int(code):
    return sum(1 << i for i, c in enumerate(code) if c == "1")


ENC = {}   # (rd, k, byte) -> (10-bit int, rd_out)
DEC = {}   # (10-bit int, rd) -> (value = byte | k << 8, rd_out)
for _k, _bytes in ((0, range(256)), (1, K_CODES)):
    for _b in _bytes:
        for _rd in (-1, 1):
            _code, _rdo = _encode_ref(_b, _k, _rd)
            ENC[(_rd, _k, _b)] = (_as_int(_code), _rdo)
            DEC[(_as_int(_code), _rd)] = (_b | _k << 8, _rdo)
K28_5 = 0x1BC
COMMAS = (0x17C, 0x283)

# --- link constants -------------------------------------------------------------------------

PRIM = {
    "ALIGN": 0x7B4A4ABC, "ALIGN_N": 0x7BB5B5BC, "CONT": 0x9999AA7C, "SYNC": 0xB5B5957C,
    "R_RDY": 0x4A4A957C, "R_OK": 0x3535B57C, "R_ERR": 0x5656B57C, "R_IP": 0x5555B57C,
    "X_RDY": 0x5757B57C, "WTRM": 0x5858B57C, "SOF": 0x3737B57C, "EOF": 0xD5D5B57C,
    "HOLD": 0xD5D5AA7C, "HOLDA": 0x9595AA7C,
    "PMREQ_P": 0x1717B57C, "PMREQ_S": 0x7575957C, "PMACK": 0x9595957C, "PMNAK": 0xF5F5957C,
}
PRIM_NAME = {v: k for k, v in PRIM.items()}
DATA = "DATA"


def scrambler(n):
    """First n scrambler dwords (LFSR x^16+x^15+x^13+x^4+1; 0xC2D2768D first)."""
    ctx, out = 0xFFFF, []
    for _ in range(n):
        v = 0
        for b in range(32):
            o = ctx >> 15
            v |= o << b
            ctx = ((ctx << 1) & 0xFFFF) ^ (0xA011 if o else 0)
        out.append(v)
    return out


_SCR = scrambler(2064)


def crc32(dwords):
    """SATA CRC: poly 0x04C11DB7, seed 0x52325032, MSB first, bitwise."""
    c = 0x52325032
    for d in dwords:
        c ^= d
        for _ in range(32):
            c = ((c << 1) ^ 0x04C11DB7) & 0xFFFFFFFF if c & 0x80000000 else (c << 1) & 0xFFFFFFFF
    return c


Result = namedtuple("Result", "status error data")


class HostTimeout(Exception):
    pass


class Host:
    """SATA host at the word level talking to a VirtualDrive (or anything with step())."""

    def __init__(self, drive, gen=2):
        self.drive = drive
        self.gen = gen
        self.words = 0
        self.los = 1
        self.tx_rd = -1
        self.tx_align = 0
        self.rx_invert = False
        self.tx_invert = False     # the host's transmitter inverted (a swapped TX pair fixed)
        self.rx_prev = 0
        self.aligned = False
        self.off = self.phase = 0
        self.rd = -1
        self.half = None
        self.code_errors = 0
        self.level = None          # last primitive name (persists through CONT), DATA after data
        self.rx_cont = False
        self.event = None          # what the last cycle delivered: name, DATA, or None
        self.rdata = 0
        self.aligns = 0
        self.non_align = 0
        self.hold_every = 0        # as receiver, HOLD for 8 dwords every N data dwords
        self.holds_seen = 0
        self.signature = None

    # --- physical ---------------------------------------------------------------------------

    def word(self, tx):
        if self.tx_invert:
            tx ^= 0xFFFFF
        rx, self.los = self.drive.step(tx, self.gen)
        self.words += 1
        if self.rx_invert:
            rx ^= 0xFFFFF
        self._rx(rx)
        return rx

    def _rx(self, w):
        buf = w << 20 | self.rx_prev
        self.rx_prev = w
        if not self.aligned:
            for o in range(20):
                c = (buf >> o) & 0x3FF
                if c in COMMAS:
                    self.aligned, self.off, self.phase = True, o, 0
                    self.rd = -1 if c == 0x17C else 1
                    break
            else:
                return
        sw = (buf >> self.off) & 0xFFFFF
        syms, err = [], False
        for code in (sw & 0x3FF, sw >> 10):
            d = DEC.get((code, self.rd))
            if d is None:
                err = True
                self.code_errors += 1
                ones = bin(code).count("1")
                self.rd = 1 if ones > 5 else -1 if ones < 5 else self.rd
                syms.append(0)
            else:
                syms.append(d[0])
                self.rd = d[1]
        if syms[1] == K28_5:
            self.aligned = False
            return
        if self.phase == 0 or syms[0] == K28_5:
            self.half, self.half_err, self.phase = syms, err, 1
            return
        self.phase = 0
        s = self.half + syms
        dw = sum((v & 0xFF) << (8 * i) for i, v in enumerate(s))
        ks = [v >> 8 for v in s]
        bad = err or self.half_err or any(ks[1:])
        self._dword(dw, bool(ks[0]) and not bad, bad)

    def _dword(self, dw, is_prim, bad):
        if is_prim:
            name = PRIM_NAME.get(dw, "UNKNOWN")
            if name == "ALIGN":
                self.aligns += 1
                return
            if name == "ALIGN_N":            # inverted line: flip our receiver
                self.rx_invert = not self.rx_invert
                self.aligned = False
                return
            self.non_align += 1
            if name == "CONT":
                self.rx_cont = True
                return
            self.rx_cont = False
            self.level = self.event = name
            return
        if self.rx_cont:
            return
        self.level = self.event = DATA
        self.rdata = dw
        self.rbad = bad

    def cycle(self, dw, k=True):
        """One dword time; returns False when an ALIGN went out instead of dw."""
        self.event = None
        sent = True
        if self.tx_align >= 254:
            dw, k, sent = PRIM["ALIGN"], True, False
            self.tx_align = (self.tx_align + 1) % 256
        else:
            self.tx_align += 1
        codes = []
        for i in range(4):
            c, self.tx_rd = ENC[(self.tx_rd, int(k and i == 0), (dw >> (8 * i)) & 0xFF)]
            codes.append(c)
        self.word(codes[0] | codes[1] << 10)
        self.word(codes[2] | codes[3] << 10)
        return sent

    def send_oob(self, wake):
        bw = 16 if self.gen == 2 else 8
        gw = bw if wake else 3 * bw
        for _ in range(6):
            for i in range(bw):
                self.word(0xF0F0F if i & 1 else 0x0F0F0)
            for _ in range(gw):
                self.word(0)

    def wait_oob(self, max_words):
        """Returns 'COMINIT' or 'COMWAKE' from the rx_los pattern, or None."""
        word_ns = 20 / 3 if self.gen == 2 else 40 / 3
        in_burst = seen = False
        gap = n_init = n_wake = 0
        for _ in range(max_words):
            self.word(0)
            if not self.los:
                if not in_burst and seen:
                    ns = gap * word_ns
                    if 35 <= ns < 175:
                        n_init, n_wake = 0, n_wake + 1
                        if n_wake == 4:
                            return "COMWAKE"
                    elif 175 <= ns < 525:
                        n_wake, n_init = 0, n_init + 1
                        if n_init == 4:
                            return "COMINIT"
                    else:
                        n_wake = n_init = 0
                in_burst = seen = True
                gap = 0
            else:
                in_burst = False
                gap += 1
        return None

    def link_up(self, max_words=200000):
        """OOB and speed negotiation at self.gen. Returns True on link up."""
        end = self.words + max_words
        self.send_oob(False)
        if self.wait_oob(min(max_words, 2000000)) != "COMINIT":
            return False
        self.send_oob(True)
        if self.wait_oob(20000) != "COMWAKE":
            return False
        self.aligned = False
        self.aligns = 0
        while self.aligns < 2:                      # D10.2 until the drive's ALIGNs lock
            if self.words >= end:
                return False
            self.word(0xAAAAA)
        self.non_align = 0
        while self.non_align < 3:                   # echo ALIGN until 3 non-ALIGN primitives
            if self.words >= end:
                return False
            before = self.aligns
            self.cycle(PRIM["ALIGN"])
            if self.aligns != before and self.non_align < 3:
                self.non_align = 0
        self.tx_align = 0
        for _ in range(8):
            self.cycle(PRIM["SYNC"])
        try:                                         # the drive reports its signature
            self.signature = self.recv_fis(max_words=4000)
        except HostTimeout:
            self.signature = None
        return True

    # --- link -----------------------------------------------------------------------------

    def send_fis(self, fis, max_words=2000000):
        """Send a FIS (list of dwords). Returns True for R_OK, False for R_ERR."""
        frame = list(fis) + [crc32(fis)]
        frame = [d ^ s for d, s in zip(frame, _SCR)]
        end = self.words + max_words
        st, i, result = "XRDY", 0, None
        while self.words < end:
            if st == "XRDY":
                out, k = PRIM["X_RDY"], True
            elif st == "SOF":
                out, k = PRIM["SOF"], True
            elif st == "DATA":
                out, k = (PRIM["HOLDA"], True) if self.level == "HOLD" else (frame[i], False)
            elif st == "EOF":
                out, k = PRIM["EOF"], True
            elif st == "WTRM":
                out, k = PRIM["WTRM"], True
            else:
                out, k = PRIM["SYNC"], True
            before = self.level
            sent = self.cycle(out, k)
            if self.level == "HOLD" and before != "HOLD" and st == "DATA":
                self.holds_seen += 1
            if not sent:
                continue
            if st == "XRDY" and self.level == "R_RDY":
                st = "SOF"
            elif st == "SOF":
                st = "DATA"
            elif st == "DATA" and not k:
                i += 1
                if i == len(frame):
                    st = "EOF"
            elif st == "EOF":
                st = "WTRM"
            elif st == "WTRM" and self.level in ("R_OK", "R_ERR"):
                result, st = self.level == "R_OK", "END"
            elif st == "END" and self.level not in ("R_OK", "R_ERR", "R_IP", DATA):
                return result
        raise HostTimeout("send_fis")

    def recv_fis(self, max_words=20000000):
        """Receive one FIS; returns its dwords (without CRC). Raises HostTimeout."""
        end = self.words + max_words
        st, frame, ok, hold_left, since = "IDLE", [], False, 0, 0
        while self.words < end:
            if st == "IDLE":
                out = PRIM["SYNC"]
            elif st == "RDY":
                out = PRIM["R_RDY"]
            elif st == "DATA":
                if self.level == "HOLD":
                    out = PRIM["HOLDA"]
                elif hold_left:
                    out, hold_left = PRIM["HOLD"], hold_left - 1
                else:
                    out = PRIM["R_IP"]
            else:
                out = PRIM["R_OK"] if ok else PRIM["R_ERR"]
            before = self.level
            self.cycle(out)
            lv = self.level
            if st == "IDLE" and lv == "X_RDY":
                st = "RDY"
            elif st == "RDY" and lv == "SOF":
                st, frame = "DATA", []
            elif st == "DATA":
                if lv == "HOLD" and before != "HOLD":
                    self.holds_seen += 1
                if self.event == DATA:
                    frame.append(self.rdata ^ _SCR[len(frame)] if len(frame) < len(_SCR) else 0)
                    since += 1
                    if self.hold_every and since >= self.hold_every:
                        since, hold_left = 0, 8
                elif lv == "EOF":
                    ok = len(frame) >= 2 and crc32(frame[:-1]) == frame[-1]
                    st = "END"
                elif lv == "SYNC":
                    st = "IDLE"
            elif st == "END" and lv == "SYNC":
                if not ok:
                    self.crc_failures = getattr(self, "crc_failures", 0) + 1
                return frame[:-1]
        raise HostTimeout("recv_fis")

    # --- commands --------------------------------------------------------------------------

    @staticmethod
    def reg_h2d(op, features=0, lba=0, count=0):
        is28 = op in (0xC8, 0xCA)
        dev = 0x40 | (((lba >> 24) & 0xF) if is28 else 0)
        return [0x27 | 0x80 << 8 | op << 16 | features << 24,
                (lba & 0xFFFFFF) | dev << 24,
                0 if is28 else (lba >> 24) & 0xFFFFFF,
                count & 0xFFFF, 0]

    def command(self, op, features=0, lba=0, count=0, data=None, max_words=20000000):
        """A non-queued command. PIO data-in may come in several DRQ blocks (PIO Setup, Data FIS);
        it ends with the block whose PIO Setup has BSY clear in E_Status. A Register D2H with BSY
        or DRQ set is not a completion (AHCI's rule)."""
        if not self.send_fis(self.reg_h2d(op, features, lba, count)):
            raise HostTimeout("command FIS answered R_ERR")
        rdata, wpos, status, error = bytearray(), 0, None, None
        pio_last = False
        while True:
            fis = self.recv_fis(max_words)
            t = fis[0] & 0xFF
            if t == 0x46:
                for d in fis[1:]:
                    rdata += d.to_bytes(4, "little")
                if op in (0xEC, 0x2F, 0xB0) and pio_last:     # PIO data-in: IDENTIFY, log, SMART
                    return Result(status, error, bytes(rdata))
            elif t == 0x5F:
                status, error = fis[3] >> 24, (fis[0] >> 24) & 0xFF
                pio_last = not status & 0x80
            elif t == 0x39:
                chunk = data[wpos:wpos + 8192]
                dws = [int.from_bytes(chunk[i:i + 4], "little") for i in range(0, len(chunk), 4)]
                if self.send_fis([0x46] + dws):
                    wpos += len(chunk)
            elif t == 0x34 and not (fis[0] >> 16) & 0x88:
                return Result((fis[0] >> 16) & 0xFF, (fis[0] >> 24) & 0xFF, bytes(rdata))

    def identify(self):
        """IDENTIFY DEVICE; returns a Result whose data is a list of 256 words."""
        r = self.command(0xEC)
        words = [int.from_bytes(r.data[i:i + 2], "little") for i in range(0, len(r.data), 2)]
        return Result(r.status, r.error, words)

    def read(self, lba, count, ext=True):
        return self.command(0x25 if ext else 0xC8, lba=lba, count=count)

    def write(self, lba, data, ext=True):
        assert len(data) % 512 == 0
        return self.command(0x35 if ext else 0xCA, lba=lba, count=len(data) // 512, data=data)
