/* SPDX-License-Identifier: BSD-2-Clause */
/* The health commands and logs through the C test host: SMART (READ DATA, THRESHOLDS, RETURN
 * STATUS, ENABLE / DISABLE), the General Purpose Log Directory, Device Statistics, the SATA Phy
 * Event Counters against the drive's own statistics, and the thermal model (SANITIZE:
 * test_sanitize.c). */
#include "check.h"
#include "health_cmds.h"

/* ---- SMART ---------------------------------------------------------------------------------- */

static void test_smart_data(void)
{
    host_t h;
    vdrive_t *vd = test_linked("persona=ideal,capacity=4096", &h, 2, 1);
    uint16_t id[256];
    uint8_t s = 0, e = 0, page[512], thr[512];
    static uint8_t buf[16 * 512];
    CHECK(host_identify(&h, id, &s, &e) == 0 && (id[82] & 1) && (id[85] & 1) &&
          (id[84] & 0x23) == 0x20 && (id[87] & 0x23) == 0x20 && (id[76] & 0x8400) == 0x8400 &&
          id[59] == 0, "IDENTIFY: SMART, GPL, phy events, no sanitize (82 0x%04x 84 0x%04x 76 "
          "0x%04x 59 0x%04x)", id[82], id[84], id[76], id[59]);
    /* known traffic: 3 writes of 8 sectors, reads of 16 + 16 + 4, one read beyond the end */
    test_fill(buf, sizeof(buf), 5);
    for (int i = 0; i < 3; i++)
        host_write(&h, 0x35, 100 + 8 * i, 8, buf, &s, &e);
    host_read(&h, 0x25, 0, 16, buf, &s, &e);
    host_read(&h, 0x25, 16, 16, buf, &s, &e);
    host_read(&h, 0xC8, 32, 4, buf, &s, &e);
    CHECK(host_read(&h, 0x25, 4095, 2, buf, &s, &e) == 0 && s == 0x51 && e == 0x10,
          "a read past the end: IDNF");
    CHECK(smart(&h, 0xD0, page, &s, &e) == 0 && s == 0x50 && h.rx_bytes == 512 &&
          sum512(page) == 0 && page[0] == 0x10 && page[1] == 0,
          "SMART READ DATA: 512 bytes, revision 0x0010, sum %u", sum512(page));
    static const uint8_t ids[] = { 5, 9, 12, 194, 197, 199, 241, 242 };
    int order = 1;
    for (int i = 0; i < 8; i++)
        order &= page[2 + 12 * i] == ids[i];
    CHECK(order && page[2 + 12 * 8] == 0, "attribute IDs 5 9 12 194 197 199 241 242, then none");
    const uint8_t *a5 = attr(page, 5), *a12 = attr(page, 12), *a194 = attr(page, 194);
    const uint8_t *a241 = attr(page, 241), *a242 = attr(page, 242), *a199 = attr(page, 199);
    CHECK(a5 && a5[1] == 0x33 && a5[3] == 100 && raw48(a5) == 0, "5: flags 0x33, value 100, raw 0");
    CHECK(a12 && raw48(a12) == 1, "12: one power cycle");
    CHECK(a194 && a194[5] == 30 && a194[7] == 30 && a194[9] == 30 && a194[3] == 70,
          "194: 30 C now / lowest / highest, value 70 (%u %u %u %u)", a194[5], a194[7], a194[9],
          a194[3]);
    CHECK(a241 && raw48(a241) == 24 && a242 && raw48(a242) == 36 && a199 && raw48(a199) == 0,
          "241 = 24 sectors written, 242 = 36 read (%llu %llu)",
          (unsigned long long)raw48(a241), (unsigned long long)raw48(a242));
    CHECK(page[362] == 0 && page[367] == 0 && page[368] == 0 && page[370] == 0,
          "no off-line collection, self-test or error logging claimed");
    CHECK(smart(&h, 0xD1, thr, &s, &e) == 0 && s == 0x50 && sum512(thr) == 0 &&
          attr(thr, 5) && attr(thr, 5)[1] == 10 && attr(thr, 194) && attr(thr, 194)[1] == 0,
          "READ THRESHOLDS: 5 at 10, 194 at 0, checksum");
    CHECK(smart(&h, 0xDA, NULL, &s, &e) == 0 && s == 0x50 && d2h_lba(&h) == SMART_LBA,
          "RETURN STATUS good: LBA mid/high 4Fh/C2h (LBA 0x%06llx)",
          (unsigned long long)d2h_lba(&h));
    vdrive_stats_t st = test_stats(vd);
    CHECK(st.cmd_smart == 3 && st.read_cmds == 3 && st.write_cmds == 3 &&
          st.sectors_written == 24 && st.sectors_read == 36, "stats: cmd_smart %llu, reads %llu, "
          "writes %llu", (unsigned long long)st.cmd_smart, (unsigned long long)st.read_cmds,
          (unsigned long long)st.write_cmds);
    /* without 4Fh/C2h, or an unknown sub-command: ABRT */
    CHECK(host_command(&h, 0xB0, 0xDA, 0, 0, NULL, 0, 0, &s, &e) == 0 && s == 0x51 && e == 0x04,
          "SMART without the signature aborts");
    CHECK(smart(&h, 0xD4, NULL, &s, &e) == 0 && s == 0x51 && e == 0x04,
          "EXECUTE OFF-LINE IMMEDIATE aborts (not claimed)");
    /* DISABLE OPERATIONS: word 85 bit 0 clear, everything but ENABLE aborts */
    CHECK(smart(&h, 0xD9, NULL, &s, &e) == 0 && s == 0x50 && host_identify(&h, id, &s, &e) == 0 &&
          (id[82] & 1) && !(id[85] & 1), "DISABLE: supported, not enabled (85 0x%04x)", id[85]);
    CHECK(smart(&h, 0xD0, page, &s, &e) == 0 && s == 0x51 && e == 0x04 &&
          smart(&h, 0xDA, NULL, &s, &e) == 0 && s == 0x51, "disabled: READ DATA, STATUS abort");
    CHECK(smart(&h, 0xD8, NULL, &s, &e) == 0 && s == 0x50 && smart(&h, 0xD0, page, &s, &e) == 0 &&
          s == 0x50 && host_identify(&h, id, &s, &e) == 0 && (id[85] & 1), "ENABLE: back");
    vdrive_destroy(vd);
}

