/* SPDX-License-Identifier: BSD-2-Clause */
/* The host's answer times, measured where the drive's link layer sends and receives primitives:
 * from the first dword of a primitive that asks for an answer to the first dword of the answer.
 *
 *   X_RDY  -> R_RDY          the host is ready to receive the drive's frame
 *   EOF    -> R_OK / R_ERR   the host's verdict, by the kind of the drive's frame
 *   R_RDY  -> SOF            the host starts its frame
 *   R_OK / R_ERR -> SYNC     the host ends its frame's handshake (the drive may then send X_RDY)
 *   SYNC   -> SYNC           the host ends the drive's frame's handshake (its R_OK / R_ERR,
 *                            answered by the drive's SYNC): until then the drive sends no X_RDY
 *
 * Each time holds the host's own turnaround and both directions of the line between the two
 * link layers (the drive's own physical layer included), so that two hosts compare on the same
 * drive: the word-level test host answers at once (tests/host.c). An episode the host abandons
 * (a SYNC in place of the answer, a reset) counts nothing.
 *
 * line_idle_dwords counts the dword times in which neither side had anything to send (both SYNC,
 * no frame of the drive's waiting) while a command was outstanding; xrdy_collisions the drive's
 * X_RDY answered by the host's own X_RDY at first (host_r_rdy_coll_*: the R_RDY times of those,
 * a part of host_r_rdy_*).
 *
 * Ref: SATA 3.x section 9 (link layer state machines). */
#include "internal.h"

enum { W_XRDY, W_EOF, W_RRDY, W_ROK, W_IDLE, W_N };

/* the state the link layer waits for each answer in */
static const int wait_state[W_N] = { L_SEND_XRDY, L_SEND_WTRM, L_RCV_RDY, L_RCV_RESP, L_IDLE };

void vd_answers_reset(vdrive_t *vd)
{
    memset(vd->ans.since, 0, sizeof(vd->ans.since));
    vd->ans.collided = 0;
}

static void start(vdrive_t *vd, int w)
{
    if (!vd->ans.since[w])
        vd->ans.since[w] = vd->now + 1;      /* 0 means not waiting */
}

static uint64_t took_ps(vdrive_t *vd, int w)
{
    uint64_t t = vd->now + 1 - vd->ans.since[w];
    vd->ans.since[w] = 0;
    return t * 1000 / VD_TICKS_PER_NS;
}

void vd_answers_sent(vdrive_t *vd, uint32_t dw)
{
    vdrive_stats_t *st = &vd->st;
    switch (dw) {
    case PRIM_X_RDY:
        start(vd, W_XRDY);
        break;
    case PRIM_EOF:
        start(vd, W_EOF);
        vd->ans.kind = (vd->txf.dw[0] ^ vd_scr_tab[0]) & 0xFF;
        break;
    case PRIM_R_RDY:
        start(vd, W_RRDY);
        break;
    case PRIM_R_OK:
    case PRIM_R_ERR:
        start(vd, W_ROK);
        break;
    case PRIM_SYNC:
        if (vd->ls == L_IDLE && (vd->rx_prim == P_R_OK || vd->rx_prim == P_R_ERR))
            start(vd, W_IDLE);
        else if (vd->ls == L_IDLE && !vd->txf.pending && vd->rx_prim == P_SYNC &&
                 vd->up->cmd_busy(vd))
            st->line_idle_dwords++;
        break;
    default:
        break;
    }
}

void vd_answers_got(vdrive_t *vd, int p)
{
    vdrive_stats_t *st = &vd->st;
    for (int w = 0; w < W_N; w++)
        if (vd->ans.since[w] && vd->ls != wait_state[w])
            vd->ans.since[w] = 0;            /* abandoned: the link layer moved on */
    if (vd->ls != L_SEND_XRDY)
        vd->ans.collided = 0;
    switch (vd->ls) {
    case L_SEND_XRDY:
        if (p == P_X_RDY && vd->ans.since[W_XRDY] && !vd->ans.collided) {
            vd->ans.collided = 1;
            st->xrdy_collisions++;
        } else if (p == P_R_RDY && vd->ans.since[W_XRDY]) {
            uint64_t ps = took_ps(vd, W_XRDY);
            st->host_r_rdy_ps += ps;
            st->host_r_rdy_n++;
            if (vd->ans.collided) {
                st->host_r_rdy_coll_ps += ps;
                st->host_r_rdy_coll_n++;
            }
        }
        break;
    case L_SEND_WTRM:
        if ((p == P_R_OK || p == P_R_ERR) && vd->ans.since[W_EOF]) {
            uint64_t ps = took_ps(vd, W_EOF);
            switch (vd->ans.kind) {
            case FIS_DATA:      st->host_rok_data_ps += ps;  st->host_rok_data_n++;  break;
            case FIS_REG_D2H:   st->host_rok_d2h_ps += ps;   st->host_rok_d2h_n++;   break;
            case FIS_DMA_SETUP: st->host_rok_setup_ps += ps; st->host_rok_setup_n++; break;
            case FIS_SDB:       st->host_rok_sdb_ps += ps;   st->host_rok_sdb_n++;   break;
            default:            st->host_rok_other_ps += ps; st->host_rok_other_n++; break;
            }
        }
        break;
    case L_RCV_RDY:
        if (p == P_SOF && vd->ans.since[W_RRDY]) {
            st->host_sof_ps += took_ps(vd, W_RRDY);
            st->host_sof_n++;
        }
        break;
    case L_RCV_RESP:
        if (p == P_SYNC && vd->ans.since[W_ROK]) {
            st->host_sync_ps += took_ps(vd, W_ROK);
            st->host_sync_n++;
        }
        break;
    case L_IDLE:
        if (p == P_SYNC && vd->ans.since[W_IDLE]) {
            st->host_idle_ps += took_ps(vd, W_IDLE);
            st->host_idle_n++;
        }
        break;
    default:
        break;
    }
}
