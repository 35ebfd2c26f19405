#include "symbolize/locate/debuginfodclient.h"

#include "symbolize/locate/debuginfolocator.h"
#include "symbolize/object/elffile.h"

#include <elfutils/debuginfod.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <mutex>
#include <type_traits>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace symflame::symbolize {

std::vector<std::string> parseDebuginfodUrls(std::string_view value)
{
    std::vector<std::string> urls;
    size_t i = 0;
    while (i < value.size()) {
        while (i < value.size() && (value[i] == ' ' || value[i] == '\t' || value[i] == '\n'))
            ++i;
        size_t e = i;
        while (e < value.size() && value[e] != ' ' && value[e] != '\t' && value[e] != '\n')
            ++e;
        if (e > i)
            urls.emplace_back(value.substr(i, e - i));
        i = e;
    }
    return urls;
}

namespace {

// libdebuginfod reads its configuration from the environment at the start of each query; the
// clients set DEBUGINFOD_URLS and _TIMEOUT under this lock and keep it until their query has
// read them (its first progress callback, or its end), so no query reads a half-set environment.
std::mutex& environmentMutex()
{
    static std::mutex m;
    return m;
}

std::string joinUrls(const std::vector<std::string>& urls)
{
    std::string s;
    for (const std::string& u : urls)
        s += (s.empty() ? "" : " ") + u;
    return s;
}

std::string withoutTrailingSlash(std::string u)
{
    while (u.size() > 1 && u.back() == '/')
        u.pop_back();
    return u;
}

} // namespace

int defaultDebuginfodTimeout()
{
    if (const char* t = std::getenv(DEBUGINFOD_TIMEOUT_ENV_VAR); t && *t) {
        char* end = nullptr;
        const long v = std::strtol(t, &end, 10);
        if (end && *end == '\0' && v >= 1 && v <= 86400)
            return static_cast<int>(v);
    }
    return 10;
}

DebuginfodServers::DebuginfodServers(std::vector<std::string> urls, int timeoutSeconds)
    : m_timeout(std::max(1, timeoutSeconds))
{
    for (std::string& u : urls) // libdebuginfod asks a server named twice once
        if (std::find(m_urls.begin(), m_urls.end(), u) == m_urls.end())
            m_urls.push_back(std::move(u));
}

std::shared_ptr<DebuginfodServers> DebuginfodServers::fromEnvironment()
{
    std::lock_guard lock(environmentMutex());
    const char* urls = std::getenv(DEBUGINFOD_URLS_ENV_VAR);
    return std::make_shared<DebuginfodServers>(parseDebuginfodUrls(urls ? urls : ""), defaultDebuginfodTimeout());
}

std::vector<std::string> DebuginfodServers::live() const
{
    std::lock_guard lock(m_mutex);
    std::vector<std::string> out;
    for (const std::string& u : m_urls)
        if (std::none_of(m_givenUp.begin(), m_givenUp.end(), [&](const GivenUp& g) { return g.url == u; }))
            out.push_back(u);
    return out;
}

std::vector<DebuginfodServers::GivenUp> DebuginfodServers::givenUp() const
{
    std::lock_guard lock(m_mutex);
    return m_givenUp;
}

bool DebuginfodServers::giveUp(const std::string& url, const std::string& reason)
{
    std::lock_guard lock(m_mutex);
    if (std::any_of(m_givenUp.begin(), m_givenUp.end(), [&](const GivenUp& g) { return g.url == url; }))
        return false;
    m_givenUp.push_back({ url, reason });
    ++m_generation;
    return true;
}

bool DebuginfodServers::isGivenUp(const std::string& url) const
{
    std::lock_guard lock(m_mutex);
    return std::any_of(m_givenUp.begin(), m_givenUp.end(), [&](const GivenUp& g) { return g.url == url; });
}

uint64_t DebuginfodServers::generation() const
{
    std::lock_guard lock(m_mutex);
    return m_generation;
}

std::string givenUpLine(const DebuginfodServers::GivenUp& g)
{
    return "debuginfod server " + g.url + " given up: " + g.reason + "; not asked again in this run";
}

