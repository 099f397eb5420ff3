# SPDX-License-Identifier: BSD-2-Clause
"""A model of the queued benchmark engine (CSRs `sata_qbench_*`) for FakeSATATarget.

The register layout is the one the queued engine's specification gives (control, config, qd, the
counters, the NCQ error report, the latency histogram, the snapshot); field offsets reach the host
through csr_fields.json as for every other block, so the host never depends on the offsets chosen
here. The histogram holds the same samples as lat_min/max/sum/count, in the gateware's log2
buckets (ecpsata/engines/common.py `hist_bucket`).
"""

import heapq

import functools

from ecpsata.engines import common as bc

@functools.lru_cache(maxsize=None)
def qbench_csrs():
    """The queued engine's registers as the gateware declares them (name, bits, mode, fields)."""
    from ecpsata.engines.queued import ECPSATAQueuedBenchEngine
    from ecpsata.core.ncq import ECPSATANCQ
    from tests.support.fake_target import gateware_csrs
    return gateware_csrs(ECPSATAQueuedBenchEngine(ECPSATANCQ(), 100e6))


COUNTERS = ("cycles", "bytes", "completed", "errors", "last_lba", "lat_min", "lat_max", "lat_sum",
            "lat_count", "depth_max", "ncq_errors", "ncq_reason", "ncq_tag", "ncq_lba", "reissued")
SNAPSHOT = ("cycles", "bytes", "completed", "errors")


class BusyRun:
    """Control, status and snapshot behaviour the fake engines share: control pulses abort,
    clear and start (a start while busy is ignored, as in the gateware); a started run answers
    busy for model.busy_reads status reads, then its final (state, reason); each snapshot moves
    the live counters one step further from their start to their end values. CONTROL names the
    control register; the class gives field(), _set_state(), _clear() and _start()."""
    def _control(self, value):
        f = lambda n: self.field(self.CONTROL, n, value)
        if f("abort") and self._busy_left:
            self._busy_left = 0
            self._set_state(bc.STATE_DONE, bc.REASON_ABORTED)
        if f("clear"):
            self._clear()
            self._set_state(bc.STATE_IDLE, bc.REASON_OK)
        if f("start") and not self._busy_left:
            self._start()

    def _status(self):
        if self._busy_left:
            self._busy_left -= 1
            if not self._busy_left:
                self._set_state(*self._final)
        return self._status_word

    def _snap_step(self):
        """(steps done, steps) at this snapshot."""
        total = max(self.model.busy_reads, 1)
        self._snaps = min(self._snaps + 1, total) if self._busy_left else total
        return self._snaps, total


class QueuedModel:
    """What the fake drive does with queued commands, in sys cycles.

    | rule | value |
    | --- | --- |
    | service time of a command of n sectors | first_data + n * cycles_per_sector |
    | commands the drive serves at once | `parallel`, in the order issued |
    | when the engine issues | at start up to qd commands, then one per completion (lowest free tag) |
    | issue, Set Device Bits | take no time |

    So with p = min(qd, parallel), n commands take ceil(n / p) * service cycles, and each command's
    latency is `service` while qd <= parallel. Faults: `fail_command` (index in the run) ends with
    an NCQ error (`fail_reason`, an NCQ_REASONS code) and the drive aborts up to `aborted` of the
    other commands in flight, which the engine re-issues (the model gives re-issues no time);
    `timeout` and `drop_link` end the next run as the gateware does."""
    def __init__(self, parallel=8, first_data=1000, cycles_per_sector=256, busy_reads=0):
        self.parallel = parallel
        self.first_data = first_data
        self.cycles_per_sector = cycles_per_sector
        self.busy_reads = busy_reads     # status reads that answer busy per start
        self.fail_command = None
        self.fail_reason = 1
        self.aborted = 3
        self.timeout = False
        self.drop_link = False

    def service(self, sectors):
        return self.first_data + sectors * self.cycles_per_sector

    def schedule(self, commands, sectors, qd):
        """[(issue, complete, tag)] of each command, in issue order."""
        service, servers = self.service(sectors), [0] * self.parallel
        in_flight, free, t, out = [], list(range(qd)), 0, []
        for _ in range(commands):
            if not free:
                t = max(t, in_flight[0][0])
            while in_flight and in_flight[0][0] <= t:
                free.append(heapq.heappop(in_flight)[1])
            free.sort()
            tag = free.pop(0)
            done = max(t, heapq.heappop(servers)) + service
            heapq.heappush(servers, done)
            heapq.heappush(in_flight, (done, tag))
            out.append((t, done, tag))
        return out


