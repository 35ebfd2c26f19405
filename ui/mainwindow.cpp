// MainWindow: menus, drag and drop, background loading through QtConcurrent with a Progress
// adapter over QPromise, results applied on the GUI thread if they are still wanted.
#include "ui/mainwindow.h"

#include "model/frameformat.h"
#include "ui/flamegraphwidget.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QKeySequence>
#include <QLabel>
#include <QLocale>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPromise>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QStatusBar>
#include <QToolBar>
#include <QUrl>
#include <QtConcurrentRun>

namespace symflame::ui {

using namespace symflame::model;

namespace {

constexpr int kMaxRecentFiles = 10;
constexpr int kProgressScale = 1000;
const char kRecentKey[] = "recentFiles";
const char kLastDirKey[] = "lastDirectory";

// model::Progress over a QPromise: progress and stage go to the future's watcher, Cancel on
// the future is what the worker polls.
template <typename T> class PromiseProgress : public Progress {
public:
    explicit PromiseProgress(QPromise<T>& promise)
        : m_promise(promise)
    {
        m_promise.setProgressRange(0, kProgressScale);
    }
    void setProgress(uint64_t done, uint64_t total) override
    {
        if (total == 0)
            return;
        const int v = static_cast<int>(std::min<uint64_t>(kProgressScale, done * kProgressScale / total));
        if (v > m_value) {
            m_value = v;
            m_promise.setProgressValueAndText(v, m_stage);
        }
    }
    void setStage(std::string_view stage) override
    {
        m_stage = QString::fromUtf8(stage.data(), qsizetype(stage.size()));
        // Text only travels with a progress step.
        if (m_value < kProgressScale)
            m_promise.setProgressValueAndText(++m_value, m_stage);
    }
    bool isCancelled() const override { return m_promise.isCanceled(); }

private:
    QPromise<T>& m_promise;
    QString m_stage;
    int m_value = 0;
};

} // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent)
{
    setAcceptDrops(true);

    m_flame = new FlameGraphWidget;
    m_scroll = new QScrollArea;
    m_scroll->setWidget(m_flame);
    m_scroll->setWidgetResizable(true);
    m_scroll->setFrameShape(QFrame::NoFrame);
    m_scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setCentralWidget(m_scroll);
    // Flame graphs grow upwards from the root: keep the bottom row in view as rows come and go.
    QScrollBar* bar = m_scroll->verticalScrollBar();
    connect(bar, &QScrollBar::rangeChanged, this, [this, bar](int, int max) {
        if (m_stickToBottom)
            bar->setValue(max);
    });
    connect(
        bar, &QScrollBar::valueChanged, this, [this, bar](int value) { m_stickToBottom = value == bar->maximum(); });

    m_toolbar = addToolBar(tr("Flame Graph"));
    m_toolbar->setObjectName(QStringLiteral("flameGraphToolBar"));
    m_toolbar->setMovable(false);
    m_sampleType = new QComboBox;
    m_sampleType->setToolTip(tr("Sample type shown by the flame graph"));
    m_sampleType->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    auto* typeLabel = new QLabel(tr("Sample type:"));
    typeLabel->setBuddy(m_sampleType);
    typeLabel->setContentsMargins(4, 0, 4, 0);
    m_sampleTypeLabelAction = m_toolbar->addWidget(typeLabel);
    m_sampleTypeAction = m_toolbar->addWidget(m_sampleType);
    m_sampleTypeLabelAction->setVisible(false);
    m_sampleTypeAction->setVisible(false);
    m_sampleTypeSeparator = m_toolbar->addSeparator();
    m_sampleTypeSeparator->setVisible(false);
    connect(m_sampleType, &QComboBox::activated, this, &MainWindow::chooseSampleType);

    m_backAction = m_toolbar->addAction(tr("Back"), m_flame, [this] { m_flame->zoomOut(); });
    m_backAction->setShortcut(QKeySequence(Qt::Key_Backspace));
    m_backAction->setToolTip(tr("Back to the previous zoom (Backspace, Esc)"));
    m_resetZoomAction = m_toolbar->addAction(tr("Reset Zoom"), m_flame, [this] { m_flame->resetZoom(); });
    m_resetZoomAction->setShortcut(QKeySequence(Qt::Key_Home));
    m_resetZoomAction->setToolTip(tr("Show the whole profile (Home)"));
    m_rootLabel = new QLabel;
    m_rootLabel->setContentsMargins(8, 0, 8, 0);
    m_toolbar->addWidget(m_rootLabel);
    connect(m_flame, &FlameGraphWidget::rootChanged, this, [this](const QString& label) {
        const bool zoomed = m_flame->isZoomed();
        m_backAction->setEnabled(zoomed);
        m_resetZoomAction->setEnabled(zoomed);
        m_rootLabel->setText(zoomed ? tr("Zoomed into %1").arg(label) : QString());
    });
    m_backAction->setEnabled(false);
    m_resetZoomAction->setEnabled(false);

    m_hoverLabel = new QLabel;
    m_hoverLabel->setTextFormat(Qt::PlainText);
    m_statusLabel = new QLabel;
    m_progress = new QProgressBar;
    m_progress->setRange(0, kProgressScale);
    m_progress->setMaximumWidth(220);
    m_progress->setTextVisible(false);
    m_cancel = new QPushButton(tr("Cancel"));
    statusBar()->addWidget(m_hoverLabel, 1);
    statusBar()->addPermanentWidget(m_statusLabel);
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_cancel);
    connect(m_cancel, &QPushButton::clicked, this, &MainWindow::cancelLoading);
    connect(m_flame, &FlameGraphWidget::hoverChanged, m_hoverLabel, &QLabel::setText);
    setLoadingUi(false);

