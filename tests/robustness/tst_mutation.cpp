// The mutation test: the real fixtures (pprof and OTLP profiles, gzip'd and their payloads, OTLP
// JSON, Collector files plain and zstd'd, folded stacks, .cpuprofile, ELF binaries, source maps) mutated deterministically (fixed
// seed: bit flips, truncations, splices with another fixture, inserted runs), each mutant given to
// the real `symflame` commands that read that kind of file (info, top and symbolize; debuginfo
// check and lookup; symbolize through the map). For every run: no signal, no hang
// past the timeout, an exit code the command documents (0 or 2; `debuginfo check` also 1 for a
// file without lines), on 2 one line on stderr naming the file, and the input unchanged.
// A failing mutant is kept under <build>/tests/mutation-failures/ with the command that
// reproduces it. SYMFLAME_MUTANTS (default 10, 4 under ASan) sets the mutants per kind and fixture,
// SYMFLAME_MUTATION_SEED another seed.
#include "filehelpers.h"
#include "model/io/gzip.h"

#include <QCryptographicHash>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <random>

using symflame::testing::readFile;
using symflame::testing::writeFile;

namespace {

enum class Kind { Profile, Elf, SourceMap };

struct Fixture {
    QString name;
    QString path;
    Kind kind;
};

QByteArray sha256(const QString& path)
{
    return QCryptographicHash::hash(readFile(path), QCryptographicHash::Sha256);
}

// ".pb.gz", ".json", ... or empty: the mutants keep their fixture's extension.
QString extensionOf(const QString& path)
{
    const QString f = QFileInfo(path).fileName();
    if (f.endsWith(".pb.gz"))
        return ".pb.gz";
    const qsizetype dot = f.lastIndexOf('.');
    return dot > 0 ? f.mid(dot) : QString();
}

// Every fixture the build made (a missing one fails the test: the build is incomplete).
QList<Fixture> fixtures()
{
    const QString b = SYMFLAME_TEST_BINARY_DIR;
    const QString s = SYMFLAME_SOURCE_DIR;
    QList<Fixture> list {
        { "cxx-sym.pb.gz", b + "/fixtures/cxx-sym.pb.gz", Kind::Profile },
        { "cxx-unsym.pb.gz", b + "/fixtures/cxx-unsym.pb.gz", Kind::Profile },
        { "go-cpu.pb.gz", b + "/fixtures/go-cpu.pb.gz", Kind::Profile },
        { "go-heap.pb.gz", b + "/fixtures/go-heap.pb.gz", Kind::Profile },
        { "demo-cpu.pb.gz", s + "/resources/demo/demo-cpu.pb.gz", Kind::Profile },
        { "otlp-v1.10.pb", b + "/otlp/scenario-v1.10.pb", Kind::Profile },
        { "otlp-v1.7.pb", b + "/otlp/scenario-v1.7.pb", Kind::Profile },
        { "otlp-request.pb", b + "/otlp/scenario-v1.10-request.pb", Kind::Profile },
        { "otlp-attributes.json", s + "/tests/otlp/attributes.json", Kind::Profile },
        { "otlp-simple.json", s + "/tests/otlp/simple.json", Kind::Profile },
        // Folded stacks are not an input format of symflame (only model/io/folded and its tests read
        // them): the mutants check that such text is refused cleanly.
        { "basic.folded", s + "/fuzz/seeds/folded/basic.txt", Kind::Profile },
        { "spaces.folded", s + "/fuzz/seeds/folded/spaces.txt", Kind::Profile },
        { "collector.pb", s + "/fuzz/seeds/collector/two-requests.pb", Kind::Profile },
        { "collector.pb.zst", s + "/fuzz/seeds/collector/two-requests.pb.zst", Kind::Profile },
        { "collector.jsonl", s + "/fuzz/seeds/collector/two-lines.jsonl", Kind::Profile },
        { "c_pie", b + "/symfixtures/c_pie", Kind::Elf },
        { "c_mini", b + "/symfixtures/c_mini", Kind::Elf },
        { "c_object.o", b + "/symfixtures/c_object.o", Kind::Elf },
        { "libsfshapes.so", b + "/symfixtures/libsfshapes.so", Kind::Elf },
        { "fs_i386", b + "/symfixtures/fs_i386", Kind::Elf },
        { "cxx_zstd", b + "/symfixtures/cxx_zstd", Kind::Elf },
        { "dwz_a.debug", b + "/symfixtures/dwz/debug/.build-id/d2/a0000000000000000000000000000000000001.debug",
            Kind::Elf },
        { "go_stripped", b + "/gofixtures/go_stripped", Kind::Elf },
    };
#ifdef SYMFLAME_JS_FIXTURES
    const QString js = SYMFLAME_JS_FIXTURES;
    list += {
        { "separate.cpuprofile", js + "/separate.cpuprofile", Kind::Profile },
        { "bundle.cpuprofile", js + "/bundle.cpuprofile", Kind::Profile },
        { "separate.pb.gz", js + "/separate.pb.gz", Kind::Profile },
        { "main.js.map", js + "/separate/main.js.map", Kind::SourceMap },
        { "bundle.js.map", js + "/bundle/bundle.js.map", Kind::SourceMap },
    };
#endif
    return list;
}

uint64_t nameSeed(const QString& name)
{
    uint64_t h = 1469598103934665603ull; // FNV-1a: the same seed on every machine
    for (QChar c : name) {
        h ^= c.unicode();
        h *= 1099511628211ull;
    }
    // SYMFLAME_MUTATION_SEED: another fixed set of mutants (for a longer hunt by hand).
    return h
        ^ (qEnvironmentVariableIsSet("SYMFLAME_MUTATION_SEED")
                ? qEnvironmentVariable("SYMFLAME_MUTATION_SEED").toULongLong()
                : 20261203ull);
}

/// The four kinds of mutation; rng is std::mt19937_64, whose output the standard fixes.
QByteArray mutate(int kind, const QByteArray& in, const QByteArray& donor, std::mt19937_64& rng)
{
    QByteArray b = in;
    const auto pick = [&](qsizetype n) { return n > 0 ? static_cast<qsizetype>(rng() % static_cast<uint64_t>(n)) : 0; };
    switch (kind) {
    case 0: { // bit flips: 1 to 8
        const int flips = 1 + pick(8);
        for (int i = 0; i < flips && !b.isEmpty(); ++i) {
            const qsizetype at = pick(b.size());
            b[at] = static_cast<char>(b[at] ^ (1 << pick(8)));
        }
        break;
    }
    case 1: // truncation
        b.truncate(pick(b.size()));
        break;
    case 2: { // splice: a piece of another fixture over or into this one
        const qsizetype at = pick(b.size() + 1);
        const qsizetype from = pick(donor.size());
        const qsizetype len = 1 + pick(std::min<qsizetype>(donor.size() - from, 4096));
        const QByteArray piece = donor.mid(from, len);
        if (rng() & 1)
            b.replace(at, piece.size(), piece);
        else
            b.insert(at, piece);
        break;
    }
    default: { // an inserted run: one byte repeated, or random bytes
        const qsizetype at = pick(b.size() + 1);
        const qsizetype len = 1 + pick(rng() & 1 ? 16 : 8192);
        static const char values[] = { 0, char(0xff), char(0x80), 0x7f, '[', '{', ';', '9' };
        QByteArray run(len, values[pick(sizeof values)]);
        if (rng() % 4 == 0)
            for (char& c : run)
                c = static_cast<char>(rng());
        b.insert(at, run);
        break;
    }
    }
    return b;
}

const char* kindName(int kind)
{
    static const char* names[] = { "bitflip", "truncate", "splice", "insert" };
    return names[kind];
}

} // namespace

