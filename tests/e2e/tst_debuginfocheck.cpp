// `symflame debuginfo check BIN...`: per file the build IDs, DWARF versions and units (against
// llvm-dwarfdump-19 and readelf on the same files), compression, symbol tables, the debug info
// that would be used, and the exit code a CI pipeline checks: 0 when every file symbolizes with
// lines, 1 when one does not, 2 when one can't be read.
#include "processhelpers.h"
#include "symfixturehelpers.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <set>

namespace {

using Run = symflame::testing::ProcessResult;
using symflame::testing::runSymflame;

// llvm-dwarfdump's unit headers: the set of versions and the number of compile units.
std::pair<std::set<int>, int> dwarfdumpUnits(const QString& file)
{
    const QByteArray out = symtest::run(SYMFLAME_LLVM_DWARFDUMP, { "--debug-info", "--show-children=0", file });
    std::set<int> versions;
    int units = 0;
    static const QRegularExpression re(QStringLiteral("Compile Unit: .*version = 0x([0-9a-f]+)"));
    for (const QString& line : QString::fromUtf8(out).split('\n')) {
        const auto m = re.match(line);
        if (m.hasMatch()) {
            versions.insert(m.captured(1).toInt(nullptr, 16));
            ++units;
        }
    }
    return { versions, units };
}

QString readelfBuildId(const QString& file)
{
    const QByteArray out = symtest::run("readelf", { "-n", file });
    static const QRegularExpression re(QStringLiteral("Build ID: ([0-9a-f]+)"));
    return re.match(QString::fromUtf8(out)).captured(1);
}

} // namespace

class TestDebuginfoCheck : public QObject {
    Q_OBJECT

private slots:
    void jsonAgreesWithPeers()
    {
        const QStringList files = { symtest::fixture("cxx_pie"), symtest::fixture("cxx_dwarf4"),
            symtest::fixture("cxx_zstd"), symtest::fixture("cxx_zlib"), symtest::fixture("c_pie"),
            symtest::fixture("rust_prog") };
        const Run r = runSymflame(QStringList { "debuginfo", "check", "--json" } + files);
        QCOMPARE(r.exitCode, 0);
        const QJsonArray a = QJsonDocument::fromJson(r.out).array();
        QCOMPARE(a.size(), files.size());
        for (int i = 0; i < files.size(); ++i) {
            const QJsonObject o = a[i].toObject();
            QCOMPARE(o["path"].toString(), files[i]);
            QCOMPARE(o["verdict"].toString(), QString("lines"));
            QCOMPARE(o["gnu_build_id"].toString(), readelfBuildId(files[i]));
            const auto [versions, units] = dwarfdumpUnits(files[i]);
            QVERIFY2(units > 0, qPrintable(files[i]));
            const QJsonObject d = o["dwarf"].toObject();
            QCOMPARE(d["units"].toInt(), units);
            QCOMPARE(d["min_version"].toInt(), *versions.begin());
            QCOMPARE(d["max_version"].toInt(), *versions.rbegin());
            QCOMPARE(o["source"].toString(), QString("dwarf in binary"));
        }
        QCOMPARE(a[1].toObject()["dwarf"].toObject()["max_version"].toInt(), 4); // cxx_dwarf4
        QCOMPARE(a[2].toObject()["dwarf"].toObject()["compression"].toString(), QString("zstd"));
        QCOMPARE(a[3].toObject()["dwarf"].toObject()["compression"].toString(), QString("zlib"));
        QCOMPARE(a[0].toObject()["dwarf"].toObject()["compression"].toString(), QString("none"));
    }

    void separateDebugFileAndExitCodes()
    {
        // A stripped binary whose debug file lies in a build-id directory: lines only when the
        // directory is given.
        QTemporaryDir tmp;
        const QString orig = symtest::fixture("c_pie");
        const QString stripped = tmp.filePath("c_pie");
        const QString id = readelfBuildId(orig);
        QVERIFY(!id.isEmpty());
        QVERIFY(QDir().mkpath(tmp.filePath("debug/.build-id/" + id.left(2))));
        const QString debugFile = tmp.filePath("debug/.build-id/" + id.left(2) + "/" + id.mid(2) + ".debug");
        QCOMPARE(QProcess::execute("objcopy", { "--only-keep-debug", orig, debugFile }), 0);
        QCOMPARE(QProcess::execute("strip", { "--strip-all", orig, "-o", stripped }), 0);
        QVERIFY(QFile::exists(debugFile) && QFile::exists(stripped));

        Run r = runSymflame({ "debuginfo", "check", stripped });
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.out.contains("NOTHING") || r.out.contains("NO LINES"), r.out.constData());
        QVERIFY(r.out.contains(id.mid(2).toUtf8() + ".debug: not found")); // the tried build-id path

        r = runSymflame({ "debuginfo", "check", "--debug-dir", tmp.filePath("debug"), stripped });
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("OK: functions, files and lines"), r.out.constData());
        QVERIFY(r.out.contains(debugFile.toUtf8()));
        QVERIFY(r.out.contains("(build-id directory)"));

        // Names only (a symbol table), then an unreadable file: the worst wins.
        r = runSymflame({ "debuginfo", "check", symtest::fixture("cxx_pie"), symtest::fixture("cxx_symtab") });
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.out.contains("NO LINES: function names only"));
        QFile junk(tmp.filePath("junk"));
        QVERIFY(junk.open(QIODevice::WriteOnly));
        junk.write("not an elf file at all");
        junk.close();
        r = runSymflame({ "debuginfo", "check", symtest::fixture("cxx_symtab"), junk.fileName() });
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.out.contains("UNREADABLE"));
        // One line on stderr naming the file and the problem, as for every bad input.
        QCOMPARE(QString::fromUtf8(r.err).trimmed(), QString("symflame: " + junk.fileName() + ": not an ELF file"));
        r = runSymflame({ "debuginfo", "check" });
        QCOMPARE(r.exitCode, 64);
    }
};

QTEST_GUILESS_MAIN(TestDebuginfoCheck)
#include "tst_debuginfocheck.moc"
