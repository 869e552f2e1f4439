/* Closed form of the spanning-tree-packing schedule's time (algos/treepack.c).
 *
 * The schedule: streams s = (spanning tree, root, weight w_s, sum 1); phase 1
 * reduces every stream's share up its tree, phase 2 broadcasts it down; both
 * pipelined in c chunks, all streams concurrently, round by round as the
 * lowering (core/lower.c) emits them: a stream of height D_s has D_s + c - 1
 * rounds per phase; in reduce round t the member at depth d sends chunk
 * j = t - (D_s - d) to its parent, in broadcast round t the member at depth
 * d - 1 sends chunk j = t - (d - 1) to its child at depth d (0 <= j < c).
 * A round moves, over every directed link a, B_a(t) = sum of w_s N / c over
 * the streams' active tree edges whose route crosses a. With equal-size ops
 * (treepack units=K) or single-hop routes, sharing a link costs exactly its
 * total bytes, so
 *
 *   T = sum_{phase in {reduce, broadcast}} sum_{t=0}^{Dmax+c-2}
 *         max over active transfers x of [ lat(route x) + max_{a in route x} B_a(t) / cap_a ]
 *
 * (Dmax = max_s D_s; on one link type lat is the link latency alpha.) In
 * steady state (Dmax-1 <= t <= c-1, every tree edge busy) B_a(t) = Q_a N / c,
 * where Q_a is the stream data fraction crossing a, so each such round costs
 * alpha + C_dir N / (c bw_ref) with C_dir = max_a Q_a c_a (treepack.h), and
 *
 *   2 C_dir N / bw_ref  <=  T  <=  2 (Dmax + c - 1) (alpha + C_dir N / (c bw_ref)),
 *
 * the upper bound being exact when the critical link is busy in every round.
 * For a direct (NVLink) platform with full-duplex links C_dir >= C(G)/2.
 *
 * Ownership: nothing allocated outlives a call; inputs are borrowed.
 */
#ifndef AR_MODEL_TREEPACK_H
#define AR_MODEL_TREEPACK_H

#include "model.h"

typedef struct ar_tp_model_stream {
    const int *parent; /* parent rank of every rank, -1 at the root (nranks entries) */
    double weight;     /* fraction of the data (the streams' weights sum to 1) */
} ar_tp_model_stream;

/* The round-by-round closed form above for `bytes` bytes and `chunks` chunks.
 * out gets two stages (reduce, broadcast) and a note. */
ar_status ar_model_treepack(const ar_platform *p, const ar_tp_model_stream *streams, int nstreams, double bytes,
                            int chunks, ar_model_result *out, ar_err *e);

/* The bounds above: upper = 2 (Dmax + c - 1)(alpha + cdir_s / c), lower = 2 cdir_s,
 * where cdir_s = C_dir * bytes / bw_ref is the critical link's busy time per phase. */
double ar_model_treepack_upper(int dmax, int chunks, double alpha_s, double cdir_s);
double ar_model_treepack_lower(double cdir_s);

#endif
