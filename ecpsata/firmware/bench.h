/* SPDX-License-Identifier: BSD-2-Clause */
/* Driver of the benchmark engine (ecpsata/engines/engine.py, CSRs sata_bench_*): one hardware run
 * or a firmware loop of single commands, with every figure taken from the engine's cycle counters.
 * Every call returns a sata_err code instead of waiting forever. */
#ifndef ECPSATA_BENCH_H
#define ECPSATA_BENCH_H

#include <stdint.h>

/* status.state and status.reason of both engines: BENCH_STATE_*, BENCH_REASON_* */
#include <generated/sata_codes.h>

enum bench_op { BENCH_READ = 0, BENCH_WRITE = 1, BENCH_WRITE_VERIFY = 2 };
enum bench_hist { BENCH_HIST_LATENCY = 0, BENCH_HIST_FIRST_DATA = 1, BENCH_HIST_GAP = 2 };

#define BENCH_MAX_SECTORS   65536u   /* READ/WRITE DMA EXT */
#define BENCH_MAX_SECTORS28 256u     /* READ/WRITE DMA */
#define BENCH_LBA28_LIMIT   (1ull << 28)
#define BENCH_HIST_BUCKETS  32
#define BENCH_DEFAULT_SEED  1        /* pattern seed of the console's runs */

struct bench_stat {                  /* min / max / sum over count samples, in sys cycles */
	uint64_t min, max, sum;
	uint32_t count;
};

struct bench_run {
	/* parameters */
	int op, random, verify, lba28, hist_source;
	int flush;                       /* a write run ends with FLUSH CACHE EXT (in cycles too) */
	uint64_t lba, range;             /* hardware loop: LBAs in [lba, lba + range) */
	uint32_t sectors, commands, seed;
	/* results (bench_collect) */
	uint64_t cycles, bytes;
	uint64_t flush_cycles;           /* time in the flush, issue to status */
	uint32_t completed, errors, mismatch_dwords, mismatch_sectors;
	uint64_t first_bad_lba;
	struct bench_stat lat, first_data, gap;
};

/* 1 when the drive needs 28-bit commands (IDENTIFY word 83 bit 10 clear). */
int bench_auto_lba28(void);
/* Largest command of the current drive: 65,536 sectors, or 256 for 28-bit commands. */
uint32_t bench_max_command(int lba28);
/* Check that the gateware has the engine, the link is up and the drive ready, IDENTIFY ran (runs
 * it if not) and the drive's sectors are 512 bytes. */
int bench_ready(void);

/* Hardware loop: `commands` commands of `sectors` sectors, results in r. */
int bench_hw_run(struct bench_run *r);

/* Firmware loop: bench_fw_begin clears the counters, bench_fw_command issues one command at lba
 * and waits for it (the engine's timers keep running between commands), bench_collect reads the
 * accumulated counters. `last`: the loop's final command, which a write with r->flush ends with
 * FLUSH CACHE EXT. */
int bench_fw_begin(struct bench_run *r);
int bench_fw_command(struct bench_run *r, uint64_t lba, int last);
void bench_collect(struct bench_run *r);

/* Sequential hardware runs over [lba, lba + count): as many commands of the largest size as fit,
 * then one command for the rest; counters summed into *sum. A write's last run flushes when
 * `flush` is set. */
int bench_span(int op, int verify, int lba28, uint64_t lba, uint64_t count, uint32_t seed, int flush,
               struct bench_run *sum);
/* `commands` commands of `sectors` at consecutive LBAs, issued by the firmware (fw) or the engine;
 * a write ends with FLUSH CACHE EXT when `flush` is set. */
int bench_loop(int fw, int op, int lba28, uint64_t lba, uint32_t sectors, uint32_t commands,
               int flush, struct bench_run *r);

/* Samples in histogram bucket k (values in [2^k, 2^(k+1)) cycles; bucket 0 holds 0 and 1). */
uint32_t bench_hist_bucket(int k);
uint64_t bench_first_data_sum(void);

/* Figures from cycle counts at the SoC's nominal clock. */
uint64_t bench_mbps_x100(uint64_t bytes, uint64_t cycles);   /* 10^6 B/s, times 100 */
uint64_t bench_us_x100(uint64_t cycles);                     /* microseconds, times 100 */

#endif
