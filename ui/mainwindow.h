// The main window: File menu (Open, Open Recent, Quit), drag and drop, a sample-type chooser,
// and background loading with progress and Cancel in the status bar. A generation counter
// drops results of loads that were cancelled or replaced by a newer one.
#pragma once

#include "ui/profilesnapshot.h"

#include <QMainWindow>
#include <QString>
#include <QStringList>

#include <functional>
#include <memory>

class QAction;
class QComboBox;
class QLabel;
class QMenu;
class QProgressBar;
class QPushButton;
class QScrollArea;
class QToolBar;

namespace symflame::ui {

class FlameGraphWidget;

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
    bool isLoading() const { return m_loading; }
    QString currentFile() const { return m_path; }
    static QStringList recentFiles();

    /// When false, load errors are reported by loadFailed only, without a message box (tests).
    void setErrorDialogsEnabled(bool enabled) { m_errorDialogs = enabled; }

signals:
    /// A load or sample-type switch finished and its result is shown.
    void loadFinished(const QString& path);
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
    };
    using Job = std::function<model::Result<std::shared_ptr<const ProfileSnapshot>>(model::Progress*)>;

    void createMenus();
    void startJob(const QString& path, const QString& what, Job job);
    void finishJob(const QString& path, const JobOutcome& outcome);
    void cancelLoading();
    void setLoadingUi(bool loading, const QString& what = {});
    void chooseSampleType(int index);
    void addRecentFile(const QString& path);
    void removeRecentFile(const QString& path);
    void updateRecentMenu();
    void updateTitle();
    void updateStatus();
    void openDialog();

    FlameGraphWidget* m_flame = nullptr;
    QScrollArea* m_scroll = nullptr;
    QToolBar* m_toolbar = nullptr;
    QAction* m_sampleTypeLabelAction = nullptr;
    QAction* m_sampleTypeAction = nullptr;
    QAction* m_sampleTypeSeparator = nullptr;
    QComboBox* m_sampleType = nullptr;
    QLabel* m_rootLabel = nullptr;
    QAction* m_backAction = nullptr;
    QAction* m_resetZoomAction = nullptr;
    QMenu* m_recentMenu = nullptr;
    QLabel* m_statusLabel = nullptr;
    QLabel* m_hoverLabel = nullptr;
    QProgressBar* m_progress = nullptr;
    QPushButton* m_cancel = nullptr;

    std::shared_ptr<const ProfileSnapshot> m_snapshot;
    QString m_path;
    uint64_t m_generation = 0;
    bool m_loading = false;
    bool m_errorDialogs = true;
    bool m_stickToBottom = true;
    std::function<void()> m_cancelCurrent;
};

} // namespace symflame::ui
