/* evolve.h: schema evolution (private): how a save of an older schema maps
 * onto this one, the same for binary and JSON loads (docs/saves.md).
 *
 * At each level (components, resources, the fields of one value) a schema
 * element takes the saved element of its own name; only when the save has
 * none of that name, the one of its first `renamed_from` name the save
 * has, in the order the schema lists them. A saved element no
 * schema element takes is dropped; a schema element that takes none keeps
 * its default (added). */
#ifndef STRATA_SAVE_EVOLVE_H
#define STRATA_SAVE_EVOLVE_H

#include "format.h"
#include "loader.h"

/* One level of the schema: `count` elements whose current names and lists
 * of former names (renamed_from: NULL-terminated, or NULL) lie `stride`
 * bytes apart. */
typedef struct sti_evolve_names_t {
    const char *const *name;
    const char *const *const *former;
    size_t stride;
    uint32_t count;
} sti_evolve_names_t;

/* One level of a save: its elements, found by name through `find`. */
typedef struct sti_evolve_saved_t {
    const void *set;
    /* The element spelled name (NUL-terminated, len bytes), or NULL. */
    const void *(*find)(const void *set, const char *name, size_t len);
} sti_evolve_saved_t;

/* The level of n fields (also the resources: the resource block's fields). */
sti_evolve_names_t sti_evolve_fields(const strata_field_desc_t *fields, uint32_t n);

/* The level of the schema's components. */
sti_evolve_names_t sti_evolve_components(const strata_schema_t *s);

/* The saved element schema element i takes its value from: the one of its
 * name (*former NULL), else the one of its first former name the save has
 * (*former that name), else NULL (it keeps its default). */
const void *sti_evolve_source(const sti_evolve_names_t *schema, uint32_t i, const sti_evolve_saved_t *saved,
                              const char **former);

/* True if element i of the schema has a former name. */
bool sti_evolve_has_former(const sti_evolve_names_t *schema, uint32_t i);

/* The schema element that takes the saved element spelled name[0..len), or
 * -1 when none does (it is dropped). */
int64_t sti_evolve_target(const sti_evolve_names_t *schema, const sti_evolve_saved_t *saved, const char *name,
                          size_t len);

/* Note a change to report: `path.name` (name of len bytes; "name (was
 * former)" when former is set). With `each`, every note of the same change
 * counts one more (JSON: per entity); else it is noted once for saved
 * component `counted` (-1: a resource, -2: none), whose rows count it when
 * the load ends (binary). STRATA_ERR_NOMEM if the list cannot grow. */
strata_result_t sti_evolve_note(sti_loader_t *l, strata_change_kind_t kind, int64_t counted, bool each,
                                const char *path, const char *name, size_t len, const char *former);

/* True if every value of kind `from` converts to kind `to` exactly. */
bool sti_evolve_lossless(uint8_t from, uint8_t to);

/* A saved field's type, as the save describes it. */
typedef struct sti_evolve_type_t {
    uint8_t kind;
    bool array;
    uint32_t size;  /* C bytes of an element when saved (char[N]: N) */
    uint32_t count; /* elements */
} sti_evolve_type_t;

/* Whether a saved field of type `from` loads into field `to`: 1 as it is,
 * 2 converted (a change to report), 0 not without loss (why says so). */
int sti_evolve_convert(sti_evolve_type_t from, const strata_field_desc_t *to, char *why, size_t why_size);

/* --- Migrations: type changes value by value ------------------------------ */

/* True if a migration can carry a saved field of type `from` into `to`
 * value by value, perhaps with loss: numbers (bool, integers, floats)
 * among themselves, a char[N] to a char[M], the same entity, enum or
 * struct kind; an array to an array, a single value to a single value. */
bool sti_evolve_convertible(sti_evolve_type_t from, const strata_field_desc_t *to);

/* The type's spelling for a message: "f32", "f32[4]", "char[16]", "struct". */
void sti_evolve_type_name(char *out, size_t size, uint8_t kind, bool array, uint32_t elem_size, uint32_t count);

/* Convert v, read as number kind `from`, to number kind `to` (bool,
 * integers, floats) into *out (ready for sti_scalar_write). True if the
 * value is kept exactly; else *out is the nearest value `to` holds: floats
 * rounded, integers saturated, a float rounded to the nearest integer
 * (halves away from zero) and saturated, NaN as 0; a NaN or an infinity
 * into a float stays what it is. */
bool sti_evolve_number(uint8_t from, sti_scalar_t v, uint8_t to, sti_scalar_t *out);

#endif /* STRATA_SAVE_EVOLVE_H */
