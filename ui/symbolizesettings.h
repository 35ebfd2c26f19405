// The viewer's symbolization settings, kept in QSettings, and the dialog that edits them: where
// local debug info is looked for (debug directories, search directories, path maps), where
// JavaScript source maps are looked for (source-map directories), and which
// debuginfod servers may be asked, and which binaries are read in a separate process. The viewer contacts no server the user has not enabled:
// servers listed in DEBUGINFOD_URLS are used only after the user said yes once
// (askAboutEnvironmentServers), and that answer is remembered; "work offline" turns every
// server off.
#pragma once

#include "symbolize/locate/debuginfodclient.h"
#include "symbolize/pass/symbolizationpass.h"

#include <QDialog>
#include <QStringList>

class QCheckBox;
class QComboBox;
class QLineEdit;
class QPlainTextEdit;
class QSpinBox;
class QTabWidget;
class QWidget;

namespace symflame::ui {

struct DebuginfodSettings {
    QStringList servers; ///< enabled by the user, in query order
    bool offline = false;
    int timeoutSeconds = symbolize::defaultDebuginfodTimeout(); ///< $DEBUGINFOD_TIMEOUT, else 10
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

struct LocalDebugSettings {
    QStringList debugDirs; ///< searched for <dir>/.build-id/xx/yyyy.debug, before the default
    bool useDefaultDebugDir = true; ///< also /usr/lib/debug
    bool useClientCache = true; ///< also the debuginfod client cache, read offline
    QStringList searchDirs; ///< scanned for binaries and debug files by build ID
    QStringList pathMaps; ///< "FROM=TO"
    QStringList sourceMapDirs; ///< searched for <script>.map; sourceMappingURLs may point here
    /// Where the source view looks for a source file not at its recorded path (its path's
    /// tails under each, after the path maps).
    QStringList sourceDirs;
    /// Which binaries are read in a separate process (a debug file that crashes or hangs the
    /// reader then fails only its binary), and how long a silent reader is waited for.
    symbolize::IsolationPolicy isolation = symbolize::IsolationPolicy::Downloaded;
    int isolationTimeoutSeconds = 60;

    static LocalDebugSettings load();
    void save() const;
    symbolize::LocatorOptions toOptions() const; ///< invalid path maps are left out
};

/// Both, as the symbolization pass takes them.
struct SymbolizeSettings {
    LocalDebugSettings local;
    DebuginfodSettings debuginfod;

    static SymbolizeSettings load();
    void save() const;
    symbolize::SymbolizeOptions toOptions() const;
};

/// When DEBUGINFOD_URLS names servers and the user was never asked, asks once (a message box on
/// parent) whether to use them and saves the answer. Returns the settings after that.
DebuginfodSettings askAboutEnvironmentServers(QWidget* parent);

class SymbolizeSettingsDialog : public QDialog {
    Q_OBJECT
public:
    explicit SymbolizeSettingsDialog(const SymbolizeSettings& settings, QWidget* parent = nullptr);
    /// What the fields say now.
    SymbolizeSettings settings() const;
    /// The first path map line that is not FROM=TO, with the reason; empty when all are valid.
    QString pathMapError() const;
    QTabWidget* tabs() const { return m_tabs; }

    void accept() override;

private:
    SymbolizeSettings m_initial;
    QTabWidget* m_tabs = nullptr;
    QPlainTextEdit* m_debugDirs = nullptr;
    QCheckBox* m_defaultDebugDir = nullptr;
    QCheckBox* m_clientCache = nullptr;
    QPlainTextEdit* m_searchDirs = nullptr;
    QPlainTextEdit* m_pathMaps = nullptr;
    QPlainTextEdit* m_sourceMapDirs = nullptr;
    QPlainTextEdit* m_sourceDirs = nullptr;
    QComboBox* m_isolation = nullptr;
    QSpinBox* m_isolationTimeout = nullptr;
    QPlainTextEdit* m_servers = nullptr;
    QCheckBox* m_useEnv = nullptr;
    QCheckBox* m_offline = nullptr;
    QSpinBox* m_timeout = nullptr;
    QSpinBox* m_maxSize = nullptr;
    QSpinBox* m_parallel = nullptr;
    QLineEdit* m_cacheDir = nullptr;
};

} // namespace symflame::ui
