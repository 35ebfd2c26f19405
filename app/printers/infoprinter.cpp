#include "app/printers/infoprinter.h"

#include "app/printers/json.h"
#include "model/analysis/labelview.h"
#include "model/core/valueformat.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <ctime>

namespace symflame::app {

using namespace symflame::model;

namespace {

std::string formatTime(int64_t nanos)
{
    const std::time_t secs = static_cast<std::time_t>(nanos / 1000000000);
    std::tm tm {};
    if (!gmtime_r(&secs, &tm))
        return std::to_string(nanos);
    char buf[64];
    std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm);
    return buf;
}

std::string hex(uint64_t v)
{
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
    return buf;
}

// "12.5%" as the binaries panel shows shares.
std::string share(int64_t v, int64_t total)
{
    if (total == 0)
        return "-";
    const double pct = 100.0 * double(v) / double(total);
    char buf[32];
    std::snprintf(buf, sizeof buf, pct < 10 ? "%.2f%%" : "%.1f%%", pct);
    return buf;
}

bool hasTypes(const Profile& p)
{
    return !p.sampleTypes.empty();
}

size_t defaultType(const Profile& p)
{
    return hasTypes(p) ? std::min(p.defaultSampleType, p.sampleTypes.size() - 1) : 0;
}

uint64_t mappingId(const Profile& p, size_t i)
{
    return p.mappings[i].sourceId ? p.mappings[i].sourceId : uint64_t(i + 1);
}

void printBinariesText(Output& out, const std::vector<symbolize::BinaryRow>& rows, int64_t total)
{
    size_t problems = 0;
    for (const auto& r : rows)
        problems += symbolize::isProblem(r.state);
    out << "Binaries:      " << uint64_t(rows.size());
    if (!rows.empty())
        out << ", " << uint64_t(problems) << " with problems (listed first, hottest first)";
    out << '\n';
    if (rows.empty())
        return;
    size_t statusWidth = 6;
    for (const auto& r : rows)
        statusWidth = std::max(statusWidth, std::strlen(symbolize::binaryStateName(r.state)));
    out << "  "
        << "STATUS" << std::string(statusWidth - 6, ' ') << "     SELF    TOTAL  SYMBOLIZED  BINARY\n";
    for (const auto& r : rows) {
        const std::string status = symbolize::binaryStateName(r.state);
        out << "  " << status << std::string(statusWidth - status.size(), ' ') << ' ';
        out.padLeft(share(r.self, total), 8) << ' ';
        out.padLeft(share(r.total, total), 8) << ' ';
        out.padLeft(std::to_string(r.symbolized) + "/" + std::to_string(r.locations), 11) << "  " << r.name << '\n';
        const std::string indent(statusWidth + 3, ' ');
        out << indent << "build ID " << (r.buildId.empty() ? std::string("(none)") : r.buildId) << ", path "
            << (r.path.empty() ? std::string("(none)") : r.path) << '\n';
        if (!r.detail.empty())
            out << indent << r.detail << '\n';
    }
}

Json binaryJson(const symbolize::BinaryRow& r)
{
    return Json {
        { "name", r.name },
        { "path", r.path },
        { "build_id", r.buildId },
        { "status", symbolize::binaryStateName(r.state) },
        { "problem", symbolize::isProblem(r.state) },
        { "reason", r.detail },
        { "source", symbolize::debugSourceName(r.source) },
        { "debug_path", r.debugPath },
        { "debuginfod", r.debuginfod },
        { "mismatch_path", r.mismatchPath },
        { "mismatch_build_id", r.mismatchBuildId },
        { "self", r.self },
        { "total", r.total },
        { "locations", r.locations },
        { "symbolized", r.symbolized },
        { "tried", jsonArray(r.tried) },
    };
}

Json truncatedJson(const TruncatedStacks& t)
{
    if (!t.checked)
        return Json(nullptr);
    Json binaries = Json::array();
    for (const TruncatedStacks::Binary& b : t.binaries)
        binaries.push_back({ { "name", b.name }, { "path", b.path }, { "samples", b.samples },
            { "share", t.samples ? double(b.samples) / double(t.samples) : 0.0 } });
    return Json {
        { "samples", t.samples },
        { "truncated", t.truncated },
        { "share", t.share() },
        { "root_frame", std::string(kTruncatedFrameName) },
        { "binaries", std::move(binaries) },
        { "message", t.any() ? t.describe() : std::string() },
        { "advice", t.any() ? t.advice() : std::string() },
    };
}

// "Stacks:" the share of truncated stacks and the binaries where unwinding stopped (perf.data
// unwound by frame pointers or DWARF).
void printTruncatedText(Output& out, const TruncatedStacks& t)
{
    if (!t.checked)
        return;
    if (!t.any()) {
        out << "Stacks:        every sample's stack reaches a thread root (none truncated)\n";
        return;
    }
    out << "Stacks:        " << t.describe(8) << "\n               (drawn under \"" << kTruncatedFrameName << "\"; "
        << t.advice() << ")\n";
}

} // namespace

