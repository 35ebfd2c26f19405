// DWARF unwinding of `perf record --call-graph dwarf` samples (symbolize/pass/dwarfunwinder, libdwfl):
// the C++ fixture (cxxprog + libsfwork.so) built with and without frame pointers, recorded by
// perf at test time, read with the unwinder and compared sample by sample with `perf script`
// on the same file (perf 6.1 unwinds with libunwind or libdw itself); and malformed samples
// built byte by byte, read with the real unwinder. perf must be present and allowed to record:
// the test fails, not skips, when it is not.
#include "filehelpers.h"
#include "perfdatahelpers.h"
#include "processhelpers.h"

#include "model/analysis/truncatedstacks.h"
#include "model/io/perf/perfbuildidcache.h"
#include "model/io/perf/perfdata.h"
#include "model/io/profileio.h"
#include "symbolize/pass/dwarfunwinder.h"
#include "symbolize/pass/symbolizationpass.h"
#include "ui/profilesnapshot.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QObject>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <tuple>
#include <vector>

using namespace symflame::model;
using symflame::testing::numLabel;
using symflame::testing::put;
using symflame::testing::readFileBytes;
using symflame::testing::set;
using symflame::testing::runProcess;

namespace {

struct Frame {
    uint64_t address = 0; // as perf script prints it: file-relative for user frames
    std::string symbol; // perf's; empty for ours
    std::string dso;
    bool operator==(const Frame& o) const { return address == o.address; }
};

using SampleKey = std::tuple<int64_t, int64_t, int64_t>; // time (µs), pid, tid

// `perf script -F pid,tid,time,ip,sym,dso --no-inline`: "pid/tid time:" then "addr sym (dso)" per frame.
std::map<SampleKey, std::vector<Frame>> perfScript(const QString& file)
{
    std::map<SampleKey, std::vector<Frame>> out;
    const auto r = runProcess("perf", {"script", "-i", file, "-F", "pid,tid,time,ip,sym,dso", "--no-inline"});
    if (r.exitCode != 0)
        qFatal("perf script failed: %s", r.err.constData());
    static const QRegularExpression head(R"(^\s*(\d+)/(\d+)\s+(\d+)\.(\d{6}):\s*$)");
    static const QRegularExpression frame(R"(^\s+([0-9a-f]+) (.*) \((.*)\)$)");
    std::vector<Frame>* cur = nullptr;
    for (const QByteArray& raw : r.out.split('\n')) {
        const QString line = QString::fromUtf8(raw);
        if (auto m = head.match(line); m.hasMatch()) {
            const SampleKey key{m.captured(3).toLongLong() * 1000000 + m.captured(4).toLongLong(),
                m.captured(1).toLongLong(), m.captured(2).toLongLong()};
            cur = &out[key];
        } else if (auto f = frame.match(line); f.hasMatch() && cur) {
            cur->push_back({f.captured(1).toULongLong(nullptr, 16), f.captured(2).toStdString(), f.captured(3).toStdString()});
        }
    }
    return out;
}

// Our samples' stacks as perf script prints them: user frames relative to their file. Callers
// are call sites in both (return address - 1: perf's DWARF unwinding names callers by the call
// instruction too), but for the kernel's, which perf prints as recorded (return addresses).
std::map<SampleKey, std::vector<Frame>> ours(const Profile& p)
{
    std::map<SampleKey, std::vector<Frame>> out;
    for (size_t s = 0; s < p.sampleCount(); ++s) {
        std::vector<Frame> chain;
        const auto stack = p.sampleStack(s);
        for (size_t k = 0; k < stack.size(); ++k) {
            const Location& loc = p.locations[stack[k].index()];
            const Mapping* m = p.mappingOf(loc);
            const bool kernel = m && p.str(m->file) == "[kernel.kallsyms]";
            Frame f;
            f.address = loc.address;
            if (kernel) {
                f.address += symflame::testing::isCallSite(p, stack, k);
            } else if (m) {
                f.address = f.address - m->start + m->offset;
                f.dso = std::string(p.str(m->file));
            }
            chain.push_back(std::move(f));
        }
        out[{p.sampleTimestamps.at(s) / 1000, numLabel(p, s, "pid"), numLabel(p, s, "tid")}] = std::move(chain);
    }
    return out;
}

constexpr uint64_t kRegsMask = (1u << 6) | (1u << 7) | (1u << 8); // BP, SP, IP (perf's x86 numbering)

// A file-mode perf.data with one attribute (sample_type IP|TID|REGS_USER|STACK_USER, regs BP SP IP).
std::vector<uint8_t> synth(const std::vector<uint8_t>& records)
{
    constexpr uint64_t attrSize = 96;
    std::vector<uint8_t> b;
    const uint64_t attrsOff = 104, attrsSize = attrSize + 16, dataOff = attrsOff + attrsSize;
    put(b, 0x32454c4946524550ULL, 8);
    put(b, 104, 8);
    put(b, attrsSize, 8);
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
    set(b, attr + 0, 1, 4); // software: cpu-clock
    set(b, attr + 4, attrSize, 4);
    set(b, attr + 24, 1 | 2 | (1u << 12) | (1u << 13), 8);
    set(b, attr + 80, kRegsMask, 8);
    set(b, attr + 88, 8192, 4);
    put(b, 0, 8); // ids section: none
    put(b, 0, 8);
    b.insert(b.end(), records.begin(), records.end());
    return b;
}

std::vector<uint8_t> mmapRecord(uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff, const std::string& file)
{
    std::vector<uint8_t> r;
    put(r, 1, 4); // MMAP
    put(r, 2, 2); // user
    put(r, 0, 2);
    put(r, pid, 4);
    put(r, pid, 4);
    put(r, start, 8);
    put(r, len, 8);
    put(r, pgoff, 8);
    r.insert(r.end(), file.begin(), file.end());
    r.resize((r.size() + 8) / 8 * 8, 0);
    set(r, 6, r.size(), 2);
    return r;
}

// A sample: abi (0: no registers), BP SP IP, the stack copy (size bytes), dyn_size.
std::vector<uint8_t> dwarfSample(uint32_t pid, uint64_t ip, uint64_t abi, uint64_t sp, const std::vector<uint8_t>& stack,
    uint64_t dynSize)
{
    std::vector<uint8_t> r;
    put(r, 9, 4);
    put(r, 2, 2);
    put(r, 0, 2);
    put(r, ip, 8);
    put(r, pid, 4);
    put(r, pid, 4);
    put(r, abi, 8);
    if (abi) {
        put(r, sp + 16, 8);
        put(r, sp, 8);
        put(r, ip, 8);
    }
    put(r, stack.size(), 8);
    r.insert(r.end(), stack.begin(), stack.end());
    if (!stack.empty())
        put(r, dynSize, 8);
    set(r, 6, r.size(), 2);
    return r;
}

} // namespace

