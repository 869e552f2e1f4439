/* Sweep results files (sweep.h): reading an earlier CSV for resume (columns
 * by name), worker lines, merging in grid order, baselines, and the atomic
 * CSV + JSON writers (lines and header from the schema, schema.h). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/textio.h"
#include "core/util.h"
#include "sweep.h"
#include "lab/backend.h"

int sweep_row_done(const sweep_row *r) {
    const char *s = r->f[SC_STATUS] ? r->f[SC_STATUS] : "";
    /* budget: stopped by sim.budget, a result of its own; a resume does not run it again */
    return !strcmp(s, "ok") || !strcmp(s, "unsupported") || !strcmp(s, "budget");
}

ar_status sweep_read_csv(const char *path, sweep_rows *out, ar_err *e) {
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f) return errno == ENOENT ? AR_OK : ar_fail(e, AR_EIO, "%s: cannot read (%s)", path, strerror(errno));
    ar_status st = AR_OK;
    int oom = 0, line = 0, map[LAB_NCOLS];
    char *l;
    while (!st && (l = ar_read_line(f, &oom))) {
        line++;
        char **fs = NULL;
        int nf = ar_csv_split(l, &fs, 4 * LAB_NCOLS);
        free(l);
        if (nf < 0) {
            st = ar_fail(e, AR_ENOMEM, "out of memory");
            break;
        }
        if (line == 1) {
            /* columns by name: older files with fewer columns still resume */
            lab_header_map(fs, nf, map);
            if (map[SC_KEY] < 0 || map[SC_STATUS] < 0)
                st = ar_fail(e, AR_EINVAL,
                             "%s: its columns are not this arlab's sweep columns (no key and status); move it away "
                             "or use another --out",
                             path);
        } else {
            int need = 0;
            for (int c = 0; c < LAB_NCOLS; c++)
                if (map[c] >= need) need = map[c] + 1;
            sweep_row r;
            if (nf < need)
                st = ar_fail(e, AR_EINVAL, "%s: line %d has %d fields, not %d; move the file away to start afresh",
                             path, line, nf, need);
            else if (!(st = lab_row_from_fields(fs, nf, map, &r, e)) && (st = sweep_rows_push(out, &r, e)))
                for (int c = 0; c < LAB_NCOLS; c++) free(r.f[c]);
        }
        ar_csv_free(fs, nf);
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
    int nf = ar_csv_split(tab + 1, &fs, LAB_NCOLS + 1);
    if (nf < 0) return ar_fail(e, AR_ENOMEM, "out of memory");
    ar_status st = AR_OK;
    if (nf != LAB_NCOLS) st = ar_fail(e, AR_EINTERNAL, "malformed worker row (%d fields)", nf);
    if (!st) {
        sweep_row r;
        for (int c = 0; c < LAB_NCOLS; c++) {
            r.f[c] = fs[c];
            fs[c] = NULL;
        }
        if ((int)idx != *prev) fresh_of_point[idx] = fresh->n;
        *prev = (int)idx;
        st = sweep_rows_push(fresh, &r, e);
        if (st)
            for (int c = 0; c < LAB_NCOLS; c++) free(r.f[c]);
    }
    ar_csv_free(fs, nf);
    return st;
}

/* ---- merge ---------------------------------------------------------------- */

/* Open-addressing table from key to row index. */
typedef struct keymap {
    size_t cap;
    int *slot; /* -1 empty */
    const sweep_rows *rows;
} keymap;

static uint64_t key_hash(const char *k) { return sweep_fnv1a64(AR_FNV1A_INIT, k, strlen(k)); }

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
                st = sweep_rows_push(out, &fresh->r[fresh_of_point[i] + k], e);
                sweep_key(ctx, i, k, key, sizeof key);
                int j = keymap_find(&m, key);
                if (j >= 0) used[j] = 1; /* replaced */
            } else {
                sweep_key(ctx, i, k, key, sizeof key);
                int j = keymap_find(&m, key);
                if (j >= 0 && !used[j]) {
                    used[j] = 1;
                    st = sweep_rows_push(out, &old->r[j], e);
                }
            }
        }
    }
    /* rows of an earlier grid that this one does not cover: kept, at the end */
    for (int j = 0; !st && j < old->n; j++) {
        if (used[j] || !old->r[j].f[SC_KEY]) continue;
        int dup = keymap_find(&m, old->r[j].f[SC_KEY]) != j;
        if (!dup) st = sweep_rows_push(out, &old->r[j], e);
    }
    free(used);
    free(m.slot);
    return st;
}

/* Why an old row of point i no longer stands for what this run would compute: its platform file or
 * family changed (platform_hash), another arlab version computed it, or (sim backend) another network
 * configuration; NULL when it still does. */
static const char *stale_reason(sweep_ctx *ctx, int i, const sweep_row *r, const char *net) {
    const sweep_point *pt = &ctx->points[i];
    const char *v = r->f[SC_VERSION] ? r->f[SC_VERSION] : "";
    if (strcmp(v, AR_VERSION)) return "arlab version";
    ar_platform *p = NULL;
    ar_err e = {{0}};
    if (sweep_platform(ctx, pt, &p, &e) != AR_OK) return NULL; /* the point itself will say why */
    const char *h = r->f[SC_PLATFORM_HASH] ? r->f[SC_PLATFORM_HASH] : "";
    if (strcmp(h, ctx->cache_hash)) return "platform";
    const char *n = r->f[SC_NETWORK] ? r->f[SC_NETWORK] : "";
    size_t ln = strlen(n), lt = net ? strlen(net) : 0;
    if (net && !strcmp(pt->backend->name, "sim") && !strcmp(r->f[SC_STATUS] ? r->f[SC_STATUS] : "", "ok") &&
        (ln < lt || strcmp(n + ln - lt, net)))
        return "network";
    return NULL;
}

