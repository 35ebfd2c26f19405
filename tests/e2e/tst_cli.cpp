// The symflame executable's command-line contract: exit codes, one-line errors, --version and
// --help, and info/top/collapse/render output on a small profile built here with the model API
// (so every expected number follows from the samples written below), plus the fixtures'
// Go profile for the fields a real producer fills in.
#include "fixtures/fixturepaths.h"
#include "model/io/folded.h"
#include "model/io/profileio.h"
#include "processhelpers.h"
#include "model/io/pprof/pprof.h"
#include "model/core/profile.h"
#include "ui/flamegraphpainter.h"

#include <QByteArray>
#include <QFile>
#include <QSet>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QObject>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QFileInfo>
#include <QTest>

#include <string>
#include <vector>

using namespace symflame;

namespace {

using Run = testing::ProcessResult;
using testing::runSymflame;

// Two sample types (samples/count, cpu/nanoseconds at 10 ms per sample), one mapped binary
// with five named functions and one location that has no symbol, and an empty [vdso] mapping.
//   main;a;hot 60   main;b;hot 20   main;b;cold 15   main 5   main;<0x401234> 3
model::Profile makeProfile()
{
    model::Profile p;
    auto s = [&](const char* text) { return p.strings.intern(text); };
    p.sampleTypes = { { s("samples"), s("count") }, { s("cpu"), s("nanoseconds") } };
    p.defaultSampleType = 1;
    p.periodType = { s("cpu"), s("nanoseconds") };
    p.period = 10000000;
    p.timeNanos = 1700000000123456789;
    p.durationNanos = 2500000000;

    model::Mapping exe;
    exe.start = 0x400000;
    exe.limit = 0x500000;
    exe.offset = 0;
    exe.file = s("/usr/bin/demo");
    exe.buildId = s("0123456789abcdef0123456789abcdef01234567");
    exe.flags = model::Mapping::HasFunctions;
    exe.sourceId = 1;
    model::Mapping vdso;
    vdso.start = 0x7fff0000;
    vdso.limit = 0x7fff2000;
    vdso.file = s("[vdso]");
    vdso.sourceId = 2;
    p.mappings = { exe, vdso };

    auto location = [&](const char* name, uint64_t address) {
        model::Location loc;
        loc.mapping = model::MappingId(0u);
        loc.address = address;
        loc.sourceId = p.locations.size() + 1;
        if (name) {
            model::Function f;
            f.name = s(name);
            f.systemName = f.name;
            f.file = s("demo.cpp");
            f.sourceId = p.functions.size() + 1;
            p.functions.push_back(f);
            loc.linesBegin = static_cast<uint32_t>(p.lines.size());
            loc.lineCount = 1;
            p.lines.push_back({ model::FunctionId(p.functions.size() - 1), 10, 0 });
        }
        p.locations.push_back(loc);
        return model::LocationId(p.locations.size() - 1);
    };
    const auto main = location("main", 0x401000);
    const auto a = location("a", 0x401100);
    const auto b = location("b", 0x401200);
    const auto hot = location("hot", 0x401300);
    const auto cold = location("cold", 0x401400);
    const auto unsym = location(nullptr, 0x401234);
    auto sample = [&](std::vector<model::LocationId> leafFirst, int64_t count) {
        const int64_t values[] = { count, count * 10000000 };
        p.addSample(p.internStack(leafFirst), values);
    };
    sample({ hot, a, main }, 60);
    sample({ hot, b, main }, 20);
    sample({ cold, b, main }, 15);
    sample({ main }, 5);
    sample({ unsym, main }, 3);
    p.updateFrameStatuses();
    p.finishBuilding();
    return p;
}

} // namespace

