// The truncated-stack warning on real recordings: fpchain built without frame pointers (-O2
// -fomit-frame-pointer) and with them, each recorded by `perf record -e cpu-clock -g` by the test
// build (tests/fixtures/profiles.cmake). Oracle: `perf script` on the same file, a sample counted
// truncated when its outermost user frame's symbol is not a thread root. Checked: the share and
// the binary blamed after symbolization, the "[truncated]" root in the call tree with no false
// root left, and what `symflame info` (text, JSON), `symbolize` and `collapse` print.
#include "fixtures/fixturepaths.h"
#include "processhelpers.h"

#include "model/analysis/calltree.h"
#include "model/analysis/symboltable.h"
#include "model/analysis/truncatedstacks.h"
#include "model/io/profileio.h"
#include "symbolize/pass/dwarfunwinder.h"
#include "symbolize/pass/symbolizationpass.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QObject>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

using namespace symflame;
using namespace symflame::model;
using symflame::testing::runProcess;
using symflame::testing::runSymflame;

namespace {

struct Oracle {
    uint64_t samples = 0;
    uint64_t truncated = 0;
    uint64_t kernelOnly = 0;
    /// Samples perf script printed no frame for (seen: 1 of 843, now and then): it did not
    /// judge them, so a count of ours may hold them or not.
    uint64_t empty = 0;
    /// ours is perf's count, give or take the samples perf printed no frame for, and those are
    /// at most 1% of the samples.
    bool agrees(uint64_t ours, uint64_t perfs) const { return empty * 100 <= samples && perfs <= ours && ours <= perfs + empty; }
};

// The roots a thread's stack starts at on Debian 12's glibc, as perf names them.
bool oracleRoot(QString sym)
{
    sym = sym.section('@', 0, 0);
    static const QSet<QString> roots { "_start", "__libc_start_main", "__libc_start_call_main", "_dl_start_user",
        "_dl_start", "clone", "clone3", "__clone3", "start_thread" };
    return roots.contains(sym);
}

// `perf script -F tid,time,ip,sym,dso`: per sample a "tid time:" line, then its "addr sym (dso)"
// lines (none when perf's unwinding gave nothing).
Oracle perfScript(const QString& file)
{
    const auto r = runProcess("perf", { "script", "-i", file, "-F", "tid,time,ip,sym,dso", "--no-inline" });
    if (r.exitCode != 0)
        qFatal("perf script failed: %s", r.err.constData());
    static const QRegularExpression frame(R"(^\s+([0-9a-f]+) (.*) \((.*)\)$)");
    Oracle o;
    QString outermostUser;
    bool inSample = false, anyFrame = false, anyUser = false;
    const auto endSample = [&] {
        if (!inSample)
            return;
        ++o.samples;
        if (!anyFrame)
            ++o.empty;
        else if (!anyUser)
            ++o.kernelOnly;
        else if (!oracleRoot(outermostUser))
            ++o.truncated;
        inSample = anyFrame = anyUser = false;
    };
    for (const QByteArray& raw : r.out.split('\n')) {
        const QString line = QString::fromUtf8(raw);
        const auto m = frame.match(line);
        if (!m.hasMatch()) {
            if (!line.trimmed().isEmpty()) { // a sample's "tid time:" line
                endSample();
                inSample = true;
            }
            continue;
        }
        anyFrame = true;
        if (m.captured(3) == "[kernel.kallsyms]" || m.captured(3).startsWith("[guest.kernel"))
            continue;
        anyUser = true;
        outermostUser = m.captured(2);
    }
    endSample();
    return o;
}

struct Symbolized {
    Profile profile;
    TruncatedStacks truncated;
};

Symbolized symbolized(const char* path)
{
    LoadOptions load;
    load.perfUnwinder = symbolize::dwarfUnwinderFactory(); // for --call-graph dwarf recordings
    auto p = loadProfile(path, load);
    if (!p)
        qFatal("cannot read %s: %s", path, p.error().message.c_str());
    symbolize::SymbolizeOptions options;
    options.debuginfod.offline = true;
    auto report = symbolize::symbolizeProfile(*p, options);
    if (!report)
        qFatal("symbolization failed: %s", report.error().message.c_str());
    return { std::move(p).value(), report->truncatedStacks };
}

QStringList rootChildren(const SymbolTable& symbols, const CallTree& tree)
{
    QStringList out;
    for (NodeId n : tree.children(tree.root()))
        out << QString::fromStdString(symbols.displayName(tree.node(n).symbol));
    return out;
}

// perf script's reading of one recording and symflame's, side by side in the test's log.
struct Recording {
    Oracle perf;
    Symbolized ours;
};

Recording readBoth(const char* what, const char* file)
{
    Recording r { perfScript(file), symbolized(file) };
    const TruncatedStacks& t = r.ours.truncated;
    qInfo("%s: symflame %llu of %llu truncated (%.2f%%), perf script %llu of %llu (%llu with no frame); %llu full stack copies", what,
        (unsigned long long)t.truncated, (unsigned long long)t.samples, 100 * t.share(),
        (unsigned long long)r.perf.truncated, (unsigned long long)r.perf.samples, (unsigned long long)r.perf.empty,
        (unsigned long long)t.fullStackCopies);
    return r;
}

} // namespace

