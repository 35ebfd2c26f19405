// `symflame symbolize` end to end on the real gperftools fixture (cxx-unsym.pb.gz: addresses
// and mappings only, the mappings naming the fixture binaries by path): the written profile read
// by `go tool pprof -top -symbolize=none` names the fixture's functions with the same flat and
// cum values as upstream pprof's binutils-symbolized conversion of the same run (cxx-sym.pb.gz),
// `symflame info --json` counts the symbolized locations, the per-mapping report (text and JSON),
// the input left untouched, and the exit codes of refused and malformed command lines.
#include "fixtures/fixturepaths.h"
#include "pproforacle.h"

#include <QByteArray>
#include <QCryptographicHash>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <iterator>

using namespace symflame;
using namespace symflame::oracle;
using symflame::testing::runSymflame;

namespace {

// Functions the cxxprog fixture defines (tests/fixtures/cxxprog), as pprof prints them once
// its parameter lists are dropped (upstream pprof simplifies names, symflame keeps them whole).
const char* const kFixtureFunctions[] = {
    "main",
    "(anonymous namespace)::fib",
    "(anonymous namespace)::hashWords",
    "(anonymous namespace)::sieve",
    "sfwork::checksumRounds",
    "sfwork::multiply",
    "sfwork::treeSum",
    "sfwork::(anonymous namespace)::build",
    "sfwork::(anonymous namespace)::sum",
    "mixBits", // always_inline into hashWords: DWARF names the inlined copy without its namespace
};
// Where most of the CPU time goes: present in every run of the fixture.
const char* const kHotFunctions[] = {
    "main", "(anonymous namespace)::fib", "(anonymous namespace)::sieve", "sfwork::checksumRounds",
};

// The fixture function a -top name stands for, or an empty string.
QString fixtureKey(const QString& name)
{
    for (const char* f : kFixtureFunctions) {
        const QLatin1String key(f);
        if (name == key || (name.startsWith(key) && name.mid(key.size()).startsWith(QLatin1Char('('))))
            return key;
    }
    return {};
}

QByteArray fileHash(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256);
}

QList<QByteArray> lines(const QByteArray& text)
{
    QList<QByteArray> l = text.split('\n');
    if (!l.isEmpty() && l.last().isEmpty())
        l.removeLast();
    return l;
}

// `go tool pprof -top` of file, every node, exact nanoseconds; fixture function (with -lines:
// "function file:line") -> {flat, cum}.
std::optional<QHash<QString, std::pair<int64_t, int64_t>>> fixtureTop(const QString& file, bool byLine, QString* error)
{
    QStringList args = { QStringLiteral("tool"), QStringLiteral("pprof"), QStringLiteral("-top"),
        QStringLiteral("-symbolize=none"), QStringLiteral("-nodecount=0"), QStringLiteral("-nodefraction=0"),
        QStringLiteral("-edgefraction=0"), QStringLiteral("-unit=nanoseconds"), file };
    if (byLine)
        args.insert(3, QStringLiteral("-lines"));
    const QString go = QString::fromUtf8(fixtures::goExecutable);
    const ProcessResult r = runProcess(go, args);
    if (!r.ok()) {
        *error = r.describe(go, args);
        return std::nullopt;
    }
    const auto table = parseTop(r.out, error);
    if (!table)
        return std::nullopt;
    QHash<QString, std::pair<int64_t, int64_t>> out;
    for (const TopRow& row : table->rows) {
        QString name = row.name, where;
        if (byLine) {
            const qsizetype space = name.lastIndexOf(QLatin1Char(' '));
            if (space < 0)
                continue;
            where = name.mid(space);
            name.truncate(space);
        }
        QString key = fixtureKey(name);
        if (key.isEmpty())
            continue;
        key += where;
        if (out.contains(key)) {
            *error = QStringLiteral("two -top rows for %1 in %2").arg(key, file);
            return std::nullopt;
        }
        out.insert(key, { row.flat, row.cum });
    }
    return out;
}

