/* Driver of the benchmark engine (gateware/bench/engine.py, CSRs sata_bench_*): one hardware run
 * or a firmware loop of single commands, with every figure taken from the engine's cycle counters.
 * Every call returns a sata_err code instead of waiting forever. */
#ifndef ECPSATA_BENCH_H
#define ECPSATA_BENCH_H

#include <stdint.h>

enum bench_op { BENCH_READ = 0, BENCH_WRITE = 1, BENCH_WRITE_VERIFY = 2 };
enum bench_hist { BENCH_HIST_LATENCY = 0, BENCH_HIST_FIRST_DATA = 1, BENCH_HIST_GAP = 2 };
/* status.state and status.reason of both engines (gateware/bench/common.py STATES, REASONS). */
enum bench_state { BENCH_STATE_IDLE, BENCH_STATE_BUSY, BENCH_STATE_DONE, BENCH_STATE_ERROR };
enum bench_reason { BENCH_REASON_OK, BENCH_REASON_DEVICE_ERROR, BENCH_REASON_MISMATCH,
                    BENCH_REASON_TIMEOUT, BENCH_REASON_REFUSED, BENCH_REASON_ABORTED,
                    BENCH_REASON_LINK_LOST };

#define BENCH_MAX_SECTORS   65536u   /* READ/WRITE DMA EXT */
#define BENCH_MAX_SECTORS28 256u     /* READ/WRITE DMA */
#define BENCH_LBA28_LIMIT   (1ull << 28)
#define BENCH_HIST_BUCKETS  32

struct bench_stat {                  /* min / max / sum over count samples, in sys cycles */
	uint64_t min, max, sum;
	uint32_t count;
};

struct bench_run {
	/* parameters */
	int op, random, verify, lba28, hist_source;
	uint64_t lba, range;             /* hardware loop: LBAs in [lba, lba + range) */
	uint32_t sectors, commands, seed;
	/* results (bench_collect) */
	uint64_t cycles, bytes;
	uint32_t completed, errors, mismatch_dwords, mismatch_sectors;
	uint64_t first_bad_lba;
	struct bench_stat lat, first_data, gap;
};

/* 1 when the drive needs 28-bit commands (IDENTIFY word 83 bit 10 clear). */
int bench_auto_lba28(void);
/* Largest command of the current drive: 65,536 sectors, or 256 for 28-bit commands. */
uint32_t bench_max_command(int lba28);
/* Check that the gateware has the engine, the link is up and IDENTIFY ran (runs it if not). */
int bench_ready(void);

/* Hardware loop: `commands` commands of `sectors` sectors, results in r. */
int bench_hw_run(struct bench_run *r);

/* Firmware loop: bench_fw_begin clears the counters, bench_fw_command issues one command at lba
 * and waits for it (the engine's timers keep running between commands), bench_collect reads the
 * accumulated counters. */
int bench_fw_begin(struct bench_run *r);
int bench_fw_command(struct bench_run *r, uint64_t lba);
void bench_collect(struct bench_run *r);

/* Samples in histogram bucket k (values in [2^k, 2^(k+1)) cycles; bucket 0 holds 0 and 1). */
uint32_t bench_hist_bucket(int k);

/* Figures from cycle counts at the SoC's nominal clock. */
uint64_t bench_mbps_x100(uint64_t bytes, uint64_t cycles);   /* 10^6 B/s, times 100 */
uint64_t bench_us_x100(uint64_t cycles);                     /* microseconds, times 100 */

#endif
