/* libFuzzer target: the schedule JSON loader. Small accepted schedules also go
 * through the validator, the host executor and the cost walk on a flat
 * platform of the same size, which must never crash whatever the verdict. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/lower.h"
#include "core/platform/platform.h"
#include "core/schedule.h"
#include "models/model.h"
#include "fuzz_text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = fuzz_text(data, size);
    if (!text) return 0;
    ar_err e;
    ar_schedule *s = NULL;
    long rounds = 0;
    if (ar_schedule_from_json(text, "fuzz.json", &s, &e) == AR_OK)
        for (int p = 0; p < s->nphases; p++)
            for (int i = 0; i < s->phases[p].nops; i++) rounds += ar_lower_nrounds(&s->phases[p].ops[i]);
    /* keep each input fast: small schedules only go further */
    if (s && s->nranks <= 64 && s->count <= 4096 && rounds <= 20000) {
        (void)ar_schedule_validate(s, &e);
        (void)ar_schedule_execute_host(s, 1 << 22, &e);
        char spec[64];
        snprintf(spec, sizeof spec, "flat:ranks=%d", s->nranks);
        ar_platform *p = NULL;
        if (ar_platform_load(spec, 0, &p, &e) == AR_OK) {
            ar_model_result m;
            (void)ar_model_walk(p, s, &m, &e);
            ar_platform_free(p);
        }
    }
    ar_schedule_free(s);
    free(text);
    return 0;
}
