/* `arlab best --emit nccl-tuner FILE`: NCCL's own choice per size range as
 * the CSV configuration of NCCL's example tuner plugin (ext-tuner/example,
 * NCCL_TUNER_CONFIG_FILE), one line per range:
 *   collective_type,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,nRanks,numPipeOps,regBuff
 * collective allreduce / allgather / reducescatter; algorithm tree, ring, collnet_direct,
 * collnet_chain, nvls, nvls_tree, pat; protocol ll, ll128, simple; channels -1 (NCCL's
 * default); nNodes and nRanks of the platform; numPipeOps and regBuff -1 (any). Byte
 * ranges are inclusive and contiguous from 0 to max_bytes; sizes beyond are left to NCCL.
 *
 * Only NCCL-native algorithms can be expressed there: the choice is the one NCCL's cost
 * model (models/nccl_model.h, with the platform's links) makes among them at each size
 * (sampled 8 times per octave from 1 B; a range takes the choice at its first sample).
 * arlab's own schedules (blueconnect, flexreduce, treepack, two-level, ...) are not NCCL
 * algorithms and cannot be written in this format; the file says so in its header.
 *
 * Ownership: writes to f; nothing allocated. */
#ifndef AR_LAB_TUNER_EMIT_H
#define AR_LAB_TUNER_EMIT_H

#include <stdio.h>

#include "core/platform/platform.h"
#include "core/status.h"

ar_status lab_tuner_emit(const ar_platform *p, double max_bytes, FILE *f, int *nlines, ar_err *e);

#endif
