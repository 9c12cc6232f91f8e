/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI calls of a trace as Paraver states and messages (formats/prv_mpi.c),
 * on a two-rank trace written here with the events libtracefold-mpi
 * records: messages of one tag received in the order sent even when
 * another tag's overtakes them, a wildcard receive matched by its status,
 * a request handle reused after its completion, a completed send request
 * ignored, a send nobody receives counted; then the whole raw export
 * passes the checker with one communication record per message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "formats/prv_check.h"
#include "formats/prv_export.h"
#include "formats/prv_mpi.h"
#include "test_dir.h"
#include "tracefold_mpi.h"

#define CALL(t, id) {t, id, TRACEFOLD_MPI_EVENT_CALL, TF_EVENT_USER}
#define EV(t, type, v) {t, v, TRACEFOLD_MPI_EVENT_##type, TF_EVENT_USER}

/* Rank 0 sends tag 1 (8 B), tag 2 (16 B), tag 1 again (24 B, MPI_Isend),
 * receives from any source (rank 1's tag 5), sends tag 9 to nobody. */
static const tf_event rank0[] = {
    CALL(10, TRACEFOLD_MPI_SEND), EV(10, PARTNER, 1), EV(10, BYTES, 8), EV(10, TAG, 1),
    CALL(12, 0),
    CALL(20, TRACEFOLD_MPI_SEND), EV(20, PARTNER, 1), EV(20, BYTES, 16), EV(20, TAG, 2),
    CALL(22, 0),
    CALL(30, TRACEFOLD_MPI_ISEND), EV(30, PARTNER, 1), EV(30, BYTES, 24), EV(30, TAG, 1),
    CALL(31, 0),
    CALL(40, TRACEFOLD_MPI_RECV), EV(60, PARTNER, 1), EV(60, BYTES, 4), EV(60, TAG, 5),
    CALL(60, 0),
    CALL(70, TRACEFOLD_MPI_SEND), EV(70, PARTNER, 1), EV(70, BYTES, 1), EV(70, TAG, 9),
    CALL(71, 0),
};

/* Rank 1 posts tag 2 from rank 0 (request 0xa), then any source and tag
 * (0xb); one Waitall completes both (0xb got rank 0's first tag-1
 * message); 0xa is reused for tag 1 from rank 0; it sends tag 5 to rank 0
 * and waits for 0xa, then for a send request 0xc. */
static const tf_event rank1[] = {
    CALL(15, TRACEFOLD_MPI_IRECV), EV(15, PARTNER, 0), EV(15, BYTES, 100), EV(15, TAG, 2),
    EV(15, REQUEST, 0xa), CALL(15, 0),
    CALL(16, TRACEFOLD_MPI_IRECV), EV(16, BYTES, 100), EV(16, REQUEST, 0xb), CALL(16, 0),
    CALL(25, TRACEFOLD_MPI_WAITALL), EV(35, COMPLETED, 0xb), EV(35, RECV_SOURCE, 0),
    EV(35, RECV_TAG, 1), EV(35, COMPLETED, 0xa), EV(35, RECV_SOURCE, 0), EV(35, RECV_TAG, 2),
    CALL(35, 0),
    CALL(36, TRACEFOLD_MPI_IRECV), EV(36, PARTNER, 0), EV(36, BYTES, 100), EV(36, TAG, 1),
    EV(36, REQUEST, 0xa), CALL(36, 0),
    CALL(38, TRACEFOLD_MPI_SEND), EV(38, PARTNER, 0), EV(38, BYTES, 4), EV(38, TAG, 5),
    CALL(39, 0),
    CALL(45, TRACEFOLD_MPI_WAIT), EV(50, COMPLETED, 0xa), EV(50, RECV_SOURCE, 0),
    EV(50, RECV_TAG, 1), CALL(50, 0),
    CALL(55, TRACEFOLD_MPI_WAIT), EV(56, COMPLETED, 0xc), CALL(56, 0),
};

