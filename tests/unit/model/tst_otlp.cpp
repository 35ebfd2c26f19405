// OTLP profiles: the reader on files of every layout made by otlpgen (protoc's classes, an
// independent encoder), compared with the same samples as pprof; the hand-written JSON files;
// bad input, each with its error text; the writer (read back, and decoded by protoc's classes);
// --profile in the CLI; SHA-256 and htlhash against sha256sum and Qt; and symbolization of an
// OTLP profile of a real program (the gperftools fixture, its addresses turned into ELF
// addresses here, one binary known only by its htlhash) against the pprof path's answers.
#include "fixtures/fixturepaths.h"
#include "processhelpers.h"
#include "proto/otlp/v1_10.pb.h"
#include "proto/otlp/v1_7.pb.h"
#include "proto/profile.pb.h"

#include "model/analysis/calltree.h"
#include "model/analysis/collapse.h"
#include "model/analysis/labelview.h"
#include "model/core/merge.h"
#include "model/io/gzip.h"
#include "model/io/otlp/otlp.h"
#include "model/io/pprof/pprof.h"
#include "model/io/profileio.h"
#include "model/io/sha256.h"
#include "model/analysis/toptable.h"
#include "symbolize/pass/binarytriage.h"
#include "symbolize/locate/debuginfolocator.h"
#include "symbolize/pass/symbolizationpass.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <elf.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <string>
#include <vector>

using namespace symflame;
using namespace symflame::model;
namespace v10 = symflame::otlptest::v1_10;

namespace {

constexpr uint64_t T0 = 1700000000000000000ull;

QString otlpFile(const char* name)
{
    return QStringLiteral(SYMFLAME_OTLP_DIR "/") + QLatin1String(name);
}

std::vector<uint8_t> bytesOf(const std::string& s)
{
    return { s.begin(), s.end() };
}

// Folded stacks, sorted, for comparing profiles by content.
QStringList collapsed(const Profile& p, size_t type)
{
    const SymbolTable symbols = SymbolTable::build(p);
    const std::string text = collapseStacks(p, symbols, type);
    QStringList lines = QString::fromStdString(text).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    lines.sort();
    return lines;
}

QStringList topTable(const Profile& p, size_t type)
{
    const SymbolTable symbols = SymbolTable::build(p);
    QStringList rows;
    for (const TopEntry& e : topFunctions(p, symbols, type))
        rows << QStringLiteral("%1 %2 %3")
                    .arg(QString::fromStdString(std::string(symbols.displayName(e.symbol))))
                    .arg(e.flat)
                    .arg(e.cum);
    rows.sort();
    return rows;
}

Result<Profile> loadPath(const QString& path, size_t index = 0, ProfileFormat* format = nullptr)
{
    LoadOptions o;
    o.profileIndex = index;
    return loadProfile(path.toStdString(), o, nullptr, format);
}

const Location* findLocation(const Profile& p, uint64_t address)
{
    for (const Location& l : p.locations)
        if (l.address == address)
            return &l;
    return nullptr;
}

using symflame::testing::ProcessResult;
using symflame::testing::runSymflame;

// --- a small 1.10 profile built with protoc's classes, for the bad-input cases
v10::ProfilesData smallProfile()
{
    v10::ProfilesData d;
    auto* dict = d.mutable_dictionary();
    for (const char* s : { "", "cpu", "nanoseconds", "main", "leaf", "/bin/x" })
        dict->add_string_table(s);
    dict->add_mapping_table();
    auto* m = dict->add_mapping_table();
    m->set_memory_start(0x1000);
    m->set_memory_limit(0x9000);
    m->set_filename_strindex(5);
    dict->add_function_table();
    dict->add_function_table()->set_name_strindex(3);
    dict->add_function_table()->set_name_strindex(4);
    dict->add_location_table();
    auto* l1 = dict->add_location_table();
    l1->set_mapping_index(1);
    l1->set_address(0x1100);
    l1->add_lines()->set_function_index(1);
    auto* l2 = dict->add_location_table();
    l2->set_mapping_index(1);
    l2->set_address(0x1200);
    l2->add_lines()->set_function_index(2);
    dict->add_stack_table();
    dict->add_stack_table()->add_location_indices(2);
    dict->mutable_stack_table(1)->add_location_indices(1);
    dict->add_attribute_table();
    dict->add_link_table();
    auto* p = d.add_resource_profiles()->add_scope_profiles()->add_profiles();
    p->mutable_sample_type()->set_type_strindex(1);
    p->mutable_sample_type()->set_unit_strindex(2);
    auto* s = p->add_samples();
    s->set_stack_index(1);
    s->add_values(10);
    return d;
}

v10::Profile* firstProfile(v10::ProfilesData& d)
{
    return d.mutable_resource_profiles(0)->mutable_scope_profiles(0)->mutable_profiles(0);
}

// ELF virtual address of runtime address x in mapping [start, ...) at file offset off of file
// path: the PT_LOAD holding the file offset decides (read here with <elf.h>, independently of
// symbolize/'s ELF reader).
std::optional<uint64_t> elfAddress(const QString& path, uint64_t start, uint64_t off, uint64_t x)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return std::nullopt;
    const QByteArray bytes = f.readAll();
    if (bytes.size() < qsizetype(sizeof(Elf64_Ehdr)))
        return std::nullopt;
    Elf64_Ehdr eh;
    std::memcpy(&eh, bytes.constData(), sizeof eh);
    const uint64_t fileOffset = x - start + off;
    for (int i = 0; i < eh.e_phnum; ++i) {
        Elf64_Phdr ph;
        std::memcpy(&ph, bytes.constData() + eh.e_phoff + i * sizeof(Elf64_Phdr), sizeof ph);
        if (ph.p_type == PT_LOAD && fileOffset >= ph.p_offset && fileOffset < ph.p_offset + ph.p_filesz)
            return fileOffset - ph.p_offset + ph.p_vaddr;
    }
    return std::nullopt;
}

// htlhash as the OpenTelemetry eBPF profiler defines it, computed with Qt's SHA-256.
QString qtHtlHash(const QByteArray& file)
{
    const qsizetype part = std::min<qsizetype>(4096, file.size());
    QCryptographicHash h(QCryptographicHash::Sha256);
    h.addData(file.left(part));
    h.addData(file.right(part));
    QByteArray size(8, '\0');
    const quint64 n = quint64(file.size());
    for (int i = 0; i < 8; ++i)
        size[i] = char(n >> (56 - 8 * i));
    h.addData(size);
    return QString::fromLatin1(h.result().left(16).toHex());
}

QByteArray readAllOf(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class TestOtlp : public QObject {
    Q_OBJECT

private slots:
    void layouts_data();
    void layouts();
    void sameAsPprof();
    void profileChoice();
    void json();
    void jsonAttributes();
    void limits();
    void legacySliceFramesLimited();
    void corruptedInput();
    void jsonErrors_data();
    void jsonErrors();
    void badInput_data();
    void badInput();
    void stackIndexZero();
    void unknownLayout();
    void detection();
    void collectorFiles_data();
    void collectorFiles();
    void collectorBadInput_data();
    void collectorBadInput();
    void merge();
    void mergeLineWithoutFunction();
    void wholeSystemCapture_data();
    void wholeSystemCapture();
    void captureCli();
    void roundTrip();
    void pprofFixtureToOtlp();
    void sha256();
    void htlhash();
    void cli();
    void htlhashLocator();
    void symbolizeRealProgram();
};

void TestOtlp::layouts_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("version");
    QTest::addRow("1.10") << otlpFile("scenario-v1.10.pb") << "1.10.0";
    QTest::addRow("1.10 gzip") << otlpFile("scenario-v1.10.pb.gz") << "1.10.0";
    QTest::addRow("1.10 export request") << otlpFile("scenario-v1.10-request.pb") << "1.10.0";
    QTest::addRow("1.9") << otlpFile("scenario-v1.9.pb") << "1.9.0";
    QTest::addRow("1.8") << otlpFile("scenario-v1.8.pb") << "1.8.0";
    QTest::addRow("1.7") << otlpFile("scenario-v1.7.pb") << "1.7.0";
}

