/* Sweep results files (sweep.h): CSV lines, reading an earlier CSV for
 * resume, merging in grid order, and the atomic CSV + JSON writers. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sweep.h"
#include "core/textio.h"

/* ---- CSV lines ---------------------------------------------------------- */

char *sweep_row_csv(const sweep_row *r) {
    size_t n = 1;
    for (int c = 0; c < SW_NCOLS; c++) n += 2 * strlen(r->f[c] ? r->f[c] : "") + 3;
    char *out = malloc(n), *p = out;
    if (!out) return NULL;
    for (int c = 0; c < SW_NCOLS; c++) {
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

int sweep_csv_split(const char *line, char ***fields, int max) {
    char **f = ar_calloc((size_t)max + 1, sizeof *f);
    if (!f) return -1;
    int n = 0;
    const char *p = line;
    size_t cap = strlen(line) + 1;
    for (;;) {
        char *buf = malloc(cap), *q = buf;
        if (!buf) goto oom;
        if (*p == '"') {
            p++;
            while (*p) {
                if (*p == '"' && p[1] == '"') {
                    *q++ = '"';
                    p += 2;
                } else if (*p == '"') {
                    p++;
                    break;
                } else {
                    *q++ = *p++;
                }
            }
            while (*p && *p != ',') *q++ = *p++; /* junk after a closing quote: keep it */
        } else {
            while (*p && *p != ',') *q++ = *p++;
        }
        *q = '\0';
        if (n == max) {
            free(buf);
            break; /* extra fields are dropped */
        }
        f[n++] = buf;
        if (*p != ',') break;
        p++;
    }
    *fields = f;
    return n;
oom:
    for (int i = 0; i < n; i++) free(f[i]);
    free(f);
    return -1;
}

int sweep_row_done(const sweep_row *r) {
    const char *s = r->f[SC_STATUS] ? r->f[SC_STATUS] : "";
    return !strcmp(s, "ok") || !strcmp(s, "unsupported");
}

static ar_status rows_push(sweep_rows *rs, sweep_row *r, ar_err *e) {
    if (rs->n == rs->cap) {
        int nc = rs->cap ? 2 * rs->cap : 64;
        sweep_row *nr = ar_reallocarray(rs->r, (size_t)nc, sizeof *nr);
        if (!nr) return ar_fail(e, AR_ENOMEM, "out of memory");
        rs->r = nr;
        rs->cap = nc;
    }
    rs->r[rs->n++] = *r;
    memset(r, 0, sizeof *r);
    return AR_OK;
}

/* Reads one line of any length (caller frees); NULL at EOF or on OOM. */
static char *read_line(FILE *f, int *oom) {
    size_t cap = 1024, n = 0;
    char *buf = malloc(cap);
    if (!buf) {
        *oom = 1;
        return NULL;
    }
    int ch;
    while ((ch = fgetc(f)) != EOF && ch != '\n') {
        if (n + 2 > cap) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                *oom = 1;
                return NULL;
            }
            buf = nb;
            cap *= 2;
        }
        buf[n++] = (char)ch;
    }
    if (ch == EOF && n == 0) {
        free(buf);
        return NULL;
    }
    if (n && buf[n - 1] == '\r') n--;
    buf[n] = '\0';
    return buf;
}

