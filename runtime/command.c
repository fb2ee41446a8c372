/* command.c: the command buffer, settling it through move.c, deferral
 * scopes and steps. */
#include "command.h"


/* The entity handles that follow a command's header. */
static strata_entity_t *command_entities(sti_cmd_t *cmd) {
    return (strata_entity_t *)(void *)((unsigned char *)cmd + sizeof(sti_cmd_t));
}

/* The component ids that follow a command's handles. */
static uint32_t *command_ids(sti_cmd_t *cmd) {
    return (uint32_t *)(void *)(command_entities(cmd) + cmd->n);
}

/* Bytes of a command record (header, handles, ids, values, padding); 0 on overflow. */
size_t sti_command_bytes(const strata_world_t *w, sti_cmd_kind_t kind, uint32_t n, uint32_t k, const uint32_t *ids) {
    size_t values = 0;
    if (kind == STI_CMD_ADD) {
        for (uint32_t i = 0; i < k; i++) {
            values += w->components[ids[i]].size;
        }
    }
    size_t fixed = sizeof(sti_cmd_t) + sizeof(uint32_t) * (size_t)k + values + STI_CMD_ALIGN;
    if ((size_t)n > (SIZE_MAX - fixed) / sizeof(strata_entity_t)) {
        return 0;
    }
    size_t bytes = fixed - STI_CMD_ALIGN + sizeof(strata_entity_t) * (size_t)n;
    return (bytes + STI_CMD_ALIGN - 1) & ~(STI_CMD_ALIGN - 1);
}

/* Room for a copy of a command of `bytes` bytes. */
static strata_result_t command_scratch_reserve(strata_world_t *w, size_t bytes) {
    return bytes <= w->scratch_capacity ? STRATA_OK : sti_mem_resize(w, &w->scratch, 1, &w->scratch_capacity, bytes);
}

/* Room for `bytes` more bytes of commands, growing geometrically; NOMEM changes nothing. */
strata_result_t sti_command_reserve(strata_world_t *w, size_t bytes) {
    if (bytes == 0 || bytes > SIZE_MAX / 2 - w->cmd_size) {
        return STRATA_ERR_NOMEM;
    }
    /* With hooks, the settle applies a copy of each command (a hook may move
     * the buffer); during a settle the copy in use must stay put, so it grows
     * between commands instead (command_apply_all). */
    if (w->has_hooks && bytes > w->scratch_capacity && !w->settling) {
        strata_result_t r = command_scratch_reserve(w, bytes);
        if (r != STRATA_OK) {
            return r;
        }
    }
    return sti_mem_grow(w, &w->cmds, 1, &w->cmd_capacity, w->cmd_size + bytes, 512);
}

/* Append a command of `bytes` (sti_command_bytes) into reserved room,
 * copying the values (NULL: defaults, else zeros). */
void sti_command_write(strata_world_t *w, size_t bytes, sti_cmd_kind_t kind, uint32_t n,
                       const strata_entity_t *entities, uint32_t k, const uint32_t *ids, const void *const *values) {
    sti_cmd_t *cmd = (sti_cmd_t *)(void *)(w->cmds + w->cmd_size);
    w->cmd_last = w->cmd_size;
    *cmd = (sti_cmd_t){.size = bytes, .kind = (uint32_t)kind, .n = n, .done = 0, .k = k};
    /* One entity and one component is the common case (a change made in a
     * system's loop): plain stores, no memcpy calls. */
    if (n == 1) {
        command_entities(cmd)[0] = entities[0];
    } else {
        memcpy(command_entities(cmd), entities, sizeof(strata_entity_t) * n);
    }
    if (k == 1) {
        command_ids(cmd)[0] = ids[0];
    } else if (k > 0) {
        memcpy(command_ids(cmd), ids, sizeof(uint32_t) * k);
    }
    if (kind == STI_CMD_ADD) {
        unsigned char *at = (unsigned char *)(command_ids(cmd) + k);
        for (uint32_t i = 0; i < k; i++) {
            if (w->components[ids[i]].size > 0) {
                sti_value_write(w, at, ids[i], values != NULL ? values[i] : NULL);
                at += w->components[ids[i]].size;
            }
        }
    }
    w->cmd_size += bytes;
    w->cmd_count++;
}

