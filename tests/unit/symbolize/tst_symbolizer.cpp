// Tests of symbolize/locate/debuginfolocator, symbolize/engines/dwarfengine, symbolize/object/demangle
// and the profile pass symbolize/pass/symbolizationpass, against llvm-symbolizer-19 as the oracle: on every function
// entry (from nm) and on sampled addresses inside functions of every fixture variant, function,
// system name, file, line, column, start line and the whole inline chain must be identical.
// Legacy Rust names are compared with c++filt's demangling minus the "::h<hash>" suffix, which
// symflame drops on purpose.
#include "filehelpers.h"
#include "symbolize/locate/debuginfolocator.h"
#include "symbolize/object/demangle.h"
#include "symbolize/engines/dwarfengine.h"
#include "symbolize/engines/linetableforms.h"
#include "symbolize/object/minidebuginfo.h"
#include "symbolize/pass/moduleloader.h"
#include "symbolize/pass/symbolizationpass.h"

#include <optional>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include "nmsymbols.h"
#include "symfixturehelpers.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <random>
#include <set>

using namespace symflame;
using namespace symflame::symbolize;
using symtest::fixture;
using symtest::missingTool;
using symtest::run;

using symflame::testing::readFileBytes;

namespace {

std::string fixtureStd(const QString& name)
{
    return fixture(name).toStdString();
}

struct OracleFrame {
    QString function;
    QString file;
    int line = 0;
    int column = 0;
    int startLine = 0;
};
using OracleAnswer = QVector<OracleFrame>;

/// llvm-symbolizer-19 --obj=obj --output-style=JSON on the addresses (one process, stdin).
QVector<OracleAnswer> llvmSymbolize(
    const QString& obj, const std::vector<uint64_t>& addresses, const QStringList& extra = {})
{
    QByteArray input;
    for (uint64_t a : addresses)
        input += "0x" + QByteArray::number(qulonglong(a), 16) + '\n';
    QStringList args { "--obj=" + obj, "--output-style=JSON" };
    args += extra;
    const QByteArray out = run(QStringLiteral(SYMFLAME_LLVM_SYMBOLIZER), args, input);
    QVector<OracleAnswer> answers;
    for (const QByteArray& line : out.split('\n')) {
        if (line.trimmed().isEmpty())
            continue;
        const QJsonObject o = QJsonDocument::fromJson(line).object();
        OracleAnswer a;
        for (const QJsonValue& f : o["Symbol"].toArray()) {
            const QJsonObject fo = f.toObject();
            a.push_back(OracleFrame { fo["FunctionName"].toString(), fo["FileName"].toString(), fo["Line"].toInt(),
                fo["Column"].toInt(), fo["StartLine"].toInt() });
        }
        answers.push_back(a);
    }
    return answers;
}

/// Function entries from nm (code symbols with a size), up to perFunction addresses inside each
/// and a few just outside each, sorted and unique.
std::vector<uint64_t> sampleAddresses(const QString& file, int perFunction, size_t* functions = nullptr)
{
    std::set<uint64_t> set;
    size_t nfun = 0;
    for (const symflame::testing::NmSymbol& f : symflame::testing::nmFunctions(file)) {
        const uint64_t addr = f.address, size = f.size;
        ++nfun;
        set.insert(addr);
        for (int k = 1; k <= perFunction; ++k)
            set.insert(addr + size * k / (perFunction + 1));
        set.insert(addr + size - 1);
        // Just outside: alignment padding between functions, where symbol sizes decide.
        set.insert(addr - 1);
        set.insert(addr + size);
        set.insert(addr + size + 3);
    }
    if (functions)
        *functions = nfun;
    return { set.begin(), set.end() };
}

/// Every step-th byte of every function nm lists (code symbols with a size), sorted and unique.
std::vector<uint64_t> denseAddresses(const QString& file, uint64_t step)
{
    std::set<uint64_t> set;
    for (const symflame::testing::NmSymbol& f : symflame::testing::nmFunctions(file))
        if (f.type != 'i')
            for (uint64_t a = f.address; a < f.address + f.size; a += step)
                set.insert(a);
    return { set.begin(), set.end() };
}

/// Every step-th address of the code sections (for ELFv1 PowerPC64, whose function symbols
/// name descriptors in .opd rather than code, so nm gives no code addresses).
std::vector<uint64_t> codeAddresses(const QString& file, uint64_t step, size_t* sections)
{
    std::vector<uint64_t> out;
    auto elf = ElfFile::open(file.toStdString());
    if (!elf)
        return out;
    *sections = 0;
    for (const ElfSection& s : (*elf)->sections())
        if ((s.flags & elf::SHF_EXECINSTR) && s.hasData()) {
            ++*sections;
            for (uint64_t a = s.addr; a < s.addr + s.size; a += step)
                out.push_back(a);
        }
    return out;
}

bool isLegacyRust(const QString& raw)
{
    static const QRegularExpression re(QStringLiteral("^_ZN.*17h[0-9a-f]{16}E(\\..*)?$"));
    return re.match(raw).hasMatch();
}

/// c++filt's names for legacy Rust symbols, without the trailing hash symflame drops.
std::map<QString, QString> cxxfiltRust(const std::set<QString>& raws)
{
    std::map<QString, QString> m;
    if (raws.empty())
        return m;
    QByteArray input;
    std::vector<QString> order(raws.begin(), raws.end());
    for (const QString& r : order)
        input += r.toUtf8() + '\n';
    const QList<QByteArray> lines = run(QStringLiteral(SYMFLAME_CXXFILT), {}, input).split('\n');
    static const QRegularExpression hash(QStringLiteral("::h[0-9a-f]{16}$"));
    for (size_t i = 0; i < order.size() && int(i) < lines.size(); ++i)
        m[order[i]] = QString::fromUtf8(lines[int(i)]).remove(hash);
    return m;
}

struct Comparison {
    size_t addresses = 0;
    size_t frames = 0;
    size_t inlined = 0; ///< addresses with a chain of 2 or more
    size_t maxDepth = 0;
    size_t named = 0;
    size_t withLine = 0;
    size_t mismatches = 0;
    QStringList examples;
};

/// Symbolizes addresses with symflame and compares every frame with llvm-symbolizer's answers
/// on oracleFile (demangled and raw); namesOnly compares function and system names only.
template <typename Engine>
Comparison compareWithOracle(
    Engine& sym, const std::vector<uint64_t>& addresses, const QString& oracleFile, bool namesOnly = false)
{
    Comparison c;
    SymbolizedAddresses mine;
    if (model::Status st = sym.symbolize(addresses, mine, nullptr); !st) {
        c.mismatches = addresses.size();
        c.examples << QString::fromStdString(st.error().message);
        return c;
    }
    const QVector<OracleAnswer> demangled = llvmSymbolize(oracleFile, addresses);
    const QVector<OracleAnswer> raw = llvmSymbolize(oracleFile, addresses, { "--no-demangle" });
    if (size_t(demangled.size()) != addresses.size() || size_t(raw.size()) != addresses.size()
        || mine.size() != addresses.size()) {
        c.mismatches = addresses.size();
        c.examples << QStringLiteral("answer counts differ: llvm %1/%2, symflame %3 for %4 addresses")
                          .arg(demangled.size())
                          .arg(raw.size())
                          .arg(mine.size())
                          .arg(addresses.size());
        return c;
    }
    std::set<QString> legacy;
    for (const OracleAnswer& a : raw)
        for (const OracleFrame& f : a)
            if (isLegacyRust(f.function))
                legacy.insert(f.function);
    const std::map<QString, QString> rustNames = cxxfiltRust(legacy);

    for (size_t i = 0; i < addresses.size(); ++i) {
        ++c.addresses;
        const auto frames = mine.frames(i);
        const OracleAnswer& want = demangled[int(i)];
        const OracleAnswer& wantRaw = raw[int(i)];
        c.maxDepth = std::max(c.maxDepth, frames.size());
        if (frames.size() > 1)
            ++c.inlined;
        QString why;
        if (frames.size() != size_t(want.size()) || want.size() != wantRaw.size()) {
            why = QStringLiteral("chain length %1, llvm %2").arg(frames.size()).arg(want.size());
        } else {
            for (size_t k = 0; k < frames.size() && why.isEmpty(); ++k) {
                ++c.frames;
                const SymbolizedFunction& fn = mine.function(frames[k].function);
                const QString name = QString::fromStdString(std::string(mine.str(fn.name)));
                const QString system = QString::fromStdString(std::string(mine.str(fn.systemName)));
                const QString file = QString::fromStdString(std::string(mine.str(fn.file)));
                const OracleFrame& w = want[int(k)];
                const QString rawName = wantRaw[int(k)].function;
                const QString wantName = isLegacyRust(rawName) ? rustNames.at(rawName) : w.function;
                if (k == 0 && !name.isEmpty())
                    ++c.named;
                if (k == 0 && frames[k].line > 0)
                    ++c.withLine;
                if (name != wantName)
                    why = QStringLiteral("frame %1 function '%2', llvm '%3'").arg(k).arg(name, wantName);
                else if (system != rawName)
                    why = QStringLiteral("frame %1 system name '%2', llvm '%3'").arg(k).arg(system, rawName);
                else if (namesOnly)
                    continue;
                else if (file != w.file)
                    why = QStringLiteral("frame %1 file '%2', llvm '%3'").arg(k).arg(file, w.file);
                else if (int(frames[k].line) != w.line || int(frames[k].column) != w.column)
                    why = QStringLiteral("frame %1 line %2:%3, llvm %4:%5")
                              .arg(k)
                              .arg(frames[k].line)
                              .arg(frames[k].column)
                              .arg(w.line)
                              .arg(w.column);
                else if (int(fn.startLine) != w.startLine)
                    why = QStringLiteral("frame %1 start line %2, llvm %3").arg(k).arg(fn.startLine).arg(w.startLine);
            }
        }
        if (!why.isEmpty()) {
            ++c.mismatches;
            if (c.examples.size() < 10)
                c.examples << QStringLiteral("0x%1: %2").arg(addresses[i], 0, 16).arg(why);
        }
    }
    return c;
}

class RecordingProgress : public model::Progress {
public:
    void setProgress(uint64_t done, uint64_t total) override
    {
        if (done < lastDone)
            monotonic = false;
        lastDone = done;
        lastTotal = total;
        ++calls;
    }
    void setStage(std::string_view s) override { stages.push_back(std::string(s)); }
    uint64_t lastDone = 0, lastTotal = 0;
    size_t calls = 0;
    bool monotonic = true;
    std::vector<std::string> stages;
};

// Runtime address of an ELF address in a mapping of segment seg at base (the kernel's layout).
model::Mapping mappingFor(
    const ElfFile& elf, uint64_t base, model::Profile& p, const std::string& path, const std::string& buildId)
{
    const uint64_t page = 4096;
    const ElfSegment* x = nullptr;
    for (const ElfSegment& s : elf.segments())
        if (s.type == elf::PT_LOAD && (s.flags & elf::PF_X))
            x = &s;
    model::Mapping m;
    m.start = base + (x->vaddr & ~(page - 1));
    m.limit = base + ((x->vaddr + x->memsz + page - 1) & ~(page - 1));
    m.offset = x->offset & ~(page - 1);
    m.file = p.strings.intern(path);
    m.buildId = p.strings.intern(buildId);
    return m;
}

uint64_t runtimeOf(const ElfFile& elf, const model::Mapping& m, uint64_t elfAddress)
{
    for (const ElfSegment& s : elf.segments())
        if (s.type == elf::PT_LOAD && (s.flags & elf::PF_X))
            return elfAddress + (m.start - m.offset + s.offset - s.vaddr);
    return 0;
}

bool writeBytes(const QString& path, const std::vector<uint8_t>& b)
{
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return false;
    return f.write(reinterpret_cast<const char*>(b.data()), qint64(b.size())) == qint64(b.size());
}

bool anyContains(const std::vector<std::string>& v, const QString& s)
{
    return std::any_of(v.begin(), v.end(), [&](const std::string& x) { return QString::fromStdString(x) == s; });
}

QString join(const std::vector<std::string>& v)
{
    QStringList l;
    for (const auto& s : v)
        l << QString::fromStdString(s);
    return l.join(QStringLiteral(" | "));
}

} // namespace

