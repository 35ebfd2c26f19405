// Fixture for the symbolize tests: a C++ program at -O2 -g whose code is full of inlining that
// survives optimization: static inline functions, templates, lambdas, std algorithms, virtual
// calls, an anonymous namespace, and calls into libsfshapes.so.
#include "shapes.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

namespace fixture {

static inline int square(int x)
{
    return x * x;
}

template <typename T>
struct Accumulator {
    T total{};
    void add(T v) { total += static_cast<T>(square(static_cast<int>(v))); }
};

template <typename T>
T sumSquares(const std::vector<T>& v)
{
    Accumulator<T> acc;
    for (const T& e : v)
        acc.add(e);
    return acc.total;
}

namespace {

int collatzSteps(long n)
{
    int steps = 0;
    while (n != 1) {
        n = (n % 2) ? 3 * n + 1 : n / 2;
        ++steps;
    }
    return steps;
}

} // namespace

class Task {
public:
    virtual ~Task() = default;
    virtual long run(int n) const = 0;
};

class SquareTask : public Task {
public:
    long run(int n) const override
    {
        std::vector<int> v(static_cast<size_t>(n));
        std::iota(v.begin(), v.end(), 1);
        return sumSquares(v);
    }
};

class WordTask : public Task {
public:
    long run(int n) const override
    {
        std::map<std::string, int> counts;
        for (int i = 0; i < n; ++i)
            ++counts["w" + std::to_string(i % 17)];
        long total = 0;
        for (const auto& [word, count] : counts)
            total += static_cast<long>(word.size()) * count;
        return total;
    }
};

__attribute__((noinline)) long useLambdas(std::vector<int>& v, int k)
{
    auto scale = [k](int x) { return square(x) * k; };
    std::transform(v.begin(), v.end(), v.begin(), scale);
    std::sort(v.begin(), v.end(), [](int a, int b) { return a > b; });
    return std::accumulate(v.begin(), v.end(), 0L, [](long acc, int x) { return acc + (x & 0xff); });
}

__attribute__((noinline)) long runAll(int n)
{
    std::vector<std::unique_ptr<Task>> tasks;
    tasks.push_back(std::make_unique<SquareTask>());
    tasks.push_back(std::make_unique<WordTask>());
    long total = 0;
    for (const auto& t : tasks)
        total += t->run(n);
    return total;
}

} // namespace fixture

int main(int argc, char** argv)
{
    const int n = argc > 1 ? std::atoi(argv[1]) : 1000;
    std::vector<int> v(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i)
        v[static_cast<size_t>(i)] = (i * 7919) % 1000;
    long total = fixture::useLambdas(v, argc);
    total += fixture::runAll(n);
    for (int i = 1; i < n; ++i)
        total += fixture::collatzSteps(i);
    total += static_cast<long>(shapes::totalArea(n % 50 + 3));
    total += shapes_checksum(v.data(), static_cast<int>(v.size()));
    std::printf("%ld\n", total);
    return 0;
}
