#include "symbolize/locate/debuginfodclient.h"

#include "symbolize/object/elffile.h"

#include <elfutils/debuginfod.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <mutex>
#include <type_traits>
#include <sys/mman.h>
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

void applyDebuginfodEnvironment(const DebuginfodOptions& o)
{
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
    return k == FetchKind::Debuginfo ? "debuginfo" : "executable";
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
        load(api.setProgressfn, "debuginfod_set_progressfn");
        load(api.setUserData, "debuginfod_set_user_data");
        load(api.getUserData, "debuginfod_get_user_data");
        load(api.getUrl, "debuginfod_get_url");
        load(api.setVerboseFd, "debuginfod_set_verbose_fd");
    });
    return api;
}

} // namespace

struct DebuginfodClient::Impl {
    debuginfod_client* handle = nullptr;
    int logFd = -1; // libdebuginfod's verbose log of the current fetch (a memfd)
    // Per fetch: what the progress callback needs.
    const model::Progress* cancel = nullptr;
    ProgressFn progress;
    std::string url;

    static int onProgress(debuginfod_client* c, long received, long total)
    {
        const DebuginfodApi& api = debuginfodApi();
        auto* self = static_cast<Impl*>(api.getUserData(c));
        if (!self)
            return 0;
        if (const char* u = api.getUrl(c))
            self->url = u;
        if (self->progress)
            self->progress(received, total);
        return self->cancel && self->cancel->isCancelled() ? 1 : 0;
    }
};

DebuginfodClient::~DebuginfodClient()
{
    if (d && d->handle)
        debuginfodApi().end(d->handle);
    if (d && d->logFd >= 0)
        ::close(d->logFd);
}

model::Result<std::unique_ptr<DebuginfodClient>> DebuginfodClient::create()
{
    const DebuginfodApi& api = debuginfodApi();
    if (!api.error.empty())
        return model::makeError(model::ErrorCode::Unsupported, api.error);
    std::unique_ptr<DebuginfodClient> c(new DebuginfodClient());
    c->d = std::make_unique<Impl>();
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
    d->cancel = cancel;
    d->progress = std::move(progress);
    d->url.clear();
    if (d->logFd >= 0) {
        (void)::ftruncate(d->logFd, 0);
        ::lseek(d->logFd, 0, SEEK_SET);
    }
    char* path = nullptr;
    const auto* id = reinterpret_cast<const unsigned char*>(buildId.c_str());
    const DebuginfodApi& api = debuginfodApi();
    const int fd = kind == FetchKind::Debuginfo ? api.findDebuginfo(d->handle, id, 0, &path)
                                                : api.findExecutable(d->handle, id, 0, &path);
    d->cancel = nullptr;
    d->progress = {};
    const auto readLog = [&] {
        std::string log;
        if (d->logFd < 0)
            return log;
        const off_t size = ::lseek(d->logFd, 0, SEEK_END);
        if (size <= 0 || size > (16 << 20))
            return log;
        log.resize(static_cast<size_t>(size));
        const ssize_t n = ::pread(d->logFd, log.data(), log.size(), 0);
        log.resize(n > 0 ? static_cast<size_t>(n) : 0);
        return log;
    };
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

} // namespace symflame::symbolize
