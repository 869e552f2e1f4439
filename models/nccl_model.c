/* NCCL's cost model (see nccl_model.h): the tuner's table, its time estimate and
 * its choice, plus a simplified topology search deriving the input from a
 * platform. Constants are NCCL 2.30.7's, written out from reading tuning.cc,
 * search.cc and topo.h; every formula below names the NCCL step it follows. */
#include "nccl_model.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Architecture row of NCCL's per-architecture tables (NCCL_*_COMPCAP_IDX). */
enum { CC_VOLTA = 0, CC_AMPERE = 1, CC_HOPPER = 2, CC_BLACKWELL = 3 };
/* Latency classes (NCCL_HW_*). */
enum { HW_NVLINK = 0, HW_PCI = 1, HW_NET = 2 };

/* NCCL's tuner constants, one set per modelled version (tuning.cc's baseLat, hwLat, llMaxBws,
 * perChMax*Bws, nvlsEfficiency of that release). Rows of the caps: [architecture][nodes: 1, 2, >2];
 * LL's row: the GPU's on one node, the CPU vendor's across nodes (0 = Intel, 1 = AMD). */
typedef struct nccl_consts {
    int version; /* major*10000 + minor*100 */
    double base_lat[AR_NCCL_NALGOS][AR_NCCL_NPROTOS];
    double hw_lat[3][AR_NCCL_NALGOS][AR_NCCL_NPROTOS]; /* per latency class NVLink, PCI, net */
    double ll_max_bw[4][3], ring_ll128_ch[4][3], tree_ll128_ch[4][3], tree_ch[4][3], nvls_tree_ch[4][3];
    double nvls_eff[4];
} nccl_consts;

static const nccl_consts k_v230 = {
    /* NCCL 2.30.7 (tag v2.30.7-1, src/graph/tuning.cc ncclTunerConstantsDefaults) */
    23000,
    {{6.8, 14.0, 8.4}, {6.6, 14.0, 8.4}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {8.0, 8.0, 8.0}},
    {{/* NVLink */ {0.6, 1.25, 4.0}, {0.6, 1.9, 3.4}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 25}, {0, 0, 25}, {0, 0, 4.0}},
     {/* PCI */ {1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 0}, {0, 0, 0}, {0, 0, 4.0}},
     {/* net */ {5.0, 8.5, 14}, {2.7, 4.0, 14.0}, {0, 0, 31}, {0, 0, 30}, {0, 0, 18}, {0, 0, 20.9}, {0, 0, 14}}},
    {{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {282.0, 90.0, 70.0}},
    {{20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 36.7}, {40, 40, 40}},
    {{20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 29.0}, {55.6, 31.67, 20.0}},
    {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70.0, 42.8, 24.0}},
    {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {0.0, 57.7, 45.5}, {0.0, 96.0, 80.0}},
    {0.0, 0.0, 0.85, 0.74},
};

static const nccl_consts k_v228 = {
    /* NCCL 2.28.9 (tag v2.28.9-1): as 2.30 but Blackwell's ring LL128 cap {2 x 36.7, 34.6, 2 x 36.7}
     * and NVLS_TREE cap on > 2 nodes 43.8 */
    22800,
    {{6.8, 14.0, 8.4}, {6.6, 14.0, 8.4}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {8.0, 8.0, 8.0}},
    {{{0.6, 1.25, 4.0}, {0.6, 1.9, 3.4}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 25}, {0, 0, 25}, {0, 0, 4.0}},
     {{1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 0}, {0, 0, 0}, {0, 0, 4.0}},
     {{5.0, 8.5, 14}, {2.7, 4.0, 14.0}, {0, 0, 31}, {0, 0, 30}, {0, 0, 18}, {0, 0, 20.9}, {0, 0, 14}}},
    {{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {282.0, 90.0, 70.0}},
    {{20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 36.7}, {73.4, 34.6, 73.4}},
    {{20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 29.0}, {55.6, 31.67, 20.0}},
    {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70.0, 42.8, 24.0}},
    {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {0.0, 57.7, 45.5}, {0.0, 96.0, 43.8}},
    {0.0, 0.0, 0.85, 0.74},
};

/* The latencies 2.23 to 2.27 share (tuning.cc baseLat, hwLat of tags v2.23.4-1 .. v2.27.7-1; PAT's 8 us base
 * is written in its latency formula there) */
// clang-format off
#define NCCL_V223_LATENCIES \
    {{6.8, 14.0, 8.4}, {6.6, 14.0, 8.4}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {8.0, 8.0, 8.0}}, \
    {{{0.6, 1.25, 4.0}, {0.6, 1.9, 3.4}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 25}, {0, 0, 25}, {0, 0, 0}}, \
     {{1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}}, \
     {{5.0, 8.5, 14}, {2.7, 4.0, 14.0}, {0, 0, 31}, {0, 0, 30}, {0, 0, 18}, {0, 0, 14}, {0, 0, 0}}}

/* 2.26.2's tables (tag v2.26.2-1, src/graph/tuning.cc baseLat, hwLat, llMaxBws, perChMax*Bws), which 2.27
 * keeps */
#define NCCL_V226_TABLES \
    NCCL_V223_LATENCIES, \
    {{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {282.0, 90.0, 70.0}}, \
    {{20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 36.7}, {73.4, 73.4, 73.4}}, \
    {{20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 29.0}, {73.4, 73.4, 58.0}}, \
    {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {77.4, 82.8, 72.0}}, \
    {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}}, \
    {1.0, 1.0, 1.0, 1.0}

/* 2.24.3's tables (tag v2.24.3-1), which 2.23.4 shares: 2.26's without a Blackwell row (a Blackwell GPU takes
 * Hopper's) */
#define NCCL_V224_TABLES \
    NCCL_V223_LATENCIES, \
    {{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {141.0, 45.0, 35.0}}, \
    {{20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 36.7}, {36.7, 36.7, 36.7}}, \
    {{20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 29.0}, {36.7, 36.7, 29.0}}, \
    {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {38.7, 41.4, 36.0}}, \
    {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}}, \
    {1.0, 1.0, 1.0, 1.0}
// clang-format on

static const nccl_consts k_v226 = {
    /* NCCL 2.26.2: PAT's 8 us base written in its latency formula; Blackwell's caps twice Hopper's; NVLS
     * without an efficiency or a channel lost to the head (bw = min(bwIntra, bwInter), algbw = 5/6 busbw) */
    22600, NCCL_V226_TABLES};

static const nccl_consts k_v227 = {
    /* NCCL 2.27.7 (tag v2.27.7-1): 2.26's tables and all-reduce formulas; NVLS reduce-scatter and
     * all-gather take min(bwIntra (ppn - 1)/ppn, 0.9 bwInter) */
    22700, NCCL_V226_TABLES};

static const nccl_consts k_v224 = {
    /* NCCL 2.24.3: 2.26's all-reduce formulas and Hopper tables; before Blackwell (a Blackwell GPU takes
     * Hopper's rows, search arrays and 16 NVLS channels; LL128 on by default on Volta/Ampere/Hopper only; the
     * runtime channel doubling on Hopper only) */
    22400, NCCL_V224_TABLES};

static const nccl_consts k_v223 = {
    /* NCCL 2.23.4 (tag v2.23.4-1): 2.24's tables and formulas but PAT's bus bandwidth x0.85 (2.24: x0.75) */
    22300, NCCL_V224_TABLES};

static const nccl_consts k_v218 = {
    /* NCCL 2.18.6 (tag v2.18.6-1, src/graph/tuning.cc baseLat, hwLat, llMaxBws, perChMax*Bws): no PAT,
     * no Blackwell row (a Blackwell GPU takes Hopper's), no NVLS efficiency (1), no NVLS_TREE cap */
    21800,
    {{6.8, 14.0, 0}, {6.6, 14.0, 8.4}, {6.8, 14.0, 0}, {6.8, 14.0, 0}, {0, 0, 23.0}, {0, 0, 23.0}, {0, 0, 0}},
    {{{0.6, 1.25, 4}, {0.6, 1.9, 3.4}, {0, 0, 8.0}, {0, 0, 4.75}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}},
     {{1.0, 1.9, 6}, {1.0, 2.5, 5.7}, {0, 0, 8.0}, {0, 0, 8.0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}},
     {{5.0, 8.5, 14}, {2.7, 4.0, 14.0}, {0, 0, 10.7}, {0, 0, 14}, {0, 0, 18}, {0, 0, 19}, {0, 0, 0}}},
    {{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {87.7, 22.5, 19.0}, {87.7, 22.5, 19.0}},
    {{20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 36.7}, {36.7, 36.7, 36.7}},
    {{20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 29.0}, {36.7, 36.7, 29.0}},
    {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {38.7, 41.4, 36.0}},
    {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}},
    {1.0, 1.0, 1.0, 1.0},
};

static const nccl_consts *consts_of(int version) {
    return version == 0 || version >= 22900 ? &k_v230
           : version >= 22800               ? &k_v228
           : version >= 22700               ? &k_v227
           : version >= 22500               ? &k_v226
           : version >= 22400               ? &k_v224
           : version >= 22300               ? &k_v223
                                            : &k_v218;
}

