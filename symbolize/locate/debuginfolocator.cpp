#include "symbolize/locate/debuginfolocator.h"

#include "symbolize/locate/pathmap.h"

#include "model/io/fileio.h"
#include "model/core/frameformat.h"
#include "model/io/otlp/otlp.h"
#include "model/io/perf/perfbuildidcache.h"
#include "model/core/profile.h"
#include "symbolize/locate/crc32.h"
#include "symbolize/object/minidebuginfo.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include <fcntl.h>
#include <unistd.h>

namespace symflame::symbolize {

using model::ErrorCode;
using model::makeError;
using model::Result;

namespace fs = std::filesystem;

namespace {

std::string hex32(uint32_t v)
{
    char buf[16];
    std::snprintf(buf, sizeof buf, "%08x", v);
    return buf;
}

bool hasElfMagicOnDisk(const std::string& path)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK); // never wait on a FIFO
    if (fd < 0)
        return false;
    unsigned char magic[4] = {};
    const ssize_t n = ::read(fd, magic, 4);
    ::close(fd);
    return n == 4 && ElfFile::hasElfMagic(magic);
}

bool sameFile(const ElfFile& a, const std::string& path)
{
    uint64_t dev = 0, ino = 0;
    if (!fileIdentity(path, &dev, &ino))
        return false;
    return a.file()->inode() != 0 && dev == a.file()->device() && ino == a.file()->inode();
}

// The Go build ID as producers that want hex record it (Parca: the ID's bytes in hex).
std::string goBuildIdHex(const ElfFile& elf)
{
    const std::string& id = elf.goBuildId();
    return toHex(std::span(reinterpret_cast<const uint8_t*>(id.data()), id.size()));
}

bool matchesBuildId(const ElfFile& elf, const std::string& wanted)
{
    return !wanted.empty()
        && (elf.buildId() == wanted
            || (!elf.goBuildId().empty() && (elf.goBuildId() == wanted || goBuildIdHex(elf) == wanted)));
}

std::string describeBuildId(const ElfFile& elf)
{
    if (!elf.buildId().empty())
        return elf.buildId();
    if (!elf.goBuildId().empty())
        return elf.goBuildId();
    return "none";
}

} // namespace

const char* locateStatusName(LocateStatus s)
{
    switch (s) {
    case LocateStatus::Found:
        return "found";
    case LocateStatus::NotApplicable:
        return "not applicable";
    case LocateStatus::NotFound:
        return "binary not found";
    case LocateStatus::BuildIdMismatch:
        return "build ID mismatch";
    case LocateStatus::InvalidFile:
        return "invalid file";
    }
    return "?";
}

const char* debugSourceName(DebugSource s)
{
    switch (s) {
    case DebugSource::None:
        return "none";
    case DebugSource::Binary:
        return "dwarf in binary";
    case DebugSource::BuildIdDirectory:
        return "build-id directory";
    case DebugSource::SearchDirectory:
        return "search directory";
    case DebugSource::DebugLink:
        return "debuglink";
    case DebugSource::MiniDebugInfo:
        return "minidebuginfo";
    case DebugSource::GoPclntab:
        return "gopclntab";
    case DebugSource::Debuginfod:
        return "debuginfod";
    case DebugSource::SymbolTable:
        return "symbol table";
    case DebugSource::DynamicSymbolTable:
        return "dynamic symbol table";
    case DebugSource::BuildIdStore:
        return "build-id store";
    case DebugSource::ClientCache:
        return "debuginfod client cache";
    }
    return "?";
}

std::string triedText(const std::vector<std::string>& tried)
{
    std::string s;
    for (size_t i = 0; i < tried.size(); ++i)
        s += (i ? "; " : "") + tried[i];
    return s;
}

