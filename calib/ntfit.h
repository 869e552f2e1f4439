/* Fitting a platform to nccl-tests measurements, first slice.
 *
 * Model: every record is predicted by NCCL's cost model (models/nccl_model.h) on the
 * preset platform: the (algorithm, protocol) NCCL would choose (or the one forced by the
 * run's NCCL_ALGO), split into its latency part L_i and its bandwidth part X_i (time =
 * L_i + X_i). The fit scales them globally: t_i ~ a * L_i + u * X_i, a = latency scale,
 * u = 1 / bandwidth scale, by weighted linear least squares on relative residuals
 * (weight 1/t_i). The choice is kept at the preset's (not re-chosen with the fitted
 * parameters). NOT per link class. A second fit gives one bandwidth efficiency per
 * (algorithm, protocol) with a shared latency scale (group[] below).
 * Bootstrap: resample records with replacement (fixed seed), percentile 95 % intervals.
 * A parameter is "unidentified" when its column of the weighted design is near zero
 * relative to the other or its interval is wider than its value; it then keeps 1.
 *
 * Host-only C; all plain values, nothing allocated that the caller must free except
 * res->rel_err (free with ar_ntfit_free). */
#ifndef AR_NTFIT_H
#define AR_NTFIT_H

#include "core/platform/platform.h"
#include "core/status.h"
#include "models/nccl_model.h"
#include "calib/nccltests_in.h"

#define AR_NTFIT_MAX_GROUPS 24
#define AR_NTFIT_MAX_NODECOUNTS 16

typedef struct ar_ntfit_res {
    int n;                               /* records used (in-place time where present, else out-of-place: as compare) */
    double lat_scale, bw_scale;          /* fitted (bw_scale = 1/u) */
    double lat_lo, lat_hi, bw_lo, bw_hi; /* percentile 95 % bootstrap intervals */
    int lat_ident, bw_ident;             /* 0: not identified by the data, value kept at 1 */
    int nboot;
    double *rel_err;                     /* n: (pred - meas) / meas per record, in set order */
    double bucket_med[4], bucket_max[4]; /* |rel err| by size: <1MB, 1-64MB, 64-512MB, >=512MB */
    int bucket_n[4];
    double loso_med, loso_max; /* leave-one-size-out: |rel err| on the held-out size */
    /* Per (algorithm, protocol) efficiency: t_i ~ a L_i + X_i / eff_g(i), one shared latency
     * scale a and one bandwidth efficiency per group of records that ran (or, unforced, that NCCL's model
     * picks for) algorithm/protocol g; eff 1 = the preset's bandwidth as NCCL's model uses it. A group is
     * unidentified (eff kept 1) when its records carry < 1e-3 of its time in the bandwidth term, or its
     * interval is wider than its value. */
    int ngroups;
    struct {
        char algo[16], proto[16]; /* NCCL's spelling: "RING", "SIMPLE" */
        int n, forced;            /* records; 1 when the runs forced the algorithm (NCCL_ALGO) */
        double eff, lo, hi;       /* fitted efficiency, percentile 95 % bootstrap interval */
        int ident;
    } group[AR_NTFIT_MAX_GROUPS];
    double group_lat, group_lat_lo, group_lat_hi; /* the shared latency scale of that fit */
    /* Leave-one-node-count-out (when the records span >= 2 node counts; else lonco_n = 0): the global
     * two-scale fit on the other node counts predicts this one; |rel err| median/max (NAN: the rest
     * could not be fitted). */
    int lonco_n;
    int lonco_nodes[AR_NTFIT_MAX_NODECOUNTS], lonco_cnt[AR_NTFIT_MAX_NODECOUNTS];
    double lonco_med[AR_NTFIT_MAX_NODECOUNTS], lonco_max[AR_NTFIT_MAX_NODECOUNTS];
    /* Per node class (when the records hold one-node and multi-node runs; else have_classes = 0): the
     * two-scale fit on the one-node runs (intra-node: NVLink-bound) and on the multi-node runs (network-
     * bound under NCCL's model), each with percentile 95 % intervals. Printed; what the calibrated platform
     * carries is the joint fit below (ar_ntfit_calibrate). */
    int have_classes;
    struct {
        int n;
        double lat, lat_lo, lat_hi, bw, bw_lo, bw_hi;
        int lat_ident, bw_ident;
    } cls[2];
} ar_ntfit_res;