// What otlpgen wrote (see its scenario), read back from every layout.
void TestOtlp::layouts()
{
    QFETCH(QString, file);
    QFETCH(QString, version);
    ProfileFormat format = ProfileFormat::Unknown;
    auto r = loadPath(file, 0, &format);
    QVERIFY2(r.ok(), r.ok() ? "" : r.error().toString().c_str());
    const Profile& p = *r;
    QCOMPARE(format, ProfileFormat::Otlp);
    QCOMPARE(QString::fromStdString(p.formatVersion), version);

    // Three profiles: two in the first resource (two scopes), one in the second.
    QCOMPARE(p.profilesInFile.size(), size_t(3));
    QCOMPARE(p.profilesInFile[0].serviceName, std::string("checkout"));
    QCOMPARE(p.profilesInFile[0].executableName, std::string("app"));
    QCOMPARE(p.profilesInFile[0].sampleType, std::string("cpu (nanoseconds)"));
    QCOMPARE(p.profilesInFile[0].samples, uint64_t(5));
    QCOMPARE(p.profilesInFile[1].sampleType, std::string("samples (count)"));
    QCOMPARE(p.profilesInFile[2].serviceName, std::string("inventory"));
    QCOMPARE(p.profilesInFile[2].sampleType, std::string("wall (nanoseconds)"));

    // Profile 0: 5 OTLP samples, one with two timestamps -> 6 samples.
    QCOMPARE(p.sampleTypes.size(), size_t(1));
    QCOMPARE(p.str(p.sampleTypes[0].type), std::string_view("cpu"));
    QCOMPARE(p.sampleCount(), size_t(6));
    QCOMPARE(p.totalValue(0), int64_t(112000000));
    QCOMPARE(p.timeNanos, int64_t(T0));
    QCOMPARE(p.durationNanos, int64_t(5000000000));
    QCOMPARE(p.period, int64_t(10000000));
    QCOMPARE(p.attribute("service.name"), std::string_view("checkout"));
    QCOMPARE(p.attribute("otel.scope.name"), std::string_view("otlpgen"));

    // Timestamps and the link of the second OTLP sample (model samples 1 and 2).
    QCOMPARE(p.sampleTimestamps.size(), size_t(6));
    QCOMPARE(p.sampleTimestamps[0], int64_t(0));
    QCOMPARE(p.sampleTimestamps[1], int64_t(T0 + 100));
    QCOMPARE(p.sampleTimestamps[2], int64_t(T0 + 200));
    QCOMPARE(p.value(1, 0), int64_t(20000000));
    QCOMPARE(p.value(2, 0), int64_t(30000000));
    QCOMPARE(p.sampleLinks.size(), size_t(6));
    QVERIFY(p.sampleLinks[1] != 0 && p.sampleLinks[1] == p.sampleLinks[2]);
    QCOMPARE(p.sampleLinks[0], uint32_t(0));
    const SampleLink& link = p.links[p.sampleLinks[1]];
    QCOMPARE(int(link.traceId[0]), 1);
    QCOMPARE(int(link.traceId[15]), 0x10);
    QCOMPARE(int(link.spanId[7]), 0xa8);

    // Labels.
    QCOMPARE(p.sampleLabels(0).size(), size_t(1));
    QCOMPARE(p.str(p.sampleLabels(0)[0].key), std::string_view("thread.name"));
    QCOMPARE(p.str(p.sampleLabels(0)[0].str), std::string_view("worker-1"));
    QCOMPARE(p.str(p.sampleLabels(2)[0].str), std::string_view("worker-2"));
    QCOMPARE(p.sampleLabels(4).size(), size_t(0));

    // Mappings: identity from the build-ID attributes; frame kinds and statuses.
    const Location* app = findLocation(p, 0x1200);
    QVERIFY(app && app->mapping.valid());
    const Mapping& am = p.mappings[app->mapping.index()];
    QCOMPARE(p.str(am.file), std::string_view("/usr/bin/app"));
    QCOMPARE(p.str(am.buildId), std::string_view("abcdef0123456789abcdef0123456789abcdef01"));
    QVERIFY(am.has(Mapping::ElfAddresses));
    QCOMPARE(app->kind, FrameKind::Native);
    QCOMPARE(app->lineCount, uint32_t(2));
    QCOMPARE(p.str(p.functions[p.linesOf(*app)[0].function.index()].name), std::string_view("leaf"));
    QCOMPARE(p.linesOf(*app)[1].line, int64_t(21));
    if (version == "1.7.0")
        QVERIFY(am.has(Mapping::HasFunctions)); // 1.7's has_functions field

    const Location* lib = findLocation(p, 0x2345);
    QVERIFY(lib && lib->mapping.valid());
    const Mapping& lm = p.mappings[lib->mapping.index()];
    QVERIFY(lm.buildId.empty());
    QCOMPARE(p.str(lm.htlHash), std::string_view("0123456789abcdef0123456789abcdef"));
    QCOMPARE(lib->status, FrameStatus::BinaryOnly);

    const Location* kernel = findLocation(p, 0xffffffff81000000);
    QVERIFY(kernel);
    QCOMPARE(kernel->kind, FrameKind::Kernel);
    QCOMPARE(kernel->status, FrameStatus::Symbolized);

    const Location* py = findLocation(p, 0);
    QVERIFY(py);
    QCOMPARE(py->kind, FrameKind::Python);
    QVERIFY(!py->mapping.valid());

    // Profile 1: timestamps only, each counts 1.
    auto r1 = loadPath(file, 1);
    QVERIFY2(r1.ok(), r1.ok() ? "" : r1.error().toString().c_str());
    QCOMPARE(r1->profileIndex, size_t(1));
    QCOMPARE(r1->sampleCount(), size_t(4));
    QCOMPARE(r1->totalValue(0), int64_t(4));
    QCOMPARE(r1->sampleTimestamps[3], int64_t(T0 + 4));
    QCOMPARE(collapsed(*r1, 0), (QStringList { "main;work;leaf 1", "main;work;leaf;libx.so+0x2345 3" }));

    // Profile 2 of the other resource.
    auto r2 = loadPath(file, 2);
    QVERIFY2(r2.ok(), r2.ok() ? "" : r2.error().toString().c_str());
    QCOMPARE(r2->attribute("service.name"), std::string_view("inventory"));
    QCOMPARE(collapsed(*r2, 0), (QStringList { "main;handler 100" }));
}

// The same samples written as pprof by otlpgen read into equal top tables and folded stacks.
void TestOtlp::sameAsPprof()
{
    auto pprof = loadPath(otlpFile("scenario-cpu.pprof.pb"));
    QVERIFY2(pprof.ok(), pprof.ok() ? "" : pprof.error().toString().c_str());
    const QStringList wantFolded = collapsed(*pprof, 0);
    const QStringList wantTop = topTable(*pprof, 0);
    QCOMPARE(wantFolded.size(), 4); // a real comparison: every stack of the scenario
    for (const char* name : { "scenario-v1.10.pb", "scenario-v1.9.pb", "scenario-v1.8.pb", "scenario-v1.7.pb" }) {
        auto otlp = loadPath(otlpFile(name));
        QVERIFY2(otlp.ok(), otlp.ok() ? "" : otlp.error().toString().c_str());
        QCOMPARE(collapsed(*otlp, 0), wantFolded);
        QCOMPARE(topTable(*otlp, 0), wantTop);
        QCOMPARE(otlp->sampleCount(), pprof->sampleCount());
    }
}

void TestOtlp::profileChoice()
{
    auto r = loadPath(otlpFile("scenario-v1.10.pb"), 3);
    QVERIFY(!r.ok());
    QCOMPARE(r.error().code, ErrorCode::NotFound);
    QCOMPARE(
        QString::fromStdString(r.error().message), QStringLiteral("no profile 3: the file holds 3 profiles (0 to 2)"));
    QVERIFY(r.error().path.ends_with("scenario-v1.10.pb"));
    QCOMPARE(QString::fromStdString(ProfileChoice { "checkout", "app", "cpu (nanoseconds)", 5 }.describe(0)),
        QStringLiteral("#0  checkout  app  cpu (nanoseconds)  5 samples"));
}

// tests/otlp/simple.json, written by hand from the OTLP JSON rules.
void TestOtlp::json()
{
    const QString path = QStringLiteral(SYMFLAME_TEST_SOURCE_DIR "/otlp/simple.json");
    ProfileFormat format = ProfileFormat::Unknown;
    auto r = loadPath(path, 0, &format);
    QVERIFY2(r.ok(), r.ok() ? "" : r.error().toString().c_str());
    const Profile& p = *r;
    QCOMPARE(format, ProfileFormat::OtlpJson);
    QCOMPARE(p.formatVersion, std::string("1.10.0"));
    QCOMPARE(p.profilesInFile.size(), size_t(1));
    QCOMPARE(p.profilesInFile[0].serviceName, std::string("cart"));
    QCOMPARE(p.profilesInFile[0].executableName, std::string("cartd"));
    // 3 samples, the second with two timestamps: 4 samples of 30, 12, 8, 5.
    QCOMPARE(p.sampleCount(), size_t(4));
    QCOMPARE(p.totalValue(0), int64_t(55));
    QCOMPARE(p.timeNanos, int64_t(T0));
    QCOMPARE(p.durationNanos, int64_t(2000000000));
    QCOMPARE(p.period, int64_t(10000000));
    QCOMPARE(p.sampleTimestamps[1], int64_t(T0 + 1));
    QCOMPARE(p.sampleTimestamps[2], int64_t(T0 + 2));
    QCOMPARE(p.attribute("process.pid"), std::string_view()); // an integer attribute: no string
    bool sawPid = false;
    for (const Label& a : p.attributes)
        if (p.str(a.key) == "process.pid")
            sawPid = a.num == 4242;
    QVERIFY(sawPid);
    QCOMPARE(p.str(p.sampleLabels(0)[0].str), std::string_view("cart-worker"));
    const SampleLink& link = p.links[p.sampleLinks[1]];
    QCOMPARE(QByteArray(reinterpret_cast<const char*>(link.traceId), 16).toHex(),
        QByteArray("0102030405060708090a0b0c0d0e0f10"));
    QCOMPARE(QByteArray(reinterpret_cast<const char*>(link.spanId), 8).toHex(), QByteArray("a1a2a3a4a5a6a7a8"));
    const Location* unsym = findLocation(p, 4608);
    QVERIFY(unsym);
    QCOMPARE(unsym->kind, FrameKind::Native);
    QCOMPARE(p.str(p.mappings[unsym->mapping.index()].buildId),
        std::string_view("00112233445566778899aabbccddeeff00112233"));
    QCOMPARE(collapsed(p, 0), (QStringList { "main 35", "main;cartd+0x1200 20" }));
}

// tests/otlp/attributes.json, by hand: proto (snake_case) names, 1.8-era "sample" and "line",
// numbers as numbers, every AnyValue kind, 1.10's string_value_strindex and key_strindex.
void TestOtlp::jsonAttributes()
{
    const QString path = QStringLiteral(SYMFLAME_TEST_SOURCE_DIR "/otlp/attributes.json");
    auto r = loadPath(path);
    QVERIFY2(r.ok(), r.ok() ? "" : r.error().toString().c_str());
    const Profile& p = *r;
    QCOMPARE(p.profilesInFile.size(), size_t(2));
    QCOMPARE(p.profilesInFile[0].serviceName, std::string("billing"));
    QCOMPARE(p.profilesInFile[1].sampleType, std::string("delta (bytes)"));
    const auto text = [&](const char* key) {
        for (const Label& a : p.attributes)
            if (p.str(a.key) == key)
                return a.str.empty() ? std::to_string(a.num) : std::string(p.str(a.str));
        return std::string("(missing)");
    };
    QCOMPARE(text("service.name"), std::string("billing"));
    QCOMPARE(text("host.arch"), std::string("amd64"));
    QCOMPARE(text("sampled"), std::string("true"));
    QCOMPARE(text("ratio"), std::string("0.25"));
    QCOMPARE(text("cpus"), std::string("[0, 3]"));
    QCOMPARE(text("labels"), std::string("{team=core}"));
    QCOMPARE(text("blob"), std::string("deadbeef"));
    // Three timestamps (each counts 1) and a value of 2.
    QCOMPARE(p.sampleCount(), size_t(4));
    QCOMPARE(p.totalValue(0), int64_t(5));
    QCOMPARE(p.sampleTimestamps[2], int64_t(T0 + 30));
    QCOMPARE(p.sampleTimestamps[3], int64_t(0));
    QCOMPARE(p.sampleLabels(0).size(), size_t(2));
    QCOMPARE(p.str(p.sampleLabels(0)[0].key), std::string_view("cpu.logical_number"));
    QCOMPARE(p.sampleLabels(0)[0].num, int64_t(3));
    QCOMPARE(p.sampleLabels(0)[1].num, int64_t(77));
    QCOMPARE(p.str(p.sampleLabels(0)[1].numUnit), std::string_view("count"));
    QCOMPARE(collapsed(p, 0), (QStringList { "run 5" }));
    auto second = loadPath(path, 1);
    QVERIFY(second.ok());
    QCOMPARE(second->totalValue(0), int64_t(-7));
}

