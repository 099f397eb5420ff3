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

/* Prints what went wrong (and for a device error the drive's registers; after a timeout the
 * link is reset); returns err. */
int fail(const char *what, int err);
/* Engine, link and IDENTIFY present, [lba, lba + count) inside the drive, and for writes the
 * user's confirmation. Nothing is sent to the drive before this returns 0. */
int prepare(const char *what, uint64_t lba, uint64_t count, int write);

#endif
