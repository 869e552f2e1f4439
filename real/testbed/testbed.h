/* The emulated cluster: a tree platform built from Linux network
 * namespaces, bridges, veth pairs and tc, on this one machine.
 *
 * Layout, for testbed ID (prefix "arlab-ID-", ID = 1..12 of [a-z0-9]):
 *   - machine k (a switch whose children are GPUs): namespace arlab-ID-m<k>;
 *     its ranks talk over that namespace's loopback (unshaped); data address
 *     10.213.0.0/16 host k+1 on its uplink "u0";
 *   - every other switch: namespace arlab-ID-s<j> with a bridge "br0"; its
 *     uplink "u0" and one port "p<i>" per child are bridge ports;
 *   - every machine uplink and switch-to-switch link: a veth pair (child's
 *     "u0" - parent's "p<i>"), both directions shaped (ar_tb_shape_plan): the
 *     veth's GSO packets capped at AR_TB_GSO_MAX bytes, a root tbf at the
 *     link's capacity x scale with a small bucket (ar_tb_burst_bytes, queue
 *     latency 100 ms) and, where the link has a latency, a netem child adding
 *     it (one-way delay per direction; kernel timer resolution, no jitter,
 *     no loss);
 *   - a control network that carries only the MPI launcher's own traffic
 *     (ORTE daemons, PMIx): namespace arlab-ID-h with bridge "cb"
 *     10.214.255.254/16 and a veth "c0" (10.214.0.0/16 host k+1) into every
 *     machine; unshaped. mpirun runs in arlab-ID-h, one ORTE daemon per machine
 *     namespace (started by `arlab testbed rsh NS CMD`, the rsh agent), and
 *     MPI's TCP BTL is restricted to 10.213.0.0/16.
 * Nothing is created outside these namespaces: no address, route or
 * interface of the host is touched; every veth is created directly inside
 * its namespaces (ip -n NS link add ... peer ... netns NS2).
 *
 * Lifetime and cleanup. A state file STATE_DIR/ID.state (STATE_DIR =
 * $ARLAB_TESTBED_DIR or /run/arlab-testbed) records the builder's pid and
 * start time and whether the testbed is "owned" (being built or run by that
 * process) or "up" (left up by `testbed up`). Every command first looks for a
 * stale testbed (owned by a process that no longer runs, namespaces with the
 * prefix but no state file, or a state file without its namespaces) and
 * removes it, saying so in one line. While building or running, a watchdog
 * process (its own session, so Ctrl-C does not reach it) holds a pipe to the
 * builder: if the builder dies without saying "keep" the watchdog tears the
 * testbed down. SIGINT/SIGTERM/SIGHUP in the builder tear down and exit 130.
 * Teardown kills the processes left inside the namespaces (ip netns pids) and
 * deletes the namespaces (which deletes their veths and bridges).
 *
 * Limits (AR_ELIMIT): at most 4 x (online CPUs) ranks; a shaped link (after
 * scale) above 2 Gb/s is refused, naming it, unless --scale is given.
 * Without root or when a namespace cannot be created: AR_TB_ENOPRIV (77).
 *
 * Ownership: ar_tb_plan returns a plan freed with ar_tb_free; it borrows p.
 */
#ifndef AR_REAL_TESTBED_TESTBED_H
#define AR_REAL_TESTBED_TESTBED_H

#include <stdio.h>

#include "core/platform/platform.h"
#include "core/status.h"

#define AR_TB_ENOPRIV 77          /* exit status: no privileges for namespaces (tests skip) */
#define AR_TB_MAX_SHAPE_BPS 250e6 /* 2 Gb/s: the fastest link shaped without --scale */
#define AR_TB_RANKS_PER_CPU 4

