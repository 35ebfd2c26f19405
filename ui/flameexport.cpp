// Export: the title strip, then the painter over the rest, into QSvgGenerator or a QImage.
#include "ui/flameexport.h"

#include "ui/flamegraphwidget.h"

#include <QFileDialog>
#include <QMessageBox>

#include <QFileInfo>
#include <QFont>
#include <QImage>
#include <QPainter>
#include <QSvgGenerator>

#include <algorithm>

namespace symflame::ui {

namespace {

constexpr int kMaxDimension = 32768;

void paintAll(
    QPainter& p, const FlameGraphPainter& painter, const ExportOptions& options, int width, int height, int titleHeight)
{
    p.fillRect(QRect(0, 0, width, height), options.palette.color(QPalette::Base));
    if (titleHeight > 0) {
        QFont titleFont = painter.font();
        titleFont.setBold(true);
        p.setFont(titleFont);
        p.setPen(options.palette.color(QPalette::Text));
        p.drawText(QRect(6, 0, width - 12, titleHeight), Qt::AlignLeft | Qt::AlignVCenter, options.title);
    }
    const QRect area(0, titleHeight, width, height - titleHeight - 4);
    p.save();
    p.setClipRect(area);
    painter.paint(p, area, area, options.palette);
    p.restore();
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
    FlameGraphPainter painter = source;
    painter.layout(options.width);
    const int rowHeight = painter.rowHeight();
    const int titleHeight = options.title.isEmpty() ? 0 : rowHeight + 8;
    const int graphHeight = std::max(painter.contentHeight(), rowHeight);
    const int height = options.height > 0 ? std::min(options.height, kMaxDimension)
                                          : std::min(kMaxDimension, titleHeight + graphHeight + 4);

    if (isSvgPath(path)) {
        QSvgGenerator svg;
        svg.setFileName(path);
        svg.setSize(QSize(options.width, height));
        svg.setViewBox(QRect(0, 0, options.width, height));
        svg.setTitle(options.title.isEmpty() ? QStringLiteral("flame graph") : options.title);
        svg.setDescription(QStringLiteral("Flame graph drawn by symflame"));
        QPainter p;
        if (!p.begin(&svg))
            return model::makeError(model::ErrorCode::Io, "cannot write the SVG file", file);
        paintAll(p, painter, options, options.width, height, titleHeight);
        if (!p.end())
            return model::makeError(model::ErrorCode::Io, "cannot write the SVG file", file);
        if (!QFileInfo::exists(path))
            return model::makeError(model::ErrorCode::Io, "cannot write the SVG file", file);
        return model::Status::success();
    }

    QImage image(options.width, height, QImage::Format_RGB32);
    {
        QPainter p(&image);
        paintAll(p, painter, options, options.width, height, titleHeight);
    }
    const QString suffix = QFileInfo(path).suffix().toLower();
    const char* format = suffix == QLatin1String("jpg") || suffix == QLatin1String("jpeg") ? "JPG"
        : suffix == QLatin1String("bmp")                                                   ? "BMP"
                                                                                           : "PNG";
    if (!image.save(path, format))
        return model::makeError(model::ErrorCode::Io, "cannot write the image", file);
    return model::Status::success();
}

bool exportWidget(const FlameGraphWidget& widget, const QString& title, const QString& path, QString* error)
{
    ExportOptions options;
    options.width = std::max(widget.width(), 200);
    options.palette = widget.palette();
    options.title = title;
    const model::Status status = exportFlameGraph(widget.painter(), path, options);
    if (!status && error)
        *error = QString::fromStdString(status.error().toString());
    return status.ok();
}

QString exportWidgetWithDialog(
    QWidget* parent, const FlameGraphWidget& widget, const QString& title, const QString& suggestedName)
{
    const QString path = QFileDialog::getSaveFileName(parent, QObject::tr("Export Flame Graph"),
        suggestedName + QStringLiteral(".svg"), QObject::tr("SVG (*.svg);;PNG image (*.png)"));
    if (path.isEmpty())
        return {};
    QString error;
    if (!exportWidget(widget, title, path, &error)) {
        QMessageBox::warning(parent, QObject::tr("Export Failed"), error);
        return {};
    }
    return path;
}

} // namespace symflame::ui
