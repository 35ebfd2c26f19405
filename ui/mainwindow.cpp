// MainWindow: builds the window and wires the session, the view state and the search bar to
// the widgets; the work itself is in those objects and in the panels.
#include "ui/mainwindow.h"

#include "symbolize/locate/debuginfodclient.h"

#include "model/core/frameformat.h"
#include "model/io/profileio.h"
#include "symbolize/pass/binarytriage.h"
#include "ui/binariesmodel.h"
#include "ui/binariespanel.h"
#include "ui/breadcrumb.h"
#include "ui/callerscalleespanel.h"
#include "ui/exportdialog.h"
#include "ui/flameexport.h"
#include "ui/flamegraphwidget.h"
#include "ui/flametoolbar.h"
#include "ui/framedetailswidget.h"
#include "ui/helpmenu.h"
#include "ui/labelspanel.h"
#include "ui/timelinewidget.h"
#include "ui/legendwidget.h"
#include "model/analysis/truncatedstacks.h"
#include "ui/noticebar.h"
#include "ui/promiseprogress.h"
#include "ui/recentfiles.h"
#include "ui/searchbar.h"
#include "ui/sourcepanel.h"
#include "ui/startpage.h"
#include "ui/symbolizesettings.h"
#include "ui/topfunctionsmodel.h"
#include "ui/topfunctionspanel.h"
#include "ui/viewstate.h"

#include <QAction>
#include <QActionGroup>
#include <QCloseEvent>
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QKeySequence>
#include <QLabel>
#include <QLocale>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QScreen>
#include <QStackedWidget>
#include <QtConcurrentRun>
#include <QFutureWatcher>

#include <cstring>
#include <set>
#include <QScrollBar>
#include <QSettings>
#include <QStatusBar>
#include <QToolBar>
#include <QUrl>
#include <QVBoxLayout>