class TestSymbolizer : public QObject {
    Q_OBJECT
private slots:
    void oracle_data();
    void oracle();
    void demangle_data();
    void demangle();
    void profilePass();
    void cancelledBeforeStart();
    void locatorBadInput();
    void garbageDwarf();
    void brokenRelocations();
    void unknownLineTableForms();
    void pathMaps();
    void dwzEveryByte();
    void dwzSupplementaryLookup();
    void miniDebugInfoBadInput();
    void splitDwarfResolution();
    void garbageSupplementary();
    void profilePassDwzAndMiniDebugInfo();
    void outputsInTurn();
};

void TestSymbolizer::oracle_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("oracleFile"); // llvm-symbolizer's file (the unstripped original)
    QTest::addColumn<QString>("addressFile"); // nm's file
    QTest::addColumn<QStringList>("debugDirs");
    QTest::addColumn<QString>("buildId");
    QTest::addColumn<int>("source");
    QTest::addColumn<int>("perFunction");
    QTest::addColumn<bool>("expectInlining");
    QTest::addColumn<bool>("namesOnly"); // compare function names only (the oracle has files, we can't)

    const int bin = int(DebugSource::Binary);
    const auto row
        = [](const char* name, const QString& f, const QString& oracle, const QString& nmFile, const QStringList& dirs,
              const QString& id, int source, int per, bool inl, bool namesOnly = false) {
              QTest::newRow(name) << f << oracle << nmFile << dirs << id << source << per << inl << namesOnly;
          };
    row("c++ pie", fixture("cxx_pie"), fixture("cxx_pie"), fixture("cxx_pie"), {}, {}, bin, 24, true);
    row("c++ non-pie", fixture("cxx_nopie"), fixture("cxx_nopie"), fixture("cxx_nopie"), {}, {}, bin, 24, true);
    row("c++ dwarf 4", fixture("cxx_dwarf4"), fixture("cxx_dwarf4"), fixture("cxx_dwarf4"), {}, {}, bin, 24, true);
    row("c++ clang", fixture("cxx_clang"), fixture("cxx_clang"), fixture("cxx_clang"), {}, {}, bin, 24, true);
    row("c pie", fixture("c_pie"), fixture("c_pie"), fixture("c_pie"), {}, {}, bin, 40, true);
    row("c non-pie", fixture("c_nopie"), fixture("c_nopie"), fixture("c_nopie"), {}, {}, bin, 40, true);
    row("c dwarf 4", fixture("c_dwarf4"), fixture("c_dwarf4"), fixture("c_dwarf4"), {}, {}, bin, 40, true);
    // Section-relative addresses; .text and .text.startup both start at 0 (the first wins).
    row("relocatable object", fixture("c_object.o"), fixture("c_object.o"), fixture("c_object.o"), {}, {}, bin, 40,
        true);
    row("shared library", fixture("libsfshapes.so"), fixture("libsfshapes.so"), fixture("libsfshapes.so"), {}, {}, bin,
        40, true);
    row("zlib sections", fixture("cxx_zlib"), fixture("cxx_pie"), fixture("cxx_pie"), {}, {}, bin, 24, true);
    row("zstd sections", fixture("cxx_zstd"), fixture("cxx_pie"), fixture("cxx_pie"), {}, {}, bin, 24, true);
    row("build-id directory", fixture("buildid/cxx_buildid"), fixture("cxx_buildid_full"), fixture("cxx_buildid_full"),
        { fixture("buildid/debug") }, QStringLiteral(SYMFLAME_FIXTURE_BUILDID), int(DebugSource::BuildIdDirectory), 24,
        true);
    row("debuglink next to binary", fixture("debuglink/cxx_debuglink"), fixture("cxx_pie"), fixture("cxx_pie"), {}, {},
        int(DebugSource::DebugLink), 24, true);
    row("debuglink in .debug", fixture("debuglink2/c_debuglink"), fixture("c_pie"), fixture("c_pie"), {}, {},
        int(DebugSource::DebugLink), 40, true);
    row("debuglink in debug dir", fixture("debuglink3/c_debuglink3"), fixture("c_nopie"), fixture("c_nopie"),
        { fixture("debuglink3root") }, {}, int(DebugSource::DebugLink), 40, true);
    row("symtab only", fixture("cxx_symtab"), fixture("cxx_symtab"), fixture("cxx_pie"), {}, {},
        int(DebugSource::SymbolTable), 24, false);
    row("dynsym only", fixture("libsfshapes_dynsym.so"), fixture("libsfshapes_dynsym.so"), fixture("libsfshapes.so"),
        {}, {}, int(DebugSource::DynamicSymbolTable), 24, false);
    // LLVM 19 reads no legacy .zdebug sections: names only, from the symbol table.
    row("zlib-gnu sections", fixture("cxx_zlib_gnu"), fixture("cxx_zlib_gnu"), fixture("cxx_pie"), {}, {},
        int(DebugSource::SymbolTable), 24, false);
    // dwz -m over two debug files: the oracle is llvm-symbolizer on the debug files before dwz.
    const QString idA = QStringLiteral(SYMFLAME_FIXTURE_BUILDID_DWZ_A),
                  idB = QStringLiteral(SYMFLAME_FIXTURE_BUILDID_DWZ_B);
    const int bidDir = int(DebugSource::BuildIdDirectory);
    row("dwz pie", fixture("dwz/bin/dwz_a"), fixture("dwz/orig/dwz_a.debug"), fixture("dwz/orig/dwz_a.debug"),
        { fixture("dwz/debug") }, idA, bidDir, 24, true);
    row("dwz non-pie", fixture("dwz/bin/dwz_b"), fixture("dwz/orig/dwz_b.debug"), fixture("dwz/orig/dwz_b.debug"),
        { fixture("dwz/debug") }, idB, bidDir, 24, true);
    row("dwz -5 -r pie", fixture("dwz5/bin/dwz_a"), fixture("dwz5/orig/dwz_a.debug"), fixture("dwz5/orig/dwz_a.debug"),
        { fixture("dwz5/debug") }, idA, bidDir, 24, true);
    row("dwz -5 -r non-pie", fixture("dwz5/bin/dwz_b"), fixture("dwz5/orig/dwz_b.debug"),
        fixture("dwz5/orig/dwz_b.debug"), { fixture("dwz5/debug") }, idB, bidDir, 24, true);
    const QString id4A = QStringLiteral(SYMFLAME_FIXTURE_BUILDID_DWZ4_A);
    const QString id4B = QStringLiteral(SYMFLAME_FIXTURE_BUILDID_DWZ4_B);
    row("dwz dwarf 4 -r pie", fixture("dwz4/bin/dwz_a"), fixture("dwz4/orig/dwz_a.debug"),
        fixture("dwz4/orig/dwz_a.debug"), { fixture("dwz4/debug") }, id4A, bidDir, 24, true);
    row("dwz dwarf 4 -r non-pie", fixture("dwz4/bin/dwz_b"), fixture("dwz4/orig/dwz_b.debug"),
        fixture("dwz4/orig/dwz_b.debug"), { fixture("dwz4/debug") }, id4B, bidDir, 24, true);
    // MiniDebugInfo: names as llvm-symbolizer gives them from the unstripped symbol table.
    const int mini = int(DebugSource::MiniDebugInfo);
    row("minidebuginfo program", fixture("c_mini"), fixture("c_symtab"), fixture("c_pie"), {}, {}, mini, 40, false,
        true);
    row("minidebuginfo library", fixture("libsfshapes_mini.so"), fixture("libsfshapes_symtab.so"),
        fixture("libsfshapes.so"), {}, {}, mini, 40, false, true);
    // Split DWARF: .dwo at comp_dir/dwo_name; .dwp next to the binary.
    row("split dwarf .dwo", fixture("split/cxx_split"), fixture("split/cxx_split"), fixture("split/cxx_split"), {}, {},
        bin, 24, true);
    row("split dwarf .dwp", fixture("split_dwp/c_split_dwp"), fixture("split_dwp/c_split_dwp"),
        fixture("split_dwp/c_split_dwp"), {}, {}, bin, 40, true);
    row("rust", fixture("rust_prog"), fixture("rust_prog"), fixture("rust_prog"), {}, {}, bin, 3, true);
    row("elf32 i386", fixture("fs_i386"), fixture("fs_i386"), fixture("fs_i386"), {}, {}, bin, 40, false);
    row("elf32 big-endian mips", fixture("fs_mips"), fixture("fs_mips"), fixture("fs_mips"), {}, {}, bin, 40, false);
    // ELFv1: function symbols are descriptors in .opd; sample the code every 4 bytes instead.
    row("elf64 big-endian ppc64", fixture("fs_ppc64"), fixture("fs_ppc64"), fixture("fs_ppc64"), {}, {}, bin, -4,
        false);
    row("elf64 aarch64", fixture("fs_aarch64"), fixture("fs_aarch64"), fixture("fs_aarch64"), {}, {}, bin, 40, false);
}