class TestCli : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_profile; // gzip-compressed pprof
    QString m_raw; // the same, uncompressed

    QString path(const char* name) const { return m_dir.filePath(QString::fromLatin1(name)); }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        const model::Profile p = makeProfile();
        m_profile = path("demo.pb.gz");
        const auto status = model::writePprofFile(p, m_profile.toStdString());
        QVERIFY2(status.ok(), status.ok() ? "" : status.error().toString().c_str());
        m_raw = path("demo.pb");
        const std::vector<uint8_t> raw = model::encodePprof(p);
        QFile f(m_raw);
        QVERIFY(f.open(QIODevice::WriteOnly));
        QCOMPARE(f.write(reinterpret_cast<const char*>(raw.data()), qint64(raw.size())), qint64(raw.size()));
    }

    void version()
    {
        const Run r = runSymflame({ QStringLiteral("--version") });
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.out, QByteArray("symflame 0.1.0\n"));
        QVERIFY(r.err.isEmpty());
    }

    void help()
    {
        const Run r = runSymflame({ QStringLiteral("--help") });
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.startsWith("Usage: symflame"));
        for (const char* command : { "info FILE", "top FILE", "collapse FILE", "render FILE", "--sample-type" })
            QVERIFY2(r.out.contains(command), command);
    }

    void usageErrors_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QByteArray>("expected");
        QTest::addRow("unknown command") << QStringList { "frobnicate" } << QByteArray("unknown command 'frobnicate'");
        QTest::addRow("unknown option") << QStringList { "top", "--bogus", "x.pb.gz" } << QByteArray("'--bogus'");
        QTest::addRow("missing file") << QStringList { "info" } << QByteArray("missing FILE");
        QTest::addRow("missing value") << QStringList { "top", "x.pb.gz", "-n" } << QByteArray("needs a value");
        QTest::addRow("bad count") << QStringList { "top", "x.pb.gz", "-n", "ten" } << QByteArray("'ten'");
        QTest::addRow("negative count") << QStringList { "top", "x.pb.gz", "-n", "-3" } << QByteArray("'-3'");
        // info describes one file (top and collapse merge several).
        QTest::addRow("two files") << QStringList { "info", "a.pb", "b.pb" }
                                   << QByteArray("unexpected argument 'b.pb'");
        QTest::addRow("render without output") << QStringList { "render", "x.pb.gz" } << QByteArray("missing -o");
        QTest::addRow("diff without new") << QStringList { "diff", "top", "a.pb" } << QByteArray("wants BASE and NEW");
        QTest::addRow("diff of what") << QStringList { "diff", "frob", "a.pb", "b.pb" } << QByteArray("unknown 'frob'");
        QTest::addRow("diff collapse json") << QStringList { "diff", "collapse", "a.pb", "b.pb", "--json" } << QByteArray("for diff top");
        QTest::addRow("gui option") << QStringList { "--frobnicate" } << QByteArray("unknown option '--frobnicate'");
    }
    void usageErrors()
    {
        QFETCH(QStringList, args);
        QFETCH(QByteArray, expected);
        const Run r = runSymflame(args);
        QCOMPARE(r.exitCode, 64);
        QVERIFY(r.out.isEmpty());
        QCOMPARE(r.errLines().size(), 1);
        QVERIFY2(r.err.startsWith("symflame: "), r.err.constData());
        QVERIFY2(r.err.contains(expected), r.err.constData());
        QVERIFY2(r.err.contains("--help"), r.err.constData());
    }

    void unknownSampleType()
    {
        const Run r = runSymflame(
            { QStringLiteral("top"), m_profile, QStringLiteral("--sample-type"), QStringLiteral("alloc_space") });
        QCOMPARE(r.exitCode, 64);
        QCOMPARE(r.errLines().size(), 1);
        // The message says which types there are.
        QVERIFY2(r.err.contains("'alloc_space'") && r.err.contains("samples, cpu"), r.err.constData());
        const Run byIndex = runSymflame({ QStringLiteral("top"), m_profile, QStringLiteral("--sample-type=2") });
        QCOMPARE(byIndex.exitCode, 64);
    }

    void badInput_data()
    {
        QTest::addColumn<QString>("command");
        QTest::newRow("info") << QStringLiteral("info");
        QTest::newRow("top") << QStringLiteral("top");
        QTest::newRow("collapse") << QStringLiteral("collapse");
        QTest::newRow("render") << QStringLiteral("render");
    }
    void badInput()
    {
        QFETCH(QString, command);
        QStringList extra;
        if (command == QLatin1String("render"))
            extra = { QStringLiteral("-o"), path("never.png") };

        const QString missing = path("no-such-profile.pb.gz");
        Run r = runSymflame(QStringList { command, missing } + extra);
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.out.isEmpty());
        QCOMPARE(r.errLines().size(), 1);
        QVERIFY2(r.err.startsWith("symflame: " + missing.toUtf8() + ": "), r.err.constData());

        const QString random = path("random.bin");
        {
            QFile f(random);
            QVERIFY(f.open(QIODevice::WriteOnly));
            QByteArray bytes(4096, Qt::Uninitialized);
            QRandomGenerator gen(42);
            for (char& c : bytes)
                c = char(gen.bounded(256));
            f.write(bytes);
        }
        r = runSymflame(QStringList { command, random } + extra);
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.out.isEmpty());
        QCOMPARE(r.errLines().size(), 1);
        QVERIFY2(r.err.startsWith("symflame: " + random.toUtf8() + ": "), r.err.constData());
        QVERIFY(!QFile::exists(path("never.png")));
    }

    void viewerOnMissingFile()
    {
        const QString missing = path("gone.pb.gz");
        const Run r = runSymflame({ missing });
        QCOMPARE(r.exitCode, 2);
        QCOMPARE(r.errLines().size(), 1);
        QVERIFY2(r.err.contains(missing.toUtf8()), r.err.constData());
    }

    void viewerWithoutDisplay()
    {
        // No display and no platform chosen: a clear message instead of Qt's xcb abort.
        const Run r = runSymflame({ m_profile }, { .unsetEnv = { "DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM" } });
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("no display"), r.err.constData());
        QVERIFY2(r.err.contains("xvfb-run") && r.err.contains("QT_QPA_PLATFORM=offscreen")
                && r.err.contains("symflame render"),
            r.err.constData());
    }

    void infoJson()
    {
        // Headless: no display, no platform plugin.
        const Run r = runSymflame({ QStringLiteral("info"), m_profile, QStringLiteral("--json") },
            { .unsetEnv = { "DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM" } });
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.err.isEmpty());
        QJsonParseError error;
        const QJsonObject o = QJsonDocument::fromJson(r.out, &error).object();
        QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
        QCOMPARE(o.value("file").toString(), m_profile);
        QCOMPARE(o.value("format").toString(), QStringLiteral("pprof"));
        const QJsonArray types = o.value("sample_types").toArray();
        QCOMPARE(types.size(), 2);
        QCOMPARE(types[0].toObject().value("type").toString(), QStringLiteral("samples"));
        QCOMPARE(types[0].toObject().value("unit").toString(), QStringLiteral("count"));
        QCOMPARE(types[1].toObject().value("type").toString(), QStringLiteral("cpu"));
        QCOMPARE(types[1].toObject().value("unit").toString(), QStringLiteral("nanoseconds"));
        QCOMPARE(o.value("default_sample_type").toString(), QStringLiteral("cpu"));
        QCOMPARE(o.value("samples").toInteger(), 103); // the sum of samples/count, as pprof totals it
        QCOMPARE(o.value("sample_records").toInteger(), 5);
        QCOMPARE(o.value("locations").toInteger(), 6);
        QCOMPARE(o.value("functions").toInteger(), 5);
        QCOMPARE(o.value("time_nanos").toVariant().toLongLong(), 1700000000123456789LL);
        QCOMPARE(o.value("duration_nanos").toInteger(), 2500000000LL);
        QCOMPARE(o.value("period").toInteger(), 10000000);
        QCOMPARE(o.value("period_type").toObject().value("type").toString(), QStringLiteral("cpu"));
        QCOMPARE(o.value("period_type").toObject().value("unit").toString(), QStringLiteral("nanoseconds"));
        const QJsonArray mappings = o.value("mappings").toArray();
        QCOMPARE(mappings.size(), 2);
        const QJsonObject exe = mappings[0].toObject();
        QCOMPARE(exe.value("id").toInteger(), 1);
        QCOMPARE(exe.value("file").toString(), QStringLiteral("/usr/bin/demo"));
        QCOMPARE(exe.value("build_id").toString(), QStringLiteral("0123456789abcdef0123456789abcdef01234567"));
        QCOMPARE(exe.value("start").toInteger(), 0x400000);
        QCOMPARE(exe.value("limit").toInteger(), 0x500000);
        QCOMPARE(exe.value("offset").toInteger(), 0);
        QCOMPARE(exe.value("locations").toInteger(), 6);
        QCOMPARE(exe.value("symbolized").toInteger(), 5);
        const QJsonObject vdso = mappings[1].toObject();
        QCOMPARE(vdso.value("id").toInteger(), 2);
        QCOMPARE(vdso.value("file").toString(), QStringLiteral("[vdso]"));
        QCOMPARE(vdso.value("build_id").toString(), QString());
        QCOMPARE(vdso.value("locations").toInteger(), 0);
        QCOMPARE(vdso.value("symbolized").toInteger(), 0);

        // The uncompressed file reads the same.
        const Run raw = runSymflame({ QStringLiteral("info"), QStringLiteral("--json"), m_raw });
        QCOMPARE(raw.exitCode, 0);
        QCOMPARE(QJsonDocument::fromJson(raw.out).object().value("samples").toInteger(), 103);
    }

    // The native demo shows what symflame is for: an unsymbolized profile of several binaries,
    // all found and named locally but one stripped library, whose debug file (in the demo's
    // debug folder) makes it symbolized with file and line.
    void nativeDemoShowsWhatIsMissing()
    {
        const QString demo = QString::fromUtf8(fixtures::nativeDemoProfile);
        QVERIFY2(QFileInfo::exists(demo), "the build made no native demo");
        const auto rowOf = [](const QByteArray& json, const QString& name) {
            for (const QJsonValue& v : QJsonDocument::fromJson(json).object().value("binaries").toArray())
                if (v.toObject().value("name").toString() == name)
                    return v.toObject();
            return QJsonObject();
        };
        Run r = runSymflame({ QStringLiteral("info"), QStringLiteral("--json"), demo });
        QCOMPARE(r.exitCode, 0);
        const QJsonObject info = QJsonDocument::fromJson(r.out).object();
        for (const QJsonValue& m : info.value("mappings").toArray())
            QCOMPARE(m.toObject().value("symbolized").toInteger(), 0); // as recorded: addresses only
        QVERIFY(info.value("mappings").toArray().size() >= 4);
        QCOMPARE(rowOf(r.out, "libdemofilters.so").value("status").toString(), QStringLiteral("symbolized"));
        QCOMPARE(rowOf(r.out, "imagepipe").value("status").toString(), QStringLiteral("symbolized"));
        QCOMPARE(rowOf(r.out, "libdemocodec.so").value("status").toString(), QStringLiteral("names only"));
        r = runSymflame({ QStringLiteral("info"), QStringLiteral("--json"), demo, QStringLiteral("--debug-dir"),
            QString::fromUtf8(fixtures::nativeDemoDebugDir) });
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(rowOf(r.out, "libdemocodec.so").value("status").toString(), QStringLiteral("symbolized"));
    }

    void infoText()
    {
        const Run r = runSymflame({ QStringLiteral("info"), m_profile });
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("cpu (nanoseconds) [default]"), r.out.constData());
        QVERIFY2(r.out.contains("Samples:       103 in 5 records\n"), r.out.constData());
        QVERIFY2(r.out.contains("Time:          2023-11-14 22:13:20 UTC"), r.out.constData());
        QVERIFY2(r.out.contains("symbolized 5 of 6 locations"), r.out.constData());
    }

    void infoOnRealProfile()
    {
        const Run r = runSymflame(
            { QStringLiteral("info"), QString::fromUtf8(fixtures::goCpuProfile), QStringLiteral("--json") });
        QCOMPARE(r.exitCode, 0);
        const QJsonObject o = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(o.value("default_sample_type").toString(), QStringLiteral("cpu"));
        QVERIFY(o.value("samples").toInteger() > 0);
        QVERIFY(o.value("duration_nanos").toInteger() > 0);
        const QJsonObject main = o.value("mappings").toArray().at(0).toObject();
        QCOMPARE(main.value("file").toString(), QString::fromUtf8(fixtures::goBinary));
        QCOMPARE(main.value("build_id").toString(), QString::fromUtf8(fixtures::goBuildId));
        // runtime/pprof symbolizes every location of the Go binary.
        QVERIFY(main.value("locations").toInteger() > 0);
        QCOMPARE(main.value("symbolized").toInteger(), main.value("locations").toInteger());
    }

    void topJson()
    {
        const Run r = runSymflame(
            { QStringLiteral("top"), m_profile, QStringLiteral("--json"), QStringLiteral("-n"), QStringLiteral("0") },
            { .unsetEnv = { "DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM" } });
        QCOMPARE(r.exitCode, 0);
        QJsonParseError error;
        const QJsonObject o = QJsonDocument::fromJson(r.out, &error).object();
        QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
        QCOMPARE(o.value("sample_type").toString(), QStringLiteral("cpu"));
        QCOMPARE(o.value("unit").toString(), QStringLiteral("nanoseconds"));
        QCOMPARE(o.value("total").toInteger(), 1030000000LL);
        // pprof's order: flat descending, then name.
        struct Row {
            const char* name;
            qint64 flat, cum;
        };
        const Row expected[]
            = { { "hot", 800000000, 800000000 }, { "cold", 150000000, 150000000 }, { "main", 50000000, 1030000000 },
                  { "demo+0x1234", 30000000, 30000000 }, { "a", 0, 600000000 }, { "b", 0, 350000000 } };
        const QJsonArray functions = o.value("functions").toArray();
        QCOMPARE(functions.size(), qsizetype(std::size(expected)));
        for (int i = 0; i < functions.size(); ++i) {
            const QJsonObject f = functions[i].toObject();
            QCOMPARE(f.value("name").toString(), QString::fromLatin1(expected[i].name));
            QCOMPARE(f.value("flat").toInteger(), expected[i].flat);
            QCOMPARE(f.value("cum").toInteger(), expected[i].cum);
        }

        // -n takes the first entries; the default is 20; another sample type by name or index.
        const Run two
            = runSymflame({ QStringLiteral("top"), QStringLiteral("-n2"), QStringLiteral("--json"), m_profile });
        const QJsonArray first2 = QJsonDocument::fromJson(two.out).object().value("functions").toArray();
        QCOMPARE(first2.size(), 2);
        QCOMPARE(first2[1].toObject().value("name").toString(), QStringLiteral("cold"));
        for (const QString& type : { QStringLiteral("samples"), QStringLiteral("0") }) {
            const Run counts = runSymflame(
                { QStringLiteral("top"), m_profile, QStringLiteral("--json"), QStringLiteral("--sample-type"), type });
            QCOMPARE(counts.exitCode, 0);
            const QJsonObject c = QJsonDocument::fromJson(counts.out).object();
            QCOMPARE(c.value("sample_type").toString(), QStringLiteral("samples"));
            QCOMPARE(c.value("unit").toString(), QStringLiteral("count"));
            QCOMPARE(c.value("total").toInteger(), 103);
            QCOMPARE(c.value("functions").toArray().at(0).toObject().value("flat").toInteger(), 80);
        }
    }

    void topText()
    {
        const Run r = runSymflame({ QStringLiteral("top"), m_profile, QStringLiteral("-n"), QStringLiteral("3") });
        QCOMPARE(r.exitCode, 0);
        const QList<QByteArray> lines = r.out.split('\n');
        QVERIFY2(lines.size() >= 5, r.out.constData());
        QVERIFY2(lines[0].contains("cpu") && lines[0].contains("1.03s"), lines[0].constData());
        QCOMPARE(lines[1].simplified(), QByteArray("flat flat% sum% cum cum%"));
        QCOMPARE(lines[2].simplified(), QByteArray("800ms 77.67% 77.67% 800ms 77.67% hot"));
        QCOMPARE(lines[3].simplified(), QByteArray("150ms 14.56% 92.23% 150ms 14.56% cold"));
        QCOMPARE(lines[4].simplified(), QByteArray("50ms 4.85% 97.09% 1.03s 100.00% main"));
        QCOMPARE(lines.size(), 6); // -n 3, and the final newline
    }

    void collapse()
    {
        const Run r = runSymflame({ QStringLiteral("collapse"), m_profile },
            { .unsetEnv = { "DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM" } });
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.out,
            QByteArray("main 50000000\n"
                       "main;a;hot 600000000\n"
                       "main;b;cold 150000000\n"
                       "main;b;hot 200000000\n"
                       "main;demo+0x1234 30000000\n"));
        const Run counts
            = runSymflame({ QStringLiteral("collapse"), QStringLiteral("--sample-type=samples"), m_profile });
        QCOMPARE(counts.exitCode, 0);
        QVERIFY2(
            counts.out.contains("main;a;hot 60\n") && counts.out.contains("main;b;cold 15\n"), counts.out.constData());
    }

    void render()
    {
        // render chooses the offscreen platform itself when none is set.
        const QString out = path("flame.png");
        const Run r = runSymflame({ QStringLiteral("render"), m_profile, QStringLiteral("-o"), out,
                                      QStringLiteral("--width"), QStringLiteral("640") },
            { .unsetEnv = { "DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM" } });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QImage image(out);
        QVERIFY(!image.isNull());
        QCOMPARE(image.width(), 640);
        const QColor background = image.pixelColor(image.width() - 1, 0);

        // Rows from the bottom: "all", then main (also the whole width: every sample is in
        // main), then a (60%) beside b (35%), and the unsymbolized frame (3%).
        int y = image.height() - 1;
        while (y > 0 && image.pixelColor(image.width() / 2, y) == background)
            --y;
        QVERIFY(y > 0);
        const int rootY = y - 3; // inside the row, clear of its 1 px gap
        const QColor root = image.pixelColor(image.width() / 2, rootY);
        for (int x = 100; x < 630; x += 7)
            QCOMPARE(image.pixelColor(x, rootY), root);

        const int rowHeight = [&] {
            int top = y;
            while (top > 0 && image.pixelColor(image.width() / 2, top - 1) != background)
                --top;
            return y - top + 2; // the frame plus its gap
        }();
        QVERIFY(rowHeight > 8 && rowHeight < 40);
        const int mainY = rootY - rowHeight;
        const QColor mainColor = ui::FlameGraphPainter::frameColor("main", true, false);
        QCOMPARE(image.pixelColor(600, mainY), mainColor);
        QCOMPARE(image.pixelColor(300, mainY), mainColor);
        const int callerY = mainY - rowHeight;
        // Of main's 103 samples a covers [0, 60), b [60, 95), the unsymbolized frame [95, 98)
        // and main's own 5 are the gap on the right. Sample right of the labels.
        const auto at = [](double samples) { return int(640 * samples / 103); };
        QCOMPARE(image.pixelColor(at(50), callerY), ui::FlameGraphPainter::frameColor("a", true, false));
        QCOMPARE(image.pixelColor(at(90), callerY), ui::FlameGraphPainter::frameColor("b", true, false));
        QCOMPARE(image.pixelColor(at(96.5), callerY), ui::FlameGraphPainter::frameColor("demo+0x1234", false, false));
        QCOMPARE(image.pixelColor(at(100.5), callerY), background);

        // --height crops; a bad width is a usage error.
        const Run small = runSymflame({ QStringLiteral("render"), m_profile, QStringLiteral("-o"), out,
            QStringLiteral("--width=300"), QStringLiteral("--height=120") });
        QCOMPARE(small.exitCode, 0);
        QCOMPARE(QImage(out).size(), QSize(300, 120));
        // --scale draws the same graph into more pixels: twice each way, and the row that was
        // at y is at 2y (the root's color where it was, scaled).
        const Run sharp = runSymflame({ QStringLiteral("render"), m_profile, QStringLiteral("-o"), out,
            QStringLiteral("--width=300"), QStringLiteral("--height=120"), QStringLiteral("--scale=2") });
        QVERIFY2(sharp.exitCode == 0, sharp.err.constData());
        const QImage scaled(out);
        QCOMPARE(scaled.size(), QSize(600, 240));
        QCOMPARE(scaled.pixelColor(2 * 150, 2 * (120 - (image.height() - rootY))), root);
        for (const char* s : { "--scale=0", "--scale=x", "--scale=9" }) {
            const Run badScale = runSymflame(
                { QStringLiteral("render"), m_profile, QStringLiteral("-o"), out, QString::fromLatin1(s) });
            QCOMPARE(badScale.exitCode, 64);
            QVERIFY2(badScale.err.contains("--scale"), badScale.err.constData());
        }
        const Run bad = runSymflame({ QStringLiteral("render"), m_profile, QStringLiteral("-o"), out,
            QStringLiteral("--width"), QStringLiteral("0") });
        QCOMPARE(bad.exitCode, 64);
    }

    // diff render: NEW's graph colored by its change from BASE: a function that grew is red,
    // one that shrank blue, one unchanged neutral, one only in NEW hatched; the legend says so.
    void renderDiff()
    {
        const auto write = [&](const char* name, const QByteArray& folded) {
            auto p = model::readFolded(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(folded.constData()), size_t(folded.size())));
            QVERIFY(p.ok());
            QVERIFY(model::saveProfile(*p, path(name).toStdString()).ok());
        };
        write("base.pb.gz", "main;grows 100\nmain;shrinks 100\nmain;same 100\n");
        write("new.pb.gz", "main;grows 200\nmain;shrinks 40\nmain;same 100\nmain;fresh 60\n");
        const QString out = path("diff.png");
        const Run r = runSymflame({ QStringLiteral("diff"), QStringLiteral("render"), path("base.pb.gz"), path("new.pb.gz"),
            QStringLiteral("-o"), out, QStringLiteral("--width=800") });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QImage image(out);
        QVERIFY(!image.isNull());
        // Rows from the bottom: the legend, then "all", main, then the four functions side by
        // side in name order over NEW's 400: fresh [0,60), grows [60,260), same [260,360),
        // shrinks [360,400).
        const QColor background = image.pixelColor(image.width() - 1, 0);
        const QColor grew = ui::FlameGraphPainter::diffColor(100, 200, 0, false);
        // Find the functions' row: the lowest row whose pixel at 'grows' is the grown color.
        int y = image.height() - 1;
        const auto at = [](double v) { return int(800 * v / 400); };
        while (y > 0 && image.pixelColor(at(200), y) != grew)
            --y;
        QVERIFY2(y > 0, "no frame in the color of a function that doubled");
        QCOMPARE(image.pixelColor(at(300), y), ui::FlameGraphPainter::diffColor(100, 100, 1, false)); // same: neutral
        QCOMPARE(image.pixelColor(at(395), y), ui::FlameGraphPainter::diffColor(100, 40, 0, false)); // shrank: blue
        QVERIFY(ui::FlameGraphPainter::diffColor(100, 40, 0, false).blue() > ui::FlameGraphPainter::diffColor(100, 40, 0, false).red());
        QVERIFY(grew.red() > grew.blue());
        // fresh: only in NEW, the grown color with a hatch of a darker shade over it.
        QSet<QRgb> freshPixels;
        for (int x = at(20); x < at(40); ++x)
            freshPixels << image.pixel(x, y);
        QVERIFY(freshPixels.contains(ui::FlameGraphPainter::diffColor(0, 60, 0, false).rgb()));
        QVERIFY2(freshPixels.size() >= 2, "no hatch over the frame only in the new profile");
        QVERIFY(image.pixelColor(at(395), y) != background);

        // The threshold: changes up to 60% of the larger total (400) are noise, so 'grows' (+100)
        // and 'shrinks' (-60) are drawn neutral; the fresh stack keeps its mark.
        const QColor neutral = ui::FlameGraphPainter::diffColor(0, 0, 0, false);
        const Run quiet = runSymflame({ QStringLiteral("diff"), QStringLiteral("render"), path("base.pb.gz"),
            path("new.pb.gz"), QStringLiteral("-o"), out, QStringLiteral("--width=800"), QStringLiteral("--diff-threshold=60") });
        QVERIFY2(quiet.exitCode == 0, quiet.err.constData());
        const QImage quietImage(out);
        QCOMPARE(quietImage.pixelColor(at(200), y), neutral);
        QCOMPARE(quietImage.pixelColor(at(395), y), neutral);
        // Absolute saturation: the largest change below the root is 100 (main and 'grows'), so
        // 'shrinks' (-60 of 100) is paler than relative colors draw it (a drop of 60%: full).
        const Run absolute = runSymflame({ QStringLiteral("diff"), QStringLiteral("render"), path("base.pb.gz"),
            path("new.pb.gz"), QStringLiteral("-o"), out, QStringLiteral("--width=800"), QStringLiteral("--diff-colors=absolute") });
        QVERIFY2(absolute.exitCode == 0, absolute.err.constData());
        const QImage absoluteImage(out);
        QCOMPARE(absoluteImage.pixelColor(at(200), y), ui::FlameGraphPainter::diffColor(100, 200, 0, false, 100));
        QCOMPARE(absoluteImage.pixelColor(at(395), y), ui::FlameGraphPainter::diffColor(100, 40, 0, false, 100));
        QVERIFY(ui::FlameGraphPainter::diffColor(100, 40, 0, false, 100).hsvSaturation()
            < ui::FlameGraphPainter::diffColor(100, 40, 0, false).hsvSaturation());
        // Widths by the size of the change: fresh (+60), grows (+100), shrinks (-60) side by side
        // over 220 in name order, 'same' (no change) left out.
        const Run byChange = runSymflame({ QStringLiteral("diff"), QStringLiteral("render"), path("base.pb.gz"),
            path("new.pb.gz"), QStringLiteral("-o"), out, QStringLiteral("--width=800"), QStringLiteral("--diff-width=change") });
        QVERIFY2(byChange.exitCode == 0, byChange.err.constData());
        const QImage changeImage(out);
        const auto atChange = [](double v) { return int(800 * v / 220); };
        int row = changeImage.height() - 1;
        while (row > 0 && changeImage.pixelColor(atChange(110), row) != grew)
            --row;
        QVERIFY2(row > 0, "no frame in the color of a function that doubled");
        QCOMPARE(changeImage.pixelColor(atChange(190), row), ui::FlameGraphPainter::diffColor(100, 40, 0, false));
        QVERIFY(changeImage.pixelColor(atChange(219), row) != neutral); // 'same' is not drawn
        for (const char* wrong : { "--diff-threshold=lots", "--diff-threshold=-1", "--diff-colors=loud", "--diff-width=wide" }) {
            const Run refused = runSymflame({ QStringLiteral("diff"), QStringLiteral("render"), path("base.pb.gz"),
                path("new.pb.gz"), QStringLiteral("-o"), out, QString::fromUtf8(wrong) });
            QVERIFY2(refused.exitCode == 64, wrong); // EX_USAGE
            QVERIFY2(refused.err.contains("--diff-"), refused.err.constData());
        }

        // Bad input: BASE and NEW of other sample types; render without -o.
        const Run bad = runSymflame({ QStringLiteral("diff"), QStringLiteral("render"), path("base.pb.gz"),
            QString::fromUtf8(fixtures::goHeapProfile), QStringLiteral("-o"), out });
        QVERIFY(bad.exitCode != 0);
        QVERIFY2(bad.err.contains("cannot be compared"), bad.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