namespace symflame::ui {

using namespace symflame::model;

namespace {

// The name of a profile file without its compression and format suffixes ("cpu.pb.gz" is
// "cpu", "app.v2.cpuprofile" is "app.v2"), to name what is made of it.
QString profileBaseName(const QString& path)
{
    QString name = QFileInfo(path).fileName();
    for (const char* suffix : { ".gz", ".zst", ".zstd" })
        if (name.endsWith(QLatin1String(suffix), Qt::CaseInsensitive)) {
            name.chop(int(std::strlen(suffix)));
            break;
        }
    for (const char* suffix : { ".pb", ".pprof", ".prof", ".json", ".cpuprofile", ".otlp", ".folded", ".txt" })
        if (name.endsWith(QLatin1String(suffix), Qt::CaseInsensitive)) {
            name.chop(int(std::strlen(suffix)));
            break;
        }
    return name.isEmpty() ? QStringLiteral("profile") : name;
}

const char kLastDirKey[] = "lastDirectory";
const char kSymbolizeAfterLoadingKey[] = "symbolizeAfterLoading";
const char kColorByKey[] = "colorBy"; ///< the scheme the user chose last; unset: by the profile

} // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent)
    , m_session(new ProfileSession(this))
    , m_viewState(new ViewState(this))
{
    setAcceptDrops(true);

    m_hoverLabel = new QLabel;
    m_flame = new FlameGraphWidget;
    m_scroll = new QScrollArea;
    m_scroll->setWidget(m_flame);
    m_scroll->setWidgetResizable(true);
    m_scroll->setFrameShape(QFrame::NoFrame);
    m_scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_searchBar = new SearchBar;
    auto* central = new QWidget;
    auto* centralLayout = new QVBoxLayout(central);
    centralLayout->setContentsMargins(0, 0, 0, 0);
    centralLayout->setSpacing(0);
    centralLayout->addWidget(m_searchBar);
    centralLayout->addWidget(m_viewState->chipsBar());
    m_notice = new NoticeBar;
    connect(m_notice, &NoticeBar::actionTriggered, this, [this] { search(QString::fromUtf8(model::kTruncatedFrameName.data(), qsizetype(model::kTruncatedFrameName.size()))); });
    centralLayout->addWidget(m_notice);
    m_timeline = new TimelineWidget;
    connect(m_timeline, &TimelineWidget::timeRangeChosen, m_viewState,
        [this](const model::TimeRange& range) { m_viewState->setTimeRange(range); });
    centralLayout->addWidget(m_timeline);
    // Before a profile is open, the start page takes the flame graph's place.
    m_startPage = new StartPage;
    connect(m_startPage, &StartPage::openRequested, this, &MainWindow::openDialog);
    connect(m_startPage, &StartPage::fileRequested, this, &MainWindow::openFile);
    m_pages = new QStackedWidget;
    m_pages->addWidget(m_startPage);
    m_pages->addWidget(m_scroll);
    centralLayout->addWidget(m_pages, 1);
    setCentralWidget(central);
    // Flame graphs grow upwards from the root: keep the bottom row in view as rows come and go.
    QScrollBar* bar = m_scroll->verticalScrollBar();
    connect(bar, &QScrollBar::rangeChanged, this, [this, bar](int, int max) {
        if (m_stickToBottom)
            bar->setValue(max);
    });
    connect(bar, &QScrollBar::valueChanged, this,
        [this, bar](int value) { m_stickToBottom = value == bar->maximum() && !m_icicleAction->isChecked(); });

    connect(m_searchBar, &SearchBar::highlightChanged, m_flame, &FlameGraphWidget::setHighlight);
    connect(m_searchBar, &SearchBar::stepTo, this, [this](NodeId node) {
        m_flame->jumpTo(node);
        m_flame->setSelected(node);
    });
    connect(m_searchBar, &SearchBar::closed, m_flame, qOverload<>(&QWidget::setFocus));
    connect(m_viewState, &ViewState::viewRequested, m_session, &ProfileSession::setView);

    connect(m_session, &ProfileSession::started, this, [this](const QString& what) { setLoadingUi(true, what); });
    connect(m_session, &ProfileSession::progressChanged, this, [this](int value) { m_progress->setValue(value); });
    connect(m_session, &ProfileSession::stageChanged, m_hoverLabel, &QLabel::setText);
    connect(m_session, &ProfileSession::stopped, this, [this] { setLoadingUi(false); });
    connect(m_session, &ProfileSession::previewShown, this, [this] {
        showCurrent();
        m_hoverLabel->setText(tr("Showing a first view; growing the complete call tree\u2026"));
        emit previewShown(currentFile());
    });
    connect(m_session, &ProfileSession::finished, this, &MainWindow::showFinished);
    connect(m_session, &ProfileSession::failed, this, &MainWindow::showFailure);
    connect(m_session, &ProfileSession::cancelled, this, [this] {
        m_hoverLabel->setText(tr("Cancelled"));
        updateStatus();
    });

    createToolBar();
    createStatusBar();
    setLoadingUi(false);
    createDocks();
    createMenus();
    updateTitle();
    updateStatus();
    updateStartPage();
    m_defaultLayout = saveState();
}

namespace {
constexpr const char* kGeometryKey = "window/geometry";
/// 85% of the screen's free area, at most 1600x1000 (1280x800 when the screen is unknown).
QSize defaultWindowSize(const QWidget* w)
{
    const QScreen* s = w->screen();
    return s ? (s->availableGeometry().size() * 85 / 100).boundedTo(QSize(1600, 1000)) : QSize(1280, 800);
}
constexpr const char* kLayoutKey = "window/layout";
constexpr int kLayoutVersion = 2; ///< raise when the docks change, so old layouts are not restored
constexpr int kRightColumnToBottomWidth = 1100; ///< window width from which the right column reaches the bottom
} // namespace

void MainWindow::restoreLayout()
{
    QSettings settings;
    const bool geometry = restoreGeometry(settings.value(QLatin1String(kGeometryKey)).toByteArray());
    if (!geometry)
        resize(defaultWindowSize(this));
    restoreState(settings.value(QLatin1String(kLayoutKey)).toByteArray(), kLayoutVersion);
}

void MainWindow::resetLayout()
{
    restoreState(m_defaultLayout);
    m_legendDock->setVisible(m_flame->painter().colorScheme() != FlameGraphPainter::ColorScheme::Name);
    if (!isMaximized() && !isFullScreen())
        resize(defaultWindowSize(this));
    sizeDocks();
    QSettings settings;
    settings.remove(QLatin1String(kGeometryKey));
    settings.remove(QLatin1String(kLayoutKey));
}

void MainWindow::applyColorScheme(FlameGraphPainter::ColorScheme scheme)
{
    m_flame->setColorScheme(scheme);
    callersGraph()->setColorScheme(scheme); // the halves read as the main view does
    calleesGraph()->setColorScheme(scheme);
    applyDiffColors(); // (and the legend)
    m_legendDock->setVisible(scheme != FlameGraphPainter::ColorScheme::Name);
    for (QAction* a : m_colorActions)
        a->setChecked(a->data().toInt() == int(scheme));
}

void MainWindow::applyDiffColors()
{
    double share = 0.001;
    for (QAction* a : m_diffThresholdActions)
        if (a->isChecked())
            share = a->data().toDouble();
    const bool absolute = m_diffAbsoluteAction && m_diffAbsoluteAction->isChecked();
    for (FlameGraphWidget* graph : { m_flame, callersGraph(), calleesGraph() }) {
        graph->painter().setDiffThreshold(share);
        graph->painter().setDiffAbsolute(absolute);
        graph->update();
    }
    m_legend->setLegend(*m_flame);
}

FlameGraphPainter::ColorScheme MainWindow::defaultColorScheme() const
{
    if (m_session->isComparing())
        return FlameGraphPainter::ColorScheme::Diff;
    const QVariant chosen = QSettings().value(QLatin1String(kColorByKey));
    if (chosen.isValid() && chosen.toInt() >= 0 && chosen.toInt() <= int(FlameGraphPainter::ColorScheme::Kind)) // not Diff
        return FlameGraphPainter::ColorScheme(chosen.toInt());
    // Native frames from two binaries or more: by binary, as users of whole-system profilers
    // triage; one binary (a Go program, a script): by name.
    const auto& snapshot = m_session->snapshot();
    if (!snapshot)
        return FlameGraphPainter::ColorScheme::Name;
    const Profile& p = *snapshot->profile;
    std::vector<uint8_t> used(p.mappings.size(), 0);
    for (const Location& l : p.locations)
        if (l.mapping.valid() && l.mapping.index() < used.size())
            used[l.mapping.index()] = 1;
    std::set<std::string_view> files;
    for (size_t m = 0; m < p.mappings.size(); ++m) {
        const std::string_view file = p.str(p.mappings[m].file);
        if (used[m] && !file.empty() && !isUnsymbolizableMappingName(file))
            files.insert(baseName(file));
    }
    return files.size() >= 2 ? FlameGraphPainter::ColorScheme::Binary : FlameGraphPainter::ColorScheme::Name;
}

void MainWindow::sizeDocks()
{
    // Binaries: a strip below the flame graph (the summary and three rows) while every binary
    // is fine; room for the table and the reasons when one has a problem.
    const auto& rows = m_binaries->model()->rows();
    const bool problem = std::any_of(rows.begin(), rows.end(), [](const symbolize::BinaryRow& r) { return symbolize::isProblem(r.state); });
    const int line = fontMetrics().height();
    resizeDocks({ m_binariesDock }, { std::min(problem ? 12 * line + 80 : 6 * line + 40, height() / 3) }, Qt::Vertical);
    if (problem)
        m_binariesDock->raise();
    // The right column: Frame Details for a frame's few lines, the legend for a few binaries,
    // Top Functions the rest.
    auto* details = findChild<QDockWidget*>(QStringLiteral("frameDetailsDock"));
    auto* top = findChild<QDockWidget*>(QStringLiteral("topFunctionsDock"));
    if (!details || !top)
        return;
    resizeDocks({ top }, { rightColumnWidth() }, Qt::Horizontal);
    QList<QDockWidget*> column { details, top };
    QList<int> heights { 8 * line + 30, height() };
    if (m_legendDock->isVisible() && !m_legendDock->isFloating()) {
        column << m_legendDock;
        heights << std::min(int(m_legend->count()), 6) * (line + 4) + 36;
    }
    resizeDocks(column, heights, Qt::Vertical);
}

void MainWindow::placeBottomRightCorner()
{
    // In a window wide enough, the right column reaches the bottom: the bottom docks (Binaries,
    // Callers and Callees) lie under the flame graph only, and Top Functions keeps its rows on
    // a 768-pixel-high screen. In a narrower one the bottom docks span the width, so that they
    // don't squeeze the right column.
    const Qt::DockWidgetArea area = width() >= kRightColumnToBottomWidth ? Qt::RightDockWidgetArea : Qt::BottomDockWidgetArea;
    if (corner(Qt::BottomRightCorner) == area)
        return;
    setCorner(Qt::BottomRightCorner, area);
    // The layout shares the width again: the right column at its width for this window.
    if (auto* top = findChild<QDockWidget*>(QStringLiteral("topFunctionsDock")))
        resizeDocks({ top }, { rightColumnWidth() }, Qt::Horizontal);
}

int MainWindow::rightColumnWidth() const
{
    // Wide enough for Top Functions' columns, never more than a third of the window.
    return std::clamp(width() * 3 / 10, std::min(360, width() / 3), 560);
}

void MainWindow::resizeEvent(QResizeEvent* event)
{
    QMainWindow::resizeEvent(event);
    placeBottomRightCorner();
    // The flame graph keeps at least half the height: a bottom panel sized in a taller window
    // gives way when the window shrinks.
    const int limit = height() * 2 / 5;
    for (QDockWidget* dock : { m_binariesDock, m_sandwichDock })
        if (dock && dock->isVisible() && !dock->isFloating() && dockWidgetArea(dock) == Qt::BottomDockWidgetArea
            && dock->height() > limit)
            resizeDocks({ dock }, { limit }, Qt::Vertical);
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    QSettings settings;
    settings.setValue(QLatin1String(kGeometryKey), saveGeometry());
    settings.setValue(QLatin1String(kLayoutKey), saveState(kLayoutVersion));
    QMainWindow::closeEvent(event);
}

MainWindow::~MainWindow() = default;

void MainWindow::createToolBar()
{
    m_toolbar = new FlameToolBar(m_flame, this);
    addToolBar(m_toolbar);
    connect(m_toolbar, &FlameToolBar::sampleTypeChosen, m_session, &ProfileSession::chooseSampleType);
    connect(m_toolbar, &FlameToolBar::groupByChosen, m_viewState, &ViewState::setGroupBy);
    connect(m_toolbar, &FlameToolBar::profileChosen, this,
        [this](std::optional<size_t> index) { m_session->chooseProfile(index, previewParts()); });
    connect(m_flame, &FlameGraphWidget::selectedChanged, this, [this](NodeId node) {
        showFrame(node);
        const auto& snapshot = m_session->snapshot();
        if (snapshot && node.valid() && node != snapshot->tree->root())
            m_sandwich->showFunction(snapshot, snapshot->tree->node(node).symbol);
    });
    connect(m_flame, &FlameGraphWidget::contextMenuRequested, this,
        [this](NodeId node, const QPoint& at) { m_viewState->showFrameMenu(node, at, this); });
}

void MainWindow::createStatusBar()
{
    m_hoverLabel->setTextFormat(Qt::PlainText);
    m_statusLabel = new QLabel;
    m_statusLabel->setObjectName(QStringLiteral("profileStatus"));
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
}

void MainWindow::createMenus()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(tr("&Open\u2026"), this, &MainWindow::openDialog);
    open->setShortcut(QKeySequence::Open);
    m_recent = new RecentFiles(file->addMenu(tr("Open &Recent")), this);
    connect(m_recent, &RecentFiles::openRequested, this, &MainWindow::openFile);
    QAction* save = file->addAction(tr("&Save Symbolized Profile As\u2026"), this, &MainWindow::saveSymbolizedDialog);
    save->setObjectName(QStringLiteral("saveSymbolizedAction"));
    save->setShortcut(QKeySequence::SaveAs);
    m_profileActions << save;
    file->addSeparator();
    QAction* compare = file->addAction(tr("&Compare With\u2026"), this, [this] {
        const QString base = QFileDialog::getOpenFileName(this, tr("Compare With (the Base Profile)"),
            QFileInfo(currentFile()).absolutePath(), tr("Profiles (*.pb *.pb.gz *.pprof *.prof *.json *.cpuprofile *.gz *.zst);;All files (*)"));
        if (!base.isEmpty())
            compareWith(base);
    });
    compare->setObjectName(QStringLiteral("compareAction"));
    compare->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_D));
    compare->setStatusTip(tr("Show how this profile differs from another: red grew, blue shrank"));
    m_profileActions << compare;
    m_stopCompareAction = file->addAction(tr("Stop Co&mparing"), this, &MainWindow::stopComparing);
    m_stopCompareAction->setObjectName(QStringLiteral("stopCompareAction"));
    m_stopCompareAction->setEnabled(false);
    m_normalizeAction = file->addAction(tr("&Normalize Comparison"));
    m_normalizeAction->setCheckable(true);
    m_normalizeAction->setChecked(QSettings().value(QStringLiteral("compare/normalize"), true).toBool());
    m_normalizeAction->setToolTip(tr("Scale the new profile to the base's total before comparing"));
    connect(m_normalizeAction, &QAction::toggled, this, [this](bool on) {
        QSettings().setValue(QStringLiteral("compare/normalize"), on);
        if (isComparing())
            compareWith(m_session->basePath());
    });
    // What makes frames of the two the same: function (a rebuild compares), or place too.
    QMenu* matchMenu = file->addMenu(tr("Match &Frames By"));
    matchMenu->setObjectName(QStringLiteral("matchMenu"));
    auto* matchGroup = new QActionGroup(this);
    const int chosenMatch = QSettings().value(QStringLiteral("compare/match"), 0).toInt();
    const std::pair<QString, model::DiffOptions::Match> matches[] = {
        { tr("&Function"), model::DiffOptions::Match::Function },
        { tr("Function and Source F&ile"), model::DiffOptions::Match::File },
        { tr("Function and &Line"), model::DiffOptions::Match::Line },
    };
    for (const auto& [name, match] : matches) {
        QAction* a = matchMenu->addAction(name, this, [this, match = match] {
            QSettings().setValue(QStringLiteral("compare/match"), int(match));
            if (isComparing())
                compareWith(m_session->basePath());
        });
        a->setCheckable(true);
        a->setData(int(match));
        a->setChecked(int(match) == chosenMatch);
        matchGroup->addAction(a);
        m_matchActions << a;
    }
    matchMenu->actions().at(1)->setToolTip(tr("Static functions of one name in two files stay apart"));
    matchMenu->actions().at(2)->setToolTip(tr("Which lines of a function changed"));
    m_widthByBaseAction = file->addAction(tr("Widths by the &Base Profile"));
    m_widthByBaseAction->setObjectName(QStringLiteral("widthByBaseAction"));
    m_widthByBaseAction->setCheckable(true);
    m_widthByBaseAction->setEnabled(false);
    m_widthByBaseAction->setToolTip(tr("Draw the comparison by the base's widths, so that the stacks that vanished show"));
    connect(m_widthByBaseAction, &QAction::triggered, this, [this](bool byBase) {
        const auto& s = m_session->snapshot();
        if (!s || !s->isDiff() || (s->widthByBase() == byBase && !s->view.widthByChange))
            return;
        ViewOptions view = s->view;
        view.widthByChange = false;
        view.sampleType = s->sampleType % s->diffTypes + (byBase ? s->diffTypes : 0);
        m_session->setView(view);
    });
    m_widthByChangeAction = file->addAction(tr("Widths by the Size of the C&hange"));
    m_widthByChangeAction->setObjectName(QStringLiteral("widthByChangeAction"));
    m_widthByChangeAction->setCheckable(true);
    m_widthByChangeAction->setEnabled(false);
    m_widthByChangeAction->setToolTip(tr("Draw each frame as wide as the change below it, grown or shrunk (as pprof's "
                                         "diff flame graph), so small functions that changed much show"));
    connect(m_widthByChangeAction, &QAction::triggered, this, [this](bool byChange) {
        const auto& s = m_session->snapshot();
        if (!s || !s->isDiff() || s->view.widthByChange == byChange)
            return;
        ViewOptions view = s->view;
        view.widthByChange = byChange;
        view.sampleType = s->sampleType % s->diffTypes; // NEW's half: the change is new minus base
        m_session->setView(view);
    });
    file->addSeparator();
    QAction* exportAction = file->addAction(tr("&Export…"), this, &MainWindow::exportDialog);
    exportAction->setObjectName(QStringLiteral("exportAction"));
    exportAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    m_profileActions << exportAction;
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), qApp, &QApplication::closeAllWindows);
    quit->setShortcut(QKeySequence::Quit);
    quit->setMenuRole(QAction::QuitRole);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    view->addAction(m_toolbar->backAction());
    view->addAction(m_toolbar->resetZoomAction());
    view->addSeparator();
    QAction* find = view->addAction(tr("&Find…"), m_searchBar, &SearchBar::activate);
    find->setShortcut(QKeySequence::Find);
    m_profileActions << find;
    QAction* source = view->addAction(tr("Show &Source and Disassembly"), this, [this] {
        const auto& snapshot = m_session->snapshot();
        const NodeId node = m_flame->selected();
        if (!snapshot || !node.valid() || node == snapshot->tree->root()) {
            statusBar()->showMessage(tr("Select a frame first, then Show Source and Disassembly"), 4000);
            return;
        }
        showSource(QString::fromStdString(snapshot->symbols->displayName(snapshot->tree->node(node).symbol)));
    });
    source->setObjectName(QStringLiteral("showSourceAction"));
    source->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_U));
    source->setStatusTip(tr("The selected function's source lines and instructions with their costs"));
    m_profileActions << source;
    m_intelSyntaxAction = view->addAction(tr("&Intel Assembly Syntax"));
    m_intelSyntaxAction->setObjectName(QStringLiteral("intelSyntaxAction"));
    m_intelSyntaxAction->setCheckable(true);
    m_intelSyntaxAction->setChecked(QSettings().value(QStringLiteral("source/intel"), false).toBool());
    connect(m_intelSyntaxAction, &QAction::toggled, this, [this](bool on) {
        QSettings().setValue(QStringLiteral("source/intel"), on);
        if (m_sourceDock->isVisible())
            if (const SourceContent* c = m_sourcePanel->content())
                showSource(QString::fromStdString(c->function));
    });
    m_icicleAction = view->addAction(tr("&Icicle (Root at the Top)"));
    m_icicleAction->setCheckable(true);
    m_icicleAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_I));
    connect(m_icicleAction, &QAction::toggled, this, [this](bool icicle) {
        m_flame->setOrientation(
            icicle ? FlameGraphPainter::Orientation::Icicle : FlameGraphPainter::Orientation::Flame);
        QScrollBar* bar = m_scroll->verticalScrollBar();
        m_stickToBottom = !icicle;
        bar->setValue(icicle ? 0 : bar->maximum());
    });
    view->addAction(m_viewState->bottomUpAction());
    view->addAction(m_viewState->collapseAction());
    QAction* symbolizeAction = view->addAction(tr("&Symbolize After Loading"));
    symbolizeAction->setCheckable(true);
    symbolizeAction->setChecked(QSettings().value(QLatin1String(kSymbolizeAfterLoadingKey), true).toBool());
    symbolizeAction->setToolTip(tr("Look up names for addresses in local binaries and debug files in the background"));
    connect(symbolizeAction, &QAction::toggled, this,
        [](bool on) { QSettings().setValue(QLatin1String(kSymbolizeAfterLoadingKey), on); });
    QMenu* colors = view->addMenu(tr("Color &By"));
    auto* colorGroup = new QActionGroup(this);
    const std::pair<QString, FlameGraphPainter::ColorScheme> schemes[] = {
        { tr("Function &Name"), FlameGraphPainter::ColorScheme::Name },
        { tr("&Binary"), FlameGraphPainter::ColorScheme::Binary },
        { tr("&Symbolization Status"), FlameGraphPainter::ColorScheme::Status },
        { tr("Frame &Type"), FlameGraphPainter::ColorScheme::Kind },
        { tr("&Change (Comparing)"), FlameGraphPainter::ColorScheme::Diff },
    };
    for (const auto& [name, scheme] : schemes) {
        QAction* a = colors->addAction(name, this, [this, scheme = scheme] {
            if (scheme != FlameGraphPainter::ColorScheme::Diff) // a comparison's own, never a default
                QSettings().setValue(QLatin1String(kColorByKey), int(scheme)); // the user's choice, from now on
            applyColorScheme(scheme);
        });
        a->setCheckable(true);
        a->setChecked(scheme == FlameGraphPainter::ColorScheme::Name);
        a->setData(int(scheme));
        colorGroup->addAction(a);
        m_colorActions << a;
    }
    // How a comparison's colors read: which changes are noise, and what saturates.
    colors->addSeparator();
    QMenu* within = colors->addMenu(tr("Comparing: Unchanged &Within"));
    within->setObjectName(QStringLiteral("diffThresholdMenu"));
    auto* withinGroup = new QActionGroup(this);
    const double chosenWithin = QSettings().value(QStringLiteral("compare/threshold"), 0.001).toDouble();
    for (const double share : { 0.0, 0.001, 0.005, 0.01, 0.05 }) {
        QAction* a = within->addAction(share == 0 ? tr("Nothing (every change colored)")
                                                  : tr("%1% of the Total").arg(QLocale().toString(share * 100, 'g', 3)),
            this, [this, share] {
                QSettings().setValue(QStringLiteral("compare/threshold"), share);
                applyDiffColors();
            });
        a->setCheckable(true);
        a->setChecked(std::abs(share - chosenWithin) < 1e-9);
        a->setData(share);
        withinGroup->addAction(a);
        m_diffThresholdActions << a;
    }
    m_diffAbsoluteAction = colors->addAction(tr("Comparing: Saturation by &Absolute Change"), this, [this](bool on) {
        QSettings().setValue(QStringLiteral("compare/absolute"), on);
        applyDiffColors();
    });
    m_diffAbsoluteAction->setObjectName(QStringLiteral("diffAbsoluteAction"));
    m_diffAbsoluteAction->setCheckable(true);
    m_diffAbsoluteAction->setChecked(QSettings().value(QStringLiteral("compare/absolute"), false).toBool());
    m_diffAbsoluteAction->setToolTip(tr("Saturate by the size of a change (the largest is full) instead of by the change "
                                        "relative to the frame's base (a doubling is full)"));
    view->addSeparator();
    for (QDockWidget* dock : findChildren<QDockWidget*>())
        view->addAction(dock->toggleViewAction());
    view->addSeparator();
    view->addAction(tr("Reset &Layout"), this, &MainWindow::resetLayout);
    m_profileActions << m_icicleAction << m_viewState->bottomUpAction() << m_viewState->collapseAction()
                     << colorGroup->actions();

    QMenu* settings = menuBar()->addMenu(tr("&Settings"));
    settings->addAction(tr("&Symbolization…"), this, &MainWindow::editSymbolizeSettings);

    addHelpMenu(menuBar(), this);
}