void TestSymbolizer::oracle()
{
    QFETCH(QString, file);
    QFETCH(QString, oracleFile);
    QFETCH(QString, addressFile);
    QFETCH(QStringList, debugDirs);
    QFETCH(QString, buildId);
    QFETCH(int, source);
    QFETCH(int, perFunction);
    QFETCH(bool, expectInlining);
    QFETCH(bool, namesOnly);
    if (const QString why = missingTool(file); !why.isEmpty())
        QSKIP(qPrintable(why));
    QVERIFY2(QFile::exists(file), qPrintable(file + " was not built"));

    LocatorOptions lo;
    lo.useDefaultDebugDir = false;
    for (const QString& d : debugDirs)
        lo.debugDirs.push_back(d.toStdString());
    DebugInfoLocator locator(lo);
    const LocateResult loc = locator.locate(file.toStdString(), buildId.toStdString());
    QVERIFY2(loc.status == LocateStatus::Found, loc.summary().c_str());
    QVERIFY2(int(loc.source) == source, qPrintable(QString::fromStdString(loc.summary()) + ": " + join(loc.tried)));
    QCOMPARE(loc.unverified, buildId.isEmpty());

    // dwz output: only with its supplementary file.
    QCOMPARE(loc.supplementary != nullptr, file.contains("/dwz"));
    auto sym = openModule(loc, ModuleOptions {});
    QVERIFY2(sym.ok(), sym.ok() ? "" : sym.error().toString().c_str());
    QCOMPARE(QString((*sym)->engineName()), QString(loc.supplementary ? "llvm-dwarf+dwz" : "llvm-dwarf"));

    size_t functions = 0;
    const std::vector<uint64_t> addresses = perFunction > 0
        ? sampleAddresses(addressFile, perFunction, &functions)
        : codeAddresses(addressFile, uint64_t(-perFunction), &functions);
    QVERIFY(functions >= (perFunction > 0 ? 3u : 1u));
    QVERIFY(addresses.size() > functions);
    const auto t0 = std::chrono::steady_clock::now();
    const Comparison c = compareWithOracle(**sym, addresses, oracleFile, namesOnly);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    qInfo("%s: %zu functions, %zu addresses, %zu frames, %zu inlined (max depth %zu), %zu named, %zu with line; "
          "%zu mismatches (%.0f ms incl. oracle); %s",
        QTest::currentDataTag(), functions, c.addresses, c.frames, c.inlined, c.maxDepth, c.named, c.withLine,
        c.mismatches, ms, loc.summary().c_str());
    QVERIFY2(c.mismatches == 0, qPrintable(c.examples.join(QStringLiteral("\n"))));
    QCOMPARE(c.addresses, addresses.size());
    QVERIFY(c.named > 0);
    if (source <= int(DebugSource::DebugLink))
        QVERIFY(c.withLine > addresses.size() / 2);
    else
        QCOMPARE(c.withLine, size_t(0));
    if (expectInlining) {
        QVERIFY2(c.inlined > 10, qPrintable(QString::number(c.inlined)));
        QVERIFY(c.maxDepth >= 3);
    }
    QVERIFY2((*sym)->warningCount() == 0, qPrintable(join((*sym)->warnings())));
}

void TestSymbolizer::demangle_data()
{
    QTest::addColumn<QString>("raw");
    QTest::addColumn<bool>("legacyRust");
    QTest::newRow("c") << "main" << false;
    QTest::newRow("c++") << "_ZN7fixture10useLambdasERSt6vectorIiSaIiEEi" << false;
    QTest::newRow("c++ clone") << "_ZL10scaled_sumPKiii.constprop.0" << false;
    QTest::newRow("c++ lambda") << "_ZZN7fixture10useLambdasERSt6vectorIiSaIiEEiENKUliE_clEi" << false;
    QTest::newRow("rust legacy") << "_ZN4core3ptr35drop_in_place$LT$std..env..Args$GT$17heb2ac0560c458459E" << true;
    QTest::newRow("rust legacy impl") << "_ZN43_$LT$r..P$u20$as$u20$core..fmt..Display$GT$3fmt17ha86755b807a1da47E"
                                      << true;
    QTest::newRow("rust legacy closure") << "_ZN3std2rt10lang_start28_$u7b$$u7b$closure$u7d$$u7d$17ha86af84d9cc65291E"
                                         << true;
    QTest::newRow("rust legacy llvm suffix") << "_ZN1r4work17h2eba554428f119d7E.llvm.1234567890" << true;
    QTest::newRow("not rust: short hash") << "_ZN1r4work16h2eba554428f119dE" << false;
}

void TestSymbolizer::demangle()
{
    QFETCH(QString, raw);
    QFETCH(bool, legacyRust);
    std::string rust;
    QCOMPARE(demangleRustLegacy(raw.toStdString(), &rust), legacyRust);
    const QString mine = QString::fromStdString(demangleSymbol(raw.toStdString()));
    // c++filt (binutils) is the oracle; for legacy Rust it keeps the hash, which we drop.
    QString want = QString::fromUtf8(run(QStringLiteral(SYMFLAME_CXXFILT), { raw }).trimmed());
    if (legacyRust)
        want.remove(QRegularExpression(QStringLiteral("::h[0-9a-f]{16}( \\[clone \\..*\\])?$")))
            .remove(QRegularExpression(QStringLiteral("::h[0-9a-f]{16}\\.llvm\\..*$")));
    else if (raw.startsWith("_Z")) {
        // The C++ names come from LLVM's demangler, which llvm-symbolizer uses: same text.
        want = QString::fromUtf8(run(QStringLiteral(SYMFLAME_LLVM_CXXFILT), { raw }).trimmed());
    }
    QVERIFY(!want.isEmpty());
    QCOMPARE(mine, want);
    if (legacyRust)
        QCOMPARE(QString::fromStdString(rust), want);
}

