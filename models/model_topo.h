/* Moved: the BlueConnect and FlexReduce closed forms live beside their
 * planners (algos/blueconnect.h, algos/flexreduce.h; models/ never includes
 * algos/). This header stays empty until cli/sweep.c stops including it (it
 * includes algos/flexreduce.h, which declares ar_fr_eq12_bound); then delete it. */
#ifndef AR_MODEL_TOPO_H
#define AR_MODEL_TOPO_H

#include "model.h"

#endif
