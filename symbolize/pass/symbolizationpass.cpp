#include "symbolize/pass/symbolizationpass.h"

#include "symbolize/object/addressnormalizer.h"
#include "symbolize/pass/parallellookup.h"

#include "model/core/frameformat.h"
#include "model/core/parallel.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <iterator>
#include <map>
#include <tuple>
#include <mutex>
#include <thread>
#include <unordered_map>

namespace symflame::symbolize {

using model::ErrorCode;
using model::FrameStatus;
using model::FunctionId;
using model::LocationId;
using model::makeError;
using model::MappingId;
using model::Profile;
using model::Result;
using model::StringId;

std::string MappingReport::line() const
{
    std::string s = path.empty() ? std::string("(no path)") : path;
    s += "  ";
    s += buildId.empty() ? std::string("(no build ID)") : buildId;
    s += "  ";
    s += locateStatusName(status);
    s += "  ";
    s += error.empty() ? summary : error;
    if (!debuginfod.empty())
        s += " [" + debuginfod + "]";
    s += "  " + std::to_string(resolved) + "/" + std::to_string(locations);
    return s;
}

namespace {

constexpr uint32_t kNone = 0xffffffffu;

struct Item {
    uint32_t location;
    uint32_t range; // index into Job::ranges
    uint64_t address; // runtime address to look up (already adjusted for return addresses)
};

struct Job {
    std::string path;
    std::string buildId;
    std::string htlHash;
    uint64_t weight = 0; // samples whose stacks hold one of the job's locations (download order)
    std::vector<uint32_t> mappings; // profile mapping indices
    std::vector<MappingRange> ranges; // parallel to mappings
    std::vector<Item> items;
};

struct JobResult {
    LocateResult located;
    std::string error;
    std::string debuginfod; // what the servers answered
    std::vector<uint64_t> unique; // the job's ELF addresses, sorted, without duplicates
    SymbolizedAddresses answers; // parallel to unique
    std::vector<uint32_t> answerOf; // per item: index into answers, kNone if not looked up
    size_t dwarfWarnings = 0;
    std::vector<std::string> warnings;
    std::string engineDetail; // SymbolizerEngine::description()
};

// The locator reads the client cache the debuginfod client writes to (one cache, not two).
LocatorOptions withClientCache(LocatorOptions o, const DebuginfodOptions& d)
{
    if (o.clientCacheDir.empty())
        o.clientCacheDir = d.cacheDir;
    return o;
}

// Whether the local search found no usable file: one a server may send instead.
bool isMissing(const LocateResult& r)
{
    return r.status == LocateStatus::NotFound || r.status == LocateStatus::BuildIdMismatch
        || r.status == LocateStatus::InvalidFile;
}

// Whether a located binary lacks the DWARF a server may have.
bool wantsDebuginfo(const LocateResult& r)
{
    if (r.status != LocateStatus::Found)
        return false;
    switch (r.source) {
    case DebugSource::None:
    case DebugSource::SymbolTable:
    case DebugSource::DynamicSymbolTable:
    case DebugSource::MiniDebugInfo:
    case DebugSource::GoPclntab:
        return true;
    default:
        return false;
    }
}

// "3.1 of 12 MiB": bytes downloaded of the size, in the size's unit.
std::string downloadedText(int64_t received, int64_t total)
{
    static const char* const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
    double scale = 1;
    size_t u = 0;
    for (const double big = double(std::max(received, total)); u + 1 < std::size(units) && big >= scale * 1024; ++u)
        scale *= 1024;
    const auto number = [&](int64_t v) {
        char buf[32];
        std::snprintf(buf, sizeof buf, u == 0 ? "%.0f" : "%.1f", double(v) / scale);
        std::string s = buf;
        if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0)
            s.resize(s.size() - 2);
        return s;
    };
    return number(received) + " of " + number(total) + " " + units[u];
}

// A dwz supplementary file is shared by many debug files (a distribution's package has one for
// all its binaries): each is fetched once in a run; the jobs that ask while it downloads wait
// for that download's answer.
class SupplementaryFetches {
public:
    FetchResult fetch(const std::string& buildId, DebuginfodClient& client, const model::CancelFlag& cancel,
        const DebuginfodClient::ProgressFn& progress)
    {
        std::unique_lock lock(m_mutex);
        auto [it, first] = m_entries.try_emplace(buildId);
        Entry& e = it->second; // std::map: stays where it is while others are added
        if (!first) {
            m_done.wait(lock, [&] { return e.done; });
            return e.result;
        }
        lock.unlock();
        FetchResult r = client.fetch(buildId, FetchKind::Debuginfo, &cancel, progress);
        lock.lock();
        e.result = r;
        e.done = true;
        ++m_fetches;
        m_done.notify_all();
        return r;
    }
    /// Downloads asked of the servers (one per supplementary file).
    size_t fetches() const
    {
        std::lock_guard lock(m_mutex);
        return m_fetches;
    }

private:
    struct Entry {
        bool done = false;
        FetchResult result;
    };
    mutable std::mutex m_mutex;
    std::condition_variable m_done;
    std::map<std::string, Entry> m_entries;
    size_t m_fetches = 0;
};

// Whether a located debug file names a dwz supplementary file that was not found locally, one
// a server can be asked for by its build ID (.gnu_debugaltlink's, or .debug_sup's checksum).
bool wantsSupplementary(const LocateResult& r)
{
    return r.dwarf && !r.supplementary && !r.supplementaryProblem.empty() && r.dwarf->debugAltLink()
        && !r.dwarf->debugAltLink()->buildId.empty();
}

// Asks the servers for r.located.dwarf's supplementary file when it is missing, and uses it
// when it is the one the link names (DebugInfoLocator::useSupplementary checks the ID again).
void fetchSupplementary(DebuginfodClient& client, SupplementaryFetches& supplementaries,
    const model::CancelFlag& cancel, JobResult& r, const DebuginfodClient::ProgressFn& progress)
{
    if (!wantsSupplementary(r.located) || cancel.isCancelled())
        return;
    const std::string id = r.located.dwarf->debugAltLink()->buildId;
    const FetchResult f = supplementaries.fetch(id, client, cancel, progress);
    r.debuginfod += (r.debuginfod.empty() ? "" : "; ") + std::string("dwz supplementary file ")
        + (f.status == FetchStatus::Found ? f.summary() : "not downloaded: " + f.summary());
    if (f.status != FetchStatus::Found) {
        r.located.supplementaryProblem += " (" + f.summary() + ")";
        return;
    }
    if (!DebugInfoLocator::useSupplementary(r.located, f.path, true)) {
        r.debuginfod += " (refused: " + (r.located.tried.empty() ? std::string("?") : r.located.tried.back()) + ")";
        r.located.supplementaryProblem += " (the file downloaded for it was refused)";
    }
}

// Asks the servers for what the local search did not find: the executable when no local file
// with the build ID exists, then the debuginfo when the binary has no DWARF, then the dwz
// supplementary file its DWARF refers into. Every file used is verified by DebuginfodClient
// (ELF, the build ID asked for).
void fetchForJob(const Job& job, const DebugInfoLocator& locator, DebuginfodClient& client,
    SupplementaryFetches& supplementaries, const model::CancelFlag& cancel, JobResult& r,
    const DebuginfodClient::ProgressFn& progress)
{
    const auto note = [&](FetchKind kind, const FetchResult& f) {
        r.debuginfod += (r.debuginfod.empty() ? "" : "; ") + std::string(fetchKindName(kind)) + " " + f.summary();
    };
    if (job.buildId.empty()) { // nothing to ask for by the binary's ID; its debug file may name a supplementary
        fetchSupplementary(client, supplementaries, cancel, r, progress);
        return;
    }
    const bool missing = isMissing(r.located);
    if (missing && model::isKernelImageMappingName(job.path)) {
        // A vmlinux: servers index it as debuginfo (it holds the kernel's DWARF), some as an
        // executable too; either names the kernel's frames.
        for (const FetchKind kind : { FetchKind::Debuginfo, FetchKind::Executable }) {
            const FetchResult f = client.fetch(job.buildId, kind, &cancel, progress);
            note(kind, f);
            if (f.status != FetchStatus::Found)
                continue;
            LocateResult fetched = locator.useKernelImage(f.path, job.buildId, DebugSource::Debuginfod);
            if (fetched.status != LocateStatus::Found) {
                r.debuginfod += " (" + (fetched.tried.empty() ? std::string("refused") : fetched.tried.back()) + ")";
                continue;
            }
            fetched.recordedPath = r.located.recordedPath;
            fetched.binaryDownloaded = true;
            fetched.tried.insert(fetched.tried.begin(), r.located.tried.begin(), r.located.tried.end());
            r.located = std::move(fetched);
            return;
        }
        return;
    }
    if (missing) {
        const FetchResult f = client.fetch(job.buildId, FetchKind::Executable, &cancel, progress);
        note(FetchKind::Executable, f);
        if (f.status != FetchStatus::Found)
            return;
        LocateResult fetched = locator.locate(f.path, job.buildId);
        if (fetched.status != LocateStatus::Found)
            return;
        fetched.recordedPath = r.located.recordedPath;
        fetched.binaryDownloaded = true;
        fetched.tried.insert(fetched.tried.begin(), r.located.tried.begin(), r.located.tried.end());
        r.located = std::move(fetched);
    }
    if (!wantsDebuginfo(r.located) || cancel.isCancelled()) {
        fetchSupplementary(client, supplementaries, cancel, r, progress); // a local dwz'd debug file
        return;
    }
    const FetchResult f = client.fetch(job.buildId, FetchKind::Debuginfo, &cancel, progress);
    note(FetchKind::Debuginfo, f);
    if (f.status != FetchStatus::Found)
        return;
    auto elf = ElfFile::open(f.path);
    if (!elf || !(*elf)->contents().readableDwarf()) {
        r.debuginfod += elf ? " (it holds no DWARF)" : " (" + elf.error().message + ")";
        return;
    }
    r.located.dwarf = *elf;
    r.located.dwarfPath = f.path;
    r.located.source = DebugSource::Debuginfod;
    locator.locateSupplementary(r.located); // a dwz-processed download names its alt file
    if (!r.located.symbols || r.located.symbolKind == SymbolTable::Kind::Dynamic) {
        if ((*elf)->contents().symtab) {
            r.located.symbols = *elf;
            r.located.symbolKind = SymbolTable::Kind::Static;
        }
    }
    fetchSupplementary(client, supplementaries, cancel, r, progress);
}

// Step 2 of the pass: the jobs that need a server, hottest first, fetched by
// options.parallelDownloads workers with a client each; this thread serves progress and cancel.
model::Status fetchMissing(const std::vector<Job>& jobs, std::vector<JobResult>& results,
    const DebugInfoLocator& locator, const DebuginfodOptions& options, model::Progress* progress, uint64_t& downloads,
    std::vector<DebuginfodServers::GivenUp>& givenUp)
{
    std::vector<size_t> order;
    for (size_t j = 0; j < jobs.size(); ++j) {
        const LocateResult& r = results[j].located;
        if ((!jobs[j].buildId.empty() && (isMissing(r) || wantsDebuginfo(r))) || wantsSupplementary(r))
            order.push_back(j);
    }
    if (order.empty())
        return model::Status::success();
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return jobs[a].weight > jobs[b].weight; });
    applyDebuginfodEnvironment(options);
    // Shared by the workers: a server that times out for one is given up for all.
    const auto servers = std::make_shared<DebuginfodServers>(options.offline ? std::vector<std::string>() : options.urls,
        options.timeoutSeconds);

    SupplementaryFetches supplementaries;
    std::atomic<size_t> next { 0 }, done { 0 };
    model::CancelFlag cancel; // set here from progress; what the downloads look at
    // What each worker is fetching now, for the progress line: the binary and its bytes.
    struct Slot {
        std::string name;
        int64_t received = 0, total = 0;
        bool active = false;
    };
    const unsigned n = static_cast<unsigned>(std::min<size_t>(std::max(1u, options.parallelDownloads), order.size()));
    std::mutex mutex;
    std::vector<Slot> slots(n);
    std::string current; // the binary whose download started last
    const auto worker = [&](unsigned t) {
        auto client = DebuginfodClient::create(servers);
        for (size_t k; (k = next.fetch_add(1)) < order.size();) {
            const size_t j = order[k];
            if (!client) {
                results[j].debuginfod = client.error().message;
            } else if (!cancel.isCancelled()) {
                {
                    std::lock_guard lock(mutex);
                    current = std::string(model::baseName(jobs[j].path.empty() ? jobs[j].buildId : jobs[j].path));
                    slots[t] = Slot { current, 0, 0, true };
                }
                fetchForJob(jobs[j], locator, **client, supplementaries, cancel, results[j], [&, t](int64_t received, int64_t total) {
                    std::lock_guard lock(mutex);
                    slots[t].received = received;
                    slots[t].total = total;
                });
                std::lock_guard lock(mutex);
                slots[t].active = false;
            }
            done.fetch_add(1);
        }
    };
    std::string lastStage;
    model::runThreads(n, worker, [&] {
        if (progress) {
            if (progress->isCancelled())
                cancel.cancel();
            std::string stage;
            {
                std::lock_guard lock(mutex);
                // Bytes only of downloads with a known size: before libdebuginfod commits to a
                // server its callback counts polling rounds, not bytes.
                int64_t received = 0, total = 0;
                std::string name = current;
                for (const Slot& slot : slots) {
                    if (!slot.active || slot.total <= 0)
                        continue;
                    if (total == 0)
                        name = slot.name;
                    received += slot.received;
                    total += slot.total;
                }
                const size_t k = std::min(done.load() + 1, order.size());
                stage = "downloading debug info for " + name + " (" + std::to_string(k) + " of "
                    + std::to_string(order.size());
                if (total > 0)
                    stage += ", " + downloadedText(received, total);
                stage += ')';
            }
            if (stage != lastStage)
                progress->setStage(stage);
            lastStage = stage;
            progress->setProgress(done.load(), order.size());
        }
    });
    downloads += order.size();
    givenUp = servers->givenUp();
    if (cancel.isCancelled())
        return model::makeError(ErrorCode::Cancelled, "symbolization cancelled");
    return model::Status::success();
}

