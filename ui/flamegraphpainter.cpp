// Over 600 lines: layout-independent painting, hit testing and the legend share one geometry.
// Flame graph painting and hit testing over a FlameLayout; the geometry of a frame is computed
// the same way for both, so what the mouse finds is what was drawn. Colors come from the
// scheme; frames that are not highlighted while a highlight is set are blended into the
// background.
#include "ui/flamegraphpainter.h"

#include "model/analysis/truncatedstacks.h"

#include "model/core/frameformat.h"

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
    m_labelNames.clear();
    m_binaryPalette.clear();
    m_largestChange = 0;
    if (m_snapshot && m_snapshot->tree && m_snapshot->baseTree)
        for (size_t i = 1; i < m_snapshot->tree->size(); ++i) {
            const int64_t delta = newTotal(NodeId(i)) - baseTotal(NodeId(i));
            m_largestChange = std::max(m_largestChange, delta < 0 ? -delta : delta);
        }
    if (m_snapshot && m_snapshot->profile) {
        const Profile& p = *m_snapshot->profile;
        std::vector<std::string> names;
        for (const Mapping& m : p.mappings)
            if (const std::string_view file = p.str(m.file); !file.empty())
                names.emplace_back(baseName(file));
        std::sort(names.begin(), names.end());
        names.erase(std::unique(names.begin(), names.end()), names.end());
        for (size_t i = 0; i < names.size(); ++i)
            m_binaryPalette.emplace(std::move(names[i]), int(i));
    }
    if (m_snapshot && m_snapshot->symbols && m_snapshot->profile) {
        // Group frames (FrameKind::Label) read as what they group: "pid 833", "tid 8330",
        // the value of a name, else "key: value".
        const Profile& p = *m_snapshot->profile;
        const SymbolTable& symbols = *m_snapshot->symbols;
        for (size_t i = 0; i < symbols.size(); ++i) {
            const auto group = groupFrameOf(p, symbols.symbol(SymbolId(i)).exemplar);
            if (!group)
                continue;
            const auto [key, value] = *group;
            std::string text;
            if (key == "process.pid" || key == "pid")
                text = "pid " + std::string(value);
            else if (key == "thread.id" || key == "thread_id" || key == "tid")
                text = "tid " + std::string(value);
            else if (key.ends_with(".name") || key == "comm")
                text = std::string(value);
            else
                text = std::string(key) + ": " + std::string(value);
            m_labelNames.emplace(uint32_t(i), std::move(text));
        }
    }
    m_layout = FlameLayout();
    m_highlight.clear();
    m_selected = NodeId();
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
        m_viewBegin = m_viewEnd = 0;
        return;
    }
    const CallTree& tree = *m_snapshot->tree;
    if (!node.valid() || node.index() >= tree.size() || node == tree.root() || tree.node(node).total <= 0) {
        m_root = tree.root();
    } else {
        m_root = node;
        if (m_showAncestors) {
            m_ancestors.push_back(tree.root());
            const auto path = tree.pathTo(node);
            m_ancestors.insert(m_ancestors.end(), path.begin(), path.end());
            m_ancestors.pop_back(); // node itself is the layout's row 0
        }
    }
    m_viewBegin = 0;
    m_viewEnd = tree.node(m_root).total;
}

void FlameGraphPainter::setViewRange(int64_t begin, int64_t end)
{
    if (isEmpty())
        return;
    const int64_t total = m_snapshot->tree->node(m_root).total;
    const int64_t span = std::clamp<int64_t>(end - begin, 1, total);
    begin = std::clamp<int64_t>(begin, 0, total - span);
    if (begin == m_viewBegin && begin + span == m_viewEnd)
        return;
    m_viewBegin = begin;
    m_viewEnd = begin + span;
    m_layoutValid = false;
}

