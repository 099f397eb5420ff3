/* SPDX-License-Identifier: BSD-2-Clause */
/* Protocol faults: frames the drive abandons (escape_fis), host frames it terminates (dmat_fis),
 * intact frames that are wrong (long_fis, short_fis, unknown_fis, stray_fis, extra_data), repeats
 * of a refused fault (fault_repeat), a host frame the drive never sees (lose_sof) and the fuzzer
 * (fuzz), through the C test host. */
#include <stdlib.h>

#include "check.h"
#include "host.h"
#include "../src/internal.h"

static int send_cmd(host_t *h, uint8_t op, uint64_t lba, uint32_t count)
{
    uint32_t fis[5];
    host_reg_h2d(fis, op, 0, lba, count);
    return host_send_fis(h, fis, 5, 100000);
}

/* ---- escape_fis ----------------------------------------------------------------------------- */

static void test_escape(void)
{
    host_t h;
    uint8_t r[16 * 512], w[16 * 512], s = 0, e = 0, log[512];
    test_fill(w, sizeof(w), 3);
    vdrive_t *vd = test_linked("escape_fis=2", &h, 2, 0);          /* 1 signature, 2 the Data FIS */
    CHECK(host_read(&h, 0x25, 0, 4, r, &s, &e) == 0 && s == 0x51 && e == 0x04 &&
          h.escapes == 1 && h.escape_len == 4 && h.rx_bytes == 0,
          "escaped Data FIS: SOF + 4 dwords + SYNC, then ABRT (0x%02x/0x%02x, %d dwords)", s, e,
          h.escape_len);
    CHECK(test_stats(vd).injected_escapes == 1, "injected_escapes");
    CHECK(host_read(&h, 0x25, 0, 4, r, &s, &e) == 0 && s == 0x50 && h.rx_bytes == 2048,
          "the next read works");
    vdrive_destroy(vd);

    vd = test_linked("escape_fis=3", &h, 2, 0);                    /* the read's Register D2H */
    CHECK(host_read(&h, 0x25, 0, 1, r, &s, &e) == 0 && s == 0x51 && e == 0x04 &&
          h.escapes == 1 && h.escape_len == 4 && h.rx_bytes == 512,
          "escaped status: an ABRT status follows (0x%02x/0x%02x)", s, e);
    vdrive_destroy(vd);

    vd = test_linked("escape_fis=2", &h, 2, 0);                    /* a write's DMA Activate */
    CHECK(host_write(&h, 0x35, 0, 4, w, &s, &e) == 0 && s == 0x51 && e == 0x04 &&
          h.escape_len == 1, "escaped DMA Activate: 1 dword, then ABRT (%d)", h.escape_len);
    vdrive_destroy(vd);

    vd = test_linked("escape_fis=1,fault_repeat=2", &h, 2, 0);     /* the signature: sent again */
    CHECK(h.sig_n == 5 && h.escapes == 3 && (h.sig[0] >> 16 & 0xFF) == 0x50,
          "escaped signature sent again (3 escapes with fault_repeat=2, then %d dwords)", h.sig_n);
    vdrive_stats_t st = test_stats(vd);
    CHECK(st.injected_escapes == 3 && st.fault_repeats == 2, "escapes %llu repeats %llu",
          (unsigned long long)st.injected_escapes, (unsigned long long)st.fault_repeats);
    vdrive_destroy(vd);

    /* queued: 1 signature, 2 Register D2H (BSY clear), 3 DMA Setup, 4 Data */
    for (int n = 2; n <= 4; n++) {
        char cfg[64];
        snprintf(cfg, sizeof(cfg), "persona=ideal,ncq=1,escape_fis=%d", n);
        vd = test_linked(cfg, &h, 2, 0);
        host_ncq_req q = { .lba = 8, .count = 8, .buf = r };
        host_ncq_stats ns;
        int rc = host_ncq_run(&h, &q, 1, 1, &ns);
        if (n == 2) {
            CHECK(rc == 0 && q.state == 2 && h.escapes == 1,
                  "queued: an escaped command answer is sent again");
        } else {
            CHECK(rc == 1 && ns.err_sdb == 1 && ns.err_status == 0x41 && ns.err_error == 0x04,
                  "queued, FIS %d escaped: NCQ error ABRT (rc %d, 0x%02x/0x%02x)", n, rc,
                  ns.err_status, ns.err_error);
            CHECK(host_read_log(&h, 0x10, log, &s, &e) == 0 && log[0] == 0 && log[3] == 0x04,
                  "queued: log names tag 0, ABRT");
        }
        vdrive_destroy(vd);
    }
}

/* ---- lose_sof ------------------------------------------------------------------------------- */

/* The SOF of the host's first frame is lost: the drive never receives the frame, answers its end
 * with SYNC (neither R_OK nor R_ERR), counts no FIS and no CRC error, and takes the next frame. */
