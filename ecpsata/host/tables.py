# SPDX-License-Identifier: BSD-2-Clause
"""Text tables of results, one style for every experiment: columns are (header, row key, format)
and None values print as "-"; the columns every experiment's table may grow (the flush's, the
spread over --loops) and the latency and histogram tables (latency.py) as people read them.

A table is (caption, columns, rows): report.py prints it, htmlreport.py writes it as HTML."""

from ecpsata.host import latency as latency_stats

SPREAD_COLUMNS = [("figure", "figure", "{}"), ("mean", "mean", "{:.2f}"),
                  ("stdev", "stdev", "{:.2f}"), ("min", "min", "{:.2f}"), ("max", "max", "{:.2f}")]
LATENCY_COLUMNS = [("statistic", "statistic", "{}"), ("value us", "value", "{}"),
                   ("cycles", "value_cycles", "{:.7g}"), ("at least us", "at_least_us", "{:.3f}"),
                   ("how it is known", "bound", "{}")]
HISTOGRAM_COLUMNS = [("bucket", "bucket", "{}"), ("from cycles", "from_cycles", "{}"),
                     ("below cycles", "below_cycles", "{}"), ("from us", "from_us", "{:.3f}"),
                     ("below us", "below_us", "{:.3f}"), ("count", "count", "{}")]


def _cell(fmt, value):
    return "-" if value is None else fmt.format(value)


def table(columns, rows):
    """Right-aligned text table (left-aligned for text columns)."""
    cells = [[_cell(fmt, r.get(key)) for _, key, fmt in columns] for r in rows]
    widths = [max([len(h)] + [len(c[i]) for c in cells]) for i, (h, _, _) in enumerate(columns)]
    text = [any(isinstance(r.get(key), str) for r in rows) for _, key, _ in columns]
    def line(values):
        return "  ".join(v.ljust(w) if t else v.rjust(w) for v, w, t in zip(values, widths, text)).rstrip()
    return "\n".join([line([h for h, _, _ in columns])] + [line(c) for c in cells])


def flush_columns(rows):
    """The flush's columns, for results whose write runs ended with FLUSH CACHE EXT."""
    cols = []
    for prefix, label in (("", ""), ("write_", "write ")):
        if any(r.get(f"{prefix}flush_us") is not None for r in rows):
            cols.append((f"{label}flush us", f"{prefix}flush_us", "{:.1f}"))
        if any(r.get(f"{prefix}mbps_before_flush") is not None for r in rows):
            cols.append((f"{label}MB/s before flush", f"{prefix}mbps_before_flush", "{:.2f}"))
    return cols


def spread_columns(cols, rows):
    """After each rate column whose rows carry --loops spread keys, its stdev, min and max."""
    out = []
    for col in cols:
        out.append(col)
        head, key, fmt = col
        if any(r.get(f"{key}_stdev") is not None for r in rows):
            out += [(f"{head} sd", f"{key}_stdev", fmt), (f"{head} min", f"{key}_min", fmt),
                    (f"{head} max", f"{key}_max", fmt)]
    return out


def main_table(columns, rows):
    """An experiment's own table: its columns, each rate's spread over --loops, the flush's
    columns, and a verdict column ("result") kept last."""
    tail = [c for c in columns if c[1] == "result"]
    cols = spread_columns([c for c in columns if c not in tail], rows)
    return ("", cols + flush_columns(rows) + tail, rows)


def spread_tables(res):
    """The spread over --loops of a result's summary figures, when it has one."""
    p, summary = res["parameters"], res["summary"]
    if not summary.get("spread"):
        return []
    return [(f"spread over {p.get('loops')} loops (each loop's figure from the engine's "
             f"counters)", SPREAD_COLUMNS,
             [dict(v, figure=k) for k, v in summary["spread"].items()])]


def standard(columns):
    """The tables of an experiment without tables of its own: its rows, then the spread."""
    def tables(res, sys_clk_hz=None):
        return [main_table(columns, res["rows"])] + spread_tables(res)
    return tables


def latency_rows(lat):
    """latency.table_rows with the value as people read it ('<= 1.707', 'n/a (20 samples)')."""
    return [dict(r, value=latency_stats.value_text(r, lat["samples"]))
            for r in latency_stats.table_rows(lat)]
