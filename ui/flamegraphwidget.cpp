// FlameGraphWidget: events in, FlameGraphPainter out.
#include "ui/flamegraphwidget.h"

#include <algorithm>

#include <QContextMenuEvent>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPaintEvent>
#include <QPainter>
#include <QScrollArea>
#include <QToolTip>
#include <QWheelEvent>

#include <cmath>

namespace symflame::ui {

using namespace symflame::model;

FlameGraphWidget::FlameGraphWidget(QWidget* parent)
    : QWidget(parent)
{
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setBackgroundRole(QPalette::Base);
    m_painter.setFont(font());
    m_placeholder = tr("Open a profile with File \u203a Open, or drop a file here");
}

void FlameGraphWidget::setPlaceholderText(const QString& text)
{
    m_placeholder = text;
    if (!m_painter.snapshot())
        update();
}

void FlameGraphWidget::setSnapshot(std::shared_ptr<const ProfileSnapshot> snapshot)
{
    m_history.clear();
    m_hover = {};
    m_pressedValid = false;
    m_painter.setSnapshot(std::move(snapshot));
    relayout();
    emit rootChanged(m_painter.label(m_painter.root()));
}

void FlameGraphWidget::setRoot(NodeId node)
{
    m_painter.setRoot(node);
    m_hover = {};
    relayout();
    emit rootChanged(m_painter.label(m_painter.root()));
}

void FlameGraphWidget::zoomTo(NodeId node)
{
    if (m_painter.isEmpty() || !node.valid() || node == m_painter.root())
        return;
    m_history.push_back(m_painter.root());
    setRoot(node);
}

bool FlameGraphWidget::zoomOut()
{
    if (m_history.empty())
        return false;
    const NodeId previous = m_history.back();
    m_history.pop_back();
    setRoot(previous);
    return true;
}

void FlameGraphWidget::resetZoom()
{
    if (m_history.empty())
        return;
    m_history.clear();
    setRoot(NodeId());
}

void FlameGraphWidget::jumpTo(NodeId node)
{
    if (m_painter.isEmpty() || !node.valid())
        return;
    const auto& tree = *m_painter.snapshot()->tree;
    const auto path = tree.pathTo(node);
    // History keeps only the roots above node on its path (Back from node goes up).
    std::erase_if(m_history, [&](NodeId h) {
        return h == node || (h != tree.root() && std::find(path.begin(), path.end(), h) == path.end());
    });
    if (node == tree.root()) {
        m_history.clear();
    } else if (node != m_painter.root()) {
        if (m_history.empty())
            m_history.push_back(tree.root());
    }
    setRoot(node);
}

void FlameGraphWidget::resetView()
{
    m_history.clear();
    setRoot(NodeId());
    emit viewChanged();
}

void FlameGraphWidget::zoomViewAt(double factor, int x)
{
    if (m_painter.isEmpty() || width() <= 0)
        return;
    m_painter.zoomView(factor, double(x) / double(width()));
    m_hover = {};
    relayout();
    emit viewChanged();
}

void FlameGraphWidget::panView(int pixels)
{
    if (m_painter.isEmpty())
        return;
    m_painter.panView(pixels, width());
    m_hover = {};
    relayout();
    emit viewChanged();
}

void FlameGraphWidget::setOrientation(FlameGraphPainter::Orientation orientation)
{
    m_painter.setOrientation(orientation);
    m_hover = {};
    update();
}

void FlameGraphWidget::setColorScheme(FlameGraphPainter::ColorScheme scheme)
{
    m_painter.setColorScheme(scheme);
    update();
}

void FlameGraphWidget::setHighlight(std::vector<uint8_t> symbols)
{
    m_painter.setHighlight(std::move(symbols));
    update();
}

void FlameGraphWidget::setSelected(NodeId node)
{
    if (node == m_painter.selected())
        return;
    m_painter.setSelected(node);
    update();
    emit selectedChanged(node);
}

void FlameGraphWidget::relayout()
{
    m_painter.layout(width());
    const int h = m_painter.contentHeight();
    if (h != m_contentHeight) {
        m_contentHeight = h;
        updateGeometry(); // a scroll area around us grows to show every row
    }
    update();
}

FlameGraphPainter::Hit FlameGraphWidget::hitAt(QPoint pos) const
{
    m_painter.layout(width());
    return m_painter.hitTest(rect(), pos);
}

QRect FlameGraphWidget::frameRect(NodeId node) const
{
    m_painter.layout(width());
    return m_painter.frameRect(rect(), node);
}

QString FlameGraphWidget::toolTipAt(QPoint pos) const
{
    return m_painter.toolTip(hitAt(pos));
}

QSize FlameGraphWidget::sizeHint() const
{
    return QSize(900, std::max(400, m_contentHeight));
}

QSize FlameGraphWidget::minimumSizeHint() const
{
    return QSize(200, std::max(100, m_contentHeight));
}

void FlameGraphWidget::paintEvent(QPaintEvent* event)
{
    QPainter p(this);
    const QRect exposed = event->rect();
    p.fillRect(exposed, palette().color(QPalette::Base));
    if (!m_painter.snapshot()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap, m_placeholder);
        return;
    }
    m_painter.layout(width());
    m_painter.paint(p, rect(), exposed, palette(), m_hover.node);
}

void FlameGraphWidget::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    m_hover = {};
    relayout();
}

void FlameGraphWidget::setHover(const FlameGraphPainter::Hit& hit)
{
    if (hit.node == m_hover.node && hit.row == m_hover.row && hit.rect == m_hover.rect)
        return;
    const QRect old = m_hover.rect;
    m_hover = hit;
    update(old.adjusted(-2, -2, 2, 2));
    update(hit.rect.adjusted(-2, -2, 2, 2));
    emit hoverChanged(m_painter.summary(hit));
    if (hit.valid())
        setCursor(hit.node.valid() ? Qt::PointingHandCursor : Qt::ArrowCursor);
    else
        unsetCursor();
}

void FlameGraphWidget::mouseMoveEvent(QMouseEvent* event)
{
    if (event->buttons() & Qt::LeftButton) {
        const QPoint pos = event->position().toPoint();
        if (!m_dragging && (pos - m_pressPos).manhattanLength() > 4 && m_painter.isViewZoomed())
            m_dragging = true;
        if (m_dragging) {
            panView(m_lastDragPos.x() - pos.x());
            m_lastDragPos = pos;
            m_pressedValid = false; // a drag is not a click
            setCursor(Qt::ClosedHandCursor);
            return;
        }
    }
    const FlameGraphPainter::Hit hit = hitAt(event->position().toPoint());
    const bool moved = hit.node != m_hover.node || hit.rect != m_hover.rect;
    setHover(hit);
    // Keep a visible tooltip in step with the frame under the pointer.
    if (moved && QToolTip::isVisible()) {
        if (hit.valid())
            QToolTip::showText(event->globalPosition().toPoint(), m_painter.toolTip(hit), this, hit.rect);
        else
            QToolTip::hideText();
    }
    QWidget::mouseMoveEvent(event);
}

void FlameGraphWidget::mousePressEvent(QMouseEvent* event)
{
    if (event->button() == Qt::LeftButton) {
        const FlameGraphPainter::Hit hit = hitAt(event->position().toPoint());
        m_pressed = hit.node;
        m_pressedValid = hit.node.valid();
        m_pressPos = m_lastDragPos = event->position().toPoint();
        m_dragging = false;
        event->accept();
        return;
    }
    if (event->button() == Qt::BackButton) {
        zoomOut();
        event->accept();
        return;
    }
    QWidget::mousePressEvent(event);
}

void FlameGraphWidget::mouseReleaseEvent(QMouseEvent* event)
{
    if (event->button() == Qt::LeftButton && m_dragging) {
        m_dragging = false;
        unsetCursor();
        event->accept();
        return;
    }
    if (event->button() == Qt::LeftButton && m_pressedValid) {
        m_pressedValid = false;
        const NodeId node = hitAt(event->position().toPoint()).node;
        if (node == m_pressed) {
            const bool isRoot = node == m_painter.snapshot()->tree->root();
            if (m_clickZooms) {
                if (isRoot)
                    resetZoom();
                else
                    zoomTo(node);
            }
            if (!isRoot)
                setSelected(node);
        }
        event->accept();
        return;
    }
    QWidget::mouseReleaseEvent(event);
}

void FlameGraphWidget::leaveEvent(QEvent* event)
{
    setHover({});
    QWidget::leaveEvent(event);
}

void FlameGraphWidget::wheelEvent(QWheelEvent* event)
{
    const QPoint delta = event->angleDelta();
    if (event->modifiers() & Qt::ControlModifier) {
        if (delta.y() != 0) {
            // One notch (120) zooms by 1.25.
            zoomViewAt(std::pow(1.25, double(delta.y()) / 120.0), int(event->position().x()));
            event->accept();
        }
        return;
    }
    const int horizontal = (event->modifiers() & Qt::ShiftModifier) ? delta.y() : delta.x();
    if (horizontal != 0 && m_painter.isViewZoomed()) {
        panView(-horizontal * width() / 1200);
        event->accept();
        return;
    }
    event->ignore(); // vertical wheel: the scroll area around us scrolls
}

