/* Rail-optimised multi-node platforms: see platform_rail.h. The document is built
 * with cJSON and handed to the ordinary JSON loader. */
#include "platform_rail.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform_build.h"
#include "core/units.h"
#include "core/util.h"

/* Per-message costs of a message between nodes (platforms/README.md "Per-message costs": the
 * derivation from the public logs' small sizes): InfiniBand (ConnectX-6/7) and EFA. */
#define MSG_IB_O 3.44e-6
#define MSG_IB_G 1.72e-6
#define MSG_EFA_O 12.1e-6
#define MSG_EFA_G 6.05e-6

/* Scale-out of the one-node presets: effective bandwidth per NIC (what NCCL gets)
 * and NICs per GPU. Sources: ../shared/hardware.md. */
static const struct {
    const char *preset;
    double nic_Bps;
    int nics;
    const char *why;
    /* per-message costs (LogGP o at each end, gap g) of a message between nodes: docs/platforms.md
     * "Per-message costs" derives them from the public nccl-tests logs' small sizes */
    double msg_o_s, msg_g_s;
} k_scaleout[] = {
    /* 8 x 200 Gb/s HDR, one per GPU; ~24 GB/s per HDR NIC (nccl-tests#119) */
    {"dgx-a100", 24e9, 1, "HDR 200 Gb/s, 24 GB/s effective", MSG_IB_O, MSG_IB_G},
    /* 4 x 100 Gb/s EFA per 8 GPUs, 12 GB/s per 100 Gb/s NIC (nccl-tests#119): 48 GB/s per node,
     * ASSUMED shared evenly: 6 GB/s per GPU */
    {"aws-p4d", 6e9, 1, "EFA 4 x 100 Gb/s per node, 6 GB/s per GPU", MSG_EFA_O, MSG_EFA_G},
    /* 8 x 400 Gb/s NDR ConnectX-7, one per GPU; 46-48 GB/s effective (nccl-tests#290) */
    {"dgx-h100", 48e9, 1, "NDR 400 Gb/s, 48 GB/s effective", MSG_IB_O, MSG_IB_G},
    /* 32 x 100 Gb/s EFA (3,200 Gb/s) per node: 4 per GPU at 12 GB/s effective (nccl-tests#119) */
    {"aws-p5", 12e9, 4, "EFA 4 x 100 Gb/s per GPU, 12 GB/s effective each", MSG_EFA_O, MSG_EFA_G},
    /* 8 x 400 Gb/s ConnectX-7 (DGX BasePOD documentation); 48 GB/s effective as on H100 */
    {"dgx-b200", 48e9, 1, "NDR 400 Gb/s, 48 GB/s effective", MSG_IB_O, MSG_IB_G},
};

typedef struct rail_cfg {
    int nodes, gpus, lanes, nics;
    double nvl_Bps, nvl_lat_s, nic_Bps, lat_s, spine;
    double nvs_reduce_Bps, sharp_Bps; /* reducing NVSwitches (the preset's, or nvls=) and rails (sharp=); 0: none */
    double msg_o_s, msg_g_s;          /* per-message costs between nodes (o=, g=; else the table's) */
    int have_o, have_g;
    /* FILE.json:nodes=N of a calibrated one-node file: its calibration, carried to the fabric */
    int calibrated;
    double cal_lat[2], cal_bw[2], cal_sw_bw[2][2], eff[AR_CAL_NALGOS][AR_CAL_NPROTOS];
    char base[AR_NAME_MAX + 1];
    char gpu[24]; /* the preset's "gpu" ("" = none) */
} rail_cfg;

/* Carries c's calibration and per-message costs to p and applies the calibration
 * (ar_platform_apply_calibration). The per-message costs are those of messages between nodes. */