// symflame info --json FILE: mapping file -> {locations, symbolized}.
std::optional<QHash<QString, std::pair<qint64, qint64>>> infoMappings(const QString& file, QString* error)
{
    const QStringList args = { QStringLiteral("info"), QStringLiteral("--json"), file };
    const ProcessResult r = runSymflame(args);
    if (!r.ok()) {
        *error = r.describe(QStringLiteral(SYMFLAME_EXECUTABLE), args);
        return std::nullopt;
    }
    const QJsonDocument doc = QJsonDocument::fromJson(r.out);
    if (!doc.isObject()) {
        *error = QStringLiteral("info --json is no JSON object");
        return std::nullopt;
    }
    QHash<QString, std::pair<qint64, qint64>> out;
    for (const QJsonValue& v : doc.object().value(QLatin1String("mappings")).toArray()) {
        const QJsonObject m = v.toObject();
        out.insert(m.value(QLatin1String("file")).toString(),
            { m.value(QLatin1String("locations")).toInteger(), m.value(QLatin1String("symbolized")).toInteger() });
    }
    return out;
}

} // namespace

class TestSymbolizeCli : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_in = QString::fromUtf8(fixtures::cxxUnsymbolizedProfile);
    QByteArray m_inHash;
    QString m_out;
    ProcessResult m_run; // the symbolize run of initTestCase

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QVERIFY2(QFileInfo::exists(m_in), qPrintable(m_in));
        m_inHash = fileHash(m_in);
        QVERIFY(!m_inHash.isEmpty());
        m_out = m_dir.filePath(QStringLiteral("cxx-symbolized.pb.gz"));
        const QStringList args = { QStringLiteral("symbolize"), m_in, QStringLiteral("-o"), m_out };
        m_run = runSymflame(args);
        QVERIFY2(m_run.ok(), qPrintable(m_run.describe(QStringLiteral(SYMFLAME_EXECUTABLE), args)));
        QVERIFY2(m_run.err.isEmpty(), m_run.err.constData());
        QVERIFY(QFileInfo(m_out).size() > 0);
    }

    // (a) pprof reads the output and names the fixture's functions, with the values upstream
    // pprof's binutils symbolization gives the same run, per function and per source line (so
    // leaf and non-leaf addresses were looked up where binutils looks them up); the input names
    // none of them.
    void pprofShowsFixtureFunctions_data()
    {
        QTest::addColumn<bool>("byLine");
        QTest::addRow("functions") << false;
        QTest::addRow("lines") << true;
    }
    void pprofShowsFixtureFunctions()
    {
        QFETCH(bool, byLine);
        QString error;
        const auto ours = fixtureTop(m_out, byLine, &error);
        QVERIFY2(ours, qPrintable(error));
        const auto oracle = fixtureTop(QString::fromUtf8(fixtures::cxxSymbolizedProfile), byLine, &error);
        QVERIFY2(oracle, qPrintable(error));
        const auto before = fixtureTop(m_in, byLine, &error);
        QVERIFY2(before, qPrintable(error));
        QVERIFY2(before->isEmpty(), qPrintable(QStringList(before->keys()).join(QLatin1String(", "))));

        if (!byLine) {
            for (const char* f : kHotFunctions) {
                QVERIFY2(ours->contains(QLatin1String(f)), f);
                QVERIFY2(ours->value(QLatin1String(f)).second > 0, f);
            }
        }
        QVERIFY(ours->size() >= int(std::size(kHotFunctions)));
        QStringList keys = ours->keys() + oracle->keys();
        keys.removeDuplicates();
        QStringList mismatches;
        for (const QString& key : keys) {
            if (ours->contains(key) != oracle->contains(key) || ours->value(key) != oracle->value(key))
                mismatches << QStringLiteral("%1: symflame %2/%3, upstream pprof %4/%5")
                                  .arg(key)
                                  .arg(ours->value(key).first)
                                  .arg(ours->value(key).second)
                                  .arg(oracle->value(key).first)
                                  .arg(oracle->value(key).second);
        }
        QVERIFY2(mismatches.isEmpty(), qPrintable(mismatches.join(QLatin1String("; "))));
    }

    // (b) info counts the main binary's (and the library's) locations as symbolized.
    void infoCountsSymbolizedLocations()
    {
        QString error;
        const auto before = infoMappings(m_in, &error);
        QVERIFY2(before, qPrintable(error));
        const auto after = infoMappings(m_out, &error);
        QVERIFY2(after, qPrintable(error));
        for (const char* binary : { fixtures::cxxBinary, fixtures::cxxLibrary }) {
            const QString file = QString::fromUtf8(binary);
            QVERIFY2(before->contains(file) && after->contains(file), binary);
            QCOMPARE(before->value(file).second, qint64(0));
            QVERIFY(before->value(file).first > 0);
            QCOMPARE(after->value(file).first, before->value(file).first);
            QVERIFY2(after->value(file).second > 0, binary);
        }
    }

    // One report line per mapping: path, build ID, status, source, resolved/total.
    void textReport()
    {
        QString error;
        const auto after = infoMappings(m_out, &error);
        QVERIFY2(after, qPrintable(error));
        const QList<QByteArray> report = lines(m_run.out);
        QCOMPARE(report.size(), after->size());
        const QByteArray binary(fixtures::cxxBinary);
        bool seen = false;
        for (const QByteArray& line : report) {
            if (!line.startsWith(binary + "  "))
                continue;
            seen = true;
            QVERIFY2(line.contains("  found  "), line.constData());
            QVERIFY2(line.contains("dwarf"), line.constData());
            const qint64 total = after->value(QString::fromUtf8(binary)).first;
            const qint64 resolved = after->value(QString::fromUtf8(binary)).second;
            QVERIFY2(line.endsWith("  " + QByteArray::number(resolved) + '/' + QByteArray::number(total)),
                line.constData());
        }
        QVERIFY(seen);
        // Pseudo-mappings ([vdso], [vsyscall]) are reported as not applicable. Whether one is in
        // the profile depends on whether a sample landed there in this run (pprof's conversion
        // keeps only mappings that samples use); tst_symbolizer covers [vdso] deterministically.
        for (const QByteArray& line : report)
            if (line.startsWith('['))
                QVERIFY2(line.contains("  not applicable  "), line.constData());
    }

    void jsonReport()
    {
        const QString out = m_dir.filePath(QStringLiteral("json.pb.gz"));
        const QStringList args = { QStringLiteral("symbolize"), m_in, QStringLiteral("-o"), out,
            QStringLiteral("--json-report") };
        const ProcessResult r = runSymflame(args);
        QVERIFY2(r.ok(), qPrintable(r.describe(QStringLiteral(SYMFLAME_EXECUTABLE), args)));
        QJsonParseError parseError;
        const QJsonDocument doc = QJsonDocument::fromJson(r.out, &parseError);
        QVERIFY2(doc.isArray(), qPrintable(parseError.errorString()));
        QString error;
        const auto after = infoMappings(out, &error);
        QVERIFY2(after, qPrintable(error));
        QCOMPARE(doc.array().size(), after->size());
        bool seen = false;
        for (const QJsonValue& v : doc.array()) {
            const QJsonObject m = v.toObject();
            const QString path = m.value(QLatin1String("path")).toString();
            QVERIFY2(after->contains(path), qPrintable(path));
            QCOMPARE(m.value(QLatin1String("locations")).toInteger(), after->value(path).first);
            QCOMPARE(m.value(QLatin1String("resolved")).toInteger(), after->value(path).second);
            if (path == QLatin1String(fixtures::cxxBinary)) {
                seen = true;
                QCOMPARE(m.value(QLatin1String("status")).toString(), QStringLiteral("found"));
                QCOMPARE(m.value(QLatin1String("source")).toString(), QStringLiteral("dwarf in binary"));
                QCOMPARE(m.value(QLatin1String("binary_path")).toString(), path);
                // The gperftools conversion records no build IDs: used by path, flagged.
                QCOMPARE(m.value(QLatin1String("build_id")).toString(), QString());
                QCOMPARE(m.value(QLatin1String("unverified")).toBool(), true);
                QVERIFY(m.value(QLatin1String("resolved")).toInteger() > 0);
            }
        }
        QVERIFY(seen);
    }

    // (c) IN is never written: unchanged after the runs, and -o IN (also through a symlink) is
    // refused with one line and exit 2, leaving no output behind.
    void inputUntouched()
    {
        QCOMPARE(fileHash(m_in), m_inHash);
        const QString link = m_dir.filePath(QStringLiteral("link-to-input.pb.gz"));
        QVERIFY(QFile::link(m_in, link));
        for (const QString& target : { m_in, link }) {
            const ProcessResult r = runSymflame({ QStringLiteral("symbolize"), m_in, QStringLiteral("-o"), target });
            QCOMPARE(r.exitCode, 2);
            QVERIFY(r.out.isEmpty());
            QCOMPARE(lines(r.err).size(), 1);
            QVERIFY2(r.err.startsWith("symflame: "), r.err.constData());
            QVERIFY2(r.err.contains("refusing to overwrite the input file"), r.err.constData());
            QCOMPARE(fileHash(m_in), m_inHash);
        }
        QVERIFY(QFileInfo(link).isSymLink());
    }

    void unwritableOutput()
    {
        const QString out = m_dir.filePath(QStringLiteral("no-such-dir/out.pb.gz"));
        const ProcessResult r = runSymflame({ QStringLiteral("symbolize"), m_in, QStringLiteral("-o"), out });
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.out.isEmpty());
        QCOMPARE(lines(r.err).size(), 1);
        QVERIFY2(r.err.contains(out.toUtf8()), r.err.constData());
        QVERIFY(!QFileInfo::exists(out));
    }

    void unreadableInput()
    {
        const QString in = m_dir.filePath(QStringLiteral("missing.pb.gz"));
        const QString out = m_dir.filePath(QStringLiteral("never.pb.gz"));
        const ProcessResult r = runSymflame({ QStringLiteral("symbolize"), in, QStringLiteral("-o"), out });
        QCOMPARE(r.exitCode, 2);
        QCOMPARE(lines(r.err).size(), 1);
        QVERIFY2(r.err.contains(in.toUtf8()), r.err.constData());
        QVERIFY(!QFileInfo::exists(out));
    }

    // (d) usage errors: exit 64, one line, nothing written.
    void usageErrors_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QByteArray>("expected");
        const QString in = QString::fromUtf8(fixtures::cxxUnsymbolizedProfile);
        QTest::addRow("missing -o") << QStringList { "symbolize", in } << QByteArray("missing -o OUT");
        QTest::addRow("missing IN") << QStringList { "symbolize", "-o", "x.pb.gz" } << QByteArray("missing IN");
        QTest::addRow("path map without =")
            << QStringList { "symbolize", in, "-o", "x.pb.gz", "--path-map", "/build" } << QByteArray("FROM=TO");
        QTest::addRow("path map without target")
            << QStringList { "symbolize", in, "-o", "x.pb.gz", "--path-map=/build=" } << QByteArray("FROM=TO");
        QTest::addRow("debug dir without value")
            << QStringList { "symbolize", in, "-o", "x.pb.gz", "--debug-dir" } << QByteArray("needs a value");
        QTest::addRow("unknown option")
            << QStringList { "symbolize", in, "-o", "x.pb.gz", "--bogus" } << QByteArray("'--bogus'");
        QTest::addRow("two inputs") << QStringList { "symbolize", in, in, "-o", "x.pb.gz" }
                                    << QByteArray("unexpected argument");
    }
    void usageErrors()
    {
        QFETCH(QStringList, args);
        QFETCH(QByteArray, expected);
        QProcess p;
        p.setWorkingDirectory(m_dir.path());
        p.start(QStringLiteral(SYMFLAME_EXECUTABLE), args);
        QVERIFY(p.waitForStarted(20000) && p.waitForFinished(60000));
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 64);
        const QByteArray err = p.readAllStandardError();
        QVERIFY(p.readAllStandardOutput().isEmpty());
        QCOMPARE(lines(err).size(), 1);
        QVERIFY2(err.startsWith("symflame: symbolize: "), err.constData());
        QVERIFY2(err.contains(expected), err.constData());
        QVERIFY(!QFileInfo::exists(m_dir.filePath(QStringLiteral("x.pb.gz"))));
    }

    void help()
    {
        const ProcessResult r = runSymflame({ QStringLiteral("--help") });
        QVERIFY(r.ok());
        for (const char* text : { "symbolize IN -o OUT", "--debug-dir D", "--search-path D", "--path-map", "--json-report" })
            QVERIFY2(r.out.contains(text), text);
    }
};

QTEST_GUILESS_MAIN(TestSymbolizeCli)
#include "tst_symbolizecli.moc"
