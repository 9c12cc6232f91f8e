/* SPDX-License-Identifier: BSD-3-Clause */
#include "trace_schema.h"

#include <stdio.h>
#include <string.h>

#define FIELD(type, member) { #member, offsetof(type, member), sizeof(((type *)0)->member), false }
#define STRING(type, member) { #member, offsetof(type, member), sizeof(((type *)0)->member), true }
#define TABLE(dset, type, list, counters) {                              \
    .name = dset, .fields = list, .nfields = sizeof list / sizeof list[0], \
    .struct_size = sizeof(type), .has_counters = counters }

/* Members in the order of the C struct, which is also the order of the
 * stored compound type. */
static const tf_field event_fields[] = {
    FIELD(tf_event, time), FIELD(tf_event, value), FIELD(tf_event, type), FIELD(tf_event, kind),
};
static const tf_field sample_fields[] = {
    FIELD(tf_sample, time), FIELD(tf_sample, ip), FIELD(tf_sample, addr),
    FIELD(tf_sample, data_source), FIELD(tf_sample, stack), FIELD(tf_sample, weight),
    FIELD(tf_sample, stack_len), FIELD(tf_sample, kind), FIELD(tf_sample, level),
    FIELD(tf_sample, flags),
};
static const tf_field counter_fields[] = {
    STRING(tf_counter_desc, name), STRING(tf_counter_desc, unit), FIELD(tf_counter_desc, kind),
};
static const tf_field module_fields[] = {
    FIELD(tf_module, start), FIELD(tf_module, end), FIELD(tf_module, offset),
    STRING(tf_module, path), STRING(tf_module, build_id),
};
static const tf_field object_fields[] = {
    FIELD(tf_object, start), FIELD(tf_object, size), FIELD(tf_object, alloc_time),
    FIELD(tf_object, free_time), FIELD(tf_object, stack), FIELD(tf_object, id),
    STRING(tf_object, name), STRING(tf_object, callsite), FIELD(tf_object, stack_len),
    FIELD(tf_object, kind),
};
static const tf_field symbol_fields[] = {
    FIELD(tf_symbol, start), FIELD(tf_symbol, end), STRING(tf_symbol, function),
    STRING(tf_symbol, file), FIELD(tf_symbol, line),
};

const tf_table_schema tf_schema_events = TABLE("events", tf_event, event_fields, true);
const tf_table_schema tf_schema_samples = TABLE("samples", tf_sample, sample_fields, true);
const tf_table_schema tf_schema_counters = TABLE("counters", tf_counter_desc, counter_fields, false);
const tf_table_schema tf_schema_modules = TABLE("modules", tf_module, module_fields, false);
const tf_table_schema tf_schema_objects = TABLE("objects", tf_object, object_fields, false);
const tf_table_schema tf_schema_symbols = TABLE("symbols", tf_symbol, symbol_fields, false);

static size_t packed_size(const tf_table_schema *t)
{
    size_t size = 0;
    for (size_t i = 0; i < t->nfields; i++)
        size += t->fields[i].size;
    return size;
}

size_t tf_schema_row_size(const tf_table_schema *t, uint32_t ncounters)
{
    return packed_size(t) + (t->has_counters ? (size_t)ncounters * sizeof(uint64_t) : 0);
}

static hid_t integer_type(size_t size, bool file)
{
    switch (size) {
    case 1: return file ? H5T_STD_U8LE : H5T_NATIVE_UINT8;
    case 2: return file ? H5T_STD_U16LE : H5T_NATIVE_UINT16;
    case 4: return file ? H5T_STD_U32LE : H5T_NATIVE_UINT32;
    default: return file ? H5T_STD_U64LE : H5T_NATIVE_UINT64;
    }
}

hid_t tf_schema_type(const tf_table_schema *t, uint32_t ncounters, bool file)
{
    hid_t type = H5Tcreate(H5T_COMPOUND, tf_schema_row_size(t, ncounters));
    if (type < 0)
        return -1;
    size_t offset = 0;
    herr_t rc = 0;
    for (size_t i = 0; i < t->nfields && rc >= 0; i++) {
        rc = H5Tinsert(type, t->fields[i].name, offset, integer_type(t->fields[i].size, file));
        offset += t->fields[i].size;
    }
    /* HDF5 has no zero-length arrays: without counters the member is absent. */
    if (rc >= 0 && t->has_counters && ncounters) {
        hsize_t dim = ncounters;
        hid_t array = H5Tarray_create2(integer_type(8, file), 1, &dim);
        rc = array < 0 ? -1 : H5Tinsert(type, TF_MEMBER_COUNTERS, offset, array);
        if (array >= 0)
            H5Tclose(array);
    }
    if (rc < 0) {
        H5Tclose(type);
        return -1;
    }
    return type;
}

/* Fixed-size copies, so the compiler turns each into a single move. */
static inline void copy_field(unsigned char *dst, const unsigned char *src, size_t size)
{
    switch (size) {
    case 1: *dst = *src; break;
    case 2: memcpy(dst, src, 2); break;
    case 4: memcpy(dst, src, 4); break;
    default: memcpy(dst, src, 8); break;
    }
}

