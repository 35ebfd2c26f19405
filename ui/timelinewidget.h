// The timeline: a strip above the flame graph with the shown profile's samples over time (the
// shown sample type per time bucket, stacked by group when grouped: by process, by thread),
// hidden when no sample has a timestamp. Dragging selects a time range, which filters the
// flame graph, the tables and the binaries panel (timeRangeChosen); the selection stays drawn
// and a chip (ViewState) clears it. As the Firefox Profiler's track and hotspot's time line.
#pragma once

#include "ui/jobtracker.h"
#include "ui/profilesnapshot.h"

#include <QWidget>

#include <memory>
#include <optional>

namespace symflame::ui {

class TimelineWidget : public QWidget {
    Q_OBJECT
public:
    explicit TimelineWidget(QWidget* parent = nullptr);

    /// Draws snapshot's samples over time (its source's timestamps, its label filters and
    /// grouping, its time range as the selection); hides itself when there are none.
    void setSnapshot(std::shared_ptr<const ProfileSnapshot> snapshot);
    const model::TimeHistogram& histogram() const { return m_histogram; }
    /// The time at x (widget coordinates), clamped to the span.
    int64_t timeAt(int x) const;
    int xOf(int64_t time) const;

    QSize sizeHint() const override;

signals:
    /// A range was dragged out: keep the samples in it.
    void timeRangeChosen(const model::TimeRange& range);

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;

private:
    void recompute();
    QRect plotRect() const;

    std::shared_ptr<const ProfileSnapshot> m_snapshot;
    model::TimeHistogram m_histogram;
    std::optional<int> m_dragFrom, m_dragTo;
    JobTracker m_jobs { this };
};

} // namespace symflame::ui
