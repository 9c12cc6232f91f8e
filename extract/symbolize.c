/* SPDX-License-Identifier: BSD-3-Clause */
/* Symbolisation with elfutils: each binary of the modules table is reported
 * to an offline libdwfl session at its load bias, so that libdwfl finds the
 * separate debug files (by build-id, in the debug directory or the system's
 * /usr/lib/debug) and libdw answers the line and inline-scope queries.
 * Results are cached per address in an open-addressing hash table: cost
 * grows with the distinct addresses, not with the samples. */
#include "symbolize.h"

#include <dwarf.h>
#include <errno.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/elf_file.h"

struct sym_entry {
    uint64_t        ip;          /* the looked-up address; 0: empty slot */
    tf_sym_location loc;
};

struct tf_symbolizer {
    Dwfl           *dwfl;
    Dwfl_Callbacks  callbacks;   /* libdwfl keeps a pointer to it */
    char           *debuginfo_path;
    char           *debug_dir;   /* NULL when none */
    tf_sym_module  *modules;     /* sorted by start */
    size_t          nmodules;
    char          **code_files;  /* per module: the binary its code is read from,
                                    "" when none, NULL until looked up */
    tf_sym_range   *ranges;      /* sorted by start */
    size_t          nranges;
    struct sym_entry *table;
    size_t          cap, count;
};

/* First slots of the location cache (a power of 2; it doubles at half
 * full): small, because the analysis of a run holds one symboliser per
 * process, and a process's folded samples touch a few dozen addresses. */
#define SYM_CACHE_START 64

static const tf_sym_frame unknown_frame = { "", "", 0, 0, "" };

static int by_module_start(const void *pa, const void *pb)
{
    const tf_sym_module *p = pa, *q = pb;
    return (p->start > q->start) - (p->start < q->start);
}

static int by_range_start(const void *pa, const void *pb)
{
    const tf_sym_range *p = pa, *q = pb;
    return (p->start > q->start) - (p->start < q->start);
}

/* The file to open for a module: its path when readable, else the binary
 * named by its build-id under debug_dir (DIR/.build-id/xx/rest). */
static char *module_file(const tf_sym_module *m, const char *debug_dir)
{
    if (m->path && m->path[0] == '/' && access(m->path, R_OK) == 0)
        return strdup(m->path);
    if (!debug_dir || !m->build_id || strlen(m->build_id) < 3)
        return NULL;
    char *p = NULL;
    if (asprintf(&p, "%s/.build-id/%.2s/%s", debug_dir, m->build_id, m->build_id + 2) < 0)
        return NULL;
    if (access(p, R_OK) == 0)
        return p;
    free(p);
    return NULL;
}

/* True when file's GNU build-id note is the lowercase hex `want`. */
static bool build_id_is(const char *file, const char *want)
{
    int fd = open(file, O_RDONLY);
    if (fd < 0)
        return false;
    Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
    bool same = elf && tf_elf_build_id_is(elf, want);
    if (elf)
        elf_end(elf);
    close(fd);
    return same;
}

/* The binary to read m's code from: module_file's, provided its build-id
 * is the recorded one when one was recorded (a binary rebuilt since would
 * give another loop's code); else the one under debug_dir by build-id.
 * "" when none. */
static char *code_file(const tf_sym_module *m, const char *debug_dir)
{
    char *file = module_file(m, debug_dir);
    if (file && m->build_id && m->build_id[0] && !build_id_is(file, m->build_id)) {
        free(file);
        tf_sym_module by_id = *m;
        by_id.path = NULL;
        file = module_file(&by_id, debug_dir);
        if (file && !build_id_is(file, m->build_id)) {
            free(file);
            file = NULL;
        }
    }
    return file ? file : strdup("");
}

