/* SPDX-License-Identifier: BSD-2-Clause */
/* Physical layer of the drive: line impairments, OOB detection and generation, speed negotiation,
 * comma alignment, 8b10b, and the per-word step.
 *
 * Ref: SATA 3.x section 8.4 (OOB), 8.4.1 (speed negotiation).
 *
 * OOB detection measures quiet runs on the host line at bit resolution (a run ends at the first
 * transition). Quiet runs shorter than 10 ns belong to a burst. A gap is classified:
 *   COMWAKE       35 ns <= T < 175 ns
 *   COMRESET     300 ns <= T < 525 ns   (the spec's optional 175..300 ns zone is rejected)
 *   anything else breaks the sequence.
 * Four consecutive gaps of one kind detect the signal; the drive answers once the host's sequence
 * has ended (525 ns of quiet, or about 333 ns of continuous activity).
 *
 * Speed negotiation: ALIGN at max_gen for 54.6 us, then one rate lower (Gen3 is only offered: a
 * Gen1/Gen2 host receives garbage while the drive is at another rate). After the host's ALIGN the
 * drive keeps sending ALIGN for align_dwell_us (PS_DWELL), then SYNC.
 *
 * The phy is the bottom layer: everything above it is reached through vd->up (phy_linked,
 * phy_down, phy_rx, phy_tx), never by name.
 */
#include "internal.h"

#define OOB_GAP_MIN        30u          /* 10 ns */
#define OOB_WAKE_MIN       105u         /* 35 ns */
#define OOB_WAKE_MAX       525u         /* 175 ns, exclusive */
#define OOB_RESET_MIN      900u         /* 300 ns */
#define OOB_RESET_MAX      1575u        /* 525 ns, exclusive */
#define OOB_END_ACTIVE     1000u        /* continuous activity that ends a sequence */
#define OOB_RUN_CAP        (1u << 30)
#define LOS_DROP_TICKS     (10u * 3000u) /* host line quiet for 10 us while linked: link down */

#define OOB_BURST          320u         /* 160 Gen1 UI = 106.7 ns */
#define OOB_GAP_INIT       960u         /* 480 Gen1 UI = 320 ns */
#define OOB_GAP_WAKE       320u
#define OOB_BURSTS         6
#define OOB_BURST_WORD     0x33333u     /* D24.3 carrier: 1100 1100 ... */
#define ALIGN_TICKS        163840u      /* 2048 Gen1 dwords = 54.6 us */

/* ---- line impairments ------------------------------------------------------------------------ */

static inline uint32_t slip(uint32_t w, uint32_t *prev, int bits)
{
    uint64_t buf = (uint64_t)w << 20 | *prev;
    *prev = w;
    return (uint32_t)(buf >> (20 - bits)) & VD_WORD_MASK;
}

static uint32_t line_h2d(vdrive_t *vd, uint32_t w)
{
    if (vd->cfg.tx_polarity)
        w ^= VD_WORD_MASK;
    if (vd->cfg.ber_h2d > 0)
        w = vd_ber_apply(vd, w, &vd->ber_h2d_skip, vd->cfg.ber_h2d,
                         &vd->st.injected_bit_errors_h2d);
    if (vd->cfg.tx_slip)
        w = slip(w, &vd->h2d_prev, vd->cfg.tx_slip);
    return w;
}

static uint32_t line_d2h(vdrive_t *vd, uint32_t w)
{
    if (vd->cfg.rx_polarity)
        w ^= VD_WORD_MASK;
    if (vd->cfg.ber_d2h > 0)
        w = vd_ber_apply(vd, w, &vd->ber_d2h_skip, vd->cfg.ber_d2h,
                         &vd->st.injected_bit_errors_d2h);
    if (vd->cfg.rx_slip)
        w = slip(w, &vd->d2h_prev, vd->cfg.rx_slip);
    return w;
}

/* What a receiver at the wrong rate sees: random transitions, never a comma (runs <= 2 bits). */
static uint32_t garbage(vdrive_t *vd)
{
    uint64_t x = vd->garbage;
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    vd->garbage = x;
    uint32_t w = 0;
    for (int i = 0; i < 10; i++)
        w |= (uint32_t)((x >> i) & 1 ? 1 : 2) << (2 * i);
    return w;
}

