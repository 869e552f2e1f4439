/* The platform JSON format (documented in platforms/README.md): parsing with
 * cJSON, validation with messages "WHERE: JSON.PATH: what is wrong", and
 * construction through the builder in platform.c. Nothing here trusts the
 * input: every field is type- and range-checked before use. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>

#include "core/jsonpath.h"
#include "platform_build.h"

#define AR_GRAPH_MAX_LINKS (1 << 20)

typedef struct jctx {
    ar_jpath jp; /* where, current JSON path, error (jsonpath.h) */
    ar_pbuild *b;
    /* the normalized form `arlab platform show --format json` prints (nodes and links as loaded, "ranks" present):
     * read back as it is; its "calibration" says applied_to_links (the links already carry the factors) */
    int normalized, cal_applied;
    long long want_ranks, want_machines;
} jctx;

/* ---- field readers (path = the key being read) ---- */

static const cJSON *field(const cJSON *obj, const char *key) { return cJSON_GetObjectItemCaseSensitive(obj, key); }

static ar_status need_object(jctx *c, const cJSON *j) {
    if (!cJSON_IsObject(j)) return ar_jpath_fail(&c->jp, AR_EINVAL, "must be an object (got %s)", ar_json_type_name(j));
    return AR_OK;
}

/* A name: non-empty string of at most AR_NAME_MAX printable bytes. */
static ar_status read_name(jctx *c, const cJSON *obj, const char *key, int required, const char **out) {
    const cJSON *j = field(obj, key);
    *out = NULL;
    if (!j && !required) return AR_OK;
    size_t old = ar_jpath_key(&c->jp, key);
    ar_status st = AR_OK;
    if (!j) st = ar_jpath_fail(&c->jp, AR_EINVAL, "missing");
    else if (!cJSON_IsString(j) || !j->valuestring)
        st = ar_jpath_fail(&c->jp, AR_EINVAL, "must be a string (got %s)", ar_json_type_name(j));
    else if (!j->valuestring[0]) st = ar_jpath_fail(&c->jp, AR_EINVAL, "must not be empty");
    else if (strlen(j->valuestring) > AR_NAME_MAX)
        st = ar_jpath_fail(&c->jp, AR_EINVAL, "longer than %d bytes", AR_NAME_MAX);
    else {
        for (const unsigned char *s = (const unsigned char *)j->valuestring; *s; s++)
            if (*s < 0x20 || *s == 0x7f) {
                st = ar_jpath_fail(&c->jp, AR_EINVAL, "contains a control character");
                break;
            }
    }
    if (!st) *out = j->valuestring;
    ar_jpath_pop(&c->jp, old);
    return st;
}

static ar_status read_text_field(jctx *c, const cJSON *obj, const char *key, const char **out) {
    const cJSON *j = field(obj, key);
    *out = NULL;
    if (!j) return AR_OK;
    if (!cJSON_IsString(j) || !j->valuestring) {
        size_t old = ar_jpath_key(&c->jp, key);
        ar_status st = ar_jpath_fail(&c->jp, AR_EINVAL, "must be a string (got %s)", ar_json_type_name(j));
        ar_jpath_pop(&c->jp, old);
        return st;
    }
    *out = j->valuestring;
    return AR_OK;
}

static ar_status read_int(jctx *c, const cJSON *obj, const char *key, long long min, long long max, long long def,
                          int required, long long *out) {
    const cJSON *j = field(obj, key);
    *out = def;
    if (!j && !required) return AR_OK;
    size_t old = ar_jpath_key(&c->jp, key);
    ar_status st = AR_OK;
    if (!j) {
        st = ar_jpath_fail(&c->jp, AR_EINVAL, "missing (an integer >= %lld)", min);
    } else if (!cJSON_IsNumber(j)) {
        st = ar_jpath_fail(&c->jp, AR_EINVAL, "must be an integer >= %lld (got %s)", min, ar_json_type_name(j));
    } else {
        double v = j->valuedouble;
        if (!isfinite(v) || v != floor(v))
            st = ar_jpath_fail(&c->jp, AR_EINVAL, "must be an integer >= %lld (got %g)", min, v);
        else if (v < (double)min) st = ar_jpath_fail(&c->jp, AR_EINVAL, "must be an integer >= %lld (got %g)", min, v);
        else if (v > (double)max) st = ar_jpath_fail(&c->jp, AR_ELIMIT, "must be an integer <= %lld (got %g)", max, v);
        else *out = (long long)v;
    }
    ar_jpath_pop(&c->jp, old);
    return st;
}

/* Rate or time: a string with units or a plain number (bytes/s, seconds). */
static ar_status read_unit(jctx *c, const cJSON *obj, const char *key, int is_rate, int *present, double *out) {
    const cJSON *j = field(obj, key);
    *present = j != NULL;
    if (!j) return AR_OK;
    size_t old = ar_jpath_key(&c->jp, key);
    ar_status st = AR_OK;
    if (cJSON_IsString(j) && j->valuestring) {
        st = is_rate ? ar_parse_rate(j->valuestring, out, c->jp.e) : ar_parse_time(j->valuestring, out, c->jp.e);
        st = ar_jpath_wrap(&c->jp, st);
    } else if (cJSON_IsNumber(j)) {
        double v = j->valuedouble;
        if (!isfinite(v)) st = ar_jpath_fail(&c->jp, AR_EINVAL, "must be finite");
        else if (is_rate && !(v > 0)) st = ar_jpath_fail(&c->jp, AR_EINVAL, "a rate must be > 0 (got %g)", v);
        else if (!is_rate && v < 0) st = ar_jpath_fail(&c->jp, AR_EINVAL, "a time must not be negative (got %g)", v);
        else *out = v;
    } else {
        st = ar_jpath_fail(&c->jp, AR_EINVAL, "must be a %s like %s or a number (got %s)", is_rate ? "rate" : "time",
                           is_rate ? "\"12.5GBps\"" : "\"5us\"", ar_json_type_name(j));
    }
    ar_jpath_pop(&c->jp, old);
    return st;
}

/* "reduce_bw" (a reducing switch's rate): absent = 0; present must be a rate > 0. */
static ar_status read_reduce_bw(jctx *c, const cJSON *obj, double *out) {
    int present = 0;
    *out = 0;
    ar_status st = read_unit(c, obj, c->normalized ? "reduce_Bps" : "reduce_bw", 1, &present, out);
    if (!st && present && !(*out > 0 && isfinite(*out))) {
        size_t old = ar_jpath_key(&c->jp, "reduce_bw");
        st = ar_jpath_fail(&c->jp, AR_EINVAL,
                           "a reducing switch's rate must be > 0 (omit it for a switch that cannot reduce)");
        ar_jpath_pop(&c->jp, old);
    }
    return st;
}

static ar_status read_required_unit(jctx *c, const cJSON *obj, const char *key, int is_rate, double *out) {
    int present = 0;
    ar_status st = read_unit(c, obj, key, is_rate, &present, out);
    if (st) return st;
    if (!present) {
        size_t old = ar_jpath_key(&c->jp, key);
        st = ar_jpath_fail(&c->jp, AR_EINVAL, "missing (a %s like %s)", is_rate ? "rate" : "time",
                           is_rate ? "\"12.5GBps\"" : "\"5us\"");
        ar_jpath_pop(&c->jp, old);
    }
    return st;
}

