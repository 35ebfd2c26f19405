// lookupModules (symbolize/pass/parallellookup.h): answers with many threads and small shards equal
// the answers of one engine over all addresses in one go, for a large binary (the symflame
// executable itself, built with debug info) and a shared library together; a module without
// debug info fails alone; cancelling stops the run.
#include "symbolize/locate/debuginfolocator.h"
#include "symbolize/engines/dwarfengine.h"
#include "symbolize/pass/moduleloader.h"
#include "symbolize/pass/parallellookup.h"
#include "symbolize/pass/symbolizationpass.h"
#include "symbolize/object/symboltable.h"

#include "symfixturehelpers.h"
#include "symprofilehelpers.h"

#include <QTest>

#include <algorithm>

using namespace symflame;
using namespace symflame::symbolize;
using symtest::addressesOf;

namespace {

// One address's answer as text: "function file:line:column" per frame, innermost first.
std::string describe(const SymbolizedAddresses& a, size_t i)
{
    std::string s;
    for (const SymbolizedFrame& f : a.frames(i)) {
        const SymbolizedFunction& fn = a.function(f.function);
        s += std::string(a.str(fn.name)) + " [" + std::string(a.str(fn.systemName)) + "] "
            + std::string(a.str(fn.file)) + ":" + std::to_string(f.line) + ":" + std::to_string(f.column)
            + " decl " + std::to_string(fn.startLine) + "\n";
    }
    return s;
}

class CancelAtOnce : public model::Progress {
public:
    bool isCancelled() const override { return true; }
};

class CountingProgress : public model::Progress {
public:
    void setProgress(uint64_t done, uint64_t total) override
    {
        last = done;
        this->total = total;
        ++calls;
    }
    uint64_t last = 0, total = 0;
    int calls = 0;
};

} // namespace

class TestParallelLookup : public QObject {
    Q_OBJECT

private slots:
    void shardsAgreeWithOneEngine()
    {
        const DebugInfoLocator locator;
        const LocateResult big = locator.locate(SYMFLAME_EXECUTABLE, "");
        QCOMPARE(big.status, LocateStatus::Found);
        QCOMPARE(big.source, DebugSource::Binary);
        const LocateResult lib = locator.locate(symtest::fixture("libsfshapes.so").toStdString(), "");
        QCOMPARE(lib.status, LocateStatus::Found);

        const std::vector<uint64_t> bigAddrs = addressesOf(big.binary);
        const std::vector<uint64_t> libAddrs = addressesOf(lib.binary);
        QVERIFY2(bigAddrs.size() > 2000, qPrintable(QString::number(bigAddrs.size())));
        QVERIFY(libAddrs.size() > 10);

        // Reference: one engine, all addresses at once.
        std::vector<SymbolizedAddresses> reference(2);
        const LocateResult* located[2] = { &big, &lib };
        const std::vector<uint64_t>* addrs[2] = { &bigAddrs, &libAddrs };
        for (int m = 0; m < 2; ++m) {
            auto engine = openModule(*located[m], ModuleOptions {});
            QVERIFY(engine);
            QVERIFY((*engine)->symbolize(*addrs[m], reference[m], nullptr));
        }

        const LookupModule modules[] = { { &big, bigAddrs }, { &lib, libAddrs } };
        LookupOptions options;
        options.threads = 4;
        options.minShardAddresses = 100; // 16 shards of the big binary
        CountingProgress progress;
        auto outcomes = lookupModules(modules, options, &progress);
        QVERIFY(outcomes);
        QCOMPARE(outcomes->size(), size_t(2));
        QCOMPARE(progress.total, uint64_t(bigAddrs.size() + libAddrs.size()));
        QCOMPARE(progress.last, progress.total);
        for (int m = 0; m < 2; ++m) {
            const LookupOutcome& o = (*outcomes)[m];
            QVERIFY2(o.ok, o.error.c_str());
            QCOMPARE(o.engine, std::string("llvm-dwarf"));
            QCOMPARE(o.source, DebugSource::Binary);
            QCOMPARE(o.answers.size(), addrs[m]->size());
            size_t named = 0;
            for (size_t i = 0; i < addrs[m]->size(); ++i) {
                const std::string want = describe(reference[m], i), got = describe(o.answers, i);
                if (want != got)
                    QFAIL(qPrintable(QString("module %1 address 0x%2:\nwant %3\ngot  %4")
                                         .arg(m)
                                         .arg((*addrs[m])[i], 0, 16)
                                         .arg(QString::fromStdString(want), QString::fromStdString(got))));
                named += !o.answers.function(o.answers.frames(i)[0].function).name.empty();
            }
            QVERIFY(named > addrs[m]->size() * 9 / 10);
        }
    }