std::string LocateResult::summary() const
{
    switch (status) {
    case LocateStatus::NotApplicable: // with where a copy was looked for ([vdso])
        return tried.empty() ? std::string("not applicable") : "not applicable: " + tried.back();
    case LocateStatus::BuildIdMismatch:
        if (wantedBuildId.empty() && !wantedHtlHash.empty())
            return "htlhash mismatch: " + mismatchPath + " has " + mismatchBuildId + ", wanted htlhash " + wantedHtlHash;
        return "build ID mismatch: " + mismatchPath + " has build ID " + mismatchBuildId + ", wanted " + wantedBuildId;
    case LocateStatus::NotFound:
    case LocateStatus::InvalidFile: {
        std::string s = locateStatusName(status);
        if (!tried.empty())
            s += " (tried " + triedText(tried) + ")";
        return s;
    }
    case LocateStatus::Found:
        break;
    }
    std::string s;
    switch (source) {
    case DebugSource::None:
        s = "no debug info and no symbol table in " + binaryPath;
        break;
    case DebugSource::Binary:
        s = "dwarf from " + binaryPath;
        break;
    case DebugSource::BuildIdDirectory:
    case DebugSource::SearchDirectory:
    case DebugSource::DebugLink:
    case DebugSource::Debuginfod:
    case DebugSource::ClientCache:
        s = "dwarf from " + dwarfPath + " (" + debugSourceName(source) + ")";
        break;
    case DebugSource::BuildIdStore:
        s = "dwarf from " + dwarfPath + " (" + debugSourceName(source) + " " + storeDir + ")";
        break;
    case DebugSource::MiniDebugInfo:
        s = "names only from the .gnu_debugdata (minidebuginfo) of " + binaryPath;
        break;
    case DebugSource::GoPclntab:
        s = "functions and lines from the gopclntab of " + binaryPath;
        break;
    case DebugSource::SymbolTable:
    case DebugSource::DynamicSymbolTable:
        s = std::string("names only from the ") + debugSourceName(source) + " of "
            + (symbols ? symbols->path() : binaryPath);
        break;
    }
    if (!binaryOrigin.empty())
        s += ", executable " + binaryPath + " from the " + binaryOrigin;
    if (supplementary)
        s += ", dwz supplementary file " + supplementaryPath;
    else if (!supplementaryProblem.empty())
        s += ", but " + supplementaryProblem;
    if (unverified)
        s += ", unverified: no build ID to check " + binaryPath + " against";
    return s;
}

DebugInfoLocator::DebugInfoLocator(LocatorOptions options)
    : m_options(std::move(options))
{
    m_debugDirs = m_options.debugDirs;
    if (m_options.useDefaultDebugDir)
        m_debugDirs.push_back("/usr/lib/debug");
    for (const std::vector<std::string>* dirs : { &m_options.debugDirs, &m_options.searchDirs })
        for (const std::string& d : *dirs)
            if (isBuildIdStore(d)
                && std::none_of(m_stores.begin(), m_stores.end(), [&](const Store& s) { return s.dir == d; }))
                m_stores.push_back({ d, false });
    if (m_options.useClientCache) {
        const std::string cache = debuginfodClientCacheDir(m_options.clientCacheDir);
        if (!cache.empty())
            m_stores.push_back({ cache, true });
    }
}

std::string debuginfodClientCacheDir(std::string_view configured)
{
    if (!configured.empty())
        return std::string(configured);
    if (const char* p = std::getenv("DEBUGINFOD_CACHE_PATH"); p && *p)
        return p;
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
        return joinPath(x, "debuginfod_client");
    if (const char* h = std::getenv("HOME"); h && *h)
        return joinPath(joinPath(h, ".cache"), "debuginfod_client");
    return {};
}

namespace {

// A folder name that can be a build ID as stores write it: hex (a GNU build ID, or a Go build ID
// in hex as Parca writes it).
bool looksLikeBuildIdFolder(const std::string& name)
{
    return name.size() >= 16 && std::all_of(name.begin(), name.end(), [](char c) {
        return std::isxdigit(static_cast<unsigned char>(c));
    });
}

bool isBuildIdFolder(const fs::path& dir)
{
    std::error_code ec;
    return looksLikeBuildIdFolder(dir.filename().string())
        && (fs::is_regular_file(dir / "debuginfo", ec) || fs::is_regular_file(dir / "executable", ec));
}

} // namespace

bool isBuildIdStore(const std::string& dir)
{
    std::error_code ec;
    fs::directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
    // The first few folders decide: a store holds nothing else at its top.
    int looked = 0;
    for (; !ec && it != end && looked < 8; it.increment(ec)) {
        std::error_code dec;
        if (!it->is_directory(dec))
            continue;
        ++looked;
        if (isBuildIdFolder(it->path()))
            return true;
    }
    return false;
}

