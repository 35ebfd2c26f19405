#include "app/disasmcmd.h"

#include "app/cli.h"
#include "app/cmdline.h"
#include "app/debuginfodargs.h"
#include "app/output.h"
#include "app/printers/json.h"
#include "model/core/valueformat.h"
#include "model/io/profileio.h"
#include "symbolize/pass/disassembly.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <map>

namespace symflame::app {

namespace {

using symbolize::AnnotatedInstruction;
using Routine = symbolize::DisassembledFunction;

std::string hex(uint64_t v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(v));
    return buf;
}

void printText(Output& out, const std::vector<Routine>& routines, int64_t total, const std::string& unit)
{
    const auto valueOrDot = [&](int64_t v) { return v == 0 ? std::string(".") : model::formatValue(v, unit); };
    out << "Total: " << model::formatValue(total, unit) << '\n';
    for (const Routine& r : routines) {
        out << "ROUTINE ======================== " << r.name << '\n';
        out.padLeft(model::formatValue(r.flat, unit), 10) << ' ';
        out.padLeft(model::formatValue(r.cum, unit), 10) << " (flat, cum) " << model::pprofShare(r.cum, total)
                                                             << " of Total\n";
        std::string function, file;
        uint32_t line = 0;
        for (const AnnotatedInstruction& a : r.instructions) {
            std::string where; // said when it changes, as pprof does
            const std::string aFile(model::baseName(a.file));
            if (a.function != function || aFile != file || a.line != line) {
                function = a.function, file = aFile, line = a.line;
                if (!a.function.empty())
                    where = a.function + " ";
                if (!aFile.empty())
                    where += aFile + (a.line ? ":" + std::to_string(a.line) : std::string());
            }
            std::string text = a.ins.text;
            if (!a.targetName.empty())
                text += " <" + a.targetName + ">";
            out.padLeft(valueOrDot(a.flat), 10) << ' ';
            out.padLeft(valueOrDot(a.cum), 10) << ' ';
            out.padLeft(hex(a.ins.address), 10) << ": " << text;
            if (!where.empty()) {
                if (text.size() < 40)
                    out << std::string(40 - text.size(), ' ');
                out << ';' << where;
            }
            out << '\n';
        }
    }
}

void printJson(Output& out, const std::vector<Routine>& routines, int64_t total, const std::string& type,
    const std::string& unit)
{
    Json list = Json::array();
    for (const Routine& r : routines) {
        Json instructions = Json::array();
        for (const AnnotatedInstruction& a : r.instructions) {
            Json i { { "address", a.ins.address }, { "size", a.ins.size }, { "text", a.ins.text }, { "flat", a.flat },
                { "cum", a.cum } };
            if (!a.function.empty())
                i["function"] = a.function;
            if (!a.file.empty())
                i["file"] = a.file;
            if (a.line)
                i["line"] = a.line;
            if (a.ins.target)
                i["target"] = *a.ins.target;
            if (!a.targetName.empty())
                i["target_name"] = a.targetName;
            if (a.ins.isCall)
                i["call"] = true;
            instructions.push_back(std::move(i));
        }
        list.push_back({ { "name", r.name }, { "raw_name", r.rawName }, { "binary", r.binary }, { "start", r.start },
            { "end", r.end }, { "flat", r.flat }, { "cum", r.cum }, { "instructions", std::move(instructions) } });
    }
    writeJson(out, Json { { "sample_type", type }, { "unit", unit }, { "total", total }, { "functions", std::move(list) } });
    out << '\n';
}

} // namespace

int runDisasmCommand(int argc, char** argv)
{
    std::vector<OptionSpec> specs = {
        { "json", 0, false },
        { "sample-type", 0, true },
        { "profile", 0, true },
        { "intel", 0, false },
        { "path-map", 0, true },
        { "debug-dir", 0, true },
        { "search-path", 0, true },
        { "no-client-cache", 0, false },
        { "help", 'h', false },
    };
    specs.insert(specs.end(), std::begin(kIsolationOptionSpecs), std::end(kIsolationOptionSpecs));
    std::string error;
    const auto args = parseArgs(std::span<char* const>(argv, static_cast<size_t>(argc)), specs, &error);
    if (!args)
        return usageError("disasm: " + error);
    if (args->has("help")) {
        std::fputs(usageText(), stdout);
        return ExitOk;
    }
    if (args->positional.size() < 2)
        return usageError(args->positional.empty() ? "disasm: missing PROFILE" : "disasm: missing FUNC_RE");
    if (args->positional.size() > 2)
        return usageError("disasm: unexpected argument '" + args->positional[2] + "'");
    const std::string& path = args->positional[0];
    const std::string& pattern = args->positional[1];
    model::LoadOptions loadOptions;
    if (!parseProfileOption(*args, &loadOptions.profileIndex, &error))
        return usageError("disasm: " + error);
    symbolize::DisassemblyOptions options;
    if (!isolationOptionsFrom(*args, &options.module.isolation, &error))
        return usageError("disasm: " + error);
    symbolize::LocatorOptions& locatorOptions = options.locator;
    if (args->has("no-client-cache"))
        locatorOptions.useClientCache = false;
    for (const auto& [name, value] : args->options) {
        if (name == "debug-dir") {
            locatorOptions.debugDirs.push_back(value);
        } else if (name == "search-path") {
            locatorOptions.searchDirs.push_back(value);
        } else if (name == "path-map") {
            auto map = symbolize::parsePathMap(value);
            if (!map)
                return usageError("disasm: --path-map: " + map.error().message);
            locatorOptions.pathMaps.push_back(std::move(map).value());
        }
    }
    options.syntax = args->has("intel") ? symbolize::AsmSyntax::Intel : symbolize::AsmSyntax::Att;

    auto loaded = model::loadProfile(path, loadOptions);
    if (!loaded) {
        const model::Error& e = loaded.error();
        return inputError(e.path.empty() ? path : e.path, e.message);
    }
    const model::Profile profile = std::move(loaded).value();
    int rc = ExitOk;
    const auto type = selectSampleType(profile, args->value("sample-type"), path, &rc);
    if (!type)
        return rc;
    if (profile.sampleTypes.empty())
        return inputError(path, "no samples");

    auto result = symbolize::disassembleFunctions(profile, *type, pattern, options);
    if (!result)
        return usageError("disasm: " + result.error().message);
    const std::vector<Routine>& routines = result->functions;
    const std::vector<std::string>& problems = result->problems;
    const int64_t total = result->total;
    if (routines.empty()) {
        std::string why = "no function with samples matches '" + pattern + "'";
        for (const std::string& p : problems)
            why += "; " + p;
        return inputError(path, why);
    }
    const std::string typeName(profile.str(profile.sampleTypes[*type].type));
    const std::string unit(profile.str(profile.sampleTypes[*type].unit));
    Output out;
    if (args->has("json"))
        printJson(out, routines, total, typeName, unit);
    else
        printText(out, routines, total, unit);
    return ExitOk;
}

} // namespace symflame::app