static void test_smart_keys(void)
{
    host_t h;
    uint16_t id[256];
    uint8_t s = 0, e = 0, page[512];
    vdrive_t *vd = test_linked("smart_fail=1", &h, 2, 1);
    CHECK(smart(&h, 0xDA, NULL, &s, &e) == 0 && s == 0x50 && d2h_lba(&h) == SMART_FAIL_LBA,
          "smart_fail: RETURN STATUS F4h/2Ch (LBA 0x%06llx)", (unsigned long long)d2h_lba(&h));
    CHECK(smart(&h, 0xD0, page, &s, &e) == 0 && attr(page, 5) && attr(page, 5)[3] == 7 &&
          raw48(attr(page, 5)) == 1900 && sum512(page) == 0,
          "smart_fail: 5 value 7 <= threshold 10, raw 1900");
    vdrive_destroy(vd);

    vd = test_linked("smart_bad_checksum=1", &h, 2, 1);
    CHECK(smart(&h, 0xD0, page, &s, &e) == 0 && s == 0x50 && sum512(page) == 1,
          "smart_bad_checksum: the page sums to %u", sum512(page));
    CHECK(smart(&h, 0xD1, page, &s, &e) == 0 && sum512(page) == 0, "... the thresholds do not");
    vdrive_destroy(vd);

    vd = test_linked("smart=0", &h, 2, 1);
    CHECK(host_identify(&h, id, &s, &e) == 0 && !(id[82] & 1) && !(id[85] & 1),
          "smart=0: IDENTIFY 82 0x%04x 85 0x%04x", id[82], id[85]);
    CHECK(smart(&h, 0xD0, page, &s, &e) == 0 && s == 0x51 && e == 0x04 && h.rx_bytes == 0 &&
          smart(&h, 0xDA, NULL, &s, &e) == 0 && s == 0x51 && e == 0x04, "smart=0: ABRT");
    CHECK(test_stats(vd).cmd_smart == 2 && test_stats(vd).cmd_other == 0, "counted as cmd_smart");
    vdrive_destroy(vd);

    /* a read failing UNC on error_lba makes a pending sector */
    vd = test_linked("capacity=4096,error_lba=5,error_kind=unc", &h, 2, 1);
    static uint8_t buf[8 * 512];
    CHECK(host_read(&h, 0x25, 0, 8, buf, &s, &e) == 0 && s == 0x51 && e == 0x40, "UNC read");
    CHECK(smart(&h, 0xD0, page, &s, &e) == 0 && raw48(attr(page, 197)) == 1 &&
          test_stats(vd).pending_sectors == 1, "197: one pending sector");
    vdrive_destroy(vd);
}

