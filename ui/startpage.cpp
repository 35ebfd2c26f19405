#include "ui/startpage.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace symflame::ui {

StartPage::StartPage(QWidget* parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("startPage"));
    auto* title = new QLabel(tr("<h2>symflame</h2>"));
    auto* what = new QLabel(tr("Flame graphs of native profiles, symbolized on this machine: pprof, OTLP, "
                               "Collector files, Node .cpuprofile, folded stacks."));
    what->setWordWrap(true);
    auto* open = new QPushButton(tr("Open Profile\u2026"));
    open->setObjectName(QStringLiteral("startOpen"));
    open->setDefault(true);
    connect(open, &QPushButton::clicked, this, &StartPage::openRequested);
    m_demo = new QPushButton(tr("Open the Demo"));
    m_demo->setObjectName(QStringLiteral("startDemo"));
    m_demo->setToolTip(tr("A CPU profile that comes with symflame"));
    const QString demo = demoProfile();
    m_demo->setVisible(!demo.isEmpty());
    connect(m_demo, &QPushButton::clicked, this, [this, demo] { emit fileRequested(demo); });
    auto* drop = new QLabel(tr("or drop a profile file anywhere on this window"));
    drop->setEnabled(false); // the palette's muted text

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(open);
    buttons->addWidget(m_demo);
    buttons->addStretch(1);

    auto* recentTitle = new QLabel(tr("<b>Recent</b>"));
    recentTitle->setObjectName(QStringLiteral("startRecentTitle"));
    m_recent = new QVBoxLayout;
    m_recent->setSpacing(0);

    auto* column = new QVBoxLayout;
    column->addWidget(title);
    column->addWidget(what);
    column->addSpacing(12);
    column->addLayout(buttons);
    column->addWidget(drop);
    column->addSpacing(16);
    column->addWidget(recentTitle);
    column->addLayout(m_recent);

    auto* box = new QWidget;
    box->setLayout(column);
    box->setMaximumWidth(560);
    auto* outer = new QVBoxLayout(this);
    outer->addStretch(1);
    auto* row = new QHBoxLayout;
    row->addStretch(1);
    row->addWidget(box, 3);
    row->addStretch(1);
    outer->addLayout(row);
    outer->addStretch(2);
    setRecentFiles({});
}

void StartPage::setRecentFiles(const QStringList& files)
{
    while (QLayoutItem* item = m_recent->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    if (auto* title = findChild<QLabel*>(QStringLiteral("startRecentTitle")))
        title->setVisible(!files.isEmpty());
    for (const QString& path : files) {
        auto* b = new QPushButton(QFileInfo(path).fileName());
        b->setFlat(true);
        b->setToolTip(path);
        b->setStyleSheet(QStringLiteral("text-align: left; padding: 2px 4px;"));
        b->setCursor(Qt::PointingHandCursor);
        connect(b, &QPushButton::clicked, this, [this, path] { emit fileRequested(path); });
        m_recent->addWidget(b);
    }
}

QString StartPage::demoProfile()
{
    const QString app = QCoreApplication::applicationDirPath();
    // The native demo of this build tree first (its binaries are where it was recorded).
    const QStringList candidates {
#ifdef SYMFLAME_NATIVE_DEMO
        QStringLiteral(SYMFLAME_NATIVE_DEMO),
#endif
        app + QStringLiteral("/../share/symflame/demo/demo-cpu.pb.gz"),
#ifdef SYMFLAME_SOURCE_DEMO
        QStringLiteral(SYMFLAME_SOURCE_DEMO),
#endif
    };
    for (const QString& c : candidates)
        if (QFileInfo(c).isFile())
            return QDir::cleanPath(QFileInfo(c).absoluteFilePath());
    return {};
}

} // namespace symflame::ui
