// debuginfod: a real server (Debian's debuginfod, started here on 127.0.0.1) serves the debug
// files of stripped copies of the fixture binaries; profiles of those stripped binaries are
// symbolized with no local debug files, and must name every location exactly as the unstripped
// binaries do locally. A second run is served from the client cache with the server stopped.
// Faults come from a small HTTP server (debuginfod/faultyhttpserver.h): each ends in its
// status, in bounded time, and the other mappings still symbolize.
#include "debuginfod/debuginfodserver.h"
#include "debuginfod/faultyhttpserver.h"
#include "symfixturehelpers.h"
#include "symprofilehelpers.h"

#include "model/core/profile.h"
#include "symbolize/locate/debuginfodclient.h"
#include "symbolize/object/elffile.h"
#include "symbolize/pass/binarytriage.h"
#include "symbolize/pass/symbolizationpass.h"
#include "symbolize/object/symboltable.h"
#include "model/io/profileio.h"
#include "processhelpers.h"

#include <QDirIterator>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <map>

using namespace symflame;
using namespace symflame::symbolize;
using symtest::Binary;
using symtest::chains;
using symtest::makeProfile;
using symtest::runTool;

namespace {

const char* const kBinaries[] = { "cxx_pie", "libsfshapes.so", "c_pie" };

SymbolizeOptions localOnly()
{
    SymbolizeOptions o;
    o.locator.useDefaultDebugDir = false;
    return o;
}

class CancelAfter : public model::Progress {
public:
    explicit CancelAfter(int ms) { m_timer.start(), m_ms = ms; }
    bool isCancelled() const override { return m_timer.elapsed() > m_ms; }

private:
    QElapsedTimer m_timer;
    int m_ms = 0;
};

// A server that accepts connections and never answers (a hung proxy): a real socket on
// 127.0.0.1 whose connections the kernel completes and nobody reads.
class SilentListener {
public:
    SilentListener()
    {
        m_fd = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in a {};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (::bind(m_fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(m_fd, 128) != 0)
            return;
        socklen_t len = sizeof a;
        ::getsockname(m_fd, reinterpret_cast<sockaddr*>(&a), &len);
        m_port = ntohs(a.sin_port);
    }
    ~SilentListener() { ::close(m_fd); }
    int port() const { return m_port; }
    std::string url() const { return "http://127.0.0.1:" + std::to_string(m_port); }

private:
    int m_fd = -1;
    int m_port = 0;
};

size_t countOf(const std::string& text, const std::string& what)
{
    size_t n = 0;
    for (size_t at = text.find(what); !what.empty() && at != std::string::npos; at = text.find(what, at + what.size()))
        ++n;
    return n;
}

bool cacheHoldsAnyFile(const QString& cacheDir)
{
    QDirIterator it(cacheDir, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString f = it.next();
        if (f.endsWith("/debuginfo") || f.endsWith("/executable"))
            if (QFileInfo(f).size() > 0)
                return true;
    }
    return false;
}

} // namespace

class TestDebuginfod : public QObject {
    Q_OBJECT

    QTemporaryDir m_tmp;
    std::vector<Binary> m_bins;
    std::unique_ptr<symtest::DebuginfodServer> m_server;
    std::vector<std::string> m_reference; // chains of the unstripped profile, symbolized locally
    std::vector<std::string> m_strippedPaths;

    QString path(const QString& rel) const { return m_tmp.filePath(rel); }

private slots:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
        for (const char* d : { "orig", "server", "stripped", "db" })
            QVERIFY(QDir().mkpath(path(d)));
        uint64_t base = 0x7f1000000000;
        std::vector<std::string> origPaths;
        for (const char* name : kBinaries) {
            const QString src = symtest::fixture(name);
            const QString orig = path("orig/") + name;
            QVERIFY2(QFile::copy(src, orig), qPrintable(src));
            QVERIFY(runTool("objcopy", { "--only-keep-debug", orig, path("server/") + name + ".debug" }));
            QVERIFY(runTool("strip", { "--strip-all", orig, "-o", path("server/") + name }));
            QVERIFY(runTool("strip", { "--strip-all", orig, "-o", path("stripped/") + name }));
            auto elf = ElfFile::open(orig.toStdString());
            QVERIFY(elf);
            QVERIFY(!(*elf)->buildId().empty());
            m_bins.push_back(Binary { name, (*elf)->buildId(), *elf, base });
            base += 0x10000000;
            origPaths.push_back(orig.toStdString());
            m_strippedPaths.push_back((path("stripped/") + name).toStdString());
        }
        // The reference: the unstripped files' own DWARF.
        model::Profile ref = makeProfile(m_bins, origPaths);
        QVERIFY2(ref.locations.size() > 40, qPrintable(QString::number(ref.locations.size())));
        auto report = symbolizeProfile(ref, localOnly());
        QVERIFY(report);
        for (const MappingReport& m : report->mappings)
            QCOMPARE(m.source, DebugSource::Binary);
        m_reference = chains(ref);

