/* NCCL's own cost model, re-implemented from reading NVIDIA/nccl (no code copied).
 *
 * NCCL picks an algorithm and a protocol for every collective from a table of
 * per-(collective, algorithm, protocol) latencies and bandwidths that it fills
 * once per communicator (src/graph/tuning.cc, ncclTopoTuneModel) from the
 * graphs its topology search found (src/graph/search.cc: per algorithm a
 * channel count and a per-channel intra-node and inter-node bandwidth), then
 * estimates time = latency + bytes / bandwidth (ncclTopoGetAlgoTime) and takes
 * the minimum over the enabled pairs (enqueue.cc, topoGetAlgoInfo). This module
 * does the same from an explicit input struct (ar_nccl_in), so that every
 * number can be checked by hand, and derives that struct from an arlab
 * platform (ar_nccl_in_from_platform) by a simplified topology search whose
 * assumptions are listed there.
 *
 * Constants: NCCL 2.30.7 (NVIDIA/nccl master, commit 5067397c), file
 * src/graph/tuning.cc (tuner constant tables, NVLS efficiency),
 * src/graph/search.cc (speed arrays, channel duplication), src/graph/topo.h
 * (per-link NVLink bandwidths). NCCL computes in float; this module computes in
 * double, so its values differ from NCCL's printed table by float rounding
 * (about 1e-7 relative).
 *
 * Units: the public functions take bytes and return seconds; bandwidths in the
 * input are NCCL's own unit, GB/s = 1e9 bytes/s per channel (bw_*_GBps), and
 * latencies microseconds (NCCL's tables are in us). The internal table
 * (ar_nccl_table) keeps NCCL's units: lat_us, busbw/algbw GB/s.
 *
 * Ownership: everything is plain values; nothing is allocated.
 */
#ifndef AR_NCCL_MODEL_H
#define AR_NCCL_MODEL_H

#include <stdint.h>
#include "core/platform/platform.h"
#include "../core/status.h"

#define AR_NCCL_MODEL_VERSION "2.30.7" /* the default; ar_nccl_version_parse lists the others */

/* The GPU-to-GPU latency (us) that NCCL's latency tables are taken to include, per class; a platform's
 * excess over it adds to every step of that class (a family's lat=, a slow fabric).
 * Inside a node 2 us, not the 0.6 us of NCCL's LL step over NVLink that the modern presets now declare
 * (two 0.3 us links through the NVSwitch): the papers' presets declare 2 us GPU to GPU, and their NCCL
 * figures must not move; so an NVLink hop between 0.6 and 2 us does not move NCCL's model.
 * Across nodes: two 1 us links through the rail switch. */
#define AR_NCCL_REF_HOP_NVLINK_US 2.0
#define AR_NCCL_REF_HOP_NET_US 2.0
/* NCCL's PCI class (a node whose GPUs are not on NVLink). */
#define AR_NCCL_REF_HOP_PCI_US 2.0

typedef enum ar_nccl_coll {
    AR_NCCL_ALLREDUCE = 0,
    AR_NCCL_REDUCESCATTER = 1,
    AR_NCCL_ALLGATHER = 2,
    AR_NCCL_NCOLLS = 3
} ar_nccl_coll;

/* NCCL's algorithm order (NCCL_ALGO_*); the tuner breaks ties in this order. */
typedef enum ar_nccl_algo {
    AR_NCCL_TREE = 0,
    AR_NCCL_RING = 1,
    AR_NCCL_COLLNET_DIRECT = 2,
    AR_NCCL_COLLNET_CHAIN = 3,
    AR_NCCL_NVLS = 4,
    AR_NCCL_NVLS_TREE = 5,
    AR_NCCL_PAT = 6,
    AR_NCCL_NALGOS = 7
} ar_nccl_algo;

typedef enum ar_nccl_proto { AR_NCCL_LL = 0, AR_NCCL_LL128 = 1, AR_NCCL_SIMPLE = 2, AR_NCCL_NPROTOS = 3 } ar_nccl_proto;