void TestSymbolizer::profilePass()
{
    auto pie = ElfFile::open(fixtureStd("cxx_pie"));
    auto lib = ElfFile::open(fixtureStd("libsfshapes.so"));
    auto nopie = ElfFile::open(fixtureStd("cxx_nopie"));
    auto bid = ElfFile::open(fixtureStd("cxx_buildid_full"));
    QVERIFY(pie.ok() && lib.ok() && nopie.ok() && bid.ok());

    const std::string wrongId = "deadbeefdeadbeefdeadbeefdeadbeefdeadbeef";
    const std::string goneId = "00112233445566778899aabbccddeeff00112233";
    model::Profile p;
    p.sampleTypes.push_back({ p.strings.intern("samples"), p.strings.intern("count") });
    struct Binary {
        const ElfFile* elf;
        QString oracle;
        std::vector<uint64_t> elfAddresses;
    };
    // Mappings 0..2, 6 are symbolizable; 3..5 are not, each for its own reason.
    p.mappings.push_back(mappingFor(**pie, 0x555555554000, p, fixtureStd("cxx_pie"), (*pie)->buildId()));
    // In upper case: hex build IDs compare case-insensitively.
    p.mappings.push_back(mappingFor(**lib, 0x7f1234560000, p, fixtureStd("libsfshapes.so"),
        QString::fromStdString((*lib)->buildId()).toUpper().toStdString()));
    p.mappings.push_back(mappingFor(**nopie, 0, p, fixtureStd("cxx_nopie"), ""));
    model::Mapping vdso;
    vdso.start = 0x7fff0000;
    vdso.limit = 0x7fff2000;
    vdso.file = p.strings.intern("[vdso]");
    p.mappings.push_back(vdso);
    p.mappings.push_back(mappingFor(**lib, 0x7f5550000000, p, "/nonexistent/libgone.so", goneId));
    p.mappings.push_back(mappingFor(**pie, 0x555555600000, p, fixtureStd("cxx_pie"), wrongId));
    p.mappings.push_back(
        mappingFor(**bid, 0x555555700000, p, "/build/elsewhere/cxx_buildid", SYMFLAME_FIXTURE_BUILDID));

    std::vector<Binary> bins { { &**pie, fixture("cxx_pie"), sampleAddresses(fixture("cxx_pie"), 6) },
        { &**lib, fixture("libsfshapes.so"), sampleAddresses(fixture("libsfshapes.so"), 6) },
        { &**nopie, fixture("cxx_nopie"), sampleAddresses(fixture("cxx_nopie"), 6) }, { nullptr, {}, {} },
        { &**lib, {}, {} }, { &**pie, {}, {} },
        { &**bid, fixture("cxx_buildid_full"), sampleAddresses(fixture("cxx_buildid_full"), 6) } };
    // A few addresses in the unsymbolizable mappings.
    for (size_t m : { size_t(4), size_t(5) })
        bins[m].elfAddresses = std::vector<uint64_t>(bins[0].elfAddresses.begin(), bins[0].elfAddresses.begin() + 5);

    // Locations: per mapping, its sampled addresses (runtime). Stacks: every location alone as a
    // leaf; mapping 0's odd locations also as the caller of its first location (so they are both
    // leaf and non-leaf: split); mapping 1's locations only as callers (looked up at -1).
    std::vector<std::vector<uint32_t>> locsOf(p.mappings.size());
    for (size_t m = 0; m < p.mappings.size(); ++m) {
        std::vector<uint64_t> elfs = bins[m].elfAddresses;
        if (m == 3)
            elfs = { 0x7fff0100, 0x7fff0200 };
        for (size_t k = 0; k < elfs.size(); ++k) {
            model::Location loc;
            loc.mapping = model::MappingId(m);
            loc.address = m == 3 ? elfs[k] : runtimeOf(*bins[m].elf, p.mappings[m], elfs[k]);
            loc.sourceId = p.locations.size() + 1;
            locsOf[m].push_back(static_cast<uint32_t>(p.locations.size()));
            p.locations.push_back(loc);
        }
    }
    // A location with no mapping at all.
    model::Location orphan;
    orphan.address = 0x1234;
    orphan.status = model::FrameStatus::AddressOnly;
    p.locations.push_back(orphan);
    const size_t originalLocations = p.locations.size();
    const int64_t one = 1;
    std::vector<model::StackId> callerStacks;
    for (size_t m = 0; m < p.mappings.size(); ++m) {
        for (size_t k = 0; k < locsOf[m].size(); ++k) {
            const model::LocationId l(locsOf[m][k]);
            if (m != 1)
                p.addSample(p.internStack(std::span(&l, 1)), std::span(&one, 1));
            if ((m == 0 && k % 2 == 1) || m == 1) {
                const model::LocationId st[2] = { model::LocationId(locsOf[0][0]), l };
                callerStacks.push_back(p.internStack(st));
                p.addSample(callerStacks.back(), std::span(&one, 1));
            }
        }
    }
    p.finishBuilding();

    SymbolizeOptions opt;
    opt.locator.useDefaultDebugDir = false;
    opt.locator.debugDirs = { fixtureStd("buildid/debug") };
    opt.locator.pathMaps = { PathMap { "/build/elsewhere", fixtureStd("buildid") } };
    opt.nonLeafAddressesAreReturnAddresses = true;
    opt.threads = 3;
    model::Profile single = p; // the same pass on one thread must give the same answers
    RecordingProgress progress;
    auto rep = SymbolizationPass(opt).run(p, &progress);
    QVERIFY2(rep.ok(), rep.ok() ? "" : rep.error().toString().c_str());

    // Split: mapping 0's odd locations got a copy for their non-leaf uses.
    const size_t odd = locsOf[0].size() / 2;
    QCOMPARE(rep->locationsSplit, uint64_t(odd));
    QCOMPARE(p.locations.size(), originalLocations + odd);
    std::map<uint32_t, uint32_t> twinOf; // original -> copy
    for (model::StackId s : callerStacks) {
        const auto st = p.stack(s);
        QCOMPARE(st.size(), size_t(2));
        QCOMPARE(st[0].index(), size_t(locsOf[0][0]));
        if (st[1].index() >= originalLocations) {
            const model::Location& copy = p.locations[st[1].index()];
            QCOMPARE(copy.mapping.index(), size_t(0));
            for (uint32_t l : locsOf[0])
                if (p.locations[l].address == copy.address)
                    twinOf[l] = static_cast<uint32_t>(st[1].index());
        } else {
            QCOMPARE(p.locations[st[1].index()].mapping.index(), size_t(1)); // non-leaf only: not split
        }
    }
    QCOMPARE(twinOf.size(), odd);

    // Every location against the oracle, at the address it must have been looked up at.
    size_t checked = 0, named = 0, pltFrames = 0;
    for (size_t m : { size_t(0), size_t(1), size_t(2), size_t(6) }) {
        std::vector<std::pair<uint32_t, uint64_t>> expect; // location, elf lookup address
        for (size_t k = 0; k < locsOf[m].size(); ++k) {
            const uint32_t l = locsOf[m][k];
            const uint64_t e = bins[m].elfAddresses[k];
            expect.push_back({ l, m == 1 ? e - 1 : e });
            if (auto it = twinOf.find(l); m == 0 && it != twinOf.end())
                expect.push_back({ it->second, e - 1 });
        }
        std::vector<uint64_t> addrs;
        for (const auto& [l, e] : expect)
            addrs.push_back(e);
        QVector<OracleAnswer> want = llvmSymbolize(bins[m].oracle, addrs);
        QVector<OracleAnswer> wantRaw = llvmSymbolize(bins[m].oracle, addrs, { "--no-demangle" });
        QCOMPARE(size_t(want.size()), addrs.size());
        // Where llvm-symbolizer names a PLT stub after the symbol before it, the pass says
        // "[plt]" (EngineOptions::namePltStubs).
        for (size_t i = 0; i < addrs.size(); ++i)
            for (const ElfSection& sec : bins[m].elf->sections())
                if ((sec.name == ".plt" || sec.name.starts_with(".plt.")) && addrs[i] >= sec.addr
                    && addrs[i] < sec.addr + sec.size) {
                    OracleFrame plt;
                    plt.function = QStringLiteral("[plt]");
                    want[int(i)] = wantRaw[int(i)] = OracleAnswer { plt };
                    ++pltFrames;
                }
        size_t resolved = 0;
        for (size_t i = 0; i < expect.size(); ++i) {
            const model::Location& loc = p.locations[expect[i].first];
            const OracleAnswer& w = want[int(i)];
            bool anyName = false, anyFile = false;
            for (const OracleFrame& f : w) {
                anyName = anyName || !f.function.isEmpty();
                anyFile = anyFile || !f.file.isEmpty();
            }
            const QString where = QStringLiteral("mapping %1 location %2 (elf 0x%3)")
                                      .arg(m)
                                      .arg(expect[i].first)
                                      .arg(expect[i].second, 0, 16);
            QVERIFY2(loc.lineCount == ((anyName || anyFile) ? uint32_t(w.size()) : 0u), qPrintable(where));
            QCOMPARE(loc.status, anyName ? model::FrameStatus::Symbolized : model::FrameStatus::BinaryOnly);
            resolved += anyName ? 1 : 0;
            const auto lines = p.linesOf(loc);
            for (size_t k = 0; k < lines.size(); ++k) {
                const model::Function& fn = p.functions[lines[k].function.index()];
                QVERIFY2(QString::fromStdString(std::string(p.str(fn.name))) == w[int(k)].function, qPrintable(where));
                QCOMPARE(QString::fromStdString(std::string(p.str(fn.systemName))), wantRaw[int(i)][int(k)].function);
                QCOMPARE(QString::fromStdString(std::string(p.str(fn.file))), w[int(k)].file);
                QCOMPARE(lines[k].line, int64_t(w[int(k)].line));
                QCOMPARE(lines[k].column, int64_t(w[int(k)].column));
                QCOMPARE(fn.startLine, int64_t(w[int(k)].startLine));
                ++checked;
            }
            named += anyName;
        }
        const MappingReport& mr = rep->mappings[m];
        QCOMPARE(mr.status, LocateStatus::Found);
        QCOMPARE(mr.resolved, uint64_t(resolved));
        QCOMPARE(mr.locations, uint64_t(expect.size()));
        const uint8_t all = model::Mapping::HasFunctions | model::Mapping::HasFilenames | model::Mapping::HasLineNumbers
            | model::Mapping::HasInlineFrames;
        QCOMPARE(p.mappings[m].flags, all);
    }
    QVERIFY(checked > 500);
    QVERIFY2(pltFrames > 0, "no address of the fixtures in a PLT stub: [plt] is not checked");
    qInfo("profile pass: %zu lines checked against llvm-symbolizer, %zu named locations, %llu addresses looked up",
        checked, named, qulonglong(rep->addressesLookedUp));

    // The reports of the others, and their locations' statuses.
    const auto& r = rep->mappings;
    QCOMPARE(r[0].source, DebugSource::Binary);
    QVERIFY(!r[0].unverified);
    QCOMPARE(r[1].source, DebugSource::Binary);
    QVERIFY(!r[1].unverified);
    QVERIFY(r[2].unverified);
    QCOMPARE(QString::fromStdString(r[2].summary),
        QString("dwarf from %1, unverified: no build ID to check %1 against").arg(fixture("cxx_nopie")));
    QCOMPARE(r[3].status, LocateStatus::NotApplicable);
    for (uint32_t l : locsOf[3])
        QCOMPARE(p.locations[l].status, model::FrameStatus::NotApplicable);
    QCOMPARE(r[4].status, LocateStatus::NotFound);
    QCOMPARE(
        QString::fromStdString(r[4].summary), QString("binary not found (tried /nonexistent/libgone.so: not found)"));
    QCOMPARE(r[5].status, LocateStatus::BuildIdMismatch);
    QCOMPARE(QString::fromStdString(r[5].summary),
        QString("build ID mismatch: %1 has build ID %2, wanted %3")
            .arg(fixture("cxx_pie"), QString::fromStdString((*pie)->buildId()), QString::fromStdString(wrongId)));
    for (size_t m : { size_t(4), size_t(5) }) {
        QCOMPARE(r[m].resolved, uint64_t(0));
        for (uint32_t l : locsOf[m]) {
            QCOMPARE(p.locations[l].status, model::FrameStatus::BinaryOnly);
            QCOMPARE(p.locations[l].lineCount, 0u);
        }
    }
    QCOMPARE(r[6].source, DebugSource::BuildIdDirectory);
    QCOMPARE(QString::fromStdString(r[6].binaryPath), fixture("buildid/cxx_buildid"));
    QCOMPARE(QString::fromStdString(r[6].debugPath),
        fixture(QStringLiteral("buildid/debug/.build-id/%1/%2.debug")
                    .arg(QStringLiteral(SYMFLAME_FIXTURE_BUILDID).left(2),
                        QStringLiteral(SYMFLAME_FIXTURE_BUILDID).mid(2))));
    QVERIFY(r[6].tried.empty()); // the path map's path comes first, and it is the right file
    QCOMPARE(p.locations[originalLocations - 1].status, model::FrameStatus::AddressOnly);
    QVERIFY(QString::fromStdString(r[5].line()).contains("build ID mismatch"));

    // Progress: counted in locations, monotonic, complete.
    QVERIFY(progress.calls >= 2);
    QVERIFY(progress.monotonic);
    QCOMPARE(progress.lastDone, progress.lastTotal);
    QVERIFY(progress.lastTotal >= checked / 4);

    // One thread gives the same lines (ids may differ: compare the text).
    opt.threads = 1;
    auto rep1 = SymbolizationPass(opt).run(single, nullptr);
    QVERIFY(rep1.ok());
    QCOMPARE(single.locations.size(), p.locations.size());
    for (size_t i = 0; i < p.locations.size(); ++i) {
        const auto a = p.linesOf(p.locations[i]);
        const auto b = single.linesOf(single.locations[i]);
        QCOMPARE(a.size(), b.size());
        for (size_t k = 0; k < a.size(); ++k) {
            QCOMPARE(p.str(p.functions[a[k].function.index()].name),
                single.str(single.functions[b[k].function.index()].name));
            QCOMPARE(a[k].line, b[k].line);
        }
    }
    // Functions are deduplicated: no two with the same name, system name, file and start line.
    std::set<std::tuple<uint32_t, uint32_t, uint32_t, int64_t>> keys;
    for (const model::Function& f : p.functions)
        QVERIFY(keys.insert({ f.name.value, f.systemName.value, f.file.value, f.startLine }).second);

    // A second pass leaves symbolized locations alone.
    const size_t linesBefore = p.lines.size();
    auto again = SymbolizationPass(opt).run(p, nullptr);
    QVERIFY(again.ok());
    QCOMPARE(p.lines.size(), linesBefore);
    QCOMPARE(again->mappings[0].resolved, rep->mappings[0].resolved);
}

void TestSymbolizer::cancelledBeforeStart()
{
    auto pie = ElfFile::open(fixtureStd("cxx_pie"));
    QVERIFY(pie.ok());
    model::Profile p;
    p.mappings.push_back(mappingFor(**pie, 0x555555554000, p, fixtureStd("cxx_pie"), (*pie)->buildId()));
    for (uint64_t a : sampleAddresses(fixture("cxx_pie"), 2)) {
        model::Location loc;
        loc.mapping = model::MappingId(size_t(0));
        loc.address = runtimeOf(**pie, p.mappings[0], a);
        p.locations.push_back(loc);
    }
    model::CancelFlag cancel;
    cancel.cancel();
    auto r = SymbolizationPass(SymbolizeOptions {}).run(p, &cancel);
    QVERIFY(!r.ok());
    QCOMPARE(r.error().code, model::ErrorCode::Cancelled);
    QCOMPARE(QString::fromStdString(r.error().message), QString("symbolization cancelled"));
    QVERIFY(p.lines.empty());
    QVERIFY(p.functions.empty());
    for (const model::Location& loc : p.locations)
        QCOMPARE(loc.lineCount, 0u);
}

