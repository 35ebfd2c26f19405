// perf.data reader: the header and its attribute and feature sections (or, in pipe mode, the
// HEADER_ATTR and HEADER_FEATURE records), then the records in file order. Every length comes
// from the file, so each is checked against what is left before it is used; a record whose size
// is below its header's is the end of the usable data (it cannot be stepped over), counted.
#include "model/io/perf/perfdata.h"

#include "model/core/hex.h"
#include "model/io/perf/perfbuildidcache.h"
#include "model/io/perf/unwindpool.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace symflame::model {

namespace {

constexpr uint64_t kMagic = 0x32454c4946524550ULL; // "PERFILE2" read little-endian
constexpr uint64_t kMagicSwapped = 0x50455246494c4532ULL;

// perf_event_attr.sample_type bits.
enum : uint64_t {
    kSampleIp = 1u << 0,
    kSampleTid = 1u << 1,
    kSampleTime = 1u << 2,
    kSampleAddr = 1u << 3,
    kSampleRead = 1u << 4,
    kSampleCallchain = 1u << 5,
    kSampleId = 1u << 6,
    kSampleCpu = 1u << 7,
    kSamplePeriod = 1u << 8,
    kSampleStreamId = 1u << 9,
    kSampleRaw = 1u << 10,
    kSampleBranchStack = 1u << 11,
    kSampleRegsUser = 1u << 12,
    kSampleStackUser = 1u << 13,
    kSampleIdentifier = 1u << 16,
};
// read_format bits.
enum : uint64_t {
    kReadTotalTimeEnabled = 1,
    kReadTotalTimeRunning = 2,
    kReadId = 4,
    kReadGroup = 8,
    kReadLost = 16,
};
// Record types.
enum : uint32_t {
    kRecMmap = 1,
    kRecLost = 2,
    kRecComm = 3,
    kRecExit = 4,
    kRecFork = 7,
    kRecSample = 9,
    kRecMmap2 = 10,
    kRecHeaderAttr = 64,
    kRecHeaderEventType = 65,
    kRecTracingData = 66,
    kRecHeaderBuildId = 67,
    kRecFinishedRound = 68,
    kRecAuxtrace = 71,
    kRecHeaderFeature = 80,
};
// Feature bits (adds_features).
enum : unsigned {
    kFeatBuildId = 2,
    kFeatHostname = 3,
    kFeatOsRelease = 4,
    kFeatVersion = 5,
    kFeatArch = 6,
    kFeatCmdline = 11,
    kFeatEventDesc = 12,
    kFeatClockData = 29, ///< u32 version, u32 clockid, u64 wall-clock ns, u64 the clock's ns at that moment
    kFeatCount = 256,
};
constexpr uint16_t kMiscCpuModeMask = 7;
constexpr uint16_t kMiscKernel = 1;
constexpr uint16_t kMiscMmapData = 1u << 13;
constexpr uint16_t kMiscMmapBuildId = 1u << 14;
constexpr uint32_t kProtExec = 4;
constexpr uint16_t kMiscBuildIdSize = 1u << 15;
constexpr uint64_t kContextMax = uint64_t(-4095);
constexpr uint64_t kContextKernel = uint64_t(-128);
constexpr uint64_t kContextGuestKernel = uint64_t(-2176);
constexpr uint64_t kContextUser = uint64_t(-512);
constexpr uint64_t kBranchCallStack = 1u << 11; ///< PERF_SAMPLE_BRANCH_CALL_STACK: LBR call stacks
constexpr uint64_t kBranchHwIndex = 1u << 17;
constexpr uint64_t kAttrFlagSampleIdAll = 1u << 18;
constexpr size_t kAttrSizeVer0 = 64;
constexpr size_t kMaxCallchain = 65536;
/// Below it (the first page) no code is mapped: such a "return address" is a frame-pointer walk
/// gone astray, kept as perf recorded it.
constexpr uint64_t kFirstCodeAddress = 4096;

Error bad(ErrorCode code, const std::string& what)
{
    return makeError(code, "perf.data: " + what);
}

// A little-endian T at p (one load on a little-endian machine).
template <typename T>
T loadLe(const uint8_t* p)
{
    T v = 0;
    if constexpr (std::endian::native == std::endian::little) {
        std::memcpy(&v, p, sizeof v);
    } else {
        for (unsigned i = 0; i < sizeof(T); ++i)
            v |= T(p[i]) << (8 * i);
    }
    return v;
}

// Little-endian reads at a checked position.
class Cursor {
public:
    explicit Cursor(std::span<const uint8_t> d) : m_d(d) { }
    size_t left() const { return m_d.size() - m_at; }
    size_t pos() const { return m_at; }
    bool skip(uint64_t n)
    {
        if (n > left())
            return false;
        m_at += size_t(n);
        return true;
    }
    bool u64(uint64_t& v) { return get(v); }
    bool u32(uint32_t& v) { return get(v); }
    bool bytes(std::span<const uint8_t>& out, uint64_t n)
    {
        if (n > left())
            return false;
        out = m_d.subspan(m_at, size_t(n));
        m_at += size_t(n);
        return true;
    }
    std::span<const uint8_t> rest() const { return m_d.subspan(m_at); }

private:
    template <typename T>
    bool get(T& v)
    {
        if (left() < sizeof(T))
            return false;
        v = loadLe<T>(m_d.data() + m_at);
        m_at += sizeof(T);
        return true;
    }
    std::span<const uint8_t> m_d;
    size_t m_at = 0;
};

// The n-byte little-endian number at d[at]; the caller checked that it is inside d.
uint64_t le(std::span<const uint8_t> d, size_t at, unsigned n)
{
    const uint8_t* p = d.data() + at;
    switch (n) {
    case 8:
        return loadLe<uint64_t>(p);
    case 4:
        return loadLe<uint32_t>(p);
    case 2:
        return loadLe<uint16_t>(p);
    default: {
        uint64_t v = 0;
        for (unsigned i = 0; i < n; ++i)
            v |= uint64_t(p[i]) << (8 * i);
        return v;
    }
    }
}

// A NUL-terminated string inside bytes (the whole span when there is no NUL).
std::string cstr(std::span<const uint8_t> d)
{
    const auto* p = reinterpret_cast<const char*>(d.data());
    return std::string(p, strnlen(p, d.size()));
}

struct Attr {
    uint32_t type = 0;
    uint64_t config = 0;
    uint64_t sampleType = 0;
    uint64_t readFormat = 0;
    uint64_t flags = 0;
    uint64_t branchSampleType = 0;
    uint64_t regsUser = 0;
    std::vector<uint64_t> ids;
    std::string name;
};

// perf_event_attr, fields up to sample_regs_user where its size has them.
std::optional<Attr> parseAttr(std::span<const uint8_t> d)
{
    if (d.size() < kAttrSizeVer0)
        return std::nullopt;
    Attr a;
    a.type = uint32_t(le(d, 0, 4));
    a.config = le(d, 8, 8);
    a.sampleType = le(d, 24, 8);
    a.readFormat = le(d, 32, 8);
    a.flags = le(d, 40, 8);
    if (d.size() >= 80)
        a.branchSampleType = le(d, 72, 8);
    if (d.size() >= 88)
        a.regsUser = le(d, 80, 8);
    return a;
}

std::string defaultEventName(const Attr& a)
{
    static const char* const hw[] = {"cycles", "instructions", "cache-references", "cache-misses", "branches",
        "branch-misses", "bus-cycles", "stalled-cycles-frontend", "stalled-cycles-backend", "ref-cycles"};
    static const char* const sw[] = {"cpu-clock", "task-clock", "page-faults", "context-switches", "cpu-migrations",
        "minor-faults", "major-faults", "alignment-faults", "emulation-faults", "dummy", "bpf-output", "cgroup-switches"};
    if (a.type == 0 && a.config < std::size(hw))
        return hw[a.config];
    if (a.type == 1 && a.config < std::size(sw))
        return sw[a.config];
    return "event type " + std::to_string(a.type) + " config " + std::to_string(a.config);
}

// perf's string in feature sections: u32 length (padded), then that many bytes, NUL-padded.
bool perfString(Cursor& c, std::string& out)
{
    uint32_t len = 0;
    std::span<const uint8_t> b;
    if (!c.u32(len) || !c.bytes(b, len))
        return false;
    out = cstr(b);
    return true;
}

struct MapRange {
    uint64_t start = 0, limit = 0, offset = 0;
    std::string file;
    std::string buildId;
    bool exec = true; // PROT_EXEC (MMAP2), not PERF_RECORD_MISC_MMAP_DATA (MMAP)
    /// The profile's mapping for this range, once a frame was in it (Reader::mappingOf); reset
    /// where addMap trims the range.
    mutable MappingId mapping;
};

struct Process {
    std::map<uint64_t, MapRange> maps; // by start, not overlapping
    std::string comm;
    // What an unwinder is given: the executable maps as PerfMappings, remade when they changed
    // (`--call-graph dwarf` records data mmaps too: those change nothing an unwinder uses).
    bool mappingsChanged = true;
    uint64_t mappingsGeneration = 0;
    /// Shared with the samples waiting to be unwound, which keep the mappings of their time.
    std::shared_ptr<const std::vector<PerfMapping>> mappings;
};

void addMap(Process& p, MapRange r)
{
    if (r.limit <= r.start)
        return;
    if (r.exec)
        p.mappingsChanged = true;
    for (auto at = p.maps.lower_bound(r.start); !p.mappingsChanged && at != p.maps.end() && at->first < r.limit; ++at)
        p.mappingsChanged = at->second.exec;
    if (auto at = p.maps.lower_bound(r.start); at != p.maps.begin() && std::prev(at)->second.limit > r.start)
        p.mappingsChanged = p.mappingsChanged || std::prev(at)->second.exec;
    // Remove or trim what the new range overlaps, as a later mmap over the same addresses does.
    auto it = p.maps.lower_bound(r.start);
    if (it != p.maps.begin()) {
        auto prev = std::prev(it);
        if (prev->second.limit > r.start) {
            MapRange tail = prev->second;
            prev->second.limit = r.start;
            prev->second.mapping = MappingId();
            if (tail.limit > r.limit) {
                tail.mapping = MappingId();
                tail.offset += r.limit - tail.start;
                tail.start = r.limit;
                p.maps[tail.start] = tail;
            }
        }
    }
    it = p.maps.lower_bound(r.start);
    while (it != p.maps.end() && it->first < r.limit) {
        if (it->second.limit > r.limit) {
            MapRange tail = it->second;
            tail.mapping = MappingId();
            tail.offset += r.limit - tail.start;
            tail.start = r.limit;
            it = p.maps.erase(it);
            p.maps[tail.start] = tail;
            break;
        }
        it = p.maps.erase(it);
    }
    p.maps[r.start] = std::move(r);
}

const MapRange* findMap(const Process& p, uint64_t addr)
{
    auto it = p.maps.upper_bound(addr);
    if (it == p.maps.begin())
        return nullptr;
    --it;
    return addr < it->second.limit ? &it->second : nullptr;
}

// The running kernel's GNU build ID, from the notes it exports.
std::string readRunningKernelBuildId()
{
    std::ifstream in("/sys/kernel/notes", std::ios::binary);
    const std::vector<uint8_t> d{std::istreambuf_iterator<char>(in), {}};
    size_t at = 0;
    while (at + 12 <= d.size()) {
        const uint32_t namesz = uint32_t(le(d, at, 4)), descsz = uint32_t(le(d, at + 4, 4)), type = uint32_t(le(d, at + 8, 4));
        const size_t name = at + 12, desc = name + (size_t(namesz) + 3) / 4 * 4;
        if (desc > d.size() || descsz > d.size() - desc)
            break;
        if (type == 3 && namesz == 4 && std::memcmp(&d[name], "GNU", 4) == 0)
            return hexBytes(std::span(d).subspan(desc, descsz));
        at = desc + (size_t(descsz) + 3) / 4 * 4;
    }
    return {};
}

/// The running kernel's build ID, read once (it does not change while the process runs).
const std::string& runningKernelBuildId()
{
    static const std::string id = readRunningKernelBuildId();
    return id;
}

using KernelSymbols = std::vector<std::pair<uint64_t, std::string>>;

/// A kallsyms file's text symbols (T, t, W, w), by address (stable for aliases); empty when it
/// gives none or only zero addresses (kptr_restrict). /proc/kallsyms and the copies perf keeps in
/// its build-ID cache have the same format.
KernelSymbols readKallsyms(const std::string& path)
{
    KernelSymbols out;
    std::ifstream in(path);
    std::string line;
    bool anyAddress = false;
    while (std::getline(in, line)) {
        // "ffffffff81000000 T _stext" (and " [module]" after the name for a module's)
        const std::string_view l(line);
        const size_t sp1 = l.find(' ');
        if (sp1 == std::string_view::npos || sp1 + 3 >= l.size() || l[sp1 + 2] != ' ')
            continue;
        const char type = l[sp1 + 1];
        if (type != 'T' && type != 't' && type != 'W' && type != 'w')
            continue;
        uint64_t addr = 0;
        const auto parsed = std::from_chars(l.data(), l.data() + sp1, addr, 16);
        if (parsed.ec != std::errc() || parsed.ptr != l.data() + sp1)
            continue;
        std::string_view name = l.substr(sp1 + 3);
        name = name.substr(0, name.find_first_of(" \t"));
        if (name.empty())
            continue;
        anyAddress = anyAddress || addr != 0;
        out.emplace_back(addr, std::string(name));
    }
    if (!anyAddress)
        return {};
    std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    return out;
}

/// The running kernel's symbols, read once per process: a few hundred thousand lines, and the
/// kernel does not change under us.
const KernelSymbols& runningKernelSymbols()
{
    static const KernelSymbols symbols = readKallsyms("/proc/kallsyms");
    return symbols;
}

class Reader {
public:
    Reader(std::span<const uint8_t> data, PerfDataStats& stats) : m_data(data), m_stats(stats) { }
    Result<Profile> read();
    /// Unwinds on this thread with unwinder, or with one factory makes; with a factory, on
    /// workers more threads too (each with an unwinder of its own).
    void setUnwinding(PerfStackUnwinder* unwinder, PerfStackUnwinderFactory factory, unsigned workers)
    {
        m_unwinder = unwinder;
        m_unwinderFactory = std::move(factory);
        m_unwindWorkers = workers;
    }
    bool unwinds() const { return m_unwinder || m_unwinderFactory; }

private:
    Status readFileHeader(std::span<const uint8_t>& records);
    Status readFeature(unsigned bit, std::span<const uint8_t> d);
    void readBuildIds(std::span<const uint8_t> d);
    void readEventDesc(std::span<const uint8_t> d);
    Status headerAttr(std::span<const uint8_t> body);
    void record(uint32_t type, uint16_t misc, std::span<const uint8_t> body);
    /// Reads a SAMPLE record into the batch being filled; it becomes a sample of the profile
    /// once its user stack is unwound (addSamples).
    void sample(uint16_t misc, std::span<const uint8_t> body);
    /// A sample read, waiting for its unwinding: what it becomes in the profile, but for the
    /// locations, which are made in the reading order once the frames are known.
    struct PendingSample {
        uint32_t pid = 0, tid = 0;
        bool inKernel = false;
        bool hasIp = false, hasTime = false, hasLabels = false;
        uint64_t ip = 0, period = 1, time = 0;
        size_t event = 0;
        uint32_t labels = 0;
        std::span<const uint8_t> chain;
        std::vector<uint64_t> lbr; ///< user frames from the LBR call stack
        size_t job = kNoJob; ///< its UnwindJob in the batch
    };
    static constexpr size_t kNoJob = ~size_t(0);
    struct Batch {
        std::vector<PendingSample> samples;
        std::vector<UnwindJob> jobs;
        size_t sampleCount = 0, jobCount = 0;
    };
    /// Starts the pool on the batch filled and adds the samples of the batch it unwound before.
    void rotate();
    /// Adds every sample read (before a record that changes what their locations are made from).
    void drain();
    void addSamples(Batch& batch);
    uint32_t labelSet(bool hasTid, uint32_t pid, uint32_t tid, bool hasCpu, uint32_t cpu);
    struct LabelSetKey {
        uint32_t pid, tid, cpu;
        uint8_t fields;
        bool operator==(const LabelSetKey&) const = default;
    };
    struct LabelSetKeyHash {
        size_t operator()(const LabelSetKey& k) const
        {
            return std::hash<uint64_t>()((uint64_t(k.pid) << 32 | k.tid) * 0x9e3779b97f4a7c15ull ^ (uint64_t(k.cpu) << 2 | k.fields));
        }
    };
    struct CachedLabelSet {
        uint64_t namesGeneration = 0;
        uint32_t set = 0;
    };
    std::unordered_map<LabelSetKey, CachedLabelSet, LabelSetKeyHash> m_labelSets;
    uint64_t m_namesGeneration = 1; ///< changes with each COMM or FORK record
    std::vector<Label> m_labels;
    void addSample(PendingSample& s, std::span<const uint64_t> unwound);
    /// `--call-graph lbr`: the user frames of a sample whose callchain has a user part, as perf
    /// builds them from the LBR call stack (the callee's entry, then each call's site, the most
    /// recent first); empty when there are none (the callchain's user part stands then).
    static std::vector<uint64_t> lbrUserFrames(std::span<const uint8_t> chain, std::span<const uint8_t> branches);
    /// Orders the mappings the program's first (m_mainFile), the kernel's last: they are made as
    /// samples first use them, so the kernel's or the dynamic loader's often came first, and
    /// pprof readers take the first mapping for the main binary (`go tool pprof`'s "File:").
    void orderMappings();
    /// With HEADER_CLOCK_DATA, sample times become wall-clock times (nanoseconds since the Unix
    /// epoch, as pprof's and OTLP's), and the profile's time and duration are the samples' span;
    /// returns the sample clock's name then, else empty (times stay perf's clock).
    std::string wallClockTimes();
    /// (where the names came from, why the frames stay addresses): one of the two is empty.
    std::pair<std::string, std::string> nameKernelFrames();
    std::string callGraphKind() const;
    const Attr* attrOfSample(std::span<const uint8_t> body) const;

