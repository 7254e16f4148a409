/*
 * race_cell.c — the race detector's general path: one lane's access, any size, alignment
 * and buffer, through a whole RaceCell per word (or per byte, once a narrower access has
 * split the word), reporting every conflict. race.c's fast paths settle the common cases
 * and hand this whatever they decline, lane by lane in lane order; the state both leave is
 * the same (see race.c's opening comment for the shadow and the ordering).
 */
#include <string.h>

#include "race_internal.h"

/* Whether earlier access a happens before the current access b. */
static inline bool ordered(const Race *r, RaceAccess a, const RaceCur *b)
{
    if (a.serial == b->serial)
        return acc_tid(a) == b->tid;   /* lanes of one instruction run at once */
    if (a.serial < r->tg_first)
        return false;                  /* an earlier threadgroup: only device memory gets here */
    if (acc_tid(a) == b->tid || a.serial < r->rel[b->sp])
        return true;
    if (acc_sg(a) != (uint32_t)b->tid / SIM_SIMD_WIDTH)
        return false;
    return !r->strict || a.serial < r->simd_rel[b->tid / SIM_SIMD_WIDTH][b->sp];
}

static inline bool conflicts(const Race *r, RaceAccess a, const RaceCur *b)
{
    return a.serial && !(acc_kind(a) == ACC_ATOMIC && b->kind == ACC_ATOMIC) && !ordered(r, a, b);
}

/* A read among the reads against a write or an atomic b: atomics (loads too) do not race
 * with atomics. */
static inline bool read_conflicts(const Race *r, RaceAccess a, const RaceCur *b)
{
    return a.serial && !(acc_kind(a) != ACC_READ && b->kind == ACC_ATOMIC) && !ordered(r, a, b);
}

static inline RaceMore *more_of(const RaceShadow *sh, const RaceCell *c)
{
    return c->link ? &sh->more[c->link - 1] : NULL;
}

static RaceMore *ensure_more(RaceShadow *sh, RaceCell *c)
{
    if (c->link)
        return &sh->more[c->link - 1];
    util_reserve((void **)&sh->more, &sh->more_cap, sh->num_more + 1, sizeof *sh->more);
    RaceMore *m = &sh->more[sh->num_more++];
    memset(m, 0, sizeof *m);
    c->link = (uint32_t)sh->num_more;
    return m;
}

/* Adds b to the reads since the last plain write. Atomics go there too: they read, and a
 * plain access later must meet every atomic it is unordered with, not just the last. Reads
 * nothing later can race with are dropped; reads by earlier threadgroups move to rx. */
static inline void insert_read(const Race *r, RaceShadow *sh, RaceCell *c, const RaceCur *b)
{
    if (c->r1.serial && (c->r1.serial < r->tg_first || c->r1.serial < r->rel[b->sp])) {
        RaceMore *m = more_of(sh, c);
        if (m && m->r2.serial) { /* older than r1, so stale too */
            if (m->r2.serial < r->tg_first)
                m->rx = m->r2;
            m->r2.serial = 0;
        }
        if (c->r1.serial < r->tg_first)
            ensure_more(sh, c)->rx = c->r1;
        c->r1.serial = 0;
    }
    uint32_t agent = r->strict ? 0 : 5; /* agents: threads, or SIMD-groups */
    if (c->r1.serial && acc_tid(c->r1) >> agent != (uint32_t)b->tid >> agent) {
        RaceMore *m = ensure_more(sh, c);
        if (m->r2.serial && m->r2.serial < r->tg_first)
            m->rx = m->r2;
        m->r2 = c->r1;
    } else if (c->r1.serial && b->kind != ACC_READ && acc_kind(c->r1) == ACC_READ) {
        return; /* the agent's plain read stays: others meet it, as they would the atomic */
    }
    c->r1 = (RaceAccess){b->serial, RACE_INFO(b->index, b->tid, b->kind)};
}

