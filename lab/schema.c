/* The results schema (schema.h): the column table and everything derived
 * from it (field setters, CSV and JSON lines, header mapping for readers). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/textio.h"
#include "core/util.h"
#include "schema.h"

#define T LAB_TEXT, NULL
#define P LAB_PLAIN, NULL
#define I LAB_INT, "%lld"
#define S9 LAB_NUM, "%.17g" /* times: full precision */
#define S6 LAB_NUM, "%.6g"
#define S0 LAB_NUM, "%.0f"

const lab_col lab_cols[LAB_NCOLS] = {
    [SC_SWEEP] = {"sweep", T, "sweep name"},
    [SC_BACKEND] =
        {"backend", T,
         "what produced time_s: model, sim, real or measured (an entry of the backend table, lab/backend.h)"},
    [SC_PLATFORM] = {"platform", P, "platform label (or name)"},
    [SC_RANKS] = {"ranks", I, "GPUs of the platform"},
    [SC_MACHINES] = {"machines", I, "machines of the platform"},
    [SC_ALGO] = {"algo", P, "algorithm spec as written"},
    [SC_LABEL] = {"label", P, "legend name"},
    [SC_DTYPE] = {"dtype", T, "data type"},
    [SC_ELEMS] = {"elems", I, "elements per rank buffer"},
    [SC_BYTES] = {"bytes", S0, "bytes per rank buffer"},
    [SC_TIME] = {"time_s", S9, "the backend's time: cost walk (model), simulated (sim), measured median (real)"},
    [SC_MODEL] =
        {"model_s", S9,
         "the closed form where it agrees with the walk (0.1 %), else the cost walk (the one definition, lab/eval.h, also in model, sim and compare)"},
    [SC_CLOSED] = {"closed_s", S9, "the paper's closed form"},
    [SC_WALK] = {"walk_s", S9, "the cost walk of the schedule"},
    [SC_SIM] = {"sim_s", S9, "simulated time (sim rows; real rows when the build has the simulator)"},
    [SC_MEASURED] = {"measured_s", S9, "imported measurement (median)"},
    [SC_REL_DIFF] = {"rel_diff", S6, "(time_s - model_s) / model_s"},
    [SC_BASE] = {"base_s", S9, "the baseline algorithm's time_s at the same point"},
    [SC_VS_BASE] = {"vs_base", S6, "base_s / time_s"},
    [SC_SAVING] = {"saving", S6, "1 - time_s / base_s"},
    [SC_CALLS_MAX] = {"calls_max", S0, "reduce calls per rank, max (FlexReduce: per learner at the top level)"},
    [SC_CALLS_AVG] = {"calls_avg", S6, "reduce calls per rank, mean"},
    [SC_CALLS_BOUND] = {"calls_bound", S0, "FlexReduce's largest Eq. 12 bound"},
    [SC_TRAIN] = {"train", T, "training configuration label"},
    [SC_COMPUTE] = {"compute_s", S9, "training step: compute time"},
    [SC_COMM] = {"comm_s", S9, "training step: all-reduce time"},
    [SC_ITER] = {"iter_s", S9, "training step: iteration time"},
    [SC_OVERHEAD] = {"overhead_s", S9, "training step: iter_s - compute_s"},
    [SC_IMAGES] = {"images_s", S6, "training step: images per second, all GPUs"},
    [SC_SPEEDUP] = {"speedup", S6, "training step: speedup over one GPU"},
    [SC_EFF] = {"scaling_eff", S6, "training step: speedup / ranks"},
    [SC_STATUS] =
        {"status", T,
         "ok, unsupported (the algorithm cannot serve this platform), missing (no measurement yet), budget (sim.budget stopped the simulation; not rerun on resume), error"},
    [SC_CAUSE] =
        {"cause", T,
         "where time_s and model_s part by >= 1 %, the assumption that broke (heuristic: link sharing the closed form does not count, every step priced at the slowest link, uneven blocks, contention the walk does not count, max-min sharing beating equal shares); agree otherwise"},
    [SC_PLATFORM_HASH] = {"platform_hash", T, "FNV-1a 64 of the platform file or of the family spec and ranks"},
    [SC_VERSION] = {"version", T, "arlab version"},
    [SC_COMMIT] = {"commit", T, "git commit at configure time"},
    [SC_PLATFORM_SRC] = {"platform_src", T, "preset:NAME, the file path, or generated:SPEC"},
    [SC_NETWORK] =
        {"network", T,
         "how the time was computed: the cost walk's assumptions, SimGrid's model and every setting, or the measurement count"},
    [SC_DETAIL] = {"detail", T, "the planner's variant (e.g. decomp=4x2)"},
    [SC_MESSAGE] = {"message", P, "closed-form notes or the error/unsupported message"},
    [SC_KEY] = {"key", T, "row identity for resume: backend|platform|ranks|algo|elems|dtype|train"},
    [SC_ALGBW] = {"algbw_GBps", S9, "nccl-tests' algbw of time_s: bytes / time_s, in 1e9 B/s"},
    [SC_BUSBW] = {"busbw_GBps", S9, "nccl-tests' busbw of time_s: algbw x 2(n-1)/n (all-reduce)"},
    [SC_NCCL_MODEL] = {"nccl_model_s", S9,
                       "what NCCL's own tuner would take (models/nccl_model.h); empty: not modelled"},
    [SC_NCCL_ALGO] = {"nccl_algo", T, "the algorithm NCCL's tuner would choose"},
    [SC_NCCL_PROTO] = {"nccl_proto", T, "the protocol NCCL's tuner would choose"},
};

#undef T
#undef P
#undef I
#undef S9
#undef S6
#undef S0

