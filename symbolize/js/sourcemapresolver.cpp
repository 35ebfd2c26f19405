// Finding each script's source map and rewriting the frames through it.
#include "symbolize/js/sourcemapresolver.h"

#include "model/io/fileio.h"

#include <cctype>
#include <filesystem>
#include <optional>
#include <unordered_map>

namespace symflame::symbolize {

namespace fs = std::filesystem;
using model::ErrorCode;
using model::makeError;
using model::Result;

namespace {

constexpr uint64_t kMaxScriptBytes = 512ull << 20;

/// A script or map named by a profile or a script (untrusted): regular files only. A FIFO would
/// block the pass forever waiting for a writer, a device (/dev/zero) would be read to the limit.
Result<std::vector<uint8_t>> readRegularFile(const std::string& path, uint64_t maxBytes)
{
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (!ec && fs::exists(st) && !fs::is_regular_file(st))
        return makeError(ErrorCode::InvalidInput, "not a regular file", path);
    return model::readWholeFile(path, maxBytes);
}

std::string percentDecode(std::string_view s)
{
    std::string out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1]))
            && std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
            out += static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16));
            i += 2;
        } else {
            out += s[i];
        }
    }
    return out;
}

std::string base64Decode(std::string_view in, bool& ok)
{
    std::string out;
    uint32_t acc = 0;
    int bits = 0;
    ok = true;
    for (char c : in) {
        int v;
        if (c >= 'A' && c <= 'Z')
            v = c - 'A';
        else if (c >= 'a' && c <= 'z')
            v = c - 'a' + 26;
        else if (c >= '0' && c <= '9')
            v = c - '0' + 52;
        else if (c == '+' || c == '-')
            v = 62;
        else if (c == '/' || c == '_')
            v = 63;
        else if (c == '=')
            break;
        else {
            ok = false;
            return {};
        }
        acc = (acc << 6) | static_cast<uint32_t>(v);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out += static_cast<char>((acc >> bits) & 0xff);
        }
    }
    return out;
}

/// The url of the last sourceMappingURL comment of the script, a comment of its own at the start
/// of a line (spaces before it allowed), so that the text in a string literal of the code does
/// not count; empty when there is none.
std::string findSourceMappingUrl(std::string_view script)
{
    size_t best = std::string_view::npos;
    for (std::string_view marker : {"//# sourceMappingURL=", "//@ sourceMappingURL="}) {
        for (size_t at = script.rfind(marker); at != std::string_view::npos;
             at = at == 0 ? std::string_view::npos : script.rfind(marker, at - 1)) {
            size_t b = at;
            while (b > 0 && (script[b - 1] == ' ' || script[b - 1] == '\t'))
                --b;
            if (b == 0 || script[b - 1] == '\n' || script[b - 1] == '\r') {
                if (best == std::string_view::npos || at + marker.size() > best)
                    best = at + marker.size();
                break;
            }
        }
    }
    if (best == std::string_view::npos)
        return {};
    size_t end = script.find_first_of("\r\n", best);
    if (end == std::string_view::npos)
        end = script.size();
    std::string_view url = script.substr(best, end - best);
    while (!url.empty() && (url.back() == ' ' || url.back() == '\t'))
        url.remove_suffix(1);
    return std::string(url);
}

// Whether file lies under dir, symbolic links resolved (a link inside dir pointing out is outside).
bool isInside(const fs::path& file, const fs::path& dir)
{
    std::error_code ec1, ec2;
    const fs::path f = fs::weakly_canonical(file, ec1);
    const fs::path d = fs::weakly_canonical(dir, ec2);
    if (ec1 || ec2)
        return false;
    const fs::path rel = f.lexically_relative(d);
    return !rel.empty() && *rel.begin() != ".." && rel.is_relative();
}

struct FoundMap {
    SourceMap map;
    std::string path; ///< file it came from, or a description of an inline map
    fs::path baseDir; ///< directory relative sources are resolved from
};

class MapFinder {
public:
    explicit MapFinder(const SourceMapOptions& options) : m_options(options) {}

