// Flame graph layout: one row per depth below the layout root, built row by row from the
// previous one, so every row comes out sorted by x without sorting. Children start at their
// parent's left edge in the call tree's (name) order, or heaviest first in a bottom-up tree;
// the parent's self value is the gap on the right.
#include "model/analysis/flamelayout.h"

#include <algorithm>

namespace symflame::model {

FlameLayout FlameLayout::build(const CallTree& tree, NodeId root, int64_t minWidth, int64_t viewBegin, int64_t viewEnd)
{
    FlameLayout layout;
    layout.m_root = root;
    if (!root.valid() || root.index() >= tree.size())
        return layout;
    const int64_t total = tree.node(root).total;
    layout.m_total = total;
    layout.m_rowBegin.push_back(0);
    if (total <= 0)
        return layout;

    layout.m_frames.push_back(FlameFrame { root, 0, total, 1 });
    layout.m_rowBegin.push_back(1);
    size_t rowStart = 0;
    // Bottom-up, the heaviest leaves (and, above them, the heaviest callers) first: a reader
    // of a callers graph looks for what costs most, and names say nothing of the order there.
    const bool byWeight = tree.direction() == CallTree::Direction::BottomUp;
    std::vector<NodeId> ordered;
    for (;;) {
        const size_t rowEnd = layout.m_frames.size();
        for (size_t i = rowStart; i < rowEnd; ++i) {
            // Copy: push_back below may reallocate m_frames.
            const FlameFrame parent = layout.m_frames[i];
            if (!parent.node.valid() || parent.width < minWidth)
                continue; // merged runs and frames too narrow are not descended into
            int64_t x = parent.x;
            FlameFrame run { NodeId(), 0, 0, 0 };
            auto flushRun = [&] {
                if (run.merged == 0)
                    return;
                if (run.merged == 1) {
                    // A lone narrow frame keeps its identity (still not descended into).
                    layout.m_frames.push_back(run);
                } else {
                    run.node = NodeId();
                    layout.m_frames.push_back(run);
                }
                run = FlameFrame { NodeId(), 0, 0, 0 };
            };
            const auto place = [&](NodeId child) {
                const int64_t w = tree.node(child).total;
                if (w <= 0)
                    return; // nothing to draw; negative totals (diffs) have no width
                if (x + w <= viewBegin || x >= viewEnd) {
                    flushRun(); // outside the view: neither drawn nor merged with what is
                    x += w;
                    return;
                }
                if (w < minWidth) {
                    if (run.merged == 0) {
                        run.x = x;
                        run.node = child;
                    }
                    run.width += w;
                    ++run.merged;
                } else {
                    flushRun();
                    layout.m_frames.push_back(FlameFrame { child, x, w, 1 });
                }
                x += w;
            };
            const NodeRange children = tree.children(parent.node);
            if (byWeight && children.size() > 1) {
                ordered.assign(children.begin(), children.end());
                std::stable_sort(ordered.begin(), ordered.end(),
                    [&](NodeId a, NodeId b) { return tree.node(a).total > tree.node(b).total; });
                for (const NodeId child : ordered)
                    place(child);
            } else {
                for (const NodeId child : children)
                    place(child);
            }
            flushRun();
        }
        if (layout.m_frames.size() == rowEnd)
            break;
        layout.m_rowBegin.push_back(static_cast<uint32_t>(layout.m_frames.size()));
        rowStart = rowEnd;
    }
    return layout;
}

const FlameFrame* FlameLayout::hitTest(size_t depth, int64_t x) const
{
    if (depth >= depthCount())
        return nullptr;
    const auto frames = row(depth);
    // The last frame starting at or before x.
    auto it = std::upper_bound(
        frames.begin(), frames.end(), x, [](int64_t value, const FlameFrame& f) { return value < f.x; });
    if (it == frames.begin())
        return nullptr;
    --it;
    return x < it->x + it->width ? &*it : nullptr;
}

std::span<const FlameFrame> FlameLayout::rowRange(size_t depth, int64_t x0, int64_t x1) const
{
    if (depth >= depthCount() || x0 >= x1)
        return {};
    const auto frames = row(depth);
    // Frames do not overlap, so their right edges are sorted as well as their left edges.
    auto first = std::upper_bound(
        frames.begin(), frames.end(), x0, [](int64_t value, const FlameFrame& f) { return value < f.x + f.width; });
    auto last
        = std::lower_bound(first, frames.end(), x1, [](const FlameFrame& f, int64_t value) { return f.x < value; });
    return { first, last };
}

} // namespace symflame::model