ar_status sweep_read_csv(const char *path, sweep_rows *out, ar_err *e) {
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f) return errno == ENOENT ? AR_OK : ar_fail(e, AR_EIO, "%s: cannot read (%s)", path, strerror(errno));
    ar_status st = AR_OK;
    int oom = 0, line = 0;
    char *l;
    while (!st && (l = read_line(f, &oom))) {
        line++;
        char **fs = NULL;
        int nf = sweep_csv_split(l, &fs, SW_NCOLS + 1);
        free(l);
        if (nf < 0) {
            st = ar_fail(e, AR_ENOMEM, "out of memory");
            break;
        }
        if (line == 1) {
            int ok = nf == SW_NCOLS;
            for (int c = 0; ok && c < SW_NCOLS; c++) ok = !strcmp(fs[c], sweep_cols[c]);
            if (!ok)
                st = ar_fail(e, AR_EINVAL,
                             "%s: its columns are not this arlab's sweep columns; move it away or use another --out",
                             path);
        } else if (nf != SW_NCOLS) {
            st = ar_fail(e, AR_EINVAL, "%s: line %d has %d fields, not %d; move the file away to start afresh", path,
                         line, nf, SW_NCOLS);
        } else {
            sweep_row r;
            for (int c = 0; c < SW_NCOLS; c++) {
                r.f[c] = fs[c];
                fs[c] = NULL;
            }
            st = rows_push(out, &r, e);
            if (st)
                for (int c = 0; c < SW_NCOLS; c++) free(r.f[c]);
        }
        for (int c = 0; c < nf; c++) free(fs[c]);
        free(fs);
    }
    if (oom && !st) st = ar_fail(e, AR_ENOMEM, "out of memory");
    fclose(f);
    if (st) sweep_rows_free(out);
    return st;
}

ar_status sweep_add_tagged(const sweep_ctx *ctx, char *line, sweep_rows *fresh, int *fresh_of_point, int *prev,
                           ar_err *e) {
    size_t len = strlen(line);
    if (len && line[len - 1] == '\n') line[--len] = 0;
    char *tab = strchr(line, '\t');
    char *end = NULL;
    long idx = tab ? strtol(line, &end, 10) : -1;
    if (!tab || end != tab || idx < 0 || idx >= ctx->npoints)
        return ar_fail(e, AR_EINTERNAL, "malformed worker line (no point index)");
    char **fs = NULL;
    int nf = sweep_csv_split(tab + 1, &fs, SW_NCOLS + 1);
    if (nf < 0) return ar_fail(e, AR_ENOMEM, "out of memory");
    ar_status st = AR_OK;
    if (nf != SW_NCOLS) st = ar_fail(e, AR_EINTERNAL, "malformed worker row (%d fields)", nf);
    if (!st) {
        sweep_row r;
        for (int c = 0; c < SW_NCOLS; c++) {
            r.f[c] = fs[c];
            fs[c] = NULL;
        }
        if ((int)idx != *prev) fresh_of_point[idx] = fresh->n;
        *prev = (int)idx;
        st = rows_push(fresh, &r, e);
        if (st)
            for (int c = 0; c < SW_NCOLS; c++) free(r.f[c]);
    }
    for (int c = 0; c < nf; c++) free(fs[c]);
    free(fs);
    return st;
}

/* ---- merge ---------------------------------------------------------------- */

/* Open-addressing table from key to row index. */
typedef struct keymap {
    size_t cap;
    int *slot; /* -1 empty */
    const sweep_rows *rows;
} keymap;

static uint64_t key_hash(const char *k) { return ar_fnv1a64(AR_FNV1A_INIT, k, strlen(k)); }

static int keymap_init(keymap *m, const sweep_rows *rows) {
    m->rows = rows;
    m->cap = 64;
    while (m->cap < (size_t)rows->n * 2 + 1) m->cap *= 2;
    m->slot = malloc(m->cap * sizeof *m->slot);
    if (!m->slot) return -1;
    for (size_t i = 0; i < m->cap; i++) m->slot[i] = -1;
    for (int i = 0; i < rows->n; i++) {
        size_t h = (size_t)key_hash(rows->r[i].f[SC_KEY]) & (m->cap - 1);
        while (m->slot[h] >= 0) {
            if (!strcmp(rows->r[m->slot[h]].f[SC_KEY], rows->r[i].f[SC_KEY])) break; /* later duplicate wins */
            h = (h + 1) & (m->cap - 1);
        }
        m->slot[h] = i;
    }
    return 0;
}

static int keymap_find(const keymap *m, const char *key) {
    size_t h = (size_t)key_hash(key) & (m->cap - 1);
    while (m->slot[h] >= 0) {
        const char *k = m->rows->r[m->slot[h]].f[SC_KEY]; /* NULL once merged away */
        if (k && !strcmp(k, key)) return m->slot[h];
        h = (h + 1) & (m->cap - 1);
    }
    return -1;
}

