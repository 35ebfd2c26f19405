// The isolation wire protocol (symbolize/isolation/protocol.h) without a process: every message
// survives encoding and decoding, a file held in memory travels as its bytes, and a truncated or
// malformed payload is rejected with an error (never read past its end).
#include "symbolize/isolation/protocol.h"
#include "symbolize/object/elffile.h"
#include "symbolize/object/mappedfile.h"

#include <QCoreApplication>
#include <QTest>

#include <fstream>
#include <iterator>

using namespace symflame;
using namespace symflame::symbolize;

namespace {

// Each address's frames as text: "name|systemName|file:startLine @line:column", innermost first.
QStringList render(const SymbolizedAddresses& a)
{
    QStringList out;
    for (size_t i = 0; i < a.size(); ++i) {
        QStringList frames;
        for (const SymbolizedFrame& f : a.frames(i)) {
            const SymbolizedFunction& fn = a.function(f.function);
            frames << QStringLiteral("%1|%2|%3:%4 @%5:%6")
                          .arg(QString::fromStdString(std::string(a.str(fn.name))),
                              QString::fromStdString(std::string(a.str(fn.systemName))),
                              QString::fromStdString(std::string(a.str(fn.file))))
                          .arg(fn.startLine)
                          .arg(f.line)
                          .arg(f.column);
        }
        out << frames.join(QStringLiteral(" < "));
    }
    return out;
}

// Appends an address with the given frames (function name, line) to a.
void addAddress(SymbolizedAddresses& a, std::initializer_list<std::pair<const char*, uint32_t>> frames)
{
    for (const auto& [name, line] : frames) {
        const uint32_t f = a.addFunction(SymbolizedFunction {
            a.intern(name), a.intern(std::string("_Z") + name), a.intern("/src/file.cpp"), line / 10 });
        a.addFrame(f, line, line % 7);
    }
    a.endAddress();
}

std::vector<uint8_t> readAll(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Lengths to cut a payload at: every one near the start, then a spread over the rest.
std::vector<size_t> cuts(size_t size)
{
    std::vector<size_t> c;
    for (size_t n = 0; n < size && n < 600; ++n)
        c.push_back(n);
    for (size_t n = 600; n < size; n += std::max<size_t>(1, size / 64))
        c.push_back(n);
    if (size > 0)
        c.push_back(size - 1);
    return c;
}

} // namespace

class TestIsolationProtocol : public QObject {
    Q_OBJECT

private slots:
    void framing()
    {
        const std::string m = protocol::frame(protocol::Answers, "payload");
        QCOMPARE(m.size(), protocol::kHeaderSize + 7);
        const protocol::Header h = protocol::readHeader(m);
        QCOMPARE(h.type, uint32_t(protocol::Answers));
        QCOMPARE(h.length, 7u);
        QCOMPARE(QByteArray::fromStdString(m.substr(protocol::kHeaderSize)), QByteArray("payload"));
    }