void TestSymbolizer::locatorBadInput()
{
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const QString id = QStringLiteral(SYMFLAME_FIXTURE_BUILDID);
    const QString stripped = fixture("buildid/cxx_buildid");

    // A "debug file" in the build-id directory that is not ELF; then one with another build ID.
    const QString dir = tmp.path() + "/debug/.build-id/" + id.left(2);
    QVERIFY(QDir().mkpath(dir));
    const QString debugPath = dir + "/" + id.mid(2) + ".debug";
    {
        QFile f(debugPath);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("this is not an ELF file\n");
    }
    LocatorOptions lo;
    lo.useDefaultDebugDir = false;
    lo.debugDirs = { (tmp.path() + "/debug").toStdString() };
    {
        const LocateResult r = DebugInfoLocator(lo).locate(stripped.toStdString(), id.toStdString());
        QCOMPARE(r.status, LocateStatus::Found);
        QCOMPARE(r.source, DebugSource::DynamicSymbolTable);
        QVERIFY2(anyContains(r.tried, debugPath + ": not an ELF file"), qPrintable(join(r.tried)));
        QCOMPARE(QString::fromStdString(r.summary()), "names only from the dynamic symbol table of " + stripped);
    }
    QVERIFY(QFile::remove(debugPath));
    QVERIFY(QFile::copy(fixture("debuglink2/.debug/c_debuglink.debug"), debugPath));
    {
        auto other = ElfFile::open(fixtureStd("debuglink2/.debug/c_debuglink.debug"));
        QVERIFY(other.ok());
        const LocateResult r = DebugInfoLocator(lo).locate(stripped.toStdString(), id.toStdString());
        QCOMPARE(r.source, DebugSource::DynamicSymbolTable);
        QVERIFY2(anyContains(r.tried,
                     debugPath + ": build ID mismatch (wanted " + id + ", found "
                         + QString::fromStdString((*other)->buildId()) + ")"),
            qPrintable(join(r.tried)));
    }

    // A debuglink pointing at the binary itself.
    {
        LocatorOptions none;
        none.useDefaultDebugDir = false;
        const QString self = fixture("selflink/c_selflink");
        const LocateResult r = DebugInfoLocator(none).locate(self.toStdString(), "");
        QCOMPARE(r.status, LocateStatus::Found);
        QCOMPARE(r.source, DebugSource::DynamicSymbolTable);
        QVERIFY2(anyContains(r.tried, self + ": debuglink points at the binary itself"), qPrintable(join(r.tried)));
        QVERIFY2(
            anyContains(r.tried, fixture("selflink/.debug/c_selflink") + ": not found"), qPrintable(join(r.tried)));
    }

    // A debug file whose CRC does not match the debuglink.
    {
        QVERIFY(QFile::copy(fixture("debuglink/cxx_debuglink"), tmp.path() + "/cxx_debuglink"));
        std::vector<uint8_t> dbg = readFileBytes(fixture("debuglink/cxx_debuglink.debug"));
        dbg[dbg.size() / 2] ^= 0x55;
        QVERIFY(writeBytes(tmp.path() + "/cxx_debuglink.debug", dbg));
        auto bin = ElfFile::open((tmp.path() + "/cxx_debuglink").toStdString());
        QVERIFY(bin.ok());
        LocatorOptions none;
        none.useDefaultDebugDir = false;
        const LocateResult r = DebugInfoLocator(none).locate((tmp.path() + "/cxx_debuglink").toStdString(), "");
        QCOMPARE(r.source, DebugSource::DynamicSymbolTable);
        const QString want = QStringLiteral("%1/cxx_debuglink.debug: CRC mismatch (debuglink wants %2, file has ")
                                 .arg(tmp.path())
                                 .arg((*bin)->debugLink()->crc, 8, 16, QChar('0'));
        QVERIFY2(std::any_of(r.tried.begin(), r.tried.end(),
                     [&](const std::string& t) { return QString::fromStdString(t).startsWith(want); }),
            qPrintable(join(r.tried)));
    }

    // A debuglink that names a path, not a file: not followed (an untrusted binary must not make
    // the locator open files outside the debug directories), even though the file it names exists
    // with the right CRC.
    {
        QVERIFY(QDir(tmp.path()).mkpath("sub"));
        std::vector<uint8_t> b = readFileBytes(fixture("debuglink/cxx_debuglink"));
        auto orig = ElfFile::open(fixtureStd("debuglink/cxx_debuglink"));
        QVERIFY(orig.ok());
        const ElfSection* s = (*orig)->findSection(".gnu_debuglink");
        QVERIFY(s);
        QCOMPARE((*orig)->debugLink()->name, std::string("cxx_debuglink.debug"));
        std::memcpy(b.data() + s->offset, "../", 3); // "../_debuglink.debug", the same length
        const QString bin = tmp.path() + "/sub/cxx_debuglink";
        QVERIFY(writeBytes(bin, b));
        QVERIFY(QFile::copy(fixture("debuglink/cxx_debuglink.debug"), tmp.path() + "/_debuglink.debug"));
        LocatorOptions none;
        none.useDefaultDebugDir = false;
        const LocateResult r = DebugInfoLocator(none).locate(bin.toStdString(), "");
        QCOMPARE(r.status, LocateStatus::Found);
        QCOMPARE(r.source, DebugSource::DynamicSymbolTable);
        QVERIFY2(anyContains(r.tried, "debuglink '../_debuglink.debug': not a file name"), qPrintable(join(r.tried)));
    }

    // A truncated binary: an invalid file, with the reason.
    {
        std::vector<uint8_t> b = readFileBytes(fixture("c_pie"));
        b.resize(b.size() / 3);
        const QString path = tmp.path() + "/truncated";
        QVERIFY(writeBytes(path, b));
        const LocateResult r = DebugInfoLocator(LocatorOptions {}).locate(path.toStdString(), "");
        QCOMPARE(r.status, LocateStatus::InvalidFile);
        QVERIFY2(
            QString::fromStdString(r.summary()).startsWith("invalid file (tried " + path + ": "), r.summary().c_str());
    }
    // A mapping with neither path nor build ID, and [vdso]: not applicable.
    QCOMPARE(DebugInfoLocator().locate("", "").status, LocateStatus::NotApplicable);
    QCOMPARE(DebugInfoLocator().locate("[vdso]", "").status, LocateStatus::NotApplicable);
    // By build ID only, through a search directory.
    {
        LocatorOptions so;
        so.useDefaultDebugDir = false;
        so.searchDirs = { fixtureStd("buildid") };
        DebugInfoLocator l(so);
        l.buildIndex();
        QVERIFY(l.indexedFileCount() >= 2);
        const LocateResult r = l.locate("", id.toStdString());
        QCOMPARE(r.status, LocateStatus::Found);
        QCOMPARE(QString::fromStdString(r.binaryPath), stripped);
        QCOMPARE(r.source, DebugSource::SearchDirectory);
        QVERIFY(QString::fromStdString(r.dwarfPath).endsWith(id.mid(2) + ".debug"));
    }
}

void TestSymbolizer::garbageDwarf()
{
    // Random bytes over the DWARF sections (past the first unit header): no crash, an answer for
    // every address, and the damage reported as warnings.
    auto good = ElfFile::open(fixtureStd("cxx_pie"));
    QVERIFY(good.ok());
    const std::vector<uint64_t> addresses = sampleAddresses(fixture("cxx_pie"), 4);
    const std::vector<uint8_t> original(good.value()->bytes().begin(), good.value()->bytes().end());
    size_t warned = 0, runs = 0;
    for (const char* section : { ".debug_info", ".debug_line", ".debug_abbrev", ".debug_rnglists", ".debug_str" }) {
        for (int seed = 1; seed <= 4; ++seed) {
            const ElfSection* s = (*good)->findSection(section);
            QVERIFY2(s, section);
            std::vector<uint8_t> b = original;
            std::mt19937 rng(static_cast<unsigned>(seed));
            const size_t from = s->offset + std::min<uint64_t>(12, s->size), to = s->offset + s->size;
            // seed 1: everything; others: a few hundred bytes here and there.
            if (seed == 1)
                for (size_t i = from; i < to; ++i)
                    b[i] = static_cast<uint8_t>(rng());
            else
                for (int k = 0; k < 300; ++k)
                    b[from + rng() % (to - from)] = static_cast<uint8_t>(rng());
            auto elf = ElfFile::parse(MappedFile::fromBytes(std::move(b), "garbage.elf"));
            QVERIFY(elf.ok());
            auto sym = DwarfEngine::create(ModuleFiles { *elf, *elf, *elf, SymbolTable::Kind::Static });
            QVERIFY(sym.ok());
            SymbolizedAddresses out;
            QVERIFY((*sym)->symbolize(addresses, out).ok());
            QCOMPARE(out.size(), addresses.size());
            ++runs;
            warned += (*sym)->warningCount() > 0;
        }
    }
    qInfo("garbage dwarf: %zu runs, %zu reported warnings", runs, warned);
    QVERIFY(warned >= runs / 4);
}

namespace {

uint64_t getLe(const std::vector<uint8_t>& b, size_t at, unsigned size)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < size; ++i)
        v |= uint64_t(b[at + i]) << (8 * i);
    return v;
}
uint64_t get64(const std::vector<uint8_t>& b, size_t at)
{
    return getLe(b, at, 8);
}
uint16_t get16(const std::vector<uint8_t>& b, size_t at)
{
    return static_cast<uint16_t>(getLe(b, at, 2));
}

void putLe(std::vector<uint8_t>& b, size_t at, uint64_t v, unsigned size)
{
    for (unsigned i = 0; i < size; ++i)
        b[at + i] = static_cast<uint8_t>(v >> (8 * i));
}

/// The outermost function name of every answer (the symbol table's, when DWARF is not used).
QStringList outerNames(const SymbolizedAddresses& out)
{
    QStringList names;
    for (size_t i = 0; i < out.size(); ++i)
        names << QString::fromStdString(std::string(out.str(out.function(out.frames(i).back().function).name)));
    return names;
}

} // namespace

