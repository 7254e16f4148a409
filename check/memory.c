/*
 * memory.c — placeholder until the checker lands; returns no checker.
 */
#include "check_internal.h"

CheckChecker *check_memory_new(CheckSession *s)
{
    (void)s;
    return NULL;
}
