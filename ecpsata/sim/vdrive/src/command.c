/* SPDX-License-Identifier: BSD-2-Clause */
/* ATA command layer, device side: IDENTIFY and READ LOG EXT (PIO in), READ LOG DMA EXT (DMA in),
 * READ/WRITE DMA (EXT), FLUSH CACHE (EXT), SET FEATURES, DATA SET MANAGEMENT (features.c), NOP,
 * SMART (smart.c), SANITIZE (sanitize.c), and the data phase of queued commands (ncq.c).
 * Everything else answers ABRT. The health commands start in cmdhealth.c, which also makes the
 * pages of buffered data-in (IDENTIFY, logs, SMART); while a sanitize operation runs only the
 * commands sanitize.c lets through get further than an abort.
 *
 * Ref: ACS-3 (commands), SATA 3.x section 11 (device command layer protocol: PIO data-in,
 * DMA data-in, DMA data-out, non-data).
 *   DMA in:   Data FIS (<= 8192 bytes) ... then Register D2H (status 0x50, I=1)
 *   DMA out:  DMA Activate, host Data FIS (<= 8192 bytes), ... then Register D2H
 *   PIO in:   pio_blocks x (PIO Setup (D=1, I=1, status 0x58, count 512 / pio_blocks, E_Status
 *             0x80 while another block follows, 0x50 on the last), Data FIS)
 * A device FIS answered with R_ERR is resent (3 times, more while a repeated fault is active)
 * unless it carries data; a failed Data FIS ends the command with ICRC|ABRT. A frame the drive
 * aborted itself (escape_fis) ends the command with ABRT, as does a host Data FIS the drive
 * terminated with DMAT (unless dmat_resume).
 *
 * Host-side rules (faults.c decides): interim_status sends a Register D2H with BSY or DRQ set
 * right after a non-queued command FIS, before the command's own FISes; pio_lost_data ends the Nth
 * PIO data-in command after its first PIO Setup with ICRC|ABRT, as if its Data FIS had been
 * destroyed on the line. data_fis_dwords sets the largest read Data FIS (2048 dwords, SATA's
 * 8192 bytes, unless a test wants more); a Data FIS may then end inside a sector.
 *
 * Internally LBAs and counts are in 512-byte image sectors; with 4096-byte logical sectors (lss 3)
 * the command's logical LBA and count are scaled here and scaled back in what the host sees.
 *
 * Layering: the transport reaches this file through vd->up (cmd_start, cmd_reset, cmd_poll,
 * cmd_busy, cmd_sent; cmd_data and cmd_data_error are dataout.c's, the data-out phase), the link
 * for flow control inside frames (tx_ready_at, rx_hold). This file calls the link, ncq.c, the
 * persona and storage directly; ncq.c answers in return values and never calls back. Queued
 * commands: command.c hands every command FIS to ncq.c first, polls it while tags are outstanding,
 * opens the data phase of the tag ncq.c serves in vd->cmd and gives the phase's end back to it
 * (vd_ncq_finished).
 */
#include "internal.h"

#define ST_OK   0x50
#define ST_ERR  0x51
#define ER_ABRT 0x04
#define ER_IDNF 0x10
#define ER_UNC  0x40
#define ER_ICRC 0x80
#define SECTORS_PER_FIS (VD_DATA_MAX_DW / 128)   /* writes: the host's Data FISes */
#define DSM_MAX_BLOCKS  8        /* IDENTIFY word 105 */

/* COMRESET (settings back to power-on unless preserved), a lost link, SRST: nothing is left. */
void vd_cmd_reset(vdrive_t *vd, int why)
{
    if (why == VD_RESET_COMRESET)
        vd_settings_comreset(vd);
    memset(&vd->cmd, 0, sizeof(vd->cmd));
    vd_ncq_reset(vd);
}

int vd_cmd_busy(const vdrive_t *vd)
{
    return vd->cmd.active || vd_ncq_busy(vd);
}

/* Flow control for the link: when payload dword dw of the read Data FIS in flight is ready, and
 * whether the host's write data must wait (HOLD). */
