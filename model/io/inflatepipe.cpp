#include "model/io/inflatepipe.h"

#include <algorithm>
#include <new>
#include <system_error>

namespace symflame::model {

InflatePipe::InflatePipe(std::span<const uint8_t> data, const DecompressLimits& limits, uint64_t sizeHint)
    : m_stream(data, limits)
    , m_inputSize(data.size())
    , m_firstChunkBytes(sizeHint == 0 ? kChunkBytes : std::clamp<size_t>(sizeHint + 1, 4096, kChunkBytes))
{
}

InflatePipe::~InflatePipe()
{
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_changed.notify_all();
    if (m_thread.joinable())
        m_thread.join();
}

bool InflatePipe::start()
{
    try {
        m_thread = std::thread([this] { run(); });
    } catch (const std::system_error&) {
        return false;
    }
    return true;
}

void InflatePipe::run()
{
    try {
        inflateChunks();
    } catch (const std::bad_alloc&) { // a buffer not had: the stream ends with an error, not the process
        {
            std::lock_guard lock(m_mutex);
            m_error = makeError(ErrorCode::TooLarge, "out of memory while inflating");
            m_done = true;
        }
        m_changed.notify_all();
    }
}

void InflatePipe::inflateChunks()
{
    for (;;) {
        int buffer = -1;
        {
            std::unique_lock lock(m_mutex);
            m_changed.wait(lock, [&] { return m_stop || !m_free.empty() || m_made < kBuffers; });
            if (m_stop)
                return;
            if (!m_free.empty()) {
                buffer = m_free.back();
                m_free.pop_back();
            }
        }
        if (buffer < 0) { // only this thread makes buffers; the consumer sees them once queued
            buffer = m_made++;
            // The first as small as the hint says the stream is; a wrong hint costs a chunk.
            m_sizes[buffer] = buffer == 0 ? m_firstChunkBytes : kChunkBytes;
            m_buffers[buffer] = std::make_unique_for_overwrite<uint8_t[]>(kHeadroom + m_sizes[buffer]);
        }
        const std::span<uint8_t> out(m_buffers[buffer].get() + kHeadroom, m_sizes[buffer]);
        size_t filled = 0;
        std::optional<Error> error;
        while (filled < out.size()) {
            auto n = m_stream.read(out.subspan(filled));
            if (!n) {
                error = n.error();
                break;
            }
            if (*n == 0)
                break;
            filled += *n;
        }
        m_consumed.store(m_stream.consumed(), std::memory_order_relaxed);
        const bool last = error || m_stream.atEnd();
        {
            std::lock_guard lock(m_mutex);
            if (filled > 0)
                m_full.emplace_back(buffer, filled);
            else
                m_free.push_back(buffer);
            if (last) {
                m_error = error;
                m_done = true;
            }
        }
        m_changed.notify_all();
        if (last)
            return;
    }
}

InflatePipe::Chunk InflatePipe::next()
{
    std::unique_lock lock(m_mutex);
    m_changed.wait(lock, [&] { return !m_full.empty() || m_done; });
    if (m_full.empty())
        return {};
    const auto [buffer, size] = m_full.front();
    m_full.pop_front();
    return { buffer, { m_buffers[buffer].get() + kHeadroom, size } };
}

void InflatePipe::release(int buffer)
{
    {
        std::lock_guard lock(m_mutex);
        m_free.push_back(buffer);
    }
    m_changed.notify_all();
}

} // namespace symflame::model
