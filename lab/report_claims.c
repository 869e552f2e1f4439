/* The papers' headline claims next to arlab's numbers (report.h). Each claim
 * is computed from the rows of the sweep that reproduces the figure; the
 * explanation says whether arlab agrees and, where it does not, which
 * assumption of the model (or of the paper's setup) makes the difference. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

const sweep_row *report_find(const sweep_rows *rows, const char *algo, const char *platform, int ranks,
                             double elems, const char *train) {
    for (int i = 0; i < rows->n; i++) {
        const sweep_row *r = &rows->r[i];
        if (strcmp(r->f[SC_STATUS], "ok") != 0) continue;
        if (algo && strcmp(r->f[SC_ALGO], algo) != 0) continue;
        if (platform && strcmp(r->f[SC_PLATFORM], platform) != 0) continue;
        if (ranks > 0 && atoi(r->f[SC_RANKS]) != ranks) continue;
        if (elems > 0 && strtod(r->f[SC_ELEMS], NULL) != elems) continue;
        if (train && strcmp(r->f[SC_TRAIN], train) != 0) continue;
        return r;
    }
    return NULL;
}

double report_num(const sweep_row *r, int col) {
    if (!r || !r->f[col] || !*r->f[col]) return NAN;
    char *end = NULL;
    double v = strtod(r->f[col], &end);
    return end && *end == 0 ? v : NAN;
}

/* Largest elems among ok rows (the right end of a size sweep). */
static double max_elems(const sweep_rows *rows) {
    double m = 0;
    for (int i = 0; i < rows->n; i++)
        if (!strcmp(rows->r[i].f[SC_STATUS], "ok")) {
            double v = strtod(rows->r[i].f[SC_ELEMS], NULL);
            if (v > m) m = v;
        }
    return m;
}

static const char *backend_of(const sweep_rows *rows) {
    for (int i = 0; i < rows->n; i++)
        if (!strcmp(rows->r[i].f[SC_STATUS], "ok")) return rows->r[i].f[SC_BACKEND];
    return "model";
}

static void put(report_claim *c, const char *what, const char *paper, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void put(report_claim *c, const char *what, const char *paper, const char *fmt, ...) {
    memset(c, 0, sizeof *c);
    snprintf(c->what, sizeof c->what, "%s", what);
    snprintf(c->paper, sizeof c->paper, "%s", paper);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->arlab, sizeof c->arlab, fmt, ap);
    va_end(ap);
    if (strstr(c->arlab, "nan") || strstr(c->arlab, "inf")) snprintf(c->arlab, sizeof c->arlab, "n/a (rows missing)");
}

static void why(report_claim *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void why(report_claim *c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->why, sizeof c->why, fmt, ap);
    va_end(ap);
}

static int claims_bc5(const sweep_rows *rows, report_claim *c, int max) {
    int n = 0;
    double top = max_elems(rows);
    const char *plat[2] = {"bc-intel-2x4", "bc-ibm-2x4"};
    for (int k = 0; k < 2 && n < max; k++) {
        const sweep_row *ring = report_find(rows, "ring", plat[k], -1, top, NULL);
        const sweep_row *blc = report_find(rows, "blueconnect", plat[k], -1, top, NULL);
        double s = report_num(ring, SC_TIME) / report_num(blc, SC_TIME);
        char what[200];
        snprintf(what, sizeof what, "BLC speed-up over NCCL2, %s, %.3g FP32s", plat[k], top);
        put(&c[n], what, "about 1.6x", "%.2fx (%.1f ms vs %.1f ms)", s, 1e3 * report_num(blc, SC_TIME),
            1e3 * report_num(ring, SC_TIME));
        if (k == 0)
            why(&c[n], "%s: BlueConnect keeps the 4-GPU stage on PCIe (12 GB/s) and sends N/4 per GPU, four flows "
                       "sharing each node's 10 Gbps port, across Ethernet (stage cost N/1.25 GB/s); the ring pushes "
                       "2(P-1)/P N = 1.75 N through the same port, so the model gives about 1.5x before any "
                       "implementation effect.",
                fabs(s - 1.6) / 1.6 < 0.15 ? "Agrees within 15 %" : "Differs");
        else
            why(&c[n], "%s: with NVLink at 40 GB/s per GPU and one 100 Gbps port per node, both algorithms are "
                       "bound by that port (ring 1.75 N, BLC N across it) and BLC adds an NVLink stage of 1.5 N / "
                       "40 GB/s, so the alpha-beta model gives about 1.2x. The paper's 1.6x suggests NCCL 2's ring ran "
                       "below the port rate on that system (an implementation effect the model does not "
                       "include); the IBM platform's NVLink and port numbers are our assumptions (preset notes).",
                fabs(s - 1.6) / 1.6 < 0.15 ? "Agrees within 15 %" : "Smaller than the paper's");
        n++;
    }
    if (n < max) {
        const sweep_row *a = report_find(rows, "ring", plat[0], -1, top, NULL);
        const sweep_row *b = report_find(rows, "ring", plat[1], -1, top, NULL);
        const sweep_row *a2 = report_find(rows, "blueconnect", plat[0], -1, top, NULL);
        const sweep_row *b2 = report_find(rows, "blueconnect", plat[1], -1, top, NULL);
        put(&c[n], "IBM system vs Intel system (same algorithm, largest size)", "about 10x faster",
            "NCCL2 %.1fx, BLC %.1fx", report_num(a, SC_TIME) / report_num(b, SC_TIME),
            report_num(a2, SC_TIME) / report_num(b2, SC_TIME));
        why(&c[n], "Both bottlenecks scale by the inter-node link: 100 Gbps InfiniBand vs 10 Gbps Ethernet is 10x, "
                   "and the intra-node links (NVLink 40 GB/s vs PCIe 12 GB/s) only matter for BLC's first stage.");
        n++;
    }
    return n;
}

