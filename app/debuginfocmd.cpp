#include "app/debuginfocmd.h"

#include "app/cli.h"
#include "app/cmdline.h"
#include "app/debuginfodargs.h"
#include "app/output.h"
#include "symbolize/pass/debuginfocheck.h"
#include "symbolize/locate/debuginfodclient.h"

#include <atomic>
#include <cstdio>
#include <iterator>
#include <vector>

namespace symflame::app {

namespace {

std::string yesNo(bool b)
{
    return b ? "yes" : "no";
}

std::string dwarfText(const symbolize::DwarfSummary& d)
{
    if (!d.present)
        return d.error.empty() ? std::string("none") : "unreadable: " + d.error;
    std::string s = "version " + std::to_string(d.minVersion);
    if (d.maxVersion != d.minVersion)
        s += "-" + std::to_string(d.maxVersion);
    s += ", " + std::to_string(d.units) + (d.units == 1 ? " unit" : " units");
    s += d.compression == symbolize::SectionCompression::None
        ? std::string(", not compressed")
        : std::string(", compressed (") + symbolize::sectionCompressionName(d.compression) + ")";
    return s;
}

void printCheck(Output& out, const symbolize::BinaryCheck& c)
{
    const auto row = [&](std::string_view key, const std::string& value) {
        out << "  " << key;
        for (size_t i = key.size(); i < 18; ++i)
            out << ' ';
        out << value << '\n';
    };
    out << c.path << '\n';
    if (!c.elf) {
        row("result", std::string("UNREADABLE: ") + c.error);
        return;
    }
    const symbolize::ElfFile& e = *c.elf;
    const symbolize::ElfContents& k = e.contents();
    row("GNU build ID", e.buildId().empty() ? std::string("(none)") : e.buildId());
    row("Go build ID", e.goBuildId().empty() ? std::string("(none)") : e.goBuildId());
    row("type", std::string(e.is64() ? "ELF64 " : "ELF32 ") + (e.isLittleEndian() ? "LE " : "BE ")
            + symbolize::elfTypeName(e.type()) + (k.debugOnly ? " (separate debug file)" : ""));
    row("DWARF", (c.located.dwarf && c.located.dwarfPath != c.path ? "(in " + c.located.dwarfPath + ") " : std::string())
            + dwarfText(c.dwarf));
    row(".symtab", yesNo(k.symtab));
    row(".dynsym", yesNo(k.dynsym));
    row(".gnu_debugdata", yesNo(k.gnuDebugdata));
    row("gopclntab", !c.goTable.empty() ? c.goTable
            : !c.goTableError.empty()         ? "unreadable: " + c.goTableError
                                              : yesNo(k.gopclntab));
    if (const auto& link = e.debugLink()) {
        char crc[16];
        std::snprintf(crc, sizeof crc, "%08x", link->crc);
        row(".gnu_debuglink", link->name + " (CRC " + crc + ")");
    } else {
        row(".gnu_debuglink", "(none)");
    }
    // The dwz link lives in the debug file, which may be a separate one.
    const auto& alt = c.located.dwarf && c.located.dwarf->debugAltLink() ? c.located.dwarf->debugAltLink() : e.debugAltLink();
    if (alt)
        row(".gnu_debugaltlink", alt->path + " (build ID " + alt->buildId + ")"
                + (c.located.supplementaryPath.empty() ? std::string() : ", found at " + c.located.supplementaryPath));
    else
        row(".gnu_debugaltlink", "(none)");
    row("debug info used", c.located.source == symbolize::DebugSource::None && !c.goTable.empty()
            ? "gopclntab of " + c.path
            : c.located.summary());
    for (const std::string& t : c.located.tried)
        row("tried", t);
    const char* tag = c.verdict == symbolize::CheckVerdict::Lines ? "OK: "
        : c.verdict == symbolize::CheckVerdict::NamesOnly         ? "NO LINES: "
                                                                  : "NOTHING: ";
    row("result", tag + c.verdictText);
}

void printCheckJson(Output& out, const symbolize::BinaryCheck& c, bool first)
{
    out << (first ? "" : ",") << "{\"path\":";
    out.jsonString(c.path);
    out << ",\"verdict\":";
    out.jsonString(symbolize::checkVerdictName(c.verdict));
    out << ",\"summary\":";
    out.jsonString(c.elf ? c.verdictText : c.error);
    if (c.elf) {
        const symbolize::ElfContents& k = c.elf->contents();
        out << ",\"gnu_build_id\":";
        out.jsonString(c.elf->buildId());
        out << ",\"go_build_id\":";
        out.jsonString(c.elf->goBuildId());
        out << ",\"dwarf\":{\"present\":" << (c.dwarf.present ? "true" : "false")
            << ",\"min_version\":" << int(c.dwarf.minVersion) << ",\"max_version\":" << int(c.dwarf.maxVersion)
            << ",\"units\":" << uint64_t(c.dwarf.units) << ",\"compression\":";
        out.jsonString(symbolize::sectionCompressionName(c.dwarf.compression));
        out << ",\"file\":";
        out.jsonString(c.located.dwarfPath);
        out << "},\"symtab\":" << (k.symtab ? "true" : "false") << ",\"dynsym\":" << (k.dynsym ? "true" : "false")
            << ",\"gnu_debugdata\":" << (k.gnuDebugdata ? "true" : "false")
            << ",\"gopclntab\":" << (!c.goTable.empty() ? "true" : "false") << ",\"gopclntab_detail\":";
        out.jsonString(c.goTable.empty() ? c.goTableError : c.goTable);
        out << ",\"debuglink\":";
        out.jsonString(c.elf->debugLink() ? c.elf->debugLink()->name : std::string());
        out << ",\"source\":";
        out.jsonString(symbolize::debugSourceName(c.located.source));
        out << ",\"tried\":";
        out.jsonStringArray(c.located.tried);
    }
    out << '}';
}

// debuginfo check BIN... : exit 0 when every file symbolizes with lines, 1 when one does not,
// 2 when one can't be read at all.
int runCheck(const ParsedArgs& args)
{
    symbolize::LocatorOptions lo;
    for (const auto& [name, value] : args.options) {
        if (name == "debug-dir")
            lo.debugDirs.push_back(value);
        else if (name == "search-path")
            lo.searchDirs.push_back(value);
    }
    symbolize::DebugInfoLocator locator(lo);
    locator.buildIndex();
    const bool json = args.has("json");
    Output out;
    if (json)
        out << '[';
    int exit = ExitOk;
    for (size_t i = 1; i < args.positional.size(); ++i) {
        const symbolize::BinaryCheck c = symbolize::checkBinary(args.positional[i], locator);
        if (json)
            printCheckJson(out, c, i == 1);
        else
            printCheck(out, c);
        if (c.verdict == symbolize::CheckVerdict::Unreadable)
            exit = inputError(c.path, c.error); // the report says it too; stderr names the file
        else if (c.verdict != symbolize::CheckVerdict::Lines && exit == ExitOk)
            exit = ExitFailure;
    }
    if (json)
        out << "]\n";
    return exit;
}

} // namespace

int runDebuginfoCommand(int argc, char** argv)
{
    std::vector<OptionSpec> specs = { { "kind", 0, true }, { "help", 'h', false }, { "json", 0, false },
        { "debug-dir", 0, true }, { "search-path", 0, true } };
    specs.insert(specs.end(), std::begin(kDebuginfodOptionSpecs), std::end(kDebuginfodOptionSpecs));
    std::string error;
    const auto args = parseArgs(std::span<char* const>(argv, static_cast<size_t>(argc)), specs, &error);
    if (!args)
        return usageError("debuginfo: " + error);
    if (args->has("help")) {
        std::fputs(usageText(), stdout);
        return ExitOk;
    }
    if (!args->positional.empty() && args->positional[0] == "check") {
        if (args->positional.size() < 2)
            return usageError("debuginfo check: wants at least one BIN");
        return runCheck(*args);
    }
    if (args->positional.empty() || args->positional[0] != "fetch")
        return usageError("debuginfo: the subcommands are 'fetch BUILDID' and 'check BIN...'");
    if (args->positional.size() != 2)
        return usageError("debuginfo fetch: wants exactly one BUILDID");
    const std::string& buildId = args->positional[1];
    symbolize::FetchKind kind = symbolize::FetchKind::Debuginfo;
    if (const auto k = args->value("kind")) {
        if (*k == "executable")
            kind = symbolize::FetchKind::Executable;
        else if (*k != "debuginfo")
            return usageError("debuginfo fetch: --kind is debuginfo or executable, not '" + *k + "'");
    }
    auto options = debuginfodOptionsFrom(*args, &error);
    if (!options)
        return usageError("debuginfo fetch: " + error);
    symbolize::applyDebuginfodEnvironment(*options);
    auto client = symbolize::DebuginfodClient::create();
    if (!client)
        return inputError(buildId, client.error().message);
    StderrProgress progress("debuginfo fetch");
    progress.setStage(std::string("downloading ") + symbolize::fetchKindName(kind));
    const symbolize::FetchResult r = (*client)->fetch(buildId, kind, nullptr,
        [&](int64_t received, int64_t total) {
            progress.setProgress(static_cast<uint64_t>(std::max<int64_t>(0, received)),
                static_cast<uint64_t>(std::max<int64_t>(0, total)));
        });
    if (r.status != symbolize::FetchStatus::Found)
        return inputError(buildId, std::string(symbolize::fetchKindName(kind)) + " " + r.summary());
    std::printf("%s\n", r.path.c_str());
    return ExitOk;
}

} // namespace symflame::app
