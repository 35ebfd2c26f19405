// Tests of model/io/gzip: round trips checked against the system's gzip, concatenated members,
// truncated and corrupt streams, the size and ratio limits, and a 1 GiB decompression bomb that
// must be refused quickly and without allocating gigabytes.
#include "model/io/gzip.h"
#include "model/io/gunzipstream.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <zlib.h>

#include <random>
#include <sys/resource.h>

using namespace symflame::model;

Q_DECLARE_METATYPE(std::vector<uint8_t>)

namespace {

std::vector<uint8_t> bytesOf(const QByteArray& a)
{
    return { reinterpret_cast<const uint8_t*>(a.constData()),
        reinterpret_cast<const uint8_t*>(a.constData()) + a.size() };
}

QByteArray qbytes(const std::vector<uint8_t>& v)
{
    return QByteArray(reinterpret_cast<const char*>(v.data()), static_cast<qsizetype>(v.size()));
}

std::vector<uint8_t> randomBytes(size_t n, uint32_t seed)
{
    std::mt19937 rng(seed);
    std::vector<uint8_t> v(n);
    for (auto& b : v)
        b = static_cast<uint8_t>(rng());
    return v;
}

// Text-like data that compresses about as well as a profile does.
std::vector<uint8_t> compressibleBytes(size_t n)
{
    std::mt19937 rng(7);
    static const char* words[] = { "main", "runtime.mallocgc", "std::vector", "libc.so.6", "0x7f001234", "\n" };
    std::vector<uint8_t> v;
    v.reserve(n);
    while (v.size() < n) {
        const char* w = words[rng() % 6];
        while (*w && v.size() < n)
            v.push_back(static_cast<uint8_t>(*w++));
    }
    return v;
}

std::vector<uint8_t> compressOrDie(const std::vector<uint8_t>& data, int level = 6)
{
    auto r = gzipCompress(data, level);
    if (!r)
        qFatal("gzipCompress failed: %s", r.error().message.c_str());
    return std::move(r).value();
}

uint32_t crcOfZeros(uint64_t size, uint32_t chunkCrc, uint64_t chunk)
{
    uint32_t crc = 0;
    for (uint64_t done = 0; done < size; done += chunk)
        crc = done == 0 ? chunkCrc : static_cast<uint32_t>(crc32_combine(crc, chunkCrc, static_cast<z_off_t>(chunk)));
    return crc;
}

// One valid gzip member holding `mebibytes` MiB of zeros, built in memory in milliseconds:
// deflate resets its state at a full flush, so every further MiB of zeros compresses to the same
// bytes, which are repeated; the trailer's CRC is combined arithmetically.
std::vector<uint8_t> zeroBomb(uint64_t mebibytes)
{
    constexpr uint64_t kChunk = 1 << 20;
    const std::vector<uint8_t> zeros(kChunk, 0);
    z_stream zs {};
    if (deflateInit2(&zs, 9, Z_DEFLATED, 16 + MAX_WBITS, 9, Z_DEFAULT_STRATEGY) != Z_OK)
        qFatal("deflateInit2");
    auto run = [&](const uint8_t* in, size_t n, int flush) {
        std::vector<uint8_t> out(deflateBound(&zs, static_cast<uLong>(n)) + 64);
        zs.next_in = const_cast<Bytef*>(in);
        zs.avail_in = static_cast<uInt>(n);
        zs.next_out = out.data();
        zs.avail_out = static_cast<uInt>(out.size());
        const int ret = deflate(&zs, flush);
        if (ret != Z_OK && ret != Z_STREAM_END)
            qFatal("deflate");
        out.erase(out.end() - std::ptrdiff_t(zs.avail_out), out.end()); // keep what deflate wrote
        return out;
    };
    const auto first = run(zeros.data(), kChunk, Z_FULL_FLUSH); // gzip header + first MiB
    const auto second = run(zeros.data(), kChunk, Z_FULL_FLUSH);
    const auto third = run(zeros.data(), kChunk, Z_FULL_FLUSH);
    auto finish = run(nullptr, 0, Z_FINISH); // final empty block + trailer (for 3 MiB: replaced)
    deflateEnd(&zs);
    if (second != third || finish.size() < 8)
        qFatal("deflate does not repeat itself after a full flush");
    finish.resize(finish.size() - 8);

    std::vector<uint8_t> bomb = first;
    for (uint64_t i = 1; i < mebibytes; ++i)
        bomb.insert(bomb.end(), second.begin(), second.end());
    bomb.insert(bomb.end(), finish.begin(), finish.end());
    const uint32_t crc = crcOfZeros(mebibytes * kChunk, static_cast<uint32_t>(crc32(0, zeros.data(), kChunk)), kChunk);
    const uint32_t isize = static_cast<uint32_t>(mebibytes * kChunk);
    for (int i = 0; i < 4; ++i)
        bomb.push_back(static_cast<uint8_t>(crc >> (8 * i)));
    for (int i = 0; i < 4; ++i)
        bomb.push_back(static_cast<uint8_t>(isize >> (8 * i)));
    return bomb;
}

long peakRssKiB()
{
    rusage ru {};
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

// The whole stream read through GunzipStream in reads of `chunk` bytes.
Result<std::vector<uint8_t>> gunzipStreamed(std::span<const uint8_t> data, const DecompressLimits& limits, size_t chunk)
{
    GunzipStream stream(data, limits);
    std::vector<uint8_t> out;
    std::vector<uint8_t> buf(chunk);
    for (;;) {
        auto n = stream.read(buf);
        if (!n)
            return n.error();
        if (*n == 0)
            break;
        if (*n > chunk)
            qFatal("read more than asked for");
        out.insert(out.end(), buf.begin(), buf.begin() + std::ptrdiff_t(*n));
    }
    if (!stream.atEnd() || stream.produced() != out.size())
        qFatal("a read of 0 before the end, or produced() is off");
    // Further reads stay at the end.
    auto again = stream.read(buf);
    if (!again || *again != 0)
        qFatal("a read after the end returned data or an error");
    return out;
}

} // namespace

class TestGzip : public QObject {
    Q_OBJECT

private slots:
    void detect()
    {
        QVERIFY(isGzip(compressOrDie({})));
        const uint8_t magic[] = { 0x1f, 0x8b };
        QVERIFY(isGzip(magic));
        QVERIFY(!isGzip(std::span<const uint8_t>(magic, 1)));
        const uint8_t other[] = { 0x0a, 0x8b, 0x1f };
        QVERIFY(!isGzip(other));
        QVERIFY(!isGzip({}));
    }

