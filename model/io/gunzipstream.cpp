#include "model/io/gunzipstream.h"

#include <isa-l/igzip_lib.h>

#include <algorithm>
#include <string>

namespace symflame::model {

namespace {
// ISA-L counts its input in 32 bits: it is fed in pieces no larger than this.
constexpr size_t kInPiece = size_t(1) << 30;
// Output per inflate call, so that the ratio checks see the output as it grows.
constexpr size_t kOutPiece = size_t(1) << 20;
} // namespace

struct GunzipStream::State {
    inflate_state st;
    size_t offset = 0; // of the next input byte not yet handed to ISA-L
};

GunzipStream::GunzipStream(std::span<const uint8_t> data, const DecompressLimits& limits)
    : m_state(std::make_unique<State>())
    , m_data(data)
    , m_limits(limits)
{
    isal_inflate_init(&m_state->st);
    m_state->st.crc_flag = ISAL_GZIP;
    if (!isGzip(data))
        m_error = makeError(ErrorCode::InvalidInput, "not gzip data (it does not start with 1f 8b)");
}

GunzipStream::~GunzipStream() = default;

uint64_t GunzipStream::consumed() const
{
    return m_state->offset - m_state->st.avail_in;
}

Result<size_t> GunzipStream::read(std::span<uint8_t> out)
{
    if (m_error)
        return *m_error;
    auto fail = [this](Error e) -> Result<size_t> {
        m_error = e;
        return e;
    };
    if (m_end || out.empty())
        return size_t(0);

    inflate_state& st = m_state->st;
    size_t written = 0;
    while (written < out.size()) {
        if (st.avail_in == 0 && m_state->offset < m_data.size()) {
            const size_t piece = std::min(m_data.size() - m_state->offset, kInPiece);
            st.next_in = const_cast<uint8_t*>(m_data.data() + m_state->offset);
            st.avail_in = static_cast<uint32_t>(piece);
            m_state->offset += piece;
        }
        uint64_t room = std::min(out.size() - written, kOutPiece);
        if (m_produced + written + room > m_limits.maxOutputBytes)
            room = m_limits.maxOutputBytes - m_produced - written + 1; // one byte past the cap tells "over it"
        st.next_out = out.data() + written;
        st.avail_out = static_cast<uint32_t>(room);
        const uint32_t inBefore = st.avail_in;
        const int ret = isal_inflate(&st);
        const size_t made = room - st.avail_out;
        written += made;

        const uint64_t produced = m_produced + written;
        if (produced > m_limits.maxOutputBytes)
            return fail(sizeLimitError(m_limits.maxOutputBytes));
        if (const uint64_t exceeded = exceededRatio(m_limits, produced, consumed()))
            return fail(bombError("gzip", exceeded, produced, consumed()));

        switch (ret) {
        case ISAL_DECOMP_OK:
        case ISAL_END_INPUT:
        case ISAL_OUT_OVERFLOW:
            break;
        case ISAL_INCORRECT_CHECKSUM:
            return fail(makeError(ErrorCode::InvalidInput, "corrupt gzip stream: incorrect data check"));
        case ISAL_NEED_DICT:
            return fail(makeError(ErrorCode::InvalidInput, "corrupt gzip stream: it asks for a preset dictionary"));
        case ISAL_UNSUPPORTED_METHOD:
            return fail(makeError(ErrorCode::InvalidInput, "corrupt gzip stream: unknown compression method"));
        case ISAL_INVALID_WRAPPER:
            return fail(makeError(ErrorCode::InvalidInput, "corrupt gzip stream: invalid gzip header"));
        default:
            return fail(makeError(ErrorCode::InvalidInput,
                "corrupt gzip stream: invalid deflate data (ISA-L error " + std::to_string(ret) + ")"));
        }

        if (st.block_state == ISAL_BLOCK_FINISH) {
            const size_t at = static_cast<size_t>(consumed());
            const auto rest = m_data.subspan(at);
            if (rest.empty()) {
                m_end = true;
                break;
            }
            if (isGzip(rest)) {
                // Another member follows (concatenated gzip files decompress to the concatenation).
                const auto total = consumed();
                isal_inflate_reset(&st);
                st.crc_flag = ISAL_GZIP;
                m_state->offset = static_cast<size_t>(total);
                st.avail_in = 0;
                continue;
            }
            // Some writers pad to a block size with zeros; anything else is not ours to ignore.
            if (std::all_of(rest.begin(), rest.end(), [](uint8_t b) { return b == 0; })) {
                m_end = true;
                break;
            }
            return fail(makeError(ErrorCode::InvalidInput,
                "unexpected data after the end of the gzip stream (at byte " + std::to_string(at) + ")"));
        }
        if (made == 0 && inBefore == 0 && m_state->offset == m_data.size()) // nothing left to give, nothing came out
            return fail(makeError(ErrorCode::Truncated,
                "truncated gzip stream (it ends after " + std::to_string(m_data.size())
                    + " bytes, before its end marker)"));
    }
    m_produced += written;
    return written;
}

} // namespace symflame::model