static ar_status rail_calibrate(ar_platform *p, const rail_cfg *c, ar_err *e) {
    p->msg_o_s = c->msg_o_s;
    p->msg_g_s = c->msg_g_s;
    p->msg_all = 0;
    if (!c->calibrated) return AR_OK;
    p->calibrated = 1;
    memcpy(p->cal_lat, c->cal_lat, sizeof p->cal_lat);
    memcpy(p->cal_bw, c->cal_bw, sizeof p->cal_bw);
    memcpy(p->cal_sw_bw, c->cal_sw_bw, sizeof p->cal_sw_bw);
    memcpy(p->nccl_eff, c->eff, sizeof p->nccl_eff);
    if (c->base[0] && !(p->cal_base = ar_strdup(c->base))) return ar_fail(e, AR_ENOMEM, "out of memory");
    ar_platform_apply_calibration(p);
    return AR_OK;
}

int ar_platform_rail_match(const char *spec) {
    if (!spec) return 0;
    if (!strncmp(spec, "rail", 4) && (spec[4] == 0 || spec[4] == ':')) return 1;
    const char *colon = strchr(spec, ':');
    if (!colon || colon == spec) return 0;
    size_t n = (size_t)(colon - spec);
    if (memchr(spec, '/', n) || (n >= 5 && !strncmp(colon - 5, ".json", 5))) {
        /* FILE.json:nodes=N (a calibrated one-node file) when the file is there */
        char path[4608];
        if (n >= sizeof path) return 0;
        memcpy(path, spec, n);
        path[n] = 0;
        FILE *f = fopen(path, "r");
        if (f) fclose(f);
        return f != NULL;
    }
    if (ar_platform_is_family(spec, n) || n > 200) return 0;
    /* only an existing preset: anything else keeps the loader's "unknown platform family" message */
    char path[4608];
    return ar_platform_preset_path(spec, n, path, sizeof path);
}

static ar_status parse_int(const char *spec, const char *k, const char *v, int lo, int hi, int *out, ar_err *e) {
    long long x;
    (void)spec;
    (void)k;
    ar_status st = ar_parse_count(v, lo, hi, &x, e);
    if (!st) *out = (int)x;
    return st;
}

