/* SPDX-License-Identifier: BSD-2-Clause */
/* Link layer, device side: primitives, frames (SOF/EOF, scrambling, CRC), flow control with
 * HOLD/HOLDA, CONT on both directions, ALIGN pairs every 256 dwords.
 *
 * Ref: SATA 3.x section 9 (link layer). State names follow the spec loosely:
 *   L_IDLE (SYNC), L_SEND_XRDY (LT:SendChkRdy), L_SEND_DATA (LT:SendData/RcvrHold/SendHold),
 *   L_SEND_WTRM (LT:Wait), L_RCV_RDY (LR:RcvWaitFifo), L_RCV_DATA (LR:RcvData/Hold/SendHold),
 *   L_RCV_RESP (LR:GoodEnd/BadEnd).
 * Collision rule (SATA 3.x §9.6, LT:H_SendChkRdy / DL_SendChkRdy): the host yields, so a device
 * sending X_RDY that receives X_RDY goes on sending X_RDY until it sees R_RDY.
 *
 * The receive side works on primitive levels: a CONT makes the previous primitive persist and
 * the scrambled junk behind it is ignored until the next primitive.
 *
 * Frame-level faults (faults.c) hook in at three places: vd_link_queue (what a queued FIS looks
 * like on the wire), the end of a transmitted frame (repeats, inserted frames), and the receiver
 * (R_ERR to a host FIS, DMAT inside a host Data FIS). A SYNC escape (SATA 3.x §9.6, LT:SyncEscape)
 * ends a frame after f->end dwords: SYNC, no EOF, no WTRM; the host drops what it got. The link
 * drop of drop_after_dwords is decided there too; the link only carries it out. Two more hooks act
 * on the host's primitives: an R_ERR the drive takes as R_OK (no_resend) and a HOLD it does not
 * answer (ignore_hold).
 *
 * Device-initiated power management (pmreq) lives in pm.c: from L_IDLE the link may go to L_PMREQ.
 * rx_fifo makes the receiver HOLD the host's Data FIS at fixed intervals, as a drive draining a
 * small receive FIFO does, and measures how many dwords the host still sends after its HOLD.
 *
 * Layering: the phy reaches this file through vd->up (phy_linked, phy_down, phy_rx, phy_tx); this
 * file calls the phy directly and reports to the transport only through vd->up (link_up,
 * link_down, frame_received, frame_bad, frame_sent, poll). Flow control inside a frame depends on
 * the data's owner: up->tx_ready_at paces a read Data FIS, up->rx_hold a host Data FIS.
 */
#include "internal.h"

#define HOLD_RESUME_DW 64    /* hysteresis: resume once this many more dwords are ready */

void vd_link_reset(vdrive_t *vd)
{
    vd->ls = L_IDLE;
    vd->rx_prim = P_NONE;
    vd->rx_cont = vd->rx_hold = vd->rx_hold_seen = 0;
    vd->tx_align_cnt = 0;
    vd->tx_align_left = 0;
    vd->tx_holding = vd->rcv_holding = 0;
    vd->pm_nak_left = 0;
    vd_pm_reset(vd);
    vd->rxq.state = 0;
    vd->rxq.ref = 0;
    vd->rxq.left = vd->cfg.rx_hold_every;
    vd->cont_last = 0;
    vd->cont_rep = vd->cont_mode = 0;
    vd->txf.pending = 0;
    vd->rxf.n = 0;
    vd->linkup_pending = 0;
    vd_answers_reset(vd);
    vd_fault_reset(vd);
}

/* The phy saw the host's ALIGN (and any dwell is over): the link layer starts from idle. */
void vd_link_phy_linked(vdrive_t *vd)
{
    vd_link_reset(vd);
    vd->linkup_pending = 1;
}

/* The phy lost the link (COMRESET, a quiet line, a dropped link): the transport first, then the
 * link itself. */
void vd_link_phy_down(vdrive_t *vd, int why)
{
    vd->up->link_down(vd, why);
    vd_link_reset(vd);
}

uint32_t *vd_link_tx_buf(vdrive_t *vd)
{
    return vd->txf.dw;
}

void vd_link_set_poll(vdrive_t *vd, int want)
{
    vd->want_poll = want;
}

void vd_link_seal(struct vd_txframe *f, int n)
{
    f->dw[n] = vd_crc_update(VD_CRC_SEED, f->dw, (size_t)n);
    f->n = n + 1;
}

