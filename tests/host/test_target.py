# SPDX-License-Identifier: BSD-2-Clause
"""ecpsata.host.target: several read requests in flight through litex_server."""

import pytest

from ecpsata.host.target import REQUESTS_IN_FLIGHT, Target
from tests.support.fake_target import FakeTarget


@pytest.fixture
def fake(tmp_path):
    t = FakeTarget(str(tmp_path))
    base = 0x40000000
    for i in range(4096):
        t.comm.mem[base + 4 * i] = 0x5a000000 + i
    yield t, base
    t.close()


def test_read_bursts_returns_each_burst_in_order_beyond_one_group(fake):
    t, base = fake
    bursts = [(base + 4 * 100 * k, 100 - k) for k in range(REQUESTS_IN_FLIGHT + 5)]
    with Target(port=t.port, csr_csv=t.csr_csv) as target:
        got = target.read_bursts(bursts)
        assert [len(words) for words in got] == [n for _, n in bursts]
        assert got == [[0x5a000000 + 100 * k + i for i in range(n)] for k, (_, n) in enumerate(bursts)]
        assert target.reg("identity_sys_clk").read() == 100_000_000   # the connection is in step


@pytest.mark.parametrize("length", [0, 256])
def test_read_bursts_refuses_a_request_no_record_can_hold(fake, length):
    t, base = fake
    with Target(port=t.port, csr_csv=t.csr_csv) as target:
        with pytest.raises(ValueError, match=f"1 to 255 words, not {length}"):
            target.read_bursts([(base, 4), (base, length)])
        assert target.read_bursts([(base, 2)]) == [[0x5a000000, 0x5a000001]]   # nothing was sent