    void roundTrip_data()
    {
        QTest::addColumn<std::vector<uint8_t>>("data");
        QTest::addColumn<int>("level");
        QTest::addRow("empty") << std::vector<uint8_t> {} << 6;
        QTest::addRow("one byte") << std::vector<uint8_t> { 42 } << 6;
        QTest::addRow("random 1 MiB") << randomBytes(1 << 20, 1) << 6;
        QTest::addRow("text 8 MiB level 1") << compressibleBytes(8 << 20) << 1;
        QTest::addRow("text 3 MiB level 9") << compressibleBytes(3 << 20) << 9;
        QTest::addRow("text default level") << compressibleBytes(100000) << -1;
    }

    // gzipCompress -> gunzip gives the input back, and the system's gzip agrees in both directions.
    void roundTrip()
    {
        QFETCH(std::vector<uint8_t>, data);
        QFETCH(int, level);
        const auto packed = compressOrDie(data, level);
        QVERIFY(isGzip(packed));
        auto back = gunzip(packed);
        QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
        QVERIFY(*back == data);
        if (data.size() > 1000)
            QVERIFY(packed.size() < data.size() + data.size() / 100 + 64);

        const QString gzipTool = QStandardPaths::findExecutable("gzip");
        if (gzipTool.isEmpty())
            QSKIP("no gzip on PATH: the cross-check with the system's gzip was not run");
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QFile f(dir.filePath("ours.gz"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(qbytes(packed));
        f.close();
        QProcess p;
        p.start(gzipTool, { "-dc", f.fileName() });
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 0);
        QVERIFY(bytesOf(p.readAllStandardOutput()) == data);

        QFile raw(dir.filePath("plain"));
        QVERIFY(raw.open(QIODevice::WriteOnly));
        raw.write(qbytes(data));
        raw.close();
        QProcess c;
        c.start(gzipTool, { "-9", "-c", raw.fileName() });
        QVERIFY(c.waitForFinished(60000));
        QCOMPARE(c.exitCode(), 0);
        auto theirs = gunzip(bytesOf(c.readAllStandardOutput()));
        QVERIFY(theirs.ok());
        QVERIFY(*theirs == data);
    }

    void concatenatedMembers()
    {
        const auto a = compressibleBytes(300000);
        const auto b = randomBytes(5000, 3);
        auto both = compressOrDie(a);
        const auto second = compressOrDie(b);
        both.insert(both.end(), second.begin(), second.end());
        auto r = gunzip(both);
        QVERIFY(r.ok());
        std::vector<uint8_t> expected = a;
        expected.insert(expected.end(), b.begin(), b.end());
        QVERIFY(*r == expected);

        // Zero padding after the last member (tape and block writers) is accepted.
        both.resize(both.size() + 512, 0);
        r = gunzip(both);
        QVERIFY(r.ok());
        QVERIFY(*r == expected);
    }

    void trailingGarbage()
    {
        auto data = compressOrDie(compressibleBytes(1000));
        const size_t end = data.size();
        data.push_back('x');
        data.push_back('y');
        auto r = gunzip(data);
        QVERIFY(!r.ok());
        QCOMPARE(r.error().code, ErrorCode::InvalidInput);
        QCOMPARE(QString::fromStdString(r.error().message),
            QStringLiteral("unexpected data after the end of the gzip stream (at byte %1)").arg(end));
    }

    void truncated_data()
    {
        QTest::addColumn<std::vector<uint8_t>>("cut");
        // Cut inside the header, inside the deflate data and inside the 8-byte trailer.
        const auto full = compressOrDie(compressibleBytes(200000));
        auto prefix = [&](size_t n) { return std::vector<uint8_t>(full.begin(), full.begin() + std::ptrdiff_t(n)); };
        QTest::addRow("magic only") << prefix(2);
        QTest::addRow("header only") << prefix(10);
        QTest::addRow("half") << prefix(full.size() / 2);
        QTest::addRow("trailer missing") << prefix(full.size() - 8);
        QTest::addRow("last byte missing") << prefix(full.size() - 1);
    }

    void truncated()
    {
        QFETCH(std::vector<uint8_t>, cut);
        auto r = gunzip(cut);
        QVERIFY(!r.ok());
        QCOMPARE(r.error().code, ErrorCode::Truncated);
        QCOMPARE(QString::fromStdString(r.error().message),
            QStringLiteral("truncated gzip stream (it ends after %1 bytes, before its end marker)").arg(cut.size()));
    }

    void corrupt_data()
    {
        QTest::addColumn<int>("where"); // byte to change, counted from the end when negative
        QTest::addColumn<QString>("message");
        QTest::addRow("deflate data") << 40 << QStringLiteral("corrupt gzip stream: invalid");
        QTest::addRow("crc") << -8 << QStringLiteral("corrupt gzip stream: incorrect data check");
        QTest::addRow("length") << -2 << QStringLiteral("corrupt gzip stream: incorrect length check");
        QTest::addRow("compression method") << 2 << QStringLiteral("corrupt gzip stream: unknown compression method");
    }

    void corrupt()
    {
        QFETCH(int, where);
        QFETCH(QString, message);
        // Random data is stored, not deflated: use text so that byte 40 is Huffman-coded.
        auto data = compressOrDie(compressibleBytes(50000));
        const size_t at = where >= 0 ? size_t(where) : data.size() - size_t(-where);
        data[at] ^= 0xff;
        auto r = gunzip(data);
        QVERIFY(!r.ok());
        QCOMPARE(r.error().code, ErrorCode::InvalidInput);
        // zlib's own words follow the prefix ("invalid distance too far back", "invalid block type").
        QVERIFY2(QString::fromStdString(r.error().message).startsWith(message), r.error().message.c_str());
    }

    void notGzip()
    {
        const uint8_t text[] = { 'h', 'e', 'l', 'l', 'o' };
        auto r = gunzip(text);
        QVERIFY(!r.ok());
        QCOMPARE(r.error().code, ErrorCode::InvalidInput);
        QCOMPARE(
            QString::fromStdString(r.error().message), QStringLiteral("not gzip data (it does not start with 1f 8b)"));
    }

    void sizeLimit_data()
    {
        QTest::addColumn<size_t>("size");
        QTest::addColumn<bool>("fits");
        QTest::addRow("below") << size_t((1 << 20) - 1) << true;
        QTest::addRow("exactly at") << size_t(1 << 20) << true;
        QTest::addRow("one over") << size_t((1 << 20) + 1) << false;
        QTest::addRow("far over") << size_t(5 << 20) << false;
    }

    // maxOutputBytes is exact: output of that size passes, one byte more does not.
    void sizeLimit()
    {
        QFETCH(size_t, size);
        QFETCH(bool, fits);
        DecompressLimits limits;
        limits.maxOutputBytes = 1 << 20;
        const auto packed = compressOrDie(compressibleBytes(size));
        auto r = gunzip(packed, limits);
        QCOMPARE(r.ok(), fits);
        if (fits) {
            QCOMPARE(r->size(), size);
        } else {
            QCOMPARE(r.error().code, ErrorCode::TooLarge);
            QCOMPARE(QString::fromStdString(r.error().message),
                QStringLiteral("decompressed data exceeds the limit of 1048576 bytes"));
        }
    }

    // The bomb builder makes real gzip: a small one decompresses to zeros with its CRC checked.
    void bombIsValidGzip()
    {
        const auto bomb = zeroBomb(8);
        auto r = gunzip(bomb);
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().message.c_str());
        QCOMPARE(r->size(), size_t(8) << 20);
        QVERIFY(std::all_of(r->begin(), r->end(), [](uint8_t b) { return b == 0; }));
    }