void printInfoJson(Output& out, const InfoResult& info)
{
    const Profile& p = *info.profile;
    Json profiles = Json::array();
    for (const ProfileChoice& c : p.profilesInFile)
        profiles.push_back({ { "service_name", c.serviceName }, { "executable_name", c.executableName }, { "pid", c.pid },
            { "sample_type", c.sampleType }, { "samples", c.samples } });
    Json labels = Json::array();
    for (const LabelKeyInfo& k : labelKeys(p))
        labels.push_back({ { "key", k.key }, { "values", uint64_t(k.values) }, { "samples", k.samples },
            { "numeric", k.numeric } });
    const auto span = timeSpan(p);
    Json sampleTypes = Json::array();
    for (const ValueType& t : p.sampleTypes)
        sampleTypes.push_back({ { "type", p.str(t.type) }, { "unit", p.str(t.unit) } });
    Json mappings = Json::array();
    for (size_t i = 0; i < p.mappings.size(); ++i) {
        const Mapping& m = p.mappings[i];
        mappings.push_back({ { "id", mappingId(p, i) }, { "file", p.str(m.file) }, { "build_id", p.str(m.buildId) },
            { "htlhash", p.str(m.htlHash) }, { "start", m.start }, { "limit", m.limit }, { "offset", m.offset },
            { "locations", info.counts[i].locations }, { "symbolized", info.counts[i].symbolized } });
    }
    Json binaries = Json::array();
    for (const symbolize::BinaryRow& r : info.binaries)
        binaries.push_back(binaryJson(r));

    Json json {
        { "file", info.path },
        { "format", profileFormatName(info.format) },
        { "format_version", p.formatVersion },
        { "profile", p.profileIndex ? Json(uint64_t(*p.profileIndex)) : Json(nullptr) },
        { "profiles", std::move(profiles) },
        { "sample_types", std::move(sampleTypes) },
        { "default_sample_type", hasTypes(p) ? Json(p.str(p.sampleTypes[defaultType(p)].type)) : Json(nullptr) },
        { "samples", p.sampleTally().count },
        { "sample_records", uint64_t(p.sampleCount()) },
        { "labels", std::move(labels) },
        { "timestamps", span ? Json { { "first", span->start }, { "last", span->end } } : Json(nullptr) },
        { "locations", uint64_t(p.locations.size()) },
        { "functions", uint64_t(p.functions.size()) },
        { "time_nanos", p.timeNanos },
        { "duration_nanos", p.durationNanos },
        { "period", p.period },
        { "period_type", { { "type", p.str(p.periodType.type) }, { "unit", p.str(p.periodType.unit) } } },
        { "mappings", std::move(mappings) },
        { "binaries_total", info.binariesTotal },
        { "binaries", std::move(binaries) },
        { "truncated_stacks", truncatedJson(info.truncated) },
    };
    writeJson(out, json);
    out << '\n';
}

