// perf.data: real recordings of the C++ fixture (cxxprog + libsfwork.so, built here with frame
// pointers) made by `perf record` at test time, read and compared sample by sample with
// `perf script` on the same file; and malformed files built byte by byte. perf must be present and
// allowed to record: the test fails, not skips, when it is not.
#include "filehelpers.h"
#include "perfdatahelpers.h"
#include "processhelpers.h"

#include "model/io/perf/perfdata.h"
#include "model/io/profileio.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QObject>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTimeZone>
#include <QTest>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <tuple>
#include <vector>

using namespace symflame::model;
using symflame::testing::callSiteLocations;
using symflame::testing::isCallSite;
using symflame::testing::numLabel;
using symflame::testing::put;
using symflame::testing::readFileBytes;
using symflame::testing::set;
using symflame::testing::runProcess;

namespace {

struct Sample {
    int64_t pid = 0, tid = 0;
    int64_t timeMicros = 0;
    std::vector<uint64_t> chain;
    bool operator<(const Sample& o) const
    {
        return std::tie(timeMicros, tid, pid, chain) < std::tie(o.timeMicros, o.tid, o.pid, o.chain);
    }
    bool operator==(const Sample&) const = default;
};

// perf script prints a user frame's address relative to its file (address - start + offset)
// when it knows the mapping, kernel frames and unmapped ones as they are.
uint64_t perfAddress(const Profile& p, const Location& loc)
{
    const Mapping* m = p.mappingOf(loc);
    if (!m || p.str(m->file).starts_with("[kernel.kallsyms]"))
        return loc.address;
    return loc.address - m->start + m->offset;
}

std::vector<Sample> ours(const Profile& p)
{
    std::vector<Sample> out;
    for (size_t s = 0; s < p.sampleCount(); ++s) {
        Sample x;
        x.pid = numLabel(p, s, "pid");
        x.tid = numLabel(p, s, "tid");
        x.timeMicros = p.sampleTimestamps.at(s) / 1000;
        const auto stack = p.sampleStack(s);
        for (size_t k = 0; k < stack.size(); ++k) // return addresses again, as perf script prints them
            x.chain.push_back(perfAddress(p, p.locations[stack[k].index()]) + (isCallSite(p, stack, k) ? 1 : 0));
        out.push_back(std::move(x));
    }
    std::sort(out.begin(), out.end());
    return out;
}

// `perf script -F pid,tid,time,ip,sym,dso`: "pid/tid time:" then one "addr sym (dso)" line a frame.
struct PerfScript {
    std::vector<Sample> samples;
    std::map<uint64_t, std::string> kernelSymbolOf; // kernel address -> perf's symbol
    std::map<std::pair<std::string, uint64_t>, std::string> symbolOf; // (file, address in it) -> perf's symbol, in the fixture's binaries
};

PerfScript perfScript(const QString& file)
{
    PerfScript out;
    const auto r = runProcess("perf", {"script", "-i", file, "-F", "pid,tid,time,ip,sym,dso", "--no-inline"});
    if (r.exitCode != 0)
        qFatal("perf script failed: %s", r.err.constData());
    static const QRegularExpression head(R"(^\s*(\d+)/(\d+)\s+(\d+)\.(\d{6}):\s*$)");
    static const QRegularExpression frame(R"(^\s+([0-9a-f]+) (.*) \((.*)\)$)");
    Sample* cur = nullptr;
    for (const QByteArray& raw : r.out.split('\n')) {
        const QString line = QString::fromUtf8(raw);
        if (auto m = head.match(line); m.hasMatch()) {
            out.samples.emplace_back();
            cur = &out.samples.back();
            cur->pid = m.captured(1).toLongLong();
            cur->tid = m.captured(2).toLongLong();
            cur->timeMicros = m.captured(3).toLongLong() * 1000000 + m.captured(4).toLongLong();
        } else if (auto f = frame.match(line); f.hasMatch() && cur) {
            const uint64_t a = f.captured(1).toULongLong(nullptr, 16);
            cur->chain.push_back(a);
            const QString dso = f.captured(3);
            if (dso == "[kernel.kallsyms]")
                out.kernelSymbolOf[a] = f.captured(2).toStdString();
            if ((dso.endsWith("/cxxprog") || dso.endsWith("/libsfwork.so")) && f.captured(2) != "[unknown]")
                out.symbolOf[{dso.toStdString(), a}] = f.captured(2).toStdString();
        }
    }
    std::sort(out.samples.begin(), out.samples.end());
    return out;
}

// Function name without its parameter list, as perf prints it, and without spaces (the two
// demanglers space "> >" differently).
std::string bare(std::string name)
{
    std::erase(name, ' ');
    if (!name.empty() && name.back() == ')') {
        int depth = 0;
        for (size_t i = name.size(); i-- > 0;) {
            if (name[i] == ')')
                ++depth;
            else if (name[i] == '(' && --depth == 0) {
                name.resize(i);
                break;
            }
        }
    }
    return name;
}

// A file-mode perf.data with one attribute (sample_type IP|TID|CALLCHAIN) and the given records.
std::vector<uint8_t> synth(const std::vector<uint8_t>& records, uint64_t attrSize = 64 + 16)
{
    std::vector<uint8_t> b;
    const uint64_t attrsOff = 104, attrsSize = 64 + 16, dataOff = attrsOff + attrsSize;
    put(b, 0x32454c4946524550ULL, 8);
    put(b, 104, 8);
    put(b, attrSize, 8);
    put(b, attrsOff, 8);
    put(b, attrsSize, 8);
    put(b, dataOff, 8);
    put(b, records.size(), 8);
    put(b, 0, 8);
    put(b, 0, 8);
    for (int i = 0; i < 4; ++i)
        put(b, 0, 8);
    // perf_event_attr (64 bytes): software cpu-clock, sample_type IP|TID|CALLCHAIN
    put(b, 1, 4);
    put(b, 64, 4);
    put(b, 0, 8);
    put(b, 1000, 8);
    put(b, 1 | 2 | 32, 8);
    b.resize(b.size() + 32, 0);
    put(b, 0, 8); // ids section: none
    put(b, 0, 8);
    b.insert(b.end(), records.begin(), records.end());
    return b;
}

std::vector<uint8_t> sampleRecord(uint64_t ip, std::vector<uint64_t> chain, uint64_t claimedDepth)
{
    std::vector<uint8_t> r;
    put(r, 9, 4);
    put(r, 2, 2); // user
    put(r, 0, 2);
    put(r, ip, 8);
    put(r, 7, 4);
    put(r, 7, 4);
    put(r, claimedDepth, 8);
    for (uint64_t a : chain)
        put(r, a, 8);
    set(r, 6, r.size(), 2);
    return r;
}

// `perf record --call-graph lbr` as Intel's LBR call-stack mode writes it (this VM has no
// hardware PMU to record one): attribute cycles, sample_type IP|TID|TIME|CALLCHAIN|BRANCH_STACK,
// branch_sample_type USER|CALL_STACK|HW_INDEX; an MMAP of prog at 0x400000; each sample's
// callchain the user marker and its IP, its branch stack the calls still open, the most recent
// first ({from: the call site, to: the callee}). Depths and addresses vary with the sample.
std::vector<uint8_t> lbrRecording(const std::string& prog, size_t samples)
{
    constexpr uint32_t pid = 4242;
    std::vector<uint8_t> records;
    {
        std::vector<uint8_t> r;
        put(r, 1, 4); // MMAP
        put(r, 2, 2);
        put(r, 0, 2);
        put(r, pid, 4);
        put(r, pid, 4);
        put(r, 0x400000, 8);
        put(r, 0x10000, 8);
        put(r, 0, 8);
        r.insert(r.end(), prog.begin(), prog.end());
        r.resize((r.size() + 8) / 8 * 8, 0);
        set(r, 6, r.size(), 2);
        records.insert(records.end(), r.begin(), r.end());
    }
    for (size_t k = 0; k < samples; ++k) {
        const uint64_t ip = 0x401100 + k % 64;
        const size_t depth = 1 + k % 7;
        std::vector<uint8_t> r;
        put(r, 9, 4); // SAMPLE
        put(r, 2, 2); // user
        put(r, 0, 2);
        put(r, ip, 8);
        put(r, pid, 4);
        put(r, pid, 4);
        put(r, 1000000 + k * 1000, 8); // time
        put(r, 2, 8); // callchain: PERF_CONTEXT_USER, the IP
        put(r, uint64_t(-512), 8);
        put(r, ip, 8);
        put(r, depth, 8); // branch stack: nr, hw_idx, entries
        put(r, depth - 1, 8);
        for (size_t d = 0; d < depth; ++d) {
            put(r, 0x402000 + 0x100 * d + k % 5, 8); // from: a call site in the caller
            put(r, 0x401100 + 0x100 * d, 8); // to: the callee's entry
            put(r, 0, 8);
        }
        set(r, 6, r.size(), 2);
        records.insert(records.end(), r.begin(), r.end());
    }
    constexpr uint64_t attrSize = 128, attrsOff = 104, attrsSize = attrSize + 16, dataOff = attrsOff + attrsSize;
    std::vector<uint8_t> b;
    put(b, 0x32454c4946524550ULL, 8);
    put(b, 104, 8);
    put(b, attrsSize, 8); // an attribute and its ids section
    put(b, attrsOff, 8);
    put(b, attrsSize, 8);
    put(b, dataOff, 8);
    put(b, records.size(), 8);
    put(b, 0, 8);
    put(b, 0, 8);
    for (int i = 0; i < 4; ++i)
        put(b, 0, 8);
    const size_t attr = b.size();
    b.resize(attr + attrSize, 0);
    set(b, attr + 0, 0, 4); // hardware: cycles
    set(b, attr + 4, attrSize, 4);
    set(b, attr + 16, 4000, 8);
    set(b, attr + 24, 1 | 2 | 4 | 32 | 2048, 8);
    set(b, attr + 40, (1u << 5) | (1u << 6), 8); // exclude_kernel, exclude_hv
    set(b, attr + 72, 1 | (1u << 11) | (1u << 17), 8);
    put(b, 0, 8); // ids section: none
    put(b, 0, 8);
    b.insert(b.end(), records.begin(), records.end());
    return b;
}

} // namespace