    // 1 GiB of zeros in about 1 MiB: refused by the early ratio check after about a MiB of
    // output, in well under a second, with the process's peak memory growing by a few MiB.
    void bomb()
    {
        const auto bomb = zeroBomb(1024);
        QVERIFY(bomb.size() < (2u << 20));
        const long rssBefore = peakRssKiB();
        QElapsedTimer t;
        t.start();
        auto r = gunzip(bomb);
        const qint64 ms = t.elapsed();
        QVERIFY(!r.ok());
        QCOMPARE(r.error().code, ErrorCode::TooLarge);
        const QString message = QString::fromStdString(r.error().message);
        QVERIFY2(message.startsWith("gzip data expands more than 900 times ("), qPrintable(message));
        QVERIFY2(message.endsWith("refusing what looks like a decompression bomb"), qPrintable(message));
        // "(N bytes from M)": refused within the first few MiB of output.
        const qulonglong produced = message.section(QLatin1Char('('), 1).section(QLatin1Char(' '), 0, 0).toULongLong();
        QVERIFY2(produced > (1u << 20) && produced <= (4u << 20), qPrintable(message));
        QVERIFY2(ms < 1000, qPrintable(QStringLiteral("took %1 ms").arg(ms)));
        const long grownMiB = (peakRssKiB() - rssBefore) / 1024;
        QVERIFY2(grownMiB < 16, qPrintable(QStringLiteral("peak memory grew by %1 MiB").arg(grownMiB)));
    }

