/* SPDX-License-Identifier: BSD-3-Clause */
/* Samples in the recorder's code moved to the program's call of it
 * (recorder_code.h). */
#include "recorder_code.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf_file.h"

bool tf_recorder_file(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    return !strncmp(base, "libtracefold", 12) && strstr(base, ".so") != NULL;
}

/* The compilers' names for a procedure PROC of module MOD:
 *   gfortran __MOD_MOD_PROC (and PROC's clones: __MOD_MOD_PROC.constprop.0);
 *   Intel ifort/ifx MOD_mp_PROC_;  LLVM flang _QMMODPPROC;  NAG MOD_MP_PROC;
 *   NVIDIA nvfortran MOD_PROC_;  Cray ftn PROC$MOD_.
 * The last two need PROC's own name: every procedure of tracefold.f90,
 * private ones included, is named tracefold_*. */
bool tf_recorder_symbol(const char *name)
{
    static const char *const prefixes[] = {
        "__tracefold_MOD_", "tracefold_mp_", "_QMtracefoldP", "tracefold_MP_",
        "tracefold_tracefold_",
    };
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
            return true;
    size_t n = strlen(name);
    return !strncmp(name, "tracefold_", 10) && n > 11 && !strcmp(name + n - 11, "$tracefold_");
}

/* A binary holding some of the Fortran module's procedures, kept open
 * while the processes that map it are looked at (each process puts it at
 * its own load bias). */
struct wrapper_file {
    const char *path;
    int fd;
    Elf *elf;      /* NULL: no procedures of the module, or not readable */
    size_t n;
    struct { uint64_t value, size; } sym[TF_RECORDER_CODE_MAX];
};

