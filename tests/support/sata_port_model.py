# SPDX-License-Identifier: BSD-2-Clause
"""A Python model of a LiteSATA user port (command + transport + drive) for Migen tests.

It plays the crossbar's side of `crossbar.get_port()`: takes commands on `port.sink`, answers on
`port.source` with the beat sequence LiteSATA's command layer produces (litesata/core/command.py):
- read: the command beat (last=1) is accepted, then data beats (read=1, end=0, last=1 at the end
  of every Data FIS of `fis_dwords`), then one status beat (read=1, end=1, last=1, failed);
- write: the packet of count*128 dwords is accepted (after `latency`, with random backpressure,
  as Data FISes after DMA Activate), then one status beat (write=1, end=1, last=1, failed).

Timing knobs: `accept_delay` (command presented -> accepted, reads), `latency` (command presented
-> first data offered), `status_latency` (last data -> status), `rate` (probability a read dword
is offered in a cycle), `ready_rate` (probability the port takes a write dword). Faults:
`fail` (command indices answered failed=1), `fail_early` (writes answered failed before any data,
the rest of the packet drained, as ecpsata/core/command.py does), `hang` (never answered),
`corrupt` {(lba, dword): xor}.

Every transfer is recorded at the clock edge where it happens (the edge the gateware's sync logic
sees it), so latencies computed from `log` are in the engine's cycle units.
"""

import random

from migen.sim.core import Simulator

from ecpsata.engines.common import SECTOR_DWORDS, pattern_sector
from tests.support.migen_speed import widths_cached


class SATAPortModel:
    def __init__(self, port, latency=12, accept_delay=2, status_latency=3, rate=1.0,
                 ready_rate=1.0, fis_dwords=2048, fail=(), fail_early=(), hang=(), corrupt=None,
                 disk=None, default_seed=None, rng_seed=0):
        self.port           = port
        self.latency        = latency
        self.accept_delay   = accept_delay
        self.status_latency = status_latency
        self.rate           = rate
        self.ready_rate     = ready_rate
        self.fis_dwords     = fis_dwords
        self.fail           = set(fail)
        self.fail_early     = set(fail_early)
        self.hang           = set(hang)
        self.corrupt        = dict(corrupt or {})
        self.disk           = {} if disk is None else disk      # lba -> list of 128 dwords
        self.default_seed   = default_seed                      # unwritten sectors: pattern
        self.rng            = random.Random(rng_seed)
        self.cycle          = 0
        self.log            = []
        self.violations     = []

    # Helpers ---------------------------------------------------------------------------------------

    def tick(self):
        yield
        self.cycle += 1

    def sector(self, lba):
        if lba in self.disk:
            return list(self.disk[lba])
        if self.default_seed is not None:
            return pattern_sector(self.default_seed, lba)
        return [0]*SECTOR_DWORDS

    def send(self, beats, rate=1.0):
        """Offer beats on port.source; returns the edges at which they were transferred."""
        source, edges, k = self.port.source, [], 0
        while k < len(beats):
            if self.rng.random() < rate:
                for f, v in beats[k].items():
                    yield getattr(source, f).eq(v)
                yield source.valid.eq(1)
            else:
                yield source.valid.eq(0)
            yield from self.tick()
            if (yield source.valid):
                if (yield source.ready):
                    edges.append(self.cycle)
                    k += 1
                else:
                    self.violations.append(("source backpressured", self.cycle))
        yield source.valid.eq(0)
        return edges

    def wait_until(self, edge):
        while self.cycle < edge:
            yield from self.tick()

    # Main loop -------------------------------------------------------------------------------------

    def generator(self):
        sink = self.port.sink
        while True:
            if (yield sink.valid):
                yield from self.command(len(self.log))
            else:
                yield from self.tick()

    def command(self, index):
        sink, source = self.port.sink, self.port.source
        entry = dict(index=index, issue=self.cycle,
                     write=(yield sink.write), read=(yield sink.read),
                     lba=(yield sink.sector), count=(yield sink.count) or 65536,
                     lba28=(yield sink.lba28) if hasattr(sink, "lba28") else 0,
                     failed=int(index in self.fail or index in self.fail_early),
                     first_data=None, status=None)
        self.log.append(entry)
        n = entry["count"]*SECTOR_DWORDS

        if index in self.hang:
            # Never answer: wait for the engine to give up (valid low), take nothing.
            while (yield sink.valid):
                yield from self.tick()
            return

        if entry["write"]:
            if index in self.fail_early:
                yield from self.wait_until(entry["issue"] + self.latency)
                entry["status"] = (yield from self.send([self.status_beat(entry)]))[0]
            else:
                yield from self.wait_until(entry["issue"] + self.latency)
            data = []
            while len(data) < n:
                take = index in self.fail_early or self.rng.random() < self.ready_rate
                yield sink.ready.eq(int(take))
                yield from self.tick()
                if (yield sink.valid) and (yield sink.ready):
                    if entry["first_data"] is None and index not in self.fail_early:
                        entry["first_data"] = self.cycle     # drained beats are not data
                    data.append((yield sink.data))
                    if (yield sink.last) != int(len(data) == n):
                        self.violations.append(("write last", self.cycle, len(data)))
                    if (yield sink.sector) != entry["lba"] or not (yield sink.write):
                        self.violations.append(("write params changed", self.cycle))
                elif not (yield sink.valid):
                    self.violations.append(("write valid dropped", self.cycle))
            yield sink.ready.eq(0)
            if index in self.fail_early:
                yield from self.tick()
                return
            for s in range(entry["count"]):
                self.disk[entry["lba"] + s] = data[s*SECTOR_DWORDS:(s + 1)*SECTOR_DWORDS]
            yield from self.wait_until(self.cycle + self.status_latency)
            entry["status"] = (yield from self.send([self.status_beat(entry)]))[0]
            return

        # Read: accept the command beat, then data, then status.
        yield from self.wait_until(entry["issue"] + self.accept_delay)
        yield sink.ready.eq(1)
        yield from self.tick()
        if not ((yield sink.valid) and (yield sink.last)):
            self.violations.append(("read command beat", self.cycle))
        entry["accepted"] = self.cycle
        yield sink.ready.eq(0)
        yield from self.wait_until(entry["issue"] + self.latency)
        beats = []
        for s in range(entry["count"]):
            lba = entry["lba"] + s
            for i, d in enumerate(self.sector(lba)):
                d ^= self.corrupt.get((lba, i), 0)
                k = s*SECTOR_DWORDS + i
                beats.append(dict(data=d, read=1, write=0, end=0, failed=0,
                                  last=int((k + 1) % self.fis_dwords == 0 or k + 1 == n)))
        edges = yield from self.send(beats, self.rate)
        entry["first_data"] = edges[0]
        yield from self.wait_until(self.cycle + self.status_latency)
        entry["status"] = (yield from self.send([self.status_beat(entry)]))[0]

    def status_beat(self, entry):
        return dict(data=0, last=1, end=1, read=entry["read"], write=entry["write"],
                    failed=entry["failed"])

    # Expected measurements ------------------------------------------------------------------------

    def stats(self, entries=None):
        """min/max/sum/count of latency, first data and gap over `entries` (default: all)."""
        entries = self.log if entries is None else entries
        done = [e for e in entries if e["status"] is not None]
        lat  = [e["status"] - e["issue"] for e in done]
        fd   = [e["first_data"] - e["issue"] for e in done if e["first_data"] is not None]
        gap  = [b["first_data"] - a["status"] for a, b in zip(entries, entries[1:])
                if a["status"] is not None and b["first_data"] is not None]

        def mms(v):
            return (min(v), max(v), sum(v), len(v)) if v else (0, 0, 0, 0)
        return dict(lat=mms(lat), first_data=mms(fd), gap=mms(gap), lat_values=lat,
                    first_data_values=fd, gap_values=gap)


