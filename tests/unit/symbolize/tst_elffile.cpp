// Tests of symbolize/object/elffile, symbolize/locate/crc32 and symbolize/object/addressnormalizer: every fixture's
// headers, sections, notes and build ID compared with llvm-readobj-19's JSON dump; debuglinks
// against the CRC binutils wrote; malformed files (truncated at every length, garbage section
// headers, absurd counts) giving precise errors and never crashing.
#include "filehelpers.h"
#include "symbolize/object/addressnormalizer.h"
#include "symbolize/locate/crc32.h"
#include "symbolize/object/elffile.h"
#include "symbolize/object/minidebuginfo.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include "symfixturehelpers.h"

#include <cstring>
#include <random>

#include <sys/stat.h>

using namespace symflame;
using namespace symflame::symbolize;
using symtest::fixture;
using symtest::missingTool;
using symtest::run;

using symflame::testing::readFileBytes;

namespace {

uint64_t jsonU64(const QJsonValue& v)
{
    if (v.isString())
        return v.toString().toULongLong(nullptr, 0);
    return static_cast<uint64_t>(v.toDouble());
}

// "SharedObject (0x3)" -> 3
uint64_t valueInParens(const QString& s)
{
    const int open = s.lastIndexOf('('), close = s.lastIndexOf(')');
    return s.mid(open + 1, close - open - 1).toULongLong(nullptr, 0);
}

model::Result<ElfFilePtr> parseBytes(std::vector<uint8_t> bytes)
{
    return ElfFile::parse(MappedFile::fromBytes(std::move(bytes), "mem.elf"));
}

void put16(std::vector<uint8_t>& b, size_t off, uint16_t v)
{
    b[off] = v & 0xff;
    b[off + 1] = v >> 8;
}
void put32(std::vector<uint8_t>& b, size_t off, uint32_t v)
{
    for (int i = 0; i < 4; ++i)
        b[off + i] = (v >> (8 * i)) & 0xff;
}
void put64(std::vector<uint8_t>& b, size_t off, uint64_t v)
{
    for (int i = 0; i < 8; ++i)
        b[off + i] = (v >> (8 * i)) & 0xff;
}
uint64_t get64(const std::vector<uint8_t>& b, size_t off)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i)
        v = (v << 8) | b[off + i];
    return v;
}
uint16_t get16(const std::vector<uint8_t>& b, size_t off)
{
    return static_cast<uint16_t>(b[off] | (b[off + 1] << 8));
}

} // namespace

class TestElfFile : public QObject {
    Q_OBJECT
private slots:
    void againstReadobj_data();
    void againstReadobj();
    void contents_data();
    void contents();
    void debugLinkCrc();
    void goBuildId();
    void miniDebugInfo();
    void crcKnownAnswers();
    void notElf();
    void truncatedAtEveryLength();
    void garbageSectionHeaders();
    void absurdHeaders();
    void normalizer();
    void normalizerWithoutLoadSegments();
};

void TestElfFile::againstReadobj_data()
{
    QTest::addColumn<QString>("file");
    for (const char* f : { "cxx_pie", "cxx_nopie", "cxx_dwarf4", "libsfshapes.so", "libsfshapes_dynsym.so", "c_pie",
             "c_object.o", "cxx_zlib", "cxx_zstd", "cxx_zlib_gnu", "buildid/cxx_buildid", "debuglink/cxx_debuglink",
             "debuglink/cxx_debuglink.debug" })
        QTest::addRow("%s", f) << fixture(f);
    QTest::addRow("buildid debug file") << fixture(
        QStringLiteral("buildid/debug/.build-id/%1/%2.debug")
            .arg(QStringLiteral(SYMFLAME_FIXTURE_BUILDID).left(2), QStringLiteral(SYMFLAME_FIXTURE_BUILDID).mid(2)));
    for (const char* f : { "fs_i386", "fs_mips", "fs_ppc64", "fs_aarch64" })
        QTest::addRow("%s", f) << fixture(f);
    for (const char* f : { "c_mini", "libsfshapes_mini.so", "dwz/bin/dwz_a", "dwz/orig/dwz_a.debug",
             "dwz/debug/.dwz/symflame-fixture.debug", "dwz5/debug/.dwz/symflame-fixture.sup", "split/cxx_split",
             "split/inline.dwo", "split_dwp/c_split_dwp", "split_dwp/c_split_dwp.dwp" })
        QTest::addRow("%s", f) << fixture(f);
    QTest::addRow("dwz debug file") << fixture(QStringLiteral("dwz/debug/.build-id/%1/%2.debug")
                                                   .arg(QStringLiteral(SYMFLAME_FIXTURE_BUILDID_DWZ_A).left(2),
                                                       QStringLiteral(SYMFLAME_FIXTURE_BUILDID_DWZ_A).mid(2)));
    QTest::addRow("rust_prog") << fixture("rust_prog");
    QTest::addRow("go_prog") << fixture("go_prog");
}