bool FlameGraphPainter::isViewZoomed() const
{
    return !isEmpty() && (m_viewBegin > 0 || m_viewEnd < m_snapshot->tree->node(m_root).total);
}

void FlameGraphPainter::zoomView(double factor, double anchor)
{
    if (isEmpty() || factor <= 0)
        return;
    const double span = double(m_viewEnd - m_viewBegin);
    const double at = double(m_viewBegin) + std::clamp(anchor, 0.0, 1.0) * span;
    const double newSpan = std::max(1.0, span / factor);
    const double begin = at - std::clamp(anchor, 0.0, 1.0) * newSpan;
    setViewRange(int64_t(std::llround(begin)), int64_t(std::llround(begin + newSpan)));
}

void FlameGraphPainter::panView(int pixels, int width)
{
    if (isEmpty() || width <= 0)
        return;
    const auto delta = int64_t(std::llround(double(pixels) / scale(width)));
    const int64_t span = m_viewEnd - m_viewBegin;
    setViewRange(m_viewBegin + delta, m_viewBegin + delta + span);
}

void FlameGraphPainter::setColorScheme(ColorScheme scheme)
{
    m_scheme = scheme;
}

void FlameGraphPainter::setHighlight(std::vector<uint8_t> symbols)
{
    m_highlight = std::move(symbols);
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
    const int64_t minWidth = (m_viewEnd - m_viewBegin) / width;
    m_layout = FlameLayout::build(tree, m_root, minWidth, m_viewBegin, m_viewEnd);
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
    if (!m_labelNames.empty())
        if (const auto it = m_labelNames.find(tree.node(node).symbol.value); it != m_labelNames.end())
            return it->second;
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

QColor FlameGraphPainter::binaryColor(std::string_view binaryName, bool dark)
{
    // Hue from the hash, spread over the whole circle; saturation and value vary a little
    // more so that two binaries landing on near hues still differ.
    const uint32_t h = fnv1a(binaryName);
    const int hue = int(h % 360);
    const int sat = 110 + int((h >> 9) % 100);
    const int val = dark ? 140 + int((h >> 17) % 60) : 200 + int((h >> 17) % 50);
    return QColor(QColor::fromHsv(hue, sat, val).rgb());
}

QColor FlameGraphPainter::colorOfBinary(std::string_view binaryName, bool dark) const
{
    static constexpr QRgb kSet3[] = { 0x8dd3c7, 0xfdb462, 0xbebada, 0xfb8072, 0x80b1d3, 0xb3de69, 0xfccde5, 0xffed6f,
        0xbc80bd, 0xccebc5, 0xffffb3 };
    const auto it = m_binaryPalette.find(std::string(binaryName));
    if (it == m_binaryPalette.end() || size_t(it->second) >= std::size(kSet3))
        return binaryColor(binaryName, dark);
    const QColor c = QColor::fromRgb(kSet3[it->second]);
    return dark ? QColor(QColor::fromHsv(c.hsvHue(), std::min(255, c.hsvSaturation() + 40), 150).rgb()) : c;
}

QColor FlameGraphPainter::diffColor(int64_t base, int64_t next, int64_t threshold, bool dark, int64_t absoluteScale)
{
    const int64_t delta = next - base;
    const int64_t size = delta < 0 ? -delta : delta;
    if (size <= threshold)
        return dark ? QColor(88, 88, 96) : QColor(222, 222, 228);
    // Relative change: 1 for a doubling (or more, or a frame only in NEW), 1 for a halving
    // (or less, down to gone), linear in between. Absolute: the change against the scale.
    const double relative = absoluteScale > 0 ? std::min(1.0, double(size) / double(absoluteScale))
        : delta > 0 ? (base <= 0 ? 1.0 : std::min(1.0, double(delta) / double(base)))
                    : std::min(1.0, 2.0 * double(-delta) / double(std::max<int64_t>(base, 1)));
    const int sat = 40 + int(std::lround(150.0 * relative));
    const int hue = delta > 0 ? 2 : 218;
    return QColor(QColor::fromHsv(hue, sat, dark ? 200 : 245).rgb());
}

QColor FlameGraphPainter::diffNodeColor(NodeId node, bool dark) const
{
    if (!m_snapshot->baseTree)
        return dark ? QColor(88, 88, 96) : QColor(222, 222, 228);
    const int64_t scale = std::max(m_snapshot->newSideTotal(), m_snapshot->baseSideTotal());
    const auto threshold = int64_t(std::llround(double(scale) * m_diffThreshold));
    return diffColor(baseTotal(node), newTotal(node), threshold, dark, m_diffAbsolute ? m_largestChange : 0);
}

int64_t FlameGraphPainter::newTotal(NodeId node) const
{
    if (m_snapshot->widthByChange()) { // drawn by the change: NEW's node of the same path
        const auto& match = *m_snapshot->newMatch;
        return node.index() < match.size() && match[node.index()].valid()
            ? m_snapshot->newTree->node(match[node.index()]).total
            : 0;
    }
    if (!m_snapshot->widthByBase())
        return m_snapshot->tree->node(node).total;
    return inBase(node) ? m_snapshot->baseTree->node((*m_snapshot->baseMatch)[node.index()]).total : 0;
}

bool FlameGraphPainter::inBase(NodeId node) const
{
    if (!m_snapshot || !m_snapshot->baseMatch || !node.valid() || node.index() >= m_snapshot->baseMatch->size())
        return false;
    return (*m_snapshot->baseMatch)[node.index()].valid();
}

int64_t FlameGraphPainter::baseTotal(NodeId node) const
{
    if (m_snapshot && m_snapshot->widthByBase()) // drawn by BASE's widths: the node is BASE's
        return m_snapshot->tree->node(node).total;
    if (!inBase(node))
        return 0;
    return m_snapshot->baseTree->node((*m_snapshot->baseMatch)[node.index()]).total;
}

QColor FlameGraphPainter::statusColor(FrameStatus status, bool dark)
{
    switch (status) {
    case FrameStatus::Symbolized:
        return dark ? QColor(70, 140, 80) : QColor(140, 205, 140);
    case FrameStatus::AddressOnly:
        return dark ? QColor(170, 70, 70) : QColor(235, 130, 120);
    case FrameStatus::BinaryOnly:
        return dark ? QColor(180, 130, 50) : QColor(245, 195, 100);
    case FrameStatus::NotApplicable:
        return dark ? QColor(95, 95, 105) : QColor(190, 190, 200);
    case FrameStatus::SourceMapped:
        return dark ? QColor(60, 120, 160) : QColor(130, 185, 230);
    case FrameStatus::NoSourceMap:
        return dark ? QColor(150, 80, 150) : QColor(220, 150, 220);
    }
    return QColor(128, 128, 128);
}

QColor FlameGraphPainter::kindColor(FrameKind kind, bool dark)
{
    // Fixed hues per kind, far apart for the common ones (native, kernel, Go, Python, JVM, JS).
    int hue = 0;
    switch (kind) {
    case FrameKind::Unknown:
        return dark ? QColor(100, 100, 110) : QColor(200, 200, 205);
    case FrameKind::Native:
        hue = 30;
        break;
    case FrameKind::Kernel:
        hue = 0;
        break;
    case FrameKind::Go:
        hue = 190;
        break;
    case FrameKind::Rust:
        hue = 15;
        break;
    case FrameKind::Python:
        hue = 220;
        break;
    case FrameKind::Php:
        hue = 250;
        break;
    case FrameKind::Jvm:
        hue = 120;
        break;
    case FrameKind::Ruby:
        hue = 340;
        break;
    case FrameKind::Perl:
        hue = 280;
        break;
    case FrameKind::JavaScript:
        hue = 55;
        break;
    case FrameKind::DotNet:
        hue = 300;
        break;
    case FrameKind::Beam:
        hue = 160;
        break;
    case FrameKind::Label:
        // Group frames: a muted slate blue, apart from every kind of code.
        return QColor(QColor::fromHsv(215, dark ? 70 : 45, dark ? 120 : 215).rgb());
    }
    return QColor(QColor::fromHsv(hue, dark ? 150 : 120, dark ? 170 : 235).rgb());
}

FrameStatus FlameGraphPainter::statusOf(SymbolId symbol) const
{
    const Symbol& sym = m_snapshot->symbols->symbol(symbol);
    const Profile& profile = *m_snapshot->profile;
    const FrameStatus status = sym.exemplar.index() < profile.locations.size()
        ? profile.locations[sym.exemplar.index()].status
        : FrameStatus::AddressOnly;
    // A named frame is symbolized, unless it is a JavaScript frame that says how its source
    // map went.
    if (sym.symbolized && status != FrameStatus::SourceMapped && status != FrameStatus::NoSourceMap)
        return FrameStatus::Symbolized;
    return status;
}

FrameKind FlameGraphPainter::kindOf(SymbolId symbol) const
{
    const Symbol& sym = m_snapshot->symbols->symbol(symbol);
    const Profile& profile = *m_snapshot->profile;
    return sym.exemplar.index() < profile.locations.size() ? profile.locations[sym.exemplar.index()].kind
                                                           : FrameKind::Unknown;
}

std::string_view FlameGraphPainter::binaryOf(SymbolId symbol) const
{
    const Symbol& sym = m_snapshot->symbols->symbol(symbol);
    const Profile& profile = *m_snapshot->profile;
    if (!sym.mapping.valid() || sym.mapping.index() >= profile.mappings.size())
        return {};
    return profile.str(profile.mappings[sym.mapping.index()].file);
}

bool FlameGraphPainter::isInlined(SymbolId symbol) const
{
    const Symbol& sym = m_snapshot->symbols->symbol(symbol);
    const Profile& profile = *m_snapshot->profile;
    if (!sym.symbolized || sym.exemplar.index() >= profile.locations.size())
        return false;
    // The chain is innermost first and its last entry is the physical frame.
    return sym.lineIndex + 1 < profile.locations[sym.exemplar.index()].lineCount;
}

QColor FlameGraphPainter::nodeColor(NodeId node, bool dark) const
{
    if (isEmpty() || !node.valid())
        return dark ? QColor(80, 80, 80) : QColor(205, 205, 205);
    if (m_scheme == ColorScheme::Diff && m_snapshot->baseTree)
        return diffNodeColor(node, dark); // the root too: the totals' change
    if (node == m_snapshot->tree->root())
        return dark ? QColor(110, 110, 120) : QColor(215, 215, 222);
    const SymbolId symbol = m_snapshot->tree->node(node).symbol;
    if (m_labelNames.count(symbol.value))
        return kindColor(FrameKind::Label, dark); // group frames look alike in every scheme
    if (isTruncatedFrame(*m_snapshot->profile, m_snapshot->symbols->symbol(symbol).exemplar))
        return kindColor(FrameKind::Label, dark); // so does the synthetic "[truncated]" root
    switch (m_scheme) {
    case ColorScheme::Name:
        break;
    case ColorScheme::Binary: {
        const std::string_view binary = binaryOf(symbol);
        if (binary.empty())
            return dark ? QColor(90, 90, 98) : QColor(196, 196, 204);
        return colorOfBinary(baseName(binary), dark);
    }
    case ColorScheme::Status:
        return statusColor(statusOf(symbol), dark);
    case ColorScheme::Kind:
        return kindColor(kindOf(symbol), dark);
    case ColorScheme::Diff:
        return diffNodeColor(node, dark);
    }
    return frameColor(nameOf(node), isSymbolized(node), dark);
}

std::vector<FlameGraphPainter::LegendEntry> FlameGraphPainter::legend(bool dark) const
{
    std::vector<LegendEntry> out;
    if (isEmpty() || m_scheme == ColorScheme::Name)
        return out;
    if (m_scheme == ColorScheme::Diff) {
        // What the colors of a comparison mean (the entries select no symbols).
        const QString within = QString::number(m_diffThreshold * 100.0, 'g', 3);
        if (m_diffAbsolute) {
            out.push_back({ QStringLiteral("grew (saturated: the largest change)"), diffColor(0, 1, 0, dark, 1), {} });
            out.push_back({ QStringLiteral("shrank (saturated: the largest change)"), diffColor(1, 0, 0, dark, 1), {} });
        } else {
            out.push_back({ QStringLiteral("grew (saturated: doubled or more)"), diffColor(100, 200, 0, dark), {} });
            out.push_back({ QStringLiteral("shrank (saturated: halved or less)"), diffColor(200, 100, 0, dark), {} });
        }
        out.push_back({ QStringLiteral("unchanged (within %1% of the total)").arg(within), diffColor(0, 0, 0, dark), {} });
        if (m_snapshot->widthByBase())
            out.push_back({ QStringLiteral("only in the base: vanished (hatched)"), diffColor(1, 0, 0, dark), {} });
        else
            out.push_back({ QStringLiteral("only in the new profile (hatched)"), diffColor(0, 1, 0, dark), {} });
        return out;
    }
    const SymbolTable& symbols = *m_snapshot->symbols;
    // Group frames and the "[truncated]" root are drawn alike in every scheme (nodeColor): they
    // get entries of their own, not their scheme's ("(no binary)", "label").
    const QString groupKey = QStringLiteral("group frames (Group by)");
    const QString truncatedKey = QString::fromUtf8(kTruncatedFrameName.data(), qsizetype(kTruncatedFrameName.size()))
        + QStringLiteral(" (stacks that reach no thread root)");
    std::vector<std::pair<QString, SymbolId>> keyed;
    keyed.reserve(symbols.size());
    for (size_t i = 0; i < symbols.size(); ++i) {
        const SymbolId id(i);
        QString key;
        if (m_labelNames.count(id.value)) {
            keyed.emplace_back(groupKey, id);
            continue;
        }
        if (isTruncatedFrame(*m_snapshot->profile, symbols.symbol(id).exemplar)) {
            keyed.emplace_back(truncatedKey, id);
            continue;
        }
        switch (m_scheme) {
        case ColorScheme::Name:
        case ColorScheme::Diff:
            break;
        case ColorScheme::Binary: {
            const std::string_view binary = binaryOf(id);
            key = binary.empty() ? QStringLiteral("(no binary)") : QString::fromUtf8(baseName(binary));
            break;
        }
        case ColorScheme::Status:
            key = QString::fromUtf8(frameStatusName(statusOf(id)));
            break;
        case ColorScheme::Kind:
            key = QString::fromUtf8(frameKindName(kindOf(id)));
            break;
        }
        keyed.emplace_back(std::move(key), id);
    }
    std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [key, id] : keyed) {
        if (out.empty() || out.back().label != key) {
            LegendEntry e;
            e.label = key;
            if (key == groupKey || key == truncatedKey) {
                e.color = kindColor(FrameKind::Label, dark);
                out.push_back(std::move(e));
                out.back().symbols.push_back(id);
                continue;
            }
            switch (m_scheme) {
            case ColorScheme::Name:
            case ColorScheme::Diff:
                break;
            case ColorScheme::Binary: {
                const std::string_view binary = binaryOf(id);
                e.color = binary.empty() ? (dark ? QColor(90, 90, 98) : QColor(196, 196, 204))
                                         : colorOfBinary(baseName(binary), dark);
                break;
            }
            case ColorScheme::Status:
                e.color = statusColor(statusOf(id), dark);
                break;
            case ColorScheme::Kind:
                e.color = kindColor(kindOf(id), dark);
                break;
            }
            out.push_back(std::move(e));
        }
        out.back().symbols.push_back(id);
    }
    return out;
}

int FlameGraphPainter::xOf(const QRect& area, int64_t value) const
{
    // Clamped a little outside the area: frames wider than the view must not overflow int.
    const double x = double(area.left()) + double(value - m_viewBegin) * scale(area.width());
    return int(std::llround(std::clamp(x, double(area.left()) - 2.0, double(area.right()) + 3.0)));
}

void FlameGraphPainter::paintFrame(QPainter& painter, const QFontMetrics& fm, const QRect& r, const QRect& visible,
    NodeId node, uint32_t merged, bool ancestor, bool hovered, bool dark, const QPalette& palette) const
{
    const bool isMerged = !node.valid() && merged > 0;
    QColor fill = isMerged ? (dark ? QColor(80, 80, 80) : QColor(205, 205, 205)) : nodeColor(node, dark);
    const CallTree& tree = *m_snapshot->tree;
    const bool isTreeRoot = node.valid() && node == tree.root();
    const SymbolId symbol = node.valid() && !isTreeRoot ? tree.node(node).symbol : SymbolId();
    const bool matched = symbol.valid() && symbol.index() < m_highlight.size() && m_highlight[symbol.index()];
    if (!m_highlight.empty() && !matched)
        fill = blend(fill, palette.color(QPalette::Base), 0.72);
    else if (ancestor)
        fill = blend(fill, palette.color(QPalette::Base), 0.45);
    if (hovered)
        fill = dark ? fill.lighter(135) : fill.lighter(112);
    painter.fillRect(r, fill);
    if (m_scheme == ColorScheme::Diff && m_snapshot->baseTree && node.valid() && !inBase(node) && r.width() > 3)
        painter.fillRect(r, QBrush(fill.darker(dark ? 60 : 135), Qt::BDiagPattern)); // only on the side drawn: hatched
    if (symbol.valid() && r.width() > 4 && isInlined(symbol)) {
        // Inlined frames: a dashed outline in a darker shade of the fill.
        QPen pen(fill.darker(dark ? 70 : 150), 1, Qt::DashLine);
        painter.setPen(pen);
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(r.adjusted(0, 0, -1, -1));
    }
    if (hovered || (node.valid() && node == m_selected)) {
        painter.setPen(QPen(palette.color(hovered ? QPalette::Highlight : QPalette::Text), 2));
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(r.adjusted(1, 1, -1, -1));
    }
    if (isMerged)
        return;

    constexpr int kPad = 3;
    const QRect textRect = visible.adjusted(kPad, 0, -kPad, 0);
    const int room = textRect.width();
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
    QColor pen = darkText ? QColor(20, 20, 20) : QColor(240, 240, 240);
    if (!m_highlight.empty() && !matched)
        pen = blend(pen, fill, 0.5);
    painter.setPen(pen);
    painter.drawText(textRect, Qt::AlignLeft | Qt::AlignVCenter, text);
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
    const int rowA = rowAt(area, clip.top()), rowB = rowAt(area, clip.bottom());
    const int firstRow = std::max(0, std::min(rowA, rowB));
    const int lastRow = std::min(rows - 1, std::max(rowA, rowB));
    const double sc = scale(area.width());
    // Value range covered by the exposed columns, widened by a pixel on each side for rounding.
    const int64_t v0 = m_viewBegin + int64_t(std::floor(double(clip.left() - area.left() - 1) / sc));
    const int64_t v1 = m_viewBegin + int64_t(std::ceil(double(clip.right() + 2 - area.left()) / sc));
    const auto ancestorCount = static_cast<int>(m_ancestors.size());
    const QFontMetrics fm(m_font);

    for (int row = firstRow; row <= lastRow; ++row) {
        const int top = rowTop(area, row);
        if (row < ancestorCount) {
            const NodeId node = m_ancestors[static_cast<size_t>(row)];
            const QRect r(area.left(), top, area.width() - 1, m_rowHeight - 1);
            paintFrame(painter, fm, r, r, node, 0, true, node == hovered, dark, palette);
            continue;
        }
        for (const FlameFrame& f : m_layout.rowRange(static_cast<size_t>(row - ancestorCount), v0, v1)) {
            const int x0 = xOf(area, f.x);
            const int x1 = xOf(area, f.x + f.width);
            const int w = std::max(1, x1 - x0);
            const QRect r(x0, top, w > 2 ? w - 1 : w, m_rowHeight - 1);
            paintFrame(painter, fm, r, r.intersected(area), f.node, f.merged, false,
                f.node.valid() && f.node == hovered, dark, palette);
        }
    }
    painter.restore();
}

void FlameGraphPainter::forEachFrame(const QRect& area, const std::function<void(const Hit&)>& fn) const
{
    if (isEmpty() || area.width() <= 0)
        return;
    const auto ancestorCount = static_cast<int>(m_ancestors.size());
    for (int row = 0; row < rowCount(); ++row) {
        Hit hit;
        hit.row = row;
        const int top = rowTop(area, row);
        if (row < ancestorCount) {
            hit.node = m_ancestors[static_cast<size_t>(row)];
            hit.ancestor = true;
            hit.value = m_snapshot->tree->node(hit.node).total;
            hit.rect = QRect(area.left(), top, area.width() - 1, m_rowHeight - 1);
            fn(hit);
            continue;
        }
        for (const FlameFrame& f : m_layout.rowRange(static_cast<size_t>(row - ancestorCount), m_viewBegin, m_viewEnd)) {
            const int x0 = xOf(area, f.x), x1 = xOf(area, f.x + f.width);
            const int w = std::max(1, x1 - x0);
            hit.node = f.node;
            hit.merged = f.merged;
            hit.value = f.width;
            hit.rect = QRect(x0, top, w > 2 ? w - 1 : w, m_rowHeight - 1).intersected(area);
            if (!hit.rect.isEmpty())
                fn(hit);
        }
    }
}

FlameGraphPainter::Hit FlameGraphPainter::hitTest(const QRect& area, QPoint pos) const
{
    Hit hit;
    if (isEmpty() || !area.contains(pos))
        return hit;
    const int row = rowAt(area, pos.y());
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
    const double sc = scale(area.width());
    const auto x = m_viewBegin + int64_t(std::floor((double(pos.x() - area.left()) + 0.5) / sc));
    const FlameFrame* f = m_layout.hitTest(static_cast<size_t>(row - ancestorCount), x);
    if (!f)
        return hit;
    hit.node = f->node;
    hit.row = row;
    hit.merged = f->node.valid() ? 0 : f->merged;
    hit.value = f->width;
    const int x0 = xOf(area, f->x);
    const int x1 = xOf(area, f->x + f->width);
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
    const uint32_t nodeDepth = tree.depth(node), rootDepth = tree.depth(m_root);
    if (nodeDepth < rootDepth)
        return {};
    const size_t depth = nodeDepth - rootDepth;
    if (depth >= m_layout.depthCount())
        return {};
    for (const FlameFrame& f : m_layout.row(depth)) {
        if (f.node != node)
            continue;
        const int x0 = xOf(area, f.x);
        const int x1 = xOf(area, f.x + f.width);
        return QRect(x0, rowTop(area, ancestorCount + int(depth)), std::max(1, x1 - x0), m_rowHeight)
            .intersected(area);
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
    if (m_snapshot->baseTree) {
        // A comparison: the base's total of this stack, the change and the relative change.
        const int64_t base = baseTotal(hit.node), delta = newTotal(hit.node) - base;
        text += QStringLiteral("<br>Base: %1<br>Change: %2%3 (%4)")
                    .arg(valueText(base, unit), delta > 0 ? QStringLiteral("+") : QString(), valueText(delta, unit),
                        base == 0 ? QStringLiteral("only in this profile")
                            : delta == -base && m_snapshot->widthByBase() ? QStringLiteral("only in the base: vanished")
                                  : QStringLiteral("%1%2%").arg(delta > 0 ? QStringLiteral("+") : QString())
                                        .arg(100.0 * double(delta) / double(base), 0, 'f', 1));
    }
    if (hit.node != tree.root()) {
        const Symbol& sym = m_snapshot->symbols->symbol(n.symbol);
        const Profile& profile = *m_snapshot->profile;
        if (sym.symbolized && sym.exemplar.index() < profile.locations.size()) {
            const Location& loc = profile.locations[sym.exemplar.index()];
            const auto lines = profile.linesOf(loc);
            const std::string_view file = profile.str(sym.file);
            if (!file.empty()) {
                QString where = QString::fromUtf8(file);
                if (sym.lineIndex < lines.size() && lines[sym.lineIndex].line > 0) {
                    where += QLatin1Char(':') + QString::number(lines[sym.lineIndex].line);
                    if (lines[sym.lineIndex].column > 0)
                        where += QLatin1Char(':') + QString::number(lines[sym.lineIndex].column);
                }
                text += QStringLiteral("<br>%1").arg(where.toHtmlEscaped());
            }
        }
        if (sym.mapping.valid() && sym.mapping.index() < profile.mappings.size()) {
            const Mapping& m = profile.mappings[sym.mapping.index()];
            const std::string_view file = profile.str(m.file);
            if (!file.empty())
                text += QStringLiteral("<br>in %1").arg(QString::fromUtf8(baseName(file)).toHtmlEscaped());
            if (!m.buildId.empty())
                text += QStringLiteral("<br>build ID %1").arg(QString::fromUtf8(profile.str(m.buildId)).toHtmlEscaped());
        }
        if (isInlined(n.symbol))
            text += QStringLiteral("<br><i>inlined</i>");
        if (!sym.symbolized)
            text += QStringLiteral("<br><i>not symbolized</i>");
        if (sym.exemplar.index() < profile.locations.size()) {
            const FrameStatus status = profile.locations[sym.exemplar.index()].status;
            if (status == FrameStatus::SourceMapped || status == FrameStatus::NoSourceMap)
                text += QStringLiteral("<br><i>%1</i>").arg(QString::fromUtf8(frameStatusName(status)));
        }
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
    // The binary too, where the frame has one: "sin (libm.so.6): ...".
    const std::string_view binary = n.symbol.valid() ? binaryOf(n.symbol) : std::string_view();
    const QString name = binary.empty() ? label(hit.node)
                                        : QStringLiteral("%1 (%2)").arg(label(hit.node), QString::fromUtf8(baseName(binary)));
    QString text = QStringLiteral("%1: total %2 (%3), self %4 (%5)")
                       .arg(name, valueText(n.total, unit), percentOf(n.total, all), valueText(n.self, unit), percentOf(n.self, all));
    if (m_snapshot->baseTree) {
        // A comparison: the BASE side, the change and the relative change.
        const int64_t base = baseTotal(hit.node), delta = newTotal(hit.node) - base;
        const QString relative = base == 0
            ? QStringLiteral("only in the new profile")
            : QStringLiteral("%1%2%").arg(delta >= 0 ? QStringLiteral("+") : QString()).arg(100.0 * double(delta) / double(base), 0, 'f', 1);
        text += QStringLiteral("; base %1, change %2%3 (%4)")
                    .arg(valueText(base, unit), delta >= 0 ? QStringLiteral("+") : QString(), valueText(delta, unit), relative);
    }
    return text;
}

} // namespace symflame::ui
