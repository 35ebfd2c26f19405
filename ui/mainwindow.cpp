// MainWindow: menus, drag and drop, background loading through QtConcurrent with a Progress
// adapter over QPromise, results applied on the GUI thread if they are still wanted.
// Over 600 lines still: the job stages (startJob .. startSymbolization, finishJob) are to move to
// a session object, and search, rules and chips to a view-state object; not done yet.
#include "ui/mainwindow.h"

#include "model/core/frameformat.h"
#include "model/analysis/search.h"
#include "model/analysis/toptable.h"
#include "symbolize/pass/symbolizationpass.h"
#include "ui/breadcrumb.h"
#include "ui/callerscalleespanel.h"
#include "ui/flameexport.h"
#include "ui/flamegraphwidget.h"
#include "ui/binariespanel.h"
#include "ui/framedetailswidget.h"
#include "ui/promiseprogress.h"
#include "ui/symbolizesettings.h"
#include "symbolize/pass/binarytriage.h"
#include "ui/topfunctionsmodel.h"
#include "ui/topfunctionspanel.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QDockWidget>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QListWidget>
#include <QToolButton>
#include <QVBoxLayout>
#include <QComboBox>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QKeySequence>
#include <QFontMetrics>
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

namespace symflame::ui {

using namespace symflame::model;

namespace {

constexpr int kMaxRecentFiles = 10;
const char kRecentKey[] = "recentFiles";
const char kLastDirKey[] = "lastDirectory";

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
    auto* central = new QWidget;
    auto* centralLayout = new QVBoxLayout(central);
    centralLayout->setContentsMargins(0, 0, 0, 0);
    centralLayout->setSpacing(0);
    createSearchBar();
    centralLayout->addWidget(m_searchBar);
    m_chipsBar = new QWidget;
    m_chipsLayout = new QHBoxLayout(m_chipsBar);
    m_chipsLayout->setContentsMargins(4, 2, 4, 2);
    m_chipsBar->setVisible(false);
    centralLayout->addWidget(m_chipsBar);
    centralLayout->addWidget(m_scroll, 1);
    setCentralWidget(central);
    // Flame graphs grow upwards from the root: keep the bottom row in view as rows come and go.
    QScrollBar* bar = m_scroll->verticalScrollBar();
    connect(bar, &QScrollBar::rangeChanged, this, [this, bar](int, int max) {
        if (m_stickToBottom)
            bar->setValue(max);
    });
    connect(bar, &QScrollBar::valueChanged, this, [this, bar](int value) {
        m_stickToBottom = value == bar->maximum() && !m_icicleAction->isChecked();
    });

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

    m_profileChoice = new QComboBox;
    m_profileChoice->setObjectName(QStringLiteral("profileChoice"));
    m_profileChoice->setToolTip(tr("The file holds several profiles (service, executable, sample type): the one shown"));
    m_profileChoice->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    auto* profileLabel = new QLabel(tr("Profile:"));
    profileLabel->setBuddy(m_profileChoice);
    profileLabel->setContentsMargins(4, 0, 4, 0);
    m_profileChoiceLabelAction = m_toolbar->insertWidget(m_sampleTypeLabelAction, profileLabel);
    m_profileChoiceAction = m_toolbar->insertWidget(m_sampleTypeLabelAction, m_profileChoice);
    m_profileChoiceLabelAction->setVisible(false);
    m_profileChoiceAction->setVisible(false);
    connect(m_profileChoice, &QComboBox::activated, this, &MainWindow::chooseProfile);

