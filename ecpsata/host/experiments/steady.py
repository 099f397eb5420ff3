# SPDX-License-Identifier: BSD-2-Clause
"""`steady`: an SSD's write performance once its spare blocks are used, as SNIA's Solid State
Storage Performance Test Specification (PTS) measures it: workload-independent preconditioning
(128 KiB sequential writes over the range twice), then rounds of the test workload (4 KiB random
writes at queue depth 32 on the queued engine by default; 128 KiB sequential writes; a 65/35
read/write mix) until steady state by the PTS rule (ecpsata/host/steady.py: over five rounds the
range within 20 % of their average and the excursion of their least-squares line within 10 %), or
the round limit. Each round's IOPS come from the queued engine's counters; the drive's
temperature and its count of sectors written are read after each round (drivestate.py).

The fresh-out-of-box (FOB) figure is one round of the test workload measured before the
preconditioning: right after a purge (`--purge SERIAL`: SANITIZE, or TRIM of everything), or on the
drive as found (`--fob`). It stands beside the steady figure with their ratio FOB / steady; without
it the ratio is round 1's (already after the preconditioning, so the drive's fresh speed is mostly
gone). A run that did not reach steady state says so, and gives no steady figure.

Destroys the data of its range (and with --purge, of the whole drive): needs --allow-write and
--range. Not part of the suite.
"""

from ecpsata.engines import common as bc
from ecpsata.host import argtypes, drivestate, measure, plots
from ecpsata.host import steady as pts
from ecpsata.host.engine import iops
from ecpsata.host.experiments import Experiment, _pts
from ecpsata.host.results import SEED, result
from ecpsata.host.target import TargetError

PRECONDITION_SECTORS = 256          # 128 KiB
PRECONDITION_PASSES = 2
# workload -> (sectors per command, random LBAs, percentage of reads or None for writes only)
WORKLOADS = {"random": (8, True, None), "sequential": (256, False, None), "mix": (8, True, 65)}
COLUMNS = [("round", "round", "{}"), ("phase", "phase", "{}"), ("IOPS", "iops", "{:.0f}"),
           ("MB/s", "mbps", "{:.2f}"),
           ("avg lat us", "lat_us", "{:.2f}"), ("temp C", "temperature_c", "{}"),
           ("drive sectors written", "drive_sectors_written", "{}"), ("window", "window", "{}")]


FOB, TEST = "FOB", "test"       # the row's phase: fresh-out-of-box round, a round of the test


def _round(s, qe, n, phase, label, seed, **run):
    """One round of the workload: its row (IOPS from the queued engine's counters, the drive's
    temperature and sectors written read after it)."""
    m = measure.repeat(s, qe, 1, measure.QUEUED, label=label, seed=seed, flush_after=s.flush,
                       **run)
    r = m["runs"][0]
    snap = drivestate.snapshot(s.target, s.ident, s.timeout)     # always: per round
    return {"round": n, "phase": phase, "iops": iops(r["completed"], r["cycles"], s.f),
            "mbps": r["mbps"], "lat_us": measure.figures(s, m)["lat_us"],
            "temperature_c": snap["temperature_c"],
            "drive_sectors_written": snap["sectors_written"], "window": ""}