ar_status sweep_merge(const sweep_ctx *ctx, const int *fresh_of_point, sweep_rows *fresh, sweep_rows *old,
                      sweep_rows *out, ar_err *e) {
    memset(out, 0, sizeof *out);
    keymap m;
    if (keymap_init(&m, old) < 0) return ar_fail(e, AR_ENOMEM, "out of memory");
    char *used = ar_calloc((size_t)old->n + 1, 1);
    if (!used) {
        free(m.slot);
        return ar_fail(e, AR_ENOMEM, "out of memory");
    }
    ar_status st = AR_OK;
    char key[2048];
    for (int i = 0; !st && i < ctx->npoints; i++) {
        for (int k = 0; !st && k < ctx->nkeys_per_point; k++) {
            if (fresh_of_point[i] >= 0) {
                st = rows_push(out, &fresh->r[fresh_of_point[i] + k], e);
                sweep_key(ctx, i, k, key, sizeof key);
                int j = keymap_find(&m, key);
                if (j >= 0) used[j] = 1; /* replaced */
            } else {
                sweep_key(ctx, i, k, key, sizeof key);
                int j = keymap_find(&m, key);
                if (j >= 0 && !used[j]) {
                    used[j] = 1;
                    st = rows_push(out, &old->r[j], e);
                }
            }
        }
    }
    /* rows of an earlier grid that this one does not cover: kept, at the end */
    for (int j = 0; !st && j < old->n; j++) {
        if (used[j] || !old->r[j].f[SC_KEY]) continue;
        int dup = keymap_find(&m, old->r[j].f[SC_KEY]) != j;
        if (!dup) st = rows_push(out, &old->r[j], e);
    }
    free(used);
    free(m.slot);
    return st;
}

int *sweep_todo(const sweep_ctx *ctx, const sweep_rows *old, int *ntodo, ar_err *e) {
    keymap m;
    *ntodo = 0;
    if (keymap_init(&m, old) < 0) {
        ar_fail(e, AR_ENOMEM, "out of memory");
        return NULL;
    }
    int *todo = ar_calloc((size_t)ctx->npoints + 1, sizeof *todo);
    if (!todo) {
        free(m.slot);
        ar_fail(e, AR_ENOMEM, "out of memory");
        return NULL;
    }
    char key[2048];
    for (int i = 0; i < ctx->npoints; i++) {
        int done = 1;
        for (int k = 0; done && k < ctx->nkeys_per_point; k++) {
            sweep_key(ctx, i, k, key, sizeof key);
            int j = keymap_find(&m, key);
            done = j >= 0 && sweep_row_done(&old->r[j]);
        }
        if (!done) todo[(*ntodo)++] = i;
    }
    free(m.slot);
    return todo;
}

