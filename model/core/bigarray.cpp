#include "model/core/bigarray.h"

#include <cstdint>

#ifdef __linux__
#include <sys/mman.h>
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

} // namespace symflame::model
