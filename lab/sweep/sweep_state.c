/* What a sweep run keeps in its --out directory besides its results (sweep.h):
 * the run note DIR/.NAME.run (where and how the run was started, so that a
 * report can say how to resume it), and what `arlab report` learns from a
 * directory's part files, run notes and locks about sweeps that did not finish. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"
#include "sweep.h"

/* Appends s to buf (size n) as one shell word: as is when it is made of
 * characters the shell leaves alone, else in single quotes. */
static void shell_word(char *buf, size_t n, const char *s) {
    size_t l = strlen(buf);
    int plain = *s != 0;
    for (const char *p = s; *p && plain; p++)
        plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:=,+@%-", *p) != NULL;
    if (plain) {
        snprintf(buf + l, n - l, "%s", s);
        return;
    }
    if (l + 1 < n) buf[l++] = '\'';
    for (const char *p = s; *p && l + 5 < n; p++) {
        if (*p == '\'') {
            memcpy(buf + l, "'\\''", 4);
            l += 4;
        } else {
            buf[l++] = *p;
        }
    }
    if (l + 1 < n) buf[l++] = '\'';
    buf[l] = 0;
}

void sweep_note_run(const char *dir, const char *name, int argc, char **argv, int npoints) {
    char path[4200], tmp[4300], cmd[SWEEP_CMD_MAX] = "arlab sweep", cwd[4096];
    for (int i = 0; i < argc; i++) {
        size_t l = strlen(cmd);
        snprintf(cmd + l, sizeof cmd - l, " ");
        shell_word(cmd, sizeof cmd, argv[i]);
    }
    if (!getcwd(cwd, sizeof cwd)) cwd[0] = 0;
    snprintf(path, sizeof path, "%s/.%s.run", dir, name);
    snprintf(tmp, sizeof tmp, "%s/.%s.run.tmp", dir, name);
    FILE *f = fopen(tmp, "wb");
    if (!f) return; /* a report then names the part files without the command */
    fprintf(f, "cwd %s\ncommand %s\npoints %d\n", cwd, cmd, npoints);
    if (fclose(f) != 0 || rename(tmp, path) != 0) unlink(tmp);
}

long sweep_lock_probe(const char *dir, const char *name) {
    char path[4200];
    snprintf(path, sizeof path, "%s/.%s.lock", dir, name);
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) return 0;
    long pid = 0;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        char b[32] = "";
        ssize_t n = pread(fd, b, sizeof b - 1, 0);
        b[n > 0 ? n : 0] = 0;
        pid = atol(b) > 0 ? atol(b) : 1;
    } else {
        /* nobody holds it: a run that was killed left it (its pid is dead); remove it unless a
         * new run has meanwhile replaced the file (then the inode differs: leave that one) */
        struct stat held, now;
        if (fstat(fd, &held) == 0 && stat(path, &now) == 0 && held.st_dev == now.st_dev && held.st_ino == now.st_ino)
            unlink(path);
    }
    close(fd);
    return pid;
}

/* The entry of `name` in the list (added when new); NULL when out of memory. */
static sweep_pending *entry(sweep_pending **list, int *n, const char *name) {
    for (int i = 0; i < *n; i++)
        if (!strcmp((*list)[i].name, name)) return &(*list)[i];
    sweep_pending *nl = ar_reallocarray(*list, (size_t)*n + 1, sizeof *nl);
    if (!nl) return NULL;
    *list = nl;
    sweep_pending *p = &nl[(*n)++];
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", name);
    p->total = -1;
    return p;
}

typedef struct keyset {
    int n;
    char **k;
} keyset;

/* sweep_part_rows: a finished point's key added to the keyset ctx (training configurations
 * folded: a point's key without its last field); 0: out of memory */
static int count_row(char **fs, void *ctx) {
    keyset *ks = ctx;
    sweep_row r;
    for (int c = 0; c < LAB_NCOLS; c++) r.f[c] = fs[c];
    if (!sweep_row_done(&r)) return 1; /* an error row runs again on resume: not finished */
    char *bar = strrchr(fs[SC_KEY], '|');
    if (bar) *bar = 0;
    for (int k = 0; k < ks->n; k++)
        if (!strcmp(ks->k[k], fs[SC_KEY])) return 1;
    char **nk = ar_reallocarray(ks->k, (size_t)ks->n + 1, sizeof *nk);
    if (!nk) return 0;
    ks->k = nk;
    if (!(nk[ks->n] = ar_strdup(fs[SC_KEY]))) return 0;
    ks->n++;
    return 1;
}

/* The sweep name of a directory entry .NAME.lock (*is_lock = 1) or
 * .NAME.partPID-K (0) into name; 0 for any other entry. */
