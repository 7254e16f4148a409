/*
 * imm.c — numeric literals of lockstep assembly: integers (decimal or 0x hex, with a sign)
 * and floats (1.5, -2e3, inf, nan) as the bits of an operand of 16, 32 or 64 bits; a value
 * the operand cannot hold (300000 in 16 bits, 1e39 as a float) is an error. The
 * assembler reads immediates with it, and the disassembler checks with it that the text it
 * prints for an immediate reads back as the same bits.
 */
#include "isa_internal.h"
#include "../util/fp.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

static bool token_is(const char *s, size_t len, const char *word)
{
    return strlen(word) == len && memcmp(s, word, len) == 0;
}

const char *isa_parse_imm(const char *s, size_t len, unsigned bits, uint64_t *value)
{
    const char *e = s + len;
    bool neg = false;
    if (s < e && (*s == '-' || *s == '+')) {
        neg = *s == '-';
        s++;
    }
    if (s == e)
        return "expected a number";
    uint64_t mask = bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
    bool is_float = token_is(s, (size_t)(e - s), "inf") || token_is(s, (size_t)(e - s), "nan");
    bool hex = e - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    if (!is_float && !hex) {
        for (const char *p = s; p < e; p++)
            if (*p == '.' || *p == 'e' || *p == 'E')
                is_float = true;
    }
    if (is_float) {
        char buf[64];
        if (e - s >= (ptrdiff_t)sizeof buf)
            return "the number is too long";
        if (bits == 64)
            return "64-bit operands take integer immediates only";
        for (const char *p = s; p < e && !token_is(s, (size_t)(e - s), "inf") &&
                                !token_is(s, (size_t)(e - s), "nan"); p++) {
            bool sign_ok = (*p == '-' || *p == '+') && (p[-1] == 'e' || p[-1] == 'E');
            if (!is_digit(*p) && *p != '.' && *p != 'e' && *p != 'E' && !sign_ok)
                return "a float is written like 1.5, -2e3, inf or nan";
        }
        memcpy(buf, s, (size_t)(e - s));
        buf[e - s] = '\0';
        char *stop;
        /* a finite number past the type's largest is an error, not infinity (inf is that) */
        bool inf = token_is(s, (size_t)(e - s), "inf");
        if (bits == 16) {
            double d = strtod(buf, &stop);
            if (*stop || stop == buf)
                return "a float is written like 1.5, -2e3, inf or nan";
            uint16_t h = util_f64_to_f16(d);
            if (!inf && (h & 0x7fffu) == 0x7c00u)
                return "the number is out of range for half (largest finite 65504; write inf "
                       "for infinity)";
            *value = (uint64_t)(h ^ (neg ? 0x8000u : 0u));
        } else {
            float f = strtof(buf, &stop);
            if (*stop || stop == buf)
                return "a float is written like 1.5, -2e3, inf or nan";
            if (!inf && isinf(f))
                return "the number is out of range for float (largest finite 3.40282e38; write "
                       "inf for infinity)";
            *value = (uint64_t)(util_f32_bits(f) ^ (neg ? 0x80000000u : 0u));
        }
        return NULL;
    }
    uint64_t mag = 0;
    const char *p = hex ? s + 2 : s;
    unsigned base = hex ? 16 : 10;
    for (; p < e; p++) {
        unsigned digit;
        if (is_digit(*p))
            digit = (unsigned)(*p - '0');
        else if (hex && *p >= 'a' && *p <= 'f')
            digit = (unsigned)(*p - 'a' + 10);
        else if (hex && *p >= 'A' && *p <= 'F')
            digit = (unsigned)(*p - 'A' + 10);
        else
            return hex ? "a hex number has digits 0-9 a-f after 0x" : "expected a number";
        if (mag > (UINT64_MAX - digit) / base)
            return "the number does not fit in 64 bits";
        mag = mag * base + digit;
    }
    if (neg ? mag > (mask >> 1) + 1 : mag > mask)
        return bits == 16 ? "the number does not fit in 16 bits"
               : bits == 32 ? "the number does not fit in 32 bits" : "the number does not fit in 64 bits";
    *value = (neg ? (uint64_t)0 - mag : mag) & mask;
    return NULL;
}
