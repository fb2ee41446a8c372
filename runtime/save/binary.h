/* binary.h: the binary format as a migration uses it (private): a save
 * into memory without its checksum, and a load with a migration's options.
 * The formats' own entry points are strata_world_save_mem and
 * strata_world_load_mem (strata.h). */
#ifndef STRATA_SAVE_BINARY_H
#define STRATA_SAVE_BINARY_H

#include "strata_internal.h"

/* How a load maps and checks the bytes; zero: as strata_world_load_mem. */
typedef struct sti_load_opts_t {
    bool trusted;                  /* bytes this runtime has just written: no checksum to check */
    bool by_value;                 /* lossy type changes convert value by value: LOST changes, not errors */
    bool accept_loss;              /* with by_value: load even when values are lost */
    const strata_schema_t *source; /* the saving world's schema: its dropped relations lose their links */
} sti_load_opts_t;

/* strata_world_load_mem with options. */
strata_result_t sti_load_mem_opts(strata_world_t *w, const void *data, size_t size, const sti_load_opts_t *opts,
                                  strata_load_report_t *report);

/* w's save with a zero checksum, into buf[0..cap) (*size its size); with
 * buf NULL only the size is counted, without encoding a value. Returns as
 * strata_world_save_mem. */
strata_result_t sti_save_mem_trusted(const strata_world_t *w, void *buf, size_t cap, size_t *size);

#endif /* STRATA_SAVE_BINARY_H */
