/* arlab platforms; arlab platform show NAME|FILE|SPEC */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cmd_platforms(int argc, char **argv) {
    cli_opts o;
    if (cli_parse(argc, argv, OPT_FORMAT, &o, "platforms") != AR_OK) return AR_EINVAL;
    char **names = NULL;
    int n = 0;
    ar_err e = {{0}};
    ar_status st = ar_platform_list_presets(&names, &n, &e);
    if (st != AR_OK) return cli_error(st, &e);
    static const char *const cols[] = {"name", "kind", "ranks", "machines", "levels", "description"};
    cli_table t;
    tbl_init(&t, 6, cols);
    for (int i = 0; i < n; i++) {
        ar_platform *p = NULL;
        int r = tbl_row(&t);
        tbl_str(&t, r, 0, names[i]);
        if (ar_platform_load(names[i], 0, &p, &e) != AR_OK) {
            tbl_str(&t, r, 5, e.msg);
            st = AR_EINVAL;
        } else {
            static const char *const kinds[] = {"tree", "fat-tree", "torus", "graph"};
            tbl_str(&t, r, 1, kinds[p->kind]);
            tbl_int(&t, r, 2, p->nranks);
            tbl_int(&t, r, 3, p->nmachines);
            char lv[128] = "";
            for (int l = 0; l < p->nlevels; l++) {
                size_t len = strlen(lv);
                snprintf(lv + len, sizeof lv - len, "%s%d", l ? "x" : "", p->levels[l].fanout);
            }
            tbl_str(&t, r, 4, p->nlevels ? lv : "asymmetric");
            tbl_str(&t, r, 5, p->description ? p->description : "");
            ar_platform_free(p);
        }
        free(names[i]);
    }
    free(names);
    tbl_print(&t, o.format, stdout);
    tbl_free(&t);
    if (o.format == FMT_TABLE)
        printf(
            "\nAlso generated families: flat, tree, fat-tree, torus, machines (e.g. --platform fat-tree --ranks 4096;"
            " see platforms/README.md)\n");
    return st;
}

int cmd_platform(int argc, char **argv) {
    if (argc < 1 || strcmp(argv[0], "show") != 0) {
        fprintf(stderr,
                "arlab platform: usage: arlab platform show NAME|FILE|SPEC [--ranks N] [--format table|json]\n");
        return AR_EINVAL;
    }
    cli_opts o;
    if (cli_parse(argc - 1, argv + 1, OPT_FORMAT | OPT_RANKS | OPT_POSITIONAL, &o, "platform show") != AR_OK)
        return AR_EINVAL;
    if (o.npositional != 1) {
        fprintf(stderr, "arlab platform show: give exactly one platform (name, file or family spec)\n");
        return AR_EINVAL;
    }
    ar_platform *p = NULL;
    ar_err e = {{0}};
    ar_status st = ar_platform_load(o.positional[0], o.ranks, &p, &e);
    if (st != AR_OK) return cli_error(st, &e);
    if (o.format == FMT_JSON) st = ar_platform_print_json(p, stdout, &e);
    else ar_platform_print_summary(p, stdout);
    ar_platform_free(p);
    return st == AR_OK ? AR_OK : cli_error(st, &e);
}
