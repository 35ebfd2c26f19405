// Loading and saving profiles by path: detects the format, adds the path to every error.
// New formats (OTLP, folded, .cpuprofile) plug in here.
#pragma once

#include "model/core/profile.h"
#include "model/core/progress.h"
#include "model/core/result.h"
#include "model/io/perf/perfunwinder.h"
#include "model/io/zstd.h"

#include <span>
#include <string>
#include <vector>

namespace symflame::model {

enum class ProfileFormat {
    Unknown,
    Pprof,
    CpuProfile,
    Otlp,
    OtlpJson,
    OtlpCollectorJson, ///< the OpenTelemetry Collector's file exporter: JSON lines
    OtlpCollectorProto, ///< the same, length-prefixed protobuf requests
    GperftoolsCpu, ///< gperftools' binary CPU profile (legacy, as go tool pprof reads it)
    HeapProfile, ///< heap/growth profile text (gperftools HEAPPROFILE, heapz)
    ContentionProfile, ///< contention/mutex profile text (`--- contentionz`, `--- mutex:`)
    ThreadProfile, ///< thread profile text (`--- threadz N ---`)
    GoCountProfile, ///< Go's goroutine/threadcreate text (`NAME profile: total N`)
    JavaProfile, ///< Java heap text (`--- heapz 1 ---`; Java contention text is a ContentionProfile)
    PerfData, ///< Linux perf's perf.data (file or pipe mode)
};
const char* profileFormatName(ProfileFormat f);

struct LoadOptions {
    DecompressLimits limits;
    /// For files that hold several profiles (OTLP): which one, from 0; none: all, merged.
    std::optional<size_t> profileIndex;
    /// perf.data recorded with `--call-graph dwarf`: makes the unwinder of its user stacks
    /// (symbolize's libdwfl one in the CLI and the viewer); none: perf's callchains as recorded.
    PerfStackUnwinderFactory perfUnwinder;
    /// Threads that unwind them, each with an unwinder perfUnwinder makes (0: one per core, at
    /// most 4).
    unsigned perfUnwindThreads = 0;
};

/// Guesses the format from the first bytes (after gunzip or unzstd when compressed).
ProfileFormat detectFormat(std::span<const uint8_t> decompressed);

/// Reads and parses the file at path; errors have path set. The format read is put in *format
/// when given.
Result<Profile> loadProfile(const std::string& path, const LoadOptions& options = {}, Progress* progress = nullptr,
    ProfileFormat* format = nullptr);

/// Reads the files and merges them into one profile as `go tool pprof a b` merges them
/// (mergeProfiles); one file is read as loadProfile reads it. Progress goes file by file
/// ("reading file 2 of 3"). Errors have the path of the file that could not be read, or that
/// does not merge with the first ("cannot merge it with FIRST: ...").
Result<Profile> loadProfiles(
    const std::vector<std::string>& paths, const LoadOptions& options = {}, Progress* progress = nullptr);

/// Writes the profile to path (atomically): pprof gzip-compressed, OTLP protobuf (gzip-compressed
/// when path ends in .gz). Refuses to overwrite inputPath when it names the same file.
Status saveProfile(const Profile& profile, const std::string& path, ProfileFormat format = ProfileFormat::Pprof,
    const std::string& inputPath = {});

} // namespace symflame::model
