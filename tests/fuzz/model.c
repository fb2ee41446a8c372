/* model.c: the reference model of the fuzz world (see model.h). Each rule
 * below cites the line of the docs it encodes. */
#include "model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const uint32_t m_size[M_NC] = {8, 8, 4, 1, 48, 13, 16, 4, 0, 0, 16, 16, 0, 16};

/* The schema's defaults, little-endian: Vel {1, -1}, Hp {10}, Tiny {7},
 * Big.tag 9 (after 40 bytes of data), Name "fz", Armor.level 3, Docked.slot 5. */
const unsigned char m_default[M_NC][48] = {
    [M_VEL] = {1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff},
    [M_HP] = {10},
    [M_TINY] = {7},
    [M_BIG] = {[40] = 9},
    [M_NAME] = {'f', 'z'},
    [M_ARMOR] = {3},
    [M_DOCK] = {[M_LINK_SLOT] = 5},
};

/* Components with on_add / on_remove hooks. */
#define M_HOOKED (M_BIT(M_ARMOR) | M_BIT(M_MARK))

static void *m_xalloc(void *p, size_t size) {
    p = realloc(p, size);
    if (p == NULL) {
        fprintf(stderr, "model: out of memory\n");
        abort();
    }
    return p;
}

void m_init(model *m, uint32_t capacity) {
    memset(m, 0, sizeof *m);
    /* The indices are sized for the large-world mode; only those used are
     * touched (below `top`), so a small run pays for what it holds. */
    m->capacity = capacity < M_MAX_ENTITIES ? capacity : M_MAX_ENTITIES;
    m->ents = m_xalloc(NULL, sizeof(m_entity) * m->capacity);
    m->generation = calloc(M_MAX_INDEX, sizeof(uint32_t));
    m->slot = m_xalloc(NULL, sizeof(int32_t) * M_MAX_INDEX);
    if (m->generation == NULL) {
        fprintf(stderr, "model: out of memory\n");
        abort();
    }
    for (int s = 0; s < M_NSYS; s++) {
        m->enabled[s] = true; /* "systems start enabled" */
    }
}

void m_copy(model *dst, const model *src, bool keep_hook_counts) {
    model kept = *dst;
    if (kept.ents == NULL) {
        m_init(&kept, src->capacity);
    }
    *dst = *src;
    dst->ents = m_xalloc(kept.ents, sizeof(m_entity) * src->capacity);
    memcpy(dst->ents, src->ents, sizeof(m_entity) * src->n);
    dst->queue = src->queue_capacity > 0 ? m_xalloc(kept.queue, sizeof(m_cmd) * src->queue_capacity) : kept.queue;
    dst->queue_capacity = src->queue_capacity > 0 ? src->queue_capacity : kept.queue_capacity;
    if (src->queue_capacity > 0) {
        memcpy(dst->queue, src->queue, sizeof(m_cmd) * src->queue_capacity);
    }
    dst->doomed = src->doomed_capacity > 0 ? m_xalloc(kept.doomed, sizeof(uint64_t) * src->doomed_capacity)
                                           : kept.doomed;
    dst->doomed_capacity = src->doomed_capacity > 0 ? src->doomed_capacity : kept.doomed_capacity;
    if (src->doomed_count > 0) {
        memcpy(dst->doomed, src->doomed, sizeof(uint64_t) * src->doomed_count);
    }
    /* The index: what lies below top; zeros above it, as m_init leaves them. */
    dst->generation = kept.generation;
    dst->slot = kept.slot;
    memcpy(dst->generation, src->generation, sizeof(uint32_t) * src->top);
    memcpy(dst->slot, src->slot, sizeof(int32_t) * src->top);
    if (kept.top > src->top) {
        memset(dst->generation + src->top, 0, sizeof(uint32_t) * (kept.top - src->top));
    }
    if (keep_hook_counts) {
        dst->move_added = kept.move_added;
        dst->move_removed = kept.move_removed;
        dst->armor_added = kept.armor_added;
        dst->armor_removed = kept.armor_removed;
        dst->mark_added = kept.mark_added;
        dst->mark_removed = kept.mark_removed;
    }
}