/* A run's component id (where other commands' handles start). */
static uint32_t command_run_id(sti_cmd_t *cmd) {
    uint32_t c;
    memcpy(&c, command_entities(cmd), sizeof c);
    return c;
}

/* The first entry of a run (after the header and the padded id). */
static unsigned char *command_run_entries(sti_cmd_t *cmd) {
    return (unsigned char *)cmd + sizeof(sti_cmd_t) + STI_CMD_ALIGN;
}

/* Append to the last command if that is a run of the same kind and
 * component, else start a new run. */
strata_result_t sti_command_run(strata_world_t *w, sti_cmd_kind_t kind, strata_entity_t e, uint32_t c,
                                const void *value) {
    size_t stride = sti_command_run_stride(w, kind, c);
    sti_cmd_t *last = w->cmd_count > 0 ? (sti_cmd_t *)(void *)(w->cmds + w->cmd_last) : NULL;
    bool join = last != NULL && last->kind == (uint32_t)kind && command_run_id(last) == c;
    size_t bytes = join ? stride : sizeof(sti_cmd_t) + STI_CMD_ALIGN + stride;
    if (STI_UNLIKELY(w->cmd_size + bytes > w->cmd_capacity)) {
        strata_result_t r = sti_command_reserve(w, bytes);
        if (r != STRATA_OK) {
            return r;
        }
    }
    if (join) {
        last = (sti_cmd_t *)(void *)(w->cmds + w->cmd_last); /* the reserve may have moved the buffer */
    } else {
        w->cmd_last = w->cmd_size;
        last = (sti_cmd_t *)(void *)(w->cmds + w->cmd_size);
        *last = (sti_cmd_t){.size = bytes - stride, .kind = (uint32_t)kind, .n = 0, .done = 0, .k = 1};
        memcpy(command_entities(last), &c, sizeof c); /* the id, where a command's handles start */
    }
    unsigned char *at = (unsigned char *)last + last->size;
    memcpy(at, &e, sizeof e);
    if (kind == STI_CMD_ADD_RUN && w->components[c].size > 0) {
        sti_value_write(w, at + sizeof e, c, value);
    }
    last->size += stride;
    last->n++;
    w->cmd_size += bytes;
    w->cmd_count++; /* a run counts each change it holds: what stats.pending reports */
    return STRATA_OK;
}

/* Reserve and append one command for one entity; NOMEM records nothing. */
strata_result_t sti_command_push(strata_world_t *w, sti_cmd_kind_t kind, const strata_entity_t *e, uint32_t k,
                                 const uint32_t *ids, const void *const *values) {
    if (k == 1 && kind != STI_CMD_DESTROY && !w->has_hooks) {
        return sti_command_run(w, kind == STI_CMD_ADD ? STI_CMD_ADD_RUN : STI_CMD_REMOVE_RUN, *e, ids[0],
                               values != NULL ? values[0] : NULL);
    }
    size_t bytes = kind == STI_CMD_DESTROY ? STI_CMD_DESTROY_BYTES : sti_command_bytes(w, kind, 1, k, ids);
    /* The reserve only when the room is not there already (a policy's destroys have theirs). */
    if (bytes == 0 || w->cmd_size + bytes > w->cmd_capacity || (w->has_hooks && bytes > w->scratch_capacity)) {
        strata_result_t r = sti_command_reserve(w, bytes);
        if (r != STRATA_OK) {
            return r;
        }
    }
    sti_command_write(w, bytes, kind, 1, e, k, ids, values);
    return STRATA_OK;
}

/* Apply an ADD to its entities still alive, resuming after those a failed
 * settle already did. NOMEM stops (cmd->done says where); LIMIT skips that
 * entity and is returned at the end. */
