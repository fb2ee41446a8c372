/* save_crc.h: the CRC-32 (IEEE) the binary save format seals its bytes
 * with, for the tests that edit saves on purpose and seal them again. */
#ifndef STRATA_TEST_SAVE_CRC_H
#define STRATA_TEST_SAVE_CRC_H

#include <stddef.h>
#include <stdint.h>

/* CRC-32 (IEEE) of n bytes at p, as the format computes it. */
static inline uint32_t crc32_of(const unsigned char *p, size_t n) {
    uint32_t crc = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++) {
            crc = (crc & 1) ? (crc >> 1) ^ 0xEDB88320u : crc >> 1;
        }
    }
    return crc ^ 0xffffffffu;
}

#endif /* STRATA_TEST_SAVE_CRC_H */
