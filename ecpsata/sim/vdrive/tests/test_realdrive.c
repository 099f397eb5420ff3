/* SPDX-License-Identifier: BSD-2-Clause */
/* Real drives at power-up and in the details: spin-up (spinup_ms, busy_fis), device signatures
 * (device, atapi), PIO data-in in several DRQ blocks (pio_blocks), 4096-byte logical sectors
 * (logical_sector), the write cache and FLUSH timing, DMA Setup auto-activate and the Serial ATA
 * SET FEATURES, IDENTIFY words, NOP and DATA SET MANAGEMENT / TRIM. All through the C test host. */
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "host.h"
#include "../src/internal.h"

static uint8_t sum512(const uint16_t *id)
{
    uint8_t s = 0;
    for (int i = 0; i < 256; i++)
        s = (uint8_t)(s + (id[i] & 0xFF) + (id[i] >> 8));
    return s;
}

/* ---- spin-up ------------------------------------------------------------------------------ */

#define DWORD_PS 13334u              /* a Gen2 dword: the drive decides once per dword */

static void test_spinup(void)
{
    host_t h;
    vdrive_t *vd = test_drive("spinup_ms=2,cominit_interval_us=0");
    host_init(&h, vd, 2);
    CHECK(host_link_up(&h, 3000000) == 0 && h.sig_n < 0,
          "spinup: the link comes up at once, no signature yet (%d)", h.sig_n);
    uint64_t t0 = h.linkup_ps;
    CHECK(t0 < 100000000ull, "spinup: linked at %.1f us", t0 / 1e6);
    uint32_t fis[5], f[16];
    host_reg_h2d(fis, 0xEC, 0, 0, 0);
    CHECK(host_send_fis(&h, fis, 5, 100000) == 1, "spinup: IDENTIFY while BSY is taken (R_OK)");
    int ok = 0, n = host_recv_fis(&h, f, 16, &ok, 2000000);
    CHECK(n == 5 && ok && (f[0] & 0xFF) == 0x34 && (f[0] >> 16 & 0xFF) == 0x50 &&
          (f[1] & 0xFFFFFF) == 1 && (f[3] & 0xFFFF) == 1,
          "spinup: the first FIS is the signature (n %d, 0x%08x)", n, f[0]);
    int64_t late = (int64_t)(h.xrdy_ps - t0) - 2000000000ll;
    CHECK(late >= 0 && late <= 3 * DWORD_PS, "spinup: signature %lld ps after 2 ms", (long long)late);
    vdrive_stats_t st = test_stats(vd);
    CHECK(st.spinup_ps >= 2000000000ull && st.spinup_ps < 2000000000ull + DWORD_PS,
          "spinup_ps %llu", (unsigned long long)st.spinup_ps);
    CHECK(st.cmd_while_busy == 1 && st.cmd_identify == 0 && st.busy_fis_sent == 0,
          "spinup: the command was ignored (%llu while busy, %llu IDENTIFY)",
          (unsigned long long)st.cmd_while_busy, (unsigned long long)st.cmd_identify);
    uint16_t id[256];
    uint8_t s = 0, e = 0;
    CHECK(host_identify(&h, id, &s, &e) == 0 && s == 0x50, "spinup: IDENTIFY after the signature");
    /* a COMRESET once spun up: the signature at once */
    CHECK(host_link_up(&h, 3000000) == 0 && h.sig_n == 5 && (h.sig[0] >> 16 & 0xFF) == 0x50,
          "spinup: COMRESET after spin-up gets the signature at once");
    vdrive_destroy(vd);

    /* a COMRESET during spin-up does not restart it; busy_fis: BSY FIS after each link-up */
    vd = test_drive("spinup_ms=3,busy_fis=1,cominit_interval_us=0");
    host_init(&h, vd, 2);
    CHECK(host_link_up(&h, 3000000) == 0 && h.sig_n == 5 && (h.sig[0] >> 16 & 0xFF) == 0x80 &&
          (h.sig[1] & 0xFFFFFF) == 1 && (h.sig[3] & 0xFFFF) == 1,
          "busy_fis: a Register D2H with BSY and the signature fields right after link-up");
    t0 = h.linkup_ps;
    for (int i = 0; i < 75000; i++)      /* 1 ms of SYNC */
        host_cycle(&h, PRIM_SYNC, 1);
    CHECK(host_link_up(&h, 3000000) == 0 && h.sig_n == 5 && (h.sig[0] >> 16 & 0x80),
          "busy_fis: COMRESET during spin-up, BSY FIS again");
    n = host_recv_fis(&h, f, 16, &ok, 2000000);
    late = (int64_t)(h.xrdy_ps - t0) - 3000000000ll;
    CHECK(n == 5 && (f[0] >> 16 & 0xFF) == 0x50 && late >= 0 && late <= 3 * DWORD_PS,
          "COMRESET during spin-up: signature 3 ms after the first link-up (%+lld ps)",
          (long long)late);
    st = test_stats(vd);
    CHECK(st.busy_fis_sent == 2 && st.link_ups == 2, "busy_fis_sent %llu",
          (unsigned long long)st.busy_fis_sent);
    vdrive_destroy(vd);
}

