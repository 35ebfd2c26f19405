// Debian's real debuginfod server, started for a test on a free port, indexing one directory;
// 127.0.0.1 only is used (0.188 has no bind option). Ready when its /metrics says the first
// traversal is done and no scan is pending or busy. Stopped (SIGTERM, then SIGKILL) by stop() or
// the destructor.
#pragma once

#include <QDir>
#include <QElapsedTimer>
#include <QProcess>
#include <QString>
#include <QThread>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

namespace symtest {

/// A port nobody listens on right now (bound to 0 and released).
inline int freePort()
{
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a {};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    socklen_t len = sizeof a;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    ::close(fd);
    return ntohs(a.sin_port);
}

/// GET http://127.0.0.1:port/path; the body, or "" on any failure.
inline std::string httpGet(int port, const std::string& path)
{
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a {};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(static_cast<uint16_t>(port));
    timeval tv { 2, 0 };
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    std::string out;
    if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) {
        const std::string req = "GET " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
        if (::send(fd, req.data(), req.size(), MSG_NOSIGNAL) == ssize_t(req.size())) {
            char buf[8192];
            for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;)
                out.append(buf, static_cast<size_t>(n));
        }
    }
    ::close(fd);
    const size_t body = out.find("\r\n\r\n");
    return body == std::string::npos ? std::string() : out.substr(body + 4);
}

class DebuginfodServer {
public:
    /// Starts `debuginfod -F` over dir with its database in dbDir; check ok() / error().
    DebuginfodServer(const QString& dir, const QString& dbDir)
    {
        m_port = freePort();
        m_process.setProcessChannelMode(QProcess::MergedChannels);
        m_process.start(QStringLiteral("debuginfod"),
            { "-F", "-p", QString::number(m_port), "-d", QDir(dbDir).filePath("db.sqlite"), "-t", "0", "-g", "0", dir });
        if (!m_process.waitForStarted(10000)) {
            m_error = "debuginfod did not start: " + m_process.errorString();
            return;
        }
        QElapsedTimer t;
        t.start();
        while (t.elapsed() < 30000) {
            if (m_process.state() != QProcess::Running) {
                m_error = "debuginfod exited: " + QString::fromUtf8(m_process.readAll());
                return;
            }
            const std::string m = httpGet(m_port, "/metrics");
            if (m.find("thread_work_total{role=\"traverse\"} 1") != std::string::npos
                && m.find("thread_work_pending{role=\"scan\"} 0") != std::string::npos
                && m.find("thread_busy{role=\"scan\"} 0") != std::string::npos) {
                m_ready = true;
                return;
            }
            QThread::msleep(50);
        }
        m_error = "debuginfod was not ready after 30 s";
    }
    ~DebuginfodServer() { stop(); }

    bool ok() const { return m_ready; }
    QString error() const { return m_error; }
    int port() const { return m_port; }
    std::string url() const { return "http://127.0.0.1:" + std::to_string(m_port); }

    void stop()
    {
        if (m_process.state() == QProcess::NotRunning)
            return;
        m_process.terminate();
        if (!m_process.waitForFinished(5000)) {
            m_process.kill();
            m_process.waitForFinished(5000);
        }
    }

private:
    QProcess m_process;
    int m_port = 0;
    bool m_ready = false;
    QString m_error;
};

} // namespace symtest
