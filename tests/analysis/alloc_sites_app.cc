// SPDX-License-Identifier: BSD-3-Clause
// Heap objects as C++ programs allocate them: new, new[], a std::vector,
// a header template helper (alloc_helper.h), a wrapper of the program's
// own (named with --alloc-wrapper), a temporary allocated anew in every
// iteration, and rows below the heap threshold allocated by new[] in a
// loop.  tests/analysis/alloc_sites.sh checks that each is named by the
// line below that allocates it (the comment names the line) and that the
// temporary is one family.  Arguments: iterations, doubles per array.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "alloc_helper.h"
#include "tracefold.h"

struct Field {
    double v[1];
};

// The program's own wrapper: a frame of its own (no tail call), named as
// the site unless --alloc-wrapper grid_alloc.
__attribute__((noinline)) static double *grid_alloc(std::size_t n)
{
    double *p = static_cast<double *>(std::malloc(n * sizeof(double))); // site-in-wrapper
    if (!p)
        std::abort();
    return p;
}

__attribute__((noinline)) static double sweep(double *out, const double *in, std::size_t n)
{
    double s = 0;
    for (std::size_t i = 0; i < n; i++) {
        out[i] += in[i];
        s += out[i];
    }
    return s;
}

int main(int argc, char **argv)
{
    int iterations = argc > 1 ? std::atoi(argv[1]) : 50;
    std::size_t n = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 100000;
    double *a = new double[n]();                     // site-new-array
    Field *f = new Field[n];                         // site-new-struct
    std::vector<double> v(n, 1.0);                   // site-vector
    double *h = Allocate<double>(n);                 // site-helper
    double *g = grid_alloc(n);                       // site-wrapper
    double *row[64];
    for (int r = 0; r < 64; r++)
        row[r] = new double[16]();                   // site-small-rows
    for (std::size_t i = 0; i < n; i++)
        f[i].v[0] = h[i] = g[i] = 1.0;
    double s = 0;
    for (int r = 0; r < 64; r++)
        s += row[r][r % 16];
    for (int it = 0; it < iterations; it++) {
        tracefold_region_begin("iteration");
        double *t = new double[n];                   // site-temporary
        for (std::size_t i = 0; i < n; i++)
            t[i] = v[i];
        s += sweep(a, t, n) + sweep(h, g, n) + f[it % n].v[0];
        delete[] t;
        tracefold_region_end("iteration");
    }
    std::printf("%g\n", s);
    std::free(g);
    Release(h);
    delete[] f;
    delete[] a;
    for (int r = 0; r < 64; r++)
        delete[] row[r];
    return 0;
}
