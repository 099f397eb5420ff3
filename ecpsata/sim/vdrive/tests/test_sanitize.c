/* SPDX-License-Identifier: BSD-2-Clause */
/* SANITIZE through the C test host: BLOCK ERASE / CRYPTO SCRAMBLE progress and their end in
 * zeros, the commands a running operation aborts and those it lets through, COMRESET during the
 * operation, the freeze and antifreeze locks, an image file, the link dropped halfway
 * (sanitize_drop_ms). */
#include <fcntl.h>
#include <unistd.h>

#include "check.h"
#include "health_cmds.h"

/* ---- SANITIZE -------------------------------------------------------------------------------- */

static int all_zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return 0;
    return 1;
}

/* sanitize_drop_ms: halfway through the operation the link drops and COMRESET goes unanswered
 * for the time given; then the host links again and finds the erase still running. Once. */
static void test_sanitize_drop(void)
{
    host_t h;
    uint8_t s = 0, e = 0;
    char err[256];
    vdrive_t *vd = vdrive_create_str("sanitize_drop_ms=600001", err, sizeof(err));
    CHECK(!vd && strstr(err, "bad value '600001' for key 'sanitize_drop_ms' (0..600000 ms)"),
          "sanitize_drop_ms=600001 refused: %s", err);
    vdrive_destroy(vd);
    vd = test_linked("persona=ideal,capacity=4096,sanitize=1,sanitize_ms=4,sanitize_drop_ms=1",
                     &h, 2, 1);
    CHECK(sanitize(&h, 0x0012, KEY_BLOCK, &s, &e) == 0 && s == 0x50, "BLOCK ERASE started");
    uint64_t t0 = vdrive_time_ps(vd);
    idle_us(&h, 1500);
    CHECK(sanitize(&h, 0x0000, 0, &s, &e) == 0 && s == 0x50 && d2h_count(&h) == 0x4000 &&
          test_stats(vd).injected_drops == 0, "1.5 ms in: linked, the erase in progress");
    idle_us(&h, 700);
    vdrive_stats_t st = test_stats(vd);
    CHECK(st.injected_drops == 1 && st.phyrdy_lost == 1 && st.gen == 0,
          "2.2 ms in: the link dropped halfway (drops %llu, PhyRdy lost %llu, gen %llu)",
          (unsigned long long)st.injected_drops, (unsigned long long)st.phyrdy_lost,
          (unsigned long long)st.gen);
    uint64_t cominit = st.cominit_sent;
    host_send_oob(&h, 0);
    CHECK(host_wait_oob(&h, 60000) == -1 && test_stats(vd).comreset_ignored == 1 &&
          test_stats(vd).cominit_sent == cominit, "COMRESET during the silence: no COMINIT");
    while (vdrive_time_ps(vd) < t0 + 3100000000ull)
        host_cycle(&h, PRIM_SYNC, 1);
    CHECK(host_link_up(&h, 3000000) == 0, "after 1 ms of silence: COMRESET answered, linked");
    CHECK(sanitize(&h, 0x0000, 0, &s, &e) == 0 && s == 0x50 && d2h_count(&h) == 0x4000 &&
          d2h_lba(&h) > 0xC000 && d2h_lba(&h) < 0xFFFF, "the erase went on: in progress, "
          "0x%04llx", (unsigned long long)d2h_lba(&h));
    idle_us(&h, 1200);
    CHECK(sanitize(&h, 0x0000, 0, &s, &e) == 0 && s == 0x50 && d2h_count(&h) == 0x8000 &&
          d2h_lba(&h) == 0xFFFF, "then completed without error");
    CHECK(sanitize(&h, 0x0011, KEY_CRYPTO, &s, &e) == 0 && s == 0x50, "a second erase");
    idle_us(&h, 4200);
    st = test_stats(vd);
    CHECK(st.injected_drops == 1 && st.comreset_ignored == 1 && st.gen == 2 &&
          sanitize(&h, 0x0000, 0, &s, &e) == 0 && d2h_count(&h) == 0x8000,
          "... runs to its end without a drop (once per power-on)");
    vdrive_destroy(vd);
}