/* Shaping one direction of a link. The token bucket must be small against the smallest message that
 * should see the link's rate (a full bucket passes its size at veth speed: with 64-128 KiB, a 64 KiB
 * message took 0.2 ms instead of its 1.05 ms at 500 Mbit/s) yet large enough that the rate holds at
 * 64 MB (the tbf's timer fires late under load; the bucket absorbs that): measured on this 2-core
 * machine at 500 Mbit/s (docs/testbed.md), a 10 KB bucket with the veths' GSO packets capped at 8 KiB
 * keeps 64 KiB at 1.05 ms and 64 MiB at 97 % of today's rate; without the cap tbf splits every
 * 64 KiB GSO packet into MTU frames in software (tbf_segment), which costs rate (64 MiB 25 % slower). */
#define AR_TB_GSO_MAX 8192      /* gso_max_size of every shaped veth end, bytes */
#define AR_TB_BURST_MIN 10000.0 /* the bucket: at least this (one capped GSO packet and its headers) ... */
#define AR_TB_BURST_TIME 160e-6 /* ... or this much time of the rate, whichever is larger */

/* The tbf bucket (bytes) for a shaped rate (bytes/s). */
double ar_tb_burst_bytes(double rate_Bps);

#define AR_TB_SHAPE_MAXCMD 3
#define AR_TB_SHAPE_MAXW 24
/* One command of the shaping: argv (words, NULL after the last), as run with fork/exec. */
typedef struct ar_tb_shape_cmd {
    int n;
    char w[AR_TB_SHAPE_MAXW][48];
    char *argv[AR_TB_SHAPE_MAXW + 1];
} ar_tb_shape_cmd;

/* The commands that shape dev in namespace ns at rate_Bps with one-way latency lat_s: the GSO cap
 * (ip link set ... gso_max_size), the root tbf, and (netem = 1, lat_s > 0) the netem delay child.
 * queue: the tbf's queue latency (NULL: "100ms"). Returns how many commands it wrote (2 or 3). */
int ar_tb_shape_plan(const char *ns, const char *dev, double rate_Bps, double lat_s, int netem, const char *queue,
                     ar_tb_shape_cmd cmds[AR_TB_SHAPE_MAXCMD]);

/* TCP congestion control of the machines' data network (10.213.0.0/16). The simulation shares a link
 * max-min fairly among its flows and hands a flow the freed rate the moment another one ends. Loss-based
 * cubic (Linux's default) keeps a shared bottleneck's queue filled, so the link stays busy as an
 * algorithm's flows come and go. BBR (this host's default, inherited by every new namespace) paces each
 * flow at its own estimate of its share and raises that estimate by 25 % once per ~8 round trips, so a
 * shared link whose set of flows changes from step to step (the pairwise exchanges and ps across a rack
 * uplink) runs below its rate for part of each step: on testbed-3level at 8 MB, halving-doubling ran
 * 21-36 % slower than simulated with BBR and 8-18 % with cubic, ps 9-27 % and 3-6 % (4 paired runs at load 19-20,
 * docs/testbed.md; at load 6-10 halving-doubling +17-25 % against +1 %); a single flow (ring, binomial, the
 * calibration's pair) is alike under both.
 * A namespace other than the host's may only make a congestion control of the host's
 * net.ipv4.tcp_allowed_congestion_control its default (reno and bbr here), so the testbed sets it per
 * route (`congctl`), which any namespace may: its own routes only, nothing of the host's. */
#define AR_TB_CC_DEFAULT "cubic"
#define AR_TB_CC_MAX 16

/* The congestion control the testbed sets: $ARLAB_TESTBED_CC if set ("host": keep the host's default;
 * else 1-15 characters of [a-z0-9_]), AR_TB_CC_DEFAULT otherwise. Writes it to cc ("" for "host");
 * AR_EINVAL naming the variable for a bad value. */
ar_status ar_tb_cc_choice(const char *env, char cc[AR_TB_CC_MAX], ar_err *e);

