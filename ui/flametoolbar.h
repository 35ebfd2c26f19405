// FlameToolBar: the tool bar over the flame graph. The profile chooser (files of several
// profiles) and the sample type chooser, each shown only when there is a choice; Back and Reset
// Zoom, enabled as the graph's zoom allows; the breadcrumb of the zoom path.
#pragma once

#include "ui/profilesnapshot.h"

#include <QToolBar>

#include <memory>
#include <optional>

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
    Breadcrumb* breadcrumb() const { return m_breadcrumb; }
    /// Back (Backspace) and Reset Zoom (Ctrl+0, Home), for the View menu too.
    QAction* backAction() const { return m_back; }
    QAction* resetZoomAction() const { return m_resetZoom; }

signals:
    void sampleTypeChosen(size_t index);
    /// A profile of the file by index, or none: all of them, merged.
    void profileChosen(std::optional<size_t> index);

private:
    /// The chooser's item for a profile index (item 0: all, merged).
    static int choiceIndex(std::optional<size_t> profileIndex);
    /// Inserts a labelled chooser before before (nullptr: at the end); returns its two actions.
    std::pair<QAction*, QAction*> addChooser(QComboBox* box, const QString& label, QAction* before);

    std::shared_ptr<const ProfileSnapshot> m_snapshot;
    FlameGraphWidget* m_flame;
    QComboBox* m_sampleType = nullptr;
    QComboBox* m_profileChoice = nullptr;
    std::pair<QAction*, QAction*> m_sampleTypeActions; ///< label, chooser
    std::pair<QAction*, QAction*> m_profileActions;
    QAction* m_separator = nullptr;
    QAction* m_back = nullptr;
    QAction* m_resetZoom = nullptr;
    Breadcrumb* m_breadcrumb = nullptr;
};

} // namespace symflame::ui
