/* SPDX-License-Identifier: BSD-3-Clause */
/* claim_h5 FILE DATASET ROWS STORED [fill]: DATASET of the HDF5 file FILE
 * replaced by one of ROWS rows of which only STORED are stored
 * (bad_trace_claim), for the memory tests of tests/formats/claims.sh. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "bad_trace.h"

int main(int argc, char **argv)
{
    if (argc < 5 || argc > 6 || (argc == 6 && strcmp(argv[5], "fill") != 0)) {
        fprintf(stderr, "usage: claim_h5 FILE DATASET ROWS STORED [fill]\n");
        return 2;
    }
    uint64_t rows = strtoull(argv[3], NULL, 10), stored = strtoull(argv[4], NULL, 10);
    if (stored > rows) {
        fprintf(stderr, "claim_h5: STORED is more than ROWS\n");
        return 2;
    }
    hid_t file = H5Fopen(argv[1], H5F_ACC_RDWR, H5P_DEFAULT);
    int rc = file < 0 ? -1 : bad_trace_claim(file, argv[2], rows, stored, argc == 6);
    if (file >= 0 && H5Fclose(file) < 0)
        rc = -1;
    if (rc < 0) {
        fprintf(stderr, "claim_h5: cannot replace %s in %s\n", argv[2], argv[1]);
        return 1;
    }
    return 0;
}
