/* SPDX-License-Identifier: BSD-3-Clause */
/* Interning of region and object names.  Lookups are lock-free (an
 * open-addressing table whose entries are published with release stores),
 * so the hot path of tracefold_region_begin costs a hash of the name and one
 * string compare; the first sight of a name takes a mutex and appends the
 * name to the session's string area, where the writer picks it up. */
#include "config.h"

#include <pthread.h>
#include <string.h>

#include "common/tf_hash.h"
#include "tf_rec.h"

#define TABLE_SIZE 4096              /* power of two; more names than this are "" */

typedef struct entry {
    _Atomic uint64_t key;            /* hash high 32 bits | id, 0 when empty */
    const char *name;                /* the copy in the session's string area */
} entry;

static entry table[TABLE_SIZE];
static pthread_mutex_t insert_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t next_id = 1;

/* Looks name up; on a miss returns 0 and sets *slot to the empty entry. */
static uint32_t lookup(const char *name, uint64_t h, uint32_t *slot)
{
    for (uint32_t i = 0; i < TABLE_SIZE; i++) {
        uint32_t at = (uint32_t)(h + i) & (TABLE_SIZE - 1);
        uint64_t key = atomic_load_explicit(&table[at].key, memory_order_acquire);
        if (!key) {
            *slot = at;
            return 0;
        }
        if ((key >> 32) == (h >> 32) && !strcmp(table[at].name, name))
            return (uint32_t)key;
    }
    *slot = UINT32_MAX;
    return 0;
}

uint32_t tf_intern(const char *name)
{
    if (!name || !*name)
        return 0;
    uint64_t h = tf_fnv_string(TF_FNV_OFFSET, name);
    uint32_t slot;
    uint32_t id = lookup(name, h, &slot);
    if (id)
        return id;
    pthread_mutex_lock(&insert_lock);
    id = lookup(name, h, &slot);          /* another thread may have won */
    tf_shm_process *p = tf_rec_g.proc;
    if (!id && slot != UINT32_MAX && p) {
        size_t len = strlen(name) + 1;
        uint64_t used = atomic_load_explicit(&p->strings_used, memory_order_relaxed);
        if (used + len <= sizeof p->strings) {
            char *copy = p->strings + used;
            memcpy(copy, name, len);
            atomic_store_explicit(&p->strings_used, used + len, memory_order_release);
            id = next_id++;
            table[slot].name = copy;
            atomic_store_explicit(&table[slot].key, (h & 0xffffffff00000000ull) | id,
                                  memory_order_release);
        }
    }
    pthread_mutex_unlock(&insert_lock);
    return id;
}

void tf_intern_reset(void)
{
    /* A forked child starts a new string area: the inherited lock may be
     * held by a thread that does not exist in the child. */
    pthread_mutex_init(&insert_lock, NULL);
    for (uint32_t i = 0; i < TABLE_SIZE; i++) {
        atomic_store_explicit(&table[i].key, 0, memory_order_relaxed);
        table[i].name = NULL;
    }
    next_id = 1;
}