class TestPerfDwarf : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    // Samples with two or more frames in the fixture's own binaries (cxxprog, libsfwork.so):
    // unwinding goes through them only when their call frame information is found.
    static size_t throughFixture(const Profile& p)
    {
        size_t deep = 0;
        for (size_t s = 0; s < p.sampleCount(); ++s) {
            size_t own = 0;
            for (LocationId id : p.sampleStack(s)) {
                const Mapping* m = p.mappingOf(p.locations[id.index()]);
                const std::string_view file = m ? p.str(m->file) : std::string_view();
                own += file.ends_with("/cxxprog") || file.ends_with("/libsfwork.so");
            }
            deep += own >= 2;
        }
        return deep;
    }

    // The fixture built into dir with flags; returns the program's path.
    QString build(const QString& dir, const QStringList& flags)
    {
        QDir().mkpath(m_dir.filePath(dir));
        const QString src = QStringLiteral(SYMFLAME_TEST_SOURCE_DIR) + "/fixtures/cxxprog/";
        const QString lib = m_dir.filePath(dir + "/libsfwork.so");
        const QString prog = m_dir.filePath(dir + "/cxxprog");
        auto r = runProcess("g++", QStringList(flags) << "-fPIC" << "-shared" << "-o" << lib << src + "sfwork.cpp");
        if (r.exitCode != 0)
            qFatal("g++: %s", r.err.constData());
        r = runProcess("g++", QStringList(flags) << "-pthread" << "-o" << prog << src + "main.cpp" << "-L" + m_dir.filePath(dir)
                                                 << "-lsfwork" << "-Wl,-rpath," + m_dir.filePath(dir));
        if (r.exitCode != 0)
            qFatal("g++: %s", r.err.constData());
        return prog;
    }

    QString record(const QString& prog, const QString& name)
    {
        const QString out = m_dir.filePath(name);
        const auto r = runProcess("perf", {"record", "-e", "cpu-clock", "--call-graph", "dwarf", "-o", out, prog, "0.3"});
        if (r.exitCode != 0)
            qFatal("perf record failed (is linux-perf installed and may this user record?): %s", r.err.constData());
        return out;
    }

    // Read as the viewer and the CLI read it: unwound on as many threads as the machine has cores.
    Result<Profile> unwound(const QString& file, PerfDataStats* stats)
    {
        const auto bytes = readFileBytes(file);
        QElapsedTimer t;
        t.start();
        auto p = readPerfData(bytes, stats, symflame::symbolize::dwarfUnwinderFactory());
        qInfo("%s: %llu samples read and unwound in %lld ms", qPrintable(file), (unsigned long long)stats->samples,
            (long long)t.elapsed());
        return p;
    }

    // Every sample's stack against perf's. perf (here libunwind) and libdwfl can disagree where
    // perf's stack copy ends, or where one of them takes a heuristic the other does not (seen:
    // at process exit, perf continued from __run_exit_handlers to an address in no mapping
    // where libdwfl's CFI led to exit, __libc_start_call_main and _start). So: the kernel part
    // and the sampled IP must always be equal, a sample may differ only past its first user
    // frame, and at least 95% of the samples must be identical, frame for frame.
    void compare(const QString& file, const Profile& p, const char* what)
    {
        const auto perf = perfScript(file);
        const auto mine = ours(p);
        QVERIFY(perf.size() > 100);
        QCOMPARE(mine.size(), perf.size());
        size_t identical = 0, differing = 0, deep = 0, named = 0, rooted = 0, userSamples = 0, perfEmpty = 0;
        for (const auto& [key, theirs] : perf) {
            auto it = mine.find(key);
            QVERIFY2(it != mine.end(), "a sample perf script prints is one of ours");
            const std::vector<Frame>& chain = it->second;
            if (theirs.empty() && !chain.empty()) {
                // perf's unwinding gave not even the sampled IP (seen: 1 sample of 1,173 in 1 of
                // 20 runs, with the fixture built with frame pointers): nothing to compare.
                ++perfEmpty;
                continue;
            }
            size_t firstUser = 0;
            while (firstUser < theirs.size() && theirs[firstUser].dso == "[kernel.kallsyms]")
                ++firstUser;
            size_t same = 0;
            while (same < chain.size() && same < theirs.size() && chain[same].address == theirs[same].address) {
                // Same address, same file (perf names user frames' files as we map them).
                if (!chain[same].dso.empty() && theirs[same].dso != "[unknown]")
                    QCOMPARE(QString::fromStdString(chain[same].dso), QString::fromStdString(theirs[same].dso));
                ++same;
            }
            if (same == chain.size() && same == theirs.size()) {
                ++identical;
            } else {
                QString a, b;
                for (const Frame& f : chain)
                    a += QString::number(f.address, 16) + ' ';
                for (const Frame& f : theirs)
                    b += QString::number(f.address, 16) + ' ' + QString::fromStdString(f.symbol) + "; ";
                qInfo("time %lld tid %lld: frame %zu (user frame %zu) differs\nours: %s\nperf: %s", (long long)std::get<0>(key),
                    (long long)std::get<2>(key), same, same - std::min(same, firstUser), qPrintable(a), qPrintable(b));
                QVERIFY2(same > firstUser, "the kernel frames and the sampled IP are perf's");
                ++differing;
            }
            deep += chain.size() >= 4;
            // Stacks of the program's own threads reach their roots (as perf names them).
            if (!theirs.empty() && theirs.back().dso.find("/cxxprog") != std::string::npos) {
                ++userSamples;
                const std::string& root = chain.size() == theirs.size() ? theirs.back().symbol : std::string();
                rooted += root == "_start" || root.starts_with("clone") || root == "start_thread";
            }
            for (const Frame& f : theirs)
                named += f.symbol != "[unknown]";
        }
        qInfo("%s: %zu samples, %zu identical to perf's (%.1f%%), %zu differ past their first user frame; %zu of %zu "
              "stacks perf ends in cxxprog reach _start/clone",
            what, perf.size(), identical, 100.0 * double(identical) / double(perf.size()), differing, rooted, userSamples);
        // Measured on Debian 12 (perf 6.1, elfutils 0.188), fixture built without frame pointers:
        // 1161 of 1161 identical; with frame pointers: 1183 of 1184 (the exit case above).
        QVERIFY2(identical * 100 >= perf.size() * 95, "at least 95% of the samples identical to perf's");
        QVERIFY2(perfEmpty * 100 <= perf.size(), "perf script printed no frame for more than 1% of the samples");
        QVERIFY2(deep * 2 > perf.size(), "most stacks several frames deep");
        QVERIFY2(rooted * 100 >= userSamples * 90, "stacks reach the thread's root");
        // Usually 500-700; with the machine busy the recording held as few as 272 samples, 85 of
        // them ending in cxxprog.
        QVERIFY2(userSamples >= 50, qPrintable(QString::number(userSamples)));
        QVERIFY(named > 0);
    }

    // Names: `symflame symbolize` (which unwinds by default) names the fixture's frames as perf does.
    void compareNames(const QString& file, const QString& dir)
    {
        const QString out = m_dir.filePath(dir + ".pb.gz");
        const auto sym = runProcess(symflame::testing::symflameExecutable(), {"symbolize", file, "-o", out});
        QVERIFY2(sym.exitCode == 0, sym.err.constData());
        auto s = loadProfile(out.toStdString());
        QVERIFY(s);
        std::map<std::pair<std::string, uint64_t>, std::string> perfName;
        for (const auto& [key, frames] : perfScript(file))
            for (const Frame& f : frames)
                if (f.symbol != "[unknown]")
                    perfName[{f.dso, f.address}] = f.symbol;
        size_t compared = 0;
        for (const Location& loc : s->locations) {
            const Mapping* m = s->mappingOf(loc);
            if (!m || loc.lineCount == 0)
                continue;
            const std::string file(s->str(m->file));
            if (!file.ends_with("/cxxprog") && !file.ends_with("/libsfwork.so"))
                continue;
            const uint64_t rel = loc.address - m->start + m->offset;
            auto it = perfName.find({file, rel});
            if (it == perfName.end())
                it = perfName.find({file, rel - 1});
            if (it == perfName.end() || it->second.find("@plt") != std::string::npos || it->second.find("{lambda") != std::string::npos)
                continue;
            std::string name(s->str(s->functions[s->linesOf(loc).back().function.index()].name));
            std::string theirs = it->second;
            std::erase(name, ' ');
            std::erase(theirs, ' ');
            if (name == "[plt]")
                continue;
            QCOMPARE(QString::fromStdString(name.substr(0, name.find('('))), QString::fromStdString(theirs.substr(0, theirs.find('('))));
            ++compared;
        }
        QVERIFY2(compared >= 8, "function names compared with perf's in cxxprog and libsfwork.so");
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        const auto v = runProcess("perf", {"--version"});
        QVERIFY2(v.exitCode == 0, "perf is missing: install linux-perf (scripts/setup.sh)");
    }

    // -fomit-frame-pointer -O2: the case DWARF mode is for (frame-pointer callchains break here).
    void withoutFramePointers()
    {
        const QString prog = build("nofp", {"-std=c++17", "-O2", "-g", "-fomit-frame-pointer"});
        const QString file = record(prog, "nofp.data");
        PerfDataStats stats;
        auto p = unwound(file, &stats);
        QVERIFY2(p, p ? "" : p.error().message.c_str());
        QCOMPARE(p->attribute("perf.call_graph"), std::string_view("dwarf"));
        QCOMPARE(stats.dwarfSamples, stats.samples);
        QVERIFY(stats.unwoundSamples * 100 >= stats.samples * 95);
        compare(file, *p, "without frame pointers");
        compareNames(file, "nofp");
    }

    void withFramePointers()
    {
        const QString prog = build("fp", {"-std=c++17", "-O1", "-g", "-fno-omit-frame-pointer"});
        const QString file = record(prog, "fp.data");
        PerfDataStats stats;
        auto p = unwound(file, &stats);
        QVERIFY2(p, p ? "" : p.error().message.c_str());
        compare(file, *p, "with frame pointers");
    }

    // A caller's frame is its call site (return address - 1), in frame-pointer callchains (the
    // reader makes it) as in DWARF-unwound stacks (the unwinder does): symbolized, its line is
    // llvm-symbolizer's for the call instruction. The return address itself would often name
    // the next line, or the header of an inlined destructor that runs after the call.
    void callersAtTheirCallSites()
    {
        // The programs withoutFramePointers and withFramePointers built, and the former's recording.
        const QString fpProg = m_dir.filePath("fp/cxxprog");
        QVERIFY2(QFileInfo::exists(fpProg) && QFileInfo::exists(m_dir.filePath("nofp.data")), "run after withFramePointers");
        const QString fpChains = m_dir.filePath("fpchains.data");
        const auto rec = runProcess("perf", {"record", "-e", "cpu-clock", "-g", "-o", fpChains, fpProg, "0.3"});
        QVERIFY2(rec.exitCode == 0, rec.err.constData());
        for (const QString& file : {fpChains, m_dir.filePath("nofp.data")}) {
            PerfDataStats stats;
            auto p = unwound(file, &stats);
            QVERIFY2(p, p ? "" : p.error().message.c_str());
            auto report = symflame::symbolize::SymbolizationPass({}).run(*p);
            QVERIFY2(report, report ? "" : report.error().toString().c_str());
            // The fixture's caller frames with lines, by binary: (ELF address, our innermost line).
            const std::vector<bool> callSite = symflame::testing::callSiteLocations(*p);
            std::map<std::string, std::vector<std::pair<uint64_t, std::string>>> callers;
            for (size_t i = 0; i < p->locations.size(); ++i) {
                const Location& loc = p->locations[i];
                const Mapping* m = p->mappingOf(loc);
                if (!callSite[i] || !m || loc.lineCount == 0)
                    continue;
                const std::string binary(p->str(m->file));
                if (!binary.ends_with("/cxxprog") && !binary.ends_with("/libsfwork.so"))
                    continue;
                const Line& inner = p->linesOf(loc).front();
                if (inner.line == 0) // named from the symbol table (_start's)
                    continue;
                const std::string path(p->str(p->functions[inner.function.index()].file));
                // gcc's PIE and shared objects load each segment at its file offset, so the
                // file offset perf mapped is the ELF address.
                callers[binary].emplace_back(loc.address - m->start + m->offset,
                    path.substr(path.rfind('/') + 1) + ":" + std::to_string(inner.line));
            }
            size_t compared = 0, movedByOne = 0;
            for (const auto& [binary, frames] : callers) {
                // llvm-symbolizer on each call site, then on each return address.
                QByteArray input;
                for (const auto& [address, line] : frames)
                    input += "0x" + QByteArray::number(qulonglong(address), 16) + '\n';
                for (const auto& [address, line] : frames)
                    input += "0x" + QByteArray::number(qulonglong(address + 1), 16) + '\n';
                const auto r = runProcess(QStringLiteral(SYMFLAME_LLVM_SYMBOLIZER),
                    {"--obj=" + QString::fromStdString(binary), "--basenames"}, input);
                QVERIFY2(r.exitCode == 0, r.err.constData());
                // A block per address, frames innermost first: "function", then "file:line:column".
                std::vector<std::string> innermost;
                const QList<QByteArray> lines = r.out.split('\n');
                for (size_t i = 0; i + 1 < size_t(lines.size());) {
                    const QByteArray place = lines[qsizetype(i + 1)];
                    innermost.push_back(place.left(place.lastIndexOf(':')).toStdString());
                    while (i < size_t(lines.size()) && !lines[qsizetype(i)].isEmpty())
                        ++i;
                    while (i < size_t(lines.size()) && lines[qsizetype(i)].isEmpty())
                        ++i;
                }
                QCOMPARE(innermost.size(), 2 * frames.size());
                for (size_t k = 0; k < frames.size(); ++k) {
                    QVERIFY2(frames[k].second == innermost[k], qPrintable(QString("%1 at 0x%2: ours %3, llvm-symbolizer's %4")
                                                                       .arg(QString::fromStdString(binary))
                                                                       .arg(frames[k].first, 0, 16)
                                                                       .arg(QString::fromStdString(frames[k].second))
                                                                       .arg(QString::fromStdString(innermost[k]))));
                    movedByOne += innermost[frames.size() + k] != innermost[k];
                    ++compared;
                }
            }
            qInfo("%s: %zu caller frames at their call's line (%zu of them elsewhere at the return address)",
                qPrintable(QFileInfo(file).fileName()), compared, movedByOne);
            QVERIFY2(compared >= 10, "caller frames in the fixture compared");
            QVERIFY2(movedByOne >= 1, "some return address lies on another line than its call");
        }
    }

    // Every sample as text: its stack (each frame's binary and address), values, labels and time.
    static std::vector<std::string> described(const Profile& p)
    {
        std::vector<std::string> out;
        for (size_t s = 0; s < p.sampleCount(); ++s) {
            std::string d;
            for (LocationId id : p.sampleStack(s)) {
                const Location& loc = p.locations[id.index()];
                const Mapping* m = p.mappingOf(loc);
                d += std::string(m ? p.str(m->file) : "-") + "+" + std::to_string(loc.address) + " ";
            }
            for (int64_t v : p.values(s))
                d += "=" + std::to_string(v);
            for (const Label& l : p.sampleLabels(s))
                d += " " + std::string(p.str(l.key)) + ":" + std::string(p.str(l.str)) + std::to_string(l.num);
            d += " @" + std::to_string(s < p.sampleTimestamps.size() ? p.sampleTimestamps[s] : -1);
            out.push_back(std::move(d));
        }
        return out;
    }

    // The reader hands batches of samples to threads that unwind them, each with its own
    // libdwfl state: the profile is the same sample for sample, in the same order, whether one
    // thread unwinds or four (the recording has several batches' worth of samples).
    void threadsMakeNoDifference()
    {
        const auto bytes = readFileBytes(m_dir.filePath("nofp.data"));
        auto unwinder = symflame::symbolize::dwarfUnwinderFactory()();
        PerfDataStats alone;
        auto one = readPerfData(bytes, &alone, unwinder.get());
        QVERIFY(one);
        QVERIFY2(alone.unwoundSamples > 1000, "more samples than a few batches");
        const auto expected = described(*one);
        for (unsigned threads : {1u, 2u, 4u}) {
            PerfDataStats stats;
            auto p = readPerfData(bytes, &stats, symflame::symbolize::dwarfUnwinderFactory(), threads);
            QVERIFY(p);
            QCOMPARE(stats.unwoundSamples, alone.unwoundSamples);
            const auto got = described(*p);
            QCOMPARE(got.size(), expected.size());
            for (size_t i = 0; i < got.size(); ++i)
                QVERIFY2(got[i] == expected[i], qPrintable(QString("%1 threads, sample %2: %3 against %4")
                                                               .arg(threads).arg(i)
                                                               .arg(QString::fromStdString(got[i]), QString::fromStdString(expected[i]))));
        }
    }

    // Without an unwinder the samples keep perf's callchain (the kernel part) and the IP.
    void withoutUnwinder()
    {
        const QString file = m_dir.filePath("nofp.data");
        PerfDataStats stats;
        auto p = readPerfData(readFileBytes(file), &stats);
        QVERIFY(p);
        QCOMPARE(stats.unwoundSamples, uint64_t(0));
        QVERIFY(stats.dwarfSamples > 100);
        size_t deepUser = 0;
        for (size_t s = 0; s < p->sampleCount(); ++s) {
            size_t user = 0;
            for (LocationId id : p->sampleStack(s)) {
                const Mapping* m = p->mappingOf(p->locations[id.index()]);
                user += !m || p->str(m->file) != "[kernel.kallsyms]";
            }
            deepUser += user > 1;
        }
        QCOMPARE(deepUser, size_t(0));
    }

    // Samples in the vDSO (clock_gettime): libdwfl unwinds through it with the call frame
    // information of the copy perf record keeps in its build-ID cache (~/.debug, or
    // $PERF_BUILDID_DIR), as perf does; without that copy a frame is lost (libdwfl's frame-pointer
    // fallback steps from the vDSO straight to libc).
    void throughTheVdso()
    {
        const QString prog = m_dir.filePath("vdsoclock");
        const auto cc = runProcess("gcc", {"-O2", "-g", "-fomit-frame-pointer", "-o", prog,
                                              QStringLiteral(SYMFLAME_TEST_SOURCE_DIR) + "/fixtures/vdsoclock/vdsoclock.c"});
        QVERIFY2(cc.exitCode == 0, cc.err.constData());
        const QString file = record(prog, "vdso.data");
        const auto perf = perfScript(file);
        // Samples perf unwound from the vDSO into its caller, and how many of ours are the same.
        const auto throughVdso = [&](const Profile& p, size_t& identical) {
            const auto mine = ours(p);
            size_t through = 0;
            identical = 0;
            for (const auto& [key, theirs] : perf) {
                const auto v = std::find_if(theirs.begin(), theirs.end(), [](const Frame& f) { return f.dso == "[vdso]"; });
                const auto past = std::find_if(v, theirs.end(), [](const Frame& f) { return f.dso != "[vdso]"; });
                if (v == theirs.end() || past == theirs.end())
                    continue;
                ++through;
                const auto it = mine.find(key);
                identical += it != mine.end() && it->second == theirs;
            }
            return through;
        };
        PerfDataStats stats;
        auto p = unwound(file, &stats);
        QVERIFY2(p, p ? "" : p.error().message.c_str());
        size_t identical = 0;
        const size_t through = throughVdso(*p, identical);
        qInfo("%zu of %zu samples unwound by perf through the vDSO, %zu of them identical to ours", through, perf.size(),
            identical);
        QVERIFY2(through >= 20, "clock_gettime ran in the vDSO (perf unwound at least 20 samples through it)");
        QVERIFY2(identical * 100 >= through * 90, "stacks through the vDSO are perf's");

        // The vDSO's frames are named from the same copy, by its dynamic symbols, as perf names
        // them ("__vdso_clock_gettime"; an address outside them stays an address, perf's "[unknown]").
        // Symbolized as the viewer and the CLI do a perf.data file: each address as recorded
        // (nonLeafAddressesAreReturnAddresses false), as perf names them. Looking up address - 1
        // for every non-leaf frame named a sample's first user frame wrong about 1 run in 20: in a
        // page fault on the vDSO's code page, that frame is the faulting instruction itself
        // (0xb10, __vdso_clock_gettime's entry), under the kernel's frames, and 0xb0f is in no
        // symbol.
        Profile named = *p;
        symflame::symbolize::SymbolizeOptions options;
        options.nonLeafAddressesAreReturnAddresses = false;
        auto report = symflame::symbolize::SymbolizationPass(options).run(named);
        QVERIFY2(report, report ? "" : report.error().toString().c_str());
        size_t wrongStatus = 0;
        const auto vdsoNames = [&](const Profile& q) {
            std::map<SampleKey, std::vector<std::string>> out;
            for (size_t s = 0; s < q.sampleCount(); ++s) {
                auto& names = out[{q.sampleTimestamps.at(s) / 1000, numLabel(q, s, "pid"), numLabel(q, s, "tid")}];
                for (LocationId id : q.sampleStack(s)) {
                    const Location& loc = q.locations[id.index()];
                    const Mapping* m = q.mappingOf(loc);
                    if (!m || q.str(m->file) != "[vdso]")
                        continue;
                    wrongStatus += loc.status != (loc.lineCount ? FrameStatus::Symbolized : FrameStatus::BinaryOnly);
                    names.push_back(loc.lineCount
                            ? std::string(q.str(q.functions[q.linesOf(loc).back().function.index()].name))
                            : std::string("[unknown]"));
                }
            }
            return out;
        };
        const auto mineNamed = vdsoNames(named);
        QCOMPARE(wrongStatus, size_t(0));
        const auto mineAddresses = ours(*p);
        size_t namedFrames = 0, samplesCompared = 0;
        for (const auto& [key, theirs] : perf) {
            const auto it = mineNamed.find(key);
            const auto same = mineAddresses.find(key);
            if (it == mineNamed.end() || same == mineAddresses.end() || same->second != theirs)
                continue; // stacks that differ (at most a tenth, above) name different frames
            std::vector<std::string> theirNames;
            std::string where; // perf's vDSO frames: position in the stack and address
            for (size_t i = 0; i < theirs.size(); ++i)
                if (theirs[i].dso == "[vdso]") {
                    theirNames.push_back(theirs[i].symbol);
                    where += " #" + std::to_string(i) + " 0x" + QByteArray::number(qulonglong(theirs[i].address), 16).toStdString();
                }
            if (theirNames.empty())
                continue;
            const auto joined = [](const std::vector<std::string>& names) {
                std::string s;
                for (const std::string& n : names)
                    s += (s.empty() ? "" : ", ") + n;
                return s;
            };
            QVERIFY2(it->second == theirNames, ("ours: " + joined(it->second) + "; perf's: " + joined(theirNames) + " at" + where).c_str());
            namedFrames += std::count_if(theirNames.begin(), theirNames.end(), [](const std::string& n) { return n != "[unknown]"; });
            ++samplesCompared;
        }
        qInfo("vDSO frames named as perf names them in %zu samples (%zu named frames)", samplesCompared, namedFrames);
        QVERIFY2(samplesCompared >= 20 && namedFrames >= 20, "vDSO frames named by the copy's symbols");

        // Whether the vDSO's clock_gettime keeps a frame pointer (push %rbp; mov %rsp,%rbp), as
        // some kernels build it: then libdwfl's frame-pointer fallback unwinds most of its samples
        // without CFI too (measured on such a kernel: 1,110 of 1,147), all but those in its prologue.
        std::string vdsoId;
        for (const Mapping& m : p->mappings)
            if (p->str(m.file) == "[vdso]")
                vdsoId = std::string(p->str(m.buildId));
        const std::string copy = perfBuildIdCacheEntry(perfBuildIdCacheDir(), vdsoId, "vdso");
        QVERIFY2(!copy.empty(), "perf record kept a copy of the vDSO");
        const auto disassembly = runProcess("objdump", {"-d", "--disassemble=__vdso_clock_gettime", QString::fromStdString(copy)});
        QVERIFY2(disassembly.ok(), disassembly.err.constData());
        const bool vdsoKeepsFramePointer = QString::fromUtf8(disassembly.out)
                                               .contains(QRegularExpression(R"(>:\n.*push\s+%rbp\n.*mov\s+%rsp,%rbp\n)"));

        // With perf's cache elsewhere (empty), the vDSO has no CFI: stacks lose a frame, most of
        // them when the vDSO keeps no frame pointer (measured: 124 of 1162 still identical,
        // samples where the fallback guesses right).
        QTemporaryDir emptyCache;
        const QByteArray saved = qgetenv("PERF_BUILDID_DIR");
        const bool hadSaved = qEnvironmentVariableIsSet("PERF_BUILDID_DIR");
        qputenv("PERF_BUILDID_DIR", emptyCache.path().toUtf8());
        const auto restore = qScopeGuard([&] {
            if (hadSaved)
                qputenv("PERF_BUILDID_DIR", saved);
            else
                qunsetenv("PERF_BUILDID_DIR");
        });
        PerfDataStats without;
        auto q = unwound(file, &without);
        QVERIFY(q);
        size_t identicalWithout = 0;
        QCOMPARE(throughVdso(*q, identicalWithout), through);
        qInfo("without perf's copy of the vDSO: %zu of %zu identical (its clock_gettime %s a frame pointer)",
            identicalWithout, through, vdsoKeepsFramePointer ? "keeps" : "keeps no");
        QVERIFY(identicalWithout < identical);
        if (!vdsoKeepsFramePointer)
            QVERIFY(identicalWithout * 2 < through);
        // ...and its frames stay addresses, not applicable (nothing to look for), not missing debug info.
        auto again = symflame::symbolize::SymbolizationPass(options).run(*q);
        QVERIFY(again);
        size_t vdsoFrames = 0;
        for (const Location& loc : q->locations) {
            const Mapping* m = q->mappingOf(loc);
            if (m && q->str(m->file) == "[vdso]") {
                QCOMPARE(loc.status, FrameStatus::NotApplicable);
                QCOMPARE(loc.lineCount, uint32_t(0));
                ++vdsoFrames;
            }
        }
        QVERIFY(vdsoFrames > 0);
    }

    // Code built without unwind tables has its call frame information only in .debug_frame; with
    // the debug info split off, that is in the separate debug file (found here by its
    // .gnu_debuglink), which the unwinder hands to libdwfl only for such binaries (opening one
    // decompresses all its sections: libc's, which has no .debug_frame, is not opened).
    void debugFrameInASeparateFile()
    {
        const QString prog = build("debugframe", {"-std=c++17", "-O2", "-g", "-fomit-frame-pointer",
                                                     "-fno-asynchronous-unwind-tables", "-fno-unwind-tables", "-fno-exceptions"});
        const QString dir = QFileInfo(prog).path();
        for (const QString& f : {prog, dir + "/libsfwork.so"}) {
            for (const QStringList& args : {QStringList{"--only-keep-debug", f, f + ".debug"}, QStringList{"--strip-debug", f},
                     QStringList{"--add-gnu-debuglink=" + f + ".debug", f}}) {
                const auto r = runProcess("objcopy", args);
                QVERIFY2(r.exitCode == 0, r.err.constData());
            }
        }
        const auto sections = runProcess("readelf", {"-SW", prog});
        QVERIFY2(!sections.out.contains(".debug_frame"), "the program's .debug_frame went to its debug file");
        const QString file = record(prog, "debugframe.data");
        PerfDataStats stats;
        auto p = unwound(file, &stats);
        QVERIFY2(p, p ? "" : p.error().message.c_str());
        const size_t samples = p->sampleCount(), deep = throughFixture(*p);
        qInfo("CFI from separate debug files: %zu of %zu samples unwound through the fixture", deep, samples);
        QVERIFY(samples > 100);
        QVERIFY2(deep * 100 >= samples * 80, qPrintable(QString::number(deep)));

        QDir d(dir);
        QVERIFY(d.mkdir("away"));
        for (const QString& f : {QStringLiteral("cxxprog.debug"), QStringLiteral("libsfwork.so.debug")})
            QVERIFY(d.rename(f, "away/" + f));
        PerfDataStats again;
        auto q = unwound(file, &again);
        QVERIFY(q);
        const size_t without = throughFixture(*q);
        qInfo("without the debug files: %zu", without);
        QVERIFY2(without * 4 < deep, qPrintable(QString::number(without)));
    }

    // Binaries no longer where perf recorded them are found through the locator's search
    // directories, which the viewer's loads pass from its settings (ProfileSession::perfUnwinder
    // gives loadSnapshot and loadMergedSnapshot a factory like this one); without them unwinding
    // stops at the first frame in them.
    void movedBinaries()
    {
        const QString file = m_dir.filePath("nofp.data");
        QVERIFY(QDir(m_dir.path()).rename("nofp", "nofp-moved"));
        const auto restore = qScopeGuard([&] { QDir(m_dir.path()).rename("nofp-moved", "nofp"); });
        symflame::symbolize::LocatorOptions options;
        options.searchDirs = { m_dir.filePath("nofp-moved").toStdString() };
        const std::string path = file.toStdString();

        auto lost = symflame::ui::loadSnapshot(path);
        QVERIFY2(lost, lost ? "" : lost.error().toString().c_str());
        // Without the binaries libdwfl has no CFI, but its x86-64 frame-pointer fallback can
        // still step once where %rbp happens to hold a frame (1 of about 1,170 samples, seen
        // once in 20 runs): almost none, not none.
        const size_t lostDeep = throughFixture(*(*lost)->profile);
        QVERIFY2(lostDeep * 100 <= (*lost)->profile->sampleCount(), qPrintable(QString::number(lostDeep)));

        auto found = symflame::ui::loadSnapshot(
            path, nullptr, std::nullopt, {}, symflame::ui::kPreviewParts, symflame::symbolize::dwarfUnwinderFactory(options));
        QVERIFY2(found, found ? "" : found.error().toString().c_str());
        const Profile& p = *(*found)->profile;
        const size_t samples = p.sampleCount();
        QVERIFY(samples > 100);
        qInfo("moved binaries: %zu of %zu samples unwound through them with the search directory", throughFixture(p), samples);
        QVERIFY2(throughFixture(p) * 100 >= samples * 80, qPrintable(QString::number(throughFixture(p))));

        // Several files merged are unwound too, with the same factory.
        auto merged = symflame::ui::loadMergedSnapshot({ path, path }, nullptr, {}, symflame::ui::kPreviewParts,
            symflame::symbolize::dwarfUnwinderFactory(options));
        QVERIFY2(merged, merged ? "" : merged.error().toString().c_str());
        const Profile& m = *(*merged)->profile;
        QVERIFY2(throughFixture(m) * 100 >= m.sampleCount() * 80, qPrintable(QString::number(throughFixture(m))));
    }

    void badInput()
    {
        const QString prog = m_dir.filePath("nofp/cxxprog");
        const uint64_t base = 0x555555554000;
        const auto map = mmapRecord(7, base, 0x10000, 0, prog.toStdString());
        std::vector<uint8_t> stack(256);
        for (size_t i = 0; i < stack.size(); ++i)
            stack[i] = uint8_t(i * 37 + 11);
        auto read = [](const std::vector<uint8_t>& records, PerfDataStats& st) {
            auto unwinder = symflame::symbolize::dwarfUnwinderFactory()();
            return readPerfData(synth(records), &st, unwinder.get());
        };
        auto withMap = [&](std::vector<uint8_t> sample) {
            std::vector<uint8_t> r = map;
            r.insert(r.end(), sample.begin(), sample.end());
            return r;
        };
        const uint64_t ip = base + 0x1100, sp = 0x7ffc0000;
        // Registers abi 0 (none recorded): the IP alone.
        {
            PerfDataStats st;
            auto r = read(withMap(dwarfSample(7, ip, 0, sp, stack, stack.size())), st);
            QVERIFY(r);
            QCOMPARE(r->sampleCount(), size_t(1));
            QCOMPARE(r->sampleStack(0).size(), size_t(1));
            QCOMPARE(st.unwoundSamples, uint64_t(0));
        }
        // dyn_size larger than the copy: the sample is skipped and counted.
        {
            PerfDataStats st;
            auto r = read(withMap(dwarfSample(7, ip, 2, sp, stack, stack.size() + 8)), st);
            QVERIFY(r);
            QCOMPARE(r->sampleCount(), size_t(0));
            QCOMPARE(st.skippedSamples, uint64_t(1));
        }
        // A stack copy of zero bytes: the IP alone.
        {
            PerfDataStats st;
            auto r = read(withMap(dwarfSample(7, ip, 2, sp, {}, 0)), st);
            QVERIFY(r);
            QCOMPARE(r->sampleCount(), size_t(1));
            QCOMPARE(r->sampleStack(0).size(), size_t(1));
            QCOMPARE(st.unwoundSamples, uint64_t(0));
        }
        // Valid size, nothing valid in it (dyn_size 0).
        {
            PerfDataStats st;
            auto r = read(withMap(dwarfSample(7, ip, 2, sp, stack, 0)), st);
            QVERIFY(r);
            QCOMPARE(r->sampleCount(), size_t(1));
            QCOMPARE(r->sampleStack(0).size(), size_t(1));
        }
        // Garbage for a stack, and SP far from the copy: whatever is unwound starts at the IP and
        // is bounded; nothing crashes.
        for (uint64_t badSp : {sp, uint64_t(0), ~uint64_t(0) - 4, base + 0x1000}) {
            PerfDataStats st;
            auto r = read(withMap(dwarfSample(7, ip, 2, badSp, stack, stack.size())), st);
            QVERIFY(r);
            QCOMPARE(r->sampleCount(), size_t(1));
            const auto frames = r->sampleStack(0);
            QVERIFY(!frames.empty() && frames.size() <= 1024);
            QCOMPARE(r->locations[frames[0].index()].address, ip);
        }
        // The mapping's binary is missing: the IP alone, nothing unwound.
        {
            PerfDataStats st;
            std::vector<uint8_t> r = mmapRecord(7, base, 0x10000, 0, "/nonexistent/symflame-test/libgone.so");
            const auto s = dwarfSample(7, ip, 2, sp, stack, stack.size());
            r.insert(r.end(), s.begin(), s.end());
            auto p = read(r, st);
            QVERIFY(p);
            QCOMPARE(p->sampleCount(), size_t(1));
            QCOMPARE(p->sampleStack(0).size(), size_t(1));
            QCOMPARE(st.unwoundSamples, uint64_t(0));
        }
        // No mapping at all for the process.
        {
            PerfDataStats st;
            auto p = read(dwarfSample(9, ip, 2, sp, stack, stack.size()), st);
            QVERIFY(p);
            QCOMPARE(p->sampleCount(), size_t(1));
            QCOMPARE(st.unwoundSamples, uint64_t(0));
        }
    }
};

QTEST_GUILESS_MAIN(TestPerfDwarf)
#include "tst_perfdwarf.moc"