int ar_nccl_version_parse(const char *s) {
    int maj = 0, min = 0, n = 0;
    if (!s || sscanf(s, "%d.%d%n", &maj, &min, &n) != 2 || maj != 2) return -1;
    if (s[n] == '.') { /* a patch level: digits, and NCCL's tag suffix "-1" */
        n++;
        if (!isdigit((unsigned char)s[n])) return -1;
        while (isdigit((unsigned char)s[n])) n++;
        if (s[n] == '-') {
            n++;
            if (!isdigit((unsigned char)s[n])) return -1;
            while (isdigit((unsigned char)s[n])) n++;
        }
    }
    if (s[n]) return -1;
    if (min == 18 || min == 19) return 21800;
    if (min == 23) return 22300;
    if (min == 24) return 22400;
    if (min == 25 || min == 26) return 22600;
    if (min == 27) return 22700;
    if (min == 28) return 22800;
    if (min == 29 || min == 30) return 23000;
    return -1;
}

const char *ar_nccl_version_name(int version) {
    int v = consts_of(version)->version;
    return v == 23000   ? "2.30.7"
           : v == 22800 ? "2.28.9"
           : v == 22700 ? "2.27.7"
           : v == 22600 ? "2.26.2"
           : v == 22400 ? "2.24.3"
           : v == 22300 ? "2.23.4"
                        : "2.18.6";
}

/* Trees' bandwidth correction by log2(bytes / 64), 64 B .. 256 MB, per protocol. */
static const double k_tree_corr[AR_NCCL_NPROTOS][24] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9},
};

#define NCCL_MAX_NVLS_ARITY 32
#define NCCL_MAX_DIRECT_ARITY 7
#define NCCL_MAX_CHANNELS 64

static int cc_row(int cc) { return cc >= 100 ? CC_BLACKWELL : cc >= 90 ? CC_HOPPER : cc >= 80 ? CC_AMPERE : CC_VOLTA; }

/* floor(log2(x)), -1 for x = 0 (NCCL's log2i). */
static int log2_floor(uint64_t x) {
    int n = -1;
    while (x) {
        x >>= 1;
        n++;
    }
    return n;
}

static double dmin(double a, double b) { return a < b ? a : b; }

/* The protocols' bandwidth factors on ring and tree (tuning.cc; the caps aside). */
static double proto_bw_factor(ar_nccl_algo a, ar_nccl_proto p, int nnodes) {
    if (a == AR_NCCL_RING) return p == AR_NCCL_LL ? 0.5 : p == AR_NCCL_LL128 ? 0.92 : 1.0;
    if (a == AR_NCCL_TREE)
        return p == AR_NCCL_LL ? 1.0 / 3.8 : p == AR_NCCL_LL128 ? (nnodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0) : 1.0;
    return 1.0;
}

ar_status ar_nccl_proto_effect_v(int version, ar_nccl_algo a, ar_nccl_proto p, int nnodes, int inter, double *bw_factor,
                                 double *step_lat_us, double *base_lat_us) {
    if ((unsigned)a >= AR_NCCL_NALGOS || (unsigned)p >= AR_NCCL_NPROTOS) return AR_EINVAL;
    const nccl_consts *K = consts_of(version);
    if (a == AR_NCCL_NVLS || a == AR_NCCL_NVLS_TREE) {
        /* NVLS runs Simple only; tuning.cc charges its NVLink latency once per operation, not per step
         * (2.18: baseLat 23 us, hwLat 0; since 2.19: lat = hwLat[NVLINK] 25 us, baseLat 0): the sum,
         * as a base latency. Its network latency is left to the step across nodes (inter: 0). */
        (void)nnodes;
        if (bw_factor) *bw_factor = 1.0;
        if (step_lat_us) *step_lat_us = 0;
        if (base_lat_us)
            *base_lat_us = inter ? 0 : K->base_lat[a][AR_NCCL_SIMPLE] + K->hw_lat[HW_NVLINK][a][AR_NCCL_SIMPLE];
        return AR_OK;
    }
    double f = proto_bw_factor(a, p, nnodes);
    if (K->version < 22000 && a == AR_NCCL_RING && p == AR_NCCL_LL) f = 0.25; /* 2.18's all-reduce factor */
    if (bw_factor) *bw_factor = f;
    if (step_lat_us) *step_lat_us = K->hw_lat[inter ? HW_NET : HW_NVLINK][a][p];
    if (base_lat_us) *base_lat_us = K->base_lat[a][p];
    return AR_OK;
}

ar_status ar_nccl_proto_effect(ar_nccl_algo a, ar_nccl_proto p, int nnodes, int inter, double *bw_factor,
                               double *step_lat_us, double *base_lat_us) {
    return ar_nccl_proto_effect_v(0, a, p, nnodes, inter, bw_factor, step_lat_us, base_lat_us);
}

/* NCCL's per-step latency of a class plus what the platform's own hop latency of that class adds
 * beyond the hardware NCCL's tables describe (its class's AR_NCCL_REF_HOP_*_US): a family's lat=, a
 * slow fabric. A class NCCL does not charge (0) stays 0. */
static double hw_step(const ar_nccl_in *in, const nccl_consts *K, int cls, int a, int p) {
    int net = cls == HW_NET;
    double ref = net ? AR_NCCL_REF_HOP_NET_US : cls == HW_PCI ? AR_NCCL_REF_HOP_PCI_US : AR_NCCL_REF_HOP_NVLINK_US;
    double l = K->hw_lat[cls][a][p], extra = in->hop_lat_us[net] - ref;
    return l > 0 && extra > 0 ? l + extra : l;
}

static const ar_nccl_graph *graph_of(const ar_nccl_in *in, int a) {
    switch (a) {
    case AR_NCCL_TREE:
    case AR_NCCL_PAT: return &in->tree;
    case AR_NCCL_RING: return &in->ring;
    case AR_NCCL_COLLNET_DIRECT: return &in->collnet_direct;
    case AR_NCCL_COLLNET_CHAIN: return &in->collnet_chain;
    default: return &in->nvls;
    }
}

void ar_nccl_in_defaults(ar_nccl_in *in, int cc, int nranks, int nnodes) {
    memset(in, 0, sizeof *in);
    in->cc_min = in->cc_max = cc;
    in->nranks = nranks;
    in->nnodes = nnodes;
    in->cpu_x86 = 1;
    in->net_host = 1;
    in->ll128_c2c = 1;
    in->net_overhead_us = -1;
}

static ar_status check_graph(const ar_nccl_graph *g, const char *name, ar_err *e) {
    if (g->nchannels < 0 || g->nchannels > NCCL_MAX_CHANNELS)
        return ar_fail(e, AR_EINVAL, "nccl model: %s.nchannels must be in 0..%d (got %d)", name, NCCL_MAX_CHANNELS,
                       g->nchannels);
    if (!(g->bw_intra_GBps >= 0) || !(g->bw_inter_GBps >= 0) || !(g->lat_inter_us >= 0) || isinf(g->bw_intra_GBps) ||
        isinf(g->bw_inter_GBps) || isinf(g->lat_inter_us))
        return ar_fail(e, AR_EINVAL, "nccl model: %s: bandwidths and latency must be finite and >= 0", name);
    return AR_OK;
}

static ar_status check_in(const ar_nccl_in *in, ar_err *e) {
    if (!in) return ar_fail(e, AR_EINVAL, "nccl model: no input");
    if (in->nranks < 1 || in->nnodes < 1 || in->nnodes > in->nranks || in->nranks % in->nnodes)
        return ar_fail(e, AR_EINVAL, "nccl model: nnodes (%d) must divide nranks (%d), both >= 1", in->nnodes,
                       in->nranks);
    if (in->cc_min < 60 || in->cc_max < in->cc_min)
        return ar_fail(e, AR_EINVAL, "nccl model: compute capability %d..%d: need 60 <= cc_min <= cc_max", in->cc_min,
                       in->cc_max);
    ar_status st = check_graph(&in->tree, "tree", e);
    if (!st) st = check_graph(&in->ring, "ring", e);
    if (!st) st = check_graph(&in->nvls, "nvls", e);
    if (!st) st = check_graph(&in->collnet_direct, "collnet_direct", e);
    if (!st) st = check_graph(&in->collnet_chain, "collnet_chain", e);
    return st;
}

/* ncclPatEnable with NCCL_PAT_ENABLE unset. */
static int pat_enable(const ar_nccl_in *in) { return in->cc_min >= 60 && in->nnodes == in->nranks && in->net_host; }

/* One (coll, algo, proto) entry of ncclTopoTuneModel; returns 0 when NCCL skips it. chfrac: the share
 * of the graph's channels the operation runs on (1 for the tuner's table; enqueue.cc's channel tuning
 * for the time of what runs, ar_nccl_table_time): the per-channel bandwidth times fewer channels, then
 * the same caps. */
/* The calibration's bandwidth factor of algorithm a with protocol p: the class's switch rate for NVLS,
 * NVLS_TREE and CollNet where calibrated, else its link factor, times the algorithm/protocol efficiency. */
