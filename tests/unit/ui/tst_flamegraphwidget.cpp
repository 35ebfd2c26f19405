// The flame graph widget and the main window, offscreen: what is painted where (grabbed
// pixels), hit testing, zoom and back, tooltips, merged narrow frames, painting only the
// exposed rows, the dark palette; and the main window loading real profiles in the background,
// switching sample types, reporting a bad file, cancelling and dropping stale loads.
#include "fixtures/fixturepaths.h"
#include "model/analysis/calltree.h"
#include "model/core/frameformat.h"
#include "model/core/profile.h"
#include "model/io/profileio.h"
#include "model/analysis/toptable.h"
#include "ui/flamegraphpainter.h"
#include "ui/flamegraphwidget.h"
#include "ui/mainwindow.h"
#include "ui/profilesnapshot.h"

#include <QApplication>
#include <QComboBox>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QMenu>
#include <QMimeData>
#include <QObject>
#include <QPainter>
#include <QPalette>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QUrl>

#include <functional>
#include <string>
#include <vector>

using namespace symflame;
using model::NodeId;

namespace {

// Builds profiles from folded-style stacks: each call adds one sample "root;...;leaf" with value.
class ProfileBuilder {
public:
    ProfileBuilder()
    {
        m_p.sampleTypes = { { m_p.strings.intern("cpu"), m_p.strings.intern("nanoseconds") } };
        model::Mapping m;
        m.start = 0x400000;
        m.limit = 0x800000;
        m.file = m_p.strings.intern("/opt/demo/bin/demo");
        m_p.mappings.push_back(m);
    }
    void add(const std::vector<std::string>& rootFirst, int64_t value)
    {
        std::vector<model::LocationId> leafFirst;
        for (auto it = rootFirst.rbegin(); it != rootFirst.rend(); ++it)
            leafFirst.push_back(location(*it));
        const int64_t values[] = { value };
        m_p.addSample(m_p.internStack(leafFirst), values);
    }
    std::shared_ptr<const ui::ProfileSnapshot> snapshot()
    {
        m_p.updateFrameStatuses();
        m_p.finishBuilding();
        auto s = ui::makeSnapshot(std::make_shared<const model::Profile>(std::move(m_p)), 0);
        return s ? s.value() : nullptr;
    }

private:
    // A name starting with '@' is an unsymbolized location at that hex address.
    model::LocationId location(const std::string& name)
    {
        for (size_t i = 0; i < m_names.size(); ++i)
            if (m_names[i] == name)
                return model::LocationId(i);
        model::Location loc;
        loc.mapping = model::MappingId(0u);
        if (name.starts_with('@')) {
            loc.address = std::stoull(name.substr(1), nullptr, 16);
        } else {
            model::Function f;
            f.name = m_p.strings.intern(name);
            m_p.functions.push_back(f);
            loc.address = 0x400000 + 16 * m_names.size();
            loc.linesBegin = static_cast<uint32_t>(m_p.lines.size());
            loc.lineCount = 1;
            m_p.lines.push_back({ model::FunctionId(m_p.functions.size() - 1), 1, 0 });
        }
        m_p.locations.push_back(loc);
        m_names.push_back(name);
        return model::LocationId(m_p.locations.size() - 1);
    }

