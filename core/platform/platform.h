/* Platforms: the network a schedule runs on.
 *
 * Every platform, whatever its JSON kind, is loaded into one graph of nodes
 * (GPUs and switches) and full-duplex links, plus the structure algorithms and
 * closed-form models need:
 *   - kind "tree" and "fat-tree": a rooted tree of switches with GPUs as
 *     leaves (tree view: parent/children/depth on every node);
 *   - kind "torus": machines of g GPUs behind a machine switch, machine
 *     switches joined in a k-dimensional torus (dims, dimension-order routes);
 *   - kind "graph": explicit GPUs, switches and links (PCIe trees, NVLink
 *     meshes); routes are shortest paths in hops, ties broken by lower node
 *     index (deterministic).
 * Ranks are numbered 0..nranks-1: in DFS order of the tree (children in file
 * order), machine-major on a torus, file order in a graph.
 *
 * A link's capacity per direction is bw_Bps * lanes; both directions are
 * independent (full duplex). A transfer's latency is the sum of lat_s over the
 * links of its route.
 *
 * Ownership: ar_platform_* loaders return a platform the caller frees with
 * ar_platform_free(). Everything inside it is owned by it.
 */
#ifndef AR_PLATFORM_H
#define AR_PLATFORM_H

#include <stdint.h>
#include <stdio.h>
#include "core/status.h"

#define AR_MAX_LEVELS 16
#define AR_MAX_DIMS 8
#define AR_MAX_RANKS (1 << 20) /* refused beyond, with a message */
#define AR_MAX_NODES (1 << 22)
#define AR_NAME_MAX 200  /* bytes in a node, link or preset name */
#define AR_CAL_NALGOS 7  /* models/nccl_model.h AR_NCCL_NALGOS */
#define AR_CAL_NPROTOS 3 /* AR_NCCL_NPROTOS */

typedef enum ar_node_kind { AR_NODE_GPU = 0, AR_NODE_SWITCH = 1 } ar_node_kind;

typedef struct ar_node {
    char *name;
    ar_node_kind kind;
    int rank;    /* GPU: its rank; switch: -1 */
    int machine; /* index of the machine (host) it belongs to, -1 for network switches */
    /* tree view (tree/fat-tree kinds; on others parent=-1, depth=0) */
    int parent; /* node index, -1 at the root */
    int uplink; /* link index to the parent, -1 at the root */
    int depth;  /* root = 0 */
    int nchildren;
    int *children;        /* node indices, file order (owned) */
    int rank_lo, rank_hi; /* GPUs under this node are ranks [rank_lo, rank_hi) */
    /* a switch that reduces (NVLink SHARP, InfiniBand SHARP; JSON "reduce_bw"): the
     * bytes per second it absorbs into reductions, summed over every transfer
     * that ends in it with reduce=1; 0 = cannot reduce. Such a switch can be the
     * end or start of a transfer (lower.h, AR_IMPL_SWITCH). */
    double reduce_Bps;
    int vlink; /* its virtual reduction link (index >= nlinks, see ar_platform.nvlinks), or -1 */
} ar_node;

typedef struct ar_link {
    int a, b;      /* node indices */
    double bw_Bps; /* per lane, per direction */
    double lat_s;
    int lanes;  /* >= 1 */
    char *name; /* "a-b" unless the file names it */
} ar_link;

/* One level of a horizontally symmetric hierarchy, lowest first: groups of
 * `fanout` members (GPUs at level 0, level-(i-1) groups above) joined by links
 * of bw_Bps (capacity incl. lanes) and lat_s. BlueConnect's p_i and w_i. */
typedef struct ar_level {
    int fanout;
    double bw_Bps;
    double lat_s;
} ar_level;

typedef enum ar_platform_kind { AR_PLAT_TREE, AR_PLAT_FAT_TREE, AR_PLAT_TORUS, AR_PLAT_GRAPH } ar_platform_kind;

