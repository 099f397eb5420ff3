/* SPDX-License-Identifier: BSD-2-Clause */
/* The drive's health state, what SMART (smart.c) and the Device Statistics log (gplog.c) report:
 * power-on time, temperature, pending sectors, endurance used, read and write counts.
 *
 * Health clocks. Power-on hours and the thermal model run on health time = drive time x
 * health_time_scale (a simulation covers microseconds to seconds of drive time; a scale of
 * 3,600,000 makes one millisecond an hour). The work that heats the drive is measured in drive
 * time, so a given throughput gives the same temperature whatever the scale; the scale only says
 * how fast the temperature follows it.
 *
 * Thermal model (first order, deterministic). Drive time is cut into ticks of 100 us. In each tick
 * the payload bytes moved to and from the host give a rate r (10^6 B/s) and a target rise of
 * 0.1 C per 10^6 B/s above temperature_c (line rate at Gen2, about 300 MB/s, settles 30 C up);
 * the rise moves towards the target by 1 - exp(-dt / 300 s), dt the tick in health seconds. The
 * temperature reported is temperature_c + rise rounded to whole degrees; the lowest and highest
 * are taken over ticks; the short-term average is an exponential average over 4 health hours;
 * time above VD_TEMP_MAX_OP (70 C) counts in health seconds. Ticks are done lazily (whenever bytes
 * move or someone looks), a run of idle ticks in closed form, so the results do not depend on when
 * they are read.
 */
#include <math.h>

#include "internal.h"

#define TICK           (100 * VD_TICKS_PER_US)   /* one thermal tick of drive time */
#define TICK_S         1e-4                      /* ... in seconds */
#define TAU_S          300.0                     /* thermal time constant, health seconds */
#define AVG_TAU_S      14400.0                   /* short-term average: 4 health hours */
#define RISE_PER_MBPS  0.1                       /* steady-state rise, C per 10^6 B/s */
#define DRIVE_WRITES   1000                      /* rated endurance in full-capacity writes */
#define TICKS_PER_S    3e9                       /* drive ticks per second */

void vd_health_init(vdrive_t *vd)
{
    struct vd_health *h = &vd->health;
    memset(h, 0, sizeof(*h));
    h->avg = vd->cfg.temperature_c;
    h->t_min = h->t_max = (int)vd->cfg.temperature_c;
}

static double tick_health_s(const vdrive_config_t *c)
{
    return TICK_S * (double)c->health_time_scale;
}

static int whole(double t)
{
    return (int)floor(t + 0.5);
}

static void see(struct vd_health *h, double t)
{
    int w = whole(t);
    if (w < h->t_min)
        h->t_min = w;
    if (w > h->t_max)
        h->t_max = w;
}

/* One tick with `bytes` moved in it. */
static void tick_busy(struct vd_health *h, const vdrive_config_t *c, uint64_t bytes)
{
    double dt = tick_health_s(c);
    double a = exp(-dt / TAU_S), b = exp(-dt / AVG_TAU_S);
    double target = (double)bytes / TICK_S / 1e6 * RISE_PER_MBPS;
    h->rise = target + (h->rise - target) * a;
    double t = c->temperature_c + h->rise;
    h->avg = t + (h->avg - t) * b;
    see(h, t);
    if (t > VD_TEMP_MAX_OP)
        h->over_s += dt;
}

/* n idle ticks in closed form: the rise decays as r0 a^k (k = 1..n), the temperature is monotonic
 * (its extremes are at the ends), and the average follows
 * S_n - Ti = b^n (S_0 - Ti) + (1 - b) r0 a (a^n - b^n) / (a - b). */
static void ticks_idle(struct vd_health *h, const vdrive_config_t *c, uint64_t n)
{
    double dt = tick_health_s(c), ti = c->temperature_c;
    double a = exp(-dt / TAU_S), b = exp(-dt / AVG_TAU_S);
    double r0 = h->rise, an = pow(a, (double)n), bn = pow(b, (double)n);
    double lim = VD_TEMP_MAX_OP - ti;
    uint64_t over = 0;
    if (lim < 0) {
        over = n;
    } else if (r0 > lim && a > 0) {
        /* r0 a^k > lim for k < x */
        double x = log(lim / r0) / log(a);
        if (!isfinite(x) || x > (double)n + 1)
            over = n;
        else if (x > 1)
            over = (uint64_t)ceil(x) - 1;
        if (over > n)
            over = n;
    }
    h->over_s += (double)over * dt;
    double sum = a == b ? (double)n * an : a * (an - bn) / (a - b);
    h->avg = ti + bn * (h->avg - ti) + (1 - b) * r0 * sum;
    see(h, ti + r0 * a);
    h->rise = r0 * an;
    see(h, ti + h->rise);
}

/* Ticks up to now: the first one carries the bytes moved during it, the rest are idle. */
static void advance(struct vd_health *h, const vdrive_config_t *c, uint64_t now)
{
    uint64_t n = now / TICK - h->tick;
    if (!n)
        return;
    tick_busy(h, c, h->acc_bytes);
    h->acc_bytes = 0;
    if (n > 1)
        ticks_idle(h, c, n - 1);
    h->tick = now / TICK;
}

void vd_health_bytes(vdrive_t *vd, uint64_t bytes)
{
    advance(&vd->health, &vd->cfg, vd->now);
    vd->health.acc_bytes += bytes;
}

void vd_health_unc(vdrive_t *vd)
{
    /* error_lba is one logical sector: a read failing on it makes it pending */
    vd->health.pending = 1;
}

void vd_health_cmd_done(vdrive_t *vd, uint8_t op)
{
    switch (op) {
    case 0x25: case 0xC8: case 0x60:
        vd->st.read_cmds++;
        break;
    case 0x35: case 0xCA: case 0x61:
        vd->st.write_cmds++;
        break;
    default:
        break;
    }
}

/* The health fields of the statistics, as of now (on a copy: looking changes nothing). */
void vd_health_stats(const vdrive_t *vd, vdrive_stats_t *st)
{
    const vdrive_config_t *c = &vd->cfg;
    struct vd_health h = vd->health;
    advance(&h, c, vd->now);
    uint64_t ls = (uint64_t)c->logical_sector;
    st->sectors_read = vd->st.bytes_read / ls;
    st->sectors_written = vd->st.bytes_written / ls;
    double hours = (double)vd->now / TICKS_PER_S * (double)c->health_time_scale / 3600.0;
    st->poweron_hours = (uint64_t)floor(hours);
    /* temperature_c >= 0 and the rise never goes below 0: no negative degrees */
    st->temp_c = (uint64_t)whole(c->temperature_c + h.rise);
    st->temp_min_c = (uint64_t)h.t_min;
    st->temp_max_c = (uint64_t)h.t_max;
    st->temp_avg_c = (uint64_t)whole(h.avg);
    st->overtemp_minutes = (uint64_t)floor(h.over_s / 60.0);
    /* 1 % per DRIVE_WRITES / 100 full-capacity writes: bytes / (capacity x 512 x 10) */
    uint64_t used = vd->st.bytes_written / (vd->cap_img * 512 * (DRIVE_WRITES / 100));
    st->endurance_used = used > 255 ? 255 : used;
    st->pending_sectors = h.pending;
    st->reallocated_sectors = c->smart_fail ? VD_FAIL_REALLOCATED : 0;
}
