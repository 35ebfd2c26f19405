// The tiny progress/cancel interface that long work in the core takes, so that model/ and
// symbolize/ stay free of Qt. ui/ adapts it to QPromise; the CLI to a line on stderr.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string_view>

namespace symflame::model {

class Progress {
public:
    virtual ~Progress() = default;
    /// Work done so far out of total (units are the caller's: bytes, samples, addresses).
    virtual void setProgress(uint64_t done, uint64_t total) { (void)done, (void)total; }
    /// A short text of what is being done now ("reading", "symbolizing libc.so.6").
    virtual void setStage(std::string_view stage) { (void)stage; }
    /// Polled by the worker; true once the user asked to stop.
    virtual bool isCancelled() const { return false; }
};

/// A Progress that can be cancelled from another thread and reports nothing.
class CancelFlag : public Progress {
public:
    void cancel() { m_cancelled.store(true, std::memory_order_relaxed); }
    bool isCancelled() const override { return m_cancelled.load(std::memory_order_relaxed); }

private:
    std::atomic<bool> m_cancelled { false };
};

/// A stage of longer work: its own 0..total progress is mapped into [begin, end) of the parent's
/// 0..kScale; stage texts and cancellation pass through. The parent is told begin when the stage
/// starts and end when it ends.
class StageProgress : public Progress {
public:
    static constexpr uint64_t kScale = 1000;

    StageProgress(Progress* parent, uint64_t begin, uint64_t end)
        : m_parent(parent)
        , m_begin(begin)
        , m_end(end)
    {
        if (m_parent)
            m_parent->setProgress(m_begin, kScale);
    }
    ~StageProgress() override
    {
        if (m_parent)
            m_parent->setProgress(m_end, kScale);
    }
    StageProgress(const StageProgress&) = delete;
    StageProgress& operator=(const StageProgress&) = delete;

    void setProgress(uint64_t done, uint64_t total) override
    {
        if (!m_parent || total == 0)
            return;
        const double f = std::min(1.0, double(done) / double(total));
        m_parent->setProgress(m_begin + static_cast<uint64_t>(f * double(m_end - m_begin)), kScale);
    }
    void setStage(std::string_view stage) override
    {
        if (m_parent)
            m_parent->setStage(stage);
    }
    bool isCancelled() const override { return m_parent && m_parent->isCancelled(); }

private:
    Progress* m_parent;
    uint64_t m_begin, m_end;
};

} // namespace symflame::model
