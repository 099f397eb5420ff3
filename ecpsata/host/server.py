# SPDX-License-Identifier: BSD-2-Clause
"""litex_server, with Etherbone reads in pipelined bursts: `python -m ecpsata.host.server` takes
litex_server's arguments.

litex_server forwards a record of N reads over UART as one burst, but over UDP (Etherbone) as N
records of one read each, every one a UDP round trip through the board's network stack: reads
through Etherbone ran at about a thirtieth of the rate of writes, which go as one packet with no
answer. Here the reads go to the SoC as UDP records of at most ETHERBONE_BUFFER_WORDS reads (the
most the SoC's Etherbone slave takes in one record; a longer one is lost whole), WINDOW of them in
flight: the SoC takes in the next request while it answers the one before, so the round trips
overlap. The client's read requests already waiting on its socket are taken together, so that a
client that sends several before it waits (Target.read_bursts) pays for one pipeline start, not
one per request. doc/bringup.md, "The host bridges", gives the figures measured in the simulated
ECPIX-5. An answer that does not come within the socket's timeout is asked for again, one record
at a time, with the timeout doubled on each try (up to BACKOFF_MOST times the socket's): a board
that is only slow (a simulated SoC on a loaded machine) still answers the first request, and that
late answer is taken as well as the answer to the request sent again.
"""

import select
import socket
import sys
import threading

from litex.tools import litex_server
from litex.tools.remote import comm_udp
from litex.tools.remote.etherbone import (EtherbonePacket, EtherboneRecord, EtherboneReads,
                                         EtherboneWrites)

from ecpsata.host.target import REQUEST_WORDS
from ecpsata.soc.builder import ETHERBONE_BUFFER_WORDS

WINDOW = 3          # records in flight (three ran without a loss in the simulated ECPIX-5)
RETRIES = 10        # as litex's CommUDP
BACKOFF_MOST = 8    # the longest wait for an answer, in socket timeouts
CLIENT_WORDS = REQUEST_WORDS  # the most reads a client's record holds

_stock_read_merger = litex_server._read_merger


def merged(addrs, udp):
    """(addr, length, burst) of a client record's reads: over Etherbone as incrementing bursts of
    up to a whole record (litex_server asks for single reads, one round trip per word); over UART
    as litex_server does (bursts of up to 256, incrementing or fixed)."""
    if udp:
        return list(_stock_read_merger(addrs, max_length=CLIENT_WORDS, bursts=["incr"]))
    return list(_stock_read_merger(addrs, max_length=256, bursts=["incr", "fixed"]))


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


def pipelined_reads(comm, segments):
    """Read every (addr, length) of `segments` through comm (a CommUDP) with at most WINDOW records
    in flight across them all; returns one list of words per segment. A lone segment goes as the
    records of `chunks`; several go as records of the SoC's size. Answers are matched by the tag
    the SoC returns (base_ret_addr): an answer to any request of the same words is taken, also one
    that comes after its request was sent again; any other is dropped."""
    datas = [[None] * length for _, length in segments]
    spread = 1 if len(segments) > 1 else WINDOW      # records a segment is cut into, at least
    items = [(i, addr, off, count) for i, (addr, length) in enumerate(segments)
             for off, count in chunks(length, window=spread)]
    todo, left = list(range(len(items))), set(range(len(items)))
    asked = {}                                       # tag -> item, of every request sent
    window, base = WINDOW, comm.socket.gettimeout()
    try:
        for attempt in range(RETRIES):
            if base is not None:
                comm.socket.settimeout(base * min(2 ** attempt, BACKOFF_MOST))
            flight = set()
            while left:
                while todo and len(flight) < window:
                    k = todo.pop(0)
                    asked[request(comm, *items[k][1:])] = k
                    flight.add(k)
                try:
                    raw, _ = comm.socket.recvfrom(8192)
                except socket.timeout:
                    break
                packet = EtherbonePacket(comm.addr_width, raw)
                packet.decode()
                record = packet.records.pop()
                k = None if record.writes is None else asked.get(record.writes.base_addr)
                if k not in left:
                    continue
                i, _, off, count = items[k]
                values = record.writes.get_datas()
                if len(values) == count:
                    datas[i][off:off + count] = values
                    left.discard(k)
                    flight.discard(k)
                    if k in todo:
                        todo.remove(k)
            if not left:
                return datas
            todo, window = sorted(left), 1           # ask again, one at a time
    finally:
        comm.socket.settimeout(base)
    raise socket.timeout(f"no answer from the Etherbone target at {comm.server}:{comm.port} "
                         f"after {RETRIES} tries")