std::string DebugInfoLocator::storeEntry(const std::string& dir, const std::string& id, const char* name)
{
    if (id.empty() || id.find('/') != std::string::npos || id == "." || id == "..")
        return {};
    const std::string p = joinPath(joinPath(dir, id), name);
    std::error_code ec;
    const auto size = fs::file_size(p, ec);
    if (ec || size == 0) // libdebuginfod records a miss as an empty file
        return {};
    return p;
}

void DebugInfoLocator::buildIndex()
{
    m_byBuildId.clear();
    m_byName.clear();
    m_byHtlHash.clear();
    m_indexedFiles = 0;
    for (const std::string& dir : m_options.searchDirs) {
        std::error_code ec;
        fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
        for (; !ec && it != end; it.increment(ec)) {
            std::error_code fec;
            if (it->is_directory(fec) && isBuildIdFolder(it->path())) {
                it.disable_recursion_pending(); // found by build ID directly (m_stores), not scanned
                continue;
            }
            if (!it->is_regular_file(fec))
                continue;
            const std::string path = it->path().string();
            if (!hasElfMagicOnDisk(path))
                continue;
            auto elf = ElfFile::open(path);
            if (!elf)
                continue;
            ++m_indexedFiles;
            const ElfFile& e = **elf;
            IndexedFile f { path, e.contents().debugOnly, e.contents().readableDwarf() };
            if (!e.buildId().empty())
                m_byBuildId[e.buildId()].push_back(f);
            if (!e.goBuildId().empty()) {
                m_byBuildId[e.goBuildId()].push_back(f);
                m_byBuildId[goBuildIdHex(e)].push_back(f);
            }
            if (!f.debugOnly) {
                m_byName[std::string(model::baseName(path))].push_back(path);
                m_byHtlHash[model::htlHashOf(e.bytes())].push_back(path);
            }
        }
    }
}

bool DebugInfoLocator::tryBinary(const std::string& path, LocateResult& r) const
{
    auto elf = ElfFile::open(path);
    if (!elf) {
        const model::Error& e = elf.error();
        r.tried.push_back(path + ": " + (e.code == ErrorCode::NotFound ? std::string("not found") : e.message));
        if (e.code != ErrorCode::NotFound && r.status == LocateStatus::NotFound)
            r.status = LocateStatus::InvalidFile;
        return false;
    }
    const ElfFilePtr& f = *elf;
    if (!r.wantedBuildId.empty() && !matchesBuildId(*f, r.wantedBuildId)) {
        r.tried.push_back(
            path + ": build ID mismatch (wanted " + r.wantedBuildId + ", found " + describeBuildId(*f) + ")");
        if (r.status != LocateStatus::BuildIdMismatch) {
            r.status = LocateStatus::BuildIdMismatch;
            r.mismatchPath = path;
            r.mismatchBuildId = describeBuildId(*f);
        }
        return false;
    }
    if (r.wantedBuildId.empty() && !r.wantedHtlHash.empty()) {
        const std::string hash = model::htlHashOf(f->bytes());
        if (hash != r.wantedHtlHash) {
            r.tried.push_back(path + ": htlhash mismatch (wanted " + r.wantedHtlHash + ", found " + hash + ")");
            if (r.status != LocateStatus::BuildIdMismatch) {
                r.status = LocateStatus::BuildIdMismatch;
                r.mismatchPath = path;
                r.mismatchBuildId = "htlhash " + hash;
            }
            return false;
        }
    }
    if (f->contents().debugOnly) {
        r.tried.push_back(path + ": a separate debug file, not the binary");
        return false;
    }
    r.binary = f;
    r.binaryPath = path;
    r.unverified = r.wantedBuildId.empty() && r.wantedHtlHash.empty();
    r.status = LocateStatus::Found;
    return true;
}

bool DebugInfoLocator::tryPerfCachedVdso(LocateResult& r) const
{
    const std::string cache = model::perfBuildIdCacheDir(m_options.perfBuildIdCacheDir);
    const std::string copy = model::perfBuildIdCacheEntry(cache, r.wantedBuildId, "vdso");
    if (copy.empty()) {
        r.tried.push_back("perf's build-ID cache " + (cache.empty() ? std::string("(no $HOME)") : cache)
            + ": no copy of this vDSO");
        return false;
    }
    if (!tryBinary(copy, r))
        return false;
    r.binaryOrigin = "perf build-ID cache " + cache;
    return true;
}

