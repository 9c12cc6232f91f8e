/* SPDX-License-Identifier: BSD-3-Clause */
#include "elf_objects.h"
#include "common/tf_array.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void tf_elf_objects_init(tf_elf_objects *o, uint64_t min_size)
{
    memset(o, 0, sizeof *o);
    o->min_size = min_size ? min_size : 1;
}

void tf_elf_objects_free(tf_elf_objects *o)
{
    for (size_t i = 0; i < o->nobjects; i++)
        free((char *)o->objects[i].name);
    for (size_t i = 0; i < o->nmodules; i++)
        free(o->modules[i].path);
    free(o->objects);
    free(o->modules);
    memset(o, 0, sizeof *o);
}

static int add_module(tf_elf_objects *o, const char *path, uint64_t bias, tf_error *err)
{
    tf_elf_module *m = tf_array_room(o->modules, o->nmodules, &o->modcap, sizeof *m, 16);
    if (!m)
        return tf_fail(err, TF_ERR_NOMEM, "ELF module list");
    o->modules = m;
    char *copy = strdup(path);
    if (!copy)
        return tf_fail(err, TF_ERR_NOMEM, "ELF module list");
    o->modules[o->nmodules++] = (tf_elf_module){ .path = copy, .bias = bias };
    return 0;
}

static int add_object(tf_elf_objects *o, uint64_t start, uint64_t size, const char *name,
                      tf_error *err)
{
    tf_elf_object *v = tf_array_room(o->objects, o->nobjects, &o->cap, sizeof *v, 256);
    if (!v)
        return tf_fail(err, TF_ERR_NOMEM, "ELF object list");
    o->objects = v;
    char *copy = strdup(name);
    if (!copy)
        return tf_fail(err, TF_ERR_NOMEM, "ELF object list");
    o->objects[o->nobjects++] = (tf_elf_object){
        .start = start, .size = size, .name = copy, .module = (uint32_t)(o->nmodules - 1),
    };
    return 0;
}

/* The symbol table to read: .symtab when present, else .dynsym. */
static Elf_Scn *symbol_table(Elf *elf, GElf_Shdr *shdr)
{
    Elf_Scn *dyn = NULL, *scn = NULL;
    GElf_Shdr dynhdr;
    while ((scn = elf_nextscn(elf, scn)) != NULL) {
        GElf_Shdr h;
        if (!gelf_getshdr(scn, &h))
            continue;
        if (h.sh_type == SHT_SYMTAB) {
            *shdr = h;
            return scn;
        }
        if (h.sh_type == SHT_DYNSYM && !dyn) {
            dyn = scn;
            dynhdr = h;
        }
    }
    if (dyn)
        *shdr = dynhdr;
    return dyn;
}

static int read_symbols(tf_elf_objects *o, Elf *elf, const char *path, uint64_t bias,
                        tf_error *err)
{
    GElf_Shdr shdr;
    Elf_Scn *scn = symbol_table(elf, &shdr);
    if (!scn || shdr.sh_entsize == 0)
        return 0;   /* no symbols: nothing to add */
    Elf_Data *data = elf_getdata(scn, NULL);
    if (!data)
        return tf_fail(err, TF_ERR_FORMAT, "%s: symbol table: %s", path, elf_errmsg(-1));
    size_t count = shdr.sh_size / shdr.sh_entsize;
    size_t before = o->nobjects;
    for (size_t i = 0; i < count; i++) {
        GElf_Sym sym;
        if (!gelf_getsym(data, (int)i, &sym))
            return tf_fail(err, TF_ERR_FORMAT, "%s: symbol %zu: %s", path, i, elf_errmsg(-1));
        if (GELF_ST_TYPE(sym.st_info) != STT_OBJECT || sym.st_shndx == SHN_UNDEF ||
            sym.st_shndx == SHN_ABS || sym.st_size < o->min_size)
            continue;
        const char *name = elf_strptr(elf, shdr.sh_link, sym.st_name);
        int rc = add_object(o, sym.st_value + bias, sym.st_size, name ? name : "", err);
        if (rc)
            return rc;
    }
    o->modules[o->nmodules - 1].nobjects = o->nobjects - before;
    return 0;
}