uint64_t vd_cmd_tx_ready_at(vdrive_t *vd, uint64_t dw)
{
    return vd_read_avail(vd, vd->cmd.dw_sent + dw);
}

int vd_cmd_rx_hold(vdrive_t *vd, int ndw, int holding)
{
    return vd->cmd.is_write && vd_persona_write_hold(vd, ndw, holding);
}

/* ncq.c serves a tag: its data phase runs here, from the DMA Setup's end on. */
static void ncq_open(vdrive_t *vd, const struct vd_ncq_serve *sv)
{
    struct vd_cmd *c = &vd->cmd;
    memset(c, 0, sizeof(*c));
    c->active = c->ncq = c->is48 = 1;
    c->tag = sv->tag;
    c->op = sv->is_write ? 0x61 : 0x60;
    c->is_write = sv->is_write;
    c->lba = sv->lba;
    c->count = sv->count;
    c->status = 0x50;
    c->t_ready = vd->now;
    c->rd_t0 = c->rd_tmin = sv->rd_t0;
    c->rd_tpd_q16 = vd->pers.rd_tpd_q16;
}

void vd_cmd_finish(vdrive_t *vd, uint8_t status, uint8_t error)
{
    struct vd_cmd *c = &vd->cmd;
    c->status = status;
    c->error = error;
    if (status & 1) {
        vd->st.cmd_errors++;
        if (error & ER_ICRC)
            vd->st.cmd_icrc++;           /* phy event 0001h */
    } else {
        vd_health_cmd_done(vd, c->op);   /* device statistics: read / write commands */
    }
    if (c->ncq) {                        /* queued: the tag waits for its SDB */
        int tag = c->tag;
        uint64_t t = c->t_ready, elba = c->err_lba;
        memset(c, 0, sizeof(*c));
        vd_ncq_finished(vd, tag, status, error, t, elba);
        return;
    }
    c->phase = CP_STATUS;
    c->retries = 0;
}

void vd_cmd_fail(vdrive_t *vd, uint8_t error, uint64_t lba)
{
    vd->cmd.err_lba = lba;
    vd->cmd.t_ready = vd->now + vd_persona_cmd_ticks(vd);
    vd_cmd_finish(vd, ST_ERR, error);
}

/* escape_fis: the drive abandoned one of this command's frames. No more data; the command ends
 * with ABRT (in a queued data phase finish() turns that into an NCQ error). An escaped status
 * FIS is replaced by an ABRT one. */
static void escaped(vdrive_t *vd)
{
    struct vd_cmd *c = &vd->cmd;
    if (c->phase != CP_STATUS_WAIT) {
        vd_cmd_fail(vd, ER_ABRT, c->lba + c->done);
        return;
    }
    if (++c->retries > vd_fault_retry_limit(vd)) {
        c->active = 0;
        return;
    }
    if (!(c->status & 1))
        vd->st.cmd_errors++;
    c->status = ST_ERR;
    c->error = ER_ABRT;
    c->err_lba = c->lba + c->done;
    c->phase = CP_STATUS;
}