void MainWindow::createDocks()
{
    placeBottomRightCorner();
    m_details = new FrameDetailsWidget;
    auto* detailsDock = new QDockWidget(tr("Frame Details"), this);
    detailsDock->setObjectName(QStringLiteral("frameDetailsDock"));
    detailsDock->setWidget(m_details);
    addDockWidget(Qt::RightDockWidgetArea, detailsDock);

    m_topFunctions = new TopFunctionsPanel;
    connect(m_topFunctions, &TopFunctionsPanel::focusRequested, this, [this](SymbolId function) {
        const auto& snapshot = m_session->snapshot();
        if (!snapshot || function.index() >= snapshot->symbols->size())
            return;
        m_viewState->addRule(FilterRule {
            FilterRule::Action::Focus, FilterRule::Target::Function, snapshot->symbols->displayName(function) });
    });
    connect(m_topFunctions, &TopFunctionsPanel::functionClicked, this, [this](SymbolId f) { selectFunction(f, false); });
    connect(m_topFunctions, &TopFunctionsPanel::functionActivated, this, [this](SymbolId f) { selectFunction(f, true); });
    auto* topDock = new QDockWidget(tr("Top Functions"), this);
    topDock->setObjectName(QStringLiteral("topFunctionsDock"));
    topDock->setWidget(m_topFunctions);
    addDockWidget(Qt::RightDockWidgetArea, topDock);
    resizeDocks({ detailsDock, topDock }, { 380, 380 }, Qt::Horizontal);

    // Labels: the samples' label keys and values; keep, drop or group by them. A tab beside Top
    // Functions, which stays in front.
    m_labels = new LabelsPanel;
    connect(m_labels, &LabelsPanel::filterRequested, m_viewState, &ViewState::addLabelFilter);
    connect(m_labels, &LabelsPanel::groupRequested, this,
        [this](const std::string& key) { m_viewState->setGroupBy({ key }); });
    auto* labelsDock = new QDockWidget(tr("Labels"), this);
    labelsDock->setObjectName(QStringLiteral("labelsDock"));
    labelsDock->setWidget(m_labels);
    tabifyDockWidget(topDock, labelsDock);
    topDock->raise();

    // Sandwich: merged callers of the selected function above it, its callees below.
    m_sandwich = new CallersCalleesPanel;
    auto* sandwichDock = new QDockWidget(tr("Callers and Callees"), this);
    sandwichDock->setObjectName(QStringLiteral("sandwichDock"));
    sandwichDock->setWidget(m_sandwich);
    addDockWidget(Qt::BottomDockWidgetArea, sandwichDock);
    // A tab beside Binaries; in front, it takes two fifths of the window's height, so that both
    // halves have room.
    m_sandwichDock = sandwichDock;
    connect(sandwichDock, &QDockWidget::visibilityChanged, this, [this, sandwichDock](bool visible) {
        if (visible && sandwichDock->height() < height() * 2 / 5)
            resizeDocks({ sandwichDock }, { height() * 2 / 5 }, Qt::Vertical);
    });

    // Source and Disassembly: asked for a function (frame menu, Top Functions, Ctrl+U); a tab
    // beside Callers and Callees.
    m_sourcePanel = new SourcePanel;
    m_sourceDock = new QDockWidget(tr("Source and Disassembly"), this);
    m_sourceDock->setObjectName(QStringLiteral("sourceDock"));
    m_sourceDock->setWidget(m_sourcePanel);
    addDockWidget(Qt::BottomDockWidgetArea, m_sourceDock);
    tabifyDockWidget(sandwichDock, m_sourceDock);
    connect(m_sourceDock, &QDockWidget::visibilityChanged, this, [this](bool visible) {
        if (visible && m_sourceDock->height() < height() * 2 / 5)
            resizeDocks({ m_sourceDock }, { height() * 2 / 5 }, Qt::Vertical);
    });
    connect(m_sourcePanel, &SourcePanel::sourceLocated, this, [this](const QString&, const QString& local) {
        // The chosen file's directory becomes a source directory (found there by its name;
        // Settings > Symbolization lists them).
        LocalDebugSettings settings = LocalDebugSettings::load();
        const QString dir = QFileInfo(local).absolutePath();
        if (!settings.sourceDirs.contains(dir))
            settings.sourceDirs << dir;
        settings.save();
        if (const SourceContent* c = m_sourcePanel->content())
            showSource(QString::fromStdString(c->function));
    });
    connect(m_topFunctions, &TopFunctionsPanel::sourceRequested, this, [this](SymbolId function) {
        const auto& snapshot = m_session->snapshot();
        if (snapshot && function.index() < snapshot->symbols->size())
            showSource(QString::fromStdString(snapshot->symbols->displayName(function)));
    });
    connect(m_viewState, &ViewState::sourceRequested, this, &MainWindow::showSource);
    m_sourceDock->hide();

    m_legend = new LegendWidget;
    m_legendDock = new QDockWidget(tr("Legend"), this);
    m_legendDock->setObjectName(QStringLiteral("legendDock"));
    m_legendDock->setWidget(m_legend);
    addDockWidget(Qt::RightDockWidgetArea, m_legendDock);

    // Binaries: which lack debug info and why, with the fixes.
    auto* binariesDock = new QDockWidget(tr("Binaries"), this);
    binariesDock->setObjectName(QStringLiteral("binariesDock"));
    m_binaries = new BinariesPanel(binariesDock);
    binariesDock->setWidget(m_binaries);
    addDockWidget(Qt::BottomDockWidgetArea, binariesDock);
    tabifyDockWidget(sandwichDock, binariesDock);
    m_binariesDock = binariesDock;
    binariesDock->raise();
    sizeDocks();
    const auto resymbolizeWith = [this](const QString& dir) {
        SymbolizeSettings st = SymbolizeSettings::load();
        if (!st.local.searchDirs.contains(dir))
            st.local.searchDirs << dir;
        st.save();
        startSymbolization();
    };
    connect(m_binaries, &BinariesPanel::fileLocated, this, [resymbolizeWith](int, const QString& path) {
        // Its directory is searched by build ID, so the file is used for exactly that binary.
        resymbolizeWith(QFileInfo(path).absolutePath());
    });
    connect(m_binaries, &BinariesPanel::searchDirectoryAdded, this, resymbolizeWith);
    connect(m_binaries, &BinariesPanel::workOfflineRequested, this, [this] {
        DebuginfodSettings d = DebuginfodSettings::load();
        d.offline = true;
        d.save();
        m_binaries->setFetchEnabled(false);
        m_binaries->setServersGivenUp({});
    });
    connect(m_binaries, &BinariesPanel::fetchRequested, this, [this](int) { startSymbolization(); });
    connect(m_binaries, &BinariesPanel::showInFlameGraph, this, [this](int row) {
        if (const symbolize::BinaryRow* r = m_binaries->model()->row(row))
            m_searchBar->search(QString::fromStdString(r->name), false);
    });
    m_legendDock->hide();
    connect(m_legend, &LegendWidget::highlightRequested, m_flame, &FlameGraphWidget::setHighlight);
    connect(m_legend, &LegendWidget::highlightCleared, m_searchBar, &SearchBar::apply); // back to the search's
}

