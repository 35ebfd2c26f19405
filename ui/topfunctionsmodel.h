// The top-functions table as a Qt item model over a list of model::TopEntry: one row per function
// with self, self %, total, total % and the binary. The model sorts its rows itself, on typed keys
// (a name's rank, the raw numbers): a QSortFilterProxyModel compares QVariants of data() instead,
// which took most of a second on the 55k functions of a 1M-sample profile. TopFunctionsProxy
// filters and passes sorting on to it. SortRole still gives the raw numbers.
#pragma once

#include "model/analysis/toptable.h"
#include "ui/profilesnapshot.h"

#include <QAbstractTableModel>
#include <QSet>
#include <QSortFilterProxyModel>

#include <memory>
#include <vector>

namespace symflame::ui {

class TopFunctionsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    /// SelfChange and TotalChange: a comparison's change from BASE ("+12ms (+25.0%)"); empty
    /// for a single profile (the panel hides them then).
    /// BaseSelf, BaseTotal and SelfRelative (the change of self against the base's) are a
    /// comparison's, to turn on from the header menu.
    enum Column { Function, Self, SelfPercent, Total, TotalPercent, SelfChange, TotalChange, BaseSelf, BaseTotal, SelfRelative, Binary, ColumnCount };
    static constexpr int SortRole = Qt::UserRole + 1;
    static constexpr int SymbolRole = Qt::UserRole + 2; ///< the row's model::SymbolId value

    explicit TopFunctionsModel(QObject* parent = nullptr);

    /// Replaces every row; total is what the percentages are of.
    /// base: a comparison's BASE side (its top entries), whose functions absent from entries get
    /// rows of their own (value 0 in NEW: they vanished).
    void setEntries(std::shared_ptr<const ProfileSnapshot> snapshot, std::vector<model::TopEntry> entries,
        int64_t total, const std::vector<model::TopEntry>& base = {});
    bool hasBase() const { return !m_baseFlat.empty(); }
    const std::vector<model::TopEntry>& entries() const { return m_entries; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    /// Rows in the order a QSortFilterProxyModel sorting SortRole gives (a stable sort: rows of
    /// equal keys keep their order), kept for the next setEntries.
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

private:
    /// The function's name, with its file:line when another row has the same name.
    QString functionText(model::SymbolId symbol) const;
    /// Self, Total, their shares, their changes and BASE's: the columns of one int64 each.
    static bool isNumberColumn(int column);
    /// That number of e (a change or BASE's value only when hasBase()): SortRole's, and the sort's key.
    int64_t numberOf(const model::TopEntry& e, int column) const;
    /// The change of self against BASE's, +infinity for a function new in NEW (when hasBase()).
    double relativeChange(const model::TopEntry& e) const;
    /// The file name of e's binary; empty without one.
    std::string_view binaryName(const model::TopEntry& e) const;
    /// Puts m_entries in the order of column and order; returns, by new row, its row before.
    std::vector<uint32_t> sortEntries(int column, Qt::SortOrder order);

    std::shared_ptr<const ProfileSnapshot> m_snapshot;
    QSet<QString> m_sharedNames; ///< names of more than one row
    std::vector<model::TopEntry> m_entries;
    std::vector<QString> m_text; ///< by symbol: the Function column's text, made once
    int m_sortColumn = -1; ///< -1: the order setEntries got
    Qt::SortOrder m_sortOrder = Qt::AscendingOrder;
    int64_t m_total = 0;
    std::vector<int64_t> m_baseFlat, m_baseCum; ///< per symbol, a comparison's BASE values
};

/// The top-functions table's proxy: filters rows (by the Function column) and hands sorting to
/// the TopFunctionsModel under it, whose order it keeps.
class TopFunctionsProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;
};

} // namespace symflame::ui
