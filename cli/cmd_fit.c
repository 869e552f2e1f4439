/* `arlab fit --from FILE... --platform P [--seed N] [--boot B]`: fits the NCCL
 * model's latency and bandwidth scales on P to nccl-tests output (calib/ntfit.h) and prints
 * the fit, the 95 % bootstrap intervals, the residuals, the error by size bucket and the
 * leave-one-size-out error. Table output only for now. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "nt_facts.h"
#include "calib/nccltests_in.h"
#include "calib/ntfit.h"
#include "calib/ntcal.h"
#include "calib/ntref.h"
#include "models/nccl_model.h"
#include "core/units.h"
#include "core/util.h"
#include "lab/eval.h"
#include <math.h>

/* The generated rail spec (core/platform/platform_rail.h) of p's nodes with the per-class scales: the NVLink link of a
 * GPU (to its machine's switch) x intra bandwidth, its NIC link (to a rail switch) x inter bandwidth, every
 * latency x the intra latency scale. -1 when p:nodes=2 does not have that shape. */
static int rail_spec(const ar_platform *p, const ar_ntfit_res *r, char *buf, size_t n) {
    char spec[300];
    snprintf(spec, sizeof spec, "%s:nodes=2", p->name);
    ar_platform *q = NULL;
    ar_err e = {{0}};
    if (ar_platform_load(spec, 0, &q, &e)) return -1;
    int v = q->rank_node[0];
    const ar_link *nv = NULL, *nic = NULL;
    for (int k = q->adj_off[v]; k < q->adj_off[v + 1]; k++) {
        const ar_link *l = &q->links[q->adj[k]];
        int u = l->a == v ? l->b : l->a;
        if (q->nodes[u].kind != AR_NODE_SWITCH) continue;
        if (q->nodes[u].machine == q->nodes[v].machine) nv = l;
        else if (q->nodes[u].machine < 0) nic = l;
    }
    int g = q->machine_first_rank[1] - q->machine_first_rank[0];
    int rc = -1;
    if (nv && nic) {
        snprintf(buf, n, "rail:nodes=N,gpus=%d,nvlink=%.6gGBps,lanes=%d,nic=%.6gGBps,nics=%d,lat=%.6gus", g,
                 nv->bw_Bps * r->cls[0].bw / 1e9, nv->lanes, nic->bw_Bps * r->cls[1].bw / 1e9, nic->lanes,
                 nv->lat_s * r->cls[0].lat * 1e6);
        rc = 0;
    }
    ar_platform_free(q);
    return rc;
}

/* Whether the calibration identified the bandwidth of algorithm/protocol algo/proto: its own efficiency, or, for
 * its family's reference, the rate factor of a class it ran in. -1 when the calibration has no such group. */
static int cal_bw_identified(const ar_ntfit_cal *c, const char *algo, const char *proto) {
    for (int g = 0; g < c->ngroups; g++) {
        if (strcmp(c->group[g].algo, algo) || strcmp(c->group[g].proto, proto)) continue;
        int f = c->group[g].fam;
        if (g != c->fref[f]) return c->group[g].ident;
        for (int k = 0; k < 2; k++)
            if (f == 0 ? c->cls[k].bw_n > 0 && c->cls[k].bw_ident : c->sw[k][f - 1].n > 0 && c->sw[k][f - 1].ident)
                return 1;
        return 0;
    }
    return -1;
}

/* Whether the calibration identified any latency (what = 0) or any bandwidth (what = 1) factor. */
static int cal_any_identified(const ar_ntfit_cal *c, int what) {
    for (int k = 0; k < 2; k++) {
        if (!what && c->cls[k].lat_ident && c->cls[k].n >= 2) return 1;
        if (what && ((c->cls[k].bw_ident && c->cls[k].bw_n > 0) || (c->sw[k][0].n > 0 && c->sw[k][0].ident) ||
                     (c->sw[k][1].n > 0 && c->sw[k][1].ident)))
            return 1;
    }
    for (int g = 0; what && g < c->ngroups; g++)
        if (c->group[g].ident && g != c->fref[c->group[g].fam]) return 1;
    return 0;
}

/* Prints the joint per-class calibration (calib/ntfit.h ar_ntfit_cal). */
static void print_cal(const ar_ntfit_cal *c) {
    printf("\ncalibration (written with --out): per link class, jointly with the per algorithm/protocol "
           "efficiencies (t ~ lat_c L + X / (bw_b eff_g), b = the class's links, its NVSwitch (NVLS) or its SHARP "
           "(CollNet) rate; %d pass%s%s, %d bootstrap resamples)\n",
           c->passes, c->passes == 1 ? "" : "es",
           c->kept != c->passes ? ": the choices did not settle, the pass whose model predicts best kept" : "",
           c->nboot);
    printf("%-11s %4s %9s %22s %9s %22s\n", "class", "n", "latency", "95% interval", "links bw", "95% interval");
    static const char *const cn[2] = {"intra-node", "inter-node"};
    for (int k = 0; k < 2; k++) {
        printf("%-11s %4d %9.4f [%9.4f, %9.4f] %9.4f [%9.4f, %9.4f]", cn[k], c->cls[k].n, c->cls[k].lat,
               c->cls[k].lat_lo, c->cls[k].lat_hi, c->cls[k].bw, c->cls[k].bw_lo, c->cls[k].bw_hi);
        int bw_ok = c->cls[k].bw_ident || c->cls[k].bw_n == 0;
        if (c->cls[k].n < 2)
            printf("  NOT identified: no %s runs (factors kept at 1)\n", k ? "multi-node" : "one-node");
        else if (!c->cls[k].lat_ident || !bw_ok)
            printf("  %s%s%sNOT identified (kept at 1)\n", c->cls[k].lat_ident ? "" : "latency ",
                   !c->cls[k].lat_ident && !bw_ok ? "and " : "", bw_ok ? "" : "links bandwidth ");
        else if (c->cls[k].bw_n == 0) printf("  (no records on the links: bw kept at 1)\n");
        else printf("\n");
    }
    static const char *const swn[2] = {"NVLS (NVSwitch reduce/multicast)", "CollNet (SHARP)"};
    static const char *const swc[2][2] = {{"intra-nvls", "intra-sharp"}, {"inter-nvls", "inter-sharp"}};
    for (int k = 0; k < 2; k++)
        for (int s2 = 0; s2 < 2; s2++) {
            if (!c->sw[k][s2].n) continue;
            printf("%-11s %4d %-9s %22s %9.4f [%9.4f, %9.4f]  %s rate%s\n", swc[k][s2], c->sw[k][s2].n, "", "",
                   c->sw[k][s2].bw, c->sw[k][s2].lo, c->sw[k][s2].hi, swn[s2],
                   c->sw[k][s2].ident ? "" : ": NOT identified (kept at 1)");
        }
    printf("%-8s %-7s %4s %10s %22s  %s\n", "algo", "proto", "n", "efficiency", "95% interval", "identified");
    for (int g = 0; g < c->ngroups; g++)
        printf("%-8s %-7s %4d %10.4f [%9.4f, %9.4f]  %s\n", c->group[g].algo, c->group[g].proto, c->group[g].n,
               c->group[g].eff, c->group[g].lo, c->group[g].hi,
               g == c->fref[c->group[g].fam] ? "reference (1 by definition; its bandwidth is the class factor above)"
               : c->group[g].ident           ? "yes"
                                   : "NO (kept at 1: no bandwidth term, too wide, or not separable from a class)");
    printf("calibrated prediction |rel err|: median %.4f max %.4f; median by size:", c->rel_med, c->rel_max);
    static const char *const b3[3] = {"< 64 KB", "64 KB-64 MB", ">= 64 MB"};
    for (int b = 0; b < 3; b++)
        if (c->bucket_n[b]) printf(" %s %.4f (%d)", b3[b], c->bucket_med[b], c->bucket_n[b]);
    printf("\n");
}

