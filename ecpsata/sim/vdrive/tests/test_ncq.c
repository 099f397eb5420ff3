/* SPDX-License-Identifier: BSD-2-Clause */
/* NCQ tests: READ / WRITE FPDMA QUEUED through the word-level test host (DMA Setup, Data, DMA
 * Activate, Set Device Bits), the personas' order of service measured in drive time, NCQ errors
 * and the NCQ Command Error log, queue aborts. */
#include <stdlib.h>

#include "check.h"
#include "host.h"
#include "../src/internal.h"

static vdrive_t *mk(const char *cfg, host_t *h)
{
    char err[256];
    vdrive_t *vd = vdrive_create_str(cfg, err, sizeof(err));
    if (!vd) {
        printf("create('%s') failed: %s\n", cfg, err);
        exit(1);
    }
    host_init(h, vd, 2);
    if (host_link_up(h, 3000000) != 0) {
        printf("link up failed (%s)\n", cfg);
        exit(1);
    }
    return vd;
}

static uint64_t rnd(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

static void fill(uint8_t *b, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (uint8_t)(rnd(&seed) >> 24);
}

static vdrive_stats_t stats(vdrive_t *vd)
{
    vdrive_stats_t st;
    vdrive_get_stats(vd, &st);
    return st;
}

/* IDENTIFY advertises NCQ only with ncq=1, and then with the configured depth; GPL (word 84/87
 * bit 5) comes with the 48-bit commands, NCQ or not (the health logs, gplog.c). */
static void test_ncq_identify(void)
{
    const char *cfgs[] = { "persona=ideal", "persona=ideal,ncq=1", "persona=ideal,ncq=1,ncq_depth=8" };
    const int w75[] = { 0, 31, 7 };
    for (int i = 0; i < 3; i++) {
        host_t h;
        vdrive_t *vd = mk(cfgs[i], &h);
        uint16_t id[256];
        uint8_t s = 0, e = 0;
        CHECK(host_identify(&h, id, &s, &e) == 0 && s == 0x50, "IDENTIFY (%s)", cfgs[i]);
        int ncq = i > 0;
        CHECK((id[76] >> 8 & 1) == ncq && id[75] == w75[i] && (id[84] >> 5 & 1) &&
              (id[87] >> 5 & 1), "%s: word 75 %u, 76 0x%04x, 84 0x%04x", cfgs[i], id[75],
              id[76], id[84]);
        vdrive_destroy(vd);
    }
}

/* ncq=0: FPDMA is an unknown command (ABRT), READ LOG EXT too. */
static void test_ncq_off(void)
{
    host_t h;
    vdrive_t *vd = mk("persona=ideal", &h);
    uint8_t s = 0, e = 0, log[512];
    CHECK(host_ncq_issue(&h, 0, 0, 8, 0, &s, &e) == 0 && s == 0x51 && e == 0x04,
          "ncq=0: READ FPDMA aborted (0x%02x/0x%02x)", s, e);
    CHECK(host_ncq_issue(&h, 1, 0, 8, 1, &s, &e) == 0 && s == 0x51 && e == 0x04,
          "ncq=0: WRITE FPDMA aborted (0x%02x/0x%02x)", s, e);
    CHECK(host_read_log(&h, 0x10, log, &s, &e) == 0 && s == 0x51 && e == 0x04,
          "ncq=0: READ LOG EXT aborted");
    vdrive_stats_t st = stats(vd);
    CHECK(st.cmd_fpdma_read == 0 && st.cmd_other == 2, "ncq=0 counts as other commands");
    vdrive_destroy(vd);
}

/* One tag: write then read back, 40 sectors (several Data FISes). */
static void test_ncq_single(void)
{
    host_t h;
    vdrive_t *vd = mk("persona=ideal,ncq=1", &h);
    static uint8_t wbuf[40 * 512], rbuf[40 * 512], media[40 * 512];
    fill(wbuf, sizeof(wbuf), 7);
    host_ncq_req w = { .write = 1, .lba = 1000, .count = 40, .buf = wbuf };
    host_ncq_stats st;
    CHECK(host_ncq_run(&h, &w, 1, 1, &st) == 0 && w.state == 2, "single WRITE FPDMA completes");
    CHECK(st.setups == 1 && st.sdb == 1 && st.protocol_errors == 0 &&
          st.auto_activate + st.activates == 3, "write: 1 DMA Setup, 3 Data FISes (%d auto, %d "
          "activates), 1 SDB", st.auto_activate, st.activates);
    host_ncq_req r = { .write = 0, .lba = 1000, .count = 40, .buf = rbuf };
    CHECK(host_ncq_run(&h, &r, 1, 1, &st) == 0 && r.state == 2, "single READ FPDMA completes");
    CHECK(st.setups == 1 && st.sdb == 1 && st.protocol_errors == 0, "read: 1 setup, 1 SDB");
    vdrive_read_sectors(vd, 1000, 40, media);
    CHECK(!memcmp(rbuf, wbuf, sizeof(wbuf)) && !memcmp(media, wbuf, sizeof(wbuf)),
          "NCQ data round trip");
    /* count 0 in Features means 65536 sectors: a 32 MiB read */
    static uint8_t big[65536 * 512];
    host_ncq_req b = { .write = 0, .lba = 0, .count = 65536, .buf = big };
    CHECK(host_ncq_run(&h, &b, 1, 1, &st) == 0 && b.xfer == sizeof(big) && st.protocol_errors == 0,
          "65536-sector READ FPDMA (count 0)");
    CHECK(!memcmp(big + 1000 * 512, wbuf, sizeof(wbuf)), "65536-sector read data");
    vdrive_stats_t vs = stats(vd);
    CHECK(vs.cmd_fpdma_read == 2 && vs.cmd_fpdma_write == 1 && vs.ncq_sdb == 3,
          "stats: fpdma %llu/%llu sdb %llu", (unsigned long long)vs.cmd_fpdma_read,
          (unsigned long long)vs.cmd_fpdma_write, (unsigned long long)vs.ncq_sdb);
    vdrive_destroy(vd);
}

/* 32 tags at once, writes then reads of different sizes; every tag completes with its data. */
static void test_ncq_32(const char *cfg)
{
    host_t h;
    vdrive_t *vd = mk(cfg, &h);
    enum { N = 64 };
    static host_ncq_req r[N];
    static uint8_t wb[N][24 * 512], rb[N][24 * 512];
    for (int i = 0; i < N; i++) {
        uint32_t n = 1 + (uint32_t)(i * 7 % 24);
        fill(wb[i], n * 512, 100 + (uint64_t)i);
        r[i] = (host_ncq_req){ .write = 1, .lba = 5000 + (uint64_t)i * 37, .count = n,
                               .buf = wb[i] };
    }
    host_ncq_stats st;
    CHECK(host_ncq_run(&h, r, N, 32, &st) == 0, "%s: 64 writes at QD32", cfg);
    int ok = 0;
    for (int i = 0; i < N; i++)
        ok += r[i].state == 2;
    CHECK(ok == N && st.protocol_errors == 0 && st.setups == N, "%s: %d writes done, %d setups",
          cfg, ok, st.setups);
    for (int i = 0; i < N; i++)
        r[i] = (host_ncq_req){ .write = 0, .lba = r[i].lba, .count = r[i].count, .buf = rb[i] };
    CHECK(host_ncq_run(&h, r, N, 32, &st) == 0, "%s: 64 reads at QD32", cfg);
    int same = 0;
    for (int i = 0; i < N; i++)
        same += r[i].state == 2 && !memcmp(rb[i], wb[i], r[i].count * 512);
    CHECK(same == N && st.protocol_errors == 0, "%s: %d of 64 reads right", cfg, same);
    vdrive_stats_t vs = stats(vd);
    CHECK(vs.ncq_max_depth == 32, "%s: 32 tags outstanding at once (%llu)", cfg,
          (unsigned long long)vs.ncq_max_depth);
    printf("  %s: QD32 SDBs %llu, with several tags %llu\n", cfg, (unsigned long long)vs.ncq_sdb,
           (unsigned long long)vs.ncq_sdb_multi);
    CHECK(vs.ncq_sdb_multi > 0 && vs.ncq_sdb < 2 * N, "%s: SDBs report several tags", cfg);
    vdrive_destroy(vd);
}

/* 4 KiB random reads over the capacity at queue depth qd, IOPS in drive time. */
static double iops(const char *cfg, int qd, int n, int check_order)
{
    host_t h;
    vdrive_t *vd = mk(cfg, &h);
    int in_order = 0;
    double v = host_ncq_random_read(&h, qd, n, 8, 0x9E3779B97F4A7C15ull, &in_order);
    CHECK(v > 0, "%s QD%d: %d reads complete", cfg, qd, n);
    if (check_order)
        CHECK(in_order, "%s: completions in issue order", cfg);
    vdrive_destroy(vd);
    return v;
}

/* The host's answer times (answers.c) over 4 KiB reads at QD 8: every answer the host gave is
 * counted once, and a host that answers later by d dword times shows d dword times more in R_RDY
 * and in R_OK, and nothing more in SOF (it sends its own frames as before). */
static void answer_run(int delay, vdrive_stats_t *vs)
{
    host_t h;
    vdrive_t *vd = mk("persona=ideal,ncq=1", &h);
    h.answer_delay = delay;
    CHECK(host_ncq_random_read(&h, 8, 64, 8, 0x9E3779B97F4A7C15ull, NULL) > 0,
          "answer_delay=%d: 64 reads at QD8", delay);
    *vs = stats(vd);
    vdrive_destroy(vd);
}

static double mean_ns(uint64_t ps, uint64_t n)
{
    return n ? (double)ps / (double)n / 1000.0 : -1.0;
}

static void test_ncq_answer_times(void)
{
    vdrive_stats_t a, b;
    answer_run(0, &a);
    answer_run(6, &b);
    uint64_t roks = a.host_rok_data_n + a.host_rok_d2h_n + a.host_rok_setup_n + a.host_rok_sdb_n;
    CHECK(a.host_rok_data_n == 64 && a.host_rok_setup_n == 64 && a.host_rok_d2h_n == 64 + 1 &&
          a.host_rok_sdb_n == a.ncq_sdb && a.host_rok_other_n == 0,
          "one R_OK per frame of each kind: data %llu setup %llu d2h %llu sdb %llu/%llu",
          (unsigned long long)a.host_rok_data_n, (unsigned long long)a.host_rok_setup_n,
          (unsigned long long)a.host_rok_d2h_n, (unsigned long long)a.host_rok_sdb_n,
          (unsigned long long)a.ncq_sdb);
    CHECK(roks == a.fis_d2h && a.host_r_rdy_n == a.fis_d2h && a.host_sof_n == a.fis_h2d &&
          a.host_sync_n == a.fis_h2d, "R_RDY %llu and R_OK %llu per drive frame (%llu), SOF %llu "
          "and SYNC %llu per host frame (%llu)", (unsigned long long)a.host_r_rdy_n,
          (unsigned long long)roks, (unsigned long long)a.fis_d2h,
          (unsigned long long)a.host_sof_n, (unsigned long long)a.host_sync_n,
          (unsigned long long)a.fis_h2d);
    double dw = 40.0 / 3.0, d = 6 * dw;
    double rdy = mean_ns(b.host_r_rdy_ps, b.host_r_rdy_n) - mean_ns(a.host_r_rdy_ps, a.host_r_rdy_n);
    double data = mean_ns(b.host_rok_data_ps, b.host_rok_data_n) -
                  mean_ns(a.host_rok_data_ps, a.host_rok_data_n);
    double setup = mean_ns(b.host_rok_setup_ps, b.host_rok_setup_n) -
                   mean_ns(a.host_rok_setup_ps, a.host_rok_setup_n);
    double sof = mean_ns(b.host_sof_ps, b.host_sof_n) - mean_ns(a.host_sof_ps, a.host_sof_n);
    printf("  answer_delay=6: R_RDY +%.1f ns, R_OK after data +%.1f, after a DMA Setup +%.1f, "
           "SOF %+.1f\n", rdy, data, setup, sof);
    CHECK(mean_ns(a.host_rok_data_ps, a.host_rok_data_n) > 0 &&
          mean_ns(a.host_rok_data_ps, a.host_rok_data_n) < 6 * dw,
          "the zero-latency host's R_OK within a few dword times");
    CHECK(rdy > d - 2 * dw && rdy < d + 2 * dw, "R_RDY later by the delay: %.1f ns", rdy);
    CHECK(data > d - dw && data < d + dw && setup > d - dw && setup < d + dw,
          "R_OK later by the delay: %.1f / %.1f ns", data, setup);
    CHECK(sof > -dw && sof < dw, "SOF as before: %+.1f ns", sof);
}

static void test_ncq_order(void)
{
    /* hdd7200: shortest seek + rotation first */
    double h1 = iops("persona=hdd7200", 1, 40, 0);
    double h32 = iops("persona=hdd7200", 32, 160, 0);
    printf("  hdd7200 4 KiB random read: QD1 %.0f IOPS, QD32 %.0f IOPS (x%.2f)\n", h1, h32,
           h32 / h1);
    CHECK(h1 > 50 && h1 < 110, "hdd7200 QD1 %.0f IOPS (seek + half a turn)", h1);
    CHECK(h32 >= 2 * h1, "hdd7200 QD32 / QD1 = %.2f >= 2", h32 / h1);
    /* slc: 8 channels overlap their media time */
    double s1 = iops("persona=slc", 1, 200, 0);
    double s8 = iops("persona=slc", 8, 400, 0);
    printf("  slc 4 KiB random read: QD1 %.0f IOPS, QD8 %.0f IOPS (x%.2f)\n", s1, s8, s8 / s1);
    CHECK(s8 >= 3 * s1, "slc QD8 / QD1 = %.2f >= 3", s8 / s1);
    /* ideal: in order, at once; the line is the limit */
    double i32 = iops("persona=ideal,ncq=1", 32, 400, 1);
    double i1 = iops("persona=ideal,ncq=1", 1, 200, 1);
    printf("  ideal 4 KiB random read: QD1 %.0f IOPS, QD32 %.0f IOPS\n", i1, i32);
    CHECK(i32 > 40000 && i32 >= i1, "ideal QD32 %.0f IOPS", i32);
}

/* error_lba under FPDMA: SDB with ERR, the queue is dropped, FPDMA aborts until READ LOG EXT 10h,
 * which names the tag and the LBA. */
static void test_ncq_error(void)
{
    host_t h;
    vdrive_t *vd = mk("persona=slc,error_lba=20005,error_kind=unc", &h);
    enum { N = 16 };
    static host_ncq_req r[N];
    static uint8_t buf[N][4096];
    for (int i = 0; i < N; i++)
        r[i] = (host_ncq_req){ .lba = 10000 + (uint64_t)i * 1000, .count = 8, .buf = buf[i] };
    host_ncq_stats st;
    int rc = host_ncq_run(&h, r, N, N, &st);
    int bad = -1, failed_n = 0, done_n = 0;
    for (int i = 0; i < N; i++) {
        failed_n += r[i].state == 3;
        done_n += r[i].state == 2;
        if (r[i].lba == 20000)
            bad = i;
    }
    CHECK(rc == 1 && st.err_sdb == 1 && st.err_status == 0x41 && st.err_error == 0x40,
          "NCQ error: SDB with ERR, UNC (rc %d, status 0x%02x error 0x%02x)", rc, st.err_status,
          st.err_error);
    CHECK(r[bad].state == 3 && failed_n >= 2 && failed_n + done_n == N,
          "queue aborted: %d failed, %d done", failed_n, done_n);
    vdrive_stats_t vs = stats(vd);
    CHECK(vs.ncq_errors == 1 && vs.ncq_aborted == (uint64_t)failed_n,
          "stats: ncq_errors %llu, aborted %llu", (unsigned long long)vs.ncq_errors,
          (unsigned long long)vs.ncq_aborted);
    uint8_t s = 0, e = 0, log[512];
    CHECK(host_ncq_issue(&h, 0, 0, 8, 0, &s, &e) == 0 && s == 0x51 && e == 0x04,
          "FPDMA aborted until the log is read");
    CHECK(host_read_log(&h, 0x10, log, &s, &e) == 0 && s == 0x50, "READ LOG EXT 10h");
    uint8_t sum = 0;
    for (int i = 0; i < 512; i++)
        sum = (uint8_t)(sum + log[i]);
    uint64_t lba = 0;
    for (int i = 0; i < 3; i++)
        lba |= (uint64_t)log[4 + i] << (8 * i) | (uint64_t)log[8 + i] << (24 + 8 * i);
    CHECK(sum == 0 && log[0] == r[bad].tag && log[2] == 0x41 && log[3] == 0x40 && lba == 20005 &&
          log[12] == 8, "log: tag %d (want %d), status 0x%02x, error 0x%02x, LBA %llu, sum %u",
          log[0], r[bad].tag, log[2], log[3], (unsigned long long)lba, sum);
    host_ncq_req ok = { .lba = 0, .count = 8, .buf = buf[0] };
    CHECK(host_ncq_run(&h, &ok, 1, 1, &st) == 0 && ok.state == 2, "FPDMA works after the log");
    vdrive_destroy(vd);
}

/* A non-queued command while tags are outstanding aborts itself and the queue; so does a
 * duplicate tag. */
static void test_ncq_abort(void)
{
    host_t h;
    vdrive_t *vd = mk("persona=hdd7200", &h);
    uint8_t s = 0, e = 0, buf[4096], log[512];
    int accepted = 0;
    for (int t = 0; t < 3; t++)
        accepted += host_ncq_issue(&h, 0, 100000 + (uint64_t)t * 50000000, 8, t, &s, &e) == 0 &&
                    s == 0x40;
    CHECK(accepted == 3, "3 tags accepted (status 0x40, BSY clear)");
    CHECK(host_read(&h, 0x25, 0, 8, buf, &s, &e) == 0 && s == 0x51 && e == 0x04,
          "READ DMA EXT with tags outstanding: ABRT (0x%02x/0x%02x)", s, e);
    vdrive_stats_t vs = stats(vd);
    CHECK(vs.ncq_aborted == 3, "3 tags aborted (%llu)", (unsigned long long)vs.ncq_aborted);
    CHECK(host_read_log(&h, 0x10, log, &s, &e) == 0 && s == 0x50 && (log[0] & 0x80),
          "log: NQ set");
    CHECK(host_read(&h, 0x25, 0, 8, buf, &s, &e) == 0 && s == 0x50, "queue empty: READ DMA EXT");
    /* duplicate tag */
    CHECK(host_ncq_issue(&h, 0, 0, 8, 5, &s, &e) == 0 && s == 0x40, "tag 5 accepted");
    CHECK(host_ncq_issue(&h, 0, 8, 8, 5, &s, &e) == 0 && s == 0x51 && e == 0x04,
          "duplicate tag 5: ABRT");
    CHECK(host_ncq_issue(&h, 0, 8, 8, 31, &s, &e) == 0 && s == 0x40, "queue usable again");
    vs = stats(vd);
    CHECK(vs.ncq_aborted == 4 && vs.ncq_errors == 2, "aborted %llu errors %llu",
          (unsigned long long)vs.ncq_aborted, (unsigned long long)vs.ncq_errors);
    vdrive_destroy(vd);
    /* a tag beyond the advertised depth */
    vd = mk("persona=ideal,ncq=1,ncq_depth=4", &h);
    CHECK(host_ncq_issue(&h, 0, 0, 8, 4, &s, &e) == 0 && s == 0x51 && e == 0x04,
          "tag 4 with depth 4: ABRT");
    vdrive_destroy(vd);
}

void test_ncq(void)
{
    test_ncq_identify();
    test_ncq_off();
    test_ncq_single();
    test_ncq_32("persona=slc");
    test_ncq_32("persona=ideal,ncq=1,cmd_us=20");
    test_ncq_error();
    test_ncq_abort();
    test_ncq_order();
    test_ncq_answer_times();
}