/* The load bias of the file mapped as m (elf_file.h); 0 on failure. */
static uint64_t load_bias(const char *file, const tf_sym_module *m)
{
    int fd = open(file, O_RDONLY);
    if (fd < 0)
        return 0;
    Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
    uint64_t bias = elf ? tf_elf_load_bias(elf, m->start, m->end, m->offset) : 0;
    if (elf)
        elf_end(elf);
    close(fd);
    return bias;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* Reports every file-backed module once, from its lowest mapping. */
static void report_modules(tf_symbolizer *s, const char *debug_dir)
{
    dwfl_report_begin(s->dwfl);
    for (size_t i = 0; i < s->nmodules; i++) {
        const tf_sym_module *m = &s->modules[i];
        if (!m->path || !m->path[0] || m->path[0] == '[')
            continue;
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = s->modules[j].path && !strcmp(s->modules[j].path, m->path);
        if (seen)
            continue;
        char *file = module_file(m, debug_dir);
        if (!file)
            continue;
        /* a module libdwfl cannot load stays in the table: module+offset */
        dwfl_report_elf(s->dwfl, base_name(m->path), file, -1, load_bias(file, m), true);
        free(file);
    }
    dwfl_report_end(s->dwfl, NULL, NULL);
}

int tf_symbolizer_create(tf_symbolizer **out, const tf_sym_module *modules, size_t nmodules,
                         const tf_sym_range *ranges, size_t nranges, const char *debug_dir,
                         tf_error *err)
{
    *out = NULL;
    tf_symbolizer *s = calloc(1, sizeof *s);
    if (!s)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for the symboliser");
    s->cap = SYM_CACHE_START;
    s->table = calloc(s->cap, sizeof *s->table);
    s->modules = malloc((nmodules + 1) * sizeof *s->modules);
    s->ranges = malloc((nranges + 1) * sizeof *s->ranges);
    /* '-': no CRC check of .gnu_debuglink files (build-ids validate them) */
    if (asprintf(&s->debuginfo_path, "-:.debug:%s%s/usr/lib/debug", debug_dir ? debug_dir : "",
                 debug_dir ? ":" : "") < 0)
        s->debuginfo_path = NULL;
    s->debug_dir = debug_dir ? strdup(debug_dir) : NULL;
    s->code_files = calloc(nmodules + 1, sizeof *s->code_files);
    if (!s->table || !s->modules || !s->ranges || !s->debuginfo_path || !s->code_files ||
        (debug_dir && !s->debug_dir)) {
        tf_symbolizer_free(s);
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for the symboliser");
    }
    if (nmodules)
        memcpy(s->modules, modules, nmodules * sizeof *modules);
    s->nmodules = nmodules;
    qsort(s->modules, nmodules, sizeof *s->modules, by_module_start);
    if (nranges)
        memcpy(s->ranges, ranges, nranges * sizeof *ranges);
    s->nranges = nranges;
    qsort(s->ranges, nranges, sizeof *s->ranges, by_range_start);
    s->callbacks = (Dwfl_Callbacks){
        .find_elf = dwfl_build_id_find_elf,
        .find_debuginfo = dwfl_standard_find_debuginfo,
        .section_address = dwfl_offline_section_address,
        .debuginfo_path = &s->debuginfo_path,
    };
    elf_version(EV_CURRENT);
    s->dwfl = dwfl_begin(&s->callbacks);
    if (!s->dwfl) {
        tf_symbolizer_free(s);
        return tf_fail(err, TF_ERR_INTERNAL, "libdwfl: %s", dwfl_errmsg(-1));
    }
    report_modules(s, debug_dir);
    *out = s;
    return 0;
}

int tf_symbolizer_for_process(tf_symbolizer **out, const tf_trace *tr, uint32_t proc,
                              const char *debug_dir, tf_error *err)
{
    const tf_process *p = tf_trace_process(tr, proc);
    if (!p)
        return tf_fail(err, TF_ERR_USAGE, "%s: no process %u", tf_trace_path(tr), proc);
    tf_sym_module *m = malloc((p->nmodules + 1) * sizeof *m);
    tf_sym_range *r = malloc((p->nsymbols + 1) * sizeof *r);
    if (!m || !r) {
        free(m);
        free(r);
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for the symboliser");
    }
    for (size_t i = 0; i < p->nmodules; i++)
        m[i] = (tf_sym_module){ p->modules[i].start, p->modules[i].end, p->modules[i].offset,
                                tf_trace_string(tr, p->modules[i].path),
                                tf_trace_string(tr, p->modules[i].build_id) };
    for (size_t i = 0; i < p->nsymbols; i++)
        r[i] = (tf_sym_range){ p->symbols[i].start, p->symbols[i].end,
                               tf_trace_string(tr, p->symbols[i].function),
                               tf_trace_string(tr, p->symbols[i].file), p->symbols[i].line };
    int rc = tf_symbolizer_create(out, m, p->nmodules, r, p->nsymbols, debug_dir, err);
    free(m);
    free(r);
    return rc;
}

static const tf_sym_module *find_module(const tf_symbolizer *s, uint64_t ip)
{
    size_t lo = 0, hi = s->nmodules;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->modules[mid].start <= ip)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo && ip < s->modules[lo - 1].end ? &s->modules[lo - 1] : NULL;
}