    LocationId location(uint32_t pid, uint64_t addr, bool kernel);
    /// Gives job the process's mappings as they are now.
    void setMappings(uint32_t pid, UnwindJob& job);
    /// The profile's mapping of a range (kept in the range).
    MappingId mappingOf(const MapRange& r);
    /// The profile's mapping of a range's start, limit, offset, file and build ID: one per
    /// distinct five.
    MappingId mappingFor(const MapRange& r);

    std::span<const uint8_t> m_data;
    PerfDataStats& m_stats;
    std::vector<Attr> m_attrs;
    std::unordered_map<uint64_t, size_t> m_attrById;
    std::unordered_map<std::string, std::string> m_buildIdOf; // file -> hex
    std::string m_hostname, m_osRelease, m_version, m_arch, m_cmdline;
    /// HEADER_CLOCK_DATA (`perf record -k CLOCK`): one moment read on both the sample clock and
    /// the wall clock, which turns sample times into wall-clock times.
    struct ClockData {
        bool known = false;
        uint32_t clockid = 0;
        uint64_t wallNanos = 0, clockNanos = 0;
    } m_clock;
    std::unordered_map<uint32_t, Process> m_processes;
    std::unordered_map<uint32_t, std::string> m_threadNames;
    Process m_kernel;

    // The profile under construction.
    Profile m_p;
    std::map<std::tuple<uint64_t, uint64_t, uint64_t, std::string, std::string>, MappingId> m_mappingIds;
    std::unordered_map<uint64_t, LocationId> m_unmapped; // address -> location without a mapping
    std::map<std::pair<uint32_t, uint64_t>, LocationId> m_locations; // (mapping, address)
    MappingId m_kernelMapping;
    std::unordered_set<uint32_t> m_kernelMappings; ///< ids of mappings kernel addresses went to
    std::string m_mainFile; ///< the file of the first executable mapping of a process (its program)
    std::vector<LocationId> m_stack;
    std::vector<int64_t> m_values;
    std::vector<uint64_t> m_regs;

