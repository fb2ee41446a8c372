/* relations: links between entities, each row beside the same work by hand
 * over plain arrays in the same run.
 *
 *   link      set a ChildOf link and remove it again (ns per op)
 *   children  visit the children of 10,000 parents with 100 each (ns per child)
 *   destroy   destroy the root of a 1,000,000-node tree, the policy taking the
 *             rest (ns per node)
 *   cascade   propagate a transform through 1,000,000 nodes of depth 1-8 with
 *             a cascade pass (ns per node), against a pass over arrays sorted
 *             by depth; the same pass after a frame's create: of an entity
 *             the pass does not visit (the saved pass holds), and of a new
 *             deepest leaf (the pass is built again) */
#include "bench.h"
#include "plain.h"
#include "relations.h"

#include <stdlib.h>

/* The hand-written hierarchy: parent by index, and each parent's children in
 * an array with each child's place in it (the same shape as Strata's index). */
typedef struct plain_tree {
    uint32_t n;
    uint32_t *parent; /* UINT32_MAX: a root */
    uint32_t *slot;
    uint32_t **kids;
    uint32_t *kid_count, *kid_cap;
    bool *alive;
} plain_tree;

static plain_tree tree_make(uint32_t n) {
    plain_tree t = {n,
                    bench_alloc(sizeof(uint32_t) * n),
                    bench_alloc(sizeof(uint32_t) * n),
                    calloc(n, sizeof(uint32_t *)),
                    calloc(n, sizeof(uint32_t)),
                    calloc(n, sizeof(uint32_t)),
                    bench_alloc(n)};
    bench_check(t.kids != NULL && t.kid_count != NULL && t.kid_cap != NULL, "relations: plain tree");
    for (uint32_t i = 0; i < n; i++) {
        t.parent[i] = UINT32_MAX;
        t.alive[i] = true;
    }
    return t;
}

static void tree_free(plain_tree *t) {
    for (uint32_t i = 0; i < t->n; i++) {
        free(t->kids[i]);
    }
    free(t->parent);
    free(t->slot);
    free(t->kids);
    free(t->kid_count);
    free(t->kid_cap);
    free(t->alive);
}

static void tree_link(plain_tree *t, uint32_t child, uint32_t parent) {
    if (t->kid_count[parent] == t->kid_cap[parent]) {
        t->kid_cap[parent] = t->kid_cap[parent] ? t->kid_cap[parent] * 2 : 4;
        t->kids[parent] = plain_grow(t->kids[parent], sizeof(uint32_t) * t->kid_cap[parent]);
    }
    t->parent[child] = parent;
    t->slot[child] = t->kid_count[parent];
    t->kids[parent][t->kid_count[parent]++] = child;
}

static void tree_unlink(plain_tree *t, uint32_t child) {
    uint32_t parent = t->parent[child], i = t->slot[child];
    uint32_t last = t->kids[parent][--t->kid_count[parent]];
    t->kids[parent][i] = last;
    t->slot[last] = i;
    t->parent[child] = UINT32_MAX;
}

/* --- link: set and remove ----------------------------------------------------------- */

typedef struct link_state {
    relations_world *w;
    relations_entity *e;
    plain_tree t;
    uint32_t n;
} link_state;

static void link_strata(void *state) {
    link_state *s = state;
    for (uint32_t i = 1; i < s->n; i++) {
        relations_child_of_set(s->w, s->e[i], s->e[0]);
    }
    for (uint32_t i = 1; i < s->n; i++) {
        relations_child_of_remove(s->w, s->e[i]);
    }
}

static void link_plain(void *state) {
    link_state *s = state;
    for (uint32_t i = 1; i < s->n; i++) {
        tree_link(&s->t, i, 0);
    }
    for (uint32_t i = 1; i < s->n; i++) {
        tree_unlink(&s->t, i);
    }
}

/* --- children: visit --------------------------------------------------------------------- */

enum { PARENTS = 10000, KIDS = 100 };