typedef struct ar_platform {
    char *name;
    char *source;      /* file path, "preset:NAME" or "generated:SPEC" */
    char *description; /* may be NULL */
    ar_platform_kind kind;
    /* The GPU as the platform declares it ("gpu": a model such as "h100" or "sm_89"; "" = not
     * declared) and its compute capability (ar_gpu_cc; 0 = not declared): NCCL's model needs it. */
    char gpu[24];
    int gpu_cc;

    int nnodes;
    ar_node *nodes;
    int nlinks;
    ar_link *links;
    /* Virtual links: links[nlinks .. nlinks + nvlinks) stand for the reduction
     * capacity of the reducing switches (one each, a = b = the switch, bw =
     * reduce_Bps, lat 0). They are not in the adjacency and join no route
     * between ranks; a transfer that ends in a reducing switch with reduce=1
     * crosses its virtual link in direction 0 (ar_platform_route_x). Consumers
     * that size per-link state by links use nlinks + nvlinks. */
    int nvlinks;

    int nranks;
    int *rank_node; /* node index of each rank */

    int nmachines;
    int *machine_of_rank;    /* machine index of each rank */
    int *machine_first_rank; /* ranks of machine m: [first[m], first[m+1]) (nmachines+1 entries) */

    /* tree view */
    int root;          /* node index of the root switch; -1 if not a tree */
    int height;        /* number of switch levels (FlexReduce's L) = the
                            largest depth of a GPU; 0 if not a tree */
    int uniform_depth; /* 1 if every GPU is at the same depth; 0 if not a tree */

    /* symmetric hierarchy, when the platform has one (trees whose nodes at a
     * depth all have the same fan-out and link bandwidth; a torus as machine
     * level + one level per dimension). nlevels = 0 when asymmetric. */
    int nlevels;
    ar_level levels[AR_MAX_LEVELS];

    /* torus */
    int ndims;
    int dims[AR_MAX_DIMS];
    int gpus_per_machine;

    /* adjacency (CSR over nodes): adj[adj_off[v] .. adj_off[v+1]) are
     * link indices touching node v. */
    int *adj_off;
    int *adj;

    /* private routing state (graph kind: next-hop table), opaque */
    void *route_state;

    /* compute costs (the file's "compute" object, platforms/README.md):
     * reduce_Bps: every GPU's reduction rate in bytes of received data per
     * second (0 = free); launch_s: per-op launch overhead, paid once per op per
     * rank before its first round (0 = none). `--gamma G` sets reduce_Bps = 1/G. */
    double reduce_Bps;
    double launch_s;
    /* host staging copies (compute.stage): a staged transfer copies device-to-host at its sender
     * (stage_d2h_Bps) before its network part and host-to-device at its receiver (stage_h2d_Bps)
     * after it, each on that GPU's copy engine (one copy at a time). 0 = no staging. Staged:
     * transfers between machines, or every transfer when stage_all. */
    double stage_d2h_Bps, stage_h2d_Bps;
    int stage_all;
    /* per-message costs (LogGP; compute.message, docs/platforms.md): each transfer that pays them (between
     * machines, or every one when msg_all) costs msg_o_s of its sender's time before its network part and
     * msg_o_s of its receiver's time after it; each rank has one send side and one receive side, each a
     * serial resource (one message at a time, in order) that a message holds for max(o, g): consecutive
     * messages of one endpoint start at least msg_g_s apart. A staged transfer's copies run on the same
     * sides (send: o + the D2H copy, receive: o + the H2D copy). 0, 0 = none (the alpha-beta model). */
    double msg_o_s, msg_g_s;
    int msg_all;
    /* Ready messages (compute.message.ready; the MPI backend with eager messages, real/mpi/mexec.c): a
     * transfer whose sender did not send to the same receiver in the round just before (of its op, or an
     * op's last round in the phase before; ar_lower_gated) waits for an empty message from its receiver:
     * the route's latency back plus o at each end when that message pays the per-message costs
     * (ar_platform_ready_s). Every evaluator charges it as a wait after the transfer's network part, as
     * an NCCL step's (models/walk.c ar_xfer_wait); not under NCCL's protocols or switch ops
     * (ar_platform_msg_for). 0 = none. */
    int msg_ready;
    /* Pipelined receives (set on a shallow copy by the walk and the simulator for the switch schedules,
     * which run lockstep rounds; never read from a platform file): NCCL's proxy completes a step's
     * receive while the steps behind it are on the wire (up to NCCL_STEPS in flight per channel), so a
     * message is usable once it has landed and its receiver's side has taken it; the side still holds
     * it for max(o, g) (one message per max(o, g)). Its sender's o stays before its network part: the
     * data a step sends is ready at the step's start. A step then costs o + its network part, not
     * o + network part + o. */
    int msg_piped;
    /* slow-computing stragglers (a scenario's stragglers[].rate, core/scenario.c): rank r reduces at
     * rank_compute[r] (in (0, 1]) times the reduction rate, i.e. its reductions take 1/rank_compute[r]
     * as long; its staging copies and launch overhead are unchanged. NULL = every rank at full rate. */
    double *rank_compute;

    /* the file's "notes" (sources and assumptions of its numbers), may be 0/NULL */
    int nnotes;
    char **notes;

    /* Calibration (platforms/README.md "calibration" and "nccl"): the file's factors, ALREADY
     * applied by the loader to the links (and levels): class 0 = links with both ends in one machine
     * (NVLink/NVSwitch), class 1 = every other link (NIC, rail, spine). 1 = none. nccl_eff[a][p]: the
     * efficiency NCCL's cost model multiplies the bandwidth of algorithm a, protocol p by (indices in the
     * order of models/nccl_model.h's ar_nccl_algo / ar_nccl_proto), 0 = not given (1). cal_base: the
     * preset the file was calibrated from (NAME:nodes=N's NIC defaults), may be NULL.
     * cal_sw_bw[c][k]: the switches' rates of class c for NCCL's model, k 0 = NVLS and NVLS_TREE (the
     * NVSwitch's reduction and multicast), 1 = COLLNET_DIRECT and COLLNET_CHAIN (the network's SHARP);
     * they take the place of cal_bw[c] for those algorithms; 0 = not given (cal_bw[c]). JSON
     * "calibration": {"intra": {"nvls", "collnet"}, "inter": {...}}. NCCL's model only (not the links). */
    int calibrated;
    double cal_lat[2], cal_bw[2];
    double cal_sw_bw[2][2];
    double nccl_eff[AR_CAL_NALGOS][AR_CAL_NPROTOS];
    char *cal_base;
    /* The NCCL release NCCL's cost model follows on this platform (models/nccl_model.h
     * ar_nccl_version_parse; 0 = the newest modelled): set by the command line's --nccl-version. */
    int nccl_version;
    /* 1: NCCL's model prices the tuner's own time, without arlab's additions (models/nccl_model.h
     * ar_nccl_in.tuner_only); set by the command line's --nccl-model tuner. */
    int nccl_tuner_only;
} ar_platform;

