// The main window on an OTLP file of three profiles: the "Profile:" choice lists them (service,
// executable, sample type, samples) after "All 3 profiles, merged", and choosing one loads it;
// on a whole-system capture, "Group by:" (process by default, thread, nothing). Screenshots (the
// list open, the capture by process and by thread) are saved to /tmp/otlp-shots.
#include "ui/binariesmodel.h"
#include "ui/binariespanel.h"
#include "ui/flamegraphwidget.h"
#include "ui/mainwindow.h"
#include "ui/timelinewidget.h"
#include "ui/profilesnapshot.h"

#include "model/analysis/calltree.h"
#include "model/analysis/labelview.h"
#include "model/analysis/symboltable.h"

#include <QAbstractItemView>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QToolButton>
#include <QTreeWidget>
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
        // The snapshot knows what it was read from (File > Save Symbolized Profile As proposes
        // OTLP for it, as `symflame symbolize` writes it).
        QCOMPARE(window.flameGraph()->snapshot()->format, model::ProfileFormat::Otlp);

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
        QCOMPARE(snap->format, model::ProfileFormat::Otlp);
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
        QCOMPARE(choice->count(), 0);
        QCOMPARE(window.flameGraph()->snapshot()->format, model::ProfileFormat::Pprof);
        QTRY_VERIFY(!choice->isVisible()); // the tool bar lays its widgets out in the event loop
    }

    // A whole-system capture opens merged and grouped by process: the group frames (kind
    // Label) at the root, one per executable, then per pid. "Group by" switches to threads
    // (three levels) and back to nothing (no group frames); each tree totals the same.
    void groupBy()
    {
        ui::MainWindow window;
        window.setErrorDialogsEnabled(false);
        window.resize(1366, 740);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QSignalSpy finished(&window, &ui::MainWindow::loadFinished);
        QSignalSpy symbolized(&window, &ui::MainWindow::symbolizationFinished);
        window.openFile(QStringLiteral(SYMFLAME_OTLP_DIR "/capture-v1.10.pb"));
        QVERIFY(finished.wait(30000));
        if (symbolized.isEmpty())
            QVERIFY(symbolized.wait(30000));

        auto* groupBy = window.findChild<QComboBox*>(QStringLiteral("groupByChoice"));
        QVERIFY(groupBy);
        QVERIFY(groupBy->isVisible());
        QCOMPARE(groupBy->currentText(), QStringLiteral("Process"));
        const auto groupDepth = [&] {
            // How many levels of group frames start every stack.
            const auto snap = window.flameGraph()->snapshot();
            const model::CallTree& tree = *snap->tree;
            const model::Profile& p = *snap->profile;
            int depth = 0;
            std::vector<model::NodeId> level { tree.root() };
            while (true) {
                std::vector<model::NodeId> next;
                bool allLabels = true;
                for (model::NodeId n : level)
                    for (model::NodeId c : tree.children(n)) {
                        const model::Symbol& sym = snap->symbols->symbol(tree.node(c).symbol);
                        allLabels = allLabels && p.locations[sym.exemplar.index()].kind == model::FrameKind::Label;
                        next.push_back(c);
                    }
                if (next.empty() || !allLabels)
                    return depth;
                ++depth;
                level = std::move(next);
            }
        };
        const int64_t total = window.flameGraph()->snapshot()->tree->totalValue();
        // What the binaries panel says of each binary, which no grouping may change.
        auto* binaries = window.findChild<ui::BinariesPanel*>();
        QVERIFY(binaries);
        const auto states = [&] {
            QStringList out;
            for (const auto& row : binaries->model()->rows())
                out << QString::fromStdString(row.path + " " + row.detail) + " " + QString::number(int(row.state));
            out.sort();
            return out;
        };
        const QStringList before = states();
        QVERIFY(before.size() >= 6);
        QCOMPARE(groupDepth(), 2);
        QCOMPARE(window.flameGraph()->snapshot()->tree->children(window.flameGraph()->snapshot()->tree->root()).size(),
            size_t(4)); // firefox, Xorg, python3, postgres
        QDir().mkpath(QStringLiteral("/tmp/otlp-shots"));
        window.grab().save(QStringLiteral("/tmp/otlp-shots/capture-by-process.png"));

        const int thread = groupBy->findText(QStringLiteral("Thread"));
        QVERIFY(thread > 0);
        emit groupBy->activated(thread);
        QVERIFY(finished.wait(30000));
        QCOMPARE(groupDepth(), 3);
        QCOMPARE(window.flameGraph()->snapshot()->tree->totalValue(), total);
        QCOMPARE(states(), before);
        QCOMPARE(groupBy->currentText(), QStringLiteral("Thread"));
        window.grab().save(QStringLiteral("/tmp/otlp-shots/capture-by-thread.png"));

        emit groupBy->activated(groupBy->findText(QStringLiteral("Nothing")));
        QVERIFY(finished.wait(30000));
        QCOMPARE(groupDepth(), 0);
        QCOMPARE(window.flameGraph()->snapshot()->tree->totalValue(), total);
        QVERIFY(window.flameGraph()->snapshot()->view.labels.empty());
        QCOMPARE(states(), before);

        // The labels panel: double-clicking a value keeps only its samples (a chip says so);
        // the chip's button removes the filter again.
        auto* labels = window.findChild<QTreeWidget*>(QStringLiteral("labelsTree"));
        QVERIFY(labels);
        QTRY_VERIFY(labels->topLevelItemCount() > 0);
        QTreeWidgetItem* exe = nullptr;
        for (int i = 0; i < labels->topLevelItemCount(); ++i)
            if (labels->topLevelItem(i)->text(0) == QLatin1String("process.executable.name"))
                exe = labels->topLevelItem(i);
        QVERIFY(exe);
        QTreeWidgetItem* python = nullptr;
        for (int i = 0; i < exe->childCount(); ++i)
            if (exe->child(i)->text(0) == QLatin1String("python3"))
                python = exe->child(i);
        QVERIFY(python);
        int64_t pythonTotal = 0;
        {
            const auto snap = window.flameGraph()->snapshot();
            const model::Profile& p = *snap->profile;
            for (size_t i = 0; i < p.sampleCount(); ++i)
                if (model::labelValueText(p, p.sampleLabels(i), "process.executable.name") == "python3")
                    pythonTotal += p.value(i, snap->sampleType);
        }
        QVERIFY(pythonTotal > 0 && pythonTotal < total);
        emit labels->itemDoubleClicked(python, 0);
        QVERIFY(finished.wait(30000));
        QCOMPARE(window.flameGraph()->snapshot()->tree->totalValue(), pythonTotal);
        QCOMPARE(states(), before);
        QToolButton* chip = nullptr;
        QTRY_VERIFY((chip = window.findChild<QToolButton*>(QStringLiteral("labelFilterChip"))) != nullptr);
        QCOMPARE(chip->text(), QStringLiteral("only process.executable.name = python3  ✕"));
        labels->parentWidget()->parentWidget()->raise();
        window.findChild<QDockWidget*>(QStringLiteral("labelsDock"))->raise();
        QTest::qWait(100);
        window.grab().save(QStringLiteral("/tmp/otlp-shots/capture-only-python3.png"));
        chip->click();
        QVERIFY(finished.wait(30000));
        QCOMPARE(window.flameGraph()->snapshot()->tree->totalValue(), total);
        QVERIFY(window.flameGraph()->snapshot()->view.labels.focus.empty());

        // The timeline: samples over time; dragging from 20% to 60% of its width keeps exactly
        // the samples whose timestamps fall in that range (counted here); its chip clears it.
        emit groupBy->activated(groupBy->findText(QStringLiteral("Process")));
        QVERIFY(finished.wait(30000));
        auto* timeline = window.findChild<ui::TimelineWidget*>();
        QVERIFY(timeline);
        QTRY_VERIFY(timeline->isVisible());
        QTRY_VERIFY(timeline->histogram().buckets > 0);
        QTRY_COMPARE(timeline->histogram().groups.size(), size_t(4)); // the executables
        int64_t histogramTotal = 0;
        for (int64_t v : timeline->histogram().values)
            histogramTotal += v;
        QCOMPARE(histogramTotal, total);
        const int x1 = timeline->width() / 5, x2 = timeline->width() * 3 / 5, y = timeline->height() / 2;
        const int64_t from = timeline->timeAt(x1), to = timeline->timeAt(x2);
        int64_t inRange = 0;
        {
            const auto snap = window.flameGraph()->snapshot();
            const model::Profile& p = *snap->source;
            for (size_t i = 0; i < p.sampleCount(); ++i)
                if (p.sampleTimestamps[i] >= from && p.sampleTimestamps[i] < to)
                    inRange += p.value(i, snap->sampleType);
        }
        QVERIFY(inRange > 0 && inRange < total);
        QSignalSpy chosen(timeline, &ui::TimelineWidget::timeRangeChosen);
        QTest::mousePress(timeline, Qt::LeftButton, {}, QPoint(x1, y));
        QTest::mouseMove(timeline, QPoint((x1 + x2) / 2, y));
        QTest::mouseMove(timeline, QPoint(x2, y));
        QTest::mouseRelease(timeline, Qt::LeftButton, {}, QPoint(x2, y));
        QCOMPARE(chosen.size(), 1);
        QVERIFY(finished.wait(30000));
        QCOMPARE(window.flameGraph()->snapshot()->tree->totalValue(), inRange);
        QCOMPARE(states(), before);
        QToolButton* timeChip = nullptr;
        QTRY_VERIFY((timeChip = window.findChild<QToolButton*>(QStringLiteral("timeRangeChip"))) != nullptr);
        QVERIFY(timeChip->text().startsWith(QStringLiteral("time ")));
        QTest::qWait(100);
        window.grab().save(QStringLiteral("/tmp/otlp-shots/capture-time-range.png"));
        timeChip->click();
        QVERIFY(finished.wait(30000));
        QCOMPARE(window.flameGraph()->snapshot()->tree->totalValue(), total);

        // A profile without timestamps has no timeline.
        window.openFile(QStringLiteral(SYMFLAME_OTLP_DIR "/scenario-cpu.pprof.pb"));
        QVERIFY(finished.wait(30000));
        QTRY_VERIFY(!timeline->isVisible());
    }
};

QTEST_MAIN(TestOtlpViewer)
#include "tst_otlpviewer.moc"
