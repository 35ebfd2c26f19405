// zstd decompression (model/io/zstd) against the zstd tool: what the tool compresses comes back
// byte for byte, several frames one after another too; a cut or damaged stream and a bomb are
// errors of their own kind, never a crash.
#include "filehelpers.h"
#include "model/io/zstd.h"
#include "processhelpers.h"

#include <QObject>
#include <QTemporaryDir>
#include <QTest>

#include <cstring>
#include <random>

using namespace symflame::model;
using symflame::testing::readFileBytes;
using symflame::testing::runProcess;
using symflame::testing::writeFile;

namespace {

std::vector<uint8_t> textLike(size_t n, unsigned seed)
{
    std::mt19937 rng(seed);
    const char* words[] = { "runtime.mallocgc ", "main.worker ", "0x7f00", "encoding/json ", "\n", "42 " };
    std::vector<uint8_t> out;
    while (out.size() < n) {
        const char* w = words[rng() % 6];
        out.insert(out.end(), w, w + strlen(w));
    }
    out.resize(n);
    return out;
}

} // namespace

class TestZstd : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QVERIFY(m_tmp.isValid()); }

    void detect()
    {
        const uint8_t magic[] = { 0x28, 0xb5, 0x2f, 0xfd, 0 };
        QVERIFY(isZstd(magic));
        QVERIFY(!isZstd(std::span<const uint8_t>(magic, 3)));
        const uint8_t gzip[] = { 0x1f, 0x8b, 8, 0 };
        QVERIFY(!isZstd(gzip));
    }

    void fromTheTool_data()
    {
        QTest::addColumn<int>("size");
        QTest::addColumn<int>("frames");
        QTest::addRow("one byte") << 1 << 1;
        QTest::addRow("3 MiB") << (3 << 20) << 1;
        QTest::addRow("three frames") << 200000 << 3;
    }

    // The tool's frames, one or several one after another, come back as what was compressed.
    void fromTheTool()
    {
        QFETCH(int, size);
        QFETCH(int, frames);
        std::vector<uint8_t> want, packed;
        for (int f = 0; f < frames; ++f) {
            const std::vector<uint8_t> part = textLike(size_t(size), unsigned(f + 1));
            const std::vector<uint8_t> z = compressWithTool(part, QString::number(f));
            QVERIFY(!z.empty());
            want.insert(want.end(), part.begin(), part.end());
            packed.insert(packed.end(), z.begin(), z.end());
        }
        auto got = unzstd(packed);
        QVERIFY2(got.ok(), got.ok() ? "" : got.error().message.c_str());
        QVERIFY(*got == want);
        std::vector<uint8_t> storage;
        auto viaAny = decompressIfCompressed(packed, storage, {});
        QVERIFY(viaAny.ok());
        QVERIFY(std::equal(viaAny->begin(), viaAny->end(), want.begin(), want.end()));
    }

    // Cut anywhere inside: Truncated; a damaged byte: an error (InvalidInput, or Truncated when
    // the damage makes a frame look longer); never a wrong answer taken for right.
    void damaged()
    {
        const std::vector<uint8_t> want = textLike(100000, 7);
        const std::vector<uint8_t> packed = compressWithTool(want, "damaged");
        QVERIFY(packed.size() > 100);
        for (size_t n = 4; n < packed.size(); n += std::max<size_t>(1, packed.size() / 97)) {
            auto r = unzstd(std::span(packed).first(n));
            QVERIFY2(!r.ok(), qPrintable(QString::number(n)));
            QCOMPARE(r.error().code, ErrorCode::Truncated);
        }
        size_t refused = 0;
        for (size_t at = 4; at < packed.size(); at += 13) {
            std::vector<uint8_t> b = packed;
            b[at] ^= 0x5a;
            auto r = unzstd(b);
            if (!r.ok()) {
                QVERIFY(r.error().code == ErrorCode::InvalidInput || r.error().code == ErrorCode::Truncated);
                ++refused;
            } else {
                QVERIFY(*r != want || at >= packed.size() - 4); // only the checksum could let it pass
            }
        }
        QVERIFY(refused > 0);
        std::vector<uint8_t> storage;
        auto empty = decompressIfCompressed({}, storage, {});
        QVERIFY(!empty.ok());
    }

    // 64 MiB of zeros (about 2 KiB compressed) is refused as a bomb after about a MiB of output;
    // the size cap holds for ordinary data too.
    void limits()
    {
        const std::vector<uint8_t> zeros(64 << 20, 0);
        const std::vector<uint8_t> bomb = compressWithTool(zeros, "bomb");
        QVERIFY(!bomb.empty() && bomb.size() < (64 << 10));
        auto r = unzstd(bomb);
        QVERIFY(!r.ok());
        QCOMPARE(r.error().code, ErrorCode::TooLarge);
        QVERIFY(QString::fromStdString(r.error().message).contains("decompression bomb"));
        DecompressLimits small;
        small.maxOutputBytes = 100000;
        const std::vector<uint8_t> text = textLike(300000, 3);
        auto capped = unzstd(compressWithTool(text, "capped"), small);
        QVERIFY(!capped.ok());
        QCOMPARE(capped.error().code, ErrorCode::TooLarge);
    }

private:
    std::vector<uint8_t> compressWithTool(const std::vector<uint8_t>& data, const QString& name)
    {
        const QString in = m_tmp.filePath(name), out = in + ".zst";
        if (!writeFile(in, QByteArrayView(reinterpret_cast<const char*>(data.data()), qsizetype(data.size()))))
            return {};
        const auto r = runProcess(QStringLiteral(SYMFLAME_ZSTD), { "-q", "-f", in, "-o", out });
        if (!r.ok())
            qWarning("%s", qPrintable(r.describe(QStringLiteral(SYMFLAME_ZSTD), { in })));
        return r.ok() ? readFileBytes(out) : std::vector<uint8_t>();
    }

    QTemporaryDir m_tmp;
};

QTEST_GUILESS_MAIN(TestZstd)
#include "tst_zstd.moc"