void TestOtlp::limits()
{
    auto d = smallProfile();
    for (int i = 0; i < 3; ++i) {
        auto* s = firstProfile(d)->add_samples();
        s->set_stack_index(1);
        s->add_values(1);
    }
    const std::string bytes = d.SerializeAsString();
    OtlpReadOptions o;
    o.maxSamples = 3;
    auto r = readOtlp(bytesOf(bytes), o);
    QVERIFY(!r.ok());
    QCOMPARE(r.error().code, ErrorCode::TooLarge);
    QCOMPARE(QString::fromStdString(r.error().message),
        QStringLiteral("profile 0 (resource_profiles[0].scope_profiles[0].profiles[0]): more than 3 samples"));
    o = OtlpReadOptions();
    o.maxStackDepth = 1;
    r = readOtlp(bytesOf(bytes), o);
    QVERIFY(!r.ok());
    QCOMPARE(r.error().code, ErrorCode::TooLarge);
    QCOMPARE(QString::fromStdString(r.error().message), QStringLiteral("stack_table[1]: stack deeper than 1 frames"));

    // A Collector file's requests count together: the capture's samples are limited, not each
    // request's (each of these three holds fewer than 150).
    const QByteArray framed = readAllOf(otlpFile("capture-requests.pb"));
    o = OtlpReadOptions();
    o.maxSamples = 150;
    const auto span = std::span(reinterpret_cast<const uint8_t*>(framed.constData()), size_t(framed.size()));
    r = readOtlpCollector(span, CollectorFraming::LengthPrefixed, o);
    QVERIFY(!r.ok());
    QCOMPARE(r.error().code, ErrorCode::TooLarge);
    QVERIFY2(QString::fromStdString(r.error().message).startsWith(QStringLiteral("request ")), r.error().message.c_str());
    QVERIFY2(QString::fromStdString(r.error().message).endsWith(QStringLiteral("the capture has more than 150 samples")),
        r.error().message.c_str());
    o.maxSamples = 1000;
    QVERIFY(readOtlpCollector(span, CollectorFraming::LengthPrefixed, o).ok());
}

// 1.7 samples name slices of location_indices: N samples over N indices can name N²/2 frames in
// O(N) bytes. The distinct slices' frames are limited (maxStackFrames); a slice named again is
// not walked again.
void TestOtlp::legacySliceFramesLimited()
{
    namespace v7 = symflame::otlptest::v1_7;
    constexpr int kLocations = 100;
    v7::ProfilesData d;
    auto* dict = d.mutable_dictionary();
    for (const char* s : { "", "samples", "count", "f", "/bin/app" })
        dict->add_string_table(s);
    auto* m = dict->add_mapping_table();
    m->set_memory_start(0x1000);
    m->set_memory_limit(0x100000);
    m->set_filename_strindex(4);
    dict->add_function_table()->set_name_strindex(3);
    auto* p = d.add_resource_profiles()->add_scope_profiles()->add_profiles();
    p->mutable_sample_type()->set_type_strindex(1);
    p->mutable_sample_type()->set_unit_strindex(2);
    for (int i = 0; i < kLocations; ++i) {
        auto* l = dict->add_location_table();
        l->set_mapping_index(0);
        l->set_address(0x1000 + 16 * uint64_t(i));
        p->add_location_indices(i);
    }
    // Sample i: location_indices [i, kLocations); every slice twice.
    for (int round = 0; round < 2; ++round) {
        for (int i = 0; i < kLocations; ++i) {
            auto* s = p->add_sample();
            s->set_locations_start_index(i);
            s->set_locations_length(kLocations - i);
            s->add_values(1);
        }
    }
    const std::string bytes = d.SerializeAsString();
    const uint64_t frames = uint64_t(kLocations) * (kLocations + 1) / 2; // 100 + 99 + ... + 1

    OtlpReadOptions o;
    o.maxStackFrames = frames;
    auto r = readOtlp(bytesOf(bytes), o);
    QVERIFY2(r.ok(), r.ok() ? "" : r.error().toString().c_str());
    QCOMPARE(r->sampleCount(), size_t(2 * kLocations));
    QCOMPARE(r->stackLocations.size(), size_t(frames));
    for (int i = 0; i < kLocations; ++i) {
        QCOMPARE(r->sampleStack(size_t(i)).size(), size_t(kLocations - i));
        QCOMPARE(r->sampleStacks[size_t(i)], r->sampleStacks[size_t(kLocations + i)]);
    }

    o.maxStackFrames = frames - 1;
    r = readOtlp(bytesOf(bytes), o);
    QVERIFY(!r.ok());
    QCOMPARE(r.error().code, ErrorCode::TooLarge);
    QCOMPARE(QString::fromStdString(r.error().message),
        QStringLiteral("profile 0 (resource_profiles[0].scope_profiles[0].profiles[0]), sample 99: the samples' "
                       "stacks hold more than %1 frames")
            .arg(frames - 1));
}

// Every truncation and many byte flips of a real file: an error or a profile, never a crash
// (run under the asan preset too).
void TestOtlp::corruptedInput()
{
    QFile f(otlpFile("scenario-v1.10.pb"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray original = f.readAll();
    std::vector<uint8_t> bytes(original.begin(), original.end());
    size_t errors = 0;
    for (size_t n = 1; n < bytes.size(); ++n) {
        auto r = readOtlp(std::span(bytes.data(), n));
        errors += !r.ok();
    }
    QVERIFY(errors > bytes.size() / 2);
    uint64_t state = 12345;
    for (int i = 0; i < 3000; ++i) {
        std::vector<uint8_t> copy = bytes;
        for (int k = 0; k < 1 + i % 4; ++k) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            copy[(state >> 33) % copy.size()] ^= uint8_t(1u << ((state >> 20) % 8));
        }
        for (size_t index : { size_t(0), size_t(1), size_t(2) }) {
            OtlpReadOptions o;
            o.profileIndex = index;
            auto r = readOtlp(copy, o);
            if (r.ok())
                (void)collapsed(*r, 0);
        }
    }
}

void TestOtlp::jsonErrors_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("error");
    QTest::addRow("not json") << QByteArray("{\"resourceProfiles\": [")
                              << "invalid JSON: parse error at line 1, column 23: syntax error while parsing value - "
                                 "unexpected end of input; expected '[', '{', or a literal";
    QTest::addRow("value not a number")
        << QByteArray(R"({"resourceProfiles":[{"scopeProfiles":[{"profiles":[{"samples":[{"values":["x"]}]}]}]}]})")
        << R"(OTLP JSON: resourceProfiles[0].scopeProfiles[0].profiles[0].samples[0].values[0]: expected an integer, got the string "x")";
    QTest::addRow("samples not an array")
        << QByteArray(R"({"resourceProfiles":[{"scopeProfiles":[{"profiles":[{"samples":{}}]}]}]})")
        << "OTLP JSON: resourceProfiles[0].scopeProfiles[0].profiles[0].samples: expected an array, got an object";
    QTest::addRow("bad trace id")
        << QByteArray(R"({"dictionary":{"stringTable":[""],"linkTable":[{},{"traceId":"zz"}]},"resourceProfiles":[]})")
        << R"(OTLP JSON: dictionary.linkTable[1].traceId: expected hex digits, got the string "zz")";
    QTest::addRow("int32 out of range") << QByteArray(
        R"({"dictionary":{"stringTable":[""],"stackTable":[{"locationIndices":[4294967296]}]},"resourceProfiles":[]})")
                                        << "OTLP JSON: dictionary.stackTable[0].locationIndices[0]: integer 4294967296 "
                                           "out of the int32 range";
}

void TestOtlp::jsonErrors()
{
    QFETCH(QByteArray, text);
    QFETCH(QString, error);
    auto r = readOtlpJson(std::span(reinterpret_cast<const uint8_t*>(text.constData()), size_t(text.size())));
    QVERIFY(!r.ok());
    QCOMPARE(QString::fromStdString(r.error().message), error);
}

void TestOtlp::badInput_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("error");
    const QString prof = QStringLiteral("profile 0 (resource_profiles[0].scope_profiles[0].profiles[0])");
    const auto add = [](const char* name, const v10::ProfilesData& d, const QString& error) {
        const std::string s = d.SerializeAsString();
        QTest::addRow("%s", name) << QByteArray(s.data(), qsizetype(s.size())) << error;
    };
    {
        auto d = smallProfile();
        firstProfile(d)->mutable_samples(0)->set_stack_index(9);
        add("stack index out of range", d, prof + ", sample 0: stack_index 9 out of range (stack_table has 2 entries)");
    }
    {
        auto d = smallProfile();
        firstProfile(d)->mutable_samples(0)->set_stack_index(-1);
        add("negative stack index", d, prof + ", sample 0: stack_index -1 is negative (stack_table has 2 entries)");
    }
    {
        auto d = smallProfile();
        d.mutable_dictionary()->mutable_stack_table(1)->set_location_indices(0, 7);
        add("location index out of range", d,
            "stack_table[1]: location index 7 out of range (location_table has 3 entries)");
    }
    {
        auto d = smallProfile();
        d.mutable_dictionary()->mutable_stack_table(1)->set_location_indices(0, 0);
        add("location index 0 in a stack", d,
            "stack_table[1]: location index 0 (the unset entry of location_table) in a stack");
    }
    {
        auto d = smallProfile();
        d.mutable_dictionary()->mutable_location_table(2)->mutable_lines(0)->set_function_index(5);
        add("function index out of range", d,
            "location_table[2].lines[0]: function_index 5 out of range (function_table has 3 entries)");
    }
    {
        auto d = smallProfile();
        d.mutable_dictionary()->mutable_location_table(1)->set_mapping_index(4);
        add("mapping index out of range", d,
            "location_table[1]: mapping_index 4 out of range (mapping_table has 2 entries)");
    }
    {
        auto d = smallProfile();
        d.mutable_dictionary()->mutable_function_table(2)->set_name_strindex(60);
        add("string index out of range", d,
            "function_table[2]: name_strindex 60 out of range (string_table has 6 entries)");
    }
    {
        auto d = smallProfile();
        firstProfile(d)->mutable_samples(0)->add_attribute_indices(3);
        add("attribute index out of range", d,
            prof + ", sample 0: attribute index 3 out of range (attribute_table has 1 entry)");
    }
    {
        auto d = smallProfile();
        firstProfile(d)->mutable_samples(0)->set_link_index(2);
        add("link index out of range", d, prof + ", sample 0: link_index 2 out of range (link_table has 1 entry)");
    }
    {
        auto d = smallProfile();
        d.clear_dictionary();
        add("no dictionary", d,
            prof + " sample_type: type_strindex 1 refers to the string table, but the file has no dictionary");
        firstProfile(d)->clear_sample_type();
        auto* t = firstProfile(d)->mutable_sample_type();
        t->set_type_strindex(0);
        add("no dictionary, stacks", d,
            prof + ", sample 0: stack_index 1 refers to the dictionary's stack_table, but the file has no dictionary");
    }
    {
        auto d = smallProfile();
        auto* s = firstProfile(d)->mutable_samples(0);
        s->add_values(20);
        s->add_timestamps_unix_nano(T0);
        add("values and timestamps disagree", d,
            prof + ", sample 0: it has 2 values but 1 timestamp (with both, the counts must be equal)");
    }
    {
        auto d = smallProfile();
        firstProfile(d)->mutable_samples(0)->clear_values();
        add("neither values nor timestamps", d, prof + ", sample 0: it has neither values nor timestamps");
    }
    {
        auto d = smallProfile();
        firstProfile(d)->clear_sample_type();
        add("samples without sample type", d, prof + ": it has samples but no sample_type");
    }
    {
        auto d = smallProfile();
        d.mutable_dictionary()->mutable_stack_table(0)->add_location_indices(1);
        firstProfile(d)->mutable_samples(0)->set_stack_index(0);
        add("stack_table[0] not empty", d,
            "stack_table[0] holds 1 location: entry 0 of every table must be the zero value (index 0 means unset)");
    }
    {
        auto d = smallProfile();
        auto* link = d.mutable_dictionary()->add_link_table();
        link->set_trace_id("short");
        firstProfile(d)->mutable_samples(0)->set_link_index(1);
        add("short trace id", d, "link_table[1]: trace_id has 5 bytes, expected 16");
    }
    {
        // Truncated: the profile runs past the end.
        const std::string s = smallProfile().SerializeAsString();
        QTest::addRow("truncated") << QByteArray(s.data(), qsizetype(s.size() - 3))
                                   << QStringLiteral(
                                          "truncated protobuf: length-delimited field runs past the end at byte 19");
    }
}

