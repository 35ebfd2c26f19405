// The disassembler (symbolize/object/disassembler) against llvm-objdump-19 on the fixture
// binaries of three machines (x86-64 PIE and non-PIE, a shared library, i386, AArch64): every
// instruction of every function of their symbol tables has the same address, size and text,
// and every direct branch or call the same target; Intel syntax too. Bad input: an empty range,
// a range larger than any function, an address in no executable section, a debug file whose
// code has no bytes, a binary cut short inside its text, an unknown machine: each a clear
// error, never a crash.
#include "symfixturehelpers.h"
#include "processhelpers.h"

#include "symbolize/object/disassembler.h"
#include "symbolize/object/elffile.h"
#include "symbolize/object/symboltable.h"

#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <map>

using namespace symflame;
using namespace symflame::symbolize;
using symtest::fixture;

namespace {

struct ObjdumpLine {
    std::string text;
    std::optional<uint64_t> target;
};

// llvm-objdump's text of an instruction, as Disassembler writes it: its comment ("# 0x14b4
// <main>") and symbolic target ("<fib+0x10>") left out, whitespace runs made one space; the
// target of a direct branch read from the operand before it.
ObjdumpLine normalized(const QString& raw)
{
    QString t = raw;
    if (const int hash = t.indexOf(QLatin1String(" # ")); hash >= 0)
        t.truncate(hash);
    if (const int hash = t.indexOf(QLatin1String("\t# ")); hash >= 0)
        t.truncate(hash);
    if (const int hash = t.indexOf(QLatin1String(" // ")); hash >= 0) // AArch64 comments
        t.truncate(hash);
    if (const int hash = t.indexOf(QLatin1String("\t// ")); hash >= 0)
        t.truncate(hash);
    static const QRegularExpression symbolic(QStringLiteral("\\s*<[^<>]*>$"));
    const bool hadSymbol = symbolic.match(t).hasMatch();
    t.remove(symbolic);
    t = t.simplified();
    ObjdumpLine out { t.toStdString(), std::nullopt };
    if (hadSymbol) {
        static const QRegularExpression lastHex(QStringLiteral("0x([0-9a-f]+)$"));
        if (const auto m = lastHex.match(t); m.hasMatch())
            out.target = m.captured(1).toULongLong(nullptr, 16);
    }
    return out;
}

// address -> instruction, for the whole file, from `llvm-objdump-19 -d --no-show-raw-insn`.
std::map<uint64_t, ObjdumpLine> objdump(const QString& file, const QStringList& extra = {})
{
    const QByteArray out = symflame::testing::runForOutput(QStringLiteral("llvm-objdump-19"),
        QStringList { "-d", "--no-show-raw-insn" } + extra + QStringList { file });
    std::map<uint64_t, ObjdumpLine> lines;
    static const QRegularExpression row(QStringLiteral("^\\s*([0-9a-f]+):\\s+(.*)$"));
    for (const QByteArray& raw : out.split('\n')) {
        const auto m = row.match(QString::fromUtf8(raw));
        if (m.hasMatch())
            lines[m.captured(1).toULongLong(nullptr, 16)] = normalized(m.captured(2));
    }
    return lines;
}

} // namespace

