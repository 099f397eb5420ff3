/* SPDX-License-Identifier: BSD-2-Clause */
/* What a host must get right about intact frames, through the C test host: a PIO Data FIS lost on
 * the line (pio_lost_data), device-initiated PMREQ (pmreq), an interim BSY/DRQ status
 * (interim_status), a host HOLD the drive ignores (ignore_hold), Data FISes beyond 8192 bytes
 * (data_fis_dwords), DMA Setup offsets and counts (setup_offset, setup_count_delta), refused
 * frames that are not resent (no_resend), the receiver's HOLD into host Data FISes (rx_fifo), and
 * the fuzzer's kinds for them. */
#include <stdlib.h>

#include "check.h"
#include "host.h"
#include "../src/internal.h"

#define US_DW 75                 /* Gen2 dwords per microsecond */

static int send_cmd(host_t *h, uint8_t op, uint64_t lba, uint32_t count)
{
    uint32_t fis[5];
    host_reg_h2d(fis, op, 0, lba, count);
    return host_send_fis(h, fis, 5, 100000);
}

/* SYNC for n dword times; returns at the first PMREQ episode beyond `until` (-1: never). */
static int idle(host_t *h, int n, int until)
{
    for (int i = 0; i < n; i++) {
        host_cycle(h, PRIM_SYNC, 1);
        if (until >= 0 && h->pmreqs_seen > until)
            return i;
    }
    return -1;
}

/* ---- configuration ----------------------------------------------------------------------------- */

static void test_keys(void)
{
    static const struct { const char *cfg, *msg; } bad[] = {
        { "pmreq=maybe", "bad value 'maybe' for key 'pmreq' (off|partial|slumber)" },
        { "pmreq_idle_us=0", "bad value '0' for key 'pmreq_idle_us' (1..100000 us)" },
        { "pmreq_wait_us=100001", "key 'pmreq_wait_us' (1..100000 us)" },
        { "interim_status=0x50", "key 'interim_status' (0 or a status with BSY 0x80 or DRQ 0x08)" },
        { "interim_status=256", "key 'interim_status'" },
        { "data_fis_dwords=0", "bad value '0' for key 'data_fis_dwords' (1..16384)" },
        { "data_fis_dwords=16385", "key 'data_fis_dwords' (1..16384)" },
        { "setup_offset=6", "key 'setup_offset' (0..1073741824 bytes, a multiple of 4)" },
        { "setup_count_delta=-6", "key 'setup_count_delta' (-1073741824..1073741824 bytes" },
        { "rx_fifo=1025", "bad value '1025' for key 'rx_fifo' (0..1024 dwords)" },
        { "rx_hold_every=15", "key 'rx_hold_every' (16..8192 dwords)" },
        { "rx_hold_every=8193", "key 'rx_hold_every' (16..8192 dwords)" },
        { "ignore_hold=2", "key 'ignore_hold'" },
    };
    char err[256];
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        vdrive_t *vd = vdrive_create_str(bad[i].cfg, err, sizeof(err));
        CHECK(!vd && strstr(err, bad[i].msg), "%s refused: '%s'", bad[i].cfg, err);
        vdrive_destroy(vd);
    }
    vdrive_config_t c;
    vdrive_config_defaults(&c);
    CHECK(c.pmreq == VDRIVE_PMREQ_OFF && c.pmreq_idle_us == 10 && c.pmreq_wait_us == 10 &&
          c.data_fis_dwords == 2048 && c.rx_hold_every == 256 && !c.rx_fifo && !c.pio_lost_data &&
          !c.interim_status && !c.ignore_hold && !c.setup_offset && !c.setup_count_delta &&
          !c.no_resend, "defaults of the new keys");
    CHECK(!vdrive_config_parse(&c, "pmreq=slumber,interim_status=0xD0,setup_count_delta=-512,"
                               "setup_offset=4096,data_fis_dwords=16384,rx_fifo=20", err,
                               sizeof(err)) &&
          c.pmreq == VDRIVE_PMREQ_SLUMBER && c.interim_status == 0xD0 &&
          c.setup_count_delta == -512 && c.setup_offset == 4096 && c.data_fis_dwords == 16384 &&
          c.rx_fifo == 20, "good values parsed");
    c.data_fis_dwords = 0;
    CHECK(!vdrive_create(&c, err, sizeof(err)) && strstr(err, "data_fis_dwords"), "struct: '%s'", err);
}

/* ---- pio_lost_data ------------------------------------------------------------------------------ */

