/* SPDX-License-Identifier: BSD-3-Clause */
/* Build-id and load bias of a traced process's binary (elf_file.h). */
#include "elf_file.h"

#include <elfutils/libdwelf.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

bool tf_elf_build_id_is(Elf *elf, const char *want)
{
    const void *id = NULL;
    ssize_t n = dwelf_elf_gnu_build_id(elf, &id);
    bool same = n > 0 && strlen(want) == 2 * (size_t)n;
    for (ssize_t i = 0; same && i < n; i++) {
        char hex[3];
        snprintf(hex, sizeof hex, "%02x", ((const unsigned char *)id)[i]);
        same = hex[0] == want[2 * i] && hex[1] == want[2 * i + 1];
    }
    return same;
}

uint64_t tf_elf_load_bias(Elf *elf, uint64_t start, uint64_t end, uint64_t offset)
{
    GElf_Ehdr eh;
    size_t nph;
    if (!gelf_getehdr(elf, &eh) || eh.e_type != ET_DYN || elf_getphdrnum(elf, &nph) != 0)
        return 0;
    for (size_t i = 0; i < nph; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
            continue;
        if (ph.p_offset + ph.p_filesz <= offset || ph.p_offset >= offset + (end - start))
            continue;
        return start + (ph.p_offset - offset) - ph.p_vaddr;
    }
    return 0;
}