static inline void cell_access(Race *r, RaceShadow *sh, const SimGroupView *sg, RaceCur *b,
                               RaceCell *c, uint32_t value, uint32_t vmask, uint64_t addr)
{
    RaceMore *m = more_of(sh, c);
    if (b->aload) { /* races with the last write if plain; joins the reads as an atomic load */
        if (!b->done_w && conflicts(r, c->w, b)) {
            b->done_w = true;
            race_report(r, sg, b, &c->w, addr, false);
        }
        RaceCur load = *b;
        load.kind = ACC_ALOAD;
        insert_read(r, sh, c, &load);
        return;
    }
    if (b->kind == ACC_READ) {
        if (!b->done_w && conflicts(r, c->w, b)) {
            b->done_w = true;
            race_report(r, sg, b, &c->w, addr, false);
        } else if (!b->done_r) {
            /* a plain read races only with atomics among the reads */
            const RaceAccess *hit = NULL;
            if (acc_kind(c->r1) == ACC_ATOMIC && conflicts(r, c->r1, b))
                hit = &c->r1;
            else if (m && acc_kind(m->r2) == ACC_ATOMIC && conflicts(r, m->r2, b))
                hit = &m->r2;
            else if (m && acc_kind(m->rx) == ACC_ATOMIC && conflicts(r, m->rx, b))
                hit = &m->rx;
            if (hit) {
                b->done_r = true;
                race_report(r, sg, b, hit, addr, false);
            }
        }
        insert_read(r, sh, c, b);
        return;
    }
    const uint32_t agent = r->strict ? 0 : 5;
    if (!b->done_w && conflicts(r, c->w, b)) {
        /* the same value is benign, unless another agent read the word, then wrote it: that
         * read could have seen this write (an agent's own reads precede its writes) */
        const bool other_rmw =
            acc_kind(c->w) == ACC_RMW && acc_tid(c->w) >> agent != (uint32_t)b->tid >> agent;
        bool same = acc_kind(c->w) != ACC_ATOMIC && !other_rmw && b->kind != ACC_ATOMIC &&
                    !((c->value ^ value) & vmask);
        if (!same || r->same_value) {
            b->done_w = true;
            race_report(r, sg, b, &c->w, addr, same);
        }
    }
    if (!b->done_r) {
        const RaceAccess *hit = read_conflicts(r, c->r1, b) ? &c->r1
                                : m && read_conflicts(r, m->r2, b) ? &m->r2
                                : m && read_conflicts(r, m->rx, b) ? &m->rx : NULL;
        if (hit) {
            b->done_r = true;
            RaceAccess was = *hit; /* an atomic load is reported as the atomic it is */
            if (acc_kind(was) == ACC_ALOAD)
                was.info = (was.info & ~3u) | ACC_ATOMIC;
            race_report(r, sg, b, &was, addr, false);
        }
    }
    /* the writer's own read since the last barrier makes it a read-modify-write */
    bool rmw = false;
    const RaceAccess *reads[3] = {&c->r1, m ? &m->r2 : NULL, m ? &m->rx : NULL};
    for (int k = 0; k < 3 && b->kind == ACC_WRITE; k++)
        rmw |= reads[k] && reads[k]->serial && reads[k]->serial >= r->tg_first &&
               reads[k]->serial >= r->rel[b->sp] &&
               acc_tid(*reads[k]) >> agent == (uint32_t)b->tid >> agent;
    if (b->kind != ACC_ATOMIC || !race_plain_live(ACC_ATOMIC, c->w, r->tg_first, r->rel[b->sp]))
        c->w = (RaceAccess){b->serial, RACE_INFO(b->index, b->tid, rmw ? ACC_RMW : b->kind)};
    c->value = (c->value & ~vmask) | (value & vmask);
    if (b->kind == ACC_ATOMIC) {
        insert_read(r, sh, c, b);
        return;
    }
    c->r1.serial = 0;
    if (m)
        m->r2.serial = m->rx.serial = 0;
}

/* Word i as a RaceCell, for the general path. */
static inline RaceCell word_get(const RaceShadow *sh, uint64_t i)
{
    RaceCell c = {{0, 0}, {0, 0}, 0, 0};
    if (sh->w) {
        c.w = sh->w[i];
        c.value = sh->value[i];
    }
    if (sh->r1)
        c.r1 = sh->r1[i];
    if (sh->link)
        c.link = sh->link[i];
    return c;
}

/* Stores word i back. A field without its array is stored only when it holds something
 * (a zero serial's info and a value with no write are never read). */
static void word_put(RaceShadow *sh, uint64_t i, const RaceCell *c)
{
    if ((sh->w || (c->w.serial && race_need_writes(sh))) && !sh->dead) {
        sh->w[i] = c->w;
        sh->value[i] = c->value;
    }
    if ((sh->r1 || (c->r1.serial && race_need_reads(sh))) && !sh->dead)
        sh->r1[i] = c->r1;
    if ((sh->link || (c->link && race_need_links(sh))) && !sh->dead)
        sh->link[i] = c->link;
}

