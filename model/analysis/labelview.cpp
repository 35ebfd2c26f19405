#include "model/analysis/labelview.h"

#include <re2/re2.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <unordered_map>

namespace symflame::model {

namespace {

Error invalid(std::string message)
{
    return makeError(ErrorCode::InvalidInput, std::move(message));
}

// Units of numeric labels and range bounds: a dimension and the factor to its base unit.
struct Unit {
    int dimension = 0; // 0 none, 1 bytes, 2 time
    double factor = 1;
};

std::string lower(std::string_view s)
{
    std::string out(s);
    for (char& c : out)
        if (c >= 'A' && c <= 'Z')
            c = char(c - 'A' + 'a');
    return out;
}

std::optional<Unit> unitOf(std::string_view name)
{
    const std::string u = lower(name);
    if (u.empty() || u == "count")
        return Unit {};
    static const std::pair<const char*, Unit> kUnits[] = {
        { "b", { 1, 1 } }, { "byte", { 1, 1 } }, { "bytes", { 1, 1 } }, { "kb", { 1, 1024.0 } },
        { "kib", { 1, 1024.0 } }, { "mb", { 1, 1048576.0 } }, { "mib", { 1, 1048576.0 } },
        { "gb", { 1, 1073741824.0 } }, { "gib", { 1, 1073741824.0 } }, { "tb", { 1, 1099511627776.0 } },
        { "ns", { 2, 1 } }, { "nanosecond", { 2, 1 } }, { "nanoseconds", { 2, 1 } }, { "us", { 2, 1e3 } },
        { "microsecond", { 2, 1e3 } }, { "microseconds", { 2, 1e3 } }, { "ms", { 2, 1e6 } },
        { "millisecond", { 2, 1e6 } }, { "milliseconds", { 2, 1e6 } }, { "s", { 2, 1e9 } }, { "second", { 2, 1e9 } },
        { "seconds", { 2, 1e9 } }, { "m", { 2, 60e9 } }, { "minute", { 2, 60e9 } }, { "minutes", { 2, 60e9 } },
        { "h", { 2, 3600e9 } }, { "hour", { 2, 3600e9 } }, { "hours", { 2, 3600e9 } },
    };
    for (const auto& [n, unit] : kUnits)
        if (u == n)
            return unit;
    return std::nullopt;
}

struct Bound {
    double value = 0; // in the base unit of its dimension
    Unit unit;
};

// "N" or "Nunit"; none when the text is not of that form.
std::optional<Bound> parseBound(std::string_view text)
{
    size_t i = 0;
    if (i < text.size() && (text[i] == '+' || text[i] == '-'))
        ++i;
    const size_t digits = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9')
        ++i;
    if (i == digits)
        return std::nullopt;
    int64_t n = 0;
    const char* first = text.data() + (text[0] == '+' ? 1 : 0);
    if (std::from_chars(first, text.data() + i, n).ec != std::errc())
        return std::nullopt;
    const std::string_view unitName = text.substr(i);
    if (!std::all_of(unitName.begin(), unitName.end(), [](char c) {
            return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        }))
        return std::nullopt;
    const auto unit = unitOf(unitName);
    if (!unit)
        return std::nullopt;
    return Bound { double(n) * unit->factor, *unit };
}

} // namespace

struct TagFilter::Impl {
    std::string text;
    std::string description;
    std::string key; // empty: any
    std::vector<std::unique_ptr<RE2>> patterns;
    bool isRange = false;
    std::optional<Bound> low, high;
};

Result<TagFilter> TagFilter::parse(std::string_view spec)
{
    auto impl = std::make_shared<Impl>();
    impl->text = std::string(spec);
    std::string_view value = spec;
    if (const size_t eq = spec.find('='); eq != std::string_view::npos) {
        impl->key = std::string(spec.substr(0, eq));
        value = spec.substr(eq + 1);
    }
    if (value.empty())
        return invalid("empty label filter '" + std::string(spec) + "' (KEY=REGEX, KEY=RANGE or REGEX)");
    // A range: N, N:, :N or N:M.
    const size_t colon = value.find(':');
    const auto low = parseBound(value.substr(0, colon));
    const auto high = colon == std::string_view::npos ? std::nullopt : parseBound(value.substr(colon + 1));
    const bool emptyLow = colon == 0, emptyHigh = colon != std::string_view::npos && colon + 1 == value.size();
    if (colon == std::string_view::npos ? bool(low)
                                        : ((low || emptyLow) && (high || emptyHigh) && !(emptyLow && emptyHigh))) {
        if (low && high && low->unit.dimension != high->unit.dimension)
            return invalid("label filter '" + std::string(spec) + "': the range's bounds have units of other kinds");
        impl->isRange = true;
        impl->low = low;
        impl->high = colon == std::string_view::npos ? low : high;
        TagFilter f;
        f.m = std::move(impl);
        return f;
    }
    size_t start = 0;
    while (start <= value.size()) {
        size_t end = value.find(',', start);
        if (end == std::string_view::npos)
            end = value.size();
        const std::string_view pattern = value.substr(start, end - start);
        RE2::Options options;
        options.set_log_errors(false);
        auto re = std::make_unique<RE2>(re2::StringPiece(pattern.data(), pattern.size()), options);
        if (!re->ok())
            return invalid("label filter '" + std::string(spec) + "': bad regular expression '" + std::string(pattern)
                + "': " + re->error());
        impl->patterns.push_back(std::move(re));
        start = end + 1;
    }
    TagFilter f;
    f.m = std::move(impl);
    return f;
}

const std::string& TagFilter::text() const
{
    return m->text;
}

const std::string& TagFilter::describe() const
{
    return m->description.empty() ? m->text : m->description;
}

TagFilter TagFilter::equals(std::string_view key, std::string_view value)
{
    // Built directly, not parsed: a value that looks like a range ("1201") is still text here,
    // and a key holding '=' stays whole.
    const std::string quoted = RE2::QuoteMeta(re2::StringPiece(value.data(), value.size()));
    auto impl = std::make_shared<Impl>();
    impl->text = std::string(key) + "=^" + quoted + "$";
    impl->description = std::string(key) + " = " + std::string(value);
    impl->key = std::string(key);
    RE2::Options options;
    options.set_log_errors(false);
    impl->patterns.push_back(std::make_unique<RE2>("^" + quoted + "$", options));
    TagFilter out;
    out.m = std::move(impl);
    return out;
}

bool TagFilter::matches(const Profile& p, std::span<const Label> labels) const
{
    const Impl& f = *m;
    // The sample's labels, then the profile's attributes of keys the sample has none of.
    const auto forEach = [&](auto&& fn) {
        for (const Label& l : labels)
            if (fn(l))
                return true;
        for (const Label& a : p.attributes) {
            if (std::any_of(labels.begin(), labels.end(), [&](const Label& l) { return l.key == a.key; }))
                continue;
            if (fn(a))
                return true;
        }
        return false;
    };
    if (f.isRange) {
        return forEach([&](const Label& l) {
            if (!f.key.empty() && p.str(l.key) != f.key)
                return false;
            int64_t num = l.num;
            if (!l.str.empty()) {
                // A string label holding an integer (Parca Agent's "pid") compares as one.
                const std::string_view s = p.str(l.str);
                const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), num);
                if (ec != std::errc() || end != s.data() + s.size())
                    return false;
            }
            const auto unit = unitOf(p.str(l.numUnit));
            const Unit filterUnit = f.low ? f.low->unit : f.high->unit;
            double v = double(num);
            if (filterUnit.dimension != 0) {
                if (!unit || unit->dimension != filterUnit.dimension)
                    return false;
                v *= unit->factor;
            }
            return (!f.low || v >= f.low->value) && (!f.high || v <= f.high->value);
        });
    }
    if (!f.key.empty()) {
        std::string number;
        return forEach([&](const Label& l) {
            if (p.str(l.key) != f.key)
                return false;
            // A numeric label matches by its decimal text (pprof's regular expressions see
            // string labels only; its numeric ones it matches by ranges, which work here too).
            if (l.str.empty())
                number = std::to_string(l.num);
            const std::string_view v = l.str.empty() ? std::string_view(number) : p.str(l.str);
            return std::any_of(f.patterns.begin(), f.patterns.end(),
                [&](const auto& re) { return RE2::PartialMatch(re2::StringPiece(v.data(), v.size()), *re); });
        });
    }
    std::string keyValue;
    return std::all_of(f.patterns.begin(), f.patterns.end(), [&](const auto& re) {
        return forEach([&](const Label& l) {
            if (l.str.empty())
                return false;
            keyValue.assign(p.str(l.key));
            keyValue += ':';
            keyValue += p.str(l.str);
            return RE2::PartialMatch(keyValue, *re);
        });
    });
}

