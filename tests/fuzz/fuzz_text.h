/* libFuzzer's entry point, and the fuzz targets' input as text: a NUL-terminated copy of the bytes. */
#ifndef AR_FUZZ_TEXT_H
#define AR_FUZZ_TEXT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* data[0..size) with a NUL after it (malloc'd, the caller frees); NULL when over 64 KiB (kept fast) or out of
 * memory. */
static inline char *fuzz_text(const uint8_t *data, size_t size) {
    if (size > 1 << 16) return NULL;
    char *text = malloc(size + 1);
    if (!text) return NULL;
    memcpy(text, data, size);
    text[size] = 0;
    return text;
}

#endif