ElfFilePtr DebugInfoLocator::openWithBuildId(const std::string& path, const std::string& buildId, LocateResult& r)
{
    auto elf = ElfFile::open(path);
    if (!elf) {
        const model::Error& e = elf.error();
        r.tried.push_back(path + ": " + (e.code == ErrorCode::NotFound ? std::string("not found") : e.message));
        return nullptr;
    }
    if (!matchesBuildId(**elf, buildId)) {
        r.tried.push_back(path + ": build ID mismatch (wanted " + buildId + ", found " + describeBuildId(**elf) + ")");
        return nullptr;
    }
    return *elf;
}

bool DebugInfoLocator::tryDebugFile(const std::string& path, const std::string& buildId, LocateResult& r) const
{
    const ElfFilePtr f = openWithBuildId(path, buildId, r);
    if (!f)
        return false;
    if (!f->contents().readableDwarf()) {
        r.tried.push_back(path
            + (f->contents().debugInfo ? ": its debug sections are compressed in a form that cannot be read"
                                       : ": no debug info in it"));
        return false;
    }
    r.dwarf = f;
    r.dwarfPath = path;
    return true;
}

bool DebugInfoLocator::tryDebugLink(LocateResult& r, const std::string& buildId) const
{
    const auto& link = r.binary->debugLink();
    // objcopy records the debug file's name only; a path ("../../x", "/x") would make an untrusted
    // binary open files anywhere.
    if (link->name.find('/') != std::string::npos || link->name == "." || link->name == "..") {
        r.tried.push_back("debuglink '" + link->name + "': not a file name");
        return false;
    }
    const std::string dir = model::directoryOf(r.binaryPath);
    std::vector<std::string> candidates { joinPath(dir, link->name), joinPath(joinPath(dir, ".debug"), link->name) };
    std::error_code ec;
    const std::string absDir = fs::absolute(dir, ec).lexically_normal().string();
    for (const std::string& d : m_debugDirs)
        candidates.push_back(joinPath(joinPath(d, ec ? dir : absDir), link->name));
    for (const std::string& c : candidates) {
        if (sameFile(*r.binary, c)) {
            r.tried.push_back(c + ": debuglink points at the binary itself");
            continue;
        }
        auto elf = ElfFile::open(c);
        if (!elf) {
            const model::Error& e = elf.error();
            r.tried.push_back(c + ": " + (e.code == ErrorCode::NotFound ? std::string("not found") : e.message));
            continue;
        }
        const ElfFilePtr& f = *elf;
        const uint32_t crc = crc32(0, f->bytes());
        if (crc != link->crc) {
            r.tried.push_back(
                c + ": CRC mismatch (debuglink wants " + hex32(link->crc) + ", file has " + hex32(crc) + ")");
            continue;
        }
        if (!buildId.empty() && !f->buildId().empty() && !matchesBuildId(*f, buildId)) {
            r.tried.push_back(c + ": build ID mismatch (wanted " + buildId + ", found " + describeBuildId(*f) + ")");
            continue;
        }
        if (!f->contents().readableDwarf()) {
            r.tried.push_back(c
                + (f->contents().debugInfo ? ": its debug sections are compressed in a form that cannot be read"
                                           : ": no debug info in it"));
            continue;
        }
        r.dwarf = f;
        r.dwarfPath = c;
        return true;
    }
    return false;
}

