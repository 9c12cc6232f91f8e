/* SPDX-License-Identifier: BSD-3-Clause */
/* Symbolisation against tests/analysis/symbolize_target, built with debug
 * information and stripped of it: function, file and line, the frames of
 * an always_inline function, the ELF-symbol-table and module+offset
 * fallbacks, the trace's own ranges first, lookup by build-id under a
 * debug directory, and the cache.  Addresses come from the binary's symbol
 * table and from its DWARF inlined-subroutine entries (read here with
 * libdw's DIE walk, independent of the scope lookup under test); expected
 * lines from markers in the target's source. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "extract/symbolize.h"
#include "target_layout.h"

static char target[4096], stripped[4096], source[4096];

/* Where the test maps the target: a PIE gets this base, as the kernel would
 * give it; an ET_EXEC stays at its link address. */
#define PIE_BASE 0x555555554000ull

struct target_info {
    uint64_t base;               /* load bias */
    tf_sym_module module;
    uint64_t outer, outer_size;  /* tf_target_outer's entry and size */
    uint64_t inlined;            /* entry of an inlined tf_target_kernel */
    char build_id[128];
};

static uint32_t marker_line(const char *marker)
{
    FILE *f = fopen(source, "r");
    assert_non_null(f);
    char line[512];
    uint32_t n = 0, found = 0;
    while (!found && fgets(line, sizeof line, f)) {
        n++;
        if (strstr(line, marker))
            found = n;
    }
    fclose(f);
    assert_true(found > 0);
    return found;
}

/* The first inlined-subroutine DIE whose origin is named name, below die. */
static bool find_inlined(Dwarf_Die *die, const char *name, Dwarf_Addr *entry)
{
    Dwarf_Die child;
    if (dwarf_child(die, &child) != 0)
        return false;
    do {
        if (dwarf_tag(&child) == DW_TAG_inlined_subroutine) {
            Dwarf_Attribute attr;
            const char *n = dwarf_formstring(dwarf_attr_integrate(&child, DW_AT_name, &attr));
            if (n && !strcmp(n, name) && dwarf_entrypc(&child, entry) == 0)
                return true;
        }
        if (find_inlined(&child, name, entry))
            return true;
    } while (dwarf_siblingof(&child, &child) == 0);
    return false;
}

