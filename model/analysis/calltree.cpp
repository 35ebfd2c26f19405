// Call trees. Values are summed per distinct stack first; the tree is then built
// one depth at a time from each stack's sequence of symbol name ranks (see CallTree::build),
// which numbers the nodes breadth-first with children in name order, so that children (and
// whole depths) are consecutive ids. (A stack of one-frame locations is read in place, through
// a rank per location, instead of having its ranks written out.) Big trees use several threads: the
// items are made per chunk of stacks, and below the first levels each thread grows the subtrees
// of a range of nodes, the threads in step level by level so that each level's nodes go straight
// to their place.
#include "model/analysis/calltree.h"

#include "model/core/bigarray.h"
#include "model/core/frameformat.h"
#include "model/core/mix.h"
#include "model/core/parallel.h"
#include "model/analysis/stackfilter.h"

#include <algorithm>
#include <cassert>
#include <limits>
#include <numeric>
#include <atomic>
#include <barrier>
#include <bit>
#include <thread>
#include <span>
#include <unordered_map>

namespace symflame::model {

namespace {

constexpr uint32_t kNone = 0xffffffffu;
/// How many upcoming frames of a stack CallTree::build keeps in each item.
constexpr uint32_t kWindow = 4;

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

namespace {

/// One stack still going deeper while CallTree::build grows the tree a level at a time: the
/// node it has reached, where its frame at the current level is, how many frames follow, which
/// stack it is, and a window of its next ranks, so that the frames (far too many for the
/// cache, and read in no useful order) are touched once per kWindow levels rather than once
/// per level. Items are copied once per level, so they are kept small (40 bytes): the value is
/// looked up only where the stack ends, and totals are summed from self values at the end.
///
/// A stack's frames are read in one of two ways. Most stacks are of locations with one frame
/// each, and then the item walks the profile's own stackLocations (in walk order: backwards
/// for top-down, as they are stored leaf first), a location's rank from RankSource::locRank.
/// The other stacks (inline chains, or a filter that rewrote them) have their ranks written
/// out in walk order in a sequence of their own, seq.
struct Item {
    /// Leaves the fields unset: arrays of items are made to be written over (next, the first
    /// level), not zeroed first. Whoever makes an item sets every field.
    Item() {}
    uint32_t node;
    uint32_t left; ///< frames after the current one
    union {
        const uint32_t* seq; ///< the current frame in seq
        const LocationId* loc; ///< the current frame's location in the profile's stackLocations
    } at;
    uint32_t stack; ///< index into value
    uint16_t off; ///< the current frame's rank is window[off]
    uint16_t inSeq; ///< 1: at.seq, else at.loc
    uint32_t window[kWindow];
    uint32_t rank() const { return window[off]; }
};

/// How an item's frames become ranks when it walks the profile's locations.
struct RankSource {
    const uint32_t* locRank = nullptr; ///< by location, when it has one frame
    int step = 1; ///< -1 top-down (toward the root), +1 bottom-up
};

/// Fills its window from its current frame on.
void fillWindow(Item& it, const RankSource& source)
{
    const uint32_t n = std::min<uint32_t>(kWindow, it.left + 1);
    if (it.inSeq) {
        for (uint32_t k = 0; k < n; ++k)
            it.window[k] = it.at.seq[k];
    } else {
        const LocationId* loc = it.at.loc;
        for (uint32_t k = 0; k < n; ++k, loc += source.step)
            it.window[k] = source.locRank[loc->index()];
    }
}

/// Moves it on to its next frame.
void advance(Item& it, const RankSource& source)
{
    if (it.inSeq)
        ++it.at.seq;
    else
        it.at.loc += source.step;
    --it.left;
    if (++it.off == kWindow) {
        it.off = 0;
        fillWindow(it, source);
    }
}

/// A hint to load what the item's next window will be filled from.
void prefetchNextWindow(const Item& it, const RankSource& source)
{
    if (it.off + 1 != kWindow)
        return;
    if (it.inSeq)
        prefetch(it.at.seq + 1);
    else
        prefetch(it.at.loc + source.step);
}

/// Grows the tree below the items of one level, level after level. Node ids below base are
/// nodes of a shared array (the levels built before the work was split; this grower owns the
/// ones its items start at), ids from base on are its own nodes, local[id - base]. Each step
/// makes the nodes of one depth, so a grower's nodes of one depth are consecutive.
struct LevelGrower {
    const int64_t* value = nullptr;
    RankSource source;
    std::vector<CallTreeNode>* shared = nullptr;
    uint32_t base = 0;
    std::vector<CallTreeNode> local;
    size_t levelStart = 0; ///< index in local of the last step's first node
    std::vector<Item> level, next;
    /// The items of the first level to grow from, when they are another array's (the shared
    /// first level): read from there by the first step instead of being copied into level.
    std::span<const Item> pending;
    bool hasItems() const { return !level.empty() || !pending.empty(); }
    std::vector<uint64_t> keys;
    /// A preview's cut (CallTree::build's minTotal): a group of items whose values sum to less
    /// makes no node and goes no deeper. 0 keeps everything.
    int64_t minTotal = 0;