/* Near-end crosstalk: the host's own line activity (a raw TX word with a transition inside, OOB
 * bursts and data alike) reaches its loss-of-signal detector echo_ns later, at word resolution.
 * Returns 1 when the echo makes the host's receiver see a signal in this word. */
static int echo(vdrive_t *vd, uint32_t w, unsigned tpb)
{
    uint32_t t = (w ^ (w >> 1)) & (VD_WORD_MASK >> 1);
    uint64_t slot = vd->now / 20;
    int active = 0;
    for (unsigned i = 0; i < tpb; i++)
        vd->echo_ring[(slot + i) % VD_ECHO_SLOTS] = t != 0;
    for (unsigned i = 0; i < tpb; i++)
        active |= vd->echo_ring[(slot + i - vd->echo_delay) % VD_ECHO_SLOTS];
    return active;
}

/* ---- state changes ----------------------------------------------------------------------------- */

static void rx_unalign(vdrive_t *vd)
{
    vd->rx_aligned = 0;
    vd->rx_phase = 0;
}

static void enter(vdrive_t *vd, int ps)
{
    if (vd->ps == PS_LINKED && ps != PS_LINKED)
        vd->st.phyrdy_lost++;  /* phy event 0009h: PHYRDY to PHYRDYn */
    vd->ps = ps;
    vd->ps_t0 = vd->now;
    if (ps != PS_LINKED && ps != PS_DWELL)
        vd->tx_phase = 0;      /* ALIGN -> DWELL / LINKED happen mid-dword: finish the dword */
    if (ps < PS_LINKED)
        vd->st.gen = 0;
    if (ps == PS_OFF || ps == PS_AWAIT_WAKE)
        vd->linkdown_t0 = vd->now;
}

static void start_oob(vdrive_t *vd, int wake)
{
    vd->oob_kind = wake;
    if (wake) vd->st.comwake_sent++;
    else vd->st.cominit_sent++;
    enter(vd, wake ? PS_COMWAKE : PS_COMINIT);
}

void vd_phy_reset(vdrive_t *vd)
{
    vd->oob_run = OOB_RUN_CAP;
    vd->oob_active = 0;
    vd->oob_wake_n = vd->oob_reset_n = vd->oob_pending = 0;
    vd->dev_gen = vd->cfg.max_gen;
    rx_unalign(vd);
    vd->rx_inv = 0;
    vd->tx_rd = 0;
    enter(vd, PS_OFF);
}

void vd_phy_drop_link(vdrive_t *vd)
{
    vd->up->phy_down(vd, VD_RESET_DROP);
    rx_unalign(vd);
    start_oob(vd, 0);
}

/* A drop without COMINIT: the line goes quiet and stays so until `until` (sanitize_drop_ms). */
static void go_silent(vdrive_t *vd, uint64_t until)
{
    vd->up->phy_down(vd, VD_RESET_DROP);
    rx_unalign(vd);
    vd->oob_wake_n = vd->oob_reset_n = vd->oob_pending = 0;
    enter(vd, PS_OFF);
    vd->silent_until = until;
}

static void oob_comreset(vdrive_t *vd)
{
    if (vd->now < vd->silent_until) {
        vd->st.comreset_ignored++;
        return;
    }
    vd->st.comreset_detected++;
    vd_fault_comreset(vd);
    vd->up->phy_down(vd, VD_RESET_COMRESET);
    vd->dev_gen = vd->cfg.max_gen;
    rx_unalign(vd);
    enter(vd, PS_RESET_HOLD);
    vd->oob_pending = 1;
}

static void oob_comwake(vdrive_t *vd)
{
    vd->st.comwake_detected++;
    if (vd->ps == PS_AWAIT_WAKE || vd->ps == PS_COMINIT) {
        enter(vd, PS_WAKE_HOLD);
        vd->oob_pending = 1;
    }
}

static void oob_seq_end(vdrive_t *vd)
{
    vd->oob_pending = 0;
    if (vd->ps == PS_RESET_HOLD)
        start_oob(vd, 0);
    else if (vd->ps == PS_WAKE_HOLD)
        start_oob(vd, 1);
}

