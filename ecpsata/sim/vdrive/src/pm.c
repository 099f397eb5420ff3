/* SPDX-License-Identifier: BSD-2-Clause */
/* Link layer, device-initiated interface power management requests (pmreq; the fuzzer's pmreq
 * kind asks once).
 *
 * Ref: SATA 3.x section 9 (link layer, power management states). A device that wants the partial
 * or slumber state sends PMREQ_P (L_TPMPartial) or PMREQ_S (L_TPMSlumber) repeatedly until the
 * host answers:
 *   PMACK   the host accepts (4 to 16 of them); the device would enter the state. The model has no
 *           partial or slumber state: it counts the answer and goes back to SYNC
 *   PMNAK   the host refuses (it sends PMNAK until it sees SYNC): back to idle, sending SYNC
 *   X_RDY   the host has a frame to send: the device yields and receives it (L_RcvWaitFifo)
 * Only the first dword of an answer matters, so a host that repeats it, compresses it with CONT
 * or puts ALIGNs or other primitives around it is understood.
 *
 * The drive asks once it has been idle for pmreq_idle_us: link up, the signature sent, no command
 * outstanding (the transport has nothing to poll for), nothing queued, the link idle both ways
 * (the host sends SYNC). Unanswered after pmreq_wait_us, it gives up. After a refusal or no answer
 * (or an acceptance: the model stays active) it asks again only after the next command completed
 * (vd_link_pm_allow from the transport) or a new link-up. A PMREQ from the host meanwhile ends the
 * drive's request; the drive answers it with PMNAK as always. The drive asks whatever the host set
 * with SET FEATURES 10h / 90h (DIPM, IDENTIFY word 79 bit 3): a host must answer either way.
 */
#include "internal.h"

static const uint32_t pmreq_prim[3] = { 0, PRIM_PMREQ_P, PRIM_PMREQ_S };

void vd_pm_init(vdrive_t *vd)
{
    vd->pm.on = vd->cfg.pmreq != VDRIVE_PMREQ_OFF || vd->cfg.fuzz > 0;
    vd_pm_reset(vd);
}

/* A new link: nothing asked yet. */
void vd_pm_reset(vdrive_t *vd)
{
    vd->pm.armed = 1;
    vd->pm.since = vd->now;
}

void vd_link_pm_allow(vdrive_t *vd)
{
    vd->pm.armed = 1;
}

/* An idle dword of the link (nothing to send, the transport asked for no poll). */
uint32_t vd_pm_idle(vdrive_t *vd)
{
    int key = vd->cfg.pmreq != VDRIVE_PMREQ_OFF && vd->pm.armed;
    int mode = key ? vd->cfg.pmreq : vd->flt.pm_due;
    if (!mode || vd->txf.pending || vd->want_poll || vd->linkup_pending ||
        vd->rx_prim != P_SYNC) {
        vd->pm.since = vd->now;
        return 0;
    }
    if (vd->now - vd->pm.since < (uint64_t)vd->cfg.pmreq_idle_us * VD_TICKS_PER_US)
        return 0;
    vd->flt.pm_due = 0;
    vd->pm.prim = pmreq_prim[mode];
    vd->pm.t0 = vd->now;
    vd->st.pmreq_sent++;
    vd->ls = L_PMREQ;
    return vd->pm.prim;
}

/* The request is over: back to idle (SYNC), and no new one before the next command. */
static void end(vdrive_t *vd, int next_state)
{
    vd->pm.armed = 0;
    vd->pm.since = vd->now;
    vd->ls = next_state;
}

uint32_t vd_pm_tx(vdrive_t *vd)
{
    if (vd->now - vd->pm.t0 < (uint64_t)vd->cfg.pmreq_wait_us * VD_TICKS_PER_US)
        return vd->pm.prim;
    vd->st.pmreq_unanswered++;
    end(vd, L_IDLE);
    return PRIM_SYNC;
}

void vd_pm_rx(vdrive_t *vd, int p)
{
    switch (p) {
    case P_PMNAK:
        vd->st.pmnak_received++;
        end(vd, L_IDLE);                 /* SYNC until the host's PMNAK stops (L_NoPmnak) */
        break;
    case P_PMACK:
        vd->st.pmack_received++;
        end(vd, L_IDLE);
        break;
    case P_X_RDY:
        vd->st.pmreq_xrdy++;             /* the device yields to the host's frame */
        vd->pm.since = vd->now;
        vd->ls = L_RCV_RDY;
        break;
    case P_PMREQ:
        vd->st.pmreq_unanswered++;       /* both ask: ours ends, theirs gets PMNAK */
        end(vd, L_PMNAK);
        vd->pm_nak_left = 4;
        break;
    default:
        break;                           /* SYNC, ALIGN, anything else: keep asking */
    }
}