void TestElfFile::againstReadobj()
{
    QFETCH(QString, file);
    if (const QString why = missingTool(file); !why.isEmpty())
        QSKIP(qPrintable(why));
    QVERIFY2(QFile::exists(file), qPrintable(file + " was not built"));
    const QByteArray json = run(QStringLiteral(SYMFLAME_LLVM_READOBJ),
        { "--elf-output-style=JSON", "--file-headers", "--sections", "--program-headers", "--notes", file }, {},
        120000);
    QVERIFY(!json.isEmpty());
    QJsonParseError perr;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &perr);
    QVERIFY2(perr.error == QJsonParseError::NoError, qPrintable(perr.errorString()));
    const QJsonObject top = doc.array().at(0).toObject();
    const QJsonObject hdr = top["ElfHeader"].toObject();

    auto elfOr = ElfFile::open(file.toStdString());
    QVERIFY2(elfOr.ok(), elfOr.ok() ? "" : elfOr.error().toString().c_str());
    const ElfFile& elf = **elfOr;

    const QJsonObject ident = hdr["Ident"].toObject();
    QCOMPARE(elf.is64(), ident["Class"].toObject()["Value"].toInt() == 2);
    QCOMPARE(elf.isLittleEndian(), ident["DataEncoding"].toObject()["Value"].toInt() == 1);
    QCOMPARE(uint64_t(elf.type()), valueInParens(hdr["Type"].toString()));
    QCOMPARE(uint64_t(elf.machine()), jsonU64(hdr["Machine"].toObject()["Value"]));
    QCOMPARE(elf.entry(), jsonU64(hdr["Entry"]));

    const QJsonArray phdrs = top["ProgramHeaders"].toArray();
    QCOMPARE(elf.segments().size(), size_t(phdrs.size()));
    for (int i = 0; i < phdrs.size(); ++i) {
        const QJsonObject p = phdrs[i].toObject()["ProgramHeader"].toObject();
        const ElfSegment& s = elf.segments()[i];
        QCOMPARE(uint64_t(s.type), jsonU64(p["Type"].toObject()["Value"]));
        QCOMPARE(s.offset, jsonU64(p["Offset"]));
        QCOMPARE(s.vaddr, jsonU64(p["VirtualAddress"]));
        QCOMPARE(s.filesz, jsonU64(p["FileSize"]));
        QCOMPARE(s.memsz, jsonU64(p["MemSize"]));
        QCOMPARE(uint64_t(s.flags), jsonU64(p["Flags"].toObject()["Value"]));
        QCOMPARE(s.align, jsonU64(p["Alignment"]));
    }

    const QJsonArray secs = top["Sections"].toArray();
    QCOMPARE(elf.sections().size(), size_t(secs.size()));
    QVERIFY(secs.size() > 5);
    for (int i = 0; i < secs.size(); ++i) {
        const QJsonObject s = secs[i].toObject()["Section"].toObject();
        const ElfSection& e = elf.sections()[i];
        QCOMPARE(uint64_t(e.index), jsonU64(s["Index"]));
        QCOMPARE(QString::fromStdString(std::string(e.name)), s["Name"].toObject()["Name"].toString());
        QCOMPARE(uint64_t(e.type), jsonU64(s["Type"].toObject()["Value"]));
        QCOMPARE(e.flags, jsonU64(s["Flags"].toObject()["Value"]));
        QCOMPARE(e.addr, jsonU64(s["Address"]));
        QCOMPARE(e.offset, jsonU64(s["Offset"]));
        QCOMPARE(e.size, jsonU64(s["Size"]));
        QCOMPARE(uint64_t(e.link), jsonU64(s["Link"]));
        QCOMPARE(uint64_t(e.info), jsonU64(s["Info"]));
        QCOMPARE(e.addralign, jsonU64(s["AddressAlignment"]));
        QCOMPARE(e.entsize, jsonU64(s["EntrySize"]));
        QVERIFY(elf.findSection(e.name) != nullptr);
    }

    // Build IDs as llvm-readobj prints them.
    QString wantBuildId, wantGoBuildId;
    for (const QJsonValue& ns : top["NoteSections"].toArray())
        for (const QJsonValue& n : ns.toObject()["NoteSection"].toObject()["Notes"].toArray()) {
            const QJsonObject note = n.toObject();
            if (note["Owner"].toString() == "GNU" && note.contains("Build ID") && wantBuildId.isEmpty())
                wantBuildId = note["Build ID"].toString();
            if (note["Owner"].toString() == "Go" && note.contains("Build ID") && wantGoBuildId.isEmpty())
                wantGoBuildId = note["Build ID"].toString();
        }
    QCOMPARE(QString::fromStdString(elf.buildId()), wantBuildId);
    if (!wantGoBuildId.isEmpty())
        QCOMPARE(QString::fromStdString(elf.goBuildId()), wantGoBuildId);
    if (file.endsWith("cxx_pie") || file.endsWith("libsfshapes.so"))
        QCOMPARE(elf.buildId().size(), size_t(40)); // GNU ld's default sha1 build ID
}