/* Says what the data cannot identify and, with out, writes the calibrated platform (calib/ntcal.h). */
/* The g the platform of the multi-node runs has (p itself, or PRESET:nodes=N for a one-node preset): what the
 * calibrated file keeps, since nccl-tests do not identify g. */
static double msg_g_kept(const ar_platform *p, int nodes) {
    const char *src = p->source ? p->source : "";
    if (p->nmachines > 1 || nodes < 2 || strncmp(src, "preset:", 7)) return p->msg_g_s;
    char spec[300];
    snprintf(spec, sizeof spec, "%s:nodes=%d", src + 7, nodes);
    ar_platform *q = NULL;
    ar_err e2 = {{0}};
    double g = p->msg_g_s;
    if (!ar_platform_load(spec, 0, &q, &e2)) g = q->msg_g_s;
    ar_platform_free(q);
    return g;
}

static void print_msg(const ar_ntfit_msg *m, double g) {
    char b1[32], b2[32], b3[32], b4[32];
    printf("\nper-message costs (LogGP, messages between machines; written with --out as compute.message):\n");
    if (m->o_ident)
        printf("o %s [%s, %s] (95%% bootstrap interval of the median, %d resamples) from %d multi-node records below "
               "64 KB (%d..%d nodes): the median excess over NCCL's model %s / (2 x %d messages on the critical "
               "path)\n",
               ar_fmt_time(m->o, b1, sizeof b1), ar_fmt_time(m->o_lo, b2, sizeof b2),
               ar_fmt_time(m->o_hi, b3, sizeof b3), m->nboot, m->n, m->nodes_lo, m->nodes_hi,
               ar_fmt_time(m->excess_med, b4, sizeof b4), ar_ntfit_msg_chain(m->nodes_hi));
    else printf("o NOT identified: %s (the platform's o kept)\n", m->why);
    printf("g NOT identified: nccl-tests send one message per endpoint at a time on the critical path (the "
           "platform's %s kept)\n",
           ar_fmt_time(g, b1, sizeof b1));
}

/* The calibrated platform's notes (into notes, their count returned): the fit, what the runs' node
 * counts identify (*hi: the most nodes of a run), NCCL's efficiencies, the per-message o. */
static int cal_notes(const ar_nt_set *s, const ar_platform *p, const ar_ntfit_cal *cal, const ar_ntfit_msg *msg,
                     double msg_g, const char *plat, char notes[8][1024], int *hi_out) {
    int lo = 0, hi = 0, unknown = 0;
    for (int i = 0; i < s->nruns; i++) {
        int nn = s->runs[i].nnodes;
        if (nn <= 0) unknown = 1;
        else lo = lo && lo < nn ? lo : nn, hi = hi > nn ? hi : nn;
    }
    *hi_out = hi;
    int nn = 0;
    snprintf(notes[nn++], sizeof notes[0],
             "calibrated by 'arlab calibrate --from' on %d nccl-tests %s records of %s: \"calibration\" "
             "holds the per link class factors (intra-node: latency x %.6g [%.6g, %.6g], bandwidth x %.6g [%.6g, "
             "%.6g]; inter-node: latency x %.6g [%.6g, %.6g], bandwidth x %.6g [%.6g, %.6g]; 95%% bootstrap "
             "intervals, %d resamples), which the loader applies to the links (and NCCL's model to its table), "
             "\"nvls\"/\"collnet\" the NVSwitch's and SHARP's rates that NCCL's model uses for NVLS/NVLS_TREE "
             "and COLLNET_*, \"nccl\".\"efficiency\" the per algorithm/protocol efficiencies of NCCL's model",
             cal->n, s->nruns ? ar_nt_coll_name(s->runs[0].coll) : "all_reduce", plat, cal->cls[0].lat,
             cal->cls[0].lat_lo, cal->cls[0].lat_hi, cal->cls[0].bw, cal->cls[0].bw_lo, cal->cls[0].bw_hi,
             cal->cls[1].lat, cal->cls[1].lat_lo, cal->cls[1].lat_hi, cal->cls[1].bw, cal->cls[1].bw_lo,
             cal->cls[1].bw_hi, cal->nboot);
    if ((hi <= 1 && !unknown) || (unknown && hi == 0 && p->nmachines <= 1))
        snprintf(notes[nn++], sizeof notes[0],
                 "inter-node latency and bandwidth: NOT identifiable (every run is on one node): kept at 1");
    else if (cal->cls[0].n < 2)
        snprintf(notes[nn++], sizeof notes[0],
                 "intra-node latency and bandwidth: NOT identifiable (no one-node runs): kept at 1");
    else
        snprintf(notes[nn++], sizeof notes[0],
                 "the runs span %d..%d nodes: one-node runs fit the intra-node class, multi-node runs (predicted on "
                 "%s:nodes=N) the inter-node class; for N nodes load FILE.json:nodes=N",
                 lo, hi, p->name);
    int at = snprintf(notes[nn], sizeof notes[0], "per NCCL algorithm/protocol bandwidth efficiency:");
    for (int g = 0; g < cal->ngroups && at > 0 && (size_t)at < sizeof notes[0]; g++)
        at += snprintf(notes[nn] + at, sizeof notes[0] - (size_t)at, " %s/%s %.4g [%.4g, %.4g]%s;", cal->group[g].algo,
                       cal->group[g].proto, cal->group[g].eff, cal->group[g].lo, cal->group[g].hi,
                       g == cal->ref         ? " reference"
                       : cal->group[g].ident ? ""
                                             : " not identified");
    nn++;
    if (msg->o_ident)
        snprintf(notes[nn++], sizeof notes[0],
                 "compute.message: o = %.6g s [%.6g, %.6g] (LogGP per-message overhead between machines: the median "
                 "of (measured - NCCL's model) / (2 x the network messages of NCCL's tree) over %d multi-node records "
                 "below 64 KB; NCCL's own algorithms are priced without it), g = %.6g s kept (not identified)",
                 msg->o, msg->o_lo, msg->o_hi, msg->n, msg_g);
    return nn;
}