def steady(s, rounds=25, commands=4096, qd=32, workload="random", precondition=True, fob=False,
           purge=None, seed=SEED):
    sectors, random, mix = WORKLOADS[workload]
    lba = s.base()
    span = s.range_count(s.capacity - lba)
    if span < PRECONDITION_SECTORS:
        raise TargetError(f"steady: the range must hold at least {PRECONDITION_SECTORS} sectors")
    if rounds < pts.WINDOW_ROUNDS:
        raise TargetError(f"steady: --rounds must be at least {pts.WINDOW_ROUNDS} (the PTS window)")
    s.check_span("steady", lba, span, write=True)
    _pts.check_serial(s, purge, "steady")
    qe = s.queued([qd], write=True)
    if mix is not None:
        qe.check_mix()
    op = "write" if mix is None else "mix"
    run = dict(op=op, lba=lba, sectors=sectors, commands=commands, qd=qd,
               lba_range=span // sectors * sectors, random=random,
               **({} if mix is None else {"read_percent": mix}))
    purged = _pts.purge_first(s, purge, "steady")
    fob = fob or purged is not None
    rows = []
    if fob:
        rows.append(_round(s, qe, 0, FOB, "steady: fresh-out-of-box round", seed, **run))
    if precondition:
        per = span // PRECONDITION_SECTORS
        for i in range(PRECONDITION_PASSES):
            s.engine.run("write", lba, PRECONDITION_SECTORS, per,
                         lba_range=per * PRECONDITION_SECTORS, random=False, lba28=s.lba28,
                         seed=seed, label=f"steady: preconditioning {i + 1}/{PRECONDITION_PASSES}")
    values, state = [], None
    for n in range(1, rounds + 1):
        rows.append(_round(s, qe, n, TEST, f"steady round {n}/{rounds}", seed + n, **run))
        values.append(rows[-1]["iops"])
        state = pts.find_steady_state(values, round_limit=rounds)
        if state.reached:
            break
    fob_iops = rows[0]["iops"] if fob else None
    summary = {"fob_iops": fob_iops, "first_round_iops": values[0],
               "steady_reached": state.reached, "rounds_run": len(values), "steady_iops": None,
               "fob_to_steady": None, "first_round_to_steady": None, "window_first": None,
               "window_last": None, "range_percent": None, "slope_excursion_percent": None,
               "purge": purged["method"] if purged else None}
    w = state.window
    if w is not None:
        summary.update(window_first=w.first, window_last=w.last,
                       range_percent=100 * w.range / w.average if w.average else None,
                       slope_excursion_percent=(100 * w.slope_excursion / w.average
                                                if w.average else None))
        for row in rows:
            if row["phase"] == TEST and w.first <= row["round"] <= w.last:
                row["window"] = "steady" if state.reached else "last"
    if state.reached:
        summary["steady_iops"] = state.average
        summary["first_round_to_steady"] = pts.fob_ratio(values[0], state)
        if fob:
            summary["fob_to_steady"] = pts.fob_ratio(fob_iops, state)
    params = {"lba": lba, "range": span, "rounds": rounds, "commands": commands,
              "queue_depth": qd, "workload": workload, "sectors": sectors,
              "read_percent": mix, "precondition": precondition, "fob": fob,
              "purge": purged is not None, "seed": seed}
    # reached: the rule's figures first; not reached: said last, where the output ends
    notes = [state.describe()] if state.reached else []
    if purged:
        notes.append(_pts.purge_note(purged))
    if fob:
        notes.append("fresh-out-of-box: one round of the workload (round 0) before the "
                     "preconditioning, " + ("right after the purge" if purged else
                                            "on the drive as found (not purged: fresh only if the "
                                            "drive was)"))
    else:
        notes.append("no fresh-out-of-box round (--fob, or --purge SERIAL for a fresh drive): "
                     "round 1 comes after the preconditioning")
    notes.append("each round: the workload on the queued engine (IOPS from its counters); the "
                 "drive's temperature and sectors written read after it (Device Statistics, "
                 "SMART)")
    if precondition:
        notes.append(f"preconditioned: {PRECONDITION_SECTORS * bc.SECTOR_BYTES // 1024} KiB "
                     f"sequential writes over the range {PRECONDITION_PASSES} times "
                     f"(SNIA PTS workload-independent preconditioning)")
    if not state.reached:
        notes.append(f"{state.describe()}: NO steady-state figure; the rounds' IOPS above are "
                     f"not a steady-state result (more --rounds, or longer rounds with "
                     f"--commands)")
    return result("steady", params, rows, summary, notes)


def headline(su):
    """The table's caption: reached or NOT, the figures and their ratio."""
    fob = f"fresh-out-of-box {su['fob_iops']:.0f} IOPS" if su["fob_iops"] is not None else None
    if not su["steady_reached"]:
        return ", ".join(x for x in (
            f"steady state NOT reached after {su['rounds_run']} rounds: no steady figure", fob,
            f"round 1 {su['first_round_iops']:.0f} IOPS") if x)
    text = (f"steady state reached (rounds {su['window_first']}-{su['window_last']}): steady "
            f"{su['steady_iops']:.0f} IOPS")
    if fob:
        return f"{text}, {fob}, FOB / steady {su['fob_to_steady']:.2f}"
    return (f"{text}, round 1 {su['first_round_iops']:.0f} IOPS, round 1 / steady "
            f"{su['first_round_to_steady']:.2f} (no fresh-out-of-box round)")


