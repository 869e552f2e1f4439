/* arlab: an all-reduce workbench. One verb per file (cli/cmd_*.c). */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "core/interrupt.h"
#include "core/util.h"
#include "lab/backend.h"

typedef struct verb {
    const char *name;
    int (*fn)(int, char **);
    const char *usage;
} verb;

/* Verbs with a second form, chosen by a flag anywhere in their arguments (best --emit: NCCL's tuner
 * file; calibrate --from: the fit from nccl-tests files): main dispatches it, no verb calls another. */
static const struct {
    const char *verb, *flag;
    int (*fn)(int, char **);
} forms[] = {{"best", "--emit", cmd_best_emit}, {"calibrate", "--from", cmd_fit}};

static const verb verbs[] = {
    {"platforms", cmd_platforms, "platforms [--format F]                      list preset platforms"},
    {"platform", cmd_platform,
     "platform show NAME|FILE|SPEC [--ranks N] [--links N]  print one platform and its links"},
    {"algos", cmd_algos, "algos [--format F]                          list algorithms"},
    {"plan", cmd_plan, "plan --algo A|--schedule F.json --platform P [--size S] [--check] [--format table|json]"},
    {"model", cmd_model,
     "model --platform P --size S [--algo A|all] [--schedule F.json] [--gamma G] [--format table|csv|json]"},
    {"fit", cmd_fit, "fit --from FILE... --platform P | --reference CSV   fit the NCCL model to nccl-tests output"},
    {"best", cmd_best, "best --platform P --size S                   rank all algorithms and BlueConnect variants"},
    {"sim", cmd_sim,
     "sim --platform P --algo A --size S [--check] [--trace FILE] [--network M] [--gamma G] [--budget T]\n"
     "            [--engine fast|naive] [--no-shortcuts] [--chunks N] [--format F]   (arlab sim --help)"},
    {"trees", cmd_trees, "trees --platform P                            spanning-tree packing: C(G), bounds, trees"},
    {"real", cmd_real,
     "real --platform P --algo A --size S           run on GPUs with NCCL (mpirun -np N arlab real ...)"},
    {"calibrate", cmd_calibrate,
     "calibrate --out FILE.json [--from NT... --platform P]  fit on GPUs, or nccl-tests files"},
    {"compare", cmd_compare, "compare --platform P --algo A --size S        model vs simulated vs measured"},
    {"sweep", cmd_sweep, "sweep FILE.json [-j N] [--out DIR] [--quiet]   run a grid of points to CSV/JSON"},
    {"report", cmd_report, "report [DIR]                                  build the HTML/Markdown report"},
    {"testbed", cmd_testbed,
     "testbed up|down|status|run --platform P [--scale F] [--id ID]  emulated cluster + MPI backend"},
};

static void usage(FILE *f) {
    fprintf(f, "arlab %s: an all-reduce workbench\nusage: arlab VERB [options]\n", AR_VERSION);
    for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++) fprintf(f, "  arlab %s\n", verbs[i].usage);
    fprintf(f, "  arlab --version                               version, git commit, backends built\n");
    fprintf(f, "  arlab help VERB (or arlab VERB --help)         every option of a verb, with an example\n");
    fprintf(f,
            "  arlab help columns sweep|sim|model             the output columns of sweeps, sim, model (Markdown)\n");
    fprintf(f, "  arlab help --man | --completion bash           the man page (roff), the bash completion script\n");
    fprintf(
        f, "common: --dtype f32|f16|bf16|f64|i32, --ranks N (generated families), sizes like 100MB, 120M (elements)\n");
}

int main(int argc, char **argv) {
    /* arlab help VERB = arlab VERB --help */
    char *help_argv[4];
    if (argc >= 3 && argc <= 4 && !strcmp(argv[1], "help") && !strcmp(argv[2], "columns"))
        return cli_help_columns(argc == 4 ? argv[3] : NULL);
    if (argc == 3 && !strcmp(argv[1], "help") && !strcmp(argv[2], "--man")) return cli_help_man(usage);
    if (argc >= 3 && argc <= 4 && !strcmp(argv[1], "help") && !strcmp(argv[2], "--completion"))
        return cli_help_completion(argc == 4 ? argv[3] : NULL);
    if (argc == 3 && !strcmp(argv[1], "help")) {
        help_argv[0] = argv[0];
        help_argv[1] = argv[2];
        help_argv[2] = "--help";
        help_argv[3] = NULL;
        argv = help_argv;
    }
    if (argc < 2 || !strcmp(argv[1], "help") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? AR_EINVAL : 0;
    }
    /* VERB --help / -h: the verb's text (cli/help.c; sim prints its own) */
    for (int i = 2; i < argc; i++)
        if ((!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) && cli_help(argv[1])) return 0;
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
        char info[512];
        lab_build_info(info, sizeof info);
        printf("arlab %s\n%s\n", AR_VERSION, info);
        return 0;
    }
    /* Ctrl-C / SIGTERM end every child (simulations, sweep workers) and exit 128 + signal; the
     * testbed verb installs its own handlers (it must tear the namespaces down) */
    ar_interrupt_install("the rows already written are complete");
    enum { NVERBS = sizeof verbs / sizeof verbs[0] };
    const char *names[NVERBS + 2] = {[NVERBS] = "help", [NVERBS + 1] = "version"}; /* main's own words too */
    for (size_t i = 0; i < NVERBS; i++) {
        if (!strcmp(argv[1], verbs[i].name)) {
            for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++)
                for (int a = 2; !strcmp(forms[f].verb, argv[1]) && a < argc; a++)
                    if (!strcmp(argv[a], forms[f].flag)) return forms[f].fn(argc - 2, argv + 2);
            return verbs[i].fn(argc - 2, argv + 2);
        }
        names[i] = verbs[i].name;
    }
    const char *near = ar_closest(argv[1], names, NVERBS + 2);
    char q[96];
    if (near)
        fprintf(stderr, "arlab: unknown command %s: did you mean \"%s\"? (see 'arlab help')\n",
                ar_quote(argv[1], q, sizeof q), near);
    else fprintf(stderr, "arlab: unknown command %s (see 'arlab help')\n", ar_quote(argv[1], q, sizeof q));
    return AR_EINVAL;
}