static int by_start(const void *a, const void *b)
{
    const tf_elf_object *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

int tf_elf_objects_read_file(tf_elf_objects *o, const char *path, uint64_t bias,
                             tf_error *err)
{
    if (elf_version(EV_CURRENT) == EV_NONE)
        return tf_fail(err, TF_ERR_INTERNAL, "libelf: %s", elf_errmsg(-1));
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return tf_fail(err, errno == ENOENT ? TF_ERR_NOTFOUND : TF_ERR_IO, "%s: %s", path,
                       strerror(errno));
    int rc;
    Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
    if (!elf || elf_kind(elf) != ELF_K_ELF) {
        rc = tf_fail(err, TF_ERR_FORMAT, "%s: not an ELF file (%s)", path, elf_errmsg(-1));
        goto done;
    }
    rc = add_module(o, path, bias, err);
    if (rc == 0)
        rc = read_symbols(o, elf, path, bias, err);
    if (o->nobjects)
        qsort(o->objects, o->nobjects, sizeof *o->objects, by_start);
done:
    if (elf)
        elf_end(elf);
    close(fd);
    return rc;
}

int tf_elf_load_bias(const char *path, uint64_t map_start, uint64_t *bias, tf_error *err)
{
    if (elf_version(EV_CURRENT) == EV_NONE)
        return tf_fail(err, TF_ERR_INTERNAL, "libelf: %s", elf_errmsg(-1));
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return tf_fail(err, errno == ENOENT ? TF_ERR_NOTFOUND : TF_ERR_IO, "%s: %s", path,
                       strerror(errno));
    int rc = tf_fail(err, TF_ERR_FORMAT, "%s: no loadable segment", path);
    Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
    size_t nphdr = 0;
    if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getphdrnum(elf, &nphdr) != 0) {
        rc = tf_fail(err, TF_ERR_FORMAT, "%s: not an ELF file (%s)", path, elf_errmsg(-1));
        nphdr = 0;
    }
    long page = sysconf(_SC_PAGESIZE);
    uint64_t mask = ~(uint64_t)(page > 0 ? page - 1 : 4095);
    for (size_t i = 0; i < nphdr; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
            continue;
        *bias = map_start - (ph.p_vaddr & mask);   /* the first PT_LOAD */
        tf_error_clear(err);
        rc = 0;
        break;
    }
    if (elf)
        elf_end(elf);
    close(fd);
    return rc;
}

static bool already_read(const tf_elf_objects *o, const char *path, uint64_t bias)
{
    for (size_t i = 0; i < o->nmodules; i++)
        if (o->modules[i].bias == bias && strcmp(o->modules[i].path, path) == 0)
            return true;
    return false;
}

/* Loaded modules, collected first: dl_iterate_phdr holds the loader's lock,
 * so no file is opened inside the callback. */
typedef struct tf_loaded {
    struct { char *path; uint64_t bias; } *v;
    size_t n, cap;
    bool nomem;
} tf_loaded;

static int collect_module(struct dl_phdr_info *info, size_t size, void *data)
{
    tf_loaded *l = data;
    /* The first entry is the executable, with an empty name. */
    const char *path = l->n == 0 && (!info->dlpi_name || !info->dlpi_name[0])
                           ? "/proc/self/exe" : info->dlpi_name;
    if (!path || !path[0])
        return 0;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 32;
        void *v = realloc(l->v, cap * sizeof *l->v);
        if (!v) {
            l->nomem = true;
            return 1;
        }
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n].path = strdup(path);
    l->v[l->n].bias = info->dlpi_addr;
    if (!l->v[l->n].path) {
        l->nomem = true;
        return 1;
    }
    l->n++;
    return 0;
}

int tf_elf_objects_read_self(tf_elf_objects *o, size_t *skipped, tf_error *err)
{
    tf_loaded l = { 0 };
    dl_iterate_phdr(collect_module, &l);
    int rc = l.nomem ? tf_fail(err, TF_ERR_NOMEM, "loaded module list") : 0;
    size_t nskipped = 0;
    for (size_t i = 0; i < l.n && rc == 0; i++) {
        if (already_read(o, l.v[i].path, l.v[i].bias))
            continue;
        tf_error why;
        int r = tf_elf_objects_read_file(o, l.v[i].path, l.v[i].bias, &why);
        if (r == 0)
            continue;
        if (i == 0) {   /* the executable itself */
            rc = tf_fail(err, why.code, "%s", why.msg);
        } else {
            nskipped++;   /* e.g. the vDSO, which has no file */
        }
    }
    for (size_t i = 0; i < l.n; i++)
        free(l.v[i].path);
    free(l.v);
    if (skipped)
        *skipped = nskipped;
    return rc;
}

/* How many earlier-starting objects tf_elf_objects_find examines. */
#define TF_ELF_OVERLAP_LOOKBACK 64

const tf_elf_object *tf_elf_objects_find(const tf_elf_objects *o, uint64_t addr)
{
    size_t lo = 0, hi = o->nobjects;
    while (lo < hi) {   /* first object starting after addr */
        size_t mid = lo + (hi - lo) / 2;
        if (o->objects[mid].start <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* Symbols can overlap (aliases, a struct and its members exported
     * separately): look back over a few that start earlier and may still
     * cover addr; the nearest covering one wins. */
    for (size_t i = lo; i-- > 0 && lo - i <= TF_ELF_OVERLAP_LOOKBACK;) {
        const tf_elf_object *ob = &o->objects[i];
        if (addr - ob->start < ob->size)
            return ob;
    }
    return NULL;
}