/* spinup_us adds microseconds to spinup_ms: the signature 1.25 ms after the first link-up */
static void test_spinup_us(void)
{
    host_t h;
    vdrive_t *vd = test_drive("spinup_ms=1,spinup_us=250,cominit_interval_us=0");
    host_init(&h, vd, 2);
    CHECK(host_link_up(&h, 3000000) == 0 && h.sig_n < 0, "spinup_us: linked, no signature yet");
    uint64_t t0 = h.linkup_ps;
    uint32_t f[16];
    int ok = 0, n = host_recv_fis(&h, f, 16, &ok, 2000000);
    int64_t late = (int64_t)(h.xrdy_ps - t0) - 1250000000ll;
    CHECK(n == 5 && ok && (f[0] >> 16 & 0xFF) == 0x50 && late >= 0 && late <= 3 * DWORD_PS,
          "spinup_us: signature 1.25 ms after link-up (%+lld ps)", (long long)late);
    vdrive_destroy(vd);
}

/* busy_ignores_cmd: a command FIS that comes while a write waits for its data is taken and
 * ignored; a COMRESET ends the write. Without the key the new command replaces the write. */
static void test_busy_ignores_cmd(void)
{
    for (int ignore = 0; ignore <= 1; ignore++) {
        host_t h;
        vdrive_t *vd = test_linked(ignore ? "busy_ignores_cmd=1" : "", &h, 2, 0);
        uint32_t fis[5], f[16];
        int ok = 0;
        host_reg_h2d(fis, 0x35, 0, 0, 8);                 /* WRITE DMA EXT, no data to follow */
        CHECK(host_send_fis(&h, fis, 5, 100000) == 1, "busy_ignores_cmd=%d: write taken", ignore);
        int n = host_recv_fis(&h, f, 16, &ok, 100000);
        CHECK(n == 1 && ok && (f[0] & 0xFF) == 0x39, "busy_ignores_cmd=%d: DMA Activate (n %d)",
              ignore, n);
        host_reg_h2d(fis, 0xEC, 0, 0, 0);                 /* IDENTIFY while the write is open */
        CHECK(host_send_fis(&h, fis, 5, 100000) == 1, "busy_ignores_cmd=%d: IDENTIFY taken (R_OK)",
              ignore);
        n = host_recv_fis(&h, f, 16, &ok, 200000);
        if (ignore)
            CHECK(n < 0, "busy_ignores_cmd=1: no answer to a command sent while BSY (n %d)", n);
        else
            CHECK(n == 5 && (f[0] & 0xFF) == 0x5F, "busy_ignores_cmd=0: IDENTIFY replaced the "
                  "write, its PIO Setup came (n %d, 0x%08x)", n, f[0]);
        vdrive_stats_t st = test_stats(vd);
        CHECK(st.cmd_while_busy == (uint64_t)ignore, "busy_ignores_cmd=%d: cmd_while_busy %llu",
              ignore, (unsigned long long)st.cmd_while_busy);
        if (ignore) {
            uint16_t id[256];
            uint8_t s = 0, e = 0;
            CHECK(host_link_up(&h, 3000000) == 0 && host_identify(&h, id, &s, &e) == 0 && s == 0x50,
                  "busy_ignores_cmd=1: after a COMRESET the drive takes commands again");
        }
        vdrive_destroy(vd);
    }
}

/* ---- device types --------------------------------------------------------------------------- */

static void test_device(void)
{
    static const struct { const char *cfg; uint32_t lba; } dev[] = {
        { "device=ata", 0x000001 }, { "device=atapi", 0xEB1401 }, { "atapi=1", 0xEB1401 },
        { "device=pm", 0x966901 }, { "device=semb", 0xC33C01 },
    };
    for (size_t i = 0; i < sizeof(dev) / sizeof(dev[0]); i++) {
        host_t h;
        vdrive_t *vd = test_linked(dev[i].cfg, &h, 2, 0);
        CHECK(h.sig_n == 5 && (h.sig[1] & 0xFFFFFF) == dev[i].lba && (h.sig[3] & 0xFF) == 1 &&
              (h.sig[0] >> 16 & 0xFF) == 0x50, "%s: signature LBA 0x%06x count %u", dev[i].cfg,
              h.sig[1] & 0xFFFFFF, h.sig[3] & 0xFF);
        uint16_t id[256];
        uint8_t s = 0, e = 0, buf[1024];
        int ata = i == 0;
        host_identify(&h, id, &s, &e);
        CHECK(ata ? s == 0x50 : (s == 0x51 && e == 0x04), "%s: IDENTIFY 0x%02x/0x%02x",
              dev[i].cfg, s, e);
        CHECK(host_read(&h, 0x25, 0, 2, buf, &s, &e) == 0 &&
              (ata ? s == 0x50 : (s == 0x51 && e == 0x04)), "%s: READ DMA EXT 0x%02x", dev[i].cfg,
              s);
        CHECK(host_write(&h, 0xCA, 0, 2, buf, &s, &e) == 0 &&
              (ata ? s == 0x50 : (s == 0x51 && e == 0x04)), "%s: WRITE DMA 0x%02x", dev[i].cfg, s);
        CHECK(host_nodata(&h, 0xA1, 0, &s, &e) == 0 && s == 0x51 && e == 0x04,
              "%s: IDENTIFY PACKET DEVICE aborts", dev[i].cfg);
        vdrive_destroy(vd);
    }
}