void m_free(model *m) {
    free(m->ents);
    free(m->queue);
    free(m->doomed);
    free(m->generation);
    free(m->slot);
    memset(m, 0, sizeof *m);
}

m_entity *m_find(const model *m, uint64_t h) {
    uint32_t index = (uint32_t)h;
    if (index >= m->top || m->slot[index] < 0) {
        return NULL;
    }
    m_entity *e = &m->ents[m->slot[index]];
    return e->h == h ? e : NULL;
}

bool m_alive(const model *m, uint64_t h) {
    return h != 0 && m_find(m, h) != NULL;
}

/* True if mask has every bit of all and none of none. */
static bool m_has(uint16_t mask, uint16_t all, uint16_t none) {
    return (mask & all) == all && (mask & none) == 0;
}

/* Move's terms: read Vel, write Pos, without Frozen (its aspect and hooks follow them). */
static bool m_move_matches(uint16_t mask) {
    return m_has(mask, M_BIT(M_POS) | M_BIT(M_VEL), M_BIT(M_FROZEN));
}

bool m_query_matches(const m_entity *e, int q) {
    switch (q) {
    case M_Q_MOVERS: return m_has(e->mask, M_BIT(M_POS) | M_BIT(M_VEL), M_BIT(M_FROZEN));
    case M_Q_NAMED: return m_has(e->mask, M_BIT(M_NAME), 0);
    case M_Q_HEAVY: return m_has(e->mask, M_BIT(M_BIG), M_BIT(M_NAME));
    case M_Q_HURT: return m_has(e->mask, M_BIT(M_HP), 0);
    case M_Q_TOUCHED: return m_has(e->mask, M_BIT(M_TINY), 0);
    case M_Q_TREE: return m_has(e->mask, M_BIT(M_POS), 0);
    }
    return false;
}

bool m_system_matches(const m_entity *e, int s) {
    switch (s) {
    case M_SYS_GROW: return m_has(e->mask, M_BIT(M_HP), M_BIT(M_FROZEN));
    case M_SYS_MOVE: return m_move_matches(e->mask);
    case M_SYS_HUNT: return m_has(e->mask, M_BIT(M_LINK), 0);
    case M_SYS_HEAL: return m_has(e->mask, M_BIT(M_HP), 0);
    case M_SYS_THAW: return m_has(e->mask, M_BIT(M_POS) | M_BIT(M_FROZEN), 0);
    }
    return false;
}

bool m_set_matches(const m_entity *e, int k) {
    switch (k) {
    case M_SET_HURT: return m_query_matches(e, M_Q_HURT);
    case M_SET_TOUCHED: return m_query_matches(e, M_Q_TOUCHED);
    case M_SET_HEAL: return m_system_matches(e, M_SYS_HEAL);
    }
    return false;
}

uint32_t m_pending(const model *m) {
    return m->queue_count + m->doomed_count - m->doomed_done;
}

bool m_adopt(model *m, uint64_t h) {
    uint32_t index = (uint32_t)h, generation = (uint32_t)(h >> 32);
    /* "a destroyed index is reused with the next generation": a handle is never issued twice. */
    if (h == 0 || index >= M_MAX_INDEX || generation <= m->generation[index] || m_alive(m, h)) {
        return false;
    }
    for (; m->top <= index; m->top++) {
        m->slot[m->top] = -1;
    }
    m->generation[index] = generation;
    return true;
}

/* "A component is tracked only if some query has it under `changed`":
 * Hp by Hurt and Heal, Tiny by Touched. */
void m_mark(model *m, m_entity *e, int c) {
    (void)m;
    if (c == M_HP) {
        e->dirty |= (uint8_t)(1u << M_SET_HURT | 1u << M_SET_HEAL);
    } else if (c == M_TINY) {
        e->dirty |= (uint8_t)(1u << M_SET_TOUCHED);
    }
}

