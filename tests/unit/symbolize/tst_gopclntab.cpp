// Tests of the Go engine: symbolize/object/gopclntab (the table reader), symbolize/object/gobuildinfo and
// symbolize/engines/goengine, on Go programs built by tests/fixtures/gofixtures.cmake and on Go-built executables
// of other toolchains (esbuild). Oracles: `go tool addr2line` (physical function and innermost
// file:line) on every function's entry and on PCs inside every function; llvm-symbolizer-19 on
// the same program's DWARF for the whole inline chain; `go version` and `go tool buildid` for the
// build information; the names a real runtime/pprof CPU profile carries, for the profile pass.
#include "model/io/pprof/pprof.h"
#include "model/io/profileio.h"
#include "model/core/valueformat.h"
#include "symbolize/locate/debuginfolocator.h"
#include "symbolize/object/gobuildinfo.h"
#include "symbolize/object/gopclntab.h"
#include "symbolize/engines/goengine.h"
#include "symbolize/pass/moduleloader.h"
#include "symbolize/pass/symbolizationpass.h"

#include "processhelpers.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <chrono>
#include <cstring>
#include <map>
#include <random>
#include <set>

using namespace symflame;
using namespace symflame::symbolize;
using symflame::testing::ProcessResult;
using symflame::testing::runForOutput;
using symflame::testing::runSymflame;

