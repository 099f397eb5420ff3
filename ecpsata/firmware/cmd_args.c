/* SPDX-License-Identifier: BSD-2-Clause */
/* What the console commands share: KEY=VALUE arguments, number output, error reports and the
 * checks made before anything is sent to the drive. */
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "cmd_args.h"
#include "console.h"
#include "events.h"
#include "sata.h"

/* Arguments ------------------------------------------------------------------------------------ */

/* Every word must be one of `keys` (space separated; KEY=VALUE or a flag). */
int check_args(int argc, char **argv, const char *keys)
{
	for (int i = 1; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');
		int n = eq ? eq - argv[i] : (int)strlen(argv[i]);
		const char *k = keys;
		int found = 0;
		while (*k && !found) {
			int m = strcspn(k, " ");
			found = m == n && strncmp(k, argv[i], n) == 0;
			k += m;
			while (*k == ' ')
				k++;
		}
		if (!found) {
			printf("%s: unknown argument '%s' (arguments: %s)\n", argv[0], argv[i], keys);
			return -1;
		}
	}
	return 0;
}

int flag(int argc, char **argv, const char *name)
{
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], name) == 0)
			return 1;
	return 0;
}

/* KEY=VALUE, or def when absent; -1 (and a message) when the value is not a number. */
int opt(int argc, char **argv, const char *key, uint64_t def, uint64_t *out)
{
	int n = strlen(key);
	*out = def;
	for (int i = 1; i < argc; i++)
		if (strncmp(argv[i], key, n) == 0 && argv[i][n] == '=') {
			if (parse_u64(argv[i] + n + 1, out)) {
				printf("%s: '%s' is not a number\n", argv[0], argv[i]);
				return -1;
			}
		}
	return 0;
}

/* Output ------------------------------------------------------------------------------------- */

const char *u64s(char *buf, uint64_t v)
{
	return sata_dec(buf, v);
}

/* x/100 with two decimals, right-aligned in width. */
void put_x100(uint64_t x, int width)
{
	char a[21], s[32];
	snprintf(s, sizeof(s), "%s.%02u", u64s(a, x / 100), (unsigned)(x % 100));
	printf("%*s", width, s);
}

void put_u64(uint64_t v, int width)
{
	char a[21];
	printf("%*s", width, u64s(a, v));
}

void put_mbps(uint64_t bytes, uint64_t cycles, int width)
{
	put_x100(bench_mbps_x100(bytes, cycles), width);
}

void put_us(uint64_t cycles, int width)
{
	put_x100(bench_us_x100(cycles), width);
}

/* Events fail() prints after a link, timeout or drive error. */
#define FAIL_EVENTS 12

int fail(const char *what, int err)
{
	printf("%s: %s\n", what, sata_strerror(err));
	if (err == SATA_ERR_DEVICE)
		sata_errors_report();
	if (err == SATA_ERR_LINK_DOWN || err == SATA_ERR_TIMEOUT || err == SATA_ERR_DEVICE ||
	    err == SATA_ERR_NOT_READY)
		events_print(FAIL_EVENTS);      /* what the link and the drive did last */
	sata_recover_if_needed(err);
	return err;
}

/* Common checks ------------------------------------------------------------------------------- */

/* Engine, link and IDENTIFY present, [lba, lba + count) inside the drive, and for writes the
 * user's confirmation. Nothing is sent to the drive before this returns 0. */
int prepare(const char *what, uint64_t lba, uint64_t count, int write)
{
	int err = bench_ready();
	if (err)
		return fail(what, err);
	if (count == 0 || lba >= sata_id.sectors || count > sata_id.sectors - lba) {
		char a[21], b[21], c[21];
		printf("%s: LBA range %s..%s is outside the drive (0..%s): nothing sent\n", what,
		       u64s(a, lba), u64s(b, lba + count - 1), u64s(c, sata_id.sectors - 1));
		return SATA_ERR_RANGE;
	}
	if (write) {
		char a[21], b[21];
		printf("this overwrites %s sector(s) from LBA ", u64s(a, count));
		printf("%s of '%s'\n", u64s(b, lba), sata_id.model);
		if (!console_confirm("yes"))
			return -1;
	}
	return 0;
}


/* Sizes beyond one command of the current drive are refused before anything is sent. */
int check_command_size(const char *what, uint64_t sectors, int lba28)
{
	if (sectors == 0 || sectors > bench_max_command(lba28)) {
		printf("%s: sectors per command must be 1..%lu%s\n", what,
		       (unsigned long)bench_max_command(lba28), lba28 ? " (28-bit commands)" : "");
		return -1;
	}
	return 0;
}

void print_mode(int lba28)
{
	printf("commands     %s%s\n", lba28 ? "READ DMA / WRITE DMA (28-bit)" : "READ DMA EXT / WRITE DMA EXT",
	       lba28 && !sata_id.lba48 ? ", chosen automatically: the drive has no 48-bit LBA" : "");
}

/* Write options --------------------------------------------------------------------------------- */

int write_opts_parse(int argc, char **argv, int write, struct write_opts *w)
{
	w->flush = !flag(argc, argv, "noflush");
	w->cache = -1;
	w->restore = -1;
	for (int i = 1; i < argc; i++)
		if (strncmp(argv[i], "cache=", 6) == 0) {
			if (strcmp(argv[i] + 6, "on") && strcmp(argv[i] + 6, "off")) {
				printf("%s: cache must be on or off, not '%s'\n", argv[0], argv[i] + 6);
				return -1;
			}
			w->cache = strcmp(argv[i] + 6, "on") == 0;
		}
	if (!write && (!w->flush || w->cache >= 0)) {
		printf("%s: noflush and cache= apply to runs that write: nothing sent\n", argv[0]);
		return -1;
	}
	return 0;
}

int write_opts_begin(const char *what, struct write_opts *w)
{
	if (w->cache < 0)
		return 0;
	if (!sata_id_valid || !sata_id.write_cache) {
		printf("%s: cache=: the drive has no volatile write cache to switch (IDENTIFY word 82 "
		       "bit 5): nothing sent\n", what);
		return -1;
	}
	int before = sata_id.write_cache_on;
	if (before == w->cache) {
		printf("write cache  %s for this run (it was already)\n", w->cache ? "on" : "off");
		return 0;
	}
	int err = sata_set_write_cache(w->cache);
	if (err) {
		sata_recover_if_needed(err);
		printf("%s: the write cache was not switched: nothing written\n", what);
		return -1;
	}
	w->restore = before;
	printf("write cache  %s for this run (SET FEATURES %s), %s before\n", sata_id.write_cache_on ? "on" : "off",
	       w->cache ? "02h" : "82h", before ? "on" : "off");
	return 0;
}

void write_opts_end(struct write_opts *w)
{
	if (w->restore < 0)
		return;
	int on = w->restore, err = sata_set_write_cache(on);
	w->restore = -1;
	sata_recover_if_needed(err);
	if (err)
		printf("write cache  NOT restored to %s (see above): 'wcache %s' puts it back\n",
		       on ? "on" : "off", on ? "on" : "off");
	else
		printf("write cache  restored to %s\n", sata_id.write_cache_on ? "on" : "off");
}

void write_opts_note(const struct write_opts *w)
{
	if (w->flush)
		printf("flush        write figures end after FLUSH CACHE EXT (the drive's cache written "
		       "to its medium), its time shown apart\n");
	else
		printf("flush        none (noflush): without FLUSH: the drive's write cache may hold the data\n");
}