/* One topology-search result (NCCL's struct ncclTopoGraph, the fields the tuner reads). */
typedef struct ar_nccl_graph {
    int nchannels;        /* 0 = no graph found: the algorithms on it are disabled */
    double bw_intra_GBps; /* per channel, inside a node */
    double bw_inter_GBps; /* per channel, across nodes (NIC) */
    double lat_inter_us;  /* graph->latencyInter (0 on InfiniBand/RoCE) */
    int intra_nvlink;     /* typeIntra is NVLink (latency class NVLINK, else PCI) */
    int ll128_paths_ok;   /* typeIntra <= PATH_NVB and typeInter <= PATH_PXN (Hopper+) or PXB */
} ar_nccl_graph;

/* Everything ncclTopoTuneModel and the selection read. Graph mapping as in NCCL's init.cc:
 * TREE and PAT use `tree`, RING `ring`, NVLS and NVLS_TREE `nvls`, COLLNET_* their own. */
typedef struct ar_nccl_in {
    int cc_min, cc_max;         /* CUDA compute capability x10: 70 Volta, 80 Ampere, 90 Hopper, 100 Blackwell */
    int nranks, nnodes;         /* ppn = nranks / nnodes (NCCL uses the float ratio) */
    int cpu_amd;                /* CPU vendor AMD (llMaxBw row, 2 us net overhead); else Intel/ARM */
    int cpu_x86;                /* x86 CPU (NVLS_TREE size correction on Blackwell) */
    int tree_pattern_tree;      /* comm->maxTreePattern == TREE (not BALANCED_TREE): tree busbw x0.85 (2.23+;
                                 * ar_nccl_in_from_platform: one GPU a node, or Hopper+ with a NIC per GPU) */
    int tree_balanced;          /* several nodes, and the tree graph is BALANCED_TREE (any release): a
                                 * channel's parent and children on two GPUs behind one NIC's PCIe switch */
    int nvswitch;               /* nvsCount > 0: CollNet Direct allowed */
    int nvls_support;           /* comm->nvlsSupport (NVSwitch with multicast, cc >= 90) */
    int collnet_enable;         /* comm->config.collnetEnable (a CollNet/SHARP plugin is there) */
    int collnet_chain_support;  /* collNetChainSupport */
    int collnet_heads;          /* collNetHeadsNum */
    int collnet_ag, collnet_rs; /* the CollNet plugin has iallgather / ireducescatter */
    int net_host;               /* netDeviceType == HOST (no NIC device offload): PAT allowed */
    int ll128_c2c;              /* NCCL_LL128_C2C (default 1) */
    double net_overhead_us;     /* getNetOverhead; < 0 = NCCL's default (1 us, 2 us on AMD x86) */
    int cudart_11_8;            /* CUDART_VERSION == 11080 (an LL128 exclusion on Hopper, 2 ranks) */
    ar_nccl_graph tree, ring, nvls, collnet_direct, collnet_chain;
    /* The NCCL release whose tables and formulas are used (ar_nccl_version_parse; 0 = the newest modelled). */
    int version;
    /* 1: ar_nccl_table_time (and so the choice's time) prices what runs, the bandwidth of the channels
     * enqueue.cc's channel tuning leaves at that size (ar_nccl_channel_share), not the tuner's estimate
     * on every channel; the choice itself is still made on the tuner's estimate. 0 (the default everywhere, nccl_model_s included): the tuner's
     * own estimate. Against the public logs it moves the middle sizes by < 6 %, so it stays opt-in. */
    int runtime_channels;
    /* The platform's own latency (us) between two GPUs inside a node [0] and across nodes [1]: what it
     * exceeds its class's reference (AR_NCCL_REF_HOP_NVLINK_US, AR_NCCL_REF_HOP_NET_US) by (a slow fabric, a family's lat=) is added to NCCL's per-step latency of
     * that class; 0 = none. */
    double hop_lat_us[2];
    /* Calibration (not NCCL's): ar_nccl_model_tune multiplies every latency by cal_lat and the
     * bandwidth of (algo a, proto p) by cal_bw x eff[a][p]; 0 = 1 (none). ar_nccl_in_from_platform sets
     * them from a calibrated platform: its intra-node factors on one node, its inter-node ones on
     * several, and its "nccl" efficiencies. */
    double cal_lat, cal_bw;
    double eff[AR_NCCL_NALGOS][AR_NCCL_NPROTOS];
    /* The switches' rates (calibration): cal_sw_bw[0] takes cal_bw's place for NVLS and NVLS_TREE (the
     * NVSwitch's reduction and multicast), cal_sw_bw[1] for COLLNET_DIRECT and COLLNET_CHAIN (SHARP);
     * 0 = cal_bw. ar_nccl_in_from_platform sets them from the platform's cal_sw_bw of its class. */
    double cal_sw_bw[2];
    /* 1: the tuner's own time (ncclTopoGetAlgoTime) only; 0 (ar_nccl_in_defaults): the tuner's time plus
     * arlab's pipeline fill (ar_nccl_pipeline_fill_s) in ar_nccl_model_time and the time of
     * ar_nccl_model_choose. The choice itself is the tuner's either way. ar_nccl_in_from_platform sets it
     * from the platform's nccl_tuner_only (--nccl-model tuner) and on a calibrated platform (the fit
     * scales the tuner's own terms and has taken in what they leave out). */
    int tuner_only;
    /* 1: ar_nccl_pipeline_fill_s also prices NVLS_TREE all-reduce's fill across nodes on Hopper (see there);
     * 0: not. ar_nccl_in_defaults leaves it 0; ar_nccl_in_from_platform sets it unless tuner_only (the
     * `nccl` schedule pays that fill too: algos/switch_common.c). */
    int nvlstree_fill;
} ar_nccl_in;

