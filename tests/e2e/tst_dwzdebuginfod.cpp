// dwz supplementary files from debuginfod (issue 23 item 1). A real debuginfod on 127.0.0.1
// serves dwz-processed debug files with no local debug directory: the fixtures' three dwz
// layouts (GNU forms with an absolute link, DWARF 4 with a relative link, DWARF 5 .debug_sup)
// and Debian's libc6-dbg files put through `dwz -m` here. The debug file comes from the server,
// then the supplementary file by the build ID its link names; the answers must equal local
// symbolization's for every location, inline frames included. A small HTTP server counts the
// requests (the supplementary file shared by two binaries is fetched once) and sends a wrong
// file for the supplementary ID (refused, with the reason). Last, the command line in a private
// mount namespace with /usr/lib/debug hidden, as on a machine without the -dbg packages.
#include "debuginfod/debuginfodserver.h"
#include "debuginfod/faultyhttpserver.h"
#include "symfixturehelpers.h"
#include "symprofilehelpers.h"

#include "model/core/profile.h"
#include "model/io/profileio.h"
#include "processhelpers.h"
#include "symbolize/object/elffile.h"
#include "symbolize/pass/symbolizationpass.h"

#include <QDir>
#include <QFile>
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

// Debian 12's libc6-dbg files that `dwz -m` takes together (libmvec's compressed sections are
// too large for objcopy to decompress). Which of them dwz rewrites depends on what they share.
const char* const kLibc6[] = { "libc.so.6", "libm.so.6", "ld-linux-x86-64.so.2", "libresolv.so.2", "libanl.so.1",
    "libnss_files.so.2", "libnss_dns.so.2", "libutil.so.1", "librt.so.1", "libdl.so.2", "libpthread.so.0",
    "libBrokenLocale.so.1", "libnsl.so.1", "libthread_db.so.1", "libc_malloc_debug.so.0", "libmemusage.so",
    "libpcprofile.so" };
const char* const kLibDir = "/lib/x86_64-linux-gnu/";

std::string buildIdOf(const QString& file)
{
    auto elf = ElfFile::open(file.toStdString());
    return elf ? (*elf)->buildId() : std::string();
}

QString debugFileOf(const std::string& id)
{
    return QString::fromStdString("/usr/lib/debug/.build-id/" + id.substr(0, 2) + "/" + id.substr(2) + ".debug");
}

SymbolizeOptions fromServer(const std::string& url, const QString& cache)
{
    SymbolizeOptions o;
    o.locator.useDefaultDebugDir = false;
    o.debuginfod.urls = { url };
    o.debuginfod.cacheDir = cache.toStdString();
    return o;
}

size_t countOf(const std::string& text, const std::string& what)
{
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size()))
        ++n;
    return n;
}

QByteArray readAll(const QString& file)
{
    QFile f(file);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// One set of binaries to symbolize: the profile's recorded paths (stripped files), and the
// reference chains from local symbolization of the same addresses.
struct Case {
    std::vector<Binary> bins;
    std::vector<std::string> stripped;
    std::vector<std::string> reference;
    std::vector<std::string> debugFiles; // the dwz'd debug file of each binary, as served
    std::string supplementaryId;
};

} // namespace

class TestDwzDebuginfod : public QObject {
    Q_OBJECT

    QTemporaryDir m_tmp;
    std::map<QString, Case> m_cases; // "dwz", "dwz4", "dwz5", "libc6"
    std::unique_ptr<symtest::DebuginfodServer> m_serverA; // dwz, dwz4, libc6
    std::unique_ptr<symtest::DebuginfodServer> m_serverB; // dwz5 (same binaries' build IDs as dwz)

    QString path(const QString& rel) const { return m_tmp.filePath(rel); }