    PerfStackUnwinder* m_unwinder = nullptr;
    PerfStackUnwinderFactory m_unwinderFactory;
    unsigned m_unwindWorkers = 0;
    Batch m_batches[2];
    Batch* m_filling = &m_batches[0];
    Batch* m_unwinding = &m_batches[1];
    std::unique_ptr<UnwindPool> m_pool; // after the batches: its threads stop before they go
    uint64_t m_nextMappingsGeneration = 1;
};

// Samples per batch: enough that a worker's share outweighs handing it over, few enough that
// the batches stay in the cache.
constexpr size_t kBatchSamples = 256;

Status Reader::readFileHeader(std::span<const uint8_t>& records)
{
    Cursor c(m_data);
    uint64_t magic = 0, size = 0;
    if (!c.u64(magic) || !c.u64(size))
        return bad(ErrorCode::Truncated, "the file ends inside its header");
    if (magic == kMagicSwapped)
        return bad(ErrorCode::Unsupported, "big-endian perf.data files are not read yet");
    if (magic != kMagic)
        return bad(ErrorCode::InvalidInput, "no PERFILE2 magic");
    if (size == 16) { // pipe mode: records follow, attributes and features among them
        m_stats.pipeMode = true;
        records = m_data.subspan(16);
        return {};
    }
    uint64_t attrSize = 0, attrsOff = 0, attrsSize = 0, dataOff = 0, dataSize = 0, evOff = 0, evSize = 0;
    uint64_t features[4] = {};
    if (!c.u64(attrSize) || !c.u64(attrsOff) || !c.u64(attrsSize) || !c.u64(dataOff) || !c.u64(dataSize)
        || !c.u64(evOff) || !c.u64(evSize) || !c.u64(features[0]) || !c.u64(features[1]) || !c.u64(features[2])
        || !c.u64(features[3]))
        return bad(ErrorCode::Truncated, "the file ends inside its header");
    if (size < 104 || size > m_data.size())
        return bad(ErrorCode::InvalidInput, "header size " + std::to_string(size) + " is not perf's");
    auto section = [&](uint64_t off, uint64_t len, const char* what) -> Result<std::span<const uint8_t>> {
        if (off > m_data.size() || len > m_data.size() - off)
            return bad(ErrorCode::Truncated,
                std::string(what) + " section (" + std::to_string(len) + " bytes at " + std::to_string(off)
                    + ") runs past the end of the file (" + std::to_string(m_data.size()) + " bytes)");
        return m_data.subspan(size_t(off), size_t(len));
    };
    if (attrSize < kAttrSizeVer0 + 16)
        return bad(ErrorCode::InvalidInput, "attribute size " + std::to_string(attrSize) + " is too small");
    auto attrs = section(attrsOff, attrsSize, "the attributes");
    if (!attrs)
        return attrs.error();
    if (attrsSize % attrSize != 0 || attrsSize == 0)
        return bad(ErrorCode::InvalidInput,
            "the attributes section (" + std::to_string(attrsSize) + " bytes) is not a whole number of attributes of "
                + std::to_string(attrSize) + " bytes");
    for (size_t at = 0; at < attrs->size(); at += size_t(attrSize)) {
        const auto one = attrs->subspan(at, size_t(attrSize));
        const size_t n = size_t(attrSize) - 16;
        auto a = parseAttr(one.first(n));
        if (!a)
            return bad(ErrorCode::InvalidInput, "attribute too short");
        auto ids = section(le(one, n, 8), le(one, n + 8, 8), "an attribute's ids");
        if (!ids)
            return ids.error();
        for (size_t i = 0; i + 8 <= ids->size(); i += 8)
            a->ids.push_back(le(*ids, i, 8));
        m_attrs.push_back(std::move(*a));
    }
    auto data = section(dataOff, dataSize, "the data");
    if (!data)
        return data.error();
    records = *data;

    // Feature sections: one perf_file_section per set bit, after the data.
    uint64_t at = dataOff + dataSize;
    for (unsigned bit = 0; bit < kFeatCount; ++bit) {
        if (!(features[bit / 64] >> (bit % 64) & 1))
            continue;
        if (at > m_data.size() || m_data.size() - at < 16)
            return bad(ErrorCode::Truncated, "the feature table runs past the end of the file");
        const uint64_t off = le(m_data, size_t(at), 8), len = le(m_data, size_t(at) + 8, 8);
        at += 16;
        auto feat = section(off, len, ("feature " + std::to_string(bit)).c_str());
        if (!feat)
            return feat.error();
        if (auto s = readFeature(bit, *feat); !s)
            return s;
    }
    return {};
}

Status Reader::readFeature(unsigned bit, std::span<const uint8_t> d)
{
    Cursor c(d);
    switch (bit) {
    case kFeatBuildId:
        readBuildIds(d);
        break;
    case kFeatHostname:
        perfString(c, m_hostname);
        break;
    case kFeatOsRelease:
        perfString(c, m_osRelease);
        break;
    case kFeatVersion:
        perfString(c, m_version);
        break;
    case kFeatArch:
        perfString(c, m_arch);
        break;
    case kFeatCmdline: {
        uint32_t n = 0;
        if (!c.u32(n))
            break;
        m_cmdline.clear();
        for (uint32_t i = 0; i < n; ++i) {
            std::string s;
            if (!perfString(c, s))
                break;
            if (i)
                m_cmdline += ' ';
            m_cmdline += s;
        }
        break;
    }
    case kFeatEventDesc:
        readEventDesc(d);
        break;
    case kFeatClockData: {
        uint32_t version = 0;
        ClockData k;
        if (c.u32(version) && version >= 1 && c.u32(k.clockid) && c.u64(k.wallNanos) && c.u64(k.clockNanos)) {
            k.known = true;
            m_clock = k;
        }
        break;
    }
    default:
        break;
    }
    return {};
}

void Reader::readBuildIds(std::span<const uint8_t> d)
{
    // build_id_event records: header (type, misc, size), pid, 24 bytes of build ID, file name.
    Cursor c(d);
    while (c.left() >= 8 + 4 + 24) {
        const auto rest = c.rest();
        const uint16_t misc = uint16_t(le(rest, 4, 2));
        const uint16_t size = uint16_t(le(rest, 6, 2));
        if (size < 8 + 4 + 24 || size > rest.size())
            break;
        const auto rec = rest.first(size);
        size_t idSize = 20;
        if (misc & kMiscBuildIdSize)
            idSize = std::min<size_t>(rec[12 + 20], 20);
        auto id = rec.subspan(12, idSize);
        if (!(misc & kMiscBuildIdSize)) // trailing zeros of a fixed 20-byte ID are padding
            while (!id.empty() && id.back() == 0)
                id = id.first(id.size() - 1);
        const std::string file = cstr(rec.subspan(36));
        if (!file.empty() && !id.empty())
            m_buildIdOf[file] = hexBytes(id);
        c.skip(size);
    }
}

void Reader::readEventDesc(std::span<const uint8_t> d)
{
    Cursor c(d);
    uint32_t n = 0, attrSize = 0;
    if (!c.u32(n) || !c.u32(attrSize) || attrSize < kAttrSizeVer0)
        return;
    for (uint32_t i = 0; i < n; ++i) {
        std::span<const uint8_t> attr;
        uint32_t nrIds = 0;
        std::string name;
        if (!c.bytes(attr, attrSize) || !c.u32(nrIds) || !perfString(c, name))
            return;
        std::vector<uint64_t> ids;
        for (uint32_t k = 0; k < nrIds; ++k) {
            uint64_t id = 0;
            if (!c.u64(id))
                return;
            ids.push_back(id);
        }
        // Matched to an attribute by its ids, else by position.
        Attr* target = nullptr;
        for (auto& a : m_attrs)
            for (uint64_t id : ids)
                if (std::find(a.ids.begin(), a.ids.end(), id) != a.ids.end())
                    target = &a;
        if (!target && i < m_attrs.size())
            target = &m_attrs[i];
        if (target && !name.empty())
            target->name = name;
    }
}

Status Reader::headerAttr(std::span<const uint8_t> body)
{
    if (body.size() < 8)
        return bad(ErrorCode::InvalidInput, "a HEADER_ATTR record is too short");
    const uint32_t size = uint32_t(le(body, 4, 4));
    const size_t attrSize = size ? size : kAttrSizeVer0;
    if (attrSize < kAttrSizeVer0 || attrSize > body.size())
        return bad(ErrorCode::InvalidInput, "a HEADER_ATTR record's attribute size " + std::to_string(size) + " does not fit");
    auto a = parseAttr(body.first(attrSize));
    for (size_t i = attrSize; i + 8 <= body.size(); i += 8)
        a->ids.push_back(le(body, i, 8));
    m_attrs.push_back(std::move(*a));
    return {};
}

const Attr* Reader::attrOfSample(std::span<const uint8_t> body) const
{
    if (m_attrs.empty())
        return nullptr;
    if (m_attrs.size() == 1)
        return &m_attrs[0];
    const uint64_t st = m_attrs[0].sampleType;
    std::optional<uint64_t> id;
    if (st & kSampleIdentifier) {
        if (body.size() >= 8)
            id = le(body, 0, 8);
    } else if (st & kSampleId) {
        size_t at = 0;
        for (uint64_t bit : {kSampleIp, kSampleTid, kSampleTime, kSampleAddr})
            if (st & bit)
                at += 8;
        if (body.size() >= at + 8)
            id = le(body, at, 8);
    }
    if (!id)
        return nullptr;
    auto it = m_attrById.find(*id);
    return it == m_attrById.end() ? nullptr : &m_attrs[it->second];
}

MappingId Reader::mappingOf(const MapRange& r)
{
    if (r.mapping.valid())
        return r.mapping;
    r.mapping = mappingFor(r);
    return r.mapping;
}

MappingId Reader::mappingFor(const MapRange& r)
{
    auto key = std::make_tuple(r.start, r.limit, r.offset, r.file, r.buildId);
    auto it = m_mappingIds.find(key);
    if (it != m_mappingIds.end())
        return it->second;
    Mapping m;
    m.start = r.start;
    m.limit = r.limit;
    m.offset = r.offset;
    m.file = m_p.strings.intern(r.file);
    std::string buildId = r.buildId;
    if (buildId.empty()) {
        auto b = m_buildIdOf.find(r.file);
        if (b != m_buildIdOf.end())
            buildId = b->second;
    }
    m.buildId = m_p.strings.intern(buildId);
    m.sourceId = m_p.mappings.size() + 1;
    const MappingId id(m_p.mappings.size());
    m_p.mappings.push_back(m);
    m_mappingIds.emplace(std::move(key), id);
    return id;
}

LocationId Reader::location(uint32_t pid, uint64_t addr, bool kernel)
{
    const MapRange* r = nullptr;
    if (kernel) {
        r = findMap(m_kernel, addr);
    } else {
        auto p = m_processes.find(pid);
        if (p != m_processes.end())
            r = findMap(p->second, addr);
    }
    MappingId mid;
    if (r) {
        mid = mappingOf(*r);
    } else if (kernel) {
        if (!m_kernelMapping.valid()) {
            MapRange k;
            k.start = 0;
            k.limit = ~uint64_t(0);
            k.file = "[kernel.kallsyms]";
            m_kernelMapping = mappingOf(k);
        }
        mid = m_kernelMapping;
    }
    if (kernel && mid.valid())
        m_kernelMappings.insert(uint32_t(mid.index()));
    if (!mid.valid()) {
        auto [it, added] = m_unmapped.try_emplace(addr, LocationId(m_p.locations.size()));
        if (added) {
            Location loc;
            loc.address = addr;
            loc.sourceId = m_p.locations.size() + 1;
            m_p.locations.push_back(loc);
        }
        return it->second;
    }
    auto [it, added] = m_locations.try_emplace({uint32_t(mid.index()), addr}, LocationId(m_p.locations.size()));
    if (added) {
        Location loc;
        loc.address = addr;
        loc.mapping = mid;
        loc.sourceId = m_p.locations.size() + 1;
        if (kernel)
            loc.kind = FrameKind::Kernel;
        m_p.locations.push_back(loc);
    }
    return it->second;
}

void Reader::sample(uint16_t misc, std::span<const uint8_t> body)
{
    const Attr* attr = attrOfSample(body);
    if (!attr) {
        ++m_stats.skippedSamples;
        return;
    }
    const uint64_t st = attr->sampleType;
    Cursor c(body);
    uint64_t ip = 0, time = 0, period = 1, skip = 0;
    uint32_t pid = 0, tid = 0, cpu = 0, res = 0;
    bool ok = true;
    auto fail = [&] {
        ++m_stats.skippedSamples;
    };
    if (st & kSampleIdentifier)
        ok = ok && c.u64(skip);
    if (st & kSampleIp)
        ok = ok && c.u64(ip);
    if (st & kSampleTid)
        ok = ok && c.u32(pid) && c.u32(tid);
    if (st & kSampleTime)
        ok = ok && c.u64(time);
    if (st & kSampleAddr)
        ok = ok && c.u64(skip);
    if (st & kSampleId)
        ok = ok && c.u64(skip);
    if (st & kSampleStreamId)
        ok = ok && c.u64(skip);
    if (st & kSampleCpu)
        ok = ok && c.u32(cpu) && c.u32(res);
    if (st & kSamplePeriod)
        ok = ok && c.u64(period);
    if (ok && (st & kSampleRead)) {
        const uint64_t rf = attr->readFormat;
        const unsigned perValue = 1 + ((rf & kReadId) ? 1 : 0) + ((rf & kReadLost) ? 1 : 0);
        const unsigned extra = ((rf & kReadTotalTimeEnabled) ? 1 : 0) + ((rf & kReadTotalTimeRunning) ? 1 : 0);
        if (rf & kReadGroup) {
            uint64_t nr = 0;
            ok = c.u64(nr) && nr <= c.left() / 8 / perValue && c.skip(8 * (extra + nr * perValue));
        } else {
            ok = c.skip(8 * (perValue + extra));
        }
    }
    std::span<const uint8_t> chain;
    if (ok && (st & kSampleCallchain)) {
        uint64_t nr = 0;
        ok = c.u64(nr) && nr <= c.left() / 8 && c.bytes(chain, nr * 8);
    }
    // The fields after the callchain (RAW, BRANCH_STACK, REGS_USER, STACK_USER, ...) carry nothing
    // this reader uses yet; they are checked to fit so a malformed sample is counted.
    if (ok && (st & kSampleRaw)) {
        uint32_t size = 0;
        ok = c.u32(size) && c.skip(size);
    }
    std::span<const uint8_t> branches; // {from, to, flags} per entry, the most recent first
    if (ok && (st & kSampleBranchStack)) {
        uint64_t nr = 0;
        ok = c.u64(nr);
        if (ok && (attr->branchSampleType & kBranchHwIndex))
            ok = c.skip(8);
        ok = ok && nr <= c.left() / 24 && c.bytes(branches, nr * 24);
    }
    // `--call-graph dwarf`: the user registers (abi, then one u64 per bit of sample_regs_user)
    // and the stack copy (size, the bytes, then how many of them are valid).
    uint64_t abi = 0;
    m_regs.clear();
    if (ok && (st & kSampleRegsUser)) {
        ok = c.u64(abi);
        if (ok && abi != 0) {
            const auto n = size_t(std::popcount(attr->regsUser));
            std::span<const uint8_t> raw;
            ok = c.bytes(raw, n * 8);
            if (ok) {
                m_regs.resize(n);
                for (size_t i = 0; i < n; ++i)
                    m_regs[i] = loadLe<uint64_t>(raw.data() + 8 * i);
            }
        }
    }
    std::span<const uint8_t> stackCopy;
    if (ok && (st & kSampleStackUser)) {
        uint64_t size = 0, dyn = 0;
        ok = c.u64(size) && c.bytes(stackCopy, size);
        if (ok && size != 0)
            ok = c.u64(dyn) && dyn <= size;
        if (ok) {
            stackCopy = stackCopy.first(size_t(dyn));
            m_stats.stackCopySize = std::max(m_stats.stackCopySize, size);
            // perf copies from the stack pointer up to the stack's end or the size asked for.
            if (size != 0 && dyn == size)
                ++m_stats.fullStackCopies;
        }
    }
    if (!ok) {
        fail();
        return;
    }

    const size_t event = size_t(attr - m_attrs.data());
    if (1 + event >= m_p.sampleTypes.size()) { // an attribute that came after the samples started
        fail();
        return;
    }

    Batch& b = *m_filling;
    if (b.sampleCount == b.samples.size())
        b.samples.emplace_back();
    PendingSample& ps = b.samples[b.sampleCount++];
    ps.pid = pid;
    ps.tid = tid;
    ps.inKernel = (misc & kMiscCpuModeMask) == kMiscKernel;
    ps.hasIp = (st & kSampleIp) != 0;
    ps.ip = ip;
    ps.hasTime = (st & kSampleTime) != 0;
    ps.time = time;
    ps.period = period;
    ps.event = event;
    ps.chain = chain;
    ps.job = kNoJob;
    // User frames from the unwinder when the sample has registers and a stack to unwind, or
    // from the LBR call stack.
    ps.lbr.clear();
    if ((attr->branchSampleType & kBranchCallStack) && !branches.empty())
        ps.lbr = lbrUserFrames(chain, branches);
    if ((st & kSampleRegsUser) && (st & kSampleStackUser)) {
        ++m_stats.dwarfSamples;
        if (unwinds() && abi != 0 && !stackCopy.empty()) {
            if (b.jobCount == b.jobs.size())
                b.jobs.emplace_back();
            ps.job = b.jobCount++;
            UnwindJob& job = b.jobs[ps.job];
            job.regs.assign(m_regs.begin(), m_regs.end());
            job.request = PerfUnwindRequest();
            job.request.pid = pid;
            job.request.tid = tid;
            job.request.abi = PerfRegsAbi(abi);
            job.request.regsMask = attr->regsUser;
            job.request.regs = job.regs;
            job.request.stack = stackCopy;
            setMappings(pid, job);
        }
    }

    const bool hasTid = (st & kSampleTid) != 0, hasCpu = (st & kSampleCpu) != 0;
    ps.hasLabels = hasTid || hasCpu;
    if (ps.hasLabels)
        ps.labels = labelSet(hasTid, pid, tid, hasCpu, cpu);
    if (b.sampleCount == kBatchSamples)
        rotate();
}

// The label set of a sample: pid, tid, comm and thread (the names COMM records gave the process
// and the thread), cpu. Consecutive samples mostly share one, so sets are kept by those numbers
// until a COMM or FORK record changes the names.
uint32_t Reader::labelSet(bool hasTid, uint32_t pid, uint32_t tid, bool hasCpu, uint32_t cpu)
{
    const LabelSetKey key{pid, tid, cpu, uint8_t(hasTid | hasCpu << 1)};
    auto [at, added] = m_labelSets.try_emplace(key);
    if (!added && at->second.namesGeneration == m_namesGeneration)
        return at->second.set;
    m_labels.clear();
    auto num = [&](const char* key, int64_t v) {
        Label l;
        l.key = m_p.strings.intern(key);
        l.num = v;
        m_labels.push_back(l);
    };
    auto str = [&](const char* key, const std::string& v) {
        if (v.empty())
            return;
        Label l;
        l.key = m_p.strings.intern(key);
        l.str = m_p.strings.intern(v);
        m_labels.push_back(l);
    };
    if (hasTid) {
        num("pid", int64_t(int32_t(pid)));
        num("tid", int64_t(int32_t(tid)));
        auto proc = m_processes.find(pid);
        if (proc != m_processes.end())
            str("comm", proc->second.comm);
        auto thread = m_threadNames.find(tid);
        if (thread != m_threadNames.end())
            str("thread", thread->second);
    }
    if (hasCpu)
        num("cpu", cpu);
    at->second = {m_namesGeneration, m_p.internLabelSet(m_labels)};
    return at->second.set;
}

void Reader::rotate()
{
    m_pool->finish();
    m_pool->start(std::span(m_filling->jobs.data(), m_filling->jobCount));
    std::swap(m_filling, m_unwinding);
    addSamples(*m_filling);
}

void Reader::drain()
{
    rotate();
    rotate();
}

void Reader::addSamples(Batch& batch)
{
    for (size_t i = 0; i < batch.sampleCount; ++i) {
        PendingSample& s = batch.samples[i];
        if (s.job != kNoJob) {
            const auto& frames = batch.jobs[s.job].frames;
            if (!frames.empty())
                ++m_stats.unwoundSamples;
            addSample(s, frames.empty() ? std::span<const uint64_t>(s.lbr) : std::span<const uint64_t>(frames));
        } else {
            addSample(s, s.lbr);
        }
    }
    batch.sampleCount = 0;
    batch.jobCount = 0;
}

void Reader::addSample(PendingSample& s, std::span<const uint64_t> unwound)
{
    m_stack.clear();
    if (!s.chain.empty()) {
        // Unwound user frames replace the user part perf recorded (with `--call-graph dwarf`
        // it records at most the IP there); kernel frames stay as perf gave them. A callchain's
        // first address in each context (kernel, user) is where the CPU was; the others are
        // return addresses, made call sites (address - 1: inside the call instruction), the
        // convention of pprof profiles (Go's runtime/pprof, gperftools' conversions, Parca
        // Agent), so that a caller's line, inline chain and instruction are the call's, not
        // whatever follows it (often the next line, or an inlined destructor's header).
        bool kernel = s.inKernel;
        bool first = true;
        const size_t n = std::min(s.chain.size() / 8, kMaxCallchain);
        for (size_t i = 0; i < n; ++i) {
            const uint64_t a = le(s.chain, i * 8, 8);
            if (a >= kContextMax) {
                kernel = a == kContextKernel || a == kContextGuestKernel;
                first = true;
                continue;
            }
            if (kernel || unwound.empty())
                m_stack.push_back(location(s.pid, first || a < kFirstCodeAddress ? a : a - 1, kernel));
            first = false;
        }
    } else if (s.hasIp && (unwound.empty() || s.inKernel)) {
        m_stack.push_back(location(s.pid, s.ip, s.inKernel));
    }
    for (size_t i = 0; i < unwound.size() && m_stack.size() < kMaxCallchain; ++i)
        m_stack.push_back(location(s.pid, unwound[i], false));

    m_values.assign(m_p.sampleTypes.size(), 0);
    m_values[0] = 1;
    m_values[1 + s.event] = int64_t(s.period);
    m_p.addSample(m_p.internStack(m_stack), m_values);
    const size_t index = m_p.sampleCount() - 1;
    if (s.hasLabels)
        m_p.setSampleLabelSet(index, s.labels);
    if (s.hasTime) {
        m_p.sampleTimestamps.resize(index + 1, 0);
        m_p.sampleTimestamps[index] = int64_t(s.time);
    }
    ++m_stats.samples;
}

void Reader::record(uint32_t type, uint16_t misc, std::span<const uint8_t> body)
{
    Cursor c(body);
    switch (type) {
    case kRecMmap:
    case kRecMmap2:
    case kRecFork:
    case kRecHeaderAttr:
    case kRecHeaderBuildId:
    case kRecHeaderFeature:
        // What the samples read so far are made into (their mappings, build IDs, sample types)
        // is as it was when perf took them: they are added before it changes.
        drain();
        break;
    default:
        break;
    }
    switch (type) {
    case kRecSample:
        sample(misc, body);
        return;
    case kRecMmap:
    case kRecMmap2: {
        uint32_t pid = 0, tid = 0;
        uint64_t addr = 0, len = 0, pgoff = 0;
        if (!c.u32(pid) || !c.u32(tid) || !c.u64(addr) || !c.u64(len) || !c.u64(pgoff)) {
            ++m_stats.skippedRecords;
            return;
        }
        MapRange r;
        r.start = addr;
        r.limit = addr + len < addr ? ~uint64_t(0) : addr + len;
        r.offset = pgoff;
        r.exec = !(misc & kMiscMmapData);
        if (type == kRecMmap2) {
            std::span<const uint8_t> ids;
            uint32_t prot = 0, flags = 0;
            if (!c.bytes(ids, 24) || !c.u32(prot) || !c.u32(flags)) {
                ++m_stats.skippedRecords;
                return;
            }
            r.exec = (prot & kProtExec) != 0;
            if (misc & kMiscMmapBuildId) {
                const size_t n = std::min<size_t>(ids[0], 20);
                r.buildId = hexBytes(ids.subspan(4, n));
            }
        }
        r.file = cstr(c.rest());
        if ((misc & kMiscCpuModeMask) == kMiscKernel || pid == uint32_t(-1)) {
            // The kernel image is "[kernel.kallsyms]_text": one mapping named as perf shows it.
            if (r.file.rfind("[kernel.kallsyms]", 0) == 0)
                r.file = "[kernel.kallsyms]";
            addMap(m_kernel, std::move(r));
        } else {
            if (m_mainFile.empty() && r.exec && r.file.starts_with('/'))
                m_mainFile = r.file;
            addMap(m_processes[pid], std::move(r));
        }
        return;
    }
    case kRecComm: {
        uint32_t pid = 0, tid = 0;
        if (!c.u32(pid) || !c.u32(tid)) {
            ++m_stats.skippedRecords;
            return;
        }
        const std::string name = cstr(c.rest());
        ++m_namesGeneration;
        m_threadNames[tid] = name;
        if (pid == tid)
            m_processes[pid].comm = name;
        return;
    }
    case kRecFork: {
        uint32_t pid = 0, ppid = 0, tid = 0, ptid = 0;
        if (!c.u32(pid) || !c.u32(ppid) || !c.u32(tid) || !c.u32(ptid)) {
            ++m_stats.skippedRecords;
            return;
        }
        if (pid != ppid) { // a new process: a copy of its parent's mappings and name
            auto parent = m_processes.find(ppid);
            if (parent != m_processes.end()) {
                Process copy = parent->second;
                copy.mappingsChanged = true;
                m_processes[pid] = std::move(copy);
            }
        }
        ++m_namesGeneration;
        auto pt = m_threadNames.find(ptid);
        if (pt != m_threadNames.end())
            m_threadNames[tid] = pt->second;
        return;
    }
    case kRecLost: {
        uint64_t id = 0, lost = 0;
        if (!c.u64(id) || !c.u64(lost)) {
            ++m_stats.skippedRecords;
            return;
        }
        m_stats.lostEvents += lost;
        return;
    }
    case kRecExit:
    case kRecFinishedRound:
        return;
    case kRecHeaderBuildId: { // pipe mode: one build_id_event as a record
        std::vector<uint8_t> rec(8);
        rec[4] = uint8_t(misc);
        rec[5] = uint8_t(misc >> 8);
        const size_t size = 8 + body.size();
        rec[6] = uint8_t(size);
        rec[7] = uint8_t(size >> 8);
        rec.insert(rec.end(), body.begin(), body.end());
        readBuildIds(rec);
        return;
    }
    case kRecHeaderAttr:
        if (!headerAttr(body))
            ++m_stats.skippedRecords;
        return;
    case kRecHeaderFeature: {
        uint64_t feat = 0;
        if (!c.u64(feat)) {
            ++m_stats.skippedRecords;
            return;
        }
        if (feat < kFeatCount)
            (void)readFeature(unsigned(feat), c.rest());
        return;
    }
    default:
        ++m_stats.otherRecords;
        return;
    }
}

Result<Profile> Reader::read()
{
    // Samples are unwound in batches, by a pool of threads when the machine has more than one
    // core, while this thread reads on; they are added to the profile in the file's order.
    m_pool = std::make_unique<UnwindPool>(m_unwinder, m_unwinderFactory, m_unwinderFactory ? m_unwindWorkers : 0);
    std::span<const uint8_t> records;
    if (auto s = readFileHeader(records); !s)
        return s.error();

    // In pipe mode the attributes come as records: read those first (perf writes them first).
    auto setup = [&] {
        m_p.sampleTypes.clear();
        m_p.sampleTypes.push_back({m_p.strings.intern("samples"), m_p.strings.intern("count")});
        m_attrById.clear();
        for (size_t i = 0; i < m_attrs.size(); ++i) {
            Attr& a = m_attrs[i];
            if (a.name.empty())
                a.name = defaultEventName(a);
            const bool clock = a.type == 1 && (a.config == 0 || a.config == 1);
            m_p.sampleTypes.push_back({m_p.strings.intern(a.name), m_p.strings.intern(clock ? "nanoseconds" : "events")});
            for (uint64_t id : a.ids)
                m_attrById.emplace(id, i);
        }
    };
    // First pass: the records' extents; the header-like ones (pipe mode's attributes, features
    // and build IDs) are read at once. perf writes each CPU's buffer in turn, so a thread's
    // sample can come in the file before the MMAP of the library it is in: the others are then
    // handled in time order (stable), as perf script does.
    struct Extent {
        uint64_t time;
        size_t at;
        uint16_t size;
    };
    std::vector<Extent> extents;
    Cursor c(records);
    while (c.left() > 0) {
        if (c.left() < 8) {
            ++m_stats.skippedRecords;
            break;
        }
        const auto rest = c.rest();
        const uint32_t type = uint32_t(le(rest, 0, 4));
        const uint16_t misc = uint16_t(le(rest, 4, 2));
        const uint16_t size = uint16_t(le(rest, 6, 2));
        if (size < 8 || size > rest.size()) {
            // Cannot be stepped over: the rest of the data is unusable.
            ++m_stats.skippedRecords;
            break;
        }
        ++m_stats.records;
        size_t step = size;
        if (type == kRecAuxtrace && size >= 16) { // its trace data follows the record
            const uint64_t extra = le(rest, 8, 8);
            if (extra > rest.size() - size) {
                ++m_stats.skippedRecords;
                break;
            }
            step += size_t(extra);
        } else if (type == kRecTracingData && m_stats.pipeMode && size >= 12) {
            const uint64_t extra = (le(rest, 8, 4) + 7) / 8 * 8;
            if (extra > rest.size() - size) {
                ++m_stats.skippedRecords;
                break;
            }
            step += size_t(extra);
        }
        if (type == kRecHeaderAttr || type == kRecHeaderFeature || type == kRecHeaderBuildId)
            record(type, misc, rest.subspan(8, size - 8));
        else
            extents.push_back({0, c.pos(), size});
        c.skip(step);
    }
    if (m_attrs.empty())
        return bad(ErrorCode::InvalidInput, "no event attributes");
    setup();

    const uint64_t st = m_attrs[0].sampleType;
    const bool idAll = (m_attrs[0].flags & kAttrFlagSampleIdAll) != 0;
    if (st & kSampleTime) {
        size_t sampleAt = 8; // the time's offset in a SAMPLE record, after its header
        for (uint64_t bit : {kSampleIdentifier, kSampleIp, kSampleTid})
            if (st & bit)
                sampleAt += 8;
        size_t fromEnd = 8; // and in the sample_id trailer of others, counted from their end
        for (uint64_t bit : {kSampleId, kSampleStreamId, kSampleCpu, kSampleIdentifier})
            if (st & bit)
                fromEnd += 8;
        uint64_t last = 0;
        for (Extent& e : extents) {
            const uint32_t type = uint32_t(le(records, e.at, 4));
            if (type == kRecSample && e.size >= sampleAt + 8)
                last = le(records, e.at + sampleAt, 8);
            else if (idAll && type < kRecHeaderAttr && type != kRecSample && e.size >= 8 + fromEnd)
                last = le(records, e.at + e.size - fromEnd, 8);
            e.time = last;
        }
        std::stable_sort(extents.begin(), extents.end(), [](const Extent& a, const Extent& b) { return a.time < b.time; });
    }
    for (const Extent& e : extents) {
        const auto rec = records.subspan(e.at, e.size);
        record(uint32_t(le(rec, 0, 4)), uint16_t(le(rec, 4, 2)), rec.subspan(8));
    }
    drain();
    m_pool.reset();

    // Build IDs perf wrote after the mappings were made (pipe mode writes them last).
    for (auto& m : m_p.mappings)
        if (m_p.str(m.buildId).empty()) {
            auto b = m_buildIdOf.find(std::string(m_p.str(m.file)));
            if (b != m_buildIdOf.end())
                m.buildId = m_p.strings.intern(b->second);
        }
    orderMappings();
    m_p.defaultSampleType = 1;
    m_p.periodType = m_p.sampleTypes[1];
    if (!m_p.sampleTimestamps.empty())
        m_p.sampleTimestamps.resize(m_p.sampleCount(), 0);
    const std::string clock = wallClockTimes();
    auto attr = [&](const char* key, const std::string& v) {
        if (v.empty())
            return;
        Label l;
        l.key = m_p.strings.intern(key);
        l.str = m_p.strings.intern(v);
        m_p.attributes.push_back(l);
    };
    auto attrNum = [&](const char* key, uint64_t v) {
        Label l;
        l.key = m_p.strings.intern(key);
        l.num = int64_t(v);
        m_p.attributes.push_back(l);
    };
    attr("host.name", m_hostname);
    attr("os.release", m_osRelease);
    attr("perf.version", m_version);
    attr("host.arch", m_arch);
    attr("perf.cmdline", m_cmdline);
    attr("perf.clock", clock);
    if (m_stats.pipeMode)
        attr("perf.mode", "pipe");
    attr("perf.call_graph", callGraphKind());
    if (const auto [from, why] = nameKernelFrames(); !why.empty())
        attr("perf.kernel_symbols", why);
    else if (!from.empty())
        attr("perf.kernel_symbols_from", from);
    if (m_stats.skippedRecords + m_stats.skippedSamples)
        attrNum("perf.skipped_records", m_stats.skippedRecords + m_stats.skippedSamples);
    if (m_stats.lostEvents)
        attrNum("perf.lost_events", m_stats.lostEvents);
    if (m_stats.dwarfSamples) {
        attrNum("perf.dwarf_samples", m_stats.dwarfSamples);
        if (unwinds()) // without one, nothing was tried: stacks are perf's IPs, not judged
            attrNum("perf.unwound_samples", m_stats.unwoundSamples);
        attrNum("perf.stack_copy_size", m_stats.stackCopySize);
        attrNum("perf.full_stack_copies", m_stats.fullStackCopies);
    }
    m_p.updateFrameStatuses();
    m_p.finishBuilding();
    return std::move(m_p);
}

void Reader::setMappings(uint32_t pid, UnwindJob& job)
{
    Process& proc = m_processes[pid];
    if (proc.mappingsChanged || !proc.mappings) {
        auto mappings = std::make_shared<std::vector<PerfMapping>>();
        for (const auto& [start, r] : proc.maps) {
            if (!r.exec)
                continue;
            PerfMapping m;
            m.start = r.start;
            m.limit = r.limit;
            m.offset = r.offset;
            m.file = r.file;
            m.buildId = r.buildId;
            if (m.buildId.empty()) {
                auto b = m_buildIdOf.find(r.file);
                if (b != m_buildIdOf.end())
                    m.buildId = b->second;
            }
            mappings->push_back(std::move(m));
        }
        proc.mappings = std::move(mappings);
        proc.mappingsGeneration = m_nextMappingsGeneration++;
        proc.mappingsChanged = false;
    }
    job.mappings = proc.mappings;
    job.request.mappings = *job.mappings;
    job.request.mappingsGeneration = proc.mappingsGeneration;
}

// How the events' stacks were taken, from their sample types: "dwarf" when perf copied user
// stacks (`--call-graph dwarf`), "lbr" with branch stacks (`--call-graph lbr`), "fp" with
// callchains alone (`-g`, frame pointers), "" without callchains. The first event that has one
// decides (perf records every event of a session the same way).
std::string Reader::callGraphKind() const
{
    for (const Attr& a : m_attrs) {
        if (!(a.sampleType & kSampleCallchain))
            continue;
        if (a.sampleType & kSampleStackUser)
            return "dwarf";
        if (a.sampleType & kSampleBranchStack)
            return "lbr";
        return "fp";
    }
    return {};
}

std::vector<uint64_t> Reader::lbrUserFrames(std::span<const uint8_t> chain, std::span<const uint8_t> branches)
{
    bool user = false;
    for (size_t i = 0; i + 8 <= chain.size() && !user; i += 8)
        user = le(chain, i, 8) == kContextUser;
    const size_t n = std::min(branches.size() / 24, kMaxCallchain - 1);
    if (!user || n == 0)
        return {};
    std::vector<uint64_t> frames;
    frames.reserve(n + 1);
    frames.push_back(le(branches, 8, 8)); // entries[0].to
    for (size_t i = 0; i < n; ++i)
        frames.push_back(le(branches, i * 24, 8)); // entries[i].from
    return frames;
}

void Reader::orderMappings()
{
    // Ranks: 0 the program, 1 the others, 2 the kernel's; stable within each.
    const auto rank = [&](uint32_t i) {
        return m_kernelMappings.count(i) ? 2 : !m_mainFile.empty() && m_p.str(m_p.mappings[i].file) == m_mainFile ? 0 : 1;
    };
    std::vector<uint32_t> order; // new position -> old id
    order.reserve(m_p.mappings.size());
    for (int r = 0; r < 3; ++r)
        for (uint32_t i = 0; i < m_p.mappings.size(); ++i)
            if (rank(i) == r)
                order.push_back(i);
    std::vector<uint32_t> newId(order.size());
    std::vector<Mapping> mappings(order.size());
    for (uint32_t n = 0; n < order.size(); ++n) {
        newId[order[n]] = n;
        mappings[n] = m_p.mappings[order[n]];
        mappings[n].sourceId = n + 1;
    }
    m_p.mappings = std::move(mappings);
    for (Location& loc : m_p.locations)
        if (loc.mapping.valid() && loc.mapping.index() < newId.size())
            loc.mapping = MappingId(newId[loc.mapping.index()]);
    m_kernelMappings.clear(); // the ids changed
    m_kernelMapping = MappingId();
}

std::string Reader::wallClockTimes()
{
    if (!m_clock.known || m_p.sampleTimestamps.empty())
        return {};
    int64_t first = INT64_MAX, last = INT64_MIN;
    for (int64_t& t : m_p.sampleTimestamps) {
        if (t == 0)
            continue;
        // Unsigned arithmetic wraps where signed would overflow on a hostile header.
        t = int64_t(m_clock.wallNanos + (uint64_t(t) - m_clock.clockNanos));
        first = std::min(first, t);
        last = std::max(last, t);
    }
    if (first <= last) {
        m_p.timeNanos = first;
        m_p.durationNanos = int64_t(uint64_t(last) - uint64_t(first));
    }
    // The clock ids of clock_gettime(2).
    static const char* const kNames[] = { "realtime", "monotonic", "process_cputime_id", "thread_cputime_id",
        "monotonic_raw", "realtime_coarse", "monotonic_coarse", "boottime", "realtime_alarm", "boottime_alarm", nullptr,
        "tai" };
    const char* name = m_clock.clockid < std::size(kNames) ? kNames[m_clock.clockid] : nullptr;
    return (name ? std::string(name) : "clock " + std::to_string(m_clock.clockid))
        + "; sample times converted to wall-clock time (HEADER_CLOCK_DATA)";
}

// Kernel frames named, as perf report names them, from the symbol table perf kept in its build-ID
// cache for the kernel that recorded (a snapshot taken then: modules as they were loaded), else
// from /proc/kallsyms when the kernel that recorded is the running one (the build IDs agree).
// Returns where the names came from, or why the frames stay addresses.
std::pair<std::string, std::string> Reader::nameKernelFrames()
{
    std::vector<size_t> kernelLocations;
    std::string recorded;
    for (size_t i = 0; i < m_p.locations.size(); ++i) {
        const Mapping* m = m_p.mappingOf(m_p.locations[i]);
        if (m && m_p.str(m->file) == "[kernel.kallsyms]") {
            kernelLocations.push_back(i);
            recorded = std::string(m_p.str(m->buildId));
        }
    }
    if (kernelLocations.empty())
        return {};
    if (recorded.empty()) {
        auto b = m_buildIdOf.find("[kernel.kallsyms]");
        if (b != m_buildIdOf.end())
            recorded = b->second;
    }
    const std::string cache = perfBuildIdCacheDir();
    const std::string copy = perfBuildIdCacheEntry(cache, recorded, "kallsyms");
    KernelSymbols fromCopy;
    if (!copy.empty())
        fromCopy = readKallsyms(copy);
    const std::string& running = runningKernelBuildId();
    const bool isRunning = !recorded.empty() && recorded == running;
    const KernelSymbols& symbols = !fromCopy.empty() ? fromCopy : isRunning ? runningKernelSymbols() : fromCopy;
    if (symbols.empty()) {
        std::string why = "kernel frames left as addresses: ";
        if (recorded.empty())
            return { {}, why + "perf recorded no build ID for the kernel" };
        why += "perf's build-ID cache (" + (cache.empty() ? std::string("unknown: no $HOME") : cache) + ") ";
        why += copy.empty() ? "holds no kallsyms for the recording kernel " + recorded
                            : "holds a kallsyms for the recording kernel with no addresses (" + copy + ")";
        if (isRunning)
            return { {}, why + ", and /proc/kallsyms gives no addresses (kptr_restrict)" };
        return { {}, why + ", which is not the running kernel (" + (running.empty() ? std::string("unknown") : running) + ")" };
    }
    std::unordered_map<std::string, FunctionId> functionOf;
    for (size_t i : kernelLocations) {
        Location& loc = m_p.locations[i];
        auto it = std::upper_bound(symbols.begin(), symbols.end(), loc.address,
            [](uint64_t a, const auto& s) { return a < s.first; });
        if (it == symbols.begin())
            continue;
        // The last of the names at that address (perf prefers the last one too for aliases).
        const std::string& name = std::prev(it)->second;
        auto [f, added] = functionOf.try_emplace(name, FunctionId(m_p.functions.size()));
        if (added) {
            Function fn;
            fn.name = m_p.strings.intern(name);
            fn.systemName = fn.name;
            fn.sourceId = m_p.functions.size() + 1;
            m_p.functions.push_back(fn);
        }
        Line l;
        l.function = f->second;
        loc.linesBegin = uint32_t(m_p.lines.size());
        loc.lineCount = 1;
        m_p.lines.push_back(l);
    }
    return { !fromCopy.empty() ? copy : std::string("/proc/kallsyms"), {} };
}

} // namespace

bool looksLikePerfData(std::span<const uint8_t> data)
{
    if (data.size() < 8)
        return false;
    const uint64_t m = le(data, 0, 8);
    return m == kMagic || m == kMagicSwapped;
}

Result<Profile> readPerfData(std::span<const uint8_t> data, PerfDataStats* stats, PerfStackUnwinder* unwinder)
{
    PerfDataStats local;
    Reader r(data, stats ? *stats : local);
    r.setUnwinding(unwinder, {}, 0);
    return r.read();
}

Result<Profile> readPerfData(
    std::span<const uint8_t> data, PerfDataStats* stats, const PerfStackUnwinderFactory& unwinders, unsigned threads)
{
    PerfDataStats local;
    Reader r(data, stats ? *stats : local);
    if (threads == 0)
        threads = 1 + UnwindPool::workersFor(std::thread::hardware_concurrency());
    r.setUnwinding(nullptr, unwinders, threads - 1);
    return r.read();
}

} // namespace symflame::model