class TestMutation : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void mutants_data();
    void mutants();
    void cleanupTestCase();

private:
    struct Run {
        QStringList args;
        QString file; // the mutant the command reads
        QList<int> allowedCodes;
        QString keepDir; // when set: the directory kept on failure (the mutant with what it needs)
    };
    void runOne(const Run& run, const QString& keepAs, QStringList& failures);

    QTemporaryDir m_tmp;
    QByteArray m_donor; // splices take pieces of this (all fixtures, one after another)
    int m_runs = 0;
    qint64 m_slowest = 0;
    QString m_slowestWhat;
};

void TestMutation::initTestCase()
{
    QVERIFY(m_tmp.isValid());
    for (const Fixture& f : fixtures()) {
        QVERIFY2(QFileInfo::exists(f.path), qPrintable(f.path + " is missing (build the fixtures)"));
        m_donor += readFile(f.path).left(65536);
    }
    QVERIFY(QFileInfo(SYMFLAME_EXECUTABLE).isExecutable());
}

void TestMutation::cleanupTestCase()
{
    qInfo("%d runs of symflame; the slowest took %lld ms (%s)", m_runs, static_cast<long long>(m_slowest),
        qPrintable(m_slowestWhat));
}

void TestMutation::mutants_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<int>("kind");
    for (const Fixture& f : fixtures())
        QTest::newRow(qPrintable(f.name)) << f.path << int(f.kind);
}