void TestElfFile::contents_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<bool>("debugInfo");
    QTest::addColumn<bool>("symtab");
    QTest::addColumn<bool>("dynsym");
    QTest::addColumn<bool>("debugOnly");
    QTest::addColumn<int>("compression");
    QTest::addColumn<QString>("debugLink");
    const int none = int(SectionCompression::None);
    QTest::addRow("pie") << fixture("cxx_pie") << true << true << true << false << none << QString();
    QTest::addRow("symtab only") << fixture("cxx_symtab") << false << true << true << false << none << QString();
    QTest::addRow("dynsym only") << fixture("libsfshapes_dynsym.so") << false << false << true << false << none
                                 << QString();
    QTest::addRow("zlib") << fixture("cxx_zlib") << true << true << true << false << int(SectionCompression::Zlib)
                          << QString();
    QTest::addRow("zstd") << fixture("cxx_zstd") << true << true << true << false << int(SectionCompression::Zstd)
                          << QString();
    QTest::addRow("zlib-gnu") << fixture("cxx_zlib_gnu") << true << true << true << false
                              << int(SectionCompression::GnuZdebug) << QString();
    QTest::addRow("debug file") << fixture("debuglink/cxx_debuglink.debug") << true << true << false << true << none
                                << QString();
    QTest::addRow("debuglink") << fixture("debuglink/cxx_debuglink") << false << false << true << false << none
                               << QString("cxx_debuglink.debug");
    QTest::addRow("debuglink in .debug") << fixture("debuglink2/c_debuglink") << false << false << true << false << none
                                         << QString("c_debuglink.debug");
    QTest::addRow("object") << fixture("c_object.o") << true << true << false << false << none << QString();
}