static void test_pio_lost(void)
{
    host_t h;
    uint16_t id[256];
    uint32_t f[200];
    uint8_t s = 0, e = 0, log[512];
    int ok = 0;
    vdrive_t *vd = test_linked("pio_lost_data=2", &h, 2, 1);
    CHECK(host_identify(&h, id, &s, &e) == 0 && s == 0x50 && h.rx_bytes == 512, "first IDENTIFY");
    send_cmd(&h, 0xEC, 0, 0);
    int n1 = host_recv_fis(&h, f, 200, &ok, 100000);
    int t1 = n1 == 5 && ok && (f[0] & 0xFF) == 0x5F && (f[4] & 0xFFFF) == 512;
    int n2 = host_recv_fis(&h, f, 200, &ok, 100000);
    CHECK(t1 && n2 == 5 && ok && (f[0] & 0xFF) == 0x34 && (f[0] >> 16 & 0xFF) == 0x51 &&
          f[0] >> 24 == 0x84 && (f[0] & 1u << 14), "the second: PIO Setup, then no Data FIS but "
          "Register D2H 0x51/0x84, I=1 (%d, %d, 0x%08x)", n1, n2, f[0]);
    CHECK(test_stats(vd).pio_lost_data == 1, "pio_lost_data counted");
    CHECK(host_identify(&h, id, &s, &e) == 0 && s == 0x50 && h.rx_bytes == 512,
          "the third IDENTIFY as usual");
    vdrive_destroy(vd);

    vd = test_linked("pio_lost_data=1,pio_blocks=4", &h, 2, 1);
    CHECK(host_identify(&h, id, &s, &e) == 0 && s == 0x51 && e == 0x84 && h.pio_setups == 1 &&
          h.rx_bytes == 0, "pio_blocks=4: the first PIO Setup only, then ICRC|ABRT (%d setups)",
          h.pio_setups);
    vdrive_destroy(vd);

    /* READ LOG EXT counts too: IDENTIFY is 1, the log 2 */
    vd = test_linked("ncq=1,pio_lost_data=2", &h, 2, 1);
    host_identify(&h, id, &s, &e);
    CHECK(host_read_log(&h, 0x10, log, &s, &e) == 0 && s == 0x51 && e == 0x84 && h.rx_bytes == 0,
          "READ LOG EXT is a PIO data-in command: the second one loses its data");
    CHECK(host_read_log(&h, 0x10, log, &s, &e) == 0 && s == 0x50 && h.rx_bytes == 512,
          "... the next READ LOG EXT works");
    vdrive_destroy(vd);
}

/* ---- pmreq ---------------------------------------------------------------------------------- */