/* The rail platform of the per node class fit, and what the runs identify and what they do not. */
static void print_identifiability(const ar_platform *p, const ar_ntfit_res *r, const ar_ntfit_cal *cal,
                                  const ar_ntfit_msg *msg, char notes[8][1024], int nn) {
    char rail[256] = "";
    if (r->have_classes && rail_spec(p, r, rail, sizeof rail) == 0)
        printf("\nmulti-node platform with the per node class fit: --platform '%s' (N: node count)\n", rail);
    printf("\nidentifiability:\n");
    for (int i = 1; i < nn - 1 - msg->o_ident; i++) printf("  %s\n", notes[i]);
    if (!msg->o_ident) printf("  per-message o: NOT identified (%s)\n", msg->why);
    for (int k = 0; k < 2; k++) {
        int bw_bad = cal->cls[k].bw_n > 0 && !cal->cls[k].bw_ident;
        if (cal->cls[k].n >= 2 && (!cal->cls[k].lat_ident || bw_bad))
            printf("  %s %s: NOT identified by these sizes (kept at 1)\n", k ? "inter-node" : "intra-node",
                   !cal->cls[k].lat_ident && bw_bad ? "latency and links bandwidth"
                   : !cal->cls[k].lat_ident         ? "latency"
                                                    : "links bandwidth");
        for (int s2 = 0; s2 < 2; s2++)
            if (cal->sw[k][s2].n > 0)
                printf("  %s rate, %s: %s\n", s2 ? "CollNet (SHARP)" : "NVLS (NVSwitch)",
                       k ? "inter-node" : "intra-node",
                       cal->sw[k][s2].ident ? "identified" : "NOT identified by these sizes (kept at 1)");
    }
}

/* Writes the calibrated platform (notes, the fitted factors and efficiencies) to out, and says how to load it
 * (hi: the most nodes of a run). */
static ar_status write_calibrated(const ar_platform *p, const ar_ntfit_cal *cal, const ar_ntfit_msg *msg, double msg_g,
                                  char notes[8][1024], int nn, int hi, const char *out, const char *name, ar_err *e) {
    const char *np[8];
    for (int i = 0; i < nn; i++) np[i] = notes[i];
    char keys[AR_NTFIT_MAX_GROUPS][40];
    const char *kp[AR_NTFIT_MAX_GROUPS];
    double ev[AR_NTFIT_MAX_GROUPS];
    for (int g = 0; g < cal->ngroups; g++) {
        snprintf(keys[g], sizeof keys[g], "%s/%s", cal->group[g].algo, cal->group[g].proto);
        kp[g] = keys[g], ev[g] = cal->group[g].eff;
    }
    const char *src = p->source ? p->source : "";
    char rbase[256];
    int rnodes = 0, is_rail = ar_ntcal_rail_base(p, rbase, sizeof rbase, &rnodes);
    char nm[300];
    snprintf(nm, sizeof nm, "%s-calibrated", is_rail ? rbase : p->name);
    ar_ntcal_in in = {
        .name = name ? name : nm,
        .lat_scale = 1,
        .bw_scale = 1,
        .nnotes = nn,
        .notes = np,
        .calibrated = 1,
        .cal_lat = {cal->cls[0].lat, cal->cls[1].lat},
        .cal_bw = {cal->cls[0].bw, cal->cls[1].bw},
        .cal_sw = {{cal->sw[0][0].bw, cal->sw[0][1].bw}, {cal->sw[1][0].bw, cal->sw[1][1].bw}},
        .have_sw = {{cal->sw[0][0].n > 0, cal->sw[0][1].n > 0}, {cal->sw[1][0].n > 0, cal->sw[1][1].n > 0}},
        .base = !strncmp(src, "preset:", 7) ? src + 7
                : is_rail                   ? rbase
                                            : p->cal_base,
        .neff = cal->ngroups,
        .eff_key = kp,
        .eff = ev,
        .have_msg = msg->o_ident,
        .msg_o = msg->o,
        .msg_g = msg_g};
    char *json = NULL;
    ar_status st = ar_ntcal_platform_json(p, &in, &json, e);
    if (st) return st;
    FILE *fo = fopen(out, "w");
    if (!fo || fputs(json, fo) < 0 || fputc('\n', fo) == EOF) st = ar_fail(e, AR_EIO, "cannot write %s", out);
    if (fo && fclose(fo) != 0 && !st) st = ar_fail(e, AR_EIO, "cannot write %s", out);
    free(json);
    if (!st) {
        if (is_rail)
            printf("\nwrote %s (the fabric of the runs: arlab model/sim/best --platform %s:nodes=%d; one node of it: "
                   "--platform %s)\n",
                   out, out, rnodes, out);
        else {
            printf("\nwrote %s (arlab model/sim/best --platform %s", out, out);
            if (hi > 1 && p->nmachines == 1) printf("; %d nodes: --platform %s:nodes=%d", hi, out, hi);
            printf(")\n");
        }
    }
    return st;
}

static ar_status identify_and_write(const ar_nt_set *s, const ar_platform *p, const ar_ntfit_res *r,
                                    const ar_ntfit_cal *cal, const ar_ntfit_msg *msg, double msg_g, const char *plat,
                                    const char *out, const char *name, ar_err *e) {
    char notes[8][1024];
    int hi = 0, nn = cal_notes(s, p, cal, msg, msg_g, plat, notes, &hi);
    print_identifiability(p, r, cal, msg, notes, nn);
    if (!out) return AR_OK;
    return write_calibrated(p, cal, msg, msg_g, notes, nn, hi, out, name, e);
}