    m_backAction = m_toolbar->addAction(tr("Back"), m_flame, [this] { m_flame->zoomOut(); });
    m_backAction->setShortcut(QKeySequence(Qt::Key_Backspace));
    m_backAction->setToolTip(tr("Back to the previous zoom (Backspace, Esc)"));
    m_resetZoomAction = m_toolbar->addAction(tr("Reset Zoom"), m_flame, [this] { m_flame->resetView(); });
    m_resetZoomAction->setShortcuts({ QKeySequence(Qt::CTRL | Qt::Key_0), QKeySequence(Qt::Key_Home) });
    m_resetZoomAction->setToolTip(tr("Show the whole profile (Ctrl+0, Home)"));
    m_breadcrumb = new Breadcrumb(m_flame);
    m_toolbar->addWidget(m_breadcrumb);
    connect(m_flame, &FlameGraphWidget::rootChanged, this, [this] {
        const bool zoomed = m_flame->isZoomed();
        m_backAction->setEnabled(zoomed);
        m_resetZoomAction->setEnabled(zoomed || m_flame->isViewZoomed());
        m_breadcrumb->rebuild();
    });
    connect(m_flame, &FlameGraphWidget::viewChanged, this,
        [this] { m_resetZoomAction->setEnabled(m_flame->isZoomed() || m_flame->isViewZoomed()); });
    connect(m_flame, &FlameGraphWidget::selectedChanged, this,
        [this](NodeId node) {
            m_details->setFrame(m_snapshot, node, m_debugSources ? *m_debugSources : QMap<int, QString>(),
                m_report ? &m_report->sourceMaps : nullptr);
            if (m_snapshot && node.valid() && node != m_snapshot->tree->root())
                m_sandwich->showFunction(m_snapshot, m_snapshot->tree->node(node).symbol);
        });
    connect(m_flame, &FlameGraphWidget::contextMenuRequested, this, &MainWindow::showFrameMenu);
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

    createDocks();
    createMenus();
    updateTitle();
    updateStatus();
}

MainWindow::~MainWindow()
{
    // The worker holds no pointer to us; cancelling lets the thread pool wind down quickly.
    m_jobs.cancel();
}

void MainWindow::createMenus()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(tr("&Open\u2026"), this, &MainWindow::openDialog);
    open->setShortcut(QKeySequence::Open);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    updateRecentMenu();
    QAction* exportAction = file->addAction(tr("&Export…"), this, &MainWindow::exportDialog);
    exportAction->setObjectName(QStringLiteral("exportAction"));
    exportAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), qApp, &QApplication::closeAllWindows);
    quit->setShortcut(QKeySequence::Quit);
    quit->setMenuRole(QAction::QuitRole);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    view->addAction(m_backAction);
    view->addAction(m_resetZoomAction);
    view->addSeparator();
    QAction* find = view->addAction(tr("&Find…"), this, [this] {
        m_searchBar->show();
        m_searchEdit->setFocus();
        m_searchEdit->selectAll();
    });
    find->setShortcut(QKeySequence::Find);
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
    m_bottomUpAction = view->addAction(tr("&Bottom-Up (Inverted)"));
    m_bottomUpAction->setCheckable(true);
    m_bottomUpAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_B));
    connect(m_bottomUpAction, &QAction::triggered, this, [this](bool bottomUp) {
        if (!m_snapshot)
            return;
        ViewOptions v = m_snapshot->view;
        v.direction = bottomUp ? CallTree::Direction::BottomUp : CallTree::Direction::TopDown;
        rebuildView(v);
    });
    m_collapseAction = view->addAction(tr("&Collapse Recursion"));
    m_collapseAction->setCheckable(true);
    connect(m_collapseAction, &QAction::triggered, this, [this](bool collapse) {
        if (!m_snapshot)
            return;
        ViewOptions v = m_snapshot->view;
        v.collapseRecursion = collapse;
        rebuildView(v);
    });
    QAction* symbolizeAction = view->addAction(tr("&Symbolize After Loading"));
    symbolizeAction->setCheckable(true);
    symbolizeAction->setChecked(QSettings().value(QStringLiteral("symbolizeAfterLoading"), true).toBool());
    symbolizeAction->setToolTip(tr("Look up names for addresses in local binaries and debug files in the background"));
    connect(symbolizeAction, &QAction::toggled, this,
        [](bool on) { QSettings().setValue(QStringLiteral("symbolizeAfterLoading"), on); });
    QMenu* colors = view->addMenu(tr("Color &By"));
    auto* colorGroup = new QActionGroup(this);
    const std::pair<QString, FlameGraphPainter::ColorScheme> schemes[] = {
        { tr("Function &Name"), FlameGraphPainter::ColorScheme::Name },
        { tr("&Binary"), FlameGraphPainter::ColorScheme::Binary },
        { tr("&Symbolization Status"), FlameGraphPainter::ColorScheme::Status },
        { tr("Frame &Type"), FlameGraphPainter::ColorScheme::Kind },
    };
    for (const auto& [name, scheme] : schemes) {
        QAction* a = colors->addAction(name, this, [this, scheme = scheme] {
            m_flame->setColorScheme(scheme);
            updateLegend();
            m_legendDock->setVisible(scheme != FlameGraphPainter::ColorScheme::Name);
        });
        a->setCheckable(true);
        a->setChecked(scheme == FlameGraphPainter::ColorScheme::Name);
        colorGroup->addAction(a);
    }
    view->addSeparator();
    for (QDockWidget* dock : findChildren<QDockWidget*>())
        view->addAction(dock->toggleViewAction());

    QMenu* settings = menuBar()->addMenu(tr("&Settings"));
    settings->addAction(tr("&Symbolization…"), this, &MainWindow::editSymbolizeSettings);

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&Keyboard Shortcuts"), this, &MainWindow::showShortcuts);
    help->addAction(tr("&About symflame"), this, [this] {
        QMessageBox::about(this, tr("About symflame"),
            tr("<b>symflame %1</b><p>Flame graphs for profiles of native code.</p>")
                .arg(QApplication::applicationVersion()));
    });
}