/* The four byte cells of word `word`, made on first need (each with its own copy of the
 * word's read history). Returns NULL when the pool is full. */
static RaceCell *byte_cells(RaceShadow *sh, uint64_t word)
{
    RaceCell c = word_get(sh, word);
    if (c.link & RACE_SPLIT)
        return &sh->bytes[c.link & ~RACE_SPLIT];
    if (sh->num_bytes + 4 >= RACE_SPLIT || sh->num_more + 4 >= RACE_SPLIT || !race_need_links(sh))
        return NULL;
    util_reserve((void **)&sh->bytes, &sh->bytes_cap, sh->num_bytes + 4, sizeof *sh->bytes);
    RaceCell *bytes = &sh->bytes[sh->num_bytes];
    RaceMore more = {{0, 0}, {0, 0}};
    if (c.link)
        more = sh->more[c.link - 1];
    for (int k = 0; k < 4; k++) {
        bytes[k] = c;
        bytes[k].value = (c.value >> (8 * k)) & 0xff;
        bytes[k].link = 0;
        if (more.r2.serial || more.rx.serial)
            *ensure_more(sh, &bytes[k]) = more;
    }
    sh->link[word] = RACE_SPLIT | (uint32_t)sh->num_bytes;
    sh->num_bytes += 4;
    return bytes;
}

/* race_lane_access: one lane's access the general way: any alignment, size and buffer. An aligned access
 * starts at its word `first` (read_fast / write_fast settled the earlier ones, reporting
 * nothing). */
void race_lane_access(Race *r, const SimGroupView *sg, RaceCur *b, const SimMemAccess *acc,
                      uint32_t lane, uint32_t first)
{
    const uint32_t bytes = acc->bytes;
    uint64_t addr = acc->addr[lane], off = addr;
    RaceShadow *sh = &r->tg;
    if (b->sp == SP_DEV) {
        sh = race_device_shadow(r, addr);
        if (!sh)
            return;
        off = addr & MEM_MAX_BUFFER_BYTES;
    }
    if (off + bytes > sh->words * 4)
        return;
    b->tid = (uint16_t)(sg->simdgroup * SIM_SIMD_WIDTH + lane);
    b->lane = lane;
    b->done_w = b->done_r = false;
    const uint8_t *data = acc->data[lane];
    uint64_t word = off / 4;
    if (((off | bytes) & 3) == 0) {
        for (uint32_t k = first; k < bytes / 4 && !sh->dead; k++) {
            uint32_t v = 0;
            if (b->kind != ACC_READ)
                memcpy(&v, data + 4 * k, 4);
            uint32_t link = sh->link ? sh->link[word + k] : 0;
            if (UTIL_LIKELY(!(link & RACE_SPLIT))) {
                RaceCell c = word_get(sh, word + k);
                cell_access(r, sh, sg, b, &c, v, 0xffffffffu, addr + 4 * k);
                word_put(sh, word + k, &c);
                continue;
            }
            for (uint32_t j = 0; j < 4; j++)
                cell_access(r, sh, sg, b, &sh->bytes[(link & ~RACE_SPLIT) + j],
                            (v >> (8 * j)) & 0xff, 0xff, addr + 4 * k + j);
        }
    } else {
        for (uint32_t j = 0; j < bytes && !sh->dead; j++) {
            RaceCell *bc = byte_cells(sh, (off + j) / 4);
            if (bc)
                cell_access(r, sh, sg, b, &bc[(off + j) % 4], b->kind != ACC_READ ? data[j] : 0,
                            0xff, addr + j);
        }
    }
    if (b->sp == SP_TG && (off + bytes + 3) / 4 > r->tg_hwm)
        r->tg_hwm = (off + bytes + 3) / 4;
}

void race_word_read(Race *r, RaceShadow *sh, uint64_t i, const RaceCur *b)
{
    const uint32_t link = sh->link ? sh->link[i] : 0;
    if (link & RACE_SPLIT) {
        for (uint32_t j = 0; j < 4; j++)
            insert_read(r, sh, &sh->bytes[(link & ~RACE_SPLIT) + j], b);
        return;
    }
    RaceCell c = word_get(sh, i);
    insert_read(r, sh, &c, b);
    word_put(sh, i, &c);
}
