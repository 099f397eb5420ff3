/* Transport layer, device side: FIS dispatch and the reset signature.
 *
 * Ref: SATA 3.x section 10 (transport layer), 10.5 (FIS types).
 * Host FISes: Register H2D (0x27) with C=1 starts a command, with C=0 carries Device Control
 * (SRST); Data (0x46) feeds a write (queued or not). Anything else is accepted and ignored.
 */
#include "internal.h"

static void update_poll(vdrive_t *vd)
{
    vd->want_poll = vd->sig_pending || vd->cmd.active || vd_ncq_busy(vd);
}

void vd_tp_reset(vdrive_t *vd)
{
    vd_cmd_abort(vd);
    update_poll(vd);
}

/* After power-on / COMRESET / SRST a device reports the ATA signature in a Register D2H FIS. */
static void send_signature(vdrive_t *vd)
{
    uint32_t fis[5] = {
        FIS_REG_D2H | 0x50u << 16 | 0x01u << 24,   /* status DRDY|DSC, error 01 = no error */
        0x00000001u,                                /* LBA low 1, mid 0, high 0, device 0 */
        0, 0x00000001u, 0                           /* count 1 */
    };
    vd_link_queue(vd, fis, 5, 0);
    vd->txf.owner = 0;
}

void vd_tp_poll(vdrive_t *vd)
{
    if (vd->sig_pending) {
        vd->sig_pending = 0;
        send_signature(vd);
    } else if (vd_ncq_busy(vd)) {
        vd_ncq_poll(vd);
    } else if (vd->cmd.active) {
        vd_cmd_poll(vd);
    }
    update_poll(vd);
}

void vd_tp_tx_done(vdrive_t *vd, int ok)
{
    if (vd->txf.owner == 1)
        vd_cmd_tx_done(vd, ok);
    else if (vd->txf.owner == 2)
        vd_ncq_tx_done(vd, ok);
    update_poll(vd);
}

int vd_tp_rx_fis(vdrive_t *vd, const uint32_t *dw, int n)
{
    int ok = 1;
    switch (dw[0] & 0xFF) {
    case FIS_REG_H2D:
        if (n != 5) {
            ok = 0;
        } else if (dw[0] & 0x8000u) {
            vd_cmd_start(vd, dw);
        } else if ((dw[3] >> 24) & 0x04) {
            vd_cmd_abort(vd);               /* SRST set: software reset */
        } else {
            vd->sig_pending = 1;            /* SRST released */
        }
        break;
    case FIS_DATA:
        if (vd->cmd.active && vd->cmd.is_write)
            vd_cmd_data_fis(vd, dw, n);
        else
            ok = 0;
        break;
    default:
        break;
    }
    update_poll(vd);
    return ok;
}

/* A host FIS failed (CRC, code violation, injected R_ERR). */
void vd_tp_rx_bad(vdrive_t *vd)
{
    if (vd->cmd.active && vd->cmd.is_write)
        vd_cmd_data_error(vd);
    update_poll(vd);
}
