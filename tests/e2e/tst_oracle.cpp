// symflame's CLI against real tools on real profiles (the fixtures of tests/fixtures/profiles.cmake and
// the committed demo profile): `symflame top -n 0 --json` against `go tool pprof -top`,
// `symflame collapse` against `go tool pprof -traces`, for every sample type of every fixture,
// and `symflame info --json` against `protoc --decode_raw` (the file as written). pprof's
// text formats, and how its names of unsymbolized and inline frames map to symflame's, are
// described in support/pproforacle.h.
#include "fixtures/fixturepaths.h"
#include "pproforacle.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QObject>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <array>
#include <cmath>

using namespace symflame;
using namespace symflame::oracle;

namespace {

struct Fixture {
    const char* name;
    const char* path;
    QStringList sampleTypes; ///< what the fixture is built to have, in order
};

const QList<Fixture>& fixtureList()
{
    static const QList<Fixture> list{
        {"go-cpu", fixtures::goCpuProfile, {"samples", "cpu"}},
        {"go-heap", fixtures::goHeapProfile, {"alloc_objects", "alloc_space", "inuse_objects", "inuse_space"}},
        {"cxx-sym", fixtures::cxxSymbolizedProfile, {"samples", "cpu"}},
        {"cxx-unsym", fixtures::cxxUnsymbolizedProfile, {"samples", "cpu"}},
        {"demo", fixtures::demoProfile, {"samples", "cpu"}},
    };
    return list;
}

QString pprofProgram()
{
    return QString::fromUtf8(fixtures::goExecutable);
}

/// Runs `go tool pprof ARGS FILE -symbolize=none`; fails the test on a non-zero exit.
#define RUN_PPROF(result, file, ...)                                                                             \
    const QStringList result##Args = QStringList{QStringLiteral("tool"), QStringLiteral("pprof"),               \
                                                 QStringLiteral("-symbolize=none")}                             \
        + QStringList{__VA_ARGS__} + QStringList{QString::fromUtf8(file)};                                      \
    const ProcessResult result = runProcess(pprofProgram(), result##Args);                                      \
    QVERIFY2(result.ok(), qPrintable(result.describe(pprofProgram(), result##Args)))

#define RUN_SYMFLAME(result, ...)                                                                                \
    const QStringList result##Args = QStringList{__VA_ARGS__};                                                  \
    const ProcessResult result = runProcess(QStringLiteral(SYMFLAME_EXECUTABLE), result##Args);                 \
    QVERIFY2(result.ok(), qPrintable(result.describe(QStringLiteral(SYMFLAME_EXECUTABLE), result##Args)))

/// "a; b; c" of what is in one set and not the other, at most 20 entries.
QString difference(const QSet<QString>& a, const QSet<QString>& b)
{
    QStringList out;
    for (const QString& s : a)
        if (!b.contains(s))
            out << s;
    out.sort();
    if (out.size() > 20)
        out = out.mid(0, 20) << QStringLiteral("...");
    return out.join(QStringLiteral("; "));
}

} // namespace

class TestOracle : public QObject {
    Q_OBJECT

    QHash<QString, RawProfile> m_raw; // fixture name -> its -raw dump

    const RawProfile& raw(const QString& fixture) const { return m_raw.find(fixture).value(); }

    static void addSampleTypeRows()
    {
        QTest::addColumn<QString>("fixture");
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("sampleType");
        for (const Fixture& f : fixtureList())
            for (const QString& t : f.sampleTypes)
                QTest::addRow("%s/%s", f.name, qPrintable(t)) << QString::fromUtf8(f.name) << QString::fromUtf8(f.path) << t;
    }

    /// Index of the sample type in the fixture's -raw dump, failing when there is none.
    int sampleIndex(const QString& fixture, const QString& type) const
    {
        const RawProfile& r = raw(fixture);
        for (int i = 0; i < r.sampleTypes.size(); ++i)
            if (r.type(i) == type)
                return i;
        return -1;
    }

private slots:
    void initTestCase()
    {
        for (const Fixture& f : fixtureList()) {
            RUN_PPROF(dump, f.path, QStringLiteral("-raw"));
            QString error;
            auto parsed = parseRaw(dump.out, &error);
            QVERIFY2(parsed, qPrintable(QStringLiteral("%1: %2").arg(QLatin1String(f.path), error)));
            m_raw.insert(QString::fromUtf8(f.name), *parsed);
        }
    }

    // The fixtures have the shape they are built for, so the comparisons below compare
    // something: many samples, every sample type, recursion, inline chains, several mappings.
    void fixtureShape()
    {
        for (const Fixture& f : fixtureList()) {
            const RawProfile& r = raw(QString::fromUtf8(f.name));
            QStringList types;
            for (int i = 0; i < r.sampleTypes.size(); ++i)
                types << r.type(i);
            QCOMPARE(types, f.sampleTypes);
            QVERIFY2(r.samples.size() >= 30,
                     qPrintable(QStringLiteral("%1: only %2 distinct samples").arg(f.name).arg(r.samples.size())));
            if (f.sampleTypes.first() == QLatin1String("samples")) { // CPU profiles: samples/count first
                int64_t count = 0;
                for (const RawSample& s : r.samples)
                    count += s.values[0];
                QVERIFY2(count >= 100, qPrintable(QStringLiteral("%1: only %2 samples").arg(f.name).arg(count)));
            }
        }

        const RawProfile& goCpu = raw(QStringLiteral("go-cpu"));
        QCOMPARE(goCpu.mappings.size(), 1);
        QCOMPARE(goCpu.mappings.first().buildId, QString::fromUtf8(fixtures::goBuildId));
        {
            RUN_PPROF(traces, fixtures::goCpuProfile, QStringLiteral("-traces"), QStringLiteral("-unit=nanoseconds"));
            QString error;
            const auto t = parseTraces(traces.out, &error);
            QVERIFY2(t, qPrintable(error));
            bool deepFib = false, inlineChain = false, walk = false;
            for (const Trace& tr : *t) {
                deepFib = deepFib || tr.frames.count(QStringLiteral("main.fib")) >= 5;
                walk = walk || tr.frames.count(QStringLiteral("main.walkTree")) >= 3;
                int run = 0;
                for (bool inl : tr.inlined) {
                    run = inl ? run + 1 : 0;
                    inlineChain = inlineChain || run >= 2; // e.g. mix <- fillRecords <- sorter
                }
            }
            QVERIFY2(deepFib, "no go-cpu sample with main.fib recursing 5 deep");
            QVERIFY2(walk, "no go-cpu sample with main.walkTree recursing 3 deep");
            QVERIFY2(inlineChain, "no go-cpu sample with a two-level inline chain");
        }

        const RawProfile& cxx = raw(QStringLiteral("cxx-unsym"));
        QSet<QString> files;
        for (const RawMapping& m : cxx.mappings)
            files << QFileInfo(m.file).fileName();
        QVERIFY2(files.contains(QStringLiteral("cxxprog")) && files.contains(QStringLiteral("libsfwork.so"))
                     && cxx.mappings.size() >= 3,
                 qPrintable(QStringList(files.values()).join(QLatin1Char(' '))));
        for (const RawLocation& l : cxx.locations)
            QVERIFY2(l.lines.isEmpty(), "cxx-unsym has a symbolized location");
        {
            RUN_PPROF(top, fixtures::cxxSymbolizedProfile, QStringLiteral("-top"), QStringLiteral("-nodecount=0"),
                      QStringLiteral("-nodefraction=0"), QStringLiteral("-unit=nanoseconds"));
            QVERIFY2(top.out.contains("sfwork::checksumRounds"), top.out.constData());
            QVERIFY2(top.out.contains("(anonymous namespace)::fib"), top.out.constData());
            QVERIFY2(top.out.contains("(inline)"), top.out.constData());
        }
    }

    void mergedTop_data()
    {
        QTest::addColumn<QString>("sampleType");
        QTest::addColumn<QString>("unit");
        QTest::newRow("samples") << QStringLiteral("samples") << QStringLiteral("count");
        QTest::newRow("cpu") << QStringLiteral("cpu") << QStringLiteral("nanoseconds");
    }
    // Two real Go CPU profiles given at once merge as `go tool pprof a b` merges them: the same
    // functions with the same flat and cum, the same total. Profiles of other sample types are
    // refused, by both.
    void mergedTop()
    {
        QFETCH(QString, sampleType);
        QFETCH(QString, unit);
        const QString a = QString::fromUtf8(fixtures::goCpuProfile), b = QString::fromUtf8(fixtures::demoProfile);
        const QStringList pprofArgs { QStringLiteral("tool"), QStringLiteral("pprof"), QStringLiteral("-symbolize=none"),
            QStringLiteral("-top"), QStringLiteral("-nodecount=0"), QStringLiteral("-nodefraction=0"),
            QStringLiteral("-sample_index=") + sampleType, QStringLiteral("-unit=") + unit, a, b };
        const ProcessResult pprof = runProcess(pprofProgram(), pprofArgs);
        QVERIFY2(pprof.ok(), qPrintable(pprof.describe(pprofProgram(), pprofArgs)));
        QString error;
        const auto expected = parseTop(pprof.out, &error);
        QVERIFY2(expected, qPrintable(error));
        QVERIFY(!expected->dropped);
        QHash<QString, QPair<int64_t, int64_t>> want;
        for (const TopRow& row : expected->rows)
            want.insert(row.name, { row.flat, row.cum });

        RUN_SYMFLAME(ours, QStringLiteral("top"), a, b, QStringLiteral("-n"), QStringLiteral("0"),
            QStringLiteral("--sample-type"), sampleType, QStringLiteral("--json"));
        const QJsonObject obj = QJsonDocument::fromJson(ours.out).object();
        QCOMPARE(obj.value(QLatin1String("total")).toInteger(), expected->total);
        QHash<QString, QPair<int64_t, int64_t>> got;
        for (const QJsonValue& v : obj.value(QLatin1String("functions")).toArray()) {
            const QJsonObject e = v.toObject();
            got.insert(e.value(QLatin1String("name")).toString(),
                { e.value(QLatin1String("flat")).toInteger(), e.value(QLatin1String("cum")).toInteger() });
        }
        QVERIFY(want.size() > 50);
        QCOMPARE(got, want);
        // Each file alone totals less: the merge is the sum.
        RUN_SYMFLAME(first, QStringLiteral("top"), a, QStringLiteral("--sample-type"), sampleType, QStringLiteral("--json"));
        RUN_SYMFLAME(second, QStringLiteral("top"), b, QStringLiteral("--sample-type"), sampleType, QStringLiteral("--json"));
        QCOMPARE(QJsonDocument::fromJson(first.out).object().value(QLatin1String("total")).toInteger()
                + QJsonDocument::fromJson(second.out).object().value(QLatin1String("total")).toInteger(),
            expected->total);

        const QString heap = QString::fromUtf8(fixtures::goHeapProfile);
        const ProcessResult refused = runProcess(QStringLiteral(SYMFLAME_EXECUTABLE), { QStringLiteral("top"), a, heap });
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(refused.err.startsWith(("symflame: " + heap + ": cannot merge it with " + a).toUtf8()), refused.err.constData());
        const ProcessResult pprofRefused = runProcess(pprofProgram(),
            { QStringLiteral("tool"), QStringLiteral("pprof"), QStringLiteral("-symbolize=none"), QStringLiteral("-top"), a, heap });
        QVERIFY(!pprofRefused.ok()); // pprof refuses the pair too
    }

    void labelViews_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QStringList>("pprofOptions");
        QTest::addColumn<QStringList>("ourOptions");
        QString file = QString::fromUtf8(fixtures::goLabelsProfile);
        const auto row = [&](const char* name, QStringList pprof, QStringList ours) {
            QTest::newRow(name) << file << pprof << ours;
        };
        row("tagroot worker,stage", { "-tagroot=worker,stage" }, { "--group-by", "worker,stage" });
        row("tagleaf stage,worker", { "-tagleaf=stage,worker" }, { "--group-leaf", "stage,worker" });
        row("tagroot and tagleaf", { "-tagroot=worker", "-tagleaf=stage" }, { "--group-by", "worker", "--group-leaf", "stage" });
        row("tagfocus key=value", { "-tagfocus=worker=main" }, { "--tag-focus", "worker=main" });
        row("tagfocus key:value regexps", { "-tagfocus=worker:ma,stage:(fib|tree)" }, { "--tag-focus", "worker:ma,stage:(fib|tree)" });
        row("tagfocus any of two values", { "-tagfocus=worker=sorter,churner" }, { "--tag-focus", "worker=sorter,churner" });
        row("tagignore", { "-tagignore=stage=fib|tree" }, { "--tag-ignore", "stage=fib|tree" });
        row("tagroot with tagfocus", { "-tagroot=stage", "-tagfocus=worker=main" },
            { "--group-by", "stage", "--tag-focus", "worker=main" });
        // The gperftools profile, labelled by pproflabel: a key with two values on some samples,
        // numeric labels in bytes filtered by ranges with units.
        file = QString::fromUtf8(fixtures::cxxLabelsProfile);
        row("C++: tagroot phase,tag", { "-tagroot=phase,tag" }, { "--group-by", "phase,tag" });
        row("C++: tagleaf tag", { "-tagleaf=tag" }, { "--group-leaf", "tag" });
        row("C++: tagfocus bytes range", { "-tagfocus=bytes=2kb:4kb" }, { "--tag-focus", "bytes=2kb:4kb" });
        row("C++: tagfocus bytes at least", { "-tagfocus=bytes=3kb:" }, { "--tag-focus", "bytes=3kb:" });
        row("C++: tagfocus second value", { "-tagfocus=tag=b" }, { "--tag-focus", "tag=b" });
        row("C++: tagignore with tagroot", { "-tagignore=phase=io", "-tagroot=phase" },
            { "--tag-ignore", "phase=io", "--group-by", "phase" });
    }
    // A real Go CPU profile whose samples carry pprof.Do labels (worker, stage; the runtime's own
    // samples none): symflame's label options against pprof's -tagroot, -tagleaf, -tagfocus and
    // -tagignore, function for function in -top and stack for stack in -traces.
    void labelViews()
    {
        QFETCH(QString, file);
        QFETCH(QStringList, pprofOptions);
        QFETCH(QStringList, ourOptions);
        const QByteArray path = file.toUtf8();
        const QStringList unit { QStringLiteral("-sample_index=cpu"), QStringLiteral("-unit=nanoseconds") };

        RUN_PPROF(top, path.constData(),
            QStringList { QStringLiteral("-top"), QStringLiteral("-nodecount=0"), QStringLiteral("-nodefraction=0") } + unit
                + pprofOptions);
        QString error;
        const auto expected = parseTop(top.out, &error);
        QVERIFY2(expected, qPrintable(error));
        // Frames without a function: pprof merges a binary's into one "[binary]" node, symflame
        // keeps "binary+0xOFFSET" apart (the top oracle above matches them through -addresses);
        // here they are left out of the table and named pprof's way in the stacks.
        static const QRegularExpression unsymbolized(QStringLiteral("^(.+)\\+0x[0-9a-f]+$"));
        QHash<QString, QPair<int64_t, int64_t>> want;
        // ("<unknown>" is a group frame of samples without the label here: kept.)
        for (const TopRow& r : expected->rows)
            if (!isMergedUnsymbolizedName(r.name) || r.name == QLatin1String("<unknown>"))
                want.insert(r.name, { r.flat, r.cum });
        RUN_SYMFLAME(ours, QStringList { QStringLiteral("top"), file, QStringLiteral("-n"), QStringLiteral("0"),
                               QStringLiteral("--sample-type"), QStringLiteral("cpu"), QStringLiteral("--json") }
                + ourOptions);
        const QJsonObject obj = QJsonDocument::fromJson(ours.out).object();
        QCOMPARE(obj.value(QLatin1String("total")).toInteger(), expected->total);
        QHash<QString, QPair<int64_t, int64_t>> got;
        for (const QJsonValue& v : obj.value(QLatin1String("functions")).toArray()) {
            const QJsonObject e = v.toObject();
            if (!unsymbolized.match(e.value(QLatin1String("name")).toString()).hasMatch())
                got.insert(e.value(QLatin1String("name")).toString(),
                    { e.value(QLatin1String("flat")).toInteger(), e.value(QLatin1String("cum")).toInteger() });
        }
        QVERIFY(want.size() > 5);
        QCOMPARE(got, want);

        // -traces: one block per sample, leaf first; pprof lists the samples' own labels above
        // the frames, which folded stacks don't carry.
        RUN_PPROF(traces, path.constData(), QStringList { QStringLiteral("-traces") } + unit + pprofOptions);
        const auto t = parseTraces(traces.out, &error);
        QVERIFY2(t, qPrintable(error));
        QHash<QString, int64_t> stacks;
        for (const Trace& trace : *t) {
            QStringList rootFirst;
            for (qsizetype i = trace.frames.size() - 1; i >= 0; --i)
                rootFirst << trace.frames[i];
            stacks[rootFirst.join(QLatin1Char(';'))] += trace.value;
        }
        for (auto it = stacks.begin(); it != stacks.end();)
            it = it.value() == 0 ? stacks.erase(it) : std::next(it);
        QVERIFY(!stacks.isEmpty());
        RUN_SYMFLAME(folded, QStringList { QStringLiteral("collapse"), file, QStringLiteral("--sample-type"),
                                 QStringLiteral("cpu") } + ourOptions);
        QHash<QString, int64_t> ourStacks;
        for (const QByteArray& line : folded.out.split('\n')) {
            if (line.isEmpty())
                continue;
            const qsizetype space = line.lastIndexOf(' ');
            QStringList frames = QString::fromUtf8(line.left(space)).split(QLatin1Char(';'));
            for (QString& f : frames)
                if (const auto m = unsymbolized.match(f); m.hasMatch())
                    f = QLatin1Char('[') + QFileInfo(m.captured(1)).fileName() + QLatin1Char(']');
            ourStacks[frames.join(QLatin1Char(';'))] += line.mid(space + 1).toLongLong();
        }
        const QSet<QString> a(stacks.keyBegin(), stacks.keyEnd()), b(ourStacks.keyBegin(), ourStacks.keyEnd());
        QVERIFY2(a == b, qPrintable(QStringLiteral("only pprof: %1\nonly symflame: %2").arg(difference(a, b), difference(b, a))));
        QCOMPARE(ourStacks, stacks);
    }

    void top_data() { addSampleTypeRows(); }
    void top()
    {
        QFETCH(QString, fixture);
        QFETCH(QString, path);
        QFETCH(QString, sampleType);
        const RawProfile& r = raw(fixture);
        const int index = sampleIndex(fixture, sampleType);
        QVERIFY(index >= 0);
        const QByteArray file = path.toUtf8();
        const QStringList common{QStringLiteral("-top"), QStringLiteral("-nodecount=0"), QStringLiteral("-nodefraction=0"),
                                 QStringLiteral("-sample_index=%1").arg(index), QStringLiteral("-unit=") + r.unit(index)};

        // Functions from the default granularity; frames without a function from -addresses,
        // where each (mapping, address) is a node of its own, as in symflame.
        RUN_PPROF(byFunction, file.constData(), common + QStringList{QStringLiteral("-functions")});
        RUN_PPROF(byAddress, file.constData(), common + QStringList{QStringLiteral("-addresses")});
        QString error;
        const auto fn = parseTop(byFunction.out, &error);
        QVERIFY2(fn, qPrintable(error));
        const auto ad = parseTop(byAddress.out, &error);
        QVERIFY2(ad, qPrintable(error));
        QVERIFY2(!fn->dropped && !ad->dropped, "pprof dropped nodes despite -nodefraction=0");
        QCOMPARE(ad->total, fn->total);

        QHash<QString, QPair<int64_t, int64_t>> expected;
        for (const TopRow& row : fn->rows) {
            if (isMergedUnsymbolizedName(row.name))
                continue;
            QVERIFY2(!expected.contains(row.name), qPrintable(row.name));
            expected.insert(row.name, {row.flat, row.cum});
        }
        for (const TopRow& row : ad->rows) {
            const auto name = symflameNameOfUnsymbolized(row.name, r, &error);
            QVERIFY2(error.isEmpty(), qPrintable(error));
            if (!name)
                continue;
            QVERIFY2(!expected.contains(*name), qPrintable(*name));
            expected.insert(*name, {row.flat, row.cum});
        }
        QVERIFY(!expected.isEmpty());

        RUN_SYMFLAME(ours, QStringLiteral("top"), path, QStringLiteral("-n"), QStringLiteral("0"),
                     QStringLiteral("--sample-type"), sampleType, QStringLiteral("--json"));
        QJsonParseError jsonError;
        const QJsonDocument doc = QJsonDocument::fromJson(ours.out, &jsonError);
        QVERIFY2(doc.isObject(), qPrintable(jsonError.errorString()));
        const QJsonObject obj = doc.object();
        QCOMPARE(obj.value(QLatin1String("sample_type")).toString(), sampleType);
        QCOMPARE(obj.value(QLatin1String("unit")).toString(), r.unit(index));
        QCOMPARE(obj.value(QLatin1String("total")).toInteger(), fn->total);

        QHash<QString, QPair<int64_t, int64_t>> actual;
        for (const QJsonValue& v : obj.value(QLatin1String("functions")).toArray()) {
            const QJsonObject e = v.toObject();
            const QString name = e.value(QLatin1String("name")).toString();
            QVERIFY2(!actual.contains(name), qPrintable(QStringLiteral("symflame lists %1 twice").arg(name)));
            actual.insert(name, {e.value(QLatin1String("flat")).toInteger(), e.value(QLatin1String("cum")).toInteger()});
        }

        const QSet<QString> expectedNames(expected.keyBegin(), expected.keyEnd());
        const QSet<QString> actualNames(actual.keyBegin(), actual.keyEnd());
        QVERIFY2(expectedNames == actualNames,
                 qPrintable(QStringLiteral("only pprof: %1\nonly symflame: %2")
                                .arg(difference(expectedNames, actualNames), difference(actualNames, expectedNames))));
        QStringList mismatches;
        for (auto it = expected.cbegin(); it != expected.cend(); ++it) {
            const auto got = actual.value(it.key());
            if (got != it.value())
                mismatches << QStringLiteral("%1: pprof flat %2 cum %3, symflame flat %4 cum %5")
                                  .arg(it.key())
                                  .arg(it.value().first)
                                  .arg(it.value().second)
                                  .arg(got.first)
                                  .arg(got.second);
        }
        QVERIFY2(mismatches.isEmpty(), qPrintable(mismatches.join(QLatin1Char('\n'))));
    }

    // `symflame top NEW --diff-base BASE` against `go tool pprof -top -diff_base BASE NEW`, with
    // and without -normalize: flat and cum per function equal, the total (BASE's) too. Two real
    // Go CPU profiles of different programs, so that many functions changed, many are in one
    // of them only and the runtime's are in both.
    // Both pairs have the sample types samples/count and cpu/nanoseconds, in that order (the
    // demo's -raw dump gives their indexes and units): two Go programs, and two builds of
    // cxxprog (every address moved, fib changed) symbolized by upstream pprof.
    void diffTop_data()
    {
        QTest::addColumn<QString>("base");
        QTest::addColumn<QString>("next");
        QTest::addColumn<int>("minChanged"); // functions that grew, and that shrank, at least
        QTest::addColumn<QString>("sampleType");
        QTest::addColumn<bool>("normalize");
        const struct {
            const char* name;
            const char* base;
            const char* next;
            int minChanged;
        } pairs[] = { { "go", fixtures::goCpuProfile, fixtures::demoProfile, 20 },
            { "cxx-builds", fixtures::cxxBaseSymbolized, fixtures::cxxRebuiltSymbolized, 3 } };
        for (const auto& pair : pairs)
            for (const char* type : { "samples", "cpu" })
                for (bool normalize : { false, true })
                    QTest::addRow("%s/%s%s", pair.name, type, normalize ? "/normalize" : "")
                        << QString::fromUtf8(pair.base) << QString::fromUtf8(pair.next) << pair.minChanged
                        << QString::fromLatin1(type) << normalize;
    }
    void diffTop()
    {
        QFETCH(QString, base);
        QFETCH(QString, next);
        QFETCH(int, minChanged);
        QFETCH(QString, sampleType);
        QFETCH(bool, normalize);
        const int index = sampleIndex(QStringLiteral("demo"), sampleType);
        QVERIFY(index >= 0);
        QStringList pprofArgs { QStringLiteral("tool"), QStringLiteral("pprof"), QStringLiteral("-symbolize=none"),
            QStringLiteral("-top"), QStringLiteral("-nodecount=0"), QStringLiteral("-nodefraction=0"),
            QStringLiteral("-functions"), QStringLiteral("-sample_index=%1").arg(index),
            QStringLiteral("-unit=") + raw(QStringLiteral("demo")).unit(index), QStringLiteral("-diff_base"), base };
        if (normalize)
            pprofArgs << QStringLiteral("-normalize");
        pprofArgs << next;
        const ProcessResult pprof = runProcess(pprofProgram(), pprofArgs);
        QVERIFY2(pprof.ok(), qPrintable(pprof.describe(pprofProgram(), pprofArgs)));
        QString error;
        const auto table = parseTop(pprof.out, &error);
        QVERIFY2(table, qPrintable(error));
        QHash<QString, QPair<int64_t, int64_t>> expected;
        for (const TopRow& row : table->rows)
            if (!isMergedUnsymbolizedName(row.name) && (row.flat != 0 || row.cum != 0))
                expected.insert(row.name, { row.flat, row.cum });
        int negative = 0, positive = 0;
        for (const auto& v : expected)
            (v.second < 0 ? negative : positive) += v.second != 0;
        // Normalized, the builds' fib (7 times its base) scales the rest of the base up: then
        // everything may shrink, and only the number of changes says the comparison compares.
        QVERIFY2(normalize ? negative + positive >= 2 * minChanged : negative >= minChanged && positive >= minChanged,
            qPrintable(QStringLiteral("%1 functions grew and %2 shrank: the comparison can't tell").arg(positive).arg(negative)));

        QStringList ourArgs { QStringLiteral("top"), next, QStringLiteral("--diff-base"), base, QStringLiteral("-n"),
            QStringLiteral("0"), QStringLiteral("--sample-type"), sampleType, QStringLiteral("--json") };
        if (normalize)
            ourArgs << QStringLiteral("--normalize");
        const ProcessResult ours = runProcess(QStringLiteral(SYMFLAME_EXECUTABLE), ourArgs);
        QVERIFY2(ours.ok(), qPrintable(ours.describe(QStringLiteral(SYMFLAME_EXECUTABLE), ourArgs)));
        const QJsonObject obj = QJsonDocument::fromJson(ours.out).object();
        QCOMPARE(obj.value(QLatin1String("total")).toInteger(), table->total);
        QHash<QString, QPair<int64_t, int64_t>> actual;
        for (const QJsonValue& v : obj.value(QLatin1String("functions")).toArray()) {
            const QJsonObject e = v.toObject();
            const QString name = e.value(QLatin1String("name")).toString();
            if (name.contains(QLatin1Char('+')) && name.contains(QStringLiteral("0x")))
                continue; // an unsymbolized frame: pprof merges those per mapping
            actual.insert(name, { e.value(QLatin1String("flat")).toInteger(), e.value(QLatin1String("cum")).toInteger() });
        }
        const QSet<QString> expectedNames(expected.keyBegin(), expected.keyEnd());
        const QSet<QString> actualNames(actual.keyBegin(), actual.keyEnd());
        QVERIFY2(expectedNames == actualNames,
            qPrintable(QStringLiteral("only pprof: %1\nonly symflame: %2")
                           .arg(difference(expectedNames, actualNames), difference(actualNames, expectedNames))));
        QStringList mismatches;
        for (auto it = expected.cbegin(); it != expected.cend(); ++it)
            if (actual.value(it.key()) != it.value())
                mismatches << QStringLiteral("%1: pprof %2/%3, symflame %4/%5")
                                  .arg(it.key())
                                  .arg(it.value().first)
                                  .arg(it.value().second)
                                  .arg(actual.value(it.key()).first)
                                  .arg(actual.value(it.key()).second);
        QVERIFY2(mismatches.isEmpty(), qPrintable(mismatches.join(QLatin1Char('\n'))));

        // `symflame diff top`: the same changes, with each side's own flat and cum (the base's
        // as `symflame top BASE` lists them, checked against pprof by top()).
        QStringList diffArgs { QStringLiteral("diff"), QStringLiteral("top"), base, next, QStringLiteral("-n"),
            QStringLiteral("0"), QStringLiteral("--sample-type"), sampleType, QStringLiteral("--json") };
        if (normalize)
            diffArgs << QStringLiteral("--normalize");
        const ProcessResult diff = runProcess(QStringLiteral(SYMFLAME_EXECUTABLE), diffArgs);
        QVERIFY2(diff.ok(), qPrintable(diff.describe(QStringLiteral(SYMFLAME_EXECUTABLE), diffArgs)));
        RUN_SYMFLAME(baseTop, QStringLiteral("top"), base, QStringLiteral("-n"), QStringLiteral("0"),
            QStringLiteral("--sample-type"), sampleType, QStringLiteral("--json"));
        QHash<QString, QPair<int64_t, int64_t>> baseSide;
        for (const QJsonValue& v : QJsonDocument::fromJson(baseTop.out).object().value(QLatin1String("functions")).toArray())
            baseSide.insert(v[QLatin1String("name")].toString(), { v[QLatin1String("flat")].toInteger(), v[QLatin1String("cum")].toInteger() });
        const QJsonObject diffObj = QJsonDocument::fromJson(diff.out).object();
        QCOMPARE(diffObj.value(QLatin1String("base_total")).toInteger(), table->total);
        int compared = 0;
        for (const QJsonValue& v : diffObj.value(QLatin1String("functions")).toArray()) {
            const QString name = v[QLatin1String("name")].toString();
            const QJsonObject flat = v[QLatin1String("flat")].toObject(), cum = v[QLatin1String("cum")].toObject();
            QCOMPARE(flat[QLatin1String("new")].toInteger() - flat[QLatin1String("base")].toInteger(), flat[QLatin1String("delta")].toInteger());
            QCOMPARE(cum[QLatin1String("new")].toInteger() - cum[QLatin1String("base")].toInteger(), cum[QLatin1String("delta")].toInteger());
            QCOMPARE(flat[QLatin1String("base")].toInteger(), baseSide.value(name).first);
            QCOMPARE(cum[QLatin1String("base")].toInteger(), baseSide.value(name).second);
            if (!expected.contains(name))
                continue; // an unsymbolized frame
            QCOMPARE(flat[QLatin1String("delta")].toInteger(), expected.value(name).first);
            QCOMPARE(cum[QLatin1String("delta")].toInteger(), expected.value(name).second);
            ++compared;
        }
        QCOMPARE(compared, int(expected.size()));
    }

    // `symflame diff collapse`: every stack of either side with its value on each, as `symflame
    // collapse` gives them for each file alone (checked against pprof -traces by collapse()).
    void diffCollapse()
    {
        const QString base = QString::fromUtf8(fixtures::goCpuProfile), next = QString::fromUtf8(fixtures::demoProfile);
        const auto folded = [](const QByteArray& text) {
            QHash<QString, int64_t> out;
            for (const QByteArray& line : text.split('\n'))
                if (const qsizetype sp = line.lastIndexOf(' '); sp > 0)
                    out[QString::fromUtf8(line.left(sp))] += line.mid(sp + 1).toLongLong();
            return out;
        };
        RUN_SYMFLAME(baseStacks, QStringLiteral("collapse"), base, QStringLiteral("--sample-type"), QStringLiteral("cpu"));
        RUN_SYMFLAME(newStacks, QStringLiteral("collapse"), next, QStringLiteral("--sample-type"), QStringLiteral("cpu"));
        RUN_SYMFLAME(both, QStringLiteral("diff"), QStringLiteral("collapse"), base, next, QStringLiteral("--sample-type"), QStringLiteral("cpu"));
        const auto b = folded(baseStacks.out), n = folded(newStacks.out);
        QSet<QString> seen;
        for (const QByteArray& line : both.out.split('\n')) {
            if (line.isEmpty())
                continue;
            const QList<QByteArray> parts = line.split(' ');
            QVERIFY2(parts.size() >= 3, line.constData());
            const QString stack = QString::fromUtf8(line.left(line.size() - parts.last().size() - parts[parts.size() - 2].size() - 2));
            QCOMPARE(parts[parts.size() - 2].toLongLong(), b.value(stack));
            QCOMPARE(parts.last().toLongLong(), n.value(stack));
            seen << stack;
        }
        QSet<QString> all(b.keyBegin(), b.keyEnd());
        all.unite(QSet<QString>(n.keyBegin(), n.keyEnd()));
        QCOMPARE(seen, all);
        QVERIFY(b.size() > 20 && n.size() > 20);
    }

    // Two builds of one program (cxxprog, and cxxprog rebuilt with every function at another
    // address and fib doing more work) on the same fixed work, each symbolized by
    // symflame, compared: frames meet by function, so each function's base and new flat equal
    // its sums over pprof's traces of each side; every function but fib is unchanged within the
    // sampling noise (5 standard deviations of the counts), fib grew beyond it.
    void diffTwoBuilds()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString base = dir.filePath(QStringLiteral("base.pb.gz")), next = dir.filePath(QStringLiteral("rebuilt.pb.gz"));
        RUN_SYMFLAME(symbolizeBase, QStringLiteral("symbolize"), QString::fromUtf8(fixtures::cxxBaseProfile),
            QStringLiteral("-o"), base);
        RUN_SYMFLAME(symbolizeNew, QStringLiteral("symbolize"), QString::fromUtf8(fixtures::cxxRebuiltProfile),
            QStringLiteral("-o"), next);
        // The builds share no function address: the program's own functions (nm) moved.
        const auto functionsOf = [](const char* binary) {
            QHash<QString, QString> out; // name -> address
            const ProcessResult r = runProcess(QStringLiteral("nm"), { QStringLiteral("--defined-only"), QString::fromUtf8(binary) });
            for (const QByteArray& line : r.out.split('\n')) {
                const QList<QByteArray> f = line.split(' ');
                if (f.size() == 3 && (f[1] == "t" || f[1] == "T") && f[2].contains("_GLOBAL__N_"))
                    out.insert(QString::fromUtf8(f[2]), QString::fromUtf8(f[0]));
            }
            return out;
        };
        const auto before = functionsOf(fixtures::cxxBinary), after = functionsOf(fixtures::cxxRebuiltBinary);
        QVERIFY2(before.size() >= 3 && before.keys().size() == after.keys().size(), "nm lists other functions");
        for (auto it = before.begin(); it != before.end(); ++it)
            QVERIFY2(after.value(it.key()) != it.value(), qPrintable(it.key() + QStringLiteral(" did not move")));

        // Each side's flat per function, summed by the test over pprof's traces (sample counts).
        const auto flatOf = [&](const QString& path, QHash<QString, int64_t>* flat) {
            const QStringList args { QStringLiteral("tool"), QStringLiteral("pprof"), QStringLiteral("-symbolize=none"),
                QStringLiteral("-traces"), QStringLiteral("-sample_index=0"), QStringLiteral("-unit=count"), path };
            const ProcessResult r = runProcess(pprofProgram(), args);
            QVERIFY2(r.ok(), qPrintable(r.describe(pprofProgram(), args)));
            QString error;
            const auto traces = parseTraces(r.out, &error);
            QVERIFY2(traces, qPrintable(error));
            for (const Trace& t : *traces)
                if (!t.frames.isEmpty())
                    (*flat)[t.frames.first()] += t.value;
        };
        QHash<QString, int64_t> baseFlat, newFlat;
        flatOf(base, &baseFlat);
        flatOf(next, &newFlat);

        RUN_SYMFLAME(ours, QStringLiteral("diff"), QStringLiteral("top"), base, next, QStringLiteral("-n"),
            QStringLiteral("0"), QStringLiteral("--sample-type"), QStringLiteral("samples"), QStringLiteral("--json"));
        const QJsonArray functions = QJsonDocument::fromJson(ours.out).object().value(QLatin1String("functions")).toArray();
        QHash<QString, QPair<int64_t, int64_t>> flat; // base, new
        for (const QJsonValue& v : functions) {
            const QJsonObject f = v.toObject(), o = f.value(QLatin1String("flat")).toObject();
            flat.insert(f.value(QLatin1String("name")).toString(),
                { o.value(QLatin1String("base")).toInteger(), o.value(QLatin1String("new")).toInteger() });
        }
        QStringList mismatches, changed;
        QSet<QString> names(baseFlat.keyBegin(), baseFlat.keyEnd());
        names.unite(QSet<QString>(newFlat.keyBegin(), newFlat.keyEnd()));
        int checked = 0;
        for (const QString& name : names) {
            const int64_t b = baseFlat.value(name), n = newFlat.value(name);
            const bool isFib = name.contains(QStringLiteral("::fib("));
            // diff top lists the changed functions only
            const auto row = flat.value(name, b == n ? QPair<int64_t, int64_t> { b, n } : QPair<int64_t, int64_t> { -1, -1 });
            if (row.first != b || row.second != n)
                mismatches << QStringLiteral("%1: pprof %2 -> %3, symflame %4 -> %5").arg(name).arg(b).arg(n).arg(row.first).arg(row.second);
            const double noise = 5.0 * std::sqrt(double(b + n)) + 2.0;
            if (isFib ? !(double(n - b) > noise) : std::abs(double(n - b)) > noise)
                changed << QStringLiteral("%1: %2 -> %3 (noise %4)").arg(name).arg(b).arg(n).arg(noise, 0, 'f', 1);
            checked += b + n >= 20;
        }
        QVERIFY2(mismatches.isEmpty(), qPrintable(mismatches.join(QLatin1Char('\n'))));
        QVERIFY2(changed.isEmpty(), qPrintable(QStringLiteral("not as built:\n") + changed.join(QLatin1Char('\n'))));
        QVERIFY2(checked >= 4, qPrintable(QStringLiteral("only %1 functions with 20 samples or more").arg(checked)));
        QVERIFY(std::any_of(names.begin(), names.end(), [](const QString& n) { return n.contains(QStringLiteral("::fib(")); }));

        // --match line: what grew is the line the rebuild added to fib (its spin loop), the
        // largest change of all; --match file: fib named with its file, the change it had.
        QFile source(QString::fromUtf8(fixtures::cxxMainSource));
        QVERIFY(source.open(QIODevice::ReadOnly));
        int spinLine = 0;
        for (int n = 1; !source.atEnd(); ++n)
            if (source.readLine().contains("volatile int spin"))
                spinLine = n;
        QVERIFY(spinLine > 0);
        const auto changes = [&](const QString& match) {
            QList<QPair<QString, int64_t>> out; // name, flat delta; as listed (largest change first)
            const QStringList args { QStringLiteral("diff"), QStringLiteral("top"), base, next, QStringLiteral("-n"), QStringLiteral("0"),
                QStringLiteral("--sample-type"), QStringLiteral("samples"), QStringLiteral("--match"), match, QStringLiteral("--json") };
            const ProcessResult r = runProcess(QStringLiteral(SYMFLAME_EXECUTABLE), args);
            if (!r.ok())
                qWarning("%s", qPrintable(r.describe(QStringLiteral(SYMFLAME_EXECUTABLE), args)));
            for (const QJsonValue& v : QJsonDocument::fromJson(r.out).object().value(QLatin1String("functions")).toArray())
                out << qMakePair(v.toObject().value(QLatin1String("name")).toString(),
                    v.toObject().value(QLatin1String("flat")).toObject().value(QLatin1String("delta")).toInteger());
            return out;
        };
        const auto byLine = changes(QStringLiteral("line"));
        QVERIFY(!byLine.isEmpty());
        QCOMPARE(byLine.first().first, QStringLiteral("(anonymous namespace)::fib(int) (main.cpp:%1)").arg(spinLine));
        const auto byFile = changes(QStringLiteral("file"));
        const QString fibName = QStringLiteral("(anonymous namespace)::fib(int) (main.cpp)");
        const auto fib = std::find_if(byFile.begin(), byFile.end(), [&](const auto& row) { return row.first == fibName; });
        QVERIFY2(fib != byFile.end(), "no fib (main.cpp) row with --match file");
        int64_t fibDelta = 0;
        for (auto it = newFlat.begin(); it != newFlat.end(); ++it)
            if (it.key().contains(QStringLiteral("::fib(")))
                fibDelta += it.value() - baseFlat.value(it.key());
        QCOMPARE(fib->second, fibDelta);
        const ProcessResult wrong = runProcess(QStringLiteral(SYMFLAME_EXECUTABLE),
            { QStringLiteral("diff"), QStringLiteral("top"), base, next, QStringLiteral("--match"), QStringLiteral("address") });
        QCOMPARE(wrong.exitCode, 64);
    }

    // A profile compared with itself changes nowhere; profiles without the same sample types
    // can't be compared, and say so.
    void diffTopSelfAndIncompatible()
    {
        const QString cpu = QString::fromUtf8(fixtures::goCpuProfile);
        RUN_SYMFLAME(self, QStringLiteral("top"), cpu, QStringLiteral("--diff-base"), cpu, QStringLiteral("-n"),
            QStringLiteral("0"), QStringLiteral("--json"));
        const QJsonObject obj = QJsonDocument::fromJson(self.out).object();
        QVERIFY(obj.value(QLatin1String("total")).toInteger() > 0);
        QCOMPARE(obj.value(QLatin1String("functions")).toArray().size(), 0);
        const QStringList args { QStringLiteral("top"), cpu, QStringLiteral("--diff-base"), QString::fromUtf8(fixtures::goHeapProfile) };
        const ProcessResult bad = runProcess(QStringLiteral(SYMFLAME_EXECUTABLE), args);
        QVERIFY(bad.finished && !bad.crashed && bad.exitCode != 0);
        QVERIFY2(bad.err.contains("cannot be compared"), bad.err.constData());
        const ProcessResult lone = runProcess(QStringLiteral(SYMFLAME_EXECUTABLE), { QStringLiteral("top"), cpu, QStringLiteral("--normalize") });
        QCOMPARE(lone.exitCode, 64);
        QVERIFY2(lone.err.contains("--diff-base"), lone.err.constData());
    }

    void collapse_data() { addSampleTypeRows(); }
    void collapse()
    {
        QFETCH(QString, fixture);
        QFETCH(QString, path);
        QFETCH(QString, sampleType);
        const RawProfile& r = raw(fixture);
        const int index = sampleIndex(fixture, sampleType);
        QVERIFY(index >= 0);
        const QByteArray file = path.toUtf8();
        const QStringList common{QStringLiteral("-traces"), QStringLiteral("-sample_index=%1").arg(index),
                                 QStringLiteral("-unit=") + r.unit(index)};

        // Names from -functions; a frame without a function named there "[binary]" takes its
        // address from the same frame of the same sample at -addresses.
        RUN_PPROF(byFunction, file.constData(), common + QStringList{QStringLiteral("-functions")});
        RUN_PPROF(byAddress, file.constData(), common + QStringList{QStringLiteral("-addresses")});
        QString error;
        const auto fn = parseTraces(byFunction.out, &error);
        QVERIFY2(fn, qPrintable(error));
        const auto ad = parseTraces(byAddress.out, &error);
        QVERIFY2(ad, qPrintable(error));
        QCOMPARE(ad->size(), fn->size());
        QVERIFY(!fn->isEmpty());

        QHash<QString, int64_t> expected;
        int unsymbolizedFrames = 0, inlineFrames = 0;
        for (qsizetype s = 0; s < fn->size(); ++s) {
            const Trace& t = fn->at(s);
            const Trace& a = ad->at(s);
            QCOMPARE(a.frames.size(), t.frames.size());
            QCOMPARE(a.value, t.value);
            QStringList rootFirst;
            for (qsizetype i = t.frames.size() - 1; i >= 0; --i) {
                QString name = t.frames[i];
                if (isMergedUnsymbolizedName(name)) {
                    const auto translated = symflameNameOfUnsymbolized(a.frames[i], r, &error);
                    QVERIFY2(translated, qPrintable(QStringLiteral("%1 -> %2: %3").arg(name, a.frames[i], error)));
                    name = *translated;
                    ++unsymbolizedFrames;
                }
                inlineFrames += t.inlined[i] ? 1 : 0;
                rootFirst << name;
            }
            expected[rootFirst.join(QLatin1Char(';'))] += t.value;
        }
        for (auto it = expected.begin(); it != expected.end();)
            it = it.value() == 0 ? expected.erase(it) : std::next(it);
        if (fixture == QLatin1String("cxx-unsym"))
            QVERIFY(unsymbolizedFrames > 0);
        if (fixture == QLatin1String("cxx-sym") || fixture.startsWith(QLatin1String("go-")))
            QVERIFY(inlineFrames > 0);

        RUN_SYMFLAME(ours, QStringLiteral("collapse"), path, QStringLiteral("--sample-type"), sampleType);
        QHash<QString, int64_t> actual;
        QString previous;
        bool sorted = true;
        for (const QByteArray& lineBytes : ours.out.split('\n')) {
            if (lineBytes.isEmpty())
                continue;
            const QString line = QString::fromUtf8(lineBytes);
            const qsizetype space = line.lastIndexOf(QLatin1Char(' '));
            QVERIFY2(space > 0, qPrintable(line));
            const QString stack = line.left(space);
            bool ok = false;
            const int64_t value = line.mid(space + 1).toLongLong(&ok);
            QVERIFY2(ok, qPrintable(line));
            QVERIFY2(!actual.contains(stack), qPrintable(QStringLiteral("stack listed twice: ") + stack));
            actual.insert(stack, value);
            sorted = sorted && previous < line;
            previous = line;
        }
        QVERIFY2(sorted, "collapse output is not sorted");

        const QSet<QString> expectedStacks(expected.keyBegin(), expected.keyEnd());
        const QSet<QString> actualStacks(actual.keyBegin(), actual.keyEnd());
        QVERIFY2(expectedStacks == actualStacks,
                 qPrintable(QStringLiteral("only pprof: %1\nonly symflame: %2")
                                .arg(difference(expectedStacks, actualStacks), difference(actualStacks, expectedStacks))));
        QStringList mismatches;
        for (auto it = expected.cbegin(); it != expected.cend(); ++it)
            if (actual.value(it.key()) != it.value())
                mismatches << QStringLiteral("%1: pprof %2, symflame %3").arg(it.key()).arg(it.value()).arg(actual.value(it.key()));
        QVERIFY2(mismatches.isEmpty(), qPrintable(mismatches.join(QLatin1Char('\n'))));
    }

    // `symflame source FILE . --json` against `go tool pprof -list .`: every function's sums and
    // every line's flat and cum, where pprof found the source (else the sums only), for the
    // symbolized fixtures (the Go one with Go's inlining, the C++ one with binutils' inline chains).
    void list_data()
    {
        QTest::addColumn<QString>("fixture");
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("sampleType");
        for (const Fixture& f : fixtureList())
            if (QByteArray(f.name) == "go-cpu" || QByteArray(f.name) == "cxx-sym")
                for (const QString& t : f.sampleTypes)
                    QTest::addRow("%s/%s", f.name, qPrintable(t)) << QString::fromUtf8(f.name) << QString::fromUtf8(f.path) << t;
    }
    void list()
    {
        QFETCH(QString, fixture);
        QFETCH(QString, path);
        QFETCH(QString, sampleType);
        const int index = sampleIndex(fixture, sampleType);
        QVERIFY(index >= 0);
        RUN_PPROF(pprof, path.toUtf8().constData(), QStringLiteral("-list=."), QStringLiteral("-sample_index=%1").arg(index),
            QStringLiteral("-unit=") + raw(fixture).unit(index));
        QString error;
        const auto routines = parseList(pprof.out, &error);
        QVERIFY2(routines, qPrintable(error));
        RUN_SYMFLAME(ours, QStringLiteral("source"), path, QStringLiteral("."), QStringLiteral("--sample-type"), sampleType,
            QStringLiteral("--json"));
        const QJsonArray functions = QJsonDocument::fromJson(ours.out).object().value(QStringLiteral("functions")).toArray();
        QCOMPARE(functions.size(), routines->size());
        // By name and the file's base name (pprof prints the file path cleaned).
        QHash<QString, QJsonObject> byKey;
        for (const QJsonValue& f : functions) {
            const QJsonObject o = f.toObject();
            const QString key = o.value(QStringLiteral("name")).toString() + QLatin1Char('|')
                + QFileInfo(o.value(QStringLiteral("file")).toString()).fileName();
            QVERIFY2(!byKey.contains(key), qPrintable(key));
            byKey.insert(key, o);
        }
        int withLines = 0, linesCompared = 0;
        for (const ListRoutine& r : *routines) {
            const QString key = r.name + QLatin1Char('|') + QFileInfo(r.file).fileName();
            QVERIFY2(byKey.contains(key), qPrintable(QStringLiteral("no %1 in symflame's output").arg(key)));
            const QJsonObject o = byKey.value(key);
            QCOMPARE(int64_t(o.value(QStringLiteral("flat_sum")).toInteger()), r.flatSum);
            QCOMPARE(int64_t(o.value(QStringLiteral("cum_sum")).toInteger()), r.cumSum);
            if (r.sourceError)
                continue;
            QVERIFY2(o.value(QStringLiteral("source")).toObject().value(QStringLiteral("found")).toBool(), qPrintable(key));
            QMap<int64_t, QPair<int64_t, int64_t>> mine;
            for (const QJsonValue& l : o.value(QStringLiteral("lines")).toArray()) {
                const QJsonObject line = l.toObject();
                if (line.value(QStringLiteral("line")).toInteger() > 0)
                    mine.insert(line.value(QStringLiteral("line")).toInteger(),
                        { line.value(QStringLiteral("flat")).toInteger(), line.value(QStringLiteral("cum")).toInteger() });
            }
            QCOMPARE(mine, r.lines);
            ++withLines;
            linesCompared += int(r.lines.size());
        }
        // Something was compared: several functions listed with their source, lines with costs. (The
        // C++ fixture is sampled afresh each run: about 20 routines with 20 lines, fewer on a busy machine.)
        QVERIFY2(withLines >= 5 && linesCompared >= 10, qPrintable(QStringLiteral("%1 routines, %2 lines").arg(withLines).arg(linesCompared)));
        qInfo("%s: %d routines, %d with source, %d lines with a cost: equal", qPrintable(fixture), int(routines->size()),
            withLines, linesCompared);
    }

    // `symflame disasm FILE . --json` against upstream pprof's -disasm (binutils' objdump) on the
    // symbolized C++ fixture: for every function both list (pprof lists the main binary's), the
    // same instruction addresses, and every instruction's flat and cum equal.
    void disasm_data()
    {
        QTest::addColumn<QString>("fixture");
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("sampleType");
        QTest::addColumn<QString>("pprofProgram"); // Go's for Go, upstream's (binutils) for C++
        QTest::addColumn<QString>("pattern");
        QTest::addColumn<int>("routines"); // what the fixture is built to have
        for (const char* type : { "samples", "cpu" }) {
            // The main binary's functions. Upstream pprof picks the binaries to read in an order
            // that changes from run to run, and in about one run of four ends with "no matches
            // found" for functions it lists in the others: asked again until it answers.
            QTest::addRow("cxx-sym/%s", type) << QStringLiteral("cxx-sym") << QString::fromUtf8(fixtures::cxxSymbolizedProfile)
                                              << QString::fromLatin1(type) << QString::fromUtf8(fixtures::upstreamPprof)
                                              << QStringLiteral("fib|sieve|hashWords|_M_run") << 4;
            QTest::addRow("go-cpu/%s", type) << QStringLiteral("go-cpu") << QString::fromUtf8(fixtures::goCpuProfile)
                                             << QString::fromLatin1(type) << pprofProgram() << QStringLiteral("main\\.") << 8;
        }
    }
    void disasm()
    {
        QFETCH(QString, fixture);
        QFETCH(QString, path);
        QFETCH(QString, sampleType);
        QFETCH(QString, pprofProgram);
        QFETCH(QString, pattern);
        QFETCH(int, routines);
        const int index = sampleIndex(fixture, sampleType);
        QVERIFY(index >= 0);
        QStringList pprofArgs { QStringLiteral("-disasm=") + pattern, QStringLiteral("-sample_index=%1").arg(index),
            QStringLiteral("-unit=") + raw(fixture).unit(index), path };
        if (pprofProgram.endsWith(QLatin1String("/go")))
            pprofArgs = QStringList { QStringLiteral("tool"), QStringLiteral("pprof") } + pprofArgs;
        ProcessResult pprof;
        for (int attempt = 0; attempt < 10; ++attempt) {
            pprof = runProcess(pprofProgram, pprofArgs);
            if (pprof.ok() || !pprof.err.contains("no matches found"))
                break;
        }
        QVERIFY2(pprof.ok(), qPrintable(pprof.describe(pprofProgram, pprofArgs)));
        // pprof's routines: instruction address -> (flat, cum), in order.
        static const QRegularExpression rowRe(QStringLiteral("^\\s*(\\S+)\\s+(\\S+)\\s+([0-9a-f]+): "));
        QList<QPair<QString, QList<std::array<int64_t, 3>>>> listed;
        for (const QByteArray& raw : pprof.out.split('\n')) {
            const QString line = QString::fromUtf8(raw);
            if (line.startsWith(QLatin1String("ROUTINE ")))
                listed.append({ line.section(QLatin1Char(' '), 2), {} });
            else if (const auto m = rowRe.match(line); m.hasMatch() && !listed.isEmpty()) {
                const auto value = [](const QString& t) { return t == QLatin1String(".") ? std::optional<int64_t>(0) : exactValue(t); };
                const auto flat = value(m.captured(1)), cum = value(m.captured(2));
                QVERIFY2(flat && cum, qPrintable(line));
                listed.last().second.append({ int64_t(m.captured(3).toULongLong(nullptr, 16)), *flat, *cum });
            }
        }
        RUN_SYMFLAME(ours, QStringLiteral("disasm"), path, pattern, QStringLiteral("--sample-type"), sampleType,
            QStringLiteral("--json"));
        // By raw symbol name and start address (pprof names a routine by its symbol's raw name).
        QHash<QString, QJsonObject> byStart;
        const auto key = [](const QString& name, qint64 start) { return name + QLatin1Char('@') + QString::number(start, 16); };
        for (const QJsonValue& f : QJsonDocument::fromJson(ours.out).object().value(QStringLiteral("functions")).toArray())
            byStart.insert(key(f.toObject().value(QStringLiteral("raw_name")).toString(), f.toObject().value(QStringLiteral("start")).toInteger()),
                f.toObject());
        int compared = 0, instructions = 0, withCost = 0;
        for (const auto& [name, rows] : listed) {
            if (name == QLatin1String("_end") || rows.isEmpty())
                continue; // pprof's nm takes the end-of-data marker for a function
            const QString k = key(name, rows.first()[0]);
            QVERIFY2(byStart.contains(k), qPrintable(k + QStringLiteral(": not listed by symflame")));
            const QJsonArray mine = byStart.value(k).value(QStringLiteral("instructions")).toArray();
            // Where the listings may end differently: pprof ends a symbol at the next one (so
            // it lists the alignment padding after it, which has no cost), and gives objdump the
            // symbol's last byte as the (exclusive) stop address (so a function ending in a
            // one-byte instruction, retq, is listed without it). symflame uses the symbol's size.
            const qint64 end = byStart.value(k).value(QStringLiteral("end")).toInteger();
            const bool lastDropped = mine.size() == rows.size() + 1
                && mine.last().toObject().value(QStringLiteral("size")).toInteger() == 1;
            QVERIFY2(mine.size() <= rows.size() || lastDropped,
                qPrintable(QStringLiteral("%1: %2 instructions, pprof %3").arg(k).arg(mine.size()).arg(rows.size())));
            // And Go's objdump decodes the 5-byte jmp that ends a Go function as "?" and goes on
            // inside it: its extra rows start within symflame's last instruction.
            const qint64 last = mine.isEmpty() ? end : mine.last().toObject().value(QStringLiteral("address")).toInteger();
            for (int i = int(mine.size()); i < rows.size(); ++i)
                QVERIFY2(rows[i][0] > last && rows[i][1] == 0 && rows[i][2] == 0,
                    qPrintable(QStringLiteral("%1: pprof lists %2 after the symbol's last instruction %3 (end %4)")
                            .arg(k).arg(rows[i][0], 0, 16).arg(last, 0, 16).arg(end, 0, 16)));
            for (int i = 0; i < std::min(int(mine.size()), int(rows.size())); ++i) {
                const QJsonObject ins = mine[i].toObject();
                QCOMPARE(ins.value(QStringLiteral("address")).toInteger(), rows[i][0]);
                QVERIFY2(ins.value(QStringLiteral("flat")).toInteger() == rows[i][1] && ins.value(QStringLiteral("cum")).toInteger() == rows[i][2],
                    qPrintable(QStringLiteral("%1 at %2: flat %3 cum %4, pprof %5 %6").arg(name).arg(rows[i][0], 0, 16)
                        .arg(ins.value(QStringLiteral("flat")).toInteger()).arg(ins.value(QStringLiteral("cum")).toInteger())
                        .arg(rows[i][1]).arg(rows[i][2])));
                withCost += rows[i][1] != 0 || rows[i][2] != 0;
            }
            ++compared;
            instructions += int(rows.size());
        }
        QVERIFY2(compared >= routines && withCost >= 10, qPrintable(QStringLiteral("%1 routines, %2 instructions with a cost").arg(compared).arg(withCost)));
        qInfo("%d routines, %d instructions (%d with a cost): equal", compared, instructions, withCost);
    }

    void info_data()
    {
        QTest::addColumn<QString>("fixture");
        QTest::addColumn<QString>("path");
        for (const Fixture& f : fixtureList())
            QTest::addRow("%s", f.name) << QString::fromUtf8(f.name) << QString::fromUtf8(f.path);
    }
    // info is about the file as written, so its oracle is protoc --decode_raw (pprof -raw shows
    // the profile after merging: equal samples folded, unreferenced mappings dropped).
    void info()
    {
        QFETCH(QString, fixture);
        QFETCH(QString, path);
        QString error;
        const auto wire = decodeRaw(QString::fromUtf8(fixtures::protocExecutable), path, &error);
        QVERIFY2(wire, qPrintable(error));
        RUN_SYMFLAME(ours, QStringLiteral("info"), path, QStringLiteral("--json"));
        QJsonParseError jsonError;
        const QJsonDocument doc = QJsonDocument::fromJson(ours.out, &jsonError);
        QVERIFY2(doc.isObject(), qPrintable(jsonError.errorString()));
        const QJsonObject obj = doc.object();
        QCOMPARE(obj.value(QLatin1String("sample_records")).toInteger(), qint64(wire->samples));
        // "samples" is what pprof totals for the samples count type; a profile without one (heap)
        // counts its records.
        const RawProfile& r = raw(fixture);
        qint64 expectedSamples = qint64(wire->samples);
        for (int i = 0; i < r.sampleTypes.size(); ++i)
            if (r.type(i) == QLatin1String("samples")) {
                RUN_PPROF(top, path.toUtf8().constData(), QStringLiteral("-top"), QStringLiteral("-nodecount=1"),
                          QStringLiteral("-sample_index=%1").arg(i), QStringLiteral("-unit=count"));
                const auto parsed = parseTop(top.out, &error);
                QVERIFY2(parsed, qPrintable(error));
                expectedSamples = parsed->total;
                QVERIFY2(expectedSamples > qint64(wire->samples) || fixture == QLatin1String("go-heap"),
                         "the fixture has no stack sampled twice, so records and samples can't be told apart");
            }
        QCOMPARE(obj.value(QLatin1String("samples")).toInteger(), expectedSamples);
        RUN_SYMFLAME(text, QStringLiteral("info"), path);
        QVERIFY2(text.out.contains(QStringLiteral("\nSamples:       %1").arg(expectedSamples).toUtf8()), text.out.constData());

        QStringList types, expectedTypes;
        for (const QJsonValue& v : obj.value(QLatin1String("sample_types")).toArray())
            types << v.toObject().value(QLatin1String("type")).toString() + QLatin1Char('/')
                    + v.toObject().value(QLatin1String("unit")).toString();
        for (const auto& [type, unit] : wire->sampleTypes)
            expectedTypes << wire->string(type, &error) + QLatin1Char('/') + wire->string(unit, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(types, expectedTypes);

        // Mappings in file order with file and build ID; per mapping, how many locations it
        // has and how many of those have a line with a function.
        QStringList mappings, expectedMappings;
        for (const QJsonValue& v : obj.value(QLatin1String("mappings")).toArray()) {
            const QJsonObject m = v.toObject();
            mappings << QStringLiteral("%1 %2 %3/%4")
                            .arg(m.value(QLatin1String("file")).toString(), m.value(QLatin1String("build_id")).toString())
                            .arg(m.value(QLatin1String("symbolized")).toInteger())
                            .arg(m.value(QLatin1String("locations")).toInteger());
        }
        for (const WireProfile::Mapping& m : wire->mappings) {
            qint64 total = 0, symbolized = 0;
            for (const WireProfile::Location& l : wire->locations)
                if (l.mappingId == m.id) {
                    ++total;
                    symbolized += l.hasFunction ? 1 : 0;
                }
            expectedMappings << QStringLiteral("%1 %2 %3/%4")
                                    .arg(wire->string(m.file, &error), wire->string(m.buildId, &error))
                                    .arg(symbolized)
                                    .arg(total);
        }
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(mappings, expectedMappings);

        // The binaries table: info's triage (symbol tables, the DWARF located but not read) says
        // what a full symbolization (--symbolize) says of every binary.
        RUN_SYMFLAME(full, QStringLiteral("info"), path, QStringLiteral("--json"), QStringLiteral("--symbolize"));
        const auto rowsOf = [](const QByteArray& json) {
            QStringList rows;
            for (const QJsonValue& v : QJsonDocument::fromJson(json).object().value(QLatin1String("binaries")).toArray()) {
                const QJsonObject b = v.toObject();
                QStringList fields;
                for (const char* key : { "name", "build_id", "status", "reason", "source", "debug_path" })
                    fields << b.value(QLatin1String(key)).toString();
                for (const char* key : { "self", "total", "locations", "symbolized" })
                    fields << QString::number(b.value(QLatin1String(key)).toInteger());
                rows << fields.join(QLatin1Char('|'));
            }
            return rows;
        };
        const QStringList triageRows = rowsOf(ours.out);
        QVERIFY(!triageRows.isEmpty());
        QCOMPARE(triageRows, rowsOf(full.out));
    }
};

QTEST_GUILESS_MAIN(TestOracle)
#include "tst_oracle.moc"
