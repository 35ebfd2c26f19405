// Files of the OpenTelemetry Collector's file exporter: several ExportProfilesServiceRequests, as
// JSON lines or length-prefixed protobuf (profile-formats.md §4). Each request has a dictionary
// of its own, so each is read by the OTLP reader on its own; this file frames them and counts the
// profiles over all of them.
#include "model/io/otlp/otlp.h"

#include "model/core/merge.h"

#include <string>
#include <utility>

namespace symflame::model {

namespace {

bool isSpace(uint8_t c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/// The lines of data that hold more than white space, without their line ends.
std::vector<std::span<const uint8_t>> nonEmptyLines(std::span<const uint8_t> data, size_t atMost = SIZE_MAX)
{
    std::vector<std::span<const uint8_t>> lines;
    size_t start = 0;
    while (start < data.size() && lines.size() < atMost) {
        size_t end = start;
        while (end < data.size() && data[end] != '\n')
            ++end;
        size_t a = start, b = end;
        while (a < b && isSpace(data[a]))
            ++a;
        while (b > a && isSpace(data[b - 1]))
            --b;
        if (a < b)
            lines.push_back(data.subspan(a, b - a));
        start = end + 1;
    }
    return lines;
}

uint32_t bigEndian32(const uint8_t* p)
{
    return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | uint32_t(p[3]);
}

std::string requestsBefore(size_t n)
{
    return n == 1 ? "1 request read before it" : std::to_string(n) + " requests read before it";
}

/// The requests of a length-prefixed file, in order.
Result<std::vector<std::span<const uint8_t>>> splitLengthPrefixed(std::span<const uint8_t> data)
{
    std::vector<std::span<const uint8_t>> requests;
    size_t at = 0;
    while (at < data.size()) {
        const std::string which = "request " + std::to_string(requests.size() + 1) + " (at byte " + std::to_string(at)
            + ", " + requestsBefore(requests.size()) + ")";
        if (data.size() - at < 4)
            return makeError(ErrorCode::Truncated, which + ": the file ends inside its 4-byte length");
        const uint32_t length = bigEndian32(data.data() + at);
        if (length == 0)
            return makeError(ErrorCode::InvalidInput, which + ": its length is 0");
        if (length > data.size() - at - 4)
            return makeError(ErrorCode::Truncated,
                which + ": its length, " + std::to_string(length) + " bytes, runs past the end of the file ("
                    + std::to_string(data.size() - at - 4) + " bytes left)");
        requests.push_back(data.subspan(at + 4, length));
        at += 4 + size_t(length);
    }
    return requests;
}

} // namespace

CollectorFraming collectorFraming(std::span<const uint8_t> data)
{
    // JSON lines: a second line that starts another object after a first that is a whole OTLP
    // JSON object on one line (a pretty-printed file's second line is a member, not an object).
    if (!data.empty() && (data[0] == '{' || isSpace(data[0]))) {
        const auto lines = nonEmptyLines(data, 2);
        if (lines.size() == 2 && lines[0].front() == '{' && lines[0].back() == '}' && lines[1].front() == '{'
            && looksLikeOtlpJson(lines[0]))
            return CollectorFraming::JsonLines;
        return CollectorFraming::None;
    }
    // Length-prefixed: a plain request starts with a field tag (0x0a, 0x12), which is not 0; a
    // length under 16 MiB starts with 0.
    if (data.size() > 4 && !looksLikeOtlpProtobuf(data)) {
        const uint32_t length = bigEndian32(data.data());
        if (length > 0 && length <= data.size() - 4 && looksLikeOtlpProtobuf(data.subspan(4, length)))
            return CollectorFraming::LengthPrefixed;
    }
    return CollectorFraming::None;
}

Result<Profile> readOtlpCollector(
    std::span<const uint8_t> data, CollectorFraming framing, const OtlpReadOptions& options, Progress* progress)
{
    // The requests as protobuf: slices of data, or JSON lines converted (kept in converted).
    std::vector<std::span<const uint8_t>> requests;
    std::vector<std::vector<uint8_t>> converted;
    if (framing == CollectorFraming::LengthPrefixed) {
        auto split = splitLengthPrefixed(data);
        if (!split)
            return split.error();
        requests = std::move(split).value();
    } else if (framing == CollectorFraming::JsonLines) {
        if (progress)
            progress->setStage("reading JSON lines");
        for (const auto& line : nonEmptyLines(data)) {
            const std::string which = "request " + std::to_string(converted.size() + 1) + " (JSON line "
                + std::to_string(converted.size() + 1) + ", " + requestsBefore(converted.size()) + ")";
            if (line.front() != '{')
                return makeError(ErrorCode::InvalidInput, which + ": not a JSON object");
            auto pb = otlpJsonToProtobuf(line);
            if (!pb)
                return makeError(pb.error().code, which + ": " + pb.error().message);
            converted.push_back(std::move(pb).value());
        }
        for (const auto& c : converted)
            requests.emplace_back(c);
    } else {
        return makeError(ErrorCode::InvalidInput, "not a file of OpenTelemetry Collector requests");
    }

    // Every request's profiles, in file order, and where each is.
    std::vector<ProfileChoice> all;
    std::vector<std::pair<size_t, size_t>> where; // request, profile within it
    OtlpReadOptions listing = options;
    listing.listOnly = true;
    listing.profileIndex.reset();
    for (size_t r = 0; r < requests.size(); ++r) {
        if (progress && progress->isCancelled())
            return makeError(ErrorCode::Cancelled, "cancelled");
        auto list = readOtlp(requests[r], listing);
        if (!list)
            return makeError(list.error().code,
                "request " + std::to_string(r + 1) + " of " + std::to_string(requests.size()) + " (" + requestsBefore(r)
                    + "): " + list.error().message);
        for (size_t j = 0; j < list->profilesInFile.size(); ++j) {
            all.push_back(std::move(list->profilesInFile[j]));
            where.emplace_back(r, j);
        }
    }
    if (all.empty())
        return makeError(ErrorCode::InvalidInput,
            "no profiles in the file (it holds " + std::to_string(requests.size()) + " requests)");
    if (!options.profileIndex) {
        // The whole capture: every request read whole, then merged into one profile.
        std::vector<Profile> parts;
        parts.reserve(requests.size());
        uint64_t samples = 0; // over all requests: the limit is the capture's
        for (size_t r = 0; r < requests.size(); ++r) {
            if (progress)
                progress->setStage("reading request " + std::to_string(r + 1) + " of " + std::to_string(requests.size()));
            auto part = readOtlp(requests[r], options, progress);
            if (!part)
                return makeError(part.error().code,
                    "request " + std::to_string(r + 1) + " of " + std::to_string(requests.size()) + " ("
                        + requestsBefore(r) + "): " + part.error().message);
            samples += part->sampleCount();
            if (samples > options.maxSamples)
                return makeError(ErrorCode::TooLarge,
                    "request " + std::to_string(r + 1) + " of " + std::to_string(requests.size()) + " ("
                        + requestsBefore(r) + "): the capture has more than " + std::to_string(options.maxSamples)
                        + " samples");
            parts.push_back(std::move(part).value());
        }
        if (progress)
            progress->setStage("merging " + std::to_string(parts.size()) + " requests");
        auto merged = mergeProfiles(parts, nullptr, MergeOptions { .oneCapture = true });
        if (!merged)
            return merged.error();
        merged->profilesInFile = std::move(all);
        merged->profileIndex.reset();
        return merged;
    }
    if (*options.profileIndex >= all.size())
        return makeError(ErrorCode::NotFound,
            "no profile " + std::to_string(*options.profileIndex) + ": the file holds " + std::to_string(all.size())
                + " profiles (0 to " + std::to_string(all.size() - 1) + ") in " + std::to_string(requests.size())
                + " requests");
    const auto [request, local] = where[*options.profileIndex];
    OtlpReadOptions one = options;
    one.profileIndex = local;
    auto profile = readOtlp(requests[request], one, progress);
    if (!profile)
        return makeError(profile.error().code,
            "request " + std::to_string(request + 1) + " of " + std::to_string(requests.size()) + ": "
                + profile.error().message);
    profile->profilesInFile = std::move(all);
    profile->profileIndex = options.profileIndex;
    return profile;
}

} // namespace symflame::model
