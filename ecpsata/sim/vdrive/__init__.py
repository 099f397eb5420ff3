# SPDX-License-Identifier: BSD-2-Clause
"""ctypes binding of the vdrive C library: a virtual SATA drive at the SerDes word level.

    from ecpsata.sim.vdrive import VirtualDrive
    drive = VirtualDrive("persona=ideal,capacity=2048")
    rx_word, rx_los = drive.step(tx_word, host_gen=2)     # once per SerDes word clock

Words follow the SerDes seam (ecpsata/phy/serdes.py): 20 bits, first symbol in bits [0:10], bit 0
of a symbol first on the line. ``host_gen`` is the line rate number, 1 (Gen1, 13.333 ns per word)
or 2 (Gen2, 6.667 ns per word) -- not the 0/1 value of the ``gen`` signal; convert a signal value
with ``VirtualDrive.gen_from_signal()``.

The shared library is built on first use (``make -C ecpsata/sim/vdrive lib``) when missing or older than
its sources.
"""

import ctypes
import fcntl
import glob
import json
import os
import subprocess
import threading

__all__ = ["VirtualDrive", "library"]

_HERE = os.path.dirname(os.path.abspath(__file__))
_LIB = os.path.join(_HERE, "build", "libvdrive.so")
_lock = threading.Lock()
_lib = None


def _stale():
    if not os.path.exists(_LIB):
        return True
    built = os.path.getmtime(_LIB)
    sources = glob.glob(os.path.join(_HERE, "src", "*.[ch]")) + [os.path.join(_HERE, "Makefile")]
    return any(os.path.getmtime(s) > built for s in sources)


