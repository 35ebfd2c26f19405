// The viewer on real Node profiles (offscreen): a .cpuprofile of the tsc build opens, the
// symbolization pass maps its frames, and the details panel shows the original function at
// work.ts:line:column with the generated position and the map used; the status colors and the
// legend name "source-mapped". The same profile with the scripts' maps removed says "no source
// map" with the paths tried, and the source-map directory set in the symbolization settings maps
// it again. Screenshots go to /tmp/viewer-shots.
#include "filehelpers.h"
#include "model/analysis/calltree.h"
#include "model/core/valueformat.h"
#include "ui/flamegraphpainter.h"
#include "ui/flamegraphwidget.h"
#include "ui/framedetailswidget.h"
#include "ui/mainwindow.h"
#include "ui/sourcepanel.h"
#include "ui/symbolizesettings.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QTableView>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <map>
#include <set>

using namespace symflame;
using namespace symflame::model;

using symflame::testing::mustReadFile;
using symflame::testing::mustWriteFile;

namespace {

const QString kFixtures = QStringLiteral(SYMFLAME_JS_FIXTURES);

void saveShot(const QImage& image, const QString& name)
{
    QDir().mkpath(QStringLiteral("/tmp/viewer-shots"));
    image.save(QStringLiteral("/tmp/viewer-shots/") + name);
}

// The 1-based line of the first line of a source file starting with prefix.
int lineOf(const QString& file, const QByteArray& prefix)
{
    const QList<QByteArray> lines = mustReadFile(file).split('\n');
    for (qsizetype i = 0; i < lines.size(); ++i)
        if (lines[i].startsWith(prefix))
            return int(i) + 1;
    qFatal("%s not in %s", prefix.constData(), qPrintable(file));
}

// The widest node whose symbol is named name.
NodeId nodeNamed(const ui::ProfileSnapshot& s, const std::string& name)
{
    NodeId best;
    for (size_t i = 1; i < s.tree->size(); ++i) {
        const NodeId n(i);
        if (s.symbols->displayName(s.tree->node(n).symbol) == name
            && (!best.valid() || s.tree->node(n).total > s.tree->node(best).total))
            best = n;
    }
    return best;
}

// Opens path and waits for the symbolization pass that follows the load.
bool openAndSymbolize(ui::MainWindow& window, const QString& path)
{
    QSignalSpy loaded(&window, &ui::MainWindow::loadFinished);
    QSignalSpy symbolized(&window, &ui::MainWindow::symbolizationFinished);
    window.openFile(path);
    if (loaded.isEmpty() && !loaded.wait(30000))
        return false;
    return !symbolized.isEmpty() || symbolized.wait(60000);
}

void useStatusColors(ui::MainWindow& window)
{
    for (QAction* a : window.findChildren<QAction*>())
        if (a->text() == QStringLiteral("&Symbolization Status"))
            a->trigger();
}

QStringList legendTexts(const ui::MainWindow& window)
{
    QStringList out;
    for (int i = 0; i < window.legend()->count(); ++i)
        out << window.legend()->item(i)->text();
    return out;
}

} // namespace