static void test_pmreq(void)
{
    host_t h;
    uint8_t s = 0, e = 0;
    uint16_t id[256];

    /* nobody answers: PMREQ_P after 10 us of idle, for 10 us, then never again before a command */
    vdrive_t *vd = test_linked("pmreq=partial", &h, 2, 0);
    uint64_t t0 = vdrive_time_ps(vd);
    int at = idle(&h, 3000, 0);
    uint64_t t1 = vdrive_time_ps(vd);
    CHECK(at > 0 && h.pmreq_dw == PRIM_PMREQ_P && t1 - t0 >= 10000000 && t1 - t0 < 10400000,
          "pmreq=partial: PMREQ_P after 10 us idle (%llu ps)", (unsigned long long)(t1 - t0));
    while (h.level == P_PMREQ)
        host_cycle(&h, PRIM_SYNC, 1);
    uint64_t t2 = vdrive_time_ps(vd);
    CHECK(t2 - t1 >= 9950000 && t2 - t1 < 10200000, "unanswered: given up after 10 us (%llu ps)",
          (unsigned long long)(t2 - t1));
    idle(&h, 60 * US_DW, -1);
    vdrive_stats_t st = test_stats(vd);
    CHECK(h.pmreqs_seen == 1 && st.pmreq_sent == 1 && st.pmreq_unanswered == 1,
          "... and not again while idle (%d)", h.pmreqs_seen);
    CHECK(host_nodata(&h, 0xE7, 0, &s, &e) == 0 && s == 0x50 && h.pmreqs_seen == 1,
          "a command meanwhile");
    CHECK(idle(&h, 20 * US_DW, 1) > 0 && test_stats(vd).pmreq_sent == 2,
          "after the command, a new request once idle");
    vdrive_destroy(vd);

    /* PMNAK: answered at once, the drive sends SYNC and waits for the next command */
    vd = test_linked("pmreq=slumber", &h, 2, 0);
    h.pm_reply = HOST_PM_NAK;
    idle(&h, 20 * US_DW, 0);
    t1 = vdrive_time_ps(vd);
    while (h.level == P_PMREQ)
        host_cycle(&h, PRIM_SYNC, 1);
    t2 = vdrive_time_ps(vd);
    idle(&h, 40 * US_DW, -1);
    st = test_stats(vd);
    CHECK(h.pmreq_dw == PRIM_PMREQ_S && st.pmnak_received == 1 && st.pmreq_unanswered == 0 &&
          h.pmreqs_seen == 1 && t2 - t1 < 200000, "PMREQ_S refused with PMNAK: SYNC within %llu ps, "
          "no new request", (unsigned long long)(t2 - t1));
    CHECK(host_identify(&h, id, &s, &e) == 0 && s == 0x50, "IDENTIFY after PMNAK");
    idle(&h, 20 * US_DW, -1);
    CHECK(h.pmreqs_seen == 2 && test_stats(vd).pmnak_received == 2, "asked again after it");
    vdrive_destroy(vd);

    /* the host's PMNAK whatever it puts around it: one dword between SYNCs; CONT compression on
     * both sides; ALIGNs inside (the test host sends them every 256 dwords) */
    static const char *const cfgs[] = { "pmreq=partial", "pmreq=partial,cont=1" };
    for (int i = 0; i < 2; i++) {
        for (int cont = 0; cont < 2; cont++) {
            vd = test_linked(cfgs[i], &h, 2, 0);
            h.use_cont = cont;
            h.pm_reply = cont ? HOST_PM_NAK : HOST_PM_NAK_ONCE;
            idle(&h, 40 * US_DW, -1);
            st = test_stats(vd);
            CHECK(st.pmreq_sent == 1 && st.pmnak_received == 1 && st.pmreq_unanswered == 0,
                  "%s, host %s: PMNAK recognised", cfgs[i], cont ? "PMNAK with CONT" :
                  "a single PMNAK dword");
            vdrive_destroy(vd);
        }
    }

    /* PMACK: counted, the drive stays active (no power state modelled) */
    vd = test_linked("pmreq=partial", &h, 2, 0);
    h.pm_reply = HOST_PM_ACK;
    idle(&h, 40 * US_DW, -1);
    CHECK(test_stats(vd).pmack_received == 1 && h.pmreqs_seen == 1, "PMACK counted");
    CHECK(host_nodata(&h, 0xE7, 0, &s, &e) == 0 && s == 0x50, "a command after PMACK");
    vdrive_destroy(vd);

    /* X_RDY into the request: the drive yields and takes the command */
    vd = test_linked("pmreq=partial", &h, 2, 0);
    idle(&h, 20 * US_DW, 0);
    CHECK(h.level == P_PMREQ && host_identify(&h, id, &s, &e) == 0 && s == 0x50 &&
          test_stats(vd).pmreq_xrdy == 1 && test_stats(vd).pmreq_unanswered == 0,
          "X_RDY during PMREQ: the command goes through");
    vdrive_destroy(vd);

    /* never while a command is outstanding; pmreq_idle_us and pmreq_wait_us */
    vd = test_linked("pmreq=partial,cmd_us=50", &h, 2, 0);
    CHECK(host_nodata(&h, 0xE7, 0, &s, &e) == 0 && s == 0x50 && h.pmreqs_seen == 0,
          "no PMREQ during a 50 us command");
    vdrive_destroy(vd);
    vd = test_linked("pmreq=partial,pmreq_idle_us=50,pmreq_wait_us=30", &h, 2, 0);
    t0 = vdrive_time_ps(vd);
    idle(&h, 100 * US_DW, 0);
    t1 = vdrive_time_ps(vd);
    while (h.level == P_PMREQ)
        host_cycle(&h, PRIM_SYNC, 1);
    t2 = vdrive_time_ps(vd);
    CHECK(t1 - t0 >= 50000000 && t1 - t0 < 50400000 && t2 - t1 >= 29950000 &&
          t2 - t1 < 30200000, "pmreq_idle_us=50, pmreq_wait_us=30 (%llu, %llu ps)",
          (unsigned long long)(t1 - t0), (unsigned long long)(t2 - t1));
    vdrive_destroy(vd);
    vd = test_linked("persona=ideal", &h, 2, 0);
    idle(&h, 40 * US_DW, -1);
    CHECK(h.pmreqs_seen == 0 && test_stats(vd).pmreq_sent == 0, "pmreq=off: never");
    vdrive_destroy(vd);
}

/* ---- interim_status --------------------------------------------------------------------------- */

