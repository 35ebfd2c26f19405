#include "symbolize/engines/dwarfengine.h"
#include "symbolize/engines/linetableforms.h"

#include "symbolize/object/demangle.h"

#include <llvm/DebugInfo/DIContext.h>
#include <llvm/DebugInfo/DWARF/DWARFCompileUnit.h>
#include <llvm/DebugInfo/DWARF/DWARFContext.h>
#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string_view>

namespace symflame::symbolize {

using model::ErrorCode;
using model::makeError;
using model::Result;
using model::Status;
using model::StringId;

namespace {

struct TextSection {
    uint64_t begin, end;
    uint64_t index;
    bool plt = false; ///< .plt, .plt.got, .plt.sec, .iplt: the linker's stubs, no function of their own
};

/// The function name of a frame in a PLT stub (EngineOptions::namePltStubs).
constexpr std::string_view kPltFrameName = "[plt]";

// References and strings into the dwz supplementary file (GNU forms, and DWARF 5's).
bool isSupplementaryReference(llvm::dwarf::Form f)
{
    return f == llvm::dwarf::DW_FORM_GNU_ref_alt || f == llvm::dwarf::DW_FORM_ref_sup4
        || f == llvm::dwarf::DW_FORM_ref_sup8;
}
bool isSupplementaryString(llvm::dwarf::Form f)
{
    return f == llvm::dwarf::DW_FORM_GNU_strp_alt || f == llvm::dwarf::DW_FORM_strp_sup;
}

// The last symbol of t at or before address, or null.
const SymbolTable::Symbol* lastAtOrBefore(const SymbolTable& t, uint64_t address)
{
    const auto& v = t.symbols();
    auto it = std::upper_bound(
        v.begin(), v.end(), address, [](uint64_t a, const SymbolTable::Symbol& s) { return a < s.address; });
    return it == v.begin() ? nullptr : &*std::prev(it);
}

// The symbol covering address when tables a and b are read as one table (SymbolTable's rules:
// the closest symbol at or before the address, the larger one of two at the same address; size 0
// reaches the next symbol). *from is the table it came from.
const SymbolTable::Symbol* findInUnion(
    const SymbolTable& a, const SymbolTable& b, uint64_t address, const SymbolTable** from)
{
    const SymbolTable::Symbol* sa = lastAtOrBefore(a, address);
    const SymbolTable::Symbol* sb = lastAtOrBefore(b, address);
    const bool takeB = sb && (!sa || sb->address > sa->address || (sb->address == sa->address && sb->size > sa->size));
    const SymbolTable::Symbol* s = takeB ? sb : sa;
    *from = takeB ? &b : &a;
    if (!s || (s->size != 0 && address - s->address >= s->size))
        return nullptr;
    return s;
}

Result<std::unique_ptr<llvm::object::ObjectFile>> openObject(const ElfFile& file)
{
    const auto bytes = file.bytes();
    llvm::MemoryBufferRef ref(llvm::StringRef(reinterpret_cast<const char*>(bytes.data()), bytes.size()), file.path());
    auto obj = llvm::object::ObjectFile::createELFObjectFile(ref);
    if (!obj) {
        const std::string msg = llvm::toString(obj.takeError());
        return makeError(ErrorCode::InvalidInput, "llvm cannot read the object file: " + msg, file.path());
    }
    return std::move(*obj);
}

} // namespace

struct DwarfEngine::Impl {
    Options options;
    ModuleFiles files;
    std::unique_ptr<llvm::object::ObjectFile> object;
    std::unique_ptr<llvm::DWARFContext> context;
    SymbolTable symbols;
    SymbolTable dynamicSymbols; // consulted where symbols has no entry
    std::vector<TextSection> textSections;

    // The dwz supplementary file, when the DWARF has one.
    std::unique_ptr<llvm::object::ObjectFile> supplementaryObject;
    std::unique_ptr<llvm::DWARFContext> supplementary;
    std::unordered_map<const llvm::DWARFUnit*, bool> supplementaryUnitChecked;

    size_t warningCount = 0;
    std::vector<std::string> warnings;

    // Units whose DIE tree was checked (true = usable). LLVM 19 trusts the sibling and parent
    // indices it built from a unit even when the unit is malformed, and crashes walking them.
    std::unordered_map<const llvm::DWARFUnit*, bool> unitChecked;

    // Per-output caches: raw name id -> demangled name id, in the output's string table.
    uint64_t cacheOwner = 0; // serial() of the output the cached ids belong to
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

