/* Sweep files (lab/sweep/sweep_spec.h): a full document parses into the expected
 * grid; malformed documents are refused with one line naming the JSON path;
 * the training-step model reproduces BlueConnect's single-GPU numbers; FNV-1a
 * matches its published test vectors. The "report" object: its templates are
 * checked at load, and a claim renders its values exactly. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "lab/report/report.h"
#include "lab/report/report_tmpl.h"
#include "lab/sweep/sweep_spec.h"
#include "../t.h"

static void test_full(void) {
    const char *doc =
        "{\"name\": \"fig\", \"title\": \"T\", \"_comment\": \"ignored\",\n"
        " \"backend\": [\"model\", \"sim\"],\n"
        " \"platforms\": [\"bc-intel-2x4\", {\"spec\": \"fat-tree\", \"ranks\": [64, 128], \"label\": \"FT\"}],\n"
        " \"ranks\": [8],\n"
        " \"algos\": [\"ring\", {\"algo\": \"blueconnect\", \"params\": {\"decomp\": \"4x2\", \"chunks\": 4}, \"label\": \"BLC\"},\n"
        "           {\"spec\": \"pipelined-ring:chunks=8\"}],\n"
        " \"baseline\": \"ring\",\n"
        " \"sizes\": [\"100MB\", 4096, {\"from\": \"1M\", \"to\": \"4M\", \"steps\": 4}, {\"from\": 10, \"to\": 1000, \"steps\": 3, \"scale\": \"log\"}],\n"
        " \"dtype\": \"f16\",\n"
        " \"train\": [{\"label\": \"fp32\", \"compute\": \"163ms\"}, {\"label\": \"fp16\", \"compute\": 0.163, \"compute_div\": 4.8,\n"
        "            \"comm_div\": 2, \"overlap\": true, \"overlap_fraction\": 0.5, \"batch\": 64}],\n"
        " \"sim\": {\"network\": \"cm02-exact\", \"gamma\": 0, \"budget\": \"30s\"},\n"
        " \"real\": {\"csv\": [\"../out/real/*.csv\"]},\n"
        " \"figures\": [{\"id\": \"fig-a\", \"script\": \"plots/a.gp\", \"caption\": \"C\"}]}\n";
    ar_sweep *s = NULL;
    ar_err e = {{0}};
    ar_status st = sweep_from_json(doc, "full.json", &s, &e);
    T_CHECK(st == AR_OK, "parse: %s", e.msg);
    if (!s) return;
    T_CHECK(!strcmp(s->name, "fig"), "name %s", s->name);
    T_CHECK(s->nbackends == 2 && s->backends[0] == lab_backend_find("model") &&
                s->backends[1] == lab_backend_find("sim"),
            "backends");
    T_CHECK(s->nplatforms == 2 && !strcmp(s->platforms[1].spec, "fat-tree") && s->platforms[1].nranks == 2 &&
                s->platforms[1].ranks[1] == 128 && !strcmp(s->platforms[1].label, "FT"),
            "platforms");
    T_CHECK(s->nranks == 1 && s->ranks[0] == 8, "ranks");
    T_CHECK(s->nalgos == 3, "nalgos %d", s->nalgos);
    T_CHECK(!strcmp(s->algos[1].spec, "blueconnect:decomp=4x2,chunks=4"), "params spec %s", s->algos[1].spec);
    T_CHECK(!strcmp(s->algos[2].spec, "pipelined-ring:chunks=8") && !s->algos[2].label, "spec entry");
    T_CHECK(s->baseline == 0, "baseline %d", s->baseline);
    T_CHECK(s->dtype == AR_DTYPE_F16, "dtype");
    /* 100MB of f16 = 5e7 elements; 4096; 1M 2M 3M 4M; 10 100 1000 */
    T_CHECK(s->nsizes == 9, "nsizes %d", s->nsizes);
    if (s->nsizes == 9) {
        T_CHECK(s->sizes[0].elems == 50000000u, "100MB f16 -> %llu", (unsigned long long)s->sizes[0].elems);
        T_CHECK(s->sizes[1].elems == 4096u, "4096");
        T_CHECK(s->sizes[2].elems == 1000000u && s->sizes[5].elems == 4000000u, "linear range");
        T_CHECK(s->sizes[6].elems == 10u && s->sizes[7].elems == 100u && s->sizes[8].elems == 1000u, "log range %llu",
                (unsigned long long)s->sizes[7].elems);
    }
    T_CHECK(s->ntrain == 2 && s->train[1].overlap == 1 && s->train[1].batch == 64, "train");
    T_NEAR(s->train[0].compute_s, 0.163, 1e-12, "compute 163ms");
    T_NEAR(s->train[1].compute_div, 4.8, 1e-12, "compute_div");
    T_CHECK(s->sim_network && !strcmp(s->sim_network, "cm02-exact"), "sim.network");
    T_NEAR(s->sim_budget_s, 30, 1e-12, "sim.budget");
    T_CHECK(s->nreal_csv == 1 && s->nfigures == 1 && !strcmp(s->figures[0].id, "fig-a"), "real, figures");
    sweep_free(s);
}

