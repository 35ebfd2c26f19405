#include "symbolize/pass/binarytriage.h"

#include "model/core/frameformat.h"

#include <algorithm>
#include <unordered_map>

namespace symflame::symbolize {

const char* binaryStateName(BinaryState s)
{
    switch (s) {
    case BinaryState::Symbolized:
        return "symbolized";
    case BinaryState::NamesOnly:
        return "names only";
    case BinaryState::NotFound:
        return "binary not found";
    case BinaryState::BuildIdMismatch:
        return "build ID mismatch";
    case BinaryState::NoDebugInfo:
        return "no debug info";
    case BinaryState::NoBuildId:
        return "no build ID";
    case BinaryState::Unreadable:
        return "unreadable";
    case BinaryState::NotApplicable:
        return "not applicable";
    case BinaryState::NotSymbolized:
        return "not symbolized yet";
    }
    return "?";
}

bool isProblem(BinaryState s)
{
    return s != BinaryState::Symbolized && s != BinaryState::NotApplicable;
}

namespace {

BinaryState stateOf(const MappingReport& m, const BinaryRow& row)
{
    switch (m.status) {
    case LocateStatus::NotApplicable:
        return BinaryState::NotApplicable;
    case LocateStatus::NotFound:
        return row.buildId.empty() && row.htlHash.empty() ? BinaryState::NoBuildId : BinaryState::NotFound;
    case LocateStatus::BuildIdMismatch:
        return BinaryState::BuildIdMismatch;
    case LocateStatus::InvalidFile:
        return BinaryState::Unreadable;
    case LocateStatus::Found:
        break;
    }
    if (!m.error.empty())
        return BinaryState::Unreadable;
    const bool namesOnly = m.source == DebugSource::SymbolTable || m.source == DebugSource::DynamicSymbolTable
        || m.source == DebugSource::MiniDebugInfo;
    if (row.symbolized == 0)
        return BinaryState::NoDebugInfo;
    // Addresses still without a function lie outside every function the file's debug info and
    // symbol tables know (the engines name a frame from either): PLT stubs, padding. That is
    // not missing debug info; the detail counts them (outsideFunctionsNote).
    return namesOnly ? BinaryState::NamesOnly : BinaryState::Symbolized;
}

// "build ID mismatch: /p has build ID X, wanted Y" → /p, X.
void parseMismatch(const std::string& summary, BinaryRow& row)
{
    const std::string lead = "build ID mismatch: ";
    const size_t a = summary.find(lead);
    const size_t b = summary.find(" has build ID ");
    const size_t c = summary.find(", wanted ");
    if (a == std::string::npos || b == std::string::npos || c == std::string::npos || b < a || c < b)
        return;
    row.mismatchPath = summary.substr(a + lead.size(), b - a - lead.size());
    row.mismatchBuildId = summary.substr(b + 14, c - b - 14);
}

} // namespace

std::vector<BinaryRow> triageBinaries(const model::Profile& p, const SymbolizeReport* report, size_t sampleType)
{
    std::vector<BinaryRow> rows;
    std::vector<uint32_t> rowOfMapping(p.mappings.size(), UINT32_MAX);
    {
        std::unordered_map<uint64_t, uint32_t> byKey;
        for (size_t m = 0; m < p.mappings.size(); ++m) {
            const model::Mapping& mp = p.mappings[m];
            const uint64_t key = (uint64_t(mp.file.value) << 32) | (mp.buildId.empty() ? mp.htlHash.value : mp.buildId.value);
            auto [it, inserted] = byKey.try_emplace(key, static_cast<uint32_t>(rows.size()));
            if (inserted) {
                BinaryRow r;
                r.path = std::string(p.str(mp.file));
                r.buildId = std::string(p.str(mp.buildId));
                r.htlHash = std::string(p.str(mp.htlHash));
                r.name = r.path.empty() ? std::string("(anonymous)") : std::string(model::baseName(r.path));
                rows.push_back(std::move(r));
            }
            rowOfMapping[m] = it->second;
            rows[it->second].mappings.push_back(model::MappingId(m));
        }
    }
    // Locations and how many have a function.
    std::vector<uint32_t> rowOfLocation(p.locations.size(), UINT32_MAX);
    for (size_t i = 0; i < p.locations.size(); ++i) {
        const model::Location& loc = p.locations[i];
        if (!loc.mapping.valid() || loc.mapping.index() >= rowOfMapping.size())
            continue;
        const uint32_t r = rowOfMapping[loc.mapping.index()];
        rowOfLocation[i] = r;
        ++rows[r].locations;
        rows[r].symbolized += loc.status == model::FrameStatus::Symbolized;
        if (!rows[r].withLines)
            for (const model::Line& l : p.linesOf(loc))
                rows[r].withLines = rows[r].withLines || l.line > 0;
    }
    // Self and total, once per sample for total.
    if (sampleType < p.sampleTypes.size()) {
        const std::vector<int64_t> perStack = p.valuePerStack(sampleType);
        std::vector<size_t> lastStack(rows.size(), SIZE_MAX);
        for (size_t s = 0; s < p.stackCount(); ++s) {
            if (perStack[s] == 0)
                continue;
            const auto st = p.stack(model::StackId(s));
            for (size_t k = 0; k < st.size(); ++k) {
                const size_t li = st[k].index();
                if (li >= rowOfLocation.size() || rowOfLocation[li] == UINT32_MAX)
                    continue;
                const uint32_t r = rowOfLocation[li];
                if (k == 0)
                    rows[r].self += perStack[s];
                if (lastStack[r] != s) {
                    lastStack[r] = s;
                    rows[r].total += perStack[s];
                }
            }
        }
    }
    // Status: from the report, else from the frames alone.
    for (BinaryRow& row : rows) {
        const MappingReport* looked = report && row.mappings.front().index() < report->mappings.size()
            ? &report->mappings[row.mappings.front().index()]
            : nullptr;
        // A perf recording's kernel frames: the reader named them from a kallsyms, else the pass
        // looked for a vmlinux by build ID (below, as any binary), else the reader says why not.
        const bool kernel = model::isKernelImageMappingName(row.path);
        const std::string_view kernelWhy = kernel ? p.attribute("perf.kernel_symbols") : std::string_view();
        const std::string_view kernelFrom = kernel ? p.attribute("perf.kernel_symbols_from") : std::string_view();
        if (!kernelFrom.empty()) {
            row.state = BinaryState::Symbolized;
            row.detail = "kernel: names from " + std::string(kernelFrom);
            continue;
        }
        // A mapping with no file is not applicable unless the pass found a copy of it (a [vdso]
        // in perf's build-ID cache, a vmlinux) or says why not.
        const bool notApplicable = (row.path.empty() && row.buildId.empty())
            || (model::isUnsymbolizableMappingName(row.path) && (!looked || looked->status == LocateStatus::NotApplicable));
        if (notApplicable) {
            row.state = BinaryState::NotApplicable;
            row.detail = row.path.empty() ? "anonymous mapping" : "kernel, vdso or another mapping with no file";
            if (looked && !looked->tried.empty()) // a copy looked for and not found
                row.detail = looked->summary;
            if (!kernelWhy.empty())
                row.detail = std::string(kernelWhy);
            continue;
        }
        if (looked) {
            const MappingReport& m = *looked;
            row.state = stateOf(m, row);
            row.detail = m.error.empty() ? m.summary : m.error;
            if (m.error.empty() && row.symbolized > 0 && row.symbolized < row.locations) {
                const uint64_t outside = row.locations - row.symbolized;
                row.detail += "; " + std::to_string(outside) + (outside == 1 ? " address lies" : " addresses lie")
                    + " outside every function it knows (padding between functions) and "
                    + (outside == 1 ? "keeps its" : "keep their") + " address";
            }
            if (kernel && m.status == LocateStatus::NotFound && !kernelWhy.empty())
                row.detail = std::string(kernelWhy) + "; vmlinux not found (tried " + triedText(m.tried) + ")";
            if (!m.debuginfod.empty()) // once: the panel and `info` show detail, not debuginfod
                row.detail += " [" + m.debuginfod + "]";
            row.tried = m.tried;
            row.source = m.source;
            row.debugPath = m.debugPath;
            row.debuginfod = m.debuginfod;
            if (row.state == BinaryState::BuildIdMismatch)
                parseMismatch(m.summary, row);
        } else if (row.locations > 0 && row.symbolized == row.locations) {
            row.state = BinaryState::Symbolized;
            row.detail = producerSymbolizedSummary(row.withLines);
        } else {
            row.state = BinaryState::NotSymbolized;
            row.detail = "not symbolized yet";
        }
    }
    std::stable_sort(rows.begin(), rows.end(), [](const BinaryRow& a, const BinaryRow& b) {
        const bool pa = isProblem(a.state), pb = isProblem(b.state);
        if (pa != pb)
            return pa;
        if (a.total != b.total)
            return std::abs(a.total) > std::abs(b.total);
        return a.name < b.name;
    });
    return rows;
}

std::string uploadCommand(const BinaryRow& row)
{
    std::string file = row.debugPath.empty() ? row.path : row.debugPath;
    std::string quoted = "'";
    for (char c : file)
        quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    quoted += "'";
    return "parca-debuginfo upload --store-address=<host:port> --bearer-token=<token> " + quoted;
}

} // namespace symflame::symbolize
