#include "dialoghelpers.h"

#include <QApplication>
#include <QFileDialog>
#include <QFileInfo>
#include <QMetaObject>
#include <QTimer>

namespace symflame::testing {

// Each retry schedules a new attempt (a lambda that held a shared_ptr to itself was a reference
// cycle: LeakSanitizer reported it).
void answerFileDialog(const QString& path, bool* answered, int delayMs)
{
    QTimer::singleShot(delayMs, [path, answered] {
        auto* dialog = qobject_cast<QFileDialog*>(QApplication::activeModalWidget());
        if (!dialog) {
            answerFileDialog(path, answered, 20);
            return;
        }
        dialog->setDirectory(QFileInfo(path).absolutePath());
        dialog->selectFile(path);
        *answered = true;
        QMetaObject::invokeMethod(dialog, "accept");
    });
}

} // namespace symflame::testing