/* `arlab fit --reference FILE [--csv]`: the corpus against the presets (calib/ntref.h). */
static int fit_reference(const char *path, int csv) {
    ar_err e = {{0}};
    ar_nt_ref *refs = NULL;
    int n = 0;
    ar_ntref_pred *p = NULL;
    ar_ntref_fit fit;
    ar_status st = ar_nt_read_reference(path, &refs, &n, &e);
    if (!st) st = ar_ntref_predict(refs, n, &p, &fit, &e);
    if (st) {
        fprintf(stderr, "arlab fit: %s\n", e.msg);
        free(refs);
        return st;
    }
    if (csv)
        printf("line,preset,platform,ranks,bytes,size_assumed,algorithm,nccl_algo,nccl_proto,published_busbw_GBps,"
               "predicted_busbw_GBps,rel_err,loo_pooled,loo_algo,status\n");
    else
        printf("%-5s %-10s %-9s %5s %-6s %-10s %10s %10s %8s %9s %9s  %s\n", "line", "preset", "size", "ranks",
               "forced", "predicted", "published", "predicted", "rel_err", "loo_pool", "loo_algo", "source / why");
    for (int i = 0; i < n; i++) {
        const ar_nt_ref *r = &refs[i];
        const ar_ntref_pred *q = &p[i];
        if (csv) {
            if (q->ok)
                printf("%d,%s,%s,%d,%.0f,%d,%s,%s,%s,%.17g,%.17g,%.17g,%.17g,%.17g,ok\n", r->line, r->preset,
                       q->platform, r->ranks, q->bytes, q->size_assumed, r->algorithm, q->algo, q->proto,
                       q->pub_busbw_GBps, q->pred_busbw_GBps, q->rel_err, q->loo_pooled, q->loo_algo);
            else
                printf("%d,%s,%s,%d,%.0f,%d,%s,,,%.17g,,,,,\"%s\"\n", r->line, r->preset, q->platform, r->ranks,
                       q->bytes, q->size_assumed, r->algorithm, q->pub_busbw_GBps, q->why);
            continue;
        }
        char sz[32], alg[40];
        snprintf(sz, sizeof sz, "%.0fMiB%s", q->bytes / 1048576.0, q->size_assumed ? "*" : "");
        snprintf(alg, sizeof alg, "%s/%s", q->algo, q->proto);
        if (q->ok)
            printf("%-5d %-10s %-9s %5d %-6s %-10s %10.1f %10.1f %+8.3f %9.3f %9.3f  %s\n", r->line, r->preset, sz,
                   r->ranks, r->algorithm[0] ? r->algorithm : "-", alg, q->pub_busbw_GBps, q->pred_busbw_GBps,
                   q->rel_err, q->loo_pooled, q->loo_algo, r->source);
        else
            printf("%-5d %-10s %-9s %5d %-6s %-10s %10.1f %10s %8s %9s %9s  not predicted: %s\n", r->line, r->preset,
                   sz, r->ranks, r->algorithm[0] ? r->algorithm : "-", "-", q->pub_busbw_GBps, "-", "-", "-", "-",
                   q->why);
    }
    if (!csv) {
        printf("* size not given by the source: %.0f B assumed (the end of a usual nccl-tests sweep)\n",
               AR_NTREF_DEFAULT_BYTES);
        printf("busbw in GB/s; rel_err = (predicted - published) / published; loo_*: leave-one-out |rel err| of the "
               "time after refitting the bandwidth efficiency on the other rows (pooled / same NCCL algorithm)\n");
        printf("\nfit of the presets' bandwidth efficiency (t ~ L + X / eff, NCCL model %s; eff 1 = the presets as "
               "they are):\n",
               "" AR_NCCL_MODEL_VERSION);
        printf("  pooled: eff %.4f over all rows\n", fit.eff_pooled);
        for (int g = 0; g < fit.nalgo; g++)
            printf("  %-10s eff %.4f over %d row%s\n", fit.algo[g], fit.eff_algo[g], fit.n_algo[g],
                   fit.n_algo[g] == 1 ? "" : "s");
        static const char *bn[4] = {"< 1 MB", "1-64 MB", "64-512 MB", ">= 512 MB"};
        printf("\ncross-validated (leave-one-out) |rel err| of the time per size bucket:\n");
        printf("%-10s %4s %12s %12s %12s %12s\n", "bucket", "n", "pooled med", "pooled max", "per-algo med",
               "per-algo max");
        for (int b = 0; b < 4; b++)
            printf("%-10s %4d %12.4f %12.4f %12.4f %12.4f\n", bn[b], fit.bucket_n[0][b], fit.bucket_med[0][b],
                   fit.bucket_max[0][b], fit.bucket_med[1][b], fit.bucket_max[1][b]);
    }
    free(p);
    free(refs);
    return 0;
}
/* The runs to fit (the reader's hints applied): says what the reader assumed, refuses runs whose
 * collective is unknown, keeps one collective (--coll, else all_reduce when there is one, else the only
 * one) that NCCL's model covers, and leaves out the rows with #wrong > 0, one line each. */
static ar_status fit_select(ar_nt_set *s, const cli_nt_facts *f, const char *verb, ar_err *e) {
    ar_nt_coll want = (ar_nt_coll)f->coll;
    int have_ar = 0, single = 1;
    ar_nt_coll first = AR_NT_COLL_UNKNOWN;
    for (int i = 0; i < s->nruns; i++) {
        const ar_nt_run *r = &s->runs[i];
        if (!r->nrecs) continue;
        if (r->coll == AR_NT_COLL_UNKNOWN)
            return ar_fail(e, AR_EINVAL,
                           "%s:%d: the collective is not named in the file (no \"# Collective test starting\" line, "
                           "no *_perf command) and its table does not tell it; give --coll "
                           "allreduce|allgather|reducescatter|broadcast|reduce|alltoall",
                           s->files[r->file], r->first_line);
        have_ar |= r->coll == AR_NT_ALL_REDUCE;
        if (first == AR_NT_COLL_UNKNOWN) first = r->coll;
        else single &= r->coll == first;
    }
    if (first == AR_NT_COLL_UNKNOWN) return ar_fail(e, AR_EINVAL, "no nccl-tests rows to fit");
    if (!want) {
        if (have_ar) want = AR_NT_ALL_REDUCE;
        else if (single) want = first;
        else
            return ar_fail(e, AR_EINVAL,
                           "the files hold runs of several collectives and none is all_reduce; --coll "
                           "picks the one to fit");
    }
    if (want != AR_NT_ALL_REDUCE && want != AR_NT_ALL_GATHER && want != AR_NT_REDUCE_SCATTER)
        return ar_fail(e, AR_EUNSUPPORTED,
                       "%s: arlab models NCCL's all_reduce, all_gather and reduce_scatter only; %s runs cannot be "
                       "fitted",
                       f->coll ? "--coll" : s->files[0], ar_nt_coll_name(want));
    ar_nt_print_assumed(s, verb, stderr); /* what the reader took from elsewhere than the file */
    int left = 0;
    ar_nt_coll other = AR_NT_COLL_UNKNOWN;
    for (int i = 0; i < s->nruns; i++)
        if (s->runs[i].nrecs && s->runs[i].coll != want) left++, other = s->runs[i].coll;
    if (ar_nt_keep_coll(s, want) == 0 || s->nrecs == 0)
        return ar_fail(e, AR_EINVAL, "no %s run in the files (they hold %s)", ar_nt_coll_name(want),
                       ar_nt_coll_name(other));
    if (left)
        fprintf(stderr, "arlab %s: %d run%s of other collectives left out (e.g. %s; --coll picks one)\n", verb, left,
                left == 1 ? "" : "s", ar_nt_coll_name(other));
    int bad = ar_nt_drop_wrong(s);
    if (bad)
        fprintf(stderr, "arlab %s: %d row%s with #wrong > 0 (wrong results) left out of the fit\n", verb, bad,
                bad == 1 ? "" : "s");
    return AR_OK;
}