void DebugInfoLocator::locateSupplementary(LocateResult& r) const
{
    r.supplementary.reset();
    r.supplementaryPath.clear();
    r.supplementaryProblem.clear();
    r.supplementaryDownloaded = false;
    if (!r.dwarf || !r.dwarf->debugAltLink())
        return;
    const DebugAltLink& link = *r.dwarf->debugAltLink();
    std::vector<std::string> candidates;
    std::vector<std::string> fromCache; // candidates a debuginfod server sent earlier
    const auto add = [&](std::string p) {
        if (!p.empty() && std::find(candidates.begin(), candidates.end(), p) == candidates.end())
            candidates.push_back(std::move(p));
    };
    if (!link.path.empty())
        add(link.path.starts_with('/')
                ? link.path
                : fs::path(joinPath(model::directoryOf(r.dwarfPath), link.path)).lexically_normal().string());
    if (!link.debugSup && link.buildId.size() > 2)
        for (const std::string& d : m_debugDirs)
            add(joinPath(d, ".build-id/" + link.buildId.substr(0, 2) + "/" + link.buildId.substr(2) + ".debug"));
    static constexpr std::string_view kDefaultDebugDir = "/usr/lib/debug/";
    if (link.path.starts_with(kDefaultDebugDir))
        for (const std::string& d : m_debugDirs)
            add(joinPath(d, link.path.substr(kDefaultDebugDir.size())));
    // Stores by build ID; dwz writes the supplementary file's build ID as its .debug_sup checksum
    // too, and useSupplementary() checks whichever the link names.
    for (const Store& store : m_stores) {
        std::string entry = storeEntry(store.dir, link.buildId, "debuginfo");
        if (store.clientCache && !entry.empty())
            fromCache.push_back(entry);
        add(std::move(entry));
    }
    if (!link.debugSup)
        if (auto it = m_byBuildId.find(link.buildId); it != m_byBuildId.end())
            for (const IndexedFile& f : it->second)
                add(f.path);
    for (const std::string& c : candidates)
        if (useSupplementary(r, c, std::find(fromCache.begin(), fromCache.end(), c) != fromCache.end()))
            return;
    r.supplementaryProblem = "its dwz supplementary file " + (link.path.empty() ? std::string("(no path)") : link.path)
        + (link.debugSup ? " with checksum " : " with build ID ")
        + (link.buildId.empty() ? std::string("(none)") : link.buildId)
        + " was not found: names of functions moved there are unknown";
}

bool DebugInfoLocator::useSupplementary(LocateResult& r, const std::string& c, bool downloaded)
{
    if (!r.dwarf || !r.dwarf->debugAltLink())
        return false;
    const DebugAltLink& link = *r.dwarf->debugAltLink();
    auto elf = ElfFile::open(c);
    if (!elf) {
        const model::Error& e = elf.error();
        r.tried.push_back("dwz supplementary file " + c + ": "
            + (e.code == ErrorCode::NotFound ? std::string("not found") : e.message));
        return false;
    }
    const std::string& id = link.debugSup ? (*elf)->supplementaryChecksum() : (*elf)->buildId();
    if (id != link.buildId) {
        r.tried.push_back("dwz supplementary file " + c + ": " + (link.debugSup ? "checksum" : "build ID")
            + " mismatch (wanted " + link.buildId + ", found " + (id.empty() ? std::string("none") : id) + ")");
        return false;
    }
    if (!(*elf)->contents().readableDwarf()) {
        r.tried.push_back("dwz supplementary file " + c + ": no readable debug info in it");
        return false;
    }
    r.supplementary = *elf;
    r.supplementaryPath = c;
    r.supplementaryProblem.clear();
    r.supplementaryDownloaded = downloaded;
    return true;
}

bool DebugInfoLocator::looksForCopy(std::string_view recordedPath, std::string_view buildId) const
{
    if (buildId.empty())
        return false;
    return (recordedPath == "[vdso]" && m_options.usePerfBuildIdCache) || model::isKernelImageMappingName(recordedPath);
}

bool DebugInfoLocator::tryKernelImage(const std::string& path, DebugSource source, LocateResult& r) const
{
    const ElfFilePtr f = openWithBuildId(path, r.wantedBuildId, r);
    if (!f)
        return false;
    const bool dwarf = f->contents().readableDwarf();
    if (!dwarf && !f->contents().symtab) {
        r.tried.push_back(path + ": neither debug info nor a symbol table in it");
        return false;
    }
    r.status = LocateStatus::Found;
    r.binary = f;
    r.binaryPath = path;
    r.symbols = f->contents().symtab ? f : ElfFilePtr();
    r.symbolKind = SymbolTable::Kind::Static;
    if (dwarf) {
        r.dwarf = f;
        r.dwarfPath = path;
        r.source = source;
    } else {
        r.source = DebugSource::SymbolTable;
    }
    return true;
}