typedef struct visit_state {
    relations_world *w;
    relations_entity *parents;
    plain_tree t;
    uint64_t sum;
} visit_state;

BENCH_KERNEL uint64_t visit_sum(const uint64_t *ids, uint32_t n) {
    uint64_t sum = 0;
    for (uint32_t i = 0; i < n; i++) {
        sum += ids[i];
    }
    return sum;
}

BENCH_KERNEL uint64_t visit_sum32(const uint32_t *ids, uint32_t n) {
    uint64_t sum = 0;
    for (uint32_t i = 0; i < n; i++) {
        sum += ids[i];
    }
    return sum;
}

static void visit_strata(void *state) {
    visit_state *s = state;
    for (uint32_t p = 0; p < PARENTS; p++) {
        uint32_t n = 0;
        const relations_entity *kids = relations_child_of_sources(s->w, s->parents[p], &n);
        s->sum += visit_sum((const uint64_t *)(const void *)kids, n);
    }
}

static void visit_plain(void *state) {
    visit_state *s = state;
    for (uint32_t p = 0; p < PARENTS; p++) {
        s->sum += visit_sum32(s->t.kids[p], s->t.kid_count[p]);
    }
}

/* --- the trees of destroy and cascade ----------------------------------------------------- */

/* Node i's parent in a tree of n nodes whose depths run 1..8 below the roots:
 * 1/8 of the nodes are roots, the rest hang under a node made before them
 * one level up (levels of equal size). */
static uint32_t forest_parent(uint32_t i, uint32_t n) {
    uint32_t level = n / 8, depth = i / level;
    if (depth == 0 || depth >= 8) {
        return depth == 0 ? UINT32_MAX : (i - 7 * level) % level + 6 * level;
    }
    return (depth - 1) * level + (uint32_t)(((uint64_t)i * 2654435761u) % level);
}

/* --- destroy -------------------------------------------------------------------------------- */

static void bench_destroy(uint32_t n) {
    double strata[BENCH_MAX_RUNS], plain[BENCH_MAX_RUNS];
    int runs = bench_runs();
    relations_entity *e = bench_alloc(sizeof *e * n);
    uint32_t *stack = bench_alloc(sizeof *stack * n);
    for (int r = 0; r < runs; r++) {
        relations_world *w = relations_world_create(&(strata_world_desc_t){.initial_capacity = n});
        bench_check(relations_entity_create_many(w, &(relations_bundle){0}, n, e) == STRATA_OK, "relations: create");
        plain_tree t = tree_make(n);
        for (uint32_t i = 1; i < n; i++) {
            uint32_t up = (i - 1) / 4; /* one tree: four children a node */
            bench_check(relations_child_of_set(w, e[i], e[up]) == STRATA_OK, "relations: link");
            tree_link(&t, i, up);
        }
        double t0 = bench_now();
        bench_check(relations_entity_destroy(w, e[0]) == STRATA_OK, "relations: destroy");
        double t1 = bench_now();
        /* By hand: walk the tree from the root, freeing each node. */
        uint32_t top = 0, freed = 0;
        stack[top++] = 0;
        while (top > 0) {
            uint32_t v = stack[--top];
            t.alive[v] = false;
            freed++;
            for (uint32_t k = 0; k < t.kid_count[v]; k++) {
                stack[top++] = t.kids[v][k];
            }
            t.kid_count[v] = 0;
        }
        double t2 = bench_now();
        relations_world_stats_t st;
        relations_world_stats(w, &st);
        bench_check(st.entities == 0 && freed == n, "relations: destroyed all");
        strata[r] = (t1 - t0) / n;
        plain[r] = (t2 - t1) / n;
        relations_world_destroy(w);
        tree_free(&t);
    }
    bench_record("relations", "destroy a tree's root (policy: destroy)", n, "ns/op", strata, plain, runs, BENCH_NONE);
    free(e);
    free(stack);
}

/* --- cascade --------------------------------------------------------------------------------- */