namespace {

QString fixture(const QString& name)
{
    return QStringLiteral(SYMFLAME_GO_FIXTURE_DIR "/") + name;
}

std::unique_ptr<GoEngine> openEngine(const QString& path)
{
    auto elf = ElfFile::open(path.toStdString());
    if (!elf) {
        qWarning() << QString::fromStdString(elf.error().toString());
        return nullptr;
    }
    auto engine = GoEngine::open(*elf, ModuleOptions {});
    if (!engine) {
        qWarning() << QString::fromStdString(engine.error().toString());
        return nullptr;
    }
    return std::move(*engine);
}

/// Every function's entry and three PCs inside it, from the table; sorted.
std::vector<uint64_t> tableAddresses(const GoPclntab& t)
{
    std::vector<uint64_t> out;
    for (size_t i = 0; i < t.functionCount(); ++i) {
        auto f = t.function(i);
        if (!f)
            continue;
        out.push_back(f->entry);
        for (int k = 1; k <= 3; ++k)
            out.push_back(f->entry + (f->end - f->entry) * k / 4);
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

/// Copies a little-endian ELF64 file whose Go table is in .data.rel.ro.gopclntab (a PIE), with
/// that section's sh_name pointing at the ".gopclntab" tail of its name.
bool renameRelroPclntab(const QString& from, const QString& to)
{
    QFile in(from);
    if (!in.open(QIODevice::ReadOnly))
        return false;
    QByteArray b = in.readAll();
    const auto u16 = [&](qsizetype o) { return quint16(quint8(b[o]) | quint8(b[o + 1]) << 8); };
    const auto u32 = [&](qsizetype o) { return quint32(u16(o) | quint32(u16(o + 2)) << 16); };
    const auto u64 = [&](qsizetype o) { return quint64(u32(o) | quint64(u32(o + 4)) << 32); };
    if (b.size() < 64 || !b.startsWith("\x7f" "ELF") || b[4] != 2 || b[5] != 1)
        return false;
    const qsizetype shoff = qsizetype(u64(0x28));
    const int shentsize = u16(0x3a), shnum = u16(0x3c), shstrndx = u16(0x3e);
    if (shoff <= 0 || shstrndx >= shnum || shoff + qsizetype(shnum) * shentsize > b.size())
        return false;
    const qsizetype strtab = qsizetype(u64(shoff + qsizetype(shstrndx) * shentsize + 0x18));
    static constexpr char kName[] = ".data.rel.ro.gopclntab";
    for (int i = 0; i < shnum; ++i) {
        const qsizetype h = shoff + qsizetype(i) * shentsize;
        const quint32 name = u32(h);
        if (strtab + name + qsizetype(sizeof kName) > b.size() || std::memcmp(b.constData() + strtab + name, kName, sizeof kName) != 0)
            continue;
        const quint32 renamed = name + quint32(std::strlen(".data.rel.ro"));
        for (int k = 0; k < 4; ++k)
            b[h + k] = char((renamed >> (8 * k)) & 0xff);
        QFile out(to);
        return out.open(QIODevice::WriteOnly) && out.write(b) == b.size();
    }
    return false;
}

/// Text symbols from `go tool nm -size`: address -> names.
std::multimap<uint64_t, QString> nmTextSymbols(const QString& bin, const QString& goTool = QStringLiteral(SYMFLAME_GO_TOOL))
{
    std::multimap<uint64_t, QString> out;
    const QByteArray text = runForOutput(goTool, { "tool", "nm", "-size", bin });
    for (const QByteArray& line : text.split('\n')) {
        const QList<QByteArray> f = line.trimmed().split(' ');
        if (f.size() < 4 || (f[2] != "T" && f[2] != "t"))
            continue;
        bool ok = false;
        const uint64_t a = f[0].toULongLong(&ok, 16);
        if (ok)
            out.emplace(a, QString::fromUtf8(line.trimmed()).section(QChar(' '), 3));
    }
    return out;
}

QString frameName(const SymbolizedAddresses& a, const SymbolizedFrame& f)
{
    return QString::fromUtf8(a.str(a.function(f.function).name));
}

QString frameFile(const SymbolizedAddresses& a, const SymbolizedFrame& f)
{
    return QString::fromUtf8(a.str(a.function(f.function).file));
}

// "[...]" is how the table shortens type arguments; DWARF spells them out. Collapses every
// top-level bracket group so both compare.
QString collapseBrackets(const QString& s)
{
    QString out;
    int depth = 0;
    for (QChar c : s) {
        if (c == '[') {
            if (depth++ == 0)
                out += "[...]";
        } else if (c == ']') {
            depth = std::max(0, depth - 1);
        } else if (depth == 0) {
            out += c;
        }
    }
    return out;
}

/// Lines in a source file on this machine; 0 when it can't be read.
int sourceLineCount(const QString& path)
{
    static std::map<QString, int> cache;
    auto it = cache.find(path);
    if (it != cache.end())
        return it->second;
    QFile f(path);
    int n = 0;
    if (f.open(QIODevice::ReadOnly))
        n = int(f.readAll().count('\n'));
    cache.emplace(path, n);
    return n;
}

bool isValidGoSymbol(std::string_view name)
{
    if (name.empty() || name.size() > 4096 || name.front() == ' ' || name.back() == ' ')
        return false;
    for (unsigned char c : name)
        if (c < 0x20 || c == 0x7f)
            return false;
    return true;
}

struct Tally {
    size_t compared = 0, mismatches = 0, inlined = 0, maxDepth = 0, wrapperInlines = 0, linesPastEnd = 0, noDwarf = 0;
    QStringList examples;
    void mismatch(const QString& text)
    {
        ++mismatches;
        if (examples.size() < 40)
            examples << text;
    }
};

} // namespace

class TestGoPclntab : public QObject {
    Q_OBJECT

private slots:
    void addr2lineOracle_data();
    void addr2lineOracle();
    void lookupCommandOracle_data();
    void lookupCommandOracle();
    void dwarfOracle_data();
    void dwarfOracle();
    void otherToolchains_data();
    void otherToolchains();
    void locateWithoutSections();
    void buildInfo_data();
    void buildInfo();
    void dispatchAndIdentity();
    void wrapperFuncId();
    void syntheticTable();
    void badInput();
    void pprofRoundTrip();
    void goBuildIdsInSearchDirectory();
    void commandLine();
};

void TestGoPclntab::addr2lineOracle_data()
{
    QTest::addColumn<QString>("binary");
    QTest::addColumn<QString>("layout");
    QTest::addColumn<QString>("oracle"); // the file go tool addr2line reads
    QTest::addColumn<QString>("goTool"); // whose addr2line: Debian's Go unless the layout is newer
    const QString go = QStringLiteral(SYMFLAME_GO_TOOL);
    for (const char* name : { "go_default", "go_stripped", "go_trimpath", "go_inline", "go_cgo", "go_386", "go_arm",
             "go_ppc64", "go_s390x", "go_ppc64_stripped", "go_386_stripped", "go_strip_all" })
        QTest::addRow("%s", name) << QString(name) << QString("1.18") << QString(name) << go;
    // go tool addr2line finds the table only in a section named .gopclntab: asked about the
    // original file, whose bytes and addresses the renamed copy shares.
    QTest::addRow("go_renamed") << QString("go_renamed") << QString("1.18") << QString("go_default") << go;
    QTest::addRow("esbuild_go118") << QString("esbuild_go118") << QString("1.18") << QString("esbuild_go118") << go;
    QTest::addRow("esbuild_go117") << QString("esbuild_go117") << QString("1.16") << QString("esbuild_go117") << go;
    QTest::addRow("esbuild_go116") << QString("esbuild_go116") << QString("1.16") << QString("esbuild_go116") << go;
    QTest::addRow("esbuild_go116_arm64") << QString("esbuild_go116_arm64") << QString("1.16") << QString("esbuild_go116_arm64") << go;
    QTest::addRow("esbuild_go116_386") << QString("esbuild_go116_386") << QString("1.16") << QString("esbuild_go116_386") << go;
    QTest::addRow("esbuild_go114") << QString("esbuild_go114") << QString("1.2") << QString("esbuild_go114") << go;
    QTest::addRow("esbuild_go113") << QString("esbuild_go113") << QString("1.2") << QString("esbuild_go113") << go;
    // The 1.20 layout (Go 1.20 and later) is newer than Debian 12's Go 1.19: Go 1.23 from
    // Debian 12's backports reads it, the very toolchain that built this esbuild (go1.23.5).
    QTest::addRow("esbuild_go123") << QString("esbuild_go123") << QString("1.20") << QString("esbuild_go123")
                                   << QStringLiteral(SYMFLAME_GO123_TOOL);
}

// go tool addr2line prints the physical function and the file:line of the innermost frame (it
// does not expand inlining): compare those with our first and last frames.
void TestGoPclntab::addr2lineOracle()
{
    QFETCH(QString, binary);
    QFETCH(QString, layout);
    QFETCH(QString, oracle);
    QFETCH(QString, goTool);
    const QString path = fixture(binary);
    auto engine = openEngine(path);
    QVERIFY(engine);
    const GoPclntab& t = engine->table();
    QCOMPARE(QString(goPclntabVersionName(t.version())), layout);
    QVERIFY2(t.functionCount() > 1000, qPrintable(QString::number(t.functionCount())));

    std::vector<uint64_t> addresses = tableAddresses(t);
    // Where the binary has a symbol table: its function symbols must be our functions' entries,
    // with the same names, and are looked up too.
    const auto nm = nmTextSymbols(path, goTool);
    size_t nmChecked = 0;
    for (size_t i = 0; i < t.functionCount(); ++i) {
        auto f = t.function(i);
        QVERIFY2(f, f ? "" : qPrintable(QString::fromStdString(f.error().message)));
        const auto [b, e] = nm.equal_range(f->entry);
        if (b == e)
            continue;
        bool same = false;
        for (auto it = b; it != e; ++it)
            same = same || it->second == QString::fromUtf8(f->name.data(), int(f->name.size()));
        QVERIFY2(same, qPrintable(QString("%1 at 0x%2 is %3 in the symbol table")
                                      .arg(QString::fromUtf8(f->name.data(), int(f->name.size())))
                                      .arg(f->entry, 0, 16)
                                      .arg(b->second)));
        ++nmChecked;
    }
    if (!nm.empty())
        QVERIFY2(nmChecked * 10 > t.functionCount() * 9, qPrintable(QString("%1 of %2 functions in the symbol table")
                                                                    .arg(nmChecked)
                                                                    .arg(t.functionCount())));
    for (const auto& [a, name] : nm)
        if (a >= t.minPc() && a < t.maxPc())
            addresses.push_back(a);
    // A uniform sample of the text (fixed seed), padding between functions included.
    std::mt19937_64 rng(23);
    std::uniform_int_distribution<uint64_t> anyPc(t.minPc(), t.maxPc() - 1);
    for (int k = 0; k < 4000; ++k)
        addresses.push_back(anyPc(rng));
    // And PCs outside every function.
    addresses.push_back(t.minPc() - 1);
    addresses.push_back(t.maxPc());
    std::sort(addresses.begin(), addresses.end());
    addresses.erase(std::unique(addresses.begin(), addresses.end()), addresses.end());

    SymbolizedAddresses mine;
    QVERIFY(engine->symbolize(addresses, mine, nullptr));
    QCOMPARE(engine->warningCount(), size_t(0));
    QByteArray input;
    for (uint64_t a : addresses)
        input += "0x" + QByteArray::number(qulonglong(a), 16) + '\n';
    const QList<QByteArray> lines = runForOutput(goTool, { "tool", "addr2line", fixture(oracle) }, input).split('\n');
    QVERIFY2(size_t(lines.size()) >= 2 * addresses.size(), qPrintable(QString::number(lines.size())));

    Tally tally;
    size_t known = 0;
    for (size_t i = 0; i < addresses.size(); ++i) {
        const QString wantName = QString::fromUtf8(lines[int(2 * i)]);
        const QString wantPos = QString::fromUtf8(lines[int(2 * i + 1)]);
        const auto frames = mine.frames(i);
        const QString gotName = frameName(mine, frames.back());
        QString gotPos;
        if (gotName.isEmpty())
            gotPos = "?:0";
        else if (frameFile(mine, frames.front()).isEmpty() && frames.front().line == 0)
            gotPos = ":-1"; // addr2line's way of saying no file, no line
        else
            gotPos = frameFile(mine, frames.front()) + ':' + QString::number(frames.front().line);
        ++tally.compared;
        known += gotName.isEmpty() ? 0 : 1;
        if (frames.size() > 1)
            ++tally.inlined;
        if ((gotName.isEmpty() ? QString("?") : gotName) != wantName || gotPos != wantPos)
            tally.mismatch(QString("0x%1: addr2line %2 %3, symflame %4 %5")
                               .arg(addresses[i], 0, 16)
                               .arg(wantName, wantPos, gotName, gotPos));
    }
    qInfo().noquote() << binary << ": functions" << t.functionCount() << "addresses" << tally.compared << "named"
                      << known << "with inline frames" << tally.inlined << "symtab entries checked" << nmChecked;
    QVERIFY2(tally.mismatches == 0, qPrintable(QString("%1 mismatches:\n").arg(tally.mismatches) + tally.examples.join('\n')));
    QVERIFY(known + 2 >= tally.compared);
    QVERIFY2(tally.inlined > 0, "no inlined frames at all");
}

void TestGoPclntab::lookupCommandOracle_data()
{
    QTest::addColumn<QString>("binary");
    QTest::addColumn<QString>("layout");
    QTest::addColumn<bool>("relro"); // PIE: the table in .data.rel.ro.gopclntab
    QTest::addRow("go1.13 (1.2 layout)") << QString("esbuild_go113") << QString("1.2") << false;
    QTest::addRow("go1.14 (1.2 layout)") << QString("esbuild_go114") << QString("1.2") << false;
    QTest::addRow("go1.16 (1.16 layout)") << QString("esbuild_go116") << QString("1.16") << false;
    QTest::addRow("go1.16 arm64 (1.16 layout)") << QString("esbuild_go116_arm64") << QString("1.16") << false;
    QTest::addRow("go1.16 386 (1.16 layout)") << QString("esbuild_go116_386") << QString("1.16") << false;
    QTest::addRow("go1.16 android arm64 PIE (1.16 layout)") << QString("esbuild_go116_android") << QString("1.16") << true;
    QTest::addRow("go1.17 android arm64 PIE (1.16 layout)") << QString("esbuild_go117_android") << QString("1.16") << true;
    QTest::addRow("go1.17 (1.16 layout)") << QString("esbuild_go117") << QString("1.16") << false;
    QTest::addRow("go1.18 (1.18 layout)") << QString("esbuild_go118") << QString("1.18") << false;
    QTest::addRow("go1.19 stripped (1.18 layout)") << QString("go_stripped") << QString("1.18") << false;
}

// `symflame lookup` itself (locator, engine choice, output), as the report used it, on
// every function's entry and a PC inside every function: the outermost function and the
// innermost file:line equal `go tool addr2line`'s (Debian's Go 1.19 reads the 1.2, 1.16 and 1.18
// layouts; the 1.20 layout of esbuild_go123 is newer than it, compared by otherToolchains).
void TestGoPclntab::lookupCommandOracle()
{
    QFETCH(QString, binary);
    QFETCH(QString, layout);
    QFETCH(bool, relro);
    auto engine = openEngine(fixture(binary));
    QVERIFY(engine);
    QCOMPARE(QString(goPclntabVersionName(engine->table().version())), layout);
    // go tool addr2line reads the table only from a section named .gopclntab: it is asked about a
    // copy whose section header names ".gopclntab", the tail of the same string (bytes otherwise equal).
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QString oracle = fixture(binary);
    if (relro) {
        oracle = dir.filePath("renamed");
        QVERIFY(renameRelroPclntab(fixture(binary), oracle));
    }
    // Every function's entry and its middle PC (addr2lineOracle takes three inner PCs, through the library).
    std::vector<uint64_t> addresses;
    for (size_t i = 0; i < engine->table().functionCount(); ++i) {
        auto f = engine->table().function(i);
        QVERIFY(f);
        addresses.push_back(f->entry);
        addresses.push_back(f->entry + (f->end - f->entry) / 2);
    }
    std::sort(addresses.begin(), addresses.end());
    addresses.erase(std::unique(addresses.begin(), addresses.end()), addresses.end());
    QVERIFY(addresses.size() > engine->table().functionCount() * 3 / 2);
    QByteArray input;
    for (uint64_t a : addresses)
        input += "0x" + QByteArray::number(qulonglong(a), 16) + '\n';
    const ProcessResult run = symflame::testing::runProcess(
        symflame::testing::symflameExecutable(), { "lookup", "--obj", fixture(binary), "--output-style=JSON" }, input);
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QList<QByteArray> mine = run.out.trimmed().split('\n');
    QCOMPARE(size_t(mine.size()), addresses.size());
    const QList<QByteArray> lines
        = runForOutput(QStringLiteral(SYMFLAME_GO_TOOL), { "tool", "addr2line", oracle }, input).split('\n');
    QVERIFY(size_t(lines.size()) >= 2 * addresses.size());
    Tally tally;
    for (size_t i = 0; i < addresses.size(); ++i) {
        const QJsonObject o = QJsonDocument::fromJson(mine[int(i)]).object();
        QCOMPARE(o.value("Address").toString(), "0x" + QString::number(addresses[i], 16));
        const QJsonArray frames = o.value("Symbol").toArray();
        QVERIFY(!frames.isEmpty());
        const QJsonObject inner = frames.first().toObject();
        QString gotName = frames.last().toObject().value("FunctionName").toString();
        QString gotPos = inner.value("FileName").toString() + ':' + QString::number(inner.value("Line").toInt());
        if (gotName.isEmpty()) {
            gotName = "?";
            gotPos = "?:0";
        } else if (gotPos == ":0") {
            gotPos = ":-1"; // addr2line's way of saying no file, no line
        }
        ++tally.compared;
        const QString wantName = QString::fromUtf8(lines[int(2 * i)]);
        const QString wantPos = QString::fromUtf8(lines[int(2 * i + 1)]);
        if (gotName != wantName || gotPos != wantPos)
            tally.mismatch(QString("0x%1: addr2line %2 %3, symflame lookup %4 %5")
                               .arg(addresses[i], 0, 16)
                               .arg(wantName, wantPos, gotName, gotPos));
        if (gotName == "?")
            tally.mismatch(QString("0x%1, a function's entry or inside it: no function").arg(addresses[i], 0, 16));
    }
    qInfo().noquote() << binary << ": functions" << engine->table().functionCount() << "PCs compared" << tally.compared;
    QVERIFY2(tally.mismatches == 0, qPrintable(QString("%1 mismatches:\n").arg(tally.mismatches) + tally.examples.join('\n')));
}

void TestGoPclntab::dwarfOracle_data()
{
    QTest::addColumn<QString>("binary"); // read by the engine
    QTest::addColumn<QString>("oracle"); // its DWARF is read by llvm-symbolizer
    QTest::addRow("strip_all vs default") << QString("go_strip_all") << QString("go_default");
    QTest::addRow("pie") << QString("go_pie") << QString("go_pie");
    QTest::addRow("inline") << QString("go_inline") << QString("go_inline");
    QTest::addRow("trimpath") << QString("go_trimpath") << QString("go_trimpath");
    QTest::addRow("cgo") << QString("go_cgo") << QString("go_cgo");
    // Other toolchains' DWARF, decompressed: the inline trees of Go 1.13 (pcdata 2, funcdata 4) and 1.14.
    QTest::addRow("esbuild go1.13") << QString("esbuild_go113") << QString("esbuild_go113_dwarf");
    QTest::addRow("esbuild go1.14") << QString("esbuild_go114") << QString("esbuild_go114_dwarf");
    QTest::addRow("386") << QString("go_386") << QString("go_386");
    QTest::addRow("ppc64") << QString("go_ppc64") << QString("go_ppc64");
}

// The whole inline chain against the DWARF the Go compiler wrote for the same program. The
// names differ in two conventions only: DWARF marks assembly functions with ".abi0" and names
// generated code's file "./<autogenerated>"; and the table shortens type arguments to "[...]".
void TestGoPclntab::dwarfOracle()
{
    QFETCH(QString, binary);
    QFETCH(QString, oracle);
    auto engine = openEngine(fixture(binary));
    QVERIFY(engine);
    const std::vector<uint64_t> addresses = tableAddresses(engine->table());
    SymbolizedAddresses mine;
    QVERIFY(engine->symbolize(addresses, mine, nullptr));
    QCOMPARE(engine->warningCount(), size_t(0));

    QByteArray input;
    for (uint64_t a : addresses)
        input += "0x" + QByteArray::number(qulonglong(a), 16) + '\n';
    const QByteArray out = runForOutput(QStringLiteral(SYMFLAME_LLVM_SYMBOLIZER),
        { "--obj=" + fixture(oracle), "--output-style=JSON", "--no-demangle" }, input);
    const QList<QByteArray> answers = out.trimmed().split('\n');
    QCOMPARE(size_t(answers.size()), addresses.size());

    Tally tally;
    for (size_t i = 0; i < addresses.size(); ++i) {
        const auto frames = mine.frames(i);
        if (frameName(mine, frames.back()).isEmpty())
            continue; // C code in the cgo program: not in the table
        const QJsonArray want = QJsonDocument::fromJson(answers[int(i)]).object()["Symbol"].toArray();
        if (want.size() == 1 && want[0].toObject()["Line"].toInt() == 0 && frames.size() == 1 && frames[0].line == 0)
            continue; // padding after a function: neither knows a line
        // The DWARF of Go 1.13 and 1.14 has no subprogram for assembly functions and some
        // autogenerated ones, line 1 for some assembly, no line for some package initializers: there
        // the chains of function names are compared where DWARF names a function, and the table's
        // lines are compared with go tool addr2line by addr2lineOracle and lookupCommandOracle.
        const bool namesOnly = binary.startsWith("esbuild");
        if (namesOnly && want[0].toObject()["FunctionName"].toString().isEmpty()) {
            ++tally.noDwarf;
            continue;
        }
        ++tally.compared;
        if (frames.size() > 1)
            ++tally.inlined;
        tally.maxDepth = std::max(tally.maxDepth, frames.size());
        QStringList wantChain, gotChain;
        QList<int> wantLines;
        for (const QJsonValue& v : want) {
            const QJsonObject o = v.toObject();
            QString name = o["FunctionName"].toString();
            if (name.endsWith(".abi0"))
                name.chop(5);
            QString file = o["FileName"].toString();
            // llvm-symbolizer joins the unit's comp_dir, "." for the Go linker, with relative
            // names (-trimpath, cgo's generated files); the table keeps them as the compiler wrote them.
            if (file.startsWith("./"))
                file.remove(0, 2);
            // The linker writes "·" as "." in DWARF names; the table keeps the compiler's name.
            name.replace(QChar(0x00B7), QChar('.'));
            wantChain << (namesOnly ? name : name + ' ' + file + ':' + QString::number(o["Line"].toInt()));
            wantLines << o["Line"].toInt();
        }
        for (const SymbolizedFrame& f : frames) {
            QString name = frameName(mine, f), file = frameFile(mine, f);
            name.replace(QChar(0x00B7), QChar('.'));
            if (file.startsWith("./"))
                file.remove(0, 2);
            gotChain << (namesOnly ? name : name + ' ' + file + ':' + QString::number(f.line));
        }
        bool same = wantChain.size() == gotChain.size();
        for (int k = 0; same && k < gotChain.size(); ++k) {
            same = wantChain[k] == gotChain[k]
                || (gotChain[k].contains("[...]") && collapseBrackets(wantChain[k]) == collapseBrackets(gotChain[k]));
            // cgo compiles a rewritten copy of the file with //line directives; the DWARF call
            // line of a function inlined there can be the copy's line, past the end of the real
            // source. The table's line is taken when it is inside the file and DWARF's is not.
            const QString wantFile = wantChain[k].section(' ', 1).section(':', 0, -2);
            const int fileLines = namesOnly ? 0 : sourceLineCount(wantFile);
            if (!same && fileLines > 0 && wantLines[k] > fileLines && int(frames[size_t(k)].line) <= fileLines
                && wantChain[k].section(':', 0, -2) == gotChain[k].section(':', 0, -2)) {
                same = true;
                ++tally.linesPastEnd;
            }
        }
        // The compiler writes no inlined-subroutine entries into the DWARF of an autogenerated
        // method wrapper (a pointer-receiver wrapper that inlined its value method): DWARF names
        // the wrapper with the inlined body's file:line, the table's inline tree has the body's frames too.
        // Accepted only in exactly that shape; the innermost file:line is also checked against
        // go tool addr2line by addr2lineOracle.
        if (!same && wantChain.size() == 1 && gotChain.size() >= 2 && frameFile(mine, frames.back()) == "<autogenerated>"
            && wantChain[0].section(' ', 0, 0) == frameName(mine, frames.back())
            && wantChain[0].section(' ', 1) == gotChain[0].section(' ', 1)) {
            ++tally.wrapperInlines;
            continue;
        }
        if (!same)
            tally.mismatch(QString("0x%1: dwarf [%2], symflame [%3]")
                               .arg(addresses[i], 0, 16)
                               .arg(wantChain.join(" | "), gotChain.join(" | ")));
    }
    qInfo().noquote() << binary << ": addresses compared" << tally.compared << "with inline frames" << tally.inlined
                      << "deepest chain" << tally.maxDepth << "wrappers with inlined bodies" << tally.wrapperInlines
                      << "DWARF lines past the end of the source" << tally.linesPastEnd << "without a DWARF function" << tally.noDwarf;
    QVERIFY2(tally.mismatches == 0, qPrintable(QString("%1 mismatches:\n").arg(tally.mismatches) + tally.examples.join('\n')));
    QVERIFY(tally.compared > 5000);
    QVERIFY(tally.inlined > 100);
    QVERIFY(tally.maxDepth >= 3);
}

void TestGoPclntab::otherToolchains_data()
{
    QTest::addColumn<QString>("binary");
    QTest::addColumn<QString>("layout");
    QTest::addColumn<QString>("goVersion");
    QTest::addRow("go1.23") << QString("esbuild_go123") << QString("1.20") << QString("go1.23.5");
    QTest::addRow("go1.18") << QString("esbuild_go118") << QString("1.18") << QString("go1.18.1");
    QTest::addRow("go1.17") << QString("esbuild_go117") << QString("1.16") << QString("go1.17.1");
    QTest::addRow("go1.16") << QString("esbuild_go116") << QString("1.16") << QString("go1.16.2");
    QTest::addRow("go1.14") << QString("esbuild_go114") << QString("1.2") << QString("go1.14.2");
}

// Every function-table entry decodes with a valid name, looking up its entry gives it back as the
// physical frame, known runtime functions are there, and the version agrees with `go version`.
void TestGoPclntab::otherToolchains()
{
    QFETCH(QString, binary);
    QFETCH(QString, layout);
    QFETCH(QString, goVersion);
    const QString path = fixture(binary);
    QCOMPARE(QString::fromUtf8(runForOutput(QStringLiteral(SYMFLAME_GO_TOOL), { "version", path }).trimmed()),
        path + ": " + goVersion);
    auto engine = openEngine(path);
    QVERIFY(engine);
    QCOMPARE(QString::fromStdString(engine->goVersion()), goVersion);
    const GoPclntab& t = engine->table();
    QCOMPARE(QString(goPclntabVersionName(t.version())), layout);
    QVERIFY(t.hasInlineTrees());

    std::vector<uint64_t> entries;
    std::map<std::string, uint64_t> byName;
    size_t dotted = 0;
    for (size_t i = 0; i < t.functionCount(); ++i) {
        auto f = t.function(i);
        QVERIFY2(f, f ? "" : qPrintable(QString::fromStdString(f.error().message)));
        QVERIFY2(isValidGoSymbol(f->name), qPrintable(QString::fromUtf8(f->name.data(), int(f->name.size()))));
        QVERIFY(f->end > f->entry);
        QCOMPARE(t.findFunction(f->entry), std::optional<size_t>(i));
        QCOMPARE(t.findFunction(f->end - 1), std::optional<size_t>(i));
        dotted += f->name.find('.') != std::string_view::npos ? 1 : 0;
        entries.push_back(f->entry);
        byName.emplace(std::string(f->name), f->entry);
    }
    QVERIFY(dotted * 100 > t.functionCount() * 99);
    for (const char* known : { "runtime.main", "runtime.mallocgc", "runtime.goexit", "runtime.morestack",
             "runtime.newproc", "runtime.schedule", "main.main" })
        QVERIFY2(byName.count(known), known);

    SymbolizedAddresses mine;
    QVERIFY(engine->symbolize(entries, mine, nullptr));
    QCOMPARE(engine->warningCount(), size_t(0));
    for (size_t i = 0; i < entries.size(); ++i) {
        auto f = t.function(i);
        QCOMPARE(frameName(mine, mine.frames(i).back()), QString::fromUtf8(f->name.data(), int(f->name.size())));
    }
    // PCs inside functions: every one resolves, with lines, and some with inline frames.
    const std::vector<uint64_t> inside = tableAddresses(t);
    SymbolizedAddresses all;
    QVERIFY(engine->symbolize(inside, all, nullptr));
    QCOMPARE(engine->warningCount(), size_t(0));
    size_t inlined = 0, withLine = 0;
    for (size_t i = 0; i < all.size(); ++i) {
        inlined += all.frames(i).size() > 1;
        withLine += all.frames(i).front().line > 0;
    }
    QVERIFY2(inlined > 1000, qPrintable(QString::number(inlined)));
    QVERIFY(withLine * 10 > all.size() * 9);
}

// Section headers gone: the table is found by its magic, the build info by its magic, and every
// answer is the same as with the sections.
void TestGoPclntab::locateWithoutSections()
{
    for (const char* name : { "go_stripped", "go_ppc64_stripped", "go_386_stripped", "esbuild_go123", "esbuild_go114" }) {
        auto elf = ElfFile::open(fixture(name).toStdString());
        QVERIFY(elf);
        auto withSections = locateGoPclntab(**elf);
        QVERIFY(withSections);
        QCOMPARE(withSections->origin, GoPclntabOrigin::Section);
        std::vector<uint8_t> bytes((*elf)->bytes().begin(), (*elf)->bytes().end());
        // e_shoff, e_shnum and e_shstrndx to zero.
        if ((*elf)->is64()) {
            std::memset(bytes.data() + 40, 0, 8);
            std::memset(bytes.data() + 60, 0, 4);
        } else {
            std::memset(bytes.data() + 32, 0, 4);
            std::memset(bytes.data() + 48, 0, 4);
        }
        auto bare = ElfFile::parse(MappedFile::fromBytes(std::move(bytes), std::string(name) + " without sections"));
        QVERIFY(bare);
        QVERIFY((*bare)->sections().empty());
        QCOMPARE(QString::fromStdString((*bare)->goBuildId()), QString::fromStdString((*elf)->goBuildId()));
        auto scanned = locateGoPclntab(**bare);
        QVERIFY2(scanned, scanned ? "" : qPrintable(QString::fromStdString(scanned.error().message)));
        QCOMPARE(scanned->origin, GoPclntabOrigin::MagicScan);
        QCOMPARE(scanned->input.tableAddress, withSections->input.tableAddress);
        QCOMPARE(scanned->input.textStart, withSections->input.textStart);
        QCOMPARE(scanned->input.goFunc.size(), withSections->input.goFunc.size());
        auto info = readGoBuildInfo(**bare);
        QVERIFY(info);
        QCOMPARE(info->goVersion, readGoBuildInfo(**elf)->goVersion);

        auto a = GoEngine::open(*elf, ModuleOptions {});
        auto b = GoEngine::open(*bare, ModuleOptions {});
        QVERIFY(a && b);
        const std::vector<uint64_t> addresses = tableAddresses((*a)->table());
        SymbolizedAddresses ra, rb;
        QVERIFY((*a)->symbolize(addresses, ra, nullptr));
        QVERIFY((*b)->symbolize(addresses, rb, nullptr));
        QCOMPARE(ra.size(), rb.size());
        size_t inlined = 0;
        for (size_t i = 0; i < ra.size(); ++i) {
            const auto fa = ra.frames(i), fb = rb.frames(i);
            QCOMPARE(fa.size(), fb.size());
            inlined += fa.size() > 1;
            for (size_t k = 0; k < fa.size(); ++k) {
                QCOMPARE(frameName(ra, fa[k]), frameName(rb, fb[k]));
                QCOMPARE(frameFile(ra, fa[k]), frameFile(rb, fb[k]));
                QCOMPARE(fa[k].line, fb[k].line);
            }
        }
        QVERIFY(inlined > 0);
    }
    // The renamed section: found through the runtime.pclntab symbol.
    auto renamed = ElfFile::open(fixture("go_renamed").toStdString());
    QVERIFY(renamed);
    auto viaSymbol = locateGoPclntab(**renamed);
    QVERIFY(viaSymbol);
    QCOMPARE(viaSymbol->origin, GoPclntabOrigin::Symbol);
    // The PIE's table lives in .data.rel.ro.gopclntab.
    auto pie = ElfFile::open(fixture("go_pie").toStdString());
    QVERIFY(pie && (*pie)->findSection(".data.rel.ro.gopclntab"));
    QCOMPARE(locateGoPclntab(**pie)->origin, GoPclntabOrigin::Section);
}

void TestGoPclntab::buildInfo_data()
{
    QTest::addColumn<QString>("binary");
    for (const char* name : { "go_default", "go_stripped", "go_pie", "go_cgo", "go_386", "go_ppc64_stripped",
             "go_s390x", "esbuild_go123", "esbuild_go117", "esbuild_go114" })
        QTest::addRow("%s", name) << QString(name);
}

// Version against `go version`, build ID against `go tool buildid`.
void TestGoPclntab::buildInfo()
{
    QFETCH(QString, binary);
    const QString path = fixture(binary);
    auto elf = ElfFile::open(path.toStdString());
    QVERIFY(elf);
    auto info = readGoBuildInfo(**elf);
    QVERIFY2(info, info ? "" : qPrintable(QString::fromStdString(info.error().toString())));
    const QString version = QString::fromUtf8(runForOutput(QStringLiteral(SYMFLAME_GO_TOOL), { "version", path }).trimmed());
    QCOMPARE(path + ": " + QString::fromStdString(info->goVersion), version);
    const QString buildId = QString::fromUtf8(runForOutput(QStringLiteral(SYMFLAME_GO_TOOL), { "tool", "buildid", path }).trimmed());
    QVERIFY(!buildId.isEmpty());
    QCOMPARE(QString::fromStdString(info->buildId), buildId);
    if (!binary.startsWith("esbuild"))
        QCOMPARE(QString::fromStdString(info->mainPath), QString("command-line-arguments"));
}

// openModule: DWARF when the binary has it, the gopclntab when not (the locator found
// at most a symbol table); the Go build ID, as stored or hex-encoded, identifies the binary.
void TestGoPclntab::dispatchAndIdentity()
{
    LocatorOptions lo;
    lo.useDefaultDebugDir = false;
    DebugInfoLocator locator(lo);
    const LocateResult withDwarf = locator.locate(fixture("go_default").toStdString(), "");
    QCOMPARE(withDwarf.status, LocateStatus::Found);
    QCOMPARE(withDwarf.source, DebugSource::Binary);
    auto dwarfEngine = openModule(withDwarf, ModuleOptions {});
    QVERIFY(dwarfEngine);
    QCOMPARE(QString((*dwarfEngine)->engineName()), QString("llvm-dwarf"));

    for (const char* name : { "go_stripped", "go_strip_all", "esbuild_go123" }) {
        const LocateResult stripped = locator.locate(fixture(name).toStdString(), "");
        QCOMPARE(stripped.status, LocateStatus::Found);
        QVERIFY(stripped.source == DebugSource::None || stripped.source == DebugSource::SymbolTable);
        auto goEngine = openModule(stripped, ModuleOptions {});
        QVERIFY2(goEngine, goEngine ? "" : qPrintable(QString::fromStdString(goEngine.error().toString())));
        QCOMPARE(QString((*goEngine)->engineName()), QString("gopclntab"));
        QCOMPARE((*goEngine)->source(), DebugSource::GoPclntab);
    }
    // The 1.14 esbuild has a symbol table and DWARF in the .zdebug form LLVM 19 no longer reads:
    // the gopclntab serves it.
    const LocateResult zdebug = locator.locate(fixture("esbuild_go114").toStdString(), "");
    QCOMPARE(zdebug.source, DebugSource::SymbolTable);
    QCOMPARE(QString((*openModule(zdebug, ModuleOptions {}))->engineName()), QString("gopclntab"));

    auto elf = ElfFile::open(fixture("go_stripped").toStdString());
    QVERIFY(elf && (*elf)->buildId().empty() && !(*elf)->goBuildId().empty());
    const std::string goId = (*elf)->goBuildId();
    const std::string goIdHex = toHex(std::span(reinterpret_cast<const uint8_t*>(goId.data()), goId.size()));
    for (const std::string& id : { goId, goIdHex }) {
        const LocateResult r = locator.locate(fixture("go_stripped").toStdString(), id);
        QCOMPARE(r.status, LocateStatus::Found);
        QVERIFY(!r.unverified);
    }
    const LocateResult wrong = locator.locate(fixture("go_stripped").toStdString(), "abcdef/ghijkl");
    QCOMPARE(wrong.status, LocateStatus::BuildIdMismatch);
}

// The wrapper FuncID the table reader infers equals the position of funcID_wrapper in the
// enumeration of the toolchain's own runtime source; and each wrapper-marked function of the
// test program is autogenerated code.
void TestGoPclntab::wrapperFuncId()
{
    const QString goroot = QString::fromUtf8(runForOutput(QStringLiteral(SYMFLAME_GO_TOOL), { "env", "GOROOT" }).trimmed());
    QFile symtab(goroot + "/src/runtime/symtab.go");
    QVERIFY2(symtab.open(QIODevice::ReadOnly), qPrintable(symtab.fileName()));
    const QString source = QString::fromUtf8(symtab.readAll());
    const qsizetype from = source.indexOf("funcID_normal funcID = iota");
    QVERIFY(from > 0);
    int index = 0, wrapper = -1;
    for (const QString& line : source.mid(from).split('\n')) {
        const QString name = line.trimmed().section(' ', 0, 0);
        if (name == ")")
            break;
        if (!name.startsWith("funcID_"))
            continue;
        if (name == "funcID_wrapper")
            wrapper = index;
        ++index;
    }
    QVERIFY(wrapper > 0);
    for (const char* name : { "go_default", "go_386", "go_ppc64_stripped", "go_cgo" }) {
        auto engine = openEngine(fixture(name));
        QVERIFY(engine);
        const GoPclntab& t = engine->table();
        QCOMPARE(t.wrapperFuncId(), std::optional<uint8_t>(uint8_t(wrapper)));
        size_t wrappers = 0, methodWrappers = 0;
        for (size_t i = 0; i < t.functionCount(); ++i) {
            auto f = t.function(i);
            QVERIFY(f);
            if (f->funcId != wrapper)
                continue;
            ++wrappers;
            const QString n = QString::fromUtf8(f->name.data(), int(f->name.size()));
            methodWrappers += n.contains(".(*") ? 1 : 0;
        }
        QVERIFY2(wrappers > 20 && methodWrappers > 5, qPrintable(QString("%1 %2").arg(wrappers).arg(methodWrappers)));
    }
    // Every toolchain's table names one FuncID for its wrappers, shared by many functions.
    for (const char* name : { "esbuild_go114", "esbuild_go117", "esbuild_go123" }) {
        auto engine = openEngine(fixture(name));
        QVERIFY(engine && engine->table().wrapperFuncId());
    }
}

namespace {

// A Go 1.18-layout table (little-endian, 8-byte pointers) with one function "main.f" at
// [0x1000, 0x1100) in "f.go", whose line table is pcln (appended last, so it may run to the end
// of the data).
std::vector<uint8_t> syntheticTable(const std::vector<uint8_t>& pcln)
{
    std::vector<uint8_t> t;
    const auto u32 = [&](uint32_t v) {
        for (int i = 0; i < 4; ++i)
            t.push_back(uint8_t(v >> (8 * i)));
    };
    const auto u64 = [&](uint64_t v) {
        for (int i = 0; i < 8; ++i)
            t.push_back(uint8_t(v >> (8 * i)));
    };
    const auto bytes = [&](std::string_view s) { t.insert(t.end(), s.begin(), s.end()); };
    // Header: magic, 0, 0, quantum 1, pointer size 8; nfunc, nfiles, textStart, then the offsets.
    u32(0xfffffff0);
    t.push_back(0);
    t.push_back(0);
    t.push_back(1);
    t.push_back(8);
    const size_t funcname = 72, cutab = 80, filetab = 84, pcln_ = 92, pctab = 144;
    for (uint64_t w : { uint64_t(1), uint64_t(1), uint64_t(0x1000), uint64_t(funcname), uint64_t(cutab),
             uint64_t(filetab), uint64_t(pctab), uint64_t(pcln_) })
        u64(w);
    bytes(std::string_view("main.f\0", 7)); // 72
    t.push_back(0); // 79
    u32(0); // 80: cutab[0] = filetab offset 0
    bytes(std::string_view("f.go\0", 5)); // 84
    while (t.size() < pcln_)
        t.push_back(0);
    // Function table: {entryoff 0, funcoff 12}, end 0x100.
    u32(0);
    u32(12);
    u32(0x100);
    // _func: entryoff, nameoff, args, deferreturn, pcsp, pcfile 1, pcln 5, npcdata 0, cuOffset 0,
    // funcID, flag, pad, nfuncdata.
    for (uint32_t v : { 0u, 0u, 0u, 0u, 0u, 1u, 5u, 0u, 0u })
        u32(v);
    u32(0);
    // pctab: a zero byte (offset 0 means "no table"), the file table (value 0 for 256 bytes),
    // then the line table.
    t.push_back(0);
    for (uint8_t b : { 0x02, 0x80, 0x02, 0x00 })
        t.push_back(b);
    t.insert(t.end(), pcln.begin(), pcln.end());
    return t;
}

} // namespace

// The builder above is checked against the reader with a valid line table, then the line table
// is made to never end.
void TestGoPclntab::syntheticTable()
{
    // Line 10 (zigzag 22: +11 from -1) for 0x100 bytes, then the end.
    const std::vector<uint8_t> good = ::syntheticTable({ 0x16, 0x80, 0x02, 0x00 });
    GoPclntabInput in;
    in.table = good;
    auto t = GoPclntab::parse(in);
    QVERIFY2(t, t ? "" : qPrintable(QString::fromStdString(t.error().message)));
    QCOMPARE(t->functionCount(), size_t(1));
    std::vector<GoFrame> frames;
    QVERIFY(t->lookup(0x1080, frames));
    QCOMPARE(frames.size(), size_t(1));
    QCOMPARE(frames[0].function, std::string_view("main.f"));
    QCOMPARE(frames[0].file, std::string_view("f.go"));
    QCOMPARE(frames[0].line, 10u);
    frames.clear();
    QVERIFY(t->lookup(0x1100, frames));
    QVERIFY(frames.empty());

    // A line table that never ends: value +1, pc +0, over and over, to the end of the data.
    std::vector<uint8_t> endless;
    for (int i = 0; i < 200000; ++i) {
        endless.push_back(0x02);
        endless.push_back(0x00);
    }
    const std::vector<uint8_t> bad = ::syntheticTable(endless);
    in.table = bad;
    auto tb = GoPclntab::parse(in);
    QVERIFY(tb);
    frames.clear();
    const auto start = std::chrono::steady_clock::now();
    const model::Status st = tb->lookup(0x1080, frames);
    QVERIFY(!st);
    QVERIFY2(QString::fromStdString(st.error().message).contains("runs past the end of the table"),
        qPrintable(QString::fromStdString(st.error().message)));
    QVERIFY(std::chrono::steady_clock::now() - start < std::chrono::seconds(2));
}

// Truncated tables, offsets out of range, random corruption: errors, never a crash or a hang.
void TestGoPclntab::badInput()
{
    auto elf = ElfFile::open(fixture("go_default").toStdString());
    QVERIFY(elf);
    auto located = locateGoPclntab(**elf);
    QVERIFY(located);
    const std::vector<uint8_t> original(located->input.table.begin(), located->input.table.end());
    auto reference = GoPclntab::parse(located->input);
    QVERIFY(reference);
    const std::vector<uint64_t> addresses = tableAddresses(*reference);
    const auto exercise = [&](const std::vector<uint8_t>& bytes, size_t* errors) -> bool {
        GoPclntabInput in = located->input;
        in.table = bytes;
        auto t = GoPclntab::parse(in);
        if (!t) {
            ++*errors;
            return false;
        }
        std::vector<GoFrame> frames;
        for (size_t i = 0; i < addresses.size(); i += 7) {
            frames.clear();
            if (!t->lookup(addresses[i], frames))
                ++*errors;
        }
        for (size_t i = 0; i < t->functionCount(); i += 13)
            if (!t->function(i))
                ++*errors;
        return true;
    };

    // Truncated: cutting into the tables gives errors; a truncated table never gives an answer
    // that differs from the whole table's (the last bytes can be data no lookup reads, such as
    // the last function's funcdata: there, every answer must still be right).
    const auto answersOf = [&](const GoPclntab& t, size_t* errors) {
        std::vector<std::string> out;
        std::vector<GoFrame> frames;
        for (uint64_t a : addresses) {
            frames.clear();
            std::string text;
            if (!t.lookup(a, frames)) {
                ++*errors;
                text = "error";
            } else {
                for (const GoFrame& f : frames)
                    text += std::string(f.function) + ' ' + std::string(f.file) + ':' + std::to_string(f.line) + '|';
            }
            out.push_back(std::move(text));
        }
        return out;
    };
    size_t unused = 0;
    const std::vector<std::string> whole = answersOf(*reference, &unused);
    QCOMPARE(unused, size_t(0));
    for (size_t size : { size_t(0), size_t(7), size_t(15), size_t(64), size_t(1000), original.size() / 3,
             original.size() / 2, original.size() - 64, original.size() - 1 }) {
        std::vector<uint8_t> cut(original.begin(), original.begin() + std::min(size, original.size()));
        GoPclntabInput in = located->input;
        in.table = cut;
        auto t = GoPclntab::parse(in);
        size_t errors = 0;
        if (t) {
            const std::vector<std::string> got = answersOf(*t, &errors);
            for (size_t i = 0; i < got.size(); ++i)
                if (got[i] != "error")
                    QVERIFY2(got[i] == whole[i], qPrintable(QString("truncated to %1 bytes: 0x%2 answered %3, whole table %4")
                                                               .arg(size)
                                                               .arg(addresses[i], 0, 16)
                                                               .arg(QString::fromStdString(got[i]), QString::fromStdString(whole[i]))));
        }
        if (size <= original.size() / 2)
            QVERIFY2(!t || errors > 0, qPrintable(QString("truncated to %1 bytes: no error").arg(size)));
    }
    // Header fields out of range: nfunc and each offset.
    const auto setWord = [](std::vector<uint8_t>& b, size_t i, uint64_t v) {
        for (int k = 0; k < 8; ++k)
            b[8 + i * 8 + k] = uint8_t(v >> (8 * k));
    };
    for (size_t field = 0; field < 8; ++field) {
        if (field == 1 || field == 2)
            continue; // nfiles is unused, textStart only moves the PCs
        std::vector<uint8_t> b = original;
        setWord(b, field, original.size() + 1000);
        GoPclntabInput in = located->input;
        in.table = b;
        auto t = GoPclntab::parse(in);
        QVERIFY2(!t, qPrintable(QString("header word %1 out of range was accepted").arg(field)));
        QVERIFY(t.error().code == model::ErrorCode::Truncated);
    }
    {
        std::vector<uint8_t> b = original;
        b[7] = 5; // pointer size
        GoPclntabInput in = located->input;
        in.table = b;
        auto t = GoPclntab::parse(in);
        QVERIFY(!t);
        QCOMPARE(QString::fromStdString(t.error().message), QString("gopclntab has an invalid pointer size 5"));
    }
    // Random corruption of the tables after the header (deterministic seed).
    std::mt19937 rng(12345);
    const auto start = std::chrono::steady_clock::now();
    size_t totalErrors = 0;
    for (int round = 0; round < 60; ++round) {
        std::vector<uint8_t> b = original;
        std::uniform_int_distribution<size_t> pos(72, b.size() - 1);
        for (int k = 0; k < 2000; ++k)
            b[pos(rng)] = uint8_t(rng());
        exercise(b, &totalErrors);
    }
    QVERIFY(totalErrors > 0);
    QVERIFY(std::chrono::steady_clock::now() - start < std::chrono::seconds(120));
}

// A real runtime/pprof CPU profile of the stripped program, written back without its names by
// the pprof writer and symbolized again from the stripped binary: every location gets the same
// function chain runtime/pprof wrote.
void TestGoPclntab::pprofRoundTrip()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString binary = fixture("go_stripped");
    const QString original = dir.filePath("cpu.pprof");
    QVERIFY(!runForOutput(binary, { original }).isEmpty());
    auto loaded = model::loadProfile(original.toStdString());
    QVERIFY2(loaded, loaded ? "" : qPrintable(QString::fromStdString(loaded.error().toString())));
    model::Profile& p = *loaded;
    QVERIFY(p.locations.size() > 20);

    const auto chainOf = [](const model::Profile& prof, const model::Location& loc) {
        QStringList chain;
        for (const model::Line& l : prof.linesOf(loc))
            chain << QString::fromUtf8(prof.str(prof.functions[l.function.index()].name)) + ':'
                    + QString::number(l.line);
        return chain;
    };
    std::vector<QStringList> want;
    size_t inlined = 0;
    for (const model::Location& loc : p.locations) {
        want.push_back(chainOf(p, loc));
        inlined += loc.lineCount > 1;
    }
    QVERIFY2(inlined > 0, "runtime/pprof wrote no inlined frames");

    // Drop every name and line, write, read back.
    for (model::Location& loc : p.locations) {
        loc.linesBegin = 0;
        loc.lineCount = 0;
        loc.status = model::FrameStatus::BinaryOnly;
    }
    p.lines.clear();
    p.functions.clear();
    const QString bare = dir.filePath("bare.pprof");
    QVERIFY(model::writePprofFile(p, bare.toStdString()));
    auto reread = model::loadProfile(bare.toStdString());
    QVERIFY(reread);
    model::Profile& q = *reread;
    QCOMPARE(q.locations.size(), want.size());
    for (const model::Location& loc : q.locations)
        QCOMPARE(loc.lineCount, 0u);

    SymbolizeOptions options;
    options.locator.useDefaultDebugDir = false;
    options.threads = 2;
    auto report = symbolizeProfile(q, options);
    QVERIFY2(report, report ? "" : qPrintable(QString::fromStdString(report.error().toString())));
    bool sawGo = false;
    for (const MappingReport& m : report->mappings)
        if (m.path == binary.toStdString()) {
            QCOMPARE(m.source, DebugSource::GoPclntab);
            sawGo = true;
        }
    QVERIFY(sawGo);
    size_t compared = 0;
    for (size_t i = 0; i < q.locations.size(); ++i) {
        QCOMPARE(q.locations[i].address, p.locations[i].address);
        if (want[i].isEmpty())
            continue;
        QCOMPARE(chainOf(q, q.locations[i]).join(" | "), want[i].join(" | "));
        ++compared;
    }
    qInfo() << "locations compared" << compared << "with inline frames" << inlined;
    QVERIFY(compared * 10 > want.size() * 9);
}

// Parca Agent records a Go binary's build ID as the hex of its Go build ID string; other
// producers write it plain, or the GNU build ID when the binary has one. Every kind of Go binary
// (DWARF, -s -w, PIE, cgo; esbuild's go1.14 build with DWARF LLVM 19 can't read (.zdebug) and a
// symbol table; esbuild's stripped go1.16 build, the 1.16 layout) in a search directory, under a
// recorded path that does not exist, is
// found by each of those IDs and its profile symbolized: physical function and innermost
// file:line equal `go tool addr2line`'s.
void TestGoPclntab::goBuildIdsInSearchDirectory()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    model::Profile p;
    p.sampleTypes.push_back({ p.strings.intern("samples"), p.strings.intern("count") });
    const int64_t one = 1;
    struct Want {
        QString binary;
        uint64_t elfAddress;
    };
    std::vector<Want> want; // per location
    std::map<std::string, QString> idKind; // recorded build ID -> "go_pie hex Go build ID"
    size_t gnuIds = 0;
    for (const char* name : { "go_default", "go_stripped", "go_pie", "go_cgo", "esbuild_go114", "esbuild_go116" }) {
        const QString copy = dir.filePath(QString("search/") + name);
        QVERIFY(QDir().mkpath(QFileInfo(copy).path()));
        QVERIFY(QFile::copy(fixture(name), copy));
        auto elf = ElfFile::open(fixture(name).toStdString());
        QVERIFY(elf);
        const std::string& goId = (*elf)->goBuildId();
        QVERIFY2(!goId.empty(), name);
        std::vector<std::pair<std::string, QString>> ids {
            { toHex(std::span(reinterpret_cast<const uint8_t*>(goId.data()), goId.size())), "hex Go build ID" },
            { goId, "plain Go build ID" },
        };
        if (!(*elf)->buildId().empty()) {
            ids.emplace_back((*elf)->buildId(), "GNU build ID");
            ++gnuIds;
        }
        auto engine = openEngine(fixture(name));
        QVERIFY(engine);
        std::vector<uint64_t> addresses = tableAddresses(engine->table());
        // Every 5th address keeps the test quick; entries and PCs inside functions both stay.
        std::vector<uint64_t> sampled;
        for (size_t i = 0; i < addresses.size(); i += 5)
            sampled.push_back(addresses[i]);
        const ElfSegment* x = nullptr;
        for (const ElfSegment& s : (*elf)->segments())
            if (s.type == elf::PT_LOAD && (s.flags & elf::PF_X))
                x = &s;
        QVERIFY(x);
        const uint64_t page = 4096;
        const bool pie = (*elf)->type() == ElfType::Shared;
        for (size_t k = 0; k < ids.size(); ++k) {
            const uint64_t base = pie ? 0x555555554000ull : 0;
            model::Mapping m;
            m.start = base + (x->vaddr & ~(page - 1));
            m.limit = base + ((x->vaddr + x->memsz + page - 1) & ~(page - 1));
            m.offset = x->offset & ~(page - 1);
            m.file = p.strings.intern("/nonexistent/app/" + std::string(name));
            m.buildId = p.strings.intern(ids[k].first);
            m.sourceId = p.mappings.size() + 1;
            idKind[ids[k].first] = QString(name) + " " + ids[k].second;
            const model::MappingId mid(p.mappings.size());
            p.mappings.push_back(m);
            for (uint64_t a : sampled) {
                if (a < x->vaddr || a >= x->vaddr + x->memsz)
                    continue;
                model::Location loc;
                loc.mapping = mid;
                loc.address = a - x->vaddr + x->offset - m.offset + m.start;
                loc.sourceId = p.locations.size() + 1;
                const model::LocationId lid(p.locations.size());
                p.locations.push_back(loc);
                p.addSample(p.internStack(std::span(&lid, 1)), std::span(&one, 1));
                want.push_back({ QString(name), a });
            }
        }
    }
    QVERIFY2(gnuIds >= 1, "no Go fixture has a GNU build ID (go_cgo should)");