    createMenus();
    updateTitle();
    updateStatus();
}

MainWindow::~MainWindow()
{
    // The worker holds no pointer to us; cancelling lets the thread pool wind down quickly.
    if (m_cancelCurrent)
        m_cancelCurrent();
}

void MainWindow::createMenus()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(tr("&Open\u2026"), this, &MainWindow::openDialog);
    open->setShortcut(QKeySequence::Open);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    updateRecentMenu();
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), qApp, &QApplication::closeAllWindows);
    quit->setShortcut(QKeySequence::Quit);
    quit->setMenuRole(QAction::QuitRole);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    view->addAction(m_backAction);
    view->addAction(m_resetZoomAction);

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About symflame"), this, [this] {
        QMessageBox::about(this, tr("About symflame"),
            tr("<b>symflame %1</b><p>Flame graphs for profiles of native code.</p>")
                .arg(QApplication::applicationVersion()));
    });
}

void MainWindow::openDialog()
{
    QSettings settings;
    const QString dir = settings.value(QLatin1String(kLastDirKey)).toString();
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open Profile"), dir, tr("Profiles (*.pb.gz *.pb *.pprof *.prof *.gz);;All files (*)"));
    if (path.isEmpty())
        return;
    settings.setValue(QLatin1String(kLastDirKey), QFileInfo(path).absolutePath());
    openFile(path);
}

void MainWindow::openFile(const QString& path)
{
    const QString absolute = QFileInfo(path).absoluteFilePath();
    const std::string native = QFile::encodeName(absolute).toStdString();
    startJob(absolute, tr("Loading %1").arg(QFileInfo(absolute).fileName()),
        [native](Progress* progress) { return loadSnapshot(native, progress); });
}

void MainWindow::chooseSampleType(int index)
{
    if (!m_snapshot || index < 0 || static_cast<size_t>(index) == m_snapshot->sampleType)
        return;
    auto snapshot = m_snapshot;
    startJob(m_path, tr("Building the call tree"), [snapshot, index](Progress* progress) {
        return withSampleType(*snapshot, static_cast<size_t>(index), progress);
    });
}

