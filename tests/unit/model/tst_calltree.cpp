// Tests of SymbolTable and CallTree: top-down and bottom-up trees from folded stacks, printed
// and compared line by line; inline chains, unsymbolized locations, merging by name, the
// breadth-first numbering and cancellation.
#include "calltreetesthelpers.h"

#include "model/analysis/calltree.h"
#include "model/core/progress.h"
#include "model/analysis/stackfilter.h"

#include <QObject>
#include <map>
#include <string>
#include <vector>
#include <QTest>

using namespace symflame::model;
using symflame::testing::inlineProfile;
using symflame::testing::printTree;
using symflame::testing::profileFromFolded;

class TestCallTree : public QObject {
    Q_OBJECT
private slots:
    void topDown_data();
    void topDown();
    void bottomUp_data();
    void bottomUp();
    void rootTotalIsSum();
    void inlineChainTopDown();
    void inlineChainBottomUp();
    void sampleTypeSelection();
    void mergesFunctionsByName();
    void unsymbolizedLocations();
    void breadthFirstNumbering();
    void pathTo();
    void cancelled();
    void emptyProfile();
    void threadsGiveTheSameTree();
    void previewKeepsTheWideNodes();
    void sampledPreviewEstimatesTheWideNodes();
    void mixedInlineStacks();
};

void TestCallTree::topDown_data()
{
    QTest::addColumn<QByteArray>("folded");
    QTest::addColumn<QStringList>("expected");

    QTest::addRow("siblings") << QByteArray("a;b 1\na;b 2\na;c 1\n") << QStringList { "a=4", " b=3", " c=1" };
    QTest::addRow("children sorted by name") << QByteArray("main;zeta 1\nmain;alpha 2\nmain;mid 4\n")
                                             << QStringList { "main=7", " alpha=2", " mid=4", " zeta=1" };
    QTest::addRow("several roots") << QByteArray("b;x 1\na;x 2\n") << QStringList { "a=2", " x=2", "b=1", " x=1" };
    QTest::addRow("self and children") << QByteArray("a 1\na;b 2\na;b;c 3\n")
                                       << QStringList { "a=6/1", " b=5/2", "  c=3/3" };
    QTest::addRow("recursion is a path") << QByteArray("a;a;a 1\na 2\n")
                                         << QStringList { "a=3/2", " a=1/0", "  a=1/1" };
    QTest::addRow("same function under different parents")
        << QByteArray("main;a;c 1\nmain;b;c 2\n") << QStringList { "main=3", " a=1", "  c=1", " b=2", "  c=2" };
    QTest::addRow("zero values leave no nodes") << QByteArray("a;b 0\na;c 1\nz 0\n") << QStringList { "a=1", " c=1" };
    QTest::addRow("values of one stack cancel out") << QByteArray("a;b 3\na;b -3\na 1\n") << QStringList { "a=1/1" };
    QTest::addRow("name with spaces") << QByteArray("main;std::vector<int>::push_back(int const&) 5\n")
                                      << QStringList { "main=5", " std::vector<int>::push_back(int const&)=5" };
}

void TestCallTree::topDown()
{
    QFETCH(QByteArray, folded);
    QFETCH(QStringList, expected);
    bool ok = false;
    const Profile p = profileFromFolded(folded, &ok);
    QVERIFY(ok);
    const SymbolTable symbols = SymbolTable::build(p);
    const CallTree tree = CallTree::build(p, symbols, 0);
    QCOMPARE(tree.direction(), CallTree::Direction::TopDown);
    const bool withSelf = !expected.isEmpty() && expected.first().contains(QLatin1Char('/'));
    QCOMPARE(printTree(tree, symbols, withSelf), expected);
}

void TestCallTree::bottomUp_data()
{
    QTest::addColumn<QByteArray>("folded");
    QTest::addColumn<QStringList>("expected");

    // Root's children are leaves; totals are the value of stacks ending with the path, self
    // the part where the path is the whole stack.
    QTest::addRow("callers of a leaf") << QByteArray("a;b;c 2\nx;b;c 1\na;b 4\n")
                                       << QStringList { "b=4/0", " a=4/4", "c=3/0", " b=3/0", "  a=2/2", "  x=1/1" };
    QTest::addRow("single frame stacks") << QByteArray("a 2\nb 1\n") << QStringList { "a=2/2", "b=1/1" };
    QTest::addRow("recursion") << QByteArray("main;a;a 1\n") << QStringList { "a=1/0", " a=1/0", "  main=1/1" };
    QTest::addRow("leaf and caller of itself") << QByteArray("main;f 1\nmain;f;g 2\n")
                                               << QStringList { "f=1/0", " main=1/1", "g=2/0", " f=2/0", "  main=2/2" };
}

