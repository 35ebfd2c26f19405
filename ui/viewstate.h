// ViewState: how the shown call tree is cut and shaped, as the user changes it. Focus, ignore and
// hide rules (added from a frame's context menu or Top Functions, shown as removable chips),
// grouping by label and label filters (keep or drop the samples of a process, thread, any label
// value: from a group frame's context menu or the labels panel, shown as chips too), bottom-up
// and collapsed recursion (View menu). Each change asks for a tree built with the new
// options (viewRequested); the rules, actions and chips follow the snapshot actually shown, so a
// cancelled rebuild leaves them as they were. pprof's -focus/-ignore/-hide and hotspot's
// FilterAndZoomStack are the models.
#pragma once

#include "ui/profilesnapshot.h"

#include <QObject>

#include <memory>

class QAction;
class QHBoxLayout;
class QPoint;
class QWidget;

namespace symflame::ui {

class ViewState : public QObject {
    Q_OBJECT
public:
    explicit ViewState(QObject* parent = nullptr);
    ~ViewState() override;

    /// The snapshot shown: its view options are the current state.
    void setSnapshot(std::shared_ptr<const ProfileSnapshot> snapshot);

    /// Adds a rule (unless it is there already) and asks for the tree.
    void addRule(const model::FilterRule& rule);
    void removeRule(int index);
    /// Groups the samples under a frame per value of each key (none: ungrouped) and asks for the tree.
    void setGroupBy(const std::vector<std::string>& keys);
    /// Keeps only (keep) or drops the samples whose label key is value, as pprof's -tagfocus
    /// and -tagignore; shown as a chip.
    void addLabelFilter(const std::string& key, const std::string& value, bool keep);
    /// Removes the index-th label filter: the kept ones first, then the dropped ones.
    void removeLabelFilter(int index);
    /// Keeps only the samples of range (none: all), shown as a chip.
    void setTimeRange(std::optional<model::TimeRange> range);
    /// The context menu of a frame of the flame graph: focus, ignore or hide its function or
    /// binary, copy its name.
    void showFrameMenu(model::NodeId node, const QPoint& globalPos, QWidget* parent);

    /// Checkable View menu actions: bottom-up (Ctrl+B), collapse recursion.
    QAction* bottomUpAction() const { return m_bottomUp; }
    QAction* collapseAction() const { return m_collapse; }
    /// The bar of rule chips (hidden while there are none); the caller lays it out.
    QWidget* chipsBar() const { return m_chipsBar; }

signals:
    /// The tree of the shown profile is wanted with view.
    void viewRequested(const ViewOptions& view);
    /// The frame menu's "Show Source and Disassembly" for a function.
    void sourceRequested(const QString& function);

private:
    void updateChips();

    std::shared_ptr<const ProfileSnapshot> m_snapshot;
    QAction* m_bottomUp = nullptr;
    QAction* m_collapse = nullptr;
    QWidget* m_chipsBar = nullptr;
    QHBoxLayout* m_chipsLayout = nullptr;
};

} // namespace symflame::ui
