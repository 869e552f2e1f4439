/* arlab algos: the registry. */
#include "cli.h"

int cmd_algos(int argc, char **argv) {
    cli_opts o;
    if (cli_parse(argc, argv, OPT_FORMAT, &o, "algos") != AR_OK) return AR_EINVAL;
    int n;
    const ar_algo *const *all = ar_algos(&n);
    static const char *const cols[] = {"name", "label", "params", "summary"};
    cli_table t;
    tbl_init(&t, 4, cols);
    for (int i = 0; i < n; i++) {
        int r = tbl_row(&t);
        tbl_str(&t, r, 0, all[i]->name);
        tbl_str(&t, r, 1, all[i]->label);
        tbl_str(&t, r, 2, all[i]->params_help);
        tbl_str(&t, r, 3, all[i]->summary);
    }
    tbl_print(&t, o.format, stdout);
    tbl_free(&t);
    return AR_OK;
}