    model::Profile m_p;
    std::vector<std::string> m_names;
};

// main;a;hot 60  main;b;hot 20  main;b;cold 15  main 5   (ms)
std::shared_ptr<const ui::ProfileSnapshot> smallProfile()
{
    ProfileBuilder b;
    b.add({ "main", "a", "hot" }, 60'000'000);
    b.add({ "main", "b", "hot" }, 20'000'000);
    b.add({ "main", "b", "cold" }, 15'000'000);
    b.add({ "main" }, 5'000'000);
    return b.snapshot();
}

// The node reached from the root through the given labels.
NodeId findPath(const ui::ProfileSnapshot& s, const std::vector<std::string>& path)
{
    NodeId node = s.tree->root();
    for (const std::string& name : path) {
        NodeId next;
        for (NodeId child : s.tree->children(node))
            if (s.symbols->displayName(s.tree->node(child).symbol) == name)
                next = child;
        if (!next.valid())
            return {};
        node = next;
    }
    return node;
}

QPoint centerOf(const QRect& r)
{
    return r.center();
}

// Pixels in rect darker than any frame color: the label's glyphs.
int darkPixels(const QImage& image, const QRect& rect)
{
    int n = 0;
    for (int y = rect.top(); y <= rect.bottom(); ++y)
        for (int x = rect.left(); x <= rect.right(); ++x)
            n += qGray(image.pixel(x, y)) < 90;
    return n;
}

QPalette darkPalette()
{
    QPalette p;
    p.setColor(QPalette::Window, QColor(40, 40, 44));
    p.setColor(QPalette::Base, QColor(30, 30, 33));
    p.setColor(QPalette::Text, QColor(230, 230, 230));
    p.setColor(QPalette::WindowText, QColor(230, 230, 230));
    p.setColor(QPalette::Highlight, QColor(60, 130, 220));
    return p;
}

} // namespace

