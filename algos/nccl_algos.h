/* Shared pieces of the NCCL-style planners (nccl-ring, nccl-tree, nccl, pat):
 * the platform's node shape and NCCL's channel count for it.
 * Nothing here allocates. */
#ifndef AR_NCCL_ALGOS_H
#define AR_NCCL_ALGOS_H

#include <stddef.h>

#include "core/algo.h"

/* Nodes (machines) of p and the first rank of each: node m holds ranks
 * [first[m], first[m+1]) (machines may differ in size; a platform without
 * machines is one node). *first points into p or to a static {0, P} pair
 * (*one, 2 entries, caller's). */
void ar_nccl_nodes(const ar_platform *p, int *nodes, const int **first, int one[2]);

/* NCCL's ring channel count on p (models/nccl_model.h ar_nccl_in_from_platform);
 * where the model cannot derive it (a GPU it does not know) 1, and *why says so
 * (static text, "" otherwise). */
int ar_nccl_ring_channels(const ar_platform *p, const char **why);

/* Where NCCL's channels cross between nodes when a rail fabric lost NICs (a scenario's failed links):
 * NCCL's search gives every channel a NIC that exists, so channel c enters and leaves each node at
 * the GPU heads[c mod n] of the n local indices whose NIC is alive on every node (ar_nccl_nic_gpus),
 * instead of GPU c mod g. Returns n and *heads (the caller frees) where some NICs are gone; 0 and
 * NULL where every GPU has its NIC or the platform has none (c mod g then); -1 out of memory. */
int ar_nccl_heads(const ar_platform *p, int **heads);
/* "heads = {1,2,...} (the GPUs whose NIC is alive on every node)" into buf, for a detail line. */
void ar_nccl_heads_text(const int *heads, int n, char *buf, size_t len);

/* Parent of node x (0..M-1) in tree t (0 or 1) of NCCL's double binary tree
 * (nccl_tree.c); -1 at the tree's root. */
int ar_nccl_dtree_parent(int M, int t, int x);

/* The protocol of a planner's `proto` word (none|ll|ll128|simple|auto): auto = what
 * NCCL's tuner picks for forced algorithm `nccl_algo` (ar_nccl_algo) at `bytes` on p
 * (none, and *why says so, where the model cannot read p). *why: static text. */
ar_proto ar_nccl_proto_of(const ar_platform *p, int nccl_algo, const char *word, double bytes, const char **why);

/* The most pipeline chunks a tree channel gets from NCCL's chunking (the simulation's cost is linear in them). */
#define AR_NCCL_TREE_MAX_CHUNKS 64
/* NCCL's pipeline chunks for a tree channel of a `bytes` all-reduce over `channels` trees with
 * protocol pr (nccl_tree.c: NCCL's chunk size per protocol; LL: 4 KiB, the planners use
 * ar_nccl_tree_ll_pieces; 1..AR_NCCL_TREE_MAX_CHUNKS). */
int ar_nccl_tree_chunks(const ar_platform *p, ar_proto pr, double bytes, int channels);
/* 1 where nccl-tree's heads=auto runs NCCL's wiring, heads=pair (every search channel twice, trees 0 and 1
 * on one head), for protocol pr on p: LL128 or Simple, whose NCCL bandwidth the walk bounds per search
 * channel (models/walk.c tree_stream_rate), on several nodes whose tree graph is NCCL's BALANCED_TREE
 * (ar_nccl_in.tree_balanced); 0 (heads=rail) elsewhere (nccl_tree.c says why). */
int ar_nccl_tree_pairs(const ar_platform *p, ar_proto pr);
/* The LL stream's piece count for nccl-tree with `channels` trees on `heads` ("rail" or "pair") over
 * count elements of eb bytes: the fastest of 1, 2, 4, .. AR_NCCL_TREE_MAX_CHUNKS by the walk (nccl_tree.c). */
int ar_nccl_tree_ll_pieces(const ar_platform *p, uint64_t count, size_t eb, int channels, const char *heads);

/* ar_nccl_proto (models/nccl_model.h) to ar_proto. */
ar_proto ar_nccl_proto_to_op(int nccl_proto);

/* The words of the proto= parameter of nccl-ring and nccl-tree (none = not modelled, auto = the tuner's). */
#define AR_NCCL_PROTO_WORDS "none|ll|ll128|simple|auto"

#endif