static int claims_bc6(const sweep_rows *rows, report_claim *c, int max) {
    int n = 0;
    int P = 0;
    for (int i = 0; i < rows->n; i++) {
        int r = atoi(rows->r[i].f[SC_RANKS]);
        if (r > P && !strcmp(rows->r[i].f[SC_STATUS], "ok")) P = r;
    }
    const sweep_row *blc = report_find(rows, "blueconnect", NULL, P, 0, "fp32");
    const sweep_row *gloo = report_find(rows, "two-level", NULL, P, 0, "fp32");
    const sweep_row *ring = report_find(rows, "ring", NULL, P, 0, "fp32");
    const sweep_row *blc16 = report_find(rows, "blueconnect", NULL, P, 0, "fp16");
    const sweep_row *gloo16 = report_find(rows, "two-level", NULL, P, 0, "fp16");
    double ob = report_num(blc, SC_OVERHEAD) * 1e3, og = report_num(gloo, SC_OVERHEAD) * 1e3,
           orr = report_num(ring, SC_OVERHEAD) * 1e3;
    char what[200];
    if (n < max) {
        snprintf(what, sizeof what, "Communication overhead per iteration on %d GPUs: BLC / GLOO", P);
        put(&c[n], what, "31.0 ms / 58.0 ms (1.87x; about 2x without 5 ms of jitter)", "%.1f ms / %.1f ms (%.2fx)", ob,
            og, og / ob);
        why(&c[n], "arlab prices only the all-reduce of 100 MB on the assumed links (1 us per hop, no jitter, no "
                   "Caffe2 interface cost, no memory copies), which the paper's overhead includes (5-10 ms of "
                   "jitter alone). Two-level (reduce to a master GPU, all-reduce among 48 masters, broadcast) "
                   "costs more than BLC because its reduce and broadcast move the whole buffer twice over "
                   "NVLink and the masters' ring runs at one flow per port; the gap is smaller than the paper's "
                   "because GLOO's real reduce/broadcast (NCCL plus ib verbs through host memory) is slower than "
                   "Eq. 7 assumes.");
        n++;
    }
    if (n < max) {
        snprintf(what, sizeof what, "Ring on %d GPUs", P);
        put(&c[n], what, "worst: wastes 48 % of the GPUs (efficiency 0.52; overhead about 150 ms)",
            "overhead %.1f ms, efficiency %.2f", orr, report_num(ring, SC_EFF));
        why(&c[n], "Not reproduced. arlab's ring is the bandwidth-optimal NCCL-like ring on the same links: with one "
                   "100 Gbps port per node, ring and BLC both move about 2N through every node port, and the ring's "
                   "2(P-1) = %d steps cost only %d x alpha at 1 us per hop, so the model puts the ring close to BLC "
                   "(here %s). The paper's Ring (Baidu's allreduce over MPI, 'Ring does not use NCCL') pays "
                   "per-step host staging and latency that an alpha-beta model with these link numbers does not "
                   "have; an alpha of about 0.3 ms per step would be needed to reach its 150 ms.",
            2 * (P - 1), 2 * (P - 1), orr < ob ? "even slightly faster, since its NVLink hops are pipelined" : "slower");
        n++;
    }
    if (n < max) {
        snprintf(what, sizeof what, "Throughput of BLC over GLOO / over Ring on %d GPUs", P);
        put(&c[n], what, "+11 % / +45 %", "%+.1f %% / %+.1f %%",
            100 * (report_num(blc, SC_IMAGES) / report_num(gloo, SC_IMAGES) - 1),
            100 * (report_num(blc, SC_IMAGES) / report_num(ring, SC_IMAGES) - 1));
        why(&c[n], "Throughput = 32 x P / (163.0 ms + overhead) with no overlap, as the paper measures it; the gaps "
                   "follow the overheads above (arlab's overheads are 10-20 %% of the iteration where the "
                   "paper's are 20-90 %%).");
        n++;
    }
    if (n < max) {
        put(&c[n], "FP16 projection: throughput gap BLC over GLOO", "grows from 11 % to 22 %",
            "%+.1f %% (FP32 %+.1f %%)", 100 * (report_num(blc16, SC_IMAGES) / report_num(gloo16, SC_IMAGES) - 1),
            100 * (report_num(blc, SC_IMAGES) / report_num(gloo, SC_IMAGES) - 1));
        why(&c[n], "Same projection as the paper (compute / 4.8, communication / 2): communication becomes a larger "
                   "share of the iteration, so the gap widens in arlab too, by about the same factor.");
        n++;
    }
    if (n < max) {
        const sweep_row *any = report_find(rows, NULL, NULL, -1, 0, "fp32");
        double c1 = report_num(any, SC_COMPUTE);
        put(&c[n], "Single-GPU baseline", "163.0 ms per iteration, 196.3 images/s", "%.1f ms, %.1f images/s",
            1e3 * c1, 32 / c1);
        why(&c[n], "Input of the training model (train.compute = 163ms, batch 32 per GPU).");
        n++;
    }
    return n;
}