void vd_cmd_start(vdrive_t *vd, const uint32_t *fis)
{
    struct vd_cmd *c = &vd->cmd;
    if (vd_fault_cmd_ignored(vd))        /* stop_after_cmds */
        return;
    uint8_t op = (uint8_t)(fis[0] >> 16);
    uint8_t feat = (uint8_t)(fis[0] >> 24);
    uint16_t feat16 = (uint16_t)(feat | (fis[2] >> 24) << 8);
    uint8_t dev = (uint8_t)(fis[1] >> 24);
    uint64_t lba48 = (fis[1] & 0xFFFFFFu) | (uint64_t)(fis[2] & 0xFFFFFFu) << 24;
    uint32_t cnt16 = fis[3] & 0xFFFF;
    /* a packet device, port multiplier or enclosure bridge has no ATA media commands */
    int ata = vd->cfg.device == VDRIVE_DEV_ATA;
    uint64_t lba = 0;
    uint32_t count = 0;

    /* a sanitize operation in progress: most commands (queued ones too) only get an abort */
    int blocked = vd_sanitize_blocks(vd, op, feat16);
    int q = blocked ? 0 : vd_ncq_command(vd, fis);
    if ((q & VD_NCQ_DROPPED) && c->ncq)
        memset(c, 0, sizeof(*c));        /* the queue went, with the tag being served */
    if (q & VD_NCQ_TAKEN)
        return;
    memset(c, 0, sizeof(*c));
    c->active = 1;
    c->op = op;
    c->t_ready = vd->now + vd_persona_cmd_ticks(vd);
    c->status = ST_OK;
    if (vd_fault_interim(vd)) {          /* a status with BSY or DRQ goes first */
        c->interim = 1;
        c->ifis[0] = fis[1];             /* LBA 23:0, device */
        c->ifis[1] = fis[2] & 0xFFFFFFu; /* LBA 47:24 */
        c->ifis[2] = cnt16;              /* count */
    }
    if ((q & VD_NCQ_ABORT) || blocked) { /* tags outstanding, or a sanitize running */
        vd_cmd_fail(vd, ER_ABRT, 0);
        return;
    }

    switch (op) {
    case 0x00:
        /* NOP (ACS-3): always command aborted, nothing else happens */
        vd->st.cmd_nop++;
        vd_cmd_fail(vd, ER_ABRT, 0);
        return;
    case 0x06:
        /* DATA SET MANAGEMENT, TRIM (ACS-3): DMA data-out of Count 512-byte blocks of range
         * entries; a 48-bit command */
        vd->st.cmd_dsm++;
        if (!vd->cfg.trim || !vd->cfg.lba48 || !ata || !(feat & 1) || !cnt16 ||
            cnt16 > DSM_MAX_BLOCKS) {
            vd_cmd_fail(vd, ER_ABRT, 0);
            return;
        }
        c->dsm = c->is_write = c->is48 = 1;
        c->count = cnt16;
        c->phase = CP_WRITE_ACT;
        return;
    case 0x2F: case 0x47: case 0xB0: case 0xB4:
        vd_cmd_health(vd, fis);          /* READ LOG (DMA) EXT, SMART, SANITIZE: cmdhealth.c */
        return;
    case 0xEC:
        vd->st.cmd_identify++;
        if (!ata) {
            vd_cmd_fail(vd, ER_ABRT, 0);
            return;
        }
        vd_identify_build(vd);           /* word 77: the speed of this link */
        c->src = VD_SRC_IDENTIFY;
        c->pages = 1;
        c->phase = CP_PIO_SETUP;
        c->pio_lost = vd_fault_pio_lost(vd);
        return;
    case 0x25: case 0x35:
        if (op == 0x25) vd->st.cmd_read_dma_ext++;
        else vd->st.cmd_write_dma_ext++;
        if (!vd->cfg.lba48 || !ata) {
            vd_cmd_fail(vd, ER_ABRT, 0);
            return;
        }
        c->is48 = 1;
        lba = lba48;
        count = cnt16 ? cnt16 : 65536;
        break;
    case 0xC8: case 0xCA:
        if (op == 0xC8) vd->st.cmd_read_dma++;
        else vd->st.cmd_write_dma++;
        if (!ata) {
            vd_cmd_fail(vd, ER_ABRT, 0);
            return;
        }
        lba = (fis[1] & 0xFFFFFFu) | (uint64_t)(dev & 0x0F) << 24;
        count = (cnt16 & 0xFF) ? (cnt16 & 0xFF) : 256;
        break;
    case 0xE7: case 0xEA:
        vd->st.cmd_flush++;
        if (op == 0xEA && !vd->cfg.lba48) {
            vd_cmd_fail(vd, ER_ABRT, 0);
            return;
        }
        {
            /* the status waits until every cached byte is on the media */
            uint64_t t = vd_persona_flush_at(vd);
            if (t > c->t_ready)
                c->t_ready = t;
            vd->st.flush_ps += (c->t_ready - vd->now) * 1000 / VD_TICKS_PER_NS;
        }
        vd_cmd_finish(vd, ST_OK, 0);
        return;
    case 0xEF:
        vd->st.cmd_set_features++;
        if (vd_set_features(vd, feat, (uint8_t)cnt16)) {
            vd_cmd_fail(vd, ER_ABRT, 0);
            return;
        }
        vd_identify_build(vd);
        vd_cmd_finish(vd, ST_OK, 0);
        return;
    default:
        vd->st.cmd_other++;
        vd_cmd_fail(vd, ER_ABRT, 0);
        return;
    }

    /* READ / WRITE DMA (EXT) */
    c->is_write = (op == 0x35 || op == 0xCA);
    c->lba = lba << vd->lss;
    c->count = count << vd->lss;
    if (c->lba >= vd->cap_img || c->count > vd->cap_img - c->lba) {
        vd_cmd_fail(vd, ER_IDNF, c->lba);
        return;
    }
    uint8_t st, er;
    uint64_t elba;
    if (vd_fault_dev_error(vd, c->lba, c->count, &st, &er, &elba)) {
        if ((er & ER_UNC) && !c->is_write)
            vd_health_unc(vd);           /* SMART 197: the sector is pending */
        c->is_write = 0;
        c->err_lba = elba;
        vd_cmd_finish(vd, st, er);
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
    uint64_t lba = ((c->status & 1) ? c->err_lba : c->lba) >> vd->lss;
    uint32_t fis[5];
    fis[0] = FIS_REG_D2H | 1u << 14 | (uint32_t)c->status << 16 | (uint32_t)c->error << 24;
    fis[1] = (uint32_t)(lba & 0xFFFFFF) | (c->is48 ? 0x40u : (0x40u | ((lba >> 24) & 0x0F))) << 24;
    fis[2] = (uint32_t)((lba >> 24) & 0xFFFFFF);
    fis[3] = 0;
    fis[4] = 0;
    if (c->out_set) {                    /* SMART RETURN STATUS, SANITIZE: outputs as they are */
        fis[1] = (uint32_t)(c->out_lba & 0xFFFFFF) | 0x40u << 24;
        fis[2] = (uint32_t)((c->out_lba >> 24) & 0xFFFFFF);
        fis[3] = c->out_count;
    }
    vd_link_queue(vd, fis, 5, 0, VD_OWN_CMD);
}

/* interim_status: the command FIS's LBA, device and count, status BSY or DRQ, error 0, I=0 */
static void send_interim(vdrive_t *vd)
{
    struct vd_cmd *c = &vd->cmd;
    uint32_t fis[5] = {
        FIS_REG_D2H | (uint32_t)vd_fault_interim(vd) << 16, c->ifis[0], c->ifis[1], c->ifis[2], 0
    };
    c->interim = 2;
    vd->st.interim_status_sent++;
    vd_link_queue(vd, fis, 5, 0, VD_OWN_CMD);
}

/* c->chunk payload dwords from c->dw_sent on. Whole sectors go straight into the frame; a Data FIS
 * that starts or ends inside a sector (data_fis_dwords not a multiple of 128) is copied from them
 * one by one. */
static int read_payload(vdrive_t *vd, uint32_t *dst)
{
    struct vd_cmd *c = &vd->cmd;
    uint64_t lba = c->lba + c->dw_sent / 128;
    uint32_t ofs = (uint32_t)(c->dw_sent % 128);
    if (!ofs && c->chunk % 128 == 0) {
        if (vd_store_read(vd, lba, c->chunk / 128, (uint8_t *)dst) != 0)
            return -1;
        vd_fault_corrupt(vd, lba, c->chunk / 128, (uint8_t *)dst);
        return 0;
    }
    uint32_t sec[128];
    for (uint32_t got = 0; got < c->chunk; lba++, ofs = 0) {
        uint32_t take = 128 - ofs < c->chunk - got ? 128 - ofs : c->chunk - got;
        if (vd_store_read(vd, lba, 1, (uint8_t *)sec) != 0)
            return -1;
        vd_fault_corrupt(vd, lba, 1, (uint8_t *)sec);
        memcpy(dst + got, sec + ofs, (size_t)take * 4);
        got += take;
    }
    return 0;
}

static void send_read_data(vdrive_t *vd)
{
    struct vd_cmd *c = &vd->cmd;
    uint32_t *f = vd_link_tx_buf(vd);
    f[0] = FIS_DATA;
    if (read_payload(vd, &f[1]) != 0) {
        vd_cmd_fail(vd, ER_UNC, c->lba + c->dw_sent / 128);
        return;
    }
    int paced = c->rd_tpd_q16 != 0 || vd_read_avail(vd, c->dw_sent + c->chunk - 1) > vd->now;
    vd_link_queue(vd, f, 1 + (int)c->chunk, paced, VD_OWN_CMD);
    c->phase = CP_READ_WAIT;
}

static void phase_poll(vdrive_t *vd)
{
    struct vd_cmd *c = &vd->cmd;
    if (c->interim == 1) {
        send_interim(vd);
        return;
    }
    switch (c->phase) {
    case CP_STATUS:
        if (vd->now >= c->t_ready) {
            send_d2h(vd);
            c->phase = CP_STATUS_WAIT;
        }
        break;
    case CP_PIO_SETUP:
        if (vd->now >= c->t_ready) {
            /* E_Status: BSY while another DRQ block follows (the status between blocks) */
            int last = c->pio_blk == (int)vd->cfg.pio_blocks * c->pages - 1;
            uint32_t fis[5] = {
                FIS_PIO_SETUP | 1u << 13 | 1u << 14 | 0x58u << 16,
                0x40000000u, 0, (last ? 0x50u : 0x80u) << 24, 512 / vd->cfg.pio_blocks
            };
            vd->st.pio_setups++;
            vd_link_queue(vd, fis, 5, 0, VD_OWN_CMD);
            c->phase = CP_PIO_SETUP_WAIT;
        }
        break;
    case CP_PIO_DATA: {
        int ndw = 128 / (int)vd->cfg.pio_blocks;
        uint32_t *f = vd_link_tx_buf(vd);
        if (c->pio_blk == 0)
            vd_cmd_fill_pages(vd);
        f[0] = FIS_DATA;
        memcpy(&f[1], &vd->pio_buf[c->pio_blk * ndw], (size_t)ndw * 4);
        vd_link_queue(vd, f, 1 + ndw, 0, VD_OWN_CMD);
        c->phase = CP_PIO_DATA_WAIT;
        break;
    }
    case CP_READ: {
        uint64_t left = (uint64_t)c->count * 128 - c->dw_sent;
        c->chunk = left < vd->cfg.data_fis_dwords ? (uint32_t)left : vd->cfg.data_fis_dwords;
        /* start a Data FIS once its first sector is ready; HOLD covers the rest */
        if (vd_read_avail(vd, c->dw_sent + (c->chunk < 128 ? c->chunk : 128) - 1) <= vd->now)
            send_read_data(vd);
        break;
    }
    case CP_BUF_DATA:
        if (vd->now >= c->t_ready)
            vd_cmd_send_pages(vd);
        break;
    case CP_WRITE_ACT: {
        uint32_t left = c->count - c->done;
        uint32_t chunk = left < SECTORS_PER_FIS ? left : SECTORS_PER_FIS;
        uint64_t t = vd_persona_write_room_at(vd, chunk * 64);
        if (vd->now >= c->t_ready && vd->now >= t) {
            uint32_t fis[1] = { FIS_DMA_ACT };
            vd_link_queue(vd, fis, 1, 0, VD_OWN_CMD);
            c->phase = CP_WRITE_ACT_WAIT;
        }
        break;
    }
    default:
        break;
    }
}

/* While tags are outstanding ncq.c says what goes next: its own FISes, the data phase running
 * here, or a tag to serve. */
void vd_cmd_poll(vdrive_t *vd)
{
    if (vd_ncq_busy(vd)) {
        struct vd_ncq_serve sv;
        int r = vd_ncq_poll(vd, vd->cmd.active, &sv);
        if (r == VD_NCQ_XFER)
            phase_poll(vd);
        else if (r == VD_NCQ_SERVE)
            ncq_open(vd, &sv);
    } else if (vd->cmd.active) {
        phase_poll(vd);
    }
}

static void tx_done(vdrive_t *vd, int ok)
{
    struct vd_cmd *c = &vd->cmd;
    int limit = vd_fault_retry_limit(vd);
    if (c->interim == 2) {               /* refused or abandoned: again, as a status would be */
        if (ok == 1 || ++c->retries_im > limit)
            c->interim = 0;
        else
            c->interim = 1;
        return;
    }
    if (ok == VD_TX_ESCAPED) {
        if (c->active)
            escaped(vd);
        return;
    }
    switch (c->phase) {
    case CP_STATUS_WAIT:
        if (ok || ++c->retries > limit)
            c->active = 0;
        else
            c->phase = CP_STATUS;
        break;
    case CP_PIO_SETUP_WAIT:
        if (ok && c->pio_lost) {         /* pio_lost_data: the Data FIS never reaches the host */
            c->pio_lost = 0;
            vd->st.pio_lost_data++;
            vd_cmd_fail(vd, ER_ICRC | ER_ABRT, 0);
        } else if (ok)
            c->phase = CP_PIO_DATA;
        else if (++c->retries > limit)
            c->active = 0;
        else
            c->phase = CP_PIO_SETUP;
        break;
    case CP_PIO_DATA_WAIT:
        if (!ok)
            vd_cmd_fail(vd, ER_ICRC | ER_ABRT, 0);
        else if (++c->pio_blk < (int)vd->cfg.pio_blocks * c->pages)
            c->phase = CP_PIO_SETUP;     /* next DRQ block (of this page or the next) */
        else
            c->active = 0;
        break;
    case CP_READ_WAIT:
        if (!ok) {
            vd_cmd_fail(vd, ER_ICRC | ER_ABRT, c->lba + c->done);
            break;
        }
        c->dw_sent += c->chunk;
        c->done = (uint32_t)(c->dw_sent / 128);
        vd->st.bytes_read += (uint64_t)c->chunk * 4;
        vd_health_bytes(vd, (uint64_t)c->chunk * 4);
        if (c->done >= c->count) {
            if (!c->ncq)
                vd_persona_read_end(vd);
            c->t_ready = vd->now;
            vd_cmd_finish(vd, ST_OK, 0);
        } else {
            c->phase = CP_READ;
        }
        break;
    case CP_BUF_DATA_WAIT:
        if (!ok) {
            vd_cmd_fail(vd, ER_ICRC | ER_ABRT, 0);
            break;
        }
        c->dw_sent += c->chunk;
        if (c->dw_sent < (uint64_t)c->pages * 128) {
            c->phase = CP_BUF_DATA;
        } else {
            c->t_ready = vd->now;
            vd_cmd_finish(vd, ST_OK, 0);
        }
        break;
    case CP_WRITE_ACT_WAIT:
        if (ok)
            c->phase = CP_WRITE_DATA;
        else if (++c->retries > limit)
            vd_cmd_fail(vd, ER_ABRT, c->lba + c->done);
        else
            c->phase = CP_WRITE_ACT;
        break;
    default:
        break;
    }
}

/* The end of a frame this layer queued (ncq.c's included). */
void vd_cmd_sent(vdrive_t *vd, int ok, int owner)
{
    struct vd_cmd *c = &vd->cmd;
    if (owner != VD_OWN_NCQ) {
        tx_done(vd, ok);
        return;
    }
    switch (vd_ncq_tx_done(vd, ok, c->ncq ? c->tag : -1)) {
    case VD_NCQ_GO:                      /* DMA Setup taken: the data phase starts */
        c->phase = !c->is_write ? CP_READ : CP_WRITE_ACT;
        break;
    case VD_NCQ_GO_AUTO:                 /* ... a write's first Data FIS needs no DMA Activate */
        c->phase = !c->is_write ? CP_READ : CP_WRITE_DATA;
        break;
    case VD_NCQ_END:                     /* DMA Setup refused or abandoned */
        memset(c, 0, sizeof(*c));
        break;
    default:
        break;
    }
}