int *sweep_todo(sweep_ctx *ctx, const sweep_rows *old, int *ntodo, int nstale[3], ar_err *e) {
    keymap m;
    *ntodo = 0;
    nstale[0] = nstale[1] = nstale[2] = 0;
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
    /* the network configuration the sim backend would run now (lab/backend.h) */
    char net[512] = "";
    const lab_sim_api *sim = lab_sim();
    ar_err ne = {{0}};
    int have_net = sim && sim->network_parse(ctx->spec->sim_network, net, sizeof net, &ne) == AR_OK;
    char key[2048];
    for (int i = 0; i < ctx->npoints; i++) {
        int done = 1;
        const char *why = NULL;
        for (int k = 0; done && k < ctx->nkeys_per_point; k++) {
            sweep_key(ctx, i, k, key, sizeof key);
            int j = keymap_find(&m, key);
            done = j >= 0 && sweep_row_done(&old->r[j]);
            if (done && (why = stale_reason(ctx, i, &old->r[j], have_net ? net : NULL))) done = 0;
        }
        if (why) nstale[why[0] == 'a' ? 0 : why[0] == 'p' ? 1 : 2]++;
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
        double bs = NAN, vs = NAN, saving = NAN;
        if (j >= 0) {
            double tb = strtod(rows->r[j].f[SC_TIME], NULL), t = strtod(r->f[SC_TIME], NULL);
            if (*rows->r[j].f[SC_TIME] && isfinite(tb) && tb > 0) {
                bs = tb;
                if (*r->f[SC_TIME] && isfinite(t) && t > 0) {
                    vs = tb / t;
                    saving = fabs(1.0 - t / tb) < 1e-12 ? 0.0 : 1.0 - t / tb;
                }
            }
        }
        lab_set_num(r, SC_BASE, bs);
        lab_set_num(r, SC_VS_BASE, vs);
        lab_set_num(r, SC_SAVING, saving);
        if (!r->f[SC_BASE] || !r->f[SC_VS_BASE] || !r->f[SC_SAVING]) st = ar_fail(e, AR_ENOMEM, "out of memory");
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

ar_status sweep_lock(const char *dir, const char *name, int *fd_out, ar_err *e) {
    *fd_out = -1;
    char path[4200];
    snprintf(path, sizeof path, "%s/.%s.lock", dir, name);
    int fd = -1;
    /* a run that ends unlinks the file while it holds the lock: a flock got on an
     * inode that is no longer the path's (unlinked or replaced meanwhile) guards
     * nothing, so open the path again */
    for (int tries = 0; fd < 0 && tries < 100; tries++) {
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
        if (fd < 0) return ar_fail(e, AR_EIO, "%s: cannot write in this directory (%s)", dir, strerror(errno));
        if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
            char pid[32] = "";
            ssize_t n = pread(fd, pid, sizeof pid - 1, 0);
            pid[n > 0 ? n : 0] = 0;
            pid[strcspn(pid, "\n")] = 0;
            close(fd);
            return ar_fail(e, AR_EINVAL,
                           "%s: sweep \"%s\" is already running there (pid %s); wait for it or use another --out", dir,
                           name, pid[0] ? pid : "?");
        }
        struct stat held, now;
        if (fstat(fd, &held) != 0 || stat(path, &now) != 0 || held.st_dev != now.st_dev || held.st_ino != now.st_ino) {
            close(fd);
            fd = -1;
        }
    }
    if (fd < 0) return ar_fail(e, AR_EIO, "%s: cannot take the lock %s", dir, path);
    /* a lock file left by a run that was killed (SIGKILL) holds a dead pid and no
     * flock: taken over here, and removed when this run ends */
    char pid[32];
    int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
    if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, (size_t)n, 0) != n) {
        close(fd);
        return ar_fail(e, AR_EIO, "%s: cannot write in this directory (%s)", dir, strerror(errno));
    }
    *fd_out = fd;
    return AR_OK;
}

void sweep_unlock(const char *dir, const char *name, int fd) {
    if (fd < 0) return;
    char path[4200];
    snprintf(path, sizeof path, "%s/.%s.lock", dir, name);
    unlink(path); /* while still holding it: see sweep_lock */
    close(fd);
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
        lab_csv_header(f);
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
            const sweep_figure *fg = &s->figures[i];
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
        if (s->report) fprintf(f, "  \"report\": %s,\n", s->report);
        fputs("  \"rows\": [", f);
        for (int i = 0; i < rows->n; i++) {
            fputs(i ? ",\n    " : "\n    ", f);
            lab_json_row(f, &rows->r[i]);
        }
        fputs(rows->n ? "\n  ]\n}\n" : "]\n}\n", f);
        st = finish(f, tmp, path, e);
    }
    free(path);
    free(tmp);
    return st;
}
