// Tests of FlameLayout: frame positions per row, merging of narrow sibling runs, zooming to a
// node, and hit testing / row ranges at the edges of frames.
#include "calltreetesthelpers.h"

#include "model/analysis/flamelayout.h"

#include <QObject>
#include <QTest>

using namespace symflame::model;
using symflame::testing::profileFromFolded;

namespace {

struct Built {
    Profile profile;
    SymbolTable symbols;
    CallTree tree;
};

Built buildTree(const QByteArray& folded)
{
    Built b;
    b.profile = profileFromFolded(folded);
    b.symbols = SymbolTable::build(b.profile);
    b.tree = CallTree::build(b.profile, b.symbols, 0);
    return b;
}

/// Rows as "name@x+width" joined by spaces; merged frames print as "*N@x+width".
QStringList printLayout(const FlameLayout& layout, const Built& b)
{
    QStringList rows;
    for (size_t d = 0; d < layout.depthCount(); ++d) {
        QStringList frames;
        for (const FlameFrame& f : layout.row(d)) {
            QString name;
            if (!f.node.valid())
                name = QStringLiteral("*%1").arg(f.merged);
            else if (!b.tree.node(f.node).symbol.valid())
                name = QStringLiteral("all");
            else
                name = QString::fromStdString(b.symbols.displayName(b.tree.node(f.node).symbol));
            frames << QStringLiteral("%1@%2+%3").arg(name).arg(f.x).arg(f.width);
        }
        rows << frames.join(QLatin1Char(' '));
    }
    return rows;
}

NodeId childNamed(const Built& b, NodeId parent, const char* name)
{
    for (NodeId k : b.tree.children(parent))
        if (b.symbols.displayName(b.tree.node(k).symbol) == name)
            return k;
    return {};
}

} // namespace

class TestFlameLayout : public QObject {
    Q_OBJECT
private slots:
    void layout_data();
    void layout();
    void mergedFramesKeepCounts();
    void bottomUpHeaviestFirst();
    void zoomToNode();
    void hitTest_data();
    void hitTest();
    void rowRange_data();
    void rowRange();
    void emptyTree();
};

void TestFlameLayout::layout_data()
{
    QTest::addColumn<QByteArray>("folded");
    QTest::addColumn<qlonglong>("minWidth");
    QTest::addColumn<QStringList>("expected");

    QTest::addRow("positions") << QByteArray("a;b 2\na;c 1\nd 1\n") << 0LL
                               << QStringList { "all@0+4", "a@0+3 d@3+1", "b@0+2 c@2+1" };
    QTest::addRow("self leaves a gap on the right")
        << QByteArray("a 1\na;b 2\na;b;c 1\n") << 0LL << QStringList { "all@0+4", "a@0+4", "b@0+3", "c@0+1" };
    QTest::addRow("narrow run merged") << QByteArray("r;a 1\nr;b 1\nr;c 5\nr;d;e 1\n") << 2LL
                                       << QStringList { "all@0+8", "r@0+8",
                                              "*2@0+2 c@2+5 d@7+1" }; // d alone keeps its node, not descended
    QTest::addRow("two runs split by a wide frame") << QByteArray("r;a 1\nr;b 1\nr;m 4\nr;x 1\nr;y 1\nr;z 1\n") << 2LL
                                                    << QStringList { "all@0+9", "r@0+9", "*2@0+2 m@2+4 *3@6+3" };
    QTest::addRow("width equal to minWidth is kept")
        << QByteArray("a;b 2\na;c 2\n") << 2LL << QStringList { "all@0+4", "a@0+4", "b@0+2 c@2+2" };
    QTest::addRow("narrow frames not descended into") << QByteArray("big 10\nsmall;deep;deeper 1\nsmall2;deep 1\n")
                                                      << 3LL << QStringList { "all@0+12", "big@0+10 *2@10+2" };
    QTest::addRow("deep chain") << QByteArray("a;b;c;d;e 3\n") << 0LL
                                << QStringList { "all@0+3", "a@0+3", "b@0+3", "c@0+3", "d@0+3", "e@0+3" };
}

