/* ATA command layer, device side: IDENTIFY and READ LOG EXT (PIO in), READ/WRITE DMA (EXT),
 * FLUSH CACHE (EXT), SET FEATURES, and the data phase of queued commands (ncq.c). Everything else
 * answers ABRT.
 *
 * Ref: ACS-3 (commands), SATA 3.x section 11 (device command layer protocol: PIO data-in,
 * DMA data-in, DMA data-out, non-data).
 *   DMA in:   Data FIS (<= 8192 bytes) ... then Register D2H (status 0x50, I=1)
 *   DMA out:  DMA Activate, host Data FIS (<= 8192 bytes), ... then Register D2H
 *   PIO in:   PIO Setup (D=1, I=1, E_Status 0x50, count 512), Data FIS
 * A device FIS answered with R_ERR is resent (3 times) unless it carries data; a failed Data FIS
 * ends the command with ICRC|ABRT.
 */
#include "internal.h"

enum {
    CP_IDLE, CP_STATUS, CP_STATUS_WAIT, CP_PIO_SETUP, CP_PIO_SETUP_WAIT, CP_PIO_DATA,
    CP_PIO_DATA_WAIT, CP_READ, CP_READ_WAIT, CP_WRITE_ACT, CP_WRITE_ACT_WAIT, CP_WRITE_DATA
};

#define ST_OK   0x50
#define ST_ERR  0x51
#define ER_ABRT 0x04
#define ER_IDNF 0x10
#define ER_UNC  0x40
#define ER_ICRC 0x80
#define SECTORS_PER_FIS (VD_DATA_MAX_DW / 128)

void vd_cmd_abort(vdrive_t *vd)
{
    memset(&vd->cmd, 0, sizeof(vd->cmd));
    vd_ncq_reset(vd);
}

void vd_cmd_ncq_go(vdrive_t *vd, int auto_activate)
{
    struct vd_cmd *c = &vd->cmd;
    c->phase = !c->is_write ? CP_READ : auto_activate ? CP_WRITE_DATA : CP_WRITE_ACT;
}

static void finish(vdrive_t *vd, uint8_t status, uint8_t error)
{
    struct vd_cmd *c = &vd->cmd;
    c->status = status;
    c->error = error;
    if (status & 1)
        vd->st.cmd_errors++;
    if (c->ncq) {                        /* queued: the tag waits for its SDB */
        vd_ncq_finished(vd);
        return;
    }
    c->phase = CP_STATUS;
    c->retries = 0;
}

static void fail(vdrive_t *vd, uint8_t error, uint64_t lba)
{
    vd->cmd.err_lba = lba;
    vd->cmd.t_ready = vd->now + vd_persona_cmd_ticks(vd);
    finish(vd, ST_ERR, error);
}

void vd_cmd_data_error(vdrive_t *vd)
{
    struct vd_cmd *c = &vd->cmd;
    if (c->phase == CP_WRITE_DATA || c->phase == CP_WRITE_ACT_WAIT)
        fail(vd, ER_ICRC | ER_ABRT, c->lba + c->done);
}

/* SET FEATURES (ACS-3 7.45): write cache 0x02/0x82, read look-ahead 0xAA/0x55, transfer mode 0x03
 * (mode in Count). Anything else, or a mode IDENTIFY does not claim, aborts. */
static int set_features(vdrive_t *vd, uint8_t feat, uint8_t count)
{
    switch (feat) {
    case 0x02: case 0x82:
        vd->pers.write_cache = feat == 0x02;
        return 0;
    case 0xAA: case 0x55:
        vd->pers.look_ahead = feat == 0xAA;
        return 0;
    case 0x03:
        return vd_identify_set_xfer(vd, count);
    default:
        return -1;
    }
}

