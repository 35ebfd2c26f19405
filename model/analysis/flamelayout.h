// The flame graph's geometry, computed from a call tree without any drawing: rows per depth
// of frames with an x position and width in value units, sorted by x, so that painting and
// hit testing are a binary search per row. The widget and `symflame render` use the same layout.
#pragma once

#include "model/analysis/calltree.h"

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

namespace symflame::model {

struct FlameFrame {
    NodeId node;        ///< invalid for a merged run of frames too narrow to show
    int64_t x = 0;      ///< start, in value units from the left edge of the layout root
    int64_t width = 0;  ///< the node's total (or the merged frames' sum)
    uint32_t merged = 1; ///< how many nodes this frame stands for
};

class FlameLayout {
public:
    /// Lays out the subtree under root (which becomes row 0, full width). Siblings are in the
    /// tree's (name) order, heaviest first when the tree is bottom-up. Sibling runs each
    /// narrower than minWidth (value units) are merged into one frame, and not descended into;
    /// a lone narrow frame keeps its node but is not descended into either. Nodes with a total
    /// of zero or less take no room and get no frame.
    /// Only frames that intersect [viewBegin, viewEnd) (value units from root's left edge) are
    /// laid out, so that a horizontally zoomed view costs what it shows.
    static FlameLayout build(const CallTree& tree, NodeId root, int64_t minWidth = 0, int64_t viewBegin = 0,
        int64_t viewEnd = std::numeric_limits<int64_t>::max());

    NodeId root() const { return m_root; }
    int64_t totalWidth() const { return m_total; }
    size_t depthCount() const { return m_rowBegin.empty() ? 0 : m_rowBegin.size() - 1; }
    std::span<const FlameFrame> row(size_t depth) const
    {
        return {m_frames.data() + m_rowBegin[depth], m_frames.data() + m_rowBegin[depth + 1]};
    }
    /// The frame at depth covering x, or nullptr.
    const FlameFrame* hitTest(size_t depth, int64_t x) const;
    /// Frames of a row that intersect [x0, x1).
    std::span<const FlameFrame> rowRange(size_t depth, int64_t x0, int64_t x1) const;

private:
    NodeId m_root;
    int64_t m_total = 0;
    std::vector<uint32_t> m_rowBegin;
    std::vector<FlameFrame> m_frames;
};

} // namespace symflame::model
