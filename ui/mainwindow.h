// The main window: File menu (Open, Open Recent, Export, Quit), drag and drop, a sample-type
// chooser, search (Ctrl+F), color schemes, flame/icicle and top-down/bottom-up views, focus /
// ignore / hide rules shown as removable chips, frame details and top functions docks, and
// background loading with progress and Cancel in the status bar. A JobTracker drops results of
// jobs that were cancelled or replaced by a newer one.
#pragma once

#include "symbolize/pass/symbolizationpass.h"

#include "ui/jobtracker.h"
#include "ui/legendwidget.h"
#include "ui/profilesnapshot.h"

#include <QMainWindow>
#include <QMap>
#include <QString>
#include <QStringList>

#include <functional>
#include <memory>
#include <vector>

class QAction;
class QCheckBox;
class QDockWidget;
class QHBoxLayout;
class QLineEdit;
class QListWidget;
class QComboBox;
class QLabel;
class QMenu;
class QProgressBar;
class QPushButton;
class QScrollArea;
class QToolBar;

namespace symflame::ui {

class BinariesPanel;
class Breadcrumb;
class CallersCalleesPanel;
class TopFunctionsPanel;

class FlameGraphWidget;
class FrameDetailsWidget;
class TopFunctionsModel;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    /// Loads path in the background; the current profile stays until the new one is ready.
    void openFile(const QString& path);
    /// Shows an already built snapshot (tests, and the end of a background load).
    void showSnapshot(std::shared_ptr<const ProfileSnapshot> snapshot);

    FlameGraphWidget* flameGraph() const { return m_flame; }
    /// The choice of profile for files of several (OTLP); hidden when the file holds one.
    QComboBox* profileChoice() const { return m_profileChoice; }
    bool isLoading() const { return m_loading; }
    QString currentFile() const { return m_path; }
    static QStringList recentFiles();

    /// Shows the search bar with pattern and applies it (Ctrl+F and typing do the same).
    void search(const QString& pattern, bool regex = false);
    /// The search result line ("N frames, X% of samples").
    QString searchResultText() const;
    /// Adds a focus, ignore or hide rule and rebuilds the graph in the background.
    void addRule(const model::FilterRule& rule);
    void removeRule(int index);
    TopFunctionsModel* topFunctionsModel() const;
    FrameDetailsWidget* frameDetails() const { return m_details; }
    /// The color legend (one row per binary, status or frame type; clicking one highlights it).
    QListWidget* legend() const { return m_legend; }
    /// The two halves of the sandwich view of the selected function.
    FlameGraphWidget* callersGraph() const;
    FlameGraphWidget* calleesGraph() const;
    /// The zoom path in the toolbar: a button per ancestor of the zoomed frame ("all" first,
    /// each with its node id in the "node" property) that zooms back to it, then the frame.
    QWidget* breadcrumb() const;
    /// Writes the current view to path (.svg or an image); false with a message on failure.
    bool exportTo(const QString& path, QString* error = nullptr);

    /// When false, load errors are reported by loadFailed only, without a message box (tests).
    void setErrorDialogsEnabled(bool enabled) { m_errorDialogs = enabled; }

signals:
    /// A load or sample-type switch finished and its result is shown.
    void loadFinished(const QString& path);
    /// A big profile's preview is shown (frames narrower than a pixel of the flame graph left
    /// out, see previewPartsFor); loadFinished follows when the complete tree replaces it.
    void previewShown(const QString& path);
    /// Background symbolization finished and its result is shown (resolved of locations).
    void symbolizationFinished(qulonglong resolved, qulonglong locations);
    /// A load failed; message is the one-line reason.
    void loadFailed(const QString& path, const QString& message);

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    struct JobOutcome {
        std::shared_ptr<const ProfileSnapshot> snapshot;
        QString error; // empty on success
        bool cancelled = false;
        bool preview = false; ///< a first view of a big profile; the complete one follows
    };
    /// Jobs that load a profile pass the sink on (loadSnapshot); the others ignore it.
    using Job = std::function<model::Result<std::shared_ptr<const ProfileSnapshot>>(model::Progress*, const PreviewSink&)>;