static strata_result_t command_apply_add(strata_world_t *w, sti_cmd_t *cmd) {
    const void *values[STRATA_MAX_COMPONENTS];
    const uint32_t *ids = command_ids(cmd);
    const unsigned char *at = (const unsigned char *)(ids + cmd->k);
    for (uint32_t i = 0; i < cmd->k; i++) {
        values[i] = at;
        at += w->components[ids[i]].size;
    }
    const strata_entity_t *entities = command_entities(cmd);
    /* Room for the links of every entity left, before the first moves. */
    if (w->hooks.add_room != NULL) {
        strata_result_t r = w->hooks.add_room(w, cmd->n - cmd->done, entities + cmd->done, cmd->k, ids, values);
        if (r != STRATA_OK) {
            return r;
        }
    }
    strata_result_t first = STRATA_OK;
    for (; cmd->done < cmd->n; cmd->done++) {
        sti_record_t *rec = sti_record_lookup(w, entities[cmd->done]);
        if (rec == NULL) {
            continue;
        }
        strata_result_t r = sti_move_add(w, rec, cmd->k, ids, values);
        if (r == STRATA_ERR_NOMEM) {
            return r;
        }
        if (r == STI_OK_HOOKED) {
            r = STRATA_OK; /* what the hooks recorded joins this settle */
        }
        if (r == STRATA_OK) {
            sti_mark_ids(w, entities[cmd->done], cmd->k, ids);
        }
        if (first == STRATA_OK) {
            first = r;
        }
    }
    return first;
}

/* The handle of a run's entry. */
static strata_entity_t command_run_entity(const unsigned char *entry) {
    strata_entity_t e;
    memcpy(&e, entry, sizeof e);
    return e;
}

/* The table whose rows, all of them in row order, the next entries begin
 * with: `left` entries from `at`, `stride` bytes apart, each starting with
 * a handle (a system that changes or destroys each entity it visits
 * records them so). NULL if they do not, or the table has fewer than two
 * rows. A table is checked once a walk (*tried: the first
 * STRATA_MAX_COMPONENTS table ids, a mask's bits; tables past them are
 * never checked), so a walk costs O(entries) however they are ordered. */
static sti_table_t *command_covered_table(strata_world_t *w, const unsigned char *at, size_t stride, uint32_t left,
                                          strata_mask_t *tried) {
    const sti_record_t *rec = sti_record_lookup(w, command_run_entity(at));
    if (rec == NULL || rec->row != 0) {
        return NULL;
    }
    sti_table_t *t = w->tables[rec->table];
    uint32_t n = t->count;
    if (n < 2 || n > left || t->id >= STRATA_MAX_COMPONENTS || strata_mask_test(tried, t->id)) {
        return NULL;
    }
    strata_mask_set(tried, t->id);
    /* A handle equal to the one at row i of t is the live entity there. */
    for (uint32_t i = 1; i < n; i++) {
        if (command_run_entity(at + stride * i) != t->entities[i]) {
            return NULL;
        }
    }
    return t;
}

/* A batch of a run, when the entries from `at` on cover a table
 * (command_covered_table): the whole table moves along the edge with one
 * copy a column, which ends as applying those entries one at a time would
 * (each entity's row, the order of the marks). Returns the entries
 * applied, 0 when the run does not start so (or the edge runs hooks, or
 * making it or room fails): the caller then applies one entry. */
static uint32_t command_run_block(strata_world_t *w, sti_cmd_t *cmd, const unsigned char *at, size_t stride, uint32_t c,
                                  strata_mask_t *tried) {
    bool add = cmd->kind == STI_CMD_ADD_RUN;
    if (sti_is_sparse(w, c)) {
        return 0; /* no row moves: each entry is a bit and a value */
    }
    sti_table_t *src = command_covered_table(w, at, stride, cmd->n - cmd->done, tried);
    if (src == NULL || add == strata_mask_test(&src->mask, c)) {
        return 0;
    }
    const sti_edge_t *edge = &src->edges[add ? c : w->component_count + c];
    if (edge->table == NULL && sti_table_edge(w, src, c, add, NULL) != STRATA_OK) {
        return 0; /* the first entry, applied alone, meets the error again and reports it */
    }
    uint32_t n = src->count;
    sti_table_t *dst = edge->table;
    if (edge->hooked || sti_table_reserve(w, dst, n) != STRATA_OK) {
        return 0;
    }
    uint32_t to = sti_move_all_rows(w, src, dst, edge->plan);
    if (add && edge->hole != STI_NO_HOLE) {
        const sti_column_t *col = &dst->dense[edge->hole];
        for (uint32_t i = 0; i < n; i++) {
            sti_copy(col->data + (size_t)(to + i) * col->size, at + stride * i + sizeof(strata_entity_t), col->size);
        }
    }
    if (add) {
        for (uint32_t i = 0; i < n; i++) {
            sti_mark_ids(w, command_run_entity(at + stride * i), 1, &c);
        }
    }
    return n;
}