static void test_lose_sof(void)
{
    host_t h;
    uint8_t s = 0, e = 0;
    uint16_t id[256];
    vdrive_t *vd = test_linked("lose_sof=1", &h, 2, 0);
    int rc = send_cmd(&h, 0xEC, 0, 0);                        /* IDENTIFY DEVICE */
    vdrive_stats_t st = test_stats(vd);
    CHECK(rc == -1 && h.level == P_SYNC, "a frame whose SOF is lost: SYNC after its end, no R_OK "
          "or R_ERR (rc %d, level %d)", rc, h.level);
    CHECK(st.injected_lost_sof == 1 && st.fis_h2d == 0 && st.crc_errors_rx == 0 &&
          st.rx_fis_other_errors == 0 && st.cmd_identify == 0,
          "the frame never reached the drive (lost %llu, FISes %llu, CRC errors %llu)",
          (unsigned long long)st.injected_lost_sof, (unsigned long long)st.fis_h2d,
          (unsigned long long)st.crc_errors_rx);
    CHECK(host_identify(&h, id, &s, &e) == 0 && s == 0x50, "the next frame arrives: IDENTIFY "
          "works (0x%02x)", s);
    st = test_stats(vd);
    CHECK(st.injected_lost_sof == 1 && st.fis_h2d == 1 && st.cmd_identify == 1, "one SOF lost");
    vdrive_destroy(vd);
}

/* ---- dmat_fis ------------------------------------------------------------------------------- */

static void test_dmat(void)
{
    host_t h;
    static uint8_t w[40 * 512], m[40 * 512];
    uint8_t s = 0, e = 0, zero[512] = { 0 };
    test_fill(w, sizeof(w), 17);
    vdrive_t *vd = test_linked("dmat_fis=1", &h, 2, 0);
    CHECK(host_write(&h, 0x35, 0, 16, w, &s, &e) == 0 && s == 0x51 && e == 0x04 && h.dmat_seen,
          "DMAT: the host ends its frame, the drive aborts the command (0x%02x/0x%02x)", s, e);
    vdrive_stats_t st = test_stats(vd);
    printf("  DMAT: host frame of %d dwords, %llu payload dwords after the first DMAT\n",
           h.sent_dwords, (unsigned long long)st.dmat_dwords_after);
    CHECK(st.dmat_sent == 1 && st.dmat_dwords_after <= 4 && h.sent_dwords >= 17 &&
          h.sent_dwords <= 21, "DMAT after 16 payload dwords, honoured within 4 (%llu)",
          (unsigned long long)st.dmat_dwords_after);
    vdrive_read_sectors(vd, 0, 1, m);
    CHECK(!memcmp(m, zero, 512) && st.crc_errors_rx == 0, "nothing written, good CRC");
    CHECK(host_write(&h, 0x35, 0, 16, w, &s, &e) == 0 && s == 0x50, "the next write works");
    vdrive_destroy(vd);

    vd = test_linked("dmat_fis=1,dmat_resume=1", &h, 2, 0);
    CHECK(host_write(&h, 0x35, 100, 40, w, &s, &e) == 0 && s == 0x50 && h.protocol_errors == 0,
          "dmat_resume: a DMA Activate for the rest, the command completes (0x%02x)", s);
    vdrive_read_sectors(vd, 100, 40, m);
    CHECK(!memcmp(m, w, sizeof(w)) && test_stats(vd).dmat_sent == 1 &&
          test_stats(vd).bytes_written == sizeof(w), "dmat_resume: all the data arrived");
    vdrive_destroy(vd);

    vd = test_linked("dmat_fis=1", &h, 2, 0);
    h.ignore_dmat = 1;
    CHECK(host_write(&h, 0x35, 0, 16, w, &s, &e) == 0 && s == 0x51 && e == 0x04,
          "a host that ignores DMAT: the drive still aborts");
    CHECK(test_stats(vd).dmat_dwords_after > 2000, "dmat_dwords_after %llu shows it",
          (unsigned long long)test_stats(vd).dmat_dwords_after);
    vdrive_destroy(vd);

    /* queued writes: an NCQ error, or the rest through a DMA Activate */
    for (int resume = 0; resume < 2; resume++) {
        vd = test_linked(resume ? "persona=ideal,ncq=1,dmat_fis=2,dmat_resume=1"
                           : "persona=ideal,ncq=1,dmat_fis=2", &h, 2, 0);
        host_ncq_req q = { .write = 1, .lba = 300, .count = 40, .buf = w };
        host_ncq_stats ns;
        int rc = host_ncq_run(&h, &q, 1, 1, &ns);
        if (resume) {
            vdrive_read_sectors(vd, 300, 40, m);
            CHECK(rc == 0 && q.state == 2 && ns.protocol_errors == 0 && !memcmp(m, w, sizeof(w)),
                  "queued write, DMAT on its second Data FIS, resumed");
        } else {
            CHECK(rc == 1 && ns.err_sdb == 1 && ns.err_error == 0x04,
                  "queued write, DMAT: NCQ error ABRT (rc %d, 0x%02x)", rc, ns.err_error);
        }
        CHECK(test_stats(vd).dmat_sent == 1, "queued DMAT counted");
        vdrive_destroy(vd);
    }
}

/* ---- intact frames that are wrong ------------------------------------------------------------- */

