/* Private to core/platform/platform*.c: the platform builder and routing state
 * (platform_build.c, platform_finish.c).
 *
 * Dependencies run one way: the loaders (platform_json.c, platform_gen.c) and
 * the router (platform_route.c) include this header; the builder includes
 * none of them. platform.c (loading by name, presets, printing) uses only the
 * public platform.h.
 *
 * A loader creates a platform with ar_pb_begin(), adds nodes and links (tree
 * kinds add each child with ar_pb_child(), which records parent and uplink),
 * then calls ar_pb_finish(), which validates the graph and derives ranks,
 * machines, the tree view, levels, adjacency and routing tables. On any error
 * the caller frees the half-built platform with ar_platform_free(). */
#ifndef AR_PLATFORM_BUILD_H
#define AR_PLATFORM_BUILD_H

#include <stdint.h>
#include "platform.h"
#include "core/units.h"

/* Limits of the JSON format (documented in platforms/README.md). */
#define AR_GRAPH_MAX_NODES 4096
#define AR_MAX_LANES (1 << 24)

typedef struct ar_pbuild {
    ar_platform *p;
    int node_cap, link_cap;
    int ngpus;
} ar_pbuild;

/* Routing state behind ar_platform.route_state (owned by the platform). */
typedef struct ar_route_state {
    /* torus: switch node of each machine; link from machine m to its +1
     * neighbour along dim d at plus_link[m * ndims + d] (-1 if dims[d] == 1) */
    int *machine_switch;
    int *plus_link;
    /* graph: for destination rank r and node v, next_pos[r * nnodes + v] is
     * the position in v's adjacency list of the next link toward r's node
     * (UINT16_MAX at the destination itself) */
    uint16_t *next_pos;
    /* rail-optimised graph (platform_rail.c): routes from the structure, no
     * table. rail_gpus GPUs per node; for rank r, rail_nvl[r] is its link to the
     * node's NVSwitch (-1 with one GPU per node) and rail_nic[r] its link to
     * rail r % rail_gpus (-1 with one node). Memory O(ranks). */
    int rail_gpus;
    int *rail_nvl;
    int *rail_nic;
} ar_route_state;

/* Allocates an empty platform (name, source copied). */
ar_status ar_pb_begin(ar_pbuild *b, const char *name, const char *source, ar_platform_kind kind, ar_err *e);
/* Adds a node; *idx receives its index. name is copied. machine: -1 unless known. */
ar_status ar_pb_node(ar_pbuild *b, const char *name, ar_node_kind kind, int machine, int *idx, ar_err *e);
/* Adds a link a-b (name NULL: "a-b"); *idx (may be NULL) receives its index. */
ar_status ar_pb_link(ar_pbuild *b, int a, int bnode, double bw_Bps, double lat_s, int lanes, const char *name, int *idx,
                     ar_err *e);
/* Tree kinds: adds node `name` below `parent` (-1 for the root, then no link). */
ar_status ar_pb_child(ar_pbuild *b, int parent, const char *name, ar_node_kind kind, double bw_Bps, double lat_s,
                      int lanes, int *idx, ar_err *e);
/* Validates and derives everything else (platform_finish.c). Messages do not
 * carry a file name (the caller prefixes it). */
ar_status ar_pb_finish(ar_pbuild *b, ar_err *e);

/* Structured shapes (platform_build.c), used by the JSON loader and the
 * generated families.
 *
 * A symmetric tree: nlev levels, lowest first (fanout, per-lane bw, lat, lanes).
 * full_bisection multiplies level i's lanes by the product of fanouts below. */
typedef struct ar_level_spec {
    long long fanout;
    double bw_Bps, lat_s;
    long long lanes;
    double reduce_Bps; /* the level's switches reduce at this rate (0: they cannot) */
} ar_level_spec;
/* Builds the tree into b (already begun). Errors name "levels[i]..." paths. */
ar_status ar_pb_sym_tree(ar_pbuild *b, const ar_level_spec *lv, int nlev, int full_bisection, ar_err *e);

/* Two-level asymmetric tree: root switch, one switch per machine with
 * gpus[m] GPUs (intra links), machine uplinks (inter links). */
ar_status ar_pb_machines(ar_pbuild *b, const int *gpus, int nmachines, double intra_Bps, double inter_Bps, double lat_s,
                         ar_err *e);

/* Torus (see platform.h). Sets dims/levels; ar_pb_finish builds the routes. */
ar_status ar_pb_torus(ar_pbuild *b, const int *dims, int ndims, int gpus_per_machine, double intra_Bps,
                      double intra_lat, int intra_lanes, double link_Bps, double link_lat, int link_lanes, ar_err *e);

/* Sorted name index for lookups: ar_name_index_build sorts node indices by
 * name; ar_name_index_find returns the node index or -1. */
int *ar_name_index_build(const ar_platform *p);
int ar_name_index_find(const ar_platform *p, const int *index, const char *name);

#endif
