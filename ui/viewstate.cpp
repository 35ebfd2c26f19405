#include "ui/viewstate.h"

#include "model/core/frameformat.h"
#include "model/core/valueformat.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QFontMetrics>
#include <QHBoxLayout>
#include <QMenu>
#include <QToolButton>
#include <QWidget>

#include <algorithm>

namespace symflame::ui {

using namespace symflame::model;

ViewState::ViewState(QObject* parent)
    : QObject(parent)
{
    m_bottomUp = new QAction(tr("&Bottom-Up (Inverted)"), this);
    m_bottomUp->setCheckable(true);
    m_bottomUp->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_B));
    connect(m_bottomUp, &QAction::triggered, this, [this](bool bottomUp) {
        if (!m_snapshot)
            return;
        ViewOptions v = m_snapshot->view;
        v.direction = bottomUp ? CallTree::Direction::BottomUp : CallTree::Direction::TopDown;
        emit viewRequested(v);
    });
    m_collapse = new QAction(tr("&Collapse Recursion"), this);
    m_collapse->setCheckable(true);
    connect(m_collapse, &QAction::triggered, this, [this](bool collapse) {
        if (!m_snapshot)
            return;
        ViewOptions v = m_snapshot->view;
        v.collapseRecursion = collapse;
        emit viewRequested(v);
    });
    m_chipsBar = new QWidget;
    m_chipsLayout = new QHBoxLayout(m_chipsBar);
    m_chipsLayout->setContentsMargins(4, 2, 4, 2);
    m_chipsBar->setVisible(false);
}

ViewState::~ViewState()
{
    if (!m_chipsBar->parent())
        delete m_chipsBar;
}

void ViewState::setSnapshot(std::shared_ptr<const ProfileSnapshot> snapshot)
{
    m_snapshot = std::move(snapshot);
    if (m_snapshot) {
        m_bottomUp->setChecked(m_snapshot->view.direction == CallTree::Direction::BottomUp);
        m_collapse->setChecked(m_snapshot->view.collapseRecursion);
    }
    updateChips();
}

void ViewState::addRule(const FilterRule& rule)
{
    if (!m_snapshot)
        return;
    ViewOptions v = m_snapshot->view;
    if (std::find(v.rules.begin(), v.rules.end(), rule) == v.rules.end())
        v.rules.push_back(rule);
    emit viewRequested(v);
}

void ViewState::setGroupBy(const std::vector<std::string>& keys)
{
    if (!m_snapshot || m_snapshot->view.labels.rootKeys == keys)
        return;
    ViewOptions v = m_snapshot->view;
    v.labels.rootKeys = keys;
    emit viewRequested(v);
}

void ViewState::addLabelFilter(const std::string& key, const std::string& value, bool keep)
{
    if (!m_snapshot)
        return;
    ViewOptions v = m_snapshot->view;
    auto& filters = keep ? v.labels.focus : v.labels.ignore;
    const TagFilter f = TagFilter::equals(key, value);
    if (std::find(filters.begin(), filters.end(), f) == filters.end())
        filters.push_back(f);
    emit viewRequested(v);
}

void ViewState::removeLabelFilter(int index)
{
    if (!m_snapshot || index < 0)
        return;
    ViewOptions v = m_snapshot->view;
    const size_t i = size_t(index);
    if (i < v.labels.focus.size())
        v.labels.focus.erase(v.labels.focus.begin() + index);
    else if (i - v.labels.focus.size() < v.labels.ignore.size())
        v.labels.ignore.erase(v.labels.ignore.begin() + ptrdiff_t(i - v.labels.focus.size()));
    else
        return;
    emit viewRequested(v);
}

void ViewState::setTimeRange(std::optional<TimeRange> range)
{
    if (!m_snapshot || m_snapshot->view.labels.timeRange == range)
        return;
    ViewOptions v = m_snapshot->view;
    v.labels.timeRange = range;
    emit viewRequested(v);
}

void ViewState::removeRule(int index)
{
    if (!m_snapshot || index < 0 || size_t(index) >= m_snapshot->view.rules.size())
        return;
    ViewOptions v = m_snapshot->view;
    v.rules.erase(v.rules.begin() + index);
    emit viewRequested(v);
}

