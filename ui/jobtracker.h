// JobTracker: one kind of background job of a window (loading, top functions, the sandwich).
// Starting a job cancels the previous one of the same tracker; a job's result is delivered on
// the GUI thread only while it is still the newest one and was not cancelled. It replaces the
// hand-written generation counters that each kind of job used to keep.
#pragma once

#include <QFuture>
#include <QFutureWatcher>
#include <QObject>
#include <QtConcurrentRun>

#include <cstdint>
#include <functional>
#include <type_traits>
#include <utility>

namespace symflame::ui {

class JobTracker {
public:
    /// Watchers are children of context, and results are delivered in its thread.
    explicit JobTracker(QObject* context)
        : m_context(context)
    {
    }
    JobTracker(const JobTracker&) = delete;
    JobTracker& operator=(const JobTracker&) = delete;

    /// Runs fn() on the thread pool; receiver(result) is called on the GUI thread if the job is
    /// still current when it finishes.
    template <typename Fn, typename Receiver> void run(Fn fn, Receiver receiver)
    {
        using T = std::invoke_result_t<Fn>;
        track(QtConcurrent::run(std::move(fn)),
            [receiver = std::move(receiver)](const QFuture<T>& future) { receiver(future.result()); });
    }

    /// Tracks future as the current job (cancelling the previous one); onFinished(future) is
    /// called on the GUI thread if it is still current when it finishes. The watcher is returned
    /// for progress and partial results; check isCurrent(id()) in those handlers.
    template <typename T, typename OnFinished> QFutureWatcher<T>* track(QFuture<T> future, OnFinished onFinished)
    {
        cancel();
        const uint64_t id = m_id;
        auto* watcher = new QFutureWatcher<T>(m_context);
        QObject::connect(
            watcher, &QFutureWatcherBase::finished, m_context, [this, watcher, id, onFinished = std::move(onFinished)] {
                watcher->deleteLater();
                if (id != m_id)
                    return; // cancelled or superseded by a newer job
                m_cancel = nullptr;
                onFinished(watcher->future());
            });
        watcher->setFuture(future);
        m_cancel = [future]() mutable { future.cancel(); };
        return watcher;
    }

    /// Cancels the current job and drops whatever it still delivers; true if one was running.
    bool cancel()
    {
        ++m_id;
        if (!m_cancel)
            return false;
        m_cancel();
        m_cancel = nullptr;
        return true;
    }
    /// A job is started and has not finished (nor been cancelled).
    bool isRunning() const { return bool(m_cancel); }
    /// The current job's id, for handlers of its watcher's other signals.
    uint64_t id() const { return m_id; }
    bool isCurrent(uint64_t id) const { return id == m_id; }

private:
    QObject* m_context;
    uint64_t m_id = 0;
    std::function<void()> m_cancel;
};

} // namespace symflame::ui
