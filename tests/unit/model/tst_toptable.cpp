// Tests of topFunctions: flat and cum from folded stacks (recursion counted once per sample,
// inline frames as their own entries), the sort order, and the same tables compared with what
// `go tool pprof -top` prints for the same profiles written as pprof.
#include "calltreetesthelpers.h"

#include "model/analysis/toptable.h"

#include <QObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <map>
#include <set>

using namespace symflame::model;
using symflame::testing::inlineProfile;
using symflame::testing::profileFromFolded;

namespace {

/// "name flat cum" per entry, in table order.
QStringList printTop(const Profile& p, const SymbolTable& symbols, size_t type)
{
    QStringList out;
    for (const TopEntry& e : topFunctions(p, symbols, type))
        out << QStringLiteral("%1 %2 %3")
                   .arg(QString::fromStdString(symbols.displayName(e.symbol)))
                   .arg(e.flat)
                   .arg(e.cum);
    return out;
}

} // namespace

class TestTopTable : public QObject {
    Q_OBJECT
private slots:
    void table_data();
    void table();
    void inlineFrames();
    void sampleTypes();
    void matchesPprof_data();
    void matchesPprof();
    void bigProfileCountedInParts();
};

void TestTopTable::table_data()
{
    QTest::addColumn<QByteArray>("folded");
    QTest::addColumn<QStringList>("expected");

    QTest::addRow("flat and cum") << QByteArray("main;a;b 3\nmain;a 2\nmain;c 2\n")
                                  << QStringList { "b 3 3", "a 2 5", "c 2 2", "main 0 7" };
    QTest::addRow("recursion counts once") << QByteArray("a;a;a 1\n") << QStringList { "a 1 1" };
    QTest::addRow("recursion through another frame")
        << QByteArray("main;f;g;f;g 4\nmain;f 1\n") << QStringList { "g 4 4", "f 1 5", "main 0 5" };
    // Equal flat: pprof orders by name before cum (zzz has the larger cum but comes last).
    QTest::addRow("equal flat sorts by name")
        << QByteArray("x;zzz 5\nzzz;y 5\naaa 5\n") << QStringList { "aaa 5 5", "y 5 5", "zzz 5 10", "x 0 5" };
    QTest::addRow("zero flat sorts by name")
        << QByteArray("m;k;leaf 2\nm;j;leaf 1\n") << QStringList { "leaf 3 3", "j 0 1", "k 0 2", "m 0 3" };
    QTest::addRow("zero values leave no entries") << QByteArray("a;b 0\nc 1\n") << QStringList { "c 1 1" };
    QTest::addRow("negative values sort by magnitude")
        << QByteArray("a 3\nb -5\nc 1\n") << QStringList { "b -5 -5", "a 3 3", "c 1 1" };
    QTest::addRow("empty") << QByteArray("") << QStringList {};
}

void TestTopTable::table()
{
    QFETCH(QByteArray, folded);
    QFETCH(QStringList, expected);
    bool ok = false;
    const Profile p = profileFromFolded(folded, &ok);
    QVERIFY(ok);
    const SymbolTable symbols = SymbolTable::build(p);
    QCOMPARE(printTop(p, symbols, 0), expected);
}

void TestTopTable::inlineFrames()
{
    // Flat goes to the innermost inline frame of the leaf location; the physical frame it is
    // inlined into only gets cum.
    const Profile p = inlineProfile();
    const SymbolTable symbols = SymbolTable::build(p);
    QCOMPARE(printTop(p, symbols, 0), (QStringList { "inner 3 3", "main 1 4", "outer 0 3" }));
}

void TestTopTable::sampleTypes()
{
    const Profile p = inlineProfile();
    const SymbolTable symbols = SymbolTable::build(p);
    QCOMPARE(printTop(p, symbols, 1), (QStringList { "inner 3000 3000", "main 1000 4000", "outer 0 3000" }));
    QVERIFY(topFunctions(p, symbols, 2).empty());
}

void TestTopTable::matchesPprof_data()
{
    QTest::addColumn<QByteArray>("folded"); // empty: the hand-built profile named by "built"
    QTest::addColumn<QString>("built");
    QTest::addColumn<int>("sampleType");
    QTest::addRow("flat and cum") << QByteArray("main;a;b 3\nmain;a 2\nmain;c 2\n") << QString() << 0;
    QTest::addRow("equal flat, different cum") << QByteArray("x;zzz 5\nzzz;y 5\naaa 5\n") << QString() << 0;
    QTest::addRow("recursion") << QByteArray("main;f;g;f;g 4\nmain;f 1\na;a;a 2\n") << QString() << 0;
    QTest::addRow("many ties") << QByteArray("m;e 1\nm;d 1\nm;c 1\nm;b;c 1\nm;a;d 1\nq;r;e 2\nq 1\n") << QString() << 0;
    QTest::addRow("negative values") << QByteArray("m;a 3\nm;b -5\nm;c 1\n") << QString() << 0;
    QTest::addRow("inline chain") << QByteArray() << QStringLiteral("inline") << 0;
    QTest::addRow("inline chain, nanoseconds") << QByteArray() << QStringLiteral("inline") << 1;
    QTest::addRow("same name, two functions") << QByteArray() << QStringLiteral("sameName") << 0;
}