static double cal_factor(const ar_nccl_in *in, int a, int p) {
    int sw = a == AR_NCCL_NVLS || a == AR_NCCL_NVLS_TREE                 ? 0
             : a == AR_NCCL_COLLNET_DIRECT || a == AR_NCCL_COLLNET_CHAIN ? 1
                                                                         : -1;
    double cb = sw >= 0 && in->cal_sw_bw[sw] > 0 ? in->cal_sw_bw[sw] : in->cal_bw;
    return (cb > 0 ? cb : 1) * (in->eff[a][p] > 0 ? in->eff[a][p] : 1);
}

static int tune_one(const ar_nccl_in *in, int coll, int a, int p, double chfrac, double *busbw_out, double *bw_out,
                    double *lat_out) {
    const nccl_consts *K = consts_of(in->version);
    int v218 = K->version < 22000;
    const ar_nccl_graph *g = graph_of(in, a);
    int nranks = in->nranks, nnodes = in->nnodes, row = cc_row(in->cc_min);
    int i2 = nnodes <= 2 ? nnodes - 1 : 2;
    int i1 = nnodes == 1 ? row : in->cpu_amd ? 1 : 0;
    double ppn = (double)nranks / nnodes;
    int ppn_i = nranks / nnodes;
    int nsteps = coll == AR_NCCL_ALLREDUCE ? 2 * (nranks - 1) : nranks - 1;
    int rsag = coll == AR_NCCL_REDUCESCATTER || coll == AR_NCCL_ALLGATHER;
    double nch = g->nchannels * chfrac;

    if (v218 && rsag && a != AR_NCCL_RING) return 0; /* 2.18: RS/AG run on rings only */
    if (v218 && a == AR_NCCL_PAT) return 0;
    if (rsag && a != AR_NCCL_PAT && a != AR_NCCL_RING && a != AR_NCCL_NVLS && a != AR_NCCL_COLLNET_DIRECT) return 0;
    if (coll == AR_NCCL_ALLREDUCE && a == AR_NCCL_PAT) return 0;
    if ((a == AR_NCCL_NVLS || a == AR_NCCL_NVLS_TREE) && p != AR_NCCL_SIMPLE) return 0;
    if (rsag && a == AR_NCCL_PAT && (p != AR_NCCL_SIMPLE || !pat_enable(in))) return 0;

    int collnet = a == AR_NCCL_COLLNET_DIRECT || a == AR_NCCL_COLLNET_CHAIN;
    double bw = nnodes <= 2 || collnet ? g->bw_intra_GBps : g->bw_inter_GBps;
    int v226 = K->version >= 22300 && K->version <= 22700; /* 2.23-2.27: NVLS without an efficiency */
    if (v226 && a == AR_NCCL_NVLS)
        bw = K->version == 22700 && rsag ? dmin(g->bw_intra_GBps * (ppn - 1) / ppn, g->bw_inter_GBps * 0.9)
                                         : dmin(g->bw_intra_GBps, g->bw_inter_GBps);
    if (v226 && a == AR_NCCL_NVLS_TREE)
        bw = dmin(g->bw_intra_GBps, nnodes <= 2 ? g->bw_inter_GBps : g->bw_inter_GBps / 2);
    if (!v218 && !v226 && (a == AR_NCCL_NVLS || a == AR_NCCL_NVLS_TREE)) {
        if (g->nchannels < 2) return 0; /* NVLS needs two channels */
        /* the per-channel NVLS bus bandwidth: efficiency, one channel lost to the head */
        double intra = g->bw_intra_GBps * K->nvls_eff[row] * (g->nchannels - 1) / g->nchannels;
        intra *= coll == AR_NCCL_ALLREDUCE ? 2.0 : (ppn - 1) / ppn; /* all-reduce pipelines two ops */
        double inter = g->bw_inter_GBps * (nnodes <= 2 && a == AR_NCCL_NVLS_TREE ? 2 : 1);
        bw = dmin(intra, inter);
        if (a == AR_NCCL_NVLS_TREE) bw = dmin(bw, K->nvls_tree_ch[row][i2]);
    }
    double bus = nch * bw;

    if (a == AR_NCCL_RING && p == AR_NCCL_LL) {
        /* 2.18: 1/4 (all-reduce or several nodes), else 1/3; since 2.19: 1/2 */
        double f = v218 ? (nnodes > 1 || coll == AR_NCCL_ALLREDUCE ? 0.25 : 1.0 / 3.0) : 0.5;
        bus = dmin(K->ll_max_bw[i1][i2], bus * f);
    }
    if (a == AR_NCCL_RING && p == AR_NCCL_LL128)
        bus = dmin(bus * (v218 && ppn < 2 ? 0.7 : 0.92), nch * K->ring_ll128_ch[row][i2]);
    if (a == AR_NCCL_TREE && (coll == AR_NCCL_ALLREDUCE || v218)) bus = dmin(bus * 0.92, nch * K->tree_ch[row][i2]);
    if (a == AR_NCCL_TREE && p == AR_NCCL_LL) bus = dmin(bus * 1.0 / 3.8, K->ll_max_bw[i1][i2]);
    if (a == AR_NCCL_TREE && p == AR_NCCL_LL128)
        bus = dmin(bus * proto_bw_factor(a, p, nnodes), nch * K->tree_ll128_ch[row][i2]);
    if (a == AR_NCCL_TREE) bus *= ar_nccl_tree_pattern_factor(in);
    if (a == AR_NCCL_PAT) bus *= K->version == 22300 ? 0.85 : 0.75;
    if (collnet && p != AR_NCCL_SIMPLE) bus = 0;
    if (a == AR_NCCL_COLLNET_DIRECT && p == AR_NCCL_SIMPLE) {
        if (rsag) {
            bus = ppn * dmin(g->bw_intra_GBps, g->bw_inter_GBps * 0.9) * chfrac;
        } else {
            /* full speed needs a NIC per GPU: divide by the GPU:NIC ratio, halfway to 1 */
            double f = g->nchannels ? ppn / g->nchannels : 1.0;
            f -= (f - 1) / 2;
            bus /= f;
            if (in->cc_min >= 90) bus *= 0.85;
        }
    }
    if ((a == AR_NCCL_NVLS || a == AR_NCCL_COLLNET_DIRECT) && p == AR_NCCL_SIMPLE && rsag && nnodes > 1) {
        if (coll == AR_NCCL_ALLGATHER && !in->collnet_ag) bus = 0;
        if (coll == AR_NCCL_REDUCESCATTER && !in->collnet_rs) bus = 0;
        int heads = in->collnet_enable ? in->collnet_heads : 0;
        if (!in->collnet_enable) bus = 0;
        if (bus > 0 && ppn_i > heads) bus = 0;
    }
    *busbw_out = bus;
    /* bus bandwidth -> algorithm bandwidth */
    if (v218) {
        /* 2.18: NVLS 5/6, NVLS_TREE 0.70 nnodes / (2 (nnodes - 1)) */
        bus *= a == AR_NCCL_RING                      ? (double)nranks / nsteps
               : a == AR_NCCL_NVLS                    ? 5.0 / 6.0
               : a == AR_NCCL_NVLS_TREE && nnodes > 1 ? 0.70 * nnodes / (2.0 * (nnodes - 1))
               : a == AR_NCCL_NVLS_TREE               ? 0
                                                      : 0.5;
    } else if (!(a != AR_NCCL_RING && rsag)) {
        if (v226 && (a == AR_NCCL_NVLS || a == AR_NCCL_NVLS_TREE)) bus *= 5.0 / 6.0;
        else if (a == AR_NCCL_RING || a == AR_NCCL_NVLS || a == AR_NCCL_NVLS_TREE) bus *= (double)nranks / nsteps;
        else bus *= 0.5;
    }
    *bw_out = bus;

    int intra_hw = g->intra_nvlink ? HW_NVLINK : HW_PCI;
    double lat = K->base_lat[a][p];
    double intra_lat = hw_step(in, K, intra_hw, a, p);
    double inter_lat = !v218 && ppn_i == 1 && nranks == nnodes ? hw_step(in, K, HW_NET, AR_NCCL_TREE, p)
                                                               : hw_step(in, K, HW_NET, a, p);
    inter_lat += g->lat_inter_us;
    if (p == AR_NCCL_SIMPLE) inter_lat += g->lat_inter_us; /* the flush */
    int l2n = log2_floor((uint64_t)nnodes);
    switch (a) {
    case AR_NCCL_RING: {
        double ovh = 0;
        if (nnodes > 1) {
            ovh = in->net_overhead_us >= 0 ? in->net_overhead_us : (in->cpu_x86 && in->cpu_amd ? 2.0 : 1.0);
            if (p == AR_NCCL_SIMPLE) ovh *= 3;
        }
        if (ovh > intra_lat) intra_lat = ovh;
        int inter_steps = nnodes == 1                 ? 0
                          : coll == AR_NCCL_ALLREDUCE ? (v218 ? 2 * nnodes : 2 * (nnodes - 1))
                                                      : nnodes - 1;
        lat += (nsteps - inter_steps) * intra_lat + inter_steps * inter_lat;
        break;
    }
    case AR_NCCL_TREE:
        if (coll == AR_NCCL_ALLREDUCE || v218) lat += 2 * ((ppn_i - 1) * intra_lat + l2n * inter_lat);
        break;
    case AR_NCCL_COLLNET_DIRECT:
        lat += 2 * ((ppn_i - 1 < 1 ? ppn_i - 1 : 1) * intra_lat + (ppn_i - 1) * (v218 ? 0.5 : 0.4)) + inter_lat;
        break;
    case AR_NCCL_COLLNET_CHAIN: lat += 2 * (ppn_i - 1) * intra_lat + inter_lat; break;
    case AR_NCCL_NVLS:
        if (!v218) lat = intra_lat;
        if (nnodes > 1) lat += inter_lat;
        break;
    case AR_NCCL_NVLS_TREE:
        if (v218) lat += 2 * (nnodes - 1) * inter_lat;
        else lat += intra_lat + 2 * l2n * inter_lat;
        break;
    case AR_NCCL_PAT:
        if (rsag) lat += l2n * (inter_lat / 3.5) + nranks * 2.8;
        break;
    default: break;
    }
    *lat_out = lat;
    return 1;
}

