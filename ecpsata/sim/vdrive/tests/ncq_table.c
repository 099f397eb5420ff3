/* SPDX-License-Identifier: BSD-2-Clause */
/* 4 KiB random read IOPS against NCQ queue depth for the queuing personas, in drive time, through
 * the word-level test host at Gen2 (make ncq-table). */
#include <stdio.h>

#include "host.h"

int main(void)
{
    const char *cfgs[] = { "persona=hdd7200", "persona=slc", "persona=ideal,ncq=1" };
    const int qds[] = { 1, 2, 4, 8, 16, 32 };
    printf("4 KiB random reads over the whole capacity, IOPS (Gen2)\n%-22s", "persona");
    for (int j = 0; j < 6; j++) {
        char col[8];
        snprintf(col, sizeof(col), "QD%d", qds[j]);
        printf(" %10s", col);
    }
    printf("\n");
    for (int i = 0; i < 3; i++) {
        printf("%-22s", cfgs[i]);
        for (int j = 0; j < 6; j++) {
            char err[256];
            vdrive_t *vd = vdrive_create_str(cfgs[i], err, sizeof(err));
            host_t h;
            host_init(&h, vd, 2);
            if (!vd || host_link_up(&h, 3000000)) {
                fprintf(stderr, "ncq_table: link up failed\n");
                return 1;
            }
            int n = i == 0 ? 48 + 4 * qds[j] : 200 + 8 * qds[j];
            printf(" %10.0f", host_ncq_random_read(&h, qds[j], n, 8, 0x9E3779B97F4A7C15ull, NULL));
            fflush(stdout);
            vdrive_destroy(vd);
        }
        printf("\n");
    }
    return 0;
}
