# SPDX-License-Identifier: BSD-2-Clause
"""The queued command layer (ecpsata/core/ncq/) in our core, against the virtual drive's NCQ
(ecpsata/sim/vdrive/src/ncq.c), in Migen: the user side of ECPSATANCQ as a Python model (``Host``)."""

import random

from migen import *

from tests.support.core_harness import wait_ready
from tests.support.phy_harness import now_ns, run_word_sim
from tests.support.phy_link_harness import PHYDUT, drive_process

IDEAL = "persona=ideal,ncq=1,capacity=8192,cominit_interval_us=0"
SYS_MHZ = 100


def ncq_dut(sys_mhz=SYS_MHZ, **phy_kwargs):
    """The PHY and the core with its queued layer, for sys at ``sys_mhz`` (run the simulation
    with ``sys_period=sys_period(sys_mhz)``)."""
    from ecpsata.core.core import ECPSATACore
    dut = PHYDUT(sys_clk_freq=sys_mhz*1e6, **phy_kwargs)
    dut.core = ResetInserter()(ECPSATACore(dut.phy, sys_mhz*1e6, ncq=True, settle_time=50e-6))
    return dut


def pattern(lba, count, seed=0):
    """Dwords of ``count`` sectors from ``lba``: distinct per sector and per seed."""
    return [((lba*128 + i)*0x9E3779B1 + seed*0x85EBCA6B) & 0xFFFFFFFF for i in range(count*128)]


def to_bytes(words):
    return b"".join(w.to_bytes(4, "little") for w in words)


class Host:
    """The user side of the queued layer: issues commands, takes read data (random ready), answers
    write requests (random gaps), and records completions and error reports with their times."""
    def __init__(self, dut, seed=1, ready_rate=0.8, timeout_us=200, answer_writes=True):
        self.dut, self.ncq = dut, dut.core.ncq
        self.answer_writes = answer_writes      # False: write requests are never taken
        self.rng = random.Random(seed)
        self.ready_rate = ready_rate
        self.timeout_us = timeout_us
        self.write_data = {}        # tag -> dwords of its transfer
        self.read_data = {}         # tag -> dwords received
        self.read_order = []        # tags in the order their last dword came
        self.read_errors = 0
        self.wr_reqs = []           # (tag, offset, dwords)
        self.done = []              # (time ns, mask)
        self.errors = []            # dict per error report
        self.issued = {}            # tag -> (write, lba, count)
        self.refused = 0            # non-queued commands refused

    def monitor(self):
        ncq = self.ncq
        yield "passive"
        while True:
            yield ncq.rd_source.ready.eq(int(self.rng.random() < self.ready_rate))
            yield
            if (yield ncq.rd_source.valid) and (yield ncq.rd_source.ready):
                tag = yield ncq.rd_source.tag
                self.read_data.setdefault(tag, []).append((yield ncq.rd_source.data))
                self.read_errors += yield ncq.rd_source.error
                if (yield ncq.rd_source.last):
                    self.read_order.append(tag)
            self.refused += yield self.dut.core.ncq_share.refused
            mask = yield ncq.done
            if mask:
                self.done.append((now_ns(), mask))
            if (yield ncq.error):
                self.errors.append(dict(
                    t_ns=now_ns(),
                    reason=(yield ncq.error_reason), tag=(yield ncq.error_tag),
                    tag_valid=(yield ncq.error_tag_valid), lba=(yield ncq.error_lba),
                    count=(yield ncq.error_count), status=(yield ncq.error_status),
                    error=(yield ncq.error_error), aborted=(yield ncq.aborted)))

    def writer(self):
        ncq = self.ncq
        yield "passive"
        yield ncq.wr_req.ready.eq(int(self.answer_writes))
        while True:
            yield
            if not ((yield ncq.wr_req.valid) and (yield ncq.wr_req.ready)):
                continue
            req = ((yield ncq.wr_req.tag), (yield ncq.wr_req.offset), (yield ncq.wr_req.dwords))
            self.wr_reqs.append(req)
            yield ncq.wr_req.ready.eq(0)
            tag, offset, n = req
            words = self.write_data[tag][offset:offset + n]
            for i, w in enumerate(words):
                while self.rng.random() < 0.2:
                    yield ncq.wr_sink.valid.eq(0)
                    yield
                yield ncq.wr_sink.data.eq(w)
                yield ncq.wr_sink.last.eq(int(i == n - 1))
                yield ncq.wr_sink.valid.eq(1)
                yield
                while not (yield ncq.wr_sink.ready):
                    yield
            yield ncq.wr_sink.valid.eq(0)
            yield ncq.wr_req.ready.eq(1)

    def issue(self, write, lba, count, tag, fua=0, seed=0):
        """Presents one queued command; returns once it is taken."""
        s = self.ncq.sink
        if write:
            self.write_data[tag] = pattern(lba, count, seed)
        self.read_data.pop(tag, None)
        self.issued[tag] = (write, lba, count)
        for k, v in dict(write=write, lba=lba, count=count, tag=tag, fua=fua).items():
            yield getattr(s, k).eq(v)
        yield s.valid.eq(1)
        t0 = now_ns()
        yield
        while not (yield s.ready):
            assert now_ns() - t0 < self.timeout_us*1e3, f"tag {tag} not taken"
            yield
        yield s.valid.eq(0)
        yield

    def completed(self):
        m = 0
        for _, mask in self.done:
            m |= mask
        return m

    def wait_idle(self):
        """Until nothing is outstanding and the layer is idle."""
        t0 = now_ns()
        yield
        while (yield self.ncq.busy):
            assert now_ns() - t0 < self.timeout_us*1e3, \
                f"queue busy, outstanding {(yield self.ncq.outstanding):08x}"
            yield
        for _ in range(4):
            yield


def run(dut, drive, host, main, extra=()):
    """Runs the drive, ``main`` (a generator function, after the link is up), the host model and
    the ``extra`` sys generators until ``main`` returns."""
    def drv():
        yield "passive"
        yield from drive_process(dut, drive)
    def top():
        yield dut.core.ncq.timeout.eq(100*SYS_MHZ)          # 100 us of silence
        yield from wait_ready(dut)
        yield from main()
        for _ in range(3*SYS_MHZ):                          # the drive sees its last R_OK
            yield
    run_word_sim(dut, {"sys": [top(), host.monitor(), host.writer(), *extra], "sata_tx": drv()},
                 dut.serdes.word_ce)


def check_reads(host, drive, tags):
    for tag in tags:
        write, lba, count = host.issued[tag]
        assert not write
        assert host.read_data.get(tag) == pattern(lba, count, seed=7), f"tag {tag} data"
