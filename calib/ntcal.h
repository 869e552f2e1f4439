/* The calibrated platform of `arlab calibrate --from FILE...`: the
 * preset's own JSON with its link parameters scaled by a fit (calib/ntfit.h), or,
 * with in->calibrated (what the verb writes since h14g), the preset's JSON as it is
 * plus the "calibration" and "nccl" blocks the loader applies (see below and
 * platforms/README.md).
 *
 * Every "bw"/"child_bw" value of the preset file (levels, tree switches, graph
 * and torus links) is multiplied by bw_scale and every "lat"/"child_lat" by
 * lat_scale, written back as plain numbers (B/s, s); "name" becomes name, the
 * fit and what the data could not identify are added to "notes". The result is
 * checked by loading it (ar_platform_from_json) before it is returned.
 * Only platforms read from a JSON file (a preset name or a path) can be
 * calibrated; generated specs are AR_EUNSUPPORTED.
 *
 * Ownership: *json is malloc'ed; the caller frees it. */
#ifndef AR_NTCAL_H
#define AR_NTCAL_H

#include "core/platform/platform.h"
#include "core/status.h"

typedef struct ar_ntcal_in {
    const char *name; /* "name" of the calibrated platform */
    double lat_scale; /* 1 = unchanged */
    double bw_scale;  /* 1 = unchanged */
    int nnotes;       /* extra notes (the fit, what is not identified) */
    const char *const *notes;
    /* calibrated = 1 (the per-class fit): lat_scale/bw_scale must be 1; the document gets
     * "calibration": {"intra": {"lat", "bw"}, "inter": {...}, "base"} and "nccl": {"efficiency":
     * {"ALGO/PROTO": eff}} (platforms/README.md), multiplied into the file's own when it has them; the
     * loader applies them (intra-node links, inter-node links, NCCL's model). */
    int calibrated;
    double cal_lat[2], cal_bw[2]; /* [0] intra-node, [1] inter-node */
    /* the switch rates [class][0 "nvls", 1 "collnet"] where have_sw: written as the file's own (or, absent, its
     * "bw" before this calibration) x cal_sw; absent ones keep meaning "the class's bw" */
    double cal_sw[2][2];
    int have_sw[2][2];
    const char *base; /* the preset calibrated (NAME:nodes=N defaults, NCCL's GPU); may be NULL */
    int neff;
    const char *const *eff_key; /* "RING/SIMPLE" */
    const double *eff;
    /* have_msg: "compute": {"message": {"o": msg_o, "g": msg_g}} (seconds; the file's own "transfers" kept),
     * replacing the file's o and g: LogGP's per-message costs between machines (ntfit.h ar_ntfit_msg_fit) */
    int have_msg;
    double msg_o, msg_g;
} ar_ntcal_in;

/* 1 when p is the generated fabric PRESET:nodes=N of a preset (nothing else in the spec): name gets PRESET,
 * *nodes N (nodes may be NULL). With in->calibrated, ar_ntcal_platform_json writes such a p as PRESET's file
 * plus the block; CAL.json:nodes=N loads the calibrated fabric. */
int ar_ntcal_rail_base(const ar_platform *p, char *name, size_t n, int *nodes);

/* p: the platform the fit used (its source names the preset or file). */
ar_status ar_ntcal_platform_json(const ar_platform *p, const ar_ntcal_in *in, char **json, ar_err *e);

#endif