/* NCCL's tuning table for one input: bw_GBps is the per-collective algorithm
 * bandwidth NCCL divides bytes by (0 = disabled), lat_us the latency it adds. */
typedef struct ar_nccl_table {
    double busbw_GBps[AR_NCCL_NCOLLS][AR_NCCL_NALGOS][AR_NCCL_NPROTOS]; /* before the bus->alg ratio */
    double bw_GBps[AR_NCCL_NCOLLS][AR_NCCL_NALGOS][AR_NCCL_NPROTOS];
    double lat_us[AR_NCCL_NCOLLS][AR_NCCL_NALGOS][AR_NCCL_NPROTOS];
    int enabled[AR_NCCL_NCOLLS][AR_NCCL_NALGOS][AR_NCCL_NPROTOS]; /* also passes the selection's filters */
} ar_nccl_table;

/* Fills in with NCCL's defaults for nranks/nnodes/cc (no graphs: nchannels 0):
 * Intel x86 CPU, balanced tree, LL128_C2C on, net host, no CollNet, no NVLS. */
void ar_nccl_in_defaults(ar_nccl_in *in, int cc, int nranks, int nnodes);

/* ncclTopoTuneModel: the whole table. AR_EINVAL on an input NCCL could not have
 * (nranks < 1, nnodes not dividing it, cc < 60, negative bandwidths). */
ar_status ar_nccl_model_tune(const ar_nccl_in *in, ar_nccl_table *t, ar_err *e);

/* ncclTopoGetAlgoTime with one pipelined op: time_s = lat + bytes / bw, with
 * NCCL's tree correction factors and ring plateau latency. AR_EUNSUPPORTED if the
 * (coll, algo, proto) is disabled for this input (NCCL's time -1). */
ar_status ar_nccl_model_time(const ar_nccl_in *in, ar_nccl_coll coll, ar_nccl_algo algo, ar_nccl_proto proto,
                             double bytes, double *time_s, ar_err *e);
/* The same on a table computed once by ar_nccl_model_tune. */
ar_status ar_nccl_table_time(const ar_nccl_in *in, const ar_nccl_table *t, ar_nccl_coll coll, ar_nccl_algo algo,
                             ar_nccl_proto proto, double bytes, double *time_s, ar_err *e);

/* ar_nccl_table_time's two terms, in seconds: *lat_s the latency NCCL's model adds per call (the table's
 * latency: launch and the protocol's per-step latencies, the ring's plateau factor included) and *xfer_s
 * the bytes over its bandwidth (the tree's size corrections included); ar_nccl_table_time is their sum. */
ar_status ar_nccl_table_terms(const ar_nccl_in *in, const ar_nccl_table *t, ar_nccl_coll coll, ar_nccl_algo algo,
                              ar_nccl_proto proto, double bytes, double *lat_s, double *xfer_s, ar_err *e);

