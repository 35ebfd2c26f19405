// `symflame source` on the inlinetwo fixture (tests/fixtures/inlinetwo): a hot function inlined
// into two callers, profiled with gperftools, unsymbolized. The per-line costs must equal counts
// the test makes itself from the inline chains of the same profile symbolized by `symflame
// symbolize`; the callee's lines carry the cost of both copies and each caller's call line its
// share. The source, recorded as /nonexistent/inlinetwo/main.cpp, is missing (every path tried
// is said, the costs still listed by line), found through a path map, and through a source
// directory. Bad patterns and unmatched ones get clear errors.
#include "debuginfod/debuginfodserver.h"
#include "fixtures/fixturepaths.h"
#include "processhelpers.h"
#include "symprofilehelpers.h"

#include "model/core/profile.h"
#include "model/io/profileio.h"
#include "symbolize/object/elffile.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <map>
#include <set>
#include <tuple>

using namespace symflame;
using symflame::testing::ProcessResult;
using symflame::testing::runSymflame;

namespace {

const QString kRecordedDir = QStringLiteral("/nonexistent/inlinetwo");

struct Cost {
    int64_t flat = 0, cum = 0;
    bool operator==(const Cost&) const = default;
};
using LineCosts = std::map<std::pair<std::string, int64_t>, Cost>; // (function, line) -> cost

// The test's own count over a symbolized profile's inline chains (sample type 1, cpu): the leaf
// frame (innermost entry of the first location) gets flat, each distinct (function, line) of
// the stack cum.
LineCosts countFromChains(const model::Profile& p, size_t type)
{
    LineCosts out;
    for (size_t s = 0; s < p.sampleCount(); ++s) {
        const auto locs = p.sampleStack(s);
        const int64_t v = p.values(s)[type];
        std::set<std::pair<std::string, int64_t>> seen;
        bool leaf = true;
        for (const model::LocationId id : locs) {
            for (const model::Line& l : p.linesOf(p.locations[id.index()])) {
                const model::Function& f = p.functions[l.function.index()];
                const std::pair<std::string, int64_t> key { std::string(p.str(f.name)), l.line };
                if (leaf)
                    out[key].flat += v;
                leaf = false;
                if (seen.insert(key).second)
                    out[key].cum += v;
            }
        }
    }
    return out;
}

LineCosts costsOf(const QJsonArray& functions)
{
    LineCosts out;
    for (const QJsonValue& f : functions)
        for (const QJsonValue& l : f.toObject().value("lines").toArray())
            out[{ f.toObject().value("name").toString().toStdString(), l.toObject().value("line").toInteger() }]
                = Cost { l.toObject().value("flat").toInteger(), l.toObject().value("cum").toInteger() };
    return out;
}

QJsonObject functionNamed(const QJsonArray& functions, const QString& part)
{
    for (const QJsonValue& f : functions)
        if (f.toObject().value("name").toString().contains(part))
            return f.toObject();
    return {};
}

// The line number of the first line of the fixture's source holding text.
int64_t lineOf(const char* text)
{
    QFile f(QString::fromUtf8(fixtures::inlineTwoSourceDir) + "/main.cpp");
    if (!f.open(QIODevice::ReadOnly))
        return 0;
    for (int64_t n = 1; !f.atEnd(); ++n)
        if (f.readLine().contains(text))
            return n;
    return 0;
}

} // namespace

class TestSource : public QObject {
    Q_OBJECT

    QTemporaryDir m_tmp;

    QJsonArray sourceJson(const QStringList& extra)
    {
        const QStringList args = QStringList { "source", fixtures::inlineTwoProfile, "scramble|caller", "--sample-type",
                                     "cpu", "--json" }
            + extra;
        const ProcessResult r = runSymflame(args);
        if (!r.ok())
            qWarning("%s", qPrintable(r.describe("symflame", args) + r.err));
        return QJsonDocument::fromJson(r.out).object().value("functions").toArray();
    }

private slots:
    void initTestCase() { QVERIFY(m_tmp.isValid()); }