void TestCallTree::bottomUp()
{
    QFETCH(QByteArray, folded);
    QFETCH(QStringList, expected);
    bool ok = false;
    const Profile p = profileFromFolded(folded, &ok);
    QVERIFY(ok);
    const SymbolTable symbols = SymbolTable::build(p);
    const CallTree tree = CallTree::build(p, symbols, 0, CallTree::Direction::BottomUp);
    QCOMPARE(tree.direction(), CallTree::Direction::BottomUp);
    QCOMPARE(printTree(tree, symbols, true), expected);
}

void TestCallTree::rootTotalIsSum()
{
    const Profile p = profileFromFolded("a;b 5\nc 7\nd;e;f 11\nd 0\n");
    const SymbolTable symbols = SymbolTable::build(p);
    for (const auto dir : { CallTree::Direction::TopDown, CallTree::Direction::BottomUp }) {
        const CallTree tree = CallTree::build(p, symbols, 0, dir);
        QCOMPARE(tree.totalValue(), int64_t(23));
        QCOMPARE(tree.totalValue(), p.totalValue(0));
        QCOMPARE(tree.node(tree.root()).self, int64_t(0));
        QVERIFY(!tree.node(tree.root()).symbol.valid());
        QVERIFY(!tree.node(tree.root()).parent.valid());
        // Each node's total is its self plus its children's totals.
        for (size_t i = 0; i < tree.size(); ++i) {
            const auto& n = tree.node(NodeId(i));
            int64_t sum = n.self;
            for (NodeId c : tree.children(NodeId(i)))
                sum += tree.node(c).total;
            QCOMPARE(n.total, sum);
        }
    }
}

void TestCallTree::inlineChainTopDown()
{
    const Profile p = inlineProfile();
    const SymbolTable symbols = SymbolTable::build(p);
    // The leaf location has two lines: inner (innermost) and outer (physical frame).
    QCOMPARE(symbols.frames(LocationId(1u)).size(), size_t(2));
    QCOMPARE(symbols.displayName(symbols.frames(LocationId(1u))[0]), std::string("inner"));
    QCOMPARE(symbols.displayName(symbols.frames(LocationId(1u))[1]), std::string("outer"));
    const CallTree tree = CallTree::build(p, symbols, 0);
    QCOMPARE(printTree(tree, symbols, true), (QStringList { "main=4/1", " outer=3/0", "  inner=3/3" }));
}

void TestCallTree::inlineChainBottomUp()
{
    const Profile p = inlineProfile();
    const SymbolTable symbols = SymbolTable::build(p);
    const CallTree tree = CallTree::build(p, symbols, 0, CallTree::Direction::BottomUp);
    QCOMPARE(printTree(tree, symbols, true), (QStringList { "inner=3/0", " outer=3/0", "  main=3/3", "main=1/1" }));
}

void TestCallTree::sampleTypeSelection()
{
    const Profile p = inlineProfile();
    const SymbolTable symbols = SymbolTable::build(p);
    const CallTree cpu = CallTree::build(p, symbols, 1);
    QCOMPARE(printTree(cpu, symbols), (QStringList { "main=4000", " outer=3000", "  inner=3000" }));
    // A sample type that does not exist gives the root alone.
    const CallTree none = CallTree::build(p, symbols, 2);
    QCOMPARE(none.size(), size_t(1));
    QCOMPARE(none.totalValue(), int64_t(0));
}

