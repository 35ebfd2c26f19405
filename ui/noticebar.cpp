#include "ui/noticebar.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QStyle>
#include <QToolButton>

namespace symflame::ui {

NoticeBar::NoticeBar(QWidget* parent)
    : QFrame(parent)
{
    setObjectName(QStringLiteral("noticeBar"));
    setFrameShape(QFrame::StyledPanel);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(8, 4, 4, 4);
    layout->setSpacing(8);
    m_icon = new QLabel(this);
    const int size = style()->pixelMetric(QStyle::PM_SmallIconSize, nullptr, this);
    m_icon->setPixmap(style()->standardIcon(QStyle::SP_MessageBoxWarning, nullptr, this).pixmap(size, size));
    m_icon->setAlignment(Qt::AlignTop);
    m_text = new QLabel(this);
    m_text->setObjectName(QStringLiteral("noticeText"));
    m_text->setTextFormat(Qt::PlainText);
    m_text->setWordWrap(true);
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_action = new QPushButton(this);
    m_action->setObjectName(QStringLiteral("noticeAction"));
    m_close = new QToolButton(this);
    m_close->setAutoRaise(true);
    m_close->setText(QStringLiteral("\u2715"));
    m_close->setToolTip(tr("Dismiss"));
    layout->addWidget(m_icon);
    layout->addWidget(m_text, 1);
    layout->addWidget(m_action, 0, Qt::AlignVCenter);
    layout->addWidget(m_close, 0, Qt::AlignTop);
    connect(m_action, &QPushButton::clicked, this, &NoticeBar::actionTriggered);
    connect(m_close, &QToolButton::clicked, this, [this] {
        m_dismissed = m_text->text();
        hide();
    });
    applyColors();
    hide();
}

void NoticeBar::setNotice(const QString& text, const QString& action, const QString& toolTip)
{
    m_text->setText(text);
    m_text->setToolTip(toolTip);
    m_action->setText(action);
    m_action->setVisible(!action.isEmpty());
    setVisible(!text.isEmpty() && text != m_dismissed);
}

void NoticeBar::clearNotice()
{
    m_text->clear();
    hide();
}

QString NoticeBar::text() const
{
    return isHidden() ? QString() : m_text->text();
}

void NoticeBar::changeEvent(QEvent* event)
{
    QFrame::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        applyColors();
}

void NoticeBar::applyColors()
{
    // A warning's amber, light or dark as the window is.
    const bool dark = palette().color(QPalette::Window).lightness() < 128;
    const QColor bg = dark ? QColor(84, 66, 20) : QColor(255, 244, 206);
    const QColor border = dark ? QColor(140, 110, 40) : QColor(226, 192, 96);
    const QColor fg = dark ? QColor(245, 235, 210) : QColor(60, 45, 0);
    const QString sheet = QStringLiteral("QFrame#noticeBar { background: %1; border: none; border-bottom: 1px solid %2; }"
                                         "QFrame#noticeBar QLabel { color: %3; background: transparent; }")
                              .arg(bg.name(), border.name(), fg.name());
    if (styleSheet() != sheet)
        setStyleSheet(sheet);
}

} // namespace symflame::ui
