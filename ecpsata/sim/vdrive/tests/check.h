/* SPDX-License-Identifier: BSD-2-Clause */
/* The unit tests' CHECK macro and counters (defined in test_vdrive.c). */
#ifndef VDRIVE_TEST_CHECK_H
#define VDRIVE_TEST_CHECK_H

#include <stdio.h>

extern int passed, failed;

#define CHECK(cond, ...)                                                                         \
    do {                                                                                         \
        if (cond) {                                                                              \
            passed++;                                                                            \
        } else {                                                                                 \
            failed++;                                                                            \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                                          \
            printf(__VA_ARGS__);                                                                 \
            printf("\n");                                                                        \
        }                                                                                        \
    } while (0)

void test_ncq(void);   /* test_ncq.c */
void test_clock(void); /* test_clock.c */
void test_realdrive(void);   /* test_realdrive.c */
void test_protocol(void);    /* test_protocol.c */
void test_hostrules(void);   /* test_hostrules.c */
void test_health(void);      /* test_health.c */
void test_sanitize(void);    /* test_sanitize.c */
void test_flash(void);       /* test_flash.c */
void test_cont(void);        /* test_cont.c */

#endif
