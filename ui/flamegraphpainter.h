// Paints a flame graph from a model::FlameLayout with QPainter: one row of fixed height per
// depth, root at the bottom (flame) or at the top (icicle), only the rows and frames inside the
// exposed rectangle, colored by one of several schemes, with search matches highlighted and the
// rest dimmed. Shared by FlameGraphWidget (on screen), File > Export and `symflame render`
// (into a QImage or an SVG, no display needed).
#pragma once

#include "model/analysis/flamelayout.h"
#include "ui/profilesnapshot.h"

#include <QColor>
#include <QFont>
#include <QRect>
#include <QString>

#include <functional>
#include <memory>
#include <string_view>
#include <string>
#include <unordered_map>
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
        int row = -1; ///< 0 = the root row
        bool ancestor = false; ///< one of the rows below the zoomed root
        uint32_t merged = 0; ///< frames a merged run stands for
        int64_t value = 0; ///< the frame's width in value units
        QRect rect; ///< where it is painted
        bool valid() const { return row >= 0; }
    };

    enum class Orientation { Flame, Icicle }; ///< root at the bottom, or at the top
    /// Diff: a comparison's change per frame (ProfileSnapshot::isDiff), red for more in NEW,
    /// blue for less, saturated by the relative change; the other schemes on a comparison color
    /// as on one profile.
    enum class ColorScheme { Name, Binary, Status, Kind, Diff };

    /// One entry of the color legend of the current scheme.
    struct LegendEntry {
        QString label;
        QColor color;
        std::vector<model::SymbolId> symbols; ///< the symbols drawn in this color
    };

    FlameGraphPainter();

    /// Shows snapshot (may be null), unzoomed.
    void setSnapshot(std::shared_ptr<const ProfileSnapshot> snapshot);
    const std::shared_ptr<const ProfileSnapshot>& snapshot() const { return m_snapshot; }
    bool isEmpty() const;

    /// Makes node the root of the layout (zoom); the tree's root unzooms. Shows the whole
    /// width of the new root. Relayouts lazily.
    void setRoot(model::NodeId node);
    model::NodeId root() const { return m_root; }
    /// The nodes painted below the zoomed root, from the tree's root up to its parent.
    const std::vector<model::NodeId>& ancestors() const { return m_ancestors; }

    /// The part of the root's width shown, in value units from its left edge; clamped to the
    /// root and to at least one value unit.
    void setViewRange(int64_t begin, int64_t end);
    int64_t viewBegin() const { return m_viewBegin; }
    int64_t viewEnd() const { return m_viewEnd; }
    bool isViewZoomed() const;
    /// Zooms the view by factor (> 1 magnifies) keeping the value under anchor (0..1 of the
    /// width) where it is.
    void zoomView(double factor, double anchor);
    /// Moves the view by pixels at the given width (positive shows what is to the right).
    void panView(int pixels, int width);

    void setOrientation(Orientation o) { m_orientation = o; }
    /// Whether a zoomed view draws the rows from the tree's root to the zoomed node (the
    /// default) or starts at the node (the callers and callees halves, whose root row, "all",
    /// says nothing). Takes effect at the next setRoot.
    void setShowAncestors(bool show) { m_showAncestors = show; }
    Orientation orientation() const { return m_orientation; }
    void setColorScheme(ColorScheme scheme);
    ColorScheme colorScheme() const { return m_scheme; }
    /// Per symbol id, 1 to highlight; the others are dimmed. Empty: no highlighting.
    void setHighlight(std::vector<uint8_t> symbols);
    const std::vector<uint8_t>& highlight() const { return m_highlight; }
    void setSelected(model::NodeId node) { m_selected = node; }
    model::NodeId selected() const { return m_selected; }

    /// The font of the labels; the row height follows from it.
    void setFont(const QFont& font);
    const QFont& font() const { return m_font; }
    int rowHeight() const { return m_rowHeight; }

    /// Lays out for a width in pixels: frames narrower than a pixel are merged, frames outside
    /// the view range left out. Cheap when nothing changed since the last call.
    void layout(int width);
    const model::FlameLayout& flameLayout() const { return m_layout; }
    /// Ancestor rows plus layout rows.
    int rowCount() const;
    int contentHeight() const { return rowCount() * m_rowHeight; }

    /// Paints into area what intersects exposed; the root row is at area's bottom (flame) or
    /// top (icicle).
    void paint(QPainter& painter, const QRect& area, const QRect& exposed, const QPalette& palette,
        model::NodeId hovered = {}) const;
    /// Calls fn for every frame paint(area, area, ...) draws (ancestor rows first), with the
    /// rectangle it is drawn in: for writers that describe the frames themselves (the SVG
    /// export's tooltips).
    void forEachFrame(const QRect& area, const std::function<void(const Hit&)>& fn) const;
    /// The frame or ancestor row at pos, in the same geometry as paint(area, ...).
    Hit hitTest(const QRect& area, QPoint pos) const;
    /// Where node is painted, or an empty rect when it is not on screen (merged or outside).
    QRect frameRect(const QRect& area, model::NodeId node) const;

    /// The name shown for a node ("all" for the tree root).
    QString label(model::NodeId node) const;
    /// Rich-text tooltip: the function, file:line, binary, build ID, self and total with units
    /// and percentages of the whole.
    QString toolTip(const Hit& hit) const;
    /// One-line summary for a status bar.
    QString summary(const Hit& hit) const;

    /// The fill of a node under the current scheme, before dimming or hover.
    QColor nodeColor(model::NodeId node, bool dark) const;
    /// The legend of the current scheme (empty for Name), in a stable order.
    std::vector<LegendEntry> legend(bool dark) const;

    /// The color of a frame by name: warm hues hashed from the name (stable across runs), greys
    /// for frames without a symbol; darker variants for dark palettes. Always an RGB QColor.
    static QColor frameColor(std::string_view name, bool symbolized, bool dark);
    /// A stable color per binary, hashed from its file name (last path component): for binaries
    /// beyond the palette's.
    static QColor binaryColor(std::string_view binaryName, bool dark);
    /// The color of a binary of this snapshot (by its file name): the profile's binaries in name
    /// order take the colors of a qualitative palette made to tell its colors apart, with black
    /// text readable on each (ColorBrewer's Set3, without its grey); binaries beyond it hashed
    /// (binaryColor). The same binaries get the same colors in every profile of them.
    QColor colorOfBinary(std::string_view binaryName, bool dark) const;
    static QColor statusColor(model::FrameStatus status, bool dark);
    /// The color of a change from base to next: a neutral grey when |next - base| is at most
    /// threshold (a value: noise), else red (grown) or blue (shrunk), more saturated the larger
    /// the change relative to base (full from a doubling or a halving down); or, given an
    /// absoluteScale, the larger the change against it (full at absoluteScale).
    static QColor diffColor(int64_t base, int64_t next, int64_t threshold, bool dark, int64_t absoluteScale = 0);
    /// A comparison's BASE value of a node of the tree (total), 0 for a path only in NEW; and
    /// whether the path exists on the other side at all (inBase: in BASE, or in NEW when the
    /// graph is drawn by BASE's widths).
    int64_t baseTotal(model::NodeId node) const;
    bool inBase(model::NodeId node) const;
    QColor diffNodeColor(model::NodeId node, bool dark) const;
    /// A comparison's NEW value of a node (its own, or its match's when drawn by BASE's widths).
    int64_t newTotal(model::NodeId node) const;
    /// Changes up to this share of the larger side's total count as no change (0.001 = 0.1%).
    void setDiffThreshold(double share) { m_diffThreshold = share; }
    double diffThreshold() const { return m_diffThreshold; }
    /// Saturation by the size of a change (the largest change of any frame is full) instead of
    /// by the change relative to the frame's base value: a small function that doubled is as red
    /// as the big one that doubled, unless this is on.
    void setDiffAbsolute(bool on) { m_diffAbsolute = on; }
    bool diffAbsolute() const { return m_diffAbsolute; }
    /// The largest |new - base| of the frames below the root (0 when not a comparison).
    int64_t largestChange() const { return m_largestChange; }
    static QColor kindColor(model::FrameKind kind, bool dark);

