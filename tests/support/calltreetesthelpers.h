// Helpers shared by the call tree, top table, folded and flame layout tests: profiles from
// folded text, a profile with an inline chain built by hand, and trees printed as lines.
#pragma once

#include "model/analysis/calltree.h"
#include "model/io/fileio.h"
#include "model/io/folded.h"
#include "model/io/gzip.h"
#include "model/io/pprof/pprof.h"
#include "model/core/profile.h"

#include <QByteArray>
#include <QDir>
#include <QProcess>
#include <QProcessEnvironment>
#include <QStandardPaths>
#include <QString>
#include <QStringList>
#include <QTest>

#include <span>
#include <string>

namespace symflame::testing {

/// Parses folded text, failing the calling test (through QVERIFY2 in the caller) on error.
inline model::Profile profileFromFolded(const QByteArray& folded, bool* ok = nullptr)
{
    auto r = model::readFolded(
        std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(folded.constData()), size_t(folded.size())));
    if (ok)
        *ok = r.ok();
    if (!r.ok()) {
        qWarning("readFolded failed: %s", r.error().toString().c_str());
        return model::Profile {};
    }
    return std::move(r).value();
}

/// One line per node below the root, depth-first in child order: indentation of one space per
/// level below the first, then "name=total", or "name=total/self" when withSelf.
inline QStringList printTree(const model::CallTree& tree, const model::SymbolTable& symbols, bool withSelf = false)
{
    QStringList out;
    struct Item {
        model::NodeId node;
        int indent;
    };
    std::vector<Item> work;
    const auto top = tree.children(tree.root());
    for (auto it = top.rbegin(); it != top.rend(); ++it)
        work.push_back({ *it, 0 });
    while (!work.empty()) {
        const Item item = work.back();
        work.pop_back();
        const auto& n = tree.node(item.node);
        QString line = QString(item.indent, QLatin1Char(' ')) + QString::fromStdString(symbols.displayName(n.symbol))
            + QLatin1Char('=') + QString::number(n.total);
        if (withSelf)
            line += QLatin1Char('/') + QString::number(n.self);
        out << line;
        const auto kids = tree.children(item.node);
        for (auto it = kids.rbegin(); it != kids.rend(); ++it)
            work.push_back({ *it, item.indent + 1 });
    }
    return out;
}

/// A profile with two sample types ("samples"/"count", "cpu"/"nanoseconds") whose leaf
/// location carries an inline chain: `inner` inlined into `outer` (one location, two lines),
/// called from `main`. Stack: main -> outer -> inner with values {3, 3000}; plus main alone
/// with {1, 1000}.
inline model::Profile inlineProfile()
{
    using namespace symflame::model;
    Profile p;
    p.sampleTypes.push_back({ p.strings.intern("samples"), p.strings.intern("count") });
    p.sampleTypes.push_back({ p.strings.intern("cpu"), p.strings.intern("nanoseconds") });
    p.defaultSampleType = 1;
    Mapping m;
    m.start = 0x400000;
    m.limit = 0x500000;
    m.file = p.strings.intern("/usr/bin/prog");
    m.flags = Mapping::HasFunctions | Mapping::HasInlineFrames;
    p.mappings.push_back(m);
    auto addFunction = [&](const char* name) {
        Function f;
        f.name = p.strings.intern(name);
        f.systemName = f.name;
        f.file = p.strings.intern("prog.cpp");
        p.functions.push_back(f);
        return FunctionId(p.functions.size() - 1);
    };
    const FunctionId fMain = addFunction("main");
    const FunctionId fOuter = addFunction("outer");
    const FunctionId fInner = addFunction("inner");
    auto addLocation = [&](uint64_t address, std::initializer_list<Line> lines) {
        Location l;
        l.mapping = MappingId(0u);
        l.address = address;
        l.linesBegin = uint32_t(p.lines.size());
        l.lineCount = uint32_t(lines.size());
        p.lines.insert(p.lines.end(), lines);
        p.locations.push_back(l);
        return LocationId(p.locations.size() - 1);
    };
    const LocationId lMain = addLocation(0x401000, { Line { fMain, 10, 0 } });
    const LocationId lLeaf = addLocation(0x402000, { Line { fInner, 20, 0 }, Line { fOuter, 30, 0 } });
    const LocationId s1[] = { lLeaf, lMain };
    const int64_t v1[] = { 3, 3000 };
    p.addSample(p.internStack(s1), v1);
    const LocationId s2[] = { lMain };
    const int64_t v2[] = { 1, 1000 };
    p.addSample(p.internStack(s2), v2);
    p.finishBuilding();
    p.updateFrameStatuses();
    return p;
}

/// Writes the profile as gzip-compressed pprof into dir and runs `go tool pprof ARGS FILE`
/// there (with -symbolize=none, and HOME and the caches inside dir). Returns its standard
/// output; on failure an empty string and the reason in *error.
inline QString runPprof(const model::Profile& p, const QString& dir, const QStringList& args, QString* error)
{
    const QString go = QStandardPaths::findExecutable(QStringLiteral("go"));
    if (go.isEmpty()) {
        *error = QStringLiteral("`go` is not on PATH; this comparison needs `go tool pprof`");
        return {};
    }
    const std::string path = QDir(dir).filePath(QStringLiteral("profile.pb.gz")).toStdString();
    const std::vector<uint8_t> raw = model::encodePprof(p);
    auto gz = model::gzipCompress(raw);
    if (!gz.ok()) {
        *error = QString::fromStdString(gz.error().toString());
        return {};
    }
    if (const model::Status st = model::writeFileAtomically(path, *gz); !st.ok()) {
        *error = QString::fromStdString(st.error().toString());
        return {};
    }
    QProcess proc;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("HOME"), dir);
    env.insert(QStringLiteral("PPROF_TMPDIR"), dir);
    env.insert(QStringLiteral("GOCACHE"), QDir(dir).filePath(QStringLiteral("gocache")));
    proc.setProcessEnvironment(env);
    proc.start(go,
        QStringList { QStringLiteral("tool"), QStringLiteral("pprof"), QStringLiteral("-symbolize=none") } + args
            + QStringList { QString::fromStdString(path) });
    if (!proc.waitForFinished(120000) || proc.exitStatus() != QProcess::NormalExit || proc.exitCode() != 0) {
        *error = QStringLiteral("go tool pprof failed: ") + QString::fromUtf8(proc.readAllStandardError());
        return {};
    }
    return QString::fromUtf8(proc.readAllStandardOutput());
}

} // namespace symflame::testing
