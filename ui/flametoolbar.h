// FlameToolBar: the tool bar over the flame graph. The profile chooser (files of several
// profiles), the sample type chooser and the group-by chooser (profiles whose samples have
// labels: by process, by thread, by any label key, as Parca's "group by" and pprof's -tagroot),
// each shown only when there is a choice; Back and Reset Zoom, enabled as the graph's zoom
// allows; the breadcrumb of the zoom path.
#pragma once

#include "ui/profilesnapshot.h"

#include <QToolBar>

#include <memory>
#include <optional>
#include <string>
#include <vector>

class QAction;
class QComboBox;

namespace symflame::ui {

class Breadcrumb;
class FlameGraphWidget;

class FlameToolBar : public QToolBar {
    Q_OBJECT
public:
    explicit FlameToolBar(FlameGraphWidget* flame, QWidget* parent = nullptr);

    /// Fills the choosers for snapshot (its profile's sample types and the file's profiles).
    void setSnapshot(std::shared_ptr<const ProfileSnapshot> snapshot);
    /// While busy the choosers are disabled; after, they show the snapshot's choice again (a
    /// cancelled switch leaves the one still shown).
    void setBusy(bool busy);

    QComboBox* profileChoice() const { return m_profileChoice; }
    QComboBox* groupByChoice() const { return m_groupBy; }
    Breadcrumb* breadcrumb() const { return m_breadcrumb; }
    /// Back (Backspace) and Reset Zoom (Ctrl+0, Home), for the View menu too.
    QAction* backAction() const { return m_back; }
    QAction* resetZoomAction() const { return m_resetZoom; }

signals:
    void sampleTypeChosen(size_t index);
    /// A profile of the file by index, or none: all of them, merged.
    void profileChosen(std::optional<size_t> index);
    /// Label keys to group by, outermost first; empty: no grouping.
    void groupByChosen(const std::vector<std::string>& keys);

private:
    /// The group-by items for the snapshot's label keys, the current grouping selected.
    void fillGroupBy();
    void selectGrouping();
    /// The chooser's item for a profile index (item 0: all, merged).
    static int choiceIndex(std::optional<size_t> profileIndex);
    /// Inserts a labelled chooser before before (nullptr: at the end); returns its two actions.
    std::pair<QAction*, QAction*> addChooser(QComboBox* box, const QString& label, QAction* before);

    std::shared_ptr<const ProfileSnapshot> m_snapshot;
    FlameGraphWidget* m_flame;
    QComboBox* m_sampleType = nullptr;
    QComboBox* m_profileChoice = nullptr;
    QComboBox* m_groupBy = nullptr;
    std::vector<std::vector<std::string>> m_groupings; ///< per group-by item, its keys
    std::pair<QAction*, QAction*> m_groupByActions;
    std::pair<QAction*, QAction*> m_sampleTypeActions; ///< label, chooser
    std::pair<QAction*, QAction*> m_profileActions;
    QAction* m_separator = nullptr;
    QAction* m_back = nullptr;
    QAction* m_resetZoom = nullptr;
    Breadcrumb* m_breadcrumb = nullptr;
};

} // namespace symflame::ui
