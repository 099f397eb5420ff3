# SPDX-License-Identifier: BSD-2-Clause
"""ecpsata.host.server: litex_server with Etherbone reads as pipelined records of the SoC's size."""

import socket
import threading

import pytest

from litex.tools.remote import comm_udp
from litex.tools.remote.etherbone import (EtherboneIPC, EtherbonePacket, EtherboneReads,
                                         EtherboneRecord, EtherboneWrites, unpack_uint32_from)

from ecpsata.host import server
from ecpsata.soc.builder import ETHERBONE_BUFFER_WORDS


def test_udp_reads_go_as_whole_client_records():
    addrs = [0x1000 + 4 * i for i in range(300)]
    # litex_server asks for max_length=1 on its UDP bridge: one round trip per word.
    bursts = server.merged(addrs, udp=True)
    assert bursts == [(0x1000, 255, "incr"), (0x1000 + 1020, 45, "incr")]


def test_uart_reads_keep_litex_servers_burst_length():
    addrs = [0x2000 + 4 * i for i in range(300)]
    bursts = server.merged(addrs, udp=False)
    assert bursts == [(0x2000, 256, "incr"), (0x2000 + 1024, 44, "incr")]


def test_reads_that_are_not_consecutive_stay_apart():
    bursts = server.merged([0x10, 0x14, 0x40, 0x80, 0x84], udp=True)
    assert bursts == [(0x10, 2, "incr"), (0x40, 1, "incr"), (0x80, 2, "incr")]


def test_a_read_goes_as_three_records_none_over_the_socs_size():
    assert ETHERBONE_BUFFER_WORDS == 128
    assert server.chunks(255) == [(0, 85), (85, 85), (170, 85)]
    assert server.chunks(128) == [(0, 43), (43, 43), (86, 42)]
    assert server.chunks(2) == [(0, 1), (1, 1)]
    assert server.chunks(1) == [(0, 1)]
    assert server.chunks(600) == [(0, 128), (128, 128), (256, 128), (384, 128), (512, 88)]


class FakeBoard:
    """An Etherbone slave on loopback: answers each read record with word = address + 1, except
    the requests whose numbers (from 0) are in `drop`; `stale` answers go out first, with a tag
    nobody asked for; every answer leaves `delay` seconds after its request came."""
    def __init__(self, drop=(), stale=0, delay=0):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.drop, self.stale, self.requests, self.delay = set(drop), stale, [], delay
        threading.Thread(target=self.serve, daemon=True).start()

    def answer(self, to, tag, values):
        packet = write_packet(tag, values)                # an answer is a write to the tag
        if self.delay:
            threading.Timer(self.delay, self.sock.sendto, (packet, to)).start()
        else:
            self.sock.sendto(packet, to)

    def serve(self):
        while True:
            raw, peer = self.sock.recvfrom(8192)
            packet = EtherbonePacket(32, raw)
            packet.decode()
            reads = packet.records.pop().reads
            n = len(self.requests)
            self.requests.append(reads.get_addrs())
            for _ in range(self.stale):
                self.answer(peer, 0xdead0000 + n, [0] * len(reads.get_addrs()))
            if n not in self.drop:    # (litex's decode does not keep the return address)
                tag = unpack_uint32_from(reads.bytes[:4])[0]
                self.answer(peer, tag, [a + 1 for a in reads.get_addrs()])


@pytest.fixture
def comm():
    def make(board, timeout=2.0):
        c = comm_udp.CommUDP("127.0.0.1", board.port, timeout=timeout)
        c.socket = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        c.socket.bind(("127.0.0.1", 0))
        c.socket.settimeout(timeout)
        made.append(c)
        return c
    made = []
    yield make
    for c in made:
        c.socket.close()


def test_a_pipelined_read_returns_every_word_in_order(comm):
    board = FakeBoard(stale=1)
    c = comm(board)
    base = 0x80000000
    assert server.pipelined_read(c, base, 255) == [base + 4 * i + 1 for i in range(255)]
    assert [len(r) for r in board.requests] == [85, 85, 85]
    assert server.pipelined_read(c, base + 8) == base + 9          # a single word, no list


def test_a_lost_answer_is_asked_for_again_alone(comm):
    board = FakeBoard(drop={1})
    c = comm(board, timeout=0.3)
    base = 0x1000
    assert server.pipelined_read(c, base, 128) == [base + 4 * i + 1 for i in range(128)]
    # three records in flight; the second's answer lost: asked for again after the timeout
    assert [r[0] for r in board.requests] == [base, base + 4 * 43, base + 4 * 86, base + 4 * 43]