/* Copy vals[c] (NULL: defaults) of each component of mask into dst. */
static void m_values(unsigned char dst[M_NC][M_MAX_SIZE], uint16_t mask, const void *const vals[M_NC]) {
    for (int c = 0; c < M_NC; c++) {
        if ((mask & M_BIT(c)) && m_size[c] > 0) {
            memcpy(dst[c], vals != NULL && vals[c] != NULL ? vals[c] : m_default[c], m_size[c]);
        }
    }
}

/* Append a command (values copied now: "the value is copied now"). */
static void m_push(model *m, uint8_t kind, const uint64_t *hs, uint32_t n, uint16_t mask,
                   const void *const vals[M_NC]) {
    if (m->queue_count == m->queue_capacity) {
        uint32_t cap = m->queue_capacity ? m->queue_capacity * 2 : 64;
        m_cmd *q = m_xalloc(NULL, sizeof(m_cmd) * cap);
        for (uint32_t i = 0; i < m->queue_count; i++) {
            q[i] = m->queue[(m->queue_head + i) % m->queue_capacity];
        }
        free(m->queue);
        m->queue = q;
        m->queue_head = 0;
        m->queue_capacity = cap;
    }
    m_cmd *cmd = &m->queue[(m->queue_head + m->queue_count++) % m->queue_capacity];
    memset(cmd, 0, sizeof *cmd);
    cmd->kind = kind;
    cmd->mask = mask;
    cmd->n = n;
    memcpy(cmd->h, hs, sizeof(uint64_t) * n);
    if (kind == M_CMD_ADD) {
        m_values(cmd->val, mask, vals);
    }
}

/* An entity's archetype changes from e->mask to `to`, the values of `write`
 * written: "on_remove for what it stops matching or loses, the move, the
 * values, new aspects at their defaults, on_add for what it starts matching
 * or gains". Hooks' structural changes are recorded (deferred). The fuzz
 * world's hooks: Armor's on_add adds Mark, its on_remove removes Mark if
 * present; the others count. */
static void m_link_hook(model *m, m_entity *e, int c, bool added);

static void m_move(model *m, m_entity *e, uint16_t to, uint16_t write, const void *const vals[M_NC]) {
    uint16_t from = e->mask;
    /* An exclusive relation's link leaves the index (its hook) as it goes. */
    for (int c = M_CHILD; c < M_NC; c++) {
        if (c != M_TGTS && (from & ~to & M_BIT(c))) {
            m_link_hook(m, e, c, false);
        }
    }
    bool was = m_move_matches(from), is = m_move_matches(to);
    m->depth++;
    if (was && !is) {
        m->move_removed++;
    }
    uint16_t lost = from & ~to & M_HOOKED, gained = to & ~from & M_HOOKED;
    if (lost & M_BIT(M_ARMOR)) {
        m->armor_removed++;
        if (e->mask & M_BIT(M_MARK)) {
            m_push(m, M_CMD_REMOVE, &e->h, 1, M_BIT(M_MARK), NULL);
        }
    }
    if (lost & M_BIT(M_MARK)) {
        m->mark_removed++;
    }
    e->mask = to;
    m_values(e->val, write, vals);
    for (int c = M_CHILD; c < M_NC; c++) {
        if (c != M_TGTS && (to & ~from & M_BIT(c))) {
            m_link_hook(m, e, c, true);
        }
    }
    if (!was && is) {
        e->steps = 0; /* "an aspect is made, at its defaults, when an entity starts to match" */
    }
    if (gained & M_BIT(M_ARMOR)) {
        m->armor_added++;
        m_push(m, M_CMD_ADD, &e->h, 1, M_BIT(M_MARK), NULL);
    }
    if (gained & M_BIT(M_MARK)) {
        m->mark_added++;
    }
    if (!was && is) {
        m->move_added++;
    }
    m->depth--;
}

static bool m_reaches(const model *m, int c, uint64_t from, uint64_t h);

/* True if the link of exclusive relation c in `value` can be filed for e:
 * "a deferred link whose target has died, or which would close a cycle,
 * by the time it is applied is dropped" (a null target is a link too). */