void MainWindow::startJob(const QString& path, const QString& what, Job job)
{
    cancelLoading();
    const uint64_t generation = ++m_generation;
    auto* watcher = new QFutureWatcher<JobOutcome>(this);
    connect(watcher, &QFutureWatcherBase::progressValueChanged, m_progress, &QProgressBar::setValue);
    connect(watcher, &QFutureWatcherBase::progressTextChanged, this, [this, what](const QString& stage) {
        m_hoverLabel->setText(stage.isEmpty() ? what : what + QStringLiteral(": ") + stage);
    });
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation, path] {
        watcher->deleteLater();
        if (generation != m_generation)
            return; // cancelled or superseded by a newer load
        m_cancelCurrent = nullptr;
        setLoadingUi(false);
        if (watcher->future().isCanceled() || watcher->future().resultCount() == 0) {
            finishJob(path, JobOutcome { nullptr, {}, true });
            return;
        }
        finishJob(path, watcher->result());
    });

    QFuture<JobOutcome> future = QtConcurrent::run([job = std::move(job)](QPromise<JobOutcome>& promise) {
        PromiseProgress<JobOutcome> progress(promise);
        auto result = job(&progress);
        JobOutcome outcome;
        if (result) {
            outcome.snapshot = std::move(result).value();
        } else {
            outcome.cancelled = result.error().code == ErrorCode::Cancelled;
            outcome.error = QString::fromStdString(result.error().message);
        }
        promise.addResult(std::move(outcome));
    });
    watcher->setFuture(future);
    m_cancelCurrent = [future]() mutable { future.cancel(); };
    setLoadingUi(true, what);
}

void MainWindow::cancelLoading()
{
    if (!m_cancelCurrent)
        return;
    m_cancelCurrent();
    m_cancelCurrent = nullptr;
    ++m_generation; // whatever the cancelled job still delivers is dropped
    setLoadingUi(false);
    m_hoverLabel->setText(tr("Cancelled"));
    updateStatus();
}

void MainWindow::finishJob(const QString& path, const JobOutcome& outcome)
{
    if (outcome.cancelled) {
        m_hoverLabel->setText(tr("Cancelled"));
        updateStatus();
        return;
    }
    if (!outcome.snapshot) {
        m_hoverLabel->setText(tr("Could not open %1").arg(QFileInfo(path).fileName()));
        removeRecentFile(path);
        updateStatus();
        emit loadFailed(path, outcome.error);
        if (m_errorDialogs) {
            auto* box = new QMessageBox(QMessageBox::Warning, tr("Cannot Open Profile"),
                tr("Could not open \u201c%1\u201d.").arg(QFileInfo(path).fileName()), QMessageBox::Ok, this);
            // Core messages start lower case to fit after "path: "; a sentence here.
            QString reason = outcome.error;
            if (!reason.isEmpty())
                reason[0] = reason[0].toUpper();
            box->setInformativeText(reason);
            box->setDetailedText(path);
            box->setAttribute(Qt::WA_DeleteOnClose);
            box->open();
        }
        return;
    }
    showSnapshot(outcome.snapshot);
    m_hoverLabel->clear();
    if (!path.isEmpty())
        addRecentFile(path);
    emit loadFinished(path);
}

void MainWindow::showSnapshot(std::shared_ptr<const ProfileSnapshot> snapshot)
{
    m_snapshot = std::move(snapshot);
    m_path = m_snapshot ? QString::fromStdString(m_snapshot->path) : QString();
    m_stickToBottom = true;
    m_flame->setSnapshot(m_snapshot);
    m_flame->setFocus();

    m_sampleType->clear();
    if (m_snapshot) {
        const Profile& profile = *m_snapshot->profile;
        for (const ValueType& t : profile.sampleTypes) {
            const QString type = QString::fromUtf8(profile.str(t.type));
            const QString unit = QString::fromUtf8(profile.str(t.unit));
            m_sampleType->addItem(unit.isEmpty() ? type : tr("%1 (%2)").arg(type, unit));
        }
        m_sampleType->setCurrentIndex(static_cast<int>(m_snapshot->sampleType));
    }
    m_sampleTypeAction->setVisible(m_sampleType->count() > 1);
    m_sampleTypeLabelAction->setVisible(m_sampleType->count() > 1);
    m_sampleTypeSeparator->setVisible(m_sampleType->count() > 1);
    updateTitle();
    updateStatus();
}

