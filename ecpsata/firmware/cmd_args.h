/* SPDX-License-Identifier: BSD-2-Clause */
/* Arguments, output and common checks of the console commands (cmd_args.c). */
#ifndef ECPSATA_CMD_ARGS_H
#define ECPSATA_CMD_ARGS_H

#include <stdint.h>

/* Every word must be one of `keys` (space separated; KEY=VALUE or a flag). */
int check_args(int argc, char **argv, const char *keys);
int flag(int argc, char **argv, const char *name);
/* KEY=VALUE, or def when absent; -1 (and a message) when the value is not a number. */
int opt(int argc, char **argv, const char *key, uint64_t def, uint64_t *out);

const char *u64s(char *buf, uint64_t v);       /* buf: 21 bytes */
void put_x100(uint64_t x, int width);           /* x/100 with two decimals */
void put_u64(uint64_t v, int width);
void put_mbps(uint64_t bytes, uint64_t cycles, int width);
void put_us(uint64_t cycles, int width);

/* Checks of a benchmark's command size and the line naming its commands. */
int check_command_size(const char *what, uint64_t sectors, int lba28);
void print_mode(int lba28);

/* Options of the experiments that write. By default a write run ends with FLUSH CACHE EXT inside
 * its timed interval, so that its figures are the medium's, not the drive's cache's; `noflush`
 * measures without it. `cache=on|off` sets the drive's write cache for the run and restores it
 * afterwards, also after a failure. */
#define WRITE_KEYS "noflush cache"
struct write_opts {
	int flush;     /* 1 unless noflush */
	int cache;     /* -1: leave the drive's write cache alone; 0 / 1: off / on for the run */
	int restore;   /* -1: nothing to restore; else the state to put back */
};
/* `write`: the run writes (else noflush and cache= are refused). -1 after a message. */
int write_opts_parse(int argc, char **argv, int write, struct write_opts *w);
/* cache=: switch the drive's write cache (after the user's confirmation); -1 after a message. */
int write_opts_begin(const char *what, struct write_opts *w);
/* Put the write cache back as it was (after the run, failed or not). */
void write_opts_end(struct write_opts *w);
/* The line saying what the write figures include. */
void write_opts_note(const struct write_opts *w);

/* Prints what went wrong (and for a device error the drive's registers; after a timeout the
 * link is reset); returns err. */
int fail(const char *what, int err);
/* Engine, link and IDENTIFY present, [lba, lba + count) inside the drive, and for writes the
 * user's confirmation. Nothing is sent to the drive before this returns 0. */
int prepare(const char *what, uint64_t lba, uint64_t count, int write);

#endif