/* FR's time over its Eq. 6 ideal, over rows of learners [lo_r, hi_r], at top. */
static void fr_over_ideal(const sweep_rows *rows, int lo_r, int hi_r, int symmetric, double top, double *mn,
                          double *mx) {
    *mn = INFINITY;
    *mx = -INFINITY;
    for (int r = lo_r; r <= hi_r; r++) {
        int mach = r <= 8 ? 2 : 3;
        if ((r % mach == 0) != symmetric) continue;
        const sweep_row *fr = report_find(rows, "flexreduce", NULL, r, top, NULL);
        double q = report_num(fr, SC_TIME) / report_num(fr, SC_MODEL);
        if (isfinite(q)) {
            *mn = fmin(*mn, q);
            *mx = fmax(*mx, q);
        }
    }
}

static int claims_fr4(const sweep_rows *rows, report_claim *c, int max) {
    int n = 0;
    double top = max_elems(rows);
    const char *bk = backend_of(rows);
    for (int mach = 2; mach <= 3 && n < max; mach++) {
        double lo = INFINITY, hi = -INFINITY, ilo = INFINITY, ihi = -INFINITY;
        char sym[128] = "", asym[128] = "";
        int lo_r = mach == 2 ? 4 : 9, hi_r = mach == 2 ? 8 : 12;
        for (int r = lo_r; r <= hi_r; r++) {
            const sweep_row *fr = report_find(rows, "flexreduce", NULL, r, top, NULL);
            const sweep_row *ring = report_find(rows, "ring", NULL, r, top, NULL);
            double sv = report_num(fr, SC_SAVING);
            double ideal = 1 - report_num(fr, SC_MODEL) / report_num(ring, SC_TIME);
            if (isfinite(sv)) {
                lo = fmin(lo, sv);
                hi = fmax(hi, sv);
                char *dst = r % mach == 0 ? sym : asym;
                size_t l = strlen(dst);
                snprintf(dst + l, 128 - l, "%s%d: %.0f %%", l ? ", " : "", r, 100 * sv);
            }
            if (isfinite(ideal)) {
                ilo = fmin(ilo, ideal);
                ihi = fmax(ihi, ideal);
            }
        }
        char what[200];
        snprintf(what, sizeof what, "FR saving over Nccl, %d machines (%d-%d learners), %.3g items", mach, lo_r, hi_r,
                 top);
        put(&c[n], what, mach == 2 ? "32-42 %" : "21-25 %", "%.0f..%.0f %% (symmetric %s; asymmetric %s); Eq. 6: %.0f..%.0f %%",
            100 * lo, 100 * hi, sym, asym, 100 * ilo, 100 * ihi);
        double amn, amx;
        fr_over_ideal(rows, lo_r, hi_r, 0, top, &amn, &amx);
        char asym_txt[400];
        if (!isfinite(amx))
            snprintf(asym_txt, sizeof asym_txt, "no asymmetric split was computed");
        else if (amx < 1.01)
            snprintf(asym_txt, sizeof asym_txt, "on the asymmetric splits the %s time meets the Eq. 6 ideal", bk);
        else
            snprintf(asym_txt, sizeof asym_txt,
                     "on the asymmetric splits the %s time is %.0f-%.0f %% above the Eq. 6 ideal (%s)", bk,
                     100 * (amn - 1), 100 * (amx - 1),
                     strcmp(bk, "model") ? "the uneven calls of one level share the Ethernet port unequally"
                                         : "the cost walk runs the uneven calls of a level in lockstep rounds; the "
                                           "simulator overlaps them");
        why(&c[n],
            "Smaller than the paper's. In the alpha-beta model with one 10 Gbps port per machine the ring sends "
            "2(P-1)/P N through each port and FR (= BlueConnect on symmetric splits, Eq. 7-11) 2(m-1)/m N for m "
            "machines, plus an intra-machine stage on PCIe: %s. The paper's larger savings suggest its Nccl ring "
            "ran further below the port rate than FR's reduce/broadcast calls did (an implementation effect); "
            "%s. The ordering and the trend (two machines save more than three) agree.",
            mach == 2 ? "about 25 % at 2+2 and 32 % at 4+4 (the paper's lower end)" : "about 17 % at 4+4+4",
            asym_txt);
        n++;
    }
    if (n < max) {
        double amax = -INFINITY, bmin = INFINITY, bmax = -INFINITY;
        char over[160] = "";
        for (int i = 0; i < rows->n; i++) {
            const sweep_row *r = &rows->r[i];
            if (strcmp(r->f[SC_ALGO], "flexreduce") || strcmp(r->f[SC_STATUS], "ok")) continue;
            double a = report_num(r, SC_CALLS_AVG), b = report_num(r, SC_CALLS_BOUND);
            if (isfinite(a)) {
                if (a > 1.5 && !strstr(over, r->f[SC_PLATFORM])) {
                    size_t l = strlen(over);
                    snprintf(over + l, sizeof over - l, "%s%s (%.2f)", l ? ", " : "", r->f[SC_PLATFORM], a);
                }
                amax = fmax(amax, a);
            }
            if (isfinite(b)) {
                bmin = fmin(bmin, b);
                bmax = fmax(bmax, b);
            }
        }
        put(&c[n], "Reduce calls per learner (top level): mean, and the Eq. 12 bound",
            "mean at most 1.5 in every case; bound 3 or 4", "mean at most %.2f; bound %.0f..%.0f", amax, bmin, bmax);
        if (amax <= 1.5)
            why(&c[n], "Agrees: the mean stays at or below 1.5 and the bound is 3 on two machines, 4 on three.");
        else
            why(&c[n], "The bound agrees (3 on two machines, 4 on three). The mean exceeds 1.5 on %s: with one learner "
                       "less on one machine every learner of that machine takes a next range spanning two current "
                       "holders (our split puts the extra learner on the first machine; the paper does not say "
                       "which machine had more, and its Fig. 3 tie-breaking may differ).", over);
        n++;
    }
    if (n < max) {
        double lo = INFINITY, hi = -INFINITY;
        for (int i = 0; i < rows->n; i++) {
            const sweep_row *r = &rows->r[i];
            if (strcmp(r->f[SC_ALGO], "flexreduce") || strcmp(r->f[SC_STATUS], "ok")) continue;
            double q = report_num(r, SC_MODEL) / report_num(r, SC_TIME);
            if (isfinite(q)) {
                lo = fmin(lo, q);
                hi = fmax(hi, q);
            }
        }
        put(&c[n], "FR latency against the ideal (Eq. 6 time / achieved time)", "90-99 % of the theoretical",
            "%.0f..%.0f %%", 100 * lo, 100 * hi);
        why(&c[n], "100 %% on symmetric splits, where the %s time and Eq. 6 coincide; below it only where the "
                   "uneven calls of a level contend for a machine's port (three machines, 10 and 11 learners). The "
                   "paper's shortfall came from implementation details (more reduce calls).",
            backend_of(rows));
        n++;
    }
    return n;
}

