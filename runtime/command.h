/* command.h: deferral. While a scope is open (strata_defer_begin, an open
 * iterator, hooks running) structural changes are recorded in the command
 * buffer; when the outermost scope ends they are settled: applied in
 * order through move.c, then (outside a step) the destroys scheduled for
 * the step's end. "Settle" is the one name for applying what waits, and
 * sti_command_settle the one place that decides whether it is time.
 */
#ifndef STI_COMMAND_H
#define STI_COMMAND_H

#include "capacity.h"
#include "move.h"

/* Kinds of deferred command. */
typedef enum sti_cmd_kind_t {
    STI_CMD_ADD = 1,        /* add components (values follow) to n entities */
    STI_CMD_REMOVE = 2,     /* remove components from one entity */
    STI_CMD_DESTROY = 3,    /* destroy one entity */
    STI_CMD_ADD_RUN = 4,    /* add one component to n entities, each with its own value */
    STI_CMD_REMOVE_RUN = 5, /* remove one component from n entities */
} sti_cmd_kind_t;

/* record.flags, beside STI_FLAG_DOOMED: the destroy is a recorded command
 * (not one scheduled for the step's end), so it applies before anything
 * recorded after it. */
#define STI_FLAG_RECORDED 2u

/* A deferred command's header in the command buffer. Then come the n
 * entity handles, the k component ids and (ADD) each non-tag value's bytes
 * in id order; the record is padded to a multiple of 8 bytes.
 *
 * A run (ADD_RUN, REMOVE_RUN; k is 1) is what consecutive changes of one
 * component to one entity each become in a world without hooks: the
 * component id (8 bytes with padding), then per entity its handle and
 * (ADD_RUN) its value padded to 8 bytes. The next such change appends to
 * the run in place, so a system that adds a component to many entities
 * records 8 bytes and the value for each instead of a command. Applied in
 * the order recorded, one entity after the other, as the commands they
 * stand for would be. */
typedef struct sti_cmd_t {
    size_t size;   /* bytes of the record, header included */
    uint32_t kind; /* sti_cmd_kind_t */
    uint32_t n;    /* entities */
    uint32_t done; /* entities already applied, so a settle that failed resumes after them */
    uint32_t k;    /* component ids */
} sti_cmd_t;

/* Commands are padded to this, so every header is aligned. */
#define STI_CMD_ALIGN ((size_t)8)

/* Bytes of a DESTROY command (its header and one handle, padded): what
 * sti_command_bytes says for it, known at compile time. */
#define STI_CMD_DESTROY_BYTES ((sizeof(sti_cmd_t) + sizeof(strata_entity_t) + STI_CMD_ALIGN - 1) & ~(STI_CMD_ALIGN - 1))

/* Bytes a command needs in the buffer; 0 if that does not fit in size_t. */
size_t sti_command_bytes(const strata_world_t *w, sti_cmd_kind_t kind, uint32_t n, uint32_t k, const uint32_t *ids);
/* Make room for `bytes` more bytes of commands. STRATA_ERR_NOMEM changes nothing. */
strata_result_t sti_command_reserve(strata_world_t *w, size_t bytes);
/* Append a command of `bytes` (sti_command_bytes) whose room was reserved;
 * values are copied (NULL: defaults). */
void sti_command_write(strata_world_t *w, size_t bytes, sti_cmd_kind_t kind, uint32_t n,
                       const strata_entity_t *entities, uint32_t k, const uint32_t *ids, const void *const *values);
/* Reserve and append in one go. STRATA_ERR_NOMEM records nothing. */
strata_result_t sti_command_push(strata_world_t *w, sti_cmd_kind_t kind, const strata_entity_t *e, uint32_t k,
                                 const uint32_t *ids, const void *const *values);
/* Record a change of one component c to one entity e (kind ADD_RUN or
 * REMOVE_RUN; a world without hooks) as an entry of a run; NOMEM records
 * nothing. */
strata_result_t sti_command_run(strata_world_t *w, sti_cmd_kind_t kind, strata_entity_t e, uint32_t c,
                                const void *value);
/* Bytes of one entity's entry in a run of component c: its handle, then
 * (ADD_RUN) its value padded to STI_CMD_ALIGN. */
STI_HOT size_t sti_command_run_stride(const strata_world_t *w, sti_cmd_kind_t kind, uint32_t c) {
    size_t value = kind == STI_CMD_ADD_RUN ? w->components[c].size : 0;
    return sizeof(strata_entity_t) + ((value + STI_CMD_ALIGN - 1) & ~(STI_CMD_ALIGN - 1));
}

/* The most bytes sti_command_run takes for one entry (a new run: header,
 * the padded id, the entry): with that much room it cannot fail. */
STI_HOT size_t sti_command_run_bytes(const strata_world_t *w, sti_cmd_kind_t kind, uint32_t c) {
    return sizeof(sti_cmd_t) + STI_CMD_ALIGN + sti_command_run_stride(w, kind, c);
}

/* sti_command_run's common case inline: the last command is a run of the
 * same kind and component with room for one more entry and the value is
 * small. False (nothing recorded) for sti_command_run to do the rest. */
STI_HOT bool sti_command_run_join(strata_world_t *w, sti_cmd_kind_t kind, strata_entity_t e, uint32_t c,
                                  const void *value) {
    if (w->cmd_count == 0) {
        return false;
    }
    sti_cmd_t *last = (sti_cmd_t *)(void *)(w->cmds + w->cmd_last);
    uint32_t id;
    memcpy(&id, last + 1, sizeof id); /* a run's component id follows its header */
    size_t stride = sti_command_run_stride(w, kind, c);
    if (last->kind != (uint32_t)kind || id != c || w->cmd_size + stride > w->cmd_capacity ||
        stride > sizeof(strata_entity_t) + STI_SMALL_SIZE) {
        return false;
    }
    unsigned char *at = (unsigned char *)last + last->size;
    memcpy(at, &e, sizeof e);
    size_t size = kind == STI_CMD_ADD_RUN ? w->components[c].size : 0;
    if (size > 0) {
        if (value == NULL) {
            value = w->components[c].defaults != NULL ? w->components[c].defaults : sti_zeros;
        }
        sti_copy_small(at + sizeof e, value, size);
    }
    last->size += stride;
    last->n++;
    w->cmd_size += stride;
    w->cmd_count++;
    return true;
}
/* Schedule a live entity's destroy for the step's end (room first; NOMEM changes nothing). */
strata_result_t sti_command_doom(strata_world_t *w, sti_record_t *rec, strata_entity_t e);
/* Apply what waits if no scope is open and no settle is running; the first error. */
strata_result_t sti_command_settle(strata_world_t *w);
/* After a value written now (set, add, create outside any scope): run the
 * on_set hooks it made due before returning. One load and a branch. */
STI_HOT void sti_settle_sets(strata_world_t *w) {
    if (STI_UNLIKELY(w->sets_pending)) {
        (void)sti_command_settle(w); /* a failure keeps the hooks' commands for the next settle */
    }
}
/* strata_step_end for the step loop: close the step and settle only when
 * something waits (commands, destroys, on_set marks). */
STI_HOT strata_result_t sti_step_close(strata_world_t *w) {
    w->in_step = false;
    return w->cmd_count == 0 && w->doomed_count == 0 && !w->sets_pending ? STRATA_OK : sti_command_settle(w);
}
/* Forget every recorded command and scheduled destroy (room kept). */
void sti_command_drop(strata_world_t *w);
/* Free the command buffer, its scratch copy and the scheduled destroys. */
void sti_command_free(strata_world_t *w);

#endif /* STI_COMMAND_H */