ar_status sweep_fill_baseline(const sweep_ctx *ctx, sweep_rows *rows, ar_err *e) {
    const ar_sweep *s = ctx->spec;
    if (s->baseline < 0) return AR_OK;
    const char *base = s->algos[s->baseline].spec;
    /* index the baseline rows by their identity without the algorithm */
    static const int id[] = {SC_SWEEP, SC_BACKEND, SC_PLATFORM, SC_RANKS, SC_ELEMS, SC_DTYPE, SC_TRAIN};
    sweep_rows idx = {0, 0, NULL};
    idx.n = idx.cap = rows->n;
    idx.r = ar_calloc((size_t)rows->n + 1, sizeof *idx.r);
    if (!idx.r) return ar_fail(e, AR_ENOMEM, "out of memory");
    ar_status st = AR_OK;
    for (int i = 0; !st && i < rows->n; i++) {
        size_t n = 16;
        for (size_t c = 0; c < sizeof id / sizeof id[0]; c++) n += strlen(rows->r[i].f[id[c]]) + 1;
        char *k = malloc(n);
        if (!k) {
            st = ar_fail(e, AR_ENOMEM, "out of memory");
            break;
        }
        k[0] = 0;
        for (size_t c = 0; c < sizeof id / sizeof id[0]; c++) {
            strcat(k, rows->r[i].f[id[c]]);
            strcat(k, "|");
        }
        /* non-baseline rows get a key no baseline row has */
        if (strcmp(rows->r[i].f[SC_ALGO], base) != 0 || strcmp(rows->r[i].f[SC_STATUS], "ok") != 0) strcat(k, "x");
        idx.r[i].f[SC_KEY] = k;
    }
    keymap m = {0, NULL, NULL};
    if (!st && keymap_init(&m, &idx) < 0) st = ar_fail(e, AR_ENOMEM, "out of memory");
    for (int i = 0; !st && i < rows->n; i++) {
        char *k = idx.r[i].f[SC_KEY];
        size_t l = strlen(k);
        int own_x = l && k[l - 1] == 'x';
        if (own_x) k[l - 1] = 0;
        int j = keymap_find(&m, k);
        if (own_x) k[l - 1] = 'x';
        sweep_row *r = &rows->r[i];
        char b1[64] = "", b2[64] = "", b3[64] = "";
        if (j >= 0) {
            double tb = strtod(rows->r[j].f[SC_TIME], NULL), t = strtod(r->f[SC_TIME], NULL);
            if (*rows->r[j].f[SC_TIME] && isfinite(tb) && tb > 0) {
                snprintf(b1, sizeof b1, "%.9g", tb);
                if (*r->f[SC_TIME] && isfinite(t) && t > 0) {
                    snprintf(b2, sizeof b2, "%.6g", tb / t);
                    snprintf(b3, sizeof b3, "%.6g", fabs(1.0 - t / tb) < 1e-12 ? 0.0 : 1.0 - t / tb);
                }
            }
        }
        const char *v[3] = {b1, b2, b3};
        const int cols[3] = {SC_BASE, SC_VS_BASE, SC_SAVING};
        for (int c = 0; c < 3 && !st; c++) {
            char *d = ar_strdup(v[c]);
            if (!d) st = ar_fail(e, AR_ENOMEM, "out of memory");
            else {
                free(r->f[cols[c]]);
                r->f[cols[c]] = d;
            }
        }
    }
    free(m.slot);
    for (int i = 0; i < idx.n; i++) free(idx.r[i].f[SC_KEY]);
    free(idx.r);
    return st;
}

/* ---- writing ---------------------------------------------------------- */

ar_status sweep_mkdirs(const char *dir, ar_err *e) {
    char buf[4096];
    if (strlen(dir) >= sizeof buf) return ar_fail(e, AR_EINVAL, "%s: path too long", dir);
    snprintf(buf, sizeof buf, "%s", dir);
    for (char *p = buf + 1;; p++) {
        if (*p == '/' || *p == '\0') {
            char save = *p;
            *p = '\0';
            if (mkdir(buf, 0777) != 0 && errno != EEXIST)
                return ar_fail(e, AR_EIO, "%s: cannot create directory (%s)", buf, strerror(errno));
            *p = save;
            if (!save) break;
        }
    }
    return AR_OK;
}

/* A finite number in a form JSON accepts (what the writers produce). */
static int json_number_ok(const char *v) {
    if (!*v || strspn(v, "0123456789+-.eE") != strlen(v)) return 0;
    char *end = NULL;
    double d = strtod(v, &end);
    return *end == '\0' && isfinite(d) && (v[0] == '-' || (v[0] >= '0' && v[0] <= '9')) &&
           !(v[0] == '0' && v[1] >= '0' && v[1] <= '9') && v[strlen(v) - 1] != '.';
}

static void json_kv(FILE *f, const char *k, const char *v, int comma) {
    fprintf(f, "  ");
    ar_json_string(f, k);
    fputs(": ", f);
    if (v) ar_json_string(f, v);
    else fputs("null", f);
    fputs(comma ? ",\n" : "\n", f);
}

static ar_status finish(FILE *f, const char *tmp, const char *path, ar_err *e) {
    int bad = ferror(f);
    if (fclose(f) != 0) bad = 1;
    if (bad || rename(tmp, path) != 0) {
        unlink(tmp);
        return ar_fail(e, AR_EIO, "%s: cannot write", path);
    }
    return AR_OK;
}

