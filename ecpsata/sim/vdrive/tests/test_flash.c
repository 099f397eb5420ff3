/* SPDX-License-Identifier: BSD-2-Clause */
/* The flash persona (flash.c) through the C test host: the fresh write rate, the slowdown and
 * write amplification of random 4 KiB overwrites once the spare area is spent, sequential
 * overwrites, TRIM and SANITIZE giving the drive back fresh, queued writes, determinism.
 *
 * A 64 MiB drive at write_mbps=200 (below the Gen2 line, so the media rate shows). Filling it and
 * overwriting it at random through the link would take minutes of simulation: the tests bring the
 * flash model to its steady state by calling vd_flash_write() directly (the map and the counters,
 * no time), then measure through the link. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "health_cmds.h"
#include "internal.h"

#define CFG        "persona=flash,capacity=64MiB,write_mbps=200,sanitize_ms=1"
#define CAP        131072u            /* sectors */
#define PAGES      (CAP / 8)
#define MEASURE_N  256                /* 4 KiB writes per measurement */

static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

/* The whole drive written in order, then `rounds` x capacity of 4 KiB overwrites (random or in
 * order), straight into the flash model. */
static void precondition(vdrive_t *vd, int random, int rounds, uint64_t seed)
{
    for (uint32_t p = 0; p < PAGES; p += 64)
        vd_flash_write(vd, (uint64_t)p * 8, 512);
    for (uint32_t i = 0; i < (uint32_t)rounds * PAGES; i++) {
        uint64_t p = random ? lcg(&seed) % PAGES : i % PAGES;
        vd_flash_write(vd, p * 8, 8);
    }
}

struct run {
    double us_per_write;               /* drive time per 4 KiB write, FLUSH included */
    uint64_t host, nand, gc;           /* flash counters over the run */
    int ok;
};

static struct run measure_random(host_t *h, int n, uint64_t seed, int ncq)
{
    static uint8_t buf[4096];
    static host_ncq_req req[MEASURE_N];
    struct run r = { 0, 0, 0, 0, 1 };
    uint8_t s = 0, e = 0;
    vdrive_stats_t a = test_stats(h->vd);
    test_fill(buf, sizeof(buf), 7);
    uint64_t t0 = vdrive_time_ps(h->vd);
    if (ncq) {
        for (int i = 0; i < n; i++) {
            memset(&req[i], 0, sizeof(req[i]));
            req[i].write = 1;
            req[i].lba = (lcg(&seed) % PAGES) * 8;
            req[i].count = 8;
            req[i].buf = buf;
        }
        host_ncq_stats st;
        memset(&st, 0, sizeof(st));
        r.ok = host_ncq_run(h, req, n, 8, &st) == 0;
    } else {
        for (int i = 0; i < n && r.ok; i++)
            r.ok = host_write(h, 0x35, (lcg(&seed) % PAGES) * 8, 8, buf, &s, &e) == 0 &&
                   s == 0x50;
    }
    r.ok = r.ok && host_nodata(h, 0xEA, 0, &s, &e) == 0 && s == 0x50;
    vdrive_stats_t b = test_stats(h->vd);
    r.us_per_write = (double)(vdrive_time_ps(h->vd) - t0) / 1e6 / n;
    r.host = b.flash_host_pages_written - a.flash_host_pages_written;
    r.nand = b.flash_nand_pages_written - a.flash_nand_pages_written;
    r.gc = b.flash_gc_runs - a.flash_gc_runs;
    return r;
}

/* MB/s of `mib` MiB written in order from lba in 256 KiB commands, FLUSH included. */
static double seq_rate(host_t *h, uint64_t lba, uint32_t mib)
{
    static uint8_t buf[512 * 512];
    uint8_t s = 0, e = 0;
    test_fill(buf, sizeof(buf), 9);
    uint64_t t0 = vdrive_time_ps(h->vd);
    for (uint32_t i = 0; i < mib * 4; i++)
        if (host_write(h, 0x35, lba + (uint64_t)i * 512, 512, buf, &s, &e) || s != 0x50)
            return -1;
    if (host_nodata(h, 0xEA, 0, &s, &e) || s != 0x50)
        return -1;
    return (double)mib * 1048576.0 / ((double)(vdrive_time_ps(h->vd) - t0) * 1e-12) / 1e6;
}

static double wa(uint64_t nand, uint64_t host)
{
    return host ? (double)nand / (double)host : 0;
}

static struct run fresh_random;

