/* SPDX-License-Identifier: BSD-2-Clause */
/* Driver of the queued benchmark engine (ecpsata/engines/queued.py, CSRs sata_qbench_*): one run of
 * READ/WRITE FPDMA QUEUED commands with up to 32 in flight, all reads, all writes or a mix of
 * both; every figure from its cycle counters. Returns a sata_err code instead of waiting
 * forever. */
#ifndef ECPSATA_QBENCH_H
#define ECPSATA_QBENCH_H

#include <stdint.h>

#include "bench.h"

#define QBENCH_MAX_QD 32
/* The queued engine's third op (ecpsata/engines/common.py OP_MIX): each command is a write with
 * probability mix / QBENCH_MIX_ONE, else a read, drawn per command from the seed. */
#define QBENCH_MIX     2
#define QBENCH_MIX_ONE 256

struct qbench_run {
	/* parameters */
	int op, random;                  /* BENCH_READ, BENCH_WRITE or QBENCH_MIX */
	uint32_t mix;                    /* QBENCH_MIX: writes per QBENCH_MIX_ONE commands */
	uint64_t lba, range;
	uint32_t sectors, commands, seed, qd;
	/* results */
	uint64_t cycles, bytes;
	uint32_t completed, errors, depth_max, reissued;
	uint32_t completed_reads, completed_writes;  /* completed by op, failed ones included */
	struct bench_stat lat;           /* issue to the Set Device Bits that completed the tag */
	uint32_t ncq_errors, ncq_reason, ncq_tag, ncq_tag_valid;
	uint64_t ncq_lba;                /* the failing LBA (log 10h) */
};

/* 1 when the gateware has the queued engine; qbench_has_mix: and its mix op (QBENCH_MIX). */
int qbench_present(void);
int qbench_has_mix(void);
/* `mix` for fio's rwmixread (percent reads, 0..100), rounded to nearest as the host's
 * (common.py mix_value). */
uint32_t qbench_mix_value(uint32_t read_percent);
int qbench_run(struct qbench_run *r);
/* Name of an NCQ reason code (NCQ_REASON_TEXTS, generated from ecpsata/core/common.py). */
const char *qbench_reason_name(uint32_t reason);

#endif