static void test_interim(void)
{
    host_t h;
    static uint8_t r[16 * 512], m[16 * 512];
    uint32_t f[2100];
    uint16_t id[256];
    uint8_t s = 0, e = 0;
    int ok = 0;
    vdrive_t *vd = test_linked("interim_status=0x80", &h, 2, 1);
    test_fill(m, sizeof(m), 9);
    vdrive_write_sectors(vd, 0x1234, 4, m);
    send_cmd(&h, 0x25, 0x1234, 4);
    int n = host_recv_fis(&h, f, 2100, &ok, 100000);
    CHECK(n == 5 && ok && f[0] == (FIS_REG_D2H | 0x80u << 16) && f[1] == (0x1234u | 0x40u << 24) &&
          f[2] == 0 && f[3] == 4 && f[4] == 0, "interim 0x80: Register D2H, error 0, I=0, the "
          "command's LBA and count (0x%08x 0x%08x 0x%08x)", f[0], f[1], f[3]);
    n = host_recv_fis(&h, f, 2100, &ok, 100000);
    int data = n == 513 && !memcmp(&f[1], m, 2048);
    n = host_recv_fis(&h, f, 2100, &ok, 100000);
    CHECK(data && n == 5 && (f[0] >> 16 & 0xFF) == 0x50 && (f[0] & 1u << 14),
          "... then the read's data and status as always");
    CHECK(test_stats(vd).interim_status_sent == 1, "interim_status_sent");
    CHECK(host_read(&h, 0x25, 0x1234, 4, r, &s, &e) == 0 && s == 0x50 && h.interim_seen == 1 &&
          !memcmp(r, m, 2048), "a host that waits for BSY and DRQ clear reads right");
    vdrive_destroy(vd);

    /* DRQ, on IDENTIFY, a write and a non-data command */
    vd = test_linked("interim_status=0x58", &h, 2, 1);
    CHECK(host_identify(&h, id, &s, &e) == 0 && s == 0x50 && h.interim_seen == 1 &&
          h.rx_bytes == 512, "interim 0x58 before IDENTIFY");
    CHECK(host_write(&h, 0x35, 8, 16, m, &s, &e) == 0 && s == 0x50 && h.interim_seen == 1 &&
          h.protocol_errors == 0, "... before a write");
    vdrive_read_sectors(vd, 8, 16, r);
    CHECK(!memcmp(r, m, sizeof(m)), "... whose data arrives");
    CHECK(host_nodata(&h, 0xEA, 0, &s, &e) == 0 && s == 0x50 && h.interim_seen == 1 &&
          host_nodata(&h, 0x99, 0, &s, &e) == 0 && s == 0x51 && h.interim_seen == 1,
          "... before FLUSH CACHE EXT and an aborted command");
    CHECK(test_stats(vd).interim_status_sent == 4, "4 interim FISes (%llu)",
          (unsigned long long)test_stats(vd).interim_status_sent);
    vdrive_destroy(vd);

    /* refused: sent again, as a status is */
    vd = test_linked("interim_status=0xD0", &h, 2, 1);
    h.refuse_frames = 1;
    CHECK(host_nodata(&h, 0xE7, 0, &s, &e) == 0 && s == 0x50 &&
          test_stats(vd).interim_status_sent == 2 && test_stats(vd).r_err_received == 1,
          "a refused interim FIS is sent again");
    vdrive_destroy(vd);

    /* not for queued commands */
    vd = test_linked("ncq=1,interim_status=0x80", &h, 2, 1);
    host_ncq_req q = { .lba = 0, .count = 8, .buf = r };
    host_ncq_stats ns;
    CHECK(host_ncq_run(&h, &q, 1, 1, &ns) == 0 && q.state == 2 && ns.protocol_errors == 0 &&
          test_stats(vd).interim_status_sent == 0, "FPDMA: no interim status");
    vdrive_destroy(vd);
}

/* ---- ignore_hold -------------------------------------------------------------------------------- */