void TestSymbolizer::brokenRelocations()
{
    // LLVM stops the process on relocation tables it cannot read while it relocates a .o's DWARF
    // (found by the mutation test). Each kind of damage to .rela.debug_info of the real object:
    // relocationProblem names it, the engine leaves the DWARF alone and says why, and the symbol
    // table still names every function as it does for the intact file.
    const std::vector<uint8_t> original = [] {
        auto f = ElfFile::open(fixtureStd("c_object.o"));
        return f.ok() ? std::vector<uint8_t>((*f)->bytes().begin(), (*f)->bytes().end()) : std::vector<uint8_t>();
    }();
    QVERIFY(!original.empty());
    auto intact = ElfFile::parse(MappedFile::fromBytes(original, "intact.o"));
    QVERIFY(intact.ok());
    QCOMPARE(QString::fromStdString(relocationProblem(**intact)), QString());
    const ElfSection* rela = (*intact)->findSection(".rela.debug_info");
    QVERIFY(rela && rela->size >= 24);
    const std::vector<uint64_t> addresses = sampleAddresses(fixture("c_object.o"), 2);
    QVERIFY(addresses.size() >= 10);
    auto good = DwarfEngine::create(ModuleFiles { *intact, *intact, *intact, SymbolTable::Kind::Static });
    QVERIFY(good.ok() && (*good)->hasDwarf());
    SymbolizedAddresses goodOut;
    QVERIFY((*good)->symbolize(addresses, goodOut).ok());
    QVERIFY(goodOut.frames(0).front().line > 0); // DWARF answers: lines
    // What the symbol table alone answers for the intact file: the broken files must answer that.
    auto symtabOnly = DwarfEngine::create(ModuleFiles { *intact, nullptr, *intact, SymbolTable::Kind::Static });
    QVERIFY(symtabOnly.ok());
    SymbolizedAddresses symtabOut;
    QVERIFY((*symtabOnly)->symbolize(addresses, symtabOut).ok());
    QVERIFY(size_t(outerNames(symtabOut).count(QString())) < addresses.size() / 4);

    const uint64_t header = get64(original, 40) + uint64_t(rela->index) * 64;
    struct Damage {
        const char* name;
        size_t at; // offset in the file
        uint64_t value;
        unsigned size;
        const char* expected;
    };
    const Damage damages[] = {
        { "symbol table link", header + 40, 999, 4, "links to symbol table section 999, which does not exist" },
        { "entry size 0", header + 56, 0, 8, "RELA entry size is 0, not 24" },
        { "partial entry", header + 32, rela->size - 1, 8, "is not a whole number of RELA entries" },
        { "symbol index", rela->offset + 8, uint64_t(0xfffff) << 32 | 10, 8, "names symbol 1048575, past the end" },
        { "CREL", header + 4, elf::SHT_CREL, 4, "holds CREL relocations" },
    };
    for (const Damage& d : damages) {
        std::vector<uint8_t> b = original;
        putLe(b, d.at, d.value, d.size);
        auto elf = ElfFile::parse(MappedFile::fromBytes(std::move(b), "broken.o"));
        QVERIFY2(elf.ok(), d.name);
        const QString problem = QString::fromStdString(relocationProblem(**elf));
        QVERIFY2(problem.contains(d.expected), qPrintable(QString(d.name) + ": " + problem));
        auto engine = DwarfEngine::create(ModuleFiles { *elf, *elf, *elf, SymbolTable::Kind::Static });
        QVERIFY2(engine.ok(), d.name);
        QVERIFY2(!(*engine)->hasDwarf(), d.name);
        QCOMPARE((*engine)->warnings().size(), size_t(1));
        QVERIFY((*engine)->warnings()[0].find(d.expected) != std::string::npos);
        SymbolizedAddresses out;
        QVERIFY((*engine)->symbolize(addresses, out).ok());
        QCOMPARE(outerNames(out), outerNames(symtabOut));
        QCOMPARE(out.frames(0).front().line, 0u);
    }
}

void TestSymbolizer::unknownLineTableForms()
{
    // LLVM 19 runs into unreachable code on a DWARF 5 line table header that declares a form it
    // does not know (found by the mutation test; llvm-symbolizer-19 crashes on such a file). The
    // real header of c_object.o (gcc 12, DWARF 5) with its directory or file name form replaced.
    auto intact = ElfFile::open(fixtureStd("c_object.o"));
    QVERIFY(intact.ok());
    const ElfSection* line = (*intact)->findSection(".debug_line");
    QVERIFY(line);
    const std::vector<uint8_t> original((*intact)->bytes().begin(), (*intact)->bytes().end());
    const std::span<const uint8_t> table = (*intact)->sectionData(*line);
    QCOMPARE(get16(original, line->offset + 4), uint16_t(5));
    QCOMPARE(QString::fromStdString(lineTableFormProblem(table, 0, true)), QString());
    // unit_length, version, address and selector sizes, header_length, five one-byte fields, the
    // opcode base and the standard opcode lengths; then the directory formats.
    const size_t dirFormats = 17 + table[17];
    QCOMPARE(table[dirFormats], uint8_t(1)); // one format: (DW_LNCT_path, DW_FORM_line_strp)
    QCOMPARE(table[dirFormats + 2], uint8_t(0x1f));
    const size_t dirCount = table[dirFormats + 3];
    QVERIFY(dirCount < 0x80);
    const size_t fileFormats = dirFormats + 4 + dirCount * 4; // line_strp entries of 4 bytes
    QVERIFY(table[fileFormats] >= 1);
    QCOMPARE(table[fileFormats + 1], uint8_t(1)); // DW_LNCT_path first
    const std::vector<uint64_t> addresses = sampleAddresses(fixture("c_object.o"), 2);

    struct Case {
        const char* name;
        size_t at; // in .debug_line
        uint8_t form;
        const char* expected;
    };
    const Case cases[] = {
        { "unknown directory form", dirFormats + 2, 0x3f, "declares its directory entries with form 0x3f, which is unknown" },
        { "indirect directory form", dirFormats + 2, 0x16, "directory entries with form 0x16 (DW_FORM_indirect)" },
        { "reserved file name form", fileFormats + 2, 0x02, "declares its file name entries with form 0x2, which is unknown" },
    };
    for (const Case& c : cases) {
        std::vector<uint8_t> b = original;
        b[line->offset + c.at] = c.form;
        const std::span<const uint8_t> damaged(b.data() + line->offset, line->size);
        const QString problem = QString::fromStdString(lineTableFormProblem(damaged, 0, true));
        QVERIFY2(problem.contains(c.expected), qPrintable(QString(c.name) + ": " + problem));
        // Cut anywhere inside the header: never a problem claimed, never a read past the end.
        for (size_t n = 0; n < c.at + 1; ++n)
            QCOMPARE(QString::fromStdString(lineTableFormProblem(damaged.first(n), 0, true)), QString());
        auto elf = ElfFile::parse(MappedFile::fromBytes(std::move(b), "forms.o"));
        QVERIFY(elf.ok());
        auto engine = DwarfEngine::create(ModuleFiles { *elf, *elf, *elf, SymbolTable::Kind::Static });
        QVERIFY(engine.ok());
        SymbolizedAddresses out;
        QVERIFY((*engine)->symbolize(addresses, out).ok());
        QCOMPARE(out.size(), addresses.size());
        QVERIFY((*engine)->warningCount() >= 1);
        QVERIFY2((*engine)->warnings()[0].find(c.expected) != std::string::npos, (*engine)->warnings()[0].c_str());
    }
    // DWARF 4 headers name no forms.
    auto v4 = ElfFile::open(fixtureStd("c_dwarf4"));
    QVERIFY(v4.ok());
    const ElfSection* v4line = (*v4)->findSection(".debug_line");
    QVERIFY(v4line);
    QCOMPARE(QString::fromStdString(lineTableFormProblem((*v4)->sectionData(*v4line), 0, true)), QString());
}

void TestSymbolizer::pathMaps()
{
    auto m = parsePathMap("/build/root=/home/me/src");
    QVERIFY(m.ok());
    QCOMPARE(QString::fromStdString(applyPathMap(*m, "/build/root/bin/app")), QString("/home/me/src/bin/app"));
    QCOMPARE(QString::fromStdString(applyPathMap(*m, "/build/rootfs/bin/app")), QString());
    QCOMPARE(QString::fromStdString(applyPathMap(*m, "/other/bin/app")), QString());
    auto slash = parsePathMap("/build/root/=/x/");
    QVERIFY(slash.ok());
    QCOMPARE(QString::fromStdString(applyPathMap(*slash, "/build/root/lib/a.so")), QString("/x/lib/a.so"));
    auto bad = parsePathMap("nothing");
    QVERIFY(!bad.ok());
    QCOMPARE(QString::fromStdString(bad.error().message), QString("path map 'nothing' is not of the form FROM=TO"));
    QVERIFY(!parsePathMap("=x").ok());
    QVERIFY(!parsePathMap("x=").ok());
}

void TestSymbolizer::dwzEveryByte()
{
    // Every byte of every function of the six dwz'd modules against llvm-symbolizer on the
    // debug files before dwz. The fixture must need the supplementary file: llvm-symbolizer on the
    // dwz output, and symflame without the supplementary file, both differ from that answer.
    struct Module {
        const char* layout;
        const char* name;
        const char* buildId;
    };
    for (const Module& m : { Module { "dwz", "dwz_a", SYMFLAME_FIXTURE_BUILDID_DWZ_A },
             Module { "dwz", "dwz_b", SYMFLAME_FIXTURE_BUILDID_DWZ_B },
             Module { "dwz5", "dwz_a", SYMFLAME_FIXTURE_BUILDID_DWZ_A },
             Module { "dwz5", "dwz_b", SYMFLAME_FIXTURE_BUILDID_DWZ_B },
             Module { "dwz4", "dwz_a", SYMFLAME_FIXTURE_BUILDID_DWZ4_A },
             Module { "dwz4", "dwz_b", SYMFLAME_FIXTURE_BUILDID_DWZ4_B } }) {
        const char* layout = m.layout;
        const char* name = m.name;
        const char* id = m.buildId;
        {
            const QString dir = fixture(layout);
            const QString orig = dir + "/orig/" + name + ".debug";
            LocatorOptions lo;
            lo.useDefaultDebugDir = false;
            lo.debugDirs = { (dir + "/debug").toStdString() };
            const LocateResult loc = DebugInfoLocator(lo).locate((dir + "/bin/" + name).toStdString(), id);
            QVERIFY2(loc.supplementary, loc.summary().c_str());
            const std::vector<uint64_t> addresses = denseAddresses(orig, 1);
            QVERIFY(addresses.size() > 5000);
            auto engine = openModule(loc, ModuleOptions {});
            QVERIFY(engine.ok());
            const Comparison c = compareWithOracle(**engine, addresses, orig);
            QVERIFY2(c.mismatches == 0, qPrintable(c.examples.join(QStringLiteral("\n"))));
            QVERIFY(c.inlined > addresses.size() / 4);

            // llvm-symbolizer on the dwz output: frames without a name where the original has one.
            const QVector<OracleAnswer> before = llvmSymbolize(orig, addresses);
            const QVector<OracleAnswer> after = llvmSymbolize(QString::fromStdString(loc.dwarfPath), addresses);
            QCOMPARE(after.size(), before.size());
            size_t lost = 0;
            for (int i = 0; i < before.size(); ++i)
                for (int k = 0; k < std::min(before[i].size(), after[i].size()); ++k)
                    lost += !before[i][k].function.isEmpty() && after[i][k].function.isEmpty();
            // The same engine without the supplementary file.
            auto without = DwarfEngine::create(ModuleFiles { loc.binary, loc.dwarf, loc.symbols, loc.symbolKind });
            QVERIFY(without.ok());
            const Comparison w = compareWithOracle(**without, addresses, orig);
            QCOMPARE((*without)->warningCount(), size_t(1));
            qInfo("%s/%s: %zu addresses, %zu frames, %zu inlined, 0 mismatches; llvm-symbolizer on the dwz output "
                  "loses %zu names, symflame without the supplementary file mismatches %zu addresses",
                layout, name, c.addresses, c.frames, c.inlined, lost, w.mismatches);
            QVERIFY(lost > addresses.size() / 4);
            QVERIFY(w.mismatches > addresses.size() / 4);
        }
    }
}