static void oob_gap(vdrive_t *vd, uint32_t gap)
{
    if (gap >= OOB_WAKE_MIN && gap < OOB_WAKE_MAX) {
        vd->oob_reset_n = 0;
        if (++vd->oob_wake_n == 4)
            oob_comwake(vd);
    } else if (gap >= OOB_RESET_MIN && gap < OOB_RESET_MAX) {
        vd->oob_wake_n = 0;
        if (++vd->oob_reset_n == 4)
            oob_comreset(vd);
    } else {
        vd->oob_wake_n = vd->oob_reset_n = 0;
    }
}

static void oob_idle(vdrive_t *vd)
{
    if (vd->oob_pending)
        oob_seq_end(vd);
    if (vd->ps == PS_LINKED && vd->oob_run >= LOS_DROP_TICKS) {
        vd->up->phy_down(vd, VD_RESET_LOS);
        rx_unalign(vd);
        enter(vd, PS_OFF);
    }
}

/* Host line activity at bit resolution; tpb = ticks per host bit. */
static inline void oob_rx(vdrive_t *vd, uint32_t w, unsigned tpb)
{
    uint32_t t = (w ^ ((w << 1) | vd->oob_last_bit)) & VD_WORD_MASK;
    vd->oob_last_bit = w >> 19;
    if (!t) {
        if (vd->oob_run < OOB_RUN_CAP)
            vd->oob_run += 20 * tpb;
        if (vd->oob_run >= OOB_RESET_MAX)
            oob_idle(vd);
        return;
    }
    unsigned f = (unsigned)__builtin_ctz(t);
    unsigned l = 31u - (unsigned)__builtin_clz(t);
    uint32_t gap = vd->oob_run + f * tpb;
    vd->oob_run = (20 - l) * tpb;
    if (gap >= OOB_GAP_MIN) {
        vd->oob_active = (20 - f) * tpb;
        oob_gap(vd, gap);
        return;
    }
    if (vd->oob_active < OOB_RUN_CAP)
        vd->oob_active += 20 * tpb;
    if (vd->oob_pending && vd->oob_active >= OOB_END_ACTIVE)
        oob_seq_end(vd);
}

/* ---- receiver: comma alignment and decoding ------------------------------------------------- */

/* The link layer runs from here; the link is up at the host's first non-ALIGN primitive. */
static void go_linked(vdrive_t *vd)
{
    enter(vd, PS_LINKED);
    vd->up->phy_linked(vd);
}

static void rx_dword(vdrive_t *vd, uint32_t dw, int kind)
{
    if (kind == 1 && dw == PRIM_ALIGN_N && vd->cfg.auto_polarity) {
        vd->rx_inv ^= 1;
        vd->st.polarity_flips++;
        rx_unalign(vd);
        return;
    }
    if (vd->ps == PS_LINKED) {
        vd->up->phy_rx(vd, dw, kind);
    } else if (vd->ps == PS_ALIGN && kind == 1 && dw == PRIM_ALIGN) {
        /* host locked and echoes ALIGN: send SYNC (after the dwell, if any) */
        if (vd->cfg.align_dwell_us)
            enter(vd, PS_DWELL);
        else
            go_linked(vd);
    }
}

