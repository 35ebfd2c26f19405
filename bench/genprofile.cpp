// symflame-genprofile: writes a large synthetic pprof profile for benchmarks, the same bytes for
// the same options. Shape: a virtual tree of call paths in which every node has a fixed,
// hash-derived list of callees; each sample walks from a root down to a random depth, choosing
// callees with a Zipf-like skew. Upper levels repeat (hot paths), deep levels diverge, so stacks
// share prefixes while most samples have a stack of their own. Function popularity is Zipf-like
// too (a few functions are everywhere, like memcpy or malloc); some functions carry inline
// chains and one library is stripped (locations with addresses only).
// With --binary PATH the main mapping is that real ELF file instead: its locations are addresses
// inside the functions nm lists for it, with no lines, so `symflame symbolize` has real work.
#include "model/io/fileio.h"
#include "model/io/gzip.h"
#include "model/io/pprof/pprof.h"
#include "model/core/profile.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace symflame::model;

namespace {

struct Options {
    uint64_t samples = 1000000;
    uint32_t functions = 50000;
    uint32_t mappings = 30;
    uint32_t minDepth = 20;
    uint32_t maxDepth = 60;
    uint64_t seed = 20240601;
    uint32_t callees = 6; // callee slots per node of the call-path tree
    double skew = 4.0; // Zipf exponent of the callee a walk takes (larger: more sharing)
    double otherSite = 0.05; // chance that a frame calls from another of its function's call sites
    double hotShare = 0.25; // fraction of samples that repeat one of the hot stacks exactly
    uint32_t hotStacks = 4000;
    std::string output;
    std::string binary; // --binary: a real ELF file for mapping 0
};

struct RealFunction {
    uint64_t address, size;
};

/// Code symbols with a size in path, as `nm -S --defined-only` lists them.
std::vector<RealFunction> realFunctions(const std::string& path)
{
    std::vector<RealFunction> out;
    const std::string command = "nm -S --defined-only '" + path + "' 2>/dev/null";
    std::FILE* nm = popen(command.c_str(), "r");
    if (!nm)
        return out;
    char line[4096];
    while (std::fgets(line, sizeof line, nm)) {
        unsigned long long address = 0, size = 0;
        char type = 0;
        if (std::sscanf(line, "%llx %llx %c", &address, &size, &type) == 3 && size > 0
            && (type == 't' || type == 'T' || type == 'w' || type == 'W'))
            out.push_back({ address, size });
    }
    pclose(nm);
    return out;
}

uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

double unit(uint64_t h)
{
    return static_cast<double>(h >> 11) * (1.0 / 9007199254740992.0);
}

/// Inverse-CDF sampling of a Zipf-like distribution over [0, n) with exponent s, with a
/// precomputed cumulative table.
class Zipf {
public:
    Zipf(uint32_t n, double s)
        : m_cdf(n)
    {
        double sum = 0;
        for (uint32_t i = 0; i < n; ++i)
            m_cdf[i] = (sum += 1.0 / std::pow(double(i) + 1.0, s));
        for (double& c : m_cdf)
            c /= sum;
    }
    uint32_t pick(double u) const
    {
        const auto it = std::lower_bound(m_cdf.begin(), m_cdf.end(), u);
        return it == m_cdf.end() ? uint32_t(m_cdf.size() - 1) : uint32_t(it - m_cdf.begin());
    }

private:
    std::vector<double> m_cdf;
};

const char* const kNamespaces[] = { "net", "db", "http", "json", "storage", "rpc", "cache", "auth", "sched", "util" };
const char* const kClasses[] = { "Connection", "Parser", "Buffer", "Index", "Session", "Worker", "Reader", "Writer",
    "Table", "Queue", "Handler", "Encoder" };
const char* const kVerbs[] = { "read", "write", "parse", "flush", "lookup", "insert", "encode", "decode", "dispatch",
    "poll", "merge", "hash", "compare", "run" };

std::string functionName(uint32_t i)
{
    const uint64_t h = mix(i * 7919ull + 17);
    std::string s;
    s += kNamespaces[h % 10];
    s += "::";
    s += kClasses[(h >> 8) % 12];
    s += std::to_string((h >> 16) % 64);
    s += "::";
    s += kVerbs[(h >> 24) % 14];
    s += std::to_string(i); // unique per function
    s += ((h >> 32) & 1) ? "(unsigned long, char const*)" : "()";
    return s;
}

bool parseU64(const char* s, uint64_t* out)
{
    char* end = nullptr;
    errno = 0;
    const unsigned long long v = std::strtoull(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0')
        return false;
    *out = v;
    return true;
}

int usage()
{
    std::fprintf(stderr,
        "usage: symflame-genprofile -o FILE [--samples N] [--functions N] [--mappings N]\n"
        "                           [--min-depth N] [--max-depth N] [--seed N]\n"
        "                           [--callees N] [--skew-percent N] [--hot-percent N] [--hot-stacks N]\n"
        "                           [--other-site-percent N] [--binary PATH]\n"
        "Writes a synthetic gzip-compressed pprof profile (defaults: 1000000 samples,\n"
        "50000 functions, 30 mappings, depth 20-60, two sample types). --binary PATH makes the\n"
        "main mapping that ELF file, with unsymbolized addresses inside its functions.\n");
    return 2;
}

} // namespace

int main(int argc, char** argv)
{
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        uint64_t v = 0;
        if (a == "-h" || a == "--help")
            return usage(), 0;
        if (i + 1 >= argc)
            return usage();
        const char* val = argv[++i];
        if (a == "-o")
            o.output = val;
        else if (a == "--binary")
            o.binary = val;
        else if (!parseU64(val, &v))
            return std::fprintf(stderr, "symflame-genprofile: %s wants a number, not '%s'\n", a.c_str(), val), 2;
        else if (a == "--samples")
            o.samples = v;
        else if (a == "--functions")
            o.functions = uint32_t(v);
        else if (a == "--mappings")
            o.mappings = uint32_t(v);
        else if (a == "--min-depth")
            o.minDepth = uint32_t(v);
        else if (a == "--max-depth")
            o.maxDepth = uint32_t(v);
        else if (a == "--seed")
            o.seed = v;
        else if (a == "--callees")
            o.callees = uint32_t(v);
        else if (a == "--skew-percent")
            o.skew = double(v) / 100.0;
        else if (a == "--other-site-percent")
            o.otherSite = double(v) / 100.0;
        else if (a == "--hot-percent")
            o.hotShare = double(v) / 100.0;
        else if (a == "--hot-stacks")
            o.hotStacks = uint32_t(v);
        else
            return usage();
    }
    if (o.output.empty() || o.functions < 16 || o.mappings < 2 || o.minDepth < 1 || o.maxDepth < o.minDepth
        || o.callees < 1 || o.hotStacks < 1)
        return usage();

