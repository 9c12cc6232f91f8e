/* SPDX-License-Identifier: BSD-3-Clause */
/* Functions by the name written in the source, for --region: the ELF symbol
 * tables (.symtab, else .dynsym) of every module loaded in the process
 * (dl_iterate_phdr), read from the files with <elf.h> alone, since libelf
 * has no place in the application's process (design.md).  A name matches
 *   - a C symbol of that name;
 *   - a C++ function whose demangled name, without its parameter list, is
 *     that name (every overload), or with it when the name has one; the
 *     demangler is libstdc++'s __cxa_demangle, looked up at run time: a
 *     program with C++ symbols has libstdc++ loaded, and a C program does
 *     not pull it in;
 *   - a Fortran procedure as written: gfortran lowercases and appends an
 *     underscore (solve -> solve_), module procedures are __MOD_MOD_PROC
 *     (mod::solve -> __mod_MOD_solve; plain solve finds them in any module).
 * Runs at start, before the program's main: allocation is fine here. */
#include "config.h"

#include <ctype.h>
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tf_regions.h"

typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);

/* The candidates the "close names" hint keeps. */
#define NEAR_MAX 5

struct search {
    const char *query;
    char lower[256];              /* Fortran spelling: lowercase */
    char mod_form[300];           /* mod::proc -> __mod_MOD_proc, "" if not of that form */
    char proc_suffix[264];        /* _MOD_proc for a plain name, "" otherwise */
    demangle_fn demangle;
    uint64_t *addrs, *sizes;      /* sizes may be NULL */
    unsigned max, n;
    bool overflow;
    bool exe_stripped;            /* the program has no .symtab */
    bool in_exe;                  /* the file searched now is the program */
    char near[NEAR_MAX][128];
    unsigned near_dist[NEAR_MAX];
};

/* The demangled name's function part: up to the parameter list's '(' at
 * template depth 0 (so "ns::C::f(int) const" gives "ns::C::f"). */
static size_t name_part(const char *d)
{
    int depth = 0;
    for (size_t i = 0; d[i]; i++) {
        if (d[i] == '<')
            depth++;
        else if (d[i] == '>' && depth > 0)
            depth--;
        else if (d[i] == '(' && depth == 0 && i > 0)
            return i;
    }
    return strlen(d);
}

