// Tests of model/io/fileio: whole-file reads and their errors, atomic writes that keep the old
// content whenever creating, writing or renaming fails, and isSameFile.
//
// Permission failures need a user the permissions apply to: when the test runs as root, those
// cases run in a forked child that has switched to the unprivileged "nobody" user (65534).
#include "model/io/fileio.h"
#include "model/core/bigarray.h"
#include "model/core/progress.h"
#include "model/io/folded.h"
#include "model/io/pprof/pprof.h"
#include "model/io/profileio.h"

#include <QDir>
#include <QFile>
#include <QObject>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <fcntl.h>
#include <functional>
#include <memory>
#include <string>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace symflame::model;

namespace {

constexpr uid_t kNobody = 65534;

std::vector<uint8_t> bytes(std::string_view s)
{
    return { s.begin(), s.end() };
}

void writePlain(const QString& path, const QByteArray& content)
{
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
        qFatal("cannot write %s", qPrintable(path));
    f.write(content);
}

QByteArray readPlain(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return "<unreadable>";
    return f.readAll();
}

mode_t modeOf(const QString& path)
{
    struct stat st { };
    if (::stat(QFile::encodeName(path).constData(), &st) != 0)
        return 0;
    return st.st_mode & 07777;
}

QStringList entries(const QString& dir)
{
    return QDir(dir).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot, QDir::Name);
}

/// Runs fn as an unprivileged user: in a child switched to nobody when we are root, else here.
/// fn's error text (empty on success) comes back through a pipe.
std::string runUnprivileged(const std::function<std::string()>& fn)
{
    if (::geteuid() != 0)
        return fn();
    int fds[2];
    if (::pipe(fds) != 0)
        qFatal("pipe");
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::close(fds[0]);
        if (::setgid(kNobody) != 0 || ::setuid(kNobody) != 0)
            _exit(3);
        const std::string text = fn();
        const ssize_t n = ::write(fds[1], text.data(), text.size());
        _exit(n == static_cast<ssize_t>(text.size()) ? 0 : 4);
    }
    ::close(fds[1]);
    std::string text;
    char buf[512];
    ssize_t n;
    while ((n = ::read(fds[0], buf, sizeof buf)) > 0)
        text.append(buf, static_cast<size_t>(n));
    ::close(fds[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return "<child failed with status " + std::to_string(status) + ">";
    return text;
}

std::string statusText(const Status& s)
{
    return s.ok() ? std::string() : s.error().toString();
}

} // namespace

class TestFileIo : public QObject {
    Q_OBJECT

private slots:
    void init()
    {
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
    }

