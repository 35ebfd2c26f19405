// The top-down and bottom-up call trees over the symbols of analysis/symboltable.h.
#pragma once

#include "model/analysis/symboltable.h"
#include "model/core/ids.h"
#include "model/core/profile.h"
#include "model/core/progress.h"

#include <cstddef>
#include <iterator>
#include <span>
#include <string>
#include <vector>

namespace symflame::model {

class StackFilter;

using NodeId = Id<struct NodeTag>;

/// 32 bytes: a 10M-sample profile's complete tree has about 50M of them. (The depth is not
/// kept: CallTree::depth walks up to the root.)
struct CallTreeNode {
    SymbolId symbol;  ///< invalid for the root
    NodeId parent;    ///< invalid for the root
    int64_t self = 0;
    int64_t total = 0;
    uint32_t childrenBegin = 0; ///< the first child's id (children are consecutive ids); 0 for a leaf
    uint32_t childCount = 0;
};

/// A node's children: the ids first .. first + count - 1, as a random-access range of NodeId.
class NodeRange {
public:
    class iterator {
    public:
        using iterator_concept = std::random_access_iterator_tag;
        using iterator_category = std::input_iterator_tag; // yields values, not references
        using value_type = NodeId;
        using difference_type = std::ptrdiff_t;
        using reference = NodeId;

        constexpr iterator() = default;
        constexpr explicit iterator(uint32_t id) : m_id(id) {}
        constexpr NodeId operator*() const { return NodeId(m_id); }
        constexpr NodeId operator[](difference_type n) const { return NodeId(static_cast<uint32_t>(m_id + n)); }
        constexpr iterator& operator++() { ++m_id; return *this; }
        constexpr iterator operator++(int) { iterator old = *this; ++m_id; return old; }
        constexpr iterator& operator--() { --m_id; return *this; }
        constexpr iterator operator--(int) { iterator old = *this; --m_id; return old; }
        constexpr iterator& operator+=(difference_type n) { m_id = static_cast<uint32_t>(m_id + n); return *this; }
        constexpr iterator& operator-=(difference_type n) { m_id = static_cast<uint32_t>(m_id - n); return *this; }
        friend constexpr iterator operator+(iterator it, difference_type n) { return it += n; }
        friend constexpr iterator operator+(difference_type n, iterator it) { return it += n; }
        friend constexpr iterator operator-(iterator it, difference_type n) { return it -= n; }
        friend constexpr difference_type operator-(iterator a, iterator b)
        {
            return static_cast<difference_type>(a.m_id) - static_cast<difference_type>(b.m_id);
        }
        friend constexpr auto operator<=>(iterator, iterator) = default;

    private:
        uint32_t m_id = 0;
    };

    constexpr NodeRange() = default;
    constexpr NodeRange(uint32_t first, uint32_t count) : m_first(first), m_count(count) {}
    constexpr iterator begin() const { return iterator(m_first); }
    constexpr iterator end() const { return iterator(m_first + m_count); }
    constexpr auto rbegin() const { return std::reverse_iterator<iterator>(end()); }
    constexpr auto rend() const { return std::reverse_iterator<iterator>(begin()); }
    constexpr size_t size() const { return m_count; }
    constexpr bool empty() const { return m_count == 0; }
    constexpr NodeId operator[](size_t i) const { return NodeId(static_cast<uint32_t>(m_first + i)); }
    constexpr NodeId front() const { return NodeId(m_first); }
    constexpr NodeId back() const { return NodeId(m_first + m_count - 1); }

private:
    uint32_t m_first = 0;
    uint32_t m_count = 0;
};

/// Top-down: root's children are the outermost frames (main), leaves are where time was spent;
/// self = value of samples whose stack ends at the node. Bottom-up (inverted): root's children
/// are the innermost frames, each path goes toward the callers; a node's total is the value of
/// the samples whose stack ends (leaf side) with that path, self the part where the path is the
/// whole stack. Inline frames are nodes of their own. Children are sorted by display name.
class CallTree {
public:
    enum class Direction { TopDown, BottomUp };