// Normalizes the job's addresses into ELF addresses, sorted and deduplicated for the lookup.
void normalizeJob(const Job& job, JobResult& r)
{
    r.answerOf.assign(job.items.size(), kNone);
    if (r.located.status != LocateStatus::Found)
        return;
    // Normalize every item's address with its mapping's normalizer.
    std::vector<AddressNormalizer> normalizers;
    normalizers.reserve(job.ranges.size());
    for (const MappingRange& range : job.ranges) {
        auto n = AddressNormalizer::create(*r.located.binary, range);
        if (!n) {
            r.error = n.error().toString();
            return;
        }
        normalizers.push_back(std::move(*n));
    }
    std::vector<uint64_t> elfAddresses(job.items.size());
    for (size_t i = 0; i < job.items.size(); ++i)
        elfAddresses[i] = normalizers[job.items[i].range].toElfAddress(job.items[i].address);
    r.unique = elfAddresses;
    std::sort(r.unique.begin(), r.unique.end());
    r.unique.erase(std::unique(r.unique.begin(), r.unique.end()), r.unique.end());
    for (size_t i = 0; i < job.items.size(); ++i)
        r.answerOf[i] = static_cast<uint32_t>(
            std::lower_bound(r.unique.begin(), r.unique.end(), elfAddresses[i]) - r.unique.begin());
}