void TestCallTree::mergesFunctionsByName()
{
    // Two functions named "work" (different files, as two static functions would be), in two
    // locations: one symbol, as `go tool pprof -top` shows one "work" line.
    Profile p;
    p.sampleTypes.push_back({ p.strings.intern("samples"), p.strings.intern("count") });
    for (const char* file : { "a.c", "b.c" }) {
        Function f;
        f.name = p.strings.intern("work");
        f.file = p.strings.intern(file);
        p.functions.push_back(f);
    }
    Function m;
    m.name = p.strings.intern("main");
    p.functions.push_back(m);
    for (uint32_t i = 0; i < 3; ++i) {
        Location l;
        l.address = 0x1000 + i * 0x10;
        l.linesBegin = uint32_t(p.lines.size());
        l.lineCount = 1;
        p.lines.push_back(Line { FunctionId(i), int64_t(i + 1), 0 });
        p.locations.push_back(l);
    }
    const LocationId s1[] = { LocationId(0u), LocationId(2u) };
    const LocationId s2[] = { LocationId(1u), LocationId(2u) };
    const int64_t one = 1, two = 2;
    p.addSample(p.internStack(s1), std::span(&one, 1));
    p.addSample(p.internStack(s2), std::span(&two, 1));
    p.updateFrameStatuses();

    const SymbolTable symbols = SymbolTable::build(p);
    QCOMPARE(symbols.size(), size_t(2));
    QCOMPARE(symbols.frames(LocationId(0u))[0], symbols.frames(LocationId(1u))[0]);
    const Symbol& work = symbols.symbol(symbols.frames(LocationId(0u))[0]);
    QVERIFY(work.symbolized);
    QCOMPARE(p.str(work.file), std::string_view("a.c")); // the first function seen
    QCOMPARE(work.exemplar, LocationId(0u));
    const CallTree tree = CallTree::build(p, symbols, 0);
    QCOMPARE(printTree(tree, symbols), (QStringList { "main=3", " work=3" }));
}

void TestCallTree::unsymbolizedLocations()
{
    Profile p;
    p.sampleTypes.push_back({ p.strings.intern("samples"), p.strings.intern("count") });
    Mapping m;
    m.start = 0x7f0000001000;
    m.limit = 0x7f0000100000;
    m.offset = 0x1000;
    m.file = p.strings.intern("/usr/lib/libfoo.so");
    p.mappings.push_back(m);
    auto loc = [&](MappingId mapping, uint64_t address) {
        Location l;
        l.mapping = mapping;
        l.address = address;
        p.locations.push_back(l);
        return LocationId(p.locations.size() - 1);
    };
    const LocationId a1 = loc(MappingId(0u), 0x7f0000001a2b);
    const LocationId a2 = loc(MappingId(0u), 0x7f0000001a2b); // same mapping and address as a1
    const LocationId b = loc(MappingId(0u), 0x7f0000002000);
    const LocationId c = loc(MappingId(), 0x401000); // no mapping
    const LocationId s1[] = { a1, c };
    const LocationId s2[] = { a2, c };
    const LocationId s3[] = { b, c };
    const int64_t one = 1;
    p.addSample(p.internStack(s1), std::span(&one, 1));
    p.addSample(p.internStack(s2), std::span(&one, 1));
    p.addSample(p.internStack(s3), std::span(&one, 1));
    p.updateFrameStatuses();

    const SymbolTable symbols = SymbolTable::build(p);
    QCOMPARE(symbols.size(), size_t(3));
    QCOMPARE(symbols.frames(a1)[0], symbols.frames(a2)[0]);
    QVERIFY(symbols.frames(a1)[0] != symbols.frames(b)[0]);
    const Symbol& sa = symbols.symbol(symbols.frames(a1)[0]);
    QVERIFY(!sa.symbolized);
    QVERIFY(sa.name.empty());
    QCOMPARE(sa.mapping, MappingId(0u));
    QCOMPARE(sa.address, uint64_t(0x7f0000001a2b));
    QCOMPARE(symbols.displayName(symbols.frames(a1)[0]), std::string("libfoo.so+0x1a2b"));
    QCOMPARE(symbols.displayName(symbols.frames(c)[0]), std::string("0x401000"));
    const CallTree tree = CallTree::build(p, symbols, 0);
    QCOMPARE(printTree(tree, symbols), (QStringList { "0x401000=3", " libfoo.so+0x1a2b=2", " libfoo.so+0x2000=1" }));
}

