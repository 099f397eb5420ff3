/* SPDX-License-Identifier: BSD-2-Clause */
/* Stepping speed of the model for a realistic mix: OOB and link-up, IDENTIFY, then long READ DMA
 * EXT streams with the ideal persona at Gen2.
 *
 * Pass 1 runs the word-level test host against the drive and records every host TX word. Pass 2
 * replays the recording into a fresh drive with the same configuration (the model is
 * deterministic, so it goes through exactly the same states) and times vdrive_step_n alone: that
 * is the model's speed. CPU time is reported next to wall time because the machine is shared. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "host.h"

#define CFG "persona=ideal,capacity=1T"

static double clk(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* wrap vdrive_step to record the host's words */
static uint32_t *rec;
static size_t nrec, caprec;

int main(int argc, char **argv)
{
    int reads = argc > 1 ? atoi(argv[1]) : 4;
    char err[256];
    vdrive_t *vd = vdrive_create_str(CFG, err, sizeof(err));
    if (!vd) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    caprec = (size_t)reads * 8500000u + 4000000u;
    rec = malloc(caprec * sizeof(*rec));
    static uint8_t buf[32768 * 512];
    host_t h;
    host_init(&h, vd, 2);
    h.record = rec;
    h.record_cap = caprec;
    double w0 = clk(CLOCK_MONOTONIC), c0 = clk(CLOCK_PROCESS_CPUTIME_ID);
    int bad = host_link_up(&h, 3000000) != 0;
    uint16_t id[256];
    uint8_t s = 0, e = 0;
    bad |= host_identify(&h, id, &s, &e) != 0;
    for (int i = 0; i < reads && !bad; i++)
        bad |= host_read(&h, 0x25, (uint64_t)i * 32768, 32768, buf, &s, &e) != 0 || s != 0x50;
    double w1 = clk(CLOCK_MONOTONIC), c1 = clk(CLOCK_PROCESS_CPUTIME_ID);
    nrec = h.record_n;
    if (bad || nrec >= caprec) {
        fprintf(stderr, "bench: host run failed\n");
        return 1;
    }
    vdrive_stats_t st;
    vdrive_get_stats(vd, &st);
    double sim_s = (double)vdrive_time_ps(vd) * 1e-12;
    uint64_t bytes = st.bytes_read;
    vdrive_destroy(vd);

    /* pass 2: the model alone */
    vd = vdrive_create_str(CFG, err, sizeof(err));
    uint32_t *out = malloc(65536 * sizeof(*out));
    double w2 = clk(CLOCK_MONOTONIC), c2 = clk(CLOCK_PROCESS_CPUTIME_ID);
    for (size_t i = 0; i < nrec; i += 65536) {
        size_t n = nrec - i < 65536 ? nrec - i : 65536;
        vdrive_step_n(vd, rec + i, out, NULL, n, 2);
    }
    double w3 = clk(CLOCK_MONOTONIC), c3 = clk(CLOCK_PROCESS_CPUTIME_ID);
    vdrive_stats_t st2;
    vdrive_get_stats(vd, &st2);
    vdrive_destroy(vd);
    if (st2.bytes_read != bytes || st2.link_ups != 1) {
        fprintf(stderr, "bench: replay diverged\n");
        return 1;
    }
    double mw = (double)nrec / (w3 - w2) / 1e6, mc = (double)nrec / (c3 - c2) / 1e6;
    printf("bench: %zu words (link-up, IDENTIFY, %d x 16 MiB READ DMA EXT, %.1f MB/s at Gen2)\n",
           nrec, reads, bytes / sim_s / 1e6);
    printf("bench: model + test host: %.1f million words/s (CPU time), %.1f (wall)\n",
           (double)nrec / (c1 - c0) / 1e6, (double)nrec / (w1 - w0) / 1e6);
    printf("bench: model alone: %.1f million words/s (CPU time), %.1f (wall)\n", mc, mw);
    printf("bench: model speed %.1f million words/s (%s 20)\n", mc, mc >= 20 ? ">=" : "<");
    free(rec);
    free(out);
    return mc >= 20 ? 0 : 1;
}
