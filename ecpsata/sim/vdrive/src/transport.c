/* SPDX-License-Identifier: BSD-2-Clause */
/* Transport layer, device side: FIS dispatch, the reset signature and spin-up.
 *
 * Ref: SATA 3.x section 10 (transport layer), 10.5 (FIS types), 11.3 (signature after reset).
 * Host FISes: Register H2D (0x27) with C=1 starts a command, with C=0 carries Device Control
 * (SRST); Data (0x46) feeds a write (queued or not). Anything else is accepted and ignored.
 *
 * Spin-up (spinup_ms): the link comes up at once, as on a real drive, but the device stays BSY
 * until spinup_ms after its first link-up: command FISes are taken (R_OK) and ignored, and the
 * signature (status 0x50) goes out when the time has passed. COMRESET does not restart the
 * clock; once spun up, a COMRESET gets its signature at once. With busy_fis=1 every link-up
 * during spin-up first gets a Register D2H with BSY set and the signature fields.
 *
 * A completed command (or one a reset ended) lets the link's device-initiated power management
 * (pmreq, pm.c) ask again once the link is idle.
 *
 * The link reaches this file through vd->up (link_up, link_down, frame_received, frame_bad,
 * frame_sent, poll); this file calls the link directly and the command layer only through vd->up
 * (cmd_start, cmd_reset, cmd_poll, cmd_busy, cmd_sent, cmd_data, cmd_data_error).
 */
#include "internal.h"

enum { SIG_READY, SIG_BUSY };

void vd_tp_update_poll(vdrive_t *vd)
{
    int busy = vd->up->cmd_busy(vd);
    if (vd->tp_busy && !busy)
        vd_link_pm_allow(vd);            /* a command completed: pmreq may ask again */
    vd->tp_busy = busy;
    vd_link_set_poll(vd, vd->sig_pending || vd->spin == 1 || busy || vd->flt.stray_pending);
}

static void reset(vdrive_t *vd, int why)
{
    vd->up->cmd_reset(vd, why);
    vd->sig_retries = 0;
    vd_tp_update_poll(vd);
}

void vd_tp_reset(vdrive_t *vd)
{
    reset(vd, VD_RESET_NONE);
}

/* The link went down: after COMRESET or a dropped link the signature comes again. */
void vd_tp_link_down(vdrive_t *vd, int why)
{
    if (why == VD_RESET_COMRESET || why == VD_RESET_DROP)
        vd->sig_pending = vd->cfg.signature;
    vd->sig_comreset = why == VD_RESET_COMRESET && vd->cfg.signature;   /* phy event 000Ah */
    reset(vd, why);
}

/* The first link-up starts the spin-up clock; every link-up while it runs owes a BSY FIS. */
void vd_tp_link_up(vdrive_t *vd)
{
    if (vd->spin == 0) {
        vd->spin = 1;
        vd->spin_t0 = vd->now;
        vd->spin_end = vd->now + ((uint64_t)vd->cfg.spinup_ms * 1000 + vd->cfg.spinup_us) * VD_TICKS_PER_US;
    }
    vd->busy_due = vd->spin == 1 && vd->cfg.busy_fis && vd->sig_pending;
    vd_tp_update_poll(vd);
}

/* After power-on / COMRESET / SRST a device reports its signature in a Register D2H FIS: sector
 * count 01h, LBA low 01h, LBA mid / high by device type (ATA 00h/00h, ATAPI 14h/EBh, port
 * multiplier 69h/96h, enclosure bridge 3Ch/C3h), error 01h (no error). */
static void send_signature(vdrive_t *vd, int kind)
{
    static const uint8_t mid_high[4][2] = {
        { 0x00, 0x00 }, { 0x14, 0xEB }, { 0x69, 0x96 }, { 0x3C, 0xC3 }
    };
    const uint8_t *mh = mid_high[vd->cfg.device & 3];
    uint32_t status = kind == SIG_BUSY ? 0x80u : 0x50u;
    uint32_t fis[5] = {
        FIS_REG_D2H | status << 16 | 0x01u << 24,
        0x01u | (uint32_t)mh[0] << 8 | (uint32_t)mh[1] << 16,   /* LBA low, mid, high; device 0 */
        0, 0x00000001u, 0                                       /* count 1 */
    };
    vd->sig_tx_busy = kind == SIG_BUSY;
    vd_link_queue(vd, fis, 5, 0, VD_OWN_TP);
}

void vd_tp_poll(vdrive_t *vd)
{
    if (vd->spin == 1 && vd->now >= vd->spin_end) {
        vd->spin = 2;
        vd->st.spinup_ps = (vd->now - vd->spin_t0) * 1000 / VD_TICKS_PER_NS;
    }
    if (vd->spin != 2) {                     /* spinning up: at most the BSY FIS */
        if (vd->busy_due) {
            vd->busy_due = 0;
            vd->st.busy_fis_sent++;
            send_signature(vd, SIG_BUSY);
        }
    } else if (vd->sig_pending) {
        vd->sig_pending = 0;
        if (vd->sig_comreset) {
            vd->sig_comreset = 0;
            vd->st.sig_after_comreset++;
        }
        send_signature(vd, SIG_READY);
    } else if (vd_fault_stray_due(vd, vd->up->cmd_busy(vd))) {
        vd_fault_send_stray(vd);
    } else {
        vd->up->cmd_poll(vd);
    }
    vd_tp_update_poll(vd);
}

void vd_tp_tx_done(vdrive_t *vd, int ok, int owner)
{
    if (owner == VD_OWN_CMD || owner == VD_OWN_NCQ) {
        vd->up->cmd_sent(vd, ok, owner);
    } else if (owner == VD_OWN_TP) {
        /* a refused or escaped signature belongs to no command: send it again */
        if (ok == 1 || ++vd->sig_retries > vd_fault_retry_limit(vd))
            vd->sig_retries = 0;
        else if (vd->sig_tx_busy)
            vd->busy_due = vd->spin == 1;
        else
            vd->sig_pending = 1;
    }
    vd_tp_update_poll(vd);
}

/* dmat: the drive cut this frame short with DMAT (dmat_fis) */
int vd_tp_rx_fis(vdrive_t *vd, const uint32_t *dw, int n, int dmat)
{
    int ok = 1;
    switch (dw[0] & 0xFF) {
    case FIS_REG_H2D:
        if (n != 5) {
            ok = 0;
        } else if (dw[0] & 0x8000u) {
            if (vd->spin != 2 || (vd->cfg.busy_ignores_cmd && vd->cmd.active && !vd->cmd.ncq))
                vd->st.cmd_while_busy++;    /* BSY: the host should not have sent it */
            else
                vd->up->cmd_start(vd, dw);
        } else if ((dw[3] >> 24) & 0x04) {
            vd->up->cmd_reset(vd, VD_RESET_SRST);   /* SRST set: software reset */
        } else {
            vd->sig_pending = 1;            /* SRST released */
        }
        break;
    case FIS_DATA:
        ok = vd->up->cmd_data(vd, dw, n, dmat);   /* refused when no write waits for it */
        break;
    default:
        break;
    }
    vd_tp_update_poll(vd);
    return ok;
}

/* A host FIS failed (CRC, code violation, injected R_ERR). */
void vd_tp_rx_bad(vdrive_t *vd)
{
    vd->up->cmd_data_error(vd);
    vd_tp_update_poll(vd);
}