static ar_status read_bool(jctx *c, const cJSON *obj, const char *key, int *out) {
    const cJSON *j = field(obj, key);
    *out = 0;
    if (!j) return AR_OK;
    if (!cJSON_IsBool(j)) {
        size_t old = ar_jpath_key(&c->jp, key);
        ar_status st = ar_jpath_fail(&c->jp, AR_EINVAL, "must be true or false (got %s)", ar_json_type_name(j));
        ar_jpath_pop(&c->jp, old);
        return st;
    }
    *out = cJSON_IsTrue(j);
    return AR_OK;
}

static ar_status read_array(jctx *c, const cJSON *obj, const char *key, int required, int min_len, const cJSON **out) {
    const cJSON *j = field(obj, key);
    *out = NULL;
    if (!j && !required) return AR_OK;
    size_t old = ar_jpath_key(&c->jp, key);
    ar_status st = AR_OK;
    if (!j) st = ar_jpath_fail(&c->jp, AR_EINVAL, "missing (an array)");
    else if (!cJSON_IsArray(j))
        st = ar_jpath_fail(&c->jp, AR_EINVAL, "must be an array (got %s)", ar_json_type_name(j));
    else if (cJSON_GetArraySize(j) < min_len)
        st = ar_jpath_fail(&c->jp, AR_EINVAL, "must have at least %d entr%s", min_len, min_len == 1 ? "y" : "ies");
    if (!st) *out = j;
    ar_jpath_pop(&c->jp, old);
    return st;
}

/* ---- kind "tree"/"fat-tree", symmetric form ---- */

static ar_status parse_levels(jctx *c, const cJSON *arr, int full_bisection) {
    static const char *const keys[] = {"fanout", "bw", "lat", "lanes", "name", "reduce_bw", NULL};
    ar_level_spec lv[AR_MAX_LEVELS];
    int n = cJSON_GetArraySize(arr);
    size_t old = ar_jpath_key(&c->jp, "levels");
    if (n > AR_MAX_LEVELS) {
        ar_status st = ar_jpath_fail(&c->jp, AR_ELIMIT, "at most %d levels (got %d)", AR_MAX_LEVELS, n);
        ar_jpath_pop(&c->jp, old);
        return st;
    }
    int i = 0;
    ar_status st = AR_OK;
    long long gpus = 1;
    for (const cJSON *l = arr->child; l && !st; l = l->next, i++) {
        size_t o2 = ar_jpath_idx(&c->jp, i);
        const char *name;
        st = need_object(c, l);
        if (!st) st = ar_jpath_check_keys(&c->jp, l, keys);
        if (!st) st = read_int(c, l, "fanout", 1, AR_MAX_RANKS, 1, 1, &lv[i].fanout);
        if (!st) st = read_required_unit(c, l, "bw", 1, &lv[i].bw_Bps);
        if (!st) st = read_required_unit(c, l, "lat", 0, &lv[i].lat_s);
        if (!st) st = read_int(c, l, "lanes", 1, AR_MAX_LANES, 1, 0, &lv[i].lanes);
        if (!st) st = read_name(c, l, "name", 0, &name);
        if (!st) st = read_reduce_bw(c, l, &lv[i].reduce_Bps);
        if (!st) {
            gpus *= lv[i].fanout;
            if (gpus > AR_MAX_RANKS)
                st = ar_jpath_fail(&c->jp, AR_ELIMIT, "the fanouts give more than %d ranks", AR_MAX_RANKS);
        }
        ar_jpath_pop(&c->jp, o2);
    }
    ar_jpath_pop(&c->jp, old);
    if (st) return st;
    if (c->b->p->kind == AR_PLAT_TREE) full_bisection = 0;
    st = ar_pb_sym_tree(c->b, lv, n, full_bisection, c->jp.e);
    return ar_jpath_wrap(&c->jp, st);
}

/* ---- kind "tree", explicit form ---- */

typedef struct link_defaults {
    int has_bw, has_lat;
    double bw, lat;
    long long lanes;
} link_defaults;

static ar_status read_child_defaults(jctx *c, const cJSON *obj, link_defaults *d) {
    ar_status st = read_unit(c, obj, "child_bw", 1, &d->has_bw, &d->bw);
    if (!st) st = read_unit(c, obj, "child_lat", 0, &d->has_lat, &d->lat);
    if (!st) st = read_int(c, obj, "child_lanes", 1, AR_MAX_LANES, 1, 0, &d->lanes);
    return st;
}

/* The link from an entry to its parent: its own bw/lat/lanes or the parent's defaults. */
static ar_status read_uplink(jctx *c, const cJSON *obj, const link_defaults *d, double *bw, double *lat,
                             long long *lanes) {
    int has_bw = 0, has_lat = 0;
    ar_status st = read_unit(c, obj, "bw", 1, &has_bw, bw);
    if (!st) st = read_unit(c, obj, "lat", 0, &has_lat, lat);
    if (!st) st = read_int(c, obj, "lanes", 1, AR_MAX_LANES, d->lanes, 0, lanes);
    if (st) return st;
    if (!has_bw) {
        if (!d->has_bw) {
            size_t old = ar_jpath_key(&c->jp, "bw");
            st = ar_jpath_fail(&c->jp, AR_EINVAL, "missing (give \"bw\" here or \"child_bw\" on the parent switch)");
            ar_jpath_pop(&c->jp, old);
            return st;
        }
        *bw = d->bw;
    }
    if (!has_lat) {
        if (!d->has_lat) {
            size_t old = ar_jpath_key(&c->jp, "lat");
            st = ar_jpath_fail(&c->jp, AR_EINVAL, "missing (give \"lat\" here or \"child_lat\" on the parent switch)");
            ar_jpath_pop(&c->jp, old);
            return st;
        }
        *lat = d->lat;
    }
    return AR_OK;
}

static ar_status parse_switch(jctx *c, const cJSON *obj, int parent, const link_defaults *up, int index);

static ar_status parse_entry(jctx *c, const cJSON *obj, int parent, const link_defaults *up, int index) {
    static const char *const gpu_keys[] = {"gpu", "bw", "lat", "lanes", NULL};
    ar_status st = need_object(c, obj);
    if (st) return st;
    if (!field(obj, "gpu")) return parse_switch(c, obj, parent, up, index);
    const char *name;
    double bw = 0, lat = 0;
    long long lanes = 1;
    st = ar_jpath_check_keys(&c->jp, obj, gpu_keys);
    if (!st) st = read_name(c, obj, "gpu", 1, &name);
    if (!st) st = read_uplink(c, obj, up, &bw, &lat, &lanes);
    if (!st)
        st = ar_jpath_wrap(&c->jp, ar_pb_child(c->b, parent, name, AR_NODE_GPU, bw, lat, (int)lanes, NULL, c->jp.e));
    return st;
}