static void test_ignore_hold(void)
{
    host_t h;
    static uint8_t r[16 * 512], m[16 * 512];
    uint8_t s = 0, e = 0;
    test_fill(m, sizeof(m), 21);
    for (int ign = 0; ign < 2; ign++) {
        vdrive_t *vd = test_linked(ign ? "ignore_hold=1" : "persona=ideal", &h, 2, 1);
        vdrive_write_sectors(vd, 0, 16, m);
        h.hold_every = 200;              /* HOLD for 8 dwords every 200 data dwords */
        int rc = host_read(&h, 0x25, 0, 16, r, &s, &e);
        vdrive_stats_t st = test_stats(vd);
        CHECK(rc == 0 && s == 0x50 && !memcmp(r, m, sizeof(m)) && st.holds_received >= 8,
              "ignore_hold=%d: the read completes (%llu host HOLDs)", ign,
              (unsigned long long)st.holds_received);
        if (ign)
            CHECK(st.dwords_sent_in_host_hold >= 50, "ignore_hold: %llu dwords sent into HOLD",
                  (unsigned long long)st.dwords_sent_in_host_hold);
        else
            CHECK(st.dwords_sent_in_host_hold == 0, "HOLD answered with HOLDA");
        vdrive_destroy(vd);
    }
}

/* ---- data_fis_dwords ---------------------------------------------------------------------------- */

/* Reads `count` sectors at LBA 0 frame by frame: Data FIS lengths into len[], 0 or -1. */
static int read_frames(host_t *h, uint32_t count, uint8_t *buf, int *len, int maxf, int *nf)
{
    static uint32_t f[VD_TX_FRAME_MAX + 16];
    size_t pos = 0;
    *nf = 0;
    send_cmd(h, 0x25, 0, count);
    for (;;) {
        int ok = 0, n = host_recv_fis(h, f, VD_TX_FRAME_MAX + 16, &ok, 1000000);
        if (n < 1)
            return -1;
        if ((f[0] & 0xFF) == 0x34)
            return (f[0] >> 16 & 0xFF) == 0x50 ? 0 : -1;
        if ((f[0] & 0xFF) != 0x46 || !ok)
            return -1;
        if (*nf < maxf)
            len[*nf] = n - 1;
        (*nf)++;
        memcpy(buf + pos, &f[1], (size_t)(n - 1) * 4);
        pos += (size_t)(n - 1) * 4;
    }
}

static void test_data_fis(void)
{
    host_t h;
    static uint8_t r[128 * 512], m[128 * 512];
    int len[200], nf = 0;
    test_fill(m, sizeof(m), 33);

    static uint32_t f[VD_TX_FRAME_MAX + 16];
    int ok = 0;
    vdrive_t *vd = test_linked("data_fis_dwords=4096", &h, 2, 0);
    vdrive_write_sectors(vd, 0, 128, m);
    send_cmd(&h, 0x25, 0, 64);
    int n = host_recv_fis(&h, f, VD_TX_FRAME_MAX + 16, &ok, 100000);
    CHECK(n == 4097 && !ok && h.rx_crc_good && !memcmp(&f[1], m, 16384),
          "data_fis_dwords=4096: a 16 KiB Data FIS, good CRC; this host refuses it (%d dwords)", n);
    n = host_recv_fis(&h, f, 8, &ok, 100000);
    CHECK(n == 5 && (f[0] >> 16 & 0xFF) == 0x51 && f[0] >> 24 == 0x84, "... the read fails");
    h.accept_long = 1;
    CHECK(read_frames(&h, 64, r, len, 200, &nf) == 0 && nf == 2 && len[0] == 4096 &&
          len[1] == 4096 && !memcmp(r, m, 64 * 512), "... taken: 2 x 4096 dwords, the media's data");
    vdrive_destroy(vd);

    vd = test_linked("data_fis_dwords=16384", &h, 2, 0);
    vdrive_write_sectors(vd, 0, 128, m);
    h.accept_long = 1;
    CHECK(read_frames(&h, 128, r, len, 200, &nf) == 0 && nf == 1 && len[0] == 16384 &&
          !memcmp(r, m, sizeof(m)), "data_fis_dwords=16384: 64 KiB in one Data FIS");
    vdrive_destroy(vd);

    /* Data FISes that end inside a sector, paced by the media rate too */
    static const char *const cfgs[] = { "data_fis_dwords=100", "data_fis_dwords=300,read_mbps=100" };
    for (int i = 0; i < 2; i++) {
        vd = test_linked(cfgs[i], &h, 2, 1);
        vdrive_write_sectors(vd, 0, 128, m);
        int per = i ? 300 : 100, want = (3 * 128 + per - 1) / per;
        int good = read_frames(&h, 3, r, len, 200, &nf) == 0 && nf == want &&
                   len[0] == per && len[nf - 1] == 3 * 128 - (want - 1) * per;
        CHECK(good && !memcmp(r, m, 3 * 512), "%s: %d Data FISes for 3 sectors, the media's data",
              cfgs[i], nf);
        CHECK(test_stats(vd).bytes_read == 3 * 512, "bytes_read %llu",
              (unsigned long long)test_stats(vd).bytes_read);
        vdrive_destroy(vd);
    }

    /* queued reads use it too */
    vd = test_linked("ncq=1,data_fis_dwords=1000", &h, 2, 1);
    vdrive_write_sectors(vd, 0, 128, m);
    host_ncq_req q = { .lba = 4, .count = 24, .buf = r };
    host_ncq_stats ns;
    CHECK(host_ncq_run(&h, &q, 1, 1, &ns) == 0 && q.state == 2 && ns.protocol_errors == 0 &&
          !memcmp(r, m + 4 * 512, 24 * 512), "FPDMA read in Data FISes of 1000 dwords");
    vdrive_destroy(vd);
}