/* Runs without a rank count are fitted on the platform's (ntfit's rule): one line says so. */
static void note_platform_ranks(const ar_nt_set *s, const ar_platform *p, const char *verb) {
    for (int i = 0; i < s->nruns; i++) {
        const ar_nt_run *r = &s->runs[i];
        if (r->nrecs && r->nranks < 1)
            fprintf(
                stderr,
                "arlab %s: %s:%d: the rank count is not in the file (no whole device list, no NCCL log, busbw/algbw "
                "does not tell it); %s's %d assumed (--ranks sets it)\n",
                verb, s->files[r->file], r->first_line, p->name, p->nranks);
        else if (r->nrecs && r->nnodes < 1 && p->nmachines == 1 && r->nranks > p->nranks && r->nranks % p->nranks == 0)
            fprintf(stderr, "arlab %s: %s:%d: the node count is not in the file; %d nodes of %s's %d ranks assumed\n",
                    verb, s->files[r->file], r->first_line, r->nranks / p->nranks, p->name, p->nranks);
    }
}

/* ---- `arlab fit --reference MANIFEST.tsv`: the corpus, per log and size bucket ---- */

#define CORPUS_MAX 64
typedef struct corpus_log {
    char file[512], name[128], fit[96], opts[96];
    ar_nt_coll coll;
    int nodes; /* the most nodes of its records (its platform's machines) */
} corpus_log;

