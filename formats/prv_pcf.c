/* SPDX-License-Identifier: BSD-3-Clause */
#include "prv_pcf.h"
#include "prv_lines.h"
#include "common/tf_array.h"
#include "common/tf_escape.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Labels of values, kept sorted by value; one set can be shared by several
 * types (a .pcf EVENT_TYPE block with a VALUES block labels all its types). */
typedef struct label_entry {
    uint64_t key;       /* first member: the key of lower_bound */
    char    *label;
} label_entry;

typedef struct label_set {
    size_t       n, cap;
    label_entry *e;
} label_set;

typedef struct pcf_type {
    uint64_t type;      /* first member: the key of lower_bound */
    uint32_t gradient;
    char    *label;
    size_t   values;    /* index in sets, or SIZE_MAX when the type has no value labels */
} pcf_type;

struct tf_pcf {
    size_t     ntypes, captypes;
    pcf_type  *types;   /* sorted by type */
    size_t     nsets, capsets;
    label_set *sets;
    label_set  states;
};

tf_pcf *tf_pcf_new(void) { return calloc(1, sizeof(tf_pcf)); }

static void set_free(label_set *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->e[i].label);
    free(s->e);
}

void tf_pcf_free(tf_pcf *pcf)
{
    if (!pcf)
        return;
    for (size_t i = 0; i < pcf->ntypes; i++)
        free(pcf->types[i].label);
    for (size_t i = 0; i < pcf->nsets; i++)
        set_free(&pcf->sets[i]);
    set_free(&pcf->states);
    free(pcf->types);
    free(pcf->sets);
    free(pcf);
}

/* First index of a sorted array of n structs (stride bytes apart, each
 * starting with its uint64_t key) whose key is >= key. */
