/* libFuzzer target: the platform loader, the family generator and the units
 * parsers. The first byte picks the entry point; the rest is the input text.
 * Anything accepted is exercised further (routes, summary, JSON print). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/platform/platform.h"
#include "core/units.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1 || size > 1 << 16) return 0;
    char *text = malloc(size);
    if (!text) return 0;
    memcpy(text, data + 1, size - 1);
    text[size - 1] = 0;
    ar_err e;
    ar_platform *p = NULL;
    switch (data[0] % 4) {
    case 0:
    case 1: (void)ar_platform_from_json(text, "fuzz.json", &p, &e); break;
    case 2: (void)ar_platform_generate(text, data[0] & 0x80 ? 64 : 0, &p, &e); break;
    default: {
        uint64_t n;
        double d;
        long long c;
        (void)ar_parse_size(text, 4, &n, &e);
        (void)ar_parse_rate(text, &d, &e);
        (void)ar_parse_time(text, &d, &e);
        (void)ar_parse_count(text, 0, 1000000, &c, &e);
        break;
    }
    }
    if (p) {
        ar_dlink route[512], *grown = NULL; /* a fixed buffer, and one that grows to any route */
        size_t cap = 0;
        for (int r = 0; r < p->nranks && r < 64; r++) {
            int n = ar_platform_route(p, 0, r, route, 512), len = -1;
            if (ar_platform_route_append(p, r, 0, &grown, &cap, 1, &len, &e) != AR_OK || (n >= 0 && n != len))
                abort(); /* valid ranks always route, both ways the same length */
            (void)ar_platform_route_lat(p, r, p->nranks - 1);
            (void)ar_platform_route_bw(p, r, p->nranks - 1);
        }
        free(grown);
        FILE *devnull = fopen("/dev/null", "w");
        if (devnull) {
            ar_platform_print_summary(p, devnull);
            (void)ar_platform_print_json(p, devnull, &e);
            fclose(devnull);
        }
        ar_platform_free(p);
    }
    free(text);
    return 0;
}