    CallTreeNode& node(uint32_t id) { return id < base ? (*shared)[id] : local[id - base]; }

    /// Long runs (near the root, and along a hot path, most items of a level are one run) are
    /// sorted by their rank bytes, least significant first: each pass is stable, so equal ranks
    /// keep their index order, as sorting the (rank, index) keys would.
    static constexpr size_t kRadixFrom = 1024;
    uint32_t rankBits = 32; ///< bits that a rank can use
    std::vector<uint64_t> scratch;
    void radixSortByRank()
    {
        scratch.resize(keys.size());
        for (uint32_t shift = 32; shift < 32 + rankBits; shift += 8) {
            size_t count[257] = {};
            for (const uint64_t k : keys)
                ++count[((k >> shift) & 0xff) + 1];
            for (size_t b = 1; b < 257; ++b)
                count[b] += count[b - 1];
            for (const uint64_t k : keys)
                scratch[count[(k >> shift) & 0xff]++] = k;
            keys.swap(scratch);
        }
    }

    /// Long runs out of rank order are split by counting instead (splitByCounting).
    static constexpr size_t kCountFrom = 256;
    uint32_t rankCount = 0; ///< ranks there are (the symbols)
    /// A rank's part of the run being split: its items that go on, its node, the values of its
    /// items (all of them, and those that end there).
    struct RankSlot {
        uint32_t continuing = 0; ///< items that go on; then where the next of them goes in next
        uint32_t node = 0;
        int64_t sum = 0;
        int64_t self = 0;
        bool touched = false;
        bool kept = false;
    };
    std::vector<RankSlot> perRank; ///< by rank; all default between runs
    std::vector<uint32_t> touched; ///< ranks met in the run being split

    /// Makes the children of parent from the run of items (all at parent), which are not in
    /// rank order: a pass counts each rank's items and sums their values (the ranks of one run
    /// are few, so their slots stay in the cache), the ranks met are sorted, and a second pass
    /// copies each item that goes on straight to its place in next. This reads the run twice
    /// in storage order, where sorting keys would visit the wide items in rank order, a cache
    /// miss each; and a preview's dropped items are never copied.
    void splitByCounting(std::span<const Item> run, uint32_t parent)
    {
        const size_t n = run.size();
        if (perRank.size() < rankCount)
            perRank.resize(rankCount);
        touched.clear();
        for (size_t k = 0; k < n; ++k) {
            const Item& it = run[k];
            RankSlot& slot = perRank[it.rank()];
            if (!slot.touched) {
                slot.touched = true;
                touched.push_back(it.rank());
            }
            if (it.left == 0)
                slot.self += value[it.stack];
            else
                ++slot.continuing;
            if (minTotal > 0)
                slot.sum += value[it.stack];
        }
        std::sort(touched.begin(), touched.end());
        const auto firstChild = static_cast<uint32_t>(base + local.size());
        size_t cursor = next.size();
        for (const uint32_t rank : touched) {
            RankSlot& slot = perRank[rank];
            if (minTotal > 0 && slot.sum < minTotal)
                continue; // left out, with everything below it
            slot.kept = true;
            CallTreeNode node;
            node.symbol = SymbolId(rank); // turned into the symbol at the end
            node.parent = NodeId(parent);
            node.self = slot.self;
            if (minTotal > 0)
                node.total = slot.sum;
            local.push_back(node);
            slot.node = static_cast<uint32_t>(base + local.size() - 1);
            const uint32_t going = slot.continuing;
            slot.continuing = static_cast<uint32_t>(cursor);
            cursor += going;
        }
        next.resize(cursor);
        constexpr size_t kPrefetch = 64;
        for (size_t k = 0; k < n; ++k) {
            if (k + kPrefetch < n)
                prefetchNextWindow(run[k + kPrefetch], source);
            const Item& it = run[k];
            if (it.left == 0)
                continue;
            RankSlot& slot = perRank[it.rank()];
            if (!slot.kept)
                continue;
            Item& moved = next[slot.continuing++];
            moved = it;
            moved.node = slot.node;
            advance(moved, source);
        }
        for (const uint32_t rank : touched)
            perRank[rank] = RankSlot {};
        CallTreeNode& p = node(parent);
        p.childrenBegin = firstChild;
        p.childCount = static_cast<uint32_t>(base + local.size()) - firstChild;
    }

