/* SPDX-License-Identifier: BSD-3-Clause */
/* Fuzz harness: the recorder's XML configuration (record/tf_config.c). */
#include "fuzz.h"
#include "record/tf_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[512];
    tf_fuzz_file("config.xml", data, size, path, sizeof path);
    tf_options o;
    tf_options_defaults(&o);
    tf_error err = { 0 };
    tf_config_load(path, &o, &err);
    return 0;
}
