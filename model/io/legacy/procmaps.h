// The memory map that ends pprof's legacy profiles (`/proc/self/maps` lines, or pprof's brief
// `start-end file (@offset) buildid` form), read as google/pprof's ParseMemoryMap reads it.
#pragma once

#include "model/core/profile.h"
#include "model/core/result.h"

#include <cstdint>
#include <optional>
#include <string_view>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace symflame::model {

struct MapEntry {
    uint64_t start = 0;
    uint64_t limit = 0;
    uint64_t offset = 0;
    std::string file;
    std::string buildId;
};

/// pprof's DropFrames of a CPU profile (its signal handler's frames).
inline constexpr char kCpuProfilerDropFrames[]
    = "ProfileData::Add|ProfileData::prof_handler|CpuProfiler::prof_handler|__pthread_sighandler|__restore";

/// pprof's DropFrames and KeepFrames of a heap profile (the allocator's frames).
inline constexpr char kAllocDropFrames[]
    = "calloc|cfree|malloc|free|memalign|do_memalign|(__)?posix_memalign|pvalloc|valloc|realloc|tcmalloc::.*|"
      "tc_calloc|tc_cfree|tc_malloc|tc_free|tc_memalign|tc_posix_memalign|tc_pvalloc|tc_valloc|tc_realloc|tc_new|"
      "tc_delete|tc_newarray|tc_deletearray|tc_new_nothrow|tc_newarray_nothrow|malloc_zone_malloc|malloc_zone_calloc|"
      "malloc_zone_valloc|malloc_zone_realloc|malloc_zone_memalign|malloc_zone_free|runtime\\..*|BaseArena::.*|"
      "(::)?do_malloc_no_errno|(::)?do_malloc_pages|(::)?do_malloc|DoSampledAllocation|"
      "MallocedMemBlock::MallocedMemBlock|_M_allocate|__builtin_(vec_)?delete|__builtin_(vec_)?new|"
      "__gnu_cxx::new_allocator::allocate|__libc_malloc|__malloc_alloc_template::allocate|allocate|cpp_alloc|"
      "operator new(\\[\\])?|simple_alloc::allocate";
inline constexpr char kAllocKeepFrames[] = "runtime\\.panic|runtime\\.reflectcall|runtime\\.call[0-9]*";

/// The executable mappings of the text (lines that are not mappings are skipped; `name=value`
/// lines define `$name` for the lines after them), adjacent pieces of one file merged, the main
/// binary's first. Error (InvalidInput) only for a line longer than 64 KiB, as pprof's.
Result<std::vector<MapEntry>> parseProcMaps(std::span<const uint8_t> text);

/// Places each address in a mapping as pprof's remapMappingIDs does (it may drop a leading
/// /anon_hugepage mapping, move the start of the first, extend one down to its file offset 0,
/// and append a mapping of the whole address space for addresses outside all): per address
/// the index into mappings, -1 for address 0.
std::vector<int64_t> assignMappings(std::vector<MapEntry>& mappings, std::span<const uint64_t> addresses);

/// What every legacy reader does once its stacks are read: the mappings (after assignMappings)
/// become p's, and each distinct address of stacks (in the order the stacks first use it, as
/// pprof's remapLocationIDs numbers them) a location in its mapping. Returns each address's
/// location.
std::unordered_map<uint64_t, LocationId> addMappingsAndLocations(
    Profile& p, std::vector<MapEntry>& mappings, const std::vector<std::vector<uint64_t>>& stacks);

/// Java profiles' frames (pprof's parseJavaLocations): a location per distinct address of stacks
/// (first use first), named by the lines `0xADDR function (file:line)` of text (lineNo: the line
/// before text's first), a named one without its address; then the samples. Java profiles have
/// no memory map. An error only for an address over 64 bits.
std::optional<Error> nameJavaLocations(Profile& p, std::string_view text, size_t lineNo,
    const std::vector<std::vector<uint64_t>>& stacks, const std::vector<std::vector<int64_t>>& values);

} // namespace symflame::model
