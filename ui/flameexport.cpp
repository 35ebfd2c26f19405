// Export: the title strip, then the painter over the rest, into QSvgGenerator or a QImage.
#include "ui/flameexport.h"

#include "model/io/fileio.h"

#include "ui/flamegraphwidget.h"


#include <QBuffer>
#include <QFile>
#include <QFileInfo>
#include <QFontMetrics>
#include <QFont>
#include <QImage>
#include <QPainter>
#include <QRegularExpression>
#include <QSvgGenerator>

#include <algorithm>
#include <cmath>

namespace symflame::ui {

namespace {

constexpr int kMaxDimension = 32768;

// The legend below the graph when the colors mean something (binary, status, type): swatches
// with their labels, flowing in rows across the width.
struct LegendStrip {
    std::vector<std::pair<QRect, FlameGraphPainter::LegendEntry>> items; ///< relative to the strip's top
    int height = 0;
};

LegendStrip layoutLegend(const FlameGraphPainter& painter, const QPalette& palette, int width)
{
    LegendStrip strip;
    if (painter.colorScheme() == FlameGraphPainter::ColorScheme::Name)
        return strip;
    const QFontMetrics fm(painter.font());
    const int row = fm.height() + 6, swatch = fm.height();
    int x = 6, y = 4;
    for (FlameGraphPainter::LegendEntry& e : painter.legend(palette.color(QPalette::Base).lightness() < 128)) {
        const int w = swatch + 6 + fm.horizontalAdvance(e.label) + 16;
        if (x > 6 && x + w > width - 6) {
            x = 6;
            y += row;
        }
        strip.items.push_back({ QRect(x, y, w, row), std::move(e) });
        x += w;
    }
    strip.height = strip.items.empty() ? 0 : y + row + 4;
    return strip;
}

void paintAll(QPainter& p, const FlameGraphPainter& painter, const ExportOptions& options, int width, int height,
    int titleHeight, const LegendStrip& legend = {})
{
    p.fillRect(QRect(0, 0, width, height), options.palette.color(QPalette::Base));
    if (titleHeight > 0) {
        QFont titleFont = painter.font();
        titleFont.setBold(true);
        p.setFont(titleFont);
        p.setPen(options.palette.color(QPalette::Text));
        p.drawText(QRect(6, 0, width - 12, titleHeight), Qt::AlignLeft | Qt::AlignVCenter, options.title);
    }
    const QRect area(0, titleHeight, width, height - titleHeight - legend.height - 4);
    p.save();
    p.setClipRect(area);
    painter.paint(p, area, area, options.palette);
    p.restore();
    const int top = height - legend.height;
    const int swatch = QFontMetrics(painter.font()).height();
    p.setFont(painter.font());
    for (const auto& [rect, entry] : legend.items) {
        const QRect r = rect.translated(0, top);
        p.fillRect(QRect(r.x(), r.y() + 3, swatch, swatch), entry.color);
        p.setPen(options.palette.color(QPalette::Text));
        p.drawText(QRect(r.x() + swatch + 6, r.y(), r.width() - swatch - 6, r.height()), Qt::AlignLeft | Qt::AlignVCenter,
            entry.label);
    }
}

// The bytes written to path in one step, so that a failed export leaves nothing half-written
// (and an existing file as it was).
model::Status writeAtomically(const QString& path, const QByteArray& bytes, const char* what)
{
    const model::Status written = model::writeFileAtomically(
        QFile::encodeName(path).toStdString(), std::span(reinterpret_cast<const uint8_t*>(bytes.constData()), size_t(bytes.size())));
    if (!written)
        return model::makeError(model::ErrorCode::Io, std::string("cannot write the ") + what + ": " + written.error().message,
            path.toStdString());
    return model::Status::success();
}

} // namespace

bool isSvgPath(const QString& path)
{
    return QFileInfo(path).suffix().compare(QLatin1String("svg"), Qt::CaseInsensitive) == 0;
}

model::Status exportFlameGraph(const FlameGraphPainter& source, const QString& path, const ExportOptions& options)
{
    const std::string file = path.toStdString();
    if (options.width <= 0 || options.width > kMaxDimension)
        return model::makeError(model::ErrorCode::Usage, "the width must be from 1 to 32768 pixels", file);
    const bool svgOut = isSvgPath(path);
    const double scale = svgOut ? 1.0 : options.scale;
    if (!(scale >= 0.25 && scale <= 8))
        return model::makeError(model::ErrorCode::Usage, "the scale must be from 0.25 to 8", file);
    if (std::lround(options.width * scale) > kMaxDimension || std::lround(options.height * scale) > kMaxDimension)
        return model::makeError(model::ErrorCode::Usage,
            "at scale " + QString::number(scale).toStdString() + " the image would be larger than 32768 pixels", file);
    FlameGraphPainter painter = source;
    painter.layout(options.width);
    const int rowHeight = painter.rowHeight();
    const int titleHeight = options.title.isEmpty() ? 0 : rowHeight + 8;
    const int graphHeight = std::max(painter.contentHeight(), rowHeight);
    const LegendStrip legend = layoutLegend(painter, options.palette, options.width);
    const int maxHeight = static_cast<int>(kMaxDimension / scale);
    const int height = options.height > 0 ? std::min(options.height, maxHeight)
                                          : std::min(maxHeight, titleHeight + graphHeight + legend.height + 4);

    if (svgOut) {
        QBuffer bytes;
        bytes.open(QIODevice::WriteOnly);
        QSvgGenerator svg;
        svg.setOutputDevice(&bytes);
        svg.setSize(QSize(options.width, height));
        svg.setViewBox(QRect(0, 0, options.width, height));
        svg.setTitle(options.title.isEmpty() ? QStringLiteral("flame graph") : options.title);
        svg.setDescription(QStringLiteral("Flame graph drawn by symflame"));
        QPainter p;
        if (!p.begin(&svg))
            return model::makeError(model::ErrorCode::Io, "cannot write the SVG file", file);
        paintAll(p, painter, options, options.width, height, titleHeight, legend);
        if (!p.end())
            return model::makeError(model::ErrorCode::Io, "cannot write the SVG file", file);
        // Over the drawing, one invisible rectangle per frame with its description as the
        // <title> a browser shows on hover (as flamegraph.pl's SVGs do).
        QByteArray svgText = bytes.data();
        // QSvgGenerator gives the size in millimetres at 72 dpi, which browsers (96 dpi) show a
        // third larger than asked: the size in pixels instead, as the width and height given.
        static const QRegularExpression kSize(QStringLiteral("<svg width=\"[0-9.]+mm\" height=\"[0-9.]+mm\""));
        const QString head = QString::fromUtf8(svgText.left(200));
        const QRegularExpressionMatch size = kSize.match(head);
        if (size.hasMatch())
            svgText.replace(size.capturedStart(), size.capturedLength(),
                QStringLiteral("<svg width=\"%1\" height=\"%2\"").arg(options.width).arg(height).toUtf8());
        // Qt names the font's family alone ("Sans Serif", "DejaVu Sans"), which a browser that
        // lacks it draws in its default serif: a generic family after it.
        static const QRegularExpression kFamily(QStringLiteral("font-family=\"([^\"',]+)\""));
        svgText = QString::fromUtf8(svgText).replace(kFamily, QStringLiteral("font-family=\"'\\1', sans-serif\"")).toUtf8();
        const qsizetype end = svgText.lastIndexOf("</svg>");
        if (end < 0)
            return model::makeError(model::ErrorCode::Io, "cannot write the SVG file", file);
        QByteArray frames = "<g id=\"frames\" fill=\"#000\" fill-opacity=\"0\">\n";
        const QRect area(0, titleHeight, options.width, height - titleHeight - legend.height - 4);
        painter.forEachFrame(area, [&](const FlameGraphPainter::Hit& hit) {
            frames += QStringLiteral("<rect x=\"%1\" y=\"%2\" width=\"%3\" height=\"%4\"><title>%5</title></rect>\n")
                          .arg(hit.rect.x())
                          .arg(hit.rect.y())
                          .arg(hit.rect.width())
                          .arg(hit.rect.height())
                          .arg(painter.summary(hit).toHtmlEscaped())
                          .toUtf8();
        });
        frames += "</g>\n";
        svgText.insert(end, frames);
        return writeAtomically(path, svgText, "SVG file");
    }

    // Drawn in units (the layout above), onto scale pixels per unit.
    QImage image(int(std::lround(options.width * scale)), int(std::lround(height * scale)), QImage::Format_RGB32);
    image.setDevicePixelRatio(scale);
    {
        QPainter p(&image);
        paintAll(p, painter, options, options.width, height, titleHeight, legend);
    }
    const QString suffix = QFileInfo(path).suffix().toLower();
    const char* format = suffix == QLatin1String("jpg") || suffix == QLatin1String("jpeg") ? "JPG"
        : suffix == QLatin1String("bmp")                                                   ? "BMP"
                                                                                           : "PNG";
    QBuffer encoded;
    encoded.open(QIODevice::WriteOnly);
    if (!image.save(&encoded, format))
        return model::makeError(model::ErrorCode::Io, "cannot encode the image", file);
    return writeAtomically(path, encoded.data(), "image");
}

bool exportWidget(const FlameGraphWidget& widget, const QString& title, const QString& path, QString* error)
{
    return exportWidgetAt(widget, title, path, std::max(widget.width(), 200), 0, 1.0, error);
}

bool exportWidgetAt(const FlameGraphWidget& widget, const QString& title, const QString& path, int width, int height,
    double scale, QString* error)
{
    ExportOptions options;
    options.width = width;
    options.height = height;
    options.scale = scale;
    options.palette = widget.palette();
    options.title = title;
    const model::Status status = exportFlameGraph(widget.painter(), path, options);
    if (!status && error)
        *error = QString::fromStdString(status.error().toString());
    return status.ok();
}

} // namespace symflame::ui