namespace {

void appendValue(std::string& out, const Profile& p, const Label& l)
{
    if (!out.empty())
        out += ',';
    // A label without a string is a number (0 too; an empty string label is none).
    if (!l.str.empty())
        out += p.str(l.str);
    else
        out += std::to_string(l.num);
}

} // namespace

std::optional<GroupFrame> groupFrameOf(const Profile& p, LocationId location)
{
    if (location.index() >= p.locations.size())
        return std::nullopt;
    const Location& loc = p.locations[location.index()];
    const auto lines = p.linesOf(loc);
    if (loc.kind != FrameKind::Label || lines.empty() || !lines[0].function.valid())
        return std::nullopt;
    const Function& fn = p.functions[lines[0].function.index()];
    return GroupFrame { p.str(fn.file), p.str(fn.name) };
}

std::string labelValueText(const Profile& p, std::span<const Label> labels, std::string_view key)
{
    std::string out;
    for (const Label& l : labels)
        if (p.str(l.key) == key)
            appendValue(out, p, l);
    if (out.empty())
        for (const Label& a : p.attributes)
            if (p.str(a.key) == key)
                appendValue(out, p, a);
    return out;
}

namespace {

// Per label set of p: whether view's focus and ignore rules keep its samples.
std::vector<uint8_t> keptSets(const Profile& p, const LabelView& view)
{
    std::vector<uint8_t> keep(p.labelSetCount(), 1);
    for (size_t s = 0; s < keep.size(); ++s) {
        const auto labels = p.labelSet(static_cast<uint32_t>(s));
        for (const TagFilter& f : view.focus)
            keep[s] = keep[s] && f.matches(p, labels);
        for (const TagFilter& f : view.ignore)
            keep[s] = keep[s] && !f.matches(p, labels);
    }
    return keep;
}

} // namespace

