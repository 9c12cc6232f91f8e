/* SPDX-License-Identifier: BSD-3-Clause */
/* The fuzz harnesses: one per reader, each a libFuzzer entry point, so that
 * libFuzzer, AFL++ (through its libFuzzer driver) or our own driver
 * (driver.c) can run it.  docs/fuzzing.md says how. */
#ifndef TF_FUZZ_H
#define TF_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/* Runs the reader on one input.  Returns 0; a defect shows as a crash, a
 * sanitizer report, a hang or a leak, never as a return value. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The readers take paths: writes size bytes to NAME in this process's
 * scratch directory (created on first use, on /dev/shm when it can) and
 * puts its path into path.  Aborts when the scratch file cannot be written,
 * which is the machine's fault, not the reader's. */
void tf_fuzz_file(const char *name, const uint8_t *data, size_t size, char *path,
                  size_t pathsize);
/* The path NAME would have in the scratch directory (for outputs). */
void tf_fuzz_path(const char *name, char *path, size_t pathsize);

#endif