/* Parses "k=v,k=v" into cfg; the keys allowed depend on the form. */
static ar_status parse_args(const char *spec, const char *args, int family, rail_cfg *c, int *have_nic, ar_err *e) {
    char buf[1024];
    char q[96];
    if (strlen(args) >= sizeof buf) return ar_fail(e, AR_EINVAL, "platform spec is too long");
    snprintf(buf, sizeof buf, "%s", args);
    int seen_nodes = 0;
    for (char *tok = buf, *next; tok && *tok; tok = next) {
        next = strchr(tok, ',');
        if (next) *next++ = 0;
        char *eq = strchr(tok, '=');
        if (!eq || eq == tok || !eq[1])
            return ar_fail(e, AR_EINVAL, "%s: %s is not key=value", spec, ar_quote(tok, q, sizeof q));
        *eq = 0;
        const char *k = tok, *v = eq + 1;
        ar_status st = AR_OK;
        if (!strcmp(k, "nodes")) {
            st = parse_int(spec, k, v, 1, AR_MAX_RANKS, &c->nodes, e);
            seen_nodes = 1;
        } else if (!strcmp(k, "nics")) {
            st = parse_int(spec, k, v, 1, 64, &c->nics, e);
        } else if (!strcmp(k, "nic")) {
            st = ar_parse_rate(v, &c->nic_Bps, e);
            *have_nic = 1;
        } else if (!strcmp(k, "lat")) {
            st = ar_parse_time(v, &c->lat_s, e);
        } else if (!strcmp(k, "o") || !strcmp(k, "g")) { /* per-message costs (LogGP) between nodes */
            int is_o = k[0] == 'o';
            double *dst = is_o ? &c->msg_o_s : &c->msg_g_s;
            st = ar_parse_time(v, dst, e);
            if (!st && !(*dst >= 0 && *dst < 1))
                return ar_fail(e, AR_EINVAL, "%s: %s: a per-message cost must be in [0, 1 s) (got %s)", spec, k,
                               ar_quote(v, q, sizeof q));
            *(is_o ? &c->have_o : &c->have_g) = 1;
        } else if (!strcmp(k, "spine")) {
            char *end;
            c->spine = strtod(v, &end);
            if (*end || !(c->spine == 0 || (c->spine >= 1 && c->spine <= 1e6)))
                return ar_fail(e, AR_EINVAL,
                               "%s: spine: the oversubscription ratio must be 0 (no spine) or 1..1e6 "
                               "(got %s)",
                               spec, ar_quote(v, q, sizeof q));
        } else if (!strcmp(k, "sharp") || (family && !strcmp(k, "nvls"))) {
            double *dst = !strcmp(k, "sharp") ? &c->sharp_Bps : &c->nvs_reduce_Bps;
            st = ar_parse_rate(v, dst, e);
            if (!st && !(*dst > 0))
                return ar_fail(e, AR_EINVAL, "%s: %s: a reducing switch's rate must be > 0 (got %s)", spec, k,
                               ar_quote(v, q, sizeof q));
        } else if (!strcmp(k, "gpu")) { /* the GPU for NCCL's model: a model or sm_NN */
            int cc;
            st = ar_gpu_cc(v, &cc, e);
            if (!st) snprintf(c->gpu, sizeof c->gpu, "%.23s", v);
        } else if (family && !strcmp(k, "gpus")) {
            st = parse_int(spec, k, v, 1, 4096, &c->gpus, e);
        } else if (family && !strcmp(k, "lanes")) {
            st = parse_int(spec, k, v, 1, 1 << 24, &c->lanes, e);
        } else if (family && !strcmp(k, "nvlink")) {
            st = ar_parse_rate(v, &c->nvl_Bps, e);
        } else {
            return ar_fail(e, AR_EINVAL, "%s: unknown key %s (%s)", spec, ar_quote(k, q, sizeof q),
                           family ? "rail: nodes, gpus, gpu, nvlink, lanes, nvls, nic, nics, sharp, spine, lat, o, g"
                                  : "PRESET:nodes=N, gpu, nic, nics, sharp, spine, lat, o, g");
        }
        if (st) {
            ar_err_prefix(e, "%s: %s", spec, k);
            return st;
        }
    }
    if (!family && !seen_nodes) return ar_fail(e, AR_EINVAL, "%s: give nodes=N (the node count)", spec);
    return AR_OK;
}

