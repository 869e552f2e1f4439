/* Tree platforms written back as JSON: the testbed's scaled
 * platform and the MPI backend's calibrated one, in the explicit tree form of
 * platforms/README.md, so `arlab model|sim|compare` run on exactly what was
 * configured or measured. Pure C (cJSON), no MPI.
 *
 * Links are written with lanes = 1 and bw = the capacity (bw x lanes), in
 * bytes/s, latencies in seconds. Per-link overrides are arrays indexed like
 * p->links (NULL: keep p's value).
 *
 * Ownership: nothing returned needs freeing; the file is written at `path`.
 */
#ifndef AR_REAL_TESTBED_TBJSON_H
#define AR_REAL_TESTBED_TBJSON_H

#include "core/platform/platform.h"
#include "core/status.h"

/* The testbed's view of a link: shaped (a machine uplink or a switch-to-switch
 * link: a veth pair) or intra (a GPU link: the machine namespace's loopback). */
static inline int ar_tb_link_shaped(const ar_platform *p, int l) {
    return p->nodes[p->links[l].a].kind == AR_NODE_SWITCH && p->nodes[p->links[l].b].kind == AR_NODE_SWITCH;
}

/* Writes p (a tree: p->root >= 0) named `name` with optional per-link bw
 * (capacity, B/s) and lat (s), every rank's reduction rate (reduce_Bps > 0:
 * "compute": {"reduce": ...}; 0: none), the per-message overhead of transfers
 * between machines (msg_o_s > 0: "compute": {"message": {"o": ...}}; 0: none),
 * the MPI backend's ready messages (ready: "compute": {"message": {"ready": true}},
 * platform.h msg_ready) and extra notes. The file is checked by loading it back. */
ar_status ar_tb_write_tree(const ar_platform *p, const char *name, const double *bw, const double *lat,
                           double reduce_Bps, double msg_o_s, int ready, const char *const *notes, int nnotes,
                           const char *path, ar_err *e);

#endif