/* The class of link l for the calibration factors: 0 both ends in one machine, 1 otherwise. */
int ar_platform_link_class(const ar_platform *p, int l);
/* Multiplies p's links (and levels) by its calibration factors (cal_lat, cal_bw); the loaders call it once. */
void ar_platform_apply_calibration(ar_platform *p);
/* NCCL's algorithm and protocol names in the order of nccl_eff (NCCL's spelling, "RING", "SIMPLE"). */
extern const char *const ar_cal_algo_names[AR_CAL_NALGOS];
extern const char *const ar_cal_proto_names[AR_CAL_NPROTOS];

/* A directed use of a link: link index * 2 + (0 if a->b, 1 if b->a). */
typedef int ar_dlink;
#define AR_DLINK(link, rev) ((link)*2 + ((rev) ? 1 : 0))
#define AR_DLINK_LINK(d) ((d) / 2)

/* Loads a platform from NAME_OR_SPEC, tried in this order:
 *   - a generated family "FAMILY[:key=value,...]" (see ar_platform_generate);
 *   - a path to a .json file (contains '/' or ends in ".json");
 *   - a preset name (file platforms/NAME.json in the preset directory).
 * ranks > 0 overrides/sets the family's rank count (--ranks); 0 = default.
 * For a file or preset, ranks > 0 must equal its rank count (else an error). */
ar_status ar_platform_load(const char *name_or_spec, int ranks, ar_platform **out, ar_err *e);

/* Parses a JSON document (text, NUL-terminated; format in platforms/README.md).
 * `where` names it in errors ("WHERE: JSON.PATH: problem") and becomes p->source. */
ar_status ar_platform_from_json(const char *text, const char *where, ar_platform **out, ar_err *e);

/* Generated families: "flat", "tree", "fat-tree", "torus", "machines".
 * spec is "family" or "family:key=value,key=value". See platforms/README.md. */
ar_status ar_platform_generate(const char *spec, int ranks, ar_platform **out, ar_err *e);

/* 1 if the first len bytes of name are a generated family's name. */
int ar_platform_is_family(const char *name, size_t len);

void ar_platform_free(ar_platform *p);

/* The built-in presets: <executable's dir>/../share/arlab/presets when that exists (an installed,
 * relocatable arlab), else the source tree's platforms/ (compiled in). */
const char *ar_platform_preset_dir(void);
/* The file of preset `name` (its first len bytes) into buf: the first NAME.json found in the
 * ':'-separated directories of $ARLAB_PLATFORM_DIR, then in the built-in presets (the user's
 * directories add presets or override them; they never hide the built-in ones). 1 if found. */
int ar_platform_preset_path(const char *name, size_t len, char *buf, size_t n);

