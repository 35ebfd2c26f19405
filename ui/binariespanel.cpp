#include "ui/binariespanel.h"

#include "symbolize/object/elffile.h"

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QFileDialog>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace symflame::ui {

namespace {

// Keeps problem rows only when asked; sorts by BinariesModel::SortRole.
class ProblemFilter : public QSortFilterProxyModel {
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;
    void setOnlyProblems(bool only)
    {
        m_only = only;
        invalidateFilter();
    }

protected:
    bool filterAcceptsRow(int row, const QModelIndex& parent) const override
    {
        if (!m_only)
            return true;
        return sourceModel()->index(row, 0, parent).data(BinariesModel::ProblemRole).toBool();
    }

private:
    bool m_only = false;
};

} // namespace

BinariesPanel::BinariesPanel(QWidget* parent)
    : QWidget(parent)
    , m_model(new BinariesModel(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto* top = new QHBoxLayout();
    m_summary = new QLabel(this);
    m_onlyProblems = new QCheckBox(tr("Only problems"), this);
    top->addWidget(m_summary, 1);
    top->addWidget(m_onlyProblems);
    layout->addLayout(top);
    auto* servers = new QHBoxLayout();
    m_serversGivenUp = new QLabel(this);
    m_serversGivenUp->setWordWrap(true);
    m_serversGivenUp->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_workOffline = new QPushButton(tr("Work Offline"), this);
    m_workOffline->setToolTip(tr("Ask no debuginfod server from now on (Settings > Symbolization turns them back on)"));
    servers->addWidget(m_serversGivenUp, 1);
    servers->addWidget(m_workOffline);
    layout->addLayout(servers);
    m_serversGivenUp->hide();
    m_workOffline->hide();
    connect(m_workOffline, &QPushButton::clicked, this, &BinariesPanel::workOfflineRequested);

    auto* proxy = new ProblemFilter(this);
    m_proxy = proxy;
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(BinariesModel::SortRole);
    m_view = new QTableView(this);
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    // Triage order (problems first, hottest first) until the user sorts by a column.
    m_view->sortByColumn(-1, Qt::AscendingOrder);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->verticalHeader()->hide();
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->setWordWrap(false);
    m_view->setContextMenuPolicy(Qt::CustomContextMenu);
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 6);
    m_view->setMinimumHeight(m_view->fontMetrics().height() * 4);

    m_details = new QPlainTextEdit(this);
    m_details->setReadOnly(true);
    m_details->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_details->setPlaceholderText(tr("Select a binary to see why it is (not) symbolized."));

    m_details->setMinimumHeight(m_details->fontMetrics().height() * 2 + 8); // the buttons below it


    auto* buttons = new QGridLayout();
    m_locate = new QPushButton(tr("Locate file…"), this);
    m_locate->setToolTip(tr("Pick the binary or its debug file; its build ID is checked"));
    m_addDir = new QPushButton(tr("Add search directory…"), this);
    m_fetch = new QPushButton(tr("Fetch from debuginfod"), this);
    m_copyId = new QPushButton(tr("Copy build ID"), this);
    m_copyUpload = new QPushButton(tr("Copy upload command"), this);
    m_copyUpload->setToolTip(tr("The parca-debuginfo upload line for this binary's debug info"));
    m_show = new QPushButton(tr("Show in flame graph"), this);
    // The actions on the selected binary under its details, in two rows, so that the panel
    // fits under the flame graph beside the right column of a 1024-pixel-wide window.
    int i = 0;
    for (QPushButton* b : { m_locate, m_addDir, m_fetch, m_copyId, m_copyUpload, m_show }) {
        buttons->addWidget(b, i / 3, i % 3);
        ++i;
    }
    auto* side = new QWidget(this);
    auto* sideLayout = new QVBoxLayout(side);
    sideLayout->setContentsMargins(0, 0, 0, 0);
    sideLayout->addWidget(m_details, 1);
    sideLayout->addLayout(buttons);

    // Table and details side by side: the dock sits below the flame graph, where height is
    // scarce on a laptop screen and width is not.
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(m_view);
    split->addWidget(side);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setChildrenCollapsible(false);
    layout->addWidget(split, 1);

    connect(m_onlyProblems, &QCheckBox::toggled, this, [this](bool on) { setOnlyProblems(on); });
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this] { updateDetails(); });
    connect(m_locate, &QPushButton::clicked, this, &BinariesPanel::locateFile);
    connect(m_addDir, &QPushButton::clicked, this, &BinariesPanel::addSearchDirectory);
    connect(m_fetch, &QPushButton::clicked, this, [this] {
        if (currentRow() >= 0)
            emit fetchRequested(currentRow());
    });
    connect(m_copyId, &QPushButton::clicked, this, &BinariesPanel::copyBuildId);
    connect(m_copyUpload, &QPushButton::clicked, this, &BinariesPanel::copyUploadCommand);
    connect(m_show, &QPushButton::clicked, this, [this] {
        if (currentRow() >= 0)
            emit showInFlameGraph(currentRow());
    });
    connect(m_view, &QTableView::doubleClicked, this, [this] {
        if (currentRow() >= 0)
            emit showInFlameGraph(currentRow());
    });
    connect(m_view, &QWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
        if (currentRow() < 0)
            return;
        QMenu menu(this);
        for (QPushButton* b : { m_locate, m_addDir, m_fetch, m_copyId, m_copyUpload, m_show })
            if (b->isEnabled())
                menu.addAction(b->text(), b, &QPushButton::click);
        menu.exec(m_view->viewport()->mapToGlobal(pos));
    });
    updateDetails();
    updateSummary();
}

