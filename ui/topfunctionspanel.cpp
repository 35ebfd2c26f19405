#include "ui/topfunctionspanel.h"

#include "model/analysis/toptable.h"
#include "ui/topfunctionsmodel.h"

#include <QHeaderView>
#include <QLineEdit>
#include <QMenu>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

namespace symflame::ui {

using namespace symflame::model;

TopFunctionsPanel::TopFunctionsPanel(QWidget* parent)
    : QWidget(parent)
{
    m_model = new TopFunctionsModel(this);
    m_proxy = new TopFunctionsProxy(this);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(TopFunctionsModel::SortRole);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_proxy->setFilterKeyColumn(TopFunctionsModel::Function);
    m_view = new QTableView;
    m_view->setObjectName(QStringLiteral("topFunctionsTable"));
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(TopFunctionsModel::Self, Qt::DescendingOrder);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 4);
    // The name takes what the numbers leave; numbers as wide as they need. The binary is a
    // column to turn on (header menu): the dock's default width holds the rest.
    QHeaderView* header = m_view->horizontalHeader();
    header->setSectionResizeMode(QHeaderView::ResizeToContents);
    header->setSectionResizeMode(TopFunctionsModel::Function, QHeaderView::Stretch);
    header->setMinimumSectionSize(m_view->fontMetrics().horizontalAdvance(QStringLiteral("000")));
    m_view->setColumnHidden(TopFunctionsModel::Binary, true);
    m_view->setColumnHidden(TopFunctionsModel::SelfChange, true); // a comparison's
    m_view->setColumnHidden(TopFunctionsModel::TotalChange, true);
    m_view->setColumnHidden(TopFunctionsModel::BaseSelf, true);
    m_view->setColumnHidden(TopFunctionsModel::BaseTotal, true);
    m_view->setColumnHidden(TopFunctionsModel::SelfRelative, true);
    header->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(header, &QWidget::customContextMenuRequested, this, [this, header](const QPoint& at) {
        QMenu menu;
        for (int c = 1; c < TopFunctionsModel::ColumnCount; ++c) {
            const bool comparisons = c == TopFunctionsModel::SelfChange || c == TopFunctionsModel::TotalChange
                || c == TopFunctionsModel::BaseSelf || c == TopFunctionsModel::BaseTotal || c == TopFunctionsModel::SelfRelative;
            if (comparisons && !m_model->hasBase())
                continue;
            QAction* a = menu.addAction(m_model->headerData(c, Qt::Horizontal).toString());
            a->setCheckable(true);
            a->setChecked(!m_view->isColumnHidden(c));
            connect(a, &QAction::toggled, this, [this, c](bool on) { m_view->setColumnHidden(c, !on); });
        }
        menu.exec(header->mapToGlobal(at));
    });
    m_view->setToolTip(tr("Click a function to select it everywhere; double-click to zoom to it; right-click to focus"));
    m_filter = new QLineEdit;
    m_filter->setPlaceholderText(tr("Filter functions"));
    m_filter->setClearButtonEnabled(true);
    connect(m_filter, &QLineEdit::textChanged, m_proxy, &QSortFilterProxyModel::setFilterFixedString);
    const auto symbolAt = [this](const QModelIndex& index) {
        return SymbolId(m_proxy->mapToSource(index).data(TopFunctionsModel::SymbolRole).toUInt());
    };
    connect(m_view, &QTableView::doubleClicked, this,
        [this, symbolAt](const QModelIndex& index) { emit functionActivated(symbolAt(index)); });
    connect(m_view, &QTableView::clicked, this,
        [this, symbolAt](const QModelIndex& index) { emit functionClicked(symbolAt(index)); });
    m_view->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_view, &QWidget::customContextMenuRequested, this, [this, symbolAt](const QPoint& at) {
        const QModelIndex index = m_view->indexAt(at);
        if (!index.isValid())
            return;
        const SymbolId symbol = symbolAt(index);
        QMenu menu;
        menu.addAction(tr("&Zoom to Function"), this, [this, symbol] { emit functionActivated(symbol); });
        menu.addAction(tr("&Focus on Function"), this, [this, symbol] { emit focusRequested(symbol); });
        menu.addAction(tr("Show &Source and Disassembly"), this, [this, symbol] { emit sourceRequested(symbol); })
            ->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_U));
        menu.exec(m_view->viewport()->mapToGlobal(at));
    });
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(m_filter);
    layout->addWidget(m_view);
}

void TopFunctionsPanel::clearFilter()
{
    m_filter->clear();
}

void TopFunctionsPanel::setSnapshot(std::shared_ptr<const ProfileSnapshot> snapshot)
{
    m_jobs.cancel();
    m_model->setEntries(nullptr, {}, 0);
    if (!snapshot)
        return;
    using Sides = std::pair<std::vector<TopEntry>, std::vector<TopEntry>>;
    m_jobs.run(
        [snapshot] {
            const StackFilter filter = snapshot->filter();
            Sides sides;
            // A comparison: NEW's side (whichever side the graph is drawn by) and BASE's.
            const size_t shown = snapshot->isDiff() ? snapshot->sampleType % snapshot->diffTypes : snapshot->sampleType;
            sides.first = topFunctions(*snapshot->profile, *snapshot->symbols, shown, &filter);
            if (snapshot->isDiff())
                sides.second = topFunctions(*snapshot->profile, *snapshot->symbols, shown + snapshot->diffTypes, &filter);
            return sides;
        },
        [this, snapshot](Sides sides) {
            const int64_t total = !snapshot->isDiff() ? snapshot->tree->totalValue()
                : snapshot->widthByBase()               ? snapshot->baseSideTotal()
                                                        : snapshot->newSideTotal();
            m_model->setEntries(snapshot, std::move(sides.first), total, sides.second);
            // A comparison shows the changes where the shares were (header menu for the rest).
            const bool diff = m_model->hasBase();
            m_view->setColumnHidden(TopFunctionsModel::SelfChange, !diff);
            m_view->setColumnHidden(TopFunctionsModel::TotalChange, !diff);
            m_view->setColumnHidden(TopFunctionsModel::SelfPercent, diff);
            m_view->setColumnHidden(TopFunctionsModel::TotalPercent, diff);
            if (!diff) // a comparison's columns the user turned on: off without one
                for (const int c : { TopFunctionsModel::BaseSelf, TopFunctionsModel::BaseTotal, TopFunctionsModel::SelfRelative })
                    m_view->setColumnHidden(c, true);
        });
}

} // namespace symflame::ui
