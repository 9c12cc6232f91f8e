/* SPDX-License-Identifier: BSD-3-Clause */
/* The writer side of a recording session: drains the shared-memory buffers
 * of every traced process of a session directory into one HDF5 trace per
 * process (formats/trace.h).  Runs in `tracefold record` (the parent of the
 * application) or in the helper a linked application starts. */
#ifndef TF_REC_WRITER_H
#define TF_REC_WRITER_H

#include <stdbool.h>
#include <sys/types.h>

#include "common/tf_error.h"
#include "record/tf_options.h"
#include "record/tf_session.h"
#include "formats/trace.h"

typedef struct tf_rec_session tf_rec_session;

/* Summary of one process's trace, for the closing note. */
typedef struct tf_rec_summary {
    char     path[1024];
    int64_t  pid;
    uint32_t threads;
    uint64_t events, samples, dropped;
    bool     failed;
} tf_rec_summary;

/* dir must exist; the session takes ownership and removes it at the end.
 * producer goes into the trace's metadata. */
int  tf_rec_session_create(tf_rec_session **s, const char *dir, const tf_options *o,
                           const char *producer, tf_error *err);

/* Drains until every process of the session is finished (and child, when
 * > 0, has exited: *child_status gets its wait status).  Problems with one
 * trace (unwritable output, full disk) are reported on stderr as they
 * happen, and that process runs on untraced. */
void tf_rec_session_run(tf_rec_session *s, pid_t child, int *child_status);

/* quiet: no message but errors (the default says which counters the
 * processes could not open, once). */
void tf_rec_session_set_quiet(tf_rec_session *s, bool quiet);

/* The traces written, valid until destroy. */
size_t tf_rec_session_summaries(tf_rec_session *s, const tf_rec_summary **out);

void tf_rec_session_destroy(tf_rec_session *s);

/* tf_reserve.c: disk blocks kept allocated beyond the end of a trace, so
 * that it can still be closed when its file system fills up. */
typedef struct tf_reserve {
    int      fd;           /* -1: none */
    bool     supported;    /* false: the file system cannot preallocate */
    uint64_t size;         /* bytes kept beyond the end */
    uint64_t renewed_end;  /* the file's size at the last renewal (UINT64_MAX: none) */
} tf_reserve;
int  tf_reserve_open(tf_reserve *r, const char *path, uint64_t size, tf_error *err);
/* Before each write: renews the reserve from the file's current end (a
 * file that did not grow keeps its reserve: nothing to do); an error when
 * the file system (or the file size limit) has no room. */
int  tf_reserve_renew(tf_reserve *r, const char *path, tf_error *err);
/* After the trace is closed: gives the reserve back, closes r->fd. */
void tf_reserve_release(tf_reserve *r);

/* tf_objects.c: a process's data objects.  Objects with a lifetime
 * (heap, mmap, stack) are kept from begin to end and written then, or by
 * finish; tf_wobjects_add writes one at once (user regions, statics), with
 * a new id.  Everything is queued and written by flush. */
typedef struct tf_wobjects tf_wobjects;
int  tf_wobjects_create(tf_wobjects **o, tf_error *err);
void tf_wobjects_destroy(tf_wobjects *o);
uint32_t tf_wobjects_new_id(tf_wobjects *o);
int  tf_wobjects_add(tf_wobjects *o, tf_trace_out *w, uint32_t proc, const tf_object *x,
                     tf_error *err);
int  tf_wobjects_begin(tf_wobjects *o, tf_trace_out *w, uint32_t proc, uint8_t kind,
                       uint64_t start, uint64_t end, uint64_t time, const uint64_t *frames,
                       uint32_t nframes, tf_error *err);
int  tf_wobjects_end(tf_wobjects *o, tf_trace_out *w, uint32_t proc, uint64_t start,
                     uint64_t time, tf_error *err);
/* The static variables of an ELF file whose lowest mapping starts at
 * map_start (nothing for a file that is not ELF). */
int  tf_wobjects_static_file(tf_wobjects *o, tf_trace_out *w, uint32_t proc, const char *path,
                             uint64_t map_start, tf_error *err);
int  tf_wobjects_flush(tf_wobjects *o, tf_trace_out *w, uint32_t proc, tf_error *err);
/* Writes the objects still alive (free_time TF_NOTIME), then flushes. */
int  tf_wobjects_finish(tf_wobjects *o, tf_trace_out *w, uint32_t proc, tf_error *err);

/* tf_small_objects.c: the process's small-block log (tf_small_log.h),
 * beside its control file proc_file.  drain: takes what the threads'
 * rings hold (made at the first call; nothing while the program has no
 * log) and gives the log the writer's time now.  finish: drains, writes
 * every block taken as an object of kind TF_OBJECT_SMALL (ids from o),
 * each ending when the next one starts at its address, says in *lost what
 * was not taken, and frees *ws.  free: without writing (a failed trace). */