void TestSymbolizer::dwzSupplementaryLookup()
{
    // The supplementary file missing, mismatching, not ELF, found by build ID; DWARF 5's
    // checksum. The debug file itself is always found: lines stay, the reason is in the status.
    const std::string idA = SYMFLAME_FIXTURE_BUILDID_DWZ_A;
    const QString dwzDebug
        = QString::fromStdString(DebugInfoLocator(LocatorOptions { { fixtureStd("dwz/debug") }, false, {}, {} })
                                     .locate(fixtureStd("dwz/bin/dwz_a"), idA)
                                     .dwarfPath);
    auto debugElf = ElfFile::open(dwzDebug.toStdString());
    auto common = ElfFile::open(fixtureStd("dwz/debug/.dwz/symflame-fixture.debug"));
    auto otherDebug = ElfFile::open(fixtureStd("dwz/orig/dwz_b.debug"));
    QVERIFY(debugElf.ok() && common.ok() && otherDebug.ok());
    QVERIFY((*debugElf)->debugAltLink().has_value());
    const DebugAltLink link = *(*debugElf)->debugAltLink();
    QCOMPARE(QString::fromStdString(link.path), QString("/usr/lib/debug/.dwz/symflame-fixture.debug"));
    QCOMPARE(link.buildId, (*common)->buildId());
    QVERIFY(!link.debugSup);

    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const QString debugDir = tmp.path() + "/debug";
    const QString placed = debugDir + "/.build-id/" + QString::fromStdString(idA.substr(0, 2)) + "/"
        + QString::fromStdString(idA.substr(2)) + ".debug";
    QVERIFY(QDir().mkpath(debugDir + "/.build-id/" + QString::fromStdString(idA.substr(0, 2))));
    QVERIFY(QDir().mkpath(debugDir + "/.dwz"));
    QVERIFY(QFile::copy(dwzDebug, placed));
    const QString altById = debugDir + "/.build-id/" + QString::fromStdString(link.buildId.substr(0, 2)) + "/"
        + QString::fromStdString(link.buildId.substr(2)) + ".debug";
    const QString altByPath = debugDir + "/.dwz/symflame-fixture.debug";
    LocatorOptions lo;
    lo.useDefaultDebugDir = false;
    lo.debugDirs = { debugDir.toStdString() };
    const auto locate = [&] { return DebugInfoLocator(lo).locate(fixtureStd("dwz/bin/dwz_a"), idA); };
    const QString id = QString::fromStdString(link.buildId);

    // Missing everywhere.
    {
        const LocateResult r = locate();
        QCOMPARE(r.status, LocateStatus::Found);
        QCOMPARE(r.source, DebugSource::BuildIdDirectory);
        QVERIFY(!r.supplementary);
        QVERIFY2(anyContains(r.tried, "dwz supplementary file /usr/lib/debug/.dwz/symflame-fixture.debug: not found"),
            qPrintable(join(r.tried)));
        QVERIFY(anyContains(r.tried, "dwz supplementary file " + altById + ": not found"));
        QVERIFY(anyContains(r.tried, "dwz supplementary file " + altByPath + ": not found"));
        QCOMPARE(QString::fromStdString(r.summary()),
            "dwarf from " + placed
                + " (build-id directory), but its dwz supplementary file "
                  "/usr/lib/debug/.dwz/symflame-fixture.debug with build ID "
                + id + " was not found: names of functions moved there are unknown");
        auto engine = openModule(r, ModuleOptions {});
        QVERIFY(engine.ok());
        QCOMPARE(QString((*engine)->engineName()), QString("llvm-dwarf"));
        QCOMPARE((*engine)->warningCount(), size_t(1));
        QCOMPARE(QString::fromStdString((*engine)->warnings()[0]),
            QString("the dwz supplementary file /usr/lib/debug/.dwz/symflame-fixture.debug is not available: names "
                    "of functions dwz moved into it are unknown"));
        SymbolizedAddresses out;
        const std::vector<uint64_t> addresses = sampleAddresses(fixture("dwz/orig/dwz_a.debug"), 4);
        QVERIFY((*engine)->symbolize(addresses, out, nullptr).ok());
        QCOMPARE(out.size(), addresses.size());
    }
    // Another ELF file where the link points; then a file that is not ELF.
    QVERIFY(QFile::copy(fixture("dwz/orig/dwz_b.debug"), altByPath));
    {
        const LocateResult r = locate();
        QVERIFY(!r.supplementary);
        QVERIFY2(anyContains(r.tried,
                     "dwz supplementary file " + altByPath + ": build ID mismatch (wanted " + id + ", found "
                         + QString::fromStdString((*otherDebug)->buildId()) + ")"),
            qPrintable(join(r.tried)));
        QVERIFY(!r.supplementaryProblem.empty());
    }
    QVERIFY(QFile::remove(altByPath));
    {
        QFile f(altByPath);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("not an ELF file at all\n");
    }
    {
        const LocateResult r = locate();
        QVERIFY(!r.supplementary);
        QVERIFY2(anyContains(r.tried, "dwz supplementary file " + altByPath + ": not an ELF file"),
            qPrintable(join(r.tried)));
    }
    // Found in a search directory, by its build ID.
    {
        LocatorOptions so = lo;
        so.searchDirs = { fixtureStd("dwz/debug/.dwz") };
        DebugInfoLocator l(so);
        l.buildIndex();
        const LocateResult r = l.locate(fixtureStd("dwz/bin/dwz_a"), idA);
        QVERIFY2(r.supplementary, qPrintable(join(r.tried)));
        QCOMPARE(QString::fromStdString(r.supplementaryPath), fixture("dwz/debug/.dwz/symflame-fixture.debug"));
    }
    // Found by its build ID in the debug directory: the answers are the oracle's.
    QVERIFY(QDir().mkpath(QFileInfo(altById).path()));
    QVERIFY(QFile::copy(fixture("dwz/debug/.dwz/symflame-fixture.debug"), altById));
    {
        const LocateResult r = locate();
        QVERIFY2(r.supplementary, qPrintable(join(r.tried)));
        QCOMPARE(QString::fromStdString(r.supplementaryPath), altById);
        QVERIFY(r.supplementaryProblem.empty());
        auto engine = openModule(r, ModuleOptions {});
        QVERIFY(engine.ok());
        const Comparison c = compareWithOracle(
            **engine, sampleAddresses(fixture("dwz/orig/dwz_a.debug"), 8), fixture("dwz/orig/dwz_a.debug"));
        QVERIFY2(c.mismatches == 0, qPrintable(c.examples.join(QStringLiteral("\n"))));
    }

    // DWARF 5 (.debug_sup): the relative link, and a file with another checksum there.
    auto sup = ElfFile::open(fixtureStd("dwz5/debug/.dwz/symflame-fixture.sup"));
    QVERIFY(sup.ok());
    QVERIFY(!(*sup)->supplementaryChecksum().empty());
    const QString dwz5 = tmp.path() + "/dwz5";
    QVERIFY(QDir().mkpath(dwz5 + "/.build-id/" + QString::fromStdString(idA.substr(0, 2))));
    QVERIFY(QDir().mkpath(dwz5 + "/.dwz"));
    const QString placed5 = dwz5 + "/.build-id/" + QString::fromStdString(idA.substr(0, 2)) + "/"
        + QString::fromStdString(idA.substr(2)) + ".debug";
    QVERIFY(QFile::copy(fixture("dwz5/debug/.build-id/") + QString::fromStdString(idA.substr(0, 2)) + "/"
            + QString::fromStdString(idA.substr(2)) + ".debug",
        placed5));
    auto debug5 = ElfFile::open(placed5.toStdString());
    QVERIFY(debug5.ok() && (*debug5)->debugAltLink());
    QCOMPARE(QString::fromStdString((*debug5)->debugAltLink()->path), QString("../../.dwz/symflame-fixture.sup"));
    QVERIFY((*debug5)->debugAltLink()->debugSup);
    QCOMPARE((*debug5)->debugAltLink()->buildId, (*sup)->supplementaryChecksum());
    QVERIFY(QFile::copy(fixture("dwz/debug/.dwz/symflame-fixture.debug"), dwz5 + "/.dwz/symflame-fixture.sup"));
    lo.debugDirs = { dwz5.toStdString() };
    {
        const LocateResult r = locate();
        QVERIFY(!r.supplementary);
        QVERIFY2(anyContains(r.tried,
                     "dwz supplementary file " + dwz5 + "/.dwz/symflame-fixture.sup: checksum mismatch (wanted "
                         + QString::fromStdString((*sup)->supplementaryChecksum()) + ", found none)"),
            qPrintable(join(r.tried)));
        QVERIFY(QString::fromStdString(r.summary()).contains("with checksum "));
    }
}

void TestSymbolizer::miniDebugInfoBadInput()
{
    // Corrupt and truncated xz in .gnu_debugdata: the reason is in the status, the names come
    // from .dynsym instead; no crash, no hang.
    auto good = ElfFile::open(fixtureStd("libsfshapes_mini.so"));
    QVERIFY(good.ok());
    QVERIFY((*good)->contents().gnuDebugdata);
    auto mini = openMiniDebugInfo(**good);
    QVERIFY2(mini.ok(), mini.ok() ? "" : mini.error().toString().c_str());
    QVERIFY((*mini)->contents().symtab);
    QVERIFY(!(*mini)->contents().debugInfo);
    const ElfSection* s = (*good)->findSection(".gnu_debugdata");
    QVERIFY(s);
    const std::vector<uint8_t> original((*good)->bytes().begin(), (*good)->bytes().end());
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    struct Damage {
        const char* what;
        size_t offset; // into the section
        const char* reason;
    };
    // Bytes 0..5 are the xz magic; the middle is compressed data.
    for (const Damage& dmg :
        { Damage { "magic", 0, "not xz data" }, Damage { "data", size_t(s->size / 2), "corrupt data" } }) {
        std::vector<uint8_t> b = original;
        for (size_t i = 0; i < 8; ++i)
            b[s->offset + dmg.offset + i] ^= 0xa5;
        const QString path = tmp.path() + "/" + dmg.what + ".so";
        QVERIFY(writeBytes(path, b));
        LocatorOptions none;
        none.useDefaultDebugDir = false;
        const LocateResult r = DebugInfoLocator(none).locate(path.toStdString(), "");
        QCOMPARE(r.status, LocateStatus::Found);
        QCOMPARE(r.source, DebugSource::DynamicSymbolTable);
        QVERIFY2(anyContains(r.tried, path + ": .gnu_debugdata: cannot decompress xz data: " + dmg.reason),
            qPrintable(join(r.tried)));
    }
    // Truncated stream; a stream that expands past the limit.
    const auto data = (*good)->sectionData(*s);
    auto cut = decompressXz(data.first(data.size() - 10), kMaxMiniDebugInfoSize);
    QVERIFY(!cut.ok());
    QCOMPARE(QString::fromStdString(cut.error().message), QString("cannot decompress xz data: truncated data"));
    auto limited = decompressXz(data, 1024);
    QVERIFY(!limited.ok());
    QCOMPARE(QString::fromStdString(limited.error().message), QString("xz data decompresses to more than 0 MiB"));
    auto full = decompressXz(data, kMaxMiniDebugInfoSize);
    QVERIFY(full.ok());
    QCOMPARE(full->size(), (*mini)->bytes().size());
    // No bytes at all.
    auto empty = decompressXz({}, kMaxMiniDebugInfoSize);
    QVERIFY(!empty.ok());
    QCOMPARE(QString::fromStdString(empty.error().message), QString("cannot decompress xz data: truncated data"));
}

