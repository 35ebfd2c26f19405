// Kernel frames of a perf recording named from a vmlinux found by its build ID (debug directories,
// debuginfod), when neither perf's cached kallsyms nor /proc/kallsyms may name them: the recording
// is made here (`perf record -g` of dd, which spends its time in read and write) and its kernel
// build ID changed in the file, as if another kernel had recorded it. Its vmlinux is built here
// too, from the running kernel's /proc/kallsyms: every text symbol renamed "vml_NAME" and linked
// 16 MiB below where the kernel runs, so that a name can only come from this file and only when
// its addresses are relocated as perf relocates them (by the _text perf recorded). Oracle: `perf
// script -k VMLINUX` on the same file, which relocates and names them itself.
#include "debuginfod/debuginfodserver.h"
#include "filehelpers.h"
#include "perfdatahelpers.h"
#include "processhelpers.h"

#include "model/io/perf/perfdata.h"
#include "symbolize/pass/binarytriage.h"
#include "symbolize/pass/symbolizationpass.h"

#include <QDir>
#include <QFile>
#include <QObject>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <map>
#include <set>

using namespace symflame;
using namespace symflame::model;
using symflame::testing::readFileBytes;
using symflame::testing::runProcess;
using symflame::testing::writeFile;

namespace {

const std::string kOtherKernel = "c0ffee00112233445566778899aabbccddeeff00";

struct KernelNames {
    size_t compared = 0, wrong = 0, unnamed = 0;
    std::string firstWrong;
};

class TestPerfVmlinux : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_file; // the recording, its kernel build ID changed to kOtherKernel
    QString m_vmlinux; // the kernel image, with its (zero-filled) code
    QString m_debugDir; // <dir>/.build-id/c0/ffee....debug: the image made debug-only
    std::map<uint64_t, std::string> m_perfNames; // kernel address -> perf script's name for it
    std::map<uint64_t, std::string> m_symbolAt; // running kernel's address -> our vmlinux's symbol starting there