    // The module's files: a mapped one by path (shared by two fields), one held in memory by its
    // bytes; every finding of the locator and every option.
    void open()
    {
        const std::string exe = QCoreApplication::applicationFilePath().toStdString();
        auto mapped = ElfFile::open(exe);
        QVERIFY(mapped);
        auto inMemory = ElfFile::parse(MappedFile::fromBytes(readAll(exe), "/memory/minidebuginfo"));
        QVERIFY(inMemory);
        QCOMPARE((*inMemory)->file()->inode(), uint64_t(0));

        LocateResult r;
        r.status = LocateStatus::Found;
        r.recordedPath = "/recorded/app";
        r.wantedBuildId = "00112233";
        r.wantedHtlHash = "ffeeddcc";
        r.binary = *mapped;
        r.binaryPath = exe;
        r.unverified = true;
        r.binaryDownloaded = true;
        r.mismatchPath = "/other/app";
        r.mismatchBuildId = "4455";
        r.source = DebugSource::MiniDebugInfo;
        r.dwarf = *inMemory;
        r.dwarfPath = "/memory/minidebuginfo";
        r.symbols = *mapped;
        r.symbolKind = SymbolTable::Kind::Dynamic;
        r.supplementaryPath = "/dwz/alt";
        r.supplementaryProblem = "no such file";
        r.dynamicSymbols = *mapped;
        r.tried = { "/a: not found", "/b: build ID mismatch" };
        EngineOptions options;
        options.demangle = false;
        options.elideGoWrappers = true;
        options.maxWarnings = 7;

        const std::string payload = protocol::encodeOpen(r, options);
        LocateResult d;
        EngineOptions o;
        const model::Status st = protocol::decodeOpen(payload, d, o);
        QVERIFY2(st, st ? "" : st.error().toString().c_str());
        QCOMPARE(o.demangle, false);
        QCOMPARE(o.elideGoWrappers, true);
        QCOMPARE(o.maxWarnings, size_t(7));
        QCOMPARE(int(d.status), int(r.status));
        QCOMPARE(int(d.source), int(r.source));
        QCOMPARE(int(d.symbolKind), int(r.symbolKind));
        QCOMPARE(d.unverified, true);
        QCOMPARE(d.binaryDownloaded, true);
        for (auto field : { &LocateResult::recordedPath, &LocateResult::wantedBuildId, &LocateResult::wantedHtlHash,
                 &LocateResult::binaryPath, &LocateResult::mismatchPath, &LocateResult::mismatchBuildId,
                 &LocateResult::dwarfPath, &LocateResult::supplementaryPath, &LocateResult::supplementaryProblem })
            QCOMPARE(d.*field, r.*field);
        QCOMPARE(d.tried, r.tried);
        // The mapped file opened again by path, once for the three fields that share it.
        QVERIFY(d.binary);
        QCOMPARE(d.binary->path(), exe);
        QVERIFY(d.binary->file()->inode() != 0);
        QCOMPARE(d.symbols, d.binary);
        QCOMPARE(d.dynamicSymbols, d.binary);
        QVERIFY(!d.supplementary);
        // The file in memory: its bytes and its name.
        QVERIFY(d.dwarf);
        QCOMPARE(d.dwarf->path(), std::string("/memory/minidebuginfo"));
        QCOMPARE(d.dwarf->file()->inode(), uint64_t(0));
        QVERIFY(std::ranges::equal(d.dwarf->bytes(), r.dwarf->bytes()));
        QCOMPARE(d.dwarf->buildId(), r.dwarf->buildId());

        // Cut anywhere, or with a byte too many: an error.
        for (size_t n : cuts(payload.size())) {
            LocateResult x;
            EngineOptions y;
            QVERIFY2(
                !protocol::decodeOpen(std::string_view(payload).substr(0, n), x, y), qPrintable(QString::number(n)));
        }
        LocateResult x;
        EngineOptions y;
        model::Status longer = protocol::decodeOpen(payload + '\0', x, y);
        QVERIFY(!longer);
        QCOMPARE(QString::fromStdString(longer.error().message), QStringLiteral("malformed open message"));
        // A field naming a file that was not sent.
        std::string badIndex = payload;
        const uint32_t seven = 7;
        std::memcpy(badIndex.data() + badIndex.size() - 4, &seven, 4);
        model::Status bad = protocol::decodeOpen(badIndex, x, y);
        QVERIFY(!bad);
        QCOMPARE(QString::fromStdString(bad.error().message), QStringLiteral("malformed open message"));
        // Another build of the protocol.
        std::string otherVersion = payload;
        const uint32_t version = protocol::kProtocolVersion + 1;
        std::memcpy(otherVersion.data(), &version, 4);
        model::Status other = protocol::decodeOpen(otherVersion, x, y);
        QVERIFY(!other);
        QVERIFY(other.error().message.find("another protocol version") != std::string::npos);
    }

    void opened()
    {
        protocol::OpenedReply ok;
        ok.ok = true;
        ok.source = DebugSource::GoPclntab;
        ok.engine = "gopclntab";
        ok.description = "Go 1.22, table 1.20";
        const std::string payload = protocol::encodeOpened(ok);
        auto d = protocol::decodeOpened(payload);
        QVERIFY(d);
        QVERIFY(d->ok);
        QCOMPARE(int(d->source), int(DebugSource::GoPclntab));
        QCOMPARE(d->engine, ok.engine);
        QCOMPARE(d->description, ok.description);

        protocol::OpenedReply failed;
        failed.error = "/bin/x: not an ELF file";
        auto e = protocol::decodeOpened(protocol::encodeOpened(failed));
        QVERIFY(e);
        QVERIFY(!e->ok);
        QCOMPARE(e->error, failed.error);

        for (size_t n : cuts(payload.size()))
            QVERIFY2(!protocol::decodeOpened(std::string_view(payload).substr(0, n)), qPrintable(QString::number(n)));
        QVERIFY(!protocol::decodeOpened(payload + 'x'));
        std::string badSource = payload;
        badSource[1] = char(uint8_t(DebugSource::ClientCache) + 1); // past the last source
        auto bad = protocol::decodeOpened(badSource);
        QVERIFY(!bad);
        QCOMPARE(QString::fromStdString(bad.error().message), QStringLiteral("malformed opened message"));
    }

    void lookup()
    {
        const std::vector<uint64_t> addresses { 0x401000, 0x401008, 0xffffffff80000000ull };
        const std::string payload = protocol::encodeLookup(true, addresses);
        QCOMPARE(payload.size(), size_t(1 + 4 + 3 * 8));
        auto d = protocol::decodeLookup(payload);
        QVERIFY(d);
        QVERIFY(d->fresh);
        QCOMPARE(d->addresses, addresses);
        auto empty = protocol::decodeLookup(protocol::encodeLookup(false, {}));
        QVERIFY(empty);
        QVERIFY(!empty->fresh);
        QVERIFY(empty->addresses.empty());

        for (size_t n = 0; n < payload.size(); ++n)
            QVERIFY2(!protocol::decodeLookup(std::string_view(payload).substr(0, n)), qPrintable(QString::number(n)));
        QVERIFY(!protocol::decodeLookup(payload + 'x'));
        // A count far beyond the bytes.
        std::string huge = payload;
        const uint32_t many = 0xffffffffu;
        std::memcpy(huge.data() + 1, &many, 4);
        auto bad = protocol::decodeLookup(huge);
        QVERIFY(!bad);
        QCOMPARE(QString::fromStdString(bad.error().message), QStringLiteral("malformed lookup message"));
    }

