/* SPDX-License-Identifier: BSD-2-Clause */
/* ATA command layer, device side: the start of the health commands (READ LOG EXT, READ LOG DMA
 * EXT, SMART, SANITIZE) and the pages of buffered data-in (IDENTIFY, logs, SMART pages), PIO or
 * DMA.
 *
 * Ref: ACS-3 (READ LOG EXT / READ LOG DMA EXT, SMART, SANITIZE), SATA 3.x section 11 (PIO data-in,
 * DMA data-in, non-data).
 *   READ LOG EXT (2Fh):      pages x pio_blocks x (PIO Setup, Data FIS), as IDENTIFY
 *   READ LOG DMA EXT (47h):  Data FIS(es) of <= data_fis_dwords, then Register D2H (0x50)
 *   SMART READ DATA / THRESHOLDS (B0h D0h / D1h): one page of PIO data-in
 *   SMART others, SANITIZE (B4h): non-data; SMART RETURN STATUS and SANITIZE put their outputs in
 *   the Register D2H's LBA and Count (struct vd_cmd out_*)
 * What the pages hold is gplog.c's and smart.c's, what SANITIZE does sanitize.c's; this file sets
 * up struct vd_cmd for command.c's phases (CP_PIO_SETUP, CP_BUF_DATA, CP_STATUS).
 *
 * Part of command.c's layer (as dataout.c): it shares struct vd_cmd and vd_cmd_finish /
 * vd_cmd_fail with command.c (internal.h).
 */
#include "internal.h"

#define ST_OK   0x50
#define ER_ABRT 0x04

/* A command FIS with op 2Fh, 47h, B0h or B4h; vd->cmd is set up as for any command (active, op,
 * t_ready, interim). */
void vd_cmd_health(vdrive_t *vd, const uint32_t *fis)
{
    struct vd_cmd *c = &vd->cmd;
    uint8_t op = (uint8_t)(fis[0] >> 16);
    uint8_t feat = (uint8_t)(fis[0] >> 24);
    uint16_t feat16 = (uint16_t)(feat | (fis[2] >> 24) << 8);
    uint64_t lba48 = (fis[1] & 0xFFFFFFu) | (uint64_t)(fis[2] & 0xFFFFFFu) << 24;
    uint32_t cnt16 = fis[3] & 0xFFFF;

    switch (op) {
    case 0x2F: case 0x47: {
        /* READ LOG EXT (PIO data-in) / READ LOG DMA EXT: log address in LBA 7:0, page number in
         * LBA 15:8 and 39:32, Count pages; the log or a page the drive lacks aborts */
        vd->st.cmd_read_log++;
        uint8_t log = (uint8_t)lba48;
        uint16_t page = (uint16_t)((lba48 >> 8 & 0xFF) | (lba48 >> 24 & 0xFF00));
        if (!vd_gpl_ok(vd) || vd_gplog_check(vd, log, page, cnt16)) {
            vd_cmd_fail(vd, ER_ABRT, 0);
            return;
        }
        c->src = VD_SRC_LOG;
        c->log = log;
        c->log_page = page;
        c->log_feat = feat16;
        c->pages = (int)cnt16;
        if (op == 0x47) {
            c->is48 = 1;
            c->phase = CP_BUF_DATA;
            return;
        }
        c->phase = CP_PIO_SETUP;
        c->pio_lost = vd_fault_pio_lost(vd);
        return;
    }
    case 0xB0: {
        /* SMART: a 28-bit command, 4Fh/C2h in LBA mid/high */
        vd->st.cmd_smart++;
        uint64_t out;
        int r = vd_smart_command(vd, feat, fis[1] & 0xFFFFFFu, &out);
        if (r < 0) {
            vd_cmd_fail(vd, ER_ABRT, 0);
            return;
        }
        if (r == 0) {
            if (out) {
                c->out_set = 1;
                c->out_lba = out;
            }
            vd_cmd_finish(vd, ST_OK, 0);
            return;
        }
        c->src = r;
        c->pages = 1;
        c->phase = CP_PIO_SETUP;
        c->pio_lost = vd_fault_pio_lost(vd);
        return;
    }
    default: {
        /* SANITIZE: status in the Register D2H's LBA and Count, or a reason with ABRT */
        vd->st.cmd_sanitize++;
        uint64_t out;
        uint16_t outc;
        int r = vd_sanitize_command(vd, feat16, lba48, &out, &outc);
        c->is48 = 1;
        c->out_set = 1;
        c->out_lba = out;
        c->out_count = outc;
        if (r)
            vd_cmd_fail(vd, ER_ABRT, 0);
        else
            vd_cmd_finish(vd, ST_OK, 0);
        return;
    }
    }
}

/* The pages of a data-in command from a buffer, made when its data goes (log 10h's read ends the
 * NCQ halt then, the statistics are those of that moment). */
void vd_cmd_fill_pages(vdrive_t *vd)
{
    struct vd_cmd *c = &vd->cmd;
    uint8_t *b = (uint8_t *)vd->pio_buf;
    switch (c->src) {
    case VD_SRC_LOG:
        vd_gplog_fill(vd, c->log, c->log_page, (uint32_t)c->pages, c->log_feat, b);
        break;
    case VD_SRC_SMART_DATA: case VD_SRC_SMART_THRESH:
        vd_smart_page(vd, c->src, b);
        break;
    default:
        for (int i = 0; i < 128; i++)
            vd->pio_buf[i] = vd->identify[2 * i] | (uint32_t)vd->identify[2 * i + 1] << 16;
        break;
    }
}

/* READ LOG DMA EXT: the next Data FIS of the pages (at most data_fis_dwords); its end comes back
 * to command.c (CP_BUF_DATA_WAIT), the status after the last. */
void vd_cmd_send_pages(vdrive_t *vd)
{
    struct vd_cmd *c = &vd->cmd;
    uint64_t left = (uint64_t)c->pages * 128 - c->dw_sent;
    if (c->dw_sent == 0)
        vd_cmd_fill_pages(vd);
    c->chunk = left < vd->cfg.data_fis_dwords ? (uint32_t)left : vd->cfg.data_fis_dwords;
    uint32_t *f = vd_link_tx_buf(vd);
    f[0] = FIS_DATA;
    memcpy(&f[1], &vd->pio_buf[c->dw_sent], (size_t)c->chunk * 4);
    vd_link_queue(vd, f, 1 + (int)c->chunk, 0, VD_OWN_CMD);
    c->phase = CP_BUF_DATA_WAIT;
}
