/* Rail-optimised multi-node platforms, generated as a "graph" JSON
 * document and loaded through ar_platform_from_json, so they obey every rule of
 * the loader (limits, routing, machines).
 *
 *   PRESET:nodes=N[,nic=RATE][,nics=K][,sharp=RATE][,spine=R][,lat=TIME]
 *       N copies of a one-node NVSwitch preset (a "tree" with one machine and one
 *       level: dgx-a100, dgx-h100, ...) joined by rails; nic/nics default to the
 *       preset's scale-out (table in platform_rail.c, with sources);
 *   rail[:nodes=2,gpus=8,nvlink=20.6GBps,lanes=18,nvls=RATE,nic=48GBps,nics=1,sharp=RATE,spine=0,lat=1us]
 *       the same shape from numbers (NVLink links 0.3 us, as the NVSwitch presets; lat= is the NICs').
 * Reducing switches (platform.h reduce_Bps): every NVSwitch at the preset's
 * level reduce_bw (rail: nvls=), every rail switch at sharp= (0/absent: none).
 *
 * Shape: node m has GPUs "n<m>.g<j>" (machine m, ranks machine-major) on an
 * NVSwitch "n<m>.nvs" (the preset's GPU link: bw, lanes, lat); GPU j of every node
 * is on rail switch "rail<j>" by a link of `nics` lanes of `nic` each (its NICs);
 * with spine=R > 0 every rail switch has an uplink to one "spine" of
 * nodes*nics/R lanes of `nic` (oversubscription R:1, rounded up, >= 1 lane).
 * Routes (the graph loader's rule: fewest hops, ties to the lower node index;
 * NVSwitches are listed before rails): same local index -> its rail (2 hops);
 * otherwise NVLink first to the GPU of the destination's index, then that rail
 * (PXN, 4 hops), which ties with the spine route and wins it, so the spine
 * carries no route under this rule. The platform is a "graph" whose routes
 * are computed from this structure (no next-hop table), so memory is
 * O(ranks + links) and the only limit is AR_MAX_RANKS ranks (131072 DGX
 * nodes of 8 GPUs). */
#ifndef AR_PLATFORM_RAIL_H
#define AR_PLATFORM_RAIL_H

#include "platform.h"

/* 1 if ar_platform_load should hand spec to ar_platform_rail_load: "rail",
 * "rail:..." or "NAME:..." where NAME is a preset (NAME.json in the preset directory). */
int ar_platform_rail_match(const char *spec);

/* Builds the platform of spec (see above). ranks > 0 must equal nodes x gpus. */
ar_status ar_platform_rail_load(const char *spec, int ranks, ar_platform **out, ar_err *e);

/* The same platform built as a JSON "graph" document through the ordinary
 * loader, routed by its next-hop table (the graph rule above); limited to the
 * graph's 4096 nodes. The tests compare its routes with the structural ones. */
ar_status ar_platform_rail_load_table(const char *spec, int ranks, ar_platform **out, ar_err *e);

#endif
