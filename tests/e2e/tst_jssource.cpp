// `symflame source` on JavaScript frames (tests/fixtures/jsfixtures.cmake): real Node profiles
// (node --cpu-prof, @datadog/pprof) of a TypeScript program compiled by tsc (separate maps
// without sourcesContent, inline maps) and bundled by esbuild (a map with sourcesContent). A
// mapped function's listing is the original .ts file's text, said to come from the map's
// sourcesContent or from the file; its per-line costs equal counts the test makes from the same
// profile symbolized by `symflame symbolize`. Broken maps (a sourcesContent entry of the wrong
// type, a missing or shorter array, a source index out of range) and a moved source tree give
// clear messages, every path tried, and never a crash.
#include "processhelpers.h"

#include "model/core/profile.h"
#include "model/io/profileio.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <map>
#include <set>

using namespace symflame;
using symflame::testing::runSymflame;

namespace {

const QString kOut = QStringLiteral(SYMFLAME_JS_FIXTURES);
const QString kSrc = QStringLiteral(SYMFLAME_JS_SOURCES);

struct Cost {
    int64_t flat = 0, cum = 0;
    bool operator==(const Cost&) const = default;
};
using LineCosts = std::map<std::pair<std::string, int64_t>, Cost>; // (file, line) -> cost

// The test's own count of a function's costs by (file, line) over a symbolized profile: the leaf
// frame gets flat, each distinct frame of a sample's stack cum once (of sample type type).
LineCosts countFunction(const model::Profile& p, size_t type, const std::string& function)
{
    LineCosts out;
    for (size_t s = 0; s < p.sampleCount(); ++s) {
        const int64_t v = p.values(s)[type];
        std::set<std::pair<std::string, int64_t>> seen;
        bool leaf = true;
        for (const model::LocationId id : p.sampleStack(s))
            for (const model::Line& l : p.linesOf(p.locations[id.index()])) {
                const model::Function& f = p.functions[l.function.index()];
                const bool match = p.str(f.name) == function;
                const std::pair<std::string, int64_t> key { std::string(p.str(f.file)), l.line };
                if (match && leaf)
                    out[key].flat += v;
                leaf = false;
                if (match && seen.insert(key).second)
                    out[key].cum += v;
            }
    }
    return out;
}

QStringList fileLines(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    QStringList lines = QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'));
    if (!lines.isEmpty() && lines.back().isEmpty())
        lines.pop_back();
    return lines;
}

QJsonObject sourceJson(const QStringList& args, int* rc = nullptr, QByteArray* err = nullptr)
{
    int code = -1;
    const QByteArray out = runSymflame(QStringList { QStringLiteral("source") } + args + QStringList { QStringLiteral("--json") }, &code, err);
    if (rc)
        *rc = code;
    return QJsonDocument::fromJson(out).object();
}

// The function of that name in a `source --json` answer.
QJsonObject functionNamed(const QJsonObject& json, const QString& name)
{
    for (const QJsonValue& f : json[QStringLiteral("functions")].toArray())
        if (f[QStringLiteral("name")].toString() == name)
            return f.toObject();
    return {};
}

// A copy of the esbuild bundle in dir, its map's JSON changed by edit.
bool copyBundle(const QString& dir, const std::function<void(QJsonObject&)>& edit)
{
    if (!QFile::copy(kOut + "/bundle/bundle.js", dir + "/bundle.js"))
        return false;
    QFile in(kOut + "/bundle/bundle.js.map");
    if (!in.open(QIODevice::ReadOnly))
        return false;
    QJsonObject map = QJsonDocument::fromJson(in.readAll()).object();
    edit(map);
    QFile out(dir + "/bundle.js.map");
    return out.open(QIODevice::WriteOnly) && out.write(QJsonDocument(map).toJson()) > 0;
}

} // namespace

