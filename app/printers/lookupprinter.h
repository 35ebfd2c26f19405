// How `symflame lookup` prints its answers: llvm-symbolizer's LLVM and JSON layouts, apart from
// the lookup as LLVM's DIPrinter is apart from its Symbolize library. Every request prints one
// entry; listBegin/listEnd and entryBegin/entryEnd write what goes around and between them (the
// JSON array's brackets and commas, one JSON object per line), so that an answer's own text
// depends on its address only and can be rendered once per address and copied.
#pragma once

#include "app/lookuprequest.h"
#include "app/output.h"
#include "symbolize/engines/answers.h"
#include "symbolize/object/symboltable.h"

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace symflame::app {

struct LookupPrintOptions {
    enum class Style { Llvm, Json };
    Style style = Style::Llvm;
    bool demangle = true;
    /// JSON answers to addresses given as arguments form one array on one line (llvm-symbolizer
    /// does so); answers to stdin lines are one object per line.
    bool jsonArray = false;
    bool inlines = true; ///< --no-inlines: one frame, the physical function at the innermost line

    std::string moduleName; ///< --obj as given
};

class LookupPrinter {
public:
    /// symbols: the module's symbol table (for --no-inlines and symbol requests), or null. A
    /// printer keeps caches: one per thread.
    static std::unique_ptr<LookupPrinter> create(
        const LookupPrintOptions& options, const symbolize::SymbolTable* symbols);
    virtual ~LookupPrinter() = default;

    /// Before the first entry and after the last.
    virtual void listBegin(Output&) { }
    virtual void listEnd(Output&) { }
    /// Before and after each entry.
    virtual void entryBegin(Output&) { }
    virtual void entryEnd(Output&) { }

    /// The unknown answer (an empty or malformed request).
    virtual void printUnknown(Output& out, std::string_view moduleName) = 0;
    /// A symbol request: one entry per symbol address whose line is known (llvm-symbolizer's
    /// "Loc" list); the LLVM layout prints the unknown answer when there is none.
    virtual void printSymbol(Output& out, const Request& request, std::span<const uint64_t> addresses,
        const symbolize::SymbolizedAddresses& answers)
        = 0;
    /// The answer to address, answers' entry index (addresses[index] == address).
    virtual void printAnswer(Output& out, uint64_t address, size_t index, std::span<const uint64_t> addresses,
        const symbolize::SymbolizedAddresses& answers)
        = 0;

protected:
    LookupPrinter(const LookupPrintOptions& options, const symbolize::SymbolTable* symbols)
        : m_options(options)
        , m_symbols(symbols)
    {
    }

    /// One frame as llvm-symbolizer prints it.
    struct Frame {
        std::string_view function;
        std::string_view file;
        uint32_t line = 0;
        uint32_t column = 0;
        uint32_t startLine = 0;
    };
    /// The frames of an answer, innermost first: the inline chain, or with --no-inlines the
    /// physical one.
    void framesOf(std::vector<Frame>* frames, size_t index, std::span<const uint64_t> addresses,
        const symbolize::SymbolizedAddresses& answers);
    /// The answer without inline frames, as llvm-symbolizer gives it for --no-inlines and for
    /// symbol requests.
    Frame physicalFrame(
        const symbolize::SymbolizedAddresses& answers, std::span<const uint64_t> addresses, size_t index);
    /// The addresses of a symbol request whose line is known, as indexes into addresses.
    std::vector<size_t> symbolMatches(
        const Request& request, std::span<const uint64_t> addresses, const symbolize::SymbolizedAddresses& answers);

    const LookupPrintOptions& m_options;

private:
    /// The name to print for function index (the engine's name, or llvm-symbolizer's form of a
    /// legacy Rust name), worked out once per function.
    std::string_view functionName(const symbolize::SymbolizedAddresses& answers, uint32_t index);

    const symbolize::SymbolTable* m_symbols;
    std::vector<std::string> m_rustNames; ///< by function index; empty: not a legacy Rust name
    std::vector<bool> m_rustKnown;
};

} // namespace symflame::app
