#include "symbolize/isolation/isolatedengine.h"

#include "symbolize/isolation/protocol.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <thread>

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace symflame::symbolize {

using model::ErrorCode;
using model::makeError;
using namespace protocol;

namespace {

std::string signalName(int sig)
{
    const char* abbrev = sigabbrev_np(sig);
    return abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

} // namespace

model::Result<std::unique_ptr<IsolatedEngine>> IsolatedEngine::open(
    const LocateResult& located, const EngineOptions& engine, const IsolationOptions& isolation)
{
    std::unique_ptr<IsolatedEngine> s(new IsolatedEngine());
    if (model::Status st = s->start(located, engine, isolation); !st)
        return st.error();
    return s;
}

IsolatedEngine::~IsolatedEngine()
{
    stop();
}

void IsolatedEngine::stop()
{
    if (m_socket >= 0) {
        ::close(m_socket); // the worker reads the end of its input and exits
        m_socket = -1;
    }
    if (m_stderr >= 0) {
        ::close(m_stderr);
        m_stderr = -1;
    }
    if (m_pid > 0) {
        int status = 0;
        bool reaped = false;
        for (int i = 0; i < 100 && !reaped; ++i) {
            const pid_t r = ::waitpid(m_pid, &status, WNOHANG);
            reaped = r == m_pid || (r < 0 && errno != EINTR);
            if (!reaped)
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        if (!reaped) {
            ::kill(m_pid, SIGKILL);
            while (::waitpid(m_pid, &status, 0) < 0 && errno == EINTR) { }
        }
        m_pid = -1;
    }
}

namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif
#else
constexpr bool kAddressSanitizer = false;
#endif

/// This process's environment for the worker. In an AddressSanitizer build (the test suite's
/// sanitized run) the worker leaves deadly signals to the kernel, so that a third-party parser
/// crashing on a bad file ends the worker by that signal, as in a release build, instead of as a
/// sanitizer report with its own exit code; the sanitizer still reports memory errors it finds.
std::vector<std::string> workerEnvironment()
{
    std::vector<std::string> env;
    bool asanOptions = false;
    for (char** e = environ; e && *e; ++e) {
        env.emplace_back(*e);
        if (kAddressSanitizer && env.back().starts_with("ASAN_OPTIONS=")) {
            env.back() += ":handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_abort=0";
            asanOptions = true;
        }
    }
    if (kAddressSanitizer && !asanOptions)
        env.emplace_back("ASAN_OPTIONS=handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_abort=0");
    return env;
}

} // namespace

model::Status IsolatedEngine::start(
    const LocateResult& located, const EngineOptions& engine, const IsolationOptions& isolation)
{
    m_file = !located.dwarfPath.empty() ? located.dwarfPath : located.binaryPath;
    m_timeout = std::max(1u, isolation.timeoutSeconds);
    const std::string worker = resolveWorkerPath(isolation);

    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        return makeError(ErrorCode::Io, "cannot start the debug info reader: " + systemErrorText(errno));
    int err[2];
    if (::pipe2(err, O_CLOEXEC) != 0) {
        const int e = errno;
        ::close(sv[0]);
        ::close(sv[1]);
        return makeError(ErrorCode::Io, "cannot start the debug info reader: " + systemErrorText(e));
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, sv[1], 0);
    posix_spawn_file_actions_adddup2(&actions, sv[1], 1);
    posix_spawn_file_actions_adddup2(&actions, err[1], 2);
    // Nothing else of this process goes to the worker: an inherited socket or pipe end (a
    // download's connection, another worker's socket) would stay open as long as the worker runs.
    posix_spawn_file_actions_addclosefrom_np(&actions, 3);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t none, defaults;
    sigemptyset(&none);
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    sigaddset(&defaults, SIGSEGV);
    sigaddset(&defaults, SIGBUS);
    sigaddset(&defaults, SIGABRT);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    char arg[] = "--symbolize-worker";
    char* argv[] = { const_cast<char*>(worker.c_str()), arg, nullptr };
    std::vector<std::string> envStrings = workerEnvironment();
    std::vector<char*> envp;
    envp.reserve(envStrings.size() + 1);
    for (std::string& e : envStrings)
        envp.push_back(e.data());
    envp.push_back(nullptr);
    pid_t pid = -1;
    const int rc = ::posix_spawn(&pid, worker.c_str(), &actions, &attr, argv, envp.data());
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    ::close(sv[1]);
    ::close(err[1]);
    if (rc != 0) {
        ::close(sv[0]);
        ::close(err[0]);
        return makeError(
            ErrorCode::Io, "cannot start the debug info reader " + worker + ": " + systemErrorText(rc), m_file);
    }
    m_pid = pid;
    m_socket = sv[0];
    m_stderr = err[0];
    ::fcntl(m_socket, F_SETFL, ::fcntl(m_socket, F_GETFL) | O_NONBLOCK);
    ::fcntl(m_stderr, F_SETFL, ::fcntl(m_stderr, F_GETFL) | O_NONBLOCK);

    std::string reply;
    if (model::Status st = exchange(Open, encodeOpen(located, engine), Opened, &reply, nullptr); !st)
        return st;
    auto opened = decodeOpened(reply);
    if (!opened)
        return fail("sent a malformed answer");
    if (!opened->ok) {
        stop();
        m_failure = opened->error;
        return makeError(ErrorCode::InvalidInput, opened->error);
    }
    m_source = opened->source;
    m_engine = std::move(opened->engine);
    m_description = std::move(opened->description);
    return model::Status::success();
}

model::Error IsolatedEngine::fail(std::string why)
{
    if (m_pid > 0) {
        ::kill(m_pid, SIGKILL);
        int status = 0;
        while (::waitpid(m_pid, &status, 0) < 0 && errno == EINTR) { }
        m_pid = -1;
    }
    stop();
    m_failure = "debug info reader " + why + " on " + m_file + "; other binaries unaffected";
    return makeError(ErrorCode::InvalidInput, m_failure);
}

model::Error IsolatedEngine::workerEnded(const char* what)
{
    // The worker closed its end: it is exiting, or has died. Its last words first.
    for (int i = 0; i < 40 && m_stderr >= 0; ++i) {
        char buf[4096];
        const ssize_t n = ::read(m_stderr, buf, sizeof buf);
        if (n > 0) {
            m_stderrTail.append(buf, size_t(n));
        } else if (n == 0) {
            break;
        } else if (errno == EAGAIN) {
            pollfd p { m_stderr, POLLIN, 0 };
            ::poll(&p, 1, 5);
        } else if (errno != EINTR) {
            break;
        }
    }
    int status = 0;
    bool reaped = false;
    for (int i = 0; i < 400 && !reaped; ++i) {
        const pid_t r = ::waitpid(m_pid, &status, WNOHANG);
        reaped = r == m_pid;
        if (r < 0 && errno != EINTR)
            break;
        if (!reaped)
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    std::string why;
    if (!reaped) {
        why = std::string("stopped answering ") + what;
    } else {
        m_pid = -1;
        if (WIFSIGNALED(status))
            why = (WTERMSIG(status) == SIGKILL ? "was killed (" : "crashed (") + signalName(WTERMSIG(status)) + ")";
        else if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
            why = "exited with status " + std::to_string(WEXITSTATUS(status));
        else
            why = std::string("ended ") + what;
    }
    // The last line the worker wrote (LLVM's fatal errors say what went wrong), or a sanitizer's
    // one-line summary (a sanitizer build's worker reports a crash and exits with status 1).
    std::string_view tail = m_stderrTail;
    if (const size_t summary = tail.rfind("SUMMARY: "); summary != std::string_view::npos)
        tail = tail.substr(summary, tail.find('\n', summary) - summary);
    while (!tail.empty() && (tail.back() == '\n' || tail.back() == '\r' || tail.back() == ' '))
        tail.remove_suffix(1);
    if (const size_t nl = tail.rfind('\n'); nl != std::string_view::npos)
        tail.remove_prefix(nl + 1);
    if (!tail.empty())
        why += " (" + std::string(tail.substr(0, 200)) + ")";
    return fail(why);
}

model::Status IsolatedEngine::exchange(
    uint32_t type, const std::string& payload, uint32_t replyType, std::string* reply, model::Progress* progress)
{
    const std::string out = frame(type, payload);
    return transfer(&out, replyType, reply, progress);
}

model::Status IsolatedEngine::transfer(
    const std::string* out, uint32_t replyType, std::string* reply, model::Progress* progress)
{
    if (!m_failure.empty())
        return makeError(m_failureCode, m_failure);
    const char* what = m_engine.empty() ? "while opening the file" : "while looking up addresses";
    const size_t outSize = out ? out->size() : 0;
    size_t sent = 0;
    bool sendFailed = false;
    std::string in;
    uint32_t length = 0;
    bool haveHeader = false;
    using Clock = std::chrono::steady_clock;
    auto deadline = Clock::now() + std::chrono::seconds(m_timeout);
    std::vector<char> buf(1 << 16);
    for (;;) {
        if (sent == outSize && !reply)
            return model::Status::success(); // a send only: done
        const short events = short((reply ? POLLIN : 0) | (sent < outSize ? POLLOUT : 0));
        pollfd fds[2] = { { m_socket, events, 0 }, { m_stderr, POLLIN, 0 } };
        const int r = ::poll(fds, m_stderr >= 0 ? 2 : 1, 100);
        if (r < 0 && errno != EINTR)
            return fail("could not be waited for (" + systemErrorText(errno) + ")");
        if (progress && progress->isCancelled()) {
            fail("cancelled");
            m_failure = "symbolization cancelled";
            m_failureCode = ErrorCode::Cancelled;
            return makeError(ErrorCode::Cancelled, m_failure);
        }
        bool moved = false; // bytes went either way
        if (r > 0 && m_stderr >= 0 && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) {
            const ssize_t n = ::read(m_stderr, buf.data(), buf.size());
            if (n > 0) {
                m_stderrTail.append(buf.data(), size_t(n));
                if (m_stderrTail.size() > 4096)
                    m_stderrTail.erase(0, m_stderrTail.size() - 2048);
            } else if (n == 0) {
                ::close(m_stderr);
                m_stderr = -1;
            }
        }
        if (r > 0 && sent < outSize && (fds[0].revents & (POLLOUT | POLLHUP | POLLERR))) {
            const ssize_t n = ::send(m_socket, out->data() + sent, outSize - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
            if (n > 0) {
                sent += size_t(n);
                moved = true;
            } else if (n < 0 && errno != EAGAIN && errno != EINTR) {
                if (!reply)
                    return workerEnded(what);
                // The worker is gone: what it wrote before it went, and how it ended, say why.
                sent = outSize;
                sendFailed = true;
            }
        }
        if (r > 0 && reply && (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) {
            const ssize_t n = ::recv(m_socket, buf.data(), buf.size(), MSG_DONTWAIT);
            if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
                return workerEnded(what);
            if (n > 0) {
                in.append(buf.data(), size_t(n));
                moved = true;
                if (!haveHeader && in.size() >= kHeaderSize) {
                    const Header h = readHeader(in);
                    length = h.length;
                    if (h.type != replyType || length > kMaxReply || sent < outSize || sendFailed)
                        return fail("sent a malformed answer");
                    haveHeader = true;
                }
                if (haveHeader && in.size() >= kHeaderSize + size_t(length)) {
                    if (in.size() > kHeaderSize + size_t(length))
                        return fail("sent a malformed answer");
                    *reply = in.substr(kHeaderSize);
                    return model::Status::success();
                }
            }
        }
        const auto now = Clock::now();
        if (moved)
            deadline = now + std::chrono::seconds(m_timeout);
        else if (now >= deadline)
            return fail("timed out after " + std::to_string(m_timeout) + " s");
    }
}

model::Status IsolatedEngine::symbolize(
    std::span<const uint64_t> addresses, SymbolizedAddresses& out, model::Progress* progress)
{
    if (!m_failure.empty())
        return makeError(m_failureCode, m_failure);
    if (addresses.empty())
        return model::Status::success();
    const auto request = [&](size_t begin) {
        const size_t n = std::min(kBatch, addresses.size() - begin);
        // begin 0: a new output, the worker starts new string and function tables.
        return frame(Lookup, encodeLookup(begin == 0, addresses.subspan(begin, n)));
    };
    // The worker's strings and functions of this call, as ids of out (they come once each).
    AnswersReceived received;
    std::string reply;
    std::string next = request(0);
    if (model::Status st = transfer(&next, 0, nullptr, progress); !st)
        return st;
    // (transfer() watches for cancellation: it kills the worker, whose answers then never come.)
    for (size_t begin = 0; begin < addresses.size(); begin += kBatch) {
        const size_t n = std::min(kBatch, addresses.size() - begin);
        if (model::Status st = transfer(nullptr, Answers, &reply, progress); !st)
            return st;
        // The next batch goes out before this one is read, so that the worker works meanwhile.
        if (begin + kBatch < addresses.size()) {
            next = request(begin + kBatch);
            if (model::Status st = transfer(&next, 0, nullptr, progress); !st)
                return st;
        }
        // The batch's answers, checked as they are taken over: every index within its table.
        auto batch = decodeAnswers(reply, n, received, out);
        if (!batch)
            return fail("sent a malformed answer");
        if (!batch->ok) {
            // The engine failed: the worker goes (a batch may still be on its way), the module
            // keeps the engine's reason.
            fail(batch->error);
            m_failure = batch->error;
            return makeError(ErrorCode::InvalidInput, batch->error);
        }
        m_warningCount = batch->warningCount;
        m_warnings = std::move(batch->warnings);
    }
    return model::Status::success();
}

} // namespace symflame::symbolize