// Takes a lookup's outcome into the job's result.
void takeOutcome(LookupOutcome&& o, JobResult& r)
{
    if (!o.engine.empty())
        r.located.source = o.source;
    r.engineDetail = o.engineDetail;
    r.dwarfWarnings = o.warningCount;
    r.warnings = std::move(o.warnings);
    if (o.ok) {
        r.answers = std::move(o.answers);
        return;
    }
    // With no source at all the locator's summary already says why; otherwise the files were
    // found but could not be read.
    if (r.located.source != DebugSource::None || !o.engine.empty())
        r.error = o.error;
    std::fill(r.answerOf.begin(), r.answerOf.end(), kNone);
}

bool hasNamedLine(const Profile& p, const model::Location& loc)
{
    if (size_t(loc.linesBegin) + loc.lineCount > p.lines.size())
        return false;
    for (const model::Line& l : p.linesOf(loc))
        if (l.function.valid() && l.function.index() < p.functions.size()
            && !p.functions[l.function.index()].name.empty())
            return true;
    return false;
}

// Writes a job's answers into the profile (calling thread only).
class Merger {
public:
    explicit Merger(Profile& p)
        : m_p(p)
    {
        m_functionIndex.reserve(p.functions.size());
        for (size_t i = 0; i < p.functions.size(); ++i) {
            const model::Function& f = p.functions[i];
            m_functionIndex.try_emplace(Key { f.name, f.systemName, f.file, f.startLine }, static_cast<uint32_t>(i));
        }
    }

