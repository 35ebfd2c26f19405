// model::Progress for a worker started with QtConcurrent::run(fn(QPromise<T>&)): progress and
// stage go to the future's watcher (on a scale of kProgressScale), Cancel on the future is what
// the worker polls.
#pragma once

#include "model/core/progress.h"

#include <QPromise>
#include <QString>

#include <algorithm>
#include <cstdint>
#include <string_view>

namespace symflame::ui {

inline constexpr int kProgressScale = 1000;

template <typename T> class PromiseProgress : public model::Progress {
public:
    explicit PromiseProgress(QPromise<T>& promise)
        : m_promise(promise)
    {
        m_promise.setProgressRange(0, kProgressScale);
    }
    void setProgress(uint64_t done, uint64_t total) override
    {
        if (total == 0)
            return;
        const int v = static_cast<int>(std::min<uint64_t>(kProgressScale, done * kProgressScale / total));
        if (v > m_value) {
            m_value = v;
            m_promise.setProgressValueAndText(v, m_stage);
        }
    }
    void setStage(std::string_view stage) override
    {
        m_stage = QString::fromUtf8(stage.data(), qsizetype(stage.size()));
        // Text only travels with a progress step.
        if (m_value < kProgressScale)
            m_promise.setProgressValueAndText(++m_value, m_stage);
    }
    bool isCancelled() const override { return m_promise.isCanceled(); }

private:
    QPromise<T>& m_promise;
    QString m_stage;
    int m_value = 0;
};

} // namespace symflame::ui
