/* SPDX-License-Identifier: BSD-3-Clause */
/* `tracefold record`: runs a program with libtracefold preloaded and writes
 * its trace.  This part resolves the options (flag > environment >
 * configuration file > default), hands them to the program through
 * TRACEFOLD_* variables (so libxml2 never enters the program's process)
 * and starts it under the recorder (record/launch.h: the session, the
 * program's environment, then this process becomes tracefold-writer,
 * record_writer.c, which loads HDF5 while the program starts and drains
 * the session into one HDF5 trace per traced process until the program
 * and its children are done).  Nothing here needs more than the C
 * library: the configuration file is read by a module loaded only when
 * one is given. */
#include "config.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "locate.h"
#include "msg.h"
#include "common/tf_launcher.h"
#include "record/launch.h"
#include "record/tf_options.h"
#include "record/tf_session.h"

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: tracefold record [OPTIONS] [--] PROGRAM [ARGS...]\n"
            "Runs PROGRAM with the tracefold recorder preloaded and writes one HDF5 trace\n"
            "per process: regions and counters at every tracefold_region_begin/end,\n"
            "timer samples with instruction address, call stack and counters.\n\n"
            "Options (each also an environment variable and a <NAME> element of the\n"
            "configuration file; precedence: option > environment > file > default):\n"
            "  -c, --config FILE\n"
            "          XML configuration file [TRACEFOLD_CONFIG]\n"
            "  -o FILE  same as --output FILE\n");
    for (unsigned i = 0; i < tf_option_count; i++) {
        const tf_option_desc *d = &tf_option_table[i];
        if (!strcmp(d->name, "force")) {
            /* a flag, as in the other commands; --force=no undoes it */
            fprintf(out, "      --force\n          %s\n          [%s=yes; default no]\n",
                    d->help, d->env);
            continue;
        }
        fprintf(out, "      --%s VALUE\n          %s\n          [%s; default %s]\n", d->name,
                d->help, d->env, d->deflt);
    }
    fprintf(out,
            "      --library FILE\n"
            "          the libtracefold.so to preload [TRACEFOLD_LIBRARY]\n"
            "      --print-env\n"
            "          print the resolved options as TRACEFOLD_* variables and exit\n"
            "          (used by a linked program given a configuration file)\n"
            "      --writer DIR\n"
            "          internal: drain the session DIR (the helper a program linked with\n"
            "          libtracefold starts)\n"
            "  -q, --quiet  no message but errors, in this process and the program's\n"
            "          [TRACEFOLD_QUIET]\n"
            "  -h, --help   show this help and exit\n\n"
            "Exit status: the program's (128+N when killed by signal N); 1 when recording\n"
            "could not start (bad configuration, missing library, an output refused), or\n"
            "when a trace could not be written and the program exited 0; 2 wrong command\n"
            "line.\n"
            "See docs/recorder.md for the API, the mechanisms and their overhead.\n");
}

/* The recorder library: the one given, else libtracefold.so found. */
static int find_recorder(const char *given, char *buf, size_t size)
{
    if (given && *given) {
        snprintf(buf, size, "%s", given);
        return access(buf, R_OK);
    }
    return tf_locate(TF_PART_LIBRARY, "libtracefold.so", buf, size);
}

/* The configuration file is read by tracefold-config.so, the one part of
 * record that links libxml2 (with ICU and libstdc++, which every start
 * would pay for otherwise), loaded only when a file is given. */
typedef int (*config_load_fn)(const char *path, tf_options *o, tf_error *err);

static int load_config(const char *file, tf_options *o, tf_error *err)
{
    char path[PATH_MAX];
    if (tf_locate(TF_PART_MODULE, "tracefold-config.so", path, sizeof path))
        return tf_fail(err, TF_ERR_IO, "%s: cannot be read: tracefold-config.so is not "
                       "installed in %s", file, TF_PKGLIBDIR);
    void *module = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    config_load_fn load = module ? (config_load_fn)dlsym(module, "tf_config_load") : NULL;
    if (!load)
        return tf_fail(err, TF_ERR_IO, "%s: cannot be read: %s", file, dlerror());
    return load(file, o, err);
}

/* Started by an MPI launcher (Open MPI, or a PMI one such as MPICH's hydra):
 * libtracefold-mpi joins the preload when it was built (docs/recorder.md,
 * "MPI"), its path into lib, else "".  Other programs never load libmpi,
 * whatever mpi-calls says: it is on by default. */
static void find_mpi_layer(const tf_options *o, char *lib, size_t size)
{
    lib[0] = '\0';
    if (!tf_launcher_is_mpi())
        return;
    if (tf_locate(TF_PART_LIBRARY, "libtracefold-mpi.so", lib, size)) {
        lib[0] = '\0';
        if (o->mpi_calls)
            tf_msg_warn("an MPI launcher started this, but libtracefold-mpi.so was not built "
                        "(no MPI at configure time): MPI calls are not recorded");
    }
}