void vd_link_arm(struct vd_txframe *f, int end)
{
    for (int i = 0; i < f->n; i++)
        f->dw[i] ^= vd_scr_tab[i];
    f->idx = 0;
    f->end = end;
    f->pending = 1;
}

/* Phy event 0008h: a non-Data FIS queued again (the same first dwords) right after the host
 * refused it or the drive abandoned it is a retry. */
static void note_nondata(vdrive_t *vd, const uint32_t *fis, int n)
{
    int k = n < 7 ? n : 7;
    if (vd->tx_refused && n == vd->tx_last_n && !memcmp(fis, vd->tx_last, (size_t)k * 4))
        vd->st.nondata_retries++;
    memcpy(vd->tx_last, fis, (size_t)k * 4);
    vd->tx_last_n = n;
    vd->tx_refused = 0;
}

/* Queue a FIS for transmission: compute CRC and scramble now, so sending is a copy. */
void vd_link_queue(vdrive_t *vd, const uint32_t *fis, int n, int paced, int owner)
{
    struct vd_txframe *f = &vd->txf;
    if (fis != f->dw)
        memcpy(f->dw, fis, (size_t)n * 4);
    f->is_data = (f->dw[0] & 0xFF) == FIS_DATA;
    f->paced = paced;
    f->owner = owner;
    f->drop = f->no_resend = 0;
    vd->d2h_fis_n++;
    vd->st.fis_d2h++;
    if (!f->is_data)
        note_nondata(vd, fis, n);
    if (vd->flt.tx_any) {
        vd_fault_tx(vd, f, n);
        return;
    }
    vd_link_seal(f, n);
    vd_link_arm(f, f->n);
}

static void tx_finished(vdrive_t *vd, int ok)
{
    vd->tx_refused = ok != 1 && !vd->txf.is_data;   /* before the owner queues a resend */
    vd->txf.pending = 0;
    vd->tx_holding = 0;
    vd->ls = L_IDLE;
    if (vd->flt.tx_any && vd_fault_tx_done(vd, ok))
        return;                              /* an inserted frame: not the transport's */
    vd->up->frame_sent(vd, ok, vd->txf.owner);
    if (vd->flt.tx_any)
        vd_fault_after(vd, ok);
}

/* rx_fifo, per dword time of a host frame: 1 = HOLD. After rx_hold_every payload dwords of host
 * Data FISes (counted across frames) the receiver sends HOLD until the host's HOLDA, then
 * VD_RX_HOLD_KEEP dword times more. */
static int rxq_hold(vdrive_t *vd)
{
    const struct vd_rxframe *f = &vd->rxf;
    switch (vd->rxq.state) {
    case 0:
        if (f->n < 1 || (f->dw[0] & 0xFF) != FIS_DATA || f->n - 1 - vd->rxq.ref < vd->rxq.left)
            return 0;
        vd->rxq.state = 1;
        vd->rxq.n0 = f->n;               /* what arrives from now on came after our HOLD */
        vd->st.rx_hold_count++;
        return 1;
    case 1:
        return 1;
    default:
        if (vd->rxq.keep-- > 0)
            return 1;
        vd->rxq.state = 0;
        vd->rxq.ref = f->n - 1;
        vd->rxq.left = vd->cfg.rx_hold_every;
        return 0;
    }
}

/* The host's answer to our HOLD (or the frame's end, from a host that never gave one): SATA 3.x
 * lets a receiver's HOLD be answered within 20 dwords; rx_fifo is the drive's budget. */
static void rxq_answered(vdrive_t *vd)
{
    uint64_t d = (uint64_t)(vd->rxf.n - vd->rxq.n0);
    if (d > vd->st.rx_hold_dwords_max)
        vd->st.rx_hold_dwords_max = d;
    if (d > vd->cfg.rx_fifo)
        vd->st.rx_hold_over_budget += d - vd->cfg.rx_fifo;
}

static void rxq_frame_end(vdrive_t *vd)
{
    const struct vd_rxframe *f = &vd->rxf;
    if (vd->rxq.state) {
        if (vd->rxq.state == 1)
            rxq_answered(vd);
        vd->rxq.state = 0;
        vd->rxq.left = vd->cfg.rx_hold_every;
    } else if (f->n >= 2 && (f->dw[0] & 0xFF) == FIS_DATA) {
        vd->rxq.left -= f->n - 2 - vd->rxq.ref;   /* the count goes on in the next Data FIS */
    }
    vd->rxq.ref = 0;
}

