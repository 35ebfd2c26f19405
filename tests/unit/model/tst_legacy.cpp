// The legacy formats go tool pprof reads: gperftools' CPU, heap, contention, thread and count profiles. Oracle: `go tool pprof
// -proto -symbolize=none` on the same file (the fixture's real gperftools profile of cxxprog, and
// small files written here from the format's facts in each word size and byte order), read by
// symflame's pprof reader: the same stacks of addresses with the same values, each location in
// the same mapping (start, limit, offset, file, build ID), the same sample and period types.
#include "fixtures/fixturepaths.h"
#include "processhelpers.h"

#include "model/io/legacy/legacy.h"
#include "model/io/profileio.h"

#include <QDir>
#include <QObject>
#include <QTemporaryDir>
#include <QTest>

#include <fstream>
#include <map>
#include <tuple>

using namespace symflame::model;
namespace fixtures = symflame::fixtures;
using symflame::testing::runProcess;
using symflame::testing::runSymflame;

namespace {

// address, mapping (start, limit, offset, file, build ID), lines (function, file, line)
using Frame = std::tuple<uint64_t, uint64_t, uint64_t, uint64_t, std::string, std::string, std::string>;
using Stacks = std::map<std::pair<std::vector<Frame>, std::string>, std::vector<int64_t>>; // stack, labels

// Samples summed by stack (go tool pprof -proto merges equal stacks and drops zero samples, and
// samples without a stack: gobench.heap's `1: 288 [2: 296] @` line; symflame keeps those).
Stacks stacksOf(const Profile& p)
{
    Stacks out;
    for (size_t s = 0; s < p.sampleCount(); ++s) {
        const auto v = p.values(s);
        if (std::all_of(v.begin(), v.end(), [](int64_t x) { return x == 0; }) || p.sampleStack(s).empty())
            continue;
        std::vector<Frame> frames;
        for (LocationId id : p.sampleStack(s)) {
            const Location& loc = p.locations[id.index()];
            const Mapping* m = p.mappingOf(loc);
            std::string lines;
            for (uint32_t i = 0; i < loc.lineCount; ++i) {
                const Line& l = p.lines[loc.linesBegin + i];
                const Function& f = p.functions[l.function.index()];
                lines += std::string(p.str(f.name)) + " (" + std::string(p.str(f.file)) + ":" + std::to_string(l.line) + ") ";
            }
            frames.emplace_back(loc.address, m ? m->start : 0, m ? m->limit : 0, m ? m->offset : 0,
                m ? std::string(p.str(m->file)) : "", m ? std::string(p.str(m->buildId)) : "", lines);
        }
        std::string labels;
        for (const Label& l : p.sampleLabels(s))
            labels += std::string(p.str(l.key)) + "=" + std::string(p.str(l.str)) + std::to_string(l.num) + " ";
        auto& sum = out[{frames, labels}];
        sum.resize(v.size());
        for (size_t i = 0; i < v.size(); ++i)
            sum[i] += v[i];
    }
    return out;
}

std::string types(const Profile& p)
{
    std::string s;
    for (const ValueType& t : p.sampleTypes)
        s += std::string(p.str(t.type)) + "/" + std::string(p.str(t.unit)) + " ";
    return s + "period " + std::string(p.str(p.periodType.type)) + "/" + std::string(p.str(p.periodType.unit)) + " "
        + std::to_string(p.period);
}

void compareProfiles(const Profile& ours, const Profile& pprof)
{
    QCOMPARE(types(ours), types(pprof));
    QCOMPARE(std::string(ours.str(ours.dropFrames)), std::string(pprof.str(pprof.dropFrames)));
    QCOMPARE(std::string(ours.str(ours.keepFrames)), std::string(pprof.str(pprof.keepFrames)));
    const Stacks a = stacksOf(ours);
    const Stacks b = stacksOf(pprof);
    QVERIFY(!b.empty());
    QCOMPARE(a.size(), b.size());
    for (const auto& [stack, values] : b) {
        const auto it = a.find(stack);
        QVERIFY2(it != a.end(), qPrintable(QStringLiteral("a stack of %1 frames, leaf 0x%2, labels %3, not in symflame's read")
                                               .arg(stack.first.size())
                                               .arg(stack.first.empty() ? 0 : std::get<0>(stack.first.front()), 0, 16)
                                               .arg(QString::fromStdString(stack.second))));
        QCOMPARE(it->second, values);
    }
    // The main binary's mapping first, as pprof orders them.
    QVERIFY(!ours.mappings.empty() && !pprof.mappings.empty());
    QCOMPARE(ours.mappings[0].start, pprof.mappings[0].start);
    QCOMPARE(std::string(ours.str(ours.mappings[0].file)), std::string(pprof.str(pprof.mappings[0].file)));
}

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

std::span<const uint8_t> bytes(const QByteArray& b)
{
    return {reinterpret_cast<const uint8_t*>(b.constData()), size_t(b.size())};
}

// Words of the given size and byte order.
QByteArray words(std::initializer_list<uint64_t> ws, unsigned size, bool big)
{
    QByteArray out;
    for (uint64_t w : ws)
        for (unsigned i = 0; i < size; ++i)
            out += char((w >> (8 * (big ? size - 1 - i : i))) & 0xff);
    return out;
}

// `go tool pprof -proto -symbolize=none` of path, read by symflame's pprof reader.
void writeFile(const QString& path, const QByteArray& data)
{
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(data) != data.size())
        qFatal("cannot write %s", qPrintable(path));
}