def test_a_slow_board_is_waited_for_longer_and_its_late_answers_are_taken(comm):
    board = FakeBoard(delay=0.25)      # every answer comes after two and a half timeouts
    c = comm(board, timeout=0.1)
    base = 0x2000
    assert server.pipelined_read(c, base, 128) == [base + 4 * i + 1 for i in range(128)]
    assert len(board.requests) <= 6    # the three records, at most once more each
    assert c.socket.gettimeout() == 0.1     # the socket's own timeout is given back


def test_no_answer_at_all_fails_with_the_address(comm):
    board = FakeBoard(drop=set(range(100)))
    c = comm(board, timeout=0.05)
    with pytest.raises(socket.timeout, match=f"127.0.0.1:{board.port} after 10 tries"):
        server.pipelined_read(c, 0x1000, 4)


def test_main_installs_the_batching_client_loop_and_the_pipelined_read(monkeypatch):
    seen = {}
    monkeypatch.setattr(server.litex_server, "main", lambda: seen.update(
        serve=server.litex_server.RemoteServer._serve_thread, read=comm_udp.CommUDP.read))
    monkeypatch.setattr(server.litex_server.RemoteServer, "_serve_thread",
                        server.litex_server.RemoteServer._serve_thread)
    monkeypatch.setattr(comm_udp.CommUDP, "read", comm_udp.CommUDP.read)
    server.main()
    assert seen == {"serve": server.serve, "read": server.pipelined_read}


def read_packet(addr, count):
    record = EtherboneRecord(4)
    record.reads = EtherboneReads(addr_size=4, addrs=[addr + 4 * j for j in range(count)])
    record.rcount = count
    packet = EtherbonePacket(32)
    packet.records = [record]
    packet.encode()
    return packet.bytes


def write_packet(addr, datas):
    record = EtherboneRecord(4)
    record.writes = EtherboneWrites(addr_size=4, base_addr=addr, datas=datas)
    record.wcount = len(datas)
    packet = EtherbonePacket(32)
    packet.records = [record]
    packet.encode()
    return packet.bytes


def words_of(packet):
    packet = EtherbonePacket(32, packet.bytes)
    packet.decode()
    return [r.writes.get_datas() for r in packet.records]


class Memory:
    """A bridge that is not Etherbone (as CommUART): reads and writes in the order they come."""
    def __init__(self):
        self.mem, self.log = {}, []

    def read(self, addr, length, burst="incr"):
        self.log.append(("read", addr, length))
        return [self.mem.get(addr + 4 * i, 0) for i in range(length)]

    def write(self, addr, datas):
        self.log.append(("write", addr, len(datas)))
        for i, d in enumerate(datas):
            self.mem[addr + 4 * i] = d


def test_a_batch_keeps_the_clients_order_around_a_write():
    comm = Memory()
    comm.mem[0x100] = 7
    batch = [read_packet(0x100, 1), write_packet(0x100, [9]), read_packet(0x100, 2)]
    answers = server.answer(comm, batch, 32)
    # the first read sees the value before the write, the second after it
    assert [words_of(p) for p in answers] == [[[7]], [[9, 0]]]
    assert comm.log == [("read", 0x100, 1), ("write", 0x100, 1), ("read", 0x100, 2)]


@pytest.fixture
def batching_server(comm):
    """Our client loop in front of a FakeBoard on loopback; yields (connected client socket, board)."""
    board = FakeBoard()
    c = comm(board)
    remote = server.litex_server.RemoteServer(c, "127.0.0.1", 0)
    remote.socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    remote.socket.bind(("127.0.0.1", 0))
    remote.socket.listen(1)
    threading.Thread(target=server.serve, args=(remote,), daemon=True).start()
    client = socket.create_connection(remote.socket.getsockname(), timeout=5)
    client.recv(4096)            # the server's greeting (litex_server's version line)
    yield client, board
    client.close()
    remote.socket.close()


def test_waiting_read_requests_go_to_the_soc_together(batching_server):
    client, board = batching_server
    base = 0x40000000
    client.sendall(b"".join(read_packet(base + 4 * 255 * k, 255) for k in range(3)))
    ipc = EtherboneIPC()
    got = []
    for _ in range(3):
        got += words_of(EtherbonePacket(32, ipc.receive_packet(client, 4)))
    assert [w for words in got for w in words] == [base + 4 * i + 1 for i in range(3 * 255)]
    # one pipeline over the three requests: records of the SoC's size, not three per request
    assert [len(r) for r in board.requests] == [128, 127] * 3


def test_a_lone_read_request_still_goes_as_three_records(batching_server):
    client, board = batching_server
    client.sendall(read_packet(0x2000, 255))
    assert words_of(EtherbonePacket(32, EtherboneIPC().receive_packet(client, 4))) == \
        [[0x2000 + 4 * i + 1 for i in range(255)]]
    assert [len(r) for r in board.requests] == [85, 85, 85]