        m_server = std::make_unique<symtest::DebuginfodServer>(path("server"), path("db"));
        QVERIFY2(m_server->ok(), qPrintable(m_server->error()));
    }

    void strippedBinariesSymbolizeFromServer()
    {
        model::Profile p = makeProfile(m_bins, m_strippedPaths);
        SymbolizeOptions o = localOnly();
        o.debuginfod.urls = { m_server->url() };
        o.debuginfod.cacheDir = path("cache-main").toStdString();
        // Without the server: names from nothing (the stripped files have no symbol table).
        {
            model::Profile offline = makeProfile(m_bins, m_strippedPaths);
            SymbolizeOptions off = o;
            off.debuginfod.offline = true;
            auto r = symbolizeProfile(offline, off);
            QVERIFY(r);
            QCOMPARE(r->downloads, uint64_t(0));
            for (const MappingReport& m : r->mappings) {
                QVERIFY2(m.source == DebugSource::DynamicSymbolTable || m.source == DebugSource::None, m.line().c_str());
                QVERIFY(m.debuginfod.empty());
            }
        }
        auto report = symbolizeProfile(p, o);
        QVERIFY(report);
        QCOMPARE(report->downloads, uint64_t(std::size(kBinaries)));
        for (const MappingReport& m : report->mappings) {
            QCOMPARE(m.status, LocateStatus::Found);
            QVERIFY2(m.source == DebugSource::Debuginfod, m.line().c_str());
            QVERIFY2(m.debuginfod.find(m_server->url()) != std::string::npos, m.line().c_str());
            QVERIFY2(m.line().find("debuginfod") != std::string::npos, m.line().c_str());
            QVERIFY2(m.resolved > 0, m.line().c_str());
            // Each thing said once (issue 23 item 6): the download's URL, the file read.
            QVERIFY2(countOf(m.line(), m_server->url()) == 1, m.line().c_str());
            QVERIFY2(countOf(m.line(), m.debugPath) == 1, m.line().c_str());
            QVERIFY2(countOf(m.summary, m_server->url()) == 0, m.summary.c_str());
        }
        QCOMPARE(chains(p), m_reference);
        // The rows of the binaries panel and `info`.
        for (const BinaryRow& row : triageBinaries(p, &*report, 0)) {
            QVERIFY2(countOf(row.detail, m_server->url()) == 1, row.detail.c_str());
            QVERIFY2(countOf(row.detail, row.debugPath) == 1, row.detail.c_str());
        }
    }

    // The same through the command line: symbolize's lines, --json-report's summary and
    // debuginfod fields, info's rows name the download once each.
    void reportTextSaysEachThingOnce()
    {
        const QString in = path("text-in.pb.gz");
        QVERIFY(model::saveProfile(makeProfile(m_bins, m_strippedPaths), in.toStdString()));
        const std::string url = m_server->url();
        const QStringList server { "--debuginfod", QString::fromStdString(url), "--no-client-cache" };
        auto r = symflame::testing::runSymflame(QStringList { "symbolize", in, "-o", path("text-out.pb.gz"),
            "--debuginfod-cache", path("cache-text1") } + server);
        QVERIFY2(r.ok(), r.err.constData());
        const QList<QByteArray> lines = r.out.split('\n');
        QCOMPARE(lines.count(QByteArray()), 1); // the end
        for (const QByteArray& line : lines)
            if (!line.isEmpty())
                QVERIFY2(countOf(line.toStdString(), url) == 1 && countOf(line.toStdString(), "debuginfo from ") == 1,
                    line.constData());
        r = symflame::testing::runSymflame(QStringList { "symbolize", in, "-o", path("text-out.pb.gz"), "--json-report",
            "--debuginfod-cache", path("cache-text2") } + server);
        QVERIFY2(r.ok(), r.err.constData());
        const QJsonArray entries = QJsonDocument::fromJson(r.out).array();
        QCOMPARE(entries.size(), int(m_bins.size()));
        for (const QJsonValue& e : entries) {
            const std::string summary = e.toObject().value("summary").toString().toStdString();
            const std::string debuginfod = e.toObject().value("debuginfod").toString().toStdString();
            QVERIFY2(countOf(summary, url) == 0, summary.c_str());
            QVERIFY2(countOf(debuginfod, url) == 1, debuginfod.c_str());
        }
        r = symflame::testing::runSymflame(QStringList { "info", in, "--debuginfod-cache", path("cache-text3") } + server);
        QVERIFY2(r.ok(), r.err.constData());
        QCOMPARE(size_t(countOf(r.out.toStdString(), url)), std::size(kBinaries));
        for (const QByteArray& line : r.out.split('\n'))
            QVERIFY2(countOf(line.toStdString(), url) <= 1, line.constData());
    }