void ViewState::updateChips()
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
    // Label filters: the kept ones, then the dropped ones (removeLabelFilter's order).
    const LabelView& labels = m_snapshot->view.labels;
    int labelIndex = 0;
    for (const auto* list : { &labels.focus, &labels.ignore })
        for (const TagFilter& f : *list) {
            auto* chip = new QToolButton;
            chip->setObjectName(QStringLiteral("labelFilterChip"));
            chip->setText(QStringLiteral("%1 %2  ✕")
                              .arg(list == &labels.focus ? tr("only") : tr("without"), QString::fromStdString(f.describe())));
            chip->setToolTip(tr("Remove this label filter"));
            const int i = labelIndex++;
            connect(chip, &QToolButton::clicked, this, [this, i] { removeLabelFilter(i); });
            m_chipsLayout->addWidget(chip);
        }
    if (const auto& range = labels.timeRange) {
        // As offsets from the first sample, as the timeline's axis reads.
        const auto span = timeSpan(*m_snapshot->sourceProfile());
        const int64_t first = span ? span->start : 0;
        auto* chip = new QToolButton;
        chip->setObjectName(QStringLiteral("timeRangeChip"));
        chip->setText(tr("time %1 to %2  ✕")
                          .arg(QString::fromStdString(formatValue(range->start - first, "nanoseconds")),
                              QString::fromStdString(formatValue(range->end - first, "nanoseconds"))));
        chip->setToolTip(tr("Keep the samples of every time again"));
        connect(chip, &QToolButton::clicked, this, [this] { setTimeRange(std::nullopt); });
        m_chipsLayout->addWidget(chip);
        ++labelIndex;
    }
    if (m_snapshot->view.collapseRecursion) {
        auto* chip = new QToolButton;
        chip->setText(tr("recursion collapsed  ✕"));
        connect(chip, &QToolButton::clicked, m_collapse, &QAction::trigger);
        m_chipsLayout->addWidget(chip);
    }
    m_chipsLayout->addStretch();
    m_chipsBar->setVisible(!rules.empty() || labelIndex > 0 || m_snapshot->view.collapseRecursion);
}

void ViewState::showFrameMenu(NodeId node, const QPoint& globalPos, QWidget* parent)
{
    if (!m_snapshot || !node.valid() || node == m_snapshot->tree->root())
        return;
    const Symbol& sym = m_snapshot->symbols->symbol(m_snapshot->tree->node(node).symbol);
    const std::string name = m_snapshot->symbols->displayName(m_snapshot->tree->node(node).symbol);
    const Profile& profile = *m_snapshot->profile;
    std::string binary;
    if (sym.mapping.valid() && sym.mapping.index() < profile.mappings.size())
        binary = std::string(profile.str(profile.mappings[sym.mapping.index()].file));
    QMenu menu(parent);
    const QString shownName = QFontMetrics(menu.font()).elidedText(QString::fromStdString(name), Qt::ElideMiddle, 300);
    // A group frame (a label's value): keep or drop its samples.
    if (const auto group = groupFrameOf(profile, sym.exemplar)) {
        const std::string key(group->key), value(group->value);
        const QString what = QString::fromStdString(key + " = " + value);
        // "<unknown>" stands for no value: there is no sample whose value it is.
        const bool known = value != kNoLabelValue;
        menu.addAction(tr("Only %1").arg(what), this, [this, key, value] { addLabelFilter(key, value, true); })
            ->setEnabled(known);
        menu.addAction(tr("Without %1").arg(what), this, [this, key, value] { addLabelFilter(key, value, false); })
            ->setEnabled(known);
        menu.exec(globalPos);
        return;
    }
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
    if (sym.symbolized) {
        QAction* source = menu.addAction(tr("Show &Source and Disassembly"), this,
            [this, name] { emit sourceRequested(QString::fromStdString(name)); });
        source->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_U));
    }
    menu.addAction(
        tr("Copy Function Name"), this, [name] { QApplication::clipboard()->setText(QString::fromStdString(name)); });
    menu.exec(globalPos);
}

} // namespace symflame::ui