/* ---- logs ------------------------------------------------------------------------------------ */

static void test_log_directory(void)
{
    host_t h;
    uint8_t s = 0, e = 0, b[512];
    static const struct { const char *cfg; uint8_t ncq, phy; } c[] = {
        { "persona=ideal", 0, 1 }, { "persona=ideal,ncq=1", 1, 1 },
        { "persona=ideal,phy_events=0", 0, 0 },
    };
    for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        vdrive_t *vd = test_linked(c[i].cfg, &h, 2, 1);
        CHECK(read_log(&h, 0x00, 0, 1, 0, b, 0, &s, &e) == 0 && s == 0x50 && h.rx_bytes == 512,
              "%s: log 00h read", c[i].cfg);
        int others = 0;
        for (int log = 1; log < 256; log++)
            if (log != 0x04 && log != 0x10 && log != 0x11)
                others |= b[2 * log] | b[2 * log + 1];
        CHECK(b[0] == 1 && b[1] == 0 && b[8] == 8 && b[9] == 0 && b[0x20] == c[i].ncq &&
              b[0x22] == c[i].phy && !others, "%s: version 1, 04h 8 pages, 10h %u, 11h %u, "
              "nothing else", c[i].cfg, b[0x20], b[0x22]);
        uint16_t id[256];
        host_identify(&h, id, &s, &e);
        CHECK((id[76] >> 10 & 1) == c[i].phy, "%s: word 76 bit 10 = phy_events", c[i].cfg);
        if (!c[i].phy)
            CHECK(read_log(&h, 0x11, 0, 1, 0, b, 0, &s, &e) == 0 && s == 0x51 && e == 0x04,
                  "phy_events=0: log 11h aborts");
        vdrive_destroy(vd);
    }
    /* 28-bit drive: no GPL */
    vdrive_t *vd = test_linked("persona=mlc28", &h, 1, 1);
    uint16_t id[256];
    CHECK(host_identify(&h, id, &s, &e) == 0 && !(id[84] & 0x20) && !(id[76] & 0x8400) &&
          read_log(&h, 0x00, 0, 1, 0, b, 0, &s, &e) == 0 && s == 0x51,
          "mlc28 (28-bit): no GPL, READ LOG EXT aborts");
    vdrive_destroy(vd);
}

