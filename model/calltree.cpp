// Symbols and call trees. Values are summed per distinct stack first; the tree is then built
// one depth at a time from each stack's sequence of symbol name ranks (see CallTree::build),
// which numbers the nodes breadth-first with children in name order, so that children (and
// whole depths) are consecutive ids.
#include "model/calltree.h"

#include "model/frameformat.h"
#include "model/stackfilter.h"

#include <algorithm>
#include <cassert>
#include <numeric>
#include <unordered_map>

namespace symflame::model {

namespace {

constexpr uint32_t kNone = 0xffffffffu;
/// How many upcoming frames of a stack CallTree::build keeps in each item.
constexpr uint32_t kWindow = 4;

uint64_t mix64(uint64_t x)
{
    // splitmix64's finalizer: every input bit affects every output bit.
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

/// A hint to load the cache line at p: the level loop of CallTree::build refills the items'
/// windows from seq in an order that has nothing to do with where those frames are.
inline void prefetch(const void* p)
{
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(p);
#else
    (void)p;
#endif
}

} // namespace

SymbolTable SymbolTable::build(const Profile& profile)
{
    SymbolTable t;
    const size_t nLoc = profile.locations.size();
    t.m_frameBegin.reserve(nLoc + 1);
    t.m_frameBegin.push_back(0);
    t.m_frames.reserve(profile.lines.size() + nLoc);

    // Function name -> symbol, indexed by the name's string id (no hashing of strings).
    std::vector<uint32_t> byName(profile.strings.size(), kNone);
    std::unordered_map<uint64_t, uint32_t> byNameAndFile; // (name, file) of JavaScript frames
    // (mapping, address) of unsymbolized locations -> symbol, in a flat table keyed by a hash
    // of both; collisions of the hash are resolved by comparing the symbol's own fields.
    std::vector<uint32_t> unsymBuckets(1024, kNone);
    size_t unsymCount = 0;
    auto unsymBucket = [&](uint32_t mapping, uint64_t address) {
        return mix64(address * 0x9e3779b97f4a7c15ull ^ mapping) & (unsymBuckets.size() - 1);
    };
    auto growUnsym = [&] {
        std::vector<uint32_t> old(unsymBuckets.size() * 2, kNone);
        old.swap(unsymBuckets);
        for (uint32_t id : old) {
            if (id == kNone)
                continue;
            const Symbol& s = t.m_symbols[id];
            size_t i = unsymBucket(s.mapping.value, s.address);
            while (unsymBuckets[i] != kNone)
                i = (i + 1) & (unsymBuckets.size() - 1);
            unsymBuckets[i] = id;
        }
    };

    auto functionName = [&](const Line& line) -> StringId {
        if (!line.function.valid() || line.function.index() >= profile.functions.size())
            return {};
        const Function& f = profile.functions[line.function.index()];
        return f.name.empty() ? f.systemName : f.name;
    };

    for (size_t li = 0; li < nLoc; ++li) {
        const Location& loc = profile.locations[li];
        const auto lines = profile.linesOf(loc);
        bool any = false;
        for (uint32_t k = 0; k < lines.size(); ++k) {
            const StringId name = functionName(lines[k]);
            if (name.empty())
                continue;
            any = true;
            // JavaScript functions are told apart by script too: "(anonymous)", "get" or
            // "value" in different files are different functions.
            uint32_t& slot = loc.kind == FrameKind::JavaScript
                ? byNameAndFile.try_emplace((uint64_t(name.value) << 32)
                                      | profile.functions[lines[k].function.index()].file.value,
                                   kNone)
                      .first->second
                : byName[name.index()];
            if (slot == kNone) {
                slot = static_cast<uint32_t>(t.m_symbols.size());
                Symbol s;
                s.name = name;
                s.file = profile.functions[lines[k].function.index()].file;
                s.mapping = loc.mapping;
                s.address = loc.address;
                s.exemplar = LocationId(li);
                s.lineIndex = k;
                s.symbolized = true;
                t.m_symbols.push_back(s);
                t.m_names.emplace_back(profile.str(name));
            }
            t.m_frames.push_back(SymbolId(slot));
        }
        if (!any) {
            size_t i = unsymBucket(loc.mapping.value, loc.address);
            uint32_t found = kNone;
            while (unsymBuckets[i] != kNone) {
                const Symbol& s = t.m_symbols[unsymBuckets[i]];
                if (s.mapping == loc.mapping && s.address == loc.address) {
                    found = unsymBuckets[i];
                    break;
                }
                i = (i + 1) & (unsymBuckets.size() - 1);
            }
            if (found == kNone) {
                found = static_cast<uint32_t>(t.m_symbols.size());
                Symbol s;
                s.mapping = loc.mapping;
                s.address = loc.address;
                s.exemplar = LocationId(li);
                s.symbolized = false;
                t.m_symbols.push_back(s);
                t.m_names.push_back(unsymbolizedName(profile, loc));
                unsymBuckets[i] = found;
                if (++unsymCount > unsymBuckets.size() * 7 / 10)
                    growUnsym();
            }
            t.m_frames.push_back(SymbolId(found));
        }
        t.m_frameBegin.push_back(static_cast<uint32_t>(t.m_frames.size()));
    }

    std::vector<uint32_t> order(t.m_symbols.size());
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        const int c = t.m_names[a].compare(t.m_names[b]);
        return c != 0 ? c < 0 : a < b;
    });
    t.m_rank.resize(order.size());
    t.m_byRank.resize(order.size());
    for (uint32_t r = 0; r < order.size(); ++r) {
        t.m_rank[order[r]] = r;
        t.m_byRank[r] = SymbolId(order[r]);
    }
    return t;
}