static void test_wrong_frames(void)
{
    host_t h;
    uint32_t f[2100];
    uint8_t r[16 * 512], s = 0, e = 0;
    int ok = 0, n;

    vdrive_t *vd = test_linked("long_fis=1", &h, 2, 0);
    CHECK(h.sig_n == 7 && h.rx_crc_good && (h.sig[1] & 0xFFFFFF) == 1,
          "long_fis: a 7-dword signature with a good CRC (%d)", h.sig_n);
    vdrive_destroy(vd);
    vd = test_linked("long_fis=1", &h, 2, 1);
    n = host_recv_fis(&h, f, 8, &ok, 100000);
    CHECK(h.sig_n == 7 && h.rx_refused == 0 && n == 5 && ok && test_stats(vd).r_err_received == 1 &&
          test_stats(vd).injected_long_fis == 1, "long_fis: a strict host refuses it, the resend is "
          "right (%d)", n);
    vdrive_destroy(vd);
    vd = test_linked("long_fis=2", &h, 2, 0);
    CHECK(host_read(&h, 0x25, 0, 1, r, &s, &e) == 0 && s == 0x50 && h.overrun == 8,
          "long Data FIS: 8 bytes too many (%zu)", h.overrun);
    vdrive_destroy(vd);

    vd = test_linked("short_fis=1", &h, 2, 0);
    CHECK(h.sig_n == 4 && h.rx_crc_good, "short_fis: a 4-dword signature, good CRC (%d)", h.sig_n);
    vdrive_destroy(vd);
    /* a DMA Activate cannot be shortened: the next FIS is */
    vd = test_linked("short_fis=2", &h, 2, 0);
    send_cmd(&h, 0x35, 0, 1);
    n = host_recv_fis(&h, f, 8, &ok, 100000);
    CHECK(n == 1 && ok && (f[0] & 0xFF) == 0x39, "short_fis on a DMA Activate: untouched");
    f[0] = 0x46;
    memset(&f[1], 0, 512);
    host_send_fis(&h, f, 129, 100000);
    n = host_recv_fis(&h, f, 8, &ok, 100000);
    CHECK(n == 4 && ok && (f[0] & 0xFF) == 0x34 && test_stats(vd).injected_short_fis == 1,
          "... the status after it is 4 dwords (%d)", n);
    vdrive_destroy(vd);

    vd = test_linked("unknown_fis=2", &h, 2, 0);
    send_cmd(&h, 0xEC, 0, 0);
    n = host_recv_fis(&h, f, 8, &ok, 100000);
    CHECK(n == 2 && ok && f[0] == 0xD9 && f[1] == 0, "unknown_fis: a D9h frame of 2 dwords");
    n = host_recv_fis(&h, f, 8, &ok, 100000);
    CHECK(n == 5 && (f[0] & 0xFF) == 0x5F, "... then the PIO Setup");
    vdrive_destroy(vd);
    vd = test_linked("unknown_fis=2", &h, 2, 0);
    uint16_t id[256];
    CHECK(host_identify(&h, id, &s, &e) == 0 && s == 0x50 && h.protocol_errors == 1 &&
          test_stats(vd).injected_unknown_fis == 1, "unknown_fis: the host notices, IDENTIFY goes on");
    vdrive_destroy(vd);

    vd = test_linked("stray_fis=1", &h, 2, 0);
    n = host_recv_fis(&h, f, 8, &ok, 100000);
    CHECK(n == 5 && ok && f[0] == (0x34u | 1u << 14 | 0x50u << 16) && (f[3] & 0xFFFF) == 0 &&
          test_stats(vd).injected_stray_fis == 1, "stray_fis: a Register D2H 50h, I=1, once idle");
    vdrive_destroy(vd);
    vd = test_linked("stray_fis=2", &h, 2, 0);                     /* after a read's Data FIS */
    send_cmd(&h, 0x25, 0, 1);
    int t1 = host_recv_fis(&h, f, 200, &ok, 100000) == 129 && (f[0] & 0xFF) == 0x46;
    int t2 = host_recv_fis(&h, f, 8, &ok, 100000) == 5 && (f[0] & 0x4000) && f[1] == 0x40000000u;
    int t3 = host_recv_fis(&h, f, 8, &ok, 100000) == 5 && f[0] == (0x34u | 1u << 14 | 0x50u << 16)
             && f[1] == 0x40000000u;
    CHECK(t1 && t2 && t3, "stray_fis: Data, the command's status, then the stray (%d%d%d)", t1, t2,
          t3);
    vdrive_destroy(vd);

    vd = test_linked("extra_data=1", &h, 2, 0);
    CHECK(host_read(&h, 0x25, 0, 16, r, &s, &e) == 0 && s == 0x50 && h.overrun == 4,
          "extra_data: one dword more than count x 512 (%zu)", h.overrun);
    vdrive_destroy(vd);
    vd = test_linked("extra_data=1", &h, 2, 0);
    send_cmd(&h, 0x25, 0, 2);
    n = host_recv_fis(&h, f, 2100, &ok, 100000);
    CHECK(n == 258 && ok && f[257] == 0 && test_stats(vd).injected_extra_data == 1,
          "extra_data: 257 payload dwords for 2 sectors, good CRC (%d)", n);
    vdrive_destroy(vd);
}