/* Apply a run to its entities still alive, one after the other, resuming
 * after those a failed settle already did; the results as for ADD and
 * REMOVE commands. */
static strata_result_t command_apply_run(strata_world_t *w, sti_cmd_t *cmd) {
    sti_cmd_kind_t kind = (sti_cmd_kind_t)cmd->kind;
    uint32_t c = command_run_id(cmd);
    size_t stride = sti_command_run_stride(w, kind, c);
    bool tag = w->components[c].size == 0;
    const unsigned char *at = command_run_entries(cmd) + stride * cmd->done;
    strata_mask_t tried = {{0}}; /* tables (by id, the first STRATA_MAX_COMPONENTS) checked for a batch */
    strata_result_t first = STRATA_OK;
    for (; cmd->done < cmd->n; cmd->done++, at += stride) {
        uint32_t batch = command_run_block(w, cmd, at, stride, c, &tried);
        if (batch > 0) {
            cmd->done += batch - 1;
            at += stride * (batch - 1);
            continue;
        }
        strata_entity_t e = command_run_entity(at);
        sti_record_t *rec = sti_record_lookup(w, e);
        if (rec == NULL) {
            continue;
        }
        strata_result_t r;
        if (kind == STI_CMD_ADD_RUN) {
            const void *value = tag ? NULL : at + sizeof e;
            r = sti_move_add_fast(w, rec, c, value) ? STRATA_OK : sti_move_add_slow(w, rec, c, value);
            if (r == STRATA_OK || r == STI_OK_HOOKED) {
                r = STRATA_OK; /* what hooks recorded joins this settle */
                sti_mark_ids(w, e, 1, &c);
            }
        } else {
            r = sti_move_remove_fast(w, rec, c) ? STRATA_OK : sti_move_remove_slow(w, rec, c);
            r = r == STRATA_ERR_MISSING || r == STI_OK_HOOKED ? STRATA_OK : r;
        }
        if (r == STRATA_ERR_NOMEM) {
            return r;
        }
        if (first == STRATA_OK) {
            first = r;
        }
    }
    return first;
}

/* Apply one command; a dead entity or an absent component is skipped. */
static strata_result_t command_apply(strata_world_t *w, sti_cmd_t *cmd) {
    if (cmd->kind == STI_CMD_ADD) {
        return command_apply_add(w, cmd);
    }
    if (cmd->kind >= STI_CMD_ADD_RUN) {
        return command_apply_run(w, cmd);
    }
    sti_record_t *rec = sti_record_lookup(w, command_entities(cmd)[0]);
    if (rec == NULL) {
        return STRATA_OK;
    }
    if (cmd->kind == STI_CMD_REMOVE) {
        strata_result_t r = sti_move_remove(w, rec, cmd->k, command_ids(cmd));
        return r == STRATA_ERR_MISSING || r == STI_OK_HOOKED ? STRATA_OK : r;
    }
    if (w->hooks.destroy_room != NULL) {
        strata_result_t r = w->hooks.destroy_room(w, command_entities(cmd)[0]);
        if (r != STRATA_OK) {
            return r; /* NOMEM: the command waits for the next settle */
        }
    }
    sti_move_destroy(w, rec);
    return STRATA_OK;
}

/* Apply the recorded commands in order, those recorded meanwhile (by hooks)
 * included. With hooks each is applied from a copy, since a hook may grow
 * the buffer; without them nothing records during a settle.
 * NOMEM stops and keeps the rest; a command failing with LIMIT could never
 * succeed, so it is dropped and the others still apply. */