void vd_cmd_start(vdrive_t *vd, const uint32_t *fis)
{
    struct vd_cmd *c = &vd->cmd;
    if (vd->stopped)
        return;
    vd->cmds_seen++;
    if (vd->cfg.stop_after_cmds && !vd->stop_fired && vd->cmds_seen > vd->cfg.stop_after_cmds) {
        vd->stopped = 1;
        vd->stop_fired = 1;
        vd->st.injected_stops++;
        return;
    }
    uint8_t op = (uint8_t)(fis[0] >> 16);
    uint8_t feat = (uint8_t)(fis[0] >> 24);
    uint8_t dev = (uint8_t)(fis[1] >> 24);
    uint64_t lba48 = (fis[1] & 0xFFFFFFu) | (uint64_t)(fis[2] & 0xFFFFFFu) << 24;
    uint32_t cnt16 = fis[3] & 0xFFFF;

    int q = vd_ncq_command(vd, fis);
    if (q == 1)
        return;
    memset(c, 0, sizeof(*c));
    c->active = 1;
    c->op = op;
    c->t_ready = vd->now + vd_persona_cmd_ticks(vd);
    c->status = ST_OK;
    if (q == 2) {                        /* non-queued command with tags outstanding */
        fail(vd, ER_ABRT, 0);
        return;
    }

    switch (op) {
    case 0x2F:
        /* READ LOG EXT: only the NCQ Command Error log (10h), one page */
        vd->st.cmd_read_log++;
        if (!vd->cfg.ncq || (lba48 & 0xFF) != 0x10 || (lba48 >> 8 & 0xFFFF) != 0 || cnt16 != 1) {
            fail(vd, ER_ABRT, 0);
            return;
        }
        c->phase = CP_PIO_SETUP;
        return;
    case 0xEC:
        vd->st.cmd_identify++;
        c->phase = CP_PIO_SETUP;
        return;
    case 0x25: case 0x35:
        if (op == 0x25) vd->st.cmd_read_dma_ext++;
        else vd->st.cmd_write_dma_ext++;
        if (!vd->cfg.lba48) {
            fail(vd, ER_ABRT, 0);
            return;
        }
        c->is48 = 1;
        c->lba = lba48;
        c->count = cnt16 ? cnt16 : 65536;
        break;
    case 0xC8: case 0xCA:
        if (op == 0xC8) vd->st.cmd_read_dma++;
        else vd->st.cmd_write_dma++;
        c->lba = (fis[1] & 0xFFFFFFu) | (uint64_t)(dev & 0x0F) << 24;
        c->count = (cnt16 & 0xFF) ? (cnt16 & 0xFF) : 256;
        break;
    case 0xE7: case 0xEA:
        vd->st.cmd_flush++;
        if (op == 0xEA && !vd->cfg.lba48) {
            fail(vd, ER_ABRT, 0);
            return;
        }
        {
            uint64_t t = vd_persona_flush_at(vd);
            if (t > c->t_ready)
                c->t_ready = t;
        }
        finish(vd, ST_OK, 0);
        return;
    case 0xEF:
        vd->st.cmd_set_features++;
        if (set_features(vd, feat, (uint8_t)cnt16)) {
            fail(vd, ER_ABRT, 0);
            return;
        }
        vd_identify_build(vd);
        finish(vd, ST_OK, 0);
        return;
    default:
        vd->st.cmd_other++;
        fail(vd, ER_ABRT, 0);
        return;
    }

    /* READ / WRITE DMA (EXT) */
    c->is_write = (op == 0x35 || op == 0xCA);
    if (c->lba >= vd->cfg.capacity || c->count > vd->cfg.capacity - c->lba) {
        fail(vd, ER_IDNF, c->lba);
        return;
    }
    uint8_t st, er;
    uint64_t elba;
    if (vd_fault_dev_error(vd, c->lba, c->count, &st, &er, &elba)) {
        c->is_write = 0;
        c->err_lba = elba;
        finish(vd, st, er);
        return;
    }
    if (c->is_write) {
        c->phase = CP_WRITE_ACT;
    } else {
        vd_persona_read_start(vd);
        c->phase = CP_READ;
    }
}

static void send_d2h(vdrive_t *vd)
{
    struct vd_cmd *c = &vd->cmd;
    uint64_t lba = (c->status & 1) ? c->err_lba : c->lba;
    uint32_t fis[5];
    fis[0] = FIS_REG_D2H | 1u << 14 | (uint32_t)c->status << 16 | (uint32_t)c->error << 24;
    fis[1] = (uint32_t)(lba & 0xFFFFFF) | (c->is48 ? 0x40u : (0x40u | ((lba >> 24) & 0x0F))) << 24;
    fis[2] = (uint32_t)((lba >> 24) & 0xFFFFFF);
    fis[3] = 0;
    fis[4] = 0;
    vd_link_queue(vd, fis, 5, 0);
    vd->txf.owner = 1;
}

static void send_read_data(vdrive_t *vd)
{
    struct vd_cmd *c = &vd->cmd;
    uint32_t *f = vd->txf.dw;
    uint64_t lba = c->lba + c->done;
    f[0] = FIS_DATA;
    if (vd_store_read(vd, lba, c->chunk, (uint8_t *)&f[1]) != 0) {
        fail(vd, ER_UNC, lba);
        return;
    }
    vd_fault_corrupt(vd, lba, c->chunk, (uint8_t *)&f[1]);
    int paced = c->rd_tpd_q16 != 0 || vd_read_avail(vd, c->dw_sent + c->chunk * 128 - 1) > vd->now;
    vd_link_queue(vd, f, 1 + (int)c->chunk * 128, paced);
    vd->txf.owner = 1;
    c->phase = CP_READ_WAIT;
}

