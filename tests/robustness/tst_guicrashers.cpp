// The viewer opens every kept fuzz regression input (fuzz/regressions/) and a sample of the seed
// corpora (fuzz/seeds/ and the real files the build lists in fuzzinputs/seeds-<name>.txt)
// (SYMFLAME_GUI_CORPUS: also a sample of each corpus a libFuzzer run grew) through the real
// MainWindow open path, with its error message boxes enabled: each file either
// shows as a profile or shows the "Cannot Open Profile" box naming it with a reason, and after
// each one a good profile still opens and renders. A file that loads is symbolized as after any
// load (its addresses against whatever binaries it names). Offscreen; the boxes are window-modal
// (open(), not exec()), so the test reads and closes them. Screenshots in /tmp/guicrashers-shots.
#include "fixtures/fixturepaths.h"
#include "ui/flamegraphwidget.h"
#include "ui/mainwindow.h"
#include "ui/profilesnapshot.h"

#include <QApplication>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QImage>
#include <QMessageBox>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>

using namespace symflame;

namespace {

// Files in dir (recursively), sorted; at most max of them, spread evenly over the sorted list.
QStringList filesUnder(const QString& dir, qsizetype max)
{
    QStringList all;
    QDirIterator it(dir, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext())
        all << it.next();
    all.sort();
    if (all.size() <= max)
        return all;
    QStringList sample;
    for (qsizetype i = 0; i < max; ++i)
        sample << all[i * all.size() / max];
    return sample;
}

QList<QMessageBox*> openBoxes(QWidget* window)
{
    QList<QMessageBox*> boxes;
    for (QMessageBox* b : window->findChildren<QMessageBox*>())
        if (b->isVisible())
            boxes << b;
    return boxes;
}

// Distinct colors in the image: a rendered flame graph has many, a blank widget one or two.
int colorCount(const QImage& image)
{
    QSet<QRgb> colors;
    for (int y = 0; y < image.height(); y += 4)
        for (int x = 0; x < image.width(); x += 4)
            colors.insert(image.pixel(x, y));
    return int(colors.size());
}

} // namespace

class TestGuiCrashers : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true); // settings and recent files of its own
        QSettings().clear(); // symbolization after loading stays on: crashers that load get it too
        qputenv("DEBUGINFOD_URLS", "");
        QDir().mkpath(QStringLiteral("/tmp/guicrashers-shots"));
    }

    void opensEveryCrasherAndCorpusFile_data()
    {
        QTest::addColumn<QString>("path");
        const QString fuzz = QStringLiteral(SYMFLAME_SOURCE_DIR "/fuzz");
        QStringList files = filesUnder(fuzz + "/regressions", 100000);
        QVERIFY2(!files.isEmpty(), "no regression inputs");
        files += filesUnder(fuzz + "/seeds", 40);
        // The real files that seed each harness (profiles, ELF files, Go tables, source maps).
        for (const QString& list : QDir(QStringLiteral(SYMFLAME_TEST_BINARY_DIR "/fuzzinputs"))
                                       .entryList({ QStringLiteral("seeds-*.txt") }, QDir::Files, QDir::Name)) {
            QFile f(QStringLiteral(SYMFLAME_TEST_BINARY_DIR "/fuzzinputs/") + list);
            QVERIFY(f.open(QIODevice::ReadOnly));
            for (const QString& line : QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts)) {
                if (line.startsWith(fuzz))
                    continue; // the regressions and seeds above
                files += QFileInfo(line).isDir() ? filesUnder(line, 4) : QStringList { line };
            }
        }
        // Opt in: the corpora a libFuzzer run grew (SYMFLAME_GUI_CORPUS=build-fuzz/corpus), a
        // sample of each harness's.
        if (const QString grown = qEnvironmentVariable("SYMFLAME_GUI_CORPUS"); !grown.isEmpty())
            for (const QString& h : QDir(grown).entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name))
                files += filesUnder(grown + "/" + h, 30);
        files.removeDuplicates();
        QVERIFY2(files.size() >= 20, qPrintable(QString::number(files.size())));
        for (const QString& f : files)
            QTest::newRow(qPrintable(QDir(QStringLiteral(SYMFLAME_SOURCE_DIR)).relativeFilePath(f))) << f;
    }

    void opensEveryCrasherAndCorpusFile()
    {
        QFETCH(QString, path);
        if (!m_window) {
            m_window = std::make_unique<ui::MainWindow>();
            m_window->resize(1000, 600);
            m_window->show();
            QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        }
        ui::MainWindow& w = *m_window;
        QSignalSpy finished(&w, &ui::MainWindow::loadFinished);
        QSignalSpy failed(&w, &ui::MainWindow::loadFailed);
        w.openFile(path);
        QTRY_VERIFY_WITH_TIMEOUT(finished.size() + failed.size() == 1, 60000);
        if (!failed.isEmpty()) {
            ++m_failures;
            QCOMPARE(failed.first().at(0).toString(), path);
            const QString reason = failed.first().at(1).toString();
            QVERIFY2(!reason.isEmpty(), "a failed load without a reason");
            QTRY_VERIFY(openBoxes(&w).size() == 1);
            QMessageBox* box = openBoxes(&w).first();
            QCOMPARE(box->windowTitle(), QStringLiteral("Cannot Open Profile"));
            QVERIFY2(box->text().contains(QFileInfo(path).fileName()), qPrintable(box->text()));
            QVERIFY(!box->informativeText().isEmpty());
            if (m_failures == 1) {
                box->grab().save(QStringLiteral("/tmp/guicrashers-shots/error-box.png"));
                w.grab().save(QStringLiteral("/tmp/guicrashers-shots/window-after-error.png"));
            }
            box->accept();
            QTRY_VERIFY(openBoxes(&w).isEmpty());
            // What was shown before stays shown.
            if (m_goodShown)
                QCOMPARE(w.flameGraph()->snapshot(), m_goodShown);
        } else {
            ++m_opened;
            QVERIFY(w.flameGraph()->snapshot());
            // The symbolization pass that follows a load (when there is anything to resolve)
            // finishes too, and shows no box.
            m_symbolized += w.isLoading();
            QTRY_VERIFY_WITH_TIMEOUT(!w.isLoading(), 120000);
            QVERIFY(w.flameGraph()->snapshot());
            QVERIFY(openBoxes(&w).isEmpty());
        }

        // The window keeps working: a good profile opens and renders.
        finished.clear();
        failed.clear();
        w.openFile(QString::fromUtf8(fixtures::goCpuProfile));
        QTRY_VERIFY_WITH_TIMEOUT(finished.size() + failed.size() == 1, 60000);
        QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().at(1).toString()));
        const auto snap = w.flameGraph()->snapshot();
        QVERIFY(snap && snap->tree->size() > 10);
        const QImage image = w.flameGraph()->grab().toImage();
        QVERIFY2(colorCount(image) > 8, "the good profile did not render");
        m_goodShown = snap;
    }

    void cleanupTestCase()
    {
        qInfo("%d files shown as profiles (%d of them then symbolized), %d refused with a message", m_opened,
            m_symbolized, m_failures);
        if (m_window)
            m_window->grab().save(QStringLiteral("/tmp/guicrashers-shots/window-last.png"));
        m_window.reset();
    }

private:
    std::unique_ptr<ui::MainWindow> m_window;
    std::shared_ptr<const ui::ProfileSnapshot> m_goodShown;
    int m_opened = 0;
    int m_failures = 0;
    int m_symbolized = 0;
};

QTEST_MAIN(TestGuiCrashers)
#include "tst_guicrashers.moc"
