#include "app/printers/lookupprinter.h"

#include "app/printers/json.h"
#include "symbolize/object/demangle.h"

#include <algorithm>
#include <cstdio>

namespace symflame::app {

namespace {

size_t indexOf(std::span<const uint64_t> addresses, uint64_t address)
{
    return size_t(std::lower_bound(addresses.begin(), addresses.end(), address) - addresses.begin());
}

/// llvm-symbolizer's LLVM layout: per frame the function and file:line:column on two lines, a
/// blank line after each answer.
class LlvmPrinter final : public LookupPrinter {
public:
    LlvmPrinter(const LookupPrintOptions& options, const symbolize::SymbolTable* symbols)
        : LookupPrinter(options, symbols)
    {
    }

    void printUnknown(Output& out, std::string_view) override { out << "??\n??:0:0\n\n"; }

    void printSymbol(Output& out, const Request& r, std::span<const uint64_t> addresses,
        const symbolize::SymbolizedAddresses& answers) override
    {
        const std::vector<size_t> found = symbolMatches(r, addresses, answers);
        if (found.empty())
            out << "??\n??:0:0\n";
        for (size_t index : found)
            printFrame(out, physicalFrame(answers, addresses, index));
        out << '\n';
    }

    void printAnswer(Output& out, uint64_t, size_t index, std::span<const uint64_t> addresses,
        const symbolize::SymbolizedAddresses& answers) override
    {
        framesOf(&m_frames, index, addresses, answers);
        for (const Frame& f : m_frames)
            printFrame(out, f);
        out << '\n';
    }

private:
    static void printFrame(Output& out, const Frame& f)
    {
        out << (f.function.empty() ? std::string_view("??") : f.function) << '\n';
        out << (f.file.empty() ? std::string_view("??") : f.file) << ':' << uint64_t(f.line) << ':'
            << uint64_t(f.column) << '\n';
    }

    std::vector<Frame> m_frames;
};

/// llvm-symbolizer's JSON layout: an object per answer with its frames in a "Symbol" array (keys
/// as llvm-symbolizer orders them).
class JsonPrinter final : public LookupPrinter {
public:
    JsonPrinter(const LookupPrintOptions& options, const symbolize::SymbolTable* symbols)
        : LookupPrinter(options, symbols)
    {
    }

    void listBegin(Output& out) override
    {
        if (m_options.jsonArray)
            out << '[';
    }
    void listEnd(Output& out) override
    {
        if (m_options.jsonArray)
            out << "]\n";
    }
    void entryBegin(Output& out) override
    {
        if (m_options.jsonArray && m_entries++ > 0)
            out << ',';
    }
    void entryEnd(Output& out) override
    {
        if (!m_options.jsonArray)
            out << '\n';
    }

    void printUnknown(Output& out, std::string_view moduleName) override
    {
        writeJson(out, Json { { "ModuleName", moduleName }, { "Symbol", Json::array({ frameJson(Frame {}) }) } });
    }

    void printSymbol(Output& out, const Request& r, std::span<const uint64_t> addresses,
        const symbolize::SymbolizedAddresses& answers) override
    {
        Json locations = Json::array();
        for (size_t index : symbolMatches(r, addresses, answers))
            locations.push_back(frameJson(physicalFrame(answers, addresses, index)));
        writeJson(out,
            Json { { "Loc", std::move(locations) }, { "ModuleName", m_options.moduleName },
                { "SymName", r.detail->symbol } });
    }