static const tf_sym_range *find_range(const tf_symbolizer *s, uint64_t ip)
{
    size_t lo = 0, hi = s->nranges;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->ranges[mid].start <= ip)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo && ip < s->ranges[lo - 1].end ? &s->ranges[lo - 1] : NULL;
}

static const char *die_name(Dwarf_Die *die)
{
    Dwarf_Attribute attr;
    /* the source name; the linkage name only for unnamed (rare) scopes */
    const char *name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attr));
    if (!name)
        name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
    return name ? name : "";
}

static const char *die_linkage_name(Dwarf_Die *die)
{
    Dwarf_Attribute attr;
    /* through DW_AT_abstract_origin and DW_AT_specification: an inlined
     * member function has it on its declaration */
    const char *name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
    return name ? name : "";
}

/* The call site (file, line, column) of an inlined subroutine DIE. */
static void call_site(Dwarf_Die *cudie, Dwarf_Die *inlined, tf_sym_frame *f)
{
    Dwarf_Attribute attr;
    Dwarf_Word file = 0, line = 0, column = 0;
    if (dwarf_formudata(dwarf_attr(inlined, DW_AT_call_line, &attr), &line) == 0)
        f->line = (uint32_t)line;
    if (dwarf_formudata(dwarf_attr(inlined, DW_AT_call_column, &attr), &column) == 0)
        f->column = (uint32_t)column;
    Dwarf_Files *files;
    size_t nfiles;
    if (dwarf_formudata(dwarf_attr(inlined, DW_AT_call_file, &attr), &file) == 0 &&
        dwarf_getsrcfiles(cudie, &files, &nfiles) == 0 && file < nfiles) {
        const char *name = dwarf_filesrc(files, file, NULL, NULL);
        f->file = name ? name : "";
    }
}

/* The inlined subroutines around pc inside subprogram sub, through its
 * lexical blocks, and sub: the function scopes innermost first, as
 * dwarf_getscopes_die gives them; their number, 0 without memory. */
static int inlined_chain(Dwarf_Die *sub, Dwarf_Addr pc, Dwarf_Die **out)
{
    size_t n = 0, cap = 4;
    Dwarf_Die *v = malloc(cap * sizeof *v), cur = *sub, child;
    if (!v)
        return 0;
    v[n++] = *sub;
    bool deeper = true;
    while (deeper && dwarf_child(&cur, &child) == 0) {
        deeper = false;
        do {
            int tag = dwarf_tag(&child);
            if ((tag != DW_TAG_inlined_subroutine && tag != DW_TAG_lexical_block) ||
                dwarf_haspc(&child, pc) <= 0)
                continue;
            if (tag == DW_TAG_inlined_subroutine) {
                if (n == cap) {
                    Dwarf_Die *g = realloc(v, 2 * cap * sizeof *v);
                    if (!g) {
                        free(v);
                        return 0;
                    }
                    v = g;
                    cap *= 2;
                }
                v[n++] = child;
            }
            cur = child;
            deeper = true;
            break;
        } while (dwarf_siblingof(&child, &child) == 0);
    }
    for (size_t i = 0; i < n / 2; i++) {
        Dwarf_Die t = v[i];
        v[i] = v[n - 1 - i];
        v[n - 1 - i] = t;
    }
    *out = v;
    return (int)n;
}

/* The function scopes around pc in a procedure of a Fortran module:
 * gfortran nests them in the module's DW_TAG_module, where
 * dwarf_getscopes (elfutils 0.188) does not look, so without this a
 * module procedure had its ELF symbol's linkage name
 * (__jacobi_kernels_MOD_jacobi_sweep) and no inlined frames. */
static int module_scopes(Dwarf_Die *cudie, Dwarf_Addr pc, Dwarf_Die **out)
{
    Dwarf_Die mod, die;
    if (dwarf_child(cudie, &mod) != 0)
        return 0;
    do {
        if (dwarf_tag(&mod) != DW_TAG_module || dwarf_child(&mod, &die) != 0)
            continue;
        do {
            if (dwarf_tag(&die) == DW_TAG_subprogram && dwarf_haspc(&die, pc) > 0)
                return inlined_chain(&die, pc, out);
        } while (dwarf_siblingof(&die, &die) == 0);
    } while (dwarf_siblingof(&mod, &mod) == 0);
    return 0;
}

/* Frames from the DWARF scopes around ip (innermost first).  Returns the
 * number of frames, 0 when the module has no debug information for ip. */
