# SPDX-License-Identifier: BSD-2-Clause
"""ecpsata/engines/queued.py against a model of the queued layer's user side (ECPSATANCQ's ports,
ecpsata/core/ncq/), in Migen: reports the virtual drive cannot produce, here DATA_CRC (a tag whose
Data FIS failed and that the drive completed anyway: the layer reports it with its tag and nothing
aborted; the other tags stay outstanding)."""

import pytest
from migen import *

from litex.soc.interconnect import stream

from ecpsata.core.common import NCQ_REASON
from ecpsata.engines import common as bc
from tests.engines.test_queued import start_run, wait_end, results

SYS_MHZ = 100


class LayerModel(Module):
    """ECPSATANCQ's user-side signals, driven by `layer` below."""
    def __init__(self):
        from ecpsata.core.ncq import (ncq_command_description, ncq_read_description,
                                      ncq_write_request_description)
        self.sink      = stream.Endpoint(ncq_command_description())
        self.rd_source = stream.Endpoint(ncq_read_description())
        self.wr_req    = stream.Endpoint(ncq_write_request_description())
        self.wr_sink   = stream.Endpoint([("data", 32)])
        self.outstanding = Signal(32)
        self.done        = Signal(32)
        self.error           = Signal()
        self.error_reason    = Signal(4)
        self.error_tag       = Signal(5)
        self.error_tag_valid = Signal()
        self.error_lba       = Signal(48)
        self.error_count     = Signal(16)
        self.error_status    = Signal(8)
        self.error_error     = Signal(8)
        self.aborted         = Signal(32)
        self.timeout   = Signal(32)
        self.wr_sent   = Signal()


class DUT(Module):
    def __init__(self):
        from ecpsata.engines.queued import ECPSATAQueuedBenchEngine
        self.submodules.ncq = LayerModel()
        self.submodules.engine = ECPSATAQueuedBenchEngine(self.ncq, SYS_MHZ*1e6)


def layer(ncq, log, crc_command, latency=40):
    """Takes each command, completes it `latency` cycles later with ``done``, except the
    `crc_command`-th taken (0-based): that one is reported as DATA_CRC (its tag, aborted 0) and
    never in ``done``, as ECPSATANCQ does. `log` gets the commands taken, (tag, lba)."""
    yield "passive"
    pending = {}                                    # tag -> cycle it completes
    cycle = 0
    yield ncq.sink.ready.eq(1)
    while True:
        if (yield ncq.sink.valid) and (yield ncq.sink.ready):
            tag = yield ncq.sink.tag
            assert tag not in pending, f"tag {tag} issued while outstanding"
            pending[tag] = (cycle + latency + 3*len(log), len(log))
            log.append((tag, (yield ncq.sink.lba)))
        due = [t for t, (c, _) in pending.items() if c <= cycle]
        done, crc = 0, None
        for t in due:
            if pending[t][1] == crc_command and crc is None:
                crc = t
            else:
                done |= 1 << t
        for t in due:
            if t != crc and not done >> t & 1:
                continue
            del pending[t]
        if crc is not None:
            # the report, then the other completions the next cycle (one event per cycle)
            yield ncq.error.eq(1)
            yield ncq.error_reason.eq(NCQ_REASON["DATA_CRC"])
            yield ncq.error_tag.eq(crc)
            yield ncq.error_tag_valid.eq(1)
            yield ncq.aborted.eq(0)
            yield ncq.done.eq(0)
            for t in range(32):
                if done >> t & 1:
                    pending[t] = (cycle + 1, -1)
        else:
            yield ncq.error.eq(0)
            yield ncq.done.eq(done)
        out = 0
        for t in pending:
            out |= 1 << t
        yield ncq.outstanding.eq(out)
        yield
        cycle += 1


@pytest.mark.parametrize("stop_on_error", [1, 0])
def test_a_data_crc_report_fails_its_command_only(stop_on_error):
    """8 reads at QD 4; the layer reports the third command taken as DATA_CRC with nothing
    aborted. The engine counts that command as failed (with its tag and the reason), never
    re-issues it nor counts it good, and does not hang: without stop_on_error every other command
    completes; with it nothing new is issued. The run ends with device error either way."""
    dut = DUT()
    log, out = [], {}

    def top():
        yield from start_run(dut.engine, op="read", qd=4, commands=8, sectors=1,
                             stop_on_error=stop_on_error, lba_base=0, lba_range=64)
        yield from wait_end(dut.engine, limit_us=200)
        out["r"] = yield from results(dut.engine)

    run_simulation(dut, [top(), layer(dut.ncq, log, crc_command=2)])
    r = out["r"]
    bad_tag = log[2][0]
    assert (r["state"], r["reason"]) == (bc.STATE_ERROR, bc.REASON_DEVICE_ERROR), r
    assert (r["ncq_errors"], r["ncq_reason"], r["tag"], r["tag_valid"]) == \
        (1, NCQ_REASON["DATA_CRC"], bad_tag, 1), r
    assert r["reissued"] == 0 and r["errors"] == 1, r
    assert [lba for _, lba in log] == sorted(set(lba for _, lba in log)), "a command sent twice"
    assert r["completed"] == len(log) and r["lat_count"] == len(log) - 1, (r, log)
    assert r["completed_reads"] == len(log)
    if stop_on_error:
        assert len(log) < 8
    else:
        assert len(log) == 8
