/* SPDX-License-Identifier: BSD-2-Clause */
/* The console: a line editor, the command tables of every area, `help`. */
#include <stdio.h>
#include <string.h>

#include <libbase/uart.h>
#include <libbase/console.h>

#include "console.h"

static const struct command *const command_tables[] = {
	system_commands,
	sata_commands,
	drive_commands,
	health_commands,
	bench_commands,
	access_commands,
	qbench_commands,
	events_commands,
	phy_commands,
	selftest_commands,
};

#define PROMPT "ecpsata> "

static int printable(int c)
{
	return c >= 0x20 && c < 0x7f;
}

/* A line holds printable ASCII only: any other byte (a control character other than the editing
 * keys, a byte >= 0x80 such as half of a UTF-8 character) is echoed as '?' and the line is refused,
 * so that the console never runs something other than what the terminal shows. Past the end of
 * buf, characters are neither stored nor echoed and the line is refused when it ends; reading
 * goes on to its end, so that the next line starts intact. Bytes sent meanwhile wait in the UART's
 * RX FIFO, which holds the sender back when full (polled UART: ecpsata/soc/builder.py). */
int console_readline(char *buf, int size)
{
	int n = 0;
	int over = 0;  /* characters past the end of buf */
	for (;;) {
		int c = getchar();
		if (c == '\r' || c == '\n')
			break;
		if (c == 0x7f || c == '\b') {
			if (over > 0) {
				over--;
			} else if (n > 0) {
				n--;
				fputs("\b \b", stdout);
			}
			continue;
		}
		if (n >= size - 1) {
			over++;
			continue;
		}
		buf[n++] = c;
		putchar(printable(c) ? c : '?');
	}
	putchar('\n');
	buf[n] = 0;
	if (over > 0) {
		printf("line too long (max %d characters), ignored\n", size - 1);
		buf[0] = 0;
		return -1;
	}
	for (int i = 0; i < n; i++)
		if (!printable((unsigned char)buf[i])) {
			printf("line has bytes that are not printable ASCII (echoed as '?'), ignored\n");
			buf[0] = 0;
			return -1;
		}
	return n;
}

int parse_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	int base = 10;
	if (s == NULL || *s == 0)
		return -1;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
		if (*s == 0)
			return -1;
	}
	for (; *s; s++) {
		int d;
		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			return -1;
		if (v > (UINT64_MAX - d) / base)
			return -1;
		v = v * base + d;
	}
	*out = v;
	return 0;
}

int console_confirm(const char *word)
{
	char line[32];
	printf("type '%s' to go on: ", word);
	console_readline(line, sizeof(line));
	if (strcmp(line, word) != 0) {
		printf("not confirmed: nothing written\n");
		return 0;
	}
	return 1;
}

/* The words of line into argv; -1 when there are more than CONSOLE_MAX_ARGS. */
static int split(char *line, char **argv)
{
	int argc = 0;
	char *p = line;
	while (*p && argc < CONSOLE_MAX_ARGS) {
		while (*p == ' ')
			*p++ = 0;
		if (*p == 0)
			break;
		argv[argc++] = p;
		while (*p && *p != ' ')
			p++;
	}
	while (*p == ' ')
		p++;
	return *p ? -1 : argc;
}

static const struct command *find(const char *name)
{
	for (unsigned t = 0; t < sizeof(command_tables) / sizeof(command_tables[0]); t++)
		for (const struct command *c = command_tables[t]; c->name; c++)
			if (strcmp(c->name, name) == 0)
				return c;
	return NULL;
}

int console_usage(const char *name)
{
	const struct command *c = find(name);
	const char *args = c ? c->args : "";
	printf("usage: %s%s%s\n", name, *args ? " " : "", args);
	return -1;
}

int console_number(char **argv, int i, const char *what, uint64_t *out)
{
	if (parse_u64(argv[i], out) == 0)
		return 0;
	printf("%s: %s '%s' is not a number (decimal, or hex with 0x)\n", argv[0], what, argv[i]);
	return -1;
}

static void help(void)
{
	for (unsigned t = 0; t < sizeof(command_tables) / sizeof(command_tables[0]); t++)
		for (const struct command *c = command_tables[t]; c->name; c++)
			printf("  %-10s %-24s %s\n", c->name, c->args, c->help);
	printf("options of the runs that write (single, long, hwloop, overhead, lba28, cpu with 'write'; verify):\n");
	printf("  %-35s %s\n", "noflush", "no FLUSH CACHE EXT at the end (the drive's write cache may hold the data)");
	printf("  %-35s %s\n", "cache=on|off", "the drive's write cache for this run (SET FEATURES), restored after");
}

void console_loop(void)
{
	char line[CONSOLE_LINE];
	char *argv[CONSOLE_MAX_ARGS];
	for (;;) {
		fputs(PROMPT, stdout);
		if (console_readline(line, sizeof(line)) < 0)
			continue;
		int argc = split(line, argv);
		if (argc < 0) {
			printf("too many arguments (max %d), ignored\n", CONSOLE_MAX_ARGS - 1);
			continue;
		}
		if (argc == 0)
			continue;
		if (strcmp(argv[0], "help") == 0) {
			help();
			continue;
		}
		const struct command *c = find(argv[0]);
		if (c == NULL) {
			printf("unknown command '%s' (try 'help')\n", argv[0]);
			continue;
		}
		if (c->args[0] == 0 && argc > 1) {
			printf("%s takes no arguments\n", argv[0]);
			continue;
		}
		c->run(argc, argv);  /* commands explain their own failures */
	}
}
