/* SPDX-License-Identifier: BSD-2-Clause */
/* The word-level test host's answer times against the drive (answers.c), for comparison with
 * another host's on the same drive: 4 KiB random NCQ reads at a queue depth, the drive's
 * statistics written as JSON (make answer-times; scripts/answer_times.py prints them).
 *
 * usage: answer_times OUT.json [QD [COMMANDS [CONFIG]]]   (defaults 32, 1000, persona=ideal,ncq=1) */
#include <stdio.h>
#include <stdlib.h>

#include "host.h"

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: answer_times OUT.json [QD [COMMANDS [CONFIG]]]\n");
        return 2;
    }
    int qd = argc > 2 ? atoi(argv[2]) : 32, n = argc > 3 ? atoi(argv[3]) : 1000;
    const char *cfg = argc > 4 ? argv[4] : "persona=ideal,ncq=1";
    if (qd < 1 || qd > 32 || n < qd) {
        fprintf(stderr, "answer_times: QD must be 1 to 32 and COMMANDS at least QD\n");
        return 2;
    }
    char err[256];
    vdrive_t *vd = vdrive_create_str(cfg, err, sizeof(err));
    if (!vd) {
        fprintf(stderr, "answer_times: %s\n", err);
        return 2;
    }
    host_t h;
    host_init(&h, vd, 2);
    if (host_link_up(&h, 3000000)) {
        fprintf(stderr, "answer_times: the link did not come up\n");
        return 1;
    }
    double iops = host_ncq_random_read(&h, qd, n, 8, 0x9E3779B97F4A7C15ull, NULL);
    if (iops <= 0) {
        fprintf(stderr, "answer_times: the reads failed\n");
        return 1;
    }
    if (vdrive_write_stats(vd, argv[1])) {
        fprintf(stderr, "answer_times: cannot write %s\n", argv[1]);
        return 1;
    }
    printf("%s: QD %d, %d commands, %.0f IOPS\n", argv[1], qd, n, iops);
    vdrive_destroy(vd);
    return 0;
}
