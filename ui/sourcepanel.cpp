#include "ui/sourcepanel.h"

#include "model/core/valueformat.h"
#include "symbolize/pass/sourcecheck.h"

#include <re2/re2.h>

#include <QAbstractTableModel>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHeaderView>
#include <QHBoxLayout>
#include <QItemSelection>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>


namespace symflame::ui {

namespace {

// Warm rows: the more of the function's most expensive line a row costs, the redder.
QVariant heat(int64_t cum, int64_t max)
{
    if (cum <= 0 || max <= 0)
        return {};
    const double ratio = std::min(1.0, double(cum) / double(max));
    return QColor::fromHsv(8, int(40 + 170 * ratio), 255);
}

// A path for the header, HTML-escaped, that may wrap after each '/' (a zero-width space there):
// a long path alone on a line would otherwise be cut at the panel's edge.
QString wrappablePath(const std::string& path)
{
    return QString::fromStdString(path).toHtmlEscaped().replace(QLatin1Char('/'), QStringLiteral("/\u200b"));
}

QString valueText(int64_t v, const std::string& unit)
{
    return v == 0 ? QString() : QString::fromStdString(model::formatValue(v, unit));
}

} // namespace

SourceContent loadSourceContent(const model::Profile& profile, size_t sampleType, const std::string& function,
    const symbolize::SourceSearch& search, const symbolize::DisassemblyOptions& options,
    const symbolize::SourceMapReport* sourceMaps)
{
    SourceContent c;
    c.function = function;
    if (sampleType < profile.sampleTypes.size())
        c.unit = std::string(profile.str(profile.sampleTypes[sampleType].unit));
    const std::string pattern = "^" + re2::RE2::QuoteMeta(function) + "$";
    auto lines = model::sourceLines(profile, sampleType, pattern);
    if (!lines) {
        c.error = lines.error().message;
        return c;
    }
    c.total = lines->total;
    // The file with the most of the function's cost: its own source, not a header it inlined.
    for (model::FunctionLines& f : lines->functions) {
        if (!c.lines || f.cum > c.lines->cum)
            c.lines = std::move(f);
    }
    if (c.lines) {
        c.otherFiles = lines->functions.size() - 1;
        const model::LocationId at = c.lines->location;
        c.javaScript = at.valid() && at.index() < profile.locations.size()
            && profile.locations[at.index()].kind == model::FrameKind::JavaScript;
        if (c.javaScript) {
            // The original source through the source map: its sourcesContent, else the file.
            static const symbolize::SourceMapReport none;
            const symbolize::SourceMapReport& maps = sourceMaps ? *sourceMaps : none;
            c.file = symbolize::findOriginalSource(c.lines->file, maps, search, maps.scriptOf(at.index()));
        } else {
            c.file = symbolize::findSourceFile(c.lines->file, search, c.lines->buildId);
        }
    }
    auto disassembly = c.javaScript ? model::Result<symbolize::DisassemblyResult>(symbolize::DisassemblyResult {})
                                    : symbolize::disassembleFunctions(profile, sampleType, pattern, options);
    if (disassembly) {
        c.disassembly = std::move(disassembly->functions);
        c.problems = std::move(disassembly->problems);
        // The function with the most cost first.
        std::stable_sort(c.disassembly.begin(), c.disassembly.end(),
            [](const symbolize::DisassembledFunction& a, const symbolize::DisassembledFunction& b) { return a.cum > b.cum; });
    } else {
        c.problems.push_back(disassembly.error().message);
    }
    // A source file changed since the build: shorter than the lines the debug info names, its
    // MD5 not the one DWARF 5 records for it, or (no MD5 recorded) modified after the binary.
    if (c.file.found() && c.lines) {
        int64_t lastLine = 0;
        for (const model::LineCost& l : c.lines->lines)
            lastLine = std::max(lastLine, l.line);
        symbolize::SourceBuild build;
        if (!c.disassembly.empty())
            build = { c.disassembly.front().binary, c.disassembly.front().binary, c.disassembly.front().start };
        c.sourceWarning = symbolize::sourceChangeWarning(c.file, c.lines->file, lastLine, build);
    }
    if (!c.lines && c.disassembly.empty())
        c.error = "the profile has no source lines for " + function + ", and no binary of it with its code was found";
    return c;
}

// --- the source lines

class SourceLinesModel : public QAbstractTableModel {
public:
    enum Column { Line, Self, Total, Text, ColumnCount };
    struct Row {
        int64_t line = 0, flat = 0, cum = 0;
        QString text;
    };