static ar_status parse_switch(jctx *c, const cJSON *obj, int parent, const link_defaults *up, int index) {
    static const char *const root_keys[] = {"name",      "children",    "gpus",      "child_bw",
                                            "child_lat", "child_lanes", "reduce_bw", NULL};
    static const char *const sw_keys[] = {"name",     "bw",        "lat",         "lanes",     "children", "gpus",
                                          "child_bw", "child_lat", "child_lanes", "reduce_bw", NULL};
    ar_pbuild *b = c->b;
    const char *name;
    double bw = 0, lat = 0;
    long long lanes = 1;
    ar_status st = ar_jpath_check_keys(&c->jp, obj, parent < 0 ? root_keys : sw_keys);
    if (!st) st = read_name(c, obj, "name", 0, &name);
    if (st) return st;
    char defname[AR_NAME_MAX + 32];
    if (!name) {
        if (parent < 0) snprintf(defname, sizeof defname, "root");
        else snprintf(defname, sizeof defname, "%s.s%d", b->p->nodes[parent].name, index);
        name = defname;
    }
    if (parent >= 0) {
        st = read_uplink(c, obj, up, &bw, &lat, &lanes);
        if (st) return st;
    }
    link_defaults d = {0, 0, 0, 0, 1};
    st = read_child_defaults(c, obj, &d);
    if (st) return st;
    const cJSON *kids = field(obj, "children"), *gpus = field(obj, "gpus");
    if (kids && gpus) return ar_jpath_fail(&c->jp, AR_EINVAL, "give either \"children\" or \"gpus\", not both");
    if (!kids && !gpus)
        return ar_jpath_fail(&c->jp, AR_EINVAL, "missing \"children\" (an array) or \"gpus\" (a count)");
    int sw = -1;
    double red = 0;
    st = read_reduce_bw(c, obj, &red);
    if (!st)
        st = ar_jpath_wrap(&c->jp, ar_pb_child(b, parent, name, AR_NODE_SWITCH, bw, lat, (int)lanes, &sw, c->jp.e));
    if (st) return st;
    b->p->nodes[sw].reduce_Bps = red;
    if (gpus) {
        long long n = 0;
        st = read_int(c, obj, "gpus", 1, AR_MAX_RANKS, 0, 1, &n);
        if (st) return st;
        size_t old = ar_jpath_key(&c->jp, "gpus");
        if (!d.has_bw || !d.has_lat)
            st = ar_jpath_fail(&c->jp, AR_EINVAL, "needs \"child_bw\" and \"child_lat\" on the same switch");
        else if (n > AR_MAX_RANKS - b->ngpus)
            st = ar_jpath_fail(&c->jp, AR_ELIMIT, "more than %d ranks in all", AR_MAX_RANKS);
        char gname[AR_NAME_MAX + 32];
        for (long long i = 0; i < n && !st; i++) {
            snprintf(gname, sizeof gname, "%s.g%lld", b->p->nodes[sw].name, i);
            st = ar_jpath_wrap(&c->jp,
                               ar_pb_child(b, sw, gname, AR_NODE_GPU, d.bw, d.lat, (int)d.lanes, NULL, c->jp.e));
        }
        ar_jpath_pop(&c->jp, old);
        return st;
    }
    const cJSON *arr;
    st = read_array(c, obj, "children", 1, 1, &arr);
    if (st) return st;
    size_t old = ar_jpath_key(&c->jp, "children");
    int i = 0;
    for (const cJSON *k = arr->child; k && !st; k = k->next, i++) {
        size_t o2 = ar_jpath_idx(&c->jp, i);
        st = parse_entry(c, k, sw, &d, i);
        ar_jpath_pop(&c->jp, o2);
    }
    ar_jpath_pop(&c->jp, old);
    return st;
}

/* ---- kind "torus" ---- */

static ar_status read_link_obj(jctx *c, const cJSON *obj, const char *key, double *bw, double *lat, long long *lanes) {
    static const char *const keys[] = {"bw", "lat", "lanes", NULL};
    const cJSON *j = field(obj, key);
    size_t old = ar_jpath_key(&c->jp, key);
    ar_status st = AR_OK;
    if (!j) st = ar_jpath_fail(&c->jp, AR_EINVAL, "missing (an object with bw, lat, lanes)");
    if (!st) st = need_object(c, j);
    if (!st) st = ar_jpath_check_keys(&c->jp, j, keys);
    if (!st) st = read_required_unit(c, j, "bw", 1, bw);
    if (!st) st = read_required_unit(c, j, "lat", 0, lat);
    if (!st) st = read_int(c, j, "lanes", 1, AR_MAX_LANES, 1, 0, lanes);
    ar_jpath_pop(&c->jp, old);
    return st;
}

static ar_status parse_torus(jctx *c, const cJSON *root) {
    const cJSON *arr;
    ar_status st = read_array(c, root, "dims", 1, 1, &arr);
    if (st) return st;
    int dims[AR_MAX_DIMS], nd = cJSON_GetArraySize(arr);
    size_t old = ar_jpath_key(&c->jp, "dims");
    if (nd > AR_MAX_DIMS) st = ar_jpath_fail(&c->jp, AR_ELIMIT, "at most %d dimensions (got %d)", AR_MAX_DIMS, nd);
    int i = 0;
    for (const cJSON *d = arr->child; d && !st; d = d->next, i++) {
        size_t o2 = ar_jpath_idx(&c->jp, i);
        if (!cJSON_IsNumber(d) || !isfinite(d->valuedouble) || d->valuedouble != floor(d->valuedouble) ||
            d->valuedouble < 1 || d->valuedouble > AR_MAX_RANKS)
            st = cJSON_IsNumber(d)
                     ? ar_jpath_fail(&c->jp, AR_EINVAL, "must be an integer in 1..%d (got %g)", AR_MAX_RANKS,
                                     d->valuedouble)
                     : ar_jpath_fail(&c->jp, AR_EINVAL, "must be an integer >= 1 (got %s)", ar_json_type_name(d));
        else dims[i] = (int)d->valuedouble;
        ar_jpath_pop(&c->jp, o2);
    }
    ar_jpath_pop(&c->jp, old);
    if (st) return st;
    long long g = 0, il = 1, ll = 1;
    double ib = 0, it = 0, lb = 0, lt = 0;
    st = read_int(c, root, "gpus_per_machine", 1, AR_MAX_RANKS, 0, 1, &g);
    if (!st) st = read_link_obj(c, root, "intra", &ib, &it, &il);
    if (!st) st = read_link_obj(c, root, "link", &lb, &lt, &ll);
    if (st) return st;
    return ar_jpath_wrap(&c->jp, ar_pb_torus(c->b, dims, nd, (int)g, ib, it, (int)il, lb, lt, (int)ll, c->jp.e));
}

/* ---- kind "graph" ---- */

typedef struct pair_ref {
    int lo, hi, idx;
} pair_ref;

static int pair_cmp(const void *x, const void *y) {
    const pair_ref *a = x, *b = y;
    if (a->lo != b->lo) return a->lo < b->lo ? -1 : 1;
    if (a->hi != b->hi) return a->hi < b->hi ? -1 : 1;
    return (a->idx > b->idx) - (a->idx < b->idx);
}

