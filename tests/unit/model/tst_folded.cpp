// Tests of folded stacks: reading (frames with spaces, trailing whitespace, errors with line
// numbers) and collapsing (merging, sorting, zero values, inline chains expanded).
#include "calltreetesthelpers.h"

#include "model/analysis/collapse.h"
#include "model/io/folded.h"

#include <QObject>
#include <QTemporaryDir>
#include <QTest>

#include <map>

using namespace symflame::model;
using symflame::testing::inlineProfile;
using symflame::testing::profileFromFolded;

namespace {

Result<Profile> read(const QByteArray& text)
{
    return readFolded(
        std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.constData()), size_t(text.size())));
}

QByteArray collapse(const Profile& p, size_t type = 0)
{
    const SymbolTable symbols = SymbolTable::build(p);
    return QByteArray::fromStdString(collapseStacks(p, symbols, type));
}

} // namespace

class TestFolded : public QObject {
    Q_OBJECT
private slots:
    void roundTrip_data();
    void roundTrip();
    void readStructure();
    void readErrors_data();
    void readErrors();
    void sumsWrapAsGoDoes();
    void collapseInlineChain();
    void collapseMergesEqualNames();
    void matchesPprofTraces_data();
    void matchesPprofTraces();
};

void TestFolded::roundTrip_data()
{
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<QByteArray>("expected");

    QTest::addRow("identical stacks merge") << QByteArray("a;b 1\na;b 2\n") << QByteArray("a;b 3\n");
    QTest::addRow("lines sorted") << QByteArray("b;c 1\na;z 2\na 3\na;b 4\n")
                                  << QByteArray("a 3\na;b 4\na;z 2\nb;c 1\n");
    // Byte order, not tree order: ' ' sorts before ';'.
    QTest::addRow("sorted as text") << QByteArray("a;x 1\na b 2\n") << QByteArray("a b 2\na;x 1\n");
    QTest::addRow("own line before a longer sibling")
        << QByteArray("a;x 1\na b 5\na 3\n") << QByteArray("a 3\na b 5\na;x 1\n");
    QTest::addRow("deep tree already in order")
        << QByteArray("m;b;c 1\nm;a 2\nm 4\nm;b 3\nn;z;y 5\n") << QByteArray("m 4\nm;a 2\nm;b 3\nm;b;c 1\nn;z;y 5\n");
    QTest::addRow("zero value left out") << QByteArray("a;b 0\na;c 5\nd 0\n") << QByteArray("a;c 5\n");
    QTest::addRow("values that cancel left out") << QByteArray("a;b 2\na;b -2\nc 1\n") << QByteArray("c 1\n");
    QTest::addRow("trailing whitespace and CRLF") << QByteArray("a;b 3  \r\nc 1\t\n\n") << QByteArray("a;b 3\nc 1\n");
    QTest::addRow("frames with spaces") << QByteArray("main;operator new(unsigned long) 7\n")
                                        << QByteArray("main;operator new(unsigned long) 7\n");
    QTest::addRow("space before value") << QByteArray("a;b   4\n") << QByteArray("a;b 4\n");
    QTest::addRow("no final newline") << QByteArray("a 1\nb 2") << QByteArray("a 1\nb 2\n");
    QTest::addRow("large value") << QByteArray("a 9000000000000000000\n") << QByteArray("a 9000000000000000000\n");
    QTest::addRow("empty input") << QByteArray("") << QByteArray("");
    QTest::addRow("recursion") << QByteArray("a;a;a 1\na;a 2\n") << QByteArray("a;a 2\na;a;a 1\n");
}

void TestFolded::roundTrip()
{
    QFETCH(QByteArray, input);
    QFETCH(QByteArray, expected);
    const auto r = read(input);
    QVERIFY2(r.ok(), r.ok() ? "" : r.error().toString().c_str());
    QCOMPARE(collapse(*r), expected);
}

