/* calib/ntcal.h: the calibrated platform is the preset with every link's bandwidth x bw_scale
 * and latency x lat_scale, on a tree (levels), a graph (explicit links) and a torus preset;
 * the name and the notes are the caller's; generated platforms are refused. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/platform/platform.h"
#include "calib/ntcal.h"
#include "../t.h"

static void one(const char *preset, double ls, double bs) {
    ar_err e = {{0}};
    ar_platform *p = NULL, *q = NULL;
    T_OK(ar_platform_load(preset, 0, &p, &e), e);
    const char *notes[2] = {"fit note one", "fit note two"};
    ar_ntcal_in in = {.name = "cal-x", .lat_scale = ls, .bw_scale = bs, .nnotes = 2, .notes = notes};
    char *json = NULL;
    T_OK(ar_ntcal_platform_json(p, &in, &json, &e), e);
    T_OK(ar_platform_from_json(json, "cal-x", &q, &e), e);
    T_CHECK(q && !strcmp(q->name, "cal-x"), "%s: name", preset);
    T_CHECK(q && q->nlinks == p->nlinks && q->nranks == p->nranks, "%s: same shape", preset);
    int ok = q != NULL;
    for (int i = 0; ok && i < p->nlinks; i++) {
        const ar_link *a = &p->links[i], *b = &q->links[i];
        ok = fabs(b->bw_Bps - a->bw_Bps * bs) <= 1e-9 * a->bw_Bps * bs &&
             fabs(b->lat_s - a->lat_s * ls) <= 1e-9 * (a->lat_s * ls + 1e-18) && b->lanes == a->lanes;
        T_CHECK(ok, "%s: link %d: bw %g -> %g (x %g), lat %g -> %g (x %g)", preset, i, a->bw_Bps, b->bw_Bps, bs,
                a->lat_s, b->lat_s, ls);
    }
    T_CHECK(q && q->nnotes >= 2 && !strcmp(q->notes[q->nnotes - 2], "fit note one") &&
                !strcmp(q->notes[q->nnotes - 1], "fit note two"),
            "%s: notes appended", preset);
    free(json);
    ar_platform_free(p);
    ar_platform_free(q);
}

int main(void) {
    one("dgx-h100", 0.8, 0.85);  /* tree with levels */
    one("p3.8xlarge", 2.0, 0.5); /* graph: explicit links */
    one("torus-4x4", 1.5, 1.25); /* torus */
    one("bc-ibm-2x4", 1.0, 0.7); /* two-level tree */
    ar_err e = {{0}};
    ar_platform *p = NULL;
    T_OK(ar_platform_load("tree:fanouts=4", 0, &p, &e), e);
    ar_ntcal_in in = {.name = "x", .lat_scale = 1, .bw_scale = 1};
    char *json = NULL;
    ar_status st = ar_ntcal_platform_json(p, &in, &json, &e);
    T_CHECK(st == AR_EUNSUPPORTED && json == NULL && strstr(e.msg, "generated"), "generated refused: %d %s", (int)st,
            e.msg);
    in.bw_scale = 0;
    st = ar_ntcal_platform_json(p, &in, &json, &e);
    T_CHECK(st == AR_EINVAL, "bw scale 0 refused: %d", (int)st);
    ar_platform_free(p);
    return t_done("test_ntcal");
}
