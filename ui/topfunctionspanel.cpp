#include "ui/topfunctionspanel.h"

#include "model/analysis/toptable.h"
#include "ui/topfunctionsmodel.h"

#include <QHeaderView>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

namespace symflame::ui {

using namespace symflame::model;

TopFunctionsPanel::TopFunctionsPanel(QWidget* parent)
    : QWidget(parent)
{
    m_model = new TopFunctionsModel(this);
    m_proxy = new QSortFilterProxyModel(this);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(TopFunctionsModel::SortRole);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_proxy->setFilterKeyColumn(TopFunctionsModel::Function);
    m_view = new QTableView;
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(TopFunctionsModel::Self, Qt::DescendingOrder);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 4);
    m_view->horizontalHeader()->setSectionResizeMode(TopFunctionsModel::Function, QHeaderView::Stretch);
    m_view->setToolTip(tr("Double-click a function to focus on it"));
    auto* filter = new QLineEdit;
    filter->setPlaceholderText(tr("Filter functions"));
    filter->setClearButtonEnabled(true);
    connect(filter, &QLineEdit::textChanged, m_proxy, &QSortFilterProxyModel::setFilterFixedString);
    connect(m_view, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
        emit focusRequested(m_proxy->index(index.row(), TopFunctionsModel::Function).data().toString());
    });
    connect(m_view, &QTableView::clicked, this, [this](const QModelIndex& index) {
        const QModelIndex source = m_proxy->mapToSource(index);
        emit functionClicked(SymbolId(source.data(TopFunctionsModel::SymbolRole).toUInt()));
    });
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(filter);
    layout->addWidget(m_view);
}

void TopFunctionsPanel::setSnapshot(std::shared_ptr<const ProfileSnapshot> snapshot)
{
    m_jobs.cancel();
    m_model->setEntries(nullptr, {}, 0);
    if (!snapshot)
        return;
    m_jobs.run(
        [snapshot] {
            const StackFilter filter = snapshot->filter();
            return topFunctions(*snapshot->profile, *snapshot->symbols, snapshot->sampleType, &filter);
        },
        [this, snapshot](std::vector<TopEntry> entries) {
            m_model->setEntries(snapshot, std::move(entries), snapshot->tree->totalValue());
        });
}

} // namespace symflame::ui