/* ---- PIO data-in in DRQ blocks -------------------------------------------------------------- */

static void test_pio_blocks(void)
{
    uint16_t ref[256];
    for (unsigned nb = 1; nb <= 128; nb *= 2) {
        char cfg[64];
        snprintf(cfg, sizeof(cfg), "pio_blocks=%u,serial=PIO%u,ncq=1", nb, nb);
        host_t h;
        vdrive_t *vd = test_linked(cfg, &h, 2, 0);
        uint16_t id[256];
        uint8_t s = 0, e = 0;
        memset(id, 0xEE, sizeof(id));
        CHECK(host_identify(&h, id, &s, &e) == 0 && s == 0x50 && h.pio_setups == (int)nb &&
              h.pio_mismatch == 0 && h.rx_bytes == 512 && sum512(id) == 0,
              "pio_blocks=%u: %d PIO Setups, %zu bytes, status 0x%02x", nb, h.pio_setups,
              h.rx_bytes, s);
        if (nb == 1)
            memcpy(ref, id, sizeof(ref));
        CHECK(!memcmp(id + 23, ref + 23, 2 * (255 - 23)) && id[10] == ('P' << 8 | 'I'),
              "pio_blocks=%u: same IDENTIFY data", nb);
        uint8_t log[512];
        CHECK(host_read_log(&h, 0x10, log, &s, &e) == 0 && s == 0x50 && h.pio_setups == (int)nb,
              "pio_blocks=%u: READ LOG EXT in %d blocks", nb, h.pio_setups);
        CHECK(test_stats(vd).pio_setups == 2 * nb, "pio_setups %llu",
              (unsigned long long)test_stats(vd).pio_setups);
        vdrive_destroy(vd);
    }
    /* the FISes themselves: 4 x (PIO Setup, Data FIS of 32 dwords); E_Status 0x80 until the last */
    host_t h;
    vdrive_t *vd = test_linked("pio_blocks=4", &h, 2, 0);
    uint32_t fis[5], f[256];
    host_reg_h2d(fis, 0xEC, 0, 0, 0);
    host_send_fis(&h, fis, 5, 100000);
    int good = 0;
    for (int b = 0; b < 4; b++) {
        int n = host_recv_fis(&h, f, 256, NULL, 100000);
        good += n == 5 && (f[0] & 0xFF) == 0x5F && (f[0] >> 13 & 3) == 3 &&
                (f[0] >> 16 & 0xFF) == 0x58 && (f[3] >> 24) == (b < 3 ? 0x80u : 0x50u) &&
                (f[4] & 0xFFFF) == 128;
        n = host_recv_fis(&h, f, 256, NULL, 100000);
        good += n == 33 && (f[0] & 0xFF) == 0x46;
    }
    CHECK(good == 8, "pio_blocks=4: the FISes as specified (%d of 8)", good);
    vdrive_destroy(vd);
}

/* ---- 4096-byte logical sectors ---------------------------------------------------------------- */