    /// The map of the script at path; report gets the candidates tried and, on failure, a reason.
    std::optional<FoundMap> find(const std::string& url, ScriptReport& report)
    {
        const std::string recorded = scriptPathOfUrl(url);
        if (recorded.empty()) {
            report.reason = "not a local file url";
            return std::nullopt;
        }
        std::vector<std::string> candidates;
        for (const PathMap& pm : m_options.pathMaps)
            if (std::string mapped = applyPathMap(pm, recorded); !mapped.empty())
                candidates.push_back(mapped);
        candidates.push_back(recorded);

        // The script's own link first; then <script>.map beside it and <name>.map in the
        // source-map directories, which need no readable script (maps kept apart from a
        // deployment).
        std::string firstReadable;
        for (const std::string& scriptPath : candidates) {
            auto script = readRegularFile(scriptPath, kMaxScriptBytes);
            if (!script) {
                report.tried.push_back(scriptPath + " (script: " + script.error().message + ")");
                continue;
            }
            if (firstReadable.empty())
                firstReadable = scriptPath;
            const std::string_view text(reinterpret_cast<const char*>(script->data()), script->size());
            const fs::path scriptDir = fs::path(scriptPath).parent_path();
            if (const std::string link = findSourceMappingUrl(text); !link.empty()) {
                if (auto m = fromLink(link, scriptPath, scriptDir, report))
                    return m;
                if (!m_lastError.empty())
                    return std::nullopt;
            }
            break;
        }
        for (const std::string& scriptPath : candidates) {
            if (!firstReadable.empty() && scriptPath != firstReadable)
                continue;
            if (auto m = fromFile(scriptPath + ".map", report))
                return m;
            if (!m_lastError.empty())
                return std::nullopt;
        }
        const std::string name = fs::path(recorded).filename().string();
        for (const std::string& dir : m_options.sourceMapDirs) {
            if (auto m = fromFile((fs::path(dir) / (name + ".map")).string(), report))
                return m;
            if (!m_lastError.empty())
                return std::nullopt;
        }
        report.reason = firstReadable.empty() ? "script not readable and no map found" : "no map found";
        return std::nullopt;
    }

private:
    // Each of these returns a map, or nothing with m_lastError set when a map exists but is
    // unusable (that ends the search), or nothing with m_lastError empty to try the next one.
    std::optional<FoundMap> fromLink(
        const std::string& link, const std::string& scriptPath, const fs::path& scriptDir, ScriptReport& report)
    {
        m_lastError.clear();
        if (link.starts_with("data:")) {
            const size_t comma = link.find(',');
            if (comma == std::string::npos)
                return fail(report, "sourceMappingURL data: URI without a comma");
            const std::string_view meta = std::string_view(link).substr(5, comma - 5);
            const std::string_view payload = std::string_view(link).substr(comma + 1);
            std::string json;
            if (meta.ends_with(";base64")) {
                bool ok = false;
                json = base64Decode(payload, ok);
                if (!ok)
                    return fail(report, "sourceMappingURL data: URI with bad base64");
            } else {
                json = percentDecode(payload);
            }
            const std::string where = "data: URI in " + scriptPath;
            return parse(json, where, scriptDir, report);
        }
        if (link.find("://") != std::string::npos && !link.starts_with("file://")) {
            // Never fetched; the map may still be beside the script or in a source-map directory.
            report.tried.push_back(link + " (remote, not fetched)");
            return std::nullopt;
        }
        const std::string decoded = link.starts_with("file://") ? percentDecode(link.substr(7)) : percentDecode(link);
        const fs::path target = (fs::path(decoded).is_absolute() ? fs::path(decoded) : scriptDir / decoded).lexically_normal();
        bool allowed = isInside(target, scriptDir);
        for (const std::string& dir : m_options.sourceMapDirs)
            allowed = allowed || isInside(target, fs::path(dir));
        if (!allowed) {
            report.tried.push_back(target.string() + " (refused)");
            return fail(report,
                "sourceMappingURL " + link + " refused: " + target.string()
                    + " is outside the script's directory and the source-map directories");
        }
        return fromFile(target.string(), report);
    }

    std::optional<FoundMap> fromFile(const std::string& path, ScriptReport& report)
    {
        m_lastError.clear();
        std::error_code ec;
        if (!fs::exists(path, ec)) {
            report.tried.push_back(path + " (not found)");
            return std::nullopt;
        }
        auto bytes = readRegularFile(path, m_options.limits.maxJsonBytes);
        if (!bytes) {
            report.tried.push_back(path + " (" + bytes.error().message + ")");
            return fail(report, "map " + path + " unreadable: " + bytes.error().message);
        }
        const std::string_view json(reinterpret_cast<const char*>(bytes->data()), bytes->size());
        return parse(json, path, fs::path(path).parent_path(), report);
    }