static strata_result_t command_apply_all(strata_world_t *w) {
    strata_result_t first = STRATA_OK;
    size_t at = 0;
    while (at < w->cmd_size) {
        sti_cmd_t *cmd = (sti_cmd_t *)(void *)(w->cmds + at);
        size_t size = cmd->size;
        if (w->has_hooks) {
            if (command_scratch_reserve(w, size) != STRATA_OK) {
                first = STRATA_ERR_NOMEM;
                break;
            }
            memcpy(w->scratch, cmd, size);
            cmd = (sti_cmd_t *)(void *)w->scratch;
        }
        strata_result_t r = command_apply(w, cmd);
        /* Progress of a partly applied batch, for the retry. */
        ((sti_cmd_t *)(void *)(w->cmds + at))->done = cmd->done;
        if (r == STRATA_ERR_NOMEM) {
            first = r;
            break;
        }
        if (first == STRATA_OK) {
            first = r;
        }
        at += size;
        w->cmd_count -= cmd->kind >= STI_CMD_ADD_RUN ? cmd->n : 1;
    }
    if (at > 0) {
        memmove(w->cmds, w->cmds + at, w->cmd_size - at);
        w->cmd_size -= at;
        w->cmd_last = w->cmd_size > 0 ? w->cmd_last - at : 0;
    }
    return first;
}

/* Apply the scheduled destroys in the order scheduled. Those that cover a
 * table without hooks (command_covered_table: a system that destroys each
 * entity it visits) free its rows at once, no row moved: the same end as
 * destroying them one by one (the indices freed in the same order), unless
 * the world has relations or field policies, whose policies must see
 * each entity. */
static strata_result_t command_destroy_doomed(strata_world_t *w) {
    strata_mask_t tried = {{0}};
    for (uint32_t i = 0; i < w->doomed_count; i++) {
        const unsigned char *at = (const unsigned char *)(w->doomed + i);
        sti_table_t *t = command_covered_table(w, at, sizeof(strata_entity_t), w->doomed_count - i, &tried);
        if (t != NULL && !t->hooked && (t->sparse_any & w->sparse_hooked) == 0 &&
            w->hooks.destroyed == NULL) { /* (relations' policies look at each) */
            sti_sparse_drop_rows(w, t);
            for (uint32_t j = 0; j < t->count; j++) {
                sti_index_release(w, &w->records[(uint32_t)w->doomed[i + j]]);
            }
            i += t->count - 1;
            t->count = 0;
            sti_table_emptied(w, t);
            sti_dirty_drop_rows(w, t);
            t->moved++;
            continue;
        }
        sti_record_t *rec = sti_record_lookup(w, w->doomed[i]);
        if (rec != NULL && w->hooks.destroy_room != NULL && w->hooks.destroy_room(w, w->doomed[i]) != STRATA_OK) {
            /* The rest wait for the next settle, after what these recorded. */
            w->doomed_count -= i;
            memmove(w->doomed, w->doomed + i, sizeof(strata_entity_t) * w->doomed_count);
            return STRATA_ERR_NOMEM;
        }
        if (rec != NULL) {
            sti_move_destroy(w, rec);
        }
    }
    w->doomed_count = 0;
    return STRATA_OK;
}

/* Apply the commands, then (outside a step) the scheduled destroys, until
 * neither the commands nor the hooks they run leave anything behind. */
static strata_result_t command_apply_waiting(strata_world_t *w) {
    strata_result_t first = STRATA_OK;
    for (;;) {
        strata_result_t r = command_apply_all(w);
        if (first == STRATA_OK) {
            first = r;
        }
        if (r == STRATA_ERR_NOMEM || w->in_step || w->doomed_count == 0) {
            break;
        }
        if (command_destroy_doomed(w) != STRATA_OK) {
            first = first == STRATA_OK ? STRATA_ERR_NOMEM : first;
            break;
        }
        if (w->cmd_count == 0) {
            break;
        }
    }
    return first;
}

/* Apply what waits; then the on_set hooks now due, what they record, and
 * forget the marks all that made (an on_set hook does not call on_set). */
