#include "symbolize/isolation/protocol.h"

#include "symbolize/object/elffile.h"
#include "symbolize/object/mappedfile.h"

namespace symflame::symbolize::protocol {

using model::ErrorCode;
using model::makeError;

static_assert(sizeof(SymbolizedFrame) == 12, "frames are sent as three u32");

std::string frame(uint32_t type, std::string_view payload)
{
    Writer w;
    w.u32(type);
    w.u32(static_cast<uint32_t>(payload.size()));
    w.data() += payload;
    return std::move(w.data());
}

Header readHeader(std::string_view bytes)
{
    Header h;
    if (bytes.size() < kHeaderSize)
        return h;
    std::memcpy(&h.type, bytes.data(), 4);
    std::memcpy(&h.length, bytes.data() + 4, 4);
    return h;
}

namespace {

// The files of a LocateResult, each sent once (fields that share a file share it in the worker
// too: engines compare them).
struct FileTable {
    std::vector<ElfFilePtr> files;
    int32_t indexOf(const ElfFilePtr& f)
    {
        if (!f)
            return -1;
        for (size_t i = 0; i < files.size(); ++i)
            if (files[i] == f)
                return int32_t(i);
        files.push_back(f);
        return int32_t(files.size() - 1);
    }
};

model::Error malformed(const char* what)
{
    return makeError(ErrorCode::InvalidInput, std::string("malformed ") + what + " message");
}

} // namespace

std::string encodeOpen(const LocateResult& r, const EngineOptions& options)
{
    FileTable table;
    const int32_t fields[] = { table.indexOf(r.binary), table.indexOf(r.dwarf), table.indexOf(r.symbols),
        table.indexOf(r.supplementary), table.indexOf(r.dynamicSymbols) };
    Writer w;
    w.u32(kProtocolVersion);
    w.u8(options.demangle);
    w.u8(options.elideGoWrappers);
    w.u8(options.namePltStubs);
    w.u8(options.symbolTablesOnly);
    w.u32(static_cast<uint32_t>(options.maxWarnings));
    w.u8(uint8_t(r.status));
    w.u8(uint8_t(r.source));
    w.u8(uint8_t(r.symbolKind));
    w.u8(r.unverified);
    w.u8(r.binaryDownloaded);
    w.u8(r.supplementaryDownloaded);
    for (const std::string* s : { &r.recordedPath, &r.wantedBuildId, &r.wantedHtlHash, &r.binaryPath, &r.mismatchPath,
             &r.mismatchBuildId, &r.dwarfPath, &r.supplementaryPath, &r.supplementaryProblem })
        w.str(*s);
    w.u32(static_cast<uint32_t>(r.tried.size()));
    for (const std::string& t : r.tried)
        w.str(t);
    w.u32(static_cast<uint32_t>(table.files.size()));
    for (const ElfFilePtr& f : table.files) {
        // A mapped file is opened again by path; bytes held in memory (MiniDebugInfo's
        // decompressed ELF) are sent.
        const bool mapped = f->file()->inode() != 0;
        w.u8(mapped ? 1 : 2);
        w.str(f->path());
        if (!mapped) {
            w.u64(f->bytes().size());
            w.raw(f->bytes().data(), f->bytes().size());
        }
    }
    for (int32_t i : fields)
        w.u32(uint32_t(i));
    return std::move(w.data());
}

model::Status decodeOpen(std::string_view payload, LocateResult& r, EngineOptions& options)
{
    Reader in(payload);
    if (in.u32() != kProtocolVersion)
        return makeError(ErrorCode::InvalidInput,
            "the debug info reader speaks another protocol version (not the same build of symflame)");
    options.demangle = in.u8() != 0;
    options.elideGoWrappers = in.u8() != 0;
    options.namePltStubs = in.u8() != 0;
    options.symbolTablesOnly = in.u8() != 0;
    options.maxWarnings = in.u32();
    r.status = LocateStatus(in.u8());
    r.source = DebugSource(in.u8());
    r.symbolKind = SymbolTable::Kind(in.u8());
    r.unverified = in.u8() != 0;
    r.binaryDownloaded = in.u8() != 0;
    r.supplementaryDownloaded = in.u8() != 0;
    for (std::string* s : { &r.recordedPath, &r.wantedBuildId, &r.wantedHtlHash, &r.binaryPath, &r.mismatchPath,
             &r.mismatchBuildId, &r.dwarfPath, &r.supplementaryPath, &r.supplementaryProblem })
        *s = std::string(in.str());
    const uint32_t tried = in.u32();
    for (uint32_t i = 0; i < tried && in.ok(); ++i)
        r.tried.emplace_back(in.str());
    const uint32_t count = in.u32();
    std::vector<ElfFilePtr> files;
    for (uint32_t i = 0; i < count && in.ok(); ++i) {
        const uint8_t kind = in.u8();
        const std::string path(in.str());
        model::Result<ElfFilePtr> elf = malformed("open");
        if (kind == 1) {
            elf = ElfFile::open(path);
        } else {
            const uint64_t size = in.u64();
            const std::string_view bytes = in.bytes(size);
            if (!in.ok())
                break;
            elf = ElfFile::parse(MappedFile::fromBytes(std::vector<uint8_t>(bytes.begin(), bytes.end()), path));
        }
        if (!elf)
            return elf.error();
        files.push_back(*elf);
    }
    ElfFilePtr* fields[] = { &r.binary, &r.dwarf, &r.symbols, &r.supplementary, &r.dynamicSymbols };
    for (ElfFilePtr* f : fields) {
        const uint32_t i = in.u32();
        if (i != UINT32_MAX) {
            if (i >= files.size())
                return malformed("open");
            *f = files[i];
        }
    }
    if (!in.ok() || !in.atEnd())
        return malformed("open");
    return model::Status::success();
}

std::string encodeOpened(const OpenedReply& reply)
{
    Writer w;
    w.u8(reply.ok ? 1 : 0);
    if (reply.ok) {
        w.u8(uint8_t(reply.source));
        w.str(reply.engine);
        w.str(reply.description);
    } else {
        w.str(reply.error);
    }
    return std::move(w.data());
}

model::Result<OpenedReply> decodeOpened(std::string_view payload)
{
    Reader r(payload);
    OpenedReply reply;
    reply.ok = r.u8() != 0;
    if (!reply.ok) {
        reply.error = std::string(r.str());
        if (!r.ok())
            return malformed("opened");
        return reply;
    }
    reply.source = DebugSource(r.u8());
    reply.engine = std::string(r.str());
    reply.description = std::string(r.str());
    if (!r.ok() || !r.atEnd() || reply.source > DebugSource::ClientCache)
        return malformed("opened");
    return reply;
}

std::string encodeLookup(bool fresh, std::span<const uint64_t> addresses)
{
    Writer w;
    w.u8(fresh);
    w.u32(static_cast<uint32_t>(addresses.size()));
    w.raw(addresses.data(), addresses.size() * sizeof(uint64_t));
    return std::move(w.data());
}

model::Result<LookupRequest> decodeLookup(std::string_view payload)
{
    Reader r(payload);
    LookupRequest request;
    request.fresh = r.u8() != 0;
    const uint32_t n = r.u32();
    const std::string_view raw = r.bytes(size_t(n) * 8);
    if (!r.ok() || !r.atEnd())
        return malformed("lookup");
    request.addresses.resize(n);
    if (n > 0)
        std::memcpy(request.addresses.data(), raw.data(), raw.size());
    return request;
}

std::string encodeAnswers(
    const SymbolizedAddresses& a, uint64_t warningCount, const std::vector<std::string>& warnings, AnswersSent& sent)
{
    Writer w;
    w.u8(1);
    const model::StringTable& strings = a.strings();
    w.u32(static_cast<uint32_t>(strings.size() - sent.strings));
    for (size_t i = sent.strings; i < strings.size(); ++i)
        w.str(strings.get(model::StringId(uint32_t(i))));
    w.u32(static_cast<uint32_t>(a.functions().size() - sent.functions));
    for (size_t i = sent.functions; i < a.functions().size(); ++i) {
        const SymbolizedFunction& f = a.function(uint32_t(i));
        w.u32(f.name.value);
        w.u32(f.systemName.value);
        w.u32(f.file.value);
        w.u32(f.startLine);
    }
    w.u32(static_cast<uint32_t>(a.size() - sent.addresses));
    for (size_t i = sent.addresses; i < a.size(); ++i) {
        const auto frames = a.frames(i);
        w.u32(static_cast<uint32_t>(frames.size()));
        w.raw(frames.data(), frames.size() * sizeof(SymbolizedFrame));
    }
    sent = AnswersSent { strings.size(), a.functions().size(), a.size() };
    w.u64(warningCount);
    w.u32(static_cast<uint32_t>(warnings.size()));
    for (const std::string& s : warnings)
        w.str(s);
    return std::move(w.data());
}

std::string encodeAnswersError(std::string_view message)
{
    Writer w;
    w.u8(0);
    w.str(message);
    return std::move(w.data());
}

model::Result<AnswersBatch> decodeAnswers(
    std::string_view payload, size_t expected, AnswersReceived& received, SymbolizedAddresses& out)
{
    Reader r(payload);
    AnswersBatch batch;
    if (r.u8() == 0) {
        batch.error = std::string(r.str());
        if (!r.ok())
            return malformed("answers");
        return batch;
    }
    // Counts are checked against the payload's size before anything is reserved or looped over.
    const uint32_t newStrings = r.u32();
    if (!r.ok() || newStrings > payload.size())
        return malformed("answers");
    for (uint32_t i = 0; i < newStrings && r.ok(); ++i)
        received.strings.push_back(out.intern(r.str()));
    const uint32_t newFunctions = r.u32();
    if (!r.ok() || newFunctions > payload.size())
        return malformed("answers");
    const std::vector<model::StringId>& strings = received.strings;
    for (uint32_t i = 0; i < newFunctions && r.ok(); ++i) {
        const uint32_t name = r.u32(), systemName = r.u32(), file = r.u32(), startLine = r.u32();
        if (name >= strings.size() || systemName >= strings.size() || file >= strings.size())
            return malformed("answers");
        received.functions.push_back(
            out.addFunction(SymbolizedFunction { strings[name], strings[systemName], strings[file], startLine }));
    }
    if (r.u32() != expected || !r.ok())
        return malformed("answers");
    for (size_t i = 0; i < expected; ++i) {
        const uint32_t frames = r.u32();
        if (!r.ok() || frames == 0)
            return malformed("answers");
        for (uint32_t k = 0; k < frames; ++k) {
            const uint32_t function = r.u32(), line = r.u32(), column = r.u32();
            if (!r.ok() || function >= received.functions.size())
                return malformed("answers");
            out.addFrame(received.functions[function], line, column);
        }
        out.endAddress();
    }
    batch.warningCount = r.u64();
    const uint32_t warnings = r.u32();
    if (!r.ok() || warnings > payload.size())
        return malformed("answers");
    for (uint32_t i = 0; i < warnings && r.ok(); ++i)
        batch.warnings.emplace_back(r.str());
    if (!r.ok() || !r.atEnd())
        return malformed("answers");
    batch.ok = true;
    return batch;
}

} // namespace symflame::symbolize::protocol
