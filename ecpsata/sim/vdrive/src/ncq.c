/* SPDX-License-Identifier: BSD-2-Clause */
/* Native Command Queuing, device side: READ / WRITE FPDMA QUEUED, the queue and the persona's order
 * of service, Set Device Bits completions, NCQ errors and the NCQ Command Error log.
 *
 * Ref: SATA 3.x §13.6 (NCQ), 10.5.7 (Set Device Bits FIS), 10.5.9 (DMA Setup FIS); ACS-3 READ LOG
 * EXT and log 10h.
 *   command FIS 0x60 / 0x61 (tag in Count 7:3, sectors in Features 15:0, 0 = 65536, LBA48)
 *     -> Register D2H, status 0x40, I=0: BSY clear, the host may queue the next command
 *   per tag, in the persona's order:
 *     read:  DMA Setup (D=1, buffer id = tag, byte count), Data FIS ... (<= 8192 bytes each)
 *     write: DMA Setup (D=0; A=1 when auto-activate is enabled (SET FEATURES 10h/02h, off at
 *            power-on) and the buffer has room for the first Data FIS, else A=0 and a DMA
 *            Activate follows), host Data FIS, DMA Activate, host Data FIS ...
 *   completion: Set Device Bits, status 0x40, I=1, SActive = every finished tag not yet reported
 *   error: SDB with status 0x41 and the error register (SActive: tags that did finish); every other
 *          outstanding tag is dropped; FPDMA commands abort until READ LOG EXT 10h is read.
 * A non-queued command while tags are outstanding drops them and aborts itself (command.c); so do
 * a duplicate tag and a tag beyond the advertised depth (Register D2H with ERR, no halt).
 * A DMA Setup or data-phase frame the drive abandons (escape_fis) is an NCQ error with ABRT.
 * setup_offset / setup_count_delta change the DMA Setup's offset and count, not the data.
 * Slots hold LBAs and counts in 512-byte image sectors (4096-byte logical sectors scaled).
 *
 * Order of service: reads wait for one of cfg.ncq_channels media channels. With one channel on
 * rotating media the drive picks the command whose data comes under the head first (seek +
 * rotation, persona.c), others in arrival order; several channels overlap their media time. The
 * link then serves the command whose data is ready first. Writes go through the write cache model.
 *
 * Only command.c calls this file, and this file never calls command.c nor touches vd->cmd: the
 * data phase of the tag being served runs in command.c, which learns from return values when to
 * open it (vd_ncq_poll), start it or end it (vd_ncq_tx_done, vd_ncq_command) and reports its end
 * (vd_ncq_finished).
 */
#include "internal.h"

#define ST_Q_OK   0x40
#define ST_Q_ERR  0x41
#define ER_ABRT   0x04
#define ER_IDNF   0x10
#define ER_UNC    0x40
#define AGE_TICKS (500000ull * VD_TICKS_PER_US)   /* a read older than this goes next */
/* Completions wait while data phases are ready to go, up to this long or this many tags: one SDB
 * then reports several (less link time per command under load, none lost when idle). */
#define SDB_WAIT_TICKS (10ull * VD_TICKS_PER_US)
#define SDB_WAIT_TAGS  8

enum { TX_NONE, TX_REPLY, TX_SDB, TX_ERR_SDB, TX_SETUP };

void vd_ncq_reset(vdrive_t *vd)
{
    struct vd_ncq *q = &vd->ncq;
    uint8_t log[sizeof(q->log)];
    memcpy(log, q->log, sizeof(log));
    memset(q, 0, sizeof(*q));
    memcpy(q->log, log, sizeof(log));
}

int vd_ncq_busy(const vdrive_t *vd)
{
    const struct vd_ncq *q = &vd->ncq;
    return q->active || q->reply_pending || q->err_pending;
}

static int popcount(uint32_t x)
{
    int n = 0;
    for (; x; x &= x - 1)
        n++;
    return n;
}

/* ACS-3 log 10h: byte 0 tag (bit 7 NQ: the error was not a queued command's), 2 status, 3 error,
 * 4-6 and 8-10 the LBA, 7 device, 12-13 count, 511 checksum (all 512 bytes sum to 0). */
