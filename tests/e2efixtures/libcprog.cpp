// The libcprog fixture: a program profiled with gperftools (CPUPROFILE=path) whose CPU time is
// mostly spent in libc: qsort with a comparator of its own, number formatting and parsing
// (snprintf, strtod), string scanning (strlen, strstr), and buffer copies in its own shared
// library libsfe2e.so (memcpy, memcmp, memset). It works until the process has used 1 s of CPU
// time (or the seconds given as its first argument), 30 s of wall time at most.
#include "e2ework.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

namespace {

__attribute__((noinline)) int compareInts(const void* a, const void* b)
{
    const int x = *static_cast<const int*>(a), y = *static_cast<const int*>(b);
    return (x > y) - (x < y);
}

__attribute__((noinline)) int sortNumbers(unsigned seed)
{
    std::vector<int> v(20000);
    for (int& x : v) {
        seed = seed * 1103515245u + 12345u;
        x = static_cast<int>(seed >> 8);
    }
    std::qsort(v.data(), v.size(), sizeof(int), compareInts);
    return v[v.size() / 2];
}

__attribute__((noinline)) double formatAndParse(int n)
{
    char buf[64];
    double sum = 0;
    for (int i = 0; i < n; ++i) {
        std::snprintf(buf, sizeof buf, "%.9g", i * 1.000123);
        sum += std::strtod(buf, nullptr);
    }
    return sum;
}

__attribute__((noinline)) size_t scanText(const std::string& text, int rounds)
{
    size_t total = 0;
    for (int r = 0; r < rounds; ++r) {
        total += std::strlen(text.c_str());
        const char* hit = std::strstr(text.c_str(), "needle");
        total += hit ? static_cast<size_t>(hit - text.c_str()) : 0;
    }
    return total;
}

double cpuSeconds()
{
    return static_cast<double>(std::clock()) / CLOCKS_PER_SEC;
}

} // namespace

int main(int argc, char** argv)
{
    const double budget = argc > 1 ? std::atof(argv[1]) : 1.0;
    const std::time_t wallLimit = std::time(nullptr) + 30;
    std::string text(200000, 'x');
    text += "needle";
    uint64_t check = 0;
    unsigned seed = 1;
    while (cpuSeconds() < budget && std::time(nullptr) < wallLimit) {
        check += static_cast<uint64_t>(sortNumbers(seed++));
        check += static_cast<uint64_t>(formatAndParse(2000));
        check += scanText(text, 200);
        check += e2e::shuffleBuffers(1 << 20, 40);
    }
    std::printf("%llu\n", static_cast<unsigned long long>(check));
    return 0;
}
