/*
 * profile.c — placeholder until the checker lands; returns no checker.
 */
#include "check_internal.h"

CheckChecker *check_profile_new(CheckSession *s)
{
    (void)s;
    return NULL;
}
