// symflame-benchmodel: times each step of the analysis layer on one profile file — loading,
// the symbol table, the top table, both call trees, the flame layout and folded output — and
// prints wall time per step and the process's peak RSS. Results are checked against each other
// (root totals equal the profile total) so a fast wrong answer does not pass unnoticed.
#include "model/analysis/calltree.h"
#include "model/analysis/flamelayout.h"
#include "model/analysis/collapse.h"
#include "model/io/profileio.h"
#include "model/analysis/toptable.h"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>

using namespace symflame::model;

namespace {

double cpuNow()
{
    timespec ts {};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

/// Wall and CPU time since a start point, printed as "wall s (cpu s cpu)": on a busy machine
/// the CPU time is the steadier figure.
struct Stopwatch {
    std::chrono::steady_clock::time_point wall = std::chrono::steady_clock::now();
    double cpu = cpuNow();
    std::string text() const
    {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%7.3f s wall %7.3f s cpu",
            std::chrono::duration<double>(std::chrono::steady_clock::now() - wall).count(), cpuNow() - cpu);
        return buf;
    }
};

long peakRssKb()
{
    rusage ru {};
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

} // namespace

int main(int argc, char** argv)
{
    bool collapse = true;
    int repeat = 1;
    const char* file = nullptr;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--no-collapse")
            collapse = false;
        else if (a == "--repeat" && i + 1 < argc)
            repeat = std::max(1, std::atoi(argv[++i]));
        else if (!file && !a.starts_with("-"))
            file = argv[i];
        else
            file = nullptr, i = argc;
    }
    if (!file) {
        std::fprintf(stderr,
            "usage: symflame-benchmodel FILE [--no-collapse] [--repeat N]\n"
            "  --repeat N  build each call tree N times and report the fastest\n");
        return 2;
    }
    bool ok = true;

    auto t = Stopwatch();
    auto loaded = loadProfile(file);
    if (!loaded.ok()) {
        std::fprintf(stderr, "symflame-benchmodel: %s\n", loaded.error().toString().c_str());
        return 1;
    }
    const Profile& p = *loaded;
    const size_t type = p.defaultSampleType;
    std::printf("%-22s %s (%zu samples, %zu stacks, %zu locations, peak RSS %ld MB)\n", "load", t.text().c_str(),
        p.sampleCount(), p.stackCount(), p.locations.size(), peakRssKb() / 1024);

    t = Stopwatch();
    const SymbolTable symbols = SymbolTable::build(p);
    std::printf("%-22s %s (%zu symbols)\n", "SymbolTable::build", t.text().c_str(), symbols.size());

    t = Stopwatch();
    const auto top = topFunctions(p, symbols, type);
    std::printf("%-22s %s (%zu entries)\n", "topFunctions", t.text().c_str(), top.size());

    const int64_t total = p.totalValue(type);
    for (const auto dir : { CallTree::Direction::TopDown, CallTree::Direction::BottomUp }) {
        std::string built;
        double best = 1e30;
        for (int r = 1; r < repeat; ++r) {
            t = Stopwatch();
            const CallTree again = CallTree::build(p, symbols, type, dir);
            if (const double c = cpuNow() - t.cpu; c < best)
                best = c, built = t.text();
        }
        t = Stopwatch();
        const CallTree tree = CallTree::build(p, symbols, type, dir);
        if (cpuNow() - t.cpu < best)
            built = t.text();
        const bool td = dir == CallTree::Direction::TopDown;
        std::printf("%-22s %s (%zu nodes, peak RSS %ld MB)\n", td ? "CallTree top-down" : "CallTree bottom-up",
            built.c_str(), tree.size(), peakRssKb() / 1024);
        if (tree.totalValue() != total) {
            std::fprintf(stderr, "error: tree total %lld != profile total %lld\n", (long long)tree.totalValue(),
                (long long)total);
            ok = false;
        }
        if (td) {
            // The preview the viewer paints first: nodes below 1/8192 of the total left out.
            std::string previewBuilt;
            double previewBest = 1e30;
            for (int r = 1; r < repeat; ++r) {
                t = Stopwatch();
                const CallTree again = CallTree::build(p, symbols, type, dir, nullptr, nullptr, 0, total / 8192);
                if (const double c = cpuNow() - t.cpu; c < previewBest)
                    previewBest = c, previewBuilt = t.text();
            }
            t = Stopwatch();
            const CallTree preview = CallTree::build(p, symbols, type, dir, nullptr, nullptr, 0, total / 8192);
            if (cpuNow() - t.cpu < previewBest)
                previewBuilt = t.text();
            std::printf("%-22s %s (%zu nodes, nodes below 1/8192 of the total left out)\n", "CallTree preview",
                previewBuilt.c_str(), preview.size());
            if (preview.totalValue() != total) {
                std::fprintf(stderr, "error: preview total %lld != profile total %lld\n",
                    (long long)preview.totalValue(), (long long)total);
                ok = false;
            }
            t = Stopwatch();
            const FlameLayout layout = FlameLayout::build(tree, tree.root(), total / 2000);
            size_t frames = 0;
            for (size_t d = 0; d < layout.depthCount(); ++d)
                frames += layout.row(d).size();
            std::printf("%-22s %s (%zu rows, %zu frames at 1/2000 of the width)\n", "FlameLayout::build",
                t.text().c_str(), layout.depthCount(), frames);
            t = Stopwatch();
            const FlameLayout full = FlameLayout::build(tree, tree.root(), 0);
            std::printf("%-22s %s (%zu rows, every node)\n", "FlameLayout (full)", t.text().c_str(), full.depthCount());
        }
    }
    if (collapse) {
        t = Stopwatch();
        const std::string folded = collapseStacks(p, symbols, type);
        std::printf("%-22s %s (%zu bytes)\n", "collapseStacks", t.text().c_str(), folded.size());
    }
    std::printf("%-22s %ld MB\n", "peak RSS", peakRssKb() / 1024);
    return ok ? 0 : 1;
}
