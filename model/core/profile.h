// The format-independent profile: flat tables with strong ids, interned strings and
// deduplicated stacks, sized for ten million samples. Readers (pprof, later OTLP and others)
// fill it; the symbolization pass rewrites its locations and functions; the call tree, tables
// and flame layout read it.
#pragma once

#include "model/core/ids.h"
#include "model/core/stackindex.h"
#include "model/core/stringtable.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace symflame::model {

class Profile;

struct ValueType {
    StringId type; ///< "cpu", "samples", "alloc_space"
    StringId unit; ///< "nanoseconds", "count", "bytes"
};

/// How far a frame got in symbolization.
enum class FrameStatus : uint8_t {
    Symbolized,    ///< has at least one line with a function
    AddressOnly,   ///< an address with no mapping to look it up in
    BinaryOnly,    ///< an address in a known binary, not (yet) symbolized
    NotApplicable, ///< a mapping that can't be symbolized: kernel, [vdso], anonymous, JIT
    SourceMapped,  ///< a JavaScript frame resolved through its script's source map
    NoSourceMap,   ///< a JavaScript frame of a script whose source map is missing or unusable
};
const char* frameStatusName(FrameStatus s);

/// What produced the frame; drives coloring by type. Interpreted kinds come already named.
enum class FrameKind : uint8_t {
    Unknown,
    Native,
    Kernel,
    Go,
    Rust,
    Python,
    Php,
    Jvm,
    Ruby,
    Perl,
    JavaScript,
    DotNet,
    Beam,
    /// A synthetic frame of a label's value (group by): function name the value, file the key.
    Label,
};
const char* frameKindName(FrameKind k);

struct Mapping {
    enum Flag : uint8_t {
        HasFunctions = 1,
        HasFilenames = 2,
        HasLineNumbers = 4,
        HasInlineFrames = 8,
        /// Addresses of this mapping's locations already are ELF virtual addresses of the file
        /// (OTLP from the eBPF profiler): the symbolizer looks them up as they are.
        ElfAddresses = 16,
    };
    uint64_t start = 0;  ///< runtime address where the mapping begins
    uint64_t limit = 0;  ///< one past its end
    uint64_t offset = 0; ///< file offset mapped at start
    StringId file;       ///< path of the binary as the producer saw it
    StringId buildId;    ///< hex GNU build ID (or Go build ID), as given
    uint8_t flags = 0;
    uint64_t sourceId = 0; ///< id in the file it was read from (pprof Mapping.id), for messages
    StringId goBuildId;  ///< Go build ID when the producer gave one separately (OTLP)
    StringId htlHash;    ///< OTLP's file hash (process.executable.build_id.htlhash): 32 hex digits

    bool has(Flag f) const { return (flags & f) != 0; }
};

struct Function {
    StringId name;       ///< demangled, human name
    StringId systemName; ///< mangled or raw name
    StringId file;
    int64_t startLine = 0;
    uint64_t sourceId = 0;
};

/// One entry of a location's inline chain.
struct Line {
    FunctionId function;
    int64_t line = 0;   ///< 1-based, 0 = unknown
    int64_t column = 0; ///< 1-based, 0 = unknown
};

struct Location {
    MappingId mapping; ///< invalid when the producer knew no mapping
    uint64_t address = 0;
    uint32_t linesBegin = 0; ///< first entry in Profile::lines
    uint32_t lineCount = 0;  ///< inline chain length: innermost first, last is the physical frame
    FrameStatus status = FrameStatus::BinaryOnly;
    FrameKind kind = FrameKind::Unknown;
    bool isFolded = false;
    uint64_t sourceId = 0;
};

struct Label {
    StringId key;
    StringId str;     ///< non-empty for a string label
    int64_t num = 0;  ///< value of a numeric label (when str is empty)
    StringId numUnit; ///< unit of a numeric label

    /// The same key and value (ids of one profile's string table).
    bool operator==(const Label&) const = default;
};

/// A trace span a sample was taken in (OTLP Link).
struct SampleLink {
    uint8_t traceId[16] = {};
    uint8_t spanId[8] = {};
};