static strata_result_t command_settle_all(strata_world_t *w) {
    w->settling = true;
    strata_result_t first = command_apply_waiting(w);
    if (w->sets_pending && first != STRATA_ERR_NOMEM) {
        sti_observe_sets(w);
        strata_result_t r = command_apply_waiting(w);
        first = first != STRATA_OK ? first : r;
        sti_observe_sets_mute(w);
    }
    w->settling = false;
    return first;
}

/* Settle if anything is waiting, no scope is open and no settle is running
 * (hooks called by a settle record into it; it applies what they record). */
strata_result_t sti_command_settle(strata_world_t *w) {
    if (sti_deferred(w) || w->settling ||
        (w->cmd_count == 0 && (w->in_step || w->doomed_count == 0) && !w->sets_pending)) {
        return STRATA_OK;
    }
    return command_settle_all(w);
}

/* A scope closed while strata_world_free_empty_tables waits (it was
 * called inside): settle, then free the tables if no scope is left open. */
STI_COLD static strata_result_t command_settle_then_free(strata_world_t *w) {
    strata_result_t r = sti_command_settle(w);
    sti_capacity_scope_end(w);
    return r;
}

/* Open a deferral scope (scopes nest). */
void strata_defer_begin(strata_world_t *w) {
    STRATA_ASSERT(w != NULL);
    sti_scope_open(w);
}

/* Close a scope; the outermost one settles. Returns the settle's first error. */
strata_result_t strata_defer_end(strata_world_t *w) {
    STRATA_ASSERT(w != NULL);
    STRATA_ASSERT(sti_deferred(w));
    if (!sti_deferred(w)) {
        return STRATA_OK; /* unbalanced (asserts off): do not wrap around into a scope that never ends */
    }
    STRATA_ASSERT(w->slot == NULL || w->defer_depth > 1); /* a batch's view never settles (pool.c) */
    sti_scope_close(w);
    if (STI_UNLIKELY(w->free_requested)) {
        return command_settle_then_free(w);
    }
    return sti_command_settle(w);
}

/* True while a deferral scope is open. */
bool strata_is_deferred(const strata_world_t *w) {
    STRATA_ASSERT(w != NULL);
    return sti_deferred(w);
}

/* Open a step: destroys are scheduled, not applied, until strata_step_end. */
void strata_step_begin(strata_world_t *w) {
    STRATA_ASSERT(w != NULL);
    STRATA_ASSERT(!w->in_step); /* steps do not nest */
    w->in_step = true;
}

/* Close the step: settle the commands, then apply the scheduled destroys. */
strata_result_t strata_step_end(strata_world_t *w) {
    STRATA_ASSERT(w != NULL);
    STRATA_ASSERT(w->in_step);
    /* Inside a scope still open, the destroys wait for its end (settle skips). */
    w->in_step = false;
    strata_result_t r = sti_command_settle(w);
    sti_capacity_step_end(w); /* the tables that stayed empty, when the world frees them */
    return r;
}

/* Schedule e's destroy for the end of the step (room in the list first). */
strata_result_t sti_command_doom(strata_world_t *w, sti_record_t *rec, strata_entity_t e) {
    strata_result_t r = sti_mem_grow(w, &w->doomed, sizeof(strata_entity_t), &w->doomed_capacity,
                                     (size_t)w->doomed_count + 1, 64);
    if (r == STRATA_OK) {
        w->doomed[w->doomed_count++] = e;
        if (w->slot == NULL) { /* a batch's view leaves the shared record alone (pool.c) */
            rec->flags |= STI_FLAG_DOOMED;
        }
    }
    return r;
}

/* Every buffer deferral holds. */
void sti_command_drop(strata_world_t *w) {
    w->cmd_size = 0;
    w->cmd_count = 0;
    w->doomed_count = 0;
}

void sti_command_free(strata_world_t *w) {
    sti_mem_free(w, w->cmds, w->cmd_capacity);
    sti_mem_free(w, w->doomed, sizeof(strata_entity_t) * w->doomed_capacity);
    sti_mem_free(w, w->scratch, w->scratch_capacity);
}
