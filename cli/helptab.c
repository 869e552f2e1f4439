/* Every verb's help as rows of the option table (cli/opttab.h): the usage and what the verb does, one row
 * per option (the table's tag and help unless the verb says it otherwise) and the example. `arlab VERB --help`,
 * the man page and the bash completion are printed from these rows (cli/help.c); tests/cli/cli_help.sh checks that
 * every option a verb parses has a row. */
#include "opttab.h"

static const cli_helprow platforms_rows[] = {
    {"--format", NULL, NULL},
};
static const cli_helprow platform_rows[] = {
    {"--ranks", NULL, "rank count for a generated family"},
    {"--links", NULL, NULL},
    {"--format", NULL, "table (default), csv (the links table) or json (the whole platform)"},
};
static const cli_helprow algos_rows[] = {
    {"--format", NULL, NULL},
};
static const cli_helprow plan_rows[] = {
    {"--algo", NULL, "an algorithm with parameters, e.g. blueconnect:decomp=4x2,impl=ring+hd"},
    {"--schedule", NULL, NULL},
    {"--platform", NULL, NULL},
    {"--ranks", NULL, NULL},
    {"--dtype", NULL, NULL},
    {"--nccl-version", NULL, NULL},
    {"--nccl-model", NULL, NULL},
    {"--size", "--size S", "default 1M (elements)"},
    {"--check", NULL, "run the symbolic validator and the host executor (exact integer sums)"},
    {"--coll", NULL, NULL},
    {"--format", NULL, "table (default) or json (the JSON reads back with --schedule)"},
};
static const cli_helprow model_rows[] = {
    {"--platform", NULL, NULL},
    {"--ranks", NULL, NULL},
    {"--dtype", NULL, NULL},
    {"--nccl-version", NULL, NULL},
    {"--nccl-model", NULL, NULL},
    {"--size", NULL,
     "message sizes: 100MB, 1GiB, 4096B (bytes), 120M, 4096 (elements); comma lists;\n"
     "-b MIN -e MAX [-f F | -i N]: nccl-tests' range (bytes; K, M, G = 1024^k)\n"
     "(default 100MB)"},
    {"--algo", NULL, NULL},
    {"--schedule", NULL, "also price a user-written schedule"},
    {"--detail", NULL, NULL},
    {"--gamma", NULL,
     "reduction cost in s/B on every GPU: overrides the platform's compute.reduce\n"
     "(1/G B/s); the walk and the ring closed forms then follow --sync dataflow\n"
     "with reductions overlapped (sim/README.md: Compute costs)"},
    {"--digits", NULL, NULL},
    {"--scenario", NULL,
     "what-if (scenarios/README.md): slow/failed links and ranks change the\n"
     "platform; late ranks start late in the walk (the closed form adds the largest\n"
     "start delay); flows are not in the walk"},
    {"--coll", NULL, NULL},
    {"--format", NULL,
     "table (default), csv or json (CSV/JSON: %.17g, missing values empty/null)\n"
     "nccl-tests: the prediction in nccl-tests' own table, one per platform and\n"
     "algorithm, to diff against a real all_reduce_perf run (-b 8 -e 8G -f 2)"},
};
static const cli_helprow best_rows[] = {
    {"--platform", NULL, NULL},
    {"--ranks", NULL, NULL},
    {"--dtype", NULL, NULL},
    {"--nccl-version", NULL, NULL},
    {"--nccl-model", NULL, NULL},
    {"--size", "--size S", "one message size"},
    {"--coll", NULL,
     "allreduce (default), reducescatter or allgather: ranks the algorithms\n"
     "serving it (BlueConnect's variant search is all-reduce only)"},
    {"--format", NULL, NULL},
    {"--top", NULL, NULL},
    {"--per-algo", NULL, NULL},
    {"--scenario", NULL,
     "what-if (scenarios/README.md): rank on the changed platform; with delays or\n"
     "flows, simulate the first 24 candidates under it and rank by sim_s"},
    {NULL, NULL,
     "Equal times (within 1e-12, relative) get equal ranks (1 2 2 4). Columns add algbw/busbw of walk_s\n"
     "and NCCL's own choice (nccl_model_s, vs_nccl = nccl_model_s / walk_s, > 1: arlab's is faster).\n"},
    {"--emit", NULL, NULL},
    {"--max-bytes", NULL, NULL},
};
static const cli_helprow trees_rows[] = {
    {"--platform", NULL, NULL},
    {"--ranks", NULL, NULL},
    {"--dtype", NULL, NULL},
    {"--nccl-version", NULL, NULL},
    {"--nccl-model", NULL, NULL},
    {"--size", "--size S", "predict the packing's time for this size"},
    {"--algo", NULL, "treepack with parameters (chunks, units, roots, budget)"},
    {"--check", NULL, "also solve the extended formulation; both must agree"},
    {"--format", NULL, NULL},
};
static const cli_helprow real_rows[] = {
    {"--platform", NULL, NULL},
    {"--ranks", NULL, NULL},
    {"--dtype", NULL, NULL},
    {"--nccl-version", NULL, NULL},
    {"--nccl-model", NULL, NULL},
    {"--size", NULL,
     "message sizes: 100MB, 1GiB, 4096B (bytes), 120M, 4096 (elements); comma lists;\n"
     "-b MIN -e MAX [-f F | -i N]: nccl-tests' range (bytes; K, M, G = 1024^k)\n"
     "(default 1MB,16MB,128MB)"},
    {"--algo", NULL, "an algorithm (repeatable; default all)"},
    {"--schedule", NULL, "also run a user-written schedule"},
    {"--iters", "--iters N, --warmup N", "timed and untimed runs per point (default 20, 5)"},
    {"--launch", NULL, NULL},
    {"--gpus", NULL, NULL},
    {"--lowering", NULL, NULL},
    {"--placement", NULL, NULL},
    {"--timing", NULL, NULL},
    {"--graph", NULL, NULL},
    {"--fuse", NULL, NULL},
    {"--check", NULL, "every rank's buffer equal to the exact sum (always done after timing)"},
    {"--out", "--out FILE.csv", "also write the rows as CSV"},
    {"--format", NULL, "table, csv, json, or nccl-tests (one document per algorithm)"},
    {"--dry-run", NULL, NULL},
};
static const cli_helprow calibrate_rows[] = {
    {"--from", NULL, NULL},
    {"--out", "--out FILE.json", "the calibrated platform"},
    {"--platform", NULL, NULL},
    {"--ranks", NULL, NULL},
    {"--dtype", NULL, NULL},
    {"--nccl-version", NULL, NULL},
    {"--nccl-model", NULL, NULL},
    {"--size", NULL, "ping-pong sizes"},
    {"--iters", "--iters N, --warmup N", "repetitions per size"},
    {NULL, NULL, "  --launch L, --gpus N    as for arlab real\n"},
    {"--fit", NULL, NULL},
    {"--name", NULL, NULL},
    {"--format", NULL, NULL},
};
static const cli_helprow compare_rows[] = {
    {"--platform", NULL, NULL},
    {"--ranks", NULL, NULL},
    {"--dtype", NULL, NULL},
    {"--nccl-version", NULL, NULL},
    {"--nccl-model", NULL, NULL},
    {"--size", NULL, NULL},
    {"--algo", NULL,
     "an algorithm (repeatable; default all; with --measured: NCCL's choice\n"
     "and NCCL's algorithms: nccl, nccl-ring, nccl-tree, nvls, nvlstree)"},
    {"--measured", NULL, NULL},
    {"--coll", NULL,
     "the collective of files that do not name it (compare: allreduce;\n"
     "fit --coll allgather|reducescatter fits other collectives)"},
    {"--nccl-algo", NULL, NULL},
    {"--plot", NULL, NULL},
    {"--schedule", NULL, "also compare a user-written schedule"},
    {"--format", NULL, NULL},
};
static const cli_helprow fit_rows[] = {
    {"--from", NULL, "nccl-tests output files (one or more)"},
    {"--platform", NULL, "the platform the measurements ran on (a preset, e.g. dgx-h100:nodes=2)"},
    {"--coll", NULL,
     "the collective to fit: allreduce (default when present), allgather,\n"
     "reducescatter (what NCCL's model covers; broadcast, reduce, alltoall are\n"
     "refused); also the collective of files that do not name it"},
    {"--ranks", NULL, "the rank count of files that do not give it (else the platform's, said so)"},
    {"--nccl-algo", NULL, NULL},
    {"--nccl-version", NULL,
     "the NCCL release NCCL's model follows (2.18, 2.23, 2.24, 2.26, 2.27, 2.28, 2.30 = default)"},
    {NULL, NULL, "  (a fact a file lacks is said on stderr, one line; rows with #wrong > 0 are left out, said so)\n"},
    {"--seed", NULL, NULL},
    {"--boot", NULL, NULL},
    {"--out", "--out CAL.json", "also write the calibrated platform (as arlab calibrate --from)"},
    {"--name", NULL, "its name"},
    {"--reference", NULL, NULL},
    {"--csv", NULL, NULL},
};
static const cli_helprow sweep_rows[] = {
    {"--jobs", NULL, NULL},
    {"--out", "--out DIR", "results directory (default out)"},
    {"--quiet", NULL, NULL},
};
static const cli_helprow report_rows[] = {};
static const cli_helprow testbed_rows[] = {
    {NULL, "up --platform P [--scale F] [--id ID] [--out FILE.json]", "build it and leave it up"},
    {NULL, "down [--id ID]", "remove it (and any stale one)"},
    {NULL, "status [--id ID]", "state, namespaces, qdiscs"},
    {NULL, NULL,
     "  run --platform P [--algo A,...|all] [--size S,...] [--dtype f32|f64|i32] [--iters N]\n"
     "      [--warmup N] [--format table|csv|nccl-tests] [--out FILE.csv] [--platform-out FILE.json]\n"
     "      [--calibrate FILE.json] [--timeout SECONDS]   up, run every algorithm and MPI_Allreduce,\n"
     "      check the bytes crossed the shaped links, down\n"},
    {"--scale", NULL, NULL},
    {"--id", NULL, NULL},
    {"--calibrate", NULL, NULL},
    {"--timeout", NULL, NULL},
    {"--transport", NULL, NULL},
};
static const cli_helprow sim_rows[] = {
    {"--schedule", NULL, "also simulate a user-written schedule"},
    {"--ranks", NULL, "rank count for a generated family; --dtype T: f32 (default), f16, bf16, f64, i32"},
    {"--coll", NULL, "allreduce (default), reducescatter or allgather (--check: all-reduce only)"},
    {"--check", NULL, "carry real data; every rank's buffer must be the exact sum"},
    {"--trace", NULL,
     "Chrome trace-event JSON of every transfer (Perfetto, chrome://tracing);\n"
     "several runs write FILE-<algo>-<platform>-<size>.json"},
    {"--gamma", NULL,
     "reduction cost in seconds per byte on the receiving GPU (default: the platform's\n"
     "compute.reduce rate, else 0); --sync round: inside its round; --sync dataflow:\n"
     "overlapped with the next transfers, one reduction at a time per GPU"},
    {"--budget", NULL, "wall-clock limit per simulation (e.g. 60s); the row says complete=0"},
    {"--engine", NULL, NULL},
    {"--sync", NULL, NULL},
    {"--no-shortcuts", NULL, NULL},
    {"--chunks", NULL, NULL},
    {"--scenario", "--scenario F",
     "what-if scenario (scenarios/README.md): late or slow-computing ranks, slow/failed\n"
     "links and ranks, background flows; delays, flows and slow GPUs run under\n"
     "--sync dataflow; with jobs, one simulation of every job (each its ranks,\n"
     "algorithm, start) and a row per job"},
    {"--model-only", NULL, NULL},
    {"--format", NULL,
     "table (default), csv, json, or nccl-tests: the simulated times in nccl-tests'\n"
     "own table, one per platform and algorithm, to diff against a real run"},
    {"--brief", NULL, NULL},
    {"--digits", NULL, "significant digits of the times in the table (1..17, default 4)"},
};
static const cli_verbhelp verbs[] = {
    {"platforms",
     "usage: arlab platforms [--format F]\n"
     "Lists the preset platforms (name, kind, ranks, machines, levels, description) and the\n"
     "generated families.\n",
     platforms_rows, (int)(sizeof platforms_rows / sizeof platforms_rows[0]), "example: arlab platforms --format csv\n",
     18, 3, 0},
    {"platform",
     "usage: arlab platform show NAME|FILE|SPEC [--ranks N] [--links N] [--format F]\n"
     "Prints one platform: its summary (levels, reducing switches), a table of every link (name, ends,\n"
     "lanes, bandwidth per lane and direction and per link, latency, intra- or inter-machine: the\n"
     "names a scenario's links and failed_links use), the reducing switches and the file's notes.\n",
     platform_rows, (int)(sizeof platform_rows / sizeof platform_rows[0]),
     "example: arlab platform show dgx-h100:nodes=2\n", 18, 3, 0},
    {"algos",
     "usage: arlab algos [--format F]\n"
     "Lists the algorithms (name, paper label, parameters, summary) and every parameter's type, range,\n"
     "default and meaning. The table also lists `schedule` (a user-written schedule, not in --algo all).\n",
     algos_rows, (int)(sizeof algos_rows / sizeof algos_rows[0]), "example: arlab algos\n", 18, 3, 0},
    {"plan",
     "usage: arlab plan --algo A|--schedule F.json --platform P [--ranks N] [--dtype T] [--coll C]\n"
     "                  [--size S|-b MIN -e MAX [-f F|-i N]] [--check] [--format table|json]\n"
     "Prints the schedule (phases, ops, members, ranges), the reduce/broadcast calls per rank (per phase;\n"
     "FlexReduce: per learner per level against the Eq. 12 bound).\n",
     plan_rows, (int)(sizeof plan_rows / sizeof plan_rows[0]),
     "example: arlab plan --algo flexreduce --platform fr-5 --size 120 --check\n", 18, 3, 0},
    {"model",
     "usage: arlab model --platform P [--size S,...|-b MIN -e MAX [-f F|-i N]] [--algo A|all ...]\n"
     "                   [--schedule F.json] [--ranks N] [--dtype T] [--coll C] [--detail] [--gamma G]\n"
     "                   [--scenario F.json] [--digits N] [--format F]\n"
     "Prices every algorithm: closed_s (the paper's closed form), walk_s (cost walk of the planned\n"
     "schedule), model_s (the closed form where it agrees with the walk, else the walk; why says so), algbw/busbw (nccl-tests'\n"
     "definitions) and what NCCL's own tuner would choose (nccl_model_s, nccl_algo, nccl_proto).\n"
     "The table is a summary, the fastest marked; --detail adds the per-stage breakdown.\n",
     model_rows, (int)(sizeof model_rows / sizeof model_rows[0]),
     "example: arlab model --platform blueconnect-192 --size 100MB\n", 18, 3, 0},
    {"best",
     "usage: arlab best --platform P --size S|-b S [--coll C] [--top N] [--per-algo] [--ranks N]\n"
     "                  [--dtype T] [--scenario F.json] [--format F]\n"
     "                  (-e MAX [-f F|-i N] are read too, but best takes one size)\n"
     "       arlab best --emit nccl-tuner FILE --platform P [--ranks N] [--max-bytes S]\n"
     "Ranks every algorithm (default parameters) and every BlueConnect variant (decompositions, stage\n"
     "orders, ring/hd per stage) by the cost walk, and says why the best wins.\n",
     best_rows, (int)(sizeof best_rows / sizeof best_rows[0]),
     "example: arlab best --platform blueconnect-192 --size 100MB\n", 18, 3, 0},
    {"trees",
     "usage: arlab trees --platform P [--size S|-b MIN -e MAX [-f F|-i N]] [--ranks N] [--dtype T]\n"
     "                   [--algo treepack:chunks=N,...] [--check] [--format F]\n"
     "Spanning-tree packing: C(G), the Lemma 2.1 bounds, the trees and weights, the streams, the load\n"
     "of every link; with --size the schedule's predicted time.\n",
     trees_rows, (int)(sizeof trees_rows / sizeof trees_rows[0]),
     "example: arlab trees --platform p3.16xlarge --size 100MB\n", 18, 3, 0},
    {"real",
     "usage: arlab real [--platform P] [--ranks N] [--algo A ...|all] [--schedule F.json] [--dtype T]\n"
     "                  [--size S,...|-b MIN -e MAX [-f F|-i N]] [--iters N] [--warmup N]\n"
     "                  [--launch auto|single|mpi|file:PATH] [--gpus N] [--lowering auto|p2p|native]\n"
     "                  [--placement both|in|out] [--timing arlab|nccl-tests] [--graph] [--fuse]\n"
     "                  [--check] [--out FILE.csv] [--format table|csv|json|nccl-tests] [--dry-run]\n"
     "Runs every algorithm's schedule on GPUs with NCCL beside ncclAllReduce, measured like nccl-tests\n"
     "(launch with mpirun -np N, one GPU per process, or one process driving the local GPUs).\n",
     real_rows, (int)(sizeof real_rows / sizeof real_rows[0]),
     "example: mpirun -np 8 arlab real --platform dgx-h100 --size 1MB,64MB\n", 18, 3, 0},
    {"calibrate",
     "usage: arlab calibrate --out FILE.json [--platform P] [--ranks N] [--iters N] [--warmup N]\n"
     "                       [--size S,...|-b MIN -e MAX [-f F|-i N]] [--launch L] [--gpus N]\n"
     "                       [--fit rel|abs] [--name NAME] [--format F]\n"
     "       arlab calibrate --from NT.txt... --platform P --out CAL.json [--name NAME] [--seed N] [--boot B]\n"
     "                       [--coll C] [--ranks N] [--nccl-algo A] [--nccl-proto P]\n"
     "Ping-pong sweeps per link class on GPUs (within a machine, across machines), least-squares\n"
     "alpha/beta (GSL), and a platform JSON that model, sim and best accept. With --from: no GPU, the\n"
     "fit of arlab fit on nccl-tests output, written as P with its links scaled (and what the data\n"
     "cannot identify said). On the emulated cluster use `arlab testbed run --calibrate FILE.json`.\n",
     calibrate_rows, (int)(sizeof calibrate_rows / sizeof calibrate_rows[0]),
     "example: mpirun -np 16 arlab calibrate --out cal.json\n", 18, 3, 0},
    {"compare",
     "usage: arlab compare --platform P [--algo A ...] [--schedule F.json] [--dtype T] [--ranks N]\n"
     "                     [--size S,...|-b MIN -e MAX [-f F|-i N]] [--format F] [MEASURED.csv]\n"
     "       arlab compare --measured FILE... --platform P [--algo A ...] [--plot F.png|F.svg] [--format F]\n"
     "Model, simulated and measured times side by side (measured rows from a CSV written by arlab real\n"
     "or arlab testbed run; matched on algo, ranks and bytes; MPI_Allreduce or ncclAllReduce rows are\n"
     "the baseline). With --measured: nccl-tests files, their NCCL times beside the model, the\n"
     "simulation and NCCL's model, with the relative error per size.\n",
     compare_rows, (int)(sizeof compare_rows / sizeof compare_rows[0]),
     "example: arlab compare --platform cal.json measured.csv\n", 18, 3, 0},
    {"fit",
     "usage: arlab fit --from FILE... --platform P [--coll C] [--ranks N] [--nccl-algo A] [--nccl-proto P]\n"
     "                 [--nccl-version V] [--seed N] [--boot B] [--out CAL.json [--name NAME]]\n"
     "       arlab fit --reference CORPUS.csv [--csv]\n"
     "Fits NCCL's cost model (latency and bandwidth scales) on P to nccl-tests output (text or -J JSON):\n"
     "the fit, 95 % bootstrap intervals, residuals, error by size bucket, leave-one-size-out error.\n",
     fit_rows, (int)(sizeof fit_rows / sizeof fit_rows[0]),
     "example: arlab fit --from all_reduce_perf.txt --platform dgx-h100\n", 18, 3, 0},
    {"sweep",
     "usage: arlab sweep FILE.json [-j N|--jobs N] [--out DIR] [--quiet]\n"
     "Runs the grid of a sweep file (platforms x algorithms x sizes x training configurations) on one\n"
     "backend (model, sim, real, measured) and writes DIR/NAME.csv and .json. Points already there are\n"
     "skipped (resume); Ctrl-C keeps the finished points.\n",
     sweep_rows, (int)(sizeof sweep_rows / sizeof sweep_rows[0]),
     "example: arlab sweep experiments/bc-fig6.json -j 2 --out out\n", 18, 3, 0},
    {"report",
     "usage: arlab report [DIR]\n"
     "Builds DIR/report.html (one self-contained page, figures embedded) and DIR/report.md from the\n"
     "sweep results in DIR (default out).\n",
     report_rows, (int)(sizeof report_rows / sizeof report_rows[0]),
     "example: experiments/make_figures.sh && arlab report out\n", 18, 3, 0},
    {"testbed",
     "usage: arlab testbed up --platform P [--scale F] [--id ID] [--out FILE.json]\n"
     "       arlab testbed down|status [--id ID]\n"
     "       arlab testbed run --platform P [--scale F] [--id ID] [--algo A,...|all] [--size S,...]\n"
     "                         [--dtype f32|f64|i32] [--iters N] [--warmup N] [--format table|csv|nccl-tests]\n"
     "                         [--out FILE.csv] [--platform-out FILE.json] [--calibrate FILE.json]\n"
     "                         [--timeout SECONDS] [--transport auto|links=N[,eager=B]]\n"
     "The emulated cluster (root): one network namespace per machine, bridges for switches, veths\n"
     "shaped with tc; `run` executes arlab-mpi (one MPI process per rank) over it.\n",
     testbed_rows, (int)(sizeof testbed_rows / sizeof testbed_rows[0]),
     "example: arlab testbed run --platform experiments/platforms/testbed-2x2.json --size 1MB\n", 18, 3, 0},
    {"sim",
     "usage: arlab sim --platform P [--platform P2 ...] [--algo A|all ...] [--schedule F.json]\n"
     "                 [--size S[,S2...]|-b MIN -e MAX [-f F|-i N]] [--ranks N] [--dtype T] [--coll C] [--check]\n"
     "                 [--trace FILE] [--network MODEL[,key:value...]] [--gamma S_PER_BYTE] [--budget TIME]\n"
     "                 [--engine fast|naive] [--sync round|dataflow] [--no-shortcuts] [--chunks N]\n"
     "                 [--scenario F.json] [--model-only] [--brief] [--digits N] [--format F]\n"
     "Simulates each algorithm's schedule on SimGrid and compares it with the cost walk (model_s) and\n"
     "the closed form (closed_s). Defaults: --algo all --size 100MB. CSV/JSON rows are streamed, with\n"
     "algbw/busbw, NCCL's choice, status and why (docs/simulator.md).\n",
     sim_rows, (int)(sizeof sim_rows / sizeof sim_rows[0]), "network models (--network):\n", 14, 2, 1},
};

const cli_verbhelp *cli_verbhelps(int *n) {
    *n = (int)(sizeof verbs / sizeof verbs[0]);
    return verbs;
}
