#include "symbolize/dwarfsymbolizer.h"

#include "symbolize/demangle.h"

#include <llvm/DebugInfo/DIContext.h>
#include <llvm/DebugInfo/DWARF/DWARFCompileUnit.h>
#include <llvm/DebugInfo/DWARF/DWARFContext.h>
#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>

#include <cstdio>
#include <cstring>

namespace symflame::symbolize {

using model::ErrorCode;
using model::makeError;
using model::Result;
using model::Status;
using model::StringId;

uint32_t SymbolizedAddresses::addFunction(const SymbolizedFunction& f)
{
    auto [it, inserted] = m_functionIndex.try_emplace(f, static_cast<uint32_t>(m_functions.size()));
    if (inserted)
        m_functions.push_back(f);
    return it->second;
}

namespace {

struct TextSection {
    uint64_t begin, end;
    uint64_t index;
};

} // namespace

struct DwarfSymbolizer::Impl {
    Options options;
    ModuleFiles files;
    std::unique_ptr<llvm::object::ObjectFile> object;
    std::unique_ptr<llvm::DWARFContext> context;
    SymbolTable symbols;
    std::vector<TextSection> textSections;

    size_t warningCount = 0;
    std::vector<std::string> warnings;

    // Units whose DIE tree was checked (true = usable). LLVM 19 trusts the sibling and parent
    // indices it built from a unit even when the unit is malformed, and crashes walking them.
    std::unordered_map<const llvm::DWARFUnit*, bool> unitChecked;

    // Per-output caches: raw name id -> demangled name id, in the output's string table.
    const SymbolizedAddresses* cacheOwner = nullptr;
    std::vector<uint32_t> demangled; // indexed by raw StringId; 0 = not computed yet

    void warn(llvm::Error e)
    {
        llvm::handleAllErrors(std::move(e), [this](const llvm::ErrorInfoBase& info) {
            ++warningCount;
            if (warnings.size() < options.maxWarnings) {
                std::string m = info.message();
                if (const auto nl = m.find('\n'); nl != std::string::npos)
                    m.resize(nl);
                warnings.push_back(std::move(m));
            }
        });
    }

    static bool treeIsConsistent(llvm::DWARFUnit& u)
    {
        const uint32_t n = u.getNumDIEs();
        if (n == 0)
            return false; // no unit DIE: LLVM would walk an invalid DIE
        for (uint32_t i = 0; i < n; ++i) {
            const llvm::DWARFDebugInfoEntry* e = u.getDIEAtIndex(i).getDebugInfoEntry();
            if (!e)
                return false;
            if (auto s = e->getSiblingIdx(); s && (*s <= i || *s >= n))
                return false;
            if (auto p = e->getParentIdx(); p && *p >= i)
                return false;
            if (i > 0 && !e->getParentIdx())
                return false;
        }
        return true;
    }

    /// False when the unit covering address is malformed (checked once per unit).
    bool unitUsable(uint64_t address)
    {
        llvm::DWARFCompileUnit* cu = context->getCompileUnitForCodeAddress(address);
        if (!cu)
            return true; // nothing to walk
        auto [it, inserted] = unitChecked.try_emplace(cu, true);
        if (!inserted)
            return it->second;
        bool ok = treeIsConsistent(*cu);
        if (ok) {
            // The unit that holds the DIEs: the split (.dwo) unit when there is one.
            const llvm::DWARFDie top = cu->getNonSkeletonUnitDIE(false);
            llvm::DWARFUnit* full = top.isValid() ? top.getDwarfUnit() : nullptr;
            ok = full && (full == cu || treeIsConsistent(*full));
        }
        if (!ok) {
            ++warningCount;
            if (warnings.size() < options.maxWarnings) {
                char buf[32];
                std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(cu->getOffset()));
                warnings.push_back(std::string("malformed DWARF unit at offset 0x") + buf
                    + ": its DIE tree is inconsistent; using the symbol table for its addresses");
            }
        }
        it->second = ok;
        return ok;
    }

    uint64_t sectionIndexFor(uint64_t address) const
    {
        for (const TextSection& s : textSections)
            if (address >= s.begin && address < s.end)
                return s.index;
        return llvm::object::SectionedAddress::UndefSection;
    }

    StringId demangledName(SymbolizedAddresses& out, StringId raw)
    {
        if (raw.empty() || !options.demangle)
            return raw;
        if (cacheOwner != &out) {
            cacheOwner = &out;
            demangled.clear();
        }
        if (raw.index() >= demangled.size())
            demangled.resize(raw.index() + 1, 0);
        if (demangled[raw.index()] == 0) {
            const std::string name = demangleSymbol(out.str(raw));
            demangled[raw.index()] = out.intern(name).value;
        }
        return StringId(demangled[raw.index()]);
    }
};