void applyDebuginfodEnvironment(const DebuginfodOptions& o)
{
    std::lock_guard lock(environmentMutex());
    std::string urls;
    if (!o.offline)
        for (const std::string& u : o.urls)
            urls += (urls.empty() ? "" : " ") + u;
    ::setenv(DEBUGINFOD_URLS_ENV_VAR, urls.c_str(), 1);
    ::setenv(DEBUGINFOD_TIMEOUT_ENV_VAR, std::to_string(std::max(1, o.timeoutSeconds)).c_str(), 1);
    if (o.maxTimeSeconds > 0)
        ::setenv(DEBUGINFOD_MAXTIME_ENV_VAR, std::to_string(o.maxTimeSeconds).c_str(), 1);
    else
        ::unsetenv(DEBUGINFOD_MAXTIME_ENV_VAR);
    if (o.maxSizeBytes > 0)
        ::setenv(DEBUGINFOD_MAXSIZE_ENV_VAR, std::to_string(o.maxSizeBytes).c_str(), 1);
    else
        ::unsetenv(DEBUGINFOD_MAXSIZE_ENV_VAR);
    if (!o.cacheDir.empty())
        ::setenv(DEBUGINFOD_CACHE_PATH_ENV_VAR, o.cacheDir.c_str(), 1);
    // No progress lines of libdebuginfod's own on stderr: ours are drawn by the callers.
    ::unsetenv(DEBUGINFOD_PROGRESS_ENV_VAR);
}

const char* fetchKindName(FetchKind k)
{
    return k == FetchKind::Debuginfo ? "debuginfo" : k == FetchKind::Executable ? "executable" : "source";
}

const char* fetchStatusName(FetchStatus s)
{
    switch (s) {
    case FetchStatus::Found:
        return "found";
    case FetchStatus::Disabled:
        return "no server enabled";
    case FetchStatus::NotFound:
        return "not found on any server";
    case FetchStatus::Timeout:
        return "timeout";
    case FetchStatus::ServerError:
        return "server error";
    case FetchStatus::TooLarge:
        return "too large";
    case FetchStatus::Mismatch:
        return "build ID mismatch";
    case FetchStatus::NotElf:
        return "not an ELF file";
    case FetchStatus::Cancelled:
        return "cancelled";
    case FetchStatus::GivenUp:
        return "not asked";
    }
    return "?";
}

std::string FetchResult::summary() const
{
    if (status == FetchStatus::Found)
        return "from " + (server.empty() ? std::string("debuginfod") : server);
    std::string s = std::string("debuginfod: ") + fetchStatusName(status);
    if (!detail.empty())
        s += " (" + detail + ")";
    return s;
}

