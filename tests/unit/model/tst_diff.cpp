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

/// Per path (root first, or leaf first for bottom-up) the value of the folded stacks that are
/// that path exactly, and every prefix present with 0.
QHash<QString, int64_t> pathSelves(const QByteArray& folded, bool bottomUp)
{
    QHash<QString, int64_t> out;
    for (const QByteArray& line : folded.split('\n')) {
        if (line.trimmed().isEmpty())
            continue;
        const qsizetype space = line.lastIndexOf(' ');
        QStringList frames = QString::fromUtf8(line.left(space)).split(QLatin1Char(';'));
        if (bottomUp)
            std::reverse(frames.begin(), frames.end());
        for (qsizetype k = 1; k < frames.size(); ++k)
            out[frames.mid(0, k).join(QLatin1Char(';'))] += 0;
        out[frames.join(QLatin1Char(';'))] += line.mid(space + 1).toLongLong();
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

/// A profile of one binary (/usr/lib/libx.so of the build ID) without symbols: each stack's
/// addresses leaf first, with its value.
Profile unsymbolizedProfile(const char* buildId, const std::vector<std::pair<std::vector<uint64_t>, int64_t>>& stacks)
{
    Profile p;
    p.strings.intern("");
    p.sampleTypes.push_back({ p.strings.intern("cpu"), p.strings.intern("nanoseconds") });
    Mapping m;
    m.start = 0x10000;
    m.limit = 0x90000;
    m.file = p.strings.intern("/usr/lib/libx.so");
    m.buildId = p.strings.intern(buildId);
    p.mappings.push_back(m);
    std::vector<LocationId> locs;
    for (const auto& [addresses, value] : stacks) {
        locs.clear();
        for (const uint64_t a : addresses) {
            Location l;
            l.mapping = MappingId(uint32_t(0));
            l.address = a;
            locs.push_back(LocationId(uint32_t(p.locations.size())));
            p.locations.push_back(l);
        }
        p.addSample(p.internStack(locs), std::vector<int64_t> { value });
    }
    p.finishBuilding();
    return p;
}

/// The names of the leaf-most path of NEW's top-down tree and whether each node met BASE's,
/// with BASE's total: "name:base" per level, "name:-" where there is no match.
QStringList matchedPath(const DiffProfile& diff)
{
    const Profile p = sideBySide(diff);
    const SymbolTable symbols = SymbolTable::build(p);
    const CallTree next = CallTree::build(p, symbols, 0, CallTree::Direction::TopDown);
    const CallTree base = CallTree::build(p, symbols, 1, CallTree::Direction::TopDown);
    const auto match = matchNodes(next, base, symbols);
    QStringList out;
    for (NodeId n = next.root(); !next.children(n).empty();) {
        n = next.children(n)[0];
        out << QString::fromStdString(symbols.displayName(next.node(n).symbol)) + QLatin1Char(':')
                + (match[n.index()].valid() ? QString::number(base.node(match[n.index()]).total) : QStringLiteral("-"));
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
        Profile baseProfile = profileFromFolded(baseFolded), newProfile = profileFromFolded(newFolded);
        // Each side's stacks stay its own (MergeOptions::stacksApart): a stack of both is two.
        const size_t stacks = baseProfile.stackCount() + newProfile.stackCount();
        auto diff = diffProfiles(std::move(baseProfile), std::move(newProfile));
        QVERIFY2(diff.ok(), diff.ok() ? "" : diff.error().message.c_str());
        QCOMPARE(diff->profile.stackCount(), stacks);
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
    // The change tree (widths by the size of the change): each node's total is the sum over the
    // paths below it (itself included) of |new self - base self|, from the folded stacks; every
    // path with a change is there, none without.
    void changeTree()
    {
        QRandomGenerator rng(7);
        for (int round = 0; round < 20; ++round) {
            const QByteArray baseFolded = randomFolded(rng, 30), newFolded = randomFolded(rng, 30);
            auto diff = diffProfiles(profileFromFolded(baseFolded), profileFromFolded(newFolded));
            QVERIFY(diff.ok());
            const Profile p = sideBySide(*diff);
            const SymbolTable symbols = SymbolTable::build(p);
            for (const auto direction : { CallTree::Direction::TopDown, CallTree::Direction::BottomUp }) {
                const bool bottomUp = direction == CallTree::Direction::BottomUp;
                QHash<QString, int64_t> change = pathSelves(newFolded, bottomUp);
                for (auto [path, v] : pathSelves(baseFolded, bottomUp).asKeyValueRange())
                    change[path] -= v;
                QHash<QString, int64_t> width;
                for (auto [path, delta] : change.asKeyValueRange()) {
                    const QStringList frames = path.split(QLatin1Char(';'));
                    for (qsizetype k = 1; k <= frames.size(); ++k)
                        width[frames.mid(0, k).join(QLatin1Char(';'))] += delta < 0 ? -delta : delta;
                }
                const CallTree tree = CallTree::buildOfChange(p, symbols, 0, 1, direction);
                int64_t all = 0;
                QSet<QString> seen;
                for (size_t i = 1; i < tree.size(); ++i) {
                    const QString path = pathOf(tree, symbols, NodeId(i));
                    QCOMPARE(tree.node(NodeId(i)).total, width.value(path));
                    QVERIFY(tree.node(NodeId(i)).total > 0);
                    seen << path;
                    if (tree.depth(NodeId(i)) == 1)
                        all += tree.node(NodeId(i)).total;
                    // Children in name order, consecutive, pointing back at their parent.
                    for (const NodeId c : tree.children(NodeId(i)))
                        QCOMPARE(tree.node(c).parent, NodeId(i));
                }
                QCOMPARE(tree.totalValue(), all);
                for (auto [path, w] : width.asKeyValueRange())
                    QVERIFY2(w == 0 || seen.contains(path), qPrintable(path));
            }
        }
    }

    // Only the sample types both profiles have are compared, in NEW's order, with their values;
    // none in common is an error.
    void commonSampleTypes()
    {
        // folded's one value becomes type a (x1), b (x10) or c (x100), as given.
        const auto typed = [](const QByteArray& folded, const std::vector<std::pair<const char*, int64_t>>& types) {
            Profile p = profileFromFolded(folded);
            const std::vector<int64_t> one = p.sampleValues;
            p.sampleTypes.clear();
            p.sampleValues.clear();
            for (const auto& [name, scale] : types)
                p.sampleTypes.push_back({ p.strings.intern(name), p.strings.intern("count") });
            for (const int64_t v : one)
                for (const auto& [name, scale] : types)
                    p.sampleValues.push_back(v * scale);
            p.defaultSampleType = p.sampleTypes.size() - 1;
            return p;
        };
        auto diff = diffProfiles(typed("main;f 3\n", { { "a", 1 }, { "b", 10 } }), typed("main;f 5\n", { { "c", 100 }, { "b", 10 }, { "a", 1 } }));
        QVERIFY2(diff.ok(), diff.ok() ? "" : diff.error().message.c_str());
        const Profile& p = diff->profile;
        QCOMPARE(p.sampleTypes.size(), size_t(2));
        QCOMPARE(p.str(p.sampleTypes[0].type), std::string_view("b")); // NEW's order
        QCOMPARE(p.str(p.sampleTypes[1].type), std::string_view("a"));
        QCOMPARE(p.totalValue(0), int64_t(50 - 30));
        QCOMPARE(p.totalValue(1), int64_t(5 - 3));
        QCOMPARE(p.str(p.sampleTypes[p.defaultSampleType].type), std::string_view("a")); // NEW's default, kept
        auto none = diffProfiles(typed("main;f 3\n", { { "a", 1 } }), typed("main;f 5\n", { { "c", 100 } }));
        QVERIFY(!none.ok());
        QVERIFY2(none.error().message.find("cannot be compared") != std::string::npos, none.error().message.c_str());
    }

    // Frames without symbols: of one build they meet by address; of a rebuilt binary (the same
    // file name, another build ID) the addresses mean nothing to each other, and the frames meet
    // by the binary's name.
    void unsymbolizedFrames()
    {
        const auto base = [] { return unsymbolizedProfile("aaaa", { { { 0x11000, 0x12000 }, 10 } }); };
        auto same = diffProfiles(base(), unsymbolizedProfile("aaaa", { { { 0x11000, 0x12000 }, 30 } }));
        QVERIFY(same.ok());
        QCOMPARE(matchedPath(*same), (QStringList { QStringLiteral("libx.so+0x2000:10"), QStringLiteral("libx.so+0x1000:10") }));
        // One build, other addresses: other code, no match.
        auto moved = diffProfiles(base(), unsymbolizedProfile("aaaa", { { { 0x11800, 0x12000 }, 30 } }));
        QVERIFY(moved.ok());
        QCOMPARE(matchedPath(*moved), (QStringList { QStringLiteral("libx.so+0x2000:10"), QStringLiteral("libx.so+0x1800:-") }));
        // Rebuilt: every address moved, the frames meet by the binary's name.
        auto rebuilt = diffProfiles(base(), unsymbolizedProfile("bbbb", { { { 0x11840, 0x12040 }, 30 } }));
        QVERIFY(rebuilt.ok());
        QCOMPARE(matchedPath(*rebuilt), (QStringList { QStringLiteral("[libx.so]:10"), QStringLiteral("[libx.so]:10") }));
        // Their locations stay unsymbolized.
        for (const Location& l : rebuilt->profile.locations)
            QCOMPARE(l.status, FrameStatus::BinaryOnly);
    }

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
