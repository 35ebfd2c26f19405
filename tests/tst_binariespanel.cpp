// Missing-debuginfo triage over a profile of four binaries: one with DWARF, one stripped whose
// debug file lies in a directory added during the test, one whose local file has another build
// ID, one missing; plus [vdso]. Statuses, reasons and order (symbolize::triageBinaries), the
// table model (QAbstractItemModelTester), the panel's filter and build-ID check of a located
// file, the upload command. Writes a screenshot to SYMFLAME_TEST_BINARY_DIR/binaries-panel.png.
#include "symfixturehelpers.h"
#include "symprofilehelpers.h"

#include "symbolize/binarytriage.h"
#include "symbolize/symbolizer.h"
#include "ui/binariespanel.h"

#include <QAbstractItemModelTester>
#include <QDir>
#include <QFile>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace symflame;
using namespace symflame::symbolize;

namespace {

const BinaryRow* rowNamed(const std::vector<BinaryRow>& rows, const std::string& name)
{
    for (const BinaryRow& r : rows)
        if (r.name == name)
            return &r;
    return nullptr;
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
};

QTEST_MAIN(TestBinariesPanel)
#include "tst_binariespanel.moc"
