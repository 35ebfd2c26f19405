// info, top and collapse: load the profile once, compute what is asked for in one pass, hand the
// result to its printer (app/printers/).
#include "app/cli.h"

#include "app/labelviewargs.h"

#include "app/cmdline.h"
#include "app/debuginfodargs.h"
#include "app/diffargs.h"
#include "app/output.h"
#include "app/printers/infoprinter.h"
#include "app/printers/topprinter.h"
#include "model/analysis/calltree.h"
#include "model/analysis/collapse.h"
#include "model/analysis/diff.h"
#include "model/analysis/toptable.h"
#include "model/core/frameformat.h"
#include "model/io/profileio.h"
#include "symbolize/pass/binarytriage.h"
#include "symbolize/pass/dwarfunwinder.h"
#include "symbolize/pass/symbolizationpass.h"

#include <algorithm>
#include <cstdio>

namespace symflame::app {

using namespace symflame::model;

const char* usageText()
{
    return "Usage: symflame [FILE...]\n"
           "       symflame info FILE [--profile N] [--json] [--symbolize] [--debug-dir D]... [--search-path D]...\n"
           "                [--path-map FROM=TO]... [--debuginfod URL]...\n"
           "       symflame top FILE... [-n N] [--sample-type T] [--profile N] [--json] [--diff-base BASE [--normalize] [--match M]]\n"
           "                    [LABEL OPTIONS]\n"
           "       symflame diff top|collapse BASE NEW [-n N] [--sample-type T] [--normalize] [--json]\n"
           "       symflame collapse FILE... [--sample-type T] [--profile N] [LABEL OPTIONS]\n"
           "       symflame symbolize IN -o OUT [--format otlp|pprof] [--profile N] [--debug-dir D]...\n"
           "                [--search-path D]... [--path-map FROM=TO]... [--source-map-dir D]...\n"
           "                [--json-report] [--debuginfod URL]... [--offline] [--isolate=none|downloaded|all]\n"
           "       symflame source FILE FUNC_RE [--sample-type T] [--profile N] [--source-dir D]...\n"
           "                [--path-map FROM=TO]... [--source-map-dir D]... [--debug-dir D]... [--search-path D]...\n"
           "                [--json]\n"
           "       symflame disasm FILE FUNC_RE [--sample-type T] [--profile N] [--intel] [--debug-dir D]...\n"
           "                [--search-path D]... [--path-map FROM=TO]... [--json]\n"
           "       symflame lookup --obj BIN [--output-style=LLVM|JSON] [--debug-dir D]... [--isolate=...] [ADDR...]\n"
           "       symflame debuginfo fetch BUILDID [--kind debuginfo|executable] [--debuginfod URL]...\n"
           "       symflame debuginfo check BIN... [--debug-dir D]... [--search-path D]... [--json]\n"
           "       symflame render FILE -o OUT.png|OUT.svg [--width W] [--height H] [--scale S] [--sample-type T]\n"
           "                [--profile N] [--color-by name|binary|status|type] [--search RE] [--focus FUNC]\n"
           "                [LABEL OPTIONS]\n"
           "       symflame --help | --version\n"
           "\n"
           "With no command, opens the viewer (on FILE when given; several files are merged into\n"
           "one profile, as by top). FILE is a pprof profile, OpenTelemetry profiles (OTLP protobuf,\n"
           "an export request body, OTLP JSON, or a Collector file of many requests), a V8\n"
           ".cpuprofile (node --cpu-prof) or a legacy profile go tool pprof reads (gperftools'\n"
           "CPUPROFILE= and HEAPPROFILE= files, contention, thread, goroutine and Java text),\n"
           "gzip- or zstd-compressed or not.\n"
           "\n"
           "Commands:\n"
           "  info      sample types, sample count, time, mappings and how many of their\n"
           "            locations are symbolized; then one row per binary as the viewer's\n"
           "            binaries panel shows it: status and why, self and total share, locations\n"
           "            symbolized, build ID and path (looked up locally, as symbolize does;\n"
           "            debuginfod only with --debuginfod; frames named from symbol tables, the\n"
           "            DWARF found but not read, unless --symbolize); for perf.data recorded with -g, the\n"
           "            share of samples with truncated stacks and the binaries they stop in\n"
           "  top       the functions with the most flat value, as `go tool pprof -top` lists them\n"
           "  collapse  folded stacks, one \"root;caller;leaf value\" line per distinct stack\n"
           "  symbolize names the native frames of IN from local binaries and debug files and\n"
           "            writes the result to OUT (pprof; never IN); prints per mapping: path,\n"
           "            build ID, status, debug info source, locations resolved/total; resolves\n"
           "            JavaScript frames through source maps, one line per script\n"
           "  source    the source of the functions FUNC_RE matches with the flat and cum cost of\n"
           "            every line, as `go tool pprof -list` prints it (inlined callees on their own\n"
           "            lines and at their call sites); FILE is symbolized first when it needs it\n"
           "            (locally; debuginfod only with --debuginfod)\n"
           "  disasm    the instructions of the functions with samples FUNC_RE matches, each with\n"
           "            its flat and cum cost and source line, as `go tool pprof -disasm` prints them\n"
           "            (LLVM's disassembler, AT&T or --intel syntax; calls named)\n"
           "  lookup    symbolizes addresses of BIN (from stdin when none are given) as\n"
           "            `llvm-symbolizer --obj BIN` does, in its LLVM or JSON layout\n"
           "  render    draws the flame graph to an image (PNG, or SVG for OUT.svg), colored by\n"
           "            function name, binary, symbolization status or frame type, with the\n"
           "            frames matching RE highlighted or only the stacks through FUNC; needs no\n"
           "            display\n"
           "  debuginfo fetch  downloads the debug file (or executable) with BUILDID from the\n"
           "            debuginfod servers, verifies it and prints its local path\n"
           "  debuginfo check  what each BIN holds for symbolization (build IDs, DWARF, symbol\n"
           "            tables, gopclntab, debug links) and which debug info would be used; exit 0\n"
           "            when every BIN symbolizes with lines, 1 when one does not\n"
           "\n"
           "Options:\n"
           "  --json             machine-readable output (info, top)\n"
           "  --format F         symbolize: write otlp or pprof (default: the input's format)\n"
           "  -n N               how many functions top lists (default 20, 0 = all)\n"
           "  --diff-base BASE   top: new minus BASE per function, as `go tool pprof -diff_base`\n"
           "                     (functions matched by name, so a rebuilt binary compares; shares\n"
           "                     of BASE's total)\n"
           "  --normalize        top --diff-base: scale FILE to BASE's total first (pprof's -normalize)\n"
           "  --match M          comparing: frames are the same by function (default), file (function\n"
           "                     and source file) or line (function, file and line)\n"
           "  --sample-type T    a sample type name (\"cpu\", \"samples\", \"alloc_space\") or its\n"
           "                     index; default: the profile's default sample type\n"
           "  --profile N        for files of several profiles (OTLP): only profile N (`info` lists\n"
           "                     them); default: all of them, merged, their sample types side by side\n"
           "  -o, --output OUT   image file to write (render; PNG unless OUT ends in .jpg or .bmp),\n"
           "                     profile to write (symbolize)\n"
           "  --debug-dir D      symbolize, info: look for <D>/.build-id/xx/yyyy.debug and debuglink\n"
           "                     files under D before /usr/lib/debug (repeatable)\n"
           "  --search-path D    symbolize, info: find binaries and debug files under D by build ID\n"
           "                     (scanned recursively; repeatable). A D (or --debug-dir D) laid out\n"
           "                     by build ID (D/<build-id>/debuginfo, /executable: Parca's store,\n"
           "                     parca-debuginfo's output) is used by build ID without a scan\n"
           "  --no-client-cache  symbolize, info: don't read the debuginfod client cache\n"
           "                     ($DEBUGINFOD_CACHE_PATH, else ~/.cache/debuginfod_client), which\n"
           "                     is otherwise read offline too\n"
           "  --path-map A=B     symbolize, info: read recorded paths under A from B (repeatable)\n"
           "  --symbolize        info: fill the binaries table with a full symbolization (the DWARF\n"
           "                     read too: lines, and a debug file the reader fails on), not triage\n"
           "  --source-map-dir D symbolize: look for <script name>.map under D, and allow a\n"
           "                     sourceMappingURL to point into D (repeatable)\n"
           "  --json-report      symbolize: print the per-mapping report as a JSON array (scripts\n"
           "                     after the mappings, then debuginfod servers given up)\n"
           "  --debuginfod URL   symbolize, debuginfo, info: ask this debuginfod server for binaries\n"
           "                     and debug files not found locally (repeatable; default for\n"
           "                     symbolize and debuginfo: the servers in $DEBUGINFOD_URLS; info asks\n"
           "                     none unless given)\n"
           "  --offline          contact no debuginfod server (even when $DEBUGINFOD_URLS is set)\n"
           "  --debuginfod-timeout S  give up a server that sends nothing for S seconds\n"
           "                     for the rest of the run ($DEBUGINFOD_TIMEOUT, else 10)\n"
           "  --debuginfod-cache D    the client cache (default: the one gdb and perf share)\n"
           "  --downloads N      symbolize: downloads at once (default 4)\n"
           "  --isolate P        symbolize, lookup, info: which binaries are read in a worker\n"
           "                     process, so that a debug file that crashes or hangs the DWARF\n"
           "                     reader fails only that binary: none, downloaded (default: files\n"
           "                     from debuginfod servers) or all\n"
           "  --isolate-timeout S  a worker that sends nothing for S seconds is stopped and its\n"
           "                     binary fails (default 60)\n"
           "  --width W          image width in pixels (render; default 1600)\n"
           "  --color-by C       render: color frames by name (default), binary, status or type\n"
           "  --search RE        render: highlight the frames whose function, file or binary\n"
           "                     matches the regular expression RE (RE2 syntax), dim the rest\n"
           "  --focus FUNC       render: only the stacks through function FUNC\n"
           "  --height H         image height in pixels (render; default: tall enough for all rows)\n"
           "  --scale S          render: pixels per unit of a PNG (2: twice the pixels each way,\n"
           "                     text and all, for a high-density screen; default 1)\n"
           "  -h, --help         this text\n"
           "  --version          the version\n"
           "\n"
           "LABEL OPTIONS (top, collapse, render, symbolize), as pprof's -tagroot, -tagleaf, -tagfocus,\n"
           "-tagignore; a label a sample lacks is taken from the profile's attributes:\n"
           "  --group-by K[,K]   a frame per label key at the root of every stack, named by the\n"
           "                     sample's value (\"<unknown>\" without one), the first key outermost\n"
           "  --group-leaf K[,K] the same at the leaf\n"
           "  --tag-focus F      keeps the samples F matches (repeatable: all must): KEY=RE[,RE]\n"
           "                     (a value of label KEY matches an RE), RE[,RE] (each matches some\n"
           "                     \"key:value\"), or [KEY=]N, N:, :N, N:M for numeric labels (4kb, 10ms)\n"
           "  --tag-ignore F     drops the samples F matches (repeatable)\n"
           "  --time-range S,E   keeps the samples with a timestamp in [S, E): offsets from the\n"
           "                     profile's start (1.5s, 200ms; E empty: to the end) or nanoseconds\n"
           "                     since the epoch\n"
           "\n"
           "Exit status: 0 success, 1 no display for the viewer, 2 unreadable or invalid input\n"
           "or unwritable output, 64 bad command line.\n";
}

bool isHeadlessCommand(std::string_view name)
{
    return name == "info" || name == "top" || name == "collapse";
}

bool parseProfileOption(const ParsedArgs& args, std::optional<size_t>* index, std::string* error)
{
    const auto value = args.value("profile");
    if (!value)
        return true;
    const auto n = parseCount(*value);
    if (!n) {
        *error = "--profile wants a profile number (0, 1, ...; `symflame info FILE` lists them), not '" + *value + "'";
        return false;
    }
    *index = static_cast<size_t>(*n);
    return true;
}

std::optional<size_t> selectSampleType(
    const Profile& profile, const std::optional<std::string>& requested, const std::string& path, int* exitCode)
{
    const size_t count = profile.sampleTypes.size();
    if (!requested)
        return std::min(profile.defaultSampleType, count == 0 ? size_t(0) : count - 1);
    const int byName = profile.findSampleType(*requested);
    if (byName >= 0)
        return static_cast<size_t>(byName);
    if (const auto index = parseCount(*requested); index && static_cast<uint64_t>(*index) < count)
        return static_cast<size_t>(*index);
    std::string available;
    for (size_t i = 0; i < count; ++i) {
        if (i)
            available += ", ";
        available += profile.str(profile.sampleTypes[i].type);
    }
    if (available.empty())
        available = "none";
    *exitCode = usageError("no sample type '" + *requested + "' in " + path + " (it has: " + available + ")");
    return std::nullopt;
}

namespace {

// Loads the file, printing the error line when it fails.
std::optional<Profile> load(
    const std::string& path, const LoadOptions& options, int* exitCode, ProfileFormat* format = nullptr)
{
    auto result = loadProfile(path, options, nullptr, format);
    if (!result) {
        const Error& e = result.error();
        *exitCode = inputError(e.path.empty() ? path : e.path, e.message);
        return std::nullopt;
    }
    return std::move(result).value();
}

// Loads the files, merged into one profile when there are several (loadProfiles), printing the
// error line when one fails or they do not merge.
std::optional<Profile> loadMerged(const std::vector<std::string>& paths, const LoadOptions& options, int* exitCode)
{
    auto result = loadProfiles(paths, options);
    if (!result) {
        const Error& e = result.error();
        *exitCode = inputError(e.path.empty() ? paths[0] : e.path, e.message);
        return std::nullopt;
    }
    return std::move(result).value();
}

std::string describePaths(const std::vector<std::string>& paths)
{
    return paths.size() == 1 ? paths[0] : paths[0] + " and " + std::to_string(paths.size() - 1) + " more";
}

int runInfo(
    const std::string& path, const LoadOptions& loadOptions, bool json, const symbolize::SymbolizeOptions& options)
{
    int rc = ExitOk;
    ProfileFormat format = ProfileFormat::Unknown;
    auto profile = load(path, loadOptions, &rc, &format);
    if (!profile)
        return rc;
    const Profile& p = *profile;

    InfoResult info;
    info.path = path;
    info.format = format;
    info.profile = &p;
    info.counts.resize(p.mappings.size());
    for (const Location& loc : p.locations) {
        if (!loc.mapping.valid() || loc.mapping.index() >= info.counts.size())
            continue;
        auto& c = info.counts[loc.mapping.index()];
        ++c.locations;
        c.symbolized += loc.status == FrameStatus::Symbolized;
    }
    const bool hasTypes = !p.sampleTypes.empty();
    const size_t defaultType = hasTypes ? std::min(p.defaultSampleType, p.sampleTypes.size() - 1) : 0;

    // The binaries panel's rows: a symbolization pass over a copy (for its report only; the
    // counts above are of the file as it is); triage unless options ask for the DWARF.
    info.binariesTotal = hasTypes ? p.totalValue(defaultType) : 0;
    if (!p.mappings.empty()) {
        Profile copy = p;
        auto report = [&] {
            StderrProgress progress("info");
            return symbolize::symbolizeProfile(copy, options, &progress);
        }();
        if (!report)
            return inputError(path, report.error().message);
        info.binaries = symbolize::triageBinaries(copy, &*report, defaultType);
        info.truncated = report->truncatedStacks;
    }

    Output out;
    if (json)
        printInfoJson(out, info);
    else
        printInfoText(out, info);
    return ExitOk;
}

int runTop(const std::vector<std::string>& paths, const LoadOptions& options, int64_t count,
    const std::optional<std::string>& sampleTypeArg, bool json, const ParsedArgs& args)
{
    int rc = ExitOk;
    auto profile = loadMerged(paths, options, &rc);
    if (!profile)
        return rc;
    // --diff-base BASE: new minus base, as `go tool pprof -top -diff_base BASE` (percentages of
    // BASE's total, as pprof's).
    std::optional<std::vector<int64_t>> baseTotals;
    if (const auto basePath = args.value("diff-base")) {
        auto base = loadMerged({ *basePath }, options, &rc);
        if (!base)
            return rc;
        std::string error;
        const auto diffOptions = diffOptionsFrom(args, &error);
        if (!diffOptions)
            return usageError("top: " + error);
        auto diff = diffProfiles(std::move(*base), std::move(*profile), *diffOptions);
        if (!diff)
            return inputError(describePaths(paths), diff.error().message);
        profile = std::move(diff->profile);
        baseTotals = std::move(diff->baseTotals);
    } else if (args.has("normalize") || args.has("match")) {
        return usageError("top: --normalize and --match are for comparing, with a --diff-base; give one");
    }
    const auto type = selectSampleType(*profile, sampleTypeArg, describePaths(paths), &rc);
    if (!type)
        return rc;
    // Percentages are of the whole profile, before the label options drop samples.
    const bool hasTypes = !profile->sampleTypes.empty();
    const int64_t whole = !hasTypes ? 0 : baseTotals ? (*baseTotals)[*type] : profile->totalValue(*type);
    const size_t samplesBefore = profile->sampleCount();
    if (!applyLabelViewOptions(args, *profile, &rc))
        return rc;
    const Profile& p = *profile;

    TopResult top;
    top.hasTypes = !p.sampleTypes.empty();
    std::vector<TopEntry> entries;
    SymbolTable symbols;
    if (top.hasTypes) {
        top.sampleType = p.str(p.sampleTypes[*type].type);
        top.unit = p.str(p.sampleTypes[*type].unit);
        symbols = SymbolTable::build(p);
        entries = topFunctions(p, symbols, *type);
        top.total = whole;
        if (p.sampleCount() != samplesBefore)
            top.kept = p.totalValue(*type);
    }
    top.functions = entries.size();
    const size_t shown = count == 0 ? entries.size() : std::min(entries.size(), static_cast<size_t>(count));
    top.rows.reserve(shown);
    for (size_t i = 0; i < shown; ++i)
        top.rows.push_back({ symbols.displayName(entries[i].symbol), entries[i].flat, entries[i].cum });

    Output out;
    if (json)
        printTopJson(out, top);
    else
        printTopText(out, top);
    return ExitOk;
}

int runCollapse(const std::vector<std::string>& paths, const LoadOptions& options,
    const std::optional<std::string>& sampleTypeArg, const ParsedArgs& args)
{
    int rc = ExitOk;
    auto profile = loadMerged(paths, options, &rc);
    if (!profile || !applyLabelViewOptions(args, *profile, &rc))
        return rc;
    const auto type = selectSampleType(*profile, sampleTypeArg, describePaths(paths), &rc);
    if (!type)
        return rc;
    if (profile->sampleTypes.empty())
        return ExitOk;
    const SymbolTable symbols = SymbolTable::build(*profile);
    const std::string folded = collapseStacks(*profile, symbols, *type);
    std::fwrite(folded.data(), 1, folded.size(), stdout);
    std::fflush(stdout);
    return ExitOk;
}

} // namespace

int runHeadlessCommand(std::string_view command, int argc, char** argv)
{
    static constexpr OptionSpec kInfo[] = { { "json", 0, false }, { "profile", 0, true }, { "help", 'h', false },
        { "debug-dir", 0, true }, { "search-path", 0, true }, { "path-map", 0, true }, { "debuginfod", 0, true },
        { "offline", 0, false }, { "no-client-cache", 0, false }, { "debuginfod-timeout", 0, true }, { "debuginfod-cache", 0, true },
        { "downloads", 0, true }, { "isolate", 0, true }, { "isolate-timeout", 0, true },
        { "symbolize", 0, false } };
    static constexpr OptionSpec kTop[] = { { "json", 0, false }, { "nodes", 'n', true }, { "sample-type", 0, true },
        { "profile", 0, true }, { "help", 'h', false }, { "diff-base", 0, true }, { "normalize", 0, false }, { "match", 0, true }, kLabelViewOptionSpecs[0], kLabelViewOptionSpecs[1],
        kLabelViewOptionSpecs[2], kLabelViewOptionSpecs[3], kLabelViewOptionSpecs[4] };
    static constexpr OptionSpec kCollapse[] = { { "sample-type", 0, true }, { "profile", 0, true },
        { "help", 'h', false }, kLabelViewOptionSpecs[0], kLabelViewOptionSpecs[1], kLabelViewOptionSpecs[2],
        kLabelViewOptionSpecs[3], kLabelViewOptionSpecs[4] };
    const std::span<const OptionSpec> specs = command == "info" ? std::span<const OptionSpec>(kInfo)
        : command == "top"                                      ? std::span<const OptionSpec>(kTop)
                                                                : std::span<const OptionSpec>(kCollapse);
    std::string error;
    const auto args = parseArgs(std::span<char* const>(argv, static_cast<size_t>(argc)), specs, &error);
    if (!args)
        return usageError(std::string(command) + ": " + error);
    if (args->has("help")) {
        std::fputs(usageText(), stdout);
        return ExitOk;
    }
    if (args->positional.empty())
        return usageError(std::string(command) + ": missing FILE");
    // top and collapse merge several files; info describes one.
    if (command == "info" && args->positional.size() > 1)
        return usageError(std::string(command) + ": unexpected argument '" + args->positional[1] + "'");
    const std::string& path = args->positional[0];
    LoadOptions options;
    if (!parseProfileOption(*args, &options.profileIndex, &error))
        return usageError(std::string(command) + ": " + error);
    options.perfUnwinder = symbolize::dwarfUnwinderFactory();

    if (command == "info") {
        symbolize::SymbolizeOptions symOptions;
        auto debuginfod = debuginfodOptionsFrom(*args, &error);
        if (!debuginfod)
            return usageError("info: " + error);
        symOptions.debuginfod = std::move(*debuginfod);
        // Looking at a profile contacts no server unless asked to.
        if (!args->has("debuginfod"))
            symOptions.debuginfod.offline = true;
        if (!isolationOptionsFrom(*args, &symOptions.isolation, &error))
            return usageError("info: " + error);
        if (args->has("no-client-cache"))
            symOptions.locator.useClientCache = false;
        // Triage, not symbolization, unless asked: the debug info is located and checked, frames
        // are named from symbol tables (reading a big binary's DWARF is most of a symbolize run).
        symOptions.symbolTablesOnly = !args->has("symbolize");
        for (const auto& [name, value] : args->options) {
            if (name == "debug-dir") {
                symOptions.locator.debugDirs.push_back(value);
            } else if (name == "search-path") {
                symOptions.locator.searchDirs.push_back(value);
            } else if (name == "path-map") {
                auto map = symbolize::parsePathMap(value);
                if (!map)
                    return usageError("info: --path-map: " + map.error().message);
                symOptions.locator.pathMaps.push_back(std::move(map).value());
            }
        }
        options.perfUnwinder = symbolize::dwarfUnwinderFactory(symOptions.locator);
        return runInfo(path, options, args->has("json"), symOptions);
    }
    if (command == "top") {
        int64_t count = 20;
        if (const auto n = args->value("nodes")) {
            const auto parsed = parseCount(*n);
            if (!parsed)
                return usageError("top: -n wants a count (0 = all), not '" + *n + "'");
            count = *parsed;
        }
        return runTop(args->positional, options, count, args->value("sample-type"), args->has("json"), *args);
    }
    return runCollapse(args->positional, options, args->value("sample-type"), *args);
}

} // namespace symflame::app