    void inlineAttribution()
    {
        const QString symbolized = m_tmp.filePath("inlinetwo-sym.pb.gz");
        const ProcessResult sym = runSymflame({ "symbolize", fixtures::inlineTwoProfile, "-o", symbolized });
        QVERIFY2(sym.ok(), sym.err.constData());
        auto profile = model::loadProfile(symbolized.toStdString());
        QVERIFY(profile);
        const int type = profile->findSampleType("cpu");
        QVERIFY(type >= 0);
        const LineCosts expected = countFromChains(*profile, size_t(type));

        const QJsonArray functions = sourceJson({});
        QCOMPARE(functions.size(), 3); // scramble, callerA, callerB
        const LineCosts got = costsOf(functions);
        // Every (function, line) with a cost, as the test counted it.
        LineCosts expectedListed;
        for (const auto& [key, cost] : expected)
            if ((key.first.find("scramble") != std::string::npos || key.first.find("caller") != std::string::npos)
                && (cost.flat != 0 || cost.cum != 0))
                expectedListed[key] = cost;
        QCOMPARE(got.size(), expectedListed.size());
        for (const auto& [key, cost] : expectedListed) {
            const auto it = got.find(key);
            QVERIFY2(it != got.end(), key.first.c_str());
            QVERIFY2(it->second == cost,
                qPrintable(QString("%1:%2 flat %3 cum %4, the chains say %5 %6")
                        .arg(QString::fromStdString(key.first))
                        .arg(key.second)
                        .arg(it->second.flat)
                        .arg(it->second.cum)
                        .arg(cost.flat)
                        .arg(cost.cum)));
        }

        // The shape: the callee's lines hold both copies' cost; each caller's call line has its share.
        const QJsonObject scramble = functionNamed(functions, "scramble");
        const QJsonObject a = functionNamed(functions, "callerA"), b = functionNamed(functions, "callerB");
        QVERIFY(!scramble.isEmpty() && !a.isEmpty() && !b.isEmpty());
        const int64_t callA = lineOf("h = scramble(h + i)"), callB = lineOf("h += scramble(h ^ (i << 1))");
        QVERIFY(callA > 0 && callB > 0);
        const auto costAt = [&](const QJsonObject& f, int64_t line) {
            return got.at({ f.value("name").toString().toStdString(), line });
        };
        const int64_t total = profile->totalValue(size_t(type));
        QVERIFY2(scramble.value("cum").toInteger() > total / 2, "the inlined callee is not the hot one");
        QVERIFY(costAt(a, callA).cum > 0 && costAt(b, callB).cum > 0);
        // Every sample in scramble is in one of the two inlined copies, at one of the call lines.
        QVERIFY(costAt(a, callA).cum + costAt(b, callB).cum >= scramble.value("cum").toInteger());
        int64_t linesOfScramble = 0;
        for (const QJsonValue& l : scramble.value("lines").toArray()) {
            QVERIFY(l.toObject().value("line").toInteger() >= lineOf("inline uint64_t scramble"));
            QVERIFY(l.toObject().value("line").toInteger() < lineOf("uint64_t callerA"));
            linesOfScramble += l.toObject().value("flat").toInteger();
        }
        QCOMPARE(linesOfScramble, scramble.value("flat").toInteger());
        qInfo("scramble %lld of %lld; call lines: callerA %lld, callerB %lld", qlonglong(scramble.value("cum").toInteger()),
            qlonglong(total), qlonglong(costAt(a, callA).cum), qlonglong(costAt(b, callB).cum));
    }

