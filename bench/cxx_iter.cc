// SPDX-License-Identifier: BSD-3-Clause
// A C++ iteration with the allocation pattern of real application code
// (bench/README.md, "Recorder: CPU time on real-code patterns"): each
// iteration builds tens of std::vector temporaries of a few KiB through
// templates, transforms and reduces them, and keeps a small map of
// results, so that malloc and free are called some fifty times per
// iteration.  Usage: cxx_iter ITERATIONS; prints the checksum.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <numeric>
#include <string>
#include <vector>

template <typename T>
static std::vector<T> ramp(std::size_t n, T start, T step)
{
    std::vector<T> v(n);
    T x = start;
    for (auto &e : v) {
        e = x;
        x += step;
    }
    return v;
}

template <typename T, typename F>
static std::vector<T> map_values(const std::vector<T> &in, F f)
{
    std::vector<T> out;
    out.reserve(in.size());
    for (const T &e : in)
        out.push_back(f(e));
    return out;
}

template <typename T>
static T dot(const std::vector<T> &a, const std::vector<T> &b)
{
    return std::inner_product(a.begin(), a.end(), b.begin(), T(0));
}

int main(int argc, char **argv)
{
    long iterations = argc > 1 ? std::strtol(argv[1], nullptr, 10) : 20000;
    double checksum = 0;
    std::map<std::string, double> last;
    for (long it = 0; it < iterations; it++) {
        // 12 blocks of 4 temporaries: about 50 allocations of 1-4 KiB.
        for (int block = 0; block < 12; block++) {
            std::size_t n = 128 + 32 * (std::size_t)((it + block) % 12);
            auto a = ramp<double>(n, (double)block, 0.5);
            auto b = map_values(a, [it](double x) { return x * 1.0001 + (double)(it & 7); });
            auto c = ramp<float>(n, 1.0f, 0.25f);
            auto d = map_values(c, [](float x) { return x * x; });
            std::sort(d.begin(), d.end(), [](float x, float y) { return x > y; });
            checksum += dot(a, b) * 1e-9 + (double)d[0] * 1e-6;
        }
        if (it % 64 == 0)
            last["iteration " + std::to_string(it % 1024)] = checksum;
    }
    std::printf("%.6f %zu\n", checksum, last.size());
    return 0;
}
