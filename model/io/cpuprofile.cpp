// V8 .cpuprofile reader: JSON through nlohmann-json, the node tree turned into stacks (leaf
// first, the "(root)" node left out), samples and their timestamps from timeDeltas.
#include "model/io/cpuprofile.h"

#include <nlohmann/json.hpp>

#include <limits>
#include <string>
#include <unordered_map>

namespace symflame::model {

namespace {

struct Node {
    LocationId location;
    int64_t parent = -1; ///< index into the node list, -1 for the root
};

bool isInteger(const nlohmann::json& j, const char* key)
{
    const auto it = j.find(key);
    return it != j.end() && it->is_number_integer();
}

// A string field, or empty when it is missing or not a string (json::value would throw).
std::string stringField(const nlohmann::json& j, const char* key)
{
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

} // namespace

bool looksLikeCpuProfile(std::span<const uint8_t> data)
{
    size_t i = 0;
    while (i < data.size() && (data[i] == ' ' || data[i] == '\n' || data[i] == '\r' || data[i] == '\t'))
        ++i;
    if (i >= data.size() || data[i] != '{')
        return false;
    ++i;
    while (i < data.size() && (data[i] == ' ' || data[i] == '\n' || data[i] == '\r' || data[i] == '\t'))
        ++i;
    const std::string_view rest(reinterpret_cast<const char*>(data.data()) + i, data.size() - i);
    for (std::string_view key : {"\"nodes\"", "\"startTime\"", "\"endTime\"", "\"samples\"", "\"timeDeltas\""})
        if (rest.starts_with(key))
            return true;
    return false;
}

Result<Profile> readCpuProfile(std::span<const uint8_t> data, const CpuProfileLimits& limits)
{
    const nlohmann::json doc = nlohmann::json::parse(data.begin(), data.end(), nullptr, /*allow_exceptions=*/false);
    if (doc.is_discarded())
        return makeError(ErrorCode::InvalidInput, "cpuprofile: not valid JSON");
    if (!doc.is_object() || !doc.contains("nodes") || !doc["nodes"].is_array())
        return makeError(ErrorCode::InvalidInput, "cpuprofile: no `nodes` array");
    const auto& nodes = doc["nodes"];
    const nlohmann::json emptyArray = nlohmann::json::array();
    const auto& samples = doc.contains("samples") ? doc["samples"] : emptyArray;
    const auto& deltas = doc.contains("timeDeltas") ? doc["timeDeltas"] : emptyArray;
    if (!samples.is_array() || !deltas.is_array())
        return makeError(ErrorCode::InvalidInput, "cpuprofile: `samples` or `timeDeltas` is not an array");
    if (deltas.size() != samples.size())
        return makeError(ErrorCode::InvalidInput,
            "cpuprofile: " + std::to_string(samples.size()) + " samples but " + std::to_string(deltas.size())
                + " timeDeltas");

    Profile p;
    p.sampleTypes.push_back({p.strings.intern("samples"), p.strings.intern("count")});
    p.sampleTypes.push_back({p.strings.intern("wall"), p.strings.intern("nanoseconds")});
    p.defaultSampleType = 1;
    p.periodType = p.sampleTypes[1];

    std::vector<Node> list(nodes.size());
    std::unordered_map<int64_t, size_t> indexOfId;
    std::unordered_map<std::string, FunctionId> functionOf; // by name + '\0' + url
    for (size_t i = 0; i < nodes.size(); ++i) {
        const auto& n = nodes[i];
        const std::string where = "cpuprofile: node " + std::to_string(i);
        if (!n.is_object() || !isInteger(n, "id") || !n.contains("callFrame") || !n["callFrame"].is_object())
            return makeError(ErrorCode::InvalidInput, where + " has no id or callFrame");
        if (!indexOfId.emplace(n["id"].get<int64_t>(), i).second)
            return makeError(ErrorCode::InvalidInput, where + ": duplicate id " + std::to_string(n["id"].get<int64_t>()));
        const auto& frame = n["callFrame"];
        std::string name = stringField(frame, "functionName");
        const std::string url = stringField(frame, "url");
        const int64_t line = isInteger(frame, "lineNumber") ? frame["lineNumber"].get<int64_t>() : -1;
        const int64_t column = isInteger(frame, "columnNumber") ? frame["columnNumber"].get<int64_t>() : -1;
        if (name.empty())
            name = "(anonymous)";
        auto [it, added] = functionOf.try_emplace(name + '\0' + url, FunctionId(p.functions.size()));
        if (added) {
            Function f;
            f.name = p.strings.intern(name);
            f.systemName = f.name;
            f.file = p.strings.intern(url);
            p.functions.push_back(f);
        }
        Location loc;
        loc.linesBegin = static_cast<uint32_t>(p.lines.size());
        loc.lineCount = 1;
        loc.kind = FrameKind::JavaScript;
        loc.sourceId = static_cast<uint64_t>(n["id"].get<int64_t>());
        p.lines.push_back({it->second, line >= 0 ? line + 1 : 0, column >= 0 ? column + 1 : 0});
        list[i].location = LocationId(p.locations.size());
        p.locations.push_back(loc);
    }
    for (size_t i = 0; i < nodes.size(); ++i) {
        const auto children = nodes[i].find("children");
        if (children == nodes[i].end())
            continue;
        if (!children->is_array())
            return makeError(ErrorCode::InvalidInput, "cpuprofile: node " + std::to_string(i) + " children is not an array");
        for (const auto& c : *children) {
            const auto it = c.is_number_integer() ? indexOfId.find(c.get<int64_t>()) : indexOfId.end();
            if (it == indexOfId.end())
                return makeError(ErrorCode::InvalidInput, "cpuprofile: node " + std::to_string(i) + " has an unknown child");
            if (list[it->second].parent != -1 || it->second == i)
                return makeError(ErrorCode::InvalidInput, "cpuprofile: node " + std::to_string(it->second) + " has two parents");
            list[it->second].parent = static_cast<int64_t>(i);
        }
    }

    // Stacks per node, built on first use (leaf first, the parentless root left out).
    std::vector<StackId> stackOf(list.size());
    std::vector<LocationId> frames;
    size_t framesBuilt = 0; // summed over the distinct stacks (limits.maxStackFrames)
    auto stackFor = [&](size_t node) -> Result<StackId> {
        if (stackOf[node].valid())
            return stackOf[node];
        frames.clear();
        for (int64_t n = static_cast<int64_t>(node); n != -1; n = list[n].parent) {
            if (list[n].parent == -1 && !frames.empty())
                break; // the root
            if (frames.size() > list.size())
                return makeError(ErrorCode::InvalidInput, "cpuprofile: the node tree has a cycle");
            if (framesBuilt + frames.size() >= limits.maxStackFrames)
                return makeError(ErrorCode::TooLarge,
                    "cpuprofile: the sampled stacks hold more than " + std::to_string(limits.maxStackFrames)
                        + " frames (the node tree is too deep)");
            frames.push_back(list[n].location);
        }
        framesBuilt += frames.size();
        stackOf[node] = p.internStack(frames);
        return stackOf[node];
    };

    const int64_t startMicros = isInteger(doc, "startTime") ? doc["startTime"].get<int64_t>() : 0;
    const int64_t endMicros = isInteger(doc, "endTime") ? doc["endTime"].get<int64_t>() : 0;
    // Microseconds, later nanoseconds: every time must fit in int64 nanoseconds.
    constexpr int64_t kMaxMicros = std::numeric_limits<int64_t>::max() / 1000 / 4;
    const auto inRange = [&](int64_t v) { return v > -kMaxMicros && v < kMaxMicros; };
    if (!inRange(startMicros) || !inRange(endMicros))
        return makeError(ErrorCode::InvalidInput, "cpuprofile: startTime or endTime out of range");
    std::vector<int64_t> timestamps(samples.size());
    int64_t t = startMicros;
    for (size_t i = 0; i < samples.size(); ++i) {
        if (!deltas[i].is_number_integer())
            return makeError(ErrorCode::InvalidInput, "cpuprofile: timeDeltas[" + std::to_string(i) + "] is not an integer");
        const int64_t d = deltas[i].get<int64_t>();
        if (!inRange(d) || !inRange(t + d))
            return makeError(ErrorCode::InvalidInput, "cpuprofile: timeDeltas[" + std::to_string(i) + "] out of range");
        t += d;
        timestamps[i] = t;
    }
    for (size_t i = 0; i < samples.size(); ++i) {
        const auto it = samples[i].is_number_integer() ? indexOfId.find(samples[i].get<int64_t>()) : indexOfId.end();
        if (it == indexOfId.end())
            return makeError(ErrorCode::InvalidInput, "cpuprofile: sample " + std::to_string(i) + " names an unknown node");
        auto stack = stackFor(it->second);
        if (!stack)
            return stack.error();
        // The time a sample stands for runs until the next one (the last until endTime).
        const int64_t next = i + 1 < samples.size() ? timestamps[i + 1] : std::max(endMicros, timestamps[i]);
        const int64_t values[2] = {1, std::max<int64_t>(0, next - timestamps[i]) * 1000};
        p.addSample(*stack, values);
    }
    p.sampleTimestamps.reserve(timestamps.size());
    for (int64_t micros : timestamps)
        p.sampleTimestamps.push_back(micros * 1000);
    // startTime counts from V8's monotonic clock, not the epoch: no wall-clock time is known.
    p.timeNanos = 0;
    p.durationNanos = std::max<int64_t>(0, endMicros - startMicros) * 1000;
    p.finishBuilding();
    p.updateFrameStatuses();
    return p;
}

} // namespace symflame::model
