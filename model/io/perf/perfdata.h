// Linux perf's perf.data (tools/perf/Documentation/perf.data-file-format.txt), file and pipe mode,
// little-endian: read to a profile whose stacks are perf's frame-pointer callchains (`perf record
// -g`), located in the mappings perf's MMAP/MMAP2 records describe per process, so the
// symbolizer treats them as it treats pprof mappings. `--call-graph dwarf` samples (user
// registers and a stack copy) are unwound by the PerfStackUnwinder given (perfunwinder.h; the
// symbolizer's is libdwfl's); without one, or where it fails, they keep what perf recorded.
#pragma once

#include "model/core/profile.h"
#include "model/core/result.h"
#include "model/io/perf/perfunwinder.h"

#include <cstdint>
#include <span>
#include <string>

namespace symflame::model {

/// True when data starts with perf's "PERFILE2" magic (file or pipe mode, either byte order).
bool looksLikePerfData(std::span<const uint8_t> data);

/// What the reader saw besides the samples (also put in the profile's attributes).
struct PerfDataStats {
    bool pipeMode = false;
    uint64_t records = 0;          ///< records read in the data section
    uint64_t samples = 0;          ///< SAMPLE records turned into samples
    uint64_t skippedRecords = 0;   ///< records skipped as malformed (bad size, short payload)
    uint64_t skippedSamples = 0;   ///< SAMPLE records of no known event, or whose fields run past the record
    uint64_t lostEvents = 0;       ///< sum of the LOST records' counts
    uint64_t otherRecords = 0;     ///< records of types not read (skipped by their size)
    uint64_t dwarfSamples = 0;     ///< samples with user registers and a stack copy (`--call-graph dwarf`)
    uint64_t unwoundSamples = 0;   ///< of those, the ones whose user frames the unwinder gave
    uint64_t stackCopySize = 0;    ///< the largest stack copy perf was asked for (`dwarf,SIZE`; 8192 by default)
    uint64_t fullStackCopies = 0;  ///< samples whose stack copy perf filled: the stack went on past it
};

/// Reads a perf.data file. Sample types: "samples"/"count" (every sample counts 1), then one per
/// event, named as perf named it (EVENT_DESC: "cpu-clock", "cycles:u"), valued by the sample's
/// period (unit "nanoseconds" for the cpu-clock and task-clock software events, else "events").
/// Each sample: its callchain (perf's PERF_CONTEXT_* markers dropped; the IP alone when there is
/// no callchain; callers' return addresses made call sites, address - 1, as in pprof profiles,
/// while the first address of the kernel's and of the user's part stays where the CPU was), labels pid, tid (numbers), comm and thread (the process's and thread's names
/// from COMM records), cpu (number), and its time (perf's clock, nanoseconds). Kernel addresses
/// go to a "[kernel.kallsyms]" mapping, and are named as perf report names them: from the
/// kallsyms perf record kept in its build-ID cache for the kernel build ID it recorded
/// (model/io/perf/perfbuildidcache.h), else from /proc/kallsyms when that build ID is the running
/// kernel's (/sys/kernel/notes). Attribute perf.kernel_symbols_from says which file named them;
/// else perf.kernel_symbols says why they stay addresses. Attribute perf.call_graph says how stacks were taken: "fp"
/// (`-g`, frame pointers), "dwarf" (`--call-graph dwarf`), "lbr", none without callchains; the
/// symbolization pass checks "fp" and "dwarf" stacks for truncation (model/analysis/truncatedstacks.h).
/// Build IDs from MMAP2 records or the HEADER_BUILD_ID
/// feature. Malformed records are skipped and counted (attribute perf.skipped_records); a bad
/// header, attribute or feature table is an error: InvalidInput/Truncated/Unsupported,
/// "perf.data: ...".
/// With an unwinder, samples that carry user registers and a stack copy get their user frames
/// from it (kernel frames stay perf's); attributes perf.dwarf_samples and perf.unwound_samples
/// (only when an unwinder was given) count them, perf.stack_copy_size and
/// perf.full_stack_copies say how big the copies were asked to be and how many were filled (the
/// unwinder could not reach past them). Where it gives nothing the sample keeps perf's callchain
/// (or its IP).
Result<Profile> readPerfData(
    std::span<const uint8_t> data, PerfDataStats* stats = nullptr, PerfStackUnwinder* unwinder = nullptr);
/// The same, unwinding on threads threads (this one included; 0: as many as the machine has
/// cores, at most 4), each with an unwinder unwinders makes. The profile is the same whatever
/// the number.
Result<Profile> readPerfData(
    std::span<const uint8_t> data, PerfDataStats* stats, const PerfStackUnwinderFactory& unwinders, unsigned threads = 0);

} // namespace symflame::model