    /// False when the unit is malformed (checked once per unit).
    bool unitUsable(llvm::DWARFCompileUnit* cu)
    {
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
        std::string why = ok ? std::string() : std::string("its DIE tree is inconsistent");
        if (ok) {
            // LLVM's reader crashes on a line table header that declares a form it does not know.
            const auto stmtList = llvm::dwarf::toSectionOffset(cu->getUnitDIE().find(llvm::dwarf::DW_AT_stmt_list));
            const llvm::StringRef lines = cu->getLineSection().Data;
            if (stmtList)
                why = lineTableFormProblem(std::span(reinterpret_cast<const uint8_t*>(lines.data()), lines.size()),
                    *stmtList, context->isLittleEndian());
            ok = why.empty();
        }
        if (!ok) {
            ++warningCount;
            if (warnings.size() < options.maxWarnings) {
                char buf[32];
                std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(cu->getOffset()));
                warnings.push_back(std::string("malformed DWARF unit at offset 0x") + buf + ": " + why
                    + "; using the symbol table for its addresses");
            }
        }
        it->second = ok;
        return ok;
    }

    /// The DIE at offset in the supplementary file's .debug_info, invalid when there is none or
    /// its unit is malformed.
    llvm::DWARFDie supplementaryDie(uint64_t offset)
    {
        llvm::DWARFCompileUnit* u = supplementary ? supplementary->getCompileUnitForOffset(offset) : nullptr;
        if (!u)
            return {};
        auto [it, inserted] = supplementaryUnitChecked.try_emplace(u, true);
        if (inserted)
            it->second = treeIsConsistent(*u);
        return it->second ? u->getDIEForOffset(offset) : llvm::DWARFDie();
    }

    bool inSupplementary(const llvm::DWARFDie& die) const
    {
        return supplementary && &die.getDwarfUnit()->getContext() == supplementary.get();
    }

    /// The DIE attr of die refers to; alt references of the main file lead into the
    /// supplementary file.
    llvm::DWARFDie referencedDie(const llvm::DWARFDie& die, llvm::dwarf::Attribute attr)
    {
        const std::optional<llvm::DWARFFormValue> v = die.find(attr);
        if (!v)
            return {};
        if (isSupplementaryReference(v->getForm()))
            return inSupplementary(die) ? llvm::DWARFDie() : supplementaryDie(v->getRawUValue());
        return die.getAttributeValueAsReferencedDie(*v);
    }

    /// As DWARFDie::findRecursively: the first of attrs on die, else depth first through
    /// DW_AT_specification (searched first) and DW_AT_abstract_origin, each DIE visited once.
    std::optional<llvm::DWARFFormValue> findRecursively(
        const llvm::DWARFDie& start, llvm::ArrayRef<llvm::dwarf::Attribute> attrs)
    {
        std::vector<llvm::DWARFDie> work { start };
        std::vector<const llvm::DWARFDebugInfoEntry*> seen { start.getDebugInfoEntry() };
        while (!work.empty()) {
            const llvm::DWARFDie die = work.back();
            work.pop_back();
            if (!die.isValid())
                continue;
            if (auto v = die.find(attrs))
                return v;
            for (const llvm::dwarf::Attribute a :
                { llvm::dwarf::DW_AT_abstract_origin, llvm::dwarf::DW_AT_specification }) {
                const llvm::DWARFDie next = referencedDie(die, a);
                if (next.isValid() && std::find(seen.begin(), seen.end(), next.getDebugInfoEntry()) == seen.end()) {
                    seen.push_back(next.getDebugInfoEntry());
                    work.push_back(next);
                }
            }
        }
        return std::nullopt;
    }

    std::optional<std::string_view> stringOf(const llvm::DWARFFormValue& v)
    {
        if (isSupplementaryString(v.getForm())) {
            if (!supplementary)
                return std::nullopt;
            const llvm::StringRef str = supplementary->getDWARFObj().getStrSection();
            const uint64_t offset = v.getRawUValue();
            const size_t end = offset < str.size() ? str.find('\0', offset) : llvm::StringRef::npos;
            if (end == llvm::StringRef::npos)
                return std::nullopt;
            return std::string_view(str.data() + offset, end - offset);
        }
        llvm::Expected<const char*> s = v.getAsCString();
        if (!s) {
            llvm::consumeError(s.takeError());
            return std::nullopt;
        }
        return std::string_view(*s);
    }

    // --- The inline chain, walked here rather than through DWARFContext::getInliningInfoForAddress:
    // the same steps and the same answers (function names by linkage name, start lines, the
    // innermost frame's file and line from the line table, the callers' from the call_* attributes
    // of the frame inside them), without what that function computes and we never use (each
    // frame's declaration file, joined into a path, and low_pc), and with what repeats cached:
    // a DIE's names and lines are read once, a file index is turned into a path once per unit.