void BinariesPanel::setRows(std::vector<symbolize::BinaryRow> rows, int64_t totalValue)
{
    // Keep the selected binary selected across updates (live symbolization replaces rows).
    const symbolize::BinaryRow* cur = m_model->row(currentRow());
    const std::string key = cur ? cur->path + '\n' + cur->buildId : std::string();
    m_model->setRows(std::move(rows), totalValue);
    int again = -1;
    for (size_t i = 0; i < m_model->rows().size() && !key.empty(); ++i)
        if (m_model->rows()[i].path + '\n' + m_model->rows()[i].buildId == key)
            again = static_cast<int>(i);
    m_view->resizeColumnsToContents();
    if (again >= 0)
        selectRow(again);
    updateDetails();
    updateSummary();
}

void BinariesPanel::setFetchEnabled(bool enabled)
{
    m_fetchEnabled = enabled;
    updateDetails();
}

void BinariesPanel::setOnlyProblems(bool only)
{
    if (m_onlyProblems->isChecked() != only)
        m_onlyProblems->setChecked(only);
    static_cast<ProblemFilter*>(m_proxy)->setOnlyProblems(only);
    updateDetails();
}

int BinariesPanel::currentRow() const
{
    const QModelIndex i = m_view->selectionModel()->currentIndex();
    return i.isValid() ? i.data(BinariesModel::RowIndexRole).toInt() : -1;
}

