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
        // Item 0: the whole file, merged (the first profile's type, cpu, shown); then each profile.
        QCOMPARE(choice->count(), 4);
        QCOMPARE(choice->itemText(0), QStringLiteral("All 3 profiles, merged"));
        QCOMPARE(choice->itemText(1), QStringLiteral("#0  checkout  app  cpu (nanoseconds)  5 samples"));
        QCOMPARE(choice->itemText(3), QStringLiteral("#2  inventory  inv  wall (nanoseconds)  1 sample"));
        QCOMPARE(choice->currentIndex(), 0);
        QVERIFY(!window.flameGraph()->snapshot()->profile->profileIndex);
        QCOMPARE(window.flameGraph()->snapshot()->profile->sampleTypes.size(), size_t(3));
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
        emit choice->activated(3);
        QVERIFY(finished.wait(30000));
        const auto snap = window.flameGraph()->snapshot();
        QCOMPARE(snap->profile->profileIndex, std::optional<size_t>(2));
        QCOMPARE(snap->tree->totalValue(), int64_t(100));
        QCOMPARE(choice->currentIndex(), 3);
        window.grab().save(QStringLiteral("/tmp/otlp-shots/window-profile-2.png"));

        // A pprof file has no choice to make.
        emit choice->activated(1);
        QVERIFY(finished.wait(30000));
        QCOMPARE(window.flameGraph()->snapshot()->profile->profileIndex, std::optional<size_t>(0));
        QCOMPARE(window.flameGraph()->snapshot()->profile->sampleTypes.size(), size_t(1));
        emit choice->activated(0);
        QVERIFY(finished.wait(30000));
        QVERIFY(!window.flameGraph()->snapshot()->profile->profileIndex);
        QCOMPARE(choice->currentIndex(), 0);
        window.openFile(QStringLiteral(SYMFLAME_OTLP_DIR "/scenario-cpu.pprof.pb"));
        QVERIFY(finished.wait(30000));
        QVERIFY(!choice->isVisible());
    }
};

QTEST_MAIN(TestOtlpViewer)
#include "tst_otlpviewer.moc"
