/* libFuzzer target: the nccl-tests reader (calib/nccltests_in.h), text and JSON.
 * The first byte picks the options (collective hint, allow_truncated) and, with
 * bit 6 set, the reference-corpus CSV reader instead; the rest is the file. Anything accepted is walked further (where, check_fit). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "calib/nccltests_in.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1 || size > 1 << 16) return 0;
    ar_nt_opts o = {.coll = (ar_nt_coll)(data[0] % AR_NT_NCOLL), .allow_truncated = (data[0] & 0x80) != 0};
    /* an exact-size copy, so that reading past the end is caught */
    char *text = malloc(size - 1 ? size - 1 : 1);
    if (!text) return 0;
    memcpy(text, data + 1, size - 1);
    ar_err e;
    if (data[0] & 0x40) {
        ar_nt_ref *v = NULL;
        int n = 0;
        if (ar_nt_read_reference_mem("fuzz.csv", text, size - 1, &v, &n, &e) == AR_OK && (n < 1 || !v)) abort();
        free(v);
        free(text);
        return 0;
    }
    ar_nt_set *s = NULL;
    if (ar_nt_read_mem("fuzz", text, size - 1, &o, &s, &e) == AR_OK) {
        char w[256];
        for (int i = 0; i < s->nrecs; i++) {
            const ar_nt_record *r = &s->recs[i];
            if (r->run < 0 || r->run >= s->nruns || r->file != 0) abort();
            const ar_nt_run *run = &s->runs[r->run];
            if (i < run->first_rec || i >= run->first_rec + run->nrecs) abort();
            (void)ar_nt_where(s, r, w, sizeof w);
        }
        for (int i = 0; i < s->nruns; i++) (void)ar_nt_busbw_factor(s->runs[i].coll, s->runs[i].nranks);
        (void)ar_nt_check_fit(s, 1 + data[0] % 3, &e);
        ar_nt_free(s);
    }
    free(text);
    return 0;
}
