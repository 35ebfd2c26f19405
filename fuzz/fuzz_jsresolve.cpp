// Fuzz harness: how the source-map pass finds a script's map (symbolize/sourcemapresolver): the
// sourceMappingURL comment at the end of the script (relative paths, file:// URLs, percent
// escapes, data: URIs in base64 or percent encoding), then <script>.map and the source-map
// directory. The input is the script's text. The harness lays out, under a private temporary
// directory (removed at exit):
//   app/main.js        the input
//   app/ok.map         a good map (sources ["ok.ts"])
//   app/fifo.map       a FIFO: reading it would wait forever
//   app/link.map       a symbolic link to ../outside.map
//   outside.map        a good map outside the script's directory (sources ["OUTSIDE.ts"])
//   maps/              the source-map directory (empty)
// and runs the pass over a .cpuprofile (read by the real reader) whose frames are in main.js.
// Checks: the pass returns (a FIFO never blocks it), a map used is a data: URI or lies inside
// app/ or maps/ once links are resolved, no frame is mapped to a source of outside.map; a script
// linking ok.map (only) is mapped through it, one linking fifo.map (only) is refused.
#include "model/io/cpuprofile.h"
#include "symbolize/js/sourcemapresolver.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <sys/stat.h>

using namespace symflame;

namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const std::string& what)
{
    std::fprintf(stderr, "fuzz_jsresolve: invariant broken: %s\n", what.c_str());
    std::abort();
}

void writeText(const fs::path& p, std::string_view text)
{
    std::ofstream f(p, std::ios::binary | std::ios::trunc);
    f.write(text.data(), static_cast<std::streamsize>(text.size()));
}

const fs::path& root()
{
    // Never destroyed: the exit handler that removes the directory runs after static destructors.
    static const fs::path& dir = *[] {
        std::string tmpl = (fs::temp_directory_path() / "symflame-fuzz-jsresolve-XXXXXX").string();
        if (!::mkdtemp(tmpl.data()))
            fail("cannot make a temporary directory");
        const fs::path r(tmpl);
        std::atexit([] {
            std::error_code ec;
            fs::remove_all(root(), ec);
        });
        fs::create_directories(r / "app");
        fs::create_directories(r / "maps");
        // A map of one segment per line: line L, column 0 -> source 0, line L, column 0.
        const char* map = R"({"version":3,"sources":["%s"],"names":[],"mappings":"AAAA;AACA;AACA"})";
        char buf[256];
        std::snprintf(buf, sizeof buf, map, "ok.ts");
        writeText(r / "app" / "ok.map", buf);
        std::snprintf(buf, sizeof buf, map, "OUTSIDE.ts");
        writeText(r / "outside.map", buf);
        if (::mkfifo((r / "app" / "fifo.map").c_str(), 0600) != 0)
            fail("cannot make a FIFO");
        fs::create_symlink(r / "outside.map", r / "app" / "link.map");
        return new fs::path(r);
    }();
    return dir;
}

bool inside(const std::string& path, const fs::path& dir)
{
    std::error_code ec;
    const fs::path p = fs::weakly_canonical(path, ec);
    return !ec && p.string().starts_with(fs::weakly_canonical(dir).string() + "/");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const fs::path& r = root();
    const fs::path script = r / "app" / "main.js";
    writeText(script, std::string_view(reinterpret_cast<const char*>(data), size));

    const std::string url = "file://" + script.string();
    const std::string json = R"j({"nodes":[{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"",)j"
                             R"j("lineNumber":-1,"columnNumber":-1},"hitCount":0,"children":[2,3]},)j"
                             R"j({"id":2,"callFrame":{"functionName":"f","scriptId":"1","url":")j"
        + url
        + R"j(","lineNumber":0,"columnNumber":0},"hitCount":2},)j"
          R"j({"id":3,"callFrame":{"functionName":"g","scriptId":"1","url":")j"
        + url
        + R"j(","lineNumber":1,"columnNumber":3},"hitCount":1}],)j"
          R"j("startTime":0,"endTime":3000,"samples":[2,3,2],"timeDeltas":[1000,1000,1000]})j";
    auto profile = model::readCpuProfile(std::span(reinterpret_cast<const uint8_t*>(json.data()), json.size()));
    if (!profile)
        fail("the harness's own .cpuprofile did not read: " + profile.error().toString());

    symbolize::SourceMapOptions options;
    options.sourceMapDirs = { (r / "maps").string() };
    const symbolize::SourceMapReport report = symbolize::applySourceMaps(*profile, options);
    if (report.scripts.size() != 1)
        fail("not one script report");
    const symbolize::ScriptReport& s = report.scripts.front();
    (void)s.line();
    if (s.mapped && !s.mapPath.starts_with("data: URI in ") && !inside(s.mapPath, r / "app")
        && !inside(s.mapPath, r / "maps"))
        fail("map used from outside the script's directory and the source-map directory: " + s.mapPath);
    // The plain cases decided: a script whose only link is "ok.map" is mapped through it; one
    // whose only link is "fifo.map" is not, and says why.
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const size_t link = text.find("sourceMappingURL");
    if (link != std::string_view::npos && text.find("sourceMappingURL", link + 1) == std::string_view::npos
        && text.find('\r') == std::string_view::npos && text.find('\0') == std::string_view::npos) {
        if (text.ends_with("\n//# sourceMappingURL=ok.map\n")
            && (!s.mapped || !s.mapPath.ends_with("/app/ok.map") || report.resolved != 2))
            fail("the script's link to ok.map was not used: " + s.line());
        if (text.ends_with("\n//# sourceMappingURL=fifo.map\n")
            && (s.mapped || s.reason.find("not a regular file") == std::string::npos))
            fail("the FIFO was not refused as such: " + s.line());
    }
    for (const model::Function& f : profile->functions)
        if (profile->strings.get(f.file).find("OUTSIDE.ts") != std::string_view::npos)
            fail("a frame mapped through the map outside the script's directory");
    return 0;
}