void MainWindow::showSource(const QString& function)
{
    const auto& snapshot = m_session->snapshot();
    if (!snapshot || function.isEmpty())
        return;
    const SymbolizeSettings settings = SymbolizeSettings::load();
    const symbolize::SymbolizeOptions symbolizeOptions = settings.toOptions();
    symbolize::SourceSearch search;
    search.pathMaps = symbolizeOptions.locator.pathMaps;
    for (const QString& dir : settings.local.sourceDirs)
        search.sourceDirs.push_back(dir.toStdString());
    // A source not on this machine: the debuginfod servers of the settings, by build ID.
    if (symbolizeOptions.debuginfod.enabled())
        search.fetch = symbolize::debuginfodSourceFetcher(symbolizeOptions.debuginfod);
    symbolize::DisassemblyOptions options;
    options.locator = symbolizeOptions.locator;
    options.module.isolation = symbolizeOptions.isolation;
    options.module.demangle = symbolizeOptions.demangle;
    options.syntax = m_intelSyntaxAction && m_intelSyntaxAction->isChecked() ? symbolize::AsmSyntax::Intel
                                                                            : symbolize::AsmSyntax::Att;
    m_sourceDock->show();
    m_sourceDock->raise();
    // The JavaScript frames' source maps, for their original text (the report outlives the job).
    std::shared_ptr<const symbolize::SourceMapReport> sourceMaps;
    if (const auto& report = m_session->report())
        sourceMaps = std::shared_ptr<const symbolize::SourceMapReport>(report, &report->sourceMaps);
    m_sourcePanel->showFunction(snapshot->profile, snapshot->sampleType, function.toStdString(), std::move(search),
        std::move(options), std::move(sourceMaps));
}