/* arlab's addition to the tuner's time, in seconds: the pipeline fill of NVLS all-reduce on one node,
 * which ncclTopoGetAlgoTime leaves out. NCCL moves an NVLS operation in chunks (enqueue.cc
 * calcCollChunking: NCCL_NVLS_CHUNKSIZE, 128 KiB, lowered to 64/32/16 KiB below 64/8/2 x the concurrent
 * ops x the chunk) over ops = the runtime NVLS channels (transport/nvls.cc: 16 CTAs on Hopper, 24 on
 * one Blackwell node) x the heads (the NVLS graph's channels). A chunk passes the three warp groups of
 * device/all_reduce.h one after the other, each a store-and-forward stage (scatter to the heads ->
 * reduce and multicast through the switch -> gather); the tuner's bytes / bandwidth counts one stage,
 * the fill is the other two: 2 c / r with c = min(chunk, bytes / ops) and r = the NVLS graph's
 * per-channel bwIntra / the runtime channels (the per-op rate; a calibrated input scales it by the
 * algorithm's bandwidth factor, as it does the tuner's bandwidth). 0 for every other algorithm,
 * collective, protocol and node count (ring: every step is already charged; tree LL/LL128: forwarded
 * line by line) and for one rank.
 * With nvlstree_fill (on from a platform unless tuner_only): NVLS_TREE all-reduce across nodes on Hopper, NCCL 2.23 and newer, pays
 * the same three-stage fill 2 c / r, with c = min(NVLS_TREE's chunk, bytes / ops) (enqueue.cc
 * calcCollChunking: NCCL_NVLS_CHUNKSIZE 128 KiB, at most 64 KiB from 4 nodes (transport/nvls.cc
 * treeMaxChunkSize), 64 KiB below 4 x ops x the chunk, 32 KiB below ops x the chunk), ops = 16 x the
 * heads, and r = the tuner's NVLS_TREE algorithm bandwidth / ops (the rate the tuner itself gives each
 * concurrent op). Not on Blackwell (ncclNvlsTreeSm100Tuning sets its own channels and chunks) nor 2.18
 * (whose NVLS_TREE chunk starts from the Simple step). */
double ar_nccl_pipeline_fill_s(const ar_nccl_in *in, ar_nccl_coll coll, ar_nccl_algo algo, ar_nccl_proto proto,
                               double bytes);

/* NVLS all-reduce's chunk, bytes (enqueue.cc calcCollChunking): NCCL_NVLS_CHUNKSIZE 128 KiB, cut to 64,
 * 32 and 16 KiB below 64, 8 and 2 x ops x the chunk; ops = the runtime NVLS channels x the heads. NCCL's
 * model's one-node fill and the nvls schedule's steps (algos/switch_common.c) both take it from here. */
double ar_nccl_nvls_chunk(double bytes, double ops);

/* The rate NVLS all-reduce's fill on one node runs at (ar_nccl_pipeline_fill_s), bytes per second: the
 * heads x the NVLS graph's bwIntra (a calibrated input's factor on it included), what the ops together
 * move at r = bwIntra / the runtime NVLS channels each; *ops (may be NULL): the concurrent ops, the
 * runtime NVLS channels x the heads. 0 (and *ops 0) for several nodes, one rank or no NVLS heads.
 * Independent of tuner_only (the schedule's physics, not the model's price). */
double ar_nccl_nvls_fill_bw(const ar_nccl_in *in, double *ops);

/* NVLS_TREE all-reduce's chunk, bytes (enqueue.cc calcCollChunking, 2.23 and newer): NCCL_NVLS_CHUNKSIZE
 * 128 KiB, at most 64 KiB from 4 nodes (transport/nvls.cc treeMaxChunkSize), 64 KiB below 4 x ops x the
 * chunk, 32 KiB below ops x the chunk; ops = the runtime NVLS channels x the heads. NCCL's model's fill
 * and the nvlstree schedule's slices (algos/switch_common.c) both take it from here. */
double ar_nccl_nvlstree_chunk(double bytes, double ops, int nnodes);

