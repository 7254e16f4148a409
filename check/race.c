/*
 * race.c — placeholder until the checker lands; returns no checker.
 */
#include "check_internal.h"

CheckChecker *check_race_new(CheckSession *s)
{
    (void)s;
    return NULL;
}