static void test_device_statistics(void)
{
    host_t h;
    uint8_t s = 0, e = 0, f = 0;
    static uint8_t p0[512], p1[512], p5[512], p7[512], two[1024], dma[1024], buf[256 * 512];
    vdrive_t *vd = test_linked("persona=ideal,capacity=256", &h, 2, 1);
    CHECK(read_log(&h, 0x04, 0, 1, 0, p0, 0, &s, &e) == 0 && s == 0x50 && p0[0] == 1 &&
          p0[2] == 0 && p0[8] == 4 && p0[9] == 0 && p0[10] == 1 && p0[11] == 5 && p0[12] == 7,
          "page 00h: 4 pages 00h 01h 05h 07h");
    test_fill(buf, sizeof(buf), 9);
    for (int i = 0; i < 11; i++)         /* 2,816 sectors: 1 % of 1000 drive writes of 128 KiB */
        host_write(&h, 0x35, 0, 256, buf, &s, &e);
    host_read(&h, 0x25, 0, 10, buf, &s, &e);
    host_read(&h, 0xC8, 10, 6, buf, &s, &e);
    CHECK(read_log(&h, 0x04, 1, 1, 0, p1, 0, &s, &e) == 0 && s == 0x50 && p1[2] == 1,
          "page 01h read");
    uint64_t por = devstat(p1, 0x08, &f);
    int flags_ok = f == 0xC0;
    uint64_t poh = devstat(p1, 0x10, &f), sw = devstat(p1, 0x18, &f), wc = devstat(p1, 0x20, &f);
    uint64_t sr = devstat(p1, 0x28, &f), rc = devstat(p1, 0x30, &f);
    flags_ok &= f == 0xC0;
    CHECK(por == 1 && poh == 0 && sw == 2816 && wc == 11 && sr == 16 && rc == 2 && flags_ok &&
          p1[0x38 + 7] == 0, "01h: resets 1, hours 0, written 2816 in 11, read 16 in 2 "
          "(%llu %llu %llu %llu), flags C0h", (unsigned long long)sw, (unsigned long long)wc,
          (unsigned long long)sr, (unsigned long long)rc);
    CHECK(read_log(&h, 0x04, 5, 1, 0, p5, 0, &s, &e) == 0 && s == 0x50 && p5[2] == 5 &&
          devstat(p5, 0x58, &f) == 70 && f == 0xC0 && p5[0x18 + 7] == 0,
          "05h: maximum operating temperature 70, no long-term average");
    CHECK(read_log(&h, 0x04, 7, 1, 0, p7, 0, &s, &e) == 0 && s == 0x50 && p7[2] == 7 &&
          devstat(p7, 0x08, &f) == 1 && f == 0xC0 && test_stats(vd).endurance_used == 1,
          "07h: 1 %% endurance used");
    /* pages 00h-01h at once, in 4 DRQ blocks each (pio_blocks is a creation key: new drive) */
    vdrive_stats_t st = test_stats(vd);
    CHECK(st.sectors_written == 2816 && st.write_cmds == 11 && st.read_cmds == 2 &&
          st.sectors_read == 16, "stats agree with page 01h");
    CHECK(read_log(&h, 0x04, 2, 1, 0, p1, 0, &s, &e) == 0 && s == 0x51 && e == 0x04 &&
          read_log(&h, 0x04, 8, 1, 0, p1, 0, &s, &e) == 0 && s == 0x51 &&
          read_log(&h, 0x04, 0, 3, 0, two, 0, &s, &e) == 0 && s == 0x51 &&
          read_log(&h, 0x04, 0, 0, 0, p1, 0, &s, &e) == 0 && s == 0x51 &&
          read_log(&h, 0x30, 0, 1, 0, p1, 0, &s, &e) == 0 && s == 0x51 &&
          read_log(&h, 0x00, 0, 2, 0, two, 0, &s, &e) == 0 && s == 0x51 && h.rx_bytes == 0,
          "unsupported page 02h, page 08h, a range over 02h, Count 0, log 30h, 2 pages of 00h: "
          "ABRT");
    vdrive_destroy(vd);

    vd = test_linked("persona=ideal,capacity=256,pio_blocks=4", &h, 2, 1);
    read_log(&h, 0x04, 0, 1, 0, p0, 0, &s, &e);
    read_log(&h, 0x04, 1, 1, 0, p1, 0, &s, &e);
    CHECK(read_log(&h, 0x04, 0, 2, 0, two, 0, &s, &e) == 0 && s == 0x50 && h.pio_setups == 8 &&
          h.pio_mismatch == 0 && !memcmp(two, p0, 512) && !memcmp(two + 512, p1, 512),
          "2 pages in 8 DRQ blocks of 128 bytes (%d setups)", h.pio_setups);
    CHECK(read_log(&h, 0x04, 0, 2, 0, dma, 1, &s, &e) == 0 && s == 0x50 && h.rx_bytes == 1024 &&
          !memcmp(dma, two, 1024) && h.pio_setups == 0,
          "READ LOG DMA EXT: the same bytes in a Data FIS, then status 0x50");
    vdrive_destroy(vd);

    /* DMA in several Data FISes; 4 KiB logical sectors count as such; rotating media: no 07h */
    vd = test_linked("persona=ideal,data_fis_dwords=100,logical_sector=4096,capacity=4096", &h, 2,
                     1);
    h.sector_bytes = 4096;
    host_write(&h, 0x35, 0, 2, buf, &s, &e);
    CHECK(read_log(&h, 0x04, 0, 2, 0, dma, 1, &s, &e) == 0 && s == 0x50 && h.rx_bytes == 1024 &&
          devstat(dma + 512, 0x18, &f) == 2 && devstat(dma + 512, 0x20, &f) == 1,
          "data_fis_dwords=100: 1024 bytes in several FISes; 4Kn: 2 logical sectors written");
    vdrive_destroy(vd);
    vd = test_linked("persona=hdd7200", &h, 2, 1);
    CHECK(read_log(&h, 0x04, 0, 1, 0, p0, 0, &s, &e) == 0 && p0[8] == 3 && p0[11] == 5 &&
          read_log(&h, 0x04, 7, 1, 0, p7, 0, &s, &e) == 0 && s == 0x51,
          "hdd7200: pages 00h 01h 05h, 07h aborts");
    vdrive_destroy(vd);
}