    void missingExecutableComesFromServer()
    {
        // Recorded paths that don't exist here: the executable and then its debuginfo are fetched.
        std::vector<std::string> gone;
        for (const Binary& b : m_bins)
            gone.push_back("/nonexistent/deploy/" + b.name.toStdString());
        model::Profile p = makeProfile(m_bins, gone);
        SymbolizeOptions o = localOnly();
        o.debuginfod.urls = { m_server->url() };
        o.debuginfod.cacheDir = path("cache-exec").toStdString();
        auto report = symbolizeProfile(p, o);
        QVERIFY(report);
        for (const MappingReport& m : report->mappings) {
            QVERIFY2(m.status == LocateStatus::Found, m.line().c_str());
            QVERIFY2(m.debuginfod.find("executable from " + m_server->url()) != std::string::npos, m.line().c_str());
            QVERIFY2(m.debuginfod.find("debuginfo from " + m_server->url()) != std::string::npos, m.line().c_str());
        }
        QCOMPARE(chains(p), m_reference);
    }

    void unknownBuildIdIsNotFound()
    {
        const DebuginfodOptions o { { m_server->url() }, false, 5, 60, 0, path("cache-unknown").toStdString(), 1 };
        applyDebuginfodEnvironment(o);
        auto client = DebuginfodClient::create();
        QVERIFY(client);
        const FetchResult r = (*client)->fetch("00112233445566778899aabbccddeeff00112233", FetchKind::Debuginfo);
        QCOMPARE(r.status, FetchStatus::NotFound);
        QVERIFY(r.path.empty());
        const FetchResult bad = (*client)->fetch("not-hex", FetchKind::Debuginfo);
        QCOMPARE(bad.status, FetchStatus::NotFound);
        QVERIFY(bad.detail.find("not a hex build ID") != std::string::npos);
    }

    void cliFetchPrintsVerifiedPath()
    {
        const QString cache = path("cache-cli");
        const QStringList base { "debuginfo", "fetch", QString::fromStdString(m_bins[0].buildId), "--debuginfod",
            QString::fromStdString(m_server->url()), "--debuginfod-cache", cache };
        QProcess p;
        p.start(SYMFLAME_EXECUTABLE, base);
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 0);
        const QString fetched = QString::fromUtf8(p.readAllStandardOutput()).trimmed();
        auto elf = ElfFile::open(fetched.toStdString());
        QVERIFY2(elf, qPrintable(fetched));
        QCOMPARE((*elf)->buildId(), m_bins[0].buildId);
        QVERIFY((*elf)->contents().readableDwarf());