double ar_nccl_tree_pattern_factor(const ar_nccl_in *in) { return in && in->tree_pattern_tree ? 0.85 : 1.0; }

double ar_nccl_proto_bw_share(const ar_nccl_in *in, ar_nccl_algo a, ar_nccl_proto p, int channels) {
    if (!in || (a != AR_NCCL_RING && a != AR_NCCL_TREE) || (unsigned)p >= AR_NCCL_NPROTOS || in->nranks < 2) return -1;
    int nch = graph_of(in, a)->nchannels;
    if (nch < 1 || channels < 1) return -1;
    double frac = channels < nch ? (double)channels / nch : 1.0, bp, bs, bw, lat;
    if (!tune_one(in, AR_NCCL_ALLREDUCE, a, p, frac, &bp, &bw, &lat) ||
        !tune_one(in, AR_NCCL_ALLREDUCE, a, AR_NCCL_SIMPLE, frac, &bs, &bw, &lat))
        return -1;
    return bp > 0 && bs > 0 ? bp / bs : -1;
}

double ar_nccl_proto_flow_GBps(const ar_nccl_in *in, ar_nccl_algo a, ar_nccl_proto p, int channels) {
    if (!in || (a != AR_NCCL_RING && a != AR_NCCL_TREE) || (unsigned)p >= AR_NCCL_NPROTOS || in->nranks < 2) return -1;
    int nch = graph_of(in, a)->nchannels;
    if (nch < 1 || channels < 1) return -1;
    double frac = channels < nch ? (double)channels / nch : 1.0, bus, alg, lat;
    if (!tune_one(in, AR_NCCL_ALLREDUCE, a, p, frac, &bus, &alg, &lat) || !(bus > 0)) return -1;
    /* a ring channel's every link carries its share at the bus rate; a tree channel sends the
     * whole buffer up and down its edges, each at the algorithm rate */
    return (a == AR_NCCL_RING ? bus : alg) / channels;
}

/* NCCL's enable rules: the LL128 default, the algorithms it turns off, and the
 * selection's filters (updateCollCostTable). */
static int enabled(const ar_nccl_in *in, int coll, int a, int p) {
    const ar_nccl_graph *g = graph_of(in, a);
    int ppn = in->nranks / in->nnodes;
    if (p == AR_NCCL_LL128) {
        int ok = g->ll128_paths_ok;
        int ver = consts_of(in->version)->version;
        ok &= in->cc_min == in->cc_max || (ver >= 22900 && in->cc_min >= 90);
        ok &= ver >= 22500 || in->cc_min == 70 || in->cc_min == 80 || in->cc_min == 90; /* before 2.25: those only */
        ok &= !(in->cc_min < 70 || (in->cc_min == 90 && in->cudart_11_8 && coll == AR_NCCL_ALLREDUCE &&
                                    a == AR_NCCL_RING && in->nranks == 2));
        if (!ok) return 0;
    }
    if (in->nnodes == 1 && a == AR_NCCL_NVLS_TREE) return 0;
    if (!in->collnet_enable &&
        (a == AR_NCCL_COLLNET_DIRECT || a == AR_NCCL_COLLNET_CHAIN || (a == AR_NCCL_NVLS && in->nnodes > 1)))
        return 0;
    if (in->collnet_enable && a == AR_NCCL_COLLNET_CHAIN && !in->collnet_chain_support) return 0;
    if (!in->nvswitch && a == AR_NCCL_COLLNET_DIRECT) return 0;
    if ((a == AR_NCCL_COLLNET_DIRECT || a == AR_NCCL_COLLNET_CHAIN) && ppn > NCCL_MAX_DIRECT_ARITY + 1) return 0;
    if ((a == AR_NCCL_NVLS || a == AR_NCCL_NVLS_TREE) &&
        (!in->nvls_support || in->nvls.nchannels == 0 || (coll != AR_NCCL_ALLREDUCE && ppn > NCCL_MAX_NVLS_ARITY)))
        return 0;
    return 1;
}

ar_status ar_nccl_model_tune(const ar_nccl_in *in, ar_nccl_table *t, ar_err *e) {
    ar_status st = check_in(in, e);
    if (st) return st;
    memset(t, 0, sizeof *t);
    if (in->nranks == 1) { /* one rank: NCCL's ring/Simple at no cost */
        for (int c = 0; c < AR_NCCL_NCOLLS; c++) t->enabled[c][AR_NCCL_RING][AR_NCCL_SIMPLE] = 1;
        return AR_OK;
    }
    for (int c = 0; c < AR_NCCL_NCOLLS; c++)
        for (int a = 0; a < AR_NCCL_NALGOS; a++)
            for (int p = 0; p < AR_NCCL_NPROTOS; p++) {
                double bus = 0, bw = 0, lat = 0;
                if (!tune_one(in, c, a, p, 1.0, &bus, &bw, &lat)) continue;
                double f = cal_factor(in, a, p);
                t->busbw_GBps[c][a][p] = bus * f;
                t->bw_GBps[c][a][p] = bw * f;
                t->lat_us[c][a][p] = lat * (in->cal_lat > 0 ? in->cal_lat : 1);
                t->enabled[c][a][p] = bw > 0 && enabled(in, c, a, p);
            }
    return AR_OK;
}

static ar_status check_args(int coll, int algo, int proto, double bytes, ar_err *e) {
    if (coll < 0 || coll >= AR_NCCL_NCOLLS) return ar_fail(e, AR_EINVAL, "nccl model: unknown collective %d", coll);
    if (algo < 0 || algo >= AR_NCCL_NALGOS) return ar_fail(e, AR_EINVAL, "nccl model: unknown algorithm %d", algo);
    if (proto < 0 || proto >= AR_NCCL_NPROTOS) return ar_fail(e, AR_EINVAL, "nccl model: unknown protocol %d", proto);
    if (!(bytes >= 0) || bytes > 9.0e18)
        return ar_fail(e, AR_EINVAL, "nccl model: bytes must be in 0..9e18 (got %g)", bytes);
    return AR_OK;
}

/* NCCL's communicator channel count (connect.cc ncclTopoPostset: the ring/tree graphs' common count,
 * duplicated, at most 64; doubled again on Hopper+ (before 2.25: Hopper only, minCompCap == 90) across
 * nodes while < 16 and bwIntra > 45 GB/s). */
static int comm_channels(const ar_nccl_in *in) {
    int n = in->ring.nchannels < in->tree.nchannels ? in->ring.nchannels : in->tree.nchannels;
    n = 2 * n < NCCL_MAX_CHANNELS ? 2 * n : NCCL_MAX_CHANNELS;
    int ver = consts_of(in->version)->version;
    if (ver >= 22000 && (ver >= 22500 ? in->cc_min >= 90 : in->cc_min == 90) && in->nnodes > 1 &&
        in->ring.bw_intra_GBps > 45.0 && n < 16)
        n *= 2;
    return n;
}

double ar_nccl_channel_share(const ar_nccl_in *in, ar_nccl_coll coll, ar_nccl_algo algo, ar_nccl_proto proto,
                             double bytes) {
    (void)coll;
    if (!in || (algo != AR_NCCL_RING && algo != AR_NCCL_TREE && algo != AR_NCCL_PAT)) return 1.0;
    int n = comm_channels(in);
    if (n < 2) return 1.0;
    /* threads per channel (tuning.cc maxThreads: Simple 512, or 256 where the ring's graph is PCIe-slow;
     * LL 512; LL128 640) and bytes per thread before another channel (threadThresholds: LL and LL128 8,
     * Simple 64; the ring's LL x nranks) */
    int nt = proto == AR_NCCL_LL128 ? 640 : 512;
    if (proto == AR_NCCL_SIMPLE && algo == AR_NCCL_RING && in->ring.bw_intra_GBps * in->ring.nchannels <= 24.0)
        nt = 256;
    double thr = proto == AR_NCCL_SIMPLE ? 64 : 8;
    if (algo == AR_NCCL_RING && proto == AR_NCCL_LL) thr *= in->nranks;
    int nc = n; /* enqueue.cc: while (nBytes < nc * nt * threadThreshold && nc >= 2) nc-- */
    while (nc >= 2 && bytes < (double)nc * nt * thr) nc--;
    return (double)nc / n;
}