static bool m_link_fits(const model *m, const m_entity *e, int c, const void *value) {
    uint64_t t = 0;
    memcpy(&t, (value != NULL ? (const unsigned char *)value : m_default[c]) + M_LINK_TARGET, sizeof t);
    return t == 0 || (m_find(m, t) != NULL && !m_reaches(m, c, t, e->h));
}

/* Add (or overwrite) the components of mask now, and mark them. "The
 * source ends as if the link had never been recorded": a link that cannot
 * be filed leaves the add, and the entity keeps the link it has, or gets
 * none; an add over a link re-files it. */
static void m_apply_add(model *m, m_entity *e, uint16_t mask, const void *const vals[M_NC]) {
    static const int links[2] = {M_CHILD, M_DOCK};
    uint16_t over = 0;
    for (int i = 0; i < 2; i++) {
        int c = links[i];
        if ((mask & M_BIT(c)) && !m_link_fits(m, e, c, vals != NULL ? vals[c] : NULL)) {
            mask &= (uint16_t)~M_BIT(c);
        } else if (mask & e->mask & M_BIT(c)) {
            over |= M_BIT(c);
            m_link_hook(m, e, c, false); /* the old link leaves the index */
        }
    }
    if (mask == 0) {
        return;
    }
    m_move(m, e, e->mask | mask, mask, vals);
    for (int i = 0; i < 2; i++) {
        if (over & M_BIT(links[i])) {
            m_link_hook(m, e, links[i], true);
        }
    }
    for (int c = 0; c < M_NC; c++) {
        if (mask & M_BIT(c)) {
            m_mark(m, e, c);
        }
    }
}

static void m_target_dies(model *m, m_entity *e);

/* Destroy now: the relations' policies ("inside the destroy's deferral
 * scope"), on_remove of what it matches and has, then gone. */
static void m_destroy_now(model *m, m_entity *e) {
    uint32_t index = (uint32_t)e->h;
    m->depth++;
    m_target_dies(m, e);
    m->depth--;
    e = &m->ents[m->slot[index]]; /* (nothing moves the array: m_destroy only records here) */
    e->dying = true;
    m_move(m, e, 0, 0, NULL); /* the hooks a move to nothing runs are a destroy's */
    m->dead[m->dead_count++ % M_DEAD_RING] = e->h;
    m->slot[(uint32_t)e->h] = -1;
    *e = m->ents[--m->n];
    if (e != &m->ents[m->n]) {
        m->slot[(uint32_t)e->h] = (int32_t)(e - m->ents);
    }
}

void m_create(model *m, const uint64_t *hs, uint32_t n, uint16_t mask, const void *const vals[M_NC]) {
    if (n > m->capacity - m->n) {
        fprintf(stderr, "model: more than %u entities\n", m->capacity);
        abort();
    }
    for (uint32_t i = 0; i < n; i++) {
        m->slot[(uint32_t)hs[i]] = (int32_t)m->n;
        m_entity *e = &m->ents[m->n++];
        memset(e, 0, sizeof *e);
        e->h = hs[i];
    }
    if (mask == 0) {
        return;
    }
    /* "While iterating, the entities are created at once and their
     * components added when the deferral scope ends": one command. */
    if (m->depth > 0) {
        m_push(m, M_CMD_ADD, hs, n, mask, vals);
        return;
    }
    /* Placed with their components at once: a new entity's hooks are those of a move from nothing. */
    for (uint32_t i = 0; i < n; i++) {
        m_apply_add(m, m_find(m, hs[i]), mask, vals);
    }
}

int m_destroy(model *m, uint64_t h) {
    m_entity *e = m_find(m, h);
    /* "destroying twice returns false"; a scheduled destroy counts. */
    if (e == NULL || e->doomed) {
        return M_STALE;
    }
    e->doomed = true;
    if (m->in_step) { /* "destroy: when the step ends" */
        if (m->doomed_count == m->doomed_capacity) {
            m->doomed_capacity = m->doomed_capacity ? m->doomed_capacity * 2 : 64;
            m->doomed = m_xalloc(m->doomed, sizeof(uint64_t) * m->doomed_capacity);
        }
        m->doomed[m->doomed_count++] = h;
    } else if (m->depth > 0) {
        e->recorded = true;
        m_push(m, M_CMD_DESTROY, &h, 1, 0, NULL);
    } else {
        m_destroy_now(m, e);
    }
    return M_OK;
}

