// Tests of frame and value formatting: baseName, unsymbolizedName and formatValue.
#include "model/core/frameformat.h"

#include <QObject>
#include <QString>
#include <QTest>

#include <cstdint>
#include <limits>

using namespace symflame::model;

class TestFrameFormat : public QObject {
    Q_OBJECT
private slots:
    void baseName_data();
    void baseName();
    void unsymbolizedName_data();
    void unsymbolizedName();
    void formatValue_data();
    void formatValue();
    void formatValueScaled_data();
    void formatValueScaled();
};

void TestFrameFormat::baseName_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("expected");
    QTest::addRow("absolute") << "/usr/lib/x86_64-linux-gnu/libc.so.6"
                              << "libc.so.6";
    QTest::addRow("relative") << "build/app"
                              << "app";
    QTest::addRow("bare") << "prog"
                          << "prog";
    QTest::addRow("bracketed") << "[vdso]"
                               << "[vdso]";
    QTest::addRow("trailing slash") << "/tmp/"
                                    << "";
    QTest::addRow("empty") << ""
                           << "";
}

void TestFrameFormat::baseName()
{
    QFETCH(QString, path);
    QFETCH(QString, expected);
    const std::string p = path.toStdString();
    QCOMPARE(QString::fromStdString(std::string(symflame::model::baseName(p))), expected);
}

void TestFrameFormat::unsymbolizedName_data()
{
    QTest::addColumn<bool>("hasMapping");
    QTest::addColumn<QString>("file");
    QTest::addColumn<qulonglong>("start");
    QTest::addColumn<qulonglong>("offset");
    QTest::addColumn<qulonglong>("address");
    QTest::addColumn<QString>("expected");

    QTest::addRow("shared library") << true << "/usr/lib/libfoo.so" << 0x7f0000000000ULL << 0ULL << 0x7f0000001a2bULL
                                    << "libfoo.so+0x1a2b";
    QTest::addRow("mapping with file offset")
        << true << "/usr/lib/libfoo.so" << 0x7f0000001000ULL << 0x1000ULL << 0x7f0000001a2bULL << "libfoo.so+0x1a2b";
    QTest::addRow("non-PIE at zero") << true << "/usr/bin/prog" << 0ULL << 0ULL << 0x401000ULL << "prog+0x401000";
    QTest::addRow("address below the mapping is a file address")
        << true << "/usr/bin/prog" << 0x400000ULL << 0ULL << 0x1234ULL << "prog+0x1234";
    QTest::addRow("mapping without a file") << true << "" << 0x400000ULL << 0ULL << 0x401000ULL << "0x401000";
    QTest::addRow("no mapping") << false << "" << 0ULL << 0ULL << 0x401000ULL << "0x401000";
    QTest::addRow("address zero") << false << "" << 0ULL << 0ULL << 0ULL << "0x0";
    QTest::addRow("kernel") << true << "[kernel.kallsyms]" << 0xffffffff81000000ULL << 0ULL << 0xffffffff81234567ULL
                            << "[kernel.kallsyms]+0x234567";
}

void TestFrameFormat::unsymbolizedName()
{
    QFETCH(bool, hasMapping);
    QFETCH(QString, file);
    QFETCH(qulonglong, start);
    QFETCH(qulonglong, offset);
    QFETCH(qulonglong, address);
    QFETCH(QString, expected);
    Profile p;
    Location loc;
    loc.address = address;
    if (hasMapping) {
        Mapping m;
        m.start = start;
        m.limit = start + 0x100000;
        m.offset = offset;
        m.file = p.strings.intern(file.toStdString());
        p.mappings.push_back(m);
        loc.mapping = MappingId(0u);
    }
    QCOMPARE(QString::fromStdString(symflame::model::unsymbolizedName(p, loc)), expected);
}