Result<Profile> applyLabelView(const Profile& in, const LabelView& view, Progress* progress)
{
    Profile out = in;
    if (view.empty())
        return out;

    // Per label set: kept or not, and its group frames (root and leaf, as a path id).
    const size_t sets = in.labelSetCount();
    const std::vector<uint8_t> keep = keptSets(in, view);
    std::vector<uint32_t> pathOf(sets, 0);
    std::vector<std::vector<LocationId>> paths { {} }; // path 0: no frames
    std::vector<size_t> leafCount { 0 };               // frames of each path that go at the leaf
    std::map<std::pair<std::string, std::string>, LocationId> groupLocation; // (key, value)
    std::map<std::vector<LocationId>, uint32_t> pathIds;
    const auto locationFor = [&](const std::string& key, std::string value) {
        if (value.empty())
            value = kNoLabelValue;
        auto [it, added] = groupLocation.try_emplace({ key, value }, LocationId());
        if (added)
            it->second = out.addNamedFrame(value, FrameKind::Label, key);
        return it->second;
    };
    const bool grouping = !view.rootKeys.empty() || !view.leafKeys.empty();
    // Only the sets samples use get group frames (set 0, none, may be unused).
    std::vector<uint8_t> used(sets, 0);
    for (size_t i = 0; i < in.sampleCount(); ++i)
        used[in.sampleLabelSet(i)] = 1;
    for (size_t s = 0; s < sets && grouping; ++s) {
        if (!used[s] || !keep[s])
            continue;
        const auto labels = in.labelSet(static_cast<uint32_t>(s));
        // Leaf first: the leaf keys last to first, then (after the stack) the root keys last
        // to first, so that the first root key is the outermost frame.
        std::vector<LocationId> path;
        for (size_t k = view.leafKeys.size(); k-- > 0;)
            path.push_back(locationFor(view.leafKeys[k], labelValueText(in, labels, view.leafKeys[k])));
        for (size_t k = view.rootKeys.size(); k-- > 0;)
            path.push_back(locationFor(view.rootKeys[k], labelValueText(in, labels, view.rootKeys[k])));
        auto [it, added] = pathIds.try_emplace(path, static_cast<uint32_t>(paths.size()));
        if (added) {
            paths.push_back(path);
            leafCount.push_back(view.leafKeys.size());
        }
        pathOf[s] = it->second;
    }

    out.sampleStacks.clear();
    out.sampleValues.clear();
    out.sampleLabelSets.clear();
    out.sampleTimestamps.clear();
    out.sampleLinks.clear();
    const bool hasLabels = in.hasLabels(), hasTimes = !in.sampleTimestamps.empty(), hasLinks = !in.sampleLinks.empty();
    // (stack, path) -> the new stack
    std::unordered_map<uint64_t, StackId> grouped;
    std::vector<LocationId> frames;
    for (size_t i = 0; i < in.sampleCount(); ++i) {
        if ((i & 0xffff) == 0 && progress) {
            if (progress->isCancelled())
                return makeError(ErrorCode::Cancelled, "cancelled");
            progress->setProgress(i, in.sampleCount());
        }
        const uint32_t set = in.sampleLabelSet(i);
        if (!keep[set])
            continue;
        if (view.timeRange) {
            const int64_t t = hasTimes ? in.sampleTimestamps[i] : 0;
            if (t == 0 || t < view.timeRange->start || t >= view.timeRange->end)
                continue;
        }
        StackId stack = in.sampleStacks[i];
        if (grouping) {
            const uint32_t path = pathOf[set];
            const uint64_t key = (uint64_t(stack.value) << 32) | path;
            auto [it, added] = grouped.try_emplace(key, StackId());
            if (added) {
                const auto& extra = paths[path];
                const size_t leaves = leafCount[path];
                frames.assign(extra.begin(), extra.begin() + ptrdiff_t(leaves));
                const auto original = in.stack(stack);
                frames.insert(frames.end(), original.begin(), original.end());
                frames.insert(frames.end(), extra.begin() + ptrdiff_t(leaves), extra.end());
                it->second = out.internStack(frames);
            }
            stack = it->second;
        }
        out.sampleStacks.push_back(stack);
        const auto values = in.values(i);
        out.sampleValues.insert(out.sampleValues.end(), values.begin(), values.end());
        if (hasLabels)
            out.sampleLabelSets.push_back(set);
        if (hasTimes)
            out.sampleTimestamps.push_back(in.sampleTimestamps[i]);
        if (hasLinks)
            out.sampleLinks.push_back(in.sampleLinks[i]);
    }
    out.finishBuilding();
    return out;
}