void TestOtlp::badInput()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, error);
    auto r = readOtlp(std::span(reinterpret_cast<const uint8_t*>(bytes.constData()), size_t(bytes.size())));
    QVERIFY(!r.ok());
    QCOMPARE(QString::fromStdString(r.error().message), error);

    // Through loadProfile the file is named too (and the CLI prints it on one line, exit 2).
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("bad.pb"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(bytes);
    f.close();
    auto loaded = loadPath(path);
    QVERIFY(!loaded.ok());
    QCOMPARE(QString::fromStdString(loaded.error().path), path);
}

void TestOtlp::stackIndexZero()
{
    // Index 0 of stack_table is the empty stack: the sample counts in the total, with no frames.
    auto d = smallProfile();
    auto* s = firstProfile(d)->add_samples();
    s->set_stack_index(0);
    s->add_values(5);
    const std::string bytes = d.SerializeAsString();
    auto r = readOtlp(bytesOf(bytes));
    QVERIFY2(r.ok(), r.ok() ? "" : r.error().toString().c_str());
    QCOMPARE(r->sampleCount(), size_t(2));
    QCOMPARE(r->sampleStack(1).size(), size_t(0));
    QCOMPARE(r->totalValue(0), int64_t(15));
    QCOMPARE(collapsed(*r, 0), (QStringList { "main;leaf 10" }));
}

void TestOtlp::unknownLayout()
{
    // A 1.10 profile (time as fixed64) whose sample has field 6, which only 1.7 has.
    auto d = smallProfile();
    firstProfile(d)->set_time_unix_nano(T0);
    auto* sample = firstProfile(d)->mutable_samples(0);
    sample->GetReflection()->MutableUnknownFields(sample)->AddVarint(6, 1);
    const std::string bytes = d.SerializeAsString();
    auto r = readOtlp(bytesOf(bytes));
    QVERIFY(!r.ok());
    QCOMPARE(r.error().code, ErrorCode::Unsupported);
    QCOMPARE(QString::fromStdString(r.error().message),
        QStringLiteral("unknown OTLP profiles layout: dictionary field 7 entry field 1 as length-delimited (1.8.0 or "
                       "1.9.0 or 1.10.0); sample field 4 as length-delimited (1.7.0 or 1.10.0); sample field 6 as "
                       "varint (1.7.0) fit none of the layouts this reader knows (1.7.0 to 1.10.0)"));
}

void TestOtlp::detection()
{
    const auto d = smallProfile().SerializeAsString();
    QCOMPARE(detectFormat(bytesOf(d)), ProfileFormat::Otlp);
    // pprof stays pprof (its fields 1 and 2 are also OTLP's numbers).
    QFile pprof(otlpFile("scenario-cpu.pprof.pb"));
    QVERIFY(pprof.open(QIODevice::ReadOnly));
    const QByteArray pb = pprof.readAll();
    QCOMPARE(detectFormat(std::span(reinterpret_cast<const uint8_t*>(pb.constData()), size_t(pb.size()))),
        ProfileFormat::Pprof);
    QFile go(QString::fromUtf8(fixtures::goCpuProfile));
    QVERIFY(go.open(QIODevice::ReadOnly));
    auto goRaw = gunzip(std::span(reinterpret_cast<const uint8_t*>(go.readAll().constData()), size_t(go.size())));
    QVERIFY(goRaw.ok());
    QCOMPARE(detectFormat(*goRaw), ProfileFormat::Pprof);
    const std::string json = R"({"resourceProfiles":[]})";
    QCOMPARE(detectFormat(bytesOf(json)), ProfileFormat::OtlpJson);
}