    /// Makes the nodes of the next depth from level; returns the number of items visited.
    size_t step()
    {
        levelStart = local.size();
        next.clear();
        // The items to grow from: pending, else level.
        const std::span<const Item> in = pending.empty() ? std::span<const Item>(level) : pending;
        constexpr size_t kPrefetch = 64;
        for (size_t i = 0; i < in.size();) {
            // The run of items at one node, visited in rank order. Near the root most of a run
            // goes on to the same child, so the run is checked as it is found; else (rank,
            // index) keys are sorted rather than the wide items.
            const uint32_t parent = in[i].node;
            size_t j = i + 1;
            bool sorted = true;
            for (uint32_t prev = in[i].rank(); j < in.size() && in[j].node == parent; ++j) {
                const uint32_t r = in[j].rank();
                sorted = sorted && prev <= r;
                prev = r;
            }
            const size_t runLength = j - i;
            if (!sorted && runLength >= kCountFrom) {
                splitByCounting(in.subspan(i, runLength), parent);
                i = j;
                continue;
            }
            if (!sorted) {
                keys.resize(runLength);
                for (size_t k = 0; k < runLength; ++k)
                    keys[k] = (uint64_t(in[i + k].rank()) << 32) | k;
                if (runLength <= 16) {
                    for (size_t a = 1; a < runLength; ++a)
                        for (size_t b = a; b > 0 && keys[b] < keys[b - 1]; --b)
                            std::swap(keys[b], keys[b - 1]);
                } else if (runLength < kRadixFrom) {
                    std::sort(keys.begin(), keys.end());
                } else {
                    radixSortByRank();
                }
            }
            const auto itemAt
                = [&](size_t r) -> const Item& { return in[i + (sorted ? r : size_t(keys[r] & 0xffffffffu))]; };
            const auto firstChild = static_cast<uint32_t>(base + local.size());
            uint32_t previousRank = 0;
            // Preview: the end (exclusive) of the current group of equal ranks, when it is kept.
            size_t groupEnd = 0;
            for (size_t r = 0; r < runLength; ++r) {
                if (minTotal > 0 && r >= groupEnd) {
                    const uint32_t groupRank = itemAt(r).rank();
                    int64_t sum = 0;
                    size_t e = r;
                    for (; e < runLength && itemAt(e).rank() == groupRank; ++e)
                        sum += value[itemAt(e).stack];
                    if (sum < minTotal) {
                        r = e - 1; // the group is left out
                        continue;
                    }
                    groupEnd = e;
                    CallTreeNode n;
                    n.symbol = SymbolId(groupRank);
                    n.parent = NodeId(parent);
                    n.total = sum; // known here: the cut leaves no complete subtree to sum up
                    local.push_back(n);
                    previousRank = groupRank;
                }
                // Ahead in storage order, across runs: most runs deep in a tree are one item.
                if (i + r + kPrefetch < in.size())
                    prefetchNextWindow(in[i + r + kPrefetch], source);
                const Item& it = itemAt(r);
                const uint32_t rank = it.rank();
                if (minTotal == 0 && (r == 0 || rank != previousRank)) {
                    CallTreeNode n;
                    n.symbol = SymbolId(rank); // turned into the symbol at the end
                    n.parent = NodeId(parent);
                    local.push_back(n);
                    previousRank = rank;
                }
                if (it.left == 0) {
                    local.back().self += value[it.stack];
                } else {
                    Item& n = next.emplace_back(it);
                    n.node = static_cast<uint32_t>(base + local.size() - 1);
                    advance(n, source);
                }
            }
            CallTreeNode& p = node(parent);
            p.childrenBegin = firstChild;
            p.childCount = static_cast<uint32_t>(base + local.size()) - firstChild;
            i = j;
        }
        const size_t visited = in.size();
        pending = {};
        level.swap(next);
        return visited;
    }
};

/// Runs work(g) for every g in [0, n), each on a thread of its own (on this one when n is 1).
/// Meanwhile this thread turns progress's cancellation into stop and calls report() every
/// kPollInterval. Returns false when cancelled.
template <typename Work, typename Report>
bool runOnThreads(unsigned n, Progress* progress, std::atomic<bool>& stop, Work&& work, Report&& report)
{
    if (n == 1) {
        work(0u);
        return !(progress && progress->isCancelled());
    }
    model::runThreads(n, work, [&] {
        if (progress && progress->isCancelled())
            stop.store(true, std::memory_order_relaxed);
        if (progress && !stop.load(std::memory_order_relaxed))
            report();
    });
    return !stop.load();
}

} // namespace

CallTree CallTree::build(const Profile& profile, const SymbolTable& symbols, size_t sampleType, Direction direction,
    Progress* progress, const StackFilter* filter, unsigned threads, int64_t minTotal)
{
    if (sampleType >= profile.sampleTypes.size()) {
        CallTree tree;
        tree.m_direction = direction;
        tree.m_nodes.push_back(CallTreeNode {});
        return tree;
    }
    return buildFromStackValues(
        profile, symbols, profile.valuePerStack(sampleType), direction, progress, filter, threads, minTotal);
}

CallTree CallTree::buildSampledPreview(const Profile& profile, const SymbolTable& symbols, size_t sampleType,
    Direction direction, int64_t minTotal, uint32_t every)
{
    if (every <= 1 || sampleType >= profile.sampleTypes.size())
        return build(profile, symbols, sampleType, direction, nullptr, nullptr, 0, minTotal);
    std::vector<int64_t> stackValue(profile.stackCount(), 0);
    const size_t nTypes = profile.sampleTypes.size();
    for (size_t i = 0; i < profile.sampleStacks.size(); ++i) {
        if (mix64((i + 1) * 0x9e3779b97f4a7c15ull) % every != 0)
            continue;
        const int64_t value = profile.sampleValues[i * nTypes + sampleType];
        int64_t v;
        if (__builtin_mul_overflow(value, int64_t(every), &v))
            v = value < 0 ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int64_t>::max();
        stackValue[profile.sampleStacks[i].index()] += v;
    }
    CallTree tree = buildFromStackValues(profile, symbols, std::move(stackValue), direction, nullptr, nullptr, 0, minTotal);
    tree.m_sampledEvery = every;
    return tree;
}

CallTree CallTree::buildOfChange(const Profile& profile, const SymbolTable& symbols, size_t newType, size_t baseType,
    Direction direction, Progress* progress, const StackFilter* filter)
{
    const size_t n = profile.sampleTypes.size();
    if (newType >= n || baseType >= n)
        return build(profile, symbols, n, direction); // the root alone
    std::vector<int64_t> change = profile.valuePerStack(newType);
    const std::vector<int64_t> base = profile.valuePerStack(baseType);
    for (size_t s = 0; s < change.size(); ++s)
        change[s] -= base[s];
    const CallTree signedTree = buildFromStackValues(profile, symbols, std::move(change), direction, progress, filter, 0, 0);
    return signedTree.magnitudes();
}

CallTree CallTree::magnitudes() const
{
    const size_t n = m_nodes.size();
    std::vector<int64_t> width(n);
    for (size_t i = 0; i < n; ++i)
        width[i] = m_nodes[i].self < 0 ? -m_nodes[i].self : m_nodes[i].self;
    for (size_t i = n; i-- > 1;) // children come after their parents
        width[m_nodes[i].parent.index()] += width[i];
    // Breadth-first ids with each parent's children consecutive: the nodes kept, in the same
    // order, are numbered so too.
    std::vector<uint32_t> newId(n, UINT32_MAX);
    CallTree out;
    out.m_direction = m_direction;
    for (size_t i = 0; i < n; ++i) {
        if (i > 0 && width[i] == 0)
            continue;
        const CallTreeNode& old = m_nodes[i];
        CallTreeNode node = old;
        node.self = old.self < 0 ? -old.self : old.self;
        node.total = width[i];
        node.childCount = 0;
        node.childrenBegin = 0;
        newId[i] = uint32_t(out.m_nodes.size());
        if (i > 0) {
            node.parent = NodeId(newId[old.parent.index()]);
            CallTreeNode& parent = out.m_nodes[node.parent.index()];
            if (parent.childCount++ == 0)
                parent.childrenBegin = newId[i];
        }
        out.m_nodes.push_back(node);
    }
    return out;
}

CallTree CallTree::buildFromStackValues(const Profile& profile, const SymbolTable& symbols, std::vector<int64_t> stackValue,
    Direction direction, Progress* progress, const StackFilter* filter, unsigned threads, int64_t minTotal)
{
    minTotal = std::max<int64_t>(minTotal, 0);
    if (filter && filter->isIdentity())
        filter = nullptr;
    CallTree tree;
    tree.m_direction = direction;
    tree.m_nodes.push_back(CallTreeNode {});

    if (progress)
        progress->setStage("building call tree");
    auto cancelled = [&] { return progress && progress->isCancelled(); };

    // 1. Sum values per distinct stack.
    const size_t nStacks = profile.stackCount();

    // 2. An item for each stack with a value. Ranks of each location's frames are looked up
    // once, not once per stack. A stack whose locations have one frame each is read where it is
    // (see Item), a rank looked up per frame; any other stack gets its sequence of ranks in walk
    // order (root first for top-down, leaf first for bottom-up) written out in seq, and so does
    // every stack of a filtered tree. Writing every stack out was as fast for a complete tree
    // but held a copy of all the frames: 1.1 GB of the 10M-sample profile's 5.2 GB peak.
    std::vector<uint32_t> locRankBegin(profile.locations.size() + 1, 0);
    std::vector<uint32_t> locRanks;
    std::vector<uint32_t> singleRank(profile.locations.size(), kNone); // a one-frame location's rank
    locRanks.reserve(profile.lines.size() + profile.locations.size());
    bool allSingle = true;
    for (size_t l = 0; l < profile.locations.size(); ++l) {
        for (const SymbolId f : symbols.frames(LocationId(l)))
            locRanks.push_back(symbols.nameRank(f));
        if (direction == Direction::TopDown)
            std::reverse(locRanks.begin() + locRankBegin[l], locRanks.end()); // caller first
        locRankBegin[l + 1] = static_cast<uint32_t>(locRanks.size());
        if (locRankBegin[l + 1] - locRankBegin[l] == 1)
            singleRank[l] = locRanks.back();
        else
            allSingle = false;
    }
    const RankSource source { singleRank.data(), direction == Direction::TopDown ? -1 : 1 };
    const bool inPlace = !filter;

    // Stacks are cut into consecutive chunks, one per thread, each with its own part of seq.
    // Each chunk writes its items (and their stacks' values) straight into the first level, from
    // where its stacks with a value begin, so that they lie in stack order as one thread would
    // have made them; the few places left empty (stacks that end up with no frame) are closed up
    // afterwards.
    const unsigned nThreads = threadsFor(profile.stackLocations.size(), threads);
    struct Chunk {
        size_t from = 0, to = 0; ///< stacks
        size_t first = 0; ///< its first item's place in the first level
        size_t count = 0; ///< items made
        std::vector<uint32_t> seq;
        size_t frames = 0;
        int64_t rootSelf = 0, rootTotal = 0;
    };
    std::vector<Chunk> chunks(nThreads);
    size_t itemRoom = 0;
    const std::vector<size_t> runs = profile.stackRunsByFrames(nThreads); // each chunk about the same work
    for (unsigned g = 0; g < nThreads; ++g) {
        Chunk& c = chunks[g];
        c.from = runs[g];
        c.to = runs[g + 1];
        c.first = itemRoom;
        itemRoom += size_t(std::count_if(
            stackValue.begin() + ptrdiff_t(c.from), stackValue.begin() + ptrdiff_t(c.to), [](int64_t v) { return v != 0; }));
    }
    LevelGrower top; // the levels before the work is split, and all of them on one thread
    std::vector<int64_t> value; // per item's stack
    resizeBig(value, itemRoom);
    resizeBig(top.level, itemRoom); // not zeroed (see Item): each chunk writes its part
    std::atomic<bool> stop { false };
    std::atomic<size_t> stacksDone { 0 };
    const bool cancelledEarly = !runOnThreads(nThreads, progress, stop, [&](unsigned g) {
        Chunk& c = chunks[g];
        std::vector<uint32_t>& seq = c.seq;
        if (!inPlace || !allSingle)
            seq.reserve((profile.stackBegin[c.to] - profile.stackBegin[c.from]) * 9 / 8);
        Item* items = top.level.data() + c.first;
        int64_t* values = value.data() + c.first;
        const auto add = [&](Item& it, int64_t v) {
            it.stack = static_cast<uint32_t>(c.first + c.count);
            it.off = 0;
            std::fill(std::begin(it.window), std::end(it.window), 0u);
            items[c.count] = it;
            values[c.count] = v;
            ++c.count;
        };
        constexpr size_t kCheckEvery = 1u << 15;
        for (size_t s = c.from; s < c.to; ++s) {
            if ((s - c.from) % kCheckEvery == 0 && s > c.from) {
                stacksDone.fetch_add(kCheckEvery, std::memory_order_relaxed);
                if (stop.load(std::memory_order_relaxed) || (nThreads == 1 && cancelled()))
                    return;
            }
            const int64_t v = stackValue[s];
            if (v == 0)
                continue;
            c.rootTotal += v;
            const auto locs = profile.stack(StackId(s));
            if (inPlace
                && (allSingle || std::all_of(locs.begin(), locs.end(), [&](LocationId l) { return singleRank[l.index()] != kNone; }))) {
                if (locs.empty()) {
                    c.rootSelf += v;
                    continue;
                }
                Item it;
                it.node = 0;
                it.left = static_cast<uint32_t>(locs.size() - 1);
                it.at.loc = direction == Direction::TopDown ? &locs.back() : &locs.front();
                it.inSeq = 0;
                add(it, v);
                fillWindow(items[c.count - 1], source);
                c.frames += locs.size();
                continue;
            }
            const size_t begin = seq.size();
            auto append = [&](LocationId loc) {
                const uint32_t b = locRankBegin[loc.index()], e = locRankBegin[loc.index() + 1];
                if (e - b == 1) // the usual location: one frame, no inline chain
                    seq.push_back(locRanks[b]);
                else
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
                    c.rootTotal -= v;
                    seq.resize(begin);
                    continue;
                }
                seq.resize(begin + *kept);
            }
            if (seq.size() == begin) {
                c.rootSelf += v; // an empty stack
                continue;
            }
            // seq may still move: node holds the offset (items start at the root, node 0) until
            // the chunk is complete.
            Item it;
            it.node = static_cast<uint32_t>(begin);
            it.left = static_cast<uint32_t>(seq.size() - begin - 1);
            it.at.seq = nullptr; // set below, once seq is complete
            it.inSeq = 1;
            add(it, v);
            c.frames += seq.size() - begin;
        }
        // seq is complete: items of written-out stacks point into it, and start at the root.
        for (size_t k = 0; k < c.count; ++k) {
            Item& it = items[k];
            if (it.inSeq) {
                it.at.seq = seq.data() + it.node;
                it.node = 0;
                fillWindow(it, source);
            }
        }
    }, [&] { progress->setProgress(stacksDone.load(std::memory_order_relaxed), 2 * nStacks); });
    if (cancelledEarly || cancelled())
        return tree; // the root alone, total 0
    std::vector<uint32_t>().swap(locRanks);

