// SPDX-License-Identifier: BSD-2-Clause
/* The virtual drive inside Icarus Verilog, for the four-state run (ecpsata/checks/xprop.py).
 *
 *   $vdrive_open("key=value,...");        once, before the first step
 *   $vdrive_step(tx, gen, rx, rx_los);    at each rising edge of the host's TX word clock: the
 *                                         host's word in, the drive's word and its squelch out,
 *                                         1 time unit after the edge (as a line's delay)
 *   n = $vdrive_xwords;                   host words that had an X or Z bit (sent to the drive
 *                                         as 0: the drive never sees an unknown bit)
 *   $vdrive_stats("FILE");                the drive's statistics as JSON
 */
#include <stdint.h>
#include <stdio.h>
#include <vpi_user.h>

#include "vdrive.h"

static vdrive_t *vd;
static PLI_INT32 xwords;

static vpiHandle next_arg(vpiHandle args)
{
	return args ? vpi_scan(args) : NULL;
}

static PLI_INT32 open_calltf(PLI_BYTE8 *user)
{
	vpiHandle args = vpi_iterate(vpiArgument, vpi_handle(vpiSysTfCall, NULL));
	vpiHandle key = next_arg(args);
	s_vpi_value v = {.format = vpiStringVal};
	char err[256];
	(void)user;
	vpi_get_value(key, &v);
	vpi_free_object(args);
	vd = vdrive_create_str(v.value.str, err, sizeof(err));
	if (vd == NULL) {
		vpi_printf("vdrive: %s\n", err);
		vpi_control(vpiFinish, 1);
	}
	return 0;
}

static PLI_INT32 step_calltf(PLI_BYTE8 *user)
{
	vpiHandle args = vpi_iterate(vpiArgument, vpi_handle(vpiSysTfCall, NULL));
	vpiHandle tx = next_arg(args), gen = next_arg(args), rx = next_arg(args), los = next_arg(args);
	s_vpi_value v = {.format = vpiVectorVal};
	s_vpi_time after = {.type = vpiSimTime, .high = 0, .low = 1};
	uint32_t word, gen_bit, rx_word;
	int rx_los;
	(void)user;
	vpi_free_object(args);
	if (vd == NULL)
		return 0;
	vpi_get_value(tx, &v);
	word = v.value.vector[0].aval & 0xFFFFF;
	if (v.value.vector[0].bval & 0xFFFFF) {
		xwords++;
		word = 0;
	}
	vpi_get_value(gen, &v);
	gen_bit = v.value.vector[0].aval & 1;
	if (v.value.vector[0].bval & 1) {
		xwords++;
		gen_bit = 1;
	}
	rx_word = vdrive_step(vd, word, gen_bit ? 2 : 1, &rx_los);
	v.format = vpiIntVal;
	v.value.integer = (PLI_INT32)rx_word;
	vpi_put_value(rx, &v, &after, vpiTransportDelay);
	v.value.integer = rx_los;
	vpi_put_value(los, &v, &after, vpiTransportDelay);
	return 0;
}

static PLI_INT32 xwords_calltf(PLI_BYTE8 *user)
{
	s_vpi_value v = {.format = vpiIntVal};
	(void)user;
	v.value.integer = xwords;
	vpi_put_value(vpi_handle(vpiSysTfCall, NULL), &v, NULL, vpiNoDelay);
	return 0;
}

static PLI_INT32 stats_calltf(PLI_BYTE8 *user)
{
	vpiHandle args = vpi_iterate(vpiArgument, vpi_handle(vpiSysTfCall, NULL));
	vpiHandle path = next_arg(args);
	s_vpi_value v = {.format = vpiStringVal};
	(void)user;
	vpi_get_value(path, &v);
	vpi_free_object(args);
	if (vd != NULL && vdrive_write_stats(vd, v.value.str) != 0)
		vpi_printf("vdrive: cannot write %s\n", v.value.str);
	return 0;
}

static void register_all(void)
{
	s_vpi_systf_data tasks[] = {
		{vpiSysTask, 0, "$vdrive_open", open_calltf, NULL, NULL, NULL},
		{vpiSysTask, 0, "$vdrive_step", step_calltf, NULL, NULL, NULL},
		{vpiSysFunc, vpiIntFunc, "$vdrive_xwords", xwords_calltf, NULL, NULL, NULL},
		{vpiSysTask, 0, "$vdrive_stats", stats_calltf, NULL, NULL, NULL},
	};
	for (unsigned i = 0; i < sizeof(tasks) / sizeof(tasks[0]); i++)
		vpi_register_systf(&tasks[i]);
}

void (*vlog_startup_routines[])(void) = {register_all, NULL};