void BinariesPanel::selectRow(int row)
{
    const QModelIndex src = m_model->index(row, 0);
    const QModelIndex idx = m_proxy->mapFromSource(src);
    if (idx.isValid())
        m_view->selectionModel()->setCurrentIndex(
            idx, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
}

void BinariesPanel::setServersGivenUp(const QStringList& lines)
{
    m_serversGivenUp->setText(lines.join('\n'));
    m_serversGivenUp->setVisible(!lines.isEmpty());
    m_workOffline->setVisible(!lines.isEmpty());
}

void BinariesPanel::updateSummary()
{
    // Counted over the binaries there is something to look up for; [vdso], the kernel and
    // anonymous mappings are mentioned apart.
    size_t problems = 0, without = 0;
    for (const symbolize::BinaryRow& r : m_model->rows()) {
        problems += symbolize::isProblem(r.state);
        without += r.state == symbolize::BinaryState::NotApplicable;
    }
    const size_t n = m_model->rows().size() - without;
    QString text;
    if (m_model->rows().empty())
        text = tr("No binaries");
    else if (n == 0)
        text = tr("No binary to symbolize");
    else if (problems == 0)
        text = n == 1 ? tr("The binary is symbolized") : tr("All %1 binaries are symbolized").arg(n);
    else
        text = n == 1 ? tr("The binary is not fully symbolized")
                      : problems == 1 ? tr("1 of %1 binaries is not fully symbolized").arg(n)
                                      : tr("%1 of %2 binaries are not fully symbolized").arg(problems).arg(n);
    if (without > 0)
        text += without == 1 ? tr(" \u00b7 1 mapping without a file (kernel, vdso)")
                             : tr(" \u00b7 %1 mappings without a file (kernel, vdso)").arg(without);
    m_summary->setText(text);
}

void BinariesPanel::updateDetails()
{
    const symbolize::BinaryRow* r = m_model->row(currentRow());
    for (QPushButton* b : { m_locate, m_fetch, m_copyId, m_copyUpload, m_show })
        b->setEnabled(r != nullptr);
    if (!r) {
        m_details->clear();
        return;
    }
    const bool fixable = symbolize::isProblem(r->state);
    m_locate->setEnabled(fixable && r->state != symbolize::BinaryState::NotApplicable);
    m_fetch->setEnabled(fixable && m_fetchEnabled && !r->buildId.empty());
    m_fetch->setToolTip(m_fetchEnabled ? QString() : tr("No debuginfod server is enabled (Settings)"));
    m_copyId->setEnabled(!r->buildId.empty());
    QStringList lines;
    lines << tr("Binary:    %1").arg(QString::fromStdString(r->path.empty() ? r->name : r->path));
    lines << tr("Build ID:  %1").arg(r->buildId.empty() ? tr("(none in the profile)") : QString::fromStdString(r->buildId));
    lines << tr("Status:    %1").arg(QString::fromUtf8(symbolize::binaryStateName(r->state)));
    if (r->state == symbolize::BinaryState::BuildIdMismatch && !r->mismatchPath.empty()) {
        lines << tr("Found:     %1").arg(QString::fromStdString(r->mismatchPath));
        lines << tr("  its ID:  %1").arg(QString::fromStdString(r->mismatchBuildId));
        lines << tr("  wanted:  %1").arg(QString::fromStdString(r->buildId));
    } else {
        lines << tr("Details:   %1").arg(QString::fromStdString(r->detail));
    }
    // Each thing once: the details name the debug file and what the servers answered already.
    if (!r->debugPath.empty() && r->detail.find(r->debugPath) == std::string::npos)
        lines << tr("DWARF from: %1").arg(QString::fromStdString(r->debugPath));
    if (!r->debuginfod.empty() && r->detail.find(r->debuginfod) == std::string::npos)
        lines << tr("debuginfod: %1").arg(QString::fromStdString(r->debuginfod));
    lines << tr("Locations: %1 of %2 symbolized").arg(r->symbolized).arg(r->locations);
    if (!r->tried.empty()) {
        lines << QString() << tr("Looked at:");
        for (const std::string& t : r->tried)
            lines << "  " + QString::fromStdString(t);
    }
    m_details->setPlainText(lines.join('\n'));
}

BinariesPanel::Candidate BinariesPanel::checkCandidate(int row, const QString& path) const
{
    Candidate c;
    const symbolize::BinaryRow* r = m_model->row(row);
    if (!r) {
        c.message = tr("No binary selected");
        return c;
    }
    auto elf = symbolize::ElfFile::open(path.toStdString());
    if (!elf) {
        c.message = tr("%1 is not a readable ELF file: %2").arg(path, QString::fromStdString(elf.error().message));
        return c;
    }
    const std::string wanted = symbolize::normalizeBuildId(r->buildId);
    const std::string gnu = (*elf)->buildId(), go = (*elf)->goBuildId();
    c.fileBuildId = QString::fromStdString(gnu.empty() ? go : gnu);
    if (wanted.empty()) {
        c.accepted = true;
        c.unverified = true;
        c.message = tr("The profile has no build ID for %1: %2 is used unverified.")
                        .arg(QString::fromStdString(r->name), path);
        return c;
    }
    if (wanted == gnu || wanted == go) {
        c.accepted = true;
        c.message = tr("%1 has the build ID %2.").arg(path, QString::fromStdString(wanted));
        return c;
    }
    c.message = tr("%1 has build ID %2,\nthe profile's %3 has %4.\nIt belongs to another build and is not used.")
                    .arg(path, c.fileBuildId.isEmpty() ? tr("(none)") : c.fileBuildId, QString::fromStdString(r->name),
                        QString::fromStdString(wanted));
    return c;
}

void BinariesPanel::locateFile()
{
    const int row = currentRow();
    const symbolize::BinaryRow* r = m_model->row(row);
    if (!r)
        return;
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Locate %1 or its debug file").arg(QString::fromStdString(r->name)));
    if (path.isEmpty())
        return;
    const Candidate c = checkCandidate(row, path);
    if (!c.accepted) {
        QMessageBox::warning(this, tr("Build ID mismatch"), c.message);
        return;
    }
    emit fileLocated(row, path);
}

void BinariesPanel::addSearchDirectory()
{
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Search directory for binaries and debug files"));
    if (!dir.isEmpty())
        emit searchDirectoryAdded(dir);
}

void BinariesPanel::copyBuildId()
{
    if (const symbolize::BinaryRow* r = m_model->row(currentRow()))
        QApplication::clipboard()->setText(QString::fromStdString(r->buildId));
}

void BinariesPanel::copyUploadCommand()
{
    if (const symbolize::BinaryRow* r = m_model->row(currentRow()))
        QApplication::clipboard()->setText(QString::fromStdString(symbolize::uploadCommand(*r)));
}

} // namespace symflame::ui
