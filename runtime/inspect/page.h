/* page.h: the inspector's page (private): its HTML, CSS and JavaScript
 * (runtime/inspect/page/), compiled into the library by embed.py. */
#ifndef STI_INSPECT_PAGE_H
#define STI_INSPECT_PAGE_H

#include <stddef.h>

/* One file of the page. */
typedef struct sti_page_file_t {
    const char *path; /* as requested, e.g. "/inspector.js" */
    const char *type; /* its content type */
    const char *data;
    size_t size;
} sti_page_file_t;

/* The page's files, and how many. */
extern const sti_page_file_t sti_page_files[];
extern const size_t sti_page_file_count;

#endif /* STI_INSPECT_PAGE_H */