static int claims_wang(const sweep_rows *rows, report_claim *c, int max) {
    int n = 0;
    const char *small[2] = {"p3.8xlarge", "p2.8xlarge"}, *big[2] = {"p3.16xlarge", "p2.16xlarge"};
    const char *inst[2] = {"P3", "P2"};
    for (int k = 0; k < 2 && n < max; k++) {
        const sweep_row *ps = report_find(rows, "ps", small[k], -1, 0, NULL);
        const sweep_row *ring = report_find(rows, "ring", small[k], -1, 0, NULL);
        const sweep_row *tp = report_find(rows, "treepack", small[k], -1, 0, NULL);
        double tps = report_num(ps, SC_TIME), ttp = report_num(tp, SC_TIME), tr = report_num(ring, SC_TIME);
        char what[200];
        snprintf(what, sizeof what, "%s with %s GPUs (%s): PS, proposed, NCCL", inst[k], k ? "8" : "4", small[k]);
        put(&c[n], what, "proposed as good as PS; both beat NCCL", "PS %.1f ms, proposed %.1f ms, NCCL %.1f ms",
            1e3 * tps, 1e3 * ttp, 1e3 * tr);
        int agree = ttp <= 1.1 * tps && ttp < 0.95 * tr && tps < 0.95 * tr;
        if (agree)
            why(&c[n], "Agrees: every GPU pair of the NVLink quad has its own links, so the sharded parameter server "
                       "and the packed trees use all of them at once (C(G) = 1/3 gradient per link), while the ring "
                       "uses a third of them.");
        else if (k == 1)
            why(&c[n], "Partly: the packing beats PS, as in the paper, but not the ring. On a PCIe switch tree whose "
                       "switches cannot aggregate, the LP optimum is C(G) = 7/4 gradients per link, exactly the "
                       "ring's 2(P-1)/P: no packing moves less over the card links than a ring that crosses each "
                       "link once per direction. The paper's NCCL (NCCL 1 on K80, via MXNet) ran below the PCIe rate; "
                       "arlab's ring is priced at it. PS pushes every GPU's shards through its card's uplink at the same time.");
        else
            why(&c[n], "Differs: see the rows; the ordering depends on the assumed NVLink counts (preset notes).");
        n++;
    }
    for (int k = 0; k < 2 && n < max; k++) {
        const sweep_row *t1 = report_find(rows, "treepack", small[k], -1, 0, NULL);
        const sweep_row *t2 = report_find(rows, "treepack", big[k], -1, 0, NULL);
        const sweep_row *p1 = report_find(rows, "ps", small[k], -1, 0, NULL);
        const sweep_row *p2 = report_find(rows, "ps", big[k], -1, 0, NULL);
        /* speed = 1 / time for the same gradient; change when doubling the GPUs */
        double r_tp = report_num(t1, SC_TIME) / report_num(t2, SC_TIME) - 1;
        double r_ps = report_num(p1, SC_TIME) / report_num(p2, SC_TIME) - 1;
        char what[200];
        snprintf(what, sizeof what, "%s: adding GPUs (%s to %s), change in synchronisation speed", inst[k], small[k],
                 big[k]);
        put(&c[n], what, k == 0 ? "proposed -13 %; PS saturates" : "proposed -20 %; PS saturates",
            "proposed %+.0f %%, PS %+.0f %%", 100 * r_tp, 100 * r_ps);
        why(&c[n], "Speed = 1 / time to synchronise the same 240 MB. As in the paper, PS saturates (its all-to-all "
                   "puts P-1 flows on the bottleneck: %s) while the packing holds up. %s",
            k == 0 ? "the NVLink pairs of the hybrid cube-mesh that carry two hops" : "the bridge between the halves",
            r_tp > 0 ? "In arlab the packing even gains: the 8-GPU cube-mesh has more links per GPU (C(G) = 7/24 vs "
                       "1/3), and the model has no per-tree overheads, which the paper's measured drop includes."
                     : "The packing's loss is about the ratio of the LP optima (C(G) 15/8 vs 7/4 on P2); the paper's "
                       "larger drop includes overheads of its MXNet implementation.");
        n++;
    }
    return n;
}