void TestFlameLayout::layout()
{
    QFETCH(QByteArray, folded);
    QFETCH(qlonglong, minWidth);
    QFETCH(QStringList, expected);
    const Built b = buildTree(folded);
    const FlameLayout layout = FlameLayout::build(b.tree, b.tree.root(), minWidth);
    QCOMPARE(layout.root(), b.tree.root());
    QCOMPARE(layout.totalWidth(), b.tree.totalValue());
    QCOMPARE(printLayout(layout, b), expected);
    // Every row is sorted by x and its frames do not overlap.
    for (size_t d = 0; d < layout.depthCount(); ++d) {
        const auto row = layout.row(d);
        for (size_t i = 1; i < row.size(); ++i)
            QVERIFY(row[i - 1].x + row[i - 1].width <= row[i].x);
    }
}

void TestFlameLayout::mergedFramesKeepCounts()
{
    const Built b = buildTree("r;a 1\nr;b 1\nr;c 1\nr;w 10\n");
    const FlameLayout layout = FlameLayout::build(b.tree, b.tree.root(), 5);
    QCOMPARE(layout.depthCount(), size_t(3));
    const auto row = layout.row(2);
    QCOMPARE(row.size(), size_t(2));
    QVERIFY(!row[0].node.valid());
    QCOMPARE(row[0].merged, 3u);
    QCOMPARE(row[0].width, int64_t(3));
    QVERIFY(row[1].node.valid());
    QCOMPARE(row[1].merged, 1u);
    QCOMPARE(row[1].x, int64_t(3));
}

// Top-down, siblings in name order; bottom-up, the heaviest leaf first (and above each, its
// heaviest caller first), names breaking ties; narrow runs then merge at the right.
void TestFlameLayout::bottomUpHeaviestFirst()
{
    const QByteArray folded("main;a;zeta 7\nmain;b;zeta 1\nmain;b;alpha 2\nmain;gamma 5\nmain;c;beta 2\n");
    const Built topDown = buildTree(folded);
    QCOMPARE(printLayout(FlameLayout::build(topDown.tree, topDown.tree.root()), topDown).value(1),
        QStringLiteral("main@0+17"));
    QCOMPARE(printLayout(FlameLayout::build(topDown.tree, topDown.tree.root()), topDown).value(2),
        QStringLiteral("a@0+7 b@7+3 c@10+2 gamma@12+5"));
    Built b;
    b.profile = profileFromFolded(folded);
    b.symbols = SymbolTable::build(b.profile);
    b.tree = CallTree::build(b.profile, b.symbols, 0, CallTree::Direction::BottomUp);
    const QStringList rows = printLayout(FlameLayout::build(b.tree, b.tree.root()), b);
    QCOMPARE(rows.value(1), QStringLiteral("zeta@0+8 gamma@8+5 alpha@13+2 beta@15+2"));
    QCOMPARE(rows.value(2), QStringLiteral("a@0+7 b@7+1 main@8+5 b@13+2 c@15+2"));
    // Narrow frames (below 3) merge into one run at the right end.
    const QStringList merged = printLayout(FlameLayout::build(b.tree, b.tree.root(), 3), b);
    QCOMPARE(merged.value(1), QStringLiteral("zeta@0+8 gamma@8+5 *2@13+4"));
}

void TestFlameLayout::zoomToNode()
{
    const Built b = buildTree("main;a;x 2\nmain;a;y 1\nmain;b 5\n");
    const NodeId a = childNamed(b, childNamed(b, b.tree.root(), "main"), "a");
    QVERIFY(a.valid());
    const FlameLayout layout = FlameLayout::build(b.tree, a);
    QCOMPARE(layout.root(), a);
    QCOMPARE(layout.totalWidth(), int64_t(3));
    QCOMPARE(printLayout(layout, b), (QStringList { "a@0+3", "x@0+2 y@2+1" }));
    // An invalid root gives an empty layout.
    const FlameLayout none = FlameLayout::build(b.tree, NodeId());
    QCOMPARE(none.depthCount(), size_t(0));
    QVERIFY(none.hitTest(0, 0) == nullptr);
}

