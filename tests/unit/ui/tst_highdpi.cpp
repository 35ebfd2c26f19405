// The flame graph on a high-DPI screen: with QT_SCALE_FACTOR=2 (set before the application
// starts) the window's pixels are twice its logical size, drawn at that resolution rather than
// scaled up, and a click at a frame's logical position still selects that frame.
#include "calltreetesthelpers.h"
#include "ui/flamegraphwidget.h"
#include "ui/profilesnapshot.h"

#include <QApplication>
#include <QDir>
#include <QImage>
#include <QPixmap>
#include <QTest>

using namespace symflame;
using namespace symflame::model;
using symflame::testing::profileFromFolded;

class TestHighDpi : public QObject {
    Q_OBJECT
private slots:
    void drawsAtDevicePixelsAndHitTests()
    {
        QCOMPARE(qApp->devicePixelRatio(), 2.0);
        ui::FlameGraphWidget w;
        w.resize(600, 200);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QCOMPARE(w.devicePixelRatio(), 2.0);
        auto snap = ui::makeSnapshot(std::make_shared<const Profile>(profileFromFolded(
                                         "main;alpha;leaf_one 50\nmain;beta;leaf_two 30\nmain;gamma 20\n")),
            0);
        QVERIFY(snap.ok());
        w.setSnapshot(snap.value());
        const QPixmap shot = w.grab();
        QCOMPARE(shot.devicePixelRatio(), 2.0);
        QCOMPARE(shot.size(), QSize(1200, 400));
        const QImage image = shot.toImage().convertToFormat(QImage::Format_RGB32);
        QDir().mkpath(QStringLiteral("/tmp/viewer-shots"));
        image.save(QStringLiteral("/tmp/viewer-shots/highdpi.png"));

        // Drawn at device resolution: a picture drawn at 1x and scaled up would have every
        // 2x2 block of one color; text and frame edges at 2x leave many that are not.
        int mixed = 0;
        for (int y = 0; y + 1 < image.height(); y += 2)
            for (int x = 0; x + 1 < image.width(); x += 2) {
                const QRgb c = image.pixel(x, y);
                if (image.pixel(x + 1, y) != c || image.pixel(x, y + 1) != c || image.pixel(x + 1, y + 1) != c)
                    ++mixed;
            }
        QVERIFY2(mixed > 100, qPrintable(QString::number(mixed)));

        // Every frame: hit testing at its logical centre finds it, it lies inside the device
        // picture, and a real click near its left edge (through the scaled event path) selects it.
        const CallTree& tree = *snap.value()->tree;
        for (uint32_t i = 1; i < tree.size(); ++i) {
            const NodeId node(i);
            const QRect r = w.frameRect(node);
            QVERIFY(!r.isEmpty());
            QCOMPARE(w.nodeAt(r.center()), node);
            QVERIFY2(r.right() * 2 < image.width() + 2 && r.bottom() * 2 < image.height() + 2,
                qPrintable(QStringLiteral("frame %1 outside the picture").arg(i)));
            QTest::mouseClick(&w, Qt::LeftButton, {}, QPoint(r.left() + 2, r.center().y()));
            QCOMPARE(w.selected(), node);
            w.resetView();
        }
    }
};

int main(int argc, char** argv)
{
    qputenv("QT_SCALE_FACTOR", "2");
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    TestHighDpi test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_highdpi.moc"
