#include "app/debuginfocmd.h"

#include "app/cli.h"
#include "app/cmdline.h"
#include "app/debuginfodargs.h"
#include "app/output.h"
#include "app/printers/checkprinter.h"
#include "symbolize/pass/debuginfocheck.h"
#include "symbolize/locate/debuginfodclient.h"

#include <atomic>
#include <cstdio>
#include <iterator>
#include <vector>

namespace symflame::app {

namespace {

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
    Output out;
    CheckPrinter printer(out, args.has("json"));
    int exit = ExitOk;
    for (size_t i = 1; i < args.positional.size(); ++i) {
        const symbolize::BinaryCheck c = symbolize::checkBinary(args.positional[i], locator);
        printer.print(c);
        if (c.verdict == symbolize::CheckVerdict::Unreadable)
            exit = inputError(c.path, c.error); // the report says it too; stderr names the file
        else if (c.verdict != symbolize::CheckVerdict::Lines && exit == ExitOk)
            exit = ExitFailure;
    }
    printer.finish();
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
    Output out;
    out << r.path << '\n';
    return ExitOk;
}

} // namespace symflame::app
