// `symflame lookup` against llvm-symbolizer-19 --obj as the oracle, on the fixture binaries of
// tests/fixtures/symfixtures.cmake (C and C++ PIE and non-PIE, a shared library, Rust): every function entry
// nm lists, sampled addresses inside each function and just outside it, addresses in other number
// bases, unknown addresses, symbol names (with offsets, and unknown ones), empty and malformed
// lines, given on stdin and as arguments, with and without --no-inlines. The LLVM
// layout must be byte-for-byte identical; so must the JSON, except for the three fields the engine
// does not know (StartAddress, StartFileName, Discriminator), which symflame prints as
// llvm-symbolizer prints them when unknown and which are blanked in the oracle's output first.
#include <QByteArray>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include "nmsymbols.h"
#include "processhelpers.h"
#include "symfixturehelpers.h"

#include <set>

using symtest::fixture;
using symtest::missingTool;

namespace {

using RunResult = symflame::testing::ProcessResult;
using symflame::testing::runProcess;

/// Function entries of file (nm; nm -D without a .symtab), three addresses inside each function, its last byte and a
/// few bytes just outside it, as "0x..." lines in nm's order (so not sorted, and with repeats).
QByteArray functionAddressLines(const QString& file, size_t* functions)
{
    using namespace symflame::testing;
    QList<NmSymbol> nm = nmSymbols(file);
    if (nm.isEmpty()) // no .symtab: the dynamic symbols
        nm = nmSymbols(file, NmTable::Dynamic);
    QByteArray lines;
    *functions = 0;
    for (const NmSymbol& f : nm) {
        if (!f.isCode() || f.size == 0)
            continue;
        const quint64 addr = f.address, size = f.size;
        ++*functions;
        for (const quint64 a : { addr, addr + size / 4, addr + size / 2, addr + size * 3 / 4, addr + size - 1,
                                 addr - 1, addr + size, addr + size + 3 })
            lines += "0x" + QByteArray::number(a, 16) + '\n';
    }
    return lines;
}

/// Every symbol name nm lists for file (-D too), some with an offset inside or past the symbol.
QByteArray symbolLines(const QString& file)
{
    using namespace symflame::testing;
    QByteArray lines;
    int n = 0;
    for (const NmTable table : { NmTable::Static, NmTable::Dynamic }) {
        for (const NmSymbol& s : nmSymbols(file, table)) {
            lines += s.name + '\n';
            if (++n % 3 == 0)
                lines += s.name + "+8\n";
            if (n % 7 == 0)
                lines += s.name + "+0x100000\n";
        }
    }
    return lines + "no_such_symbol_anywhere\nno_such_symbol+4\n";
}

/// The oracle's JSON with the fields symflame can't fill set to llvm-symbolizer's "unknown" forms.
QByteArray blankUnknownJsonFields(QByteArray json)
{
    static const QRegularExpression startAddress(QStringLiteral("\"StartAddress\":\"[^\"]*\""));
    static const QRegularExpression startFile(QStringLiteral("\"StartFileName\":\"(?:[^\"\\\\]|\\\\.)*\""));
    static const QRegularExpression discriminator(QStringLiteral("\"Discriminator\":[0-9]+"));
    QString s = QString::fromUtf8(json);
    s.replace(startAddress, QStringLiteral("\"StartAddress\":\"\""));
    s.replace(startFile, QStringLiteral("\"StartFileName\":\"\""));
    s.replace(discriminator, QStringLiteral("\"Discriminator\":0"));
    return s.toUtf8();
}

/// First differing line of two outputs, for the failure message.
QString firstDifference(const QByteArray& want, const QByteArray& got)
{
    const QList<QByteArray> a = want.split('\n'), b = got.split('\n');
    for (qsizetype i = 0; i < std::max(a.size(), b.size()); ++i) {
        const QByteArray x = i < a.size() ? a[i] : QByteArray("<end>");
        const QByteArray y = i < b.size() ? b[i] : QByteArray("<end>");
        if (x != y)
            return QStringLiteral("line %1:\n  llvm-symbolizer: %2\n  symflame:        %3")
                .arg(i + 1)
                .arg(QString::fromUtf8(x.left(400)), QString::fromUtf8(y.left(400)));
    }
    return {};
}

int errorLines(const QByteArray& err)
{
    return int(err.count(": error: "));
}

} // namespace

class TestLookup : public QObject {
    Q_OBJECT

private slots:
    void matchesLlvmSymbolizer_data();
    void matchesLlvmSymbolizer();
    void separateDebugInfo_data();
    void separateDebugInfo();
    void addressArguments();
    void noDemangle();
    void badObject();
};