static void test_4kn(void)
{
    host_t h;
    vdrive_t *vd = test_linked("logical_sector=4096,capacity=8004,ncq=1", &h, 2, 0);
    uint16_t id[256];
    uint8_t s = 0, e = 0;
    CHECK(host_identify(&h, id, &s, &e) == 0 && id[106] == 0x5000 && id[117] == 2048 &&
          id[118] == 0, "4Kn: words 106 0x%04x, 117-118 %u/%u", id[106], id[117], id[118]);
    CHECK((id[60] | (uint32_t)id[61] << 16) == 1000 && id[100] == 1000 && id[101] == 0,
          "4Kn: capacity 1000 logical sectors (%u)", id[100]);
    h.sector_bytes = 4096;
    static uint8_t w[3 * 4096], r[3 * 4096], m[3 * 4096];
    test_fill(w, sizeof(w), 41);
    CHECK(host_write(&h, 0x35, 10, 3, w, &s, &e) == 0 && s == 0x50, "4Kn: WRITE DMA EXT 3 sectors");
    vdrive_read_sectors(vd, 80, 24, m);
    CHECK(!memcmp(m, w, sizeof(w)), "4Kn: logical 10..12 = image sectors 80..103");
    CHECK(host_read(&h, 0x25, 10, 3, r, &s, &e) == 0 && s == 0x50 && !memcmp(r, w, sizeof(w)) &&
          h.rx_bytes == sizeof(w), "4Kn: READ DMA EXT back (%zu bytes)", h.rx_bytes);
    CHECK(host_read(&h, 0xC8, 11, 1, r, &s, &e) == 0 && s == 0x50 && !memcmp(r, w + 4096, 4096),
          "4Kn: READ DMA (28-bit)");
    CHECK(host_read(&h, 0x25, 999, 2, r, &s, &e) == 0 && s == 0x51 && e == 0x10,
          "4Kn: IDNF past logical sector 999");
    /* queued */
    static uint8_t q[2 * 4096];
    host_ncq_req wr = { .write = 1, .lba = 500, .count = 2, .buf = w };
    host_ncq_req rd = { .write = 0, .lba = 500, .count = 2, .buf = q };
    host_ncq_stats ns;
    CHECK(host_ncq_run(&h, &wr, 1, 1, &ns) == 0 && ns.protocol_errors == 0, "4Kn: WRITE FPDMA");
    CHECK(host_ncq_run(&h, &rd, 1, 1, &ns) == 0 && ns.protocol_errors == 0 &&
          !memcmp(q, w, sizeof(q)), "4Kn: READ FPDMA back (DMA Setup count 8192)");
    vdrive_destroy(vd);

    /* error_lba is the host's LBA */
    vd = test_linked("logical_sector=4096,error_lba=12,error_kind=unc", &h, 2, 0);
    h.sector_bytes = 4096;
    uint32_t fis[5], f[8];
    host_reg_h2d(fis, 0x25, 0, 10, 4);
    host_send_fis(&h, fis, 5, 100000);
    int n = host_recv_fis(&h, f, 8, NULL, 100000);
    CHECK(n == 5 && (f[0] >> 16 & 0xFF) == 0x51 && (f[0] >> 24) == 0x40 &&
          (f[1] & 0xFFFFFF) == 12, "4Kn: UNC reported at logical LBA %u", f[1] & 0xFFFFFF);
    vdrive_destroy(vd);

    static const struct { const char *cfg; uint16_t w106, w209; } ws[] = {
        { "persona=slc", 0x4000, 0 }, { "persona=ideal", 0x4000, 0 },
        { "persona=hdd7200", 0x6003, 0x4000 }, { "persona=hdd7200,logical_sector=4096", 0x5000, 0 },
    };
    for (size_t i = 0; i < sizeof(ws) / sizeof(ws[0]); i++) {
        vd = test_drive(ws[i].cfg);
        CHECK(vd->identify[106] == ws[i].w106 && vd->identify[209] == ws[i].w209,
              "%s: word 106 0x%04x, 209 0x%04x", ws[i].cfg, vd->identify[106], vd->identify[209]);
        vdrive_destroy(vd);
    }
}

/* ---- write cache and FLUSH ------------------------------------------------------------------- */

static void test_flush(void)
{
    static uint8_t buf[8192 * 512];
    uint8_t s = 0, e = 0;
    host_t h;
    vdrive_t *vd = test_linked("persona=slc", &h, 2, 0);
    uint64_t t0 = vdrive_time_ps(vd);
    int ok = 1;
    for (int i = 0; i < 8; i++)          /* 32 MiB, twice the cache */
        ok &= host_write(&h, 0x35, (uint64_t)i * 8192, 8192, buf, &s, &e) == 0 && s == 0x50;
    uint64_t t1 = vdrive_time_ps(vd);
    ok &= host_nodata(&h, 0xEA, 0, &s, &e) == 0 && s == 0x50;
    uint64_t t2 = vdrive_time_ps(vd);
    vdrive_stats_t st = test_stats(vd);
    double bytes = 32.0 * 1048576, rate = bytes / ((double)(t2 - t0) * 1e-12) / 1e6;
    double flush_s = (double)(t2 - t1) * 1e-12, held = (double)st.cache_bytes_max;
    printf("  slc 32 MiB + FLUSH: %.1f MB/s; writes alone %.1f MB/s; FLUSH %.2f ms; cache held "
           "%.2f MiB\n", rate, bytes / ((double)(t1 - t0) * 1e-12) / 1e6, flush_s * 1e3,
           held / 1048576);
    CHECK(ok && fabs(rate - 170) < 1.7, "slc: writes + FLUSH run at write_mbps (%.2f MB/s)", rate);
    /* the line (~290 MB/s) outruns the media, which drains meanwhile: at the last write the
     * cache holds what the media has not yet written */
    double left = bytes - 170e6 * (double)(t1 - t0) * 1e-12;
    CHECK(held <= 16.0 * 1048576 && fabs(held - left) < 0.01 * left,
          "slc: the cache held %.0f bytes at the end of the writes (%.0f unwritten)", held, left);
    CHECK(fabs(flush_s - held / 170e6) < 0.01 * held / 170e6,
          "slc: the FLUSH took what the cache held / write_mbps (%.3f ms vs %.3f ms)",
          flush_s * 1e3, held / 170e6 * 1e3);
    CHECK(fabs((double)st.flush_ps * 1e-12 - flush_s) < 1e-6, "flush_ps %llu",
          (unsigned long long)st.flush_ps);
    vdrive_destroy(vd);

    /* cache off: every write's status waits for the media; a FLUSH has nothing left to do */
    vd = test_linked("persona=slc,write_cache=0", &h, 2, 0);
    t0 = vdrive_time_ps(vd);
    for (int i = 0; i < 2; i++)
        host_write(&h, 0x35, (uint64_t)i * 8192, 8192, buf, &s, &e);
    t1 = vdrive_time_ps(vd);
    host_nodata(&h, 0xE7, 0, &s, &e);
    st = test_stats(vd);
    rate = 8.0 * 1048576 / ((double)(t1 - t0) * 1e-12) / 1e6;
    CHECK(s == 0x50 && rate < 170 && rate > 140 && st.flush_ps < 6000000 &&
          st.cache_bytes_max == 0, "slc, cache off: writes at %.1f MB/s, FLUSH %.1f us", rate,
          st.flush_ps * 1e-6);
    vdrive_destroy(vd);
}