/// Deduplication of label sets while a profile is built (Profile::internLabelSet): the sets'
/// bytes to their ids, rebuilt from the profile's sets when it is behind (after a copy).
class LabelSetIndex {
public:
    uint32_t intern(Profile& profile, std::span<const Label> labels);
    void clear();

private:
    static void appendKey(std::string& key, std::span<const Label> labels);
    std::unordered_map<std::string, uint32_t> m_ids;
    size_t m_indexed = 0; ///< sets of the profile in m_ids (the empty set 0 is never)
    uint32_t m_last = 0; ///< the set interned last
    std::string m_key;
};

/// One profile of a file that holds several (OTLP: resource × scope × profile), as listed to
/// choose from.
struct ProfileChoice {
    std::string serviceName;    ///< resource attribute service.name
    std::string executableName; ///< resource attribute process.executable.name
    std::string sampleType;     ///< "cpu (nanoseconds)"
    uint64_t samples = 0;       ///< sample entries in the file
    int64_t pid = 0;            ///< resource attribute process.pid (0: none)
    /// "#1  checkout  app (pid 42)  cpu (nanoseconds)  1234 samples": the service and the
    /// executable where the resource names them
    std::string describe(size_t index) const;
};

/// A profile's number of samples, and whether it had to be counted as records (no count type).
struct SampleTally {
    uint64_t count = 0;
    bool records = false; ///< no "samples" count type: count is the number of sample records
    /// "396 samples", "1 sample", "228 sample records".
    std::string describe() const;
};

class Profile {
public:
    StringTable strings;

    std::vector<ValueType> sampleTypes;
    size_t defaultSampleType = 0; ///< index into sampleTypes
    ValueType periodType;
    int64_t period = 0;
    int64_t timeNanos = 0;
    int64_t durationNanos = 0;
    std::vector<StringId> comments;
    StringId dropFrames;
    StringId keepFrames;
    StringId docUrl;

    std::vector<Mapping> mappings;
    std::vector<Function> functions;
    std::vector<Location> locations;
    std::vector<Line> lines; ///< inline chains of all locations, back to back

    // Stacks, deduplicated: stack i is stackLocations[stackBegin[i] .. stackBegin[i+1]), leaf first.
    std::vector<uint32_t> stackBegin{0};
    std::vector<LocationId> stackLocations;

    // Samples: sample i has stack sampleStacks[i] and values sampleValues[i*n .. i*n+n) where
    // n = sampleTypes.size().
    std::vector<StackId> sampleStacks;
    std::vector<int64_t> sampleValues;
    // Labels, as sets: each distinct set of labels is stored once (samples of one thread, one
    // process, share theirs). Set s is labels[labelSetBegin[s] .. labelSetBegin[s+1]); set 0 is
    // the empty set. sampleLabelSets is empty when no sample has labels, else one set per sample.
    std::vector<Label> labels;
    std::vector<uint32_t> labelSetBegin{0, 0};
    std::vector<uint32_t> sampleLabelSets;
    // Timestamps in nanoseconds: empty, or one per sample (0 = none).
    std::vector<int64_t> sampleTimestamps;
    // Trace links: empty, or one per sample, an index into links (0 = none; links[0] is unused).
    std::vector<uint32_t> sampleLinks;
    std::vector<SampleLink> links;

    /// Attributes of the profile as a whole (OTLP: resource, scope and profile attributes, in
    /// that order), as labels: key and string or number.
    std::vector<Label> attributes;
    /// The profiles of the file this one was read from, when it holds several kinds (OTLP); empty
    /// for single-profile formats. profileIndex is the one read; none when all were read, merged
    /// (their sample types side by side, the attributes they don't share as sample labels).
    std::vector<ProfileChoice> profilesInFile;
    std::optional<size_t> profileIndex;
    /// The file format's version the reader saw ("1.10.0" for OTLP), empty when not versioned.
    std::string formatVersion;

    /// The first attribute named key (string or numeric), or null when there is none.
    const Label* findAttribute(std::string_view key) const;
    /// The string value of attribute key, or "" when there is none.
    std::string_view attribute(std::string_view key) const;