/* ---- phy event counters ---------------------------------------------------------------------- */

/* log 11h by identifier; -1 if malformed (unknown size, no end marker), else the counters */
static int parse_phy(const uint8_t *b, uint64_t v[0x20], int words[0x20])
{
    memset(v, 0, 0x20 * sizeof(*v));
    memset(words, 0, 0x20 * sizeof(*words));
    int n = 0;
    for (unsigned off = 4; off + 2 <= 511;) {
        unsigned id = b[off] | b[off + 1] << 8, w = id >> 12 & 7, code = id & 0xFFF;
        off += 2;
        if (!id)
            return n;
        if (code >= 0x20 || w < 1 || w > 4 || off + 2 * w > 511)
            return -1;
        uint64_t x = 0;
        for (unsigned k = 0; k < 2 * w; k++)
            x |= (uint64_t)b[off + k] << (8 * k);
        v[code] = x;
        words[code] = (int)w;
        off += 2 * w;
        n++;
    }
    return -1;
}

/* What log 11h must say, from the statistics (README "Health": the table of counters). */
static void phy_expected(const vdrive_stats_t *st, uint64_t x[0x20])
{
    memset(x, 0, 0x20 * sizeof(*x));
    x[0x01] = st->cmd_icrc;
    x[0x03] = st->r_err_rx_data;
    x[0x04] = st->r_err_tx_data_crc + st->r_err_tx_data_other;
    x[0x02] = x[0x03] + x[0x04];
    x[0x06] = st->r_err_rx_nondata;
    x[0x07] = st->r_err_tx_nondata_crc + st->r_err_tx_nondata_other;
    x[0x05] = x[0x06] + x[0x07];
    x[0x08] = st->nondata_retries;
    x[0x09] = st->phyrdy_lost;
    x[0x0A] = st->sig_after_comreset;
    x[0x0B] = st->rx_fis_crc_errors;
    x[0x0D] = st->rx_fis_other_errors;
    x[0x0F] = st->r_err_tx_data_crc;
    x[0x10] = st->r_err_tx_data_other;
    x[0x12] = st->r_err_tx_nondata_crc;
    x[0x13] = st->r_err_tx_nondata_other;
}

/* Read log 11h and compare every counter with the statistics (less those at the last reset,
 * base, if any); returns the counter values. */
static int phy_log_matches(host_t *h, vdrive_t *vd, uint16_t feat, const vdrive_stats_t *base,
                           uint64_t v[0x20], const char *what)
{
    uint8_t b[512], s = 0, e = 0;
    int words[0x20];
    uint64_t x[0x20], x0[0x20] = { 0 };
    int r = read_log(h, 0x11, 0, 1, feat, b, 0, &s, &e);
    vdrive_stats_t st = test_stats(vd);
    phy_expected(&st, x);
    if (base)
        phy_expected(base, x0);
    for (int i = 0; i < 0x20; i++)
        x[i] -= x0[i];
    int n = parse_phy(b, v, words);
    int same = n == 16;
    for (int i = 0; i < 0x20; i++)
        same &= v[i] == x[i];
    CHECK(r == 0 && s == 0x50 && sum512(b) == 0 && same && words[0x01] == 1 && words[0x0A] == 1 &&
          words[0x02] == 2 && words[0x0B] == 2, "%s: log 11h (%d counters, checksum %u) = stats",
          what, n, sum512(b));
    return same;
}

