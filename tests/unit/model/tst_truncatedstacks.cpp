// Truncated stacks (model/analysis/truncatedstacks) on profiles built by hand: which stacks count
// (kernel-only ones don't, kernel frames on top of a user stack are left out of the decision),
// which binary is blamed, the "[truncated]" root in the call tree, marking twice, a pprof round
// trip, and profiles that are not checked. The real recordings are tst_truncatedperf's.
#include "calltreetesthelpers.h"

#include "model/analysis/calltree.h"
#include "model/analysis/symboltable.h"
#include "model/analysis/truncatedstacks.h"
#include "model/io/pprof/pprof.h"

#include <QObject>
#include <QTest>

#include <map>

using namespace symflame::model;
using symflame::testing::printTree;

namespace {

// A perf-like profile (perf.call_graph "fp" unless told otherwise) with mappings app, libc and
// the kernel. Each stack is "bin:function;..." leaf first; bin "k" is the kernel, "-" no
// mapping; function "?" leaves the frame unnamed. Values: samples count, then cpu.
struct Builder {
    Profile p;
    std::map<std::string, MappingId> maps;
    std::map<std::string, LocationId> locs;
    uint64_t nextAddress = 0x1000;

    explicit Builder(bool perfFp = true)
    {
        p.sampleTypes.push_back({ p.strings.intern("samples"), p.strings.intern("count") });
        p.sampleTypes.push_back({ p.strings.intern("cpu-clock"), p.strings.intern("nanoseconds") });
        p.defaultSampleType = 1;
        for (const char* file : { "/usr/bin/app", "/usr/lib/x86_64-linux-gnu/libc.so.6", "[kernel.kallsyms]" }) {
            Mapping m;
            m.start = 0x1000;
            m.limit = 0x100000;
            m.file = p.strings.intern(file);
            maps[std::string(file).find("kernel") != std::string::npos ? "k"
                    : std::string(file).find("libc") != std::string::npos ? "libc"
                                                                           : "app"]
                = MappingId(p.mappings.size());
            p.mappings.push_back(m);
        }
        if (perfFp) {
            Label l;
            l.key = p.strings.intern("perf.call_graph");
            l.str = p.strings.intern("fp");
            p.attributes.push_back(l);
        }
    }

    LocationId location(const QString& frame)
    {
        const std::string key = frame.toStdString();
        if (auto it = locs.find(key); it != locs.end())
            return it->second;
        const QStringList parts = frame.split(':');
        Location loc;
        loc.address = nextAddress += 16;
        if (parts[0] != "-")
            loc.mapping = maps.at(parts[0].toStdString());
        loc.kind = parts[0] == "k" ? FrameKind::Kernel : FrameKind::Native;
        loc.linesBegin = uint32_t(p.lines.size());
        if (parts[1] != "?") {
            Function fn;
            fn.name = p.strings.intern(parts[1].toStdString());
            p.functions.push_back(fn);
            p.lines.push_back({ FunctionId(p.functions.size() - 1), 0, 0 });
            loc.lineCount = 1;
        }
        const LocationId id(p.locations.size());
        p.locations.push_back(loc);
        p.updateFrameStatuses();
        return locs[key] = id;
    }

    void add(const QString& stack, int64_t samples)
    {
        std::vector<LocationId> ids;
        for (const QString& f : stack.split(';'))
            ids.push_back(location(f));
        const int64_t values[] = { samples, samples * 1000 };
        p.addSample(p.internStack(ids), values);
    }
};

} // namespace

class TestTruncatedStacks : public QObject {
    Q_OBJECT
private slots:
    void threadRoots()
    {
        for (const char* root : { "_start", "__libc_start_main", "__libc_start_call_main", "__libc_start_main_impl",
                 "clone", "clone3", "__GI___clone3", "start_thread", "_dl_start_user", "runtime.goexit.abi0",
                 "__libc_start_main@GLIBC_2.34", "__libc_start_main@@GLIBC_2.34" })
            QVERIFY2(isThreadRootFunction(root), root);
        for (const char* other : { "main", "fp_leaf", "pthread_create@@GLIBC_2.34", "", "@", "start", "_start2",
                 "execute_native_thread_routine" })
            QVERIFY2(!isThreadRootFunction(other), other);
    }