    void moduleWithoutDebugInfoFailsAlone()
    {
        const DebugInfoLocator locator;
        LocateResult bare = locator.locate(symtest::fixture("libsfshapes.so").toStdString(), "");
        QCOMPARE(bare.status, LocateStatus::Found);
        const std::vector<uint64_t> addrs = addressesOf(bare.binary);
        bare.source = DebugSource::None; // as the locator says for a fully stripped file
        bare.dwarf.reset();
        bare.symbols.reset();
        const LocateResult good = locator.locate(symtest::fixture("libsfshapes.so").toStdString(), "");
        const LookupModule modules[] = { { &bare, addrs }, { &good, addrs } };
        auto outcomes = lookupModules(modules, LookupOptions {});
        QVERIFY(outcomes);
        QVERIFY(!(*outcomes)[0].ok);
        QVERIFY(!(*outcomes)[0].error.empty());
        QVERIFY((*outcomes)[1].ok);
        QCOMPARE((*outcomes)[1].answers.size(), addrs.size());
    }

    void symbolizerReusesEarlierAnswers()
    {
        std::vector<symtest::Binary> bins;
        std::vector<std::string> paths;
        uint64_t base = 0x7f2000000000;
        for (const char* name : { "cxx_pie", "libsfshapes.so" }) {
            auto elf = ElfFile::open(symtest::fixture(name).toStdString());
            QVERIFY(elf);
            bins.push_back({ name, (*elf)->buildId(), *elf, base });
            paths.push_back(symtest::fixture(name).toStdString());
            base += 0x10000000;
        }
        SymbolizeOptions o;
        o.locator.useDefaultDebugDir = false;
        SymbolizationPass s(o);
        model::Profile first = symtest::makeProfile(bins, paths);
        auto r1 = s.run(first);
        QVERIFY(r1);
        QCOMPARE(r1->addressesFromCache, uint64_t(0));
        QVERIFY(r1->addressesLookedUp > 20);

        // The same addresses again: all from the cache, the same answers.
        model::Profile again = symtest::makeProfile(bins, paths);
        auto r2 = s.run(again);
        QVERIFY(r2);
        QCOMPARE(r2->addressesLookedUp, r1->addressesLookedUp);
        QCOMPARE(r2->addressesFromCache, r1->addressesLookedUp);
        QCOMPARE(symtest::chains(again), symtest::chains(first));

        // More addresses: only the new ones are looked up; answers as a fresh SymbolizationPass gives.
        model::Profile more = symtest::makeProfile(bins, paths, true);
        auto r3 = s.run(more);
        QVERIFY(r3);
        QCOMPARE(r3->addressesFromCache, r1->addressesLookedUp);
        QVERIFY(r3->addressesLookedUp > r1->addressesLookedUp);
        model::Profile fresh = symtest::makeProfile(bins, paths, true);
        QVERIFY(SymbolizationPass(o).run(fresh));
        QCOMPARE(symtest::chains(more), symtest::chains(fresh));
        for (const MappingReport& m : r3->mappings)
            QCOMPARE(m.source, DebugSource::Binary);
    }

    void cancelStops()
    {
        const DebugInfoLocator locator;
        const LocateResult big = locator.locate(SYMFLAME_EXECUTABLE, "");
        const std::vector<uint64_t> addrs = addressesOf(big.binary);
        const LookupModule modules[] = { { &big, addrs } };
        CancelAtOnce cancel;
        auto outcomes = lookupModules(modules, LookupOptions {}, &cancel);
        QVERIFY(!outcomes);
        QCOMPARE(outcomes.error().code, model::ErrorCode::Cancelled);
    }
};

QTEST_GUILESS_MAIN(TestParallelLookup)
#include "tst_parallellookup.moc"
