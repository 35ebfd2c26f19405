// The Labels dock's contents: every label key of the shown profile's samples (process, thread,
// container, pprof.Do labels, ...) with its values and each value's share of the shown sample
// type, largest first, computed in the background for each snapshot. Double-clicking a value
// keeps only its samples; the context menu keeps or drops them, or groups by the key (as the
// Firefox Profiler's track selection and pprof's -tagfocus / -tagroot).
#pragma once

#include "ui/jobtracker.h"
#include "ui/profilesnapshot.h"

#include <QWidget>

#include <memory>
#include <string>

class QTreeWidget;
class QTreeWidgetItem;
class QLabel;

namespace symflame::ui {

class LabelsPanel : public QWidget {
    Q_OBJECT
public:
    explicit LabelsPanel(QWidget* parent = nullptr);

    /// Lists snapshot's label keys and values (null: nothing).
    void setSnapshot(std::shared_ptr<const ProfileSnapshot> snapshot);
    QTreeWidget* tree() const { return m_tree; }

signals:
    /// Keep only (keep) or drop the samples whose label key is value.
    void filterRequested(const std::string& key, const std::string& value, bool keep);
    /// Group by key.
    void groupRequested(const std::string& key);

private:
    void showMenu(const QPoint& pos);

    QTreeWidget* m_tree = nullptr;
    QLabel* m_empty = nullptr;
    JobTracker m_jobs { this };
};

} // namespace symflame::ui