static ar_status parse_graph(jctx *c, const cJSON *root) {
    static const char *const node_keys[] = {"name", "type", "machine", "reduce_bw", NULL};
    static const char *const link_keys[] = {"a", "b", "bw", "lat", "lanes", "name", NULL};
    static const char *const norm_node_keys[] = {"name", "type", "machine", "reduce_Bps", "rank", NULL};
    static const char *const norm_link_keys[] = {"a", "b", "bw_Bps", "lat_s", "lanes", "name", NULL};
    ar_pbuild *b = c->b;
    char q1[96], q2[96];
    long long ngpus = 0;
    ar_status st = read_int(c, root, "gpus", 1, AR_GRAPH_MAX_NODES, 0, 0, &ngpus);
    if (st) return st;
    for (long long i = 0; i < ngpus && !st; i++) {
        char name[32];
        snprintf(name, sizeof name, "gpu%lld", i);
        st = ar_jpath_wrap(&c->jp, ar_pb_node(b, name, AR_NODE_GPU, 0, NULL, c->jp.e));
    }
    if (st) return st;
    const cJSON *nodes, *links;
    st = read_array(c, root, "nodes", ngpus == 0, 0, &nodes);
    if (!st) st = read_array(c, root, "links", 1, 0, &links);
    if (st) return st;
    int nn = nodes ? cJSON_GetArraySize(nodes) : 0;
    if (ngpus + nn > AR_GRAPH_MAX_NODES)
        return ar_jpath_fail(&c->jp, AR_ELIMIT, "nodes: a graph may have at most %d nodes (got %lld)",
                             AR_GRAPH_MAX_NODES, ngpus + nn);
    size_t old = ar_jpath_key(&c->jp, "nodes");
    int i = 0;
    for (const cJSON *n = nodes ? nodes->child : NULL; n && !st; n = n->next, i++) {
        size_t o2 = ar_jpath_idx(&c->jp, i);
        const char *name = NULL, *type = NULL;
        long long machine = -1;
        st = need_object(c, n);
        if (!st) st = ar_jpath_check_keys(&c->jp, n, c->normalized ? norm_node_keys : node_keys);
        if (!st) st = read_name(c, n, "name", 1, &name);
        if (!st) st = read_name(c, n, "type", 1, &type);
        if (!st && strcmp(type, "gpu") && strcmp(type, "switch")) {
            size_t o3 = ar_jpath_key(&c->jp, "type");
            st = ar_jpath_fail(&c->jp, AR_EINVAL, "must be \"gpu\" or \"switch\" (got %s)",
                               ar_quote(type, q1, sizeof q1));
            ar_jpath_pop(&c->jp, o3);
        }
        int is_gpu = !st && !strcmp(type, "gpu");
        if (!st) st = read_int(c, n, "machine", 0, AR_MAX_RANKS, is_gpu ? 0 : -1, 0, &machine);
        double red = 0;
        if (!st) st = read_reduce_bw(c, n, &red);
        if (!st && is_gpu && red > 0) {
            size_t o3 = ar_jpath_key(&c->jp, c->normalized ? "reduce_Bps" : "reduce_bw");
            st = ar_jpath_fail(&c->jp, AR_EINVAL, "only a switch can reduce (this node is a GPU)");
            ar_jpath_pop(&c->jp, o3);
        }
        int vi = -1;
        if (!st)
            st = ar_jpath_wrap(&c->jp,
                               ar_pb_node(b, name, is_gpu ? AR_NODE_GPU : AR_NODE_SWITCH, (int)machine, &vi, c->jp.e));
        if (!st) b->p->nodes[vi].reduce_Bps = red;
        ar_jpath_pop(&c->jp, o2);
    }
    ar_jpath_pop(&c->jp, old);
    if (st) return st;
    /* names must be unique before links can refer to them */
    ar_platform *p = b->p;
    int *index = ar_name_index_build(p);
    if (!index) return ar_jpath_fail(&c->jp, AR_ENOMEM, "out of memory");
    for (int k = 1; k < p->nnodes && !st; k++)
        if (!strcmp(p->nodes[index[k]].name, p->nodes[index[k - 1]].name)) {
            int later = index[k] > index[k - 1] ? index[k] : index[k - 1];
            if (later >= ngpus) {
                size_t o2 = ar_jpath_key(&c->jp, "nodes");
                ar_jpath_idx(&c->jp, (int)(later - ngpus));
                ar_jpath_key(&c->jp, "name");
                st = ar_jpath_fail(&c->jp, AR_EINVAL, "duplicate node name %s%s",
                                   ar_quote(p->nodes[later].name, q1, sizeof q1),
                                   ngpus ? " (\"gpus\" already created gpu0, gpu1, ...)" : "");
                ar_jpath_pop(&c->jp, o2);
            } else {
                st = ar_jpath_fail(&c->jp, AR_EINVAL, "duplicate node name %s",
                                   ar_quote(p->nodes[later].name, q1, sizeof q1));
            }
        }
    int nl = cJSON_GetArraySize(links);
    pair_ref *pairs = NULL;
    if (!st && nl > AR_GRAPH_MAX_LINKS)
        st = ar_jpath_fail(&c->jp, AR_ELIMIT, "links: at most %d links (got %d)", AR_GRAPH_MAX_LINKS, nl);
    if (!st) {
        pairs = ar_calloc((size_t)nl, sizeof *pairs);
        if (!pairs) st = ar_jpath_fail(&c->jp, AR_ENOMEM, "out of memory");
    }
    old = ar_jpath_key(&c->jp, "links");
    i = 0;
    for (const cJSON *l = links->child; l && !st; l = l->next, i++) {
        size_t o2 = ar_jpath_idx(&c->jp, i);
        const char *na = NULL, *nb = NULL, *lname = NULL;
        double bw = 0, lat = 0;
        long long lanes = 1;
        int ia = -1, ib = -1;
        st = need_object(c, l);
        if (!st) st = ar_jpath_check_keys(&c->jp, l, c->normalized ? norm_link_keys : link_keys);
        if (!st) st = read_name(c, l, "a", 1, &na);
        if (!st) st = read_name(c, l, "b", 1, &nb);
        if (!st) st = read_name(c, l, "name", 0, &lname);
        if (!st) {
            ia = ar_name_index_find(p, index, na);
            ib = ar_name_index_find(p, index, nb);
            const char *bad = ia < 0 ? "a" : ib < 0 ? "b" : NULL;
            if (bad) {
                size_t o3 = ar_jpath_key(&c->jp, bad);
                st = ar_jpath_fail(&c->jp, AR_EINVAL, "unknown node %s", ar_quote(ia < 0 ? na : nb, q1, sizeof q1));
                ar_jpath_pop(&c->jp, o3);
            } else if (ia == ib) {
                st = ar_jpath_fail(&c->jp, AR_EINVAL, "link joins %s to itself", ar_quote(na, q1, sizeof q1));
            }
        }
        if (!st) st = read_required_unit(c, l, c->normalized ? "bw_Bps" : "bw", 1, &bw);
        if (!st) st = read_required_unit(c, l, c->normalized ? "lat_s" : "lat", 0, &lat);
        if (!st) st = read_int(c, l, "lanes", 1, AR_MAX_LANES, 1, 0, &lanes);
        if (!st) st = ar_jpath_wrap(&c->jp, ar_pb_link(b, ia, ib, bw, lat, (int)lanes, lname, NULL, c->jp.e));
        if (!st) {
            pairs[i].lo = ia < ib ? ia : ib;
            pairs[i].hi = ia < ib ? ib : ia;
            pairs[i].idx = i;
        }
        ar_jpath_pop(&c->jp, o2);
    }
    ar_jpath_pop(&c->jp, old);
    free(index);
    if (!st && nl > 1) {
        qsort(pairs, (size_t)nl, sizeof *pairs, pair_cmp);
        for (int k = 1; k < nl && !st; k++)
            if (pairs[k].lo == pairs[k - 1].lo && pairs[k].hi == pairs[k - 1].hi) {
                old = ar_jpath_key(&c->jp, "links");
                ar_jpath_idx(&c->jp, pairs[k].idx);
                st = ar_jpath_fail(&c->jp, AR_EINVAL,
                                   "a second link between %s and %s (links[%d]): give one link with \"lanes\"",
                                   ar_quote(p->nodes[pairs[k].lo].name, q1, sizeof q1),
                                   ar_quote(p->nodes[pairs[k].hi].name, q2, sizeof q2), pairs[k - 1].idx);
                ar_jpath_pop(&c->jp, old);
            }
    }
    free(pairs);
    return st;
}