void TestCallTree::breadthFirstNumbering()
{
    const Profile p = profileFromFolded("m;b;y 1\nm;a;x 2\nm;a 1\nn;q;r;s 3\nm;c 1\n");
    const SymbolTable symbols = SymbolTable::build(p);
    const CallTree tree = CallTree::build(p, symbols, 0);
    QCOMPARE(tree.size(), size_t(11)); // root m n a b c q x y r s
    uint32_t prevDepth = 0;
    for (size_t i = 0; i < tree.size(); ++i) {
        const auto& n = tree.node(NodeId(i));
        // Depths never decrease along the ids: each depth is one id range.
        const uint32_t depth = tree.depth(NodeId(i));
        QVERIFY(depth >= prevDepth);
        prevDepth = depth;
        QCOMPARE(size_t(depth), tree.pathTo(NodeId(i)).size());
        if (i > 0) {
            QCOMPARE(depth, tree.depth(n.parent) + 1);
            QVERIFY(n.parent.index() < i);
        }
        if (n.childCount == 0)
            QCOMPARE(n.childrenBegin, 0u);
        const auto kids = tree.children(NodeId(i));
        QCOMPARE(kids.size(), size_t(n.childCount));
        for (size_t k = 0; k < kids.size(); ++k) {
            QCOMPARE(kids[k].index(), size_t(n.childrenBegin + k)); // consecutive ids
            QCOMPARE(tree.node(kids[k]).parent, NodeId(i));
            if (k > 0)
                QVERIFY(symbols.displayName(tree.node(kids[k - 1]).symbol)
                    < symbols.displayName(tree.node(kids[k]).symbol));
        }
    }
    QCOMPARE(prevDepth, uint32_t(4));
}

void TestCallTree::pathTo()
{
    const Profile p = profileFromFolded("a;b;c 1\na;d 1\n");
    const SymbolTable symbols = SymbolTable::build(p);
    const CallTree tree = CallTree::build(p, symbols, 0);
    // Find the node of c by walking a -> b -> c.
    NodeId cur = tree.root();
    for (const char* name : { "a", "b", "c" }) {
        NodeId next;
        for (NodeId k : tree.children(cur))
            if (symbols.displayName(tree.node(k).symbol) == name)
                next = k;
        QVERIFY2(next.valid(), name);
        cur = next;
    }
    const auto path = tree.pathTo(cur);
    QCOMPARE(path.size(), size_t(3));
    QStringList names;
    for (NodeId n : path)
        names << QString::fromStdString(symbols.displayName(tree.node(n).symbol));
    QCOMPARE(names, (QStringList { "a", "b", "c" }));
    QVERIFY(tree.pathTo(tree.root()).empty());
    QVERIFY(tree.pathTo(NodeId()).empty());
}

void TestCallTree::cancelled()
{
    const Profile p = profileFromFolded("a;b 1\nc 2\n");
    const SymbolTable symbols = SymbolTable::build(p);
    CancelFlag flag;
    const CallTree full = CallTree::build(p, symbols, 0, CallTree::Direction::TopDown, &flag);
    QCOMPARE(full.totalValue(), int64_t(3));
    flag.cancel();
    const CallTree tree = CallTree::build(p, symbols, 0, CallTree::Direction::TopDown, &flag);
    QCOMPARE(tree.size(), size_t(1));
    QCOMPARE(tree.totalValue(), int64_t(0));
    QVERIFY(tree.children(tree.root()).empty());
}

void TestCallTree::emptyProfile()
{
    const Profile p = profileFromFolded("");
    const SymbolTable symbols = SymbolTable::build(p);
    QCOMPARE(symbols.size(), size_t(0));
    const CallTree tree = CallTree::build(p, symbols, 0);
    QCOMPARE(tree.size(), size_t(1));
    QCOMPARE(tree.totalValue(), int64_t(0));
}

// A tree big enough to be shared out is grown on several threads (and has runs long enough to be
// radix-sorted); every node (number, symbol,
// parent, depth, self, total, children) must equal the one-thread tree's, in both directions and
// with a filter. The stacks are random paths over 300 functions, skewed toward a few callees as
// real profiles are, so some subtrees are far bigger than others.
namespace {

/// 20000 random stacks of depth 5-44 over 300 functions, mostly along a few hot paths.
QByteArray randomFolded()
{
    QByteArray folded;
    uint64_t state = 12345;
    auto next = [&](uint64_t n) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        return (state >> 33) % n;
    };
    for (int s = 0; s < 20000; ++s) {
        const int depth = 5 + int(next(40));
        uint64_t f = next(4);
        for (int d = 0; d < depth; ++d) {
            if (d)
                folded += ';';
            folded += "f" + QByteArray::number(qulonglong(f));
            const uint64_t slot = next(16) < 10 ? 0 : next(6); // slot 0 most of the time
            f = (f * 31 + slot * 7 + 1) % 300;
        }
        folded += ' ' + QByteArray::number(qulonglong(1 + next(9))) + '\n';
    }
    return folded;
}

} // namespace

