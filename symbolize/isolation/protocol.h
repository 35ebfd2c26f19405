// The wire protocol between IsolatedEngine (the parent, isolatedengine.h) and the worker process
// (worker.h): message framing and the encoding of each message, as pure functions over bytes, so
// that it can be tested without a process.
//
//   every message: u32 type, u32 payload length, payload (host byte order: same machine)
//   parent -> worker  Open    the module's files (paths, or the bytes of files held in memory such
//                             as MiniDebugInfo's), the locator's findings and EngineOptions
//                     Lookup  u8 new output, u32 n, u64 addresses[n]  (a batch)
//   worker -> parent  Opened  ok, source, engine name, description, or the error
//                     Answers the batch's answers: the strings and functions the output did not
//                             have yet, each address's frames, the engine's warnings so far
//
// The batches of one symbolize() call share one output in the worker, so each string and function
// crosses once (AnswersSent on the worker's side, AnswersReceived on the parent's).
//
// Decoders check every length and index against the payload and fail with an error on anything
// malformed; they never read past the payload.
#pragma once

#include "model/core/result.h"
#include "symbolize/engines/answers.h"
#include "symbolize/engines/engine.h"
#include "symbolize/locate/debuginfolocator.h"

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace symflame::symbolize::protocol {

enum MessageType : uint32_t { Open = 1, Lookup = 2, Opened = 3, Answers = 4 };

/// Sent first in Open; a worker of another build refuses to work.
constexpr uint32_t kProtocolVersion = 5;
/// A worker's message longer than this is taken for garbage (a batch's answers are far smaller).
constexpr uint32_t kMaxReply = 512u << 20;
/// u32 type, u32 payload length.
constexpr size_t kHeaderSize = 8;

/// Appends fixed-size numbers (host byte order) and length-prefixed strings.
class Writer {
public:
    void u8(uint8_t v) { m_s.push_back(char(v)); }
    void u32(uint32_t v) { m_s.append(reinterpret_cast<const char*>(&v), sizeof v); }
    void u64(uint64_t v) { m_s.append(reinterpret_cast<const char*>(&v), sizeof v); }
    /// A u32 length, then the bytes.
    void str(std::string_view s)
    {
        u32(static_cast<uint32_t>(s.size()));
        m_s.append(s);
    }
    void raw(const void* p, size_t n) { m_s.append(static_cast<const char*>(p), n); }
    std::string& data() { return m_s; }

private:
    std::string m_s;
};

/// Bounds-checked: after the first read past the end, ok() is false and reads give zeros.
class Reader {
public:
    explicit Reader(std::string_view s)
        : m_s(s)
    {
    }
    bool ok() const { return m_ok; }
    bool atEnd() const { return m_pos == m_s.size(); }
    uint8_t u8()
    {
        uint8_t v = 0;
        take(&v, 1);
        return v;
    }
    uint32_t u32()
    {
        uint32_t v = 0;
        take(&v, sizeof v);
        return v;
    }
    uint64_t u64()
    {
        uint64_t v = 0;
        take(&v, sizeof v);
        return v;
    }
    /// A u32 length, then that many bytes (bytes() below).
    std::string_view str()
    {
        const uint32_t n = u32();
        return bytes(n);
    }
    /// n bytes in place, or empty (and not ok) when fewer are left.
    std::string_view bytes(size_t n)
    {
        if (!m_ok || n > m_s.size() - m_pos) {
            m_ok = false;
            return {};
        }
        std::string_view v = m_s.substr(m_pos, n);
        m_pos += n;
        return v;
    }

private:
    void take(void* p, size_t n)
    {
        if (!m_ok || n > m_s.size() - m_pos) {
            m_ok = false;
            return;
        }
        std::memcpy(p, m_s.data() + m_pos, n);
        m_pos += n;
    }
    std::string_view m_s;
    size_t m_pos = 0;
    bool m_ok = true;
};

// --- framing

/// A whole message: the header, then the payload.
std::string frame(uint32_t type, std::string_view payload);

struct Header {
    uint32_t type = 0;
    uint32_t length = 0; ///< of the payload
};
/// The header at the start of bytes (at least kHeaderSize of them).
Header readHeader(std::string_view bytes);

// --- Open (parent -> worker)

/// The module's files (each once: fields that share a file share it in the worker too; a mapped
/// file by path, bytes held in memory as they are), the locator's findings and the options.
std::string encodeOpen(const LocateResult& located, const EngineOptions& options);
/// Rebuilds the LocateResult, opening the files. Errors: another protocol version, a file that
/// can't be read (its own error), a malformed payload ("malformed open message").
model::Status decodeOpen(std::string_view payload, LocateResult& located, EngineOptions& options);

// --- Opened (worker -> parent)

struct OpenedReply {
    bool ok = false;
    std::string error; ///< when not ok: why the engine could not open the module
    DebugSource source = DebugSource::None;
    std::string engine; ///< SymbolizerEngine::engineName()
    std::string description; ///< SymbolizerEngine::description()
};
std::string encodeOpened(const OpenedReply& reply);
/// Errors on a malformed payload (a source out of range included).
model::Result<OpenedReply> decodeOpened(std::string_view payload);

// --- Lookup (parent -> worker)

struct LookupRequest {
    bool fresh = false; ///< a new output: the worker starts new string and function tables
    std::vector<uint64_t> addresses;
};
std::string encodeLookup(bool fresh, std::span<const uint64_t> addresses);
/// Errors on a malformed payload.
model::Result<LookupRequest> decodeLookup(std::string_view payload);

// --- Answers (worker -> parent)

/// The worker's side: how much of its current output the parent has (strings, functions and
/// addresses sent so far); a batch's answer carries only what is new.
struct AnswersSent {
    size_t strings = 0, functions = 0, addresses = 0;
};
/// What out has that sent says the parent lacks, and the engine's warnings so far; advances sent.
std::string encodeAnswers(
    const SymbolizedAddresses& out, uint64_t warningCount, const std::vector<std::string>& warnings, AnswersSent& sent);
/// The engine failed on the batch: its message.
std::string encodeAnswersError(std::string_view message);

/// The parent's side of one symbolize() call: the worker's strings and functions as ids of the
/// output they were appended to (each comes once per call).
struct AnswersReceived {
    std::vector<model::StringId> strings;
    std::vector<uint32_t> functions;
};
struct AnswersBatch {
    bool ok = false;
    std::string error; ///< when not ok: the engine's error
    uint64_t warningCount = 0;
    std::vector<std::string> warnings;
};
/// Appends the answers for `expected` addresses to out, checking every index against its table.
/// Errors on a malformed payload (out may then hold part of the batch); an engine's error is not
/// an error here but a batch that is not ok.
model::Result<AnswersBatch> decodeAnswers(
    std::string_view payload, size_t expected, AnswersReceived& received, SymbolizedAddresses& out);

} // namespace symflame::symbolize::protocol
