/*
 * race_block.c — the race detector's whole-SIMD-group shortcuts: a coalesced access whose 32
 * lanes take 32 consecutive words (a tile row, a level of a tree reduction) is decided in
 * one branch-free pass over the block, which the compiler vectorizes, instead of a word at
 * a time. Plain reads and writes only: a block qualifies when each word would pass the
 * per-word fast paths of race.c (read_fast, write_fast) with nothing to report, and the
 * state it leaves is the one they would. Anything else goes to them word by word
 * (race_on_mem_access tries the block before lanes_from).
 */
#include <string.h>

#include "race_internal.h"

/* Whether every word i0 .. i0 + 31 would pass read_fast (read) or write_fast (not) for the
 * lanes of a coalesced one-word access by SIMD-group o->sg, lane l taking word i0 + l: none
 * is linked (split, or with a side table) and each remembered write and read is ordered
 * with the access by a barrier of this threadgroup or, unless strict, by being the
 * SIMD-group's own. Decided in one branch-free pass: a block of a tile or a tree level.
 * Then block_apply leaves each word as those fast paths would. */
static bool block_ok(const RaceOrder *o, const RaceWords *a, uint64_t i0)
{
    uint32_t bad = 0;
    if (a->link)
        for (uint32_t l = 0; l < SIM_SIMD_WIDTH; l++)
            bad |= a->link[i0 + l];
    const uint32_t tg_first = o->tg_first, rel = o->rel, sg = o->sg;
    const uint32_t own = o->strict ? 0 : 1;
    for (int k = 0; k < 2; k++) {
        const RaceAccess *x = k ? a->r1 : a->w;
        if (!x)
            continue;
        for (uint32_t l = 0; l < SIM_SIMD_WIDTH; l++) {
            const uint32_t sn = x[i0 + l].serial, xsg = (x[i0 + l].info >> 7) & 31;
            const uint32_t ok = (sn == 0) | ((sn >= tg_first) & ((sn < rel) | (own & (xsg == sg))));
            bad |= ok ^ 1;
        }
    }
    return bad == 0;
}

/* What read_fast / write_fast do to words i0 .. i0 + 31 when block_ok holds: a read
 * becomes each word's latest read; a write its last write (a read-modify-write where the
 * word's latest read is the SIMD-group's own since the barrier), clearing the reads. */
static void block_apply(const RaceOrder *o, const RaceWords *a, uint64_t i0, uint32_t info0,
                        uint32_t tid0, uint8_t kind, const SimMemAccess *acc)
{
    RaceAccess now[SIM_SIMD_WIDTH];
    for (uint32_t l = 0; l < SIM_SIMD_WIDTH; l++)
        now[l] = (RaceAccess){o->serial, info0 | (tid0 + l) << 2};
    if (kind == ACC_READ) {
        memcpy(a->r1 + i0, now, sizeof now);
        return;
    }
    if (a->r1) {
        RaceAccess *r1 = a->r1 + i0;
        const uint32_t rel = o->rel;
        for (uint32_t l = 0; l < SIM_SIMD_WIDTH; l++) {
            const uint32_t sn = r1[l].serial;
            now[l].info |= ((sn != 0) & (sn >= rel)) << 1; /* ACC_WRITE becomes ACC_RMW */
        }
        for (uint32_t l = 0; l < SIM_SIMD_WIDTH; l++)
            r1[l].serial = 0;
    }
    memcpy(a->w + i0, now, sizeof now);
    uint32_t value[SIM_SIMD_WIDTH];
    for (uint32_t l = 0; l < SIM_SIMD_WIDTH; l++)
        memcpy(&value[l], acc->data[l], 4);
    memcpy(a->value + i0, value, sizeof value);
}

bool race_block(Race *r, const SimGroupView *sg, const RaceCur *b, const SimMemAccess *acc,
                RaceShadow *sh, uint64_t i0)
{
    const uint32_t sgi = sg->simdgroup;
    const RaceOrder o = {
        .serial = b->serial, .tg_first = r->tg_first, .rel = r->rel[b->sp], .sg = sgi,
        .simd_rel = sgi < UTIL_ARRAY_LEN(r->simd_rel) ? r->simd_rel[sgi][b->sp] : 0,
        .strict = r->strict,
    };
    const RaceWords a = {sh->w, sh->r1, sh->value, sh->link, sh->more};
    if (!block_ok(&o, &a, i0))
        return false;
    block_apply(&o, &a, i0, RACE_INFO(b->index, 0, b->kind), sgi * SIM_SIMD_WIDTH, b->kind, acc);
    return true;
}
