# SPDX-License-Identifier: BSD-2-Clause
"""`steady`: an SSD's write performance once its spare blocks are used, as SNIA's Solid State
Storage Performance Test Specification (PTS) measures it: workload-independent preconditioning
(128 KiB sequential writes over the range twice), then rounds of the test workload (4 KiB random
writes at queue depth 32 on the queued engine by default; 128 KiB sequential writes; a 65/35
read/write mix) until steady state by the PTS rule (ecpsata/host/steady.py: over five rounds the
range within 20 % of their average and the excursion of their least-squares line within 10 %), or
the round limit. Each round's IOPS come from the queued engine's counters; the drive's
temperature and its count of sectors written are read after each round (drivestate.py). The
fresh-out-of-box figure (round 1) stands beside the steady one, with their ratio; a run that did
not reach steady state says so. Purge the drive first (`ecpsata purge`) for a fresh start.

Destroys the data of its range: needs --allow-write and --range. Not part of the suite.
"""

from ecpsata.engines import common as bc
from ecpsata.host import argtypes, drivestate, measure, plots
from ecpsata.host import steady as pts
from ecpsata.host.engine import iops
from ecpsata.host.experiments import Experiment
from ecpsata.host.results import SEED, result
from ecpsata.host.target import TargetError

PRECONDITION_SECTORS = 256          # 128 KiB
PRECONDITION_PASSES = 2
# workload -> (sectors per command, random LBAs, percentage of reads or None for writes only)
WORKLOADS = {"random": (8, True, None), "sequential": (256, False, None), "mix": (8, True, 65)}
COLUMNS = [("round", "round", "{}"), ("IOPS", "iops", "{:.0f}"), ("MB/s", "mbps", "{:.2f}"),
           ("avg lat us", "lat_us", "{:.2f}"), ("temp C", "temperature_c", "{}"),
           ("drive sectors written", "drive_sectors_written", "{}"), ("window", "window", "{}")]


def steady(s, rounds=25, commands=4096, qd=32, workload="random", precondition=True, seed=SEED):
    sectors, random, mix = WORKLOADS[workload]
    lba = s.base()
    span = s.range_count(s.capacity - lba)
    if span < PRECONDITION_SECTORS:
        raise TargetError(f"steady: the range must hold at least {PRECONDITION_SECTORS} sectors")
    if rounds < pts.WINDOW_ROUNDS:
        raise TargetError(f"steady: --rounds must be at least {pts.WINDOW_ROUNDS} (the PTS window)")
    s.check_span("steady", lba, span, write=True)
    qe = s.queued([qd], write=True)
    if mix is not None:
        qe.check_mix()
    if precondition:
        per = span // PRECONDITION_SECTORS
        for i in range(PRECONDITION_PASSES):
            s.engine.run("write", lba, PRECONDITION_SECTORS, per,
                         lba_range=per * PRECONDITION_SECTORS, random=False, lba28=s.lba28,
                         seed=seed, label=f"steady: preconditioning {i + 1}/{PRECONDITION_PASSES}")
    rows, values, state = [], [], None
    op = "write" if mix is None else "mix"
    asked = {} if mix is None else {"read_percent": mix}
    for n in range(1, rounds + 1):
        m = measure.repeat(s, qe, 1, measure.QUEUED, op=op, lba=lba, sectors=sectors,
                           commands=commands, qd=qd, lba_range=span // sectors * sectors,
                           random=random, seed=seed + n, flush_after=s.flush,
                           label=f"steady round {n}/{rounds}", **asked)
        r = m["runs"][0]
        snap = drivestate.snapshot(s.target, s.ident, s.timeout)     # always: per round
        row = {"round": n, "iops": iops(r["completed"], r["cycles"], s.f), "mbps": r["mbps"],
               "lat_us": measure.figures(s, m)["lat_us"], "temperature_c": snap["temperature_c"],
               "drive_sectors_written": snap["sectors_written"], "window": ""}
        rows.append(row)
        values.append(row["iops"])
        state = pts.find_steady_state(values, round_limit=rounds)
        if state.reached:
            break
    summary = {"fob_iops": values[0], "steady_reached": state.reached,
               "rounds_run": len(values), "steady_iops": None, "fob_to_steady": None,
               "window_first": None, "window_last": None, "range_percent": None,
               "slope_excursion_percent": None}
    w = state.window
    if w is not None:
        summary.update(window_first=w.first, window_last=w.last,
                       range_percent=100 * w.range / w.average if w.average else None,
                       slope_excursion_percent=(100 * w.slope_excursion / w.average
                                                if w.average else None))
        for row in rows[w.first - 1:w.last]:
            row["window"] = "steady" if state.reached else "last"
    if state.reached:
        summary["steady_iops"] = state.average
        summary["fob_to_steady"] = pts.fob_ratio(values[0], state)
    params = {"lba": lba, "range": span, "rounds": rounds, "commands": commands,
              "queue_depth": qd, "workload": workload, "sectors": sectors,
              "read_percent": mix, "precondition": precondition, "seed": seed}
    notes = [state.describe(),
             "each round: the workload on the queued engine (IOPS from its counters); the drive's "
             "temperature and sectors written read after it (Device Statistics, SMART)"]
    if precondition:
        notes.append(f"preconditioned: {PRECONDITION_SECTORS * bc.SECTOR_BYTES // 1024} KiB "
                     f"sequential writes over the range {PRECONDITION_PASSES} times "
                     f"(SNIA PTS workload-independent preconditioning)")
    return result("steady", params, rows, summary, notes)