void TestFolded::readStructure()
{
    const auto r = read("main;a;b 3\nmain;a 2\nmain;a;b 1\n");
    QVERIFY(r.ok());
    const Profile& p = *r;
    QCOMPARE(p.sampleTypes.size(), size_t(1));
    QCOMPARE(p.str(p.sampleTypes[0].type), std::string_view("samples"));
    QCOMPARE(p.str(p.sampleTypes[0].unit), std::string_view("count"));
    QCOMPARE(p.sampleCount(), size_t(3));
    QCOMPARE(p.stackCount(), size_t(2)); // two distinct stacks
    QCOMPARE(p.functions.size(), size_t(3));
    QCOMPARE(p.locations.size(), size_t(3));
    QCOMPARE(p.totalValue(0), int64_t(6));
    // Leaf first: the first sample's stack is b, a, main.
    const auto s = p.sampleStack(0);
    QCOMPARE(s.size(), size_t(3));
    const auto nameOf
        = [&](LocationId l) { return p.str(p.functions[p.linesOf(p.locations[l.index()])[0].function.index()].name); };
    QCOMPARE(nameOf(s[0]), std::string_view("b"));
    QCOMPARE(nameOf(s[2]), std::string_view("main"));
    QCOMPARE(p.sampleStacks[0], p.sampleStacks[2]);
    for (const Location& l : p.locations)
        QCOMPARE(l.status, FrameStatus::Symbolized);
}

void TestFolded::readErrors_data()
{
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<QString>("message");

    QTest::addRow("no value") << QByteArray("a;b\n") << "line 1: missing sample value after the stack";
    QTest::addRow("not a number") << QByteArray("a 1\n\na;b x1\n") << "line 3: invalid sample value \"x1\"";
    QTest::addRow("number with junk") << QByteArray("a 12ms\n") << "line 1: invalid sample value \"12ms\"";
    QTest::addRow("out of range") << QByteArray("a 99999999999999999999\n")
                                  << "line 1: sample value \"99999999999999999999\" is out of range";
    QTest::addRow("empty frame") << QByteArray("a 1\nb 2\na;;b 1\n") << "line 3: empty frame name";
    QTest::addRow("trailing semicolon") << QByteArray("a; 1\n") << "line 1: empty frame name";
    QTest::addRow("no stack") << QByteArray("   5\n") << "line 1: missing stack before the sample value";
    QTest::addRow("line numbers count CRLF lines")
        << QByteArray("a 1\r\nb 2\r\nc\r\n") << "line 3: missing sample value after the stack";
}

// Each value fits in an int64, their sum does not (found by fuzz_folded, kept in
// fuzz/regressions/folded): sums wrap around as Go's int64 do in go tool pprof, rather than
// being undefined behaviour (model/ is built with -fwrapv).
void TestFolded::sumsWrapAsGoDoes()
{
    const int64_t a = 7777737777777777777, b = 3777777777777777777;
    auto p = read(QByteArray("x;a 7777737777777777777\nx;b 3777777777777777777\n"));
    QVERIFY(p);
    const SymbolTable symbols = SymbolTable::build(*p);
    const CallTree tree = CallTree::build(*p, symbols, 0);
    const int64_t wrapped = int64_t(uint64_t(a) + uint64_t(b));
    QVERIFY(wrapped < 0);
    QCOMPARE(tree.node(tree.root()).total, wrapped);
    QCOMPARE(p->totalValue(0), wrapped);
}

void TestFolded::readErrors()
{
    QFETCH(QByteArray, input);
    QFETCH(QString, message);
    const auto r = read(input);
    QVERIFY(!r.ok());
    QCOMPARE(QString::fromStdString(r.error().message), message);
    QCOMPARE(r.error().code, ErrorCode::InvalidInput);
    QVERIFY(r.error().path.empty());
}

void TestFolded::collapseInlineChain()
{
    // The caller (physical frame) comes before the function inlined into it.
    const Profile p = inlineProfile();
    QCOMPARE(collapse(p, 0), QByteArray("main 1\nmain;outer;inner 3\n"));
    QCOMPARE(collapse(p, 1), QByteArray("main 1000\nmain;outer;inner 3000\n"));
}