LocateResult DebugInfoLocator::locateKernelImage(std::string_view recordedPath, std::string_view buildId) const
{
    LocateResult r;
    r.recordedPath = std::string(recordedPath);
    r.wantedBuildId = normalizeBuildId(buildId);
    const std::string& id = r.wantedBuildId;
    if (!model::isHexBuildId(id)) {
        r.status = LocateStatus::NotApplicable;
        return r;
    }
    for (const std::string& d : m_debugDirs)
        if (tryKernelImage(joinPath(d, ".build-id/" + id.substr(0, 2) + "/" + id.substr(2) + ".debug"),
                DebugSource::BuildIdDirectory, r))
            return r;
    for (const Store& store : m_stores)
        for (const char* name : { "debuginfo", "executable" }) {
            const std::string p = storeEntry(store.dir, id, name);
            if (p.empty())
                continue;
            if (tryKernelImage(p, store.clientCache ? DebugSource::ClientCache : DebugSource::BuildIdStore, r)) {
                if (!store.clientCache)
                    r.storeDir = store.dir;
                r.binaryOrigin = store.clientCache ? "debuginfod client cache" : "build-id store " + store.dir;
                r.binaryDownloaded = store.clientCache;
                return r;
            }
        }
    if (auto it = m_byBuildId.find(id); it != m_byBuildId.end())
        for (const IndexedFile& f : it->second)
            if (tryKernelImage(f.path, DebugSource::SearchDirectory, r))
                return r;
    r.tried.push_back("no vmlinux with build ID " + id + " in the debug directories"
        + (m_stores.empty() ? std::string() : ", build-ID stores and debuginfod client cache")
        + (m_options.searchDirs.empty() ? std::string() : " or search directories"));
    return r;
}

LocateResult DebugInfoLocator::useKernelImage(const std::string& path, std::string_view buildId, DebugSource source) const
{
    LocateResult r;
    r.wantedBuildId = normalizeBuildId(buildId);
    tryKernelImage(path, source, r);
    return r;
}

