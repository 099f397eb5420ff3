/* SPDX-License-Identifier: BSD-2-Clause */
/* The link event log (ecpsata/frontend/events.py, CSRs sata_events_*): the console's `events`,
 * and the last events printed after a failed link attempt or command. */
#ifndef ECPSATA_EVENTS_H
#define ECPSATA_EVENTS_H

/* Prints the last `last` events of the log (0: all it holds), oldest first, with their names and
 * times in microseconds since power-up. Nothing on a gateware without the log. */
void events_print(unsigned last);

#endif