/* The drive refused a host frame (R_ERR): phy events 0004h / 0007h and their CRC / non-CRC
 * parts 000Fh, 0010h, 0012h, 0013h. */
static void count_r_err_sent(vdrive_t *vd, int crc)
{
    const struct vd_rxframe *f = &vd->rxf;
    int data = f->n >= 1 && (f->dw[0] & 0xFF) == FIS_DATA;
    if (data && crc)
        vd->st.r_err_tx_data_crc++;
    else if (data)
        vd->st.r_err_tx_data_other++;
    else if (crc)
        vd->st.r_err_tx_nondata_crc++;
    else
        vd->st.r_err_tx_nondata_other++;
}

static void rcv_end(vdrive_t *vd)
{
    struct vd_rxframe *f = &vd->rxf;
    int ok = 0, crc_bad = 0;
    vd->h2d_fis_n++;
    if (!f->bad && f->n >= 2) {
        uint32_t crc = vd_crc_update(VD_CRC_SEED, f->dw, (size_t)(f->n - 1));
        if (crc == f->dw[f->n - 1]) {
            ok = 1;
        } else {
            crc_bad = 1;
            vd->st.crc_errors_rx++;
            vd->st.rx_fis_crc_errors++;
        }
    } else {
        vd->st.crc_errors_rx++;          /* a code error, an overflow, no EOF: not the CRC */
        vd->st.rx_fis_other_errors++;
    }
    int dmat = vd->flt.rx_dmat ? vd_fault_dmat_end(vd, f->n) : 0;
    if (ok && vd->flt.rx_any && vd_fault_rx_refuse(vd, f->dw, f->n - 1)) {
        ok = 0;
    } else if (ok) {
        vd->st.fis_h2d++;
        ok = vd->up->frame_received(vd, f->dw, f->n - 1, dmat);
    }
    if (!ok) {
        count_r_err_sent(vd, crc_bad);
        vd->up->frame_bad(vd);
    }
    if (vd->cfg.rx_fifo)
        rxq_frame_end(vd);
    vd->rcv_result = ok;
    vd->rcv_holding = 0;
    vd->ls = L_RCV_RESP;
}