static void set_log(vdrive_t *vd, int tag, uint8_t status, uint8_t error, uint64_t lba,
                    uint32_t count)
{
    uint8_t *l = vd->ncq.log;
    memset(l, 0, 512);
    l[0] = tag < 0 ? 0x80 : (uint8_t)tag;
    l[2] = status;
    l[3] = error;
    for (int i = 0; i < 3; i++) {
        l[4 + i] = (uint8_t)(lba >> (8 * i));
        l[8 + i] = (uint8_t)(lba >> (24 + 8 * i));
    }
    l[7] = 0x40;
    l[12] = (uint8_t)count;
    l[13] = (uint8_t)(count >> 8);
    uint8_t sum = 0;
    for (int i = 0; i < 511; i++)
        sum = (uint8_t)(sum + l[i]);
    l[511] = (uint8_t)(0x100 - sum);
}

const uint8_t *vd_ncq_log(vdrive_t *vd)
{
    vd->ncq.halted = 0;
    return vd->ncq.log;
}

/* Every outstanding tag fails: the host never gets its SDB bit. */
static void drop_queue(vdrive_t *vd)
{
    struct vd_ncq *q = &vd->ncq;
    vd->st.ncq_aborted += (uint64_t)popcount(q->active);
    for (int t = 0; t < VD_NCQ_MAX; t++)
        q->slot[t].state = NS_FREE;
    q->active = q->done = 0;
    q->next_t = 0;
}

/* lba in image sectors; the log has the host's logical LBA and count */
static void ncq_error(vdrive_t *vd, int tag, uint8_t error, uint64_t lba)
{
    struct vd_ncq *q = &vd->ncq;
    set_log(vd, tag, ST_Q_ERR, error, lba >> vd->lss, q->slot[tag].count >> vd->lss);
    q->err_bits = q->done;               /* finished tags are reported with the error */
    q->active &= ~q->done;
    q->done = 0;
    drop_queue(vd);
    q->err_pending = 1;
    q->err_error = error;
    q->halted = 1;
    vd->st.ncq_errors++;
}

static void reply(vdrive_t *vd, uint8_t status, uint8_t error)
{
    vd->ncq.reply_pending = 1;
    vd->ncq.reply_status = status;
    vd->ncq.reply_error = error;
}

int vd_ncq_command(vdrive_t *vd, const uint32_t *fis)
{
    struct vd_ncq *q = &vd->ncq;
    uint8_t op = (uint8_t)(fis[0] >> 16);
    if (!vd->cfg.ncq || (op != 0x60 && op != 0x61)) {
        if (!q->active)
            return 0;
        set_log(vd, -1, 0x51, ER_ABRT, 0, 0);
        drop_queue(vd);
        vd->st.ncq_errors++;
        return VD_NCQ_ABORT | VD_NCQ_DROPPED;
    }
    int is_write = op == 0x61;
    if (is_write)
        vd->st.cmd_fpdma_write++;
    else
        vd->st.cmd_fpdma_read++;
    unsigned tag = (fis[3] >> 3) & 0x1F;
    uint32_t count = (fis[0] >> 24) | (fis[2] >> 24) << 8;
    uint64_t lba = (fis[1] & 0xFFFFFFu) | (uint64_t)(fis[2] & 0xFFFFFFu) << 24;
    q->next_t = 0;
    if (q->halted || tag >= vd->cfg.ncq_depth || (q->active >> tag & 1)) {
        int r = VD_NCQ_TAKEN;
        if (!q->halted) {
            set_log(vd, -1, 0x51, ER_ABRT, lba, count);
            drop_queue(vd);
            vd->st.ncq_errors++;
            r |= VD_NCQ_DROPPED;
        }
        vd->st.cmd_errors++;
        reply(vd, 0x51, ER_ABRT);
        return r;
    }
    struct vd_ncq_slot *s = &q->slot[tag];
    memset(s, 0, sizeof(*s));
    s->is_write = (uint8_t)is_write;
    s->lba = lba << vd->lss;
    s->count = (count ? count : 65536) << vd->lss;
    s->seq = q->seq++;
    s->t_arrive = vd->now;
    s->state = is_write ? NS_READY : NS_QUEUED;
    s->t_ready = vd->now + vd_persona_cmd_ticks(vd);
    q->active |= 1u << tag;
    uint64_t depth = (uint64_t)popcount(q->active);
    if (depth > vd->st.ncq_max_depth)
        vd->st.ncq_max_depth = depth;
    reply(vd, ST_Q_OK, 0);
    return VD_NCQ_TAKEN;
}

/* Give free media channels to queued reads. A decision is taken only once its start time has come
 * (a better candidate may still arrive); returns the earliest pending start. */
