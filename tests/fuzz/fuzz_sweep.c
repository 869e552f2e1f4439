/* libFuzzer target: the sweep-file loader (lab/sweep/sweep_spec.c). Whatever the
 * input, it must be refused with a message or loaded and freed cleanly. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lab/sweep/sweep_spec.h"
#include "fuzz_text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = fuzz_text(data, size);
    if (!text) return 0;
    ar_err e;
    ar_sweep *s = NULL;
    if (sweep_from_json(text, "fuzz.json", &s, &e) == AR_OK) sweep_free(s);
    free(text);
    return 0;
}
