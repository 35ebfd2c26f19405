#include "model/core/bigarray.h"

#include <cstdint>

#ifdef __linux__
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace symflame::model {

void adviseHugePages(const void* p, size_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (!p || bytes < kBigArrayBytes)
        return;
    constexpr uintptr_t kHuge = uintptr_t(2) << 20;
    const auto begin = (reinterpret_cast<uintptr_t>(p) + kHuge - 1) & ~(kHuge - 1);
    const auto end = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(kHuge - 1);
    if (end > begin)
        (void)::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE); // a hint: errors change nothing
#else
    (void)p;
    (void)bytes;
#endif
}

void populatePages(const void* p, size_t bytes)
{
#ifdef __linux__
    constexpr int kPopulateWrite = 23; // MADV_POPULATE_WRITE, where the headers lack it
    static const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
    const auto begin = (reinterpret_cast<uintptr_t>(p) + page - 1) & ~(page - 1);
    const auto end = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(page - 1);
    if (p && end > begin)
        (void)::madvise(reinterpret_cast<void*>(begin), end - begin, kPopulateWrite); // EINVAL before 5.14
#else
    (void)p;
    (void)bytes;
#endif
}

} // namespace symflame::model