    // Kernel text symbols of the running kernel ("T"/"t", not in a module), by address, each name once.
    static std::vector<std::pair<uint64_t, QByteArray>> kernelTextSymbols()
    {
        QFile f("/proc/kallsyms");
        if (!f.open(QIODevice::ReadOnly))
            qFatal("cannot read /proc/kallsyms");
        std::vector<std::pair<uint64_t, QByteArray>> out;
        for (const QByteArray& line : f.readAll().split('\n')) {
            const QList<QByteArray> fields = line.split(' ');
            if (fields.size() != 3 || fields[1].size() != 1 || !QByteArray("Tt").contains(fields[1][0]))
                continue;
            bool ok = false;
            const uint64_t a = fields[0].toULongLong(&ok, 16);
            if (ok && a != 0)
                out.emplace_back(a, fields[2].trimmed());
        }
        // By address, _text first at its address (perf relocates by it, and it stays below).
        using Symbol = std::pair<uint64_t, QByteArray>;
        std::stable_sort(out.begin(), out.end(), [](const Symbol& a, const Symbol& b) {
            if (a.first != b.first)
                return a.first < b.first;
            return a.second == "_text" && b.second != "_text";
        });
        // An assembler label is defined once: the first of each name. And one name an address:
        // aliases would be given size 0 here, which no real vmlinux has, and tools pick among
        // such aliases differently.
        std::set<QByteArray> seen;
        std::erase_if(out, [&](const auto& s) { return !seen.insert(s.second).second; });
        out.erase(std::unique(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first == b.first; }),
            out.end());
        return out;
    }

    // The kernel image, linked 16 MiB below the running kernel, with build ID kOtherKernel.
    QString buildVmlinux()
    {
        const auto symbols = kernelTextSymbols();
        auto text = std::find_if(symbols.begin(), symbols.end(), [](const auto& s) { return s.second == "_text"; });
        if (text == symbols.end())
            qFatal("/proc/kallsyms names no _text (kptr_restrict?)");
        const uint64_t runtimeText = text->first, linkedText = runtimeText - (16u << 20);
        QByteArray s = ".section .text,\"ax\",@progbits\n";
        for (auto it = text; it != symbols.end(); ++it) {
            const uint64_t size = std::next(it) == symbols.end() ? 16 : std::next(it)->first - it->first;
            if (it->first - runtimeText > (256u << 20))
                break; // past the kernel's own text (nothing there is sampled)
            const QByteArray name = it->second == "_text" || it->second == "_stext" ? it->second : "vml_" + it->second;
            m_symbolAt[it->first] = name.toStdString();
            s += ".org 0x" + QByteArray::number(qulonglong(it->first - runtimeText), 16) + "\n.globl \"" + name
                + "\"\n.type \"" + name + "\",@function\n.size \"" + name + "\"," + QByteArray::number(qulonglong(size))
                + "\n\"" + name + "\":\n";
        }
        s += ".skip 16\n.data\n.long 1\n";
        const QString asmFile = m_dir.filePath("vmlinux.s"), obj = m_dir.filePath("vmlinux.o");
        const QString image = m_dir.filePath("srv/vmlinux");
        QDir().mkpath(m_dir.filePath("srv"));
        if (!writeFile(asmFile, s))
            qFatal("cannot write %s", qPrintable(asmFile));
        auto r = runProcess("as", { "-o", obj, asmFile });
        if (!r.ok())
            qFatal("as: %s", r.err.constData());
        r = runProcess("ld", { "-o", image, "-Ttext=0x" + QString::number(qulonglong(linkedText), 16),
                                 "--build-id=0x" + QString::fromStdString(kOtherKernel), "-e", "0", obj });
        if (!r.ok())
            qFatal("ld: %s", r.err.constData());
        return image;
    }

    // Every kernel frame perf named against ours.
    KernelNames compareKernelNames(const Profile& p) const
    {
        KernelNames k;
        // perf script prints callers by their return address, one past our call sites; an
        // address that is a leaf in one stack and a return address in another is compared once.
        const std::vector<bool> callSite = symflame::testing::callSiteLocations(p);
        std::set<uint64_t> compared;
        for (size_t i = 0; i < p.locations.size(); ++i) {
            const Location& loc = p.locations[i];
            const Mapping* m = p.mappingOf(loc);
            if (!m || p.str(m->file) != "[kernel.kallsyms]")
                continue;
            auto it = m_perfNames.find(loc.address + callSite[i]);
            if (it == m_perfNames.end() || !compared.insert(it->first).second)
                continue;
            ++k.compared;
            // A return address that is a symbol's first byte (an interrupted entry, such as
            // fdget_pos after its __pfx_fdget_pos padding) is named by perf after the symbol
            // it starts; we name the call site one byte before, in the symbol that ends there.
            std::string expected = it->second;
            if (callSite[i]) {
                const auto start = m_symbolAt.find(it->first);
                if (start != m_symbolAt.end() && start != m_symbolAt.begin())
                    expected = std::prev(start)->second;
            }
            const auto lines = p.linesOf(loc);
            const std::string ours = lines.empty() ? std::string() : std::string(p.str(p.functions[lines.back().function.index()].name));
            if (ours.empty())
                ++k.unnamed;
            else if (ours != expected && ++k.wrong == 1)
                k.firstWrong = ours + " != " + expected + (expected == it->second ? " (perf's)" : " (perf's " + it->second + ")");
        }
        return k;
    }

    static const symbolize::BinaryRow* kernelRow(const std::vector<symbolize::BinaryRow>& rows)
    {
        for (const symbolize::BinaryRow& r : rows)
            if (r.path == "[kernel.kallsyms]")
                return &r;
        return nullptr;
    }

    // Options that find nothing but what a test gives: no default debug directory, no cache.
    symbolize::SymbolizeOptions isolatedOptions() const
    {
        symbolize::SymbolizeOptions o;
        o.locator.useDefaultDebugDir = false;
        o.locator.useClientCache = false;
        o.locator.usePerfBuildIdCache = false;
        return o;
    }

    Profile read() const
    {
        auto p = readPerfData(readFileBytes(m_file));
        if (!p)
            qFatal("%s", p.error().message.c_str());
        return std::move(*p);
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        // perf keeps the kallsyms of the kernel that records in its build-ID cache: an empty one
        // for this test, so the kernel's names come from nowhere but the vmlinux.
        QVERIFY(QDir().mkpath(m_dir.filePath("perfcache")));
        qputenv("PERF_BUILDID_DIR", m_dir.filePath("perfcache").toUtf8());
        const QString raw = m_dir.filePath("raw.data");
        auto r = runProcess("perf", { "record", "-e", "cpu-clock", "-g", "-o", raw, "--", "dd", "if=/dev/zero",
                                        "of=/dev/null", "bs=4k", "count=400000" });
        QVERIFY2(r.ok(), r.err.constData());
        QVERIFY(QDir(m_dir.filePath("perfcache")).removeRecursively() && QDir().mkpath(m_dir.filePath("perfcache")));

        // The recording as if another kernel had made it.
        std::vector<uint8_t> bytes = readFileBytes(raw);
        auto plain = readPerfData(bytes);
        QVERIFY2(plain, plain ? "" : plain.error().message.c_str());
        const std::string kernelId = symflame::testing::kernelBuildId(*plain);
        QCOMPARE(kernelId.size(), size_t(40));
        QVERIFY(symflame::testing::replaceBuildId(bytes, kernelId, kOtherKernel) >= 1);
        m_file = m_dir.filePath("otherkernel.data");
        QVERIFY(writeFile(m_file, QByteArrayView(reinterpret_cast<const char*>(bytes.data()), qsizetype(bytes.size()))));

        m_vmlinux = buildVmlinux();
        m_debugDir = m_dir.filePath("debug");
        const QString linkDir = m_debugDir + "/.build-id/" + QString::fromStdString(kOtherKernel.substr(0, 2));
        QVERIFY(QDir().mkpath(linkDir));
        r = runProcess("objcopy", { "--only-keep-debug", m_vmlinux, linkDir + "/" + QString::fromStdString(kOtherKernel.substr(2)) + ".debug" });
        QVERIFY2(r.ok(), r.err.constData());

        // perf's names, from the same image.
        r = runProcess("perf", { "script", "-i", m_file, "-k", m_vmlinux, "-F", "ip,sym,dso", "--no-inline" });
        QVERIFY2(r.ok(), r.err.constData());
        static const QRegularExpression frame(R"(^\s+([0-9a-f]+) (\S+) \(\[kernel\.kallsyms\]\)$)");
        for (const QByteArray& line : r.out.split('\n'))
            if (const auto m = frame.match(QString::fromUtf8(line)); m.hasMatch() && m.captured(2) != "[unknown]")
                m_perfNames[m.captured(1).toULongLong(nullptr, 16)] = m.captured(2).toStdString();
        qInfo("perf named %zu kernel addresses from the vmlinux", m_perfNames.size());
        QVERIFY(m_perfNames.size() >= 20);
        QVERIFY2(std::all_of(m_perfNames.begin(), m_perfNames.end(), [](const auto& e) { return e.second.starts_with("vml_"); }),
            "perf named the kernel from the vmlinux, not from /proc/kallsyms");
    }

    // Nothing names them: the kernel's row says why (no kallsyms, no vmlinux) and where it looked.
    void withoutVmlinux()
    {
        Profile p = read();
        QVERIFY(std::string(p.attribute("perf.kernel_symbols")).starts_with("kernel frames left as addresses"));
        auto o = isolatedOptions();
        o.locator.debugDirs = { m_dir.filePath("nodebug").toStdString() };
        auto report = symbolize::symbolizeProfile(p, o);
        QVERIFY(report);
        const KernelNames k = compareKernelNames(p);
        QCOMPARE(k.compared, m_perfNames.size());
        QCOMPARE(k.unnamed, k.compared);
        const auto rows = symbolize::triageBinaries(p, &*report, p.defaultSampleType);
        const symbolize::BinaryRow* row = kernelRow(rows);
        QVERIFY(row);
        QCOMPARE(int(row->state), int(symbolize::BinaryState::NotFound));
        QCOMPARE(row->buildId, kOtherKernel);
        QVERIFY2(row->detail.starts_with("kernel frames left as addresses: perf's build-ID cache"), row->detail.c_str());
        QVERIFY2(row->detail.find("; vmlinux not found (tried " + m_dir.filePath("nodebug").toStdString() + "/.build-id/c0/ffee")
                != std::string::npos,
            row->detail.c_str());
        QVERIFY(symbolize::isProblem(row->state));
    }

    // <debugdir>/.build-id/xx/yyyy.debug: the debug-only image, relocated by the recorded _text.
    void fromDebugDirectory()
    {
        Profile p = read();
        auto o = isolatedOptions();
        o.locator.debugDirs = { m_debugDir.toStdString() };
        auto report = symbolize::symbolizeProfile(p, o);
        QVERIFY(report);
        const KernelNames k = compareKernelNames(p);
        qInfo("%zu kernel addresses compared, %zu unnamed, %zu named otherwise", k.compared, k.unnamed, k.wrong);
        QCOMPARE(k.compared, m_perfNames.size());
        QCOMPARE(k.unnamed, size_t(0));
        QVERIFY2(k.wrong == 0, k.firstWrong.c_str());
        const auto rows = symbolize::triageBinaries(p, &*report, p.defaultSampleType);
        const symbolize::BinaryRow* row = kernelRow(rows);
        QVERIFY(row);
        QCOMPARE(int(row->state), int(symbolize::BinaryState::NamesOnly));
        QVERIFY2(row->detail.starts_with("names only from the symbol table of " + m_debugDir.toStdString() + "/.build-id/c0/"),
            row->detail.c_str());

        // The command line: `info --debug-dir` shows the same row.
        const auto info = symflame::testing::runSymflame({ "info", m_file, "--debug-dir", m_debugDir });
        QVERIFY2(info.ok(), info.err.constData());
        QVERIFY2(QString::fromUtf8(info.out).contains(QRegularExpression(R"(names only .*\[kernel\.kallsyms\])")),
            info.out.constData());
    }

    // A debuginfod server that has the image (as an executable: it holds no DWARF), asked once.
    void fromDebuginfod()
    {
        QTemporaryDir db, cache;
        QVERIFY(db.isValid() && cache.isValid());
        symtest::DebuginfodServer server(m_dir.filePath("srv"), db.path());
        QVERIFY2(server.ok(), qPrintable(server.error()));
        Profile p = read();
        auto o = isolatedOptions();
        o.debuginfod.urls = { server.url() };
        o.debuginfod.cacheDir = cache.path().toStdString();
        auto report = symbolize::symbolizeProfile(p, o);
        QVERIFY(report);
        const KernelNames k = compareKernelNames(p);
        const auto rows = symbolize::triageBinaries(p, &*report, p.defaultSampleType);
        const symbolize::BinaryRow* row = kernelRow(rows);
        QVERIFY(row);
        QCOMPARE(k.compared, m_perfNames.size());
        QVERIFY2(k.unnamed == 0, row->detail.c_str());
        QVERIFY2(k.wrong == 0, k.firstWrong.c_str());
        QCOMPARE(int(row->state), int(symbolize::BinaryState::NamesOnly));
        QVERIFY2(row->debuginfod.find("executable") != std::string::npos, row->debuginfod.c_str());
        QVERIFY(QFile::exists(cache.filePath(QString::fromStdString(kOtherKernel) + "/executable")));
    }
};

} // namespace

QTEST_GUILESS_MAIN(TestPerfVmlinux)
#include "tst_perfvmlinux.moc"