static void rx_word(vdrive_t *vd, uint32_t w)
{
    if (vd->rx_inv)
        w ^= VD_WORD_MASK;
    uint64_t buf = (uint64_t)w << 20 | vd->rx_prev;
    vd->rx_prev = w;
    if (!vd->rx_aligned) {
        int o;
        for (o = 0; o < 20; o++) {
            unsigned s = (unsigned)(buf >> o) & 0x3FF;
            if (s == 0x17C || s == 0x283)
                break;
        }
        if (o == 20)
            return;
        vd->rx_aligned = 1;
        vd->rx_off = o;
        vd->rx_phase = 0;
        vd->rx_err_score = 0;
        vd->rx_rd = (((unsigned)(buf >> o) & 0x3FF) == 0x17C) ? 0 : 1;
        vd->st.realigns++;
    }
    uint32_t sw = (uint32_t)(buf >> vd->rx_off) & VD_WORD_MASK;
    int err = 0;
    unsigned s0 = vd_8b10b_dec(sw & 0x3FF, &vd->rx_rd, &err);
    unsigned s1 = vd_8b10b_dec(sw >> 10, &vd->rx_rd, &err);
    if (err) {
        if (err & VD_SYM_INVALID) vd->st.dec_errors++;
        if (err & VD_SYM_DISP) vd->st.disp_errors++;
        vd->rx_err_score += 16;
        if (vd->rx_err_score > 64) {
            rx_unalign(vd);
            return;
        }
    } else if (vd->rx_err_score) {
        vd->rx_err_score--;
    }
    if (s1 == VD_K28_5) {           /* comma on the second symbol: symbol boundary moved */
        rx_unalign(vd);
        return;
    }
    if (vd->rx_phase == 0 || s0 == VD_K28_5) {
        vd->rx_half = (s0 & 0xFF) | (s1 & 0xFF) << 8;
        vd->rx_half_kind = (int)((s0 >> 8) | (s1 >> 8) << 1) | (err ? 4 : 0);
        vd->rx_phase = 1;
        return;
    }
    vd->rx_phase = 0;
    uint32_t dw = vd->rx_half | (s0 & 0xFF) << 16 | (s1 & 0xFF) << 24;
    int kbits = vd->rx_half_kind | (int)((s0 >> 8) << 2 | (s1 >> 8) << 3);
    int kind;
    if (err || (vd->rx_half_kind & 4))
        kind = 2;
    else if ((kbits & 0xF) == 0)
        kind = 0;
    else if ((kbits & 0xF) == 1)
        kind = 1;
    else
        kind = 2;
    rx_dword(vd, dw, kind);
}

/* ---- transmitter -------------------------------------------------------------------------- */

static inline uint32_t tx_dword(vdrive_t *vd, uint32_t dw, int k)
{
    int rd = vd->tx_rd;
    unsigned c0 = vd_8b10b_enc((dw & 0xFF) | (k ? 0x100u : 0), &rd);
    unsigned c1 = vd_8b10b_enc((dw >> 8) & 0xFF, &rd);
    unsigned c2 = vd_8b10b_enc((dw >> 16) & 0xFF, &rd);
    unsigned c3 = vd_8b10b_enc(dw >> 24, &rd);
    vd->tx_rd = rd;
    vd->tx_next = c2 | c3 << 10;
    vd->tx_phase = 1;
    return c0 | c1 << 10;
}

/* States other than ALIGN/LINKED: OOB signalling or a quiet line. */
static uint32_t tx_slow(vdrive_t *vd, int *los)
{
    if (vd->ps == PS_COMINIT || vd->ps == PS_COMWAKE) {
        uint64_t gap = vd->oob_kind ? OOB_GAP_WAKE : OOB_GAP_INIT;
        uint64_t period = OOB_BURST + gap;
        uint64_t t = vd->now - vd->ps_t0;
        if (t < OOB_BURSTS * period) {
            if (t % period < OOB_BURST) {
                *los = 0;
                return OOB_BURST_WORD;
            }
            *los = 1;
            return 0;
        }
        if (vd->ps == PS_COMINIT) {
            enter(vd, PS_AWAIT_WAKE);
        } else {
            vd->dev_gen = vd->cfg.max_gen;
            rx_unalign(vd);
            enter(vd, PS_ALIGN);
            *los = 0;
            return garbage(vd);   /* first word of ALIGN phase; the stream starts next word */
        }
    }
    if ((vd->ps == PS_OFF || vd->ps == PS_AWAIT_WAKE) && vd->cfg.cominit_interval_us &&
        vd->now >= vd->silent_until &&
        vd->now - vd->linkdown_t0 >= vd->cfg.cominit_interval_us * VD_TICKS_PER_US) {
        vd->linkdown_t0 = vd->now;
        start_oob(vd, 0);
        *los = 0;
        return OOB_BURST_WORD;
    }
    *los = 1;
    return 0;
}

static inline void align_timer(vdrive_t *vd)
{
    if (vd->now - vd->ps_t0 >= ALIGN_TICKS && vd->dev_gen > 1) {
        vd->dev_gen--;
        vd->st.speed_downs++;
        rx_unalign(vd);
        enter(vd, PS_ALIGN);
    }
}

