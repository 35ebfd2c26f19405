// The viewer's symbolization settings: stored and read back, turned into the options of the
// symbolization pass (servers of DEBUGINFOD_URLS only once the user said yes, none offline;
// path maps parsed), the one-time question about DEBUGINFOD_URLS, and the dialog's fields and
// validation. Writes screenshots of both tabs to SYMFLAME_TEST_BINARY_DIR/settings-*.png.
#include "ui/symbolizesettings.h"

#include <QApplication>
#include <QCheckBox>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QTabWidget>
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

class TestSymbolizeSettings : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QApplication::setOrganizationName("symflame-test");
        QApplication::setApplicationName("tst_symbolizesettings");
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

    void localSettingsRoundTripAndOptions()
    {
        LocalDebugSettings l;
        l.debugDirs = { "/opt/debug" };
        l.useDefaultDebugDir = false;
        l.searchDirs = { "/build/out", "/more" };
        l.pathMaps = { "/usr/src/app=/home/me/app", "not-a-map" };
        l.sourceMapDirs = { "/srv/maps", "/more/maps" };
        l.save();
        const SymbolizeSettings s = SymbolizeSettings::load();
        QCOMPARE(s.local.debugDirs, l.debugDirs);
        QCOMPARE(s.local.useDefaultDebugDir, false);
        QCOMPARE(s.local.searchDirs, l.searchDirs);
        QCOMPARE(s.local.pathMaps, l.pathMaps);
        QCOMPARE(s.local.sourceMapDirs, l.sourceMapDirs);
        const symbolize::SymbolizeOptions o = s.toOptions();
        QCOMPARE(o.sourceMapDirs, std::vector<std::string>({ "/srv/maps", "/more/maps" }));
        QCOMPARE(o.locator.debugDirs, std::vector<std::string>({ "/opt/debug" }));
        QCOMPARE(o.locator.useDefaultDebugDir, false);
        QCOMPARE(o.locator.searchDirs.size(), size_t(2));
        QCOMPARE(o.locator.pathMaps.size(), size_t(1)); // the invalid one is left out
        QCOMPARE(o.locator.pathMaps[0].from, std::string("/usr/src/app"));
        QCOMPARE(o.locator.pathMaps[0].to, std::string("/home/me/app"));
        QSettings().clear();
    }

    void dialogEditsSettings()
    {
        qputenv("DEBUGINFOD_URLS", "http://env1.example");
        SymbolizeSettings start;
        start.debuginfod.servers = { "http://a.example" };
        start.local.searchDirs = { "/build/out" };
        SymbolizeSettingsDialog dialog(start);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        const auto edit = [&](const char* name) { return dialog.findChild<QPlainTextEdit*>(name); };
        QVERIFY(edit("debugDirs") && edit("searchDirs") && edit("pathMaps") && edit("servers") && edit("sourceMapDirs"));
        QCOMPARE(edit("searchDirs")->toPlainText(), QString("/build/out"));
        QCOMPARE(edit("servers")->toPlainText(), QString("http://a.example"));
        edit("debugDirs")->setPlainText("/opt/debug\n\n");
        edit("pathMaps")->setPlainText("/usr/src=/home/me/src");
        edit("sourceMapDirs")->setPlainText("/srv/maps\n\n");
        edit("servers")->setPlainText("http://a.example\n\n  http://c.example  \n");
        QVERIFY(dialog.pathMapError().isEmpty());
        dialog.grab().save(SYMFLAME_TEST_BINARY_DIR "/settings-local.png");
        dialog.tabs()->setCurrentIndex(1);
        auto* useEnv = dialog.findChild<QCheckBox*>("useEnvironmentServers");
        QVERIFY(useEnv && useEnv->isEnabled());
        useEnv->setChecked(true);
        auto* timeout = dialog.findChild<QSpinBox*>("timeout");
        QVERIFY(timeout);
        timeout->setValue(12);
        dialog.grab().save(SYMFLAME_TEST_BINARY_DIR "/settings-servers.png");
        const SymbolizeSettings d = dialog.settings();
        QCOMPARE(d.local.debugDirs, QStringList({ "/opt/debug" }));
        QCOMPARE(d.local.pathMaps, QStringList({ "/usr/src=/home/me/src" }));
        QCOMPARE(d.local.sourceMapDirs, QStringList({ "/srv/maps" }));
        QCOMPARE(d.debuginfod.servers, QStringList({ "http://a.example", "http://c.example" }));
        QCOMPARE(d.debuginfod.envChoice, DebuginfodSettings::EnvChoice::Use);
        QCOMPARE(d.debuginfod.timeoutSeconds, 12);
        QCOMPARE(d.debuginfod.offline, false);
        // A bad path map is named and keeps the dialog open.
        edit("pathMaps")->setPlainText("/usr/src=/home/me/src\nnonsense");
        QVERIFY(dialog.pathMapError().contains("nonsense"));
        qunsetenv("DEBUGINFOD_URLS");
    }
};

QTEST_MAIN(TestSymbolizeSettings)
#include "tst_symbolizesettings.moc"
