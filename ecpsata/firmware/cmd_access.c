/* SPDX-License-Identifier: BSD-2-Clause */
/* Read-only access-time experiments on the benchmark engine: read time vs size (`latency`),
 * random single-sector access time (`access`), IOPS and MB/s vs request size (`random`). Every
 * time is a count of the engine's cycle counters; MB/s = 10^6 B/s at the SoC's nominal clock. */
#include <stdio.h>
#include <string.h>

#include <generated/csr.h>
#include <generated/mem.h>
#include <generated/sata_codes.h>
#include <generated/soc.h>

#include "bench.h"
#include "cmd_args.h"
#include "console.h"
#include "sata.h"

#define MAX_SAMPLES  4096     /* `access` samples, in main RAM after the CPU-path buffer */

static uint32_t *const samples = (uint32_t *)(MAIN_RAM_BASE + SATA_BUF_SECTORS * SATA_SECTOR);

/* latency -------------------------------------------------------------------------------------- */

static int cmd_latency(int argc, char **argv)
{
	uint64_t lba, min_kib, max_kib, runs;
	if (check_args(argc, argv, "lba min max runs") || opt(argc, argv, "lba", 0, &lba) ||
	    opt(argc, argv, "min", 16, &min_kib) || opt(argc, argv, "max", 4096, &max_kib) ||
	    opt(argc, argv, "runs", 10, &runs))
		return -1;
	if (runs < 3 || runs > 64 || min_kib == 0 || min_kib > max_kib || max_kib > 32768) {
		printf("latency: runs 3..64, min 1..max KiB, max <= 32768 KiB\n");
		return -1;
	}
	int err = bench_ready();
	if (err)
		return fail("latency", err);
	int lba28 = bench_auto_lba28();
	if (check_command_size("latency", max_kib * 2, lba28) || prepare("latency", lba, max_kib * 2, 0))
		return -1;
	char s[21];
	printf("latency: reads at LBA %s, ", u64s(s, lba));
	printf("%s runs per size, min and max dropped (e7SATA read test)\n", u64s(s, runs));
	print_mode(lba28);
	printf("%8s %12s %12s %12s %10s %12s\n", "KiB", "first us", "avg cycles", "avg us", "MB/s", "1st data us");
	for (uint64_t kib = min_kib; kib <= max_kib; kib *= 2) {
		uint64_t first = 0, sum = 0, lo = ~0ull, hi = 0, fd = 0, bytes = 0;
		for (uint64_t i = 0; i < runs; i++) {
			struct bench_run r = {0};
			r.op = BENCH_READ;
			r.lba28 = lba28;
			r.lba = lba;
			r.range = r.sectors = kib * 2;
			r.commands = 1;
			err = bench_hw_run(&r);
			if (err)
				return fail("latency", err);
			if (i == 0)
				first = r.cycles;
			sum += r.cycles;
			fd += r.first_data.sum;
			bytes = r.bytes;
			if (r.cycles < lo)
				lo = r.cycles;
			if (r.cycles > hi)
				hi = r.cycles;
		}
		uint64_t avg = (sum - lo - hi) / (runs - 2);
		put_u64(kib, 8);
		put_us(first, 13);
		put_u64(avg, 13);
		put_us(avg, 13);
		put_mbps(bytes, avg, 11);
		put_us(fd / runs, 13);
		printf("\n");
	}
	return 0;
}

/* access --------------------------------------------------------------------------------------- */

