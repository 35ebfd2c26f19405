#include "symbolize/pass/debuginfocheck.h"

#include "symbolize/engines/goengine.h"

#include <llvm/DebugInfo/DWARF/DWARFContext.h>
#include <llvm/DebugInfo/DWARF/DWARFUnit.h>
#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>

#include <algorithm>

namespace symflame::symbolize {

DwarfSummary summarizeDwarf(const ElfFile& file)
{
    DwarfSummary s;
    s.compression = file.contents().debugCompression;
    if (!file.contents().debugInfo)
        return s;
    if (!file.contents().readableDwarf()) {
        s.error = std::string("debug sections compressed as ") + sectionCompressionName(s.compression)
            + ", which LLVM 19 does not read";
        return s;
    }
    if (std::string problem = relocationProblem(file); !problem.empty()) {
        s.error = "its relocations cannot be applied: " + problem;
        return s;
    }
    const auto bytes = file.bytes();
    llvm::MemoryBufferRef ref(llvm::StringRef(reinterpret_cast<const char*>(bytes.data()), bytes.size()), file.path());
    auto obj = llvm::object::ObjectFile::createELFObjectFile(ref);
    if (!obj) {
        s.error = llvm::toString(obj.takeError());
        return s;
    }
    std::string firstWarning;
    auto handler = [&](llvm::Error e) {
        llvm::handleAllErrors(std::move(e), [&](const llvm::ErrorInfoBase& info) {
            if (firstWarning.empty())
                firstWarning = info.message();
        });
    };
    auto ctx = llvm::DWARFContext::create(**obj, llvm::DWARFContext::ProcessDebugRelocations::Process, nullptr, "",
        handler, handler);
    for (const auto& unit : ctx->compile_units()) {
        const uint16_t v = unit->getVersion();
        s.minVersion = s.units == 0 ? v : std::min(s.minVersion, v);
        s.maxVersion = std::max(s.maxVersion, v);
        ++s.units;
    }
    s.present = s.units > 0;
    if (!s.present)
        s.error = firstWarning.empty() ? std::string("no compile units in .debug_info") : firstWarning;
    return s;
}

const char* checkVerdictName(CheckVerdict v)
{
    switch (v) {
    case CheckVerdict::Lines:
        return "lines";
    case CheckVerdict::NamesOnly:
        return "names only";
    case CheckVerdict::Nothing:
        return "nothing";
    case CheckVerdict::Unreadable:
        return "unreadable";
    }
    return "?";
}

BinaryCheck checkBinary(const std::string& path, const DebugInfoLocator& locator)
{
    BinaryCheck c;
    c.path = path;
    auto elf = ElfFile::open(path);
    if (!elf) {
        c.error = elf.error().message;
        c.verdictText = "cannot be read: " + c.error;
        return c;
    }
    c.elf = *elf;
    const std::string& id = c.elf->buildId().empty() ? c.elf->goBuildId() : c.elf->buildId();
    c.located = locator.locate(path, id);
    if (c.located.dwarf)
        c.dwarf = summarizeDwarf(*c.located.dwarf);
    else
        c.dwarf = summarizeDwarf(*c.elf); // says why the binary's own DWARF (if any) is unusable
    // The table itself, not only its section: found by symbol or magic too, and checked to read.
    const bool goBinary = looksLikeGoBinary(*c.elf);
    if (goBinary) {
        if (auto go = GoEngine::open(c.elf, EngineOptions {}))
            c.goTable = (*go)->description();
        else
            c.goTableError = go.error().message;
    }
    const bool hasGoTable = !c.goTable.empty();

    switch (c.located.source) {
    case DebugSource::Binary:
    case DebugSource::BuildIdDirectory:
    case DebugSource::SearchDirectory:
    case DebugSource::DebugLink:
    case DebugSource::Debuginfod:
    case DebugSource::BuildIdStore:
    case DebugSource::ClientCache:
        c.verdict = c.dwarf.present ? CheckVerdict::Lines : CheckVerdict::NamesOnly;
        break;
    case DebugSource::GoPclntab:
        c.verdict = CheckVerdict::Lines;
        break;
    case DebugSource::MiniDebugInfo:
    case DebugSource::SymbolTable:
    case DebugSource::DynamicSymbolTable:
        c.verdict = hasGoTable ? CheckVerdict::Lines : CheckVerdict::NamesOnly;
        break;
    case DebugSource::None:
        c.verdict = hasGoTable ? CheckVerdict::Lines : CheckVerdict::Nothing;
        break;
    }
    const bool goTable = hasGoTable && !c.dwarf.present;
    switch (c.verdict) {
    case CheckVerdict::Lines:
        c.verdictText = goTable ? "functions, files and lines from the " + c.goTable
                                : "functions, files and lines: " + c.located.summary();
        break;
    case CheckVerdict::NamesOnly:
        c.verdictText = "function names only, no files or lines: " + c.located.summary();
        break;
    case CheckVerdict::Nothing:
        c.verdictText = "frames will show addresses only: " + c.located.summary();
        break;
    case CheckVerdict::Unreadable:
        break;
    }
    return c;
}

} // namespace symflame::symbolize
