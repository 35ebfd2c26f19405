#include "model/core/bigarray.h"

#include <algorithm>
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

void PrefaultAhead::set(size_t i, const void* begin, size_t bytes)
{
    const auto b = reinterpret_cast<uintptr_t>(begin);
    m_begin[i].store(b, std::memory_order_relaxed);
    m_written[i].store(b, std::memory_order_relaxed);
    m_end[i].store(b + bytes, std::memory_order_release); // last: run() reads the others after it
}

void PrefaultAhead::written(size_t i, const void* upTo)
{
    m_written[i].store(reinterpret_cast<uintptr_t>(upTo), std::memory_order_relaxed);
}

void PrefaultAhead::run(size_t ahead)
{
    for (size_t i = 0; i < kRanges; ++i) {
        const uintptr_t end = m_end[i].load(std::memory_order_acquire);
        if (end == 0)
            continue;
        const uintptr_t begin = m_begin[i].load(std::memory_order_relaxed);
        const uintptr_t written = m_written[i].load(std::memory_order_relaxed);
        if (written < begin || written > end) { // the array moved: leave it
            m_end[i].store(0, std::memory_order_relaxed);
            continue;
        }
        static const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
        const uintptr_t from = std::max(m_mapped[i], written & ~(page - 1));
        const uintptr_t to = std::min(end, written + ahead) & ~(page - 1);
        if (to > from) {
            populatePages(reinterpret_cast<const void*>(from), to - from);
            m_mapped[i] = to;
        }
    }
}

} // namespace symflame::model
