// OpenTelemetry profiles (package opentelemetry.proto.profiles.v1development): the protobuf
// reader (ProfilesData, or the identical ExportProfilesServiceRequest body), the OTLP JSON reader
// and the protobuf writer. Field numbers are those of profile-formats.md §2.
//
// Reading: the layout (1.10.0, 1.9.0, 1.8.0 or 1.7.0) is told from wire types where the layouts
// differ; a file whose fields fit none of them is rejected with what was seen. A file holds
// resources × scopes × profiles sharing one dictionary. All profiles are read into one by default
// (a whole-system capture holds one resource per process, one profile per sample type in each):
// their sample types side by side (a sample of one profile has 0 for the others' types), the
// resource, scope and profile attributes they don't all share as labels of their samples.
// Count-only samples ("samples"/"count" with a period type and period, as the eBPF profiler's
// CPU samples) get their time as well, count × period, as the period type ("cpu"/"nanoseconds").
// One profile can be chosen by index, in file order; all are listed in Profile::profilesInFile.
//
// Into the model: dictionary entries are converted when a chosen profile first uses them;
// process.executable.build_id.{gnu,go,htlhash} mapping attributes become the mapping's identity;
// `profile.frame.type` the location's FrameKind; sample attributes labels; links and timestamps
// are kept (a sample with k timestamps becomes k samples, each with its timestamp). Mapping
// addresses are taken as the eBPF profiler writes them: ELF virtual addresses already
// (Mapping::ElfAddresses).
#pragma once

#include "model/io/zstd.h"
#include "model/core/profile.h"
#include "model/core/progress.h"
#include "model/core/result.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace symflame::model {

struct OtlpReadOptions {
    DecompressLimits limits;
    /// Which profile of the file to read (resources, scopes, profiles in file order), from 0;
    /// none: all of them, merged into one (the default).
    std::optional<size_t> profileIndex;
    /// Samples after expanding timestamps; more is TooLarge.
    uint64_t maxSamples = 200'000'000;
    /// Locations in one stack; a deeper stack is TooLarge.
    uint32_t maxStackDepth = 1u << 20;
    /// 1.7 layout: frames summed over the distinct slices of location_indices the samples name
    /// (each sample may name any slice, so N samples over N indices could make N²/2 frames from
    /// O(N) bytes); more is TooLarge. 256 M frames: 1 GiB of location ids.
    uint64_t maxStackFrames = uint64_t(1) << 28;
    /// Only list the file's profiles (Profile::profilesInFile, profileIndex 0); none is read.
    bool listOnly = false;
};

/// True when data (decompressed) looks like ProfilesData / ExportProfilesServiceRequest protobuf:
/// only fields 1 and 2 at the top, length-delimited, with a resource or dictionary inside.
bool looksLikeOtlpProtobuf(std::span<const uint8_t> data);
/// True when data is a JSON object that names OTLP profiles ("resourceProfiles", "dictionary").
bool looksLikeOtlpJson(std::span<const uint8_t> data);

/// Reads OTLP profiles protobuf (gzip-compressed or raw). Errors carry no path; callers add it.
Result<Profile> readOtlp(
    std::span<const uint8_t> data, const OtlpReadOptions& options = {}, Progress* progress = nullptr);

/// Reads OTLP JSON (the protobuf JSON mapping of ProfilesData). Errors carry no path.
Result<Profile> readOtlpJson(
    std::span<const uint8_t> data, const OtlpReadOptions& options = {}, Progress* progress = nullptr);

/// How the OpenTelemetry Collector's file exporter framed the requests (ExportProfilesServiceRequest)
/// of a file (profile-formats.md §4): JSON lines, one request per line, or protobuf requests each
/// after its length as a 4-byte big-endian integer.
enum class CollectorFraming { None, JsonLines, LengthPrefixed };
/// The framing of data (decompressed): None for one plain request, or anything else.
CollectorFraming collectorFraming(std::span<const uint8_t> data);
/// Reads a file of several requests, which make one capture: the profiles of every request are
/// listed in file order (Profile::profilesInFile spans them all) and options.profileIndex counts
/// over them all. Errors name the request (from 1) and how many requests came before it.
Result<Profile> readOtlpCollector(std::span<const uint8_t> data, CollectorFraming framing,
    const OtlpReadOptions& options = {}, Progress* progress = nullptr);

/// Converts OTLP JSON to the equivalent protobuf in the 1.10.0 layout (what readOtlpJson reads).
Result<std::vector<uint8_t>> otlpJsonToProtobuf(std::span<const uint8_t> json);

/// Encodes the profile as ProfilesData in the 1.10.0 layout (uncompressed): one resource, one
/// scope, one profile per sample type (OTLP profiles have one sample type each), sharing the
/// dictionary. The profile's attributes go back to the resource (except otel.scope.*).
std::vector<uint8_t> encodeOtlp(const Profile& profile);

/// Writes the profile as OTLP protobuf to path, atomically (gzip-compressed when path ends in .gz).
Status writeOtlpFile(const Profile& profile, const std::string& path);

/// hex(SHA-256(first 4096 bytes ‖ last 4096 bytes ‖ big-endian u64 size)[:16]): the htlhash the
/// OpenTelemetry eBPF profiler identifies executables by (files shorter than 4096 bytes use the
/// whole file for both parts).
std::string htlHashOf(std::span<const uint8_t> file);

} // namespace symflame::model
