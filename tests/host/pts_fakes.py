# SPDX-License-Identifier: BSD-2-Clause
"""A fake SoC whose drive behaves as a flash SSD for the SNIA PTS experiments (steady, wsat):
queued writes fast while the drive is fresh, slow after; SANITIZE (BLOCK ERASE EXT, STATUS EXT)
that makes it fresh again. Built on tests/support/fake_target.py; every figure follows from the
queued model's rule (n commands of s sectors, 8 at a time: ceil(n / 8) * (1000 + s * cycles per
sector) cycles at 100 MHz)."""

from tests.support.fake_queued import QueuedModel
from tests.support.fake_target import FakeSATATarget

F = 100_000_000
SANITIZE = 0xB4
FLUSH_CACHE_EXT = 0xEA


def iops(commands, sectors, cycles_per_sector, parallel=8):
    """The queued model's IOPS for one run of `commands` commands of `sectors` sectors."""
    batches = -(-commands // parallel)
    return commands * F / (batches * (1000 + sectors * cycles_per_sector))


class FlashModel(QueuedModel):
    """Queued runs at `fresh` cycles per sector for the first `fresh_runs` runs after a sanitize
    (and after power-on unless `used`: a drive written before), then `speeds` in turn (the last
    one repeated). `log` holds, per queued run, its cycles per sector and how many runs the
    non-queued engine had made before it."""
    def __init__(self, fresh=256, speeds=(2048,), fresh_runs=1, used=False):
        super().__init__()
        self.fresh, self.speeds, self.fresh_per_purge = fresh, list(speeds), fresh_runs
        self.fresh_left, self.used = (0 if used else fresh_runs), 0
        self.target = None
        self.log = []

    def purged(self):
        self.fresh_left, self.used = self.fresh_per_purge, 0

    def schedule(self, commands, sectors, qd):
        if self.fresh_left:
            self.fresh_left -= 1
            self.cycles_per_sector = self.fresh
        else:
            self.cycles_per_sector = self.speeds[min(self.used, len(self.speeds) - 1)]
            self.used += 1
        self.log.append((self.cycles_per_sector, len(self.target.runs) if self.target else None))
        return super().schedule(commands, sectors, qd)


class FlashTarget(FakeSATATarget):
    """FakeSATATarget with the queued engine, a FlashModel and SANITIZE: BLOCK ERASE EXT runs
    for `sanitize_polls` SANITIZE STATUS EXT answers (progress in equal steps), then completes;
    it makes the model fresh again. `events` lists what the host did, in order: ("sanitize",
    features), ("queued", cycles per sector), ("flush",)."""
    def __init__(self, tmpdir, model=None, sanitize=True, sanitize_polls=3, **kwargs):
        self.flash = model or FlashModel()
        super().__init__(tmpdir, with_queued=True, queued_model=self.flash, **kwargs)
        self.flash.target = self
        if sanitize:
            self.identify_data[59] = 0xB400    # BLOCK ERASE, CRYPTO SCRAMBLE, the feature set
        self.sanitize_polls = sanitize_polls
        self.sanitize_left = None             # STATUS EXT answers until the erase completes
        self.sanitize_done = False
        self.drop_at_poll, self.down_reads, self._down_left, self._polls = None, 0, None, 0
        self.comm.read_hooks[self.addr("sata_phy_status")] = self._phy_status
        self.events = []
        schedule = self.flash.schedule

        def logged(commands, sectors, qd):
            out = schedule(commands, sectors, qd)
            self.events.append(("queued", self.flash.cycles_per_sector))
            return out
        self.flash.schedule = logged

    def drop_during_status(self, poll, reads_down=3):
        """The link drops during the `poll`-th SANITIZE STATUS EXT sent while the erase runs (the
        command unanswered, the erase going on) and comes back after `reads_down` reads of the
        PHY's status, as the gateware's COMRESET retries bring it back once the drive answers."""
        self.drop_at_poll, self.down_reads = poll, reads_down

    def _phy_status(self):
        if self._down_left is not None:
            self._down_left -= 1
            if self._down_left <= 0:
                self._down_left = None
                self.set_link(True)
                self.set("sata_phy_link_ups", self.get("sata_phy_link_ups") + 1)
        return self.get("sata_phy_status")

    def _nodata(self, command, features, count):
        if command == FLUSH_CACHE_EXT:
            self.events.append(("flush",))
        if command != SANITIZE:
            return super()._nodata(command, features, count)
        self.nodata_log.append((command, features, count))
        self.events.append(("sanitize", features))
        if features == 0x0012 and self.sanitize_left is None:
            self.sanitize_left = self.sanitize_polls
            self.flash.purged()
        running = self.sanitize_left is not None
        if features == 0x0000 and running:
            self._polls += 1
            if self._polls == self.drop_at_poll:
                self.events.append(("link dropped",))
                self.drop_link()
                self._down_left = self.down_reads
                return
            self.sanitize_left -= 1
            if self.sanitize_left <= 0:
                self.sanitize_left, self.sanitize_done, running = None, True, False
        done = 0 if not running else self.sanitize_polls - self.sanitize_left
        progress = 0xFFFF if not running else done * 0x10000 // (self.sanitize_polls + 1)
        self.set("sata_errors_dev_tf_status", 0x50)
        self.set("sata_errors_dev_tf_error", 0)
        self.set("sata_errors_dev_tf_lba", progress)
        self.set("sata_errors_dev_tf_count", int(self.sanitize_done) << 15 | int(running) << 14)
        self.set("sata_buffer_status", 1 << self.fields["sata_buffer_status"]["done"][0])