    void reset(const SourceContent* c)
    {
        beginResetModel();
        m_rows.clear();
        m_unit = c ? c->unit : std::string();
        m_max = 0;
        if (c && c->lines) {
            for (const model::ListedLine& l : model::listedLines(*c->lines, c->file.found(), c->file.lines.size())) {
                m_max = std::max(m_max, l.cum);
                m_rows.push_back(Row { l.line, l.flat, l.cum,
                    l.inFile                ? QString::fromStdString(*c->file.line(l.line))
                        : c->file.found() ? QObject::tr("(past the end of the file)")
                                          : QString() });
            }
        }
        endResetModel();
    }
    const Row& row(int i) const { return m_rows[size_t(i)]; }
    int rowOfLine(int64_t line) const
    {
        for (size_t i = 0; i < m_rows.size(); ++i)
            if (m_rows[i].line == line)
                return int(i);
        return -1;
    }
    int hottestRow() const
    {
        int best = -1;
        for (size_t i = 0; i < m_rows.size(); ++i)
            if (m_rows[i].cum > 0 && (best < 0 || m_rows[i].cum > m_rows[size_t(best)].cum))
                best = int(i);
        return best;
    }

    int rowCount(const QModelIndex& parent = {}) const override { return parent.isValid() ? 0 : int(m_rows.size()); }
    int columnCount(const QModelIndex& parent = {}) const override { return parent.isValid() ? 0 : ColumnCount; }
    QVariant headerData(int section, Qt::Orientation o, int role) const override
    {
        if (o != Qt::Horizontal || role != Qt::DisplayRole)
            return {};
        switch (section) {
        case Line:
            return QObject::tr("Line");
        case Self:
            return QObject::tr("Self");
        case Total:
            return QObject::tr("Total");
        default:
            return QObject::tr("Source");
        }
    }
    QVariant data(const QModelIndex& index, int role) const override
    {
        if (!index.isValid() || index.row() >= rowCount())
            return {};
        const Row& r = m_rows[size_t(index.row())];
        if (role == Qt::DisplayRole) {
            switch (index.column()) {
            case Line:
                return QString::number(r.line);
            case Self:
                return valueText(r.flat, m_unit);
            case Total:
                return valueText(r.cum, m_unit);
            default:
                return r.text;
            }
        }
        if (role == Qt::TextAlignmentRole && index.column() != Text)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        if (role == Qt::BackgroundRole)
            return heat(r.cum, m_max);
        return {};
    }

private:
    std::vector<Row> m_rows;
    std::string m_unit;
    int64_t m_max = 0;
};

// --- the instructions

class InstructionsModel : public QAbstractTableModel {
public:
    enum Column { Address, Self, Total, Instruction, Where, ColumnCount };

    void reset(const SourceContent* c)
    {
        beginResetModel();
        m_function = c && !c->disassembly.empty() ? &c->disassembly.front() : nullptr;
        m_unit = c ? c->unit : std::string();
        m_max = 0;
        if (m_function)
            for (const symbolize::AnnotatedInstruction& a : m_function->instructions)
                m_max = std::max(m_max, a.cum);
        endResetModel();
    }
    const symbolize::AnnotatedInstruction& instruction(int row) const { return m_function->instructions[size_t(row)]; }
    int rowOfAddress(uint64_t address) const
    {
        if (!m_function)
            return -1;
        for (size_t i = 0; i < m_function->instructions.size(); ++i)
            if (m_function->instructions[i].ins.address == address)
                return int(i);
        return -1;
    }

