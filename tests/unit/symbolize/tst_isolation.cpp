// Containment (symbolize/isolation/isolatedengine.h): modules read in a worker process (`symflame
// --symbolize-worker`) give the in-process answers on the fixture binaries (C, C++, Go, Rust,
// dwz, split DWARF, MiniDebugInfo, debug links...); a debug file that crashes LLVM's DWARF reader
// (tests/isolation/deepdies.s) fails its own mapping with a status that says so while the other
// mappings are symbolized as before; a worker that is killed, stopped (time limit), cancelled,
// that can't be started or that answers garbage fails its module with a message naming the file;
// the command line says the same.
#include "model/io/profileio.h"
#include "symbolize/locate/debuginfolocator.h"
#include "symbolize/isolation/isolatedengine.h"
#include "symbolize/pass/moduleloader.h"
#include "symbolize/pass/parallellookup.h"
#include "symbolize/pass/symbolizationpass.h"
#include "symbolize/object/symboltable.h"

#include "debuginfod/debuginfodserver.h"
#include "isolationhelpers.h"
#include "symfixturehelpers.h"
#include "symprofilehelpers.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QElapsedTimer>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <csignal>
#include <thread>

#include <poll.h>
#include <sys/types.h>
#include <unistd.h>

using namespace symflame;
using namespace symflame::symbolize;
using symtest::addressesOf;
using symtest::fixture;

namespace {

std::string fixtureStd(const QString& name)
{
    return fixture(name).toStdString();
}

std::string deepDies()
{
    return SYMFLAME_ISOLATION_DIR "/deepdies";
}

IsolationOptions isolateAll(unsigned timeout = 60)
{
    IsolationOptions o;
    o.policy = IsolationPolicy::All;
    o.workerPath = SYMFLAME_EXECUTABLE;
    o.timeoutSeconds = timeout;
    return o;
}

/// addresses ten times over: a lookup that takes seconds, not a fraction of one, so that a test
/// that stops it after a few hundred milliseconds finds it still running on a fast machine.
std::vector<uint64_t> repeated(const std::vector<uint64_t>& addresses)
{
    std::vector<uint64_t> out;
    for (int i = 0; i < 10; ++i)
        out.insert(out.end(), addresses.begin(), addresses.end());
    return out;
}

std::string describe(const SymbolizedAddresses& a, size_t i)
{
    std::string s;
    for (const SymbolizedFrame& f : a.frames(i)) {
        const SymbolizedFunction& fn = a.function(f.function);
        s += std::string(a.str(fn.name)) + " [" + std::string(a.str(fn.systemName)) + "] " + std::string(a.str(fn.file))
            + ":" + std::to_string(f.line) + ":" + std::to_string(f.column) + " decl " + std::to_string(fn.startLine)
            + "\n";
    }
    return s;
}

bool alive(pid_t pid)
{
    return pid > 0 && ::kill(pid, 0) == 0;
}

struct Outcome {
    LookupOutcome outcome;
    bool ran = false;
};

Outcome lookUp(const LocateResult& located, std::span<const uint64_t> addresses, const IsolationOptions& isolation)
{
    const LookupModule module { &located, addresses };
    LookupOptions lo;
    lo.module.isolation = isolation;
    lo.threads = 2;
    lo.minShardAddresses = 512; // several shards, so several workers for the bigger fixtures
    auto outcomes = lookupModules(std::span(&module, 1), lo);
    if (!outcomes)
        return {};
    return { std::move(outcomes->front()), true };
}

} // namespace