private:
    std::string_view nameOf(model::NodeId node) const;
    bool isSymbolized(model::NodeId node) const;
    int rowTop(const QRect& area, int row) const
    {
        return m_orientation == Orientation::Flame ? area.bottom() + 1 - (row + 1) * m_rowHeight
                                                   : area.top() + row * m_rowHeight;
    }
    int rowAt(const QRect& area, int y) const
    {
        return m_orientation == Orientation::Flame ? (area.bottom() - y) / m_rowHeight : (y - area.top()) / m_rowHeight;
    }
    double scale(int width) const { return double(width) / double(std::max<int64_t>(1, m_viewEnd - m_viewBegin)); }
    int xOf(const QRect& area, int64_t value) const;
    void paintFrame(QPainter& painter, const QFontMetrics& fm, const QRect& r, const QRect& visible,
        model::NodeId node, uint32_t merged, bool ancestor, bool hovered, bool dark, const QPalette& palette) const;
    model::FrameStatus statusOf(model::SymbolId symbol) const;
    model::FrameKind kindOf(model::SymbolId symbol) const;
    std::string_view binaryOf(model::SymbolId symbol) const;
    bool isInlined(model::SymbolId symbol) const;

    std::shared_ptr<const ProfileSnapshot> m_snapshot;
    std::unordered_map<uint32_t, std::string> m_labelNames; ///< group frames' symbols: their text
    std::unordered_map<std::string, int> m_binaryPalette; ///< binary file name: its palette entry
    model::NodeId m_root;
    std::vector<model::NodeId> m_ancestors;
    bool m_showAncestors = true;
    double m_diffThreshold = 0.001;
    bool m_diffAbsolute = false;
    int64_t m_largestChange = 0;
    model::FlameLayout m_layout;
    int m_layoutWidth = -1;
    bool m_layoutValid = false;
    int64_t m_viewBegin = 0;
    int64_t m_viewEnd = 0;
    Orientation m_orientation = Orientation::Flame;
    ColorScheme m_scheme = ColorScheme::Name;
    std::vector<uint8_t> m_highlight;
    model::NodeId m_selected;
    QFont m_font;
    int m_rowHeight = 18;
};

} // namespace symflame::ui
