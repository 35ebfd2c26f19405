// Tests of the pprof reader and writer and of profileio. Profiles are built and checked with
// protoc-generated classes (tests/proto/profile.proto), an encoder and decoder independent of
// model/io/protowire.h: valid ones with unusual ids, orders and encodings, hostile ones whose error
// text is asserted, and everything encodePprof writes is decoded by them and compared.
#include "model/io/fileio.h"
#include "model/io/gzip.h"
#include "model/io/pprof/pprof.h"
#include "model/io/profileio.h"

#include "proto/profile.pb.h"
#include "proto/unpacked.pb.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <QFile>
#include <QObject>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <limits>
#include <map>
#include <random>
#include <set>
#include <string>

using namespace symflame::model;
namespace pb = perftools::profiles;

Q_DECLARE_METATYPE(std::vector<uint64_t>)

namespace {

std::string serialize(const google::protobuf::MessageLite& m)
{
    std::string s;
    if (!m.SerializeToString(&s))
        qFatal("SerializeToString failed");
    return s;
}

std::span<const uint8_t> span(const std::string& s)
{
    return { reinterpret_cast<const uint8_t*>(s.data()), s.size() };
}

std::span<const uint8_t> span(const QByteArray& s)
{
    return { reinterpret_cast<const uint8_t*>(s.constData()), size_t(s.size()) };
}

QByteArray qbytes(const std::string& s)
{
    return QByteArray(s.data(), qsizetype(s.size()));
}

std::string gzipped(const std::string& s)
{
    auto r = gzipCompress(span(s));
    if (!r)
        qFatal("gzipCompress failed");
    return std::string(r->begin(), r->end());
}

QString errorText(const Error& e)
{
    return QString::fromStdString(e.message);
}

/// Index of s in the pprof string table, adding it when new ("" is entry 0).
int64_t S(pb::Profile& p, const std::string& s)
{
    if (p.string_table_size() == 0)
        p.add_string_table("");
    for (int i = 0; i < p.string_table_size(); ++i)
        if (p.string_table(i) == s)
            return i;
    p.add_string_table(s);
    return p.string_table_size() - 1;
}

pb::Line* addLine(pb::Location* loc, uint64_t function, int64_t line, int64_t column = 0)
{
    pb::Line* l = loc->add_line();
    l->set_function_id(function);
    l->set_line(line);
    l->set_column(column);
    return l;
}

/// A small valid profile: two sample types (samples/count, cpu/nanoseconds), mapping 1, functions
/// 1 "main" and 2 "foo", locations 1 (foo) and 2 (main), samples [1 2]={1,10000} and [2]={2,20000}.
pb::Profile baseProfile()
{
    pb::Profile p;
    S(p, "");
    auto* st = p.add_sample_type();
    st->set_type(S(p, "samples"));
    st->set_unit(S(p, "count"));
    st = p.add_sample_type();
    st->set_type(S(p, "cpu"));
    st->set_unit(S(p, "nanoseconds"));
    auto* m = p.add_mapping();
    m->set_id(1);
    m->set_memory_start(0x400000);
    m->set_memory_limit(0x500000);
    m->set_filename(S(p, "/bin/app"));
    m->set_build_id(S(p, "abcdef"));
    auto* f = p.add_function();
    f->set_id(1);
    f->set_name(S(p, "main"));
    f->set_filename(S(p, "main.c"));
    f = p.add_function();
    f->set_id(2);
    f->set_name(S(p, "foo"));
    f->set_filename(S(p, "main.c"));
    auto* l = p.add_location();
    l->set_id(1);
    l->set_mapping_id(1);
    l->set_address(0x401000);
    addLine(l, 2, 10);
    l = p.add_location();
    l->set_id(2);
    l->set_mapping_id(1);
    l->set_address(0x402000);
    addLine(l, 1, 20);
    auto* s = p.add_sample();
    s->add_location_id(1);
    s->add_location_id(2);
    s->add_value(1);
    s->add_value(10000);
    s = p.add_sample();
    s->add_location_id(2);
    s->add_value(2);
    s->add_value(20000);
    return p;
}

/// A top-level sample field (Profile field 2) written by hand: body is the sample message's
/// fields, for encodings of location_id that protoc does not write.
std::string sampleField(const std::string& body)
{
    std::string field;
    google::protobuf::io::StringOutputStream out(&field);
    google::protobuf::io::CodedOutputStream cos(&out);
    cos.WriteTag((2 << 3) | 2);
    cos.WriteVarint32(uint32_t(body.size()));
    cos.WriteString(body);
    cos.Trim();
    return field;
}

Result<Profile> readBytes(const std::string& bytes)
{
    return readPprof(span(bytes));
}

std::string describe(const Result<Profile>& r)
{
    return r.ok() ? std::string("ok") : r.error().toString();
}

/// A profile using every field the model has, built with the model's own API.
Profile richProfile()
{
    Profile p;
    auto s = [&](std::string_view x) { return p.strings.intern(x); };
    p.sampleTypes
        = { { s("alloc_objects"), s("count") }, { s("alloc_space"), s("bytes") }, { s("inuse_space"), s("bytes") } };
    p.defaultSampleType = 1;
    p.periodType = { s("space"), s("bytes") };
    p.period = 524288;
    p.timeNanos = 1700000000123456789;
    p.durationNanos = 30'000'000'000;
    p.comments = { s("first comment"), s("second: \xc3\xbcnicode") };
    p.dropFrames = s("runtime\\..*");
    p.keepFrames = s("main\\..*");
    p.docUrl = s("https://example.com/doc");
    s("a string nothing uses");

    p.mappings.push_back({ 0x400000, 0x4a0000, 0, s("/usr/bin/app"), s("0123456789abcdef0123456789abcdef01234567"),
        Mapping::HasFunctions | Mapping::HasFilenames | Mapping::HasLineNumbers | Mapping::HasInlineFrames, 0 });
    p.mappings.push_back({ 0x7f0000000000, 0x7f0000200000, 0x1000, s("/lib/x86_64-linux-gnu/libc.so.6"), s("feedface"),
        Mapping::HasFunctions, 0 });
    p.mappings.push_back({ 0x7ffff7fc1000, 0x7ffff7fc3000, 0, s("[vdso]"), {}, 0, 0 });

    p.functions.push_back({ s("main"), s("main"), s("/src/main.cpp"), 8, 0 });
    p.functions.push_back({ s("compute(int)"), s("_Z7computei"), s("/src/compute.h"), 50, 0 });
    p.functions.push_back({ s("std::vector<int>::push_back(int const&)"), s("_ZNSt6vectorIiSaIiEE9push_backERKi"),
        s("/usr/include/c++/12/bits/stl_vector.h"), 1270, 0 });
    p.functions.push_back({ s("malloc"), {}, {}, 0, 0 });

    auto addLocation = [&](int mapping, uint64_t address, std::vector<Line> lines, bool folded = false) {
        Location loc;
        loc.mapping = mapping < 0 ? MappingId() : MappingId(uint32_t(mapping));
        loc.address = address;
        loc.linesBegin = uint32_t(p.lines.size());
        loc.lineCount = uint32_t(lines.size());
        loc.isFolded = folded;
        p.lines.insert(p.lines.end(), lines.begin(), lines.end());
        p.locations.push_back(loc);
    };
    // innermost inlined function first, the physical frame last
    addLocation(0, 0x401234, { { FunctionId(2u), 1274, 7 }, { FunctionId(1u), 55, 3 }, { FunctionId(0u), 10, 0 } });
    addLocation(0, 0x401100, { { FunctionId(0u), 12, 5 } });
    addLocation(1, 0x7f0000012345, { { FunctionId(3u), 0, 0 } });
    addLocation(1, 0x7f0000054321, {});
    addLocation(2, 0x7ffff7fc1a00, {}, true);
    addLocation(-1, 0xdeadbeef, {});

    auto addSample = [&](std::vector<uint32_t> stack, std::vector<int64_t> values, std::vector<Label> labels) {
        std::vector<LocationId> locs;
        for (uint32_t l : stack)
            locs.push_back(LocationId(l));
        p.addSample(p.internStack(locs), values);
        p.setSampleLabelSet(p.sampleCount() - 1, p.internLabelSet(labels));
    };
    addSample(
        { 2, 0, 1 }, { 1, 512, 512 }, { { s("thread"), s("worker-1"), 0, {} }, { s("bytes"), {}, 512, s("bytes") } });
    addSample({ 2, 0, 1 }, { 2, 1024, -1024 }, {});
    addSample({}, { 0, 0, 0 }, {});
    addSample({ 3, 4, 5, 1 }, { std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min(), 1 },
        { { s("request"), {}, -5, {} } });
    addSample({ 1 }, { 7, 8, 9 }, { { s("k"), s("v"), 0, {} }, { s("k"), s("w"), 0, {} } });
    p.updateFrameStatuses();
    p.finishBuilding();
    return p;
}

/// Compares two profiles by content: strings by value, table rows in order. sourceIds of b are
/// expected to be 1..n (what encodePprof writes).
void compareProfiles(const Profile& a, const Profile& b)
{
    auto eq = [&](StringId x, StringId y) { return a.str(x) == b.str(y); };
    QCOMPARE(b.sampleTypes.size(), a.sampleTypes.size());
    for (size_t i = 0; i < a.sampleTypes.size(); ++i) {
        QVERIFY(eq(a.sampleTypes[i].type, b.sampleTypes[i].type));
        QVERIFY(eq(a.sampleTypes[i].unit, b.sampleTypes[i].unit));
    }
    QCOMPARE(b.defaultSampleType, a.defaultSampleType);
    QVERIFY(eq(a.periodType.type, b.periodType.type));
    QVERIFY(eq(a.periodType.unit, b.periodType.unit));
    QCOMPARE(b.period, a.period);
    QCOMPARE(b.timeNanos, a.timeNanos);
    QCOMPARE(b.durationNanos, a.durationNanos);
    QCOMPARE(b.comments.size(), a.comments.size());
    for (size_t i = 0; i < a.comments.size(); ++i)
        QVERIFY(eq(a.comments[i], b.comments[i]));
    QVERIFY(eq(a.dropFrames, b.dropFrames));
    QVERIFY(eq(a.keepFrames, b.keepFrames));
    QVERIFY(eq(a.docUrl, b.docUrl));

    QCOMPARE(b.mappings.size(), a.mappings.size());
    for (size_t i = 0; i < a.mappings.size(); ++i) {
        const Mapping &x = a.mappings[i], &y = b.mappings[i];
        QCOMPARE(y.start, x.start);
        QCOMPARE(y.limit, x.limit);
        QCOMPARE(y.offset, x.offset);
        QVERIFY(eq(x.file, y.file));
        QVERIFY(eq(x.buildId, y.buildId));
        QCOMPARE(y.flags, x.flags);
        QCOMPARE(y.sourceId, uint64_t(i + 1));
    }
    QCOMPARE(b.functions.size(), a.functions.size());
    for (size_t i = 0; i < a.functions.size(); ++i) {
        const Function &x = a.functions[i], &y = b.functions[i];
        QVERIFY(eq(x.name, y.name));
        QVERIFY(eq(x.systemName, y.systemName));
        QVERIFY(eq(x.file, y.file));
        QCOMPARE(y.startLine, x.startLine);
        QCOMPARE(y.sourceId, uint64_t(i + 1));
    }
    QCOMPARE(b.locations.size(), a.locations.size());
    for (size_t i = 0; i < a.locations.size(); ++i) {
        const Location &x = a.locations[i], &y = b.locations[i];
        QCOMPARE(y.mapping, x.mapping);
        QCOMPARE(y.address, x.address);
        QCOMPARE(y.isFolded, x.isFolded);
        QCOMPARE(y.status, x.status);
        QCOMPARE(y.sourceId, uint64_t(i + 1));
        const auto lx = a.linesOf(x);
        const auto ly = b.linesOf(y);
        QCOMPARE(ly.size(), lx.size());
        for (size_t k = 0; k < lx.size(); ++k) {
            QCOMPARE(ly[k].function, lx[k].function);
            QCOMPARE(ly[k].line, lx[k].line);
            QCOMPARE(ly[k].column, lx[k].column);
        }
    }
    QCOMPARE(b.sampleCount(), a.sampleCount());
    QCOMPARE(b.stackCount(), a.stackCount());
    QVERIFY(b.sampleValues == a.sampleValues);
    for (size_t i = 0; i < a.sampleCount(); ++i) {
        const auto sx = a.sampleStack(i);
        const auto sy = b.sampleStack(i);
        QVERIFY(std::equal(sx.begin(), sx.end(), sy.begin(), sy.end()));
        const auto lx = a.sampleLabels(i);
        const auto ly = b.sampleLabels(i);
        QCOMPARE(ly.size(), lx.size());
        for (size_t k = 0; k < lx.size(); ++k) {
            QVERIFY(eq(lx[k].key, ly[k].key));
            QVERIFY(eq(lx[k].str, ly[k].str));
            QCOMPARE(ly[k].num, lx[k].num);
            QVERIFY(eq(lx[k].numUnit, ly[k].numUnit));
        }
    }
}

/// The strings a profile refers to (what a rebuilt string table must hold, besides "").
std::set<std::string> usedStrings(const Profile& p)
{
    std::set<std::string> out { "" };
    auto add = [&](StringId id) { out.insert(std::string(p.str(id))); };
    for (const auto& vt : p.sampleTypes) {
        add(vt.type);
        add(vt.unit);
    }
    add(p.periodType.type);
    add(p.periodType.unit);
    for (StringId c : p.comments)
        add(c);
    add(p.dropFrames);
    add(p.keepFrames);
    add(p.docUrl);
    for (const auto& m : p.mappings) {
        add(m.file);
        add(m.buildId);
    }
    for (const auto& f : p.functions) {
        add(f.name);
        add(f.systemName);
        add(f.file);
    }
    for (const auto& l : p.labels) {
        add(l.key);
        add(l.str);
        add(l.numUnit);
    }
    return out;
}

/// The streamed read of gzip input (inflated on a thread as the samples are decoded) must give
/// what reading the inflated bytes whole gives: the same error, or the same tables, string ids,
/// stack ids and label sets.
void compareReads(const Result<Profile>& whole, const Result<Profile>& streamed)
{
    QCOMPARE(streamed.ok(), whole.ok());
    if (!whole.ok()) {
        QCOMPARE(int(streamed.error().code), int(whole.error().code));
        QCOMPARE(streamed.error().message, whole.error().message);
        return;
    }
    const Profile& a = *whole;
    const Profile& b = *streamed;
    QCOMPARE(b.strings.size(), a.strings.size());
    for (size_t i = 0; i < a.strings.size(); ++i)
        QCOMPARE(b.str(StringId(uint32_t(i))), a.str(StringId(uint32_t(i))));
    QCOMPARE(b.sampleTypes.size(), a.sampleTypes.size());
    for (size_t i = 0; i < a.sampleTypes.size(); ++i) {
        QVERIFY(b.sampleTypes[i].type == a.sampleTypes[i].type);
        QVERIFY(b.sampleTypes[i].unit == a.sampleTypes[i].unit);
    }
    QCOMPARE(b.defaultSampleType, a.defaultSampleType);
    QVERIFY(b.periodType.type == a.periodType.type && b.periodType.unit == a.periodType.unit);
    QCOMPARE(b.period, a.period);
    QCOMPARE(b.timeNanos, a.timeNanos);
    QCOMPARE(b.durationNanos, a.durationNanos);
    QVERIFY(b.comments == a.comments);
    QVERIFY(b.dropFrames == a.dropFrames && b.keepFrames == a.keepFrames && b.docUrl == a.docUrl);
    QCOMPARE(b.mappings.size(), a.mappings.size());
    for (size_t i = 0; i < a.mappings.size(); ++i) {
        const Mapping &x = a.mappings[i], &y = b.mappings[i];
        QVERIFY(x.start == y.start && x.limit == y.limit && x.offset == y.offset && x.file == y.file
            && x.buildId == y.buildId && x.flags == y.flags && x.sourceId == y.sourceId);
    }
    QCOMPARE(b.functions.size(), a.functions.size());
    for (size_t i = 0; i < a.functions.size(); ++i) {
        const Function &x = a.functions[i], &y = b.functions[i];
        QVERIFY(x.name == y.name && x.systemName == y.systemName && x.file == y.file && x.startLine == y.startLine
            && x.sourceId == y.sourceId);
    }
    QCOMPARE(b.locations.size(), a.locations.size());
    for (size_t i = 0; i < a.locations.size(); ++i) {
        const Location &x = a.locations[i], &y = b.locations[i];
        QVERIFY(x.mapping == y.mapping && x.address == y.address && x.linesBegin == y.linesBegin
            && x.lineCount == y.lineCount && x.status == y.status && x.kind == y.kind && x.isFolded == y.isFolded
            && x.sourceId == y.sourceId);
    }
    QCOMPARE(b.lines.size(), a.lines.size());
    for (size_t i = 0; i < a.lines.size(); ++i)
        QVERIFY(b.lines[i].function == a.lines[i].function && b.lines[i].line == a.lines[i].line
            && b.lines[i].column == a.lines[i].column);
    QVERIFY(b.stackBegin == a.stackBegin);
    QVERIFY(b.stackLocations == a.stackLocations);
    QVERIFY(b.sampleStacks == a.sampleStacks);
    QVERIFY(b.sampleValues == a.sampleValues);
    QVERIFY(b.labels == a.labels);
    QVERIFY(b.labelSetBegin == a.labelSetBegin);
    QVERIFY(b.sampleLabelSets == a.sampleLabelSets);
}

/// n samples over 60 locations whose ids are idOf(1..60), stacks of 1-40 frames (a few of them
/// repeated), thread labels (a string value, from a table that holds "" and "worker-3" twice)
/// and numeric ones with units, some of which pprof drops (no value).
pb::Profile streamedProfile(int n, uint64_t (*idOf)(uint64_t))
{
    pb::Profile src = baseProfile();
    src.clear_sample();
    src.clear_location();
    for (uint64_t i = 1; i <= 60; ++i) {
        auto* l = src.add_location();
        l->set_id(idOf(i));
        l->set_mapping_id(1);
        l->set_address(0x401000 + i * 16);
        addLine(l, 1 + i % 2, int64_t(i));
    }
    const int64_t thread = S(src, "thread");
    const int64_t bytes = S(src, "bytes");
    const int64_t unit = S(src, "byte");
    src.add_string_table(""); // "" again, at another index
    const int64_t otherEmpty = src.string_table_size() - 1;
    std::vector<int64_t> workers;
    for (int w = 0; w < 8; ++w)
        workers.push_back(S(src, "worker-" + std::to_string(w)));
    src.add_string_table("worker-3"); // the same string at a second index
    workers.push_back(src.string_table_size() - 1);
    uint64_t state = 11;
    for (int i = 0; i < n; ++i) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        auto* s = src.add_sample();
        const int depth = (state >> 60) < 4 ? 3 : 1 + int((state >> 33) % 40);
        uint64_t h = state;
        for (int d = 0; d < depth; ++d) {
            h = h * 0x9e3779b97f4a7c15ull + 7;
            s->add_location_id(idOf(1 + ((state >> 60) < 4 ? uint64_t(d) : (h >> 40) % 60)));
        }
        s->add_value(1);
        s->add_value(int64_t(state >> 44));
        if (i % 5 != 0) {
            auto* lab = s->add_label();
            lab->set_key(thread);
            lab->set_str(i % 7 == 0 ? otherEmpty : workers[size_t(state >> 36) % workers.size()]);
        }
        if (i % 3 == 0) {
            auto* lab = s->add_label();
            lab->set_key(bytes);
            lab->set_num(i % 9 == 0 ? 0 : int64_t(state >> 50));
            if (i % 2 == 0)
                lab->set_num_unit(unit);
        }
    }
    return src;
}

