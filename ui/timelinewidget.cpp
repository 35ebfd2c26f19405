#include "ui/timelinewidget.h"

#include "model/analysis/labelview.h"
#include "model/core/valueformat.h"

#include <QMouseEvent>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace symflame::ui {

using namespace symflame::model;

namespace {

constexpr int kHeight = 64;
constexpr int kAxis = 14; // the time labels' row
constexpr int kMargin = 4;

// Group colors: distinct hues, muted, in group order (largest first).
QColor groupColor(size_t group, size_t groups, bool dark)
{
    if (groups <= 1)
        return dark ? QColor(110, 140, 190) : QColor(120, 150, 205);
    const int hue = int((group * 360 * 7 / 17) % 360); // spread neighbours apart
    return QColor::fromHsv(hue, dark ? 120 : 110, dark ? 190 : 215);
}

} // namespace

TimelineWidget::TimelineWidget(QWidget* parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("timeline"));
    setMinimumHeight(kHeight);
    setMaximumHeight(kHeight);
    setMouseTracking(true);
    setCursor(Qt::CrossCursor);
    setToolTip(tr("Samples over time. Drag to keep only the samples of a time range."));
    hide();
}

QSize TimelineWidget::sizeHint() const
{
    return { 400, kHeight };
}

QRect TimelineWidget::plotRect() const
{
    return QRect(kMargin, kMargin, std::max(1, width() - 2 * kMargin), std::max(1, height() - 2 * kMargin - kAxis));
}

void TimelineWidget::setSnapshot(std::shared_ptr<const ProfileSnapshot> snapshot)
{
    m_snapshot = std::move(snapshot);
    m_dragFrom.reset();
    m_dragTo.reset();
    recompute();
}

void TimelineWidget::recompute()
{
    m_jobs.cancel();
    const auto snapshot = m_snapshot;
    if (!snapshot || !snapshot->profile) {
        m_histogram = {};
        hide();
        return;
    }
    const auto& source = snapshot->sourceProfile();
    if (source->sampleTimestamps.empty()) {
        m_histogram = {};
        hide();
        return;
    }
    const size_t buckets = size_t(std::max(1, plotRect().width() / 2));
    m_jobs.run([source, snapshot, buckets] { return timeHistogram(*source, snapshot->view.labels, snapshot->sampleType, buckets); },
        [this](TimeHistogram h) {
            m_histogram = std::move(h);
            setVisible(m_histogram.buckets > 0);
            update();
        });
}

void TimelineWidget::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    if (m_snapshot && isVisible())
        recompute();
}

int64_t TimelineWidget::timeAt(int x) const
{
    const QRect r = plotRect();
    const double f = std::clamp(double(x - r.left()) / double(r.width()), 0.0, 1.0);
    const TimeRange& s = m_histogram.span;
    return s.start + int64_t(std::llround(f * double(s.end - s.start + 1)));
}

int TimelineWidget::xOf(int64_t time) const
{
    const QRect r = plotRect();
    const TimeRange& s = m_histogram.span;
    const double f = double(time - s.start) / double(s.end - s.start + 1);
    return r.left() + int(std::lround(std::clamp(f, 0.0, 1.0) * r.width()));
}

void TimelineWidget::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    const bool dark = palette().color(QPalette::Window).lightness() < 128;
    p.fillRect(rect(), palette().color(QPalette::Base));
    const QRect r = plotRect();
    const TimeHistogram& h = m_histogram;
    if (h.buckets == 0)
        return;
    // Stacked bars, scaled to the busiest bucket.
    int64_t peak = 1;
    for (size_t b = 0; b < h.buckets; ++b) {
        int64_t sum = 0;
        for (size_t g = 0; g < h.groups.size(); ++g)
            sum += std::max<int64_t>(0, h.value(b, g));
        peak = std::max(peak, sum);
    }
    const double barWidth = double(r.width()) / double(h.buckets);
    for (size_t b = 0; b < h.buckets; ++b) {
        double y = r.bottom() + 1;
        const double x0 = r.left() + double(b) * barWidth;
        for (size_t g = 0; g < h.groups.size(); ++g) {
            const int64_t v = std::max<int64_t>(0, h.value(b, g));
            if (v == 0)
                continue;
            const double hgt = double(v) / double(peak) * r.height();
            p.fillRect(QRectF(x0, y - hgt, std::max(1.0, barWidth), hgt), groupColor(g, h.groups.size(), dark));
            y -= hgt;
        }
    }
    // The selection: the snapshot's time range, or the drag in progress.
    std::optional<std::pair<int, int>> sel;
    if (m_dragFrom && m_dragTo)
        sel = std::make_pair(std::min(*m_dragFrom, *m_dragTo), std::max(*m_dragFrom, *m_dragTo));
    else if (m_snapshot && m_snapshot->view.labels.timeRange)
        sel = std::make_pair(xOf(m_snapshot->view.labels.timeRange->start), xOf(m_snapshot->view.labels.timeRange->end));
    if (sel) {
        QColor shade = palette().color(QPalette::Text);
        shade.setAlpha(70);
        p.fillRect(QRect(r.left(), r.top(), std::max(0, sel->first - r.left()), r.height()), shade);
        p.fillRect(QRect(sel->second, r.top(), std::max(0, r.right() - sel->second), r.height()), shade);
        p.setPen(palette().color(QPalette::Highlight));
        p.drawRect(QRect(sel->first, r.top(), std::max(1, sel->second - sel->first), r.height() - 1));
    }
    // The time axis: offsets from the first sample, about every 100 px.
    p.setPen(palette().color(QPalette::PlaceholderText));
    QFont f = font();
    f.setPointSizeF(f.pointSizeF() * 0.85);
    p.setFont(f);
    const int64_t span = h.span.end - h.span.start + 1;
    const int ticks = std::max(1, r.width() / 110);
    for (int i = 0; i <= ticks; ++i) {
        const int x = r.left() + r.width() * i / ticks;
        const int64_t offset = span * i / ticks;
        const QString text = QString::fromStdString(formatValue(offset, "nanoseconds"));
        const int w = p.fontMetrics().horizontalAdvance(text);
        const int tx = std::clamp(x - w / 2, 0, width() - w);
        p.drawLine(x, r.bottom() + 1, x, r.bottom() + 3);
        p.drawText(tx, height() - 3, text);
    }
}

void TimelineWidget::mousePressEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton || m_histogram.buckets == 0)
        return QWidget::mousePressEvent(event);
    m_dragFrom = m_dragTo = int(event->position().x());
    update();
}

void TimelineWidget::mouseMoveEvent(QMouseEvent* event)
{
    if (m_dragFrom) {
        m_dragTo = int(event->position().x());
        update();
    } else if (m_histogram.buckets > 0) {
        const int64_t t = timeAt(int(event->position().x())) - m_histogram.span.start;
        setToolTip(tr("%1 after the first sample. Drag to keep only the samples of a time range.")
                       .arg(QString::fromStdString(formatValue(t, "nanoseconds"))));
    }
}

void TimelineWidget::mouseReleaseEvent(QMouseEvent* event)
{
    if (!m_dragFrom || event->button() != Qt::LeftButton)
        return QWidget::mouseReleaseEvent(event);
    // (std::minmax returns references: to a temporary here, so the ends are copied first.)
    const int from = *m_dragFrom, to = int(event->position().x());
    const int a = std::min(from, to), b = std::max(from, to);
    m_dragFrom.reset();
    m_dragTo.reset();
    update();
    if (b - a < 3)
        return; // a click, not a drag
    emit timeRangeChosen(TimeRange { timeAt(a), timeAt(b) });
}

} // namespace symflame::ui