static size_t lower_bound(const void *base, size_t n, size_t stride, uint64_t key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (*(const uint64_t *)((const char *)base + mid * stride) < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static size_t set_lower(const label_set *s, uint64_t key)
{
    return lower_bound(s->e, s->n, sizeof *s->e, key);
}

static const char *set_find(const label_set *s, uint64_t key)
{
    size_t i = set_lower(s, key);
    return i < s->n && s->e[i].key == key ? s->e[i].label : NULL;
}

static int set_put(label_set *s, uint64_t key, const char *label, tf_error *err)
{
    char *copy = strdup(label);
    if (!copy)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory");
    /* Labels usually come in increasing order: append without searching. */
    size_t i = s->n && s->e[s->n - 1].key < key ? s->n : set_lower(s, key);
    if (i < s->n && s->e[i].key == key) {
        free(s->e[i].label);
        s->e[i].label = copy;
        return 0;
    }
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 16;
        label_entry *ne = realloc(s->e, cap * sizeof *ne);
        if (!ne) {
            free(copy);
            return tf_fail(err, TF_ERR_NOMEM, "out of memory");
        }
        s->e = ne;
        s->cap = cap;
    }
    memmove(&s->e[i + 1], &s->e[i], (s->n - i) * sizeof *s->e);
    s->e[i] = (label_entry){key, copy};
    s->n++;
    return 0;
}

static size_t type_lower(const tf_pcf *pcf, uint32_t type)
{
    return lower_bound(pcf->types, pcf->ntypes, sizeof *pcf->types, type);
}

static pcf_type *type_find(tf_pcf *pcf, uint32_t type)
{
    size_t i = type_lower(pcf, type);
    return i < pcf->ntypes && pcf->types[i].type == type ? &pcf->types[i] : NULL;
}

static int new_set(tf_pcf *pcf, size_t *index, tf_error *err)
{
    label_set *ns = tf_array_room(pcf->sets, pcf->nsets, &pcf->capsets, sizeof *ns, 16);
    if (!ns)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory");
    pcf->sets = ns;
    pcf->sets[pcf->nsets] = (label_set){0};
    *index = pcf->nsets++;
    return 0;
}

int tf_pcf_add_type(tf_pcf *pcf, uint32_t type, uint32_t gradient, const char *label,
                    tf_error *err)
{
    size_t i = type_lower(pcf, type);
    if (i < pcf->ntypes && pcf->types[i].type == type)
        return 0;
    pcf_type *nt = tf_array_room(pcf->types, pcf->ntypes, &pcf->captypes, sizeof *nt, 32);
    if (!nt)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory");
    pcf->types = nt;
    char *copy = strdup(label);
    if (!copy)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory");
    memmove(&pcf->types[i + 1], &pcf->types[i], (pcf->ntypes - i) * sizeof *pcf->types);
    pcf->types[i] = (pcf_type){type, gradient, copy, SIZE_MAX};
    pcf->ntypes++;
    return 0;
}

int tf_pcf_add_value(tf_pcf *pcf, uint32_t type, uint64_t value, const char *label,
                     tf_error *err)
{
    pcf_type *t = type_find(pcf, type);
    if (!t)
        return tf_fail(err, TF_ERR_INTERNAL, "pcf: value label for undeclared type %" PRIu32, type);
    if (t->values == SIZE_MAX) {
        size_t s;
        int rc = new_set(pcf, &s, err);
        if (rc < 0)
            return rc;
        t = type_find(pcf, type);
        t->values = s;
    }
    return set_put(&pcf->sets[t->values], value, label, err);
}

int tf_pcf_add_state(tf_pcf *pcf, uint32_t state, const char *label, tf_error *err)
{
    return set_put(&pcf->states, state, label, err);
}

const char *tf_pcf_type_label(tf_pcf *pcf, uint32_t type)
{
    pcf_type *t = type_find(pcf, type);
    return t ? t->label : NULL;
}

bool tf_pcf_type_has_values(tf_pcf *pcf, uint32_t type)
{
    pcf_type *t = type_find(pcf, type);
    return t && t->values != SIZE_MAX;
}

const char *tf_pcf_value_label(tf_pcf *pcf, uint32_t type, uint64_t value)
{
    pcf_type *t = type_find(pcf, type);
    return t && t->values != SIZE_MAX ? set_find(&pcf->sets[t->values], value) : NULL;
}

const char *tf_pcf_state_label(tf_pcf *pcf, uint32_t state)
{
    return set_find(&pcf->states, state);
}

bool tf_pcf_find_type(tf_pcf *pcf, const char *label, uint32_t *type)
{
    for (size_t i = 0; i < pcf->ntypes; i++)
        if (!strcmp(pcf->types[i].label, label)) {
            *type = (uint32_t)pcf->types[i].type;
            return true;
        }
    return false;
}

bool tf_pcf_find_value(tf_pcf *pcf, uint32_t type, const char *label, uint64_t *value)
{
    pcf_type *t = type_find(pcf, type);
    if (!t || t->values == SIZE_MAX)
        return false;
    const label_set *s = &pcf->sets[t->values];
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->e[i].label, label)) {
            *value = s->e[i].key;
            return true;
        }
    return false;
}


/* ---- parsing ------------------------------------------------------------- */

enum section { SEC_OTHER, SEC_STATES, SEC_EVENT_TYPE, SEC_VALUES };

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

/* Section names are words of capitals and underscores alone on a line. */
static bool is_keyword(const char *p)
{
    for (; *p; p++)
        if (!isupper((unsigned char)*p) && *p != '_')
            return false;
    return true;
}

/* Reads a number at *p (signed for values), advancing past it and the
 * blanks that follow. */
static bool take_number(char **p, bool is_signed, uint64_t *v)
{
    char *end;
    errno = 0;
    if (is_signed && **p == '-')
        *v = (uint64_t)strtoll(*p, &end, 10);
    else if (isdigit((unsigned char)**p))
        *v = strtoull(*p, &end, 10);
    else
        return false;
    if (errno || end == *p || (*end && !isspace((unsigned char)*end)))
        return false;
    *p = end;
    while (isspace((unsigned char)**p))
        (*p)++;
    return true;
}

/* One line of the EVENT_TYPE block: GRADIENT TYPE LABEL. */
static int parse_type_line(tf_pcf *pcf, char *p, const char *path, unsigned long line,
                           uint32_t *type, tf_error *err)
{
    uint64_t grad, t;
    if (!take_number(&p, false, &grad) || !take_number(&p, false, &t) || t > UINT32_MAX ||
        grad > UINT32_MAX)
        return tf_fail(err, TF_ERR_FORMAT,
                       "%s: line %lu: EVENT_TYPE: expected 'GRADIENT TYPE LABEL' with numbers below 2^32",
                       path, line);
    *type = (uint32_t)t;
    return tf_pcf_add_type(pcf, *type, (uint32_t)grad, p, err);
}

