/* SPDX-License-Identifier: BSD-3-Clause */
/* Back-end set-up from sysfs PMU descriptions (a fixture tree written by
 * the test in the kernel's format, Documentation/ABI/testing/
 * sysfs-bus-event_source-devices-format and -events), and the probe, on
 * the fixture and on this machine. */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "record/mem/mem_backend.h"
#include "record/mem/sysfs_pmu.h"
#include "formats/trace.h"

static char root[256];   /* short: paths below it fit in PATH_MAX */

/* Writes root/rel (creating its directories) with text. */
static void put_file(const char *rel, const char *text)
{
    char path[PATH_MAX];
    assert_true(strlen(rel) < 256);
    snprintf(path, sizeof path, "%s/%.255s", root, rel);
    for (char *s = strchr(path + strlen(root) + 1, '/'); s; s = strchr(s + 1, '/')) {
        *s = '\0';
        if (mkdir(path, 0755) != 0 && errno != EEXIST)
            fail_msg("mkdir %s: %s", path, strerror(errno));
        *s = '/';
    }
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "%s\n", text);
    fclose(f);
}

static int make_fixture(void **state)
{
    snprintf(root, sizeof root, "%s/tf-pmu-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(root))
        return -1;
    /* An Intel core PMU as the kernel describes it. */
    put_file("cpu/type", "4");
    put_file("cpu/format/event", "config:0-7");
    put_file("cpu/format/umask", "config:8-15");
    put_file("cpu/format/any", "config:21");
    put_file("cpu/format/ldlat", "config1:0-15");
    put_file("cpu/format/wide", "config:0-3,32-35");
    put_file("cpu/events/mem-loads", "event=0xcd,umask=0x1,ldlat=3");
    put_file("cpu/events/mem-stores", "event=0xd0,umask=0x82");
    put_file("cpu/events/with-flag", "event=0x3c,any");
    put_file("cpu/events/wide-one", "wide=0xab");
    put_file("cpu/events/too-wide", "wide=0x1ab");
    put_file("cpu/events/bad-value", "event=zz");
    /* An AMD IBS op PMU. */
    put_file("ibs_op/type", "11");
    return 0;
}

static int remove_fixture(void **state)
{
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    return system(cmd) == 0 ? 0 : -1;
}

static void test_sysfs_encode(void **state)
{
    struct perf_event_attr a = { 0 };
    tf_error err;
    uint32_t type;
    assert_int_equal(tf_sysfs_pmu_type(root, "ibs_op", &type, &err), 0);
    assert_int_equal(type, 11);

    assert_int_equal(tf_sysfs_pmu_encode(root, "cpu", "mem-loads", NULL, 0, &a, &err), 0);
    assert_int_equal(a.type, 4);
    assert_int_equal(a.config, 0x01cd);
    assert_int_equal(a.config1, 3);
    /* The threshold overridden. */
    assert_int_equal(tf_sysfs_pmu_encode(root, "cpu", "mem-loads", "ldlat", 30, &a, &err), 0);
    assert_int_equal(a.config1, 30);
    /* Added when the event does not name it. */
    assert_int_equal(tf_sysfs_pmu_encode(root, "cpu", "mem-stores", "ldlat", 7, &a, &err), 0);
    assert_int_equal(a.config, 0x82d0);
    assert_int_equal(a.config1, 7);
    /* A bare term is a flag; split ranges take the value's bits in order. */
    assert_int_equal(tf_sysfs_pmu_encode(root, "cpu", "with-flag", NULL, 0, &a, &err), 0);
    assert_int_equal(a.config, 0x3c | (1u << 21));
    assert_int_equal(tf_sysfs_pmu_encode(root, "cpu", "wide-one", NULL, 0, &a, &err), 0);
    assert_int_equal(a.config, 0xbull | (0xaull << 32));
    /* Errors name the file. */
    assert_int_equal(tf_sysfs_pmu_encode(root, "cpu", "too-wide", NULL, 0, &a, &err),
                     -TF_ERR_USAGE);
    assert_non_null(strstr(err.msg, "format/wide"));
    assert_int_equal(tf_sysfs_pmu_encode(root, "cpu", "bad-value", NULL, 0, &a, &err),
                     -TF_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "events/bad-value"));
    assert_int_equal(tf_sysfs_pmu_encode(root, "cpu", "no-such-event", NULL, 0, &a, &err),
                     -TF_ERR_NOTFOUND);
    assert_true(tf_sysfs_pmu_has_event(root, "cpu", "mem-loads"));
    assert_false(tf_sysfs_pmu_has_event(root, "cpu", "mem-loads-aux"));
}

/* The memory-sampling attributes every hardware event must carry. */
static void check_sampling(const struct perf_event_attr *a, uint64_t period)
{
    const uint64_t need = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                          PERF_SAMPLE_ADDR | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC;
    assert_int_equal(a->sample_type & need, need);
    assert_int_equal(a->sample_period, period);
    assert_true(a->use_clockid);
    assert_int_equal(a->clockid, CLOCK_MONOTONIC);
    assert_true(a->exclude_kernel);
}

