/* arlab algos: the registry (name, label, parameters, summary, the collectives
 * it serves), and every algorithm's parameter table (key, type and range,
 * default, help), printed from the descriptors. The table also lists the
 * algorithms `--algo all` leaves out (ar_algos_explicit: the user-written
 * schedule); CSV and JSON list only what `all` runs. */
#include <string.h>

#include "cli.h"

int cmd_algos(int argc, char **argv) {
    cli_opts o;
    if (cli_parse(argc, argv, OPT_FORMAT, &o, "algos") != AR_OK) return AR_EINVAL;
    int n, nx;
    const ar_algo *const *reg = ar_algos(&n);
    const ar_algo *const *xs = ar_algos_explicit(&nx);
    const ar_algo *all[128];
    if (n > 128) n = 128;
    for (int i = 0; i < n; i++) all[i] = reg[i];
    if (o.format == FMT_TABLE)
        for (int i = 0; i < nx && n < 128; i++) all[n++] = xs[i];
    static const char *const cols[] = {"name", "label", "params", "summary", "collectives"};
    cli_table t;
    tbl_init(&t, 5, cols);
    for (int i = 0; i < n; i++) {
        char keys[256] = "";
        size_t u = 0;
        for (int k = 0; k < ar_param_count(all[i]->params) && u < sizeof keys; k++) {
            int w = snprintf(keys + u, sizeof keys - u, "%s%s", k ? ", " : "", all[i]->params[k].key);
            u = w < 0 ? sizeof keys : u + (size_t)w;
        }
        int r = tbl_row(&t);
        tbl_str(&t, r, 0, all[i]->name);
        tbl_str(&t, r, 1, all[i]->label);
        tbl_str(&t, r, 2, keys);
        tbl_str(&t, r, 3, all[i]->summary);
        char colls[64] = "";
        unsigned m = ar_algo_colls(all[i]);
        for (int c = 0; c < AR_COLL_COUNT; c++)
            if (m & AR_COLL_BIT(c))
                snprintf(colls + strlen(colls), sizeof colls - strlen(colls), "%s%s", colls[0] ? "," : "",
                         ar_coll_name((ar_coll)c));
        tbl_str(&t, r, 4, colls);
    }
    tbl_print(&t, o.format, stdout);
    tbl_free(&t);

    static const char *const pcols[] = {"algo", "key", "type", "default", "help"};
    cli_table pt;
    tbl_init(&pt, 5, pcols);
    for (int i = 0; i < n; i++)
        for (int k = 0; k < ar_param_count(all[i]->params); k++) {
            const ar_param_def *d = &all[i]->params[k];
            char ty[128], df[128];
            int r = tbl_row(&pt);
            tbl_str(&pt, r, 0, all[i]->name);
            tbl_str(&pt, r, 1, d->key);
            tbl_str(&pt, r, 2, ar_param_type_str(d, ty, sizeof ty));
            tbl_str(&pt, r, 3, ar_param_default_str(d, df, sizeof df));
            tbl_str(&pt, r, 4, d->help);
        }
    if (o.format == FMT_TABLE) {
        printf("\nparameters (--algo name:key=value,key=value):\n");
        tbl_print(&pt, o.format, stdout);
    }
    tbl_free(&pt);
    return AR_OK;
}