CallTree CallTree::build(const Profile& profile, const SymbolTable& symbols, size_t sampleType, Direction direction,
    Progress* progress, const StackFilter* filter)
{
    if (filter && filter->isIdentity())
        filter = nullptr;
    CallTree tree;
    tree.m_direction = direction;
    tree.m_nodes.push_back(CallTreeNode {});
    tree.m_children.push_back(NodeId(0u));

    const size_t nTypes = profile.sampleTypes.size();
    if (sampleType >= nTypes)
        return tree;
    if (progress)
        progress->setStage("building call tree");
    auto cancelled = [&] { return progress && progress->isCancelled(); };

    // 1. Sum values per distinct stack.
    const size_t nStacks = profile.stackCount();
    const std::vector<int64_t> stackValue = profile.valuePerStack(sampleType);

    // 2. Each stack with a value as its sequence of symbol name ranks, in walk order (root
    // first for top-down, leaf first for bottom-up), back to back. Ranks of each location's
    // frames are looked up once, not once per stack.
    std::vector<uint32_t> locRankBegin(profile.locations.size() + 1, 0);
    std::vector<uint32_t> locRanks;
    locRanks.reserve(profile.lines.size() + profile.locations.size());
    for (size_t l = 0; l < profile.locations.size(); ++l) {
        for (const SymbolId f : symbols.frames(LocationId(l)))
            locRanks.push_back(symbols.nameRank(f));
        if (direction == Direction::TopDown)
            std::reverse(locRanks.begin() + locRankBegin[l], locRanks.end()); // caller first
        locRankBegin[l + 1] = static_cast<uint32_t>(locRanks.size());
    }

    // One item per stack still going deeper: the node it has reached, where its frame at the
    // current level is in seq, how many frames follow, which stack it is, and a window of its
    // next ranks copied from seq, so that seq (far too big for the cache, and read in no useful
    // order) is touched once per kWindow levels rather than once per level. Items are copied
    // once per level, so they are kept small (40 bytes): the value is looked up only where the
    // stack ends, and totals are summed from self values at the end.
    struct Item {
        uint32_t node;
        uint32_t left; ///< frames after the current one
        uint64_t pos; ///< index in seq of the current frame
        uint32_t stack; ///< index into value
        uint32_t off; ///< the current frame's rank is window[off]
        uint32_t window[kWindow];
        uint32_t rank() const { return window[off]; }
    };
    auto fillWindow = [](Item& it, const uint32_t* from) {
        const uint32_t n = std::min<uint32_t>(kWindow, it.left + 1);
        for (uint32_t k = 0; k < n; ++k)
            it.window[k] = from[k];
    };
    std::vector<uint32_t> seq;
    seq.reserve(profile.stackLocations.size() + profile.stackLocations.size() / 8);
    std::vector<Item> level, next;
    std::vector<int64_t> value; // per item's stack
    int64_t rootSelf = 0, rootTotal = 0;
    constexpr size_t kCheckEvery = 1u << 15;
    for (size_t s = 0; s < nStacks; ++s) {
        if (progress && s % kCheckEvery == 0) {
            if (progress->isCancelled())
                return tree; // the root alone, total 0
            progress->setProgress(s, 2 * nStacks);
        }
        const int64_t v = stackValue[s];
        if (v == 0)
            continue;
        rootTotal += v;
        const size_t begin = seq.size();
        const auto locs = profile.stack(StackId(s));
        auto append = [&](LocationId loc) {
            const uint32_t b = locRankBegin[loc.index()], e = locRankBegin[loc.index() + 1];
            seq.insert(seq.end(), locRanks.begin() + b, locRanks.begin() + e);
        };
        if (direction == Direction::TopDown)
            for (size_t i = locs.size(); i-- > 0;)
                append(locs[i]);
        else
            for (const LocationId loc : locs)
                append(loc);
        if (filter) {
            const auto kept = filter->apply(seq.data() + begin, seq.size() - begin, direction == Direction::TopDown);
            if (!kept) {
                rootTotal -= v;
                seq.resize(begin);
                continue;
            }
            seq.resize(begin + *kept);
        }
        if (seq.size() == begin) {
            rootSelf += v; // an empty stack
            continue;
        }
        Item it { 0, static_cast<uint32_t>(seq.size() - begin - 1), begin, static_cast<uint32_t>(value.size()), 0, {} };
        fillWindow(it, seq.data() + begin);
        level.push_back(it);
        value.push_back(v);
    }
    std::vector<uint32_t>().swap(locRanks);

    // 3. Level by level. `level` is sorted by the node each stack has reached; those nodes are
    // the previous level's, numbered in order. Visiting each node's run of items in rank order
    // and giving every distinct rank a new node numbers the next level breadth-first with
    // children in name order, without a hash table: the work is sequential except for
    // refilling an item's window from seq, which is prefetched a few items ahead.
    std::vector<CallTreeNode>& nodes = tree.m_nodes;
    nodes[0].self = rootSelf;
    next.reserve(level.size());

    size_t itemsDone = 0;
    const size_t itemsTotal = seq.size();
    constexpr size_t kPrefetch = 64;
    std::vector<uint64_t> keys;
    for (uint32_t depth = 1; !level.empty(); ++depth) {
        next.clear();
        for (size_t i = 0; i < level.size();) {
            // The run of items at one node, visited in rank order. Near the root most of a run
            // goes on to the same child, so the run is checked as it is found; else (rank,
            // index) keys are sorted rather than the wide items.
            const uint32_t parent = level[i].node;
            size_t j = i + 1;
            bool sorted = true;
            for (uint32_t prev = level[i].rank(); j < level.size() && level[j].node == parent; ++j) {
                const uint32_t r = level[j].rank();
                sorted = sorted && prev <= r;
                prev = r;
            }
            const size_t runLength = j - i;
            if (!sorted) {
                keys.resize(runLength);
                for (size_t k = 0; k < runLength; ++k)
                    keys[k] = (uint64_t(level[i + k].rank()) << 32) | k;
                if (runLength <= 16) {
                    for (size_t a = 1; a < runLength; ++a)
                        for (size_t b = a; b > 0 && keys[b] < keys[b - 1]; --b)
                            std::swap(keys[b], keys[b - 1]);
                } else {
                    std::sort(keys.begin(), keys.end());
                }
            }
            const auto itemAt
                = [&](size_t r) -> const Item& { return level[i + (sorted ? r : size_t(keys[r] & 0xffffffffu))]; };
            const auto firstChild = static_cast<uint32_t>(nodes.size());
            uint32_t previousRank = 0;
            for (size_t r = 0; r < runLength; ++r) {
                // Ahead in storage order, across runs: most runs deep in a tree are one item.
                if (i + r + kPrefetch < level.size()) {
                    const Item& ahead = level[i + r + kPrefetch];
                    if (ahead.off + 1 == kWindow)
                        prefetch(seq.data() + ahead.pos + 1);
                }
                const Item& it = itemAt(r);
                const uint32_t rank = it.rank();
                if (r == 0 || rank != previousRank) {
                    CallTreeNode n;
                    n.symbol = SymbolId(rank); // turned into the symbol at the end
                    n.parent = NodeId(parent);
                    n.depth = depth;
                    nodes.push_back(n);
                    previousRank = rank;
                }
                if (it.left == 0) {
                    nodes.back().self += value[it.stack];
                } else {
                    Item& n = next.emplace_back(it);
                    n.node = static_cast<uint32_t>(nodes.size() - 1);
                    ++n.pos;
                    --n.left;
                    if (++n.off == kWindow) {
                        n.off = 0;
                        fillWindow(n, seq.data() + n.pos);
                    }
                }
            }
            nodes[parent].childrenBegin = firstChild;
            nodes[parent].childCount = static_cast<uint32_t>(nodes.size()) - firstChild;
            itemsDone += j - i;
            i = j;
        }
        if (cancelled()) {
            nodes.resize(1);
            nodes[0] = CallTreeNode {};
            return tree;
        }
        if (progress)
            progress->setProgress(nStacks + nStacks * itemsDone / std::max<size_t>(itemsTotal, 1), 2 * nStacks);
        level.swap(next);
    }

    // Children come after their parents, so one backward pass sums the totals. Children are
    // the id range [childrenBegin, childrenBegin + childCount), so m_children is the identity;
    // a node without children gets childrenBegin 0.
    const size_t n = nodes.size();
    for (size_t i = n; i-- > 1;) {
        CallTreeNode& node = nodes[i];
        node.total += node.self;
        nodes[node.parent.index()].total += node.total;
        node.symbol = symbols.symbolAtRank(node.symbol.value);
        if (node.childCount == 0)
            node.childrenBegin = 0;
    }
    nodes[0].total += nodes[0].self;
    assert(nodes[0].total == rootTotal);
    (void)rootTotal;
    tree.m_children.resize(n);
    for (size_t i = 0; i < n; ++i)
        tree.m_children[i] = NodeId(static_cast<uint32_t>(i));
    return tree;
}

std::vector<NodeId> CallTree::pathTo(NodeId id) const
{
    std::vector<NodeId> path;
    if (!id.valid() || id.index() >= m_nodes.size())
        return path;
    for (NodeId cur = id; cur.valid() && cur.index() != 0; cur = m_nodes[cur.index()].parent)
        path.push_back(cur);
    std::reverse(path.begin(), path.end());
    return path;
}

} // namespace symflame::model