LocateResult DebugInfoLocator::locate(
    std::string_view recordedPath, std::string_view buildIdIn, std::string_view htlHash) const
{
    LocateResult r;
    r.recordedPath = std::string(recordedPath);
    r.wantedBuildId = normalizeBuildId(buildIdIn);
    if (r.wantedBuildId.empty())
        r.wantedHtlHash = normalizeBuildId(htlHash);
    // The kernel image has no file either, but a vmlinux with its build ID names it.
    if (model::isKernelImageMappingName(recordedPath) && !r.wantedBuildId.empty())
        return locateKernelImage(recordedPath, r.wantedBuildId);
    // The kernel's vDSO has no file, but perf record keeps a copy of it by build ID, as perf
    // report reads it; without one there is nothing to look for, as for other such mappings.
    const bool vdso = looksForCopy(recordedPath, r.wantedBuildId);
    if (!vdso
        && ((recordedPath.empty() && r.wantedBuildId.empty() && r.wantedHtlHash.empty())
            || model::isUnsymbolizableMappingName(recordedPath))) {
        r.status = LocateStatus::NotApplicable;
        return r;
    }

    // 1. The binary.
    bool found = false;
    if (vdso && !(found = tryPerfCachedVdso(r))) {
        LocateResult none;
        none.recordedPath = r.recordedPath;
        none.wantedBuildId = r.wantedBuildId;
        none.status = LocateStatus::NotApplicable;
        none.tried = std::move(r.tried);
        return none;
    }
    if (!found && !recordedPath.empty()) {
        for (const PathMap& m : m_options.pathMaps) {
            const std::string mapped = applyPathMap(m, recordedPath);
            if (!mapped.empty() && (found = tryBinary(mapped, r)))
                break;
        }
        if (!found)
            found = tryBinary(r.recordedPath, r);
    }
    if (!found && !r.wantedBuildId.empty()) {
        for (const Store& store : m_stores) {
            const std::string p = storeEntry(store.dir, r.wantedBuildId, "executable");
            if (!p.empty() && (found = tryBinary(p, r))) {
                r.binaryOrigin = store.clientCache ? "debuginfod client cache" : "build-id store " + store.dir;
                r.binaryDownloaded = store.clientCache; // a server sent it: isolated like a download
                break;
            }
        }
    }
    if (!found && !r.wantedBuildId.empty()) {
        if (auto it = m_byBuildId.find(r.wantedBuildId); it != m_byBuildId.end())
            for (const IndexedFile& f : it->second)
                if (!f.debugOnly && (found = tryBinary(f.path, r)))
                    break;
        if (!found && !m_options.searchDirs.empty())
            r.tried.push_back("search directories: no binary with build ID " + r.wantedBuildId);
    }
    if (!found && !r.wantedHtlHash.empty()) {
        if (auto it = m_byHtlHash.find(r.wantedHtlHash); it != m_byHtlHash.end())
            for (const std::string& p : it->second)
                if ((found = tryBinary(p, r)))
                    break;
        if (!found && !m_options.searchDirs.empty())
            r.tried.push_back("search directories: no binary with htlhash " + r.wantedHtlHash);
    }
    if (!found && r.wantedBuildId.empty() && r.wantedHtlHash.empty() && !recordedPath.empty()) {
        if (auto it = m_byName.find(std::string(model::baseName(recordedPath))); it != m_byName.end())
            for (const std::string& p : it->second)
                if ((found = tryBinary(p, r)))
                    break;
    }
    if (!found)
        return r;

    // 2. Debug info. Without a wanted build ID, the binary's own build ID still finds its
    //    separate debug file.
    const std::string buildId = !r.wantedBuildId.empty() ? r.wantedBuildId : r.binary->buildId();
    if (r.binary->contents().readableDwarf()) {
        r.source = DebugSource::Binary;
        r.dwarf = r.binary;
        r.dwarfPath = r.binaryPath;
    } else if (r.binary->contents().debugInfo) {
        r.tried.push_back(r.binaryPath + ": its debug sections are compressed as "
            + sectionCompressionName(r.binary->contents().debugCompression) + ", which cannot be read");
    }
    const bool hexId = model::isHexBuildId(buildId);
    if (!r.dwarf && hexId) {
        for (const std::string& d : m_debugDirs) {
            const std::string p = joinPath(d, ".build-id/" + buildId.substr(0, 2) + "/" + buildId.substr(2) + ".debug");
            if (tryDebugFile(p, buildId, r)) {
                r.source = DebugSource::BuildIdDirectory;
                break;
            }
        }
    }
    if (!r.dwarf && !buildId.empty()) {
        for (const Store& store : m_stores) {
            const std::string p = storeEntry(store.dir, buildId, "debuginfo");
            if (!p.empty() && tryDebugFile(p, buildId, r)) {
                r.source = store.clientCache ? DebugSource::ClientCache : DebugSource::BuildIdStore;
                if (!store.clientCache)
                    r.storeDir = store.dir;
                break;
            }
        }
    }
    if (!r.dwarf && !buildId.empty()) {
        if (auto it = m_byBuildId.find(buildId); it != m_byBuildId.end())
            for (const IndexedFile& f : it->second)
                if (f.hasDwarf && f.path != r.binaryPath && tryDebugFile(f.path, buildId, r)) {
                    r.source = DebugSource::SearchDirectory;
                    break;
                }
    }
    if (!r.dwarf && r.binary->debugLink() && tryDebugLink(r, buildId))
        r.source = DebugSource::DebugLink;
    locateSupplementary(r);

    // 3. MiniDebugInfo: names from the compressed .symtab, and .dynsym for the rest.
    if (!r.dwarf && r.binary->contents().gnuDebugdata) {
        auto mini = openMiniDebugInfo(*r.binary);
        if (!mini) {
            r.tried.push_back(mini.error().toString());
        } else if (!(*mini)->contents().symtab) {
            r.tried.push_back(r.binaryPath + ": .gnu_debugdata holds no symbol table");
        } else {
            r.source = DebugSource::MiniDebugInfo;
            r.symbols = *mini;
            r.symbolKind = SymbolTable::Kind::Static;
            if (r.binary->contents().dynsym)
                r.dynamicSymbols = r.binary;
            return r;
        }
    }

    // 4. The symbol table that names physical frames.
    if (r.binary->contents().symtab) {
        r.symbols = r.binary;
        r.symbolKind = SymbolTable::Kind::Static;
    } else if (r.dwarf && r.dwarf->contents().symtab) {
        r.symbols = r.dwarf;
        r.symbolKind = SymbolTable::Kind::Static;
    } else if (r.binary->contents().dynsym) {
        r.symbols = r.binary;
        r.symbolKind = SymbolTable::Kind::Dynamic;
    }
    if (!r.dwarf && r.symbols)
        r.source
            = r.symbolKind == SymbolTable::Kind::Static ? DebugSource::SymbolTable : DebugSource::DynamicSymbolTable;
    return r;
}

} // namespace symflame::symbolize
