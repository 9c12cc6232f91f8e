/* SPDX-License-Identifier: BSD-3-Clause */
/* Numbers on the command line: one parser per kind, so every command takes
 * and refuses the same things (the whole argument must be a number in the
 * range; no sign on unsigned values). */
#ifndef TF_CLI_ARGS_H
#define TF_CLI_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

bool tf_arg_double(const char *s, double lo, double hi, double *v);
bool tf_arg_uint(const char *s, uint64_t lo, uint64_t hi, uint64_t *v);
bool tf_arg_u32(const char *s, uint32_t *v);
/* A size with an optional K, M or G suffix (powers of 1024). */
bool tf_arg_bytes(const char *s, size_t *v);

/* Adds --alloc-wrapper NAME to rules (its array made at the first, with
 * room for one per argument of the command line; the caller frees
 * rules->wrappers); false, said as a usage error or as no memory, for an
 * empty NAME or no memory. */
struct tf_alloc_rules;
bool tf_arg_alloc_wrapper(struct tf_alloc_rules *rules, int argc, const char *name);

#endif