    // The fixtures' dwz layout: binaries <layout>/bin/dwz_{a,b} (stripped), unstripped originals
    // in dwz/full, debug files and supplementary in <layout>/debug, copied to serverDir.
    void addFixtureLayout(const QString& layout, const QString& serverDir)
    {
        Case c;
        const QString prefix = layout == "dwz4" ? "dwz4_" : "dwz_";
        uint64_t base = 0x7f2000000000;
        std::vector<std::string> full;
        for (const char* which : { "a", "b" }) {
            const QString orig = symtest::fixture("dwz/full/" + prefix + which);
            auto elf = ElfFile::open(orig.toStdString());
            QVERIFY2(elf, qPrintable(orig));
            c.bins.push_back(Binary { prefix + which, (*elf)->buildId(), *elf, base });
            base += 0x10000000;
            full.push_back(orig.toStdString());
            c.stripped.push_back(symtest::fixture(layout + "/bin/dwz_" + which).toStdString());
            const std::string id = (*elf)->buildId();
            c.debugFiles.push_back(symtest::fixture(layout + "/debug/.build-id/" + QString::fromStdString(id.substr(0, 2))
                + "/" + QString::fromStdString(id.substr(2)) + ".debug")
                                       .toStdString());
        }
        auto debug = ElfFile::open(c.debugFiles[0]);
        QVERIFY2(debug && (*debug)->debugAltLink(), c.debugFiles[0].c_str());
        c.supplementaryId = (*debug)->debugAltLink()->buildId;
        QVERIFY(QDir().mkpath(serverDir));
        QVERIFY(runTool("cp", { "-r", symtest::fixture(layout + "/debug"), serverDir + "/" + layout }));
        if (layout == "dwz5") {
            // debuginfod indexes files by their build-ID note, and `dwz -5` writes none into the
            // supplementary file (its .debug_sup checksum names it): the copy served is given a
            // note holding the checksum, the file a server must index for .debug_sup to be
            // fetched by it at all.
            const QString sup = serverDir + "/dwz5/.dwz/symflame-fixture.sup";
            QVERIFY(buildIdOf(sup).empty());
            QByteArray note;
            const QByteArray checksum = QByteArray::fromHex(QByteArray::fromStdString(c.supplementaryId));
            for (uint32_t v : { 4u, uint32_t(checksum.size()), 3u }) // namesz, descsz, NT_GNU_BUILD_ID
                note.append(reinterpret_cast<const char*>(&v), 4);
            note.append("GNU\0", 4);
            note.append(checksum);
            QFile noteFile(path("dwz5-note.bin"));
            QVERIFY(noteFile.open(QIODevice::WriteOnly) && noteFile.write(note) == note.size());
            noteFile.close();
            QVERIFY(runTool("objcopy", { "--add-section", ".note.gnu.build-id=" + noteFile.fileName(), sup, sup + ".noted" }));
            QVERIFY(QFile::remove(sup) && QFile::rename(sup + ".noted", sup));
            QCOMPARE(buildIdOf(sup), c.supplementaryId);
        }
        // The reference: the unstripped binaries' own DWARF.
        model::Profile ref = makeProfile(c.bins, full);
        SymbolizeOptions local;
        local.locator.useDefaultDebugDir = false;
        QVERIFY(symbolizeProfile(ref, local));
        c.reference = chains(ref);
        m_cases[layout] = std::move(c);
    }

