/* SPDX-License-Identifier: BSD-2-Clause */
/* Queued (NCQ) console command: random or sequential READ (or, with `write`, WRITE; with `mix=P`,
 * P % READ and the rest WRITE, as fio's rwmixread) FPDMA QUEUED at several queue depths on the
 * queued engine (qbench.c), the console twin of the host's `random --qd` (`--write-only`,
 * `--mix`). Writes and mixes go through prepare() like every console write: the range is checked
 * against the drive and the user must type `yes` before anything is sent. */
#include <stdio.h>
#include <string.h>

#include <generated/sata_codes.h>
#include <generated/soc.h>

#include "cmd_args.h"
#include "console.h"
#include "qbench.h"
#include "sata.h"

#define DEFAULT_SEED 1

/* qd=1,2,4 into depths[]; returns how many, or -1 (and a message). */
static int parse_depths(int argc, char **argv, uint32_t *depths, int max)
{
	static const uint32_t dflt[] = {1, 2, 4, 8, 16, 32};
	const char *list = NULL;
	for (int i = 1; i < argc; i++)
		if (strncmp(argv[i], "qd=", 3) == 0)
			list = argv[i] + 3;
	if (!list) {
		memcpy(depths, dflt, sizeof(dflt));
		return 6;
	}
	int n = 0;
	while (*list) {
		char word[12];
		int len = strcspn(list, ",");
		uint64_t v;
		if (len == 0 || len >= (int)sizeof(word) || n == max) {
			printf("%s: qd must be a comma list of 1..%d\n", argv[0], QBENCH_MAX_QD);
			return -1;
		}
		memcpy(word, list, len);
		word[len] = 0;
		if (parse_u64(word, &v) || v < 1 || v > QBENCH_MAX_QD) {
			printf("%s: queue depth '%s' is not 1..%d\n", argv[0], word, QBENCH_MAX_QD);
			return -1;
		}
		depths[n++] = v;
		list += len;
		if (*list == ',')
			list++;
	}
	return n;
}

