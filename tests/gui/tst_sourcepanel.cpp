// The Source and Disassembly panel on real profiles: the gperftools C++ fixture symbolized here
// (its source found where the build recorded it) and the inlinetwo fixture (recorded as
// /nonexistent/..., found only through a source directory). The content's costs against the
// profile's own per-line and per-instruction counts, the hottest line selected with its
// instructions, selection going both ways, the missing-source state (every path tried, costs by
// line, the Locate button), the DWARF 5 MD5 check (the clang-built dwarf5md5 fixture), and in the main window the View action opening the dock on the
// selected frame. Screenshots: SYMFLAME_TEST_BINARY_DIR/source-panel*.png.
#include "fixtures/fixturepaths.h"

#include "model/io/profileio.h"
#include "symbolize/pass/sourcecheck.h"
#include "symbolize/pass/symbolizationpass.h"
#include "ui/flamegraphwidget.h"
#include "ui/mainwindow.h"
#include "ui/sourcepanel.h"

#include <QAction>
#include <QDockWidget>
#include <QFileInfo>
#include <QLabel>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace symflame;
using namespace symflame::ui;

namespace {

model::Profile symbolized(const char* path)
{
    auto p = model::loadProfile(path);
    if (!p)
        return {};
    symbolize::SymbolizeOptions o;
    o.locator.useDefaultDebugDir = true;
    o.debuginfod.offline = true;
    (void)symbolize::symbolizeProfile(*p, o);
    return std::move(*p);
}

int64_t lineOfRow(const QTableView* view, int row)
{
    return view->model()->index(row, 0).data().toString().toLongLong();
}

QString screenshotPath(const QString& name)
{
    return QStringLiteral(SYMFLAME_TEST_BINARY_DIR "/") + name;
}

} // namespace

class TestSourcePanel : public QObject {
    Q_OBJECT

    std::shared_ptr<const model::Profile> m_cxx;
    std::shared_ptr<const model::Profile> m_inlineTwo;
    size_t m_cpu = 0;
    const std::string m_sieve = "(anonymous namespace)::sieve(unsigned long)";

private slots:
    void initTestCase()
    {
        m_cxx = std::make_shared<const model::Profile>(symbolized(fixtures::cxxUnsymbolizedProfile));
        m_inlineTwo = std::make_shared<const model::Profile>(symbolized(fixtures::inlineTwoProfile));
        QVERIFY(!m_cxx->locations.empty() && !m_inlineTwo->locations.empty());
        const int cpu = m_cxx->findSampleType("cpu");
        QVERIFY(cpu >= 0);
        m_cpu = size_t(cpu);
    }

    void contentAndSelection()
    {
        const SourceContent c = loadSourceContent(*m_cxx, m_cpu, m_sieve, {}, {});
        QVERIFY2(c.error.empty(), c.error.c_str());
        QVERIFY(c.lines);
        QVERIFY2(c.file.found(), c.file.tried.empty() ? "" : c.file.tried.front().c_str());
        QCOMPARE(QString::fromStdString(c.file.path), QString::fromUtf8(fixtures::cxxMainSource));
        QVERIFY(!c.disassembly.empty());
        const symbolize::DisassembledFunction& f = c.disassembly.front();
        QCOMPARE(f.binary, std::string(fixtures::cxxBinary));
        // Every sample whose leaf is in the function's code is on one of its instructions; the
        // function's own lines hold those whose innermost frame is the function itself.
        int64_t instructionsFlat = 0;
        for (const auto& a : f.instructions)
            instructionsFlat += a.flat;
        QVERIFY(instructionsFlat >= c.lines->flat && c.lines->flat > 0);

        SourcePanel panel;
        panel.resize(1400, 500);
        QSignalSpy shown(&panel, &SourcePanel::contentShown);
        panel.setContent(std::make_shared<const SourceContent>(c));
        QCOMPARE(shown.count(), 1);
        // The hottest line is current, and exactly its instructions (of its file) are selected.
        const model::LineCost* hottest = nullptr;
        for (const model::LineCost& l : c.lines->lines)
            if (!hottest || l.cum > hottest->cum)
                hottest = &l;
        QVERIFY(hottest);
        QTableView* source = panel.sourceView();
        QTableView* asmView = panel.instructionsView();
        QCOMPARE(lineOfRow(source, source->currentIndex().row()), hottest->line);
        const QModelIndexList selected = asmView->selectionModel()->selectedRows();
        QVERIFY(!selected.isEmpty());
        // The line's own instructions and those of callees inlined at it.
        const std::string callSite = " " + c.lines->file + ":" + std::to_string(hottest->line);
        int expected = 0;
        for (const auto& a : f.instructions)
            expected += (int64_t(a.line) == hottest->line && a.file == c.lines->file)
                || std::any_of(a.inlineChain.begin(), a.inlineChain.end(), [&](const std::string& s) { return s.ends_with(callSite); });
        QCOMPARE(selected.size(), expected);
        // An instruction of another line makes that line current, sampled or not (a short
        // profile may have every sample of the function on one line).
        int other = -1;
        for (size_t i = 0; i < f.instructions.size(); ++i)
            if (f.instructions[i].file == c.lines->file && f.instructions[i].line != 0
                && int64_t(f.instructions[i].line) != hottest->line)
                other = int(i);
        QVERIFY(other >= 0);
        asmView->setCurrentIndex(asmView->model()->index(other, 0));
        QCOMPARE(lineOfRow(source, source->currentIndex().row()), int64_t(f.instructions[size_t(other)].line));
        // The Self and Total columns add up to the content's per-line costs.
        int64_t flat = 0;
        for (const model::LineCost& l : c.lines->lines)
            flat += l.flat;
        QCOMPARE(flat, c.lines->flatSum);
        const QString header = panel.findChild<QLabel*>(QStringLiteral("sourceHeader"))->text();
        QVERIFY2(!header.contains(QStringLiteral("source not found")), qPrintable(header));
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        panel.grab().save(screenshotPath(QStringLiteral("source-panel.png")));
    }