/* Each document must fail with a message containing `want`. */
static void bad(const char *doc, const char *want) {
    ar_sweep *s = NULL;
    ar_err e = {{0}};
    t_refused(sweep_from_json(doc, "sweep.json", &s, &e), s != NULL, &e, "sweep.json", want, doc);
    sweep_free(s);
}

#define BASE "\"name\": \"x\", \"platforms\": [\"fr-4\"], \"algos\": [\"ring\"]"

static void test_errors(void) {
    bad("{" BASE ", \"sizes\": [\"1MB\", \"2MB\", \"12XB\"]}", "sweep.json: sizes[2]: \"12XB\" is not a size");
    bad("{" BASE ", \"sizes\": [\"1MB\"], \"sizez\": 1}", "unknown key \"sizez\"");
    bad("{" BASE ", \"sizes\": [\"1MB\"], \"backend\": \"gpu\"}", "backend: \"gpu\" is not a backend");
    bad("{\"name\": \"x\", \"algos\": [\"ring\"], \"sizes\": [\"1MB\"]}", "platforms: missing");
    bad("{\"name\": \"x\", \"platforms\": [3], \"algos\": [\"ring\"], \"sizes\": [\"1MB\"]}", "platforms[0]: must be");
    bad("{\"name\": \"x\", \"platforms\": [\"fr-4\"], \"algos\": [], \"sizes\": [\"1MB\"]}",
        "algos: must not be empty");
    bad("{\"name\": \"x\", \"platforms\": [\"fr-4\"], \"algos\": [{\"algo\": \"ring\", \"params\": {\"a\": [1]}}], \"sizes\": [1]}",
        "algos[0].params.a: must be a string or a number");
    bad("{\"name\": \"x\", \"platforms\": [\"fr-4\"], \"algos\": [\"ri ng\"], \"sizes\": [1]}",
        "algos[0]: \"ri ng\" is not an algorithm name");
    bad("{" BASE ", \"sizes\": [0]}", "sizes[0]: 0 is not a whole number of elements");
    bad("{" BASE ", \"sizes\": [{\"from\": \"4M\", \"to\": \"1M\", \"steps\": 3}]}", "sizes[0]: \"to\" must be larger");
    bad("{" BASE ", \"sizes\": [{\"from\": \"1M\", \"to\": \"4M\"}]}", "sizes[0].steps: missing");
    bad("{" BASE ", \"sizes\": [\"1M\", \"4MB\"]}", "are the same size");
    bad("{" BASE ", \"sizes\": [1], \"ranks\": [0]}", "ranks[0]: must be an integer in 1..");
    bad("{" BASE ", \"sizes\": [1], \"train\": {\"compute\": \"fast\"}}", "train.compute: \"fast\" is not a time");
    bad("{" BASE
        ", \"sizes\": [1], \"train\": [{\"label\": \"a\", \"compute\": 1}, {\"label\": \"a\", \"compute\": 1}]}",
        "train[1]: label \"a\" is used twice");
    bad("{" BASE ", \"sizes\": [1], \"train\": {\"compute\": 1, \"comm_div\": -2}}",
        "train.comm_div: must be a number");
    bad("{" BASE ", \"sizes\": [1], \"baseline\": \"hd\"}", "baseline: \"hd\" is not one of the algos");
    bad("{" BASE ", \"sizes\": [1], \"figures\": [{\"id\": \"../x\"}]}", "figures[0].id");
    bad("{\"name\": \"../x\", \"platforms\": [\"fr-4\"], \"algos\": [\"ring\"], \"sizes\": [1]}",
        "name: a sweep name may not start with");
    bad("{" BASE ", \"sizes\": [1], \"dtype\": \"f8\"}", "dtype: \"f8\" is not a data type");
    bad("{" BASE ", \"sizes\": [1], \"sim\": {\"gamma\": 2}}", "sim.gamma: must be seconds per byte");
    bad("{" BASE ", \"sizes\": [1], \"name\": \"y\"}", "key \"name\" appears twice");
    bad("[1, 2]", "the sweep must be a JSON object");
    bad("{\"name\": \"x\",\n \"platforms\": [}", "line 2: not valid JSON");
    bad("", "not valid JSON");
    bad("{" BASE ", \"sizes\": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], \"ranks\": [1, 2], "
        "\"platforms\": [\"flat\"], \"algos\": [\"ring\"]}",
        "appears twice");
}