void TestCallTree::threadsGiveTheSameTree()
{
    const QByteArray folded = randomFolded();
    bool ok = false;
    const Profile p = profileFromFolded(folded, &ok);
    QVERIFY(ok);
    const SymbolTable symbols = SymbolTable::build(p);
    const std::vector<FilterRule> rules { FilterRule { FilterRule::Action::Hide, FilterRule::Target::Function, "f7" } };
    const StackFilter hide = StackFilter::build(p, symbols, rules, false);
    // The one-thread top-down tree against a tree counted here, path by path, from the text:
    // every node's total is the value of the stacks that start with its path, every path is a
    // node, and children are in name order (this also covers the long runs sorted by radix).
    {
        std::map<std::vector<std::string>, int64_t> prefixTotal;
        for (const QByteArray& line : folded.split('\n')) {
            const int sp = line.lastIndexOf(' ');
            if (sp < 0)
                continue;
            const int64_t v = line.mid(sp + 1).toLongLong();
            std::vector<std::string> path;
            for (const QByteArray& f : line.left(sp).split(';')) {
                path.push_back(f.toStdString());
                prefixTotal[path] += v;
            }
        }
        const CallTree tree = CallTree::build(p, symbols, 0, CallTree::Direction::TopDown, nullptr, nullptr, 1);
        QCOMPARE(tree.size(), prefixTotal.size() + 1);
        for (uint32_t i = 1; i < tree.size(); ++i) {
            std::vector<std::string> path;
            for (const NodeId n : tree.pathTo(NodeId(i)))
                path.push_back(symbols.displayName(tree.node(n).symbol));
            const auto it = prefixTotal.find(path);
            QVERIFY(it != prefixTotal.end());
            QCOMPARE(tree.node(NodeId(i)).total, it->second);
            const auto kids = tree.children(NodeId(i));
            for (size_t k = 1; k < kids.size(); ++k)
                QVERIFY(symbols.displayName(tree.node(kids[k - 1]).symbol) < symbols.displayName(tree.node(kids[k]).symbol));
        }
    }
    for (const auto dir : { CallTree::Direction::TopDown, CallTree::Direction::BottomUp })
        for (const StackFilter* filter : { static_cast<const StackFilter*>(nullptr), &hide }) {
            const CallTree one = CallTree::build(p, symbols, 0, dir, nullptr, filter, 1);
            QVERIFY(one.size() > 10000);
            for (const unsigned threads : { 2u, 3u, 8u }) {
                const CallTree many = CallTree::build(p, symbols, 0, dir, nullptr, filter, threads);
                QCOMPARE(many.size(), one.size());
                for (uint32_t i = 0; i < one.size(); ++i) {
                    const CallTreeNode& a = one.node(NodeId(i));
                    const CallTreeNode& b = many.node(NodeId(i));
                    const bool same = a.symbol == b.symbol && a.parent == b.parent
                        && a.self == b.self && a.total == b.total && a.childCount == b.childCount
                        && (a.childCount == 0 || a.childrenBegin == b.childrenBegin);
                    if (!same)
                        QFAIL(qPrintable(QStringLiteral("node %1 differs with %2 threads").arg(i).arg(threads)));
                }
            }
        }
}