    void printAnswer(Output& out, uint64_t address, size_t index, std::span<const uint64_t> addresses,
        const symbolize::SymbolizedAddresses& answers) override
    {
        char hex[24];
        std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(address));
        framesOf(&m_frames, index, addresses, answers);
        Json::array_t symbol;
        symbol.reserve(m_frames.size());
        for (const Frame& f : m_frames)
            symbol.push_back(frameJson(f));
        Json::object_t answer;
        answer.reserve(3);
        answer.emplace_back("Address", hex);
        answer.emplace_back("ModuleName", m_options.moduleName);
        answer.emplace_back("Symbol", std::move(symbol));
        writeJson(out, Json(std::move(answer)));
    }

private:
    // The engine knows neither the function's start address, nor its declaration file, nor the
    // line table's discriminator: they print as llvm-symbolizer prints them when unknown. Built
    // member by member: an initializer list makes a two-element array per member first, which
    // took lookup's JSON layout twice as long.
    static Json frameJson(const Frame& f)
    {
        Json::object_t frame;
        frame.reserve(8);
        frame.emplace_back("Column", f.column);
        frame.emplace_back("Discriminator", 0);
        frame.emplace_back("FileName", f.file);
        frame.emplace_back("FunctionName", f.function);
        frame.emplace_back("Line", f.line);
        frame.emplace_back("StartAddress", "");
        frame.emplace_back("StartFileName", "");
        frame.emplace_back("StartLine", f.startLine);
        return Json(std::move(frame));
    }

    std::vector<Frame> m_frames;
    size_t m_entries = 0;
};

} // namespace

std::unique_ptr<LookupPrinter> LookupPrinter::create(
    const LookupPrintOptions& options, const symbolize::SymbolTable* symbols)
{
    if (options.style == LookupPrintOptions::Style::Json)
        return std::make_unique<JsonPrinter>(options, symbols);
    return std::make_unique<LlvmPrinter>(options, symbols);
}

void LookupPrinter::framesOf(std::vector<Frame>* frames, size_t index, std::span<const uint64_t> addresses,
    const symbolize::SymbolizedAddresses& answers)
{
    frames->clear();
    if (!m_options.inlines) {
        frames->push_back(physicalFrame(answers, addresses, index));
        return;
    }
    for (const symbolize::SymbolizedFrame& f : answers.frames(index)) {
        const symbolize::SymbolizedFunction& fn = answers.function(f.function);
        frames->push_back({ functionName(answers, f.function), answers.str(fn.file), f.line, f.column, fn.startLine });
    }
}

// The innermost frame's location and start line, and its function's name unless a symbol covers
// the address: then the symbol's, which the engine gave the physical (outermost) frame.
LookupPrinter::Frame LookupPrinter::physicalFrame(
    const symbolize::SymbolizedAddresses& answers, std::span<const uint64_t> addresses, size_t index)
{
    const auto frames = answers.frames(index);
    const symbolize::SymbolizedFrame& inner = frames.front();
    const symbolize::SymbolizedFunction& innerFn = answers.function(inner.function);
    const bool symbolNamed = m_symbols && m_symbols->find(addresses[index]);
    const uint32_t named = symbolNamed ? frames.back().function : inner.function;
    return { functionName(answers, named), answers.str(innerFn.file), inner.line, inner.column, innerFn.startLine };
}

std::vector<size_t> LookupPrinter::symbolMatches(
    const Request& r, std::span<const uint64_t> addresses, const symbolize::SymbolizedAddresses& answers)
{
    std::vector<size_t> found;
    for (uint64_t a : r.symbolAddresses()) {
        const size_t index = indexOf(addresses, a);
        const auto frames = answers.frames(index);
        if (!answers.str(answers.function(frames.front().function).file).empty())
            found.push_back(index);
    }
    return found;
}

std::string_view LookupPrinter::functionName(const symbolize::SymbolizedAddresses& answers, uint32_t index)
{
    const symbolize::SymbolizedFunction& fn = answers.function(index);
    if (!m_options.demangle)
        return answers.str(fn.systemName);
    if (m_rustNames.size() <= index) {
        m_rustNames.resize(answers.functions().size());
        m_rustKnown.resize(answers.functions().size(), false);
    }
    if (!m_rustKnown[index]) {
        m_rustKnown[index] = true;
        symbolize::llvmLegacyRustName(answers.str(fn.systemName), &m_rustNames[index]);
    }
    return m_rustNames[index].empty() ? answers.str(fn.name) : std::string_view(m_rustNames[index]);
}

} // namespace symflame::app
