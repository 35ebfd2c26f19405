// Paints a flame graph from a model::FlameLayout with QPainter: root at the bottom, one row of
// fixed height per depth, only the rows and frames inside the exposed rectangle. Shared by
// FlameGraphWidget (on screen) and `symflame render` (into a QImage, no display needed).
#pragma once

#include "model/flamelayout.h"
#include "ui/profilesnapshot.h"

#include <QColor>
#include <QFont>
#include <QRect>
#include <QString>

#include <memory>
#include <string_view>
#include <vector>

class QFontMetrics;
class QPainter;
class QPalette;

namespace symflame::ui {

class FlameGraphPainter {
public:
    /// What is under a point: a frame of the layout, or an ancestor row of the zoomed root.
    struct Hit {
        model::NodeId node; ///< invalid for a merged run of narrow frames
        int row = -1; ///< 0 = bottom row
        bool ancestor = false; ///< one of the rows below the zoomed root
        uint32_t merged = 0; ///< frames a merged run stands for
        int64_t value = 0; ///< the frame's width in value units
        QRect rect; ///< where it is painted
        bool valid() const { return row >= 0; }
    };

    FlameGraphPainter();

    /// Shows snapshot (may be null), unzoomed.
    void setSnapshot(std::shared_ptr<const ProfileSnapshot> snapshot);
    const std::shared_ptr<const ProfileSnapshot>& snapshot() const { return m_snapshot; }
    bool isEmpty() const;

    /// Makes node the root of the layout (zoom); the tree's root unzooms. Relayouts lazily.
    void setRoot(model::NodeId node);
    model::NodeId root() const { return m_root; }
    /// The nodes painted below the zoomed root, from the tree's root up to its parent.
    const std::vector<model::NodeId>& ancestors() const { return m_ancestors; }

    /// The font of the labels; the row height follows from it.
    void setFont(const QFont& font);
    const QFont& font() const { return m_font; }
    int rowHeight() const { return m_rowHeight; }

    /// Lays out for a width in pixels: frames narrower than a pixel are merged. Cheap when
    /// neither the width nor the root changed since the last call.
    void layout(int width);
    const model::FlameLayout& flameLayout() const { return m_layout; }
    /// Ancestor rows plus layout rows.
    int rowCount() const;
    int contentHeight() const { return rowCount() * m_rowHeight; }

    /// Paints into area (its bottom edge is the root row) what intersects exposed.
    void paint(QPainter& painter, const QRect& area, const QRect& exposed, const QPalette& palette,
        model::NodeId hovered = {}) const;
    /// The frame or ancestor row at pos, in the same geometry as paint(area, ...).
    Hit hitTest(const QRect& area, QPoint pos) const;
    /// Where node is painted, or an empty rect when it is not on screen (merged or outside).
    QRect frameRect(const QRect& area, model::NodeId node) const;

    /// The name shown for a node ("all" for the tree root).
    QString label(model::NodeId node) const;
    /// Rich-text tooltip: the function, self and total with units and percentages of the whole.
    QString toolTip(const Hit& hit) const;
    /// One-line summary for a status bar.
    QString summary(const Hit& hit) const;

    /// The color of a frame: warm hues hashed from the name (stable across runs), greys for
    /// frames without a symbol; darker variants for dark palettes. Always an RGB QColor.
    static QColor frameColor(std::string_view name, bool symbolized, bool dark);

private:
    std::string_view nameOf(model::NodeId node) const;
    bool isSymbolized(model::NodeId node) const;
    int rowTop(const QRect& area, int row) const { return area.bottom() + 1 - (row + 1) * m_rowHeight; }
    void paintFrame(QPainter& painter, const QFontMetrics& fm, const QRect& r, model::NodeId node, uint32_t merged,
        bool ancestor, bool hovered, bool dark, const QPalette& palette) const;

    std::shared_ptr<const ProfileSnapshot> m_snapshot;
    model::NodeId m_root;
    std::vector<model::NodeId> m_ancestors;
    model::FlameLayout m_layout;
    int m_layoutWidth = -1;
    bool m_layoutValid = false;
    QFont m_font;
    int m_rowHeight = 18;
};

} // namespace symflame::ui