// A preview (minTotal) holds exactly the full tree's nodes whose total reaches minTotal, each
// with the full tree's total and self, in the same breadth-first name order; on one thread and
// several, top-down and bottom-up.
namespace {

void checkPreviews(const Profile& p)
{
    const SymbolTable symbols = SymbolTable::build(p);
    for (const auto dir : { CallTree::Direction::TopDown, CallTree::Direction::BottomUp }) {
        const CallTree full = CallTree::build(p, symbols, 0, dir, nullptr, nullptr, 1);
        QCOMPARE(full.omittedBelow(), int64_t(0));
        for (const int64_t minTotal : { int64_t(1), full.totalValue() / 4096, full.totalValue() / 200 }) {
            // The full tree's nodes that the preview must have, by path, in id order.
            std::vector<std::pair<std::vector<SymbolId>, const CallTreeNode*>> wanted;
            for (uint32_t i = 1; i < full.size(); ++i) {
                bool wide = true;
                std::vector<SymbolId> path;
                for (const NodeId n : full.pathTo(NodeId(i))) {
                    wide = wide && full.node(n).total >= minTotal;
                    path.push_back(full.node(n).symbol);
                }
                if (wide)
                    wanted.emplace_back(std::move(path), &full.node(NodeId(i)));
            }
            QVERIFY(minTotal == 1 ? wanted.size() + 1 == full.size() : wanted.size() + 1 < full.size());
            QVERIFY(wanted.size() >= 5);
            for (const unsigned threads : { 1u, 2u }) {
                const CallTree preview = CallTree::build(p, symbols, 0, dir, nullptr, nullptr, threads, minTotal);
                QCOMPARE(preview.omittedBelow(), minTotal);
                QCOMPARE(preview.totalValue(), full.totalValue());
                QCOMPARE(preview.size(), wanted.size() + 1);
                for (uint32_t i = 1; i < preview.size(); ++i) {
                    std::vector<SymbolId> path;
                    for (const NodeId n : preview.pathTo(NodeId(i)))
                        path.push_back(preview.node(n).symbol);
                    const auto& [wantedPath, node] = wanted[i - 1];
                    QVERIFY(path == wantedPath);
                    QCOMPARE(preview.node(NodeId(i)).total, node->total);
                    QCOMPARE(preview.node(NodeId(i)).self, node->self);
                    QCOMPARE(size_t(preview.depth(NodeId(i))), wantedPath.size());
                    int64_t children = 0;
                    for (const NodeId c : preview.children(NodeId(i)))
                        children += preview.node(c).total;
                    QVERIFY(preview.node(NodeId(i)).self + children <= preview.node(NodeId(i)).total);
                }
            }
        }
    }
}

/// 20000 random stacks over 900 locations of 300 functions, as randomFolded's, where every
/// fourth location is an inline chain of two or three functions and every 50th has no
/// function at all (an address): most stacks mix one-frame locations with chains.
Profile randomMixedProfile(int samples = 20000)
{
    Profile p;
    p.sampleTypes.push_back({ p.strings.intern("cpu"), p.strings.intern("nanoseconds") });
    Mapping m;
    m.start = 0x400000;
    m.limit = 0x900000;
    m.file = p.strings.intern("/usr/bin/mixed");
    m.flags = Mapping::HasFunctions | Mapping::HasInlineFrames;
    p.mappings.push_back(m);
    for (int f = 0; f < 300; ++f) {
        Function fn;
        fn.name = p.strings.intern("g" + std::to_string(f));
        fn.systemName = fn.name;
        fn.file = p.strings.intern("mixed.cpp");
        p.functions.push_back(fn);
    }
    uint64_t state = 777;
    auto next = [&](uint64_t n) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        return (state >> 33) % n;
    };
    for (uint32_t l = 0; l < 900; ++l) {
        Location loc;
        loc.mapping = MappingId(0u);
        loc.address = 0x401000 + 16 * l;
        loc.linesBegin = uint32_t(p.lines.size());
        const uint32_t count = l % 50 == 49 ? 0 : l % 4 == 3 ? 2 + uint32_t(next(2)) : 1;
        for (uint32_t k = 0; k < count; ++k)
            p.lines.push_back(Line { FunctionId(uint32_t((l + 37 * k) % 300)), 1, 0 });
        loc.lineCount = count;
        p.locations.push_back(loc);
    }
    for (int s = 0; s < samples; ++s) {
        const int depth = 3 + int(next(30));
        std::vector<LocationId> root; // root first
        uint64_t l = next(4);
        for (int d = 0; d < depth; ++d) {
            root.push_back(LocationId(uint32_t(l)));
            const uint64_t slot = next(16) < 10 ? 0 : next(6);
            l = (l * 31 + slot * 7 + 1) % 900;
        }
        const std::vector<LocationId> leafFirst(root.rbegin(), root.rend());
        const int64_t v[] = { int64_t(next(10)) }; // some 0
        p.addSample(p.internStack(leafFirst), v);
    }
    p.finishBuilding();
    p.updateFrameStatuses();
    return p;
}

} // namespace

void TestCallTree::previewKeepsTheWideNodes()
{
    bool ok = false;
    const Profile p = profileFromFolded(randomFolded(), &ok);
    QVERIFY(ok);
    checkPreviews(p);
}