Profile pprofConversion(const QString& path, const QString& out)
{
    const QStringList args{"tool", "pprof", "-proto", "-symbolize=none", "-output=" + out, path};
    const auto r = runProcess(QString::fromUtf8(fixtures::goExecutable), args);
    if (!r.ok())
        qWarning("%s\n%s", qPrintable(r.describe("go", args)), r.err.constData());
    auto p = loadProfile(out.toStdString());
    if (!p)
        qFatal("%s", p.error().toString().c_str());
    return std::move(p).value();
}

// pprof's own test data as Debian's golang-github-google-pprof-dev installs it (read in place,
// never copied).
const QString kPprofTestdata = QStringLiteral("/usr/share/gocode/src/github.com/google/pprof/profile/testdata");

// The legacy profiles of that test data: every file but the `.string` dumps of pprof's own
// reading.
QStringList pprofTestdataProfiles()
{
    QStringList out;
    for (const QString& f : QDir(kPprofTestdata).entryList(QDir::Files, QDir::Name))
        if (!f.endsWith(QLatin1String(".string")))
            out << f;
    return out;
}

// " 0x10000 0x10008 ...": `n` addresses inside the test profiles' first mapping; 6,500 of them
// make a line of about 52 KB, near the 64 KiB line limit pprof and symflame share.
QByteArray manyAddresses(int n)
{
    QByteArray out;
    for (int i = 0; i < n; ++i)
        out += " 0x" + QByteArray::number(0x10000 + i * 8, 16);
    return out;
}

} // namespace