class TestIsolation : public QObject {
    Q_OBJECT

private slots:
    void identicalAnswers_data()
    {
        QTest::addColumn<QString>("binary");
        QTest::addColumn<QString>("addressesFrom"); // a file with the symbol table of the original
        QTest::addColumn<QStringList>("debugDirs");
        QTest::addRow("C pie") << fixture("c_pie") << fixture("c_pie") << QStringList {};
        QTest::addRow("C non-pie dwarf 4") << fixture("c_dwarf4") << fixture("c_dwarf4") << QStringList {};
        QTest::addRow("C++ pie") << fixture("cxx_pie") << fixture("cxx_pie") << QStringList {};
        QTest::addRow("C++ non-pie") << fixture("cxx_nopie") << fixture("cxx_nopie") << QStringList {};
        QTest::addRow("C++ zstd") << fixture("cxx_zstd") << fixture("cxx_pie") << QStringList {};
        QTest::addRow("C++ symtab only") << fixture("cxx_symtab") << fixture("cxx_pie") << QStringList {};
        QTest::addRow("shared library") << fixture("libsfshapes.so") << fixture("libsfshapes.so") << QStringList {};
        QTest::addRow("dynsym only") << fixture("libsfshapes_dynsym.so") << fixture("libsfshapes.so") << QStringList {};
        QTest::addRow("build-id directory") << fixture("buildid/cxx_buildid") << fixture("cxx_buildid_full")
                                            << QStringList { fixture("buildid/debug") };
        QTest::addRow("debuglink") << fixture("debuglink/cxx_debuglink") << fixture("cxx_pie") << QStringList {};
        QTest::addRow("dwz pie") << fixture("dwz/bin/dwz_a") << fixture("dwz/orig/dwz_a.debug")
                                 << QStringList { fixture("dwz/debug") };
        QTest::addRow("dwz non-pie") << fixture("dwz/bin/dwz_b") << fixture("dwz/orig/dwz_b.debug")
                                     << QStringList { fixture("dwz/debug") };
        QTest::addRow("dwz5") << fixture("dwz5/bin/dwz_a") << fixture("dwz5/orig/dwz_a.debug")
                              << QStringList { fixture("dwz5/debug") };
        QTest::addRow("minidebuginfo") << fixture("c_mini") << fixture("c_pie") << QStringList {};
        QTest::addRow("minidebuginfo library")
            << fixture("libsfshapes_mini.so") << fixture("libsfshapes.so") << QStringList {};
        QTest::addRow("split dwarf .dwo") << fixture("split/cxx_split") << fixture("split/cxx_split") << QStringList {};
        QTest::addRow("split dwarf .dwp")
            << fixture("split_dwp/c_split_dwp") << fixture("split_dwp/c_split_dwp") << QStringList {};
        QTest::addRow("Go") << fixture("go_prog") << fixture("go_prog") << QStringList {};
        QTest::addRow("Rust") << fixture("rust_prog") << fixture("rust_prog") << QStringList {};
    }

    void identicalAnswers()
    {
        QFETCH(QString, binary);
        QFETCH(QString, addressesFrom);
        QFETCH(QStringList, debugDirs);
        if (const QString why = symtest::missingTool(binary); !why.isEmpty())
            QSKIP(qPrintable(why));
        auto elf = ElfFile::open(binary.toStdString());
        QVERIFY2(elf, elf ? "" : elf.error().toString().c_str());
        LocatorOptions lo;
        for (const QString& d : debugDirs)
            lo.debugDirs.push_back(d.toStdString());
        const LocateResult located = DebugInfoLocator(lo).locate(binary.toStdString(), (*elf)->buildId());
        QCOMPARE(int(located.status), int(LocateStatus::Found));
        auto original = ElfFile::open(addressesFrom.toStdString());
        QVERIFY(original);
        std::vector<uint64_t> addresses = addressesOf(*original);
        if (addresses.empty())
            addresses = addressesOf(*original, SymbolTable::Kind::Dynamic);
        addresses.push_back(0); // and one no function covers
        std::sort(addresses.begin(), addresses.end());
        QVERIFY(addresses.size() > 10);

        IsolationOptions none;
        none.policy = IsolationPolicy::None;
        const Outcome in = lookUp(located, addresses, none);
        const Outcome out = lookUp(located, addresses, isolateAll());
        QVERIFY(in.ran && out.ran);
        QVERIFY2(in.outcome.ok, in.outcome.error.c_str());
        QVERIFY2(out.outcome.ok, out.outcome.error.c_str());
        QCOMPARE(out.outcome.engine, in.outcome.engine);
        QCOMPARE(int(out.outcome.source), int(in.outcome.source));
        QCOMPARE(out.outcome.engineDetail, in.outcome.engineDetail);
        QCOMPARE(out.outcome.warningCount, in.outcome.warningCount);
        QCOMPARE(out.outcome.warnings, in.outcome.warnings);
        QCOMPARE(out.outcome.answers.size(), addresses.size());
        QCOMPARE(in.outcome.answers.size(), addresses.size());
        size_t named = 0;
        for (size_t i = 0; i < addresses.size(); ++i) {
            const std::string a = describe(in.outcome.answers, i), b = describe(out.outcome.answers, i);
            if (a != b)
                QFAIL(qPrintable(QStringLiteral("0x%1: in process\n%2isolated\n%3")
                                     .arg(addresses[i], 0, 16)
                                     .arg(QString::fromStdString(a), QString::fromStdString(b))));
            named += !in.outcome.answers
                          .str(in.outcome.answers.function(in.outcome.answers.frames(i).back().function).name)
                          .empty();
        }
        QVERIFY2(named > addresses.size() / 10, "addresses are named");
    }

