// RecentFiles: File › Open Recent, the last ten profiles opened (kept in QSettings), with
// Alt-number accelerators and a Clear List entry.
#pragma once

#include <QObject>
#include <QStringList>

class QMenu;

namespace symflame::ui {

class RecentFiles : public QObject {
    Q_OBJECT
public:
    /// menu is filled with the list and kept up to date.
    explicit RecentFiles(QMenu* menu, QObject* parent = nullptr);

    /// The files, the most recent first.
    static QStringList files();
    /// Puts path first (a profile was opened).
    void add(const QString& path);
    /// Drops path (it could not be opened).
    void remove(const QString& path);

signals:
    void openRequested(const QString& path);

private:
    void updateMenu();

    QMenu* m_menu;
};

} // namespace symflame::ui
