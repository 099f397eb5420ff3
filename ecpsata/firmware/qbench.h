/* SPDX-License-Identifier: BSD-2-Clause */
/* Driver of the queued benchmark engine (ecpsata/engines/queued.py, CSRs sata_qbench_*): one run of
 * READ/WRITE FPDMA QUEUED commands with up to 32 in flight; every figure from its cycle counters.
 * Returns a sata_err code instead of waiting forever. */
#ifndef ECPSATA_QBENCH_H
#define ECPSATA_QBENCH_H

#include <stdint.h>

#include "bench.h"

#define QBENCH_MAX_QD 32

struct qbench_run {
	/* parameters */
	int op, random;                  /* BENCH_READ or BENCH_WRITE */
	uint64_t lba, range;
	uint32_t sectors, commands, seed, qd;
	/* results */
	uint64_t cycles, bytes;
	uint32_t completed, errors, depth_max, reissued;
	struct bench_stat lat;           /* issue to the Set Device Bits that completed the tag */
	uint32_t ncq_errors, ncq_reason, ncq_tag, ncq_tag_valid;
	uint64_t ncq_lba;                /* the failing LBA (log 10h) */
};

/* 1 when the gateware has the queued engine. */
int qbench_present(void);
int qbench_run(struct qbench_run *r);
/* Name of an NCQ reason code (NCQ_REASON_TEXTS, generated from ecpsata/core/common.py). */
const char *qbench_reason_name(uint32_t reason);

#endif