def library():
    """Load (building if needed) and return the ctypes handle of libvdrive.so."""
    global _lib
    with _lock:
        if _lib is not None:
            return _lib
        # A file lock as well: pytest's workers (pytest -n) are processes that may all find the
        # library missing at once.
        os.makedirs(os.path.dirname(_LIB), exist_ok=True)
        with open(_LIB + ".lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if _stale():
                r = subprocess.run(["make", "-C", _HERE, "lib"], capture_output=True, text=True)
                if r.returncode != 0:
                    raise RuntimeError("building libvdrive failed:\n" + r.stdout + r.stderr)
        lib = ctypes.CDLL(_LIB)
        c = ctypes
        lib.vdrive_create_str.restype = c.c_void_p
        lib.vdrive_create_str.argtypes = [c.c_char_p, c.c_char_p, c.c_size_t]
        lib.vdrive_destroy.argtypes = [c.c_void_p]
        lib.vdrive_step.restype = c.c_uint32
        lib.vdrive_step.argtypes = [c.c_void_p, c.c_uint32, c.c_int, c.POINTER(c.c_int)]
        lib.vdrive_step_n.argtypes = [c.c_void_p, c.POINTER(c.c_uint32), c.POINTER(c.c_uint32),
                                      c.POINTER(c.c_uint8), c.c_size_t, c.c_int]
        lib.vdrive_set_max_gen.argtypes = [c.c_void_p, c.c_int]
        lib.vdrive_time_ps.restype = c.c_uint64
        lib.vdrive_time_ps.argtypes = [c.c_void_p]
        lib.vdrive_stats_json.restype = c.c_int
        lib.vdrive_stats_json.argtypes = [c.c_void_p, c.c_char_p, c.c_size_t]
        lib.vdrive_write_stats.argtypes = [c.c_void_p, c.c_char_p]
        lib.vdrive_set_fuzz.restype = c.c_int
        lib.vdrive_set_fuzz.argtypes = [c.c_void_p, c.c_double]
        lib.vdrive_fuzz_log.restype = c.c_int
        lib.vdrive_fuzz_log.argtypes = [c.c_void_p, c.c_char_p, c.c_size_t]
        lib.vdrive_flush.argtypes = [c.c_void_p]
        lib.vdrive_read_sectors.argtypes = [c.c_void_p, c.c_uint64, c.c_uint32, c.c_void_p]
        lib.vdrive_write_sectors.argtypes = [c.c_void_p, c.c_uint64, c.c_uint32, c.c_void_p]
        lib.vdrive_crc32.restype = c.c_uint32
        lib.vdrive_crc32.argtypes = [c.POINTER(c.c_uint32), c.c_size_t]
        lib.vdrive_scrambler.restype = c.c_uint32
        lib.vdrive_scrambler.argtypes = [c.c_size_t]
        lib.vdrive_8b10b_encode.restype = c.c_uint32
        lib.vdrive_8b10b_encode.argtypes = [c.c_uint8, c.c_int, c.POINTER(c.c_int)]
        lib.vdrive_8b10b_decode.restype = c.c_int
        lib.vdrive_8b10b_decode.argtypes = [c.c_uint32, c.POINTER(c.c_int)]
        _lib = lib
        return lib


class VirtualDrive:
    """A virtual SATA drive (vdrive) driven one SerDes word at a time.

    ``config`` is the ``key=value,...`` string documented in ecpsata/sim/vdrive/README.md; a bad string
    raises ValueError with the library's message (which names the key).
    """

    GEN1 = 1
    GEN2 = 2

    def __init__(self, config="", host_gen=2):
        self._lib = library()
        err = ctypes.create_string_buffer(512)
        handle = self._lib.vdrive_create_str(config.encode(), err, len(err))
        if not handle:
            raise ValueError(err.value.decode(errors="replace"))
        self._h = handle
        self.host_gen = self._check_gen(host_gen)
        self._los = ctypes.c_int(0)

    @staticmethod
    def gen_from_signal(value):
        """Map the SerDes ``gen`` signal (0 = Gen1, 1 = Gen2) to the rate number used here."""
        return 2 if value else 1

    @staticmethod
    def _check_gen(gen):
        if gen not in (1, 2):
            raise ValueError("host_gen must be 1 (Gen1) or 2 (Gen2), got {!r}".format(gen))
        return gen

    def _handle(self):
        if not self._h:
            raise ValueError("VirtualDrive is closed")
        return self._h

    def set_gen(self, host_gen):
        """Set the host line rate used by step()/step_n() when none is given."""
        self.host_gen = self._check_gen(host_gen)

    def set_max_gen(self, gen):
        """Change the drive's highest rate, 1, 2 or 3 (effective at the next speed negotiation;
        Gen3 is offered only: a host receives garbage while the drive sends at Gen3)."""
        if gen not in (1, 2, 3):
            raise ValueError("max_gen must be 1, 2 or 3, got {!r}".format(gen))
        self._lib.vdrive_set_max_gen(self._handle(), gen)

    def step(self, tx_word, host_gen=None):
        """One word clock: host TX word in, (device word, rx_los) out."""
        gen = self.host_gen if host_gen is None else self._check_gen(host_gen)
        rx = self._lib.vdrive_step(self._handle(), tx_word & 0xFFFFF, gen,
                                   ctypes.byref(self._los))
        return rx, self._los.value

    def step_n(self, tx_words, host_gen=None):
        """Many word clocks at once; returns (list of rx words, list of rx_los)."""
        gen = self.host_gen if host_gen is None else self._check_gen(host_gen)
        n = len(tx_words)
        tx = (ctypes.c_uint32 * n)(*tx_words)
        rx = (ctypes.c_uint32 * n)()
        los = (ctypes.c_uint8 * n)()
        self._lib.vdrive_step_n(self._handle(), tx, rx, los, n, gen)
        return list(rx), list(los)

    def stats(self):
        """Statistics as a dict (commands, bytes, FIS counts, HOLDs, errors, OOB, link-ups, the
        real-drive behaviours, the protocol faults, and the health counts that SMART, the Device
        Statistics and the Phy Event Counters report; ecpsata/sim/vdrive/README.md, "Statistics"
        and "Health")."""
        buf = ctypes.create_string_buffer(8192)
        self._lib.vdrive_stats_json(self._handle(), buf, len(buf))
        return json.loads(buf.value.decode())

    def set_fuzz(self, p):
        """The fuzzer's probability per frame from now on (0 stops it)."""
        if self._lib.vdrive_set_fuzz(self._handle(), float(p)) != 0:
            raise ValueError(f"vdrive: fuzz must be 0..1, not {p}")

    def fuzz_log(self):
        """The drive's last (up to 64) fuzz actions, oldest first, one string each:
        ``"<frame> <FIS type in hex> <kind>[ <field>]"``, e.g. ``"17 34 field bsy"`` (frame: the
        device-to-host FIS number the fault keys count)."""
        n = self._lib.vdrive_fuzz_log(self._handle(), None, 0)
        buf = ctypes.create_string_buffer(n + 1)
        self._lib.vdrive_fuzz_log(self._handle(), buf, len(buf))
        return buf.value.decode().splitlines()

    def time_ps(self):
        """Model time since creation, in ps (counted from words and rates)."""
        return self._lib.vdrive_time_ps(self._handle())

    def write_stats(self, path):
        return self._lib.vdrive_write_stats(self._handle(), os.fsencode(path))

    def read_sectors(self, lba, count):
        """Media contents, bypassing the interface (no timing, no faults)."""
        buf = ctypes.create_string_buffer(count * 512)
        if self._lib.vdrive_read_sectors(self._handle(), lba, count, buf):
            raise ValueError("LBA range beyond capacity")
        return buf.raw

    def write_sectors(self, lba, data):
        if len(data) % 512:
            raise ValueError("data must be whole sectors")
        buf = ctypes.create_string_buffer(bytes(data), len(data))
        if self._lib.vdrive_write_sectors(self._handle(), lba, len(data) // 512, buf):
            raise ValueError("LBA range beyond capacity")

    def flush(self):
        self._lib.vdrive_flush(self._handle())

    def close(self):
        """Destroy the drive: flushes the image, writes stats_file if configured."""
        if getattr(self, "_h", None):
            self._lib.vdrive_destroy(self._h)
            self._h = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass
