// Unwinds the user stacks of `perf record --call-graph dwarf` samples on several threads. The
// reader hands over a batch of requests and goes on reading the next batch while the workers
// unwind this one; then it unwinds what is left of the batch itself and waits for the rest.
// Each thread has an unwinder of its own (libdwfl's state is not shared between threads), so
// every sample is unwound from the same request the same way, whichever thread takes it.
#pragma once

#include "model/io/perf/perfunwinder.h"

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

namespace symflame::model {

/// One sample to unwind: the request (its spans point into the file and into regs, which the
/// job owns) and, once done, the frames.
struct UnwindJob {
    PerfUnwindRequest request;
    std::vector<uint64_t> regs;
    std::shared_ptr<const std::vector<PerfMapping>> mappings; ///< what request.mappings points into
    std::vector<uint64_t> frames;
};

class UnwindPool {
public:
    /// callerUnwinder unwinds on the thread that calls finish() (without one, an unwinder factory
    /// makes); workers more threads each make their own with factory (none without a factory).
    UnwindPool(PerfStackUnwinder* callerUnwinder, PerfStackUnwinderFactory factory, unsigned workers);
    ~UnwindPool();
    UnwindPool(const UnwindPool&) = delete;
    UnwindPool& operator=(const UnwindPool&) = delete;

    /// Workers start on jobs, which must stay in place until finish() returns. Call finish()
    /// for the batch before starting another.
    void start(std::span<UnwindJob> jobs);
    /// Unwinds the started batch's jobs that no worker took yet on this thread, then waits
    /// until every job of it is done.
    void finish();

    /// Worker threads for a machine with this many cores: one fewer than the cores (the reader's
    /// thread unwinds too), at most three.
    static unsigned workersFor(unsigned cores);

private:
    void work(PerfStackUnwinderFactory factory);
    /// The next job of the batch nobody took, or null; with the lock held.
    UnwindJob* claim();

    PerfStackUnwinder* m_callerUnwinder;
    PerfStackUnwinderFactory m_factory; // makes m_ownUnwinder, the caller's, when it is needed
    std::unique_ptr<PerfStackUnwinder> m_ownUnwinder;
    std::mutex m_mutex;
    std::condition_variable m_started; // a batch started, or stop
    std::condition_variable m_done; // a batch's last job done
    std::span<UnwindJob> m_jobs;
    size_t m_next = 0; // the first job nobody took
    size_t m_pending = 0; // jobs taken or not that are not done
    bool m_stop = false;
    std::vector<std::thread> m_threads;
};

} // namespace symflame::model
