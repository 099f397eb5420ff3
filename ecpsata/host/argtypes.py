# SPDX-License-Identifier: BSD-2-Clause
"""The command line's argument types and shared options: numbers and ranges refused while parsing,
before anything is sent (a zero or negative size must not fall back to a default, a bad port or
timeout must not become a traceback). Used by cli.py and by every experiment's add_arguments."""

import argparse
import math

from ecpsata.engines import common as bc

U32 = 2**32 - 1
LBA48_LIMIT = 1 << 48


def parse_range(text):
    """LBA:COUNT, inside 48-bit LBAs."""
    try:
        lba, count = (int(x, 0) for x in text.split(":"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"range must be LBA:COUNT, not {text!r}") from None
    if lba < 0:
        raise argparse.ArgumentTypeError(f"LBA must be at least 0, not {lba}")
    if count < 1:
        raise argparse.ArgumentTypeError(f"COUNT must be at least 1, not {count}")
    if lba + count > LBA48_LIMIT:
        raise argparse.ArgumentTypeError(f"LBAs {lba}..{lba + count - 1} go beyond 48-bit LBA")
    return lba, count


def integer(text):
    """An integer in any base (0x10, 16)."""
    return int(text, 0)


def int_in(lo, hi=None):
    """An integer (any base) in lo..hi (no upper bound when hi is None)."""
    def parse(text):
        value = integer(text)
        if hi is None and value < lo:
            raise argparse.ArgumentTypeError(f"must be at least {lo}, not {value}")
        if hi is not None and not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"must be {lo}..{hi}, not {value}")
        return value
    parse.__name__ = "integer"          # argparse names the type in its errors
    return parse


def sectors_of(unit):
    """A positive multiple of `unit` sectors."""
    def parse(text):
        value = integer(text)
        if value < unit or value % unit:
            raise argparse.ArgumentTypeError(f"must be a positive multiple of {unit}, not {value}")
        return value
    parse.__name__ = "integer"
    return parse


def positive(what="", most=None):
    """A finite number above 0 (and at most `most`)."""
    def number(text):
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a number, not {text!r}") from None
        if not (math.isfinite(value) and 0 < value <= (most or math.inf)):
            limit = f" (at most {most:g})" if most else ""
            raise argparse.ArgumentTypeError(f"must be a positive number{what}{limit}, not {text}")
        return value
    return number


def multiple(most=1000.0):
    """A multiple of a size, written 2x, 0.5x or 2 (the x optional): above 0, at most `most`."""
    def parse(text):
        body = text[:-1] if text.lower().endswith("x") else text
        try:
            value = float(body)
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and 0 < value <= most):
            raise argparse.ArgumentTypeError(f"must be a multiple above 0 and at most {most:g} "
                                             f"(e.g. 2x), not {text!r}")
        return value
    parse.__name__ = "multiple"
    return parse


def queue_depths(text):
    """A comma list of queue depths 1..QD_MAX, e.g. 1,2,4,8,16,32 (sorted, each once)."""
    try:
        depths = [int(x, 0) for x in text.split(",")]
    except ValueError:
        depths = []
    if not depths or not all(1 <= d <= bc.QD_MAX for d in depths):
        raise argparse.ArgumentTypeError(f"must be a comma list of queue depths 1..{bc.QD_MAX} "
                                         f"(e.g. 1,2,4,8,16,32), not {text!r}")
    return sorted(set(depths))


sectors = int_in(1, bc.MAX_SECTORS)
seed = int_in(0, U32)


def write_flag(p, help="also write (needs --allow-write --range)"):
    p.add_argument("--write", action="store_true", help=help)


def loops_flag(p):
    p.add_argument("--loops", type=int_in(1, 1000), default=1, help="repeat every run N "
                   "times; rates as mean, stdev, min and max over the loops (default 1)")
