// Missing-debuginfo triage over a profile of four binaries: one with DWARF, one stripped whose
// debug file lies in a directory added during the test, one whose local file has another build
// ID, one missing; plus [vdso]. Statuses, reasons and order (symbolize::triageBinaries), the
// table model (QAbstractItemModelTester), the panel's filter and build-ID check of a located
// file, the upload command; `symflame info`'s rows; in the main window, "Add search directory…"
// flipping the status and the flame graph's labels, and the window staying responsive while slow
// debuginfod downloads (from the fault-injecting server) run, with their bytes in the status
// bar. Screenshots: SYMFLAME_TEST_BINARY_DIR/binaries-panel.png, window-binaries-*.png,
// window-downloading.png.
#include "debuginfod/faultyhttpserver.h"
#include "dialoghelpers.h"
#include "nmsymbols.h"
#include "processhelpers.h"
#include "symfixturehelpers.h"
#include "symprofilehelpers.h"

#include "model/io/profileio.h"
#include "symbolize/pass/binarytriage.h"
#include "symbolize/pass/symbolizationpass.h"
#include "ui/binariesmodel.h"
#include "ui/binariespanel.h"
#include "ui/flamegraphwidget.h"
#include "ui/mainwindow.h"
#include "ui/symbolizesettings.h"
#include "ui/topfunctionsmodel.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QFileDialog>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QPushButton>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QLabel>
#include <QStatusBar>
#include <QRegularExpression>
#include <QSet>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTimer>
#include <QDir>
#include <QFile>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace symflame;
using namespace symflame::symbolize;
using symflame::testing::answerFileDialog;
using symflame::testing::runSymflame;

namespace {

const BinaryRow* rowNamed(const std::vector<BinaryRow>& rows, const std::string& name)
{
    for (const BinaryRow& r : rows)
        if (r.name == name)
            return &r;
    return nullptr;
}

// Functions of the unstripped binary as nm lists them (text symbols with a size).
QSet<QString> nmFunctions(const QString& binary)
{
    QSet<QString> out;
    for (const symflame::testing::NmSymbol& f : symflame::testing::nmFunctions(binary))
        if (f.type != 'i')
            out.insert(QString::fromUtf8(f.name));
    return out;
}

} // namespace

class TestBinariesPanel : public QObject {
    Q_OBJECT

    QTemporaryDir m_tmp;
    std::vector<symtest::Binary> m_bins;
    std::vector<std::string> m_paths;
    QString m_debugDir;
    std::string m_strippedId, m_mismatchFileId;

    model::Profile profile() const
    {
        model::Profile p = symtest::makeProfile(m_bins, m_paths);
        model::Mapping vdso;
        vdso.start = 0x7fff00000000;
        vdso.limit = vdso.start + 0x2000;
        vdso.file = p.strings.intern("[vdso]");
        p.mappings.push_back(vdso);
        model::Location loc;
        loc.mapping = model::MappingId(p.mappings.size() - 1);
        loc.address = vdso.start + 0x10;
        const model::LocationId l(p.locations.size());
        p.locations.push_back(loc);
        const int64_t one = 1;
        p.addSample(p.internStack(std::span(&l, 1)), std::span(&one, 1));
        return p;
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
        uint64_t base = 0x7f3000000000;
        for (const char* name : { "cxx_pie", "c_pie", "libsfshapes.so", "c_dwarf4" }) {
            auto elf = ElfFile::open(symtest::fixture(name).toStdString());
            QVERIFY(elf);
            m_bins.push_back({ name, (*elf)->buildId(), *elf, base });
            base += 0x10000000;
        }
        // 0: DWARF in place.
        m_paths.push_back(symtest::fixture("cxx_pie").toStdString());
        // 1: stripped, its debug file in a build-id directory not searched yet.
        const QString stripped = m_tmp.filePath("stripped/c_pie");
        QVERIFY(QDir().mkpath(m_tmp.filePath("stripped")));
        m_strippedId = m_bins[1].buildId;
        const QString id = QString::fromStdString(m_strippedId);
        m_debugDir = m_tmp.filePath("debug");
        QVERIFY(QDir().mkpath(m_debugDir + "/.build-id/" + id.left(2)));
        QCOMPARE(QProcess::execute("objcopy",
                     { "--only-keep-debug", symtest::fixture("c_pie"),
                         m_debugDir + "/.build-id/" + id.left(2) + "/" + id.mid(2) + ".debug" }),
            0);
        QCOMPARE(QProcess::execute("strip", { "--strip-all", symtest::fixture("c_pie"), "-o", stripped }), 0);
        m_paths.push_back(stripped.toStdString());
        // 2: the local "libsfshapes.so" is another build (c_pie's bytes).
        QVERIFY(QDir().mkpath(m_tmp.filePath("other")));
        QVERIFY(QFile::copy(symtest::fixture("cxx_nopie"), m_tmp.filePath("other/libsfshapes.so")));
        m_mismatchFileId = (*ElfFile::open(m_tmp.filePath("other/libsfshapes.so").toStdString()))->buildId();
        m_paths.push_back(m_tmp.filePath("other/libsfshapes.so").toStdString());
        // 3: missing.
        m_paths.push_back("/nonexistent/deploy/libgone.so");
    }