static void test_fresh(void)
{
    host_t h;
    vdrive_t *vd = test_linked(CFG, &h, 2, 1);
    vdrive_stats_t st = test_stats(vd);
    CHECK(st.flash_free_blocks == 274 && st.flash_nand_pages_written == 0,
          "fresh 64 MiB + 7%%: 274 free blocks of 64 pages (%llu)",
          (unsigned long long)st.flash_free_blocks);
    double mbps = seq_rate(&h, 0, 8);
    CHECK(mbps > 190 && mbps < 201, "fresh sequential write: %.1f MB/s, write_mbps=200", mbps);
    st = test_stats(vd);
    CHECK(st.flash_gc_runs == 0 && st.flash_host_pages_written == 2048 &&
          st.flash_nand_pages_written == 2048, "fresh: no GC, 2048 pages, WA 1");
    vdrive_destroy(vd);

    vd = test_linked(CFG, &h, 2, 1);
    fresh_random = measure_random(&h, MEASURE_N, 11, 0);
    CHECK(fresh_random.ok && fresh_random.gc == 0 && fresh_random.us_per_write < 30,
          "fresh random 4 KiB writes: %.1f us each (4 KiB at 200 MB/s is 20.5 us)",
          fresh_random.us_per_write);
    printf("  flash fresh: sequential %.1f MB/s, random 4 KiB %.1f us per write\n", mbps,
           fresh_random.us_per_write);
    vdrive_destroy(vd);

    /* the persona as shipped: 500 MB/s media, so a Gen2 link is the limit when fresh */
    vd = test_linked("persona=flash,capacity=64MiB", &h, 2, 1);
    mbps = seq_rate(&h, 0, 4);
    CHECK(mbps > 270 && mbps < 300, "persona=flash fresh: line rate, %.1f MB/s", mbps);
    vdrive_destroy(vd);
}

/* Steady state: random overwrites of a full drive. Returns the measurement. */
static struct run steady_random(int ncq, uint64_t seed)
{
    host_t h;
    vdrive_t *vd = test_linked(CFG, &h, 2, 1);
    precondition(vd, 1, 2, seed);
    struct run r = measure_random(&h, MEASURE_N, seed + 1, ncq);
    vdrive_destroy(vd);
    return r;
}

static void test_steady(void)
{
    struct run r = steady_random(0, 3);
    double w = wa(r.nand, r.host);
    CHECK(r.ok && w > 2.0, "random 4 KiB overwrites of a full drive: WA %.2f", w);
    CHECK(r.us_per_write > 3 * fresh_random.us_per_write, "steady %.1f us per write, fresh %.1f",
          r.us_per_write, fresh_random.us_per_write);
    printf("  flash steady random 4 KiB: %.1f us per write (%.1f MB/s), WA %.2f, %llu GC runs "
           "in %d writes\n", r.us_per_write, 4096.0 / r.us_per_write, w, (unsigned long long)r.gc,
           MEASURE_N);
    struct run q = steady_random(1, 3);
    CHECK(q.ok && wa(q.nand, q.host) > 2.0 && q.us_per_write > 3 * fresh_random.us_per_write,
          "queued (QD8): %.1f us per write, WA %.2f", q.us_per_write, wa(q.nand, q.host));
    printf("  flash steady random 4 KiB queued (QD8): %.1f us per write, WA %.2f\n",
           q.us_per_write, wa(q.nand, q.host));
    struct run again = steady_random(0, 3);
    CHECK(again.ok && again.nand == r.nand && again.host == r.host && again.gc == r.gc &&
          again.us_per_write == r.us_per_write, "same seed, same figures (%.3f / %.3f us)",
          again.us_per_write, r.us_per_write);
}

static void test_sequential(void)
{
    host_t h;
    vdrive_t *vd = test_linked(CFG, &h, 2, 1);
    precondition(vd, 0, 2, 0);
    vdrive_stats_t a = test_stats(vd);
    double w = wa(a.flash_nand_pages_written, a.flash_host_pages_written);
    double mbps = seq_rate(&h, 0, 8);
    vdrive_stats_t b = test_stats(vd);
    double wm = wa(b.flash_nand_pages_written - a.flash_nand_pages_written,
                   b.flash_host_pages_written - a.flash_host_pages_written);
    CHECK(w < 1.01 && wm < 1.01, "sequential overwrites: WA %.3f, %.3f while measured", w, wm);
    CHECK(mbps > 170, "sequential overwrite of a full drive: %.1f MB/s", mbps);
    printf("  flash sequential overwrite: %.1f MB/s, WA %.3f\n", mbps, wm);
    vdrive_destroy(vd);
}