class RecordingProgress : public Progress {
public:
    void setProgress(uint64_t done, uint64_t total) override { calls.push_back({ done, total }); }
    void setStage(std::string_view stage) override { stages.emplace_back(stage); }
    bool isCancelled() const override { return cancelAfterCalls >= 0 && int(calls.size()) >= cancelAfterCalls; }

    std::vector<std::pair<uint64_t, uint64_t>> calls;
    std::vector<std::string> stages;
    int cancelAfterCalls = -1;
};

} // namespace

class TestPprof : public QObject {
    Q_OBJECT

private slots:
    void readsBaseProfile()
    {
        pb::Profile src = baseProfile();
        auto r = readBytes(serialize(src));
        QVERIFY2(r.ok(), describe(r).c_str());
        const Profile& p = *r;
        QCOMPARE(p.sampleTypes.size(), size_t(2));
        QCOMPARE(p.str(p.sampleTypes[0].type), "samples");
        QCOMPARE(p.str(p.sampleTypes[1].unit), "nanoseconds");
        QCOMPARE(p.defaultSampleType, size_t(1)); // no default_sample_type: the last type
        QCOMPARE(p.mappings.size(), size_t(1));
        QCOMPARE(p.mappings[0].start, uint64_t(0x400000));
        QCOMPARE(p.mappings[0].limit, uint64_t(0x500000));
        QCOMPARE(p.str(p.mappings[0].file), "/bin/app");
        QCOMPARE(p.str(p.mappings[0].buildId), "abcdef");
        QCOMPARE(p.functions.size(), size_t(2));
        QCOMPARE(p.str(p.functions[1].name), "foo");
        QCOMPARE(p.locations.size(), size_t(2));
        QCOMPARE(p.locations[0].address, uint64_t(0x401000));
        QCOMPARE(p.locations[0].mapping, MappingId(0u));
        QCOMPARE(p.locations[0].status, FrameStatus::Symbolized);
        const auto lines = p.linesOf(p.locations[0]);
        QCOMPARE(lines.size(), size_t(1));
        QCOMPARE(lines[0].function, FunctionId(1u));
        QCOMPARE(lines[0].line, int64_t(10));
        QCOMPARE(p.sampleCount(), size_t(2));
        QVERIFY((p.sampleValues == std::vector<int64_t> { 1, 10000, 2, 20000 }));
        QCOMPARE(p.sampleStack(0).size(), size_t(2));
        QCOMPARE(p.sampleStack(0)[0], LocationId(0u));
        QCOMPARE(p.sampleStack(0)[1], LocationId(1u));
        QCOMPARE(p.sampleStack(1)[0], LocationId(1u));
        QVERIFY(!p.hasLabels());
        QCOMPARE(p.totalValue(1), int64_t(30000));

        // The same bytes gzip-compressed.
        auto z = readBytes(gzipped(serialize(src)));
        QVERIFY2(z.ok(), describe(z).c_str());
        QVERIFY(z->sampleValues == p.sampleValues);
    }

