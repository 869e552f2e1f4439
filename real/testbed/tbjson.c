/* Tree platforms written back as JSON (see tbjson.h). */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "real/testbed/tbjson.h"

/* JSON for node v (and its subtree); its link to the parent is written on it. */
static cJSON *node_json(const ar_platform *p, int v, const double *bw, const double *lat, int depth) {
    const ar_node *n = &p->nodes[v];
    cJSON *o = cJSON_CreateObject();
    if (!o || depth > AR_MAX_LEVELS + 2) {
        cJSON_Delete(o);
        return NULL;
    }
    int ok = 1;
    if (n->kind == AR_NODE_GPU) ok = cJSON_AddStringToObject(o, "gpu", n->name) != NULL;
    else ok = cJSON_AddStringToObject(o, "name", n->name) != NULL;
    if (n->uplink >= 0) {
        const ar_link *l = &p->links[n->uplink];
        double b = bw ? bw[n->uplink] : ar_link_capacity(l), t = lat ? lat[n->uplink] : l->lat_s;
        ok = ok && cJSON_AddNumberToObject(o, "bw", b) && cJSON_AddNumberToObject(o, "lat", t);
    }
    if (n->kind == AR_NODE_SWITCH) {
        cJSON *ch = cJSON_AddArrayToObject(o, "children");
        ok = ok && ch;
        for (int i = 0; ok && i < n->nchildren; i++) {
            cJSON *c = node_json(p, n->children[i], bw, lat, depth + 1);
            ok = c && cJSON_AddItemToArray(ch, c);
            if (!ok) cJSON_Delete(c);
        }
    }
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

ar_status ar_tb_write_tree(const ar_platform *p, const char *name, const double *bw, const double *lat,
                           double reduce_Bps, double msg_o_s, int ready, const char *const *notes, int nnotes,
                           const char *path, ar_err *e) {
    if (p->root < 0) return ar_fail(e, AR_EUNSUPPORTED, "%s is not a tree platform", p->name);
    cJSON *doc = cJSON_CreateObject();
    int ok = doc != NULL;
    ok = ok && cJSON_AddStringToObject(doc, "name", name) && cJSON_AddStringToObject(doc, "kind", "tree");
    if (ok && p->description) ok = cJSON_AddStringToObject(doc, "description", p->description) != NULL;
    cJSON *na = ok ? cJSON_AddArrayToObject(doc, "notes") : NULL;
    ok = ok && na;
    for (int i = 0; ok && i < p->nnotes; i++) ok = cJSON_AddItemToArray(na, cJSON_CreateString(p->notes[i]));
    for (int i = 0; ok && i < nnotes; i++) ok = cJSON_AddItemToArray(na, cJSON_CreateString(notes[i]));
    if (ok && (reduce_Bps > 0 || msg_o_s > 0 || ready)) {
        cJSON *co = cJSON_AddObjectToObject(doc, "compute");
        ok = co != NULL;
        if (ok && reduce_Bps > 0) ok = cJSON_AddNumberToObject(co, "reduce", reduce_Bps) != NULL;
        if (ok && (msg_o_s > 0 || ready)) {
            cJSON *mo = cJSON_AddObjectToObject(co, "message");
            ok = mo != NULL;
            if (ok && msg_o_s > 0)
                ok = cJSON_AddNumberToObject(mo, "o", msg_o_s) &&
                     cJSON_AddStringToObject(mo, "transfers", "inter-machine");
            if (ok && ready) ok = cJSON_AddTrueToObject(mo, "ready") != NULL;
        }
    }
    cJSON *root = ok ? node_json(p, p->root, bw, lat, 0) : NULL;
    ok = ok && root && cJSON_AddItemToObject(doc, "root", root);
    char *text = ok ? cJSON_Print(doc) : NULL;
    cJSON_Delete(doc);
    if (!text) return ar_fail(e, AR_ENOMEM, "out of memory writing %s", path);
    ar_platform *chk = NULL;
    ar_status st = ar_platform_from_json(text, path, &chk, e);
    if (st == AR_OK && (chk->nranks != p->nranks || chk->nmachines != p->nmachines))
        st = ar_fail(e, AR_EINTERNAL, "%s: written tree has %d ranks on %d machines, not %d on %d", path, chk->nranks,
                     chk->nmachines, p->nranks, p->nmachines);
    ar_platform_free(chk);
    if (st == AR_OK) {
        FILE *f = fopen(path, "w");
        if (!f || fputs(text, f) < 0 || fputc('\n', f) == EOF) st = ar_fail(e, AR_EIO, "cannot write %s", path);
        if (f && fclose(f) != 0 && st == AR_OK) st = ar_fail(e, AR_EIO, "cannot write %s", path);
    }
    free(text);
    return st;
}