typedef struct cascade_state {
    relations_world *w;
    relations_entity deepest; /* a node of the deepest level: a new child of it keeps the rows sorted */
    uint32_t n;
    const uint32_t *up; /* by hand: parent by position, UINT32_MAX for a root; sorted by depth */
    const float *local; /* x, y by position */
    float *global;
    uint32_t visited;
} cascade_state;

BENCH_KERNEL void propagate_rows(uint32_t count, const relations_local *restrict local,
                                 relations_global *restrict global, const uint32_t *restrict up,
                                 const relations_global *restrict parent) {
    if (up == NULL) {
        for (uint32_t i = 0; i < count; i++) {
            global[i].x = local[i].x;
            global[i].y = local[i].y;
        }
        return;
    }
    for (uint32_t i = 0; i < count; i++) {
        const relations_global *p = &parent[up[i]];
        global[i].x = p->x + local[i].x;
        global[i].y = p->y + local[i].y;
    }
}

static void cascade_strata(void *state) {
    cascade_state *s = state;
    for (relations_propagate_iter it = relations_propagate_begin(s->w); relations_propagate_next(&it);) {
        /* The batch's parents (one table): their rows, and that table's Global. */
        propagate_rows(it.count, it.local, it.global, it.up.row, it.up.global);
        s->visited += it.count;
    }
}

/* A frame that creates an entity the pass does not visit (Global alone), then the pass. */
static void cascade_strata_after_create(void *state) {
    cascade_state *s = state;
    bench_check(relations_entity_create_bundle(s->w, &(relations_bundle){.global = &(relations_global){0}}).id != 0,
                "relations: create");
    cascade_strata(state);
}

/* A frame that adds a leaf below the deepest level, then the pass. */
static void cascade_strata_after_leaf(void *state) {
    cascade_state *s = state;
    relations_entity e = relations_entity_create_bundle(s->w, &(relations_bundle){.local = &(relations_local){1, 1},
                                                                                  .global = &(relations_global){0},
                                                                                  .child_of = &(relations_child_of){
                                                                                      .target = s->deepest}});
    bench_check(e.id != 0, "relations: create");
    cascade_strata(state);
}

BENCH_KERNEL void propagate_plain(uint32_t n, const uint32_t *restrict up, const float *restrict local,
                                  float *restrict global) {
    for (uint32_t i = 0; i < n; i++) {
        float px = 0, py = 0;
        if (up[i] != UINT32_MAX) {
            px = global[2 * up[i]];
            py = global[2 * up[i] + 1];
        }
        global[2 * i] = px + local[2 * i];
        global[2 * i + 1] = py + local[2 * i + 1];
    }
}

static void cascade_plain(void *state) {
    cascade_state *s = state;
    propagate_plain(s->n, s->up, s->local, s->global);
}