class QueuedEngineFake(BusyRun):
    """The `sata_qbench_*` registers of a FakeSATATarget, driven by a QueuedModel. `runs` holds
    the parameters of every start, as the target's `runs` does for `sata_bench_*`."""
    P = "sata_qbench_"
    CONTROL = P + "control"

    def __init__(self, target, model):
        self.t, self.model = target, model
        self.runs = []
        self._busy_left, self._final, self._snaps = 0, None, 0
        self._status_word = 0
        self.hist = [0] * bc.HIST_BUCKETS
        target._hook(self.P + "control", self._control)
        target._hook(self.P + "snapshot", self._snapshot)
        target._hook(self.P + "hist_select", self._hist_select)
        target.comm.read_hooks[target.addr(self.P + "status")] = self._status
        self.set("config", self.t.pack(self.P + "config", stop_on_error=1))   # reset value

    def get(self, name):
        return self.t.get(self.P + name)

    def set(self, name, value):
        self.t.set(self.P + name, value)

    def field(self, reg, name, value):
        return self.t.field(reg, name, value)

    def config(self):
        word = self.get("config")
        return {n: self.t.field(self.P + "config", n, word) for n in self.t.fields[self.P + "config"]}

    def _set_state(self, state, reason):
        self._status_word = self.t.pack(self.P + "status", state=state, reason=reason)

    def _clear(self):
        for name in COUNTERS + tuple("snap_" + n for n in SNAPSHOT):
            self.set(name, 0)
        self.hist = [0] * bc.HIST_BUCKETS

    def _refused(self, cfg, p):
        return (cfg["op"] not in bc.QUEUED_OPS.values() or not 1 <= p["qd"] <= bc.QD_MAX or
                not 1 <= p["sectors"] <= bc.MAX_SECTORS or p["commands"] == 0 or
                p["lba_range"] < p["sectors"] or p["lba_base"] + p["lba_range"] > p["capacity"])

    def _start(self):
        cfg = self.config()
        p = {n: self.get(n) for n in ("qd", "lba_base", "lba_range", "sectors", "commands", "seed",
                                      "capacity", "timeout")}
        self.runs.append(dict(cfg, **p))
        self._clear()
        if self._refused(cfg, p):
            self._set_state(bc.STATE_ERROR, bc.REASON_REFUSED)
            return
        reason = self._run(cfg, p)
        self._final = (bc.STATE_ERROR if reason else bc.STATE_DONE, reason)
        self._snap_target = {n: self.get(n) for n in SNAPSHOT}
        self._snaps = 0
        self._busy_left = self.model.busy_reads
        if self._busy_left:
            self._set_state(bc.STATE_BUSY, bc.REASON_OK)
        else:
            self._set_state(*self._final)

    def _run(self, cfg, p):
        m, n, sectors = self.model, p["commands"], p["sectors"]
        if m.drop_link:
            m.drop_link = False
            self.t.drop_link()
            return bc.REASON_LINK_LOST
        if m.timeout:
            m.timeout = False
            return bc.REASON_TIMEOUT
        lbas = (bc.random_lbas(p["seed"], p["lba_base"], p["lba_range"], sectors, n) if cfg["random"]
                else bc.sequential_lbas(p["lba_base"], p["lba_range"], sectors, n))
        sched = m.schedule(n, sectors, p["qd"])
        fail, reason = m.fail_command, bc.REASON_OK
        if fail is not None and fail < n:
            m.fail_command = None
            end = sched[fail][1]
            others = sum(1 for k, (i, c, _) in enumerate(sched) if k != fail and i < end < c)
            self.set("errors", 1)
            self.set("ncq_errors", 1)
            self.set("ncq_reason", m.fail_reason)
            self.set("ncq_tag", self.t.pack(self.P + "ncq_tag", tag=sched[fail][2], valid=1))
            self.set("ncq_lba", lbas[fail])
            self.set("reissued", min(m.aborted, others))
            if cfg["stop_on_error"]:
                sched = [s for k, s in enumerate(sched) if k <= fail or s[0] < end]
                reason = bc.REASON_DEVICE_ERROR
        lat = [c - i for i, c, _ in sched]
        done = len(sched)
        self.set("cycles", max(c for _, c, _ in sched))
        self.set("bytes", (done - self.get("errors")) * sectors * bc.SECTOR_BYTES)
        self.set("completed", done)
        self.set("last_lba", lbas[done - 1])
        for name, value in (("min", min(lat)), ("max", max(lat)), ("sum", sum(lat)),
                            ("count", len(lat))):
            self.set("lat_" + name, value)
        for value in lat:               # the same samples as lat_*
            self.hist[bc.hist_bucket(value)] += 1
        events = sorted([(i, 1) for i, _, _ in sched] + [(c, -1) for _, c, _ in sched])
        depth = peak = 0
        for _, step in events:          # completions sort before issues at the same cycle
            depth += step
            peak = max(peak, depth)
        self.set("depth_max", peak)
        return reason

    def _hist_select(self, value):
        self.set("hist_select", value)
        self.set("hist_data", self.hist[value % bc.HIST_BUCKETS])

    def _snapshot(self, value):
        """snap_* move from 0 to the final counters over the busy reads."""
        if not self._final:
            return
        done, total = self._snap_step()
        for name in SNAPSHOT:
            self.set("snap_" + name, self._snap_target[name] * done // total)