void TestFolded::collapseMergesEqualNames()
{
    // Two distinct unsymbolized symbols that print the same ("libx.so+0x10" from two mappings
    // of files with the same base name) give one merged line.
    Profile p;
    p.sampleTypes.push_back({ p.strings.intern("samples"), p.strings.intern("count") });
    for (const char* file : { "/a/libx.so", "/b/libx.so" }) {
        Mapping m;
        m.start = 0x1000;
        m.limit = 0x2000;
        m.file = p.strings.intern(file);
        p.mappings.push_back(m);
        Location l;
        l.mapping = MappingId(p.mappings.size() - 1);
        l.address = 0x1010;
        p.locations.push_back(l);
    }
    const int64_t two = 2, three = 3;
    const LocationId s1[] = { LocationId(0u) };
    const LocationId s2[] = { LocationId(1u) };
    p.addSample(p.internStack(s1), std::span(&two, 1));
    p.addSample(p.internStack(s2), std::span(&three, 1));
    p.updateFrameStatuses();
    QCOMPARE(SymbolTable::build(p).size(), size_t(2));
    QCOMPARE(collapse(p), QByteArray("libx.so+0x10 5\n"));
}

namespace {

/// Deterministic folded text: `lines` stacks of depth 1..maxDepth over a small pool of names
/// (so stacks repeat, recurse and share prefixes), values 0..9.
QByteArray randomFolded(int lines, int maxDepth, uint32_t seed)
{
    static const char* const names[] = { "main", "run", "loop", "parse", "std::vector<int>::push_back(int const&)",
        "malloc", "memcpy", "hash", "a", "a b", "lookup", "free" };
    uint64_t x = seed;
    auto next = [&](uint32_t n) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        return uint32_t((x >> 33) % n);
    };
    QByteArray out;
    for (int i = 0; i < lines; ++i) {
        const uint32_t depth = 1 + next(uint32_t(maxDepth));
        for (uint32_t d = 0; d < depth; ++d) {
            if (d)
                out += ';';
            out += names[d == 0 ? next(2) : next(12)];
        }
        out += ' ' + QByteArray::number(next(10)) + '\n';
    }
    return out;
}

} // namespace

void TestFolded::matchesPprofTraces_data()
{
    QTest::addColumn<QByteArray>("folded"); // empty: the inline profile
    QTest::addRow("random shallow") << randomFolded(300, 4, 1);
    QTest::addRow("random deep") << randomFolded(2000, 40, 2);
    QTest::addRow("inline chain") << QByteArray();
}

void TestFolded::matchesPprofTraces()
{
    // The oracle: `go tool pprof -traces` prints every sample's stack, leaf first; folding
    // those ourselves must give what collapseStacks gives.
    QFETCH(QByteArray, folded);
    const Profile p = folded.isEmpty() ? inlineProfile() : profileFromFolded(folded);
    QVERIFY(p.sampleCount() > 0);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QString error;
    const QString out = symflame::testing::runPprof(
        p, dir.path(), { QStringLiteral("-traces"), QStringLiteral("-sample_index=0") }, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));

    std::map<QByteArray, qint64> stacks;
    QStringList frames;
    qint64 value = 0;
    bool inBlock = false;
    auto flush = [&] {
        if (!inBlock || frames.isEmpty())
            return;
        QStringList rootFirst(frames.rbegin(), frames.rend());
        stacks[rootFirst.join(QLatin1Char(';')).toUtf8()] += value;
        frames.clear();
    };
    for (const QString& line : out.split(QLatin1Char('\n'))) {
        if (line.startsWith(QLatin1String("-----------+"))) {
            flush();
            inBlock = true;
            continue;
        }
        if (!inBlock || line.trimmed().isEmpty())
            continue;
        // "%10s   name" for the first frame (the value), 13 spaces before the others.
        const QString valuePart = line.left(10).trimmed();
        QString name = line.mid(13);
        if (name.endsWith(QLatin1String(" (inline)")))
            name.chop(9);
        if (!valuePart.isEmpty()) {
            bool isNumber = false;
            value = valuePart.toLongLong(&isNumber);
            QVERIFY2(isNumber, qPrintable(line));
        }
        frames << name;
    }
    flush();
    QByteArray expected;
    for (const auto& [stack, v] : stacks)
        if (v != 0)
            expected += stack + ' ' + QByteArray::number(v) + '\n';
    QVERIFY(!expected.isEmpty());
    QCOMPARE(collapse(p), expected);
}

QTEST_GUILESS_MAIN(TestFolded)
#include "tst_folded.moc"
