/* SPDX-License-Identifier: BSD-2-Clause */
/* The console's character input and output, in place of LiteX libc's: the same polled UART, but a
 * wait (for a key, or for room in the transmit FIFO) reads the UART's status once per pause instead
 * of back to back.
 *
 * Why: the console is a crossover UART that only the host's bridge empties. Nobody reads it while
 * the host runs an experiment, so after the boot banner the CPU waited for room in its transmit
 * FIFO for ever, reading a CSR every few cycles. Those reads held the SoC's shared bus nearly all
 * the time, and every word the bridge (UART bridge or Etherbone) read or wrote waited for one: in
 * the simulated ECPIX-5 a 128-word read over the bridge took 3,098 sys cycles, against 1,133 with
 * the CPU held in reset. A pause is a loop in registers and the instruction cache (no bus access)
 * of about a thousand cycles, some microseconds, far below the time a character takes on a UART. */
#include <stdio.h>

#include <generated/csr.h>
#include <libbase/uart.h>

#include "console.h"

#define PAUSE_LOOPS 512

static void pause(void)
{
	for (unsigned int i = 0; i < PAUSE_LOOPS; i++)
		__asm__ volatile("nop");
}

static int put(char c, FILE *file)
{
	(void)file;
	while (uart_txfull_read())
		pause();
	uart_rxtx_write(c);
	uart_ev_pending_write(UART_EV_TX);
	if (c == '\n')
		put('\r', file);
	return (unsigned char)c;
}

static int get(FILE *file)
{
	(void)file;
	while (uart_rxempty_read())
		pause();
	int c = uart_rxtx_read();
	uart_ev_pending_write(UART_EV_RX);
	return c;
}

void console_io_init(void)
{
	stdout->put = put;
	stdin->get = get;
}