    // Debian's libc6-dbg debug files of the libraries here, decompressed and put through
    // `dwz -m` in serverDir; the binaries whose debug file dwz rewrote are the case.
    void addLibc6(const QString& serverDir)
    {
        const QString dir = serverDir + "/libc6";
        QVERIFY(QDir().mkpath(dir + "/.dwz"));
        QStringList inputs;
        std::map<QString, std::string> ids;
        for (const char* lib : kLibc6) {
            const QString bin = QString(kLibDir) + lib;
            const std::string id = buildIdOf(bin);
            QVERIFY2(!id.empty(), qPrintable(bin));
            const QString dbg = debugFileOf(id);
            QVERIFY2(QFile::exists(dbg), qPrintable(dbg + " (libc6-dbg)"));
            const QString copy = dir + "/" + lib + ".debug";
            QVERIFY(QFile::copy(dbg, copy));
            QVERIFY(QFile::setPermissions(copy, QFile::ReadOwner | QFile::WriteOwner));
            QVERIFY2(runTool("objcopy", { "--decompress-debug-sections", copy }), qPrintable(copy));
            inputs << copy;
            ids[lib] = id;
        }
        const QString sup = dir + "/.dwz/libc6.debug";
        QVERIFY(runTool("dwz", QStringList { "-m", sup, "-M", "/usr/lib/debug/.dwz/x86_64-linux-gnu/symflame-libc6.debug" }
            + inputs));
        Case c;
        uint64_t base = 0x7f4000000000;
        std::vector<std::string> recorded;
        for (const char* lib : kLibc6) {
            const std::string served = (dir + "/" + lib + ".debug").toStdString();
            auto dwzd = ElfFile::open(served);
            QVERIFY(dwzd);
            if (!(*dwzd)->debugAltLink())
                continue; // dwz found nothing to share out of this one
            c.supplementaryId = (*dwzd)->debugAltLink()->buildId;
            auto orig = ElfFile::open(debugFileOf(ids[lib]).toStdString()); // symbols and segments
            QVERIFY(orig);
            const Binary bin { lib, ids[lib], *orig, base };
            if (makeProfile({ bin }, { std::string(kLibDir) + lib }).locations.size() < 40)
                continue; // a stub (libnss_files.so.2, librt.so.1 of glibc 2.36): few functions of its own
            c.bins.push_back(bin);
            base += 0x10000000;
            c.stripped.push_back(std::string(kLibDir) + lib);
            c.debugFiles.push_back(served);
        }
        // As Debian 12's packages stand, dwz rewrites ld.so's, libresolv's and a dozen more.
        QVERIFY2(c.bins.size() >= 3, qPrintable(QString::number(c.bins.size())));
        QCOMPARE(buildIdOf(sup), c.supplementaryId);
        // The reference: the installed libc6-dbg files, found locally.
        model::Profile ref = makeProfile(c.bins, c.stripped);
        SymbolizeOptions local;
        local.debuginfod.offline = true;
        auto report = symbolizeProfile(ref, local);
        QVERIFY(report);
        for (const MappingReport& m : report->mappings)
            QVERIFY2(m.status == LocateStatus::Found && m.source == DebugSource::BuildIdDirectory, m.line().c_str());
        c.reference = chains(ref);
        m_cases["libc6"] = std::move(c);
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
        addFixtureLayout("dwz", path("serverA"));
        addFixtureLayout("dwz4", path("serverA"));
        addFixtureLayout("dwz5", path("serverB"));
        addLibc6(path("serverA"));
        if (QTest::currentTestFailed())
            return;
        for (const char* d : { "dbA", "dbB" })
            QVERIFY(QDir().mkpath(path(d)));
        m_serverA = std::make_unique<symtest::DebuginfodServer>(path("serverA"), path("dbA"));
        QVERIFY2(m_serverA->ok(), qPrintable(m_serverA->error()));
        m_serverB = std::make_unique<symtest::DebuginfodServer>(path("serverB"), path("dbB"));
        QVERIFY2(m_serverB->ok(), qPrintable(m_serverB->error()));
    }

    // Debug file and supplementary file from the server: every location answered as locally.
    void supplementaryFromServer_data()
    {
        QTest::addColumn<QString>("layout");
        QTest::newRow("dwz -m, GNU forms, absolute link") << "dwz";
        QTest::newRow("dwz -m, DWARF 4, relative link") << "dwz4";
        QTest::newRow("dwz -5 -m, .debug_sup") << "dwz5";
        QTest::newRow("Debian libc6-dbg through dwz -m") << "libc6";
    }

    void supplementaryFromServer()
    {
        QFETCH(QString, layout);
        const Case& c = m_cases.at(layout);
        const std::string url = (layout == "dwz5" ? m_serverB : m_serverA)->url();
        const QString cache = path("cache-" + layout);
        model::Profile p = makeProfile(c.bins, c.stripped);
        SymbolizeOptions o = fromServer(url, cache);
        SymbolizationPass pass(o);
        auto report = pass.run(p);
        QVERIFY(report);
        size_t fetched = 0;
        for (const MappingReport& m : report->mappings) {
            QVERIFY2(m.status == LocateStatus::Found && m.source == DebugSource::Debuginfod, m.line().c_str());
            QVERIFY2(m.summary.find(", dwz supplementary file " + cache.toStdString()) != std::string::npos,
                m.line().c_str());
            QVERIFY2(m.summary.find("but its dwz supplementary file") == std::string::npos, m.line().c_str());
            QVERIFY2(m.resolved > 0, m.line().c_str());
            // Downloaded for this binary, or by another one before (then in the cache).
            fetched += countOf(m.debuginfod, "dwz supplementary file from " + url);
        }
        QVERIFY(fetched >= 1);
        const std::vector<std::string> got = chains(p);
        QCOMPARE(got.size(), c.reference.size());
        size_t differ = 0;
        for (size_t i = 0; i < got.size(); ++i)
            if (got[i] != c.reference[i] && differ++ < 3)
                qWarning("location %zu: got %s, locally %s", i, got[i].c_str(), c.reference[i].c_str());
        QCOMPARE(differ, size_t(0));
        // The supplementary file is in the cache, under its build ID, and verified.
        const QString cached = cache + "/" + QString::fromStdString(c.supplementaryId) + "/debuginfo";
        QVERIFY2(QFile::exists(cached), qPrintable(cached));
        QCOMPARE(buildIdOf(cached), c.supplementaryId);
    }