static int cmp_dbl_fit(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median_of(double *v, int n) {
    if (n <= 0) return NAN;
    qsort(v, (size_t)n, sizeof *v, cmp_dbl_fit);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Reads files (one log, or a cluster's logs) with the log's options, the collective kept, #wrong rows left out. */
static ar_status corpus_read(const char *const *files, int nf, const corpus_log *lg, ar_nt_set **s, ar_err *e) {
    cli_nt_facts f;
    memset(&f, 0, sizeof f);
    char opts[96], *tok, *save = NULL;
    snprintf(opts, sizeof opts, "%s", lg->opts);
    for (tok = strtok_r(opts, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        char *v = strtok_r(NULL, " ", &save);
        if (!v) break;
        if (!strcmp(tok, "--coll")) f.coll_arg = v, f.coll = (int)ar_nt_coll_parse(v);
        else if (!strcmp(tok, "--ranks")) f.ranks = atoi(v);
    }
    ar_nt_opts nto;
    cli_nt_opts(&f, &nto);
    ar_status st = ar_nt_read_files(files, nf, &nto, s, e);
    if (!st) {
        ar_nt_keep_coll(*s, lg->coll);
        ar_nt_drop_wrong(*s);
        if (!(*s)->nrecs) st = ar_fail(e, AR_EINVAL, "%s: no %s rows", lg->name, ar_nt_coll_name(lg->coll));
    }
    return st;
}

/* The records of s whose size is not `skip` (a shallow copy: free only its recs). */
static ar_nt_set corpus_without(const ar_nt_set *s, uint64_t skip, ar_nt_record *buf) {
    ar_nt_set c = *s;
    c.nrecs = 0;
    c.recs = buf;
    for (int i = 0; i < s->nrecs; i++)
        if (s->recs[i].size_bytes != skip) buf[c.nrecs++] = s->recs[i];
    return c;
}

/* |rel err| of pred vs meas per bucket into err[b] (counts nb[b]). */
static void corpus_bucket(const ar_ntfit_pred *q, int n, const double *pred, double err[3][128], int nb[3]) {
    nb[0] = nb[1] = nb[2] = 0;
    for (int i = 0; i < n; i++) {
        if (!(pred[i] > 0) || !isfinite(pred[i])) continue;
        int b = ar_ntfit_bucket3(q[i].bytes);
        if (nb[b] < 128) err[b][nb[b]++] = fabs(pred[i] - q[i].meas_s) / q[i].meas_s;
    }
}

/* The logs of a corpus manifest that name a platform to fit (at most CORPUS_MAX); their count, or minus
 * the status (the error said). */
static int corpus_manifest(const char *manifest, corpus_log *logs) {
    ar_err e = {{0}};
    char *text = NULL;
    if (ar_read_file(manifest, (size_t)1 << 20, &text, NULL, &e)) {
        fprintf(stderr, "arlab fit: %s\n", e.msg);
        return -(int)AR_EIO;
    }
    char dir[512];
    snprintf(dir, sizeof dir, "%s", manifest);
    char *slash = strrchr(dir, '/');
    if (slash) slash[1] = 0;
    else dir[0] = 0;
    int nl = 0;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (line[0] == '#' || !line[0]) continue;
        char *col[9], *s2 = NULL;
        int nc = 0;
        for (char *c = strtok_r(line, "\t", &s2); c && nc < 9; c = strtok_r(NULL, "\t", &s2)) col[nc++] = c;
        if (nc < 9 || !strcmp(col[7], "-") || nl == CORPUS_MAX) continue;
        corpus_log *lg = &logs[nl];
        snprintf(lg->file, sizeof lg->file, "%s%s", dir, col[0]);
        snprintf(lg->name, sizeof lg->name, "%s", col[0]);
        snprintf(lg->fit, sizeof lg->fit, "%s", col[7]);
        snprintf(lg->opts, sizeof lg->opts, "%s", strcmp(col[5], "-") ? col[5] : "");
        lg->coll = ar_nt_coll_parse(col[1]);
        nl++;
    }
    free(text);
    if (!nl) {
        fprintf(stderr, "arlab fit: %s: no log with a platform to fit (the \"fit\" column)\n", manifest);
        return -(int)AR_EINVAL;
    }
    return nl;
}

/* Each log's node count: a log's cluster peers are the logs of the same platform and collective. */
static void corpus_nodes(corpus_log *logs, int nl) {
    ar_err e = {{0}};
    for (int i = 0; i < nl; i++) {
        ar_nt_set *s = NULL;
        ar_platform *p = NULL;
        const char *f1[1] = {logs[i].file};
        int n = 0;
        ar_ntfit_pred *q = NULL;
        logs[i].nodes = 0;
        if (!corpus_read(f1, 1, &logs[i], &s, &e) && !ar_platform_load(logs[i].fit, 0, &p, &e) &&
            (q = calloc((size_t)s->nrecs, sizeof *q)) && !ar_ntfit_predict(s, p, NULL, q, &n, &e))
            for (int k = 0; k < n; k++) logs[i].nodes = q[k].nodes > logs[i].nodes ? q[k].nodes : logs[i].nodes;
        free(q), ar_nt_free(s), ar_platform_free(p);
    }
}

/* Column: arlab's schedule for NCCL's choice (model_s of 'nccl'), on the platform of each record's node count. */
static void corpus_arlab_nccl(const corpus_log *lg, const ar_platform *p, const ar_ntfit_pred *q, int n, double *col) {
    ar_platform *pn = NULL;
    int pn_nodes = -1;
    for (int k = 0; k < n; k++) {
        col[k] = NAN;
        if (q[k].nodes != pn_nodes) {
            ar_platform_free(pn);
            pn = NULL;
            pn_nodes = q[k].nodes;
            char spec[160];
            if (q[k].nodes == p->nmachines) snprintf(spec, sizeof spec, "%s", lg->fit);
            else snprintf(spec, sizeof spec, "%s:nodes=%d", lg->fit, q[k].nodes);
            ar_err e2 = {{0}};
            if (ar_platform_load(spec, 0, &pn, &e2)) pn = NULL;
        }
        uint64_t b = (uint64_t)q[k].bytes;
        if (!pn || b % 4 || b / 4 % (uint64_t)pn->nranks) continue;
        lab_eval ev;
        lab_eval_opts eo = {.coll = lg->coll == AR_NT_ALL_GATHER       ? AR_COLL_ALLGATHER
                                    : lg->coll == AR_NT_REDUCE_SCATTER ? AR_COLL_REDUCESCATTER
                                                                       : AR_COLL_ALLREDUCE};
        ar_err e2 = {{0}};
        if (lab_eval_model(pn, "nccl", b / 4, 4, &eo, &ev, &e2) == AR_OK) col[k] = ev.model_s, lab_eval_free(&ev);
    }
    ar_platform_free(pn);
}

/* Column: calibrated on the whole log (in sample: what the calibration reports). */
static void corpus_cal_in(const ar_nt_set *s, const ar_platform *p, int boot, int n, double *col) {
    for (int k = 0; k < n; k++) col[k] = NAN;
    {
        ar_ntfit_cal cal;
        ar_err e2 = {{0}};
        int m = 0;
        ar_ntfit_pred *q2 = calloc((size_t)s->nrecs, sizeof *q2);
        if (q2 && !ar_ntfit_calibrate(s, p, 1, boot, &cal, &e2) && !ar_ntfit_predict(s, p, &cal, q2, &m, &e2))
            for (int j = 0; j < m && j < n; j++) col[j] = q2[j].pred_s;
        free(q2);
    }
}

/* Column: leave-one-size-out, calibrated on the other sizes, the held-out size predicted. */
static void corpus_loso(const ar_nt_set *s, const ar_platform *p, int boot, const ar_ntfit_pred *q, int n,
                        ar_nt_record *buf, double *col) {
    for (int k = 0; k < n; k++) col[k] = NAN;
    for (int k = 0; k < n; k++) {
        if (!isnan(col[k])) continue;
        uint64_t sz = (uint64_t)q[k].bytes;
        ar_nt_set sub = corpus_without(s, sz, buf);
        ar_ntfit_cal cal;
        ar_err e2 = {{0}};
        int m = 0;
        ar_ntfit_pred *q2 = calloc((size_t)s->nrecs, sizeof *q2);
        if (q2 && sub.nrecs >= 2 && !ar_ntfit_calibrate(&sub, p, 1, boot, &cal, &e2) &&
            !ar_ntfit_predict(s, p, &cal, q2, &m, &e2))
            for (int j = 0; j < m && j < n; j++)
                if ((uint64_t)q[j].bytes == sz) col[j] = q2[j].pred_s;
        for (int j = 0; j < n; j++) /* sizes that could not be calibrated without: marked done */
            if ((uint64_t)q[j].bytes == sz && isnan(col[j])) col[j] = -1;
        free(q2);
    }
}

/* Column: leave-one-node-count-out, calibrated on the same platform's logs of the collective on other node
 * counts; 1 if there were any. */
static int corpus_lonco(const corpus_log *logs, int nl, int i, const ar_nt_set *s, const ar_platform *p, int boot,
                        int n, double *col) {
    const corpus_log *lg = &logs[i];
    for (int k = 0; k < n; k++) col[k] = NAN;
    int have = 0;
    {
        const char *others[CORPUS_MAX];
        int no = 0;
        for (int j = 0; j < nl; j++)
            if (j != i && logs[j].coll == lg->coll && !strcmp(logs[j].fit, lg->fit) && logs[j].nodes > 0 &&
                logs[j].nodes != lg->nodes)
                others[no++] = logs[j].file;
        ar_nt_set *so = NULL;
        ar_ntfit_cal cal;
        ar_err e2 = {{0}};
        int m = 0;
        ar_ntfit_pred *q2 = no ? calloc((size_t)s->nrecs, sizeof *q2) : NULL;
        if (q2 && !corpus_read(others, no, lg, &so, &e2) && !ar_ntfit_calibrate(so, p, 1, boot, &cal, &e2) &&
            !ar_ntfit_predict(s, p, &cal, q2, &m, &e2)) {
            for (int j = 0; j < m && j < n; j++) col[j] = q2[j].pred_s;
            have = 1;
        } else if (no && e2.msg[0]) {
            fprintf(stderr, "arlab fit: %s: leave-one-node-count-out: %s\n", lg->name, e2.msg);
        }
        free(q2);
        ar_nt_free(so);
    }
    return have;
}

static int fit_corpus(const char *manifest, int boot) {
    ar_err e = {{0}};
    static corpus_log logs[CORPUS_MAX];
    int nl = corpus_manifest(manifest, logs);
    if (nl < 0) return -nl;
    corpus_nodes(logs, nl);
    static const char *const bn[3] = {"< 64 KB", "64 KB-64 MB", ">= 64 MB"};
    printf("the corpus %s: median |rel err| of the time per log and size bucket\n", manifest);
    printf(
        "  nccl_model: NCCL's model on the preset; arlab_nccl: arlab's schedule for NCCL's choice (model_s of "
        "'nccl'); cal_in: calibrated on the log itself (the calibration's own error); cal_loso: calibrated on the log's other sizes (leave-one-size-out); cal_lonco: calibrated on "
        "the same platform's logs of other node counts (leave-one-node-count-out; '-' where the corpus has none)\n");
    printf("%-44s %-12s %-14s %5s %-12s %4s %10s %10s %10s %10s %10s\n", "log", "platform", "coll", "nodes", "bucket",
           "n", "nccl_model", "arlab_nccl", "cal_in", "cal_loso", "cal_lonco");
    static double all[5][3][CORPUS_MAX];
    int nall[5][3] = {{0}};
    for (int i = 0; i < nl; i++) {
        corpus_log *lg = &logs[i];
        ar_nt_set *s = NULL;
        ar_platform *p = NULL;
        const char *f1[1] = {lg->file};
        ar_status st = corpus_read(f1, 1, lg, &s, &e);
        if (!st) st = ar_platform_load(lg->fit, 0, &p, &e);
        int n = 0;
        ar_ntfit_pred *q = st ? NULL : calloc((size_t)s->nrecs, sizeof *q);
        double *col[5];
        for (int c = 0; c < 5; c++) col[c] = st ? NULL : calloc((size_t)s->nrecs + 1, sizeof *col[c]);
        ar_nt_record *buf = st ? NULL : calloc((size_t)s->nrecs + 1, sizeof *buf);
        if (!st && (!q || !col[0] || !col[1] || !col[2] || !col[3] || !col[4] || !buf))
            st = ar_fail(&e, AR_ENOMEM, "out of memory");
        if (!st) st = ar_ntfit_predict(s, p, NULL, q, &n, &e);
        for (int k = 0; !st && k < n; k++) col[0][k] = q[k].pred_s;
        if (!st) corpus_arlab_nccl(lg, p, q, n, col[1]);
        if (!st) corpus_cal_in(s, p, boot, n, col[2]);
        if (!st) corpus_loso(s, p, boot, q, n, buf, col[3]);
        int have_lonco = st ? 0 : corpus_lonco(logs, nl, i, s, p, boot, n, col[4]);
        if (st) {
            printf("%-44s %-12s not fitted: %s\n", lg->name, lg->fit, e.msg);
            e.msg[0] = 0;
        } else {
            double err[5][3][128];
            int nb[5][3];
            for (int c = 0; c < 5; c++) corpus_bucket(q, n, col[c], err[c], nb[c]);
            for (int b = 0; b < 3; b++) {
                if (!nb[0][b]) continue;
                printf("%-44s %-12s %-14s %5d %-12s %4d", lg->name, lg->fit, ar_nt_coll_name(lg->coll), lg->nodes,
                       bn[b], nb[0][b]);
                for (int c = 0; c < 5; c++) {
                    double md = median_of(err[c][b], nb[c][b]);
                    if ((c == 4 && !have_lonco) || !nb[c][b]) printf(" %10s", "-");
                    else {
                        printf(" %10.4f", md);
                        if (nall[c][b] < CORPUS_MAX) all[c][b][nall[c][b]++] = md;
                    }
                }
                printf("\n");
            }
        }
        for (int c = 0; c < 5; c++) free(col[c]);
        free(q), free(buf), ar_nt_free(s), ar_platform_free(p);
    }
    printf("\nmedian over the logs of their median |rel err| (logs with the column):\n");
    printf("%-12s %14s %14s %14s %14s %14s\n", "bucket", "nccl_model", "arlab_nccl", "cal_in", "cal_loso", "cal_lonco");
    for (int b = 0; b < 3; b++) {
        printf("%-12s", bn[b]);
        for (int c = 0; c < 5; c++) {
            int k = nall[c][b];
            if (k) printf(" %8.4f (%2d)", median_of(all[c][b], k), k);
            else printf(" %14s", "-");
        }
        printf("\n");
    }
    return 0;
}

/* The verb's options (the nccl-tests facts aside: cli_nt_take). */
typedef struct fit_args {
    const char **files; /* --from (owned array, argv's strings) */
    int nf, csv, nccl_version, boot;
    const char *plat, *out, *name, *reference;
    unsigned seed;
} fit_args;

static ar_status fit_parse(int argc, char **argv, const char *verb, fit_args *a) {
    memset(a, 0, sizeof *a);
    a->boot = 200;
    a->seed = 1;
    a->files = calloc((size_t)argc + 1, sizeof *a->files);
    if (!a->files) return AR_ENOMEM;
    for (int i = 0; i < argc; i++) {
        if (i == 0 && (!strcmp(argv[i], "fit") || !strcmp(argv[i], "calibrate"))) continue;
        if (!strcmp(argv[i], "--reference") && i + 1 < argc) a->reference = argv[++i];
        else if (!strcmp(argv[i], "--csv")) a->csv = 1;
        else if (!strcmp(argv[i], "--out") && i + 1 < argc) a->out = argv[++i];
        else if (!strcmp(argv[i], "--name") && i + 1 < argc) a->name = argv[++i];
        else if (!strcmp(argv[i], "--platform") && i + 1 < argc) a->plat = argv[++i];
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc) a->seed = (unsigned)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--boot") && i + 1 < argc) a->boot = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--nccl-version") && i + 1 < argc) {
            a->nccl_version = ar_nccl_version_parse(argv[++i]);
            if (a->nccl_version < 0) {
                fprintf(stderr,
                        "arlab %s: --nccl-version: \"%s\" is not a modelled NCCL release (2.18, 2.19, 2.23 to 2.30)\n",
                        verb, argv[i]);
                return AR_EINVAL;
            }
        } else if (!strcmp(argv[i], "--from")) {
            while (i + 1 < argc && strncmp(argv[i + 1], "--", 2)) a->files[a->nf++] = argv[++i];
        } else {
            fprintf(stderr, "arlab fit: unknown or incomplete option \"%s\"\n", argv[i]);
            return AR_EINVAL;
        }
    }
    return AR_OK;
}

