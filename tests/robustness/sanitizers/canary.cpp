// Deliberate bugs, one per argument, for the sanitized build's self-check (canary.cmake): each
// must end the process with the sanitizer exit code and a report naming the bug, which shows
// that the flags and the options the tests run with make every report fatal and visible.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

namespace {
// Values read through volatile so that the compiler cannot see the bugs at compile time.
volatile int g_index = 16;
volatile int g_big = std::numeric_limits<int>::max();
void* volatile g_leak = nullptr;
} // namespace

int main(int argc, char** argv)
{
    if (argc != 2)
        return 64;
    const char* what = argv[1];
    if (std::strcmp(what, "heap-overflow") == 0) {
        char* p = static_cast<char*>(std::malloc(16));
        std::memset(p, 1, static_cast<size_t>(g_index) + 1); // through libc: ASan's, not UBSan's
        std::printf("%d\n", p[0]);
        std::free(p);
    } else if (std::strcmp(what, "use-after-free") == 0) {
        int* p = new int(1);
        delete p;
        std::printf("%d\n", *p);
    } else if (std::strcmp(what, "signed-overflow") == 0) {
        int v = g_big;
        v += 1;
        std::printf("%d\n", v);
    } else if (std::strcmp(what, "leak") == 0) {
        g_leak = std::malloc(123);
        g_leak = nullptr;
    } else if (std::strcmp(what, "vector-bounds") == 0) {
        std::vector<int> v(4);
        std::printf("%d\n", v[static_cast<size_t>(g_index)]);
    } else {
        return 64;
    }
    return 0;
}
