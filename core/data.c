/* Test data convention (data.h). */
#include "data.h"

void ar_data_fill(double *buf, int r, uint64_t count) {
    for (uint64_t x = 0; x < count; x++) buf[x] = ar_data_input(r, x);
}

uint64_t ar_data_first_wrong(const double *buf, int nranks, uint64_t count) {
    for (uint64_t x = 0; x < count; x++)
        if (!(buf[x] == ar_data_expected(nranks, x))) return x;
    return count;
}