namespace {

// libdebuginfod is opened on first use rather than linked: it brings libcurl, GnuTLS and Kerberos
// (some 25 libraries, about 6 ms of every start-up), which only a run that asks a server needs.
// elfutils' own libdw loads it the same way.
struct DebuginfodApi {
    decltype(&::debuginfod_begin) begin = nullptr;
    decltype(&::debuginfod_end) end = nullptr;
    decltype(&::debuginfod_find_debuginfo) findDebuginfo = nullptr;
    decltype(&::debuginfod_find_executable) findExecutable = nullptr;
    decltype(&::debuginfod_find_source) findSource = nullptr;
    decltype(&::debuginfod_set_progressfn) setProgressfn = nullptr;
    decltype(&::debuginfod_set_user_data) setUserData = nullptr;
    decltype(&::debuginfod_get_user_data) getUserData = nullptr;
    decltype(&::debuginfod_get_url) getUrl = nullptr;
    decltype(&::debuginfod_set_verbose_fd) setVerboseFd = nullptr;
    std::string error; ///< why it could not be loaded (empty when it was)
};

const DebuginfodApi& debuginfodApi()
{
    static DebuginfodApi api;
    static std::once_flag once;
    std::call_once(once, [] {
        void* lib = ::dlopen("libdebuginfod.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!lib) {
            const char* why = ::dlerror();
            api.error = std::string("libdebuginfod could not be loaded: ") + (why ? why : "unknown error")
                + " (Debian: apt-get install libdebuginfod1)";
            return;
        }
        const auto load = [&](auto& fn, const char* name) {
            fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(::dlsym(lib, name));
            if (!fn && api.error.empty())
                api.error = std::string("libdebuginfod.so.1 has no ") + name;
        };
        load(api.begin, "debuginfod_begin");
        load(api.end, "debuginfod_end");
        load(api.findDebuginfo, "debuginfod_find_debuginfo");
        load(api.findExecutable, "debuginfod_find_executable");
        load(api.findSource, "debuginfod_find_source");
        load(api.setProgressfn, "debuginfod_set_progressfn");
        load(api.setUserData, "debuginfod_set_user_data");
        load(api.getUserData, "debuginfod_get_user_data");
        load(api.getUrl, "debuginfod_get_url");
        load(api.setVerboseFd, "debuginfod_set_verbose_fd");
    });
    return api;
}


// The servers whose transfers timed out in libdebuginfod's verbose log: "init server <i> <url>/buildid"
// names server i, and a "server response Timeout was reached" line (curl's words for
// CURLE_OPERATION_TIMEDOUT) is followed by "url <i> <curl's message>" for that server. A download
// stopped by DEBUGINFOD_MAXTIME is logged otherwise and does not count: that server sent data.
std::vector<std::string> timedOutServersIn(std::string_view log)
{
    std::vector<std::string> servers, out;
    bool timeoutPending = false;
    size_t pos = 0;
    while (pos < log.size()) {
        size_t end = log.find('\n', pos);
        if (end == std::string_view::npos)
            break; // an unfinished line
        std::string_view line = log.substr(pos, end - pos);
        pos = end + 1;
        if (line.starts_with("init server ")) {
            line.remove_prefix(12);
            const size_t sp = line.find(' ');
            if (sp == std::string_view::npos)
                continue;
            const size_t i = static_cast<size_t>(std::strtoul(std::string(line.substr(0, sp)).c_str(), nullptr, 10));
            std::string url(line.substr(sp + 1));
            if (url.ends_with("/buildid"))
                url.resize(url.size() - 8);
            if (i < 64) {
                if (servers.size() <= i)
                    servers.resize(i + 1);
                servers[i] = withoutTrailingSlash(url);
            }
        } else if (line.starts_with("server response ")) {
            timeoutPending = line.find("Timeout was reached") != std::string_view::npos;
        } else if (timeoutPending && line.starts_with("url ")) {
            timeoutPending = false;
            line.remove_prefix(4);
            const size_t sp = line.find(' ');
            const size_t i = static_cast<size_t>(std::strtoul(std::string(line.substr(0, sp)).c_str(), nullptr, 10));
            if (i < servers.size() && !servers[i].empty()
                && std::find(out.begin(), out.end(), servers[i]) == out.end())
                out.push_back(servers[i]);
        }
    }
    return out;
}

} // namespace

struct DebuginfodClient::Impl {
    debuginfod_client* handle = nullptr;
    int logFd = -1; // libdebuginfod's verbose log of the current fetch (a memfd)
    std::shared_ptr<DebuginfodServers> servers;
    // Per fetch: what the progress callback needs.
    const model::Progress* cancel = nullptr;
    ProgressFn progress;
    std::string url;
    std::string sourcePath; // FetchKind::Source: the path asked for
    // Per query (a fetch asks again when a server is given up while it waits).
    std::unique_lock<std::mutex> environmentLock;
    std::vector<std::string> asked; // the servers of this query, as configured
    uint64_t generation = 0;
    std::chrono::steady_clock::time_point started;
    off_t logSeen = 0;
    bool heard = false; // a server sent a response header in this query
    enum class Stop : uint8_t { No, User, ServerGivenUp } stop = Stop::No;
    bool gaveUpHere = false; // this fetch gave a server up

    bool timeoutLogged = false; // the log holds a transfer that timed out
    std::string log; // what libdebuginfod logged in this query so far (at most kMaxLog bytes)
    static constexpr size_t kMaxLog = 16 << 20;

    // Appends what the log gained since the last call: each progress call reads only the new
    // bytes (a redirect loop logs thousands of header lines; reading it all again each time
    // made a 20-s query take minutes under sanitizers). Returns the new text.
    std::string_view readNewLog()
    {
        if (logFd < 0)
            return {};
        const off_t size = ::lseek(logFd, 0, SEEK_END);
        if (size <= logSeen)
            return {};
        const size_t before = log.size();
        const size_t room = kMaxLog - std::min(kMaxLog, before);
        const size_t want = std::min(room, static_cast<size_t>(size - logSeen));
        log.resize(before + want);
        const ssize_t n = want ? ::pread(logFd, log.data() + before, want, logSeen) : 0;
        log.resize(before + (n > 0 ? static_cast<size_t>(n) : 0));
        logSeen = size;
        return std::string_view(log).substr(before);
    }

    void resetLog()
    {
        if (logFd >= 0) {
            (void)::ftruncate(logFd, 0);
            ::lseek(logFd, 0, SEEK_SET);
        }
        log.clear();
        logSeen = 0;
        timeoutLogged = false;
    }