static void test_limits(void) {
    /* 4096 sizes x 250 algos = 1,024,000 > the 1e6 point cap */
    size_t cap = 1 << 20;
    char *doc = malloc(cap);
    if (!doc) return;
    size_t n = (size_t)snprintf(doc, cap, "{\"name\": \"big\", \"platforms\": [\"fr-4\"], \"algos\": [");
    for (int i = 0; i < 250; i++) n += (size_t)snprintf(doc + n, cap - n, "%s\"ring:x=%d\"", i ? "," : "", i);
    n += (size_t)snprintf(doc + n, cap - n, "], \"sizes\": [{\"from\": 1, \"to\": 5000, \"steps\": 4096}]}");
    ar_sweep *s = NULL;
    ar_err e = {{0}};
    T_CHECK(sweep_from_json(doc, "big.json", &s, &e) == AR_EINVAL, "oversized grid accepted");
    T_CHECK(strstr(e.msg, "the limit is 1000000") != NULL, "limit message: %s", e.msg);
    free(doc);
}

static void test_train(void) {
    sweep_train_config t = {.label = "fp32",
                            .compute_s = 0.163,
                            .batch = 32,
                            .overlap = 0,
                            .overlap_fraction = 2.0 / 3,
                            .compute_div = 1,
                            .comm_div = 1};
    sweep_train_result one = sweep_train_eval(&t, 1, 0.5);
    T_NEAR(one.images_s, 196.319, 1e-4, "single GPU: 196.3 images/s (BlueConnect Sec. 4.2)");
    T_NEAR(one.scaling_eff, 1.0, 1e-12, "single GPU efficiency");
    sweep_train_result r = sweep_train_eval(&t, 192, 0.031);
    T_NEAR(r.iter_s, 0.194, 1e-12, "163 + 31 ms");
    T_NEAR(r.overhead_s, 0.031, 1e-9, "overhead = communication without overlap");
    T_NEAR(r.scaling_eff, 0.163 / 0.194, 1e-12, "efficiency");
    T_NEAR(r.speedup, 192 * 0.163 / 0.194, 1e-12, "speedup");
    T_NEAR(r.images_s, 32.0 * 192 / 0.194, 1e-12, "images/s");
    t.compute_div = 4.8;
    t.comm_div = 2;
    sweep_train_result h = sweep_train_eval(&t, 192, 0.031);
    T_NEAR(h.compute_s, 0.163 / 4.8, 1e-12, "FP16 compute / 4.8");
    T_NEAR(h.comm_s, 0.0155, 1e-12, "FP16 communication / 2");
    t.compute_div = 1;
    t.comm_div = 1;
    t.overlap = 1;
    t.overlap_fraction = 0.5;
    sweep_train_result o = sweep_train_eval(&t, 8, 0.1); /* 0.1 - 0.0815 exposed */
    T_NEAR(o.iter_s, 0.163 + 0.1 - 0.0815, 1e-12, "overlap hides up to half the compute");
    sweep_train_result o2 = sweep_train_eval(&t, 8, 0.05);
    T_NEAR(o2.iter_s, 0.163, 1e-12, "fully hidden");
}