static uint32_t dwarf_frames(Dwfl_Module *mod, uint64_t ip, tf_sym_frame **out)
{
    Dwarf_Addr bias;
    Dwarf_Die *cudie = dwfl_module_addrdie(mod, ip, &bias);
    if (!cudie)
        return 0;
    tf_sym_frame first = unknown_frame;
    Dwfl_Line *line = dwfl_module_getsrc(mod, ip);
    if (line) {
        int lineno = 0, column = 0;
        const char *file = dwfl_lineinfo(line, NULL, &lineno, &column, NULL, NULL);
        first.file = file ? file : "";
        first.line = lineno > 0 ? (uint32_t)lineno : 0;
        first.column = lineno > 0 && column > 0 ? (uint32_t)column : 0;
    }
    /* dwarf_getscopes gives the innermost function scope; past an inlined
     * one it continues with the abstract definition's scopes, so the
     * concrete chain of callers comes from dwarf_getscopes_die on it */
    Dwarf_Die *scopes = NULL, *chain = NULL;
    int nscopes = dwarf_getscopes(cudie, ip - bias, &scopes), nchain = 0;
    for (int i = 0; i < nscopes && !nchain; i++) {
        int tag = dwarf_tag(&scopes[i]);
        if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine)
            nchain = dwarf_getscopes_die(&scopes[i], &chain);
    }
    free(scopes);
    if (nchain <= 0)
        nchain = module_scopes(cudie, ip - bias, &chain);
    uint32_t nf = 0;
    tf_sym_frame *f = malloc(((nchain > 0 ? (size_t)nchain : 0) + 1) * sizeof *f);
    if (!f) {
        free(chain);
        return 0;
    }
    f[0] = first;
    Dwarf_Die *inner = NULL;   /* the previous function scope, when inlined */
    for (int i = 0; i < nchain; i++) {
        int tag = dwarf_tag(&chain[i]);
        if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine)
            continue;
        if (nf) {
            f[nf] = unknown_frame;
            call_site(cudie, inner, &f[nf]);
        }
        f[nf].function = die_name(&chain[i]);
        f[nf].linkage = die_linkage_name(&chain[i]);
        inner = &chain[i];
        nf++;
        if (tag == DW_TAG_subprogram)
            break;
    }
    /* freeing the chain keeps the names: they point into the debug data */
    free(chain);
    if (!nf) {
        if (!first.line) {
            free(f);
            return 0;
        }
        nf = 1;   /* a line but no function scope: the caller names it */
    }
    *out = f;
    return nf;
}

static int resolve(tf_symbolizer *s, uint64_t ip, tf_sym_location *loc, tf_error *err)
{
    const tf_sym_module *m = find_module(s, ip);
    *loc = (tf_sym_location){ .source = TF_SYM_NONE, .nframes = 1, .frames = &unknown_frame,
                              .module = m && m->path ? m->path : "",
                              .module_offset = m ? ip - m->start + m->offset : 0 };
    tf_sym_frame *f = NULL;
    const tf_sym_range *r = find_range(s, ip);
    if (r) {
        if (!(f = malloc(sizeof *f)))
            return tf_fail(err, TF_ERR_NOMEM, "out of memory symbolising 0x%llx",
                           (unsigned long long)ip);
        *f = (tf_sym_frame){ r->function ? r->function : "", r->file ? r->file : "", r->line, 0, "" };
        loc->source = TF_SYM_TABLE;
        loc->frames = f;
        return 0;
    }
    Dwfl_Module *mod = dwfl_addrmodule(s->dwfl, ip);
    if (mod) {
        GElf_Off off;
        GElf_Sym sym;
        const char *symname = dwfl_module_addrinfo(mod, ip, &off, &sym, NULL, NULL, NULL);
        uint32_t nf = dwarf_frames(mod, ip, &f);
        if (nf) {
            if (!f[0].function[0] && symname)
                f[0].function = symname;
            if (!f[nf - 1].linkage[0] && symname)
                f[nf - 1].linkage = symname;
            loc->source = TF_SYM_DWARF;
            loc->nframes = nf;
            loc->frames = f;
            return 0;
        }
        if (symname) {
            if (!(f = malloc(sizeof *f)))
                return tf_fail(err, TF_ERR_NOMEM, "out of memory symbolising 0x%llx",
                               (unsigned long long)ip);
            *f = (tf_sym_frame){ symname, "", 0, 0, symname };
            loc->source = TF_SYM_ELF;
            loc->frames = f;
            return 0;
        }
    }
    if (m)
        loc->source = TF_SYM_MODULE;
    return 0;
}