static void test_pebs_events(void **state)
{
    tf_mem_config c;
    tf_mem_config_default(&c);
    c.sysfs = root;
    c.ldlat = 50;
    tf_mem_events ev;
    tf_error err;
    assert_int_equal(tf_mem_pebs_events(&c, &ev, &err), 0);
    assert_int_equal(ev.nevents, 2);
    const struct perf_event_attr *ld = &ev.attr[0], *st = &ev.attr[1];
    assert_int_equal(ev.kind[0], TF_SAMPLE_LOAD);
    assert_int_equal(ev.kind[1], TF_SAMPLE_STORE);
    check_sampling(ld, c.load_period);
    check_sampling(st, c.store_period);
    assert_int_equal(ld->precise_ip, 2);
    assert_int_equal(st->precise_ip, 2);
    /* The threshold is in config1 whichever source encoded the event. */
    assert_int_equal(ld->config1, 50);
    if (strncmp(ev.origin[0], "sysfs", 5) == 0) {
        assert_int_equal(ld->type, 4);
        assert_int_equal(ld->config, 0x01cd);
        assert_int_equal(st->config, 0x82d0);
    } else {
        assert_string_equal(ev.origin[0], "libpfm4 MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=50");
    }

    /* With mem-loads-aux exported, loads go in a group it leads. */
    put_file("cpu/events/mem-loads-aux", "event=0x03,umask=0x82");
    assert_int_equal(tf_mem_pebs_events(&c, &ev, &err), 0);
    assert_int_equal(ev.nevents, 3);
    assert_false(ev.sampling[0]);
    assert_int_equal(ev.attr[0].config, 0x8203);
    assert_int_equal(ev.leader[1], 0);
    assert_int_equal(ev.kind[1], TF_SAMPLE_LOAD);
    assert_int_equal(ev.leader[2], -1);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/cpu/events/mem-loads-aux", root);
    unlink(path);

    /* No core PMU at all. */
    c.sysfs = "/nonexistent";
    assert_int_equal(tf_mem_pebs_events(&c, &ev, &err), -TF_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.msg, "no core PMU"));
}

static void test_ibs_events(void **state)
{
    tf_mem_config c;
    tf_mem_config_default(&c);
    c.sysfs = root;
    tf_mem_events ev;
    tf_error err;
    assert_int_equal(tf_mem_ibs_events(&c, &ev, &err), 0);
    assert_int_equal(ev.nevents, 1);
    assert_int_equal(ev.attr[0].type, 11);
    check_sampling(&ev.attr[0], c.ibs_period);
    c.ibs_period = 1000;   /* not a multiple of 16 */
    assert_int_equal(tf_mem_ibs_events(&c, &ev, &err), -TF_ERR_USAGE);
}

/* On the fixture the encodings exist but this machine cannot open them
 * unless it really has that PMU with that type: the probe must say why. */
static void test_probe_fixture(void **state)
{
    tf_mem_config c;
    tf_mem_config_default(&c);
    c.sysfs = root;
    tf_mem_probe p;
    tf_mem_events ev;
    tf_error err;
    assert_int_equal(tf_mem_probe_backend(&c, TF_MEM_AUTO, &p, &ev, &err), 0);
    print_message("# fixture probe: %s: %s\n", tf_mem_backend_name(p.backend), p.reason);
    if (p.backend == TF_MEM_SOFTWARE) {
        assert_non_null(strstr(p.reason, "pebs unavailable: perf_event_open("));
        assert_non_null(strstr(p.reason, "ibs unavailable: perf_event_open("));
        assert_int_equal(ev.nevents, 0);
    }
    assert_int_equal(tf_mem_probe_backend(&c, TF_MEM_SOFTWARE, &p, NULL, &err), 0);
    assert_int_equal(p.backend, TF_MEM_SOFTWARE);
}

/* This machine: the choice must agree with what sysfs exposes. */
static void test_probe_here(void **state)
{
    tf_mem_config c;
    tf_mem_config_default(&c);
    tf_mem_probe p;
    tf_error err;
    assert_int_equal(tf_mem_probe_backend(&c, TF_MEM_AUTO, &p, NULL, &err), 0);
    print_message("# this machine: %s: %s\n", tf_mem_backend_name(p.backend), p.reason);
    bool core = access(TF_SYSFS_PMU_ROOT "/cpu/type", R_OK) == 0;
    bool ibs = access(TF_SYSFS_PMU_ROOT "/ibs_op/type", R_OK) == 0;
    if (!core)
        assert_int_not_equal(p.backend, TF_MEM_PEBS);
    if (!ibs)
        assert_int_not_equal(p.backend, TF_MEM_IBS);
    if (!core && !ibs) {
        assert_int_equal(p.backend, TF_MEM_SOFTWARE);
        assert_non_null(strstr(p.reason, "no core PMU"));
        assert_int_equal(tf_mem_probe_backend(&c, TF_MEM_PEBS, &p, NULL, &err),
                         -TF_ERR_UNSUPPORTED);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sysfs_encode),
        cmocka_unit_test(test_pebs_events),
        cmocka_unit_test(test_ibs_events),
        cmocka_unit_test(test_probe_fixture),
        cmocka_unit_test(test_probe_here),
    };
    return cmocka_run_group_tests(tests, make_fixture, remove_fixture);
}
