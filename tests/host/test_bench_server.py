# SPDX-License-Identifier: BSD-2-Clause
"""ecpsata.host.server: litex_server with Etherbone reads in bursts of the SoC's record size."""

from ecpsata.host import server
from ecpsata.soc.builder import ETHERBONE_BUFFER_WORDS


def test_udp_reads_go_in_bursts_of_the_socs_record_size():
    addrs = [0x1000 + 4 * i for i in range(300)]
    # litex_server asks for max_length=1 on its UDP bridge: one round trip per word.
    bursts = list(server.read_merger(addrs, max_length=1, bursts=["incr"]))
    assert ETHERBONE_BUFFER_WORDS == 128
    assert bursts == [(0x1000, 128, "incr"), (0x1000 + 512, 128, "incr"), (0x1000 + 1024, 44, "incr")]


def test_uart_reads_keep_litex_servers_burst_length():
    addrs = [0x2000 + 4 * i for i in range(300)]
    bursts = list(server.read_merger(addrs, max_length=256, bursts=["incr", "fixed"]))
    assert bursts == [(0x2000, 256, "incr"), (0x2000 + 1024, 44, "incr")]


def test_reads_that_are_not_consecutive_stay_apart():
    bursts = list(server.read_merger([0x10, 0x14, 0x40, 0x80, 0x84], max_length=1, bursts=["incr"]))
    assert bursts == [(0x10, 2, "incr"), (0x40, 1, "incr"), (0x80, 2, "incr")]


def test_main_installs_the_merger(monkeypatch):
    seen = {}
    monkeypatch.setattr(server.litex_server, "main", lambda: seen.setdefault(
        "merger", server.litex_server._read_merger))
    monkeypatch.setattr(server.litex_server, "_read_merger", server._stock_read_merger)
    server.main()
    assert seen["merger"] is server.read_merger
