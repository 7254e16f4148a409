/*
 * check_internal.h — what the checkers share: the session (program, buffers, options, the
 * findings so far), the checker interface (an observer plus a finish hook), and helpers that
 * name a thread and an address the way reports print them.
 *
 * Checkers: race.c (data races), barrier.c (barrier divergence), simd.c (SIMD-group
 * functions reading inactive lanes), memory.c (uninitialized reads, read-before-wait,
 * out-of-bounds reads whose value is never used), profile.c (divergence profile).
 */
#ifndef LOCKSTEP_CHECK_INTERNAL_H
#define LOCKSTEP_CHECK_INTERNAL_H

#include "check.h"

typedef struct CheckChecker CheckChecker;

struct CheckChecker {
    SimObserver observer;      /* observer.ctx points back at this checker's own state */
    /* Called by check_session_finish, before faults are folded in; may be NULL. */
    void (*finish)(CheckChecker *c, CheckSession *s, const SimResult *result);
    void (*destroy)(CheckChecker *c);
};

struct CheckSession {
    const IsaProgram *program;
    const MemDevice *device;
    CheckBufferInfo *buffers;      /* one per device buffer (copied) */
    uint32_t num_buffers;
    uint32_t *tg_arg_offsets;      /* per program argument: its threadgroup block's offset */
    uint32_t *tg_arg_bytes;        /* and size (0 for other arguments) */
    CheckOptions opts;
    CheckChecker *checkers[8];
    SimObserver *observers[8];
    uint32_t num_checkers;
    CheckFinding *findings;
    uint32_t num_findings;
    size_t findings_cap;
    CheckProfile profile;          /* filled by profile.c */
};

/* Adds a finding, or counts it into an existing one with the same kind and the same pair of
 * source locations (first and second site). */
void check_report(CheckSession *s, const CheckFinding *f);

/* Fills site's thread (from lane `lane` of sg) and pc. */
void check_site_thread(CheckSite *site, const SimGroupView *sg, uint32_t lane, uint32_t pc);
/* Fills site's space, symbol, index and offset for an address as SimMemAccess gives it
 * (device address, or byte offset in threadgroup/thread memory). tg is the threadgroup (for
 * threadgroup argument blocks). */
void check_site_address(const CheckSession *s, CheckSite *site, MemSpace space, uint64_t addr);
/* "shared[10]" / "out[3]" / "threadgroup memory byte 40" into buf. */
const char *check_site_name(const CheckSite *site, char *buf, size_t size);
/* The source line of pc (0 when unknown). */
uint32_t check_line_of(const IsaProgram *p, uint32_t pc);

/* The checkers (each returns NULL when its options are off). */
CheckChecker *check_race_new(CheckSession *s);
CheckChecker *check_barrier_new(CheckSession *s);
CheckChecker *check_simd_new(CheckSession *s);
CheckChecker *check_memory_new(CheckSession *s);
CheckChecker *check_profile_new(CheckSession *s);

/* memory.c: true when every out-of-bounds read at pc loaded a value that no instruction then
 * read (the register was overwritten or the thread ended); session.c folds such faults in as
 * warnings. False when the memory checker is off. */
bool check_memory_read_unused(const CheckSession *s, uint32_t pc);

#endif