/* A drive slower than the line with only its one-FIS interface buffer HOLDs inside the Data FIS;
 * it must resume even when the hold starts within 64 dwords of the FIS's end (it once asked for
 * 64 dwords more than a FIS, which never fit). */
static void test_hold_near_the_end_of_a_fis(void)
{
    static uint8_t buf[64 * 512];
    uint8_t s = 0, e = 0;
    host_t h;
    int ok = 1;
    for (int mbps = 40; mbps <= 100; mbps += 5) {
        char cfg[96];
        snprintf(cfg, sizeof cfg, "persona=ideal,write_mbps=%d,write_cache_kb=0,write_cache=0",
                 mbps);
        vdrive_t *vd = test_linked(cfg, &h, 2, 0);
        for (int i = 0; i < 3 && ok; i++)
            ok &= host_write(&h, 0x35, (uint64_t)i * 64, 64, buf, &s, &e) == 0 && s == 0x50;
        vdrive_destroy(vd);
    }
    CHECK(ok, "writes of 64 sectors at 40..100 MB/s without a cache complete");
}

/* ---- Serial ATA features: auto-activate, DIPM, settings preservation -------------------------- */

static void ncq_write(host_t *h, uint64_t lba, host_ncq_stats *ns, int *ok)
{
    static uint8_t w[40 * 512];
    host_ncq_req r = { .write = 1, .lba = lba, .count = 40, .buf = w };
    *ok = host_ncq_run(h, &r, 1, 1, ns) == 0 && r.state == 2 && ns->protocol_errors == 0;
}

static void test_sata_features(void)
{
    host_t h;
    vdrive_t *vd = test_linked("persona=ideal,ncq=1", &h, 2, 0);
    uint16_t id[256];
    uint8_t s = 0, e = 0;
    host_identify(&h, id, &s, &e);
    CHECK(id[78] == 0x004C && id[79] == 0x0040, "power-on: word 78 0x%04x, 79 0x%04x", id[78],
          id[79]);
    host_ncq_stats ns;
    int ok;
    ncq_write(&h, 0, &ns, &ok);
    CHECK(ok && ns.auto_activate == 0 && ns.activates == 3,
          "auto-activate off: DMA Setup A=0, then 3 DMA Activates (%d auto, %d)",
          ns.auto_activate, ns.activates);
    CHECK(host_set_features(&h, 0x10, 0x02, &s, &e) == 0 && s == 0x50, "enable auto-activate");
    host_identify(&h, id, &s, &e);
    CHECK(id[79] == 0x0044, "word 79 0x%04x", id[79]);
    ncq_write(&h, 100, &ns, &ok);
    CHECK(ok && ns.auto_activate == 1 && ns.activates == 2,
          "auto-activate on: A=1 and 2 DMA Activates (%d auto, %d)", ns.auto_activate,
          ns.activates);
    CHECK(host_set_features(&h, 0x10, 0x03, &s, &e) == 0 && s == 0x50, "enable DIPM");
    host_identify(&h, id, &s, &e);
    CHECK(id[79] == 0x004C, "word 79 with DIPM 0x%04x", id[79]);
    static const uint8_t bad[] = { 0x00, 0x01, 0x04, 0x05, 0x07, 0xFF };
    for (size_t i = 0; i < sizeof(bad); i++)
        CHECK(host_set_features(&h, 0x10, bad[i], &s, &e) == 0 && s == 0x51 && e == 0x04,
              "SET FEATURES 10h count 0x%02x aborts", bad[i]);
    /* settings preservation on (power-on): kept through COMRESET */
    CHECK(host_link_up(&h, 3000000) == 0 && host_identify(&h, id, &s, &e) == 0 && id[79] == 0x4C,
          "COMRESET keeps the settings (0x%04x)", id[79]);
    CHECK(host_set_features(&h, 0x90, 0x03, &s, &e) == 0 && host_set_features(&h, 0x90, 0x06,
          &s, &e) == 0 && host_set_features(&h, 0x82, 0, &s, &e) == 0 && s == 0x50,
          "DIPM, settings preservation, write cache off");
    host_identify(&h, id, &s, &e);
    CHECK(id[79] == 0x0004 && !(id[85] & 0x20), "word 79 0x%04x, 85 0x%04x", id[79], id[85]);
    CHECK(host_link_up(&h, 3000000) == 0 && host_identify(&h, id, &s, &e) == 0 &&
          id[79] == 0x0000 && (id[85] & 0x20), "no preservation: COMRESET brings the power-on "
          "values back (79 0x%04x, 85 0x%04x)", id[79], id[85]);
    ncq_write(&h, 200, &ns, &ok);
    CHECK(ok && ns.auto_activate == 0, "auto-activate off again after COMRESET");
    vdrive_destroy(vd);

    vd = test_linked("persona=ideal", &h, 2, 0);
    CHECK(host_set_features(&h, 0x10, 0x02, &s, &e) == 0 && s == 0x51 && e == 0x04,
          "no NCQ: auto-activate cannot be enabled");
    vdrive_destroy(vd);
}

