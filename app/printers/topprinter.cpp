#include "app/printers/topprinter.h"

#include "app/printers/json.h"
#include "model/core/valueformat.h"

#include <cmath>
#include <cstdio>
#include <string>

namespace symflame::app {

namespace {

std::string percent(int64_t part, int64_t total)
{
    char buf[32];
    // Of magnitudes, as pprof's: a diff's -690ms is 28.87% of its base.
    std::snprintf(buf, sizeof buf, "%.2f%%", total == 0 ? 0.0 : std::fabs(100.0 * double(part) / double(total)));
    return buf;
}

} // namespace

void printTopText(Output& out, const TopResult& top)
{
    using model::formatValue;
    out << "Type: " << (top.hasTypes ? top.sampleType : std::string_view("(none)")) << ", total "
        << formatValue(top.total, top.unit);
    if (top.kept)
        out << " (" << formatValue(*top.kept, top.unit) << " kept, " << percent(*top.kept, top.total) << ")";
    out << "; showing " << uint64_t(top.rows.size()) << " of "
        << uint64_t(top.functions) << " functions\n";
    out << "      flat  flat%   sum%        cum   cum%\n";
    int64_t sum = 0;
    for (const TopResult::Row& e : top.rows) {
        sum += e.flat;
        out.padLeft(formatValue(e.flat, top.unit), 10) << ' ';
        out.padLeft(percent(e.flat, top.total), 6) << ' ';
        out.padLeft(percent(sum, top.total), 6) << ' ';
        out.padLeft(formatValue(e.cum, top.unit), 10) << ' ';
        out.padLeft(percent(e.cum, top.total), 6) << "  " << e.name << '\n';
    }
}

void printTopJson(Output& out, const TopResult& top)
{
    Json functions = Json::array();
    for (const TopResult::Row& e : top.rows)
        functions.push_back({ { "name", e.name }, { "flat", e.flat }, { "cum", e.cum } });
    Json json { { "sample_type", top.sampleType }, { "unit", top.unit }, { "total", top.total },
        { "functions", std::move(functions) } };
    if (top.kept)
        json["kept"] = *top.kept;
    writeJson(out, json);
    out << '\n';
}

} // namespace symflame::app