void FlameGraphWidget::contextMenuEvent(QContextMenuEvent* event)
{
    const FlameGraphPainter::Hit hit = hitAt(event->pos());
    emit contextMenuRequested(hit.node, event->globalPos());
    event->accept();
}

NodeId FlameGraphWidget::neighbour(NodeId from, int key) const
{
    const auto& snapshot = m_painter.snapshot();
    if (!snapshot || !snapshot->tree)
        return {};
    const CallTree& tree = *snapshot->tree;
    if (!from.valid() || from.index() >= tree.size())
        return m_painter.root();
    const bool flame = m_painter.orientation() == FlameGraphPainter::Orientation::Flame;
    // Toward the leaves: up in a flame graph, down in an icicle.
    const bool towardLeaves = key == (flame ? Qt::Key_Up : Qt::Key_Down);
    const bool towardRoot = key == (flame ? Qt::Key_Down : Qt::Key_Up);
    if (towardRoot)
        return tree.node(from).parent.valid() ? tree.node(from).parent : NodeId();
    if (towardLeaves) {
        NodeId heaviest; // the widest child, as a reader's eye goes
        for (NodeId c : tree.children(from))
            if (!heaviest.valid() || tree.node(c).total > tree.node(heaviest).total)
                heaviest = c;
        return heaviest;
    }
    const NodeId parent = tree.node(from).parent;
    if (!parent.valid() || (key != Qt::Key_Left && key != Qt::Key_Right))
        return {};
    // The sibling drawn next to it (bottom-up trees are drawn heaviest first, not in id order);
    // those too narrow to see are skipped.
    const QRect here = frameRect(from);
    NodeId best;
    int bestX = 0;
    for (NodeId c : tree.children(parent)) {
        const QRect r = frameRect(c);
        if (c == from || r.isEmpty() || here.isEmpty())
            continue;
        const bool beyond = key == Qt::Key_Right ? r.x() > here.x() : r.x() < here.x();
        if (beyond && (!best.valid() || (key == Qt::Key_Right ? r.x() < bestX : r.x() > bestX))) {
            best = c;
            bestX = r.x();
        }
    }
    return best;
}

void FlameGraphWidget::keyPressEvent(QKeyEvent* event)
{
    switch (event->key()) {
    case Qt::Key_Up:
    case Qt::Key_Down:
    case Qt::Key_Left:
    case Qt::Key_Right:
        if (const NodeId next = neighbour(selected(), event->key()); next.valid()) {
            if (frameRect(next).isEmpty())
                jumpTo(next); // not drawn (outside the zoomed part, below a pixel): zoom to show it
            setSelected(next);
            const QRect r = frameRect(next);
            // The scroll area around the graph (if any) keeps the frame in view.
            for (QWidget* w = parentWidget(); w && !r.isEmpty(); w = w->parentWidget())
                if (auto* area = qobject_cast<QScrollArea*>(w)) {
                    area->ensureVisible(r.center().x(), r.center().y(), r.width() / 2, r.height() * 2);
                    break;
                }
        }
        event->accept();
        return;
    case Qt::Key_Return:
    case Qt::Key_Enter:
        if (selected().valid()) {
            zoomTo(selected());
            event->accept();
            return;
        }
        break;
    case Qt::Key_Escape:
    case Qt::Key_Backspace:
        if (zoomOut()) {
            event->accept();
            return;
        }
        break;
    case Qt::Key_Home:
        if (isZoomed()) {
            resetZoom();
            event->accept();
            return;
        }
        break;
    default:
        break;
    }
    QWidget::keyPressEvent(event);
}

bool FlameGraphWidget::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const FlameGraphPainter::Hit hit = hitAt(help->pos());
        if (hit.valid())
            QToolTip::showText(help->globalPos(), m_painter.toolTip(hit), this, hit.rect);
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(event);
}

void FlameGraphWidget::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::FontChange) {
        m_painter.setFont(font());
        m_painter.setRoot(m_painter.root()); // row height changed: lay out again
        relayout();
    } else if (event->type() == QEvent::PaletteChange) {
        update();
    }
    QWidget::changeEvent(event);
}

} // namespace symflame::ui