/* ---- setup_offset, setup_count_delta ----------------------------------------------------------- */

static void test_setup(void)
{
    host_t h;
    static uint8_t r[16 * 512], m[16 * 512];
    uint32_t f[2100], fis[5];
    uint8_t s = 0, e = 0;
    int ok = 0;
    test_fill(m, sizeof(m), 45);
    static const struct { const char *cfg; uint32_t ofs; int32_t delta; } c[] = {
        { "ncq=1,setup_offset=512", 512, 0 },
        { "ncq=1,setup_count_delta=-4", 0, -4 },
        { "ncq=1,setup_count_delta=+8,setup_offset=4", 4, 8 },
    };
    for (int i = 0; i < 3; i++) {
        for (int wr = 0; wr < 2; wr++) {
            vdrive_t *vd = test_linked(c[i].cfg, &h, 2, 1);
            vdrive_write_sectors(vd, 0, 16, m);
            CHECK(host_ncq_issue(&h, wr, 0, 16, 5, &s, &e) == 0 && s == 0x40, "FPDMA answered");
            int n = host_recv_fis(&h, f, 2100, &ok, 100000);
            CHECK(n == 7 && ok && (f[0] & 0xFF) == 0x41 && (f[1] & 31) == 5 && f[4] == c[i].ofs &&
                  f[5] == (uint32_t)(16 * 512 + c[i].delta), "%s %s: DMA Setup offset %u count %u",
                  c[i].cfg, wr ? "write" : "read", f[4], f[5]);
            if (!wr) {
                n = host_recv_fis(&h, f, 2100, &ok, 100000);
                CHECK(n == 2049 && !memcmp(&f[1], m, 8192), "... the data as always");
            }
            vdrive_destroy(vd);
        }
        vdrive_t *vd = test_linked(c[i].cfg, &h, 2, 1);
        host_ncq_req q = { .lba = 0, .count = 16, .buf = r };
        host_ncq_stats ns;
        host_ncq_run(&h, &q, 1, 1, &ns);
        CHECK(ns.protocol_errors > 0, "%s: the NCQ host refuses the DMA Setup", c[i].cfg);
        vdrive_destroy(vd);
    }
    /* off: offset 0, the command's count */
    vdrive_t *vd = test_linked("ncq=1", &h, 2, 1);
    host_fpdma_fis(fis, 0, 0, 3, 0);
    host_send_fis(&h, fis, 5, 100000);
    host_recv_fis(&h, f, 2100, &ok, 100000);
    int n = host_recv_fis(&h, f, 2100, &ok, 100000);
    CHECK(n == 7 && f[4] == 0 && f[5] == 3 * 512, "default DMA Setup: offset 0, count 1536");
    vdrive_destroy(vd);
}

/* ---- no_resend ---------------------------------------------------------------------------------- */