/* ---- fault_repeat --------------------------------------------------------------------------- */

static void test_repeat(void)
{
    host_t h;
    uint8_t s = 0, e = 0;
    uint32_t f[16];
    int ok = 0;
    vdrive_t *vd = test_linked("crc_error_fis=2,fault_repeat=3", &h, 2, 0);   /* the FLUSH's status */
    CHECK(host_nodata(&h, 0xE7, 0, &s, &e) == 0 && s == 0x50, "repeat: FLUSH completes");
    vdrive_stats_t st = test_stats(vd);
    CHECK(st.r_err_received == 4 && st.injected_crc == 4 && st.fault_repeats == 3,
          "repeat: the bad CRC 4 times (%llu, %llu, %llu)", (unsigned long long)st.r_err_received,
          (unsigned long long)st.injected_crc, (unsigned long long)st.fault_repeats);
    vdrive_destroy(vd);

    vd = test_linked("crc_error_fis=1,fault_repeat=1000", &h, 2, 0);          /* the signature */
    int bad = !h.rx_crc_good, n = 0;
    for (int i = 0; i < 1100 && !(n == 5 && ok); i++) {
        n = host_recv_fis(&h, f, 16, &ok, 100000);
        if (n > 0 && !ok)
            bad++;
    }
    st = test_stats(vd);
    CHECK(bad == 1001 && n == 5 && ok && st.fault_repeats == 1000 && st.r_err_received == 1001,
          "fault_repeat=1000: 1001 bad signatures, then a good one (%d, %llu)", bad,
          (unsigned long long)st.fault_repeats);
    vdrive_destroy(vd);

    vd = test_linked("long_fis=2,fault_repeat=2", &h, 2, 1);
    CHECK(host_nodata(&h, 0xEA, 0, &s, &e) == 0 && s == 0x50 && test_stats(vd).injected_long_fis == 3 &&
          test_stats(vd).r_err_received == 3, "long_fis, repeat 2: a strict host refuses it 3 times");
    vdrive_destroy(vd);

    vd = test_linked("unknown_fis=2,fault_repeat=2", &h, 2, 1);
    uint16_t id[256];
    CHECK(host_identify(&h, id, &s, &e) == 0 && s == 0x50 && test_stats(vd).injected_unknown_fis == 3 &&
          test_stats(vd).r_err_received == 3 && test_stats(vd).fault_repeats == 2,
          "unknown_fis, repeat 2: refused 3 times, then dropped");
    vdrive_destroy(vd);

    vd = test_linked("stray_fis=1,fault_repeat=1", &h, 2, 0);
    h.refuse_frames = 5;
    int strays = 0;
    while (host_recv_fis(&h, f, 16, &ok, 20000) == 5)
        strays++;
    CHECK(strays == 2 && test_stats(vd).injected_stray_fis == 2, "stray refused: sent %d times", strays);
    vdrive_destroy(vd);

    vd = test_linked("rerr_fis=1,fault_repeat=2", &h, 2, 0);
    uint32_t fis[5];
    host_reg_h2d(fis, 0xEC, 0, 0, 0);
    int refused = 0;
    while (refused < 10 && host_send_fis(&h, fis, 5, 100000) == 0)
        refused++;
    n = host_recv_fis(&h, f, 16, &ok, 100000);
    CHECK(refused == 3 && n == 5 && (f[0] & 0xFF) == 0x5F && test_stats(vd).injected_rerr == 3,
          "rerr_fis, repeat 2: the host's resends refused 3 times (%d)", refused);
    vdrive_destroy(vd);

    /* the drive's own limit: 3 resends, 3 + K while a repeated fault is active */
    for (int k = 0; k <= 5; k += 5) {
        char cfg[64];
        snprintf(cfg, sizeof(cfg), "crc_error_fis=2,fault_repeat=%d", k);
        vd = test_linked(cfg, &h, 2, 0);
        h.refuse_frames = 100;
        h.timeout_words = 100000;
        host_nodata(&h, 0xE7, 0, &s, &e);
        CHECK(test_stats(vd).r_err_received == 4u + (unsigned)k, "fault_repeat=%d: %llu sends", k,
              (unsigned long long)test_stats(vd).r_err_received);
        vdrive_destroy(vd);
    }
}

/* ---- fuzz ---------------------------------------------------------------------------------- */

struct fuzz_run {
    int ok_reads, ok_writes, failed, resets, reset_fail, data_bad;
    char log[8192], json[8192];
    vdrive_stats_t st;
};

/* A careful host: strict frames, a command counts only with status 50h and the exact data; on
 * anything else it resets the drive (COMRESET) and goes on. */
