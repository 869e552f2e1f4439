/* The table of every option of the arlab command (cli/opttab.h): the shared ones, which cli_parse
 * (cli/opts.c) sets by their type or handler, and the verbs' own, which cli_take_own sets into a verb's
 * own struct; every row is also in the help, the man page and the completion. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "opttab.h"
#include "models/nccl_model.h"
#include "core/util.h"
#include "lab/sweep/sweep.h"
#include "sim/sim.h"

static ar_status push(const char **list, int *n, const char *v, const char *verb, const char *flag) {
    if (*n >= CLI_MAX_LIST) return cli_bad(verb, "too many %s values", flag);
    list[(*n)++] = v;
    return AR_OK;
}

/* Comma lists of algorithm or platform specs, e.g. "ring,blueconnect:decomp=4x2,impl=ring+hd,flexreduce".
 * A spec's own parameters are comma-separated too, so a comma starts a new spec only when the text after it
 * is not a bare key=value: "impl=ring+hd" (an '=' with no ':' before it) continues the spec before it,
 * "flexreduce" or "tree:fanouts=4x2" starts one. Splits in place (argv's storage). */
static ar_status push_specs(char *val, const char **list, int *n, const char *verb, const char *flag) {
    ar_status st = push(list, n, val, verb, flag);
    for (char *c = strchr(val, ','); st == AR_OK && c; c = strchr(c + 1, ',')) {
        const char *t = c + 1, *eq = strchr(t, '='), *colon = strchr(t, ':'), *next = strchr(t, ',');
        if (next && eq && eq > next) eq = NULL; /* the '=' belongs to a later token */
        if (next && colon && colon > next) colon = NULL;
        int continues = eq && (!colon || colon > eq);
        if (continues) continue;
        if (!*t) return cli_bad(verb, "empty value after ',' in %s", flag);
        *c = 0;
        st = push(list, n, t, verb, flag);
    }
    if (st == AR_OK && !*val) return cli_bad(verb, "empty value in %s", flag);
    return st;
}

static ar_status set_platform(cli_opts *o, const cli_optdef *d, const char *val, const char *verb) {
    return push_specs((char *)val, o->platforms, &o->nplatforms, verb, d->name);
}

static ar_status set_algo(cli_opts *o, const cli_optdef *d, const char *val, const char *verb) {
    return push_specs((char *)val, o->algos, &o->nalgos, verb, d->name);
}

/* a user-written schedule: the algorithm schedule:file=FILE */
static ar_status set_schedule(cli_opts *o, const cli_optdef *d, const char *val, const char *verb) {
    if (strchr(val, ',')) return cli_bad(verb, "--schedule: \"%s\": a file name with ',' cannot be named", val);
    if (o->nschedules >= CLI_MAX_LIST) return cli_bad(verb, "too many --schedule values");
    char *sp = o->schedule_specs[o->nschedules++];
    int w = snprintf(sp, sizeof o->schedule_specs[0], "schedule:file=%s", val);
    if (w < 0 || (size_t)w >= sizeof o->schedule_specs[0]) return cli_bad(verb, "--schedule: file name too long");
    return push(o->algos, &o->nalgos, sp, verb, d->name);
}

/* comma lists: sizes contain no commas */
static ar_status set_size(cli_opts *o, const cli_optdef *d, const char *val, const char *verb) {
    for (char *tok = (char *)val;;) {
        char *c = strchr(tok, ',');
        if (c) *c = 0;
        if (!*tok) return cli_bad(verb, "empty size in --size \"%s\"", val);
        ar_status st = push(o->sizes, &o->nsizes, tok, verb, d->name);
        if (st != AR_OK) return st;
        if (!c) return AR_OK;
        tok = c + 1;
    }
}

static ar_status set_dtype(cli_opts *o, const cli_optdef *d, const char *val, const char *verb) {
    ar_err e = {{0}};
    if (ar_dtype_parse(val, &o->dtype, &e) != AR_OK) return cli_bad(verb, "%s: %s", d->name, e.msg);
    return AR_OK;
}