/* The calibration a platform JSON carries (calib/ntcal.h, platforms/README.md "calibration", "nccl"), fitted
 * jointly: t_i ~ lat_c L_i + X_i / (bw_b eff_g), c = the record's link class (0 intra-node: one-node runs,
 * 1 inter-node: multi-node runs), b its bandwidth class: class c's links (RING, TREE, PAT), class c's NVSwitch
 * reduction/multicast rate (NVLS, NVLS_TREE) or class c's SHARP rate (COLLNET_*), each a factor of its own
 * (written as "calibration".{intra,inter}.{bw,nvls,collnet}), g its (algorithm, protocol); weights 1/t_i,
 * alternating least squares (exact in each block). The efficiencies are relative to a reference group per
 * rate family (eff 1 by definition: RING/SIMPLE, NVLS/SIMPLE, COLLNET_DIRECT/SIMPLE when it ran in every class
 * its family ran in, else the group of the family with the most records among those); a group that ran in a
 * class without its reference is not separable from that class's factor and keeps 1. The choice of
 * (algorithm, protocol) per record is re-made on the calibrated model and the fit repeated until no choice
 * changes (at most 6 passes), so that the calibrated platform's NCCL model predicts with the choice it makes
 * itself. Percentile 95 % intervals of a residual bootstrap (the sizes are a design: every resample keeps
 * every record, its time the fitted one x (1 + a relative residual drawn with replacement, inflated by
 * sqrt(n / (n - parameters))); fixed seed); a factor whose interval is wider than its value, a class without
 * >= 2 records, or a bandwidth class whose records carry < 1e-3 of their time in the bandwidth term, is NOT
 * identified and kept at 1 (the fit is redone with it fixed; a group found too wide together with its class
 * factor is tried again once that factor is fixed). rel_med/rel_max: |rel err| of the calibrated model's
 * prediction, with the choice it makes itself (as compare on the written platform); bucket_med: its median
 * per size bucket (< 64 KB, 64 KB-64 MB, >= 64 MB; NAN when empty). Where the choices do not settle in 6
 * passes, the pass whose calibrated model predicts best (median) is kept. */
typedef struct ar_ntfit_cal {
    int n, passes, nboot;
    int kept; /* the pass kept: the last when the choices settled, else the one whose model predicts best */
    struct {
        int n, bw_n; /* records of the class; of them on the links (bw) */
        double lat, lat_lo, lat_hi, bw, bw_lo, bw_hi;
        int lat_ident, bw_ident;
    } cls[2];
    struct {
        int n; /* records of the class on this rate; 0: not written (the links' factor applies) */
        double bw, lo, hi;
        int ident;
    } sw[2][2];       /* [class][0 NVLS/NVLS_TREE, 1 COLLNET] */
    int ngroups, ref; /* ref: the links' reference group (fref[0]) */
    int fref[3];      /* per family (links, NVLS, CollNet): the reference group's index, -1 when none */
    struct {
        char algo[16], proto[16];
        int algo_i, proto_i, fam, n;
        double eff, lo, hi;
        int ident; /* 0: not identified (eff 1); a reference has ident 1, eff 1 */
    } group[AR_NTFIT_MAX_GROUPS];
    double rel_med, rel_max;
    double bucket_med[3];
    int bucket_n[3];
} ar_ntfit_cal;

/* Puts calibration c of link class cls on NCCL model input in (multiplied into the factors it has), as a
 * platform written from c loads: latency, links' bandwidth, the switch rates that had records, efficiencies. */