/* The fit's sections: the scales, the per algorithm/protocol efficiencies, the residuals, the size
 * buckets, the leave-one-out errors and the per-class fits ("identified" as the calibration decides). */
static void print_fit(const ar_nt_set *s, const ar_ntfit_res *rr, const ar_ntfit_cal *calp, const char *plat,
                      int nccl_version, unsigned seed) {
    const ar_ntfit_res r = *rr;
    const ar_ntfit_cal cal = *calp;
    printf("fit of %s to %d %s records (NCCL model %s, weights 1/t, %d bootstrap resamples, seed %u)\n", plat, r.n,
           ar_nt_coll_name(s->runs[0].coll), ar_nccl_version_name(nccl_version), r.nboot, seed);
    printf("%-16s %10s %22s  %s\n", "parameter", "value", "95% interval", "identified");
    /* identified: as the calibration below decides it (what it writes), so that both sections agree */
    int li = cal_any_identified(&cal, 0), bi = cal_any_identified(&cal, 1);
    printf("%-16s %10.4f [%9.4f, %9.4f]  %s\n", "latency_scale", r.lat_scale, r.lat_lo, r.lat_hi,
           li ? "yes" : "NO (the calibration keeps every latency factor at 1)");
    printf("%-16s %10.4f [%9.4f, %9.4f]  %s\n", "bandwidth_scale", r.bw_scale, r.bw_lo, r.bw_hi,
           bi ? "yes" : "NO (the calibration keeps every bandwidth factor at 1)");
    printf("\nper algorithm/protocol bandwidth efficiency (shared latency scale %.4f [%.4f, %.4f]):\n", r.group_lat,
           r.group_lat_lo, r.group_lat_hi);
    printf("%-8s %-7s %4s %7s %10s %22s  %s\n", "algo", "proto", "n", "forced", "efficiency", "95% interval",
           "identified");
    for (int g = 0; g < r.ngroups; g++) {
        int ci = cal_bw_identified(&cal, r.group[g].algo, r.group[g].proto);
        printf("%-8s %-7s %4d %7s %10.4f [%9.4f, %9.4f]  %s\n", r.group[g].algo, r.group[g].proto, r.group[g].n,
               r.group[g].forced ? "yes" : "no", r.group[g].eff, r.group[g].lo, r.group[g].hi,
               ci > 0    ? "yes"
               : ci == 0 ? "NO (the calibration keeps its bandwidth at 1: too few sizes, no bandwidth term, or "
                           "not separable)"
                         : "NO (the calibrated model does not choose it)");
    }
    printf("\nresiduals (pred-meas)/meas:\n");
    int k = 0, zero = 0;
    char where[300];
    for (int i = 0; i < s->nrecs && k < r.n; i++) {
        if (!s->recs[i].size_bytes) { /* left out of the fit (ntfit.h) */
            zero++;
            continue;
        }
        printf("  %-40s %12llu B %+8.4f\n", ar_nt_where(s, &s->recs[i], where, sizeof where),
               (unsigned long long)s->recs[i].size_bytes, r.rel_err[k++]);
    }
    if (zero)
        printf("  (%d row%s of 0 B left out: NCCL runs nothing for them, and compare does not model them)\n", zero,
               zero == 1 ? "" : "s");
    static const char *bn[4] = {"< 1 MB", "1-64 MB", "64-512 MB", ">= 512 MB"};
    printf("\n%-10s %4s %10s %10s\n", "bucket", "n", "median|e|", "max|e|");
    for (int b = 0; b < 4; b++)
        printf("%-10s %4d %10.4f %10.4f\n", bn[b], r.bucket_n[b], r.bucket_med[b], r.bucket_max[b]);
    printf("\nleave-one-size-out prediction error: median %.4f max %.4f\n", r.loso_med, r.loso_max);
    if (r.lonco_n) {
        printf("leave-one-node-count-out prediction error (fit on the other node counts):\n");
        printf("%-10s %4s %10s %10s\n", "held out", "n", "median|e|", "max|e|");
        for (int q = 0; q < r.lonco_n; q++)
            printf("%2d node%s   %4d %10.4f %10.4f\n", r.lonco_nodes[q], r.lonco_nodes[q] == 1 ? " " : "s",
                   r.lonco_cnt[q], r.lonco_med[q], r.lonco_max[q]);
    } else {
        printf("leave-one-node-count-out: not run (the records are all on one node count)\n");
    }
    if (r.have_classes) {
        printf("\nper node class (separate fits, no efficiencies; the calibration below is the joint fit):\n");
        static const char *const cn[2] = {"intra-node (1-node runs)", "inter-node (multi-node runs)"};
        for (int c = 0; c < 2; c++)
            printf("  %-28s n %3d  latency %.4f [%.4f, %.4f]%s  bandwidth %.4f [%.4f, %.4f]%s\n", cn[c], r.cls[c].n,
                   r.cls[c].lat, r.cls[c].lat_lo, r.cls[c].lat_hi, r.cls[c].lat_ident ? "" : " NOT identified",
                   r.cls[c].bw, r.cls[c].bw_lo, r.cls[c].bw_hi, r.cls[c].bw_ident ? "" : " NOT identified");
    }
}

