// The viewer with isolation (symbolize/isolation/isolatedengine.h), offscreen: the settings dialog edits the
// policy and the time limit; a profile whose first binary's debug info crashes LLVM's DWARF reader
// (tests/isolation/deepdies.s) opens, its symbolization pass finishes, the window and the profile
// stay, the binaries panel says why that binary has no names and the other binary's functions are
// named in the flame graph.
#include "model/io/profileio.h"
#include "symbolize/pass/binarytriage.h"
#include "ui/binariesmodel.h"
#include "ui/binariespanel.h"
#include "ui/flamegraphwidget.h"
#include "ui/mainwindow.h"
#include "ui/symbolizesettings.h"
#include "ui/topfunctionsmodel.h"

#include "isolationhelpers.h"
#include "symfixturehelpers.h"
#include "symprofilehelpers.h"

#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace symflame;
using symflame::symbolize::BinaryRow;
using symflame::symbolize::BinaryState;

class TestIsolationViewer : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QApplication::setApplicationName(QStringLiteral("tst_isolationviewer"));
        QSettings().clear();
    }

    void settingsDialog()
    {
        ui::SymbolizeSettings initial = ui::SymbolizeSettings::load();
        QCOMPARE(int(initial.local.isolation), int(symbolize::IsolationPolicy::Downloaded));
        QCOMPARE(initial.local.isolationTimeoutSeconds, 60);
        QCOMPARE(int(initial.toOptions().isolation.policy), int(symbolize::IsolationPolicy::Downloaded));
        ui::SymbolizeSettingsDialog dialog(initial);
        auto* policy = dialog.findChild<QComboBox*>(QStringLiteral("isolation"));
        auto* timeout = dialog.findChild<QSpinBox*>(QStringLiteral("isolationTimeout"));
        QVERIFY(policy && timeout);
        QCOMPARE(policy->currentData().toString(), QStringLiteral("downloaded"));
        policy->setCurrentIndex(policy->findData(QStringLiteral("all")));
        timeout->setValue(7);
        const ui::SymbolizeSettings edited = dialog.settings();
        QCOMPARE(int(edited.local.isolation), int(symbolize::IsolationPolicy::All));
        QCOMPARE(edited.local.isolationTimeoutSeconds, 7);
        edited.save();
        const ui::SymbolizeSettings reloaded = ui::SymbolizeSettings::load();
        QCOMPARE(int(reloaded.local.isolation), int(symbolize::IsolationPolicy::All));
        const symbolize::SymbolizeOptions o = reloaded.toOptions();
        QCOMPARE(int(o.isolation.policy), int(symbolize::IsolationPolicy::All));
        QCOMPARE(o.isolation.timeoutSeconds, 7u);
        dialog.resize(700, dialog.sizeHint().height());
        dialog.grab().save(SYMFLAME_TEST_BINARY_DIR "/isolation-settings.png");
    }

    void crasherLeavesTheProfileOpen()
    {
        // Every binary read in a worker (the settings of the test before).
        QCOMPARE(int(ui::SymbolizeSettings::load().local.isolation), int(symbolize::IsolationPolicy::All));
        const std::string deepPath = SYMFLAME_ISOLATION_DIR "/deepdies";
        const std::string goodPath = symtest::fixture("cxx_pie").toStdString();
        auto deep = symbolize::ElfFile::open(deepPath);
        auto good = symbolize::ElfFile::open(goodPath);
        QVERIFY(deep && good);
        const model::Profile p = symtest::makeProfile(
            { { "deepdies", (*deep)->buildId(), *deep, 0 }, { "cxx_pie", (*good)->buildId(), *good, 0x555555554000 } },
            { deepPath, goodPath });
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString file = dir.filePath("crasher.pb.gz");
        QVERIFY(model::saveProfile(p, file.toStdString(), model::ProfileFormat::Pprof).ok());

        ui::MainWindow window;
        window.setErrorDialogsEnabled(false);
        window.resize(1400, 900);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QSignalSpy loaded(&window, &ui::MainWindow::loadFinished);
        QSignalSpy symbolized(&window, &ui::MainWindow::symbolizationFinished);
        window.openFile(file);
        QVERIFY(loaded.wait(60000));
        if (symbolized.isEmpty())
            QVERIFY(symbolized.wait(120000));

        auto* panel = window.findChild<ui::BinariesPanel*>();
        QVERIFY(panel);
        const auto row = [&](const std::string& name) -> const BinaryRow* {
            for (const BinaryRow& r : panel->model()->rows())
                if (r.name == name)
                    return &r;
            return nullptr;
        };
        QTRY_VERIFY(row("deepdies") && row("cxx_pie"));
        const BinaryRow* bad = row("deepdies");
        QCOMPARE(int(bad->state), int(BinaryState::Unreadable));
        QVERIFY2(symtest::isCrashMessage(QString::fromStdString(bad->detail), QString::fromStdString(deepPath)),
            bad->detail.c_str());
        QCOMPARE(bad->symbolized, uint64_t(0));
        const BinaryRow* ok = row("cxx_pie");
        QCOMPARE(int(ok->state), int(BinaryState::Symbolized));
        QCOMPARE(ok->symbolized, ok->locations);

        // The profile is open and drawn, the good binary's functions by name.
        QVERIFY(window.isVisible());
        const auto snap = window.flameGraph()->snapshot();
        QVERIFY(snap && snap->tree);
        QStringList labels;
        for (model::NodeId n : snap->tree->children(snap->tree->root()))
            labels << window.flameGraph()->label(n);
        QVERIFY2(labels.contains(QStringLiteral("main")) || labels.filter(QStringLiteral("Shape")).size() > 0,
            qPrintable(labels.join(", ")));
        QVERIFY2(labels.filter(QStringLiteral("deepdies+0x")).size() > 0, qPrintable(labels.join(", ")));
        QTRY_VERIFY(window.topFunctionsModel()->rowCount() > 0);

        // And the window goes on working: another pass over the same profile.
        symbolized.clear();
        emit panel->fetchRequested(0); // as the panel's "Fetch" button starts a pass

        QVERIFY(symbolized.wait(120000));
        QTRY_VERIFY(row("deepdies") && row("deepdies")->state == BinaryState::Unreadable);
        window.findChild<QDockWidget*>(QStringLiteral("binariesDock"))->raise();
        panel->selectRow(0);
        QTest::qWait(50);
        window.grab().save(SYMFLAME_TEST_BINARY_DIR "/isolation-window.png");
    }
};

QTEST_MAIN(TestIsolationViewer)
#include "tst_isolationviewer.moc"
