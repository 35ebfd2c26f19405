// The Top Functions dock's contents: a filter field over a sortable table of the functions of
// the shown snapshot (self, total, binary), computed in the background for each snapshot.
#pragma once

#include "model/core/ids.h"
#include "ui/jobtracker.h"
#include "ui/profilesnapshot.h"

#include <QWidget>

#include <memory>

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

signals:
    /// A row was clicked.
    void functionClicked(model::SymbolId function);
    /// A row was double-clicked: focus on the function of that name.
    void focusRequested(const QString& name);

private:
    TopFunctionsModel* m_model = nullptr;
    QSortFilterProxyModel* m_proxy = nullptr;
    QTableView* m_view = nullptr;
    JobTracker m_jobs { this };
};

} // namespace symflame::ui
