#include "app/printers/sourceprinter.h"

#include "app/printers/json.h"
#include "model/core/valueformat.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace symflame::app {

namespace {

std::string valueOrDot(int64_t v, const std::string& unit)
{
    return v == 0 ? std::string(".") : model::formatValue(v, unit);
}

void row(Output& out, int64_t flat, int64_t cum, int64_t line, std::string_view text, const std::string& unit)
{
    out.padLeft(valueOrDot(flat, unit), 10) << ' ';
    out.padLeft(valueOrDot(cum, unit), 10) << ' ';
    out.padLeft(std::to_string(line), 6) << ':' << text << '\n';
}

} // namespace

void printSourceText(Output& out, const SourceResult& result)
{
    out << "Total: " << model::formatValue(result.total, result.unit) << '\n';
    for (const SourceResult::Function& fn : result.functions) {
        const model::FunctionLines& f = fn.lines;
        const symbolize::SourceFile& file = result.files[fn.file];
        out << "ROUTINE ======================== " << f.name << " in " << f.file << '\n';
        out.padLeft(model::formatValue(f.flatSum, result.unit), 10) << ' ';
        out.padLeft(model::formatValue(f.cumSum, result.unit), 10) << " (flat, cum) "
            << model::pprofShare(f.cumSum, result.total) << " of Total\n";
        if (file.found() && fn.javaScript)
            out << " Source from the " << (file.origin.empty() ? "file " + file.path : file.origin) << '\n';
        if (!file.found()) {
            out << " Source not found: " << (f.file.empty() ? std::string("(no file name)") : f.file) << " (tried ";
            for (size_t i = 0; i < file.tried.size(); ++i)
                out << (i ? "; " : "") << file.tried[i];
            out << ")\n";
        }
        for (const model::ListedLine& l : model::listedLines(f, file.found(), file.lines.size()))
            row(out, l.flat, l.cum, l.line,
                l.inFile ? std::string_view(*file.line(l.line))
                         : std::string_view(file.found() ? "(past the end of the file)" : ""),
                result.unit);
    }
}

void printSourceJson(Output& out, const SourceResult& result)
{
    Json functions = Json::array();
    for (const SourceResult::Function& fn : result.functions) {
        const model::FunctionLines& f = fn.lines;
        const symbolize::SourceFile& file = result.files[fn.file];
        Json lines = Json::array();
        for (const model::LineCost& c : f.lines) {
            Json line { { "line", c.line }, { "flat", c.flat }, { "cum", c.cum } };
            if (const std::string* text = file.line(c.line))
                line["text"] = *text;
            lines.push_back(std::move(line));
        }
        Json source { { "found", file.found() }, { "tried", file.tried } };
        if (file.found()) {
            source["path"] = file.path;
            source["from"] = file.origin.empty() ? "file" : "sourcesContent";
            if (!file.origin.empty())
                source["origin"] = file.origin;
            if (!fn.warning.empty())
                source["warning"] = fn.warning;
        }
        functions.push_back({ { "name", f.name }, { "file", f.file }, { "start_line", f.startLine },
            { "flat", f.flat }, { "cum", f.cum }, { "flat_sum", f.flatSum }, { "cum_sum", f.cumSum },
            { "source", std::move(source) }, { "lines", std::move(lines) } });
    }
    Json json { { "sample_type", result.sampleType }, { "unit", result.unit }, { "total", result.total },
        { "functions", std::move(functions) } };
    writeJson(out, json);
    out << '\n';
}

} // namespace symflame::app