class TestLegacy : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { qputenv("GOTOOLCHAIN", "local"); }

    // The real gperftools profile of cxxprog the fixtures made (64-bit little-endian).
    void gperftoolsCpuFixture()
    {
        ProfileFormat format = ProfileFormat::Unknown;
        auto ours = loadProfile(fixtures::cxxLegacyProfile, {}, nullptr, &format);
        QVERIFY2(ours, ours ? "" : ours.error().toString().c_str());
        QCOMPARE(format, ProfileFormat::GperftoolsCpu);
        auto pprof = loadProfile(fixtures::cxxUnsymbolizedProfile);
        QVERIFY(pprof);
        compareProfiles(*ours, *pprof);
        QVERIFY(ours->totalValue(0) > 100); // 1.5 s at 1000 Hz
    }

    // The same file rewritten in 64-bit big-endian words: the same profile.
    void gperftoolsCpuBigEndian()
    {
        const QByteArray le = readAll(fixtures::cxxLegacyProfile);
        QVERIFY(le.size() > 40);
        QByteArray be;
        size_t at = 0;
        const auto get = [&] {
            uint64_t v = 0;
            for (int i = 0; i < 8; ++i)
                v |= uint64_t(uint8_t(le[qsizetype(at + i)])) << (8 * i);
            at += 8;
            be += words({v}, 8, true);
            return v;
        };
        for (int i = 0; i < 5; ++i)
            get();
        for (;;) {
            const uint64_t count = get(), depth = get();
            uint64_t first = 0;
            for (uint64_t i = 0; i < depth; ++i)
                first = i == 0 ? get() : (get(), first);
            if (count == 0 && depth == 1 && first == 0)
                break;
        }
        be += le.mid(qsizetype(at));
        auto a = readGperftoolsCpu(bytes(le));
        auto b = readGperftoolsCpu(bytes(be));
        QVERIFY(a && b);
        QCOMPARE(stacksOf(*b), stacksOf(*a));
        QCOMPARE(types(*b), types(*a));
    }

    // Small profiles in every word size and byte order, written from the format's facts (the
    // header 0, 3, 0, period, 0; records count, depth, pcs; the end marker 0, 1, 0; a maps
    // trailer in /proc/self/maps lines and pprof's brief form with build IDs), against pprof.
    void gperftoolsCpuLayouts_data()
    {
        QTest::addColumn<unsigned>("size");
        QTest::addColumn<bool>("big");
        QTest::addRow("32-bit little-endian") << 4u << false;
        QTest::addRow("32-bit big-endian") << 4u << true;
        QTest::addRow("64-bit little-endian") << 8u << false;
        QTest::addRow("64-bit big-endian") << 8u << true;
    }
    void gperftoolsCpuLayouts()
    {
        QFETCH(unsigned, size);
        QFETCH(bool, big);
        QByteArray data = words({0, 3, 0, 2500, 0}, size, big);
        // Leaf first; a duplicated leaf (0x10510, then again as a return address: 0x1050f after the -1) in the third; one outside every mapping.
        data += words({7, 3, 0x10500, 0x20101, 0x10901}, size, big);
        data += words({2, 2, 0x20480, 0x10901}, size, big);
        data += words({5, 4, 0x10510, 0x10510, 0x20101, 0x10901}, size, big);
        data += words({1, 2, 0x90000, 0x10901}, size, big);
        data += words({0, 1, 0}, size, big);
        data += "00010000-00020000 r-xp 00000000 08:01 1234   /opt/app/bin/server\n"
                "00030000-00031000 rw-p 00020000 08:01 1234   /opt/app/bin/server\n"
                "0x20000-0x28000 /opt/app/lib/libwork.so.1 (@1000) 5f3e0a1b2c3d4e5f\n";
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString in = dir.filePath("small.prof");
        {
            QFile f(in);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(data);
        }
        ProfileFormat format = ProfileFormat::Unknown;
        auto ours = loadProfile(in.toStdString(), {}, nullptr, &format);
        QVERIFY2(ours, ours ? "" : ours.error().toString().c_str());
        QCOMPARE(format, ProfileFormat::GperftoolsCpu);
        const Profile pprof = pprofConversion(in, dir.filePath("small.pb.gz"));
        compareProfiles(*ours, pprof);
        // The brief line's build ID reached the library's mapping.
        bool buildId = false;
        for (const Mapping& m : ours->mappings)
            buildId |= ours->str(m.buildId) == "5f3e0a1b2c3d4e5f";
        QVERIFY(buildId);
    }

    // Bad input: a clear error, never a crash or a hang.
    void gperftoolsCpuErrors_data()
    {
        QTest::addColumn<QByteArray>("data");
        QTest::addColumn<int>("code");
        QTest::addColumn<QString>("message");
        const QByteArray header = words({0, 3, 0, 10000, 0}, 8, false);
        QTest::addRow("truncated header") << header.left(12) << int(ErrorCode::Truncated) << "ends inside the header";
        QTest::addRow("no header") << QByteArray(40, '\1') << int(ErrorCode::InvalidInput) << "no header";
        QTest::addRow("depth past the end") << header + words({1, 1000, 0x1234}, 8, false) << int(ErrorCode::Truncated)
                                            << "record 0 has a depth of 1000 but only 1 words are left";
        QTest::addRow("huge depth") << header + words({1, ~uint64_t(0), 0x1234}, 8, false) << int(ErrorCode::Truncated)
                                    << "has a depth of 18446744073709551615";
        QTest::addRow("record cut in its count") << header + words({1, 1, 0x1234}, 8, false) + QByteArray(5, '\0')
                                                 << int(ErrorCode::Truncated) << "record 1 at byte 64 ends inside its count";
        QTest::addRow("count too large") << header + words({~uint64_t(0) / 2, 1, 0x1234}, 8, false)
                                         << int(ErrorCode::InvalidInput) << "too large";
        QTest::addRow("java, depth past the end") << words({0, 3, 1, 10000, 0, 1, 1000, 0x1234}, 8, false)
                                                  << int(ErrorCode::Truncated) << "record 0 has a depth of 1000";
        QTest::addRow("endless maps line") << header + words({0, 1, 0}, 8, false) + QByteArray(70000, 'a')
                                           << int(ErrorCode::InvalidInput) << "longer than 65536 bytes";
    }
    void gperftoolsCpuErrors()
    {
        QFETCH(QByteArray, data);
        QFETCH(int, code);
        QFETCH(QString, message);
        auto p = readGperftoolsCpu(bytes(data));
        QVERIFY(!p);
        QCOMPARE(int(p.error().code), code);
        QVERIFY2(QString::fromStdString(p.error().message).contains(message), p.error().message.c_str());
        QVERIFY(p.error().message.starts_with("gperftools cpu profile: "));
    }

    // Read from the raw file, the profile symbolizes like its pprof conversion: `symflame
    // symbolize` of each, then `symflame top`, print the same table, with the fixture's functions.
    void gperftoolsCpuSymbolizes()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QByteArray tops[2];
        const char* inputs[2] = {fixtures::cxxLegacyProfile, fixtures::cxxUnsymbolizedProfile};
        for (int i = 0; i < 2; ++i) {
            const QString out = dir.filePath(QStringLiteral("sym%1.pb.gz").arg(i));
            const QStringList args{"symbolize", QString::fromUtf8(inputs[i]), "-o", out, "--offline"};
            const auto r = runSymflame(args);
            QVERIFY2(r.ok(), qPrintable(r.describe("symflame", args) + QString::fromUtf8(r.err)));
            int rc = -1;
            tops[i] = runSymflame({"top", out, "-n", "30"}, &rc);
            QCOMPARE(rc, 0);
        }
        QVERIFY2(tops[0].contains("multiply") && tops[0].contains("checksumRounds"), tops[0].constData());
        QCOMPARE(tops[0], tops[1]);
    }

    // gperftools' heap profiler's dump of cxxprog (allocation and in-use totals) against pprof.
    void heapFixture()
    {
        ProfileFormat format = ProfileFormat::Unknown;
        auto ours = loadProfile(fixtures::cxxHeapProfile, {}, nullptr, &format);
        QVERIFY2(ours, ours ? "" : ours.error().toString().c_str());
        QCOMPARE(format, ProfileFormat::HeapProfile);
        auto pprof = loadProfile(fixtures::cxxHeapUnsymbolizedProfile);
        QVERIFY(pprof);
        QCOMPARE(ours->sampleTypes.size(), size_t(4)); // alloc_* and inuse_*
        compareProfiles(*ours, *pprof);
    }

    // The header variants pprof accepts, written from the format's facts, against pprof.
    void heapVariants_data()
    {
        QTest::addColumn<QByteArray>("header");
        QTest::addRow("heapprofile") << QByteArray("heap profile:   3:  3072 [   9:  9216] @ heapprofile");
        QTest::addRow("heapprofile, in use only") << QByteArray("heap profile: 3: 3072 [ 3: 3072] @ heapprofile");
        QTest::addRow("heap_v2") << QByteArray("heap profile: 3: 3072 [ 9: 9216] @ heap_v2/524288");
        QTest::addRow("heapz_v2") << QByteArray("heap profile: 3: 3072 [ 0: 0] @ heapz_v2/4096");
        QTest::addRow("heap (2 x rate)") << QByteArray("heap profile: 3: 3072 [ 9: 9216] @ heap/1048576");
        QTest::addRow("growthz") << QByteArray("heap profile: 3: 3072 [ 3: 3072] @ growthz");
        QTest::addRow("fragmentation") << QByteArray("heap profile: 3: 3072 [ 3: 3072] @ fragmentationz");
    }
    void heapVariants()
    {
        QFETCH(QByteArray, header);
        QByteArray data = header + "\n"
            "# a comment\n"
            "     2:     2048 [     5:     5120] @ 0x10510 0x20101 0x10901\n"
            "\n"
            "     1:     1000 [     4:     4096] @ 0x20480 0x10901 0x90000\n"
            "     0:        0 [     1:       16] @ 0x10510 0x20101 0x10901\n"
            "MAPPED_LIBRARIES:\n"
            "00010000-00020000 r-xp 00000000 08:01 1234   /opt/app/bin/server\n"
            "0x20000-0x28000 /opt/app/lib/libwork.so.1 (@1000) 5f3e0a1b2c3d4e5f\n";
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString in = dir.filePath("small.heap");
        writeFile(in, data);
        ProfileFormat format = ProfileFormat::Unknown;
        auto ours = loadProfile(in.toStdString(), {}, nullptr, &format);
        QVERIFY2(ours, ours ? "" : ours.error().toString().c_str());
        QCOMPARE(format, ProfileFormat::HeapProfile);
        compareProfiles(*ours, pprofConversion(in, dir.filePath("small.pb.gz")));
    }

    // A sample line of about 52 KB reads as pprof reads it.
    void heapLongLine()
    {
        const QByteArray data = "heap profile: 1: 1024 [ 2: 2048] @ heapprofile\n1: 1024 [ 2: 2048] @"
            + manyAddresses(6500) + "\nMAPPED_LIBRARIES:\n00010000-00020000 r-xp 00000000 08:01 1234   /opt/app/bin/server\n";
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString in = dir.filePath("long.heap");
        writeFile(in, data);
        auto ours = loadProfile(in.toStdString());
        QVERIFY2(ours, ours ? "" : ours.error().toString().c_str());
        QCOMPARE(ours->sampleStacks.size(), size_t(1));
        QCOMPARE(ours->stack(ours->sampleStacks[0]).size(), size_t(6500));
        compareProfiles(*ours, pprofConversion(in, dir.filePath("long.pb.gz")));
    }

    void heapErrors_data()
    {
        QTest::addColumn<QByteArray>("data");
        QTest::addColumn<QString>("message");
        const QByteArray h = "heap profile: 1: 8 [ 1: 8] @ heapprofile\n";
        QTest::addRow("unknown kind") << QByteArray("heap profile: 1: 8 [ 1: 8] @ heapfoo\n") << "unknown heap profile kind 'heapfoo'";
        QTest::addRow("not a sample") << h + "     1:  8 @ 0x1234\n" << "line 2: not a sample";
        QTest::addRow("count 0, bytes not") << h + "0: 8 [ 0: 0] @ 0x1234\n" << "line 2: inuse count was 0 but inuse bytes was 8";
        QTest::addRow("count out of range") << h + "99999999999999999999: 8 [ 1: 8] @ 0x1\n" << "out of range";
        QTest::addRow("address over 64 bits") << h + "1: 8 [ 1: 8] @ 0x123456789abcdef012\n" << "larger than 64 bits";
        QTest::addRow("endless line") << h + QByteArray(70000, '1') << "line 2: longer than 65536 bytes";
    }
    void heapErrors()
    {
        QFETCH(QByteArray, data);
        QFETCH(QString, message);
        auto p = readHeapProfile(bytes(data));
        QVERIFY(!p);
        QVERIFY2(QString::fromStdString(p.error().message).contains(message), p.error().message.c_str());
        QVERIFY(p.error().message.starts_with("heap profile: "));
    }


    // Every profile of pprof's own test data that `go tool pprof -proto` reads, symflame reads to
    // the same samples (stacks of addresses in the same mappings, values, types), Java's
    // frames compared by name.
    void pprofTestdata_data()
    {
        QTest::addColumn<QString>("file");
        const QStringList files = pprofTestdataProfiles();
        if (files.isEmpty())
            QSKIP("golang-github-google-pprof-dev is not installed (scripts/setup.sh installs it)");
        for (const QString& f : files)
            QTest::newRow(qPrintable(f)) << f;
    }
    void pprofTestdata()
    {
        QFETCH(QString, file);
        const QString in = kPprofTestdata + "/" + file;
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString out = dir.filePath("p.pb.gz");
        const QStringList args{"tool", "pprof", "-proto", "-symbolize=none", "-output=" + out, in};
        const auto r = runProcess(QString::fromUtf8(fixtures::goExecutable), args);
        if (!r.ok())
            QSKIP(qPrintable("go tool pprof does not read it either: " + QString::fromUtf8(r.err)));
        auto pprof = loadProfile(out.toStdString());
        QVERIFY2(pprof, pprof ? "" : pprof.error().toString().c_str());
        auto ours = loadProfile(in.toStdString());
        QVERIFY2(ours, ours ? "" : ours.error().toString().c_str());
        if (pprof->mappings.empty() || file.startsWith(QLatin1String("java."))) {
            // Java's profiles have no memory map: pprof gives their locations one mapping of
            // zeros (start, limit, offset, no file), symflame none; frames compare the same.
            QVERIFY(pprof->mappings.size() <= 1);
            QCOMPARE(ours->mappings.size(), size_t(0));
            QCOMPARE(types(*ours), types(*pprof));
            QCOMPARE(stacksOf(*ours), stacksOf(*pprof));
        } else {
            compareProfiles(*ours, *pprof);
        }
    }

    // Contention, mutex, thread and count profiles written from the formats' facts (header keys,
    // scaling, `same as previous thread`, octal counts), against pprof's conversion.
    void textVariants_data()
    {
        QTest::addColumn<QByteArray>("data");
        QTest::addColumn<int>("format");
        const QByteArray maps = "--- Memory map: ---\n"
                                "00010000-00020000 r-xp 00000000 08:01 1234   /opt/app/bin/server\n"
                                "0x20000-0x28000 /opt/app/lib/libwork.so.1 (@1000) 5f3e0a1b2c3d4e5f\n";
        const QByteArray samples = "  1000  3 @ 0x10510 0x20101 0x10901\n"
                                   "# a comment\n\n"
                                   "   250  1 @ 0x20480 0x10901 0x90000\n"
                                   "   7    2 @ 0x10510 0x20101 0x10901\n";
        const int c = int(ProfileFormat::ContentionProfile), t = int(ProfileFormat::ThreadProfile),
                  g = int(ProfileFormat::GoCountProfile);
        QTest::addRow("contentionz, cycles and period") << "--- contentionz 1 ---\ncycles/second = 2000000000\n"
                                                           "sampling period = 100\nms since reset = 12\n"
                                                           "discarded samples = 0\n" + samples + maps << c;
        QTest::addRow("mutex, hex period, no cycles") << "--- mutex:\nsampling period = 0x10\n" + samples + maps << c;
        QTest::addRow("contention, no header keys") << "--- contention:\n" + samples + maps << c;
        QTest::addRow("contention, no memory map") << "--- contention:\ncycles/second=1000\n" + samples << c;
        QTest::addRow("threads") << QByteArray("# comment\n--- threadz 2 ---\nsome text\n"
                                               "--- Thread 7f01 (name: main/11) stack: ---\n"
                                               "  PC: 0x10510 0x20101 0x10901\n"
                                               "--- Thread 7f02 (name: w/12) stack: ---\n"
                                               "  [same as previous thread]\n"
                                               "--- Thread 7f03 (name: w/13) stack: ---\n"
                                               "  PC:  0x00010511: leaf\n  0x00010510: dup\n  0x20480: caller\n"
                                               "      creator: 0x10901 0x90000\n")
                + maps << t;
        QTest::addRow("threads, no stack trace") << QByteArray("--- Thread 7f01 (name: main/11) stack: ---\n"
                                                             "  PC: 0x10510 0x20101\n"
                                                             "---- no stack trace for 7f02\n") << t;
        // Lines of about 52 KB (the regular expressions once recursed per character and
        // overflowed the stack of the sanitizer build on lines of 13 KB).
        QTest::addRow("contention, a 6500-frame stack")
            << "--- contention:\ncycles/second=1000\n5 1 @" + manyAddresses(6500) + "\n" + samples + maps << c;
        QTest::addRow("goroutine count, a 6500-frame stack")
            << "goroutine profile: total 2\n1 @" + manyAddresses(6500) + "\n1 @ 0x10510\n\n" + maps << g;
        QTest::addRow("threads, a 6500-frame stack") << "--- Thread 7f01 (name: main/11) stack: ---\n  PC:"
                + manyAddresses(6500) + "\n" + maps << t;
        QTest::addRow("contention, a 40 KB mapping path")
            << "--- contention:\n" + samples + "--- Memory map: ---\n00010000-00020000 r-xp 00000000 08:01 1234   /opt/"
                + QByteArray(40000, 'd') + "/server\n" << c;
        QTest::addRow("goroutine count, octal") << "goroutine profile: total 12\n010 @ 0x10510 0x20101 0x10901\n"
                                                   "4 @ 0x20480 0x10901\n\n" + maps << g;
    }
    void textVariants()
    {
        QFETCH(QByteArray, data);
        QFETCH(int, format);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString in = dir.filePath("small.prof");
        writeFile(in, data);
        ProfileFormat detected = ProfileFormat::Unknown;
        auto ours = loadProfile(in.toStdString(), {}, nullptr, &detected);
        QVERIFY2(ours, ours ? "" : ours.error().toString().c_str());
        QCOMPARE(int(detected), format);
        const Profile pprof = pprofConversion(in, dir.filePath("small.pb.gz"));
        QCOMPARE(ours->durationNanos, pprof.durationNanos);
        if (pprof.mappings.empty()) {
            QCOMPARE(types(*ours), types(pprof));
            QCOMPARE(stacksOf(*ours), stacksOf(pprof));
        } else {
            compareProfiles(*ours, pprof);
        }
    }

    void textErrors_data()
    {
        QTest::addColumn<QByteArray>("data");
        QTest::addColumn<QString>("message");
        QTest::addRow("contention: unknown key") << QByteArray("--- mutex:\nfoo = 1\n") << "line 2: unknown header key 'foo'";
        QTest::addRow("java: unknown key") << QByteArray("--- contentionz 1 ---\nfoo = 1\n") << "java profile: line 2: unknown attribute 'foo'";
        QTest::addRow("java: not java") << QByteArray("--- heapz 1 ---\nformat = cpp\n") << "java profile: line 2: format 'cpp' is not java";
        QTest::addRow("java: heap count 0") << QByteArray("--- heapz 1 ---\nformat = java\nresolution = bytes\n 8 0 @ 0x1\n")
                                           << "java profile: line 4: the count (second value) is 0";
        QTest::addRow("contention: bad period") << QByteArray("--- mutex:\nsampling period = 12x\n") << "line 2: sampling period '12x'";
        QTest::addRow("contention: malformed line") << QByteArray("--- mutex:\n12 0x1\n") << "line 2: not a sample";
        QTest::addRow("contention: huge count") << QByteArray("--- mutex:\n99999999999999999999 1 @ 0x1\n") << "out of range";
        QTest::addRow("contention: huge address") << QByteArray("--- mutex:\n1 1 @ 0x123456789abcdef012\n") << "larger than 64 bits";
        QTest::addRow("contention: endless line") << "--- mutex:\n" + QByteArray(70000, '1') << "longer than 65536 bytes";
        QTest::addRow("thread: truncated") << QByteArray("--- threadz 1 ---\n--- Thread 7f01 (name: a/1) stack: ---\n  PC: 0x1 0x2\n")
                                           << "line 3: expected '--- Thread";
        QTest::addRow("thread: header only") << QByteArray("--- threadz 1 ---\n") << "line 1: expected";
        QTest::addRow("thread: huge address") << QByteArray("--- Thread 7f01 (name: a/1) stack: ---\n  PC: 0x11112222333344445\n")
                                              << "larger than 64 bits";
        QTest::addRow("count: malformed line") << QByteArray("goroutine profile: total 1\n1 @ 0x12 foo\n") << "line 2: not a sample";
        QTest::addRow("count: huge count") << QByteArray("goroutine profile: total 1\n99999999999999999999 @ 0x12\n") << "is not a number";
        QTest::addRow("count: octal 9") << QByteArray("goroutine profile: total 1\n09 @ 0x12\n") << "count 09 is not a number";
    }
    void textErrors()
    {
        QFETCH(QByteArray, data);
        QFETCH(QString, message);
        const auto d = bytes(data);
        const auto p = looksLikeGoCountProfile(d) ? readGoCountProfile(d)
            : looksLikeThreadProfile(d)           ? readThreadProfile(d)
            : looksLikeContentionProfile(d)       ? readContentionProfile(d)
                                                  : readJavaProfile(d);
        QVERIFY(!p);
        QVERIFY2(QString::fromStdString(p.error().message).contains(message), p.error().message.c_str());
        // go tool pprof refuses each too.
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString in = dir.filePath("bad.prof");
        writeFile(in, data);
        const QStringList args{"tool", "pprof", "-proto", "-symbolize=none", "-output=" + dir.filePath("o.pb.gz"), in};
        QVERIFY(!runProcess(QString::fromUtf8(fixtures::goExecutable), args).ok());
    }

    // The raw heap profile symbolizes like its pprof conversion.
    void heapSymbolizes()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QByteArray tops[2];
        const char* inputs[2] = {fixtures::cxxHeapProfile, fixtures::cxxHeapUnsymbolizedProfile};
        for (int i = 0; i < 2; ++i) {
            const QString out = dir.filePath(QStringLiteral("sym%1.pb.gz").arg(i));
            const QStringList args{"symbolize", QString::fromUtf8(inputs[i]), "-o", out, "--offline"};
            const auto r = runSymflame(args);
            QVERIFY2(r.ok(), qPrintable(r.describe("symflame", args) + QString::fromUtf8(r.err)));
            int rc = -1;
            tops[i] = runSymflame({"top", out, "-n", "30"}, &rc);
            QCOMPARE(rc, 0);
        }
        QVERIFY2(tops[0].contains("main"), tops[0].constData());
        QCOMPARE(tops[0], tops[1]);
    }
};

QTEST_GUILESS_MAIN(TestLegacy)
#include "tst_legacy.moc"