static uint64_t schedule(vdrive_t *vd)
{
    struct vd_ncq *q = &vd->ncq;
    uint64_t now = vd->now, cmd = vd_persona_cmd_ticks(vd);
    int rot = vd->cfg.rpm > 1;
    for (;;) {
        int ch = 0;
        for (int i = 1; i < (int)vd->cfg.ncq_channels; i++)
            if (q->chan_free[i] < q->chan_free[ch])
                ch = i;
        uint64_t free_at = q->chan_free[ch];
        if (rot && vd->pers.wr_busy_until > free_at)
            free_at = vd->pers.wr_busy_until;   /* one head: cached writes drain first */
        int best = -1;
        uint64_t best_key = UINT64_MAX, best_start = 0, best_pos = 0, later = UINT64_MAX;
        for (int t = 0; t < VD_NCQ_MAX; t++) {
            struct vd_ncq_slot *s = &q->slot[t];
            if (s->state != NS_QUEUED)
                continue;
            uint64_t start = s->t_arrive + cmd > free_at ? s->t_arrive + cmd : free_at;
            if (start > now) {
                if (start < later)
                    later = start;
                continue;
            }
            uint64_t pos = 0, key = s->seq;
            if (rot) {
                pos = vd_persona_position_ticks(vd, s->lba, start);
                key = now - s->t_arrive > AGE_TICKS ? s->seq : UINT64_MAX / 2 + start + pos;
            }
            if (key < best_key) {
                best = t;
                best_key = key;
                best_start = start;
                best_pos = pos;
            }
        }
        if (best < 0)
            return later;
        struct vd_ncq_slot *s = &q->slot[best];
        uint64_t t0 = best_start + (rot ? best_pos
                                        : (uint64_t)vd->cfg.first_data_us * VD_TICKS_PER_US);
        s->rd_t0 = s->t_ready = t0;
        s->state = NS_READY;
        q->chan_free[ch] = t0 + (((uint64_t)s->count * 128 * vd->pers.rd_tpd_q16) >> 16);
        vd_persona_ncq_read(vd, s->lba, s->count);
    }
}

static void send(vdrive_t *vd, const uint32_t *f, int n, int kind)
{
    vd->ncq.tx_kind = kind;
    vd_link_queue(vd, f, n, 0, VD_OWN_NCQ);
}

/* The tag's turn: errors show now (as non-queued commands report them before data), else the DMA
 * Setup goes out and *sv tells command.c which data phase to open. 1 = serve it. */
static int serve(vdrive_t *vd, int tag, struct vd_ncq_serve *sv)
{
    struct vd_ncq *q = &vd->ncq;
    struct vd_ncq_slot *s = &q->slot[tag];
    uint8_t st, er;
    uint64_t elba;
    if (s->lba >= vd->cap_img || s->count > vd->cap_img - s->lba) {
        vd->st.cmd_errors++;
        ncq_error(vd, tag, ER_IDNF, s->lba);
        return 0;
    }
    if (vd_fault_dev_error(vd, s->lba, s->count, &st, &er, &elba)) {
        vd->st.cmd_errors++;
        if ((er & ER_UNC) && !s->is_write)
            vd_health_unc(vd);           /* SMART 197: the sector is pending */
        ncq_error(vd, tag, er, elba);
        return 0;
    }
    sv->tag = tag;
    sv->is_write = s->is_write;
    sv->lba = s->lba;
    sv->count = s->count;
    sv->rd_t0 = s->rd_t0;
    s->state = NS_XFER;
    uint32_t first = s->count < VD_DATA_MAX_DW / 128 ? s->count : VD_DATA_MAX_DW / 128;
    int aa = s->is_write && vd->sata_aa && vd_persona_write_room_at(vd, first * 128) <= vd->now;
    uint32_t f[7] = {
        FIS_DMA_SETUP | (s->is_write ? 0 : 1u << 13) | (aa ? 1u << 15 : 0),
        (uint32_t)tag, 0, 0, 0, s->count * 512, 0
    };
    q->setup_auto = aa;
    vd_fault_dma_setup(vd, f);           /* setup_offset, setup_count_delta */
    send(vd, f, 7, TX_SETUP);
    return 1;
}