void ar_ntfit_cal_apply(const ar_ntfit_cal *c, int cls, ar_nccl_in *in);
/* The size bucket of the calibration's summary: 0 < 64 KB, 1 64 KB-64 MB, 2 >= 64 MB. */
int ar_ntfit_bucket3(double bytes);

/* NCCL's model of every record of s whose collective it covers, on p (or, for runs of N whole nodes of a one-node
 * p, NAME:nodes=N) calibrated by cal (NULL: p as it is), with NCCL's choice made on that model (or the run's
 * NCCL_ALGO/NCCL_PROTO): pred_s, and beside it the time the fit uses (in place where present) meas_s, the size,
 * the record's index in s and its platform's machine count. Arrays of s->nrecs; *n records written. */
typedef struct ar_ntfit_pred {
    double pred_s, meas_s, bytes;
    int rec, nodes;
} ar_ntfit_pred;
ar_status ar_ntfit_predict(const ar_nt_set *s, const ar_platform *p, const ar_ntfit_cal *cal, ar_ntfit_pred *out,
                           int *n, ar_err *e);

ar_status ar_ntfit_calibrate(const ar_nt_set *s, const ar_platform *p, unsigned seed, int nboot, ar_ntfit_cal *out,
                             ar_err *e);

/* Rows of 0 B are left out of every fit, calibration and prediction here (NCCL returns at once; compare does
 * not model them either). */
/* Fits platform p to the all_reduce records of s. A run has p's rank count, or, when p is one
 * node, N x p's ranks on N nodes: it is predicted on "NAME:nodes=N" (core/platform/platform_rail.h). The
 * same two scales hold for every node count. Refuses #wrong > 0 (ar_nt_check_fit). */
ar_status ar_ntfit_fit(const ar_nt_set *s, const ar_platform *p, unsigned seed, int nboot, ar_ntfit_res *res,
                       ar_err *e);
void ar_ntfit_free(ar_ntfit_res *res);

/* LogGP's per-message overhead o between machines (core/platform/platform.h msg_o_s, "compute"."message"), from the
 * small sizes (0 < size < 64 KB) of the multi-node all_reduce records (other collectives: not used). NCCL's own algorithms are priced without o (their
 * protocol's per-step latency holds it), so o is what the measured time leaves above NCCL's model on p (the
 * preset as it is, NCCL's choice or the run's NCCL_ALGO/NCCL_PROTO), shared over the network messages of the
 * critical path at these sizes, each paying o at both ends: NCCL's tree between nodes, one message up and one
 * down per level, ar_ntfit_msg_chain(N) = 2 ceil(log2 N) messages, 2 o each. Per record
 * o_i = (meas_i - model_i) / (2 ar_ntfit_msg_chain(N_i)); o = the median of the o_i, with a percentile 95 %
 * bootstrap interval of the median (records resampled with replacement, fixed seed). Inter-node class only: the
 * platform's o prices messages between machines, which one-node runs do not send. NOT identified (o_ident 0,
 * o = 0, why says why) with < 2 such records, a median <= 0 (the runs are no slower than NCCL's model) or an
 * interval wider than the value. g is not identified by nccl-tests (one message per endpoint at a time on the
 * critical path): the caller keeps the platform's. */
#define AR_NTFIT_MSG_MAX_BYTES 65536.0
typedef struct ar_ntfit_msg {
    int n, nodes_lo, nodes_hi; /* records used; the node counts of the multi-node records */
    double o, o_lo, o_hi;      /* seconds */
    int o_ident, nboot;
    double excess_med; /* median of meas - model over the records used (s) */
    char why[200];     /* !o_ident: one line, why */
} ar_ntfit_msg;
int ar_ntfit_msg_chain(int nodes);
ar_status ar_ntfit_msg_fit(const ar_nt_set *s, const ar_platform *p, unsigned seed, int nboot, ar_ntfit_msg *out,
                           ar_err *e);

#endif