double ar_nccl_nvlstree_corr(const ar_nccl_in *in, ar_nccl_coll coll, ar_nccl_proto proto, double bytes) {
    if (!in || coll != AR_NCCL_ALLREDUCE || (unsigned)proto >= AR_NCCL_NPROTOS || in->cc_min < 100 || !in->cpu_x86 ||
        consts_of(in->version)->version < 22900 || !(bytes >= 64) || bytes > 9.0e18)
        return 1.0;
    int lsz = log2_floor((uint64_t)bytes >> 6);
    return lsz < 24 ? k_tree_corr[proto][lsz] : 1.0;
}

/* ar_nccl_table_terms in microseconds (ar_nccl_table_time sums them before it scales, as NCCL does). */
static ar_status table_terms_us(const ar_nccl_in *in, const ar_nccl_table *t, ar_nccl_coll coll, ar_nccl_algo algo,
                                ar_nccl_proto proto, double bytes, double *lat_us, double *xfer_us, ar_err *e) {
    ar_status st = check_args((int)coll, (int)algo, (int)proto, bytes, e);
    if (st) return st;
    if (!t->enabled[coll][algo][proto])
        return ar_fail(e, AR_EUNSUPPORTED, "nccl model: %s %s/%s is not enabled on this input (%d ranks, %d nodes)",
                       ar_nccl_coll_name(coll), ar_nccl_algo_name(algo), ar_nccl_proto_name(proto), in->nranks,
                       in->nnodes);
    if (in->nranks == 1) {
        *lat_us = *xfer_us = 0;
        return AR_OK;
    }
    uint64_t nbytes = (uint64_t)bytes;
    double bw = t->bw_GBps[coll][algo][proto], lat = t->lat_us[coll][algo][proto];
    if (in->runtime_channels) {
        double frac = ar_nccl_channel_share(in, coll, algo, proto, bytes), bus = 0, lat2 = 0;
        if (frac < 1 && tune_one(in, coll, algo, proto, frac, &bus, &bw, &lat2)) {
            bw *= cal_factor(in, algo, proto);
        }
        if (!(bw > 0)) bw = t->bw_GBps[coll][algo][proto];
    }
    int lsz = log2_floor(nbytes >> 6);
    int ver = consts_of(in->version)->version;
    if (algo == AR_NCCL_TREE && (coll == AR_NCCL_ALLREDUCE || ver < 22000) && lsz >= 0 && lsz < 23)
        bw *= k_tree_corr[proto][lsz];
    if (algo == AR_NCCL_NVLS_TREE) bw *= ar_nccl_nvlstree_corr(in, coll, proto, bytes);
    int comm_ch = in->ring.nchannels < in->tree.nchannels ? in->ring.nchannels : in->tree.nchannels;
    if (algo == AR_NCCL_RING && proto == AR_NCCL_SIMPLE && in->nnodes > 1 && coll == AR_NCCL_ALLREDUCE && comm_ch > 0 &&
        nbytes / ((uint64_t)comm_ch * (uint64_t)in->nranks) >= 64)
        lat *= in->cc_min < 80 ? 1.9 : 1.4; /* the ring's plateau */
    *lat_us = lat;
    *xfer_us = (double)nbytes / (1000.0 * bw);
    return AR_OK;
}

ar_status ar_nccl_table_terms(const ar_nccl_in *in, const ar_nccl_table *t, ar_nccl_coll coll, ar_nccl_algo algo,
                              ar_nccl_proto proto, double bytes, double *lat_s, double *xfer_s, ar_err *e) {
    double lat, xfer;
    ar_status st = table_terms_us(in, t, coll, algo, proto, bytes, &lat, &xfer, e);
    if (st == AR_OK) {
        *lat_s = lat * 1e-6;
        *xfer_s = xfer * 1e-6;
    }
    return st;
}

ar_status ar_nccl_table_time(const ar_nccl_in *in, const ar_nccl_table *t, ar_nccl_coll coll, ar_nccl_algo algo,
                             ar_nccl_proto proto, double bytes, double *time_s, ar_err *e) {
    double lat, xfer;
    ar_status st = table_terms_us(in, t, coll, algo, proto, bytes, &lat, &xfer, e);
    if (st == AR_OK) *time_s = (lat + xfer) * 1e-6;
    return st;
}

/* The runtime NVLS channels (transport/nvls.cc ncclNvlsTuning's defaults: NVLS_NCHANNELS_SM90 16,
 * NVLS_NCHANNELS_SM100_NVL 24 on one node, NVLS_NCHANNELS_SM100 32 across nodes). */
static int nvls_ctas(const ar_nccl_in *in) {
    int ver = consts_of(in->version)->version; /* before 2.25: NVLS_NCHANNELS 16 on every GPU */
    return in->cc_min >= 100 && ver >= 22500 ? (in->nnodes > 1 ? 32 : 24) : 16;
}

double ar_nccl_nvls_chunk(double bytes, double ops) {
    double c = 131072;
    if (bytes < 64 * ops * c && c > 65536) c = 65536;
    if (bytes < 8 * ops * c && c > 32768) c = 32768;
    if (bytes < 2 * ops * c && c > 16384) c = 16384;
    return c;
}

double ar_nccl_nvlstree_chunk(double bytes, double ops, int nnodes) {
    double c = nnodes >= 4 ? 65536 : 131072;
    if (bytes < 4 * ops * c && c > 65536) c = 65536;
    if (bytes < 1 * ops * c && c > 32768) c = 32768;
    return c;
}

double ar_nccl_nvlstree_fill_bw(const ar_nccl_in *in, double *ops) {
    if (ops) *ops = 0;
    if (!in || in->nranks < 2 || in->nnodes < 2 || in->cc_min < 90 || in->cc_min >= 100) return 0;
    int heads = in->nvls.nchannels;
    if (heads < 1 || consts_of(in->version)->version < 22300) return 0;
    double bus = 0, bw = 0, lat = 0;
    if (!tune_one(in, AR_NCCL_ALLREDUCE, AR_NCCL_NVLS_TREE, AR_NCCL_SIMPLE, 1.0, &bus, &bw, &lat)) return 0;
    bw *= cal_factor(in, AR_NCCL_NVLS_TREE, AR_NCCL_SIMPLE);
    if (!(bw > 0) || !isfinite(bw)) return 0;
    if (ops) *ops = (double)nvls_ctas(in) * heads;
    return bw * 1e9;
}

double ar_nccl_nvls_fill_bw(const ar_nccl_in *in, double *ops) {
    if (ops) *ops = 0;
    if (!in || in->nranks < 2 || in->nnodes != 1) return 0;
    const ar_nccl_graph *g = &in->nvls;
    int heads = g->nchannels;
    double bw = g->bw_intra_GBps * cal_factor(in, AR_NCCL_NVLS, AR_NCCL_SIMPLE) * heads;
    if (heads < 1 || !(bw > 0) || !isfinite(bw)) return 0;
    if (ops) *ops = (double)nvls_ctas(in) * heads;
    return bw * 1e9;
}

/* NCCL's proxy thread posts a step's network sends one channel at a time (net.cc sendProxyProgress: one
 * isend per channel's chunk, every channel of the GPU's NIC on the one proxy thread; Hopper needs no GDR
 * flush on receive, paths.cc ncclTopoNeedFlush), so a tree edge's first step across nodes takes at least
 * the runtime NVLS channels x one post however small its chunks: the part of that floor that the step's
 * own bytes on the head's NIC (the step's ops x chunk bytes, at most the buffer, over the heads, at the
 * NVLS graph's bwInter) leave uncovered, on each of the 2 log2(nodes) network steps of NVLS_TREE's
 * latency (tuning.cc). The post's time is not in NCCL's code or its model: AR_NCCL_PROXY_POST_US, from
 * the HGX H100 log's NVLS_TREE floor (docs/models.md). Seconds; 0 where NCCL's NVLS_TREE fill does not
 * apply (ar_nccl_nvlstree_fill_bw: one node, not Hopper, before 2.23, no NVLS heads). */
double ar_nccl_nvlstree_proxy_s(const ar_nccl_in *in, double bytes) {
    double ops = 0;
    if (!(bytes > 0) || !(ar_nccl_nvlstree_fill_bw(in, &ops) > 0)) return 0;
    int heads = in->nvls.nchannels, nch = nvls_ctas(in);
    double nic = in->nvls.bw_inter_GBps * 1e9;
    if (!(nic > 0) || !isfinite(nic)) return 0;
    double chunk = ar_nccl_nvlstree_chunk(bytes, ops, in->nnodes);
    double step = bytes < ops * chunk ? bytes : ops * chunk;
    double uncovered = nch * AR_NCCL_PROXY_POST_US * 1e-6 - step / heads / nic;
    return uncovered > 0 ? 2.0 * log2_floor((uint64_t)in->nnodes) * uncovered : 0;
}

/* The three-stage fill 2 c / r of `ops` concurrent ops moving `bw` bytes per second together (r = bw /
 * ops each), c = min(chunk, bytes / ops): one of the stages is counted by bytes / bandwidth. */
static double fill_of(double chunk, double bytes, double ops, double bw) {
    if (!(bw > 0) || !(ops > 0)) return 0;
    double c = bytes / ops < chunk ? bytes / ops : chunk;
    return 2 * c / (bw / ops);
}

