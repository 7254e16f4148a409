/*
 * roles.c — which operands of each opcode an instruction reads and which it writes, from
 * the operand letters of isa_ops (isa.h): a D/H/P/x operand in first place is the
 * destination, `m` (memory data) is written by loads and read by everything else, and
 * s/h/p/y/b/a are sources. The checkers that follow values through registers (memory.c's
 * pending loads, regdef.c's definedness) share this table.
 */
#include "check_internal.h"

void check_roles_build(CheckRoles *r)
{
    memset(r, 0, sizeof *r);
    for (uint32_t op = 0; op < ISA_OP_COUNT; op++) {
        const char *letters = isa_ops[op].operands;
        for (int k = 0; *letters && k < ISA_MAX_OPERANDS; k++) {
            char l = *letters;
            uint8_t role = CHECK_ROLE_NONE;
            if (k == 0 && (l == 'D' || l == 'H' || l == 'P' || l == 'x'))
                role = CHECK_ROLE_WRITE;
            else if (l == 'm')
                role = check_is_load(op) ? CHECK_ROLE_WRITE : CHECK_ROLE_READ;
            else if (l == 's' || l == 'h' || l == 'p' || l == 'y' || l == 'b' || l == 'a')
                role = CHECK_ROLE_READ;
            r->role[op][k] = role;
            if (role == CHECK_ROLE_READ)
                r->num_reads[op]++;
            while (*letters && *letters != ',')
                letters++;
            if (*letters == ',')
                letters++;
        }
        uint8_t n = 0;
        for (uint8_t want = CHECK_ROLE_READ; want <= CHECK_ROLE_WRITE; want++)
            for (uint8_t k = 0; k < ISA_MAX_OPERANDS; k++)
                if (r->role[op][k] == want)
                    r->uses[op][n++] = k;
        r->num_uses[op] = n;
    }
}