def tables(res, sys_clk_hz=None):
    su = res["summary"]
    head = (f"steady state {'reached' if su['steady_reached'] else 'NOT reached'}: "
            f"fresh {su['fob_iops']:.0f} IOPS" +
            (f", steady {su['steady_iops']:.0f} IOPS (rounds {su['window_first']}-"
             f"{su['window_last']}), fresh / steady {su['fob_to_steady']:.2f}"
             if su["steady_reached"] else f" after {su['rounds_run']} rounds"))
    return [(head, COLUMNS, res["rows"])]


def plot(axes_row, res):
    ax = axes_row[0]
    rows, su = res["rows"], res["summary"]
    plots.line(ax, [r["round"] for r in rows], [r["iops"] for r in rows], "IOPS per round",
               "write")
    if su["window_first"] is not None:
        ax.axvspan(su["window_first"] - 0.5, su["window_last"] + 0.5, alpha=0.15,
                   label="steady-state window" if su["steady_reached"] else "last window")
    if su["steady_iops"] is not None:
        ax.axhline(su["steady_iops"], linestyle="--", linewidth=1, label="steady average")
    ax.set_xlabel("round")
    ax.set_ylabel("IOPS")
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
    p.add_argument("--seed", type=argtypes.integer, default=SEED, help="LBA sequence seed")


EXPERIMENT = Experiment(
    name="steady", order=120,
    help="SSD steady state (SNIA PTS): precondition, then rounds of 4 KiB random writes at QD 32 "
         "until five rounds agree; fresh vs steady IOPS (needs --allow-write --range)",
    title="steady state: IOPS per round after preconditioning",
    document="SNIA PTS", where="steady-state rule",
    description="Preconditioning (128 KiB sequential writes over the range twice), then rounds of "
                "the workload on the queued engine until the PTS steady-state rule holds over "
                "five rounds (range within 20 % of their average, least-squares excursion within "
                "10 %) or the round limit; each round's IOPS from the engine's counters, the "
                "drive's temperature and sectors written read after it.",
    run=steady, add_arguments=add_arguments,
    kwargs=("rounds", "commands", "qd", "workload", "precondition", "seed"),
    readme=(("steady --allow-write --range LBA:COUNT [--rounds N] [--workload W]",
             "SSD steady state as SNIA's PTS measures it: preconditioning, rounds until five "
             "agree, fresh-out-of-box vs steady IOPS, the drive's temperature per round"),),
    tables=tables, plot=plot, writes=lambda args: True)