void MainWindow::createSearchBar()
{
    m_searchBar = new QWidget;
    auto* layout = new QHBoxLayout(m_searchBar);
    layout->setContentsMargins(4, 2, 4, 2);
    m_searchEdit = new QLineEdit;
    m_searchEdit->setObjectName(QStringLiteral("searchEdit"));
    m_searchEdit->setPlaceholderText(tr("Search functions, files and binaries (Enter: next match)"));
    m_searchEdit->setClearButtonEnabled(true);
    m_searchRegex = new QCheckBox(tr("Regular expression"));
    m_searchRegex->setToolTip(tr("RE2 syntax, as pprof's -focus (no backreferences or lookaround); matched in time linear in each name"));
    m_searchResult = new QLabel;
    m_searchResult->setMinimumWidth(m_searchResult->fontMetrics().horizontalAdvance(QStringLiteral("0000000 frames, 100.00% of samples")));
    m_searchEdit->setMaximumWidth(520);
    auto* close = new QToolButton;
    close->setText(QStringLiteral("✕"));
    close->setToolTip(tr("Close the search (Esc)"));
    layout->addWidget(new QLabel(tr("Find:")));
    layout->addWidget(m_searchEdit, 2);
    layout->addWidget(m_searchRegex);
    layout->addWidget(m_searchResult, 1);
    layout->addWidget(close);
    m_searchBar->setVisible(false);
    connect(m_searchEdit, &QLineEdit::textChanged, this, &MainWindow::applySearch);
    connect(m_searchRegex, &QCheckBox::toggled, this, &MainWindow::applySearch);
    connect(m_searchEdit, &QLineEdit::returnPressed, this, &MainWindow::stepSearch);
    connect(close, &QToolButton::clicked, this, [this] {
        m_searchEdit->clear();
        m_searchBar->hide();
        m_flame->setFocus();
    });
}

void MainWindow::createDocks()
{
    m_details = new FrameDetailsWidget;
    auto* detailsDock = new QDockWidget(tr("Frame Details"), this);
    detailsDock->setObjectName(QStringLiteral("frameDetailsDock"));
    detailsDock->setWidget(m_details);
    addDockWidget(Qt::RightDockWidgetArea, detailsDock);

    m_topFunctions = new TopFunctionsPanel;
    connect(m_topFunctions, &TopFunctionsPanel::focusRequested, this, [this](const QString& name) {
        addRule(FilterRule { FilterRule::Action::Focus, FilterRule::Target::Function, name.toStdString() });
    });
    auto* topDock = new QDockWidget(tr("Top Functions"), this);
    topDock->setObjectName(QStringLiteral("topFunctionsDock"));
    topDock->setWidget(m_topFunctions);
    addDockWidget(Qt::RightDockWidgetArea, topDock);
    resizeDocks({ detailsDock, topDock }, { 380, 380 }, Qt::Horizontal);

    // Sandwich: merged callers of the selected function above it, its callees below.
    m_sandwich = new CallersCalleesPanel;
    auto* sandwichDock = new QDockWidget(tr("Callers and Callees"), this);
    sandwichDock->setObjectName(QStringLiteral("sandwichDock"));
    sandwichDock->setWidget(m_sandwich);
    addDockWidget(Qt::BottomDockWidgetArea, sandwichDock);
    sandwichDock->hide();
    connect(m_topFunctions, &TopFunctionsPanel::functionClicked, this,
        [this](SymbolId function) { m_sandwich->showFunction(m_snapshot, function); });

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
    // A strip below the flame graph, not half the window (about ten table rows).
    resizeDocks({ binariesDock }, { 12 * fontMetrics().height() + 80 }, Qt::Vertical);
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
    connect(m_binaries, &BinariesPanel::fetchRequested, this, [this](int) { startSymbolization(); });
    connect(m_binaries, &BinariesPanel::showInFlameGraph, this, [this](int row) {
        if (const symbolize::BinaryRow* r = m_binaries->model()->row(row))
            search(QString::fromStdString(r->name), false);
    });
    m_legendDock->hide();
    connect(m_legend, &LegendWidget::highlightRequested, m_flame, &FlameGraphWidget::setHighlight);
    connect(m_legend, &LegendWidget::highlightCleared, this, &MainWindow::applySearch); // back to the search's
}

