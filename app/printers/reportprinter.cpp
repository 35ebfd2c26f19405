#include "app/printers/reportprinter.h"

#include "app/printers/json.h"

namespace symflame::app {

void printSymbolizeReportText(Output& out, const symbolize::SymbolizeReport& report)
{
    for (const auto& m : report.mappings)
        out << m.line() << '\n';
    for (const auto& s : report.sourceMaps.scripts)
        out << s.line() << '\n';
    for (const auto& g : report.serversGivenUp)
        out << symbolize::givenUpLine(g) << '\n';
}

void printSymbolizeReportJson(Output& out, const model::Profile& profile, const symbolize::SymbolizeReport& report)
{
    Json entries = Json::array();
    for (const auto& m : report.mappings) {
        const size_t index = m.mapping.valid() ? m.mapping.index() : 0;
        const uint64_t id = m.mapping.valid() && index < profile.mappings.size() && profile.mappings[index].sourceId
            ? profile.mappings[index].sourceId
            : uint64_t(index + 1);
        entries.push_back({
            { "id", id },
            { "path", m.path },
            { "build_id", m.buildId },
            { "status", symbolize::locateStatusName(m.status) },
            { "source", symbolize::debugSourceName(m.source) },
            { "unverified", m.unverified },
            { "binary_path", m.binaryPath },
            { "debug_path", m.debugPath },
            { "summary", m.summary },
            { "engine_detail", m.engineDetail },
            { "error", m.error },
            { "debuginfod", m.debuginfod },
            { "locations", m.locations },
            { "resolved", m.resolved },
            { "tried", jsonArray(m.tried) },
            { "dwarf_warnings", uint64_t(m.dwarfWarnings) },
        });
    }
    for (const auto& s : report.sourceMaps.scripts) {
        entries.push_back({
            { "script", s.script },
            { "status", s.mapped ? "source-mapped" : "no source map" },
            { "map", s.mapPath },
            { "reason", s.reason },
            { "locations", s.locations },
            { "resolved", s.resolved },
            { "tried", jsonArray(s.tried) },
        });
    }
    for (const auto& g : report.serversGivenUp)
        entries.push_back({
            { "debuginfod_server", g.url },
            { "status", "given up" },
            { "reason", g.reason },
        });
    writeJson(out, entries);
    out << '\n';
}

} // namespace symflame::app