int tf_cmd_record(int argc, char **argv)
{
    tf_options opt, flags;
    tf_options_defaults(&opt);
    bool set[64] = {false};
    const char *config = getenv("TRACEFOLD_CONFIG"), *library = getenv("TRACEFOLD_LIBRARY");
    const char *writer_dir = NULL;
    bool print_env = false, quiet = tf_session_quiet_env();
    tf_error err;
    memset(&flags, 0, sizeof flags);
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) {
            i++;
            break;
        }
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return TF_EXIT_OK;
        }
        if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
            quiet = true;
            continue;
        }
        if (!strcmp(a, "--print-env")) {
            print_env = true;
            continue;
        }
        if (!strcmp(a, "--force")) {
            /* a flag without a value, as in the other commands */
            const tf_option_desc *force = tf_option_find("force");
            tf_option_set(&flags, force, "yes", NULL);
            set[force - tf_option_table] = true;
            continue;
        }
        /* Options with a value: --name VALUE or --name=VALUE. */
        const char *name = a[1] == '-' ? a + 2 : a + 1;
        const char *eq = strchr(name, '=');
        char key[64];
        snprintf(key, sizeof key, "%.*s", eq ? (int)(eq - name) : (int)strlen(name), name);
        const char *value = eq ? eq + 1 : (i + 1 < argc ? argv[i + 1] : NULL);
        const tf_option_desc *d = tf_option_find(key);
        bool known = d || !strcmp(key, "c") || !strcmp(key, "config") || !strcmp(key, "o") ||
                     !strcmp(key, "library") || !strcmp(key, "writer");
        if (!known || (a[1] != '-' && strlen(key) != 1))
            return tf_msg_usage("unknown option '%s'", a);
        if (!value)
            return tf_msg_usage("option '%s' needs a value", a);
        if (!eq)
            i++;
        if (!strcmp(key, "c") || !strcmp(key, "config"))
            config = value;
        else if (!strcmp(key, "library"))
            library = value;
        else if (!strcmp(key, "writer"))
            writer_dir = value;
        else {
            if (!d)
                d = tf_option_find("output");
            /* --region and --alloc-wrapper are repeatable: the names add up. */
            if (tf_option_add(&flags, d, value, set[d - tf_option_table], &err))
                return tf_msg_usage("option --%s", err.msg);
            set[d - tf_option_table] = true;
        }
    }
    /* Precedence: file, then environment, then the flags. */
    if (config && *config && load_config(config, &opt, &err)) {
        tf_msg_error("%s", err.msg);
        /* --print-env: a linked program asked, and it says what it does
         * next (runs on without recording). */
        if (!print_env)
            tf_msg_error("not starting: fix the configuration file");
        return TF_EXIT_FAILURE;
    }
    if (tf_options_from_env(&opt, &err))
        return tf_msg_fail(&err);
    for (unsigned k = 0; k < tf_option_count; k++) {
        if (!set[k])
            continue;
        char v[1100];
        tf_option_format(&flags, &tf_option_table[k], v, sizeof v);
        tf_option_set(&opt, &tf_option_table[k], v, NULL);
    }
    tf_msg_set_quiet(quiet);
    if (print_env) {
        for (unsigned k = 0; k < tf_option_count; k++) {
            char v[1100];
            tf_option_format(&opt, &tf_option_table[k], v, sizeof v);
            printf("%s=%s\n", tf_option_table[k].env, v);
        }
        return TF_EXIT_OK;
    }
    char writer[PATH_MAX];
    if (tf_locate(TF_PART_PROGRAM, "tracefold-writer", writer, sizeof writer)) {
        tf_msg_error("cannot find the trace writer tracefold-writer (installed in %s)",
                     TF_PKGLIBEXECDIR);
        return TF_EXIT_FAILURE;
    }
    if (writer_dir) {
        /* The helper of a linked program: the options it resolved, and the
         * flags given here, go to the writer. */
        tf_launch_helper(&opt, writer, writer_dir, &err);
        tf_msg_error("%s", err.msg);
        return TF_EXIT_FAILURE;
    }
    if (i >= argc)
        return tf_msg_usage("no program to run (tracefold record [OPTIONS] -- PROGRAM ARGS)");
    char lib[PATH_MAX];
    if (find_recorder(library, lib, sizeof lib)) {
        tf_msg_error("cannot find the recorder library %s (give --library or TRACEFOLD_LIBRARY)",
                     library && *library ? library : "libtracefold.so");
        return TF_EXIT_FAILURE;
    }
    if (tf_launch_prepare_output(&opt, &err)) {
        tf_msg_error("%s", err.msg);
        tf_msg_error("not starting: the trace cannot be written");
        return TF_EXIT_FAILURE;
    }
    char mpi_layer[PATH_MAX];
    find_mpi_layer(&opt, mpi_layer, sizeof mpi_layer);
    tf_launch l = { .opt = &opt, .library = lib, .mpi_layer = *mpi_layer ? mpi_layer : NULL,
                    .writer = writer, .quiet = quiet, .argv = argv + i };
    tf_launch_run(&l, &err);   /* returns only when the writer did not start */
    tf_msg_error("%s", err.msg);
    return TF_EXIT_FAILURE;
}