static uint64_t xorshift(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static void sort_u32(uint32_t *v, int n)
{
	for (int gap = n / 2; gap > 0; gap /= 2)   /* Shell sort: small and fast enough here */
		for (int i = gap; i < n; i++) {
			uint32_t t = v[i];
			int j = i;
			for (; j >= gap && v[j - gap] > t; j -= gap)
				v[j] = v[j - gap];
			v[j] = t;
		}
}

static void print_histogram(void)
{
	printf("histogram (issue to first data):\n%14s %14s %8s\n", "from us", "below us", "count");
	for (int k = 0; k < BENCH_HIST_BUCKETS; k++) {
		uint32_t c = bench_hist_bucket(k);
		if (!c)
			continue;
		put_us(k ? 1ull << k : 0, 14);
		if (k == BENCH_HIST_BUCKETS - 1)
			printf("%15s", "-");
		else
			put_us(2ull << k, 15);
		put_u64(c, 9);
		printf("\n");
	}
}

static int cmd_access(int argc, char **argv)
{
	uint64_t n, lba, range, seed;
	if (check_args(argc, argv, "n lba range seed") || opt(argc, argv, "n", 100, &n) ||
	    opt(argc, argv, "lba", 0, &lba) || opt(argc, argv, "seed", BENCH_DEFAULT_SEED, &seed))
		return -1;
	int err = bench_ready();
	if (err)
		return fail("access", err);
	if (opt(argc, argv, "range", lba < sata_id.sectors ? sata_id.sectors - lba : 0, &range))
		return -1;
	if (n == 0 || n > MAX_SAMPLES) {
		printf("access: n must be 1..%d\n", MAX_SAMPLES);
		return -1;
	}
	if (prepare("access", lba, range, 0))
		return -1;
	int lba28 = bench_auto_lba28();
	struct bench_run r = {0};
	r.op = BENCH_READ;
	r.lba28 = lba28;
	r.sectors = 1;
	r.hist_source = BENCH_HIST_FIRST_DATA;
	err = bench_fw_begin(&r);
	uint64_t x = 0x9e3779b97f4a7c15ull ^ seed, before = 0;
	for (uint64_t i = 0; i < n && !err; i++) {
		err = bench_fw_command(&r, lba + xorshift(&x) % range, 0);
		uint64_t sum = bench_first_data_sum();
		samples[i] = sum - before;
		before = sum;
	}
	if (err)
		return fail("access", err);
	bench_collect(&r);
	sort_u32(samples, n);
	char s[21];
	printf("access: %s single-sector reads at random LBAs in ", u64s(s, n));
	printf("%s..", u64s(s, lba));
	printf("%s, issue to first data dword (Quantum SSD paper)\n", u64s(s, lba + range - 1));
	print_mode(lba28);
	printf("%10s %10s %10s %10s %10s\n", "min us", "median us", "p99 us", "max us", "avg us");
	put_us(samples[0], 10);
	put_us(samples[(n - 1) / 2], 11);
	put_us(samples[(n * 99 + 99) / 100 - 1], 11);
	put_us(samples[n - 1], 11);
	put_us(r.first_data.sum / r.first_data.count, 11);
	printf("\n");
	print_histogram();
	return 0;
}

/* random --------------------------------------------------------------------------------------- */

static int cmd_random(int argc, char **argv)
{
	uint64_t n, lba, range, max, seed;
	if (check_args(argc, argv, "n lba range max seed") || opt(argc, argv, "n", 200, &n) ||
	    opt(argc, argv, "lba", 0, &lba) || opt(argc, argv, "max", 256, &max) ||
	    opt(argc, argv, "seed", BENCH_DEFAULT_SEED, &seed))
		return -1;
	int err = bench_ready();
	if (err)
		return fail("random", err);
	if (opt(argc, argv, "range", lba < sata_id.sectors ? sata_id.sectors - lba : 0, &range))
		return -1;
	int lba28 = bench_auto_lba28();
	if (n == 0 || n > 0xffffffffull || max > range) {
		printf("random: n >= 1 and max <= range\n");
		return -1;
	}
	if (check_command_size("random", max, lba28) || prepare("random", lba, range, 0))
		return -1;
	char s[21];
	printf("random: %s reads per size, queue depth 1, LBAs in ", u64s(s, n));
	printf("%s..", u64s(s, lba));
	printf("%s (Quantum SSD paper Fig. 5, 6)\n", u64s(s, lba + range - 1));
	print_mode(lba28);
	printf("%8s %12s %10s %12s %10s\n", "sectors", "random IOPS", "MB/s", "seq IOPS", "MB/s");
	for (uint64_t size = 1; size <= max; size *= 2) {
		put_u64(size, 8);
		for (int rnd = 1; rnd >= 0; rnd--) {
			struct bench_run r = {0};
			r.op = BENCH_READ;
			r.random = rnd;
			r.lba28 = lba28;
			r.lba = lba;
			r.range = range / size * size;
			r.sectors = size;
			r.commands = n;
			r.seed = seed;
			err = bench_hw_run(&r);
			if (err)
				return fail("random", err);
			put_u64(r.cycles ? (uint64_t)r.completed * CONFIG_CLOCK_FREQUENCY / r.cycles : 0, 13);
			put_mbps(r.bytes, r.cycles, 11);
		}
		printf("\n");
	}
	return 0;
}

const struct command access_commands[] = {
	{CONSOLE_LATENCY, cmd_latency},
	{CONSOLE_ACCESS, cmd_access},
	{CONSOLE_RANDOM, cmd_random},
	{NULL, NULL, NULL, NULL},
};