class TestDisassembler : public QObject {
    Q_OBJECT

private slots:
    void sameAsLlvmObjdump_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<bool>("intel");
        QTest::addColumn<int>("minFunctions"); // what the fixture has at least
        QTest::newRow("x86-64 PIE") << fixture("cxx_pie") << false << 10;
        QTest::newRow("x86-64 non-PIE") << fixture("cxx_nopie") << false << 10;
        QTest::newRow("x86-64 shared library") << fixture("libsfshapes.so") << false << 5;
        QTest::newRow("x86-64 Intel syntax") << fixture("cxx_pie") << true << 10;
        QTest::newRow("i386") << fixture("fs_i386") << false << 1;
        QTest::newRow("AArch64") << fixture("fs_aarch64") << false << 1;
    }
    void sameAsLlvmObjdump()
    {
        QFETCH(QString, file);
        QFETCH(bool, intel);
        QFETCH(int, minFunctions);
        auto elf = ElfFile::open(file.toStdString());
        QVERIFY2(elf, qPrintable(file));
        auto disassembler = Disassembler::create((*elf)->machine(), intel ? AsmSyntax::Intel : AsmSyntax::Att);
        QVERIFY2(disassembler, disassembler ? "" : disassembler.error().message.c_str());
        auto table = SymbolTable::load(*elf, SymbolTable::Kind::Static);
        QVERIFY(table && !table->empty());
        const auto reference = objdump(file, intel ? QStringList { "-M", "intel" } : QStringList {});
        QVERIFY(reference.size() > 100);
        size_t functions = 0, instructions = 0, targets = 0;
        for (const SymbolTable::Symbol& sym : table->symbols()) {
            if (sym.size == 0)
                continue;
            auto code = disassembleRange(**elf, sym.address, sym.address + sym.size, **disassembler);
            if (!code) // not in an executable section (data symbols)
                continue;
            ++functions;
            for (const Instruction& ins : *code) {
                const auto it = reference.find(ins.address);
                QVERIFY2(it != reference.end(),
                    qPrintable(QString("%1+%2: no llvm-objdump instruction at %3")
                            .arg(QString::fromUtf8(sym.name.data(), int(sym.name.size())))
                            .arg(ins.address - sym.address)
                            .arg(ins.address, 0, 16)));
                QCOMPARE(QString::fromStdString(ins.text), QString::fromStdString(it->second.text));
                if (it->second.target && (ins.isCall || ins.isBranch)) { // not adr's and lea's
                    QVERIFY2(ins.target && *ins.target == *it->second.target, ins.text.c_str());
                    ++targets;
                }
                const auto next = std::next(it);
                if (next != reference.end() && &ins != &code->back())
                    QCOMPARE(ins.address + ins.size, next->first);
                ++instructions;
            }
        }
        QVERIFY2(functions >= size_t(minFunctions) && instructions >= 20 && targets >= 2,
            qPrintable(QString("%1 functions, %2 instructions, %3 targets").arg(functions).arg(instructions).arg(targets)));
        qInfo("%zu functions, %zu instructions, %zu branch and call targets: equal", functions, instructions, targets);
    }

    void badInput()
    {
        auto elf = ElfFile::open(fixture("cxx_pie").toStdString());
        QVERIFY(elf);
        auto d = Disassembler::create((*elf)->machine());
        QVERIFY(d);
        const ElfSection* text = (*elf)->findSection(".text");
        QVERIFY(text);
        const auto expectError = [&](uint64_t start, uint64_t end, const char* words) {
            auto r = disassembleRange(**elf, start, end, **d);
            QVERIFY2(!r, "no error");
            QVERIFY2(r.error().message.find(words) != std::string::npos, r.error().message.c_str());
        };
        expectError(text->addr, text->addr, "the range is empty");
        expectError(text->addr, text->addr + (uint64_t(1) << 30), "a function of 1073741824 bytes is larger than symflame disassembles");
        expectError(0x7fff00000000, 0x7fff00000010, "is in no executable section");
        expectError(text->addr + text->size - 4, text->addr + text->size + 16, "ends past its section");
        // A separate debug file: its code sections hold no bytes.
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString debug = tmp.filePath("cxx_pie.debug");
        QVERIFY(symflame::testing::runProcess("objcopy", { "--only-keep-debug", fixture("cxx_pie"), debug }).ok());
        auto debugElf = ElfFile::open(debug.toStdString());
        QVERIFY(debugElf);
        auto r = disassembleRange(**debugElf, text->addr, text->addr + 16, **d);
        QVERIFY(!r);
        QVERIFY2(r.error().message.find("has no bytes in the file") != std::string::npos, r.error().message.c_str());
        // A binary cut short inside its text: not opened, or its text refused; never read past the end.
        QFile whole(fixture("cxx_pie"));
        QVERIFY(whole.open(QIODevice::ReadOnly));
        const QByteArray bytes = whole.read(qint64(text->offset + text->size / 2));
        const QString cut = tmp.filePath("cut");
        QFile out(cut);
        QVERIFY(out.open(QIODevice::WriteOnly) && out.write(bytes) == bytes.size());
        out.close();
        auto cutElf = ElfFile::open(cut.toStdString());
        if (cutElf) {
            auto c = disassembleRange(**cutElf, text->addr, text->addr + text->size, **d);
            QVERIFY(!c);
            QVERIFY2(!c.error().message.empty(), "no reason");
        } else {
            QVERIFY(!cutElf.error().message.empty());
        }
        // An unknown machine.
        auto mips = Disassembler::create(elf::EM_MIPS);
        QVERIFY(!mips);
        QVERIFY2(mips.error().message.find("no disassembler for ELF machine 8") != std::string::npos, mips.error().message.c_str());
        // Bytes that decode to nothing: one "(bad)" byte each, and the disassembly goes on.
        const uint8_t junk[] = { 0x0f, 0xff, 0x90 };
        const auto ins = (*d)->disassemble(junk, 0x1000);
        QVERIFY(!ins.empty());
        QVERIFY(!ins.front().valid);
        QCOMPARE(ins.front().text, std::string("(bad)"));
        QCOMPARE(ins.back().text, std::string("nop"));
    }
};

QTEST_GUILESS_MAIN(TestDisassembler)
#include "tst_disassembler.moc"
