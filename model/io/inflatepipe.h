// A GunzipStream run on a thread of its own, so that a reader decodes on one core what the other
// inflates: the inflated bytes come in chunks from a small ring of buffers, and the whole
// inflated file is never held. Each chunk has room before its bytes, so that the consumer can
// put the unfinished end of the previous chunk (a message cut in two) right in front of it and
// read on without copying the chunk.
#pragma once

#include "model/io/gunzipstream.h"

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <thread>
#include <vector>

namespace symflame::model {

class InflatePipe {
public:
    /// Inflated bytes per chunk: small enough to stay in the cache between the two cores.
    static constexpr size_t kChunkBytes = size_t(256) << 10;
    /// Room before each chunk's bytes for the consumer's carried-over bytes.
    static constexpr size_t kHeadroom = size_t(64) << 10;

    /// data must outlive the pipe and start with a gzip member (isGzip). sizeHint, when not 0, is
    /// the inflated size expected: a small stream gets one small buffer.
    InflatePipe(std::span<const uint8_t> data, const DecompressLimits& limits, uint64_t sizeHint = 0);
    /// Stops the inflating thread (at its next chunk) and waits for it.
    ~InflatePipe();
    InflatePipe(const InflatePipe&) = delete;
    InflatePipe& operator=(const InflatePipe&) = delete;

    /// Starts inflating; false when no thread could be started.
    bool start();

    struct Chunk {
        int buffer = -1; ///< -1: no more chunks (the end, or an error: see error())
        std::span<uint8_t> bytes; ///< kHeadroom bytes before bytes.data() are the consumer's
    };
    /// The next chunk in order, waiting for it. Give it back with release() when done with it;
    /// at most kBuffers - 1 chunks may be held at once.
    Chunk next();
    void release(int buffer);

    /// The error that ended the stream early, if any (valid once next() returned no chunk).
    const std::optional<Error>& error() const { return m_error; }
    /// Compressed bytes consumed so far (from any thread), and the input's size.
    uint64_t consumed() const { return m_consumed.load(std::memory_order_relaxed); }
    uint64_t inputSize() const { return m_inputSize; }

private:
    static constexpr int kBuffers = 8;
    void run();
    void inflateChunks();

    GunzipStream m_stream;
    uint64_t m_inputSize;
    size_t m_firstChunkBytes;
    std::array<std::unique_ptr<uint8_t[]>, kBuffers> m_buffers; ///< made as the inflating thread needs them
    std::array<size_t, kBuffers> m_sizes {};
    int m_made = 0;
    std::mutex m_mutex;
    std::condition_variable m_changed;
    std::vector<int> m_free; ///< buffers made and given back, to fill again
    std::deque<std::pair<int, size_t>> m_full; ///< filled buffers and their sizes, in order
    bool m_done = false; ///< the inflating thread has queued its last chunk
    bool m_stop = false;
    std::optional<Error> m_error;
    std::atomic<uint64_t> m_consumed { 0 };
    std::thread m_thread;
};

} // namespace symflame::model
