/* SPDX-License-Identifier: BSD-3-Clause */
/** @file tracefold.h
 * The tracefold recorder API.  Link with `pkg-config --libs tracefold`, or
 * run an unmodified program under `tracefold record`, which preloads the
 * library.  Every function is safe to call before tracefold_init and after
 * tracefold_fini (it then does nothing), and none of them ever fails the
 * application: when recording is impossible the calls become no-ops. */
#ifndef TRACEFOLD_H
#define TRACEFOLD_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Starts recording in this process (done automatically at load time unless
 * TRACEFOLD_AUTOSTART=0).  Returns 0 when recording, -1 when the recorder is
 * disabled (bad configuration, no writer); the application carries on. */
int tracefold_init(void);

/** Stops recording and hands the remaining data to the writer; automatic at
 * exit. */
void tracefold_fini(void);

/** Marks the begin of a region of code (nestable).  The name is copied once
 * and then recognised by content, so a literal is the cheapest argument. */
void tracefold_region_begin(const char *name);

/** Marks the end of the innermost region of that name. */
void tracefold_region_end(const char *name);

/** Records a generic event (type, value) on the calling thread. */
void tracefold_event(uint32_t type, uint64_t value);

/** Defines a user counter (an application metric such as cells updated),
 * stored and folded like a hardware counter.  Returns its id, or -1 when no
 * more can be defined: at most TRACEFOLD_MAX_USER_COUNTERS, all before the
 * first tracefold_region_begin of the process.  Defining a name twice
 * returns the same id.  When the recorder is not recording, returns 0 (a
 * harmless id), so the application runs on. */
int tracefold_counter_define(const char *name);

/** Adds delta to the calling thread's value of counter id. */
void tracefold_counter_add(int id, uint64_t delta);

/** Names the address range [begin, end) as one data object. */
void tracefold_memory_region(const char *name, const void *begin, const void *end);

/** Makes everything recorded so far durable in the trace file (the writer
 * also does it every flush interval); also refreshes the module map. */
void tracefold_flush(void);

/** The largest number of user counters a process may define. */
#define TRACEFOLD_MAX_USER_COUNTERS 16

#ifdef __cplusplus
}
#endif

#endif
