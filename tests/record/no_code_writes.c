/* SPDX-License-Identifier: BSD-3-Clause */
/* Runs a program in a sandbox that may write files only beneath the given
 * folders (Landlock, Linux 5.13+): /proc/self/mem cannot be opened for
 * writing there, as under a kernel booted with
 * proc_mem.force_override=never, so region.sh sees `record --region`
 * refused by the kernel for real.
 * Usage: no_code_writes DIR... -- PROGRAM [ARG...]; exit status 77 when
 * the kernel has no Landlock (the test is then skipped). */
#include <fcntl.h>
#include <linux/landlock.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SKIP 77

int main(int argc, char **argv)
{
    struct landlock_ruleset_attr ruleset = {.handled_access_fs = LANDLOCK_ACCESS_FS_WRITE_FILE};
    int rules = (int)syscall(SYS_landlock_create_ruleset, &ruleset, sizeof ruleset, 0);
    if (rules < 0) {
        perror("no_code_writes: landlock_create_ruleset");
        return SKIP;
    }
    int i = 1;
    for (; i < argc && strcmp(argv[i], "--"); i++) {
        struct landlock_path_beneath_attr beneath = {
            .allowed_access = LANDLOCK_ACCESS_FS_WRITE_FILE,
            .parent_fd = open(argv[i], O_PATH | O_CLOEXEC),
        };
        if (beneath.parent_fd < 0 ||
            syscall(SYS_landlock_add_rule, rules, LANDLOCK_RULE_PATH_BENEATH, &beneath, 0)) {
            perror(argv[i]);
            return SKIP;
        }
        close(beneath.parent_fd);
    }
    if (i + 1 >= argc) {
        fprintf(stderr, "usage: no_code_writes DIR... -- PROGRAM [ARG...]\n");
        return 2;
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || syscall(SYS_landlock_restrict_self, rules, 0)) {
        perror("no_code_writes: landlock_restrict_self");
        return SKIP;
    }
    execvp(argv[i + 1], argv + i + 1);
    perror(argv[i + 1]);
    return 127;
}