    // Gives up the servers of this query that timed out in the log; true when any was.
    bool giveUpTimedOut(std::string_view log)
    {
        bool any = false;
        for (const std::string& s : timedOutServersIn(log))
            for (const std::string& a : asked)
                if (withoutTrailingSlash(a) == s) {
                    any = true;
                    gaveUpHere = servers->giveUp(a, reasonText()) || gaveUpHere;
                }
        return any;
    }

    std::string reasonText() const
    {
        return "it sent nothing for " + std::to_string(servers->timeoutSeconds()) + " s";
    }

    static int onProgress(debuginfod_client* c, long received, long total)
    {
        const DebuginfodApi& api = debuginfodApi();
        auto* self = static_cast<Impl*>(api.getUserData(c));
        if (!self)
            return 0;
        if (self->environmentLock.owns_lock()) // the query has read its configuration
            self->environmentLock.unlock();
        const char* u = api.getUrl(c);
        if (u)
            self->url = u;
        if (self->progress)
            self->progress(received, total);
        if (self->cancel && self->cancel->isCancelled()) {
            self->stop = Stop::User;
            return 1;
        }
        // A server of this query given up by another client: ask the others again without it.
        if (self->servers->generation() != self->generation)
            for (const std::string& a : self->asked)
                if (self->servers->isGivenUp(a)) {
                    self->stop = Stop::ServerGivenUp;
                    return 1;
                }
        // A server that timed out: libdebuginfod would ask it again (DEBUGINFOD_RETRY_LIMIT),
        // a timeout each time. Its log says which server it was once the round is over.
        // Only the new lines are looked at: a line cut at the end of the last read is whole now.
        const size_t lineStart = [&] {
            const size_t nl = self->log.rfind('\n');
            return nl == std::string::npos ? 0 : nl + 1;
        }();
        if (!self->readNewLog().empty()) {
            const std::string_view fresh = std::string_view(self->log).substr(lineStart);
            // libdebuginfod logs each response header line it receives: some server answered.
            self->heard = self->heard || fresh.starts_with("header ") || fresh.find("\nheader ") != std::string_view::npos;
            // The server's "url" line may come in a later read than curl's timeout line.
            self->timeoutLogged = self->timeoutLogged || fresh.find("Timeout was reached") != std::string_view::npos;
            if (self->timeoutLogged && self->giveUpTimedOut(self->log)) {
                self->stop = Stop::ServerGivenUp;
                return 1;
            }
        }
        // Nothing at all from any server long past the timeout (a connection that never completes
        // is not timed out by libdebuginfod, whose timeout counts from the transfer's start).
        if (!u && !self->heard
            && std::chrono::steady_clock::now() - self->started
                > std::chrono::milliseconds(self->servers->timeoutSeconds() * 1000 + 1500)) {
            for (const std::string& a : self->asked)
                self->gaveUpHere = self->servers->giveUp(a, self->reasonText()) || self->gaveUpHere;
            self->stop = Stop::ServerGivenUp;
            return 1;
        }
        return 0;
    }
};

DebuginfodClient::~DebuginfodClient()
{
    if (d && d->handle)
        debuginfodApi().end(d->handle);
    if (d && d->logFd >= 0)
        ::close(d->logFd);
}

model::Result<std::unique_ptr<DebuginfodClient>> DebuginfodClient::create(std::shared_ptr<DebuginfodServers> servers)
{
    const DebuginfodApi& api = debuginfodApi();
    if (!api.error.empty())
        return model::makeError(model::ErrorCode::Unsupported, api.error);
    std::unique_ptr<DebuginfodClient> c(new DebuginfodClient());
    c->d = std::make_unique<Impl>();
    c->d->servers = servers ? std::move(servers) : DebuginfodServers::fromEnvironment();
    c->d->handle = api.begin();
    if (!c->d->handle)
        return model::makeError(model::ErrorCode::Unsupported, "libdebuginfod could not start a client");
    api.setUserData(c->d->handle, c->d.get());
    api.setProgressfn(c->d->handle, &Impl::onProgress);
    c->d->logFd = ::memfd_create("symflame-debuginfod-log", MFD_CLOEXEC);
    if (c->d->logFd >= 0)
        api.setVerboseFd(c->d->handle, c->d->logFd);
    return c;
}