/* Lists preset names (sorted). *names is owned by the caller: free each, then the array. */
ar_status ar_platform_list_presets(char ***names, int *count, ar_err *e);

/* Route from rank src to rank dst: writes up to max directed links into out
 * and returns the route length (>= 0), or -1 if max is too small or a rank is
 * out of range. src==dst -> 0. Trees: up to the lowest common ancestor and
 * down; torus: dimension order (dim 0 first), shortest way round, ties go +1;
 * graph: fewest hops, ties to the lower node index. */
int ar_platform_route(const ar_platform *p, int src, int dst, ar_dlink *out, int max);

/* The one route-buffer policy for consumers that keep routes: writes the route
 * from src to dst into the caller's growable array *buf (capacity *cap
 * elements, grown with ar_grow as the route needs; the caller frees *buf)
 * starting at element `at`, and sets *len to its length. No fixed limit: a
 * route is as long as the platform makes it. AR_EINVAL when a rank is out of
 * range, AR_ENOMEM when growing fails (*buf, *cap stay valid either way). */
ar_status ar_platform_route_append_slow(const ar_platform *p, int src, int dst, ar_dlink **buf, size_t *cap, size_t at,
                                        int *len, ar_err *e);
static inline ar_status ar_platform_route_append(const ar_platform *p, int src, int dst, ar_dlink **buf, size_t *cap,
                                                 size_t at, int *len, ar_err *e) {
    /* inline: the cost walk and the simulator route every transfer; the rare
     * cases (a bad rank, a buffer to grow) are ar_platform_route_append_slow */
    size_t room = *buf && *cap > at ? *cap - at : 0;
    int n = ar_platform_route(p, src, dst, room ? *buf + at : NULL, room > INT32_MAX ? INT32_MAX : (int)room);
    if (n >= 0) {
        *len = n;
        return AR_OK;
    }
    return ar_platform_route_append_slow(p, src, dst, buf, cap, at, len, e);
}

/* Transfer endpoints (lower.h ar_xfer.src/dst): a rank (>= 0), or a switch
 * node v encoded as AR_EP_NODE(v) = -2 - v. */
#define AR_EP_NODE(v) (-2 - (v))
#define AR_EP_IS_NODE(ep) ((ep) <= -2)
#define AR_EP_NODE_OF(ep) (-2 - (ep))

/* Route of a transfer between endpoints (ranks or switch nodes; one end at
 * most a switch); with reduce and a switch at the destination the route ends
 * with the switch's virtual reduction link. Routes to or from a switch:
 * trees up/down the parents; rail fabrics from the structure (a GPU to its
 * NVSwitch; to rail j directly or by NVLink to the node's GPU j first); other
 * graphs by the next-hop table (switch -> rank; rank -> switch is its
 * reverse). Returns the length or -1 (max too small, a bad endpoint, a switch
 * that does not reduce as the reducing destination, no structural route). */
int ar_platform_route_x(const ar_platform *p, int src, int dst, int reduce, ar_dlink *out, int max);
ar_status ar_platform_route_x_append(const ar_platform *p, int src, int dst, int reduce, ar_dlink **buf, size_t *cap,
                                     size_t at, int *len, ar_err *e);
/* Dense index of an endpoint for per-endpoint state: a rank r -> r, a reducing
 * switch -> nranks + (its vlink - nlinks); -1 for anything else. */
static inline int ar_platform_ep_index(const ar_platform *p, int ep) {
    if (ep >= 0) return ep < p->nranks ? ep : -1;
    if (!AR_EP_IS_NODE(ep) || AR_EP_NODE_OF(ep) >= p->nnodes) return -1;
    int vl = p->nodes[AR_EP_NODE_OF(ep)].vlink;
    return vl >= 0 ? p->nranks + (vl - p->nlinks) : -1;
}

struct ar_schedule;
/* Sets the node index (op->sw) of every switch op that names its switch
 * (op->sw_name, from a schedule file); AR_EINVAL, one line, for a name that is
 * no node of p or names a GPU. */
ar_status ar_schedule_resolve_switches(struct ar_schedule *s, const ar_platform *p, ar_err *e);

/* Checks every AR_IMPL_SWITCH op of a schedule against p: its switch is a node
 * of p, a switch, able to reduce, and every member reaches it (a route). */
ar_status ar_platform_check_switch_ops(const ar_platform *p, const struct ar_schedule *s, ar_err *e);

/* Latency of the route (sum of lat_s) and its narrowest capacity (bw*lanes).
 * src == dst: latency 0, capacity INFINITY; an invalid rank: NAN. */
