// symflame: the viewer when run without a command, the headless tools with one.
#include "app/cli.h"
#include "app/cmdline.h"
#include "app/debuginfocmd.h"
#include "app/diffcmd.h"
#include "app/lookupcmd.h"
#include "app/symbolizecmd.h"
#include "app/sourcecmd.h"
#include "app/disasmcmd.h"
#include "symbolize/isolation/worker.h"

#ifdef SYMFLAME_WITH_GUI
#include "app/gui.h"
#include "app/render.h"
#endif

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#if !defined(SYMFLAME_WITH_GUI) && defined(SYMFLAME_VIEWER_NAME)
#include <unistd.h>
#endif

using namespace symflame::app;

namespace {

// A first argument that is no file and reads like a word is taken for a mistyped command.
bool looksLikeCommand(std::string_view a)
{
    if (a.empty() || a[0] == '-')
        return false;
    for (char c : a)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' || c == '_'))
            return false;
    std::error_code ec;
    return !std::filesystem::exists(a, ec);
}

#if !defined(SYMFLAME_WITH_GUI) && defined(SYMFLAME_VIEWER_NAME)
// The viewer and `render` live in symflame-viewer, installed beside this executable: run it
// with the same arguments. Returns only when it can't be run.
int runViewer(char** argv)
{
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    const std::filesystem::path viewer = ec ? std::filesystem::path(SYMFLAME_VIEWER_NAME)
                                            : self.parent_path() / SYMFLAME_VIEWER_NAME;
    ::execv(viewer.c_str(), argv);
    std::fprintf(stderr, "symflame: cannot run the viewer %s: %s\n", viewer.c_str(), std::strerror(errno));
    return ExitFailure;
}
#endif

} // namespace

int main(int argc, char** argv)
{
    // `diff render BASE NEW ...` is `render NEW --diff-base BASE ...`.
    std::vector<char*> rewritten;
    static char renderWord[] = "render", diffBaseOption[] = "--diff-base";
    if (argc > 4 && std::string_view(argv[1]) == "diff" && std::string_view(argv[2]) == "render" && argv[3][0] != '-'
        && argv[4][0] != '-') {
        rewritten = { argv[0], renderWord, argv[4], diffBaseOption, argv[3] };
        rewritten.insert(rewritten.end(), argv + 5, argv + argc);
        rewritten.push_back(nullptr);
        argc = int(rewritten.size()) - 1;
        argv = rewritten.data();
    }
    const std::string_view first = argc > 1 ? std::string_view(argv[1]) : std::string_view();
    // The debug info reader of isolated modules (symbolize/isolation/worker.h), started by symflame and
    // symflame-viewer themselves: its stdin and stdout are a socket to the parent.
    if (first == "--symbolize-worker")
        return symflame::symbolize::runSymbolizeWorker(0, 1);
    if (first == "--help" || first == "-h" || first == "help") {
        std::fputs(usageText(), stdout);
        return ExitOk;
    }
    if (first == "--version") {
        std::puts("symflame " SYMFLAME_VERSION);
        return ExitOk;
    }
    if (isHeadlessCommand(first))
        return runHeadlessCommand(first, argc - 2, argv + 2);
    if (first == "symbolize")
        return runSymbolizeCommand(argc - 2, argv + 2);
    if (first == "lookup")
        return runLookupCommand(argc - 2, argv + 2);
    if (first == "source")
        return runSourceCommand(argc - 2, argv + 2);
    if (first == "disasm")
        return runDisasmCommand(argc - 2, argv + 2);
    if (first == "debuginfo")
        return runDebuginfoCommand(argc - 2, argv + 2);
    if (first == "diff" && !(argc > 2 && std::string_view(argv[2]) == "render"))
        return runDiffCommand(argc - 2, argv + 2);
    if (first == "render") {
#ifdef SYMFLAME_WITH_GUI
        return runRender(argv[0], argc - 2, argv + 2);
#elif defined(SYMFLAME_VIEWER_NAME)
        return runViewer(argv);
#else
        std::fputs("symflame: render needs the Qt build (configure with SYMFLAME_BUILD_GUI=ON)\n", stderr);
        return ExitFailure;
#endif
    }
    if (looksLikeCommand(first))
        return usageError("unknown command '" + std::string(first) + "'");
#ifdef SYMFLAME_WITH_GUI
    return runGui(argc, argv);
#elif defined(SYMFLAME_VIEWER_NAME)
    return runViewer(argv);
#else
    std::fputs("symflame: this build has no viewer; use symflame info|top|collapse FILE\n", stderr);
    return ExitFailure;
#endif
}