/* The one-node preset's GPU link and scale-out defaults. */
static ar_status from_preset(const char *spec, const char *name, rail_cfg *c, int have_nic, ar_err *e) {
    char q[96];
    ar_platform *p = NULL;
    ar_status st = ar_platform_load(name, 0, &p, e);
    if (st) {
        ar_err_prefix(e, "%s", spec);
        return st;
    }
    if (p->kind != AR_PLAT_TREE || p->nmachines != 1 || p->nlevels != 1 || p->nranks < 1) {
        st = ar_fail(e, AR_EINVAL,
                     "%s: %s is not a one-node NVSwitch preset (a tree with one machine and one "
                     "level, e.g. dgx-h100); PRESET:nodes=N needs one",
                     spec, ar_quote(name, q, sizeof q));
        ar_platform_free(p);
        return st;
    }
    const ar_link *l = &p->links[p->nodes[p->rank_node[0]].uplink];
    c->gpus = p->nranks;
    /* a calibrated file: the GPU link as the preset had it (the fabric's loader applies the factors again) */
    c->nvl_Bps = l->bw_Bps / p->cal_bw[0];
    c->lanes = l->lanes;
    c->nvl_lat_s = l->lat_s / p->cal_lat[0];
    c->calibrated = p->calibrated;
    memcpy(c->cal_lat, p->cal_lat, sizeof c->cal_lat);
    memcpy(c->cal_bw, p->cal_bw, sizeof c->cal_bw);
    memcpy(c->cal_sw_bw, p->cal_sw_bw, sizeof c->cal_sw_bw);
    memcpy(c->eff, p->nccl_eff, sizeof c->eff);
    snprintf(c->base, sizeof c->base, "%s", p->cal_base ? p->cal_base : "");
    if (!c->gpu[0]) snprintf(c->gpu, sizeof c->gpu, "%s", p->gpu); /* unless the spec's gpu= names it */
    c->nvs_reduce_Bps = p->nodes[p->root].reduce_Bps;              /* the preset's NVSwitch (NVLink SHARP), 0 if none */
    /* a file that declares its per-message costs keeps them (a fitted one), unless o=/g= give them */
    int file_msg = ar_platform_has_msg(p);
    if (file_msg && !c->have_o) c->msg_o_s = p->msg_o_s;
    if (file_msg && !c->have_g) c->msg_g_s = p->msg_g_s;
    ar_platform_free(p);
    const char *nic_of = c->base[0] ? c->base : name;
    for (size_t i = 0; !file_msg && i < sizeof k_scaleout / sizeof k_scaleout[0]; i++)
        if (!strcmp(k_scaleout[i].preset, nic_of)) {
            if (!c->have_o) c->msg_o_s = k_scaleout[i].msg_o_s;
            if (!c->have_g) c->msg_g_s = k_scaleout[i].msg_g_s;
        }
    if (!have_nic) {
        for (size_t i = 0; i < sizeof k_scaleout / sizeof k_scaleout[0]; i++)
            if (!strcmp(k_scaleout[i].preset, nic_of)) {
                c->nic_Bps = k_scaleout[i].nic_Bps;
                if (c->nics == 0) c->nics = k_scaleout[i].nics;
                return AR_OK;
            }
        return ar_fail(e, AR_EINVAL, "%s: no known NICs for %s: give nic=RATE (effective, per NIC) and nics=K", spec,
                       ar_quote(name, q, sizeof q));
    }
    return AR_OK;
}

static cJSON *add_node(cJSON *nodes, const char *name, const char *type, int machine) {
    cJSON *n = cJSON_CreateObject();
    if (!n) return NULL;
    cJSON_AddItemToArray(nodes, n);
    if (!cJSON_AddStringToObject(n, "name", name) || !cJSON_AddStringToObject(n, "type", type)) return NULL;
    if (machine >= 0 && !cJSON_AddNumberToObject(n, "machine", machine)) return NULL;
    return n;
}

static int add_link(cJSON *links, const char *a, const char *b, double bw, double lat, int lanes) {
    cJSON *l = cJSON_CreateObject();
    if (!l) return 0;
    cJSON_AddItemToArray(links, l);
    return cJSON_AddStringToObject(l, "a", a) && cJSON_AddStringToObject(l, "b", b) &&
           cJSON_AddNumberToObject(l, "bw", bw) && cJSON_AddNumberToObject(l, "lat", lat) &&
           cJSON_AddNumberToObject(l, "lanes", lanes);
}

