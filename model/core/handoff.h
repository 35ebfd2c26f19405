// Handoff: one producer thread fills objects and hands them, in order, to one consumer thread,
// through a fixed set of objects that are reused. An object keeps what it allocated from one use
// to the next (vectors keep their capacity), so a long stream of batches costs no fresh memory.
#pragma once

#include <array>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <vector>

namespace symflame::model {

template <typename T, size_t N>
class Handoff {
public:
    Handoff()
    {
        for (T& t : m_items)
            m_free.push_back(&t);
    }
    Handoff(const Handoff&) = delete;
    Handoff& operator=(const Handoff&) = delete;

    /// Producer: an object to fill (as the consumer left it), waiting while all are in use;
    /// nullptr once the consumer has stopped.
    T* acquire()
    {
        std::unique_lock lock(m_mutex);
        m_changed.wait(lock, [&] { return m_stopped || !m_free.empty(); });
        if (m_stopped)
            return nullptr;
        T* t = m_free.back();
        m_free.pop_back();
        return t;
    }
    /// Producer: hands a filled object over.
    void publish(T* t)
    {
        change([&] { m_full.push_back(t); });
    }
    /// Producer: nothing more will be published. What the producer wrote before is visible to
    /// the consumer once next() returned nullptr.
    void finish()
    {
        change([&] { m_finished = true; });
    }

    /// Consumer: the next published object, waiting for it; nullptr once the producer finished
    /// and every object published was taken.
    T* next()
    {
        std::unique_lock lock(m_mutex);
        m_changed.wait(lock, [&] { return !m_full.empty() || m_finished; });
        if (m_full.empty())
            return nullptr;
        T* t = m_full.front();
        m_full.pop_front();
        return t;
    }
    /// Consumer: gives an object back to be filled again.
    void release(T* t)
    {
        change([&] { m_free.push_back(t); });
    }
    /// Consumer: takes no more; a producer waiting in acquire() (or calling it later) gets nullptr.
    void stop()
    {
        change([&] { m_stopped = true; });
    }

private:
    /// Changes the shared state under the lock and wakes whoever waits for it.
    template <typename Change> void change(Change&& f)
    {
        {
            std::lock_guard lock(m_mutex);
            f();
        }
        m_changed.notify_all();
    }

    std::array<T, N> m_items;
    std::mutex m_mutex;
    std::condition_variable m_changed;
    std::vector<T*> m_free;
    std::deque<T*> m_full;
    bool m_finished = false;
    bool m_stopped = false;
};

} // namespace symflame::model