int cmd_fit(int argc, char **argv) {
    const char *verb = argc > 0 && !strcmp(argv[0], "calibrate") ? "calibrate" : "fit";
    cli_nt_facts facts;
    if (cli_nt_take(&argc, argv, &facts, verb, 1) != AR_OK) return AR_EINVAL;
    fit_args a;
    ar_status st = fit_parse(argc, argv, verb, &a);
    if (st != AR_OK) {
        free(a.files);
        return st;
    }
    const char *plat = a.plat, *reference = a.reference;
    if (reference || a.csv) {
        free(a.files);
        if (!reference || plat || a.nf || a.out || facts.coll_arg || facts.ranks || facts.algo || facts.proto) {
            fprintf(stderr, "arlab fit: --reference CORPUS.csv [--csv] takes no --from, --platform, --out, --coll, "
                            "--ranks, --nccl-algo or --nccl-proto\n");
            return AR_EINVAL;
        }
        size_t rl = strlen(reference);
        if (rl > 4 && !strcmp(reference + rl - 4, ".tsv")) {
            if (a.csv) {
                fprintf(stderr, "arlab fit: --reference %s: a corpus manifest prints a table only (no --csv)\n",
                        reference);
                return AR_EINVAL;
            }
            return fit_corpus(reference, a.boot);
        }
        return fit_reference(reference, a.csv);
    }
    if (!plat || a.nf == 0 || a.boot < 0 || a.boot > 100000) {
        fprintf(stderr,
                "arlab fit: usage: fit|calibrate --from FILE... --platform P [--coll C] [--ranks N] "
                "[--nccl-algo A] [--nccl-proto P] [--nccl-version V] [--seed N] [--boot B] [--out CAL.json [--name "
                "NAME]] | fit "
                "--reference CORPUS.csv [--csv]\n");
        free(a.files);
        return AR_EINVAL;
    }
    ar_err e = {{0}};
    ar_nt_set *s = NULL;
    ar_platform *p = NULL;
    ar_ntfit_res r;
    ar_ntfit_cal cal;
    ar_ntfit_msg msg;
    ar_nt_opts nto;
    cli_nt_opts(&facts, &nto);
    st = ar_nt_read_files(a.files, a.nf, &nto, &s, &e);
    if (!st) st = fit_select(s, &facts, verb, &e);
    if (!st) st = ar_platform_load(plat, 0, &p, &e);
    if (!st) p->nccl_version = a.nccl_version;
    if (!st) note_platform_ranks(s, p, verb);
    if (!st) st = ar_ntfit_fit(s, p, a.seed, a.boot, &r, &e);
    if (!st) {
        st = ar_ntfit_calibrate(s, p, a.seed, a.boot, &cal, &e);
        if (!st) st = ar_ntfit_msg_fit(s, p, a.seed, a.boot, &msg, &e);
        if (st) ar_ntfit_free(&r);
    }
    if (st) {
        fprintf(stderr, "arlab fit: %s\n", e.msg);
    } else {
        print_fit(s, &r, &cal, plat, a.nccl_version, a.seed);
        print_cal(&cal);
        double msg_g = msg_g_kept(p, msg.nodes_hi);
        print_msg(&msg, msg_g);
        st = identify_and_write(s, p, &r, &cal, &msg, msg_g, plat, a.out, a.name, &e);
        if (st) fprintf(stderr, "arlab calibrate: %s\n", e.msg);
        ar_ntfit_free(&r);
    }
    ar_nt_free(s);
    ar_platform_free(p);
    free(a.files);
    return st ? (int)st : 0;
}