    std::vector<RealFunction> real;
    uint64_t binarySize = 0;
    if (!o.binary.empty()) {
        real = realFunctions(o.binary);
        std::FILE* f = std::fopen(o.binary.c_str(), "rb");
        if (f && std::fseek(f, 0, SEEK_END) == 0)
            binarySize = uint64_t(std::ftell(f));
        if (f)
            std::fclose(f);
        if (real.empty() || binarySize == 0)
            return std::fprintf(stderr, "symflame-genprofile: no functions in %s (nm -S)\n", o.binary.c_str()), 1;
    }

    const auto t0 = std::chrono::steady_clock::now();
    Profile p;
    p.sampleTypes.push_back({ p.strings.intern("samples"), p.strings.intern("count") });
    p.sampleTypes.push_back({ p.strings.intern("cpu"), p.strings.intern("nanoseconds") });
    p.defaultSampleType = 1;
    p.periodType = { p.strings.intern("cpu"), p.strings.intern("nanoseconds") };
    p.period = 10000000;
    p.timeNanos = 1717200000ll * 1000000000;

    // Mappings: 0 is the main binary (non-PIE at 0x400000), the others shared libraries; the last
    // one is stripped (its locations have no lines).
    const uint32_t stripped = o.mappings - 1;
    for (uint32_t m = 0; m < o.mappings; ++m) {
        Mapping mp;
        char name[96];
        if (m == 0 && !real.empty()) {
            // The whole file mapped at one base from offset 0 (a PIE's segments keep their
            // offsets as addresses), without a build ID: used by path.
            mp.start = 0x555555554000ull;
            mp.limit = mp.start + ((binarySize + 0xfff) & ~uint64_t(0xfff));
            mp.file = p.strings.intern(o.binary);
            p.mappings.push_back(mp);
            continue;
        }
        if (m == 0) {
            std::snprintf(name, sizeof name, "/usr/bin/synthetic-server");
            mp.start = 0x400000;
        } else {
            if (m == stripped)
                std::snprintf(name, sizeof name, "/usr/lib/x86_64-linux-gnu/libstripped.so.1");
            else
                std::snprintf(name, sizeof name, "/usr/lib/x86_64-linux-gnu/libsynth%02u.so.%u", m, 1 + m % 3);
            mp.start = 0x7f0000000000ull + uint64_t(m) * 0x10000000ull;
            mp.offset = 0x1000;
        }
        mp.limit = mp.start + 0x8000000;
        mp.file = p.strings.intern(name);
        char build[41];
        std::snprintf(build, sizeof build, "%016" PRIx64 "%016" PRIx64 "%08x", mix(m + 1), mix(m + 1000),
            unsigned(mix(m + 2000)));
        mp.buildId = p.strings.intern(build);
        if (m != stripped)
            mp.flags
                = Mapping::HasFunctions | Mapping::HasFilenames | Mapping::HasLineNumbers | Mapping::HasInlineFrames;
        p.mappings.push_back(mp);
    }