namespace {

/// The profile without where it sits in its file, encoded: two reads of the same profile of the
/// same request give the same bytes.
std::vector<uint8_t> canonical(Profile p)
{
    p.profilesInFile.clear();
    p.profileIndex = 0;
    return encodeOtlp(p);
}

QByteArray bigEndianLength(size_t n)
{
    QByteArray b(4, 0);
    for (int i = 0; i < 4; ++i)
        b[i] = char((n >> (8 * (3 - i))) & 0xff);
    return b;
}

bool writeAllTo(const QString& path, const QByteArray& bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

/// path compressed by the zstd tool into path + ".zst".
QString zstdOf(const QString& path)
{
    const auto r = symflame::testing::runProcess(QStringLiteral(SYMFLAME_ZSTD), { "-q", "-f", "-19", path, "-o", path + ".zst" });
    return r.ok() ? path + ".zst" : QString();
}

} // namespace

void TestOtlp::collectorFiles_data()
{
    QTest::addColumn<bool>("json");
    QTest::addColumn<bool>("zstd");
    QTest::newRow("length-prefixed proto") << false << false;
    QTest::newRow("length-prefixed proto, zstd") << false << true;
    QTest::newRow("JSON lines") << true << false;
    QTest::newRow("JSON lines, zstd") << true << true;
}

// The OpenTelemetry Collector's file exporter: several requests in one file, as JSON lines (the
// hand-written JSON files, one per line) or length-prefixed protobuf (otlpgen's requests in four
// layouts), plain and compressed by the zstd tool. Every profile of the file is listed, in file
// order, and profile i reads exactly as the same profile of its request read alone.
void TestOtlp::collectorFiles()
{
    QFETCH(bool, json);
    QFETCH(bool, zstd);
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    QStringList requests;
    if (json) {
        for (const char* name : { "simple.json", "attributes.json", "simple.json" })
            requests << QStringLiteral(SYMFLAME_TEST_SOURCE_DIR "/otlp/") + QLatin1String(name);
    } else {
        for (const char* name : { "scenario-v1.10-request.pb", "scenario-v1.9.pb", "scenario-v1.8.pb", "scenario-v1.7.pb" })
            requests << otlpFile(name);
    }
    QByteArray file;
    for (const QString& r : requests) {
        const QByteArray bytes = readAllOf(r);
        QVERIFY2(!bytes.isEmpty(), qPrintable(r));
        if (json) {
            const QJsonDocument doc = QJsonDocument::fromJson(bytes);
            QVERIFY(doc.isObject());
            file += doc.toJson(QJsonDocument::Compact) + "\r\n"; // the exporter's lines; CR LF read too
        } else {
            file += bigEndianLength(size_t(bytes.size())) + bytes;
        }
    }
    QString path = tmp.filePath(json ? "capture.jsonl" : "capture.pb");
    QVERIFY(writeAllTo(path, file));
    if (zstd) {
        path = zstdOf(path);
        QVERIFY(!path.isEmpty());
        QCOMPARE(readAllOf(path).left(4), QByteArray("\x28\xb5\x2f\xfd", 4));
    }

    // What each request holds, read alone.
    std::vector<std::pair<int, size_t>> expected; // request, profile within it
    for (int r = 0; r < requests.size(); ++r) {
        auto alone = loadPath(requests[r]);
        QVERIFY2(alone.ok(), alone.ok() ? "" : alone.error().toString().c_str());
        for (size_t j = 0; j < alone->profilesInFile.size(); ++j)
            expected.emplace_back(r, j);
    }
    QVERIFY(expected.size() > size_t(requests.size()));

    ProfileFormat format = ProfileFormat::Unknown;
    for (size_t i = 0; i < expected.size(); ++i) {
        auto whole = loadPath(path, i, &format);
        QVERIFY2(whole.ok(), whole.ok() ? "" : whole.error().toString().c_str());
        QCOMPARE(format, json ? ProfileFormat::OtlpCollectorJson : ProfileFormat::OtlpCollectorProto);
        QCOMPARE(whole->profilesInFile.size(), expected.size());
        QCOMPARE(whole->profileIndex, i);
        const auto [r, j] = expected[i];
        auto alone = loadPath(requests[r], j);
        QVERIFY(alone.ok());
        QCOMPARE(whole->profilesInFile[i].describe(i), alone->profilesInFile[j].describe(i));
        QCOMPARE(whole->sampleCount(), alone->sampleCount());
        QVERIFY2(canonical(std::move(whole).value()) == canonical(std::move(alone).value()),
            qPrintable(QStringLiteral("profile %1 (request %2, profile %3) differs").arg(i).arg(r + 1).arg(j)));
    }
    auto past = loadPath(path, expected.size());
    QVERIFY(!past.ok());
    QCOMPARE(past.error().code, ErrorCode::NotFound);
    QVERIFY(QString::fromStdString(past.error().message).contains(QStringLiteral("in %1 requests").arg(requests.size())));
}

void TestOtlp::collectorBadInput_data()
{
    QTest::addColumn<QByteArray>("file");
    QTest::addColumn<int>("code");
    QTest::addColumn<QString>("message");
    const QByteArray a = readAllOf(otlpFile("scenario-v1.10-request.pb"));
    const QByteArray b = readAllOf(otlpFile("scenario-v1.9.pb"));
    const QByteArray good = bigEndianLength(size_t(a.size())) + a + bigEndianLength(size_t(b.size())) + b;
    const QString second = QStringLiteral("request 2 (at byte %1, 1 request read before it)").arg(a.size() + 4);
    QTest::newRow("length past the end") << QByteArray(good).chopped(7) << int(ErrorCode::Truncated)
                                         << second + QStringLiteral(": its length, %1 bytes, runs past the end").arg(b.size());
    QTest::newRow("zero length") << bigEndianLength(size_t(a.size())) + a + bigEndianLength(0) + b
                                 << int(ErrorCode::InvalidInput) << second + ": its length is 0";
    QTest::newRow("huge length") << bigEndianLength(size_t(a.size())) + a + QByteArray("\xff\xff\xff\xff", 4) + b
                                 << int(ErrorCode::Truncated) << second + ": its length, 4294967295 bytes, runs past";
    QTest::newRow("ends in a length") << bigEndianLength(size_t(a.size())) + a + QByteArray("\0\0", 2)
                                      << int(ErrorCode::Truncated) << second + ": the file ends inside its 4-byte length";
    QTest::newRow("a request that is not OTLP") << bigEndianLength(size_t(a.size())) + a + bigEndianLength(5) + "\x08\x01\x10\x02\x18"
                                                << int(ErrorCode::InvalidInput) << QStringLiteral("request 2 of 2 (1 request read before it): ");
    const QByteArray line = QJsonDocument::fromJson(readAllOf(QStringLiteral(SYMFLAME_TEST_SOURCE_DIR "/otlp/simple.json"))).toJson(QJsonDocument::Compact);
    QTest::newRow("JSON line not an object") << line + "\n{}\n[1, 2]\n" << int(ErrorCode::InvalidInput)
                                             << QStringLiteral("request 3 (JSON line 3, 2 requests read before it): not a JSON object");
    QTest::newRow("JSON line broken") << line + "\n" + line.left(line.size() / 2) + "\n" << int(ErrorCode::InvalidInput)
                                      << QStringLiteral("request 2 (JSON line 2, 1 request read before it): ");
    QTest::newRow("JSON lines then binary") << line + "\n" + line + "\n" + good << int(ErrorCode::InvalidInput)
                                            << QStringLiteral("request 3 (JSON line 3, 2 requests read before it): not a JSON object");
}

// Each damage to a Collector file: a clear error naming the file, the request and how many came
// before it; never a crash.
void TestOtlp::collectorBadInput()
{
    QFETCH(QByteArray, file);
    QFETCH(int, code);
    QFETCH(QString, message);
    QTemporaryDir tmp;
    const QString path = tmp.filePath("capture.bin");
    QVERIFY(writeAllTo(path, file));
    auto r = loadPath(path);
    QVERIFY(!r.ok());
    QCOMPARE(QString::fromStdString(r.error().path), path);
    QVERIFY2(QString::fromStdString(r.error().message).startsWith(message), r.error().message.c_str());
    QCOMPARE(int(r.error().code), code);
}

// mergeProfiles keeps what each sample carries (labels, timestamps, trace links) and makes one of
// what the profiles share: the same function, the same location (after moving a mapping that
// sits at another address in the second profile), the same stack.
void TestOtlp::merge()
{
    auto a = loadPath(QStringLiteral(SYMFLAME_TEST_SOURCE_DIR "/otlp/simple.json"));
    QVERIFY(a.ok());
    QVERIFY(!a->mappings.empty() && !a->locations.empty());
    // Runtime addresses, as pprof's are (OTLP's are ELF addresses, which no mapping moves).
    for (Mapping& m : a->mappings)
        m.flags &= uint8_t(~Mapping::ElfAddresses);
    // The second: the same profile with its mappings 0x10000 higher and its addresses with them.
    Profile moved = *a;
    for (Mapping& m : moved.mappings) {
        m.start += 0x10000;
        m.limit += 0x10000;
    }
    size_t movedLocations = 0;
    for (Location& l : moved.locations)
        if (l.mapping.valid()) {
            l.address += 0x10000;
            ++movedLocations;
        }
    QVERIFY(movedLocations > 0);
    const Profile parts[] = { *a, moved };
    auto merged = mergeProfiles(parts);
    QVERIFY2(merged.ok(), merged.ok() ? "" : merged.error().message.c_str());
    const Profile& m = *merged;
    QCOMPARE(m.sampleCount(), 2 * a->sampleCount());
    QCOMPARE(m.totalValue(0), 2 * a->totalValue(0));
    QCOMPARE(m.mappings.size(), a->mappings.size());
    QCOMPARE(m.functions.size(), a->functions.size());
    QCOMPARE(m.locations.size(), a->locations.size());
    QCOMPARE(m.stackCount(), a->stackCount());
    for (size_t i = 0; i < a->sampleCount(); ++i)
        for (size_t copy = 0; copy < 2; ++copy) {
            const size_t j = i + copy * a->sampleCount();
            QCOMPARE(m.sampleStacks[j], a->sampleStacks[i]);
            QCOMPARE(m.sampleTimestamps[j], a->sampleTimestamps[i]);
            QCOMPARE(m.sampleLabels(j).size(), a->sampleLabels(i).size());
            for (size_t k = 0; k < a->sampleLabels(i).size(); ++k) {
                QCOMPARE(m.str(m.sampleLabels(j)[k].key), a->str(a->sampleLabels(i)[k].key));
                QCOMPARE(m.str(m.sampleLabels(j)[k].str), a->str(a->sampleLabels(i)[k].str));
            }
            const bool linked = !a->sampleLinks.empty() && a->sampleLinks[i] != 0;
            QCOMPARE(m.sampleLinks[j] != 0, linked);
            if (linked)
                QCOMPARE(std::memcmp(m.links[m.sampleLinks[j]].traceId, a->links[a->sampleLinks[i]].traceId, 16), 0);
        }
    QCOMPARE(m.timeNanos, a->timeNanos);
    QCOMPARE(m.durationNanos, 2 * a->durationNanos);

    // Other sample types: refused, naming the profile.
    auto heap = loadPath(otlpFile("scenario-v1.10.pb"), 2);
    QVERIFY(heap.ok());
    const Profile mixed[] = { *a, *heap };
    size_t differing = 0;
    auto refused = mergeProfiles(mixed, &differing);
    QVERIFY(!refused.ok());
    QCOMPARE(differing, size_t(1));
    QVERIFY2(QString::fromStdString(refused.error().message).startsWith("profile 2 has other sample types"),
        refused.error().message.c_str());
}

// An OTLP line may name no function (function_index 0, "unset"): merging keeps it so, where it
// once indexed the function table with the invalid id (a Collector file fuzz_collector found,
// fuzz/regressions/collector/merge-line-without-function).
void TestOtlp::mergeLineWithoutFunction()
{
    Profile p;
    p.sampleTypes.push_back({ p.strings.intern("samples"), p.strings.intern("count") });
    p.functions.push_back({ p.strings.intern("f"), p.strings.intern("f"), {}, 0, 0 });
    Location loc;
    loc.address = 0x10;
    loc.linesBegin = 0;
    loc.lineCount = 2;
    p.lines.push_back({ FunctionId(), 7, 0 });  // no function
    p.lines.push_back({ FunctionId(0u), 3, 0 });
    p.locations.push_back(loc);
    const LocationId stack[] = { LocationId(0u) };
    const int64_t one = 1;
    p.addSample(p.internStack(stack), std::span(&one, 1));
    p.finishBuilding();
    const Profile both[] = { p, p };
    auto merged = mergeProfiles(both);
    QVERIFY(merged.ok());
    QCOMPARE(merged->locations.size(), size_t(1));
    QCOMPARE(merged->lines.size(), size_t(2));
    QVERIFY(!merged->lines[0].function.valid());
    QCOMPARE(merged->lines[0].line, int64_t(7));
    QCOMPARE(merged->str(merged->functions[merged->lines[1].function.index()].name), std::string_view("f"));
    QCOMPARE(merged->totalValue(0), int64_t(2));
    // The file fuzz_collector found reads (or is refused) without a crash.
    const QByteArray found = readAllOf(QStringLiteral(SYMFLAME_SOURCE_DIR "/fuzz/regressions/collector/merge-line-without-function"));
    QVERIFY(!found.isEmpty());
    const auto framing = collectorFraming(std::span(reinterpret_cast<const uint8_t*>(found.constData()), size_t(found.size())));
    (void)readOtlpCollector(std::span(reinterpret_cast<const uint8_t*>(found.constData()), size_t(found.size())), framing);
}

void TestOtlp::wholeSystemCapture_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<bool>("zstd");
    for (bool zstd : { false, true }) {
        const char* z = zstd ? ", zstd" : "";
        QTest::addRow("1.10%s", z) << otlpFile("capture-v1.10.pb") << zstd;
        QTest::addRow("1.9%s", z) << otlpFile("capture-v1.9.pb") << zstd;
        QTest::addRow("1.8%s", z) << otlpFile("capture-v1.8.pb") << zstd;
        QTest::addRow("1.7%s", z) << otlpFile("capture-v1.7.pb") << zstd;
        QTest::addRow("Collector length-prefixed%s", z) << otlpFile("capture-requests.pb") << zstd;
        QTest::addRow("Collector JSON lines%s", z) << otlpFile("capture-requests.jsonl") << zstd;
    }
}

