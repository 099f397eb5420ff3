# SPDX-License-Identifier: BSD-2-Clause
"""Live progress of a benchmark run on stderr (the CLI's display; no figure comes from it)."""

import sys
import time


class Progress:
    """Live progress on stderr from the engine's snapshot counters: a one-line bar refreshed on
    every update (>= 10 Hz) on a terminal, a plain line every `period_s` seconds otherwise. The
    host clock only paces the display."""
    def __init__(self, stream=None, tty=None, period_s=5.0):
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self.period_s = period_s
        self.last = None
        self.shown = False

    def __call__(self, p):
        frac = min(p["bytes"] / p["total_bytes"], 1.0) if p["total_bytes"] else 0.0
        text = (f"{p['label']}: {100 * frac:5.1f}%  {p['bytes'] / 1e6:10.3f} MB  "
                f"{p['completed']} cmds  {p['mbps']:8.2f} MB/s" +
                (f"  {p['errors']} errors" if p["errors"] else "") +
                (f"  {p['mismatches']} bad dwords" if p["mismatches"] else ""))
        if self.tty:
            bar = "#" * int(20 * frac) + "." * (20 - int(20 * frac))
            self.stream.write(f"\r[{bar}] {text}\x1b[K")
            self.shown = True
        else:
            now = time.monotonic()
            if self.last is not None and now - self.last < self.period_s:
                return
            self.last = now
            self.stream.write(text + "\n")
        self.stream.flush()

    def clear(self):
        if self.tty and self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.shown = False
