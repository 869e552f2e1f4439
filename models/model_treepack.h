/* Moved: the tree-packing closed form (ar_model_treepack and its bounds) is
 * declared in algos/treepack.h and lives in algos/treepack_model.c, beside its
 * planner. This header stays empty until tests/sim_treepack.c stops including
 * it (it includes algos/treepack.h too); then delete it. */
#ifndef AR_MODEL_TREEPACK_H
#define AR_MODEL_TREEPACK_H

#include "model.h"

#endif
