// The top-down and bottom-up call trees over the symbols of analysis/symboltable.h.
#pragma once

#include "model/analysis/symboltable.h"
#include "model/core/ids.h"
#include "model/core/profile.h"
#include "model/core/progress.h"

#include <span>
#include <string>
#include <vector>

namespace symflame::model {

class StackFilter;

using NodeId = Id<struct NodeTag>;

struct CallTreeNode {
    SymbolId symbol;  ///< invalid for the root
    NodeId parent;    ///< invalid for the root
    uint32_t depth = 0; ///< 0 for the root
    int64_t self = 0;
    int64_t total = 0;
    uint32_t childrenBegin = 0; ///< children are contiguous in CallTree::m_children
    uint32_t childCount = 0;
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
    std::span<const NodeId> children(NodeId id) const
    {
        const auto& n = m_nodes[id.index()];
        return {m_children.data() + n.childrenBegin, n.childCount};
    }
    int64_t totalValue() const { return m_nodes.empty() ? 0 : m_nodes[0].total; }
    Direction direction() const { return m_direction; }
    /// The minTotal of a preview (nodes below it left out); 0 for a complete tree.
    int64_t omittedBelow() const { return m_omittedBelow; }
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
    std::vector<NodeId> m_children;
    Direction m_direction = Direction::TopDown;
    int64_t m_omittedBelow = 0;
};

} // namespace symflame::model