// A capture laid out as the OpenTelemetry eBPF profiler lays it out (otlpgen: one resource per
// process, a CPU profile of count-only samples and an off-CPU profile in each), in every layout
// and as the Collector's files, plain and zstd. Read whole, it is one profile: samples, cpu and
// off_cpu side by side; every sample knows its process and thread by label; the CPU time is
// count x period; per process the figures otlpgen counted; and sample for sample it is the sum
// of the file's profiles read one at a time.
void TestOtlp::wholeSystemCapture()
{
    QFETCH(QString, file);
    QFETCH(bool, zstd);
    QTemporaryDir tmp;
    if (zstd) {
        const QString copy = tmp.filePath(QFileInfo(file).fileName());
        QVERIFY(QFile::copy(file, copy));
        file = zstdOf(copy);
        QVERIFY(!file.isEmpty());
    }
    // pid -> (CPU samples, off-CPU nanoseconds), as otlpgen wrote them.
    QMap<QString, QPair<int64_t, int64_t>> expected;
    for (const QByteArray& line : readAllOf(otlpFile("capture-expected.txt")).split('\n')) {
        const QList<QByteArray> f = line.split(' ');
        if (f.size() == 6)
            expected.insert(QString::fromUtf8(f[1]), { f[3].toLongLong(), f[5].toLongLong() });
    }
    QCOMPARE(expected.size(), 5);

    LoadOptions all;
    auto r = loadProfile(file.toStdString(), all);
    QVERIFY2(r.ok(), r.ok() ? "" : r.error().toString().c_str());
    const Profile& p = *r;
    QVERIFY(!p.profileIndex);
    QCOMPARE(p.profilesInFile.size(), size_t(10));
    QStringList types;
    for (const ValueType& t : p.sampleTypes)
        types << QString::fromUtf8(p.str(t.type)) + "/" + QString::fromUtf8(p.str(t.unit));
    QCOMPARE(types, QStringList({ "samples/count", "cpu/nanoseconds", "off_cpu/nanoseconds" }));
    QCOMPARE(p.str(p.sampleTypes[p.defaultSampleType].type), std::string_view("cpu"));
    QCOMPARE(p.period, int64_t(50'000'000));
    // What all processes share is the profile's; what tells them apart, the samples'.
    QCOMPARE(p.attribute("host.name"), std::string_view("capture-host"));
    QVERIFY(p.attribute("process.pid").empty());

    QMap<QString, QPair<int64_t, int64_t>> perProcess;
    for (size_t i = 0; i < p.sampleCount(); ++i) {
        const auto labels = p.sampleLabels(i);
        QCOMPARE(p.value(i, 1), p.value(i, 0) * 50'000'000); // cpu = count x period
        QVERIFY(p.value(i, 0) == 0 || p.value(i, 2) == 0);    // a CPU or an off-CPU sample
        QVERIFY(!labelValueText(p, labels, "thread.name").empty());
        QVERIFY(!labelValueText(p, labels, "thread.id").empty());
        QVERIFY(p.sampleTimestamps.at(i) != 0);
        auto& e = perProcess[QString::fromStdString(labelValueText(p, labels, "process.pid"))];
        e.first += p.value(i, 0);
        e.second += p.value(i, 2);
    }
    QCOMPARE(perProcess, expected);
    // The per-process totals as the labels panel lists them.
    int64_t cpuTotal = 0;
    for (const LabelValueInfo& v : labelValues(p, "process.pid", 1)) {
        QVERIFY(expected.contains(QString::fromStdString(v.value)));
        QCOMPARE(v.total, expected[QString::fromStdString(v.value)].first * 50'000'000);
        cpuTotal += v.total;
    }
    QCOMPARE(cpuTotal, p.totalValue(1));

    // Sample for sample: each profile read alone, its samples keyed by process, type, value,
    // time, thread and stack, against the merged profile's samples of the same type.
    const auto stackText = [](const Profile& q, size_t i) {
        QStringList frames;
        for (LocationId l : q.sampleStack(i)) {
            const Location& loc = q.locations[l.index()];
            const Mapping* m = q.mappingOf(loc);
            QString f = m ? QString::fromUtf8(q.str(m->file)) + "+" + QString::number(loc.address, 16) : QString();
            for (const Line& line : q.linesOf(loc))
                f += ":" + QString::fromUtf8(q.str(q.functions[line.function.index()].name));
            frames << f;
        }
        return frames.join(';');
    };
    const auto keyOf = [&](const Profile& q, size_t i, const std::string& type, int64_t value) {
        const auto labels = q.sampleLabels(i);
        return QStringLiteral("%1 %2 %3 %4 %5/%6/%7 %8")
            .arg(QString::fromStdString(labelValueText(q, labels, "process.pid")), QString::fromStdString(type))
            .arg(value)
            .arg(q.sampleTimestamps.empty() ? 0 : q.sampleTimestamps[i])
            .arg(QString::fromStdString(labelValueText(q, labels, "thread.name")),
                QString::fromStdString(labelValueText(q, labels, "thread.id")),
                QString::fromStdString(labelValueText(q, labels, "cpu.logical_number")), stackText(q, i));
    };
    QMap<QString, int> merged, alone;
    for (size_t i = 0; i < p.sampleCount(); ++i)
        for (size_t t = 0; t < p.sampleTypes.size(); ++t)
            if (p.value(i, t) != 0)
                ++merged[keyOf(p, i, std::string(p.str(p.sampleTypes[t].type)), p.value(i, t))];
    for (size_t j = 0; j < p.profilesInFile.size(); ++j) {
        auto one = loadPath(file, j);
        QVERIFY2(one.ok(), one.ok() ? "" : one.error().toString().c_str());
        QCOMPARE(one->profileIndex, std::optional<size_t>(j));
        QCOMPARE(labelValueText(*one, {}, "process.pid"), std::to_string(one->profilesInFile[j].pid));
        for (size_t i = 0; i < one->sampleCount(); ++i)
            for (size_t t = 0; t < one->sampleTypes.size(); ++t)
                if (one->value(i, t) != 0)
                    ++alone[keyOf(*one, i, std::string(one->str(one->sampleTypes[t].type)), one->value(i, t))];
    }
    QVERIFY(merged.size() > 100);
    QCOMPARE(merged, alone);
}

// The label options on a capture from the command line: group by pid (one frame per process,
// its CPU time as otlpgen counted it), a label filter through symbolize into a file that keeps
// only those samples and their labels, a time range, and bad options (exit 64, the reason).
void TestOtlp::captureCli()
{
    const QString file = otlpFile("capture-requests.pb");
    QMap<QString, int64_t> cpuOf;
    for (const QByteArray& line : readAllOf(otlpFile("capture-expected.txt")).split('\n')) {
        const QList<QByteArray> f = line.split(' ');
        if (f.size() == 6)
            cpuOf.insert(QString::fromUtf8(f[1]), f[3].toLongLong() * 50'000'000);
    }
    ProcessResult r = runSymflame({ "top", file, "--group-by", "process.pid", "-n", "0", "--json" });
    QCOMPARE(r.exitCode, 0);
    QMap<QString, int64_t> cum;
    for (const QJsonValue& v : QJsonDocument::fromJson(r.out).object().value("functions").toArray())
        if (cpuOf.contains(v.toObject().value("name").toString()))
            cum.insert(v.toObject().value("name").toString(), v.toObject().value("cum").toInteger());
    QCOMPARE(cum, cpuOf);

    QTemporaryDir dir;
    const QString out = dir.filePath("python3.pb");
    r = runSymflame({ "symbolize", file, "-o", out, "--offline", "--tag-focus", "process.executable.name=python3" });
    QCOMPARE(r.exitCode, 0);
    auto written = loadProfile(out.toStdString(), LoadOptions {});
    QVERIFY(written.ok());
    QCOMPARE(written->str(written->sampleTypes[written->defaultSampleType].type), std::string_view("cpu"));
    QCOMPARE(written->totalValue(1), cpuOf["4410"] + cpuOf["4411"]);
    for (size_t i = 0; i < written->sampleCount(); ++i)
        QCOMPARE(labelValueText(*written, written->sampleLabels(i), "process.executable.name"), std::string("python3"));

    // --time-range: the samples of [2s, 5s) after the first timestamp, counted here.
    auto whole = loadProfile(file.toStdString(), LoadOptions {});
    QVERIFY(whole.ok());
    const int64_t start = whole->timeNanos;
    int64_t inRange = 0;
    for (size_t i = 0; i < whole->sampleCount(); ++i)
        if (whole->sampleTimestamps[i] >= start + 2'000'000'000 && whole->sampleTimestamps[i] < start + 5'000'000'000)
            inRange += whole->value(i, 1);
    QVERIFY(inRange > 0 && inRange < whole->totalValue(1));
    r = runSymflame({ "top", file, "--time-range", "2s,5s", "--json" });
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(QJsonDocument::fromJson(r.out).object().value("kept").toInteger(), inRange);

    for (const QStringList& bad : { QStringList { "--tag-focus", "thread.name=(" }, QStringList { "--time-range", "5s,2s" },
             QStringList { "--group-by", "," }, QStringList { "--tag-ignore", "" } }) {
        r = runSymflame(QStringList { "collapse", file } + bad);
        QCOMPARE(r.exitCode, 64);
        QVERIFY2(r.err.contains(bad[0].mid(2).toUtf8()), r.err.constData());
        QVERIFY(r.out.isEmpty());
    }
}

void TestOtlp::roundTrip()
{
    auto r = loadPath(otlpFile("scenario-v1.10.pb"));
    QVERIFY(r.ok());
    const std::vector<uint8_t> written = encodeOtlp(*r);

    // protoc's classes read what we wrote, with every table's entry 0 the zero value.
    v10::ProfilesData d;
    QVERIFY(d.ParseFromArray(written.data(), int(written.size())));
    QCOMPARE(d.resource_profiles_size(), 1);
    QCOMPARE(d.dictionary().string_table(0), std::string());
    QCOMPARE(d.dictionary().mapping_table(0).ByteSizeLong(), size_t(0));
    QCOMPARE(d.dictionary().location_table(0).ByteSizeLong(), size_t(0));
    QCOMPARE(d.dictionary().stack_table(0).location_indices_size(), 0);
    QCOMPARE(d.dictionary().attribute_table(0).ByteSizeLong(), size_t(0));
    const auto& prof = d.resource_profiles(0).scope_profiles(0).profiles(0);
    QCOMPARE(prof.samples_size(), 6);
    QCOMPARE(d.dictionary().string_table(prof.sample_type().type_strindex()), std::string("cpu"));
    QCOMPARE(prof.time_unix_nano(), T0);

    auto back = readOtlp(written);
    QVERIFY2(back.ok(), back.ok() ? "" : back.error().toString().c_str());
    QCOMPARE(back->formatVersion, std::string("1.10.0"));
    QCOMPARE(collapsed(*back, 0), collapsed(*r, 0));
    QCOMPARE(topTable(*back, 0), topTable(*r, 0));
    QCOMPARE(back->sampleTimestamps, r->sampleTimestamps);
    QCOMPARE(back->sampleCount(), r->sampleCount());
    for (size_t i = 0; i < r->sampleCount(); ++i) {
        QCOMPARE(back->sampleLabels(i).size(), r->sampleLabels(i).size());
        for (size_t k = 0; k < r->sampleLabels(i).size(); ++k)
            QCOMPARE(back->str(back->sampleLabels(i)[k].str), r->str(r->sampleLabels(i)[k].str));
        QCOMPARE(bool(back->sampleLinks[i]), bool(r->sampleLinks[i]));
    }
    QCOMPARE(back->attribute("service.name"), std::string_view("checkout"));
    QCOMPARE(back->attribute("otel.scope.name"), std::string_view("otlpgen"));
    for (const Location& l : r->locations) {
        const Location* o = findLocation(*back, l.address);
        QVERIFY(o);
        QCOMPARE(o->kind, l.kind);
        QCOMPARE(o->mapping.valid(), l.mapping.valid());
        if (l.mapping.valid()) {
            const Mapping& a = r->mappings[l.mapping.index()];
            const Mapping& b = back->mappings[o->mapping.index()];
            QCOMPARE(back->str(b.buildId), r->str(a.buildId));
            QCOMPARE(back->str(b.htlHash), r->str(a.htlHash));
            QCOMPARE(back->str(b.file), r->str(a.file));
            QCOMPARE(b.flags, a.flags);
        }
    }

    // As pprof, the mappings of ELF addresses get pprof's "file addresses" range (all 0), so
    // that symbolizing the pprof file later looks the addresses up as they are.
    const std::vector<uint8_t> asPprof = encodePprof(*r);
    perftools::profiles::Profile pp;
    QVERIFY(pp.ParseFromArray(asPprof.data(), int(asPprof.size())));
    QVERIFY(pp.mapping_size() >= 3);
    for (const auto& m : pp.mapping()) {
        QCOMPARE(m.memory_start(), uint64_t(0));
        QCOMPARE(m.memory_limit(), uint64_t(0));
        QCOMPARE(m.file_offset(), uint64_t(0));
    }

    // Atomic file writing, gzip by name, never over the input.
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("out.pb.gz"));
    QVERIFY(saveProfile(*r, out.toStdString(), ProfileFormat::Otlp).ok());
    auto reread = loadPath(out);
    QVERIFY(reread.ok());
    QCOMPARE(collapsed(*reread, 0), collapsed(*r, 0));
    const Status same = saveProfile(*r, out.toStdString(), ProfileFormat::Otlp, out.toStdString());
    QVERIFY(!same.ok());
    QCOMPARE(QString::fromStdString(same.error().message), QStringLiteral("refusing to overwrite the input file"));
}

