// The viewer's debuginfod settings: stored and read back, turned into the options of the
// symbolization pass (servers of DEBUGINFOD_URLS only once the user said yes, none offline),
// the one-time question about DEBUGINFOD_URLS, and the dialog's fields. Writes a screenshot of
// the dialog to SYMFLAME_TEST_BINARY_DIR/debuginfod-settings.png.
#include "ui/debuginfodsettings.h"

#include <QApplication>
#include <QCheckBox>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTest>
#include <QTimer>

using namespace symflame;
using namespace symflame::ui;

namespace {

// Clicks the button with the given text in the message box that is about to open.
void clickInNextMessageBox(const QString& text, bool* seen)
{
    QTimer::singleShot(50, [text, seen] {
        for (QWidget* w : QApplication::topLevelWidgets())
            if (auto* box = qobject_cast<QMessageBox*>(w); box && box->isVisible())
                for (QAbstractButton* b : box->buttons())
                    if (b->text() == text) {
                        *seen = true;
                        b->click();
                        return;
                    }
    });
}

} // namespace

class TestDebuginfodSettings : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QApplication::setOrganizationName("symflame-test");
        QApplication::setApplicationName("tst_debuginfodsettings");
        QSettings().clear();
    }

    void roundTrip()
    {
        DebuginfodSettings d;
        d.servers = { "http://a.example:8002", "http://b.example" };
        d.offline = true;
        d.timeoutSeconds = 7;
        d.maxSizeMiB = 300;
        d.cacheDir = "/tmp/dcache";
        d.parallelDownloads = 6;
        d.envChoice = DebuginfodSettings::EnvChoice::Ignore;
        d.save();
        const DebuginfodSettings r = DebuginfodSettings::load();
        QCOMPARE(r.servers, d.servers);
        QCOMPARE(r.offline, true);
        QCOMPARE(r.timeoutSeconds, 7);
        QCOMPARE(r.maxSizeMiB, 300);
        QCOMPARE(r.cacheDir, QString("/tmp/dcache"));
        QCOMPARE(r.parallelDownloads, 6);
        QCOMPARE(r.envChoice, DebuginfodSettings::EnvChoice::Ignore);
        QSettings().clear();
    }

    void optionsHonourChoiceAndOffline()
    {
        qputenv("DEBUGINFOD_URLS", "http://env1.example http://env2.example");
        DebuginfodSettings d;
        d.servers = { "http://mine.example" };
        d.maxSizeMiB = 2;
        auto o = d.toOptions();
        QCOMPARE(o.urls, std::vector<std::string>({ "http://mine.example" })); // not asked yet: env unused
        QCOMPARE(o.maxSizeBytes, int64_t(2) << 20);
        d.envChoice = DebuginfodSettings::EnvChoice::Use;
        o = d.toOptions();
        QCOMPARE(o.urls, std::vector<std::string>({ "http://mine.example", "http://env1.example", "http://env2.example" }));
        QVERIFY(o.enabled());
        d.offline = true;
        QVERIFY(!d.toOptions().enabled());
        d = DebuginfodSettings();
        QVERIFY(!d.toOptions().enabled()); // nothing configured: no network
        qunsetenv("DEBUGINFOD_URLS");
    }

    void asksOnceAboutEnvironmentServers()
    {
        QSettings().clear();
        qputenv("DEBUGINFOD_URLS", "http://env1.example");
        bool seen = false;
        clickInNextMessageBox("Stay offline", &seen);
        DebuginfodSettings d = askAboutEnvironmentServers(nullptr);
        QVERIFY(seen);
        QCOMPARE(d.envChoice, DebuginfodSettings::EnvChoice::Ignore);
        QVERIFY(!d.toOptions().enabled());
        // Remembered: no second question.
        seen = false;
        clickInNextMessageBox("Use these servers", &seen);
        d = askAboutEnvironmentServers(nullptr);
        QTest::qWait(150);
        QVERIFY(!seen);
        QCOMPARE(DebuginfodSettings::load().envChoice, DebuginfodSettings::EnvChoice::Ignore);
        // Asked again after the answer is cleared, and yes is kept.
        QSettings().clear();
        clickInNextMessageBox("Use these servers", &seen);
        d = askAboutEnvironmentServers(nullptr);
        QVERIFY(seen);
        QCOMPARE(d.envChoice, DebuginfodSettings::EnvChoice::Use);
        QCOMPARE(d.toOptions().urls, std::vector<std::string>({ "http://env1.example" }));
        qunsetenv("DEBUGINFOD_URLS");
        QSettings().clear();
    }

    void dialogEditsSettings()
    {
        qputenv("DEBUGINFOD_URLS", "http://env1.example");
        DebuginfodSettings start;
        start.servers = { "http://a.example" };
        DebuginfodSettingsDialog dialog(start);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        auto* servers = dialog.findChild<QPlainTextEdit*>();
        QVERIFY(servers);
        QCOMPARE(servers->toPlainText(), QString("http://a.example"));
        servers->setPlainText("http://a.example\n\n  http://c.example  \n");
        const auto boxes = dialog.findChildren<QCheckBox*>();
        QCOMPARE(boxes.size(), 2);
        boxes[0]->setChecked(true); // use DEBUGINFOD_URLS
        const auto spins = dialog.findChildren<QSpinBox*>();
        QCOMPARE(spins.size(), 3);
        spins[0]->setValue(12);
        const QImage shot = dialog.grab().toImage();
        QVERIFY(!shot.isNull());
        shot.save(SYMFLAME_TEST_BINARY_DIR "/debuginfod-settings.png");
        const DebuginfodSettings d = dialog.settings();
        QCOMPARE(d.servers, QStringList({ "http://a.example", "http://c.example" }));
        QCOMPARE(d.envChoice, DebuginfodSettings::EnvChoice::Use);
        QCOMPARE(d.timeoutSeconds, 12);
        QCOMPARE(d.offline, false);
        qunsetenv("DEBUGINFOD_URLS");
    }
};

QTEST_MAIN(TestDebuginfodSettings)
#include "tst_debuginfodsettings.moc"