void TestMutation::runOne(const Run& run, const QString& keepAs, QStringList& failures)
{
    const QByteArray before = sha256(run.file);
    QProcess p;
    p.setProgram(SYMFLAME_EXECUTABLE);
    p.setArguments(run.args);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("DEBUGINFOD_URLS", "");
    p.setProcessEnvironment(env);
    QElapsedTimer timer;
    timer.start();
    p.start();
    const int timeoutMs = 30000;
    QString problem;
    if (!p.waitForStarted(timeoutMs)) {
        problem = "did not start: " + p.errorString();
    } else if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished(5000);
        problem = QString("hung: no exit after %1 s").arg(timeoutMs / 1000);
    } else if (p.exitStatus() == QProcess::CrashExit) {
        problem = "killed by a signal (crash)";
    } else {
        const int code = p.exitCode();
        const QString err = QString::fromUtf8(p.readAllStandardError()).trimmed();
        if (!run.allowedCodes.contains(code))
            problem = QString("exit code %1: %2").arg(code).arg(err.left(300));
        else if (code == 2 && err.isEmpty())
            problem = "exit code 2 without a message on stderr";
        else if (code == 2 && !err.contains(QFileInfo(run.file).fileName()))
            problem = "exit code 2, but stderr does not name the file: " + err.left(300);
    }
    const qint64 ms = timer.elapsed();
    ++m_runs;
    if (ms > m_slowest) {
        m_slowest = ms;
        m_slowestWhat = run.args.join(' ');
    }
    if (problem.isEmpty() && sha256(run.file) != before)
        problem = "the input file was changed";
    if (problem.isEmpty())
        return;
    const QString dir = QString(SYMFLAME_TEST_BINARY_DIR) + "/mutation-failures";
    QDir().mkpath(dir);
    const QString kept = dir + "/" + keepAs;
    QStringList args = run.args;
    if (run.keepDir.isEmpty()) {
        QFile::remove(kept);
        QFile::copy(run.file, kept);
        args.replaceInStrings(run.file, kept);
    } else {
        QDir(kept).removeRecursively();
        QDir().mkpath(kept);
        for (const QString& f : QDir(run.keepDir).entryList(QDir::Files))
            QFile::copy(run.keepDir + "/" + f, kept + "/" + f);
        args.replaceInStrings(run.keepDir, kept);
        args.replaceInStrings(m_tmp.path(), dir);
    }
    failures << QString("%1\n    reproduce: %2 %3").arg(problem, SYMFLAME_EXECUTABLE, args.join(' '));
}