typedef struct tf_wsmall tf_wsmall;
typedef struct tf_small_lost {
    uint64_t cap;           /* the blocks kept at most */
    uint64_t over;          /* blocks past cap */
    uint64_t ring;          /* blocks a full ring refused (the writer behind) */
} tf_small_lost;
int  tf_wsmall_drain(tf_wsmall **ws, const char *proc_file, uint64_t now, tf_error *err);
int  tf_wsmall_finish(tf_wsmall **ws, const char *proc_file, tf_wobjects *o, tf_trace_out *w,
                      uint32_t proc, uint64_t mono0, tf_small_lost *lost, tf_error *err);
void tf_wsmall_free(tf_wsmall *ws);
void tf_wsmall_unlink(const char *proc_file);

/* tf_modules.c: appends the file mappings of /proc/PID/maps that are not in
 * *known yet (with their GNU build-ids) to the trace, and the static
 * variables of each file seen for the first time to objs; when the process
 * is gone, those of its last copy, saved (len bytes, not NUL-terminated).
 * Paths under skip (the session directory) are left out. */
typedef struct tf_module_set tf_module_set;
int  tf_modules_update(tf_trace_out *w, uint32_t proc, int64_t pid, const char *saved, size_t len,
                       const char *skip, tf_module_set **known, tf_wobjects *objs,
                       tf_error *err);
void tf_modules_free(tf_module_set *known);
/* The GNU build-id of an ELF file as lowercase hex, or "" (buf >= 81). */
void tf_build_id(const char *path, char *buf, size_t size);

/* ---- kernel capture (docs/recorder.md, "Kernel capture") ---- */

/* tf_kunwind.c: call stacks from a sample's registers and stack copy. */
#define TF_KREGS_DWARF 17      /* x86-64 DWARF registers 0-16 (16: rip) */
#define TF_KUNWIND_MAX 128     /* the stack-depth option's maximum */
typedef struct tf_kunwind tf_kunwind;
int  tf_kunwind_create(tf_kunwind **u, int64_t pid, tf_error *err);
void tf_kunwind_free(tf_kunwind *u);
/* The process's mappings, as /proc/PID/maps text, reported anew. */
void tf_kunwind_maps(tf_kunwind *u, const char *maps, size_t len);
typedef enum tf_kwalk {
    TF_KWALK_FP,       /* frame pointers (u may be NULL) */
    TF_KWALK_CFI,      /* CFI: learned frame rules, libdwfl where they cannot step */
    TF_KWALK_DWFL,     /* CFI by libdwfl alone, the reference the rules are tested against */
} tf_kwalk;
/* Innermost first, the sample's instruction address then return
 * addresses.  The stack copy starts at dregs[7] (rsp). */
uint32_t tf_kunwind_stack(tf_kunwind *u, int64_t tid, const uint64_t dregs[TF_KREGS_DWARF],
                          const uint8_t *stack, size_t len, tf_kwalk walk, uint64_t *frames,
                          uint32_t depth);
/* How many samples were walked by libdwfl (TF_KWALK_DWFL, or frames the
 * rules could not step). */
uint64_t tf_kunwind_dwfl_walks(const tf_kunwind *u);

/* tf_kring.c: a process's kernel-captured samples, one ring per thread. */
typedef struct tf_kproc tf_kproc;
typedef struct tf_kring tf_kring;
typedef struct tf_kstats {
    uint64_t samples, memory, lost, malformed;
    uint64_t dwfl_walks;       /* stacks libdwfl walked (tf_kunwind_dwfl_walks) */
    uint64_t cpu_ns;           /* the writer's CPU time spent draining */
} tf_kstats;
/* unwind: enum tf_unwind_choice; memory: decode memory references. */
int  tf_kproc_create(tf_kproc **kp, int64_t pid, int unwind, bool memory, tf_error *err);
void tf_kproc_free(tf_kproc *kp);
/* The maps text stacks and code are found with (kept by the caller until
 * the next call). */
void tf_kproc_maps(tf_kproc *kp, const char *maps, size_t len);
const tf_kstats *tf_kproc_stats(tf_kproc *kp);
/* Takes the thread's event (h, published by the library) and maps its ring. */
int  tf_kring_open(tf_kring **k, tf_kproc *kp, const tf_shm_kcapture *h, int64_t tid,
                   uint32_t nbase, uint32_t depth, tf_error *err);
void tf_kring_close(tf_kring *k);
/* One sample for the trace: ctr holds the nbase base counters (user
 * counters are 0: see tf_capture_kernel.c), frames innermost first. */
typedef void (*tf_ksample_fn)(void *ctx, const tf_sample *s, const uint64_t *ctr,
                              const uint64_t *frames, uint32_t nframes);
/* Everything in the ring, in order; the records consumed, or < 0 when the
 * ring was corrupt (then emptied). */
long tf_kring_drain(tf_kring *k, tf_ksample_fn fn, void *ctx);
uint64_t tf_kring_lost(const tf_kring *k);   /* samples the kernel dropped, so far */
bool tf_kring_quarter_full(const tf_kring *k);

#endif