    void readsWholeFile_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addRow("empty") << QByteArray();
        QTest::addRow("small") << QByteArray("hello\n");
        QByteArray big(3 * 1024 * 1024 + 17, '\0');
        for (qsizetype i = 0; i < big.size(); ++i)
            big[i] = static_cast<char>(i * 7);
        QTest::addRow("3 MiB") << big;
        QByteArray bigger(6 * 1024 * 1024 + 5, '\0'); // over resizeMapped's 4 MiB: pages mapped in one go
        for (qsizetype i = 0; i < bigger.size(); ++i)
            bigger[i] = static_cast<char>(i * 13 + 1);
        QTest::addRow("6 MiB") << bigger;
    }

    void readsWholeFile()
    {
        QFETCH(QByteArray, content);
        const QString path = m_dir->filePath("in");
        writePlain(path, content);
        auto r = readWholeFile(path.toStdString());
        QVERIFY(r.ok());
        QCOMPARE(QByteArray(reinterpret_cast<const char*>(r->data()), qsizetype(r->size())), content);
        // readFileBytes (not zero-filled first) gives the same bytes.
        auto b = readFileBytes(path.toStdString());
        QVERIFY(b.ok());
        QCOMPARE(QByteArray(reinterpret_cast<const char*>(b->data()), qsizetype(b->size())), content);
        // readFileContents too: mapped from 1 MiB on, read below.
        auto c = readFileContents(path.toStdString());
        QVERIFY(c.ok());
        QCOMPARE(c->mapped(), uint64_t(content.size()) >= FileContents::kMapFrom);
        QCOMPARE(QByteArray(reinterpret_cast<const char*>(c->bytes().data()), qsizetype(c->bytes().size())), content);
        QVERIFY(!c->changedWhileRead());
        FileContents moved = std::move(c.value());
        QCOMPARE(qsizetype(moved.bytes().size()), content.size());
        moved.release();
        QVERIFY(moved.bytes().empty() && !moved.changedWhileRead());
    }

    // dropPagesBefore lets a mapped file's pages go (the process holds less of it) and the bytes
    // read as before.
    void droppedPagesReadTheSame()
    {
        const QString path = m_dir->filePath("streamed");
        QByteArray content(40 * 1024 * 1024 + 3, '\0');
        for (qsizetype i = 0; i < content.size(); ++i)
            content[i] = static_cast<char>(i * 31 + (i >> 12));
        writePlain(path, content);
        auto c = readFileContents(path.toStdString());
        QVERIFY(c.ok() && c->mapped());
        const auto rssFileKb = [] {
            QFile status("/proc/self/status");
            if (!status.open(QIODevice::ReadOnly))
                return qint64(-1);
            for (const QByteArray& line : status.readAll().split('\n'))
                if (line.startsWith("RssFile:"))
                    return line.mid(8).trimmed().split(' ').value(0).toLongLong();
            return qint64(-1);
        };
        const qint64 before = rssFileKb();
        c->dropPagesBefore(8 << 20); // less than one step: nothing yet
        QVERIFY(rssFileKb() > before - 4 * 1024);
        c->dropPagesBefore(32 << 20);
        const qint64 after = rssFileKb();
        QVERIFY2(before > 0 && before - after >= 28 * 1024, qPrintable(QStringLiteral("%1 kB, then %2 kB").arg(before).arg(after)));
        QCOMPARE(QByteArray(reinterpret_cast<const char*>(c->bytes().data()), qsizetype(c->bytes().size())), content);
        QVERIFY(!c->changedWhileRead());
    }

    // PrefaultAhead maps pages up to its distance past what was written, never more, and stops
    // once the array has moved; contents stay zero (mapping writes nothing).
    void prefaultMapsAheadOfWrites()
    {
        constexpr size_t kBytes = size_t(64) << 20, kMiB = size_t(1) << 20;
        void* m = ::mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        QVERIFY(m != MAP_FAILED);
        auto* p = static_cast<uint8_t*>(m);
        const long page = ::sysconf(_SC_PAGESIZE);
        const auto residentMiB = [&] {
            std::vector<unsigned char> in(kBytes / size_t(page));
            if (::mincore(m, kBytes, in.data()) != 0)
                return -1.0;
            return double(std::count_if(in.begin(), in.end(), [](unsigned char c) { return c & 1; })) * double(page)
                / double(kMiB);
        };
        QCOMPARE(residentMiB(), 0.0);
        if (::madvise(p + kBytes - size_t(page), size_t(page), 23 /* MADV_POPULATE_WRITE */) != 0) {
            ::munmap(m, kBytes);
            QSKIP("this kernel has no MADV_POPULATE_WRITE (Linux 5.14): PrefaultAhead maps nothing");
        }
        QVERIFY(::madvise(p + kBytes - size_t(page), size_t(page), MADV_DONTNEED) == 0);
        PrefaultAhead ahead;
        ahead.run(8 * kMiB); // no range set: nothing
        QCOMPARE(residentMiB(), 0.0);
        ahead.set(0, p, kBytes);
        ahead.run(8 * kMiB);
        QCOMPARE(residentMiB(), 8.0);
        ahead.written(0, p + 20 * kMiB + 100);
        ahead.run(8 * kMiB);
        // From the page written into, not from where the mapping had got to: 8 + (28 - 20).
        QCOMPARE(residentMiB(), 16.0);
        ahead.written(0, p + 60 * kMiB);
        ahead.run(8 * kMiB); // up to the range's end only
        QCOMPARE(residentMiB(), 20.0);
        for (size_t i = 0; i < kBytes; i += size_t(page))
            QCOMPARE(p[i], uint8_t(0));
        QVERIFY(::munmap(m, kBytes) == 0);
        m = ::mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        QVERIFY(m != MAP_FAILED);
        PrefaultAhead moved;
        moved.set(0, m, kBytes);
        moved.written(0, static_cast<uint8_t*>(m) + kBytes + 1); // past the range: it moved
        moved.run(8 * kMiB);
        p = static_cast<uint8_t*>(m);
        moved.written(0, p);
        moved.run(8 * kMiB); // left for good
        QCOMPARE(residentMiB(), 0.0);
        QVERIFY(::munmap(m, kBytes) == 0);
    }

    // A mapped file cut short by another program while it is read: the bytes past its new end
    // read as zeros instead of a SIGBUS ending the process, and changedWhileRead() says so; a
    // mapping of another file is not affected.
    void mappedFileTruncated()
    {
        const QString path = m_dir->filePath("shrinks");
        const QString other = m_dir->filePath("stays");
        QByteArray content(4 * 1024 * 1024 + 100, '\0');
        for (qsizetype i = 0; i < content.size(); ++i)
            content[i] = static_cast<char>(1 + i % 251); // never 0
        writePlain(path, content);
        writePlain(other, content);
        auto c = readFileContents(path.toStdString());
        auto stays = readFileContents(other.toStdString());
        QVERIFY(c.ok() && c->mapped() && stays.ok() && stays->mapped());
        const qsizetype keep = 1024 * 1024 + 10;
        QVERIFY(::truncate(QFile::encodeName(path).constData(), keep) == 0);
        const std::span<const uint8_t> b = c->bytes();
        QCOMPARE(qsizetype(b.size()), content.size());
        qsizetype kept = 0, zeros = 0;
        for (qsizetype i = 0; i < content.size(); ++i) {
            if (b[size_t(i)] == uint8_t(content[i]))
                ++kept;
            else if (b[size_t(i)] == 0)
                ++zeros;
        }
        // The rest of the page holding the new end reads zeros as well, as the kernel gives it.
        QVERIFY2(kept >= keep && kept < keep + 4096 && kept + zeros == content.size(),
            qPrintable(QStringLiteral("kept %1, zeros %2").arg(kept).arg(zeros)));
        QVERIFY(c->changedWhileRead());
        c->release();
        QVERIFY(c->changedWhileRead());
        QCOMPARE(QByteArray(reinterpret_cast<const char*>(stays->bytes().data()), qsizetype(stays->bytes().size())), content);
        QVERIFY(!stays->changedWhileRead());
    }

    // loadProfile refuses what it parsed when the file shrank under it, with the reason.
    void loadProfileOfShrinkingFile()
    {
        // A raw (not compressed) pprof of over 1 MiB, so it is mapped.
        QByteArray folded;
        for (int i = 0; i < 20000; ++i)
            folded += QByteArray("main;worker_") + QByteArray::number(i) + ";a_rather_long_function_name_so_the_table_grows_"
                + QByteArray::number(i * 7) + " " + QByteArray::number(1 + i % 5) + "\n";
        auto p = readFolded(std::span(reinterpret_cast<const uint8_t*>(folded.constData()), size_t(folded.size())));
        QVERIFY(p.ok());
        const std::vector<uint8_t> raw = encodePprof(*p);
        QVERIFY(raw.size() >= FileContents::kMapFrom);
        const QString path = m_dir->filePath("raw.pb");
        writePlain(path, QByteArray(reinterpret_cast<const char*>(raw.data()), qsizetype(raw.size())));

        auto whole = loadProfile(path.toStdString());
        QVERIFY2(whole.ok(), whole.ok() ? "" : whole.error().toString().c_str());
        QCOMPARE(whole->sampleCount(), p->sampleCount());

        // Cut to a third as soon as the reader reports, after the file was mapped.
        struct Cutter : Progress {
            QByteArray file;
            bool mapped = false, cut = false;
            void hit()
            {
                if (mapped && !cut)
                    cut = ::truncate(file.constData(), 300000) == 0;
            }
            void setStage(std::string_view stage) override
            {
                hit();
                mapped = mapped || stage == "reading file";
            }
            void setProgress(uint64_t, uint64_t) override { hit(); }
            bool isCancelled() const override
            {
                const_cast<Cutter*>(this)->hit();
                return false;
            }
        } cutter;
        cutter.file = QFile::encodeName(path);
        auto shrunk = loadProfile(path.toStdString(), {}, &cutter);
        QVERIFY(cutter.cut);
        QVERIFY(!shrunk.ok());
        QVERIFY2(shrunk.error().code == ErrorCode::Io, shrunk.error().toString().c_str());
        QVERIFY2(shrunk.error().toString().find("the file shrank while it was being read") != std::string::npos,
            shrunk.error().toString().c_str());
    }

    // Files that report size 0 (procfs) or are not regular are read to their end.
    void readsProcFile()
    {
        auto r = readWholeFile("/proc/self/status");
        QVERIFY(r.ok());
        QVERIFY(r->size() > 20);
        QVERIFY(std::string_view(reinterpret_cast<const char*>(r->data()), 5) == "Name:");
    }

    void readErrors_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("code");
        QTest::addColumn<QString>("message");
        QTest::addRow("missing") << "nope.pb.gz" << int(ErrorCode::NotFound) << "no such file";
        QTest::addRow("directory") << "adir" << int(ErrorCode::Io) << "is a directory";
        QTest::addRow("file as directory")
            << "afile/x" << int(ErrorCode::NotFound) << "no such file (a part of the path is not a directory)";
    }

    void readErrors()
    {
        QFETCH(QString, name);
        QFETCH(int, code);
        QFETCH(QString, message);
        QVERIFY(QDir(m_dir->path()).mkpath("adir"));
        writePlain(m_dir->filePath("afile"), "x");
        const std::string path = m_dir->filePath(name).toStdString();
        auto r = readWholeFile(path);
        QVERIFY(!r.ok());
        QCOMPARE(int(r.error().code), code);
        QCOMPARE(QString::fromStdString(r.error().message), message);
        QCOMPARE(r.error().path, path);
        QCOMPARE(QString::fromStdString(r.error().toString()), QString::fromStdString(path) + ": " + message);
    }

    void readPermissionDenied()
    {
        const QString path = m_dir->filePath("secret");
        writePlain(path, "secret");
        QVERIFY(::chmod(QFile::encodeName(path).constData(), 0000) == 0); // unreadable to anyone but root
        QVERIFY(::chmod(QFile::encodeName(m_dir->path()).constData(), 0755) == 0);
        const std::string p = path.toStdString();
        const std::string text = runUnprivileged([&] {
            auto r = readWholeFile(p);
            return r.ok() ? std::string("<read it>") : r.error().toString();
        });
        QCOMPARE(QString::fromStdString(text), path + ": permission denied");
    }

    void readSizeLimit()
    {
        const QString path = m_dir->filePath("big");
        writePlain(path, QByteArray(1000, 'a'));
        auto atLimit = readWholeFile(path.toStdString(), 1000);
        QVERIFY(atLimit.ok());
        QCOMPARE(atLimit->size(), size_t(1000));
        auto over = readWholeFile(path.toStdString(), 999);
        QVERIFY(!over.ok());
        QCOMPARE(over.error().code, ErrorCode::TooLarge);
        QCOMPARE(readFileBytes(path.toStdString(), 999).error().code, ErrorCode::TooLarge);
        QCOMPARE(QString::fromStdString(over.error().message),
            QStringLiteral("file is too large (1000 bytes, the limit is 999)"));
    }

    void writesNewFile()
    {
        const QString path = m_dir->filePath("out.pb.gz");
        const Status s = writeFileAtomically(path.toStdString(), bytes("new content"));
        QVERIFY2(s.ok(), statusText(s).c_str());
        QCOMPARE(readPlain(path), QByteArray("new content"));
        QCOMPARE(modeOf(path), mode_t(0644));
        QCOMPARE(entries(m_dir->path()), QStringList { "out.pb.gz" });
    }

    void replacesKeepingPermissions()
    {
        const QString path = m_dir->filePath("out");
        writePlain(path, "old old old old");
        QVERIFY(::chmod(QFile::encodeName(path).constData(), 0600) == 0);
        const Status s = writeFileAtomically(path.toStdString(), bytes("new"));
        QVERIFY2(s.ok(), statusText(s).c_str());
        QCOMPARE(readPlain(path), QByteArray("new"));
        QCOMPARE(modeOf(path), mode_t(0600));
        QCOMPARE(entries(m_dir->path()), QStringList { "out" });

        QVERIFY(writeFileAtomically(path.toStdString(), {}).ok());
        QCOMPARE(readPlain(path), QByteArray());
    }

    void writesThroughSymlink()
    {
        QVERIFY(QDir(m_dir->path()).mkpath("real"));
        const QString target = m_dir->filePath("real/file");
        writePlain(target, "old");
        const QString link = m_dir->filePath("link");
        QVERIFY(QFile::link(target, link));
        QVERIFY(writeFileAtomically(link.toStdString(), bytes("via link")).ok());
        QCOMPARE(QFileInfo(link).isSymLink(), true);
        QCOMPARE(readPlain(target), QByteArray("via link"));
        QCOMPARE(entries(m_dir->filePath("real")), QStringList { "file" });
    }

    void writeErrorsNoDirectory()
    {
        const QString path = m_dir->filePath("missing/out");
        const Status s = writeFileAtomically(path.toStdString(), bytes("x"));
        QVERIFY(!s.ok());
        QCOMPARE(s.error().code, ErrorCode::Io);
        QCOMPARE(QString::fromStdString(s.error().toString()),
            path + ": cannot create a temporary file in " + m_dir->filePath("missing") + ": no such file or directory");
    }

    void writeOverDirectoryRefused()
    {
        QVERIFY(QDir(m_dir->path()).mkpath("adir"));
        writePlain(m_dir->filePath("adir/keep"), "keep");
        const Status s = writeFileAtomically(m_dir->filePath("adir").toStdString(), bytes("x"));
        QVERIFY(!s.ok());
        QCOMPARE(QString::fromStdString(s.error().message), QStringLiteral("cannot write: is a directory"));
        QCOMPARE(readPlain(m_dir->filePath("adir/keep")), QByteArray("keep"));
        QCOMPARE(entries(m_dir->path()), QStringList { "adir" });
    }

    // A directory we may not write to: the temporary file can't be made; the old file stays.
    void unwritableDirectoryKeepsOldContent()
    {
        QVERIFY(QDir(m_dir->path()).mkpath("ro"));
        const QString dir = m_dir->filePath("ro");
        const QString path = dir + "/profile.pb.gz";
        writePlain(path, "old content");
        QVERIFY(::chmod(QFile::encodeName(path).constData(), 0666) == 0); // the file itself is writable
        QVERIFY(::chmod(QFile::encodeName(dir).constData(), 0555) == 0);
        QVERIFY(::chmod(QFile::encodeName(m_dir->path()).constData(), 0755) == 0);
        const std::string p = path.toStdString();
        const std::string text = runUnprivileged([&] { return statusText(writeFileAtomically(p, bytes("new"))); });
        ::chmod(QFile::encodeName(dir).constData(), 0755);
        QCOMPARE(
            QString::fromStdString(text), path + ": cannot create a temporary file in " + dir + ": permission denied");
        QCOMPARE(readPlain(path), QByteArray("old content"));
        QCOMPARE(entries(dir), QStringList { "profile.pb.gz" });
    }

    // Renaming fails after the new content was written: in a sticky directory (like /tmp) a
    // user may create files but not replace another user's. The temporary file must go away.
    void renameFailureKeepsOldContent()
    {
        if (::geteuid() != 0)
            QSKIP("needs root to own a file in a sticky directory that another user writes into");
        QVERIFY(QDir(m_dir->path()).mkpath("sticky"));
        const QString dir = m_dir->filePath("sticky");
        const QString path = dir + "/shared.pb.gz";
        writePlain(path, "root's content");
        QVERIFY(::chmod(QFile::encodeName(path).constData(), 0666) == 0);
        QVERIFY(::chmod(QFile::encodeName(dir).constData(), 01777) == 0);
        QVERIFY(::chmod(QFile::encodeName(m_dir->path()).constData(), 0755) == 0);
        const std::string p = path.toStdString();
        const std::string text = runUnprivileged([&] { return statusText(writeFileAtomically(p, bytes("new"))); });
        QCOMPARE(QString::fromStdString(text), path + ": cannot replace the file: operation not permitted");
        QCOMPARE(readPlain(path), QByteArray("root's content"));
        QCOMPARE(entries(dir), QStringList { "shared.pb.gz" });
    }

    // Writing fails half-way (here: the file size limit, as a full disk would): old content stays.
    void writeFailureKeepsOldContent()
    {
        const QString path = m_dir->filePath("out");
        writePlain(path, "old content");
        rlimit old {};
        QVERIFY(::getrlimit(RLIMIT_FSIZE, &old) == 0);
        auto previousHandler = std::signal(SIGXFSZ, SIG_IGN);
        rlimit small = old;
        small.rlim_cur = 4096;
        QVERIFY(::setrlimit(RLIMIT_FSIZE, &small) == 0);
        const Status s = writeFileAtomically(path.toStdString(), std::vector<uint8_t>(100000, 'n'));
        ::setrlimit(RLIMIT_FSIZE, &old);
        std::signal(SIGXFSZ, previousHandler);
        QVERIFY(!s.ok());
        QCOMPARE(s.error().code, ErrorCode::Io);
        QCOMPARE(QString::fromStdString(s.error().message), QStringLiteral("cannot write: file too large"));
        QCOMPARE(readPlain(path), QByteArray("old content"));
        QCOMPARE(entries(m_dir->path()), QStringList { "out" });
    }

    // A big array is advised into transparent huge pages (VmFlags "hg" on its mapping in
    // /proc/self/smaps), a small one is left alone.
    void bigArraysAdvisedHuge()
    {
        if (!QFile::exists(QStringLiteral("/sys/kernel/mm/transparent_hugepage/enabled")))
            QSKIP("this kernel has no transparent huge pages");
        const auto flagsAt = [](const void* p) {
            QFile smaps(QStringLiteral("/proc/self/smaps"));
            if (!smaps.open(QIODevice::ReadOnly))
                return QByteArray("(no smaps)");
            const auto at = reinterpret_cast<quintptr>(p);
            bool inside = false;
            for (QByteArray line; !(line = smaps.readLine()).isEmpty();) {
                const int dash = line.indexOf('-');
                const int space = line.indexOf(' ');
                if (dash > 0 && space > dash && !line.contains(':' + QByteArray(" "))) {
                    bool ok1 = false, ok2 = false;
                    const quintptr b = line.left(dash).toULongLong(&ok1, 16);
                    const quintptr e = line.mid(dash + 1, space - dash - 1).toULongLong(&ok2, 16);
                    inside = ok1 && ok2 && b <= at && at < e;
                } else if (inside && line.startsWith("VmFlags:")) {
                    return line.trimmed();
                }
            }
            return QByteArray("(not found)");
        };
        std::vector<uint32_t> big;
        reserveBig(big, size_t(16) << 20); // 64 MiB
        big.resize(big.capacity(), 7u);
        // The 2 MiB-aligned middle of the array is what is advised.
        const QByteArray bigFlags = flagsAt(big.data() + big.size() / 2);
        QVERIFY2(bigFlags.contains(" hg"), bigFlags.constData());
        std::vector<uint32_t> small;
        reserveBig(small, size_t(64) << 10); // 256 KiB
        small.resize(small.capacity(), 7u);
        const QByteArray smallFlags = flagsAt(small.data());
        QVERIFY2(!smallFlags.contains(" hg"), smallFlags.constData());
    }

    void sameFile()
    {
        const QString a = m_dir->filePath("a");
        const QString b = m_dir->filePath("b");
        writePlain(a, "1");
        writePlain(b, "1");
        QVERIFY(::link(QFile::encodeName(a).constData(), QFile::encodeName(m_dir->filePath("hard")).constData()) == 0);
        QVERIFY(QFile::link(a, m_dir->filePath("soft")));
        const std::string as = a.toStdString();
        QVERIFY(isSameFile(as, as));
        QVERIFY(isSameFile(as, m_dir->filePath("hard").toStdString()));
        QVERIFY(isSameFile(as, m_dir->filePath("soft").toStdString()));
        QVERIFY(isSameFile(as, (m_dir->path() + "/./a").toStdString()));
        QVERIFY(!isSameFile(as, b.toStdString()));
        QVERIFY(!isSameFile(as, m_dir->filePath("none").toStdString()));
        QVERIFY(!isSameFile(m_dir->filePath("none").toStdString(), m_dir->filePath("none").toStdString()));
        QVERIFY(!isSameFile(as, ""));
    }

    void cleanup()
    {
        // Leave the directory removable whatever a test changed.
        ::chmod(QFile::encodeName(m_dir->path()).constData(), 0700);
        m_dir.reset();
    }

private:
    std::unique_ptr<QTemporaryDir> m_dir; // a fresh directory per test function
};

QTEST_GUILESS_MAIN(TestFileIo)
#include "tst_fileio.moc"
