#include "symbolize/pass/disassembly.h"

#include "symbolize/object/addressnormalizer.h"
#include "symbolize/object/demangle.h"
#include "symbolize/object/symboltable.h"

#include <re2/re2.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>

namespace symflame::symbolize {

namespace {

std::string hex(uint64_t v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(v));
    return buf;
}

} // namespace

model::Result<DisassemblyResult> disassembleFunctions(
    const model::Profile& profile, size_t sampleType, std::string_view pattern, const DisassemblyOptions& options)
{
    re2::RE2::Options reOptions;
    reOptions.set_log_errors(false);
    const re2::RE2 re(re2::StringPiece(pattern.data(), pattern.size()), reOptions);
    if (!re.ok())
        return model::makeError(model::ErrorCode::Usage, "invalid pattern '" + std::string(pattern) + "': " + re.error());
    DisassemblyResult out;
    if (sampleType >= profile.sampleTypes.size())
        return out;
    const size_t* type = &sampleType;
    std::map<uint16_t, model::Result<std::unique_ptr<Disassembler>>> disassemblers; // by ELF machine
    // Flat and cum per location, as pprof's graph at address granularity counts them: the leaf
    // location flat, each distinct location of a stack cum.
    const size_t nLocations = profile.locations.size();
    std::vector<int64_t> flat(nLocations, 0), cum(nLocations, 0);
    std::vector<uint32_t> seen(nLocations, 0);
    const std::vector<int64_t> stackValue = profile.valuePerStack(*type);
        for (size_t s = 0; s < profile.stackCount(); ++s) {
        const int64_t v = stackValue[s];
        out.total += v;
        const auto locs = profile.stack(model::StackId(s));
        if (v == 0 || locs.empty())
            continue;
        flat[locs[0].index()] += v;
        for (const model::LocationId l : locs)
            if (seen[l.index()] != uint32_t(s + 1)) {
                seen[l.index()] = uint32_t(s + 1);
                cum[l.index()] += v;
            }
    }
    // The locations with a cost, per mapping.
    std::map<uint32_t, std::vector<uint32_t>> byMapping;
    for (size_t l = 0; l < nLocations; ++l)
        if ((flat[l] != 0 || cum[l] != 0) && profile.locations[l].mapping.valid())
            byMapping[profile.locations[l].mapping.index()].push_back(uint32_t(l));

    DebugInfoLocator locator(options.locator);
    locator.buildIndex();
    std::vector<std::string>& problems = out.problems;
    for (const auto& [mappingIndex, locations] : byMapping) {
        const model::Mapping& m = profile.mappings[mappingIndex];
        const std::string file(profile.str(m.file));
        if (file.empty() || file.starts_with('['))
            continue; // [kernel.kallsyms], [vdso]: nothing to read
        const LocateResult located = locator.locate(file, profile.str(m.buildId));
        if (located.status != LocateStatus::Found || !located.binary) {
            problems.push_back(file + ": " + located.summary());
            continue;
        }
        const ElfFile& binary = *located.binary;
        auto normalizer = AddressNormalizer::create(
            binary, MappingRange { m.start, m.limit, m.offset, m.has(model::Mapping::ElfAddresses) });
        if (!normalizer) {
            problems.push_back(file + ": " + normalizer.error().message);
            continue;
        }
        // The symbols: the debug file's table when there is one (it has the local functions).
        const ElfFilePtr symbolFile = located.symbols ? located.symbols : located.binary;
        auto table = SymbolTable::load(symbolFile, located.symbols ? located.symbolKind : SymbolTable::Kind::Static);
        if (table && table->empty())
            table = SymbolTable::load(located.binary, SymbolTable::Kind::Dynamic);
        if (!table || table->empty()) {
            problems.push_back(file + ": no symbol table to find functions in");
            continue;
        }
        // Costs at ELF addresses, sorted.
        std::vector<std::pair<uint64_t, uint32_t>> costs; // ELF address, location
        for (const uint32_t l : locations)
            costs.emplace_back(normalizer->toElfAddress(profile.locations[l].address), l);
        std::sort(costs.begin(), costs.end());
        auto it = disassemblers.find(binary.machine());
        if (it == disassemblers.end())
            it = disassemblers.emplace(binary.machine(), Disassembler::create(binary.machine(), options.syntax)).first;
        if (!it->second) {
            problems.push_back(file + ": " + it->second.error().message);
            continue;
        }
        const Disassembler* disasm = it->second->get();
        std::vector<DisassembledFunction> found;
        for (const SymbolTable::Symbol& sym : table->symbols()) {
            if (sym.size == 0)
                continue;
            const auto first = std::lower_bound(costs.begin(), costs.end(), std::pair<uint64_t, uint32_t> { sym.address, 0 });
            if (first == costs.end() || first->first >= sym.address + sym.size)
                continue; // no samples in it
            const std::string demangled = demangleSymbol(sym.name);
            if (!re2::RE2::PartialMatch(demangled, re) && !re2::RE2::PartialMatch(sym.name, re))
                continue;
            auto instructions = disassembleRange(binary, sym.address, sym.address + sym.size, *disasm);
            if (!instructions) {
                problems.push_back(file + ": " + demangled + ": " + instructions.error().message);
                continue;
            }
            DisassembledFunction r;
            r.name = demangled;
            r.rawName = std::string(sym.name);
            r.binary = binary.path();
            r.buildId = binary.buildId();
            r.start = sym.address;
            r.end = sym.address + sym.size;
            // Each instruction sums the samples from its address to the next one's (a sample
            // address inside an instruction counts for it), as pprof's -disasm.
            auto c = first;
            for (size_t i = 0; i < instructions->size(); ++i) {
                AnnotatedInstruction a;
                a.ins = std::move((*instructions)[i]);
                const uint64_t next = a.ins.address + a.ins.size;
                for (; c != costs.end() && c->first < next; ++c) {
                    a.flat += flat[c->second];
                    a.cum += cum[c->second];
                }
                r.flat += a.flat;
                r.cum += a.cum;
                r.instructions.push_back(std::move(a));
            }
            found.push_back(std::move(r));
        }
        if (found.empty())
            continue;
        // Call and branch targets named by the symbol table.
        for (DisassembledFunction& r : found)
            for (AnnotatedInstruction& a : r.instructions) {
                if (!a.ins.target || !(a.ins.isCall || a.ins.isBranch))
                    continue;
                if (*a.ins.target >= r.start && *a.ins.target < r.end && !a.ins.isCall)
                    continue; // a jump inside the function: its address says enough
                if (const auto* s = table->find(*a.ins.target); s && *a.ins.target < s->address + s->size) {
                    a.targetName = demangleSymbol(s->name);
                    if (*a.ins.target != s->address)
                        a.targetName += "+0x" + hex(*a.ins.target - s->address);
                }
            }
        // The source line of each instruction, from the module's debug info (the innermost frame).
        if (auto engine = openModule(located, options.module)) {
            std::vector<uint64_t> addresses;
            for (const DisassembledFunction& r : found)
                for (const AnnotatedInstruction& a : r.instructions)
                    addresses.push_back(a.ins.address);
            SymbolizedAddresses answers;
            if ((*engine)->symbolize(addresses, answers, nullptr)) {
                size_t k = 0;
                for (DisassembledFunction& r : found)
                    for (AnnotatedInstruction& a : r.instructions) {
                        const auto frames = answers.frames(k++);
                        if (frames.empty())
                            continue;
                        const SymbolizedFunction& f = answers.function(frames[0].function);
                        a.function = std::string(answers.str(f.name));
                        a.file = std::string(answers.str(f.file));
                        a.line = frames[0].line;
                        for (const SymbolizedFrame& frame : frames) {
                            const SymbolizedFunction& ff = answers.function(frame.function);
                            a.inlineChain.push_back(std::string(answers.str(ff.name)) + " "
                                + std::string(answers.str(ff.file)) + ":" + std::to_string(frame.line));
                        }
                    }
            }
        }
        for (DisassembledFunction& r : found)
            out.functions.push_back(std::move(r));
    }
    std::sort(out.functions.begin(), out.functions.end(), [](const DisassembledFunction& a, const DisassembledFunction& b) {
        return a.name != b.name ? a.name < b.name : a.start < b.start;
    });
    return out;
}

} // namespace symflame::symbolize