    void statusesAndReasons()
    {
        model::Profile p = profile();
        // Before symbolization: nothing looked up yet.
        std::vector<BinaryRow> rows = triageBinaries(p, nullptr, 0);
        QCOMPARE(rows.size(), size_t(5));
        QCOMPARE(rowNamed(rows, "cxx_pie")->state, BinaryState::NotSymbolized);
        QCOMPARE(rowNamed(rows, "[vdso]")->state, BinaryState::NotApplicable);

        SymbolizeOptions o;
        o.locator.useDefaultDebugDir = false;
        auto report = symbolizeProfile(p, o);
        QVERIFY(report);
        rows = triageBinaries(p, &*report, 0);
        const BinaryRow* dwarf = rowNamed(rows, "cxx_pie");
        const BinaryRow* stripped = rowNamed(rows, "c_pie");
        const BinaryRow* mismatch = rowNamed(rows, "libsfshapes.so");
        const BinaryRow* missing = rowNamed(rows, "libgone.so");
        QVERIFY(dwarf && stripped && mismatch && missing);
        QCOMPARE(dwarf->state, BinaryState::Symbolized);
        QCOMPARE(dwarf->source, DebugSource::Binary);
        QVERIFY(stripped->state == BinaryState::NoDebugInfo || stripped->state == BinaryState::NamesOnly);
        QCOMPARE(mismatch->state, BinaryState::BuildIdMismatch);
        QCOMPARE(mismatch->mismatchPath, m_paths[2]);
        QCOMPARE(mismatch->mismatchBuildId, m_mismatchFileId);
        QVERIFY(mismatch->detail.find(m_bins[2].buildId) != std::string::npos);
        QCOMPARE(missing->state, BinaryState::NotFound);
        QVERIFY(!missing->tried.empty());
        QVERIFY(missing->tried.front().find("/nonexistent/deploy/libgone.so") != std::string::npos);
        // Shares: one sample per location, so totals are location counts.
        QCOMPARE(uint64_t(dwarf->total), dwarf->locations);
        QCOMPARE(dwarf->self, dwarf->total);
        // Problems first, by total; the fine ones after.
        bool seenFine = false;
        for (size_t i = 0; i < rows.size(); ++i) {
            if (!isProblem(rows[i].state))
                seenFine = true;
            else
                QVERIFY2(!seenFine, rows[i].name.c_str());
            if (i > 0 && isProblem(rows[i].state) == isProblem(rows[i - 1].state))
                QVERIFY(rows[i - 1].total >= rows[i].total);
        }

        // The user adds the debug directory: the stripped binary flips to symbolized.
        model::Profile again = profile();
        o.locator.debugDirs = { m_debugDir.toStdString() };
        report = symbolizeProfile(again, o);
        QVERIFY(report);
        rows = triageBinaries(again, &*report, 0);
        QCOMPARE(rowNamed(rows, "c_pie")->state, BinaryState::Symbolized);
        QCOMPARE(rowNamed(rows, "c_pie")->source, DebugSource::BuildIdDirectory);
        QVERIFY(rowNamed(rows, "c_pie")->debugPath.find(m_debugDir.toStdString()) == 0);

        const std::string upload = uploadCommand(*rowNamed(rows, "c_pie"));
        QVERIFY(upload.rfind("parca-debuginfo upload ", 0) == 0);
        QVERIFY(upload.find(rowNamed(rows, "c_pie")->debugPath) != std::string::npos);
    }

