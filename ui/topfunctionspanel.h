// The Top Functions dock's contents: a filter field over a sortable table of the functions of
// the shown snapshot (self, total, binary), computed in the background for each snapshot.
#pragma once

#include "model/core/ids.h"
#include "ui/jobtracker.h"
#include "ui/profilesnapshot.h"

#include <QWidget>

#include <memory>

class QLineEdit;
class QSortFilterProxyModel;
class QTableView;

namespace symflame::ui {

class TopFunctionsModel;

class TopFunctionsPanel : public QWidget {
    Q_OBJECT
public:
    explicit TopFunctionsPanel(QWidget* parent = nullptr);

    /// Clears the table and fills it in the background with snapshot's functions (null: empty).
    void setSnapshot(std::shared_ptr<const ProfileSnapshot> snapshot);
    TopFunctionsModel* model() const { return m_model; }

    /// Empties the filter field (a new file).
    void clearFilter();

signals:
    /// A row was clicked: select the function everywhere.
    void functionClicked(model::SymbolId function);
    /// A row was double-clicked (or "Zoom to Function"): zoom to it.
    void functionActivated(model::SymbolId function);
    /// "Focus on Function" in a row's menu.
    void focusRequested(model::SymbolId function);
    /// The row menu's "Show Source and Disassembly".
    void sourceRequested(model::SymbolId function);

private:
    TopFunctionsModel* m_model = nullptr;
    QSortFilterProxyModel* m_proxy = nullptr;
    QTableView* m_view = nullptr;
    QLineEdit* m_filter = nullptr;
    JobTracker m_jobs { this };
};

} // namespace symflame::ui