static void test_fnv(void) {
    /* published FNV-1a 64 test vectors */
    T_CHECK(sweep_fnv1a64(AR_FNV1A_INIT, "", 0) == UINT64_C(0xcbf29ce484222325), "fnv empty");
    T_CHECK(sweep_fnv1a64(AR_FNV1A_INIT, "a", 1) == UINT64_C(0xaf63dc4c8601ec8c), "fnv a");
    T_CHECK(sweep_fnv1a64(AR_FNV1A_INIT, "foobar", 6) == UINT64_C(0x85944171f73967e8), "fnv foobar");
    T_CHECK(sweep_fnv1a64(sweep_fnv1a64(AR_FNV1A_INIT, "foo", 3), "bar", 3) == UINT64_C(0x85944171f73967e8),
            "fnv chained");
}

/* "report": accepted and carried as JSON; bad templates and keys refused with the JSON path. */
static void test_report_spec(void) {
    ar_sweep *s = NULL;
    ar_err e = {{0}};
    const char *ok = "{" BASE ", \"sizes\": [1], \"report\": {\"claims\": [{\"what\": \"W {{x}}\", "
                     "\"arlab\": \"{a:%.2f} / {n:%d} / {p:%+.1f} % / {g:%.3g} / {t} / {t:%s}\", "
                     "\"choose\": {\"t\": {\"yes\": \"agrees ({n})\", \"no\": \"differs\"}}}]}}";
    T_OK(sweep_from_json(ok, "sweep.json", &s, &e), e);
    T_CHECK(s && s->report && strstr(s->report, "\"claims\"") && strstr(s->report, "{a:%.2f}"), "report carried: %s",
            s && s->report ? s->report : "(null)");
    sweep_free(s);
    bad("{" BASE ", \"sizes\": [1], \"report\": {\"claim\": []}}", "sweep.json: report: unknown key \"claim\"");
    bad("{" BASE ", \"sizes\": [1], \"report\": {\"claims\": [{\"who\": \"x\"}]}}",
        "report.claims[0]: unknown key \"who\"");
    bad("{" BASE ", \"sizes\": [1], \"report\": {\"claims\": [{\"arlab\": \"{a:%n}\"}]}}",
        "report.claims[0].arlab: placeholder {a:%n}: bad format %n");
    bad("{" BASE ", \"sizes\": [1], \"report\": {\"claims\": [{\"arlab\": \"{a:%.2f\"}]}}",
        "report.claims[0].arlab: placeholder {a:%.2f: no closing");
    bad("{" BASE ", \"sizes\": [1], \"report\": {\"claims\": [{\"why\": \"{a b}\"}]}}",
        "report.claims[0].why: placeholder {a b}: a name is");
    bad("{" BASE ", \"sizes\": [1], \"report\": {\"claims\": [{\"why\": \"1 } 2\"}]}}",
        "report.claims[0].why: a lone '}'");
    bad("{" BASE ", \"sizes\": [1], \"report\": {\"claims\": [{\"choose\": {\"t\": {\"y\": \"{x:%10s}\"}}}]}}",
        "report.claims[0].choose.t.y: placeholder {x:%10s}: bad format");
    bad("{" BASE ", \"sizes\": [1], \"report\": {\"claims\": [{\"why\": 3}]}}", "report.claims[0].why: must be");
    bad("{" BASE ", \"sizes\": [1], \"report\": [1]}", "report: must be an object");
}

