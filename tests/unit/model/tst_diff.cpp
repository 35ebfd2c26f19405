// model/analysis/diff: the two sides of a comparison as one profile (sideBySide) and the
// matching of their call trees' nodes by path (matchNodes), against sums computed here from
// the folded stacks; top-down and bottom-up, on a hand-made case and on random profiles.
#include "calltreetesthelpers.h"
#include "model/analysis/calltree.h"
#include "model/analysis/diff.h"
#include "model/analysis/symboltable.h"

#include <QHash>
#include <QObject>
#include <QRandomGenerator>
#include <QTest>

using namespace symflame;
using namespace symflame::model;
using symflame::testing::profileFromFolded;

namespace {

/// Path of names from the root to node, ";"-joined.
QString pathOf(const CallTree& tree, const SymbolTable& symbols, NodeId node)
{
    QStringList names;
    for (const NodeId n : tree.pathTo(node))
        names << QString::fromStdString(symbols.displayName(tree.node(n).symbol));
    return names.join(QLatin1Char(';'));
}

/// Per path prefix (root first, or leaf first for bottom-up), the sum of the values of the
/// folded stacks that start with it.
QHash<QString, int64_t> prefixTotals(const QByteArray& folded, bool bottomUp)
{
    QHash<QString, int64_t> out;
    for (const QByteArray& line : folded.split('\n')) {
        if (line.trimmed().isEmpty())
            continue;
        const qsizetype space = line.lastIndexOf(' ');
        QStringList frames = QString::fromUtf8(line.left(space)).split(QLatin1Char(';'));
        if (bottomUp)
            std::reverse(frames.begin(), frames.end());
        const int64_t v = line.mid(space + 1).toLongLong();
        for (qsizetype k = 1; k <= frames.size(); ++k)
            out[frames.mid(0, k).join(QLatin1Char(';'))] += v;
    }
    return out;
}

QByteArray randomFolded(QRandomGenerator& rng, int stacks)
{
    static const char* names[] = { "main", "a", "b", "c", "d", "e", "hot", "cold" };
    QByteArray out;
    for (int i = 0; i < stacks; ++i) {
        QByteArray stack = "main";
        const int depth = 1 + int(rng.bounded(6));
        for (int d = 0; d < depth; ++d)
            stack += QByteArray(";") + names[1 + rng.bounded(7)];
        out += stack + ' ' + QByteArray::number(1 + rng.bounded(50)) + '\n';
    }
    return out;
}

} // namespace

class TestDiff : public QObject {
    Q_OBJECT

    // Every node of each side's tree: its total is its side's sum over its path, and its match
    // on the other side is the node of the same path, or none when the other side has no stack
    // through that path.
    static void checkSides(const QByteArray& baseFolded, const QByteArray& newFolded)
    {
        auto diff = diffProfiles(profileFromFolded(baseFolded), profileFromFolded(newFolded));
        QVERIFY2(diff.ok(), diff.ok() ? "" : diff.error().message.c_str());
        const Profile p = sideBySide(*diff);
        QCOMPARE(p.sampleTypes.size(), size_t(2));
        const SymbolTable symbols = SymbolTable::build(p);
        for (const auto direction : { CallTree::Direction::TopDown, CallTree::Direction::BottomUp }) {
            const bool bottomUp = direction == CallTree::Direction::BottomUp;
            const auto newSums = prefixTotals(newFolded, bottomUp), baseSums = prefixTotals(baseFolded, bottomUp);
            const CallTree next = CallTree::build(p, symbols, 0, direction);
            const CallTree base = CallTree::build(p, symbols, 1, direction);
            for (const auto& [shown, other, shownSums, otherSums] :
                { std::tuple(&next, &base, &newSums, &baseSums), std::tuple(&base, &next, &baseSums, &newSums) }) {
                const std::vector<NodeId> match = matchNodes(*shown, *other, symbols);
                QCOMPARE(match.size(), shown->size());
                QCOMPARE(match[0], other->root());
                for (size_t i = 1; i < shown->size(); ++i) {
                    const QString path = pathOf(*shown, symbols, NodeId(i));
                    QCOMPARE(shown->node(NodeId(i)).total, shownSums->value(path));
                    if (otherSums->value(path) == 0) {
                        QVERIFY2(!match[i].valid(), qPrintable(path));
                    } else {
                        QVERIFY2(match[i].valid(), qPrintable(path));
                        QCOMPARE(pathOf(*other, symbols, match[i]), path);
                        QCOMPARE(other->node(match[i]).total, otherSums->value(path));
                    }
                }
            }
        }
    }

private slots:
    void handMade()
    {
        checkSides("main;a;hot 60\nmain;b 20\nmain;a;cold 5\n", "main;a;hot 30\nmain;c 50\nmain;a;cold 5\n");
    }

    void randomProfiles()
    {
        QRandomGenerator rng(20261204);
        for (int round = 0; round < 30; ++round) {
            checkSides(randomFolded(rng, 1 + int(rng.bounded(40))), randomFolded(rng, 1 + int(rng.bounded(40))));
            if (QTest::currentTestFailed())
                return;
        }
    }

    // The sides keep their own values; the diff's values are new minus base (the new side
    // scaled to the base's total under normalize, rounded per sample).
    void valuesAndNormalize()
    {
        const QByteArray base = "main;a 30\nmain;b 10\n", next = "main;a 10\nmain;c 70\n";
        auto plain = diffProfiles(profileFromFolded(base), profileFromFolded(next));
        QVERIFY(plain.ok());
        QCOMPARE(plain->baseTotals, std::vector<int64_t> { 40 });
        QCOMPARE(plain->profile.totalValue(0), int64_t(80 - 40));
        auto scaled = diffProfiles(profileFromFolded(base), profileFromFolded(next), DiffOptions { true });
        QVERIFY(scaled.ok());
        QCOMPARE(scaled->profile.totalValue(0), int64_t(0)); // 10 -> 5, 70 -> 35: 40 - 40
        const Profile sides = sideBySide(*scaled);
        QCOMPARE(sides.totalValue(0), int64_t(40));
        QCOMPARE(sides.totalValue(1), int64_t(40));
        // Sample types that differ can't be compared.
        Profile other = profileFromFolded(base);
        other.sampleTypes.push_back(other.sampleTypes[0]);
        for (size_t i = other.sampleCount(); i-- > 0;)
            other.sampleValues.insert(other.sampleValues.begin() + std::ptrdiff_t(i + 1), 1);
        auto refused = diffProfiles(std::move(other), profileFromFolded(next));
        QVERIFY(!refused.ok());
        QVERIFY(refused.error().message.find("cannot be compared") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestDiff)
#include "tst_diff.moc"
