/* SPDX-License-Identifier: BSD-3-Clause */
/* fork and exec under the recorder.
 *   fork_exec_app        region "parent"; forks a child that records region
 *                        "child" and exits; waits; vforks a child that
 *                        execs this program with "noop" (the parent must
 *                        go on recording: region "after_vfork"); then
 *                        execs itself with
 *                        "after-exec", which records region "after_exec".
 * Each part runs a little compute so that it is sampled too. */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tracefold.h"

static volatile double sink;

static void work(const char *region)
{
    tracefold_region_begin(region);
    double x = 0;
    for (long i = 0; i < 20000000; i++)
        x += (double)i * 1e-9;
    sink += x;
    tracefold_region_end(region);
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "noop"))
        return 0;
    if (argc > 1 && !strcmp(argv[1], "after-exec")) {
        work("after_exec");
        return 0;
    }
    work("parent");
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        work("child");
        return 0;
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
        fprintf(stderr, "fork_exec_app: child failed\n");
        return 1;
    }
    pid = vfork();
    if (pid == 0) {
        execl("/proc/self/exe", argv[0], "noop", (char *)NULL);
        _exit(127);
    }
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
        fprintf(stderr, "fork_exec_app: vfork child failed\n");
        return 1;
    }
    work("after_vfork");
    execl("/proc/self/exe", argv[0], "after-exec", (char *)NULL);
    perror("fork_exec_app: exec");
    return 1;
}
