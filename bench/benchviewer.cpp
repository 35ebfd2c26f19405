// symflame-benchviewer: times the viewer on the offscreen platform. Opens FILE as the main window
// does (read, symbols, a preview tree for a big profile, the call tree) and paints the flame graph
// into a 1920x1080 image: the preview when it is made ("preview painted"), and the complete tree
// ("open to painted"); then times full repaints of that view; prints wall times in ms.
// Then the search of "method3" typed one character at a time. With --preview-only it stops
// once the preview is painted.
//   symflame-benchviewer FILE [--repaints N] [--preview-only]
#include "model/analysis/search.h"
#include "model/analysis/toptable.h"
#include "ui/topfunctionsmodel.h"
#include "ui/flamegraphpainter.h"
#include "ui/profilesnapshot.h"

#include <QGuiApplication>
#include <QImage>
#include <QPainter>
#include <QPalette>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>
#include <unistd.h>

using namespace symflame;

namespace {

// CPU time of the whole process (all threads) in ms: with other work on the machine, wall
// time says little; CPU time shows what the opening cost.
double cpuMs()
{
    timespec ts {};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

double msSince(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

int main(int argc, char** argv)
{
    if (argc < 2) {
        std::fputs("usage: symflame-benchviewer FILE [--repaints N] [--preview-only]\n", stderr);
        return 2;
    }
    int repaints = 20;
    bool previewOnly = false;
    for (int i = 2; i < argc; ++i) {
        if (std::strcmp(argv[i], "--repaints") == 0 && i + 1 < argc)
            repaints = std::max(1, std::atoi(argv[++i]));
        else if (std::strcmp(argv[i], "--preview-only") == 0)
            previewOnly = true;
    }
    if (!std::getenv("QT_QPA_PLATFORM"))
        setenv("QT_QPA_PLATFORM", "offscreen", 1);
    int qtArgc = 1;
    QGuiApplication app(qtArgc, argv);

    QImage image(1920, 1080, QImage::Format_RGB32);
    const QPalette palette = QGuiApplication::palette();
    const auto t0 = std::chrono::steady_clock::now();
    const double cpu0 = cpuMs();
    // A big profile's preview is painted as the window paints it, on the GUI thread (here the
    // same thread, so the time of that paint counts toward the complete tree's time too), cut
    // for the image's width as the window cuts it for the flame graph's.
    double previewMs = 0, previewCpuMs = 0;
    size_t previewNodes = 0;
    auto loaded = ui::loadSnapshot(argv[1], nullptr, 0, [&](std::shared_ptr<const ui::ProfileSnapshot> first) {
        ui::FlameGraphPainter painter;
        painter.setFont(QGuiApplication::font());
        painter.setSnapshot(first);
        painter.layout(image.width());
        image.fill(palette.color(QPalette::Base));
        QPainter p(&image);
        painter.paint(p, image.rect(), image.rect(), palette);
        previewMs = msSince(t0);
        previewCpuMs = cpuMs() - cpu0;
        previewNodes = first->tree->size();
        if (previewOnly) {
            std::printf("%-34s %7.1f ms (CPU %.1f ms, all threads; %zu nodes)\n", "preview painted 1920x1080",
                previewMs, previewCpuMs, previewNodes);
            std::fflush(stdout);
            _exit(0); // the complete tree is not wanted: no waiting for it
        }
    }, ui::previewPartsFor(image.width()));
    if (!loaded) {
        std::fprintf(stderr, "symflame-benchviewer: %s\n", loaded.error().toString().c_str());
        return 1;
    }
    const double loadMs = msSince(t0);
    ui::FlameGraphPainter painter;
    painter.setFont(QGuiApplication::font());
    painter.setSnapshot(loaded.value());
    auto paintOnce = [&] {
        painter.layout(image.width());
        image.fill(palette.color(QPalette::Base));
        QPainter p(&image);
        painter.paint(p, image.rect(), image.rect(), palette);
    };
    paintOnce();
    const double openMs = msSince(t0);
    const double openCpuMs = cpuMs() - cpu0;

    std::vector<double> times;
    for (int i = 0; i < repaints; ++i) {
        const auto t = std::chrono::steady_clock::now();
        paintOnce();
        times.push_back(msSince(t));
    }
    std::sort(times.begin(), times.end());
    // A relayout (what a resize or a zoom costs) on top of a repaint.
    const auto tl = std::chrono::steady_clock::now();
    painter.setRoot(painter.root());
    paintOnce();
    const double relayoutMs = msSince(tl);

    // Typing "method3" in the search field: per prefix, matching the symbols, the matches'
    // statistics over the tree (both on the thread pool in the viewer) and a repaint with the
    // highlight (on the GUI thread).
    double worstMatch = 0, worstStats = 0, worstPaint = 0;
    const std::string typed = "method3";
    for (size_t n = 1; n <= typed.size(); ++n) {
        const auto ta = std::chrono::steady_clock::now();
        auto m = model::matchSymbols(*loaded.value()->profile, *loaded.value()->symbols,
            model::SearchQuery { typed.substr(0, n), false, false });
        const double matchMs = msSince(ta);
        if (!m)
            return 1;
        const auto tb = std::chrono::steady_clock::now();
        const model::SearchStats stats = model::searchStats(*loaded.value()->tree, *m);
        const double statsMs = msSince(tb);
        const auto tc = std::chrono::steady_clock::now();
        painter.setHighlight(std::move(m).value());
        paintOnce();
        const double paintMs = msSince(tc);
        worstMatch = std::max(worstMatch, matchMs);
        worstStats = std::max(worstStats, statsMs);
        worstPaint = std::max(worstPaint, paintMs);
        (void)stats;
    }

    // The top functions table as the panel sets it up: filled (sorted by self, as it opens),
    // sorted by name, then filtered by "method3" typed a character at a time (worst keystroke).
    const auto& snap = loaded.value();
    const model::StackFilter topFilter = snap->filter();
    std::vector<model::TopEntry> entries = model::topFunctions(*snap->profile, *snap->symbols, snap->sampleType, &topFilter);
    const size_t topRows = entries.size();
    ui::TopFunctionsModel topModel;
    ui::TopFunctionsProxy topProxy;
    topProxy.setSourceModel(&topModel);
    topProxy.setSortRole(ui::TopFunctionsModel::SortRole);
    topProxy.setFilterCaseSensitivity(Qt::CaseInsensitive);
    topProxy.setFilterKeyColumn(ui::TopFunctionsModel::Function);
    topProxy.sort(ui::TopFunctionsModel::Self, Qt::DescendingOrder);
    const auto tt = std::chrono::steady_clock::now();
    topModel.setEntries(snap, std::move(entries), snap->tree->totalValue());
    const double topFillMs = msSince(tt);
    const auto ts = std::chrono::steady_clock::now();
    topProxy.sort(ui::TopFunctionsModel::Function, Qt::AscendingOrder);
    const double topSortMs = msSince(ts);
    double topFilterMs = 0;
    for (size_t n = 1; n <= typed.size(); ++n) {
        const auto tf = std::chrono::steady_clock::now();
        topProxy.setFilterFixedString(QString::fromStdString(typed.substr(0, n)));
        topFilterMs = std::max(topFilterMs, msSince(tf));
    }

    const auto& tree = *loaded.value()->tree;
    std::printf("nodes %zu, samples %zu\n", tree.size(), loaded.value()->profile->sampleCount());
    std::printf("load (read, symbols, call tree)  %8.1f ms\n", loadMs);
    if (previewNodes > 0)
        std::printf("preview painted 1920x1080        %8.1f ms (CPU %.1f ms, all threads; %zu nodes)\n", previewMs,
            previewCpuMs, previewNodes);
    else
        std::printf("preview                          none (a small profile)\n");
    std::printf("open to painted 1920x1080        %8.1f ms (CPU %.1f ms, all threads; complete tree)\n", openMs, openCpuMs);
    std::printf("full repaint 1920x1080 median    %8.2f ms (min %.2f, max %.2f, %d runs)\n", times[times.size() / 2],
        times.front(), times.back(), repaints);
    std::printf("relayout + repaint               %8.2f ms\n", relayoutMs);
    std::printf("search \"method3\" typed, worst   match %.1f ms, stats %.1f ms, highlighted repaint %.1f ms\n",
        worstMatch, worstStats, worstPaint);
    std::printf("top functions (%zu rows): filled and sorted by self %.1f ms, sorted by name %.1f ms, "
                "filtered by \"method3\" typed, worst %.1f ms\n",
        topRows, topFillMs, topSortMs, topFilterMs);
    return 0;
}