double ar_nccl_pipeline_fill_s(const ar_nccl_in *in, ar_nccl_coll coll, ar_nccl_algo algo, ar_nccl_proto proto,
                               double bytes) {
    double ops = 0, bw;
    if (!in || coll != AR_NCCL_ALLREDUCE || proto != AR_NCCL_SIMPLE || !(bytes > 0)) return 0;
    if (in->nvlstree_fill && in->nnodes > 1 && algo == AR_NCCL_NVLS_TREE) {
        bw = ar_nccl_nvlstree_fill_bw(in, &ops);
        return fill_of(ar_nccl_nvlstree_chunk(bytes, ops, in->nnodes), bytes, ops, bw);
    }
    if (in->nnodes != 1 || algo != AR_NCCL_NVLS) return 0;
    bw = ar_nccl_nvls_fill_bw(in, &ops);
    return fill_of(ar_nccl_nvls_chunk(bytes, ops), bytes, ops, bw);
}

ar_status ar_nccl_model_time(const ar_nccl_in *in, ar_nccl_coll coll, ar_nccl_algo algo, ar_nccl_proto proto,
                             double bytes, double *time_s, ar_err *e) {
    ar_nccl_table t;
    ar_status st = ar_nccl_model_tune(in, &t, e);
    if (!st) st = ar_nccl_table_time(in, &t, coll, algo, proto, bytes, time_s, e);
    if (!st && !in->tuner_only) *time_s += ar_nccl_pipeline_fill_s(in, coll, algo, proto, bytes);
    return st;
}

ar_status ar_nccl_model_choose(const ar_nccl_in *in, ar_nccl_coll coll, int algo, double bytes, ar_nccl_algo *algo_out,
                               ar_nccl_proto *proto_out, double *time_s, ar_err *e) {
    ar_status st = check_args((int)coll, algo < 0 ? 0 : algo, 0, bytes, e);
    if (st) return st;
    ar_nccl_table t;
    st = ar_nccl_model_tune(in, &t, e);
    if (st) return st;
    int best_a = -1, best_p = -1;
    double best = HUGE_VAL;
    /* NCCL picks on the tuner's estimate (enqueue.cc topoGetAlgoInfo) and only then lowers the channel
     * count for the size: the pick ignores runtime_channels, the time reported below does not */
    ar_nccl_in tuner_in = *in;
    tuner_in.runtime_channels = 0;
    for (int a = 0; a < AR_NCCL_NALGOS; a++) {
        if (algo >= 0 && a != algo) continue;
        for (int p = 0; p < AR_NCCL_NPROTOS; p++) {
            double tm = 0;
            if (!t.enabled[coll][a][p]) continue;
            st = ar_nccl_table_time(&tuner_in, &t, (ar_nccl_coll)coll, (ar_nccl_algo)a, (ar_nccl_proto)p, bytes, &tm,
                                    e);
            if (st) return st;
            if (tm < best) {
                best = tm;
                best_a = a;
                best_p = p;
            }
        }
    }
    if (best_a < 0)
        return ar_fail(e, AR_EUNSUPPORTED, "nccl model: no algorithm/protocol enabled for %s%s%s (%d ranks, %d nodes)",
                       ar_nccl_coll_name(coll), algo >= 0 ? " with " : "",
                       algo >= 0 ? ar_nccl_algo_name((ar_nccl_algo)algo) : "", in->nranks, in->nnodes);
    if (algo_out) *algo_out = (ar_nccl_algo)best_a;
    if (proto_out) *proto_out = (ar_nccl_proto)best_p;
    if (in->runtime_channels && time_s) { /* the pick's time on the channels it runs on */
        st = ar_nccl_table_time(in, &t, (ar_nccl_coll)coll, (ar_nccl_algo)best_a, (ar_nccl_proto)best_p, bytes, &best,
                                e);
        if (st) return st;
    }
    if (time_s) /* the choice is the tuner's; the time it reports gets arlab's addition */
        *time_s = best + (in->tuner_only ? 0
                                         : ar_nccl_pipeline_fill_s(in, (ar_nccl_coll)coll, (ar_nccl_algo)best_a,
                                                                   (ar_nccl_proto)best_p, bytes));
    return AR_OK;
}

double ar_nccl_algbw(double bytes, double time_s) { return time_s > 0 ? bytes / time_s : 0.0; }

double ar_nccl_busbw(ar_nccl_coll coll, int nranks, double algbw_Bps) {
    if (nranks < 1) return 0.0;
    double f = (double)(nranks - 1) / nranks;
    return algbw_Bps * (coll == AR_NCCL_ALLREDUCE ? 2.0 * f : f);
}

static const char *const k_algo_names[AR_NCCL_NALGOS] = {"TREE",      "RING", "COLLNET_DIRECT", "COLLNET_CHAIN", "NVLS",
                                                         "NVLS_TREE", "PAT"};
static const char *const k_proto_names[AR_NCCL_NPROTOS] = {"LL", "LL128", "SIMPLE"};
static const char *const k_coll_names[AR_NCCL_NCOLLS] = {"allreduce", "reducescatter", "allgather"};

const char *ar_nccl_algo_name(ar_nccl_algo a) { return (int)a >= 0 && a < AR_NCCL_NALGOS ? k_algo_names[a] : "?"; }
const char *ar_nccl_proto_name(ar_nccl_proto p) { return (int)p >= 0 && p < AR_NCCL_NPROTOS ? k_proto_names[p] : "?"; }
const char *ar_nccl_coll_name(ar_nccl_coll c) { return (int)c >= 0 && c < AR_NCCL_NCOLLS ? k_coll_names[c] : "?"; }

/* Compares ignoring case and '_' / '-'. */
static int name_eq(const char *s, const char *name) {
    for (;;) {
        while (*s == '_' || *s == '-') s++;
        while (*name == '_' || *name == '-') name++;
        if (!*s || !*name) return !*s && !*name;
        if (tolower((unsigned char)*s) != tolower((unsigned char)*name)) return 0;
        s++;
        name++;
    }
}

int ar_nccl_algo_parse(const char *s) {
    for (int a = 0; s && a < AR_NCCL_NALGOS; a++)
        if (name_eq(s, k_algo_names[a])) return a;
    return -1;
}
int ar_nccl_proto_parse(const char *s) {
    for (int p = 0; s && p < AR_NCCL_NPROTOS; p++)
        if (name_eq(s, k_proto_names[p])) return p;
    return -1;
}
int ar_nccl_coll_parse(const char *s) {
    for (int c = 0; s && c < AR_NCCL_NCOLLS; c++)
        if (name_eq(s, k_coll_names[c])) return c;
    return -1;
}

/* ---- from a platform: a simplified ncclTopoCompute ---- */

/* Capacity (GB/s, nominal) of rank r's links that leave its machine: its NICs on a rail fabric. */
static double gpu_out_GBps(const ar_platform *p, int r) {
    int v = p->rank_node[r], m = p->machine_of_rank[r];
    double c = 0;
    for (int k = p->adj_off[v]; k < p->adj_off[v + 1]; k++) {
        const ar_link *l = &p->links[p->adj[k]];
        int u = l->a == v ? l->b : l->a;
        if (p->nodes[u].machine != m) c += l->bw_Bps * l->lanes / 1e9;
    }
    return c;
}

int ar_nccl_nic_gpus(const ar_platform *p, int *nic_gpus) {
    int nm = p->nmachines;
    if (nm < 2 || !p->machine_first_rank || !p->machine_of_rank || !p->rank_node) return 0;
    int ppn = p->machine_first_rank[1] - p->machine_first_rank[0], any = 0, n = 0;
    for (int m = 1; m < nm; m++)
        if (p->machine_first_rank[m + 1] - p->machine_first_rank[m] != ppn) return 0;
    for (int j = 0; j < ppn; j++) {
        int all = 1;
        for (int m = 0; m < nm; m++) {
            int has = gpu_out_GBps(p, p->machine_first_rank[m] + j) > 0;
            any |= has;
            all &= has;
        }
        if (all) {
            if (nic_gpus) nic_gpus[n] = j;
            n++;
        }
    }
    return any ? n : 0;
}

static const double k_sp_intra70[] = {40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0};
static const double k_sp_inter70[] = {48.0, 30.0, 28.0, 24.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0,
                                      7.0,  6.0,  5.0,  4.0,  3.0,  2.4,  1.2,  0.24, 0.12};
static const double k_sp_intra90[] = {60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 11.0, 6.0, 3.0};
static const double k_sp_inter90[] = {48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5,
                                      15.0, 12.0, 6.0,  3.0,  2.4,  1.2,  0.24, 0.12};
static const double k_sp_intra100[] = {90.0, 80.0, 70.0, 60.0, 50.0, 45.0, 40.0, 30.0, 24.0, 20.0, 19.0, 18.0};
static const double k_sp_inter100[] = {96.0, 86.0, 80.0, 48.0, 45.1, 42.0, 40.0, 30.0, 24.0, 22.0,
                                       20.0, 17.5, 15.0, 12.0, 6.0,  3.0,  2.4,  1.2,  0.24, 0.12};