class TestPerfData : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_prog;

    QString record(const QString& name, const QStringList& perfArgs, bool pipe = false)
    {
        const QString out = m_dir.filePath(name);
        QStringList args{"record"};
        args << perfArgs << "-o" << (pipe ? "-" : out) << m_prog << "0.3";
        const auto r = runProcess("perf", args);
        if (r.exitCode != 0)
            qFatal("perf record %s failed (is linux-perf installed and may this user record?): %s",
                qPrintable(perfArgs.join(' ')), r.err.constData());
        if (pipe) {
            std::ofstream f(out.toStdString(), std::ios::binary);
            f.write(r.out.constData(), r.out.size());
        }
        return out;
    }

    void compareWithPerfScript(const QString& file, const Profile& p)
    {
        const PerfScript perf = perfScript(file);
        const std::vector<Sample> mine = ours(p);
        QVERIFY(perf.samples.size() > 100);
        QCOMPARE(mine.size(), perf.samples.size());
        size_t deep = 0;
        for (size_t i = 0; i < mine.size(); ++i) {
            if (!(mine[i] == perf.samples[i])) {
                qWarning("sample %zu differs: ours pid %lld tid %lld time %lld, %zu frames; perf's pid %lld tid %lld time %lld, %zu frames",
                    i, (long long)mine[i].pid, (long long)mine[i].tid, (long long)mine[i].timeMicros, mine[i].chain.size(),
                    (long long)perf.samples[i].pid, (long long)perf.samples[i].tid, (long long)perf.samples[i].timeMicros,
                    perf.samples[i].chain.size());
                QString a, b;
                for (uint64_t x : mine[i].chain)
                    a += QString::number(x, 16) + ' ';
                for (uint64_t x : perf.samples[i].chain)
                    b += QString::number(x, 16) + ' ';
                qWarning("ours: %s\nperf: %s", qPrintable(a), qPrintable(b));
                QFAIL("a sample differs from perf script's");
            }
            deep += mine[i].chain.size() >= 3;
        }
        // About 41% of the fixture's samples are three frames deep or more on an idle machine;
        // with the machine busy (ctest runs tests side by side) fewer: an eighth still shows
        // that callchains were read (without them every sample is one frame).
        QVERIFY2(deep > mine.size() / 8, "frame-pointer callchains: samples several frames deep");
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        const QString src = QStringLiteral(SYMFLAME_TEST_SOURCE_DIR) + "/fixtures/cxxprog/";
        const QString lib = m_dir.filePath("libsfwork.so");
        m_prog = m_dir.filePath("cxxprog");
        const QStringList flags{"-std=c++17", "-O1", "-g", "-fno-omit-frame-pointer"};
        auto r = runProcess("g++", QStringList(flags) << "-fPIC" << "-shared" << "-o" << lib << src + "sfwork.cpp");
        QVERIFY2(r.exitCode == 0, r.err.constData());
        r = runProcess("g++", QStringList(flags) << "-pthread" << "-o" << m_prog << src + "main.cpp" << "-L" + m_dir.path()
                                                 << "-lsfwork" << "-Wl,-rpath," + m_dir.path());
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const auto v = runProcess("perf", {"--version"});
        QVERIFY2(v.exitCode == 0, "perf is missing: install linux-perf (scripts/setup.sh)");
    }

    void framepointerCallchains()
    {
        const QString file = record("fp.data", {"-e", "cpu-clock", "-g"});
        ProfileFormat format{};
        auto p = loadProfile(file.toStdString(), {}, nullptr, &format);
        QVERIFY2(p, p ? "" : p.error().message.c_str());
        QCOMPARE(format, ProfileFormat::PerfData);
        QCOMPARE(p->sampleTypes.size(), size_t(2));
        QCOMPARE(p->str(p->sampleTypes[1].type), std::string_view("cpu-clock"));
        QCOMPARE(p->str(p->sampleTypes[1].unit), std::string_view("nanoseconds"));
        QVERIFY(p->totalValue(1) > 0);
        compareWithPerfScript(file, *p);

        // The fixture's mappings carry the build IDs perf recorded, and names match perf's.
        bool progMapping = false;
        for (const Mapping& m : p->mappings)
            if (p->str(m.file) == m_prog.toStdString()) {
                progMapping = true;
                QCOMPARE(p->str(m.buildId).size(), size_t(40));
            }
        QVERIFY(progMapping);
        // The program's mapping first (pprof readers take it for the main binary), the kernel's last.
        QCOMPARE(QString::fromStdString(std::string(p->str(p->mappings.front().file))), m_prog);
        QCOMPARE(p->str(p->mappings.back().file), std::string_view("[kernel.kallsyms]"));

        const QString out = m_dir.filePath("fp.pb.gz");
        const auto sym = runProcess(symflame::testing::symflameExecutable(), {"symbolize", file, "-o", out});
        QVERIFY2(sym.exitCode == 0, sym.err.constData());
        auto s = loadProfile(out.toStdString());
        QVERIFY(s);
        const PerfScript perf = perfScript(file);
        size_t compared = 0;
        const std::vector<bool> callSite = callSiteLocations(*s);
        for (size_t i = 0; i < s->locations.size(); ++i) {
            const Location& loc = s->locations[i];
            const Mapping* m = s->mappingOf(loc);
            if (!m)
                continue;
            // perf names a caller by its return address, one past our call site.
            auto it = perf.symbolOf.find({std::string(s->str(m->file)), perfAddress(*s, loc) + callSite[i]});
            // PLT stubs have no debug info; lambdas are named differently by the two demanglers.
            if (it == perf.symbolOf.end() || it->second.find("@plt") != std::string::npos
                || it->second.find("{lambda") != std::string::npos || loc.lineCount == 0)
                continue;
            const Line& physical = s->linesOf(loc).back();
            const std::string name(s->str(s->functions[physical.function.index()].name));
            // A PLT stub perf has no synthesized "@plt" symbol for (the PLT's first entry, .plt.sec)
            // it names by the symbol before it (often "_init"); symflame says "[plt]".
            if (name == "[plt]")
                continue;
            QCOMPARE(QString::fromStdString(bare(name)), QString::fromStdString(bare(it->second)));
            ++compared;
        }
        QVERIFY2(compared >= 10, "function names compared with perf's in cxxprog and libsfwork.so");

        // Kernel frames: named from /proc/kallsyms (this kernel recorded), as perf names them.
        QVERIFY2(p->attribute("perf.kernel_symbols").empty(), std::string(p->attribute("perf.kernel_symbols")).c_str());
        size_t kernel = 0;
        const std::vector<bool> kernelCallSite = callSiteLocations(*p);
        for (size_t i = 0; i < p->locations.size(); ++i) {
            const Location& loc = p->locations[i];
            auto it = perf.kernelSymbolOf.find(loc.address + kernelCallSite[i]);
            if (it == perf.kernelSymbolOf.end())
                continue;
            QCOMPARE(loc.lineCount, uint32_t(1));
            const std::string name(p->str(p->functions[p->linesOf(loc)[0].function.index()].name));
            QCOMPARE(QString::fromStdString(name), QString::fromStdString(it->second));
            ++kernel;
        }
        QVERIFY2(kernel >= 5, "kernel frames compared with perf's names");
    }

    // Kernel frames named from the kallsyms perf record keeps in its build-ID cache for the kernel
    // that recorded (perf report reads it too): preferred to /proc/kallsyms, and the only names for
    // a recording made under another kernel.
    void kernelSymbolsFromPerfsCache()
    {
        const QString file = record("kernel.data", {"-e", "cpu-clock", "-g"});
        const auto bytes = readFileBytes(file);
        auto plain = readPerfData(bytes);
        QVERIFY2(plain, plain ? "" : plain.error().message.c_str());
        const std::string kernelId = symflame::testing::kernelBuildId(*plain);
        QCOMPARE(kernelId.size(), size_t(40));
        const PerfScript perf = perfScript(file);
        // Every kernel frame perf named, with our name for it; how many there were.
        const auto kernelNames = [&](const Profile& p, const std::string& prefix) {
            size_t compared = 0, wrong = 0;
            const std::vector<bool> callSite = callSiteLocations(p);
            for (size_t i = 0; i < p.locations.size(); ++i) {
                const Location& loc = p.locations[i];
                auto it = perf.kernelSymbolOf.find(loc.address + callSite[i]);
                if (it == perf.kernelSymbolOf.end())
                    continue;
                ++compared;
                wrong += loc.lineCount != 1
                    || p.str(p.functions[p.linesOf(loc)[0].function.index()].name) != prefix + it->second;
            }
            return std::make_pair(compared, wrong);
        };

        // A cache of our own: kallsyms with every text symbol renamed, under a build ID.
        QTemporaryDir cache;
        QVERIFY(cache.isValid());
        const QByteArray saved = qgetenv("PERF_BUILDID_DIR");
        const bool hadSaved = qEnvironmentVariableIsSet("PERF_BUILDID_DIR");
        qputenv("PERF_BUILDID_DIR", cache.path().toUtf8());
        const auto restore = qScopeGuard([&] {
            if (hadSaved)
                qputenv("PERF_BUILDID_DIR", saved);
            else
                qunsetenv("PERF_BUILDID_DIR");
        });
        QFile proc("/proc/kallsyms");
        QVERIFY(proc.open(QIODevice::ReadOnly));
        const QByteArray kallsyms = proc.readAll();
        const auto putKallsyms = [&](const std::string& id, const QByteArray& prefix) {
            const QString dir = cache.filePath(QString::fromStdString(".build-id/" + id.substr(0, 2) + "/" + id.substr(2)));
            QVERIFY(QDir().mkpath(dir));
            QFile out(dir + "/kallsyms");
            QVERIFY(out.open(QIODevice::WriteOnly));
            for (const QByteArray& line : kallsyms.split('\n')) {
                const QList<QByteArray> f = line.split(' ');
                if (f.size() >= 3 && f[1].size() == 1 && QByteArray("TtWw").contains(f[1][0]))
                    out.write(f[0] + ' ' + f[1] + ' ' + prefix + line.mid(f[0].size() + 3) + '\n');
                else
                    out.write(line + '\n');
            }
        };
        putKallsyms(kernelId, "cached_");
        auto cached = readPerfData(bytes);
        QVERIFY(cached);
        const auto [compared, wrong] = kernelNames(*cached, "cached_");
        qInfo("%zu kernel frames named from perf's cache, %zu differ", compared, wrong);
        QVERIFY(compared >= 5);
        QCOMPARE(wrong, size_t(0));
        QVERIFY(std::string(cached->attribute("perf.kernel_symbols_from")).ends_with("/kallsyms"));

        // The same recording as if another kernel had made it: its build ID changed in the file.
        std::vector<uint8_t> moved = bytes;
        QVERIFY(symflame::testing::replaceBuildId(moved, kernelId, "00112233445566778899aabbccddeeff00112233") >= 1);
        auto elsewhere = readPerfData(moved);
        QVERIFY(elsewhere);
        QCOMPARE(kernelNames(*elsewhere, "").first, compared);
        QCOMPARE(kernelNames(*elsewhere, "").second, compared); // addresses, and why
        const std::string why(elsewhere->attribute("perf.kernel_symbols"));
        QVERIFY2(why.find("holds no kallsyms for the recording kernel 00112233") != std::string::npos
                && why.find("not the running kernel") != std::string::npos,
            why.c_str());
        // `info` (the binaries panel's rows) says it on the kernel's row.
        const QString movedFile = m_dir.filePath("otherkernel.data");
        {
            std::ofstream f(movedFile.toStdString(), std::ios::binary);
            f.write(reinterpret_cast<const char*>(moved.data()), std::streamsize(moved.size()));
        }
        const auto info = [&] {
            const auto r = runProcess(symflame::testing::symflameExecutable(), {"info", movedFile});
            return r.exitCode == 0 ? QString::fromUtf8(r.out) : "failed: " + QString::fromUtf8(r.err);
        };
        const QString before = info();
        QVERIFY2(before.contains(QRegularExpression(
                     R"(binary not found .*\[kernel\.kallsyms\]\n.*\n\s+kernel frames left as addresses: perf's build-ID cache.*; vmlinux not found \(tried )")),
            qPrintable(before));

        putKallsyms("00112233445566778899aabbccddeeff00112233", "");
        auto named = readPerfData(moved);
        QVERIFY(named);
        QCOMPARE(kernelNames(*named, ""), std::make_pair(compared, size_t(0)));
        QVERIFY(named->attribute("perf.kernel_symbols").empty());
        const QString after = info();
        QVERIFY2(after.contains(QRegularExpression(R"(symbolized .*\[kernel\.kallsyms\]\n.*\n\s+kernel: names from .*/00/112233445566778899aabbccddeeff00112233/kallsyms)")),
            qPrintable(after));
    }

    // `perf record -k mono` writes HEADER_CLOCK_DATA: one moment on both clocks. Sample times
    // become wall-clock times, which perf script prints as its "tod" field.
    void wallClockTimes()
    {
        const QString file = record("clock.data", {"-e", "cpu-clock", "-g", "-k", "mono"});
        auto p = loadProfile(file.toStdString());
        QVERIFY2(p, p ? "" : p.error().message.c_str());
        QVERIFY2(std::string(p->attribute("perf.clock")).starts_with("monotonic;"), std::string(p->attribute("perf.clock")).c_str());
        const QByteArray savedTz = qgetenv("TZ");
        const bool hadTz = qEnvironmentVariableIsSet("TZ");
        qputenv("TZ", "UTC");
        const auto r = runProcess("perf", {"script", "-i", file, "-F", "tid,tod"});
        if (hadTz)
            qputenv("TZ", savedTz);
        else
            qunsetenv("TZ");
        QVERIFY2(r.exitCode == 0, r.err.constData());
        // "  1234 2026-12-06 13:26:59.141129"
        static const QRegularExpression line(R"(^\s*(\d+)\s+(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\.(\d{6})\s*$)");
        std::vector<std::pair<int64_t, int64_t>> theirs, mine; // tid, µs since the epoch
        for (const QByteArray& raw : r.out.split('\n')) {
            const auto m = line.match(QString::fromUtf8(raw));
            if (!m.hasMatch())
                continue;
            QDateTime t = QDateTime::fromString(m.captured(2), "yyyy-MM-dd HH:mm:ss");
            t.setTimeZone(QTimeZone::utc());
            theirs.emplace_back(m.captured(1).toLongLong(), t.toSecsSinceEpoch() * 1000000 + m.captured(3).toLongLong());
        }
        for (size_t s = 0; s < p->sampleCount(); ++s)
            mine.emplace_back(numLabel(*p, s, "tid"), p->sampleTimestamps.at(s) / 1000);
        std::sort(theirs.begin(), theirs.end());
        std::sort(mine.begin(), mine.end());
        QVERIFY(theirs.size() > 100);
        QCOMPARE(mine.size(), theirs.size());
        for (size_t i = 0; i < mine.size(); ++i) {
            QCOMPARE(mine[i].first, theirs[i].first);
            QVERIFY2(std::abs(mine[i].second - theirs[i].second) <= 1,
                qPrintable(QString("%1 against perf's %2").arg(mine[i].second).arg(theirs[i].second)));
        }
        // The profile's time is its first sample's, a moment of this test's run.
        const auto [first, last] = std::minmax_element(p->sampleTimestamps.begin(), p->sampleTimestamps.end());
        QCOMPARE(p->timeNanos, *first);
        QCOMPARE(p->durationNanos, *last - *first);
        const int64_t now = QDateTime::currentMSecsSinceEpoch() * 1000000;
        QVERIFY(p->timeNanos < now && p->timeNanos > now - int64_t(600) * 1000000000);

        // Without -k, times stay perf's clock and the profile has no wall-clock time.
        auto plain = loadProfile(record("noclock.data", {"-e", "cpu-clock"}).toStdString());
        QVERIFY(plain);
        QVERIFY(plain->attribute("perf.clock").empty());
        QCOMPARE(plain->timeNanos, int64_t(0));
        QVERIFY(plain->sampleTimestamps.at(0) < p->timeNanos / 1000); // since boot, not since 1970
    }

    // LBR call stacks, read as perf script reads them: the callee's entry, then each open call's
    // site (not the callchain's user IP).
    void lbrCallStacks()
    {
        const QString file = m_dir.filePath("lbr.data");
        const auto bytes = lbrRecording(m_prog.toStdString(), 150);
        {
            std::ofstream f(file.toStdString(), std::ios::binary);
            f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
        }
        auto p = readPerfData(bytes);
        QVERIFY2(p, p ? "" : p.error().message.c_str());
        QCOMPARE(p->attribute("perf.call_graph"), std::string_view("lbr"));
        QCOMPARE(p->sampleCount(), size_t(150));
        compareWithPerfScript(file, *p);
        // The leaf is the callee's entry (0x1100 in the file), whatever the IP was.
        for (size_t s = 0; s < p->sampleCount(); ++s) {
            const auto st = p->sampleStack(s);
            QCOMPARE(st.size(), 2 + s % 7);
            QCOMPARE(perfAddress(*p, p->locations[st[0].index()]), uint64_t(0x1100));
        }
    }

    void severalEvents()
    {
        const QString file = record("two.data", {"-e", "cpu-clock,task-clock", "-g"});
        auto p = loadProfile(file.toStdString());
        QVERIFY2(p, p ? "" : p.error().message.c_str());
        QCOMPARE(p->sampleTypes.size(), size_t(3));
        QCOMPARE(p->str(p->sampleTypes[1].type), std::string_view("cpu-clock"));
        QCOMPARE(p->str(p->sampleTypes[2].type), std::string_view("task-clock"));
        QVERIFY(p->totalValue(1) > 0);
        QVERIFY(p->totalValue(2) > 0);
        // Each sample is of one event: one of the two values is its period, the other 0.
        for (size_t s = 0; s < p->sampleCount(); ++s)
            QVERIFY((p->value(s, 1) > 0) != (p->value(s, 2) > 0));
        compareWithPerfScript(file, *p);
    }

    void pipeMode()
    {
        const QString file = record("pipe.data", {"-e", "cpu-clock", "-g"}, true);
        PerfDataStats stats;
        const auto bytes = readFileBytes(file);
        auto p = readPerfData(bytes, &stats);
        QVERIFY2(p, p ? "" : p.error().message.c_str());
        QVERIFY(stats.pipeMode);
        QCOMPARE(p->str(p->sampleTypes[1].type), std::string_view("cpu-clock"));
        compareWithPerfScript(file, *p);
    }

    void labels()
    {
        const QString file = m_dir.filePath("fp.data");
        auto p = loadProfile(file.toStdString());
        QVERIFY(p);
        size_t named = 0;
        for (size_t s = 0; s < p->sampleCount(); ++s)
            for (const Label& l : p->sampleLabels(s))
                if (p->str(l.key) == "comm" && p->str(l.str) == "cxxprog")
                    ++named;
        QVERIFY(named > p->sampleCount() / 2);
        QVERIFY(!p->attribute("perf.cmdline").empty());
    }

    void badInput()
    {
        // Truncated header.
        std::vector<uint8_t> good = synth(sampleRecord(0x1000, {0x1000, 0x2000}, 2));
        QVERIFY(readPerfData(good));
        QCOMPARE(readPerfData(good)->sampleCount(), size_t(1));
        for (size_t n : {size_t(0), size_t(7), size_t(8), size_t(50), size_t(103)}) {
            auto r = readPerfData(std::span(good.data(), n));
            QVERIFY(!r);
        }
        // Attribute size zero.
        {
            auto b = good;
            set(b, 16, 0, 8);
            auto r = readPerfData(b);
            QVERIFY(!r);
            QVERIFY(r.error().message.find("attribute size 0") != std::string::npos);
        }
        // A feature section past the end.
        {
            auto b = good;
            set(b, 72, 1u << 3, 8); // HOSTNAME
            put(b, b.size() + 100, 8);
            put(b, 16, 8);
            auto r = readPerfData(b);
            QVERIFY(!r);
            QVERIFY(r.error().message.find("past the end") != std::string::npos);
        }
        // A callchain longer than the record: the sample is skipped and counted.
        {
            PerfDataStats st;
            auto r = readPerfData(synth(sampleRecord(0x1000, {0x1000, 0x2000}, 1000000)), &st);
            QVERIFY(r);
            QCOMPARE(r->sampleCount(), size_t(0));
            QCOMPARE(st.skippedSamples, uint64_t(1));
            QVERIFY(!r->attribute("perf.skipped_records").empty() || !r->attributes.empty());
        }
        // A record size of zero: counted, reading stops (no endless loop).
        {
            auto rec = sampleRecord(0x1000, {0x1000}, 1);
            auto zero = sampleRecord(0x1000, {0x1000}, 1);
            set(zero, 6, 0, 2);
            rec.insert(rec.end(), zero.begin(), zero.end());
            PerfDataStats st;
            auto r = readPerfData(synth(rec), &st);
            QVERIFY(r);
            QCOMPARE(r->sampleCount(), size_t(1));
            QCOMPARE(st.skippedRecords, uint64_t(1));
        }
        // Data section past the end.
        {
            auto b = good;
            set(b, 48, 1u << 30, 8);
            QVERIFY(!readPerfData(b));
        }
    }
};

QTEST_GUILESS_MAIN(TestPerfData)
#include "tst_perfdata.moc"