def pipelined_read(comm, addr, length=None, burst="incr"):
    """CommUDP.read with the records of `chunks` in flight together."""
    if burst != "incr":
        raise ValueError("Etherbone reads are incrementing bursts only")
    datas = pipelined_reads(comm, [(addr, 1 if length is None else length)])[0]
    return datas[0] if length is None else datas


# The client connection -----------------------------------------------------------------------------
# litex_server answers one client packet at a time: a client that sends several read requests
# before it waits for the first answer still gets one pipeline ramp per request over Etherbone.
# Here every packet already waiting on the client's socket is taken in with the first, the reads
# between two writes are sent to the SoC together, and the answers go back in the client's order.

BATCH_PACKETS = 64   # client packets taken in at once (a 16-sector buffer read is 9)
_bus = threading.Lock()


def take_batch(server, client):
    """The raw packets waiting on the client's socket (blocking for the first); [] when the client
    has gone."""
    size = server.addr_width // 8
    batch = []
    while len(batch) < BATCH_PACKETS and (not batch or select.select([client], [], [], 0)[0]):
        try:
            raw = server.receive_packet(client, size)
        except OSError:
            raw = 0
        if raw == 0:
            break
        batch.append(raw)
    return batch


def read_runs(comm, runs):
    """Word lists for `runs`, each a list of (addr, length, burst) from the read merger: in one
    pipeline over Etherbone, one burst after another over any other bridge."""
    flat = [b for run in runs for b in run]
    if isinstance(comm, comm_udp.CommUDP):
        words = pipelined_reads(comm, [(addr, length) for addr, length, _ in flat])
    else:
        words = [comm.read(addr, length, burst) for addr, length, burst in flat]
    out = []
    for run in runs:
        out.append([w for part in words[:len(run)] for w in part])
        words = words[len(run):]
    return out


def answer(comm, batch, addr_width):
    """Carry out a batch of client packets in order; returns the answer packets (one per packet
    with reads). Reads are held back until a write or the end of the batch, then sent together."""
    udp = isinstance(comm, comm_udp.CommUDP)
    answers, held = [None] * len(batch), []     # held: (packet index, read bursts)

    def flush():
        for (k, _), words in zip(held, read_runs(comm, [run for _, run in held])):
            answers[k] = (answers[k] or []) + [words]
        held.clear()

    for k, raw in enumerate(batch):
        packet = EtherbonePacket(addr_width, raw)
        packet.decode()
        for record in packet.records:
            if record.writes is not None:
                flush()
                comm.write(record.writes.base_addr, record.writes.get_datas())
            if record.reads is not None:
                held.append((k, merged(record.reads.get_addrs(), udp)))
    flush()
    packets = []
    for replies in filter(None, answers):
        packet = EtherbonePacket(addr_width)
        packet.records = []
        for words in replies:
            record = EtherboneRecord(addr_width // 8)
            record.writes = EtherboneWrites(addr_size=addr_width // 8, datas=words)
            record.wcount = len(words)
            packet.records.append(record)
        packet.encode()
        packets.append(packet)
    return packets


def serve(server):
    """RemoteServer's client loop, with batches: serves one client connection after another."""
    while True:
        try:
            client, peer = server.socket.accept()
        except OSError:      # the server's socket was closed: it is shutting down
            return
        try:
            client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            server._send_server_info(client)     # (a client that only probed the port is gone)
            print(f"Connected with {peer[0]}:{peer[1]}")
            while True:
                batch = take_batch(server, client)
                if not batch:
                    break
                with _bus:
                    packets = answer(server.comm, batch, server.addr_width)
                # One send for the batch's answers: sent one by one, each after the first would
                # wait (Nagle) for the client's delayed ACK of the one before, tens of ms.
                client.sendall(b"".join(p.bytes for p in packets))
        except Exception as e:       # (the server stays up for the next client)
            print(f"litex_server: dropped the client: {type(e).__name__}: {e}", file=sys.stderr)
        finally:
            print("Disconnect")
            client.close()


def argv(*args, bind_ip, bind_port):
    """The command line that starts this server on ``bind_ip``:``bind_port`` with litex_server's
    bridge arguments ``args`` (run it with the repository as the working directory)."""
    return [sys.executable, "-m", "ecpsata.host.server", *args,
            "--bind-ip", bind_ip, "--bind-port", str(bind_port)]


def main():
    litex_server.RemoteServer._serve_thread = serve
    comm_udp.CommUDP.read = pipelined_read
    return litex_server.main()


if __name__ == "__main__":
    sys.exit(main())
