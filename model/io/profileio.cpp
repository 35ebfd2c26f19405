// Loading and saving profiles by path: reads the file, decompresses gzip or zstd, recognises the format
// from its first fields and hands it to the reader; every error names the file.
#include "model/io/profileio.h"

#include "model/core/merge.h"
#include "model/io/cpuprofile.h"
#include "model/io/fileio.h"
#include "model/io/gunzipstream.h"
#include "model/io/legacy/legacy.h"
#include "model/io/otlp/otlp.h"
#include "model/io/perf/perfdata.h"
#include "model/io/pprof/pprof.h"
#include "model/io/protowire.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>

namespace symflame::model {

namespace {

using protowire::DecodeError;
using protowire::Decoder;
using protowire::Field;
using protowire::WireType;

// Wire type each top-level field of perftools.profiles.Profile has (index = field number).
bool pprofTopLevelTypeOk(uint32_t number, WireType type)
{
    switch (number) {
    case 1: // sample_type
    case 2: // sample
    case 3: // mapping
    case 4: // location
    case 5: // function
    case 6: // string_table
    case 11: // period_type
        return type == WireType::Len;
    case 13: // comment, packed or not
        return type == WireType::Len || type == WireType::Varint;
    case 7:
    case 8:
    case 9:
    case 10:
    case 12:
    case 14:
    case 15:
        return type == WireType::Varint;
    default:
        return true;
    }
}

// A profile is taken for pprof when its first fields parse as protobuf, at least one is a pprof
// field and every pprof field has its wire type. Only the first fields are looked at, so a
// truncated file is still recognised (and the reader then says where it ends).
bool looksLikePprof(std::span<const uint8_t> data)
{
    Decoder d(data);
    Field f;
    int known = 0;
    for (int fields = 0; fields < 64 && d.next(f); ++fields) {
        if (f.number > 15)
            continue;
        if (!pprofTopLevelTypeOk(f.number, f.type))
            return false;
        ++known;
    }
    if (d.failed()) {
        if (d.error() != DecodeError::Truncated)
            return false;
        // The field that runs past the end counts when its tag is a pprof one.
        if (f.number >= 1 && f.number <= 15 && pprofTopLevelTypeOk(f.number, f.type))
            ++known;
    }
    return known > 0;
}

std::string describeStart(std::span<const uint8_t> data)
{
    const size_t n = std::min<size_t>(data.size(), 8);
    std::string hex;
    std::string text;
    for (size_t i = 0; i < n; ++i) {
        char buf[4];
        std::snprintf(buf, sizeof buf, "%02x", data[i]);
        if (i)
            hex += ' ';
        hex += buf;
        const char c = static_cast<char>(data[i]);
        text += (data[i] >= 0x20 && data[i] < 0x7f && c != '"') ? c : '.';
    }
    return "it starts with " + hex + " \"" + text + "\"";
}

} // namespace

const char* profileFormatName(ProfileFormat f)
{
    switch (f) {
    case ProfileFormat::Unknown:
        return "unknown";
    case ProfileFormat::Pprof:
        return "pprof";
    case ProfileFormat::CpuProfile:
        return "cpuprofile";
    case ProfileFormat::Otlp:
        return "otlp";
    case ProfileFormat::OtlpJson:
        return "otlp-json";
    case ProfileFormat::OtlpCollectorJson:
        return "otlp-collector-json";
    case ProfileFormat::OtlpCollectorProto:
        return "otlp-collector-proto";
    case ProfileFormat::GperftoolsCpu:
        return "gperftools-cpu";
    case ProfileFormat::HeapProfile:
        return "heap-profile";
    case ProfileFormat::ContentionProfile:
        return "contention-profile";
    case ProfileFormat::ThreadProfile:
        return "thread-profile";
    case ProfileFormat::GoCountProfile:
        return "go-count-profile";
    case ProfileFormat::JavaProfile:
        return "java-profile";
    case ProfileFormat::PerfData:
        return "perf.data";
    }
    return "?";
}

ProfileFormat detectFormat(std::span<const uint8_t> decompressed)
{
    if (decompressed.empty())
        return ProfileFormat::Unknown;
    if (looksLikePerfData(decompressed))
        return ProfileFormat::PerfData;
    // First: its header of zero words could pass for an empty length-prefixed Collector request.
    if (looksLikeGperftoolsCpu(decompressed))
        return ProfileFormat::GperftoolsCpu;
    // Its text could pass for a pprof comment field ('h' is field 13, varint).
    if (looksLikeHeapProfile(decompressed))
        return ProfileFormat::HeapProfile;
    // pprof's order: count, thread, then contention profiles.
    if (looksLikeGoCountProfile(decompressed))
        return ProfileFormat::GoCountProfile;
    if (looksLikeThreadProfile(decompressed))
        return ProfileFormat::ThreadProfile;
    if (looksLikeContentionProfile(decompressed))
        return ProfileFormat::ContentionProfile;
    if (looksLikeJavaProfile(decompressed))
        return ProfileFormat::JavaProfile;
    // Before OTLP JSON, whose first object a JSON lines file starts with.
    switch (collectorFraming(decompressed)) {
    case CollectorFraming::JsonLines:
        return ProfileFormat::OtlpCollectorJson;
    case CollectorFraming::LengthPrefixed:
        return ProfileFormat::OtlpCollectorProto;
    case CollectorFraming::None:
        break;
    }
    if (looksLikeOtlpJson(decompressed))
        return ProfileFormat::OtlpJson;
    // Before pprof: OTLP's two top-level fields also have pprof's numbers and wire types.
    if (looksLikeOtlpProtobuf(decompressed))
        return ProfileFormat::Otlp;
    if (looksLikePprof(decompressed))
        return ProfileFormat::Pprof;
    if (looksLikeCpuProfile(decompressed))
        return ProfileFormat::CpuProfile;
    return ProfileFormat::Unknown;
}

namespace {

// How much of a gzip file is inflated first to tell its format.
constexpr size_t kSniffBytes = size_t(1) << 20;

// True when the format detectFormat gives for a file's first bytes is the one it gives for the
// whole file: the protobuf sniffers look at the first 64 fields (from the start, and from byte 4
// for a length-prefixed Collector file), which must lie inside the prefix or end it in an error
// of their own; the text sniffers at the first line, which must end within its first 4 KiB.
bool prefixDecides(std::span<const uint8_t> prefix)
{
    const auto fieldsInside = [&](size_t from) {
        Decoder d(prefix.subspan(from));
        Field f;
        for (int n = 0; n < 64; ++n)
            if (!d.next(f))
                return d.failed() && d.error() != DecodeError::Truncated;
        return true;
    };
    const auto firstBytes = prefix.first(std::min<size_t>(prefix.size(), 4096));
    const bool lineEnds = std::find(firstBytes.begin(), firstBytes.end(), '\n') != firstBytes.end();
    return prefix.size() > 4 && lineEnds && fieldsInside(0) && fieldsInside(4);
}

// A gzip-compressed pprof file, when its first inflated bytes tell so, is read as a stream
// (readPprof) and never inflated whole; nullopt for any other file.
std::optional<Result<Profile>> loadStreamedPprof(FileContents& file, const LoadOptions& options, Progress* progress)
{
    const std::span<const uint8_t> bytes = file.bytes();
    if (!isGzip(bytes))
        return std::nullopt;
    std::vector<uint8_t> prefix(kSniffBytes);
    GunzipStream sniff(bytes, options.limits);
    size_t got = 0;
    while (got < prefix.size()) {
        auto n = sniff.read(std::span<uint8_t>(prefix).subspan(got));
        if (!n || *n == 0)
            return std::nullopt; // a short or broken file: read whole, which gives its error
        got += *n;
    }
    if (detectFormat(prefix) != ProfileFormat::Pprof || !prefixDecides(prefix))
        return std::nullopt;
    PprofReadOptions po;
    po.limits = options.limits;
    po.inputDoneBefore = [&file](size_t offset) { file.dropPagesBefore(offset); };
    return readPprof(bytes, po, progress);
}

// loadProfile on the file's bytes.
Result<Profile> loadFrom(
    FileContents& file, const std::string& path, const LoadOptions& options, Progress* progress, ProfileFormat* format)
{
    std::vector<uint8_t> inflated;
    const std::span<const uint8_t> bytes = file.bytes();
    if (auto streamed = loadStreamedPprof(file, options, progress)) {
        if (format)
            *format = ProfileFormat::Pprof;
        if (!*streamed)
            return streamed->error().withPath(path);
        return std::move(*streamed);
    }
    const char* compression = isGzip(bytes) ? "gzip" : isZstd(bytes) ? "zstd" : nullptr;
    const bool compressed = compression != nullptr;
    auto decompressed = decompressIfCompressed(bytes, inflated, options.limits, progress);
    if (!decompressed)
        return decompressed.error().withPath(path);
    const std::span<const uint8_t> raw = *decompressed;
    if (compressed)
        file.release(); // the compressed bytes are no longer needed: free them before parsing

    const ProfileFormat detected = detectFormat(raw);
    if (format)
        *format = detected;
    if (detected != ProfileFormat::Pprof && detected != ProfileFormat::CpuProfile && detected != ProfileFormat::Unknown
        && detected != ProfileFormat::GperftoolsCpu && detected != ProfileFormat::HeapProfile
        && detected != ProfileFormat::ContentionProfile && detected != ProfileFormat::ThreadProfile
        && detected != ProfileFormat::GoCountProfile && detected != ProfileFormat::JavaProfile && detected != ProfileFormat::PerfData && progress)
        progress->setStage("reading OTLP");
    OtlpReadOptions oo;
    oo.limits = options.limits;
    oo.profileIndex = options.profileIndex;
    switch (detected) {
    case ProfileFormat::Otlp: {
        auto profile = readOtlp(raw, oo, progress);
        if (!profile)
            return profile.error().withPath(path);
        return profile;
    }
    case ProfileFormat::OtlpJson: {
        auto profile = readOtlpJson(raw, oo, progress);
        if (!profile)
            return profile.error().withPath(path);
        return profile;
    }
    case ProfileFormat::OtlpCollectorJson:
    case ProfileFormat::OtlpCollectorProto: {
        const auto framing = detected == ProfileFormat::OtlpCollectorJson ? CollectorFraming::JsonLines
                                                                          : CollectorFraming::LengthPrefixed;
        auto profile = readOtlpCollector(raw, framing, oo, progress);
        if (!profile)
            return profile.error().withPath(path);
        return profile;
    }
    case ProfileFormat::Pprof: {
        PprofReadOptions po;
        po.limits = options.limits;
        auto profile = readPprof(raw, po, progress);
        if (!profile)
            return profile.error().withPath(path);
        return profile;
    }
    case ProfileFormat::CpuProfile: {
        auto profile = readCpuProfile(raw);
        if (!profile)
            return profile.error().withPath(path);
        return profile;
    }
    case ProfileFormat::GperftoolsCpu: {
        auto profile = readGperftoolsCpu(raw);
        if (!profile)
            return profile.error().withPath(path);
        return profile;
    }
    case ProfileFormat::HeapProfile: {
        auto profile = readHeapProfile(raw);
        if (!profile)
            return profile.error().withPath(path);
        return profile;
    }
    case ProfileFormat::ContentionProfile:
    case ProfileFormat::ThreadProfile:
    case ProfileFormat::GoCountProfile:
    case ProfileFormat::JavaProfile: {
        auto profile = detected == ProfileFormat::ContentionProfile ? readContentionProfile(raw)
            : detected == ProfileFormat::ThreadProfile              ? readThreadProfile(raw)
            : detected == ProfileFormat::GoCountProfile             ? readGoCountProfile(raw)
                                                                    : readJavaProfile(raw);
        if (!profile)
            return profile.error().withPath(path);
        return profile;
    }
    case ProfileFormat::PerfData: {
        if (progress)
            progress->setStage(options.perfUnwinder ? "reading perf.data, unwinding stacks" : "reading perf.data");
        auto profile = options.perfUnwinder ? readPerfData(raw, nullptr, options.perfUnwinder, options.perfUnwindThreads)
                                            : readPerfData(raw);
        if (!profile)
            return profile.error().withPath(path);
        return profile;
    }
    case ProfileFormat::Unknown:
        break;
    }
    return makeError(ErrorCode::Unsupported,
        std::string("not a profile symflame can read (")
            + (compressed ? std::string(compression) + "-compressed; once decompressed " : std::string())
            + describeStart(raw) + ", which is neither pprof, OTLP profiles (protobuf or JSON), a V8 .cpuprofile a legacy profile go tool pprof reads nor a perf.data)",
        path);
}

} // namespace

Result<Profile> loadProfile(
    const std::string& path, const LoadOptions& options, Progress* progress, ProfileFormat* format)
{
    if (progress)
        progress->setStage("reading file");
    auto file = readFileContents(path);
    if (!file)
        return file.error().withPath(path);
    auto profile = loadFrom(*file, path, options, progress, format);
    if (file->changedWhileRead()) // what was parsed is partly zeros: not the file
        return makeError(ErrorCode::Io,
            "the file shrank while it was being read (is a program still writing it?); open it again once it is complete",
            path);
    return profile;
}

Result<Profile> loadProfiles(const std::vector<std::string>& paths, const LoadOptions& options, Progress* progress)
{
    if (paths.size() == 1)
        return loadProfile(paths[0], options, progress);
    if (paths.empty())
        return makeError(ErrorCode::InvalidInput, "no files to read");
    std::vector<Profile> profiles;
    profiles.reserve(paths.size());
    for (size_t i = 0; i < paths.size(); ++i) {
        StageProgress stage(
            progress, StageProgress::kScale * i / paths.size(), StageProgress::kScale * (i + 1) / paths.size());
        stage.setStage("reading file " + std::to_string(i + 1) + " of " + std::to_string(paths.size()));
        auto loaded = loadProfile(paths[i], options, &stage);
        if (!loaded)
            return loaded.error();
        profiles.push_back(std::move(loaded).value());
    }
    if (progress)
        progress->setStage("merging");
    size_t differing = 0;
    auto merged = mergeProfiles(profiles, &differing);
    if (!merged)
        return makeError(
            merged.error().code, "cannot merge it with " + paths[0] + ": " + merged.error().message, paths[differing]);
    return merged;
}

Status saveProfile(const Profile& profile, const std::string& path, ProfileFormat format, const std::string& inputPath)
{
    if (!inputPath.empty() && isSameFile(path, inputPath))
        return makeError(ErrorCode::Usage, "refusing to overwrite the input file", path);
    switch (format) {
    case ProfileFormat::Pprof:
        return writePprofFile(profile, path);
    case ProfileFormat::Otlp:
        return writeOtlpFile(profile, path);
    case ProfileFormat::OtlpJson:
    case ProfileFormat::OtlpCollectorJson:
    case ProfileFormat::OtlpCollectorProto:
    case ProfileFormat::CpuProfile:
    case ProfileFormat::GperftoolsCpu:
    case ProfileFormat::HeapProfile:
    case ProfileFormat::ContentionProfile:
    case ProfileFormat::ThreadProfile:
    case ProfileFormat::GoCountProfile:
    case ProfileFormat::JavaProfile:
    case ProfileFormat::PerfData:
    case ProfileFormat::Unknown:
        break;
    }
    return makeError(
        ErrorCode::Usage, std::string("cannot write profiles in the ") + profileFormatName(format) + " format", path);
}

} // namespace symflame::model
