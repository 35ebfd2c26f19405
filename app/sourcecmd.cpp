#include "app/sourcecmd.h"

#include "app/cli.h"
#include "app/cmdline.h"
#include "app/debuginfodargs.h"
#include "app/output.h"
#include "app/printers/sourceprinter.h"
#include "model/analysis/sourcelines.h"
#include "model/io/profileio.h"
#include "symbolize/js/sourcemapresolver.h"
#include "symbolize/locate/debuginfodclient.h"
#include "symbolize/locate/sourcefiles.h"
#include "symbolize/object/addressnormalizer.h"
#include "symbolize/object/elffile.h"
#include "symbolize/pass/sourcecheck.h"
#include "symbolize/pass/symbolizationpass.h"

#include <cstdio>
#include <iterator>
#include <memory>
#include <optional>
#include <unordered_map>
#include <unordered_set>

namespace symflame::app {

namespace {

// Whether a symbolization pass could name something: a location in a binary, not named yet, or
// a JavaScript frame its script's source map may map.
bool needsSymbolization(const model::Profile& p)
{
    for (const model::Location& loc : p.locations)
        if (loc.status == model::FrameStatus::BinaryOnly || symbolize::isMappableJavaScriptFrame(p, loc))
            return true;
    return false;
}

// The binary, debug file and ELF address of a function's first location, for the check that its
// source file is the one built: from this run's symbolization report when there is one, else the
// mapping's recorded file when it is on this machine.
symbolize::SourceBuild sourceBuildOf(
    const model::Profile& p, const model::FunctionLines& f, const symbolize::SymbolizeReport* report)
{
    symbolize::SourceBuild build;
    if (!f.location.valid() || f.location.index() >= p.locations.size())
        return build;
    const model::Location& loc = p.locations[f.location.index()];
    if (!loc.mapping.valid() || loc.mapping.index() >= p.mappings.size())
        return build;
    const model::Mapping& m = p.mappings[loc.mapping.index()];
    build.binary = std::string(p.str(m.file));
    if (report && loc.mapping.index() < report->mappings.size()) {
        const symbolize::MappingReport& r = report->mappings[loc.mapping.index()];
        if (!r.binaryPath.empty())
            build.binary = r.binaryPath;
        build.debugFile = r.debugPath;
    }
    auto elf = symbolize::ElfFile::open(build.binary);
    if (!elf)
        return symbolize::SourceBuild {};
    if (build.debugFile.empty())
        build.debugFile = build.binary;
    const auto normalizer = symbolize::AddressNormalizer::create(
        **elf, symbolize::mappingRangeOf(m, p.str(m.file)));
    build.address = normalizer ? normalizer->toElfAddress(loc.address) : loc.address;
    return build;
}

} // namespace

int runSourceCommand(int argc, char** argv)
{
    std::vector<OptionSpec> specs = {
        { "json", 0, false },
        { "sample-type", 0, true },
        { "profile", 0, true },
        { "source-dir", 0, true },
        { "source-map-dir", 0, true },
        { "path-map", 0, true },
        { "debug-dir", 0, true },
        { "search-path", 0, true },
        { "no-client-cache", 0, false },
        { "help", 'h', false },
    };
    specs.insert(specs.end(), std::begin(kDebuginfodOptionSpecs), std::end(kDebuginfodOptionSpecs));
    specs.insert(specs.end(), std::begin(kIsolationOptionSpecs), std::end(kIsolationOptionSpecs));
    std::string error;
    const auto args = parseArgs(std::span<char* const>(argv, static_cast<size_t>(argc)), specs, &error);
    if (!args)
        return usageError("source: " + error);
    if (args->has("help")) {
        std::fputs(usageText(), stdout);
        return ExitOk;
    }
    if (args->positional.size() < 2)
        return usageError(args->positional.empty() ? "source: missing PROFILE" : "source: missing FUNC_RE");
    if (args->positional.size() > 2)
        return usageError("source: unexpected argument '" + args->positional[2] + "'");
    const std::string& path = args->positional[0];
    const std::string& pattern = args->positional[1];
    model::LoadOptions loadOptions;
    if (!parseProfileOption(*args, &loadOptions.profileIndex, &error))
        return usageError("source: " + error);

    symbolize::SymbolizeOptions options;
    auto debuginfod = debuginfodOptionsFrom(*args, &error);
    if (!debuginfod)
        return usageError("source: " + error);
    options.debuginfod = std::move(*debuginfod);
    if (!args->has("debuginfod")) // as info: no server unless asked
        options.debuginfod.offline = true;
    if (!isolationOptionsFrom(*args, &options.isolation, &error))
        return usageError("source: " + error);
    if (args->has("no-client-cache"))
        options.locator.useClientCache = false;
    options.nonLeafAddressesAreReturnAddresses = false; // pprof's convention, as symbolize's
    symbolize::SourceSearch search;
    for (const auto& [name, value] : args->options) {
        if (name == "debug-dir") {
            options.locator.debugDirs.push_back(value);
        } else if (name == "search-path") {
            options.locator.searchDirs.push_back(value);
        } else if (name == "source-map-dir") {
            options.sourceMapDirs.push_back(value);
        } else if (name == "source-dir") {
            search.sourceDirs.push_back(value);
        } else if (name == "path-map") {
            auto map = symbolize::parsePathMap(value);
            if (!map)
                return usageError("source: --path-map: " + map.error().message);
            options.locator.pathMaps.push_back(*map);
            search.pathMaps.push_back(std::move(map).value());
        }
    }

    auto loaded = model::loadProfile(path, loadOptions);
    if (!loaded) {
        const model::Error& e = loaded.error();
        return inputError(e.path.empty() ? path : e.path, e.message);
    }
    model::Profile profile = std::move(loaded).value();
    int rc = ExitOk;
    const auto type = selectSampleType(profile, args->value("sample-type"), path, &rc);
    if (!type)
        return rc;
    symbolize::SourceMapReport sourceMaps; // the JavaScript frames' maps: their sourcesContent
    std::optional<symbolize::SymbolizeReport> symbolized;
    if (needsSymbolization(profile)) {
        auto report = [&] {
            StderrProgress progress("source");
            return symbolize::symbolizeProfile(profile, options, &progress);
        }();
        if (!report)
            return inputError(path, report.error().message);
        sourceMaps = std::move(report->sourceMaps);
        symbolized = std::move(report).value();
    }
    auto lines = model::sourceLines(profile, *type, pattern);
    if (!lines)
        return usageError("source: " + lines.error().message);
    if (lines->functions.empty())
        return inputError(path, "no function with source lines matches '" + pattern + "'");

    SourceResult result;
    result.total = lines->total;
    if (!profile.sampleTypes.empty()) {
        result.sampleType = std::string(profile.str(profile.sampleTypes[*type].type));
        result.unit = std::string(profile.str(profile.sampleTypes[*type].unit));
    }
    // With --debuginfod, a source not found here is asked of the servers by the binary's build ID.
    if (options.debuginfod.enabled())
        search.fetch = symbolize::debuginfodSourceFetcher(options.debuginfod);
    std::unordered_map<std::string, size_t> fileIndex; // each file read once
    for (model::FunctionLines& f : lines->functions) {
        const bool javaScript = f.location.valid() && f.location.index() < profile.locations.size()
            && profile.locations[f.location.index()].kind == model::FrameKind::JavaScript;
        auto [it, added] = fileIndex.try_emplace(f.file, result.files.size());
        if (added) {
            // A source-mapped JavaScript frame's original source: from its map's sourcesContent, else on disk.
            const symbolize::ScriptReport* script = f.location.valid() ? sourceMaps.scriptOf(f.location.index()) : nullptr;
            result.files.push_back(javaScript ? symbolize::findOriginalSource(f.file, sourceMaps, search, script)
                                              : symbolize::findSourceFile(f.file, search, f.buildId));
        }
        // A file that changed since the build: said once per file (JSON: per function).
        std::string warning;
        if (const symbolize::SourceFile& file = result.files[it->second]; file.found()) {
            int64_t lastLine = 0;
            for (const model::LineCost& l : f.lines)
                lastLine = std::max(lastLine, l.line);
            const symbolize::SourceBuild build
                = javaScript ? symbolize::SourceBuild {} : sourceBuildOf(profile, f, symbolized ? &*symbolized : nullptr);
            warning = symbolize::sourceChangeWarning(file, f.file, lastLine, build);
        }
        result.functions.push_back({ std::move(f), it->second, javaScript, std::move(warning) });
    }
    const bool json = args->has("json");
    if (!json) {
        std::unordered_set<std::string> said;
        for (const SourceResult::Function& fn : result.functions)
            if (!fn.warning.empty() && said.insert(fn.warning).second)
                std::fprintf(stderr, "symflame: warning: %s\n", fn.warning.c_str());
    }
    Output out;
    if (json)
        printSourceJson(out, result);
    else
        printSourceText(out, result);
    return ExitOk;
}

} // namespace symflame::app