    void createMenus();
    /// The preview cut for the flame graph at its present width (see previewPartsFor).
    int64_t previewParts() const;
    /// keepView: the result replaces the shown snapshot keeping zoom and selection (live
    /// symbolization) and is announced by symbolizationFinished, not loadFinished.
    void startJob(const QString& path, const QString& what, Job job, bool keepView = false);
    void startSymbolization();
    void finishJob(const QString& path, const JobOutcome& outcome);
    /// Shows a load's preview: painted and explorable while the complete tree is grown.
    void showPreview(const JobOutcome& outcome);
    void cancelLoading();
    void setLoadingUi(bool loading, const QString& what = {});
    void chooseSampleType(int index);
    /// Files of several profiles (OTLP): reads profile index of the file shown.
    void chooseProfile(int index);
    void addRecentFile(const QString& path);
    void removeRecentFile(const QString& path);
    void updateRecentMenu();
    void updateTitle();
    void updateStatus();
    void openDialog();
    void createSearchBar();
    void createDocks();
    void applySearch();
    void stepSearch();
    void rebuildView(const ViewOptions& view);
    void updateChips();
    void showFrameMenu(model::NodeId node, const QPoint& globalPos);
    void exportDialog();
    void showShortcuts();
    void updateLegend();

    FlameGraphWidget* m_flame = nullptr;
    QScrollArea* m_scroll = nullptr;
    QToolBar* m_toolbar = nullptr;
    QAction* m_sampleTypeLabelAction = nullptr;
    QAction* m_sampleTypeAction = nullptr;
    QAction* m_sampleTypeSeparator = nullptr;
    QComboBox* m_sampleType = nullptr;
    QComboBox* m_profileChoice = nullptr; ///< the profiles of the file, when it holds several
    QAction* m_profileChoiceAction = nullptr;
    QAction* m_profileChoiceLabelAction = nullptr;
    QLabel* m_rootLabel = nullptr;
    Breadcrumb* m_breadcrumb = nullptr;
    QAction* m_backAction = nullptr;
    QAction* m_resetZoomAction = nullptr;
    QMenu* m_recentMenu = nullptr;
    QLabel* m_statusLabel = nullptr;
    QLabel* m_hoverLabel = nullptr;
    QProgressBar* m_progress = nullptr;
    QPushButton* m_cancel = nullptr;

    QWidget* m_searchBar = nullptr;
    QLineEdit* m_searchEdit = nullptr;
    QCheckBox* m_searchRegex = nullptr;
    QLabel* m_searchResult = nullptr;
    std::vector<model::NodeId> m_matches;
    size_t m_matchIndex = 0;
    QWidget* m_chipsBar = nullptr;
    QHBoxLayout* m_chipsLayout = nullptr;
    QAction* m_icicleAction = nullptr;
    QAction* m_bottomUpAction = nullptr;
    QAction* m_collapseAction = nullptr;
    FrameDetailsWidget* m_details = nullptr;
    TopFunctionsPanel* m_topFunctions = nullptr;
    LegendWidget* m_legend = nullptr;
    CallersCalleesPanel* m_sandwich = nullptr;
    bool m_jobKeepsView = false;
    bool m_showingPreview = false; ///< the shown snapshot is a load's preview
    std::shared_ptr<QMap<int, QString>> m_debugSources; ///< per mapping index, from the last symbolization
    std::shared_ptr<std::pair<qulonglong, qulonglong>> m_symbolizeCounts;
    QDockWidget* m_legendDock = nullptr;
    BinariesPanel* m_binaries = nullptr;
    /// The last symbolization pass's report, for the snapshot it produced (binaries panel).
    std::shared_ptr<const symbolize::SymbolizeReport> m_report;
    std::shared_ptr<symbolize::SymbolizeReport> m_pendingReport; // filled by the running pass
    void updateBinaries();
    void editSymbolizeSettings();

    std::shared_ptr<const ProfileSnapshot> m_snapshot;
    QString m_path;
    JobTracker m_jobs { this }; ///< loading, switching the view, symbolizing: one at a time
    bool m_loading = false;
    bool m_errorDialogs = true;
    bool m_stickToBottom = true;
};

} // namespace symflame::ui
