#include "ui/recentfiles.h"

#include <QAction>
#include <QFileInfo>
#include <QMenu>
#include <QSettings>

namespace symflame::ui {

namespace {

constexpr int kMaxRecentFiles = 10;
const char kRecentKey[] = "recentFiles";

} // namespace

RecentFiles::RecentFiles(QMenu* menu, QObject* parent)
    : QObject(parent)
    , m_menu(menu)
{
    updateMenu();
}

QStringList RecentFiles::files()
{
    return QSettings().value(QLatin1String(kRecentKey)).toStringList();
}

void RecentFiles::add(const QString& path)
{
    QStringList list = files();
    list.removeAll(path);
    list.prepend(path);
    while (list.size() > kMaxRecentFiles)
        list.removeLast();
    QSettings().setValue(QLatin1String(kRecentKey), list);
    updateMenu();
}

void RecentFiles::remove(const QString& path)
{
    QStringList list = files();
    if (list.removeAll(path) == 0)
        return;
    QSettings().setValue(QLatin1String(kRecentKey), list);
    updateMenu();
}

void RecentFiles::updateMenu()
{
    m_menu->clear();
    const QStringList list = files();
    for (int i = 0; i < list.size(); ++i) {
        const QString& path = list[i];
        QAction* a
            = m_menu->addAction(QStringLiteral("&%1 %2").arg(
                                    i < 9 ? QString::number(i + 1) : QStringLiteral("1&0"), QFileInfo(path).fileName()),
                this, [this, path] { emit openRequested(path); });
        a->setToolTip(path);
        a->setStatusTip(path);
    }
    if (!list.isEmpty()) {
        m_menu->addSeparator();
        m_menu->addAction(tr("&Clear List"), this, [this] {
            QSettings().remove(QLatin1String(kRecentKey));
            updateMenu();
        });
    }
    m_menu->setEnabled(!list.isEmpty());
}

} // namespace symflame::ui