static void fuzz_run(const char *cfg, struct fuzz_run *o)
{
    static uint8_t w[16 * 512], r[16 * 512], m[16 * 512];
    memset(o, 0, sizeof(*o));
    host_t h;
    vdrive_t *vd = test_linked(cfg, &h, 2, 1);
    h.timeout_words = 300000;
    for (int i = 0; i < 60; i++) {
        uint64_t lba = (uint64_t)(i % 8) * 16;
        uint8_t s = 0, e = 0;
        int wr = i % 3 == 0, rc;
        if (wr) {
            test_fill(w, sizeof(w), (uint32_t)i);
            rc = host_write(&h, 0x35, lba, 16, w, &s, &e);
        } else {
            rc = host_read(&h, 0x25, lba, 16, r, &s, &e);
        }
        int good = rc == 0 && s == 0x50 && !h.overrun && !h.protocol_errors &&
                   (wr || h.rx_bytes == sizeof(r));
        if (good && !wr) {
            vdrive_read_sectors(vd, lba, 16, m);
            o->data_bad += memcmp(m, r, sizeof(r)) != 0;
        }
        if (good) {
            o->ok_reads += !wr;
            o->ok_writes += wr;
            continue;
        }
        o->failed++;
        o->resets++;
        o->reset_fail += host_link_up(&h, 3000000) != 0;
    }
    vdrive_fuzz_log(vd, o->log, sizeof(o->log));
    vdrive_stats_json(vd, o->json, sizeof(o->json));
    vdrive_stats_t st = o->st = test_stats(vd);
    uint64_t sum = st.fuzz_long + st.fuzz_short + st.fuzz_unknown + st.fuzz_stray + st.fuzz_extra +
                   st.fuzz_field + st.fuzz_dup + st.fuzz_drop + st.fuzz_interim + st.fuzz_pmreq +
                   st.fuzz_no_resend + st.fuzz_setup + st.fuzz_long_data;
    CHECK(sum == st.fuzz_applied && st.fuzz_applied > 0, "%s: %llu fuzz actions", cfg,
          (unsigned long long)st.fuzz_applied);
    vdrive_destroy(vd);
}

/* Every Data FIS with a good CRC carries the media's bytes at one of its command's 8 KiB steps. */
static void test_fuzz_payload(void)
{
    static uint8_t media[64 * 512];
    static uint32_t f[2100];
    host_t h;
    vdrive_t *vd = test_linked("persona=ideal,fuzz=1,seed=11", &h, 2, 0);
    test_fill(media, sizeof(media), 5);
    vdrive_write_sectors(vd, 0, 64, media);
    int data = 0, wrong = 0, relinks = 0;
    for (int i = 0; i < 30; i++) {
        send_cmd(&h, 0x25, 0, 64);
        for (int k = 0; k < 12; k++) {
            int ok = 0, n = host_recv_fis(&h, f, 2100, &ok, 30000);
            if (n < 0)
                break;
            if (!ok || (f[0] & 0xFF) != 0x46 || n < 2)
                continue;
            int len = n - 1 < 2048 ? n - 1 : 2048, hit = 0;
            for (int j = 0; j < 4 && !hit; j++)
                hit = !memcmp(&f[1], media + (size_t)j * 8192, (size_t)len * 4);
            data++;
            wrong += !hit;
        }
        relinks += host_link_up(&h, 3000000) == 0;
    }
    char log[8192];
    vdrive_fuzz_log(vd, log, sizeof(log));
    int lines = 0, bad_field = 0;
    for (char *p = log; *p; p = strchr(p, '\n') + 1) {
        unsigned frame, type;
        char kind[16] = "";
        lines += sscanf(p, "%u %x %15s", &frame, &type, kind) == 3;
        if (!strcmp(kind, "field"))
            bad_field += type != 0x34 && type != 0x5F && type != 0x41 && type != 0xA1 && type != 0x39;
        if (!strcmp(kind, "extra"))
            bad_field += type != 0x46;
    }
    CHECK(data > 30 && wrong == 0, "fuzz=1: %d Data FISes, %d with other bytes than the media's",
          data, wrong);
    CHECK(relinks == 30, "fuzz=1: every COMRESET brought the drive back (%d)", relinks);
    CHECK(lines == 64 && bad_field == 0, "fuzz log: %d lines, fields on control FISes only", lines);
    vdrive_destroy(vd);
}

static void test_fuzz(void)
{
    static struct fuzz_run a, b, c;
    fuzz_run("persona=ideal,fuzz=0.05,seed=5", &a);
    fuzz_run("persona=ideal,fuzz=0.05,seed=5", &b);
    fuzz_run("persona=ideal,fuzz=0.05,seed=6", &c);
    printf("  fuzz=0.05: %d reads and %d writes right, %d failed (reset), log of %zu bytes\n",
           a.ok_reads, a.ok_writes, a.failed, strlen(a.log));
    CHECK(!strcmp(a.log, b.log) && !strcmp(a.json, b.json) && a.failed == b.failed,
          "fuzz is reproducible from the seed");
    CHECK(strcmp(a.log, c.log) != 0, "another seed, other faults");
    CHECK(a.reset_fail == 0 && c.reset_fail == 0 && a.data_bad == 0 && c.data_bad == 0,
          "fuzz: every COMRESET works, no read accepted with wrong data");
    CHECK(a.ok_reads + a.ok_writes > 20 && a.failed > 0, "fuzz: %d good commands, %d failed",
          a.ok_reads + a.ok_writes, a.failed);
    char line[64] = "";
    sscanf(a.log, "%63[^\n]", line);
    unsigned frame = 0, type = 0;
    char kind[16] = "";
    CHECK(sscanf(line, "%u %x %15s", &frame, &type, kind) == 3 && frame > 0,
          "fuzz log line: '%s'", line);
    test_fuzz_payload();
}

