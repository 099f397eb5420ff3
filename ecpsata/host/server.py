# SPDX-License-Identifier: BSD-2-Clause
"""litex_server, with Etherbone reads in pipelined bursts: `python -m ecpsata.host.server` takes
litex_server's arguments.

litex_server forwards a record of N reads over UART as one burst, but over UDP (Etherbone) as N
records of one read each, every one a UDP round trip through the board's network stack: reads
through Etherbone ran at about a thirtieth of the rate of writes, which go as one packet with no
answer. Here a client's record of reads (up to 255) goes to the SoC as WINDOW UDP records sent
back to back, each at most ETHERBONE_BUFFER_WORDS reads (the most the SoC's Etherbone slave takes
in one record; a longer one is lost whole). The SoC takes in the next request while it answers
the one before, so the round trips overlap (doc/bringup.md, "The host bridges": figures measured in the
simulated ECPIX-5). An answer that does not come within the socket's timeout is asked for again,
one record at a time.
"""

import socket
import sys

from litex.tools import litex_server
from litex.tools.remote import comm_udp
from litex.tools.remote.etherbone import EtherbonePacket, EtherboneRecord, EtherboneReads

from ecpsata.soc.builder import ETHERBONE_BUFFER_WORDS

WINDOW = 3          # records in flight (three ran without a loss in the simulated ECPIX-5)
RETRIES = 10        # as litex's CommUDP
CLIENT_WORDS = 255  # the most reads a client's record holds (its count is one byte)

_stock_read_merger = litex_server._read_merger


def read_merger(addrs, max_length=256, bursts=("incr",)):
    """litex_server's merger, with bursts of a whole client record where litex_server asks for
    single reads (its UDP bridge; the UART bridge keeps its 256)."""
    if max_length == 1:
        max_length = CLIENT_WORDS
    return _stock_read_merger(addrs, max_length=max_length, bursts=list(bursts))


def chunks(length, window=WINDOW, most=ETHERBONE_BUFFER_WORDS):
    """[(offset, count)] of the records a read of `length` words goes out as: `window` of them
    (fewer for a read shorter than that), none over `most` words."""
    size = min(most, max(1, -(-length // window)))
    return [(off, min(size, length - off)) for off in range(0, length, size)]


def request(comm, addr, off, count):
    """Send one read record of `count` words from addr + 4 * off to comm (a CommUDP, or anything
    with its socket, server, port, addr_width and read_counter); returns its tag."""
    comm.read_counter = (comm.read_counter + 1) & 0xffffffff
    record = EtherboneRecord(addr_size=comm.addr_width // 8)
    record.reads = EtherboneReads(addr_size=comm.addr_width // 8,
                                  addrs=[addr + 4 * (off + j) for j in range(count)])
    record.rcount = count
    record.reads.base_ret_addr = comm.read_counter
    packet = EtherbonePacket(addr_width=comm.addr_width)
    packet.records = [record]
    packet.encode()
    comm.socket.sendto(packet.bytes, (comm.server, comm.port))
    return comm.read_counter


def pipelined_read(comm, addr, length=None, burst="incr"):
    """CommUDP.read with the records of `chunks` in flight together. Answers are matched by the
    tag the SoC returns (base_ret_addr); a stale answer (to a request that timed out) is dropped."""
    if burst != "incr":
        raise ValueError("Etherbone reads are incrementing bursts only")
    n = 1 if length is None else length
    datas = [None] * n
    todo, window = chunks(n), WINDOW
    for _ in range(RETRIES):
        flight = {}
        while todo or flight:
            while todo and len(flight) < window:
                off, count = todo.pop(0)
                flight[request(comm, addr, off, count)] = (off, count)
            try:
                raw, _ = comm.socket.recvfrom(8192)
            except socket.timeout:
                break
            packet = EtherbonePacket(comm.addr_width, raw)
            packet.decode()
            record = packet.records.pop()
            if record.writes is None or record.writes.base_addr not in flight:
                continue
            off, count = flight[record.writes.base_addr]
            values = record.writes.get_datas()
            if len(values) == count:
                del flight[record.writes.base_addr]
                datas[off:off + count] = values
        if not todo and not flight:
            return datas[0] if length is None else datas
        todo, window = sorted(list(flight.values()) + todo), 1   # ask again, one at a time
    raise socket.timeout(f"no answer from the Etherbone target at {comm.server}:{comm.port} "
                         f"after {RETRIES} tries")


def argv(*args, bind_ip, bind_port):
    """The command line that starts this server on ``bind_ip``:``bind_port`` with litex_server's
    bridge arguments ``args`` (run it with the repository as the working directory)."""
    return [sys.executable, "-m", "ecpsata.host.server", *args,
            "--bind-ip", bind_ip, "--bind-port", str(bind_port)]


def main():
    litex_server._read_merger = read_merger
    comm_udp.CommUDP.read = pipelined_read
    return litex_server.main()


if __name__ == "__main__":
    sys.exit(main())