    // Data that only compresses as well as real profiles do (a few hundred to one) is not taken
    // for a bomb by the early check, and a bomb at gzip -1 (about 230:1, under the early ratio)
    // is still refused by the 200:1 check after 64 MiB.
    void earlyCheckLeavesOrdinaryRatiosAlone()
    {
        std::vector<uint8_t> plain(8u << 20);
        uint64_t state = 1;
        for (size_t i = 0; i < plain.size(); ++i) {
            if (i % 1024 == 0)
                state = state * 6364136223846793005ull + 1442695040888963407ull;
            plain[i] = i % 1024 == 0 ? static_cast<uint8_t>(state >> 56) : 0;
        }
        const auto packed = compressOrDie(plain, 9);
        QVERIFY2(plain.size() / packed.size() > 200 && plain.size() / packed.size() < 900,
            qPrintable(QString::number(plain.size() / packed.size())));
        auto r = gunzip(packed);
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().message.c_str());
        QVERIFY(r.value() == plain);

        const auto fast = compressOrDie(std::vector<uint8_t>(256u << 20, 0), 1);
        QVERIFY((256u << 20) / fast.size() > 200 && (256u << 20) / fast.size() < 900);
        r = gunzip(fast);
        QVERIFY(!r.ok());
        QVERIFY2(QString::fromStdString(r.error().message).startsWith("gzip data expands more than 200 times ("),
            r.error().message.c_str());
    }