void MainWindow::updateLegend()
{
    m_legend->setLegend(m_flame->painter(), m_flame->palette().color(QPalette::Base).lightness() < 128);
}

TopFunctionsModel* MainWindow::topFunctionsModel() const
{
    return m_topFunctions->model();
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
    return m_breadcrumb;
}

void MainWindow::search(const QString& pattern, bool regex)
{
    m_searchBar->show();
    m_searchRegex->setChecked(regex);
    m_searchEdit->setText(pattern);
    applySearch();
}

QString MainWindow::searchResultText() const
{
    return m_searchResult->text();
}

void MainWindow::applySearch()
{
    m_matches.clear();
    m_matchIndex = 0;
    const QString pattern = m_searchEdit->text();
    if (!m_snapshot || pattern.isEmpty()) {
        m_searchResult->clear();
        m_flame->setHighlight({});
        return;
    }
    SearchQuery query { pattern.toStdString(), m_searchRegex->isChecked(), false };
    auto matches = matchSymbols(*m_snapshot->profile, *m_snapshot->symbols, query);
    if (!matches) {
        m_searchResult->setText(QString::fromStdString(matches.error().message));
        m_flame->setHighlight({});
        return;
    }
    const SearchStats stats = searchStats(*m_snapshot->tree, *matches);
    const int64_t all = m_snapshot->tree->totalValue();
    m_searchResult->setText(tr("%1 frames, %2% of samples")
                                .arg(stats.frames)
                                .arg(all == 0 ? 0.0 : 100.0 * double(stats.value) / double(all), 0, 'f', 2));
    m_matches = stats.nodes;
    m_flame->setHighlight(std::move(matches).value());
}

void MainWindow::stepSearch()
{
    if (m_matches.empty())
        return;
    const NodeId node = m_matches[m_matchIndex % m_matches.size()];
    ++m_matchIndex;
    m_flame->jumpTo(node);
    m_flame->setSelected(node);
}

void MainWindow::addRule(const FilterRule& rule)
{
    if (!m_snapshot)
        return;
    ViewOptions v = m_snapshot->view;
    if (std::find(v.rules.begin(), v.rules.end(), rule) == v.rules.end())
        v.rules.push_back(rule);
    rebuildView(v);
}

void MainWindow::removeRule(int index)
{
    if (!m_snapshot || index < 0 || size_t(index) >= m_snapshot->view.rules.size())
        return;
    ViewOptions v = m_snapshot->view;
    v.rules.erase(v.rules.begin() + index);
    rebuildView(v);
}

void MainWindow::rebuildView(const ViewOptions& view)
{
    auto snapshot = m_snapshot;
    startJob(m_path, tr("Building the call tree"),
        [snapshot, view](Progress* progress, const PreviewSink&) { return withView(*snapshot, view, progress); });
}