// A real pprof profile (Go's runtime/pprof: samples/count and cpu/nanoseconds, the cpu time
// count x period) written as OTLP: one profile, of the count with the period, since the time
// follows from it; read back, both types are there, the default the same, each with the pprof
// profile's folded stacks and top table. A time that is not count x period gets its own profile.
void TestOtlp::pprofFixtureToOtlp()
{
    auto pprof = loadPath(QString::fromUtf8(fixtures::goCpuProfile));
    QVERIFY(pprof.ok());
    QCOMPARE(pprof->sampleTypes.size(), size_t(2));
    const std::vector<uint8_t> otlp = encodeOtlp(*pprof);
    auto r = readOtlp(otlp);
    QVERIFY2(r.ok(), r.ok() ? "" : r.error().toString().c_str());
    QCOMPARE(r->profilesInFile.size(), size_t(1));
    QCOMPARE(r->sampleTypes.size(), size_t(2));
    QCOMPARE(r->defaultSampleType, pprof->defaultSampleType);
    for (size_t t = 0; t < 2; ++t) {
        QCOMPARE(r->str(r->sampleTypes[t].type), pprof->str(pprof->sampleTypes[t].type));
        QVERIFY(!collapsed(*r, t).isEmpty());
        QCOMPARE(collapsed(*r, t), collapsed(*pprof, t));
        QCOMPARE(topTable(*r, t), topTable(*pprof, t));
    }
    Profile odd = *pprof;
    odd.sampleValues[1] += 1; // sample 0's cpu is no longer count x period
    auto again = readOtlp(encodeOtlp(odd));
    QVERIFY(again.ok());
    QCOMPARE(again->profilesInFile.size(), size_t(2));
    QCOMPARE(again->totalValue(1), odd.totalValue(1));
    QCOMPARE(again->totalValue(0), odd.totalValue(0));
}

void TestOtlp::sha256()
{
    QTemporaryDir dir;
    for (int size : { 0, 1, 55, 56, 63, 64, 65, 1000, 4096, 100003 }) {
        std::vector<uint8_t> data(static_cast<size_t>(size));
        for (size_t i = 0; i < data.size(); ++i)
            data[i] = uint8_t(i * 131 + 7);
        const QString path = dir.filePath(QString::number(size));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(reinterpret_cast<const char*>(data.data()), size);
        f.close();
        QProcess p;
        p.start(QStringLiteral("sha256sum"), { path });
        QVERIFY(p.waitForFinished(30000));
        const QByteArray expected = p.readAllStandardOutput().left(64);
        const auto digest = Sha256::of(data);
        QCOMPARE(QByteArray(reinterpret_cast<const char*>(digest.data()), 32).toHex(), expected);
        // Fed in pieces of odd sizes: the same digest.
        Sha256 h;
        for (size_t i = 0; i < data.size(); i += 37)
            h.update(std::span(data).subspan(i, std::min<size_t>(37, data.size() - i)));
        const auto pieces = h.finish();
        QVERIFY(pieces == digest);
    }
}

void TestOtlp::htlhash()
{
    for (const char* path : { fixtures::cxxBinary, fixtures::cxxLibrary }) {
        QFile f(QString::fromUtf8(path));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray bytes = f.readAll();
        QVERIFY(bytes.size() > 8192);
        const std::string ours
            = htlHashOf(std::span(reinterpret_cast<const uint8_t*>(bytes.constData()), size_t(bytes.size())));
        QCOMPARE(QString::fromStdString(ours), qtHtlHash(bytes));
        QCOMPARE(ours.size(), size_t(32));
    }
    const QByteArray small("tiny file");
    QCOMPARE(QString::fromStdString(htlHashOf(std::span(reinterpret_cast<const uint8_t*>(small.constData()), 9))),
        qtHtlHash(small));
}

void TestOtlp::cli()
{
    const QString file = otlpFile("scenario-v1.10.pb");
    ProcessResult r = runSymflame({ QStringLiteral("info"), file });
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("Format:        otlp 1.10.0\n"), r.out.constData());
    QVERIFY(r.out.contains("Profiles:      3 (showing all, merged; one with --profile N)\n"));
    // Merged: each sample type once, the first profile's the default; the resources' attributes
    // are labels (their keys listed with their values), the scope's shared ones attributes.
    QVERIFY2(r.out.contains("Sample types:  cpu (nanoseconds) [default], samples (count), wall (nanoseconds)\n"),
        r.out.constData());
    QVERIFY2(r.out.contains("Attribute:     otel.scope.name = otlpgen\n"), r.out.constData());
    QVERIFY2(r.out.contains("Label:         service.name (2 values"), r.out.constData());
    QVERIFY(r.out.contains("  #0  checkout  app  cpu (nanoseconds)  5 samples\n"));
    QVERIFY(r.out.contains("  #1  checkout  app  samples (count)  2 samples\n"));
    QVERIFY(r.out.contains("  #2  inventory  inv  wall (nanoseconds)  1 sample\n"));
    QVERIFY(r.out.contains("htlhash 0123456789abcdef0123456789abcdef"));

    r = runSymflame(
        { QStringLiteral("info"), QStringLiteral("--json"), file, QStringLiteral("--profile"), QStringLiteral("1") });
    QCOMPARE(r.exitCode, 0);
    const QJsonObject info = QJsonDocument::fromJson(r.out).object();
    QCOMPARE(info.value(QLatin1String("format")).toString(), QStringLiteral("otlp"));
    QCOMPARE(info.value(QLatin1String("format_version")).toString(), QStringLiteral("1.10.0"));
    QCOMPARE(info.value(QLatin1String("profile")).toInt(), 1);
    const QJsonArray profiles = info.value(QLatin1String("profiles")).toArray();
    QCOMPARE(profiles.size(), 3);
    QCOMPARE(profiles[2].toObject().value(QLatin1String("service_name")).toString(), QStringLiteral("inventory"));
    QCOMPARE(profiles[1].toObject().value(QLatin1String("sample_type")).toString(), QStringLiteral("samples (count)"));
    QCOMPARE(info.value(QLatin1String("samples")).toInt(), 4);

    r = runSymflame({ QStringLiteral("collapse"), file, QStringLiteral("--profile"), QStringLiteral("2") });
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(r.out, QByteArray("main;handler 100\n"));

    r = runSymflame({ QStringLiteral("top"), file, QStringLiteral("--profile"), QStringLiteral("7") });
    QCOMPARE(r.exitCode, 2);
    QCOMPARE(r.err,
        (QStringLiteral("symflame: ") + file + QStringLiteral(": no profile 7: the file holds 3 profiles (0 to 2)\n"))
            .toUtf8());

    QTemporaryDir dir;
    const QString png = dir.filePath(QStringLiteral("wall.png"));
    r = runSymflame({ QStringLiteral("render"), file, QStringLiteral("--profile"), QStringLiteral("2"),
        QStringLiteral("-o"), png, QStringLiteral("--color-by"), QStringLiteral("type") });
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY(QFileInfo(png).size() > 1000);
    const QString sym = dir.filePath(QStringLiteral("count.pb"));
    r = runSymflame({ QStringLiteral("symbolize"), file, QStringLiteral("--profile"), QStringLiteral("1"),
        QStringLiteral("-o"), sym, QStringLiteral("--offline") });
    QVERIFY2(r.exitCode == 0, r.err.constData());
    auto written = loadPath(sym);
    QVERIFY(written.ok());
    QCOMPARE(written->str(written->sampleTypes[0].type), std::string_view("samples"));
    QCOMPARE(written->totalValue(0), int64_t(4));

    r = runSymflame({ QStringLiteral("top"), file, QStringLiteral("--profile"), QStringLiteral("x") });
    QCOMPARE(r.exitCode, 64);
    QVERIFY(r.err.contains("--profile wants a profile number"));
}