static cJSON *build_doc(const char *spec, const rail_cfg *c) {
    cJSON *doc = cJSON_CreateObject();
    if (!doc) return NULL;
    char a[64], b[64], desc[256];
    snprintf(desc, sizeof desc, "rail-optimised: %d nodes x %d GPUs, %d NIC(s) per GPU, %s", c->nodes, c->gpus, c->nics,
             c->spine > 0 ? "rails under a spine" : "no spine");
    cJSON *nodes = NULL, *links = NULL;
    int ok = cJSON_AddStringToObject(doc, "name", spec) && cJSON_AddStringToObject(doc, "kind", "graph") &&
             cJSON_AddStringToObject(doc, "description", desc) && (nodes = cJSON_AddArrayToObject(doc, "nodes")) &&
             (links = cJSON_AddArrayToObject(doc, "links")) &&
             (!c->gpu[0] || cJSON_AddStringToObject(doc, "gpu", c->gpu));
    /* GPUs, then NVSwitches, then rails, then the spine: the routes' tie-break prefers NVLink */
    for (int m = 0; ok && m < c->nodes; m++)
        for (int j = 0; ok && j < c->gpus; j++) {
            snprintf(a, sizeof a, "n%d.g%d", m, j);
            ok = add_node(nodes, a, "gpu", m) != NULL;
        }
    for (int m = 0; ok && c->gpus > 1 && m < c->nodes; m++) {
        snprintf(a, sizeof a, "n%d.nvs", m);
        cJSON *n = add_node(nodes, a, "switch", m);
        ok = n && (!(c->nvs_reduce_Bps > 0) || cJSON_AddNumberToObject(n, "reduce_bw", c->nvs_reduce_Bps));
    }
    for (int j = 0; ok && c->nodes > 1 && j < c->gpus; j++) {
        snprintf(a, sizeof a, "rail%d", j);
        cJSON *n = add_node(nodes, a, "switch", -1);
        ok = n && (!(c->sharp_Bps > 0) || cJSON_AddNumberToObject(n, "reduce_bw", c->sharp_Bps));
    }
    if (ok && c->nodes > 1 && c->spine > 0) ok = add_node(nodes, "spine", "switch", -1) != NULL;
    for (int m = 0; ok && m < c->nodes; m++)
        for (int j = 0; ok && j < c->gpus; j++) {
            snprintf(a, sizeof a, "n%d.g%d", m, j);
            snprintf(b, sizeof b, "n%d.nvs", m);
            if (c->gpus > 1) ok = add_link(links, a, b, c->nvl_Bps, c->nvl_lat_s, c->lanes);
            snprintf(b, sizeof b, "rail%d", j);
            if (ok && c->nodes > 1) ok = add_link(links, a, b, c->nic_Bps, c->lat_s, c->nics);
        }
    if (ok && c->nodes > 1 && c->spine > 0) {
        double up = ceil((double)c->nodes * c->nics / c->spine);
        int lanes = up < 1 ? 1 : up > (1 << 24) ? (1 << 24) : (int)up;
        for (int j = 0; ok && j < c->gpus; j++) {
            snprintf(a, sizeof a, "rail%d", j);
            ok = add_link(links, a, "spine", c->nic_Bps, c->lat_s, lanes);
        }
    }
    if (!ok) {
        cJSON_Delete(doc);
        return NULL;
    }
    return doc;
}

/* Parses spec into *c and checks it against ranks and the rank limit. */
static ar_status rail_config(const char *spec, int ranks, rail_cfg *out, ar_err *e) {
    char q[160];
    if (!spec || strlen(spec) > 1000) return ar_fail(e, AR_EINVAL, "platform spec is missing or too long");
    const char *colon = strchr(spec, ':');
    int family = !strncmp(spec, "rail", 4) && (spec[4] == 0 || spec[4] == ':');
    rail_cfg c = {.nodes = 2,
                  .gpus = 8,
                  .lanes = 18,
                  .nvl_Bps = 20.6e9,
                  /* 0.3 us per NVLink link: 0.6 us GPU -> NVSwitch -> GPU, NCCL's LL step over NVLink
                   * (tuning.cc hwLat), as the NVSwitch presets declare */
                  .nvl_lat_s = 0.3e-6,
                  .nic_Bps = 48e9,
                  .lat_s = 1e-6,
                  .cal_lat = {1, 1},
                  .cal_bw = {1, 1}};
    if (!family) c.nodes = 0;
    int have_nic = 0;
    ar_status st = parse_args(spec, colon ? colon + 1 : "", family, &c, &have_nic, e);
    if (st) return st;
    if (family) {
        if (c.nics == 0) c.nics = 1;
    } else {
        char name[256];
        size_t n = (size_t)(colon - spec);
        if (n >= sizeof name) return ar_fail(e, AR_EINVAL, "%s: preset name too long", ar_quote(spec, q, sizeof q));
        memcpy(name, spec, n);
        name[n] = 0;
        st = from_preset(spec, name, &c, have_nic, e);
        if (st) return st;
        if (c.nics == 0) c.nics = 1;
    }
    if (ranks > 0 && (long long)ranks != (long long)c.nodes * c.gpus)
        return ar_fail(e, AR_EINVAL, "%s has %lld ranks (%d nodes x %d GPUs), not --ranks %d", spec,
                       (long long)c.nodes * c.gpus, c.nodes, c.gpus, ranks);
    if ((long long)c.nodes * c.gpus > AR_MAX_RANKS)
        return ar_fail(e, AR_ELIMIT, "%s: %lld ranks exceed %d", spec, (long long)c.nodes * c.gpus, AR_MAX_RANKS);
    *out = c;
    return AR_OK;
}

