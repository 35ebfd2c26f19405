// The debuginfod settings the viewer uses, kept in QSettings, and the dialog that edits them.
// The viewer contacts no server the user has not enabled: servers listed in DEBUGINFOD_URLS are
// used only after the user said yes once (askAboutEnvironmentServers), and that answer is
// remembered; "work offline" turns every server off.
#pragma once

#include "symbolize/debuginfodclient.h"

#include <QDialog>
#include <QStringList>

class QCheckBox;
class QLineEdit;
class QPlainTextEdit;
class QSpinBox;
class QWidget;

namespace symflame::ui {

struct DebuginfodSettings {
    QStringList servers; ///< enabled by the user, in query order
    bool offline = false;
    int timeoutSeconds = 30;
    int maxSizeMiB = 0; ///< 0 = no limit
    QString cacheDir; ///< empty = the standard client cache
    int parallelDownloads = 4;
    /// Whether the servers of DEBUGINFOD_URLS are used too: unset until the user was asked.
    enum class EnvChoice { NotAsked, Use, Ignore } envChoice = EnvChoice::NotAsked;

    static DebuginfodSettings load();
    void save() const;

    /// The servers the symbolization pass may contact now: the user's, plus those of
    /// DEBUGINFOD_URLS when the user chose to use them; none when offline.
    symbolize::DebuginfodOptions toOptions() const;
};

/// When DEBUGINFOD_URLS names servers and the user was never asked, asks once (a message box on
/// parent) whether to use them and saves the answer. Returns the settings after that.
DebuginfodSettings askAboutEnvironmentServers(QWidget* parent);

class DebuginfodSettingsDialog : public QDialog {
    Q_OBJECT
public:
    explicit DebuginfodSettingsDialog(const DebuginfodSettings& settings, QWidget* parent = nullptr);
    /// What the fields say now.
    DebuginfodSettings settings() const;

private:
    DebuginfodSettings m_initial;
    QPlainTextEdit* m_servers = nullptr;
    QCheckBox* m_useEnv = nullptr;
    QCheckBox* m_offline = nullptr;
    QSpinBox* m_timeout = nullptr;
    QSpinBox* m_maxSize = nullptr;
    QSpinBox* m_parallel = nullptr;
    QLineEdit* m_cacheDir = nullptr;
};

} // namespace symflame::ui