    // The chunks' items back to back (they point into the chunks' seq, kept until the end).
    int64_t rootSelf = 0, rootTotal = 0;
    size_t itemsTotal = 0;
    {
        size_t itemCount = 0;
        for (unsigned g = 0; g < nThreads; ++g) {
            Chunk& c = chunks[g];
            if (c.first != itemCount) { // places left empty before: close up
                std::copy(top.level.begin() + ptrdiff_t(c.first), top.level.begin() + ptrdiff_t(c.first + c.count),
                    top.level.begin() + ptrdiff_t(itemCount));
                std::copy(value.begin() + ptrdiff_t(c.first), value.begin() + ptrdiff_t(c.first + c.count),
                    value.begin() + ptrdiff_t(itemCount));
                for (size_t k = 0; k < c.count; ++k)
                    top.level[itemCount + k].stack = static_cast<uint32_t>(itemCount + k);
            }
            itemCount += c.count;
            itemsTotal += c.frames;
            rootSelf += c.rootSelf;
            rootTotal += c.rootTotal;
        }
        top.level.resize(itemCount);
        value.resize(itemCount);
    }

    // 3. Level by level. `level` is sorted by the node each stack has reached; those nodes are
    // the previous level's, numbered in order. Visiting each node's run of items in rank order
    // and giving every distinct rank a new node numbers the next level breadth-first with
    // children in name order, without a hash table: the work is sequential except for
    // refilling an item's window from seq, which is prefetched a few items ahead.
    //
    // With several threads, the first levels are built here until a level has enough nodes to
    // share out; then each thread grows the subtrees below a consecutive range of that level's
    // nodes. Breadth-first order is kept when each depth lists the first thread's nodes, then
    // the second's, and so on, since their parents are in that order too.
    size_t itemsDone = 0;
    const auto rankBits = static_cast<uint32_t>(std::max<int>(1, std::bit_width(std::max<size_t>(symbols.size(), 1) - 1)));
    // What every grower (this thread's and the shared-out ones) works with.
    const auto setUp = [&](LevelGrower& g) {
        g.value = value.data();
        g.source = source;
        g.rankBits = rankBits;
        g.rankCount = static_cast<uint32_t>(symbols.size());
        g.minTotal = minTotal;
    };
    setUp(top);
    top.local = std::move(tree.m_nodes); // base 0: the grower's nodes are the tree's
    // Room for a node per frame (the most there can be) is only address space until it is
    // used, and saves copying the nodes each time the array would grow.
    constexpr size_t kMaxReserved = size_t(64) << 20;
    reserveBig(top.local, std::min(itemsTotal + 1, kMaxReserved));
    top.local[0].self = rootSelf;
    reserveBig(top.next, nThreads == 1 ? top.level.size() : 0);
    const auto shareOut = [&] {
        // Enough nodes at the level just made that every thread gets several subtrees. A
        // preview's levels stay narrow (its nodes are the wide ones) while every stack still
        // goes through them: a few nodes each are enough to share the items out.
        const size_t perThread = minTotal > 0 ? 4 : 64;
        return nThreads > 1 && top.local.size() - top.levelStart >= perThread * size_t(nThreads);
    };
    while (!top.level.empty()) {
        itemsDone += top.step();
        if (cancelled()) {
            tree.m_nodes.assign(1, CallTreeNode {});
            return tree;
        }
        if (progress)
            progress->setProgress(nStacks + nStacks * itemsDone / std::max<size_t>(itemsTotal, 1), 2 * nStacks);
        if (shareOut())
            break;
    }
    std::vector<CallTreeNode>& shared = top.local;