std::vector<LabelKeyInfo> labelKeys(const Profile& p)
{
    // Per set: how many samples use it.
    std::vector<uint64_t> uses(p.labelSetCount(), 0);
    for (size_t i = 0; i < p.sampleCount(); ++i)
        ++uses[p.sampleLabelSet(i)];
    struct Acc {
        std::map<std::string, int> values;
        uint64_t samples = 0;
        bool numeric = false;
        bool attribute = false;
    };
    std::map<std::string, Acc> keys;
    for (uint32_t s = 1; s < p.labelSetCount(); ++s) {
        if (uses[s] == 0)
            continue;
        std::vector<std::string_view> seen;
        for (const Label& l : p.labelSet(s)) {
            Acc& a = keys[std::string(p.str(l.key))];
            std::string v;
            appendValue(v, p, l);
            a.values.emplace(std::move(v), 0);
            a.numeric = a.numeric || l.str.empty();
            if (std::find(seen.begin(), seen.end(), p.str(l.key)) == seen.end()) {
                seen.push_back(p.str(l.key));
                a.samples += uses[s];
            }
        }
    }
    for (const Label& attr : p.attributes) {
        const std::string key(p.str(attr.key));
        if (keys.count(key))
            continue; // a sample label's key: counted there
        Acc& a = keys[key];
        std::string v;
        appendValue(v, p, attr);
        a.values.emplace(std::move(v), 0);
        a.numeric = attr.str.empty();
        a.samples = p.sampleCount();
        a.attribute = true;
    }
    std::vector<LabelKeyInfo> out;
    for (const auto& [key, a] : keys)
        out.push_back({ key, a.values.size(), a.samples, a.numeric, a.attribute });
    return out;
}