# Simulation helper -------------------------------------------------------------------------------

def run_sorted_simulation(dut, generators, vcd_name=None):
    """run_simulation with the comb statements in dependency order.

    Migen's simulator executes the whole comb list again until no signal changes, so a design whose
    statements are listed consumers-first needs many passes per cycle. Sorting producers first
    (keeping the original order between statements driving the same signal, which decides the
    winner) makes most cycles settle in two passes: the behaviour is the same, only faster."""
    import heapq
    from migen.fhdl.tools import list_targets, list_signals

    frag = dut.get_fragment()
    stmts = frag.comb
    n = len(stmts)
    targets = [list_targets(s) for s in stmts]
    reads = [list_signals(s) - t for s, t in zip(stmts, targets)]
    producers = {}
    for i, t in enumerate(targets):
        for sig in t:
            producers.setdefault(sig, []).append(i)
    succ = [set() for _ in range(n)]
    for j, r in enumerate(reads):
        for sig in r:
            for i in producers.get(sig, ()):
                if i != j:
                    succ[i].add(j)
    for idx in producers.values():
        for a, b in zip(idx, idx[1:]):
            succ[a].add(b)
    indeg = [0]*n
    for i in range(n):
        for j in succ[i]:
            indeg[j] += 1
    heap = [i for i in range(n) if indeg[i] == 0]
    heapq.heapify(heap)
    order, placed = [], [False]*n
    while len(order) < n:
        if not heap:                      # a false loop between statements: take the earliest
            i = min(k for k in range(n) if not placed[k])
            indeg[i] = 0
            heapq.heappush(heap, i)
        i = heapq.heappop(heap)
        if placed[i]:
            continue
        placed[i] = True
        order.append(i)
        for j in succ[i]:
            indeg[j] -= 1
            if indeg[j] == 0 and not placed[j]:
                heapq.heappush(heap, j)
    frag.comb = [stmts[i] for i in order]
    with Simulator(frag, generators, vcd_name=vcd_name) as sim, widths_cached():
        sim.run()