static int claims_mvs(const sweep_rows *rows, report_claim *c, int max) {
    int n = 0, total = 0, walk_ok = 0, closed_n = 0, closed_ok = 0;
    for (int i = 0; i < rows->n; i++) {
        const sweep_row *r = &rows->r[i];
        if (strcmp(r->f[SC_STATUS], "ok")) continue;
        total++;
        double t = report_num(r, SC_TIME), w = report_num(r, SC_WALK), cl = report_num(r, SC_CLOSED);
        if (isfinite(t) && isfinite(w) && fabs(t / w - 1) < 0.01) walk_ok++;
        if (isfinite(t) && isfinite(cl)) {
            closed_n++;
            if (fabs(t / cl - 1) < 0.01) closed_ok++;
        }
    }
    const char *bk = backend_of(rows);
    if (n < max) {
        put(&c[n], "Simulator and cost walk of the same schedule agree", "DESIGN.md: to rounding error where the "
            "model's assumptions hold", "%d of %d points within 1 %% (%s backend)", walk_ok, total, bk);
        why(&c[n], "The cost walk and the simulator price the same transfers on the same routes. They part where "
                   "the walk's assumptions break: a round's flows share a link equally in the walk but max-min "
                   "in the simulator (a flow limited elsewhere leaves capacity to the others: PS and halving-"
                   "doubling at 64 KB, tree packing), and the walk runs concurrent ops in lockstep rounds while "
                   "the simulator lets uneven ones overlap (FlexReduce on asymmetric trees).");
        n++;
    }
    if (n < max) {
        put(&c[n], "Simulator and the papers' closed forms", "equal on the symmetric hierarchies the formulas assume",
            "%d of %d points with a closed form within 1 %%", closed_ok, closed_n);
        why(&c[n], "Ring, BlueConnect and FlexReduce meet their closed forms (Eq. 6, 9, 6) on the trees they were "
                   "derived for. The closed forms of the classic algorithms take one alpha and the narrowest link "
                   "for every step: where a step's flows share a link (recursive halving/doubling and the "
                   "parameter server across a tree's uplinks or a torus) the simulator is slower, where a step "
                   "stays on fast links (binomial and two-level inside a machine) it is faster. The table below "
                   "lists every point that parts, with its cause.");
        n++;
    }
    return n;
}