    int rowCount(const QModelIndex& parent = {}) const override
    {
        return parent.isValid() || !m_function ? 0 : int(m_function->instructions.size());
    }
    int columnCount(const QModelIndex& parent = {}) const override { return parent.isValid() ? 0 : ColumnCount; }
    QVariant headerData(int section, Qt::Orientation o, int role) const override
    {
        if (o != Qt::Horizontal || role != Qt::DisplayRole)
            return {};
        switch (section) {
        case Address:
            return QObject::tr("Address");
        case Self:
            return QObject::tr("Self");
        case Total:
            return QObject::tr("Total");
        case Instruction:
            return QObject::tr("Instruction");
        default:
            return QObject::tr("Source Line");
        }
    }
    QVariant data(const QModelIndex& index, int role) const override
    {
        if (!index.isValid() || index.row() >= rowCount())
            return {};
        const symbolize::AnnotatedInstruction& a = instruction(index.row());
        if (role == Qt::DisplayRole) {
            switch (index.column()) {
            case Address:
                return QString::number(a.ins.address, 16);
            case Self:
                return valueText(a.flat, m_unit);
            case Total:
                return valueText(a.cum, m_unit);
            case Instruction:
                return QString::fromStdString(a.ins.text)
                    + (a.targetName.empty() ? QString() : QStringLiteral(" <%1>").arg(QString::fromStdString(a.targetName)));
            default:
                return a.file.empty() ? QString()
                                      : QString::fromStdString(std::string(model::baseName(a.file))) + (a.line ? QStringLiteral(":%1").arg(a.line) : QString());
            }
        }
        if (role == Qt::ToolTipRole) {
            QStringList chain;
            for (const std::string& frame : a.inlineChain)
                chain << QString::fromStdString(frame);
            QString tip = chain.join(QStringLiteral("\ninlined into "));
            if (a.ins.target)
                tip += (tip.isEmpty() ? QString() : QStringLiteral("\n"))
                    + QObject::tr("Double-click to go to %1").arg(a.ins.target.value(), 0, 16);
            return tip;
        }
        if (role == Qt::TextAlignmentRole && (index.column() == Self || index.column() == Total))
            return int(Qt::AlignRight | Qt::AlignVCenter);
        if (role == Qt::ForegroundRole && index.column() == Instruction && a.ins.target)
            return QColor(0x1f, 0x5f, 0xbf); // a link: double-click follows it
        if (role == Qt::BackgroundRole)
            return heat(a.cum, m_max);
        return {};
    }

private:
    const symbolize::DisassembledFunction* m_function = nullptr;
    std::string m_unit;
    int64_t m_max = 0;
};

// --- the panel

namespace {

QTableView* makeTable(QAbstractItemModel* model, int stretchColumn)
{
    auto* view = new QTableView;
    view->setModel(model);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    view->setShowGrid(false);
    view->setWordWrap(false);
    view->verticalHeader()->hide();
    view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 4);
    view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    view->horizontalHeader()->setSectionResizeMode(stretchColumn, QHeaderView::Stretch);
    view->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    return view;
}

} // namespace

SourcePanel::SourcePanel(QWidget* parent)
    : QWidget(parent)
{
    m_header = new QLabel;
    m_header->setObjectName(QStringLiteral("sourceHeader"));
    m_header->setWordWrap(true);
    m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_locate = new QPushButton(tr("Locate Source File\u2026"));
    m_locate->setObjectName(QStringLiteral("locateSourceButton"));
    m_locate->hide();
    connect(m_locate, &QPushButton::clicked, this, [this] {
        if (!m_content || !m_content->lines)
            return;
        const QString recorded = QString::fromStdString(m_content->lines->file);
        const QString chosen = QFileDialog::getOpenFileName(this, tr("Locate %1").arg(QFileInfo(recorded).fileName()),
            QString(), QFileInfo(recorded).fileName() + QStringLiteral(";;") + tr("All files (*)"));
        if (!chosen.isEmpty())
            emit sourceLocated(recorded, chosen);
    });
    m_sourceModel = new SourceLinesModel;
    m_asmModel = new InstructionsModel;
    m_sourceModel->setParent(this);
    m_asmModel->setParent(this);
    m_sourceView = makeTable(m_sourceModel, SourceLinesModel::Text);
    m_sourceView->setObjectName(QStringLiteral("sourceLinesView"));
    m_asmView = makeTable(m_asmModel, InstructionsModel::Instruction);
    m_asmView->setObjectName(QStringLiteral("instructionsView"));
    m_splitter = new QSplitter(Qt::Horizontal);
    m_splitter->addWidget(m_sourceView);
    m_splitter->addWidget(m_asmView);
    m_splitter->setStretchFactor(0, 1);
    m_splitter->setStretchFactor(1, 1);

    connect(m_sourceView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
        [this](const QModelIndex& current) {
            if (!m_syncing && current.isValid())
                selectInstructionsOfLine(current.row());
        });
    connect(m_asmView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
        [this](const QModelIndex& current) {
            if (!m_syncing && current.isValid())
                selectLineOfInstruction(current.row());
        });
    // A branch or call to an address in the function: double-click goes there.
    connect(m_asmView, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
        const auto& ins = m_asmModel->instruction(index.row()).ins;
        if (!ins.target)
            return;
        const int row = m_asmModel->rowOfAddress(*ins.target);
        if (row >= 0) {
            m_asmView->selectRow(row);
            m_asmView->scrollTo(m_asmModel->index(row, 0), QAbstractItemView::PositionAtCenter);
        }
    });

    auto* top = new QHBoxLayout;
    top->addWidget(m_header, 1);
    top->addWidget(m_locate, 0, Qt::AlignTop);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(m_splitter, 1);
}

