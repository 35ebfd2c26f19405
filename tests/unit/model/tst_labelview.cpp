// model/analysis/labelview: label filters in every form pprof's -tagfocus takes, time ranges,
// group frames and what they keep of each sample. tests/e2e/tst_oracle checks the same options
// against `go tool pprof` on a real labelled Go profile; this test covers what that profile
// doesn't have (numeric labels with units, attributes standing in for labels, timestamps).
#include "model/analysis/labelview.h"

#include <QObject>
#include <QTest>

#include <random>

using namespace symflame::model;

namespace {

// A profile of n samples over three threads of two processes: labels thread (string), tid
// (numeric), bytes (numeric, unit bytes); attribute host; sample i has timestamp base + i ms
// and value i + 1, stack [leaf i % 3, root].
struct Built {
    Profile p;
    int64_t base = 1'700'000'000'000'000'000;
};

Built build(size_t n)
{
    Built b;
    Profile& p = b.p;
    const auto s = [&](const char* text) { return p.strings.intern(text); };
    p.sampleTypes.push_back({ s("samples"), s("count") });
    for (const char* name : { "root", "a", "b", "c" }) {
        p.functions.push_back({ s(name), s(name), s("x.c"), 0, 0 });
        Location loc;
        loc.linesBegin = uint32_t(p.lines.size());
        loc.lineCount = 1;
        p.lines.push_back({ FunctionId(p.functions.size() - 1), 1, 0 });
        loc.status = FrameStatus::Symbolized;
        p.locations.push_back(loc);
    }
    p.attributes.push_back({ s("host"), s("box"), 0, {} });
    const char* threads[] = { "main", "worker", "io" };
    for (size_t i = 0; i < n; ++i) {
        const LocationId stack[] = { LocationId(uint32_t(1 + i % 3)), LocationId(0u) };
        const int64_t value = int64_t(i + 1);
        p.addSample(p.internStack(stack), std::span(&value, 1));
        const Label labels[] = { { s("thread"), s(threads[i % 3]), 0, {} }, { s("tid"), {}, int64_t(100 + i % 3), {} },
            { s("bytes"), {}, int64_t(1024 * (i % 5)), s("bytes") } };
        p.setSampleLabelSet(i, p.internLabelSet(labels));
        p.sampleTimestamps.push_back(b.base + int64_t(i) * 1'000'000);
    }
    p.finishBuilding();
    return b;
}

size_t keptBy(const Profile& p, std::initializer_list<const char*> focus, std::initializer_list<const char*> ignore = {})
{
    LabelView view;
    for (const char* f : focus)
        view.focus.push_back(TagFilter::parse(f).value());
    for (const char* f : ignore)
        view.ignore.push_back(TagFilter::parse(f).value());
    auto r = applyLabelView(p, view);
    return r.ok() ? r->sampleCount() : size_t(-1);
}

} // namespace

class TestLabelView : public QObject {
    Q_OBJECT

private slots:
    void labelSetsAreShared()
    {
        const Built b = build(300);
        // 3 threads x 5 byte sizes, with i % 3 and i % 5 together: 15 sets (+ the empty one).
        QCOMPARE(b.p.labelSetCount(), size_t(16));
        QCOMPARE(b.p.sampleLabels(7)[0].str, b.p.sampleLabels(1)[0].str);
    }

    void filters()
    {
        const Profile p = build(300).p;
        QCOMPARE(keptBy(p, { "thread=main" }), size_t(100));
        QCOMPARE(keptBy(p, { "thread=^(main|io)$" }), size_t(200));
        QCOMPARE(keptBy(p, { "thread=ma,io" }), size_t(200)); // any of the REs
        QCOMPARE(keptBy(p, { "thread:w" }), size_t(100));    // "key:value" of any label
        QCOMPARE(keptBy(p, { "thread:w", "thread:i" }), size_t(0));
        QCOMPARE(keptBy(p, { "thread:w,host:box" }), size_t(100)); // attributes stand in for labels
        QCOMPARE(keptBy(p, { "host=box" }), size_t(300));
        QCOMPARE(keptBy(p, {}, { "thread=main" }), size_t(200));
        QCOMPARE(keptBy(p, { "thread=main|io" }, { "thread=io" }), size_t(100));
        QCOMPARE(keptBy(p, { "nosuchkey=." }), size_t(0));
    }

    void numericRanges()
    {
        const Profile p = build(300).p;
        // tid: 100, 101, 102 a third each; bytes: 0, 1k, 2k, 3k, 4k a fifth each.
        QCOMPARE(keptBy(p, { "tid=101" }), size_t(100));
        QCOMPARE(keptBy(p, { "tid=101:" }), size_t(200));
        QCOMPARE(keptBy(p, { "tid=:100" }), size_t(100));
        QCOMPARE(keptBy(p, { "tid=100:101" }), size_t(200));
        QCOMPARE(keptBy(p, { "bytes=2kb" }), size_t(60));
        QCOMPARE(keptBy(p, { "bytes=1kb:3kb" }), size_t(180));
        QCOMPARE(keptBy(p, { "bytes=2048:" }), size_t(180)); // no unit: the raw number
        QCOMPARE(keptBy(p, { "bytes=1ms:" }), size_t(0));    // a time is no size
        QCOMPARE(keptBy(p, { "4kb" }), size_t(60));          // any numeric label
    }

