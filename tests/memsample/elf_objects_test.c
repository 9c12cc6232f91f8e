/* SPDX-License-Identifier: BSD-3-Clause */
/* Static data objects of this test program (built as a PIE on Debian, so
 * its symbols are relocated by the load bias) and of the C library. */
#include <limits.h>
#include <link.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "record/writer/elf_objects.h"

/* Arrays of known sizes: .bss global, .bss file-local, .data, .rodata.
 * Referenced from main so that the linker keeps them. */
double tf_test_global_array[1000];
static char tf_test_local_array[12345];
int tf_test_data_array[7] = { 1, 2, 3, 4, 5, 6, 7 };
const uint16_t tf_test_rodata_array[33] = { 9 };

static const tf_elf_object *find_name(const tf_elf_objects *o, const char *name)
{
    for (size_t i = 0; i < o->nobjects; i++)
        if (strcmp(o->objects[i].name, name) == 0)
            return &o->objects[i];
    return NULL;
}

typedef struct known {
    int         line;
    const char *name;
    const void *addr;
    size_t      size;
} known;

static void check_known(const tf_elf_objects *o, const known *k)
{
    const tf_elf_object *ob = find_name(o, k->name);
    if (!ob)
        fail_msg("line %d: %s not found", k->line, k->name);
    if (ob->start != (uint64_t)(uintptr_t)k->addr || ob->size != k->size)
        fail_msg("line %d: %s at %#llx size %llu, expected %p size %zu", k->line, k->name,
                 (unsigned long long)ob->start, (unsigned long long)ob->size, k->addr, k->size);
    /* Any address inside maps back to it. */
    const tf_elf_object *in = tf_elf_objects_find(o, ob->start + k->size - 1);
    if (in != ob)
        fail_msg("line %d: last byte of %s maps to %s", k->line, k->name, in ? in->name : "-");
}

static void test_self_objects(void **state)
{
    const known arrays[] = {
        { __LINE__, "tf_test_global_array", tf_test_global_array, sizeof tf_test_global_array },
        { __LINE__, "tf_test_local_array", tf_test_local_array, sizeof tf_test_local_array },
        { __LINE__, "tf_test_data_array", tf_test_data_array, sizeof tf_test_data_array },
        { __LINE__, "tf_test_rodata_array", tf_test_rodata_array,
          sizeof tf_test_rodata_array },
    };
    tf_elf_objects o;
    tf_elf_objects_init(&o, 1);
    tf_error err;
    size_t skipped;
    assert_int_equal(tf_elf_objects_read_self(&o, &skipped, &err), 0);
    print_message("# %zu objects in %zu modules, %zu modules unreadable\n", o.nobjects,
                  o.nmodules, skipped);
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
        check_known(&o, &arrays[i]);
    assert_true(o.nmodules >= 2);   /* the executable and at least libc */
    /* The C library's stdout, from its .dynsym; the program itself uses a
     * copy in its own .bss (copy relocation), named stdout@... there. */
    const tf_elf_object *libc_stdout = find_name(&o, "stdout");
    assert_non_null(libc_stdout);
    assert_int_not_equal(libc_stdout->module, 0);
    const tf_elf_object *used = tf_elf_objects_find(&o, (uint64_t)(uintptr_t)&stdout);
    assert_non_null(used);
    assert_int_equal(strncmp(used->name, "stdout", 6), 0);
    for (size_t i = 1; i < o.nobjects; i++)
        assert_true(o.objects[i - 1].start <= o.objects[i].start);

    /* Reading again adds nothing: modules already read are skipped. */
    size_t n = o.nobjects, m = o.nmodules;
    assert_int_equal(tf_elf_objects_read_self(&o, NULL, &err), 0);
    assert_int_equal(o.nobjects, n);
    assert_int_equal(o.nmodules, m);
    assert_null(tf_elf_objects_find(&o, 0));
    tf_elf_objects_free(&o);
}

static int main_bias(struct dl_phdr_info *info, size_t size, void *data)
{
    *(uint64_t *)data = info->dlpi_addr;
    return 1;   /* the first entry is the executable */
}

/* The same file read with bias 0 gives link-time addresses: run-time
 * address minus the load bias. */
