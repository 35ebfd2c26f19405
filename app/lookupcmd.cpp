// The lookup command. Input lines are read as llvm-symbolizer 19 reads them when --obj names the
// binary: an optional "CODE " command, then the address up to the first space, as an unsigned
// number whose base follows its prefix (0x/0X hex, 0b binary, 0o or a leading 0 octal, else
// decimal); the rest of the line is ignored. A word that is no number is a symbol name, maybe with
// "+offset": it is answered, as llvm-symbolizer does, at each symbol of that raw name in the
// module's symbol table. A line whose address is malformed prints an error on stderr and the
// unknown answer on stdout, as llvm-symbolizer does. All addresses are looked up
// at once (sorted, unique, sharded over the worker threads by lookupModules) through the engine
// openModule picks, and the answers are printed in input order.
#include "app/lookupcmd.h"

#include "app/cli.h"
#include "app/cmdline.h"
#include "app/debuginfodargs.h"
#include "app/lookuprequest.h"
#include "app/output.h"
#include "app/printers/lookupprinter.h"
#include "model/core/radixsort.h"
#include "symbolize/locate/debuginfolocator.h"
#include "symbolize/object/elffile.h"
#include "symbolize/pass/parallellookup.h"
#include "symbolize/object/symboltable.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

namespace symflame::app {

namespace {

/// Fills symbolAddresses of the symbol requests from the symbol table that names the module's
/// functions: every symbol of that raw name (llvm-symbolizer's table keeps one symbol per
/// address, as SymbolTable does), plus the offset when it lies inside the symbol.
void resolveSymbols(const symbolize::SymbolTable& table, std::vector<Request>& requests)
{
    std::unordered_multimap<std::string_view, const symbolize::SymbolTable::Symbol*> byName;
    for (const auto& sym : table.symbols())
        byName.emplace(sym.name, &sym);
    for (Request& r : requests) {
        if (r.kind != Request::SymbolName)
            continue;
        Request::Detail& d = r.more();
        const auto [begin, end] = byName.equal_range(d.symbol);
        for (auto it = begin; it != end; ++it) {
            const auto& sym = *it->second;
            d.symbolAddresses.push_back(sym.address + (d.symbolOffset < sym.size ? d.symbolOffset : 0));
        }
        // The symbol table is in address order; the matches of one name are reported in it.
        std::sort(d.symbolAddresses.begin(), d.symbolAddresses.end());
    }
}

std::string readAll(std::FILE* file)
{
    std::string data;
    char buf[1 << 16];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, file)) > 0)
        data.append(buf, n);
    return data;
}

} // namespace

