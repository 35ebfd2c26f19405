#include "ui/flametoolbar.h"

#include <span>

#include "ui/breadcrumb.h"
#include "ui/flamegraphwidget.h"

#include <QAction>
#include <QComboBox>
#include <QLabel>

#include <algorithm>

namespace symflame::ui {

using namespace symflame::model;

FlameToolBar::FlameToolBar(FlameGraphWidget* flame, QWidget* parent)
    : QToolBar(tr("Flame Graph"), parent)
    , m_flame(flame)
{
    setObjectName(QStringLiteral("flameGraphToolBar"));
    setMovable(false);
    // The sample type chooser, and before it the profile chooser (added second, shown first).
    m_sampleType = new QComboBox;
    m_sampleType->setToolTip(tr("Sample type shown by the flame graph"));
    m_sampleTypeActions = addChooser(m_sampleType, tr("Sample type:"), nullptr);
    m_groupBy = new QComboBox;
    m_groupBy->setObjectName(QStringLiteral("groupByChoice"));
    m_groupBy->setToolTip(tr("Group the samples under a frame per process, thread or label value"));
    m_groupByActions = addChooser(m_groupBy, tr("Group by:"), nullptr);
    connect(m_groupBy, &QComboBox::activated, this, [this](int index) {
        if (index >= 0 && size_t(index) < m_groupings.size())
            emit groupByChosen(m_groupings[size_t(index)]);
    });
    m_separator = addSeparator();
    m_separator->setVisible(false);
    connect(m_sampleType, &QComboBox::activated, this, [this](int index) {
        if (index < 0)
            return;
        // A comparison drawn by BASE's widths stays so: the same type of BASE's half.
        const bool byBase = m_snapshot && m_snapshot->widthByBase();
        emit sampleTypeChosen(static_cast<size_t>(index) + (byBase ? m_snapshot->diffTypes : 0));
    });
    m_profileChoice = new QComboBox;
    m_profileChoice->setObjectName(QStringLiteral("profileChoice"));
    m_profileChoice->setToolTip(
        tr("The file holds several profiles (a process and sample type each): all of them merged, or one"));
    m_profileActions = addChooser(m_profileChoice, tr("Profile:"), m_sampleTypeActions.first);
    connect(m_profileChoice, &QComboBox::activated, this, [this](int index) {
        if (index == 0)
            emit profileChosen(std::nullopt);
        else if (index > 0)
            emit profileChosen(static_cast<size_t>(index - 1));
    });

    m_back = addAction(tr("Back"), m_flame, [this] { m_flame->zoomOut(); });
    m_back->setShortcut(QKeySequence(Qt::Key_Backspace));
    m_back->setToolTip(tr("Back to the previous zoom (Backspace, Esc)"));
    m_resetZoom = addAction(tr("Reset Zoom"), m_flame, [this] { m_flame->resetView(); });
    m_resetZoom->setShortcuts({ QKeySequence(Qt::CTRL | Qt::Key_0), QKeySequence(Qt::Key_Home) });
    m_resetZoom->setToolTip(tr("Show the whole profile (Ctrl+0, Home)"));
    m_breadcrumb = new Breadcrumb(m_flame);
    addWidget(m_breadcrumb);
    connect(m_flame, &FlameGraphWidget::rootChanged, this, [this] {
        const bool zoomed = m_flame->isZoomed();
        m_back->setEnabled(zoomed);
        m_resetZoom->setEnabled(zoomed || m_flame->isViewZoomed());
        m_breadcrumb->rebuild();
    });
    connect(m_flame, &FlameGraphWidget::viewChanged, this,
        [this] { m_resetZoom->setEnabled(m_flame->isZoomed() || m_flame->isViewZoomed()); });
    m_back->setEnabled(false);
    m_resetZoom->setEnabled(false);
}

std::pair<QAction*, QAction*> FlameToolBar::addChooser(QComboBox* box, const QString& label, QAction* before)
{
    box->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    auto* l = new QLabel(label);
    l->setBuddy(box);
    l->setContentsMargins(4, 0, 4, 0);
    const std::pair<QAction*, QAction*> actions { insertWidget(before, l), insertWidget(before, box) };
    actions.first->setVisible(false);
    actions.second->setVisible(false);
    return actions;
}

int FlameToolBar::choiceIndex(std::optional<size_t> profileIndex)
{
    return profileIndex ? static_cast<int>(*profileIndex) + 1 : 0;
}

void FlameToolBar::setSnapshot(std::shared_ptr<const ProfileSnapshot> snapshot)
{
    m_snapshot = std::move(snapshot);
    m_sampleType->clear();
    m_profileChoice->clear();
    if (m_snapshot) {
        const Profile& profile = *m_snapshot->profile;
        // A comparison's second half of types is BASE's side of the first: not a choice.
        const size_t choices = m_snapshot->isDiff() ? m_snapshot->diffTypes : profile.sampleTypes.size();
        for (const ValueType& t : std::span(profile.sampleTypes).first(choices)) {
            const QString type = QString::fromUtf8(profile.str(t.type));
            const QString unit = QString::fromUtf8(profile.str(t.unit));
            m_sampleType->addItem(unit.isEmpty() ? type : tr("%1 (%2)").arg(type, unit));
        }
        m_sampleType->setCurrentIndex(static_cast<int>(m_snapshot->sampleType % std::max<size_t>(choices, 1)));
        // Item 0 is the whole file, merged; item i + 1 its profile i.
        if (profile.profilesInFile.size() > 1) {
            m_profileChoice->addItem(tr("All %1 profiles, merged").arg(profile.profilesInFile.size()));
            for (size_t i = 0; i < profile.profilesInFile.size(); ++i)
                m_profileChoice->addItem(QString::fromStdString(profile.profilesInFile[i].describe(i)));
            m_profileChoice->setCurrentIndex(choiceIndex(profile.profileIndex));
        }
    }
    fillGroupBy();
    const bool types = m_sampleType->count() > 1, profiles = m_profileChoice->count() > 1;
    const bool groupings = m_groupBy->count() > 1;
    m_groupByActions.first->setVisible(groupings);
    m_groupByActions.second->setVisible(groupings);
    m_profileActions.first->setVisible(profiles);
    m_profileActions.second->setVisible(profiles);
    m_sampleTypeActions.first->setVisible(types);
    m_sampleTypeActions.second->setVisible(types);
    m_separator->setVisible(types || profiles || groupings);
}

void FlameToolBar::setBusy(bool busy)
{
    m_sampleType->setEnabled(!busy);
    m_profileChoice->setEnabled(!busy);
    m_groupBy->setEnabled(!busy);
    if (!busy && m_snapshot) {
        m_sampleType->setCurrentIndex(static_cast<int>(
            m_snapshot->isDiff() ? m_snapshot->sampleType % m_snapshot->diffTypes : m_snapshot->sampleType));
        m_profileChoice->setCurrentIndex(choiceIndex(m_snapshot->profile->profileIndex));
        selectGrouping();
    }
}

void FlameToolBar::fillGroupBy()
{
    m_groupBy->clear();
    m_groupings.clear();
    if (!m_snapshot)
        return;
    const Profile& source = *m_snapshot->sourceProfile();
    std::vector<std::string> keys;
    for (const LabelKeyInfo& k : labelKeys(source))
        if (k.values > 1) // a key of one value groups nothing
            keys.push_back(k.key);
    const auto has = [&](std::string_view key) { return std::find(keys.begin(), keys.end(), key) != keys.end(); };
    const auto add = [&](const QString& text, std::vector<std::string> grouping) {
        m_groupBy->addItem(text);
        m_groupings.push_back(std::move(grouping));
    };
    if (keys.empty() && m_snapshot->view.labels.rootKeys.empty())
        return;
    add(tr("Nothing"), {});
    if (has("process.pid"))
        add(tr("Process"), processKeys());
    if (has("thread.name"))
        add(tr("Thread"), has("process.pid") ? std::vector<std::string> { "process.executable.name", "process.pid", "thread.name" }
                                             : std::vector<std::string> { "thread.name" });
    for (const std::string& k : keys)
        add(QString::fromStdString(k), { k });
    // A grouping in force that none of the items is (set by a test or a later feature) is shown too.
    const auto& current = m_snapshot->view.labels.rootKeys;
    if (!current.empty() && std::find(m_groupings.begin(), m_groupings.end(), current) == m_groupings.end()) {
        QStringList names;
        for (const std::string& k : current)
            names << QString::fromStdString(k);
        add(names.join(QStringLiteral(", ")), current);
    }
    selectGrouping();
}

void FlameToolBar::selectGrouping()
{
    if (!m_snapshot)
        return;
    const auto it = std::find(m_groupings.begin(), m_groupings.end(), m_snapshot->view.labels.rootKeys);
    if (it != m_groupings.end())
        m_groupBy->setCurrentIndex(int(it - m_groupings.begin()));
}

} // namespace symflame::ui