static void test_phy_events(void)
{
    host_t h;
    uint8_t s = 0, e = 0;
    uint64_t v[0x20];
    static uint8_t buf[16 * 512];
    uint16_t id[256];
    vdrive_t *vd = test_linked("persona=ideal,capacity=4096,rerr_fis=6", &h, 2, 0);
    phy_log_matches(&h, vd, 0, NULL, v, "after link-up");
    CHECK(v[0x0A] == 1 && v[0x09] == 0 && v[0x0B] == 0, "one signature after the COMRESET");
    /* the host's command FIS with a bad CRC: R_ERR, non-Data, CRC */
    h.bad_crc_at = 1;
    CHECK(host_identify(&h, id, &s, &e) == -1 && h.r_err, "bad CRC on the command FIS: R_ERR");
    CHECK(host_identify(&h, id, &s, &e) == 0 && s == 0x50, "IDENTIFY again");
    /* a bad CRC on the write's Data FIS: R_ERR, Data, CRC; the write ends with ICRC|ABRT */
    h.bad_crc_at = 2;
    CHECK(host_write(&h, 0x35, 0, 8, buf, &s, &e) == 0 && s == 0x51 && e == 0x84,
          "bad CRC on the Data FIS: ICRC|ABRT (0x%02x/0x%02x)", s, e);
    /* rerr_fis=6: the drive refuses the 6th host FIS (this command) without a CRC error */
    CHECK(host_identify(&h, id, &s, &e) == -1 && h.r_err, "rerr_fis: the command refused");
    vdrive_stats_t st = test_stats(vd);
    CHECK(st.r_err_tx_nondata_crc == 1 && st.r_err_tx_data_crc == 1 &&
          st.r_err_tx_nondata_other == 1 && st.rx_fis_crc_errors == 2 && st.cmd_icrc == 1 &&
          st.crc_errors_rx == 2, "stats: the three refusals, two CRC errors, one ICRC command");
    phy_log_matches(&h, vd, 0, NULL, v, "after the refusals");
    CHECK(v[0x01] == 1 && v[0x02] == 1 && v[0x04] == 1 && v[0x0F] == 1 && v[0x05] == 2 &&
          v[0x07] == 2 && v[0x12] == 1 && v[0x13] == 1 && v[0x0B] == 2 && v[0x0D] == 0,
          "0001h 1, 0002h 1, 0004h 1, 000Fh 1, 0005h 2, 0007h 2, 0012h 1, 0013h 1, 000Bh 2");
    uint8_t page[512];
    CHECK(smart(&h, 0xD0, page, &s, &e) == 0 && raw48(attr(page, 199)) == 2,
          "SMART 199: the 2 CRC errors");
    /* COMRESET: PHYRDY lost once, one more signature; the counters survive it */
    CHECK(host_link_up(&h, 3000000) == 0, "COMRESET");
    vdrive_stats_t at_reset = test_stats(vd);
    phy_log_matches(&h, vd, 1, NULL, v, "after COMRESET, read with reset");
    CHECK(v[0x09] == 1 && v[0x0A] == 2 && v[0x01] == 1, "0009h 1, 000Ah 2, 0001h kept");
    phy_log_matches(&h, vd, 0, &at_reset, v, "after the reset");
    int zero = 1;
    for (int i = 0; i < 0x20; i++)
        zero &= v[i] == 0;
    CHECK(zero && test_stats(vd).phy_event_resets == 1 && test_stats(vd).cmd_icrc == 1,
          "after Features bit 0: every counter 0, the lifetime statistics kept");
    vdrive_destroy(vd);

    /* the host refuses drive FISes: crc_error_fis on a Data FIS, then on a status (resent) */
    vd = test_linked("persona=ideal,capacity=4096,crc_error_fis=2", &h, 2, 0);
    CHECK(host_read(&h, 0x25, 0, 4, buf, &s, &e) == 0 && s == 0x51 && e == 0x84,
          "the host refuses the read's Data FIS: ICRC|ABRT");
    phy_log_matches(&h, vd, 0, NULL, v, "Data FIS refused");
    CHECK(v[0x03] == 1 && v[0x02] == 1 && v[0x01] == 1 && v[0x06] == 0, "0003h 1, 0001h 1");
    vdrive_destroy(vd);
    vd = test_linked("persona=ideal,capacity=4096,crc_error_fis=2", &h, 2, 0);
    CHECK(host_nodata(&h, 0xE7, 0, &s, &e) == 0 && s == 0x50, "FLUSH: its status resent");
    phy_log_matches(&h, vd, 0, NULL, v, "status refused");
    CHECK(v[0x06] == 1 && v[0x05] == 1 && v[0x08] == 1, "0006h 1, 0008h 1 (a retry)");
    vdrive_destroy(vd);

    /* random bit errors on the host's line: CRC and code errors, counted alike in both */
    vd = test_linked("persona=ideal,capacity=4096,ber_h2d=3e-6,seed=7", &h, 2, 0);
    h.timeout_words = 3000000;
    for (int i = 0; i < 40; i++)
        host_write(&h, 0x35, 0, 16, buf, &s, &e);
    host_link_up(&h, 3000000);
    int ok = 0;
    for (int i = 0; i < 5 && !ok; i++) {
        uint8_t b[512];
        ok = read_log(&h, 0x11, 0, 1, 0, b, 0, &s, &e) == 0 && s == 0x50 && h.rx_bytes == 512;
    }
    st = test_stats(vd);
    CHECK(ok && st.injected_bit_errors_h2d > 0 && st.crc_errors_rx > 0,
          "ber_h2d: %llu bit errors, %llu bad host FISes (%llu CRC, %llu other)",
          (unsigned long long)st.injected_bit_errors_h2d, (unsigned long long)st.crc_errors_rx,
          (unsigned long long)st.rx_fis_crc_errors, (unsigned long long)st.rx_fis_other_errors);
    phy_log_matches(&h, vd, 0, NULL, v, "ber_h2d");
    printf("  ber_h2d=3e-6: log 11h 0001h %llu, 0004h %llu, 0007h %llu, 000Bh %llu, 000Dh %llu, "
           "0009h %llu\n", (unsigned long long)v[0x01], (unsigned long long)v[0x04],
           (unsigned long long)v[0x07], (unsigned long long)v[0x0B], (unsigned long long)v[0x0D],
           (unsigned long long)v[0x09]);
    vdrive_destroy(vd);
}