void vd_cmd_poll(vdrive_t *vd)
{
    struct vd_cmd *c = &vd->cmd;
    switch (c->phase) {
    case CP_STATUS:
        if (vd->now >= c->t_ready) {
            send_d2h(vd);
            c->phase = CP_STATUS_WAIT;
        }
        break;
    case CP_PIO_SETUP:
        if (vd->now >= c->t_ready) {
            uint32_t fis[5] = {
                FIS_PIO_SETUP | 1u << 13 | 1u << 14 | 0x58u << 16,
                0x40000000u, 0, 0x50u << 24, 512
            };
            vd_link_queue(vd, fis, 5, 0);
            vd->txf.owner = 1;
            c->phase = CP_PIO_SETUP_WAIT;
        }
        break;
    case CP_PIO_DATA: {
        uint32_t *f = vd->txf.dw;
        f[0] = FIS_DATA;
        if (c->op == 0x2F)
            memcpy(&f[1], vd_ncq_log(vd), 512);
        else
            for (int i = 0; i < 128; i++)
                f[1 + i] = vd->identify[2 * i] | (uint32_t)vd->identify[2 * i + 1] << 16;
        vd_link_queue(vd, f, 129, 0);
        vd->txf.owner = 1;
        c->phase = CP_PIO_DATA_WAIT;
        break;
    }
    case CP_READ: {
        uint32_t left = c->count - c->done;
        c->chunk = left < SECTORS_PER_FIS ? left : SECTORS_PER_FIS;
        /* start a Data FIS once its first sector is ready; HOLD covers the rest */
        if (vd_read_avail(vd, c->dw_sent + 127) <= vd->now)
            send_read_data(vd);
        break;
    }
    case CP_WRITE_ACT: {
        uint32_t left = c->count - c->done;
        uint32_t chunk = left < SECTORS_PER_FIS ? left : SECTORS_PER_FIS;
        uint64_t t = vd_persona_write_room_at(vd, chunk * 64);
        if (vd->now >= c->t_ready && vd->now >= t) {
            uint32_t fis[1] = { FIS_DMA_ACT };
            vd_link_queue(vd, fis, 1, 0);
            vd->txf.owner = 1;
            c->phase = CP_WRITE_ACT_WAIT;
        }
        break;
    }
    default:
        break;
    }
}

void vd_cmd_tx_done(vdrive_t *vd, int ok)
{
    struct vd_cmd *c = &vd->cmd;
    switch (c->phase) {
    case CP_STATUS_WAIT:
        if (ok || ++c->retries > 3)
            c->active = 0;
        else
            c->phase = CP_STATUS;
        break;
    case CP_PIO_SETUP_WAIT:
        if (ok)
            c->phase = CP_PIO_DATA;
        else if (++c->retries > 3)
            c->active = 0;
        else
            c->phase = CP_PIO_SETUP;
        break;
    case CP_PIO_DATA_WAIT:
        if (ok)
            c->active = 0;
        else
            fail(vd, ER_ICRC | ER_ABRT, 0);
        break;
    case CP_READ_WAIT:
        if (!ok) {
            fail(vd, ER_ICRC | ER_ABRT, c->lba + c->done);
            break;
        }
        c->done += c->chunk;
        c->dw_sent += (uint64_t)c->chunk * 128;
        vd->st.bytes_read += (uint64_t)c->chunk * 512;
        if (c->done >= c->count) {
            if (!c->ncq)
                vd_persona_read_end(vd);
            c->t_ready = vd->now;
            finish(vd, ST_OK, 0);
        } else {
            c->phase = CP_READ;
        }
        break;
    case CP_WRITE_ACT_WAIT:
        if (ok)
            c->phase = CP_WRITE_DATA;
        else if (++c->retries > 3)
            fail(vd, ER_ABRT, c->lba + c->done);
        else
            c->phase = CP_WRITE_ACT;
        break;
    default:
        break;
    }
}

void vd_cmd_data_fis(vdrive_t *vd, const uint32_t *dw, int n)
{
    struct vd_cmd *c = &vd->cmd;
    if (c->phase != CP_WRITE_DATA && c->phase != CP_WRITE_ACT_WAIT)
        return;
    uint32_t bytes = (uint32_t)(n - 1) * 4;
    uint32_t left = c->count - c->done;
    if (bytes == 0 || bytes % 512 || bytes / 512 > left || bytes > VD_DATA_MAX_DW * 4) {
        fail(vd, ER_ABRT, c->lba + c->done);
        return;
    }
    uint32_t sectors = bytes / 512;
    uint64_t lba = c->lba + c->done;
    if (vd_store_write(vd, lba, sectors, (const uint8_t *)&dw[1]) != 0) {
        fail(vd, ER_ABRT, lba);
        return;
    }
    vd_persona_write_data(vd, lba, sectors);
    vd->st.bytes_written += bytes;
    c->done += sectors;
    if (c->done >= c->count) {
        c->t_ready = vd->now + vd_persona_cmd_ticks(vd);
        if (!vd->pers.write_cache) {
            uint64_t t = vd_persona_flush_at(vd);
            if (t > c->t_ready)
                c->t_ready = t;
        }
        finish(vd, ST_OK, 0);
    } else {
        c->phase = CP_WRITE_ACT;
    }
}
