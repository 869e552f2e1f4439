/* Spanning-tree packing in the simulator, on P3.16xlarge.
 *
 * The prediction (algos/treepack_model.c), from the LP's streams as the
 * planner rounds them to K equal units: both phases run Dmax + c - 1 rounds
 * (core/lower.c: the member at depth d sends chunk j in reduce round
 * D_s - d + j, its parent sends it down in broadcast round d - 1 + j), and
 *     T = sum over the 2 phases and their rounds t of
 *         max over active tree edges of [ alpha + B_a(t) / cap_a ],
 * B_a(t) = the bytes the streams' active edges put on directed link a in
 * round t (N/(K c) per unit). Every round of the steady state costs
 * alpha + C_dir N / (c bw_ref); the fill and drain rounds less, so
 *     2 C_dir N / bw_ref <= T <= 2 (Dmax + c - 1) (alpha + C_dir N / (c bw_ref)).
 * The simulator runs each op's rounds in sequence but lets ops run ahead of
 * each other (no lockstep), so it is a little faster than T in the fill; with
 * c = 128 chunks (and K = 128 units) that difference is below 1 %.
 * Checks, for 1 GB (250M f32): |sim - T| <= 2 % T; sim within the bounds;
 * sim(treepack) < sim(ring) and < sim(ps); and --check (real data) exact on
 * P3.16xlarge and P2.16xlarge with small messages. The numbers are printed. */
#include "algos/treepack.h"
#include "sim_util.h"

#define UNITS 128
#define CHUNKS 128

int main(void) {
    const char *plat = "p3.16xlarge";
    const uint64_t bytes = 1000000000ull;
    char spec[64];
    snprintf(spec, sizeof spec, "treepack:chunks=%d,units=%d", CHUNKS, UNITS);
    /* the LP's prediction */
    ar_platform *p = sim_platform(plat);
    T_CHECK(p != NULL, "platform %s", plat);
    if (!p) return t_done("sim_treepack");
    ar_treepack_result r;
    ar_err e = {{0}};
    T_OK(ar_treepack_solve(p, NULL, &r, &e), e);
    int per[1024];
    double cdir = r.nstreams <= 1024 ? ar_treepack_units(&r, UNITS, per) : NAN;
    ar_tp_model_stream ms[1024];
    int ns = 0;
    for (int i = 0; i < r.nstreams && i < 1024; i++)
        if (per[i]) ms[ns++] = (ar_tp_model_stream){r.streams[i].parent, (double)per[i] / UNITS};
    ar_model_result m;
    T_OK(ar_model_treepack(p, ms, ns, (double)bytes, CHUNKS, &m, &e), e);
    double S = (double)bytes / r.bw_ref_Bps, alpha = p->links[0].lat_s;
    double lo = ar_model_treepack_lower(cdir * S), up = ar_model_treepack_upper(r.max_height, CHUNKS, alpha, cdir * S);
    printf("%s, %.0f bytes: C(G) = %lld/%lld, C(G) S = %.4f ms; C_dir = %.6g (LP), %.6g with %d units; Dmax = %d, "
           "c = %d, alpha = %g s\n",
           plat, (double)bytes, (long long)r.C_num, (long long)r.C_den, r.C * S * 1e3, r.C_dir, cdir, UNITS,
           r.max_height, CHUNKS, alpha);
    printf("  predicted T = %.4f ms (closed form per round), bounds [%.4f, %.4f] ms\n", m.time_s * 1e3, lo * 1e3,
           up * 1e3);
    /* the simulator */
    sim_run tp, ring, ps;
    double t_tp = NAN, t_ring = NAN, t_ps = NAN;
    if (sim_run_case(&tp, plat, spec, bytes, NULL) == 0 && tp.st == AR_OK) t_tp = tp.r.time_s;
    if (sim_run_case(&ring, plat, "ring", bytes, NULL) == 0 && ring.st == AR_OK) t_ring = ring.r.time_s;
    if (sim_run_case(&ps, plat, "ps", bytes, NULL) == 0 && ps.st == AR_OK) t_ps = ps.r.time_s;
    printf("  simulated: treepack %.4f ms (%.2f %% from T; walk %.4f ms; %llu transfers, %.2f s wall), ring %.4f ms, "
           "ps %.4f ms\n",
           t_tp * 1e3, 100 * (t_tp - m.time_s) / m.time_s, tp.walk * 1e3, (unsigned long long)tp.r.transfers,
           tp.r.wall_s, t_ring * 1e3, t_ps * 1e3);
    T_NEAR(t_tp, m.time_s, 0.02, "simulated treepack vs the LP's prediction");
    T_CHECK(t_tp >= lo * (1 - 1e-6) && t_tp <= up * (1 + 1e-6), "sim %g outside [%g, %g]", t_tp, lo, up);
    T_NEAR(tp.walk, m.time_s, 1e-6, "cost walk vs closed form");
    T_CHECK(t_tp < t_ring && t_tp < t_ps, "treepack %g, ring %g, ps %g", t_tp, t_ring, t_ps);
    sim_run_free(&tp);
    sim_run_free(&ring);
    sim_run_free(&ps);
    ar_treepack_result_free(&r);
    ar_platform_free(p);
    /* real data through the simulator */
    int ran = 0;
    const char *checks[][2] = {{"p3.16xlarge", "treepack:chunks=3"},
                               {"p2.16xlarge", "treepack:chunks=2,units=8"},
                               {"p3.8xlarge", "treepack:units=0"}};
    for (size_t i = 0; i < sizeof checks / sizeof checks[0]; i++) {
        ar_sim_opts o;
        memset(&o, 0, sizeof o);
        o.sync = AR_SYNC_ROUND;
        o.check = 1;
        sim_run x;
        int ok = sim_run_case(&x, checks[i][0], checks[i][1], 4 * 1001, &o) == 0;
        T_CHECK(ok && x.st == AR_OK, "%s on %s with --check: %s", checks[i][1], checks[i][0], x.e.msg);
        ran += ok && x.st == AR_OK;
        sim_run_free(&x);
    }
    sim_floor("sim_treepack, --check", ran, 0, 3); /* all three ran when the floor was set */
    return t_done("sim_treepack");
}