/* Blackwell's arrays of earlier releases: 2.27-2.28 (v2.28.9-1 search.cc: intra without 45, inter
 * 96 then Hopper's with 45.1 for 45) and 2.26 (v2.26.2-1: intra without 45 and 18, inter Hopper's) */
static const double k_sp_intra100_v228[] = {90.0, 80.0, 70.0, 60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 19.0, 18.0};
static const double k_sp_inter100_v228[] = {96.0, 48.0, 45.1, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0,
                                            17.5, 15.0, 12.0, 6.0,  3.0,  2.4,  1.2,  0.24, 0.12};

typedef struct speeds {
    const double *v;
    int n;
} speeds;

/* search.cc's speed arrays of the release ver (consts_of's version) */
static speeds speed_array(int cc, int inter, int ver) {
    speeds s;
#define AR_SP(a) (s.v = (a), s.n = (int)(sizeof(a) / sizeof((a)[0])))
    if (cc >= 100 && (ver == 22300 || ver == 22400)) { /* 2.23, 2.24: no Blackwell arrays, Hopper's */
        inter ? AR_SP(k_sp_inter90) : AR_SP(k_sp_intra90);
    } else if (cc >= 100 && ver == 22600) { /* 2.26: Hopper's inter array; 2.28's intra array less its 18 */
        if (inter) AR_SP(k_sp_inter90);
        else AR_SP(k_sp_intra100_v228), s.n--;
    } else if (cc >= 100 && (ver == 22700 || ver == 22800))
        inter ? AR_SP(k_sp_inter100_v228) : AR_SP(k_sp_intra100_v228);
    else if (cc >= 100) inter ? AR_SP(k_sp_inter100) : AR_SP(k_sp_intra100);
    else if (cc >= 90) inter ? AR_SP(k_sp_inter90) : AR_SP(k_sp_intra90);
    else inter ? AR_SP(k_sp_inter70) : AR_SP(k_sp_intra70);
#undef AR_SP
    return s;
}

typedef struct topo {
    int ppn, nnodes;
    double nv;   /* a GPU's NVLink budget, GB/s */
    double nic;  /* the machine's cut over its GPUs, GB/s (nnodes > 1; NVLS) */
    int nics;    /* NICs per node a ring channel can use (ppn, or fewer where some failed) */
    double nic1; /* one of those NICs, GB/s (= nic while every GPU has its NIC) */
    int ver;     /* the release whose speed arrays the search walks (consts_of's version) */
} topo;

/* Ring channels that fit at speed s (per-GPU NVLink and per-NIC budgets). */
static int ring_fit(const topo *t, double s) {
    const double eps = 1e-9;
    int ch;
    if (t->nnodes == 1) {
        ch = (int)floor(t->nv / s + eps);
    } else {
        ch = t->nics * (int)floor(t->nic1 / s + eps);
        if (t->ppn > 1)
            while (ch > 0 && ceil((double)ch * (t->ppn - 1) / t->ppn - eps) * s > t->nv + eps) ch--;
    }
    return ch < 0 ? 0 : ch;
}

/* Ring search: pass 1, channel duplication, pass 2 (search.cc's ncclTopoCompute). */
static void ring_search(const topo *t, int cc, ar_nccl_graph *g) {
    const int maxch = NCCL_MAX_CHANNELS / 2;
    speeds sp = speed_array(cc, t->nnodes > 1, t->ver);
    double maxbw = t->nnodes > 1 ? t->nic1 : t->nv;
    double total = t->nnodes > 1 && t->nic1 > t->nv ? t->nic1 : t->nv;
    int i = 0;
    while ((sp.v[i] > maxbw || sp.v[i] > total) && i < sp.n - 1) i++;
    int best_ch = 0;
    double best_s = 0;
    for (;; i++) {
        int ch = ring_fit(t, sp.v[i]);
        if (ch > maxch) ch = maxch;
        if (ch * sp.v[i] > best_ch * best_s) {
            best_ch = ch;
            best_s = sp.v[i];
        }
        if (best_ch == maxch || (best_ch && best_ch * best_s >= total)) break;
        if (i + 1 >= sp.n || (best_ch && sp.v[i + 1] / best_s <= 0.49)) break;
    }
    if (best_ch == 0) return;
    /* ncclTopoDupChannels */
    if (best_s >= 25.0 && !(cc > 80 && best_s < 50.0 && best_ch > 4)) {
        int dup = 2 * best_ch < maxch ? 2 * best_ch : maxch;
        best_s /= (dup + best_ch - 1) / best_ch;
        best_ch = dup;
    }
    /* pass 2: raise the speed with the channel count fixed */
    i = 0;
    while (sp.v[i] > best_s && i < sp.n - 1) i++;
    while (i > 0 && ring_fit(t, sp.v[i - 1]) >= best_ch) best_s = sp.v[--i];
    g->nchannels = best_ch;
    g->bw_intra_GBps = g->bw_inter_GBps = best_s;
}

/* NVLS search (one node: every GPU pulls; several nodes: approximation, see the header). */
static void nvls_search(const topo *t, int cc, ar_nccl_graph *g) {
    const double eps = 1e-9;
    int ch = t->ppn < NCCL_MAX_NVLS_ARITY ? t->ppn : NCCL_MAX_NVLS_ARITY;
    if (t->nnodes == 1) {
        speeds sp = speed_array(cc, 0, t->ver);
        double total = t->nv * t->ppn / (t->ppn - 1); /* non-ring patterns get ndevs/(ndevs-1) */
        int i = 0;
        while ((sp.v[i] > t->nv || sp.v[i] * ch > total) && i < sp.n - 1) i++;
        /* each channel uses s on every GPU's NVLink, twice on its head's */
        while (i < sp.n && (ch + 1) * sp.v[i] > t->nv + eps) i++;
        if (i >= sp.n) return;
        g->nchannels = ch;
        g->bw_intra_GBps = sp.v[i];
        double inter = sp.v[i];
        while (i > 0 && inter < 2 * g->bw_intra_GBps) inter = sp.v[--i];
        g->bw_inter_GBps = inter;
    } else {
        /* several nodes: channels not forced; at speed s a GPU's NVLink holds ch + 1 (its head) uses,
         * so ch(s) = min(maxch, floor(nv/s) - 1); more channels win, then ch x s; the speed decreases
         * while above 0.49 of the best and stops at maxch (NCCL's "perfect" graph) */
        speeds sp = speed_array(cc, 1, t->ver);
        double total = t->nv * t->ppn / (t->ppn - 1);
        int i = 0;
        while ((sp.v[i] > t->nic + eps || sp.v[i] > total + eps) && i < sp.n - 1) i++;
        int best_ch = 0;
        double best_s = 0;
        for (;; i++) {
            int c = (int)floor(t->nv / sp.v[i] + eps) - 1;
            if (c > ch) c = ch;
            if (c > best_ch || (c == best_ch && c * sp.v[i] > best_ch * best_s)) {
                best_ch = c;
                best_s = sp.v[i];
            }
            if (best_ch == ch) break;
            if (i + 1 >= sp.n || (best_ch && sp.v[i + 1] / best_s <= 0.49)) break;
        }
        if (best_ch < 1) return;
        g->nchannels = best_ch;
        g->bw_intra_GBps = best_s;
        /* pass 2: bwInter raised while below 2 x bwIntra and within a NIC */
        double inter = best_s;
        i = 0;
        while (sp.v[i] > inter && i < sp.n - 1) i++;
        while (i > 0 && inter < 2 * best_s && sp.v[i - 1] <= t->nic + eps) inter = sp.v[--i];
        g->bw_inter_GBps = inter;
    }
}

/* Whether NCCL's tree graph ends as the simple TREE pattern, not BALANCED_TREE (search.cc ncclTopoCompute):
 * one GPU a node is forced to TREE; across nodes, Hopper and later try a simpler tree before widening the
 * path types when the balanced tree fails, and the balanced tree sends a channel's up traffic through its
 * NIC from two GPUs of the node, which needs two GPUs behind one NIC's PCIe switch. Where every GPU has
 * its own NIC (DGX/HGX H100 and B200, p5: one GPU to a PCIe switch and its NICs), no second GPU reaches a
 * NIC at PCIe distance and the simpler tree is the one found. The tuner prices the tree's bus bandwidth
 * x0.85 on it (tuning.cc: maxTreePattern == TREE from 2.26, the tree graph's own pattern before;
 * tree_pattern_tree), which arlab follows from 2.23 (not at 2.18). The pattern itself is the topology's, in
 * every release (tree_balanced: the other pattern). */
static int tree_pattern_is_tree(const topo *t, int cc, int nic_each) {
    return t->nnodes >= 2 && (t->ppn == 1 || (cc >= 90 && nic_each));
}

static int cc_of_name(const char *name) {
    static const struct {
        const char *key;
        int cc;
    } k[] = {{"gb200", 100}, {"b200", 100}, {"h100", 90}, {"h200", 90}, {"p5", 90}, {"a100", 80}, {"p4d", 80}};
    if (!name) return 0;
    char low[256];
    size_t n = strlen(name);
    if (n >= sizeof low) n = sizeof low - 1;
    for (size_t i = 0; i < n; i++) low[i] = (char)tolower((unsigned char)name[i]);
    low[n] = 0;
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
        if (strstr(low, k[i].key)) return k[i].cc;
    return 0;
}

