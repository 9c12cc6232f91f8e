/* SPDX-License-Identifier: BSD-3-Clause */
/* The one rule for what a command may do with an output that exists
 * already (docs/manual.md, "Existing outputs and --force"):
 *   - an output is never one of the inputs, nor a folder holding one when
 *     it would be replaced (device and inode compared, not names: links
 *     and other spellings of a path are caught);
 *   - an existing output is replaced only with --force;
 *   - --force replaces only what tracefold wrote: a file the caller
 *     recognises (a tracefold trace, say), a regular file where the caller
 *     names no test, a folder holding the marker its command wrote into it
 *     that lists every entry the folder holds now (nothing the user put
 *     there is removed with it).
 * The checks are made before the work, so a refusal costs nothing; the
 * outputs themselves are written under temporary names in the same folder
 * and committed at the end (tf_output_commit), so that no half-written
 * output ever has the final name, and the commit replaces only the file
 * the check let --force replace: a file created at that name meanwhile
 * stays (a link to nothing is refused, never followed). */
#ifndef TF_OUTPUT_H
#define TF_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>

#include "tf_error.h"

typedef struct tf_output_rule {
    const char *const *inputs;   /* the command's inputs (files or folders) */
    size_t      ninputs;
    bool        force;           /* --force: an existing output may be replaced */
    /* A file output: whether path is one tracefold wrote, and so may be
     * replaced with --force; NULL: any regular file may.  kind names what
     * it recognises, for the refusal ("a tracefold trace"). */
    bool      (*ours)(const char *path);
    const char *kind;
} tf_output_rule;

/* 0 when the file path may be written: it does not exist (nor is it a
 * link to nothing), or r->force is given and it is a regular file r->ours
 * accepts; and it is none of the inputs.  Else TF_ERR_EXISTS
 * (TF_ERR_USAGE for an input) naming path.  What it found is remembered
 * for tf_output_commit. */
int tf_output_check_file(const char *path, const tf_output_rule *r, tf_error *err);

/* Moves the finished temporary file tmp (in path's folder) to path:
 * replacing the file that tf_output_check_file found there and let
 * --force replace, if it is still that file; else only when nothing is
 * there (atomically: a file created at path since the check fails the
 * commit with TF_ERR_EXISTS, untouched).  A path never checked (a
 * temporary conversion, a test's file) is replaced as rename(2) would.
 * tmp is left to the caller on failure. */
int tf_output_commit(const char *tmp, const char *path, tf_error *err);

/* Whether a file at path may be replaced by an output written in place
 * (a trace being recorded): it is the file tf_output_check_file found
 * there and let --force replace, or path was never checked.  When the
 * check found nothing, false: the output is to be created exclusively. */
bool tf_output_may_replace(const char *path);

/* 0 when the folder path may be written: it does not exist (*exists
 * false), or r->force is given and it is a folder.  With a marker, the
 * folder is written as a whole (into a temporary sibling renamed over it),
 * and must also be empty or hold marker listing every entry it holds, with
 * no input being the folder or lying inside it; without (NULL), its files
 * are replaced one by one and nothing else in it is touched.  Else an
 * error naming path and the reason. */
int tf_output_check_folder(const char *path, const char *marker, const tf_output_rule *r,
                           bool *exists, tf_error *err);

/* Writes the file marker into dir, listing the entries dir holds now
 * (once everything else is written there). */
int tf_output_mark_folder(const char *dir, const char *marker, tf_error *err);

/* A folder output written as a whole: tf_output_begin_folder creates its
 * temporary sibling (path.tmp-PID) into tmp; tf_output_finish_folder,
 * with the status rc of the writing, marks it with marker, moves an
 * earlier folder at path aside when replace (tf_output_check_folder
 * allowed it), renames tmp to path and removes what is left over: tmp
 * when anything failed, the earlier folder once replaced.  Returns rc,
 * or the error of the commit. */
int tf_output_begin_folder(const char *path, char *tmp, size_t len, tf_error *err);
int tf_output_finish_folder(const char *tmp, const char *path, const char *marker, bool replace,
                            int rc, tf_error *err);

/* Removes dir and everything below it, following no link (best effort:
 * a temporary output being abandoned). */
void tf_output_remove_tree(const char *dir);

/* Creates the folders leading to the file path, as `mkdir -p` would. */
int tf_output_make_parents(const char *path, tf_error *err);

#endif
