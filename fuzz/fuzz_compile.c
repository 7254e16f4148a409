/*
 * fuzz_compile.c — the kernel-language compiler as a libFuzzer target: any bytes in, a
 * program or a diagnostic out, never a crash, a leak or a hang. `make fuzz` builds it with
 * clang (-fsanitize=fuzzer,address,undefined) and runs it on a corpus seeded with every
 * kernel in kernels/ and ../shared/kernels/seed/. The test suite runs a short deterministic
 * smoke of the same idea (tests/lang/test_fuzz_smoke.c) under `make asan`.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../lang/lang.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 64 * 1024)
        return 0;
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    UtilError err;
    err.message[0] = '\0';
    LangOptions opts = {0};
    IsaProgram *p = lang_compile_source(text, "fuzz.metal", &opts, NULL, &err);
    if (p) {
        char *s = isa_disassemble(p, false);
        free(s);
        isa_program_free(p);
    } else if (strncmp(err.message, "fuzz.metal", 10) != 0 && strncmp(err.message, "error:", 6) != 0) {
        abort(); /* every failure must be a diagnostic naming the file */
    }
    free(text);
    return 0;
}
