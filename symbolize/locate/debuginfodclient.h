// Fetches debug files and executables by build ID from debuginfod servers through elfutils'
// libdebuginfod, the client gdb and perf use, so downloads land in (and are served from) the
// same cache they share. Facts: ../shared/docs/symbolization.md §5.
//
// libdebuginfod takes its configuration (server URLs, timeouts, size limit, cache path) only
// from the environment, read at each query. applyDebuginfodEnvironment() sets those variables
// from DebuginfodOptions; call it before the clients' threads start and not while any query runs.
//
// One DebuginfodClient per thread (a libdebuginfod handle is not thread-safe). Every file a
// server sends is verified before it is used: it must be ELF and carry the build ID asked for;
// a file that fails is removed from the cache (so a later fetch can get a good copy) and
// reported as a mismatch or as not ELF.
#pragma once

#include "model/core/progress.h"
#include "model/core/result.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace symflame::symbolize {

struct DebuginfodOptions {
    std::vector<std::string> urls; ///< servers, queried in this order; none = no network
    bool offline = false; ///< never contact a server (libdebuginfod reads its cache only for a
                          ///< query it may send, so offline uses no debuginfod at all)
    /// A server that sends nothing for this long is given up for the rest of the run (the
    /// default: $DEBUGINFOD_TIMEOUT when the user set it, else 10; see defaultDebuginfodTimeout()).
    int timeoutSeconds = 10;
    int maxTimeSeconds = 600; ///< no single download takes longer
    int64_t maxSizeBytes = 0; ///< larger files are refused by the server/client; 0 = no limit
    std::string cacheDir; ///< empty = the standard client cache ($XDG_CACHE_HOME/debuginfod_client)
    unsigned parallelDownloads = 4; ///< downloads at once in a symbolization pass

    bool enabled() const { return !offline && !urls.empty(); }
};

/// $DEBUGINFOD_TIMEOUT when it holds seconds between 1 and 86400, else 10.
int defaultDebuginfodTimeout();

/// Splits a DEBUGINFOD_URLS value (space separated) into URLs.
std::vector<std::string> parseDebuginfodUrls(std::string_view value);

/// Sets DEBUGINFOD_URLS, _TIMEOUT, _MAXTIME, _MAXSIZE and _CACHE_PATH for libdebuginfod.
void applyDebuginfodEnvironment(const DebuginfodOptions& options);

enum class FetchKind : uint8_t { Debuginfo, Executable, Source };
const char* fetchKindName(FetchKind k);

enum class FetchStatus : uint8_t {
    Found, ///< path holds a verified file
    Disabled, ///< offline, or no server configured
    NotFound, ///< no server has it (404 everywhere, or a cached miss)
    Timeout,
    ServerError, ///< connection refused, HTTP 5xx, a broken transfer ...
    TooLarge,
    Mismatch, ///< the file received has another build ID
    NotElf, ///< the file received is not an ELF file
    Cancelled,
    GivenUp, ///< not asked: every server was given up earlier in the run (DebuginfodServers)
};
const char* fetchStatusName(FetchStatus s);

struct FetchResult {
    FetchStatus status = FetchStatus::Disabled;
    std::string path; ///< local path of the verified file (Found)
    std::string server; ///< URL of the download, "cache" when served from the cache, or empty
    std::string detail; ///< what went wrong, for messages ("build ID 12ab..., wanted 34cd...")

    /// One line: "debuginfo from http://host:port/..." or "debuginfod: timeout (...)".
    std::string summary() const;
};

/// The servers of one run, shared by its clients (thread-safe): a server that sends nothing for
/// the timeout is given up for the rest of the run, once, and the clients ask only the others
/// (a query in flight to it is stopped and asked again of the others).
class DebuginfodServers {
public:
    DebuginfodServers(std::vector<std::string> urls, int timeoutSeconds);
    /// The servers of $DEBUGINFOD_URLS, the timeout of $DEBUGINFOD_TIMEOUT (else 10 s).
    static std::shared_ptr<DebuginfodServers> fromEnvironment();

    struct GivenUp {
        std::string url;
        std::string reason; ///< "sent nothing for 10 s"
    };
    std::vector<std::string> live() const;
    std::vector<GivenUp> givenUp() const;
    int timeoutSeconds() const { return m_timeout; }
    /// Gives url up (no-op when it is given up already); true when this call gave it up.
    bool giveUp(const std::string& url, const std::string& reason);
    bool isGivenUp(const std::string& url) const;
    /// Changes with every server given up.
    uint64_t generation() const;

private:
    mutable std::mutex m_mutex;
    std::vector<std::string> m_urls;
    std::vector<GivenUp> m_givenUp;
    uint64_t m_generation = 0;
    int m_timeout;
};

/// "debuginfod server URL given up: it sent nothing for 10 s; not asked again in this run".
std::string givenUpLine(const DebuginfodServers::GivenUp& g);

class DebuginfodClient {
public:
    ~DebuginfodClient();
    DebuginfodClient(const DebuginfodClient&) = delete;
    DebuginfodClient& operator=(const DebuginfodClient&) = delete;

    /// A handle; errors when libdebuginfod can't make one. servers: the run's servers (shared by
    /// its clients); null = DebuginfodServers::fromEnvironment() for this client alone.
    static model::Result<std::unique_ptr<DebuginfodClient>> create(std::shared_ptr<DebuginfodServers> servers = {});

    /// Bytes received so far and expected (total 0 when unknown); called from the fetching thread.
    using ProgressFn = std::function<void(int64_t received, int64_t total)>;

    /// Fetches the file of the given kind for a build ID (hex). Stops with Cancelled soon after
    /// cancel->isCancelled() (read from the fetching thread; null: never cancelled).
    FetchResult fetch(std::string_view buildId, FetchKind kind, const model::Progress* cancel = nullptr,
        ProgressFn progress = {});
    /// Fetches a source file of the binary with the build ID, by the path its debug info gives
    /// (absolute, as DW_AT_comp_dir and the line table make it): /buildid/ID/source/PATH.
    FetchResult fetchSource(std::string_view buildId, const std::string& path, const model::Progress* cancel = nullptr);

private:
    DebuginfodClient() = default;
    struct Impl;
    std::unique_ptr<Impl> d;
};

/// SourceSearch::fetch (sourcefiles.h) asking options' servers: the first call sets their
/// environment (applyDebuginfodEnvironment) and opens a client, which later calls reuse. Call
/// it from one thread at a time.
std::function<std::string(const std::string& buildId, const std::string& recorded, std::string* outcome)>
debuginfodSourceFetcher(const DebuginfodOptions& options);

} // namespace symflame::symbolize
