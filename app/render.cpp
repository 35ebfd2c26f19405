// The render command: load, lay out at the requested width, paint into a QImage, save.
#include "app/render.h"

#include "app/cli.h"
#include "app/cmdline.h"
#include "model/frameformat.h"
#include "model/profileio.h"
#include "ui/flamegraphpainter.h"

#include <QFileInfo>
#include <QGuiApplication>
#include <QImage>
#include <QPainter>
#include <QPalette>

#include <cstdio>
#include <cstdlib>

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
    static constexpr OptionSpec kSpecs[] = { { "output", 'o', true }, { "width", 0, true }, { "height", 0, true },
        { "sample-type", 0, true }, { "help", 'h', false } };
    std::string error;
    const auto args = parseArgs(std::span<char* const>(argv, static_cast<size_t>(argc)), kSpecs, &error);
    if (!args)
        return usageError("render: " + error);
    if (args->has("help")) {
        std::fputs(usageText(), stdout);
        return ExitOk;
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
    const std::string& path = args->positional[0];

    auto loaded = loadProfile(path);
    if (!loaded)
        return inputError(loaded.error().path.empty() ? path : loaded.error().path, loaded.error().message);
    int rc = ExitOk;
    const auto type = selectSampleType(*loaded, args->value("sample-type"), path, &rc);
    if (!type)
        return rc;
    auto snapshot = ui::makeSnapshot(std::make_shared<const Profile>(std::move(loaded).value()), *type, path);
    if (!snapshot)
        return inputError(path, snapshot.error().message);

    // Painting text needs a QGuiApplication; the offscreen platform needs no display.
    if (!std::getenv("QT_QPA_PLATFORM"))
        setenv("QT_QPA_PLATFORM", "offscreen", 1);
    int qtArgc = 1;
    char* qtArgv[] = { argv0, nullptr };
    QGuiApplication app(qtArgc, qtArgv);

    ui::FlameGraphPainter painter;
    painter.setFont(QGuiApplication::font());
    painter.setSnapshot(*snapshot);
    painter.layout(*width);

    // A title strip above the graph says what is shown.
    const int rowHeight = painter.rowHeight();
    const int titleHeight = rowHeight + 8;
    const int graphHeight = std::max(painter.contentHeight(), rowHeight);
    const int imageHeight = *height > 0 ? *height : std::min(kMaxDimension, titleHeight + graphHeight + 4);

    const QPalette palette = QGuiApplication::palette();
    QImage image(*width, imageHeight, QImage::Format_RGB32);
    image.fill(palette.color(QPalette::Base));
    {
        QPainter p(&image);
        const ui::ProfileSnapshot& s = **snapshot;
        const int64_t total = s.tree ? s.tree->totalValue() : 0;
        QFont titleFont = QGuiApplication::font();
        titleFont.setBold(true);
        p.setFont(titleFont);
        p.setPen(palette.color(QPalette::Text));
        const QString title
            = QStringLiteral("%1 \u2014 %2, total %3, %4 samples")
                  .arg(QFileInfo(QString::fromStdString(path)).fileName(), QString::fromUtf8(s.typeName()),
                      QString::fromStdString(formatValue(total, s.unit())))
                  .arg(qulonglong(s.profile->sampleCount()));
        p.drawText(QRect(6, 0, *width - 12, titleHeight), Qt::AlignLeft | Qt::AlignVCenter, title);
        const QRect area(0, titleHeight, *width, imageHeight - titleHeight - 4);
        p.setClipRect(area);
        painter.paint(p, area, area, palette);
    }
    const QString out = QString::fromStdString(*output);
    const QString suffix = QFileInfo(out).suffix().toLower();
    const char* format = suffix == QLatin1String("jpg") || suffix == QLatin1String("jpeg") ? "JPG"
        : suffix == QLatin1String("bmp")                                                   ? "BMP"
                                                                                           : "PNG";
    if (!image.save(out, format))
        return inputError(*output, "cannot write the image");
    return ExitOk;
}

} // namespace symflame::app