void MainWindow::selectFunction(SymbolId function, bool zoom)
{
    const auto& snapshot = m_session->snapshot();
    if (!snapshot || !snapshot->tree || function.index() >= snapshot->symbols->size())
        return;
    // Its frames highlighted, its hottest frame selected (details, callers and callees).
    std::vector<uint8_t> highlight(snapshot->symbols->size(), 0);
    highlight[function.index()] = 1;
    m_flame->setHighlight(std::move(highlight));
    const CallTree& tree = *snapshot->tree;
    NodeId hottest;
    for (size_t i = 1; i < tree.size(); ++i)
        if (tree.node(NodeId(i)).symbol == function && (!hottest.valid() || tree.node(NodeId(i)).total > tree.node(hottest).total))
            hottest = NodeId(i);
    if (!hottest.valid()) {
        m_sandwich->showFunction(snapshot, function);
        return;
    }
    if (zoom)
        m_flame->jumpTo(hottest);
    m_flame->setSelected(hottest);
    m_sandwich->showFunction(snapshot, function);
}

QStringList MainWindow::recentFiles()
{
    return RecentFiles::files();
}

void MainWindow::search(const QString& pattern, bool regex)
{
    m_searchBar->search(pattern, regex);
}

QString MainWindow::searchResultText() const
{
    return m_searchBar->resultText();
}