    bool merge(const Job& job, const JobResult& r, std::vector<MappingReport>& reports, std::string* error)
    {
        const SymbolizedAddresses& a = r.answers;
        m_strings.assign(a.strings().size(), StringId());
        m_stringDone.assign(a.strings().size(), false);
        m_functions.assign(a.functions().size(), kNone);
        std::vector<uint8_t> flags(job.mappings.size(), 0);
        for (size_t i = 0; i < job.items.size(); ++i) {
            const Item& item = job.items[i];
            model::Location& loc = m_p.locations[item.location];
            const uint32_t ai = r.answerOf[i];
            bool named = false, anyFile = false;
            if (ai != kNone) {
                const auto frames = a.frames(ai);
                for (const SymbolizedFrame& f : frames) {
                    const SymbolizedFunction& fn = a.function(f.function);
                    named = named || !fn.name.empty();
                    anyFile = anyFile || !fn.file.empty();
                }
                if (named || anyFile) {
                    if (m_p.lines.size() + frames.size() > 0xffffffffu) {
                        *error = "profile has too many lines for 32-bit line indices";
                        return false;
                    }
                    loc.linesBegin = static_cast<uint32_t>(m_p.lines.size());
                    loc.lineCount = static_cast<uint32_t>(frames.size());
                    uint8_t& fl = flags[item.range];
                    for (const SymbolizedFrame& f : frames) {
                        const SymbolizedFunction& fn = a.function(f.function);
                        m_p.lines.push_back(model::Line { functionFor(a, f.function), f.line, f.column });
                        if (!fn.name.empty())
                            fl |= model::Mapping::HasFunctions;
                        if (!fn.file.empty())
                            fl |= model::Mapping::HasFilenames;
                        if (f.line > 0)
                            fl |= model::Mapping::HasLineNumbers;
                    }
                    if (frames.size() > 1)
                        fl |= model::Mapping::HasInlineFrames;
                }
            }
            if (named)
                loc.status = FrameStatus::Symbolized;
            else if (!hasNamedLine(m_p, loc))
                loc.status = r.located.status == LocateStatus::NotApplicable ? FrameStatus::NotApplicable
                                                                              : FrameStatus::BinaryOnly;
        }
        for (size_t m = 0; m < job.mappings.size(); ++m) {
            m_p.mappings[job.mappings[m]].flags |= flags[m];
            MappingReport& rep = reports[job.mappings[m]];
            rep.status = r.located.status;
            rep.source = r.located.source;
            rep.unverified = r.located.unverified;
            rep.binaryPath = r.located.binaryPath;
            rep.debugPath = r.located.dwarfPath;
            rep.summary = r.located.summary();
            rep.engineDetail = r.engineDetail;
            if (!r.engineDetail.empty())
                rep.summary += ": " + r.engineDetail;
            rep.error = r.error;
            rep.tried = r.located.tried;
            rep.debuginfod = r.debuginfod; // said apart from summary (line() adds it once)
            rep.dwarfWarnings = r.dwarfWarnings;
            rep.warnings = r.warnings;
        }
        return true;
    }

private:
    struct Key {
        StringId name, systemName, file;
        int64_t startLine;
        bool operator==(const Key&) const = default;
    };
    struct KeyHash {
        size_t operator()(const Key& k) const noexcept
        {
            uint64_t h = k.name.value;
            h = h * 0x9e3779b97f4a7c15ull ^ k.systemName.value;
            h = h * 0x9e3779b97f4a7c15ull ^ k.file.value;
            h = h * 0x9e3779b97f4a7c15ull ^ static_cast<uint64_t>(k.startLine);
            return static_cast<size_t>(h ^ (h >> 29));
        }
    };

