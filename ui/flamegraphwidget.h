// The flame graph view: a custom-painted QWidget over FlameGraphPainter. Hover highlights a
// frame and shows its tooltip, a click zooms into it (it becomes the full-width root) and
// selects it, Esc or Backspace goes back, Home resets; Ctrl+wheel zooms horizontally around
// the pointer, Shift+wheel, a horizontal wheel or dragging pans; right-click asks for a menu.
#pragma once

#include "ui/flamegraphpainter.h"

#include <QWidget>

#include <memory>
#include <vector>

namespace symflame::ui {

class FlameGraphWidget : public QWidget {
    Q_OBJECT
public:
    explicit FlameGraphWidget(QWidget* parent = nullptr);

    /// Shows snapshot (null clears), unzoomed.
    void setSnapshot(std::shared_ptr<const ProfileSnapshot> snapshot);
    const std::shared_ptr<const ProfileSnapshot>& snapshot() const { return m_painter.snapshot(); }
    /// The text shown while there is no snapshot.
    void setPlaceholderText(const QString& text);
    /// See FlameGraphPainter::setShowAncestors.
    void setShowAncestors(bool show) { m_painter.setShowAncestors(show); }

    /// The node drawn full width at the bottom of the zoomed part.
    model::NodeId rootNode() const { return m_painter.root(); }
    /// Zooms into node, remembering the current root for zoomOut().
    void zoomTo(model::NodeId node);
    /// Back to the previous root; false when not zoomed.
    bool zoomOut();
    void resetZoom();
    bool isZoomed() const { return !m_history.empty(); }
    /// Zooms into node without remembering the current root (the breadcrumb's jumps).
    void jumpTo(model::NodeId node);
    /// Unzooms the root and the horizontal view; clears the history.
    void resetView();

    /// Horizontal zoom of the view around a point (x in widget coordinates).
    void zoomViewAt(double factor, int x);
    void panView(int pixels);
    bool isViewZoomed() const { return m_painter.isViewZoomed(); }

    void setOrientation(FlameGraphPainter::Orientation orientation);
    FlameGraphPainter::Orientation orientation() const { return m_painter.orientation(); }
    void setColorScheme(FlameGraphPainter::ColorScheme scheme);
    /// Per symbol id, 1 to highlight (the rest is dimmed); empty for none.
    void setHighlight(std::vector<uint8_t> symbols);
    /// The selected frame (outlined); selectedChanged tells about clicks.
    void setSelected(model::NodeId node);
    model::NodeId selected() const { return m_painter.selected(); }
    /// When false, a click selects without zooming (the sandwich view).
    void setClickZooms(bool zooms) { m_clickZooms = zooms; }

    /// The node under pos (invalid when none or a merged run), and the full hit.
    model::NodeId nodeAt(QPoint pos) const { return hitAt(pos).node; }
    FlameGraphPainter::Hit hitAt(QPoint pos) const;
    /// Where node is drawn in widget coordinates; empty when it is not visible.
    QRect frameRect(model::NodeId node) const;
    /// The tooltip text shown for pos.
    QString toolTipAt(QPoint pos) const;
    /// The label of a node as drawn.
    QString label(model::NodeId node) const { return m_painter.label(node); }

    const FlameGraphPainter& painter() const { return m_painter; }
    FlameGraphPainter& painter() { return m_painter; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

signals:
    /// The zoom root changed (label of the new root).
    void rootChanged(const QString& label);
    /// The pointer moved onto another frame; an empty summary when it left them.
    void hoverChanged(const QString& summary);
    /// A frame was clicked (or selected by setSelected).
    void selectedChanged(model::NodeId node);
    /// The horizontal view was zoomed or panned.
    void viewChanged();
    /// Right-click on a frame (node may be invalid for the background or a merged run).
    void contextMenuRequested(model::NodeId node, const QPoint& globalPos);

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    bool event(QEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    void relayout();
    /// The frame an arrow key moves the selection to from `from` (parent, widest child, the
    /// sibling drawn beside it); invalid when there is none. No selection: the view's root.
    model::NodeId neighbour(model::NodeId from, int key) const;
    void setRoot(model::NodeId node);
    void setHover(const FlameGraphPainter::Hit& hit);

    // mutable: hit testing lays out on demand when the width changed without a resize event
    // (a hidden widget gets its resize event only when shown).
    mutable FlameGraphPainter m_painter;
    std::vector<model::NodeId> m_history;
    FlameGraphPainter::Hit m_hover;
    model::NodeId m_pressed;
    bool m_pressedValid = false;
    QPoint m_pressPos;
    QPoint m_lastDragPos;
    bool m_dragging = false;
    bool m_clickZooms = true;
    int m_contentHeight = 0;
    QString m_placeholder;
};

} // namespace symflame::ui