    // The answers depend on the supplementary file (else the test above proves nothing), it is
    // fetched once for the two binaries that share it, a wrong file sent for it is refused with
    // the reason, and a second run takes it from the client cache without asking.
    void countedAndRefused()
    {
        const Case& c = m_cases.at("dwz");
        QVERIFY(c.bins.size() == 2);
        const auto run = [&](symtest::FaultyHttpServer& server, const QString& cache, model::Profile& p) {
            auto report = symbolizeProfile(p, fromServer(server.url(), cache));
            return report ? std::move(*report) : SymbolizeReport {};
        };
        using F = symtest::FaultyHttpServer::Fault;
        // A server that sends c_pie's debug file for the supplementary ID.
        {
            symtest::FaultyHttpServer server;
            QVERIFY(server.port() > 0);
            for (size_t b = 0; b < c.bins.size(); ++b)
                server.setAnswer(c.bins[b].buildId, { F::Body, readAll(QString::fromStdString(c.debugFiles[b])).toStdString() });
            const QByteArray other = readAll(symtest::fixture("c_pie"));
            QVERIFY(!other.isEmpty());
            server.setAnswer(c.supplementaryId, { F::Body, other.toStdString() });
            model::Profile p = makeProfile(c.bins, c.stripped);
            const SymbolizeReport r = run(server, path("cache-wrong"), p);
            QCOMPARE(r.mappings.size(), c.bins.size());
            for (const MappingReport& m : r.mappings) {
                QVERIFY2(m.source == DebugSource::Debuginfod, m.line().c_str());
                QVERIFY2(m.debuginfod.find("dwz supplementary file not downloaded: debuginfod: build ID mismatch "
                                           "(received build ID "
                             + buildIdOf(symtest::fixture("c_pie")) + ", wanted " + c.supplementaryId)
                        != std::string::npos,
                    m.line().c_str());
                QVERIFY2(m.summary.find("but its dwz supplementary file") != std::string::npos, m.line().c_str());
            }
            QVERIFY2(chains(p) != c.reference, "the fixture's answers do not depend on its supplementary file");
            QVERIFY(!QFile::exists(path("cache-wrong/") + QString::fromStdString(c.supplementaryId) + "/debuginfo"));
        }
        // The right file: asked for once, though both binaries need it.
        symtest::FaultyHttpServer server;
        for (size_t b = 0; b < c.bins.size(); ++b)
            server.setAnswer(c.bins[b].buildId, { F::Body, readAll(QString::fromStdString(c.debugFiles[b])).toStdString() });
        const auto sup = ElfFile::open(c.debugFiles[0]);
        QVERIFY(sup);
        const QString supPath = symtest::fixture("dwz/debug/.dwz/symflame-fixture.debug");
        QCOMPARE(buildIdOf(supPath), c.supplementaryId);
        server.setAnswer(c.supplementaryId, { F::Body, readAll(supPath).toStdString() });
        model::Profile p = makeProfile(c.bins, c.stripped);
        const SymbolizeReport r = run(server, path("cache-counted"), p);
        for (const MappingReport& m : r.mappings)
            QVERIFY2(m.summary.find(", dwz supplementary file ") != std::string::npos, m.line().c_str());
        QCOMPARE(chains(p), c.reference);
        const std::vector<std::string> asked = server.requestedIds();
        QCOMPARE(std::count(asked.begin(), asked.end(), c.supplementaryId), std::ptrdiff_t(1));
        // Again, from the cache: nothing asked, the same answers, the downloaded files isolated.
        const int before = server.requests();
        model::Profile q = makeProfile(c.bins, c.stripped);
        const SymbolizeReport again = run(server, path("cache-counted"), q);
        QCOMPARE(server.requests(), before);
        for (const MappingReport& m : again.mappings) {
            QVERIFY2(m.source == DebugSource::ClientCache, m.line().c_str());
            QVERIFY2(m.debuginfod.empty(), m.line().c_str());
        }
        QCOMPARE(chains(q), c.reference);
    }

