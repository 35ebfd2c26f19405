// Annotated disassembly: the instructions of the functions of a profile's binaries that a
// pattern names and that have samples, each with its flat and cum cost and the source line it
// came from: what `symflame disasm` prints and the viewer's disassembly view shows. Costs are
// counted as `go tool pprof -disasm` counts them: per location, the leaf location flat and each
// distinct location of a stack cum; an instruction sums the locations from its address to the
// next instruction's (an address inside an instruction counts for it).
#pragma once

#include "model/core/profile.h"
#include "model/core/result.h"
#include "symbolize/locate/debuginfolocator.h"
#include "symbolize/object/disassembler.h"
#include "symbolize/pass/moduleloader.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace symflame::symbolize {

struct AnnotatedInstruction {
    Instruction ins;
    int64_t flat = 0, cum = 0;
    /// The innermost frame at the instruction's address (empty when the debug info has none).
    std::string function, file; ///< file as the debug info gives it
    uint32_t line = 0;
    /// The whole inline chain at the address, innermost first: "function file:line" each.
    std::vector<std::string> inlineChain;
    std::string targetName; ///< a direct call's or branch's destination symbol ("name", "name+0x10")
};

struct DisassembledFunction {
    std::string name; ///< demangled symbol name
    std::string rawName;
    std::string binary; ///< the local file disassembled
    std::string buildId;
    uint64_t start = 0, end = 0; ///< ELF virtual addresses
    int64_t flat = 0, cum = 0; ///< sums over the instructions, as pprof's ROUTINE header
    std::vector<AnnotatedInstruction> instructions;
};

struct DisassemblyOptions {
    LocatorOptions locator;
    ModuleOptions module;
    AsmSyntax syntax = AsmSyntax::Att;
};

struct DisassemblyResult {
    int64_t total = 0; ///< the sample type's total
    std::vector<DisassembledFunction> functions; ///< by name, then address
    /// Why a binary or a function could not be shown ("libx.so: not found ..."), one line each.
    std::vector<std::string> problems;
};

/// The functions with samples whose demangled or raw symbol name the pattern (RE2, unanchored)
/// matches. An invalid pattern is an error; nothing matching is an empty result (with problems).
model::Result<DisassemblyResult> disassembleFunctions(
    const model::Profile& profile, size_t sampleType, std::string_view pattern, const DisassemblyOptions& options);

} // namespace symflame::symbolize