void vd_link_rx(vdrive_t *vd, uint32_t dw, int kind)
{
    int p;
    if (kind == 1) {
        p = vd_prim_id(dw);
        if (p == P_ALIGN)
            return;
        if (p == P_CONT) {
            vd->rx_cont = 1;
            return;
        }
        vd->rx_cont = 0;
        if (vd->linkup_pending) {
            vd->linkup_pending = 0;
            vd->st.link_ups++;
            vd->st.gen = (uint32_t)vd->dev_gen;
            vd->up->link_up(vd);
        }
    } else {
        if (vd->rx_cont)
            return;          /* junk after CONT */
        p = P_NONE;
    }
    vd->rx_prim = p;
    vd_answers_got(vd, p);

    switch (vd->ls) {
    case L_PMREQ:
        vd_pm_rx(vd, p);
        break;
    case L_IDLE:
        if (p == P_X_RDY)
            vd->ls = L_RCV_RDY;
        else if (p == P_PMREQ) {
            vd->ls = L_PMNAK;
            vd->pm_nak_left = 4;
        }
        break;
    case L_SEND_XRDY:
        if (p == P_R_RDY)
            vd->ls = L_SEND_SOF;         /* X_RDY from the host (collision): the host yields */
        break;
    case L_SEND_SOF:
    case L_SEND_DATA:
    case L_SEND_EOF:
    case L_SEND_ESC:
        if (p == P_HOLD) {
            if (!vd->rx_hold) {
                vd->rx_hold = 1;
                vd->st.holds_received++;
            }
        } else if (p != P_NONE) {
            vd->rx_hold = 0;
            if (p == P_SYNC)
                tx_finished(vd, 0);       /* host aborted the frame */
        }
        break;
    case L_SEND_WTRM:
        if (p == P_R_OK)
            tx_finished(vd, 1);
        else if (p == P_R_ERR) {
            vd->st.r_err_received++;
            if (vd->txf.is_data)
                vd->st.r_err_rx_data++;
            else
                vd->st.r_err_rx_nondata++;
            tx_finished(vd, vd_fault_no_resend(vd));   /* 1: taken as if R_OK */
        } else if (p == P_SYNC)
            tx_finished(vd, 0);
        break;
    case L_RCV_RDY:
        /* lose_sof: the SOF is taken as a damaged dword, so the drive waits on for one; the
         * frame's EOF is then a primitive out of place here, after which it goes idle and answers
         * SYNC (SATA 3.x, LR:RcvWaitFifo: any primitive but X_RDY and SOF) */
        if (p == P_SOF && vd_fault_lose_sof(vd))
            break;
        if (p == P_SOF) {
            vd->ls = L_RCV_DATA;
            vd->rxf.n = 0;
            vd->rxf.bad = 0;
            vd->rx_hold = 0;
        } else if (p != P_X_RDY && p != P_NONE) {
            vd->ls = L_IDLE;
        }
        break;
    case L_RCV_DATA:
        if (kind != 1) {
            struct vd_rxframe *f = &vd->rxf;
            if (kind == 2)
                f->bad = 1;
            if (vd->flt.drop_armed && f->n >= 1 && vd_fault_drop_rx(vd, f->dw[0])) {
                vd_phy_drop_link(vd);
                return;
            }
            if (f->n < VD_FRAME_MAX + 1) {
                f->dw[f->n] = dw ^ vd_scr_tab[f->n];
                if (++f->n == 1 && vd->flt.rx_any)
                    vd_fault_rx_first(vd, f->dw[0]);
            } else {
                f->bad = 1;
            }
            break;
        }
        switch (p) {
        case P_HOLD:
            if (!vd->rx_hold) {
                vd->rx_hold = 1;
                vd->st.holds_received++;
            }
            break;
        case P_HOLDA:
            if (vd->rxq.state == 1) {
                rxq_answered(vd);
                vd->rxq.state = 2;
                vd->rxq.keep = VD_RX_HOLD_KEEP;
            }
            break;
        case P_EOF:
            vd->rx_hold = 0;
            rcv_end(vd);
            break;
        case P_WTRM:
            vd->rxf.bad = 1;             /* EOF lost */
            rcv_end(vd);
            break;
        case P_SYNC:
            vd->ls = L_IDLE;             /* host aborted */
            vd->rcv_holding = 0;
            if (vd->flt.rx_dmat)
                vd_fault_dmat_cancel(vd);
            if (vd->cfg.rx_fifo)
                rxq_frame_end(vd);
            break;
        default:
            vd->rx_hold = 0;
            break;
        }
        break;
    case L_RCV_RESP:
        if (p == P_SYNC)
            vd->ls = L_IDLE;
        break;
    default:
        break;
    }
}

static uint32_t link_tx_prim(vdrive_t *vd)
{
    struct vd_txframe *f = &vd->txf;
    if (vd->pm.on && vd->ls != L_IDLE)
        vd->pm.since = vd->now;              /* pmreq: idle time starts again */
    switch (vd->ls) {
    case L_IDLE:
        if (!f->pending && vd->want_poll)
            vd->up->poll(vd);
        if (f->pending && f->drop) {
            tx_finished(vd, 1);              /* fuzz: the frame vanished, as if taken */
            return PRIM_SYNC;
        }
        if (f->pending && vd->rx_prim == P_SYNC) {
            vd->ls = L_SEND_XRDY;
            return PRIM_X_RDY;
        }
        if (vd->pm.on) {
            uint32_t pm = vd_pm_idle(vd);
            if (pm)
                return pm;
        }
        return PRIM_SYNC;
    case L_PMREQ:
        return vd_pm_tx(vd);
    case L_SEND_XRDY:
        return PRIM_X_RDY;
    case L_SEND_SOF:
        vd->ls = L_SEND_DATA;
        return PRIM_SOF;
    case L_SEND_EOF:
        vd->ls = L_SEND_WTRM;
        return PRIM_EOF;
    case L_SEND_WTRM:
        return PRIM_WTRM;
    case L_SEND_ESC:
        tx_finished(vd, VD_TX_ESCAPED);      /* SYNC in place of the rest: the frame is gone */
        return PRIM_SYNC;
    case L_RCV_RDY:
        return PRIM_R_RDY;
    case L_RCV_DATA:
        if (vd->rx_hold)
            return PRIM_HOLDA;
        /* dmat_fis: DMAT in place of R_IP */
        if (vd->flt.rx_dmat && vd_fault_dmat_now(vd, vd->rxf.n))
            return PRIM_DMAT;
        if ((vd->cfg.rx_fifo && rxq_hold(vd)) ||
            vd->up->rx_hold(vd, vd->rxf.n, vd->rcv_holding)) {
            if (!vd->rcv_holding) {
                vd->rcv_holding = 1;
                vd->st.holds_sent++;
            }
            return PRIM_HOLD;
        }
        vd->rcv_holding = 0;
        return PRIM_R_IP;
    case L_RCV_RESP:
        return vd->rcv_result ? PRIM_R_OK : PRIM_R_ERR;
    case L_PMNAK:
        if (--vd->pm_nak_left <= 0)
            vd->ls = L_IDLE;
        return PRIM_PMNAK;
    default:
        return PRIM_SYNC;
    }
}