    StringId stringFor(const SymbolizedAddresses& a, StringId local)
    {
        if (!m_stringDone[local.index()]) {
            m_strings[local.index()] = m_p.strings.intern(a.str(local));
            m_stringDone[local.index()] = true;
        }
        return m_strings[local.index()];
    }

    FunctionId functionFor(const SymbolizedAddresses& a, uint32_t local)
    {
        if (m_functions[local] == kNone) {
            const SymbolizedFunction& f = a.function(local);
            const Key key { stringFor(a, f.name), stringFor(a, f.systemName), stringFor(a, f.file),
                static_cast<int64_t>(f.startLine) };
            auto [it, inserted] = m_functionIndex.try_emplace(key, static_cast<uint32_t>(m_p.functions.size()));
            if (inserted) {
                model::Function fn;
                fn.name = key.name;
                fn.systemName = key.systemName;
                fn.file = key.file;
                fn.startLine = key.startLine;
                m_p.functions.push_back(fn);
            }
            m_functions[local] = it->second;
        }
        return FunctionId(m_functions[local]);
    }

    Profile& m_p;
    std::unordered_map<Key, uint32_t, KeyHash> m_functionIndex;
    std::vector<StringId> m_strings;
    std::vector<bool> m_stringDone;
    std::vector<uint32_t> m_functions;
};

} // namespace

SymbolizationPass::SymbolizationPass(SymbolizeOptions options)
    : m_options(std::move(options))
    , m_locator(withClientCache(m_options.locator, m_options.debuginfod))
{
}