    void idsAreMapped_data()
    {
        QTest::addColumn<std::vector<uint64_t>>("ids");
        QTest::addRow("1..n") << std::vector<uint64_t> { 1, 2, 3 };
        QTest::addRow("permuted") << std::vector<uint64_t> { 3, 1, 2 };
        QTest::addRow("with gaps") << std::vector<uint64_t> { 10, 20, 5 };
        QTest::addRow("sparse") << std::vector<uint64_t> { 1, 1000000, 7 };
        QTest::addRow("huge") << std::vector<uint64_t> { (1ull << 60) + 5, 1ull << 63,
            std::numeric_limits<uint64_t>::max() };
    }

    // Whatever the ids, rows keep the file's order, sourceId keeps the id, references resolve.
    void idsAreMapped()
    {
        QFETCH(std::vector<uint64_t>, ids);
        pb::Profile src;
        auto* st = src.add_sample_type();
        st->set_type(S(src, "samples"));
        for (size_t i = 0; i < ids.size(); ++i) {
            auto* m = src.add_mapping();
            m->set_id(ids[i]);
            m->set_filename(S(src, "lib" + std::to_string(i)));
            auto* f = src.add_function();
            f->set_id(ids[i]);
            f->set_name(S(src, "fn" + std::to_string(i)));
            auto* l = src.add_location();
            l->set_id(ids[i]);
            l->set_mapping_id(ids[(i + 1) % ids.size()]);
            l->set_address(0x1000 * (i + 1));
            addLine(l, ids[(i + 2) % ids.size()], int64_t(i));
        }
        // One sample per location, then one with all of them in reverse.
        for (size_t i = 0; i < ids.size(); ++i) {
            auto* s = src.add_sample();
            s->add_location_id(ids[i]);
            s->add_value(int64_t(i + 1));
        }
        auto* all = src.add_sample();
        for (size_t i = ids.size(); i-- > 0;)
            all->add_location_id(ids[i]);
        all->add_value(100);

        auto r = readBytes(serialize(src));
        QVERIFY2(r.ok(), describe(r).c_str());
        const Profile& p = *r;
        const size_t n = ids.size();
        for (size_t i = 0; i < n; ++i) {
            QCOMPARE(p.mappings[i].sourceId, ids[i]);
            QCOMPARE(p.functions[i].sourceId, ids[i]);
            QCOMPARE(p.locations[i].sourceId, ids[i]);
            QCOMPARE(p.str(p.functions[i].name), "fn" + std::to_string(i));
            QCOMPARE(p.locations[i].mapping, MappingId(uint32_t((i + 1) % n)));
            QCOMPARE(p.linesOf(p.locations[i])[0].function, FunctionId(uint32_t((i + 2) % n)));
            QCOMPARE(p.sampleStack(i).size(), size_t(1));
            QCOMPARE(p.sampleStack(i)[0], LocationId(uint32_t(i)));
        }
        const auto stack = p.sampleStack(n);
        QCOMPARE(stack.size(), n);
        for (size_t k = 0; k < n; ++k)
            QCOMPARE(stack[k], LocationId(uint32_t(n - 1 - k)));
    }

    // Fields in an unusual order (the string table first) and repeated scalars unpacked, as
    // other encoders may write them; unknown fields are skipped at every level.
    void readsUnusualEncodings()
    {
        pb::Profile src = baseProfile();
        pb::Profile stringsOnly;
        *stringsOnly.mutable_string_table() = src.string_table();
        pb::Profile rest = src;
        rest.clear_string_table();
        rest.clear_sample();

        symflame::test::UnpackedSamples unpacked;
        for (const pb::Sample& s : src.sample()) {
            auto* u = unpacked.add_sample();
            for (uint64_t id : s.location_id())
                u->add_location_id(id);
            for (int64_t v : s.value())
                u->add_value(v);
        }
        // Protobuf concatenation is merging: these three messages read as one profile.
        std::string bytes = serialize(stringsOnly) + serialize(rest) + serialize(unpacked);
        // An unknown top-level field (number 100, length-delimited) and an unknown varint field.
        bytes += std::string("\xa2\x06\x03xyz", 6);
        bytes += std::string("\xa8\x06\x2a", 3);
        auto r = readBytes(bytes);
        QVERIFY2(r.ok(), describe(r).c_str());
        QCOMPARE(r->sampleCount(), size_t(2));
        QVERIFY((r->sampleValues == std::vector<int64_t> { 1, 10000, 2, 20000 }));
        QCOMPARE(r->sampleStack(0).size(), size_t(2));
        QCOMPARE(r->str(r->functions[0].name), "main");
        // The packed encoding of the same samples reads the same.
        auto packed = readBytes(serialize(src));
        QVERIFY(packed.ok());
        QVERIFY(packed->sampleValues == r->sampleValues);
        QVERIFY(packed->stackLocations == r->stackLocations);
    }

    // However a stack is written (packed, unpacked, split over two fields, with over-long
    // varints), the same frames give the same stack.
    void stackEncodingsDedupe()
    {
        pb::Profile head = baseProfile();
        head.clear_sample();
        std::string bytes = serialize(head);
        auto addSample = [&](const std::string& locationFields) {
            bytes += sampleField(locationFields + std::string("\x12\x02\x01\x05", 4)); // value: packed [1, 5]
        };
        addSample(std::string("\x0a\x02\x01\x02", 4)); // packed [1 2]
        addSample(std::string("\x08\x01\x08\x02", 4)); // unpacked 1, 2
        addSample(std::string("\x0a\x01\x01\x08\x02", 5)); // packed [1], then unpacked 2
        addSample(std::string("\x0a\x01\x01\x0a\x01\x02", 6)); // packed [1], packed [2]
        addSample(std::string("\x0a\x03\x81\x00\x02", 5)); // packed, 1 written as two bytes
        addSample(std::string("\x0a\x02\x01\x02", 4)); // packed [1 2] again
        addSample(std::string("\x0a\x02\x02\x01", 4)); // packed [2 1]: another stack
        auto r = readBytes(bytes);
        QVERIFY2(r.ok(), describe(r).c_str());
        QCOMPARE(r->sampleCount(), size_t(7));
        QCOMPARE(r->stackCount(), size_t(2));
        for (size_t i = 0; i < 6; ++i)
            QCOMPARE(r->sampleStacks[i], StackId(0u));
        QCOMPARE(r->sampleStacks[6], StackId(1u));
        QCOMPARE(r->stack(StackId(0u)).size(), size_t(2));
        QCOMPARE(r->stack(StackId(0u))[0], LocationId(0u));
        QCOMPARE(r->stack(StackId(0u))[1], LocationId(1u));
        QCOMPARE(r->stack(StackId(1u))[0], LocationId(1u));
    }