    void missingSource()
    {
        const std::string callerA = "(anonymous namespace)::callerA(unsigned long)";
        const int cpu = m_inlineTwo->findSampleType("cpu");
        QVERIFY(cpu >= 0);
        const SourceContent missing = loadSourceContent(*m_inlineTwo, size_t(cpu), callerA, {}, {});
        QVERIFY(missing.lines);
        QVERIFY(!missing.file.found());
        QCOMPARE(QString::fromStdString(missing.file.tried.front()), QStringLiteral("/nonexistent/inlinetwo/main.cpp: not found"));
        SourcePanel panel;
        panel.resize(1200, 400);
        panel.setContent(std::make_shared<const SourceContent>(missing));
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        auto* locate = panel.findChild<QPushButton*>(QStringLiteral("locateSourceButton"));
        QVERIFY(locate && locate->isVisible());
        const QString header = panel.findChild<QLabel*>(QStringLiteral("sourceHeader"))->text();
        QVERIFY2(header.contains(QStringLiteral("source not found: /nonexistent/inlinetwo/main.cpp")), qPrintable(header));
        // The lines with a cost, by number, without text.
        QTableView* source = panel.sourceView();
        int costed = 0;
        for (const model::LineCost& l : missing.lines->lines)
            costed += l.line > 0;
        QCOMPARE(source->model()->rowCount(), costed);
        QVERIFY(source->model()->index(0, 3).data().toString().isEmpty());
        panel.grab().save(screenshotPath(QStringLiteral("source-panel-missing.png")));

        // Found through a source directory: the function's lines with their text.
        symbolize::SourceSearch search;
        search.sourceDirs = { fixtures::inlineTwoSourceDir };
        const SourceContent found = loadSourceContent(*m_inlineTwo, size_t(cpu), callerA, search, {});
        QVERIFY(found.file.found());
        panel.setContent(std::make_shared<const SourceContent>(found));
        QVERIFY(!locate->isVisible());
        QVERIFY(source->model()->rowCount() > costed);
        const int current = source->currentIndex().row();
        QVERIFY2(source->model()->index(current, 3).data().toString().contains(QStringLiteral("scramble(h + i)")),
            qPrintable(source->model()->index(current, 3).data().toString()));
        // The call line selects the inlined callee's instructions (scramble's lines) with its own.
        QStringList lines;
        for (const QModelIndex& i : panel.instructionsView()->selectionModel()->selectedRows())
            lines << panel.instructionsView()->model()->index(i.row(), 4).data().toString();
        lines.removeDuplicates();
        QVERIFY2(lines.size() >= 3, qPrintable(lines.join(QLatin1Char(' '))));
        panel.grab().save(screenshotPath(QStringLiteral("source-panel-inlined.png")));
    }

