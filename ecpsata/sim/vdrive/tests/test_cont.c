/* SPDX-License-Identifier: BSD-2-Clause */
/* CONT on the wire (SATA 3.x 9.4.7): after CONT every data character is junk until the next
 * primitive other than ALIGN, so a transmitter that pauses a frame (HOLD or HOLDA repeated, then
 * CONT) must send a primitive again before the frame's next data dword, also when the pause ends
 * right after the CONT, before any junk. A receiver that follows the rule drops data sent straight
 * after the CONT: the frame then fails its CRC and is answered R_ERR.
 *
 * Reads: the drive paces its Data FISes to the media's rate and HOLDs when it catches up; near a
 * frame's end the pause can be as short as HOLD HOLD CONT. 100 media rates and Data FISes of
 * every length move the pauses' ends against the CONT; before the drive repeated its primitive
 * after a CONT without junk, 6 of these 1,600 reads failed. */
#include <string.h>

#include "check.h"
#include "host.h"

static void test_cont_drive_paced(void)
{
    static uint8_t w[32 * 512], r[32 * 512];
    test_fill(w, sizeof(w), 11);
    int bad = 0, runs = 0;
    uint64_t holds = 0;
    for (int mbps = 200; mbps < 300; mbps++) {
        char cfg[96];
        snprintf(cfg, sizeof(cfg), "persona=slc,cont=1,read_mbps=%d,first_data_us=1", mbps);
        host_t h;
        vdrive_t *vd = test_linked(cfg, &h, 2, 0);
        uint8_t s = 0, e = 0;
        if (host_write(&h, 0x35, 0, 32, w, &s, &e) != 0 || s != 0x50) {
            CHECK(0, "%s: write (0x%02x/0x%02x)", cfg, s, e);
            vdrive_destroy(vd);
            continue;
        }
        /* a full Data FIS, then one of 1 to 16 sectors: every frame length, each frame paced
         * from its first sector on */
        for (uint32_t count = 17; count <= 32; count++) {
            memset(r, 0, sizeof(r));
            runs++;
            if (host_read(&h, 0x25, 0, count, r, &s, &e) != 0 || s != 0x50 ||
                memcmp(w, r, count * 512)) {
                if (!bad++)
                    printf("  first failure: %s, %u sectors: status 0x%02x error 0x%02x\n",
                           cfg, count, s, e);
            }
        }
        vdrive_stats_t st = test_stats(vd);
        holds += st.holds_sent;
        if (st.r_err_received && !bad++)
            printf("  %s: %llu Data FIS answered R_ERR\n", cfg,
                   (unsigned long long)st.r_err_received);
        vdrive_destroy(vd);
    }
    CHECK(holds > 1000, "the paced reads held their Data FISes (%llu HOLDs)",
          (unsigned long long)holds);
    CHECK(bad == 0, "paced reads with CONT: %d of %d failed (data sent right after CONT)",
          bad, runs);
}

void test_cont(void)
{
    test_cont_drive_paced();
}
