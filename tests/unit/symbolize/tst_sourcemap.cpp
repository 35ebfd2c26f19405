// Tests of source maps and Node profiles: the VLQ decoder on values from the spec's encoding;
// the decoder against @jridgewell/trace-mapping (run under node) on maps made at build time by
// tsc (separate and inline maps), esbuild (a bundle) and an index map assembled from tsc maps;
// real `node --cpu-prof` profiles read, source-mapped and every fixture frame compared with the
// oracle; and bad input (malformed VLQ, version 2, missing, unreadable and refused maps, an
// oversized `mappings`, deep nesting), each with its reason checked.
#include "filehelpers.h"
#include "model/io/cpuprofile.h"
#include "model/io/profileio.h"
#include "symbolize/js/sourcemap.h"
#include "symbolize/js/sourcemapresolver.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <QUrl>

#include <map>

using namespace symflame;
using symbolize::SourceMap;

using symflame::testing::mustReadFile;
using symflame::testing::mustWriteFile;

namespace {

const QString kFixtures = QStringLiteral(SYMFLAME_JS_FIXTURES);

struct Position {
    uint32_t line;
    uint32_t column;
    bool leastUpperBound = false; ///< ask with LEAST_UPPER_BOUND (no column known)
};

// The oracle's answers for positions (0-based) in mapFile; sources resolved from mapUrl.
QJsonArray oracle(const QString& mapFile, const QString& mapUrl, const std::vector<Position>& positions)
{
    QTemporaryDir dir;
    QByteArray text;
    for (const Position& p : positions)
        text += QByteArray::number(p.line) + ' ' + QByteArray::number(p.column) + (p.leastUpperBound ? " lub\n" : "\n");
    mustWriteFile(dir.filePath("positions"), text);
    QProcess node;
    node.start(QStringLiteral(SYMFLAME_NODE),
        {QStringLiteral(SYMFLAME_JS_ORACLE), QStringLiteral(SYMFLAME_JS_NODE_MODULES), mapFile, mapUrl,
            dir.filePath("positions")});
    if (!node.waitForFinished(120000) || node.exitCode() != 0)
        qFatal("oracle failed: %s", node.readAllStandardError().constData());
    const QJsonArray answers = QJsonDocument::fromJson(node.readAllStandardOutput()).array();
    if (answers.size() != qsizetype(positions.size()))
        qFatal("oracle answered %d of %d positions", int(answers.size()), int(positions.size()));
    return answers;
}

// Every column up to a little past each line's end, on every line and one more.
std::vector<Position> positionsOf(const QString& script)
{
    std::vector<Position> out;
    const QList<QByteArray> lines = mustReadFile(script).split('\n');
    for (qsizetype l = 0; l <= lines.size(); ++l) {
        const qsizetype width = l < lines.size() ? std::min<qsizetype>(lines[l].size(), 400) : 0;
        for (qsizetype c = 0; c <= width + 2; ++c)
            out.push_back({uint32_t(l), uint32_t(c)});
    }
    return out;
}

void compareWithOracle(const SourceMap& map, const QString& mapFile, const std::vector<Position>& positions)
{
    const QJsonArray answers = oracle(mapFile, QString(), positions);
    size_t mapped = 0;
    for (size_t i = 0; i < positions.size(); ++i) {
        const QJsonObject want = answers[qsizetype(i)].toObject();
        const auto got = map.lookup(positions[i].line, positions[i].column);
        const QString where = QStringLiteral("%1 %2:%3").arg(mapFile).arg(positions[i].line).arg(positions[i].column);
        if (want["source"].isNull()) {
            QVERIFY2(!got, qPrintable(where + " maps here, not in the oracle"));
            continue;
        }
        QVERIFY2(got, qPrintable(where + " maps in the oracle, not here"));
        ++mapped;
        QCOMPARE(QString::fromStdString(std::string(got->source)), want["source"].toString());
        QCOMPARE(qint64(got->line), qint64(want["line"].toInteger()));
        QCOMPARE(qint64(got->column), qint64(want["column"].toInteger()));
        QCOMPARE(QString::fromStdString(std::string(got->name)), want["name"].isNull() ? QString() : want["name"].toString());
    }
    QVERIFY2(mapped > 20, qPrintable(QStringLiteral("only %1 positions mapped in %2").arg(mapped).arg(mapFile)));
}

SourceMap parseOrFail(const QByteArray& json)
{
    auto map = SourceMap::parse(std::string_view(json.constData(), size_t(json.size())));
    if (!map)
        qFatal("parse failed: %s", map.error().toString().c_str());
    return std::move(map).value();
}

// A one-node-per-script .cpuprofile naming url at 0-based (line, column).
QByteArray tinyCpuProfile(const QString& url, int line, int column)
{
    const QString json = QString::fromUtf8(R"j({"nodes":[)j"
        R"j({"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"children":[2]},)j"
        R"j({"id":2,"callFrame":{"functionName":"f","scriptId":"1","url":"%1","lineNumber":%2,"columnNumber":%3}}],)j"
        R"j("startTime":1000,"endTime":3000,"samples":[2,2],"timeDeltas":[10,1000]})j")
                             .arg(url)
                             .arg(line)
                             .arg(column);
    return json.toUtf8();
}