    // --- access
    /// The number of sample records (a record is one stack with its values; a producer may
    /// write one record for many samples of a stack). What a user calls "samples" is
    /// sampleTally().
    size_t sampleCount() const { return sampleStacks.size(); }
    size_t stackCount() const { return stackBegin.size() - 1; }
    std::span<const LocationId> stack(StackId id) const
    {
        return {stackLocations.data() + stackBegin[id.index()], stackLocations.data() + stackBegin[id.index() + 1]};
    }
    std::span<const LocationId> sampleStack(size_t sample) const { return stack(sampleStacks[sample]); }
    /// The stacks cut into `parts` runs of consecutive stacks with about the same number of
    /// frames each (work shared out between threads): run g is stacks [runs[g], runs[g + 1]).
    std::vector<size_t> stackRunsByFrames(unsigned parts) const;
    std::span<const int64_t> values(size_t sample) const
    {
        const size_t n = sampleTypes.size();
        return {sampleValues.data() + sample * n, n};
    }
    int64_t value(size_t sample, size_t type) const { return sampleValues[sample * sampleTypes.size() + type]; }
    size_t labelSetCount() const { return labelSetBegin.size() - 1; }
    std::span<const Label> labelSet(uint32_t set) const
    {
        return {labels.data() + labelSetBegin[set], labels.data() + labelSetBegin[set + 1]};
    }
    uint32_t sampleLabelSet(size_t sample) const { return sampleLabelSets.empty() ? 0 : sampleLabelSets[sample]; }
    std::span<const Label> sampleLabels(size_t sample) const { return labelSet(sampleLabelSet(sample)); }
    bool hasLabels() const { return !sampleLabelSets.empty(); }
    std::span<const Line> linesOf(const Location& loc) const { return {lines.data() + loc.linesBegin, loc.lineCount}; }
    std::span<Line> linesOf(const Location& loc) { return {lines.data() + loc.linesBegin, loc.lineCount}; }

    const Mapping* mappingOf(const Location& loc) const
    {
        return loc.mapping.valid() ? &mappings[loc.mapping.index()] : nullptr;
    }
    std::string_view str(StringId id) const { return strings.get(id); }

    /// How many samples the profile holds as a user counts them (what `go tool pprof` totals):
    /// the sum of its "samples" count type where it has one, else its number of records.
    SampleTally sampleTally() const;
    /// Index of the sample type named type (e.g. "cpu"); -1 when there is none.
    int findSampleType(std::string_view type) const;
    /// Sum of every sample's value of the given type.
    int64_t totalValue(size_t type) const;
    /// Per stack id, the sum of the values of the given type of the samples with that stack.
    std::vector<int64_t> valuePerStack(size_t type) const;

    // --- building
    /// Adds a stack (leaf first), returning the id of an identical one if it exists.
    StackId internStack(std::span<const LocationId> locations);
    /// Adds a stack that the caller knows is none of the profile's stacks yet (a reader that
    /// tells stacks apart by their encoded bytes), without looking for it.
    StackId appendNewStack(std::span<const LocationId> locations);
    /// Appends a location of one frame that is no code (no mapping, no address): a function of
    /// that name (and file, when given), symbolized, of that kind. Synthetic roots such as a
    /// label's frame or "[truncated]" are made so.
    LocationId addNamedFrame(std::string_view name, FrameKind kind, std::string_view file = {});
    /// Appends a sample; values must have sampleTypes.size() entries.
    void addSample(StackId stack, std::span<const int64_t> values);
    /// The id of the set holding labels (in this order), adding it when it is new; the empty set is 0.
    uint32_t internLabelSet(std::span<const Label> labels);
    /// Gives the sample set (an id from internLabelSet); samples not given one have none.
    void setSampleLabelSet(size_t sample, uint32_t set);
    /// Drops the look-up tables used while building (internStack's index).
    void finishBuilding();

    /// Recomputes each location's FrameStatus from its lines and mapping (readers call this).
    void updateFrameStatuses();

private:
    StackIndex m_stackIndex;
    LabelSetIndex m_labelSetIndex;
};

/// True for mappings that pprof's conventions call unsymbolizable: "[vdso]", "[vsyscall]",
/// "[kernel.kallsyms]...", "linux-vdso...", "/dev/dri/...", "//anon...".
bool isUnsymbolizableMappingName(std::string_view file);
/// True for the kernel image as perf names it ("[kernel.kallsyms]", and "[kernel.kallsyms]_text"
/// as its MMAP record spells it): no file of its own, but a vmlinux with its build ID names it.
bool isKernelImageMappingName(std::string_view file);

} // namespace symflame::model