int runLookupCommand(int argc, char** argv)
{
    const OptionSpec specs[] = {
        { "obj", 'e', true },
        { "exe", 0, true },
        { "output-style", 0, true },
        { "debug-dir", 0, true },
        { "debug-file-directory", 0, true },
        { "demangle", 'C', false },
        { "no-demangle", 0, false },
        { "inlines", 'i', false },
        { "no-inlines", 0, false },
        { "isolate", 0, true },
        { "isolate-timeout", 0, true },
        { "help", 'h', false },
    };
    std::string error;
    const auto args = parseArgs(std::span<char* const>(argv, static_cast<size_t>(argc)), specs, &error);
    if (!args)
        return usageError("lookup: " + error);
    if (args->has("help")) {
        std::fputs(usageText(), stdout);
        return ExitOk;
    }
    LookupPrintOptions print;
    symbolize::LocatorOptions locatorOptions;
    symbolize::LookupOptions lookupOptions;
    if (!isolationOptionsFrom(*args, &lookupOptions.module.isolation, &error))
        return usageError("lookup: " + error);
    for (const auto& [name, value] : args->options) {
        if (name == "obj" || name == "exe") {
            print.moduleName = value;
        } else if (name == "output-style") {
            if (value == "LLVM")
                print.style = LookupPrintOptions::Style::Llvm;
            else if (value == "JSON")
                print.style = LookupPrintOptions::Style::Json;
            else
                return usageError("lookup: --output-style wants LLVM or JSON, not '" + value + "'");
        } else if (name == "debug-dir" || name == "debug-file-directory") {
            locatorOptions.debugDirs.push_back(value);
        } else if (name == "demangle") {
            print.demangle = true;
        } else if (name == "no-demangle") {
            print.demangle = false;
        } else if (name == "inlines") {
            print.inlines = true;
        } else if (name == "no-inlines") {
            print.inlines = false;
        }
    }
    if (print.moduleName.empty())
        return usageError("lookup: missing --obj BIN");

    // The binary first: a wrong --obj is reported before any input is read.
    auto elf = symbolize::ElfFile::open(print.moduleName);
    if (!elf)
        return inputError(print.moduleName, elf.error().message);
    symbolize::DebugInfoLocator locator(std::move(locatorOptions));
    symbolize::LocateResult located = locator.locate(print.moduleName, (*elf)->buildId());
    if (located.status != symbolize::LocateStatus::Found)
        return inputError(print.moduleName, located.summary());
    // llvm-symbolizer names functions from the symbol table of --obj itself, never from a separate
    // debug file's (the profile pass uses that one: a stripped binary then gets the names of its
    // unstripped original). MiniDebugInfo keeps its own tables: they stand in for the binary's.
    if (located.binary && located.symbols && located.symbols != located.binary
        && located.source != symbolize::DebugSource::MiniDebugInfo) {
        const symbolize::ElfContents& own = located.binary->contents();
        located.symbols = own.symtab || own.dynsym ? located.binary : nullptr;
        located.symbolKind = own.symtab ? symbolize::SymbolTable::Kind::Static : symbolize::SymbolTable::Kind::Dynamic;
    }

    std::vector<Request> requests;
    print.jsonArray = !args->positional.empty();
    if (!args->positional.empty()) {
        for (const std::string& a : args->positional)
            requests.push_back(parseRequest(a));
    } else {
        const std::string input = readAll(stdin);
        requests.reserve(size_t(std::count(input.begin(), input.end(), '\n')) + 1);
        std::string_view rest = input;
        while (!rest.empty()) {
            const size_t nl = rest.find('\n');
            const std::string_view line = rest.substr(0, nl);
            // Most lines are one hexadecimal address: read those without the general parser.
            if (uint64_t a = 0; isPlainHexAddress(line, &a)) {
                Request r;
                r.kind = Request::Address;
                r.address = a;
                requests.push_back(std::move(r));
            } else {
                requests.push_back(parseRequest(line));
            }
            rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
        }
    }

    // The symbol table, when symbol requests or --no-inlines need it.
    const bool symbolRequests
        = std::any_of(requests.begin(), requests.end(), [](const Request& r) { return r.kind == Request::SymbolName; });
    std::optional<symbolize::SymbolTable> symbols;
    if ((symbolRequests || !print.inlines) && located.symbols) {
        auto table = symbolize::SymbolTable::load(located.symbols, located.symbolKind);
        if (!table)
            return inputError(located.symbols->path(), table.error().message);
        symbols = std::move(table).value();
        resolveSymbols(*symbols, requests);
    }
    // The addresses to look up, sorted and unique, and the index of each request's answer among
    // them, from one sort of (address, request) pairs.
    std::vector<uint64_t> addresses;
    {
        std::vector<std::pair<uint64_t, uint32_t>> keyed;
        keyed.reserve(requests.size());
        for (size_t i = 0; i < requests.size(); ++i) {
            if (requests[i].kind == Request::Address)
                keyed.emplace_back(requests[i].address, uint32_t(i));
            for (uint64_t a : requests[i].symbolAddresses())
                keyed.emplace_back(a, UINT32_MAX); // found again by printSymbol
        }
        model::radixSort(keyed);
        addresses.reserve(keyed.size());
        for (const auto& [address, request] : keyed) {
            if (addresses.empty() || addresses.back() != address)
                addresses.push_back(address);
            if (request != UINT32_MAX)
                requests[request].answer = uint32_t(addresses.size() - 1);
        }
    }

    symbolize::SymbolizedAddresses answers;
    if (!addresses.empty()) {
        const symbolize::LookupModule module { &located, addresses };
        auto outcomes = symbolize::lookupModules(std::span(&module, 1), lookupOptions);
        if (!outcomes)
            return inputError(print.moduleName, outcomes.error().message);
        symbolize::LookupOutcome& outcome = outcomes->front();
        if (!outcome.ok)
            return inputError(print.moduleName, outcome.error);
        answers = std::move(outcome.answers);
    }

    Output out;
    const symbolize::SymbolTable* table = symbols ? &*symbols : nullptr;
    const std::unique_ptr<LookupPrinter> printer = LookupPrinter::create(print, table);
    // An answer's text depends on its address only: each is rendered once, in address order, and
    // copied for its requests (a profile's addresses come in no order, and rendering them in that
    // order reaches all over the answers' tables). Two halves, rendered on two threads, each with
    // its own printer (printers keep caches).
    struct Rendered {
        Output text = Output::inMemory();
        std::vector<size_t> at; ///< offsets of answers [first, first + at.size() - 1)
        size_t first = 0;
    };
    std::vector<Rendered> rendered(2);
    if (!addresses.empty()) {
        const size_t mid = addresses.size() / 2;
        const auto renderRange = [&](Rendered& r, size_t begin, size_t end) {
            const std::unique_ptr<LookupPrinter> own = LookupPrinter::create(print, table);
            r.first = begin;
            model::reserveBig(r.at, end - begin + 1);
            r.text.reserve((end - begin) * 160); // about two frames of a function and a path each
            for (size_t i = begin; i < end; ++i) {
                r.at.push_back(r.text.bufferedSize());
                own->printAnswer(r.text, addresses[i], i, addresses, answers);
            }
            r.at.push_back(r.text.bufferedSize());
        };
        std::thread second;
        if (mid >= 4096)
            second = std::thread(renderRange, std::ref(rendered[1]), mid, addresses.size());
        renderRange(rendered[0], 0, second.joinable() ? mid : addresses.size());
        if (second.joinable())
            second.join();
    }
    printer->listBegin(out);
    for (const Request& r : requests) {
        printer->entryBegin(out);
        switch (r.kind) {
        case Request::Address: {
            const Rendered& part = rendered[1].at.empty() || r.answer < rendered[1].first ? rendered[0] : rendered[1];
            const size_t k = r.answer - part.first;
            out << part.text.buffered().substr(part.at[k], part.at[k + 1] - part.at[k]);
            break;
        }
        case Request::Empty:
            printer->printUnknown(out, "");
            break;
        case Request::Malformed:
            out.flush();
            std::fprintf(stderr, "symflame: error: '%s': %s\n", r.detail->input.c_str(), r.detail->error.c_str());
            printer->printUnknown(out, print.moduleName);
            break;
        case Request::SymbolName:
            printer->printSymbol(out, r, addresses, answers);
            break;
        }
        printer->entryEnd(out);
    }
    printer->listEnd(out);
    return ExitOk;
}

} // namespace symflame::app