    // The crasher really crashes LLVM: llvm-symbolizer-19 dies of SIGSEGV on it (the oracle for
    // "this file crashes the reader"), and our isolated lookup says so instead of dying.
    void crasherCrashesTheReader()
    {
        auto elf = ElfFile::open(deepDies());
        QVERIFY(elf);
        QProcess p;
        p.start(SYMFLAME_LLVM_SYMBOLIZER, { "--obj=" + QString::fromStdString(deepDies()), "0x401000" });
        QVERIFY(p.waitForFinished(120000));
        QCOMPARE(p.exitStatus(), QProcess::CrashExit);

        const LocateResult located = DebugInfoLocator().locate(deepDies(), (*elf)->buildId());
        QCOMPARE(int(located.status), int(LocateStatus::Found));
        const uint64_t address = 0x401000;
        const Outcome out = lookUp(located, std::span(&address, 1), isolateAll());
        QVERIFY(out.ran);
        QVERIFY(!out.outcome.ok);
        QVERIFY2(symtest::isCrashMessage(QString::fromStdString(out.outcome.error), QString::fromStdString(deepDies())),
            out.outcome.error.c_str());
    }

    // A profile of the crasher and a good binary: the pass finishes, the crasher's mapping says
    // why it has no names, the good one is symbolized exactly as without the crasher.
    void crasherFailsItsMappingOnly()
    {
        using symtest::Binary;
        auto deep = ElfFile::open(deepDies());
        auto good = ElfFile::open(fixtureStd("cxx_pie"));
        QVERIFY(deep && good);
        const std::vector<Binary> both { { "deepdies", (*deep)->buildId(), *deep, 0 },
            { "cxx_pie", (*good)->buildId(), *good, 0x555555554000 } };
        model::Profile p = symtest::makeProfile(both, { deepDies(), fixtureStd("cxx_pie") });
        model::Profile alone = symtest::makeProfile({ both[1] }, { fixtureStd("cxx_pie") });
        QCOMPARE(p.mappings.size(), size_t(2));
        size_t deepLocations = 0;
        for (const model::Location& l : p.locations)
            deepLocations += l.mapping.index() == 0;
        QVERIFY(deepLocations > 0);

        SymbolizeOptions so;
        so.isolation = isolateAll();
        auto report = symbolizeProfile(p, so);
        QVERIFY(report);
        SymbolizeOptions inProcess;
        inProcess.isolation.policy = IsolationPolicy::None;
        auto aloneReport = symbolizeProfile(alone, inProcess);
        QVERIFY(aloneReport);

        const MappingReport& bad = report->mappings[0];
        QVERIFY2(symtest::isCrashMessage(QString::fromStdString(bad.error), QString::fromStdString(deepDies())),
            bad.error.c_str());
        QCOMPARE(bad.resolved, uint64_t(0));
        QVERIFY2(bad.line().find(bad.error) != std::string::npos, bad.line().c_str());
        const MappingReport& ok = report->mappings[1];
        QVERIFY2(ok.error.empty(), ok.error.c_str());
        QCOMPARE(ok.resolved, aloneReport->mappings[0].resolved);
        QCOMPARE(ok.locations, aloneReport->mappings[0].locations);
        QVERIFY(ok.resolved > 0);
        // The good binary's locations, in the same order, name the same chains.
        const std::vector<std::string> chains = symtest::chains(p), aloneChains = symtest::chains(alone);
        QCOMPARE(chains.size(), deepLocations + aloneChains.size());
        for (size_t i = 0; i < aloneChains.size(); ++i)
            QCOMPARE(chains[deepLocations + i], aloneChains[i]);
        for (size_t i = 0; i < deepLocations; ++i) {
            QCOMPARE(chains[i], std::string());
            QVERIFY(p.locations[i].status != model::FrameStatus::Symbolized);
        }
    }

