/* SPDX-License-Identifier: BSD-3-Clause */
/* A team of processes that share the reading, the holding of the points
 * and the fits (tracefold fold under mpirun).  Each member extracts its
 * share of the trace's samples and keeps the points; the leader (member 0)
 * gets their counts, and the fold engine runs on it with the instances,
 * asking the members for what each step needs of their points (the first
 * fit's, their deviations from its curves) and telling them what it
 * decided (the recording's cost, the groups, the instances kept).  Each
 * time the engine fits the counters of a group, counter c is fitted by
 * member c mod size, with the same function and the same input as alone,
 * the points sent to it from the ranks that hold them, so the result does
 * not depend on the team (docs/algorithms.md, "Parallel folding").  The
 * outputs take each member's points a chunk at a time.  The engine knows
 * only these point-to-point operations; the CLI implements them with MPI,
 * so fold/ does not depend on MPI. */
#ifndef TF_FOLD_TEAM_H
#define TF_FOLD_TEAM_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cloud.h"
#include "extract/fold_input.h"
#include "fit.h"
#include "fit_threads.h"
#include "fold_result.h"
#include "members.h"
#include "common/tf_error.h"

/* One array of a message in several parts (tf_fold_team.sendv, recvv):
 * sendv reads it, recvv writes it. */
typedef struct tf_team_part {
    const void *buf;
    size_t      bytes;
} tf_team_part;

#define TF_TEAM_ANY (-1)

typedef struct tf_fold_team {
    int size;                 /* members, >= 2 */
    int rank;                 /* this member, 0 = the leader */
    bool read_alone;          /* on the leader: it reads every sample, the
                               * members only fit (a Paraver input,
                               * converted once) */
    void *ctx;
    /* Messages between the leader and a member, received in the order
     * sent.  Each returns 0, or -1 when the communication failed.  A wait
     * for the other side keeps no CPU busy (a member waits for the next
     * request while the leader reads or writes the outputs, the leader
     * for a member's points or results): the CPUs are the ranks' and the
     * leader's output threads'. */
    int (*send)(void *ctx, int to, const void *buf, size_t bytes);
    int (*recv)(void *ctx, int from, void *buf, size_t bytes);
    /* Arrays sent from where they lie, without being copied into one
     * buffer, and received into arrays of the same sizes, in order: one
     * wait for them all. */
    int (*sendv)(void *ctx, int to, const tf_team_part *parts, size_t n);
    int (*recvv)(void *ctx, int from, const tf_team_part *parts, size_t n);
    /* sendv started, never waiting for the receiver, its arrays left in
     * place until sent_wait says it is done (*started: the transport's,
     * for sent_wait): a rank starts every send of a fit at once and then
     * only receives, so that no rank waits on another's work.  Messages to
     * one peer arrive in the order they were sent or started. */
    int (*sendv_start)(void *ctx, int to, const tf_team_part *parts, size_t n, void **started);
    int (*sent_wait)(void *ctx, void *started);
    /* 1 when a message from `from` (TF_TEAM_ANY: any member) waits to be
     * received, 0 when none does (it does not wait), -1 when the
     * communication failed. */
    int (*pending)(void *ctx, int from);
    /* On the leader: serialises its messages when several of its threads
     * talk to the members (the output steps, through the groups' parts
     * and tf_fold_team_call); NULL when one thread does. */
    pthread_mutex_t *lock;
    /* the team's own (team_wire.h): a request a member took while it read
     * (tf_fold_team_ended), 0 when none; on a member, its share and the
     * groups' points taken from it. */
    uint32_t held_command;
    int32_t  held_status;
    struct tf_fold_team_own *own;
} tf_fold_team;

/* Where the points of a fit's cloud are when the ranks hold them: the
 * members of group `group` (tf_fold_team_group), rank w's being instances
 * [span[w], span[w+1]) of the cloud, whose points are [offset[w],
 * offset[w+1]). */
typedef struct tf_fold_team_cloud {
    uint32_t group;
    const size_t *offset;     /* [size+1] */
    const size_t *span;       /* [size+1] */
} tf_fold_team_cloud;

/* Fits counters 0..nc-1 into out[c] (its rows allocated by the caller):
 * alone (team NULL) on `threads` threads (tf_fit_counters); with a team,
 * each by its member, the leader fitting its own while the others fit
 * theirs, one counter after another, each fed the cloud a run of
 * instances at a time from the ranks that hold its points.  The view gives the instances'
 * arrays and, when `spread` is NULL, the whole cloud; with `spread`, the
 * leader's points only (the first offset[1] of the cloud), and each
 * instance valid as far as its totals go (whether its points hold a value
 * is told by the rank that holds them).  The view's slot 0 is also the one
 * the messages to the members are built from: the clouds' rows, first, x
 * and y are sent from where they lie, so they must stay put while the
 * call lasts (valid, total and duration are copied, and may be rewritten
 * by the next view).  A member's failure is the leader's error, naming
 * the rank. */
int tf_fold_team_fit(const tf_fold_team *team, const tf_fold_team_cloud *spread, uint32_t nc,
                     unsigned threads, tf_fold_view view, void *view_arg,
                     const double *boundaries, size_t nb, const tf_fit_options *o,
                     tf_fit_output *out, tf_error *err);