/* The loaders' common start: clears *out and parses spec into *c. */
static ar_status rail_begin(const char *spec, int ranks, ar_platform **out, rail_cfg *c, ar_err *e) {
    if (!out) return ar_fail(e, AR_EINTERNAL, "rail platform loader: no output");
    *out = NULL;
    return rail_config(spec, ranks, c, e);
}

ar_status ar_platform_rail_load_table(const char *spec, int ranks, ar_platform **out, ar_err *e) {
    rail_cfg c;
    ar_status st = rail_begin(spec, ranks, out, &c, e);
    if (st) return st;
    long long nnodes = (long long)c.nodes * (c.gpus + 1) + c.gpus + (c.spine > 0);
    if (nnodes > 4096)
        return ar_fail(e, AR_ELIMIT,
                       "%s: %lld graph nodes (%d x (%d GPUs + NVSwitch) + %d rails%s) exceed the "
                       "graph limit of 4096 (at most %lld such nodes)",
                       spec, nnodes, c.nodes, c.gpus, c.gpus, c.spine > 0 ? " + spine" : "",
                       (4096LL - c.gpus - (c.spine > 0)) / (c.gpus + 1));
    cJSON *doc = build_doc(spec, &c);
    if (!doc) return ar_fail(e, AR_ENOMEM, "out of memory");
    char *text = cJSON_PrintUnformatted(doc);
    cJSON_Delete(doc);
    if (!text) return ar_fail(e, AR_ENOMEM, "out of memory");
    char where[1100];
    snprintf(where, sizeof where, "generated:%s", spec);
    st = ar_platform_from_json(text, where, out, e);
    free(text);
    if (!st) st = rail_calibrate(*out, &c, e);
    if (st) {
        ar_platform_free(*out);
        *out = NULL;
    }
    return st;
}

/* The same fabric as ar_platform_rail_load_table (same nodes, links, names and
 * order), built directly and routed from its structure: O(ranks + links) memory,
 * any size up to AR_MAX_RANKS. */
