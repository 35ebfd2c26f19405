// Truncated (broken) stacks: samples whose stack does not reach a thread's root (`_start`,
// `__libc_start_call_main`, `clone3`, `start_thread`...), as frame-pointer unwinding leaves them
// when a binary on the stack was built without frame pointers. Found after symbolization (the
// roots are known by name), counted per binary (the binary of the outermost frame, where the
// unwinder stopped) and put under one synthetic "[truncated]" root frame, so that the flame
// graph, the top table, folded stacks and saved profiles show them apart instead of as false
// roots.
#pragma once

#include "model/core/ids.h"
#include "model/core/profile.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace symflame::model {

/// The function name of the synthetic root frame truncated stacks are put under.
inline constexpr std::string_view kTruncatedFrameName = "[truncated]";

/// True for the functions a thread's stack starts at: the process's entry and libc's start
/// (`_start`, `__libc_start_main`, `__libc_start_call_main`, ld.so's `_dl_start_user`), a thread's
/// (`clone`, `clone3`, `start_thread`), Go's (`runtime.goexit`, `runtime.mstart`, `runtime.rt0_go`).
/// A symbol version (`@GLIBC_2.2.5`) and glibc's internal `__GI_` prefix are ignored.
bool isThreadRootFunction(std::string_view name);

/// True for the synthetic "[truncated]" frame markTruncatedStacks adds (no mapping, one line,
/// that function name); it survives a save and a read back as pprof or OTLP.
bool isTruncatedFrame(const Profile& profile, LocationId location);

/// Whether stacks of profile are checked: perf.data whose callchains perf unwound by frame
/// pointers (attribute perf.call_graph "fp") or that symflame unwound from perf's stack copies
/// (`--call-graph dwarf`: "dwarf", once an unwinder went over them: attribute
/// perf.unwound_samples). Not pprof, OTLP or the other formats: their producers unwind
/// by other means (Go's runtime, gperftools' libunwind, eBPF profilers' own unwinders) and cut
/// deep stacks at a depth limit, which is not a missing frame pointer.
bool checksTruncatedStacks(const Profile& profile);

/// What was found: samples (the "samples" count type where the profile has one, else records)
/// with truncated stacks, and per binary where their unwinding stopped.
struct TruncatedStacks {
    struct Binary {
        std::string path; ///< the mapping's file; empty for frames outside every mapping
        std::string name; ///< its base name, "(unmapped)" for none
        uint64_t samples = 0;
    };
    bool checked = false;   ///< the profile's stacks were examined (see checksTruncatedStacks)
    uint64_t samples = 0;   ///< every sample of the profile
    uint64_t truncated = 0; ///< samples whose stack has user frames and reaches no thread root
    std::vector<Binary> binaries; ///< most samples first
    uint64_t stacksMarked = 0; ///< stacks markTruncatedStacks put under "[truncated]"
    /// How the stacks were unwound (perf.call_graph): "fp", "dwarf", or "" (read back from a
    /// saved "[truncated]" frame).
    std::string callGraph;
    uint64_t stackCopySize = 0;   ///< dwarf: the stack copy's size perf was asked for
    uint64_t fullStackCopies = 0; ///< dwarf: samples whose stack copy was full (the stack went on)

    double share() const { return samples ? double(truncated) / double(samples) : 0.0; }
    bool any() const { return truncated > 0; }
    /// "12.5% of samples have truncated stacks; binaries without frame pointers: prog (11.9%),
    /// libfoo.so (0.6%)": up to maxBinaries binaries (in a mapping), then "and N more"; shares
    /// of all samples. For DWARF unwinding "unwinding stopped in: ..." (a binary there may lack
    /// unwind tables, or the stack copy ended in it).
    std::string describe(size_t maxBinaries = 4) const;
    /// What to do about it: for frame pointers, kAdvice; for DWARF unwinding, a larger stack copy
    /// when copies were full, else finding the binaries and their unwind tables.
    std::string advice() const;
    static constexpr std::string_view kAdvice = "record with perf record --call-graph dwarf, or rebuild them with "
                                                "-fno-omit-frame-pointer";
};

/// Examines the stacks without changing them; stacks already under "[truncated]" count as
/// truncated (a profile saved after markTruncatedStacks, read again), attributed to the frame
/// above it. checked is false (and nothing counted) for profiles checksTruncatedStacks refuses
/// that have no "[truncated]" frame. A sample is truncated when its stack has a user (non-kernel)
/// frame and its outermost user frame is no thread root (or has no name); stacks of kernel
/// frames only (idle, kernel threads) are not, and kernel frames on top of a user stack are left
/// out of the decision. The binary blamed is the outermost user frame's that lies in a mapping.
TruncatedStacks findTruncatedStacks(const Profile& profile);

/// findTruncatedStacks, then each truncated stack not yet under "[truncated]" gets that frame
/// added as its root (one location and function, added once), the samples moved to the new
/// stacks. Run after symbolization: unnamed outermost frames count as truncated.
TruncatedStacks markTruncatedStacks(Profile& profile);

} // namespace symflame::model