/* The drive's receiver: one host word, on the host's transmit word clock (the drive's CDR follows
 * it, and its link layer takes every dword, so the two clocks may differ). */
void vdrive_receive(vdrive_t *vd, uint32_t tx, int host_gen)
{
    if (vd->cfg.control[0] && ++vd->control_words >= VDRIVE_CONTROL_WORDS) {
        vd->control_words = 0;
        vd_control_poll(vd);
    }
    int g = host_gen >= 2 ? 2 : 1;
    unsigned tpb = (unsigned)(3 - g);
    uint32_t w = tx & VD_WORD_MASK;
    vd->host_word = w;
    if (vd->h2d_imp)
        w = line_h2d(vd, w);
    oob_rx(vd, w, tpb);
    if (vd->ps >= PS_ALIGN && g == vd->dev_gen)
        rx_word(vd, w);
}

/* The drive's transmitter: one word on the drive's own word clock. */
uint32_t vdrive_transmit(vdrive_t *vd, int host_gen, int *rx_los)
{
    int g = host_gen >= 2 ? 2 : 1;
    unsigned tpb = (unsigned)(3 - g);
    int los = 0;
    uint32_t out;
    if (vd->now >= vd->flt.silence_at)
        go_silent(vd, vd_fault_silence(vd));
    if (vd->ps >= PS_ALIGN) {
        if (g == vd->dev_gen) {
            if (vd->tx_phase) {
                vd->tx_phase = 0;
                out = vd->tx_next;
            } else {
                if (vd->ps == PS_DWELL &&
                    vd->now - vd->ps_t0 >= vd->cfg.align_dwell_us * VD_TICKS_PER_US)
                    go_linked(vd);
                if (vd->ps == PS_LINKED) {
                    int k;
                    uint32_t dw = vd->up->phy_tx(vd, &k);
                    out = tx_dword(vd, dw, k);
                } else {
                    if (vd->ps == PS_ALIGN)
                        align_timer(vd);
                    out = tx_dword(vd, PRIM_ALIGN, 1);
                }
            }
        } else {
            if (vd->ps == PS_ALIGN)
                align_timer(vd);
            out = garbage(vd);
        }
    } else {
        out = tx_slow(vd, &los);
    }
    if (vd->d2h_imp)
        out = line_d2h(vd, out);
    /* the echo is of the host's latest word: at most one word off when the clocks differ */
    if (vd->cfg.echo_ns >= 0 && echo(vd, vd->host_word, tpb))
        los = 0;
    vd->now += 20u * tpb;
    vd->st.words++;
    if (rx_los)
        *rx_los = los;
    return out;
}

uint32_t vdrive_step(vdrive_t *vd, uint32_t tx, int host_gen, int *rx_los)
{
    vdrive_receive(vd, tx, host_gen);
    return vdrive_transmit(vd, host_gen, rx_los);
}

void vdrive_step_n(vdrive_t *vd, const uint32_t *tx, uint32_t *rx, uint8_t *rx_los, size_t n,
                   int host_gen)
{
    for (size_t i = 0; i < n; i++) {
        int los;
        rx[i] = vdrive_step(vd, tx[i], host_gen, &los);
        if (rx_los)
            rx_los[i] = (uint8_t)los;
    }
}

uint64_t vdrive_time_ps(const vdrive_t *vd)
{
    return vd->now * 1000 / 3;
}

/* Down-spread SSC: a triangle from 0 to -VD_SSC_PPM and back, VD_SSC_PERIOD_TICKS long (31.5 kHz,
 * inside SATA's 30..33 kHz), in the drive's own time. */
double vdrive_clock_offset_ppm(const vdrive_t *vd)
{
    double ppm = vd->cfg.ppm;
    if (vd->cfg.ssc) {
        double x = (double)(vd->now % VD_SSC_PERIOD_TICKS) / VD_SSC_PERIOD_TICKS;  /* 0..1 */
        ppm -= VD_SSC_PPM * (x < 0.5 ? 2 * x : 2 - 2 * x);
    }
    return ppm;
}