void TestElfFile::contents()
{
    QFETCH(QString, file);
    QFETCH(bool, debugInfo);
    QFETCH(bool, symtab);
    QFETCH(bool, dynsym);
    QFETCH(bool, debugOnly);
    QFETCH(int, compression);
    QFETCH(QString, debugLink);
    auto elf = ElfFile::open(file.toStdString());
    QVERIFY(elf.ok());
    const ElfContents& c = (*elf)->contents();
    QCOMPARE(c.debugInfo, debugInfo);
    QCOMPARE(c.debugLine, debugInfo);
    QCOMPARE(c.symtab, symtab);
    QCOMPARE(c.dynsym, dynsym);
    QCOMPARE(c.debugOnly, debugOnly);
    QCOMPARE(int(c.debugCompression), compression);
    QCOMPARE(c.gnuDebugdata, false);
    QCOMPARE(c.gopclntab, false);
    QCOMPARE((*elf)->debugLink().has_value(), !debugLink.isEmpty());
    if (!debugLink.isEmpty())
        QCOMPARE(QString::fromStdString((*elf)->debugLink()->name), debugLink);
    QVERIFY(!(*elf)->debugAltLink().has_value());
}

void TestElfFile::debugLinkCrc()
{
    // The CRC binutils' objcopy stored equals ours over the debug file.
    for (const auto& [bin, dbg] : { std::pair { "debuglink/cxx_debuglink", "debuglink/cxx_debuglink.debug" },
             std::pair { "debuglink2/c_debuglink", "debuglink2/.debug/c_debuglink.debug" } }) {
        auto elf = ElfFile::open(fixture(bin).toStdString());
        QVERIFY(elf.ok());
        QVERIFY((*elf)->debugLink().has_value());
        const auto bytes = readFileBytes(fixture(dbg));
        QVERIFY(bytes.size() > 1000);
        QCOMPARE((*elf)->debugLink()->crc, crc32(0, bytes));
        QVERIFY((*elf)->debugLink()->crc != 0);
    }
    // A debuglink that names the binary itself (it was computed over the file before the link
    // was added, so it can't match now).
    auto self = ElfFile::open(fixture("selflink/c_selflink").toStdString());
    QVERIFY(self.ok());
    QCOMPARE(QString::fromStdString((*self)->debugLink()->name), QString("c_selflink"));
    QVERIFY((*self)->debugLink()->crc != crc32(0, (*self)->bytes()));
}

void TestElfFile::goBuildId()
{
    if (const QString why = missingTool(fixture("go_prog")); !why.isEmpty())
        QSKIP(qPrintable(why));
    const QByteArray out = run(QStringLiteral(SYMFLAME_GO), { "tool", "buildid", fixture("go_prog") }, {}, 120000);
    QVERIFY(!out.trimmed().isEmpty());
    auto elf = ElfFile::open(fixture("go_prog").toStdString());
    QVERIFY(elf.ok());
    QCOMPARE(QString::fromStdString((*elf)->goBuildId()), QString::fromUtf8(out.trimmed()));
    QCOMPARE((*elf)->buildId(), std::string()); // no GNU build ID unless linked with -B
    QVERIFY((*elf)->findSection(".gopclntab") != nullptr);
    QVERIFY((*elf)->contents().gopclntab);
}

void TestElfFile::miniDebugInfo()
{
    // The ELF file in .gnu_debugdata equals what objcopy and xz extract from it.
    for (const char* name : { "c_mini", "libsfshapes_mini.so" }) {
        auto elf = ElfFile::open(fixture(name).toStdString());
        QVERIFY(elf.ok());
        const ElfContents& c = (*elf)->contents();
        QVERIFY(c.gnuDebugdata);
        QVERIFY(!c.debugInfo);
        QVERIFY(!c.symtab);
        QVERIFY(c.dynsym);
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString xzPath = tmp.path() + "/debugdata.xz";
        run(QStringLiteral(SYMFLAME_OBJCOPY),
            { "--dump-section", ".gnu_debugdata=" + xzPath, fixture(name), tmp.path() + "/copy" });
        QVERIFY(QFile::exists(xzPath));
        const QByteArray want = run(QStringLiteral(SYMFLAME_XZ), { "-dc", xzPath });
        QVERIFY(want.size() > 1000);
        auto mini = openMiniDebugInfo(**elf);
        QVERIFY2(mini.ok(), mini.ok() ? "" : mini.error().toString().c_str());
        const auto got = (*mini)->bytes();
        QCOMPARE(QByteArray(reinterpret_cast<const char*>(got.data()), qsizetype(got.size())), want);
        QCOMPARE((*mini)->path(), (*elf)->path() + "[.gnu_debugdata]");
        QVERIFY((*mini)->contents().symtab);
    }
    auto plain = ElfFile::open(fixture("c_pie").toStdString());
    QVERIFY(plain.ok());
    auto none = openMiniDebugInfo(**plain);
    QVERIFY(!none.ok());
    QCOMPARE(none.error().code, model::ErrorCode::NotFound);
}

