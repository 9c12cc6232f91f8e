/* SPDX-License-Identifier: BSD-3-Clause */
/* Call sites through allocator layers.  Each return address of the stack
 * is symbolised with its inlined frames, and the frames are read from the
 * innermost out: the allocation's site is the first frame left when
 * allocators and forwarding helpers are skipped.  An allocator is known by
 * its name, by its namespace in the C++ ABI's mangling (Itanium C++ ABI,
 * 5.1 "External names"), or by living in a system library; a forwarding
 * helper by its body being in a header: a routine written in a header
 * (a template such as LULESH's Allocate<T>, an inline constructor) is
 * shared code whose caller is the site a reader recognises. */
#include "alloc_site.h"

#include <stdio.h>
#include <string.h>

#include "formats/recorder_code.h"

/* In order of preference: the first frame of the best class names the
 * object. */
enum frame_class {
    FRAME_PROGRAM,   /* the program's own code with a source line */
    FRAME_HELPER,    /* a routine in a header: names it when no program frame follows */
    FRAME_NO_LINE,   /* the program's, without debug information: by its routine */
    FRAME_ALLOCATOR, /* never names it */
};

bool tf_system_library(const char *path)
{
    static const char *const dirs[] = {"/lib/", "/lib32/", "/lib64/", "/libx32/", "/usr/lib/",
                                       "/usr/lib32/", "/usr/lib64/", "/usr/libx32/"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
        if (!strncmp(path, dirs[i], strlen(dirs[i])))
            return true;
    return tf_recorder_file(path);
}

/* name equals want, template arguments aside ("Allocate<double>" is
 * "Allocate"). */
static bool routine_is(const char *name, const char *want, size_t n)
{
    return !strncmp(name, want, n) && (name[n] == '\0' || name[n] == '<');
}

static bool same_routine(const char *name, const char *want)
{
    return routine_is(name, want, strlen(want));
}

/* f is the wrapper want[0..n): by its source name or its linkage name. */
static bool is_wrapper(const tf_sym_frame *f, const char *want, size_t n)
{
    return n && (routine_is(f->function, want, n) ||
                 (strlen(f->linkage) == n && !strncmp(f->linkage, want, n)));
}

/* f is one of the wrappers the user named: on the command line, or when
 * recording (the trace's comma-separated list, blanks around names
 * allowed as in the configuration file). */
static bool named_wrapper(const tf_sym_frame *f, const tf_alloc_rules *rules)
{
    if (!rules)
        return false;
    for (size_t i = 0; i < rules->nwrappers; i++)
        if (is_wrapper(f, rules->wrappers[i], strlen(rules->wrappers[i])))
            return true;
    for (const char *s = rules->recorded; s && *s;) {
        s += strspn(s, " \t");
        size_t n = strcspn(s, ","), len = n;
        while (len && strchr(" \t", s[len - 1]))
            len--;
        if (is_wrapper(f, s, len))
            return true;
        s += n + (s[n] == ',');
    }
    return false;
}

static bool allocator_name(const char *name)
{
    static const char *const names[] = {
        "malloc", "calloc", "realloc", "reallocarray", "posix_memalign", "aligned_alloc",
        "memalign", "valloc", "pvalloc", "mmap", "mmap64", "operator new", "operator new []",
        "operator new[]",
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (same_routine(name, names[i]))
            return true;
    /* the Fortran runtime's entry points (ALLOCATE of a derived type, the
     * intrinsics that allocate their result) */
    return !strncmp(name, "_gfortran_", 10) || !strncmp(name, "__libc_", 7);
}

/* A mangled name of operator new or new[] in any of its forms (_Znwm,
 * _Znam, _ZnwmSt11align_val_t, _ZnwmRKSt9nothrow_t, ...), or of a function
 * of namespace std (St, or the abbreviations Sa allocator, Sb
 * basic_string, Ss string) or __gnu_cxx: the standard library's
 * allocators and the containers that call them. */
static bool allocator_linkage(const char *m)
{
    if (strncmp(m, "_Z", 2))
        return false;
    m += 2;
    if (!strncmp(m, "nw", 2) || !strncmp(m, "na", 2))
        return true;
    if (*m == 'N')
        for (m++; *m && strchr("KVrRO", *m); m++)
            ;   /* cv- and ref-qualifiers of a member function */
    return !strncmp(m, "St", 2) || !strncmp(m, "Sa", 2) || !strncmp(m, "Sb", 2) ||
           !strncmp(m, "Ss", 2) || !strncmp(m, "9__gnu_cxx", 10);
}

/* A header by its name: .h, .hh, .hpp, .hxx, .h++, .inl, .tcc, .ipp, or no
 * extension at all (<vector>). */
static bool header_file(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    if (!dot)
        return true;
    static const char *const ext[] = {".h", ".hh", ".hpp", ".hxx", ".h++", ".inl", ".tcc", ".ipp"};
    for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++)
        if (!strcmp(dot, ext[i]))
            return true;
    return false;
}

static enum frame_class classify(const tf_sym_location *loc, const tf_sym_frame *f,
                                 const tf_alloc_rules *rules)
{
    if (allocator_name(f->function) || allocator_name(f->linkage) ||
        allocator_linkage(f->linkage) || allocator_linkage(f->function) ||
        tf_system_library(loc->module) || tf_recorder_symbol(f->linkage))
        return FRAME_ALLOCATOR;
    if (named_wrapper(f, rules))
        return FRAME_ALLOCATOR;
    if (!f->line || !f->file[0])
        return f->function[0] || f->linkage[0] ? FRAME_NO_LINE : FRAME_ALLOCATOR;
    return header_file(f->file) ? FRAME_HELPER : FRAME_PROGRAM;
}

int tf_alloc_site(tf_symbolizer *sym, const uint64_t *frames, uint32_t n,
                  const tf_alloc_rules *rules, char *site, size_t site_size, char *routine,
                  size_t routine_size, bool *found, tf_error *err)
{
    *found = false;
    enum frame_class best = FRAME_ALLOCATOR;
    for (uint32_t i = 0; i < n && best != FRAME_PROGRAM; i++) {
        const tf_sym_location *loc;
        if (tf_symbolize(sym, frames[i], true, &loc, err) < 0)
            return -1;
        for (uint32_t k = 0; k < loc->nframes && best != FRAME_PROGRAM; k++) {
            const tf_sym_frame *f = &loc->frames[k];
            enum frame_class c = classify(loc, f, rules);
            if (c >= best)
                continue;
            const char *name = f->function[0] ? f->function : f->linkage;
            if (!tf_sym_frame_label(f, site, site_size))
                snprintf(site, site_size, "%s", name);
            snprintf(routine, routine_size, "%s", name);
            best = c;
            *found = true;
        }
    }
    return 0;
}