class TestJsSource : public QObject {
    Q_OBJECT

private slots:
    // Every mapped function of every fixture profile: the text of the original .ts file, where it
    // came from, and the per-line costs the test counts from the symbolized profile.
    void originalText_data()
    {
        QTest::addColumn<QString>("profile");
        QTest::addColumn<QString>("from");
        QTest::addRow("esbuild bundle, cpuprofile") << "bundle.cpuprofile" << "sourcesContent";
        QTest::addRow("esbuild bundle, pprof") << "bundle.pb.gz" << "sourcesContent";
        QTest::addRow("tsc separate maps, cpuprofile") << "separate.cpuprofile" << "file";
        QTest::addRow("tsc inline maps, pprof") << "inline.pb.gz" << "file";
    }
    void originalText()
    {
        QFETCH(QString, profile);
        QFETCH(QString, from);
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString symbolized = tmp.filePath("symbolized.pb.gz");
        int rc = -1;
        runSymflame({ "symbolize", kOut + "/" + profile, "-o", symbolized }, &rc);
        QCOMPARE(rc, 0);
        auto p = model::loadProfile(symbolized.toStdString());
        QVERIFY(p);

        const QJsonObject json = sourceJson({ kOut + "/" + profile, "^(spin|crunchAsync|area|makeShapes)$" }, &rc);
        QCOMPARE(rc, 0);
        const QJsonArray functions = json["functions"].toArray();
        QVERIFY(functions.size() >= 3);
        const int type = p->findSampleType(json["sample_type"].toString().toStdString());
        QVERIFY(type >= 0);
        int checkedLines = 0;
        for (const QJsonValue& fv : functions) {
            const QJsonObject f = fv.toObject();
            const QString file = f["file"].toString();
            QVERIFY2(file.endsWith(".ts") && QFileInfo(file).canonicalFilePath() == QFileInfo(kSrc + "/" + QFileInfo(file).fileName()).canonicalFilePath(),
                qPrintable(file));
            const QJsonObject source = f["source"].toObject();
            QVERIFY2(source["found"].toBool(), qPrintable(QJsonDocument(source).toJson()));
            QCOMPARE(source["from"].toString(), from);
            if (from == "sourcesContent")
                QVERIFY2(source["origin"].toString().endsWith("bundle.js.map"), qPrintable(source["origin"].toString()));
            else
                QCOMPARE(QFileInfo(source["path"].toString()).canonicalFilePath(), QFileInfo(file).canonicalFilePath());
            // The text of each listed line is the .ts file's.
            const QStringList original = fileLines(kSrc + "/" + QFileInfo(file).fileName());
            QVERIFY(!original.isEmpty());
            // The costs are the test's count over the symbolized profile, line by line.
            const LineCosts expected = countFunction(*p, size_t(type), f["name"].toString().toStdString());
            LineCosts got;
            for (const QJsonValue& lv : f["lines"].toArray()) {
                const QJsonObject l = lv.toObject();
                const int64_t line = l["line"].toInteger();
                QVERIFY(line >= 1 && line <= original.size());
                QCOMPARE(l["text"].toString(), original[int(line - 1)]);
                got[{ file.toStdString(), line }] = Cost { l["flat"].toInteger(), l["cum"].toInteger() };
                ++checkedLines;
            }
            LineCosts expectedInFile;
            for (const auto& [key, cost] : expected)
                if (key.first == file.toStdString())
                    expectedInFile[key] = cost;
            QVERIFY(!expectedInFile.empty());
            QVERIFY2(got == expectedInFile, qPrintable(f["name"].toString()));
        }
        QVERIFY(checkedLines >= 3);

        // The text output says where the text came from, and lists the original lines.
        const QByteArray text = runSymflame({ "source", kOut + "/" + profile, "^spin$" }, &rc);
        QCOMPARE(rc, 0);
        QVERIFY2(text.contains(from == "sourcesContent" ? " Source from the sourcesContent of " : " Source from the file "), text.constData());
        QVERIFY2(text.contains(":function spin(ms: number): number {"), text.constData());
    }

    // The map of the tsc build has no sourcesContent: its absence is among the paths tried, and a
    // source tree moved away is found through --source-dir.
    void noSourcesContent()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        for (const char* name : { "main.js", "main.js.map", "work.js", "work.js.map", "shapes.js", "shapes.js.map" })
            QVERIFY(QFile::copy(kOut + "/separate/" + name, tmp.filePath(name)));
        const QString pathMap = "--path-map=" + kOut + "/separate=" + tmp.path();
        int rc = -1;
        const QJsonObject missing = functionNamed(sourceJson({ kOut + "/separate.cpuprofile", "^spin$", pathMap }, &rc), "spin");
        QCOMPARE(rc, 0);
        // The map's relative source, resolved from the copy: not there.
        const QJsonObject source = missing["source"].toObject();
        QVERIFY(!source["found"].toBool());
        const QJsonArray tried = source["tried"].toArray();
        QVERIFY2(tried.size() >= 2, qPrintable(QJsonDocument(source).toJson()));
        QCOMPARE(tried[0].toString(), tmp.filePath("work.js.map") + ": sourcesContent[0] absent");
        QVERIFY2(tried[1].toString().endsWith("/src/work.ts: not found"), qPrintable(tried[1].toString()));
        // The costs, by line number, without text.
        QVERIFY(!missing["lines"].toArray().isEmpty());
        QVERIFY(!missing["lines"].toArray()[0].toObject().contains("text"));