static void inspect(const char *path, struct target_info *t)
{
    memset(t, 0, sizeof *t);
    fx_target_layout layout;
    assert_int_equal(fx_target_layout_read(path, PIE_BASE, &layout), 0);
    t->base = layout.base;
    t->module = (tf_sym_module){ layout.start, layout.end, 0, path, "" };
    t->outer = layout.outer;
    t->outer_size = layout.outer_size;
    elf_version(EV_CURRENT);
    int fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
    assert_non_null(elf);
    const void *id;
    ssize_t idlen = dwelf_elf_gnu_build_id(elf, &id);
    for (ssize_t i = 0; i < idlen && 2 * (size_t)i + 2 < sizeof t->build_id; i++)
        snprintf(t->build_id + 2 * i, 3, "%02x", ((const unsigned char *)id)[i]);
    Dwarf *dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
    if (dw) {
        Dwarf_Off off = 0, next;
        size_t hsize;
        while (!t->inlined && dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
            Dwarf_Die cu;
            Dwarf_Addr entry;
            if (dwarf_offdie(dw, off + hsize, &cu) && find_inlined(&cu, "tf_target_kernel", &entry))
                t->inlined = t->base + entry;
            off = next;
        }
        dwarf_end(dw);
    }
    elf_end(elf);
    close(fd);
    assert_true(t->outer != 0);
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

static void check_debug_location(tf_symbolizer *s, const struct target_info *t)
{
    const tf_sym_location *loc;
    /* the entry may already be inlined code: the outermost frame is outer */
    assert_int_equal(tf_symbolize(s, t->outer, false, &loc, NULL), 0);
    assert_int_equal(loc->source, TF_SYM_DWARF);
    assert_string_equal(loc->frames[loc->nframes - 1].function, "tf_target_outer");
    /* and some instruction of it is outer's own code, on one of its lines */
    bool own_code = false;
    for (uint64_t ip = t->outer; ip < t->outer + t->outer_size && !own_code; ip++) {
        assert_int_equal(tf_symbolize(s, ip, false, &loc, NULL), 0);
        if (loc->nframes != 1)
            continue;
        own_code = true;
        assert_string_equal(loc->frames[0].function, "tf_target_outer");
        assert_true(ends_with(loc->frames[0].file, "symbolize_target.c"));
        assert_true(loc->frames[0].line >= marker_line("outer-begin") - 1 &&
                    loc->frames[0].line <= marker_line("outer-end"));
    }
    assert_true(own_code);

    assert_true(t->inlined != 0);
    assert_int_equal(tf_symbolize(s, t->inlined, false, &loc, NULL), 0);
    assert_int_equal(loc->source, TF_SYM_DWARF);
    assert_true(loc->nframes >= 2);
    assert_string_equal(loc->frames[0].function, "tf_target_kernel");
    assert_true(loc->frames[0].line >= marker_line("kernel-begin") - 1 &&
                loc->frames[0].line <= marker_line("kernel-end"));
    assert_string_equal(loc->frames[1].function, "tf_target_outer");
    assert_int_equal(loc->frames[1].line, marker_line("call-kernel"));
    assert_true(ends_with(loc->frames[1].file, "symbolize_target.c"));
}

static void with_debug_info(void **state)
{
    struct target_info t;
    inspect(target, &t);
    tf_symbolizer *s;
    assert_int_equal(tf_symbolizer_create(&s, &t.module, 1, NULL, 0, NULL, NULL), 0);
    check_debug_location(s, &t);
    /* the cache: the same addresses again resolve to the same entries */
    size_t distinct = tf_symbolizer_distinct(s);
    const tf_sym_location *a, *b;
    assert_int_equal(tf_symbolize(s, t.outer, false, &a, NULL), 0);
    assert_int_equal(tf_symbolize(s, t.outer, false, &b, NULL), 0);
    assert_ptr_equal(a, b);
    assert_int_equal(tf_symbolizer_distinct(s), distinct);
    /* a return address right after the entry is looked up one byte back */
    assert_int_equal(tf_symbolize(s, t.outer + 1, true, &b, NULL), 0);
    assert_ptr_equal(a, b);
    char label[256];
    tf_sym_location_label(a, label, sizeof label);
    assert_non_null(strstr(label, "symbolize_target.c:"));
    tf_symbolizer_free(s);
}

static void without_debug_info(void **state)
{
    struct target_info t, dbg;
    inspect(target, &dbg);
    inspect(stripped, &t);
    assert_int_equal(t.inlined, 0);
    tf_symbolizer *s;
    assert_int_equal(tf_symbolizer_create(&s, &t.module, 1, NULL, 0, NULL, NULL), 0);
    const tf_sym_location *loc;
    assert_int_equal(tf_symbolize(s, t.outer, false, &loc, NULL), 0);
    assert_int_equal(loc->source, TF_SYM_ELF);
    assert_string_equal(loc->frames[0].function, "tf_target_outer");
    assert_int_equal(loc->frames[0].line, 0);
    /* the inlined body belongs to the function it was inlined into */
    assert_int_equal(tf_symbolize(s, dbg.inlined - dbg.base + t.base, false, &loc, NULL), 0);
    assert_int_equal(loc->source, TF_SYM_ELF);
    assert_string_equal(loc->frames[0].function, "tf_target_outer");
    tf_symbolizer_free(s);
}

/* A symboliser over the target and a library whose binary is gone, mapped
 * at 0x7f0000000000 from its file offset 0x2000. */
static tf_symbolizer *with_gone_library(const struct target_info *t, const tf_sym_range *ranges,
                                        size_t nranges)
{
    tf_sym_module mods[2] = { t->module,
                              { 0x7f0000000000ull, 0x7f0000010000ull, 0x2000,
                                "/nonexistent/libgone.so", "" } };
    tf_symbolizer *s;
    assert_int_equal(tf_symbolizer_create(&s, mods, 2, ranges, nranges, NULL, NULL), 0);
    return s;
}

static void module_offset_and_ranges(void **state)
{
    struct target_info t;
    inspect(target, &t);
    tf_sym_range range = { t.outer, t.outer + 4, "hand_named", "hand.c", 7 };
    tf_symbolizer *s = with_gone_library(&t, &range, 1);
    const tf_sym_location *loc;
    assert_int_equal(tf_symbolize(s, 0x7f0000000010ull, false, &loc, NULL), 0);
    assert_int_equal(loc->source, TF_SYM_MODULE);
    char label[256];
    tf_sym_location_label(loc, label, sizeof label);
    assert_string_equal(label, "libgone.so+0x2010");
    assert_int_equal(tf_symbolize(s, 0x10, false, &loc, NULL), 0);
    assert_int_equal(loc->source, TF_SYM_NONE);
    /* the trace's ranges come before the debug information */
    assert_int_equal(tf_symbolize(s, t.outer, false, &loc, NULL), 0);
    assert_int_equal(loc->source, TF_SYM_TABLE);
    assert_string_equal(loc->frames[0].function, "hand_named");
    assert_int_equal(loc->frames[0].line, 7);
    tf_symbolizer_free(s);
}

/* The code around an address, read from the mapped file: the bytes at the
 * same file offset, clipped to the mapping; none from a missing binary. */
static void code_bytes(void **state)
{
    struct target_info t;
    inspect(target, &t);
    tf_symbolizer *s = with_gone_library(&t, NULL, 0);
    uint8_t got[80], want[80];
    uint64_t start;
    size_t len;
    assert_int_equal(tf_symbolizer_code(s, t.outer, 16, 64, got, &start, &len, NULL), 0);
    assert_int_equal(start, t.outer - 16);
    assert_int_equal(len, 80);
    FILE *f = fopen(target, "rb");
    assert_non_null(f);
    assert_int_equal(fseek(f, (long)(start - t.module.start), SEEK_SET), 0);
    assert_int_equal(fread(want, 1, sizeof want, f), sizeof want);
    fclose(f);
    assert_memory_equal(got, want, sizeof want);
    /* clipped at the mapping's start */
    assert_int_equal(tf_symbolizer_code(s, t.module.start + 4, 16, 64, got, &start, &len, NULL),
                     0);
    assert_int_equal(start, t.module.start);
    assert_int_equal(len, 68);
    /* a binary that is gone, and an address in no module */
    assert_int_equal(tf_symbolizer_code(s, 0x7f0000000010ull, 16, 64, got, &start, &len, NULL),
                     0);
    assert_int_equal(len, 0);
    assert_int_equal(tf_symbolizer_code(s, 0x10, 16, 64, got, &start, &len, NULL), 0);
    assert_int_equal(len, 0);
    tf_symbolizer_free(s);
    /* the file at the path is not the binary recorded (another build-id):
     * its code is not read, and with the right build-id it is */
    if (!t.build_id[0])
        skip();
    tf_sym_module rebuilt = t.module;
    rebuilt.build_id = "00112233445566778899aabbccddeeff00112233";
    assert_int_equal(tf_symbolizer_create(&s, &rebuilt, 1, NULL, 0, NULL, NULL), 0);
    assert_int_equal(tf_symbolizer_code(s, t.outer, 16, 64, got, &start, &len, NULL), 0);
    assert_int_equal(len, 0);
    tf_symbolizer_free(s);
    rebuilt.build_id = t.build_id;
    assert_int_equal(tf_symbolizer_create(&s, &rebuilt, 1, NULL, 0, NULL, NULL), 0);
    assert_int_equal(tf_symbolizer_code(s, t.outer, 16, 64, got, &start, &len, NULL), 0);
    assert_int_equal(len, 80);
    tf_symbolizer_free(s);
}

static void debug_dir_by_build_id(void **state)
{
    struct target_info t;
    inspect(target, &t);
    if (!t.build_id[0])
        skip();
    char dir[] = "/tmp/tf-symdir-XXXXXX", sub[256], link[512];
    assert_non_null(mkdtemp(dir));
    snprintf(sub, sizeof sub, "%s/.build-id", dir);
    assert_int_equal(mkdir(sub, 0700), 0);
    snprintf(sub, sizeof sub, "%s/.build-id/%.2s", dir, t.build_id);
    assert_int_equal(mkdir(sub, 0700), 0);
    snprintf(link, sizeof link, "%s/%s", sub, t.build_id + 2);
    assert_int_equal(symlink(target, link), 0);
    tf_sym_module m = t.module;
    m.path = "/nonexistent/recorded-elsewhere/symbolize_target";
    m.build_id = t.build_id;
    tf_symbolizer *s;
    assert_int_equal(tf_symbolizer_create(&s, &m, 1, NULL, 0, dir, NULL), 0);
    check_debug_location(s, &t);
    /* the code is read from the binary found by build-id too */
    uint8_t code[16];
    uint64_t start;
    size_t len;
    assert_int_equal(tf_symbolizer_code(s, t.outer, 0, sizeof code, code, &start, &len, NULL), 0);
    assert_int_equal(len, sizeof code);
    tf_symbolizer_free(s);
    unlink(link);
    rmdir(sub);
    snprintf(sub, sizeof sub, "%s/.build-id", dir);
    rmdir(sub);
    rmdir(dir);
}

int main(void)
{
    const char *src = getenv("top_srcdir"), *bld = getenv("top_builddir");
    snprintf(target, sizeof target, "%s/tests/analysis/symbolize_target", bld ? bld : ".");
    snprintf(stripped, sizeof stripped, "%s/tests/analysis/symbolize_target_nodebug",
             bld ? bld : ".");
    snprintf(source, sizeof source, "%s/tests/analysis/symbolize_target.c", src ? src : ".");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(with_debug_info),
        cmocka_unit_test(without_debug_info),
        cmocka_unit_test(module_offset_and_ranges),
        cmocka_unit_test(code_bytes),
        cmocka_unit_test(debug_dir_by_build_id),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