/* a calibrated file: by the preset it was calibrated from; else by name */
int ar_nccl_cc_of_platform(const ar_platform *p) {
    if (!p) return 0;
    if (p->gpu_cc) return p->gpu_cc; /* the platform's "gpu" */
    int cc = p->cal_base ? cc_of_name(p->cal_base) : 0;
    return cc ? cc : cc_of_name(p->name);
}

/* The platform's latency of one hop between two GPUs inside a machine [0] and between machines [1],
 * in us: the smallest route latency between rank 0 and another rank of its machine, and between
 * rank 0 and the first rank of another machine (0 where there is none). */
static void hop_latencies(const ar_platform *p, double lat_us[2]) {
    lat_us[0] = lat_us[1] = 0;
    if (!p->machine_of_rank || p->nranks < 2) return;
    double best[2] = {HUGE_VAL, HUGE_VAL};
    for (int r = 1; r < p->nranks && r < 4096; r++) {
        int c = p->machine_of_rank[r] != p->machine_of_rank[0];
        ar_dlink rt[64];
        int n = ar_platform_route(p, 0, r, rt, 64);
        double l = 0;
        for (int k = 0; k < n; k++) { /* nominal: a calibration's latency factor goes on the table (cal_lat) */
            int li = AR_DLINK_LINK(rt[k]);
            double f = p->calibrated ? p->cal_lat[ar_platform_link_class(p, li)] : 1;
            l += p->links[li].lat_s / (f > 0 ? f : 1);
        }
        if (n > 0 && l < best[c]) best[c] = l;
    }
    for (int c = 0; c < 2; c++) lat_us[c] = isfinite(best[c]) ? best[c] * 1e6 : 0;
}

ar_status ar_nccl_in_from_platform(const ar_platform *p, int cc, ar_nccl_in *out, ar_err *e) {
    if (!p || !out) return ar_fail(e, AR_EINVAL, "nccl model: no platform");
    if (cc == 0) cc = ar_nccl_cc_of_platform(p);
    if (cc < 60)
        return ar_fail(e, AR_EINVAL,
                       "nccl model: %s: the GPUs' compute capability is unknown (declare the platform's \"gpu\", e.g. "
                       "\"h100\" or \"sm_89\")",
                       p->name);
    int nm = p->nmachines, nr = p->nranks;
    if (nm < 1 || nr < 1 || nr % nm)
        return ar_fail(e, AR_EUNSUPPORTED,
                       "nccl model: %s: %d ranks on %d machines: NCCL's model needs the same "
                       "GPU count on every machine",
                       p->name, nr, nm);
    int ppn = nr / nm;
    for (int m = 0; m < nm; m++)
        if (p->machine_first_rank[m + 1] - p->machine_first_rank[m] != ppn)
            return ar_fail(e, AR_EUNSUPPORTED,
                           "nccl model: %s: machine %d has %d GPUs, not %d: NCCL's model needs "
                           "the same GPU count on every machine",
                           p->name, m, p->machine_first_rank[m + 1] - p->machine_first_rank[m], ppn);
    topo t = {ppn, nm, 0, 0, ppn, 0, consts_of(p->nccl_version)->version};
    int nvswitch = 0, nic_each = 0;
    /* a GPU's NVLink budget: its links inside its machine (the largest over GPUs, NCCL's totalBw) */
    for (int r = 0; r < nr; r++) {
        int v = p->rank_node[r], m = p->machine_of_rank[r];
        double sum = 0;
        for (int k = p->adj_off[v]; k < p->adj_off[v + 1]; k++) {
            const ar_link *l = &p->links[p->adj[k]];
            int u = l->a == v ? l->b : l->a;
            if (p->nodes[u].machine != m) continue;
            sum += l->bw_Bps * l->lanes / 1e9 / p->cal_bw[0]; /* NCCL sees the nominal NVLink (calibration aside) */
            if (p->nodes[u].kind == AR_NODE_SWITCH && ppn >= 2) nvswitch = 1;
        }
        if (p->calibrated) sum = round(sum * 1e6) / 1e6; /* the division's rounding must not move a speed step */
        if (sum > t.nv) t.nv = sum;
    }
    /* a NIC: the machine's cut capacity (links with one end inside it) over its GPUs; the smallest machine */
    if (nm > 1) {
        double nic = HUGE_VAL, *cut = ar_calloc((size_t)nm, sizeof *cut);
        if (!cut) return ar_fail(e, AR_ENOMEM, "nccl model: out of memory");
        for (int l = 0; l < p->nlinks;
             l++) { /* one pass, each machine's sum in link order (O(links), not O(machines x links)) */
            int ma = p->nodes[p->links[l].a].machine, mb = p->nodes[p->links[l].b].machine;
            if (ma == mb) continue;
            double c = p->links[l].bw_Bps * p->links[l].lanes / 1e9 / p->cal_bw[1];
            if (ma >= 0) cut[ma] += c;
            if (mb >= 0) cut[mb] += c;
        }
        for (int m = 0; m < nm; m++)
            if (cut[m] < nic) nic = cut[m];
        t.nic = t.nic1 = nic / ppn;
        /* a rail fabric that lost NICs (a scenario's failed links): NCCL's search puts every channel on a
         * NIC that exists, so the ring sees the NICs left on every node at their own speed, not the
         * machine's cut spread over all of its GPUs */
        int *gj = ar_calloc((size_t)ppn, sizeof *gj);
        int nn = gj ? ar_nccl_nic_gpus(p, gj) : 0;
        nic_each = nn == ppn;
        if (nn > 0 && nn < ppn) {
            double one = HUGE_VAL;
            for (int m = 0; m < nm; m++) {
                double c = 0;
                for (int i = 0; i < nn; i++) c += gpu_out_GBps(p, p->machine_first_rank[m] + gj[i]) / p->cal_bw[1];
                if (c < one) one = c;
            }
            t.nics = nn;
            t.nic1 = one / nn;
        }
        free(gj);
        free(cut);
        if (p->calibrated) t.nic = round(t.nic * 1e6) / 1e6, t.nic1 = round(t.nic1 * 1e6) / 1e6;
        if (!(t.nic > 0) || !(t.nic1 > 0))
            return ar_fail(e, AR_EUNSUPPORTED, "nccl model: %s: a machine has no link out of it", p->name);
    }
    if (ppn >= 2 && !(t.nv > 0))
        return ar_fail(e, AR_EUNSUPPORTED, "nccl model: %s: no GPU link inside a machine", p->name);

    ar_nccl_in_defaults(out, cc, nr, nm);
    out->nvswitch = nvswitch;
    /* a calibrated platform: the topology search above saw the nominal links; the fit's factors
     * go on the table (one node: the intra-node class, several: the inter-node class) */
    _Static_assert(AR_CAL_NALGOS == AR_NCCL_NALGOS && AR_CAL_NPROTOS == AR_NCCL_NPROTOS, "nccl_eff's shape");
    if (p->calibrated) {
        out->cal_lat = p->cal_lat[nm > 1];
        out->cal_bw = p->cal_bw[nm > 1];
        out->cal_sw_bw[0] = p->cal_sw_bw[nm > 1][0];
        out->cal_sw_bw[1] = p->cal_sw_bw[nm > 1][1];
    }
    memcpy(out->eff, p->nccl_eff, sizeof out->eff);
    out->version = p->nccl_version;
    /* a calibrated platform is a fit of the tuner's latency and bandwidth to measurements, which took in
     * whatever the tuner leaves out: arlab's additions would count it twice */
    out->tuner_only = p->nccl_tuner_only || p->calibrated;
    out->nvlstree_fill = !out->tuner_only; /* the `nccl` schedule pays it too (algos/switch_common.c) */
    hop_latencies(p, out->hop_lat_us);
    if (nr == 1) return AR_OK;
    ring_search(&t, cc, &out->ring);
    out->ring.intra_nvlink = ppn >= 2;
    out->ring.ll128_paths_ok = 1;
    out->tree = out->ring;
    out->tree_balanced = t.nnodes >= 2 && !tree_pattern_is_tree(&t, cc, nic_each);
    out->tree_pattern_tree = t.ver >= 22300 && tree_pattern_is_tree(&t, cc, nic_each);
    if (cc >= 90 && nvswitch && ppn >= 2) {
        nvls_search(&t, cc, &out->nvls);
        out->nvls.intra_nvlink = 1;
        out->nvls.ll128_paths_ok = 1;
        out->nvls_support = out->nvls.nchannels > 0;
    }
    return AR_OK;
}

ar_status ar_nccl_model_platform(const ar_platform *p, int cc, ar_nccl_coll coll, int algo, double bytes,
                                 ar_nccl_algo *algo_out, ar_nccl_proto *proto_out, double *time_s, ar_err *e) {
    ar_nccl_in in;
    ar_status st = ar_nccl_in_from_platform(p, cc, &in, e);
    if (!st) st = ar_nccl_model_choose(&in, coll, algo, bytes, algo_out, proto_out, time_s, e);
    return st;
}