    // Two batches of one call: the second carries only the strings and functions the first did
    // not, and the parent's output ends up as the worker's.
    void answers()
    {
        SymbolizedAddresses worker;
        addAddress(worker, { { "inlined", 12 }, { "caller", 40 } });
        addAddress(worker, { { "caller", 41 } });
        protocol::AnswersSent sent;
        const std::string first = protocol::encodeAnswers(worker, 3, { "bad unit", "bad line table" }, sent);
        QCOMPARE(sent.addresses, size_t(2));
        addAddress(worker, { { "caller", 42 } });
        addAddress(worker, { { "other", 7 }, { "inlined", 13 }, { "caller", 43 } });
        const std::string second = protocol::encodeAnswers(worker, 4, { "bad unit" }, sent);
        QCOMPARE(sent.addresses, size_t(4));
        QVERIFY(second.size() < first.size() + 40); // "caller" and "inlined" are not sent again

        SymbolizedAddresses parent;
        parent.intern("a string the parent had before");
        protocol::AnswersReceived received;
        auto b1 = protocol::decodeAnswers(first, 2, received, parent);
        QVERIFY(b1);
        QVERIFY(b1->ok);
        QCOMPARE(b1->warningCount, uint64_t(3));
        QCOMPARE(b1->warnings, (std::vector<std::string> { "bad unit", "bad line table" }));
        auto b2 = protocol::decodeAnswers(second, 2, received, parent);
        QVERIFY(b2);
        QVERIFY(b2->ok);
        QCOMPARE(b2->warningCount, uint64_t(4));
        QCOMPARE(render(parent), render(worker));
        QCOMPARE(render(parent).value(3),
            QStringLiteral("other|_Zother|/src/file.cpp:0 @7:0 < inlined|_Zinlined|/src/file.cpp:1 @13:6 < "
                           "caller|_Zcaller|/src/file.cpp:4 @43:1"));

        // The engine's error.
        auto failed
            = protocol::decodeAnswers(protocol::encodeAnswersError("symbolization cancelled"), 2, received, parent);
        QVERIFY(failed);
        QVERIFY(!failed->ok);
        QCOMPARE(failed->error, std::string("symbolization cancelled"));
    }

    void malformedAnswers()
    {
        SymbolizedAddresses worker;
        addAddress(worker, { { "inlined", 12 }, { "caller", 40 } });
        addAddress(worker, { { "caller", 41 } });
        protocol::AnswersSent sent;
        const std::string payload = protocol::encodeAnswers(worker, 1, { "a warning" }, sent);
        const auto decode = [](std::string_view bytes, size_t expected) {
            SymbolizedAddresses out;
            protocol::AnswersReceived received;
            return protocol::decodeAnswers(bytes, expected, received, out);
        };
        QVERIFY(decode(payload, 2));
        for (size_t n = 0; n < payload.size(); ++n) {
            auto r = decode(std::string_view(payload).substr(0, n), 2);
            QVERIFY2(!r, qPrintable(QString::number(n)));
            QCOMPARE(QString::fromStdString(r.error().message), QStringLiteral("malformed answers message"));
        }
        QVERIFY(!decode(payload + 'x', 2));
        QVERIFY(!decode(payload, 3)); // not the batch's count of addresses
        QVERIFY(!decode(payload, 1));

        // Indices out of their tables, and an address without frames, written by hand.
        const auto build = [](uint32_t stringIndex, uint32_t functionIndex, uint32_t frames) {
            protocol::Writer w;
            w.u8(1);
            w.u32(1);
            w.str("f");
            w.u32(1);
            for (uint32_t v : { stringIndex, 0u, 0u, 0u })
                w.u32(v);
            w.u32(1);
            w.u32(frames);
            for (uint32_t k = 0; k < frames; ++k)
                for (uint32_t v : { functionIndex, 1u, 1u })
                    w.u32(v);
            w.u64(0);
            w.u32(0);
            return std::move(w.data());
        };
        QVERIFY(decode(build(0, 0, 1), 1));
        QVERIFY(!decode(build(1, 0, 1), 1));
        QVERIFY(!decode(build(0, 1, 1), 1));
        QVERIFY(!decode(build(0, 0, 0), 1));
        // Counts far beyond the bytes are refused before anything is looped over.
        std::string huge = payload;
        const uint32_t many = 0xfffffff0u;
        std::memcpy(huge.data() + 1, &many, 4);
        QVERIFY(!decode(huge, 2));
    }
};

QTEST_GUILESS_MAIN(TestIsolationProtocol)
#include "tst_isolationprotocol.moc"