static int cmd_qrandom(int argc, char **argv)
{
	uint64_t n, lba, range, sectors, seed, read_pct;
	uint32_t depths[QBENCH_MAX_QD];
	if (check_args(argc, argv, "n lba range sectors qd seed seq write mix") ||
	    opt(argc, argv, "n", 200, &n) || opt(argc, argv, "lba", 0, &lba) ||
	    opt(argc, argv, "sectors", 8, &sectors) || opt(argc, argv, "seed", DEFAULT_SEED, &seed) ||
	    opt(argc, argv, "mix", 100, &read_pct))
		return -1;
	int nd = parse_depths(argc, argv, depths, QBENCH_MAX_QD);
	if (nd < 0)
		return -1;
	int seq = flag(argc, argv, "seq");
	int write = flag(argc, argv, "write"), ranged = 0, mix = 0;
	for (int i = 1; i < argc; i++) {
		ranged |= strncmp(argv[i], "range=", 6) == 0;
		mix |= strncmp(argv[i], "mix=", 4) == 0;
	}
	if (flag(argc, argv, "mix") || (mix && (write || read_pct > 100))) {
		printf("qrandom: mix=P is the percentage of reads, 0..100 (the rest are writes), "
		       "without write\n");
		return -1;
	}
	/* a mix writes (even mix=100 asks: the same rule as the host's --mix) */
	if ((write || mix) && !ranged) {
		printf("qrandom: %s destroys data: name the sectors with lba= and range=\n",
		       mix ? "a mix writes: it" : "write");
		return -1;
	}
	if (!qbench_present()) {
		printf("qrandom: this gateware has no queued engine (sata_qbench)\n");
		return -1;
	}
	if (mix && !qbench_has_mix()) {
		printf("qrandom: this gateware's queued engine has no read/write mix (sata_qbench_mix)\n");
		return -1;
	}
	int err = bench_ready();
	if (err)
		return fail("qrandom", err);
	if (!sata_id.ncq) {
		printf("qrandom: the drive does not advertise NCQ (IDENTIFY word 76 bit 8): nothing sent\n");
		return -1;
	}
	for (int i = 0; i < nd; i++)
		if (depths[i] > (uint32_t)sata_id.queue_depth) {
			printf("qrandom: queue depth %lu is above the drive's %d: nothing sent\n",
			       (unsigned long)depths[i], sata_id.queue_depth);
			return -1;
		}
	if (opt(argc, argv, "range", lba < sata_id.sectors ? sata_id.sectors - lba : 0, &range))
		return -1;
	if (n == 0 || n > 0xffffffffull || sectors == 0 || sectors > BENCH_MAX_SECTORS ||
	    sectors > range || seed > 0xffffffffull) {
		printf("qrandom: n >= 1, sectors 1..%u and <= range, seed 32 bits\n", BENCH_MAX_SECTORS);
		return -1;
	}
	/* a write asks for `yes` here, after the range is known to lie inside the drive */
	if (prepare("qrandom", lba, range, write || mix))
		return -1;
	char s[21];
	uint32_t mix_value = qbench_mix_value(read_pct);
	printf("qrandom: %s %s %s of ", u64s(s, n), seq ? "sequential" : "random",
	       mix ? "reads and writes" : write ? "writes" : "reads");
	printf("%s sectors (%s FPDMA QUEUED) in LBAs ", u64s(s, sectors),
	       mix ? "READ/WRITE" : write ? "WRITE" : "READ");
	printf("%s..", u64s(s, lba));
	printf("%s (Quantum SSD paper Fig. 6)\n", u64s(s, lba + range - 1));
	if (mix)
		printf("mix: %lu %% reads (fio's rwmixread): each command a write with probability "
		       "%lu/%u, drawn from the seed\n", (unsigned long)read_pct,
		       (unsigned long)mix_value, QBENCH_MIX_ONE);
	if (write || mix)
		printf("note: queued writes end without FLUSH CACHE EXT: with the drive's write cache on "
		       "they measure the cache\n");
	printf("%4s %10s %10s %12s %6s", "QD", "IOPS", "MB/s", "avg lat us", "depth");
	if (mix)
		printf(" %10s %10s %8s", "reads", "writes", "% reads");
	printf("\n");
	for (int i = 0; i < nd; i++) {
		struct qbench_run r = {0};
		r.op = mix ? QBENCH_MIX : write ? BENCH_WRITE : BENCH_READ;
		r.mix = mix_value;
		r.random = !seq;
		r.lba = lba;
		r.range = range / sectors * sectors;
		r.sectors = sectors;
		r.commands = n;
		r.seed = seed;
		r.qd = depths[i];
		err = qbench_run(&r);
		if (err) {
			if (r.ncq_errors) {
				printf("qrandom: QD %lu: NCQ error (%s)", (unsigned long)depths[i],
				       qbench_reason_name(r.ncq_reason));
				if (r.ncq_tag_valid)
					printf(" on tag %lu", (unsigned long)r.ncq_tag);
				printf(" at LBA %s; ", u64s(s, r.ncq_lba));
				printf("%lu aborted command(s) re-issued, %lu failed of %lu completed\n",
				       (unsigned long)r.reissued, (unsigned long)r.errors,
				       (unsigned long)r.completed);
			}
			return fail("qrandom", err);
		}
		put_u64(depths[i], 4);
		put_u64(r.cycles ? (uint64_t)r.completed * CONFIG_CLOCK_FREQUENCY / r.cycles : 0, 11);
		put_mbps(r.bytes, r.cycles, 11);
		put_us(r.lat.count ? r.lat.sum / r.lat.count : 0, 13);
		put_u64(r.depth_max, 7);
		if (mix) {
			/* the achieved split, from the engine's counters */
			uint32_t done = r.completed_reads + r.completed_writes;
			put_u64(r.completed_reads, 11);
			put_u64(r.completed_writes, 11);
			put_x100(done ? (uint64_t)r.completed_reads * 10000 / done : 0, 9);
		}
		printf("\n");
	}
	return 0;
}

const struct command qbench_commands[] = {
	{CONSOLE_QRANDOM, cmd_qrandom},
	{NULL, NULL, NULL, NULL},
};
