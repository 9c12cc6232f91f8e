/* SPDX-License-Identifier: BSD-3-Clause */
#include "target_layout.h"

#include <fcntl.h>
#include <gelf.h>
#include <string.h>
#include <unistd.h>

int fx_target_layout_read(const char *path, uint64_t pie_base, fx_target_layout *l)
{
    memset(l, 0, sizeof *l);
    elf_version(EV_CURRENT);
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
    GElf_Ehdr eh;
    size_t nph;
    if (!elf || !gelf_getehdr(elf, &eh) || elf_getphdrnum(elf, &nph) != 0) {
        elf_end(elf);
        close(fd);
        return -1;
    }
    l->base = eh.e_type == ET_DYN ? pie_base : 0;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (size_t i = 0; i < nph; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
            continue;
        lo = ph.p_vaddr < lo ? ph.p_vaddr : lo;
        hi = ph.p_vaddr + ph.p_memsz > hi ? ph.p_vaddr + ph.p_memsz : hi;
    }
    /* The first PT_LOAD segment of ordinary executables starts at file
     * offset 0, so one mapping from there covers the code. */
    l->start = l->base + (lo & ~0xfffull);
    l->end = l->base + hi;
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(elf, scn))) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
            continue;
        Elf_Data *d = elf_getdata(scn, NULL);
        for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
            GElf_Sym sym;
            const char *name;
            if (gelf_getsym(d, (int)i, &sym) &&
                (name = elf_strptr(elf, sh.sh_link, sym.st_name)) &&
                !strcmp(name, "tf_target_outer")) {
                l->outer = l->base + sym.st_value;
                l->outer_size = sym.st_size;
            }
        }
    }
    elf_end(elf);
    close(fd);
    return 0;
}
