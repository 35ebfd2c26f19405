// The color legend: one row per binary, symbolization status or frame type of the flame graph's
// color scheme, with its swatch. Clicking a row asks to highlight its functions; clicking it
// again clears that highlight.
#pragma once

#include <QListWidget>

#include <cstdint>
#include <vector>

namespace symflame::ui {

class FlameGraphPainter;
class FlameGraphWidget;

class LegendWidget : public QListWidget {
    Q_OBJECT
public:
    explicit LegendWidget(QWidget* parent = nullptr);

    /// Shows painter's legend for its current scheme (dark: the colors for a dark background).
    void setLegend(const FlameGraphPainter& painter, bool dark);
    /// The legend of flame's painter, for the background flame paints on.
    void setLegend(const FlameGraphWidget& flame);

signals:
    /// An entry was clicked: highlight these symbols (a flag per symbol of the snapshot).
    void highlightRequested(std::vector<uint8_t> symbols);
    /// The highlighted entry was clicked again.
    void highlightCleared();

private:
    void clickItem(QListWidgetItem* item);
    bool m_hasSnapshot = false;
    size_t m_symbolCount = 0;
};

} // namespace symflame::ui