void test_sanitize(void)
{
    host_t h;
    uint8_t s = 0, e = 0, page[512];
    uint16_t id[256];
    static uint8_t w[16 * 512], r[16 * 512];
    vdrive_t *vd = test_linked("persona=ideal,capacity=4096,ncq=1,sanitize=1,sanitize_ms=2", &h,
                               2, 1);
    CHECK(host_identify(&h, id, &s, &e) == 0 && id[59] == 0xB400, "word 59 = 0x%04x: block "
          "erase, crypto scramble, sanitize, antifreeze", id[59]);
    test_fill(w, sizeof(w), 21);
    host_write(&h, 0x35, 0, 16, w, &s, &e);
    host_write(&h, 0x35, 4000, 16, w, &s, &e);
    CHECK(sanitize(&h, 0x0000, 0, &s, &e) == 0 && s == 0x50 && d2h_lba(&h) == 0xFFFF &&
          d2h_count(&h) == 0, "STATUS before: progress FFFFh, no bits");
    CHECK(sanitize(&h, 0x0012, 0x12345678, &s, &e) == 0 && s == 0x51 && e == 0x04 &&
          d2h_lba(&h) == 0, "BLOCK ERASE with a wrong key: ABRT, reason 0");
    CHECK(sanitize(&h, 0x0014, 0x4F5700000000ull, &s, &e) == 0 && s == 0x51 &&
          (d2h_lba(&h) & 0xFF) == 2, "OVERWRITE EXT: ABRT, reason 02h (unsupported)");
    CHECK(sanitize(&h, 0x0012, KEY_BLOCK, &s, &e) == 0 && s == 0x50 &&
          d2h_count(&h) == 0x4000 && d2h_lba(&h) < 0x1000, "BLOCK ERASE: started (count 0x%04x, "
          "progress 0x%04llx)", d2h_count(&h), (unsigned long long)d2h_lba(&h));
    /* reads, writes, queued commands, FLUSH, SET FEATURES abort; IDENTIFY, logs, SMART do not */
    CHECK(host_read(&h, 0x25, 0, 16, r, &s, &e) == 0 && s == 0x51 && e == 0x04 && h.rx_bytes == 0,
          "READ during sanitize: ABRT");
    CHECK(host_write(&h, 0x35, 0, 16, w, &s, &e) == 0 && s == 0x51 && e == 0x04,
          "WRITE during sanitize: ABRT");
    CHECK(host_ncq_issue(&h, 0, 0, 8, 0, &s, &e) == 0 && s == 0x51 && e == 0x04,
          "READ FPDMA during sanitize: ABRT");
    CHECK(host_nodata(&h, 0xE7, 0, &s, &e) == 0 && s == 0x51 &&
          host_set_features(&h, 0x02, 0, &s, &e) == 0 && s == 0x51, "FLUSH, SET FEATURES: ABRT");
    CHECK(sanitize(&h, 0x0011, KEY_CRYPTO, &s, &e) == 0 && s == 0x51, "a second erase: ABRT");
    CHECK(host_identify(&h, id, &s, &e) == 0 && s == 0x50 && smart(&h, 0xDA, NULL, &s, &e) == 0 &&
          s == 0x50 && read_log(&h, 0x04, 1, 1, 0, page, 0, &s, &e) == 0 && s == 0x50,
          "IDENTIFY, SMART RETURN STATUS, READ LOG EXT go through");
    CHECK(test_stats(vd).sanitize_blocked == 6, "sanitize_blocked %llu: read, write, FPDMA, "
          "FLUSH, SET FEATURES, the second erase",
          (unsigned long long)test_stats(vd).sanitize_blocked);
    idle_us(&h, 800);
    CHECK(sanitize(&h, 0x0000, 0, &s, &e) == 0 && s == 0x50 && d2h_count(&h) == 0x4000,
          "STATUS: in progress");
    uint64_t p1 = d2h_lba(&h);
    CHECK(p1 > 0x5000 && p1 < 0x8000, "progress 0x%04llx after about 0.9 of 2 ms",
          (unsigned long long)p1);
    /* COMRESET does not stop it (ACS-3: the operation survives resets) */
    CHECK(host_link_up(&h, 3000000) == 0, "COMRESET during sanitize");
    CHECK(sanitize(&h, 0x0000, 0, &s, &e) == 0 && s == 0x50 && d2h_count(&h) == 0x4000 &&
          d2h_lba(&h) > p1 && d2h_lba(&h) < 0xFFFF, "STATUS after COMRESET: still running, "
          "0x%04llx", (unsigned long long)d2h_lba(&h));
    CHECK(host_read(&h, 0x25, 0, 16, r, &s, &e) == 0 && s == 0x51, "READ still aborted");
    idle_us(&h, 1500);
    CHECK(sanitize(&h, 0x0000, 0, &s, &e) == 0 && s == 0x50 && d2h_count(&h) == 0x8000 &&
          d2h_lba(&h) == 0xFFFF, "STATUS at the end: completed without error, FFFFh");
    memset(r, 0xAA, sizeof(r));
    CHECK(host_read(&h, 0x25, 0, 16, r, &s, &e) == 0 && s == 0x50 && all_zero(r, sizeof(r)),
          "the media reads as zeros");
    memset(r, 0xAA, sizeof(r));
    CHECK(vdrive_read_sectors(vd, 4000, 16, r) == 0 && all_zero(r, sizeof(r)) &&
          vd->store.used == 0, "... directly too, the volatile store emptied");
    CHECK(host_write(&h, 0x35, 8, 16, w, &s, &e) == 0 && s == 0x50 &&
          host_read(&h, 0x25, 8, 16, r, &s, &e) == 0 && !memcmp(r, w, sizeof(w)) &&
          host_ncq_issue(&h, 0, 0, 8, 3, &s, &e) == 0 && s == 0x40,
          "writes, reads and NCQ work again");
    vdrive_destroy(vd);

    /* freeze lock: erases abort with reason 03h; antifreeze: freeze lock aborts with 04h */
    vd = test_linked("persona=ideal,capacity=4096,sanitize=1,sanitize_ms=0", &h, 2, 1);
    CHECK(sanitize(&h, 0x0020, KEY_FREEZE, &s, &e) == 0 && s == 0x50 && d2h_count(&h) == 0x2000,
          "FREEZE LOCK: frozen");
    CHECK(sanitize(&h, 0x0011, KEY_CRYPTO, &s, &e) == 0 && s == 0x51 && d2h_lba(&h) == 3 &&
          sanitize(&h, 0x0040, KEY_ANTIFREEZE, &s, &e) == 0 && s == 0x51 && d2h_lba(&h) == 3,
          "frozen: CRYPTO SCRAMBLE and ANTIFREEZE abort, reason 03h");
    CHECK(host_link_up(&h, 3000000) == 0 && sanitize(&h, 0, 0, &s, &e) == 0 &&
          d2h_count(&h) == 0x2000, "frozen through COMRESET");
    vdrive_destroy(vd);
    vd = test_linked("persona=ideal,capacity=4096,sanitize=1,sanitize_ms=0", &h, 2, 1);
    CHECK(sanitize(&h, 0x0040, KEY_ANTIFREEZE, &s, &e) == 0 && s == 0x50 &&
          d2h_count(&h) == 0x1000 && sanitize(&h, 0x0020, KEY_FREEZE, &s, &e) == 0 &&
          s == 0x51 && d2h_lba(&h) == 4, "ANTIFREEZE: FREEZE LOCK aborts, reason 04h");
    CHECK(sanitize(&h, 0x0011, KEY_CRYPTO, &s, &e) == 0 && s == 0x50 && d2h_count(&h) == 0x9000 &&
          d2h_lba(&h) == 0xFFFF, "sanitize_ms=0: CRYPTO SCRAMBLE done at once (count 0x%04x)",
          d2h_count(&h));
    vdrive_destroy(vd);

    /* sanitize off (ideal): ABRT, word 59 = 0; slc: on by default */
    vd = test_linked("persona=ideal", &h, 2, 1);
    CHECK(sanitize(&h, 0x0000, 0, &s, &e) == 0 && s == 0x51 && e == 0x04 &&
          test_stats(vd).cmd_sanitize == 1, "sanitize=0: ABRT");
    vdrive_destroy(vd);
    vd = test_linked("persona=slc", &h, 2, 1);
    CHECK(host_identify(&h, id, &s, &e) == 0 && id[59] == 0xB400 &&
          sanitize(&h, 0x0000, 0, &s, &e) == 0 && s == 0x50 && d2h_lba(&h) == 0xFFFF,
          "slc: sanitize supported");
    vdrive_destroy(vd);

    /* an image: its blocks read as zeros afterwards */
    char path[] = "build/test_health.img", cfg[128];
    unlink(path);
    snprintf(cfg, sizeof(cfg), "image=%s,capacity=4096,sanitize=1,sanitize_ms=0", path);
    vd = test_linked(cfg, &h, 2, 1);
    host_write(&h, 0x35, 100, 16, w, &s, &e);
    CHECK(sanitize(&h, 0x0012, KEY_BLOCK, &s, &e) == 0 && s == 0x50, "image: BLOCK ERASE");
    int fd = open(path, O_RDONLY);
    memset(r, 0xAA, sizeof(r));
    CHECK(fd >= 0 && pread(fd, r, sizeof(r), 100 * 512) == (ssize_t)sizeof(r) &&
          all_zero(r, sizeof(r)), "image: zeros in the file");
    if (fd >= 0)
        close(fd);
    vdrive_destroy(vd);
    unlink(path);
    test_sanitize_drop();
}