static void test_no_resend(void)
{
    host_t h;
    uint8_t r[4 * 512], s = 0, e = 0;
    vdrive_t *vd = test_linked("long_fis=2,no_resend=1", &h, 2, 1);   /* the FLUSH's status */
    h.timeout_words = 200000;
    CHECK(host_nodata(&h, 0xE7, 0, &s, &e) == -1, "long status refused and not resent: the host "
          "waits for a status that never comes");
    vdrive_stats_t st = test_stats(vd);
    CHECK(st.frames_not_resent == 1 && st.r_err_received == 1 && st.injected_long_fis == 1,
          "frames_not_resent %llu", (unsigned long long)st.frames_not_resent);
    CHECK(host_nodata(&h, 0xE7, 0, &s, &e) == 0 && s == 0x50,
          "the drive took the command as over: the next one works");
    vdrive_destroy(vd);

    vd = test_linked("long_fis=2", &h, 2, 1);
    CHECK(host_nodata(&h, 0xE7, 0, &s, &e) == 0 && s == 0x50 &&
          test_stats(vd).frames_not_resent == 0, "default: the refused status is sent again");
    vdrive_destroy(vd);

    /* a Data FIS is never resent anyway: its command fails as usual, not counted */
    vd = test_linked("no_resend=1", &h, 2, 1);
    h.refuse_frames = 1;
    CHECK(host_read(&h, 0x25, 0, 4, r, &s, &e) == 0 && s == 0x51 && e == 0x84 &&
          test_stats(vd).frames_not_resent == 0, "refused Data FIS: ICRC|ABRT as always");
    vdrive_destroy(vd);

    /* the signature */
    vd = test_drive("no_resend=1");
    host_init(&h, vd, 2);
    h.refuse_frames = 1;
    uint32_t f[8];
    int ok = 0;
    CHECK(host_link_up(&h, 3000000) == 0 && h.sig_n == 5 && h.rx_refused &&
          host_recv_fis(&h, f, 8, &ok, 50000) == -1 && test_stats(vd).frames_not_resent == 1,
          "a refused signature is not sent again");
    vdrive_destroy(vd);
}

/* ---- rx_fifo -------------------------------------------------------------------------------------- */

static void test_rx_fifo(void)
{
    host_t h;
    static uint8_t w[64 * 512], m[64 * 512];
    uint8_t s = 0, e = 0;
    test_fill(w, sizeof(w), 57);

    vdrive_t *vd = test_linked("rx_fifo=20", &h, 2, 1);
    CHECK(host_write(&h, 0x35, 0, 16, w, &s, &e) == 0 && s == 0x50, "rx_fifo=20: write completes");
    vdrive_read_sectors(vd, 0, 16, m);
    vdrive_stats_t st = test_stats(vd);
    printf("  rx_fifo=20: %llu HOLDs, at most %llu dwords after HOLD, %llu beyond budget, the host "
           "saw HOLD for %llu dword times\n", (unsigned long long)st.rx_hold_count,
           (unsigned long long)st.rx_hold_dwords_max, (unsigned long long)st.rx_hold_over_budget,
           (unsigned long long)h.hold_dwords);
    CHECK(!memcmp(m, w, 16 * 512) && st.rx_hold_count >= 7 && st.rx_hold_count <= 8 &&
          st.rx_hold_dwords_max >= 1 && st.rx_hold_dwords_max <= 8 && st.rx_hold_over_budget == 0,
          "a HOLD every 256 payload dwords, answered within the budget");
    CHECK(h.hold_dwords >= st.rx_hold_count * VD_RX_HOLD_KEEP, "HOLD kept 32 dword times after "
          "HOLDA (%llu)", (unsigned long long)h.hold_dwords);
    vdrive_destroy(vd);

    /* a host slow to answer HOLD: dwords beyond the budget */
    vd = test_linked("rx_fifo=20,rx_hold_every=512", &h, 2, 1);
    h.holda_delay = 30;
    CHECK(host_write(&h, 0x35, 0, 16, w, &s, &e) == 0 && s == 0x50, "slow HOLDA: write completes");
    st = test_stats(vd);
    CHECK(st.rx_hold_count >= 3 && st.rx_hold_dwords_max >= 30 &&
          st.rx_hold_over_budget >= 3 * 10, "30 dwords before HOLDA: max %llu, over budget %llu",
          (unsigned long long)st.rx_hold_dwords_max, (unsigned long long)st.rx_hold_over_budget);
    vdrive_destroy(vd);

    /* the count goes on across Data FISes: 4096 payload dwords are two FISes */
    vd = test_linked("rx_fifo=20,rx_hold_every=4096", &h, 2, 1);
    CHECK(host_write(&h, 0x35, 0, 40, w, &s, &e) == 0 && s == 0x50 &&
          test_stats(vd).rx_hold_count == 1, "rx_hold_every=4096: one HOLD in 40 sectors (%llu)",
          (unsigned long long)test_stats(vd).rx_hold_count);
    vdrive_destroy(vd);

    /* queued writes, and off */
    vd = test_linked("ncq=1,rx_fifo=20", &h, 2, 1);
    host_ncq_req q = { .write = 1, .lba = 100, .count = 32, .buf = w };
    host_ncq_stats ns;
    CHECK(host_ncq_run(&h, &q, 1, 1, &ns) == 0 && q.state == 2 && test_stats(vd).rx_hold_count >= 12,
          "FPDMA write with rx_fifo (%llu HOLDs)", (unsigned long long)test_stats(vd).rx_hold_count);
    vdrive_read_sectors(vd, 100, 32, m);
    CHECK(!memcmp(m, w, 32 * 512), "... its data");
    vdrive_destroy(vd);
    vd = test_linked("persona=ideal", &h, 2, 1);
    host_write(&h, 0x35, 0, 16, w, &s, &e);
    CHECK(test_stats(vd).rx_hold_count == 0 && test_stats(vd).holds_sent == 0, "rx_fifo=0: none");
    vdrive_destroy(vd);
}