    void readsLabels()
    {
        pb::Profile src = baseProfile();
        src.clear_sample();
        auto addSample = [&](std::vector<std::tuple<std::string, std::string, int64_t, std::string>> labels) {
            auto* s = src.add_sample();
            s->add_location_id(1);
            s->add_value(1);
            s->add_value(2);
            for (const auto& [key, str, num, unit] : labels) {
                auto* l = s->add_label();
                l->set_key(S(src, key));
                if (!str.empty())
                    l->set_str(S(src, str));
                l->set_num(num);
                if (!unit.empty())
                    l->set_num_unit(S(src, unit));
            }
        };
        addSample({});
        addSample({});
        addSample({ { "thread", "main", 0, "" }, { "bytes", "", 4096, "bytes" } });
        addSample({});
        addSample({ { "count", "", 3, "" }, { "empty", "", 0, "" } }); // pprof drops a label with no value
        auto r = readBytes(serialize(src));
        QVERIFY2(r.ok(), describe(r).c_str());
        const Profile& p = *r;
        QCOMPARE(p.sampleLabelSets.size(), p.sampleCount());
        QCOMPARE(p.sampleLabels(0).size(), size_t(0));
        QCOMPARE(p.sampleLabels(1).size(), size_t(0));
        const auto l2 = p.sampleLabels(2);
        QCOMPARE(l2.size(), size_t(2));
        QCOMPARE(p.str(l2[0].key), "thread");
        QCOMPARE(p.str(l2[0].str), "main");
        QCOMPARE(p.str(l2[1].key), "bytes");
        QVERIFY(l2[1].str.empty());
        QCOMPARE(l2[1].num, int64_t(4096));
        QCOMPARE(p.str(l2[1].numUnit), "bytes");
        QCOMPARE(p.sampleLabels(3).size(), size_t(0));
        const auto l4 = p.sampleLabels(4);
        QCOMPARE(l4.size(), size_t(1));
        QCOMPARE(p.str(l4[0].key), "count");
        QCOMPARE(l4[0].num, int64_t(3));
    }

