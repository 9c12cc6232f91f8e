/* SPDX-License-Identifier: BSD-3-Clause */
/* An application that uses HDF5 itself while being recorded: writes a
 * dataset inside a region, reads it back, and checks the values.  The
 * recorder must not touch the application's HDF5 (it keeps HDF5 in the
 * writer process).  Usage: hdf5_app OUT.h5 */
#include <hdf5.h>
#include <stdio.h>

#include "tracefold.h"

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    enum { N = 100000 };
    static double data[N], back[N];
    for (int i = 0; i < N; i++)
        data[i] = i * 0.5;
    int rc = 1;
    for (int round = 0; round < 5; round++) {
        tracefold_region_begin("hdf5_io");
        hid_t f = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
        hsize_t dims[1] = {N};
        hid_t space = H5Screate_simple(1, dims, NULL);
        hid_t d = H5Dcreate2(f, "values", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT,
                             H5P_DEFAULT);
        herr_t w = H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
        herr_t r = H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, back);
        H5Dclose(d);
        H5Sclose(space);
        H5Fclose(f);
        tracefold_region_end("hdf5_io");
        rc = w < 0 || r < 0;
        for (int i = 0; !rc && i < N; i++)
            rc = back[i] != data[i];
        if (rc)
            break;
    }
    printf("hdf5_app: %s\n", rc ? "FAILED" : "ok");
    return rc;
}