int m_add(model *m, uint64_t h, uint16_t mask, const void *const vals[M_NC]) {
    m_entity *e = m_find(m, h);
    if (e == NULL) {
        return M_STALE;
    }
    if (mask == 0) {
        return M_OK;
    }
    if (m->depth > 0) {
        m_push(m, M_CMD_ADD, &h, 1, mask, vals);
    } else {
        m_apply_add(m, e, mask, vals);
    }
    return M_OK;
}

int m_remove(model *m, uint64_t h, uint16_t mask) {
    m_entity *e = m_find(m, h);
    if (e == NULL) {
        return M_STALE;
    }
    /* "the MISSING check is made now and again when applied" */
    if ((e->mask & mask) == 0) {
        return M_MISSING;
    }
    if (m->depth > 0) {
        m_push(m, M_CMD_REMOVE, &h, 1, mask, NULL);
    } else {
        m_move(m, e, e->mask & ~mask, 0, NULL);
    }
    return M_OK;
}

int m_set(model *m, uint64_t h, int c, const void *val) {
    m_entity *e = m_find(m, h);
    if (e == NULL) {
        return M_STALE;
    }
    if ((e->mask & M_BIT(c)) == 0) {
        return M_MISSING;
    }
    memcpy(e->val[c], val, m_size[c]); /* "set ... act at once" */
    m_mark(m, e, c);
    return M_OK;
}

unsigned char *m_mut(model *m, uint64_t h, int c) {
    m_entity *e = m_find(m, h);
    if (e == NULL || (e->mask & M_BIT(c)) == 0 || m_size[c] == 0) {
        return NULL;
    }
    m_mark(m, e, c);
    return e->val[c];
}

void m_defer_begin(model *m) {
    m->depth++;
}

void m_defer_end(model *m) {
    m->depth--;
}

bool m_flush_due(const model *m) {
    return m->depth == 0 && (m->queue_count > 0 || (!m->in_step && m->doomed_count > 0));
}

void m_flush_begin(model *m) {
    if (m->doomed_done > 0) {
        m->doomed_count -= m->doomed_done;
        memmove(m->doomed, m->doomed + m->doomed_done, sizeof(uint64_t) * m->doomed_count);
        m->doomed_done = 0;
    }
}

bool m_flush_unit(model *m) {
    /* "Scheduled destroys come after every command, as if at the end of the
     * step": all of them, then what their policies recorded. */
    if (m->doomed_done > 0 || (m->queue_count == 0 && !m->in_step && m->doomed_count > 0)) {
        m->depth++;
        m_entity *e = m_find(m, m->doomed[m->doomed_done++]);
        if (e != NULL) {
            m_destroy_now(m, e);
        }
        m->depth--;
        if (m->doomed_done == m->doomed_count) {
            m->doomed_count = m->doomed_done = 0;
        }
        return true;
    }
    if (m->queue_count > 0) {
        /* A copy: hooks may grow the queue under it. */
        m_cmd *front = &m->queue[m->queue_head];
        m_cmd cmd = *front;
        uint32_t i = front->done++;
        bool last = front->done >= front->n;
        m_entity *e = m_find(m, cmd.h[i]);
        m->depth++;      /* hooks run by a flush record into it */
        if (e != NULL) { /* "a dead entity or an absent component is skipped" */
            if (cmd.kind == M_CMD_ADD) {
                const void *vals[M_NC];
                for (int c = 0; c < M_NC; c++) {
                    vals[c] = cmd.val[c];
                }
                m_apply_add(m, e, cmd.mask, vals);
            } else if (cmd.kind == M_CMD_REMOVE) {
                if (e->mask & cmd.mask) {
                    m_move(m, e, e->mask & ~cmd.mask, 0, NULL);
                }
            } else {
                m_destroy_now(m, e);
            }
        }
        m->depth--;
        if (last) {
            m->queue_head = (m->queue_head + 1) % m->queue_capacity;
            m->queue_count--;
        }
        return true;
    }
    return false;
}