static ar_status set_coll(cli_opts *o, const cli_optdef *d, const char *val, const char *verb) {
    ar_err e = {{0}};
    if (ar_coll_parse(val, &o->coll, &e) != AR_OK) return cli_bad(verb, "%s: %s", d->name, e.msg);
    return AR_OK;
}

static ar_status set_nccl_version(cli_opts *o, const cli_optdef *d, const char *val, const char *verb) {
    o->nccl_version = ar_nccl_version_parse(val);
    if (o->nccl_version < 0)
        return cli_bad(verb, "%s: \"%s\" is not a modelled NCCL release (2.18, 2.19, 2.23 to 2.30)", d->name, val);
    return AR_OK;
}

static ar_status set_gamma(cli_opts *o, const cli_optdef *d, const char *val, const char *verb) {
    char *end;
    errno = 0;
    double g = strtod(val, &end);
    if (errno || *end || !(g >= 0) || g > 1)
        return cli_bad(verb, "%s: \"%s\" is not seconds per byte in [0, 1]", d->name, val);
    o->gamma_s_per_B = g;
    return AR_OK;
}

static ar_status set_budget(cli_opts *o, const cli_optdef *d, const char *val, const char *verb) {
    ar_err e = {{0}};
    if (ar_parse_time(val, &o->budget_s, &e) != AR_OK) return cli_bad(verb, "%s: %s", d->name, e.msg);
    return AR_OK;
}

/* --iters and --warmup: a count whose message is ar_parse_count's alone */
static ar_status set_runs(cli_opts *o, const cli_optdef *d, const char *val, const char *verb) {
    long long n;
    ar_err e = {{0}};
    if (ar_parse_count(val, d->min, d->max, &n, &e) != AR_OK) return cli_bad(verb, "%s", e.msg);
    *(int *)((char *)o + d->field) = (int)n;
    return AR_OK;
}

/* sim --sync: an ar_sync; the message names the value given */
static ar_status own_sync(const cli_optdef *d, const char *as, const char *val, void *field, const char *verb) {
    (void)d, (void)as;
    ar_err e = {{0}};
    if (ar_sync_parse(val, (ar_sync *)field, &e) != AR_OK) return cli_bad(verb, "%s", e.msg);
    return AR_OK;
}

/* sweep -j N, -jN, --jobs N: a count of processes, the missing value said as the option was written */
static ar_status own_jobs(const cli_optdef *d, const char *as, const char *val, void *field, const char *verb) {
    long long n = 0;
    ar_err e = {{0}};
    if (!val) return cli_bad(verb, "%s needs a number of processes", as);
    if (ar_parse_count(val, d->min, d->max, &n, &e) != AR_OK) return cli_bad(verb, "-j: %s", e.msg);
    *(int *)field = (int)n;
    return AR_OK;
}

/* compare --plot FILE: a file name, however it is spelt (an empty one is the plotter's to refuse) */
static ar_status own_plot(const cli_optdef *d, const char *as, const char *val, void *field, const char *verb) {
    if (!val) return cli_bad(verb, "%s needs a file (.png or .svg)", d->name);
    (void)as;
    *(const char **)field = val;
    return AR_OK;
}

/* best --max-bytes S: the text as given (even empty), its size read once the verb needs it */
static ar_status own_text(const cli_optdef *d, const char *as, const char *val, void *field, const char *verb) {
    if (!val) return cli_bad(verb, "option %s needs a value", d->name);
    (void)as;
    *(const char **)field = val;
    return AR_OK;
}

/* testbed --timeout S: seconds in (0, 86400], a double */
static ar_status own_seconds(const cli_optdef *d, const char *as, const char *val, void *field, const char *verb) {
    char *end = NULL;
    double t = val ? strtod(val, &end) : 0;
    (void)as;
    if (!val || *end || !(t > 0) || t > 86400) return cli_bad(verb, "%s needs seconds in (0, 86400]", d->name);
    *(double *)field = t;
    return AR_OK;
}

