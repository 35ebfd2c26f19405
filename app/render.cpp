// The render command: load, build the view (--focus), lay out at the requested width, color
// (--color-by) and highlight (--search) as the viewer does, and write PNG/JPEG/BMP or SVG
// through ui::exportFlameGraph.
#include "app/render.h"

#include "app/labelviewargs.h"

#include "app/cli.h"
#include "app/diffargs.h"
#include "app/cmdline.h"
#include "model/core/frameformat.h"
#include "model/io/profileio.h"
#include "model/analysis/search.h"
#include "symbolize/pass/dwarfunwinder.h"
#include "ui/flameexport.h"
#include "ui/flamegraphpainter.h"

#include <QFileInfo>
#include <QGuiApplication>
#include <QPalette>

#include <cstdio>
#include <cstdlib>
#include <future>

namespace symflame::app {

using namespace symflame::model;

namespace {

constexpr int kMaxDimension = 32768;

std::optional<int> parseDimension(const std::optional<std::string>& text, int fallback)
{
    if (!text)
        return fallback;
    const auto v = parseCount(*text);
    if (!v || *v > kMaxDimension)
        return std::nullopt;
    return static_cast<int>(*v);
}

} // namespace

int runRender(char* argv0, int argc, char** argv)
{
    static constexpr OptionSpec kSpecs[] = { { "output", 'o', true }, { "width", 0, true }, { "height", 0, true }, { "scale", 0, true }, { "diff-base", 0, true }, { "normalize", 0, false }, { "match", 0, true },
        { "diff-threshold", 0, true }, { "diff-colors", 0, true }, { "diff-width", 0, true },
        { "sample-type", 0, true }, { "color-by", 0, true }, { "search", 0, true }, { "focus", 0, true },
        { "profile", 0, true }, { "help", 'h', false }, kLabelViewOptionSpecs[0], kLabelViewOptionSpecs[1],
        kLabelViewOptionSpecs[2], kLabelViewOptionSpecs[3], kLabelViewOptionSpecs[4] };
    std::string error;
    const auto args = parseArgs(std::span<char* const>(argv, static_cast<size_t>(argc)), kSpecs, &error);
    if (!args)
        return usageError("render: " + error);
    if (args->has("help")) {
        std::fputs("usage: symflame render FILE -o OUT.png|OUT.svg [--width W] [--height H] [--scale S] [--sample-type T]\n"
                   "         [--diff-base BASE [--normalize] [--match M] [--diff-threshold PCT] [--diff-colors relative|absolute]\n"
                   "          [--diff-width new|base|change]]\n"
                   "         [--color-by name|binary|status|type] [--search RE] [--focus FUNC] [--profile N]\n"
                   "         [--group-by K[,K]|none] [--group-leaf K] [--tag-focus F] [--tag-ignore F] [--time-range S,E]\n",
            stdout);
        return ExitOk;
    }
    ui::FlameGraphPainter::ColorScheme scheme = ui::FlameGraphPainter::ColorScheme::Name;
    if (const auto c = args->value("color-by")) {
        if (*c == "name")
            scheme = ui::FlameGraphPainter::ColorScheme::Name;
        else if (*c == "binary")
            scheme = ui::FlameGraphPainter::ColorScheme::Binary;
        else if (*c == "status")
            scheme = ui::FlameGraphPainter::ColorScheme::Status;
        else if (*c == "type")
            scheme = ui::FlameGraphPainter::ColorScheme::Kind;
        else if (*c == "diff" && args->has("diff-base"))
            scheme = ui::FlameGraphPainter::ColorScheme::Diff;
        else
            return usageError("render: --color-by wants name, binary, status or type"
                + std::string(args->has("diff-base") ? " or diff" : "") + ", not '" + *c + "'");
    } else if (args->has("diff-base")) {
        scheme = ui::FlameGraphPainter::ColorScheme::Diff; // a comparison: colored by change
    }
    if ((args->has("normalize") || args->has("match")) && !args->has("diff-base"))
        return usageError("render: --normalize and --match are for comparing, with a --diff-base; give one");
    const auto diffOptions = diffOptionsFrom(*args, &error);
    if (!diffOptions)
        return usageError("render: " + error);
    // A comparison's colors: changes up to PCT% of the total are no change (noise); saturation by
    // the change relative to the frame's base (pprof's diff colors) or by its size.
    double diffThreshold = 0.001;
    if (const auto text = args->value("diff-threshold")) {
        char* end = nullptr;
        const double pct = std::strtod(text->c_str(), &end);
        if (!args->has("diff-base") || text->empty() || *end != '\0' || !(pct >= 0 && pct <= 100))
            return usageError("render: --diff-threshold wants a percentage of the total from 0 to 100 (0.1 by default) "
                              "and a --diff-base");
        diffThreshold = pct / 100.0;
    }
    const std::string diffWidth = args->value("diff-width").value_or("new");
    if (args->has("diff-width") && (!args->has("diff-base") || (diffWidth != "new" && diffWidth != "base" && diffWidth != "change")))
        return usageError("render: --diff-width is new, base or change (the size of the change), with a --diff-base");
    bool diffAbsolute = false;
    if (const auto colors = args->value("diff-colors")) {
        if (!args->has("diff-base") || (*colors != "relative" && *colors != "absolute"))
            return usageError("render: --diff-colors is relative or absolute, with a --diff-base");
        diffAbsolute = *colors == "absolute";
    }
    if (args->positional.empty())
        return usageError("render: missing FILE");
    if (args->positional.size() > 1)
        return usageError("render: unexpected argument '" + args->positional[1] + "'");
    const auto output = args->value("output");
    if (!output || output->empty())
        return usageError("render: missing -o OUT.png");
    const auto width = parseDimension(args->value("width"), 1600);
    if (!width || *width == 0)
        return usageError("render: --width wants a number of pixels from 1 to 32768");
    const auto height = parseDimension(args->value("height"), 0); // 0: as tall as the rows
    if (!height)
        return usageError("render: --height wants a number of pixels up to 32768");
    double scale = 1.0; // pixels per unit, raster images only
    if (const auto text = args->value("scale")) {
        char* end = nullptr;
        scale = std::strtod(text->c_str(), &end);
        if (text->empty() || *end != '\0' || !(scale >= 0.25 && scale <= 8))
            return usageError("render: --scale wants a number from 0.25 to 8 (pixels per unit; 2 for a sharp image "
                              "on a high-density screen)");
    }
    const std::string& path = args->positional[0];

    LoadOptions loadOptions;
    if (!parseProfileOption(*args, &loadOptions.profileIndex, &error))
        return usageError("render: " + error);
    loadOptions.perfUnwinder = symbolize::dwarfUnwinderFactory();
    // A comparison's BASE is read while NEW is (inflating is serial: the other core reads it).
    std::future<Result<Profile>> baseLoad;
    if (const auto basePath = args->value("diff-base"))
        baseLoad = std::async(std::launch::async, [basePath = *basePath, loadOptions] { return loadProfile(basePath, loadOptions); });
    auto loaded = loadProfile(path, loadOptions);
    if (!loaded)
        return inputError(loaded.error().path.empty() ? path : loaded.error().path, loaded.error().message);
    int rc = ExitOk;
    const auto type = selectSampleType(*loaded, args->value("sample-type"), path, &rc);
    if (!type)
        return rc;
    // As the viewer shows it: a capture of several processes grouped by process, unless the
    // label options say otherwise.
    auto labels = labelViewFrom(*args, *loaded, &error);
    if (!labels)
        return usageError("render: " + error);
    if (!args->has("group-by"))
        labels->rootKeys = defaultLabelView(*loaded).rootKeys;
    Result<std::shared_ptr<const ui::ProfileSnapshot>> snapshot = makeError(ErrorCode::InvalidInput, "no snapshot");
    if (const auto basePath = args->value("diff-base")) {
        // A comparison: NEW's side drawn, colored by its change from BASE.
        auto base = baseLoad.get();
        if (!base)
            return inputError(*basePath, base.error().message);
        auto diff = diffProfiles(std::move(base).value(), std::move(loaded).value(), *diffOptions);
        if (!diff)
            return inputError(path, diff.error().message);
        snapshot = ui::makeDiffSnapshot(std::move(*diff), path);
        // Drawn by NEW's widths, BASE's (the other half of the types) or the change's.
        const size_t drawnType = diffWidth == "base" ? *type + (snapshot ? (*snapshot)->diffTypes : 0) : *type;
        if (snapshot && (!labels->empty() || diffWidth == "change" || (*snapshot)->sampleType != drawnType)) {
            ui::ViewOptions view = (*snapshot)->view;
            view.sampleType = drawnType;
            view.labels = *labels;
            view.widthByChange = diffWidth == "change";
            snapshot = ui::withView(**snapshot, view);
        }
    } else {
        snapshot = ui::makeSnapshot(
            std::make_shared<const Profile>(std::move(loaded).value()), *type, path, nullptr, {}, ui::kPreviewParts, *labels);
    }
    if (!snapshot)
        return inputError(path, snapshot.error().message);
    if (const auto focus = args->value("focus")) {
        ui::ViewOptions view = (*snapshot)->view;
        view.rules.push_back(FilterRule { FilterRule::Action::Focus, FilterRule::Target::Function, *focus });
        snapshot = ui::withView(**snapshot, view);
        if (!snapshot)
            return inputError(path, snapshot.error().message);
    }
    std::vector<uint8_t> highlight;
    if (const auto pattern = args->value("search")) {
        auto matches = matchSymbols(*(*snapshot)->profile, *(*snapshot)->symbols, SearchQuery { *pattern, true, false });
        if (!matches)
            return usageError("render: " + matches.error().message);
        highlight = std::move(matches).value();
    }

    // Painting text needs a QGuiApplication; the offscreen platform needs no display.
    if (!std::getenv("QT_QPA_PLATFORM"))
        setenv("QT_QPA_PLATFORM", "offscreen", 1);
    int qtArgc = 1;
    char* qtArgv[] = { argv0, nullptr };
    QGuiApplication app(qtArgc, qtArgv);

    ui::FlameGraphPainter painter;
    painter.setFont(QGuiApplication::font());
    painter.setSnapshot(*snapshot);
    painter.setColorScheme(scheme);
    painter.setDiffThreshold(diffThreshold);
    painter.setDiffAbsolute(diffAbsolute);
    painter.setHighlight(std::move(highlight));

    const ui::ProfileSnapshot& s = **snapshot;
    const int64_t total = s.tree ? s.tree->totalValue() : 0;
    ui::ExportOptions options;
    options.width = *width;
    options.height = *height;
    options.scale = scale;
    options.palette = QGuiApplication::palette();
    if (s.baseTree) {
        options.title = QStringLiteral("%1 compared with %2 \u2014 %3, total %4, base %5%6")
                            .arg(QFileInfo(QString::fromStdString(path)).fileName(),
                                QFileInfo(QString::fromStdString(*args->value("diff-base"))).fileName(),
                                QString::fromUtf8(s.typeName()), QString::fromStdString(formatValue(s.newSideTotal(), s.unit())),
                                QString::fromStdString(formatValue(s.baseSideTotal(), s.unit())),
                                args->has("normalize") ? QStringLiteral(" (normalized)") : QString());
    } else {
        options.title = QStringLiteral("%1 \u2014 %2, total %3, %4")
                            .arg(QFileInfo(QString::fromStdString(path)).fileName(), QString::fromUtf8(s.typeName()),
                                QString::fromStdString(formatValue(total, s.unit())),
                                QString::fromStdString(s.profile->sampleTally().describe()));
    }
    const Status written = ui::exportFlameGraph(painter, QString::fromStdString(*output), options);
    if (!written)
        return inputError(*output, written.error().message);
    return ExitOk;
}

} // namespace symflame::app
