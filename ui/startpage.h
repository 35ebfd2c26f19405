// StartPage: what the window shows before a profile is open: Open…, the recent files, the hint
// that a file can be dropped here, and "Open the Demo" (the bundled demo profile, when it is
// found next to the program or in the source tree it was built from).
#pragma once

#include <QWidget>

class QPushButton;
class QVBoxLayout;

namespace symflame::ui {

class StartPage : public QWidget {
    Q_OBJECT
public:
    explicit StartPage(QWidget* parent = nullptr);

    /// Lists files (the most recent first) as buttons that open them.
    void setRecentFiles(const QStringList& files);
    /// The bundled demo profile: installed (share/symflame/demo) or in the source tree this
    /// build came from; empty when neither exists.
    static QString demoProfile();

signals:
    void openRequested();
    void fileRequested(const QString& path);

private:
    QVBoxLayout* m_recent = nullptr;
    QPushButton* m_demo = nullptr;
};

} // namespace symflame::ui