Result<SymbolizeReport> SymbolizationPass::run(Profile& p, model::Progress* progress)
{
    if (!m_indexed) {
        if (progress && !m_options.locator.searchDirs.empty())
            progress->setStage("indexing search directories");
        m_locator.buildIndex();
        m_indexed = true;
    }
    if (progress && progress->isCancelled())
        return makeError(ErrorCode::Cancelled, "symbolization cancelled");
    SymbolizeReport report;
    report.mappings.resize(p.mappings.size());
    std::vector<uint8_t> copyWanted(p.mappings.size(), 0);
    for (size_t m = 0; m < p.mappings.size(); ++m) {
        MappingReport& rep = report.mappings[m];
        rep.mapping = MappingId(m);
        rep.path = std::string(p.str(p.mappings[m].file));
        rep.buildId = std::string(p.str(p.mappings[m].buildId));
        // Mappings with no file are not looked up, except those the locator finds a copy of
        // (a [vdso] perf kept): their frames, marked not applicable by name, are looked up too.
        copyWanted[m] = m_locator.looksForCopy(rep.path, rep.buildId);
        const bool notApplicable = (rep.path.empty() && rep.buildId.empty())
            || (model::isUnsymbolizableMappingName(rep.path) && !copyWanted[m]);
        if (notApplicable) {
            rep.status = LocateStatus::NotApplicable;
            rep.summary = rep.path.empty() ? "anonymous mapping" : "not applicable";
        }
    }

    // Which locations to look up.
    std::vector<uint8_t> wanted(p.locations.size(), 0);
    for (size_t i = 0; i < p.locations.size(); ++i) {
        model::Location& loc = p.locations[i];
        if (!loc.mapping.valid() || loc.mapping.index() >= p.mappings.size())
            continue;
        const MappingReport& rep = report.mappings[loc.mapping.index()];
        if (rep.status == LocateStatus::NotApplicable
            || (loc.status == FrameStatus::NotApplicable && !copyWanted[loc.mapping.index()])) {
            if (!hasNamedLine(p, loc))
                loc.status = FrameStatus::NotApplicable;
            continue;
        }
        // Locations with lines were symbolized before (by the producer or an earlier pass).
        if (!m_options.resymbolize && loc.lineCount > 0)
            continue;
        wanted[i] = 1;
    }

    // Return addresses in non-leaf frames: which locations are used where.
    std::vector<uint64_t> lookupAddress(p.locations.size());
    for (size_t i = 0; i < p.locations.size(); ++i)
        lookupAddress[i] = p.locations[i].address;
    if (m_options.nonLeafAddressesAreReturnAddresses) {
        enum : uint8_t { Leaf = 1, NonLeaf = 2 };
        std::vector<uint8_t> use(p.locations.size(), 0);
        for (size_t s = 0; s < p.stackCount(); ++s) {
            const auto st = p.stack(model::StackId(s));
            for (size_t k = 0; k < st.size(); ++k)
                if (st[k].index() < use.size())
                    use[st[k].index()] |= k == 0 ? Leaf : NonLeaf;
        }
        std::vector<uint32_t> twin(p.locations.size(), kNone);
        const size_t original = p.locations.size();
        for (size_t i = 0; i < original; ++i) {
            if (!wanted[i] || !(use[i] & NonLeaf) || p.locations[i].address == 0)
                continue;
            if (use[i] & Leaf) {
                twin[i] = static_cast<uint32_t>(p.locations.size());
                model::Location copy = p.locations[i];
                copy.sourceId = 0;
                p.locations.push_back(copy);
                wanted.push_back(1);
                lookupAddress.push_back(copy.address - 1);
                ++report.locationsSplit;
            } else {
                lookupAddress[i] = p.locations[i].address - 1;
            }
        }
        if (report.locationsSplit > 0) {
            for (size_t s = 0; s < p.stackCount(); ++s) {
                const size_t b = p.stackBegin[s], e = p.stackBegin[s + 1];
                for (size_t k = b + 1; k < e; ++k) {
                    const LocationId l = p.stackLocations[k];
                    if (l.index() < original && twin[l.index()] != kNone)
                        p.stackLocations[k] = LocationId(twin[l.index()]);
                }
            }
        }
    }

    // Jobs: one per binary (recorded path + build ID), holding copies of everything the worker
    // needs, so that workers never read the profile while it is being written.
    std::vector<Job> jobs;
    {
        std::map<std::tuple<uint32_t, uint32_t, uint32_t>, uint32_t> jobOf; // (file, buildId, htlHash) -> job
        std::vector<std::pair<uint32_t, uint32_t>> rangeOf(p.mappings.size(), { kNone, kNone }); // job, range
        for (size_t i = 0; i < p.locations.size(); ++i) {
            if (!wanted[i])
                continue;
            const size_t m = p.locations[i].mapping.index();
            if (rangeOf[m].first == kNone) {
                const model::Mapping& mp = p.mappings[m];
                const auto key = std::make_tuple(mp.file.value, mp.buildId.value, mp.htlHash.value);
                auto [it, inserted] = jobOf.try_emplace(key, static_cast<uint32_t>(jobs.size()));
                if (inserted) {
                    Job j;
                    j.path = std::string(p.str(mp.file));
                    j.buildId = std::string(p.str(mp.buildId));
                    j.htlHash = std::string(p.str(mp.htlHash));
                    jobs.push_back(std::move(j));
                }
                Job& j = jobs[it->second];
                rangeOf[m] = { it->second, static_cast<uint32_t>(j.mappings.size()) };
                j.mappings.push_back(static_cast<uint32_t>(m));
                j.ranges.push_back(mappingRangeOf(mp, j.path));
            }
            jobs[rangeOf[m].first].items.push_back(
                Item { static_cast<uint32_t>(i), rangeOf[m].second, lookupAddress[i] });
        }
    }
    uint64_t totalItems = 0;
    for (const Job& j : jobs)
        totalItems += j.items.size();

    unsigned nThreads = m_options.threads ? m_options.threads : std::max(1u, std::thread::hardware_concurrency());
    if (progress) {
        progress->setStage("locating binaries");
        progress->setProgress(0, totalItems);
    }

    // 1. Locate locally, a job per worker (file I/O and ELF headers: cheap but parallel).
    std::vector<JobResult> results(jobs.size());
    model::parallelFor(jobs.size(), nThreads, [&](size_t j) { results[j].located = m_locator.locate(jobs[j].path, jobs[j].buildId, jobs[j].htlHash); });
    if (progress && progress->isCancelled())
        return makeError(ErrorCode::Cancelled, "symbolization cancelled");

    // 2. Ask debuginfod servers for what is missing, hottest binaries first.
    if (m_options.debuginfod.enabled()) {
        // Weights: how many samples pass through each job's binary.
        std::vector<uint32_t> jobOfLocation(p.locations.size(), kNone);
        for (size_t j = 0; j < jobs.size(); ++j)
            for (const Item& item : jobs[j].items)
                jobOfLocation[item.location] = static_cast<uint32_t>(j);
        std::vector<size_t> lastSample(jobs.size(), SIZE_MAX);
        for (size_t smp = 0; smp < p.sampleCount(); ++smp)
            for (LocationId l : p.sampleStack(smp))
                if (l.index() < jobOfLocation.size() && jobOfLocation[l.index()] != kNone) {
                    const uint32_t j = jobOfLocation[l.index()];
                    if (lastSample[j] != smp) {
                        lastSample[j] = smp;
                        ++jobs[j].weight;
                    }
                }
        if (model::Status st
            = fetchMissing(jobs, results, m_locator, m_options.debuginfod, progress, report.downloads, report.serversGivenUp);
            !st)
            return st.error();
    }

    // 3. Normalize the addresses of every located binary.
    model::parallelFor(jobs.size(), nThreads, [&](size_t j) { normalizeJob(jobs[j], results[j]); });

    // 4. Look up every located job's addresses on the pool (a huge binary is sharded), except
    //    those an earlier run of this SymbolizationPass answered.
    {
        std::vector<LookupModule> modules;
        std::vector<size_t> jobOfModule;
        std::vector<std::string> keys(jobs.size());
        std::vector<std::vector<uint64_t>> toLookUp(jobs.size());
        for (size_t j = 0; j < jobs.size(); ++j) {
            JobResult& r = results[j];
            if (r.located.status != LocateStatus::Found || !r.error.empty())
                continue;
            if (!m_options.symbolTablesOnly) // names alone must not answer a later full pass
                keys[j] = AnswerCache::keyOf(r.located);
            if (keys[j].empty()) {
                modules.push_back(LookupModule { &r.located, r.unique });
                jobOfModule.push_back(j);
                continue;
            }
            toLookUp[j] = m_cache.missing(keys[j], r.unique);
            report.addressesFromCache += r.unique.size() - toLookUp[j].size();
            if (toLookUp[j].empty()) {
                const AnswerCache::Entry* e = m_cache.find(keys[j]);
                const DebugSource source = e->source;
                const std::string engine = e->engine, detail = e->engineDetail;
                r.answers = m_cache.combine(keys[j], r.unique, {}, SymbolizedAddresses(), source, engine, detail);
                r.located.source = source;
                r.engineDetail = detail;
                continue;
            }
            modules.push_back(LookupModule { &r.located, toLookUp[j] });
            jobOfModule.push_back(j);
        }
        LookupOptions lo;
        lo.module.demangle = m_options.demangle;
        lo.module.elideGoWrappers = m_options.elideGoWrappers;
        lo.module.namePltStubs = true; // a frame in a stub reads "[plt]", not the symbol before it
        lo.module.symbolTablesOnly = m_options.symbolTablesOnly;
        lo.module.isolation = m_options.isolation;
        lo.threads = nThreads;
        if (progress)
            progress->setStage("symbolizing");
        auto outcomes = lookupModules(modules, lo, progress);
        if (!outcomes)
            return outcomes.error();
        for (size_t k = 0; k < modules.size(); ++k) {
            const size_t j = jobOfModule[k];
            LookupOutcome& o = (*outcomes)[k];
            if (!keys[j].empty() && o.ok) {
                const std::string engine = o.engine;
                const DebugSource source = o.source;
                SymbolizedAddresses fresh = std::move(o.answers);
                takeOutcome(std::move(o), results[j]);
                results[j].answers = m_cache.combine(
                    keys[j], results[j].unique, toLookUp[j], fresh, source, engine, results[j].engineDetail);
            } else {
                takeOutcome(std::move(o), results[j]);
            }
        }
    }

    // 5. Write the answers into the profile.
    Merger merger(p);
    std::string mergeError;
    for (size_t j = 0; j < jobs.size() && mergeError.empty(); ++j) {
        merger.merge(jobs[j], results[j], report.mappings, &mergeError);
        report.addressesLookedUp += results[j].answers.size();
        results[j] = JobResult(); // free the answers and let the mapped files go
    }
    if (!mergeError.empty())
        return makeError(ErrorCode::TooLarge, mergeError);

    // Counts per mapping, over all its locations, and whether any has a line number.
    std::vector<uint8_t> withLines(report.mappings.size(), 0);
    for (const model::Location& loc : p.locations) {
        if (!loc.mapping.valid() || loc.mapping.index() >= report.mappings.size())
            continue;
        MappingReport& rep = report.mappings[loc.mapping.index()];
        ++rep.locations;
        if (loc.status == FrameStatus::Symbolized)
            ++rep.resolved;
        if (!withLines[loc.mapping.index()])
            for (const model::Line& l : p.linesOf(loc))
                withLines[loc.mapping.index()] |= l.line > 0;
    }
    for (const MappingReport& rep : report.mappings) {
        report.locations += rep.locations;
        report.resolved += rep.resolved;
    }
    // Mappings that were not looked up say why.
    for (size_t m = 0; m < report.mappings.size(); ++m) {
        MappingReport& rep = report.mappings[m];
        if (!rep.summary.empty())
            continue;
        if (rep.locations == 0) {
            rep.status = LocateStatus::NotApplicable;
            rep.summary = "no locations";
        } else {
            rep.status = LocateStatus::Found;
            rep.summary = producerSymbolizedSummary(withLines[m]);
        }
    }

    // 6. JavaScript frames through their source maps.
    if (std::any_of(p.locations.begin(), p.locations.end(),
            [&](const model::Location& l) { return isMappableJavaScriptFrame(p, l); })) {
        if (progress) {
            if (progress->isCancelled())
                return makeError(ErrorCode::Cancelled, "symbolization cancelled");
            progress->setStage("applying source maps");
        }
        SourceMapOptions sm;
        sm.sourceMapDirs = m_options.sourceMapDirs;
        sm.pathMaps = m_options.locator.pathMaps;
        sm.limits = m_options.sourceMapLimits;
        report.sourceMaps = applySourceMaps(p, sm);
    }

    // 7. Stacks that reach no thread root (named only now) under a "[truncated]" root.
    if (m_options.markTruncatedStacks)
        report.truncatedStacks = model::markTruncatedStacks(p);
    return report;
}

std::string producerSymbolizedSummary(bool withLines)
{
    return withLines ? "symbolized by the producer" : "symbolized by the producer: function names, no file or line";
}

Result<SymbolizeReport> symbolizeProfile(Profile& profile, const SymbolizeOptions& options, model::Progress* progress)
{
    SymbolizationPass s(options);
    return s.run(profile, progress);
}

} // namespace symflame::symbolize