    // The same bomb as 1024 concatenated members, and with the ratio check off the size cap
    // still stops it.
    void bombVariants()
    {
        const auto member = compressOrDie(std::vector<uint8_t>(1 << 20, 0), 9);
        std::vector<uint8_t> members;
        for (int i = 0; i < 1024; ++i)
            members.insert(members.end(), member.begin(), member.end());
        QElapsedTimer t;
        t.start();
        auto r = gunzip(members);
        QVERIFY(!r.ok());
        QCOMPARE(r.error().code, ErrorCode::TooLarge);
        QVERIFY2(QString::fromStdString(r.error().message).startsWith("gzip data expands more than 900 times"),
            r.error().message.c_str());

        DecompressLimits noRatio;
        noRatio.maxRatio = UINT64_MAX;
        noRatio.earlyMaxRatio = UINT64_MAX;
        noRatio.maxOutputBytes = 96ull << 20;
        r = gunzip(zeroBomb(1024), noRatio);
        QVERIFY(!r.ok());
        QCOMPARE(r.error().code, ErrorCode::TooLarge);
        QCOMPARE(QString::fromStdString(r.error().message),
            QStringLiteral("decompressed data exceeds the limit of 100663296 bytes"));
        QVERIFY2(t.elapsed() < 4000, qPrintable(QStringLiteral("took %1 ms").arg(t.elapsed())));
    }