    void classify_data()
    {
        QTest::addColumn<QString>("stack");
        QTest::addColumn<bool>("truncated");
        QTest::addColumn<QString>("blamed"); // the binary's name; "" when not truncated
        QTest::addRow("reaches libc's start") << "app:leaf;app:main;libc:__libc_start_call_main" << false << "";
        QTest::addRow("reaches clone3") << "app:work;libc:start_thread;libc:clone3" << false << "";
        QTest::addRow("the leaf alone") << "app:leaf" << true << "app";
        QTest::addRow("stops in libc") << "app:leaf;app:main;libc:malloc" << true << "libc.so.6";
        QTest::addRow("kernel only (idle)") << "k:default_idle;k:do_idle;k:cpu_startup_entry" << false << "";
        QTest::addRow("kernel on a rooted stack")
            << "k:vfs_write;k:ksys_write;libc:write;app:main;libc:__libc_start_call_main" << false << "";
        QTest::addRow("kernel on a truncated stack") << "k:vfs_write;libc:write;app:leaf" << true << "app";
        QTest::addRow("unnamed outermost frame") << "app:leaf;app:?" << true << "app";
        QTest::addRow("garbage address outermost") << "app:leaf;app:mid;-:?" << true << "app";
        QTest::addRow("nothing mapped") << "-:?" << true << "(unmapped)";
        QTest::addRow("a root in the middle only") << "app:leaf;libc:_start;app:mid" << true << "app";
    }

    void classify()
    {
        QFETCH(QString, stack);
        QFETCH(bool, truncated);
        QFETCH(QString, blamed);
        Builder b;
        b.add(stack, 3);
        b.add("app:other;app:main;libc:__libc_start_main", 1); // rooted
        const TruncatedStacks t = findTruncatedStacks(b.p);
        QVERIFY(t.checked);
        QCOMPARE(t.samples, uint64_t(4));
        QCOMPARE(t.truncated, uint64_t(truncated ? 3 : 0));
        if (truncated) {
            QCOMPARE(t.binaries.size(), size_t(1));
            QCOMPARE(QString::fromStdString(t.binaries[0].name), blamed);
            QCOMPARE(t.binaries[0].samples, uint64_t(3));
        } else {
            QVERIFY(t.binaries.empty());
        }
    }

    void markedUnderTruncatedRoot()
    {
        Builder b;
        b.add("app:hot;app:warm", 6);     // truncated: app
        b.add("app:hot;app:warm;app:main;libc:__libc_start_call_main", 3);
        b.add("libc:memcpy", 2);          // truncated: libc
        b.add("k:do_idle", 1);            // kernel only
        TruncatedStacks t = markTruncatedStacks(b.p);
        QCOMPARE(t.samples, uint64_t(12));
        QCOMPARE(t.truncated, uint64_t(8));
        QCOMPARE(t.stacksMarked, uint64_t(2));
        QCOMPARE(t.binaries.size(), size_t(2));
        QCOMPARE(QString::fromStdString(t.binaries[0].name), QStringLiteral("app"));
        QCOMPARE(t.binaries[0].samples, uint64_t(6));
        QCOMPARE(QString::fromStdString(t.binaries[1].path), QStringLiteral("/usr/lib/x86_64-linux-gnu/libc.so.6"));
        QCOMPARE(QString::fromStdString(t.describe()),
            QStringLiteral("66.7% of samples have truncated stacks; binaries without frame pointers: app (50.0%), "
                           "libc.so.6 (16.7%)"));

        // The tree: the truncated stacks under "[truncated]", no false root "warm" or "memcpy".
        const SymbolTable symbols = SymbolTable::build(b.p);
        const CallTree tree = CallTree::build(b.p, symbols, 0);
        const QStringList expected { "[truncated]=8", " memcpy=2", " warm=6", "  hot=6", "__libc_start_call_main=3",
            " main=3", "  warm=3", "   hot=3", "do_idle=1" };
        QCOMPARE(printTree(tree, symbols), expected);

        // Marking again changes nothing: the marked stacks are recognised and counted.
        const size_t stacks = b.p.stackCount(), locations = b.p.locations.size();
        t = markTruncatedStacks(b.p);
        QCOMPARE(t.truncated, uint64_t(8));
        QCOMPARE(t.stacksMarked, uint64_t(0));
        QCOMPARE(t.binaries.size(), size_t(2));
        QCOMPARE(b.p.stackCount(), stacks);
        QCOMPARE(b.p.locations.size(), locations);
        const SymbolTable again = SymbolTable::build(b.p);
        QCOMPARE(printTree(CallTree::build(b.p, again, 0), again), expected);

        // Saved as pprof and read back (no perf attribute any more): still found, same blame.
        const auto bytes = encodePprof(b.p);
        auto back = readPprof(bytes);
        QVERIFY2(back, back ? "" : back.error().message.c_str());
        QVERIFY(!checksTruncatedStacks(*back));
        const TruncatedStacks read = findTruncatedStacks(*back);
        QVERIFY(read.checked);
        QCOMPARE(read.truncated, uint64_t(8));
        QCOMPARE(read.samples, uint64_t(12));
        QCOMPARE(QString::fromStdString(read.binaries.at(0).name), QStringLiteral("app"));
    }