#define F(x) offsetof(cli_opts, x)
static const cli_optdef defs[] = {
    /* the shared options (cli_parse) */
    {"--platform", OPT_PLATFORM, CLI_ARG_OTHER, "--platform P", NULL, 0, 0, 0, set_platform,
     "a preset (arlab platforms), a JSON file, or a family spec (flat:ranks=8,\n"
     "tree:fanouts=4x2, dgx-h100:nodes=4, rail:...; platforms/README.md)",
     NULL, NULL, NULL},
    {"--algo", OPT_ALGO, CLI_ARG_OTHER, "--algo A", NULL, 0, 0, 0, set_algo,
     "an algorithm (repeatable; default all; see arlab algos)", NULL, NULL, NULL},
    {"--size", OPT_SIZE, CLI_ARG_OTHER, "--size S[,S...]", NULL, 0, 0, 0, set_size,
     "message sizes: 100MB, 1GiB, 4096B (bytes), 120M, 4096 (elements); comma lists;\n"
     "-b MIN -e MAX [-f F | -i N]: nccl-tests' range (bytes; K, M, G = 1024^k)",
     NULL, NULL, NULL},
    {"--schedule", OPT_ALGO, CLI_ARG_FILE, "--schedule F.json", NULL, 0, 0, 0, set_schedule,
     "a user-written schedule (docs/algorithms.md)", NULL, NULL, NULL},
    {"--ranks", OPT_RANKS, CLI_ARG_COUNT, "--ranks N", NULL, F(ranks), 1, AR_MAX_RANKS, NULL,
     "rank count for a generated family (flat, tree, fat-tree, torus)", NULL, NULL, NULL},
    {"--dtype", OPT_DTYPE, CLI_ARG_ENUM, "--dtype T", "f32 f16 bf16 f64 i32", 0, 0, 0, set_dtype,
     "f32 (default), f16, bf16, f64, i32: the element type (sizes in elements use it)", NULL, NULL, NULL},
    {"--format", OPT_FORMAT, CLI_ARG_ENUM, "--format F", "table csv json", F(format), 0, 0, NULL,
     "table (default), csv or json (CSV/JSON: %.17g, missing values empty/null)", NULL, NULL, NULL},
    {"--check", OPT_CHECK, CLI_ARG_NONE, "--check", NULL, F(check), 0, 0, NULL,
     "every rank's buffer must be the exact sum", NULL, NULL, NULL},
    {"--trace", OPT_TRACE, CLI_ARG_FILE, "--trace FILE", NULL, F(trace), 0, 0, NULL,
     "Chrome trace-event JSON of every transfer", NULL, NULL, NULL},
    {"--out", OPT_OUT, CLI_ARG_FILE, "--out FILE", NULL, F(out), 0, 0, NULL, "the file written", NULL, NULL, NULL},
    {"--network", OPT_NETWORK, CLI_ARG_STRING, "--network MODEL", NULL, F(network), 0, 0, NULL,
     "SimGrid's network model (arlab sim --help lists them)", NULL, NULL, NULL},
    {"--gamma", OPT_GAMMA, CLI_ARG_OTHER, "--gamma G", NULL, 0, 0, 0, set_gamma,
     "reduction cost in seconds per byte on every GPU", NULL, NULL, NULL},
    {"--budget", OPT_BUDGET, CLI_ARG_OTHER, "--budget T", NULL, 0, 0, 0, set_budget,
     "wall-clock limit per simulation (e.g. 60s)", NULL, NULL, NULL},
    {"--iters", OPT_ITERS, CLI_ARG_COUNT, "--iters N", NULL, F(iters), 1, 100000, set_runs,
     "timed runs per point (default 20)", NULL, NULL, NULL},
    {"--warmup", OPT_ITERS, CLI_ARG_COUNT, "--warmup N", NULL, F(warmup), 0, 100000, set_runs,
     "untimed runs per point (default 5)", NULL, NULL, NULL},
    {"--coll", OPT_COLL, CLI_ARG_ENUM, "--coll C", "allreduce reducescatter allgather", 0, 0, 0, set_coll,
     "allreduce (default), reducescatter or allgather: the collective (an algorithm that does\n"
     "not serve it is refused; arlab algos lists what each serves)",
     NULL, NULL, NULL},
    {"--scenario", OPT_SCENARIO, CLI_ARG_FILE, "--scenario F.json", NULL, F(scenario), 0, 0, NULL,
     "what-if (scenarios/README.md): slow/failed links and ranks, late ranks, flows", NULL, NULL, NULL},
    {"--nccl-version", OPT_PLATFORM, CLI_ARG_ENUM, "--nccl-version V",
     "2.18 2.19 2.23 2.24 2.25 2.26 2.27 2.28 2.29 2.30", 0, 0, 0, set_nccl_version,
     "the NCCL release NCCL's model (nccl_model_s, the nccl pick) follows: 2.18 (also\n"
     "2.19), 2.23, 2.24, 2.26 (2.25), 2.27, 2.28, 2.30 (2.29; the default)",
     NULL, NULL, NULL},
    {"--nccl-model", OPT_PLATFORM, CLI_ARG_ENUM, "--nccl-model M", "arlab tuner", F(nccl_tuner_only), 0, 0, NULL,
     "NCCL's model's time (nccl_model_s): arlab (default: NCCL's tuner plus the pipeline\n"
     "fill of NVLS on one node and of NVLS_TREE across nodes on Hopper, docs/models.md)\n"
     "or tuner (the tuner's own estimate);\n"
     "NCCL's choice of algorithm and protocol is the tuner's either way",
     NULL, NULL, NULL},
    /* the verbs' own options (bit 0): model, sim, best, platform show, real, calibrate, sweep, compare
     * (--plot) best --emit (--max-bytes) and testbed
     * (--timeout) read theirs with cli_take_own by these rows; fit, compare --measured, best --emit and testbed
     * with their own code */
    {"--links", 0, CLI_ARG_COUNT, "--links N", NULL, 0, 0, 1LL << 40, NULL,
     "at most N rows of the links table (default: every link)", "give a count >= 0 (0: no link rows)", NULL, NULL},
    {"--detail", 0, CLI_ARG_NONE, "--detail", NULL, 0, 0, 0, NULL, "stage breakdown of the closed form and of the walk",
     NULL, NULL, NULL},
    {"--digits", 0, CLI_ARG_COUNT, "--digits N", NULL, 0, 1, 17, NULL,
     "significant digits of the times in the tables (1..17, default 4; CSV/JSON: 17)", "give an integer in 1..17", NULL,
     NULL},
    {"--top", 0, CLI_ARG_COUNT, "--top N", NULL, 0, 1, 1000000, NULL,
     "show the N best rows (default: 30 in the table, every row in csv/json)", "give a number of rows >= 1", NULL,
     NULL},
    {"--per-algo", 0, CLI_ARG_NONE, "--per-algo", NULL, 0, 0, 0, NULL, "only the best variant of each algorithm", NULL,
     NULL, NULL},
    {"--emit", 0, CLI_ARG_OTHER, "--emit nccl-tuner FILE", "nccl-tuner", 0, 0, 0, NULL,
     "NCCL's own choice per size range (models/nccl_model.h) in the CSV of\n"
     "NCCL's example tuner plugin (NCCL-native algorithms only: arlab's own\n"
     "schedules cannot be expressed there)",
     NULL, NULL, NULL},
    {"--max-bytes", 0, CLI_ARG_OTHER, "--max-bytes S", NULL, 0, 0, 0, NULL,
     "the largest size of the ranges (default 16GiB)", NULL, NULL, own_text},
    {"--launch", 0, CLI_ARG_STRING, "--launch L", "auto single mpi file:", 0, 0, 0, NULL,
     "auto (default), single (one process, all local GPUs), mpi, file:PATH", NULL, NULL, NULL},
    {"--gpus", 0, CLI_ARG_STRING, "--gpus N", NULL, 0, 0, 0, NULL, "GPUs to use with --launch single", NULL, NULL,
     NULL},
    {"--lowering", 0, CLI_ARG_STRING, "--lowering L", "auto p2p native", 0, 0, 0, NULL,
     "auto (default), p2p (ncclSend/Recv rounds) or native (NCCL collectives)", NULL, NULL, NULL},
    {"--placement", 0, CLI_ARG_STRING, "--placement P", "both in out", 0, 0, 0, NULL,
     "both (default), in (in place) or out (out of place)", NULL, NULL, NULL},
    {"--timing", 0, CLI_ARG_STRING, "--timing T", "arlab nccl-tests", 0, 0, 0, NULL,
     "arlab (median of per-iteration max) or nccl-tests (mean of back-to-back)", NULL, NULL, NULL},
    {"--graph", 0, CLI_ARG_NONE, "--graph", NULL, 0, 0, 0, NULL, "capture each schedule in a CUDA graph", NULL, NULL,
     NULL},
    {"--fuse", 0, CLI_ARG_NONE, "--fuse", NULL, 0, 0, 0, NULL,
     "fuse consecutive rounds into one NCCL group where allowed", NULL, NULL, NULL},
    {"--dry-run", 0, CLI_ARG_NONE, "--dry-run", NULL, 0, 0, 0, NULL,
     "no GPU: compile every rank's NCCL program and run it on the host fake", NULL, NULL, NULL},
    {"--from", 0, CLI_ARG_FILE, "--from FILE...", NULL, 0, 0, 0, NULL,
     "nccl-tests output files (text or -J JSON) instead of a GPU run; a fact a file\n"
     "lacks comes from --coll, --ranks (its rank count), --nccl-algo, --nccl-proto",
     NULL, NULL, NULL},
    {"--fit", 0, CLI_ARG_STRING, "--fit F", "rel abs", 0, 0, 0, NULL, "rel (default: relative residuals) or abs", NULL,
     NULL, NULL},
    {"--name", 0, CLI_ARG_STRING, "--name NAME", NULL, 0, 0, 0, NULL, "the calibrated platform's name", NULL, NULL,
     NULL},
    {"--measured", 0, CLI_ARG_FILE, "--measured FILE...", NULL, 0, 0, 0, NULL,
     "nccl-tests output files (text or -J JSON; copies with '#' stripped,\n"
     "indented or prefixed by mpirun/Ray/srun; --ranks N: their rank count\n"
     "where the file lacks it; rows with #wrong > 0 are left out, said so)",
     NULL, NULL, NULL},
    {"--nccl-algo", 0, CLI_ARG_ENUM, "--nccl-algo A, --nccl-proto P",
     "ring tree collnet_direct collnet_chain nvls nvls_tree pat", 0, 0, 0, NULL,
     "NCCL_ALGO / NCCL_PROTO of runs whose log does not show them", NULL, NULL, NULL},
    {"--nccl-proto", 0, CLI_ARG_ENUM, "--nccl-proto P", "ll ll128 simple", 0, 0, 0, NULL,
     "NCCL_PROTO of runs whose log does not show it", NULL, NULL, NULL},
    {"--plot", 0, CLI_ARG_FILE, "--plot F.png|F.svg", NULL, 0, 0, 0, NULL,
     "with --measured: time and busbw vs size (measured points, predicted lines)", NULL, NULL, own_plot},
    {"--seed", 0, CLI_ARG_COUNT, "--seed N", NULL, 0, 0, 0, NULL, "bootstrap seed (default 1)", NULL, NULL, NULL},
    {"--boot", 0, CLI_ARG_COUNT, "--boot B", NULL, 0, 0, 0, NULL, "bootstrap resamples (default 200)", NULL, NULL,
     NULL},
    {"--reference", 0, CLI_ARG_FILE, "--reference CSV", NULL, 0, 0, 0, NULL,
     "predict every published point of a reference corpus\n"
     "(experiments/reference/published.csv) from the presets, with the error",
     NULL, NULL, NULL},
    {"--csv", 0, CLI_ARG_NONE, "--csv", NULL, 0, 0, 0, NULL, "the --reference predictions as CSV", NULL, NULL, NULL},
    {"--jobs", 0, CLI_ARG_COUNT, "-j N, --jobs N", NULL, 0, 1, SWEEP_MAX_JOBS, NULL,
     "evaluate in N forked processes (same output bytes for any N)", NULL, "-j", own_jobs},
    {"--quiet", 0, CLI_ARG_NONE, "--quiet", NULL, 0, 0, 0, NULL, "no progress output", NULL, NULL, NULL},
    {"--scale", 0, CLI_ARG_OTHER, "--scale F", NULL, 0, 0, 0, NULL,
     "shape every link at F x its bandwidth (the scaled platform is written)", NULL, NULL, NULL},
    {"--id", 0, CLI_ARG_STRING, "--id ID", NULL, 0, 0, 0, NULL, "testbed name (default tb)", NULL, NULL, NULL},
    {"--calibrate", 0, CLI_ARG_FILE, "--calibrate F.json", NULL, 0, 0, 0, NULL,
     "ping-pong fit first; writes the calibrated platform", NULL, NULL, NULL},
    {"--timeout", 0, CLI_ARG_OTHER, "--timeout S", NULL, 0, 0, 0, NULL, "bound on every mpirun (default 300)", NULL,
     NULL, own_seconds},
    {"--transport", 0, CLI_ARG_OTHER, "--transport T", "auto links= eager=", 0, 0, 0, NULL,
     "how arlab-mpi uses TCP: links=N (Open MPI's btl_tcp_links, connections per\n"
     "pair of ranks), eager=B (every payload as messages of <= B bytes, sent eagerly:\n"
     "no rendezvous handshake); auto (default): an exchange test of links=1, 2, 4\n"
     "and links=1,eager=1MiB keeps the first within 5 % of the fastest; the choice\n"
     "is in every row's transport column and in `status`",
     NULL, NULL, NULL},
    {"--engine", 0, CLI_ARG_ENUM, "--engine naive", "fast naive", 0, 0, 0, NULL,
     "baseline: one SimGrid actor per GPU and op, one mailbox message per transfer", "give fast or naive", NULL, NULL},
    {"--sync", 0, CLI_ARG_ENUM, "--sync S", "dataflow round", 0, 0, 0, NULL,
     "dataflow (default): every rank does its next round once its own transfers of the\n"
     "previous one are done, a transfer starts when both ends are at its round, no\n"
     "phase barrier (as MPI and NCCL ranks); round: lockstep, an op's round starts\n"
     "when all of its previous round is done, a phase when the previous phase is done\n"
     "everywhere (the closed forms' semantics)",
     NULL, NULL, own_sync},
    {"--no-shortcuts", 0, CLI_ARG_NONE, "--no-shortcuts", NULL, 0, 0, 0, NULL,
     "simulate every transfer in SimGrid (the exact shortcuts are off)", NULL, NULL, NULL},
    {"--chunks", 0, CLI_ARG_COUNT, "--chunks N", NULL, 0, 1, 65536, NULL,
     "what-if: pipeline every op of the planned schedule in N chunks (1..65536)", "give an integer in 1..65536", NULL,
     NULL},
    {"--model-only", 0, CLI_ARG_NONE, "--model-only", NULL, 0, 0, 0, NULL,
     "print the model's columns (model_s, closed_s) of every row without simulating", NULL, NULL, NULL},
    {"--brief", 0, CLI_ARG_NONE, "--brief", NULL, 0, 0, 0, NULL,
     "the table: one short row per algorithm and platform (sim_s, model_s, busbw),\n"
     "one line for the algorithms that do not apply; no per-run breakdown",
     NULL, NULL, NULL},
};
#undef F

const cli_optdef *cli_optdefs(int *n) {
    *n = (int)(sizeof defs / sizeof defs[0]);
    return defs;
}

const cli_optdef *cli_optdef_find(const char *name) {
    for (size_t i = 0; i < sizeof defs / sizeof defs[0]; i++)
        if (!strcmp(defs[i].name, name)) return &defs[i];
    return NULL;
}