ar_status sweep_write(const sweep_ctx *ctx, const char *dir, const sweep_rows *rows, ar_err *e) {
    const ar_sweep *s = ctx->spec;
    ar_status st = sweep_mkdirs(dir, e);
    if (st) return st;
    size_t n = strlen(dir) + strlen(s->name) + 32;
    char *path = malloc(n), *tmp = malloc(n);
    if (!path || !tmp) {
        free(path);
        free(tmp);
        return ar_fail(e, AR_ENOMEM, "out of memory");
    }
    /* CSV */
    snprintf(path, n, "%s/%s.csv", dir, s->name);
    snprintf(tmp, n, "%s/.%s.csv.tmp", dir, s->name);
    FILE *f = fopen(tmp, "wb");
    if (!f) st = ar_fail(e, AR_EIO, "%s: cannot write (%s)", tmp, strerror(errno));
    if (!st) {
        for (int c = 0; c < SW_NCOLS; c++) fprintf(f, "%s%s", c ? "," : "", sweep_cols[c]);
        fputc('\n', f);
        for (int i = 0; i < rows->n; i++) {
            char *l = sweep_row_csv(&rows->r[i]);
            if (!l) {
                fclose(f);
                unlink(tmp);
                free(path);
                free(tmp);
                return ar_fail(e, AR_ENOMEM, "out of memory");
            }
            fputs(l, f);
            fputc('\n', f);
            free(l);
        }
        st = finish(f, tmp, path, e);
    }
    /* JSON: the sweep's description, its figures and the same rows */
    if (!st) {
        snprintf(path, n, "%s/%s.json", dir, s->name);
        snprintf(tmp, n, "%s/.%s.json.tmp", dir, s->name);
        f = fopen(tmp, "wb");
        if (!f) st = ar_fail(e, AR_EIO, "%s: cannot write (%s)", tmp, strerror(errno));
    }
    if (!st) {
        fputs("{\n", f);
        json_kv(f, "sweep", s->name, 1);
        json_kv(f, "title", s->title, 1);
        json_kv(f, "paper", s->paper, 1);
        json_kv(f, "description", s->description, 1);
        json_kv(f, "file", ctx->file, 1);
        json_kv(f, "version", ctx->version, 1);
        json_kv(f, "commit", ctx->commit, 1);
        fputs("  \"figures\": [", f);
        for (int i = 0; i < s->nfigures; i++) {
            const ar_sweep_figure *fg = &s->figures[i];
            fputs(i ? ",\n    {" : "\n    {", f);
            fputs("\"id\": ", f);
            ar_json_string(f, fg->id);
            fputs(", \"script\": ", f);
            if (fg->script) ar_json_string(f, fg->script);
            else fputs("null", f);
            fputs(", \"title\": ", f);
            if (fg->title) ar_json_string(f, fg->title);
            else fputs("null", f);
            fputs(", \"caption\": ", f);
            if (fg->caption) ar_json_string(f, fg->caption);
            else fputs("null", f);
            fputc('}', f);
        }
        fputs(s->nfigures ? "\n  ],\n" : "],\n", f);
        fputs("  \"rows\": [", f);
        for (int i = 0; i < rows->n; i++) {
            fputs(i ? ",\n    {" : "\n    {", f);
            for (int c = 0; c < SW_NCOLS; c++) {
                const char *v = rows->r[i].f[c] ? rows->r[i].f[c] : "";
                if (c) fputs(", ", f);
                ar_json_string(f, sweep_cols[c]);
                fputs(": ", f);
                if (sweep_col_numeric(c)) fputs(json_number_ok(v) ? v : "null", f);
                else ar_json_string(f, v);
            }
            fputc('}', f);
        }
        fputs(rows->n ? "\n  ]\n}\n" : "]\n}\n", f);
        st = finish(f, tmp, path, e);
    }
    free(path);
    free(tmp);
    return st;
}
