// The binaries panel's table: one row per binary of the profile (symbolize::triageBinaries),
// with name, status, self and total share, locations symbolized / total, build ID, path and
// where its debug info came from. Sorting by a column sorts by its value (UserRole).
#pragma once

#include "symbolize/pass/binarytriage.h"

#include <QAbstractTableModel>

namespace symflame::ui {

class BinariesModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Name, Status, Self, Total, Locations, BuildId, Path, Source, ColumnCount };
    /// Roles: Qt::DisplayRole text, Qt::ToolTipRole the detail, SortRole a value to sort by,
    /// ProblemRole true for rows the user can fix, RowIndexRole the row's index in rows().
    enum Role { SortRole = Qt::UserRole + 1, ProblemRole, RowIndexRole };

    explicit BinariesModel(QObject* parent = nullptr);

    /// Replaces the rows; totalValue is the profile's total of the sample type (for percentages).
    void setRows(std::vector<symbolize::BinaryRow> rows, int64_t totalValue);
    const std::vector<symbolize::BinaryRow>& rows() const { return m_rows; }
    const symbolize::BinaryRow* row(int r) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    std::vector<symbolize::BinaryRow> m_rows;
    int64_t m_total = 0;
};

} // namespace symflame::ui