namespace {

bool isHex(std::string_view s)
{
    if (s.empty() || s.size() % 2 != 0 || s.size() > 128)
        return false;
    for (char ch : s)
        if (!((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f')))
            return false;
    return true;
}

// libdebuginfod answers -ENOENT whenever no server delivered, whatever each server said: a 404,
// a 503 or a transfer cut short. Its verbose log names each server's failure in a line
// "url <n> <curl's message>" (elfutils 0.188); the first that is not a 404 tells a server error
// from a plain miss. Without such a line (another version's wording) the miss stands.
std::string serverFailureIn(std::string_view log)
{
    size_t pos = 0;
    while (pos < log.size()) {
        size_t end = log.find('\n', pos);
        if (end == std::string_view::npos)
            end = log.size();
        std::string_view line = log.substr(pos, end - pos);
        pos = end + 1;
        if (line.substr(0, 4) != "url ")
            continue;
        line.remove_prefix(4);
        const size_t sp = line.find(' ');
        if (sp == std::string_view::npos)
            continue;
        const std::string_view msg = line.substr(sp + 1);
        if (msg.substr(0, 7) == "http://" || msg.substr(0, 8) == "https://" || msg.empty())
            continue; // the URL being queried
        if (msg.find("returned error: 404") != std::string_view::npos)
            continue;
        return std::string(msg);
    }
    return {};
}

} // namespace

FetchResult DebuginfodClient::fetch(
    std::string_view buildIdIn, FetchKind kind, const model::Progress* cancel, ProgressFn progress)
{
    FetchResult r;
    std::string buildId(buildIdIn);
    for (char& ch : buildId)
        if (ch >= 'A' && ch <= 'F')
            ch = static_cast<char>(ch - 'A' + 'a');
    if (!isHex(buildId)) {
        r.status = FetchStatus::NotFound;
        r.detail = "'" + buildId + "' is not a hex build ID";
        return r;
    }
    if (d->servers->live().empty() && d->servers->givenUp().empty()) {
        r.status = FetchStatus::Disabled;
        return r;
    }
    d->cancel = cancel;
    d->progress = std::move(progress);
    d->url.clear();
    d->gaveUpHere = false;
    char* path = nullptr;
    int fd = -ENOENT;
    const DebuginfodApi& api = debuginfodApi();
    const auto* id = reinterpret_cast<const unsigned char*>(buildId.c_str());
    const auto readLog = [&]() -> const std::string& {
        d->readNewLog();
        return d->log;
    };
    // A query per round: the servers not given up; again without a server given up meanwhile.
    for (;;) {
        d->asked = d->servers->live();
        if (d->asked.empty()) {
            d->cancel = nullptr;
            d->progress = {};
            r.status = d->gaveUpHere ? FetchStatus::Timeout : FetchStatus::GivenUp;
            r.detail = d->gaveUpHere ? d->reasonText() + ": given up" : "every server was given up";
            return r;
        }
        d->resetLog();
        d->heard = false;
        d->stop = Impl::Stop::No;
        d->generation = d->servers->generation();
        d->started = std::chrono::steady_clock::now();
        d->environmentLock = std::unique_lock(environmentMutex());
        ::setenv(DEBUGINFOD_URLS_ENV_VAR, joinUrls(d->asked).c_str(), 1);
        ::setenv(DEBUGINFOD_TIMEOUT_ENV_VAR, std::to_string(d->servers->timeoutSeconds()).c_str(), 1);
        fd = kind == FetchKind::Debuginfo ? api.findDebuginfo(d->handle, id, 0, &path)
            : kind == FetchKind::Executable ? api.findExecutable(d->handle, id, 0, &path)
                                            : api.findSource(d->handle, id, 0, d->sourcePath.c_str(), &path);
        if (d->environmentLock.owns_lock())
            d->environmentLock.unlock();
        const std::string& log = readLog();
        const bool timedOut = d->giveUpTimedOut(log);
        if (fd < 0 && (-fd == ETIME || -fd == ETIMEDOUT) && !timedOut
            && log.find("Timeout with max time") == std::string::npos)
            for (const std::string& a : d->asked) // a timeout the log does not attribute
                d->gaveUpHere = d->servers->giveUp(a, d->reasonText()) || d->gaveUpHere;
        if (d->stop == Impl::Stop::No || fd >= 0)
            break;
        // Stopped by us: libdebuginfod records a stopped query as a miss (an empty file in its
        // cache) that would answer the next query for the build ID without asking: remove it.
        std::free(path);
        path = nullptr;
        const std::string miss = kind == FetchKind::Source
            ? std::string() // libdebuginfod names a source's cache entry after its escaped path
            : joinPath(joinPath(debuginfodClientCacheDir(), buildId), fetchKindName(kind));
        if (struct stat st {}; !miss.empty() && ::stat(miss.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0)
            ::unlink(miss.c_str());
        if (d->stop == Impl::Stop::User)
            break;
    }
    d->cancel = nullptr;
    d->progress = {};
    std::string localPath = path ? path : "";
    std::free(path);
    r.server = d->url;
    if (fd < 0) {
        const int err = -fd;
        switch (err) {
        case ENOENT:
            r.status = FetchStatus::NotFound;
            if (const std::string failure = serverFailureIn(readLog()); !failure.empty()) {
                r.status = FetchStatus::ServerError;
                r.detail = failure;
                if (!r.server.empty())
                    r.detail += ", " + r.server;
                return r;
            }
            break;
        case ENOSYS:
            r.status = FetchStatus::Disabled;
            break;
        case ETIME:
        case ETIMEDOUT:
            r.status = FetchStatus::Timeout;
            break;
        case EFBIG:
        case E2BIG:
            r.status = FetchStatus::TooLarge;
            break;
        case EINTR:
        case ECANCELED:
            r.status = cancel && cancel->isCancelled() ? FetchStatus::Cancelled : FetchStatus::ServerError;
            break;
        default:
            r.status = FetchStatus::ServerError;
            break;
        }
        if (d->stop == Impl::Stop::User)
            r.status = FetchStatus::Cancelled;
        if (r.status == FetchStatus::Timeout) {
            r.detail = d->reasonText() + (d->gaveUpHere ? ": given up" : "");
            return r;
        }
        if (r.status == FetchStatus::Cancelled || r.status == FetchStatus::Disabled)
            return r;
        r.detail = std::strerror(err);
        if (!r.server.empty()) {
            r.detail += ", " + r.server;
        } else if (const char* urls = std::getenv(DEBUGINFOD_URLS_ENV_VAR); urls && *urls) {
            r.detail += std::string(", asked ") + urls;
        }
        return r;
    }
    ::close(fd);
    if (r.server.empty())
        r.server = "cache";
    if (kind == FetchKind::Source) { // text: nothing to verify it by
        r.status = FetchStatus::Found;
        r.path = localPath;
        return r;
    }
    // Verify what was received before anything uses it.
    auto elf = ElfFile::open(localPath);
    if (!elf) {
        r.status = FetchStatus::NotElf;
        r.detail = localPath + ": " + elf.error().message;
    } else if ((*elf)->buildId() != buildId) {
        r.status = FetchStatus::Mismatch;
        r.detail = "received build ID " + ((*elf)->buildId().empty() ? std::string("(none)") : (*elf)->buildId())
            + ", wanted " + buildId;
    } else {
        r.status = FetchStatus::Found;
        r.path = localPath;
        return r;
    }
    if (r.server != "cache")
        r.detail += ", from " + r.server;
    ::unlink(localPath.c_str()); // a bad file must not be served from the cache next time
    return r;
}

FetchResult DebuginfodClient::fetchSource(std::string_view buildId, const std::string& path, const model::Progress* cancel)
{
    d->sourcePath = path;
    FetchResult r = fetch(buildId, FetchKind::Source, cancel);
    d->sourcePath.clear();
    return r;
}

std::function<std::string(const std::string&, const std::string&, std::string*)> debuginfodSourceFetcher(
    const DebuginfodOptions& options)
{
    struct State {
        DebuginfodOptions options;
        std::unique_ptr<DebuginfodClient> client;
    };
    auto state = std::make_shared<State>(State { options, nullptr });
    return [state](const std::string& buildId, const std::string& recorded, std::string* outcome) {
        if (!state->client) {
            applyDebuginfodEnvironment(state->options);
            auto created = DebuginfodClient::create(
                std::make_shared<DebuginfodServers>(state->options.urls, state->options.timeoutSeconds));
            if (!created) {
                *outcome = created.error().message;
                return std::string();
            }
            state->client = std::move(*created);
        }
        const FetchResult r = state->client->fetchSource(buildId, recorded);
        *outcome = r.status == FetchStatus::Found ? "source " + r.summary() : r.summary();
        return r.status == FetchStatus::Found ? r.path : std::string();
    };
}

} // namespace symflame::symbolize