void TestElfFile::crcKnownAnswers()
{
    const char* check = "123456789";
    const std::span<const uint8_t> b(reinterpret_cast<const uint8_t*>(check), 9);
    QCOMPARE(crc32(0, b), 0xCBF43926u);
    QCOMPARE(crc32(crc32(0, b.first(4)), b.subspan(4)), 0xCBF43926u);
    QCOMPARE(crc32(0, {}), 0u);
}

void TestElfFile::notElf()
{
    auto text = parseBytes({ 'h', 'e', 'l', 'l', 'o', '\n' });
    QVERIFY(!text.ok());
    QCOMPARE(text.error().code, model::ErrorCode::InvalidInput);
    QCOMPARE(QString::fromStdString(text.error().toString()), QString("mem.elf: not an ELF file"));
    auto empty = parseBytes({});
    QVERIFY(!empty.ok());
    QCOMPARE(QString::fromStdString(empty.error().message), QString("not an ELF file"));
    auto missing = ElfFile::open("/nonexistent/symflame/file");
    QVERIFY(!missing.ok());
    QCOMPARE(missing.error().code, model::ErrorCode::NotFound);
    QCOMPARE(QString::fromStdString(missing.error().toString()),
        QString("/nonexistent/symflame/file: cannot open file: no such file or directory"));
    auto dir = ElfFile::open(SYMFLAME_FIXTURE_DIR);
    QVERIFY(!dir.ok());
    QCOMPARE(QString::fromStdString(dir.error().message), QString("not a regular file"));
    // A FIFO (a path from an untrusted profile or debug link may name one): an error at once,
    // not a wait for a writer that never comes.
    QTemporaryDir tmp;
    const std::string fifo = (tmp.path() + "/fifo").toStdString();
    QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
    QElapsedTimer timer;
    timer.start();
    auto pipe = ElfFile::open(fifo);
    QVERIFY(!pipe.ok());
    QCOMPARE(QString::fromStdString(pipe.error().message), QString("not a regular file"));
    QVERIFY(timer.elapsed() < 5000);
    std::vector<uint8_t> badClass = readFileBytes(fixture("c_pie"));
    badClass[4] = 7;
    auto bc = parseBytes(badClass);
    QVERIFY(!bc.ok());
    QCOMPARE(QString::fromStdString(bc.error().message), QString("invalid ELF class 7"));
}

