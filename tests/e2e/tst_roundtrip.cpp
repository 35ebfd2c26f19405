// Reading and writing real profiles without loss: each fixture of tests/fixtures/profiles.cmake (and the
// committed demo profile) is read with model::loadProfile, written with model::writePprofFile,
// and then
// - `go tool pprof -raw -symbolize=none` prints the same profile for the original and ours
//   (header, sample types, samples with their values, stacks and labels, locations, mappings;
//   compared by content since ids are renumbered), and
// - the written file is gzip and loads back to an equal Profile.
#include "fixtures/fixturepaths.h"
#include "pproforacle.h"

#include "model/io/pprof/pprof.h"
#include "model/io/profileio.h"

#include <QFile>
#include <QObject>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

using namespace symflame;
using namespace symflame::oracle;

namespace {

/// A text form of a Profile that does not depend on table order or ids: one line per sample
/// (in sample order) with values, the stack by location content and the labels, after the
/// profile-wide fields and the mappings. Equal texts mean equal profiles.
std::string canonical(const model::Profile& p)
{
    std::string out;
    auto add = [&](std::string_view s) { out.append(s); };
    auto num = [&](int64_t v) { out += std::to_string(v); };
    auto str = [&](model::StringId id) {
        out += '"';
        out.append(p.str(id));
        out += '"';
    };
    auto mapping = [&](model::MappingId id) {
        if (!id.valid()) {
            add("-");
            return;
        }
        const model::Mapping& m = p.mappings[id.index()];
        num(int64_t(m.start));
        add("/");
        num(int64_t(m.limit));
        add("/");
        num(int64_t(m.offset));
        add(" ");
        str(m.file);
        add(" ");
        str(m.buildId);
        add(" f");
        num(m.flags);
    };

    for (const model::ValueType& t : p.sampleTypes) {
        add("type ");
        str(t.type);
        str(t.unit);
        add("\n");
    }
    add("default ");
    num(int64_t(p.defaultSampleType));
    add(" period ");
    str(p.periodType.type);
    str(p.periodType.unit);
    num(p.period);
    add(" time ");
    num(p.timeNanos);
    add(" duration ");
    num(p.durationNanos);
    add(" drop ");
    str(p.dropFrames);
    add(" keep ");
    str(p.keepFrames);
    add(" doc ");
    str(p.docUrl);
    add("\n");
    for (const model::StringId c : p.comments) {
        add("comment ");
        str(c);
        add("\n");
    }
    for (size_t i = 0; i < p.mappings.size(); ++i) {
        add("mapping ");
        mapping(model::MappingId(i));
        add("\n");
    }
    std::vector<std::string> locations(p.locations.size());
    for (size_t i = 0; i < p.locations.size(); ++i) {
        std::string saved;
        saved.swap(out);
        const model::Location& l = p.locations[i];
        add("0x");
        char buf[24];
        std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(l.address));
        add(buf);
        add(" ");
        mapping(l.mapping);
        if (l.isFolded)
            add(" folded");
        for (const model::Line& line : p.linesOf(l)) {
            const model::Function& f = p.functions[line.function.index()];
            add(" | ");
            str(f.name);
            str(f.systemName);
            str(f.file);
            num(f.startLine);
            add(":");
            num(line.line);
            add(":");
            num(line.column);
        }
        locations[i].swap(out);
        out.swap(saved);
    }
    for (size_t s = 0; s < p.sampleCount(); ++s) {
        add("sample");
        for (const int64_t v : p.values(s)) {
            add(" ");
            num(v);
        }
        add(":");
        for (const model::LocationId loc : p.sampleStack(s)) {
            add(" [");
            add(locations[loc.index()]);
            add("]");
        }
        for (const model::Label& label : p.sampleLabels(s)) {
            add(" label ");
            str(label.key);
            str(label.str);
            num(label.num);
            str(label.numUnit);
        }
        if (!p.sampleTimestamps.empty()) {
            add(" t");
            num(p.sampleTimestamps[s]);
        }
        add("\n");
    }
    std::sort(locations.begin(), locations.end());
    for (const std::string& l : locations) {
        add("location ");
        add(l);
        add("\n");
    }
    return out;
}

/// The first line where two texts differ, for a failure message.
QString firstDifference(const std::string& a, const std::string& b)
{
    const QStringList la = QString::fromStdString(a).split(QLatin1Char('\n'));
    const QStringList lb = QString::fromStdString(b).split(QLatin1Char('\n'));
    for (qsizetype i = 0; i < std::max(la.size(), lb.size()); ++i) {
        const QString x = i < la.size() ? la[i] : QStringLiteral("<end>");
        const QString y = i < lb.size() ? lb[i] : QStringLiteral("<end>");
        if (x != y)
            return QStringLiteral("line %1:\n  original: %2\n  written:  %3").arg(i + 1).arg(x.left(600), y.left(600));
    }
    return {};
}

/// Each sample of a -raw dump as one line of content (values, stack by location content,
/// labels), sorted: equal lists mean the same samples, whatever the ids and order.
QStringList sampleContents(const RawProfile& r)
{
    QStringList out;
    for (const RawSample& s : r.samples) {
        QString line;
        for (const int64_t v : s.values)
            line += QString::number(v) + QLatin1Char(' ');
        line += QLatin1Char(':');
        for (const uint64_t loc : s.locations)
            line += QStringLiteral(" [") + r.locationContent(loc) + QLatin1Char(']');
        for (const QString& l : s.labels)
            line += QStringLiteral(" {") + l + QLatin1Char('}');
        out << line;
    }
    out.sort();
    return out;
}