void MainWindow::updateChips()
{
    while (QLayoutItem* item = m_chipsLayout->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    if (!m_snapshot) {
        m_chipsBar->hide();
        return;
    }
    const auto& rules = m_snapshot->view.rules;
    for (size_t i = 0; i < rules.size(); ++i) {
        const FilterRule& r = rules[i];
        auto* chip = new QToolButton;
        chip->setText(QStringLiteral("%1 %2: %3  ✕")
                          .arg(QString::fromUtf8(filterActionName(r.action)),
                              r.target == FilterRule::Target::Binary ? tr("binary") : tr("function"),
                              QString::fromStdString(r.name)));
        chip->setToolTip(tr("Remove this rule"));
        chip->setAutoRaise(false);
        connect(chip, &QToolButton::clicked, this, [this, i] { removeRule(int(i)); });
        m_chipsLayout->addWidget(chip);
    }
    if (m_snapshot->view.collapseRecursion) {
        auto* chip = new QToolButton;
        chip->setText(tr("recursion collapsed  ✕"));
        connect(chip, &QToolButton::clicked, m_collapseAction, &QAction::trigger);
        m_chipsLayout->addWidget(chip);
    }
    m_chipsLayout->addStretch();
    m_chipsBar->setVisible(!rules.empty() || m_snapshot->view.collapseRecursion);
}

void MainWindow::showFrameMenu(NodeId node, const QPoint& globalPos)
{
    if (!m_snapshot || !node.valid() || node == m_snapshot->tree->root())
        return;
    const Symbol& sym = m_snapshot->symbols->symbol(m_snapshot->tree->node(node).symbol);
    const std::string name = m_snapshot->symbols->displayName(m_snapshot->tree->node(node).symbol);
    const Profile& profile = *m_snapshot->profile;
    std::string binary;
    if (sym.mapping.valid() && sym.mapping.index() < profile.mappings.size())
        binary = std::string(profile.str(profile.mappings[sym.mapping.index()].file));
    QMenu menu(this);
    const QString shownName = QFontMetrics(menu.font()).elidedText(QString::fromStdString(name), Qt::ElideMiddle, 300);
    const auto add = [&](const QString& text, FilterRule::Action action, FilterRule::Target target,
                         const std::string& what) {
        menu.addAction(text, this, [this, action, target, what] { addRule(FilterRule { action, target, what }); });
    };
    add(tr("Focus on %1").arg(shownName), FilterRule::Action::Focus, FilterRule::Target::Function, name);
    add(tr("Ignore %1").arg(shownName), FilterRule::Action::Ignore, FilterRule::Target::Function, name);
    add(tr("Hide %1").arg(shownName), FilterRule::Action::Hide, FilterRule::Target::Function, name);
    if (!binary.empty()) {
        menu.addSeparator();
        const QString b = QString::fromUtf8(baseName(binary));
        add(tr("Focus on Binary %1").arg(b), FilterRule::Action::Focus, FilterRule::Target::Binary, binary);
        add(tr("Ignore Binary %1").arg(b), FilterRule::Action::Ignore, FilterRule::Target::Binary, binary);
        add(tr("Hide Binary %1").arg(b), FilterRule::Action::Hide, FilterRule::Target::Binary, binary);
    }
    menu.addSeparator();
    menu.addAction(tr("Copy Function Name"), this,
        [name] { QApplication::clipboard()->setText(QString::fromStdString(name)); });
    menu.exec(globalPos);
}

bool MainWindow::exportTo(const QString& path, QString* error)
{
    if (!m_snapshot)
        return false;
    ExportOptions options;
    options.width = std::max(m_flame->width(), 200);
    options.palette = m_flame->palette();
    options.title = QStringLiteral("%1 — %2").arg(QFileInfo(m_path).fileName(), QString::fromUtf8(m_snapshot->typeName()));
    const Status status = exportFlameGraph(m_flame->painter(), path, options);
    if (!status && error)
        *error = QString::fromStdString(status.error().toString());
    return status.ok();
}

void MainWindow::exportDialog()
{
    if (!m_snapshot)
        return;
    const QString path = QFileDialog::getSaveFileName(this, tr("Export Flame Graph"),
        QFileInfo(m_path).completeBaseName() + QStringLiteral(".svg"), tr("SVG (*.svg);;PNG image (*.png)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!exportTo(path, &error))
        QMessageBox::warning(this, tr("Export Failed"), error);
    else
        m_hoverLabel->setText(tr("Exported to %1").arg(path));
}

void MainWindow::showShortcuts()
{
    const std::pair<const char*, const char*> shortcuts[] = {
        { "Ctrl+O", "Open a profile" },
        { "Ctrl+E", "Export the current view as SVG or PNG" },
        { "Ctrl+F", "Search functions, files and binaries" },
        { "Enter", "Next search match (in the search field)" },
        { "Click", "Zoom into a frame and show its details" },
        { "Right-click", "Focus on, ignore or hide a function or binary" },
        { "Esc, Backspace", "Back to the previous zoom" },
        { "Ctrl+0, Home", "Reset the zoom" },
        { "Ctrl+wheel", "Zoom horizontally around the pointer" },
        { "Shift+wheel, drag", "Pan a zoomed view" },
        { "Ctrl+I", "Flame or icicle" },
        { "Ctrl+B", "Top-down or bottom-up" },
        { "Ctrl+Q", "Quit" },
    };
    QString html = QStringLiteral("<table>");
    for (const auto& [keys, what] : shortcuts)
        html += QStringLiteral("<tr><td style='padding-right:16px'><b>%1</b></td><td>%2</td></tr>")
                    .arg(QString::fromUtf8(keys), tr(what));
    html += QStringLiteral("</table>");
    QMessageBox::information(this, tr("Keyboard Shortcuts"), html);
}

void MainWindow::openDialog()
{
    QSettings settings;
    const QString dir = settings.value(QLatin1String(kLastDirKey)).toString();
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open Profile"), dir, tr("Profiles (*.pb.gz *.pb *.pprof *.prof *.gz *.cpuprofile *.json);;All files (*)"));
    if (path.isEmpty())
        return;
    settings.setValue(QLatin1String(kLastDirKey), QFileInfo(path).absolutePath());
    openFile(path);
}

void MainWindow::openFile(const QString& path)
{
    const QString absolute = QFileInfo(path).absoluteFilePath();
    const std::string native = QFile::encodeName(absolute).toStdString();
    const int64_t parts = previewParts();
    startJob(absolute, tr("Loading %1").arg(QFileInfo(absolute).fileName()),
        [native, parts](Progress* progress, const PreviewSink& preview) {
            return loadSnapshot(native, progress, 0, preview, parts);
        });
}

void MainWindow::chooseSampleType(int index)
{
    if (!m_snapshot || index < 0 || static_cast<size_t>(index) == m_snapshot->sampleType)
        return;
    auto snapshot = m_snapshot;
    startJob(m_path, tr("Building the call tree"), [snapshot, index](Progress* progress, const PreviewSink&) {
        return withSampleType(*snapshot, static_cast<size_t>(index), progress);
    });
}

void MainWindow::chooseProfile(int index)
{
    if (!m_snapshot || index < 0 || static_cast<size_t>(index) == m_snapshot->profile->profileIndex)
        return;
    const std::string native = QFile::encodeName(m_path).toStdString();
    const auto profileIndex = static_cast<size_t>(index);
    const int64_t parts = previewParts();
    startJob(m_path, tr("Loading profile %1").arg(index),
        [native, profileIndex, parts](Progress* progress, const PreviewSink& preview) {
            return loadSnapshot(native, progress, profileIndex, preview, parts);
        });
}

int64_t MainWindow::previewParts() const
{
    // The flame graph fills the scroll area's width (before any zoom), in device pixels.
    return previewPartsFor(m_scroll->viewport()->width() * m_scroll->devicePixelRatioF());
}

void MainWindow::startJob(const QString& path, const QString& what, Job job, bool keepView)
{
    cancelLoading();
    m_jobKeepsView = keepView;
    QFuture<JobOutcome> future = QtConcurrent::run([job = std::move(job)](QPromise<JobOutcome>& promise) {
        PromiseProgress<JobOutcome> progress(promise);
        const PreviewSink preview = [&promise](std::shared_ptr<const ProfileSnapshot> first) {
            JobOutcome outcome;
            outcome.snapshot = std::move(first);
            outcome.preview = true;
            promise.addResult(std::move(outcome));
        };
        auto result = job(&progress, preview);
        JobOutcome outcome;
        if (result) {
            outcome.snapshot = std::move(result).value();
        } else {
            outcome.cancelled = result.error().code == ErrorCode::Cancelled;
            outcome.error = QString::fromStdString(result.error().message);
        }
        promise.addResult(std::move(outcome));
    });
    auto* watcher = m_jobs.track(future, [this, path](const QFuture<JobOutcome>& done) {
        setLoadingUi(false);
        const int results = done.resultCount();
        if (done.isCanceled() || results == 0 || done.resultAt(results - 1).preview) {
            finishJob(path, JobOutcome { nullptr, {}, true });
            return;
        }
        finishJob(path, done.resultAt(results - 1));
    });
    const uint64_t current = m_jobs.id();
    connect(watcher, &QFutureWatcherBase::progressValueChanged, m_progress, &QProgressBar::setValue);
    connect(watcher, &QFutureWatcherBase::progressTextChanged, this, [this, what](const QString& stage) {
        m_hoverLabel->setText(stage.isEmpty() ? what : what + QStringLiteral(": ") + stage);
    });
    connect(watcher, &QFutureWatcherBase::resultReadyAt, this, [this, watcher, current](int index) {
        if (!m_jobs.isCurrent(current) || watcher->future().isCanceled())
            return;
        const JobOutcome outcome = watcher->future().resultAt(index);
        if (outcome.preview)
            showPreview(outcome);
    });
    setLoadingUi(true, what);
}

void MainWindow::cancelLoading()
{
    if (!m_jobs.cancel()) // whatever the cancelled job still delivers is dropped
        return;
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
    if (m_jobKeepsView && m_snapshot) {
        // Live symbolization: same profile, names instead of addresses; keep zoom and selection.
        const NodeId root = mapNode(*m_snapshot, *outcome.snapshot, m_flame->rootNode());
        const NodeId selected = mapNode(*m_snapshot, *outcome.snapshot, m_flame->selected());
        const QString search = m_searchEdit->text();
        showSnapshot(outcome.snapshot);
        if (root.valid() && root != outcome.snapshot->tree->root())
            m_flame->jumpTo(root);
        if (selected.valid())
            m_flame->setSelected(selected);
        m_report = m_pendingReport;
        m_details->setFrame(m_snapshot, selected, m_debugSources ? *m_debugSources : QMap<int, QString>(),
            m_report ? &m_report->sourceMaps : nullptr);
        updateBinaries();
        const auto counts = m_symbolizeCounts ? *m_symbolizeCounts : std::pair<qulonglong, qulonglong>();
        m_hoverLabel->setText(tr("Symbolized %1 of %2 locations").arg(counts.first).arg(counts.second));
        emit symbolizationFinished(counts.first, counts.second);
        (void)search;
        return;
    }
    // The complete tree after a preview: keep where the user went meanwhile.
    NodeId root, selected;
    if (m_showingPreview && m_snapshot && m_snapshot->profile == outcome.snapshot->profile) {
        root = mapNode(*m_snapshot, *outcome.snapshot, m_flame->rootNode());
        selected = mapNode(*m_snapshot, *outcome.snapshot, m_flame->selected());
    }
    m_showingPreview = false;
    m_report.reset(); // a new profile: no pass has run over it yet
    m_debugSources.reset();
    showSnapshot(outcome.snapshot);
    if (root.valid() && root != outcome.snapshot->tree->root())
        m_flame->jumpTo(root);
    if (selected.valid()) {
        m_flame->setSelected(selected);
        m_details->setFrame(m_snapshot, selected);
    }
    m_hoverLabel->clear();
    if (!path.isEmpty())
        addRecentFile(path);
    emit loadFinished(path);
    if (path == m_path && QSettings().value(QStringLiteral("symbolizeAfterLoading"), true).toBool())
        startSymbolization();
}

void MainWindow::showPreview(const JobOutcome& outcome)
{
    m_report.reset();
    m_debugSources.reset();
    showSnapshot(outcome.snapshot);
    m_showingPreview = true;
    m_hoverLabel->setText(tr("Showing a first view; growing the complete call tree\u2026"));
    emit previewShown(QString::fromStdString(outcome.snapshot->path));
}

void MainWindow::updateBinaries()
{
    if (!m_binaries)
        return;
    if (!m_snapshot) {
        m_binaries->setRows({}, 0);
        return;
    }
    const Profile& p = *m_snapshot->profile;
    const symbolize::SymbolizeReport* report
        = m_report && m_report->mappings.size() == p.mappings.size() ? m_report.get() : nullptr;
    m_binaries->setRows(symbolize::triageBinaries(p, report, m_snapshot->sampleType), p.totalValue(m_snapshot->sampleType));
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
    if (!m_snapshot)
        return;
    const Profile& profile = *m_snapshot->profile;
    const bool anyToDo = std::any_of(profile.locations.begin(), profile.locations.end(), [&](const Location& l) {
        return l.status == FrameStatus::BinaryOnly || symbolize::isMappableJavaScriptFrame(profile, l);
    });
    if (!anyToDo)
        return;
    auto snapshot = m_snapshot;
    auto sources = std::make_shared<QMap<int, QString>>();
    auto counts = std::make_shared<std::pair<qulonglong, qulonglong>>();
    auto reportOut = std::make_shared<symbolize::SymbolizeReport>();
    m_debugSources = sources;
    m_symbolizeCounts = counts;
    m_pendingReport = reportOut;
    // The user's directories and servers; DEBUGINFOD_URLS only after asking once.
    SymbolizeSettings settings = SymbolizeSettings::load();
    if (m_errorDialogs) // no question boxes when driven by tests
        settings.debuginfod = askAboutEnvironmentServers(this);
    m_binaries->setFetchEnabled(settings.debuginfod.toOptions().enabled());
    const symbolize::SymbolizeOptions options = settings.toOptions();
    startJob(
        m_path, tr("Symbolizing"),
        [snapshot, sources, counts, reportOut, options](
            Progress* progress, const PreviewSink&) -> Result<std::shared_ptr<const ProfileSnapshot>> {
            auto copy = std::make_shared<Profile>(*snapshot->profile);
            symbolize::SymbolizationPass symbolizer { options };
            auto report = symbolizer.run(*copy, progress);
            if (!report)
                return report.error();
            *reportOut = *report;
            for (const symbolize::MappingReport& m : report->mappings)
                sources->insert(int(m.mapping.index()), QString::fromStdString(m.summary));
            *counts = { report->resolved + report->sourceMaps.resolved,
                report->locations + report->sourceMaps.locations };
            return withProfile(*snapshot, std::move(copy), progress);
        },
        true);
}

void MainWindow::showSnapshot(std::shared_ptr<const ProfileSnapshot> snapshot)
{
    m_snapshot = std::move(snapshot);
    m_path = m_snapshot ? QString::fromStdString(m_snapshot->path) : QString();
    m_stickToBottom = !m_icicleAction->isChecked();
    m_flame->setSnapshot(m_snapshot);
    m_flame->setFocus();
    m_details->setFrame(m_snapshot, {});
    m_sandwich->showFunction(m_snapshot, {});
    m_topFunctions->setSnapshot(m_snapshot);
    updateChips();
    updateLegend();
    applySearch();
    updateBinaries();
    if (m_snapshot) {
        m_bottomUpAction->setChecked(m_snapshot->view.direction == CallTree::Direction::BottomUp);
        m_collapseAction->setChecked(m_snapshot->view.collapseRecursion);
    }

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
    m_profileChoice->clear();
    if (m_snapshot) {
        const Profile& profile = *m_snapshot->profile;
        for (size_t i = 0; i < profile.profilesInFile.size(); ++i)
            m_profileChoice->addItem(QString::fromStdString(profile.profilesInFile[i].describe(i)));
        m_profileChoice->setCurrentIndex(static_cast<int>(profile.profileIndex));
    }
    m_profileChoiceAction->setVisible(m_profileChoice->count() > 1);
    m_profileChoiceLabelAction->setVisible(m_profileChoice->count() > 1);
    m_sampleTypeAction->setVisible(m_sampleType->count() > 1);
    m_sampleTypeLabelAction->setVisible(m_sampleType->count() > 1);
    m_sampleTypeSeparator->setVisible(m_sampleType->count() > 1 || m_profileChoice->count() > 1);
    updateTitle();
    updateStatus();
}

void MainWindow::setLoadingUi(bool loading, const QString& what)
{
    m_loading = loading;
    m_progress->setVisible(loading);
    m_cancel->setVisible(loading);
    m_sampleType->setEnabled(!loading);
    m_profileChoice->setEnabled(!loading);
    m_flame->setPlaceholderText(
        loading ? what + QStringLiteral("\u2026") : tr("Open a profile with File \u203a Open, or drop a file here"));
    if (loading) {
        m_progress->setValue(0);
        m_hoverLabel->setText(what);
    } else if (m_snapshot) {
        // A cancelled switch leaves the combo box on the type still shown.
        m_sampleType->setCurrentIndex(static_cast<int>(m_snapshot->sampleType));
        m_profileChoice->setCurrentIndex(static_cast<int>(m_snapshot->profile->profileIndex));
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
    if (const int64_t cut = m_snapshot->tree ? m_snapshot->tree->omittedBelow() : 0; cut > 0)
        text += tr(" \u00b7 preview: frames below %1 not shown yet")
                    .arg(QString::fromStdString(formatValue(cut, m_snapshot->unit())));
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