void TestElfFile::truncatedAtEveryLength()
{
    const std::vector<uint8_t> full = readFileBytes(fixture("c_pie"));
    QVERIFY(full.size() > 10000);
    size_t failures = 0, successes = 0;
    // Every length up to 4 KiB, then every 61st, then the last 300 bytes (the section headers).
    std::vector<size_t> lengths;
    for (size_t n = 0; n < 4096; ++n)
        lengths.push_back(n);
    for (size_t n = 4096; n < full.size(); n += 61)
        lengths.push_back(n);
    for (size_t n = full.size() - 300; n < full.size(); ++n)
        lengths.push_back(n);
    for (size_t n : lengths) {
        auto r = parseBytes(std::vector<uint8_t>(full.begin(), full.begin() + n));
        if (r.ok()) {
            ++successes;
            continue;
        }
        ++failures;
        QVERIFY(!r.error().message.empty());
        QVERIFY(r.error().code == model::ErrorCode::Truncated || r.error().code == model::ErrorCode::InvalidInput);
    }
    // The section header table is at the end of a GNU ld output: every prefix fails.
    QCOMPARE(successes, size_t(0));
    QCOMPARE(failures, lengths.size());

    auto header = parseBytes(std::vector<uint8_t>(full.begin(), full.begin() + 40));
    QCOMPARE(QString::fromStdString(header.error().message),
        QString("ELF file truncated in its header (40 bytes, header needs 64)"));
    QCOMPARE(header.error().code, model::ErrorCode::Truncated);
    auto ident = parseBytes(std::vector<uint8_t>(full.begin(), full.begin() + 10));
    QCOMPARE(
        QString::fromStdString(ident.error().message), QString("ELF file truncated in its identification (10 bytes)"));
    const uint64_t shoff = get64(full, 40);
    const uint16_t shnum = get16(full, 60);
    auto cut = parseBytes(std::vector<uint8_t>(full.begin(), full.end() - 1));
    QCOMPARE(QString::fromStdString(cut.error().message),
        QString("section header table (%1 entries at offset 0x%2) extends past the end of the file (%3 bytes)")
            .arg(shnum)
            .arg(shoff, 0, 16)
            .arg(full.size() - 1));
}

void TestElfFile::garbageSectionHeaders()
{
    const std::vector<uint8_t> full = readFileBytes(fixture("cxx_pie"));
    const uint64_t shoff = get64(full, 40);
    const uint16_t shnum = get16(full, 60);
    QVERIFY(shoff + uint64_t(shnum) * 64 == full.size());
    std::mt19937_64 rng(12345);
    size_t ok = 0, failed = 0;
    for (int round = 0; round < 300; ++round) {
        std::vector<uint8_t> b = full;
        // Garbage over the whole table, over one entry, or over single fields.
        if (round % 3 == 0) {
            for (size_t i = shoff; i < b.size(); ++i)
                b[i] = static_cast<uint8_t>(rng());
        } else if (round % 3 == 1) {
            const size_t e = shoff + (rng() % shnum) * 64;
            for (size_t i = e; i < e + 64; ++i)
                b[i] = static_cast<uint8_t>(rng());
        } else {
            for (int k = 0; k < 4; ++k)
                b[shoff + rng() % (b.size() - shoff)] = static_cast<uint8_t>(rng());
        }
        auto r = parseBytes(std::move(b));
        if (r.ok()) {
            ++ok;
            // Whatever parsed must still be safe to walk.
            for (const ElfSection& s : (*r)->sections())
                (void)(*r)->sectionData(s).size();
            (void)(*r)->buildId();
        } else {
            ++failed;
            QVERIFY(!r.error().message.empty());
        }
    }
    QVERIFY(failed > 100); // garbage over a whole table is always caught
    QVERIFY(ok + failed == 300);

    // Precise messages for precise damage.
    std::vector<uint8_t> b = full;
    put16(b, 62, 200); // e_shstrndx
    auto r = parseBytes(b);
    QCOMPARE(QString::fromStdString(r.error().message),
        QString("section name table index 200 is out of range (%1 sections)").arg(shnum));
    b = full;
    const size_t text = shoff + 15 * 64; // some section in the middle
    put32(b, text, 0x7fffffff); // sh_name
    r = parseBytes(b);
    QVERIFY(QString::fromStdString(r.error().message)
                .startsWith("name of section 15 (offset 2147483647) is outside the section name table ("));
    b = full;
    put64(b, text + 24, 0xfffffffffffff000ull); // sh_offset
    r = parseBytes(b);
    QVERIFY2(QString::fromStdString(r.error().message).startsWith("section 15 (offset 0xfffffffffffff000, size 0x"),
        r.error().message.c_str());
}