    // The default policy: the crasher's debug file comes from a real debuginfod server (Debian's
    // debuginfod over a directory holding it), so it is read in a worker without being asked for;
    // the pass finishes, the downloaded file's mapping says the reader crashed, the other binary
    // is symbolized.
    void downloadedCrasherIsolatedByDefault()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QVERIFY(QDir().mkpath(dir.filePath("server")) && QDir().mkpath(dir.filePath("stripped"))
            && QDir().mkpath(dir.filePath("db")));
        const QString debug = dir.filePath("server/deepdies.debug"), stripped = dir.filePath("stripped/deepdies");
        QVERIFY(symtest::runTool(SYMFLAME_OBJCOPY, { "--only-keep-debug", QString::fromStdString(deepDies()), debug }));
        QVERIFY(symtest::runTool(SYMFLAME_OBJCOPY, { "--strip-all", QString::fromStdString(deepDies()), stripped }));
        symtest::DebuginfodServer server(dir.filePath("server"), dir.filePath("db"));
        QVERIFY2(server.ok(), qPrintable(server.error()));

        auto deep = ElfFile::open(deepDies());
        auto good = ElfFile::open(fixtureStd("cxx_pie"));
        QVERIFY(deep && good);
        model::Profile p = symtest::makeProfile(
            { { "deepdies", (*deep)->buildId(), *deep, 0 }, { "cxx_pie", (*good)->buildId(), *good, 0x555555554000 } },
            { stripped.toStdString(), fixtureStd("cxx_pie") });
        SymbolizeOptions o;
        QCOMPARE(int(o.isolation.policy), int(IsolationPolicy::Downloaded));
        o.isolation.workerPath = SYMFLAME_EXECUTABLE;
        o.locator.useDefaultDebugDir = false;
        o.debuginfod.urls = { server.url() };
        o.debuginfod.cacheDir = dir.filePath("cache").toStdString();
        auto report = symbolizeProfile(p, o);
        QVERIFY(report);
        const MappingReport& bad = report->mappings[0];
        QCOMPARE(int(bad.source), int(DebugSource::Debuginfod));
        QVERIFY2(QString::fromStdString(bad.debugPath).startsWith(dir.filePath("cache")), bad.debugPath.c_str());
        QVERIFY2(symtest::isCrashMessage(QString::fromStdString(bad.error), QString::fromStdString(bad.debugPath)),
            bad.error.c_str());
        QCOMPARE(bad.resolved, uint64_t(0));
        const MappingReport& ok = report->mappings[1];
        QVERIFY2(ok.error.empty(), ok.error.c_str());
        QCOMPARE(int(ok.source), int(DebugSource::Binary));
        QVERIFY(ok.resolved > 0);
        QCOMPARE(ok.resolved, ok.locations);
        server.stop();
    }

    // The worker gets no descriptor of this process besides its socket and stderr: a pipe whose
    // write end this process closes reads as ended while the worker runs (a download's socket
    // held open by a worker kept a connection, and the window, waiting).
    void workerInheritsNoDescriptors()
    {
        int fds[2];
        QCOMPARE(::pipe(fds), 0); // without O_CLOEXEC, as a library might create one
        auto elf = ElfFile::open(fixtureStd("c_pie"));
        QVERIFY(elf);
        const LocateResult located = DebugInfoLocator().locate(fixtureStd("c_pie"), (*elf)->buildId());
        ModuleOptions mo;
        mo.isolation = isolateAll();
        auto engine = IsolatedEngine::open(located, mo, mo.isolation);
        QVERIFY(engine);
        QVERIFY(alive((*engine)->workerPid()));
        ::close(fds[1]);
        pollfd p { fds[0], POLLIN, 0 };
        QCOMPARE(::poll(&p, 1, 2000), 1);
        char c;
        QCOMPARE(::read(fds[0], &c, 1), ssize_t(0)); // the end, not a timeout
        ::close(fds[0]);
        const QDir fdDir(QStringLiteral("/proc/%1/fd").arg((*engine)->workerPid()));
        QStringList open = fdDir.entryList(QDir::NoDotAndDotDot | QDir::AllEntries);
        open.sort();
        QCOMPARE(open, (QStringList { "0", "1", "2" }));
    }

    // A worker that stops answering (here: stopped by a signal) is killed after the time limit.
    void timeLimit()
    {
        auto elf = ElfFile::open(fixtureStd("cxx_pie"));
        QVERIFY(elf);
        const LocateResult located = DebugInfoLocator().locate(fixtureStd("cxx_pie"), (*elf)->buildId());
        ModuleOptions mo;
        mo.isolation = isolateAll(1);
        auto engine = IsolatedEngine::open(located, mo, mo.isolation);
        QVERIFY2(engine, engine ? "" : engine.error().toString().c_str());
        const pid_t pid = (*engine)->workerPid();
        QVERIFY(alive(pid));
        QCOMPARE(::kill(pid, SIGSTOP), 0);
        const std::vector<uint64_t> addresses = addressesOf(*elf);
        SymbolizedAddresses out;
        QElapsedTimer timer;
        timer.start();
        model::Status st = (*engine)->symbolize(addresses, out, nullptr);
        QVERIFY(!st);
        QCOMPARE(QString::fromStdString(st.error().message),
            QStringLiteral("debug info reader timed out after 1 s on %1; other binaries unaffected")
                .arg(fixture("cxx_pie")));
        QVERIFY2(timer.elapsed() >= 900 && timer.elapsed() < 10000, qPrintable(QString::number(timer.elapsed())));
        QCOMPARE((*engine)->workerPid(), pid_t(-1));
        QVERIFY(!alive(pid)); // killed and reaped
        // The module stays failed; asking again does not hang.
        st = (*engine)->symbolize(addresses, out, nullptr);
        QVERIFY(!st);
        QVERIFY(st.error().message.find("timed out after 1 s") != std::string::npos);
    }

    // The worker killed while it works on a big module (the symflame executable: DWARF for
    // thousands of functions): the call returns the cause, this process goes on.
    void workerKilledMidBatch_data()
    {
        QTest::addColumn<int>("signal");
        QTest::addColumn<QString>("expected");
        QTest::addRow("SIGSEGV") << int(SIGSEGV) << symtest::crashCause();
        QTest::addRow("SIGKILL") << int(SIGKILL) << QStringLiteral("was killed (SIGKILL)");
    }

    void workerKilledMidBatch()
    {
        QFETCH(int, signal);
        QFETCH(QString, expected);
        auto elf = ElfFile::open(SYMFLAME_EXECUTABLE);
        QVERIFY(elf);
        const LocateResult located = DebugInfoLocator().locate(SYMFLAME_EXECUTABLE, (*elf)->buildId());
        ModuleOptions mo;
        mo.isolation = isolateAll();
        auto engine = IsolatedEngine::open(located, mo, mo.isolation);
        QVERIFY2(engine, engine ? "" : engine.error().toString().c_str());
        const std::vector<uint64_t> addresses = repeated(addressesOf(*elf));
        QVERIFY(addresses.size() > 100 * IsolatedEngine::kBatch);
        const pid_t pid = (*engine)->workerPid();
        SymbolizedAddresses out;
        model::Status st = model::Status::success();
        std::thread lookup([&] { st = (*engine)->symbolize(addresses, out, nullptr); });
        // Once the first batches are answered, the worker is in the middle of the module.
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        const int killed = ::kill(pid, signal);
        lookup.join();
        QCOMPARE(killed, 0);
        QVERIFY2(!st, "the lookup ended before the worker was killed");
        const QString message = QString::fromStdString(st.error().message);
        QCOMPARE(message,
            QStringLiteral("debug info reader %1 on %2; other binaries unaffected")
                .arg(expected, QString::fromUtf8(SYMFLAME_EXECUTABLE)));
        QVERIFY(out.size() < addresses.size());
        QVERIFY(!alive(pid));
    }

    // Cancelling stops the worker at once.
    void cancelKillsTheWorker()
    {
        auto elf = ElfFile::open(SYMFLAME_EXECUTABLE);
        QVERIFY(elf);
        const LocateResult located = DebugInfoLocator().locate(SYMFLAME_EXECUTABLE, (*elf)->buildId());
        ModuleOptions mo;
        mo.isolation = isolateAll();
        auto engine = IsolatedEngine::open(located, mo, mo.isolation);
        QVERIFY(engine);
        const pid_t pid = (*engine)->workerPid();
        const std::vector<uint64_t> addresses = repeated(addressesOf(*elf));
        model::CancelFlag cancel;
        SymbolizedAddresses out;
        model::Status st = model::Status::success();
        QElapsedTimer timer;
        std::thread lookup([&] { st = (*engine)->symbolize(addresses, out, &cancel); });
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        timer.start();
        cancel.cancel();
        lookup.join();
        QVERIFY(!st);
        QCOMPARE(int(st.error().code), int(model::ErrorCode::Cancelled));
        QVERIFY2(timer.elapsed() < 2000, qPrintable(QString::number(timer.elapsed())));
        QVERIFY(!alive(pid));
    }

    // Workers that are not ours, as real peers: one that can't be started, one that exits at
    // once, one that fails, one that answers garbage.
    void brokenWorkers_data()
    {
        QTest::addColumn<QString>("worker");
        QTest::addColumn<QString>("expected");
        QTest::addRow("missing") << QStringLiteral("/nonexistent/symflame")
                                 << QStringLiteral("cannot start the debug info reader /nonexistent/symflame: ");
        QTest::addRow("exits at once") << QStringLiteral("/bin/true")
                                       << QStringLiteral("debug info reader ended while opening the file on ");
        QTest::addRow("fails") << QStringLiteral("/bin/false")
                               << QStringLiteral("debug info reader exited with status 1 on ");
        QTest::addRow("garbage") << QStringLiteral("/bin/echo")
                                 << QStringLiteral("debug info reader sent a malformed answer on ");
    }

    void brokenWorkers()
    {
        QFETCH(QString, worker);
        QFETCH(QString, expected);
        auto elf = ElfFile::open(fixtureStd("c_pie"));
        QVERIFY(elf);
        const LocateResult located = DebugInfoLocator().locate(fixtureStd("c_pie"), (*elf)->buildId());
        ModuleOptions mo;
        mo.isolation = isolateAll(5);
        mo.isolation.workerPath = worker.toStdString();
        auto engine = openModule(located, mo);
        QVERIFY(!engine);
        const QString message = QString::fromStdString(engine.error().toString());
        QVERIFY2(message.startsWith(expected) || message.contains(": " + expected), qPrintable(message));
        QVERIFY2(message.contains(fixture("c_pie")), qPrintable(message));
    }

    // The policies: downloaded files only by default.
    void policy()
    {
        LocateResult local;
        local.status = LocateStatus::Found;
        local.source = DebugSource::Binary;
        QVERIFY(!shouldIsolate(local, IsolationPolicy::Downloaded));
        QVERIFY(shouldIsolate(local, IsolationPolicy::All));
        QVERIFY(!shouldIsolate(local, IsolationPolicy::None));
        LocateResult debuginfo = local;
        debuginfo.source = DebugSource::Debuginfod;
        QVERIFY(shouldIsolate(debuginfo, IsolationPolicy::Downloaded));
        QVERIFY(!shouldIsolate(debuginfo, IsolationPolicy::None));
        LocateResult executable = local;
        executable.binaryDownloaded = true;
        QVERIFY(shouldIsolate(executable, IsolationPolicy::Downloaded));
        LocateResult supplementary = local; // a local debug file, its dwz supplementary downloaded
        supplementary.source = DebugSource::BuildIdDirectory;
        QVERIFY(!shouldIsolate(supplementary, IsolationPolicy::Downloaded));
        supplementary.supplementaryDownloaded = true;
        QVERIFY(shouldIsolate(supplementary, IsolationPolicy::Downloaded));
        QCOMPARE(int(IsolationOptions().policy), int(IsolationPolicy::Downloaded));
        IsolationPolicy p = IsolationPolicy::None;
        QVERIFY(parseIsolationPolicy("all", &p));
        QCOMPARE(int(p), int(IsolationPolicy::All));
        QVERIFY(!parseIsolationPolicy("some", &p));
    }

    // The command line: lookup fails with the reason (exit 2), symbolize finishes and reports the
    // crashed binary beside the symbolized one; a bad --isolate is a usage error.
    void commandLine()
    {
        QProcess lookup;
        lookup.start(SYMFLAME_EXECUTABLE,
            { "lookup", "--obj", QString::fromStdString(deepDies()), "--isolate=all", "0x401000" });
        QVERIFY(lookup.waitForFinished(120000));
        QCOMPARE(lookup.exitStatus(), QProcess::NormalExit);
        QCOMPARE(lookup.exitCode(), 2);
        const QString lookupError = QString::fromUtf8(lookup.readAllStandardError());
        const QString prefix = QStringLiteral("symflame: %1: ").arg(QString::fromStdString(deepDies()));
        QVERIFY2(lookupError.startsWith(prefix) && lookupError.endsWith('\n') && lookupError.count('\n') == 1
                && symtest::isCrashMessage(
                    lookupError.mid(prefix.size()).chopped(1), QString::fromStdString(deepDies())),
            qPrintable(lookupError));

        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        using symtest::Binary;
        auto deep = ElfFile::open(deepDies());
        auto good = ElfFile::open(fixtureStd("c_pie"));
        QVERIFY(deep && good);
        model::Profile p = symtest::makeProfile(
            { { "deepdies", (*deep)->buildId(), *deep, 0 }, { "c_pie", (*good)->buildId(), *good, 0x555555554000 } },
            { deepDies(), fixtureStd("c_pie") });
        const QString in = dir.filePath("in.pb"), out = dir.filePath("out.pb");
        QVERIFY(model::saveProfile(p, in.toStdString(), model::ProfileFormat::Pprof, {}));
        QProcess symbolize;
        symbolize.start(SYMFLAME_EXECUTABLE, { "symbolize", in, "-o", out, "--offline", "--isolate", "all" });
        QVERIFY(symbolize.waitForFinished(120000));
        QCOMPARE(symbolize.exitStatus(), QProcess::NormalExit);
        QCOMPARE(symbolize.exitCode(), 0);
        const QStringList lines = QString::fromUtf8(symbolize.readAllStandardOutput()).split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 2);
        QVERIFY2(
            lines[0].startsWith(QString::fromStdString(deepDies()) + "  " + QString::fromStdString((*deep)->buildId())
                + "  found  debug info reader " + symtest::crashCause()),
            qPrintable(lines[0]));
        QVERIFY2(lines[0].endsWith("  0/2"), qPrintable(lines[0]));
        QVERIFY2(lines[1].startsWith(fixture("c_pie")), qPrintable(lines[1]));
        QVERIFY2(!lines[1].contains("debug info reader"), qPrintable(lines[1]));
        QVERIFY(!lines[1].endsWith(" 0/" + lines[1].section('/', -1)));

        // info --symbolize symbolizes a copy to show the binaries: the crasher's row says why it
        // has no names. (Plain info's triage reads symbol tables, not the DWARF: see below.)
        QProcess info;
        info.start(SYMFLAME_EXECUTABLE, { "info", in, "--isolate=all", "--symbolize" });
        QVERIFY(info.waitForFinished(120000));
        QCOMPARE(info.exitStatus(), QProcess::NormalExit);
        QCOMPARE(info.exitCode(), 0);
        const QString infoText = QString::fromUtf8(info.readAllStandardOutput());
        QVERIFY2(infoText.contains(QStringLiteral("debug info reader ") + symtest::crashCause())
                && infoText.contains(
                    QStringLiteral(" on %1; other binaries unaffected").arg(QString::fromStdString(deepDies()))),
            qPrintable(infoText));

        // Plain info triages: the DWARF is located, not read, so the crasher is never opened and
        // its frames are named from its symbol table.
        QProcess triage;
        triage.start(SYMFLAME_EXECUTABLE, { "info", in, "--isolate=all", "--json" });
        QVERIFY(triage.waitForFinished(120000));
        QCOMPARE(triage.exitStatus(), QProcess::NormalExit);
        QCOMPARE(triage.exitCode(), 0);
        const QByteArray triageJson = triage.readAllStandardOutput();
        QVERIFY2(!triageJson.contains("debug info reader"), triageJson.constData());
        const QJsonArray rows = QJsonDocument::fromJson(triageJson).object().value("binaries").toArray();
        QCOMPARE(rows.size(), 2);
        for (const QJsonValue& v : rows) {
            const QJsonObject row = v.toObject();
            QCOMPARE(row.value("status").toString(), QStringLiteral("symbolized"));
            QCOMPARE(row.value("source").toString(), QStringLiteral("dwarf in binary"));
            QCOMPARE(row.value("symbolized").toInteger(), row.value("locations").toInteger());
        }

        QProcess bad;
        bad.start(SYMFLAME_EXECUTABLE, { "symbolize", in, "-o", out, "--isolate=some" });
        QVERIFY(bad.waitForFinished(30000));
        QCOMPARE(bad.exitCode(), 64);
        QVERIFY(bad.readAllStandardError().contains("--isolate wants none, downloaded or all, not 'some'"));
    }
};

QTEST_GUILESS_MAIN(TestIsolation)
#include "tst_isolation.moc"
