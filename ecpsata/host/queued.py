# SPDX-License-Identifier: BSD-2-Clause
"""Host driver of the queued benchmark engine (CSRs `sata_qbench_*`): READ/WRITE FPDMA QUEUED
with 1..32 commands in flight (Native Command Queuing).

The queued engine shares the non-queued engine's control, status, counter and snapshot registers,
so QueuedEngineDriver is an EngineDriver with another prefix; it adds `qd`, the queue depth
reached and the NCQ error report (the failing tag and LBA from log 10h, commands re-issued after it). It does
not check read data: there is no verify, 28-bit, firmware-loop or histogram mode. Its op `mix`
makes each command a read or a write by a draw from the seed (`read_percent` as fio's
rwmixread; the engine's `mix` register holds the writes per 256 commands, common.mix_value), and
the counters completed_reads / completed_writes give the split it achieved.

# Ref: SATA 3.x §13.6 (Native Command Queuing), ACS-3 §7.20 / 7.61 (READ / WRITE FPDMA QUEUED)
"""

from ecpsata.engines import common as bc
from ecpsata.host.engine import EngineDriver, PREFIX as DMA_PREFIX, command_timeout_cycles
from ecpsata.host.target import TargetError

PREFIX = "sata_qbench_"


class QueuedEngineDriver(EngineDriver):
    """Drives `sata_qbench_*`: one run of `commands` queued commands with `qd` of them kept in
    flight; returns EngineDriver.collect()'s dict plus `depth_max`, `reissued`, `ncq` and, on
    gateware with the mix, `reads` and `writes` (completed commands of each op)."""
    prefix = PREFIX

    def has(self):
        if not self.t.has(PREFIX + "control"):
            raise TargetError(f"this gateware has no queued engine (no {PREFIX}control in "
                              f"{self.t.csr_csv}, only {DMA_PREFIX}*): queue depths need the "
                              f"SoC built with NCQ")

    def check_mix(self):
        """Refuse a read/write mix on gateware built before it."""
        if not self.present("mix"):
            raise TargetError(f"this gateware's queued engine has no read/write mix (no "
                              f"{PREFIX}mix in {self.t.csr_csv}): run without --mix")

    def configure(self, op="read", lba=0, lba_range=None, sectors=1, commands=1, qd=1, seed=1,
                  random=False, stop_on_error=True, read_percent=None, **unsupported):
        """Write every run parameter; refuse what the queued engine cannot do before writing.
        op "mix" needs read_percent (0..100: the share of reads, fio's rwmixread)."""
        asked = sorted(k for k, v in unsupported.items() if v)
        if asked:
            raise TargetError(f"the queued engine has no {', '.join(asked)} mode (it issues "
                              f"READ/WRITE FPDMA QUEUED and does not check read data): use the "
                              f"non-queued engine for that")
        if op not in bc.QUEUED_OPS:
            raise TargetError(f"the queued engine runs {', '.join(bc.QUEUED_OPS)}, not {op}")
        if not 1 <= qd <= bc.QD_MAX:
            raise TargetError(f"queue depth {qd}: must be 1..{bc.QD_MAX}")
        if (op == "mix") != (read_percent is not None):
            raise TargetError("a queued read/write mix (op mix) and its read percentage go "
                              "together")
        if op == "mix":
            if not 0 <= read_percent <= 100:
                raise TargetError(f"mix: {read_percent} % reads: must be 0..100")
            self.check_mix()
            self.reg("mix").write(bc.mix_value(read_percent))
        if lba_range is None:
            lba_range = sectors * commands
        self.reg("config").write(self.word("config", op=bc.QUEUED_OPS[op], random=random,
                                           stop_on_error=stop_on_error))
        for name, value in (("qd", qd), ("lba_base", lba), ("lba_range", lba_range),
                            ("sectors", sectors), ("commands", commands), ("seed", seed),
                            ("capacity", self.capacity),
                            ("timeout", command_timeout_cycles(sectors, self.f,
                                                               self.timeout_base_s))):
            self.reg(name).write(value)
        self.params = dict(op=op, lba=lba, lba_range=lba_range, sectors=sectors,
                           commands=commands, qd=qd, seed=seed, random=random)
        if op == "mix":
            self.params["read_percent"] = read_percent

    def run(self, op="read", lba=0, sectors=1, commands=1, label=None, **kwargs):
        """One run; kwargs as configure() (qd, random, seed, lba_range, stop_on_error,
        read_percent)."""
        self._mark()
        self.configure(op=op, lba=lba, sectors=sectors, commands=commands, **kwargs)
        self.pulse("start")
        # Commands wait behind each other at the drive: the per-command backstop covers them all.
        self.wait(commands, sectors, commands * sectors * bc.SECTOR_BYTES,
                  label or f"{op} qd{kwargs.get('qd', 1)}")
        return self.collect()

    def ncq(self):
        """The NCQ error report of the last run: count, reason, failing tag and LBA."""
        v = {n: self.read(n) for n in ("ncq_errors", "ncq_reason", "ncq_tag", "ncq_lba")}
        valid = self.decode("ncq_tag", v["ncq_tag"], "valid")
        return {"errors": v["ncq_errors"],
                "reason": bc.NCQ_REASONS.get(v["ncq_reason"], f"unknown ({v['ncq_reason']})"),
                "tag": self.decode("ncq_tag", v["ncq_tag"], "tag") if valid else None,
                "lba": v["ncq_lba"] if v["ncq_errors"] else None}

    def collect(self):
        r = super().collect()
        r["depth_max"] = self.read("depth_max")
        r["reissued"] = self.read("reissued")
        r["ncq"] = self.ncq()
        if self.present("completed_writes"):
            r["reads"] = self.read("completed_reads")
            r["writes"] = self.read("completed_writes")
        return r

    def error_details(self, reason):
        d = super().error_details(reason)
        d["ncq"] = self.ncq()
        return d

    def reason_text(self, reason, r, details):
        text, cause = super().reason_text(reason, r, details)
        ncq = r["ncq"]
        if reason == bc.REASON_DEVICE_ERROR and ncq["errors"]:
            tag = f"on tag {ncq['tag']} " if ncq["tag"] is not None else ""
            text = (f"the drive reported an NCQ error {tag}at LBA {ncq['lba']} ({ncq['reason']}); "
                    f"{r['reissued']} aborted commands were re-issued ({r['errors']} failed of "
                    f"{r['completed']} completed)")
            # Log 10h names the failure; the last Register D2H (the drive refusing a command
            # that crossed the error) would only mislead.
            cause = self._describe({k: v for k, v in details.items() if k != "device"})
        elif reason == bc.REASON_REFUSED:
            text = ("the queued engine refused the parameters (queue depth outside 1.."
                    f"{bc.QD_MAX}, range beyond capacity, size, mix above {bc.MIX_ONE} writes "
                    f"per {bc.MIX_ONE}) or ran while the block engine was running: nothing was "
                    "sent")
        return text, cause