static size_t slot_of(const tf_symbolizer *s, uint64_t ip)
{
    /* Fibonacci hashing spreads the addresses of nearby instructions */
    size_t i = (size_t)((ip * 0x9e3779b97f4a7c15ull) >> 20) & (s->cap - 1);
    while (s->table[i].ip && s->table[i].ip != ip)
        i = (i + 1) & (s->cap - 1);
    return i;
}

static int grow(tf_symbolizer *s, tf_error *err)
{
    struct sym_entry *old = s->table;
    size_t oldcap = s->cap;
    s->table = calloc(2 * oldcap, sizeof *s->table);
    if (!s->table) {
        s->table = old;
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for the symbol cache");
    }
    s->cap = 2 * oldcap;
    for (size_t i = 0; i < oldcap; i++)
        if (old[i].ip)
            s->table[slot_of(s, old[i].ip)] = old[i];
    free(old);
    return 0;
}

int tf_symbolize(tf_symbolizer *s, uint64_t ip, bool return_address, const tf_sym_location **loc,
                 tf_error *err)
{
    static const tf_sym_location nowhere = { TF_SYM_NONE, 1, &unknown_frame, "", 0 };
    if (return_address && ip)
        ip--;
    if (!ip) {
        *loc = &nowhere;
        return 0;
    }
    size_t i = slot_of(s, ip);
    if (!s->table[i].ip) {
        int rc;
        if (2 * (s->count + 1) > s->cap) {
            if ((rc = grow(s, err)))
                return rc;
            i = slot_of(s, ip);
        }
        if ((rc = resolve(s, ip, &s->table[i].loc, err)))
            return rc;
        s->table[i].ip = ip;
        s->count++;
    }
    *loc = &s->table[i].loc;
    return 0;
}

int tf_symbolizer_code(tf_symbolizer *s, uint64_t ip, size_t before, size_t after, uint8_t *buf,
                       uint64_t *start, size_t *len, tf_error *err)
{
    *start = ip;
    *len = 0;
    const tf_sym_module *m = find_module(s, ip);
    if (!m || !m->path || !m->path[0] || m->path[0] == '[')
        return 0;
    char **file = &s->code_files[m - s->modules];
    if (!*file && !(*file = code_file(m, s->debug_dir)))
        return tf_fail(err, TF_ERR_NOMEM, "out of memory reading the code of %s", m->path);
    int fd = (*file)[0] ? open(*file, O_RDONLY) : -1;
    if (fd < 0)
        return 0;
    uint64_t lo = ip - m->start >= before ? ip - before : m->start;
    uint64_t hi = m->end - ip > after ? ip + after : m->end;
    ssize_t got = pread(fd, buf, (size_t)(hi - lo), (off_t)(lo - m->start + m->offset));
    int e = errno;
    close(fd);
    if (got < 0)
        return tf_fail(err, TF_ERR_IO, "%s: reading the code at 0x%llx: %s", m->path,
                       (unsigned long long)ip, strerror(e));
    *start = lo;
    *len = (size_t)got;
    return 0;
}

size_t tf_symbolizer_distinct(const tf_symbolizer *s)
{
    return s->count;
}

void tf_symbolizer_free(tf_symbolizer *s)
{
    if (!s)
        return;
    for (size_t i = 0; s->table && i < s->cap; i++)
        if (s->table[i].ip && s->table[i].loc.frames != &unknown_frame)
            free((void *)s->table[i].loc.frames);
    free(s->table);
    if (s->dwfl)
        dwfl_end(s->dwfl);
    free(s->debuginfo_path);
    free(s->debug_dir);
    for (size_t i = 0; s->code_files && i < s->nmodules; i++)
        free(s->code_files[i]);
    free(s->code_files);
    free(s->modules);
    free(s->ranges);
    free(s);
}

bool tf_sym_frame_label(const tf_sym_frame *f, char *buf, size_t size)
{
    if (!f->line || !f->file[0])
        return false;
    if (f->column)
        snprintf(buf, size, "%s:%u:%u", base_name(f->file), f->line, f->column);
    else
        snprintf(buf, size, "%s:%u", base_name(f->file), f->line);
    return true;
}

void tf_sym_location_label(const tf_sym_location *loc, char *buf, size_t size)
{
    for (uint32_t i = 0; i < loc->nframes; i++)
        if (tf_sym_frame_label(&loc->frames[i], buf, size))
            return;
    if (loc->frames[0].function[0])
        snprintf(buf, size, "%s", loc->frames[0].function);
    else if (loc->module[0])
        snprintf(buf, size, "%s+0x%llx", base_name(loc->module),
                 (unsigned long long)loc->module_offset);
    else
        snprintf(buf, size, "?");
}
