#include "model/io/perf/unwindpool.h"

#include <algorithm>

namespace symflame::model {

UnwindPool::UnwindPool(PerfStackUnwinder* callerUnwinder, PerfStackUnwinderFactory factory, unsigned workers)
    : m_callerUnwinder(callerUnwinder), m_factory(factory)
{
    if (!factory)
        return;
    m_threads.reserve(workers);
    for (unsigned i = 0; i < workers; ++i)
        m_threads.emplace_back([this, factory] { work(factory); });
}

UnwindPool::~UnwindPool()
{
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_started.notify_all();
    for (std::thread& t : m_threads)
        t.join();
}

unsigned UnwindPool::workersFor(unsigned cores)
{
    return std::min(std::max(cores, 1u) - 1, 3u);
}

UnwindJob* UnwindPool::claim()
{
    return m_next < m_jobs.size() ? &m_jobs[m_next++] : nullptr;
}

void UnwindPool::start(std::span<UnwindJob> jobs)
{
    {
        std::lock_guard lock(m_mutex);
        m_jobs = jobs;
        m_next = 0;
        m_pending = jobs.size();
    }
    if (!jobs.empty())
        m_started.notify_all();
}

void UnwindPool::finish()
{
    std::unique_lock lock(m_mutex);
    while (UnwindJob* job = claim()) {
        lock.unlock();
        if (!m_callerUnwinder && m_factory) {
            m_ownUnwinder = m_factory();
            m_callerUnwinder = m_ownUnwinder.get();
            m_factory = nullptr;
        }
        job->frames.clear();
        if (m_callerUnwinder)
            m_callerUnwinder->unwind(job->request, job->frames);
        lock.lock();
        --m_pending;
    }
    m_done.wait(lock, [this] { return m_pending == 0; });
    m_jobs = {};
}

void UnwindPool::work(PerfStackUnwinderFactory factory)
{
    std::unique_ptr<PerfStackUnwinder> unwinder; // made when the first job comes
    std::unique_lock lock(m_mutex);
    for (;;) {
        m_started.wait(lock, [this] { return m_stop || m_next < m_jobs.size(); });
        if (m_stop)
            return;
        UnwindJob* job = claim();
        lock.unlock();
        if (!unwinder)
            unwinder = factory();
        job->frames.clear();
        if (unwinder)
            unwinder->unwind(job->request, job->frames);
        lock.lock();
        if (--m_pending == 0)
            m_done.notify_one();
    }
}

} // namespace symflame::model