static void bench_cascade(uint32_t n) {
    relations_world *w = relations_world_create(&(strata_world_desc_t){.initial_capacity = n});
    relations_entity *e = bench_alloc(sizeof *e * n);
    uint32_t *up = bench_alloc(sizeof *up * n);
    float *local = bench_alloc(sizeof(float) * 2 * n), *global = bench_alloc(sizeof(float) * 2 * n);
    for (uint32_t i = 0; i < n; i++) {
        relations_local l = {(float)(i % 7), 1};
        e[i] = relations_entity_create_bundle(w, &(relations_bundle){.local = &l, .global = &(relations_global){0}});
        bench_check(e[i].id != 0, "relations: create");
        local[2 * i] = l.x;
        local[2 * i + 1] = l.y;
    }
    /* Link in a shuffled order of parents, so nothing starts sorted. */
    for (uint32_t k = 0; k < n; k++) {
        uint32_t i = n - 1 - k;
        up[i] = forest_parent(i, n);
        if (up[i] != UINT32_MAX) {
            bench_check(relations_child_of_set(w, e[i], e[up[i]]) == STRATA_OK, "relations: link");
        }
    }
    cascade_state s = {w, e[n - 1], n, up, local, global, 0};
    cascade_strata(&s); /* the first pass sorts the rows by depth */
    bench_run_pair(&(bench_pair){.name = "relations",
                                 .op = "cascade: world = parent's + local",
                                 .size = n,
                                 .ops = n,
                                 .strata = cascade_strata,
                                 .strata_state = &s,
                                 .plain = cascade_plain,
                                 .plain_state = &s,
                                 .target = BENCH_RATIO(1.5)});
    bench_check(s.visited % n == 0, "relations: cascade visits every node");
    for (uint32_t i = 0; i < n; i += 997) {
        const relations_global *g = relations_global_get(w, e[i]);
        bench_check(g->x == global[2 * i] && g->y == (float)(relations_child_of_depth(w, e[i]) + 1),
                    "relations: cascade result");
    }
    bench_run_pair(&(bench_pair){.name = "relations",
                                 .op = "cascade after a create elsewhere",
                                 .size = n,
                                 .ops = n,
                                 .strata = cascade_strata_after_create,
                                 .strata_state = &s,
                                 .plain = cascade_plain,
                                 .plain_state = &s,
                                 .target = BENCH_NONE});
    bench_run_pair(&(bench_pair){.name = "relations",
                                 .op = "cascade after a new leaf (rebuilt)",
                                 .size = n,
                                 .ops = n,
                                 .strata = cascade_strata_after_leaf,
                                 .strata_state = &s,
                                 .plain = cascade_plain,
                                 .plain_state = &s,
                                 .target = BENCH_NONE});
    free(e);
    free(up);
    free(local);
    free(global);
    relations_world_destroy(w);
}

void bench_relations(void) {
    /* link */
    uint32_t n = bench_count(100000);
    link_state ls = {relations_world_create(NULL), bench_alloc(sizeof(relations_entity) * n), tree_make(n), n};
    bench_check(relations_entity_create_many(ls.w, &(relations_bundle){0}, n, ls.e) == STRATA_OK, "relations: create");
    bench_run_pair(&(bench_pair){.name = "relations",
                                 .op = "set a link, then remove it",
                                 .size = n,
                                 .ops = 2.0 * (n - 1),
                                 .strata = link_strata,
                                 .strata_state = &ls,
                                 .plain = link_plain,
                                 .plain_state = &ls,
                                 .target = BENCH_NONE});
    bench_check(relations_child_of_sources(ls.w, ls.e[0], &n) == NULL, "relations: links removed");
    relations_world_destroy(ls.w);
    free(ls.e);
    tree_free(&ls.t);

    /* children */
    n = bench_count(PARENTS * (KIDS + 1));
    visit_state vs = {relations_world_create(NULL), bench_alloc(sizeof(relations_entity) * PARENTS), tree_make(n), 0};
    relations_entity *all = bench_alloc(sizeof(relations_entity) * n);
    bench_check(relations_entity_create_many(vs.w, &(relations_bundle){0}, n, all) == STRATA_OK, "relations: create");
    for (uint32_t i = PARENTS; i < n; i++) {
        uint32_t p = (uint32_t)(((uint64_t)i * 2654435761u) % PARENTS);
        bench_check(relations_child_of_set(vs.w, all[i], all[p]) == STRATA_OK, "relations: link");
        tree_link(&vs.t, i, p);
    }
    for (uint32_t p = 0; p < PARENTS; p++) {
        vs.parents[p] = all[p];
    }
    bench_run_pair(&(bench_pair){.name = "relations",
                                 .op = "visit 10,000 parents' children",
                                 .size = n,
                                 .ops = (double)n - PARENTS,
                                 .strata = visit_strata,
                                 .strata_state = &vs,
                                 .plain = visit_plain,
                                 .plain_state = &vs,
                                 .target = BENCH_NONE});
    bench_check(vs.sum != 0, "relations: visited");
    relations_world_destroy(vs.w);
    free(vs.parents);
    free(all);
    tree_free(&vs.t);

    bench_destroy(bench_count(1000000));
    bench_cascade(bench_count(1000000));
}