static void test_trim_sanitize(void)
{
    host_t h;
    uint8_t s = 0, e = 0, ent[512];
    vdrive_t *vd = test_linked(CFG, &h, 2, 1);
    precondition(vd, 1, 2, 5);
    CHECK(test_stats(vd).flash_free_blocks < 3, "full drive: %llu free blocks",
          (unsigned long long)test_stats(vd).flash_free_blocks);
    memset(ent, 0, sizeof(ent));
    /* 3 entries of whole 4 KiB pages (65528 sectors at most) cover 131072 sectors */
    for (int i = 0; i < 3; i++) {
        uint64_t lba = (uint64_t)i * 65528, len = CAP - lba < 65528 ? CAP - lba : 65528;
        uint64_t v = lba | len << 48;
        for (int k = 0; k < 8; k++)
            ent[i * 8 + k] = (uint8_t)(v >> (8 * k));
    }
    CHECK(host_trim(&h, ent, 1, &s, &e) == 0 && s == 0x50, "TRIM everything: 0x%02x", s);
    CHECK(test_stats(vd).flash_free_blocks >= 273, "after TRIM: %llu free blocks",
          (unsigned long long)test_stats(vd).flash_free_blocks);
    struct run r = measure_random(&h, MEASURE_N, 11, 0);
    CHECK(r.ok && r.gc == 0 && r.nand == r.host &&
          r.us_per_write < fresh_random.us_per_write * 1.05,
          "after TRIM: %.1f us per write, fresh %.1f, no GC", r.us_per_write,
          fresh_random.us_per_write);
    printf("  flash after TRIM: %.1f us per write\n", r.us_per_write);

    precondition(vd, 1, 2, 6);
    CHECK(sanitize(&h, 0x0012, KEY_BLOCK, &s, &e) == 0 && s == 0x50, "BLOCK ERASE: 0x%02x", s);
    idle_us(&h, 1200);
    CHECK(test_stats(vd).flash_free_blocks == 274, "after SANITIZE: %llu free blocks",
          (unsigned long long)test_stats(vd).flash_free_blocks);
    r = measure_random(&h, MEASURE_N, 11, 0);
    CHECK(r.ok && r.gc == 0 && r.nand == r.host &&
          r.us_per_write < fresh_random.us_per_write * 1.05,
          "after SANITIZE: %.1f us per write, fresh %.1f, no GC", r.us_per_write,
          fresh_random.us_per_write);
    printf("  flash after SANITIZE: %.1f us per write\n", r.us_per_write);
    vdrive_stats_t st = test_stats(vd);
    CHECK(st.sectors_written == 2u * MEASURE_N * 8 && st.write_cmds == 2u * MEASURE_N,
          "Device Statistics count host sectors only: %llu", (unsigned long long)st.sectors_written);
    vdrive_destroy(vd);
}

static void test_keys(void)
{
    char err[256];
    vdrive_t *vd = vdrive_create_str("persona=flash,capacity=8GiB", err, sizeof(err));
    CHECK(!vd && strstr(err, "key 'capacity'") && strstr(err, "flash model"),
          "8 GiB refused: %s", err);
    vdrive_destroy(vd);
    vd = vdrive_create_str("persona=flash,capacity=64MiB,spare_pct=101", err, sizeof(err));
    CHECK(!vd && strstr(err, "key 'spare_pct'"), "spare_pct=101 refused: %s", err);
    vdrive_destroy(vd);
    vd = test_drive("persona=flash,capacity=64MiB,spare_pct=28");
    CHECK(test_stats(vd).flash_free_blocks == 328, "spare_pct=28: %llu blocks",
          (unsigned long long)test_stats(vd).flash_free_blocks);
    char js[8192];
    vdrive_stats_json(vd, js, sizeof(js));
    CHECK(strstr(js, "\"flash_nand_pages_written\": 0") && strstr(js, "\"flash_free_blocks\": 328"),
          "flash statistics in the JSON");
    vdrive_destroy(vd);
    /* more spare, fewer copies */
    host_t h;
    vd = test_linked(CFG ",spare_pct=28", &h, 2, 1);
    precondition(vd, 1, 2, 3);
    struct run r = measure_random(&h, MEASURE_N, 4, 0);
    vdrive_destroy(vd);
    struct run r7 = steady_random(0, 3);
    CHECK(wa(r.nand, r.host) < wa(r7.nand, r7.host), "spare 28%%: WA %.2f < 7%%: %.2f",
          wa(r.nand, r.host), wa(r7.nand, r7.host));
    printf("  flash steady random 4 KiB, spare_pct=28: %.1f us per write, WA %.2f\n",
           r.us_per_write, wa(r.nand, r.host));
}

void test_flash(void)
{
    test_fresh();
    test_steady();
    test_sequential();
    test_trim_sanitize();
    test_keys();
}