    // A source file modified after the binary was built gets a warning; the one it was built
    // from does not.
    void changedSource()
    {
        const std::string callerA = "(anonymous namespace)::callerA(unsigned long)";
        const size_t cpu = size_t(m_inlineTwo->findSampleType("cpu"));
        symbolize::SourceSearch search;
        search.sourceDirs = { fixtures::inlineTwoSourceDir };
        const SourceContent original = loadSourceContent(*m_inlineTwo, cpu, callerA, search, {});
        QVERIFY(original.file.found() && !original.disassembly.empty());
        QVERIFY2(original.sourceWarning.empty(), original.sourceWarning.c_str());
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QVERIFY(QFile::copy(QString::fromUtf8(fixtures::inlineTwoSourceDir) + "/main.cpp", dir.filePath("main.cpp")));
        QFile edited(dir.filePath("main.cpp")); // touched now, after the build
        QVERIFY(edited.open(QIODevice::Append));
        edited.write("// edited\n");
        edited.close();
        search.sourceDirs = { dir.path().toStdString() };
        const SourceContent changed = loadSourceContent(*m_inlineTwo, cpu, callerA, search, {});
        QVERIFY(changed.file.found());
        QVERIFY2(changed.sourceWarning.find("was modified after inlinetwo was built") != std::string::npos,
            changed.sourceWarning.c_str());
        SourcePanel panel;
        panel.setContent(std::make_shared<const SourceContent>(changed));
        QVERIFY(panel.findChild<QLabel*>(QStringLiteral("sourceHeader"))->text().contains(QStringLiteral("was modified after")));
        // Shorter than the lines the debug info names.
        QFile cut(dir.filePath("main.cpp"));
        QVERIFY(cut.open(QIODevice::WriteOnly));
        cut.write("// nothing here\n");
        cut.close();
        const SourceContent shorter = loadSourceContent(*m_inlineTwo, cpu, callerA, search, {});
        QVERIFY2(shorter.sourceWarning.find("which has 1: it changed since the build") != std::string::npos,
            shorter.sourceWarning.c_str());
    }

