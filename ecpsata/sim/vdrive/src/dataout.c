/* SPDX-License-Identifier: BSD-2-Clause */
/* ATA command layer, device side: the data-out phase, host Data FISes into the media (WRITE DMA
 * (EXT), WRITE FPDMA QUEUED) or the range entries of DATA SET MANAGEMENT (features.c).
 *
 * Ref: SATA 3.x section 11 (DMA data-out): DMA Activate, host Data FIS (<= 8192 bytes, whole
 * sectors), ... then the command's status. A Data FIS cut short by the drive's DMAT (dmat_fis)
 * ends the write with ABRT, or with dmat_resume leaves a partial sector that the next Data FIS
 * completes. A host Data FIS that fails (CRC, code violation) ends the write with ICRC|ABRT.
 *
 * Part of command.c's layer: the transport reaches this file through vd->up (cmd_data,
 * cmd_data_error); it shares struct vd_cmd, its phases and vd_cmd_finish / vd_cmd_fail with
 * command.c (internal.h).
 */
#include "internal.h"

#define ST_OK   0x50
#define ER_ABRT 0x04
#define ER_ICRC 0x80

void vd_cmd_data_error(vdrive_t *vd)
{
    struct vd_cmd *c = &vd->cmd;
    if (!c->active || !c->is_write)
        return;
    if (c->phase == CP_WRITE_DATA || c->phase == CP_WRITE_ACT_WAIT)
        vd_cmd_fail(vd, ER_ICRC | ER_ABRT, c->lba + c->done);
}

/* Where a write's data goes: the media, or the range entries of DATA SET MANAGEMENT. */
static int sink(vdrive_t *vd, uint32_t sectors, const uint8_t *p)
{
    struct vd_cmd *c = &vd->cmd;
    if (c->dsm) {
        memcpy(vd->secbuf + (size_t)c->done * 512, p, (size_t)sectors * 512);
    } else {
        uint64_t lba = c->lba + c->done;
        if (vd_store_write(vd, lba, sectors, p) != 0)
            return -1;
        vd_persona_write_data(vd, lba, sectors);
    }
    c->done += sectors;
    return 0;
}

/* A host Data FIS; dmat: the drive cut it short with DMAT. 0 = no write waits for data. */
int vd_cmd_data_fis(vdrive_t *vd, const uint32_t *dw, int n, int dmat)
{
    struct vd_cmd *c = &vd->cmd;
    if (!c->active || !c->is_write)
        return 0;
    if (c->phase != CP_WRITE_DATA && c->phase != CP_WRITE_ACT_WAIT)
        return 1;
    if (dmat && vd_fault_dmat_ends_cmd(vd)) {
        vd_cmd_fail(vd, ER_ABRT, c->lba + c->done);   /* the drive asked the host to stop */
        return 1;
    }
    uint32_t bytes = (uint32_t)(n - 1) * 4;
    uint64_t left = (uint64_t)(c->count - c->done) * 512 - c->part;
    /* whole sectors, except around a frame the drive cut short with DMAT (dmat_resume) */
    int whole = !c->part && bytes % 512 == 0;
    if (bytes == 0 || bytes > left || bytes > VD_DATA_MAX_DW * 4 ||
        (!whole && !c->part && !dmat)) {
        vd_cmd_fail(vd, ER_ABRT, c->lba + c->done);
        return 1;
    }
    const uint8_t *p = (const uint8_t *)&dw[1];
    if (!c->dsm) {
        vd->st.bytes_written += bytes;
        vd_health_bytes(vd, bytes);
    }
    if (whole) {
        if (sink(vd, bytes / 512, p)) {
            vd_cmd_fail(vd, ER_ABRT, c->lba + c->done);
            return 1;
        }
    } else {
        while (bytes) {
            uint32_t take = 512 - c->part < bytes ? 512 - c->part : bytes;
            memcpy(vd->wr_part + c->part, p, take);
            c->part += take;
            p += take;
            bytes -= take;
            if (c->part == 512) {
                c->part = 0;
                if (sink(vd, 1, vd->wr_part)) {
                    vd_cmd_fail(vd, ER_ABRT, c->lba + c->done);
                    return 1;
                }
            }
        }
    }
    if (c->done < c->count) {
        c->phase = CP_WRITE_ACT;
        return 1;
    }
    c->t_ready = vd->now + vd_persona_cmd_ticks(vd);
    if (c->dsm) {
        if (vd_dsm_trim(vd, vd->secbuf, c->count * 512))
            vd_cmd_fail(vd, ER_ABRT, 0);
        else
            vd_cmd_finish(vd, ST_OK, 0);
        return 1;
    }
    if (!vd->pers.write_cache) {
        uint64_t t = vd_persona_flush_at(vd);
        if (t > c->t_ready)
            c->t_ready = t;
    }
    vd_cmd_finish(vd, ST_OK, 0);
    return 1;
}
