#include "ui/searchbar.h"

#include "model/analysis/search.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QShortcut>
#include <QToolButton>

#include <utility>

namespace symflame::ui {

using namespace symflame::model;

SearchBar::SearchBar(QWidget* parent)
    : QWidget(parent)
{
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(4, 2, 4, 2);
    m_edit = new QLineEdit;
    m_edit->setObjectName(QStringLiteral("searchEdit"));
    m_edit->setPlaceholderText(tr("Search functions, files and binaries (Enter: next match)"));
    m_edit->setClearButtonEnabled(true);
    m_edit->setMaximumWidth(520);
    m_regex = new QCheckBox(tr("Regular expression"));
    m_regex->setToolTip(
        tr("RE2 syntax, as pprof's -focus (no backreferences or lookaround); matched in time linear in each name"));
    m_result = new QLabel;
    m_result->setMinimumWidth(
        m_result->fontMetrics().horizontalAdvance(QStringLiteral("0000000 frames, 100.00% of samples")));
    auto* close = new QToolButton;
    close->setText(QStringLiteral("✕"));
    close->setToolTip(tr("Close the search (Esc)"));
    layout->addWidget(new QLabel(tr("Find:")));
    layout->addWidget(m_edit, 2);
    layout->addWidget(m_regex);
    layout->addWidget(m_result, 1);
    layout->addWidget(close);
    setVisible(false);
    connect(m_edit, &QLineEdit::textChanged, this, &SearchBar::apply);
    connect(m_regex, &QCheckBox::toggled, this, &SearchBar::apply);
    connect(m_edit, &QLineEdit::returnPressed, this, &SearchBar::step);
    connect(close, &QToolButton::clicked, this, [this] {
        m_edit->clear();
        hide();
        emit closed();
    });
    // Esc in the field closes the bar, as the close button does.
    auto* escape = new QShortcut(QKeySequence(Qt::Key_Escape), this, nullptr, nullptr, Qt::WidgetWithChildrenShortcut);
    connect(escape, &QShortcut::activated, close, &QToolButton::click);
}

void SearchBar::setSnapshot(std::shared_ptr<const ProfileSnapshot> snapshot)
{
    m_snapshot = std::move(snapshot);
    apply();
}

void SearchBar::search(const QString& pattern, bool regex)
{
    show();
    m_regex->setChecked(regex);
    m_edit->setText(pattern);
    apply();
}

void SearchBar::activate()
{
    show();
    m_edit->setFocus();
    m_edit->selectAll();
}

QString SearchBar::resultText() const
{
    return m_result->text();
}

namespace {

/// What a search finds: per symbol whether it matches, and the matching frames' statistics.
struct SearchOutcome {
    std::shared_ptr<const std::vector<uint8_t>> symbols;
    SearchStats stats;
    QString error; ///< the pattern is not valid
};

SearchOutcome runSearch(const ProfileSnapshot& snapshot, const SearchQuery& query)
{
    SearchOutcome out;
    auto matches = matchSymbols(*snapshot.profile, *snapshot.symbols, query);
    if (!matches) {
        out.error = QString::fromStdString(matches.error().message);
        return out;
    }
    out.stats = searchStats(*snapshot.tree, *matches);
    out.symbols = std::make_shared<const std::vector<uint8_t>>(std::move(matches).value());
    return out;
}

} // namespace

void SearchBar::apply()
{
    m_jobs.cancel();
    m_pending = false;
    m_matches = {};
    const QString pattern = m_edit->text();
    if (!m_snapshot || pattern.isEmpty()) {
        m_result->clear();
        emit highlightChanged({});
        return;
    }
    const SearchQuery query { pattern.toStdString(), m_regex->isChecked(), false };
    auto show = [this](SearchOutcome outcome) {
        m_pending = false;
        if (!outcome.error.isEmpty()) {
            m_result->setText(outcome.error);
            emit highlightChanged({});
            return;
        }
        const int64_t all = m_snapshot->tree->totalValue();
        const double share = all == 0 ? 0.0 : 100.0 * double(outcome.stats.value) / double(all);
        m_result->setText(outcome.stats.frames == 1
                ? tr("1 frame, %1% of the total").arg(share, 0, 'f', 2)
                : tr("%1 frames, %2% of the total").arg(outcome.stats.frames).arg(share, 0, 'f', 2));
        m_matches = MatchStepper(m_snapshot->tree, outcome.symbols, outcome.stats);
        emit highlightChanged(*outcome.symbols);
        if (std::exchange(m_stepWhenReady, false))
            step();
    };
    // A small tree is searched at once; a big one on the thread pool, so that typing is never
    // held up: each keystroke drops the search before it, and the newest result is shown.
    if (m_snapshot->tree->size() <= m_syncNodeLimit) {
        show(runSearch(*m_snapshot, query));
        return;
    }
    m_pending = true;
    m_result->setText(tr("searching\u2026"));
    m_jobs.run([snapshot = m_snapshot, query] { return runSearch(*snapshot, query); }, std::move(show));
}

void SearchBar::step()
{
    if (m_pending) { // Enter before the search finished: step once it has
        m_stepWhenReady = true;
        return;
    }
    if (const NodeId node = m_matches.next(); node.valid())
        emit stepTo(node);
}

} // namespace symflame::ui