void TestElfFile::absurdHeaders()
{
    const std::vector<uint8_t> full = readFileBytes(fixture("cxx_pie"));
    const uint64_t shoff = get64(full, 40);
    std::vector<uint8_t> b = full;
    // Extended numbering with an absurd count in section 0.
    put16(b, 60, 0);
    put64(b, shoff + 32, 0xffffffffull);
    auto r = parseBytes(b);
    QCOMPARE(QString::fromStdString(r.error().message),
        QString("section header table (4294967295 entries at offset 0x%1) extends past the end of the file "
                "(%2 bytes)")
            .arg(shoff, 0, 16)
            .arg(full.size()));
    put64(b, shoff + 32, 0x1ffffffffull);
    r = parseBytes(b);
    QCOMPARE(QString::fromStdString(r.error().message), QString("absurd section count 8589934591"));

    b = full;
    put16(b, 56, 0xfff0); // e_phnum
    r = parseBytes(b);
    QVERIFY2(QString::fromStdString(r.error().message)
                 .startsWith("program header table (65520 entries at offset 0x40) extends past the end of the file"),
        r.error().message.c_str());
    b = full;
    put16(b, 58, 13); // e_shentsize
    r = parseBytes(b);
    QCOMPARE(QString::fromStdString(r.error().message), QString("invalid section header entry size 13"));
    b = full;
    // The third program header is a PT_LOAD in GNU ld's layout: make its file size absurd.
    const size_t ph = 64 + 2 * 56;
    QCOMPARE(b[ph], uint8_t(1));
    put64(b, ph + 32, 0x100000000000ull);
    r = parseBytes(b);
    QVERIFY2(QString::fromStdString(r.error().message).startsWith("program header 2 (offset 0x0, size 0x100000000000)"),
        r.error().message.c_str());
    // A note whose name size runs past its section: no build ID, no crash.
    b = full;
    auto good = parseBytes(full);
    QVERIFY(good.ok());
    const ElfSection* note = (*good)->findSection(".note.gnu.build-id");
    QVERIFY(note);
    put32(b, note->offset, 0xfffffff0u);
    // Also break the PT_NOTE copy of it (the same bytes), so neither path finds the ID.
    r = parseBytes(b);
    QVERIFY(r.ok());
    QCOMPARE((*r)->buildId(), std::string());
}

