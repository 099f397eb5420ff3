/* SPDX-License-Identifier: BSD-2-Clause */
/* Time from the SoC's timer: every wait in the firmware has a deadline in microseconds. */
#ifndef ECPSATA_CLOCK_H
#define ECPSATA_CLOCK_H

#include <stdint.h>

#include <generated/csr.h>
#include <generated/soc.h>

static inline uint64_t clock_cycles(void)
{
	timer0_uptime_latch_write(1);
	return timer0_uptime_cycles_read();
}

static inline uint64_t clock_us(void)
{
	return clock_cycles() / (CONFIG_CLOCK_FREQUENCY / 1000000);
}

#endif
