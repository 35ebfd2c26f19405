#include "ui/breadcrumb.h"

#include "ui/flamegraphwidget.h"

#include <QFontMetrics>
#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>

#include <vector>

namespace symflame::ui {

using namespace symflame::model;

Breadcrumb::Breadcrumb(FlameGraphWidget* flame, QWidget* parent)
    : QWidget(parent)
    , m_flame(flame)
{
    setObjectName(QStringLiteral("breadcrumb"));
    m_layout = new QHBoxLayout(this);
    m_layout->setContentsMargins(8, 0, 8, 0);
    m_layout->setSpacing(0);
}

void Breadcrumb::rebuild()
{
    while (QLayoutItem* item = m_layout->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    const auto& snapshot = m_flame->snapshot();
    if (!snapshot || !m_flame->isZoomed())
        return;
    // all › ancestors › the zoomed frame; a deep path keeps its first and last steps.
    std::vector<NodeId> path = snapshot->tree->pathTo(m_flame->rootNode());
    path.insert(path.begin(), snapshot->tree->root());
    constexpr size_t kShown = 8;
    const QFontMetrics metrics(window()->font());
    auto separator = [this](const QString& text) {
        auto* label = new QLabel(text);
        label->setContentsMargins(2, 0, 2, 0);
        label->setEnabled(false);
        m_layout->addWidget(label);
    };
    for (size_t i = 0; i < path.size(); ++i) {
        if (path.size() > kShown && i == 2) {
            separator(QStringLiteral("› … "));
            i = path.size() - (kShown - 2);
        }
        const NodeId node = path[i];
        const QString name = i == 0 ? tr("all") : m_flame->label(node);
        const QString shown = metrics.elidedText(name, Qt::ElideMiddle, 240);
        if (i > 0)
            separator(QStringLiteral("›"));
        if (i + 1 == path.size()) {
            auto* current = new QLabel(shown);
            current->setToolTip(name);
            QFont bold = current->font();
            bold.setBold(true);
            current->setFont(bold);
            current->setContentsMargins(4, 0, 4, 0);
            m_layout->addWidget(current);
            break;
        }
        auto* button = new QToolButton;
        button->setAutoRaise(true);
        button->setText(shown);
        button->setToolTip(tr("Zoom to %1").arg(name));
        button->setProperty("node", QVariant::fromValue(static_cast<quint32>(node.value)));
        connect(button, &QToolButton::clicked, this, [this, node] {
            // Deferred: the jump rebuilds this bar, button included.
            QMetaObject::invokeMethod(
                this, [this, node] { m_flame->jumpTo(node); }, Qt::QueuedConnection);
        });
        m_layout->addWidget(button);
    }
}

} // namespace symflame::ui