/* --- Relations ---------------------------------------------------------------
 * docs/relations.md: "a source has at most one target"; "a link that would
 * close a cycle (a link to itself included) is refused"; "depth_: links up
 * to the root"; the policies "run when the target's destroy is applied". */

uint64_t m_link_target(const m_entity *e, int c) {
    uint64_t t = 0;
    if (e->mask & M_BIT(c)) {
        memcpy(&t, e->val[c] + M_LINK_TARGET, sizeof t);
    }
    return t;
}

uint32_t m_link_depth(const m_entity *e, int c) {
    uint32_t d = 0;
    if (e->mask & M_BIT(c)) {
        memcpy(&d, e->val[c] + M_LINK_DEPTH, sizeof d);
    }
    return d;
}

static void m_link_put(m_entity *e, int c, uint64_t target, uint32_t depth) {
    memcpy(e->val[c] + M_LINK_TARGET, &target, sizeof target);
    memcpy(e->val[c] + M_LINK_DEPTH, &depth, sizeof depth);
}

bool m_is_source(const model *m, const m_entity *s, int c, uint64_t t) {
    const m_entity *te = m_find(m, t);
    /* A target's lists go when its destroy is applied ("its sources"). */
    return te != NULL && !te->dying && m_link_target(s, c) == t;
}

bool m_targets_has(const m_entity *e, uint64_t t) {
    for (uint32_t i = 0; i < e->ntgts; i++) {
        if (e->tgts[i] == t) {
            return true;
        }
    }
    return false;
}

/* e at depth `depth` (if it has a link), each source below it its parent's plus one. */
static void m_redepth(model *m, int c, m_entity *e, uint32_t depth) {
    if (e->mask & M_BIT(c)) {
        m_link_put(e, c, m_link_target(e, c), depth);
    }
    uint32_t below = m_link_depth(e, c) + 1;
    for (uint32_t i = 0; i < m->n; i++) {
        if (m_is_source(m, &m->ents[i], c, e->h)) {
            m_redepth(m, c, &m->ents[i], below);
        }
    }
}

/* True if walking up from `from` meets h (linking h to `from` would close a cycle). */
static bool m_reaches(const model *m, int c, uint64_t from, uint64_t h) {
    for (uint32_t steps = 0; from != 0 && steps <= m->n; steps++) {
        if (from == h) {
            return true;
        }
        const m_entity *f = m_find(m, from);
        from = f != NULL ? m_link_target(f, c) : 0;
    }
    return false;
}

/* The hook of an exclusive link: filed under its target (m_apply_add has
 * left out a link that cannot be). */
static void m_link_hook(model *m, m_entity *e, int c, bool added) {
    if (!added) {
        if (m_link_target(e, c) != 0) {
            m_redepth(m, c, e, 0); /* what was below e is now below a root */
        }
        return;
    }
    uint64_t t = m_link_target(e, c);
    if (t == 0) {
        return;
    }
    m_link_put(e, c, 0, 0);
    const m_entity *te = m_find(m, t);
    if (te != NULL && !m_reaches(m, c, t, e->h)) {
        m_link_put(e, c, t, 0);
        m_redepth(m, c, e, m_link_depth(te, c) + 1);
    } else {
        m_redepth(m, c, e, 0);
    }
}

int m_link_set(model *m, int c, uint64_t h, uint64_t target, uint8_t slot) {
    m_entity *e = m_find(m, h);
    m_entity *te = m_find(m, target);
    if (e == NULL || te == NULL) {
        return M_STALE;
    }
    if (m_reaches(m, c, target, h)) {
        return M_CYCLE;
    }
    unsigned char value[M_MAX_SIZE];
    memcpy(value, m_default[c], M_MAX_SIZE);
    memcpy(value + M_LINK_TARGET, &target, sizeof target);
    if (c == M_DOCK) {
        value[M_LINK_SLOT] = slot;
    }
    const void *vals[M_NC] = {[M_CHILD] = value, [M_DOCK] = value};
    if (m->depth > 0) {
        /* "replacing a link is recorded the same way (an add, which re-files it)" */
        m_push(m, M_CMD_ADD, &h, 1, M_BIT(c), vals);
    } else if (e->mask & M_BIT(c)) {
        /* "Replacing a link in place, when the source has one already, is no move at all." */
        memcpy(e->val[c], value, m_size[c]);
        m_redepth(m, c, e, m_link_depth(te, c) + 1);
    } else {
        m_apply_add(m, e, M_BIT(c), vals);
    }
    return M_OK;
}