    // Functions: mapping 0 holds 40%, the rest is spread over the libraries.
    std::vector<uint32_t> mappingOf(o.functions);
    std::vector<uint64_t> addressOf(o.functions);
    std::vector<uint32_t> perMapping(o.mappings, 0);
    for (uint32_t f = 0; f < o.functions; ++f) {
        const uint64_t h = mix(f ^ 0xabcdef);
        const uint32_t m = (h % 10) < 4 ? 0 : uint32_t(1 + (h >> 8) % (o.mappings - 1));
        mappingOf[f] = m;
        addressOf[f] = p.mappings[m].start + 0x1000 + uint64_t(perMapping[m]++) * 0x400;
        Function fn;
        const std::string name = functionName(f);
        fn.name = p.strings.intern(name);
        fn.systemName = fn.name;
        char file[64];
        std::snprintf(file, sizeof file, "src/%s/file%u.cc", kNamespaces[mix(f) % 10], f / 16);
        fn.file = p.strings.intern(file);
        fn.startLine = int64_t(10 + (h >> 20) % 2000);
        p.functions.push_back(fn);
    }

    // Locations are made on first use: 8 per function (4 call sites, 4 leaf PCs).
    constexpr uint32_t kSites = 8;
    std::vector<uint32_t> locationOf(size_t(o.functions) * kSites, 0xffffffffu);
    auto location = [&](uint32_t f, uint32_t site) {
        uint32_t& slot = locationOf[size_t(f) * kSites + site];
        if (slot != 0xffffffffu)
            return LocationId(slot);
        Location l;
        l.mapping = MappingId(mappingOf[f]);
        l.address = addressOf[f] + 0x10 + site * 0x40;
        const bool inRealBinary = mappingOf[f] == 0 && !real.empty();
        if (inRealBinary) {
            const RealFunction& rf = real[f % real.size()];
            l.address = p.mappings[0].start + rf.address + (0x10 + site * 0x40) % rf.size;
        }
        if (mappingOf[f] != stripped && !inRealBinary) {
            l.linesBegin = uint32_t(p.lines.size());
            const uint64_t h = mix(f * 31ull + site);
            // One function in ten has a callee inlined at some of its sites.
            if (f % 10 == 3 && site % 2 == 1) {
                const uint32_t inlinee = uint32_t(mix(f + 99) % o.functions);
                p.lines.push_back(Line { FunctionId(inlinee), int64_t(20 + h % 50), 0 });
            }
            p.lines.push_back(Line { FunctionId(f), p.functions[f].startLine + int64_t(h % 200), 0 });
            l.lineCount = uint32_t(p.lines.size() - l.linesBegin);
        }
        slot = uint32_t(p.locations.size());
        p.locations.push_back(l);
        return LocationId(slot);
    };

