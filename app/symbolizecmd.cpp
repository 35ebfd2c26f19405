// The symbolize command: parse, load, symbolize in place, save atomically, report per mapping.
#include "app/symbolizecmd.h"

#include "app/labelviewargs.h"

#include "app/cli.h"
#include "app/cmdline.h"
#include "app/debuginfodargs.h"
#include "app/output.h"
#include "app/printers/reportprinter.h"
#include "model/io/profileio.h"
#include "symbolize/pass/dwarfunwinder.h"
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
        { "no-client-cache", 0, false },
        { "path-map", 0, true },
        { "source-map-dir", 0, true },
        { "json-report", 0, false },
        { "format", 0, true },
        { "profile", 0, true },
        { "help", 'h', false },
    };
    specs.insert(specs.end(), std::begin(kDebuginfodOptionSpecs), std::end(kDebuginfodOptionSpecs));
    specs.insert(specs.end(), std::begin(kIsolationOptionSpecs), std::end(kIsolationOptionSpecs));
    specs.insert(specs.end(), std::begin(kLabelViewOptionSpecs), std::end(kLabelViewOptionSpecs));
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
    if (args->has("no-client-cache"))
        options.locator.useClientCache = false;
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
    loadOptions.perfUnwinder = symbolize::dwarfUnwinderFactory(options.locator);
    auto loaded = model::loadProfile(inPath, loadOptions, nullptr, &inFormat);
    if (!loaded) {
        const model::Error& e = loaded.error();
        return inputError(e.path.empty() ? inPath : e.path, e.message);
    }
    model::Profile profile = std::move(loaded).value();
    // Label options choose (and group) the samples written, from the profile as read.
    int rc = ExitOk;
    if (!applyLabelViewOptions(*args, profile, &rc))
        return rc;

    auto report = [&] {
        StderrProgress progress("symbolize"); // its line is cleared before the report prints
        return symbolize::symbolizeProfile(profile, options, &progress);
    }();
    if (!report)
        return inputError(inPath, report.error().message);

    // OTLP in, OTLP out (protobuf, also for OTLP JSON and Collector files: the profile read),
    // unless --format says otherwise.
    const bool otlpIn = inFormat == model::ProfileFormat::Otlp || inFormat == model::ProfileFormat::OtlpJson
        || inFormat == model::ProfileFormat::OtlpCollectorJson || inFormat == model::ProfileFormat::OtlpCollectorProto;
    const model::ProfileFormat writeAs = outFormat ? *outFormat
        : otlpIn                                   ? model::ProfileFormat::Otlp
                                                   : model::ProfileFormat::Pprof;
    const model::Status saved = model::saveProfile(profile, *outPath, writeAs, inPath);
    if (!saved) {
        const model::Error& e = saved.error();
        return inputError(e.path.empty() ? *outPath : e.path, e.message);
    }

    Output out;
    if (args->has("json-report"))
        printSymbolizeReportJson(out, profile, *report);
    else
        printSymbolizeReportText(out, *report);
    return ExitOk;
}

} // namespace symflame::app