    // The reference: the same profile with the fixtures' own paths recorded, found by path.
    model::Profile ref = p;
    for (model::Mapping& m : ref.mappings)
        m.file = ref.strings.intern(fixture(QString::fromStdString(std::string(model::baseName(p.str(m.file))))).toStdString());
    SymbolizeOptions options;
    options.locator.useDefaultDebugDir = false;
    options.locator.useClientCache = false;
    options.threads = 2;
    options.elideGoWrappers = false; // go tool addr2line keeps the wrapper frames
    auto refReport = symbolizeProfile(ref, options);
    QVERIFY(refReport);
    options.locator.searchDirs = { dir.filePath("search").toStdString() };
    options.threads = 2;
    auto report = symbolizeProfile(p, options);
    QVERIFY2(report, report ? "" : qPrintable(QString::fromStdString(report.error().toString())));
    QStringList notFound;
    for (const MappingReport& m : report->mappings)
        if (m.status != LocateStatus::Found || m.resolved == 0)
            notFound << idKind[m.buildId] + ": " + QString::fromStdString(m.summary);
    QVERIFY2(notFound.isEmpty(), qPrintable(notFound.join('\n')));

    // The oracle, per binary.
    std::map<QString, std::map<uint64_t, std::pair<QString, QString>>> oracle;
    for (const Want& w : want)
        oracle[w.binary][w.elfAddress];
    for (auto& [binary, answers] : oracle) {
        QByteArray input;
        for (const auto& [a, _] : answers)
            input += "0x" + QByteArray::number(qulonglong(a), 16) + '\n';
        const QList<QByteArray> lines
            = runForOutput(QStringLiteral(SYMFLAME_GO_TOOL), { "tool", "addr2line", fixture(binary) }, input).split('\n');
        QVERIFY(size_t(lines.size()) >= 2 * answers.size());
        int i = 0;
        for (auto& [a, answer] : answers) {
            answer = { QString::fromUtf8(lines[2 * i]), QString::fromUtf8(lines[2 * i + 1]) };
            ++i;
        }
    }
    const auto chainOf = [](const model::Profile& prof, const model::Location& loc) {
        QStringList chain;
        for (const model::Line& l : prof.linesOf(loc))
            chain << QString::fromUtf8(prof.str(prof.functions[l.function.index()].name)) + ' '
                    + QString::fromUtf8(prof.str(prof.functions[l.function.index()].file)) + ':' + QString::number(l.line);
        return chain.join(" | ");
    };
    Tally tally;
    size_t againstAddr2line = 0;
    for (size_t i = 0; i < p.locations.size(); ++i) {
        const QString refChain = chainOf(ref, ref.locations[i]);
        if (chainOf(p, p.locations[i]) != refChain)
            tally.mismatch(QString("%1 0x%2: found by path %3, by build ID %4")
                               .arg(want[i].binary)
                               .arg(want[i].elfAddress, 0, 16)
                               .arg(refChain, chainOf(p, p.locations[i])));
        // go tool addr2line reads the gopclntab; DWARF names some functions otherwise (".abi0"
        // suffixes, "./<autogenerated>"), compared with llvm-symbolizer by dwarfOracle.
        if (report->mappings[p.locations[i].mapping.index()].source != DebugSource::GoPclntab)
            continue;
        ++againstAddr2line;
        const auto& [wantName, wantPos] = oracle[want[i].binary][want[i].elfAddress];
        const auto lines = p.linesOf(p.locations[i]);
        QString gotName = "?", gotPos = "?:0";
        if (!lines.empty()) {
            const model::Function& inner = p.functions[lines.front().function.index()];
            const model::Function& outer = p.functions[lines.back().function.index()];
            gotName = QString::fromUtf8(p.str(outer.name));
            const QString file = QString::fromUtf8(p.str(inner.file));
            gotPos = file.isEmpty() && lines.front().line == 0 ? QString(":-1")
                                                                : file + ':' + QString::number(lines.front().line);
        }
        ++tally.compared;
        if (gotName != wantName || gotPos != wantPos)
            tally.mismatch(QString("%1 0x%2: addr2line %3 %4, symflame %5 %6")
                               .arg(want[i].binary)
                               .arg(want[i].elfAddress, 0, 16)
                               .arg(wantName, wantPos, gotName, gotPos));
    }
    qInfo() << "mappings" << p.mappings.size() << "locations" << p.locations.size() << "compared with go tool addr2line"
            << againstAddr2line;
    QVERIFY(againstAddr2line > 1000);
    QVERIFY2(tally.mismatches == 0, qPrintable(QString("%1 mismatches:\n").arg(tally.mismatches) + tally.examples.join('\n')));
}

