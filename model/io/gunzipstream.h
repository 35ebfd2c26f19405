// A gzip stream inflated piece by piece into the caller's buffer (Intel's ISA-L), for readers
// that consume the output as it comes and so never hold the whole inflated file: a 10M-sample
// pprof is 871 MB inflated, and first-touching that much fresh memory costs more on a virtual
// machine than inflating it. ISA-L inflates a profile at about 0.45 GB/s of output here, as fast
// as libdeflate's whole-buffer call, into a chunk that stays in cache.
//
// The same DecompressLimits as gunzip() apply, checked after every piece. Concatenated members
// are read one after the other; bytes after the last member that are not another member are an
// error (InvalidInput), as for gunzip().
#pragma once

#include "model/io/gzip.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <span>

namespace symflame::model {

class GunzipStream {
public:
    /// data must outlive the stream and start with a gzip member (isGzip).
    explicit GunzipStream(std::span<const uint8_t> data, const DecompressLimits& limits = {});
    ~GunzipStream();
    GunzipStream(const GunzipStream&) = delete;
    GunzipStream& operator=(const GunzipStream&) = delete;

    /// Writes the next up to out.size() inflated bytes to out and returns how many; 0 only at the
    /// end of the stream (or for an empty out). Errors: Truncated (the data ends inside a member),
    /// InvalidInput (corrupt data, a bad checksum, trailing bytes), TooLarge (past the limits).
    /// After an error every further call returns the same error.
    Result<size_t> read(std::span<uint8_t> out);

    /// Inflated bytes returned so far, and compressed bytes consumed for them.
    uint64_t produced() const { return m_produced; }
    uint64_t consumed() const;
    bool atEnd() const { return m_end; }

private:
    struct State;
    std::unique_ptr<State> m_state;
    std::span<const uint8_t> m_data;
    DecompressLimits m_limits;
    uint64_t m_produced = 0;
    bool m_end = false;
    std::optional<Error> m_error;
};

} // namespace symflame::model