void MainWindow::addRule(const FilterRule& rule)
{
    m_viewState->addRule(rule);
}

void MainWindow::removeRule(int index)
{
    m_viewState->removeRule(index);
}

TopFunctionsModel* MainWindow::topFunctionsModel() const
{
    return m_topFunctions->model();
}

QListWidget* MainWindow::legend() const
{
    return m_legend;
}

FlameGraphWidget* MainWindow::callersGraph() const
{
    return m_sandwich->callersGraph();
}

FlameGraphWidget* MainWindow::calleesGraph() const
{
    return m_sandwich->calleesGraph();
}

QWidget* MainWindow::breadcrumb() const
{
    return m_toolbar->breadcrumb();
}

QComboBox* MainWindow::profileChoice() const
{
    return m_toolbar->profileChoice();
}

bool MainWindow::exportTo(const QString& path, QString* error)
{
    return m_session->snapshot() && exportWidget(*m_flame, exportTitle(), path, error);
}

void MainWindow::exportDialog()
{
    if (!m_session->snapshot())
        return;
    const QString path
        = exportWidgetWithDialog(this, *m_flame, exportTitle(), profileBaseName(currentFile()));
    if (!path.isEmpty())
        m_hoverLabel->setText(tr("Exported to %1").arg(path));
}

QString MainWindow::exportTitle() const
{
    return QStringLiteral("%1 — %2").arg(filesName(), QString::fromUtf8(m_session->snapshot()->typeName()));
}

void MainWindow::saveSymbolizedDialog()
{
    const auto& snapshot = m_session->snapshot();
    if (!snapshot)
        return;
    // OTLP read, OTLP written (as `symflame symbolize` does); pprof for everything else.
    const ProfileFormat read = snapshot->format;
    const bool otlp = read == ProfileFormat::Otlp || read == ProfileFormat::OtlpJson
        || read == ProfileFormat::OtlpCollectorJson || read == ProfileFormat::OtlpCollectorProto;
    const QString pprofFilter = tr("pprof (*.pb.gz)"), otlpFilter = tr("OTLP profiles (*.pb)");
    QString filter = otlp ? otlpFilter : pprofFilter;
    const QString base = profileBaseName(currentFile());
    const QString suggested = QFileInfo(currentFile()).absolutePath() + QLatin1Char('/') + base
        + (otlp ? QStringLiteral("-symbolized.pb") : QStringLiteral("-symbolized.pb.gz"));
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Save Symbolized Profile As"), suggested, pprofFilter + QStringLiteral(";;") + otlpFilter, &filter);
    if (path.isEmpty())
        return;
    saveSymbolizedProfile(path, filter == otlpFilter ? ProfileFormat::Otlp : ProfileFormat::Pprof);
}

void MainWindow::saveSymbolizedProfile(const QString& path, model::ProfileFormat format)
{
    const auto& snapshot = m_session->snapshot();
    if (!snapshot)
        return;
    // The profile as symbolized, before any grouping by label; written atomically, never over
    // the file it was read from.
    std::shared_ptr<const Profile> profile = snapshot->sourceProfile();
    const std::string out = QFile::encodeName(path).toStdString();
    const std::string input = QFile::encodeName(currentFile()).toStdString();
    m_hoverLabel->setText(tr("Saving %1\u2026").arg(QFileInfo(path).fileName()));
    auto* watcher = new QFutureWatcher<QString>(this);
    connect(watcher, &QFutureWatcher<QString>::finished, this, [this, watcher, path] {
        watcher->deleteLater();
        const QString error = watcher->result();
        m_hoverLabel->setText(error.isEmpty() ? tr("Saved %1").arg(path) : tr("Could not save %1").arg(path));
        if (!error.isEmpty() && m_errorDialogs)
            QMessageBox::warning(this, tr("Cannot Save Profile"), error);
        emit profileSaved(path, error);
    });
    watcher->setFuture(QtConcurrent::run([profile, out, input, format]() -> QString {
        const Status saved = saveProfile(*profile, out, format, input);
        return saved ? QString() : QString::fromStdString(saved.error().toString());
    }));
}

void MainWindow::openDialog()
{
    QSettings settings;
    const QString dir = settings.value(QLatin1String(kLastDirKey)).toString();
    // Several files chosen are merged into one profile, as `go tool pprof a b` merges them.
    const QStringList paths = QFileDialog::getOpenFileNames(this, tr("Open Profiles"), dir,
        tr("Profiles (*.pb.gz *.pb *.pprof *.prof *.gz *.zst *.cpuprofile *.json *.jsonl);;All files (*)"));
    if (paths.isEmpty())
        return;
    settings.setValue(QLatin1String(kLastDirKey), QFileInfo(paths.first()).absolutePath());
    openFiles(paths);
}

void MainWindow::openFile(const QString& path)
{
    m_session->open(path, previewParts());
}

void MainWindow::openFiles(const QStringList& paths)
{
    if (!paths.isEmpty())
        m_session->openFiles(paths, previewParts());
}

int64_t MainWindow::previewParts() const
{
    // The flame graph fills the scroll area's width (before any zoom), in device pixels.
    return previewPartsFor(m_scroll->viewport()->width() * m_scroll->devicePixelRatioF());
}

void MainWindow::cancelLoading()
{
    if (!m_session->cancel())
        return;
    setLoadingUi(false);
    m_hoverLabel->setText(tr("Cancelled"));
    updateStatus();
}