    /// What is read from one DIE of a chain, as ids in the output's string table.
    struct DieInfo {
        StringId systemName; ///< linkage name, else name ("" for none)
        StringId name; ///< systemName demangled
        uint32_t startLine = 0; ///< DW_AT_decl_line, through specification/abstract_origin
        bool callerRead = false;
        uint32_t callFile = 0, callLine = 0, callColumn = 0;
    };
    struct DieKey {
        const llvm::DWARFUnit* unit;
        uint64_t offset;
        bool operator==(const DieKey&) const = default;
    };
    struct DieKeyHash {
        size_t operator()(const DieKey& k) const noexcept
        {
            const uint64_t h = (reinterpret_cast<uintptr_t>(k.unit) ^ k.offset) * 0x9e3779b97f4a7c15ull;
            return static_cast<size_t>(h ^ (h >> 29));
        }
    };
    std::unordered_map<DieKey, DieInfo, DieKeyHash> dieCache;
    /// (unit, file index) -> file path id; invalidFile when the index names no file.
    std::unordered_map<DieKey, uint32_t, DieKeyHash> fileCache;
    static constexpr uint32_t invalidFile = UINT32_MAX;
    /// Symbol -> (raw id, demangled id).
    std::unordered_map<const SymbolTable::Symbol*, std::pair<StringId, StringId>> symbolCache;
    llvm::SmallVector<llvm::DWARFDie, 8> chain; // reused between addresses

    /// Empties the caches when the output changes (their ids belong to one string table).
    void useOutput(const SymbolizedAddresses& out)
    {
        if (cacheOwner == out.serial())
            return;
        cacheOwner = out.serial();
        demangled.clear();
        dieCache.clear();
        fileCache.clear();
        symbolCache.clear();
    }

    DieInfo& dieInfo(const llvm::DWARFDie& die, SymbolizedAddresses& out)
    {
        auto [it, inserted] = dieCache.try_emplace(DieKey { die.getDwarfUnit(), die.getOffset() });
        DieInfo& info = it->second;
        if (!inserted)
            return info;
        std::string_view name;
        uint64_t startLine = 0;
        if (supplementary) {
            // Names and lines may sit behind alt references (see the header).
            using llvm::dwarf::DW_AT_decl_line, llvm::dwarf::DW_AT_linkage_name,
                llvm::dwarf::DW_AT_MIPS_linkage_name, llvm::dwarf::DW_AT_name;
            std::optional<std::string_view> n;
            if (auto v = findRecursively(die, { DW_AT_MIPS_linkage_name, DW_AT_linkage_name }))
                n = stringOf(*v);
            if (!n)
                if (auto v = findRecursively(die, { DW_AT_name }))
                    n = stringOf(*v);
            name = n.value_or(std::string_view());
            if (auto v = findRecursively(die, { DW_AT_decl_line }))
                startLine = v->getAsUnsignedConstant().value_or(0);
        } else {
            if (const char* n = die.getSubroutineName(llvm::DINameKind::LinkageName))
                name = n;
            startLine = die.getDeclLine();
        }
        info.systemName = out.intern(name);
        info.name = demangledName(out, info.systemName);
        info.startLine = static_cast<uint32_t>(startLine);
        return info;
    }

    void readCaller(const llvm::DWARFDie& die, DieInfo& info)
    {
        if (info.callerRead)
            return;
        uint32_t discriminator = 0;
        die.getCallerFrame(info.callFile, info.callLine, info.callColumn, discriminator);
        info.callerRead = true;
    }

    /// The unit's DW_AT_comp_dir. LLVM reads only strings of the file itself: dwz moves strings
    /// the debug files share (an assembler unit's comp_dir, "./setjmp") into the supplementary
    /// file's .debug_str (DW_FORM_GNU_strp_alt, DW_FORM_strp_sup), read here through stringOf.
    llvm::StringRef compilationDir(llvm::DWARFCompileUnit* cu)
    {
        const llvm::StringRef dir = cu->getCompilationDir();
        if (!dir.empty())
            return dir;
        const std::optional<llvm::DWARFFormValue> v = cu->getUnitDIE().find(llvm::dwarf::DW_AT_comp_dir);
        if (!v || !isSupplementaryString(v->getForm()))
            return dir;
        const std::optional<std::string_view> s = stringOf(*v);
        return s ? llvm::StringRef(s->data(), s->size()) : dir;
    }