/* The rate NVLS_TREE all-reduce's fill across nodes runs at (ar_nccl_pipeline_fill_s with nvlstree_fill),
 * bytes per second: the tuner's NVLS_TREE Simple algorithm bandwidth (a calibrated input's factor on it
 * included), which every stage of NCCL's op pipeline (scatter, reduce, the trees, broadcast: warp groups
 * of the same CTAs) moves at; *ops (may be NULL): the concurrent ops, the runtime NVLS channels x the
 * heads. 0 (and *ops 0) where that fill does not apply: one node, not Hopper, before NCCL 2.23, no NVLS
 * heads. Independent of nvlstree_fill and tuner_only (the schedule's physics, not the model's price). */
double ar_nccl_nvlstree_fill_bw(const ar_nccl_in *in, double *ops);

/* One post of NCCL's proxy thread (a channel's network send), us: the HGX H100 log's NVLS_TREE floor at
 * 512 KiB - 1 MiB on 2 nodes (docs/models.md, "NCCL's proxy posts"). */
#define AR_NCCL_PROXY_POST_US 0.40
/* What NVLS_TREE all-reduce of `bytes` across nodes pays for NCCL's proxy posting its first step's
 * chunks one channel at a time, seconds: on each of its 2 log2(nodes) network steps, the runtime NVLS
 * channels x AR_NCCL_PROXY_POST_US less the step's bytes on the head's NIC (ops x chunk, at most `bytes`,
 * over the heads, at the NVLS graph's bwInter), where positive; 0 where ar_nccl_nvlstree_fill_bw is (one
 * node, not Hopper, before 2.23). Not in NCCL's model (the nvlstree schedule's term, models/walk.c
 * ar_phase_proto_effect). */
double ar_nccl_nvlstree_proxy_s(const ar_nccl_in *in, double bytes);

/* NCCL's choice: the minimum time over the enabled (algo, proto), ties to the
 * lower algorithm then protocol index (NCCL's loop order). algo < 0 lets the
 * tuner choose the algorithm too; algo >= 0 forces it (NCCL_ALGO=...) and picks
 * the protocol. Any output pointer may be NULL. AR_EUNSUPPORTED if nothing is enabled. */
ar_status ar_nccl_model_choose(const ar_nccl_in *in, ar_nccl_coll coll, int algo, double bytes, ar_nccl_algo *algo_out,
                               ar_nccl_proto *proto_out, double *time_s, ar_err *e);

/* The NCCL releases modelled: "2.18" (2.18.x, 2.19.x: NCCL 2.18.6's tuning.cc), "2.23" (2.23.4's), "2.24"
 * (2.24.3's), "2.26" (2.25.x, 2.26.x: 2.26.2's), "2.27" (2.27.x: 2.27.7's), "2.28" (2.28.x: 2.28.9's), "2.30"
 * (2.29.x, 2.30.x: 2.30.7's, the default). Accepts "2.N", "2.N.P" and "2.N.P-1"; returns the internal
 * version (21800, 22300, 22400, 22600, 22700, 22800, 23000) or -1 for a release not modelled (2.20 to 2.22
 * differ from every set in places: not claimed). */
int ar_nccl_version_parse(const char *s);
/* The release whose tables a version uses ("2.30.7"; 0 = the default). */
const char *ar_nccl_version_name(int version);

/* enqueue.cc's channel tuning for ring, tree and PAT: NCCL runs an operation of `bytes` on nc of the
 * communicator's N channels (N: the ring/tree graphs' common count, duplicated; nc the largest with
 * bytes >= nc x threads x bytes-per-thread, at least 1); returns nc / N (1 for other algorithms). */
double ar_nccl_channel_share(const ar_nccl_in *in, ar_nccl_coll coll, ar_nccl_algo algo, ar_nccl_proto proto,
                             double bytes);

/* NCCL's bandwidth correction of NVLS_TREE all-reduce by size (2.29+, tuning.cc: Blackwell and newer on
 * x86 take the trees' correction by log2(bytes / 64) below 1 GiB): the factor NCCL's model multiplies
 * NVLS_TREE's bandwidth by at `bytes` (Simple: 0.7 at 16 and 32 MiB, 0.8 at 64 MiB, 0.9 at 128-512 MiB),
 * 1 where it does not apply. */
double ar_nccl_nvlstree_corr(const ar_nccl_in *in, ar_nccl_coll coll, ar_nccl_proto proto, double bytes);