double ar_platform_route_lat(const ar_platform *p, int src, int dst);
double ar_platform_route_bw(const ar_platform *p, int src, int dst);

/* 1 if a transfer from rank src to rank dst stages through host memory (compute.stage). */
static inline int ar_platform_staged(const ar_platform *p, int src, int dst) {
    if (!(p->stage_d2h_Bps > 0)) return 0;
    return p->stage_all || !p->machine_of_rank || p->machine_of_rank[src] != p->machine_of_rank[dst];
}

/* 1 if p has per-message costs (LogGP o or g). */
static inline int ar_platform_has_msg(const ar_platform *p) { return p->msg_o_s > 0 || p->msg_g_s > 0; }

/* 1 if a transfer from rank src to rank dst pays the per-message costs (compute.message). */
static inline int ar_platform_msg(const ar_platform *p, int src, int dst) {
    if (!ar_platform_has_msg(p)) return 0;
    return p->msg_all || !p->machine_of_rank || p->machine_of_rank[src] != p->machine_of_rank[dst];
}

/* A transfer's time on its sender's (recv = 0) or receiver's (recv = 1) serial side: the per-message
 * overhead o and, when staged, its copy; *hold: how long the side is busy with it (max(cost, g)).
 * 0 when the transfer uses neither. Pipelined receives (msg_piped): the receiver's cost leaves out
 * o, which its side still holds the message for. */
static inline double ar_platform_side_cost(const ar_platform *p, int src, int dst, double bytes, int recv,
                                           double *hold) {
    double c = 0, copy = 0;
    int m = ar_platform_msg(p, src, dst);
    if (m) c += p->msg_o_s;
    if (ar_platform_staged(p, src, dst)) c += copy = bytes / (recv ? p->stage_h2d_Bps : p->stage_d2h_Bps);
    *hold = m && p->msg_g_s > c ? p->msg_g_s : c;
    return m && recv && p->msg_piped ? copy : c; /* piped: o held, not waited for */
}

/* The wait of a gated transfer src -> dst under ready messages (msg_ready): one empty message from dst
 * to src, its route's latency plus o at each end when it pays the per-message costs; 0 without, and 0
 * when both ranks are on one machine (the MPI executor gates only transfers between machines). */
static inline double ar_platform_ready_s(const ar_platform *p, int src, int dst) {
    if (!p->msg_ready || src < 0 || dst < 0 || src >= p->nranks || dst >= p->nranks || src == dst) return 0;
    if (p->machine_of_rank && p->machine_of_rank[src] == p->machine_of_rank[dst]) return 0;
    double lat = ar_platform_route_lat(p, dst, src);
    if (!(lat == lat)) lat = 0; /* no route: the evaluators refuse the transfer anyway */
    return lat + (ar_platform_msg(p, dst, src) ? 2 * p->msg_o_s : 0);
}

/* 1 if a transfer src -> dst goes through the serial sides (per-message costs or staging). */
static inline int ar_platform_sided(const ar_platform *p, int src, int dst) {
    return ar_platform_msg(p, src, dst) || ar_platform_staged(p, src, dst);
}

/* 1 if p has compute costs: a reduction rate, a launch overhead, staging copies or per-message costs. */
static inline int ar_platform_has_costs(const ar_platform *p) {
    return p->reduce_Bps > 0 || p->launch_s > 0 || p->stage_d2h_Bps > 0 || ar_platform_has_msg(p);
}

/* Seconds per byte of rank r's reductions when the platform's are gamma: gamma / rank_compute[r]. */
static inline double ar_platform_rank_gamma(const ar_platform *p, double gamma, int r) {
    return p->rank_compute && r >= 0 && r < p->nranks ? gamma / p->rank_compute[r] : gamma;
}

/* Capacity per direction of a link (bw_Bps * lanes). */
static inline double ar_link_capacity(const ar_link *l) { return l->bw_Bps * l->lanes; }

/* The compute capability of a GPU named as a platform's "gpu" key: a model ("p100", "v100",
 * "a100", "h100", "h200", "b200", "rtx4090", ...; case and a leading "nvidia " ignored) or
 * "sm_NN" / "smNN" / "NN". AR_EINVAL with the known models where it is neither. */
ar_status ar_gpu_cc(const char *gpu, int *cc, ar_err *e);

/* Writes a JSON description of p (the normalized graph form) or a human summary. */
ar_status ar_platform_print_json(const ar_platform *p, FILE *f, ar_err *e);
void ar_platform_print_summary(const ar_platform *p, FILE *f);

#endif