static char *make_trace(void)
{
    char *path = tf_test_path("mpi.h5");
    tf_error err;
    tf_trace_out *w;
    tf_trace_meta meta = {"CLOCK_MONOTONIC", "host", "./app", "test", 0};
    if (tf_trace_out_create(&w, path, &meta, 0, &err) < 0)
        fail_msg("%s", err.msg);
    const tf_event *ev[] = {rank0, rank1};
    size_t nev[] = {sizeof rank0 / sizeof rank0[0], sizeof rank1 / sizeof rank1[0]};
    for (int r = 0; r < 2; r++) {
        tf_process_desc d = {.pid = 100 + r, .rank = r, .nranks = 2, .executable = "/bin/app",
                             .host = "host", .build_id = ""};
        uint32_t proc, th;
        if (tf_trace_out_add_process(w, &d, &proc, &err) < 0 ||
            tf_trace_out_add_thread(w, proc, 1000 + r, &th, &err) < 0 ||
            tf_trace_out_append_events(w, proc, th, ev[r], NULL, nev[r], &err) < 0)
            fail_msg("%s", err.msg);
    }
    if (tf_trace_out_close(w, &err) < 0)
        fail_msg("%s", err.msg);
    return path;
}

static void test_matching(void **state)
{
    (void)state;
    char *path = make_trace();
    tf_trace *tr;
    tf_error err;
    tf_prv_mpi m;
    assert_int_equal(tf_trace_open(&tr, path, &err), 0);
    if (tf_prv_mpi_build(tr, &m, &err) < 0)
        fail_msg("%s", err.msg);
    static const tf_prv_mpi_message want[] = {
        {0, 1, 10, 10, 16, 35, 8, 1},    /* the wildcard receive, posted second */
        {0, 1, 20, 20, 15, 35, 16, 2},   /* tag 2, posted first, overtaken */
        {0, 1, 30, 30, 36, 50, 24, 1},   /* request 0xa again */
        {1, 0, 38, 38, 40, 60, 4, 5},    /* MPI_Recv from any source */
    };
    assert_int_equal(m.nmessages, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < m.nmessages; i++) {
        const tf_prv_mpi_message *g = &m.messages[i], *x = &want[i];
        if (g->send_thread != x->send_thread || g->recv_thread != x->recv_thread ||
            g->lsend != x->lsend || g->psend != x->psend || g->lrecv != x->lrecv ||
            g->precv != x->precv || g->size != x->size || g->tag != x->tag)
            fail_msg("message %zu: %u->%u send %lu/%lu recv %lu/%lu size %lu tag %lu; want "
                     "%u->%u send %lu/%lu recv %lu/%lu size %lu tag %lu", i, g->send_thread,
                     g->recv_thread, (unsigned long)g->lsend, (unsigned long)g->psend,
                     (unsigned long)g->lrecv, (unsigned long)g->precv, (unsigned long)g->size,
                     (unsigned long)g->tag, x->send_thread, x->recv_thread,
                     (unsigned long)x->lsend, (unsigned long)x->psend, (unsigned long)x->lrecv,
                     (unsigned long)x->precv, (unsigned long)x->size, (unsigned long)x->tag);
    }
    assert_int_equal(m.unmatched_sends, 1);   /* tag 9 */
    assert_int_equal(m.unmatched_recvs, 0);
    /* One span per call, in the call's state. */
    static const uint32_t states0[] = {4, 4, 10, 3, 4}, states1[] = {11, 11, 3, 11, 4, 3, 3};
    assert_int_equal(m.nspans[0], 5);
    assert_int_equal(m.nspans[1], 7);
    for (size_t i = 0; i < 5; i++)
        assert_int_equal(m.spans[0][i].state, states0[i]);
    for (size_t i = 0; i < 7; i++)
        assert_int_equal(m.spans[1][i].state, states1[i]);
    assert_int_equal(m.spans[1][2].begin, 25);
    assert_int_equal(m.spans[1][2].end, 35);
    tf_prv_mpi_free(&m);

    /* The export: a record per message, states and labels the checker accepts. */
    char *prv = tf_test_path("mpi.prv");
    tf_prv_export_stats st;
    if (tf_prv_export_raw(tr, prv, NULL, NULL, NULL, &st, &err) < 0)
        fail_msg("%s", err.msg);
    assert_int_equal(st.messages, 4);
    assert_int_equal(st.unmatched_sends, 1);
    tf_prv_check_report rep;
    if (tf_prv_check(prv, &rep, &err) < 0)
        fail_msg("%s", err.msg);
    tf_trace_close(tr);
    free(prv);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matching),
    };
    return cmocka_run_group_tests(tests, tf_test_dir_setup, tf_test_dir_teardown);
}