/* ---- IDENTIFY words, NOP -------------------------------------------------------------------- */

/* Word 76 bits 15 (READ LOG DMA EXT) and 10 (Phy Event Counters) come with GPL (48-bit drives),
 * word 82/85 bit 0 with SMART (on by default): README "Health: SMART, logs, SANITIZE". */
static void test_identify_words(void)
{
    static const struct { const char *cfg; int gen; uint16_t w76, w77, w78, w83; } c[] = {
        { "persona=ideal", 2, 0x8406, 0x0004, 0x0048, 0x7400 },
        { "persona=ideal,ncq=1,max_gen=3", 2, 0x850E, 0x0004, 0x004C, 0x7400 },
        { "persona=mlc28", 1, 0x0002, 0x0002, 0x0048, 0x5000 },
        { "persona=ideal", 1, 0x8406, 0x0002, 0x0048, 0x7400 },
    };
    for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        host_t h;
        vdrive_t *vd = test_linked(c[i].cfg, &h, c[i].gen, 0);
        uint16_t id[256];
        uint8_t s = 0, e = 0;
        host_identify(&h, id, &s, &e);
        CHECK(id[76] == c[i].w76 && id[77] == c[i].w77 && id[78] == c[i].w78 && id[79] == 0x40,
              "%s Gen%d: words 76-79 0x%04x 0x%04x 0x%04x 0x%04x", c[i].cfg, c[i].gen, id[76],
              id[77], id[78], id[79]);
        CHECK(id[82] == 0x4061 && id[83] == c[i].w83 && (id[84] & 0xC000) == 0x4000 &&
              (id[85] & 0x4061) == 0x4061 && id[86] == (c[i].w83 & 0x3400) &&
              (id[87] & 0xC000) == 0x4000 && id[169] == 0 && sum512(id) == 0,
              "%s: words 82-87 0x%04x 0x%04x 0x%04x 0x%04x 0x%04x 0x%04x", c[i].cfg, id[82],
              id[83], id[84], id[85], id[86], id[87]);
        /* NOP: ABRT, and nothing else happens */
        CHECK(host_nodata(&h, 0x00, 0, &s, &e) == 0 && s == 0x51 && e == 0x04, "NOP aborts");
        uint16_t id2[256];
        host_identify(&h, id2, &s, &e);
        CHECK(!memcmp(id, id2, sizeof(id)) && test_stats(vd).cmd_nop == 1, "NOP changes nothing");
        vdrive_destroy(vd);
    }
}

/* ---- DATA SET MANAGEMENT / TRIM ------------------------------------------------------------- */

/* A command FIS the drive must refuse before any data: the status of its Register D2H. */
static int nodata_status(host_t *h, uint8_t op, uint8_t feat, uint32_t count)
{
    uint32_t fis[5], f[8];
    host_reg_h2d(fis, op, feat, 0, count);
    if (host_send_fis(h, fis, 5, 100000) != 1)
        return -1;
    int n = host_recv_fis(h, f, 8, NULL, 100000);
    return n == 5 && (f[0] & 0xFF) == 0x34 ? (int)(f[0] >> 16 & 0xFF) : -1;
}

static void put_range(uint8_t *b, uint64_t lba, uint16_t len)
{
    uint64_t v = lba | (uint64_t)len << 48;
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(v >> (8 * i));
}

static void trim_case(const char *cfg, uint32_t ss)
{
    host_t h;
    vdrive_t *vd = test_linked(cfg, &h, 2, 0);
    h.sector_bytes = ss;
    uint16_t id[256];
    uint8_t s = 0, e = 0;
    host_identify(&h, id, &s, &e);
    CHECK((id[169] & 1) && id[105] == 8 && (id[69] & 0x4020) == 0x4020,
          "%s: TRIM claimed (169 0x%04x, 105 %u, 69 0x%04x)", cfg, id[169], id[105], id[69]);
    static uint8_t w[32 * 4096], r[32 * 4096], zero[4096];
    test_fill(w, 32 * ss, 9);
    CHECK(host_write(&h, 0x35, 100, 32, w, &s, &e) == 0 && s == 0x50, "%s: write", cfg);
    uint8_t ent[1024] = { 0 };
    put_range(ent, 104, 8);              /* 104..111 */
    put_range(ent + 16, 120, 4);         /* an unused entry between: length 0 */
    put_range(ent + 512, 131, 1);        /* second block */
    CHECK(host_trim(&h, ent, 2, &s, &e) == 0 && s == 0x50, "%s: TRIM 0x%02x/0x%02x", cfg, s, e);
    CHECK(host_read(&h, 0x25, 100, 32, r, &s, &e) == 0 && s == 0x50, "%s: read back", cfg);
    int good = 1;
    for (int i = 0; i < 32; i++) {
        int lba = 100 + i, z = (lba >= 104 && lba < 112) || (lba >= 120 && lba < 124) || lba == 131;
        good &= !memcmp(r + (size_t)i * ss, z ? zero : w + (size_t)i * ss, ss);
    }
    CHECK(good, "%s: trimmed sectors read as zeros, the others keep their data", cfg);
    vdrive_stats_t st = test_stats(vd);
    CHECK(st.cmd_dsm == 1 && st.bytes_trimmed == 13ull * ss, "%s: bytes_trimmed %llu", cfg,
          (unsigned long long)st.bytes_trimmed);
    /* a range past the end aborts and trims nothing */
    uint64_t cap = id[100] | (uint64_t)id[101] << 16;
    memset(ent, 0, sizeof(ent));
    put_range(ent, 100, 1);
    put_range(ent + 8, cap - 1, 2);
    CHECK(host_trim(&h, ent, 1, &s, &e) == 0 && s == 0x51 && e == 0x04, "%s: range past the end",
          cfg);
    CHECK(host_read(&h, 0x25, 100, 1, r, &s, &e) == 0 && !memcmp(r, w, ss), "%s: nothing trimmed",
          cfg);
    CHECK(host_trim(&h, ent, 9, &s, &e) == 0 && s == 0x51, "%s: 9 blocks > word 105", cfg);
    CHECK(nodata_status(&h, 0x06, 0x00, 1) == 0x51, "%s: DSM without the TRIM bit aborts", cfg);
    vdrive_destroy(vd);
}

