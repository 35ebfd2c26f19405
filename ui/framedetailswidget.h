// The frame details panel: everything known about the selected frame (function, system name,
// file:line:column, the inline chain, address, binary, build ID with a copy button, and where
// its debug info came from when it was symbolized in this session; for a JavaScript frame the
// generated position and what became of its source map).
#pragma once

#include "symbolize/js/sourcemapresolver.h"
#include "ui/profilesnapshot.h"

#include <QMap>
#include <QWidget>

#include <memory>

class QLabel;
class QPushButton;
class QTextBrowser;

namespace symflame::ui {

class FrameDetailsWidget : public QWidget {
    Q_OBJECT
public:
    explicit FrameDetailsWidget(QWidget* parent = nullptr);

    /// Shows node of snapshot's tree (invalid: nothing selected). debugSources maps a mapping
    /// index to a line saying where its symbols came from; sourceMaps, the source-map report of
    /// the pass that made the snapshot's profile (null: none ran).
    void setFrame(std::shared_ptr<const ProfileSnapshot> snapshot, model::NodeId node,
        const QMap<int, QString>& debugSources = {}, const symbolize::SourceMapReport* sourceMaps = nullptr);
    /// The text shown (plain), for tests.
    QString text() const;
    /// The build ID offered by the copy button (empty when none).
    QString buildId() const { return m_buildId; }

private:
    QTextBrowser* m_text = nullptr;
    QPushButton* m_copyBuildId = nullptr;
    QString m_buildId;
};

} // namespace symflame::ui
