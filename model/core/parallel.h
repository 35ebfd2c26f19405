// The one way the core runs work on several threads: the calling thread starts them, polls (to
// pass a Progress's cancellation on and report progress: workers never call a Progress) every
// kPollInterval while they run, and joins them. Used by the call tree, the parallel lookups and
// the symbolization pass.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace symflame::model {

/// How often a thread that waits for workers polls (cancellation, progress).
inline constexpr std::chrono::milliseconds kPollInterval { 20 };

/// Threads for work over itemCount items (frames, nodes): `requested` when not 0; else one
/// below 2^20 items, where starting threads costs more than it saves, and one per core (at most
/// 8) above.
inline unsigned threadsFor(size_t itemCount, unsigned requested = 0)
{
    if (requested > 0)
        return requested;
    if (itemCount < (size_t(1) << 20))
        return 1;
    return std::clamp(std::thread::hardware_concurrency(), 1u, 8u);
}

namespace detail {

/// Threads that tell the waiting thread when the last of them has returned.
class ThreadGroup {
public:
    explicit ThreadGroup(unsigned n) { m_threads.reserve(n); }
    ThreadGroup(const ThreadGroup&) = delete;
    ThreadGroup& operator=(const ThreadGroup&) = delete;
    ~ThreadGroup() { join(); }

    /// Runs f on a new thread; false when no thread can be had.
    template <typename F> bool start(F f)
    {
        {
            std::lock_guard lock(m_mutex);
            ++m_running;
        }
        try {
            m_threads.emplace_back([this, f = std::move(f)]() mutable {
                f();
                std::lock_guard lock(m_mutex);
                --m_running;
                m_finished.notify_all();
            });
            return true;
        } catch (const std::system_error&) {
            std::lock_guard lock(m_mutex);
            --m_running;
            return false;
        }
    }

    /// Calls poll() every kPollInterval, and once after the last thread returned, then joins.
    template <typename Poll> void pollAndJoin(Poll& poll)
    {
        std::unique_lock lock(m_mutex);
        while (m_running > 0) {
            m_finished.wait_for(lock, kPollInterval);
            lock.unlock();
            poll();
            lock.lock();
        }
        lock.unlock();
        join();
    }

    void join()
    {
        for (std::thread& t : m_threads)
            if (t.joinable())
                t.join();
    }

private:
    std::mutex m_mutex;
    std::condition_variable m_finished;
    unsigned m_running = 0;
    std::vector<std::thread> m_threads;
};

} // namespace detail

/// Runs work(t) for every t in [0, n), each on a thread of its own, while this thread calls
/// poll() every kPollInterval (and once more when all are done); returns when all have returned.
/// A part whose thread can't be started runs on this thread, before the polling begins.
template <typename Work, typename Poll> void runThreads(unsigned n, Work&& work, Poll&& poll)
{
    detail::ThreadGroup group(n);
    std::vector<unsigned> here;
    for (unsigned t = 0; t < n; ++t)
        if (!group.start([&work, t] { work(t); }))
            here.push_back(t);
    for (unsigned t : here)
        work(t);
    group.pollAndJoin(poll);
}

/// As runThreads, but every part or none, for parts that wait for each other (a std::barrier)
/// and would wait forever for one that never starts: no part begins before every thread has
/// started. Returns false, having run no part, when not every thread could be started.
template <typename Work, typename Poll> bool runThreadsAllOrNone(unsigned n, Work&& work, Poll&& poll)
{
    std::mutex gateMutex;
    std::condition_variable gateChanged;
    enum class Gate { Closed, Open, Abandoned } gate = Gate::Closed;
    bool all = true;
    {
        detail::ThreadGroup group(n);
        for (unsigned t = 0; t < n && all; ++t) {
            all = group.start([&, t] {
                {
                    std::unique_lock lock(gateMutex);
                    gateChanged.wait(lock, [&] { return gate != Gate::Closed; });
                    if (gate == Gate::Abandoned)
                        return;
                }
                work(t);
            });
        }
        {
            std::lock_guard lock(gateMutex);
            gate = all ? Gate::Open : Gate::Abandoned;
        }
        gateChanged.notify_all();
        if (all)
            group.pollAndJoin(poll);
        else
            group.join();
    }
    return all;
}

/// Runs fn(i) for every i in [0, count) on up to `threads` threads (this one among them), each
/// taking the next index when it is free. No polling: for short steps without progress.
template <typename Fn> void parallelFor(size_t count, unsigned threads, Fn&& fn)
{
    std::atomic<size_t> next { 0 };
    const auto worker = [&] {
        for (size_t i; (i = next.fetch_add(1)) < count;)
            fn(i);
    };
    {
        detail::ThreadGroup group(threads);
        for (unsigned t = 1; t < std::min<size_t>(threads, count); ++t)
            if (!group.start(worker))
                break; // the ones started and this thread do the work
        worker();
    }
}

} // namespace symflame::model