static void test_bias(void **state)
{
    uint64_t bias = 0;
    dl_iterate_phdr(main_bias, &bias);
    tf_elf_objects o;
    tf_elf_objects_init(&o, 1);
    tf_error err;
    assert_int_equal(tf_elf_objects_read_file(&o, "/proc/self/exe", 0, &err), 0);
    const tf_elf_object *ob = find_name(&o, "tf_test_global_array");
    assert_non_null(ob);
    assert_int_equal(ob->start + bias, (uint64_t)(uintptr_t)tf_test_global_array);
    tf_elf_objects_free(&o);
}

/* The bias found from /proc/self/maps (what the writer process sees)
 * equals the loader's, for the executable and the C library. */
typedef struct loaded {
    char     path[PATH_MAX];
    uint64_t bias;
} loaded;

static int list_loaded(struct dl_phdr_info *info, size_t size, void *data)
{
    loaded *v = data;
    for (int i = 0; i < 8; i++)
        if (!v[i].path[0]) {
            snprintf(v[i].path, sizeof v[i].path, "%s",
                     info->dlpi_name[0] ? info->dlpi_name : "/proc/self/exe");
            v[i].bias = info->dlpi_addr;
            return 0;
        }
    return 1;
}

static void test_bias_from_maps(void **state)
{
    loaded mods[8] = { { "", 0 } };
    dl_iterate_phdr(list_loaded, mods);
    char exe[512];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    assert_true(n > 0);
    exe[n] = '\0';
    snprintf(mods[0].path, sizeof mods[0].path, "%s", exe);
    /* maps shows resolved paths (/lib -> /usr/lib on merged-/usr systems). */
    for (int i = 1; i < 8; i++) {
        char real[PATH_MAX];
        if (mods[i].path[0] && realpath(mods[i].path, real))
            memcpy(mods[i].path, real, sizeof real);
    }
    /* The lowest mapping of each module (maps lists them in address order). */
    uint64_t lowest[8] = { 0 };
    FILE *maps = fopen("/proc/self/maps", "r");
    assert_non_null(maps);
    char line[1024];
    while (fgets(line, sizeof line, maps)) {
        unsigned long long start, end, offset;
        char path[512] = "";
        if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %511s", &start, &end, &offset, path) < 3)
            continue;
        for (int i = 0; i < 8; i++)
            if (mods[i].path[0] && strcmp(mods[i].path, path) == 0 && !lowest[i])
                lowest[i] = start;
    }
    fclose(maps);
    int checked = 0;
    for (int i = 0; i < 8; i++) {
        if (!lowest[i])
            continue;   /* the vDSO: no file */
        uint64_t bias;
        tf_error err;
        assert_int_equal(tf_elf_load_bias(mods[i].path, lowest[i], &bias, &err), 0);
        if (bias != mods[i].bias)
            fail_msg("%s lowest mapping %#llx: bias %#llx, loader says %#llx", mods[i].path,
                     (unsigned long long)lowest[i], (unsigned long long)bias,
                     (unsigned long long)mods[i].bias);
        checked++;
    }
    print_message("# %d modules checked\n", checked);
    assert_true(checked >= 2);   /* the executable and libc */
}

static void test_min_size_and_errors(void **state)
{
    tf_elf_objects o;
    tf_elf_objects_init(&o, 10000);
    tf_error err;
    assert_int_equal(tf_elf_objects_read_file(&o, "/proc/self/exe", 0, &err), 0);
    assert_non_null(find_name(&o, "tf_test_local_array"));      /* 12345 bytes */
    assert_null(find_name(&o, "tf_test_global_array"));         /* 8000 bytes */
    assert_null(find_name(&o, "tf_test_data_array"));
    assert_int_equal(tf_elf_objects_read_file(&o, "/nonexistent/lib.so", 0, &err),
                     -TF_ERR_NOTFOUND);
    assert_non_null(strstr(err.msg, "/nonexistent/lib.so"));
    assert_int_equal(tf_elf_objects_read_file(&o, "/proc/self/status", 0, &err),
                     -TF_ERR_FORMAT);
    tf_elf_objects_free(&o);
}

int main(void)
{
    tf_test_local_array[0] = (char)tf_test_rodata_array[0];
    tf_test_global_array[0] = tf_test_data_array[0];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_self_objects),
        cmocka_unit_test(test_bias),
        cmocka_unit_test(test_bias_from_maps),
        cmocka_unit_test(test_min_size_and_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