    std::optional<FoundMap> parse(std::string_view json, const std::string& where, const fs::path& baseDir,
        ScriptReport& report)
    {
        auto map = SourceMap::parse(json, m_options.limits);
        if (!map) {
            report.tried.push_back(where + " (" + map.error().message + ")");
            return fail(report, "map " + where + ": " + map.error().message);
        }
        report.tried.push_back(where + " (used)");
        return FoundMap {std::move(map).value(), where, baseDir};
    }

    std::optional<FoundMap> fail(ScriptReport& report, std::string reason)
    {
        m_lastError = reason;
        report.reason = std::move(reason);
        return std::nullopt;
    }

    const SourceMapOptions& m_options;
    std::string m_lastError;
};

/// The source as a path: relative sources resolved from the map's directory.
std::string resolveSource(std::string_view source, const fs::path& baseDir)
{
    if (source.starts_with("file://"))
        return percentDecode(source.substr(7));
    if (source.find("://") != std::string_view::npos || source.starts_with("webpack:") || source.starts_with("/"))
        return std::string(source);
    return (baseDir / std::string(source)).lexically_normal().string();
}

} // namespace

std::string ScriptReport::line() const
{
    std::string s = script + "  ";
    if (mapped)
        return s + "source-mapped  " + mapPath + "  " + std::to_string(resolved) + "/" + std::to_string(locations);
    s += "no source map: " + reason;
    if (!tried.empty()) {
        s += " (tried";
        for (size_t i = 0; i < tried.size(); ++i)
            s += (i ? ", " : " ") + tried[i];
        s += ")";
    }
    return s;
}

SourceFile findOriginalSource(
    const std::string& file, const SourceMapReport& maps, const SourceSearch& search, const ScriptReport* script)
{
    std::vector<std::string> tried;
    const auto fromMap = [&](const ScriptReport& s) -> std::optional<SourceFile> {
        if (!s.mapped)
            return std::nullopt;
        for (const MappedSource& ms : s.sources) {
            if (ms.path != file)
                continue;
            if (!ms.text) {
                tried.push_back(s.mapPath + ": " + ms.problem);
                return std::nullopt;
            }
            SourceFile f;
            f.recordedPath = file;
            f.path = file;
            f.origin = "sourcesContent of " + s.mapPath;
            f.lines = splitSourceLines(*ms.text);
            f.size = ms.text->size();
            tried.push_back(s.mapPath + ": sourcesContent used");
            f.tried = std::move(tried);
            return f;
        }
        return std::nullopt;
    };
    if (script)
        if (auto f = fromMap(*script))
            return std::move(*f);
    for (const ScriptReport& s : maps.scripts)
        if (&s != script)
            if (auto f = fromMap(s))
                return std::move(*f);
    // Not embedded: the file itself (a script url as its path).
    const std::string local = file.starts_with("file://") ? scriptPathOfUrl(file) : file;
    SourceFile f = findSourceFile(local, search);
    f.recordedPath = file;
    tried.insert(tried.end(), f.tried.begin(), f.tried.end());
    f.tried = std::move(tried);
    return f;
}

std::string scriptPathOfUrl(std::string_view url)
{
    if (url.starts_with("file://"))
        return percentDecode(url.substr(7));
    if (url.starts_with("/"))
        return std::string(url);
    return {};
}

bool isMappableJavaScriptFrame(const model::Profile& profile, const model::Location& loc)
{
    if (loc.kind != model::FrameKind::JavaScript || loc.lineCount == 0
        || loc.status == model::FrameStatus::SourceMapped)
        return false;
    if (size_t(loc.linesBegin) + loc.lineCount > profile.lines.size())
        return false;
    const model::Line& physical = profile.linesOf(loc).back();
    if (!physical.function.valid() || physical.function.index() >= profile.functions.size())
        return false;
    return !scriptPathOfUrl(profile.str(profile.functions[physical.function.index()].file)).empty();
}