/* Templates render the given values exactly; unknown names fail with one line naming file and path. */
static void test_report_render(void) {
    report_val v[] = {{"a", 1.23456, NULL}, {"n", 7.0, NULL}, {"s", 0, "text"}};
    char out[200];
    ar_err e = {{0}};
    T_OK(report_tmpl_expand("{a:%.2f}x {{n}} {n:%d} {a:%+.1f} {a:%.3g} {a} {s} {s:%s}", v, 3, out, sizeof out, "w", &e),
         e);
    T_CHECK(!strcmp(out, "1.23x {n} 7 +1.2 1.23 1.23456 text text"), "expanded \"%s\"", out);
    T_CHECK(report_tmpl_expand("{b}", v, 3, out, sizeof out, "f.json: report.claims[0].why", &e) == AR_EINVAL &&
                !strcmp(e.msg, "f.json: report.claims[0].why: unknown placeholder {b}"),
            "unknown name: %s", e.msg);
    T_CHECK(report_tmpl_expand("{s:%.2f}", v, 3, out, sizeof out, "w", &e) == AR_EINVAL && strstr(e.msg, "is text"),
            "text as number: %s", e.msg);
    T_CHECK(report_tmpl_expand("{a:%s}", v, 3, out, sizeof out, "w", &e) == AR_EINVAL && strstr(e.msg, "is a number"),
            "number as text: %s", e.msg);
    T_CHECK(report_tmpl_expand("{a:%.2f%n}", v, 3, out, sizeof out, "w", &e) == AR_EINVAL &&
                strstr(e.msg, "bad format"),
            "printf injection refused: %s", e.msg);

    /* a whole claim: choose by case, then the fields; the speed-up renders exactly */
    report_vals *vals = calloc(1, sizeof *vals);
    T_CHECK(vals != NULL, "alloc");
    if (!vals) return;
    vals->n = 3;
    strcpy(vals->name[0], "speedup");
    vals->num[0] = 1.4649;
    strcpy(vals->name[1], "verdict");
    strcpy(vals->str[1], "differ");
    vals->is_str[1] = 1;
    strcpy(vals->name[2], "gone");
    vals->num[2] = NAN;
    cJSON *rep = cJSON_Parse(
        "{\"claims\": [{\"what\": \"BLC\", \"paper\": \"about 1.6x\", "
        "\"arlab\": \"{speedup:%.2f}x\", \"why\": \"{verdict}: the model gives {speedup:%.1f}x.\", "
        "\"choose\": {\"verdict\": {\"agree\": \"Agrees\", \"differ\": \"Differs by {speedup:%+.2f}\"}}},"
        "{\"arlab\": \"{gone:%.1f} ms\"}]}");
    report_claim cl[REPORT_MAX_CLAIMS];
    int n = 0;
    T_OK(report_claims_render("r.json", rep, vals, cl, REPORT_MAX_CLAIMS, &n, &e), e);
    T_CHECK(n == 2, "two claims (%d)", n);
    T_CHECK(!strcmp(cl[0].what, "BLC") && !strcmp(cl[0].paper, "about 1.6x") && !strcmp(cl[0].arlab, "1.46x"),
            "claim 0: %s | %s | %s", cl[0].what, cl[0].paper, cl[0].arlab);
    T_CHECK(!strcmp(cl[0].why, "Differs by +1.46: the model gives 1.5x."), "why: %s", cl[0].why);
    T_CHECK(!strcmp(cl[1].arlab, "n/a (rows missing)"), "NaN value: %s", cl[1].arlab);
    cJSON_Delete(rep);
    rep = cJSON_Parse("{\"claims\": [{\"arlab\": \"{speedup:%.2f}\"}, {\"arlab\": \"{speed_up:%.2f}x\"}]}");
    T_CHECK(report_claims_render("r.json", rep, vals, cl, REPORT_MAX_CLAIMS, &n, &e) == AR_EINVAL && n == 0 &&
                !strcmp(e.msg, "r.json: report.claims[1].arlab: unknown placeholder {speed_up}"),
            "unknown value: %s", e.msg);
    cJSON_Delete(rep);
    rep = cJSON_Parse("{\"claims\": [{\"why\": \"{verdict}\", \"choose\": {\"verdict\": {\"agree\": \"A\"}}}]}");
    T_CHECK(report_claims_render("r.json", rep, vals, cl, REPORT_MAX_CLAIMS, &n, &e) == AR_EINVAL &&
                !strcmp(e.msg, "r.json: report.claims[0].choose.verdict: no text for the case \"differ\""),
            "missing case: %s", e.msg);
    cJSON_Delete(rep);
    free(vals);
}

int main(void) {
    test_full();
    test_report_spec();
    test_report_render();
    test_errors();
    test_limits();
    test_train();
    test_fnv();
    return t_done("test_sweep_spec");
}
