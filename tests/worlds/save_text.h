/* save_text.h: the 'save' world (tests/schema/save.yaml) as bytes: its
 * binary save and its JSON dump in fresh buffers, for the test files of
 * that world. Include after cmocka.h and save.h. */
#ifndef STRATA_TEST_SAVE_TEXT_H
#define STRATA_TEST_SAVE_TEXT_H

/* The world's binary save in a fresh buffer (caller frees). */
static inline unsigned char *save_bytes(const save_world *w, size_t *size) {
    assert_int_equal(save_world_save_mem(w, NULL, 0, size), STRATA_ERR_LIMIT);
    unsigned char *buf = malloc(*size);
    assert_non_null(buf);
    size_t again = 0;
    assert_int_equal(save_world_save_mem(w, buf, *size, &again), STRATA_OK);
    assert_int_equal(again, *size);
    return buf;
}

/* The world's JSON dump as a NUL-terminated string (caller frees). */
static inline char *json_text(const save_world *w) {
    size_t size = 0;
    assert_int_equal(save_world_dump_json_mem(w, NULL, 0, &size), STRATA_ERR_LIMIT);
    char *buf = malloc(size + 1);
    assert_non_null(buf);
    assert_int_equal(save_world_dump_json_mem(w, buf, size, &size), STRATA_OK);
    buf[size] = '\0';
    return buf;
}

#endif /* STRATA_TEST_SAVE_TEXT_H */