void TestMutation::mutants()
{
    QFETCH(QString, path);
    QFETCH(int, kind);
    const QString name = QTest::currentDataTag();
    // Under ASan each run of the CLI is several times slower, and the fuzz harnesses cover the
    // readers there with far more inputs: 4 of each kind (10 in other builds) keep the sanitizer stage of CI inside its time.
#ifdef __SANITIZE_ADDRESS__
    constexpr int defaultPerKind = 4;
#else
    constexpr int defaultPerKind = 10;
#endif
    const int perKind = qEnvironmentVariableIsSet("SYMFLAME_MUTANTS") ? qEnvironmentVariableIntValue("SYMFLAME_MUTANTS")
                                                                      : defaultPerKind;
    const QByteArray original = readFile(path);
    QVERIFY(!original.isEmpty());

    // What gets mutated: the file, and for gzip'd profiles also the payload (written raw, which
    // the readers take as well), so that mutations reach the protobuf reader past the gzip CRC.
    QList<QPair<QString, QByteArray>> bases { { "", original } };
    if (symflame::model::isGzip(std::span(reinterpret_cast<const uint8_t*>(original.constData()), original.size()))) {
        auto payload = symflame::model::gunzip(
            std::span(reinterpret_cast<const uint8_t*>(original.constData()), original.size()));
        QVERIFY(payload.ok());
        bases.append(qMakePair(QString("payload-"),
            QByteArray(reinterpret_cast<const char*>(payload->data()), qsizetype(payload->size()))));
    }

    const QString dir = m_tmp.path() + "/" + name;
    QVERIFY(QDir().mkpath(dir));
    if (Kind(kind) == Kind::SourceMap) {
        // The copy of the script's directory must be what symbolize reads: with the map unmutated,
        // the report names the copy's map.
        const QString srcDir = QFileInfo(path).absolutePath();
        const QString copy = dir + "/" + QFileInfo(srcDir).fileName();
        QVERIFY(QDir().mkpath(copy));
        for (const QString& f : QDir(srcDir).entryList(QDir::Files))
            QVERIFY(QFile::copy(srcDir + "/" + f, copy + "/" + f));
        QProcess p;
        p.start(SYMFLAME_EXECUTABLE,
            { "symbolize", QFileInfo(srcDir).absolutePath() + "/" + QFileInfo(srcDir).fileName() + ".cpuprofile", "-o",
                dir + "/out.pb.gz", "--offline", "--path-map", srcDir + "=" + copy });
        QVERIFY(p.waitForFinished(60000));
        const QString out = QString::fromUtf8(p.readAllStandardOutput());
        QVERIFY2(
            p.exitCode() == 0 && out.contains("source-mapped") && out.contains(copy + "/" + QFileInfo(path).fileName()),
            qPrintable(out + p.readAllStandardError()));
    }
    std::mt19937_64 rng(nameSeed(name));
    QStringList failures;
    int count = 0;
    for (const auto& [prefix, base] : bases) {
        for (int k = 0; k < 4; ++k) {
            for (int i = 0; i < perKind; ++i) {
                const QByteArray mutant = mutate(k, base, m_donor, rng);
                QString ext = extensionOf(path);
                if (!prefix.isEmpty()) // the payload: no longer gzip'd
                    ext.chop(3);
                const QString keepAs
                    = QString("%1-%2%3-%4%5").arg(QString(name).replace('.', '_'), prefix, kindName(k)).arg(i).arg(ext);
                ++count;
                if (Kind(kind) == Kind::SourceMap) {
                    // The script and its map in a copy of the fixture's directory; the profile's
                    // script paths are rewritten there.
                    const QString srcDir = QFileInfo(path).absolutePath();
                    const QString copy = dir + "/" + QFileInfo(srcDir).fileName();
                    QDir().mkpath(copy);
                    for (const QString& f : QDir(srcDir).entryList(QDir::Files)) {
                        QFile::remove(copy + "/" + f);
                        QVERIFY(QFile::copy(srcDir + "/" + f, copy + "/" + f));
                    }
                    const QString map = copy + "/" + QFileInfo(path).fileName();
                    QVERIFY(writeFile(map, mutant));
                    const QString profile
                        = QFileInfo(srcDir).absolutePath() + "/" + QFileInfo(srcDir).fileName() + ".cpuprofile";
                    runOne({ { "symbolize", profile, "-o", dir + "/out.pb.gz", "--offline", "--path-map",
                                 srcDir + "=" + copy },
                               map, { 0, 2 }, copy },
                        keepAs, failures);
                    continue;
                }
                const QString file = dir + "/" + keepAs;
                QVERIFY(writeFile(file, mutant));
                if (Kind(kind) == Kind::Profile) {
                    runOne({ { "info", file }, file, { 0, 2 } }, keepAs, failures);
                    runOne({ { "top", file, "-n", "5" }, file, { 0, 2 } }, keepAs, failures);
                    if (i % 2) // half of them symbolized too (the fixtures' binaries are here)
                        runOne({ { "symbolize", file, "-o", dir + "/out.pb.gz", "--offline" }, file, { 0, 2 } }, keepAs,
                            failures);
                } else {
                    runOne({ { "debuginfo", "check", file }, file, { 0, 1, 2 } }, keepAs, failures);
                    runOne({ { "lookup", "--obj", file, "0x1139", "0x401136", "0x8049000", "0x10" }, file, { 0, 2 } },
                        keepAs, failures);
                }
                QFile::remove(file);
            }
        }
    }
    qInfo("%s: %d mutants, %d failures", qPrintable(name), count, int(failures.size()));
    QVERIFY2(failures.isEmpty(), qPrintable(failures.join('\n')));
}

QTEST_GUILESS_MAIN(TestMutation)
#include "tst_mutation.moc"