    // The virtual call-path tree. Node identity is a 64-bit hash of the path; a node's k-th
    // callee is a Zipf-popular function derived from that hash. Roots are a few entry points.
    const Zipf calleeChoice(o.callees, o.skew); // which callee a walk takes at each level
    const Zipf popularity(o.functions, 0.9); // which function a callee slot holds
    const uint32_t kRoots = 4;

    // Hot stacks: a share of the samples repeat one of a few thousand stacks exactly (tight
    // loops), picked with a Zipf skew; the walk of hot stack i uses its own seeded generator.
    const Zipf hotChoice(o.hotStacks, 1.0);
    std::mt19937_64 rng(o.seed);
    std::mt19937_64 hotRng;
    std::uniform_real_distribution<double> u01(0.0, 1.0);
    std::vector<uint32_t> fns; // root first
    std::vector<LocationId> stack; // leaf first
    fns.reserve(o.maxDepth);
    stack.reserve(o.maxDepth);
    for (uint64_t s = 0; s < o.samples; ++s) {
        const bool hot = u01(rng) < o.hotShare;
        if (hot)
            hotRng.seed(mix(o.seed + 1 + hotChoice.pick(u01(rng))));
        std::mt19937_64& walk = hot ? hotRng : rng;
        const uint32_t depth = o.minDepth + uint32_t(walk() % (o.maxDepth - o.minDepth + 1));
        fns.clear();
        uint64_t node = mix(o.seed ^ (walk() % kRoots));
        fns.push_back(uint32_t(node % o.functions));
        while (fns.size() < depth) {
            const uint32_t k = calleeChoice.pick(u01(walk));
            node = mix(node * 31 + k + 1);
            fns.push_back(popularity.pick(unit(node)));
        }
        stack.clear();
        stack.push_back(location(fns.back(), 4 + uint32_t(walk() % 4)));
        // Call sites: usually the function's main one; sometimes another (the same callee called
        // from another line), which makes a distinct stack with the same functions.
        for (size_t i = fns.size() - 1; i-- > 0;)
            stack.push_back(location(fns[i], u01(walk) < o.otherSite ? 1 + uint32_t(walk() % 3) : 0));
        const StackId id = p.internStack(stack);
        const int64_t count = (rng() % 16) == 0 ? 2 : 1;
        const int64_t values[2] = { count, count * p.period };
        p.addSample(id, values);
    }
    p.finishBuilding();
    p.updateFrameStatuses();
    // As if eight threads were busy all along: cpu total / 8.
    p.durationNanos = p.totalValue(1) / 8;
    const auto t1 = std::chrono::steady_clock::now();

    const std::vector<uint8_t> raw = encodePprof(p);
    auto gz = gzipCompress(raw);
    if (!gz.ok()) {
        std::fprintf(stderr, "symflame-genprofile: %s\n", gz.error().toString().c_str());
        return 1;
    }
    const Status st = writeFileAtomically(o.output, *gz);
    if (!st.ok()) {
        std::fprintf(stderr, "symflame-genprofile: %s\n", st.error().toString().c_str());
        return 1;
    }
    const auto t2 = std::chrono::steady_clock::now();
    const auto ms = [](auto d) { return long(std::chrono::duration_cast<std::chrono::milliseconds>(d).count()); };
    std::fprintf(stderr,
        "%s: %zu samples, %zu distinct stacks, %zu locations, %zu functions, %zu mappings; "
        "%zu bytes raw, %zu gzip; built in %ld ms, written in %ld ms\n",
        o.output.c_str(), p.sampleCount(), p.stackCount(), p.locations.size(), p.functions.size(), p.mappings.size(),
        raw.size(), gz->size(), ms(t1 - t0), ms(t2 - t1));
    return 0;
}
