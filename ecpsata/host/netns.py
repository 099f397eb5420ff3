# SPDX-License-Identifier: BSD-2-Clause
"""Run a command inside a network namespace of its own, made for it and removed afterwards.

    python -m ecpsata.host.netns -- python -m ecpsata.host.simboard --board ecpix5_sim --bridge etherbone -- ...

The simulated ECPIX-5 serves Etherbone on a tap interface (ecpsata/platforms/ecpix5_sim.py): created inside
this namespace, it and everything sent on it stay there, and litex_server, the simulation and the
command reach each other on the namespace's own loopback. The namespace is removed when the command
ends, also on failure, Ctrl-C or SIGTERM; its processes are stopped first. Needs root (CAP_NET_ADMIN)
and `ip` (iproute2).
"""

import os
import shutil
import signal
import subprocess
import sys

PREFIX = "ecpsata-"
# Set in the command's environment: the namespace it runs in (ecpsata/host/simboard.py refuses to create
# a tap interface outside one of ours).
ENV = "ECPSATA_NETNS"


class NetnsError(Exception):
    pass


def _ip(*args, check=True):
    p = subprocess.run(["ip", *args], capture_output=True, text=True)
    if check and p.returncode != 0:
        raise NetnsError(f"ip {' '.join(args)}: {p.stderr.strip() or 'exit ' + str(p.returncode)}")
    return p


def namespaces():
    """The names of the network namespaces on this machine."""
    p = _ip("netns", "list", check=False)
    return [line.split()[0] for line in p.stdout.splitlines() if line.strip()]


def _pids(name):
    p = _ip("netns", "pids", name, check=False)
    return [int(x) for x in p.stdout.split() if x.isdigit()]


def remove(name):
    """Stop the namespace's processes, then delete it (idempotent)."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        pids = _pids(name)
        for pid in pids:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        if not pids:
            break
        for _ in range(50):
            if not _pids(name):
                break
            subprocess.run(["sleep", "0.1"])
    if name in namespaces():
        _ip("netns", "delete", name)


def run(cmd, name=None):
    """Run cmd in a new namespace; returns its exit code. The namespace is gone afterwards."""
    if shutil.which("ip") is None:
        raise NetnsError("`ip` (iproute2) not found: make setup installs it")
    if os.geteuid() != 0:
        raise NetnsError("a network namespace needs root (CAP_NET_ADMIN)")
    name = name or f"{PREFIX}{os.getpid()}"
    if name in namespaces():
        raise NetnsError(f"network namespace {name} exists already")
    _ip("netns", "add", name)
    try:
        _ip("netns", "exec", name, "ip", "link", "set", "lo", "up")
        env = dict(os.environ, **{ENV: name})
        proc = subprocess.Popen(["ip", "netns", "exec", name, *cmd], env=env)
        try:
            return proc.wait()
        except KeyboardInterrupt:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
            return 130
    finally:
        remove(name)


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--"]:
        argv = argv[1:]
    if not argv:
        print("usage: python -m ecpsata.host.netns -- COMMAND...", file=sys.stderr)
        return 2
    # SIGTERM (make, CI) ends like Ctrl-C, so that the namespace is removed.
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    try:
        return run(argv)
    except NetnsError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
