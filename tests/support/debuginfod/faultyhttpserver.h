// A small HTTP/1.1 server on 127.0.0.1 for the debuginfod client tests, answering each
// /buildid/<id>/<kind> request with the fault registered for that build ID: a 404, a delay past
// the client's timeout, a truncated body, a 200 with garbage, a 200 with a given file (an ELF of
// another build ID, or the right file sent slowly), a redirect loop, a size header over the
// client's limit. POSIX sockets on
// one thread, one connection at a time; stop() (or the destructor) ends it.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace symtest {

class FaultyHttpServer {
public:
    enum class Fault { NotFound, Delay, Truncated, Garbage, Body, RedirectLoop, HugeSize, ServerError, SlowBody };
    struct Answer {
        Fault fault = Fault::NotFound;
        std::string body; ///< for Body (the file to send), Truncated (the full file)
        int delayMs = 0; ///< for Delay: wait this long before answering; SlowBody: between 4 KiB pieces
    };

    FaultyHttpServer()
    {
        m_fd = ::socket(AF_INET, SOCK_STREAM, 0);
        int one = 1;
        ::setsockopt(m_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        sockaddr_in a {};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        a.sin_port = 0;
        if (::bind(m_fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(m_fd, 16) != 0)
            return;
        socklen_t len = sizeof a;
        ::getsockname(m_fd, reinterpret_cast<sockaddr*>(&a), &len);
        m_port = ntohs(a.sin_port);
        m_thread = std::thread([this] { serve(); });
    }
    ~FaultyHttpServer() { stop(); }

    int port() const { return m_port; }
    std::string url() const { return "http://127.0.0.1:" + std::to_string(m_port); }
    void setAnswer(const std::string& buildId, Answer answer)
    {
        std::lock_guard lock(m_mutex);
        m_answers[buildId] = std::move(answer);
    }
    int requests() const { return m_requests.load(); }
    /// The build IDs asked for, in the order the requests arrived.
    std::vector<std::string> requestedIds()
    {
        std::lock_guard lock(m_mutex);
        return m_requestedIds;
    }

    void stop()
    {
        m_stop.store(true);
        if (m_thread.joinable())
            m_thread.join();
        if (m_fd >= 0)
            ::close(m_fd);
        m_fd = -1;
    }

private:
    void serve()
    {
        while (!m_stop.load()) {
            pollfd p { m_fd, POLLIN, 0 };
            if (::poll(&p, 1, 50) <= 0)
                continue;
            const int c = ::accept(m_fd, nullptr, nullptr);
            if (c < 0)
                continue;
            handle(c);
            ::close(c);
        }
    }

    // Reads the request head; returns its path ("" when the client went away).
    std::string readPath(int c)
    {
        std::string head;
        char buf[4096];
        while (head.find("\r\n\r\n") == std::string::npos && head.size() < 65536 && !m_stop.load()) {
            pollfd p { c, POLLIN, 0 };
            if (::poll(&p, 1, 50) <= 0)
                continue;
            const ssize_t n = ::recv(c, buf, sizeof buf, 0);
            if (n <= 0)
                return {};
            head.append(buf, static_cast<size_t>(n));
        }
        const size_t sp = head.find(' ');
        const size_t sp2 = sp == std::string::npos ? sp : head.find(' ', sp + 1);
        return sp2 == std::string::npos ? std::string() : head.substr(sp + 1, sp2 - sp - 1);
    }

    static void sendAll(int c, const std::string& s)
    {
        size_t off = 0;
        while (off < s.size()) {
            const ssize_t n = ::send(c, s.data() + off, s.size() - off, MSG_NOSIGNAL);
            if (n <= 0)
                return;
            off += static_cast<size_t>(n);
        }
    }

    void handle(int c)
    {
        const std::string path = readPath(c);
        if (path.empty())
            return;
        ++m_requests;
        // /buildid/<id>/<kind>
        std::string id;
        if (path.rfind("/buildid/", 0) == 0) {
            const size_t e = path.find('/', 9);
            id = path.substr(9, e == std::string::npos ? std::string::npos : e - 9);
        }
        Answer a;
        {
            std::lock_guard lock(m_mutex);
            m_requestedIds.push_back(id);
            if (auto it = m_answers.find(id); it != m_answers.end())
                a = it->second;
        }
        const auto ok = [](size_t length) {
            return "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: "
                + std::to_string(length) + "\r\nConnection: close\r\n\r\n";
        };
        switch (a.fault) {
        case Fault::NotFound:
            sendAll(c, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
            break;
        case Fault::ServerError:
            sendAll(c, "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
            break;
        case Fault::Delay: {
            const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(a.delayMs);
            while (std::chrono::steady_clock::now() < until && !m_stop.load())
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
            sendAll(c, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
            break;
        }
        case Fault::Truncated:
            sendAll(c, ok(a.body.size()) + a.body.substr(0, a.body.size() / 3));
            break;
        case Fault::Garbage: {
            std::string junk(8192, '\0');
            for (size_t i = 0; i < junk.size(); ++i)
                junk[i] = static_cast<char>((i * 131 + 7) & 0xff);
            sendAll(c, ok(junk.size()) + junk);
            break;
        }
        case Fault::Body:
            sendAll(c, ok(a.body.size()) + a.body);
            break;
        case Fault::SlowBody: // the whole file, 4 KiB at a time
            sendAll(c, ok(a.body.size()));
            for (size_t off = 0; off < a.body.size() && !m_stop.load(); off += 4096) {
                std::this_thread::sleep_for(std::chrono::milliseconds(a.delayMs));
                sendAll(c, a.body.substr(off, 4096));
            }
            break;
        case Fault::RedirectLoop:
            sendAll(c, "HTTP/1.1 302 Found\r\nLocation: " + path + "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
            break;
        case Fault::HugeSize:
            sendAll(c,
                "HTTP/1.1 200 OK\r\nX-DEBUGINFOD-SIZE: 4000000000\r\nContent-Length: 4000000000\r\nConnection: "
                "close\r\n\r\n"
                + std::string(4096, 'x'));
            break;
        }
    }

    int m_fd = -1;
    int m_port = 0;
    std::thread m_thread;
    std::atomic<bool> m_stop { false };
    std::atomic<int> m_requests { 0 };
    std::mutex m_mutex;
    std::map<std::string, Answer> m_answers;
    std::vector<std::string> m_requestedIds;
};

} // namespace symtest
