// symflame-benchcapture: a whole-system capture against the same samples as one profile.
//
//   symflame-benchcapture [--samples N] [--processes P] [--stacks S] [--repeat R] [--dir D]
//
// Writes two OTLP 1.10 files of the same N samples (default 1M) over P processes (default 200),
// S distinct stacks in each (default 500),
// laid out as the OpenTelemetry eBPF profiler lays them out (profile-formats.md §3): count-only
// CPU samples with a timestamp each, thread.name and thread.id sample attributes, native frames
// as addresses in each process's executable and libc, kernel frames named:
//   capture.pb   one resource per process (pid, executable name), one CPU profile in each;
//   single.pb    one resource, one profile; the process is a sample attribute instead.
// Then, best of R:
//   - load: single.pb; capture.pb (all profiles merged); capture.pb merged and grouped by
//     process (process.executable.name, process.pid), the viewer's default for a capture;
//   - switching on the loaded capture: the grouping (by thread, by process), a label filter,
//     a time range, each followed by the symbol table and the call tree the flame graph draws.
// Every result is checked (sample counts, totals, group frames) so that a fast wrong answer
// does not pass.
#include "model/analysis/calltree.h"
#include "model/analysis/labelview.h"
#include "model/analysis/symboltable.h"
#include "model/io/fileio.h"
#include "model/io/profileio.h"
#include "model/io/protowire.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

using namespace symflame::model;
using symflame::model::protowire::Encoder;