static int claims_svr(const sweep_rows *rows, report_claim *c, int max) {
    int n = 0, ok = 0, miss = 0;
    for (int i = 0; i < rows->n; i++) {
        ok += !strcmp(rows->r[i].f[SC_STATUS], "ok");
        miss += !strcmp(rows->r[i].f[SC_STATUS], "missing");
    }
    if (n < max) {
        put(&c[n], "Measured points imported from the real backend", "-", "%d measured, %d without measurement", ok,
            miss);
        why(&c[n], "%s", ok ? "See the figure: points on the diagonal agree."
                            : "No GPU results were found under out/real/; run `arlab real` on a GPU machine "
                              "(mpirun -np N arlab real ... --out out/real/NAME.csv) and re-run the sweep.");
        n++;
    }
    return n;
}

int report_claims(const char *name, const sweep_rows *rows, report_claim *out, int max) {
    if (!strcmp(name, "bc-fig5")) return claims_bc5(rows, out, max);
    if (!strcmp(name, "bc-fig6")) return claims_bc6(rows, out, max);
    if (!strcmp(name, "fr-fig4")) return claims_fr4(rows, out, max);
    if (!strcmp(name, "wang-fig3")) return claims_wang(rows, out, max);
    if (!strcmp(name, "model-vs-sim")) return claims_mvs(rows, out, max);
    if (!strcmp(name, "sim-vs-real")) return claims_svr(rows, out, max);
    return 0;
}