int vd_ncq_poll(vdrive_t *vd, int xfer, struct vd_ncq_serve *sv)
{
    struct vd_ncq *q = &vd->ncq;
    uint64_t now = vd->now;
    if (q->reply_pending) {
        uint32_t f[5] = {
            FIS_REG_D2H | (q->reply_status & 1 ? 1u << 14 : 0) | (uint32_t)q->reply_status << 16 |
            (uint32_t)q->reply_error << 24, 0x40000000u, 0, 0, 0
        };
        q->reply_pending = 0;
        send(vd, f, 5, TX_REPLY);
        return VD_NCQ_IDLE;
    }
    if (q->err_pending) {
        uint32_t f[2] = { FIS_SDB | 1u << 14 | (uint32_t)ST_Q_ERR << 16 |
                          (uint32_t)q->err_error << 24, q->err_bits };
        send(vd, f, 2, TX_ERR_SDB);
        return VD_NCQ_IDLE;
    }
    if (xfer)
        return VD_NCQ_XFER;                  /* a tag's data phase (or a non-queued command) */
    if (now < q->next_t)
        return VD_NCQ_IDLE;
    uint32_t bits = 0;
    uint64_t next = schedule(vd), oldest = UINT64_MAX;
    int pick = -1;
    for (int t = 0; t < VD_NCQ_MAX; t++) {
        struct vd_ncq_slot *s = &q->slot[t];
        if (s->state == NS_DONE && s->t_ready <= now) {
            bits |= 1u << t;
            if (s->t_ready < oldest)
                oldest = s->t_ready;
        } else if (s->state == NS_READY && s->t_ready <= now &&
                 (pick < 0 || s->t_ready < q->slot[pick].t_ready ||
                  (s->t_ready == q->slot[pick].t_ready && s->seq < q->slot[pick].seq)))
            pick = t;
        else if ((s->state == NS_DONE || s->state == NS_READY) && s->t_ready < next)
            next = s->t_ready;
    }
    if (bits && (pick < 0 || now - oldest >= SDB_WAIT_TICKS ||
                 popcount(bits) >= SDB_WAIT_TAGS)) {
        uint32_t f[2] = { FIS_SDB | 1u << 14 | (uint32_t)ST_Q_OK << 16, bits };
        q->tx_bits = bits;
        send(vd, f, 2, TX_SDB);
        return VD_NCQ_IDLE;
    }
    if (pick >= 0)
        return serve(vd, pick, sv) ? VD_NCQ_SERVE : VD_NCQ_IDLE;
    q->next_t = next;
    return VD_NCQ_IDLE;
}

int vd_ncq_tx_done(vdrive_t *vd, int ok, int xfer_tag)
{
    struct vd_ncq *q = &vd->ncq;
    int limit = vd_fault_retry_limit(vd), r = VD_NCQ_KEEP;
    q->next_t = 0;
    if (ok == VD_TX_ESCAPED && q->tx_kind != TX_SETUP)
        ok = 0;                          /* no data phase: sent again as if refused */
    switch (q->tx_kind) {
    case TX_REPLY:
        if (ok != 1 && ++q->retries <= limit)
            q->reply_pending = 1;
        else
            q->retries = 0;
        break;
    case TX_SDB:
        if (ok) {
            uint32_t b = q->tx_bits & q->done;
            for (int t = 0; t < VD_NCQ_MAX; t++)
                if (b >> t & 1)
                    q->slot[t].state = NS_FREE;
            q->active &= ~b;
            q->done &= ~b;
            vd->st.ncq_sdb++;
            if (popcount(b) > 1)
                vd->st.ncq_sdb_multi++;
        }
        break;
    case TX_ERR_SDB:
        if (ok || ++q->retries > limit) {
            q->err_pending = 0;
            q->retries = 0;
        }
        break;
    case TX_SETUP:
        if (xfer_tag < 0)
            break;                           /* the tag went meanwhile (queue dropped) */
        if (ok == VD_TX_ESCAPED) {           /* abandoned: this tag fails */
            r = VD_NCQ_END;
            vd->st.cmd_errors++;
            ncq_error(vd, xfer_tag, ER_ABRT, q->slot[xfer_tag].lba);
        } else if (ok) {
            r = q->setup_auto ? VD_NCQ_GO_AUTO : VD_NCQ_GO;
        } else {                             /* refused: offer the tag again */
            q->slot[xfer_tag].state = NS_READY;
            r = VD_NCQ_END;
        }
        break;
    default:
        break;
    }
    q->tx_kind = TX_NONE;
    return r;
}

void vd_ncq_finished(vdrive_t *vd, int tag, uint8_t status, uint8_t error, uint64_t t,
                     uint64_t elba)
{
    struct vd_ncq *q = &vd->ncq;
    q->next_t = 0;
    if (status & 1) {
        ncq_error(vd, tag, error, elba);
        return;
    }
    q->slot[tag].state = NS_DONE;
    q->slot[tag].t_ready = t;
    q->done |= 1u << tag;
}
