/* SPDX-License-Identifier: BSD-3-Clause */
/* What the files of the fold team share (fold_team.c: the requests, the
 * reading and the end; fold_team_fit.c: the fits; fold_team_points.c: the
 * points each member holds): the requests and their wire form, the
 * transfer of points (team_wire.c), and a member's own state.  Not for
 * other modules.  The tf_team_ names are the team's own, shared between
 * these files only. */
#ifndef TF_FOLD_TEAM_WIRE_H
#define TF_FOLD_TEAM_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fold_team.h"
#include "members.h"

enum team_command {
    COMMAND_FIT = 1, COMMAND_END = 2,
    COMMAND_POINTS = 3,    /* a member's counts of samples (its share) */
    COMMAND_PART = 5,      /* a chunk of a group's points, to write them */
    COMMAND_CALL = 6,      /* a request of the caller's own (tf_fold_team_call) */
    COMMAND_OBSERVER = 7,  /* the recording's cost, out of the member's points */
    COMMAND_GROUP = 8,     /* the members of a group */
    COMMAND_FETCH = 9,     /* the points of some of them (the first fit) */
    COMMAND_DEVIATE = 10,  /* their deviations from the first fit's curves */
    COMMAND_SELECT = 11,   /* the members the shape rule keeps */
};

/* What precedes a request's arrays: fixed-width fields, the same build on
 * every member (mpirun starts one binary). */
struct team_request {
    uint32_t command;
    int32_t  status;           /* COMMAND_END: the exit status */
    uint64_t ninst, npoints, nb;
    uint32_t ncounters;        /* COMMAND_FIT: the member's */
    uint32_t counters;         /* every counter of the fit, the region's */
    uint32_t grid, bootstrap;
    double   confidence, window;
    uint64_t seed;
    uint32_t group, ngroups;   /* COMMAND_GROUP, FETCH, DEVIATE, SELECT, PART, FIT */
    uint32_t columns;          /* COMMAND_PART: enum tf_fold_column */
    uint8_t  call[TF_TEAM_CALL_BYTES];
};

/* A member's own: the share it read, and the points the groups take from
 * it (fold_team_points.c). */
struct tf_fold_team_own {
    tf_fold_input share;       /* its extraction (the points go to `all`, the
                                * instances to `region`) */
    tf_fold_region region;     /* its instances, until the recording's cost
                                * is out of its points */
    tf_fold_members all;       /* every instance's points, until the groups take them */
    tf_fold_members *groups;   /* [ngroups] each group's members and their points */
    uint32_t ngroups;
};

int tf_team_lost(tf_error *err);
int tf_team_lock(const tf_fold_team *t);
void tf_team_unlock(const tf_fold_team *t);

/* n points of p from `at`, y rows `stride` apart, those of `columns`,
 * sent to peer (send) or received from it into p, in one transfer. */
int tf_team_transfer_points(const tf_fold_team *t, int peer, bool send, const tf_fold_points *p,
                            size_t at, size_t n, size_t stride, uint32_t nc, unsigned columns,
                            tf_error *err);

/* A member's side of the requests of fold_team_fit.c and
 * fold_team_points.c. */
int tf_team_serve_fit(const tf_fold_team *t, const struct team_request *q, tf_error *err);
int tf_team_serve_points(tf_fold_team *t, const struct team_request *q, tf_error *err);
int tf_team_send_kept(const tf_fold_team *t, const struct team_request *q, tf_error *err);
/* Takes over the member's share (its columns become own->all) once the
 * leader has its counts. */
int tf_team_own_share(tf_fold_team *t, tf_fold_input *share, tf_error *err);
void tf_team_own_free(tf_fold_team *t);

#endif