/* On the leader, once it has extracted share 0 of team->size
 * (tf_fold_input_extract): puts every member's counts of samples in
 * in->samples, each member keeping its points.  A member's failure (its
 * extraction failed, or it read another trace) is the leader's error,
 * naming the rank. */
int tf_fold_team_gather(const tf_fold_team *team, tf_fold_input *in, tf_error *err);

/* What the leader tells every member of the fold, each taking its points
 * alike: the recording's cost (r->observer_* and r's CPU-time counter,
 * tf_fold_observer_apply);
 * the members rows[0..n) of group g of ngroups (tf_fold_members_gather,
 * the groups in order); those of them that group g keeps (keep[i], of its
 * n members: tf_fold_members_compact). */
int tf_fold_team_observer(const tf_fold_team *team, const tf_fold_region *r, tf_error *err);
int tf_fold_team_group(const tf_fold_team *team, uint32_t g, uint32_t ngroups,
                       const uint32_t *rows, size_t n, tf_error *err);
int tf_fold_team_select(const tf_fold_team *team, uint32_t g, const uint8_t *keep, size_t n,
                        tf_error *err);

/* The points of members pick[] (indexes into group g's members) into sub,
 * whose rows and first are set and whose points have room: the picks
 * [span[w], span[w+1]) are member w's, fetched from it (the leader's,
 * w = 0, are the caller's to copy); every column. */
int tf_fold_team_fetch(const tf_fold_team *team, uint32_t g, const size_t *pick,
                       const size_t *span, uint32_t nc, tf_fold_members *sub, tf_error *err);

/* The deviations of group g's members from curves ([nc][grid]), worked out
 * by each member for its members [span[w], span[w+1]) (tf_fold_members_
 * deviation): asked for, then (the leader having worked out its own)
 * taken into dev[c * n + i], for the n members. */
int tf_fold_team_ask_deviations(const tf_fold_team *team, uint32_t g, const double *curves,
                                uint32_t nc, uint32_t grid, const size_t *span, tf_error *err);
int tf_fold_team_take_deviations(const tf_fold_team *team, uint32_t nc, size_t n,
                                 const size_t *span, double *dev, tf_error *err);

/* On the leader while it reads its share (now and then): 1 when a member
 * has sent word that it could not read (the shares are then of no use:
 * stop reading, and take its error with tf_fold_team_early_failure), 0
 * when none has, -1 when the contact is lost. */
int tf_fold_team_member_failed(const tf_fold_team *team);
/* The error of the first member, in rank order, that sent word that it
 * could not read, naming it; 0 when none has.  The gather takes these
 * first too. */
int tf_fold_team_early_failure(const tf_fold_team *team, tf_error *err);

/* On a member other than the leader while it reads its share (now and
 * then, from the extraction's progress): 1 when the leader has ended the
 * team meanwhile, having failed before it needed the share (an existing
 * OUTDIR, say), so that the member stops reading and serves at once to
 * hear the status; 0 to go on (a request for the share that came early is
 * kept for tf_fold_team_serve); -1 when the contact is lost. */
int tf_fold_team_ended(tf_fold_team *team);

/* On the leader once the fold is done, the points having stayed with
 * their ranks: serves each group's points as parts (g->parts), its own
 * (g->points) first, then member w's, in chunks taken from it when a
 * consumer takes them; offsets[g * (size + 1) + w]: where member w's
 * points of group g start, as in the group's last fit.  res owns the
 * parts. */
int tf_fold_team_parts(const tf_fold_team *team, tf_fold_result *res, const size_t *offsets,
                       tf_error *err);

/* A request of the caller's own to a member (the synthetic trace's
 * ordering of its points, say), TF_TEAM_CALL_BYTES at most, answered by
 * the member's handler into reply's n parts, in order.  On the leader,
 * from any of its threads (team->lock). */
#define TF_TEAM_CALL_BYTES 64
int tf_fold_team_call(const tf_fold_team *team, int w, const void *req, size_t bytes,
                      const tf_team_part *reply, size_t n, tf_error *err);

/* What a member does with the leader's calls: answers req (team->send,
 * sendv to member 0, what the leader's reply parts expect).  Returns 0,
 * or a negative error (err) when this member cannot go on. */
typedef struct tf_fold_team_handler {
    int (*call)(void *arg, tf_fold_team *team, const void *req, tf_error *err);
    void *arg;
} tf_fold_team_handler;

/* On a member: its points of group g (none: n 0). */
const tf_fold_points *tf_fold_team_kept(const tf_fold_team *team, uint32_t g);

/* On a member other than the leader: serves the leader until it ends the
 * team: hands over its share of the points when asked (*share, extracted
 * as share team->rank of team->size, taken over (*share is emptied); or,
 * when share_rc < 0, the error share_err that stopped its extraction, sent
 * at once unless the leader has asked or ended already; share may be NULL
 * for a member that only fits), does with its points what the leader
 * asks, fits what it is given, sends its points when asked, and passes
 * calls to handler (may be NULL when none comes).  Returns the
 * exit status the leader sends (0 when its fold succeeded), or a negative
 * error (err) when this member cannot go on. */
int tf_fold_team_serve(tf_fold_team *team, tf_fold_input *share, int share_rc,
                       const tf_error *share_err, const tf_fold_team_handler *handler,
                       tf_error *err);
/* On the leader: ends the team, sending every member the status, and
 * waits for each to answer (taking up any failure it sent unasked). */
int tf_fold_team_end(const tf_fold_team *team, int status);

#endif