/* ---- the normalized form (`arlab platform show --format json`): nodes and links as loaded ---- */

typedef struct name_ref {
    const char *name;
    int idx;
} name_ref;

static int name_ref_cmp(const void *x, const void *y) {
    return strcmp(((const name_ref *)x)->name, ((const name_ref *)y)->name);
}

static int name_ref_find(const name_ref *v, int n, const char *name) {
    name_ref k = {name, -1};
    const name_ref *r = name ? bsearch(&k, v, (size_t)n, sizeof *v, name_ref_cmp) : NULL;
    return r ? r->idx : -1;
}

/* Tree kinds: every node in the printed order (a parent before its children), each child with the link to its
 * parent as its uplink. Torus: rebuilt from dims, gpus_per_machine and its two link kinds (a GPU's link, a
 * switch-switch link). */
static ar_status parse_normalized_tree(jctx *c, const cJSON *root, ar_platform_kind k) {
    static const char *const node_keys[] = {"name", "type", "rank", "machine", "reduce_Bps", "parent", NULL};
    static const char *const link_keys[] = {"name", "a", "b", "bw_Bps", "lat_s", "lanes", NULL};
    const cJSON *nodes, *links;
    ar_status st = read_array(c, root, "nodes", 1, 1, &nodes);
    if (!st) st = read_array(c, root, "links", 1, 0, &links);
    if (st) return st;
    int nn = cJSON_GetArraySize(nodes), nl = cJSON_GetArraySize(links);
    name_ref *names = ar_calloc((size_t)nn, sizeof *names);
    int *parent = ar_calloc((size_t)nn, sizeof *parent), *uplink = ar_calloc((size_t)nn, sizeof *uplink);
    const cJSON **lk = ar_calloc((size_t)nl + 1, sizeof *lk);
    if (!names || !parent || !uplink || !lk) {
        free(names), free(parent), free(uplink), free(lk);
        return ar_jpath_fail(&c->jp, AR_ENOMEM, "out of memory");
    }
    char q[96];
    size_t old = ar_jpath_key(&c->jp, "nodes");
    int i = 0;
    for (const cJSON *n = nodes->child; n && !st; n = n->next, i++) {
        size_t o2 = ar_jpath_idx(&c->jp, i);
        st = need_object(c, n);
        if (!st) st = ar_jpath_check_keys(&c->jp, n, node_keys);
        if (!st) st = read_name(c, n, "name", 1, &names[i].name);
        names[i].idx = i;
        ar_jpath_pop(&c->jp, o2);
    }
    ar_jpath_pop(&c->jp, old);
    if (!st) qsort(names, (size_t)nn, sizeof *names, name_ref_cmp);
    for (int j = 1; j < nn && !st; j++)
        if (!strcmp(names[j].name, names[j - 1].name))
            st = ar_jpath_fail(&c->jp, AR_EINVAL, "nodes: duplicate node name %s",
                               ar_quote(names[j].name, q, sizeof q));
    i = 0;
    for (const cJSON *n = st ? NULL : nodes->child; n && !st; n = n->next, i++) {
        const char *pn = NULL;
        size_t o2 = ar_jpath_idx(&c->jp, i);
        st = read_name(c, n, "parent", 0, &pn);
        parent[i] = pn ? name_ref_find(names, nn, pn) : -1, uplink[i] = -1;
        if (!st && pn && (parent[i] < 0 || parent[i] >= i))
            st = ar_jpath_fail(&c->jp, AR_EINVAL, "parent %s is not a node listed before this one",
                               ar_quote(pn, q, sizeof q));
        ar_jpath_pop(&c->jp, o2);
    }
    old = ar_jpath_key(&c->jp, "links");
    i = 0;
    for (const cJSON *l = st ? NULL : links->child; l && !st; l = l->next, i++) {
        const char *na = NULL, *nb = NULL;
        size_t o2 = ar_jpath_idx(&c->jp, i);
        st = need_object(c, l);
        if (!st) st = ar_jpath_check_keys(&c->jp, l, link_keys);
        if (!st) st = read_name(c, l, "a", 1, &na);
        if (!st) st = read_name(c, l, "b", 1, &nb);
        int a = st ? -1 : name_ref_find(names, nn, na), b = st ? -1 : name_ref_find(names, nn, nb);
        if (!st && (a < 0 || b < 0))
            st = ar_jpath_fail(&c->jp, AR_EINVAL, "unknown node %s", ar_quote(a < 0 ? na : nb, q, sizeof q));
        lk[i] = l;
        if (!st && k != AR_PLAT_TORUS) {
            int child = parent[b] == a ? b : parent[a] == b ? a : -1;
            if (child < 0) st = ar_jpath_fail(&c->jp, AR_EINVAL, "links a node to one that is not its parent (a tree)");
            else uplink[child] = i;
        }
        ar_jpath_pop(&c->jp, o2);
    }
    ar_jpath_pop(&c->jp, old);
    if (!st && k == AR_PLAT_TORUS) {
        /* the GPU link (GPU - its machine switch) and the torus link (switch - switch) */
        const cJSON *gl = NULL, *sl = NULL;
        for (int j = 0; j < nl; j++) {
            const cJSON *ta = NULL, *tb = NULL;
            int a = name_ref_find(names, nn, field(lk[j], "a")->valuestring),
                b = name_ref_find(names, nn, field(lk[j], "b")->valuestring);
            int l2 = 0;
            for (const cJSON *n = nodes->child; n; n = n->next, l2++) {
                if (l2 == a) ta = field(n, "type");
                if (l2 == b) tb = field(n, "type");
            }
            int ga = cJSON_IsString(ta) && !strcmp(ta->valuestring, "gpu"),
                gb = cJSON_IsString(tb) && !strcmp(tb->valuestring, "gpu");
            if ((ga || gb) && !gl) gl = lk[j];
            if (!ga && !gb && !sl) sl = lk[j];
        }
        long long g = 0, il = 1, ll = 1;
        double ib = 0, it = 0, lb = 0, lt = 0;
        const cJSON *arr = NULL;
        int dims[AR_MAX_DIMS], nd = 0;
        st = read_int(c, root, "gpus_per_machine", 1, AR_MAX_RANKS, 0, 1, &g);
        if (!st) st = read_array(c, root, "dims", 1, 1, &arr);
        for (const cJSON *d = st ? NULL : arr->child; d && !st && nd < AR_MAX_DIMS; d = d->next)
            if (!cJSON_IsNumber(d) || d->valuedouble < 1 || d->valuedouble > AR_MAX_RANKS)
                st = ar_jpath_fail(&c->jp, AR_EINVAL, "dims: integers >= 1");
            else dims[nd++] = (int)d->valuedouble;
        if (!st && !gl) st = ar_jpath_fail(&c->jp, AR_EINVAL, "links: no GPU link");
        if (!st) st = read_required_unit(c, gl, "bw_Bps", 1, &ib);
        if (!st) st = read_required_unit(c, gl, "lat_s", 0, &it);
        if (!st) st = read_int(c, gl, "lanes", 1, AR_MAX_LANES, 1, 0, &il);
        if (!st && sl) st = read_required_unit(c, sl, "bw_Bps", 1, &lb);
        if (!st && sl) st = read_required_unit(c, sl, "lat_s", 0, &lt);
        if (!st && sl) st = read_int(c, sl, "lanes", 1, AR_MAX_LANES, 1, 0, &ll);
        if (!st && !sl) lb = ib, lt = it, ll = il;
        if (!st)
            st = ar_jpath_wrap(&c->jp, ar_pb_torus(c->b, dims, nd, (int)g, ib, it, (int)il, lb, lt, (int)ll, c->jp.e));
    }
    i = 0;
    for (const cJSON *n = st || k == AR_PLAT_TORUS ? NULL : nodes->child; n && !st; n = n->next, i++) {
        size_t o2 = ar_jpath_idx(&c->jp, i);
        const char *type = NULL, *name = NULL;
        st = read_name(c, n, "type", 1, &type);
        if (!st) st = read_name(c, n, "name", 1, &name);
        if (!st && strcmp(type, "gpu") && strcmp(type, "switch"))
            st = ar_jpath_fail(&c->jp, AR_EINVAL, "type must be \"gpu\" or \"switch\"");
        double bw = 0, lat = 0, red = 0;
        long long lanes = 1, machine = -1;
        if (!st && parent[i] >= 0 && uplink[i] < 0) st = ar_jpath_fail(&c->jp, AR_EINVAL, "no link to its parent");
        if (!st && parent[i] >= 0) {
            const cJSON *l = lk[uplink[i]];
            st = read_required_unit(c, l, "bw_Bps", 1, &bw);
            if (!st) st = read_required_unit(c, l, "lat_s", 0, &lat);
            if (!st) st = read_int(c, l, "lanes", 1, AR_MAX_LANES, 1, 0, &lanes);
        }
        if (!st) st = read_reduce_bw(c, n, &red);
        if (!st) st = read_int(c, n, "machine", 0, AR_MAX_RANKS, -1, 0, &machine);
        int vi = -1;
        if (!st)
            st = ar_jpath_wrap(&c->jp,
                               ar_pb_child(c->b, parent[i], name, strcmp(type, "gpu") ? AR_NODE_SWITCH : AR_NODE_GPU,
                                           bw, lat, (int)lanes, &vi, c->jp.e));
        if (!st && strcmp(type, "gpu")) c->b->p->nodes[vi].reduce_Bps = red; /* machines: derived, as loaded */
        if (!st && parent[i] >= 0) { /* the link keeps its printed name (scenarios name links) */
            const cJSON *ln = field(lk[uplink[i]], "name");
            ar_link *L = &c->b->p->links[c->b->p->nlinks - 1];
            if (cJSON_IsString(ln) && ln->valuestring && strcmp(L->name, ln->valuestring)) {
                char *nm = ar_strdup(ln->valuestring);
                if (!nm) st = ar_jpath_fail(&c->jp, AR_ENOMEM, "out of memory");
                else free(L->name), L->name = nm;
            }
        }
        ar_jpath_pop(&c->jp, o2);
    }
    free(names), free(parent), free(uplink), free(lk);
    return st;
}