/* nccl-tests' definitions. algbw = bytes / time, bytes = nccl-tests' "size": the
 * all-reduce buffer, the whole reduce-scatter input, the whole all-gather output
 * (nranks x the per-rank chunk; NCCL's tuner times the same nBytes). busbw = algbw
 * x 2(n-1)/n for all-reduce, x (n-1)/n for reduce-scatter and all-gather. Bytes/s. */
double ar_nccl_algbw(double bytes, double time_s);
double ar_nccl_busbw(ar_nccl_coll coll, int nranks, double algbw_Bps);

/* A protocol's effect on ring/tree as NCCL's tuning tables give it: the factor
 * on bandwidth (LL 1/2 ring, 1/3.8 tree; LL128 0.92 ring, 120/128 tree across
 * nodes, 7/9 on one; Simple 1; the per-channel caps aside), the per-step
 * hardware latency (NVLink class, or the network's when inter) and the base
 * latency, in us. Any output may be NULL. AR_EINVAL for an unknown algo/proto. */
ar_status ar_nccl_proto_effect(ar_nccl_algo a, ar_nccl_proto p, int nnodes, int inter, double *bw_factor,
                               double *step_lat_us, double *base_lat_us);

/* The same for a modelled release (ar_nccl_version_parse; 0 = the default). NVLS and NVLS_TREE (any
 * protocol: NCCL runs them in Simple): factor 1, no per-step latency, and as the base latency NCCL's
 * NVLS latency inside a node, which tuning.cc charges once per operation (baseLat + hwLat[NVLINK]:
 * 23 us on 2.18, 25 us since; inter = 1 gives 0: the network's part belongs to the step across nodes). */
ar_status ar_nccl_proto_effect_v(int version, ar_nccl_algo a, ar_nccl_proto p, int nnodes, int inter, double *bw_factor,
                                 double *step_lat_us, double *base_lat_us);
/* The share of its Simple bus bandwidth protocol p keeps on algorithm a (RING or TREE) in NCCL's model
 * of `in` (tuning.cc, all-reduce) when `channels` of the graph's channels run: the protocol's factor and
 * its caps (llMaxBws over all channels, the per-channel LL128 maxima), which bind on fast fabrics with
 * many channels; -1 where the model has no such entry (the caller keeps ar_nccl_proto_effect's factor). */
double ar_nccl_proto_bw_share(const ar_nccl_in *in, ar_nccl_algo a, ar_nccl_proto p, int channels);
/* NCCL's factor on the tree's bus bandwidth for the shape of its tree graph (tuning.cc, 2.23 and later:
 * x0.85 where the search fell back to the simple TREE pattern, in->tree_pattern_tree); 1 otherwise. */
double ar_nccl_tree_pattern_factor(const ar_nccl_in *in);
/* The rate of one flow of one channel of algorithm a (RING or TREE) under protocol p in NCCL's model
 * of `in` (tuning.cc, all-reduce) when `channels` channels run, GB/s of payload: the bus bandwidth
 * over the channels on a ring (each link of a ring channel carries its data at the bus rate), the
 * algorithm bandwidth over them on a tree (each edge carries the whole buffer), the protocol's
 * factor and caps included; -1 where the model has no such entry. */
double ar_nccl_proto_flow_GBps(const ar_nccl_in *in, ar_nccl_algo a, ar_nccl_proto p, int channels);

const char *ar_nccl_algo_name(ar_nccl_algo a);   /* "TREE", "RING", ..., NCCL's spelling */
const char *ar_nccl_proto_name(ar_nccl_proto p); /* "LL", "LL128", "SIMPLE" */
const char *ar_nccl_coll_name(ar_nccl_coll c);   /* "allreduce", "reducescatter", "allgather" */
/* Parses a name (case-insensitive; also "nvlstree", "collnetdirect", "collnet_direct"). -1 if unknown. */
int ar_nccl_algo_parse(const char *s);
int ar_nccl_proto_parse(const char *s);
int ar_nccl_coll_parse(const char *s);

/* The compute capability of a platform by its name (the presets' GPUs): names
 * containing a100/p4d -> 80, h100/h200/p5 -> 90, b200/gb200 -> 100; 0 if none. */
int ar_nccl_cc_of_platform(const ar_platform *p);

