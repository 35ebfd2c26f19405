// Fuzz harness: label views (model/analysis/labelview), which take what users type: a
// --tag-focus / --tag-ignore rule (first line), a --time-range (second line) and --group-by keys
// (third line), applied to a small profile with string, numeric and unit labels, an attribute
// and timestamps. Checks what the view promises:
//  - a rule parses or is refused with InvalidInput; parsed, it splits the samples: those kept by
//    it as a focus and those kept by it as an ignore are all the samples, none twice;
//  - grouping keeps every sample and every value, each stack longer by one frame per key;
//  - a time range keeps exactly the samples whose timestamps lie in it.
#include "model/analysis/labelview.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

using namespace symflame::model;

namespace {

[[noreturn]] void fail(const char* what)
{
    std::fprintf(stderr, "fuzz_labelview: %s\n", what);
    std::abort();
}

Profile makeProfile()
{
    Profile p;
    const auto s = [&](const char* text) { return p.strings.intern(text); };
    p.sampleTypes.push_back({ s("samples"), s("count") });
    for (const char* name : { "root", "a", "b" }) {
        p.functions.push_back({ s(name), s(name), s("f.c"), 0, 0 });
        Location loc;
        loc.linesBegin = uint32_t(p.lines.size());
        loc.lineCount = 1;
        p.lines.push_back({ FunctionId(p.functions.size() - 1), 1, 0 });
        p.locations.push_back(loc);
    }
    p.attributes.push_back({ s("host"), s("box"), 0, {} });
    const char* threads[] = { "main", "worker-1", "io", "" };
    for (size_t i = 0; i < 24; ++i) {
        const LocationId stack[] = { LocationId(uint32_t(1 + i % 2)), LocationId(0u) };
        const int64_t value = int64_t(i + 1);
        p.addSample(p.internStack(stack), std::span(&value, 1));
        std::vector<Label> labels;
        if (i % 4 != 3)
            labels.push_back({ s("thread"), s(threads[i % 4]), 0, {} });
        labels.push_back({ s("tid"), {}, int64_t(i % 5) - 1, {} });
        labels.push_back({ s("bytes"), {}, int64_t(512 * (i % 7)), s("bytes") });
        p.setSampleLabelSet(i, p.internLabelSet(labels));
        p.sampleTimestamps.push_back(i % 6 == 5 ? 0 : 1'000'000'000 + int64_t(i) * 100'000'000);
    }
    p.finishBuilding();
    return p;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    static const Profile profile = makeProfile();
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const size_t nl1 = text.find('\n');
    const std::string_view rule = text.substr(0, nl1);
    const std::string_view rest = nl1 == std::string_view::npos ? std::string_view() : text.substr(nl1 + 1);
    const size_t nl2 = rest.find('\n');
    const std::string_view range = rest.substr(0, nl2);
    const std::string_view keys = nl2 == std::string_view::npos ? std::string_view() : rest.substr(nl2 + 1);

    if (auto f = TagFilter::parse(rule); f.ok()) {
        LabelView focus, ignore;
        focus.focus.push_back(*f);
        ignore.ignore.push_back(*f);
        const auto a = applyLabelView(profile, focus), b = applyLabelView(profile, ignore);
        if (!a.ok() || !b.ok())
            fail("a parsed rule was refused");
        if (a->sampleCount() + b->sampleCount() != profile.sampleCount()
            || a->totalValue(0) + b->totalValue(0) != profile.totalValue(0))
            fail("focus and ignore of one rule do not split the samples");
    } else if (f.error().code != ErrorCode::InvalidInput) {
        fail("a rule refused with another code than InvalidInput");
    }

    if (auto r = parseTimeRange(range, 1'000'000'000); r.ok()) {
        if (r->end <= r->start)
            fail("an empty time range parsed");
        LabelView view;
        view.timeRange = *r;
        const auto kept = applyLabelView(profile, view);
        size_t expected = 0;
        for (size_t i = 0; i < profile.sampleCount(); ++i) {
            const int64_t t = profile.sampleTimestamps[i];
            expected += t != 0 && t >= r->start && t < r->end;
        }
        if (!kept.ok() || kept->sampleCount() != expected)
            fail("a time range kept other samples than those in it");
    }

    LabelView grouped;
    size_t start = 0;
    while (start < keys.size() && grouped.rootKeys.size() < 4) {
        size_t end = keys.find(',', start);
        if (end == std::string_view::npos)
            end = keys.size();
        grouped.rootKeys.emplace_back(keys.substr(start, end - start));
        start = end + 1;
    }
    if (!grouped.rootKeys.empty()) {
        const auto g = applyLabelView(profile, grouped);
        if (!g.ok() || g->sampleCount() != profile.sampleCount() || g->totalValue(0) != profile.totalValue(0))
            fail("grouping lost samples");
        for (size_t i = 0; i < g->sampleCount(); ++i)
            if (g->sampleStack(i).size() != profile.sampleStack(i).size() + grouped.rootKeys.size())
                fail("grouping added another number of frames than keys");
    }
    return 0;
}