ar_status ar_platform_rail_load(const char *spec, int ranks, ar_platform **out, ar_err *e) {
    rail_cfg c;
    ar_status st = rail_begin(spec, ranks, out, &c, e);
    if (st) return st;
    char where[1100], a[64], desc[256];
    snprintf(where, sizeof where, "generated:%s", spec);
    ar_pbuild b;
    st = ar_pb_begin(&b, spec, where, AR_PLAT_GRAPH, e);
    ar_platform *p = b.p;
    int G = c.nodes * c.gpus;
    ar_route_state *rs = p ? ar_calloc(1, sizeof *rs) : NULL;
    if (!st && rs) {
        p->route_state = rs;
        rs->rail_gpus = c.gpus;
        if (c.gpus > 1) rs->rail_nvl = ar_calloc((size_t)G, sizeof *rs->rail_nvl);
        if (c.nodes > 1) rs->rail_nic = ar_calloc((size_t)G, sizeof *rs->rail_nic);
        snprintf(desc, sizeof desc, "rail-optimised: %d nodes x %d GPUs, %d NIC(s) per GPU, %s", c.nodes, c.gpus,
                 c.nics, c.spine > 0 ? "rails under a spine" : "no spine");
        p->description = ar_strdup(desc);
    }
    if (!st && (!rs || !p->description || (c.gpus > 1 && !rs->rail_nvl) || (c.nodes > 1 && !rs->rail_nic)))
        st = ar_fail(e, AR_ENOMEM, "%s: out of memory", spec);
    /* nodes: GPUs (machine-major), NVSwitches, rails, spine — the document's order */
    for (int m = 0; !st && m < c.nodes; m++)
        for (int j = 0; !st && j < c.gpus; j++) {
            snprintf(a, sizeof a, "n%d.g%d", m, j);
            st = ar_pb_node(&b, a, AR_NODE_GPU, m, NULL, e);
        }
    int nvs0 = G, rail0 = G + (c.gpus > 1 ? c.nodes : 0), spine = -1;
    for (int m = 0; !st && c.gpus > 1 && m < c.nodes; m++) {
        int vi = -1;
        snprintf(a, sizeof a, "n%d.nvs", m);
        st = ar_pb_node(&b, a, AR_NODE_SWITCH, m, &vi, e);
        if (!st) p->nodes[vi].reduce_Bps = c.nvs_reduce_Bps;
    }
    for (int j = 0; !st && c.nodes > 1 && j < c.gpus; j++) {
        int vi = -1;
        snprintf(a, sizeof a, "rail%d", j);
        st = ar_pb_node(&b, a, AR_NODE_SWITCH, -1, &vi, e);
        if (!st) p->nodes[vi].reduce_Bps = c.sharp_Bps;
    }
    if (!st && c.nodes > 1 && c.spine > 0) st = ar_pb_node(&b, "spine", AR_NODE_SWITCH, -1, &spine, e);
    for (int r = 0; !st && r < G; r++) {
        int m = r / c.gpus, j = r % c.gpus;
        if (c.gpus > 1) st = ar_pb_link(&b, r, nvs0 + m, c.nvl_Bps, c.nvl_lat_s, c.lanes, NULL, &rs->rail_nvl[r], e);
        if (!st && c.nodes > 1)
            st = ar_pb_link(&b, r, rail0 + j, c.nic_Bps, c.lat_s, c.nics, NULL, &rs->rail_nic[r], e);
    }
    if (!st && spine >= 0) {
        double up = ceil((double)c.nodes * c.nics / c.spine);
        int lanes = up < 1 ? 1 : up > (1 << 24) ? (1 << 24) : (int)up;
        for (int j = 0; !st && j < c.gpus; j++)
            st = ar_pb_link(&b, rail0 + j, spine, c.nic_Bps, c.lat_s, lanes, NULL, NULL, e);
    }
    if (!st) st = ar_pb_finish(&b, e);
    if (!st && c.nodes > 1 && c.gpus > 1) {
        /* the symmetric hierarchy BlueConnect decomposes along: GPUs of a node on
         * the NVSwitch, then nodes; level 1's capacity is the node's whole
         * scale-out (gpus x nics x nic) as on a tree's machine uplink, so Eq. 9's
         * w1/p0 is one GPU's NICs — the rail a stride-p0 stage runs on */
        p->nlevels = 2;
        p->levels[0] = (ar_level){c.gpus, c.nvl_Bps * c.lanes, c.nvl_lat_s};
        p->levels[1] = (ar_level){c.nodes, c.nic_Bps * c.nics * c.gpus, c.lat_s};
    }
    if (!st) st = rail_calibrate(p, &c, e);
    if (!st && c.gpu[0]) {
        snprintf(p->gpu, sizeof p->gpu, "%s", c.gpu);
        st = ar_gpu_cc(p->gpu, &p->gpu_cc, e);
    }
    if (st) {
        ar_err_prefix(e, "%s", spec);
        ar_platform_free(p);
        return st;
    }
    *out = p;
    return AR_OK;
}
