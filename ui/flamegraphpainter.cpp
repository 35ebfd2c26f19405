// Flame graph painting and hit testing over a FlameLayout; the geometry of a frame is computed
// the same way for both, so what the mouse finds is what was drawn.
#include "ui/flamegraphpainter.h"

#include "model/frameformat.h"

#include <QFontMetrics>
#include <QPainter>
#include <QPalette>

#include <algorithm>
#include <cmath>

namespace symflame::ui {

using namespace symflame::model;

namespace {

uint32_t fnv1a(std::string_view s)
{
    uint32_t h = 2166136261u;
    for (unsigned char c : s) {
        h ^= c;
        h *= 16777619u;
    }
    // Final avalanche so that names differing in their last letter land far apart.
    h ^= h >> 15;
    h *= 0x2c1b3c6du;
    h ^= h >> 12;
    return h;
}

QColor blend(const QColor& a, const QColor& b, double t)
{
    return QColor::fromRgbF(float(a.redF() * (1 - t) + b.redF() * t), float(a.greenF() * (1 - t) + b.greenF() * t),
        float(a.blueF() * (1 - t) + b.blueF() * t));
}

QString percentOf(int64_t part, int64_t total)
{
    if (total == 0)
        return QStringLiteral("0%");
    return QString::number(100.0 * double(part) / double(total), 'f', 2) + QLatin1Char('%');
}

QString valueText(int64_t v, std::string_view unit)
{
    return QString::fromStdString(formatValue(v, unit));
}

} // namespace

FlameGraphPainter::FlameGraphPainter()
{
    setFont(QFont());
}

void FlameGraphPainter::setSnapshot(std::shared_ptr<const ProfileSnapshot> snapshot)
{
    m_snapshot = std::move(snapshot);
    m_layout = FlameLayout();
    setRoot(NodeId());
}

bool FlameGraphPainter::isEmpty() const
{
    return !m_snapshot || !m_snapshot->tree || m_snapshot->tree->size() == 0 || m_snapshot->tree->totalValue() <= 0;
}

void FlameGraphPainter::setRoot(NodeId node)
{
    m_ancestors.clear();
    m_layoutValid = false;
    if (isEmpty()) {
        m_root = NodeId();
        return;
    }
    const CallTree& tree = *m_snapshot->tree;
    if (!node.valid() || node.index() >= tree.size() || node == tree.root() || tree.node(node).total <= 0) {
        m_root = tree.root();
        return;
    }
    m_root = node;
    m_ancestors.push_back(tree.root());
    const auto path = tree.pathTo(node);
    m_ancestors.insert(m_ancestors.end(), path.begin(), path.end());
    m_ancestors.pop_back(); // node itself is the layout's row 0
}

void FlameGraphPainter::setFont(const QFont& font)
{
    m_font = font;
    const QFontMetrics fm(m_font);
    m_rowHeight = fm.height() + 5;
}

void FlameGraphPainter::layout(int width)
{
    width = std::max(width, 1);
    if (m_layoutValid && width == m_layoutWidth)
        return;
    m_layoutWidth = width;
    m_layoutValid = true;
    if (isEmpty()) {
        m_layout = FlameLayout();
        return;
    }
    const CallTree& tree = *m_snapshot->tree;
    // A frame narrower than one pixel can't be seen or pointed at: merge runs of them.
    const int64_t minWidth = tree.node(m_root).total / width;
    m_layout = FlameLayout::build(tree, m_root, minWidth);
}

int FlameGraphPainter::rowCount() const
{
    if (isEmpty())
        return 0;
    return static_cast<int>(m_ancestors.size() + m_layout.depthCount());
}

std::string_view FlameGraphPainter::nameOf(NodeId node) const
{
    const CallTree& tree = *m_snapshot->tree;
    if (!node.valid() || node == tree.root())
        return "all";
    return m_snapshot->symbols->displayName(tree.node(node).symbol);
}

bool FlameGraphPainter::isSymbolized(NodeId node) const
{
    const CallTree& tree = *m_snapshot->tree;
    if (!node.valid() || node == tree.root())
        return false;
    return m_snapshot->symbols->symbol(tree.node(node).symbol).symbolized;
}

QString FlameGraphPainter::label(NodeId node) const
{
    if (isEmpty())
        return {};
    return QString::fromUtf8(nameOf(node));
}

QColor FlameGraphPainter::frameColor(std::string_view name, bool symbolized, bool dark)
{
    const uint32_t h = fnv1a(name);
    if (!symbolized) {
        // Cool greys: frames still waiting for a symbol stand apart from the warm named ones.
        const int v = int((h >> 8) % 30);
        return QColor(
            (dark ? QColor::fromHsv(210, 25 + int(h % 20), 95 + v) : QColor::fromHsv(210, 20 + int(h % 20), 185 + v))
                .rgb());
    }
    const int hue = int(h % 46); // red .. orange-yellow
    const int sat = 150 + int((h >> 8) % 80); // keep them saturated enough to tell apart
    const int val = dark ? 150 + int((h >> 16) % 45) : 215 + int((h >> 16) % 36);
    return QColor(QColor::fromHsv(hue, sat, val).rgb()); // 8 bits a channel, as painted
}

void FlameGraphPainter::paintFrame(QPainter& painter, const QFontMetrics& fm, const QRect& r, NodeId node,
    uint32_t merged, bool ancestor, bool hovered, bool dark, const QPalette& palette) const
{
    const bool isMerged = !node.valid() && merged > 0;
    QColor fill;
    if (isMerged)
        fill = dark ? QColor(80, 80, 80) : QColor(205, 205, 205);
    else if (node == m_snapshot->tree->root())
        fill = dark ? QColor(110, 110, 120) : QColor(215, 215, 222);
    else
        fill = frameColor(nameOf(node), isSymbolized(node), dark);
    if (ancestor)
        fill = blend(fill, palette.color(QPalette::Base), 0.45);
    if (hovered)
        fill = dark ? fill.lighter(135) : fill.lighter(112);
    painter.fillRect(r, fill);
    if (hovered) {
        painter.setPen(QPen(palette.color(QPalette::Highlight), 2));
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(r.adjusted(1, 1, -1, -1));
    }
    if (isMerged)
        return;

    constexpr int kPad = 3;
    const int room = r.width() - 2 * kPad;
    if (room < fm.averageCharWidth() * 2)
        return;
    const QString text = fm.elidedText(label(node), Qt::ElideRight, room);
    if (text.isEmpty() || text == QStringLiteral("\u2026"))
        return;
    // Dark or light text, whichever contrasts more with the fill (WCAG relative luminance).
    const auto channel = [](float c) { return c <= 0.04045f ? c / 12.92f : std::pow((c + 0.055f) / 1.055f, 2.4f); };
    const float lum
        = 0.2126f * channel(fill.redF()) + 0.7152f * channel(fill.greenF()) + 0.0722f * channel(fill.blueF());
    const bool darkText = (lum + 0.05f) / 0.05f >= 1.05f / (lum + 0.05f);
    painter.setPen(darkText ? QColor(20, 20, 20) : QColor(240, 240, 240));
    painter.drawText(r.adjusted(kPad, 0, -kPad, 0), Qt::AlignLeft | Qt::AlignVCenter, text);
}

void FlameGraphPainter::paint(
    QPainter& painter, const QRect& area, const QRect& exposed, const QPalette& palette, NodeId hovered) const
{
    if (!m_snapshot)
        return;
    painter.save();
    painter.setFont(m_font);
    if (isEmpty()) {
        painter.setPen(palette.color(QPalette::PlaceholderText));
        painter.drawText(area, Qt::AlignCenter, QStringLiteral("No samples of this type"));
        painter.restore();
        return;
    }
    const bool dark = palette.color(QPalette::Base).lightness() < 128;
    const QRect clip = exposed.intersected(area);
    const int rows = rowCount();
    if (clip.isEmpty() || rows == 0 || area.width() <= 0) {
        painter.restore();
        return;
    }
    const int firstRow = std::max(0, (area.bottom() - clip.bottom()) / m_rowHeight);
    const int lastRow = std::min(rows - 1, (area.bottom() - clip.top()) / m_rowHeight);
    const int64_t total = m_layout.totalWidth();
    const double scale = double(area.width()) / double(total);
    // Value range covered by the exposed columns, widened by a pixel on each side for rounding.
    const int64_t v0 = std::max<int64_t>(0, int64_t(std::floor(double(clip.left() - area.left() - 1) / scale)));
    const int64_t v1 = int64_t(std::ceil(double(clip.right() + 2 - area.left()) / scale));
    const auto ancestorCount = static_cast<int>(m_ancestors.size());
    const QFontMetrics fm(m_font);

    for (int row = firstRow; row <= lastRow; ++row) {
        const int top = rowTop(area, row);
        if (row < ancestorCount) {
            const NodeId node = m_ancestors[static_cast<size_t>(row)];
            paintFrame(painter, fm, QRect(area.left(), top, area.width() - 1, m_rowHeight - 1), node, 0, true,
                node == hovered, dark, palette);
            continue;
        }
        for (const FlameFrame& f : m_layout.rowRange(static_cast<size_t>(row - ancestorCount), v0, v1)) {
            const int x0 = area.left() + int(std::llround(double(f.x) * scale));
            const int x1 = area.left() + int(std::llround(double(f.x + f.width) * scale));
            const int w = std::max(1, x1 - x0);
            const QRect r(x0, top, w > 2 ? w - 1 : w, m_rowHeight - 1);
            paintFrame(painter, fm, r, f.node, f.merged, false, f.node.valid() && f.node == hovered, dark, palette);
        }
    }
    painter.restore();
}

FlameGraphPainter::Hit FlameGraphPainter::hitTest(const QRect& area, QPoint pos) const
{
    Hit hit;
    if (isEmpty() || !area.contains(pos))
        return hit;
    const int row = (area.bottom() - pos.y()) / m_rowHeight;
    if (row >= rowCount())
        return hit;
    const int top = rowTop(area, row);
    const auto ancestorCount = static_cast<int>(m_ancestors.size());
    if (row < ancestorCount) {
        hit.node = m_ancestors[static_cast<size_t>(row)];
        hit.row = row;
        hit.ancestor = true;
        hit.value = m_snapshot->tree->node(hit.node).total;
        hit.rect = QRect(area.left(), top, area.width(), m_rowHeight);
        return hit;
    }
    const double scale = double(area.width()) / double(m_layout.totalWidth());
    const auto x = int64_t(std::floor((double(pos.x() - area.left()) + 0.5) / scale));
    const FlameFrame* f = m_layout.hitTest(static_cast<size_t>(row - ancestorCount), x);
    if (!f)
        return hit;
    hit.node = f->node;
    hit.row = row;
    hit.merged = f->node.valid() ? 0 : f->merged;
    hit.value = f->width;
    const int x0 = area.left() + int(std::llround(double(f->x) * scale));
    const int x1 = area.left() + int(std::llround(double(f->x + f->width) * scale));
    hit.rect = QRect(x0, top, std::max(1, x1 - x0), m_rowHeight);
    return hit;
}

QRect FlameGraphPainter::frameRect(const QRect& area, NodeId node) const
{
    if (isEmpty() || !node.valid())
        return {};
    const auto ancestorCount = static_cast<int>(m_ancestors.size());
    for (int i = 0; i < ancestorCount; ++i)
        if (m_ancestors[static_cast<size_t>(i)] == node)
            return QRect(area.left(), rowTop(area, i), area.width(), m_rowHeight);
    const CallTree& tree = *m_snapshot->tree;
    if (tree.node(node).depth < tree.node(m_root).depth)
        return {};
    const size_t depth = tree.node(node).depth - tree.node(m_root).depth;
    if (depth >= m_layout.depthCount())
        return {};
    const double scale = double(area.width()) / double(m_layout.totalWidth());
    for (const FlameFrame& f : m_layout.row(depth)) {
        if (f.node != node)
            continue;
        const int x0 = area.left() + int(std::llround(double(f.x) * scale));
        const int x1 = area.left() + int(std::llround(double(f.x + f.width) * scale));
        return QRect(x0, rowTop(area, ancestorCount + int(depth)), std::max(1, x1 - x0), m_rowHeight);
    }
    return {};
}

QString FlameGraphPainter::toolTip(const Hit& hit) const
{
    if (!hit.valid() || isEmpty())
        return {};
    const CallTree& tree = *m_snapshot->tree;
    const std::string_view unit = m_snapshot->unit();
    const int64_t all = tree.totalValue();
    if (!hit.node.valid()) {
        return QStringLiteral("<b>%1 small frames</b><br>Total: %2 (%3)")
            .arg(hit.merged)
            .arg(valueText(hit.value, unit), percentOf(hit.value, all));
    }
    const CallTreeNode& n = tree.node(hit.node);
    QString text = QStringLiteral("<b>%1</b><br>Total: %2 (%3)<br>Self: %4 (%5)")
                       .arg(label(hit.node).toHtmlEscaped(), valueText(n.total, unit), percentOf(n.total, all),
                           valueText(n.self, unit), percentOf(n.self, all));
    if (m_root != tree.root() && hit.node != tree.root() && !hit.ancestor)
        text += QStringLiteral("<br>%1 of the zoomed frame").arg(percentOf(n.total, tree.node(m_root).total));
    if (hit.node != tree.root()) {
        const Symbol& sym = m_snapshot->symbols->symbol(n.symbol);
        const Profile& profile = *m_snapshot->profile;
        if (sym.mapping.valid() && sym.mapping.index() < profile.mappings.size()) {
            const std::string_view file = profile.str(profile.mappings[sym.mapping.index()].file);
            if (!file.empty())
                text += QStringLiteral("<br>in %1").arg(QString::fromUtf8(baseName(file)).toHtmlEscaped());
        }
        if (!sym.symbolized)
            text += QStringLiteral("<br><i>not symbolized</i>");
    }
    return text;
}

QString FlameGraphPainter::summary(const Hit& hit) const
{
    if (!hit.valid() || isEmpty())
        return {};
    const CallTree& tree = *m_snapshot->tree;
    const std::string_view unit = m_snapshot->unit();
    const int64_t all = tree.totalValue();
    if (!hit.node.valid())
        return QStringLiteral("%1 small frames: total %2 (%3)")
            .arg(hit.merged)
            .arg(valueText(hit.value, unit), percentOf(hit.value, all));
    const CallTreeNode& n = tree.node(hit.node);
    return QStringLiteral("%1: total %2 (%3), self %4 (%5)")
        .arg(label(hit.node), valueText(n.total, unit), percentOf(n.total, all), valueText(n.self, unit),
            percentOf(n.self, all));
}

} // namespace symflame::ui