    // A binary with DWARF one of whose addresses lies in the padding after a function (no
    // function there in the debug info or the symbol tables) is symbolized, not "lacking debug
    // info"; the detail says why one address keeps its number.
    void paddingIsNotMissingDebugInfo()
    {
        model::Profile p = symtest::makeProfile({ m_bins[0] }, { m_paths[0] });
        QVERIFY(!p.locations.empty());
        const ElfSegment* x = nullptr;
        for (const ElfSegment& seg : m_bins[0].elf->segments())
            if (seg.type == elf::PT_LOAD && (seg.flags & elf::PF_X))
                x = &seg;
        QVERIFY(x);
        const model::Mapping& m = p.mappings[0];
        auto addAt = [&](uint64_t vaddr) {
            model::Location loc;
            loc.mapping = model::MappingId(0u);
            loc.address = vaddr - x->vaddr + x->offset - m.offset + m.start;
            const model::LocationId l(p.locations.size());
            p.locations.push_back(loc);
            const int64_t one = 1;
            p.addSample(p.internStack(std::span(&l, 1)), std::span(&one, 1));
            return l.index();
        };
        // Padding: past the end of a sized function, before the next symbol.
        auto table = SymbolTable::load(m_bins[0].elf, SymbolTable::Kind::Static);
        QVERIFY(table);
        std::vector<SymbolTable::Symbol> syms(table->symbols().begin(), table->symbols().end());
        std::sort(syms.begin(), syms.end(), [](const auto& a, const auto& b) { return a.address < b.address; });
        uint64_t padding = 0;
        for (size_t i = 0; i + 1 < syms.size() && !padding; ++i)
            if (syms[i].size > 0 && syms[i].address + syms[i].size < syms[i + 1].address)
                padding = syms[i].address + syms[i].size;
        QVERIFY(padding);
        const size_t inPadding = addAt(padding);

        SymbolizeOptions o;
        o.locator.useDefaultDebugDir = false;
        auto report = symbolizeProfile(p, o);
        QVERIFY(report);
        QCOMPARE(p.locations[inPadding].status, model::FrameStatus::BinaryOnly);
        const auto rows = triageBinaries(p, &*report, 0);
        const BinaryRow* row = rowNamed(rows, "cxx_pie");
        QVERIFY(row);
        QCOMPARE(row->symbolized + 1, row->locations);
        QCOMPARE(row->state, BinaryState::Symbolized);
        QVERIFY2(row->detail.find("1 address lies outside every function it knows") != std::string::npos, row->detail.c_str());
    }

