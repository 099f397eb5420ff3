# SPDX-License-Identifier: BSD-2-Clause
"""The result dict every experiment returns, and small helpers on the engine's counters, shared by
the experiments (ecpsata/host/experiments/)."""

SEED = 1          # default pattern and random-LBA seed of every experiment


def result(name, parameters, rows, summary=None, notes=()):
    """{"experiment", "parameters", "rows", "summary", "notes"}: what report.py prints and writes."""
    return {"experiment": name, "parameters": parameters, "rows": rows,
            "summary": summary or {}, "notes": list(notes)}


def avg(stat):
    """sum / count of a min/max/sum/count counter group; None without samples."""
    return stat["sum"] / stat["count"] if stat["count"] else None


def opt_us(s, cycles):
    return None if cycles is None else s.us(cycles)
