/* Safe template expansion for the report's narrative (report_tmpl.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report_tmpl.h"

typedef struct ph {
    char name[64];
    char conv; /* 'd', 'f', 'g', 's' or 0 (no format given) */
    int plus;  /* "%+.Nf" */
    int prec;  /* N, -1 when none */
} ph;

/* Parses "{name}" or "{name:FMT}" starting after '{'; *len = chars consumed incl. '}'. */
static int parse_ph(const char *s, ph *p, size_t *len, char *why, size_t whycap) {
    const char *end = strchr(s, '}');
    memset(p, 0, sizeof *p);
    p->prec = -1;
    if (!end) {
        snprintf(why, whycap, "placeholder {%.40s: no closing '}'", s);
        return 1;
    }
    *len = (size_t)(end - s) + 1;
    size_t n = 0;
    while (s + n < end && s[n] != ':') {
        char ch = s[n];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_') ||
            n + 1 >= sizeof p->name) {
            snprintf(why, whycap, "placeholder {%.*s}: a name is 1-63 letters, digits or '_'", (int)(end - s), s);
            return 1;
        }
        p->name[n] = ch;
        n++;
    }
    if (!n) {
        snprintf(why, whycap, "placeholder {%.*s}: no name", (int)(end - s), s);
        return 1;
    }
    if (s[n] != ':') return 0;
    const char *f = s + n + 1;
    int flen = (int)(end - f);
    /* the fixed set: %d %s %.Nf %+.Nf %.Ng */
    if (flen == 2 && f[0] == '%' && (f[1] == 'd' || f[1] == 's')) {
        p->conv = f[1];
        return 0;
    }
    if (flen == 4 && f[0] == '%' && f[1] == '.' && f[2] >= '0' && f[2] <= '9' && (f[3] == 'f' || f[3] == 'g')) {
        p->conv = f[3];
        p->prec = f[2] - '0';
        return 0;
    }
    if (flen == 5 && f[0] == '%' && f[1] == '+' && f[2] == '.' && f[3] >= '0' && f[3] <= '9' && f[4] == 'f') {
        p->conv = 'f';
        p->plus = 1;
        p->prec = f[3] - '0';
        return 0;
    }
    snprintf(why, whycap, "placeholder {%.*s}: bad format %.*s (use %%d, %%s, %%.Nf, %%+.Nf or %%.Ng)", (int)(end - s),
             s, flen, f);
    return 1;
}

int report_tmpl_check(const char *tmpl, char *why, size_t whycap) {
    for (const char *s = tmpl; s && *s;) {
        if ((s[0] == '{' && s[1] == '{') || (s[0] == '}' && s[1] == '}')) {
            s += 2;
            continue;
        }
        if (*s == '}') {
            snprintf(why, whycap, "a lone '}' (write '}}' for a brace)");
            return 1;
        }
        if (*s != '{') {
            s++;
            continue;
        }
        ph p;
        size_t len = 0;
        if (parse_ph(s + 1, &p, &len, why, whycap)) return 1;
        s += 1 + len;
    }
    return 0;
}

static void append(char *out, size_t cap, size_t *n, const char *txt, size_t len) {
    for (size_t i = 0; i < len && *n + 1 < cap; i++) out[(*n)++] = txt[i];
    if (cap) out[*n < cap ? *n : cap - 1] = 0;
}

ar_status report_tmpl_expand(const char *tmpl, const report_val *vals, int nvals, char *out, size_t cap,
                             const char *where, ar_err *e) {
    size_t n = 0;
    char why[200];
    if (cap) out[0] = 0;
    for (const char *s = tmpl; s && *s;) {
        if ((s[0] == '{' && s[1] == '{') || (s[0] == '}' && s[1] == '}')) {
            append(out, cap, &n, s, 1);
            s += 2;
            continue;
        }
        if (*s == '}') return ar_fail(e, AR_EINVAL, "%s: a lone '}' (write '}}' for a brace)", where);
        if (*s != '{') {
            append(out, cap, &n, s, 1);
            s++;
            continue;
        }
        ph p;
        size_t len = 0;
        if (parse_ph(s + 1, &p, &len, why, sizeof why)) return ar_fail(e, AR_EINVAL, "%s: %s", where, why);
        const report_val *v = NULL;
        for (int i = 0; i < nvals && !v; i++)
            if (!strcmp(vals[i].name, p.name)) v = &vals[i];
        if (!v) return ar_fail(e, AR_EINVAL, "%s: unknown placeholder {%s}", where, p.name);
        char buf[128];
        if (v->str) {
            if (p.conv && p.conv != 's')
                return ar_fail(e, AR_EINVAL, "%s: placeholder {%s} is text; use {%s} or {%s:%%s}", where, p.name,
                               p.name, p.name);
            append(out, cap, &n, v->str, strlen(v->str));
        } else {
            if (p.conv == 's')
                return ar_fail(e, AR_EINVAL, "%s: placeholder {%s} is a number; %%s is for text", where, p.name);
            if (p.conv == 'd') snprintf(buf, sizeof buf, "%d", (int)v->num);
            else if (p.conv == 'f' && p.plus) snprintf(buf, sizeof buf, "%+.*f", p.prec, v->num);
            else if (p.conv == 'f') snprintf(buf, sizeof buf, "%.*f", p.prec, v->num);
            else if (p.conv == 'g') snprintf(buf, sizeof buf, "%.*g", p.prec, v->num);
            else snprintf(buf, sizeof buf, "%g", v->num);
            append(out, cap, &n, buf, strlen(buf));
        }
        s += 1 + len;
    }
    return AR_OK;
}