/* Derives the input from an arlab platform, as NCCL's topology detection and
 * search would see it (cc = 0: ar_nccl_cc_of_platform, error if unknown).
 * Requires the same GPU count on every machine (AR_EUNSUPPORTED otherwise).
 * Assumptions (a simplified search.cc; the presets are built to fit them):
 *  - a GPU's NVLink bandwidth (NCCL's totalBw) is the capacity (bw x lanes) of
 *    its link(s) inside its machine: on a tree, its link to its machine switch,
 *    which is taken to be an NVSwitch when the machine has >= 2 GPUs (nvswitch = 1,
 *    latency class NVLINK); on a graph, the sum over its GPU-GPU links (no NVSwitch);
 *  - NCCL's per-link rate (topo.h: 20 GB/s SM80, 20.6 SM90, 40.1 SM100) is what
 *    the presets put as the per-lane bw, so the capacity is what NCCL's topology holds;
 *  - across machines: one NIC per GPU (rail-optimised), each NIC's bandwidth the
 *    machine's uplink capacity divided by its GPU count; PCIe never narrower;
 *    where a rail fabric lost NICs (ar_nccl_nic_gpus < ppn: a scenario's failed links)
 *    the ring and tree graph use only the NICs left on every node, each at its own
 *    bandwidth (the smallest machine's): channels = that count x floor(NIC / speed),
 *    as NCCL's search gives every channel a NIC that exists (7 of 8 NICs: 7 channels,
 *    7/8 of the inter-node bandwidth); NVLS keeps the cut over the GPUs;
 *  - ring: speeds from NCCL's speed array (intra-node array on one node, inter-node
 *    array on several), channel count the largest the per-GPU NVLink budget and the
 *    NICs allow (a GPU's outgoing NVLink carries (ppn-1)/ppn of the channels on
 *    several nodes, all of them on one), pass 1 (decrease speed while above 0.49 of
 *    the best), channel duplication (ncclTopoDupChannels) and pass 2 (raise speed
 *    with the channel count fixed) as in search.cc;
 *  - tree = the ring's graph (NCCL forces the same channel count; on an NVSwitch node
 *    the chain's per-GPU use equals the ring's);
 *  - NVLS (cc >= 90, NVSwitch, >= 2 GPUs per node): on one node min(32, ppn) channels,
 *    each using bw on every GPU's NVLink and twice on its head's, the speed the first of
 *    the intra array that fits, then bwInter raised as pass 2 does (while below
 *    2 x bwIntra); on several nodes up to min(32, ppn) channels, ch(s) = floor(nv/s) - 1 from the
 *    inter-node speed array (more channels first), bwInter then raised as on one node but
 *    within a NIC (the NIC:head pairing is not searched: one NIC per GPU assumed);
 *  - no CollNet (no SHARP plugin), Intel x86 CPUs, balanced trees, latencyInter = 0. */
ar_status ar_nccl_in_from_platform(const ar_platform *p, int cc, ar_nccl_in *out, ar_err *e);

/* NCCL's NICs on a rail fabric (GPUs with their own links out of their machine): the local GPU
 * indices j (0..ppn-1) whose GPU has such a link on every machine, in order, into nic_gpus (ppn
 * entries; NULL: count only). Their count, ppn on a healthy rail fabric, fewer once a scenario failed
 * NIC links (a channel of NCCL's rings and trees crosses between nodes on one rail, so it needs the
 * same NIC index alive on every node); 0 where no GPU has a link out of its machine (machine switches'
 * uplinks), on one machine, or where machines differ in size. */
int ar_nccl_nic_gpus(const ar_platform *p, int *nic_gpus);

/* One call for a column "nccl_model_s": derives the input from p (cc as in
 * ar_nccl_in_from_platform, 0 = by name) and returns NCCL's choice for coll at
 * bytes (algo < 0) or the best protocol of a forced algorithm (algo >= 0).
 * Outputs may be NULL. AR_EINVAL/AR_EUNSUPPORTED as the two calls it makes. */
ar_status ar_nccl_model_platform(const ar_platform *p, int cc, ar_nccl_coll coll, int algo, double bytes,
                                 ar_nccl_algo *algo_out, ar_nccl_proto *proto_out, double *time_s, ar_err *e);

#endif