// A preview from one sample in N: with N 1 the exact preview; else every node clearly wider
// than the cut is there, on its path, with its total within a few standard deviations of the
// true one, and no node kept is far narrower than the cut. Samples are chosen by a hash: a
// stack on every 16th sample is not taken for all of them.
void TestCallTree::sampledPreviewEstimatesTheWideNodes()
{
    const Profile p = randomMixedProfile(400000);
    const SymbolTable symbols = SymbolTable::build(p);
    const auto pathOf = [](const CallTree& t, NodeId id) {
        std::vector<SymbolId> path;
        for (const NodeId n : t.pathTo(id))
            path.push_back(t.node(n).symbol);
        return path;
    };
    for (const auto dir : { CallTree::Direction::TopDown, CallTree::Direction::BottomUp }) {
        const int64_t total = p.totalValue(0);
        const int64_t minTotal = total / 1000;
        const CallTree exact = CallTree::build(p, symbols, 0, dir, nullptr, nullptr, 0, minTotal);
        const CallTree one = CallTree::buildSampledPreview(p, symbols, 0, dir, minTotal, 1);
        QCOMPARE(one.sampledEvery(), 1u);
        QCOMPARE(one.size(), exact.size());
        for (uint32_t i = 0; i < exact.size(); ++i)
            QCOMPARE(one.node(NodeId(i)).total, exact.node(NodeId(i)).total);

        const CallTree sampled = CallTree::buildSampledPreview(p, symbols, 0, dir, minTotal, 8);
        QCOMPARE(sampled.sampledEvery(), 8u);
        QCOMPARE(sampled.omittedBelow(), minTotal);
        QVERIFY(std::abs(sampled.totalValue() - total) < total / 50);
        // Every node of the true tree at least half as wide as the cut, by path.
        const CallTree half = CallTree::build(p, symbols, 0, dir, nullptr, nullptr, 0, minTotal / 2);
        std::map<std::vector<SymbolId>, int64_t> halfTotals, sampledTotals;
        for (uint32_t i = 1; i < half.size(); ++i)
            halfTotals[pathOf(half, NodeId(i))] = half.node(NodeId(i)).total;
        for (uint32_t i = 1; i < sampled.size(); ++i) {
            const auto path = pathOf(sampled, NodeId(i));
            sampledTotals[path] = sampled.node(NodeId(i)).total;
            QVERIFY(halfTotals.contains(path));
        }
        // An estimate of a node of true total T (values 0-9, each sample taken with chance 1/8)
        // has a standard deviation of at most sqrt(8 * 9 * T): every node kept is within five
        // of them, and every node five of them wider than the cut is kept.
        size_t wide = 0;
        for (uint32_t i = 1; i < exact.size(); ++i) {
            const int64_t truth = exact.node(NodeId(i)).total;
            const auto fiveSigma = static_cast<int64_t>(5 * std::sqrt(8.0 * 9.0 * double(truth)));
            const auto it = sampledTotals.find(pathOf(exact, NodeId(i)));
            if (truth >= minTotal + fiveSigma) {
                ++wide;
                QVERIFY(it != sampledTotals.end());
            }
            if (it != sampledTotals.end())
                QVERIFY2(std::abs(it->second - truth) <= fiveSigma,
                    qPrintable(QStringLiteral("estimated %1, is %2").arg(it->second).arg(truth)));
        }
        QVERIFY2(wide >= 100, qPrintable(QString::number(wide)));
        QVERIFY(sampled.size() * 2 > exact.size() && sampled.size() < exact.size() * 2);
    }

    // Stack A on every 16th sample, B on the others.
    Profile q;
    q.sampleTypes.push_back({ q.strings.intern("samples"), q.strings.intern("count") });
    for (const char* name : { "main", "a", "b" }) {
        Function fn;
        fn.name = q.strings.intern(name);
        q.functions.push_back(fn);
        Location loc;
        loc.linesBegin = uint32_t(q.lines.size());
        loc.lineCount = 1;
        q.lines.push_back(Line { FunctionId(uint32_t(q.functions.size() - 1)), 1, 0 });
        q.locations.push_back(loc);
    }
    const LocationId a[] = { LocationId(1u), LocationId(0u) };
    const LocationId b[] = { LocationId(2u), LocationId(0u) };
    const int64_t one[] = { 1 };
    for (int i = 0; i < 160000; ++i)
        q.addSample(q.internStack(i % 16 == 0 ? std::span(a) : std::span(b)), one);
    q.finishBuilding();
    q.updateFrameStatuses();
    const SymbolTable qs = SymbolTable::build(q);
    const CallTree t = CallTree::buildSampledPreview(q, qs, 0, CallTree::Direction::TopDown, 100, 16);
    QCOMPARE(t.size(), size_t(4)); // root, main, a, b
    const NodeId aNode = t.children(t.children(t.root()).begin()[0]).begin()[0];
    QCOMPARE(QString::fromStdString(qs.displayName(t.node(aNode).symbol)), QStringLiteral("a"));
    QVERIFY2(std::abs(t.node(aNode).total - 10000) < 2000, qPrintable(QString::number(t.node(aNode).total)));
}

