// Writes a flame graph to an SVG or a raster image (PNG, JPEG, BMP by the file's suffix) with
// the same FlameGraphPainter that draws the widget: File > Export and `symflame render`.
#pragma once

#include "model/core/result.h"
#include "ui/flamegraphpainter.h"

#include <QPalette>
#include <QString>

class QWidget;

namespace symflame::ui {

class FlameGraphWidget;

struct ExportOptions {
    int width = 1600;
    int height = 0; ///< 0: as tall as the title and every row
    QString title; ///< drawn in a strip above the graph; none when empty
    QPalette palette;
};

/// Lays out a copy of painter (same root, view, colors, highlight) at options.width and writes
/// it to path. Errors name the file.
model::Status exportFlameGraph(const FlameGraphPainter& painter, const QString& path, const ExportOptions& options);

/// True when path names an SVG file (by its suffix).
bool isSvgPath(const QString& path);

/// The flame graph as the widget shows it (its width, at least 200, its palette) with title
/// above, written to path; false with the reason in *error when it cannot be.
bool exportWidget(const FlameGraphWidget& widget, const QString& title, const QString& path, QString* error = nullptr);

/// File > Export: asks where (SVG or PNG, suggestedName.svg proposed), writes the widget's graph
/// there (exportWidget) and says when that failed; the path written, or empty.
QString exportWidgetWithDialog(
    QWidget* parent, const FlameGraphWidget& widget, const QString& title, const QString& suggestedName);

} // namespace symflame::ui