/* ---- "calibration" and "nccl": factors, validated here, applied after ar_pb_finish ---- */

/* A factor: a finite number in (0, 100]. */
static ar_status read_factor(jctx *c, const cJSON *obj, const char *key, double *out) {
    const cJSON *j = field(obj, key);
    if (!j) return AR_OK;
    size_t old = ar_jpath_key(&c->jp, key);
    ar_status st = AR_OK;
    if (!cJSON_IsNumber(j)) st = ar_jpath_fail(&c->jp, AR_EINVAL, "must be a number (got %s)", ar_json_type_name(j));
    else if (!isfinite(j->valuedouble) || !(j->valuedouble > 0) || j->valuedouble > 100)
        st = ar_jpath_fail(&c->jp, AR_EINVAL, "must be a factor in (0, 100] (got %g)", j->valuedouble);
    else *out = j->valuedouble;
    ar_jpath_pop(&c->jp, old);
    return st;
}

static ar_status parse_calibration(jctx *c, const cJSON *root, ar_platform *p) {
    static const char *const k_cal[] = {"intra", "inter", "base", "applied_to_links", NULL};
    static const char *const k_cls[] = {"lat", "bw", "nvls", "collnet", NULL};
    static const char *const k_nccl[] = {"efficiency", NULL};
    const cJSON *cal = field(root, "calibration"), *nccl = field(root, "nccl");
    ar_status st = AR_OK;
    if (cal) {
        size_t old = ar_jpath_key(&c->jp, "calibration");
        st = need_object(c, cal);
        if (!st) st = ar_jpath_check_keys(&c->jp, cal, k_cal);
        for (int k = 0; k < 2 && !st; k++) {
            const char *key = k ? "inter" : "intra";
            const cJSON *o = field(cal, key);
            if (!o) continue;
            size_t o2 = ar_jpath_key(&c->jp, key);
            st = need_object(c, o);
            if (!st) st = ar_jpath_check_keys(&c->jp, o, k_cls);
            if (!st) st = read_factor(c, o, "lat", &p->cal_lat[k]);
            if (!st) st = read_factor(c, o, "bw", &p->cal_bw[k]);
            if (!st && field(o, "nvls")) st = read_factor(c, o, "nvls", &p->cal_sw_bw[k][0]);
            if (!st && field(o, "collnet")) st = read_factor(c, o, "collnet", &p->cal_sw_bw[k][1]);
            ar_jpath_pop(&c->jp, o2);
        }
        const char *base = NULL;
        if (!st) st = read_name(c, cal, "base", 0, &base);
        if (!st) st = read_bool(c, cal, "applied_to_links", &c->cal_applied);
        if (!st && base && !(p->cal_base = ar_strdup(base))) st = ar_jpath_fail(&c->jp, AR_ENOMEM, "out of memory");
        ar_jpath_pop(&c->jp, old);
        p->calibrated = 1;
    }
    if (!st && nccl) {
        size_t old = ar_jpath_key(&c->jp, "nccl");
        st = need_object(c, nccl);
        if (!st) st = ar_jpath_check_keys(&c->jp, nccl, k_nccl);
        const cJSON *eff = st ? NULL : field(nccl, "efficiency");
        if (eff) {
            size_t o2 = ar_jpath_key(&c->jp, "efficiency");
            st = need_object(c, eff);
            for (const cJSON *j = st ? NULL : eff->child; j && !st; j = j->next) {
                char q[96], name[64];
                const char *k = j->string ? j->string : "";
                snprintf(name, sizeof name, "%s", k);
                char *slash = strchr(name, '/');
                if (slash) *slash = 0;
                int a = -1, pr = -1;
                for (int i = 0; i < AR_CAL_NALGOS; i++)
                    if (!strcasecmp(name, ar_cal_algo_names[i])) a = i;
                for (int i = 0; slash && i < AR_CAL_NPROTOS; i++)
                    if (!strcasecmp(slash + 1, ar_cal_proto_names[i])) pr = i;
                if (a < 0 || (slash && pr < 0) || strlen(k) >= sizeof name) {
                    st = ar_jpath_fail(&c->jp, AR_EINVAL,
                                       "unknown %s in %s (expected ALGO or ALGO/PROTO: TREE, RING, COLLNET_DIRECT, "
                                       "COLLNET_CHAIN, NVLS, NVLS_TREE, PAT / LL, LL128, SIMPLE)",
                                       a < 0 ? "algorithm" : "protocol", ar_quote(k, q, sizeof q));
                    break;
                }
                double v = 0;
                st = read_factor(c, eff, k, &v);
                for (int i = 0; !st && i < AR_CAL_NPROTOS; i++)
                    if (!slash || i == pr) p->nccl_eff[a][i] = v;
            }
            ar_jpath_pop(&c->jp, o2);
        }
        ar_jpath_pop(&c->jp, old);
    }
    return st;
}