namespace {

int kStacksPerProcess = 500; // --stacks
constexpr int kLocationsPerProcess = 40;
constexpr int kThreadsPerProcess = 4;
constexpr int kKernelFunctions = 8;
constexpr int64_t kPeriod = 50'000'000;
constexpr uint64_t kStart = 1733300000000000000ull;

struct Lcg {
    uint64_t state;
    uint32_t next(uint32_t n)
    {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        return uint32_t((state >> 33) % n);
    }
};

struct Strings {
    std::vector<std::string> table { "" };
    int add(std::string s)
    {
        table.push_back(std::move(s));
        return int(table.size() - 1);
    }
};

// Writes the capture (single = false) or the same samples as one profile (single = true).
std::vector<uint8_t> writeCapture(size_t samples, size_t processes, bool single)
{
    Strings s;
    std::vector<uint8_t> dict, body;
    Encoder d(dict);
    const int kFrameType = s.add("profile.frame.type"), kNative = s.add("native"), kKernel = s.add("kernel");
    const int kThreadName = s.add("thread.name"), kThreadId = s.add("thread.id");
    const int kPid = s.add("process.pid"), kExe = s.add("process.executable.name");
    const int kSamples = s.add("samples"), kCount = s.add("count"), kCpu = s.add("cpu"), kNs = s.add("nanoseconds");
    const int kGnu = s.add("process.executable.build_id.gnu");
    (void)kNative;
    (void)kKernel;
    const char* exes[] = { "firefox", "chrome", "Xorg", "python3", "postgres", "java", "node", "gnome-shell" };

    // attribute_table: 0 empty; 1 native, 2 kernel; per process: build id, pid, exe, threads
    // (name, id). The attributes' indices per process are remembered.
    std::vector<uint8_t> attrs;
    Encoder a(attrs);
    int attrCount = 0;
    const auto attr = [&](int key, const std::string* str, int64_t num) {
        const size_t m = a.beginMessage(6);
        if (key != 0) {
            a.varintField(1, uint64_t(key));
            const size_t v = a.beginMessage(2);
            if (str)
                a.stringField(1, *str);
            else
                a.varintField(3, uint64_t(num));
            a.endMessage(v);
        }
        a.endMessage(m);
        return attrCount++;
    };
    attr(0, nullptr, 0);
    const std::string native = "native", kernel = "kernel";
    attr(kFrameType, &native, 0);
    attr(kFrameType, &kernel, 0);
    struct ProcAttrs {
        int buildId, pid, exe, thread[kThreadsPerProcess][2];
    };
    std::vector<ProcAttrs> pa(processes);
    for (size_t p = 0; p < processes; ++p) {
        char id[41];
        std::snprintf(id, sizeof id, "%040zx", p + 1);
        const std::string buildId = id, exe = exes[p % 8];
        pa[p].buildId = attr(kGnu, &buildId, 0);
        pa[p].pid = attr(kPid, nullptr, int64_t(1000 + p));
        pa[p].exe = attr(kExe, &exe, 0);
        for (int t = 0; t < kThreadsPerProcess; ++t) {
            const std::string name = exe + "-" + std::to_string(t);
            pa[p].thread[t][0] = attr(kThreadName, &name, 0);
            pa[p].thread[t][1] = attr(kThreadId, nullptr, int64_t(1000 + p) * 10 + t);
        }
    }

    // mapping_table: 0 empty, 1 vmlinux, 2 libc, 3 + p the executables.
    d.endMessage(d.beginMessage(1));
    const auto mapping = [&](uint64_t start, const std::string& file, int buildIdAttr) {
        const size_t m = d.beginMessage(1);
        d.varintField(1, start);
        d.varintField(2, start + 0x1000000);
        d.varintField(4, uint64_t(s.add(file)));
        if (buildIdAttr > 0)
            d.packedVarintField(5, 1, [&](size_t) { return uint64_t(buildIdAttr); });
        d.endMessage(m);
    };
    mapping(0xffffffff81000000, "vmlinux", 0);
    mapping(0x7f0000000000, "/usr/lib/x86_64-linux-gnu/libc.so.6", 0);
    for (size_t p = 0; p < processes; ++p)
        mapping(0x555500000000 + p * 0x10000000, std::string("/usr/bin/") + exes[p % 8], pa[p].buildId);
    // function_table: 0 empty, then the kernel functions.
    d.endMessage(d.beginMessage(3));
    for (int k = 0; k < kKernelFunctions; ++k) {
        const size_t m = d.beginMessage(3);
        d.varintField(1, uint64_t(s.add("kernel_function_" + std::to_string(k))));
        d.endMessage(m);
    }
    // location_table: 0 empty; 1..K kernel; then per process its native locations.
    d.endMessage(d.beginMessage(2));
    for (int k = 0; k < kKernelFunctions; ++k) {
        const size_t m = d.beginMessage(2);
        d.varintField(1, 1);
        const size_t l = d.beginMessage(3);
        d.varintField(1, uint64_t(k + 1));
        d.endMessage(l);
        d.packedVarintField(4, 1, [](size_t) { return uint64_t(2); });
        d.endMessage(m);
    }
    for (size_t p = 0; p < processes; ++p)
        for (int k = 0; k < kLocationsPerProcess; ++k) {
            const size_t m = d.beginMessage(2);
            d.varintField(1, k < 8 ? 2 : uint64_t(3 + p)); // the first 8 in libc
            d.varintField(2, 0x1000 + uint64_t(k) * 0x40 + (k < 8 ? 0 : p * 4));
            d.packedVarintField(4, 1, [](size_t) { return uint64_t(1); });
            d.endMessage(m);
        }
    // stack_table: 0 empty, then per process kStacksPerProcess stacks (leaf first).
    d.endMessage(d.beginMessage(7));
    Lcg rng { 42 };
    std::vector<uint64_t> frames;
    for (size_t p = 0; p < processes; ++p) {
        const uint64_t base = 1 + kKernelFunctions + p * kLocationsPerProcess;
        for (int st = 0; st < kStacksPerProcess; ++st) {
            frames.clear();
            if (st % 4 == 0)
                for (int k = 0; k < 3; ++k)
                    frames.push_back(1 + rng.next(kKernelFunctions));
            const int depth = 6 + int(rng.next(20));
            for (int k = 0; k < depth; ++k)
                frames.push_back(base + rng.next(kLocationsPerProcess));
            const size_t m = d.beginMessage(7);
            d.packedVarintField(1, frames.size(), [&](size_t i) { return frames[i]; });
            d.endMessage(m);
        }
    }

    // The samples: per process samples / processes, round-robin threads, a timestamp each.
    Encoder b(body);
    const auto sample = [&](size_t p, size_t i, Encoder& e) {
        const size_t m = e.beginMessage(2);
        e.varintField(1, 1 + p * kStacksPerProcess + rng.next(kStacksPerProcess));
        const int t = int(i % kThreadsPerProcess);
        if (single)
            e.packedVarintField(2, 4, [&](size_t k) {
                const int v[] = { pa[p].thread[t][0], pa[p].thread[t][1], pa[p].pid, pa[p].exe };
                return uint64_t(v[k]);
            });
        else
            e.packedVarintField(2, 2, [&](size_t k) { return uint64_t(pa[p].thread[t][k]); });
        e.writeTag(5, symflame::model::protowire::WireType::Len);
        e.writeVarint(8);
        const uint64_t ts = kStart + uint64_t(i) * 1000 + p;
        for (int k = 0; k < 8; ++k)
            e.buffer().push_back(uint8_t(ts >> (8 * k)));
        e.endMessage(m);
    };
    const auto profileHeader = [&](Encoder& e) {
        const size_t st = e.beginMessage(1);
        e.varintField(1, uint64_t(kSamples));
        e.varintField(2, uint64_t(kCount));
        e.endMessage(st);
        e.fixed64Field(3, kStart);
        e.varintField(4, 10'000'000'000);
        const size_t pt = e.beginMessage(5);
        e.varintField(1, uint64_t(kCpu));
        e.varintField(2, uint64_t(kNs));
        e.endMessage(pt);
        e.varintField(6, uint64_t(kPeriod));
    };
    const auto resource = [&](Encoder& e, size_t p) {
        const size_t r = e.beginMessage(1);
        if (!single) {
            const size_t kv = e.beginMessage(1);
            e.stringField(1, "process.pid");
            const size_t v = e.beginMessage(2);
            e.varintField(3, 1000 + p);
            e.endMessage(v);
            e.endMessage(kv);
            const size_t kv2 = e.beginMessage(1);
            e.stringField(1, "process.executable.name");
            const size_t v2 = e.beginMessage(2);
            e.stringField(1, exes[p % 8]);
            e.endMessage(v2);
            e.endMessage(kv2);
        }
        e.endMessage(r);
    };
    const size_t perProcess = samples / processes;
    if (single) {
        const size_t rp = b.beginMessage(1);
        resource(b, 0);
        const size_t sp = b.beginMessage(2);
        const size_t pm = b.beginMessage(2);
        profileHeader(b);
        for (size_t i = 0; i < perProcess; ++i)
            for (size_t p = 0; p < processes; ++p)
                sample(p, i, b);
        b.endMessage(pm);
        b.endMessage(sp);
        b.endMessage(rp);
    } else {
        for (size_t p = 0; p < processes; ++p) {
            const size_t rp = b.beginMessage(1);
            resource(b, p);
            const size_t sp = b.beginMessage(2);
            const size_t pm = b.beginMessage(2);
            profileHeader(b);
            for (size_t i = 0; i < perProcess; ++i)
                sample(p, i, b);
            b.endMessage(pm);
            b.endMessage(sp);
            b.endMessage(rp);
        }
    }
    // The dictionary: tables, then attributes and strings.
    dict.insert(dict.end(), attrs.begin(), attrs.end());
    for (const std::string& str : s.table)
        d.stringField(5, str);
    std::vector<uint8_t> out = std::move(body);
    Encoder o(out);
    const size_t dm = o.beginMessage(2);
    out.insert(out.end(), dict.begin(), dict.end());
    o.endMessage(dm);
    return out;
}

struct Best {
    double seconds = 1e30;
    void add(double s) { seconds = std::min(seconds, s); }
};

double timeIt(const std::function<void()>& fn)
{
    const auto t0 = std::chrono::steady_clock::now();
    fn();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

[[noreturn]] void fail(const std::string& what)
{
    std::fprintf(stderr, "benchcapture: %s\n", what.c_str());
    std::exit(1);
}

Profile load(const std::string& path)
{
    auto r = loadProfile(path, LoadOptions {});
    if (!r)
        fail(r.error().toString());
    return std::move(r).value();
}

Profile view(const Profile& p, const LabelView& v)
{
    auto r = applyLabelView(p, v);
    if (!r)
        fail(r.error().toString());
    return std::move(r).value();
}

// What the viewer computes after a change: the symbol table and the call tree of the default type.
size_t tree(const Profile& p)
{
    const SymbolTable symbols = SymbolTable::build(p);
    const CallTree t = CallTree::build(p, symbols, p.defaultSampleType);
    if (t.totalValue() != p.totalValue(p.defaultSampleType))
        fail("call tree total differs from the profile's");
    return t.size();
}

} // namespace

int main(int argc, char** argv)
{
    size_t samples = 1'000'000, processes = 200;
    int repeat = 3;
    std::string dir = "/tmp";
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string a = argv[i];
        if (a == "--samples")
            samples = std::strtoull(argv[i + 1], nullptr, 10);
        else if (a == "--processes")
            processes = std::strtoull(argv[i + 1], nullptr, 10);
        else if (a == "--stacks")
            kStacksPerProcess = std::atoi(argv[i + 1]);
        else if (a == "--repeat")
            repeat = std::atoi(argv[i + 1]);
        else if (a == "--dir")
            dir = argv[i + 1];
        else
            fail("unknown option " + a);
    }
    samples -= samples % processes;
    const std::string capturePath = dir + "/capture.pb", singlePath = dir + "/single.pb";
    if (!writeFileAtomically(capturePath, writeCapture(samples, processes, false))
        || !writeFileAtomically(singlePath, writeCapture(samples, processes, true)))
        fail("cannot write the files under " + dir);
    std::printf("%zu samples over %zu processes; %s, %s\n", samples, processes, capturePath.c_str(), singlePath.c_str());

    LabelView byProcess;
    byProcess.rootKeys = { "process.executable.name", "process.pid" };
    Best single, merged, grouped;
    Profile capture;
    for (int r = 0; r < repeat; ++r) {
        single.add(timeIt([&] {
            const Profile p = load(singlePath);
            if (p.sampleCount() != samples)
                fail("single.pb: wrong sample count");
        }));
        merged.add(timeIt([&] {
            capture = load(capturePath);
            if (capture.sampleCount() != samples || capture.totalValue(1) != int64_t(samples) * kPeriod)
                fail("capture.pb: wrong samples or CPU time");
        }));
        grouped.add(timeIt([&] {
            const Profile g = view(load(capturePath), byProcess);
            if (g.sampleCount() != samples)
                fail("grouped: wrong sample count");
        }));
    }
    std::printf("load  one profile            %7.3f s\n", single.seconds);
    std::printf("load  capture, merged        %7.3f s  (%.2fx)\n", merged.seconds, merged.seconds / single.seconds);
    std::printf("load  capture, by process    %7.3f s  (%.2fx)\n", grouped.seconds, grouped.seconds / single.seconds);

    struct Switch {
        const char* what;
        LabelView view;
        size_t expectSamples;
    };
    std::vector<Switch> switches;
    switches.push_back({ "group by process", byProcess, samples });
    LabelView byThread;
    byThread.rootKeys = { "thread.name" };
    switches.push_back({ "group by thread", byThread, samples });
    LabelView focus = byProcess;
    focus.focus.push_back(TagFilter::parse("process.executable.name=firefox").value());
    switches.push_back({ "filter one executable", focus, 0 });
    LabelView range = byProcess;
    range.timeRange = TimeRange { int64_t(kStart), int64_t(kStart) + int64_t(samples / processes / 2) * 1000 };
    switches.push_back({ "time range, first half", range, samples / 2 });
    for (const Switch& s : switches) {
        Best best;
        size_t nodes = 0, kept = 0;
        for (int r = 0; r < repeat; ++r)
            best.add(timeIt([&] {
                const Profile g = view(capture, s.view);
                kept = g.sampleCount();
                nodes = tree(g);
            }));
        if (s.expectSamples != 0 && kept != s.expectSamples)
            fail(std::string(s.what) + ": kept " + std::to_string(kept) + " samples");
        std::printf("switch %-22s %7.3f s  (%zu samples, %zu tree nodes)\n", s.what, best.seconds, kept, nodes);
    }
    return 0;
}