    void badFilters()
    {
        for (const char* bad : { "", "thread=", "thread=(", "a=[z-a]", "1kb:2ms" }) {
            const auto f = TagFilter::parse(bad);
            QVERIFY2(!f.ok(), bad);
            QCOMPARE(f.error().code, symflame::model::ErrorCode::InvalidInput);
            QVERIFY2(f.error().message.find(std::string("'") + bad + "'") != std::string::npos, f.error().message.c_str());
        }
    }

    // The time range keeps exactly the samples whose timestamps lie in [start, end), counted
    // here sample by sample, for random ranges.
    void timeRange()
    {
        const Built b = build(1000);
        std::mt19937_64 rng(7);
        for (int round = 0; round < 50; ++round) {
            const int64_t a = b.base + int64_t(rng() % 1'200'000'000) - 100'000'000;
            const int64_t len = int64_t(rng() % 400'000'000) + 1;
            LabelView view;
            view.timeRange = TimeRange { a, a + len };
            const auto r = applyLabelView(b.p, view);
            QVERIFY(r.ok());
            size_t count = 0;
            int64_t total = 0;
            for (size_t i = 0; i < b.p.sampleCount(); ++i)
                if (b.p.sampleTimestamps[i] >= a && b.p.sampleTimestamps[i] < a + len) {
                    ++count;
                    total += b.p.value(i, 0);
                }
            QCOMPARE(r->sampleCount(), count);
            QCOMPARE(r->totalValue(0), total);
            for (size_t i = 0; i < r->sampleCount(); ++i)
                QVERIFY(r->sampleTimestamps[i] >= a && r->sampleTimestamps[i] < a + len);
        }
        // Offsets from the start, and absolute times.
        const auto offsets = parseTimeRange("100ms,0.3s", b.base);
        QVERIFY(offsets.ok());
        QCOMPARE(offsets->start, b.base + 100'000'000);
        QCOMPARE(offsets->end, b.base + 300'000'000);
        const auto open = parseTimeRange("1.5,", b.base);
        QVERIFY(open.ok());
        QCOMPARE(open->start, b.base + 1'500'000'000);
        QCOMPARE(open->end, std::numeric_limits<int64_t>::max());
        const auto absolute = parseTimeRange(std::to_string(b.base + 5) + "," + std::to_string(b.base + 9), 0);
        QVERIFY(absolute.ok());
        QCOMPARE(absolute->start, b.base + 5);
        for (const char* bad : { "1s", "2s,1s", "x,1s", "1s,1kb", "," })
            QVERIFY2(!parseTimeRange(bad, b.base).ok(), bad);
    }

    // Group frames: one location per (key, value), of kind Label, at the root in key order
    // (and at the leaf for leaf keys); samples keep their values, labels and timestamps.
    void groupFrames()
    {
        const Profile p = build(30).p;
        LabelView view;
        view.rootKeys = { "host", "thread" };
        view.leafKeys = { "tid" };
        const auto r = applyLabelView(p, view);
        QVERIFY(r.ok());
        QCOMPARE(r->sampleCount(), p.sampleCount());
        QCOMPARE(r->sampleValues, p.sampleValues);
        QCOMPARE(r->sampleTimestamps, p.sampleTimestamps);
        QCOMPARE(r->sampleLabelSets, p.sampleLabelSets);
        const auto name = [&](LocationId l) {
            const Location& loc = r->locations[l.index()];
            return std::string(r->str(r->functions[r->linesOf(loc)[0].function.index()].name));
        };
        for (size_t i = 0; i < r->sampleCount(); ++i) {
            const auto stack = r->sampleStack(i);
            QCOMPARE(stack.size(), p.sampleStack(i).size() + 3);
            QCOMPARE(name(stack[0]), std::to_string(100 + i % 3));                       // leaf: tid
            QCOMPARE(name(stack[stack.size() - 1]), std::string("box"));                  // root: host
            QCOMPARE(name(stack[stack.size() - 2]), std::string(p.str(p.sampleLabels(i)[0].str))); // thread
            QCOMPARE(r->locations[stack[0].index()].kind, FrameKind::Label);
            QCOMPARE(r->str(r->functions[r->linesOf(r->locations[stack[0].index()])[0].function.index()].file),
                std::string_view("tid"));
        }
        // host, 3 threads, 3 tids.
        QCOMPARE(r->locations.size(), p.locations.size() + 7);
        // A key no sample has: one "<unknown>" frame.
        LabelView missing;
        missing.rootKeys = { "container" };
        const auto m = applyLabelView(p, missing);
        QVERIFY(m.ok());
        QCOMPARE(m->locations.size(), p.locations.size() + 1);
        QCOMPARE(m->str(m->functions.back().name), std::string_view("<unknown>"));
    }

    void keysAndValues()
    {
        const Profile p = build(300).p;
        const auto keys = labelKeys(p);
        QCOMPARE(keys.size(), size_t(4));
        QCOMPARE(keys[0].key, std::string("bytes"));
        QCOMPARE(keys[0].values, size_t(5));
        QVERIFY(keys[0].numeric);
        QVERIFY(!keys[0].attribute);
        QCOMPARE(keys[1].key, std::string("host"));
        QCOMPARE(keys[1].samples, uint64_t(300));
        QVERIFY(keys[1].attribute);
        const auto values = labelValues(p, "thread", 0);
        QCOMPARE(values.size(), size_t(3));
        int64_t sum = 0;
        for (const auto& v : values)
            sum += v.total;
        QCOMPARE(sum, p.totalValue(0));
        QVERIFY(values[0].total >= values[1].total && values[1].total >= values[2].total);
        QCOMPARE(values[0].samples, uint64_t(100));
    }
};

QTEST_MAIN(TestLabelView)
#include "tst_labelview.moc"