void MainWindow::showFinished(
    ProfileSession::Change change, const QString& path, const std::shared_ptr<const ProfileSnapshot>& keepFrom)
{
    const std::shared_ptr<const ProfileSnapshot> now = m_session->snapshot();
    NodeId root, selected;
    if (keepFrom) { // the zoom and selection carry over
        root = mapNode(*keepFrom, *now, m_flame->rootNode());
        selected = mapNode(*keepFrom, *now, m_flame->selected());
    }
    showCurrent();
    if (root.valid() && root != now->tree->root())
        m_flame->jumpTo(root);
    if (selected.valid()) {
        m_flame->setSelected(selected);
        showFrame(selected);
    }
    if (change == ProfileSession::Change::Symbolized) {
        const auto& report = m_session->report();
        const qulonglong resolved = report ? report->resolved + report->sourceMaps.resolved : 0;
        const qulonglong locations = report ? report->locations + report->sourceMaps.locations : 0;
        QString text = (locations == 1 ? tr("Symbolized %1 of 1 location") : tr("Symbolized %1 of %2 locations"))
                           .arg(resolved)
                           .arg(locations);
        if (report)
            for (const auto& g : report->serversGivenUp)
                text += tr("; debuginfod server %1 given up: %2").arg(QString::fromStdString(g.url), QString::fromStdString(g.reason));
        m_hoverLabel->setText(text);
        if (!m_binariesSized) { // once per file: later passes keep the size the user left
            m_binariesSized = true;
            sizeDocks();
        }
        emit symbolizationFinished(resolved, locations);
        return;
    }
    m_hoverLabel->clear();
    if (change == ProfileSession::Change::Loaded) {
        m_topFunctions->clearFilter(); // a filter typed for the last file
        m_binariesSized = false;
        applyColorScheme(defaultColorScheme());
    }
    if (change == ProfileSession::Change::Compared) {
        // Into a comparison (colored by change) or out of one (the profile's own colors).
        applyColorScheme(defaultColorScheme());
        updateTitle();
        if (isComparing())
            m_hoverLabel->setText(tr("Compared with %1%2: red grew, blue shrank, hatched only in this profile")
                                      .arg(QFileInfo(m_session->basePath()).fileName(),
                                          m_normalizeAction->isChecked() ? tr(" (normalized)") : QString()));
        return;
    }
    const QStringList files = m_session->files();
    for (auto it = files.rbegin(); it != files.rend(); ++it)
        m_recent->add(*it);
    emit loadFinished(path);
    if (change == ProfileSession::Change::Loaded && !m_compareWhenLoaded.isEmpty()) {
        compareWith(std::exchange(m_compareWhenLoaded, QString())); // symbolizes both sides itself
        return;
    }
    if (change == ProfileSession::Change::Loaded && path == currentFile()
        && QSettings().value(QLatin1String(kSymbolizeAfterLoadingKey), true).toBool())
        startSymbolization();
}

