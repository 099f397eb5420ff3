/* SPDX-License-Identifier: BSD-2-Clause */
/* The console: a line editor and a table of commands. */
#ifndef ECPSATA_CONSOLE_H
#define ECPSATA_CONSOLE_H

#include <stdint.h>

#define CONSOLE_MAX_ARGS 8
#define CONSOLE_LINE     128  /* bytes of a command line, with its terminating 0 */

struct command {
	const char *name;
	const char *args;  /* usage of the arguments, "" if none */
	const char *help;
	int (*run)(int argc, char **argv);  /* 0 on success; prints why otherwise */
};

/* Commands of each area, terminated by an entry with name NULL. */
extern const struct command system_commands[];
extern const struct command sata_commands[];
extern const struct command drive_commands[];
extern const struct command health_commands[];
extern const struct command bench_commands[];
extern const struct command access_commands[];
extern const struct command qbench_commands[];
extern const struct command events_commands[];
extern const struct command phy_commands[];
extern const struct command selftest_commands[];

/* One SCI access to the DCU (cmd_phy.c): value < 0 reads; the value read, or -1 after saying why. */
int phy_sci(int aux, unsigned adr, int value);
/* `phy scan [MS]` (cmd_physcan.c): argv as the console gives it; 0 when a set linked. */
int phy_scan(int argc, char **argv);

void console_loop(void);

/* Console character I/O that leaves the bus idle while it waits (console_io.c); call after uart_init. */
void console_io_init(void);
/* Read one line (blocking); returns its length, without the newline. A line too long for buf or
 * holding bytes that are not printable ASCII is refused: -1 after saying why, buf empty. */
int console_readline(char *buf, int size);
/* Parse an unsigned number (decimal, or hex with 0x); 0 on success. */
int parse_u64(const char *s, uint64_t *out);
/* argv[i] as a number; else prints "CMD: WHAT 'ARG' is not a number" and returns -1. */
int console_number(char **argv, int i, const char *what, uint64_t *out);
/* Prints "usage: NAME ARGS" from the command table; returns -1. */
int console_usage(const char *name);
/* Ask the user to type `word`; returns 1 only when they did. */
int console_confirm(const char *word);

#endif