std::vector<LabelValueInfo> labelValues(const Profile& p, std::string_view key, size_t sampleType)
{
    std::vector<std::string> valueOfSet(p.labelSetCount());
    for (uint32_t s = 0; s < p.labelSetCount(); ++s)
        valueOfSet[s] = labelValueText(p, p.labelSet(s), key);
    std::map<std::string, LabelValueInfo> byValue;
    const size_t nTypes = p.sampleTypes.size();
    for (size_t i = 0; i < p.sampleCount(); ++i) {
        const std::string& v = valueOfSet[p.sampleLabelSet(i)];
        LabelValueInfo& info = byValue[v];
        ++info.samples;
        if (sampleType < nTypes)
            info.total += p.value(i, sampleType);
    }
    std::vector<LabelValueInfo> out;
    for (auto& [value, info] : byValue) {
        info.value = value;
        out.push_back(std::move(info));
    }
    std::stable_sort(out.begin(), out.end(), [](const LabelValueInfo& a, const LabelValueInfo& b) {
        return a.total != b.total ? a.total > b.total : a.value < b.value;
    });
    return out;
}

LabelView defaultLabelView(const Profile& p)
{
    LabelView view;
    std::string first;
    for (uint32_t s = 1; s < p.labelSetCount(); ++s) {
        const std::string pid = labelValueText(p, p.labelSet(s), "process.pid");
        if (pid.empty())
            continue;
        if (first.empty()) {
            first = pid;
        } else if (pid != first) {
            view.rootKeys = processKeys();
            break;
        }
    }
    return view;
}