        const QJsonObject found = functionNamed(
            sourceJson({ kOut + "/separate.cpuprofile", "^spin$", pathMap, "--source-dir", kSrc }, &rc), "spin");
        QCOMPARE(rc, 0);
        QVERIFY(found["source"]["found"].toBool());
        QCOMPARE(found["source"]["path"].toString(), kSrc + "/work.ts");
        QCOMPARE(found["source"]["from"].toString(), QStringLiteral("file"));
    }

    // Bad maps: the text is taken where it is usable, and otherwise every place tried says why.
    void brokenMaps_data()
    {
        QTest::addColumn<int>("kind");
        QTest::addColumn<QString>("tried"); // the first place tried, after the map's path
        QTest::addRow("entry not a string") << 0 << ": sourcesContent[1] is not a string";
        QTest::addRow("entry null") << 1 << ": sourcesContent[1] is null";
        QTest::addRow("array shorter") << 2 << ": sourcesContent[1] absent";
        QTest::addRow("no array") << 3 << ": sourcesContent[1] absent";
        QTest::addRow("not an array") << 4 << ": sourcesContent is not an array";
    }
    void brokenMaps()
    {
        QFETCH(int, kind);
        QFETCH(QString, tried);
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        // sources: shapes.ts, work.ts, main.ts (esbuild's order); work.ts is spin's.
        QVERIFY(copyBundle(tmp.path(), [&](QJsonObject& map) {
            QJsonArray contents = map["sourcesContent"].toArray();
            QCOMPARE(map["sources"].toArray()[1].toString().endsWith("work.ts"), true);
            switch (kind) {
            case 0:
                contents[1] = 7;
                break;
            case 1:
                contents[1] = QJsonValue::Null;
                break;
            case 2:
                contents = QJsonArray { contents[0] };
                break;
            case 4:
                map["sourcesContent"] = QStringLiteral("not an array");
                return;
            }
            if (kind == 3)
                map.remove("sourcesContent");
            else
                map["sourcesContent"] = contents;
        }));
        const QString pathMap = "--path-map=" + kOut + "/bundle=" + tmp.path();
        int rc = -1;
        const QJsonObject json = sourceJson({ kOut + "/bundle.cpuprofile", "^(spin|area)$", pathMap }, &rc);
        QCOMPARE(rc, 0);
        const QJsonObject spin = functionNamed(json, "spin");
        QVERIFY(!spin["source"]["found"].toBool());
        const QJsonArray triedPaths = spin["source"]["tried"].toArray();
        QVERIFY(triedPaths.size() >= 2);
        QCOMPARE(triedPaths[0].toString(), tmp.filePath("bundle.js.map") + tried);
        QVERIFY(!spin["lines"].toArray().isEmpty());
        // shapes.ts, entry 0, is still read from the map where the map has it.
        const QJsonObject area = functionNamed(json, "area");
        QVERIFY2(!area.isEmpty(), "no sample in area: the fixture profile is too short");
        QCOMPARE(area["source"]["found"].toBool(), kind <= 2);
        if (kind <= 2)
            QCOMPARE(area["source"]["from"].toString(), QStringLiteral("sourcesContent"));

        // The text output: not found, every path tried, the costs by line number.
        const QByteArray text = runSymflame({ "source", kOut + "/bundle.cpuprofile", "^spin$", pathMap }, &rc);
        QCOMPARE(rc, 0);
        QVERIFY2(text.contains(" Source not found: ") && text.contains(tried.toUtf8()), text.constData());
    }

    // A segment naming a source index past `sources`: the map is refused with the reason, the
    // frames keep their generated positions and the generated script's text is listed.
    void sourceIndexOutOfRange()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        QVERIFY(copyBundle(tmp.path(), [](QJsonObject& map) {
            map["sources"] = QJsonArray { map["sources"].toArray()[0] };
            map["sourcesContent"] = QJsonArray { map["sourcesContent"].toArray()[0] };
        }));
        int rc = -1;
        QByteArray err;
        const QJsonObject spin = functionNamed(
            sourceJson({ kOut + "/bundle.cpuprofile", "^spin$", "--path-map=" + kOut + "/bundle=" + tmp.path() }, &rc, &err),
            "spin");
        QCOMPARE(rc, 0);
        QVERIFY2(spin["file"].toString().endsWith("bundle.js"), qPrintable(spin["file"].toString()));
        QVERIFY(spin["source"]["found"].toBool());
        QCOMPARE(spin["source"]["path"].toString(), tmp.filePath("bundle.js"));
        const QStringList generated = fileLines(tmp.filePath("bundle.js"));
        const QJsonObject line = spin["lines"].toArray()[0].toObject();
        QCOMPARE(line["text"].toString(), generated[int(line["line"].toInteger() - 1)]);
        QVERIFY(line["text"].toString().contains("function spin(ms)"));
    }
};

QTEST_MAIN(TestJsSource)
#include "tst_jssource.moc"