    void notCheckedWithoutFramePointerCallchains()
    {
        // pprof, OTLP and the others (no perf.call_graph "fp"): nothing examined, nothing moved.
        Builder b(false);
        b.add("app:leaf", 5);
        const size_t stacks = b.p.stackCount();
        const TruncatedStacks t = markTruncatedStacks(b.p);
        QVERIFY(!t.checked);
        QCOMPARE(t.truncated, uint64_t(0));
        QCOMPARE(b.p.stackCount(), stacks);
        QCOMPARE(b.p.sampleStacks[0], StackId(size_t(0)));
        // perf.data recorded with --call-graph dwarf read without an unwinder: its stacks are
        // perf's IPs, not judged; once unwound (perf.unwound_samples), they are.
        Label l;
        l.key = b.p.strings.intern("perf.call_graph");
        l.str = b.p.strings.intern("dwarf");
        b.p.attributes.push_back(l);
        QVERIFY(!findTruncatedStacks(b.p).checked);
        Label unwound;
        unwound.key = b.p.strings.intern("perf.unwound_samples");
        unwound.num = 0;
        b.p.attributes.push_back(unwound);
        const TruncatedStacks dwarf = findTruncatedStacks(b.p);
        QVERIFY(dwarf.checked);
        QCOMPARE(dwarf.callGraph, std::string("dwarf"));
        QVERIFY2(QString::fromStdString(dwarf.describe()).contains("unwinding stopped in: app"), dwarf.describe().c_str());
        QVERIFY2(QString::fromStdString(dwarf.advice()).contains("unwind tables"), dwarf.advice().c_str());
    }

    void countedBySamplesNotRecords()
    {
        // Without a samples count type every record counts one.
        Builder b;
        b.p.sampleTypes.erase(b.p.sampleTypes.begin());
        b.p.defaultSampleType = 0;
        const LocationId leaf = b.location("app:leaf"), root = b.location("libc:_start");
        const int64_t v[] = { 500 };
        b.p.addSample(b.p.internStack(std::vector<LocationId> { leaf }), v);
        b.p.addSample(b.p.internStack(std::vector<LocationId> { leaf, root }), v);
        b.p.addSample(b.p.internStack(std::vector<LocationId> { leaf, root }), v);
        const TruncatedStacks t = findTruncatedStacks(b.p);
        QCOMPARE(t.samples, uint64_t(3));
        QCOMPARE(t.truncated, uint64_t(1));
    }
};

QTEST_GUILESS_MAIN(TestTruncatedStacks)
#include "tst_truncatedstacks.moc"
