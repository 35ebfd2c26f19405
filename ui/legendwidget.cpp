#include "ui/legendwidget.h"

#include "ui/flamegraphwidget.h"

#include "ui/flamegraphpainter.h"

#include <QPixmap>

namespace symflame::ui {

using namespace symflame::model;

namespace {
constexpr int kSymbolsRole = Qt::UserRole; ///< the entry's symbol ids
constexpr int kActiveRole = Qt::UserRole + 1; ///< the entry is the highlighted one
} // namespace

LegendWidget::LegendWidget(QWidget* parent)
    : QListWidget(parent)
{
    setToolTip(tr("Click an entry to highlight its frames; click it again to clear"));
    connect(this, &QListWidget::itemClicked, this, &LegendWidget::clickItem);
}

void LegendWidget::setLegend(const FlameGraphWidget& flame)
{
    setLegend(flame.painter(), flame.palette().color(QPalette::Base).lightness() < 128);
}

void LegendWidget::setLegend(const FlameGraphPainter& painter, bool dark)
{
    clear();
    m_hasSnapshot = painter.snapshot() != nullptr;
    m_symbolCount = m_hasSnapshot ? painter.snapshot()->symbols->size() : 0;
    for (const FlameGraphPainter::LegendEntry& e : painter.legend(dark)) {
        QPixmap swatch(14, 14);
        swatch.fill(e.color);
        auto* item = new QListWidgetItem(QIcon(swatch), (e.symbols.empty() ? e.label // what a color means (a comparison's), no functions of its own
                : e.symbols.size() == 1 ? tr("%1 (1 function)").arg(e.label)
                                        : tr("%1 (%2 functions)").arg(e.label).arg(e.symbols.size())));
        QVariantList ids;
        ids.reserve(qsizetype(e.symbols.size()));
        for (SymbolId id : e.symbols)
            ids << QVariant::fromValue<uint>(id.value);
        item->setData(kSymbolsRole, ids);
        addItem(item);
    }
}

void LegendWidget::clickItem(QListWidgetItem* item)
{
    if (!m_hasSnapshot || item->data(kSymbolsRole).toList().isEmpty())
        return; // an entry that only says what a color means
    if (item->data(kActiveRole).toBool()) {
        item->setData(kActiveRole, false);
        clearSelection();
        emit highlightCleared();
        return;
    }
    for (int i = 0; i < count(); ++i)
        this->item(i)->setData(kActiveRole, false);
    item->setData(kActiveRole, true);
    std::vector<uint8_t> highlight(m_symbolCount, 0);
    for (const QVariant& v : item->data(kSymbolsRole).toList())
        highlight[v.toUInt()] = 1;
    emit highlightRequested(std::move(highlight));
}

} // namespace symflame::ui
