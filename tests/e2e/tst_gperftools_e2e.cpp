// End to end on a real gperftools profile (tests/e2efixtures, built and profiled by
// tests/fixtures/e2efixtures.cmake): libcprog spends its CPU time in libc (qsort, snprintf, strtod, strlen,
// memcpy ...) and in its own shared library. `symflame symbolize` on the unsymbolized conversion
// must name every location's frames as upstream pprof's -symbolize=local (binutils) does on the
// same files, and libc must be symbolized through the build-id file of Debian's libc6-dbg.
//
// Where the two name a frame differently on purpose, the names still "agree" when they are the
// same symbol: symflame names physical frames from the symbol table as llvm-symbolizer does, so
// it says "msort_with_tmp.part.0" (GCC's clone) where binutils gives the DWARF name
// "msort_with_tmp", "__sbrk" where binutils picks the alias "sbrk", and "__libc_start_main" with
// its symbol version. So names are compared after dropping "@VERSION" and GCC's clone suffixes
// (.part.N, .constprop.N, .isra.N, .cold ...), and two different names that nm lists at the
// same address of the same file are the same function. Mangled names are compared as mangled
// (pprof and symflame demangle differently, pprof's default drops parameters).
#include "nmsymbols.h"
#include "processhelpers.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

namespace {

using RunResult = symflame::testing::ProcessResult;
using symflame::testing::runProcess;
using symflame::testing::NmSymbol;
using symflame::testing::nmSymbols;
using symflame::testing::NmTable;

struct Frame {
    QString name;
    QString systemName; ///< as pprof -raw shows it: empty when equal to the name
    QString key() const { return systemName.isEmpty() ? name : systemName; }
};
struct Location {
    int mapping = 0;
    QList<Frame> frames; ///< innermost first
};

/// The Locations table of `go tool pprof -raw`, by address:
/// "   N: 0xADDR M=K name file:line s=start[(system)]", inline frames on the following lines.
QMap<quint64, Location> rawLocations(const QString& profile, QString* error)
{
    const RunResult r = runProcess(QStringLiteral(SYMFLAME_GO), { "tool", "pprof", "-raw", "-symbolize=none", profile });
    if (r.exitCode != 0) {
        *error = QStringLiteral("go tool pprof -raw %1: %2").arg(profile, QString::fromUtf8(r.err));
        return {};
    }
    static const QRegularExpression head(QStringLiteral("^\\s+\\d+: 0x([0-9a-f]+) M=(\\d+) ?(.*)$"));
    static const QRegularExpression frame(QStringLiteral("^(.*) (\\S*):(\\d+) s=(\\d+)(?:\\((.*)\\))?$"));
    QMap<quint64, Location> out;
    bool inLocations = false;
    Location* current = nullptr;
    for (const QByteArray& raw : r.out.split('\n')) {
        const QString line = QString::fromUtf8(raw);
        if (line == QLatin1String("Locations") || line == QLatin1String("Mappings")) {
            inLocations = line == QLatin1String("Locations");
            current = nullptr;
            continue;
        }
        if (!inLocations || line.trimmed().isEmpty())
            continue;
        QString rest;
        if (const auto m = head.match(line); m.hasMatch()) {
            current = &out[m.captured(1).toULongLong(nullptr, 16)];
            current->mapping = m.captured(2).toInt();
            rest = m.captured(3);
        } else if (current) {
            rest = line.trimmed();
        } else {
            continue;
        }
        if (rest.isEmpty())
            continue;
        const auto f = frame.match(rest);
        if (!f.hasMatch()) {
            *error = QStringLiteral("unexpected -raw line: %1").arg(line);
            return {};
        }
        current->frames.push_back({ f.captured(1), f.captured(5) });
    }
    return out;
}

QString normalized(QString name)
{
    static const QRegularExpression version(QStringLiteral("@.*$"));
    static const QRegularExpression clone(QStringLiteral("(\\.(part|constprop|isra|cold|lto_priv)(\\.\\d+)?)+$"));
    name.remove(version);
    name.remove(clone);
    return name;
}

} // namespace

class TestGperftoolsE2e : public QObject {
    Q_OBJECT

private slots:
    void namesAgreeWithPprof();
};