void TestFlameLayout::hitTest_data()
{
    QTest::addColumn<int>("depth");
    QTest::addColumn<qlonglong>("x");
    QTest::addColumn<QString>("expected"); // name, or empty for none

    // Layout of "a;b 2\na;c 1\na 1\nd 2": all@0+6; a@0+4 d@4+2; b@0+2 c@2+1 (gap 3..4).
    QTest::addRow("root start") << 0 << 0LL << "all";
    QTest::addRow("root last unit") << 0 << 5LL << "all";
    QTest::addRow("right of root") << 0 << 6LL << "";
    QTest::addRow("left of everything") << 1 << -1LL << "";
    QTest::addRow("first frame start") << 1 << 0LL << "a";
    QTest::addRow("first frame end is the next frame") << 1 << 4LL << "d";
    QTest::addRow("last unit of a frame") << 1 << 3LL << "a";
    QTest::addRow("past the last frame") << 1 << 6LL << "";
    QTest::addRow("child start") << 2 << 2LL << "c";
    QTest::addRow("self gap") << 2 << 3LL << "";
    QTest::addRow("under a leaf") << 2 << 5LL << "";
    QTest::addRow("below the deepest row") << 3 << 0LL << "";
    QTest::addRow("far below") << 1000 << 0LL << "";
}

void TestFlameLayout::hitTest()
{
    QFETCH(int, depth);
    QFETCH(qlonglong, x);
    QFETCH(QString, expected);
    const Built b = buildTree("a;b 2\na;c 1\na 1\nd 2\n");
    const FlameLayout layout = FlameLayout::build(b.tree, b.tree.root());
    QCOMPARE(layout.depthCount(), size_t(3));
    const FlameFrame* f = layout.hitTest(size_t(depth), x);
    if (expected.isEmpty()) {
        QVERIFY(f == nullptr);
        return;
    }
    QVERIFY(f != nullptr);
    QVERIFY(f->x <= x && x < f->x + f->width);
    const auto sym = b.tree.node(f->node).symbol;
    QCOMPARE(sym.valid() ? QString::fromStdString(b.symbols.displayName(sym)) : QStringLiteral("all"), expected);
}

void TestFlameLayout::rowRange_data()
{
    QTest::addColumn<int>("depth");
    QTest::addColumn<qlonglong>("x0");
    QTest::addColumn<qlonglong>("x1");
    QTest::addColumn<QStringList>("expected");

    // Row 1 of "p 2\nq 3\nr 1\ns 4": p@0+2 q@2+3 r@5+1 s@6+4.
    QTest::addRow("everything") << 1 << -100LL << 100LL << QStringList { "p", "q", "r", "s" };
    QTest::addRow("exact frame") << 1 << 2LL << 5LL << QStringList { "q" };
    QTest::addRow("touching edges excluded") << 1 << 5LL << 6LL << QStringList { "r" };
    QTest::addRow("one unit into the neighbours") << 1 << 1LL << 6LL << QStringList { "p", "q", "r" };
    QTest::addRow("inside one frame") << 1 << 7LL << 8LL << QStringList { "s" };
    QTest::addRow("empty interval") << 1 << 3LL << 3LL << QStringList {};
    QTest::addRow("reversed interval") << 1 << 6LL << 2LL << QStringList {};
    QTest::addRow("right of the row") << 1 << 10LL << 20LL << QStringList {};
    QTest::addRow("left of the row") << 1 << -5LL << 0LL << QStringList {};
    QTest::addRow("no such row") << 2 << 0LL << 10LL << QStringList {};
}

void TestFlameLayout::rowRange()
{
    QFETCH(int, depth);
    QFETCH(qlonglong, x0);
    QFETCH(qlonglong, x1);
    QFETCH(QStringList, expected);
    const Built b = buildTree("p 2\nq 3\nr 1\ns 4\n");
    const FlameLayout layout = FlameLayout::build(b.tree, b.tree.root());
    QStringList names;
    for (const FlameFrame& f : layout.rowRange(size_t(depth), x0, x1))
        names << QString::fromStdString(b.symbols.displayName(b.tree.node(f.node).symbol));
    QCOMPARE(names, expected);
}

void TestFlameLayout::emptyTree()
{
    const Built b = buildTree("a 0\n");
    const FlameLayout layout = FlameLayout::build(b.tree, b.tree.root());
    QCOMPARE(layout.totalWidth(), int64_t(0));
    QCOMPARE(layout.depthCount(), size_t(0));
    QVERIFY(layout.hitTest(0, 0) == nullptr);
    QVERIFY(layout.rowRange(0, 0, 10).empty());
}

QTEST_GUILESS_MAIN(TestFlameLayout)
#include "tst_flamelayout.moc"
