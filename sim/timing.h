/*
 * timing.h — the simulator's internal interface between functional execution and the timed
 * mode engine (timing*.c): one instruction executed on its own, the set-up of a threadgroup's
 * SIMD-groups shared by both modes, and the timed dispatch itself.
 */
#ifndef LOCKSTEP_SIM_TIMING_H
#define LOCKSTEP_SIM_TIMING_H

#include "sim_internal.h"

/* Executes the instruction at g->pc (counting it in the result, with observer calls when
 * any is attached) and advances g->pc. g->state becomes SIM_GROUP_AT_BARRIER at a barrier
 * and SIM_GROUP_DONE at stop or past the last instruction. When the budget has run out it
 * executes nothing and sets d->stopped. */
void sim_exec_one(SimDispatch *d, SimGroup *g);
/* sim_exec_one for a dispatch with no observer attached, one call less. */
void sim_exec_one_unobserved(SimDispatch *d, SimGroup *g);

/* Fills tg for the threadgroup at `pos` (dispatch order `linear`) and makes its SIMD-groups
 * in groups[], with registers from regs (zeroed), stacks from stack (zeroed) and threadgroup
 * memory tg_memory (zeroed). */
void sim_setup_threadgroup(SimDispatch *d, SimThreadgroupView *tg, SimGroup *groups,
                           uint32_t *regs, uint8_t *stack, uint8_t *tg_memory,
                           const uint32_t pos[3], uint64_t linear);

/* Runs the whole grid in timed mode (d set up as for functional mode: code translated,
 * arguments bound) and fills d->result including its stats. False (err set) only for a GPU
 * configuration the engine cannot use. */
bool sim_timed_run(SimDispatch *d, UtilError *err);

/* Iterations of the timed engine's main loop in the last timed dispatch of this process: a
 * test hook showing idle cycles are skipped, not stepped. */
uint64_t sim_timed_debug_iterations(void);

/* Whether cores and schedulers may run ahead of the cycle loop (timing.c, core_ahead and
 * sched_ahead; on by default): a test hook, so that tests can compare a run with it against
 * one without. */
void sim_timed_debug_set_ahead(bool on);

#endif