/* ---- the document ---- */

/* "compute": {"reduce": RATE, "launch": TIME, "stage": {"d2h": RATE, "h2d": RATE, "transfers":
 * "inter-machine"|"all"}}: every GPU's reduction rate, the per-op launch overhead and
 * host staging copies; all optional, absent = free. */
typedef struct compute_in {
    double reduce_Bps, launch_s, d2h_Bps, h2d_Bps, msg_o_s, msg_g_s;
    int stage_all, msg_all, msg_ready;
} compute_in;

/* "transfers": "inter-machine" (default) or "all" into *all. */
static ar_status read_transfers(jctx *c, const cJSON *j, int *all) {
    const char *tr = NULL;
    ar_status st = read_name(c, j, "transfers", 0, &tr);
    if (!st && tr) {
        if (!strcmp(tr, "all")) *all = 1;
        else if (strcmp(tr, "inter-machine")) {
            size_t o2 = ar_jpath_key(&c->jp, "transfers");
            char q[96];
            st = ar_jpath_fail(&c->jp, AR_EINVAL, "must be \"inter-machine\" or \"all\" (got %s)",
                               ar_quote(tr, q, sizeof q));
            ar_jpath_pop(&c->jp, o2);
        }
    }
    return st;
}

/* "message": {"o": TIME, "g": TIME, "transfers": "inter-machine"|"all", "ready": BOOL}: LogGP's per-message
 * overhead (at each end) and gap (platform.h msg_o_s, msg_g_s), and the MPI backend's ready messages
 * (msg_ready); each optional, absent = 0 / false. */
static ar_status parse_message(jctx *c, const cJSON *j, compute_in *out) {
    static const char *const keys[] = {"o", "g", "transfers", "ready", NULL};
    size_t old = ar_jpath_key(&c->jp, "message");
    int present = 0;
    ar_status st = need_object(c, j);
    if (!st) st = ar_jpath_check_keys(&c->jp, j, keys);
    if (!st) st = read_unit(c, j, "o", 0, &present, &out->msg_o_s);
    if (!st) st = read_unit(c, j, "g", 0, &present, &out->msg_g_s);
    if (!st) st = read_transfers(c, j, &out->msg_all);
    if (!st) st = read_bool(c, j, "ready", &out->msg_ready);
    ar_jpath_pop(&c->jp, old);
    return st;
}

static ar_status parse_stage(jctx *c, const cJSON *j, compute_in *out) {
    static const char *const keys[] = {"d2h", "h2d", "transfers", NULL};
    size_t old = ar_jpath_key(&c->jp, "stage");
    ar_status st = need_object(c, j);
    if (!st) st = ar_jpath_check_keys(&c->jp, j, keys);
    if (!st) st = read_required_unit(c, j, "d2h", 1, &out->d2h_Bps);
    if (!st) st = read_required_unit(c, j, "h2d", 1, &out->h2d_Bps);
    if (!st) st = read_transfers(c, j, &out->stage_all);
    ar_jpath_pop(&c->jp, old);
    return st;
}

static ar_status parse_compute(jctx *c, const cJSON *root, compute_in *out) {
    static const char *const keys[] = {"reduce", "launch", "stage", "message", NULL};
    const cJSON *j = field(root, "compute");
    memset(out, 0, sizeof *out);
    if (!j) return AR_OK;
    size_t old = ar_jpath_key(&c->jp, "compute");
    int present = 0;
    ar_status st = need_object(c, j);
    if (!st) st = ar_jpath_check_keys(&c->jp, j, keys);
    if (!st) st = read_unit(c, j, "reduce", 1, &present, &out->reduce_Bps);
    if (!st) st = read_unit(c, j, "launch", 0, &present, &out->launch_s);
    if (!st && field(j, "stage")) st = parse_stage(c, field(j, "stage"), out);
    if (!st && field(j, "message")) st = parse_message(c, field(j, "message"), out);
    ar_jpath_pop(&c->jp, old);
    return st;
}