/* The command that gives TCP in machine namespace ns (data address addr on u0, e.g. "10.213.0.1")
 * congestion control cc: `ip -n ns route replace 10.213.0.0/16 dev u0 proto kernel scope link src addr
 * congctl cc` (the route the address made, with the congctl metric added). */
void ar_tb_cc_plan(const char *ns, const char *addr, const char *cc, ar_tb_shape_cmd *cmd);

typedef struct ar_tb_opts {
    const char *id;        /* NULL: "tb" */
    double scale;          /* > 0: multiply every shaped link's bandwidth; 0: none */
    const char *state_dir; /* NULL: $ARLAB_TESTBED_DIR or /run/arlab-testbed */
    int no_watchdog;       /* 1: no watchdog (tests of stale detection); also $ARLAB_TESTBED_NO_WATCHDOG=1 */
    int verbose;
} ar_tb_opts;

typedef struct ar_tb ar_tb;

/* Checks p (a tree, machines of GPUs only, rank and bandwidth limits) and
 * makes the plan. AR_EUNSUPPORTED for a non-tree, AR_ELIMIT for limits. */
ar_status ar_tb_plan(const ar_platform *p, const ar_tb_opts *o, ar_tb **out, ar_err *e);
void ar_tb_free(ar_tb *t);

/* The platform with the testbed's shaped bandwidths (x scale), named
 * NAME@scale=F when scaled, written to path (tbjson.h). */
ar_status ar_tb_write_platform(const ar_tb *t, const char *path, ar_err *e);

/* Builds the testbed. keep = 1 (testbed up): leaves it up and marks the
 * state "up"; keep = 0 (testbed run): the caller must call ar_tb_release.
 * Cleans a stale testbed of the same ID first; refuses one that is up or
 * owned by a live process. On failure everything made is removed. */
ar_status ar_tb_up(ar_tb *t, int keep, ar_err *e);
/* Records the MPI transport a run uses (e.g. "btl_tcp_links=2 (exchange
 * test: ...)") in the state file, so `testbed status` shows it. */
ar_status ar_tb_set_transport(ar_tb *t, const char *text, ar_err *e);
/* Tears down a testbed built with keep = 0 and stops its watchdog. */
void ar_tb_release(ar_tb *t);

/* Removes testbed ID (namespaces, state); "not up" is not an error. */
ar_status ar_tb_down(const ar_tb_opts *o, FILE *msg, ar_err *e);
/* Prints the state, namespaces, qdiscs and counters of testbed ID. */
ar_status ar_tb_status(const ar_tb_opts *o, FILE *f, ar_err *e);
/* Removes testbed ID if it is stale (prints one line when it was); returns
 * 1 when it removed one, 0 if none, -1 on error. */
int ar_tb_clean_stale(const ar_tb_opts *o, FILE *msg);

/* Accessors for `testbed run`. */
int ar_tb_nmachines(const ar_tb *t);
const char *ar_tb_ns_machine(const ar_tb *t, int k); /* "arlab-ID-m<k>" */
const char *ar_tb_ns_head(const ar_tb *t);
/* Bytes sent (tx) and received (rx) so far by machine k's uplink u0. */
ar_status ar_tb_uplink_bytes(const ar_tb *t, int k, double *tx, double *rx, ar_err *e);
/* 1 once SIGINT/SIGTERM/SIGHUP arrived while the testbed was owned. */
int ar_tb_interrupted(void);

/* Runs argv (argv[0] looked up in PATH) inside namespace ns (NULL: here) in
 * its own process group, killing the group after timeout_s or on an
 * interrupt. Returns the exit status (128+sig when killed), -1 if it could
 * not start. */
int ar_tb_spawn_wait(const char *ns, char *const argv[], double timeout_s, const char *what);

/* The rsh agent of mpirun: joins namespace ns (must be "arlab-...") and runs
 * the command words with /bin/sh -c, as ssh would. Does not return on success. */
int ar_tb_rsh(const char *ns, int argc, char **argv);

#endif