/* The module's procedures in f's symbol table (.symtab, else .dynsym). */
static void find_procedures(struct wrapper_file *f)
{
    Elf_Scn *scn = NULL, *table = NULL;
    GElf_Shdr sh, table_sh = { 0 };
    while ((scn = elf_nextscn(f->elf, scn)) != NULL) {
        if (!gelf_getshdr(scn, &sh))
            continue;
        if (sh.sh_type == SHT_SYMTAB || (sh.sh_type == SHT_DYNSYM && !table)) {
            table = scn;
            table_sh = sh;
        }
    }
    Elf_Data *data = table ? elf_getdata(table, NULL) : NULL;
    if (!data || table_sh.sh_entsize == 0)
        return;
    size_t count = table_sh.sh_size / table_sh.sh_entsize;
    for (size_t i = 0; i < count && f->n < TF_RECORDER_CODE_MAX; i++) {
        GElf_Sym sym;
        if (!gelf_getsym(data, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
            sym.st_shndx == SHN_UNDEF || sym.st_size == 0)
            continue;
        const char *name = elf_strptr(f->elf, table_sh.sh_link, sym.st_name);
        if (name && tf_recorder_symbol(name)) {
            f->sym[f->n].value = sym.st_value;
            f->sym[f->n].size = sym.st_size;
            f->n++;
        }
    }
}

/* Opens module m's file and looks for the module's procedures; the file
 * stays open only when it has some. */
static void wrapper_file_open(struct wrapper_file *f, const char *path, const char *build_id)
{
    *f = (struct wrapper_file){ .path = path, .fd = -1 };
    if (path[0] != '/' || (f->fd = open(path, O_RDONLY)) < 0)
        return;
    f->elf = elf_begin(f->fd, ELF_C_READ, NULL);
    if (f->elf && (!build_id[0] || tf_elf_build_id_is(f->elf, build_id)))
        find_procedures(f);
    if (f->n == 0) {
        if (f->elf)
            elf_end(f->elf);
        f->elf = NULL;
        close(f->fd);
        f->fd = -1;
    }
}

static void add_range(tf_recorder_code *code, uint64_t start, uint64_t end)
{
    if (code->n < TF_RECORDER_CODE_MAX) {
        code->range[code->n].start = start;
        code->range[code->n].end = end;
        code->n++;
    }
}

static int by_start(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return (a > b) - (a < b);
}

/* Sorted, with ranges that touch or overlap made one: the module's
 * procedures are usually next to each other in the program's text. */
static void merge_ranges(tf_recorder_code *code)
{
    qsort(code->range, code->n, sizeof code->range[0], by_start);
    size_t out = 0;
    for (size_t i = 0; i < code->n; i++) {
        if (out && code->range[i].start <= code->range[out - 1].end) {
            if (code->range[i].end > code->range[out - 1].end)
                code->range[out - 1].end = code->range[i].end;
        } else {
            code->range[out++] = code->range[i];
        }
    }
    code->n = out;
}

static struct wrapper_file *file_of(struct wrapper_file **files, size_t *nfiles, size_t *cap,
                                    const char *path, const char *build_id)
{
    for (size_t i = 0; i < *nfiles; i++)
        if (!strcmp((*files)[i].path, path))
            return &(*files)[i];
    if (*nfiles == *cap) {
        size_t bigger = *cap ? 2 * *cap : 16;
        struct wrapper_file *grown = realloc(*files, bigger * sizeof *grown);
        if (!grown)
            return NULL;
        *files = grown;
        *cap = bigger;
    }
    struct wrapper_file *f = &(*files)[(*nfiles)++];
    wrapper_file_open(f, path, build_id);
    return f;
}

void tf_recorder_code_find(const tf_trace *tr, tf_recorder_code *code)
{
    elf_version(EV_CURRENT);
    struct wrapper_file *files = NULL;
    size_t nfiles = 0, cap = 0;
    uint32_t np = tf_trace_nprocesses(tr);
    for (uint32_t p = 0; p < np; p++) {
        const tf_process *pr = tf_trace_process(tr, p);
        code[p].n = 0;
        const char *previous = "";
        for (size_t m = 0; m < pr->nmodules; m++) {
            const tf_module *mod = &pr->modules[m];
            const char *path = tf_trace_string(tr, mod->path);
            if (tf_recorder_file(path)) {
                add_range(&code[p], mod->start, mod->end);
                continue;
            }
            /* a file's mappings follow each other; its first gives the bias */
            if (!path[0] || !strcmp(path, previous))
                continue;
            previous = path;
            const struct wrapper_file *f =
                file_of(&files, &nfiles, &cap, path, tf_trace_string(tr, mod->build_id));
            if (!f || !f->elf)
                continue;
            uint64_t bias = tf_elf_load_bias(f->elf, mod->start, mod->end, mod->offset);
            for (size_t s = 0; s < f->n; s++)
                add_range(&code[p], f->sym[s].value + bias, f->sym[s].value + bias + f->sym[s].size);
        }
        merge_ranges(&code[p]);
    }
    for (size_t i = 0; i < nfiles; i++)
        if (files[i].elf) {
            elf_end(files[i].elf);
            close(files[i].fd);
        }
    free(files);
}

bool tf_recorder_code_has(const tf_recorder_code *code, uint64_t ip)
{
    for (size_t i = 0; i < code->n; i++)
        if (ip >= code->range[i].start && ip < code->range[i].end)
            return true;
    return false;
}

/* The first frame of s's stack outside the recorder, as the address of
 * its call instruction, or 0.  frames[0] is the sample's own ip. */
static uint64_t caller_outside(const tf_recorder_code *code, const uint64_t *frames, size_t n)
{
    for (size_t f = 1; f < n; f++)
        if (frames[f] && !tf_recorder_code_has(code, frames[f]))
            return frames[f] - 1;
    return 0;
}

int tf_recorder_code_skip(tf_trace *tr, uint32_t proc, uint32_t thread,
                          const tf_recorder_code *code, tf_sample *s, size_t n, tf_error *err)
{
    if (code->n == 0)
        return 0;
    uint64_t *frames = NULL;
    size_t have = 0;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (!s[i].ip || !tf_recorder_code_has(code, s[i].ip))
            continue;
        size_t len = s[i].stack_len;
        if (len > have) {
            uint64_t *bigger = realloc(frames, len * sizeof *frames);
            if (!bigger) {
                rc = tf_fail(err, TF_ERR_NOMEM, "out of memory for a call stack");
                break;
            }
            frames = bigger;
            have = len;
        }
        if (len > 0)
            rc = tf_trace_read_frames(tr, proc, thread, s[i].stack, len, frames, err);
        if (rc == 0)
            s[i].ip = caller_outside(code, frames, len);
    }
    free(frames);
    return rc;
}