    // Recorded as /nonexistent/...: not found, every path tried said, the costs still by line.
    void missingSource()
    {
        const QString otherDir = m_tmp.filePath("empty");
        QVERIFY(QDir().mkpath(otherDir));
        const QJsonArray functions = sourceJson({ "--source-dir", otherDir });
        QCOMPARE(functions.size(), 3);
        for (const QJsonValue& f : functions) {
            const QJsonObject source = f.toObject().value("source").toObject();
            QVERIFY(!source.value("found").toBool());
            const QJsonArray tried = source.value("tried").toArray();
            QCOMPARE(tried.first().toString(), kRecordedDir + "/main.cpp: not found");
            QVERIFY(tried.contains(QJsonValue(otherDir + "/main.cpp: not found")));
            QVERIFY(!f.toObject().value("lines").toArray().isEmpty());
            for (const QJsonValue& l : f.toObject().value("lines").toArray())
                QVERIFY(!l.toObject().contains("text"));
        }
        const ProcessResult text = runSymflame({ "source", fixtures::inlineTwoProfile, "scramble" });
        QVERIFY2(text.ok(), text.err.constData());
        QVERIFY2(text.out.contains(" Source not found: " + kRecordedDir.toUtf8() + "/main.cpp (tried "), text.out.constData());
        QVERIFY2(text.out.contains(QByteArray::number(lineOf("x ^= x >> 29")) + ":\n"), text.out.constData());
    }

    // Found through a path map, and through a source directory (the file's name under it).
    void foundByPathMapAndSourceDir_data()
    {
        QTest::addColumn<QStringList>("options");
        const QString dir = QString::fromUtf8(fixtures::inlineTwoSourceDir);
        QTest::newRow("path map") << QStringList { "--path-map", kRecordedDir + "=" + dir };
        QTest::newRow("source dir") << QStringList { "--source-dir", dir };
    }
    void foundByPathMapAndSourceDir()
    {
        QFETCH(QStringList, options);
        const QString file = QString::fromUtf8(fixtures::inlineTwoSourceDir) + "/main.cpp";
        const QJsonArray functions = sourceJson(options);
        QCOMPARE(functions.size(), 3);
        for (const QJsonValue& f : functions) {
            const QJsonObject source = f.toObject().value("source").toObject();
            QVERIFY(source.value("found").toBool());
            QCOMPARE(source.value("path").toString(), file);
            for (const QJsonValue& l : f.toObject().value("lines").toArray()) {
                const int64_t n = l.toObject().value("line").toInteger();
                QFile src(file);
                QVERIFY(src.open(QIODevice::ReadOnly));
                QByteArray line;
                for (int64_t i = 0; i < n; ++i)
                    line = src.readLine();
                QCOMPARE(l.toObject().value("text").toString(), QString::fromUtf8(line).chopped(1));
            }
        }
        const ProcessResult text = runSymflame(QStringList { "source", fixtures::inlineTwoProfile, "scramble" } + options);
        QVERIFY2(text.ok(), text.err.constData());
        QVERIFY2(text.out.contains(":    x ^= x >> 29;\n"), text.out.constData());
    }

