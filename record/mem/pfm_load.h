/* SPDX-License-Identifier: BSD-3-Clause */
/* libpfm4, loaded and initialised when an event name is first encoded
 * rather than with the recorder: its 41 000 relocations cost every process
 * that loads the recorder about 5 ms of CPU at start (bench/RESULTS.md,
 * "Recorder: start and stop"), also a program linked with the library that
 * does not record. */
#ifndef TF_PFM_LOAD_H
#define TF_PFM_LOAD_H

#include <perfmon/pfmlib_perf_event.h>

/* pfm_get_os_event_encoding(3) of name, libpfm4 loaded and initialised
 * once per process (thread-safe; not in a signal handler: dlopen(3) is
 * not async-signal-safe).  PFM_SUCCESS, libpfm4's error, or
 * PFM_ERR_NOINIT when the library could not be loaded or initialised. */
int tf_pfm_encode(const char *name, int plm, pfm_os_t os, void *arg);

#endif
