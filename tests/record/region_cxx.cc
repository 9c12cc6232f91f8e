// SPDX-License-Identifier: BSD-3-Clause
// An unmodified C++ program for `record --region` (region.sh): a member
// function called from several threads, an overloaded function, and one
// that throws.  region_cxx NTHREADS N:
//   - each of NTHREADS std::threads calls ns::Grid::relax() N times;
//   - the main thread calls smooth(int) N times and smooth(double) 2N
//     times, then risky() N times, which throws every time.
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <thread>
#include <vector>

volatile double sink;

namespace ns {
class Grid {
public:
    __attribute__((noinline)) void relax(int n)
    {
        for (int i = 0; i < 1000 + n; i++)
            v += i * 0.25;
        sink = sink + v;
    }
private:
    double v = 0;
};
}

__attribute__((noinline)) void smooth(int n) { sink = sink + n; }
__attribute__((noinline)) void smooth(double x) { sink = sink + x * 2; }

__attribute__((noinline)) void risky(int n)
{
    sink = sink + n;
    throw std::runtime_error("risky");
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    int nthreads = (int)std::strtol(argv[1], nullptr, 10), n = (int)std::strtol(argv[2], nullptr, 10);
    std::vector<std::thread> threads;
    for (int k = 0; k < nthreads; k++)
        threads.emplace_back([n] {
            ns::Grid g;
            for (int i = 0; i < n; i++)
                g.relax(i);
        });
    for (int i = 0; i < n; i++)
        smooth(i);
    for (int i = 0; i < 2 * n; i++)
        smooth(i * 0.5);
    int caught = 0;
    for (int i = 0; i < n; i++) {
        try {
            risky(i);
        } catch (const std::exception &) {
            caught++;
        }
    }
    for (auto &t : threads)
        t.join();
    std::printf("region_cxx: %d\n", caught);
    return 0;
}
