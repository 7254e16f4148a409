/*
 * lockstep.h — the C API for embedding the lockstep simulator in another program.
 *
 * Link with liblockstep.a (and -lyaml -lm). The library never prints, never exits and never
 * reads the terminal: every failure comes back as `false`/NULL plus a UtilError whose message
 * is ready to show ("k.s:3:7: error: expected a register", with the source line and a caret).
 * Allocation failure aborts with a message.
 *
 * The modules, in dependency order:
 *   util/util.h  UtilError, checked allocation
 *   isa/isa.h    IsaProgram: the instruction set, the assembler and disassembler
 *   mem/mem.h    MemDevice: the device buffers a kernel sees
 *   sim/sim.h    SimLaunch, sim_dispatch, SimResult and the observer API
 *   traces/trace.h  recording a dispatch's issues to a trace file, reading and exporting one
 *
 * Intended use — assemble a kernel, make its buffers, dispatch, read the results:
 *
 *     UtilError err;
 *     IsaProgram *prog = isa_assemble(source_text, "vector_add.s", &err);
 *     if (!prog) { fprintf(stderr, "%s\n", err.message); return 2; }
 *
 *     MemDevice *dev = mem_device_new();
 *     SimArgBinding bind[4] = {0};          // one per prog->args[i], in that order
 *     for (uint32_t i = 0; i < prog->num_args; i++) {
 *         const IsaArg *a = &prog->args[i];
 *         if (a->kind == ISA_ARG_THREADGROUP) {
 *             bind[i].tg_bytes = 1024;      // its block of threadgroup memory
 *         } else {
 *             int32_t b = mem_device_add(dev, a->name, 4 * n,
 *                                        a->kind == ISA_ARG_CONSTANT ? MEM_SPACE_CONSTANT
 *                                                                    : MEM_SPACE_DEVICE, &err);
 *             bind[i].buffer = (uint32_t)b;  // fill dev->buffers[b].data as you like
 *         }
 *     }
 *
 *     SimLaunch launch = {
 *         .program = prog, .device = dev, .bindings = bind,
 *         .grid = {n, 1, 1}, .threadgroup = {256, 1, 1}, .mode = SIM_MODE_FUNCTIONAL,
 *     };
 *     if (prog->data_bytes) {               // constant data (.data, constant arrays)
 *         launch.data_buffer = (uint32_t)sim_add_program_data(dev, prog, &err);
 *         launch.data_bound = true;
 *     }
 *     SimResult result = {0};
 *     if (!sim_dispatch(&launch, &result, &err)) { ... an invalid launch ... }
 *     // result.faults: out-of-bounds accesses and the like, with thread and pc;
 *     // result.budget_exceeded: the kernel ran past launch.instruction_budget.
 *     // Outputs are in dev->buffers[...].data.
 *     sim_result_free(&result);
 *     mem_device_free(dev);
 *     isa_program_free(prog);
 *
 * To watch a kernel run (races, traces, a debugger), pass SimObserver callbacks in
 * launch.observers; with none attached the interpreter runs its fast path.
 *
 * Launch manifests (YAML) and the `lockstep` command line are not part of this API; they
 * live in ui/ and are described in docs/manifest.md.
 */
#ifndef LOCKSTEP_H
#define LOCKSTEP_H

#include "util/util.h"
#include "isa/isa.h"
#include "mem/mem.h"
#include "sim/sim.h"
#include "traces/trace.h"

#define LOCKSTEP_VERSION "0.1.0"

#endif