static ar_status parse_doc(jctx *c, const cJSON *root) {
    static const char *const k_tree[] = {"name",      "kind",        "description", "notes",   "levels", "root",
                                         "reference", "calibration", "nccl",        "compute", "gpu",    NULL};
    static const char *const k_fat[] = {"name",   "kind",           "description", "notes",
                                        "levels", "full_bisection", "reference",   "calibration",
                                        "nccl",   "compute",        "gpu",         NULL};
    static const char *const k_torus[] = {"name",  "kind", "description", "notes",       "dims", "gpus_per_machine",
                                          "intra", "link", "reference",   "calibration", "nccl", "compute",
                                          "gpu",   NULL};
    static const char *const k_graph[] = {"name",    "kind",  "description", "notes",       "gpus",
                                          "nodes",   "links", "reference",   "calibration", "nccl",
                                          "compute", "gpu",   NULL};
    static const char *const k_norm[] = {
        "name",        "kind",  "source",  "description", "gpu",    "notes",         "ranks", "machines",
        "calibration", "nccl",  "compute", "root",        "height", "uniform_depth", "dims",  "gpus_per_machine",
        "levels",      "nodes", "links",   "reference",   NULL};
    char q[96];
    if (!cJSON_IsObject(root))
        return ar_jpath_fail(&c->jp, AR_EINVAL, "the document must be a JSON object (got %s)", ar_json_type_name(root));
    const char *name = NULL, *kind = NULL, *desc = NULL, *gpu = NULL;
    ar_status st = read_name(c, root, "name", 1, &name);
    if (!st) st = read_name(c, root, "kind", 1, &kind);
    if (st) return st;
    ar_platform_kind k;
    const char *const *keys;
    if (!strcmp(kind, "tree")) {
        k = AR_PLAT_TREE;
        keys = k_tree;
    } else if (!strcmp(kind, "fat-tree")) {
        k = AR_PLAT_FAT_TREE;
        keys = k_fat;
    } else if (!strcmp(kind, "torus")) {
        k = AR_PLAT_TORUS;
        keys = k_torus;
    } else if (!strcmp(kind, "graph")) {
        k = AR_PLAT_GRAPH;
        keys = k_graph;
    } else {
        size_t old = ar_jpath_key(&c->jp, "kind");
        st = ar_jpath_fail(&c->jp, AR_EINVAL, "must be \"tree\", \"fat-tree\", \"torus\" or \"graph\" (got %s)",
                           ar_quote(kind, q, sizeof q));
        ar_jpath_pop(&c->jp, old);
        return st;
    }
    /* the normalized form (platform show --format json): "ranks" says so */
    c->normalized = field(root, "ranks") != NULL;
    if (c->normalized) keys = k_norm;
    st = ar_jpath_check_keys(&c->jp, root, keys);
    if (!st && c->normalized) st = read_int(c, root, "ranks", 1, AR_MAX_RANKS, 0, 1, &c->want_ranks);
    if (!st && c->normalized) st = read_int(c, root, "machines", 1, AR_MAX_RANKS, 0, 1, &c->want_machines);
    if (!st) st = read_text_field(c, root, "description", &desc);
    if (!st) st = read_text_field(c, root, "gpu", &gpu);
    int gpu_cc = 0;
    if (!st && gpu) {
        size_t old = ar_jpath_key(&c->jp, "gpu");
        ar_err ge = {{0}};
        if (ar_gpu_cc(gpu, &gpu_cc, &ge) != AR_OK) st = ar_jpath_fail(&c->jp, AR_EINVAL, "%s", ge.msg + 5);
        ar_jpath_pop(&c->jp, old);
    }
    if (st) return st;
    const cJSON *notes, *refs;
    st = read_array(c, root, "notes", 0, 0, &notes);
    /* "reference": published measurements for the bench scripts (platforms/README.md); checked, not kept */
    if (!st) st = read_array(c, root, "reference", 0, 0, &refs);
    compute_in ci;
    if (!st) st = parse_compute(c, root, &ci);
    if (st) return st;
    st = ar_jpath_wrap(&c->jp, ar_pb_begin(c->b, name, c->jp.where, k, c->jp.e));
    if (st) return st;
    ar_platform *p = c->b->p;
    p->reduce_Bps = ci.reduce_Bps;
    p->launch_s = ci.launch_s;
    p->stage_d2h_Bps = ci.d2h_Bps;
    p->stage_h2d_Bps = ci.h2d_Bps;
    p->stage_all = ci.stage_all;
    p->msg_o_s = ci.msg_o_s;
    p->msg_g_s = ci.msg_g_s;
    p->msg_all = ci.msg_all;
    p->msg_ready = ci.msg_ready;
    if (desc && !(p->description = ar_strdup(desc))) return ar_jpath_fail(&c->jp, AR_ENOMEM, "out of memory");
    if (gpu) snprintf(p->gpu, sizeof p->gpu, "%s", gpu);
    p->gpu_cc = gpu_cc;
    st = parse_calibration(c, root, p);
    if (st) return st;
    if (notes) {
        int n = cJSON_GetArraySize(notes), i = 0;
        p->notes = ar_calloc((size_t)n, sizeof *p->notes);
        if (!p->notes) return ar_jpath_fail(&c->jp, AR_ENOMEM, "out of memory");
        size_t old = ar_jpath_key(&c->jp, "notes");
        for (const cJSON *j = notes->child; j && !st; j = j->next, i++) {
            size_t o2 = ar_jpath_idx(&c->jp, i);
            if (!cJSON_IsString(j) || !j->valuestring)
                st = ar_jpath_fail(&c->jp, AR_EINVAL, "must be a string (got %s)", ar_json_type_name(j));
            else if (!(p->notes[i] = ar_strdup(j->valuestring))) st = ar_jpath_fail(&c->jp, AR_ENOMEM, "out of memory");
            else p->nnotes = i + 1;
            ar_jpath_pop(&c->jp, o2);
        }
        ar_jpath_pop(&c->jp, old);
        if (st) return st;
    }
    if (c->normalized) return k == AR_PLAT_GRAPH ? parse_graph(c, root) : parse_normalized_tree(c, root, k);
    switch (k) {
    case AR_PLAT_TREE:
    case AR_PLAT_FAT_TREE: {
        const cJSON *levels = field(root, "levels"), *troot = field(root, "root");
        int fb = 0;
        st = read_bool(c, root, "full_bisection", &fb);
        if (st) return st;
        if (levels && troot) return ar_jpath_fail(&c->jp, AR_EINVAL, "give either \"levels\" or \"root\", not both");
        if (!levels && !troot)
            return ar_jpath_fail(&c->jp, AR_EINVAL,
                                 k == AR_PLAT_TREE ? "missing \"levels\" (symmetric form) or \"root\" (explicit form)"
                                                   : "missing \"levels\"");
        if (levels) {
            const cJSON *arr;
            st = read_array(c, root, "levels", 1, 1, &arr);
            if (!st) st = parse_levels(c, arr, fb);
            return st;
        }
        size_t old = ar_jpath_key(&c->jp, "root");
        st = need_object(c, troot);
        if (!st) {
            link_defaults none = {0, 0, 0, 0, 1};
            st = parse_switch(c, troot, -1, &none, 0);
        }
        ar_jpath_pop(&c->jp, old);
        return st;
    }
    case AR_PLAT_TORUS: return parse_torus(c, root);
    case AR_PLAT_GRAPH: return parse_graph(c, root);
    }
    return AR_OK;
}

/* A graph's symmetric levels as printed (a rail fabric has them; a graph file does not): put back after
 * ar_pb_finish (which derives none for graphs), already calibrated. */
static ar_status normalized_levels(jctx *c, const cJSON *root, ar_platform *p) {
    const cJSON *arr = field(root, "levels");
    int n = cJSON_IsArray(arr) ? cJSON_GetArraySize(arr) : 0, i = 0;
    if (n > AR_MAX_LEVELS) return ar_fail(c->jp.e, AR_ELIMIT, "%s: levels: at most %d", c->jp.where, AR_MAX_LEVELS);
    for (const cJSON *l = n ? arr->child : NULL; l; l = l->next, i++) {
        const cJSON *f = field(l, "fanout"), *bw = field(l, "bw_Bps"), *lat = field(l, "lat_s");
        if (!cJSON_IsNumber(f) || !cJSON_IsNumber(bw) || !cJSON_IsNumber(lat) || f->valuedouble < 1 ||
            !(bw->valuedouble > 0) || lat->valuedouble < 0)
            return ar_fail(c->jp.e, AR_EINVAL, "%s: levels[%d]: needs fanout >= 1, bw_Bps > 0, lat_s >= 0", c->jp.where,
                           i);
        p->levels[i] = (ar_level){(int)f->valuedouble, bw->valuedouble, lat->valuedouble};
    }
    p->nlevels = n;
    return AR_OK;
}

ar_status ar_platform_from_json(const char *text, const char *where, ar_platform **out, ar_err *e) {
    if (!out) return ar_fail(e, AR_EINTERNAL, "ar_platform_from_json: no output");
    *out = NULL;
    if (!where) where = "<json>";
    if (!text) return ar_fail(e, AR_EINVAL, "%s: no JSON text", where);
    const char *s = text;
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') s++;
    if (!*s) return ar_fail(e, AR_EINVAL, "%s: empty document (expected a JSON object)", where);
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithOpts(text, &end, 1);
    if (!root) {
        size_t off = end && end >= text ? (size_t)(end - text) : 0;
        size_t tlen = strlen(text);
        if (off > tlen) off = tlen;
        int line = 1;
        for (size_t i = 0; i < off; i++)
            if (text[i] == '\n') line++;
        return ar_fail(e, AR_EINVAL, "%s: malformed JSON near byte %zu (line %d)", where, off, line);
    }
    ar_pbuild b;
    memset(&b, 0, sizeof b);
    jctx c;
    memset(&c, 0, sizeof c);
    c.jp.where = where;
    c.jp.e = e;
    c.b = &b;
    ar_status st = parse_doc(&c, root);
    if (!st) {
        c.jp.len = 0;
        c.jp.path[0] = '\0';
        st = ar_jpath_wrap(&c.jp, ar_pb_finish(&b, e));
        if (!st && c.normalized && (b.p->nranks != c.want_ranks || b.p->nmachines != c.want_machines))
            st = ar_fail(e, AR_EINVAL,
                         "%s: its nodes give %d ranks on %d machines; \"ranks\"/\"machines\" say %lld on %lld", where,
                         b.p->nranks, b.p->nmachines, c.want_ranks, c.want_machines);
        if (!st && c.normalized && b.p->kind == AR_PLAT_GRAPH) st = normalized_levels(&c, root, b.p);
        if (!st && !c.cal_applied) ar_platform_apply_calibration(b.p);
    }
    cJSON_Delete(root);
    if (st) {
        ar_platform_free(b.p);
        return st;
    }
    *out = b.p;
    return AR_OK;
}
