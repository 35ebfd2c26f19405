// The symbolize command: parse, load, symbolize in place, save atomically, report per mapping.
#include "app/symbolizecmd.h"

#include "app/cli.h"
#include "app/cmdline.h"
#include "app/debuginfodargs.h"
#include "app/output.h"
#include "model/io/profileio.h"
#include "symbolize/pass/symbolizationpass.h"

#include <cstdio>
#include <filesystem>
#include <iterator>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace symflame::app {

namespace {

void printTextReport(const symbolize::SymbolizeReport& report)
{
    Output out;
    for (const auto& m : report.mappings)
        out << m.line() << '\n';
    for (const auto& s : report.sourceMaps.scripts)
        out << s.line() << '\n';
}

void printJsonReport(const model::Profile& profile, const symbolize::SymbolizeReport& report)
{
    Output out;
    out << '[';
    bool first = true;
    for (const auto& m : report.mappings) {
        const size_t index = m.mapping.valid() ? m.mapping.index() : 0;
        const uint64_t id = m.mapping.valid() && index < profile.mappings.size() && profile.mappings[index].sourceId
            ? profile.mappings[index].sourceId
            : uint64_t(index + 1);
        out << (first ? "{\"id\":" : ",{\"id\":") << id;
        first = false;
        out << ",\"path\":";
        out.jsonString(m.path);
        out << ",\"build_id\":";
        out.jsonString(m.buildId);
        out << ",\"status\":";
        out.jsonString(symbolize::locateStatusName(m.status));
        out << ",\"source\":";
        out.jsonString(symbolize::debugSourceName(m.source));
        out << ",\"unverified\":" << (m.unverified ? "true" : "false") << ",\"binary_path\":";
        out.jsonString(m.binaryPath);
        out << ",\"debug_path\":";
        out.jsonString(m.debugPath);
        out << ",\"summary\":";
        out.jsonString(m.summary);
        out << ",\"engine_detail\":";
        out.jsonString(m.engineDetail);
        out << ",\"error\":";
        out.jsonString(m.error);
        out << ",\"debuginfod\":";
        out.jsonString(m.debuginfod);
        out << ",\"locations\":" << m.locations << ",\"resolved\":" << m.resolved << ",\"tried\":";
        out.jsonStringArray(m.tried);
        out << ",\"dwarf_warnings\":" << uint64_t(m.dwarfWarnings) << '}';
    }
    for (const auto& s : report.sourceMaps.scripts) {
        out << (first ? "{\"script\":" : ",{\"script\":");
        first = false;
        out.jsonString(s.script);
        out << ",\"status\":";
        out.jsonString(s.mapped ? "source-mapped" : "no source map");
        out << ",\"map\":";
        out.jsonString(s.mapPath);
        out << ",\"reason\":";
        out.jsonString(s.reason);
        out << ",\"locations\":" << s.locations << ",\"resolved\":" << s.resolved << ",\"tried\":";
        out.jsonStringArray(s.tried) << '}';
    }
    out << "]\n";
}

// Same file test before the (possibly long) pass; saveProfile checks again when writing.
bool sameExistingFile(const std::string& a, const std::string& b)
{
    std::error_code ec;
    return std::filesystem::exists(b, ec) && std::filesystem::equivalent(a, b, ec) && !ec;
}

} // namespace