SourceMapReport applySourceMaps(model::Profile& profile, const SourceMapOptions& options)
{
    SourceMapReport report;
    report.scriptOfLocation.assign(profile.locations.size(), SourceMapReport::kNoScript);
    // Script url -> its JavaScript locations.
    std::unordered_map<std::string, size_t> scriptIndex;
    std::vector<std::vector<size_t>> locationsOf;
    for (size_t i = 0; i < profile.locations.size(); ++i) {
        const model::Location& loc = profile.locations[i];
        if (!isMappableJavaScriptFrame(profile, loc))
            continue;
        const model::Line& physical = profile.linesOf(loc).back();
        const std::string url(profile.str(profile.functions[physical.function.index()].file));
        auto [it, added] = scriptIndex.try_emplace(url, locationsOf.size());
        if (added) {
            locationsOf.emplace_back();
            report.scripts.push_back(ScriptReport {.script = url});
        }
        locationsOf[it->second].push_back(i);
        report.scriptOfLocation[i] = static_cast<uint32_t>(it->second);
    }

    MapFinder finder(options);
    for (size_t s = 0; s < report.scripts.size(); ++s) {
        ScriptReport& sr = report.scripts[s];
        sr.locations = locationsOf[s].size();
        report.locations += sr.locations;
        auto found = finder.find(sr.script, sr);
        if (!found) {
            for (size_t li : locationsOf[s])
                profile.locations[li].status = model::FrameStatus::NoSourceMap;
            continue;
        }
        sr.mapped = true;
        sr.mapPath = found->path;
        std::unordered_map<std::string, model::FunctionId> functionOf;
        std::unordered_map<std::string_view, std::string> resolvedSource;
        std::vector<bool> sourceListed(found->map.sources().size(), false);
        for (size_t li : locationsOf[s]) {
            model::Location& loc = profile.locations[li];
            bool all = true;
            for (model::Line& line : profile.linesOf(loc)) {
                if (!line.function.valid() || line.line <= 0 || line.line > int64_t(UINT32_MAX)
                    || line.column > int64_t(UINT32_MAX)) {
                    all = false;
                    continue;
                }
                // Without a column (0), the first segment of the line answers.
                const auto pos = line.column > 0
                    ? found->map.lookup(static_cast<uint32_t>(line.line - 1), static_cast<uint32_t>(line.column - 1))
                    : found->map.lookup(static_cast<uint32_t>(line.line - 1), 0, SourceMap::Bias::LeastUpperBound);
                if (!pos) {
                    all = false;
                    continue;
                }
                const model::Function generated = profile.functions[line.function.index()];
                const std::string generatedName(profile.str(generated.name));
                const std::string name = pos->name.empty() ? generatedName : std::string(pos->name);
                auto [src, fresh] = resolvedSource.try_emplace(pos->source);
                if (fresh)
                    src->second = resolveSource(pos->source, found->baseDir);
                const std::string& file = src->second;
                if (pos->sourceIndex < sourceListed.size() && !sourceListed[pos->sourceIndex]) {
                    // Its text, when the map embeds it, for the source view.
                    sourceListed[pos->sourceIndex] = true;
                    const EmbeddedSource& e = found->map.embeddedSource(pos->sourceIndex);
                    MappedSource ms {file, nullptr, e.problem(pos->sourceIndex)};
                    if (e.state == EmbeddedSource::State::Present)
                        ms.text = std::make_shared<const std::string>(e.text);
                    sr.sources.push_back(std::move(ms));
                }
                std::string systemName = generatedName + " " + sr.script + ":" + std::to_string(line.line);
                if (line.column > 0)
                    systemName += ":" + std::to_string(line.column);
                auto [fit, added] = functionOf.try_emplace(name + '\0' + file + '\0' + systemName);
                if (added) {
                    model::Function f;
                    f.name = profile.strings.intern(name);
                    f.systemName = profile.strings.intern(systemName);
                    f.file = profile.strings.intern(file);
                    f.sourceId = generated.sourceId;
                    fit->second = model::FunctionId(profile.functions.size());
                    profile.functions.push_back(f);
                }
                line.function = fit->second;
                line.line = int64_t(pos->line) + 1;
                line.column = int64_t(pos->column) + 1;
            }
            if (all) {
                ++sr.resolved;
                loc.status = model::FrameStatus::SourceMapped;
            } else {
                // A position the map does not cover (a module wrapper, generated helpers).
                loc.status = model::FrameStatus::NoSourceMap;
            }
        }
        report.resolved += sr.resolved;
    }
    return report;
}

} // namespace symflame::symbolize