namespace {

/// Two distinct functions named "work" (files a.c and b.c) called from main: pprof shows one
/// "work" line at its default (functions) granularity.
Profile sameNameProfile()
{
    Profile p;
    p.sampleTypes.push_back({ p.strings.intern("samples"), p.strings.intern("count") });
    Mapping m;
    m.start = 0x400000;
    m.limit = 0x500000;
    m.file = p.strings.intern("/usr/bin/prog");
    m.flags = Mapping::HasFunctions;
    p.mappings.push_back(m);
    for (const char* name : { "work", "work", "main" }) {
        Function f;
        f.name = p.strings.intern(name);
        f.file = p.strings.intern(p.functions.size() == 1 ? "b.c" : "a.c");
        p.functions.push_back(f);
        Location l;
        l.mapping = MappingId(0u);
        l.address = 0x401000 + 0x100 * p.locations.size();
        l.linesBegin = uint32_t(p.lines.size());
        l.lineCount = 1;
        p.lines.push_back(Line { FunctionId(p.functions.size() - 1), 1, 0 });
        p.locations.push_back(l);
    }
    const int64_t one = 1, two = 2;
    const LocationId s1[] = { LocationId(0u), LocationId(2u) };
    const LocationId s2[] = { LocationId(1u), LocationId(2u) };
    p.addSample(p.internStack(s1), std::span(&one, 1));
    p.addSample(p.internStack(s2), std::span(&two, 1));
    p.finishBuilding();
    p.updateFrameStatuses();
    return p;
}

} // namespace

void TestTopTable::matchesPprof()
{
    // The oracle: write the profile as pprof and compare with `go tool pprof -top`, keeping
    // every node (-nodecount=0, -nodefraction=0) so nothing is trimmed.
    QFETCH(QByteArray, folded);
    QFETCH(QString, built);
    QFETCH(int, sampleType);
    bool ok = true;
    const Profile p = built == QLatin1String("inline") ? inlineProfile()
        : built == QLatin1String("sameName")           ? sameNameProfile()
                                                       : profileFromFolded(folded, &ok);
    QVERIFY(ok);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QStringList args { QStringLiteral("-top"), QStringLiteral("-nodecount=0"), QStringLiteral("-nodefraction=0"),
        QStringLiteral("-sample_index=%1").arg(sampleType) };
    if (p.str(p.sampleTypes[size_t(sampleType)].unit) == "nanoseconds")
        args << QStringLiteral("-unit=ns"); // whole numbers, so values compare exactly
    QString error;
    const QString out = symflame::testing::runPprof(p, dir.path(), args, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));

    // Rows: "      flat  flat%   sum%        cum   cum%  name".
    static const QRegularExpression row(
        QStringLiteral("^\\s*(-?\\d+)(?:ns)?\\s+\\S+%\\s+\\S+%\\s+(-?\\d+)(?:ns)?\\s+\\S+%\\s+(.+)$"));
    QStringList pprofRows;
    bool header = false;
    for (const QString& line : out.split(QLatin1Char('\n'))) {
        if (line.trimmed().startsWith(QLatin1String("flat")))
            header = true;
        else if (header && !line.trimmed().isEmpty()) {
            const auto m = row.match(line);
            QVERIFY2(m.hasMatch(), qPrintable(line));
            // pprof marks frames only ever seen inlined; the name is what we compare.
            QString name = m.captured(3).trimmed();
            if (name.endsWith(QLatin1String(" (inline)")))
                name.chop(9);
            pprofRows << QStringLiteral("%1 %2 %3").arg(name, m.captured(1), m.captured(2));
        }
    }
    QVERIFY2(header, qPrintable(out));
    const SymbolTable symbols = SymbolTable::build(p);
    QVERIFY(!pprofRows.isEmpty());
    QCOMPARE(printTop(p, symbols, size_t(sampleType)), pprofRows);
}

QTEST_GUILESS_MAIN(TestTopTable)
// A profile of over 2^20 frames is counted in parts on several threads: each symbol's flat and
// cum are still the ones counted here stack by stack, recursion counted once per stack.
void TestTopTable::bigProfileCountedInParts()
{
    uint64_t state = 4242;
    const auto next = [&](uint64_t n) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        return (state >> 33) % n;
    };
    QByteArray folded;
    std::map<QString, std::pair<int64_t, int64_t>> expected; // flat, cum
    for (int s = 0; s < 60000; ++s) {
        const int depth = 20 + int(next(20));
        QStringList frames; // root first
        for (int d = 0; d < depth; ++d)
            frames << QStringLiteral("f%1").arg(d < 3 ? next(4) : next(500)); // some recursion
        const int64_t v = 1 + int64_t(next(9));
        folded += frames.join(';').toUtf8() + ' ' + QByteArray::number(v) + '\n';
        expected[frames.last()].first += v;
        for (const QString& f : std::set<QString>(frames.begin(), frames.end()))
            expected[f].second += v;
    }
    bool ok = false;
    const Profile p = profileFromFolded(folded, &ok);
    QVERIFY(ok);
    QVERIFY(p.stackLocations.size() > (size_t(1) << 20));
    const SymbolTable symbols = SymbolTable::build(p);
    const std::vector<TopEntry> top = topFunctions(p, symbols, 0);
    std::map<QString, std::pair<int64_t, int64_t>> got;
    for (const TopEntry& e : top)
        got[QString::fromStdString(symbols.displayName(e.symbol))] = { e.flat, e.cum };
    QCOMPARE(got.size(), expected.size());
    for (const auto& [name, counts] : expected) {
        QVERIFY2(got.contains(name), qPrintable(name));
        QCOMPARE(got[name].first, counts.first);
        QCOMPARE(got[name].second, counts.second);
    }
}

#include "tst_toptable.moc"