// The command line on Go binaries: `debuginfo check` passes a stripped Go binary (lines from the
// gopclntab) and names the Go version; `symbolize` of the stripped program's profile, with its
// names dropped, reports the gopclntab and gives go tool pprof the names runtime/pprof wrote.
void TestGoPclntab::commandLine()
{
    int code = -1;
    const QByteArray check = runSymflame({ "debuginfo", "check", fixture("go_stripped"), fixture("esbuild_go123"), "--json" }, &code);
    QCOMPARE(code, 0);
    const QJsonArray files = QJsonDocument::fromJson(check).array();
    QCOMPARE(files.size(), 2);
    QCOMPARE(files[0].toObject()["verdict"].toString(), QString("lines"));
    QVERIFY(files[0].toObject()["gopclntab"].toBool());
    QVERIFY2(files[0].toObject()["gopclntab_detail"].toString().contains("go1.19"), check.constData());
    QVERIFY2(files[1].toObject()["gopclntab_detail"].toString().contains("Go 1.20 layout, found by section), go1.23.5"),
        check.constData());

    // A profile without names: runtime/pprof's, rewritten by the pprof writer without lines.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString original = dir.filePath("cpu.pprof");
    QVERIFY(!runForOutput(fixture("go_stripped"), { original }).isEmpty());
    auto loaded = model::loadProfile(original.toStdString());
    QVERIFY(loaded);
    for (model::Location& loc : loaded->locations) {
        loc.linesBegin = 0;
        loc.lineCount = 0;
    }
    loaded->lines.clear();
    loaded->functions.clear();
    const QString bare = dir.filePath("bare.pprof");
    QVERIFY(model::writePprofFile(*loaded, bare.toStdString()));
    const QString out = dir.filePath("named.pb.gz");
    QByteArray err;
    const QByteArray report = runSymflame({ "symbolize", bare, "-o", out, "--offline", "--json-report" }, &code, &err);
    QVERIFY2(code == 0, err.constData());
    bool sawGo = false;
    for (const QJsonValue& v : QJsonDocument::fromJson(report).array()) {
        const QJsonObject m = v.toObject();
        if (m["path"].toString() != fixture("go_stripped"))
            continue;
        sawGo = true;
        QCOMPARE(m["source"].toString(), QString("gopclntab"));
        QVERIFY2(m["engine_detail"].toString().contains("go1.19"), report.constData());
        QCOMPARE(m["resolved"].toInt(), m["locations"].toInt());
    }
    QVERIFY2(sawGo, report.constData());
    // go tool pprof reads the names back: the same flat and cum per function as the original.
    const auto top = [](const QString& file) {
        return runForOutput(QStringLiteral(SYMFLAME_GO_TOOL),
            { "tool", "pprof", "-top", "-nodecount=0", "-nodefraction=0", "-symbolize=none", file });
    };
    const auto rows = [](const QByteArray& text) {
        QStringList out;
        bool body = false;
        for (const QByteArray& line : text.split('\n')) {
            if (line.trimmed().startsWith("flat"))
                body = true;
            else if (body && !line.trimmed().isEmpty())
                out << QString::fromUtf8(line.simplified());
        }
        out.sort();
        return out;
    };
    const QStringList want = rows(top(original)), got = rows(top(out));
    QVERIFY(want.size() > 5);
    QCOMPARE(got, want);
}

QTEST_GUILESS_MAIN(TestGoPclntab)
#include "tst_gopclntab.moc"
