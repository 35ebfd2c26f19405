// The main window, a shell: menus (File, View, Settings, Help), the toolbar (profile and
// sample type choosers, zoom, breadcrumb), the docks, drag and drop, and the status bar with
// progress and Cancel. What it shows comes from three objects it wires up: ProfileSession
// (loading, previews, rebuilding, symbolizing in the background), ViewState (rules, chips,
// bottom-up, collapsed recursion) and SearchBar (Ctrl+F).
#pragma once

#include "model/io/profileio.h"
#include "ui/flamegraphpainter.h"
#include "ui/profilesession.h"
#include "ui/profilesnapshot.h"

#include <QMainWindow>
#include <QString>
#include <QStringList>

#include <memory>

class QAction;
class QComboBox;
class QDockWidget;
class QLabel;
class QListWidget;
class QProgressBar;
class QPushButton;
class QScrollArea;
class QStackedWidget;

namespace symflame::ui {

class BinariesPanel;
class CallersCalleesPanel;
class FlameGraphWidget;
class FlameToolBar;
class FrameDetailsWidget;
class LabelsPanel;
class TimelineWidget;
class LegendWidget;
class NoticeBar;
class RecentFiles;
class SearchBar;
class SourcePanel;
class StartPage;
class TopFunctionsModel;
class TopFunctionsPanel;
class ViewState;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    /// Loads path in the background; the current profile stays until the new one is ready.
    void openFile(const QString& path);
    /// Loads the files and merges them into one profile (File › Open and drops of several).
    void openFiles(const QStringList& paths);
    /// Compares the profile shown with the file at basePath (File › Compare With…): both
    /// symbolized, then NEW's graph colored by its change from BASE, normalized to BASE's total
    /// unless View › Normalize Comparison is off. Before a profile is shown, it is compared once
    /// loaded (`symflame NEW --base BASE`).
    void compareWith(const QString& basePath);
    /// Back to the profile alone (File › Stop Comparing).
    void stopComparing();
    bool isComparing() const;
    /// Shows an already built snapshot (tests, and the end of a background load).
    void showSnapshot(std::shared_ptr<const ProfileSnapshot> snapshot);

    FlameGraphWidget* flameGraph() const { return m_flame; }
    /// The choice of profile for files of several (OTLP); hidden when the file holds one.
    QComboBox* profileChoice() const;
    bool isLoading() const { return m_loading; }
    QString currentFile() const { return m_session->path(); }
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
    QListWidget* legend() const;
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

    /// The window geometry and panel layout the user left (saved when the window closes), or
    /// the default layout at a size that fits the screen.
    void restoreLayout();
    /// The default layout: panels where they start, the window sized for the screen.
    void resetLayout();

    /// Writes the shown profile as symbolized (before grouping by label) to path in the
    /// background, atomically and never over the file it was read from; profileSaved follows.
    void saveSymbolizedProfile(const QString& path, model::ProfileFormat format);

    /// Selects function everywhere: its frames highlighted in the flame graph, its hottest frame
    /// selected (frame details, callers and callees); zoom also zooms to that frame.
    void selectFunction(model::SymbolId function, bool zoom);

    /// Opens the Source and Disassembly panel on function (a display name of the shown profile).
    void showSource(const QString& function);
    SourcePanel* sourcePanel() const { return m_sourcePanel; }
    /// The warning strip above the flame graph (truncated stacks of the profile shown).
    NoticeBar* noticeBar() const { return m_notice; }

signals:
    /// A load or sample-type switch finished and its result is shown.
    void loadFinished(const QString& path);
    /// A big profile's preview is shown (frames narrower than a pixel of the flame graph left
    /// out, see previewPartsFor); loadFinished follows when the complete tree replaces it.
    void previewShown(const QString& path);
    /// Background symbolization finished and its result is shown (resolved of locations).
    void symbolizationFinished(qulonglong resolved, qulonglong locations);
    /// saveSymbolizedProfile finished; error is empty when the file was written.
    void profileSaved(const QString& path, const QString& error);
    /// A load failed; message is the one-line reason.
    void loadFailed(const QString& path, const QString& message);

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

