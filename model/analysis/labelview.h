// Label views: which samples to keep by their labels and times, and grouping them under synthetic
// frames per label value, as pprof's -tagfocus / -tagignore and -tagroot / -tagleaf do. Used by
// the CLI (--tag-focus, --tag-ignore, --group-by, --time-range) and the viewer's group-by,
// label filters and timeline selection; both apply the view to the profile before the call
// tree, so the flame graph, tables, search and binaries panel all see the same samples.
//
// A sample's labels are its own (Profile::sampleLabels) and, for a key it has none of, the
// profile's attribute of that key (a merged OTLP capture keeps what every process shares there).
#pragma once

#include "model/core/profile.h"
#include "model/core/progress.h"
#include "model/core/result.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace symflame::model {

/// One -tagfocus / -tagignore rule.
///   KEY=RE[,RE...]   the sample has label KEY with a value one of the REs matches (RE2, unanchored;
///                    a numeric label by its decimal text)
///   RE[,RE...]       every RE matches "key:value" of some string label of the sample
///   [KEY=]RANGE      a numeric label (KEY's, or any) in RANGE: N, N:, :N or N:M, each N an
///                    integer with an optional unit (4kb, 10ms: bytes scale by 1024, times by 1000);
///                    a string label that is an integer counts as a number without unit
class TagFilter {
public:
    /// InvalidInput for an empty rule or a regular expression RE2 rejects, naming it.
    static Result<TagFilter> parse(std::string_view spec);
    /// The samples whose label key is exactly value (its regular expression quoted).
    static TagFilter equals(std::string_view key, std::string_view value);
    /// For people: "key = value" for equals(), else the rule as given.
    const std::string& describe() const;
    bool matches(const Profile& profile, std::span<const Label> labels) const;
    /// The rule as given.
    const std::string& text() const;
    bool operator==(const TagFilter& other) const { return text() == other.text(); }

private:
    struct Impl;
    std::shared_ptr<const Impl> m;
};

struct TimeRange {
    int64_t start = 0; ///< nanoseconds since the epoch, inclusive
    int64_t end = 0;   ///< exclusive
    bool operator==(const TimeRange&) const = default;
};

struct LabelView {
    std::vector<std::string> rootKeys; ///< a frame per key at the root, the first key outermost
    std::vector<std::string> leafKeys; ///< a frame per key at the leaf, the last key innermost
    std::vector<TagFilter> focus;      ///< keeps the samples every one of these matches
    std::vector<TagFilter> ignore;     ///< drops the samples any of these matches
    /// Keeps the samples whose timestamp lies in the range (samples without one are dropped).
    std::optional<TimeRange> timeRange;

    bool empty() const
    {
        return rootKeys.empty() && leafKeys.empty() && focus.empty() && ignore.empty() && !timeRange;
    }
    bool operator==(const LabelView&) const = default;
};

/// Label keys that tell a whole-system capture's processes apart, as the viewer groups by them.
inline const std::vector<std::string>& processKeys()
{
    static const std::vector<std::string> keys { "process.executable.name", "process.pid" };
    return keys;
}

/// How a profile is first shown: a capture of several processes (samples labelled with more than
/// one process.pid) grouped by process (processKeys()); anything else as it is.
LabelView defaultLabelView(const Profile& profile);

/// The group of the samples without a key's label, as pprof names a frame without a name.
inline constexpr const char* kNoLabelValue = "<unknown>";

/// The profile with the view applied: the kept samples in their order (values, labels,
/// timestamps, links), each stack with a frame per root and leaf key added, a location of kind
/// FrameKind::Label whose function is named by the sample's values of the key joined by ","
/// ("<unknown>" when it has none) and whose file is the key. Cancelled through progress.
Result<Profile> applyLabelView(const Profile& in, const LabelView& view, Progress* progress = nullptr);

/// What a group frame stands for: its label key and value.
struct GroupFrame {
    std::string_view key;
    std::string_view value;
};
/// The group frame at location (kind FrameKind::Label, as applyLabelView makes them); none for
/// any other location.
std::optional<GroupFrame> groupFrameOf(const Profile& profile, LocationId location);

/// The values of key on a sample with labels, as group frames name them ("" when none).
std::string labelValueText(const Profile& profile, std::span<const Label> labels, std::string_view key);

/// A label key of the profile's samples (or attributes), for `info` and the labels panel.
struct LabelKeyInfo {
    std::string key;
    size_t values = 0;   ///< distinct values
    uint64_t samples = 0; ///< sample records that have it (every one for an attribute)
    bool numeric = false;
    bool attribute = false; ///< a profile attribute's key (every sample has its one value)
};
/// Every label key, sorted by key.
std::vector<LabelKeyInfo> labelKeys(const Profile& profile);

/// One value of a key with the samples that have it.
struct LabelValueInfo {
    std::string value;
    uint64_t samples = 0; ///< sample records
    int64_t total = 0;    ///< their values of the sample type asked for
};
/// The values of key, largest total first; samples without the key are one entry with value "".
std::vector<LabelValueInfo> labelValues(const Profile& profile, std::string_view key, size_t sampleType);

/// Samples over time, for the timeline: the value of sampleType of the samples view's label
/// filters keep (its time range and grouping aside) summed per time bucket, per group: the
/// values of view.rootKeys[0] when grouped (the largest maxGroups - 1, the rest as one group
/// "other"), else one group.
struct TimeHistogram {
    TimeRange span;                  ///< first to last timestamp of all samples (end inclusive)
    size_t buckets = 0;
    std::vector<std::string> groups; ///< largest first
    std::vector<int64_t> values;     ///< buckets x groups, bucket-major
    int64_t value(size_t bucket, size_t group) const { return values[bucket * groups.size() + group]; }
};
/// Empty (buckets 0) when no sample has a timestamp.
TimeHistogram timeHistogram(
    const Profile& profile, const LabelView& view, size_t sampleType, size_t buckets, size_t maxGroups = 8);

/// The earliest and latest sample timestamp; none when no sample has one.
std::optional<TimeRange> timeSpan(const Profile& profile);

/// Parses --time-range START,END: each an offset from start (the profile's first timestamp) as
/// a duration ("1.5s", "200ms", "2m", a bare number is seconds) or an absolute time in
/// nanoseconds since the epoch (a bare integer above 10^15); END may be empty (to the end).
Result<TimeRange> parseTimeRange(std::string_view text, int64_t start);

} // namespace symflame::model