class TestFlameGraphWidget : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QApplication::setOrganizationName(QStringLiteral("symflame-tests"));
        QApplication::setApplicationName(QStringLiteral("tst_flamegraphwidget"));
        QApplication::setFont(QFont(QStringLiteral("DejaVu Sans"), 9));
    }

    void bottomRowIsTheWholeProfile()
    {
        ui::FlameGraphWidget w;
        w.resize(800, 300);
        const auto snap = smallProfile();
        QVERIFY(snap);
        w.setSnapshot(snap);
        const QImage image = w.grab().toImage();
        const int rowH = w.painter().rowHeight();
        const int y = w.height() - rowH / 2 - 1;
        const QColor root = image.pixelColor(400, y);
        QVERIFY(root != w.palette().color(QPalette::Base));
        for (int x = 40; x < 795; x += 5) {
            QCOMPARE(image.pixelColor(x, y), root);
            QCOMPARE(w.nodeAt(QPoint(x, y)), snap->tree->root());
        }
        // Above it, main covers the whole width too: every sample is in main.
        const NodeId main = findPath(*snap, { "main" });
        QCOMPARE(w.nodeAt(QPoint(5, y - rowH)), main);
        QCOMPARE(w.nodeAt(QPoint(795, y - rowH)), main);
        QCOMPARE(w.label(main), QStringLiteral("main"));
        // Nothing above the deepest row (root, main, a/b, hot/cold).
        QCOMPARE(w.painter().rowCount(), 4);
        QVERIFY(!w.hitAt(QPoint(400, w.height() - 4 * rowH - 2)).valid());
        QCOMPARE(image.pixelColor(400, 2), w.palette().color(QPalette::Base));
    }

    void hotFunctionIsDrawnWhereHitTestingFindsIt()
    {
        ui::FlameGraphWidget w;
        w.resize(800, 300);
        const auto snap = smallProfile();
        w.setSnapshot(snap);
        const QImage image = w.grab().toImage();
        const NodeId hot = findPath(*snap, { "main", "a", "hot" });
        QVERIFY(hot.valid());
        const QRect r = w.frameRect(hot);
        QVERIFY(!r.isEmpty());
        QVERIFY2(qAbs(r.width() - 480) <= 1, qPrintable(QString::number(r.width()))); // 60% of 800
        QCOMPARE(r.left(), 0);
        QCOMPARE(w.nodeAt(centerOf(r)), hot);
        QCOMPARE(w.label(w.nodeAt(centerOf(r))), QStringLiteral("hot"));
        // Its color is the name's; the label is drawn at the left end, not at the right.
        const QColor expected = ui::FlameGraphPainter::frameColor("hot", true, false);
        QCOMPARE(image.pixelColor(r.right() - 10, r.center().y()), expected);
        QVERIFY(darkPixels(image, QRect(r.left(), r.top(), 40, r.height() - 1)) > 10);
        QCOMPARE(darkPixels(image, QRect(r.right() - 100, r.top(), 90, r.height() - 1)), 0);
        // The same name has the same color wherever it is; other names differ.
        const QRect hot2 = w.frameRect(findPath(*snap, { "main", "b", "hot" }));
        QCOMPARE(image.pixelColor(hot2.right() - 3, hot2.center().y()), expected);
        const QRect cold = w.frameRect(findPath(*snap, { "main", "b", "cold" }));
        QVERIFY(image.pixelColor(cold.right() - 3, cold.center().y()) != expected);
        // b's self time (none) and main's (5%): the gap right of b's children is background.
        const QRect main = w.frameRect(findPath(*snap, { "main" }));
        const QRect b = w.frameRect(findPath(*snap, { "main", "b" }));
        QVERIFY(b.right() < main.right() - 30);
        QCOMPARE(image.pixelColor(main.right() - 10, b.center().y()), w.palette().color(QPalette::Base));
    }

    void tooltipNamesFunctionValuesAndPercentages()
    {
        ui::FlameGraphWidget w;
        w.resize(800, 300);
        const auto snap = smallProfile();
        w.setSnapshot(snap);
        const QRect r = w.frameRect(findPath(*snap, { "main", "a", "hot" }));
        const QString tip = w.toolTipAt(r.center());
        QVERIFY2(tip.contains(QStringLiteral("hot")), qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral("60.00%")), qPrintable(tip));
        QVERIFY2(tip.contains(QString::fromStdString(model::formatValue(60'000'000, "nanoseconds"))), qPrintable(tip));
        const QString mainTip = w.toolTipAt(w.frameRect(findPath(*snap, { "main" })).center());
        QVERIFY2(mainTip.contains(QStringLiteral("100.00%")) && mainTip.contains(QStringLiteral("5.00%")),
            qPrintable(mainTip));
        QVERIFY(w.toolTipAt(QPoint(400, 2)).isEmpty());
    }

    void clickZoomsAndEscapeGoesBack()
    {
        ui::FlameGraphWidget w;
        w.resize(700, 300);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        const auto snap = smallProfile();
        w.setSnapshot(snap);
        QSignalSpy rootSpy(&w, &ui::FlameGraphWidget::rootChanged);
        const NodeId b = findPath(*snap, { "main", "b" });
        const NodeId hotUnderB = findPath(*snap, { "main", "b", "hot" });
        QVERIFY(w.frameRect(hotUnderB).width() < 150); // 20% before zooming

        QTest::mouseClick(&w, Qt::LeftButton, {}, w.frameRect(b).center());
        QCOMPARE(w.rootNode(), b);
        QCOMPARE(rootSpy.count(), 1);
        QCOMPARE(rootSpy.last().at(0).toString(), QStringLiteral("b"));
        // b is now full width above the two ancestor rows (all, main); hot is 20/35 of it.
        const int rowH = w.painter().rowHeight();
        const int bRowY = w.height() - 2 * rowH - rowH / 2;
        QCOMPARE(w.nodeAt(QPoint(3, bRowY)), b);
        QCOMPARE(w.nodeAt(QPoint(696, bRowY)), b);
        QCOMPARE(w.nodeAt(QPoint(350, w.height() - rowH / 2)), snap->tree->root());
        QVERIFY(w.hitAt(QPoint(350, w.height() - rowH / 2)).ancestor);
        QVERIFY2(qAbs(w.frameRect(hotUnderB).width() - 400) <= 1,
            qPrintable(QString::number(w.frameRect(hotUnderB).width())));
        QVERIFY(w.frameRect(findPath(*snap, { "main", "a", "hot" })).isEmpty()); // not under b
        QVERIFY2(w.toolTipAt(w.frameRect(hotUnderB).center()).contains(QStringLiteral("57.14% of the zoomed frame")),
            qPrintable(w.toolTipAt(w.frameRect(hotUnderB).center())));

        // Deeper, then back step by step.
        QTest::mouseClick(&w, Qt::LeftButton, {}, w.frameRect(hotUnderB).center());
        QCOMPARE(w.rootNode(), hotUnderB);
        QTest::keyClick(&w, Qt::Key_Backspace);
        QCOMPARE(w.rootNode(), b);
        QTest::keyClick(&w, Qt::Key_Escape);
        QCOMPARE(w.rootNode(), snap->tree->root());
        QVERIFY(!w.isZoomed());
        QTest::keyClick(&w, Qt::Key_Escape); // nothing left to go back to
        QCOMPARE(w.rootNode(), snap->tree->root());

        // Clicking an ancestor row zooms out to it; Home resets.
        QTest::mouseClick(&w, Qt::LeftButton, {}, w.frameRect(hotUnderB).center());
        QCOMPARE(w.rootNode(), hotUnderB);
        const NodeId main = findPath(*snap, { "main" });
        QTest::mouseClick(&w, Qt::LeftButton, {}, w.frameRect(main).center());
        QCOMPARE(w.rootNode(), main);
        QTest::keyClick(&w, Qt::Key_Home);
        QCOMPARE(w.rootNode(), snap->tree->root());
    }

    void narrowFramesAreMerged()
    {
        ProfileBuilder builder;
        builder.add({ "main", "big" }, 3000);
        for (int i = 0; i < 3000; ++i)
            builder.add({ "main", "tiny" + std::to_string(i), "leaf" }, 1);
        const auto snap = builder.snapshot();
        ui::FlameGraphWidget w;
        w.resize(400, 200);
        w.setSnapshot(snap);
        // 3000 frames of 1/6000 of the width each (1/15 px) are one merged frame, not descended into.
        QVERIFY(w.hitAt(QPoint(1, 1)).row < 0); // lays out for the current width
        const auto row = w.painter().flameLayout().row(2);
        QCOMPARE(row.size(), size_t(2));
        QCOMPARE(w.painter().rowCount(), 3);
        const int rowH = w.painter().rowHeight();
        const ui::FlameGraphPainter::Hit hit = w.hitAt(QPoint(300, w.height() - 2 * rowH - rowH / 2));
        QVERIFY(hit.valid());
        QVERIFY(!hit.node.valid());
        QCOMPARE(hit.merged, 3000u);
        QCOMPARE(hit.value, 3000);
        QVERIFY2(
            w.toolTipAt(QPoint(300, w.height() - 2 * rowH - rowH / 2)).contains(QStringLiteral("3000 small frames")),
            qPrintable(w.toolTipAt(QPoint(300, w.height() - 2 * rowH - rowH / 2))));
        // Wide enough to show them, they come back.
        w.resize(12000, 200);
        QVERIFY(w.hitAt(QPoint(1, 1)).row < 0);
        QVERIFY2(w.painter().flameLayout().row(2).size() > 3000,
            qPrintable(
                QStringLiteral("%1 frames at width %2").arg(w.painter().flameLayout().row(2).size()).arg(w.width())));
    }

    void paintsOnlyTheExposedRows()
    {
        const auto snap = smallProfile();
        ui::FlameGraphPainter painter;
        painter.setSnapshot(snap);
        painter.layout(600);
        const int rowH = painter.rowHeight();
        QImage image(600, 5 * rowH, QImage::Format_RGB32);
        image.fill(Qt::magenta);
        const QRect area = image.rect();
        const QRect row2(0, area.bottom() + 1 - 3 * rowH, 600, rowH); // the a/b row
        {
            QPainter p(&image);
            painter.paint(p, area, row2.adjusted(200, 2, -300, -2), QPalette());
        }
        const int yRoot = area.bottom() - rowH / 2;
        const int yRow2 = row2.center().y();
        const int yRow3 = row2.top() - rowH / 2;
        QCOMPARE(image.pixelColor(300, yRoot), QColor(Qt::magenta)); // root row: not exposed
        QCOMPARE(image.pixelColor(300, yRow3), QColor(Qt::magenta));
        QCOMPARE(image.pixelColor(300, yRow2), ui::FlameGraphPainter::frameColor("a", true, false));
        // b (from 60%) is outside the exposed columns [200, 300): not painted.
        QCOMPARE(image.pixelColor(500, yRow2), QColor(Qt::magenta));
    }

    void followsADarkPalette()
    {
        const auto snap = smallProfile();
        ui::FlameGraphWidget w;
        w.resize(800, 300);
        w.setSnapshot(snap);
        const QRect r = w.frameRect(findPath(*snap, { "main", "a", "hot" }));
        const QColor light = w.grab().toImage().pixelColor(r.right() - 10, r.center().y());
        w.setPalette(darkPalette());
        const QImage image = w.grab().toImage();
        QCOMPARE(image.pixelColor(5, 5), QColor(30, 30, 33));
        const QColor dark = image.pixelColor(r.right() - 10, r.center().y());
        QCOMPARE(dark, ui::FlameGraphPainter::frameColor("hot", true, true));
        QVERIFY(dark.value() < light.value());
        // The label is still there, in a color that stands out from the frame.
        int text = 0;
        for (int y = r.top(); y < r.bottom(); ++y)
            for (int x = r.left(); x < r.left() + 40; ++x)
                text += qAbs(qGray(image.pixel(x, y)) - qGray(dark.rgb())) > 80;
        QVERIFY(text > 10);
    }

    void unsymbolizedFramesAreGrey()
    {
        ProfileBuilder builder;
        builder.add({ "main", "@401234" }, 10);
        builder.add({ "main", "work" }, 10);
        const auto snap = builder.snapshot();
        ui::FlameGraphWidget w;
        w.resize(600, 200);
        w.setSnapshot(snap);
        NodeId unsym;
        for (NodeId c : snap->tree->children(findPath(*snap, { "main" })))
            if (!snap->symbols->symbol(snap->tree->node(c).symbol).symbolized)
                unsym = c;
        QVERIFY(unsym.valid());
        QCOMPARE(w.label(unsym), QStringLiteral("demo+0x1234"));
        const QRect r = w.frameRect(unsym);
        const QColor c = w.grab().toImage().pixelColor(r.right() - 5, r.center().y());
        QCOMPARE(c, ui::FlameGraphPainter::frameColor("demo+0x1234", false, false));
        QVERIFY(c.hsvSaturation() < 60);
        const QString tip = w.toolTipAt(r.center());
        QVERIFY2(
            tip.contains(QStringLiteral("not symbolized")) && tip.contains(QStringLiteral("in demo")), qPrintable(tip));
    }

    void realProfile()
    {
        auto loaded = ui::loadSnapshot(fixtures::goCpuProfile);
        QVERIFY2(loaded, loaded ? "" : loaded.error().toString().c_str());
        const auto snap = loaded.value();
        QCOMPARE(snap->typeName(), std::string_view("cpu"));
        ui::FlameGraphWidget w;
        w.resize(1200, 700);
        w.setSnapshot(snap);
        const QImage image = w.grab().toImage();
        const int rowH = w.painter().rowHeight();
        const int y = w.height() - rowH / 2 - 1;
        const QColor root = image.pixelColor(600, y);
        for (int x = 40; x < 1195; x += 13)
            QCOMPARE(image.pixelColor(x, y), root);

        // The hottest function by flat time (pprof's first -top line) is drawn, labelled and
        // found where it is drawn.
        const auto top = model::topFunctions(*snap->profile, *snap->symbols, snap->sampleType);
        QVERIFY(!top.empty());
        const model::SymbolId hottest = top.front().symbol;
        NodeId best;
        for (size_t i = 1; i < snap->tree->size(); ++i) {
            const NodeId n(i);
            if (snap->tree->node(n).symbol == hottest
                && (!best.valid() || snap->tree->node(n).total > snap->tree->node(best).total))
                best = n;
        }
        QVERIFY(best.valid());
        const QRect r = w.frameRect(best);
        QVERIFY2(r.width() > 20, qPrintable(QString::number(r.width())));
        QCOMPARE(w.nodeAt(r.center()), best);
        const QString name = QString::fromStdString(snap->symbols->displayName(hottest));
        QCOMPARE(w.label(best), name);
        QVERIFY(w.toolTipAt(r.center()).contains(name.toHtmlEscaped()));
        QVERIFY(darkPixels(image, QRect(r.left(), r.top(), qMin(40, r.width()), r.height() - 1)) > 5);
        // The widget fits every row of this profile.
        QVERIFY(w.minimumSizeHint().height() == w.painter().contentHeight());
    }

    // Several files opened at once (File › Open with several chosen, a drop of several) are one
    // profile, merged as `go tool pprof a b` merges them; a file that does not merge (a heap
    // profile with CPU ones) is named in the failure, and the profile shown stays.
    void mainWindowMergesSeveralFiles()
    {
        ui::MainWindow window;
        window.setErrorDialogsEnabled(false);
        window.resize(1000, 700);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QSignalSpy finished(&window, &ui::MainWindow::loadFinished);
        QSignalSpy failed(&window, &ui::MainWindow::loadFailed);
        const QString cpu = QString::fromUtf8(fixtures::goCpuProfile);
        const QString demo = QString::fromUtf8(fixtures::demoProfile);
        const QString heap = QString::fromUtf8(fixtures::goHeapProfile);
        const auto total = [](const QString& path) {
            auto p = model::loadProfile(path.toStdString());
            return p ? p->totalValue(p->defaultSampleType) : -1;
        };

        window.openFiles({ cpu, demo });
        QVERIFY(finished.wait(60000));
        QCOMPARE(finished.last().at(0).toString(), QFileInfo(cpu).absoluteFilePath());
        const auto snap = window.flameGraph()->snapshot();
        QVERIFY(snap);
        QVERIFY(total(cpu) > 0 && total(demo) > 0);
        QCOMPARE(snap->tree->totalValue(), total(cpu) + total(demo));
        QCOMPARE(window.windowTitle(), QStringLiteral("%1 and 1 more \u2014 symflame").arg(QFileInfo(cpu).fileName()));
        QVERIFY(ui::MainWindow::recentFiles().contains(QFileInfo(cpu).absoluteFilePath()));
        QVERIFY(ui::MainWindow::recentFiles().contains(QFileInfo(demo).absoluteFilePath()));

        window.openFiles({ cpu, heap });
        QVERIFY(failed.wait(60000));
        QCOMPARE(failed.last().at(0).toString(), QFileInfo(heap).absoluteFilePath());
        QVERIFY2(failed.last().at(1).toString().startsWith(QStringLiteral("cannot merge it with ")),
            qPrintable(failed.last().at(1).toString()));
        QCOMPARE(window.flameGraph()->snapshot(), snap);
        QTRY_VERIFY(!window.isLoading());
    }

    void mainWindowLoadsInTheBackground()
    {
        ui::MainWindow window;
        window.setErrorDialogsEnabled(false);
        window.resize(1000, 700);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QSignalSpy finished(&window, &ui::MainWindow::loadFinished);
        QSignalSpy failed(&window, &ui::MainWindow::loadFailed);

        const QString cpu = QString::fromUtf8(fixtures::goCpuProfile);
        window.openFile(cpu);
        QVERIFY(window.isLoading());
        QVERIFY(finished.wait(30000));
        QCOMPARE(finished.last().at(0).toString(), cpu);
        QVERIFY(!window.isLoading());
        QVERIFY(window.windowTitle().startsWith(QStringLiteral("go-cpu.pb.gz")));
        QVERIFY(window.flameGraph()->snapshot());
        QCOMPARE(window.flameGraph()->snapshot()->typeName(), std::string_view("cpu"));
        QVERIFY(ui::MainWindow::recentFiles().contains(cpu));
        QMenu* recent = nullptr;
        for (QMenu* m : window.findChildren<QMenu*>())
            if (m->title() == QStringLiteral("Open &Recent"))
                recent = m;
        QVERIFY(recent && recent->isEnabled());
        QVERIFY(recent->actions().first()->text().endsWith(QStringLiteral("go-cpu.pb.gz")));

        // Two sample types: the chooser offers both; switching rebuilds the tree.
        QComboBox* types = window.findChild<QComboBox*>();
        QVERIFY(types);
        QCOMPARE(types->count(), 2);
        QTRY_VERIFY(types->isVisible()); // the tool bar lays itself out later
        emit types->activated(0);
        QVERIFY(finished.wait(30000));
        QCOMPARE(window.flameGraph()->snapshot()->typeName(), std::string_view("samples"));

        // A bad file is reported and the window keeps what it showed.
        QTemporaryDir dir;
        const QString bad = dir.filePath(QStringLiteral("garbage.pb.gz"));
        {
            QFile f(bad);
            QVERIFY(f.open(QIODevice::WriteOnly));
            static const char garbage[] = "\x1f\x8b\x08\x00garbage that is no gzip stream";
            f.write(garbage, sizeof garbage - 1);
        }
        const auto shown = window.flameGraph()->snapshot();
        window.openFile(bad);
        QVERIFY(failed.wait(30000));
        QCOMPARE(failed.last().at(0).toString(), bad);
        QVERIFY(!failed.last().at(1).toString().isEmpty());
        QCOMPARE(window.flameGraph()->snapshot(), shown);
        QVERIFY(window.windowTitle().startsWith(QStringLiteral("go-cpu.pb.gz")));
        window.openFile(dir.filePath(QStringLiteral("missing.pb.gz")));
        QVERIFY(failed.wait(30000));
        QVERIFY2(failed.last().at(1).toString().contains(QStringLiteral("no such file")),
            qPrintable(failed.last().at(1).toString()));

        // A newer load supersedes an older one: only the newer result arrives.
        finished.clear();
        const QString heap = QString::fromUtf8(fixtures::goHeapProfile);
        window.openFile(cpu);
        window.openFile(heap);
        QVERIFY(finished.wait(30000));
        QTest::qWait(300);
        QCOMPARE(finished.count(), 1);
        QCOMPARE(finished.last().at(0).toString(), heap);
        QCOMPARE(window.currentFile(), heap);
        QCOMPARE(types->count(), 4);

        // A dropped file is opened.
        {
            QMimeData mime;
            mime.setUrls({ QUrl::fromLocalFile(cpu) });
            QDragEnterEvent enter(QPoint(100, 100), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
            QApplication::sendEvent(&window, &enter);
            QVERIFY(enter.isAccepted());
            QDropEvent drop(QPointF(100, 100), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
            QApplication::sendEvent(&window, &drop);
            QVERIFY(window.isLoading());
            QVERIFY(finished.wait(30000));
            QCOMPARE(window.currentFile(), cpu);
        }

        // Cancel keeps the current profile.
        finished.clear();
        const auto shownBefore = window.flameGraph()->snapshot();
        window.openFile(heap);
        QPushButton* cancel = nullptr;
        for (QPushButton* b : window.findChildren<QPushButton*>())
            if (b->text() == QStringLiteral("Cancel"))
                cancel = b;
        QVERIFY(cancel && cancel->isVisible());
        QTest::mouseClick(cancel, Qt::LeftButton);
        QVERIFY(!window.isLoading());
        QVERIFY(!cancel->isVisible());
        QTest::qWait(500);
        QCOMPARE(finished.count(), 0);
        QCOMPARE(window.flameGraph()->snapshot(), shownBefore);
        QCOMPARE(window.currentFile(), cpu);
    }
};

QTEST_MAIN(TestFlameGraphWidget)
#include "tst_flamegraphwidget.moc"