SourcePanel::~SourcePanel() = default;

void SourcePanel::showFunction(std::shared_ptr<const model::Profile> profile, size_t sampleType,
    const std::string& function, symbolize::SourceSearch search, symbolize::DisassemblyOptions options,
    std::shared_ptr<const symbolize::SourceMapReport> sourceMaps)
{
    setLoading(QString::fromStdString(function));
    m_jobs.run(
        [profile = std::move(profile), sampleType, function, search = std::move(search), options = std::move(options),
            sourceMaps = std::move(sourceMaps)] {
            return std::make_shared<const SourceContent>(
                loadSourceContent(*profile, sampleType, function, search, options, sourceMaps.get()));
        },
        [this](std::shared_ptr<const SourceContent> content) { setContent(std::move(content)); });
}

void SourcePanel::setLoading(const QString& function)
{
    m_header->setText(tr("Reading the source and code of %1\u2026").arg(function.toHtmlEscaped()));
    m_locate->hide();
}

void SourcePanel::setContent(std::shared_ptr<const SourceContent> content)
{
    m_content = std::move(content);
    const SourceContent* c = m_content.get();
    m_sourceModel->reset(c);
    m_asmModel->reset(c);
    m_locate->setVisible(c && c->lines && !c->file.found());
    m_asmView->setVisible(!c || !c->javaScript); // JavaScript has no machine code to show
    if (!c) {
        m_header->clear();
        return;
    }
    const QString name = QString::fromStdString(c->function);
    if (!c->error.empty()) {
        m_header->setText(QStringLiteral("<b>%1</b>: %2").arg(name.toHtmlEscaped(), QString::fromStdString(c->error).toHtmlEscaped()));
        emit contentShown(name);
        return;
    }
    QStringList parts { QStringLiteral("<b>%1</b>").arg(name.toHtmlEscaped()) };
    if (c->lines) {
        const auto share = [&](int64_t v) { return c->total ? 100.0 * double(v) / double(c->total) : 0.0; };
        parts << tr("self %1 (%2%), total %3 (%4%)")
                     .arg(QString::fromStdString(model::formatValue(c->lines->flat, c->unit)))
                     .arg(share(c->lines->flat), 0, 'f', 1)
                     .arg(QString::fromStdString(model::formatValue(c->lines->cum, c->unit)))
                     .arg(share(c->lines->cum), 0, 'f', 1);
        if (c->file.found() && !c->file.origin.empty())
            parts << tr("%1, from the %2").arg(wrappablePath(c->file.path), wrappablePath(c->file.origin));
        else if (c->file.found())
            parts << wrappablePath(c->file.path);
        if (!c->sourceWarning.empty())
            parts << QStringLiteral("<span style='color:#b45f00'>%1</span>")
                         .arg(QString::fromStdString(c->sourceWarning).toHtmlEscaped());
        if (!c->file.found())
            parts << tr("<span style='color:#b00'>source not found: %1</span> (tried %2); costs by line number")
                         .arg(QString::fromStdString(c->lines->file).toHtmlEscaped(),
                             QString::fromStdString([&] {
                                 std::string tried;
                                 for (const std::string& t : c->file.tried)
                                     tried += (tried.empty() ? "" : "; ") + t;
                                 return tried;
                             }())
                                 .toHtmlEscaped());
        if (c->otherFiles)
            parts << tr("%n more file(s) with inlined lines", nullptr, int(c->otherFiles));
    } else {
        parts << tr("no source lines in the profile");
    }
    if (c->javaScript) {
        // JavaScript: no machine code; the source alone.
    } else if (!c->disassembly.empty()) {
        const symbolize::DisassembledFunction& f = c->disassembly.front();
        parts << tr("code of %1%2").arg(QString::fromStdString(f.binary).toHtmlEscaped(),
            f.buildId.empty() ? QString() : tr(", build ID %1").arg(QString::fromStdString(f.buildId)));
    } else {
        QString why = tr("no disassembly");
        if (!c->problems.empty())
            why += QStringLiteral(": ") + QString::fromStdString(c->problems.front()).toHtmlEscaped();
        parts << why;
    }
    m_header->setText(parts.join(QStringLiteral(" \u2014 ")));
    emit contentShown(name);
    // The hottest line in view, selected (which selects its instructions).
    if (const int hot = m_sourceModel->hottestRow(); hot >= 0) {
        m_syncing = true;
        m_sourceView->selectionModel()->setCurrentIndex(
            m_sourceModel->index(hot, 0), QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        m_syncing = false;
        const QPersistentModelIndex target = m_sourceModel->index(hot, 0);
        QTimer::singleShot(0, m_sourceView, [this, target] {
            if (target.isValid())
                m_sourceView->scrollTo(target, QAbstractItemView::PositionAtCenter);
        });
        selectInstructionsOfLine(hot);
    } else if (m_asmModel->rowCount() > 0) {
        // No source lines to start from: the hottest instruction.
        int best = 0;
        for (int i = 1; i < m_asmModel->rowCount(); ++i)
            if (m_asmModel->instruction(i).cum > m_asmModel->instruction(best).cum)
                best = i;
        m_asmView->selectRow(best);
        m_asmView->scrollTo(m_asmModel->index(best, 0), QAbstractItemView::PositionAtCenter);
    }
}

void SourcePanel::selectInstructionsOfLine(int row)
{
    if (!m_content || !m_content->lines || row < 0 || row >= m_sourceModel->rowCount())
        return;
    const int64_t line = m_sourceModel->row(row).line;
    const std::string_view file = model::baseName(m_content->lines->file);
    // The line's own instructions, and those of callees inlined at it (a frame of their inline
    // chain is at this line of this file).
    const std::string callSite = " " + m_content->lines->file + ":" + std::to_string(line);
    QItemSelection selection;
    int first = -1;
    for (int i = 0; i < m_asmModel->rowCount(); ++i) {
        const auto& a = m_asmModel->instruction(i);
        const bool inlinedHere = std::any_of(a.inlineChain.begin(), a.inlineChain.end(),
            [&](const std::string& frame) { return frame.ends_with(callSite); });
        if ((int64_t(a.line) == line && model::baseName(a.file) == file) || inlinedHere) {
            selection.select(m_asmModel->index(i, 0), m_asmModel->index(i, InstructionsModel::ColumnCount - 1));
            if (first < 0)
                first = i;
        }
    }
    m_syncing = true;
    m_asmView->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect);
    m_syncing = false;
    if (first >= 0) {
        // After the views are laid out (a panel just shown has no height to scroll in yet).
        const QPersistentModelIndex target = m_asmModel->index(first, 0);
        QTimer::singleShot(0, m_asmView, [this, target] {
            if (target.isValid())
                m_asmView->scrollTo(target, QAbstractItemView::PositionAtCenter);
        });
    }
}

void SourcePanel::selectLineOfInstruction(int row)
{
    if (!m_content || !m_content->lines || row < 0 || row >= m_asmModel->rowCount())
        return;
    const auto& a = m_asmModel->instruction(row);
    if (model::baseName(a.file) != model::baseName(m_content->lines->file))
        return; // an inlined header's line: not in this file
    const int target = m_sourceModel->rowOfLine(a.line);
    if (target < 0)
        return;
    m_syncing = true;
    m_sourceView->selectRow(target);
    m_sourceView->scrollTo(m_sourceModel->index(target, 0), QAbstractItemView::PositionAtCenter);
    m_syncing = false;
}

} // namespace symflame::ui