static int state_file(const char *d, char *name, size_t n, int *is_lock) {
    size_t l = strlen(d);
    const char *end = NULL;
    *is_lock = l > 6 && d[0] == '.' && !strcmp(d + l - 5, ".lock");
    if (*is_lock) {
        end = d + l - 5;
    } else if (d[0] == '.') {
        for (const char *p = strstr(d, ".part"); p; p = strstr(p + 1, ".part"))
            if (p > d + 1 && p[5] && p[5 + strspn(p + 5, "0123456789-")] == 0) end = p;
    }
    if (!end || (size_t)(end - d - 1) >= n) return 0;
    snprintf(name, n, "%.*s", (int)(end - d - 1), d + 1);
    return 1;
}

int sweep_pending_list(const char *dir, sweep_pending **out) {
    *out = NULL;
    int n = 0;
    keyset *ks = NULL; /* parallel to *out */
    DIR *dd = opendir(dir);
    if (!dd) return 0;
    struct dirent *de;
    while ((de = readdir(dd))) {
        char name[256], path[4400];
        int is_lock;
        if (!state_file(de->d_name, name, sizeof name, &is_lock)) continue;
        long pid = is_lock ? sweep_lock_probe(dir, name) : 0;
        if (is_lock && !pid) continue; /* a lock file nobody holds: removed */
        int before = n;
        sweep_pending *p = entry(out, &n, name);
        keyset *nks = p ? ar_reallocarray(ks, (size_t)n, sizeof *nks) : NULL;
        if (!nks) { /* out of memory: what was found so far */
            n = before;
            break;
        }
        ks = nks;
        int i = (int)(p - *out);
        if (n > before) memset(&ks[i], 0, sizeof ks[i]);
        if (pid) p->pid = pid;
        if (is_lock) continue;
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        if (p->nparts++ < 4) {
            size_t pl = strlen(p->parts);
            snprintf(p->parts + pl, sizeof p->parts - pl, "%s%s", pl ? ", " : "", path);
        }
        (void)sweep_part_rows(path, count_row, &ks[i]); /* out of memory: fewer points counted */
    }
    closedir(dd);
    for (int i = 0; i < n; i++) {
        sweep_pending *p = &(*out)[i];
        p->done = ks[i].n;
        for (int k = 0; k < ks[i].n; k++) free(ks[i].k[k]);
        free(ks[i].k);
        char path[4200];
        snprintf(path, sizeof path, "%s/.%s.run", dir, p->name);
        FILE *f = fopen(path, "rb");
        if (f) {
            char line[SWEEP_CMD_MAX + 4200]; /* "cwd " and a path, or "command " and the command */
            while (fgets(line, sizeof line, f)) {
                line[strcspn(line, "\n")] = 0;
                if (!strncmp(line, "cwd ", 4))
                    snprintf(p->cwd, sizeof p->cwd, "%.*s", (int)sizeof p->cwd - 1, line + 4);
                else if (!strncmp(line, "command ", 8))
                    snprintf(p->command, sizeof p->command, "%.*s", (int)sizeof p->command - 1, line + 8);
                else if (!strncmp(line, "points ", 7)) p->total = atoi(line + 7);
            }
            fclose(f);
        }
        char csv[4200], json[4200];
        snprintf(csv, sizeof csv, "%s/%s.csv", dir, p->name);
        snprintf(json, sizeof json, "%s/%s.json", dir, p->name);
        p->has_results = access(csv, F_OK) == 0 && access(json, F_OK) == 0;
    }
    free(ks);
    return n;
}

void sweep_pending_text(const sweep_pending *p, const char *dir, char *buf, size_t n) {
    char done[96];
    if (p->total >= 0) snprintf(done, sizeof done, "%d of %d points done", p->done, p->total);
    else snprintf(done, sizeof done, "%d point%s done", p->done, p->done == 1 ? "" : "s");
    if (p->pid > 0) {
        snprintf(buf, n,
                 "%s: sweep \"%s\" is running there now (pid %ld), %s so far; run arlab report again once it "
                 "ends",
                 dir, p->name, p->pid, done);
        return;
    }
    char resume[SWEEP_CMD_MAX + 4200 + 16], here[4096]; /* "with: ", the cd word, " && ", the command */
    if (!p->command[0]) {
        snprintf(resume, sizeof resume, "by running the same arlab sweep FILE.json --out %s again", dir);
    } else if (!p->cwd[0] || (getcwd(here, sizeof here) && !strcmp(here, p->cwd))) {
        snprintf(resume, sizeof resume, "with: %s", p->command);
    } else {
        char cd[4200] = "cd ";
        shell_word(cd, sizeof cd, p->cwd);
        snprintf(resume, sizeof resume, "with: %s && %s", cd, p->command);
    }
    snprintf(buf, n, "%s: sweep \"%s\" %s: %s, kept in %s%s (%s); resume it %s", dir, p->name,
             p->has_results ? "did not finish its last run" : "was interrupted", done,
             p->nparts ? p->parts : "no part file", p->nparts > 4 ? ", ..." : "",
             p->has_results ? "not yet in its results nor in this report" : "no results written yet", resume);
}