void TestLookup::matchesLlvmSymbolizer_data()
{
    QTest::addColumn<QString>("binary");
    QTest::addColumn<QString>("style");
    QTest::addColumn<QString>("inlining"); // --inlines or --no-inlines
    for (const char* name : { "cxx_pie", "cxx_nopie", "c_pie", "c_nopie", "libsfshapes.so", "cxx_dwarf4",
                              "cxx_symtab", "libsfshapes_dynsym.so", "rust_prog" })
        for (const char* style : { "LLVM", "JSON" })
            for (const char* inlining : { "--inlines", "--no-inlines" })
                QTest::newRow(qPrintable(QStringLiteral("%1 %2 %3").arg(name, style, inlining)))
                    << QString(name) << QString(style) << QString(inlining);
}

void TestLookup::matchesLlvmSymbolizer()
{
    QFETCH(QString, binary);
    QFETCH(QString, style);
    QFETCH(QString, inlining);
    const QString path = fixture(binary);
    if (const QString why = missingTool(path); !why.isEmpty())
        QSKIP(qPrintable(why));
    size_t functions = 0;
    QByteArray input = functionAddressLines(path, &functions);
    QVERIFY2(functions >= 5, qPrintable(QStringLiteral("nm lists only %1 functions in %2").arg(functions).arg(path)));
    // Other ways of writing addresses, addresses in no function, and lines llvm-symbolizer rejects
    // (an error on stderr, the unknown answer on stdout).
    const QByteArray firstHex = input.left(input.indexOf('\n')).mid(2);
    const quint64 first = firstHex.toULongLong(nullptr, 16);
    input += "0X" + firstHex.toUpper() + '\n';
    input += QByteArray::number(first) + '\n'; // decimal
    input += '0' + QByteArray::number(first, 8) + '\n'; // octal
    input += "0b" + QByteArray::number(first, 2) + '\n';
    input += "CODE 0x" + firstHex + '\n';
    input += "  0x" + firstHex + "   trailing words ignored\n";
    input += "0x" + firstHex + "\r\n";
    input += "0x0\n0xfffffffffff0\n0x7fffffffffffffff\n";
    input += "\n"; // empty line
    input += "   \n"; // no address
    input += "0x" + firstHex + "zz\n"; // not a number
    input += "12abc\n";
    input += "0x\n";
    input += "0x1ffffffffffffffff\n"; // does not fit in 64 bits
    input += "0x" + firstHex + "\tx\n"; // a tab does not end the address
    input += "FILE:" + path.toUtf8() + " 0x" + firstHex + '\n'; // --obj already names the file
    input += "FILE:\n";
    input += "BUILDID:\n";
    input += symbolLines(path);
    input += "0x" + firstHex; // no final newline

    const QStringList args { "--obj=" + path, "--output-style=" + style, inlining };
    const RunResult want = runProcess(QStringLiteral(SYMFLAME_LLVM_SYMBOLIZER), args, input);
    const RunResult got = runProcess(QStringLiteral(SYMFLAME_EXECUTABLE), QStringList { "lookup" } + args, input);
    QCOMPARE(want.exitCode, 0);
    QVERIFY2(got.exitCode == 0, got.err.constData());
    const QByteArray wantOut = style == "JSON" ? blankUnknownJsonFields(want.out) : want.out;
    QVERIFY2(!wantOut.isEmpty(), "llvm-symbolizer printed nothing");
    QVERIFY2(got.out == wantOut, qPrintable(firstDifference(wantOut, got.out)));
    QCOMPARE(errorLines(got.err), errorLines(want.err));
    QVERIFY(errorLines(got.err) >= 9);
    qInfo("%s: %zu functions, %d input lines, %lld output bytes identical", qPrintable(binary), functions,
          int(input.count('\n')) + 1, qlonglong(got.out.size()));
}

void TestLookup::separateDebugInfo_data()
{
    // The binary, the file nm reads the functions from (the unstripped original), the debug
    // directory (llvm-symbolizer's --debug-file-directory, symflame's --debug-dir) or "".
    QTest::addColumn<QString>("binary");
    QTest::addColumn<QString>("original");
    QTest::addColumn<QString>("debugDir");
    QTest::newRow("build-id directory") << "buildid/cxx_buildid" << "cxx_buildid_full" << "buildid/debug";
    QTest::newRow("debuglink beside") << "debuglink/cxx_debuglink" << "cxx_pie" << "";
    QTest::newRow("debuglink in .debug/") << "debuglink2/c_debuglink" << "c_pie" << "";
    QTest::newRow("split dwarf .dwo") << "split/cxx_split" << "split/cxx_split" << "";
    QTest::newRow("split dwarf .dwp") << "split_dwp/c_split_dwp" << "split_dwp/c_split_dwp" << "";
    QTest::newRow("zlib sections") << "cxx_zlib" << "cxx_pie" << "";
    QTest::newRow("zstd sections") << "cxx_zstd" << "cxx_pie" << "";
}