/* Edit distance, bounded to keep the hint cheap on long names. */
static unsigned distance(const char *a, size_t la, const char *b, size_t lb)
{
    if (la > 64 || lb > 64)
        return 1000;
    unsigned row[65];
    for (size_t j = 0; j <= lb; j++)
        row[j] = (unsigned)j;
    for (size_t i = 1; i <= la; i++) {
        unsigned diag = row[0];
        row[0] = (unsigned)i;
        for (size_t j = 1; j <= lb; j++) {
            unsigned up = row[j];
            unsigned best = diag + (tolower((unsigned char)a[i - 1]) !=
                                    tolower((unsigned char)b[j - 1]));
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

static void consider_near(struct search *s, const char *name, size_t len)
{
    size_t ql = strlen(s->query);
    unsigned d = distance(s->query, ql, name, len);
    /* A name that contains the query (solve in solve_jacobi) is close too. */
    if (d > 2 + ql / 3) {
        if (len < ql || !memmem(name, len, s->query, ql))
            return;
        d = 2 + ql / 3;
    }
    /* The program's own names before its libraries' (brk, ftok). */
    d = 2 * d + !s->in_exe;
    unsigned worst = 0;
    for (unsigned i = 0; i < NEAR_MAX; i++) {
        if (s->near[i][0] && strlen(s->near[i]) == len && !strncmp(s->near[i], name, len))
            return;
        /* An empty place first, else the farthest name kept. */
        if (!s->near[worst][0])
            continue;
        if (!s->near[i][0] || s->near_dist[i] > s->near_dist[worst])
            worst = i;
    }
    if (s->near[worst][0] && s->near_dist[worst] <= d)
        return;
    snprintf(s->near[worst], sizeof s->near[worst], "%.*s", (int)len, name);
    s->near_dist[worst] = d;
}

static void add_match(struct search *s, uint64_t addr, uint64_t size)
{
    for (unsigned i = 0; i < s->n; i++)
        if (s->addrs[i] == addr)
            return;
    if (s->n == s->max) {
        s->overflow = true;
        return;
    }
    if (s->sizes)
        s->sizes[s->n] = size;
    s->addrs[s->n++] = addr;
}

static void match_symbol(struct search *s, const char *sym, uint64_t addr, uint64_t size)
{
    if (!strcmp(sym, s->query) || (s->lower[0] && !strcmp(sym, s->lower)) ||
        (s->mod_form[0] && !strcmp(sym, s->mod_form))) {
        add_match(s, addr, size);
        return;
    }
    size_t sl = strlen(sym), ll = strlen(s->lower);
    if (sl == ll + 1 && sym[ll] == '_' && !strncmp(sym, s->lower, ll)) {
        add_match(s, addr, size);
        return;
    }
    if (s->proc_suffix[0] && !strncmp(sym, "__", 2) && sl > strlen(s->proc_suffix) &&
        !strcmp(sym + sl - strlen(s->proc_suffix), s->proc_suffix)) {
        add_match(s, addr, size);
        return;
    }
    if (!strncmp(sym, "_Z", 2) && s->demangle) {
        int status = 0;
        char *d = s->demangle(sym, NULL, NULL, &status);
        if (d && !status) {
            bool with_params = strchr(s->query, '(') != NULL;
            size_t np = with_params ? strlen(d) : name_part(d);
            if (np == strlen(s->query) && !strncmp(d, s->query, np))
                add_match(s, addr, size);
            else
                consider_near(s, d, name_part(d));
        }
        free(d);
        return;
    }
    consider_near(s, sym, sl);
}

typedef void (*symbol_visit)(void *ctx, const Elf64_Sym *sym, const char *name);

/* Calls visit for each symbol of one ELF file's .symtab (with_symtab),
 * else its .dynsym; names are checked to end within the string table.
 * Returns whether the file has a .symtab. */
static bool each_symbol(const char *path, bool with_symtab, symbol_visit visit, void *ctx)
{
    bool has_symtab = false;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    struct stat st;
    void *map = MAP_FAILED;
    if (!fstat(fd, &st) && (size_t)st.st_size >= sizeof(Elf64_Ehdr))
        map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED)
        return false;
    size_t size = (size_t)st.st_size;
    const unsigned char *base = map;
    const Elf64_Ehdr *eh = map;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shoff > size ||
        (size - eh->e_shoff) / sizeof(Elf64_Shdr) < eh->e_shnum)
        goto done;
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(base + eh->e_shoff);
    /* .symtab holds every function, .dynsym only the exported ones. */
    const Elf64_Shdr *table = NULL;
    for (unsigned i = 0; i < eh->e_shnum; i++)
        if (sh[i].sh_type == SHT_SYMTAB)
            table = &sh[i];
    has_symtab = table != NULL;
    if (!table || !with_symtab) {
        table = NULL;
        for (unsigned i = 0; i < eh->e_shnum; i++)
            if (sh[i].sh_type == SHT_DYNSYM)
                table = &sh[i];
    }
    if (!table || table->sh_link >= eh->e_shnum || table->sh_offset > size ||
        table->sh_size > size - table->sh_offset)
        goto done;
    const Elf64_Shdr *strs = &sh[table->sh_link];
    if (strs->sh_offset > size || strs->sh_size > size - strs->sh_offset || !strs->sh_size)
        goto done;
    const char *str = (const char *)base + strs->sh_offset;
    const Elf64_Sym *sym = (const Elf64_Sym *)(base + table->sh_offset);
    size_t nsym = table->sh_size / sizeof *sym;
    for (size_t i = 0; i < nsym; i++) {
        if (sym[i].st_name >= strs->sh_size)
            continue;
        const char *name = str + sym[i].st_name;
        if (memchr(name, '\0', strs->sh_size - sym[i].st_name))
            visit(ctx, &sym[i], name);
    }
done:
    munmap(map, size);
    return has_symtab;
}

struct file_search {
    struct search *s;
    uint64_t bias;
};

static void visit_function(void *ctx, const Elf64_Sym *sym, const char *name)
{
    struct file_search *f = ctx;
    unsigned type = ELF64_ST_TYPE(sym->st_info);
    if ((type == STT_FUNC || type == STT_GNU_IFUNC) && sym->st_shndx != SHN_UNDEF &&
        sym->st_value)
        match_symbol(f->s, name, f->bias + sym->st_value, sym->st_size);
}

/* The functions of one ELF file, at bias + st_value. */
static void search_file(struct search *s, const char *path, uint64_t bias, bool is_exe)
{
    struct file_search f = { s, bias };
    if (!each_symbol(path, true, visit_function, &f) && is_exe)
        s->exe_stripped = true;
}

static int each_module(struct dl_phdr_info *info, size_t size, void *ctx)
{
    (void)size;
    struct search *s = ctx;
    const char *name = info->dlpi_name;
    bool is_exe = !name || !*name;
    /* The vDSO has no file; the recorder's own functions are not the
     * program's. */
    if (!is_exe && (strstr(name, "linux-vdso") || strstr(name, "libtracefold")))
        return 0;
    s->in_exe = is_exe;
    search_file(s, is_exe ? "/proc/self/exe" : name, info->dlpi_addr, is_exe);
    return 0;
}

struct import_search {
    const char *name;
    bool found;
};

static void visit_import(void *ctx, const Elf64_Sym *sym, const char *name)
{
    struct import_search *q = ctx;
    if (sym->st_shndx == SHN_UNDEF && !strcmp(name, q->name))
        q->found = true;
}

bool tf_symbols_program_imports(const char *name)
{
    struct import_search q = { name, false };
    (void)each_symbol("/proc/self/exe", false, visit_import, &q);
    return q.found;
}

int tf_symbols_find(const char *query, uint64_t *addrs, uint64_t *sizes, unsigned max,
                    unsigned *n, tf_error *err)
{
    struct search *s = calloc(1, sizeof *s);
    if (!s)
        return tf_fail(err, TF_ERR_NOMEM, "--region %s: out of memory", query);
    s->query = query;
    s->addrs = addrs;
    s->sizes = sizes;
    s->max = max;
    s->n = *n;
    s->demangle = (demangle_fn)dlsym(RTLD_DEFAULT, "__cxa_demangle");
    const char *sep = strstr(query, "::");
    size_t ql = strlen(query);
    if (ql < sizeof s->lower && !strchr(query, '(')) {
        for (size_t i = 0; i <= ql; i++)
            s->lower[i] = (char)tolower((unsigned char)query[i]);
        if (sep && !strstr(sep + 2, "::"))
            snprintf(s->mod_form, sizeof s->mod_form, "__%.*s_MOD_%s", (int)(sep - query),
                     s->lower, s->lower + (sep - query) + 2);
        else if (!sep)
            snprintf(s->proc_suffix, sizeof s->proc_suffix, "_MOD_%s", s->lower);
    }
    unsigned before = s->n;
    dl_iterate_phdr(each_module, s);
    int rc = 0;
    if (s->overflow) {
        rc = tf_fail(err, TF_ERR_USAGE, "--region %s: more than %u functions of that name "
                     "(give the signature, e.g. %s(int), to choose an overload)",
                     query, max, query);
    } else if (s->n == before) {
        char hint[NEAR_MAX * 130] = "";
        for (unsigned i = 0; i < NEAR_MAX; i++) {
            if (!s->near[i][0])
                continue;
            size_t len = strlen(hint);
            snprintf(hint + len, sizeof hint - len, "%s%s", len ? ", " : "", s->near[i]);
        }
        rc = tf_fail(err, TF_ERR_NOTFOUND,
                     "--region %s: no function of that name in the program or its libraries%s%s"
                     "%s", query, hint[0] ? "; close names: " : "", hint,
                     s->exe_stripped ? "; the program is stripped (no .symtab): only its "
                                       "exported functions can be named, rebuild it without -s "
                                       "or strip" : "");
    }
    *n = s->n;
    free(s);
    return rc;
}
