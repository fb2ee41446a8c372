/* query.h: the query cache: for each query, the tables it matches, in
 * creation order. archetype.c appends each new table to the queries that
 * match it (sti_query_matches); nothing ever leaves a list.
 */
#ifndef STI_QUERY_H
#define STI_QUERY_H

#include "sparse.h"

/* The tables one query matches, in creation order; entries[i] is how an
 * iterator reaches tables[i] (the addresses of its count, handles and
 * columns, which stay put for the table's life). No table is made while an iterator is open (every structural
 * change is deferred then), so an iterator's range into entries stays valid. */
struct sti_query_cache_t {
    sti_table_t **tables;
    strata_iter_table_t *entries;
    uint32_t count;
    size_t capacity;       /* of tables */
    size_t entry_capacity; /* of entries */
};

/* Make room in every query that a table of `mask` would join (NOMEM only adds capacity). */
strata_result_t sti_query_reserve(strata_world_t *w, const strata_mask_t *mask);
/* Append a new table to the queries it matches (room reserved before). */
void sti_query_register(strata_world_t *w, sti_table_t *t);
/* Free every query's table list. */
void sti_query_free(strata_world_t *w);

#endif /* STI_QUERY_H */