class TestJsViewer : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QApplication::setOrganizationName(QStringLiteral("symflame-tests"));
        QApplication::setApplicationName(QStringLiteral("tst_jsviewer"));
        QApplication::setFont(QFont(QStringLiteral("DejaVu Sans"), 9));
        QSettings().clear();
    }

    void sourceMappedFrames()
    {
        ui::MainWindow window;
        window.setErrorDialogsEnabled(false);
        window.resize(1400, 800);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(openAndSymbolize(window, kFixtures + "/separate.cpuprofile"));
        const auto snap = window.flameGraph()->snapshot();
        const NodeId spin = nodeNamed(*snap, "spin");
        QVERIFY(spin.valid());
        const QRect r = window.flameGraph()->frameRect(spin);
        QVERIFY(!r.isEmpty());
        QTest::mouseClick(window.flameGraph(), Qt::LeftButton, {}, r.center());
        QCOMPARE(window.flameGraph()->selected(), spin);

        // The original function and position, the generated one and the map.
        const QString details = window.frameDetails()->text();
        const int line = lineOf(QStringLiteral(SYMFLAME_TEST_SOURCE_DIR "/jsfixtures/src/work.ts"), "function spin(");
        const QString source = QDir::cleanPath(QStringLiteral(SYMFLAME_TEST_SOURCE_DIR "/jsfixtures/src/work.ts"));
        QVERIFY2(details.contains(QStringLiteral("Source\n%1:%2:").arg(source).arg(line)), qPrintable(details));
        QVERIFY2(details.contains(QStringLiteral("Generated\nspin file://%1/separate/work.js:").arg(kFixtures)),
            qPrintable(details));
        QVERIFY2(details.contains(QStringLiteral("source-mapped")), qPrintable(details));
        QVERIFY2(details.contains(kFixtures + "/separate/work.js.map"), qPrintable(details));
        // The tooltip: the original function at file.ts:line:column.
        const QString tip = window.flameGraph()->toolTipAt(window.flameGraph()->frameRect(spin).center());
        QVERIFY2(tip.contains(QStringLiteral("<b>spin</b>")) && tip.contains(QStringLiteral("%1:%2:").arg(source).arg(line))
                && tip.contains(QStringLiteral("source-mapped")),
            qPrintable(tip));

        // Colored by status: the frame in the source-mapped color, named in the legend.
        useStatusColors(window);
        QCOMPARE(window.flameGraph()->painter().nodeColor(spin, false),
            ui::FlameGraphPainter::statusColor(FrameStatus::SourceMapped, false));
        QVERIFY2(legendTexts(window).join('|').contains(QStringLiteral("source-mapped")),
            qPrintable(legendTexts(window).join('|')));
        // Every frame of the program's sources (.ts) in that color, anonymous functions too.
        int tsFrames = 0;
        for (size_t i = 1; i < snap->tree->size(); ++i) {
            const Symbol& sym = snap->symbols->symbol(snap->tree->node(NodeId(i)).symbol);
            if (!snap->profile->str(sym.file).ends_with(".ts"))
                continue;
            ++tsFrames;
            QCOMPARE(window.flameGraph()->painter().nodeColor(NodeId(i), false),
                ui::FlameGraphPainter::statusColor(FrameStatus::SourceMapped, false));
        }
        QVERIFY(tsFrames >= 5);
        saveShot(window.grab().toImage(), QStringLiteral("js-source-mapped.png"));
    }

    // The Source view of a mapped function: the original .ts text from the esbuild map's
    // sourcesContent (the header says so), the self and total of each line as the profile's
    // symbolized frames give them; with the tsc build (no sourcesContent), from the file.
    void sourceViewOfMappedFrame_data()
    {
        QTest::addColumn<QString>("profile");
        QTest::addColumn<QString>("from");
        QTest::addRow("esbuild, sourcesContent") << "bundle.cpuprofile" << "from the sourcesContent of " + kFixtures + "/bundle/bundle.js.map";
        QTest::addRow("tsc, file") << "separate.cpuprofile" << QString();
    }
    void sourceViewOfMappedFrame()
    {
        QFETCH(QString, profile);
        QFETCH(QString, from);
        ui::MainWindow window;
        window.setErrorDialogsEnabled(false);
        window.resize(1400, 800);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(openAndSymbolize(window, kFixtures + "/" + profile));
        QSignalSpy shown(window.sourcePanel(), &ui::SourcePanel::contentShown);
        window.showSource(QStringLiteral("spin"));
        QVERIFY(shown.wait(30000));
        const ui::SourceContent* c = window.sourcePanel()->content();
        QVERIFY(c && c->lines);
        const QString work = QDir::cleanPath(QStringLiteral(SYMFLAME_TEST_SOURCE_DIR "/jsfixtures/src/work.ts"));
        QCOMPARE(QString::fromStdString(c->lines->file), work);
        QVERIFY(c->file.found());
        QCOMPARE(QString::fromStdString(c->file.origin).isEmpty(), from.isEmpty());
        // The text is the .ts file's, line for line.
        const QList<QByteArray> original = mustReadFile(work).split('\n');
        QVERIFY(c->file.lines.size() + 1 >= size_t(original.size()) && c->file.lines.size() <= size_t(original.size()));
        for (size_t i = 0; i < c->file.lines.size(); ++i)
            QCOMPARE(QByteArray::fromStdString(c->file.lines[i]), original[qsizetype(i)]);
        // The header as read (paths may wrap at their slashes: zero-width spaces there).
        const QString header = window.sourcePanel()->findChild<QLabel*>(QStringLiteral("sourceHeader"))->text().remove(QChar(0x200b));
        QVERIFY2(!header.contains(QStringLiteral("source not found")), qPrintable(header));
        QVERIFY2(header.contains(from.isEmpty() ? work : from), qPrintable(header));
        QVERIFY(!window.sourcePanel()->findChild<QPushButton*>(QStringLiteral("locateSourceButton"))->isVisible());

        // Self and total per line: the profile's own count over its symbolized frames (spin is a leaf).
        const auto snap = window.flameGraph()->snapshot();
        const Profile& p = *snap->profile;
        std::map<int64_t, std::pair<int64_t, int64_t>> expected; // line -> (flat, cum)
        for (size_t s = 0; s < p.sampleCount(); ++s) {
            const int64_t v = p.values(s)[snap->sampleType];
            std::set<int64_t> seen;
            bool leaf = true;
            for (const LocationId id : p.sampleStack(s))
                for (const Line& l : p.linesOf(p.locations[id.index()])) {
                    const Function& f = p.functions[l.function.index()];
                    const bool match = p.str(f.name) == "spin" && QString::fromUtf8(p.str(f.file)) == work;
                    if (match && leaf)
                        expected[l.line].first += v;
                    leaf = false;
                    if (match && seen.insert(l.line).second)
                        expected[l.line].second += v;
                }
        }
        QVERIFY(!expected.empty());
        QTableView* view = window.sourcePanel()->sourceView();
        int rowsWithCost = 0;
        for (int r = 0; r < view->model()->rowCount(); ++r) {
            const int64_t line = view->model()->index(r, 0).data().toLongLong();
            QCOMPARE(view->model()->index(r, 3).data().toString().toUtf8(), original[qsizetype(line - 1)]);
            const auto it = expected.find(line);
            const QString self = view->model()->index(r, 1).data().toString();
            const QString total = view->model()->index(r, 2).data().toString();
            if (it == expected.end()) {
                QVERIFY(self.isEmpty() && total.isEmpty());
                continue;
            }
            ++rowsWithCost;
            QCOMPARE(self, it->second.first ? QString::fromStdString(formatValue(it->second.first, c->unit)) : QString());
            QCOMPARE(total, QString::fromStdString(formatValue(it->second.second, c->unit)));
        }
        QCOMPARE(rowsWithCost, int(expected.size()));
        saveShot(window.grab().toImage(), QStringLiteral("js-source-view-%1.png").arg(QFileInfo(profile).baseName()));
    }

    void brokenCpuProfileSaysWhy()
    {
        QTemporaryDir dir;
        mustWriteFile(dir.filePath("broken.cpuprofile"), "{\"nodes\":[{\"id\":1}],\"samples\":[]}");
        ui::MainWindow window;
        window.setErrorDialogsEnabled(false);
        QSignalSpy failed(&window, &ui::MainWindow::loadFailed);
        window.openFile(dir.filePath("broken.cpuprofile"));
        QVERIFY(failed.wait(30000));
        QCOMPARE(failed.first().at(0).toString(), dir.filePath("broken.cpuprofile"));
        QVERIFY2(failed.first().at(1).toString().contains(QStringLiteral("cpuprofile: node 0 has no id or callFrame")),
            qPrintable(failed.first().at(1).toString()));
        // The window still works: a good profile opens after it.
        QVERIFY(openAndSymbolize(window, kFixtures + "/bundle.cpuprofile"));
        QVERIFY(nodeNamed(*window.flameGraph()->snapshot(), "spin").valid());
    }

    void noSourceMapThenSourceMapDirectory()
    {
        // The tsc build's scripts without their sourceMappingURL and maps, and a profile naming them.
        QTemporaryDir dir;
        for (const char* name : {"main", "work", "shapes"}) {
            QByteArray js = mustReadFile(kFixtures + "/separate/" + name + ".js");
            js.replace("//# sourceMappingURL=", "// (map removed) ");
            mustWriteFile(dir.filePath(QString(name) + ".js"), js);
        }
        QByteArray profile = mustReadFile(kFixtures + "/separate.cpuprofile");
        profile.replace((kFixtures + "/separate/").toUtf8(), (dir.path() + "/").toUtf8());
        mustWriteFile(dir.filePath("moved.cpuprofile"), profile);

        {
            ui::MainWindow window;
            window.setErrorDialogsEnabled(false);
            window.resize(1400, 800);
            window.show();
            QVERIFY(QTest::qWaitForWindowExposed(&window));
            QVERIFY(openAndSymbolize(window, dir.filePath("moved.cpuprofile")));
            const auto snap = window.flameGraph()->snapshot();
            const NodeId spin = nodeNamed(*snap, "spin");
            QVERIFY(spin.valid());
            window.flameGraph()->setSelected(spin);
            const QString details = window.frameDetails()->text();
            QVERIFY2(details.contains(QStringLiteral("no source map: no map found")), qPrintable(details));
            QVERIFY2(details.contains(dir.filePath("work.js.map") + " (not found)"), qPrintable(details));
            useStatusColors(window);
            QCOMPARE(window.flameGraph()->painter().nodeColor(spin, false),
                ui::FlameGraphPainter::statusColor(FrameStatus::NoSourceMap, false));
            QVERIFY2(legendTexts(window).join('|').contains(QStringLiteral("no source map")),
                qPrintable(legendTexts(window).join('|')));
            // Every frame of the moved scripts in the no-source-map color, anonymous ones too.
            int scriptFrames = 0;
            for (size_t i = 1; i < snap->tree->size(); ++i) {
                const Symbol& sym = snap->symbols->symbol(snap->tree->node(NodeId(i)).symbol);
                if (!snap->profile->str(sym.file).starts_with(("file://" + dir.path()).toStdString()))
                    continue;
                ++scriptFrames;
                QCOMPARE(window.flameGraph()->painter().nodeColor(NodeId(i), false),
                    ui::FlameGraphPainter::statusColor(FrameStatus::NoSourceMap, false));
            }
            QVERIFY(scriptFrames >= 5);
            saveShot(window.grab().toImage(), QStringLiteral("js-no-source-map.png"));
        }

        // The maps' directory in the settings: mapped again.
        ui::SymbolizeSettings settings = ui::SymbolizeSettings::load();
        settings.local.sourceMapDirs = QStringList { kFixtures + "/separate" };
        settings.save();
        ui::MainWindow window;
        window.setErrorDialogsEnabled(false);
        window.resize(1400, 800);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(openAndSymbolize(window, dir.filePath("moved.cpuprofile")));
        const auto snap = window.flameGraph()->snapshot();
        const NodeId spin = nodeNamed(*snap, "spin");
        QVERIFY(spin.valid());
        window.flameGraph()->setSelected(spin);
        const QString details = window.frameDetails()->text();
        QVERIFY2(details.contains(QStringLiteral("source-mapped")) && details.contains(QStringLiteral("work.ts:")),
            qPrintable(details));
        QVERIFY2(details.contains(kFixtures + "/separate/work.js.map"), qPrintable(details));
        settings.local.sourceMapDirs.clear();
        settings.save();
    }
};

QTEST_MAIN(TestJsViewer)
#include "tst_jsviewer.moc"
