// The Callers and Callees dock's contents (the sandwich view): the merged callers of one
// function as a flame graph above it and its callees as an icicle below, built in the background.
#pragma once

#include "model/core/ids.h"
#include "ui/jobtracker.h"
#include "ui/profilesnapshot.h"

#include <QWidget>

#include <memory>

class QLabel;

namespace symflame::ui {

class FlameGraphWidget;

class CallersCalleesPanel : public QWidget {
    Q_OBJECT
public:
    explicit CallersCalleesPanel(QWidget* parent = nullptr);

    /// Shows function of snapshot (an invalid function or null snapshot: nothing selected).
    void showFunction(const std::shared_ptr<const ProfileSnapshot>& snapshot, model::SymbolId function);
    FlameGraphWidget* callersGraph() const { return m_callers; }
    FlameGraphWidget* calleesGraph() const { return m_callees; }

private:
    FlameGraphWidget* m_callers = nullptr;
    FlameGraphWidget* m_callees = nullptr;
    QLabel* m_label = nullptr;
    JobTracker m_jobs { this };
};

} // namespace symflame::ui