    // GunzipStream against gunzip on every kind of input above: the same bytes, or the same
    // error code (and the same words, except for zlib's and ISA-L's own on corrupt data), for
    // reads of one byte, of an odd size and of a MiB.
    void streamMatchesGunzip_data()
    {
        QTest::addColumn<std::vector<uint8_t>>("data");
        QTest::addColumn<size_t>("maxOutput");
        const auto text = compressOrDie(compressibleBytes(3 << 20));
        const auto small = compressOrDie(compressibleBytes(200000));
        const size_t noCap = DecompressLimits {}.maxOutputBytes;
        QTest::addRow("empty member") << compressOrDie({}) << noCap;
        QTest::addRow("one byte") << compressOrDie({ 42 }) << noCap;
        QTest::addRow("random 1 MiB (stored)") << compressOrDie(randomBytes(1 << 20, 5)) << noCap;
        QTest::addRow("text 3 MiB") << text << noCap;
        QTest::addRow("text 3 MiB, level 1") << compressOrDie(compressibleBytes(3 << 20), 1) << noCap;
        auto both = small;
        const auto second = compressOrDie(randomBytes(5000, 3));
        both.insert(both.end(), second.begin(), second.end());
        QTest::addRow("two members") << both << noCap;
        auto padded = both;
        padded.resize(padded.size() + 512, 0);
        QTest::addRow("zero padding") << padded << noCap;
        auto garbage = small;
        garbage.push_back('x');
        QTest::addRow("trailing garbage") << garbage << noCap;
        auto prefix = [&](size_t n) { return std::vector<uint8_t>(small.begin(), small.begin() + std::ptrdiff_t(n)); };
        QTest::addRow("cut: magic only") << prefix(2) << noCap;
        QTest::addRow("cut: header only") << prefix(10) << noCap;
        QTest::addRow("cut: half") << prefix(small.size() / 2) << noCap;
        QTest::addRow("cut: trailer missing") << prefix(small.size() - 8) << noCap;
        QTest::addRow("cut: last byte missing") << prefix(small.size() - 1) << noCap;
        for (const int where : { 2, 40, -8, -2, -5 }) {
            auto bad = small;
            bad[where >= 0 ? size_t(where) : bad.size() - size_t(-where)] ^= 0xff;
            QTest::addRow("corrupt byte %d", where) << bad << noCap;
        }
        QTest::addRow("not gzip") << std::vector<uint8_t> { 'h', 'e', 'l', 'l', 'o' } << noCap;
        for (const size_t size : { size_t((1 << 20) - 1), size_t(1 << 20), size_t((1 << 20) + 1), size_t(3 << 20) })
            QTest::addRow("cap 1 MiB, %zu bytes", size) << compressOrDie(compressibleBytes(size)) << size_t(1 << 20);
        QTest::addRow("bomb 1 GiB of zeros") << zeroBomb(1024) << noCap;
    }

    void streamMatchesGunzip()
    {
        QFETCH(std::vector<uint8_t>, data);
        QFETCH(size_t, maxOutput);
        DecompressLimits limits;
        limits.maxOutputBytes = maxOutput;
        const auto expected = gunzip(data, limits);
        for (const size_t chunk : { size_t(1), size_t(4093), size_t(1) << 20 }) {
            if (chunk == 1 && data.size() > 300000)
                continue; // a byte at a time through MiBs: slow, and nothing the 4093 reads miss
            const auto got = gunzipStreamed(data, limits, chunk);
            const QByteArray where = QByteArray("reads of ") + QByteArray::number(qulonglong(chunk));
            QVERIFY2(got.ok() == expected.ok(),
                where + ": " + (got.ok() ? QByteArray("no error") : QByteArray(got.error().message.c_str())) + " / "
                    + (expected.ok() ? QByteArray("no error") : QByteArray(expected.error().message.c_str())));
            if (expected.ok()) {
                QVERIFY2(*got == *expected, where);
                continue;
            }
            QVERIFY2(got.error().code == expected.error().code, where + ": " + got.error().message.c_str());
            const QString gotWords = QString::fromStdString(got.error().message);
            const QString expectedWords = QString::fromStdString(expected.error().message);
            if (expectedWords.startsWith(QStringLiteral("corrupt gzip stream: ")))
                QVERIFY2(gotWords.startsWith(QStringLiteral("corrupt gzip stream: ")), qPrintable(gotWords));
            else if (expectedWords.startsWith(QStringLiteral("gzip data expands more than")))
                QVERIFY2(gotWords.startsWith(expectedWords.section(QLatin1Char('('), 0, 0)), qPrintable(gotWords));
            else
                QCOMPARE(gotWords, expectedWords);
        }
    }

    void badLevel()
    {
        auto r = gzipCompress(compressibleBytes(10), 10);
        QVERIFY(!r.ok());
        QCOMPARE(r.error().code, ErrorCode::Usage);
        QCOMPARE(QString::fromStdString(r.error().message), QStringLiteral("invalid gzip compression level 10"));
    }
};

QTEST_GUILESS_MAIN(TestGzip)
#include "tst_gzip.moc"