void TestSymbolizer::splitDwarfResolution()
{
    // A skeleton unit names its .dwo as comp_dir + dwo_name (both recorded at compile time): a
    // copy of the binary elsewhere still finds it there, as llvm-symbolizer does. A .dwp is looked
    // for as <binary>.dwp: a copy without it has the line table (in the skeleton) but no inline
    // frames, and LLVM's complaint is counted.
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const QString moved = tmp.path() + "/moved";
    QVERIFY(QFile::copy(fixture("split/cxx_split"), moved));
    {
        const LocateResult r = DebugInfoLocator(LocatorOptions { {}, false, {}, {} }).locate(moved.toStdString(), "");
        auto engine = openModule(r, ModuleOptions {});
        QVERIFY(engine.ok());
        const std::vector<uint64_t> addresses = sampleAddresses(fixture("split/cxx_split"), 8);
        const Comparison c = compareWithOracle(**engine, addresses, moved);
        QVERIFY2(c.mismatches == 0, qPrintable(c.examples.join(QStringLiteral("\n"))));
        QVERIFY(c.inlined > 10);
    }
    const QString dwpCopy = tmp.path() + "/c_split_dwp";
    QVERIFY(QFile::copy(fixture("split_dwp/c_split_dwp"), dwpCopy));
    const std::vector<uint64_t> addresses = sampleAddresses(dwpCopy, 8);
    for (bool withDwp : { false, true }) {
        if (withDwp)
            QVERIFY(QFile::copy(fixture("split_dwp/c_split_dwp.dwp"), dwpCopy + ".dwp"));
        const LocateResult r = DebugInfoLocator(LocatorOptions { {}, false, {}, {} }).locate(dwpCopy.toStdString(), "");
        QCOMPARE(r.source, DebugSource::Binary);
        auto engine = openModule(r, ModuleOptions {});
        QVERIFY(engine.ok());
        const Comparison c = compareWithOracle(**engine, addresses, dwpCopy);
        QVERIFY2(c.mismatches == 0, qPrintable(c.examples.join(QStringLiteral("\n"))));
        qInfo("split dwarf %s .dwp: %zu inlined, %zu with line, %zu warnings", withDwp ? "with" : "without", c.inlined,
            c.withLine, (*engine)->warningCount());
        if (withDwp) {
            QVERIFY(c.inlined > 5);
        } else {
            QCOMPARE(c.inlined, size_t(0));
            QVERIFY(c.withLine > addresses.size() / 2);
        }
    }
}

void TestSymbolizer::garbageSupplementary()
{
    // Random bytes over the supplementary file's DWARF: an answer for every address, no crash.
    LocatorOptions lo;
    lo.useDefaultDebugDir = false;
    lo.debugDirs = { fixtureStd("dwz/debug") };
    const LocateResult loc = DebugInfoLocator(lo).locate(fixtureStd("dwz/bin/dwz_a"), SYMFLAME_FIXTURE_BUILDID_DWZ_A);
    QVERIFY(loc.supplementary);
    const std::vector<uint8_t> original(loc.supplementary->bytes().begin(), loc.supplementary->bytes().end());
    const std::vector<uint64_t> addresses = sampleAddresses(fixture("dwz/orig/dwz_a.debug"), 8);
    size_t runs = 0;
    for (const char* section : { ".debug_info", ".debug_abbrev", ".debug_str" }) {
        for (int seed = 1; seed <= 3; ++seed) {
            const ElfSection* s = loc.supplementary->findSection(section);
            QVERIFY2(s, section);
            std::vector<uint8_t> b = original;
            std::mt19937 rng(static_cast<unsigned>(seed));
            const size_t from = s->offset + std::min<uint64_t>(12, s->size), to = s->offset + s->size;
            for (int k = 0; k < (seed == 1 ? int(to - from) : 200); ++k)
                b[seed == 1 ? from + k : from + rng() % (to - from)] = static_cast<uint8_t>(rng());
            auto garbled = ElfFile::parse(MappedFile::fromBytes(std::move(b), "garbage.debug"));
            QVERIFY(garbled.ok());
            auto sym = DwarfEngine::create(
                ModuleFiles { loc.binary, loc.dwarf, loc.symbols, loc.symbolKind, *garbled, nullptr });
            QVERIFY(sym.ok());
            SymbolizedAddresses out;
            QVERIFY((*sym)->symbolize(addresses, out).ok());
            QCOMPARE(out.size(), addresses.size());
            ++runs;
        }
    }
    QCOMPARE(runs, size_t(9));
}

void TestSymbolizer::profilePassDwzAndMiniDebugInfo()
{
    // The profile pass over a dwz'd module and a MiniDebugInfo module: every location's lines are
    // llvm-symbolizer's on the originals, and the report says where they came from.
    auto dwz = ElfFile::open(fixtureStd("dwz/bin/dwz_a"));
    auto mini = ElfFile::open(fixtureStd("c_mini"));
    QVERIFY(dwz.ok() && mini.ok());
    model::Profile p;
    p.sampleTypes.push_back({ p.strings.intern("samples"), p.strings.intern("count") });
    p.mappings.push_back(
        mappingFor(**dwz, 0x555555554000, p, fixtureStd("dwz/bin/dwz_a"), SYMFLAME_FIXTURE_BUILDID_DWZ_A));
    p.mappings.push_back(mappingFor(**mini, 0x555555800000, p, fixtureStd("c_mini"), (*mini)->buildId()));
    const std::vector<uint64_t> elfAddresses[2]
        = { sampleAddresses(fixture("dwz/orig/dwz_a.debug"), 6), sampleAddresses(fixture("c_pie"), 6) };
    const ElfFile* elfs[2] = { &**dwz, &**mini };
    const int64_t one = 1;
    for (size_t m = 0; m < 2; ++m)
        for (uint64_t a : elfAddresses[m]) {
            model::Location loc;
            loc.mapping = model::MappingId(m);
            loc.address = runtimeOf(*elfs[m], p.mappings[m], a);
            const model::LocationId id(p.locations.size());
            p.locations.push_back(loc);
            p.addSample(p.internStack(std::span(&id, 1)), std::span(&one, 1));
        }
    p.finishBuilding();
    SymbolizeOptions opt;
    opt.locator.useDefaultDebugDir = false;
    opt.locator.debugDirs = { fixtureStd("dwz/debug") };
    auto rep = SymbolizationPass(opt).run(p, nullptr);
    QVERIFY2(rep.ok(), rep.ok() ? "" : rep.error().toString().c_str());
    QCOMPARE(rep->mappings[0].source, DebugSource::BuildIdDirectory);
    QVERIFY2(QString::fromStdString(rep->mappings[0].summary)
                 .endsWith(", dwz supplementary file " + fixture("dwz/debug/.dwz/symflame-fixture.debug")),
        rep->mappings[0].summary.c_str());
    QCOMPARE(rep->mappings[1].source, DebugSource::MiniDebugInfo);
    const QString oracles[2] = { fixture("dwz/orig/dwz_a.debug"), fixture("c_symtab") };
    size_t checked = 0, location = 0;
    uint64_t namedLocations[2] = { 0, 0 };
    for (size_t m = 0; m < 2; ++m) {
        const QVector<OracleAnswer> want = llvmSymbolize(oracles[m], elfAddresses[m]);
        QCOMPARE(size_t(want.size()), elfAddresses[m].size());
        for (int i = 0; i < want.size(); ++i, ++location) {
            const auto lines = p.linesOf(p.locations[location]);
            const bool named = std::any_of(
                want[i].begin(), want[i].end(), [](const OracleFrame& f) { return !f.function.isEmpty(); });
            if (!named)
                continue;
            ++namedLocations[m];
            QCOMPARE(lines.size(), size_t(want[i].size()));
            for (size_t k = 0; k < lines.size(); ++k) {
                const model::Function& fn = p.functions[lines[k].function.index()];
                QCOMPARE(QString::fromStdString(std::string(p.str(fn.name))), want[i][int(k)].function);
                if (m == 0) {
                    QCOMPARE(QString::fromStdString(std::string(p.str(fn.file))), want[i][int(k)].file);
                    QCOMPARE(lines[k].line, int64_t(want[i][int(k)].line));
                    QCOMPARE(fn.startLine, int64_t(want[i][int(k)].startLine));
                }
                ++checked;
            }
        }
    }
    QCOMPARE(rep->mappings[0].resolved, namedLocations[0]);
    QCOMPARE(rep->mappings[1].resolved, namedLocations[1]);
    qInfo("profile pass: %zu lines of a dwz and a MiniDebugInfo module checked", checked);
    QVERIFY(checked > 400);
}

// One symbolizer filling outputs that are made and destroyed in turn (each new one likely at
// the old one's address): its caches belong to one output's string table, so every answer must
// equal a fresh symbolizer's.
void TestSymbolizer::outputsInTurn()
{
    auto elf = ElfFile::open(fixtureStd("cxx_pie"));
    QVERIFY(elf.ok());
    const ModuleFiles files { *elf, *elf, *elf, SymbolTable::Kind::Static };
    const std::vector<uint64_t> all = sampleAddresses(fixture("cxx_pie"), 4);
    QVERIFY(all.size() > 40);
    auto shared = DwarfEngine::create(files);
    QVERIFY(shared.ok());
    const auto text = [](const SymbolizedAddresses& out) {
        QStringList lines;
        for (size_t i = 0; i < out.size(); ++i)
            for (const SymbolizedFrame& f : out.frames(i)) {
                const SymbolizedFunction& fn = out.function(f.function);
                lines << QStringLiteral("%1 %2 %3 %4:%5:%6 %7")
                             .arg(i)
                             .arg(QString::fromUtf8(out.str(fn.name)), QString::fromUtf8(out.str(fn.systemName)),
                                 QString::fromUtf8(out.str(fn.file)))
                             .arg(f.line)
                             .arg(f.column)
                             .arg(fn.startLine);
            }
        return lines;
    };
    std::optional<SymbolizedAddresses> out;
    for (size_t round = 0; round < 4; ++round) {
        // A different slice each time, the later ones starting inside the earlier ones.
        const std::span<const uint64_t> part(all.data() + round * all.size() / 8, all.size() / 2);
        out.emplace();
        QVERIFY((*shared)->symbolize(part, *out).ok());
        auto fresh = DwarfEngine::create(files);
        QVERIFY(fresh.ok());
        SymbolizedAddresses want;
        QVERIFY((*fresh)->symbolize(part, want).ok());
        QCOMPARE(text(*out), text(want));
        QVERIFY(out->serial() != want.serial());
        out.reset();
    }
    // A copy is a new output of its own.
    SymbolizedAddresses a;
    const SymbolizedAddresses b = a;
    QVERIFY(a.serial() != b.serial());
}

QTEST_GUILESS_MAIN(TestSymbolizer)
#include "tst_symbolizer.moc"