    /// Builds the tree of one sample type. Nodes are numbered breadth-first with children in
    /// name order, so each node's children are consecutive ids and every depth is a consecutive
    /// id range. When progress reports cancellation the result is a tree of the root alone with
    /// total 0; callers check progress->isCancelled(). An out-of-range sampleType gives the same.
    /// A filter (focus, ignore, hide, collapsed recursion, sandwich) reshapes every stack first.
    /// Big trees are grown on several threads (threads 0: one per core, at most 8, and one for
    /// small trees); the result is the same for every number of threads.
    ///
    /// minTotal > 0 builds a preview: nodes whose total is below minTotal are left out with
    /// their subtrees, so the tree holds what a flame graph shows at a width where such nodes
    /// are narrower than a pixel, at a fraction of the cost. Every node kept has the total and
    /// self of the full tree's node on the same path; a node's total can then exceed its self
    /// plus its children's totals by what was left out.
    static CallTree build(const Profile& profile, const SymbolTable& symbols, size_t sampleType,
                          Direction direction = Direction::TopDown, Progress* progress = nullptr,
                          const StackFilter* filter = nullptr, unsigned threads = 0, int64_t minTotal = 0);

    /// A preview estimated from one sample in `every` (chosen by a hash of the sample's index, so
    /// that no period in the samples' order is followed), each standing for `every` samples: the
    /// tree build() makes with minTotal, at about 1/every of the work, for a first look at a
    /// profile too big to build at once. Every total is an estimate (sampledEvery() is `every`);
    /// every 0 or 1 is build() itself.
    static CallTree buildSampledPreview(const Profile& profile, const SymbolTable& symbols, size_t sampleType,
                                        Direction direction, int64_t minTotal, uint32_t every);

    /// The tree of a comparison's change drawn as pprof draws a diff's flame graph: the tree of
    /// NEW's values minus BASE's (types newType and baseType of a side-by-side profile) over
    /// symbol paths, each node's self the size of its path's change |new self - base self| and
    /// its total the sum of those over its subtree, so that a node is as wide as the change below
    /// it, grown or shrunk; paths with no change are left out. Same numbering rules as build.
    static CallTree buildOfChange(const Profile& profile, const SymbolTable& symbols, size_t newType, size_t baseType,
                                  Direction direction = Direction::TopDown, Progress* progress = nullptr,
                                  const StackFilter* filter = nullptr);

    NodeId root() const { return NodeId(0u); }
    size_t size() const { return m_nodes.size(); }
    const CallTreeNode& node(NodeId id) const { return m_nodes[id.index()]; }
    NodeRange children(NodeId id) const
    {
        const auto& n = m_nodes[id.index()];
        return {n.childrenBegin, n.childCount};
    }
    /// Steps from the root down to id (0 for the root), counted by walking up: O(depth).
    uint32_t depth(NodeId id) const;
    int64_t totalValue() const { return m_nodes.empty() ? 0 : m_nodes[0].total; }
    Direction direction() const { return m_direction; }
    /// The minTotal of a preview (nodes below it left out); 0 for a complete tree.
    int64_t omittedBelow() const { return m_omittedBelow; }
    /// 1, or for a preview estimated from one sample in N (buildSampledPreview), N.
    uint32_t sampledEvery() const { return m_sampledEvery; }
    /// Nodes from the root (excluded) down to id (included).
    std::vector<NodeId> pathTo(NodeId id) const;

private:
    static CallTree buildFromStackValues(const Profile& profile, const SymbolTable& symbols,
        std::vector<int64_t> stackValue, Direction direction, Progress* progress, const StackFilter* filter,
        unsigned threads, int64_t minTotal);
    /// This tree (of signed values) with each node's self |self| and total the sum of those
    /// below it; nodes whose total is then 0 left out.
    CallTree magnitudes() const;

    std::vector<CallTreeNode> m_nodes;
    Direction m_direction = Direction::TopDown;
    int64_t m_omittedBelow = 0;
    uint32_t m_sampledEvery = 1;
};

} // namespace symflame::model
