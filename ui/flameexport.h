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
    /// Raster images only: pixels per unit of width and height (2: a 1600-wide graph drawn
    /// into 3200 pixels, text and all, for a high-density screen or a slide). SVG scales itself.
    double scale = 1.0;
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

/// As exportWidget, at the size given (width and height in units, height 0 for every row, scale
/// for raster images).
bool exportWidgetAt(const FlameGraphWidget& widget, const QString& title, const QString& path, int width, int height,
    double scale, QString* error = nullptr);

} // namespace symflame::ui