QStringList locationContents(const RawProfile& r)
{
    QStringList out;
    for (auto it = r.locations.cbegin(); it != r.locations.cend(); ++it)
        out << r.locationContent(it.key());
    out.sort();
    return out;
}

QStringList mappingContents(const RawProfile& r)
{
    QStringList out;
    for (const uint64_t id : r.mappingOrder)
        out << r.mappings[id].content();
    return out;
}

/// The first entry where two lists differ.
QString firstDifference(const QStringList& a, const QStringList& b)
{
    for (qsizetype i = 0; i < std::max(a.size(), b.size()); ++i) {
        const QString x = i < a.size() ? a[i] : QStringLiteral("<end>");
        const QString y = i < b.size() ? b[i] : QStringLiteral("<end>");
        if (x != y)
            return QStringLiteral("entry %1 of %2/%3:\n  original: %4\n  written:  %5")
                .arg(i + 1)
                .arg(a.size())
                .arg(b.size())
                .arg(x.left(600), y.left(600));
    }
    return {};
}

std::optional<RawProfile> rawDump(const QString& path, QString* error)
{
    const QString go = QString::fromUtf8(fixtures::goExecutable);
    const QStringList args{QStringLiteral("tool"), QStringLiteral("pprof"), QStringLiteral("-raw"),
                           QStringLiteral("-symbolize=none"), path};
    const ProcessResult r = runProcess(go, args);
    if (!r.ok()) {
        *error = r.describe(go, args);
        return std::nullopt;
    }
    return parseRaw(r.out, error);
}

} // namespace

class TestRoundtrip : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void roundtrip_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addRow("go-cpu") << QString::fromUtf8(fixtures::goCpuProfile);
        QTest::addRow("go-heap") << QString::fromUtf8(fixtures::goHeapProfile);
        QTest::addRow("cxx-sym") << QString::fromUtf8(fixtures::cxxSymbolizedProfile);
        QTest::addRow("cxx-unsym") << QString::fromUtf8(fixtures::cxxUnsymbolizedProfile);
        QTest::addRow("demo") << QString::fromUtf8(fixtures::demoProfile);
    }
    void roundtrip()
    {
        QFETCH(QString, path);
        auto loaded = model::loadProfile(path.toStdString());
        QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.error().toString().c_str());
        QVERIFY(loaded->sampleCount() > 0);

        const QString written = m_dir.filePath(QString::fromUtf8(QTest::currentDataTag()) + QStringLiteral(".pb.gz"));
        const model::Status st = model::writePprofFile(*loaded, written.toStdString());
        QVERIFY2(st.ok(), st.ok() ? "" : st.error().toString().c_str());

        // gzip on disk
        QFile f(written);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray magic = f.read(2);
        QCOMPARE(magic, QByteArray("\x1f\x8b", 2));
        f.close();

        // loads back equal
        auto reloaded = model::loadProfile(written.toStdString());
        QVERIFY2(reloaded.ok(), reloaded.ok() ? "" : reloaded.error().toString().c_str());
        const std::string before = canonical(*loaded), after = canonical(*reloaded);
        QVERIFY2(before == after, qPrintable(firstDifference(before, after)));

        // pprof reads both the same
        QString error;
        const auto original = rawDump(path, &error);
        QVERIFY2(original, qPrintable(error));
        const auto ours = rawDump(written, &error);
        QVERIFY2(ours, qPrintable(error));
        QCOMPARE(ours->header, original->header);
        QCOMPARE(ours->sampleTypes, original->sampleTypes);
        QCOMPARE(ours->samples.size(), original->samples.size());
        const QStringList mo = mappingContents(*original), mw = mappingContents(*ours);
        QVERIFY2(mo == mw, qPrintable(firstDifference(mo, mw)));
        const QStringList lo = locationContents(*original), lw = locationContents(*ours);
        QVERIFY2(lo == lw, qPrintable(firstDifference(lo, lw)));
        const QStringList so = sampleContents(*original), sw = sampleContents(*ours);
        QVERIFY2(so == sw, qPrintable(firstDifference(so, sw)));
        // pprof merges samples of equal stacks and labels on reading, which keeps totals.
        for (int t = 0; t < original->sampleTypes.size(); ++t) {
            int64_t total = 0;
            for (const RawSample& sample : original->samples)
                total += sample.values[t];
            QCOMPARE(loaded->totalValue(size_t(t)), total);
        }

        // The model keeps the tables as the file has them (decode_raw shows them unmerged),
        // and so does the written file.
        const QString protoc = QString::fromUtf8(fixtures::protocExecutable);
        const auto wireOriginal = decodeRaw(protoc, path, &error);
        QVERIFY2(wireOriginal, qPrintable(error));
        const auto wireOurs = decodeRaw(protoc, written, &error);
        QVERIFY2(wireOurs, qPrintable(error));
        QCOMPARE(qsizetype(loaded->sampleCount()), wireOriginal->samples);
        QCOMPARE(qsizetype(loaded->locations.size()), wireOriginal->locations.size());
        QCOMPARE(qsizetype(loaded->mappings.size()), wireOriginal->mappings.size());
        QCOMPARE(wireOurs->samples, wireOriginal->samples);
        QCOMPARE(wireOurs->locations.size(), wireOriginal->locations.size());
        QCOMPARE(wireOurs->mappings.size(), wireOriginal->mappings.size());
    }
};

QTEST_GUILESS_MAIN(TestRoundtrip)
#include "tst_roundtrip.moc"