/* The fuzzer switched at run time: the API, and the `control` file the drive polls. */
static void test_fuzz_control(void)
{
    const char *path = "build/test_control.txt";
    char cfg[128];
    FILE *f = fopen(path, "w");
    fputs("fuzz=0\n", f);
    fclose(f);
    snprintf(cfg, sizeof cfg, "fuzz=0.5,control=%s", path);
    vdrive_t *vd = test_drive(cfg);
    CHECK(vdrive_set_fuzz(vd, 1.5) == -1 && vd->cfg.fuzz == 0.5, "set_fuzz refuses 1.5");
    CHECK(vdrive_set_fuzz(vd, 0.25) == 0 && vd->cfg.fuzz == 0.25, "set_fuzz 0.25");
    for (int i = 0; i < VDRIVE_CONTROL_WORDS; i++)
        vdrive_step(vd, 0, 2, NULL);
    CHECK(vd->cfg.fuzz == 0.0, "control file: fuzz=0 read (%g)", vd->cfg.fuzz);
    vdrive_set_fuzz(vd, 0.1);
    for (int i = 0; i < VDRIVE_CONTROL_WORDS; i++)      /* unchanged file: not read again */
        vdrive_step(vd, 0, 2, NULL);
    CHECK(vd->cfg.fuzz == 0.1, "control file read only when it changes (%g)", vd->cfg.fuzz);
    vdrive_destroy(vd);
    remove(path);

    /* switched on at run time, the fuzzer acts on the next frames (the drive had no fault key) */
    host_t h;
    vd = test_linked("persona=ideal", &h, 2, 0);
    vdrive_set_fuzz(vd, 1.0);
    uint8_t s = 0, e = 0;
    uint16_t id[256];
    for (int i = 0; i < 4; i++)
        host_identify(&h, id, &s, &e);
    CHECK(test_stats(vd).fuzz_applied > 0, "set_fuzz at run time: %llu frames fuzzed",
          (unsigned long long)test_stats(vd).fuzz_applied);
    vdrive_destroy(vd);
}

/* ---- fuzz_kinds ----------------------------------------------------------------------------- */

#define KB(k) (1u << FZ_##k)

static void test_fuzz_kinds_key(void)
{
    static const struct { const char *v; uint32_t skip; } good[] = {
        { "all", 0 },
        { "-drop", KB(DROP) },
        { "-drop-no_resend", KB(DROP) | KB(NO_RESEND) },
        { "drop", VD_FZ_ALL & ~KB(DROP) },
        { "long+short+unknown", VD_FZ_ALL & ~(KB(LONG) | KB(SHORT) | KB(UNKNOWN)) },
        { " long_data ", VD_FZ_ALL & ~KB(LONG_DATA) },
        { "dup+dup", VD_FZ_ALL & ~KB(DUP) },
        { "long+short+unknown+stray+extra+field+dup+drop+interim+pmreq+no_resend+setup+long_data",
          0 },
        { "-long-short-unknown-stray-extra-field-dup-drop-interim-pmreq-no_resend-setup-long_data",
          VD_FZ_ALL },
    };
    static const char *const bad[] = {
        "x", "", "+long", "long+", "-", "--drop", "-drop-", "long-drop", "-drop+long", "fuzz_drop",
        "all+long", "-all", "Drop", "long +short", "drop2",
    };
    char cfg[160], err[512];
    vdrive_config_t c;
    vdrive_config_defaults(&c);
    CHECK(c.fuzz_skip == 0, "fuzz_kinds: default all");
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        vdrive_config_defaults(&c);
        c.fuzz_skip = 0x5A5A;
        snprintf(cfg, sizeof cfg, "fuzz_kinds=%s", good[i].v);
        int rc = vdrive_config_parse(&c, cfg, err, sizeof err);
        CHECK(rc == 0 && c.fuzz_skip == good[i].skip, "fuzz_kinds=%s: left out 0x%x (rc %d)",
              good[i].v, c.fuzz_skip, rc);
    }
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        vdrive_config_defaults(&c);
        snprintf(cfg, sizeof cfg, "fuzz=0.5,fuzz_kinds=%s", bad[i]);
        char want[64];
        snprintf(want, sizeof want, "vdrive: bad value '%s' for key 'fuzz_kinds' (", bad[i]);
        err[0] = 0;
        int rc = vdrive_config_parse(&c, cfg, err, sizeof err);
        CHECK(rc == -1 && !strncmp(err, want, strlen(want)) && c.fuzz_skip == 0 && c.fuzz == 0,
              "fuzz_kinds=%s refused: %s", bad[i], err);
    }
    CHECK(!vdrive_create_str("fuzz_kinds=x", err, sizeof err) &&
          !strcmp(err, "vdrive: bad value 'x' for key 'fuzz_kinds' (all, or kinds joined by +, or "
                       "-kind-kind... to leave kinds out; kinds: long short unknown stray extra "
                       "field dup drop interim pmreq no_resend setup long_data)"),
          "the error names the kinds: %s", err);
    vdrive_config_defaults(&c);
    c.fuzz_skip = VD_FZ_ALL + 1;
    CHECK(!vdrive_create(&c, err, sizeof err) && strstr(err, "key 'fuzz_kinds'"),
          "vdrive_create refuses fuzz_skip beyond the kinds: %s", err);
}