/* Paraver's .pcf is text: a control character (other than tab and
 * carriage return) means some other file, or a damaged one.  Labels may be
 * in any 8-bit encoding, so bytes above 127 are left alone. */
static long control_char(const char *p, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)p[i];
        if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f)
            return (long)i;
    }
    return -1;
}

int tf_pcf_read(const char *path, tf_pcf **out, tf_error *err)
{
    *out = NULL;
    FILE *f;
    int rc = tf_prv_lines_open(path, &f, err);
    if (rc < 0)
        return rc;
    tf_pcf *pcf = tf_pcf_new();
    char *buf = NULL;
    size_t cap = 0, len = 0;
    unsigned long line = 0;
    rc = pcf ? 0 : tf_fail(err, TF_ERR_NOMEM, "%s: out of memory", path);
    enum section sec = SEC_OTHER;
    bool any_section = false;
    /* The types declared by the current EVENT_TYPE block, which a VALUES
     * block labels all at once. */
    uint32_t *block = NULL;
    size_t nblock = 0, capblock = 0, block_set = SIZE_MAX;
    while (rc == 0 && (rc = tf_prv_lines_next(f, path, &buf, &cap, &len, &line, err)) == 1) {
        rc = 0;
        long bad = control_char(buf, len);
        if (bad >= 0) {
            rc = tf_fail(err, TF_ERR_FORMAT, "%s: line %lu: byte 0x%02x at column %ld: a .pcf "
                         "is text; this is not a .pcf file, or a damaged one", path, line,
                         (unsigned char)buf[bad], bad + 1);
            break;
        }
        char *p = trim(buf);
        if (!*p) {
            if (sec != SEC_OTHER && sec != SEC_STATES)
                sec = SEC_OTHER;
            continue;
        }
        if (!any_section && !is_keyword(p)) {
            rc = tf_fail(err, TF_ERR_FORMAT, "%s: line %lu: expected a section name such as "
                         "DEFAULT_OPTIONS, STATES or EVENT_TYPE before anything else: "
                         "not a .pcf file", path, line);
            break;
        }
        if (is_keyword(p)) {
            any_section = true;
            if (!strcmp(p, "EVENT_TYPE")) {
                sec = SEC_EVENT_TYPE;
                nblock = 0;
                block_set = SIZE_MAX;
            } else if (!strcmp(p, "VALUES")) {
                if (sec != SEC_EVENT_TYPE || nblock == 0) {
                    rc = tf_fail(err, TF_ERR_FORMAT,
                                 "%s: line %lu: VALUES must follow the types of an EVENT_TYPE block",
                                 path, line);
                    break;
                }
                sec = SEC_VALUES;
                if ((rc = new_set(pcf, &block_set, err)) < 0)
                    break;
                for (size_t i = 0; i < nblock; i++)
                    type_find(pcf, block[i])->values = block_set;
            } else if (!strcmp(p, "STATES")) {
                sec = SEC_STATES;
            } else {
                sec = SEC_OTHER;   /* options, colours, gradients: not needed here */
            }
            continue;
        }
        uint64_t key;
        char *q = p;
        switch (sec) {
        case SEC_EVENT_TYPE: {
            uint32_t type = 0;
            if ((rc = parse_type_line(pcf, p, path, line, &type, err)) < 0)
                break;
            if (nblock == capblock) {
                capblock = capblock ? 2 * capblock : 8;
                uint32_t *nb = realloc(block, capblock * sizeof *nb);
                if (!nb) {
                    rc = tf_fail(err, TF_ERR_NOMEM, "out of memory");
                    break;
                }
                block = nb;
            }
            block[nblock++] = type;
            break;
        }
        case SEC_VALUES:
            if (!take_number(&q, true, &key)) {
                rc = tf_fail(err, TF_ERR_FORMAT,
                             "%s: line %lu: VALUES: expected 'VALUE LABEL' with a 64-bit value",
                             path, line);
                break;
            }
            rc = set_put(&pcf->sets[block_set], key, q, err);
            break;
        case SEC_STATES:
            if (!take_number(&q, false, &key) || key > UINT32_MAX) {
                rc = tf_fail(err, TF_ERR_FORMAT,
                             "%s: line %lu: STATES: expected 'STATE LABEL' with a number below 2^32",
                             path, line);
                break;
            }
            rc = set_put(&pcf->states, key, q, err);
            break;
        default:
            break;
        }
    }
    if (rc == 0 && !any_section)
        rc = tf_fail(err, TF_ERR_FORMAT, "%s: %s: not a .pcf file", path,
                     line ? "no section (DEFAULT_OPTIONS, STATES, EVENT_TYPE, ...)" : "empty");
    /* The label tables' own messages ("out of memory") get the place. */
    if (rc < 0 && err && strncmp(err->msg, path, strlen(path)) != 0)
        tf_error_prefix(err, "%s: line %lu: ", path, line);
    free(block);
    free(buf);
    fclose(f);
    if (rc < 0) {
        tf_pcf_free(pcf);
        return rc;
    }
    *out = pcf;
    return 0;
}