void MainWindow::setLoadingUi(bool loading, const QString& what)
{
    m_loading = loading;
    m_progress->setVisible(loading);
    m_cancel->setVisible(loading);
    m_sampleType->setEnabled(!loading);
    m_flame->setPlaceholderText(
        loading ? what + QStringLiteral("\u2026") : tr("Open a profile with File \u203a Open, or drop a file here"));
    if (loading) {
        m_progress->setValue(0);
        m_hoverLabel->setText(what);
    } else if (m_snapshot) {
        // A cancelled switch leaves the combo box on the type still shown.
        m_sampleType->setCurrentIndex(static_cast<int>(m_snapshot->sampleType));
    }
}

void MainWindow::updateTitle()
{
    if (m_path.isEmpty())
        setWindowTitle(QStringLiteral("symflame"));
    else
        setWindowTitle(tr("%1 \u2014 symflame").arg(QFileInfo(m_path).fileName()));
}

void MainWindow::updateStatus()
{
    if (!m_snapshot) {
        m_statusLabel->clear();
        return;
    }
    const Profile& profile = *m_snapshot->profile;
    const int64_t total = m_snapshot->tree ? m_snapshot->tree->totalValue() : 0;
    QLocale locale;
    QString text = tr("%1 samples").arg(locale.toString(qulonglong(profile.sampleCount())));
    if (!m_snapshot->typeName().empty())
        text += tr(" \u00b7 %1 total %2")
                    .arg(QString::fromUtf8(m_snapshot->typeName()),
                        QString::fromStdString(formatValue(total, m_snapshot->unit())));
    m_statusLabel->setText(text);
}

QStringList MainWindow::recentFiles()
{
    return QSettings().value(QLatin1String(kRecentKey)).toStringList();
}

void MainWindow::addRecentFile(const QString& path)
{
    QStringList files = recentFiles();
    files.removeAll(path);
    files.prepend(path);
    while (files.size() > kMaxRecentFiles)
        files.removeLast();
    QSettings().setValue(QLatin1String(kRecentKey), files);
    updateRecentMenu();
}

void MainWindow::removeRecentFile(const QString& path)
{
    QStringList files = recentFiles();
    if (files.removeAll(path) == 0)
        return;
    QSettings().setValue(QLatin1String(kRecentKey), files);
    updateRecentMenu();
}

void MainWindow::updateRecentMenu()
{
    m_recentMenu->clear();
    const QStringList files = recentFiles();
    for (int i = 0; i < files.size(); ++i) {
        const QString& path = files[i];
        QAction* a = m_recentMenu->addAction(
            QStringLiteral("&%1 %2").arg(
                i < 9 ? QString::number(i + 1) : QStringLiteral("1&0"), QFileInfo(path).fileName()),
            this, [this, path] { openFile(path); });
        a->setToolTip(path);
        a->setStatusTip(path);
    }
    if (!files.isEmpty()) {
        m_recentMenu->addSeparator();
        m_recentMenu->addAction(tr("&Clear List"), this, [this] {
            QSettings().remove(QLatin1String(kRecentKey));
            updateRecentMenu();
        });
    }
    m_recentMenu->setEnabled(!files.isEmpty());
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    const QMimeData* mime = event->mimeData();
    if (mime->hasUrls() && !mime->urls().isEmpty() && mime->urls().first().isLocalFile())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event)
{
    const QList<QUrl> urls = event->mimeData()->urls();
    if (urls.isEmpty() || !urls.first().isLocalFile())
        return;
    event->acceptProposedAction();
    openFile(urls.first().toLocalFile());
}

} // namespace symflame::ui