    // DWARF 5 records main.c's MD5 (the clang-built dwarf5md5 fixture): the file it was built
    // from gets no warning even when touched after the build; the same file with one byte
    // changed (same size, its time put back with touch -r) gets the MD5 warning.
    void md5FromDwarf5()
    {
        const auto profile = std::make_shared<const model::Profile>(symbolized(fixtures::dwarf5Md5Profile));
        const int cpu = profile->findSampleType("cpu");
        QVERIFY(cpu >= 0);
        // The checksum is there, and is main.c's (md5sum as the oracle).
        const QString source = QString::fromUtf8(fixtures::dwarf5Md5SourceDir) + "/main.c";
        QProcess oracle;
        oracle.start(QStringLiteral("md5sum"), { source });
        QVERIFY(oracle.waitForFinished(10000));
        const QByteArray expected = oracle.readAllStandardOutput().left(32);
        QCOMPARE(expected.size(), 32);
        // At mix's code, as the panel asks (its address from the disassembly of the same binary).
        const SourceContent original = loadSourceContent(*profile, size_t(cpu), "mix", {}, {});
        QVERIFY(!original.disassembly.empty());
        const uint64_t mixAt = original.disassembly.front().start;
        const symbolize::SourceMd5Check check = symbolize::checkSourceMd5(
            fixtures::dwarf5Md5Binary, mixAt, "/nonexistent/dwarf5md5/main.c", source.toStdString());
        QVERIFY2(check.recorded, check.error.c_str());
        QCOMPARE(QByteArray::fromStdString(check.recordedMd5), expected);
        QVERIFY(check.matches);
        // gcc 12 records none: the inlinetwo fixture has no MD5 to compare.
        const SourceContent gcc = loadSourceContent(*m_inlineTwo, size_t(m_inlineTwo->findSampleType("cpu")), "(anonymous namespace)::callerA(unsigned long)", {}, {});
        QVERIFY(!gcc.disassembly.empty());
        const symbolize::SourceMd5Check none = symbolize::checkSourceMd5(fixtures::inlineTwoBinary,
            gcc.disassembly.front().start, "/nonexistent/inlinetwo/main.cpp", std::string(fixtures::inlineTwoSourceDir) + "/main.cpp");
        QVERIFY(!none.recorded);
        QVERIFY2(none.error.empty(), none.error.c_str());
        // Elsewhere in the binary than the function: no unit, nothing recorded.
        QVERIFY(!symbolize::checkSourceMd5(fixtures::dwarf5Md5Binary, 0, "/nonexistent/dwarf5md5/main.c", source.toStdString()).recorded);

        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString copy = dir.filePath("main.c");
        QVERIFY(QFile::copy(source, copy));
        // A copy made now is newer than the binary, but its MD5 matches: no warning.
        QVERIFY(QProcess::execute(QStringLiteral("touch"), { copy }) == 0);
        symbolize::SourceSearch search;
        search.sourceDirs = { dir.path().toStdString() };
        const SourceContent same = loadSourceContent(*profile, size_t(cpu), "mix", search, {});
        QVERIFY2(same.error.empty(), same.error.c_str());
        QVERIFY(same.file.found() && !same.disassembly.empty());
        QCOMPARE(QString::fromStdString(same.file.path), copy);
        QVERIFY2(same.sourceWarning.empty(), same.sourceWarning.c_str());

        // One byte changed, the size and the time of the original kept.
        QFile f(copy);
        QVERIFY(f.open(QIODevice::ReadWrite));
        QByteArray bytes = f.readAll();
        const qsizetype at = bytes.indexOf("h ^= h >> 29;");
        QVERIFY(at > 0);
        bytes[at + 11] = '8'; // >> 28
        QVERIFY(f.seek(0) && f.write(bytes) == bytes.size());
        f.close();
        QVERIFY(QProcess::execute(QStringLiteral("touch"), { QStringLiteral("-r"), source, copy }) == 0);
        QCOMPARE(QFileInfo(copy).size(), QFileInfo(source).size());
        QCOMPARE(QFileInfo(copy).lastModified(), QFileInfo(source).lastModified());
        const SourceContent changed = loadSourceContent(*profile, size_t(cpu), "mix", search, {});
        QVERIFY(changed.file.found());
        QVERIFY2(changed.sourceWarning.find("differs from the debug info's (" + expected.toStdString() + ")") != std::string::npos,
            changed.sourceWarning.c_str());
        SourcePanel panel;
        panel.resize(1200, 400);
        panel.setContent(std::make_shared<const SourceContent>(changed));
        const QString header = panel.findChild<QLabel*>(QStringLiteral("sourceHeader"))->text();
        QVERIFY2(header.contains(QStringLiteral("differs from the debug info")), qPrintable(header));
        QVERIFY2(!header.contains(QStringLiteral("source not found")), qPrintable(header));
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        panel.grab().save(screenshotPath(QStringLiteral("source-panel-md5.png")));
    }

    // In the main window: a frame selected, View > Show Source and Disassembly opens the dock.
    void fromTheMainWindow()
    {
        MainWindow window;
        window.resize(1366, 768);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QSignalSpy symbolizedSpy(&window, &MainWindow::symbolizationFinished);
        window.openFile(QString::fromUtf8(fixtures::cxxUnsymbolizedProfile));
        QVERIFY(symbolizedSpy.wait(60000));
        const auto snapshot = window.flameGraph()->snapshot();
        QVERIFY(snapshot);
        model::SymbolId sieve;
        for (size_t i = 0; i < snapshot->symbols->size(); ++i)
            if (snapshot->symbols->displayName(model::SymbolId(i)) == m_sieve)
                sieve = model::SymbolId(i);
        QVERIFY(sieve.valid());
        window.selectFunction(sieve, false);
        auto* action = window.findChild<QAction*>(QStringLiteral("showSourceAction"));
        QVERIFY(action && action->isEnabled());
        QSignalSpy shown(window.sourcePanel(), &SourcePanel::contentShown);
        action->trigger();
        QVERIFY(shown.wait(30000));
        QCOMPARE(shown.first().first().toString(), QString::fromStdString(m_sieve));
        auto* dock = window.findChild<QDockWidget*>(QStringLiteral("sourceDock"));
        QVERIFY(dock && dock->isVisible());
        QVERIFY(window.sourcePanel()->instructionsView()->model()->rowCount() > 20);
        QTest::qWait(200);
        window.grab().save(screenshotPath(QStringLiteral("source-panel-window.png")));
    }
};

QTEST_MAIN(TestSourcePanel)
#include "tst_sourcepanel.moc"