model::Profile loadTiny(const QString& url, int line = 0, int column = 0)
{
    const QByteArray json = tinyCpuProfile(url, line, column);
    auto p = model::readCpuProfile({reinterpret_cast<const uint8_t*>(json.constData()), size_t(json.size())});
    if (!p)
        qFatal("%s", p.error().toString().c_str());
    return std::move(p).value();
}

} // namespace

class TestSourceMap : public QObject {
    Q_OBJECT

private slots:
    void vlq_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("value");
        QTest::newRow("0") << "A" << 0;
        QTest::newRow("1") << "C" << 1;
        QTest::newRow("-1") << "D" << -1;
        QTest::newRow("15") << "e" << 15;
        QTest::newRow("16") << "gB" << 16;
        QTest::newRow("-16") << "hB" << -16;
        QTest::newRow("1000") << "w+B" << 1000;
    }
    void vlq()
    {
        QFETCH(QString, text);
        QFETCH(int, value);
        const std::string s = text.toStdString();
        size_t pos = 0;
        int32_t got = 0;
        QVERIFY(symbolize::decodeVlq(s, pos, got));
        QCOMPARE(got, value);
        QCOMPARE(pos, s.size());
    }
    void vlqBad()
    {
        for (const char* bad : {"g", "!", "ggggggggA", "///////A"}) {
            size_t pos = 0;
            int32_t v = 0;
            QVERIFY2(!symbolize::decodeVlq(bad, pos, v), bad);
        }
    }

    void oracleTscSeparate()
    {
        for (const char* name : {"main", "work", "shapes"}) {
            const QString script = kFixtures + "/separate/" + name + ".js";
            const SourceMap map = parseOrFail(mustReadFile(script + ".map"));
            compareWithOracle(map, script + ".map", positionsOf(script));
            if (QTest::currentTestFailed())
                return;
        }
    }
    void oracleTscInline()
    {
        QTemporaryDir dir;
        for (const char* name : {"main", "work", "shapes"}) {
            const QString script = kFixtures + "/inline/" + name + ".js";
            const QString mapFile = dir.filePath(QString(name) + ".map");
            QProcess extract;
            extract.start(QStringLiteral(SYMFLAME_NODE), {QStringLiteral(SYMFLAME_JS_INLINEMAP), script, mapFile});
            QVERIFY(extract.waitForFinished(60000) && extract.exitCode() == 0);
            compareWithOracle(parseOrFail(mustReadFile(mapFile)), mapFile, positionsOf(script));
            if (QTest::currentTestFailed())
                return;
        }
    }
    void oracleEsbuildBundle()
    {
        const QString script = kFixtures + "/bundle/bundle.js";
        compareWithOracle(parseOrFail(mustReadFile(script + ".map")), script + ".map", positionsOf(script));
    }
    void oracleIndexMap()
    {
        // work.js at line 0, shapes.js from line 200 column 7 on.
        QJsonObject first;
        first["offset"] = QJsonObject {{"line", 0}, {"column", 0}};
        first["map"] = QJsonDocument::fromJson(mustReadFile(kFixtures + "/separate/work.js.map")).object();
        QJsonObject second;
        second["offset"] = QJsonObject {{"line", 200}, {"column", 7}};
        second["map"] = QJsonDocument::fromJson(mustReadFile(kFixtures + "/separate/shapes.js.map")).object();
        QJsonObject index {{"version", 3}, {"sections", QJsonArray {first, second}}};
        QTemporaryDir dir;
        const QString mapFile = dir.filePath("index.map");
        mustWriteFile(mapFile, QJsonDocument(index).toJson());
        const SourceMap map = parseOrFail(mustReadFile(mapFile));
        std::vector<Position> positions;
        for (uint32_t l = 0; l < 260; ++l)
            for (uint32_t c = 0; c < 90; ++c)
                positions.push_back({l, c});
        compareWithOracle(map, mapFile, positions);
    }

    void nodeProfiles_data()
    {
        QTest::addColumn<QString>("build");
        QTest::addColumn<QString>("file");
        for (const char* build : {"separate", "inline", "bundle"}) {
            QTest::addRow("%s cpuprofile", build) << build << QStringLiteral("%1.cpuprofile").arg(build);
            QTest::addRow("%s datadog pprof", build) << build << QStringLiteral("%1.pb.gz").arg(build);
        }
    }
    // A real profile of each build (node --cpu-prof, @datadog/pprof), source-mapped; every frame
    // of the fixture's scripts compared with the oracle on the same generated position.
    void nodeProfiles()
    {
        QFETCH(QString, build);
        QFETCH(QString, file);
        const bool cpuprofile = file.endsWith(".cpuprofile");
        auto loaded = model::loadProfile((kFixtures + "/" + file).toStdString());
        QVERIFY2(loaded, loaded ? "" : loaded.error().toString().c_str());
        model::Profile profile = std::move(loaded).value();
        QVERIFY(profile.totalValue(0) > 100); // samples (@datadog/pprof writes one per stack, with a count)
        if (cpuprofile) {
            QCOMPARE(profile.sampleTimestamps.size(), profile.sampleCount());
            QVERIFY(std::is_sorted(profile.sampleTimestamps.begin(), profile.sampleTimestamps.end()));
        }
        QVERIFY(profile.findSampleType("wall") >= 0);
        // The program runs for a second; @datadog/pprof leaves out idle time.
        QVERIFY(profile.totalValue(size_t(profile.findSampleType("wall"))) > (cpuprofile ? 500'000'000 : 200'000'000));
        const model::Profile generated = profile;

        const symbolize::SourceMapReport report = symbolize::applySourceMaps(profile, {});
        const QString fixtureDir = kFixtures + "/" + build + "/";
        int fixtureScripts = 0;
        uint64_t resolvedHere = 0, fixtureLocations = 0;
        for (const auto& s : report.scripts) {
            if (!QString::fromStdString(symbolize::scriptPathOfUrl(s.script)).startsWith(fixtureDir))
                continue;
            ++fixtureScripts;
            QVERIFY2(s.mapped, s.line().c_str());
            QVERIFY2(s.line().find("source-mapped") != std::string::npos, s.line().c_str());
            resolvedHere += s.resolved;
            fixtureLocations += s.locations;
        }
        QVERIFY(fixtureScripts >= 1);
        uint64_t mappedByOracle = 0;

        // Every fixture frame against the oracle, by script.
        std::map<QString, std::vector<size_t>> byScript;
        for (size_t i = 0; i < generated.locations.size(); ++i) {
            if (generated.locations[i].kind != model::FrameKind::JavaScript)
                continue;
            const auto& line = generated.linesOf(generated.locations[i]).front();
            const std::string url(generated.str(generated.functions[line.function.index()].file));
            const QString path = QString::fromStdString(symbolize::scriptPathOfUrl(url));
            if (path.startsWith(fixtureDir))
                byScript[path].push_back(i);
        }
        QVERIFY(!byScript.empty());
        QTemporaryDir dir;
        QStringList notMapped;
        for (const auto& [script, locations] : byScript) {
            QString mapFile = script + ".map";
            if (build == "inline") {
                mapFile = dir.filePath(QFileInfo(script).fileName() + ".map");
                QProcess extract;
                extract.start(QStringLiteral(SYMFLAME_NODE), {QStringLiteral(SYMFLAME_JS_INLINEMAP), script, mapFile});
                QVERIFY(extract.waitForFinished(60000) && extract.exitCode() == 0);
            }
            std::vector<Position> positions;
            for (size_t i : locations) {
                const auto& line = generated.linesOf(generated.locations[i]).front();
                QVERIFY(line.line > 0);
                // pprof from @datadog/pprof has lines only: the first segment of the line.
                positions.push_back({uint32_t(line.line - 1), uint32_t(line.column > 0 ? line.column - 1 : 0),
                    line.column == 0});
            }
            const QJsonArray answers = oracle(mapFile, build == "inline" ? script : mapFile, positions);
            for (size_t k = 0; k < locations.size(); ++k) {
                const QJsonObject want = answers[qsizetype(k)].toObject();
                const auto& was = generated.linesOf(generated.locations[locations[k]]).front();
                const auto& now = profile.linesOf(profile.locations[locations[k]]).front();
                const QString generatedName
                    = QString::fromStdString(std::string(generated.str(generated.functions[was.function.index()].name)));
                // A position the map does not cover stays as it was, with the status saying so.
                if (want["source"].isNull()) {
                    QCOMPARE(now.function, was.function);
                    QCOMPARE(now.line, was.line);
                    QCOMPARE(profile.locations[locations[k]].status, model::FrameStatus::NoSourceMap);
                    notMapped << QStringLiteral("%1 %2:%3:%4").arg(generatedName, script).arg(was.line).arg(was.column);
                    continue;
                }
                ++mappedByOracle;
                QCOMPARE(profile.locations[locations[k]].status, model::FrameStatus::SourceMapped);
                const model::Function& f = profile.functions[now.function.index()];
                QCOMPARE(QString::fromStdString(std::string(profile.str(f.file))), want["source"].toString());
                QCOMPARE(now.line, want["line"].toInteger() + 1);
                QCOMPARE(now.column, want["column"].toInteger() + 1);
                QCOMPARE(QString::fromStdString(std::string(profile.str(f.name))),
                    want["name"].isNull() ? generatedName : want["name"].toString());
                // The generated function and position stay in systemName.
                const QString url = QString::fromStdString(std::string(generated.str(generated.functions[was.function.index()].file)));
                QString position = QStringLiteral("%1 %2:%3").arg(generatedName, url).arg(was.line);
                if (was.column > 0)
                    position += QStringLiteral(":%1").arg(was.column);
                QCOMPARE(QString::fromStdString(std::string(profile.str(f.systemName))), position);
                QVERIFY(QString::fromStdString(std::string(profile.str(f.file))).endsWith(".ts"));
            }
        }
        // Independent of the oracle: spin(), where the program spends most of its time, lands on
        // its declaration line in work.ts.
        const QList<QByteArray> workTs = mustReadFile(QStringLiteral(SYMFLAME_TEST_SOURCE_DIR "/jsfixtures/src/work.ts")).split('\n');
        const qsizetype spinLine = std::find_if(workTs.begin(), workTs.end(),
                                       [](const QByteArray& l) { return l.startsWith("function spin("); })
            - workTs.begin() + 1;
        bool spinSeen = false;
        for (const model::Location& loc : profile.locations) {
            if (loc.status != model::FrameStatus::SourceMapped)
                continue;
            const model::Line& line = profile.linesOf(loc).front();
            const model::Function& f = profile.functions[line.function.index()];
            if (profile.str(f.name) != "spin")
                continue;
            spinSeen = true;
            QVERIFY2(profile.str(f.file).ends_with("/jsfixtures/src/work.ts"), std::string(profile.str(f.file)).c_str());
            QCOMPARE(line.line, int64_t(spinLine));
        }
        QVERIFY(spinSeen);
        // Every frame the oracle maps is resolved, and only those.
        QVERIFY(mappedByOracle > 0);
        QCOMPARE(resolvedHere, mappedByOracle);
        qInfo("%s: %llu of %llu fixture frames source-mapped; not mapped (as in the oracle): %s", qPrintable(file),
            qulonglong(resolvedHere), qulonglong(fixtureLocations), qPrintable(notMapped.join(", ")));
    }

    void badMaps_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("reason");
        QTest::newRow("malformed VLQ") << QByteArray(R"({"version":3,"sources":["a.ts"],"names":[],"mappings":"AAAA,A!AA"})")
                                       << "malformed base64 VLQ value at offset 6";
        QTest::newRow("truncated VLQ") << QByteArray(R"({"version":3,"sources":["a.ts"],"names":[],"mappings":"AAAg"})")
                                       << "malformed base64 VLQ";
        QTest::newRow("version 2") << QByteArray(R"({"version":2,"sources":[],"mappings":""})") << "version 2, only version 3";
        QTest::newRow("no version") << QByteArray(R"({"sources":[],"mappings":""})") << "no version";
        QTest::newRow("not JSON") << QByteArray("{\"version\":3,") << "not valid JSON";
        QTest::newRow("source out of range") << QByteArray(R"({"version":3,"sources":["a.ts"],"mappings":"ACAA"})")
                                             << "source index 1 out of range";
        QTest::newRow("two fields") << QByteArray(R"({"version":3,"sources":["a.ts"],"mappings":"AA"})") << "segment with 2 fields";
        QByteArray deep = R"({"version":3,"sources":[],"mappings":""})";
        for (int i = 0; i < 6; ++i)
            deep = R"({"version":3,"sections":[{"offset":{"line":0,"column":0},"map":)" + deep + "}]}";
        QTest::newRow("deep sections") << deep << "nested deeper than 4";
    }
    void badMaps()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, reason);
        auto map = SourceMap::parse(std::string_view(json.constData(), size_t(json.size())));
        QVERIFY(!map);
        QVERIFY2(QString::fromStdString(map.error().message).contains(reason), map.error().message.c_str());
    }
    void enormousMappings()
    {
        QByteArray mappings;
        while (mappings.size() < (4 << 20))
            mappings += "AAAA,";
        const QByteArray json = "{\"version\":3,\"sources\":[\"a.ts\"],\"mappings\":\"" + mappings + "\"}";
        symbolize::SourceMapLimits limits;
        limits.maxMappingsBytes = 1 << 20;
        auto tooLong = SourceMap::parse(std::string_view(json.constData(), size_t(json.size())), limits);
        QVERIFY(!tooLong);
        QCOMPARE(tooLong.error().code, model::ErrorCode::TooLarge);
        QVERIFY2(tooLong.error().message.find("more than the limit of 1048576") != std::string::npos, tooLong.error().message.c_str());
        limits = {};
        limits.maxSegments = 1000;
        auto tooMany = SourceMap::parse(std::string_view(json.constData(), size_t(json.size())), limits);
        QVERIFY(!tooMany);
        QVERIFY2(tooMany.error().message.find("more than 1000 segments") != std::string::npos, tooMany.error().message.c_str());
        // Within the default limits the same map decodes, every segment on line 0.
        auto ok = SourceMap::parse(std::string_view(json.constData(), size_t(json.size())));
        QVERIFY(ok);
        QCOMPARE(ok->segmentCount(), size_t(mappings.size() / 5));
    }

    void resolverStatuses()
    {
        QTemporaryDir dir;
        const QByteArray goodMap = R"({"version":3,"sources":["orig.ts"],"names":["realName"],"mappings":"AAAAA"})";
        // No map anywhere.
        mustWriteFile(dir.filePath("plain/a.js"), "function f() {}\n");
        // A URL outside the script's directory.
        mustWriteFile(dir.filePath("outside/b.js"), "function f() {}\n//# sourceMappingURL=../elsewhere/b.js.map\n");
        mustWriteFile(dir.filePath("elsewhere/b.js.map"), goodMap);
        // An unreadable map (a directory where the map should be).
        mustWriteFile(dir.filePath("unreadable/c.js"), "function f() {}\n");
        QDir().mkpath(dir.filePath("unreadable/c.js.map"));
        // A map of another version.
        mustWriteFile(dir.filePath("v2/d.js"), "function f() {}\n//@ sourceMappingURL=d.map\n");
        mustWriteFile(dir.filePath("v2/d.map"), R"({"version":2,"sources":[],"mappings":""})");
        // Found in a source-map directory; recorded under another prefix (path map).
        mustWriteFile(dir.filePath("served/e.js"), "function f() {}\n");
        mustWriteFile(dir.filePath("maps/e.js.map"), goodMap);
        // An inline map, not base64.
        mustWriteFile(dir.filePath("inline/g.js"),
            "function f() {}\n//# sourceMappingURL=data:application/json,"
                + QUrl::toPercentEncoding(QString::fromUtf8(goodMap)) + "\n");

        struct Case {
            QString url;
            bool mapped;
            QString reason;
        };
        const QString root = dir.path();
        const std::vector<Case> cases = {
            {"file://" + root + "/plain/a.js", false, "no map found (tried " + root + "/plain/a.js.map (not found), " + root
                    + "/maps/a.js.map (not found))"},
            {"file://" + root + "/outside/b.js", false, "sourceMappingURL ../elsewhere/b.js.map refused: " + root
                    + "/elsewhere/b.js.map is outside the script's directory and the source-map directories"},
            {"file://" + root + "/unreadable/c.js", false, "map " + root + "/unreadable/c.js.map unreadable"},
            {"file://" + root + "/v2/d.js", false, "map " + root + "/v2/d.map: source map version 2, only version 3 is read"},
            {"file:///recorded/app/e.js", true, {}},
            {"file://" + root + "/inline/g.js", true, {}},
            {"file://" + root + "/missing/h.js", false, "script not readable"},
        };
        for (const Case& c : cases) {
            model::Profile p = loadTiny(c.url);
            symbolize::SourceMapOptions options;
            options.sourceMapDirs.push_back((root + "/maps").toStdString());
            options.pathMaps.push_back({"/recorded/app", (root + "/served").toStdString()});
            const auto report = symbolize::applySourceMaps(p, options);
            QCOMPARE(report.scripts.size(), size_t(1));
            const auto& s = report.scripts.front();
            QVERIFY2(s.mapped == c.mapped, s.line().c_str());
            if (!c.mapped) {
                QVERIFY2(QString::fromStdString(s.line()).contains("no source map: " + c.reason), s.line().c_str());
                QCOMPARE(p.str(p.functions[p.lines.back().function.index()].name), std::string_view("f"));
                continue;
            }
            const model::Line& line = p.linesOf(p.locations.back()).front();
            const model::Function& f = p.functions[line.function.index()];
            QCOMPARE(p.str(f.name), std::string_view("realName"));
            QVERIFY2(p.str(f.file).ends_with("/orig.ts"), std::string(p.str(f.file)).c_str());
            QCOMPARE(line.line, int64_t(1));
            QCOMPARE(line.column, int64_t(1));
        }
    }

    // symflame symbolize on a real .cpuprofile: the written pprof holds the mapped frames (the
    // generated position in system_name), one report line per script; a second pass over the
    // output maps nothing again; a broken profile is one line on stderr and exit 2.
    void symbolizeCommand()
    {
        QTemporaryDir dir;
        // The profile of the tsc build, its scripts moved away from their maps.
        for (const char* name : {"main", "work", "shapes"}) {
            QByteArray js = mustReadFile(kFixtures + "/separate/" + name + ".js");
            js.replace("//# sourceMappingURL=", "// (map removed) ");
            mustWriteFile(dir.filePath(QStringLiteral("app/%1.js").arg(name)), js);
        }
        QByteArray cpuprofile = mustReadFile(kFixtures + "/separate.cpuprofile");
        cpuprofile.replace((kFixtures + "/separate/").toUtf8(), (dir.path() + "/app/").toUtf8());
        mustWriteFile(dir.filePath("in.cpuprofile"), cpuprofile);
        const auto run = [](const QStringList& args, QByteArray* out, QByteArray* err) {
            QProcess p;
            p.start(QStringLiteral(SYMFLAME_EXECUTABLE), args);
            if (!p.waitForFinished(120000))
                return -1;
            *out = p.readAllStandardOutput();
            *err = p.readAllStandardError();
            return p.exitCode();
        };
        QByteArray out, err;
        QCOMPARE(run({"symbolize", dir.filePath("in.cpuprofile"), "-o", dir.filePath("out.pb.gz"), "--source-map-dir",
                         kFixtures + "/separate"},
                     &out, &err),
            0);
        const QString work = "file://" + dir.path() + "/app/work.js  source-mapped  " + kFixtures + "/separate/work.js.map  ";
        QVERIFY2(QString::fromUtf8(out).contains(work), out.constData());

        auto written = model::loadProfile(dir.filePath("out.pb.gz").toStdString());
        QVERIFY2(written, written ? "" : written.error().toString().c_str());
        int spin = 0;
        for (const model::Line& line : written->lines) {
            const model::Function& f = written->functions[line.function.index()];
            if (written->str(f.name) != "spin")
                continue;
            ++spin;
            QVERIFY2(written->str(f.file).ends_with("/jsfixtures/src/work.ts"), std::string(written->str(f.file)).c_str());
            QVERIFY2(written->str(f.systemName).starts_with("spin file://" + dir.path().toStdString() + "/app/work.js:"),
                std::string(written->str(f.systemName)).c_str());
        }
        QVERIFY(spin >= 1);
        // The output again: its .ts frames are no JavaScript scripts to map; a second pass
        // leaves every function as it was.
        QCOMPARE(run({"symbolize", dir.filePath("out.pb.gz"), "-o", dir.filePath("again.pb.gz"), "--source-map-dir",
                         kFixtures + "/separate"},
                     &out, &err),
            0);
        // (Only the frames the map did not cover, the module wrappers, are tried again.)
        for (const QByteArray& line : out.split('\n'))
            QVERIFY2(!line.contains("source-mapped") || line.endsWith(" 0/1"), out.constData());
        auto again = model::loadProfile(dir.filePath("again.pb.gz").toStdString());
        QVERIFY(again);
        QCOMPARE(again->functions.size(), written->functions.size());

        // Without the directory: no source map, with the paths tried.
        QCOMPARE(run({"symbolize", dir.filePath("in.cpuprofile"), "-o", dir.filePath("none.pb.gz")}, &out, &err), 0);
        QVERIFY2(QString::fromUtf8(out).contains("file://" + dir.path() + "/app/work.js  no source map: no map found (tried "
                     + dir.path() + "/app/work.js.map (not found))"),
            out.constData());

        // A broken profile.
        mustWriteFile(dir.filePath("broken.cpuprofile"), R"({"nodes":[{"id":1,"callFrame":{}}],"samples":[7],"timeDeltas":[1]})");
        QCOMPARE(run({"symbolize", dir.filePath("broken.cpuprofile"), "-o", dir.filePath("b.pb.gz")}, &out, &err), 2);
        QCOMPARE(err.count('\n'), 1);
        QVERIFY2(err.startsWith("symflame: " + dir.filePath("broken.cpuprofile").toUtf8() + ": cpuprofile: sample 0 names an unknown node"),
            err.constData());
        QVERIFY(!QFile::exists(dir.filePath("b.pb.gz")));
    }

    // Bad maps found through scripts: every one a status with its reason, no crash, no hang.
    void resolverBadMaps()
    {
        QTemporaryDir dir;
        QByteArray huge = "{\"version\":3,\"sources\":[\"a.ts\"],\"mappings\":\"";
        while (huge.size() < (64 << 20))
            huge += QByteArray(1 << 20, 'A'); // one segment of 64 M fields
        huge += "\"}";
        const std::vector<std::pair<QByteArray, QString>> cases = {
            {R"({"version":3,"sources":["a.ts"],"names":[],"mappings":"AAAA,A!AA"})", "malformed base64 VLQ value"},
            {R"({"version":4,"sources":[],"mappings":""})", "source map version 4, only version 3 is read"},
            {"not json", "source map is not valid JSON"},
            {huge, "segment with more than 5 fields"},
        };
        for (size_t i = 0; i < cases.size(); ++i) {
            const QString script = dir.filePath(QStringLiteral("s%1.js").arg(i));
            mustWriteFile(script, "function f() {}\n");
            mustWriteFile(script + ".map", cases[i].first);
            model::Profile p = loadTiny("file://" + script);
            QElapsedTimer timer;
            timer.start();
            const auto report = symbolize::applySourceMaps(p, {});
            QVERIFY2(timer.elapsed() < 20000, "took too long");
            QCOMPARE(report.scripts.size(), size_t(1));
            const auto& s = report.scripts.front();
            QVERIFY(!s.mapped);
            QVERIFY2(QString::fromStdString(s.reason).contains(cases[i].second), s.line().c_str());
            QCOMPARE(p.locations.back().status, model::FrameStatus::NoSourceMap);
        }
        // A data: URI with bad base64, and a file:// URL outside the allowed directories.
        mustWriteFile(dir.filePath("d.js"), "f()\n//# sourceMappingURL=data:application/json;base64,@@@\n");
        mustWriteFile(dir.filePath("e.js"), "f()\n//# sourceMappingURL=file:///etc/passwd\n");
        for (const auto& [name, reason] : std::vector<std::pair<QString, QString>> {
                 {"d.js", "data: URI with bad base64"}, {"e.js", "refused: /etc/passwd is outside"}}) {
            model::Profile p = loadTiny("file://" + dir.filePath(name));
            const auto report = symbolize::applySourceMaps(p, {});
            QVERIFY2(QString::fromStdString(report.scripts.front().reason).contains(reason),
                report.scripts.front().line().c_str());
        }
        // The marker inside a string of the code is no link; a remote URL is never fetched, and
        // the map is then looked for beside the script and in the source-map directories.
        const QByteArray good = R"({"version":3,"sources":["o.ts"],"names":[],"mappings":"AAAA"})";
        mustWriteFile(dir.filePath("str.js"), "var s = \"//# sourceMappingURL=nowhere.map\";\n");
        mustWriteFile(dir.filePath("str.js.map"), good);
        mustWriteFile(dir.filePath("remote.js"), "f()\n//# sourceMappingURL=https://cdn.invalid/remote.js.map\n");
        mustWriteFile(dir.filePath("maps/remote.js.map"), good);
        for (const QString& name : {QStringLiteral("str.js"), QStringLiteral("remote.js")}) {
            model::Profile p = loadTiny("file://" + dir.filePath(name));
            symbolize::SourceMapOptions options;
            options.sourceMapDirs.push_back(dir.filePath("maps").toStdString());
            const auto report = symbolize::applySourceMaps(p, options);
            const auto& s = report.scripts.front();
            QVERIFY2(s.mapped, s.line().c_str());
            QVERIFY2(s.tried.front().find("nowhere.map") == std::string::npos, s.tried.front().c_str());
            if (name == "remote.js")
                QCOMPARE(s.tried.front(), std::string("https://cdn.invalid/remote.js.map (remote, not fetched)"));
            QCOMPARE(p.locations.back().status, model::FrameStatus::SourceMapped);
        }
        // A symbolic link inside the script's directory pointing out of it is outside too.
        QTemporaryDir other;
        mustWriteFile(other.filePath("x.js.map"), R"({"version":3,"sources":["o.ts"],"mappings":"AAAA"})");
        QVERIFY(QFile::link(other.path(), dir.filePath("link")));
        mustWriteFile(dir.filePath("l.js"), "f()\n//# sourceMappingURL=link/x.js.map\n");
        model::Profile p = loadTiny("file://" + dir.filePath("l.js"));
        const auto report = symbolize::applySourceMaps(p, {});
        QVERIFY2(report.scripts.front().reason.find("is outside the script's directory") != std::string::npos,
            report.scripts.front().line().c_str());
    }

    void cpuProfileDetectedAndChecked()
    {
        const QByteArray good = tinyCpuProfile("file:///x.js", 3, 4);
        QVERIFY(model::detectFormat({reinterpret_cast<const uint8_t*>(good.constData()), size_t(good.size())})
            == model::ProfileFormat::CpuProfile);
        const model::Profile p = loadTiny("file:///x.js", 3, 4);
        QCOMPARE(p.sampleCount(), size_t(2));
        QCOMPARE(p.locations.back().kind, model::FrameKind::JavaScript);
        QCOMPARE(p.lines.back().line, int64_t(4));
        QCOMPARE(p.lines.back().column, int64_t(5));
        QCOMPARE(p.value(0, 1), int64_t(1000'000)); // until the next sample: 1000 µs
        QCOMPARE(p.value(1, 1), int64_t(990'000)); // until endTime
        QCOMPARE(p.sampleTimestamps[1], int64_t(2'010'000));
        QCOMPARE(p.durationNanos, int64_t(2'000'000));
        QCOMPARE(p.timeNanos, int64_t(0)); // startTime is on V8's monotonic clock, not the epoch
        for (const QByteArray& bad : {QByteArray(R"({"nodes":[{"id":1}]})"),
                 QByteArray(R"({"nodes":[{"id":1,"callFrame":{},"children":[9]}]})"),
                 QByteArray(R"({"nodes":[{"id":1,"callFrame":{}}],"samples":[1],"timeDeltas":[]})"),
                 QByteArray(R"({"nodes":[{"id":1,"callFrame":{},"children":[1]}]})"),
                 QByteArray(R"({"nodes":[{"id":1,"callFrame":{}},{"id":2,"callFrame":{},"children":[3]},)"
                            R"({"id":3,"callFrame":{},"children":[2]}],"samples":[2],"timeDeltas":[1]})"),
                 QByteArray(R"({"nodes":[{"id":1,"callFrame":{}}],"samples":[1],"timeDeltas":["x"]})"),
                 QByteArray(R"({"nodes":[{"id":1,"callFrame":{}}],"samples":[1,1],"timeDeltas":[1,9223372036854775807]})")}) {
            auto r = model::readCpuProfile({reinterpret_cast<const uint8_t*>(bad.constData()), size_t(bad.size())});
            QVERIFY2(!r, bad.constData());
            QVERIFY(r.error().message.starts_with("cpuprofile: "));
        }
        // Fields of the wrong type are read as absent, not thrown on.
        const QByteArray odd = R"({"nodes":[{"id":1,"callFrame":{"functionName":5,"url":[],"lineNumber":"x"}}],)"
                               R"("samples":[1],"timeDeltas":[1]})";
        auto r = model::readCpuProfile({reinterpret_cast<const uint8_t*>(odd.constData()), size_t(odd.size())});
        QVERIFY2(r, r ? "" : r.error().message.c_str());
        QCOMPARE(r->str(r->functions.front().name), std::string_view("(anonymous)"));
    }

    // A chain of nodes sampled at every depth makes stacks whose frames grow with the square of
    // the file's size: past CpuProfileLimits::maxStackFrames the file is TooLarge, not read.
    void cpuProfileStackFramesLimited()
    {
        constexpr int kNodes = 200;
        QByteArray json = "{\"nodes\":[";
        for (int id = 1; id <= kNodes; ++id) {
            json += "{\"id\":" + QByteArray::number(id) + ",\"callFrame\":{\"functionName\":\"f"
                + QByteArray::number(id) + "\",\"url\":\"file:///chain.js\",\"lineNumber\":" + QByteArray::number(id)
                + "}";
            if (id < kNodes)
                json += ",\"children\":[" + QByteArray::number(id + 1) + "]";
            json += id < kNodes ? "}," : "}";
        }
        QByteArray samples, deltas;
        for (int id = 2; id <= kNodes; ++id) {
            samples += (id > 2 ? "," : "") + QByteArray::number(id);
            deltas += id > 2 ? ",1" : "1";
        }
        json += "],\"startTime\":0,\"endTime\":1000,\"samples\":[" + samples + "],\"timeDeltas\":[" + deltas + "]}";
        const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(json.constData()), size_t(json.size()));
        // Node k (the root is node 1, left out) stands k-1 frames deep: 1 + 2 + ... + 199.
        const size_t frames = size_t(kNodes - 1) * kNodes / 2;

        auto whole = model::readCpuProfile(bytes, {.maxStackFrames = frames});
        QVERIFY2(whole, whole ? "" : whole.error().message.c_str());
        QCOMPARE(whole->stackLocations.size(), frames);
        QCOMPARE(whole->sampleCount(), size_t(kNodes - 1));

        auto cut = model::readCpuProfile(bytes, {.maxStackFrames = frames - 1});
        QVERIFY(!cut);
        QCOMPARE(cut.error().code, model::ErrorCode::TooLarge);
        QCOMPARE(QString::fromStdString(cut.error().message),
            QStringLiteral("cpuprofile: the sampled stacks hold more than %1 frames (the node tree is too deep)")
                .arg(frames - 1));
    }
};

QTEST_GUILESS_MAIN(TestSourceMap)
#include "tst_sourcemap.moc"
