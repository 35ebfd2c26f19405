// The main window on an OTLP file of three profiles: the "Profile:" choice lists them (service,
// executable, sample type, samples), and choosing one loads it. A screenshot of the window with
// the list open is saved to /tmp/otlp-shots.
#include "ui/flamegraphwidget.h"
#include "ui/mainwindow.h"
#include "ui/profilesnapshot.h"

#include "model/analysis/calltree.h"

#include <QAbstractItemView>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QSignalSpy>
#include <QTest>

using namespace symflame;

class TestOtlpViewer : public QObject {
    Q_OBJECT

private slots:
    void chooseProfile()
    {
        ui::MainWindow window;
        window.setErrorDialogsEnabled(false);
        window.resize(1300, 700);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QSignalSpy finished(&window, &ui::MainWindow::loadFinished);
        window.openFile(QStringLiteral(SYMFLAME_OTLP_DIR "/scenario-v1.10.pb"));
        QVERIFY(finished.wait(30000));

        QComboBox* choice = window.profileChoice();
        QVERIFY(choice->isVisible());
        QCOMPARE(choice->count(), 3);
        QCOMPARE(choice->itemText(0), QStringLiteral("#0  checkout  app  cpu (nanoseconds)  5 samples"));
        QCOMPARE(choice->itemText(2), QStringLiteral("#2  inventory  inv  wall (nanoseconds)  1 sample"));
        QCOMPARE(choice->currentIndex(), 0);
        QCOMPARE(window.flameGraph()->snapshot()->tree->totalValue(), int64_t(112000000));

        QDir().mkpath(QStringLiteral("/tmp/otlp-shots"));
        window.grab().save(QStringLiteral("/tmp/otlp-shots/window-profile-0.png"));
        choice->showPopup();
        QTest::qWait(200);
        // The popup is its own window: grab the screen area of the window and the list.
        QWidget* popup = choice->view()->window();
        QVERIFY(popup->isVisible());
        popup->grab().save(QStringLiteral("/tmp/otlp-shots/profile-choice-popup.png"));
        choice->hidePopup();

        // Choosing the wall profile of the second resource loads it.
        emit choice->activated(2);
        QVERIFY(finished.wait(30000));
        const auto snap = window.flameGraph()->snapshot();
        QCOMPARE(snap->profile->profileIndex, size_t(2));
        QCOMPARE(snap->tree->totalValue(), int64_t(100));
        QCOMPARE(choice->currentIndex(), 2);
        window.grab().save(QStringLiteral("/tmp/otlp-shots/window-profile-2.png"));

        // A pprof file has no choice to make.
        emit choice->activated(0);
        QVERIFY(finished.wait(30000));
        QCOMPARE(window.flameGraph()->snapshot()->profile->profileIndex, size_t(0));
        window.openFile(QStringLiteral(SYMFLAME_OTLP_DIR "/scenario-cpu.pprof.pb"));
        QVERIFY(finished.wait(30000));
        QVERIFY(!choice->isVisible());
    }
};

QTEST_MAIN(TestOtlpViewer)
#include "tst_otlpviewer.moc"
