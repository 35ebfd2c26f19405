#include "symbolize/object/gopclntab.h"

#include "model/core/frameformat.h"
#include "symbolize/object/gobuildinfo.h"

#include <algorithm>
#include <array>
#include <cstring>

namespace symflame::symbolize {

using model::ErrorCode;
using model::makeError;
using model::Result;
using model::Status;

namespace {

constexpr uint32_t kMagic12 = 0xfffffffb, kMagic116 = 0xfffffffa, kMagic118 = 0xfffffff0, kMagic120 = 0xfffffff1;
constexpr uint32_t kNoOffset = 0xffffffffu;
// Inline chains deeper than this are taken as a cycle in a corrupt tree.
constexpr int kMaxInlineDepth = 1000;
// Word indices in moduledata (runtime/symtab.go): text, and gofunc (1.18–1.19 / 1.20+, which
// added covctrs and ecovctrs before it).
constexpr size_t kModuledataText = 22, kModuledataGoFunc118 = 38, kModuledataGoFunc120 = 40;

uint32_t load32(const uint8_t* p, bool little)
{
    if (little)
        return uint32_t(p[0]) | (uint32_t(p[1]) << 8) | (uint32_t(p[2]) << 16) | (uint32_t(p[3]) << 24);
    return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | uint32_t(p[3]);
}

uint64_t loadWord(const uint8_t* p, bool little, unsigned ptrSize)
{
    if (ptrSize == 4)
        return load32(p, little);
    const uint64_t a = load32(p, little), b = load32(p + 4, little);
    return little ? (a | (b << 32)) : ((a << 32) | b);
}

// The layout a magic value names, if any.
std::optional<GoPclntabVersion> versionOfMagic(uint32_t magic)
{
    switch (magic) {
    case kMagic12:
        return GoPclntabVersion::Go12;
    case kMagic116:
        return GoPclntabVersion::Go116;
    case kMagic118:
        return GoPclntabVersion::Go118;
    case kMagic120:
        return GoPclntabVersion::Go120;
    }
    return std::nullopt;
}

// The fixed bytes of a header: a known magic, two zero bytes, a PC quantum of 1, 2 or 4, a
// pointer size of 4 or 8.
bool plausibleHeader(const uint8_t* p)
{
    if (p[4] != 0 || p[5] != 0 || (p[6] != 1 && p[6] != 2 && p[6] != 4) || (p[7] != 4 && p[7] != 8))
        return false;
    return versionOfMagic(load32(p, true)) || versionOfMagic(load32(p, false));
}

} // namespace

const char* goPclntabVersionName(GoPclntabVersion v)
{
    switch (v) {
    case GoPclntabVersion::Go12:
        return "1.2";
    case GoPclntabVersion::Go116:
        return "1.16";
    case GoPclntabVersion::Go118:
        return "1.18";
    case GoPclntabVersion::Go120:
        return "1.20";
    }
    return "?";
}

int goMinorVersionOf(std::string_view version)
{
    if (!version.starts_with("go1."))
        return 0;
    int minor = 0;
    for (size_t i = 4; i < version.size() && version[i] >= '0' && version[i] <= '9' && minor < 10000; ++i)
        minor = minor * 10 + (version[i] - '0');
    return minor;
}

const char* goPclntabOriginName(GoPclntabOrigin o)
{
    switch (o) {
    case GoPclntabOrigin::Section:
        return "section";
    case GoPclntabOrigin::Symbol:
        return "runtime.pclntab symbol";
    case GoPclntabOrigin::MagicScan:
        return "magic scan";
    }
    return "?";
}

uint64_t GoPclntab::word(size_t offset) const
{
    return loadWord(m_data.data() + offset, m_little, m_ptrSize);
}

uint32_t GoPclntab::u32(size_t offset) const
{
    return load32(m_data.data() + offset, m_little);
}

Result<GoPclntab> GoPclntab::parse(GoPclntabInput input)
{
    GoPclntab t;
    t.m_data = input.table;
    t.m_input = std::move(input);
    if (Status st = t.checkHeader(); !st)
        return st.error();
    return t;
}

std::optional<uint8_t> GoPclntab::wrapperFuncId() const
{
    if (m_wrapperFuncId)
        return *m_wrapperFuncId;
    std::array<uint32_t, 256> count {};
    for (size_t i = 0; i < m_nfunc; ++i)
        if (auto f = readFunc(i))
            ++count[f->funcId];
    size_t best = 1;
    for (size_t id = 2; id < count.size(); ++id)
        if (count[id] > count[best])
            best = id;
    m_wrapperFuncId = count[best] >= 2 ? std::optional<uint8_t>(uint8_t(best)) : std::nullopt;
    return *m_wrapperFuncId;
}

Status GoPclntab::checkHeader()
{
    const size_t size = m_data.size();
    if (size < 16)
        return makeError(ErrorCode::Truncated, "gopclntab of " + std::to_string(size) + " bytes is shorter than its header");
    const uint8_t* p = m_data.data();
    std::optional<GoPclntabVersion> v = versionOfMagic(load32(p, true));
    m_little = v.has_value();
    if (!v)
        v = versionOfMagic(load32(p, false));
    if (!v)
        return makeError(ErrorCode::InvalidInput, "gopclntab has no known magic (" + model::hexNumber(load32(p, true)) + ")");
    m_version = *v;
    if (p[4] != 0 || p[5] != 0)
        return makeError(ErrorCode::InvalidInput, "gopclntab header bytes 4-5 are not zero");
    m_quantum = p[6];
    m_ptrSize = p[7];
    if (m_quantum != 1 && m_quantum != 2 && m_quantum != 4)
        return makeError(ErrorCode::InvalidInput, "gopclntab has an invalid pc quantum " + std::to_string(m_quantum));
    if (m_ptrSize != 4 && m_ptrSize != 8)
        return makeError(ErrorCode::InvalidInput, "gopclntab has an invalid pointer size " + std::to_string(m_ptrSize));

    const size_t headerWords = m_version == GoPclntabVersion::Go12 ? 1 : m_version == GoPclntabVersion::Go116 ? 7 : 8;
    if (!has(8, headerWords * m_ptrSize))
        return makeError(ErrorCode::Truncated, "gopclntab is truncated in its header");
    const auto headerWord = [&](size_t i) { return word(8 + i * m_ptrSize); };
    m_nfunc = headerWord(0);
    // Every function has a functab entry of at least 8 bytes: a larger count can't fit.
    if (m_nfunc > size / 8)
        return makeError(ErrorCode::Truncated,
            "gopclntab claims " + std::to_string(m_nfunc) + " functions, more than its " + std::to_string(size)
                + " bytes can hold");
    const auto offsetField = [&](size_t i, const char* what, size_t* out) -> Status {
        const uint64_t off = headerWord(i);
        if (off > size)
            return makeError(ErrorCode::Truncated,
                std::string("gopclntab ") + what + " offset " + model::hexNumber(off) + " is past the end of the table ("
                    + std::to_string(size) + " bytes)");
        *out = static_cast<size_t>(off);
        return Status::success();
    };

    switch (m_version) {
    case GoPclntabVersion::Go12: {
        m_functab = 8 + m_ptrSize;
        m_functabEntry = 2 * m_ptrSize;
        const size_t functabSize = (2 * m_nfunc + 1) * m_ptrSize;
        if (!has(m_functab, functabSize + 4))
            return makeError(ErrorCode::Truncated, "gopclntab function table runs past the end of the table");
        const uint32_t fileoff = u32(m_functab + functabSize);
        if (!has(fileoff, 4))
            return makeError(ErrorCode::Truncated, "gopclntab file table offset " + model::hexNumber(fileoff) + " is out of range");
        m_fileBase = fileoff;
        m_fileCount = u32(fileoff);
        if (!has(fileoff, uint64_t(m_fileCount) * 4))
            return makeError(ErrorCode::Truncated,
                "gopclntab file table (" + std::to_string(m_fileCount) + " entries) runs past the end of the table");
        m_funcnameBase = m_pcBase = m_funcBase = 0;
        break;
    }
    case GoPclntabVersion::Go116:
    case GoPclntabVersion::Go118:
    case GoPclntabVersion::Go120: {
        const bool go118 = m_version != GoPclntabVersion::Go116;
        const size_t first = go118 ? 3 : 2; // funcnameOffset follows nfunc, nfiles (and textStart)
        if (go118)
            m_textStart = m_input.textStart ? m_input.textStart : headerWord(2);
        size_t pcln = 0;
        for (Status st : { offsetField(first, "function name table", &m_funcnameBase),
                 offsetField(first + 1, "compilation unit table", &m_cuBase),
                 offsetField(first + 2, "file table", &m_fileBase), offsetField(first + 3, "pc table", &m_pcBase),
                 offsetField(first + 4, "function table", &pcln) })
            if (!st)
                return st;
        m_funcBase = m_functab = pcln;
        m_functabEntry = go118 ? 8 : 2 * m_ptrSize;
        const size_t functabSize = go118 ? (2 * m_nfunc + 1) * 4 : (2 * m_nfunc + 1) * m_ptrSize;
        if (!has(m_functab, functabSize))
            return makeError(ErrorCode::Truncated, "gopclntab function table runs past the end of the table");
        break;
    }
    }
    if (m_version == GoPclntabVersion::Go12) {
        const int minor = m_input.goMinorVersion;
        m_readInlineTrees = minor == 0 || minor >= 12;
        // Go 1.13 moved the register map to pcdata 0 and added the register pointer maps and
        // stack objects before the inline tree: 1.13-1.15 keep it at pcdata 2, funcdata 4; 1.9-1.12
        // at pcdata 1, funcdata 2.
        m_pcdataInlTree = minor >= 13 ? 2 : 1;
        m_funcdataInlTree = minor >= 13 ? 4 : 2;
    }
    // Entries must ascend, so that a binary search finds the function of a PC.
    for (size_t i = 0; i < m_nfunc; ++i)
        if (entryPc(i + 1) < entryPc(i))
            return makeError(ErrorCode::InvalidInput,
                "gopclntab function table is not sorted at entry " + std::to_string(i + 1) + " ("
                    + model::hexNumber(entryPc(i + 1)) + " after " + model::hexNumber(entryPc(i)) + ")");
    return Status::success();
}

uint64_t GoPclntab::entryPc(size_t i) const
{
    if (m_version >= GoPclntabVersion::Go118)
        return m_textStart + u32(m_functab + i * 8);
    return word(m_functab + i * m_functabEntry);
}

size_t GoPclntab::funcOffset(size_t i) const
{
    if (m_version >= GoPclntabVersion::Go118)
        return u32(m_functab + i * 8 + 4);
    return static_cast<size_t>(word(m_functab + i * m_functabEntry + m_ptrSize));
}

uint64_t GoPclntab::minPc() const
{
    return m_nfunc ? entryPc(0) : 0;
}

uint64_t GoPclntab::maxPc() const
{
    return m_nfunc ? entryPc(m_nfunc) : 0;
}

bool GoPclntab::hasInlineTrees() const
{
    return m_version >= GoPclntabVersion::Go118 ? !m_input.goFunc.empty() : bool(m_input.bytesAt);
}

std::optional<size_t> GoPclntab::findFunction(uint64_t pc) const
{
    if (m_nfunc == 0 || pc < entryPc(0) || pc >= entryPc(m_nfunc))
        return std::nullopt;
    size_t lo = 0, hi = m_nfunc; // entryPc(lo) <= pc < entryPc(hi)
    while (hi - lo > 1) {
        const size_t mid = lo + (hi - lo) / 2;
        if (entryPc(mid) <= pc)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

Result<GoPclntab::FuncRecord> GoPclntab::readFunc(size_t i) const
{
    const size_t rel = funcOffset(i);
    const size_t off = m_funcBase + rel;
    const bool go118 = m_version >= GoPclntabVersion::Go118;
    const size_t sz0 = go118 ? 4 : m_ptrSize;
    const size_t fields = m_version == GoPclntabVersion::Go12 ? 7 : m_version == GoPclntabVersion::Go120 ? 9 : 8;
    const size_t fixed = sz0 + fields * 4 + 4;
    if (rel > m_data.size() || !has(off, fixed))
        return makeError(ErrorCode::Truncated,
            "gopclntab record of function " + std::to_string(i) + " (offset " + model::hexNumber(rel) + ") is out of range");
    FuncRecord f;
    f.offset = off;
    f.entry = go118 ? m_textStart + u32(off) : word(off);
    if (f.entry != entryPc(i))
        return makeError(ErrorCode::InvalidInput,
            "gopclntab record of function " + std::to_string(i) + " has entry " + model::hexNumber(f.entry)
                + ", the function table says " + model::hexNumber(entryPc(i)));
    const auto field = [&](size_t n) { return u32(off + sz0 + (n - 1) * 4); };
    f.nameOff = field(1);
    f.pcfile = field(5);
    f.pcln = field(6);
    f.npcdata = field(7);
    if (m_version != GoPclntabVersion::Go12)
        f.cuOffset = field(8);
    if (m_version == GoPclntabVersion::Go120)
        f.startLine = field(9);
    const size_t bytesAt = off + sz0 + fields * 4;
    f.funcId = m_data[bytesAt];
    f.nfuncdata = m_data[bytesAt + 3];
    f.pcdataOffset = bytesAt + 4;
    if (!has(f.pcdataOffset, uint64_t(f.npcdata) * 4))
        return makeError(ErrorCode::Truncated,
            "gopclntab record of function " + std::to_string(i) + " has " + std::to_string(f.npcdata)
                + " pcdata entries past the end of the table");
    return f;
}

Result<std::string_view> GoPclntab::cString(size_t base, uint64_t offset, const char* what) const
{
    if (offset >= m_data.size() - base)
        return makeError(ErrorCode::Truncated,
            std::string("gopclntab ") + what + " offset " + model::hexNumber(offset) + " is past the end of the table");
    const uint8_t* start = m_data.data() + base + offset;
    const void* nul = std::memchr(start, 0, m_data.size() - base - offset);
    if (!nul)
        return makeError(ErrorCode::Truncated, std::string("gopclntab ") + what + " at " + model::hexNumber(offset) + " is not terminated");
    return std::string_view(reinterpret_cast<const char*>(start), static_cast<const uint8_t*>(nul) - start);
}

Result<std::string_view> GoPclntab::functionName(uint32_t nameOff) const
{
    return cString(m_funcnameBase, nameOff, "function name");
}

Result<std::string_view> GoPclntab::fileName(const FuncRecord& f, int32_t fileIndex) const
{
    if (fileIndex < 0)
        return std::string_view();
    if (m_version == GoPclntabVersion::Go12) {
        if (fileIndex == 0 || uint32_t(fileIndex) >= m_fileCount)
            return makeError(ErrorCode::InvalidInput,
                "gopclntab file index " + std::to_string(fileIndex) + " is outside the file table ("
                    + std::to_string(m_fileCount) + " entries)");
        return cString(0, u32(m_fileBase + 4 * size_t(fileIndex)), "file name");
    }
    const uint64_t cuEntry = m_cuBase + (uint64_t(f.cuOffset) + uint64_t(fileIndex)) * 4;
    if (!has(cuEntry, 4))
        return makeError(ErrorCode::Truncated,
            "gopclntab compilation unit entry " + std::to_string(f.cuOffset) + "+" + std::to_string(fileIndex)
                + " is past the end of the table");
    const uint32_t nameOff = u32(cuEntry);
    if (nameOff == kNoOffset)
        return std::string_view();
    return cString(m_fileBase, nameOff, "file name");
}

Result<int32_t> GoPclntab::pcValue(uint32_t tableOffset, uint64_t entry, uint64_t pc) const
{
    if (tableOffset == 0)
        return -1; // no table
    if (tableOffset >= m_data.size() - m_pcBase)
        return makeError(ErrorCode::Truncated, "gopclntab pc-value table offset " + model::hexNumber(tableOffset) + " is out of range");
    PcTableCursor* c = nullptr;
    for (PcTableCursor& k : m_cursors)
        if (k.used && k.tableOffset == tableOffset && k.entry == entry)
            c = &k;
    if (!c) {
        c = &m_cursors[m_nextCursor++ % m_cursors.size()];
        c->tableOffset = tableOffset;
        c->entry = entry;
        c->used = true;
        c->state = PcTableCursor::State::Open;
        c->first = true;
        c->pos = m_pcBase + tableOffset;
        c->value = 0xffffffffu; // -1, in the wrapping arithmetic Go uses
        c->pc = entry;
        c->ends.clear();
        c->values.clear();
    }
    // A uvarint of at most 5 bytes (the values are 32-bit).
    const auto readVarint = [&](uint32_t* out) -> bool {
        uint32_t v = 0;
        for (int shift = 0; shift < 35; shift += 7) {
            if (c->pos >= m_data.size())
                return false;
            const uint8_t b = m_data[c->pos++];
            v |= uint32_t(b & 0x7f) << shift;
            if (!(b & 0x80)) {
                *out = v;
                return true;
            }
        }
        return false;
    };
    // Decode on until a run covers pc: pairs of (zigzag value delta, pc delta in quanta); a zero
    // value delta after the first pair ends the table.
    while (c->state == PcTableCursor::State::Open && (c->ends.empty() || pc >= c->pc)) {
        uint32_t uv = 0, pcDelta = 0;
        if (!readVarint(&uv)) {
            c->state = PcTableCursor::State::Broken;
            break;
        }
        if (uv == 0 && !c->first) {
            c->state = PcTableCursor::State::Ended;
            break;
        }
        c->first = false;
        c->value += (uv & 1) ? ~(uv >> 1) : (uv >> 1);
        if (!readVarint(&pcDelta)) {
            c->state = PcTableCursor::State::Broken;
            break;
        }
        c->pc += uint64_t(pcDelta) * m_quantum;
        c->ends.push_back(c->pc);
        c->values.push_back(static_cast<int32_t>(c->value));
    }
    if (!c->ends.empty() && pc < c->pc)
        return c->values[size_t(std::upper_bound(c->ends.begin(), c->ends.end(), pc) - c->ends.begin())];
    if (c->state == PcTableCursor::State::Ended)
        return -1; // the table ended before pc
    return makeError(ErrorCode::Truncated,
        "gopclntab pc-value table at " + model::hexNumber(tableOffset) + " runs past the end of the table");
}

Result<std::span<const uint8_t>> GoPclntab::inlineTree(const FuncRecord& f) const
{
    if (!m_readInlineTrees || f.npcdata <= m_pcdataInlTree || f.nfuncdata <= m_funcdataInlTree)
        return std::span<const uint8_t>();
    const size_t funcdata = f.pcdataOffset + size_t(f.npcdata) * 4;
    if (m_version >= GoPclntabVersion::Go118) {
        if (m_input.goFunc.empty())
            return std::span<const uint8_t>();
        if (!has(funcdata, (m_funcdataInlTree + 1) * 4))
            return makeError(ErrorCode::Truncated, "gopclntab funcdata of a function runs past the end of the table");
        const uint32_t off = u32(funcdata + m_funcdataInlTree * 4);
        if (off == kNoOffset)
            return std::span<const uint8_t>();
        if (off >= m_input.goFunc.size())
            return makeError(
                ErrorCode::Truncated, "gopclntab inline tree offset " + model::hexNumber(off) + " is past the end of gofunc");
        return m_input.goFunc.subspan(off);
    }
    if (!m_input.bytesAt)
        return std::span<const uint8_t>();
    // Pointer-sized funcdata, aligned to the pointer size.
    const size_t aligned = m_ptrSize == 8 ? (funcdata + 7) & ~size_t(7) : funcdata;
    if (!has(aligned, (m_funcdataInlTree + 1) * m_ptrSize))
        return makeError(ErrorCode::Truncated, "gopclntab funcdata of a function runs past the end of the table");
    const uint64_t address = word(aligned + m_funcdataInlTree * m_ptrSize);
    if (address == 0)
        return std::span<const uint8_t>();
    const auto bytes = m_input.bytesAt(address);
    if (bytes.empty())
        return makeError(ErrorCode::InvalidInput, "gopclntab inline tree at " + model::hexNumber(address) + " is not in the file");
    return bytes;
}

Result<GoFrame> GoPclntab::frameAt(const FuncRecord& f, uint64_t pc, std::string_view name, uint32_t startLine) const
{
    auto fileIndex = pcValue(f.pcfile, f.entry, pc);
    if (!fileIndex)
        return fileIndex.error();
    auto line = pcValue(f.pcln, f.entry, pc);
    if (!line)
        return line.error();
    auto file = fileName(f, *fileIndex);
    if (!file)
        return file.error();
    return GoFrame { name, *file, *line > 0 ? uint32_t(*line) : 0u, startLine, 0 };
}

Status GoPclntab::lookup(uint64_t pc, std::vector<GoFrame>& out) const
{
    const std::optional<size_t> index = findFunction(pc);
    if (!index)
        return Status::success();
    auto f = readFunc(*index);
    if (!f)
        return f.error();
    auto name = functionName(f->nameOff);
    if (!name)
        return name.error();
    auto tree = inlineTree(*f);
    if (!tree)
        return tree.error();
    uint64_t cur = pc;
    if (!tree->empty()) {
        const size_t recordSize = m_version == GoPclntabVersion::Go120 ? 16 : 20;
        const size_t nameAt = m_version == GoPclntabVersion::Go120 ? 4 : 12;
        const size_t parentPcAt = m_version == GoPclntabVersion::Go120 ? 8 : 16;
        auto index = pcValue(u32(f->pcdataOffset + m_pcdataInlTree * 4), f->entry, cur);
        for (int depth = 0; index && *index >= 0; ++depth) {
            if (depth == kMaxInlineDepth)
                return makeError(ErrorCode::InvalidInput,
                    "gopclntab inline tree of " + std::string(*name) + " is deeper than "
                        + std::to_string(kMaxInlineDepth) + " frames (a cycle?)");
            const uint64_t at = uint64_t(*index) * recordSize;
            if (at > tree->size() || tree->size() - at < recordSize)
                return makeError(ErrorCode::Truncated,
                    "gopclntab inline tree entry " + std::to_string(*index) + " of " + std::string(*name)
                        + " is past the end of its data");
            const uint8_t* rec = tree->data() + at;
            auto calleeName = functionName(load32(rec + nameAt, m_little));
            if (!calleeName)
                return calleeName.error();
            const uint32_t calleeStart = m_version == GoPclntabVersion::Go120 ? load32(rec + 12, m_little) : 0;
            auto frame = frameAt(*f, cur, *calleeName, calleeStart);
            if (!frame)
                return frame.error();
            frame->funcId = rec[m_version == GoPclntabVersion::Go120 ? 0 : 2];
            out.push_back(*frame);
            cur = f->entry + load32(rec + parentPcAt, m_little);
            index = pcValue(u32(f->pcdataOffset + m_pcdataInlTree * 4), f->entry, cur);
        }
        if (!index)
            return index.error();
    }
    auto frame = frameAt(*f, cur, *name, f->startLine);
    if (!frame)
        return frame.error();
    frame->funcId = f->funcId;
    out.push_back(*frame);
    return Status::success();
}

Result<GoFunction> GoPclntab::function(size_t i) const
{
    if (i >= m_nfunc)
        return makeError(ErrorCode::NotFound, "gopclntab has no function " + std::to_string(i));
    auto f = readFunc(i);
    if (!f)
        return f.error();
    auto name = functionName(f->nameOff);
    if (!name)
        return name.error();
    return GoFunction { f->entry, entryPc(i + 1), *name, f->startLine, f->funcId };
}

// --- finding the table in an ELF file

namespace {

// Values of the named symbols in .symtab (nullopt for those not there).
std::vector<std::optional<uint64_t>> findSymbols(const ElfFile& elf, std::span<const std::string_view> names)
{
    std::vector<std::optional<uint64_t>> found(names.size());
    const size_t entSize = elf.is64() ? 24 : 16;
    for (const ElfSection& s : elf.sections()) {
        if (s.type != elf::SHT_SYMTAB || !s.hasData() || s.link >= elf.sections().size())
            continue;
        const auto syms = elf.sectionData(s);
        const auto strs = elf.sectionData(elf.sections()[s.link]);
        for (size_t off = entSize; off + entSize <= syms.size(); off += entSize) {
            const uint8_t* p = syms.data() + off;
            const uint32_t nameOff = elf.read32(p);
            if (nameOff >= strs.size())
                continue;
            const char* n = reinterpret_cast<const char*>(strs.data() + nameOff);
            const size_t len = strnlen(n, strs.size() - nameOff);
            const std::string_view name(n, len);
            for (size_t k = 0; k < names.size(); ++k)
                if (!found[k] && name == names[k])
                    found[k] = elf.is64() ? elf.read64(p + 8) : elf.read32(p + 4);
        }
    }
    return found;
}

// Where moduledata's first words are: a pointer to the table, then the function name table's
// slice. Searched in writable loaded data.
std::optional<uint64_t> findModuledata(const ElfFile& elf, const GoPclntab& table, uint64_t tableAddress,
    uint64_t funcnameOffset, std::span<const uint8_t>* at)
{
    const unsigned ptr = table.pointerSize();
    const bool little = table.isLittleEndian();
    const auto scan = [&](std::span<const uint8_t> data, uint64_t vaddr) -> std::optional<uint64_t> {
        const uint64_t misalign = vaddr % ptr;
        for (size_t off = misalign ? ptr - misalign : 0; off + 2 * ptr <= data.size(); off += ptr) {
            if (loadWord(data.data() + off, little, ptr) == tableAddress
                && loadWord(data.data() + off + ptr, little, ptr) == tableAddress + funcnameOffset) {
                *at = data.subspan(off);
                return vaddr + off;
            }
        }
        return std::nullopt;
    };
    for (const char* name : { ".noptrdata", ".data" })
        if (const ElfSection* s = elf.findSection(name); s && s->hasData())
            if (auto found = scan(elf.sectionData(*s), s->addr))
                return found;
    for (const ElfSegment& s : elf.segments())
        if (s.type == elf::PT_LOAD && (s.flags & elf::PF_W))
            if (auto found = scan(elf.segmentData(s), s.vaddr))
                return found;
    return std::nullopt;
}

} // namespace

bool looksLikeGoBinary(const ElfFile& elf)
{
    return elf.contents().gopclntab || !elf.goBuildId().empty() || elf.findSection(".go.buildinfo") != nullptr;
}

Result<LocatedGoPclntab> locateGoPclntab(const ElfFile& elf)
{
    LocatedGoPclntab located;
    GoPclntabInput& in = located.input;
    static constexpr std::string_view kSymbols[] = { "runtime.pclntab", "runtime.text", "go:func.*", "go.func.*" };
    const auto symbols = findSymbols(elf, kSymbols);

    if (const ElfSection* s = elf.findSection(".gopclntab"); s && s->hasData()) {
        in.table = elf.sectionData(*s);
        in.tableAddress = s->addr;
    } else if (const ElfSection* s = elf.findSection(".data.rel.ro.gopclntab"); s && s->hasData()) {
        in.table = elf.sectionData(*s);
        in.tableAddress = s->addr;
    } else if (symbols[0]) {
        in.table = elfBytesAt(elf, *symbols[0]);
        in.tableAddress = *symbols[0];
        located.origin = GoPclntabOrigin::Symbol;
    }
    if (in.table.empty()) {
        // No section, no symbol: look for a header in the loaded data.
        located.origin = GoPclntabOrigin::MagicScan;
        const auto scan = [&](std::span<const uint8_t> data, uint64_t vaddr) {
            for (size_t off = 0; off + 16 <= data.size(); off += 4) {
                if (!plausibleHeader(data.data() + off))
                    continue;
                GoPclntabInput probe;
                probe.table = data.subspan(off);
                auto t = GoPclntab::parse(probe);
                if (t && t->functionCount() > 0 && t->function(0)) {
                    in.table = probe.table;
                    in.tableAddress = vaddr + off;
                    return true;
                }
            }
            return false;
        };
        bool found = false;
        for (const ElfSegment& s : elf.segments())
            if (s.type == elf::PT_LOAD && (found = scan(elf.segmentData(s), s.vaddr)))
                break;
        if (!found && elf.segments().empty())
            found = scan(elf.bytes(), 0);
        if (!found)
            return makeError(ErrorCode::NotFound, "no gopclntab found (no section, no symbol, no valid header)");
    }

    if (auto info = readGoBuildInfo(elf))
        in.goMinorVersion = goMinorVersionOf(info->goVersion);
    auto table = GoPclntab::parse(in);
    if (!table)
        return table.error();
    const GoPclntabVersion version = table->version();
    const unsigned ptr = table->pointerSize();
    if (version >= GoPclntabVersion::Go118) {
        const uint64_t funcnameOffset = loadWord(in.table.data() + 8 + 3 * ptr, table->isLittleEndian(), ptr);
        std::span<const uint8_t> md;
        const size_t goFuncWord = version == GoPclntabVersion::Go120 ? kModuledataGoFunc120 : kModuledataGoFunc118;
        std::optional<uint64_t> goFunc = symbols[2] ? symbols[2] : symbols[3];
        std::optional<uint64_t> text = symbols[1];
        if (findModuledata(elf, *table, in.tableAddress, funcnameOffset, &md) && md.size() >= (goFuncWord + 1) * ptr) {
            if (!goFunc)
                goFunc = loadWord(md.data() + goFuncWord * ptr, table->isLittleEndian(), ptr);
            if (!text)
                text = loadWord(md.data() + kModuledataText * ptr, table->isLittleEndian(), ptr);
            located.moduledataFound = true;
        }
        if (goFunc) {
            in.goFunc = elfBytesAt(elf, *goFunc);
            located.moduledataFound = located.moduledataFound || !in.goFunc.empty();
        }
        if (text)
            in.textStart = *text;
    } else {
        in.bytesAt = [&elf](uint64_t address) { return elfBytesAt(elf, address); };
    }
    return located;
}

} // namespace symflame::symbolize
