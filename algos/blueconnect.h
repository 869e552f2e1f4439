/* BlueConnect decompositions (BlueConnect SysML 2019, Sec. 3, Eq. 8): the type,
 * the platform's default, the parameter reader and a printer
 * (algos/blueconnect_decomp.c); the closed forms Eq. 9/10
 * (algos/blueconnect_model.c); the decomposition search of `arlab best`
 * (algos/blueconnect_search.c). No state.
 *
 * A decomposition |P| = p0 p1 ... p(k-1) (every p_i > 1) gives each rank r
 * mixed-radix digits, p0 fastest: digit_i(r) = (r / Q_i) mod p_i with
 * Q_i = p0 ... p(i-1). Stage i works on the groups c(r, i) = the ranks that
 * differ from r only in digit i. Ranks are numbered machine-major, lowest
 * tree level first (platform.h), so the default decomposition - the
 * platform's own level fan-outs - puts stage i on level i (BlueConnect Fig. 4).
 *
 * Parameters (algorithm spec "blueconnect:key=value,..."):
 *   decomp=3x2x2      the factors p0 x p1 x ...; default: the platform's level
 *                     fan-outs that are > 1 (tree: GPUs per machine, machines
 *                     per switch, ...; torus: GPUs per machine, then the dims).
 *   order=2.0.1       the order in which the reduce-scatter stages run (the
 *                     all-gathers run in the reverse order); stage indices
 *                     separated by '.' (',' separates parameters), or written
 *                     as one digit string ("201") when there are <= 10 stages.
 *                     Default: 0.1.2... (bottom-up, Algorithm 1).
 *   impl=ring+hd+ring per-stage implementation, in stage-index order (not
 *                     execution order): ring (Eq. 1), hd (Eq. 2, recursive
 *                     halving/doubling, p_i must be a power of two) or auto
 *                     (Eq. 3: hd when p_i is a power of two, else ring). One
 *                     word (impl=ring) applies to every stage. Default auto.
 * Without decomp= on a platform with no symmetric hierarchy (nlevels == 0),
 * there is no decomposition: BlueConnect falls back to the one-level ring
 * (Sec. 3.4); `fallback` is set and the decomposition is the single stage P
 * (impl ring unless impl= says otherwise).
 */
#ifndef AR_ALGOS_BLUECONNECT_H
#define AR_ALGOS_BLUECONNECT_H

#include <stddef.h>

#include "core/params.h"
#include "core/platform/platform.h"
#include "core/schedule.h"
#include "core/status.h"

#define AR_BC_MAX_STAGES 24 /* > log2(AR_MAX_RANKS): any factorization fits */

typedef struct ar_bc_decomp {
    int k;                          /* number of stages (0 only for a 1-rank platform) */
    int p[AR_BC_MAX_STAGES];        /* p_i: group size of stage i (digit i, p0 fastest) */
    int order[AR_BC_MAX_STAGES];    /* order[s] = stage index run s-th in the reduce-scatter */
    ar_impl impl[AR_BC_MAX_STAGES]; /* per stage index: AR_IMPL_RING or AR_IMPL_HD */
    int from_platform;              /* 1: decomp taken from the platform's levels */
    int fallback;                   /* 1: no decomposition exists: one-level ring */
} ar_bc_decomp;

/* The parameters (the descriptor's table, algos/blueconnect.c), by index. */
enum { AR_BC_P_DECOMP, AR_BC_P_ORDER, AR_BC_P_IMPL };

/* Q_i = p0 ... p(i-1) (Q_0 = 1). */
long long ar_bc_stride(const ar_bc_decomp *d, int i);

/* The platform's own decomposition: its level fan-outs > 1, lowest first.
 * Returns 1 if the platform has one (symmetric hierarchy, or a single rank),
 * 0 if not (d is then the fallback: one stage of P, ring). */
int ar_bc_default(const ar_platform *p, ar_bc_decomp *d);

/* Reads decomp=, order=, impl= (values bound from the descriptor's table;
 * v NULL = defaults) for platform p: the semantic checks (the factors multiply
 * to P, order is a permutation, one impl or one per stage, hd on 2^k groups). */
ar_status ar_bc_parse(const ar_platform *p, const ar_param_val *v, ar_bc_decomp *d, ar_err *e);

/* "decomp=3x2x2,order=0.1.2,impl=ring+hd+hd" (a valid parameter list) into buf. */
char *ar_bc_format(const ar_bc_decomp *d, char *buf, size_t n);

/* --- closed forms (algos/blueconnect_model.c) --------------------------------- */

struct ar_model_result;

/* How stage i of a decomposition maps onto the platform. */
typedef struct ar_bc_stage_info {
    int aligned;       /* 1: the closed form applies to this stage */
    int level;         /* the platform level the stage's groups span */
    int bottleneck;    /* level l <= `level` whose links give the narrowest share */
    long long sharers; /* concurrent flows per direction on a level-`bottleneck` link */
    double bw_Bps;     /* effective bandwidth per flow: min_l w_l / sharers_l (Eq. 9/10) */
    double lat_s;      /* alpha: route latency between neighbours in the stage's groups */
    char why[160];     /* when !aligned: why the closed form does not apply */
} ar_bc_stage_info;

/* Analyses stage i of d on p. Trees/fat-trees with levels: a stage aligns when
 * its groups lie within one level j (its factor divides that level's fan-out:
 * the level itself or a split of it), and then bw = min_{l<=j} w_l / F_l, F_l
 * = GPUs under one level-l link (= prod_{k<l} p_k of Eq. 9 when the stages are
 * the levels). Tori: a stage aligns when it is exactly one level (GPUs of a
 * machine, or one dimension), bw per Eq. 10. Everything else: aligned = 0. */
void ar_bc_stage_analyze(const ar_platform *p, const ar_bc_decomp *d, int i, ar_bc_stage_info *out);

/* Eq. 9 / Eq. 10 for decomposition d (stages in d->order; stage s works on
 * N / prod of the factors run before it), per-stage breakdown. Fallback
 * decompositions give Eq. 6 (one-level ring). AR_EUNSUPPORTED when a stage
 * does not align (the generic walk covers those). */
ar_status ar_model_bc_decomp(const ar_platform *p, double N, const ar_bc_decomp *d, struct ar_model_result *out,
                             ar_err *e);

/* The descriptor's closed form (decomp=, order=, impl= as the planner reads them). */
ar_status ar_bc_closed(const ar_platform *p, double N, const ar_param_val *v, struct ar_model_result *out, ar_err *e);

/* --- search (algos/blueconnect_search.c) --------------------------------------- */

struct ar_ranking;
/* The descriptor's search (core/algo.h): every decomposition of the levels x
 * stage orders x ring/hd mixes, priced by Eq. 9/10 and walked within a budget. */
ar_status ar_bc_search(const ar_platform *p, uint64_t count, size_t elem_bytes, struct ar_ranking *r, ar_err *e);

#endif