void MainWindow::showFailure(const QString& path, const QString& message)
{
    m_hoverLabel->setText(tr("Could not open %1").arg(QFileInfo(path).fileName()));
    m_recent->remove(path);
    updateStatus();
    emit loadFailed(path, message);
    if (!m_errorDialogs)
        return;
    auto* box = new QMessageBox(QMessageBox::Warning, tr("Cannot Open Profile"),
        tr("Could not open \u201c%1\u201d.").arg(QFileInfo(path).fileName()), QMessageBox::Ok, this);
    // Core messages start lower case to fit after "path: "; a sentence here.
    box->setInformativeText(message.isEmpty() ? message : message.front().toUpper() + message.mid(1));
    box->setDetailedText(path);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

void MainWindow::showFrame(NodeId node)
{
    const auto& report = m_session->report();
    m_details->setFrame(m_session->snapshot(), node, m_session->debugSources(), report ? &report->sourceMaps : nullptr);
}

void MainWindow::updateBinaries()
{
    if (!m_binaries)
        return;
    const auto& snapshot = m_session->snapshot();
    if (!snapshot) {
        m_binaries->setRows({}, 0);
        return;
    }
    const Profile& p = *snapshot->profile;
    const auto& r = m_session->report();
    const symbolize::SymbolizeReport* report = r && r->mappings.size() == p.mappings.size() ? r.get() : nullptr;
    m_binaries->setRows(symbolize::triageBinaries(p, report, snapshot->sampleType), p.totalValue(snapshot->sampleType));
    QStringList givenUp;
    if (report)
        for (const auto& g : report->serversGivenUp)
            givenUp << QString::fromStdString(symbolize::givenUpLine(g));
    m_binaries->setServersGivenUp(givenUp);
}

void MainWindow::updateNotice()
{
    const auto& report = m_session->report();
    // Under 5% (a program's first instants in ld.so and libc: 1-2% of a 0.2 s recording) is
    // not worth a banner, and doesn't change the picture; `symflame info` still says it.
    if (!m_session->snapshot() || !report || report->truncatedStacks.share() < 0.05) {
        m_notice->clearNotice();
        return;
    }
    const model::TruncatedStacks& t = report->truncatedStacks;
    const QString frame = QString::fromUtf8(model::kTruncatedFrameName.data(), qsizetype(model::kTruncatedFrameName.size()));
    // Short enough for two lines at 1366 pixels; the tooltip names every binary.
    const QString advice = QString::fromStdString(t.advice());
    const bool dwarf = t.callGraph == "dwarf";
    const QString shortAdvice = dwarf && t.fullStackCopies > 0
        ? tr("record with a larger stack copy (--call-graph dwarf,65528).")
        : dwarf ? tr("check Binaries for binaries not found.")
                : tr("record with --call-graph dwarf, or rebuild with -fno-omit-frame-pointer.");
    m_notice->setNotice(tr("%1. Drawn under %2; %3").arg(QString::fromStdString(t.describe(2)), frame, shortAdvice),
        tr("Show %1").arg(frame),
        (dwarf ? tr("%1.\nThe frames where unwinding stopped are drawn under %2 rather than as roots of their own.\n%3.")
               : tr("%1.\nThe frames where unwinding stopped are drawn under %2 rather than as roots of their own. To see "
                    "whole stacks, %3."))
            .arg(QString::fromStdString(t.describe(100)), frame, dwarf ? advice.left(1).toUpper() + advice.mid(1) : advice));
}

void MainWindow::editSymbolizeSettings()
{
    SymbolizeSettingsDialog dialog(SymbolizeSettings::load(), this);
    if (dialog.exec() != QDialog::Accepted)
        return;
    dialog.settings().save();
    m_binaries->setFetchEnabled(dialog.settings().toOptions().debuginfod.enabled());
    startSymbolization(); // what is still unsymbolized, with the new places to look
}

void MainWindow::startSymbolization()
{
    if (!m_session->snapshot())
        return;
    // The user's directories and servers; DEBUGINFOD_URLS only after asking once.
    SymbolizeSettings settings = SymbolizeSettings::load();
    if (m_errorDialogs) // no question boxes when driven by tests
        settings.debuginfod = askAboutEnvironmentServers(this);
    m_binaries->setFetchEnabled(settings.debuginfod.toOptions().enabled());
    m_session->symbolize(settings.toOptions());
}

void MainWindow::showSnapshot(std::shared_ptr<const ProfileSnapshot> snapshot)
{
    m_session->setSnapshot(std::move(snapshot));
    showCurrent();
}

void MainWindow::showCurrent()
{
    const std::shared_ptr<const ProfileSnapshot>& snapshot = m_session->snapshot();
    m_stickToBottom = !m_icicleAction->isChecked();
    m_flame->setSnapshot(snapshot);
    m_flame->setFocus();
    m_details->setFrame(snapshot, {});
    m_sandwich->showFunction(snapshot, {});
    m_topFunctions->setSnapshot(snapshot);
    m_labels->setSnapshot(snapshot);
    m_timeline->setSnapshot(snapshot);
    m_viewState->setSnapshot(snapshot);
    m_legend->setLegend(*m_flame);
    m_searchBar->setSnapshot(snapshot);
    updateBinaries();
    updateNotice();

    m_toolbar->setSnapshot(snapshot);
    updateTitle();
    updateStatus();
    updateStartPage();
}

void MainWindow::updateStartPage()
{
    const bool open = m_session->snapshot() != nullptr;
    if (!open && !m_loading)
        m_startPage->setRecentFiles(RecentFiles::files());
    m_pages->setCurrentWidget(open || m_loading ? static_cast<QWidget*>(m_scroll) : m_startPage);
    for (QAction* a : m_profileActions)
        a->setEnabled(open);
}

void MainWindow::setLoadingUi(bool loading, const QString& what)
{
    m_loading = loading;
    m_progress->setVisible(loading);
    m_cancel->setVisible(loading);
    m_toolbar->setBusy(loading);
    m_flame->setPlaceholderText(
        loading ? what + QStringLiteral("\u2026") : tr("Open a profile with File \u203a Open, or drop a file here"));
    if (loading) {
        m_progress->setValue(0);
        m_hoverLabel->setText(what);
    }
    if (m_pages)
        updateStartPage();
}

QString MainWindow::filesName() const
{
    const QStringList files = m_session->files();
    if (files.size() <= 1)
        return files.isEmpty() ? QString() : QFileInfo(files[0]).fileName();
    return tr("%1 and %n more", nullptr, int(files.size() - 1)).arg(QFileInfo(files[0]).fileName());
}

void MainWindow::updateTitle()
{
    QString name = filesName();
    if (isComparing())
        name = tr("%1 compared with %2").arg(name, QFileInfo(m_session->basePath()).fileName());
    setWindowTitle(name.isEmpty() ? QStringLiteral("symflame") : tr("%1 \u2014 symflame").arg(name));
    if (m_stopCompareAction)
        m_stopCompareAction->setEnabled(isComparing());
    if (m_widthByBaseAction) {
        m_widthByBaseAction->setEnabled(isComparing());
        m_widthByBaseAction->setChecked(isComparing() && m_session->snapshot()->widthByBase());
        m_widthByChangeAction->setEnabled(isComparing());
        m_widthByChangeAction->setChecked(isComparing() && m_session->snapshot()->widthByChange());
    }
    for (QAction* a : m_colorActions)
        if (a->data().toInt() == int(FlameGraphPainter::ColorScheme::Diff))
            a->setEnabled(isComparing());
}

void MainWindow::compareWith(const QString& basePath)
{
    if (!m_session->snapshot() || m_loading) {
        m_compareWhenLoaded = basePath; // once the profile being loaded is shown
        return;
    }
    model::DiffOptions diffOptions;
    diffOptions.normalize = m_normalizeAction->isChecked();
    for (QAction* a : m_matchActions)
        if (a->isChecked())
            diffOptions.match = model::DiffOptions::Match(a->data().toInt());
    m_session->compareWith(basePath, SymbolizeSettings::load().toOptions(), diffOptions);
}

void MainWindow::stopComparing()
{
    m_session->stopComparing();
}

bool MainWindow::isComparing() const
{
    return m_session->isComparing();
}

void MainWindow::updateStatus()
{
    const auto& snapshot = m_session->snapshot();
    m_statusLabel->setToolTip({});
    if (!snapshot) {
        m_statusLabel->clear();
        return;
    }
    const Profile& profile = *snapshot->profile;
    // A preview estimated from part of the samples has an estimated total: the profile's is known.
    const bool estimated = snapshot->tree && snapshot->tree->sampledEvery() > 1;
    const int64_t total = estimated ? profile.totalValue(snapshot->sampleType)
        : snapshot->tree               ? snapshot->tree->totalValue()
                                       : 0;
    if (snapshot->baseTree) {
        // A comparison: both sides' totals of the type shown.
        m_statusLabel->setText(tr("%1 %2, base %3%4")
                                   .arg(QString::fromUtf8(snapshot->typeName()),
                                       QString::fromStdString(formatValue(snapshot->newSideTotal(), snapshot->unit())),
                                       QString::fromStdString(formatValue(snapshot->baseSideTotal(), snapshot->unit())),
                                       m_normalizeAction && m_normalizeAction->isChecked() ? tr(" (normalized)") : QString()));
        return;
    }
    QLocale locale;
    const SampleTally tally = profile.sampleTally();
    const QString count = locale.toString(qulonglong(tally.count));
    QString text = tally.records ? (tally.count == 1 ? tr("1 sample record") : tr("%1 sample records").arg(count))
                                 : (tally.count == 1 ? tr("1 sample") : tr("%1 samples").arg(count));
    // "396 samples · samples total 396" says one thing twice.
    const bool typeIsTheCount = !tally.records && (snapshot->typeName() == "samples" || snapshot->typeName() == "sample");
    if (!snapshot->typeName().empty() && !typeIsTheCount)
        text += tr(" \u00b7 %1 total %2")
                    .arg(QString::fromUtf8(snapshot->typeName()),
                        QString::fromStdString(formatValue(total, snapshot->unit())));
    QString tip;
    if (const int64_t cut = snapshot->tree ? snapshot->tree->omittedBelow() : 0; cut > 0) {
        const QString below = QString::fromStdString(formatValue(cut, snapshot->unit()));
        if (const uint32_t every = snapshot->tree->sampledEvery(); every > 1) {
            text += tr(" \u00b7 preview of 1 sample in %1").arg(locale.toString(every));
            tip = tr("A first view while the complete graph is built: sizes are estimated from 1 sample in %1, "
                     "and frames below %2 are not shown yet.")
                      .arg(locale.toString(every), below);
        } else {
            text += tr(" \u00b7 preview: frames below %1 not shown yet").arg(below);
        }
    }
    m_statusLabel->setText(text);
    m_statusLabel->setToolTip(tip);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    const QMimeData* mime = event->mimeData();
    if (mime->hasUrls() && !mime->urls().isEmpty() && mime->urls().first().isLocalFile()) {
        event->acceptProposedAction();
        if (m_session->snapshot() && mime->urls().size() == 1)
            statusBar()->showMessage(tr("Drop to open the file; hold Shift to compare this profile with it"), 3000);
    }
}

void MainWindow::dropEvent(QDropEvent* event)
{
    QStringList paths;
    for (const QUrl& url : event->mimeData()->urls())
        if (url.isLocalFile())
            paths << url.toLocalFile();
    if (paths.isEmpty())
        return;
    event->acceptProposedAction();
    // Shift: the dropped file is the base this profile is compared with (as File > Compare With).
    if ((event->modifiers() & Qt::ShiftModifier) && paths.size() == 1 && m_session->snapshot()) {
        compareWith(paths.first());
        return;
    }
    openFiles(paths);
}

} // namespace symflame::ui