int m_link_remove(model *m, int c, uint64_t h) {
    m_entity *e = m_find(m, h);
    if (e == NULL) {
        return M_STALE;
    }
    if (m->depth > 0) {
        m_push(m, M_CMD_REMOVE, &h, 1, M_BIT(c), NULL);
        return M_OK;
    }
    if ((e->mask & M_BIT(c)) == 0) {
        return M_MISSING;
    }
    m_move(m, e, e->mask & ~M_BIT(c), 0, NULL);
    return M_OK;
}

/* Targets' tag goes (with the last link): now, or recorded. */
static void m_tag_remove(model *m, m_entity *e) {
    if (m->depth > 0) {
        m_push(m, M_CMD_REMOVE, &e->h, 1, M_BIT(M_TGTS), NULL);
    } else if (e->mask & M_BIT(M_TGTS)) {
        m_move(m, e, e->mask & ~M_BIT(M_TGTS), 0, NULL);
    }
}

static void m_tgts_take(m_entity *e, uint64_t t) {
    for (uint32_t i = 0; i < e->ntgts; i++) {
        if (e->tgts[i] == t) {
            e->tgts[i] = e->tgts[--e->ntgts];
            return;
        }
    }
}

int m_targets_add(model *m, uint64_t h, uint64_t target) {
    m_entity *e = m_find(m, h);
    if (e == NULL || m_find(m, target) == NULL) {
        return M_STALE;
    }
    if (m_targets_has(e, target)) {
        return M_OK;
    }
    if (m->depth > 0 && m_find(m, target)->recorded) {
        return M_OK; /* "a link to a target whose destroy is recorded before it is dropped at once" */
    }
    /* The links themselves change at once; the tag is an add (deferred while iterating). */
    if (m->depth > 0 || (e->mask & M_BIT(M_TGTS)) == 0) {
        m_add(m, h, M_BIT(M_TGTS), NULL);
        e = m_find(m, h);
    }
    e->tgts[e->ntgts++] = target;
    return M_OK;
}

int m_targets_remove(model *m, uint64_t h, uint64_t target) {
    m_entity *e = m_find(m, h);
    if (e == NULL) {
        return M_STALE;
    }
    if (!m_targets_has(e, target)) {
        return M_MISSING;
    }
    if (e->ntgts == 1) {
        m_tag_remove(m, e);
    }
    m_tgts_take(e, target);
    return M_OK;
}

/* Destroy e and, pre-order, every source below it in ChildOf. */
static void m_destroy_below(model *m, uint64_t h) {
    (void)m_destroy(m, h);
    for (uint32_t i = 0; i < m->n; i++) {
        if (m_is_source(m, &m->ents[i], M_CHILD, h)) {
            m_destroy_below(m, m->ents[i].h);
        }
    }
}

int m_destroy_tree(model *m, uint64_t root) {
    if (m_find(m, root) == NULL) {
        return M_STALE;
    }
    m->depth++; /* "Inside one scope nothing applies" */
    m_destroy_below(m, root);
    m->depth--;
    return M_OK;
}

/* What e's destroy does, relation by relation in schema order, then the
 * entity fields: ChildOf's sources are destroyed, Targets' links to e go
 * (a source's tag with its last), Docked's sources lose their link (roots
 * until the recorded remove), Aim fields naming e are cleared. */