TimeHistogram timeHistogram(const Profile& p, const LabelView& view, size_t sampleType, size_t buckets, size_t maxGroups)
{
    TimeHistogram h;
    const auto span = timeSpan(p);
    if (!span || buckets == 0 || sampleType >= p.sampleTypes.size())
        return h;
    h.span = *span;
    h.buckets = buckets;
    // Per label set: kept by the filters, and its group (by the first root key's value).
    const size_t sets = p.labelSetCount();
    const std::vector<uint8_t> keep = keptSets(p, view);
    std::vector<std::string> valueOf(sets);
    const std::string groupKey = view.rootKeys.empty() ? std::string() : view.rootKeys.front();
    for (size_t s = 0; s < sets && !groupKey.empty(); ++s) {
        valueOf[s] = labelValueText(p, p.labelSet(uint32_t(s)), groupKey);
        if (valueOf[s].empty())
            valueOf[s] = kNoLabelValue;
    }
    // The groups, largest first.
    std::map<std::string, int64_t> totals;
    for (size_t i = 0; i < p.sampleCount(); ++i) {
        const uint32_t s = p.sampleLabelSet(i);
        if (keep[s] && p.sampleTimestamps[i] != 0)
            totals[valueOf[s]] += p.value(i, sampleType);
    }
    std::vector<std::pair<std::string, int64_t>> order(totals.begin(), totals.end());
    std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    maxGroups = std::max<size_t>(maxGroups, 1);
    std::map<std::string, size_t> groupOf;
    for (size_t g = 0; g < order.size(); ++g) {
        if (g + 1 < maxGroups || order.size() <= maxGroups) {
            groupOf[order[g].first] = h.groups.size();
            h.groups.push_back(order[g].first);
        } else {
            if (h.groups.size() < maxGroups)
                h.groups.push_back("other");
            groupOf[order[g].first] = h.groups.size() - 1;
        }
    }
    if (h.groups.empty())
        h.groups.push_back(std::string());
    h.values.assign(buckets * h.groups.size(), 0);
    const double width = double(h.span.end - h.span.start) + 1;
    for (size_t i = 0; i < p.sampleCount(); ++i) {
        const int64_t t = p.sampleTimestamps[i];
        const uint32_t s = p.sampleLabelSet(i);
        if (t == 0 || !keep[s])
            continue;
        const auto b = std::min(buckets - 1, size_t(double(t - h.span.start) / width * double(buckets)));
        h.values[b * h.groups.size() + groupOf[valueOf[s]]] += p.value(i, sampleType);
    }
    return h;
}

std::optional<TimeRange> timeSpan(const Profile& p)
{
    std::optional<TimeRange> span;
    for (int64_t t : p.sampleTimestamps) {
        if (t == 0)
            continue;
        if (!span)
            span = TimeRange { t, t };
        span->start = std::min(span->start, t);
        span->end = std::max(span->end, t);
    }
    return span;
}

namespace {

// A time: a duration from start ("1.5s", "200ms", a bare number is seconds), or a bare integer
// above 10^15, nanoseconds since the epoch.
std::optional<int64_t> parseTime(std::string_view text, int64_t start)
{
    if (text.empty())
        return std::nullopt;
    int64_t whole = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), whole);
    if (ec == std::errc() && end == text.data() + text.size() && whole > 1'000'000'000'000'000)
        return whole;
    double number = 0;
    size_t i = 0;
    while (i < text.size() && ((text[i] >= '0' && text[i] <= '9') || text[i] == '.'))
        ++i;
    if (i == 0)
        return std::nullopt;
    const std::string digits(text.substr(0, i));
    char* stop = nullptr;
    number = std::strtod(digits.c_str(), &stop);
    if (stop != digits.c_str() + digits.size() || !std::isfinite(number))
        return std::nullopt;
    const std::string_view unitName = text.substr(i);
    const auto unit = unitName.empty() ? std::optional<Unit>(Unit { 2, 1e9 }) : unitOf(unitName);
    if (!unit || unit->dimension != 2)
        return std::nullopt;
    const double ns = number * unit->factor;
    if (ns > 9e18)
        return std::nullopt;
    return start + int64_t(ns);
}

} // namespace

Result<TimeRange> parseTimeRange(std::string_view text, int64_t start)
{
    const size_t comma = text.find(',');
    if (comma == std::string_view::npos)
        return invalid("--time-range wants START,END (offsets such as 1.5s,3s, or nanoseconds since the epoch), not '"
            + std::string(text) + "'");
    const auto from = parseTime(text.substr(0, comma), start);
    const std::string_view endText = text.substr(comma + 1);
    const auto to = endText.empty() ? std::optional<int64_t>(std::numeric_limits<int64_t>::max()) : parseTime(endText, start);
    if (!from || !to)
        return invalid("--time-range: cannot read '" + std::string(!from ? text.substr(0, comma) : endText)
            + "' as a time (an offset such as 1.5s or 200ms, or nanoseconds since the epoch)");
    if (*to <= *from)
        return invalid("--time-range: the end (" + std::string(endText) + ") is not after the start ("
            + std::string(text.substr(0, comma)) + ")");
    return TimeRange { *from, *to };
}

} // namespace symflame::model
