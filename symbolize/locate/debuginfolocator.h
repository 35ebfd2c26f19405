// Finds, for a mapping's binary (recorded path + build ID), the local file to map addresses with
// and the file to read debug info from, in the order GDB documents (symbolization.md §4):
//   binary: path maps applied to the recorded path, the recorded path, search directories
//           (indexed by build ID once); a file whose build ID differs is never used;
//   debug:  DWARF in the binary; <debugdir>/.build-id/ab/cdef....debug for each debug directory
//           (user ones first, then /usr/lib/debug); a debug file with that build ID in a search
//           directory; .gnu_debuglink (binary's dir, its .debug/, <debugdir>/<binary's dir>/,
//           CRC checked); .gnu_debugdata (MiniDebugInfo: the xz-compressed .symtab, with the
//           binary's .dynsym for what it leaves out); else names only from a symbol table (.symtab of
//           the binary, .symtab of a separate debug file, .dynsym of the binary).
//   dwz:    when the debug file has .gnu_debugaltlink, its supplementary file: the recorded path
//           (relative paths from the debug file's directory), <debugdir>/.build-id/ab/cdef....debug
//           of the supplementary build ID, the recorded path moved from /usr/lib/debug into each
//           debug directory, a file with that build ID in a search directory; its build ID (or
//           .debug_sup checksum) must be the one the link names.
// Every candidate tried is recorded with its outcome, so the status says exactly what happened.
#pragma once

