/* Internals shared by the testbed's files (testbed.c, testbed_ns.c). */
#ifndef AR_TB_INT_H
#define AR_TB_INT_H

#include <signal.h>

#define NS_DIR "/run/netns" /* where `ip netns` keeps the namespaces' names */

/* The signals that tear a testbed down (and that a child must not inherit as ignored). */
static const int k_sigs[3] = {SIGINT, SIGTERM, SIGHUP};

#endif