    std::vector<CallTreeNode>& nodes = shared;
    if (!top.level.empty()) {
        // Consecutive runs of items (by node) with about the same number of frames left each,
        // one per thread: each grows the subtrees below its nodes. Level by level, in step: a
        // thread makes its nodes of the level in a buffer of its own; once all have, the
        // level's place in the tree is known (the first thread's nodes, then the second's...,
        // as their parents are in that order) and each copies its nodes there.
        const std::vector<Item>& items = top.level;
        uint64_t framesLeft = 0;
        for (const Item& it : items)
            framesLeft += it.left + 1;
        std::vector<LevelGrower> growers(nThreads);
        size_t from = 0;
        uint64_t framesBefore = 0;
        for (unsigned g = 0; g < nThreads; ++g) {
            size_t to = from;
            const uint64_t goal = framesLeft * (g + 1) / nThreads;
            while (to < items.size() && (g + 1 == nThreads || framesBefore < goal)) {
                const uint32_t node = items[to].node;
                for (; to < items.size() && items[to].node == node; ++to)
                    framesBefore += items[to].left + 1;
            }
            LevelGrower& grower = growers[g];
            setUp(grower);
            grower.shared = &nodes;
            // Its first step reads its items where they are; top.level is kept until the end.
            grower.pending = std::span<const Item>(items).subspan(from, to - from);
            reserveBig(grower.next, to - from);
            from = to;
        }
        std::vector<Item>().swap(top.next);

        std::atomic<size_t> doneItems { itemsDone };
        std::vector<uint32_t> offset(nThreads); // where each thread's nodes of the level go
        std::atomic<bool> finished { false };
        for (LevelGrower& g : growers)
            g.base = static_cast<uint32_t>(nodes.size());
        std::barrier made(static_cast<std::ptrdiff_t>(nThreads), [&]() noexcept {
            // Every thread made its nodes of the level: place them, grow the tree to hold them.
            size_t cursor = nodes.size();
            bool more = false;
            for (unsigned g = 0; g < nThreads; ++g) {
                offset[g] = static_cast<uint32_t>(cursor);
                cursor += growers[g].local.size();
                more = more || growers[g].hasItems();
            }
            nodes.resize(cursor);
            finished.store(!more || stop.load(std::memory_order_relaxed));
        });
        std::barrier placed(static_cast<std::ptrdiff_t>(nThreads), [&]() noexcept {
            for (LevelGrower& g : growers)
                g.base = static_cast<uint32_t>(nodes.size());
        });
        const auto work = [&](unsigned t) {
            LevelGrower& g = growers[t];
            for (;;) {
                g.local.clear();
                if (g.hasItems() && !stop.load(std::memory_order_relaxed))
                    doneItems.fetch_add(g.step(), std::memory_order_relaxed);
                made.arrive_and_wait();
                // Ids the step gave (base + index in local) become offset + index.
                const uint32_t shift = offset[t] - g.base;
                for (size_t i = 0; i < g.local.size(); ++i) {
                    const CallTreeNode& n = g.local[i];
                    if (i == 0 || g.local[i - 1].parent != n.parent)
                        nodes[n.parent.index()].childrenBegin += shift;
                    nodes[offset[t] + i] = n;
                }
                for (Item& it : g.level)
                    it.node += shift;
                if (finished.load())
                    return;
                placed.arrive_and_wait();
            }
        };
        // Every thread must start before any waits for the others at the barriers; when one
        // cannot, none grows and this thread grows everything alone. Meanwhile this thread
        // reports progress and passes cancellation on.
        const bool allStarted = model::runThreadsAllOrNone(nThreads, work, [&] {
            if (!progress || finished.load())
                return;
            if (progress->isCancelled())
                stop.store(true, std::memory_order_relaxed);
            progress->setProgress(nStacks + nStacks * doneItems.load() / std::max<size_t>(itemsTotal, 1), 2 * nStacks);
        });
        if (!allStarted) {
            // No grower has taken a step: their items are still all of top.level's.
            LevelGrower& one = growers[0];
            one.pending = items;
            one.base = static_cast<uint32_t>(nodes.size());
            while (one.hasItems() && !cancelled()) {
                one.local.clear();
                one.step();
                nodes.insert(nodes.end(), one.local.begin(), one.local.end());
                one.base = static_cast<uint32_t>(nodes.size());
            }
            if (cancelled())
                stop.store(true);
        }
        if (stop.load()) {
            tree.m_nodes.assign(1, CallTreeNode {});
            return tree;
        }
        std::vector<Item>().swap(top.level);
    }

    // Totals (children come after their parents, so one backward pass), symbols from ranks,
    // childrenBegin 0 for leaves.
    for (size_t i = nodes.size(); i-- > 1;) {
        CallTreeNode& node = nodes[i];
        if (minTotal == 0) {
            node.total += node.self;
            nodes[node.parent.index()].total += node.total;
        }
        node.symbol = symbols.symbolAtRank(node.symbol.value);
        if (node.childCount == 0)
            node.childrenBegin = 0;
    }
    if (minTotal == 0)
        nodes[0].total += nodes[0].self;
    else
        nodes[0].total = rootTotal;
    tree.m_omittedBelow = minTotal;
    assert(nodes[0].total == rootTotal);
    (void)rootTotal;
    tree.m_nodes = std::move(nodes);
    return tree;
}

uint32_t CallTree::depth(NodeId id) const
{
    uint32_t d = 0;
    if (!id.valid() || id.index() >= m_nodes.size())
        return d;
    for (NodeId cur = id; cur.index() != 0; cur = m_nodes[cur.index()].parent)
        ++d;
    return d;
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