/* Repeated primitives become P P CONT junk...; the junk is scrambled data that the receiver
 * ignores until the next primitive. */
static uint32_t cont_filter(vdrive_t *vd, uint32_t dw, int *k)
{
    if (!*k) {
        vd->cont_rep = 0;
        vd->cont_last = 0;
        vd->cont_mode = 0;
        return dw;
    }
    if (dw == vd->cont_last && dw != PRIM_SOF && dw != PRIM_EOF) {
        if (vd->cont_mode) {
            uint32_t x = vd->cont_lfsr;
            x ^= x << 13; x ^= x >> 17; x ^= x << 5;
            vd->cont_lfsr = x;
            vd->cont_mode = 2;
            *k = 0;
            return x;
        }
        if (++vd->cont_rep >= 2) {
            vd->cont_mode = 1;
            return PRIM_CONT;
        }
        return dw;
    }
    vd->cont_last = dw;
    vd->cont_rep = 0;
    vd->cont_mode = 0;
    return dw;
}

uint32_t vd_link_tx(vdrive_t *vd, int *k)
{
    if (vd->tx_align_left) {
        vd->tx_align_left = 0;
        *k = 1;
        return PRIM_ALIGN;
    }
    if (++vd->tx_align_cnt >= 255) {
        vd->tx_align_cnt = 0;
        vd->tx_align_left = 1;
        *k = 1;
        return PRIM_ALIGN;
    }
    uint32_t dw;
    *k = 1;
    if (vd->ls == L_SEND_DATA) {
        struct vd_txframe *f = &vd->txf;
        if (vd->rx_hold && !vd_fault_ignore_hold(vd)) {
            dw = PRIM_HOLDA;
        } else {
            int idx = f->idx;
            if (f->paced && idx >= 1 && idx < f->n - 1) {
                uint64_t need = (uint64_t)idx - 1;
                if (vd->tx_holding) {
                    uint64_t last = (uint64_t)f->n - 3;
                    need += HOLD_RESUME_DW;
                    if (need > last)
                        need = last;
                }
                if (vd->up->tx_ready_at(vd, need) > vd->now) {
                    if (!vd->tx_holding) {
                        vd->tx_holding = 1;
                        vd->st.holds_sent++;
                    }
                    dw = PRIM_HOLD;
                    goto out;
                }
            }
            if (vd->cont_mode) {
                /* data after CONT is junk to the receiver until a primitive comes (SATA 3.x
                 * 9.4.7), with or without junk sent yet: repeat the primitive first */
                vd->cont_mode = 0;
                vd->cont_rep = 0;
                return vd->cont_last;
            }
            vd->tx_holding = 0;
            if (vd->rx_hold)
                vd->st.dwords_sent_in_host_hold++;   /* ignore_hold */
            dw = f->dw[f->idx++];
            if (f->idx == f->end)
                vd->ls = f->end == f->n ? L_SEND_EOF : L_SEND_ESC;
            *k = 0;
            if (vd->flt.drop_armed && vd_fault_drop_tx(vd, f->is_data)) {
                vd_phy_drop_link(vd);
                *k = 1;
                return PRIM_SYNC;
            }
        }
    } else {
        dw = link_tx_prim(vd);
        vd_answers_sent(vd, dw);
    }
out:
    if (vd->cfg.cont)
        return cont_filter(vd, dw, k);
    return dw;
}
