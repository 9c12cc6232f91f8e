/* SPDX-License-Identifier: BSD-3-Clause */
/* The rows of a fold result bound to the columns of fold.h5's tables
 * (formats/fold_h5.h), for fold_save.c and fold_load.c alike: a region's
 * instances (tf_fold_instance), a group's change points
 * (tf_fold_change). */
#ifndef TF_FOLD_RESULT_H5_H
#define TF_FOLD_RESULT_H5_H

#include "formats/fold_h5.h"

extern const tf_fold_h5_binding tf_fold_instance_h5, tf_fold_change_h5;

#endif