def tables(res, sys_clk_hz=None):
    return [(headline(res["summary"]), COLUMNS, res["rows"])]


def plot(axes_row, res):
    ax = axes_row[0]
    rows, su = res["rows"], res["summary"]
    test = [r for r in rows if r["phase"] == TEST]
    plots.line(ax, [r["round"] for r in test], [r["iops"] for r in test], "IOPS per round",
               "write")
    if su["window_first"] is not None:
        ax.axvspan(su["window_first"] - 0.5, su["window_last"] + 0.5, alpha=0.15,
                   label="steady-state window" if su["steady_reached"] else "last window")
    if su["steady_iops"] is not None:
        ax.axhline(su["steady_iops"], linestyle="--", linewidth=1, label="steady average")
    if su["fob_iops"] is not None:
        plots.line(ax, [0], [su["fob_iops"]], "fresh-out-of-box (before preconditioning)",
                   "first")
    ax.set_xlabel("round (0: fresh-out-of-box)" if su["fob_iops"] is not None else "round")
    ax.set_ylabel("IOPS")
    ax.set_ylim(bottom=0)
    plots.legend(ax)


def add_arguments(p):
    p.add_argument("--rounds", type=argtypes.int_in(pts.WINDOW_ROUNDS, 1000), default=25,
                   help="round limit (default 25)")
    p.add_argument("--commands", type=argtypes.int_in(1, 2**31), default=4096,
                   help="commands per round (default 4096)")
    p.add_argument("--qd", type=argtypes.int_in(1, 32), default=32, help="queue depth (32)")
    p.add_argument("--workload", choices=sorted(WORKLOADS), default="random",
                   help="random: 4 KiB random writes (default); sequential: 128 KiB sequential "
                        "writes; mix: 4 KiB random, 65 %% reads")
    p.add_argument("--no-precondition", dest="precondition", action="store_false",
                   help="skip the 128 KiB sequential preconditioning")
    p.add_argument("--fob", action="store_true",
                   help="measure one fresh-out-of-box round before the preconditioning on the "
                        "drive as found (always with --purge)")
    _pts.add_purge_argument(p)
    p.add_argument("--seed", type=argtypes.integer, default=SEED, help="LBA sequence seed")


EXPERIMENT = Experiment(
    name="steady", order=120,
    help="SSD steady state (SNIA PTS): [purge,] a fresh-out-of-box round, precondition, then "
         "rounds of 4 KiB random writes at QD 32 until five rounds agree; fresh vs steady IOPS "
         "(needs --allow-write --range)",
    title="steady state: IOPS per round after preconditioning",
    document="SNIA PTS", where="steady-state rule",
    description="With --purge or --fob, one fresh-out-of-box round of the workload first (after "
                "the purge, or on the drive as found); then preconditioning (128 KiB sequential "
                "writes over the range twice), then rounds of "
                "the workload on the queued engine until the PTS steady-state rule holds over "
                "five rounds (range within 20 % of their average, least-squares excursion within "
                "10 %) or the round limit; each round's IOPS from the engine's counters, the "
                "drive's temperature and sectors written read after it.",
    run=steady, add_arguments=add_arguments,
    kwargs=("rounds", "commands", "qd", "workload", "precondition", "fob", "purge", "seed"),
    readme=(("steady --allow-write --range LBA:COUNT [--rounds N] [--workload W] [--fob] "
             "[--purge SERIAL]",
             "SSD steady state as SNIA's PTS measures it: a fresh-out-of-box round (after a purge, "
             "or on the drive as found), preconditioning, rounds until five agree, FOB vs steady "
             "IOPS and their ratio, the drive's temperature per round; says when steady state was "
             "not reached"),),
    tables=tables, plot=plot, writes=lambda args: True)