    void panelFiltersAndChecksFiles()
    {
        model::Profile p = profile();
        SymbolizeOptions o;
        o.locator.useDefaultDebugDir = false;
        auto report = symbolizeProfile(p, o);
        QVERIFY(report);
        ui::BinariesPanel panel;
        QAbstractItemModelTester tester(panel.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester proxyTester(panel.view()->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        std::vector<BinaryRow> rows = triageBinaries(p, &*report, 0);
        size_t problems = 0;
        for (const BinaryRow& r : rows)
            problems += isProblem(r.state);
        panel.setRows(rows, p.totalValue(0));
        QCOMPARE(panel.view()->model()->rowCount(), int(rows.size()));
        // Shown in triage order until the user sorts.
        for (int i = 0; i < int(rows.size()); ++i)
            QCOMPARE(panel.view()->model()->index(i, 0).data().toString(), QString::fromStdString(rows[size_t(i)].name));
        panel.setOnlyProblems(true);
        QCOMPARE(panel.view()->model()->rowCount(), int(problems));
        panel.setOnlyProblems(false);

        int mismatchRow = -1;
        for (size_t i = 0; i < panel.model()->rows().size(); ++i)
            if (panel.model()->rows()[i].name == "libsfshapes.so")
                mismatchRow = int(i);
        QVERIFY(mismatchRow >= 0);
        auto wrong = panel.checkCandidate(mismatchRow, m_tmp.filePath("other/libsfshapes.so"));
        QVERIFY(!wrong.accepted);
        QVERIFY(wrong.message.contains(QString::fromStdString(m_mismatchFileId)));
        QVERIFY(wrong.message.contains(QString::fromStdString(m_bins[2].buildId)));
        auto right = panel.checkCandidate(mismatchRow, symtest::fixture("libsfshapes.so"));
        QVERIFY2(right.accepted, qPrintable(right.message));
        QVERIFY(!right.unverified);
        auto junk = panel.checkCandidate(mismatchRow, m_tmp.filePath("stripped"));
        QVERIFY(!junk.accepted);

        panel.selectRow(mismatchRow);
        QCOMPARE(panel.currentRow(), mismatchRow);
        panel.resize(1100, 520);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        panel.grab().save(SYMFLAME_TEST_BINARY_DIR "/binaries-panel.png");
    }

    // `symflame info` prints the panel's rows: the same statuses, reasons, shares and counts as
    // triageBinaries over the same lookup, and the known facts of each of the four binaries.
    void infoPrintsTheBinaries()
    {
        const QString file = m_tmp.filePath("four.pb.gz");
        QVERIFY(model::saveProfile(profile(), file.toStdString(), model::ProfileFormat::Pprof).ok());
        int code = 0;
        const QByteArray json = runSymflame({ "info", file, "--json" }, &code);
        QCOMPARE(code, 0);
        QJsonParseError err;
        const QJsonDocument doc = QJsonDocument::fromJson(json, &err);
        QVERIFY2(err.error == QJsonParseError::NoError, qPrintable(err.errorString()));
        const QJsonArray rows = doc.object().value("binaries").toArray();
        QCOMPARE(rows.size(), 5);

        model::Profile p = profile();
        SymbolizeOptions o;
        o.debuginfod.offline = true;
        auto report = symbolizeProfile(p, o);
        QVERIFY(report);
        const std::vector<BinaryRow> expected = triageBinaries(p, &*report, 0);
        QCOMPARE(doc.object().value("binaries_total").toInteger(), p.totalValue(0));
        for (int i = 0; i < rows.size(); ++i) {
            const QJsonObject r = rows[i].toObject();
            const BinaryRow& e = expected[size_t(i)];
            QCOMPARE(r.value("name").toString().toStdString(), e.name);
            QCOMPARE(r.value("path").toString().toStdString(), e.path);
            QCOMPARE(r.value("build_id").toString().toStdString(), e.buildId);
            QCOMPARE(r.value("status").toString(), QString::fromUtf8(binaryStateName(e.state)));
            QCOMPARE(r.value("problem").toBool(), isProblem(e.state));
            QCOMPARE(r.value("reason").toString().toStdString(), e.detail);
            QCOMPARE(r.value("self").toInteger(), e.self);
            QCOMPARE(r.value("total").toInteger(), e.total);
            QCOMPARE(r.value("locations").toInteger(), qint64(e.locations));
            QCOMPARE(r.value("symbolized").toInteger(), qint64(e.symbolized));
        }
        auto row = [&](const QString& name) {
            for (const QJsonValue v : rows)
                if (v.toObject().value("name").toString() == name)
                    return v.toObject();
            return QJsonObject();
        };
        QCOMPARE(row("cxx_pie").value("status").toString(), QStringLiteral("symbolized"));
        QVERIFY(row("cxx_pie").value("locations").toInteger() > 0);
        QCOMPARE(row("cxx_pie").value("symbolized").toInteger(), row("cxx_pie").value("locations").toInteger());
        QCOMPARE(row("libgone.so").value("status").toString(), QStringLiteral("binary not found"));
        QVERIFY(row("libgone.so").value("tried").toArray().first().toString().contains("/nonexistent/deploy/libgone.so"));
        QCOMPARE(row("libsfshapes.so").value("status").toString(), QStringLiteral("build ID mismatch"));
        QCOMPARE(row("libsfshapes.so").value("mismatch_build_id").toString().toStdString(), m_mismatchFileId);
        QCOMPARE(row("libsfshapes.so").value("build_id").toString().toStdString(), m_bins[2].buildId);
        QCOMPARE(row("[vdso]").value("status").toString(), QStringLiteral("not applicable"));
        const QString strippedStatus = row("c_pie").value("status").toString();
        QVERIFY2(strippedStatus == "no debug info" || strippedStatus == "names only", qPrintable(strippedStatus));
        // Problems first.
        bool seenFine = false;
        for (const QJsonValue v : rows) {
            if (!v.toObject().value("problem").toBool())
                seenFine = true;
            else
                QVERIFY(!seenFine);
        }

        // With the debug directory the stripped binary is symbolized, from there.
        const QByteArray json2 = runSymflame({ "info", file, "--json", "--debug-dir", m_debugDir }, &code);
        QCOMPARE(code, 0);
        const QJsonArray rows2 = QJsonDocument::fromJson(json2).object().value("binaries").toArray();
        bool found = false;
        for (const QJsonValue v : rows2)
            if (v.toObject().value("name").toString() == "c_pie") {
                found = true;
                QCOMPARE(v.toObject().value("status").toString(), QStringLiteral("symbolized"));
                QVERIFY(v.toObject().value("debug_path").toString().startsWith(m_debugDir));
            }
        QVERIFY(found);

        // The text table: a line per binary with its status, shares and counts.
        const QString text = QString::fromUtf8(runSymflame({ "info", file }, &code));
        QCOMPARE(code, 0);
        QVERIFY2(text.contains(QStringLiteral("Binaries:      5, ")), qPrintable(text));
        for (const BinaryRow& e : expected) {
            const QString status = QString::fromUtf8(binaryStateName(e.state));
            bool line = false;
            for (const QString& l : text.split('\n'))
                line = line
                    || (l.contains(status) && l.endsWith(QStringLiteral("  ") + QString::fromStdString(e.name))
                        && l.contains(QStringLiteral("%1/%2").arg(e.symbolized).arg(e.locations)));
            QVERIFY2(line, qPrintable(QString::fromStdString(e.name) + "\n" + text));
            if (!e.buildId.empty())
                QVERIFY(text.contains(QString::fromStdString(e.buildId)));
        }
        QVERIFY(text.contains(QString::fromStdString(m_mismatchFileId)));
        // A bad file: one line naming it, exit 2.
        QByteArray none = runSymflame({ "info", m_tmp.filePath("missing.pb") }, &code);
        QCOMPARE(code, 2);
    }

    // In the main window: the stripped binary's row says it lacks debug info and its functions
    // are drawn as addresses; "Add search directory…" with the debug directory flips the row to
    // symbolized and the flame graph's labels to the functions nm lists for the binary.
    void guiAddDirectoryFlipsStatusAndLabels()
    {
        QStandardPaths::setTestModeEnabled(true);
        QApplication::setApplicationName(QStringLiteral("tst_binariespanel"));
        QSettings().clear();
        const QString file = m_tmp.filePath("four-gui.pb.gz");
        QVERIFY(model::saveProfile(profile(), file.toStdString(), model::ProfileFormat::Pprof).ok());

        ui::MainWindow window;
        window.setErrorDialogsEnabled(false);
        window.resize(1600, 1000);
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
        auto strippedRow = [&]() -> const BinaryRow* {
            for (const BinaryRow& r : panel->model()->rows())
                if (r.name == "c_pie")
                    return &r;
            return nullptr;
        };
        QTRY_VERIFY(strippedRow());
        QVERIFY(strippedRow()->state == BinaryState::NoDebugInfo || strippedRow()->state == BinaryState::NamesOnly);
        // Another view of the same profile (a rule, then without it) keeps the pass's report and
        // starts no new pass over what is still unsymbolized.
        const BinaryState reported = strippedRow()->state;
        // Every row as the pass reported it: name, state, where its debug info came from.
        auto provenance = [&](bool withStripped) {
            QStringList out;
            for (const BinaryRow& r : panel->model()->rows())
                if (withStripped || r.name != "c_pie")
                    out << QString::fromStdString(r.name + " | " + r.detail + " | " + r.debugPath) + QStringLiteral(" | %1").arg(int(r.state));
            out.sort();
            return out;
        };
        const QStringList reportedRows = provenance(true);
        QVERIFY2(reportedRows.filter(QStringLiteral("| /")).size() >= 1, qPrintable(reportedRows.join('\n')));
        for (int step = 0; step < 2; ++step) {
            loaded.clear();
            if (step == 0)
                window.addRule({ model::FilterRule::Action::Focus, model::FilterRule::Target::Function, "main" });
            else
                window.removeRule(0);
            QVERIFY(loaded.wait(60000));
            QVERIFY(!window.isLoading());
            QVERIFY(strippedRow() && strippedRow()->state == reported);
            QCOMPARE(provenance(true), reportedRows);
        }
        QCOMPARE(symbolized.size(), 1);
        // The labels drawn for the outermost frames (the functions of each one-location stack).
        auto labels = [&] {
            QStringList out;
            const auto snap = window.flameGraph()->snapshot();
            for (model::NodeId n : snap->tree->children(snap->tree->root()))
                out << window.flameGraph()->label(n);
            return out;
        };
        const QSet<QString> functions = nmFunctions(symtest::fixture("c_pie"));
        QVERIFY(functions.size() >= 3);
        const QStringList before = labels();
        const auto addresses = [](const QStringList& l) {
            return l.filter(QRegularExpression(QStringLiteral("^c_pie\\+0x[0-9a-f]+$"))).size();
        };
        QVERIFY2(addresses(before) > 0, qPrintable(before.join(", ")));
        window.findChild<QDockWidget*>(QStringLiteral("binariesDock"))->raise();
        QTest::qWait(50);
        window.grab().save(SYMFLAME_TEST_BINARY_DIR "/window-binaries-before.png");

        // The user picks the directory in the panel's dialog.
        int row = -1;
        for (size_t i = 0; i < panel->model()->rows().size(); ++i)
            if (panel->model()->rows()[i].name == "c_pie")
                row = int(i);
        panel->selectRow(row);
        QPushButton* addDir = nullptr;
        for (QPushButton* b : panel->findChildren<QPushButton*>())
            if (b->text().startsWith(QStringLiteral("Add search directory")))
                addDir = b;
        QVERIFY(addDir && addDir->isEnabled());
        symbolized.clear();
        bool answered = false;
        answerFileDialog(m_debugDir, &answered);
        QTest::mouseClick(addDir, Qt::LeftButton);
        QVERIFY(answered);
        QVERIFY(symbolized.wait(120000));
        QTRY_VERIFY(strippedRow() && strippedRow()->state == BinaryState::Symbolized);
        QVERIFY(QString::fromStdString(strippedRow()->debugPath).startsWith(m_debugDir));
        // The other binaries say where their debug info came from as before: the new pass looked
        // them up again from their addresses, it did not find them "already symbolized".
        // (Binaries still missing say so with the new directory among the places tried.)
        const QString symbolizedState = QStringLiteral(" | %1").arg(int(BinaryState::Symbolized));
        const QStringList symbolizedBefore
            = QStringList(reportedRows).filter(QRegularExpression(QStringLiteral("^(?!c_pie )"))).filter(symbolizedState);
        QVERIFY2(!symbolizedBefore.isEmpty(), qPrintable(reportedRows.join('\n')));
        QCOMPARE(provenance(false).filter(symbolizedState), symbolizedBefore);
        const QStringList after = labels();
        QCOMPARE(addresses(after), 0);
        // Every function of the binary now has its name in the graph.
        int named = 0;
        for (const QString& f : functions)
            named += after.contains(f);
        QVERIFY2(named == functions.size(),
            qPrintable(QStringLiteral("%1 of %2 functions; labels: %3").arg(named).arg(functions.size()).arg(after.join(", "))));
        QTRY_VERIFY(window.topFunctionsModel()->rowCount() > 0);
        window.grab().save(SYMFLAME_TEST_BINARY_DIR "/window-binaries-after.png");
    }

    // While slow debuginfod downloads run, the window keeps serving its event loop: a 20 ms
    // timer never waits long, and the status bar says what is downloaded, with the bytes so far.
    // Served by the fault-injecting server: two misses that take 1.2 s each and the stripped
    // binary's debug file sent 4 KiB at a time.
    void guiStaysResponsiveWhileDownloading()
    {
        QStandardPaths::setTestModeEnabled(true);
        QApplication::setApplicationName(QStringLiteral("tst_binariespanel"));
        QSettings().clear();
        symtest::FaultyHttpServer server;
        QVERIFY(server.port() > 0);
        const QString id = QString::fromStdString(m_strippedId);
        QFile debugFile(m_debugDir + "/.build-id/" + id.left(2) + "/" + id.mid(2) + ".debug");
        QVERIFY(debugFile.open(QIODevice::ReadOnly));
        const std::string debugBytes = debugFile.readAll().toStdString();
        QVERIFY(debugBytes.size() > 8192);
        server.setAnswer(m_strippedId, { symtest::FaultyHttpServer::Fault::SlowBody, debugBytes, 250 });
        server.setAnswer(m_bins[2].buildId, { symtest::FaultyHttpServer::Fault::Delay, {}, 1200 });
        server.setAnswer(m_bins[3].buildId, { symtest::FaultyHttpServer::Fault::Delay, {}, 1200 });
        ui::SymbolizeSettings settings;
        settings.local.useDefaultDebugDir = false;
        settings.debuginfod.servers = { QString::fromStdString(server.url()) };
        settings.debuginfod.cacheDir = m_tmp.filePath("gui-cache");
        settings.debuginfod.parallelDownloads = 2;
        settings.save();
        const QString file = m_tmp.filePath("four-slow.pb.gz");
        QVERIFY(model::saveProfile(profile(), file.toStdString(), model::ProfileFormat::Pprof).ok());

        ui::MainWindow window;
        window.setErrorDialogsEnabled(false);
        window.resize(1600, 1000);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QSignalSpy symbolized(&window, &ui::MainWindow::symbolizationFinished);
        QElapsedTimer clock;
        qint64 last = 0, worstGap = 0;
        QStringList statusTexts;
        const QRegularExpression withBytes(
            QStringLiteral("downloading debug info for \\S+ \\(\\d of 3, [0-9.]+ of [0-9.]+ (B|KiB|MiB)\\)"));
        bool shot = false;
        QTimer tick;
        tick.setInterval(20);
        connect(&tick, &QTimer::timeout, this, [&] {
            const qint64 now = clock.elapsed();
            worstGap = std::max(worstGap, now - last);
            last = now;
            for (QLabel* l : window.statusBar()->findChildren<QLabel*>())
                if (l->text().contains(QStringLiteral("downloading")) && !statusTexts.contains(l->text())) {
                    statusTexts << l->text();
                    if (!shot && withBytes.match(l->text()).hasMatch()) {
                        shot = true;
                        window.grab().save(SYMFLAME_TEST_BINARY_DIR "/window-downloading.png");
                    }
                }
        });
        clock.start();
        tick.start();
        window.openFile(file);
        QVERIFY(symbolized.wait(120000));
        tick.stop();
        const qint64 took = clock.elapsed();
        QVERIFY2(server.requests() >= 3, qPrintable(QString::number(server.requests())));
        QVERIFY2(took >= 2400, qPrintable(QString::number(took))); // the misses alone, one after the other
        QVERIFY2(worstGap < 500, qPrintable(QStringLiteral("the event loop waited %1 ms").arg(worstGap)));
        // "downloading debug info for c_pie (k of 3, 8 of 21.5 KiB)" at some point.
        qInfo("%s", qPrintable(statusTexts.join('\n')));
        QVERIFY2(!statusTexts.filter(withBytes).isEmpty(), qPrintable(statusTexts.join('\n')));
        // The download was used.
        auto* panel = window.findChild<ui::BinariesPanel*>();
        QVERIFY(panel);
        bool found = false;
        for (const BinaryRow& r : panel->model()->rows())
            if (r.name == "c_pie") {
                found = true;
                QVERIFY2(r.state == BinaryState::Symbolized, r.detail.c_str());
                QCOMPARE(r.source, DebugSource::Debuginfod);
            }
        QVERIFY(found);
    }
};

QTEST_MAIN(TestBinariesPanel)
#include "tst_binariespanel.moc"