void tf_schema_pack(const tf_table_schema *t, uint32_t ncounters, const void *records,
                    const uint64_t *counters, size_t n, unsigned char *rows)
{
    size_t row_size = tf_schema_row_size(t, ncounters);
    size_t values = t->has_counters ? ncounters : 0;
    const unsigned char *rec = records;
    for (size_t i = 0; i < n; i++, rec += t->struct_size, rows += row_size) {
        size_t offset = 0;
        for (size_t f = 0; f < t->nfields; f++) {
            copy_field(rows + offset, rec + t->fields[f].offset, t->fields[f].size);
            offset += t->fields[f].size;
        }
        if (!values)
            continue;
        if (counters)
            memcpy(rows + offset, counters + i * values, values * sizeof *counters);
        else    /* TF_NOVALUE is all ones */
            memset(rows + offset, 0xff, values * sizeof *counters);
    }
}

void tf_schema_unpack(const tf_table_schema *t, uint32_t ncounters, const unsigned char *rows,
                      size_t n, void *records, uint64_t *counters)
{
    size_t row_size = tf_schema_row_size(t, ncounters);
    size_t values = t->has_counters ? ncounters : 0;
    unsigned char *rec = records;
    memset(records, 0, n * t->struct_size);   /* padding bytes too */
    for (size_t i = 0; i < n; i++, rec += t->struct_size, rows += row_size) {
        size_t offset = 0;
        for (size_t f = 0; f < t->nfields; f++) {
            copy_field(rec + t->fields[f].offset, rows + offset, t->fields[f].size);
            offset += t->fields[f].size;
        }
        if (values && counters)
            memcpy(counters + i * values, rows + offset, values * sizeof *counters);
    }
}

static bool is_unsigned(hid_t type, size_t size)
{
    return H5Tget_class(type) == H5T_INTEGER && H5Tget_sign(type) == H5T_SGN_NONE &&
           H5Tget_size(type) == size;
}

static bool check_counters(uint32_t ncounters, hid_t stored, char *why, size_t whylen)
{
    int index = H5Tget_member_index(stored, TF_MEMBER_COUNTERS);
    if (!ncounters) {
        if (index < 0)
            return true;
        snprintf(why, whylen, "has member '%s' but the process declares no counters",
                 TF_MEMBER_COUNTERS);
        return false;
    }
    if (index < 0) {
        snprintf(why, whylen, "missing member '%s' (the process declares %u counters)",
                 TF_MEMBER_COUNTERS, ncounters);
        return false;
    }
    hid_t member = H5Tget_member_type(stored, (unsigned)index);
    hsize_t dim = 0;
    bool ok = member >= 0 && H5Tget_class(member) == H5T_ARRAY &&
              H5Tget_array_ndims(member) == 1 && H5Tget_array_dims2(member, &dim) == 1 &&
              dim == ncounters;
    if (ok) {
        hid_t base = H5Tget_super(member);
        ok = base >= 0 && is_unsigned(base, 8);
        if (base >= 0)
            H5Tclose(base);
    }
    if (member >= 0)
        H5Tclose(member);
    if (!ok)
        snprintf(why, whylen, "member '%s' is not an array of %u unsigned 64-bit values "
                 "(one per counter of the process)", TF_MEMBER_COUNTERS, ncounters);
    return ok;
}

bool tf_schema_check_type(const tf_table_schema *t, uint32_t ncounters, hid_t stored,
                          char *why, size_t whylen)
{
    if (H5Tget_class(stored) != H5T_COMPOUND) {
        snprintf(why, whylen, "expected a compound type (a table of records)");
        return false;
    }
    for (size_t f = 0; f < t->nfields; f++) {
        int index = H5Tget_member_index(stored, t->fields[f].name);
        if (index < 0) {
            snprintf(why, whylen, "missing member '%s'", t->fields[f].name);
            return false;
        }
        hid_t member = H5Tget_member_type(stored, (unsigned)index);
        bool ok = member >= 0 && is_unsigned(member, t->fields[f].size);
        if (member >= 0)
            H5Tclose(member);
        if (!ok) {
            snprintf(why, whylen, "member '%s' is not an unsigned %zu-bit integer",
                     t->fields[f].name, 8 * t->fields[f].size);
            return false;
        }
    }
    return !t->has_counters || check_counters(ncounters, stored, why, whylen);
}

bool tf_schema_bad_string(const tf_table_schema *t, const void *records, size_t n,
                          size_t nstrings, size_t *row, const char **field, uint32_t *id)
{
    /* A string field at a time over the rows (two of the objects' ten
     * fields, checked for every small block), the first bad row kept. */
    bool bad = false;
    for (size_t f = 0; f < t->nfields; f++) {
        if (!t->fields[f].string)
            continue;
        const unsigned char *rec = (const unsigned char *)records + t->fields[f].offset;
        for (size_t i = 0; i < n && (!bad || i < *row); i++, rec += t->struct_size) {
            uint32_t value;   /* string ids are uint32_t throughout trace.h */
            memcpy(&value, rec, sizeof value);
            if (value >= nstrings) {
                *row = i;
                *field = t->fields[f].name;
                *id = value;
                bad = true;
                break;
            }
        }
    }
    return bad;
}
