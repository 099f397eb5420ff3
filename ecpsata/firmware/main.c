/* SPDX-License-Identifier: BSD-2-Clause */
/* ecpsata firmware: the console on the SoC's CPU. The CPU controls; data never passes through it
 * except in the deliberate CPU-path benchmark. */
#include <stdio.h>

#include <generated/csr.h>
#include <irq.h>
#include <libbase/uart.h>

#include "console.h"

int main(void)
{
#ifdef CONFIG_CPU_HAS_INTERRUPT
	irq_setmask(0);
	irq_setie(1);
#endif
	uart_init();
	console_io_init();
	printf("\necpsata firmware, type 'help' for the commands\n");
	console_loop();
	return 0;
}
