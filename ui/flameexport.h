// Writes a flame graph to an SVG or a raster image (PNG, JPEG, BMP by the file's suffix) with
// the same FlameGraphPainter that draws the widget: File > Export and `symflame render`.
#pragma once

#include "model/core/result.h"
#include "ui/flamegraphpainter.h"

#include <QPalette>
#include <QString>

namespace symflame::ui {

struct ExportOptions {
    int width = 1600;
    int height = 0; ///< 0: as tall as the title and every row
    QString title;  ///< drawn in a strip above the graph; none when empty
    QPalette palette;
};

/// Lays out a copy of painter (same root, view, colors, highlight) at options.width and writes
/// it to path. Errors name the file.
model::Status exportFlameGraph(const FlameGraphPainter& painter, const QString& path, const ExportOptions& options);

/// True when path names an SVG file (by its suffix).
bool isSvgPath(const QString& path);

} // namespace symflame::ui
