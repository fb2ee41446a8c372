/* query.h: the query cache: for each query, the tables it matches, those
 * with rows first. archetype.c appends each new table to the queries that
 * match it (sti_query_matches) and takes a table it frees out of them; a
 * table whose row count goes from none to some, or back, moves between the
 * two parts of each list (the swap of two entries a query matching it).
 */
#ifndef STI_QUERY_H
#define STI_QUERY_H

#include "sparse.h"

/* The tables one query matches: positions [0, live) hold the tables with
 * rows, [live, count) those without, each part in no particular order. entries[i] is how an iterator reaches tables[i] (the
 * addresses of its count, handles and columns, which stay put for the
 * table's life). An iterator's range is the first part as it was when the
 * iterator opened: while one is open no table is made or freed, and no
 * table loses its last row (every structural change but a create is
 * deferred then), so the range stays valid and only grows past its end. */
struct sti_query_cache_t {
    sti_table_t **tables;
    strata_iter_table_t *entries;
    uint32_t *listing;       /* by position: which of tables[i]'s listings is this query's */
    uint32_t count;          /* tables */
    uint32_t live;           /* of them, those with rows: the first ones */
    uint32_t written;        /* world->snap_clock when an iterator over it last opened (snapshot.c) */
    size_t capacity;         /* of tables */
    size_t entry_capacity;   /* of entries */
    size_t listing_capacity; /* of listing */
};

/* Make room in every query that a table of `mask` would join (NOMEM only adds capacity). */
strata_result_t sti_query_reserve(strata_world_t *w, const strata_mask_t *mask);
/* Append a new table (no rows yet) to the lists of the queries it matches
 * (room reserved before) and fill its listings. */
void sti_query_register(strata_world_t *w, sti_table_t *t);
/* Take a table without rows out of every list it is on. */
void sti_query_unregister(strata_world_t *w, sti_table_t *t);
/* t's first row arrived: it joins the first part of each of its lists. */
void sti_query_filled(strata_world_t *w, const sti_table_t *t);
/* t's last row left: it joins the second part of each of its lists. */
void sti_query_emptied(strata_world_t *w, const sti_table_t *t);
/* Put query q's list in the order of the table ids ids[0..count) (its
 * tables, by their ids now), the first `live` with rows (snapshot.c). */
void sti_query_restore(strata_world_t *w, uint32_t q, const uint32_t *ids, uint32_t live);
/* Free every query's table list. */
void sti_query_free(strata_world_t *w);

#endif /* STI_QUERY_H */
