/* arlab platforms; arlab platform show NAME|FILE|SPEC */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "opttab.h"

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

/* The links of p as a table: the names a scenario's links[].link and failed_links use. */
static void links_table(const ar_platform *p, cli_table *t) {
    static const char *const cols[] = {"link", "a", "b", "lanes", "lane_GBps", "capacity_GBps", "lat_s", "class"};
    tbl_init(t, 8, cols);
    for (int l = 0; l < p->nlinks; l++) {
        const ar_link *lk = &p->links[l];
        int r = tbl_row(t);
        tbl_str(t, r, 0, lk->name ? lk->name : "");
        tbl_str(t, r, 1, p->nodes[lk->a].name);
        tbl_str(t, r, 2, p->nodes[lk->b].name);
        tbl_int(t, r, 3, lk->lanes);
        tbl_num(t, r, 4, "%.6g", lk->bw_Bps / 1e9);
        tbl_num(t, r, 5, "%.6g", ar_link_capacity(lk) / 1e9);
        tbl_num(t, r, 6, "%.6g", lk->lat_s);
        tbl_str(t, r, 7, ar_platform_link_class(p, l) ? "inter-machine" : "intra-machine");
    }
}

int cmd_platform(int argc, char **argv) {
    static const char usage[] = "usage: arlab platform show NAME|FILE|SPEC [--ranks N] [--links N] [--format F]";
    if (argc < 1 || strcmp(argv[0], "show") != 0) {
        fprintf(stderr, "arlab platform: %s\n", usage);
        return AR_EINVAL;
    }
    /* this verb's own flag: --links N, at most N rows of the links table (default: every link) */
    static const cli_ownopt own[] = {{"--links", 0}};
    long long maxlinks = -1;
    int nrest = argc - 1;
    char **rest = argv + 1;
    if (cli_take_own(&nrest, rest, own, 1, &maxlinks, "platform show") != AR_OK) return AR_EINVAL;
    cli_opts o;
    if (cli_parse(nrest, rest, OPT_FORMAT | OPT_RANKS | OPT_POSITIONAL, &o, "platform show") != AR_OK) return AR_EINVAL;
    if (o.npositional != 1) {
        fprintf(stderr, "arlab platform show: give exactly one platform (name, file or family spec)\n");
        return AR_EINVAL;
    }
    ar_platform *p = NULL;
    ar_err e = {{0}};
    ar_status st = ar_platform_load(o.positional[0], o.ranks, &p, &e);
    if (st != AR_OK) return cli_error(st, &e);
    if (o.format == FMT_JSON) {
        st = ar_platform_print_json(p, stdout, &e);
    } else {
        cli_table t;
        links_table(p, &t);
        int shown = maxlinks >= 0 && maxlinks < t.nrows ? (int)maxlinks : t.nrows, all = t.nrows;
        t.nrows = shown; /* the rows past --links are freed with the table: tbl_free frees up to cap */
        if (o.format == FMT_CSV) {
            tbl_print(&t, FMT_CSV, stdout);
        } else {
            ar_platform_print_summary(p, stdout);
            printf("\nlinks (%d; full duplex: lane_GBps per lane and direction, capacity_GBps = lanes x lane_GBps;\n"
                   "scenarios name them in links[].link and failed_links, scenarios/README.md):\n",
                   all);
            if (shown) tbl_print(&t, FMT_TABLE, stdout);
            if (shown < all) printf("... %d more (--links N shows N rows; without --links every link)\n", all - shown);
            if (p->nvlinks) {
                static const char *const rc[] = {"switch", "reduce_GBps"};
                cli_table rt;
                tbl_init(&rt, 2, rc);
                for (int v = 0; v < p->nnodes; v++)
                    if (p->nodes[v].reduce_Bps > 0) {
                        int r = tbl_row(&rt);
                        tbl_str(&rt, r, 0, p->nodes[v].name);
                        tbl_num(&rt, r, 1, "%.6g", p->nodes[v].reduce_Bps / 1e9);
                    }
                printf("\nreducing switches (%d; the bytes per second each absorbs into sums):\n", rt.nrows);
                tbl_print(&rt, FMT_TABLE, stdout);
                tbl_free(&rt);
            }
            if (p->nnotes) {
                printf("\nnotes (sources and assumptions of the numbers):\n");
                for (int i = 0; i < p->nnotes; i++) printf("  - %s\n", p->notes[i]);
            }
        }
        t.nrows = all;
        tbl_free(&t);
    }
    ar_platform_free(p);
    return st == AR_OK ? AR_OK : cli_error(st, &e);
}