    void defaultSampleType_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("expected");
        QTest::addRow("unset: the last") << QString() << 1;
        QTest::addRow("first") << "samples" << 0;
        QTest::addRow("last") << "cpu" << 1;
        QTest::addRow("no such type: the last") << "bogus" << 1;
    }

    void defaultSampleType()
    {
        QFETCH(QString, name);
        QFETCH(int, expected);
        pb::Profile src = baseProfile();
        if (!name.isEmpty())
            src.set_default_sample_type(S(src, name.toStdString()));
        auto r = readBytes(serialize(src));
        QVERIFY2(r.ok(), describe(r).c_str());
        QCOMPARE(r->defaultSampleType, size_t(expected));
    }

    void frameStatuses()
    {
        pb::Profile src = baseProfile();
        auto* vdso = src.add_mapping();
        vdso->set_id(2);
        vdso->set_filename(S(src, "[vdso]"));
        auto* l = src.add_location(); // in a binary, no lines
        l->set_id(3);
        l->set_mapping_id(1);
        l = src.add_location(); // no mapping, no lines
        l->set_id(4);
        l->set_address(0x1234);
        l = src.add_location();
        l->set_id(5);
        l->set_mapping_id(2);
        l->set_is_folded(true);
        auto r = readBytes(serialize(src));
        QVERIFY2(r.ok(), describe(r).c_str());
        QCOMPARE(r->locations[0].status, FrameStatus::Symbolized);
        QCOMPARE(r->locations[2].status, FrameStatus::BinaryOnly);
        QCOMPARE(r->locations[3].status, FrameStatus::AddressOnly);
        QVERIFY(!r->locations[3].mapping.valid());
        QCOMPARE(r->locations[4].status, FrameStatus::NotApplicable);
        QVERIFY(r->locations[4].isFolded);
        QVERIFY(!r->locations[3].isFolded);
    }

    void dedupesStacks()
    {
        pb::Profile src = baseProfile();
        for (int i = 0; i < 100; ++i) {
            auto* s = src.add_sample();
            s->add_location_id(1 + i % 2);
            s->add_location_id(2);
            s->add_value(i);
            s->add_value(-i);
        }
        auto r = readBytes(serialize(src));
        QVERIFY2(r.ok(), describe(r).c_str());
        QCOMPARE(r->sampleCount(), size_t(102));
        QCOMPARE(r->stackCount(), size_t(3)); // [1 2], [2], [2 2]
        QCOMPARE(r->sampleStacks[2], r->sampleStacks[0]);
        QCOMPARE(r->value(101, 1), int64_t(-99));
    }

    void badInput_data()
    {
        QTest::addColumn<QByteArray>("input");
        QTest::addColumn<int>("code");
        QTest::addColumn<QString>("message");
        QTest::addColumn<bool>("prefixOnly");
        const auto invalid = int(ErrorCode::InvalidInput);
        const auto truncated = int(ErrorCode::Truncated);

        QTest::addRow("empty file") << QByteArray() << invalid << "empty file" << false;
        {
            std::mt19937 rng(1);
            QByteArray random(4096, '\0');
            for (auto& c : random)
                c = char(rng());
            // mt19937 is fully specified, so these bytes (and the first problem in them) are fixed.
            QTest::addRow("random bytes") << random << invalid
                                          << "not a pprof profile: field 4 (location) at byte 0 has wire type fixed32, "
                                             "expected length-delimited"
                                          << false;
        }
        {
            std::mt19937 rng(2);
            QByteArray random(4096, '\0');
            for (auto& c : random)
                c = char(rng());
            random[0] = char(0x0f); // field 1, wire type 7
            QTest::addRow("random bytes, bad wire type")
                << random << invalid << "not a protobuf message: invalid wire type 7 at byte 0" << false;
        }
        QTest::addRow("folded text") << QByteArray("main;foo 10\n") << invalid
                                     << "not a pprof profile: field 13 (comment) at byte 0 has wire type fixed32, "
                                        "expected varint"
                                     << false;
        QTest::addRow("wrong wire type") << QByteArray("\x10\x01", 2) << invalid
                                         << "not a pprof profile: field 2 (sample) at byte 0 has wire type varint, "
                                            "expected length-delimited"
                                         << false;
        QTest::addRow("only unknown fields") << QByteArray("\xa0\x01\x05", 3) << invalid
                                             << "not a pprof profile: none of its fields is a pprof field" << false;
        {
            const std::string z = gzipped(serialize(baseProfile()));
            const size_t n = z.size() / 2;
            QTest::addRow("truncated gzip")
                << qbytes(z.substr(0, n)) << truncated
                << QStringLiteral("truncated gzip stream (it ends after %1 bytes, before its end marker)").arg(n)
                << false;
        }
        QTest::addRow("gzip of nothing") << qbytes(gzipped("")) << invalid << "empty file after decompression" << false;
        {
            // The last field is the last string, "foo"... cut inside it.
            pb::Profile p = baseProfile();
            const std::string full = serialize(p);
            const std::string& last = p.string_table(p.string_table_size() - 1);
            const size_t lastField = full.size() - 2 - last.size();
            QTest::addRow("truncated protobuf")
                << qbytes(full.substr(0, full.size() - 1)) << truncated
                << QStringLiteral("truncated protobuf: length-delimited field runs past the end at byte %1")
                       .arg(lastField)
                << false;
        }
        {
            pb::Profile p = baseProfile();
            p.mutable_function(1)->set_name(99);
            QTest::addRow("string index out of range")
                << qbytes(serialize(p)) << invalid
                << QStringLiteral("string index 99 out of range (string table has %1 entries) in function 2 name")
                       .arg(p.string_table_size())
                << false;
        }
        {
            pb::Profile p = baseProfile();
            auto* l = p.mutable_sample(1)->add_label();
            l->set_key(-1);
            l->set_str(S(p, "x"));
            QTest::addRow("negative string index")
                << qbytes(serialize(p)) << invalid
                << QStringLiteral("string index -1 out of range (string table has %1 entries) in sample 1 label key")
                       .arg(p.string_table_size())
                << false;
        }
        {
            pb::Profile p = baseProfile();
            p.mutable_sample_type(1)->set_unit(p.string_table_size());
            QTest::addRow("sample type unit out of range")
                << qbytes(serialize(p)) << invalid
                << QStringLiteral("string index %1 out of range (string table has %1 entries) in sample type 1 unit")
                       .arg(p.string_table_size())
                << false;
        }
        {
            pb::Profile p = baseProfile();
            p.add_comment(S(p, "ok"));
            p.add_comment(1000);
            QTest::addRow("comment out of range")
                << qbytes(serialize(p)) << invalid
                << QStringLiteral("string index 1000 out of range (string table has %1 entries) in comment 1")
                       .arg(p.string_table_size())
                << false;
        }
        {
            pb::Profile p = baseProfile();
            p.mutable_mapping(0)->set_build_id(77);
            QTest::addRow("mapping build id out of range")
                << qbytes(serialize(p)) << invalid
                << QStringLiteral("string index 77 out of range (string table has %1 entries) in mapping 1 build id")
                       .arg(p.string_table_size())
                << false;
        }
        {
            pb::Profile p = baseProfile();
            p.mutable_sample(1)->add_location_id(42);
            QTest::addRow("unknown location id")
                << qbytes(serialize(p)) << invalid << "sample 1 refers to location 42, which does not exist" << false;
        }
        {
            pb::Profile p = baseProfile();
            p.mutable_sample(0)->mutable_value()->RemoveLast();
            QTest::addRow("too few values") << qbytes(serialize(p)) << invalid
                                            << "sample 0 has 1 value but the profile has 2 sample types" << false;
        }
        {
            pb::Profile p = baseProfile();
            p.mutable_sample(1)->add_value(5);
            QTest::addRow("too many values") << qbytes(serialize(p)) << invalid
                                             << "sample 1 has 3 values but the profile has 2 sample types" << false;
        }
        {
            pb::Profile p = baseProfile();
            p.clear_sample_type();
            QTest::addRow("samples without sample types")
                << qbytes(serialize(p)) << invalid << "profile has samples but no sample types" << false;
        }
        {
            pb::Profile p = baseProfile();
            p.mutable_location(0)->set_id(0);
            QTest::addRow("location id 0")
                << qbytes(serialize(p)) << invalid << "location id 0 is not allowed" << false;
        }
        {
            pb::Profile p = baseProfile();
            p.mutable_function(0)->set_id(0);
            QTest::addRow("function id 0")
                << qbytes(serialize(p)) << invalid << "function id 0 is not allowed" << false;
        }
        {
            pb::Profile p = baseProfile();
            p.mutable_mapping(0)->set_id(0);
            QTest::addRow("mapping id 0") << qbytes(serialize(p)) << invalid << "mapping id 0 is not allowed" << false;
        }
        {
            pb::Profile p = baseProfile();
            p.mutable_location(1)->set_id(1);
            QTest::addRow("duplicate location id")
                << qbytes(serialize(p)) << invalid << "duplicate location id 1" << false;
        }
        {
            pb::Profile p = baseProfile();
            p.mutable_function(0)->set_id(2);
            QTest::addRow("duplicate function id")
                << qbytes(serialize(p)) << invalid << "duplicate function id 2" << false;
        }
        {
            pb::Profile p = baseProfile();
            *p.add_mapping() = p.mapping(0);
            QTest::addRow("duplicate mapping id")
                << qbytes(serialize(p)) << invalid << "duplicate mapping id 1" << false;
        }
        {
            pb::Profile p = baseProfile();
            addLine(p.mutable_location(1), 9, 3);
            QTest::addRow("missing function")
                << qbytes(serialize(p)) << invalid << "line of location 2 refers to function 9, which does not exist"
                << false;
        }
        {
            pb::Profile p = baseProfile();
            p.mutable_location(1)->set_mapping_id(7);
            QTest::addRow("missing mapping")
                << qbytes(serialize(p)) << invalid << "location 2 refers to mapping 7, which does not exist" << false;
        }
        {
            pb::Profile p = baseProfile();
            p.set_string_table(0, "not empty");
            QTest::addRow("string_table[0] not empty")
                << qbytes(serialize(p)) << invalid << "string_table[0] must be empty" << false;
        }
        {
            pb::Profile p = baseProfile();
            p.set_time_nanos(1);
            const std::string one = serialize(p);
            // time_nanos (field 9, value 1) is the last field written: 2 bytes.
            QTest::addRow("concatenated profiles")
                << qbytes(one + one) << invalid
                << QStringLiteral(
                       "concatenated profiles: a second time_nanos field at byte %1 (pprof rejects them too)")
                       .arg(2 * one.size() - 2)
                << false;
        }
        {
            // A location whose body is not protobuf: what generated classes can't write.
            const std::string good = serialize(baseProfile());
            const std::string bad = good + std::string("\x22\x01\x0f", 3);
            QTest::addRow("malformed location")
                << qbytes(bad) << invalid
                << QStringLiteral("malformed location message at byte %1: invalid wire type 7 at byte %1")
                       .arg(good.size() + 2)
                << false;
        }
        {
            const std::string good = serialize(baseProfile());
            const std::string bad = good + std::string("\x12\x02\x0a\x05", 4); // packed ids longer than the sample
            QTest::addRow("malformed sample")
                << qbytes(bad) << invalid
                << QStringLiteral(
                       "malformed sample 2 (message at byte %1): length-delimited field runs past the end at "
                       "byte %1")
                       .arg(good.size() + 2)
                << false;
        }
    }

    void badInput()
    {
        QFETCH(QByteArray, input);
        QFETCH(int, code);
        QFETCH(QString, message);
        QFETCH(bool, prefixOnly);
        auto r = readPprof(span(input));
        QVERIFY2(!r.ok(), "the bad input was accepted");
        if (prefixOnly)
            QVERIFY2(errorText(r.error()).startsWith(message), r.error().message.c_str());
        else
            QCOMPARE(errorText(r.error()), message);
        QCOMPARE(int(r.error().code), code);
        QVERIFY(r.error().path.empty());
    }

    // rich profile -> encodePprof -> readPprof gives the same tables back.
    void roundTrip()
    {
        const Profile original = richProfile();
        const std::vector<uint8_t> bytes = encodePprof(original);
        auto r = readPprof(bytes);
        QVERIFY2(r.ok(), describe(r).c_str());
        compareProfiles(original, *r);
        if (QTest::currentTestFailed())
            return;
        // And once more: encoding what was read gives identical bytes.
        QVERIFY(encodePprof(*r) == bytes);
    }

    // What encodePprof writes, decoded by the generated classes, says what the model says.
    void encodedProfileDecodesIndependently()
    {
        const Profile p = richProfile();
        const std::vector<uint8_t> bytes = encodePprof(p);
        pb::Profile d;
        QVERIFY(d.ParseFromArray(bytes.data(), int(bytes.size())));
        auto str = [&](int64_t i) -> std::string {
            if (i < 0 || i >= d.string_table_size())
                return "<out of range " + std::to_string(i) + ">";
            return d.string_table(int(i));
        };

        // String table: "" first, no duplicates, exactly the strings the profile uses.
        QVERIFY(d.string_table_size() > 0);
        QCOMPARE(d.string_table(0), std::string());
        const std::set<std::string> table(d.string_table().begin(), d.string_table().end());
        QCOMPARE(table.size(), size_t(d.string_table_size()));
        QVERIFY(table == usedStrings(p));
        QVERIFY(!table.count("a string nothing uses"));

        QCOMPARE(d.sample_type_size(), 3);
        for (int i = 0; i < 3; ++i) {
            QCOMPARE(str(d.sample_type(i).type()), std::string(p.str(p.sampleTypes[i].type)));
            QCOMPARE(str(d.sample_type(i).unit()), std::string(p.str(p.sampleTypes[i].unit)));
        }
        QCOMPARE(str(d.default_sample_type()), std::string("alloc_space"));
        QCOMPARE(str(d.period_type().type()), std::string("space"));
        QCOMPARE(str(d.period_type().unit()), std::string("bytes"));
        QCOMPARE(d.period(), p.period);
        QCOMPARE(d.time_nanos(), p.timeNanos);
        QCOMPARE(d.duration_nanos(), p.durationNanos);
        QCOMPARE(d.comment_size(), 2);
        QCOMPARE(str(d.comment(1)), std::string("second: \xc3\xbcnicode"));
        QCOMPARE(str(d.drop_frames()), std::string("runtime\\..*"));
        QCOMPARE(str(d.keep_frames()), std::string("main\\..*"));
        QCOMPARE(str(d.doc_url()), std::string("https://example.com/doc"));

        QCOMPARE(size_t(d.mapping_size()), p.mappings.size());
        for (int i = 0; i < d.mapping_size(); ++i) {
            const auto& m = d.mapping(i);
            const Mapping& x = p.mappings[size_t(i)];
            QCOMPARE(m.id(), uint64_t(i + 1));
            QCOMPARE(m.memory_start(), x.start);
            QCOMPARE(m.memory_limit(), x.limit);
            QCOMPARE(m.file_offset(), x.offset);
            QCOMPARE(str(m.filename()), std::string(p.str(x.file)));
            QCOMPARE(str(m.build_id()), std::string(p.str(x.buildId)));
            QCOMPARE(m.has_functions(), x.has(Mapping::HasFunctions));
            QCOMPARE(m.has_filenames(), x.has(Mapping::HasFilenames));
            QCOMPARE(m.has_line_numbers(), x.has(Mapping::HasLineNumbers));
            QCOMPARE(m.has_inline_frames(), x.has(Mapping::HasInlineFrames));
        }
        QCOMPARE(size_t(d.function_size()), p.functions.size());
        for (int i = 0; i < d.function_size(); ++i) {
            const auto& f = d.function(i);
            const Function& x = p.functions[size_t(i)];
            QCOMPARE(f.id(), uint64_t(i + 1));
            QCOMPARE(str(f.name()), std::string(p.str(x.name)));
            QCOMPARE(str(f.system_name()), std::string(p.str(x.systemName)));
            QCOMPARE(str(f.filename()), std::string(p.str(x.file)));
            QCOMPARE(f.start_line(), x.startLine);
        }
        QCOMPARE(size_t(d.location_size()), p.locations.size());
        for (int i = 0; i < d.location_size(); ++i) {
            const auto& l = d.location(i);
            const Location& x = p.locations[size_t(i)];
            QCOMPARE(l.id(), uint64_t(i + 1));
            QCOMPARE(l.mapping_id(), x.mapping.valid() ? uint64_t(x.mapping.index() + 1) : uint64_t(0));
            QCOMPARE(l.address(), x.address);
            QCOMPARE(l.is_folded(), x.isFolded);
            const auto lines = p.linesOf(x);
            QCOMPARE(size_t(l.line_size()), lines.size());
            for (int k = 0; k < l.line_size(); ++k) {
                const Line& xl = lines[size_t(k)];
                QCOMPARE(l.line(k).function_id(), xl.function.valid() ? uint64_t(xl.function.index() + 1) : 0);
                QCOMPARE(l.line(k).line(), xl.line);
                QCOMPARE(l.line(k).column(), xl.column);
            }
        }
        QCOMPARE(size_t(d.sample_size()), p.sampleCount());
        for (int i = 0; i < d.sample_size(); ++i) {
            const auto& s = d.sample(i);
            const auto stack = p.sampleStack(size_t(i));
            QCOMPARE(size_t(s.location_id_size()), stack.size());
            for (int k = 0; k < s.location_id_size(); ++k)
                QCOMPARE(s.location_id(k), uint64_t(stack[size_t(k)].index() + 1));
            const auto values = p.values(size_t(i));
            QCOMPARE(size_t(s.value_size()), values.size());
            for (int k = 0; k < s.value_size(); ++k)
                QCOMPARE(s.value(k), values[size_t(k)]);
            const auto labels = p.sampleLabels(size_t(i));
            QCOMPARE(size_t(s.label_size()), labels.size());
            for (int k = 0; k < s.label_size(); ++k) {
                QCOMPARE(str(s.label(k).key()), std::string(p.str(labels[size_t(k)].key)));
                QCOMPARE(str(s.label(k).str()), std::string(p.str(labels[size_t(k)].str)));
                QCOMPARE(s.label(k).num(), labels[size_t(k)].num);
                QCOMPARE(str(s.label(k).num_unit()), std::string(p.str(labels[size_t(k)].numUnit)));
            }
        }

        // location_id and value are written packed: the first field inside each non-empty sample
        // is field 1 with wire type 2. Read with protobuf's own CodedInputStream.
        google::protobuf::io::CodedInputStream in(bytes.data(), int(bytes.size()));
        int samplesSeen = 0;
        int packedSeen = 0;
        for (uint32_t tag; (tag = in.ReadTag()) != 0;) {
            const int field = int(tag >> 3);
            const int wire = int(tag & 7);
            if (wire == 2) {
                uint32_t len = 0;
                QVERIFY(in.ReadVarint32(&len));
                std::string body;
                QVERIFY(in.ReadString(&body, int(len)));
                if (field == 2) {
                    ++samplesSeen;
                    if (!body.empty()) {
                        QVERIFY(uint8_t(body[0]) == 0x0a || uint8_t(body[0]) == 0x12); // packed ids or values
                        ++packedSeen;
                    }
                }
            } else {
                QCOMPARE(wire, 0);
                uint64_t v;
                QVERIFY(in.ReadVarint64(&v));
            }
        }
        QCOMPARE(samplesSeen, int(p.sampleCount()));
        QCOMPARE(packedSeen, int(p.sampleCount()));
    }

    // The default type is written only when it is not the last one (readers' fallback).
    void defaultSampleTypeWritten()
    {
        Profile p = richProfile();
        p.defaultSampleType = 2;
        pb::Profile d;
        const auto bytes = encodePprof(p);
        QVERIFY(d.ParseFromArray(bytes.data(), int(bytes.size())));
        QCOMPARE(d.default_sample_type(), int64_t(0));
        auto back = readPprof(bytes);
        QVERIFY(back.ok());
        QCOMPARE(back->defaultSampleType, size_t(2));
    }

    // pprof needs a function on every line: lines without one are left out, the others kept.
    void linesWithoutFunctionsAreNotWritten()
    {
        Profile p = richProfile();
        Location& loc = p.locations[0];
        std::vector<Line> lines(p.linesOf(loc).begin(), p.linesOf(loc).end());
        lines.insert(lines.begin() + 1, Line { FunctionId(), 99, 4 });
        loc.linesBegin = uint32_t(p.lines.size());
        loc.lineCount = uint32_t(lines.size());
        p.lines.insert(p.lines.end(), lines.begin(), lines.end());
        const auto bytes = encodePprof(p);
        pb::Profile d;
        QVERIFY(d.ParseFromArray(bytes.data(), int(bytes.size())));
        QCOMPARE(d.location(0).line_size(), 3);
        QCOMPARE(d.location(0).line(0).function_id(), uint64_t(3));
        QCOMPARE(d.location(0).line(1).function_id(), uint64_t(2));
        QCOMPARE(d.location(0).line(1).line(), int64_t(55));
        auto back = readPprof(bytes);
        QVERIFY(back.ok());
        compareProfiles(richProfile(), *back);
    }

    void emptyProfileRoundTrips()
    {
        Profile p;
        const auto bytes = encodePprof(p);
        // An empty message is no bytes at all, which a reader can't tell from an empty file.
        QVERIFY(bytes.size() > 0);
        auto r = readPprof(bytes);
        QVERIFY2(r.ok(), describe(r).c_str());
        QCOMPARE(r->sampleCount(), size_t(0));
        QCOMPARE(r->locations.size(), size_t(0));
    }

    void writesAndLoadsFiles()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const Profile original = richProfile();
        const std::string path = dir.filePath("out.pb.gz").toStdString();
        const Status s = writePprofFile(original, path);
        QVERIFY2(s.ok(), s.ok() ? "" : s.error().toString().c_str());
        auto file = readWholeFile(path);
        QVERIFY(file.ok());
        QVERIFY(isGzip(*file));

        auto loaded = loadProfile(path);
        QVERIFY2(loaded.ok(), describe(loaded).c_str());
        compareProfiles(original, *loaded);
        if (QTest::currentTestFailed())
            return;

        // Uncompressed on disk loads the same.
        const std::string rawPath = dir.filePath("out.pb").toStdString();
        QVERIFY(writeFileAtomically(rawPath, encodePprof(original)).ok());
        QCOMPARE(detectFormat(encodePprof(original)), ProfileFormat::Pprof);
        auto raw = loadProfile(rawPath);
        QVERIFY2(raw.ok(), describe(raw).c_str());
        compareProfiles(original, *raw);

        QVERIFY(saveProfile(original, dir.filePath("saved.pb.gz").toStdString(), ProfileFormat::Pprof, path).ok());
        auto saved = loadProfile(dir.filePath("saved.pb.gz").toStdString());
        QVERIFY(saved.ok());
        QCOMPARE(saved->sampleCount(), original.sampleCount());
    }

    void loadErrors_data()
    {
        QTest::addColumn<QByteArray>("content"); // "<missing>": no file at all
        QTest::addColumn<int>("code");
        QTest::addColumn<QString>("message"); // after "<path>: "

        QTest::addRow("missing file") << QByteArray("<missing>") << int(ErrorCode::NotFound) << "no such file";
        QTest::addRow("empty file") << QByteArray() << int(ErrorCode::InvalidInput) << "empty file";
        QTest::addRow("script") << QByteArray("#!/bin/sh\necho hi\n") << int(ErrorCode::Unsupported)
                                << "not a profile symflame can read (it starts with 23 21 2f 62 69 6e 2f 73 "
                                   "\"#!/bin/s\", which is neither pprof, OTLP profiles (protobuf or JSON), a V8 .cpuprofile a legacy profile go tool pprof reads nor a perf.data)";
        {
            std::mt19937 rng(5);
            QByteArray random(1000, '\0');
            for (auto& c : random)
                c = char(rng());
            random[0] = char(0xff); // field 31, wire type 7: not protobuf
            QString hex = QString::fromLatin1(random.left(8).toHex(' '));
            QString text;
            for (char c : random.left(8))
                text += (uchar(c) >= 0x20 && uchar(c) < 0x7f && c != '"') ? QChar(c) : QChar('.');
            QTest::addRow("random bytes")
                << random << int(ErrorCode::Unsupported)
                << QStringLiteral("not a profile symflame can read (it starts with %1 \"%2\", "
                                  "which is neither pprof, OTLP profiles (protobuf or JSON), a V8 .cpuprofile a legacy profile go tool pprof reads nor a perf.data)")
                       .arg(hex, text);
        }
        QTest::addRow("gzipped text")
            << qbytes(gzipped("hello, world")) << int(ErrorCode::Unsupported)
            << "not a profile symflame can read (gzip-compressed; once decompressed it starts "
               "with 68 65 6c 6c 6f 2c 20 77 \"hello, w\", which is neither pprof, OTLP profiles (protobuf or JSON), a V8 .cpuprofile a legacy profile go tool pprof reads nor a perf.data)";
        {
            const std::string z = gzipped(serialize(baseProfile()));
            QTest::addRow("truncated gzip") << qbytes(z.substr(0, 30)) << int(ErrorCode::Truncated)
                                            << "truncated gzip stream (it ends after 30 bytes, before its end marker)";
        }
        {
            pb::Profile p = baseProfile();
            const std::string full = serialize(p);
            const std::string& last = p.string_table(p.string_table_size() - 1);
            QTest::addRow("truncated pprof")
                << qbytes(full.substr(0, full.size() - 1)) << int(ErrorCode::Truncated)
                << QStringLiteral("truncated protobuf: length-delimited field runs past the end at byte %1")
                       .arg(full.size() - 2 - last.size());
        }
        {
            pb::Profile p = baseProfile();
            p.mutable_sample(0)->set_location_id(0, 42);
            QTest::addRow("invalid pprof") << qbytes(gzipped(serialize(p))) << int(ErrorCode::InvalidInput)
                                           << "sample 0 refers to location 42, which does not exist";
        }
    }

    // Every error from loadProfile names the file.
    void loadErrors()
    {
        QFETCH(QByteArray, content);
        QFETCH(int, code);
        QFETCH(QString, message);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath("input.prof");
        if (content != "<missing>") {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(content);
        }
        auto r = loadProfile(path.toStdString());
        QVERIFY(!r.ok());
        QCOMPARE(QString::fromStdString(r.error().toString()), path + ": " + message);
        QCOMPARE(QString::fromStdString(r.error().path), path);
        QCOMPARE(int(r.error().code), code);
    }

    void decompressionLimitsApply()
    {
        pb::Profile src = baseProfile();
        for (int i = 0; i < 20000; ++i) {
            auto* s = src.add_sample();
            s->add_location_id(1);
            s->add_value(i);
            s->add_value(i);
        }
        const std::string z = gzipped(serialize(src));
        PprofReadOptions options;
        options.limits.maxOutputBytes = 4096;
        auto r = readPprof(span(z), options);
        QVERIFY(!r.ok());
        QCOMPARE(r.error().code, ErrorCode::TooLarge);
        QCOMPARE(errorText(r.error()), QStringLiteral("decompressed data exceeds the limit of 4096 bytes"));

        QTemporaryDir dir;
        const QString path = dir.filePath("p.pb.gz");
        QVERIFY(writeFileAtomically(path.toStdString(), span(z)).ok());
        LoadOptions lo;
        lo.limits.maxOutputBytes = 4096;
        auto l = loadProfile(path.toStdString(), lo);
        QVERIFY(!l.ok());
        QCOMPARE(
            QString::fromStdString(l.error().toString()), path + ": decompressed data exceeds the limit of 4096 bytes");
    }

    void saveRefusesToOverwriteInput()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString input = dir.filePath("in.pb.gz");
        const std::string original = gzipped(serialize(baseProfile()));
        QVERIFY(writeFileAtomically(input.toStdString(), span(original)).ok());
        QVERIFY(QFile::link(input, dir.filePath("alias.pb.gz")));
        auto loaded = loadProfile(input.toStdString());
        QVERIFY(loaded.ok());

        for (const QString& target : { input, dir.filePath("alias.pb.gz"), dir.path() + "/./in.pb.gz" }) {
            const Status s = saveProfile(*loaded, target.toStdString(), ProfileFormat::Pprof, input.toStdString());
            QVERIFY(!s.ok());
            QCOMPARE(s.error().code, ErrorCode::Usage);
            QCOMPARE(QString::fromStdString(s.error().toString()), target + ": refusing to overwrite the input file");
        }
        auto after = readWholeFile(input.toStdString());
        QVERIFY(after.ok());
        QVERIFY(std::string(after->begin(), after->end()) == original);

        const Status unknown = saveProfile(*loaded, dir.filePath("x").toStdString(), ProfileFormat::Unknown);
        QVERIFY(!unknown.ok());
        QCOMPARE(QString::fromStdString(unknown.error().message),
            QStringLiteral("cannot write profiles in the unknown format"));
    }

    // Many samples are read in two halves on two threads: the result must be what one pass
    // gives. Checked against protoc's own parse: every sample's locations, values and labels;
    // stacks deduplicated and numbered in order of first appearance; stacks first seen in the
    // second half and stacks of both halves; labels only in the second half. An error in the
    // second half names its sample's number in the whole file.
    void manySamplesReadAsOnePass()
    {
        pb::Profile src = baseProfile();
        src.clear_sample();
        for (int i = 3; i <= 40; ++i) {
            auto* l = src.add_location();
            l->set_id(uint64_t(i));
            l->set_mapping_id(1);
            l->set_address(0x401000 + uint64_t(i) * 16);
            addLine(l, 1 + i % 2, i);
        }
        const int n = 300000;
        const int64_t key = S(src, "thread");
        uint64_t state = 7;
        for (int i = 0; i < n; ++i) {
            auto* s = src.add_sample();
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            // Stacks of one to four frames over 40 locations; the second half also uses
            // locations 38..40, which the first never does.
            const int depth = 1 + int((state >> 40) % 4);
            const uint64_t span = i < n / 2 ? 37 : 40;
            for (int d = 0; d < depth; ++d)
                s->add_location_id(1 + ((state >> (8 * d + 3)) % span));
            s->add_value(1);
            s->add_value(i);
            if (i >= n * 3 / 4 && i % 3 == 0) {
                auto* lab = s->add_label();
                lab->set_key(key);
                lab->set_num(i);
            }
        }
        const std::string bytes = serialize(src);
        auto r = readPprof(span(bytes));
        QVERIFY2(r.ok(), describe(r).c_str());
        const Profile& p = *r;
        QCOMPARE(p.sampleCount(), size_t(n));
        std::map<std::vector<uint64_t>, uint32_t> firstSeen;
        uint32_t nextId = 0;
        for (int i = 0; i < n; ++i) {
            const auto& s = src.sample(i);
            std::vector<uint64_t> ids(s.location_id().begin(), s.location_id().end());
            const auto stack = p.stack(p.sampleStacks[size_t(i)]);
            QCOMPARE(stack.size(), ids.size());
            for (size_t k = 0; k < ids.size(); ++k)
                QCOMPARE(p.locations[stack[k].index()].sourceId, ids[k]);
            const auto [it, inserted] = firstSeen.emplace(ids, nextId);
            nextId += inserted;
            QCOMPARE(p.sampleStacks[size_t(i)].value, it->second);
            QCOMPARE(p.sampleValues[size_t(i) * 2 + 1], int64_t(i));
            const auto labels = p.sampleLabels(size_t(i));
            QCOMPARE(labels.size(), size_t(s.label_size()));
            if (!labels.empty())
                QCOMPARE(labels[0].num, int64_t(i));
        }
        QCOMPARE(p.stackCount(), firstSeen.size());

        // A half whose stacks are not all packed in the shortest encoding is merged by its
        // stacks' locations, not their bytes: a few such samples before the others (in the
        // first half) or after them (in the second), each the same stack as a sample written
        // canonically, or a new stack written both ways.
        // Location ids 1..40 are one byte; 0x80|id, 0x00 is the same id in two.
        const auto padded = [](const std::vector<uint64_t>& ids) {
            std::string packed;
            for (const uint64_t id : ids)
                packed += std::string { char(0x80 | id), '\0' };
            return std::string("\x0a") + char(packed.size()) + packed;
        };
        const auto unpacked = [](const std::vector<uint64_t>& ids) {
            std::string fields;
            for (const uint64_t id : ids)
                fields += std::string("\x08") + char(id);
            return fields;
        };
        const auto canonical = [](const std::vector<uint64_t>& ids) {
            std::string packed;
            for (const uint64_t id : ids)
                packed += char(id);
            return std::string("\x0a") + char(packed.size()) + packed;
        };
        const auto idsOf = [&](int i) {
            const auto& s = src.sample(i);
            return std::vector<uint64_t>(s.location_id().begin(), s.location_id().end());
        };
        const std::vector<std::pair<std::string, std::vector<uint64_t>>> extra {
            { padded({ 40, 39, 38 }), { 40, 39, 38 } },
            { canonical({ 40, 39, 38 }), { 40, 39, 38 } },
            { padded(idsOf(1)), idsOf(1) },
            { unpacked(idsOf(2)), idsOf(2) },
            { unpacked({ 38, 39, 40, 1 }), { 38, 39, 40, 1 } },
            { canonical({ 38, 39, 40, 1 }), { 38, 39, 40, 1 } },
        };
        std::string extraBytes;
        for (const auto& e : extra)
            extraBytes += sampleField(e.first + std::string("\x12\x02\x01\x00", 4)); // value [1, 0]
        for (const bool before : { true, false }) {
            const std::string mixed = before ? extraBytes + bytes : bytes + extraBytes;
            auto m = readPprof(span(mixed));
            QVERIFY2(m.ok(), describe(m).c_str());
            QCOMPARE(m->sampleCount(), size_t(n) + extra.size());
            std::vector<std::vector<uint64_t>> order; // every sample's ids, in file order
            for (const auto& e : extra)
                if (before)
                    order.push_back(e.second);
            for (int i = 0; i < n; ++i)
                order.push_back(idsOf(i));
            for (const auto& e : extra)
                if (!before)
                    order.push_back(e.second);
            std::map<std::vector<uint64_t>, uint32_t> seen;
            for (size_t i = 0; i < order.size(); ++i) {
                const auto [it, inserted] = seen.emplace(order[i], uint32_t(seen.size()));
                QCOMPARE(m->sampleStacks[i].value, it->second);
                const auto stack = m->stack(m->sampleStacks[i]);
                QCOMPARE(stack.size(), order[i].size());
                for (size_t k = 0; k < stack.size(); ++k)
                    QCOMPARE(m->locations[stack[k].index()].sourceId, order[i][k]);
            }
            QCOMPARE(m->stackCount(), seen.size());
        }

        pb::Profile bad = src;
        bad.mutable_sample(250000)->add_location_id(99);
        const std::string badBytes = serialize(bad);
        auto e = readPprof(span(badBytes));
        QVERIFY(!e.ok());
        QCOMPARE(errorText(e.error()), QStringLiteral("sample 250000 refers to location 99, which does not exist"));
        // With a fault in each half, the first is named, as reading in order would.
        bad.mutable_sample(20000)->add_location_id(98);
        const std::string twoBad = serialize(bad);
        auto e2 = readPprof(span(twoBad));
        QVERIFY(!e2.ok());
        QCOMPARE(errorText(e2.error()), QStringLiteral("sample 20000 refers to location 98, which does not exist"));
    }

    void progressAndCancel()
    {
        pb::Profile src = baseProfile();
        src.clear_sample();
        const int n = 200000;
        for (int i = 0; i < n; ++i) {
            auto* s = src.add_sample();
            s->add_location_id(1 + i % 2);
            s->add_value(1);
            s->add_value(i);
        }
        const std::string bytes = serialize(src);

        RecordingProgress progress;
        auto r = readPprof(span(bytes), {}, &progress);
        QVERIFY2(r.ok(), describe(r).c_str());
        QCOMPARE(r->sampleCount(), size_t(n));
        QVERIFY(!progress.calls.empty());
        QCOMPARE(progress.calls.back(), (std::pair<uint64_t, uint64_t>(n, n)));
        // Reported along the way (the reader may split the samples between threads, so the
        // number of calls is not fixed), never backwards, always out of n.
        QVERIFY(progress.calls.size() >= 2);
        for (size_t i = 0; i < progress.calls.size(); ++i) {
            QCOMPARE(progress.calls[i].second, uint64_t(n));
            if (i)
                QVERIFY(progress.calls[i].first >= progress.calls[i - 1].first);
        }
        QVERIFY(std::find(progress.stages.begin(), progress.stages.end(), "reading samples") != progress.stages.end());

        RecordingProgress cancelling;
        cancelling.cancelAfterCalls = 1;
        auto c = readPprof(span(bytes), {}, &cancelling);
        QVERIFY(!c.ok());
        QCOMPARE(c.error().code, ErrorCode::Cancelled);
        QCOMPARE(errorText(c.error()), QStringLiteral("cancelled"));
    }

    // go tool pprof (the format's reference reader) accepts what writePprofFile writes and sees
    // the same samples and totals.
    void streamedReadIsTheWholeRead_data()
    {
        QTest::addColumn<QByteArray>("raw");
        QTest::addColumn<bool>("streams"); // else the stream gives up and the file is read whole
        QTest::addRow("base") << qbytes(serialize(baseProfile())) << true;
        {
            const auto rich = encodePprof(richProfile());
            QTest::addRow("rich") << QByteArray(reinterpret_cast<const char*>(rich.data()), qsizetype(rich.size())) << true;
        }
        const int n = 80000; // about 2 MB inflated: eight chunks
        const auto identity = +[](uint64_t i) { return i; };
        const pb::Profile plain = streamedProfile(n, identity);
        QTest::addRow("labels, ids 1..n") << qbytes(serialize(plain)) << true;
        QTest::addRow("ids dense, not 1..n") << qbytes(serialize(streamedProfile(n, +[](uint64_t i) { return 3 * i + 5; }))) << true;
        QTest::addRow("ids sparse") << qbytes(serialize(streamedProfile(n, +[](uint64_t i) -> uint64_t { return i * 1000003; }))) << true;
        QTest::addRow("ids over 2^32") << qbytes(serialize(streamedProfile(n, +[](uint64_t i) -> uint64_t { return (uint64_t(1) << 33) + i; }))) << false;
        {
            // Tables and strings before the samples: two messages concatenated merge.
            pb::Profile tables = plain;
            tables.clear_sample();
            pb::Profile samples;
            *samples.mutable_sample() = plain.sample();
            QTest::addRow("tables first") << qbytes(serialize(tables) + serialize(samples)) << true;
            pb::Profile types;
            *types.mutable_sample_type() = plain.sample_type();
            pb::Profile rest = plain;
            rest.clear_sample_type();
            QTest::addRow("sample types after the samples") << qbytes(serialize(rest) + serialize(types)) << false;
        }
        {
            // One stack of 150000 frames (about 300 KB): a message longer than a chunk.
            pb::Profile big = streamedProfile(n / 2, identity);
            auto* s = big.mutable_sample(n / 4);
            for (int k = 0; k < 150000; ++k)
                s->add_location_id(1 + uint64_t(k) % 60);
            QTest::addRow("a stack longer than a chunk") << qbytes(serialize(big)) << true;
        }
        {
            std::string bytes = serialize(plain);
            symflame::test::UnpackedSamples unpacked;
            for (int i = 0; i < 3000; ++i) {
                auto* u = unpacked.add_sample();
                u->add_location_id(1 + uint64_t(i) % 60);
                u->add_location_id(1 + uint64_t(i) % 13);
                u->add_value(1);
                u->add_value(i);
            }
            QTest::addRow("unpacked ids") << qbytes(bytes + serialize(unpacked)) << true;
        }
        // Errors the stream meets: the file is then read whole, and that error is the answer.
        {
            pb::Profile bad = plain;
            bad.mutable_sample(n - 17)->add_location_id(61);
            QTest::addRow("unknown location late") << qbytes(serialize(bad)) << false;
            bad = plain;
            bad.mutable_sample(n / 2 + 1)->mutable_label(0)->set_str(100000); // its thread label
            QTest::addRow("label string out of range") << qbytes(serialize(bad)) << false;
            bad = plain;
            bad.mutable_sample(n / 3)->add_value(5);
            QTest::addRow("a third value") << qbytes(serialize(bad)) << false;
            bad = plain;
            bad.mutable_location(7)->set_mapping_id(9);
            QTest::addRow("location of no mapping") << qbytes(serialize(bad)) << false;
        }
        {
            const std::string bytes = serialize(plain);
            QTest::addRow("cut inside the strings") << qbytes(bytes.substr(0, bytes.size() - 3)) << false;
            QTest::addRow("cut inside the samples") << qbytes(bytes.substr(0, bytes.size() / 2 + 1)) << false;
            // A packed location_id that ends inside a varint.
            QTest::addRow("a malformed sample") << qbytes(bytes + sampleField(std::string("\x0a\x02\x81\x81", 4))) << false;
        }
    }

    void streamedReadIsTheWholeRead()
    {
        QFETCH(QByteArray, raw);
        QFETCH(bool, streams);
        const std::string bytes(raw.constData(), size_t(raw.size()));
        RecordingProgress progress;
        compareReads(readPprof(span(bytes)), readPprof(span(gzipped(bytes)), {}, &progress));
        // Read whole, the file is decompressed first.
        const bool wasWhole
            = std::find(progress.stages.begin(), progress.stages.end(), "decompressing") != progress.stages.end();
        QCOMPARE(wasWhole, !streams);
    }

    // loadProfile streams a gzip file when its first inflated megabyte is pprof, with progress
    // along the way, and can be cancelled.
    void loadStreamsGzipPprof()
    {
        const std::string bytes = serialize(streamedProfile(200000, +[](uint64_t i) { return i; }));
        QVERIFY(bytes.size() > (size_t(3) << 20));
        QTemporaryDir dir;
        const std::string path = dir.filePath("big.pb.gz").toStdString();
        QVERIFY(writeFileAtomically(path, span(gzipped(bytes))).ok());
        RecordingProgress progress;
        ProfileFormat format = ProfileFormat::Unknown;
        auto loaded = loadProfile(path, {}, &progress, &format);
        QCOMPARE(int(format), int(ProfileFormat::Pprof));
        compareReads(readPprof(span(bytes)), loaded);
        QVERIFY(std::find(progress.stages.begin(), progress.stages.end(), "reading samples") != progress.stages.end());
        QVERIFY(std::find(progress.stages.begin(), progress.stages.end(), "decompressing") == progress.stages.end());
        QVERIFY(progress.calls.size() >= 2);
        for (size_t i = 1; i < progress.calls.size(); ++i)
            QVERIFY(double(progress.calls[i].first) / double(progress.calls[i].second)
                >= double(progress.calls[i - 1].first) / double(progress.calls[i - 1].second));

        // A file whose first line (up to the first byte 0x0a) is longer than 4 KiB could be a
        // text profile to the sniffers that read the first line: read whole, the same profile.
        {
            // An unknown field 100 of 5000 bytes 'x' first (tag a2 06, length 88 27), which
            // readers skip.
            const std::string longLine = std::string("\xa2\x06\x88\x27", 4) + std::string(5000, 'x') + bytes;
            QVERIFY(longLine.find('\n') > 4096);
            const std::string longPath = dir.filePath("long-line.pb.gz").toStdString();
            QVERIFY(writeFileAtomically(longPath, span(gzipped(longLine))).ok());
            RecordingProgress whole;
            compareReads(readPprof(span(longLine)), loadProfile(longPath, {}, &whole));
            QVERIFY(std::find(whole.stages.begin(), whole.stages.end(), "decompressing") != whole.stages.end());
        }

        RecordingProgress cancelling;
        cancelling.cancelAfterCalls = 1;
        auto c = loadProfile(path, {}, &cancelling);
        QVERIFY(!c.ok());
        QCOMPARE(int(c.error().code), int(ErrorCode::Cancelled));
    }

    void goToolPprofReadsOurFiles()
    {
        const QString go = QStandardPaths::findExecutable("go");
        if (go.isEmpty())
            QSKIP("go is not installed: the check against go tool pprof was not run");
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const Profile p = richProfile();
        const QString path = dir.filePath("rich.pb.gz");
        QVERIFY(writePprofFile(p, path.toStdString()).ok());

        QProcess proc;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("HOME", dir.path());
        env.insert("PPROF_TMPDIR", dir.path());
        proc.setProcessEnvironment(env);
        proc.start(go, { "tool", "pprof", "-raw", "-symbolize=none", path });
        QVERIFY(proc.waitForFinished(120000));
        const QString out = QString::fromUtf8(proc.readAllStandardOutput());
        const QString err = QString::fromUtf8(proc.readAllStandardError());
        QVERIFY2(proc.exitCode() == 0, qPrintable(err));

        // -raw prints a header of the sample types ([dflt] marks the default), one line per sample
        // (values ':' location ids), then the locations ("id: 0xaddress M=mapping ...").
        QVERIFY2(out.contains("PeriodType: space bytes"), qPrintable(out));
        QVERIFY2(out.contains("Period: 524288"), qPrintable(out));
        QVERIFY2(out.contains("Duration: 30s"), qPrintable(out));
        QVERIFY2(out.contains("alloc_objects/count alloc_space/bytes[dflt] inuse_space/bytes"), qPrintable(out));
        static const QRegularExpression sampleLine(
            R"(^\s*(-?\d+)\s+(-?\d+)\s+(-?\d+):((?:\s+\d+)*)\s*$)", QRegularExpression::MultilineOption);
        static const QRegularExpression locationLine(
            R"(^\s*(\d+): 0x([0-9a-f]+) )", QRegularExpression::MultilineOption);
        std::map<qint64, uint64_t> addressOf; // pprof renumbers locations in order of first use
        for (auto it = locationLine.globalMatch(out); it.hasNext();) {
            const auto m = it.next();
            addressOf[m.captured(1).toLongLong()] = m.captured(2).toULongLong(nullptr, 16);
        }
        QCOMPARE(addressOf.size(), p.locations.size());
        std::vector<std::vector<uint64_t>> theirs;
        for (auto it = sampleLine.globalMatch(out); it.hasNext();) {
            const auto m = it.next();
            std::vector<uint64_t> row { uint64_t(m.captured(1).toLongLong()), uint64_t(m.captured(2).toLongLong()),
                uint64_t(m.captured(3).toLongLong()) };
            for (const QString& id : m.captured(4).split(' ', Qt::SkipEmptyParts))
                row.push_back(addressOf.at(id.toLongLong()));
            theirs.push_back(row);
        }
        // pprof drops samples whose values are all zero when it merges its sources.
        std::vector<std::vector<uint64_t>> ours;
        for (size_t i = 0; i < p.sampleCount(); ++i) {
            const auto values = p.values(i);
            if (std::all_of(values.begin(), values.end(), [](int64_t v) { return v == 0; }))
                continue;
            std::vector<uint64_t> row(values.begin(), values.end());
            for (LocationId l : p.sampleStack(i))
                row.push_back(p.locations[l.index()].address);
            ours.push_back(row);
        }
        QCOMPARE(ours.size(), p.sampleCount() - 1);
        QVERIFY2(theirs == ours, qPrintable(out));
        QVERIFY2(out.contains("thread:[worker-1]") && out.contains("bytes:[512 bytes]") && out.contains("k:[v w]"),
            qPrintable(out));
        QVERIFY2(out.contains("std::vector<int>::push_back(int const&)"), qPrintable(out));
        QVERIFY2(out.contains("0123456789abcdef0123456789abcdef01234567"), qPrintable(out));
    }
};

QTEST_GUILESS_MAIN(TestPprof)
#include "tst_pprof.moc"