void TestGperftoolsE2e::namesAgreeWithPprof()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString in = QStringLiteral(SYMFLAME_E2E_DIR "/e2e-unsym.pb.gz");
    const QString oracleProfile = QStringLiteral(SYMFLAME_E2E_DIR "/e2e-sym.pb.gz");
    const QString out = dir.filePath(QStringLiteral("e2e-symflame.pb.gz"));
    const RunResult sym = runProcess(QStringLiteral(SYMFLAME_EXECUTABLE), { "symbolize", in, "-o", out, "--json-report", "--offline" });
    QVERIFY2(sym.exitCode == 0, sym.err.constData());

    // The report: libc symbolized from libc6-dbg's file in the build-id directory.
    const QJsonArray report = QJsonDocument::fromJson(sym.out).array();
    QVERIFY2(!report.isEmpty(), sym.out.constData());
    QStringList symbolFiles; // files whose symbols may name frames: binaries and debug files
    bool sawLibc = false;
    for (const QJsonValue& v : report) {
        const QJsonObject m = v.toObject();
        symbolFiles << m["binary_path"].toString() << m["debug_path"].toString();
        if (!m["path"].toString().contains(QLatin1String("/libc.so.6")))
            continue;
        sawLibc = true;
        QCOMPARE(m["status"].toString(), QStringLiteral("found"));
        QCOMPARE(m["source"].toString(), QStringLiteral("build-id directory"));
        QVERIFY2(m["debug_path"].toString().startsWith(QLatin1String("/usr/lib/debug/.build-id/")),
                 qPrintable(m["debug_path"].toString()));
        QVERIFY2(m["locations"].toInt() >= 10, "the fixture samples too few libc locations");
        // The sampled libc addresses differ per run, and one may fall where no symbol or DWARF
        // covers it (pprof names none there either: the name comparison below checks each).
        QVERIFY2(m["resolved"].toInt() * 10 >= m["locations"].toInt() * 9,
                 qPrintable(QString("%1 of %2 libc locations resolved").arg(m["resolved"].toInt()).arg(m["locations"].toInt())));
    }
    QVERIFY2(sawLibc, "no libc mapping in the profile");
    symbolFiles.removeAll(QString());
    symbolFiles.removeDuplicates();

    // Aliases: every name nm lists, by (file, address).
    QMap<QString, QSet<QString>> addressesOfName; // name -> "file@address"
    for (const QString& file : symbolFiles) {
        for (const NmTable table : { NmTable::Static, NmTable::Dynamic })
            for (const NmSymbol& s : nmSymbols(file, table))
                addressesOfName[normalized(QString::fromUtf8(s.name))].insert(
                    file + '@' + QString::number(s.address, 16));
    }
    const auto sameFunction = [&](const QString& a, const QString& b) {
        const QString na = normalized(a), nb = normalized(b);
        if (na == nb)
            return true;
        const QSet<QString> aa = addressesOfName.value(na), bb = addressesOfName.value(nb);
        return aa.intersects(bb);
    };

    QString error;
    const QMap<quint64, Location> want = rawLocations(oracleProfile, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    const QMap<quint64, Location> got = rawLocations(out, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QVERIFY(want.size() >= 30);
    size_t frames = 0, aliases = 0, pltStubs = 0;
    QStringList mismatches;
    for (auto it = want.cbegin(); it != want.cend(); ++it) {
        const auto g = got.constFind(it.key());
        if (g == got.cend()) {
            mismatches << QStringLiteral("0x%1: missing in symflame's output").arg(it.key(), 0, 16);
            continue;
        }
        // A PLT stub: binutils names nothing there, or the symbol before it (_init, as
        // llvm-symbolizer does); symflame says [plt] (the engine's namePltStubs; tst_symbolizer
        // checks that it does so exactly where the address lies in a PLT section).
        if (it->frames.size() <= 1 && g->frames.size() == 1 && g->frames[0].name == QLatin1String("[plt]")) {
            ++pltStubs;
            continue;
        }
        if (g->frames.size() != it->frames.size()) {
            mismatches << QStringLiteral("0x%1: %2 frames, pprof %3").arg(it.key(), 0, 16).arg(g->frames.size()).arg(it->frames.size());
            continue;
        }
        for (qsizetype k = 0; k < it->frames.size(); ++k) {
            ++frames;
            const QString a = g->frames[k].key(), b = it->frames[k].key();
            if (a == b)
                continue;
            if (sameFunction(a, b))
                ++aliases;
            else
                mismatches << QStringLiteral("0x%1 frame %2: symflame '%3', pprof '%4'").arg(it.key(), 0, 16).arg(k).arg(a, b);
        }
    }
    QVERIFY2(mismatches.isEmpty(), qPrintable(mismatches.mid(0, 20).join('\n')));
    qInfo("%lld locations, %zu frames agree with upstream pprof (%zu as the same symbol under another name), "
          "%zu PLT stubs named [plt] where pprof names nothing or the symbol before",
          qlonglong(want.size()), frames, aliases, pltStubs);
    QVERIFY2(pltStubs * 20 <= size_t(want.size()), "more than 5% of the locations in PLT stubs");
}

QTEST_GUILESS_MAIN(TestGperftoolsE2e)
#include "tst_gperftools_e2e.moc"
