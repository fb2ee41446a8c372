/* fixture.h: what every runtime test file shares: desc macros, a checking
 * allocator over cmocka's, and the fixture that holds it. Include it after
 * strata_internal.h (the runtime's private headers: the tests link
 * libstrata); the fixture routes the runtime's asserts to cmocka, so tests
 * can expect assert failures; world_open(state) makes a world of the file's
 * `schema`. */
#ifndef STRATA_TEST_FIXTURE_H
#define STRATA_TEST_FIXTURE_H

/* A bit of a mask word. */
#define BIT(c) ((uint64_t)1 << (c))
/* A component desc for C type T (defaults: a pointer to a T, or NULL). */
#define COMPONENT(label, T, defaults_)                                                                                 \
    { .name = (label), .size = sizeof(T), .align = _Alignof(T), .defaults = (defaults_) }
/* A tag's desc: no column. */
#define TAG(label)                                                                                                     \
    { .name = (label) }
/* A query desc; `all` and `none` give the first mask word, e.g. BIT(A) | BIT(B). */
#define QUERY(label, all_, none_)                                                                                      \
    {                                                                                                                  \
        .name = (label), .all = {{all_}}, .none = { {none_} }                                                          \
    }

/* --- A checking allocator over cmocka's (leaks fail the test) ------------- */

/* Its state: calls so far, which call fails (0: none), bytes held. */
typedef struct heap_t {
    long calls;
    long fail_at;
    long failures;
    size_t bytes;
} heap_t;

/* Each block starts with its size, so free and realloc can check theirs.
 * Only 8 bytes, so blocks are only 8-byte aligned: the runtime must align
 * what needs more. */
#define HEAP_HEADER 8

static void *heap_alloc(size_t size, void *user) {
    heap_t *h = user;
    if (++h->calls == h->fail_at) {
        h->failures++;
        return NULL;
    }
    unsigned char *p = test_malloc(size + HEAP_HEADER);
    memcpy(p, &size, sizeof size);
    h->bytes += size;
    return p + HEAP_HEADER;
}

static void *heap_realloc(void *ptr, size_t old_size, size_t size, void *user) {
    heap_t *h = user;
    if (++h->calls == h->fail_at) {
        h->failures++;
        return NULL;
    }
    unsigned char *p = (unsigned char *)ptr - HEAP_HEADER;
    size_t stored;
    memcpy(&stored, p, sizeof stored);
    assert_int_equal(stored, old_size);
    p = test_realloc(p, size + HEAP_HEADER);
    memcpy(p, &size, sizeof size);
    h->bytes = h->bytes - old_size + size;
    return p + HEAP_HEADER;
}

static void heap_free(void *ptr, size_t size, void *user) {
    heap_t *h = user;
    unsigned char *p = (unsigned char *)ptr - HEAP_HEADER;
    size_t stored;
    memcpy(&stored, p, sizeof stored);
    assert_int_equal(stored, size);
    h->bytes -= size;
    test_free(p);
}

/* A desc whose hooks go to h. */
static inline strata_world_desc_t heap_desc(heap_t *h, uint32_t initial_capacity) {
    return (strata_world_desc_t){.allocator = {heap_alloc, heap_realloc, heap_free, h},
                                 .initial_capacity = initial_capacity};
}

/* --- Fixture -------------------------------------------------------------- */

/* cmocka checks each test body for leaks on its own, so the world is made
 * and destroyed inside the body (world_open / world_close); the fixture
 * holds the allocator's state around it. */
typedef struct fixture_t {
    heap_t heap;
    strata_world_t *w;
} fixture_t;

/* A failed STRATA_ASSERT in the runtime, as cmocka's mock_assert: a test
 * expecting it (expect_assert_failure) goes on, any other fails. */
static void fixture_assert_to_cmocka(const char *condition, const char *file, int line, void *user) {
    (void)user;
    mock_assert(0, condition, file, line);
}

/* Before main: every test of the file, with or without the fixture. */
__attribute__((constructor)) static void fixture_route_asserts(void) {
    strata_assert_handler_set(fixture_assert_to_cmocka, NULL);
}

static int setup(void **state) {
    *state = test_calloc(1, sizeof(fixture_t));
    return 0;
}

static int teardown(void **state) {
    test_free(*state);
    return 0;
}

/* A world of `schema` on the fixture's heap. */
static inline fixture_t *fixture_open(void **state, const strata_schema_t *schema) {
    fixture_t *f = *state;
    strata_world_desc_t d = heap_desc(&f->heap, 0);
    assert_int_equal(strata_world_create(schema, &d, &f->w), STRATA_OK);
    return f;
}

/* A world of the test file's `schema`. */
#define world_open(state) fixture_open((state), &schema)

/* Destroy the world; every byte must be back. */
static inline void world_close(fixture_t *f) {
    strata_world_destroy(f->w);
    f->w = NULL;
    assert_int_equal(f->heap.bytes, 0);
}

/* --- The table set's invariants ------------------------------------------- */

/* Each query's list holds every table it matches once, those with rows
 * first ([0, live)); each table's listings point at its places; the
 * entries follow the tables; each table's id is its index, its edges are
 * mirrored by its neighbours', and the hash finds it. */
static inline void check_tables(const strata_world_t *w) {
    for (uint32_t q = 0; q < w->schema->query_count; q++) {
        const sti_query_cache_t *c = &w->queries[q];
        uint32_t matching = 0;
        for (uint32_t i = 0; i < w->table_count; i++) {
            matching += sti_query_matches(w, q, &w->tables[i]->mask);
        }
        assert_int_equal(c->count, matching);
        assert_true(c->live <= c->count);
        for (uint32_t i = 0; i < c->count; i++) {
            const sti_table_t *t = c->tables[i];
            assert_true(t->id < w->table_count && w->tables[t->id] == t);
            assert_true(i < c->live ? t->count > 0 : t->count == 0);
            assert_true(c->entries[i].count == &t->count && c->entries[i].columns == t->columns);
            assert_true(c->listing[i] < t->listing_count);
            assert_int_equal(t->listings[c->listing[i]].query, q);
            assert_int_equal(t->listings[c->listing[i]].at, i);
        }
    }
    uint32_t cc = w->component_count, idle = 0;
    for (uint32_t i = 0; i < w->table_count; i++) {
        const sti_table_t *t = w->tables[i];
        assert_int_equal(t->id, i);
        idle += i != 0 && t->count == 0;
        for (uint32_t k = 0; k < t->listing_count; k++) {
            assert_true(w->queries[t->listings[k].query].tables[t->listings[k].at] == t);
        }
        for (uint32_t c = 0; c < 2 * cc; c++) {
            const sti_table_t *n = t->edges[c].table;
            if (n != NULL) {
                assert_true(n->id < w->table_count && w->tables[n->id] == n);
                assert_true(n->edges[c < cc ? cc + c : c - cc].table == t);
            }
        }
        assert_ptr_equal(sti_table_find(w, &t->mask), t);
    }
    /* The idle list: the tables without rows (the empty one aside), oldest first. */
    uint32_t listed = 0;
    for (const sti_table_t *t = w->idle_head; t != NULL; t = t->idle_next, listed++) {
        assert_true(t->count == 0 && t->id != 0);
        assert_true(t->idle_next == NULL ? w->idle_tail == t : t->idle_next->idle_prev == t);
        assert_true(t->idle_next == NULL || t->idle_since <= t->idle_next->idle_since);
    }
    assert_int_equal(listed, idle);
}

#endif /* STRATA_TEST_FIXTURE_H */