static void m_target_dies(model *m, m_entity *e) {
    if (m->linkless) {
        return; /* nothing names it (the harness checks that no entity holds a link or a field) */
    }
    uint64_t h = e->h;
    for (uint32_t i = 0; i < m->n; i++) {
        if (m_is_source(m, &m->ents[i], M_CHILD, h)) {
            (void)m_destroy(m, m->ents[i].h);
        }
    }
    for (uint32_t i = 0; i < m->n; i++) {
        m_entity *s = &m->ents[i];
        if (m_targets_has(s, h)) {
            m_tgts_take(s, h);
            if (s->ntgts == 0) {
                m_tag_remove(m, s);
            }
        }
    }
    m_find(m, h)->ntgts = 0; /* as a source, its links go from its targets' lists */
    for (uint32_t i = 0; i < m->n; i++) {
        m_entity *s = &m->ents[i];
        if (m_is_source(m, s, M_DOCK, h)) {
            m_redepth(m, M_DOCK, s, 0);
            m_push(m, M_CMD_REMOVE, &s->h, 1, M_BIT(M_DOCK), NULL);
        }
    }
    for (uint32_t i = 0; i < m->n; i++) {
        m_entity *s = &m->ents[i];
        uint64_t who;
        memcpy(&who, s->val[M_AIM], sizeof who);
        if ((s->mask & M_BIT(M_AIM)) && who == h) {
            memset(s->val[M_AIM], 0, sizeof who);
        }
    }
}

void m_save_take(const model *m, m_save *s) {
    s->ents = m_xalloc(s->ents, sizeof(m_entity) * (m->n > 0 ? m->n : 1));
    memcpy(s->ents, m->ents, sizeof(m_entity) * m->n);
    s->n = m->n;
    s->generation = m_xalloc(s->generation, sizeof(uint32_t) * (m->top > 0 ? m->top : 1));
    memcpy(s->generation, m->generation, sizeof(uint32_t) * m->top);
    s->top = m->top;
    memcpy(s->dead, m->dead, sizeof s->dead);
    s->dead_count = m->dead_count;
    s->steps = m->steps;
}

void m_save_free(m_save *s) {
    free(s->ents);
    free(s->generation);
    memset(s, 0, sizeof *s);
}

/* The hooks of every entity leaving: as if each were destroyed, nothing they record kept. */
static void m_all_leave(model *m) {
    for (uint32_t i = 0; i < m->n; i++) {
        const m_entity *e = &m->ents[i];
        m->move_removed += m_move_matches(e->mask);
        m->armor_removed += (e->mask & M_BIT(M_ARMOR)) != 0;
        m->mark_removed += (e->mask & M_BIT(M_MARK)) != 0;
        m->slot[(uint32_t)e->h] = -1;
    }
    m->n = 0;
    m->queue_count = 0;
    m->doomed_count = m->doomed_done = 0;
}

void m_world_destroyed(model *m) {
    m_all_leave(m);
    for (int s = 0; s < M_NSYS; s++) {
        m->enabled[s] = true;
    }
    m->steps = 0;
}

void m_load(model *m, const m_save *s) {
    m_all_leave(m);
    memcpy(m->ents, s->ents, sizeof(m_entity) * s->n);
    m->n = s->n;
    uint32_t top = m->top > s->top ? m->top : s->top;
    for (uint32_t i = m->top; i < top; i++) {
        m->slot[i] = -1;
    }
    memcpy(m->generation, s->generation, sizeof(uint32_t) * s->top);
    memset(m->generation + s->top, 0, sizeof(uint32_t) * (top - s->top));
    m->top = top;
    memcpy(m->dead, s->dead, sizeof m->dead);
    m->dead_count = s->dead_count;
    m->steps = s->steps;
    for (uint32_t i = 0; i < m->n; i++) {
        m->slot[(uint32_t)m->ents[i].h] = (int32_t)i;
    }
    for (uint32_t i = 0; i < m->n; i++) {
        m_entity *e = &m->ents[i];
        e->doomed = false;
        e->dirty = 0;
        for (int k = 0; k < M_NSETS; k++) {
            if (m_set_matches(e, k)) {
                e->dirty |= (uint8_t)(1u << k);
            }
        }
        uint16_t mask = e->mask;
        e->mask = 0;
        m_move(m, e, mask, 0, NULL); /* arriving: the hooks of a move from nothing */
    }
}
