// The top-functions table as a Qt item model over an immutable list of model::TopEntry: one row
// per function with self, self %, total, total % and the binary. Sorting and filtering are left
// to a QSortFilterProxyModel (SortRole gives the raw numbers).
#pragma once

#include "model/analysis/toptable.h"
#include "ui/profilesnapshot.h"

#include <QAbstractTableModel>
#include <QSet>

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

private:
    /// The function's name, with its file:line when another row has the same name.
    QString functionText(model::SymbolId symbol) const;

    std::shared_ptr<const ProfileSnapshot> m_snapshot;
    QSet<QString> m_sharedNames; ///< names of more than one row
    std::vector<model::TopEntry> m_entries;
    int64_t m_total = 0;
    std::vector<int64_t> m_baseFlat, m_baseCum; ///< per symbol, a comparison's BASE values
};

} // namespace symflame::ui