    // A source file that changed since the build is said (stderr; JSON's source.warning), as the
    // source view says it: modified after the binary (inlinetwo, gcc: no MD5 recorded); with
    // DWARF 5's MD5 (dwarf5md5, clang), the checksum decides: a copy touched now but equal gets
    // nothing, one byte changed with size and time kept gets the MD5 warning.
    void changedSource()
    {
        const auto run = [](const QString& profile, const QString& pattern, const QString& dir) {
            const ProcessResult text = runSymflame({ "source", profile, pattern, "--source-dir", dir });
            const ProcessResult json = runSymflame({ "source", profile, pattern, "--source-dir", dir, "--json" });
            QString warning;
            for (const QJsonValue& f : QJsonDocument::fromJson(json.out).object().value("functions").toArray())
                if (const QString w = f.toObject().value("source").toObject().value("warning").toString(); !w.isEmpty())
                    warning = w;
            return std::make_tuple(text.ok() && json.ok(), QString::fromUtf8(text.err), warning);
        };
        const auto [ok, err, warning] = run(fixtures::inlineTwoProfile, "scramble", fixtures::inlineTwoSourceDir);
        QVERIFY(ok);
        QVERIFY2(!err.contains("warning"), qPrintable(err));
        QVERIFY2(warning.isEmpty(), qPrintable(warning));

        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QVERIFY(QFile::copy(QString::fromUtf8(fixtures::inlineTwoSourceDir) + "/main.cpp", dir.filePath("main.cpp")));
        QFile edited(dir.filePath("main.cpp")); // written now, after the build
        QVERIFY(edited.open(QIODevice::Append));
        edited.write("// edited\n");
        edited.close();
        const auto [ok2, err2, warning2] = run(fixtures::inlineTwoProfile, "scramble", dir.path());
        QVERIFY(ok2);
        const QString expected = dir.filePath("main.cpp") + " was modified after inlinetwo was built";
        QVERIFY2(err2.contains("symflame: warning: " + expected), qPrintable(err2));
        QCOMPARE(err2.count("warning:"), 1); // once per file, not per function
        QVERIFY2(warning2.startsWith(expected), qPrintable(warning2));

        const QString source = QString::fromUtf8(fixtures::dwarf5Md5SourceDir) + "/main.c";
        QTemporaryDir md5Dir;
        QVERIFY(md5Dir.isValid());
        const QString copy = md5Dir.filePath("main.c");
        QVERIFY(QFile::copy(source, copy));
        QVERIFY(QProcess::execute(QStringLiteral("touch"), { copy }) == 0); // newer, same bytes
        const auto [ok3, err3, warning3] = run(fixtures::dwarf5Md5Profile, "mix", md5Dir.path());
        QVERIFY(ok3);
        QVERIFY2(warning3.isEmpty() && !err3.contains("warning"), qPrintable(err3 + warning3));
        QFile f(copy);
        QVERIFY(f.open(QIODevice::ReadWrite));
        QByteArray bytes = f.readAll();
        const qsizetype at = bytes.indexOf("h ^= h >> 29;");
        QVERIFY(at > 0);
        bytes[at + 11] = '8';
        QVERIFY(f.seek(0) && f.write(bytes) == bytes.size());
        f.close();
        QVERIFY(QProcess::execute(QStringLiteral("touch"), { QStringLiteral("-r"), source, copy }) == 0);
        QProcess md5sum;
        md5sum.start(QStringLiteral("md5sum"), { source });
        QVERIFY(md5sum.waitForFinished(10000));
        const QString recorded = QString::fromUtf8(md5sum.readAllStandardOutput().left(32));
        const auto [ok4, err4, warning4] = run(fixtures::dwarf5Md5Profile, "mix", md5Dir.path());
        QVERIFY(ok4);
        QVERIFY2(warning4.contains("differs from the debug info's (" + recorded + ")"), qPrintable(warning4));
        QVERIFY2(err4.contains("differs from the debug info's (" + recorded + ")"), qPrintable(err4));
    }

