#include "symbolize/locate/sourcefiles.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sys/stat.h>

namespace symflame::symbolize {

std::vector<std::string> sourceCandidates(const std::string& recorded, const SourceSearch& search)
{
    std::vector<std::string> out;
    const auto add = [&](std::string p) {
        if (!p.empty() && std::find(out.begin(), out.end(), p) == out.end())
            out.push_back(std::move(p));
    };
    if (recorded.empty())
        return out;
    for (const PathMap& m : search.pathMaps)
        add(applyPathMap(m, recorded));
    add(recorded);
    // Tails of the recorded path: the whole (relative) path, then without its leading components.
    std::vector<std::string> tails;
    for (size_t at = recorded.find_first_not_of('/'); at != std::string::npos && at < recorded.size();) {
        tails.push_back(recorded.substr(at));
        const size_t slash = recorded.find('/', at);
        at = slash == std::string::npos ? std::string::npos : recorded.find_first_not_of('/', slash);
    }
    for (const std::string& dir : search.sourceDirs)
        for (const std::string& tail : tails)
            if (tail != "." && tail != "..")
                add(joinPath(dir, tail));
    return out;
}

std::vector<std::string> splitSourceLines(std::string_view text)
{
    std::vector<std::string> lines;
    size_t at = 0;
    while (at < text.size()) {
        size_t end = text.find('\n', at);
        if (end == std::string_view::npos)
            end = text.size();
        size_t stop = end;
        if (stop > at && text[stop - 1] == '\r')
            --stop;
        lines.emplace_back(text.substr(at, stop - at));
        at = end + 1;
    }
    return lines;
}

namespace {

// Reads c into f when it is a readable regular file of at most maxBytes; else says why in f.tried.
bool readSource(const std::string& c, uint64_t maxBytes, SourceFile& f)
{
    struct stat st {};
    if (::stat(c.c_str(), &st) != 0) {
        f.tried.push_back(c + ": " + (errno == ENOENT ? std::string("not found") : std::strerror(errno)));
        return false;
    }
    if (!S_ISREG(st.st_mode)) {
        f.tried.push_back(c + ": not a regular file");
        return false;
    }
    if (uint64_t(st.st_size) > maxBytes) {
        f.tried.push_back(c + ": " + std::to_string(uint64_t(st.st_size) >> 20) + " MiB, larger than a source file is read");
        return false;
    }
    std::ifstream in(c, std::ios::binary);
    if (!in) {
        f.tried.push_back(c + ": " + std::strerror(errno));
        return false;
    }
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    f.lines = splitSourceLines(text);
    f.path = c;
    f.size = uint64_t(st.st_size);
    f.mtime = int64_t(st.st_mtime);
    f.tried.push_back(c + ": read");
    return true;
}

} // namespace

SourceFile findSourceFile(const std::string& recorded, const SourceSearch& search, const std::string& buildId)
{
    SourceFile f;
    f.recordedPath = recorded;
    if (recorded.empty()) {
        f.tried.push_back("(no file name in the debug info)");
        return f;
    }
    for (const std::string& c : sourceCandidates(recorded, search))
        if (readSource(c, search.maxBytes, f))
            return f;
    if (search.fetch && !buildId.empty()) {
        std::string outcome;
        const std::string local = search.fetch(buildId, recorded, &outcome);
        if (!local.empty() && readSource(local, search.maxBytes, f)) {
            f.fetched = true;
            if (!outcome.empty())
                f.tried.back() = local + ": " + outcome;
            return f;
        }
        f.tried.push_back("debuginfod (build ID " + buildId + "): " + (outcome.empty() ? std::string("not found") : outcome));
    }
    return f;
}

} // namespace symflame::symbolize