void printInfoText(Output& out, const InfoResult& info)
{
    const Profile& p = *info.profile;
    out << "File:          " << info.path << "\nFormat:        " << profileFormatName(info.format);
    if (!p.formatVersion.empty())
        out << ' ' << p.formatVersion;
    out << '\n';
    if (!p.profilesInFile.empty()) {
        out << "Profiles:      " << uint64_t(p.profilesInFile.size());
        if (p.profileIndex)
            out << " (showing #" << uint64_t(*p.profileIndex) << "; all of them, merged, without --profile)\n";
        else
            out << " (showing all, merged; one with --profile N)\n";
        for (size_t i = 0; i < p.profilesInFile.size(); ++i)
            out << "  " << p.profilesInFile[i].describe(i) << '\n';
    }
    for (const Label& a : p.attributes)
        out << "Attribute:     " << p.str(a.key) << " = "
            << (a.str.empty() && a.num != 0 ? std::to_string(a.num) : std::string(p.str(a.str))) << '\n';
    out << "Sample types:  ";
    if (!hasTypes(p))
        out << "none";
    for (size_t i = 0; i < p.sampleTypes.size(); ++i) {
        out << (i ? ", " : "") << p.str(p.sampleTypes[i].type) << " (" << p.str(p.sampleTypes[i].unit) << ')';
        if (i == defaultType(p))
            out << " [default]";
    }
    // Samples as pprof totals them, and the records they are stored in when the two differ.
    const SampleTally tally = p.sampleTally();
    out << "\nSamples:       " << tally.count;
    if (tally.records)
        out << (tally.count == 1 ? " record" : " records") << " (no samples count type)";
    else if (tally.count != p.sampleCount())
        out << " in " << uint64_t(p.sampleCount()) << (p.sampleCount() == 1 ? " record" : " records");
    out << '\n';
    // Sample labels (attributes are above): each key, its number of values, the first few.
    for (const LabelKeyInfo& k : labelKeys(p)) {
        if (k.attribute)
            continue;
        out << "Label:         " << k.key << " (" << uint64_t(k.values) << (k.values == 1 ? " value" : " values") << ", "
            << k.samples << (k.samples == 1 ? " sample)" : " samples)");
        const auto values = labelValues(p, k.key, defaultType(p));
        std::string shown;
        size_t n = 0;
        for (const LabelValueInfo& v : values) {
            if (v.value.empty())
                continue;
            if (n++ == 5) {
                shown += ", ...";
                break;
            }
            shown += (shown.empty() ? "" : ", ") + v.value;
        }
        out << ": " << shown << '\n';
    }
    if (const auto span = timeSpan(p))
        out << "Timestamps:    " << formatTime(span->start) << " to " << formatTime(span->end) << " ("
            << formatValue(span->end - span->start, "nanoseconds") << ")\n";
    if (p.timeNanos != 0)
        out << "Time:          " << formatTime(p.timeNanos) << '\n';
    if (p.durationNanos != 0)
        out << "Duration:      " << formatValue(p.durationNanos, "nanoseconds") << '\n';
    if (p.period != 0) {
        out << "Period:        " << formatValue(p.period, p.str(p.periodType.unit));
        if (!p.periodType.type.empty())
            out << " of " << p.str(p.periodType.type);
        out << '\n';
    }
    out << "Locations:     " << uint64_t(p.locations.size()) << "\nFunctions:     " << uint64_t(p.functions.size())
        << "\nMappings:      " << uint64_t(p.mappings.size()) << '\n';
    for (size_t i = 0; i < p.mappings.size(); ++i) {
        const Mapping& m = p.mappings[i];
        out << "  " << mappingId(p, i) << "  " << (m.file.empty() ? std::string_view("(no file)") : p.str(m.file))
            << "\n      build ID " << (m.buildId.empty() ? std::string_view("(none)") : p.str(m.buildId));
        if (!m.htlHash.empty())
            out << ", htlhash " << p.str(m.htlHash);
        out << ", [" << hex(m.start) << ", " << hex(m.limit) << ") offset " << hex(m.offset) << ", symbolized "
            << info.counts[i].symbolized << " of " << info.counts[i].locations << " locations\n";
    }
    printTruncatedText(out, info.truncated);
    printBinariesText(out, info.binaries, info.binariesTotal);
}

} // namespace symflame::app
