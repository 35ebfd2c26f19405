// SearchBar: the Find bar above the flame graph (Ctrl+F). A pattern, plain or RE2, matched
// against function, file and binary names of the shown snapshot; the matching symbols are
// highlighted, the result line says how many frames and what share of the samples, and Enter
// steps through the matching frames, the largest first.
#pragma once

#include "model/analysis/search.h"
#include "ui/jobtracker.h"
#include "ui/profilesnapshot.h"

#include <QWidget>

#include <cstdint>
#include <memory>
#include <vector>

class QCheckBox;
class QLabel;
class QLineEdit;

namespace symflame::ui {

class SearchBar : public QWidget {
    Q_OBJECT
public:
    explicit SearchBar(QWidget* parent = nullptr);

    /// The snapshot searched; the pattern is applied to it again.
    void setSnapshot(std::shared_ptr<const ProfileSnapshot> snapshot);
    /// Shows the bar with pattern and applies it.
    void search(const QString& pattern, bool regex);
    /// Shows the bar with the pattern selected for typing over.
    void activate();
    /// Applies the pattern again (highlightChanged is emitted).
    void apply();
    /// Trees with more nodes than this are searched on the thread pool (tests lower it).
    void setSyncNodeLimit(size_t nodes) { m_syncNodeLimit = nodes; }
    /// A search runs in the background; its result is not shown yet.
    bool isSearching() const { return m_pending; }
    /// "N frames, X% of samples", or why the pattern is not valid; empty without a pattern.
    QString resultText() const;

signals:
    /// Per symbol of the snapshot, 1 where it matches; empty when nothing is searched.
    void highlightChanged(std::vector<uint8_t> symbols);
    /// Enter: the next matching frame, to be shown and selected.
    void stepTo(model::NodeId node);
    /// The bar was closed (the pattern cleared).
    void closed();

private:
    void step();

    std::shared_ptr<const ProfileSnapshot> m_snapshot;
    QLineEdit* m_edit = nullptr;
    QCheckBox* m_regex = nullptr;
    QLabel* m_result = nullptr;
    model::MatchStepper m_matches;
    size_t m_syncNodeLimit = 20000;
    bool m_pending = false; ///< a background search's result is awaited
    bool m_stepWhenReady = false; ///< Enter was pressed while it ran
    JobTracker m_jobs { this };
};

} // namespace symflame::ui
