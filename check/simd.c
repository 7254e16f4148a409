/*
 * simd.c — placeholder until the checker lands; returns no checker.
 */
#include "check_internal.h"

CheckChecker *check_simd_new(CheckSession *s)
{
    (void)s;
    return NULL;
}
