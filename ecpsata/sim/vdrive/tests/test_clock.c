/* SPDX-License-Identifier: BSD-2-Clause */
/* The drive's own clock: the ppm / ssc / field keys, the clock offset the simulator module renders,
 * and the split step (the drive receiving on the host's clock, transmitting on its own). */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "host.h"
#include "../src/internal.h"

static int parse(const char *str, vdrive_config_t *c, char *err, size_t errlen)
{
    vdrive_config_defaults(c);
    return vdrive_config_parse(c, str, err, errlen);
}

static void test_clock_config(void)
{
    vdrive_config_t c;
    char err[256];
    CHECK(parse("ppm=-350", &c, err, sizeof(err)) == 0 && c.ppm == -350, "ppm=-350: %d", c.ppm);
    CHECK(parse("ppm=+350", &c, err, sizeof(err)) == 0 && c.ppm == 350, "ppm=+350: %d", c.ppm);
    CHECK(parse("ppm=5000,ssc=1", &c, err, sizeof(err)) == 0 && c.ppm == 5000 && c.ssc == 1,
          "ppm=5000,ssc=1");
    CHECK(parse("ppm=5001", &c, err, sizeof(err)) == -1 &&
          !strcmp(err, "vdrive: bad value '5001' for key 'ppm' (-5000..5000)"), "ppm=5001: %s", err);
    CHECK(parse("ppm=1.5", &c, err, sizeof(err)) == -1 && strstr(err, "'ppm'"), "ppm=1.5: %s", err);
    CHECK(parse("ppm=-", &c, err, sizeof(err)) == -1, "ppm=-");
    CHECK(parse("ssc=2", &c, err, sizeof(err)) == -1 && strstr(err, "'ssc'"), "ssc=2: %s", err);

    CHECK(parse("", &c, err, sizeof(err)) == 0 && c.ppm == 0 && c.ssc == 0, "defaults");
    CHECK(parse("field=1", &c, err, sizeof(err)) == 0 && c.echo_ns == 20 &&
          c.align_dwell_us == 30 && c.tx_polarity == 1 && c.auto_polarity == 0 && c.ppm == 350 &&
          c.ssc == 1 && c.cont == 1, "field=1: echo %d dwell %u txpol %d auto %d ppm %d ssc %d "
          "cont %d", c.echo_ns, c.align_dwell_us, c.tx_polarity, c.auto_polarity, c.ppm, c.ssc,
          c.cont);
    /* keys after the preset override it; keys before it are overridden */
    CHECK(parse("field=1,ppm=-100,max_gen=3", &c, err, sizeof(err)) == 0 && c.ppm == -100 &&
          c.ssc == 1 && c.max_gen == 3, "field=1,ppm=-100: ppm %d", c.ppm);
    CHECK(parse("ssc=0,field=1", &c, err, sizeof(err)) == 0 && c.ssc == 1, "ssc=0,field=1");
    CHECK(parse("field=0", &c, err, sizeof(err)) == 0 && c.ppm == 0 && c.echo_ns == -1,
          "field=0");
    CHECK(parse("field=2", &c, err, sizeof(err)) == -1 &&
          !strcmp(err, "vdrive: bad value '2' for key 'field' (0 or 1)"), "field=2: %s", err);
    CHECK(parse("persona=slc,field=1", &c, err, sizeof(err)) == 0 && c.ppm == 350 &&
          !strcmp(c.persona, "slc"), "persona=slc,field=1");
}

/* The offset follows the drive's own time (one transmitted word at a time). */
static void test_clock_offset(void)
{
    vdrive_t *vd = vdrive_create_str("ppm=350,cominit_interval_us=0", NULL, 0);
    double a = vdrive_clock_offset_ppm(vd);
    for (int i = 0; i < 10000; i++)
        vdrive_transmit(vd, 2, NULL);
    CHECK(a == 350.0 && vdrive_clock_offset_ppm(vd) == 350.0, "ppm=350: %f", a);
    vdrive_destroy(vd);

    /* SSC: down-spread 0..-5000 ppm (+ ppm), a triangle at 31.5 kHz, measured over 3 periods */
    vd = vdrive_create_str("ppm=100,ssc=1,cominit_interval_us=0", NULL, 0);
    double lo = 1e9, hi = -1e9, sum = 0;
    uint64_t n = 0, t_lo[3] = { 0 }, t_last = 0;
    int k = 0;
    double prev = vdrive_clock_offset_ppm(vd), prev_slope = -1;
    while (vdrive_time_ps(vd) < 3 * 31746032ull) {
        vdrive_transmit(vd, 2, NULL);
        double p = vdrive_clock_offset_ppm(vd);
        lo = p < lo ? p : lo;
        hi = p > hi ? p : hi;
        sum += p;
        n++;
        double slope = p - prev;
        if (prev_slope < 0 && slope > 0 && k < 3)   /* a minimum: the bottom of the spread */
            t_lo[k++] = t_last;
        if (slope != 0)
            prev_slope = slope;
        prev = p;
        t_last = vdrive_time_ps(vd);
    }
    double mean = sum / (double)n;
    CHECK(fabs(lo - (100 - 5000)) < 2 && fabs(hi - 100) < 2, "ssc range %f..%f", lo, hi);
    CHECK(fabs(mean - (100 - 2500)) < 10, "ssc mean %f", mean);
    double period_us = (double)(t_lo[2] - t_lo[1]) / 1e6;
    CHECK(k == 3 && period_us > 1000.0 / 33 && period_us < 1000.0 / 30,
          "ssc period %f us (%d minima)", period_us, k);
    vdrive_destroy(vd);
}

/* vdrive_step is vdrive_receive then vdrive_transmit: the same host words give the same drive
 * words through either, link-up and IDENTIFY included (echo on, so the host word is used too). */
static void test_split_step(void)
{
    const char *cfg = "echo_ns=20,cont=1,cominit_interval_us=0";
    vdrive_t *a = vdrive_create_str(cfg, NULL, 0);
    host_t h;
    host_init(&h, a, 2);
    size_t cap = 400000;
    uint32_t *rec = malloc(cap * sizeof(*rec));
    h.record = rec;
    h.record_cap = cap;
    uint16_t id[256];
    uint8_t status, error;
    int up = host_link_up(&h, 300000);
    int idr = up == 0 ? host_identify(&h, id, &status, &error) : -1;
    CHECK(up == 0 && idr == 0 && h.record_n < cap, "link %d identify %d (%zu words)", up, idr,
          h.record_n);
    vdrive_destroy(a);

    a = vdrive_create_str(cfg, NULL, 0);
    vdrive_t *b = vdrive_create_str(cfg, NULL, 0);
    size_t diff = 0;
    for (size_t i = 0; i < h.record_n; i++) {
        int la, lb;
        uint32_t wa = vdrive_step(a, rec[i], 2, &la);
        vdrive_receive(b, rec[i], 2);
        uint32_t wb = vdrive_transmit(b, 2, &lb);
        diff += wa != wb || la != lb;
    }
    vdrive_stats_t sa, sb;
    vdrive_get_stats(a, &sa);
    vdrive_get_stats(b, &sb);
    CHECK(diff == 0 && sa.cmd_identify == 1 && sb.cmd_identify == 1,
          "split step: %zu words differ, identify %llu/%llu", diff,
          (unsigned long long)sa.cmd_identify, (unsigned long long)sb.cmd_identify);
    vdrive_destroy(a);
    vdrive_destroy(b);
    free(rec);
}

void test_clock(void)
{
    test_clock_config();
    test_clock_offset();
    test_split_step();
}