/* ---- writing ------------------------------------------------------------- */

/* Colours of the states this project writes, Paraver's defaults (those of
 * Extrae's .pcf), so that MPI states look as users know them; others get
 * grey. */
static const char *state_color(uint64_t state)
{
    static const char *const colors[] = {
        "{117,195,255}", "{0,0,255}",     "{255,255,255}", "{255,0,0}",     "{255,0,174}",
        "{179,0,0}",     "{0,255,0}",     "{255,255,0}",   "{235,0,0}",     "{0,162,0}",
        "{255,0,255}",   "{100,100,177}", "{172,174,41}",  "{255,144,26}",  "{2,255,177}",
        "{192,224,0}",   "{66,66,66}",    "{255,0,96}"};
    return state < sizeof colors / sizeof colors[0] ? colors[state] : "{192,192,192}";
}

/* A label and its line's end, the label escaped (tf_escape.h): labels
 * come from a trace's names, and a control character would break the line,
 * or make the file one that no reader, ours included (control_char), takes
 * for a .pcf. */
static void put_label(FILE *f, const char *label)
{
    tf_escape_put(f, label);
    fputc('\n', f);
}

int tf_pcf_write(tf_pcf *pcf, FILE *f)
{
    fputs("DEFAULT_OPTIONS\n\n"
          "LEVEL               THREAD\n"
          "UNITS               NANOSEC\n"
          "LOOK_BACK           100\n"
          "SPEED               1\n"
          "FLAG_ICONS          ENABLED\n"
          "NUM_OF_STATE_COLORS 1000\n"
          "YMAX_SCALE          37\n\n\n"
          "DEFAULT_SEMANTIC\n\n"
          "THREAD_FUNC          State As Is\n\n\n", f);
    fputs("STATES\n", f);
    for (size_t i = 0; i < pcf->states.n; i++) {
        fprintf(f, "%" PRIu64 "    ", pcf->states.e[i].key);
        put_label(f, pcf->states.e[i].label);
    }
    fputs("\n\nSTATES_COLOR\n", f);
    for (size_t i = 0; i < pcf->states.n; i++)
        fprintf(f, "%" PRIu64 "    %s\n", pcf->states.e[i].key, state_color(pcf->states.e[i].key));
    fputs("\n\n", f);
    for (size_t i = 0; i < pcf->ntypes; i++) {
        const pcf_type *t = &pcf->types[i];
        fprintf(f, "EVENT_TYPE\n%" PRIu32 "    %" PRIu64 "    ", t->gradient, t->type);
        put_label(f, t->label);
        if (t->values != SIZE_MAX) {
            const label_set *s = &pcf->sets[t->values];
            fputs("VALUES\n", f);
            for (size_t k = 0; k < s->n; k++) {
                fprintf(f, "%" PRId64 "      ", (int64_t)s->e[k].key);
                put_label(f, s->e[k].label);
            }
        }
        fputs("\n\n", f);
    }
    return ferror(f) ? -1 : 0;
}
