// diff top: per function, flat and cum on both sides, the change and the relative change,
// sorted as pprof sorts a -diff_base table (by the change of flat, in magnitude). diff collapse:
// "root;...;leaf base new" per stack present on either side.
#include "app/diffcmd.h"

#include "app/cli.h"
#include "app/cmdline.h"
#include "app/diffargs.h"
#include "app/output.h"
#include "app/printers/json.h"
#include "model/analysis/collapse.h"
#include "model/analysis/diff.h"
#include "model/analysis/symboltable.h"
#include "model/analysis/toptable.h"
#include "model/core/valueformat.h"
#include "model/io/profileio.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <future>
#include <map>
#include <string>
#include <vector>

namespace symflame::app {

using namespace symflame::model;

namespace {

constexpr const char* kUsage = "usage: symflame diff top BASE NEW [-n N] [--sample-type T] [--normalize] [--match M] [--json]\n"
                               "       symflame diff collapse BASE NEW [--sample-type T] [--normalize] [--match M]\n"
                               "       symflame diff render BASE NEW -o OUT.png|OUT.svg [render's options] [--normalize] [--match M]\n"
                               "                            [--diff-threshold PCT] [--diff-colors relative|absolute]\n";

struct Row {
    std::string name;
    int64_t baseFlat = 0, newFlat = 0, baseCum = 0, newCum = 0;
    int64_t flatDelta() const { return newFlat - baseFlat; }
    int64_t cumDelta() const { return newCum - baseCum; }
};

/// "+12.50%", "-100.00%", or "new" when the function had nothing in the base.
std::string relative(int64_t base, int64_t next)
{
    if (base == 0)
        return next == 0 ? "0.00%" : "new";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%+.2f%%", 100.0 * double(next - base) / double(base < 0 ? -base : base));
    return buf;
}

std::map<std::string, int64_t> foldedMap(const std::string& folded)
{
    std::map<std::string, int64_t> out;
    size_t at = 0;
    while (at < folded.size()) {
        size_t end = folded.find('\n', at);
        if (end == std::string::npos)
            end = folded.size();
        const std::string_view line(folded.data() + at, end - at);
        const size_t space = line.rfind(' ');
        if (space != std::string_view::npos)
            out[std::string(line.substr(0, space))] += std::stoll(std::string(line.substr(space + 1)));
        at = end + 1;
    }
    return out;
}

} // namespace

int runDiffCommand(int argc, char** argv)
{
    static constexpr OptionSpec kSpecs[] = { { "json", 0, false }, { "nodes", 'n', true }, { "sample-type", 0, true },
        { "normalize", 0, false }, { "match", 0, true }, { "help", 'h', false } };
    std::string error;
    const auto args = parseArgs(std::span<char* const>(argv, static_cast<size_t>(argc)), kSpecs, &error);
    if (!args)
        return usageError("diff: " + error);
    if (args->has("help")) {
        std::fputs(kUsage, stdout);
        return ExitOk;
    }
    if (args->positional.empty())
        return usageError("diff: missing top or collapse");
    const std::string& what = args->positional[0];
    if (what == "render") // with BASE and NEW it is run as render --diff-base (main.cpp)
        return usageError("diff render: wants BASE NEW -o OUT.png|OUT.svg");
    if (what != "top" && what != "collapse")
        return usageError("diff: unknown '" + what + "' (top, collapse or render)");
    if (args->positional.size() < 3)
        return usageError("diff " + what + ": wants BASE and NEW");
    if (args->positional.size() > 3)
        return usageError("diff " + what + ": unexpected argument '" + args->positional[3] + "'");
    if (what == "collapse" && (args->has("json") || args->has("nodes")))
        return usageError("diff collapse: -n and --json are for diff top");
    int64_t count = 20;
    if (const auto n = args->value("nodes")) {
        const auto parsed = parseCount(*n);
        if (!parsed)
            return usageError("diff top: -n wants a count (0 = all), not '" + *n + "'");
        count = *parsed;
    }
    const std::string& basePath = args->positional[1];
    const std::string& newPath = args->positional[2];
    // Both files at once: inflating one is serial, so the other core reads the other.
    auto baseLoad = std::async(std::launch::async, [&] { return loadProfile(basePath); });
    auto next = loadProfile(newPath);
    auto base = baseLoad.get();
    if (!base)
        return inputError(basePath, base.error().message);
    if (!next)
        return inputError(newPath, next.error().message);
    const auto parsedOptions = diffOptionsFrom(*args, &error);
    if (!parsedOptions)
        return usageError("diff: " + error);
    const DiffOptions options = *parsedOptions;
    auto diff = diffProfiles(std::move(base).value(), std::move(next).value(), options);
    if (!diff)
        return inputError(newPath, diff.error().message);
    int rc = ExitOk;
    const auto type = selectSampleType(diff->profile, args->value("sample-type"), newPath, &rc);
    if (!type)
        return rc;
    const size_t n = diff->profile.sampleTypes.size();
    const Profile sides = sideBySide(std::move(*diff));
    const SymbolTable symbols = SymbolTable::build(sides);
    Output out;

    if (what == "collapse") {
        const auto newStacks = foldedMap(collapseStacks(sides, symbols, *type));
        const auto baseStacks = foldedMap(collapseStacks(sides, symbols, n + *type));
        std::map<std::string, std::pair<int64_t, int64_t>> both;
        for (const auto& [stack, v] : baseStacks)
            both[stack].first = v;
        for (const auto& [stack, v] : newStacks)
            both[stack].second = v;
        for (const auto& [stack, v] : both)
            out << stack << ' ' << v.first << ' ' << v.second << '\n';
        return ExitOk;
    }

    std::vector<Row> rows(symbols.size());
    for (size_t i = 0; i < rows.size(); ++i)
        rows[i].name = symbols.displayName(SymbolId(i));
    for (const TopEntry& e : topFunctions(sides, symbols, *type)) {
        rows[e.symbol.index()].newFlat = e.flat;
        rows[e.symbol.index()].newCum = e.cum;
    }
    for (const TopEntry& e : topFunctions(sides, symbols, n + *type)) {
        rows[e.symbol.index()].baseFlat = e.flat;
        rows[e.symbol.index()].baseCum = e.cum;
    }
    std::erase_if(rows, [](const Row& r) { return r.flatDelta() == 0 && r.cumDelta() == 0; });
    const auto mag = [](int64_t v) { return v < 0 ? -v : v; };
    std::sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) {
        if (mag(a.flatDelta()) != mag(b.flatDelta()))
            return mag(a.flatDelta()) > mag(b.flatDelta());
        if (mag(a.cumDelta()) != mag(b.cumDelta()))
            return mag(a.cumDelta()) > mag(b.cumDelta());
        return a.name < b.name;
    });
    const size_t changed = rows.size();
    if (count > 0 && rows.size() > size_t(count))
        rows.resize(size_t(count));
    const Profile& p = sides; // (its first n types are the diff's, by name)
    const std::string_view typeName = p.str(p.sampleTypes[*type].type), unit = p.str(p.sampleTypes[*type].unit);
    const int64_t baseTotal = sides.totalValue(n + *type), newTotal = sides.totalValue(*type);
    if (args->has("json")) {
        Json functions = Json::array();
        for (const Row& r : rows)
            functions.push_back({ { "name", r.name },
                { "flat", { { "base", r.baseFlat }, { "new", r.newFlat }, { "delta", r.flatDelta() } } },
                { "cum", { { "base", r.baseCum }, { "new", r.newCum }, { "delta", r.cumDelta() } } } });
        writeJson(out,
            Json { { "sample_type", typeName }, { "unit", unit }, { "base_total", baseTotal }, { "new_total", newTotal },
                { "normalized", options.normalize }, { "changed", changed }, { "functions", std::move(functions) } });
        out << '\n';
        return ExitOk;
    }
    out << "Type: " << typeName << ", base total " << formatValue(baseTotal, unit) << ", new total "
        << formatValue(newTotal, unit) << (options.normalize ? " (normalized to the base)" : "") << "; showing "
        << std::to_string(rows.size()) << " of " << std::to_string(changed) << " changed functions\n";
    out << "      base        new      delta   delta%   cum base    cum new  cum delta  function\n";
    // One unit for the table, the larger total's (as pprof's tables).
    const int64_t reference = std::max(baseTotal, newTotal);
    const auto value = [&](int64_t v) { return formatValueScaled(v, unit, reference); };
    const auto signedValue = [&](int64_t v) { return (v > 0 ? "+" : "") + value(v); };
    for (const Row& r : rows) {
        out.padLeft(value(r.baseFlat), 10) << ' ';
        out.padLeft(value(r.newFlat), 10) << ' ';
        out.padLeft(signedValue(r.flatDelta()), 10) << ' ';
        out.padLeft(relative(r.baseFlat, r.newFlat), 8) << ' ';
        out.padLeft(value(r.baseCum), 10) << ' ';
        out.padLeft(value(r.newCum), 10) << ' ';
        out.padLeft(signedValue(r.cumDelta()), 10) << "  " << r.name << '\n';
    }
    return ExitOk;
}

} // namespace symflame::app