/* ---- the fuzzer's later kinds --------------------------------------------------------------- */

static void test_fuzz_kinds(void)
{
    host_t h;
    static uint8_t r[16 * 512], w[16 * 512];
    uint8_t s = 0, e = 0;
    test_fill(w, sizeof(w), 3);
    vdrive_t *vd = test_linked("persona=ideal,ncq=1,fuzz=1,seed=3", &h, 2, 1);
    h.timeout_words = 100000;
    for (int i = 0; i < 120; i++) {
        if (i % 3) {
            host_ncq_req q = { .write = i % 2, .lba = 0, .count = 16, .buf = i % 2 ? w : r };
            host_ncq_stats ns;
            host_ncq_run(&h, &q, 1, 1, &ns);
        } else {
            host_read(&h, 0x25, 0, 16, r, &s, &e);
        }
        idle(&h, 30 * US_DW, -1);        /* room for a PMREQ burst */
        host_link_up(&h, 3000000);
    }
    vdrive_stats_t st = test_stats(vd);
    uint64_t later = st.fuzz_interim + st.fuzz_pmreq + st.fuzz_no_resend + st.fuzz_setup +
                     st.fuzz_long_data;
    printf("  fuzz=1: %llu actions, %llu of the later kinds (interim %llu, pmreq %llu, no_resend "
           "%llu, setup %llu, long_data %llu)\n", (unsigned long long)st.fuzz_applied,
           (unsigned long long)later, (unsigned long long)st.fuzz_interim,
           (unsigned long long)st.fuzz_pmreq, (unsigned long long)st.fuzz_no_resend,
           (unsigned long long)st.fuzz_setup, (unsigned long long)st.fuzz_long_data);
    CHECK(st.fuzz_interim && st.fuzz_pmreq && st.fuzz_no_resend && st.fuzz_setup &&
          st.fuzz_long_data, "every later kind drawn");
    CHECK(later * 4 < st.fuzz_applied && later * 30 > st.fuzz_applied,
          "... with a small weight (%llu of %llu)", (unsigned long long)later,
          (unsigned long long)st.fuzz_applied);
    CHECK(st.pmreq_sent > 0, "fuzz pmreq bursts went out (%llu)", (unsigned long long)st.pmreq_sent);
    uint64_t sum = st.fuzz_long + st.fuzz_short + st.fuzz_unknown + st.fuzz_stray + st.fuzz_extra +
                   st.fuzz_field + st.fuzz_dup + st.fuzz_drop + later;
    CHECK(sum == st.fuzz_applied, "kinds add up");
    char log[8192];
    vdrive_fuzz_log(vd, log, sizeof(log));
    int lines = 0, bad = 0;
    for (char *p = log; *p; p = strchr(p, '\n') + 1) {
        unsigned frame, type;
        char kind[16] = "", field[16] = "";
        int k = sscanf(p, "%u %x %15s %15s", &frame, &type, kind, field);
        lines += k >= 3;
        if (!strcmp(kind, "interim"))
            bad += type != 0x34 || (strcmp(field, "bsy") && strcmp(field, "drq"));
        if (!strcmp(kind, "setup"))
            bad += type != 0x41 || (strcmp(field, "offset") && strcmp(field, "xfer_count"));
        if (!strcmp(kind, "long_data"))
            bad += type != 0x46;
        if (!strcmp(kind, "pmreq"))
            bad += strcmp(field, "partial") && strcmp(field, "slumber");
        if (!strcmp(kind, "no_resend"))
            bad += type == 0x46;
    }
    CHECK(lines == 64 && bad == 0, "fuzz log: the later kinds on the FISes they fit (%d bad)", bad);
    CHECK(host_link_up(&h, 3000000) == 0, "COMRESET brings the drive back");
    vdrive_destroy(vd);
}

void test_hostrules(void)
{
    test_keys();
    test_pio_lost();
    test_pmreq();
    test_interim();
    test_ignore_hold();
    test_data_fis();
    test_setup();
    test_no_resend();
    test_rx_fifo();
    test_fuzz_kinds();
}