/* What the fuzzer did to one frame, called directly (no link): the frame's first dwords after it,
 * its answer, the log entry it wrote and the state it left for later. */
struct fz_step {
    uint32_t dw[8];
    unsigned r;
    int drop, no_resend, logged, pm_due;
    uint8_t interim, kind, field, type;
    uint32_t frame;
};

/* The i-th frame of a cycle through every FIS type the drive sends (two Data FIS lengths). */
static int fz_frame(struct vd_txframe *f, int i)
{
    static const uint8_t type[] = { FIS_REG_D2H, FIS_DATA, FIS_DMA_SETUP, FIS_SDB, FIS_DMA_ACT,
                                    FIS_PIO_SETUP, FIS_DATA };
    static const int len[] = { 5, 129, 7, 2, 1, 5, 1 + VD_DATA_MAX_DW };
    int k = i % 7;
    memset(f, 0, sizeof(*f));
    for (int j = 0; j < 8; j++)
        f->dw[j] = 0x01010101u * (uint32_t)(j + 1);
    f->dw[0] = type[k] | 0x50u << 16;
    f->dw[5] = 0x2000;
    f->is_data = type[k] == FIS_DATA;
    return len[k];
}

static void fz_steps(const char *cfg, struct fz_step *s, int count, vdrive_stats_t *st)
{
    static struct vd_txframe f;
    vdrive_t *vd = test_drive(cfg);
    for (int i = 0; i < count; i++) {
        int n = fz_frame(&f, i);
        vd->d2h_fis_n++;
        uint32_t before = vd->flt.log_n;
        s[i].r = vd_fuzz_frame(vd, &f, n);
        memcpy(s[i].dw, f.dw, sizeof(s[i].dw));
        s[i].drop = f.drop;
        s[i].no_resend = f.no_resend;
        s[i].logged = vd->flt.log_n - before;
        const struct vd_fuzz_entry *e = &vd->flt.log[before % VD_FUZZ_LOG];
        s[i].frame = s[i].logged ? e->frame : 0;
        s[i].type = s[i].logged ? e->type : 0;
        s[i].kind = s[i].logged ? e->kind : 0;
        s[i].field = s[i].logged ? e->field : 0;
        s[i].interim = vd->flt.interim_status;
        s[i].pm_due = vd->flt.pm_due;
        vd->flt.interim_status = 0;
        vd->flt.pm_due = 0;
    }
    *st = test_stats(vd);
    vdrive_destroy(vd);
}

static int fz_same(const struct fz_step *a, const struct fz_step *b)
{
    return !memcmp(a->dw, b->dw, sizeof(a->dw)) && a->r == b->r && a->drop == b->drop &&
           a->no_resend == b->no_resend && a->logged == b->logged && a->pm_due == b->pm_due &&
           a->interim == b->interim && a->kind == b->kind && a->field == b->field &&
           a->type == b->type && a->frame == b->frame;
}

static uint64_t fz_count(const vdrive_stats_t *st, int k)
{
    const uint64_t *c[FZ_KINDS] = {
        &st->fuzz_long, &st->fuzz_short, &st->fuzz_unknown, &st->fuzz_stray, &st->fuzz_extra,
        &st->fuzz_field, &st->fuzz_dup, &st->fuzz_drop, &st->fuzz_interim, &st->fuzz_pmreq,
        &st->fuzz_no_resend, &st->fuzz_setup, &st->fuzz_long_data
    };
    return *c[k];
}

/* Frame by frame, a kind left out changes exactly the frames that drew it (they stay intact) and
 * no other: the same seed gives the other kinds the same frames, fields and values. */
