/* SPDX-License-Identifier: BSD-2-Clause */
/* The link event log: `events` prints it, `events clear` empties it (events.h). */
#include <stdio.h>
#include <string.h>

#include <generated/csr.h>
#include <generated/sata_codes.h>
#include <generated/soc.h>

#include "bench.h"
#include "cmd_args.h"
#include "console.h"
#include "events.h"
#include "sata.h"

#ifdef CSR_SATA_EVENTS_BASE

#define DEPTH SATA_EVENTS_DEPTH   /* ring slots (generated/soc.h) */
#define ENTRY(value, NAME) \
	(((value) >> CSR_SATA_EVENTS_ENTRY_##NAME##_OFFSET) & ((1u << CSR_SATA_EVENTS_ENTRY_##NAME##_SIZE) - 1))
#define PHY_STATE_MASK 0xfu   /* PHY_STATE: the state in bits 0-3, Gen2 in bit 4 */

static const char *const event_texts[] = LINK_EVENT_TEXTS;
static const char *const reason_texts[] = CMD_REASON_TEXTS;
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static void print_us(uint64_t cycles)
{
	uint64_t x100 = bench_us_x100(cycles);
	char s[21];
	printf("%12s.%02u", u64s(s, x100 / 100), (unsigned)(x100 % 100));
}

static void print_event(uint32_t entry, uint64_t time)
{
	unsigned code = ENTRY(entry, CODE), arg = ENTRY(entry, ARG);
	print_us(time);
	printf("  %s", code < COUNT(event_texts) ? event_texts[code] : "?");
	switch (code) {
	case LINK_EVENT_PHY_STATE:
		printf(" %s (Gen%u)", sata_state_name(arg & PHY_STATE_MASK), (arg >> 4 & 1) + 1);
		break;
	case LINK_EVENT_TX_READY: case LINK_EVENT_RX_READY: case LINK_EVENT_LINK:
	case LINK_EVENT_DRIVE_READY:
		printf(arg ? " up" : " down");
		break;
	case LINK_EVENT_RX_POLARITY:
		printf(arg ? " inverted" : " normal");
		break;
	case LINK_EVENT_LINE:
		printf(arg ? " signal" : " quiet");
		break;
	case LINK_EVENT_DEVICE_ERROR:
		printf(", error register 0x%02x", arg);
		break;
	case LINK_EVENT_CMD_FAILED:
		printf(": %s", arg < COUNT(reason_texts) ? reason_texts[arg] : "unknown reason");
		break;
	}
	printf("\n");
}

void events_print(unsigned last)
{
	uint32_t count = sata_events_count_read();
	uint32_t held = count < DEPTH ? count : DEPTH;
	if (last == 0 || last > held)
		last = held;
	char s[21];
	printf("events: %lu since the clear, the last %u shown (%lu lost), times in us since power-up "
	       "(now %s)\n", (unsigned long)count, last, (unsigned long)sata_events_lost_read(),
	       u64s(s, bench_us_x100(sata_events_now_read()) / 100));
	for (uint32_t n = count - last; n != count; n++) {
		sata_events_index_write(n % DEPTH);
		print_event(sata_events_entry_read(), sata_events_time_read());
	}
}

static int cmd_events(int argc, char **argv)
{
	uint64_t last = 0;
	if (argc > 2)
		return console_usage(argv[0]);
	if (argc == 2 && strcmp(argv[1], "clear") == 0) {
		sata_events_control_write(1u << CSR_SATA_EVENTS_CONTROL_CLEAR_OFFSET);
		printf("events: cleared\n");
		return 0;
	}
	if (argc == 2 && console_number(argv, 1, "N", &last))
		return -1;
	events_print((unsigned)(last > DEPTH ? DEPTH : last));
	return 0;
}

#else

void events_print(unsigned last) { }

static int cmd_events(int argc, char **argv)
{
	printf("events: this gateware has no event log\n");
	return -1;
}

#endif

const struct command events_commands[] = {
	{"events", "[N|clear]", "the link event log: the last N events (all by default), or clear it", cmd_events},
	{NULL, NULL, NULL, NULL},
};