// A profile mixing one-frame locations and inline chains gives, in both directions and on 1-3
// threads, the tree counted here path by path from each sample's frames (inline chains
// expanded), and a filtered tree the same on every thread count. Its previews, which read
// stacks of one-frame locations from the profile itself and the others from sequences written
// out (see Item in calltree.cpp), hold the complete tree's wide nodes as above.
void TestCallTree::mixedInlineStacks()
{
    const Profile p = randomMixedProfile();
    const SymbolTable symbols = SymbolTable::build(p);
    size_t chains = 0;
    for (uint32_t l = 0; l < p.locations.size(); ++l)
        chains += symbols.frames(LocationId(l)).size() > 1;
    QVERIFY(chains > 100);
    for (const auto dir : { CallTree::Direction::TopDown, CallTree::Direction::BottomUp }) {
        std::map<std::vector<std::string>, std::pair<int64_t, int64_t>> byPath; // total, self
        for (size_t i = 0; i < p.sampleStacks.size(); ++i) {
            const int64_t v = p.sampleValues[i];
            std::vector<std::string> frames; // leaf first
            for (const LocationId loc : p.stack(p.sampleStacks[i]))
                for (const SymbolId f : symbols.frames(loc))
                    frames.push_back(symbols.displayName(f));
            if (dir == CallTree::Direction::TopDown)
                std::reverse(frames.begin(), frames.end());
            std::vector<std::string> path;
            for (const std::string& f : frames) {
                path.push_back(f);
                byPath[path].first += v;
            }
            byPath[path].second += v;
        }
        std::erase_if(byPath, [](const auto& e) { return e.second.first == 0 && e.second.second == 0; });
        for (const unsigned threads : { 1u, 2u, 3u }) {
            const CallTree tree = CallTree::build(p, symbols, 0, dir, nullptr, nullptr, threads);
            QCOMPARE(tree.totalValue(), p.totalValue(0));
            QCOMPARE(tree.size(), byPath.size() + 1);
            for (uint32_t i = 1; i < tree.size(); ++i) {
                std::vector<std::string> path;
                for (const NodeId n : tree.pathTo(NodeId(i)))
                    path.push_back(symbols.displayName(tree.node(n).symbol));
                const auto it = byPath.find(path);
                QVERIFY(it != byPath.end());
                QCOMPARE(tree.node(NodeId(i)).total, it->second.first);
                QCOMPARE(tree.node(NodeId(i)).self, it->second.second);
            }
        }
        // Filtered: frames of g7 hidden, or the stacks through g7 dropped (which leaves places
        // in the first level to close up when the stacks are shared out among threads).
        int64_t withoutG7 = 0;
        for (size_t i = 0; i < p.sampleStacks.size(); ++i) {
            bool through = false;
            for (const LocationId loc : p.stack(p.sampleStacks[i]))
                for (const SymbolId f : symbols.frames(loc))
                    through = through || symbols.displayName(f) == "g7";
            withoutG7 += through ? 0 : p.sampleValues[i];
        }
        QVERIFY(withoutG7 > 0 && withoutG7 < p.totalValue(0));
        for (const auto action : { FilterRule::Action::Hide, FilterRule::Action::Ignore }) {
            const std::vector<FilterRule> rules { FilterRule { action, FilterRule::Target::Function, "g7" } };
            const StackFilter filter = StackFilter::build(p, symbols, rules, false);
            const CallTree one = CallTree::build(p, symbols, 0, dir, nullptr, &filter, 1);
            QVERIFY(one.size() > 1000 && one.size() < byPath.size());
            QCOMPARE(one.totalValue(), action == FilterRule::Action::Hide ? p.totalValue(0) : withoutG7);
            for (const unsigned threads : { 2u, 3u }) {
                const CallTree many = CallTree::build(p, symbols, 0, dir, nullptr, &filter, threads);
                QCOMPARE(many.size(), one.size());
                for (uint32_t i = 0; i < one.size(); ++i) {
                    QCOMPARE(many.node(NodeId(i)).symbol, one.node(NodeId(i)).symbol);
                    QCOMPARE(many.node(NodeId(i)).total, one.node(NodeId(i)).total);
                    QCOMPARE(many.node(NodeId(i)).self, one.node(NodeId(i)).self);
                }
            }
        }
    }
    checkPreviews(p);
}

QTEST_GUILESS_MAIN(TestCallTree)
#include "tst_calltree.moc"