void TestElfFile::normalizer()
{
    auto pie = ElfFile::open(fixture("cxx_pie").toStdString());
    auto lib = ElfFile::open(fixture("libsfshapes.so").toStdString());
    auto nopie = ElfFile::open(fixture("cxx_nopie").toStdString());
    auto obj = ElfFile::open(fixture("c_object.o").toStdString());
    QVERIFY(pie.ok() && lib.ok() && nopie.ok() && obj.ok());

    const auto exec = [](const ElfFile& e) -> const ElfSegment* {
        for (const ElfSegment& s : e.segments())
            if (s.type == elf::PT_LOAD && (s.flags & elf::PF_X))
                return &s;
        return nullptr;
    };
    const auto rw = [](const ElfFile& e) -> const ElfSegment* {
        for (const ElfSegment& s : e.segments())
            if (s.type == elf::PT_LOAD && (s.flags & elf::PF_W))
                return &s;
        return nullptr;
    };
    const uint64_t page = 4096;
    // The executable segment of a PIE as the kernel maps it.
    {
        const ElfSegment* x = exec(**pie);
        QVERIFY(x);
        const uint64_t base = 0x555555554000;
        const MappingRange m { base + (x->vaddr & ~(page - 1)), base + ((x->vaddr + x->memsz + page - 1) & ~(page - 1)),
            x->offset & ~(page - 1) };
        auto n = AddressNormalizer::create(**pie, m);
        QVERIFY(n.ok());
        QCOMPARE(n->toElfAddress(base + x->vaddr + 0x42), x->vaddr + 0x42);
        QCOMPARE(n->base(), base);
    }
    // A shared library's writable segment, whose p_vaddr - p_offset differs from the text's.
    {
        const ElfSegment* w = rw(**lib);
        QVERIFY(w);
        QVERIFY(w->vaddr != w->offset);
        const uint64_t base = 0x7f1234560000;
        const MappingRange m { base + (w->vaddr & ~(page - 1)), base + ((w->vaddr + w->memsz + page - 1) & ~(page - 1)),
            w->offset & ~(page - 1) };
        auto n = AddressNormalizer::create(**lib, m);
        QVERIFY(n.ok());
        QCOMPARE(n->toElfAddress(base + w->vaddr + 8), w->vaddr + 8);
    }
    // One mapping at offset 0 over the whole library: each address uses its own segment.
    {
        const uint64_t base = 0x7f0000000000;
        auto n = AddressNormalizer::create(**lib, MappingRange { base, base + 0x100000, 0 });
        QVERIFY(n.ok());
        const ElfSegment* x = exec(**lib);
        QCOMPARE(n->toElfAddress(base + x->vaddr + 0x10), x->vaddr + 0x10);
    }
    // Non-PIE: the formula gives base 0.
    {
        const ElfSegment* x = exec(**nopie);
        QVERIFY(x->vaddr >= 0x400000);
        auto n = AddressNormalizer::create(**nopie,
            MappingRange {
                x->vaddr & ~(page - 1), (x->vaddr + x->memsz + page - 1) & ~(page - 1), x->offset & ~(page - 1) });
        QVERIFY(n.ok());
        QCOMPARE(n->base(), uint64_t(0));
        QCOMPARE(n->toElfAddress(x->vaddr + 5), x->vaddr + 5);
    }
    // Addresses that already are file addresses.
    for (uint64_t limit : { uint64_t(0), ~uint64_t(0) }) {
        auto n = AddressNormalizer::create(**pie, MappingRange { 0, limit, 0 });
        QVERIFY(n.ok());
        QCOMPARE(n->toElfAddress(0x1234), uint64_t(0x1234));
    }
    // ET_REL (kernel modules): base = start.
    {
        QCOMPARE((*obj)->type(), ElfType::Relocatable);
        auto n = AddressNormalizer::create(**obj, MappingRange { 0xffffffffc0000000ull, 0xffffffffc0010000ull, 0 });
        QVERIFY(n.ok());
        QCOMPARE(n->toElfAddress(0xffffffffc0000123ull), uint64_t(0x123));
    }
}

void TestElfFile::normalizerWithoutLoadSegments()
{
    // ET_DYN with no PT_LOAD: base = start - offset.
    std::vector<uint8_t> b = readFileBytes(fixture("libsfshapes.so"));
    auto orig = parseBytes(b);
    QVERIFY(orig.ok());
    const uint64_t phoff = get64(b, 32);
    for (size_t i = 0; i < (*orig)->segments().size(); ++i)
        if ((*orig)->segments()[i].type == elf::PT_LOAD)
            put32(b, phoff + i * 56, 0x6474e551); // PT_GNU_STACK: not a load segment
    auto lib = parseBytes(b);
    QVERIFY(lib.ok());
    auto n = AddressNormalizer::create(**lib, MappingRange { 0x7f0000001000, 0x7f0000005000, 0x1000 });
    QVERIFY(n.ok());
    QCOMPARE(n->toElfAddress(0x7f0000001234), uint64_t(0x1234));
    // A core file is not a binary to map addresses into.
    std::vector<uint8_t> core = readFileBytes(fixture("c_pie"));
    put16(core, 16, 4);
    auto c = parseBytes(core);
    QVERIFY(c.ok());
    auto cn = AddressNormalizer::create(**c, MappingRange { 0x1000, 0x2000, 0 });
    QVERIFY(!cn.ok());
    QCOMPARE(QString::fromStdString(cn.error().toString()),
        QString("mem.elf: cannot map addresses into an ELF file of type CORE"));
}

QTEST_GUILESS_MAIN(TestElfFile)
#include "tst_elffile.moc"