        p.start(SYMFLAME_EXECUTABLE, QStringList(base).replaceInStrings(QString::fromStdString(m_bins[0].buildId), "0badc0de"));
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 2);
        QVERIFY(p.readAllStandardError().contains("not found on any server"));

        p.start(SYMFLAME_EXECUTABLE, QStringList(base) << "--offline");
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 2);
        QVERIFY(p.readAllStandardError().contains("no server enabled"));
    }

    // A folder per build ID holding debuginfo and executable (Parca's debug-info store,
    // parca-debuginfo's output, the client cache's layout), given as a search path or a debug
    // directory: used by build ID without a scan; the answers equal the unstripped files'.
    void storeLaidOutByBuildId()
    {
        const QString store = path("store");
        for (size_t b = 0; b < m_bins.size(); ++b) {
            const QString folder = store + "/" + QString::fromStdString(m_bins[b].buildId);
            QVERIFY(QDir().mkpath(folder));
            QVERIFY(QFile::copy(path("server/") + m_bins[b].name, folder + "/executable"));
            QVERIFY(QFile::copy(path("server/") + m_bins[b].name + ".debug", folder + "/debuginfo"));
        }
        std::vector<std::string> gone;
        for (const Binary& b : m_bins)
            gone.push_back("/nonexistent/deploy/" + b.name.toStdString());
        for (const bool asSearchPath : { true, false }) {
            model::Profile p = makeProfile(m_bins, gone);
            SymbolizeOptions o = localOnly();
            o.locator.useClientCache = false;
            (asSearchPath ? o.locator.searchDirs : o.locator.debugDirs).push_back(store.toStdString());
            SymbolizationPass pass(o);
            auto report = pass.run(p);
            QVERIFY(report);
            QCOMPARE(pass.locator().indexedFileCount(), size_t(0)); // no file scanned
            for (const MappingReport& m : report->mappings) {
                QVERIFY2(m.status == LocateStatus::Found && m.source == DebugSource::BuildIdStore, m.line().c_str());
                QVERIFY2(m.summary.find("(build-id store " + store.toStdString() + ")") != std::string::npos, m.line().c_str());
                QVERIFY2(m.summary.find("executable " + store.toStdString()) != std::string::npos, m.line().c_str());
                QVERIFY(m.debuginfod.empty());
            }
            QCOMPARE(chains(p), m_reference);
        }

        // A folder and a metadata file that lie: the first binary's folder holds the second
        // binary's files. The ELF's own build ID decides: they are not used.
        const QString liar = path("liar") + "/" + QString::fromStdString(m_bins[0].buildId);
        QVERIFY(QDir().mkpath(liar));
        QVERIFY(QFile::copy(path("server/") + m_bins[1].name, liar + "/executable"));
        QVERIFY(QFile::copy(path("server/") + m_bins[1].name + ".debug", liar + "/debuginfo"));
        QFile meta(liar + "/metadata");
        QVERIFY(meta.open(QIODevice::WriteOnly));
        meta.write(QByteArray("{\"build_id\":\"") + m_bins[0].buildId.c_str() + "\",\"state\":\"STATE_UPLOADED\"}");
        meta.close();
        // The first binary exists (stripped) at its path: its debuginfo must not come from the liar.
        std::vector<std::string> paths = gone;
        paths[0] = m_strippedPaths[0];
        model::Profile p = makeProfile(m_bins, paths);
        SymbolizeOptions o = localOnly();
        o.locator.useClientCache = false;
        o.locator.searchDirs = { path("liar").toStdString() };
        auto report = symbolizeProfile(p, o);
        QVERIFY(report);
        const MappingReport& m0 = report->mappings[0];
        QVERIFY2(m0.status == LocateStatus::Found && m0.source != DebugSource::BuildIdStore, m0.line().c_str());
        QVERIFY2(m0.debugPath.empty(), m0.line().c_str());
        bool rejected = false;
        for (const std::string& t : m0.tried)
            rejected = rejected || (t.find(liar.toStdString() + "/debuginfo: build ID mismatch") != std::string::npos);
        QVERIFY2(rejected, m0.line().c_str());
        // With the recorded path gone, the lying executable is refused too.
        model::Profile q = makeProfile(m_bins, gone);
        auto qr = symbolizeProfile(q, o);
        QVERIFY(qr);
        QVERIFY2(qr->mappings[0].status == LocateStatus::BuildIdMismatch, qr->mappings[0].line().c_str());
        QCOMPARE(qr->mappings[0].resolved, uint64_t(0));
    }

    // The client cache the downloads above filled (libdebuginfod's own layout) is read offline:
    // with --offline, with no server configured and the cache named by DEBUGINFOD_CACHE_PATH; and
    // not when the user turned it off.
    void clientCacheReadOffline()
    {
        const QString cache = path("cache-exec"); // filled by missingExecutableComesFromServer
        QVERIFY(cacheHoldsAnyFile(cache));
        std::vector<std::string> gone;
        for (const Binary& b : m_bins)
            gone.push_back("/nonexistent/deploy/" + b.name.toStdString());
        const auto check = [&](const SymbolizeOptions& o) {
            model::Profile p = makeProfile(m_bins, gone);
            auto report = symbolizeProfile(p, o);
            QVERIFY(report);
            QCOMPARE(report->downloads, uint64_t(0));
            for (const MappingReport& m : report->mappings) {
                QVERIFY2(m.status == LocateStatus::Found && m.source == DebugSource::ClientCache, m.line().c_str());
                QVERIFY2(m.summary.find("(debuginfod client cache)") != std::string::npos, m.line().c_str());
                QVERIFY2(m.summary.find("from the debuginfod client cache") != std::string::npos, m.line().c_str());
            }
            QCOMPARE(chains(p), m_reference);
        };
        SymbolizeOptions offline = localOnly();
        offline.debuginfod.urls = { m_server->url() };
        offline.debuginfod.offline = true;
        offline.debuginfod.cacheDir = cache.toStdString();
        check(offline);
        if (QTest::currentTestFailed())
            return;

        const QByteArray saved = qgetenv("DEBUGINFOD_CACHE_PATH");
        qputenv("DEBUGINFOD_CACHE_PATH", cache.toUtf8());
        SymbolizeOptions noServer = localOnly();
        check(noServer);
        // Turned off: nothing found.
        noServer.locator.useClientCache = false;
        model::Profile p = makeProfile(m_bins, gone);
        auto report = symbolizeProfile(p, noServer);
        if (saved.isNull())
            qunsetenv("DEBUGINFOD_CACHE_PATH");
        else
            qputenv("DEBUGINFOD_CACHE_PATH", saved);
        QVERIFY(report);
        for (const MappingReport& m : report->mappings)
            QVERIFY2(m.status == LocateStatus::NotFound, m.line().c_str());
    }

    void faults_data()
    {
        QTest::addColumn<int>("fault");
        QTest::addColumn<int>("expected");
        using F = symtest::FaultyHttpServer::Fault;
        QTest::newRow("404") << int(F::NotFound) << int(FetchStatus::NotFound);
        QTest::newRow("503") << int(F::ServerError) << int(FetchStatus::ServerError);
        QTest::newRow("delay past the timeout") << int(F::Delay) << int(FetchStatus::Timeout);
        QTest::newRow("truncated body") << int(F::Truncated) << int(FetchStatus::ServerError);
        QTest::newRow("200 with garbage") << int(F::Garbage) << int(FetchStatus::NotElf);
        QTest::newRow("ELF of another build ID") << int(F::Body) << int(FetchStatus::Mismatch);
        QTest::newRow("redirect loop") << int(F::RedirectLoop) << int(FetchStatus::ServerError);
        QTest::newRow("over the size limit") << int(F::HugeSize) << int(FetchStatus::TooLarge);
        QTest::newRow("connection refused") << -1 << int(FetchStatus::ServerError);
    }

    void faults()
    {
        QFETCH(int, fault);
        QFETCH(int, expected);
        symtest::FaultyHttpServer server;
        QVERIFY(server.port() > 0);
        const std::string id = m_bins[0].buildId;
        QFile other(path("orig/c_pie"));
        QVERIFY(other.open(QIODevice::ReadOnly));
        const QByteArray otherElf = other.readAll();
        if (fault >= 0)
            server.setAnswer(id, { symtest::FaultyHttpServer::Fault(fault), otherElf.toStdString(), 4000 });
        const std::string url = fault >= 0 ? server.url() : "http://127.0.0.1:" + std::to_string(symtest::freePort());
        const QString cache = path("cache-fault-" + QString::number(fault));
        DebuginfodOptions o { { url }, false, 1, 20, 1 << 20, cache.toStdString(), 1 };
        applyDebuginfodEnvironment(o);
        auto client = DebuginfodClient::create();
        QVERIFY(client);
        QElapsedTimer t;
        t.start();
        const FetchResult r = (*client)->fetch(id, FetchKind::Debuginfo);
        QVERIFY2(t.elapsed() < 30000, qPrintable(QString::number(t.elapsed())));
        QVERIFY2(int(r.status) == expected,
            qPrintable(QString("got %1: %2").arg(fetchStatusName(r.status), QString::fromStdString(r.summary()))));
        QVERIFY(r.path.empty());
        QVERIFY(!r.summary().empty());
        if (fault >= 0)
            QVERIFY(server.requests() > 0);
        QVERIFY2(!cacheHoldsAnyFile(cache), "a rejected file stayed in the cache");
    }

    // A server that accepts and never answers is given up after its first timeout, for every
    // binary after it: symbolize of the stripped binaries ends within the timeout plus 2 s (with
    // libdebuginfod's own retries it took three timeouts per binary), and the report names the
    // server once, in the text and in --json-report. The timeout comes from
    // --debuginfod-timeout, else from $DEBUGINFOD_TIMEOUT.
    void silentServerIsGivenUpOnce_data()
    {
        QTest::addColumn<bool>("json");
        QTest::addColumn<bool>("fromEnvironment");
        QTest::addColumn<QString>("downloads");
        QTest::newRow("text, one download at a time") << false << false << "1";
        QTest::newRow("json, downloads at once") << true << false << "4";
        QTest::newRow("text, DEBUGINFOD_TIMEOUT") << false << true << "2";
    }

    void silentServerIsGivenUpOnce()
    {
        QFETCH(bool, json);
        QFETCH(bool, fromEnvironment);
        QFETCH(QString, downloads);
        SilentListener server;
        QVERIFY(server.port() > 0);
        const QString in = path("silent-in.pb.gz");
        model::Profile p = makeProfile(m_bins, m_strippedPaths);
        QVERIFY(model::saveProfile(p, in.toStdString()));
        const int timeout = 2;
        const QString cache = path("cache-silent-" + QString::number(QTest::currentDataTag() ? qHash(QString(QTest::currentDataTag())) : 0));
        QStringList args { "symbolize", in, "-o", path("silent-out.pb.gz"), "--debuginfod",
            QString::fromStdString(server.url()), "--debuginfod-cache", cache, "--downloads", downloads };
        if (json)
            args << "--json-report";
        if (fromEnvironment)
            qputenv("DEBUGINFOD_TIMEOUT", QByteArray::number(timeout));
        else
            args << "--debuginfod-timeout" << QString::number(timeout);
        QElapsedTimer t;
        t.start();
        const auto r = symflame::testing::runSymflame(args);
        const qint64 ms = t.elapsed();
        qunsetenv("DEBUGINFOD_TIMEOUT");
        QVERIFY2(r.ok(), qPrintable(r.describe("symflame", args) + r.err));
        QVERIFY2(ms < (timeout + 2) * 1000, qPrintable(QString("took %1 ms").arg(ms)));
        QVERIFY2(ms >= timeout * 1000, qPrintable(QString("took %1 ms: the timeout was not %2 s").arg(ms).arg(timeout)));
        const QString out = QString::fromUtf8(r.out);
        const QString url = QString::fromStdString(server.url());
        QVERIFY2(out.count(url) == 1, qPrintable(out));
        const QString reason = QString("sent nothing for %1 s").arg(timeout);
        if (!json) {
            const QStringList lines = out.split('\n', Qt::SkipEmptyParts);
            QCOMPARE(lines.size(), int(m_bins.size()) + 1);
            QVERIFY2(lines.last().startsWith("debuginfod server " + url + " given up: it " + reason), qPrintable(out));
            for (int i = 0; i < int(m_bins.size()); ++i)
                QVERIFY2(lines[i].contains("debuginfod: timeout") || lines[i].contains("debuginfod: not asked"),
                    qPrintable(lines[i]));
            return;
        }
        const QJsonArray entries = QJsonDocument::fromJson(r.out).array();
        QCOMPARE(entries.size(), int(m_bins.size()) + 1);
        const QJsonObject last = entries.last().toObject();
        QCOMPARE(last.value("debuginfod_server").toString(), url);
        QCOMPARE(last.value("status").toString(), QString("given up"));
        QVERIFY(last.value("reason").toString().contains(reason));
        for (int i = 0; i < int(m_bins.size()); ++i) {
            const QString d = entries[i].toObject().value("debuginfod").toString();
            QVERIFY2(d.contains("debuginfod: timeout") || d.contains("debuginfod: not asked"), qPrintable(d));
        }
    }

    void faultyMappingDoesNotStopTheOthers()
    {
        symtest::FaultyHttpServer server;
        server.setAnswer(m_bins[0].buildId, { symtest::FaultyHttpServer::Fault::Garbage, {}, 0 });
        // Binary 0 stripped (needs the server), the others unstripped (local DWARF).
        std::vector<std::string> paths;
        for (size_t b = 0; b < m_bins.size(); ++b)
            paths.push_back(b == 0 ? m_strippedPaths[0] : path("orig/" + m_bins[b].name).toStdString());
        model::Profile p = makeProfile(m_bins, paths);
        SymbolizeOptions o = localOnly();
        o.debuginfod.urls = { server.url() };
        o.debuginfod.cacheDir = path("cache-mixed").toStdString();
        o.debuginfod.timeoutSeconds = 2;
        auto report = symbolizeProfile(p, o);
        QVERIFY(report);
        const MappingReport& bad = report->mappings[0];
        QVERIFY2(bad.debuginfod.find("not an ELF file") != std::string::npos, bad.line().c_str());
        QVERIFY(bad.resolved == 0);
        for (size_t b = 1; b < m_bins.size(); ++b) {
            QCOMPARE(report->mappings[b].source, DebugSource::Binary);
            QVERIFY(report->mappings[b].debuginfod.empty());
        }
        const std::vector<std::string> got = chains(p);
        size_t compared = 0;
        for (size_t i = 0; i < p.locations.size(); ++i)
            if (p.locations[i].mapping.index() != 0) {
                QCOMPARE(got[i], m_reference[i]);
                ++compared;
            }
        QVERIFY(compared > 10);
    }

    void hottestBinariesFetchedFirst()
    {
        symtest::FaultyHttpServer server; // answers 404 to everything, logs the order
        model::Profile p = makeProfile(m_bins, m_strippedPaths);
        // Binary 2 gets the most samples, then binary 1, then binary 0.
        const int64_t one = 1;
        for (size_t b : { size_t(2), size_t(1) }) {
            for (size_t i = 0; i < p.locations.size(); ++i) {
                if (p.locations[i].mapping.index() != b)
                    continue;
                const model::LocationId l(i);
                for (int k = 0; k < (b == 2 ? 20000 : 10000); ++k)
                    p.addSample(p.internStack(std::span(&l, 1)), std::span(&one, 1));
                break;
            }
        }
        SymbolizeOptions o = localOnly();
        o.debuginfod.urls = { server.url() };
        o.debuginfod.cacheDir = path("cache-order").toStdString();
        o.debuginfod.parallelDownloads = 1;
        auto report = symbolizeProfile(p, o);
        QVERIFY(report);
        const std::vector<std::string> want = { m_bins[2].buildId, m_bins[1].buildId, m_bins[0].buildId };
        QCOMPARE(server.requestedIds(), want);
        for (const MappingReport& m : report->mappings)
            QVERIFY2(m.debuginfod.find("not found on any server") != std::string::npos, m.line().c_str());
    }

    void cancelStopsSlowDownloads()
    {
        symtest::FaultyHttpServer server;
        for (const Binary& b : m_bins)
            server.setAnswer(b.buildId, { symtest::FaultyHttpServer::Fault::Delay, {}, 20000 });
        model::Profile p = makeProfile(m_bins, m_strippedPaths);
        SymbolizeOptions o = localOnly();
        o.debuginfod.urls = { server.url() };
        o.debuginfod.cacheDir = path("cache-cancel").toStdString();
        o.debuginfod.timeoutSeconds = 60;
        CancelAfter cancel(300);
        QElapsedTimer t;
        t.start();
        auto report = symbolizeProfile(p, o, &cancel);
        QVERIFY(!report);
        QCOMPARE(report.error().code, model::ErrorCode::Cancelled);
        QVERIFY2(t.elapsed() < 5000, qPrintable(QString::number(t.elapsed())));
    }

    // Last: stops the server.
    void secondRunFromCacheWithServerStopped()
    {
        m_server->stop();
        QVERIFY(symtest::httpGet(m_server->port(), "/metrics").empty());
        model::Profile p = makeProfile(m_bins, m_strippedPaths);
        SymbolizeOptions o = localOnly();
        o.debuginfod.urls = { m_server->url() };
        o.debuginfod.cacheDir = path("cache-main").toStdString(); // filled by the first test
        auto report = symbolizeProfile(p, o);
        QVERIFY(report);
        // The locator reads the client cache itself (the cache libdebuginfod filled): no query.
        for (const MappingReport& m : report->mappings) {
            QVERIFY2(m.source == DebugSource::ClientCache, m.line().c_str());
            QVERIFY2(m.debuginfod.empty(), m.line().c_str());
        }
        QCOMPARE(chains(p), m_reference);
    }
};

QTEST_GUILESS_MAIN(TestDebuginfod)
#include "tst_debuginfod.moc"