DwarfSymbolizer::DwarfSymbolizer()
    : d(std::make_unique<Impl>())
{
}
DwarfSymbolizer::~DwarfSymbolizer() = default;

Result<std::unique_ptr<DwarfSymbolizer>> DwarfSymbolizer::create(const ModuleFiles& files, Options options)
{
    std::unique_ptr<DwarfSymbolizer> s(new DwarfSymbolizer);
    Impl& d = *s->d;
    d.options = options;
    d.files = files;

    if (files.symbols) {
        auto t = SymbolTable::load(files.symbols, files.symbolKind);
        if (!t)
            return t.error();
        d.symbols = std::move(*t);
    }
    if (files.binary) {
        for (const ElfSection& sec : files.binary->sections())
            if ((sec.flags & elf::SHF_EXECINSTR) && sec.type != elf::SHT_NOBITS && sec.size > 0)
                d.textSections.push_back({ sec.addr, sec.addr + sec.size, sec.index });
    }
    if (files.dwarf) {
        const auto bytes = files.dwarf->bytes();
        llvm::MemoryBufferRef ref(
            llvm::StringRef(reinterpret_cast<const char*>(bytes.data()), bytes.size()), files.dwarf->path());
        auto obj = llvm::object::ObjectFile::createELFObjectFile(ref);
        if (!obj) {
            const std::string msg = llvm::toString(obj.takeError());
            return makeError(ErrorCode::InvalidInput, "llvm cannot read the object file: " + msg, files.dwarf->path());
        }
        d.object = std::move(*obj);
        Impl* impl = &d;
        auto handler = [impl](llvm::Error e) { impl->warn(std::move(e)); };
        d.context = llvm::DWARFContext::create(
            *d.object, llvm::DWARFContext::ProcessDebugRelocations::Process, nullptr, "", handler, handler, false);
    }
    return s;
}

bool DwarfSymbolizer::hasDwarf() const
{
    return d->context != nullptr;
}

size_t DwarfSymbolizer::symbolCount() const
{
    return d->symbols.size();
}

size_t DwarfSymbolizer::warningCount() const
{
    return d->warningCount;
}

const std::vector<std::string>& DwarfSymbolizer::warnings() const
{
    return d->warnings;
}

Status DwarfSymbolizer::symbolize(
    std::span<const uint64_t> addresses, SymbolizedAddresses& out, const std::atomic<bool>* cancel)
{
    using llvm::DILineInfo;
    const llvm::DILineInfoSpecifier spec(llvm::DILineInfoSpecifier::FileLineInfoKind::AbsoluteFilePath,
        llvm::DILineInfoSpecifier::FunctionNameKind::LinkageName);
    const auto clean = [](const std::string& s) -> std::string_view {
        return s == DILineInfo::BadString ? std::string_view() : std::string_view(s);
    };
    for (size_t i = 0; i < addresses.size(); ++i) {
        if (cancel && (i & 1023) == 0 && cancel->load(std::memory_order_relaxed))
            return makeError(ErrorCode::Cancelled, "symbolization cancelled");
        const uint64_t address = addresses[i];
        llvm::DIInliningInfo info;
        if (d->context && d->unitUsable(address))
            info = d->context->getInliningInfoForAddress({ address, d->sectionIndexFor(address) }, spec);
        if (info.getNumberOfFrames() == 0)
            info.addFrame(DILineInfo());
        // As llvm-symbolizer: the symbol table names the physical frame, and a local symbol's
        // STT_FILE gives the file when DWARF gave none.
        if (const SymbolTable::Symbol* sym = d->symbols.find(address)) {
            DILineInfo* last = info.getMutableFrame(static_cast<int>(info.getNumberOfFrames()) - 1);
            last->FunctionName = std::string(sym->name);
            if (last->FileName == DILineInfo::BadString) {
                const std::string_view file = d->symbols.fileOf(*sym);
                if (!file.empty())
                    last->FileName = std::string(file);
            }
        }
        for (uint32_t f = 0; f < info.getNumberOfFrames(); ++f) {
            const DILineInfo& li = info.getFrame(f);
            SymbolizedFunction fn;
            fn.systemName = out.intern(clean(li.FunctionName));
            fn.name = d->demangledName(out, fn.systemName);
            fn.file = out.intern(clean(li.FileName));
            fn.startLine = li.StartLine;
            out.addFrame(out.addFunction(fn), li.Line, li.Column);
        }
        out.endAddress();
    }
    return Status::success();
}

} // namespace symflame::symbolize