void TestLookup::separateDebugInfo()
{
    QFETCH(QString, binary);
    QFETCH(QString, original);
    QFETCH(QString, debugDir);
    size_t functions = 0;
    const QByteArray input = functionAddressLines(fixture(original), &functions);
    QVERIFY(functions >= 5);
    for (const char* style : { "LLVM", "JSON" }) {
        QStringList llvmArgs { "--obj=" + fixture(binary), QStringLiteral("--output-style=%1").arg(style) };
        QStringList ourArgs = QStringList { "lookup" } + llvmArgs;
        if (!debugDir.isEmpty()) {
            llvmArgs << "--debug-file-directory=" + fixture(debugDir);
            ourArgs << "--debug-dir" << fixture(debugDir);
        }
        const RunResult want = runProcess(QStringLiteral(SYMFLAME_LLVM_SYMBOLIZER), llvmArgs, input);
        const RunResult got = runProcess(QStringLiteral(SYMFLAME_EXECUTABLE), ourArgs, input);
        QVERIFY2(got.exitCode == 0, got.err.constData());
        const QByteArray wantOut = QByteArray(style) == "JSON" ? blankUnknownJsonFields(want.out) : want.out;
        // The oracle itself found lines (the debug info was used).
        static const QRegularExpression withLine(QStringLiteral("\\.(c|cpp):[1-9]|\"Line\":[1-9]"));
        QVERIFY(QString::fromUtf8(wantOut).contains(withLine));
        QVERIFY2(got.out == wantOut, qPrintable(firstDifference(wantOut, got.out)));
    }
}

void TestLookup::addressArguments()
{
    const QString path = fixture(QStringLiteral("cxx_pie"));
    size_t functions = 0;
    const QList<QByteArray> lines = functionAddressLines(path, &functions).split('\n');
    QStringList addresses;
    for (qsizetype i = 0; i < lines.size() && addresses.size() < 40; i += 3)
        if (!lines[i].isEmpty())
            addresses << QString::fromUtf8(lines[i]);
    addresses << QStringLiteral("0xzz") << QStringLiteral("4096");
    for (const char* style : { "LLVM", "JSON" }) {
        const QStringList args = QStringList { "--obj", path, QStringLiteral("--output-style=%1").arg(style) } + addresses;
        const RunResult want = runProcess(QStringLiteral(SYMFLAME_LLVM_SYMBOLIZER), args);
        // With addresses on the command line, stdin is not read.
        const RunResult got = runProcess(QStringLiteral(SYMFLAME_EXECUTABLE), QStringList { "lookup" } + args, "0x0\n");
        QCOMPARE(got.exitCode, 0);
        const QByteArray wantOut = QByteArray(style) == "JSON" ? blankUnknownJsonFields(want.out) : want.out;
        QVERIFY2(got.out == wantOut, qPrintable(firstDifference(wantOut, got.out)));
    }
}

void TestLookup::noDemangle()
{
    const QString path = fixture(QStringLiteral("cxx_pie"));
    size_t functions = 0;
    const QByteArray input = functionAddressLines(path, &functions);
    const QStringList args { "--obj=" + path, "--no-demangle" };
    const RunResult want = runProcess(QStringLiteral(SYMFLAME_LLVM_SYMBOLIZER), args, input);
    const RunResult got = runProcess(QStringLiteral(SYMFLAME_EXECUTABLE), QStringList { "lookup" } + args, input);
    QCOMPARE(got.exitCode, 0);
    QVERIFY(want.out.contains("\n_ZN"));
    QVERIFY2(got.out == want.out, qPrintable(firstDifference(want.out, got.out)));
}

void TestLookup::badObject()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString missing = dir.filePath(QStringLiteral("no-such-binary"));
    const QString text = dir.filePath(QStringLiteral("not-elf.txt"));
    {
        QFile f(text);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("this is not an ELF file\n");
    }
    for (const QString& obj : { missing, text }) {
        const RunResult r = runProcess(QStringLiteral(SYMFLAME_EXECUTABLE), { "lookup", "--obj", obj }, "0x1000\n");
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.out.isEmpty());
        QVERIFY2(r.err.startsWith("symflame: " + obj.toUtf8() + ": ") && r.err.count('\n') == 1, r.err.constData());
    }
    const RunResult noObj = runProcess(QStringLiteral(SYMFLAME_EXECUTABLE), { "lookup", "0x1000" });
    QCOMPARE(noObj.exitCode, 64);
    QVERIFY2(noObj.err.contains("--obj"), noObj.err.constData());
    const RunResult badStyle = runProcess(
        QStringLiteral(SYMFLAME_EXECUTABLE), { "lookup", "--obj", fixture("c_pie"), "--output-style=GNU", "0x0" });
    QCOMPARE(badStyle.exitCode, 64);
}

QTEST_GUILESS_MAIN(TestLookup)
#include "tst_lookup.moc"