void TestFrameFormat::formatValue_data()
{
    QTest::addColumn<qlonglong>("value");
    QTest::addColumn<QString>("unit");
    QTest::addColumn<QString>("expected");

    // pprof scales the same way but keeps two decimals and says MB ("12.50MB"); we drop trailing
    // zeros and say MiB.
    QTest::addRow("seconds") << 1250000000LL << "nanoseconds"
                             << "1.25s";
    QTest::addRow("whole seconds") << 3000000000LL << "nanoseconds"
                                   << "3s";
    QTest::addRow("milliseconds") << 340000000LL << "nanoseconds"
                                  << "340ms";
    QTest::addRow("rounded") << 12345678LL << "nanoseconds"
                             << "12.35ms";
    QTest::addRow("microseconds") << 12000LL << "nanoseconds"
                                  << "12us";
    QTest::addRow("nanoseconds") << 999LL << "nanoseconds"
                                 << "999ns";
    QTest::addRow("hours") << 7200000000000LL << "nanoseconds"
                           << "2hrs";
    QTest::addRow("zero time") << 0LL << "nanoseconds"
                               << "0";
    QTest::addRow("negative time") << -1500000LL << "nanoseconds"
                                   << "-1.5ms";
    QTest::addRow("microsecond unit") << 2500LL << "microseconds"
                                      << "2.5ms";
    QTest::addRow("unit spelled ns") << 10000000000LL << "ns"
                                     << "10s";
    QTest::addRow("bytes") << 13107200LL << "bytes"
                           << "12.5MiB";
    QTest::addRow("small bytes") << 1000LL << "bytes"
                                 << "1000B";
    QTest::addRow("kilobytes") << 1536LL << "bytes"
                               << "1.5KiB";
    QTest::addRow("gigabytes") << (3LL << 30) << "bytes"
                               << "3GiB";
    QTest::addRow("unit spelled B") << 2048LL << "B"
                                    << "2KiB";
    QTest::addRow("unit spelled MiB") << 3LL << "MiB"
                                      << "3MiB";
    QTest::addRow("kibibytes") << 4096LL << "kibibytes"
                               << "4MiB";
    QTest::addRow("count") << 1234LL << "count"
                           << "1234";
    QTest::addRow("samples") << 42LL << "samples"
                             << "42";
    QTest::addRow("no unit") << 7LL << ""
                             << "7";
    QTest::addRow("unknown unit") << 12LL << "widgets"
                                  << "12 widgets";
    QTest::addRow("int64 min") << std::numeric_limits<qlonglong>::min() << "count"
                               << "-9223372036854775808";
}

void TestFrameFormat::formatValue()
{
    QFETCH(qlonglong, value);
    QFETCH(QString, unit);
    QFETCH(QString, expected);
    const std::string u = unit.toStdString();
    QCOMPARE(QString::fromStdString(symflame::model::formatValue(value, u)), expected);
}


// A table column in the unit of its reference (the total), as pprof's tables: small values keep
// two significant digits rather than reading 0, and zero keeps the unit.
void TestFrameFormat::formatValueScaled_data()
{
    QTest::addColumn<qlonglong>("value");
    QTest::addColumn<QString>("unit");
    QTest::addColumn<qlonglong>("reference");
    QTest::addColumn<QString>("expected");
    QTest::addRow("in seconds") << 810000000LL << "nanoseconds" << 3960000000LL << "0.81s";
    QTest::addRow("small in seconds") << 4500000LL << "nanoseconds" << 3960000000LL << "0.0045s";
    QTest::addRow("zero in seconds") << 0LL << "nanoseconds" << 3960000000LL << "0s";
    QTest::addRow("tiny") << 1LL << "nanoseconds" << 3960000000LL << "0.000000001s";
    QTest::addRow("reference in ms") << 340000000LL << "nanoseconds" << 999000000LL << "340ms";
    QTest::addRow("negative") << -1500000LL << "nanoseconds" << 3000000LL << "-1.5ms";
    QTest::addRow("bytes") << 512LL << "bytes" << (3LL << 20) << "0.00049MiB";
    QTest::addRow("zero bytes") << 0LL << "bytes" << 0LL << "0B";
    QTest::addRow("count") << 0LL << "count" << 500LL << "0";
    QTest::addRow("widgets") << 3LL << "widgets" << 500LL << "3 widgets";
}

void TestFrameFormat::formatValueScaled()
{
    QFETCH(qlonglong, value);
    QFETCH(QString, unit);
    QFETCH(qlonglong, reference);
    QFETCH(QString, expected);
    QCOMPARE(QString::fromStdString(symflame::model::formatValueScaled(value, unit.toStdString(), reference)), expected);
}

QTEST_GUILESS_MAIN(TestFrameFormat)
#include "tst_frameformat.moc"