static void test_trim(void)
{
    trim_case("persona=slc,capacity=65536", 512);
    trim_case("persona=slc,capacity=65536,logical_sector=4096", 4096);
    trim_case("persona=ideal,trim=1,capacity=65536", 512);
    /* a file image: the hole reads back as zeros */
    char path[] = "build/test_trim.img", cfg[128];
    unlink(path);
    snprintf(cfg, sizeof(cfg), "persona=slc,capacity=65536,image=%s", path);
    trim_case(cfg, 512);
    unlink(path);
    /* no TRIM: ideal, hdd7200 and the 28-bit mlc28 abort it and do not claim it */
    static const char *const no[] = { "persona=ideal", "persona=hdd7200", "persona=mlc28" };
    for (int i = 0; i < 3; i++) {
        host_t h;
        vdrive_t *vd = test_linked(no[i], &h, i == 2 ? 1 : 2, 0);
        CHECK(vd->identify[169] == 0 && vd->identify[105] == 0 &&
              nodata_status(&h, 0x06, 0x01, 1) == 0x51, "%s: no TRIM", no[i]);
        vdrive_destroy(vd);
    }
}

/* The keys of the real-drive behaviours and the protocol faults: ranges, messages, defaults. */
static void test_config_new_keys(void)
{
    static const struct { const char *cfg, *msg; } bad[] = {
        { "spinup_ms=60001", "vdrive: bad value '60001' for key 'spinup_ms' (0..60000 ms)" },
        { "spinup_ms=-1", "vdrive: bad value '-1' for key 'spinup_ms' (0..60000 ms)" },
        { "spinup_us=1000", "vdrive: bad value '1000' for key 'spinup_us' (0..999 us)" },
        { "busy_fis=2", "vdrive: bad value '2' for key 'busy_fis'" },
        { "busy_ignores_cmd=2", "vdrive: bad value '2' for key 'busy_ignores_cmd'" },
        { "device=scsi", "vdrive: bad value 'scsi' for key 'device' (ata|atapi|pm|semb)" },
        { "atapi=maybe", "vdrive: bad value 'maybe' for key 'atapi'" },
        { "pio_blocks=3", "vdrive: bad value '3' for key 'pio_blocks' (1, 2, 4, 8, 16, 32, 64 or 128)" },
        { "pio_blocks=0", "vdrive: bad value '0' for key 'pio_blocks' (1, 2, 4, 8, 16, 32, 64 or 128)" },
        { "pio_blocks=256", "vdrive: bad value '256' for key 'pio_blocks' (1, 2, 4, 8, 16, 32, 64 or 128)" },
        { "logical_sector=1024", "vdrive: bad value '1024' for key 'logical_sector' (512 or 4096)" },
        { "physical_sector=520", "vdrive: bad value '520' for key 'physical_sector' (512 or 4096)" },
        { "trim=x", "vdrive: bad value 'x' for key 'trim'" },
        { "escape_fis=x", "vdrive: bad value 'x' for key 'escape_fis'" },
        { "dmat_fis=-3", "vdrive: bad value '-3' for key 'dmat_fis'" },
        { "dmat_resume=5", "vdrive: bad value '5' for key 'dmat_resume'" },
        { "long_fis=1.5", "vdrive: bad value '1.5' for key 'long_fis'" },
        { "short_fis=", "vdrive: bad value '' for key 'short_fis'" },
        { "unknown_fis=a", "vdrive: bad value 'a' for key 'unknown_fis'" },
        { "stray_fis=4294967296", "vdrive: bad value '4294967296' for key 'stray_fis'" },
        { "extra_data=off", "vdrive: bad value 'off' for key 'extra_data'" },
        { "fault_repeat=1000001", "vdrive: bad value '1000001' for key 'fault_repeat' (0..1000000)" },
        { "fuzz=1.1", "vdrive: bad value '1.1' for key 'fuzz' (0..1)" },
        { "fuzz=-0.1", "vdrive: bad value '-0.1' for key 'fuzz' (0..1)" },
        { "logical_sector=4096,capacity=7", "vdrive: bad value '7' for key 'capacity' (less than "
                                            "one logical sector)" },
    };
    char err[256];
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = 0;
        CHECK(!vdrive_create_str(bad[i].cfg, err, sizeof(err)) && !strcmp(err, bad[i].msg),
              "%s: '%s'", bad[i].cfg, err);
    }
    vdrive_config_t c;
    vdrive_config_defaults(&c);
    CHECK(c.spinup_ms == 0 && !c.busy_fis && c.device == VDRIVE_DEV_ATA && c.pio_blocks == 1 &&
          c.logical_sector == 512 && c.physical_sector == 512 && !c.trim && !c.escape_fis &&
          !c.dmat_fis && !c.dmat_resume && !c.long_fis && !c.short_fis && !c.unknown_fis &&
          !c.stray_fis && !c.extra_data && !c.fault_repeat && c.fuzz == 0.0, "new keys off");
    CHECK(vdrive_config_parse(&c, "spinup_ms=60000,busy_fis=yes,device=semb,pio_blocks=128,"
                              "logical_sector=4096,physical_sector=4096,trim=1,escape_fis=3,"
                              "dmat_fis=4,dmat_resume=on,long_fis=5,short_fis=6,unknown_fis=7,"
                              "stray_fis=8,extra_data=9,fault_repeat=1000000,fuzz=0.25",
                              err, sizeof(err)) == 0 &&
          c.spinup_ms == 60000 && c.busy_fis && c.device == VDRIVE_DEV_SEMB &&
          c.pio_blocks == 128 && c.logical_sector == 4096 && c.physical_sector == 4096 && c.trim &&
          c.escape_fis == 3 && c.dmat_fis == 4 && c.dmat_resume && c.long_fis == 5 &&
          c.short_fis == 6 && c.unknown_fis == 7 && c.stray_fis == 8 && c.extra_data == 9 &&
          c.fault_repeat == 1000000 && c.fuzz == 0.25, "new keys parsed: %s", err);
    CHECK(vdrive_config_parse(&c, "atapi=1", err, sizeof(err)) == 0 &&
          c.device == VDRIVE_DEV_ATAPI && vdrive_config_parse(&c, "atapi=0", err, sizeof(err)) == 0
          && c.device == VDRIVE_DEV_ATA, "atapi=1 / 0 set the device type");
    vdrive_config_defaults(&c);
    CHECK(vdrive_config_parse(&c, "persona=slc", err, sizeof(err)) == 0 && c.trim &&
          c.physical_sector == 512 && vdrive_config_parse(&c, "persona=hdd7200", err,
          sizeof(err)) == 0 && !c.trim && c.physical_sector == 4096, "persona TRIM / sector size");
    vdrive_config_defaults(&c);
    c.pio_blocks = 6;
    CHECK(!vdrive_create(&c, err, sizeof(err)) && strstr(err, "'pio_blocks'"), "struct: %s", err);
    vdrive_config_defaults(&c);
    c.fuzz = 2;
    CHECK(!vdrive_create(&c, err, sizeof(err)) && strstr(err, "'fuzz'"), "struct: %s", err);
    /* every statistic in the JSON */
    vdrive_t *vd = vdrive_create_str("", err, sizeof(err));
    char js[8192];
    vdrive_stats_json(vd, js, sizeof(js));
    static const char *const names[] = {
        "cmd_while_busy", "busy_fis_sent", "spinup_ps", "pio_setups", "cmd_nop", "cmd_dsm",
        "bytes_trimmed", "flush_ps", "cache_bytes_max", "dmat_sent", "dmat_dwords_after",
        "injected_escapes", "injected_long_fis", "injected_short_fis", "injected_unknown_fis",
        "injected_stray_fis", "injected_extra_data", "fault_repeats", "fuzz_applied", "fuzz_long",
        "fuzz_short", "fuzz_unknown", "fuzz_stray", "fuzz_extra", "fuzz_field", "fuzz_dup",
        "fuzz_drop",
    };
    int found = 0;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        char key[64];
        snprintf(key, sizeof(key), "\"%s\": 0", names[i]);
        found += strstr(js, key) != NULL;
    }
    CHECK(found == (int)(sizeof(names) / sizeof(names[0])), "new stats in the JSON (%d)", found);
    CHECK(vdrive_fuzz_log(vd, js, sizeof(js)) == 0 && js[0] == 0, "empty fuzz log");
    vdrive_destroy(vd);
}

void test_realdrive(void)
{
    test_config_new_keys();
    test_spinup();
    test_spinup_us();
    test_busy_ignores_cmd();
    test_device();
    test_pio_blocks();
    test_4kn();
    test_flush();
    test_hold_near_the_end_of_a_fis();
    test_sata_features();
    test_identify_words();
    test_trim();
}