/* ---- temperature ----------------------------------------------------------------------------- */

static void test_temperature(void)
{
    host_t h;
    uint8_t s = 0, e = 0, f = 0, page[512], p5[512], p1[512];
    static uint8_t buf[512 * 512];
    /* one millisecond of drive time is a health hour; a thermal tick (100 us) 6 minutes */
    vdrive_t *vd = test_linked("persona=ideal,capacity=8192,health_time_scale=3600000", &h, 2, 1);
    test_fill(buf, sizeof(buf), 3);
    for (int i = 0; i < 3; i++)
        host_write(&h, 0x35, 0, 512, buf, &s, &e);
    vdrive_stats_t hot = test_stats(vd);
    /* about 290 MB/s: 29 C up, a degree or three more in ticks that took 4 Data FISes */
    CHECK(hot.temp_c >= 50 && hot.temp_c <= 65 && hot.temp_max_c >= hot.temp_c &&
          hot.temp_min_c == 30, "writing at line rate: %llu C (highest %llu, lowest %llu)",
          (unsigned long long)hot.temp_c, (unsigned long long)hot.temp_max_c,
          (unsigned long long)hot.temp_min_c);
    idle_us(&h, 3000);
    vdrive_stats_t st = test_stats(vd);
    uint64_t hours = vdrive_time_ps(vd) / 1000000000ull;
    CHECK(st.temp_c == 30 && st.temp_max_c == hot.temp_max_c && st.temp_avg_c > 30 &&
          st.temp_avg_c < hot.temp_max_c && st.overtemp_minutes == 0 &&
          st.poweron_hours == hours && hours >= 5, "3 ms idle: back to 30 C, average %llu, "
          "%llu power-on hours", (unsigned long long)st.temp_avg_c,
          (unsigned long long)st.poweron_hours);
    CHECK(smart(&h, 0xD0, page, &s, &e) == 0 && attr(page, 194)[5] == 30 &&
          attr(page, 194)[7] == 30 && attr(page, 194)[9] == st.temp_max_c &&
          attr(page, 194)[4] == 100 - st.temp_max_c && raw48(attr(page, 9)) == st.poweron_hours,
          "SMART 194 raw 30 / 30 / %u, worst %u; 9 = power-on hours", attr(page, 194)[9],
          attr(page, 194)[4]);
    CHECK(read_log(&h, 0x04, 5, 1, 0, p5, 0, &s, &e) == 0 && devstat(p5, 0x08, &f) == 30 &&
          devstat(p5, 0x20, &f) == st.temp_max_c && devstat(p5, 0x28, &f) == 30 &&
          devstat(p5, 0x10, &f) == st.temp_avg_c && devstat(p5, 0x50, &f) == 0,
          "05h: current, highest, lowest, average as the stats");
    CHECK(read_log(&h, 0x04, 1, 1, 0, p1, 0, &s, &e) == 0 &&
          devstat(p1, 0x10, &f) == test_stats(vd).poweron_hours, "01h: power-on hours");
    vdrive_destroy(vd);

    /* a warm idle drive goes over 70 C under load: time in over-temperature, in minutes */
    vd = test_linked("persona=ideal,capacity=8192,health_time_scale=3600000,temperature_c=60",
                     &h, 2, 1);
    for (int i = 0; i < 3; i++)
        host_write(&h, 0x35, 0, 512, buf, &s, &e);
    idle_us(&h, 1000);
    st = test_stats(vd);
    CHECK(st.temp_max_c > 70 && st.overtemp_minutes >= 30 && st.temp_c == 60,
          "temperature_c=60: up to %llu C, %llu minutes over 70 C", (unsigned long long)st.temp_max_c,
          (unsigned long long)st.overtemp_minutes);
    CHECK(read_log(&h, 0x04, 5, 1, 0, p5, 0, &s, &e) == 0 &&
          devstat(p5, 0x50, &f) == st.overtemp_minutes, "05h: time in over-temperature");
    printf("  thermal model, 768 KiB written at line rate: idle 30 C -> highest %llu C; idle 60 C "
           "-> highest %llu C, %llu minutes over 70 C\n", (unsigned long long)hot.temp_max_c,
           (unsigned long long)st.temp_max_c, (unsigned long long)st.overtemp_minutes);
    vdrive_destroy(vd);

    /* the same traffic, looked at often or never: the same numbers */
    vdrive_stats_t a = { 0 }, b = { 0 };
    for (int pass = 0; pass < 2; pass++) {
        vd = test_linked("persona=ideal,capacity=8192,health_time_scale=3600000", &h, 2, 1);
        for (int i = 0; i < 3; i++) {
            host_write(&h, 0x35, 0, 512, buf, &s, &e);
            for (int k = 0; k < 20; k++) {
                if (pass)
                    test_stats(vd);
                idle_us(&h, 7);
            }
        }
        idle_us(&h, 500);
        if (pass)
            b = test_stats(vd);
        else
            a = test_stats(vd);
        vdrive_destroy(vd);
    }
    CHECK(a.temp_c == b.temp_c && a.temp_max_c == b.temp_max_c && a.temp_avg_c == b.temp_avg_c &&
          a.overtemp_minutes == b.overtemp_minutes && a.temp_max_c > 30,
          "looking at the statistics often changes nothing (highest %llu / %llu, average %llu / "
          "%llu)", (unsigned long long)a.temp_max_c, (unsigned long long)b.temp_max_c,
          (unsigned long long)a.temp_avg_c, (unsigned long long)b.temp_avg_c);
}

void test_health(void)
{
    test_smart_data();
    test_smart_keys();
    test_log_directory();
    test_device_statistics();
    test_phy_events();
    test_temperature();
}