class TestTruncatedPerf : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

private slots:
    void withoutFramePointers()
    {
        const auto [o, s] = readBoth("without frame pointers", fixtures::fpChainOmitPerfData);
        QVERIFY(o.samples > 200);
        const TruncatedStacks& t = s.truncated;
        QVERIFY(t.checked);
        QCOMPARE(t.samples, o.samples);
        QVERIFY(o.agrees(t.truncated, o.truncated));
        QVERIFY2(t.share() > 0.8, "most samples stop in the fixture's -O2 code");
        QVERIFY(!t.binaries.empty());
        QCOMPARE(QString::fromStdString(t.binaries[0].path), QString(fixtures::fpChainOmitBinary));
        QCOMPARE(QString::fromStdString(t.binaries[0].name), QStringLiteral("fpchain-omit"));
        QVERIFY(t.binaries[0].samples > t.truncated * 9 / 10);

        // The tree: truncated samples under "[truncated]" (whose children are the frames where
        // unwinding stopped: the hot leaf), and no fixture function left as a false root.
        const SymbolTable symbols = SymbolTable::build(s.profile);
        const int samplesType = s.profile.findSampleType("samples");
        QVERIFY(samplesType >= 0);
        const CallTree tree = CallTree::build(s.profile, symbols, size_t(samplesType));
        const QStringList roots = rootChildren(symbols, tree);
        QVERIFY2(roots.contains("[truncated]"), qPrintable(roots.join(", ")));
        for (const char* f : { "fp_leaf", "fp_inner", "fp_middle", "fp_outer", "main" })
            QVERIFY2(!roots.contains(f), qPrintable("a false root: " + QString(f) + " in " + roots.join(", ")));
        for (NodeId n : tree.children(tree.root())) {
            if (symbols.displayName(tree.node(n).symbol) != kTruncatedFrameName)
                continue;
            QVERIFY(o.agrees(uint64_t(tree.node(n).total), o.truncated));
            QStringList under;
            for (NodeId c : tree.children(n))
                under << QString::fromStdString(symbols.displayName(tree.node(c).symbol));
            QVERIFY2(under.contains("fp_leaf"), qPrintable(under.join(", ")));
        }
    }

    void withFramePointers()
    {
        const auto [o, s] = readBoth("with frame pointers", fixtures::fpChainPerfData);
        QVERIFY(o.samples > 200);
        const TruncatedStacks& t = s.truncated;
        QCOMPARE(t.samples, o.samples);
        QVERIFY(o.agrees(t.truncated, o.truncated));
        // Only the program's start in ld.so (before libc runs) may stop short.
        // (1-2% here: a 0.2 s recording, the start a few ms of it); under the viewer's notice's 5%.
        QVERIFY2(t.share() < 0.05, qPrintable(QString::fromStdString(t.describe())));
        for (const auto& b : t.binaries)
            QVERIFY2(b.name != "fpchain-no-omit", qPrintable(QString::fromStdString(t.describe())));
        const SymbolTable symbols = SymbolTable::build(s.profile);
        const CallTree tree = CallTree::build(s.profile, symbols, 0);
        const QStringList roots = rootChildren(symbols, tree);
        QVERIFY2(roots.contains("__libc_start_call_main"), qPrintable(roots.join(", ")));
        QVERIFY2(!roots.contains("fp_leaf"), qPrintable(roots.join(", ")));
    }

    // `--call-graph dwarf` of a program about 20 KB of stack deep: perf's 8 KB stack copies end
    // before the stack does, so unwinding stops in the program's recursion, for perf script's
    // unwinder as for symflame's; the warning says the copies were full and to record larger ones.
    void dwarfStackCopiesTooSmall()
    {
        const auto [o, s] = readBoth("deep stacks, dwarf", fixtures::deepStackPerfData);
        QVERIFY(o.samples > 200);
        const TruncatedStacks& t = s.truncated;
        QVERIFY(t.checked);
        QCOMPARE(t.callGraph, std::string("dwarf"));
        QCOMPARE(t.samples, o.samples);
        QVERIFY2(double(o.truncated) > 0.8 * double(o.samples), "perf script reaches main: the fixture is too shallow");
        QVERIFY2(t.share() > 0.8, qPrintable(QString::fromStdString(t.describe())));
        QVERIFY(!t.binaries.empty());
        QCOMPARE(QString::fromStdString(t.binaries[0].path), QString(fixtures::deepStackBinary));
        QVERIFY2(QString::fromStdString(t.describe()).contains("unwinding stopped in: deepstack"),
            qPrintable(QString::fromStdString(t.describe())));
        QCOMPARE(t.stackCopySize, uint64_t(8192));
        QVERIFY(t.fullStackCopies >= t.truncated * 9 / 10);
        const QString advice = QString::fromStdString(t.advice());
        QVERIFY2(advice.contains("filled their stack copy of 8192 bytes") && advice.contains("--call-graph dwarf,65528"),
            qPrintable(advice));

        const auto text = runSymflame({ "info", fixtures::deepStackPerfData, "--offline" });
        QCOMPARE(text.exitCode, 0);
        QVERIFY2(text.out.contains("unwinding stopped in: deepstack") && text.out.contains("dwarf,65528"),
            text.out.constData());
    }

    void infoPrintsIt()
    {
        const Oracle o = perfScript(fixtures::fpChainOmitPerfData);
        const auto text = runSymflame({ "info", fixtures::fpChainOmitPerfData, "--offline" });
        QVERIFY2(text.ok(), text.err.constData());
        const QString out = QString::fromUtf8(text.out);
        const auto json = runSymflame({ "info", fixtures::fpChainOmitPerfData, "--offline", "--json" });
        QVERIFY2(json.ok(), json.err.constData());
        const QJsonObject t = QJsonDocument::fromJson(json.out).object().value("truncated_stacks").toObject();
        const auto truncated = uint64_t(t.value("truncated").toInteger());
        QVERIFY(o.agrees(truncated, o.truncated));
        QCOMPARE(uint64_t(t.value("samples").toInteger()), o.samples);
        const double pct = 100.0 * double(truncated) / double(o.samples);
        const QString expected = QStringLiteral("Stacks:        %1% of samples have truncated stacks; binaries without "
                                                "frame pointers: fpchain-omit (")
                                     .arg(pct, 0, 'f', pct < 10 ? 2 : 1);
        QVERIFY2(out.contains(expected), qPrintable(out));
        QVERIFY2(out.contains("--call-graph dwarf"), qPrintable(out));

        QCOMPARE(t.value("binaries").toArray().first().toObject().value("path").toString(),
            QString(fixtures::fpChainOmitBinary));
        QCOMPARE(t.value("root_frame").toString(), QStringLiteral("[truncated]"));

        // A pprof profile (not perf.data): nothing checked, null in JSON, no line in text.
        const auto go = runSymflame({ "info", fixtures::goCpuProfile, "--offline", "--json" });
        QVERIFY2(go.ok(), go.err.constData());
        QVERIFY(QJsonDocument::fromJson(go.out).object().value("truncated_stacks").isNull());
        const auto goText = runSymflame({ "info", fixtures::goCpuProfile, "--offline" });
        QVERIFY(!goText.out.contains("Stacks:"));
    }

    void exportsKeepTheRoot()
    {
        // `symflame symbolize` writes the "[truncated]" frame; collapse of the result shows it
        // at the root of exactly the truncated samples.
        const Oracle o = perfScript(fixtures::fpChainOmitPerfData);
        const QString out = m_dir.filePath("omit.pb.gz");
        const auto sym = runSymflame({ "symbolize", fixtures::fpChainOmitPerfData, "-o", out, "--offline" });
        QVERIFY2(sym.ok(), sym.err.constData());
        const auto folded = runSymflame({ "collapse", out, "--sample-type", "samples" });
        QVERIFY2(folded.ok(), folded.err.constData());
        uint64_t under = 0, total = 0;
        for (const QByteArray& line : folded.out.split('\n')) {
            if (line.isEmpty())
                continue;
            const uint64_t v = line.mid(line.lastIndexOf(' ') + 1).toULongLong();
            total += v;
            if (line.startsWith("[truncated];"))
                under += v;
            QVERIFY2(!line.startsWith("fp_leaf;") && !line.startsWith("fp_leaf "), line.constData());
        }
        QCOMPARE(total, o.samples);
        QVERIFY(o.agrees(under, o.truncated));
        // Read back, info still reports it (from the frame).
        const auto json = runSymflame({ "info", out, "--offline", "--json" });
        QVERIFY2(json.ok(), json.err.constData());
        const QJsonObject t = QJsonDocument::fromJson(json.out).object().value("truncated_stacks").toObject();
        QCOMPARE(uint64_t(t.value("truncated").toInteger()), under);
    }
};

QTEST_GUILESS_MAIN(TestTruncatedPerf)
#include "tst_truncatedperf.moc"
