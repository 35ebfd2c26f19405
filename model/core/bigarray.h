// Big arrays filled once (a profile's stacks and samples, an inflated file, hash tables sized
// for millions of entries): memory asked of the kernel in transparent huge pages.
//
// A first write to each 4 KiB page of fresh memory takes a page fault, and on a virtual machine a
// fault costs a few microseconds: reading a 1M-sample profile spent about a quarter of its time
// in them. Linux's THP in its "madvise" mode (Debian's default) gives 2 MiB pages only to ranges
// marked MADV_HUGEPAGE: one fault then maps 512 pages' worth, and the TLB covers 512 times as
// much. The advice is a hint: where the kernel has no huge page to give, or THP is off, nothing
// changes but the call's cost (microseconds).
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace symflame::model {

/// Below this, arrays are left to the allocator as they come.
inline constexpr size_t kBigArrayBytes = size_t(4) << 20;

/// Marks the whole 2 MiB-aligned huge pages inside [p, p + bytes) MADV_HUGEPAGE; does nothing for
/// less than kBigArrayBytes or where the system has no such advice.
void adviseHugePages(const void* p, size_t bytes);

/// Maps the pages inside [p, p + bytes) now, writable, in one call (Linux 5.14's
/// MADV_POPULATE_WRITE), as first writes would one fault at a time: on this project's virtual
/// machines several times faster. Contents do not change. Elsewhere nothing happens.
void populatePages(const void* p, size_t bytes);

/// Maps the pages of arrays one thread fills from a second thread, a little ahead of the writes,
/// so that the kernel's zeroing of fresh pages (on a virtual machine, about a quarter of reading
/// a big profile) runs on the core that has time for it. The filling thread sets each array's
/// reserved range once and says after a while how far it has written; the other thread calls
/// run() now and then. Mapping changes no contents, so a range the array has since left (it grew
/// past its reservation and moved) costs at most pages mapped for nothing.
class PrefaultAhead {
public:
    static constexpr size_t kRanges = 4;

    /// Filling thread: array i is reserved as [begin, begin + bytes).
    void set(size_t i, const void* begin, size_t bytes);
    /// Filling thread: array i holds data up to upTo; an address outside its range (it moved)
    /// ends the mapping of it.
    void written(size_t i, const void* upTo);
    /// Other thread: maps each array's pages up to `ahead` bytes past what was written.
    void run(size_t ahead);

private:
    std::array<std::atomic<uintptr_t>, kRanges> m_begin {};
    std::array<std::atomic<uintptr_t>, kRanges> m_end {};
    std::array<std::atomic<uintptr_t>, kRanges> m_written {};
    std::array<uintptr_t, kRanges> m_mapped {}; ///< the other thread's own
};

/// v.reserve(n), with the reserved memory advised huge when it is big and was newly allocated.
/// For any contiguous container with reserve/capacity/data (std::vector, std::string).
template <class Container>
void reserveBig(Container& v, size_t n)
{
    if (n <= v.capacity())
        return;
    v.reserve(n);
    adviseHugePages(v.data(), v.capacity() * sizeof(*v.data()));
}

/// v.resize(n) into memory advised huge when it is big.
template <class T>
void resizeBig(std::vector<T>& v, size_t n)
{
    reserveBig(v, n);
    v.resize(n);
}

/// v.assign(n, value) into memory advised huge when it is big (a hash table's slots).
template <class T>
void assignBig(std::vector<T>& v, size_t n, const T& value)
{
    std::vector<T>().swap(v);
    reserveBig(v, n);
    v.assign(n, value);
}

} // namespace symflame::model