int runSymbolizeCommand(int argc, char** argv)
{
    std::vector<OptionSpec> specs = {
        { "output", 'o', true },
        { "debug-dir", 0, true },
        { "search-path", 0, true },
        { "path-map", 0, true },
        { "source-map-dir", 0, true },
        { "json-report", 0, false },
        { "format", 0, true },
        { "profile", 0, true },
        { "help", 'h', false },
    };
    specs.insert(specs.end(), std::begin(kDebuginfodOptionSpecs), std::end(kDebuginfodOptionSpecs));
    specs.insert(specs.end(), std::begin(kIsolationOptionSpecs), std::end(kIsolationOptionSpecs));
    std::string error;
    const auto args = parseArgs(std::span<char* const>(argv, static_cast<size_t>(argc)), specs, &error);
    if (!args)
        return usageError("symbolize: " + error);
    if (args->has("help")) {
        std::fputs(usageText(), stdout);
        return ExitOk;
    }
    if (args->positional.empty())
        return usageError("symbolize: missing IN");
    if (args->positional.size() > 1)
        return usageError("symbolize: unexpected argument '" + args->positional[1] + "'");
    const std::string& inPath = args->positional[0];
    const auto outPath = args->value("output");
    if (!outPath || outPath->empty())
        return usageError("symbolize: missing -o OUT");

    std::optional<model::ProfileFormat> outFormat;
    if (const auto f = args->value("format")) {
        if (*f == "otlp")
            outFormat = model::ProfileFormat::Otlp;
        else if (*f == "pprof")
            outFormat = model::ProfileFormat::Pprof;
        else
            return usageError("symbolize: --format wants otlp or pprof, not '" + *f + "'");
    }
    model::LoadOptions loadOptions;
    if (!parseProfileOption(*args, &loadOptions.profileIndex, &error))
        return usageError("symbolize: " + error);

    symbolize::SymbolizeOptions options;
    auto debuginfod = debuginfodOptionsFrom(*args, &error);
    if (!debuginfod)
        return usageError("symbolize: " + error);
    options.debuginfod = std::move(*debuginfod);
    if (!isolationOptionsFrom(*args, &options.isolation, &error))
        return usageError("symbolize: " + error);
    for (const auto& [name, value] : args->options) {
        if (name == "debug-dir") {
            options.locator.debugDirs.push_back(value);
        } else if (name == "source-map-dir") {
            options.sourceMapDirs.push_back(value);
        } else if (name == "search-path") {
            options.locator.searchDirs.push_back(value);
        } else if (name == "path-map") {
            auto map = symbolize::parsePathMap(value);
            if (!map)
                return usageError("symbolize: --path-map: " + map.error().message);
            options.locator.pathMaps.push_back(std::move(map).value());
        }
    }
    // The input is pprof, and pprof's producers write non-leaf addresses that already point into
    // the call instruction: runtime/pprof writes call-site PCs, gperftools profiles reach pprof
    // through `pprof -proto`, whose legacy-format reader has already subtracted 1 from every
    // non-leaf address, and Parca Agent subtracts 1 too. So they are looked up as they are;
    // subtracting again could name the wrong line, or at a call right after a function's entry
    // the wrong function. tst_symbolizecli checks the gperftools fixture line by line against
    // binutils' answers (upstream pprof's -symbolize=local on the same run).
    options.nonLeafAddressesAreReturnAddresses = false;

    if (sameExistingFile(inPath, *outPath))
        return inputError(*outPath, "refusing to overwrite the input file");

    model::ProfileFormat inFormat = model::ProfileFormat::Unknown;
    auto loaded = model::loadProfile(inPath, loadOptions, nullptr, &inFormat);
    if (!loaded) {
        const model::Error& e = loaded.error();
        return inputError(e.path.empty() ? inPath : e.path, e.message);
    }
    model::Profile profile = std::move(loaded).value();

    auto report = [&] {
        StderrProgress progress("symbolize"); // its line is cleared before the report prints
        return symbolize::symbolizeProfile(profile, options, &progress);
    }();
    if (!report)
        return inputError(inPath, report.error().message);

    // OTLP in, OTLP out (protobuf, also for OTLP JSON input), unless --format says otherwise.
    const model::ProfileFormat writeAs = outFormat ? *outFormat
        : (inFormat == model::ProfileFormat::Otlp || inFormat == model::ProfileFormat::OtlpJson)
        ? model::ProfileFormat::Otlp
        : model::ProfileFormat::Pprof;
    const model::Status saved = model::saveProfile(profile, *outPath, writeAs, inPath);
    if (!saved) {
        const model::Error& e = saved.error();
        return inputError(e.path.empty() ? *outPath : e.path, e.message);
    }

    if (args->has("json-report"))
        printJsonReport(profile, *report);
    else
        printTextReport(*report);
    return ExitOk;
}

} // namespace symflame::app
