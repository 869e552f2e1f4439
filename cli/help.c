/* `arlab VERB --help` / `-h` / `arlab help VERB`: one text per verb, kept in
 * this table so every verb answers the same way (cli/main.c intercepts the
 * flag before the verb runs). `arlab sim --help` is the verb's own (it lists
 * the network models SimGrid was built with), so sim has no entry here.
 * tests/cli_help.sh checks that every verb answers with exit 0 and that each
 * entry names every option the verb's source parses. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "lab/schema.h"
#include "lab/bestrow.h"
#include "lab/modelrow.h"
#include "lab/simrow.h"

typedef struct help_entry {
    const char *verb;
    const char *text;
} help_entry;

#define COMMON_P                                                                                              \
    "  --platform P        a preset (arlab platforms), a JSON file, or a family spec (flat:ranks=8,\n"        \
    "                      tree:fanouts=4x2, dgx-h100:nodes=4, rail:...; platforms/README.md)\n"              \
    "  --ranks N           rank count for a generated family (flat, tree, fat-tree, torus)\n"                 \
    "  --dtype T           f32 (default), f16, bf16, f64, i32: the element type (sizes in elements use it)\n" \
    "  --nccl-version V    the NCCL release NCCL's model (nccl_model_s, the nccl pick) follows: 2.18 (also\n" \
    "                      2.19), 2.26 (2.25), 2.28 (2.27), 2.30 (2.29; the default)\n"
#define COMMON_S                                                                                             \
    "  --size S[,S...]     message sizes: 100MB, 1GiB, 4096B (bytes), 120M, 4096 (elements); comma lists;\n" \
    "                      -b MIN -e MAX [-f F | -i N]: nccl-tests' range (bytes; K, M, G = 1024^k)\n"
#define COMMON_C                                                                                                      \
    "  --coll C            allreduce (default), reducescatter or allgather: the collective (an algorithm that does\n" \
    "                      not serve it is refused; arlab algos lists what each serves)\n"
#define COMMON_F "  --format F          table (default), csv or json (CSV/JSON: %.17g, missing values empty/null)\n"

static const help_entry entries[] = {
    {"platforms", "usage: arlab platforms [--format F]\n"
                  "Lists the preset platforms (name, kind, ranks, machines, levels, description) and the\n"
                  "generated families.\n" COMMON_F "example: arlab platforms --format csv\n"},
    {"platform", "usage: arlab platform show NAME|FILE|SPEC [--ranks N] [--links N] [--format F]\n"
                 "Prints one platform: its summary (levels, reducing switches), a table of every link (name, ends,\n"
                 "lanes, bandwidth per lane and direction and per link, latency, intra- or inter-machine: the\n"
                 "names a scenario's links and failed_links use), the reducing switches and the file's notes.\n"
                 "  --ranks N           rank count for a generated family\n"
                 "  --links N           at most N rows of the links table (default: every link)\n"
                 "  --format F          table (default), csv (the links table) or json (the whole platform)\n"
                 "example: arlab platform show dgx-h100:nodes=2\n"},
    {"algos", "usage: arlab algos [--format F]\n"
              "Lists the algorithms (name, paper label, parameters, summary) and every parameter's type, range,\n"
              "default and meaning. The table also lists `schedule` (a user-written schedule, not in --algo all).\n"
              "" COMMON_F "example: arlab algos\n"},
    {"plan", "usage: arlab plan --algo A|--schedule F.json --platform P [--ranks N] [--dtype T] [--coll C]\n"
             "                  [--size S|-b MIN -e MAX [-f F|-i N]] [--check] [--format table|json]\n"
             "Prints the schedule (phases, ops, members, ranges), the reduce/broadcast calls per rank (per phase;\n"
             "FlexReduce: per learner per level against the Eq. 12 bound).\n"
             "  --algo A            an algorithm with parameters, e.g. blueconnect:decomp=4x2,impl=ring+hd\n"
             "  --schedule F.json   a user-written schedule (docs/algorithms.md)\n" COMMON_P
             "  --size S            default 1M (elements)\n"
             "  --check             run the symbolic validator and the host executor (exact integer sums)\n" COMMON_C
             "  --format F          table (default) or json (the JSON reads back with --schedule)\n"
             "example: arlab plan --algo flexreduce --platform fr-5 --size 120 --check\n"},
    {"model",
     "usage: arlab model --platform P [--size S,...|-b MIN -e MAX [-f F|-i N]] [--algo A|all ...]\n"
     "                   [--schedule F.json] [--ranks N] [--dtype T] [--coll C] [--detail] [--gamma G]\n"
     "                   [--scenario F.json] [--digits N] [--format F]\n"
     "Prices every algorithm: closed_s (the paper's closed form), walk_s (cost walk of the planned\n"
     "schedule), model_s (the closed form where it agrees with the walk, else the walk; why says so), algbw/busbw (nccl-tests'\n"
     "definitions) and what NCCL's own tuner would choose (nccl_model_s, nccl_algo, nccl_proto).\n"
     "The table is a summary, the fastest marked; --detail adds the per-stage breakdown.\n" COMMON_P "" COMMON_S
     "                      (default 100MB)\n"
     "  --algo A            an algorithm (repeatable; default all; see arlab algos)\n"
     "  --schedule F.json   also price a user-written schedule\n"
     "  --detail            stage breakdown of the closed form and of the walk\n"
     "  --gamma G           reduction cost in s/B on every GPU: overrides the platform's compute.reduce\n"
     "                      (1/G B/s); the walk and the ring closed forms then follow --sync dataflow\n"
     "                      with reductions overlapped (sim/README.md: Compute costs)\n"
     "  --digits N          significant digits of the times in the tables (1..17, default 4; CSV/JSON: 17)\n"
     "  --scenario F.json   what-if (scenarios/README.md): slow/failed links and ranks change the\n"
     "                      platform; late ranks start late in the walk (the closed form adds the largest\n"
     "                      start delay); flows are not in the walk\n" COMMON_C COMMON_F
     "                      nccl-tests: the prediction in nccl-tests' own table, one per platform and\n"
     "                      algorithm, to diff against a real all_reduce_perf run (-b 8 -e 8G -f 2)\n"
     "example: arlab model --platform blueconnect-192 --size 100MB\n"},
    {"best", "usage: arlab best --platform P --size S|-b S [--coll C] [--top N] [--per-algo] [--ranks N]\n"
             "                  [--dtype T] [--scenario F.json] [--format F]\n"
             "                  (-e MAX [-f F|-i N] are read too, but best takes one size)\n"
             "       arlab best --emit nccl-tuner FILE --platform P [--ranks N] [--max-bytes S]\n"
             "Ranks every algorithm (default parameters) and every BlueConnect variant (decompositions, stage\n"
             "orders, ring/hd per stage) by the cost walk, and says why the best wins.\n" COMMON_P
             "  --size S            one message size\n"
             "  --coll C            allreduce (default), reducescatter or allgather: ranks the algorithms\n"
             "                      serving it (BlueConnect's variant search is all-reduce only)\n" COMMON_F
             "  --top N             show the N best rows (default: 30 in the table, every row in csv/json)\n"
             "  --per-algo          only the best variant of each algorithm\n"
             "  --scenario F.json   what-if (scenarios/README.md): rank on the changed platform; with delays or\n"
             "                      flows, simulate the first 24 candidates under it and rank by sim_s\n"
             "Equal times (within 1e-12, relative) get equal ranks (1 2 2 4). Columns add algbw/busbw of walk_s\n"
             "and NCCL's own choice (nccl_model_s, vs_nccl = nccl_model_s / walk_s, > 1: arlab's is faster).\n"
             "  --emit nccl-tuner FILE   NCCL's own choice per size range (models/nccl_model.h) in the CSV of\n"
             "                      NCCL's example tuner plugin (NCCL-native algorithms only: arlab's own\n"
             "                      schedules cannot be expressed there)\n"
             "  --max-bytes S       the largest size of the ranges (default 16GiB)\n"
             "example: arlab best --platform blueconnect-192 --size 100MB\n"},
    {"trees", "usage: arlab trees --platform P [--size S|-b MIN -e MAX [-f F|-i N]] [--ranks N] [--dtype T]\n"
              "                   [--algo treepack:chunks=N,...] [--check] [--format F]\n"
              "Spanning-tree packing: C(G), the Lemma 2.1 bounds, the trees and weights, the streams, the load\n"
              "of every link; with --size the schedule's predicted time.\n" COMMON_P
              "  --size S            predict the packing's time for this size\n"
              "  --algo A            treepack with parameters (chunks, units, roots, budget)\n"
              "  --check             also solve the extended formulation; both must agree\n" COMMON_F
              "example: arlab trees --platform p3.16xlarge --size 100MB\n"},
    {"real", "usage: arlab real [--platform P] [--ranks N] [--algo A ...|all] [--schedule F.json] [--dtype T]\n"
             "                  [--size S,...|-b MIN -e MAX [-f F|-i N]] [--iters N] [--warmup N]\n"
             "                  [--launch auto|single|mpi|file:PATH] [--gpus N] [--lowering auto|p2p|native]\n"
             "                  [--placement both|in|out] [--timing arlab|nccl-tests] [--graph] [--fuse]\n"
             "                  [--check] [--out FILE.csv] [--format table|csv|json|nccl-tests] [--dry-run]\n"
             "Runs every algorithm's schedule on GPUs with NCCL beside ncclAllReduce, measured like nccl-tests\n"
             "(launch with mpirun -np N, one GPU per process, or one process driving the local GPUs).\n" COMMON_P
             "" COMMON_S "                      (default 1MB,16MB,128MB)\n"
             "  --algo A            an algorithm (repeatable; default all)\n"
             "  --schedule F.json   also run a user-written schedule\n"
             "  --iters N, --warmup N   timed and untimed runs per point (default 20, 5)\n"
             "  --launch L          auto (default), single (one process, all local GPUs), mpi, file:PATH\n"
             "  --gpus N            GPUs to use with --launch single\n"
             "  --lowering L        auto (default), p2p (ncclSend/Recv rounds) or native (NCCL collectives)\n"
             "  --placement P       both (default), in (in place) or out (out of place)\n"
             "  --timing T          arlab (median of per-iteration max) or nccl-tests (mean of back-to-back)\n"
             "  --graph             capture each schedule in a CUDA graph\n"
             "  --fuse              fuse consecutive rounds into one NCCL group where allowed\n"
             "  --check             every rank's buffer equal to the exact sum (always done after timing)\n"
             "  --out FILE.csv      also write the rows as CSV\n"
             "  --format F          table, csv, json, or nccl-tests (one document per algorithm)\n"
             "  --dry-run           no GPU: compile every rank's NCCL program and run it on the host fake\n"
             "example: mpirun -np 8 arlab real --platform dgx-h100 --size 1MB,64MB\n"},
    {"calibrate",
     "usage: arlab calibrate --out FILE.json [--platform P] [--ranks N] [--iters N] [--warmup N]\n"
     "                       [--size S,...|-b MIN -e MAX [-f F|-i N]] [--launch L] [--gpus N]\n"
     "                       [--fit rel|abs] [--name NAME] [--format F]\n"
     "       arlab calibrate --from NT.txt... --platform P --out CAL.json [--name NAME] [--seed N] [--boot B]\n"
     "                       [--coll C] [--ranks N] [--nccl-algo A] [--nccl-proto P]\n"
     "Ping-pong sweeps per link class on GPUs (within a machine, across machines), least-squares\n"
     "alpha/beta (GSL), and a platform JSON that model, sim and best accept. With --from: no GPU, the\n"
     "fit of arlab fit on nccl-tests output, written as P with its links scaled (and what the data\n"
     "cannot identify said). On the emulated cluster use `arlab testbed run --calibrate FILE.json`.\n"
     "  --from FILE...      nccl-tests output files (text or -J JSON) instead of a GPU run; a fact a file\n"
     "                      lacks comes from --coll, --ranks (its rank count), --nccl-algo, --nccl-proto\n"
     "  --out FILE.json     the calibrated platform\n" COMMON_P "  --size S[,S...]     ping-pong sizes\n"
     "  --iters N, --warmup N   repetitions per size\n"
     "  --launch L, --gpus N    as for arlab real\n"
     "  --fit F             rel (default: relative residuals) or abs\n"
     "  --name NAME         the calibrated platform's name\n" COMMON_F
     "example: mpirun -np 16 arlab calibrate --out cal.json\n"},
    {"compare",
     "usage: arlab compare --platform P [--algo A ...] [--schedule F.json] [--dtype T] [--ranks N]\n"
     "                     [--size S,...|-b MIN -e MAX [-f F|-i N]] [--format F] [MEASURED.csv]\n"
     "       arlab compare --measured FILE... --platform P [--algo A ...] [--plot F.png|F.svg] [--format F]\n"
     "Model, simulated and measured times side by side (measured rows from a CSV written by arlab real\n"
     "or arlab testbed run; matched on algo, ranks and bytes; MPI_Allreduce or ncclAllReduce rows are\n"
     "the baseline). With --measured: nccl-tests files, their NCCL times beside the model, the\n"
     "simulation and NCCL's model, with the relative error per size.\n" COMMON_P "" COMMON_S
     "  --algo A            an algorithm (repeatable; default all; with --measured: NCCL's choice\n"
     "                      and NCCL's algorithms: nccl, nccl-ring, nccl-tree, nvls, nvlstree)\n"
     "  --measured FILE...  nccl-tests output files (text or -J JSON; copies with '#' stripped,\n"
     "                      indented or prefixed by mpirun/Ray/srun; --ranks N: their rank count\n"
     "                      where the file lacks it; rows with #wrong > 0 are left out, said so)\n"
     "  --coll C            the collective of files that do not name it (compare: allreduce;\n"
     "                      fit --coll allgather|reducescatter fits other collectives)\n"
     "  --nccl-algo A, --nccl-proto P   NCCL_ALGO / NCCL_PROTO of runs whose log does not show them\n"
     "  --plot F.png|F.svg  with --measured: time and busbw vs size (measured points, predicted lines)\n"
     "  --schedule F.json   also compare a user-written schedule\n" COMMON_F
     "example: arlab compare --platform cal.json measured.csv\n"},
    {"fit", "usage: arlab fit --from FILE... --platform P [--coll C] [--ranks N] [--nccl-algo A] [--nccl-proto P]\n"
            "                 [--nccl-version V] [--seed N] [--boot B] [--out CAL.json [--name NAME]]\n"
            "       arlab fit --reference CORPUS.csv [--csv]\n"
            "Fits NCCL's cost model (latency and bandwidth scales) on P to nccl-tests output (text or -J JSON):\n"
            "the fit, 95 % bootstrap intervals, residuals, error by size bucket, leave-one-size-out error.\n"
            "  --from FILE...      nccl-tests output files (one or more)\n"
            "  --platform P        the platform the measurements ran on (a preset, e.g. dgx-h100:nodes=2)\n"
            "  --coll C            the collective to fit: allreduce (default when present), allgather,\n"
            "                      reducescatter (what NCCL's model covers; broadcast, reduce, alltoall are\n"
            "                      refused); also the collective of files that do not name it\n"
            "  --ranks N           the rank count of files that do not give it (else the platform's, said so)\n"
            "  --nccl-algo A, --nccl-proto P   NCCL_ALGO / NCCL_PROTO of runs whose log does not show them\n"
            "  --nccl-version V    the NCCL release NCCL's model follows (2.18, 2.26, 2.28, 2.30 = default)\n"
            "  (a fact a file lacks is said on stderr, one line; rows with #wrong > 0 are left out, said so)\n"
            "  --seed N            bootstrap seed (default 1)\n"
            "  --boot B            bootstrap resamples (default 200)\n"
            "  --out CAL.json      also write the calibrated platform (as arlab calibrate --from)\n"
            "  --name NAME         its name\n"
            "  --reference CSV     predict every published point of a reference corpus\n"
            "                      (experiments/reference/published.csv) from the presets, with the error\n"
            "  --csv               the --reference predictions as CSV\n"
            "example: arlab fit --from all_reduce_perf.txt --platform dgx-h100\n"},
    {"sweep", "usage: arlab sweep FILE.json [-j N|--jobs N] [--out DIR] [--quiet]\n"
              "Runs the grid of a sweep file (platforms x algorithms x sizes x training configurations) on one\n"
              "backend (model, sim, real, measured) and writes DIR/NAME.csv and .json. Points already there are\n"
              "skipped (resume); Ctrl-C keeps the finished points.\n"
              "  -j N, --jobs N      evaluate in N forked processes (same output bytes for any N)\n"
              "  --out DIR           results directory (default out)\n"
              "  --quiet             no progress output\n"
              "example: arlab sweep experiments/bc-fig6.json -j 2 --out out\n"},
    {"report", "usage: arlab report [DIR]\n"
               "Builds DIR/report.html (one self-contained page, figures embedded) and DIR/report.md from the\n"
               "sweep results in DIR (default out).\n"
               "example: experiments/make_figures.sh && arlab report out\n"},
    {"testbed",
     "usage: arlab testbed up --platform P [--scale F] [--id ID] [--out FILE.json]\n"
     "       arlab testbed down|status [--id ID]\n"
     "       arlab testbed run --platform P [--scale F] [--id ID] [--algo A,...|all] [--size S,...]\n"
     "                         [--dtype f32|f64|i32] [--iters N] [--warmup N] [--format table|csv|nccl-tests]\n"
     "                         [--out FILE.csv] [--platform-out FILE.json] [--calibrate FILE.json]\n"
     "                         [--timeout SECONDS] [--transport auto|links=N[,eager=B]]\n"
     "The emulated cluster (root): one network namespace per machine, bridges for switches, veths\n"
     "shaped with tc; `run` executes arlab-mpi (one MPI process per rank) over it.\n"
     "  up --platform P [--scale F] [--id ID] [--out FILE.json]   build it and leave it up\n"
     "  down [--id ID]      remove it (and any stale one)\n"
     "  status [--id ID]    state, namespaces, qdiscs\n"
     "  run --platform P [--algo A,...|all] [--size S,...] [--dtype f32|f64|i32] [--iters N]\n"
     "      [--warmup N] [--format table|csv|nccl-tests] [--out FILE.csv] [--platform-out FILE.json]\n"
     "      [--calibrate FILE.json] [--timeout SECONDS]   up, run every algorithm and MPI_Allreduce,\n"
     "      check the bytes crossed the shaped links, down\n"
     "  --scale F           shape every link at F x its bandwidth (the scaled platform is written)\n"
     "  --id ID             testbed name (default tb)\n"
     "  --calibrate F.json  ping-pong fit first; writes the calibrated platform\n"
     "  --timeout S         bound on every mpirun (default 300)\n"
     "  --transport T       how arlab-mpi uses TCP: links=N (Open MPI's btl_tcp_links, connections per\n"
     "                      pair of ranks), eager=B (every payload as messages of <= B bytes, sent eagerly:\n"
     "                      no rendezvous handshake); auto (default): an exchange test of links=1, 2, 4\n"
     "                      and links=1,eager=1MiB keeps the first within 5 % of the fastest; the choice\n"
     "                      is in every row's transport column and in `status`\n"
     "example: arlab testbed run --platform experiments/platforms/testbed-2x2.json --size 1MB\n"},
};

int cli_help(const char *verb) {
    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++)
        if (!strcmp(entries[i].verb, verb)) {
            fputs(entries[i].text, stdout);
            fputs("(exit codes, units and the output columns: docs/cli.md; arlab help columns sweep|sim|model|best)\n",
                  stdout);
            return 1;
        }
    return 0;
}

static const char *const type_name[] = {
    [LAB_TEXT] = "text", [LAB_PLAIN] = "text", [LAB_INT] = "integer", [LAB_NUM] = "number"};

/* One Markdown row; '|' in the text escaped so the table keeps its columns. */
static void md_row(const char *name, lab_coltype type, const char *help) {
    printf("| `%s` | %s | ", name, type_name[type]);
    for (const char *c = help; *c; c++) {
        if (*c == '|') putchar('\\');
        putchar(*c);
    }
    printf(" |\n");
}

int cli_help_columns(const char *which) {
    static const struct {
        const char *name;
        const lab_rowcol *cols;
        const int *n;
    } verbs[] = {{"sim", lab_simrow_cols, &lab_simrow_ncols},
                 {"model", lab_modelrow_cols, &lab_modelrow_ncols},
                 {"best", lab_bestrow_cols, &lab_bestrow_ncols}};
    if (which && !strcmp(which, "sweep")) {
        printf("| column | type | meaning |\n|---|---|---|\n");
        for (int c = 0; c < SW_NCOLS; c++) md_row(lab_cols[c].name, lab_cols[c].type, lab_cols[c].help);
        return AR_OK;
    }
    for (size_t v = 0; which && v < sizeof verbs / sizeof verbs[0]; v++)
        if (!strcmp(which, verbs[v].name)) {
            printf("| column | type | meaning |\n|---|---|---|\n");
            for (int c = 0; c < *verbs[v].n; c++)
                md_row(verbs[v].cols[c].name, verbs[v].cols[c].type, verbs[v].cols[c].help);
            return AR_OK;
        }
    fprintf(stderr,
            "arlab help columns: give sweep (the results of arlab sweep), sim, model or best (their --format csv)\n");
    return AR_EINVAL;
}