    // A local debug file (a debug directory holding the dwz'd files but not .dwz/) gets only its
    // supplementary file from the server; nothing else is asked.
    void localDebugFileGetsSupplementary()
    {
        const Case& c = m_cases.at("dwz");
        const QString debugDir = path("local-dwz-debug");
        QVERIFY(runTool("cp", { "-r", symtest::fixture("dwz/debug"), debugDir }));
        QVERIFY(QDir(debugDir + "/.dwz").removeRecursively());
        symtest::FaultyHttpServer server;
        const QString supPath = symtest::fixture("dwz/debug/.dwz/symflame-fixture.debug");
        server.setAnswer(c.supplementaryId, { symtest::FaultyHttpServer::Fault::Body, readAll(supPath).toStdString() });
        SymbolizeOptions o = fromServer(server.url(), path("cache-local"));
        o.locator.debugDirs = { debugDir.toStdString() };
        model::Profile p = makeProfile(c.bins, c.stripped);
        auto report = symbolizeProfile(p, o);
        QVERIFY(report);
        for (const MappingReport& m : report->mappings) {
            QVERIFY2(m.source == DebugSource::BuildIdDirectory, m.line().c_str());
            QVERIFY2(m.summary.find(", dwz supplementary file " + path("cache-local").toStdString()) != std::string::npos,
                m.line().c_str());
        }
        QCOMPARE(chains(p), c.reference);
        const std::vector<std::string> asked = server.requestedIds();
        QCOMPARE(asked, std::vector<std::string> { c.supplementaryId });
    }

    // The command line with the default debug directory hidden (a private mount namespace with
    // an empty tmpfs over /usr/lib/debug): libc6's dwz'd debug files and their supplementary
    // file come from the server, and the written profile names every frame as the local
    // libc6-dbg files do.
    void commandLineWithoutLocalDebugFiles()
    {
        const Case& c = m_cases.at("libc6");
        const QString in = path("libc6-in.pb.gz");
        QVERIFY(model::saveProfile(makeProfile(c.bins, c.stripped), in.toStdString()));
        const QString exe = symflame::testing::symflameExecutable();
        // Locally, with /usr/lib/debug.
        auto local = symflame::testing::runSymflame({ "symbolize", in, "-o", path("libc6-local.pb.gz"), "--offline" });
        QVERIFY2(local.ok(), local.err.constData());
        // Hidden: unshare(1) needs root, as the tests run in CI; a failure to hide is a failure.
        const QString script = "mount -t tmpfs tmpfs /usr/lib/debug && ls -A /usr/lib/debug | wc -l && exec \"$0\" \"$@\"";
        auto hidden = symflame::testing::runProcess("unshare",
            { "-m", "sh", "-c", script, exe, "symbolize", in, "-o", path("libc6-hidden.pb.gz"), "--debuginfod",
                QString::fromStdString(m_serverA->url()), "--debuginfod-cache", path("cache-cli") });
        QVERIFY2(hidden.ok(), qPrintable(hidden.describe("unshare", {}) + hidden.err));
        QVERIFY2(hidden.out.startsWith("0\n"), hidden.out.constData()); // /usr/lib/debug was empty
        QCOMPARE(size_t(countOf(hidden.out.toStdString(), ", dwz supplementary file " + path("cache-cli").toStdString())),
            c.bins.size());
        QVERIFY2(countOf(hidden.out.toStdString(), "dwz supplementary file from " + m_serverA->url()) >= 1,
            hidden.out.constData());
        auto a = model::loadProfile(path("libc6-local.pb.gz").toStdString());
        auto b = model::loadProfile(path("libc6-hidden.pb.gz").toStdString());
        QVERIFY(a && b);
        QCOMPARE(chains(*b), chains(*a));
    }
};

QTEST_GUILESS_MAIN(TestDwzDebuginfod)
#include "tst_dwzdebuginfod.moc"
