// The tiny progress/cancel interface that long work in the core takes, so that model/ and
// symbolize/ stay free of Qt. ui/ adapts it to QPromise; the CLI to a line on stderr.
#pragma once

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
    std::atomic<bool> m_cancelled{false};
};

} // namespace symflame::model