int lab_col_find(const char *name) {
    for (int c = 0; c < LAB_NCOLS; c++)
        if (!strcmp(lab_cols[c].name, name)) return c;
    return -1;
}

int sweep_col_numeric(int col) {
    return col >= 0 && col < LAB_NCOLS && (lab_cols[col].type == LAB_INT || lab_cols[col].type == LAB_NUM);
}

void sweep_rows_free(sweep_rows *rs) {
    for (int i = 0; i < rs->n; i++)
        for (int c = 0; c < LAB_NCOLS; c++) free(rs->r[i].f[c]);
    free(rs->r);
    memset(rs, 0, sizeof *rs);
}

static int rows_room(sweep_rows *rs) {
    if (rs->n < rs->cap) return 0;
    int nc = rs->cap ? 2 * rs->cap : 64;
    sweep_row *nr = ar_reallocarray(rs->r, (size_t)nc, sizeof *nr);
    if (!nr) return -1;
    rs->r = nr;
    rs->cap = nc;
    return 0;
}

ar_status sweep_rows_push(sweep_rows *rs, sweep_row *r, ar_err *e) {
    if (rows_room(rs) < 0) return ar_fail(e, AR_ENOMEM, "out of memory");
    rs->r[rs->n++] = *r;
    memset(r, 0, sizeof *r);
    return AR_OK;
}

sweep_row *sweep_rows_add(sweep_rows *rs) {
    if (rows_room(rs) < 0) return NULL;
    sweep_row *r = &rs->r[rs->n++];
    memset(r, 0, sizeof *r);
    return r;
}

void lab_set(sweep_row *r, int col, const char *v) {
    free(r->f[col]);
    r->f[col] = ar_strdup(v ? v : "");
    if (lab_cols[col].type != LAB_PLAIN) return;
    for (char *p = r->f[col]; p && *p; p++) {
        if (*p == ',') *p = ';';
        else if (*p == '"') *p = '\'';
        else if ((unsigned char)*p < 0x20) *p = ' ';
    }
}

void lab_set_num(sweep_row *r, int col, double v) {
    char buf[64] = "";
    if (isfinite(v)) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
        snprintf(buf, sizeof buf, lab_cols[col].fmt, v); /* a double format of the table */
#pragma GCC diagnostic pop
    }
    lab_set(r, col, buf);
}

void lab_set_int(sweep_row *r, int col, long long v) {
    char buf[32];
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    snprintf(buf, sizeof buf, lab_cols[col].fmt, v); /* a long long format of the table */
#pragma GCC diagnostic pop
    lab_set(r, col, buf);
}

char *sweep_row_csv(const sweep_row *r) {
    size_t n = 1;
    for (int c = 0; c < LAB_NCOLS; c++) n += 2 * strlen(r->f[c] ? r->f[c] : "") + 3;
    char *out = malloc(n), *p = out;
    if (!out) return NULL;
    for (int c = 0; c < LAB_NCOLS; c++) {
        const char *s = r->f[c] ? r->f[c] : "";
        if (c) *p++ = ',';
        if (strpbrk(s, ",\"\n\r")) {
            *p++ = '"';
            for (; *s; s++) {
                if (*s == '"') *p++ = '"';
                *p++ = (*s == '\n' || *s == '\r') ? ' ' : *s;
            }
            *p++ = '"';
        } else {
            size_t l = strlen(s);
            memcpy(p, s, l);
            p += l;
        }
    }
    *p = '\0';
    return out;
}

void lab_csv_header(FILE *f) {
    for (int c = 0; c < LAB_NCOLS; c++) fprintf(f, "%s%s", c ? "," : "", lab_cols[c].name);
}

/* A finite number in a form JSON accepts (what the writers produce). */
static int json_number_ok(const char *v) {
    if (!*v || strspn(v, "0123456789+-.eE") != strlen(v)) return 0;
    char *end = NULL;
    double d = strtod(v, &end);
    return *end == '\0' && isfinite(d) && (v[0] == '-' || (v[0] >= '0' && v[0] <= '9')) &&
           !(v[0] == '0' && v[1] >= '0' && v[1] <= '9') && v[strlen(v) - 1] != '.';
}

void lab_json_row(FILE *f, const sweep_row *r) {
    fputc('{', f);
    for (int c = 0; c < LAB_NCOLS; c++) {
        const char *v = r->f[c] ? r->f[c] : "";
        if (c) fputs(", ", f);
        ar_json_string(f, lab_cols[c].name);
        fputs(": ", f);
        if (sweep_col_numeric(c)) fputs(json_number_ok(v) ? v : "null", f);
        else ar_json_string(f, v);
    }
    fputc('}', f);
}

int lab_header_map(char *const *fields, int nf, int map[LAB_NCOLS]) {
    int found = 0;
    for (int c = 0; c < LAB_NCOLS; c++) {
        map[c] = -1;
        for (int k = 0; k < nf; k++)
            if (!strcmp(fields[k], lab_cols[c].name)) {
                map[c] = k;
                found++;
                break;
            }
    }
    return found;
}

ar_status lab_row_from_fields(char **fields, int nf, const int map[LAB_NCOLS], sweep_row *out, ar_err *e) {
    memset(out, 0, sizeof *out);
    for (int c = 0; c < LAB_NCOLS; c++) {
        int k = map[c];
        if (k >= 0 && k < nf && fields[k]) {
            out->f[c] = fields[k];
            fields[k] = NULL;
        } else {
            out->f[c] = ar_strdup("");
        }
        if (!out->f[c]) {
            for (int d = 0; d < c; d++) free(out->f[d]);
            memset(out, 0, sizeof *out);
            return ar_fail(e, AR_ENOMEM, "out of memory");
        }
    }
    return AR_OK;
}