    void closeEvent(QCloseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void createToolBar();
    void createStatusBar();
    void createMenus();
    void createDocks();
    /// The preview cut for the flame graph at its present width (see previewPartsFor).
    int64_t previewParts() const;
    /// Updates every view for the session's snapshot.
    void showCurrent();
    void showFinished(
        ProfileSession::Change change, const QString& path, const std::shared_ptr<const ProfileSnapshot>& keepFrom);
    void showFailure(const QString& path, const QString& message);
    void showFrame(model::NodeId node);
    void startSymbolization();
    void cancelLoading();
    void setLoadingUi(bool loading, const QString& what = {});
    void updateTitle();
    void updateStatus();
    void updateBinaries();
    /// The notice bar for the last symbolization's report: stacks that reach no thread root.
    void updateNotice();
    /// Colors the flame graph by scheme (legend shown for all but names; menu checked).
    void applyColorScheme(FlameGraphPainter::ColorScheme scheme);
    /// The comparison color options (View > Color By) on the three graphs, and the legend.
    void applyDiffColors();
    /// The user's last choice, else by binary for a profile of several native binaries, else
    /// by name.
    FlameGraphPainter::ColorScheme defaultColorScheme() const;
    /// The start page while no profile is open (and none loading); actions that need a
    /// profile enabled only with one.
    void updateStartPage();
    /// The binaries panel small while every binary is fine, large and in front when one isn't;
    /// the right column's width and its docks' heights (Top Functions the most).
    void sizeDocks();
    void placeBottomRightCorner();
    int rightColumnWidth() const;
    void openDialog();
    void exportDialog();
    void saveSymbolizedDialog();
    /// "file — type" above an exported graph.
    QString exportTitle() const;
    /// The shown file's name, or the first's and how many more were merged; empty for none.
    QString filesName() const;
    void editSymbolizeSettings();

    QDockWidget* m_binariesDock = nullptr;
    QDockWidget* m_sandwichDock = nullptr;
    StartPage* m_startPage = nullptr;
    QStackedWidget* m_pages = nullptr; ///< the start page or the flame graph
    QList<QAction*> m_colorActions; ///< Color By, data() = the scheme
    QAction* m_stopCompareAction = nullptr;
    QAction* m_normalizeAction = nullptr;
    QAction* m_widthByBaseAction = nullptr;
    QAction* m_widthByChangeAction = nullptr;
    QList<QAction*> m_matchActions; ///< File > Match Frames By (data: model::DiffOptions::Match)
    QList<QAction*> m_diffThresholdActions; ///< View > Color By > Comparing: Unchanged Within (data: the share)
    QAction* m_diffAbsoluteAction = nullptr;
    QString m_compareWhenLoaded; ///< a BASE to compare the file being loaded with
    QList<QAction*> m_profileActions; ///< enabled only while a profile is shown
    bool m_binariesSized = false; ///< sizeDocks ran after this file's first pass
    QByteArray m_defaultLayout; ///< saveState() right after the docks were made
    ProfileSession* m_session = nullptr;
    ViewState* m_viewState = nullptr;
    SearchBar* m_searchBar = nullptr;
    NoticeBar* m_notice = nullptr;
    RecentFiles* m_recent = nullptr;

    FlameGraphWidget* m_flame = nullptr;
    QScrollArea* m_scroll = nullptr;
    FlameToolBar* m_toolbar = nullptr;
    QAction* m_icicleAction = nullptr;
    QLabel* m_statusLabel = nullptr;
    QLabel* m_hoverLabel = nullptr;
    QProgressBar* m_progress = nullptr;
    QPushButton* m_cancel = nullptr;

    FrameDetailsWidget* m_details = nullptr;
    TopFunctionsPanel* m_topFunctions = nullptr;
    LabelsPanel* m_labels = nullptr;
    TimelineWidget* m_timeline = nullptr;
    LegendWidget* m_legend = nullptr;
    QDockWidget* m_legendDock = nullptr;
    CallersCalleesPanel* m_sandwich = nullptr;
    SourcePanel* m_sourcePanel = nullptr;
    QDockWidget* m_sourceDock = nullptr;
    QAction* m_intelSyntaxAction = nullptr;
    BinariesPanel* m_binaries = nullptr;

    bool m_loading = false;
    bool m_errorDialogs = true;
    bool m_stickToBottom = true;
};

} // namespace symflame::ui