static void test_fuzz_kinds_frames(void)
{
    enum { N = 1400 };
    static struct fz_step all[N], part[N], intact;
    static struct vd_txframe f;
    static const struct { const char *kinds; uint32_t skip; } runs[] = {
        { "-drop", KB(DROP) },
        { "drop", VD_FZ_ALL & ~KB(DROP) },
        { "long+short+unknown", VD_FZ_ALL & ~(KB(LONG) | KB(SHORT) | KB(UNKNOWN)) },
        { "-field-interim-pmreq-setup", KB(FIELD) | KB(INTERIM) | KB(PMREQ) | KB(SETUP) },
    };
    vdrive_stats_t sa, sp;
    fz_steps("fuzz=0.5,seed=9", all, N, &sa);
    int kinds_seen = 0;
    for (int k = 0; k < FZ_KINDS; k++)
        kinds_seen += fz_count(&sa, k) > 0;
    CHECK(kinds_seen == FZ_KINDS, "direct fuzz calls: every kind drawn (%d of %d, %llu actions)",
          kinds_seen, FZ_KINDS, (unsigned long long)sa.fuzz_applied);
    for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
        char cfg[96];
        snprintf(cfg, sizeof cfg, "fuzz=0.5,seed=9,fuzz_kinds=%s", runs[r].kinds);
        fz_steps(cfg, part, N, &sp);
        int kept = 0, left_out = 0, wrong = 0;
        for (int i = 0; i < N; i++) {
            if (all[i].logged && (runs[r].skip >> all[i].kind & 1)) {
                left_out++;
                fz_frame(&f, i);
                memcpy(intact.dw, f.dw, sizeof(intact.dw));
                wrong += !fz_same(&part[i], &intact);      /* untouched, nothing logged */
            } else {
                kept += all[i].logged;
                wrong += !fz_same(&part[i], &all[i]);
            }
        }
        int counts = 0;
        for (int k = 0; k < FZ_KINDS; k++)
            counts += fz_count(&sp, k) == ((runs[r].skip >> k & 1) ? 0 : fz_count(&sa, k));
        CHECK(wrong == 0 && left_out > 0 && kept > 0 && counts == FZ_KINDS &&
              sp.fuzz_applied == (uint64_t)kept,
              "fuzz_kinds=%s: %d of %d frames differ from the full run beyond the %d left intact "
              "(%d actions kept, %d counts as expected)", runs[r].kinds, wrong, N, left_out, kept,
              counts);
    }
}

/* Through the link: up to the first frame the full run drops, a run without drops makes the same
 * decisions (the same log lines, so the same counts of every kind); then never a drop. With
 * fuzz_kinds=drop, drops only. */
static void test_fuzz_kinds_run(void)
{
    static struct fuzz_run a, b, c;
    const char *cfg = "persona=ideal,fuzz=0.1,seed=10";
    char cfg2[96];
    fuzz_run(cfg, &a);
    snprintf(cfg2, sizeof cfg2, "%s,fuzz_kinds=-drop", cfg);
    fuzz_run(cfg2, &b);
    char *drop = strstr(a.log, " drop\n");
    size_t before = 0;
    int lines = 0;
    if (drop) {
        while (drop > a.log && drop[-1] != '\n')
            drop--;
        before = (size_t)(drop - a.log);
        for (size_t i = 0; i < before; i++)
            lines += a.log[i] == '\n';
    }
    unsigned drop_frame = 0, b_frame = 0;
    if (drop)
        sscanf(drop, "%u", &drop_frame);
    if (strlen(b.log) > before)
        sscanf(b.log + before, "%u", &b_frame);
    printf("  fuzz=0.1,seed=10: %llu actions, the first drop at frame %u after %d others; with "
           "fuzz_kinds=-drop %llu actions\n", (unsigned long long)a.st.fuzz_applied, drop_frame,
           lines, (unsigned long long)b.st.fuzz_applied);
    CHECK(drop && lines >= 3 && a.st.fuzz_applied <= VD_FUZZ_LOG && a.st.fuzz_drop > 0,
          "the full run drops a frame after %d other actions, its log complete", lines);
    CHECK(!strncmp(a.log, b.log, before) && (b_frame == 0 || b_frame > drop_frame),
          "fuzz_kinds=-drop: the same %d actions up to the first drop (frame %u), none there "
          "(next at %u)", lines, drop_frame, b_frame);
    CHECK(b.st.fuzz_drop == 0 && b.st.fuzz_applied > 0 && !strstr(b.log, " drop\n"),
          "fuzz_kinds=-drop: no drop in %llu actions", (unsigned long long)b.st.fuzz_applied);
    snprintf(cfg2, sizeof cfg2, "%s,fuzz_kinds=drop", cfg);
    fuzz_run(cfg2, &c);
    int other = 0;
    for (char *p = c.log; *p; p = strchr(p, '\n') + 1) {
        char kind[16] = "";
        sscanf(p, "%*u %*x %15s", kind);
        other += strcmp(kind, "drop") != 0;
    }
    CHECK(c.st.fuzz_drop > 0 && c.st.fuzz_applied == c.st.fuzz_drop && other == 0,
          "fuzz_kinds=drop: %llu actions, all drops", (unsigned long long)c.st.fuzz_applied);
    CHECK(b.reset_fail == 0 && c.reset_fail == 0 && b.data_bad == 0 && c.data_bad == 0,
          "fuzz_kinds: every COMRESET works, no read accepted with wrong data");
}

void test_protocol(void)
{
    test_escape();
    test_lose_sof();
    test_dmat();
    test_wrong_frames();
    test_repeat();
    test_fuzz();
    test_fuzz_control();
    test_fuzz_kinds_key();
    test_fuzz_kinds_frames();
    test_fuzz_kinds_run();
}