    // A source file that is not on this machine comes from a debuginfod server, by the
    // binary's build ID and the path its debug info gives (/buildid/ID/source/PATH). The server
    // indexes a program and its source; the command runs in a private mount namespace where
    // that directory is an empty tmpfs, as on a laptop without the checkout.
    void sourceFromDebuginfod()
    {
        const QString srv = m_tmp.filePath("srv"), client = m_tmp.filePath("client");
        for (const QString& d : { srv + "/src", client, m_tmp.filePath("db") })
            QVERIFY(QDir().mkpath(d));
        QFile src(srv + "/src/hot.c");
        QVERIFY(src.open(QIODevice::WriteOnly));
        src.write("#include <stdio.h>\n"
                  "__attribute__((noinline)) long hot(long n)\n"
                  "{\n"
                  "    long s = 0;\n"
                  "    for (long i = 0; i < n; ++i)\n"
                  "        s += i * i;\n"
                  "    return s;\n"
                  "}\n"
                  "int main(void) { printf(\"%ld\\n\", hot(1000)); return 0; }\n");
        src.close();
        QVERIFY(symflame::testing::runProcess("cc", { "-g", "-O1", "-Wl,--build-id", "-o", srv + "/prog", srv + "/src/hot.c" }).ok());
        QVERIFY(QFile::copy(srv + "/prog", client + "/prog"));
        auto elf = symbolize::ElfFile::open((client + "/prog").toStdString());
        QVERIFY(elf && !(*elf)->buildId().empty());
        const model::Profile profile = symtest::makeProfile(
            { symtest::Binary { "prog", (*elf)->buildId(), *elf, 0x555555554000 } }, { (client + "/prog").toStdString() });
        const QString in = m_tmp.filePath("hot.pb.gz");
        QVERIFY(model::saveProfile(profile, in.toStdString()));
        symtest::DebuginfodServer server(srv, m_tmp.filePath("db"));
        QVERIFY2(server.ok(), qPrintable(server.error()));

        const auto run = [&](const QStringList& extra) {
            const QString script = QStringLiteral("mount -t tmpfs tmpfs \"$1\" && shift && exec \"$@\"");
            return symflame::testing::runProcess("unshare",
                QStringList { "-m", "sh", "-c", script, "sh", srv, symflame::testing::symflameExecutable(), "source", in,
                    "^hot$", "--json" }
                    + extra);
        };
        const QString recorded = srv + "/src/hot.c";
        // Hidden and no server: not found, the path said.
        const ProcessResult offline = run({});
        QVERIFY2(offline.ok(), qPrintable(offline.describe("unshare", {}) + offline.err));
        QJsonObject source = QJsonDocument::fromJson(offline.out).object().value("functions").toArray().first().toObject().value("source").toObject();
        QVERIFY(!source.value("found").toBool());
        QCOMPARE(source.value("tried").toArray().first().toString(), recorded + ": not found");
        // With the server: fetched into the cache, the lines' text as written.
        const ProcessResult fetched = run({ "--debuginfod", QString::fromStdString(server.url()), "--debuginfod-cache", m_tmp.filePath("cache") });
        QVERIFY2(fetched.ok(), qPrintable(fetched.describe("unshare", {}) + fetched.err));
        const QJsonObject f = QJsonDocument::fromJson(fetched.out).object().value("functions").toArray().first().toObject();
        source = f.value("source").toObject();
        QVERIFY2(source.value("found").toBool(), fetched.out.constData());
        QVERIFY2(source.value("path").toString().startsWith(m_tmp.filePath("cache") + "/"), fetched.out.constData());
        const QJsonArray tried = source.value("tried").toArray();
        QVERIFY2(tried.last().toString().contains(QString::fromStdString("source from " + server.url() + "/buildid/")),
            fetched.out.constData());
        bool loopLine = false;
        for (const QJsonValue& l : f.value("lines").toArray())
            loopLine = loopLine || l.toObject().value("text").toString().contains("s += i * i;");
        QVERIFY2(loopLine, fetched.out.constData());
    }

    void badInput()
    {
        const ProcessResult badPattern = runSymflame({ "source", fixtures::inlineTwoProfile, "scramble(" });
        QCOMPARE(badPattern.exitCode, 64);
        QVERIFY2(badPattern.err.contains("invalid pattern 'scramble('"), badPattern.err.constData());
        const ProcessResult none = runSymflame({ "source", fixtures::inlineTwoProfile, "no_such_function" });
        QCOMPARE(none.exitCode, 2);
        QVERIFY2(none.err.contains("no function with source lines matches 'no_such_function'"), none.err.constData());
        const ProcessResult missingArg = runSymflame({ "source", fixtures::inlineTwoProfile });
        QCOMPARE(missingArg.exitCode, 64);
        const ProcessResult notAProfile = runSymflame({ "source", fixtures::inlineTwoSourceDir + QString("/main.cpp"), "x" });
        QCOMPARE(notAProfile.exitCode, 2);
        QCOMPARE(notAProfile.out, QByteArray());
    }
};

QTEST_GUILESS_MAIN(TestSource)
#include "tst_source.moc"