// The locator with a mapping known only by htlhash: the recorded path is used only when its
// hash matches; otherwise the search directories' files are found by hash.
void TestOtlp::htlhashLocator()
{
    QFile lib(QString::fromUtf8(fixtures::cxxLibrary));
    QVERIFY(lib.open(QIODevice::ReadOnly));
    const std::string libHash = qtHtlHash(lib.readAll()).toStdString();
    QFile bin(QString::fromUtf8(fixtures::cxxBinary));
    QVERIFY(bin.open(QIODevice::ReadOnly));
    const std::string binHash = qtHtlHash(bin.readAll()).toStdString();

    symbolize::DebugInfoLocator plain;
    // The recorded path holds another file: rejected, with both hashes named.
    auto wrong = plain.locate(fixtures::cxxBinary, "", libHash);
    QCOMPARE(int(wrong.status), int(symbolize::LocateStatus::BuildIdMismatch));
    QCOMPARE(QString::fromStdString(wrong.summary()),
        QStringLiteral("htlhash mismatch: %1 has htlhash %2, wanted htlhash %3")
            .arg(QString::fromUtf8(fixtures::cxxBinary), QString::fromStdString(binHash),
                QString::fromStdString(libHash)));
    auto right = plain.locate(fixtures::cxxBinary, "", binHash);
    QCOMPARE(int(right.status), int(symbolize::LocateStatus::Found));
    QVERIFY(!right.unverified);

    symbolize::LocatorOptions options;
    options.searchDirs.push_back(QFileInfo(QString::fromUtf8(fixtures::cxxLibrary)).absolutePath().toStdString());
    symbolize::DebugInfoLocator indexed(options);
    indexed.buildIndex();
    auto byHash = indexed.locate("/nowhere/libsfwork.so", "", libHash);
    QCOMPARE(int(byHash.status), int(symbolize::LocateStatus::Found));
    QCOMPARE(QFileInfo(QString::fromStdString(byHash.binaryPath)).canonicalFilePath(),
        QFileInfo(QString::fromUtf8(fixtures::cxxLibrary)).canonicalFilePath());
    // The binaries triage keeps the htlhash: a binary known by it is "not found", not "no build ID".
    auto scenario = loadPath(otlpFile("scenario-v1.10.pb"));
    QVERIFY(scenario.ok());
    auto report = symbolize::SymbolizationPass(symbolize::SymbolizeOptions {}).run(*scenario);
    QVERIFY(report.ok());
    bool sawLib = false;
    for (const auto& row : symbolize::triageBinaries(*scenario, &*report, 0))
        if (row.path == "/usr/lib/libx.so") {
            sawLib = true;
            QCOMPARE(row.htlHash, std::string("0123456789abcdef0123456789abcdef"));
            QCOMPARE(int(row.state), int(symbolize::BinaryState::NotFound));
        }
    QVERIFY(sawLib);

    auto none = indexed.locate("/nowhere/x.so", "", std::string(32, '0'));
    QCOMPARE(int(none.status), int(symbolize::LocateStatus::NotFound));
    QVERIFY(QString::fromStdString(none.summary())
                .contains(QStringLiteral("no binary with htlhash 00000000000000000000000000000000")));
}

// The gperftools profile of cxxprog + libsfwork.so, turned into OTLP here the way the eBPF
// profiler writes it: ELF virtual addresses, no lines, cxxprog known by path, libsfwork.so only
// by its htlhash (its recorded path does not exist; a search directory holds it). Symbolized
// through the same pass, it must give the pprof path's answers for every sample.
void TestOtlp::symbolizeRealProgram()
{
    QFile in(QString::fromUtf8(fixtures::cxxUnsymbolizedProfile));
    QVERIFY(in.open(QIODevice::ReadOnly));
    const QByteArray gz = in.readAll();
    auto raw = gunzip(std::span(reinterpret_cast<const uint8_t*>(gz.constData()), size_t(gz.size())));
    QVERIFY(raw.ok());
    perftools::profiles::Profile src;
    QVERIFY(src.ParseFromArray(raw->data(), int(raw->size())));

    const QString library = QString::fromUtf8(fixtures::cxxLibrary);
    QFile lib(library);
    QVERIFY(lib.open(QIODevice::ReadOnly));
    const QString libHash = qtHtlHash(lib.readAll());

    v10::ProfilesData d;
    auto* dict = d.mutable_dictionary();
    std::map<std::string, int> strings;
    const auto str = [&](const std::string& s) {
        auto [it, inserted] = strings.emplace(s, dict->string_table_size());
        if (inserted)
            dict->add_string_table(s);
        return it->second;
    };
    str("");
    dict->add_mapping_table();
    dict->add_location_table();
    dict->add_function_table();
    dict->add_stack_table();
    dict->add_attribute_table();
    dict->add_link_table();
    auto* htlAttr = dict->add_attribute_table();
    htlAttr->set_key_strindex(str("process.executable.build_id.htlhash"));
    htlAttr->mutable_value()->set_string_value(libHash.toStdString());
    auto* nativeAttr = dict->add_attribute_table();
    nativeAttr->set_key_strindex(str("profile.frame.type"));
    nativeAttr->mutable_value()->set_string_value("native");
    std::map<uint64_t, int> mappingIndex; // pprof mapping id -> OTLP index
    std::map<uint64_t, const perftools::profiles::Mapping*> mappingById;
    int libMappings = 0;
    for (const auto& m : src.mapping()) {
        const std::string file = src.string_table(int(m.filename()));
        auto* om = dict->add_mapping_table();
        om->set_memory_start(m.memory_start());
        om->set_memory_limit(m.memory_limit());
        om->set_file_offset(m.file_offset());
        if (file == fixtures::cxxLibrary) {
            om->set_filename_strindex(str("/recorded/elsewhere/libsfwork.so"));
            om->add_attribute_indices(1);
            ++libMappings;
        } else {
            om->set_filename_strindex(str(file));
        }
        mappingIndex[m.id()] = dict->mapping_table_size() - 1;
        mappingById[m.id()] = &m;
    }
    QVERIFY(libMappings > 0);
    std::map<uint64_t, int> locationIndex;
    int converted = 0;
    for (const auto& l : src.location()) {
        auto* ol = dict->add_location_table();
        ol->add_attribute_indices(2);
        if (l.mapping_id() != 0) {
            const auto* m = mappingById.at(l.mapping_id());
            const std::string file = src.string_table(int(m->filename()));
            ol->set_mapping_index(mappingIndex.at(l.mapping_id()));
            if (file == fixtures::cxxLibrary || file == fixtures::cxxBinary) {
                const auto a
                    = elfAddress(QString::fromStdString(file), m->memory_start(), m->file_offset(), l.address());
                QVERIFY2(a.has_value(), file.c_str());
                ol->set_address(*a);
                ++converted;
            } else {
                ol->set_address(l.address()); // other binaries (libc): not compared below
            }
        } else {
            ol->set_address(l.address());
        }
        locationIndex[l.id()] = dict->location_table_size() - 1;
    }
    QVERIFY(converted > 10);
    auto* prof = d.add_resource_profiles()->add_scope_profiles()->add_profiles();
    prof->mutable_sample_type()->set_type_strindex(str(src.string_table(int(src.sample_type(1).type()))));
    prof->mutable_sample_type()->set_unit_strindex(str(src.string_table(int(src.sample_type(1).unit()))));
    for (const auto& s : src.sample()) {
        auto* st = dict->add_stack_table();
        for (uint64_t id : s.location_id())
            st->add_location_indices(locationIndex.at(id));
        auto* os = prof->add_samples();
        os->set_stack_index(dict->stack_table_size() - 1);
        os->add_values(s.value(1));
    }

    QTemporaryDir dir;
    const QString otlpPath = dir.filePath(QStringLiteral("cxx.otlp.pb"));
    {
        QFile f(otlpPath);
        QVERIFY(f.open(QIODevice::WriteOnly));
        const std::string bytes = d.SerializeAsString();
        f.write(bytes.data(), qsizetype(bytes.size()));
    }

    // Both paths through the same pass, libsfwork.so's directory as a search directory.
    symbolize::SymbolizeOptions options;
    options.locator.searchDirs.push_back(QFileInfo(library).absolutePath().toStdString());
    auto pprof = loadPath(QString::fromUtf8(fixtures::cxxUnsymbolizedProfile));
    QVERIFY(pprof.ok());
    auto otlp = loadPath(otlpPath);
    QVERIFY2(otlp.ok(), otlp.ok() ? "" : otlp.error().toString().c_str());
    auto pr = symbolize::symbolizeProfile(*pprof, options);
    QVERIFY(pr.ok());
    auto orep = symbolize::symbolizeProfile(*otlp, options);
    QVERIFY(orep.ok());

    // libsfwork.so was found by its htlhash, and its frames got names.
    bool libFound = false;
    for (const auto& m : orep->mappings)
        if (m.path == "/recorded/elsewhere/libsfwork.so") {
            QCOMPARE(int(m.status), int(symbolize::LocateStatus::Found));
            QCOMPARE(QString::fromStdString(m.binaryPath), QFileInfo(library).absoluteFilePath());
            QVERIFY(m.resolved > 0);
            libFound = true;
        }
    QVERIFY(libFound);

    // Sample by sample, the frames of cxxprog and libsfwork.so name the same functions.
    const SymbolTable ps = SymbolTable::build(*pprof);
    const SymbolTable os = SymbolTable::build(*otlp);
    QCOMPARE(otlp->sampleCount(), pprof->sampleCount());
    size_t compared = 0;
    const auto frames = [](const Profile& p, const SymbolTable& t, size_t i) {
        QStringList names;
        for (LocationId l : p.sampleStack(i)) {
            const Location& loc = p.locations[l.index()];
            const Mapping* m = p.mappingOf(loc);
            if (!m)
                continue;
            const std::string_view file = p.str(m->file);
            if (!file.ends_with("cxxprog") && !file.ends_with("libsfwork.so"))
                continue;
            for (const Line& line : p.linesOf(loc))
                names << QString::fromStdString(
                    line.function.valid() ? std::string(p.str(p.functions[line.function.index()].name)) : "?");
        }
        (void)t;
        return names;
    };
    for (size_t i = 0; i < pprof->sampleCount(); ++i) {
        const QStringList a = frames(*pprof, ps, i);
        QCOMPARE(frames(*otlp, os, i), a);
        compared += size_t(a.size());
    }
    QVERIFY2(compared > 100, QByteArray::number(qulonglong(compared)).constData());

    // The CLI: OTLP in, OTLP out, unless --format pprof.
    const QString outOtlp = dir.filePath(QStringLiteral("sym.pb"));
    ProcessResult r = runSymflame({ QStringLiteral("symbolize"), otlpPath, QStringLiteral("-o"), outOtlp,
        QStringLiteral("--search-path"), QFileInfo(library).absolutePath(), QStringLiteral("--offline") });
    QVERIFY2(r.exitCode == 0, r.err.constData());
    ProfileFormat format = ProfileFormat::Unknown;
    auto written = loadPath(outOtlp, 0, &format);
    QVERIFY(written.ok());
    QCOMPARE(format, ProfileFormat::Otlp);
    QCOMPARE(collapsed(*written, 0), collapsed(*otlp, 0));
    const QString outPprof = dir.filePath(QStringLiteral("sym.pb.gz"));
    r = runSymflame({ QStringLiteral("symbolize"), otlpPath, QStringLiteral("-o"), outPprof, QStringLiteral("--format"),
        QStringLiteral("pprof"), QStringLiteral("--search-path"), QFileInfo(library).absolutePath(),
        QStringLiteral("--offline") });
    QVERIFY2(r.exitCode == 0, r.err.constData());
    auto asPprof = loadPath(outPprof, 0, &format);
    QVERIFY(asPprof.ok());
    QCOMPARE(format, ProfileFormat::Pprof);
    const SymbolTable as = SymbolTable::build(*asPprof);
    QCOMPARE(asPprof->sampleCount(), otlp->sampleCount());
    for (size_t i = 0; i < otlp->sampleCount(); ++i)
        QCOMPARE(frames(*asPprof, as, i), frames(*otlp, os, i));
}

QTEST_GUILESS_MAIN(TestOtlp)
#include "tst_otlp.moc"