    /// The path of file index of unit's line table (absolute when DWARF makes it so); invalidFile
    /// when there is no such file.
    uint32_t fileName(llvm::DWARFCompileUnit* cu, const llvm::DWARFDebugLine::LineTable& table, uint64_t index,
        SymbolizedAddresses& out)
    {
        auto [it, inserted] = fileCache.try_emplace(DieKey { cu, index }, invalidFile);
        if (inserted) {
            std::string path;
            if (table.getFileNameByIndex(index, compilationDir(cu),
                    llvm::DILineInfoSpecifier::FileLineInfoKind::AbsoluteFilePath, path))
                it->second = out.intern(path).value;
        }
        return it->second;
    }

    /// Appends the frames of address (innermost first) as DWARF gives them; the last frame's
    /// function is left for the symbol table to name. Appends nothing when DWARF has nothing.
    struct Frame {
        StringId systemName, name, file;
        uint32_t startLine = 0, line = 0, column = 0;
    };
    void inlineChain(uint64_t address, uint64_t sectionIndex, SymbolizedAddresses& out, std::vector<Frame>& frames)
    {
        llvm::DWARFCompileUnit* cu = context->getCompileUnitForCodeAddress(address);
        if (!cu || !unitUsable(cu))
            return;
        chain.clear();
        cu->getInlinedChainForAddress(address, chain);
        const llvm::DWARFDebugLine::LineTable* table = context->getLineTableForUnit(cu);
        // The innermost frame's position comes from the line table (when the address has a row
        // and the row's file exists; else no file and line 0).
        Frame top;
        bool topFound = false;
        if (table) {
            const uint32_t row = table->lookupAddress({ address, sectionIndex });
            if (row != UINT32_MAX) {
                const llvm::DWARFDebugLine::Row& r = table->Rows[row];
                const uint32_t file = fileName(cu, *table, r.File, out);
                if (file != invalidFile) {
                    top.file = StringId(file);
                    top.line = r.Line;
                    top.column = r.Column;
                    topFound = true;
                }
            }
        }
        if (chain.empty()) {
            // No DIE for the address (e.g. its .dwo is missing): the line table's answer alone.
            if (topFound)
                frames.push_back(top);
            return;
        }
        const DieInfo* inner = nullptr; // the previous (inner) frame's DIE
        for (size_t i = 0; i < chain.size(); ++i) {
            DieInfo& info = dieInfo(chain[i], out);
            Frame f;
            if (!inner) {
                f = top;
            } else {
                // The position in this frame is where the frame inside it was called from.
                if (table) {
                    const uint32_t file = fileName(cu, *table, inner->callFile, out);
                    if (file != invalidFile)
                        f.file = StringId(file);
                }
                f.line = inner->callLine;
                f.column = inner->callColumn;
            }
            if (i + 1 < chain.size())
                readCaller(chain[i], info);
            f.systemName = info.systemName;
            f.name = info.name;
            f.startLine = info.startLine;
            frames.push_back(f);
            inner = &info; // unordered_map: stays valid as other DIEs are added
        }
    }

    const TextSection* sectionFor(uint64_t address) const
    {
        for (const TextSection& s : textSections)
            if (address >= s.begin && address < s.end)
                return &s;
        return nullptr;
    }

    StringId demangledName(SymbolizedAddresses& out, StringId raw)
    {
        if (raw.empty() || !options.demangle)
            return raw;
        useOutput(out);
        if (raw.index() >= demangled.size())
            demangled.resize(raw.index() + 1, 0);
        if (demangled[raw.index()] == 0) {
            const std::string name = demangleSymbol(out.str(raw));
            demangled[raw.index()] = out.intern(name).value;
        }
        return StringId(demangled[raw.index()]);
    }
};

DwarfEngine::DwarfEngine()
    : d(std::make_unique<Impl>())
{
}
DwarfEngine::~DwarfEngine() = default;

