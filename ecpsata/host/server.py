# SPDX-License-Identifier: BSD-2-Clause
"""litex_server, with Etherbone reads in bursts: `python -m ecpsata.host.server` takes litex_server's
arguments.

litex_server forwards a record of N reads over UART as one burst, but over UDP (Etherbone) as N
records of one read each, every one a UDP round trip through the board's network stack: reads
through Etherbone ran at about a thirtieth of the rate of writes, which go as one packet with
no answer. Here a UDP read record carries up to ETHERBONE_BUFFER_WORDS reads (the most the SoC's
Etherbone slave takes in one record; a longer one is lost whole), so a 128-word read is one
round trip.
"""

import sys

from litex.tools import litex_server

from ecpsata.soc.builder import ETHERBONE_BUFFER_WORDS

_stock_read_merger = litex_server._read_merger


def read_merger(addrs, max_length=256, bursts=("incr",)):
    """litex_server's merger, with a burst length of ETHERBONE_BUFFER_WORDS where litex_server
    asks for single reads (its UDP bridge; the UART bridge keeps its 256)."""
    if max_length == 1:
        max_length = ETHERBONE_BUFFER_WORDS
    return _stock_read_merger(addrs, max_length=max_length, bursts=list(bursts))


def argv(*args, bind_ip, bind_port):
    """The command line that starts this server on ``bind_ip``:``bind_port`` with litex_server's
    bridge arguments ``args`` (run it with the repository as the working directory)."""
    return [sys.executable, "-m", "ecpsata.host.server", *args,
            "--bind-ip", bind_ip, "--bind-port", str(bind_port)]


def main():
    litex_server._read_merger = read_merger
    return litex_server.main()


if __name__ == "__main__":
    sys.exit(main())
