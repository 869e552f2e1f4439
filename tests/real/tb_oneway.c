/* One-way time of a TCP message across the testbed's shaped links, after idle (tests/real/testbed.sh).
 *
 *   tb_oneway srv PORT            in the receiving machine's namespace: reads messages (an 8-byte little-endian
 *                                 length, then that many bytes) and answers each with the byte 'k'
 *   tb_oneway cli HOST PORT S,... in the sending one: three 1 MiB messages to warm the connection, then per size
 *                                 S the median over 9 of the time from sending the message to its answer, with
 *                                 20 ms idle before each (so a token bucket is full when the message starts, as at
 *                                 an all-reduce's start); prints "S us" per size, the microseconds to 0.1
 *
 * Both ends give up after 60 s without progress (socket timeouts), so a broken testbed cannot hang the test;
 * any failure is one line on stderr and exit status 1. Plain POSIX sockets: no dependency. */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

enum { TB_REPS = 9, TB_WARM = 3, TB_MAXSIZES = 64 };
#define TB_WARM_BYTES ((size_t)1 << 20)
#define TB_MAX_BYTES ((uint64_t)1 << 30)

static void die(const char *what) {
    fprintf(stderr, "tb_oneway: %s%s%s\n", what, errno ? ": " : "", errno ? strerror(errno) : "");
    exit(1);
}

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void sleep_s(double s) {
    struct timespec t = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&t, &t) && errno == EINTR) {}
}

/* 60 s timeouts both ways and no Nagle delay: a message leaves as soon as it is written. */
static void sock_setup(int fd) {
    struct timeval tv = {60, 0};
    int one = 1;
    if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) ||
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) ||
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one))
        die("setsockopt");
}

static int send_all(int fd, const char *p, size_t n) {
    while (n) {
        ssize_t w = send(fd, p, n, 0);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        p += w, n -= (size_t)w;
    }
    return 0;
}

/* Reads exactly n bytes into p (cap bytes long; what does not fit is read and dropped): 0; 1 when the peer
 * closed before the first byte; -1 on an error, a timeout or a close in the middle (errno 0 then). */
static int recv_all(int fd, char *p, size_t cap, uint64_t n) {
    uint64_t n0 = n;
    while (n) {
        size_t want = n < cap ? (size_t)n : cap;
        ssize_t r = recv(fd, p, want, 0);
        if (r < 0 && errno == EINTR) continue;
        if (r == 0) {
            errno = 0;
            return n == n0 ? 1 : -1;
        }
        if (r < 0) return -1;
        n -= (uint64_t)r;
    }
    return 0;
}

static int serve(int port) {
    int s = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    if (s < 0) die("socket");
    struct timeval tv = {60, 0};
    if (setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) ||
        setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv)) /* accept() waits at most 60 s */
        die("setsockopt");
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_ANY);
    if (bind(s, (struct sockaddr *)&a, sizeof a) || listen(s, 1)) die("bind/listen");
    int c = accept(s, NULL, NULL);
    if (c < 0) die("accept");
    sock_setup(c);
    size_t cap = (size_t)1 << 20;
    char *buf = malloc(cap);
    if (!buf) die("out of memory");
    for (;;) {
        unsigned char h[8];
        int r = recv_all(c, (char *)h, sizeof h, sizeof h);
        if (r > 0) break; /* the client closed: done */
        if (r < 0) die("reading a message's length");
        uint64_t n = 0;
        for (int i = 7; i >= 0; i--) n = n << 8 | h[i];
        if (n > TB_MAX_BYTES) {
            errno = 0;
            die("message length over 1 GiB (not a tb_oneway client?)");
        }
        if (recv_all(c, buf, cap, n)) die("reading a message");
        if (send_all(c, "k", 1)) die("answer");
    }
    free(buf);
    close(c);
    close(s);
    return 0;
}

static int cmp_dbl(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

/* One message of n bytes (its length first, in the same write) and its answer: the seconds in between. */
static double one(int fd, char *msg, size_t n) {
    uint64_t v = n;
    for (int i = 0; i < 8; i++, v >>= 8) msg[i] = (char)(v & 0xff);
    double t = now_s();
    if (send_all(fd, msg, n + 8)) die("send");
    char k = 0;
    if (recv_all(fd, &k, 1, 1) || k != 'k') die("no answer");
    return now_s() - t;
}

static int client(const char *host, const char *port, const char *list) {
    size_t sizes[TB_MAXSIZES], maxn = TB_WARM_BYTES;
    int ns = 0;
    for (const char *p = list; *p;) {
        char *end = NULL;
        errno = 0;
        unsigned long long v = strtoull(p, &end, 10);
        if (end == p || (*end && *end != ',') || v == 0 || v > TB_MAX_BYTES || ns == TB_MAXSIZES || errno) {
            fprintf(stderr, "tb_oneway: sizes \"%s\": want up to %d byte counts 1..2^30, comma-separated\n", list,
                    TB_MAXSIZES);
            return 1;
        }
        sizes[ns++] = (size_t)v;
        if (v > maxn) maxn = (size_t)v;
        p = *end ? end + 1 : end;
    }
    if (!ns) {
        fprintf(stderr, "tb_oneway: no sizes\n");
        return 1;
    }
    struct addrinfo hints, *ai = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_INET;
    hints.ai_socktype = SOCK_STREAM;
    int g = getaddrinfo(host, port, &hints, &ai);
    if (g) {
        fprintf(stderr, "tb_oneway: %s:%s: %s\n", host, port, gai_strerror(g));
        return 1;
    }
    int fd = -1;
    for (int i = 0; i < 50 && fd < 0; i++) { /* the server may still be starting */
        fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd < 0) die("socket");
        if (connect(fd, ai->ai_addr, ai->ai_addrlen)) {
            close(fd);
            fd = -1;
            sleep_s(0.1);
        }
    }
    freeaddrinfo(ai);
    if (fd < 0) {
        fprintf(stderr, "tb_oneway: cannot connect to %s:%s\n", host, port);
        return 1;
    }
    sock_setup(fd);
    char *msg = malloc(maxn + 8);
    if (!msg) die("out of memory");
    memset(msg, 'x', maxn + 8);
    for (int i = 0; i < TB_WARM; i++) one(fd, msg, TB_WARM_BYTES);
    for (int k = 0; k < ns; k++) {
        double ts[TB_REPS];
        for (int i = 0; i < TB_REPS; i++) {
            sleep_s(0.02);
            ts[i] = one(fd, msg, sizes[k]);
        }
        qsort(ts, TB_REPS, sizeof *ts, cmp_dbl);
        printf("%zu %.1f\n", sizes[k], ts[TB_REPS / 2] * 1e6);
        fflush(stdout);
    }
    free(msg);
    close(fd);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 3 && !strcmp(argv[1], "srv")) {
        char *end = NULL;
        long port = strtol(argv[2], &end, 10);
        if (*end || port < 1 || port > 65535) {
            fprintf(stderr, "tb_oneway: port \"%s\" is not 1..65535\n", argv[2]);
            return 1;
        }
        return serve((int)port);
    }
    if (argc == 5 && !strcmp(argv[1], "cli")) return client(argv[2], argv[3], argv[4]);
    fprintf(stderr, "tb_oneway: usage: tb_oneway srv PORT | tb_oneway cli HOST PORT SIZE,...\n");
    return 1;
}