Result<std::unique_ptr<DwarfEngine>> DwarfEngine::create(const ModuleFiles& files, Options options)
{
    std::unique_ptr<DwarfEngine> s(new DwarfEngine);
    Impl& d = *s->d;
    d.options = options;
    d.files = files;

    if (files.symbols) {
        auto t = SymbolTable::load(files.symbols, files.symbolKind);
        if (!t)
            return t.error();
        d.symbols = std::move(*t);
    }
    if (files.dynamicSymbols) {
        auto t = SymbolTable::load(files.dynamicSymbols, SymbolTable::Kind::Dynamic);
        if (!t)
            return t.error();
        d.dynamicSymbols = std::move(*t);
    }
    if (files.binary) {
        for (const ElfSection& sec : files.binary->sections())
            if ((sec.flags & elf::SHF_EXECINSTR) && sec.type != elf::SHT_NOBITS && sec.size > 0)
                d.textSections.push_back({ sec.addr, sec.addr + sec.size, sec.index,
                    sec.name == ".plt" || sec.name.starts_with(".plt.") || sec.name == ".iplt" });
    }
    Impl* impl = &d;
    auto handler = [impl](llvm::Error e) { impl->warn(std::move(e)); };
    const std::string relocations = files.dwarf ? relocationProblem(*files.dwarf) : std::string();
    if (!relocations.empty()) {
        ++d.warningCount;
        d.warnings.push_back("the DWARF of " + files.dwarf->path() + " is not read: its relocations cannot be applied ("
            + relocations + ")");
    } else if (files.dwarf && options.readDwarf) {
        auto obj = openObject(*files.dwarf);
        if (!obj)
            return obj.error();
        d.object = std::move(*obj);
        // DWPName "": split units are looked up in <debug file>.dwp, then at comp_dir/dwo_name.
        d.context = llvm::DWARFContext::create(
            *d.object, llvm::DWARFContext::ProcessDebugRelocations::Process, nullptr, "", handler, handler, false);
    }
    if (files.dwarf && files.dwarf->debugAltLink() && !files.supplementary) {
        ++d.warningCount;
        d.warnings.push_back("the dwz supplementary file " + files.dwarf->debugAltLink()->path
            + " is not available: names of functions dwz moved into it are unknown");
    }
    if (files.dwarf && files.supplementary && options.readDwarf) {
        auto obj = openObject(*files.supplementary);
        if (!obj)
            return obj.error();
        d.supplementaryObject = std::move(*obj);
        d.supplementary = llvm::DWARFContext::create(*d.supplementaryObject,
            llvm::DWARFContext::ProcessDebugRelocations::Process, nullptr, "", handler, handler, false);
    }
    return s;
}

bool DwarfEngine::hasDwarf() const
{
    return d->context != nullptr;
}

bool DwarfEngine::usesSupplementary() const
{
    return d->supplementary != nullptr;
}

size_t DwarfEngine::symbolCount() const
{
    return d->symbols.size();
}

size_t DwarfEngine::warningCount() const
{
    return d->warningCount;
}

const std::vector<std::string>& DwarfEngine::warnings() const
{
    return d->warnings;
}

Status DwarfEngine::symbolize(
    std::span<const uint64_t> addresses, SymbolizedAddresses& out, model::Progress* progress)
{
    Impl& d = *this->d;
    d.useOutput(out);
    std::vector<Impl::Frame> frames;
    for (size_t i = 0; i < addresses.size(); ++i) {
        if (progress && (i & 1023) == 0 && progress->isCancelled())
            return makeError(ErrorCode::Cancelled, "symbolization cancelled");
        const uint64_t address = addresses[i];
        frames.clear();
        const TextSection* section = d.sectionFor(address);
        if (section && section->plt && d.options.namePltStubs) {
            const StringId name = out.intern(kPltFrameName);
            out.addFrame(out.addFunction({ name, name, StringId(), 0 }), 0, 0);
            out.endAddress();
            continue;
        }
        if (d.context)
            d.inlineChain(address, section ? section->index : llvm::object::SectionedAddress::UndefSection, out, frames);
        if (frames.empty())
            frames.emplace_back();
        // As llvm-symbolizer: the symbol table names the physical frame, and a local symbol's
        // STT_FILE gives the file when DWARF gave none.
        const SymbolTable* table = nullptr;
        if (const SymbolTable::Symbol* sym = findInUnion(d.symbols, d.dynamicSymbols, address, &table)) {
            Impl::Frame& last = frames.back();
            auto [it, inserted] = d.symbolCache.try_emplace(sym);
            if (inserted) {
                it->second.first = out.intern(sym->name);
                it->second.second = d.demangledName(out, it->second.first);
            }
            last.systemName = it->second.first;
            last.name = it->second.second;
            if (last.file.empty()) {
                const std::string_view file = table->fileOf(*sym);
                if (!file.empty())
                    last.file = out.intern(file);
            }
        }
        for (const Impl::Frame& f : frames)
            out.addFrame(out.addFunction({ f.name, f.systemName, f.file, f.startLine }), f.line, f.column);
        out.endAddress();
    }
    return Status::success();
}

} // namespace symflame::symbolize
