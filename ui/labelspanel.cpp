#include "ui/labelspanel.h"

#include "model/analysis/labelview.h"
#include "model/core/valueformat.h"

#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace symflame::ui {

using namespace symflame::model;

namespace {

// Item roles: the key (both levels) and, on value rows, the value.
constexpr int KeyRole = Qt::UserRole;
constexpr int ValueRole = Qt::UserRole + 1;
// Values listed per key; the rest are summed in one row.
constexpr size_t kMaxValues = 200;

struct KeyValues {
    LabelKeyInfo key;
    std::vector<LabelValueInfo> values;
};

} // namespace

LabelsPanel::LabelsPanel(QWidget* parent)
    : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_empty = new QLabel(tr("The samples of this profile have no labels."));
    m_empty->setWordWrap(true);
    m_empty->setContentsMargins(6, 6, 6, 6);
    m_empty->setStyleSheet(QStringLiteral("font-style: italic"));
    layout->addWidget(m_empty);
    m_tree = new QTreeWidget;
    m_tree->setObjectName(QStringLiteral("labelsTree"));
    m_tree->setColumnCount(3);
    m_tree->setHeaderLabels({ tr("Label"), tr("Value"), tr("Share") });
    m_tree->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_tree->setRootIsDecorated(true);
    m_tree->setUniformRowHeights(true);
    m_tree->setContextMenuPolicy(Qt::CustomContextMenu);
    m_tree->setToolTip(tr("Double-click a value to keep only its samples; right-click for more"));
    layout->addWidget(m_tree);
    connect(m_tree, &QTreeWidget::itemDoubleClicked, this, [this](QTreeWidgetItem* item, int) {
        if (item && item->parent() && !item->data(0, ValueRole).isNull())
            emit filterRequested(item->data(0, KeyRole).toString().toStdString(),
                item->data(0, ValueRole).toString().toStdString(), true);
    });
    connect(m_tree, &QTreeWidget::customContextMenuRequested, this, &LabelsPanel::showMenu);
    setSnapshot(nullptr);
}

void LabelsPanel::setSnapshot(std::shared_ptr<const ProfileSnapshot> snapshot)
{
    m_jobs.cancel();
    m_tree->clear();
    m_tree->setVisible(false);
    m_empty->setVisible(true);
    if (!snapshot || !snapshot->profile)
        return;
    m_jobs.run(
        [snapshot] {
            std::vector<KeyValues> out;
            for (LabelKeyInfo& k : labelKeys(*snapshot->profile)) {
                if (k.attribute)
                    continue; // the profile's, the same for every sample
                auto values = labelValues(*snapshot->profile, k.key, snapshot->sampleType);
                out.push_back({ std::move(k), std::move(values) });
            }
            return out;
        },
        [this, snapshot](std::vector<KeyValues> keys) {
            m_tree->clear();
            const int64_t total = snapshot->profile->sampleTypes.empty()
                ? 0
                : snapshot->profile->totalValue(snapshot->sampleType);
            const std::string unit(snapshot->unit());
            const auto share = [&](int64_t v) {
                return total == 0 ? QString() : QString::number(100.0 * double(v) / double(total), 'f', 1) + '%';
            };
            for (const KeyValues& kv : keys) {
                auto* top = new QTreeWidgetItem(m_tree);
                const QString key = QString::fromStdString(kv.key.key);
                top->setText(0, key);
                top->setText(1, kv.key.values == 1 ? tr("1 value") : tr("%1 values").arg(kv.key.values));
                top->setData(0, KeyRole, key);
                size_t n = 0;
                int64_t rest = 0;
                for (const LabelValueInfo& v : kv.values) {
                    if (n++ >= kMaxValues) {
                        rest += v.total;
                        continue;
                    }
                    auto* item = new QTreeWidgetItem(top);
                    item->setText(0, v.value.empty() ? tr("(none)") : QString::fromStdString(v.value));
                    item->setText(1, QString::fromStdString(formatValue(v.total, unit)));
                    item->setText(2, share(v.total));
                    item->setTextAlignment(1, Qt::AlignRight | Qt::AlignVCenter);
                    item->setTextAlignment(2, Qt::AlignRight | Qt::AlignVCenter);
                    item->setData(0, KeyRole, key);
                    if (!v.value.empty())
                        item->setData(0, ValueRole, QString::fromStdString(v.value));
                    item->setToolTip(0, tr("%1 = %2: %n sample(s)", nullptr, int(v.samples))
                                            .arg(key, QString::fromStdString(v.value)));
                }
                if (rest != 0) {
                    auto* item = new QTreeWidgetItem(top);
                    item->setText(0, tr("(%1 more values)").arg(kv.values.size() - kMaxValues));
                    item->setText(1, QString::fromStdString(formatValue(rest, unit)));
                    item->setText(2, share(rest));
                }
            }
            const bool any = m_tree->topLevelItemCount() > 0;
            m_tree->setVisible(any);
            m_empty->setVisible(!any);
            m_tree->resizeColumnToContents(1);
            m_tree->resizeColumnToContents(2);
        });
}

void LabelsPanel::showMenu(const QPoint& pos)
{
    QTreeWidgetItem* item = m_tree->itemAt(pos);
    if (!item)
        return;
    const std::string key = item->data(0, KeyRole).toString().toStdString();
    QMenu menu(this);
    if (item->parent() && !item->data(0, ValueRole).isNull()) {
        const std::string value = item->data(0, ValueRole).toString().toStdString();
        const QString what = QString::fromStdString(key + " = " + value);
        menu.addAction(tr("Only %1").arg(what), this, [this, key, value] { emit filterRequested(key, value, true); });
        menu.addAction(tr("Without %1").arg(what), this, [this, key, value] { emit filterRequested(key, value, false); });
        menu.addSeparator();
    }
    menu.addAction(tr("Group by %1").arg(QString::fromStdString(key)), this, [this, key] { emit groupRequested(key); });
    menu.exec(m_tree->viewport()->mapToGlobal(pos));
}

} // namespace symflame::ui