#include "model/core/result.h"
#include "symbolize/locate/pathmap.h"
#include "symbolize/object/elffile.h"
#include "symbolize/object/symboltable.h"

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace symflame::symbolize {

struct LocatorOptions {
    std::vector<std::string> debugDirs; ///< searched in this order, before the default
    bool useDefaultDebugDir = true; ///< append /usr/lib/debug
    std::vector<std::string> searchDirs; ///< scanned recursively once, indexed by build ID
    std::vector<PathMap> pathMaps;
    /// The debuginfod client cache (<cache>/<build-id>/debuginfo, /executable), read offline:
    /// files gdb, perf or an earlier run downloaded. Empty = the standard one
    /// (debuginfodClientCacheDir()) when useClientCache is set.
    bool useClientCache = true;
    std::string clientCacheDir;
    /// perf's build-ID cache, where `perf record` keeps a copy of the vDSO it saw ([vdso]
    /// mappings are looked for there by build ID, and nowhere else). Empty = the standard one
    /// (model::perfBuildIdCacheDir()) when usePerfBuildIdCache is set.
    bool usePerfBuildIdCache = true;
    std::string perfBuildIdCacheDir;
};

/// The debuginfod client cache libdebuginfod uses: configured when not empty, else
/// $DEBUGINFOD_CACHE_PATH, else $XDG_CACHE_HOME/debuginfod_client, else
/// ~/.cache/debuginfod_client.
std::string debuginfodClientCacheDir(std::string_view configured = {});

/// True when dir holds a folder per build ID (<dir>/<hex id>/debuginfo or /executable), the
/// layout of the debuginfod client cache, Parca's debug-info store and parca-debuginfo's output.
bool isBuildIdStore(const std::string& dir);

enum class LocateStatus : uint8_t {
    Found, ///< a binary was found (debug info may still be missing: see source)
    NotApplicable, ///< nothing to look for ([vdso], anonymous, no path and no build ID)
    NotFound, ///< no candidate file exists
    BuildIdMismatch, ///< files exist, but none has the wanted build ID
    InvalidFile, ///< the file that exists is not a readable ELF file
};
const char* locateStatusName(LocateStatus s);

/// Where names and lines come from.
enum class DebugSource : uint8_t {
    None, ///< nothing: no DWARF, no symbol table
    Binary, ///< DWARF inside the binary
    BuildIdDirectory, ///< <debugdir>/.build-id/xx/yyyy.debug
    SearchDirectory, ///< a separate debug file with the build ID, found in a search directory
    DebugLink, ///< .gnu_debuglink
    MiniDebugInfo, ///< .gnu_debugdata: an xz-compressed ELF with a symbol table (names only)
    GoPclntab, ///< Go's function and line table (.gopclntab), for Go binaries without DWARF
    Debuginfod, ///< a debug file downloaded from a debuginfod server (or its client cache)
    SymbolTable, ///< names only, from .symtab
    DynamicSymbolTable, ///< names only, from .dynsym
    BuildIdStore, ///< <dir>/<build-id>/debuginfo in a debug or search directory laid out by build ID
    ClientCache, ///< <cache>/<build-id>/debuginfo in the debuginfod client cache, read offline
};
const char* debugSourceName(DebugSource s);

struct LocateResult {
    LocateStatus status = LocateStatus::NotFound;
    std::string recordedPath;
    std::string wantedBuildId; ///< normalized; empty when the mapping has none
    /// OTLP's htlhash (32 hex digits) that identifies the binary when there is no build ID.
    std::string wantedHtlHash;

    ElfFilePtr binary; ///< the file addresses are mapped with
    std::string binaryPath;
    bool unverified = false; ///< used by path, without a build ID to check it against
    /// The binary itself came from a debuginfod server (its executable); a downloaded debug file
    /// says so by source == Debuginfod.
    bool binaryDownloaded = false;
    /// Where the binary was found when not by its path or a search directory's index:
    /// "build-id store <dir>" or "debuginfod client cache"; empty otherwise.
    std::string binaryOrigin;
    /// With source BuildIdStore: the store's directory.
    std::string storeDir;

    std::string mismatchPath; ///< when status is BuildIdMismatch: the file rejected
    std::string mismatchBuildId; ///< its build ID

    DebugSource source = DebugSource::None;
    ElfFilePtr dwarf; ///< file whose DWARF is read (the binary itself for Binary); null for none
    std::string dwarfPath;
    ElfFilePtr symbols; ///< file whose symbol table names the physical frames; null for none
    SymbolTable::Kind symbolKind = SymbolTable::Kind::Static;

    /// dwz: the supplementary file named by dwarf's .gnu_debugaltlink; null when there is none.
    ElfFilePtr supplementary;
    std::string supplementaryPath;
    /// Why dwarf's supplementary file is missing (the candidates are in tried); empty otherwise.
    std::string supplementaryProblem;
    /// The supplementary file came from a debuginfod server (fetched by its build ID).
    bool supplementaryDownloaded = false;
    /// With MiniDebugInfo: the binary, whose .dynsym names the functions the MiniDebugInfo
    /// .symtab leaves out; null otherwise.
    ElfFilePtr dynamicSymbols;

    std::vector<std::string> tried; ///< "candidate: outcome", in the order tried

    /// One line: the status and, for failures, the reason ("build ID mismatch: /p has build ID
    /// X, wanted Y"), for successes the source ("dwarf from /usr/lib/debug/.build-id/...").
    std::string summary() const;
};

/// A LocateResult's (or MappingReport's) tried, joined by "; ", as summary() lists them.
std::string triedText(const std::vector<std::string>& tried);

class DebugInfoLocator {
public:
    explicit DebugInfoLocator(LocatorOptions options = {});

    /// Scans the search directories once (recursively) and indexes their ELF files by build ID
    /// and by file name. Call before locate() from several threads.
    void buildIndex();
    size_t indexedFileCount() const { return m_indexedFiles; }

    /// Looks up the binary and its debug info. Thread-safe after buildIndex(). Without a build ID,
    /// a non-empty htlHash (OTLP's process.executable.build_id.htlhash) identifies the binary:
    /// candidates must have that hash, and the search directories are indexed by it too.
    LocateResult locate(std::string_view recordedPath, std::string_view buildId, std::string_view htlHash = {}) const;
    /// True for a mapping with no file of its own (model::isUnsymbolizableMappingName) that
    /// locate() still looks for: a [vdso] with a build ID, in perf's build-ID cache, when
    /// usePerfBuildIdCache is set; the kernel image ("[kernel.kallsyms]") with a build ID, as a
    /// vmlinux (see locateKernelImage). The symbolization pass looks such mappings up like others.
    bool looksForCopy(std::string_view recordedPath, std::string_view buildId) const;
    /// The kernel image with that build ID, as perf report finds a vmlinux by build ID:
    /// <debugdir>/.build-id/ab/cdef....debug for each debug directory (where distributions'
    /// kernel debug packages link their vmlinux), <store>/<id>/debuginfo and /executable in the
    /// build-ID stores and the debuginfod client cache, then a file with that build ID in a
    /// search directory. A debug-only vmlinux (objcopy --only-keep-debug) serves as well: only its
    /// DWARF or symbol table is read. Its DWARF when it has any, else its symbol table.
    LocateResult locateKernelImage(std::string_view recordedPath, std::string_view buildId) const;
    /// The kernel image from the file at path (one a debuginfod server sent): Found when it has
    /// the build ID and DWARF or a symbol table; else why not in tried.
    LocateResult useKernelImage(const std::string& path, std::string_view buildId, DebugSource source) const;

    /// Finds the dwz supplementary file of r.dwarf when it has a .gnu_debugaltlink (sets
    /// supplementary, supplementaryPath or supplementaryProblem, appends to tried). locate()
    /// calls it; call it again after replacing r.dwarf (a file from debuginfod).
    void locateSupplementary(LocateResult& r) const;
    /// Uses the file at path as r.dwarf's supplementary file when it is the one the link names
    /// (build ID, or .debug_sup checksum) and holds readable DWARF: sets supplementary,
    /// supplementaryPath and supplementaryDownloaded, clears supplementaryProblem and returns
    /// true; else appends why not to tried and returns false.
    static bool useSupplementary(LocateResult& r, const std::string& path, bool downloaded = false);

    const LocatorOptions& options() const { return m_options; }
    /// The debug directories in search order (user ones, then the default when enabled).
    const std::vector<std::string>& debugDirs() const { return m_debugDirs; }

private:
    struct IndexedFile {
        std::string path;
        bool debugOnly = false;
        bool hasDwarf = false;
    };
    bool tryBinary(const std::string& path, LocateResult& r) const;
    /// A [vdso] mapping: the copy perf record kept in its build-ID cache.
    bool tryPerfCachedVdso(LocateResult& r) const;
    /// The ELF file at path when it has that build ID; else null, and why in r.tried.
    static ElfFilePtr openWithBuildId(const std::string& path, const std::string& buildId, LocateResult& r);
    bool tryDebugFile(const std::string& path, const std::string& buildId, LocateResult& r) const;
    /// A vmlinux for r.wantedBuildId at path: sets binary, dwarf or symbols and source.
    bool tryKernelImage(const std::string& path, DebugSource source, LocateResult& r) const;
    bool tryDebugLink(LocateResult& r, const std::string& buildId) const;
    /// <dir>/<id>/<name> when it exists and is not a cached miss (an empty file).
    static std::string storeEntry(const std::string& dir, const std::string& id, const char* name);

    struct Store {
        std::string dir;
        bool clientCache = false;
    };
    std::vector<Store> m_stores; ///< debug and search directories laid out by build ID, then the cache

    LocatorOptions m_options;
    std::vector<std::string> m_debugDirs;
    std::unordered_map<std::string, std::vector<IndexedFile>> m_byBuildId;
    std::unordered_map<std::string, std::vector<std::string>> m_byHtlHash;
    std::unordered_map<std::string, std::vector<std::string>> m_byName;
    size_t m_indexedFiles = 0;
};

} // namespace symflame::symbolize
