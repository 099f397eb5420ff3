/* SPDX-License-Identifier: BSD-2-Clause */
/* Any ATA command through the sector buffer (ecpsata/frontend/buffer.py): data-in of a few
 * 512-byte blocks by PIO or DMA, and non-data commands whose answer is in the drive's ending
 * Register D2H (the error block's task-file registers).
 *
 * Ref: ACS-3 (the commands and their protocols); Serial ATA Revision 3.x (Register - Device to
 * Host FIS). */
#include <stdio.h>
#include <string.h>

#include <generated/csr.h>
#include <generated/mem.h>

#include "sata.h"

#if defined(CSR_SATA_BUFFER_CONTROL_CUSTOM_OFFSET) && defined(CSR_SATA_ERRORS_DEV_TF_LBA_ADDR)

static void read_tf(struct sata_tf *tf)
{
	tf->status = sata_errors_dev_tf_status_read();
	tf->error = sata_errors_dev_tf_error_read();
	tf->lba = sata_errors_dev_tf_lba_read();
	tf->count = sata_errors_dev_tf_count_read();
}

static int run(uint8_t command, uint16_t features, uint64_t lba, uint32_t count, uint32_t control,
               uint32_t timeout_us)
{
	int err = sata_wait_drive();
	if (!err)
		err = sata_check_ata();
	if (err)
		return err;
	sata_errors_mark();
	sata_buffer_command_write(command);
	sata_buffer_features_write(features);
	err = sata_buffer_run(lba, count, control, timeout_us);
	if (err) {
		printf("command %02Xh/%02Xh: %s\n", command, features, sata_strerror(err));
		if (err == SATA_ERR_DEVICE)
			sata_errors_report();
	}
	return err;
}

int sata_ata_in(uint8_t command, uint16_t features, uint64_t lba, uint32_t count, int pio,
                void *buf, uint32_t timeout_us)
{
	if (count < 1 || count > SATA_BUF_SECTORS)
		return SATA_ERR_RANGE;
	uint32_t control = 1u << CSR_SATA_BUFFER_CONTROL_CUSTOM_OFFSET;
	if (pio)
		control |= 1u << CSR_SATA_BUFFER_CONTROL_PIO_OFFSET;
	int err = run(command, features, lba, count, control, timeout_us);
	if (!err)
		memcpy(buf, (const void *)SATA_BUFFER_BASE, count * SATA_SECTOR);
	return err;
}

int sata_ata_nodata_tf(uint8_t command, uint16_t features, uint64_t lba, uint16_t count,
                       struct sata_tf *tf, uint32_t timeout_us)
{
	int err = run(command, features, lba, count, 1u << CSR_SATA_BUFFER_CONTROL_NODATA_OFFSET,
	              timeout_us);
	read_tf(tf);
	return err;
}

#else

int sata_ata_in(uint8_t command, uint16_t features, uint64_t lba, uint32_t count, int pio,
                void *buf, uint32_t timeout_us)
{
	return SATA_ERR_NO_CUSTOM;
}

int sata_ata_nodata_tf(uint8_t command, uint16_t features, uint64_t lba, uint16_t count,
                       struct sata_tf *tf, uint32_t timeout_us)
{
	return SATA_ERR_NO_CUSTOM;
}

#endif
